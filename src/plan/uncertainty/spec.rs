//! The analysis's inputs checked against the plan: every named input exists, can vary without
//! changing the design, and has a range inside its domain; the catalog's price ranges added.

use rust_decimal::Decimal;
use rust_decimal::prelude::ToPrimitive;

use super::{Distribution, Kind, RangeSource, Spec, Target, VARIABLE_PREFIXES, draw, text};
use crate::catalog::Catalog;
use crate::error_code::ErrorCode;
use crate::plan::error::PlanError;
use crate::plan::request::{DistributionKind, InputRange, UncertaintyRequest};
use crate::plan::size::Prepared;
use crate::plan::{inputs, registry};

pub(super) fn range_error(name: &str, detail: impl Into<String>) -> PlanError {
    PlanError::field(&pointer(name), ErrorCode::InvalidRange, detail)
}

pub(super) fn pointer(name: &str) -> String {
    format!(
        "/uncertainty/inputs/{}",
        name.replace('~', "~0").replace('/', "~1")
    )
}

/// A catalog SKU's list price and range (`None` without a public price).
pub(super) fn catalog_price(c: &Catalog, sku: &str) -> Option<(Decimal, Decimal, Decimal)> {
    let (price, range, _) = c.priced(sku)?;
    let range = range?;
    Some((price?, range.low, range.high))
}

/// The largest price an input may hold, USD (the registry's bound on `prices.overrides`).
pub(super) fn price_max() -> f64 {
    registry::map_params()
        .iter()
        .find(|p| p.name == "prices.overrides")
        .and_then(|p| p.numeric.as_ref())
        .map_or(1e9, |n| n.max)
}

pub(super) fn to_f64(d: Decimal) -> f64 {
    d.to_f64().unwrap_or(0.0)
}

pub(super) fn distribution(r: &InputRange) -> Distribution {
    let (low, high) = (to_f64(r.low), to_f64(r.high));
    Distribution {
        kind: r.distribution,
        low,
        mode: r.mode.map(to_f64).unwrap_or((low + high) / 2.0),
        high,
    }
}

/// Checks a range against the input's domain: low ≤ mode ≤ high, inside the bounds; a mode
/// exactly when triangular.
pub(super) fn check_range(
    name: &str,
    r: &InputRange,
    domain: (f64, f64),
    exclusive_max: bool,
    unit: &str,
) -> Result<(), PlanError> {
    match (r.distribution, r.mode) {
        (DistributionKind::Triangular, None) => {
            return Err(range_error(name, "a triangular range needs 'mode'"));
        }
        (DistributionKind::Uniform, Some(_)) => {
            return Err(range_error(
                name,
                "a uniform range has no 'mode' (use distribution 'triangular')",
            ));
        }
        _ => {}
    }
    let mode = r.mode.unwrap_or(r.low);
    if !(r.low <= mode && mode <= r.high) {
        return Err(range_error(name, "must satisfy low <= mode <= high"));
    }
    let (lo, hi) = (to_f64(r.low), to_f64(r.high));
    // Below an open bound, no nearer than samples can go: they are sent to the plan rounded
    // to six places, and 0.9999995 would round onto a bound of 1 and be refused mid-analysis.
    let top = if exclusive_max {
        registry::highest_below(domain.1)
    } else {
        domain.1
    };
    if lo < domain.0 || hi > top {
        return Err(range_error(
            name,
            format!(
                "must lie within {} to {} ({unit}){}",
                text::number(domain.0),
                text::number(top),
                if exclusive_max {
                    format!(
                        ": {} itself is excluded and samples are rounded to six decimal places",
                        text::number(domain.1)
                    )
                } else {
                    String::new()
                }
            ),
        ));
    }
    Ok(())
}

/// The label of a plan input: its doc's first sentence without a closing parenthesis (the
/// name follows in one), with the name.
pub(super) fn label_of(spec: &registry::ParamSpec, name: &str) -> String {
    let sentence = spec
        .doc
        .split(". ")
        .next()
        .unwrap_or("")
        .trim_end_matches('.');
    let first = match sentence.rfind(" (") {
        Some(i) if sentence.ends_with(')') => &sentence[..i],
        _ => sentence,
    };
    if first.is_empty() {
        return name.to_string();
    }
    format!("the {} ({name})", crate::words::lower_first(first))
}

/// Checks the request's analysis against the plan: every named input exists, can vary
/// without changing the design, and has a range inside its domain; the catalog's price ranges
/// are added for every BOM SKU without its own.
pub fn spec(u: &UncertaintyRequest, prepared: &Prepared) -> Result<Spec, PlanError> {
    let r = &prepared.resolved;
    let mut targets = Vec::new();
    let given = u.inputs.as_ref().map(|i| &i.0);
    for (name, range) in given.into_iter().flatten() {
        targets.push(match name.strip_prefix("prices.list.") {
            Some(sku) => list_price_target(r, name, sku, range)?,
            None => input_target(r, name, range)?,
        });
    }
    if u.catalog_price_ranges.unwrap_or(true) {
        catalog_range_targets(prepared, given, &mut targets);
        operations_range_targets(r, given, &mut targets);
    }
    if u.model_error_ranges.unwrap_or(true) {
        model_error_targets(r, given, &mut targets);
    }
    Ok(Spec {
        samples: u.samples.unwrap_or_default().get(),
        seed: u.seed.unwrap_or_default().get(),
        targets,
    })
}

/// An analysis input the request names that is unknown or cannot be sampled.
pub(super) fn unknown_input(name: &str, detail: String) -> PlanError {
    PlanError::field(&pointer(name), ErrorCode::UnknownInput, detail)
}

/// A range the request gives on a catalog list price (`prices.list.<sku>`).
pub(super) fn list_price_target(
    r: &inputs::Resolved,
    name: &str,
    sku: &str,
    range: &InputRange,
) -> Result<Target, PlanError> {
    let catalog = &r.catalog;
    if catalog_price(catalog, sku).is_none() {
        return Err(unknown_input(
            name,
            format!("no priced SKU '{sku}' in catalog '{}'", catalog.id()),
        ));
    }
    if r.adjustments.overrides.contains_key(sku) {
        return Err(unknown_input(
            name,
            format!(
                "prices.overrides sets the price of '{sku}', so its list price has no effect; give a range on prices.overrides.{sku} instead"
            ),
        ));
    }
    let domain = (0.0, price_max());
    check_range(name, range, domain, false, "USD")?;
    Ok(Target {
        name: name.to_string(),
        label: format!("the list price of {sku}"),
        unit: "USD".into(),
        dist: distribution(range),
        range: range.clone(),
        domain,
        source: RangeSource::Request,
        kind: Kind::ListPrice(sku.to_string()),
        stream: draw::stream(name),
    })
}

/// A range the request gives on a numeric plan input that does not change the design.
pub(super) fn input_target(
    r: &inputs::Resolved,
    name: &str,
    range: &InputRange,
) -> Result<Target, PlanError> {
    if !VARIABLE_PREFIXES.iter().any(|p| name.starts_with(p)) {
        return Err(unknown_input(
            name,
            format!(
                "'{name}' changes the fabric's design or is not a plan input; an analysis varies economics.*, utilization.*, workload.*, reliability.*, prices.* and catalog list prices (prices.list.<sku>); sweep the others"
            ),
        ));
    }
    let (spec, path) = match registry::numeric_input(name) {
        Some(s) => (s, name.split('.').map(str::to_string).collect::<Vec<_>>()),
        None => keyed_input(r, name)?,
    };
    let Some(n) = &spec.numeric else {
        return Err(unknown_input(
            name,
            format!("'{name}' is not a numeric plan input"),
        ));
    };
    if n.integer || n.one_of.is_some() {
        return Err(unknown_input(
            name,
            format!("'{name}' takes whole numbers; sample continuous inputs, sweep this one"),
        ));
    }
    check_range(name, range, (n.min, n.max), n.max_exclusive, &n.unit)?;
    Ok(Target {
        name: name.to_string(),
        label: label_of(spec, name),
        unit: n.unit.clone(),
        dist: distribution(range),
        range: range.clone(),
        domain: (n.min, n.highest()),
        source: RangeSource::Request,
        kind: if name.starts_with("model.") {
            Kind::ModelTerm { path }
        } else {
            Kind::Input {
                path,
                decimal: n.decimal,
            }
        },
        stream: draw::stream(name),
    })
}

/// A keyed plan input (`prices.overrides.<sku>`, a vendor's or a category's discount) and its
/// path, when the key names something the catalog has.
pub(super) fn keyed_input(
    r: &inputs::Resolved,
    name: &str,
) -> Result<(&'static registry::ParamSpec, Vec<String>), PlanError> {
    let catalog = &r.catalog;
    let Some((s, key)) = registry::keyed_input(name) else {
        return Err(unknown_input(
            name,
            format!("'{name}' is not a numeric plan input"),
        ));
    };
    if s.name == "prices.overrides" && catalog_price(catalog, key).is_none() {
        return Err(unknown_input(
            name,
            format!("no priced SKU '{key}' in catalog '{}'", catalog.id()),
        ));
    }
    if s.name == "prices.discounts.vendor" && !catalog.vendors().contains(&key) {
        return Err(unknown_input(
            name,
            crate::plan::inputs::unknown_vendor(catalog, key),
        ));
    }
    if s.name == "prices.discounts.category"
        && !crate::cost::Category::ALL.iter().any(|c| c.as_str() == key)
    {
        return Err(unknown_input(
            name,
            format!("'{key}' is not a category (nic, switch, optic, cable, license)"),
        ));
    }
    let mut path: Vec<String> = s.name.split('.').map(str::to_string).collect();
    path.push(key.to_string());
    Ok((s, path))
}

/// The catalog's price range of every SKU the sized fabrics buy that the request neither
/// ranges nor overrides (and whose range is not a single price).
pub(super) fn catalog_range_targets(
    prepared: &Prepared,
    given: Option<&std::collections::BTreeMap<String, InputRange>>,
    targets: &mut Vec<Target>,
) {
    let r = &prepared.resolved;
    let catalog = &r.catalog;
    let mut seen: Vec<&str> = Vec::new();
    for s in &prepared.sized {
        for line in &s.lines {
            let sku = line.sku.as_str();
            if seen.contains(&sku) {
                continue;
            }
            seen.push(sku);
            let named = |p: &str| given.is_some_and(|g| g.contains_key(&format!("{p}{sku}")));
            if named("prices.list.")
                || named("prices.overrides.")
                || r.adjustments.overrides.contains_key(sku)
            {
                continue;
            }
            let Some((list, low, high)) = catalog_price(catalog, sku) else {
                continue;
            };
            if low == high {
                continue;
            }
            let name = format!("prices.list.{sku}");
            let range = InputRange {
                distribution: DistributionKind::Triangular,
                low,
                mode: Some(list),
                high,
            };
            targets.push(Target {
                label: format!("the list price of {sku}"),
                unit: "USD".into(),
                dist: distribution(&range),
                range,
                domain: (0.0, price_max()),
                source: RangeSource::Catalog,
                kind: Kind::ListPrice(sku.to_string()),
                stream: draw::stream(&name),
                name,
            });
        }
    }
}

/// The catalog's range of each operating figure that has one (support rate, staffing ratios,
/// the IB specialist's cost), when the request neither sets the figure (it is the catalog's
/// value) nor ranges it: triangular, peak at the catalog's value.
pub(super) fn operations_range_targets(
    r: &inputs::Resolved,
    given: Option<&std::collections::BTreeMap<String, InputRange>>,
    targets: &mut Vec<Target>,
) {
    let ops = &r.catalog.data.operations;
    let e = &r.economics;
    for (name, figure, used) in [
        ("economics.support_rate", &ops.support_rate, e.support_rate),
        (
            "economics.network_engineer_usd_per_year",
            &ops.network_engineer_usd_per_year,
            e.network_engineer_usd_per_year,
        ),
        (
            "economics.ib_specialist_usd_per_year",
            &ops.ib_specialist_usd_per_year,
            e.ib_specialist_usd_per_year,
        ),
        (
            "economics.gpus_per_network_fte",
            &ops.gpus_per_network_fte,
            e.gpus_per_network_fte,
        ),
        (
            "economics.gpus_per_ib_specialist",
            &ops.gpus_per_ib_specialist,
            e.gpus_per_ib_specialist,
        ),
    ] {
        let Some(range) = figure.range else {
            continue;
        };
        if used != figure.value || given.is_some_and(|g| g.contains_key(name)) {
            continue;
        }
        let range = InputRange {
            distribution: DistributionKind::Triangular,
            low: range.low,
            mode: Some(figure.value),
            high: range.high,
        };
        // A catalog range outside the input's own bounds is left out (validation keeps them
        // inside).
        if let Ok(mut t) = input_target(r, name, &range) {
            t.source = RangeSource::Catalog;
            targets.push(t);
        }
    }
}

/// The model's terms and the validation groups whose reference cases' residuals give each its
/// range: NIC efficiency from every bandwidth case across servers (InfiniBand and RoCE), ECMP
/// efficiency from the RoCE cases, all-to-all efficiency from the all-to-all cases.
const MODEL_TERMS: [(&str, &[crate::validation::Group]); 3] = {
    use crate::validation::Group::{AllToAll, Infiniband, Roce};
    [
        ("model.nic_efficiency", &[Infiniband, Roce]),
        ("model.ecmp_efficiency", &[Roce]),
        ("model.a2a_efficiency", &[AllToAll]),
    ]
};

/// The share of residuals a model term's range covers: the 90th percentile of the reference
/// cases' absolute errors.
const MODEL_RESIDUAL_PERCENTILE: f64 = 0.9;

/// A triangular range around 1 for each model term the request does not range itself:
/// 1 ± the 90th-percentile absolute error of its validation groups' reference cases (a term
/// whose groups have no case is not sampled).
pub(super) fn model_error_targets(
    r: &inputs::Resolved,
    given: Option<&std::collections::BTreeMap<String, InputRange>>,
    targets: &mut Vec<Target>,
) {
    use crate::validation::Status;
    let table = crate::validation::validate(&r.catalog);
    for (name, groups) in MODEL_TERMS {
        if given.is_some_and(|g| g.contains_key(name)) {
            continue;
        }
        let mut errors: Vec<f64> = table
            .cases
            .iter()
            .filter(|o| o.case.status == Status::Reference && groups.contains(&o.case.group))
            .map(|o| o.error.abs())
            .filter(|e| e.is_finite())
            .collect();
        if errors.is_empty() {
            continue;
        }
        errors.sort_by(f64::total_cmp);
        let rank = ((errors.len() as f64 * MODEL_RESIDUAL_PERCENTILE).ceil() as usize)
            .clamp(1, errors.len());
        let half = errors[rank - 1];
        let Some(spec) = registry::numeric_input(name) else {
            continue;
        };
        let Some(n) = &spec.numeric else { continue };
        let low = (1.0 - half).max(n.min);
        let high = (1.0 + half).min(n.max);
        let dec = |x: f64| {
            rust_decimal::prelude::FromPrimitive::from_f64(x)
                .map_or(Decimal::ONE, |d: Decimal| d.round_dp(4))
        };
        let range = InputRange {
            distribution: DistributionKind::Triangular,
            low: dec(low),
            mode: Some(Decimal::ONE),
            high: dec(high),
        };
        targets.push(Target {
            name: name.to_string(),
            label: label_of(spec, name),
            unit: n.unit.clone(),
            dist: distribution(&range),
            range,
            domain: (n.min, n.highest()),
            source: RangeSource::Validation,
            kind: Kind::ModelTerm {
                path: name.split('.').map(str::to_string).collect(),
            },
            stream: draw::stream(name),
        });
    }
}
