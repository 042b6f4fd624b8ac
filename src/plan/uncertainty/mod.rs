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
mod engine;
mod ranges;
mod spec;
mod text;
mod tornado;

#[cfg(test)]
mod tests;

use rust_decimal::Decimal;

use super::error::PlanError;
use super::options::Effort;
use super::request::InputRange;
use super::size::Prepared;
use crate::catalog::CatalogSet;
use crate::cost;
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
pub use crate::plan::output::analysis::{
    FabricUncertainty, InputUsed, RangeSource, Spread, TornadoEntry, Uncertainty,
};
pub use draw::Distribution;
use engine::{Engine, Totals};
pub use ranges::outside_ranges;
pub use spec::spec;

/// Inputs an analysis may vary: they change what the fabric costs or how the job runs, never
/// which fabric is built (sizing inputs — GPUs, speeds, topology — are for sweeps).
const VARIABLE_PREFIXES: [&str; 6] = [
    "economics.",
    "utilization.",
    "workload.",
    "reliability.",
    "prices.",
    "model.",
];

/// Where a sampled value goes.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// The list price of a catalog SKU, on every BOM line that carries it.
    ListPrice(String),
    /// A request input at this JSON path (decimal inputs are sent as decimal strings).
    Input { path: Vec<String>, decimal: bool },
    /// One of the performance model's terms (`model.*`, at this JSON path): set on the
    /// resolved job directly, the fabric timed again, nothing resolved again.
    ModelTerm { path: Vec<String> },
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

/// The "too large" error of a sum or difference of totals.
fn overflow(what: &str) -> PlanError {
    PlanError::field(
        "/uncertainty",
        ErrorCode::CostOverflow,
        format!("{what} overflows the decimal range; narrow the ranges"),
    )
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

/// Runs the analysis on a prepared plan, its samples drawn on `effort.threads` threads (each
/// sample's draws depend on its index alone: the answer is the same on any number); past
/// `effort.deadline` it stops with `analysis_too_slow`.
pub fn analyse(
    spec: &Spec,
    prepared: &Prepared,
    catalogs: &CatalogSet,
    effort: Effort,
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
    effort: Effort,
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
