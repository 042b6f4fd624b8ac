//! Warnings for inputs whose value in the plan lies outside the range the analysis draws them
//! from, and for ranges that price nothing in the plan.

use rust_decimal::Decimal;

use super::{Kind, Spec, Target};
use crate::plan::advice::{Figures, PriceSet, design_moves_at, priced_by};
use crate::plan::size::Prepared;

/// Warnings for the inputs whose value in the plan lies outside the range the analysis draws
/// them from: the plan (its totals, the recommendation) is priced at that value, the analysis
/// at the range, and the two can name different fabrics. A discount not given is 0.
pub fn outside_ranges(spec: &Spec, prepared: &Prepared, figures: Figures<'_>) -> Vec<String> {
    let Ok(inputs) = serde_json::to_value(&prepared.resolved.normalized) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for t in &spec.targets {
        if let Some(w) = prices_nothing(prepared, t, figures) {
            out.push(w);
            continue;
        }
        let path = match &t.kind {
            Kind::Input { path, .. } | Kind::ModelTerm { path } => path,
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
pub(super) fn prices_nothing(
    prepared: &Prepared,
    t: &Target,
    figures: Figures<'_>,
) -> Option<String> {
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
        Kind::ModelTerm { .. } => return None,
    };
    let key = set.key();
    if priced_by(&prepared.sized, &prepared.resolved.adjustments, key) {
        return None;
    }
    let what = key.unpriced_words();
    // A part (or a vendor's, a category's) only a design the plan did not choose buys: at an end
    // of the range that design may be the cheaper one.
    for end in [t.range.low, t.range.high] {
        if let Some((fabric, design)) = design_moves_at(prepared, figures, set, end) {
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
pub(super) fn warn_outside(out: &mut Vec<String>, t: &Target, value: Decimal) {
    if value < t.range.low || value > t.range.high {
        let value = value.normalize();
        let to_price_there = match &t.kind {
            Kind::ListPrice(sku) => format!(
                "to price the plan in the range, set prices.overrides.{sku} to its mode and give the range on prices.overrides.{sku} instead"
            ),
            Kind::Input { .. } | Kind::ModelTerm { .. } => format!(
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
pub(super) fn priced_in_plan(prepared: &Prepared, sku: &str) -> Option<(Decimal, Decimal)> {
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
