//! Cost of GPU time lost waiting on the network, and the value of an owned GPU-hour.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::CostError;
use super::money::{FRACTION_DP, HOURS_PER_YEAR, add, div, money, mul, rate, round_hours};

/// GPU time lost to the network (`gpu_idle.*`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct GpuIdle {
    /// Share of busy GPU time spent waiting on the network (performance model), a fraction
    /// rounded to 6 decimals; the value every cost here uses.
    #[serde(serialize_with = "crate::json::decimal")]
    pub idle_fraction: Decimal,
    /// idle_fraction × gpus × 8,760 h × busy_fraction, GPU-hours per year (2 decimals).
    #[serde(serialize_with = "crate::json::decimal")]
    pub gpu_hours_per_year: Decimal,
    /// round_cents(exact GPU-hours per year × gpu_hour_usd), USD per year.
    #[serde(serialize_with = "crate::json::decimal")]
    pub cost_per_year_usd: Decimal,
    /// cost_per_year_usd × years (undiscounted, like `tco.total_usd`), USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub cost_total_usd: Decimal,
    /// GPU-hours lost per year to network failures (interruptions × (checkpoint/2 + restart) ×
    /// job GPUs), a number to the hundredth. Not part of `gpu_hours_per_year` (the
    /// communication wait).
    pub failure_gpu_hours_per_year: f64,
    /// `failure_gpu_hours_per_year` × the GPU-hour value, USD per year; included in
    /// `cost_per_year_usd` and `cost_total_usd`.
    #[schema(value_type = String)]
    #[serde(serialize_with = "crate::json::decimal")]
    pub failure_cost_per_year_usd: Decimal,
}

/// Converts the performance model's `f64` idle fraction to `Decimal` at [`FRACTION_DP`] places
/// (exact binary value, then rounded half away from zero). NaN, ±∞ and values outside [0, 1]
/// are rejected as `gpu_idle_fraction`.
pub fn idle_fraction_to_decimal(x: f64) -> Result<Decimal, CostError> {
    let invalid = CostError::Invalid {
        input: "gpu_idle_fraction",
        reason: "must be a finite number between 0 and 1",
    };
    if !x.is_finite() || !(0.0..=1.0).contains(&x) {
        return Err(invalid);
    }
    super::money::decimal_from_f64_rounded(x, FRACTION_DP).ok_or(invalid)
}

/// Busy GPU-hours per year: gpus × 8,760 × busy_fraction (exact).
pub(crate) fn busy_gpu_hours_per_year(
    gpus: u32,
    busy_fraction: Decimal,
) -> Result<Decimal, CostError> {
    mul(
        Decimal::from(gpus),
        mul(
            Decimal::from(HOURS_PER_YEAR),
            busy_fraction,
            "utilization.busy_fraction",
        )?,
        "gpus",
    )
}

/// Computes [`GpuIdle`] from an already converted idle fraction.
pub fn gpu_idle(
    idle_fraction: Decimal,
    gpus: u32,
    busy_fraction: Decimal,
    gpu_hour_usd: Decimal,
    years: u32,
    failure_gpu_hours_per_year: f64,
) -> Result<GpuIdle, CostError> {
    let hours = mul(
        idle_fraction,
        busy_gpu_hours_per_year(gpus, busy_fraction)?,
        "gpus",
    )?;
    let input = "economics.gpu_hour_usd";
    let failure_hours = failure_hours(failure_gpu_hours_per_year)?;
    let failure_per_year = money(mul(failure_hours, gpu_hour_usd, input)?, input)?;
    let comm_per_year = money(mul(hours, gpu_hour_usd, input)?, input)?;
    let per_year = money(add(comm_per_year, failure_per_year, input)?, input)?;
    let total = money(mul(per_year, Decimal::from(years), input)?, input)?;
    Ok(GpuIdle {
        idle_fraction,
        gpu_hours_per_year: round_hours(hours),
        cost_per_year_usd: per_year,
        cost_total_usd: total,
        // The hours as priced, to the hundredth like `gpu_hours_per_year` (the float printed
        // 5826.780000000001 beside 10296.50).
        failure_gpu_hours_per_year: rust_decimal::prelude::ToPrimitive::to_f64(&round_hours(
            failure_hours,
        ))
        .unwrap_or(failure_gpu_hours_per_year),
        failure_cost_per_year_usd: failure_per_year,
    })
}

/// GPU-hours per year lost to failures as the idle cost prices them (a decimal to the
/// fraction's places), checked: finite, in [0, 10^15].
pub fn failure_hours(failure_gpu_hours_per_year: f64) -> Result<Decimal, CostError> {
    let bad_failure = CostError::Invalid {
        input: "reliability",
        reason: "failure GPU-hours must be a finite number of at most 10^15",
    };
    if !failure_gpu_hours_per_year.is_finite()
        || !(0.0..=1e15).contains(&failure_gpu_hours_per_year)
    {
        return Err(bad_failure);
    }
    super::money::decimal_from_f64_rounded(failure_gpu_hours_per_year, FRACTION_DP)
        .ok_or(bad_failure)
}

/// Cost of one owned GPU-hour, USD (4 decimals):
/// `(purchase + server_share) ÷ (depreciation_years × 8,760 h) + gpu_power_w ÷ 1000 × PUE × USD/kWh`.
///
/// `gpu_power_w` is the GPU's share of its server's power (DGX H100: 10.2 kW ÷ 8 = 1,275 W).
/// With pricing.md's H100 figures ($30,000 + $3,750, 5 years, 1,275 W, PUE 1.25, $0.085/kWh)
/// this gives $0.9060 ≈ the $0.91 quoted there. Straight-line depreciation, no residual value,
/// no financing cost, every hour counted (not only busy ones).
pub fn owned_gpu_hour_usd(
    purchase_usd: Decimal,
    server_share_usd: Decimal,
    depreciation_years: u32,
    gpu_power_w: Decimal,
    pue: Decimal,
    electricity_usd_per_kwh: Decimal,
) -> Result<Decimal, CostError> {
    for (v, input) in [
        (purchase_usd, "purchase_usd"),
        (server_share_usd, "server_share_usd"),
        (gpu_power_w, "gpu_power_w"),
        (electricity_usd_per_kwh, "economics.electricity_usd_per_kwh"),
    ] {
        if v < Decimal::ZERO {
            return Err(CostError::Invalid {
                input,
                reason: "must not be negative",
            });
        }
    }
    if pue < Decimal::ONE {
        return Err(CostError::Invalid {
            input: "economics.pue",
            reason: "must be at least 1",
        });
    }
    let hours = mul(
        Decimal::from(depreciation_years),
        Decimal::from(HOURS_PER_YEAR),
        "depreciation_years",
    )?;
    let capital = div(
        add(purchase_usd, server_share_usd, "purchase_usd")?,
        hours,
        "depreciation_years",
    )?;
    let kw = div(gpu_power_w, Decimal::from(1_000u32), "gpu_power_w")?;
    let power = mul(
        mul(kw, pue, "economics.pue")?,
        electricity_usd_per_kwh,
        "economics.electricity_usd_per_kwh",
    )?;
    rate(add(capital, power, "purchase_usd")?, "purchase_usd")
}
