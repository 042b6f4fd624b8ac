//! Tables of plans and sweeps, as spreadsheets read them: the plan's per-fabric summary, the
//! bill of materials, the sweep rows (each with its columns named by JSON path), the CSV that
//! carries them, and the single numbers `/v1/value` answers. Plain functions over plain data:
//! the HTTP layer (`api::sheets`) only negotiates, caches and responds.

pub mod csv;
pub mod metrics;
pub mod workbook;

use std::sync::Arc;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::fabric::Fabric;
use crate::plan::sweep::{Crossover, SweepRow};
use crate::plan::{CatalogRef, Plan};
use csv::Csv;

// ---- plan ----

/// Columns of the plan CSV: dotted paths into a fabric's result (the same names `/v1/value`
/// takes as `metric`), then the plan-level columns.
pub const PLAN_COLUMNS: &[&str] = &[
    "fabric",
    "feasible",
    "infeasible_reason",
    "nic_sku",
    "topology.design",
    "topology.tiers",
    "topology.planes",
    "topology.switch_sku",
    "topology.leaf_switches",
    "topology.spine_switches",
    "topology.core_switches",
    "topology.links.node_leaf",
    "topology.links.leaf_spine",
    "topology.links.spine_core",
    "capex.nics_usd",
    "capex.switches_usd",
    "capex.optics_usd",
    "capex.cables_usd",
    "capex.licenses_usd",
    "capex.total_usd",
    "opex_per_year.power_usd",
    "opex_per_year.support_usd",
    "opex_per_year.staff_usd",
    "opex_per_year.licenses_usd",
    "opex_per_year.spares_usd",
    "opex_per_year.total_usd",
    "tco.years",
    "tco.total_usd",
    "performance.allreduce_time_us",
    "performance.busbw_gbytes_per_s",
    "performance.exposed_comm_ms",
    "performance.network_exposed_ms",
    "performance.step_time_ms",
    "performance.gpu_idle_fraction",
    "gpu_idle.gpu_hours_per_year",
    "gpu_idle.failure_gpu_hours_per_year",
    "gpu_idle.failure_cost_per_year_usd",
    "gpu_idle.cost_per_year_usd",
    "gpu_idle.cost_total_usd",
    "total_cost_usd",
    // The last [`LATER_COLUMNS`], added since (audit 19 F2: the NPV and the cost per useful
    // GPU-hour were in the JSON and the report page only), are written after the plan-level
    // columns: a sheet reading cells by position keeps them (audit 21 F5).
    "tco.npv_usd",
    "cost_per_useful_gpu_hour_usd",
];

/// How many of [`PLAN_COLUMNS`], the last, the CSV writes after the plan-level columns.
const LATER_COLUMNS: usize = 2;

/// Plan-level columns added after the [`LATER_COLUMNS`] (a sheet reading cells by position
/// keeps the earlier ones): the comparison's recommendation sentence and its break-even
/// GPU-hour value (`comparison.break_even.gpu_hour_usd`, a decimal string; empty when there is
/// none or no comparison). The same on every row, as `plan_id` is. They need a full plan (a
/// figures plan has no recommendation words).
pub const PLAN_TAIL_COLUMNS: &[&str] = &["recommendation", "break_even_gpu_hour_usd"];

/// The rules of thumb's verdicts (`holds`, `fails`, `not_applicable`; empty without a
/// comparison), the same on every row, after the uncertainty columns (appended since: a sheet
/// reading cells by position keeps the earlier ones).
pub const RULE_COLUMNS: &[&str] = &[
    "rules_of_thumb.cost_gap",
    "rules_of_thumb.throughput_share",
    "rules_of_thumb.size_band",
    "rules_of_thumb.comm_threshold",
];

/// Columns LibreOffice's area link of the plan CSV reads in CI (`A1:BZ20`,
/// tests/spreadsheet/check.fods.in): every plan CSV column fits in it.
pub const SPREADSHEET_AREA_COLUMNS: usize = 78;

/// The uncertainty analysis' per-fabric columns (present when the plan carries an analysis):
/// probability of being cheapest, expected regret, and mean and percentiles of each amount.
pub const UNCERTAINTY_COLUMNS: &[&str] = &[
    "uncertainty.probability_cheapest",
    "uncertainty.expected_regret_usd",
    "uncertainty.total_usd.mean",
    "uncertainty.total_usd.p5",
    "uncertainty.total_usd.p50",
    "uncertainty.total_usd.p95",
    "uncertainty.tco_usd.mean",
    "uncertainty.tco_usd.p5",
    "uncertainty.tco_usd.p50",
    "uncertainty.tco_usd.p95",
    "uncertainty.capex_usd.mean",
    "uncertainty.capex_usd.p5",
    "uncertainty.capex_usd.p50",
    "uncertainty.capex_usd.p95",
    "uncertainty.gpu_idle_usd.mean",
    "uncertainty.gpu_idle_usd.p5",
    "uncertainty.gpu_idle_usd.p50",
    "uncertainty.gpu_idle_usd.p95",
];

/// The per-fabric summary of a plan as CSV (header + one row per fabric). The columns are the
/// same with and without an uncertainty analysis: its [`UNCERTAINTY_COLUMNS`] come after the
/// plan's, empty when the plan has no analysis (and for an infeasible fabric), so a sheet that
/// reads cells by position reads the same cells either way; the [`RULE_COLUMNS`] follow.
pub fn plan_csv(plan: &Plan) -> Result<String, serde_json::Error> {
    let first = PLAN_COLUMNS.len().saturating_sub(LATER_COLUMNS);
    let (figures, later) = PLAN_COLUMNS.split_at(first);
    let mut header: Vec<&str> = figures.to_vec();
    let analysis = match &plan.uncertainty {
        Some(u) => Some(serde_json::to_value(&u.fabrics)?),
        None => None,
    };
    header.extend([
        "cheapest",
        "catalog.id",
        "catalog.version",
        "plan_id",
        "warnings",
    ]);
    header.extend(later);
    header.extend(PLAN_TAIL_COLUMNS);
    header.extend(UNCERTAINTY_COLUMNS);
    header.extend(RULE_COLUMNS);
    let mut out = Csv::new(&header);
    let rules: Vec<Value> = RULE_COLUMNS
        .iter()
        .map(|c| {
            let rule = c.trim_start_matches("rules_of_thumb.");
            plan.comparison
                .as_ref()
                .and_then(|cmp| cmp.rules_of_thumb.iter().find(|r| r.rule == rule))
                .map_or(Value::Null, |r| Value::String(r.verdict.as_str().into()))
        })
        .collect();
    let cheapest = plan.cheapest_fabric();
    let recommendation = Value::String(
        plan.comparison
            .as_ref()
            .map(|c| c.recommendation.to_string())
            .unwrap_or_default(),
    );
    let break_even = plan
        .comparison
        .as_ref()
        .and_then(|c| c.break_even.gpu_hour_usd)
        .map_or(Value::Null, |d| {
            Value::String(crate::json::decimal_string(&d))
        });
    for f in &plan.fabrics {
        // The columns' figures only, not the fabric's whole tree (its BOM, its designs).
        let mut row: Vec<Value> = crate::json::pick(f, PLAN_COLUMNS)?
            .into_iter()
            .map(Option::unwrap_or_default)
            .collect();
        let later_cells = row.split_off(first.min(row.len()));
        // An infeasible fabric has empty cost cells, its reason, and is never the cheapest.
        row.push(Value::Bool(cheapest == Some(f.fabric)));
        row.push(Value::String(plan.catalog.id.clone()));
        row.push(Value::String(plan.catalog.version.clone()));
        row.push(Value::String(plan.plan_id.clone()));
        // The plan's warnings and this fabric's, not the other fabrics'.
        let warnings: Vec<&str> = plan.warnings_for(f.fabric).collect();
        row.push(Value::String(warnings.join(csv::LIST_SEPARATOR)));
        row.extend(later_cells);
        row.push(recommendation.clone());
        row.push(break_even.clone());
        let entry = analysis
            .as_ref()
            .and_then(Value::as_array)
            .and_then(|entries| entries.iter().find(|e| e["fabric"] == f.fabric.as_str()));
        row.extend(UNCERTAINTY_COLUMNS.iter().map(|c| {
            entry
                .and_then(|e| csv::dig(e, c.trim_start_matches("uncertainty.")))
                .cloned()
                .unwrap_or(Value::Null)
        }));
        row.extend(rules.iter().cloned());
        out.row(row);
    }
    Ok(out.finish())
}

// ---- bill of materials ----

/// One bill-of-materials line of one fabric: the plan's BOM line with its fabric.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BomRow {
    /// The fabric this line belongs to.
    pub fabric: Fabric,
    /// The line, as the plan's `bom[]` holds it.
    #[serde(flatten)]
    pub line: crate::plan::BomLineOut,
}

/// A fabric asked for that has no bill of materials, and why.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct NotBuilt {
    pub fabric: Fabric,
    /// Why it cannot be built (the plan's `infeasible_reason`).
    pub infeasible_reason: String,
}

/// The bill of materials of a plan, one row per fabric and line.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct BomSheet {
    /// The plan's id (as `POST /v1/plans` would give).
    pub plan_id: String,
    /// The catalog that priced it.
    pub catalog: CatalogRef,
    /// The plan's warnings (placeholder prices, optics that do not link, licences left out):
    /// what a buyer must know before ordering from these lines.
    pub warnings: Vec<String>,
    /// The fabrics asked for that cannot be built, with their reasons (they have no rows).
    pub not_built: Vec<NotBuilt>,
    /// One row per fabric and BOM line.
    pub rows: Vec<BomRow>,
}

/// CSV columns of the BOM.
pub const BOM_COLUMNS: &[&str] = &[
    "fabric",
    "sku",
    "vendor",
    "category",
    "description",
    "quantity",
    "unit",
    "unit_price_usd",
    "extended_price_usd",
    "power_w",
    "extended_power_w",
    "placeholder_price",
    "source",
    "warnings",
    // Added since (audit: a buyer could not see which prices were discounted or overridden),
    // after the released columns, which keep their places.
    "list_unit_price_usd",
    "discount_fraction",
    "price_overridden",
];

pub fn bom_sheet(plan: &Plan) -> BomSheet {
    let rows = plan
        .fabrics
        .iter()
        .flat_map(|f| {
            f.bom.iter().flatten().map(move |l| BomRow {
                fabric: f.fabric,
                line: l.clone(),
            })
        })
        .collect();
    BomSheet {
        plan_id: plan.plan_id.clone(),
        catalog: plan.catalog.clone(),
        warnings: plan.warnings.clone(),
        not_built: plan
            .fabrics
            .iter()
            .filter(|f| f.bom.is_none())
            .map(|f| NotBuilt {
                fabric: f.fabric,
                infeasible_reason: f.infeasible_reason.clone().unwrap_or_default(),
            })
            .collect(),
        rows,
    }
}

/// The BOM as CSV ([`BOM_COLUMNS`]): each line's `warnings` cell holds the plan's warnings
/// about the whole plan and about its fabric, as a plan CSV row does; a fabric that cannot be
/// built has one row of its name and its warnings, its reason among them.
pub fn bom_csv(plan: &Plan, sheet: &BomSheet) -> Result<String, serde_json::Error> {
    let mut out = Csv::new(BOM_COLUMNS);
    // Each fabric's warnings cell, joined once (not once a line).
    let said: Vec<(Fabric, Value)> = plan
        .fabrics
        .iter()
        .map(|f| {
            let w: Vec<&str> = plan.warnings_for(f.fabric).collect();
            (f.fabric, Value::String(w.join(csv::LIST_SEPARATOR)))
        })
        .collect();
    let said_of = |f: Fabric| {
        said.iter()
            .find(|(g, _)| *g == f)
            .map_or(Value::Null, |(_, w)| w.clone())
    };
    for r in &sheet.rows {
        let v = serde_json::to_value(r)?;
        out.row(BOM_COLUMNS.iter().map(|c| match *c {
            "warnings" => said_of(r.fabric),
            c => csv::dig(&v, c).cloned().unwrap_or(Value::Null),
        }));
    }
    // A fabric that cannot be built: its name and its warnings, which include "<fabric>:
    // infeasible for this request — <reason>".
    for n in &sheet.not_built {
        out.row(BOM_COLUMNS.iter().map(|c| match *c {
            "fabric" => Value::from(n.fabric.as_str()),
            "warnings" => said_of(n.fabric),
            _ => Value::Null,
        }));
    }
    Ok(out.finish())
}

// ---- sweeps ----

/// Columns of a sweep's CSV after the varied inputs' own columns.
pub const SWEEP_COLUMNS: &[&str] = &[
    "fabric",
    "design",
    "total_cost_usd",
    "capex_usd",
    "tco_usd",
    "gpu_idle_fraction",
    "gpu_idle_cost_usd",
    "failure_cost_usd",
    "cheapest",
    "plan_id",
    "warnings",
];

/// A varied input's value under the input's own name (`"gpus": 1024`).
#[derive(Debug, Clone)]
pub struct NamedValue {
    pub name: Arc<str>,
    /// An integer for integer inputs, else a number.
    pub value: Value,
}

/// A sweep row as the answer carries it: each varied input under its own name, then the row's
/// fields (one flat object in JSON).
#[derive(Debug, Clone, Serialize)]
pub struct NamedSweepRow {
    #[serde(flatten)]
    pub inputs: NamedValues,
    #[serde(flatten)]
    pub row: SweepRow,
}

/// The varied inputs of one row (one, or two for a grid).
#[derive(Debug, Clone)]
pub struct NamedValues(pub NamedValue, pub Option<NamedValue>);

impl Serialize for NamedValues {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(1 + usize::from(self.1.is_some())))?;
        for n in std::iter::once(&self.0).chain(&self.1) {
            m.serialize_entry(&*n.name, &n.value)?;
        }
        m.end()
    }
}

/// A sweep's rows as a JSON array, in parts whose concatenation is the array: the same bytes
/// as `serde_json` writes for `&[NamedSweepRow]`, without the flattening and with a fabric's
/// warnings escaped once while they stay the same from point to point. The
/// parts are runs of rows written on up to `threads` threads (the first part opens the array,
/// each other starts with its comma, the last closes it).
pub fn sweep_rows_json(rows: &[NamedSweepRow], threads: usize) -> serde_json::Result<Vec<Vec<u8>>> {
    let threads = threads.clamp(1, rows.len().max(1));
    let runs: Vec<(usize, &[NamedSweepRow])> = rows
        .chunks(rows.len().div_ceil(threads).max(1))
        .enumerate()
        .collect();
    let last = runs.len().saturating_sub(1);
    let mut parts = crate::parallel::map_in_order(&runs, threads, || {
        Ok(|&(i, run): &(usize, &[NamedSweepRow])| {
            // ~1 KB a row with its warnings.
            let mut part = Vec::with_capacity(run.len().saturating_mul(1024).saturating_add(2));
            part.push(if i == 0 { b'[' } else { b',' });
            write_sweep_rows(&mut part, run)?;
            if i == last {
                part.push(b']');
            }
            Ok(part)
        })
    })?;
    if parts.is_empty() {
        parts.push(b"[]".to_vec());
    }
    Ok(parts)
}

/// The rows of [`write_sweep_rows_json`] without the brackets: objects separated by commas.
fn write_sweep_rows(out: &mut Vec<u8>, rows: &[NamedSweepRow]) -> serde_json::Result<()> {
    // Per fabric, the warnings last written and their JSON: consecutive points usually have
    // the same list (~700 bytes), escaped once.
    let mut last: [Option<&Arc<[String]>>; 3] = [None; 3];
    let mut warnings_json: [Vec<u8>; 3] = Default::default();
    for (i, named) in rows.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        out.push(b'{');
        for (j, n) in std::iter::once(&named.inputs.0)
            .chain(&named.inputs.1)
            .enumerate()
        {
            if j > 0 {
                out.push(b',');
            }
            crate::json::to_writer(out, &*n.name)?;
            out.push(b':');
            crate::json::to_writer(out, &n.value)?;
        }
        let r = &named.row;
        member(out, "value", &r.value)?;
        if let Some(v2) = r.value2 {
            member(out, "value2", &v2)?;
        }
        member(out, "fabric", &r.fabric)?;
        // A design id is a fixed snake_case name: written as it is, no escaping to look for.
        out.extend_from_slice(b",\"design\":\"");
        out.extend_from_slice(r.design.as_str().as_bytes());
        out.push(b'"');
        money_member(out, "total_cost_usd", &r.total_cost_usd);
        money_member(out, "capex_usd", &r.capex_usd);
        money_member(out, "tco_usd", &r.tco_usd);
        member(out, "gpu_idle_fraction", &r.gpu_idle_fraction)?;
        money_member(out, "gpu_idle_cost_usd", &r.gpu_idle_cost_usd);
        money_member(out, "failure_cost_usd", &r.failure_cost_usd);
        member(out, "cheapest", &r.cheapest)?;
        member(out, "plan_id", &*r.plan_id)?;
        out.extend_from_slice(b",\"warnings\":");
        let slot = r.fabric.index();
        if last[slot].is_none_or(|w| **w != *r.warnings) {
            warnings_json[slot].clear();
            crate::json::to_writer(&mut warnings_json[slot], &*r.warnings)?;
            last[slot] = Some(&r.warnings);
        }
        out.extend_from_slice(&warnings_json[slot]);
        out.push(b'}');
    }
    Ok(())
}

/// Appends `,"name":` and the JSON of `value` (`name` is a field name: nothing to escape).
pub(crate) fn member<T: Serialize + ?Sized>(
    out: &mut Vec<u8>,
    name: &str,
    value: &T,
) -> serde_json::Result<()> {
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    crate::json::to_writer(out, value)
}

/// Appends `,"name":"<decimal>"`, the text `json::decimal` writes (rust_decimal's own
/// `Serialize` writes the same text a digit at a time, with a 96-bit division per digit).
fn money_member(out: &mut Vec<u8>, name: &str, value: &rust_decimal::Decimal) {
    let text = crate::json::decimal_text(value);
    out.extend_from_slice(b",\"");
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":\"");
    out.extend_from_slice(text.as_bytes());
    out.push(b'"');
}

/// A sweep's rows as CSV: the varied inputs (`vary`, then `vary2` for a grid), then
/// [`SWEEP_COLUMNS`]. A sheet has neither the sweep's `warnings` nor its `crossovers` list: each
/// row's `warnings` begin with what the whole sweep says (`shared`), and each fabric's row at
/// the first swept value past a crossover (on the crossover's line of a grid) with the
/// crossover's sentence ([`crossover_sentence`]) before that.
pub fn sweep_csv(
    vary: &str,
    vary2: Option<&str>,
    shared: &[String],
    rows: &[NamedSweepRow],
    crossovers: &[Crossover],
) -> String {
    let mut header = vec![vary];
    header.extend(vary2);
    header.extend_from_slice(SWEEP_COLUMNS);
    let mut out = Csv::new(&header);
    let sentences: Vec<(&Crossover, String)> = crossovers
        .iter()
        .map(|c| (c, crossover_sentence(c)))
        .collect();
    for r in rows {
        let inputs = std::iter::once(&r.inputs.0).chain(&r.inputs.1);
        // The warnings cell: the crossovers' sentences at this value, the sweep's, the row's.
        let lead: Vec<&str> = sentences
            .iter()
            .filter(|(c, _)| {
                c.between[1].to_bits() == r.row.value.to_bits()
                    && c.value2.map(f64::to_bits) == r.row.value2.map(f64::to_bits)
            })
            .map(|(_, s)| s.as_str())
            .chain(shared.iter().map(String::as_str))
            .collect();
        let cells = sweep_cells(&r.row, &lead);
        out.row(inputs.map(|n| n.value.clone()).chain(cells));
    }
    out.finish()
}

/// A crossover in words: "crossover: RoCE (ECMP) is cheapest below
/// economics.gpu_hour_usd=121.01 and adaptive-routing Ethernet from there (between the swept
/// values 83.4 and 166.7)"; not refined: "somewhere between"; a grid's line named.
pub fn crossover_sentence(c: &Crossover) -> String {
    let line = match (&c.input2, c.value2) {
        (Some(name), Some(v2)) => format!(", at {name}={v2}"),
        _ => String::new(),
    };
    let (from, to) = (c.from_fabric.display_name(), c.to_fabric.display_name());
    let [a, b] = c.between;
    if c.exact {
        format!(
            "crossover: {from} is cheapest below {}={} and {to} from there{line} (between the swept values {a} and {b})",
            c.input, c.value
        )
    } else {
        format!(
            "crossover: the cheapest fabric changes from {from} to {to} somewhere between {}={a} and {b}{line} (not refined)",
            c.input
        )
    }
}

/// A sweep row's cells in [`SWEEP_COLUMNS`] order, its warnings after `lead`.
pub(crate) fn sweep_cells(r: &SweepRow, lead: &[&str]) -> [Value; 11] {
    let money = |d: rust_decimal::Decimal| Value::String(crate::json::decimal_string(&d));
    [
        Value::from(r.fabric.as_str()),
        Value::from(r.design.as_str()),
        money(r.total_cost_usd),
        money(r.capex_usd),
        money(r.tco_usd),
        serde_json::Number::from_f64(r.gpu_idle_fraction).map_or(Value::Null, Value::Number),
        money(r.gpu_idle_cost_usd),
        money(r.failure_cost_usd),
        Value::Bool(r.cheapest),
        Value::from(&*r.plan_id),
        Value::Array(
            lead.iter()
                .copied()
                .chain(r.warnings.iter().map(String::as_str))
                .map(Value::from)
                .collect(),
        ),
    ]
}

/// A fit as CSV: one row per fabric (its cluster, what bound it, its spend, its work), with the
/// fabrics that buy the most GPUs and train the most tokens, and the catalog.
pub fn fit_csv(fit: &crate::plan::fit::Fit) -> String {
    use serde_json::json;
    let mut c = csv::Csv::new(&[
        "fabric",
        "gpus",
        "servers",
        "racks",
        "bound_by",
        "capex_usd",
        "total_usd",
        "facility_mw",
        "gpu_servers_usd",
        "gpu_servers_power_usd",
        "network_capex_usd",
        "network_tco_usd",
        "useful_gpu_hours",
        "trained_tokens",
        "next_step.gpus",
        "next_step.reason",
        "most_gpus",
        "most_trained_tokens",
        "catalog.id",
        "catalog.version",
    ]);
    let name = |f: Option<crate::fabric::Fabric>| json!(f.map(|f| f.as_str()));
    for f in &fit.fabrics {
        let s = f.spend.as_ref();
        // A spend figure as a decimal (empty when nothing fits).
        let spent = |get: fn(&crate::cost::Spend) -> rust_decimal::Decimal| {
            json!(s.map(|s| get(s).to_string()))
        };
        c.row([
            json!(f.fabric.as_str()),
            json!(f.gpus),
            json!(f.servers),
            json!(f.racks),
            json!(f.bound_by.join(" ")),
            spent(|s| s.capex_usd),
            spent(|s| s.total_usd),
            spent(|s| s.facility_mw),
            spent(|s| s.gpu_servers_usd),
            spent(|s| s.gpu_servers_power_usd),
            spent(|s| s.network_capex_usd),
            spent(|s| s.network_tco_usd),
            json!(f.useful_gpu_hours.to_string()),
            json!(f.trained_tokens),
            json!(f.next_step.as_ref().map(|n| n.gpus)),
            json!(f.next_step.as_ref().map(|n| n.reason.as_str())),
            name(fit.most_gpus_fabric),
            name(fit.most_trained_tokens_fabric),
            json!(fit.catalog.id),
            json!(fit.catalog.version),
        ]);
    }
    c.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_csv_row_has_each_column_of_the_rows_json() {
        // Every figure distinct, so two columns swapped cannot pass.
        let row = SweepRow {
            value: 512.0,
            value2: Some(3.0),
            fabric: Fabric::RoceAdaptive,
            design: crate::sizing::Design::SuClos,
            total_cost_usd: rust_decimal::Decimal::new(1_000_001, 2),
            capex_usd: rust_decimal::Decimal::new(2_000_002, 2),
            tco_usd: rust_decimal::Decimal::new(3_000_003, 2),
            gpu_idle_fraction: 0.125,
            gpu_idle_cost_usd: rust_decimal::Decimal::new(4_000_004, 2),
            failure_cost_usd: rust_decimal::Decimal::new(5_000_005, 2),
            cheapest: true,
            plan_id: "abc".into(),
            warnings: vec!["one".to_string(), "=two".to_string()].into(),
        };
        let named = NamedSweepRow {
            inputs: NamedValues(
                NamedValue {
                    name: "gpus".into(),
                    value: Value::from(512),
                },
                Some(NamedValue {
                    name: "economics.years".into(),
                    value: Value::from(3),
                }),
            ),
            row,
        };
        let csv = sweep_csv(
            "gpus",
            Some("economics.years"),
            &[],
            std::slice::from_ref(&named),
            &[],
        );
        let json = serde_json::to_value(&named).expect("json");
        let mut header = vec!["gpus", "economics.years"];
        header.extend_from_slice(SWEEP_COLUMNS);
        let mut expected = Csv::new(&header);
        expected.row(header.iter().map(|c| json[*c].clone()));
        assert_eq!(csv, expected.finish());
        assert!(
            csv.contains(",10000.01,20000.02,30000.03,0.125,40000.04,50000.05,true,abc,"),
            "{csv}"
        );
    }
}
