//! The tornado: for each uncertain input, the total-cost gap between the fabric that leads at
//! the modes and the cheapest of the others (the runner-up at the modes, or another fabric
//! the input brings closer) with the input at its low and at its high, every other input at
//! its mode; and, searching the input's whole allowed range, the values at which the gap
//! closes — where some other fabric becomes the cheapest, named in the reason.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use super::{Engine, TornadoEntry, Totals, text};
use crate::fabric::Fabric;
use crate::plan::error::PlanError;

/// The tornado and the two fabrics it compares.
#[derive(Debug, Clone, Default)]
pub struct Tornado {
    pub leader: Option<Fabric>,
    pub runner_up: Option<Fabric>,
    pub gap_at_modes: Option<Decimal>,
    pub entries: Vec<TornadoEntry>,
}

/// Steps of the root search (regula falsi, Illinois variant) — far more than the ~10 a gap
/// that is linear in the input needs.
const MAX_STEPS: usize = 80;

/// Half a cent: a gap this small is a tie.
fn tie() -> f64 {
    0.005
}

fn round_value(money: bool, v: f64) -> Decimal {
    let d = crate::plan::bounded::decimal_from_f64(v).unwrap_or_default();
    if money {
        d.round_dp(2)
    } else {
        let mag = if v == 0.0 {
            0
        } else {
            v.abs().log10().floor() as i32
        };
        d.round_dp((5 - mag).clamp(0, 12) as u32).normalize()
    }
}

pub fn tornado(engine: &mut Engine<'_>) -> Result<Tornado, PlanError> {
    let fabrics = engine.fabric_ids();
    let modes: Vec<f64> = engine.targets.iter().map(|t| t.dist.mode).collect();
    let base = engine.eval(&modes)?;
    if base.len() < 2 {
        return Ok(Tornado::default());
    }
    let mut order: Vec<usize> = (0..base.len()).collect();
    order.sort_by(|&i, &j| base[i].total.cmp(&base[j].total).then(i.cmp(&j)));
    let (li, ri) = (order[0], order[1]);
    let (leader, runner) = (fabrics[li], fabrics[ri]);
    let mut entries = Vec::with_capacity(engine.targets.len());
    for k in 0..engine.targets.len() {
        let mut probe = Probe {
            k,
            li,
            values: modes.clone(),
        };
        entries.push(entry(engine, &mut probe, &fabrics)?);
    }
    entries.sort_by(|a, b| b.swing_usd.cmp(&a.swing_usd).then(a.input.cmp(&b.input)));
    Ok(Tornado {
        leader: Some(leader),
        runner_up: Some(runner),
        gap_at_modes: Some(challenger(&base, li)?.0),
        entries,
    })
}

/// The cheapest fabric other than the leader `li`, and how much more it costs (ties: the
/// first).
fn challenger(t: &[Totals], li: usize) -> Result<(Decimal, usize), PlanError> {
    let mut best: Option<(Decimal, usize)> = None;
    for (i, x) in t.iter().enumerate() {
        if i == li {
            continue;
        }
        let gap = x
            .total
            .checked_sub(t[li].total)
            .ok_or_else(|| super::overflow("the gap between two totals"))?;
        if best.is_none_or(|(g, _)| gap < g) {
            best = Some((gap, i));
        }
    }
    best.ok_or_else(|| super::overflow("a tornado of one fabric"))
}

/// One input `k` moved, every other at its mode, against the leader `li`.
struct Probe {
    k: usize,
    li: usize,
    values: Vec<f64>,
}

impl Probe {
    /// The cheapest other fabric, and its gap to the leader, with the input at `x`.
    fn challenger_at(
        &mut self,
        engine: &mut Engine<'_>,
        x: f64,
    ) -> Result<(Decimal, usize), PlanError> {
        if let Some(v) = self.values.get_mut(self.k) {
            *v = x;
        }
        challenger(&engine.eval(&self.values)?, self.li)
    }

    fn gap_at(&mut self, engine: &mut Engine<'_>, x: f64) -> Result<Decimal, PlanError> {
        self.challenger_at(engine, x).map(|(g, _)| g)
    }
}

/// The input's tornado entry: the gap at its low and high, and the values on each side of its
/// mode, out to its domain, where another fabric takes the lead.
fn entry(
    engine: &mut Engine<'_>,
    probe: &mut Probe,
    fabrics: &[Fabric],
) -> Result<TornadoEntry, PlanError> {
    let target = engine.targets[probe.k].clone();
    let leader = fabrics[probe.li];
    let g_low = probe.gap_at(engine, target.dist.low)?;
    let g_high = probe.gap_at(engine, target.dist.high)?;
    let g_mode = probe.gap_at(engine, target.dist.mode)?;
    // Search each side of the mode out to the edge of the input's domain (or, when the model
    // refuses the edge, the edge of the range).
    let (below, lo_end) = flip(
        engine,
        probe,
        &target,
        g_mode,
        target.domain.0,
        target.dist.low,
    )?;
    let (above, hi_end) = flip(
        engine,
        probe,
        &target,
        g_mode,
        target.domain.1,
        target.dist.high,
    )?;
    // Who takes the lead at each flip: the cheapest other fabric there.
    let mut who = |x: Option<f64>| -> Result<_, PlanError> {
        let Some(x) = x else { return Ok(None) };
        let (_, i) = probe.challenger_at(engine, x)?;
        Ok(Some((x, fabrics[i])))
    };
    let below = who(below)?;
    let above = who(above)?;
    let money = target.unit.starts_with("USD");
    let others: Vec<Fabric> = fabrics.iter().copied().filter(|f| *f != leader).collect();
    let reason = text::flip_reason(&target, leader, &others, below, above, (lo_end, hi_end));
    Ok(TornadoEntry {
        input: target.name.clone(),
        unit: target.unit.clone(),
        low: target.range.low,
        high: target.range.high,
        gap_at_low_usd: g_low,
        gap_at_high_usd: g_high,
        swing_usd: g_high
            .checked_sub(g_low)
            .ok_or_else(|| super::overflow("a swing"))?
            .abs(),
        flips_at: below
            .into_iter()
            .chain(above)
            .map(|(x, _)| round_value(money, x))
            .collect(),
        reason,
    })
}

/// Where the gap closes between the mode (gap `g_mode`) and `edge` (or `range_end` when the
/// model refuses the edge): `None` when it keeps its sign; with the end searched.
fn flip(
    engine: &mut Engine<'_>,
    probe: &mut Probe,
    target: &super::Target,
    g_mode: Decimal,
    edge: f64,
    range_end: f64,
) -> Result<(Option<f64>, f64), PlanError> {
    let (x_end, g_end) = match probe.gap_at(engine, edge) {
        Ok(g) => (edge, g),
        Err(_) => (range_end, probe.gap_at(engine, range_end)?),
    };
    let f0 = g_mode.to_f64().unwrap_or(0.0);
    let f1 = g_end.to_f64().unwrap_or(0.0);
    if f0.abs() <= tie() || f0.signum() == f1.signum() || f1.abs() <= tie() && f0.abs() <= tie() {
        return Ok((None, x_end));
    }
    // Illinois regula falsi between the mode (gap f0) and the end (gap f1).
    let (mut a, mut fa, mut b, mut fb) = (target.dist.mode, f0, x_end, f1);
    let mut keep = 0i8;
    let mut x = b;
    for _ in 0..MAX_STEPS {
        x = (a * fb - b * fa) / (fb - fa);
        if !x.is_finite() {
            x = (a + b) / 2.0;
        }
        let fx = probe.gap_at(engine, x)?.to_f64().unwrap_or(0.0);
        if fx.abs() <= tie() || (b - a).abs() <= 1e-12 * x.abs().max(1.0) {
            break;
        }
        if fx.signum() == fb.signum() {
            b = x;
            fb = fx;
            if keep == -1 {
                fa /= 2.0;
            }
            keep = -1;
        } else {
            a = x;
            fa = fx;
            if keep == 1 {
                fb /= 2.0;
            }
            keep = 1;
        }
    }
    Ok((Some(x), x_end))
}
