//! The memo that opens the report (and its first printed page): the recommendation, each
//! fabric's totals and net present cost, the three inputs that would change the answer (the
//! uncertainty analysis' tornado, in words), the placeholder prices the answer rests on, and at
//! most five reasons, none repeating another.

use rust_decimal::Decimal;

use crate::cost::money::format_usd_short;
use crate::fabric::Fabric;
use crate::plan::Plan;

/// Most reasons the memo gives.
pub const MAX_REASONS: usize = 5;
/// Most inputs it names as able to change the answer.
pub const MAX_DRIVERS: usize = 3;

/// One fabric's line of the memo's table (whole dollars, short).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoRow {
    pub fabric: String,
    pub name: String,
    pub cheapest: bool,
    pub total: String,
    pub tco: String,
    pub npv: String,
    pub capex: String,
    pub idle: String,
}

/// The memo.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Memo {
    /// The recommendation, and the placeholders it rests on when it does.
    pub headline: String,
    pub rows: Vec<MemoRow>,
    pub years: u32,
    /// What would change the answer: up to [`MAX_DRIVERS`] sentences, the input named in words.
    pub drivers: Vec<String>,
    /// Why there are none (no analysis could be made now, or a single fabric).
    pub drivers_note: Option<String>,
    pub reasons: Vec<String>,
}

/// The memo of `plan`; `analysed`: the same plan with an uncertainty analysis (the page's own
/// when it asked for one), whose tornado names the inputs that matter; `note`: why there is
/// none.
pub fn memo(plan: &Plan, analysed: Option<&Plan>, note: Option<String>) -> Memo {
    // A plan without an analysis names no input, whatever it was given as.
    let analysed = analysed.filter(|a| a.uncertainty.is_some());
    let years = plan.built().next().map_or(0, |f| f.tco.years);
    let cheapest = plan.cheapest_fabric();
    let rows = plan
        .built()
        .map(|f| MemoRow {
            fabric: f.fabric.as_str().into(),
            name: f.fabric.display_name().into(),
            cheapest: cheapest == Some(f.fabric),
            total: format_usd_short(f.total_cost_usd),
            tco: format_usd_short(f.tco.total_usd),
            npv: format_usd_short(f.tco.npv_usd),
            capex: format_usd_short(f.capex.total_usd),
            idle: format_usd_short(f.gpu_idle.cost_total_usd),
        })
        .collect();
    let Some(c) = &plan.comparison else {
        return Memo {
            headline: plan
                .fabrics
                .first()
                .map(|f| format!("One fabric planned: {}.", f.fabric.display_name()))
                .unwrap_or_default(),
            rows,
            years,
            drivers: Vec::new(),
            drivers_note: Some("One fabric was planned: there is no choice to change.".into()),
            reasons: Vec::new(),
        };
    };
    let runner_up = runner_up(plan, c.cheapest_fabric);
    let (drivers, flipping) = drivers(plan, analysed);
    let placeholders = placeholder_parts(plan, c.cheapest_fabric, runner_up);
    let mut headline = c.recommendation.to_string();
    // The answer rests on placeholders when one of the inputs that can flip it is a
    // placeholder price, or (no analysis) when the leading fabrics are priced with any.
    let rests = if analysed.is_some() {
        placeholders
            .iter()
            .filter(|(sku, _)| flipping.iter().any(|f| f == sku))
            .map(|(_, name)| name.clone())
            .collect::<Vec<_>>()
    } else {
        placeholders.iter().map(|(_, name)| name.clone()).collect()
    };
    if !rests.is_empty() {
        headline.push_str(&format!(
            " It rests on placeholder prices ({}): get quotes before deciding.",
            rests.join(", ")
        ));
    }
    let drivers_note = if drivers.is_empty() {
        Some(note.unwrap_or_else(|| {
            "No input in its range changes the answer (uncertainty analysis over the catalog's price ranges).".into()
        }))
    } else {
        None
    };
    Memo {
        headline,
        rows,
        years,
        drivers,
        drivers_note,
        reasons: reasons(plan, c, runner_up),
    }
}

/// The second cheapest fabric.
fn runner_up(plan: &Plan, cheapest: Fabric) -> Option<Fabric> {
    plan.built()
        .filter(|f| f.fabric != cheapest)
        .min_by_key(|f| f.total_cost_usd)
        .map(|f| f.fabric)
}

/// The reasons about the cheapest fabric against its runner-up, and the sentences that name no
/// second fabric (the break-even), without repeats, at most [`MAX_REASONS`].
fn reasons(plan: &Plan, c: &crate::cost::Comparison, runner_up: Option<Fabric>) -> Vec<String> {
    let others: Vec<&str> = plan
        .built()
        .map(|f| f.fabric.display_name())
        .filter(|n| Some(*n) != runner_up.map(Fabric::display_name))
        .filter(|n| *n != c.cheapest_fabric.display_name())
        .collect();
    let mut out: Vec<String> = Vec::new();
    for r in c.reasons.iter().map(ToString::to_string) {
        let about_another = others.iter().any(|o| r.contains(o));
        if about_another || out.contains(&r) {
            continue;
        }
        out.push(r);
        if out.len() == MAX_REASONS {
            break;
        }
    }
    out
}

/// The tornado's largest bars in words, and the inputs among them that flip the answer.
fn drivers(plan: &Plan, analysed: Option<&Plan>) -> (Vec<String>, Vec<String>) {
    let Some(u) = analysed.and_then(|p| p.uncertainty.as_ref()) else {
        return (Vec::new(), Vec::new());
    };
    let mut flipping = Vec::new();
    let sentences = u
        .tornado
        .iter()
        .filter(|e| e.swing_usd > Decimal::ZERO)
        .take(MAX_DRIVERS)
        .map(|e| {
            let name = crate::charts::data::human_input(plan, &e.input);
            let sku = e
                .input
                .strip_prefix("prices.list.")
                .or_else(|| e.input.strip_prefix("prices.overrides."));
            if let Some(sku) = sku.filter(|_| !e.flips_at.is_empty()) {
                flipping.push(sku.to_string());
            }
            // The reason names the part as the analysis does, by SKU: here by its name.
            let reason = match sku {
                Some(sku) => e
                    .reason
                    .replace(sku, &crate::charts::data::part_name(plan, sku)),
                None => e.reason.clone(),
            };
            let moves = format!(
                "{name}: over its range the gap between the two leading fabrics moves by {}",
                format_usd_short(e.swing_usd)
            );
            if e.flips_at.is_empty() {
                format!("{moves}; the answer holds across it.")
            } else {
                format!("{moves}. {reason}")
            }
        })
        .collect();
    (sentences, flipping)
}

/// Placeholder-priced parts of the leading two fabrics: (SKU, name in words), once each.
fn placeholder_parts(
    plan: &Plan,
    cheapest: Fabric,
    runner_up: Option<Fabric>,
) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for f in plan
        .built()
        .filter(|f| f.fabric == cheapest || Some(f.fabric) == runner_up)
    {
        for l in f.bom.iter().filter(|l| l.placeholder_price) {
            let sku = l.priced.line.sku.as_str();
            if !out.iter().any(|(s, _)| s == sku) {
                out.push((sku.to_string(), crate::charts::data::part_name(plan, sku)));
            }
        }
    }
    out
}
