//! Sweeps as plain functions: the values of one or two varied inputs (a list, or a linear or
//! geometric range), a plan per point, a row per point and fabric, and the values along the
//! first input where the cheapest fabric changes — refined by bisection: to the exact integer
//! for integer inputs, for the others to a decimal grid at least 1,000 times finer than the
//! gap between the two sweep values and 10,000 times finer than the value (five significant
//! figures). No HTTP here: the caller says how to make a plan at a point (the API
//! patches the base request and runs the same parse, validation and planning as
//! `POST /v1/plans`).

use std::sync::Arc;

use crate::error_code::ErrorCode;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::output::Plan;
use crate::fabric::Fabric;

/// Most plans one sweep may compute, bisection included.
pub const MAX_PLANS: usize = 10_000;

/// Most values in one range (`steps`).
pub const MAX_STEPS: u32 = 10_000;

/// Values in a range when `steps` is not given.
pub const DEFAULT_STEPS: u32 = 8;

/// How `from`..`to` is divided into `steps` values.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Scale {
    /// Evenly spaced.
    #[default]
    Linear,
    /// Evenly spaced ratios (`from` and `to` > 0).
    Geometric,
}

/// The domain of a varied input.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Domain {
    /// Whole numbers only (values are rounded).
    pub integer: bool,
    /// Every value between the bounds (every whole number, for integers) is allowed:
    /// crossovers are bisected. False for inputs that take a set of values (NIC speeds).
    pub contiguous: bool,
    /// Inclusive bounds.
    pub min: f64,
    pub max: f64,
}

/// What a request says about one axis. `suffix` is `""` for the first axis and `"2"` for the
/// second, so errors name the field the user wrote (`from2`, `steps2`, …).
#[derive(Debug, Clone, PartialEq)]
pub struct AxisInput {
    pub name: String,
    pub from: Option<f64>,
    pub to: Option<f64>,
    pub steps: Option<u32>,
    pub scale: Scale,
    pub values: Option<Vec<f64>>,
    pub suffix: &'static str,
}

/// One varied input and its values (sorted ascending, deduplicated, integers rounded).
#[derive(Debug, Clone, PartialEq)]
pub struct Axis {
    pub name: String,
    /// Crossovers along this axis can be bisected.
    pub bisect: bool,
    /// Whole numbers only: crossovers are bisected to one unit (else to a [`Grain`]).
    pub integer: bool,
    pub values: Vec<f64>,
}

/// A sweep that cannot run as asked: `field` is the request field at fault (`steps`, `vary2`,
/// …), `code` a stable error code.
#[derive(Debug, Clone, PartialEq)]
pub struct SweepError {
    pub field: String,
    pub code: ErrorCode,
    pub detail: String,
}

fn invalid(field: String, detail: String) -> SweepError {
    SweepError {
        field,
        code: ErrorCode::InvalidSweep,
        detail,
    }
}

/// The values of one axis over `domain`.
pub fn axis(mut input: AxisInput, domain: Domain) -> Result<Axis, SweepError> {
    let listed = input.values.is_some();
    let mut values = match input.values.take() {
        Some(v) => {
            if v.len() > MAX_PLANS {
                let field = format!("values{}", input.suffix);
                return Err(invalid(field, format!("at most {MAX_PLANS} values")));
            }
            v
        }
        None => range_values(&input)?,
    };
    for v in &mut values {
        if domain.integer {
            *v = v.round();
        }
        // `values=-0.0`, `from=-0.0`: the row's value is 0, as the point's input is.
        *v = crate::plan::bounded::plain_zero(*v);
    }
    let outside = |v: f64| !v.is_finite() || v < domain.min || v > domain.max;
    if let Some((i, &v)) = values.iter().enumerate().find(|(_, v)| outside(**v)) {
        return Err(outside_domain(&input, &domain, listed, i, v));
    }
    values.sort_by(f64::total_cmp);
    values.dedup();
    Ok(Axis {
        name: input.name,
        bisect: domain.contiguous,
        integer: domain.integer,
        values,
    })
}

/// The values of an axis given as a range: `steps` from `from` to `to`, evenly or
/// geometrically spaced.
fn range_values(input: &AxisInput) -> Result<Vec<f64>, SweepError> {
    let f = |name: &str| format!("{name}{}", input.suffix);
    let (Some(from), Some(to)) = (input.from, input.to) else {
        return Err(invalid(
            f("from"),
            format!(
                "give '{}' and '{}' (and '{}'), or '{}'",
                f("from"),
                f("to"),
                f("steps"),
                f("values")
            ),
        ));
    };
    let n = input.steps.unwrap_or(DEFAULT_STEPS);
    if !(2..=MAX_STEPS).contains(&n) {
        return Err(invalid(
            f("steps"),
            format!("'{}' must be between 2 and {MAX_STEPS}", f("steps")),
        ));
    }
    if input.scale == Scale::Geometric && (from <= 0.0 || to <= 0.0) {
        return Err(invalid(
            f("from"),
            format!(
                "a geometric sweep needs '{}' and '{}' > 0",
                f("from"),
                f("to")
            ),
        ));
    }
    let last = f64::from(n - 1);
    Ok((0..n)
        .map(|i| {
            // The ends are exactly `from` and `to` (a computed power may overshoot by an ulp
            // and leave the domain).
            if i == 0 {
                return from;
            }
            if i == n - 1 {
                return to;
            }
            let t = f64::from(i) / last;
            match input.scale {
                Scale::Linear => from + (to - from) * t,
                Scale::Geometric => from * (to / from).powf(t),
            }
        })
        .collect())
}

/// The axis's value `v` (the `i`-th) outside its domain. A range's values lie between its
/// ends: the end outside the domain is at fault (`to=99999999` is named as such, not as `from`
/// with an inner value); a listed value by its place, as a type error there is (`/values/1`).
fn outside_domain(
    input: &AxisInput,
    domain: &Domain,
    listed: bool,
    i: usize,
    v: f64,
) -> SweepError {
    let f = |name: &str| format!("{name}{}", input.suffix);
    let outside = |v: f64| !v.is_finite() || v < domain.min || v > domain.max;
    let (field, got) = match (listed, input.from, input.to) {
        (false, Some(from), Some(to)) => {
            let end = |x: f64| if domain.integer { x.round() } else { x };
            if outside(end(from)) {
                (f("from"), from)
            } else {
                (f("to"), to)
            }
        }
        _ => (format!("{}/{i}", f("values")), v),
    };
    let named = match field.split_once('/') {
        Some((list, i)) => format!("'{list}[{i}]'"),
        None => format!("'{field}'"),
    };
    invalid(
        field,
        format!(
            "{named}: {} must stay between {} and {} (got {})",
            input.name,
            domain.min,
            domain.max,
            crate::plan::bounded::number_text(got)
        ),
    )
}

/// A sweep: one axis, or two for a grid.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    pub first: Axis,
    pub second: Option<Axis>,
}

impl Spec {
    /// Checks the pair: two different inputs, at most [`MAX_PLANS`] grid points.
    pub fn new(first: Axis, second: Option<Axis>) -> Result<Spec, SweepError> {
        if let Some(b) = &second {
            if b.name == first.name {
                return Err(invalid(
                    "vary2".into(),
                    format!("'vary2' must differ from 'vary' (both are '{}')", b.name),
                ));
            }
            let points = first.values.len().saturating_mul(b.values.len());
            if points > MAX_PLANS {
                // The axis with more values is the one to cut.
                let field = if b.values.len() > first.values.len() {
                    "steps2"
                } else {
                    "steps"
                };
                return Err(SweepError {
                    field: field.into(),
                    code: ErrorCode::TooManyPlans,
                    detail: format!(
                        "a {} × {} grid is {points} plans; at most {MAX_PLANS} per sweep",
                        first.values.len(),
                        b.values.len()
                    ),
                });
            }
        }
        Ok(Spec { first, second })
    }
}

/// One value (or grid point) and fabric of a sweep. The HTTP answer's row also carries each
/// varied input under its own name (`"gpus": 1024`).
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SweepRow {
    /// The value of the varied input.
    pub value: f64,
    /// The value of the second input (grids only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value2: Option<f64>,
    /// The fabric.
    pub fabric: Fabric,
    /// The design built at this point (`su_clos`, `collapsed_rails`, `tor_copper`, …): a sweep
    /// can change it (a cable's price, a cluster's size).
    pub design: crate::sizing::Design,
    /// TCO + GPU-idle cost over the horizon, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub total_cost_usd: Decimal,
    /// Capex, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub capex_usd: Decimal,
    /// Network TCO over the horizon, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub tco_usd: Decimal,
    /// Fraction of GPU time lost to the network.
    pub gpu_idle_fraction: f64,
    /// GPU-idle cost over the horizon, USD: network waits and network failures.
    #[serde(serialize_with = "crate::json::decimal")]
    pub gpu_idle_cost_usd: Decimal,
    /// The part of `gpu_idle_cost_usd` from GPU-hours lost to network failures, over the
    /// horizon, USD (the rest is the waits `gpu_idle_fraction` prices).
    #[serde(serialize_with = "crate::json::decimal")]
    pub failure_cost_usd: Decimal,
    /// True for the cheapest fabric (by total cost) at this point.
    pub cheapest: bool,
    /// The plan's id (`POST /v1/plans` with the same inputs gives the same id).
    #[schema(value_type = String)]
    pub plan_id: Arc<str>,
    /// The plan's warnings about the whole plan and about this row's fabric (placeholder
    /// prices, quotes required, assumptions) but those every row of the sweep has, which the
    /// sweep's `warnings` says once; in CSV one cell joined with ` | `, after the sweep's.
    #[schema(value_type = Vec<String>)]
    pub warnings: Arc<[String]>,
}

/// Where the cheapest fabric changes along the first input.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Crossover {
    /// The varied input.
    pub input: String,
    /// The consecutive sweep values it lies between.
    pub between: [f64; 2],
    /// Where `to_fabric` becomes cheapest: when `exact`, found by bisection (if the winner
    /// changes more than once between two sweep values, one of the changes) — for an integer
    /// input the smallest integer above which the lower value's winner no longer wins; for
    /// another input the first value past the change on a decimal grid at least 1,000 times
    /// finer than `between` and 10,000 times finer than the value itself (five significant
    /// figures: a switch price near $45,935 to the dollar), so the change lies within one grid
    /// step below it. Otherwise the upper sweep value.
    pub value: f64,
    /// True when `value` was refined by bisection; false for inputs that take a set of values,
    /// or when refining would exceed the plan budget.
    pub exact: bool,
    /// Cheapest just below `value`.
    pub from_fabric: Fabric,
    /// Cheapest at `value`.
    pub to_fabric: Fabric,
    /// The second input, held at `value2` along this crossover (grids only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input2: Option<String>,
    /// The second input's value (grids only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub value2: Option<f64>,
}

/// What a sweep computed.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// A row per point and fabric: the first input varies fastest.
    pub rows: Vec<SweepRow>,
    pub crossovers: Vec<Crossover>,
    /// Plans computed, grid and bisection.
    pub plans_computed: usize,
}

/// Why a sweep stopped: the sweep itself, or the plan at a point (the caller's error).
#[derive(Debug)]
pub enum RunError<E> {
    Sweep(SweepError),
    Plan(E),
}

fn cheapest(p: &Plan) -> Option<Fabric> {
    p.comparison.as_ref().map(|c| c.cheapest_fabric)
}

/// Plans a bisection of `(a, b)` down to one unit (integers) or to the finest [`Grain`] step
/// takes, at most (a decimal bracket stops sooner where the change is far from zero).
fn bisections(a: f64, b: f64, integer: bool) -> usize {
    if integer {
        (b - a).max(1.0).log2().ceil() as usize
    } else {
        ((b - a) / Grain::floor(a, b)).max(1.0).log2().ceil() as usize + 1
    }
}

/// The decimal grid a non-integer crossover is bisected on, chosen afresh for each bracket
/// `lo`..`hi` inside the sweep's `a`..`b`: a power of ten no coarser than 1/1,000 of `b − a`
/// and no coarser than 1/10,000 of the values' size, so the reported value is a short decimal
/// with at least five significant figures — a switch price's crossover near $45,935 to the
/// dollar however wide the sweep (a bracket-only grid reported $1,000,000 for a sweep from $0
/// to $1e9). Never finer than 1e-9 of `b − a`, which bounds the plans a crossover takes
/// ([`bisections`]).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Grain {
    /// Decimal places of the grid (negative: tens, hundreds, …).
    places: i32,
    step: f64,
}

impl Grain {
    /// The finest step a bracket of the sweep's `a`..`b` is bisected to.
    fn floor(a: f64, b: f64) -> f64 {
        Grain::power_at_most((b - a).abs() * 1e-9).step
    }

    fn of(a: f64, b: f64, lo: f64, hi: f64) -> Grain {
        let gap = (b - a).abs();
        let size = lo.abs().max(hi.abs());
        Grain::power_at_most((gap * 1e-3).min(size * 1e-4).max(gap * 1e-9))
    }

    /// The largest power of ten at most `x` (1 for a zero or non-finite `x`).
    fn power_at_most(x: f64) -> Grain {
        let places = if x.is_finite() && x > 0.0 {
            (-x.log10().floor()).clamp(-300.0, 300.0) as i32
        } else {
            0
        };
        Grain {
            places,
            step: 10f64.powi(-places),
        }
    }

    /// `x` on the grid: the nearest multiple of the step, as the short decimal it is (dividing
    /// by an exact power of ten rounds once, so 0.1937 prints as 0.1937).
    fn snap(self, x: f64) -> f64 {
        if self.places >= 0 {
            let scale = 10f64.powi(self.places);
            (x * scale).round() / scale
        } else {
            (x / self.step).round() * self.step
        }
    }
}

/// Where the cheapest fabric changes between neighbouring values of the first input in one
/// slice: the two values and their winners. A value where no fabric is feasible is neither
/// side of a crossover.
fn flips<'a>(
    values: &'a [f64],
    winners: &'a [Option<Fabric>],
) -> impl Iterator<Item = ([f64; 2], [Fabric; 2])> + 'a {
    values
        .windows(2)
        .zip(winners.windows(2))
        .filter_map(|pair| match pair {
            (&[a, b], &[Some(a_win), Some(b_win)]) if a_win != b_win => {
                Some(([a, b], [a_win, b_win]))
            }
            _ => None,
        })
}

/// The crossover between consecutive values `a` and `b` of the first input, won by `a_win` and
/// `b_win`, after `plans_used` plans. Bisected to the smallest integer above which `a_win` no
/// longer wins (`winner_at` plans a midpoint and names its cheapest fabric) when the axis
/// allows it and the whole refinement fits in the plan budget; otherwise reported at `b`,
/// rather than failing the sweep after its grid is done.
fn crossover<E>(
    spec: &Spec,
    [a, b]: [f64; 2],
    [a_win, b_win]: [Fabric; 2],
    plans_used: usize,
    v2: Option<f64>,
    mut winner_at: impl FnMut(f64) -> Result<Option<Fabric>, E>,
) -> Result<Crossover, E> {
    let integer = spec.first.integer;
    let exact =
        spec.first.bisect && plans_used.saturating_add(bisections(a, b, integer)) <= MAX_PLANS;
    let (mut lo, mut hi, mut hi_win) = (a, b, b_win);
    // The next midpoint on the axis's grid; none once the bracket is one step wide.
    let midpoint = |lo: f64, hi: f64| {
        let mid = if integer {
            (lo + ((hi - lo) / 2.0).floor()).round()
        } else {
            Grain::of(a, b, lo, hi).snap(lo + (hi - lo) / 2.0)
        };
        (exact && mid > lo && mid < hi).then_some(mid)
    };
    while let Some(mid) = midpoint(lo, hi) {
        let w = winner_at(mid)?;
        if w == Some(a_win) {
            lo = mid;
        } else {
            hi = mid;
            hi_win = w.unwrap_or(b_win);
        }
    }
    Ok(Crossover {
        input: spec.first.name.clone(),
        between: [a, b],
        value: hi,
        exact,
        from_fabric: a_win,
        to_fabric: hi_win,
        input2: spec.second.as_ref().map(|s| s.name.clone()),
        value2: v2,
    })
}

/// Runs the sweep. `make_plan_at` gives a function that makes the plan for a point (the first
/// input's value, then the second's on grids); each thread calls it once, so what a plan
/// function remembers between points (a sizing memo) is its own.
///
/// Slice by slice (a grid's values of the second input; one slice without it), the slice's
/// points are computed on up to `workers` threads ([`crate::parallel::map_in_order`]), then
/// its bisections on the calling thread. The answer is the one a single thread gives: rows in
/// grid order, the same crossovers, the same plan count and budget (`too_many_plans` where one
/// thread would run out of plans), and of several failing points the error of the first one
/// thread would meet.
pub fn run<E, F>(
    spec: &Spec,
    workers: usize,
    make_plan_at: impl Fn() -> F + Sync,
) -> Result<Outcome, RunError<E>>
where
    E: Send,
    F: FnMut(f64, Option<f64>) -> Result<Plan, E>,
{
    let first = &spec.first;
    let slices: Vec<Option<f64>> = match &spec.second {
        Some(b) => b.values.iter().copied().map(Some).collect(),
        None => vec![None],
    };
    let mut rows = Vec::with_capacity(
        first
            .values
            .len()
            .saturating_mul(slices.len())
            .saturating_mul(3),
    );
    let mut crossovers = Vec::new();
    let mut plan_at = make_plan_at();
    // Plans counted as one thread counts them, slice by slice: a slice's grid, then its
    // bisections, each within what the slices before it left of the budget. Without bisection
    // only the grid counts (and `Spec` keeps it within the budget): it is planned at once.
    let mut used = 0usize;
    // Grid points of the slices not planned yet: a bisection leaves the budget they need
    // (a crossover is reported inexact rather than the sweep failing at a later slice).
    let mut grid_left = first.values.len().saturating_mul(slices.len());
    let per_batch = if first.bisect { 1 } else { slices.len().max(1) };
    for batch in slices.chunks(per_batch) {
        let points: Vec<(f64, Option<f64>)> = batch
            .iter()
            .flat_map(|&v2| first.values.iter().map(move |&v| (v, v2)))
            .collect();
        // One thread would plan the points the budget allows and stop at the next one.
        let allowed = MAX_PLANS.saturating_sub(used).min(points.len());
        // A thread for every `POINTS_PER_THREAD` points at least: starting one costs about
        // two plans, and a 5,000 × 2 grid would start 5,000 of them for nothing.
        let threads = workers.min(allowed / POINTS_PER_THREAD).max(1);
        let grid = crate::parallel::map_in_order(&points[..allowed], threads, || {
            let mut plan_at = make_plan_at();
            Ok(move |&(v, v2): &(f64, Option<f64>)| plan_at(v, v2).map(|p| Point::of(p, v, v2)))
        })
        .map_err(RunError::Plan)?;
        if allowed < points.len() {
            return Err(too_many_plans());
        }
        used = used.saturating_add(points.len());
        grid_left = grid_left.saturating_sub(points.len());
        let mut grid = grid.into_iter();
        for &v2 in batch {
            let mut winners: Vec<Option<Fabric>> = Vec::with_capacity(first.values.len());
            for point in grid.by_ref().take(first.values.len()) {
                rows.extend(point.rows);
                winners.push(point.win);
            }
            for (between, wins) in flips(&first.values, &winners) {
                let c = crossover(
                    spec,
                    between,
                    wins,
                    used.saturating_add(grid_left),
                    v2,
                    |mid| {
                        used = used.saturating_add(1);
                        if used > MAX_PLANS {
                            return Err(too_many_plans());
                        }
                        Ok(cheapest(&plan_at(mid, v2).map_err(RunError::Plan)?))
                    },
                )?;
                crossovers.push(c);
            }
        }
    }
    Ok(Outcome {
        rows,
        crossovers,
        plans_computed: used,
    })
}

/// Fewest grid points of a slice a thread is started for.
const POINTS_PER_THREAD: usize = 16;

fn too_many_plans<E>() -> RunError<E> {
    RunError::Sweep(SweepError {
        field: "steps".into(),
        code: ErrorCode::TooManyPlans,
        detail: format!(
            "this sweep needs more than {MAX_PLANS} plans (values plus bisection); use fewer values"
        ),
    })
}

/// What a sweep keeps of the plan at one grid point: its rows and its cheapest fabric.
struct Point {
    rows: Vec<SweepRow>,
    win: Option<Fabric>,
}

impl Point {
    fn of(mut p: Plan, v: f64, v2: Option<f64>) -> Point {
        let win = cheapest(&p);
        let plan_id: Arc<str> = Arc::from(std::mem::take(&mut p.plan_id));
        // Infeasible fabrics have no cost: no row.
        let mut rows: Vec<SweepRow> = p
            .fabrics
            .iter()
            .filter_map(|f| {
                Some(SweepRow {
                    value: v,
                    value2: v2,
                    fabric: f.fabric,
                    design: f.topology.as_ref()?.design,
                    total_cost_usd: f.total_cost_usd?,
                    capex_usd: f.capex.as_ref()?.total_usd,
                    tco_usd: f.tco.as_ref()?.total_usd,
                    gpu_idle_fraction: f.performance.as_ref()?.gpu_idle_fraction,
                    gpu_idle_cost_usd: f.gpu_idle.as_ref()?.cost_total_usd,
                    failure_cost_usd: f
                        .gpu_idle
                        .as_ref()?
                        .failure_cost_per_year_usd
                        .checked_mul(Decimal::from(f.tco.as_ref()?.years))?,
                    cheapest: win.is_none_or(|w| w == f.fabric),
                    plan_id: Arc::clone(&plan_id),
                    warnings: Arc::from([]),
                })
            })
            .collect();
        // A row carries the warnings of the whole plan and of its own fabric, as a plan CSV
        // row does, and those of fabrics without a row (`Plan::warnings_for_rows`:
        // "infiniband: infeasible …" stays in the sweep).
        let shown: Vec<Fabric> = rows.iter().map(|r| r.fabric).collect();
        for r in &mut rows {
            r.warnings = p
                .warnings_for_rows(r.fabric, &shown)
                .map(str::to_string)
                .collect();
        }
        Point { rows, win }
    }
}

/// The axes named `name` in whole `unit`s (NVL72 racks of 72 GPUs): where `ranged` (the values
/// came from a range, not a list) each value rounded to the nearest multiple of `unit`, at least
/// one and at most `max`'s, duplicates removed; and no crossover bisected along them, where only
/// part of a unit lies between two values. `None` when no axis is named so.
pub fn in_whole_units(
    spec: &Spec,
    name: &str,
    unit: f64,
    ranged: [bool; 2],
    max: f64,
) -> Option<Spec> {
    let mut spec = spec.clone();
    let top = (max / unit).floor().max(1.0) * unit;
    let mut changed = false;
    let axes = std::iter::once(&mut spec.first).chain(spec.second.as_mut());
    for (a, ranged) in axes.zip(ranged) {
        if a.name != name {
            continue;
        }
        changed = true;
        a.bisect = false;
        if ranged {
            for v in &mut a.values {
                *v = ((*v / unit).round().max(1.0) * unit).min(top);
            }
            a.values.dedup();
        }
    }
    changed.then_some(spec)
}

/// Takes out of every row the warnings all rows carry, and returns them (in the first row's
/// order): what the whole sweep says once, not 10,000 times — the catalog's placeholder
/// operating figures in every plan of a sweep that does not vary them were ~800 bytes of every
/// row. Consecutive rows of a fabric with the same warnings keep sharing one list.
pub fn take_shared_warnings(rows: &mut [SweepRow]) -> Vec<String> {
    let mut shared: Vec<String> = rows
        .first()
        .map(|r| r.warnings.to_vec())
        .unwrap_or_default();
    for r in rows.iter() {
        shared.retain(|w| r.warnings.contains(w));
        if shared.is_empty() {
            return shared;
        }
    }
    type Warnings = Arc<[String]>;
    // Per fabric, the last list taken from and what it became.
    let mut last: [Option<(Warnings, Warnings)>; 3] = Default::default();
    for r in rows.iter_mut() {
        let slot = &mut last[r.fabric.index()];
        match slot {
            Some((was, own)) if **was == *r.warnings => r.warnings = Arc::clone(own),
            _ => {
                let own: Arc<[String]> = r
                    .warnings
                    .iter()
                    .filter(|w| !shared.contains(w))
                    .cloned()
                    .collect();
                *slot = Some((std::mem::replace(&mut r.warnings, Arc::clone(&own)), own));
            }
        }
    }
    shared
}

#[cfg(test)]
mod tests;
