//! How sure is the answer: the plan's inputs as ranges, Monte Carlo over them, the probability
//! each fabric is cheapest, the expected regret of each choice, and a tornado of what drives
//! the gap between the two leading fabrics, with the values at which the ranking flips.
//! Method and limits: docs/uncertainty.md.
//!
//! A sample never sizes again: the fabrics are sized once (the design chosen at the point
//! prices stays), and each sample re-prices the same BOM quantities (list prices), re-runs the
//! performance model and the failure line when job or reliability inputs move, and re-costs.
//! Request-level inputs are set through the request's own typed deserialisation (the bounded
//! input types: the same bounds and units as a POST body), then resolved as any request.

mod draw;
mod text;
mod tornado;

#[cfg(test)]
mod tests;

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::Serialize;
use utoipa::ToSchema;

use super::request::{DistributionKind, InputRange, UncertaintyRequest};
use super::{PlanError, PlanRequest, Prepared, SizedFabric, inputs, registry};
use crate::catalog::{Catalog, CatalogSet};
use crate::cost::{self, FabricCostInput};
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
pub use draw::Distribution;

/// Inputs an analysis may vary: they change what the fabric costs or how the job runs, never
/// which fabric is built (sizing inputs — GPUs, speeds, topology — are for sweeps).
const VARIABLE_PREFIXES: [&str; 5] = [
    "economics.",
    "utilization.",
    "workload.",
    "reliability.",
    "prices.",
];

/// Where an uncertain input's range comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RangeSource {
    /// The request's `uncertainty.inputs`.
    Request,
    /// The catalog's `price_range_usd` (triangular around the list price).
    Catalog,
}

/// Where a sampled value goes.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// The list price of a catalog SKU, on every BOM line that carries it.
    ListPrice(String),
    /// A request input at this JSON path (decimal inputs are sent as decimal strings).
    Input { path: Vec<String>, decimal: bool },
}

/// One uncertain input, checked: its range, domain and how to say it.
#[derive(Debug, Clone)]
pub struct Target {
    /// `prices.list.<sku>` or the plan input's dotted name.
    pub name: String,
    /// In words, for sentences (`the value of one GPU-hour (economics.gpu_hour_usd)`).
    pub label: String,
    /// Unit as declared (`USD per GPU-hour`).
    pub unit: String,
    pub dist: Distribution,
    /// The range as given (exact), for the output.
    pub range: InputRange,
    /// Every value the input may take (the registry's bounds), searched for flips.
    pub domain: (f64, f64),
    pub source: RangeSource,
    kind: Kind,
    stream: u64,
}

/// A checked analysis: how many samples, the seed and the inputs.
#[derive(Debug, Clone)]
pub struct Spec {
    pub samples: u32,
    pub seed: u64,
    pub targets: Vec<Target>,
}

/// An uncertain input as the analysis used it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct InputUsed {
    /// Input name (`prices.list.<sku>` for a catalog list price).
    pub input: String,
    /// `request` or `catalog`.
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

/// The "too large" error of a sum or difference of totals.
fn overflow(what: &str) -> PlanError {
    PlanError::field(
        "/uncertainty",
        ErrorCode::CostOverflow,
        format!("{what} overflows the decimal range; narrow the ranges"),
    )
}

fn range_error(name: &str, detail: impl Into<String>) -> PlanError {
    PlanError::field(&pointer(name), ErrorCode::InvalidRange, detail)
}

fn pointer(name: &str) -> String {
    format!(
        "/uncertainty/inputs/{}",
        name.replace('~', "~0").replace('/', "~1")
    )
}

/// A catalog SKU's list price and range (`None` without a public price).
fn catalog_price(c: &Catalog, sku: &str) -> Option<(Decimal, Decimal, Decimal)> {
    let (price, range, _) = c.priced(sku)?;
    let range = range?;
    Some((price?, range.low, range.high))
}

/// The largest price an input may hold, USD (the registry's bound on `prices.overrides`).
fn price_max() -> f64 {
    registry::map_params()
        .iter()
        .find(|p| p.name == "prices.overrides")
        .and_then(|p| p.numeric.as_ref())
        .map_or(1e9, |n| n.max)
}

fn to_f64(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

fn distribution(r: &InputRange) -> Distribution {
    let (low, high) = (to_f64(r.low), to_f64(r.high));
    Distribution {
        kind: r.distribution,
        low,
        mode: r.mode.map(to_f64).unwrap_or((low + high) / 2.0),
        high,
    }
}

/// Checks a range against the input's domain: low ≤ mode ≤ high, inside the bounds; a mode
/// exactly when triangular.
fn check_range(
    name: &str,
    r: &InputRange,
    domain: (f64, f64),
    exclusive_max: bool,
    unit: &str,
) -> Result<(), PlanError> {
    match (r.distribution, r.mode) {
        (DistributionKind::Triangular, None) => {
            return Err(range_error(name, "a triangular range needs 'mode'"));
        }
        (DistributionKind::Uniform, Some(_)) => {
            return Err(range_error(
                name,
                "a uniform range has no 'mode' (use distribution 'triangular')",
            ));
        }
        _ => {}
    }
    let mode = r.mode.unwrap_or(r.low);
    if !(r.low <= mode && mode <= r.high) {
        return Err(range_error(name, "must satisfy low <= mode <= high"));
    }
    let (lo, hi) = (to_f64(r.low), to_f64(r.high));
    // Below an open bound, no nearer than samples can go: they are sent to the plan rounded
    // to six places, and 0.9999995 would round onto a bound of 1 and be refused mid-analysis.
    let top = if exclusive_max {
        registry::highest_below(domain.1)
    } else {
        domain.1
    };
    if lo < domain.0 || hi > top {
        return Err(range_error(
            name,
            format!(
                "must lie within {} to {} ({unit}){}",
                text::number(domain.0),
                text::number(top),
                if exclusive_max {
                    format!(
                        ": {} itself is excluded and samples are rounded to six decimal places",
                        text::number(domain.1)
                    )
                } else {
                    String::new()
                }
            ),
        ));
    }
    Ok(())
}

/// The label of a plan input: its doc's first sentence without a closing parenthesis (the
/// name follows in one), with the name.
fn label_of(spec: &registry::ParamSpec, name: &str) -> String {
    let sentence = spec
        .doc
        .split(". ")
        .next()
        .unwrap_or("")
        .trim_end_matches('.');
    let first = match sentence.rfind(" (") {
        Some(i) if sentence.ends_with(')') => &sentence[..i],
        _ => sentence,
    };
    if first.is_empty() {
        return name.to_string();
    }
    format!("the {} ({name})", crate::words::lower_first(first))
}

/// Checks the request's analysis against the plan: every named input exists, can vary
/// without changing the design, and has a range inside its domain; the catalog's price ranges
/// are added for every BOM SKU without its own.
pub fn spec(u: &UncertaintyRequest, prepared: &Prepared) -> Result<Spec, PlanError> {
    let r = &prepared.resolved;
    let mut targets = Vec::new();
    let given = u.inputs.as_ref().map(|i| &i.0);
    for (name, range) in given.into_iter().flatten() {
        targets.push(match name.strip_prefix("prices.list.") {
            Some(sku) => list_price_target(r, name, sku, range)?,
            None => input_target(r, name, range)?,
        });
    }
    if u.catalog_price_ranges.unwrap_or(true) {
        catalog_range_targets(prepared, given, &mut targets);
    }
    Ok(Spec {
        samples: u.samples.unwrap_or_default().get(),
        seed: u.seed.unwrap_or_default().get(),
        targets,
    })
}

/// An analysis input the request names that is unknown or cannot be sampled.
fn unknown_input(name: &str, detail: String) -> PlanError {
    PlanError::field(&pointer(name), ErrorCode::UnknownInput, detail)
}

/// A range the request gives on a catalog list price (`prices.list.<sku>`).
fn list_price_target(
    r: &inputs::Resolved,
    name: &str,
    sku: &str,
    range: &InputRange,
) -> Result<Target, PlanError> {
    let catalog = &r.catalog;
    if catalog_price(catalog, sku).is_none() {
        return Err(unknown_input(
            name,
            format!("no priced SKU '{sku}' in catalog '{}'", catalog.id()),
        ));
    }
    if r.adjustments.overrides.contains_key(sku) {
        return Err(unknown_input(
            name,
            format!(
                "prices.overrides sets the price of '{sku}', so its list price has no effect; give a range on prices.overrides.{sku} instead"
            ),
        ));
    }
    let domain = (0.0, price_max());
    check_range(name, range, domain, false, "USD")?;
    Ok(Target {
        name: name.to_string(),
        label: format!("the list price of {sku}"),
        unit: "USD".into(),
        dist: distribution(range),
        range: range.clone(),
        domain,
        source: RangeSource::Request,
        kind: Kind::ListPrice(sku.to_string()),
        stream: draw::stream(name),
    })
}

/// A range the request gives on a numeric plan input that does not change the design.
fn input_target(r: &inputs::Resolved, name: &str, range: &InputRange) -> Result<Target, PlanError> {
    if !VARIABLE_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return Err(unknown_input(
            name,
            format!(
                "'{name}' changes the fabric's design or is not a plan input; an analysis varies economics.*, utilization.*, workload.*, reliability.*, prices.* and catalog list prices (prices.list.<sku>); sweep the others"
            ),
        ));
    }
    let (spec, path) = match registry::numeric_input(name) {
        Some(s) => (s, name.split('.').map(str::to_string).collect::<Vec<_>>()),
        None => keyed_input(r, name)?,
    };
    let Some(n) = &spec.numeric else {
        return Err(unknown_input(
            name,
            format!("'{name}' is not a numeric plan input"),
        ));
    };
    if n.integer || n.one_of.is_some() {
        return Err(unknown_input(
            name,
            format!("'{name}' takes whole numbers; sample continuous inputs, sweep this one"),
        ));
    }
    check_range(name, range, (n.min, n.max), n.max_exclusive, &n.unit)?;
    Ok(Target {
        name: name.to_string(),
        label: label_of(spec, name),
        unit: n.unit.clone(),
        dist: distribution(range),
        range: range.clone(),
        domain: (n.min, n.highest()),
        source: RangeSource::Request,
        kind: Kind::Input {
            path,
            decimal: n.decimal,
        },
        stream: draw::stream(name),
    })
}

/// A keyed plan input (`prices.overrides.<sku>`, a vendor's or a category's discount) and its
/// path, when the key names something the catalog has.
fn keyed_input(
    r: &inputs::Resolved,
    name: &str,
) -> Result<(&'static registry::ParamSpec, Vec<String>), PlanError> {
    let catalog = &r.catalog;
    let Some((s, key)) = registry::keyed_input(name) else {
        return Err(unknown_input(
            name,
            format!("'{name}' is not a numeric plan input"),
        ));
    };
    if s.name == "prices.overrides" && catalog_price(catalog, key).is_none() {
        return Err(unknown_input(
            name,
            format!("no priced SKU '{key}' in catalog '{}'", catalog.id()),
        ));
    }
    if s.name == "prices.discounts.vendor" && !catalog.vendors().contains(&key) {
        return Err(unknown_input(
            name,
            crate::plan::inputs::unknown_vendor(catalog, key),
        ));
    }
    if s.name == "prices.discounts.category"
        && !crate::cost::Category::ALL.iter().any(|c| c.as_str() == key)
    {
        return Err(unknown_input(
            name,
            format!("'{key}' is not a category (nic, switch, optic, cable, license)"),
        ));
    }
    let mut path: Vec<String> = s.name.split('.').map(str::to_string).collect();
    path.push(key.to_string());
    Ok((s, path))
}

/// The catalog's price range of every SKU the sized fabrics buy that the request neither
/// ranges nor overrides (and whose range is not a single price).
fn catalog_range_targets(
    prepared: &Prepared,
    given: Option<&std::collections::BTreeMap<String, InputRange>>,
    targets: &mut Vec<Target>,
) {
    let r = &prepared.resolved;
    let catalog = &r.catalog;
    let mut seen: Vec<&str> = Vec::new();
    for s in &prepared.sized {
        for line in &s.lines {
            let sku = line.sku.as_str();
            if seen.contains(&sku) {
                continue;
            }
            seen.push(sku);
            let named = |p: &str| given.is_some_and(|g| g.contains_key(&format!("{p}{sku}")));
            if named("prices.list.")
                || named("prices.overrides.")
                || r.adjustments.overrides.contains_key(sku)
            {
                continue;
            }
            let Some((list, low, high)) = catalog_price(catalog, sku) else {
                continue;
            };
            if low == high {
                continue;
            }
            let name = format!("prices.list.{sku}");
            let range = InputRange {
                distribution: DistributionKind::Triangular,
                low,
                mode: Some(list),
                high,
            };
            targets.push(Target {
                label: format!("the list price of {sku}"),
                unit: "USD".into(),
                dist: distribution(&range),
                range,
                domain: (0.0, price_max()),
                source: RangeSource::Catalog,
                kind: Kind::ListPrice(sku.to_string()),
                stream: draw::stream(&name),
                name,
            });
        }
    }
}

/// What one evaluation gives per fabric, USD.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Totals {
    capex: Decimal,
    tco: Decimal,
    idle: Decimal,
    total: Decimal,
}

/// One fabric's state across evaluations: its cost input (list prices rewritten in place)
/// and the BOM lines each list-price target prices.
struct FabricState<'a> {
    sized: &'a SizedFabric,
    input: FabricCostInput<'a>,
    slots: Vec<(usize, Vec<usize>)>,
}

/// Evaluates the plan's fabrics at given input values, without sizing again.
struct Engine<'a> {
    prepared: &'a Prepared,
    catalogs: &'a CatalogSet,
    targets: &'a [Target],
    fabrics: Vec<FabricState<'a>>,
    /// The client's request as JSON, with a slot at each request-level target's path
    /// (rewritten per evaluation); `None` when every target is a list price.
    request: Option<serde_json::Value>,
}

fn slot<'v>(v: &'v mut serde_json::Value, path: &[String]) -> &'v mut serde_json::Value {
    let mut cur = v;
    for seg in path {
        if !cur.is_object() {
            *cur = serde_json::Value::Object(serde_json::Map::new());
        }
        let serde_json::Value::Object(m) = cur else {
            unreachable!("made an object above")
        };
        cur = m.entry(seg.clone()).or_insert(serde_json::Value::Null);
    }
    cur
}

impl<'a> Engine<'a> {
    fn new(
        prepared: &'a Prepared,
        catalogs: &'a CatalogSet,
        targets: &'a [Target],
    ) -> Result<Engine<'a>, PlanError> {
        let r = &prepared.resolved;
        let mut fabrics = Vec::with_capacity(prepared.sized.len());
        for s in &prepared.sized {
            let perf =
                crate::perf::evaluate(&super::perf_input(r, s)).map_err(super::perf_error)?;
            let input = super::cost_input(r, s, perf.gpu_idle_fraction, Vec::new());
            let slots = targets
                .iter()
                .enumerate()
                .filter_map(|(t, target)| match &target.kind {
                    Kind::ListPrice(sku) => {
                        let lines: Vec<usize> = input
                            .lines
                            .iter()
                            .enumerate()
                            .filter(|(_, l)| &l.sku == sku)
                            .map(|(i, _)| i)
                            .collect();
                        (!lines.is_empty()).then_some((t, lines))
                    }
                    Kind::Input { .. } => None,
                })
                .collect();
            fabrics.push(FabricState {
                sized: s,
                input,
                slots,
            });
        }
        let request = if targets.iter().any(|t| matches!(t.kind, Kind::Input { .. })) {
            let base = prepared.request.as_ref().unwrap_or(&r.normalized);
            let mut v = serde_json::to_value(base).map_err(|e| {
                PlanError::field("/uncertainty", ErrorCode::InternalError, e.to_string())
            })?;
            if let Some(m) = v.as_object_mut() {
                m.remove("uncertainty");
            }
            Some(v)
        } else {
            None
        };
        Ok(Engine {
            prepared,
            catalogs,
            targets,
            fabrics,
            request,
        })
    }

    /// Every fabric's totals with the targets at `values` (one per target, in order).
    fn eval(&mut self, values: &[f64]) -> Result<Vec<Totals>, PlanError> {
        let resolved;
        let r = match &mut self.request {
            None => &self.prepared.resolved,
            Some(json) => {
                for (t, v) in self.targets.iter().zip(values) {
                    if let Kind::Input { path, decimal } = &t.kind {
                        *slot(json, path) = if *decimal {
                            let d = crate::plan::bounded::decimal_from_f64(*v)
                                .unwrap_or_default()
                                .round_dp(6)
                                .normalize();
                            serde_json::Value::String(d.to_string())
                        } else {
                            serde_json::Value::from(*v)
                        };
                    }
                }
                let targets = self.targets;
                let at = || at_text(targets, values);
                let req: PlanRequest = serde::Deserialize::deserialize(&*json).map_err(|e| {
                    PlanError::field(
                        "/uncertainty/inputs",
                        ErrorCode::InvalidRange,
                        format!("{}: {e}", at()),
                    )
                })?;
                resolved = inputs::resolve(&req, self.catalogs).map_err(|e| PlanError {
                    detail: format!("{}: {}", at(), e.detail),
                    ..e
                })?;
                &resolved
            }
        };
        let mut out = Vec::with_capacity(self.fabrics.len());
        let targets = self.targets;
        let reevaluate = self.request.is_some();
        for f in &mut self.fabrics {
            for (t, lines) in &f.slots {
                let price = crate::plan::bounded::decimal_from_f64(values[*t])
                    .unwrap_or_default()
                    .round_dp(2);
                for &i in lines {
                    // The first price written copies the lines (copy on write).
                    if let Some(l) = f.input.lines.to_mut().get_mut(i) {
                        l.list_unit_price_usd = price;
                    }
                }
            }
            if reevaluate {
                let perf = crate::perf::evaluate(&super::perf_input(r, f.sized)).map_err(|e| {
                    let e = super::perf_error(e);
                    PlanError {
                        detail: format!("{}: {}", at_text(targets, values), e.detail),
                        ..e
                    }
                })?;
                f.input.gpu_idle_fraction = perf.gpu_idle_fraction;
                f.input.failure_gpu_hours_per_year = super::failure_gpu_hours(r, f.sized);
            }
            let c = cost::fabric_cost_with(&f.input, &r.adjustments, &r.economics, false)?;
            out.push(Totals {
                capex: c.capex.total_usd,
                tco: c.tco.total_usd,
                idle: c.gpu_idle.cost_total_usd,
                total: c.total_cost_usd,
            });
        }
        Ok(out)
    }

    fn fabric_ids(&self) -> Vec<Fabric> {
        self.fabrics.iter().map(|f| f.sized.fabric).collect()
    }
}

/// The request-level values of an evaluation, for errors (`with economics.pue = 1.4`).
fn at_text(targets: &[Target], values: &[f64]) -> String {
    let parts: Vec<String> = targets
        .iter()
        .zip(values)
        .filter(|(t, _)| matches!(t.kind, Kind::Input { .. }))
        .map(|(t, v)| format!("{} = {}", t.name, text::number(*v)))
        .collect();
    format!("with {}", parts.join(", "))
}

/// Nearest-rank percentile of sorted values (`p` in percent): the smallest value with at
/// least p% of the samples at or below it.
fn percentile(sorted: &[Decimal], p: u32) -> Decimal {
    if sorted.is_empty() {
        return Decimal::ZERO;
    }
    let n = sorted.len();
    let rank = (n * p as usize).div_ceil(100).clamp(1, n);
    sorted[rank - 1]
}

fn spread(mut v: Vec<Decimal>) -> Result<Spread, PlanError> {
    let n = Decimal::from(v.len().max(1) as u64);
    let sum = v
        .iter()
        .try_fold(Decimal::ZERO, |a, x| a.checked_add(*x))
        .ok_or_else(|| {
            PlanError::field(
                "/uncertainty",
                ErrorCode::CostOverflow,
                "the sum of the samples overflows",
            )
        })?;
    let mean = cost::money::round_money(sum.checked_div(n).unwrap_or_default());
    v.sort_unstable();
    Ok(Spread {
        mean,
        p5: percentile(&v, 5),
        p50: percentile(&v, 50),
        p95: percentile(&v, 95),
    })
}

/// Samples between two looks at the clock.
const CLOCK_EVERY: u32 = 16;

/// Samples a thread draws at a time (their totals in one vector).
const SAMPLES_PER_BLOCK: u32 = 256;

/// Warnings for the inputs whose value in the plan lies outside the range the analysis draws
/// them from: the plan (its totals, the recommendation) is priced at that value, the analysis
/// at the range, and the two can name different fabrics. A discount not given is 0.
pub fn outside_ranges(
    spec: &Spec,
    prepared: &Prepared,
    catalogs: &CatalogSet,
    effort: super::Effort,
) -> Vec<String> {
    let Ok(inputs) = serde_json::to_value(&prepared.resolved.normalized) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in &spec.targets {
        if let Some(w) = prices_nothing(prepared, t, catalogs, effort) {
            out.push(w);
            continue;
        }
        let path = match &t.kind {
            Kind::Input { path, .. } => path,
            // The list price the plan's lines carry (an override of it is refused).
            Kind::ListPrice(sku) => {
                if let Some((list, _)) = priced_in_plan(prepared, sku) {
                    warn_outside(&mut out, t, list);
                }
                continue;
            }
        };
        let given = path
            .iter()
            .try_fold(&inputs, |v, key| v.get(key))
            .filter(|v| !v.is_null());
        // Not echoed: the value the plan priced with all the same (a GPU-hour the catalog has
        // no price for counts $0, an unpriced UFM is left out: $0, the NOS licence is the
        // catalog's placeholder), so a range drawn away from it is said too.
        let e = &prepared.resolved.economics;
        let value = match given {
            Some(serde_json::Value::Number(n)) => n.to_string(),
            Some(serde_json::Value::String(text)) => text.clone(),
            None if t.name.starts_with("prices.discounts.") => "0".to_string(),
            // No override: the plan pays the list price less any discounts.
            None if path.len() == 3 && path[..2] == ["prices", "overrides"] => {
                match priced_in_plan(prepared, &path[2]) {
                    Some((_, net)) => net.normalize().to_string(),
                    None => continue,
                }
            }
            None => match t.name.as_str() {
                "economics.gpu_hour_usd" => e.gpu_hour_usd.normalize().to_string(),
                "economics.ufm_usd_per_endpoint_per_year" => e
                    .ufm_usd_per_endpoint_per_year
                    .unwrap_or_default()
                    .normalize()
                    .to_string(),
                "economics.ethernet_nos_usd_per_switch_per_year" => e
                    .ethernet_nos_usd_per_switch_per_year
                    .normalize()
                    .to_string(),
                _ => continue,
            },
            _ => continue,
        };
        if let Ok(v) = value.parse::<Decimal>() {
            warn_outside(&mut out, t, v);
        }
    }
    out
}

/// A price range no line of the plan's chosen designs is priced by (the analysis re-prices
/// those designs: a range on a part none buys moves nothing, and was silently left out of the
/// tornado; audit 21 F3), said in the words of the plan's own warning for the fixed input.
fn prices_nothing(
    prepared: &Prepared,
    t: &Target,
    catalogs: &CatalogSet,
    effort: super::Effort,
) -> Option<String> {
    use crate::plan::PriceSet;
    let set = match &t.kind {
        Kind::ListPrice(sku) => PriceSet::List(sku),
        Kind::Input { path, .. } => match path.iter().map(String::as_str).collect::<Vec<_>>()[..] {
            ["prices", "overrides", sku] => PriceSet::Override(sku),
            ["prices", "discounts", "vendor", v] => PriceSet::Vendor(v),
            ["prices", "discounts", "category", c] => PriceSet::Category(
                crate::cost::Category::ALL
                    .into_iter()
                    .find(|k| k.as_str() == c)?,
            ),
            _ => return None,
        },
    };
    let key = set.key();
    if crate::plan::priced_by(&prepared.sized, &prepared.resolved.adjustments, key) {
        return None;
    }
    let what = key.unpriced_words();
    // A part (or a vendor's, a category's) only a design the plan did not choose buys: at an end
    // of the range that design may be the cheaper one.
    for end in [t.range.low, t.range.high] {
        if let Some((fabric, design)) =
            crate::plan::design_moves_at(prepared, catalogs, effort, set, end)
        {
            return Some(format!(
                "the uncertainty range on {}: {what}, but at {end} a plan would build {} as {} instead; the analysis keeps the plan's chosen designs, so the range moves nothing in it — compare designs with topology.design",
                t.name,
                fabric.as_str(),
                design.as_str()
            ));
        }
    }
    Some(format!(
        "the uncertainty range on {}: {what}; the range changes nothing in the analysis, which re-prices the plan's chosen designs",
        t.name
    ))
}

/// The warning of [`outside_ranges`] when `value`, the plan's, lies outside `t`'s range.
fn warn_outside(out: &mut Vec<String>, t: &Target, value: Decimal) {
    if value < t.range.low || value > t.range.high {
        let value = value.normalize();
        let to_price_there = match &t.kind {
            Kind::ListPrice(sku) => format!(
                "to price the plan in the range, set prices.overrides.{sku} to its mode and give the range on prices.overrides.{sku} instead"
            ),
            Kind::Input { .. } => format!(
                "set {} to a value in the range (its mode) to price the plan there",
                t.name
            ),
        };
        let unit = crate::plan::registry::bare_unit(&t.unit);
        out.push(format!(
            "{} is {value} {unit} in this plan, outside the range {} to {} the uncertainty analysis draws it from: the totals and the recommendation are priced at {value}, the analysis at the range (they can name different fabrics); {to_price_there}",
            t.name, t.range.low, t.range.high
        ));
    }
}

/// The list price and the unit price the plan pays (an override, or the list price less the
/// discounts) of `sku`, from the first sized fabric whose bill of materials carries it; `None`
/// when no fabric does (its price then changes nothing).
fn priced_in_plan(prepared: &Prepared, sku: &str) -> Option<(Decimal, Decimal)> {
    let line = prepared
        .sized
        .iter()
        .find_map(|s| s.lines.iter().find(|l| l.sku == sku))?;
    let net = crate::cost::line_prices(std::slice::from_ref(line), &prepared.resolved.adjustments)
        .ok()?
        .first()?
        .unit_price_usd;
    Some((line.list_unit_price_usd, net))
}

/// Runs the analysis on a prepared plan, its samples drawn on `effort.threads` threads (each
/// sample's draws depend on its index alone: the answer is the same on any number); past
/// `effort.deadline` it stops with `analysis_too_slow`.
pub fn analyse(
    spec: &Spec,
    prepared: &Prepared,
    catalogs: &CatalogSet,
    effort: super::Effort,
) -> Result<Uncertainty, PlanError> {
    // The tornado's engine; every thread drawing samples has its own.
    let mut engine = Engine::new(prepared, catalogs, &spec.targets)?;
    let fabrics = engine.fabric_ids();
    let blocks = draw_samples(spec, prepared, catalogs, effort, fabrics.len())?;
    let tally = Tally::of(&blocks, fabrics.len(), spec.samples as usize)?;
    let out_fabrics = tally.summaries(&fabrics, spec.samples)?;
    let t = tornado::tornado(&mut engine)?;
    let reasons = text::reasons(&out_fabrics, &t.entries, spec.samples);
    Ok(Uncertainty {
        samples: spec.samples,
        seed: spec.seed,
        inputs: spec
            .targets
            .iter()
            .map(|t| InputUsed {
                input: t.name.clone(),
                source: t.source,
                unit: t.unit.clone(),
                range: t.range.clone(),
            })
            .collect(),
        fabrics: out_fabrics,
        leader: t.leader,
        runner_up: t.runner_up,
        gap_at_modes_usd: t.gap_at_modes,
        tornado: t.entries,
        reasons,
    })
}

/// Every sample's totals, `nf` a sample, in blocks of samples (a thread taking runs of them:
/// each block's totals in one vector, not one per sample), in sample order.
fn draw_samples(
    spec: &Spec,
    prepared: &Prepared,
    catalogs: &CatalogSet,
    effort: super::Effort,
    nf: usize,
) -> Result<Vec<Vec<Totals>>, PlanError> {
    let blocks: Vec<std::ops::Range<u32>> = (0..spec.samples.div_ceil(SAMPLES_PER_BLOCK))
        .map(|b| {
            let start = b.saturating_mul(SAMPLES_PER_BLOCK);
            start..start.saturating_add(SAMPLES_PER_BLOCK).min(spec.samples)
        })
        .collect();
    crate::parallel::map_in_order(&blocks, effort.threads, || {
        let mut engine = Engine::new(prepared, catalogs, &spec.targets)?;
        let mut values = vec![0.0; spec.targets.len()];
        Ok(move |block: &std::ops::Range<u32>| {
            let mut totals = Vec::with_capacity(block.len().saturating_mul(nf));
            for k in block.clone() {
                if k % CLOCK_EVERY == 0
                    && let Some(d) = effort.deadline
                    && std::time::Instant::now() > d
                {
                    return Err(too_slow(spec.samples));
                }
                for (v, t) in values.iter_mut().zip(&spec.targets) {
                    *v = t
                        .dist
                        .quantile(draw::uniform(spec.seed, t.stream, u64::from(k)));
                }
                totals.extend(engine.eval(&values)?);
            }
            Ok(totals)
        })
    })
}

/// The samples per fabric: capex, TCO, idle and total columns, how often each is the
/// cheapest, and its summed regret (what it costs above the cheapest in each sample).
struct Tally {
    cols: Vec<[Vec<Decimal>; 4]>,
    wins: Vec<u32>,
    regret: Vec<Decimal>,
}

impl Tally {
    fn of(blocks: &[Vec<Totals>], nf: usize, n: usize) -> Result<Tally, PlanError> {
        let mut out = Tally {
            cols: (0..nf)
                .map(|_| std::array::from_fn(|_| Vec::with_capacity(n)))
                .collect(),
            wins: vec![0u32; nf],
            regret: vec![Decimal::ZERO; nf],
        };
        for totals in blocks.iter().flat_map(|b| b.chunks(nf.max(1))) {
            out.add(totals)?;
        }
        Ok(out)
    }

    /// One sample's totals, a fabric each.
    fn add(&mut self, totals: &[Totals]) -> Result<(), PlanError> {
        let best = totals
            .iter()
            .enumerate()
            .min_by(|(i, a), (j, b)| a.total.cmp(&b.total).then(i.cmp(j)))
            .map(|(i, _)| i)
            .unwrap_or(0);
        if let Some(w) = self.wins.get_mut(best) {
            *w += 1;
        }
        let min = totals.get(best).map(|t| t.total).unwrap_or_default();
        for (f, t) in totals.iter().enumerate() {
            let [capex, tco, idle, total] = &mut self.cols[f];
            capex.push(t.capex);
            tco.push(t.tco);
            idle.push(t.idle);
            total.push(t.total);
            self.regret[f] = t
                .total
                .checked_sub(min)
                .and_then(|d| self.regret[f].checked_add(d))
                .ok_or_else(|| {
                    PlanError::field(
                        "/uncertainty",
                        ErrorCode::CostOverflow,
                        "the regret overflows",
                    )
                })?;
        }
        Ok(())
    }

    /// Each fabric's spreads, probability of being the cheapest and expected regret.
    fn summaries(
        self,
        fabrics: &[Fabric],
        samples: u32,
    ) -> Result<Vec<FabricUncertainty>, PlanError> {
        let Tally { cols, wins, regret } = self;
        let mut out = Vec::with_capacity(cols.len());
        for (f, [capex, tco, idle, total]) in cols.into_iter().enumerate() {
            let (tco_usd, gpu_idle_usd) = (spread(tco)?, spread(idle)?);
            let mut total_usd = spread(total)?;
            // The mean total is the mean TCO plus the mean idle cost as shown, each to the
            // cent, so the three add up (rounded apart they could differ by a cent); the exact
            // mean of the totals is the same sum before rounding.
            total_usd.mean = tco_usd
                .mean
                .checked_add(gpu_idle_usd.mean)
                .unwrap_or(total_usd.mean);
            out.push(FabricUncertainty {
                fabric: fabrics[f],
                probability_cheapest: f64::from(wins[f]) / f64::from(samples.max(1)),
                cheapest_samples: wins[f],
                expected_regret_usd: cost::money::round_money(
                    regret[f]
                        .checked_div(Decimal::from(samples.max(1)))
                        .unwrap_or_default(),
                ),
                total_usd,
                tco_usd,
                capex_usd: spread(capex)?,
                gpu_idle_usd,
            });
        }
        Ok(out)
    }
}

/// An analysis past its time budget (90 % of the request deadline).
pub fn too_slow(samples: u32) -> PlanError {
    PlanError::field(
        "/uncertainty/samples",
        ErrorCode::AnalysisTooSlow,
        format!(
            "the analysis had not drawn its {samples} samples when its time budget (90 % of the request deadline) ran out; ask for fewer samples or fewer request-level inputs, or retry when the service is less busy"
        ),
    )
}
