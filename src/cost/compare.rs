//! Side-by-side comparison of fabrics: cheapest, deltas, recommendation, reasons, break-even.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::TIE_THRESHOLD;
use super::error::CostError;
use super::idle::busy_gpu_hours_per_year;
use super::input::Economics;
use super::money::{
    FRACTION_DP, decimal_from_f64_rounded, mul, round_fraction, round_money, round_rate, sub,
};
use super::sentences::{BreakEvenAt, Reason, Recommendation};
use super::{FabricCost, TrafficLabel};
use crate::fabric::Fabric;

/// One fabric minus the cheapest fabric (`comparison.deltas[]`), USD; positive = costs more.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FabricDelta {
    /// The fabric compared with the cheapest one (the cheapest itself has all zeros).
    pub fabric: Fabric,
    /// capex.total_usd difference, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub capex_usd: Decimal,
    /// opex_per_year.total_usd difference, USD per year.
    #[serde(serialize_with = "crate::json::decimal")]
    pub opex_per_year_usd: Decimal,
    /// tco.total_usd difference, USD over the horizon.
    #[serde(serialize_with = "crate::json::decimal")]
    pub tco_usd: Decimal,
    /// gpu_idle.cost_total_usd difference, USD over the horizon.
    #[serde(serialize_with = "crate::json::decimal")]
    pub gpu_idle_usd: Decimal,
    /// total_cost_usd difference, USD over the horizon (≥ 0).
    #[serde(serialize_with = "crate::json::decimal")]
    pub total_usd: Decimal,
}

/// Where the answer flips between the two cheapest fabrics (`comparison.break_even`).
///
/// With T = `tco.total_usd`, K = busy GPU-hours over the horizon (gpus × 8,760 × busy_fraction
/// × years), F = GPU-hours lost to network failures over the horizon
/// (`gpu_idle.failure_gpu_hours_per_year` × years), H = idle_fraction × K + F and v = GPU-hour
/// value, a fabric's total is T + v·H. The two totals are equal at
/// v* = (T_runner − T_cheapest) ÷ (H_cheapest − H_runner), and, at today's v, when
/// idle_runner − idle_cheapest = (T_cheapest − T_runner + v·(F_cheapest − F_runner)) ÷ (v·K).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct BreakEven {
    /// The cheapest fabric at the given GPU-hour value.
    pub cheapest_fabric: Fabric,
    /// The second cheapest fabric.
    pub runner_up_fabric: Fabric,
    /// The GPU-hour value used (economics.gpu_hour_usd), USD per GPU-hour (4 decimals, however
    /// it was written: one plan id, one body).
    #[serde(serialize_with = "crate::json::decimal")]
    pub current_gpu_hour_usd: Decimal,
    /// GPU-hour value at which the two totals are equal, USD per GPU-hour (4 decimals); `null`
    /// when no positive value exists (one fabric is cheaper at every GPU-hour value).
    #[serde(serialize_with = "crate::json::opt_decimal")]
    pub gpu_hour_usd: Option<Decimal>,
    /// Current idle_fraction(runner-up) − idle_fraction(cheapest), a fraction (6 decimals).
    #[serde(serialize_with = "crate::json::decimal")]
    pub idle_fraction_gap: Decimal,
    /// The value of that gap at which the totals would be equal (TCOs and GPU-hour value
    /// unchanged), a fraction (6 decimals); `null` when the GPU-hour value or busy GPU-hours are 0.
    #[serde(serialize_with = "crate::json::opt_decimal")]
    pub break_even_idle_fraction_gap: Option<Decimal>,
}

/// The comparison of two or more fabrics (`comparison.*`).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Comparison {
    /// Fabric with the lowest `total_cost_usd` (ties: lower idle fraction, then the order
    /// infiniband, roce, roce_adaptive).
    pub cheapest_fabric: Fabric,
    /// Every fabric minus the cheapest, in input order.
    pub deltas: Vec<FabricDelta>,
    /// One sentence.
    #[schema(value_type = String)]
    pub recommendation: Recommendation,
    /// Plain sentences with the numbers behind the recommendation.
    #[schema(value_type = Vec<String>)]
    pub reasons: Vec<Reason>,
    /// Where the two cheapest fabrics swap places.
    pub break_even: BreakEven,
    /// The rules of thumb buyers quote, each checked against this plan's figures (a full
    /// plan's; empty in a figures plan).
    pub rules_of_thumb: Vec<super::RuleOfThumb>,
}

/// Compares fabrics costed with the same `econ` and `gpus`, with the recommendation and its
/// reasons. `None` for fewer than two fabrics; a fabric listed twice is an invalid `fabrics`.
pub fn compare(
    costs: &[(Fabric, &FabricCost)],
    econ: &Economics,
    gpus: u32,
) -> Result<Option<Comparison>, CostError> {
    compare_with(costs, econ, gpus, true)
}

/// [`compare`]; with `words: false` its figures alone (the cheapest fabric, the deltas, the
/// break-even) with an empty recommendation and no reasons, which is what a sweep row reads.
pub fn compare_with(
    costs: &[(Fabric, &FabricCost)],
    econ: &Economics,
    gpus: u32,
    words: bool,
) -> Result<Option<Comparison>, CostError> {
    if costs.len() < 2 {
        return Ok(None);
    }
    check_each_fabric_once(costs)?;
    let order = cheapest_first(costs);
    let (cheapest, best) = costs[order[0]];
    let (runner, second) = costs[order[1]];
    let deltas = deltas_from(costs, best)?;

    let break_even = break_even(cheapest, best, runner, second, econ, gpus)?;
    if !words {
        return Ok(Some(Comparison {
            cheapest_fabric: cheapest,
            deltas,
            recommendation: Recommendation::Unwritten,
            reasons: Vec::new(),
            break_even,
            rules_of_thumb: Vec::new(),
        }));
    }
    let years = econ.years;
    let recommendation = recommendation((cheapest, best), (runner, second), years)?;

    let mut reasons = Vec::with_capacity(5 * (costs.len() - 1) + 1);
    let a = cheapest;
    for &i in &order[1..] {
        let (f, other) = costs[i];
        push_reasons_against(&mut reasons, years, (a, best), (f, other))?;
    }
    reasons.push(break_even_reason(
        (a, best),
        (runner, second),
        econ,
        &break_even,
    ));

    Ok(Some(Comparison {
        cheapest_fabric: cheapest,
        deltas,
        recommendation,
        reasons,
        break_even,
        rules_of_thumb: Vec::new(),
    }))
}

/// A fabric listed twice is an invalid `fabrics`.
fn check_each_fabric_once(costs: &[(Fabric, &FabricCost)]) -> Result<(), CostError> {
    for (i, (f, _)) in costs.iter().enumerate() {
        if costs[..i].iter().any(|(g, _)| g == f) {
            return Err(CostError::Invalid {
                input: "fabrics",
                reason: "must not list a fabric twice",
            });
        }
    }
    Ok(())
}

/// Indices of `costs`, cheapest total first (ties: lower idle fraction, then fabric order).
fn cheapest_first(costs: &[(Fabric, &FabricCost)]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..costs.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, ca) = costs[a];
        let (fb, cb) = costs[b];
        ca.total_cost_usd
            .cmp(&cb.total_cost_usd)
            .then(ca.gpu_idle.idle_fraction.cmp(&cb.gpu_idle.idle_fraction))
            .then(fa.cmp(&fb))
    });
    order
}

/// Every fabric minus the cheapest (`best`), in input order.
fn deltas_from(
    costs: &[(Fabric, &FabricCost)],
    best: &FabricCost,
) -> Result<Vec<FabricDelta>, CostError> {
    let mut deltas = Vec::with_capacity(costs.len());
    for &(fabric, c) in costs {
        let d = |x: Decimal, y: Decimal| sub(x, y, "fabrics").map(round_money);
        deltas.push(FabricDelta {
            fabric,
            capex_usd: d(c.capex.total_usd, best.capex.total_usd)?,
            opex_per_year_usd: d(c.opex_per_year.total_usd, best.opex_per_year.total_usd)?,
            tco_usd: d(c.tco.total_usd, best.tco.total_usd)?,
            gpu_idle_usd: d(c.gpu_idle.cost_total_usd, best.gpu_idle.cost_total_usd)?,
            total_usd: d(c.total_cost_usd, best.total_cost_usd)?,
        });
    }

    Ok(deltas)
}

/// The recommendation: the cheapest fabric, or a tie with the runner-up when their totals lie
/// within [`TIE_THRESHOLD`] of each other.
fn recommendation(
    (cheapest, best): (Fabric, &FabricCost),
    (runner, second): (Fabric, &FabricCost),
    years: u32,
) -> Result<Recommendation, CostError> {
    let gap = sub(second.total_cost_usd, best.total_cost_usd, "fabrics")?;
    let tied = match mul(second.total_cost_usd, TIE_THRESHOLD, "fabrics") {
        Ok(limit) => gap < limit,
        Err(_) => false,
    };
    Ok(if tied {
        Recommendation::Tied {
            cheapest,
            runner_up: runner,
            years,
            threshold: TIE_THRESHOLD,
            cheapest_total_usd: best.total_cost_usd,
            runner_up_total_usd: second.total_cost_usd,
        }
    } else {
        Recommendation::Choose {
            cheapest,
            runner_up: runner,
            years,
            cheapest_total_usd: best.total_cost_usd,
            gap_usd: gap,
        }
    })
}

/// The reasons comparing the cheapest fabric `a` with fabric `f`: up front, running, waits,
/// traffic (when it tells) and totals.
fn push_reasons_against(
    reasons: &mut Vec<Reason>,
    years: u32,
    (a, best): (Fabric, &FabricCost),
    (f, other): (Fabric, &FabricCost),
) -> Result<(), CostError> {
    let idle_d = sub(
        best.gpu_idle.cost_total_usd,
        other.gpu_idle.cost_total_usd,
        "fabrics",
    )?;
    reasons.push(Reason::UpFront {
        a,
        f,
        years,
        capex_delta_usd: sub(best.capex.total_usd, other.capex.total_usd, "fabrics")?,
        idle_delta_usd: idle_d,
        same_idle_hours: best.gpu_idle.gpu_hours_per_year == other.gpu_idle.gpu_hours_per_year
            && best.gpu_idle.failure_gpu_hours_per_year
                == other.gpu_idle.failure_gpu_hours_per_year,
    });
    reasons.push(Reason::Running {
        a,
        f,
        opex_delta_usd: sub(
            best.opex_per_year.total_usd,
            other.opex_per_year.total_usd,
            "fabrics",
        )?,
    });
    reasons.push(Reason::Waits {
        a,
        f,
        idle_fraction_a: best.gpu_idle.idle_fraction,
        idle_fraction_f: other.gpu_idle.idle_fraction,
    });
    if let Some(r) = traffic_reason(best, other, a, f, idle_d) {
        reasons.push(r);
    }
    reasons.push(Reason::Totals {
        a,
        f,
        years,
        total_a_usd: best.total_cost_usd,
        total_f_usd: other.total_cost_usd,
    });
    Ok(())
}

/// The break-even reason: where the runner-up would become the cheaper fabric, if anywhere.
fn break_even_reason(
    (a, best): (Fabric, &FabricCost),
    (runner, second): (Fabric, &FabricCost),
    econ: &Economics,
    break_even: &BreakEven,
) -> Reason {
    let max = Decimal::from(GPU_HOUR_USD_MAX);
    // Which side of the break-even the runner-up is cheaper on: above it when it loses fewer
    // GPU-hours (its total rises more slowly with their value). Not from the break-even against
    // the current value: rounded to four places, the two can be equal, or the current value can
    // lie between the true crossing and the rounded one (at 148.397 it would say "below it
    // InfiniBand becomes cheaper" where it is cheaper above).
    let lost = |c: &FabricCost| {
        rust_decimal::prelude::ToPrimitive::to_f64(&c.gpu_idle.gpu_hours_per_year).unwrap_or(0.0)
            + c.gpu_idle.failure_gpu_hours_per_year
    };
    let runner_cheaper_above = lost(second) < lost(best);
    Reason::BreakEven {
        a,
        runner_up: runner,
        now_usd: econ.gpu_hour_usd,
        at: match break_even.gpu_hour_usd {
            // A break-even beyond the values a plan accepts is said with that bound: a value
            // nobody can enter to check it.
            Some(star) if runner_cheaper_above && star > max => BreakEvenAt::BeyondAccepted {
                at_usd: star,
                max_usd: max,
            },
            Some(star) if runner_cheaper_above => BreakEvenAt::Above(star),
            Some(star) => BreakEvenAt::Below(star),
            None => BreakEvenAt::Never,
        },
    }
}

/// Highest GPU-hour value a plan accepts, USD (the bound of `economics.gpu_hour_usd`, checked
/// against the request's `GpuHourUsd` at compile time): a break-even above it is said to lie
/// beyond the values a plan accepts.
pub const GPU_HOUR_USD_MAX: i64 = 1000;

fn break_even(
    cheapest: Fabric,
    best: &FabricCost,
    runner: Fabric,
    second: &FabricCost,
    econ: &Economics,
    gpus: u32,
) -> Result<BreakEven, CostError> {
    let ia = best.gpu_idle.idle_fraction;
    let ib = second.gpu_idle.idle_fraction;
    let idle_gap = sub(ib, ia, "gpu_idle_fraction")?;
    let years = Decimal::from(econ.years);
    // K = busy GPU-hours over the horizon; F = failure GPU-hours over the horizon (the same
    // 6-decimal figure the idle cost is priced from); H = idle × K + F.
    let k = busy_gpu_hours_per_year(gpus, econ.busy_fraction)?.checked_mul(years);
    let failure_hours = |c: &FabricCost| {
        decimal_from_f64_rounded(c.gpu_idle.failure_gpu_hours_per_year, FRACTION_DP)
            .and_then(|f| f.checked_mul(years))
    };
    let (fa, fb) = (failure_hours(best), failure_hours(second));
    let ta = best.tco.total_usd;
    let tb = second.tco.total_usd;
    // Informational values: a quotient beyond the decimal range means "no break-even", not an error.
    let v_star = (|| {
        let h = |idle: Decimal, f: Option<Decimal>| idle.checked_mul(k?)?.checked_add(f?);
        let h_diff = h(ia, fa)?.checked_sub(h(ib, fb)?)?;
        if h_diff.is_zero() {
            return None;
        }
        let v = tb.checked_sub(ta)?.checked_div(h_diff)?;
        (v > Decimal::ZERO).then(|| round_rate(v))
    })();
    let gap_star = (|| {
        let v = econ.gpu_hour_usd;
        let vk = v.checked_mul(k?)?;
        if vk.is_zero() {
            return None;
        }
        let failures = v.checked_mul(fa?.checked_sub(fb?)?)?;
        ta.checked_sub(tb)?
            .checked_add(failures)?
            .checked_div(vk)
            .map(round_fraction)
    })();
    Ok(BreakEven {
        cheapest_fabric: cheapest,
        runner_up_fabric: runner,
        current_gpu_hour_usd: round_rate(econ.gpu_hour_usd),
        gpu_hour_usd: v_star,
        idle_fraction_gap: round_fraction(idle_gap),
        break_even_idle_fraction_gap: gap_star,
    })
}

/// Names the traffic behind an idle-cost difference when it matters: the difference is at
/// least 1% of the cheaper fabric's total. Picks the traffic whose exposed time differs most
/// between the two fabrics, and the failure line when that is the larger part.
fn traffic_reason(
    best: &FabricCost,
    other: &FabricCost,
    a: Fabric,
    f: Fabric,
    idle_d: Decimal,
) -> Option<Reason> {
    let matters = match mul(best.total_cost_usd, Decimal::new(1, 2), "fabrics") {
        Ok(limit) => idle_d.abs() >= limit && idle_d != Decimal::ZERO,
        Err(_) => false,
    };
    if !matters {
        return None;
    }
    let fail_d =
        best.gpu_idle.failure_gpu_hours_per_year - other.gpu_idle.failure_gpu_hours_per_year;
    let comm_d = sub(
        best.gpu_idle.gpu_hours_per_year,
        other.gpu_idle.gpu_hours_per_year,
        "fabrics",
    )
    .ok()
    .and_then(|d| rust_decimal::prelude::ToPrimitive::to_f64(&d))
    .unwrap_or(0.0);
    if fail_d.abs() > comm_d.abs() {
        return Some(Reason::Failures {
            a,
            f,
            gpu_hours_a: best.gpu_idle.failure_gpu_hours_per_year,
            gpu_hours_f: other.gpu_idle.failure_gpu_hours_per_year,
        });
    }
    let mut top: Option<(TrafficLabel, f64, f64)> = None;
    for t in &best.traffic {
        let theirs = other
            .traffic
            .iter()
            .find(|o| o.label == t.label)
            .map_or(0.0, |o| o.exposed_ms);
        let d = (theirs - t.exposed_ms).abs();
        if d.is_finite() && top.is_none_or(|(_, x, y)| d > (y - x).abs()) {
            top = Some((t.label, t.exposed_ms, theirs));
        }
    }
    let (label, mine, theirs) = top?;
    if (theirs - mine).abs() <= 0.0 {
        return None;
    }
    Some(Reason::Traffic {
        a,
        f,
        label,
        exposed_ms_a: mine,
        exposed_ms_f: theirs,
    })
}
