//! Pure cost model: BOM pricing, capex, yearly opex, multi-year TCO, GPU-idle cost, the
//! side-by-side comparison and the break-even points. No I/O, no HTTP.
//!
//! All money is `rust_decimal::Decimal` with checked arithmetic; an overflow is a
//! [`CostError::Overflow`] naming the input to make smaller. Rounding policy: every money amount
//! is rounded once to cents, half away from zero, and every total is the exact sum of rounded
//! parts (see [`money`]). Formulas, defaults and sources: `docs/cost.md`.

mod capex;
mod compare;
mod depreciation;
mod envelope;
mod error;
pub mod failure;
mod idle;
mod input;
pub mod money;
mod opex;
mod sentences;
mod tco;
mod thumb;
mod training;

#[cfg(test)]
mod tests;

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

pub use capex::{Capex, CapexTotal, LinePrice, PricedLine, capex, line_prices, net_unit_price};
pub use compare::{BreakEven, Comparison, FabricDelta, GPU_HOUR_USD_MAX, compare, compare_with};
pub use depreciation::{Depreciation, DepreciationYear, straight_line};
pub use envelope::{Envelope, Limit, Spend, SpendInput, spend};
pub use error::CostError;
pub(crate) use idle::busy_gpu_hours_per_year;
pub use idle::{GpuIdle, gpu_idle, idle_fraction_to_decimal, owned_gpu_hour_usd};
pub use input::{
    BomLine, Category, Economics, FabricCostInput, PriceAdjustments, TrafficLabel, TrafficShare,
};
pub use money::{HOURS_PER_YEAR, format_usd_short};
pub use opex::{OpexPerYear, StaffRole, opex_per_year};
pub use sentences::{BreakEvenAt, Reason, Recommendation};
pub use tco::{Tco, TcoYear, tco};
pub use thumb::{RuleOfThumb, ThumbFabric, ThumbPlan, Verdict, rules_of_thumb};
pub(crate) use training::failure_share;
pub use training::{CostPerMillionTokens, Training, TrainingInput, tokens_over_years, training};

use crate::fabric::Fabric;
use money::{add_money, div, mul, rate};

/// Default spares budget: 2 % of hardware capex **per year** (`economics.spares_rate`).
///
/// Source: placeholder (grade P), a judgement — no public figure was found. It stands for
/// keeping an on-site cold-spare pool of switches, NICs and (mostly) optics topped up so a
/// failed part is swapped in minutes instead of waiting days for the support contract's RMA;
/// the 12 % support rate (pricing.md) already pays for the replacements themselves. Optics
/// dominate network failures and ~60 % of network cost (SemiAnalysis CPO Book, 2026-01, via
/// pricing.md). Set it to 0 to rely on RMA alone.
pub const DEFAULT_SPARES_RATE: Decimal = Decimal::from_parts(2, 0, 0, false, 2);

/// Two fabrics whose total costs differ by less than this fraction of the runner-up's total
/// are called a tie in the recommendation (1 %). Model constant, a judgement: smaller than the
/// spread of any input price in pricing.md, so such a gap is not a real difference.
pub const TIE_THRESHOLD: Decimal = Decimal::from_parts(1, 0, 0, false, 2);

/// Everything the cost model says about one fabric. Field names are the plan contract
/// (`bom`, `capex`, `opex_per_year`, `tco`, `gpu_idle`, `total_cost_usd`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FabricCost {
    /// Priced BOM lines (empty from [`fabric_cost_with`] without `priced_lines`).
    pub bom: Vec<PricedLine>,
    /// Capex by category, USD.
    pub capex: Capex,
    /// Yearly opex, USD per year.
    pub opex_per_year: OpexPerYear,
    /// Multi-year TCO of the network (capex + opex), USD.
    pub tco: Tco,
    /// GPU time lost waiting on the network, GPU-hours and USD.
    pub gpu_idle: GpuIdle,
    /// tco.total_usd + gpu_idle.cost_total_usd over the horizon (undiscounted), USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub total_cost_usd: Decimal,
    /// total_cost_usd ÷ useful GPU-hours over the horizon
    /// ((gpus × 8,760 × busy_fraction × (1 − idle_fraction) − failure GPU-hours per year) ×
    /// years): what the network costs per GPU-hour not lost to the network (its waits and its
    /// failures), USD per hour (4 decimals); `null` when there are no useful hours. Hours
    /// waiting on NVLink count as useful here: they are the job's, not the fabric's.
    #[serde(serialize_with = "crate::json::opt_decimal")]
    pub cost_per_useful_gpu_hour_usd: Option<Decimal>,
    /// Caveats for this fabric's numbers (e.g. UFM "quote required").
    pub warnings: Vec<String>,
    /// Exposed time per step by traffic, copied from the input (for the reasons).
    #[serde(skip)]
    pub traffic: Vec<TrafficShare>,
}

/// Prices and costs one fabric: adjusted BOM → capex → yearly opex → TCO → GPU-idle → total.
pub fn fabric_cost(
    input: &FabricCostInput<'_>,
    adj: &PriceAdjustments,
    econ: &Economics,
) -> Result<FabricCost, CostError> {
    fabric_cost_with(input, adj, econ, true)
}

/// [`fabric_cost`]; with `priced_lines: false` its `bom` is left empty (the lines are priced
/// all the same, but not copied): for a sweep point or a Monte Carlo sample, which read the
/// figures only.
pub fn fabric_cost_with(
    input: &FabricCostInput<'_>,
    adj: &PriceAdjustments,
    econ: &Economics,
    priced_lines: bool,
) -> Result<FabricCost, CostError> {
    econ.validate()?;
    let idle_fraction = idle_fraction_to_decimal(input.gpu_idle_fraction)?;
    let prices = line_prices(&input.lines, adj)?;
    let (capex, capex_blame) = capex(&prices)?;
    let (opex, opex_blame) = opex_per_year(
        input.fabric,
        input.gpus,
        input.endpoints,
        input.switches,
        &prices,
        &capex,
        econ,
    )?;
    let blame = if capex.total_usd >= opex.total_usd {
        capex_blame
    } else {
        opex_blame
    };
    let tco = tco(
        capex.total_usd,
        opex.total_usd,
        econ.years,
        econ.discount_rate,
        blame,
    )?;
    let gpu_idle = gpu_idle(
        idle_fraction,
        input.gpus,
        econ.busy_fraction,
        econ.gpu_hour_usd,
        econ.years,
        input.failure_gpu_hours_per_year,
    )?;
    let total_blame = if tco.total_usd >= gpu_idle.cost_total_usd {
        blame
    } else {
        "economics.gpu_hour_usd"
    };
    let total = add_money(tco.total_usd, gpu_idle.cost_total_usd, total_blame)?;

    let cost_per_useful_gpu_hour_usd = cost_per_useful_gpu_hour(input, econ, idle_fraction, total)?;
    let warnings = fabric_warnings(input, econ);

    let bom = if priced_lines {
        input
            .lines
            .iter()
            .zip(&prices)
            .map(|(line, &price)| PricedLine {
                line: line.clone(),
                price,
            })
            .collect()
    } else {
        Vec::new()
    };
    Ok(FabricCost {
        bom,
        capex,
        opex_per_year: opex,
        tco,
        gpu_idle,
        total_cost_usd: total,
        cost_per_useful_gpu_hour_usd,
        warnings,
        traffic: input.traffic.clone(),
    })
}

/// Busy GPU-hours a year less those lost to the network, its waits (`idle_fraction` of busy
/// time) and its failures: the hours the GPUs work (negative when failures take more).
pub(crate) fn useful_gpu_hours_per_year(
    gpus: u32,
    busy_fraction: Decimal,
    idle_fraction: Decimal,
    failure_gpu_hours_per_year: f64,
) -> Result<Decimal, CostError> {
    money::sub(
        mul(
            idle::busy_gpu_hours_per_year(gpus, busy_fraction)?,
            money::sub(Decimal::ONE, idle_fraction, "gpu_idle_fraction")?,
            "gpus",
        )?,
        idle::failure_hours(failure_gpu_hours_per_year)?,
        "reliability",
    )
}

/// Total cost ÷ the useful GPU-hours over the horizon, USD per hour; `None` when there are
/// none.
fn cost_per_useful_gpu_hour(
    input: &FabricCostInput<'_>,
    econ: &Economics,
    idle_fraction: Decimal,
    total: Decimal,
) -> Result<Option<Decimal>, CostError> {
    let useful_per_year = useful_gpu_hours_per_year(
        input.gpus,
        econ.busy_fraction,
        idle_fraction,
        input.failure_gpu_hours_per_year,
    )?;
    let useful_hours = mul(useful_per_year, Decimal::from(econ.years), "gpus")?;
    Ok(if useful_hours > Decimal::ZERO {
        // The request's `utilization.busy_fraction`; a tiny positive one leaves so few useful
        // hours that the rate overflows: too small, not too large.
        let input = "utilization.busy_fraction";
        let too_small = |_| CostError::Invalid {
            input,
            reason: "is too small: the cost per useful GPU-hour exceeds the decimal range",
        };
        Some(rate(div(total, useful_hours, input).map_err(too_small)?, input).map_err(too_small)?)
    } else {
        None
    })
}

/// The caveats of a fabric's numbers: InfiniBand's UFM left out of opex when not priced.
fn fabric_warnings(input: &FabricCostInput<'_>, econ: &Economics) -> Vec<String> {
    let mut warnings = Vec::new();
    if input.fabric == Fabric::Infiniband && econ.ufm_usd_per_endpoint_per_year.is_none() {
        warnings.push(format!(
            "InfiniBand: UFM licence price is a quote required (no public price; set \
             economics.ufm_usd_per_endpoint_per_year): UFM for {} endpoints is NOT included \
             in opex, so InfiniBand's yearly cost is understated.",
            input.endpoints
        ));
    }
    warnings
}
