//! What changed between two plans: the inputs, and per fabric capex by category, opex by line,
//! TCO, GPU-idle cost and total; the BOM lines added, removed, re-priced or re-counted; and
//! whether the recommendation changed and why. Pure: two plans in, one diff out.

use std::collections::BTreeMap;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use super::output::{CatalogRef, FabricPlan, Plan};
use crate::cost::money::format_usd_short;
use crate::fabric::Fabric;

/// One side of a diff.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct DiffSide {
    /// What was compared: `scenario <id> revision <n>` or `plan query`.
    pub label: String,
    pub plan_id: String,
    pub catalog: CatalogRef,
}

/// One input that differs (a leaf of the normalized request).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct InputChange {
    /// JSON pointer into the request (`/economics/years`).
    pub pointer: String,
    /// Absent (null) when the input is only on the other side.
    #[schema(value_type = Object, nullable)]
    pub from: Value,
    #[schema(value_type = Object, nullable)]
    pub to: Value,
}

/// A money figure on both sides and its change, USD.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct MoneyChange {
    /// What it is (`switches_usd`, `tco.total_usd`, …).
    pub item: String,
    #[serde(serialize_with = "crate::json::opt_decimal")]
    #[schema(value_type = Option<String>)]
    pub from: Option<Decimal>,
    #[serde(serialize_with = "crate::json::opt_decimal")]
    #[schema(value_type = Option<String>)]
    pub to: Option<Decimal>,
    /// to − from (null when either side is absent).
    #[serde(serialize_with = "crate::json::opt_decimal")]
    #[schema(value_type = Option<String>)]
    pub delta: Option<Decimal>,
}

/// How a BOM line changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BomChangeKind {
    Added,
    Removed,
    Repriced,
    Recounted,
    RepricedAndRecounted,
}

/// A BOM line that differs, keyed by SKU and counting unit (`leaf switch`, `NIC`, …).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct BomChange {
    pub sku: String,
    pub unit: String,
    pub change: BomChangeKind,
    pub from_quantity: Option<u64>,
    pub to_quantity: Option<u64>,
    #[serde(serialize_with = "crate::json::opt_decimal")]
    #[schema(value_type = Option<String>)]
    pub from_unit_price_usd: Option<Decimal>,
    #[serde(serialize_with = "crate::json::opt_decimal")]
    #[schema(value_type = Option<String>)]
    pub to_unit_price_usd: Option<Decimal>,
    /// Change of the line's extended price, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub extended_delta_usd: Decimal,
}

/// One fabric on both sides.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FabricDiff {
    pub fabric: Fabric,
    pub feasible_from: bool,
    pub feasible_to: bool,
    /// Capex by category (`nics_usd`, `switches_usd`, …, `total_usd`).
    pub capex: Vec<MoneyChange>,
    /// Opex per year by line (`power_usd`, `support_usd`, `staff_usd`, …, `total_usd`).
    pub opex_per_year: Vec<MoneyChange>,
    /// `tco.total_usd`, `tco.npv_usd`, `gpu_idle.cost_total_usd`, `total_cost_usd`.
    pub totals: Vec<MoneyChange>,
    /// BOM lines that differ (unchanged lines are left out).
    pub bom: Vec<BomChange>,
}

/// Whether the recommendation changed, and why.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct RecommendationChange {
    pub from_cheapest: Option<Fabric>,
    pub to_cheapest: Option<Fabric>,
    pub changed: bool,
    /// The reason in words, from the totals.
    pub why: String,
}

/// The difference between two plans.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PlanDiff {
    pub from: DiffSide,
    pub to: DiffSide,
    /// True when the two plans were priced from different catalog contents.
    pub catalog_changed: bool,
    pub inputs: Vec<InputChange>,
    /// Per fabric in either plan, in the order of `to` then `from`.
    pub fabrics: Vec<FabricDiff>,
    pub recommendation: RecommendationChange,
}

/// The diff of `from` and `to` (labelled for people).
pub fn diff(from: &Plan, from_label: &str, to: &Plan, to_label: &str) -> PlanDiff {
    let side = |p: &Plan, label: &str| DiffSide {
        label: label.to_string(),
        plan_id: p.plan_id.clone(),
        catalog: p.catalog.clone(),
    };
    let mut inputs = Vec::new();
    let a = serde_json::to_value(&from.inputs).unwrap_or(Value::Null);
    let b = serde_json::to_value(&to.inputs).unwrap_or(Value::Null);
    leaf_changes(&a, &b, &mut String::new(), &mut inputs);
    let mut order: Vec<Fabric> = to.fabrics.iter().map(|f| f.fabric).collect();
    for f in &from.fabrics {
        if !order.contains(&f.fabric) {
            order.push(f.fabric);
        }
    }
    let fabrics = order
        .into_iter()
        .map(|f| fabric_diff(f, find(from, f), find(to, f)))
        .collect();
    PlanDiff {
        from: side(from, from_label),
        to: side(to, to_label),
        catalog_changed: from.catalog.sha256 != to.catalog.sha256,
        inputs,
        recommendation: recommendation(from, to),
        fabrics,
    }
}

/// Every leaf that differs between two JSON values, by pointer.
fn leaf_changes(a: &Value, b: &Value, at: &mut String, out: &mut Vec<InputChange>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let keys: std::collections::BTreeSet<&String> = x.keys().chain(y.keys()).collect();
            for k in keys {
                let len = at.len();
                at.push('/');
                crate::error_code::push_escaped(at, k);
                leaf_changes(
                    x.get(k).unwrap_or(&Value::Null),
                    y.get(k).unwrap_or(&Value::Null),
                    at,
                    out,
                );
                at.truncate(len);
            }
        }
        _ if a == b => {}
        // A map only on one side (price overrides) is listed by its keys.
        (Value::Object(x), Value::Null) if !x.is_empty() => {
            leaf_changes(a, &Value::Object(Default::default()), at, out)
        }
        (Value::Null, Value::Object(y)) if !y.is_empty() => {
            leaf_changes(&Value::Object(Default::default()), b, at, out)
        }
        _ => out.push(InputChange {
            pointer: at.clone(),
            from: a.clone(),
            to: b.clone(),
        }),
    }
}

/// The `*_usd` figures of a serialized struct, in its field order.
fn money_fields(v: Option<Value>) -> Vec<(String, Decimal)> {
    let Some(Value::Object(m)) = v else {
        return Vec::new();
    };
    m.into_iter()
        .filter(|(k, _)| k.ends_with("_usd"))
        .filter_map(|(k, v)| Some((k, Decimal::from_str(v.as_str()?).ok()?)))
        .collect()
}

fn changes(a: Vec<(String, Decimal)>, b: Vec<(String, Decimal)>) -> Vec<MoneyChange> {
    let mut names: Vec<String> = b.iter().map(|(k, _)| k.clone()).collect();
    for (k, _) in &a {
        if !names.contains(k) {
            names.push(k.clone());
        }
    }
    let get = |xs: &[(String, Decimal)], k: &str| xs.iter().find(|(n, _)| n == k).map(|(_, v)| *v);
    names
        .into_iter()
        .map(|item| {
            let (from, to) = (get(&a, &item), get(&b, &item));
            MoneyChange {
                delta: from.zip(to).and_then(|(f, t)| t.checked_sub(f)),
                item,
                from,
                to,
            }
        })
        .collect()
}

fn totals(f: Option<&FabricPlan>) -> Vec<(String, Decimal)> {
    let Some(f) = f else {
        return Vec::new();
    };
    let mut out = Vec::new();
    if let Some(t) = &f.tco {
        out.push(("tco.total_usd".to_string(), t.total_usd));
        out.push(("tco.npv_usd".to_string(), t.npv_usd));
    }
    if let Some(g) = &f.gpu_idle {
        out.push(("gpu_idle.cost_total_usd".to_string(), g.cost_total_usd));
    }
    if let Some(t) = f.total_cost_usd {
        out.push(("total_cost_usd".to_string(), t));
    }
    out
}

fn fabric_diff(fabric: Fabric, a: Option<&FabricPlan>, b: Option<&FabricPlan>) -> FabricDiff {
    let capex = |f: Option<&FabricPlan>| {
        money_fields(
            f.and_then(|f| f.capex.as_ref())
                .and_then(|c| serde_json::to_value(c).ok()),
        )
    };
    let opex = |f: Option<&FabricPlan>| {
        money_fields(
            f.and_then(|f| f.opex_per_year.as_ref())
                .and_then(|o| serde_json::to_value(o).ok()),
        )
    };
    FabricDiff {
        fabric,
        feasible_from: a.is_some_and(|f| f.feasible),
        feasible_to: b.is_some_and(|f| f.feasible),
        capex: changes(capex(a), capex(b)),
        opex_per_year: changes(opex(a), opex(b)),
        totals: changes(totals(a), totals(b)),
        bom: bom_changes(a, b),
    }
}

/// (quantity, unit price, extended price) per (SKU, unit).
type Lines = BTreeMap<(String, String), (u64, Decimal, Decimal)>;

fn lines(f: Option<&FabricPlan>) -> Lines {
    let mut out = Lines::new();
    for l in f.and_then(|f| f.bom.as_deref()).unwrap_or_default() {
        let v = serde_json::to_value(l).unwrap_or(Value::Null);
        let text = |k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
        let money = |k: &str| Decimal::from_str(&text(k)).unwrap_or_default();
        let quantity = v.get("quantity").and_then(Value::as_u64).unwrap_or(0);
        let e = out.entry((text("sku"), text("unit"))).or_insert((
            0,
            money("unit_price_usd"),
            Decimal::ZERO,
        ));
        e.0 = e.0.saturating_add(quantity);
        e.2 = e.2.checked_add(money("extended_price_usd")).unwrap_or(e.2);
    }
    out
}

fn bom_changes(a: Option<&FabricPlan>, b: Option<&FabricPlan>) -> Vec<BomChange> {
    let (x, y) = (lines(a), lines(b));
    let keys: std::collections::BTreeSet<&(String, String)> = x.keys().chain(y.keys()).collect();
    keys.into_iter()
        .filter_map(|key| {
            let (from, to) = (x.get(key), y.get(key));
            let change = match (from, to) {
                (None, Some(_)) => BomChangeKind::Added,
                (Some(_), None) => BomChangeKind::Removed,
                (Some(f), Some(t)) => match (f.1 != t.1, f.0 != t.0) {
                    (true, true) => BomChangeKind::RepricedAndRecounted,
                    (true, false) => BomChangeKind::Repriced,
                    (false, true) => BomChangeKind::Recounted,
                    (false, false) => return None,
                },
                (None, None) => return None,
            };
            let ext = |l: Option<&(u64, Decimal, Decimal)>| l.map_or(Decimal::ZERO, |l| l.2);
            Some(BomChange {
                sku: key.0.clone(),
                unit: key.1.clone(),
                change,
                from_quantity: from.map(|l| l.0),
                to_quantity: to.map(|l| l.0),
                from_unit_price_usd: from.map(|l| l.1),
                to_unit_price_usd: to.map(|l| l.1),
                extended_delta_usd: ext(to).checked_sub(ext(from)).unwrap_or_default(),
            })
        })
        .collect()
}

fn find(p: &Plan, f: Fabric) -> Option<&FabricPlan> {
    p.fabrics.iter().find(|x| x.fabric == f)
}

fn cheapest(p: &Plan) -> Option<Fabric> {
    p.comparison.as_ref().map(|c| c.cheapest_fabric)
}

fn total_of(p: &Plan, f: Fabric) -> Option<Decimal> {
    p.fabrics
        .iter()
        .find(|x| x.fabric == f)
        .and_then(|x| x.total_cost_usd)
}

fn recommendation(from: &Plan, to: &Plan) -> RecommendationChange {
    let (a, b) = (cheapest(from), cheapest(to));
    let name = |f: Fabric| f.display_name();
    let usd = format_usd_short;
    let why = match (a, b) {
        (Some(a), Some(b)) if a == b => {
            let margin = |p: &Plan| {
                p.fabrics
                    .iter()
                    .filter(|x| x.fabric != a)
                    .filter_map(|x| x.total_cost_usd)
                    .min()
                    .zip(total_of(p, a))
                    .and_then(|(runner, best)| runner.checked_sub(best))
            };
            match (margin(from), margin(to)) {
                (Some(m0), Some(m1)) => format!(
                    "unchanged: {} stays the cheapest; its lead over the next fabric went from {} to {}",
                    name(a),
                    usd(m0),
                    usd(m1)
                ),
                _ => format!("unchanged: {} stays the cheapest", name(a)),
            }
        }
        (Some(a), Some(b)) => {
            let moved = |f: Fabric| {
                total_of(from, f)
                    .zip(total_of(to, f))
                    .and_then(|(x, y)| y.checked_sub(x))
                    .map_or_else(
                        || "changed".to_string(),
                        |d| {
                            if d.is_sign_negative() {
                                format!("fell by {}", usd(-d))
                            } else {
                                format!("rose by {}", usd(d))
                            }
                        },
                    )
            };
            format!(
                "{} is now the cheapest instead of {}: {}'s total {} while {}'s {}",
                name(b),
                name(a),
                name(b),
                moved(b),
                name(a),
                moved(a)
            )
        }
        (None, Some(b)) => format!(
            "{} is the cheapest; before, fewer than two fabrics could be compared",
            name(b)
        ),
        (Some(a), None) => format!(
            "before, {} was the cheapest; now fewer than two fabrics can be compared",
            name(a)
        ),
        (None, None) => "neither plan compares two fabrics".to_string(),
    };
    RecommendationChange {
        from_cheapest: a,
        to_cheapest: b,
        changed: a != b,
        why,
    }
}

/// The diff as CSV rows: section, fabric, item, change, from, to, delta.
pub fn diff_rows(d: &PlanDiff) -> Vec<[Value; 7]> {
    let s = |x: &str| Value::String(x.to_string());
    let money = |x: Option<Decimal>| x.map_or(Value::Null, |d| Value::String(d.to_string()));
    let mut rows = Vec::new();
    for i in &d.inputs {
        let text = |v: &Value| match v {
            Value::Null => Value::Null,
            Value::String(t) => Value::String(t.clone()),
            other => Value::String(other.to_string()),
        };
        rows.push([
            s("input"),
            Value::Null,
            s(&i.pointer),
            s("changed"),
            text(&i.from),
            text(&i.to),
            Value::Null,
        ]);
    }
    for f in &d.fabrics {
        let fabric = s(f.fabric.as_str());
        for (section, list) in [
            ("capex", &f.capex),
            ("opex_per_year", &f.opex_per_year),
            ("total", &f.totals),
        ] {
            for m in list {
                let change = if m.from == m.to { "same" } else { "changed" };
                rows.push([
                    s(section),
                    fabric.clone(),
                    s(&m.item),
                    s(change),
                    money(m.from),
                    money(m.to),
                    money(m.delta),
                ]);
            }
        }
        for b in &f.bom {
            let side = |q: Option<u64>, p: Option<Decimal>| match (q, p) {
                (Some(q), Some(p)) => Value::String(format!("{q} × {p}")),
                _ => Value::Null,
            };
            let change = serde_json::to_value(b.change).unwrap_or(Value::Null);
            rows.push([
                s("bom"),
                fabric.clone(),
                s(&format!("{} ({})", b.sku, b.unit)),
                change,
                side(b.from_quantity, b.from_unit_price_usd),
                side(b.to_quantity, b.to_unit_price_usd),
                Value::String(b.extended_delta_usd.to_string()),
            ]);
        }
    }
    let r = &d.recommendation;
    rows.push([
        s("recommendation"),
        Value::Null,
        s("cheapest_fabric"),
        s(if r.changed { "changed" } else { "same" }),
        r.from_cheapest.map_or(Value::Null, |f| s(f.as_str())),
        r.to_cheapest.map_or(Value::Null, |f| s(f.as_str())),
        s(&r.why),
    ]);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::CatalogSet;
    use crate::plan::pipeline::build_plan;
    use crate::plan::request::PlanRequest;

    fn plan(v: Value) -> Plan {
        let cats = CatalogSet::embedded().expect("embedded catalog");
        let req: PlanRequest = serde_json::from_value(v).expect("request");
        build_plan(&req, &cats).expect("plan")
    }

    #[test]
    fn a_plan_against_itself_changes_nothing() {
        let p = plan(serde_json::json!({"gpus": 1024}));
        let d = diff(&p, "a", &p, "b");
        assert!(d.inputs.is_empty() && !d.catalog_changed);
        assert!(!d.recommendation.changed);
        for f in &d.fabrics {
            assert!(f.bom.is_empty());
            for m in f.capex.iter().chain(&f.opex_per_year).chain(&f.totals) {
                assert_eq!(m.delta, Some(Decimal::ZERO), "{}", m.item);
            }
        }
    }

    #[test]
    fn more_gpus_recount_lines_and_the_deltas_add_up() {
        let (a, b) = (
            plan(serde_json::json!({"gpus": 1024})),
            plan(serde_json::json!({"gpus": 2048})),
        );
        let d = diff(&a, "a", &b, "b");
        assert_eq!(
            d.inputs
                .iter()
                .map(|i| i.pointer.as_str())
                .collect::<Vec<_>>(),
            ["/gpus"]
        );
        for f in &d.fabrics {
            assert!(
                f.bom
                    .iter()
                    .any(|c| c.change == BomChangeKind::Recounted && c.unit == "NIC"),
                "{:?}",
                f.bom
            );
            // The BOM deltas are the capex delta.
            let bom: Decimal = f.bom.iter().map(|c| c.extended_delta_usd).sum();
            let capex = f
                .capex
                .iter()
                .find(|m| m.item == "total_usd")
                .and_then(|m| m.delta);
            assert_eq!(Some(bom), capex, "{:?}", f.fabric);
        }
        let rows = diff_rows(&d);
        assert_eq!(rows[0][2], Value::String("/gpus".into()));
        assert_eq!(
            rows.last().map(|r| r[0].clone()),
            Some(Value::String("recommendation".into()))
        );
    }
}
