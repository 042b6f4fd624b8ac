//! The report page (`GET /`, `GET /report`): a view of a plan for people — the form, the
//! recommendation, the side-by-side table, the charts, the BOM, the warnings and the
//! assumptions with their sources. Pure: built from a plan, the catalog and the query pairs;
//! the HTML comes from the compiled template `templates/report.html` (escaped).

use askama::Template;
use rust_decimal::{Decimal, RoundingStrategy};
use serde_json::Value;

use crate::catalog::Catalog;
use crate::charts::data::{ChartId, usd};
use crate::plan::Plan;

mod form;
pub mod memo;

pub use form::{
    DEFAULT_GPUS, FORM, Field, FieldSpec, Opt, encode, form, given_inputs, kept, plan_query,
};
use form::{at, raw};

/// One cell of the side-by-side table.
#[derive(Debug, Clone)]
pub struct Cell {
    /// Exact value (decimal string) for machines; `data-value`.
    pub exact: String,
    /// Shown text.
    pub text: String,
}

/// One row of the side-by-side table.
#[derive(Debug, Clone)]
pub struct Row {
    pub label: String,
    /// Dotted path in a fabric's plan JSON (`capex.total_usd`), or `per_gpu.<path>` for the
    /// figure divided by the GPU count.
    pub metric: String,
    pub total: bool,
    pub cells: Vec<Cell>,
}

/// One BOM line, formatted.
#[derive(Debug, Clone)]
pub struct BomLine {
    pub sku: String,
    pub description: String,
    pub quantity: String,
    pub unit: String,
    pub unit_price: String,
    pub extended: String,
    pub placeholder: bool,
    pub source: String,
    /// How the unit price differs from the catalog's list price ("list $1,900 − 20 %
    /// (NVIDIA 20 %)", "override; list $1,900"); empty at list price.
    pub pricing: String,
}

/// A fraction as a percentage without trailing zeros ("20", "12.5").
fn percent(f: Decimal) -> String {
    (f * Decimal::ONE_HUNDRED).normalize().to_string()
}

/// How a BOM line's unit price came from its list price: the buyer's override, or the
/// discounts off list (which vendor and category discounts, compounded); empty at list price.
fn pricing(plan: &Plan, l: &crate::plan::BomLineOut) -> String {
    let line = &l.priced.line;
    let list = usd(line.list_unit_price_usd);
    if l.priced.price.price_overridden {
        return format!("override (prices.overrides); list {list}");
    }
    let off = l.priced.price.discount_fraction;
    // Nothing to discount on a part that comes with the server ($0).
    if off.is_zero() || line.list_unit_price_usd.is_zero() {
        return String::new();
    }
    let d = plan
        .inputs
        .prices
        .as_ref()
        .and_then(|p| p.discounts.as_ref());
    let mut parts = Vec::new();
    if let Some(v) = d
        .and_then(|d| d.vendor.as_ref())
        .and_then(|m| m.get(&*line.vendor))
    {
        parts.push(format!("{} {} %", line.vendor, percent(v.get())));
    }
    if let Some(c) = d
        .and_then(|d| d.category.as_ref())
        .and_then(|m| m.get(&line.category))
    {
        parts.push(format!("{} {} %", line.category.as_str(), percent(c.get())));
    }
    let by = if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    };
    format!("list {list} − {} % discount{by}", percent(off))
}

/// One fabric's BOM.
#[derive(Debug, Clone)]
pub struct Bom {
    pub fabric: String,
    pub name: String,
    /// The design built, its switches, and the other designs sized with their capex.
    pub design: String,
    pub lines: Vec<BomLine>,
    pub total: String,
}

/// "Design: su_clos, 32 leaf + 16 spine switches. Also sized: tor_copper $5,881,600 (…)".
fn design_line(plan: &Plan, f: &crate::plan::Built<'_>) -> String {
    let t = f.topology;
    let mut out = format!(
        "Design: {}, {} leaf + {} spine + {} core switches.",
        t.design.as_str(),
        t.leaf_switches,
        t.spine_switches,
        t.core_switches
    );
    let ratio = t.oversubscription_realised;
    if ratio > 1.0 + 1e-9 {
        out.push_str(&format!(
            " Leaves oversubscribed {}:1 (downlink : uplink bandwidth), not non-blocking.",
            (ratio * 1000.0).round() / 1000.0
        ));
    } else {
        out.push_str(" Non-blocking (1:1).");
    }
    let others: Vec<String> = plan
        .fabrics
        .iter()
        .filter(|x| x.fabric == f.fabric)
        .flat_map(|x| &x.design_alternatives)
        .filter(|a| !a.chosen)
        .map(|a| {
            let why = if a.meets_request {
                ""
            } else {
                ", not built unless asked"
            };
            format!(
                "{} {}, {} kW{why}",
                a.design.as_str(),
                usd(a.capex_usd),
                (a.it_power_w / rust_decimal::Decimal::from(1000)).round_dp(1)
            )
        })
        .collect();
    if !others.is_empty() {
        out.push_str(&format!(" Also sized: {}.", others.join("; ")));
    }
    out
}

/// One assumption: a figure, its value, unit and source.
#[derive(Debug, Clone)]
pub struct Assumption {
    pub name: String,
    pub value: String,
    pub unit: String,
    pub source: String,
    pub given: bool,
}

/// A chart on the page.
#[derive(Debug, Clone)]
pub struct ChartLink {
    pub id: &'static str,
    pub svg: String,
    pub png: String,
    pub alt: String,
    pub caption: String,
    /// Why the chart cannot be drawn, said in its place instead of an image that would not
    /// load.
    pub unavailable: Option<String>,
}

/// The cluster sizes the sweep chart can draw around a plan: the default range (a quarter to
/// four times `gpus`) when every size in it can be planned; else the part that can (a preset's
/// minimum below, the largest fabric above), with the reasons; or none.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SweepSpan {
    Default,
    Limited {
        from: u32,
        to: u32,
        why: Vec<String>,
    },
    None(String),
}

/// A count with thousands separators ("150,000").
pub fn group(n: u32) -> String {
    crate::charts::data::group_thousands(i128::from(n))
}

/// The default sweep range of a plan of `gpus` (the sweep chart's default).
pub fn default_sweep_range(gpus: u32) -> (u32, u32) {
    let from = (gpus / 4).max(1);
    (from, gpus.saturating_mul(4).clamp(from + 1, 1_000_000))
}

const SWEEP_CAPTION: &str = "Total cost against cluster size (a quarter to four times this plan's); dashed lines mark where the cheapest fabric changes.";

/// Points the page's sweep chart at `span`: an explicit range, or no image and the reason.
pub fn limit_sweep(r: &mut Report, pairs: &[(String, String)], span: &SweepSpan) {
    let Some(c) = r
        .charts
        .iter_mut()
        .find(|c| c.id == ChartId::Sweep.as_str())
    else {
        return;
    };
    match span {
        SweepSpan::Default => {}
        SweepSpan::Limited { from, to, why } => {
            let qs = format!(
                "{}&vary=gpus&from={from}&to={to}&steps=9&scale=geometric",
                plan_query(pairs)
            );
            c.svg = format!("/v1/charts/sweep?{qs}&format=svg");
            c.png = format!("/v1/charts/sweep?{qs}&format=png");
            c.caption = format!(
                "Total cost against cluster size, {} to {} GPUs: the part of a quarter to four times this plan's that can be planned ({}); dashed lines mark where the cheapest fabric changes.",
                crate::charts::data::group_thousands(i128::from(*from)),
                crate::charts::data::group_thousands(i128::from(*to)),
                why.join("; ")
            );
            c.alt.clone_from(&c.caption);
        }
        SweepSpan::None(why) => {
            c.unavailable = Some(format!(
                "No chart of total cost against cluster size: {why}"
            ));
        }
    }
}

/// One error of an invalid query, for people.
#[derive(Debug, Clone)]
pub struct ProblemLine {
    pub param: String,
    pub detail: String,
}

/// The page.
#[derive(Template)]
#[template(path = "report.html")]
pub struct Page {
    pub fields: Vec<Field>,
    /// The address's plan inputs the form has no field for ([`kept`]): carried as hidden
    /// fields and listed, so "Compare" does not drop them.
    pub kept: Vec<(String, String)>,
    pub report: Option<Report>,
    pub problem: Option<(u16, String, String, Vec<ProblemLine>)>,
    /// Every plan input of the address, carried by the "Save" and "Compare with…" forms.
    pub plan_pairs: Vec<(String, String)>,
    /// What a form just did ("Saved as scenario …").
    pub notice: Option<String>,
}

/// The plan inputs of an address: its pairs but those whose names begin with `_` (the page's
/// own, such as `_saved`).
pub fn plan_pairs(pairs: &[(String, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .filter(|(k, _)| !k.starts_with('_'))
        .cloned()
        .collect()
}

/// A saved scenario compared with the page's plan (`POST /report/compare`).
#[derive(Template)]
#[template(path = "diff.html")]
pub struct DiffPage {
    pub from: String,
    pub to: String,
    /// The report page of the plan compared.
    pub back: String,
    pub catalog_changed: bool,
    pub recommendation: String,
    pub inputs: Vec<(String, String, String)>,
    pub fabrics: Vec<DiffFabric>,
}

/// One fabric's changes, as text.
pub struct DiffFabric {
    pub name: String,
    /// (item, from, to, change)
    pub money: Vec<(String, String, String, String)>,
    /// (SKU and unit, change, from, to, extended-price change)
    pub bom: Vec<(String, String, String, String, String)>,
}

impl DiffPage {
    /// The diff in words and whole dollars.
    pub fn of(d: &crate::plan::diff::PlanDiff, back: String) -> DiffPage {
        use crate::cost::money::format_usd_short;
        let usd = |v: Option<rust_decimal::Decimal>| v.map(format_usd_short).unwrap_or_default();
        let text = |v: &serde_json::Value| match v {
            serde_json::Value::Null => "—".to_string(),
            serde_json::Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        DiffPage {
            from: d.from.label.clone(),
            to: d.to.label.clone(),
            back,
            catalog_changed: d.catalog_changed,
            recommendation: d.recommendation.why.clone(),
            inputs: d
                .inputs
                .iter()
                .map(|i| {
                    (
                        i.pointer.trim_start_matches('/').replace('/', "."),
                        text(&i.from),
                        text(&i.to),
                    )
                })
                .collect(),
            fabrics: d
                .fabrics
                .iter()
                .map(|f| DiffFabric {
                    name: f.fabric.display_name().to_string(),
                    money: f
                        .capex
                        .iter()
                        .map(|m| (format!("capex {}", m.item), m))
                        .chain(
                            f.opex_per_year
                                .iter()
                                .map(|m| (format!("opex per year {}", m.item), m)),
                        )
                        .chain(f.totals.iter().map(|m| (m.item.clone(), m)))
                        .filter(|(_, m)| m.delta != Some(rust_decimal::Decimal::ZERO))
                        .map(|(item, m)| (item, usd(m.from), usd(m.to), usd(m.delta)))
                        .collect(),
                    bom: f
                        .bom
                        .iter()
                        .map(|b| {
                            let side =
                                |q: Option<u64>, p: Option<rust_decimal::Decimal>| match (q, p) {
                                    (Some(q), Some(p)) => format!("{q} × {}", format_usd_short(p)),
                                    _ => "—".to_string(),
                                };
                            (
                                format!("{} ({})", b.sku, b.unit),
                                crate::words::wire_name(&b.change).replace('_', " "),
                                side(b.from_quantity, b.from_unit_price_usd),
                                side(b.to_quantity, b.to_unit_price_usd),
                                format_usd_short(b.extended_delta_usd),
                            )
                        })
                        .collect(),
                })
                .collect(),
        }
    }
}

impl Page {
    /// The page shows a problem of the service's (busy, too slow), not of the inputs.
    pub fn unavailable(&self) -> bool {
        self.problem
            .as_ref()
            .is_some_and(|(status, ..)| *status >= 500)
    }
}

/// Everything shown about a plan.
#[derive(Debug, Clone)]
pub struct Report {
    pub plan_id: String,
    pub catalog: String,
    pub catalog_sha256: String,
    pub gpus: String,
    pub years: u32,
    pub fabrics: Vec<(String, String)>,
    pub recommendation: String,
    pub reasons: Vec<String>,
    pub cheapest: String,
    pub rows: Vec<Row>,
    pub charts: Vec<ChartLink>,
    /// The uncertainty analysis, when the query asks for one.
    pub sure: Option<Sure>,
    /// The comparison's rules of thumb, each checked against the plan.
    pub rules: Vec<crate::cost::RuleOfThumb>,
    /// The memo that opens the page (its first printed page).
    pub memo: memo::Memo,
    pub boms: Vec<Bom>,
    pub warnings: Vec<String>,
    pub assumptions: Vec<Assumption>,
    /// The plan inputs the address gives ([`given_inputs`]).
    pub given: Vec<(String, String)>,
    pub json_url: String,
    /// The performance model against published measurements, by group and case.
    pub validation: Validated,
}

/// The validation table as the page shows it (`GET /v1/validation` in full).
#[derive(Debug, Clone, Default)]
pub struct Validated {
    /// Group, reference cases, geometric-mean error (text), cases outside tolerance (text).
    pub groups: Vec<(String, usize, String, String)>,
    /// Id, group, status, measured, model, error, tolerance, source; one a case.
    pub cases: Vec<[String; 8]>,
}

/// The validation table computed with `catalog`'s GPUs, as text for the page.
fn validated(catalog: Option<&Catalog>) -> Validated {
    let Some(catalog) = catalog else {
        return Validated::default();
    };
    let v = crate::validation::validate(catalog);
    let pct = |x: f64| format!("{:+.1} %", 100.0 * x);
    Validated {
        groups: v
            .groups
            .iter()
            .map(|g| {
                (
                    crate::words::wire_name(&g.group),
                    g.reference_cases,
                    format!("{:.1} %", 100.0 * g.geomean_error),
                    if g.outside_tolerance.is_empty() {
                        "none".to_string()
                    } else {
                        g.outside_tolerance.join(", ")
                    },
                )
            })
            .collect(),
        cases: v
            .cases
            .iter()
            .map(|o| {
                let c = &o.case;
                let unit = match c.metric {
                    crate::validation::Metric::BusbwGbytesPerS => "GB/s",
                    crate::validation::Metric::AllreduceTimeUs => "µs",
                    crate::validation::Metric::TokensPerSPerGpu => "tokens/s/GPU",
                    crate::validation::Metric::DispatchRdmaGbytesPerS => "GB/s",
                };
                [
                    c.id.clone(),
                    crate::words::wire_name(&c.group),
                    crate::words::wire_name(&c.status),
                    format!("{} {unit}", c.measured),
                    format!("{:.1} {unit}", o.model),
                    pct(o.error),
                    format!("±{:.0} %", 100.0 * c.tolerance),
                    c.source.clone(),
                ]
            })
            .collect(),
    }
}

/// One fabric's row of the uncertainty table.
#[derive(Debug, Clone)]
pub struct SureRow {
    pub fabric: String,
    pub name: String,
    /// Probability of being cheapest: exact (0–1) and as a percentage.
    pub probability: Cell,
    pub p5: Cell,
    pub p50: Cell,
    pub p95: Cell,
    pub regret: Cell,
}

/// The uncertainty analysis for people: the table and the sentences.
#[derive(Debug, Clone)]
pub struct Sure {
    pub samples: String,
    pub inputs: usize,
    pub rows: Vec<SureRow>,
    pub reasons: Vec<String>,
}

fn sure(plan: &Plan) -> Option<Sure> {
    let u = plan.uncertainty.as_ref()?;
    Some(Sure {
        samples: crate::charts::data::group_thousands(i128::from(u.samples)),
        inputs: u.inputs.len(),
        rows: u
            .fabrics
            .iter()
            .map(|f| SureRow {
                fabric: f.fabric.as_str().into(),
                name: f.fabric.display_name().into(),
                probability: Cell {
                    exact: f.probability_cheapest.to_string(),
                    text: format!("{:.1}%", f.probability_cheapest * 100.0),
                },
                p5: money_cell(f.total_usd.p5),
                p50: money_cell(f.total_usd.p50),
                p95: money_cell(f.total_usd.p95),
                regret: money_cell(f.expected_regret_usd),
            })
            .collect(),
        reasons: u.reasons.clone(),
    })
}

fn money_cell(d: Decimal) -> Cell {
    Cell {
        exact: d.normalize().to_string(),
        text: usd(d),
    }
}

/// A figure per unit (per GPU): the exact quotient rounded once, half away from zero (the
/// plan's rounding rule, docs/cost.md) — to whole dollars for the text, to cents for
/// `data-value`. Rounding the cents again to dollars rounded twice: $15,800.50006 became
/// $15,800.50, then $15,800 (banker's rounding) instead of $15,801.
fn per_unit_cell(total: Decimal, units: Decimal) -> Cell {
    let exact = total / units;
    let round = |dp| exact.round_dp_with_strategy(dp, RoundingStrategy::MidpointAwayFromZero);
    Cell {
        exact: round(crate::cost::money::MONEY_DP).normalize().to_string(),
        text: usd(round(0)),
    }
}

/// One row per staff role any fabric pays (network engineers, InfiniBand specialists), with
/// its ratio in the label when every fabric uses the same one: a fabric without the role shows
/// "—". The roles' sum is the plan's `opex_per_year.staff_usd`. Each role sits at the same
/// place of every fabric's `staff_by_role` (network engineers first), the row's metric path.
fn staff_rows(plan: &Plan) -> Vec<Row> {
    let mut roles: Vec<&'static str> = Vec::new();
    for f in plan.built() {
        for r in &f.opex_per_year.staff_by_role {
            if !roles.contains(&r.role) {
                roles.push(r.role);
            }
        }
    }
    roles
        .into_iter()
        .map(|role| {
            let i = plan
                .built()
                .find_map(|f| {
                    f.opex_per_year
                        .staff_by_role
                        .iter()
                        .position(|r| r.role == role)
                })
                .unwrap_or_default();
            let of = |f: &crate::plan::Built| {
                f.opex_per_year
                    .staff_by_role
                    .iter()
                    .find(|r| r.role == role)
                    .cloned()
            };
            let ratios: Vec<Decimal> = plan
                .built()
                .filter_map(|f| of(&f).map(|r| r.gpus_per_fte))
                .collect();
            let name = match role {
                "network_engineer" => "network engineers",
                "ib_specialist" => "InfiniBand specialists",
                other => other,
            };
            let label = match ratios.first() {
                Some(first) if ratios.iter().all(|r| r == first) => {
                    format!(
                        "Opex per year: staff, {name} (one per {} GPUs)",
                        first.normalize()
                    )
                }
                _ => format!("Opex per year: staff, {name}"),
            };
            Row {
                label,
                metric: format!("opex_per_year.staff_by_role.{i}.usd"),
                total: false,
                cells: plan
                    .built()
                    .map(|f| match of(&f) {
                        Some(r) => money_cell(r.usd),
                        None => Cell {
                            exact: String::new(),
                            text: "—".into(),
                        },
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The plan's discount rate as a percentage (`8%`).
fn rate_text(plan: &Plan) -> String {
    let rate = plan
        .built()
        .next()
        .map(|f| f.tco.discount_rate)
        .unwrap_or_default();
    format!("{}%", (rate * Decimal::ONE_HUNDRED).normalize())
}

/// "Depreciation per year (5 years, straight line)".
fn depreciation_label(plan: &Plan) -> String {
    match plan.built().find_map(|f| f.depreciation) {
        Some(d) => format!(
            "Depreciation per year ({} year{}, straight line)",
            d.years,
            if d.years == 1 { "" } else { "s" }
        ),
        None => "Depreciation per year".into(),
    }
}

/// The side-by-side rows: exact value plus whole-dollar text, per fabric.
fn rows(plan: &Plan) -> Vec<Row> {
    let years = plan.built().next().map(|f| f.tco.years).unwrap_or(0);
    let gpus = Decimal::from(plan.inputs.gpus.get());
    type Get = fn(&crate::plan::Built) -> Decimal;
    let row = |label: String, metric: &str, total: bool, get: Get| Row {
        label,
        metric: metric.into(),
        total,
        cells: plan.built().map(|f| money_cell(get(&f))).collect(),
    };
    // One row a line: label, metric (its JSON path), whether it is a total, the figure.
    #[rustfmt::skip]
    let mut out = vec![
        row("Capex: NICs".into(), "capex.nics_usd", false, |f| f.capex.nics_usd),
        row("Capex: switches".into(), "capex.switches_usd", false, |f| f.capex.switches_usd),
        row("Capex: optics".into(), "capex.optics_usd", false, |f| f.capex.optics_usd),
        row("Capex: cables".into(), "capex.cables_usd", false, |f| f.capex.cables_usd),
        row("Capex: licences".into(), "capex.licenses_usd", false, |f| f.capex.licenses_usd),
        row("Capex total".into(), "capex.total_usd", true, |f| f.capex.total_usd),
        row("Opex per year: power".into(), "opex_per_year.power_usd", false, |f| f.opex_per_year.power_usd),
        row("Opex per year: support".into(), "opex_per_year.support_usd", false, |f| f.opex_per_year.support_usd),
    ];
    out.extend(staff_rows(plan));
    #[rustfmt::skip]
    out.extend([
        row("Opex per year: licences".into(), "opex_per_year.licenses_usd", false, |f| f.opex_per_year.licenses_usd),
        row("Opex per year: spares".into(), "opex_per_year.spares_usd", false, |f| f.opex_per_year.spares_usd),
        row("Opex per year".into(), "opex_per_year.total_usd", true, |f| f.opex_per_year.total_usd),
        row(format!("Network TCO ({years} years, undiscounted)"), "tco.total_usd", true, |f| f.tco.total_usd),
        row(format!("Network TCO, net present cost at {}", rate_text(plan)), "tco.npv_usd", false, |f| f.tco.npv_usd),
        row(depreciation_label(plan), "depreciation.by_year.0.expense_usd", false,
            |f| f.depreciation.and_then(|d| d.by_year.first()).map_or(Decimal::ZERO, |y| y.expense_usd)),
        row(format!("GPU idle cost ({years} years)"), "gpu_idle.cost_total_usd", false,
            |f| f.gpu_idle.cost_total_usd),
        row("Total cost".into(), "total_cost_usd", true, |f| f.total_cost_usd),
    ]);
    if !gpus.is_zero() {
        for (label, metric, get) in [
            (
                "Capex per GPU",
                "capex.total_usd",
                (|f| f.capex.total_usd) as Get,
            ),
            (
                "Total cost per GPU",
                "total_cost_usd",
                (|f| f.total_cost_usd) as Get,
            ),
        ] {
            out.push(Row {
                label: label.into(),
                metric: format!("per_gpu.{metric}"),
                total: false,
                cells: plan.built().map(|f| per_unit_cell(get(&f), gpus)).collect(),
            });
        }
    }
    out.push(Row {
        label: "Total cost per useful GPU-hour".into(),
        metric: "cost_per_useful_gpu_hour_usd".into(),
        total: false,
        cells: plan
            .built()
            .map(|f| match f.cost_per_useful_gpu_hour_usd {
                Some(d) => Cell {
                    exact: d.normalize().to_string(),
                    text: format!("${}", d.round_dp(4)),
                },
                None => Cell {
                    exact: String::new(),
                    text: "—".into(),
                },
            })
            .collect(),
    });
    out
}

/// The catalog's operations figures as assumptions, split in two: those that are plan inputs,
/// named by their input path (`economics.pue`), and those that are not (a catalog's own
/// figures), named so that no one takes them for an input — a query naming them is a 422
/// unknown field.
fn figure_rows(
    catalog: &Catalog,
    pairs: &[(String, String)],
) -> (Vec<Assumption>, Vec<Assumption>) {
    let (mut inputs, mut model) = (Vec::new(), Vec::new());
    let ops = serde_json::to_value(&catalog.data.operations).unwrap_or(Value::Null);
    if let Value::Object(m) = ops {
        for (name, fig) in m {
            let param = match name.as_str() {
                "busy_fraction" => "utilization.busy_fraction".to_string(),
                other => format!("economics.{other}"),
            };
            let cited = format!(
                "{} ({}, grade {})",
                at(Some(&fig), "source").unwrap_or_default(),
                at(Some(&fig), "date").unwrap_or_default(),
                at(Some(&fig), "grade").unwrap_or_default()
            );
            let value = at(Some(&fig), "value").unwrap_or_default();
            let unit = at(Some(&fig), "unit").unwrap_or_default();
            if !crate::plan::registry::plan_params()
                .iter()
                .any(|p| p.name == param)
            {
                model.push(model_assumption(&name, value, unit, cited));
                continue;
            }
            let given = raw(pairs, &param);
            inputs.push(Assumption {
                name: param.clone(),
                value: given.map(str::to_string).unwrap_or(value),
                unit,
                source: if given.is_some() {
                    "your input".into()
                } else {
                    cited
                },
                given: given.is_some(),
            });
        }
    }
    (inputs, model)
}

/// A catalog figure that is no plan input, as a model assumption: named in words, not as an
/// input path, and saying that the catalog sets it.
fn model_assumption(name: &str, value: String, unit: String, cited: String) -> Assumption {
    Assumption {
        name: format!("{name} (catalog figure, not an input)"),
        value,
        unit,
        source: format!("{cited}. Not an input: set by the catalog."),
        given: false,
    }
}

/// The training job the idle cost is computed for, as its shape: "70 B dense, DDP, TP 8 × PP 4
/// × CP 1 × DP 32" (the page showed only the preset's name, and the default job's shape changes
/// on a small cluster).
fn job_assumption(plan: &Plan, pairs: &[(String, String)]) -> Option<Assumption> {
    let w = plan.inputs.workload.as_ref()?;
    let degree = |d: Option<crate::plan::request::ParallelDegree>| d.map_or(1, |d| d.get());
    let (tp, pp, cp) = (
        degree(w.tensor_parallel),
        degree(w.pipeline_parallel),
        degree(w.context_parallel),
    );
    let replica = u64::from(tp) * u64::from(pp) * u64::from(cp);
    let gpus = u64::from(plan.inputs.gpus.get());
    let value = match w.message_bytes {
        Some(b) => format!("one all-reduce of {} bytes", b.get()),
        None => {
            let params = w.model_params_billion.map_or(0.0, |p| p.get());
            let kind = match w.active_params_billion.map(|a| a.get()) {
                Some(a) if a < params => format!("{params} B mixture of experts ({a} B active)"),
                _ => format!("{params} B dense"),
            };
            let mode = match w.data_parallel_mode {
                Some(crate::perf::DataParallelMode::Fsdp) => "FSDP",
                _ => "DDP",
            };
            format!(
                "{kind}, {mode}, TP {tp} × PP {pp} × CP {cp} × DP {}",
                gpus / replica.max(1)
            )
        }
    };
    let given = pairs
        .iter()
        .any(|(k, v)| k.starts_with("workload.") && !v.trim().is_empty());
    Some(Assumption {
        name: "workload".into(),
        value,
        unit: String::new(),
        source: match w.preset {
            Some(p) => format!("preset {} (docs/model.md, presets)", p.as_str()),
            None if given => "your input, the rest the default job (docs/model.md §5)".into(),
            None => {
                "the default job (docs/model.md §5): TP 8 × PP 4, less on a small cluster".into()
            }
        },
        given,
    })
}

/// Each fabric asked for that cannot be built, as "InfiniBand cannot be built for this request
/// (70,000 endpoints per plane exceed …)", in plan order.
fn not_built(plan: &Plan) -> Vec<String> {
    plan.fabrics
        .iter()
        .filter(|f| f.built().is_none())
        .map(|f| {
            let reason = match f.reason_words() {
                "" => "no reason given",
                words => words,
            };
            capitalized(&format!(
                "{} cannot be built for this request ({reason})",
                f.fabric.display_name()
            ))
        })
        .collect()
}

/// The first letter upper case ("adaptive-routing Ethernet …" opening a sentence).
fn capitalized(s: &str) -> String {
    let mut chars = s.chars();
    chars.next().map_or_else(String::new, |c| {
        c.to_uppercase().chain(chars).collect::<String>()
    })
}

/// The recommendation box of a plan without a comparison (fewer than two fabrics built): one
/// fabric asked for, or the others cannot be built — then which, why, and what was priced.
fn no_comparison(plan: &Plan) -> String {
    let missing = not_built(plan);
    if plan.fabrics.len() <= 1 || missing.is_empty() {
        return "One fabric was asked for: nothing to compare.".into();
    }
    let priced: Vec<&str> = plan.built().map(|f| f.fabric.display_name()).collect();
    let priced = if priced.is_empty() {
        "no fabric was priced".to_string()
    } else {
        format!("only {} was priced", priced.join(" and "))
    };
    format!("{}; {priced}.", missing.join("; "))
}

/// The report for a plan.
pub fn report(plan: &Plan, catalog: Option<&Catalog>, pairs: &[(String, String)]) -> Report {
    let qs = plan_query(pairs);
    let charts = chart_links(plan, &qs);
    let boms = priced_boms(plan);
    let (mut assumptions, model) = catalog.map(|c| figure_rows(c, pairs)).unwrap_or_default();
    if let Some(g) = gpu_model_assumption(plan, catalog) {
        assumptions.insert(0, g);
    }
    if let Some(job) = job_assumption(plan, pairs) {
        assumptions.push(job);
    }
    if let Some(e) = gpu_hour_assumption(plan, pairs) {
        assumptions.push(e);
    }
    // The model's own figures behind the inputs above (the depreciation life behind the
    // GPU-hour value), after them.
    assumptions.extend(model);
    let (recommendation, reasons, cheapest) = recommendation_box(plan);
    Report {
        plan_id: plan.plan_id.clone(),
        catalog: format!("{} {}", plan.catalog.id, plan.catalog.version),
        catalog_sha256: plan.catalog.sha256.clone(),
        gpus: crate::charts::data::group_thousands(i128::from(plan.inputs.gpus.get())),
        years: plan.built().next().map(|f| f.tco.years).unwrap_or(0),
        fabrics: plan
            .built()
            .map(|f| (f.fabric.as_str().into(), f.fabric.display_name().into()))
            .collect(),
        recommendation,
        reasons,
        cheapest,
        rows: rows(plan),
        charts,
        sure: sure(plan),
        rules: plan
            .comparison
            .as_ref()
            .map(|c| c.rules_of_thumb.clone())
            .unwrap_or_default(),
        memo: memo::memo(
            plan,
            plan.uncertainty.is_some().then_some(plan),
            Some(
                "Ask for an uncertainty analysis to see which inputs would change the answer."
                    .into(),
            ),
        ),
        boms,
        warnings: plan.warnings.clone(),
        assumptions,
        given: given_inputs(pairs),
        json_url: format!("/v1/plans?{qs}"),
        validation: validated(catalog),
    }
}

/// The links to the report's charts, each with its caption (the tornado only when the plan has
/// one).
fn chart_links(plan: &Plan, qs: &str) -> Vec<ChartLink> {
    [
        (
            ChartId::Cost,
            "Cost per fabric: capex by category, opex over the years and GPU idle cost, stacked.",
        ),
        (
            ChartId::Cumulative,
            "Cumulative cost by year; where lines cross is the break-even year.",
        ),
        (ChartId::Sweep, SWEEP_CAPTION),
        (
            ChartId::Tornado,
            "What drives the gap between the two leading fabrics: each uncertain input at its low and its high, the others at their most likely values; the dashed line is where the ranking flips.",
        ),
    ]
    .into_iter()
    .filter(|(id, _)| *id != ChartId::Tornado || crate::charts::data::tornado(plan).is_some())
    .map(|(id, caption)| ChartLink {
        id: id.as_str(),
        svg: format!("/v1/charts/{}?{qs}&format=svg", id.as_str()),
        png: format!("/v1/charts/{}?{qs}&format=png", id.as_str()),
        alt: caption.to_string(),
        caption: caption.to_string(),
        unavailable: None,
    })
    .collect()
}

/// Each built fabric's bill of materials, its lines priced.
fn priced_boms(plan: &Plan) -> Vec<Bom> {
    plan.built()
        .map(|f| Bom {
            fabric: f.fabric.as_str().into(),
            name: f.fabric.display_name().into(),
            design: design_line(plan, &f),
            lines: f
                .bom
                .iter()
                .map(|l| BomLine {
                    sku: l.priced.line.sku.to_string(),
                    description: l.priced.line.description.to_string(),
                    quantity: crate::charts::data::group_thousands(i128::from(
                        l.priced.line.quantity,
                    )),
                    unit: l.unit.to_string(),
                    unit_price: usd(l.priced.price.unit_price_usd),
                    extended: usd(l.priced.price.extended_price_usd),
                    placeholder: l.placeholder_price,
                    source: l.source.to_string(),
                    pricing: pricing(plan, l),
                })
                .collect(),
            total: usd(f.capex.total_usd),
        })
        .collect()
}

/// The GPU model the plan prices, with its catalog entry's description and source.
fn gpu_model_assumption(plan: &Plan, catalog: Option<&Catalog>) -> Option<Assumption> {
    let g = catalog.and_then(|c| c.gpu(&plan.inputs.gpu_model.clone().unwrap_or_default()))?;
    Some(Assumption {
        name: "gpu_model".into(),
        value: g.id.clone(),
        unit: String::new(),
        source: format!(
            "{}: {} ({}, grade {:?})",
            g.description, g.provenance.source, g.provenance.date, g.provenance.grade
        ),
        given: false,
    })
}

/// The GPU-hour value that prices idle time: given, or derived from the GPU's price, or $0
/// when the catalog has none to derive it from.
fn gpu_hour_assumption(plan: &Plan, pairs: &[(String, String)]) -> Option<Assumption> {
    let e = plan.inputs.economics.as_ref()?;
    let rental = e.gpu_hour_basis == Some(crate::plan::request::GpuHourBasis::Rental);
    let (value, source, given) = match e.gpu_hour_usd {
        Some(v) => {
            let given = raw(pairs, "economics.gpu_hour_usd").is_some();
            let source = if given {
                "your input"
            } else if rental {
                "the GPU's on-demand rental rate, from the GPU entry above"
            } else {
                "the GPU's owned cost per hour: (purchase + server share) ÷ depreciation hours + power, from the GPU entry above; see docs/cost.md"
            };
            (v.get().normalize().to_string(), source, given)
        }
        // The catalog has no price to derive it from: counted at $0, said so.
        None => (
            "0".to_string(),
            if rental {
                "none: the catalog has no rental price for this GPU, so GPU-idle cost is counted at $0; set economics.gpu_hour_usd"
            } else {
                "none: the catalog has no purchase price for this GPU, so GPU-idle cost is counted at $0; set economics.gpu_hour_usd"
            },
            false,
        ),
    };
    Some(Assumption {
        name: "economics.gpu_hour_usd".into(),
        value,
        unit: "USD per GPU-hour".into(),
        source: source.into(),
        given,
    })
}

/// The recommendation box: the recommendation, its reasons (and the fabrics not compared), and
/// the cheapest fabric's name.
fn recommendation_box(plan: &Plan) -> (String, Vec<String>, String) {
    match &plan.comparison {
        Some(c) => {
            let mut reasons: Vec<String> = c.reasons.iter().map(ToString::to_string).collect();
            // A fabric asked for but not buildable is in no comparison: the box says so.
            reasons.extend(
                not_built(plan)
                    .into_iter()
                    .map(|why| format!("{why}, so it is not compared.")),
            );
            (
                c.recommendation.to_string(),
                reasons,
                c.cheapest_fabric.display_name().to_string(),
            )
        }
        None => (no_comparison(plan), Vec::new(), String::new()),
    }
}

#[cfg(test)]
mod tests;
