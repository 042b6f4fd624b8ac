//! The numbers a chart draws, taken from a plan (or a sweep) and nothing else: tests compare
//! them with the plan's own fields, and the renderer draws exactly these.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::fabric::Fabric;
use crate::plan::Plan;
use crate::plan::sweep::Crossover;
use crate::table::NamedSweepRow;

/// The charts the service draws (`GET /v1/charts/{chart}`). A new chart is a variant here,
/// a builder in this module and a drawing function in `render`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum ChartId {
    /// Per fabric: capex by category, opex over the horizon and GPU-idle cost, stacked.
    Cost,
    /// Per fabric: cumulative cost (network TCO + GPU-idle cost) by year.
    Cumulative,
    /// Total cost against a swept input (default: cluster size), crossovers marked.
    Sweep,
    /// The uncertainty analysis' tornado: the gap between the two leading fabrics with each
    /// uncertain input at its low and its high (docs/uncertainty.md).
    Tornado,
}

impl ChartId {
    pub const ALL: [ChartId; 4] = [
        ChartId::Cost,
        ChartId::Cumulative,
        ChartId::Sweep,
        ChartId::Tornado,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            ChartId::Cost => "cost",
            ChartId::Cumulative => "cumulative",
            ChartId::Sweep => "sweep",
            ChartId::Tornado => "tornado",
        }
    }

    pub fn parse(s: &str) -> Option<ChartId> {
        ChartId::ALL.into_iter().find(|c| c.as_str() == s)
    }
}

/// One stacked segment of a cost bar.
#[derive(Debug, Clone, PartialEq)]
pub struct Segment {
    /// Legend label.
    pub label: &'static str,
    /// Amount, USD.
    pub usd: Decimal,
}

/// One fabric's stacked bar.
#[derive(Debug, Clone, PartialEq)]
pub struct CostBar {
    pub fabric: Fabric,
    /// Bottom to top: capex categories, opex over the horizon, GPU-idle cost.
    pub segments: Vec<Segment>,
    /// The plan's `total_cost_usd` (the segments add up to it).
    pub total_usd: Decimal,
}

/// One fabric's line: (x, USD) points in x order.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub fabric: Fabric,
    pub points: Vec<(f64, Decimal)>,
}

/// A vertical marker (a crossover).
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub x: f64,
    pub label: String,
}

/// One tornado bar: the gap (the cheapest other fabric − the leader, USD) with the input at its
/// low and its high.
#[derive(Debug, Clone, PartialEq)]
pub struct TornadoBar {
    /// The input's name.
    pub label: String,
    pub gap_at_low_usd: Decimal,
    pub gap_at_high_usd: Decimal,
}

/// Most bars a tornado chart draws (the largest swings).
pub const TORNADO_BARS: usize = 10;

/// What a chart draws.
#[derive(Debug, Clone, PartialEq)]
pub enum Series {
    /// Horizontal bars around the gap at the modes, largest swing on top; a dashed line where
    /// the gap is zero (the ranking flips).
    Tornado {
        /// X-axis label, with its unit.
        x_label: String,
        gap_at_modes_usd: Decimal,
        bars: Vec<TornadoBar>,
    },
    /// Stacked bars, one per fabric.
    Bars(Vec<CostBar>),
    /// Lines, one per fabric, over a numeric x axis.
    Lines {
        /// X-axis label, with its unit.
        x_label: String,
        /// Integer x values (years, GPUs) are labelled without decimals.
        x_integer: bool,
        /// Logarithmic x axis (geometric sweeps, and others by [`log_x_axis`]).
        x_log: bool,
        lines: Vec<Line>,
        markers: Vec<Marker>,
        /// Lines of text in the legend, after the markers (a sweep whose lines are flat says
        /// why).
        notes: Vec<String>,
    },
}

/// A chart: title, data, footer.
#[derive(Debug, Clone, PartialEq)]
pub struct Chart {
    pub id: ChartId,
    pub title: String,
    /// Y-axis label, with its unit.
    pub y_label: String,
    pub series: Series,
    /// Catalog version and plan id.
    pub footer: String,
}

fn footer(plan: &Plan) -> String {
    // A fabric that cannot be built has no bar or line: say so, not leave it out silently.
    let left_out: Vec<&str> = plan
        .fabrics
        .iter()
        .filter(|f| !f.feasible)
        .map(|f| f.fabric.short_name())
        .collect();
    let note = if left_out.is_empty() {
        String::new()
    } else {
        format!(" · not drawn (infeasible): {}", left_out.join(", "))
    };
    format!(
        "catalog {} {} · plan {}{note} · fabric-tco",
        plan.catalog.id, plan.catalog.version, plan.plan_id
    )
}

/// `tornado`: the analysis' largest bars ([`TORNADO_BARS`]; inputs that do not move the gap
/// are left out); `None` when the plan carries no
/// analysis or has fewer than two feasible fabrics.
pub fn tornado(plan: &Plan) -> Option<Chart> {
    let u = plan.uncertainty.as_ref()?;
    let (leader, runner, gap) = (u.leader?, u.runner_up?, u.gap_at_modes_usd?);
    // With three fabrics a bar is the gap to whichever other fabric is cheapest there.
    let (vs, other) = if plan.built().count() > 2 {
        (
            format!("{}'s lead", leader.short_name()),
            "cheapest other".to_string(),
        )
    } else {
        (
            format!("{} vs {}", runner.short_name(), leader.short_name()),
            runner.short_name().to_string(),
        )
    };
    Some(Chart {
        id: ChartId::Tornado,
        title: format!(
            "What drives {vs} ({} GPUs)",
            group_thousands(i128::from(plan.inputs.gpus.get()))
        ),
        y_label: String::new(),
        series: Series::Tornado {
            x_label: format!(
                "{other} − {} total cost, USD (> 0: {} cheaper)",
                leader.short_name(),
                leader.short_name()
            ),
            gap_at_modes_usd: gap,
            bars: u
                .tornado
                .iter()
                .filter(|e| !e.swing_usd.is_zero())
                .take(TORNADO_BARS)
                .map(|e| TornadoBar {
                    label: human_input_short(plan, &e.input),
                    gap_at_low_usd: e.gap_at_low_usd,
                    gap_at_high_usd: e.gap_at_high_usd,
                })
                .collect(),
        },
        footer: footer(plan),
    })
}

/// `cost`: per fabric, the capex categories, opex over the horizon and GPU-idle cost.
/// The segments add up to the fabric's `total_cost_usd` (capex + years × opex + idle).
pub fn cost_breakdown(plan: &Plan) -> Chart {
    let years = plan.built().next().map(|f| f.tco.years).unwrap_or(0);
    let bars = plan
        .built()
        .map(|f| CostBar {
            fabric: f.fabric,
            segments: vec![
                Segment {
                    label: "NICs",
                    usd: f.capex.nics_usd,
                },
                Segment {
                    label: "Switches",
                    usd: f.capex.switches_usd,
                },
                Segment {
                    label: "Optics",
                    usd: f.capex.optics_usd,
                },
                Segment {
                    label: "Cables",
                    usd: f.capex.cables_usd,
                },
                Segment {
                    label: "Licences (capex)",
                    usd: f.capex.licenses_usd,
                },
                Segment {
                    label: "Opex over the years",
                    usd: f.tco.total_usd - f.capex.total_usd,
                },
                Segment {
                    label: "GPU idle cost",
                    usd: f.gpu_idle.cost_total_usd,
                },
            ],
            total_usd: f.total_cost_usd,
        })
        .collect();
    Chart {
        id: ChartId::Cost,
        title: format!("Cost per fabric over {years} years"),
        y_label: "Cost (USD)".into(),
        series: Series::Bars(bars),
        footer: footer(plan),
    }
}

/// `cumulative`: per fabric, network TCO plus GPU-idle cost paid by the end of each year
/// (year 0 = capex). The last point is the fabric's `total_cost_usd`; where lines cross is the
/// break-even year.
pub fn cumulative(plan: &Plan) -> Chart {
    let lines = plan
        .built()
        .map(|f| {
            let mut points = vec![(0.0, f.capex.total_usd)];
            for y in &f.tco.by_year {
                let idle = f.gpu_idle.cost_per_year_usd * Decimal::from(y.year);
                points.push((f64::from(y.year), y.cumulative_usd + idle));
            }
            Line {
                fabric: f.fabric,
                points,
            }
        })
        .collect();
    Chart {
        id: ChartId::Cumulative,
        title: "Cumulative cost by year (network TCO + GPU idle)".into(),
        y_label: "Cumulative cost (USD)".into(),
        series: Series::Lines {
            x_label: "Year".into(),
            x_integer: true,
            x_log: false,
            lines,
            markers: Vec::new(),
            notes: Vec::new(),
        },
        footer: footer(plan),
    }
}

/// A sweep's rows and crossovers, as the chart needs them.
#[derive(Debug, Clone)]
pub struct SweepInput<'a> {
    /// The varied input's query-parameter name.
    pub vary: &'a str,
    /// The rows as `GET /v1/sweeps` returns them.
    pub rows: &'a [NamedSweepRow],
    pub crossovers: &'a [Crossover],
    /// Geometric spacing (drawn on a log axis; other sweeps too by [`log_x_axis`]'s rule).
    pub geometric: bool,
    /// What the sweep as a whole says in a chart (an input that moves no total): in the
    /// legend.
    pub notes: &'a [String],
}

/// Words for every input a sweep may vary (`plan::registry::axis_inputs`, the numeric plan
/// inputs), for the sweep chart's axis and title. The unit is not repeated here: it is the
/// registry's (the input's own declaration, [`input_unit`]), so the label and the JSON agree.
/// A new sweepable input needs a line here (a test walks the registry: without one its raw
/// dotted name would be the axis title).
pub const INPUT_WORDS: &[(&str, &str)] = &[
    ("gpus", "Cluster size"),
    ("gpus_per_node", "Server size"),
    ("nics_per_node", "Scale-out NICs"),
    ("nic_speed_gbps", "NIC speed"),
    ("economics.years", "Horizon"),
    ("economics.gpu_hour_usd", "GPU-hour value"),
    ("economics.electricity_usd_per_kwh", "Electricity"),
    ("economics.pue", "PUE"),
    ("economics.discount_rate", "Discount rate"),
    ("economics.spares_rate", "Spares rate"),
    ("economics.depreciation_years", "Depreciation life"),
    ("economics.support_rate", "Support rate"),
    (
        "economics.ethernet_nos_usd_per_switch_per_year",
        "Ethernet NOS subscription",
    ),
    (
        "economics.ufm_usd_per_endpoint_per_year",
        "UFM subscription",
    ),
    (
        "economics.network_engineer_usd_per_year",
        "Network engineer cost",
    ),
    (
        "economics.ib_specialist_usd_per_year",
        "InfiniBand specialist cost",
    ),
    (
        "economics.gpus_per_network_fte",
        "Network engineer coverage",
    ),
    (
        "economics.gpus_per_ib_specialist",
        "InfiniBand specialist coverage",
    ),
    ("utilization.busy_fraction", "Utilization"),
    ("topology.oversubscription", "Oversubscription"),
    ("topology.planes", "Fabric planes"),
    ("topology.max_tiers", "Tier limit"),
    ("topology.nodes_per_rack", "Rack density"),
    ("reliability.nic_failures_per_year", "NIC failure rate"),
    (
        "reliability.switch_failures_per_year",
        "Switch failure rate",
    ),
    (
        "reliability.transceiver_failures_per_year",
        "Transceiver failure rate",
    ),
    ("reliability.cable_failures_per_year", "Cable failure rate"),
    (
        "reliability.checkpoint_interval_minutes",
        "Checkpoint interval",
    ),
    ("reliability.restart_minutes", "Restart time"),
    ("workload.message_bytes", "All-reduce message size"),
    ("workload.background_load", "Background load"),
    ("nccl.channels", "NCCL channels"),
    ("model.nic_efficiency", "Model: NIC efficiency"),
    ("model.ecmp_efficiency", "Model: ECMP efficiency"),
    ("model.a2a_efficiency", "Model: all-to-all efficiency"),
    ("nccl.qps_per_connection", "Queue pairs per connection"),
    ("workload.mfu", "Compute efficiency"),
    ("workload.micro_batch_sequences", "Micro-batch size"),
    ("workload.moe_node_limit", "Nodes a token is routed to"),
    ("workload.virtual_stages", "Virtual pipeline stages"),
    ("workload.step_compute_ms", "Compute per step"),
    ("workload.model_params_billion", "Model size"),
    ("workload.active_params_billion", "Active parameters"),
    ("workload.hidden_size", "Hidden size"),
    ("workload.sequence_length", "Sequence length"),
    ("workload.global_batch_tokens", "Global batch"),
    ("workload.train_tokens", "Training tokens"),
    ("workload.bucket_mb", "Gradient bucket"),
    ("workload.bytes_per_gradient", "Gradient precision"),
    ("workload.tensor_parallel", "Tensor parallelism"),
    ("workload.pipeline_parallel", "Pipeline parallelism"),
    ("workload.context_parallel", "Context parallelism"),
    ("workload.data_parallel", "Data parallelism"),
    ("workload.expert_parallel", "Expert parallelism"),
    ("workload.moe_top_k", "Top-k routing"),
    ("workload.kv_heads", "Key/value heads"),
    ("workload.layers", "Layers"),
    ("workload.experts", "Routed experts"),
];

/// An input's unit as a chart says it: the registry's (`USD per GPU-hour`, `bytes`), less a
/// parenthesised example (`fraction (0.12 = 12%)` → `fraction`, `MB (10^6 bytes)` → `MB`).
/// `None` for a name that is not a numeric plan input or whose declaration states no unit.
pub fn input_unit(name: &str) -> Option<&'static str> {
    let spec = crate::plan::registry::numeric_or_keyed(name)?;
    let unit = spec.numeric.as_ref()?.unit.as_str();
    let unit = crate::plan::registry::bare_unit(unit);
    (!unit.is_empty()).then_some(unit)
}

/// A readable name for a plan input and its unit (the name itself when it has no words); a
/// keyed price input by its key ("nvidia-sn5600 price", "NVIDIA discount").
fn input_words(name: &str) -> (std::borrow::Cow<'_, str>, Option<&'static str>) {
    let words = if let Some(sku) = name.strip_prefix("prices.list.") {
        format!("{sku} list price").into()
    } else if let Some(sku) = name.strip_prefix("prices.overrides.") {
        format!("{sku} price").into()
    } else if let Some(who) = name
        .strip_prefix("prices.discounts.vendor.")
        .or_else(|| name.strip_prefix("prices.discounts.category."))
    {
        format!("{who} discount").into()
    } else {
        INPUT_WORDS
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(name, |(_, w)| *w)
            .into()
    };
    (words, input_unit(name))
}

/// A tornado bar's label: the input in words, short ("nvidia-sn5600 list price", "NVIDIA
/// discount", "GPU-hour value"), not its dotted name.
pub fn tornado_label(input: &str) -> String {
    input_words(input).0.into_owned()
}

/// A part of the plan's BOMs by its name, not its SKU: the vendor and the model from its
/// description ("NVIDIA Quantum-2 QM9700 NDR InfiniBand switch", "Arista 7060X6-64PE switch");
/// the SKU when no BOM of the plan holds it.
pub fn part_name(plan: &Plan, sku: &str) -> String {
    named_part(plan, sku, false)
}

/// [`part_name`] short enough for a chart's label: the vendor, the model number (the word of
/// the model with the most digits) and the kind ("NVIDIA QM9700 switch").
pub fn part_short_name(plan: &Plan, sku: &str) -> String {
    named_part(plan, sku, true)
}

fn named_part(plan: &Plan, sku: &str, short: bool) -> String {
    let Some(line) = plan
        .fabrics
        .iter()
        .filter_map(|f| f.bom.as_ref())
        .flatten()
        .map(|l| &l.priced.line)
        .find(|l| l.sku.as_str() == sku)
    else {
        return sku.to_string();
    };
    // The model: the description up to its first comma or dash-separated role ("— leaf").
    let description = line.description.to_string();
    let model = description
        .split([',', '—', '('])
        .next()
        .unwrap_or(&description)
        .trim();
    // A chart's label leaves out a generic vendor ("NVIDIA-compatible", "FS.com-class").
    let vendor = match line.vendor.as_str() {
        v if short && (v.ends_with("-compatible") || v.ends_with("-class")) => "",
        v => v,
    };
    let digits = |w: &&str| w.chars().filter(char::is_ascii_digit).count();
    let model = match model
        .split_whitespace()
        .filter(|w| digits(w) > 0)
        .max_by_key(|w| {
            // The most digits; the first of equals (`max_by_key` keeps the last: negate the index).
            digits(w)
        }) {
        Some(number) if short => number,
        _ => model,
    };
    let mut name = if model
        .to_ascii_lowercase()
        .starts_with(&vendor.to_ascii_lowercase())
        || vendor.is_empty()
    {
        model.to_string()
    } else {
        format!("{vendor} {model}")
    };
    let kind = match line.category {
        crate::cost::Category::Nic => "NIC",
        crate::cost::Category::Switch => "switch",
        crate::cost::Category::Optic => "transceiver",
        crate::cost::Category::Cable => "cable",
        crate::cost::Category::License => "licence",
    };
    if !name
        .to_ascii_lowercase()
        .contains(&kind.to_ascii_lowercase())
    {
        name.push(' ');
        name.push_str(kind);
    }
    name
}

/// An input in words for a buyer: a price by the part's name ("NVIDIA Quantum-2 QM9700 NDR
/// InfiniBand switch price", not "prices.list.nvidia-qm9700"), any other as the chart names it.
pub fn human_input(plan: &Plan, input: &str) -> String {
    match price_sku(input) {
        Some(sku) => format!("{} price", part_name(plan, sku)),
        None => tornado_label(input),
    }
}

/// [`human_input`] for a chart's label ("NVIDIA QM9700 switch price").
pub fn human_input_short(plan: &Plan, input: &str) -> String {
    match price_sku(input) {
        Some(sku) => format!("{} price", part_short_name(plan, sku)),
        None => tornado_label(input),
    }
}

fn price_sku(input: &str) -> Option<&str> {
    input
        .strip_prefix("prices.list.")
        .or_else(|| input.strip_prefix("prices.overrides."))
}

/// A readable axis label for a plan input, with its unit: "GPU-hour value (USD per GPU-hour)".
pub fn input_label(name: &str) -> String {
    match input_words(name) {
        (words, Some(unit)) => format!("{words} ({unit})"),
        (words, None) => words.to_string(),
    }
}

/// A unit that describes the number ("fraction", "downlink:uplink ratio", "model dimension")
/// rather than counts what it measures ("GPUs", "years", "Gb/s"): written in parentheses
/// after the value, not as a noun.
fn describes(unit: &str) -> bool {
    unit.starts_with("fraction") || unit.ends_with("ratio") || unit.ends_with("dimension")
}

/// A value of the input with its unit: "$253.73 per GPU-hour", "4,352 GPUs", "400 Gb/s",
/// "0.900 (fraction)" (a crossover's label said a bare "253.730").
fn with_unit(name: &str, v: f64, whole: bool, exact: bool) -> String {
    let unit = input_words(name).1;
    let usd = unit.is_some_and(|u| u.starts_with("USD"));
    // A crossover is a short decimal already (five significant figures, `plan::sweep`): shown
    // as it is, its whole part grouped — rounding it could put it on the wrong side of the
    // change (0.47931 as "0.479").
    let value = if whole {
        group_thousands(v.round() as i128)
    } else {
        // A bisected crossover is a short decimal on its grid, shown whole; an inexact one is
        // a sweep value, any float (148.4148414841484): six significant figures.
        let text = if exact {
            v.to_string()
        } else {
            let places = (5 - v.abs().log10().floor() as i32).clamp(0, 12) as usize;
            format!("{v:.places$}")
                .trim_end_matches('0')
                .trim_end_matches('.')
                .to_string()
        };
        group_decimal_text(&text)
    };
    match unit {
        // "USD per kWh" → "$0.085 per kWh".
        Some(u) if usd => format!("${value}{}", &u["USD".len()..]),
        Some(u) if describes(u) => format!("{value} ({u})"),
        Some(u) => format!("{value} {u}"),
        None => value,
    }
}

/// Whether a sweep chart's x axis is logarithmic. The rule: a geometric sweep
/// (`scale=geometric`, and the default cluster-size sweep) always; otherwise only when every
/// value is positive, they span more than two decades (largest > 100 × smallest) and they sit
/// more evenly on a log axis than on a linear one (the smallest gap between neighbouring
/// values is a larger share of the axis in log10 units than in linear ones), as
/// `values=1000,1000000,1000000000,10000000000` does (on a linear axis the first two were
/// drawn at the same pixel). An evenly spaced linear sweep (`from`/`to`/`steps`) therefore
/// stays linear whatever its span, and so does any sweep within two decades.
pub fn log_x_axis(values: &[f64], geometric: bool) -> bool {
    if geometric {
        return true;
    }
    let mut v: Vec<f64> = values.to_vec();
    v.sort_by(f64::total_cmp);
    v.dedup();
    let (Some(&lo), Some(&hi)) = (v.first(), v.last()) else {
        return false;
    };
    if v.len() < 3 || !lo.is_finite() || lo <= 0.0 || !hi.is_finite() || hi <= 100.0 * lo {
        return false;
    }
    let smallest_gap = |t: &dyn Fn(f64) -> f64| {
        let span = t(hi) - t(lo);
        v.windows(2)
            .map(|w| (t(w[1]) - t(w[0])) / span)
            .fold(f64::INFINITY, f64::min)
    };
    smallest_gap(&f64::log10) > smallest_gap(&|x| x)
}

/// `sweep`: total cost against the swept input per fabric, crossovers marked. Rows that are
/// not one-input rows (a grid's) are refused by the caller.
pub fn sweep(plan: &Plan, s: &SweepInput<'_>) -> Chart {
    let mut lines: Vec<Line> = Vec::new();
    for NamedSweepRow { row, .. } in s.rows {
        let (x, fabric, total) = (row.value, row.fabric, row.total_cost_usd);
        match lines.iter_mut().find(|l| l.fabric == fabric) {
            Some(l) => l.points.push((x, total)),
            None => lines.push(Line {
                fabric,
                points: vec![(x, total)],
            }),
        }
    }
    let integer = s.rows.iter().all(|r| r.row.value.fract() == 0.0);
    let values: Vec<f64> = s.rows.iter().map(|r| r.row.value).collect();
    let markers = s
        .crossovers
        .iter()
        .map(|c| Marker {
            x: c.value,
            label: format!(
                "{} → {} at {}",
                c.from_fabric.display_name(),
                c.to_fabric.display_name(),
                // Whole when the crossover is (whole swept values do not make a decimal
                // input's crossover whole: 148.4, not "$148").
                with_unit(s.vary, c.value, c.value.fract() == 0.0, c.exact)
            ),
        })
        .collect();
    Chart {
        id: ChartId::Sweep,
        title: format!("Total cost vs. {}", lower_first(&input_label(s.vary))),
        y_label: "Total cost over the horizon (USD)".into(),
        series: Series::Lines {
            x_label: input_label(s.vary),
            x_integer: integer,
            x_log: log_x_axis(&values, s.geometric),
            lines,
            markers,
            notes: s.notes.to_vec(),
        },
        footer: footer(plan),
    }
}

use crate::words::lower_first;

/// A decimal's text with its whole part grouped in thousands: `-45934.92` → `-45,934.92`.
pub fn group_decimal_text(text: &str) -> String {
    match text.split_once('.') {
        Some((whole, frac)) => format!("{}.{frac}", crate::cost::money::group_digits(whole)),
        None => crate::cost::money::group_digits(text),
    }
}

/// `1234567` → `1,234,567`.
pub fn group_thousands(n: i128) -> String {
    crate::cost::money::group_digits(&n.to_string())
}

/// A USD amount rounded to whole dollars with thousands separators: `$1,234,567`.
pub fn usd(d: Decimal) -> String {
    // Half away from zero, the plan's rule (docs/cost.md): `round()` is banker's ($2.50 → $2).
    let whole = d.round_dp_with_strategy(0, rust_decimal::RoundingStrategy::MidpointAwayFromZero);
    whole_usd(whole.to_i128().unwrap_or(0))
}

/// An axis tick in USD: whole dollars with separators (`$12,500,000`).
pub fn usd_tick(v: f64) -> String {
    let whole = v.round();
    if !whole.is_finite() || whole.abs() > 1e30 {
        return String::new();
    }
    whole_usd(whole as i128)
}

/// Whole dollars with separators and a leading minus: `-$1,234`.
fn whole_usd(w: i128) -> String {
    let sign = if w < 0 { "-" } else { "" };
    let digits = crate::cost::money::group_digits(&w.unsigned_abs().to_string());
    format!("{sign}${digits}")
}

/// Decimal → f64 for drawing (the exact numbers stay in the series).
pub fn f(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A crossover's label: a bisected one as found (its grid keeps it short), grouped; an
    /// inexact one (a sweep value, any float) at six significant figures (audit 16: it printed
    /// "$148.4148414841484").
    #[test]
    fn crossover_labels() {
        let hour = "economics.gpu_hour_usd";
        assert_eq!(with_unit(hour, 148.4, false, true), "$148.4 per GPU-hour");
        assert_eq!(
            with_unit(hour, 148.414_841_484_148_4, false, false),
            "$148.415 per GPU-hour"
        );
        let price = "prices.overrides.nvidia-sn5600";
        assert!(with_unit(price, 45_934.92, false, true).starts_with("$45,934.92"));
        assert!(with_unit(price, 45_935.0, true, true).starts_with("$45,935"));
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(group_thousands(0), "0");
        assert_eq!(group_thousands(999), "999");
        assert_eq!(group_thousands(1000), "1,000");
        assert_eq!(group_thousands(-1234567), "-1,234,567");
        assert_eq!(usd(Decimal::new(123456789, 2)), "$1,234,568");
        // Half away from zero, as the plan rounds: not to the even dollar.
        assert_eq!(usd(Decimal::new(250, 2)), "$3");
        assert_eq!(usd(Decimal::new(-250, 2)), "-$3");
        assert_eq!(usd(Decimal::new(1_580_050, 2)), "$15,801");
        assert_eq!(usd_tick(12_500_000.0), "$12,500,000");
    }

    #[test]
    fn chart_ids_round_trip() {
        for c in ChartId::ALL {
            assert_eq!(ChartId::parse(c.as_str()), Some(c));
        }
        assert_eq!(ChartId::parse("violin"), None);
    }
}
