//! Rounding policy, checked-arithmetic helpers, model constants and short money formatting.
//!
//! Rounding policy (one rule, everywhere): every money amount the module outputs is rounded
//! **once, to whole cents, half away from zero** (`RoundingStrategy::MidpointAwayFromZero`, the
//! rule of a spreadsheet's `ROUND(x; 2)`), and every total is the exact sum of already rounded
//! parts, so parts always add up to their totals to the cent. Rates in USD per hour are rounded
//! to [`RATE_DP`] places, fractions to [`FRACTION_DP`], hours to [`HOURS_DP`], with the same rule.

use rust_decimal::{Decimal, RoundingStrategy};

use super::error::CostError;

/// Hours in a year (365 × 24; leap days ignored). Used for power, GPU-hours and depreciation.
pub const HOURS_PER_YEAR: u32 = 8_760;

/// Decimal places of every money amount (cents).
pub const MONEY_DP: u32 = 2;

/// Decimal places of USD-per-hour rates (`cost_per_useful_gpu_hour_usd`, break-even GPU-hour
/// value, [`crate::cost::owned_gpu_hour_usd`]): 1/100 of a cent, because network cost per GPU-hour
/// is often a few cents and whole cents would keep only one or two significant digits.
pub const RATE_DP: u32 = 4;

/// Decimal places at which the performance model's `f64` idle fraction is converted to `Decimal`
/// (and of every fraction the comparison reports): 10⁻⁶, i.e. 0.0001 percentage points, far
/// below the model's own accuracy and exact enough that the conversion never changes a cent on
/// clusters up to ~10⁴ GPUs at $10/GPU-hour over one year (10⁻⁶ × 10⁴ × 8,760 × $10 ≈ $0.9).
pub const FRACTION_DP: u32 = 6;

/// Decimal places of reported GPU-hours.
pub const HOURS_DP: u32 = 2;

/// Largest money amount or rate the module will report, USD (10²⁴, a trillion trillion dollars).
/// Anything at or above it is a [`CostError::Overflow`]: below it every value still fits
/// `Decimal`'s 96-bit mantissa with exact cents and 4-decimal rates, and the sum of two such
/// values is exact, so "totals = sum of the parts" can never be broken by silent precision loss
/// (rust_decimal rounds instead of failing when only the fraction overflows).
pub const MAX_AMOUNT_USD: Decimal =
    Decimal::from_parts(2_701_131_776, 466_537_709, 54_210, false, 0);

/// [`MAX_AMOUNT_USD`] as an integer (its scale is 0).
const MAX_AMOUNT_UNSCALED: u128 = 1_000_000_000_000_000_000_000_000;

/// [`MAX_AMOUNT_USD`] in cents: an amount in cents is money [`money`] accepts exactly when its
/// magnitude is below this.
pub(crate) const MAX_CENTS: i128 = 100_000_000_000_000_000_000_000_000;

/// The cents of a money amount: its mantissa when it is at scale 2 and not negative (every
/// [`money`] output is at scale 2).
pub(crate) fn cents_of(d: Decimal) -> Option<i128> {
    (d.scale() == MONEY_DP && !d.is_sign_negative()).then(|| d.mantissa())
}

/// `quantity × unit` as money, `money(mul(quantity, unit))`: for a unit price in cents (every
/// net unit price is) one integer product, else that decimal arithmetic (and its overflow,
/// blamed on `input`). The same value, scale and sign: below [`MAX_CENTS`] the product is exact
/// at scale 2 either way. Every BOM line of every design alternative is extended at every plan.
pub(crate) fn extended_money(
    unit: Decimal,
    quantity: u64,
    input: &'static str,
) -> Result<Decimal, CostError> {
    if let Some(c) = cents_of(unit)
        .and_then(|u| u.checked_mul(i128::from(quantity)))
        .filter(|&c| c < MAX_CENTS)
    {
        return Ok(Decimal::from_i128_with_scale(c, MONEY_DP));
    }
    money(mul(Decimal::from(quantity), unit, input)?, input)
}

/// The sum of money amounts in integer cents, `None` when one is not in cents or the sum
/// reaches [`MAX_CENTS`] (the caller then adds them as decimals, with its overflow error). For
/// amounts in cents that are not negative, every partial sum is at most the total, so the
/// decimal additions' bound checks pass exactly when this one does.
pub(crate) fn sum_cents(amounts: impl IntoIterator<Item = Decimal>) -> Option<Decimal> {
    let mut total: i128 = 0;
    for a in amounts {
        total = total.checked_add(cents_of(a)?).filter(|&t| t < MAX_CENTS)?;
    }
    Some(Decimal::from_i128_with_scale(total, MONEY_DP))
}

/// The sum of money amounts, rounded to cents: [`sum_cents`] when it can, else the decimal
/// additions with their overflow error blamed on `input` (a sum of nothing is `0.00`).
pub(crate) fn sum_money<I>(amounts: I, input: &'static str) -> Result<Decimal, CostError>
where
    I: IntoIterator<Item = Decimal>,
    I::IntoIter: Clone,
{
    let amounts = amounts.into_iter();
    if let Some(total) = sum_cents(amounts.clone()) {
        return Ok(total);
    }
    let mut total = Decimal::ZERO;
    for a in amounts {
        total = add_money(total, a, input)?;
    }
    Ok(round_money(total))
}

/// The single rounding rule of the module: half away from zero.
pub const ROUNDING: RoundingStrategy = RoundingStrategy::MidpointAwayFromZero;

/// Rounds to `dp` places at scale `dp` (the module's rounding policy, any number of places).
pub(crate) fn round_places(d: Decimal, dp: u32) -> Decimal {
    // Already at `dp` places (most sums of cents): nothing to round or rescale. Rounding is
    // the hot spot of a plan's cost model (as profiled: `benches/instructions.sh`).
    if d.scale() == dp {
        return d;
    }
    if let Some(r) = round_half_away(d, dp).or_else(|| widen(d, dp)) {
        return r;
    }
    let mut r = d.round_dp_with_strategy(dp, ROUNDING);
    // Fixed scale so JSON shows "1200.00", not "1200" (never fails; see `Decimal::rescale`).
    r.rescale(dp);
    r
}

/// `d` with fewer than `dp` places written at scale `dp` (a catalog price in whole dollars,
/// `1200` → `1200.00`): the mantissa times a power of ten, what rust_decimal's rounding and
/// rescale give (same mantissa, sign and scale) without them. `None` for zero, for more than
/// 28 places, when the mantissa would not fit 96 bits, or when `d` has `dp` places or more.
fn widen(d: Decimal, dp: u32) -> Option<Decimal> {
    // `from_parts` drops a zero's sign (rust_decimal keeps it) and takes at most 28 places.
    if d.is_zero() || dp > 28 {
        return None;
    }
    let places = dp.checked_sub(d.scale()).filter(|&p| p > 0)?;
    let m = d
        .mantissa()
        .unsigned_abs()
        .checked_mul(10u128.checked_pow(places)?)?;
    from_mantissa(m, d.is_sign_negative(), dp)
}

/// The `Decimal` with mantissa `m`, a sign and `scale`, its three 32-bit parts as rust_decimal
/// stores them; `None` when `m` needs more than 96 bits.
fn from_mantissa(m: u128, negative: bool, scale: u32) -> Option<Decimal> {
    if m >> 96 != 0 {
        return None;
    }
    let lo = u32::try_from(m & 0xffff_ffff).ok()?;
    let mid = u32::try_from((m >> 32) & 0xffff_ffff).ok()?;
    let hi = u32::try_from(m >> 64).ok()?;
    Some(Decimal::from_parts(lo, mid, hi, negative, scale))
}

/// `d.round_dp_with_strategy(dp, ROUNDING)` for a non-zero `d` with more than `dp` places, in
/// one 128-bit division: the same mantissa, sign and scale (rust_decimal divides, multiplies
/// back and builds its half-way mark digit by digit). `None` for anything else (the caller
/// rounds as before).
fn round_half_away(d: Decimal, dp: u32) -> Option<Decimal> {
    if d.is_zero() {
        return None;
    }
    let places = d.scale().checked_sub(dp).filter(|&p| p > 0)?;
    // |mantissa| < 2^96; 10^places ≤ 10^28 < 2^94: both fit a u128.
    let m = d.mantissa().unsigned_abs();
    let p = 10u128.checked_pow(places)?;
    let q = m.checked_div(p)?;
    let rest = m.checked_rem(p)?;
    // Half away from zero: up when the rest is at least half of `p` (2·rest ≥ p).
    let q = if rest >= p.checked_sub(rest)? {
        q.checked_add(1)?
    } else {
        q
    };
    // q ≤ |mantissa| / 10 < 2^96.
    from_mantissa(q, d.is_sign_negative(), dp)
}

/// A finite, non-negative `x` rounded half away from zero to `dp` places from its exact binary
/// value (`m · 2^e`, worked in integers), at scale `dp`: the idle fraction and the failure hours,
/// the performance model's `f64`s, as the cost model prices them. `None` for a negative or
/// non-finite `x`, `dp` > 20, or a result above `Decimal`'s range.
///
/// `Decimal::from_f64_retain` then [`round_places`] (what this replaces) first shortens the
/// binary value to at most 28 places, and fewer significant digits for small values; at 6
/// places a double is either on a half-way mark or far enough from one that the two agree (a
/// test holds them equal on 400,000 values and the doubles around their half-way marks; a
/// review compared 17 million more). Two differences by design: −0.0 gives 0 (the old way
/// gave −0), and a result beyond `Decimal`'s range at `dp` places is `None` (the old way gave
/// fewer places; callers bound their inputs far below). The conversion was 6 % of a plan's
/// instructions when profiled (`benches/instructions.sh`).
pub(crate) fn decimal_from_f64_rounded(x: f64, dp: u32) -> Option<Decimal> {
    if !x.is_finite() || x < 0.0 || dp > 20 {
        return None;
    }
    let bits = x.to_bits();
    let exponent = i32::try_from((bits >> 52) & 0x7ff).ok()?;
    let fraction = bits & ((1u64 << 52) - 1);
    // x = m · 2^e (subnormals have no implicit bit).
    let (m, e) = if exponent == 0 {
        (fraction, -1074)
    } else {
        (fraction | (1u64 << 52), exponent - 1075)
    };
    // m < 2^53 and 10^20 < 2^67: the product fits 120 bits.
    let scaled = u128::from(m).checked_mul(10u128.checked_pow(dp)?)?;
    let q = if e >= 0 {
        // x ≥ 2^52: an integer; its places are zeros.
        scaled.checked_mul(1u128.checked_shl(e.unsigned_abs()).filter(|&p| p != 0)?)?
    } else {
        let n = e.unsigned_abs();
        if n >= 121 {
            // scaled < 2^120 ≤ 2^(n−1): below half a unit of the last place.
            0
        } else {
            let q = scaled >> n;
            let rest = scaled & ((1u128 << n) - 1);
            // Half away from zero: up when the rest is at least half of 2^n.
            if rest >= 1u128 << (n - 1) { q + 1 } else { q }
        }
    };
    Decimal::try_from_i128_with_scale(i128::try_from(q).ok()?, dp).ok()
}

/// `d` as the nearest `f64` (0 when out of range), for a figure shown or compared as a float (a
/// ratio, a spreadsheet cell), never for money arithmetic.
pub fn approx_f64(d: Decimal) -> f64 {
    rust_decimal::prelude::ToPrimitive::to_f64(&d).unwrap_or(0.0)
}

/// Rounds a money amount to cents (the module's rounding policy).
pub fn round_money(d: Decimal) -> Decimal {
    round_places(d, MONEY_DP)
}

/// A money output: bounded by [`MAX_AMOUNT_USD`] (else an overflow blamed on `input`), then
/// rounded to cents.
pub(crate) fn money(d: Decimal, input: &'static str) -> Result<Decimal, CostError> {
    bounded(d, input).map(round_money)
}

/// A USD-per-hour output: bounded like [`money`], rounded to [`RATE_DP`] places.
pub(crate) fn rate(d: Decimal, input: &'static str) -> Result<Decimal, CostError> {
    bounded(d, input).map(round_rate)
}

fn bounded(d: Decimal, input: &'static str) -> Result<Decimal, CostError> {
    // |d| = |mantissa| ÷ 10^scale ≤ |mantissa|: a mantissa below the bound is below it at any
    // scale, without the rescaling comparison (exactly the same verdict, much cheaper).
    if d.mantissa().unsigned_abs() < MAX_AMOUNT_UNSCALED {
        return Ok(d);
    }
    if d.abs() >= MAX_AMOUNT_USD {
        Err(CostError::Overflow { input })
    } else {
        Ok(d)
    }
}

/// Rounds a USD-per-hour rate to [`RATE_DP`] places.
pub fn round_rate(d: Decimal) -> Decimal {
    round_places(d, RATE_DP)
}

/// Rounds a fraction to [`FRACTION_DP`] places.
pub fn round_fraction(d: Decimal) -> Decimal {
    round_places(d, FRACTION_DP)
}

/// Rounds hours to [`HOURS_DP`] places.
pub fn round_hours(d: Decimal) -> Decimal {
    round_places(d, HOURS_DP)
}

/// `a × b`, or an overflow blamed on `input`.
pub(crate) fn mul(a: Decimal, b: Decimal, input: &'static str) -> Result<Decimal, CostError> {
    a.checked_mul(b).ok_or(CostError::Overflow { input })
}

/// `a + b`, or an overflow blamed on `input`.
pub(crate) fn add(a: Decimal, b: Decimal, input: &'static str) -> Result<Decimal, CostError> {
    a.checked_add(b).ok_or(CostError::Overflow { input })
}

/// `a + b` as money: bounded by [`MAX_AMOUNT_USD`] and rounded to cents.
pub(crate) fn add_money(a: Decimal, b: Decimal, input: &'static str) -> Result<Decimal, CostError> {
    money(add(a, b, input)?, input)
}

/// `a − b`, or an overflow blamed on `input`.
pub(crate) fn sub(a: Decimal, b: Decimal, input: &'static str) -> Result<Decimal, CostError> {
    a.checked_sub(b).ok_or(CostError::Overflow { input })
}

/// `a ÷ b`; a zero divisor is an invalid `input`, an overflow is blamed on `input`.
pub(crate) fn div(a: Decimal, b: Decimal, input: &'static str) -> Result<Decimal, CostError> {
    if b.is_zero() {
        return Err(CostError::Invalid {
            input,
            reason: "must not be zero",
        });
    }
    a.checked_div(b).ok_or(CostError::Overflow { input })
}

/// The sum of `terms`; on overflow the input behind the largest term is blamed.
pub(crate) fn sum_blamed(terms: &[(Decimal, &'static str)]) -> Result<Decimal, CostError> {
    let mut total = Decimal::ZERO;
    for &(value, _) in terms {
        match total.checked_add(value) {
            Some(t) => total = t,
            None => {
                return Err(CostError::Overflow {
                    input: largest_input(terms.iter().copied()),
                });
            }
        }
    }
    Ok(total)
}

/// The input behind the largest (absolute) term, the first of equals; `"gpus"` for none.
pub(crate) fn largest_input(
    terms: impl IntoIterator<Item = (Decimal, &'static str)>,
) -> &'static str {
    let mut best: Option<(Decimal, &'static str)> = None;
    for (value, input) in terms {
        if best.is_none_or(|(b, _)| value.abs() > b) {
            best = Some((value.abs(), input));
        }
    }
    best.map_or("gpus", |b| b.1)
}

/// Checks `lo ≤ value ≤ hi` (either bound optional).
#[inline]
pub(crate) fn check_range(
    value: Decimal,
    lo: Option<Decimal>,
    hi: Option<Decimal>,
    input: &'static str,
    reason: &'static str,
) -> Result<(), CostError> {
    // Most lower bounds are zero: below it is the sign alone (a negative zero is not below),
    // without rust_decimal's comparison (hundreds of checks a plan).
    let below = lo.is_some_and(|lo| {
        if lo.is_zero() {
            value.is_sign_negative() && !value.is_zero()
        } else {
            value < lo
        }
    });
    let above = hi.is_some_and(|hi| value > hi);
    if below || above {
        Err(CostError::Invalid { input, reason })
    } else {
        Ok(())
    }
}

/// A plain decimal text with its integer digits grouped by commas: `-1234567.5` →
/// `-1,234,567.5`. The one thousands separator of every sentence, table and chart.
pub fn group_digits(text: &str) -> String {
    let (sign, rest) = match text.strip_prefix('-') {
        Some(r) => ("-", r),
        None => ("", text),
    };
    let (int, frac) = match rest.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (rest, None),
    };
    let mut out = String::with_capacity(text.len() + int.len() / 3);
    out.push_str(sign);
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    if let Some(f) = frac {
        out.push('.');
        out.push_str(f);
    }
    out
}

/// Short human money for sentences: `$1.4M`, `$950K`, `$9.5K`, `$800`, `$2.1B` (absolute value,
/// the caller says "more" or "less"). Rounded half away from zero; trailing `.0` dropped.
pub fn format_usd_short(amount: Decimal) -> String {
    short_usd_in_integers(amount).unwrap_or_else(|| short_usd_in_decimals(amount))
}

/// [`format_usd_short`] in 128-bit integers, for an amount of at most 18 places (every amount a
/// plan has): the same rounding of the same exact quotients as the decimal arithmetic, without
/// its divisions (a plan's comparison writes a dozen of these; the decimal way took 7 % of
/// building a plan). `None` past 18 places, where the decimal quotient by 10⁹ would be rounded.
fn short_usd_in_integers(amount: Decimal) -> Option<String> {
    let scale = amount.scale();
    if scale > 18 {
        return None;
    }
    let m = amount.mantissa().unsigned_abs();
    let one = 10u128.pow(scale);
    // |amount| ÷ unit with `places` places, rounded half away from zero, in units of 10^-places.
    let scaled = |unit: u128, places: u32| -> Option<u128> {
        let num = m.checked_mul(10u128.pow(places))?;
        let den = one.checked_mul(unit)?;
        let (q, r) = (num / den, num % den);
        if r.checked_mul(2)? >= den {
            q.checked_add(1)
        } else {
            Some(q)
        }
    };
    let (tenths, suffix) = if scaled(1_000_000, 1)? >= 10_000 {
        (scaled(1_000_000_000, 1)?, "B")
    } else if scaled(1_000, 0)? >= 1_000 {
        (scaled(1_000_000, 1)?, "M")
    } else if scaled(1, 0)? >= 1_000 {
        let k1 = scaled(1_000, 1)?;
        if k1 >= 100 {
            (scaled(1_000, 0)?.checked_mul(10)?, "K")
        } else {
            (k1, "K")
        }
    } else {
        (scaled(1, 0)?.checked_mul(10)?, "")
    };
    Some(match tenths % 10 {
        0 => format!("${}{suffix}", tenths / 10),
        d => format!("${}.{d}{suffix}", tenths / 10),
    })
}

/// [`format_usd_short`] in decimal arithmetic.
fn short_usd_in_decimals(amount: Decimal) -> String {
    let a = amount.abs();
    let thousand = Decimal::from(1_000u32);
    let million = Decimal::from(1_000_000u32);
    let billion = Decimal::from(1_000_000_000u32);
    // Pick the unit from the value *after* rounding so 999,960 prints "$1M", not "$1000K".
    let scaled = |unit: Decimal, dp: u32| {
        a.checked_div(unit)
            .unwrap_or(Decimal::ZERO)
            .round_dp_with_strategy(dp, ROUNDING)
    };
    let (value, suffix) = if scaled(million, 1) >= thousand {
        (scaled(billion, 1), "B")
    } else if scaled(thousand, 0) >= thousand {
        (scaled(million, 1), "M")
    } else if a.round_dp_with_strategy(0, ROUNDING) >= thousand {
        let k1 = scaled(thousand, 1);
        if k1 >= Decimal::TEN {
            (scaled(thousand, 0), "K")
        } else {
            (k1, "K")
        }
    } else {
        (a.round_dp_with_strategy(0, ROUNDING), "")
    };
    format!("${}{}", value.normalize(), suffix)
}

/// A fraction as a percentage: one decimal from 1 % up (0.0312 → `3.1%`); below 1 % two
/// significant digits, so a small share is not written as nothing (0.000321 → `0.032%`), down to
/// a 6-decimal fraction's last place (0.000001 → `0.0001%`); `0%` for zero.
pub fn format_percent(fraction: Decimal) -> String {
    if fraction.is_zero() {
        return "0%".to_string();
    }
    let pct = fraction
        .checked_mul(Decimal::ONE_HUNDRED)
        .unwrap_or(fraction);
    let size = pct.abs();
    let dp = if size >= Decimal::ONE {
        1
    } else if size >= Decimal::new(1, 1) {
        2
    } else if size >= Decimal::new(1, 2) {
        3
    } else {
        4
    };
    let mut pct = pct.round_dp_with_strategy(dp, ROUNDING);
    pct.rescale(dp);
    format!("{pct}%")
}

/// A seeded xorshift64 for the cost model's randomised tests: the same values on every run.
#[cfg(test)]
pub(crate) fn xorshift(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

#[cfg(test)]
mod tests {
    use super::xorshift;
    /// The one-division rounding gives rust_decimal's result bit for bit (mantissa, sign,
    /// scale): random values of every size and scale, exact half-way values on both sides and
    /// negatives, at every number of places the module rounds to.
    #[test]
    fn round_half_away_is_rust_decimal_rounding() {
        use rust_decimal::Decimal;
        let reference = |d: Decimal, dp: u32| {
            let mut r = d.round_dp_with_strategy(dp, super::ROUNDING);
            r.rescale(dp);
            r
        };
        let mut next = xorshift(0x9e37_79b9_7f4a_7c15);
        let mut checked = 0;
        for i in 0..200_000u32 {
            let bits = next();
            let m = (u128::from(next()) << 32 | u128::from(bits >> 32)) >> (bits % 97);
            let scale = u32::try_from(next() % 29).unwrap_or(0);
            let dp = [0, 1, 2, 4, 6][(i % 5) as usize];
            let lo = (m & 0xffff_ffff) as u32;
            let mid = ((m >> 32) & 0xffff_ffff) as u32;
            let hi = ((m >> 64) & 0xffff_ffff) as u32;
            let d = Decimal::from_parts(lo, mid, hi, bits & 1 == 1, scale);
            assert_eq!(
                super::round_places(d, dp).serialize(),
                reference(d, dp).serialize(),
                "{d} to {dp} places"
            );
            // The half-way values around it: ...5, ...4999…, ...5000…1.
            if scale > dp {
                let p = 10u128.pow(scale - dp);
                let q = (m / p).min((1u128 << 90) / p);
                for mm in [q * p + p / 2, q * p + p / 2 - 1, q * p + p / 2 + 1, p / 2] {
                    let d = Decimal::from_i128_with_scale(mm as i128, scale);
                    for d in [d, -d] {
                        assert_eq!(
                            super::round_places(d, dp).serialize(),
                            reference(d, dp).serialize(),
                            "{d} to {dp} places"
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 100_000, "{checked} half-way values");
        // More places than a Decimal holds: rust_decimal's own clamping, no panic.
        let tenth = Decimal::new(1, 1);
        assert_eq!(super::round_places(tenth, 29), reference(tenth, 29));
        // Zeros of either sign and mantissas that widen past 96 bits, at fewer places.
        for m in [0i128, 1, (1 << 95) / 10, 1 << 93, (1 << 96) - 1] {
            for scale in [0, 1, 5] {
                let d = Decimal::from_i128_with_scale(m, scale);
                for d in [d, -d] {
                    for dp in [0, 1, 2, 4, 6] {
                        assert_eq!(
                            super::round_places(d, dp).serialize(),
                            reference(d, dp).serialize(),
                            "{d} to {dp} places"
                        );
                    }
                }
            }
        }
    }

    /// The exact conversion gives what `from_f64_retain` and the module's rounding gave, on
    /// 400,000 fractions, failure-hour sizes and tiny values, and on the doubles at and around
    /// the half-way mark next to each.
    #[test]
    fn f64_rounding_from_the_binary_value_is_the_retained_decimal_rounded() {
        let reference = |x: f64, dp: u32| {
            Decimal::from_f64_retain(x).map(|d| super::round_places(d, dp).serialize())
        };
        let mut next = xorshift(0x2545_f491_4f6c_dd1d);
        let check = |x: f64, dp: u32| {
            assert_eq!(
                super::decimal_from_f64_rounded(x, dp).map(|d| d.serialize()),
                reference(x, dp),
                "{x:e} to {dp} places"
            );
        };
        for i in 0..400_000u32 {
            let unit = (next() >> 11) as f64 / (1u64 << 53) as f64;
            let dp = [6, 6, 2, 4, 0][(i % 5) as usize];
            // The idle fraction is in [0, 1]; failure hours up to 10^15; tiny values too.
            let x = match i % 4 {
                0 => unit,
                1 => unit * 1e15,
                2 => unit * 1e-9,
                _ => f64::from_bits(next() % 0x3ff0_0000_0000_0000),
            };
            check(x, dp);
            // The half-way mark nearest x at dp places and its neighbouring doubles.
            let p = 10f64.powi(dp as i32);
            let half = ((x * p).floor() + 0.5) / p;
            for h in [
                half,
                f64::from_bits(half.to_bits() + 1),
                f64::from_bits(half.to_bits().saturating_sub(1)),
            ] {
                check(h, dp);
            }
        }
        for x in [
            0.0,
            1.0,
            0.5,
            5e-7,
            4.999_999_999_999_999e-7,
            f64::MIN_POSITIVE,
            5e-324,
            1e15,
        ] {
            check(x, 6);
        }
        // By design: a negative zero is zero; 2^60 (the e ≥ 0 branch) is exact.
        assert_eq!(
            super::decimal_from_f64_rounded(-0.0, 6).map(|d| d.to_string()),
            Some("0.000000".to_string())
        );
        assert_eq!(
            super::decimal_from_f64_rounded(2f64.powi(60), 2).map(|d| d.to_string()),
            Some("1152921504606846976.00".to_string())
        );
        assert_eq!(super::decimal_from_f64_rounded(-1.0, 6), None);
        assert_eq!(super::decimal_from_f64_rounded(f64::NAN, 6), None);
        assert_eq!(super::decimal_from_f64_rounded(f64::INFINITY, 6), None);
    }

    /// Extending and summing in integer cents gives the decimal arithmetic's value, scale and
    /// sign, and leaves to it (and its overflow error) what is not in cents or out of range:
    /// random unit prices of 0 to 4 places (as `money` gives them and not), quantities up to
    /// 2^64 − 1, and sums up to and past the bound.
    #[test]
    fn extending_and_summing_in_cents_is_the_decimal_arithmetic() {
        let mut next = xorshift(0x51_7cc1_b727_220a);
        let decimal_sum = |xs: &[Decimal]| -> Result<Decimal, CostError> {
            let mut t = Decimal::ZERO;
            for &x in xs {
                t = add_money(t, x, "gpus")?;
            }
            Ok(round_money(t))
        };
        for i in 0..200_000u32 {
            let digits = 1 + next() % 27;
            let m = i128::from(next()) * i128::from(next() >> 32) % 10i128.pow(digits as u32);
            let places = u32::try_from(next() % 5).unwrap_or(2);
            let mut unit = Decimal::from_i128_with_scale(m, places);
            if i % 2 == 0 {
                unit = round_money(unit);
            }
            let quantity = match i % 3 {
                0 => next() % 100_000,
                1 => next() >> (next() % 64),
                _ => u64::MAX - next() % 3,
            };
            let decimal = money(
                mul(Decimal::from(quantity), unit, "gpus").unwrap_or(unit),
                "gpus",
            )
            .map(|d| d.serialize());
            let fast = extended_money(unit, quantity, "gpus").map(|d| d.serialize());
            if mul(Decimal::from(quantity), unit, "gpus").is_ok() {
                assert_eq!(fast, decimal, "{quantity} × {unit}");
            } else {
                assert_eq!(fast, Err(CostError::Overflow { input: "gpus" }));
            }
            let xs: Vec<Decimal> = (0..(next() % 6))
                .map(|_| {
                    let c = i128::from(next()) * i128::from(next() >> (32 + next() % 32));
                    round_money(Decimal::from_i128_with_scale(c % (MAX_CENTS / 2), 2))
                })
                .collect();
            assert_eq!(
                sum_money(xs.iter().copied(), "gpus").map(|d| d.serialize()),
                decimal_sum(&xs).map(|d| d.serialize()),
                "{xs:?}"
            );
            let fast = sum_cents(xs.iter().copied());
            match decimal_sum(&xs) {
                Ok(d) => {
                    if let Some(f) = fast {
                        assert_eq!(f.serialize(), d.serialize(), "{xs:?}");
                    }
                }
                Err(_) => assert_eq!(fast, None, "{xs:?}"),
            }
        }
        let edge = Decimal::from_i128_with_scale(MAX_CENTS - 1, 2);
        assert_eq!(sum_cents([edge]), Some(edge));
        assert_eq!(sum_cents([edge, Decimal::new(1, 2)]), None);
        assert_eq!(sum_cents([Decimal::new(5, 1)]), None, "not in cents");
        assert_eq!(sum_cents([Decimal::new(-5, 2)]), None, "negative");
    }

    /// The zero lower bound's sign test gives the comparison's verdict.
    #[test]
    fn a_zero_lower_bound_is_checked_as_the_comparison_checks_it() {
        use rust_decimal::Decimal;
        let values = [
            "-0.01",
            "-0",
            "-0.000",
            "0",
            "0.00",
            "1e-28",
            "-1e-28",
            "7",
            "-79228162514264337593543950335",
        ];
        for v in values {
            let v: Decimal = v.parse().expect("a decimal");
            for value in [v, -v] {
                for lo in [Decimal::ZERO, Decimal::new(0, 3), Decimal::ONE] {
                    let expected = value < lo;
                    assert_eq!(
                        super::check_range(value, Some(lo), None, "x", "r").is_err(),
                        expected,
                        "{value} against {lo}"
                    );
                }
            }
        }
    }

    use super::*;

    fn d(s: &str) -> Decimal {
        s.parse().unwrap()
    }

    #[test]
    fn money_rounds_half_away_from_zero_to_fixed_cents() {
        assert_eq!(round_money(d("1.005")).to_string(), "1.01");
        assert_eq!(round_money(d("1.0049")).to_string(), "1.00");
        assert_eq!(round_money(d("-1.005")).to_string(), "-1.01");
        assert_eq!(round_money(d("1200")).to_string(), "1200.00");
        assert_eq!(round_rate(d("0.90601669")).to_string(), "0.9060");
    }

    #[test]
    fn short_format() {
        assert_eq!(format_usd_short(d("1400000")), "$1.4M");
        assert_eq!(format_usd_short(d("-2149999")), "$2.1M");
        assert_eq!(format_usd_short(d("950000")), "$950K");
        assert_eq!(format_usd_short(d("999960")), "$1M");
        assert_eq!(format_usd_short(d("999400")), "$999K");
        assert_eq!(format_usd_short(d("999960000")), "$1B");
        assert_eq!(format_usd_short(d("950")), "$950");
        assert_eq!(format_usd_short(d("999.5")), "$1K");
        assert_eq!(format_usd_short(d("9960")), "$10K");
        assert_eq!(format_usd_short(d("9500")), "$9.5K");
        assert_eq!(format_usd_short(d("1000")), "$1K");
        assert_eq!(format_usd_short(d("800.49")), "$800");
        assert_eq!(format_usd_short(d("0")), "$0");
        assert_eq!(format_usd_short(d("2100000000")), "$2.1B");
        assert_eq!(format_percent(d("0.0312")), "3.1%");
        assert_eq!(format_percent(d("0")), "0%");
        assert_eq!(format_percent(d("0.01")), "1.0%");
        assert_eq!(format_percent(d("0.009996")), "1.00%");
        assert_eq!(format_percent(d("0.003514")), "0.35%");
        assert_eq!(format_percent(d("0.000321")), "0.032%");
        assert_eq!(format_percent(d("0.000001")), "0.0001%");
    }

    #[test]
    fn short_money_in_integers_is_short_money_in_decimals() {
        // Amounts of 0 to 18 places, of every size from cents to 96-bit mantissas, both signs,
        // and the values either side of each unit's rounding and switching marks.
        let mut next = xorshift(0x005e_ed0f_5107);
        let mut amounts = Vec::new();
        for _ in 0..200_000 {
            let bits = next() % 97;
            let m = (u128::from(next()) << 64 | u128::from(next())) >> (128 - bits.max(1));
            let m = if bits == 0 { 0 } else { m };
            let scale = (next() % 19) as u32;
            let negative = next().is_multiple_of(2);
            amounts.push(Decimal::from_parts(
                m as u32,
                (m >> 32) as u32,
                (m >> 64) as u32,
                negative,
                scale,
            ));
        }
        for mark in [
            "999.5",
            "9950",
            "999500",
            "999950",
            "999950000",
            "1000",
            "10000",
            "1e9",
        ] {
            let mark = Decimal::from_scientific(mark)
                .or_else(|_| mark.parse())
                .expect("mark");
            for places in 0..=6 {
                let step = Decimal::new(1, places);
                amounts.extend([mark - step, mark, mark + step]);
            }
        }
        let mut integer = 0;
        for a in amounts {
            if let Some(fast) = short_usd_in_integers(a) {
                integer += 1;
                assert_eq!(fast, short_usd_in_decimals(a), "{a:?}");
            }
        }
        assert!(integer > 190_000, "{integer}");
        // Past 18 places the decimal way answers.
        let fine = Decimal::new(123_456_789, 19);
        assert_eq!(short_usd_in_integers(fine), None);
        assert_eq!(format_usd_short(fine), "$0");
    }

    #[test]
    fn the_fast_bound_is_the_bound() {
        assert_eq!(MAX_AMOUNT_USD.scale(), 0);
        assert_eq!(
            MAX_AMOUNT_USD.mantissa().unsigned_abs(),
            MAX_AMOUNT_UNSCALED
        );
        // Just below and at the bound, at several scales, either sign.
        for scale in [0u32, 2, 4] {
            let unscaled = MAX_AMOUNT_UNSCALED * 10u128.pow(scale) - 1;
            for sign in [Decimal::ONE, Decimal::NEGATIVE_ONE] {
                let below = Decimal::from_i128_with_scale(unscaled as i128, scale) * sign;
                assert!(bounded(below, "x").is_ok(), "{below}");
                assert!(bounded(MAX_AMOUNT_USD * sign, "x").is_err());
            }
        }
        // Rounding a value already at the places gives it back, scale included.
        assert_eq!(round_money(d("12.30")).to_string(), "12.30");
        assert_eq!(round_money(d("12.3")).to_string(), "12.30");
        assert_eq!(round_money(d("12.305")).to_string(), "12.31");
    }

    #[test]
    fn sum_blames_largest_term() {
        let big = Decimal::MAX;
        let err = sum_blamed(&[(d("1"), "a"), (big, "b"), (big, "c")]).unwrap_err();
        assert_eq!(err, CostError::Overflow { input: "b" });
        assert_eq!(err.pointer(), "/b");
        assert_eq!(
            CostError::Overflow {
                input: "economics.pue"
            }
            .pointer(),
            "/economics/pue"
        );
    }
}
