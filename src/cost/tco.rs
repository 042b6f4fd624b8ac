//! Multi-year TCO with discounting.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::CostError;
use super::money::{add, add_money, div, money, mul, round_money};

/// One year of the TCO schedule (`tco.by_year[]`), USD.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TcoYear {
    /// Year number, 1-based.
    pub year: u32,
    /// Capex paid this year (all of it in year 1, at t = 0), USD.
    pub capex_usd: Decimal,
    /// Opex paid this year (at the end of the year), USD.
    pub opex_usd: Decimal,
    /// capex + opex, USD.
    pub cost_usd: Decimal,
    /// Sum of `cost_usd` up to and including this year, USD.
    pub cumulative_usd: Decimal,
    /// Present value of this year's cost: capex (undiscounted, t = 0) + round_cents(opex ÷ (1 + r)^year), USD.
    pub discounted_usd: Decimal,
    /// Sum of `discounted_usd` up to and including this year, USD.
    pub cumulative_discounted_usd: Decimal,
}

/// TCO over the horizon (`tco.*`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Tco {
    /// Horizon, years.
    pub years: u32,
    /// Discount rate used for `npv_usd` and `discounted_usd`, a fraction.
    pub discount_rate: Decimal,
    /// The schedule, one row per year.
    pub by_year: Vec<TcoYear>,
    /// Undiscounted TCO = capex + years × yearly opex = the last `cumulative_usd`, USD.
    pub total_usd: Decimal,
    /// Net present cost = the last `cumulative_discounted_usd`, USD.
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
