//! Multi-year TCO with discounting.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::CostError;
use super::money::{MAX_CENTS, add, add_money, cents_of, div, money, mul, round_money};

/// One year of the TCO schedule (`tco.by_year[]`), USD.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TcoYear {
    /// Year number, 1-based.
    pub year: u32,
    /// Capex paid this year (all of it in year 1, at t = 0), USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub capex_usd: Decimal,
    /// Opex paid this year (at the end of the year), USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub opex_usd: Decimal,
    /// capex + opex, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub cost_usd: Decimal,
    /// Sum of `cost_usd` up to and including this year, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub cumulative_usd: Decimal,
    /// Present value of this year's cost: capex (undiscounted, t = 0) + round_cents(opex ÷ (1 + r)^year), USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub discounted_usd: Decimal,
    /// Sum of `discounted_usd` up to and including this year, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub cumulative_discounted_usd: Decimal,
}

/// TCO over the horizon (`tco.*`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Tco {
    /// Horizon, years.
    pub years: u32,
    /// Discount rate used for `npv_usd` and `discounted_usd`, a fraction.
    #[serde(serialize_with = "crate::json::decimal")]
    pub discount_rate: Decimal,
    /// The schedule, one row per year.
    pub by_year: Vec<TcoYear>,
    /// Undiscounted TCO = capex + years × yearly opex = the last `cumulative_usd`, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub total_usd: Decimal,
    /// Net present cost = the last `cumulative_discounted_usd`, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub npv_usd: Decimal,
}

/// Builds the schedule. `capex_usd` and `opex_usd` must already be rounded to cents; every
/// output is cents and every cumulative is an exact sum of the rows. `blame` names the input to
/// report if a sum overflows.
pub fn tco(
    capex_usd: Decimal,
    opex_usd: Decimal,
    years: u32,
    discount_rate: Decimal,
    blame: &'static str,
) -> Result<Tco, CostError> {
    if let Some(t) = tco_in_cents(capex_usd, opex_usd, years, discount_rate) {
        return Ok(t);
    }
    // In decimals: any input, and the overflow errors.
    let growth_step = add(Decimal::ONE, discount_rate, "economics.discount_rate")?;
    let mut growth = Decimal::ONE;
    let mut cumulative = Decimal::ZERO;
    let mut cumulative_disc = Decimal::ZERO;
    let mut by_year = Vec::with_capacity(usize::try_from(years).unwrap_or(0));
    for year in 1..=years {
        growth = mul(growth, growth_step, "economics.discount_rate")?;
        let capex = if year == 1 { capex_usd } else { Decimal::ZERO };
        let cost = add_money(capex, opex_usd, blame)?;
        cumulative = add_money(cumulative, cost, blame)?;
        let present_opex = money(div(opex_usd, growth, "economics.discount_rate")?, blame)?;
        let discounted = add_money(capex, present_opex, blame)?;
        cumulative_disc = add_money(cumulative_disc, discounted, blame)?;
        by_year.push(TcoYear {
            year,
            capex_usd: round_money(capex),
            opex_usd: round_money(opex_usd),
            cost_usd: round_money(cost),
            cumulative_usd: round_money(cumulative),
            discounted_usd: round_money(discounted),
            cumulative_discounted_usd: round_money(cumulative_disc),
        });
    }
    Ok(Tco {
        years,
        discount_rate,
        by_year,
        total_usd: round_money(cumulative),
        npv_usd: round_money(cumulative_disc),
    })
}

/// [`tco`] in whole cents: each year's present opex is `opex × (b/g)^year` for the discount
/// rate's `1 + r = g/b` in lowest terms, divided once and rounded half away from zero, and the
/// sums are integer sums. `None` (and the decimal schedule computes it, with its overflow
/// errors) when an amount is not in cents or is negative, or a power or sum leaves 128 bits
/// or [`MAX_CENTS`]. The decimal schedule divides by `(1 + r)^year` rounded to 28 digits and
/// rounds the quotient to 28 digits, so the two can differ by a cent where a present value
/// lies within about 10⁻²⁸ of its size from a half cent — the cents are then the exact ones (a
/// review found one: $14.7 quadrillion of opex a year at 7 % for 10 years); a test holds them
/// equal on 30,000 random schedules. Five rows of decimal divisions were 7 % of a plan's
/// instructions when profiled (`benches/instructions.sh`).
fn tco_in_cents(capex_usd: Decimal, opex_usd: Decimal, years: u32, rate: Decimal) -> Option<Tco> {
    let (capex, opex) = (cents_of(capex_usd)?, cents_of(opex_usd)?);
    if rate.is_sign_negative() {
        return None;
    }
    let unit = 10u128.checked_pow(rate.scale())?;
    let step = unit.checked_add(rate.mantissa().unsigned_abs())?;
    let common = crate::arith::gcd(unit, step);
    let (b, g) = (unit / common, step / common);
    let usd = |c: i128| Decimal::try_from_i128_with_scale(c, 2).ok();
    let opex_u = opex.unsigned_abs();
    let (mut b_pow, mut g_pow) = (1u128, 1u128);
    let (mut cumulative, mut cumulative_disc) = (0i128, 0i128);
    let mut by_year = Vec::with_capacity(usize::try_from(years).unwrap_or(0));
    for year in 1..=years {
        b_pow = b_pow.checked_mul(b)?;
        g_pow = g_pow.checked_mul(g)?;
        let scaled = opex_u.checked_mul(b_pow)?;
        let (q, rest) = (scaled / g_pow, scaled % g_pow);
        let present = i128::try_from(if rest >= g_pow - rest { q + 1 } else { q }).ok()?;
        let capex_now = if year == 1 { capex } else { 0 };
        let within = |c: i128| (c < MAX_CENTS).then_some(c);
        let cost = within(capex_now.checked_add(opex)?)?;
        cumulative = within(cumulative.checked_add(cost)?)?;
        let discounted = within(capex_now.checked_add(present)?)?;
        cumulative_disc = within(cumulative_disc.checked_add(discounted)?)?;
        by_year.push(TcoYear {
            year,
            capex_usd: usd(capex_now)?,
            opex_usd: usd(opex)?,
            cost_usd: usd(cost)?,
            cumulative_usd: usd(cumulative)?,
            discounted_usd: usd(discounted)?,
            cumulative_discounted_usd: usd(cumulative_disc)?,
        });
    }
    Some(Tco {
        years,
        discount_rate: rate,
        by_year,
        total_usd: usd(cumulative)?,
        npv_usd: usd(cumulative_disc)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The schedule in cents is the decimal schedule (taken for the same amounts written at
    /// three places), row for row and digit for digit, on random amounts (cents to ~10²⁰ USD),
    /// rates of 0 to 4 places and horizons of 1 to 15 years.
    #[test]
    fn the_schedule_in_cents_is_the_decimal_schedule() {
        let mut next = crate::cost::money::xorshift(0x9e37_79b9_7f4a_7c15);
        let widened = |d: Decimal| {
            let mut w = d;
            w.rescale(3);
            w
        };
        let mut in_cents = 0;
        for i in 0..30_000u32 {
            let amount = |r: u64, digits: u64| {
                let m = i128::from(r % 10u64.pow(u32::try_from(digits % 19).unwrap_or(0) + 1));
                Decimal::from_i128_with_scale(m * i128::from(1 + r % 1000), 2)
            };
            let capex = amount(next(), next());
            let opex = amount(next(), next());
            let places = u32::try_from(next() % 5).unwrap_or(0);
            let rate = Decimal::new(
                i64::try_from(next() % 10u64.pow(places).max(1)).unwrap_or(0),
                places,
            );
            let years = 1 + (i % 15);
            // The same amounts at three places are not in cents: the decimal schedule.
            let (capex3, opex3) = (widened(capex), widened(opex));
            assert!(tco_in_cents(capex3, opex3, years, rate).is_none());
            let slow = tco(capex3, opex3, years, rate, "gpus").expect("no overflow");
            if tco_in_cents(capex, opex, years, rate).is_some() {
                in_cents += 1;
            }
            assert_eq!(
                serde_json::to_string(&tco(capex, opex, years, rate, "gpus").expect("tco")).ok(),
                serde_json::to_string(&slow).ok(),
                "capex {capex}, opex {opex}, rate {rate}, {years} years"
            );
        }
        assert!(in_cents > 21_000, "{in_cents} of 30,000 in cents");
    }

    /// The cents path leaves an overflow to the decimal one, which blames the input.
    #[test]
    fn an_overflowing_schedule_is_the_decimal_error() {
        let big = Decimal::from_i128_with_scale(60_000_000_000_000_000_000_000_000, 2);
        assert_eq!(
            tco_in_cents(big, big, 2, Decimal::new(8, 2)).map(|t| t.years),
            None
        );
        assert_eq!(
            tco(big, big, 2, Decimal::new(8, 2), "economics.years"),
            Err(CostError::Overflow {
                input: "economics.years"
            })
        );
    }
}
