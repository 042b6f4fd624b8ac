//! What an uncertainty analysis answers: each fabric's spread of totals, how often it is the
//! cheapest, its expected regret, and the tornado of what drives the gap.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use crate::fabric::Fabric;
use crate::plan::request::InputRange;

/// Where an uncertain input's range comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RangeSource {
    /// The request's `uncertainty.inputs`.
    Request,
    /// The catalog's `price_range_usd` (triangular around the list price).
    Catalog,
    /// The validation table's residuals (`GET /v1/validation`): a model term's range.
    Validation,
}

/// An uncertain input as the analysis used it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct InputUsed {
    /// Input name (`prices.list.<sku>` for a catalog list price).
    pub input: String,
    /// `request`, `catalog` or `validation`.
    pub source: RangeSource,
    /// Unit of low, mode and high.
    pub unit: String,
    /// The range.
    #[serde(flatten)]
    pub range: InputRange,
}

/// Mean and percentiles of a money amount over the samples, USD (nearest-rank percentiles:
/// each is one of the sampled values).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Spread {
    #[serde(serialize_with = "crate::json::decimal")]
    pub mean: Decimal,
    #[serde(serialize_with = "crate::json::decimal")]
    pub p5: Decimal,
    #[serde(serialize_with = "crate::json::decimal")]
    pub p50: Decimal,
    #[serde(serialize_with = "crate::json::decimal")]
    pub p95: Decimal,
}

/// One fabric across the samples.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FabricUncertainty {
    pub fabric: Fabric,
    /// Share of samples in which this fabric has the lowest total cost (ties go to the fabric
    /// listed first). The fabrics' probabilities sum to one.
    pub probability_cheapest: f64,
    /// Samples in which this fabric is cheapest (they sum to `samples`).
    pub cheapest_samples: u32,
    /// Mean over the samples of (this fabric's total − the cheapest fabric's total): what
    /// choosing it costs, on average, against a buyer who knew the outcome, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub expected_regret_usd: Decimal,
    /// Total cost (network TCO + GPU-idle cost), USD; its mean is `tco_usd.mean` +
    /// `gpu_idle_usd.mean` as shown (each to the cent), so the means add up.
    pub total_usd: Spread,
    /// Network TCO (capex + opex), USD.
    pub tco_usd: Spread,
    /// Network capex, USD.
    pub capex_usd: Spread,
    /// GPU-idle cost over the horizon, USD.
    pub gpu_idle_usd: Spread,
}

/// One bar of the tornado: the total-cost gap between the two leading fabrics with this input
/// at its low and at its high, every other input at its mode.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct TornadoEntry {
    pub input: String,
    /// Unit of low, high and flips_at.
    pub unit: String,
    #[serde(serialize_with = "crate::json::decimal")]
    pub low: Decimal,
    #[serde(serialize_with = "crate::json::decimal")]
    pub high: Decimal,
    /// The cheapest other fabric's total − the leader's with the input at `low`, USD
    /// (negative: another fabric is cheaper there). With two fabrics, runner_up − leader.
    #[serde(serialize_with = "crate::json::decimal")]
    pub gap_at_low_usd: Decimal,
    /// The same with the input at `high`, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub gap_at_high_usd: Decimal,
    /// |gap_at_high − gap_at_low|, USD: the bar's length; entries are sorted by it, largest
    /// first.
    #[serde(serialize_with = "crate::json::decimal")]
    pub swing_usd: Decimal,
    /// The values of this input (others at their modes) at which another fabric becomes as
    /// cheap as the leader (the gap closes), within the input's allowed range; empty when
    /// none. The reason names the fabric that takes the lead.
    pub flips_at: Vec<Decimal>,
    /// What would have to be true for the ranking to flip, in words.
    pub reason: String,
}

/// The uncertainty analysis of a plan (`uncertainty` beside the point plan).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Uncertainty {
    /// Samples drawn.
    pub samples: u32,
    /// Seed of the draws.
    pub seed: u64,
    /// Every uncertain input and its range.
    pub inputs: Vec<InputUsed>,
    /// Per feasible fabric: percentiles, probability of being cheapest, expected regret.
    pub fabrics: Vec<FabricUncertainty>,
    /// Cheapest fabric with every input at its mode (null with one feasible fabric).
    pub leader: Option<Fabric>,
    /// Second cheapest at the modes.
    pub runner_up: Option<Fabric>,
    /// runner_up total − leader total with every input at its mode, USD (the tornado's
    /// centre line; null with one feasible fabric).
    #[serde(serialize_with = "crate::json::opt_decimal")]
    pub gap_at_modes_usd: Option<Decimal>,
    /// What drives the gap between the leader and the cheapest other fabric (the runner-up at
    /// the modes), largest swing first.
    pub tornado: Vec<TornadoEntry>,
    /// Plain sentences: how sure the recommendation is and what would flip it.
    pub reasons: Vec<String>,
}
