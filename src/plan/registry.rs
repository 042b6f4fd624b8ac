//! The registry of plan inputs, read from the one declaration of each (the bounded types of
//! `request.rs` and the `PlanRequest` structure, through their OpenAPI schema): every input's
//! dotted name, doc, unit and domain. GET parameters, sweep axes and uncertainty targets are
//! all looked up here, so none of them keeps its own list.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use serde_json::Value;

use super::request::PlanRequest;

/// A numeric plan input's domain, read from its schema (for sweep axes).
#[derive(Debug, Clone, PartialEq)]
pub struct Numeric {
    /// Whole numbers only.
    pub integer: bool,
    /// An exact decimal (sent on as a decimal string).
    pub decimal: bool,
    pub min: f64,
    pub max: f64,
    /// The upper bound is excluded.
    pub max_exclusive: bool,
    /// The only values allowed (NIC speeds), if listed.
    pub one_of: Option<Vec<f64>>,
    /// Unit, as the input's declaration says it (`USD per GPU-hour`); empty when not said.
    pub unit: String,
}

impl Numeric {
    /// The largest value the input takes: `max`, or a millionth below it when the bound is
    /// open (a discount of 0.999999) — the edge a sweep or a flip search may ask for. A
    /// millionth, not less: an analysis sends decimal inputs rounded to six places, and a
    /// value nearer the bound would round onto it and be refused.
    pub fn highest(&self) -> f64 {
        if self.max_exclusive {
            highest_below(self.max)
        } else {
            self.max
        }
    }
}

/// The highest value an analysis or a sweep sets below an open bound `max`: a millionth of
/// it (at least 1e-6) below, so that six decimal places do not round it onto the bound.
pub fn highest_below(max: f64) -> f64 {
    max - max.abs().max(1.0) * 1e-6
}

/// One plan input as a query parameter, derived from the `PlanRequest` schema.
#[derive(Debug, Clone)]
pub struct ParamSpec {
    /// Dotted name (`economics.years`).
    pub name: String,
    /// The field's doc and its type's unit and range.
    pub doc: String,
    /// Required (only `gpus`).
    pub required: bool,
    /// The field's schema, as in the body (bounds included).
    pub schema: Value,
    /// Numeric inputs: their domain.
    pub numeric: Option<Numeric>,
}

/// A type's schema and its components as JSON (`$ref`s point into the map by name).
pub fn schema_of<T: utoipa::ToSchema>() -> (Value, BTreeMap<String, Value>) {
    let mut comps = Vec::new();
    T::schemas(&mut comps);
    let mut comps: BTreeMap<String, Value> = comps
        .into_iter()
        .filter_map(|(n, s)| serde_json::to_value(s).ok().map(|v| (n, v)))
        .collect();
    let root = serde_json::to_value(T::schema()).unwrap_or(Value::Null);
    comps.insert(T::name().into_owned(), root.clone());
    (root, comps)
}

/// A declared unit without its example, for a sentence or an axis: "fraction" for
/// "fraction (0.12 = 12%)".
pub fn bare_unit(unit: &str) -> &str {
    unit.split(" (").next().unwrap_or(unit).trim()
}

/// The numeric input named `name` (`economics.gpu_hour_usd`), if there is one.
pub fn numeric_input(name: &str) -> Option<&'static ParamSpec> {
    plan_params()
        .iter()
        .find(|p| p.name == name && p.numeric.is_some())
}

/// The numeric inputs a sweep may vary: every numeric plan input but the uncertainty
/// analysis' own settings (`uncertainty.samples`, `uncertainty.seed`).
pub fn axis_inputs() -> impl Iterator<Item = &'static ParamSpec> {
    plan_params()
        .iter()
        .filter(|p| p.numeric.is_some() && !p.name.starts_with("uncertainty."))
}

/// The unit a bounded type's description states (`… Unit: USD per GPU-hour. Range …`).
fn unit_of(docs: &[String]) -> String {
    docs.iter()
        .rev()
        .find_map(|d| {
            let rest = &d[d.find("Unit: ")? + "Unit: ".len()..];
            let end = rest.find(". ").unwrap_or(rest.len());
            Some(rest[..end].trim_end_matches('.').to_string())
        })
        .unwrap_or_default()
}

/// A parameter's description: the field's doc, then its type's, less the leading sentences the
/// field's doc already says (a field documented with its type's first sentence, then
/// "Default 3.", would otherwise read that sentence twice).
fn join_docs(docs: &[String]) -> String {
    let mut out = String::new();
    for d in docs {
        let mut rest = d.trim();
        while !rest.is_empty() {
            let end = rest.find(". ").map_or(rest.len(), |i| i + 1);
            let (sentence, after) = rest.split_at(end);
            if !out.contains(sentence.trim()) {
                break;
            }
            rest = after.trim_start();
        }
        if !rest.is_empty() {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(rest);
        }
    }
    out
}

/// Every plan input as a query parameter, read once from the `PlanRequest` schema (the one
/// declaration): leaves of the object tree, named with dots; maps are documented by prefix in
/// [`QUERY_HELP`].
pub fn plan_params() -> &'static [ParamSpec] {
    &registry().0
}

/// Map-valued inputs (`prices.overrides`, `prices.discounts.vendor`, …): the name is the
/// map's, the domain its values' (`prices.overrides.<sku>` takes a `UnitPriceUsd`).
pub fn map_params() -> &'static [ParamSpec] {
    &registry().1
}

/// A keyed numeric input, `<map input>.<key>` (`prices.overrides.nvidia-sn5600`): the map
/// input's spec (its bounds and unit hold for every key) and the key. Whether the key names a
/// SKU, vendor or category of the catalog is the plan's to say.
pub fn keyed_input(name: &str) -> Option<(&'static ParamSpec, &str)> {
    map_params().iter().find_map(|s| {
        let key = name.strip_prefix(s.name.as_str())?.strip_prefix('.')?;
        (!key.is_empty() && s.numeric.is_some()).then_some((s, key))
    })
}

/// A numeric input by its name, declared (`economics.gpu_hour_usd`) or keyed
/// (`prices.overrides.nvidia-sn5600`, [`keyed_input`]).
pub fn numeric_or_keyed(name: &str) -> Option<&'static ParamSpec> {
    numeric_input(name).or_else(|| keyed_input(name).map(|(s, _)| s))
}

/// The pattern of the keyed numeric inputs' names, for OpenAPI.
pub fn keyed_input_pattern() -> String {
    let names: Vec<String> = map_params()
        .iter()
        .filter(|s| s.numeric.is_some())
        .map(|s| s.name.replace('.', "\\."))
        .collect();
    // A key may hold dots (the vendor `FS.com-class`).
    format!("^({})\\..+$", names.join("|"))
}

/// The inputs of any request type `T`, as [`plan_params`] lists `PlanRequest`'s (the fit's
/// `budget.*`).
pub fn params_of<T: utoipa::ToSchema>() -> Vec<ParamSpec> {
    let (root, comps) = schema_of::<T>();
    let mut out = (Vec::new(), Vec::new());
    walk(&comps, &root, "", &mut out);
    out.0
}

fn registry() -> &'static (Vec<ParamSpec>, Vec<ParamSpec>) {
    static PARAMS: OnceLock<(Vec<ParamSpec>, Vec<ParamSpec>)> = OnceLock::new();
    PARAMS.get_or_init(|| {
        let (root, comps) = schema_of::<PlanRequest>();
        let mut out = (Vec::new(), Vec::new());
        walk(&comps, &root, "", &mut out);
        out
    })
}

fn walk(
    comps: &BTreeMap<String, Value>,
    schema: &Value,
    prefix: &str,
    out: &mut (Vec<ParamSpec>, Vec<ParamSpec>),
) {
    let mut ignore = Vec::new();
    let obj = resolve(comps, schema, &mut ignore);
    let Some(props) = obj.get("properties").and_then(Value::as_object) else {
        return;
    };
    let required: Vec<&str> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for (key, prop) in props {
        let name = crate::json::dotted(prefix, key);
        let mut docs = Vec::new();
        let leaf = resolve(comps, prop, &mut docs);
        if leaf.get("properties").is_some() {
            walk(comps, prop, &name, out);
            continue;
        }
        if let Some(values) = leaf.get("additionalProperties") {
            // A map: `name.<key>=value`, documented in QUERY_HELP.
            let mut vdocs = docs.clone();
            let v = resolve(comps, values, &mut vdocs);
            let unit = unit_of(&vdocs);
            out.1.push(ParamSpec {
                numeric: numeric(v).map(|n| Numeric { unit, ..n }),
                doc: join_docs(&docs),
                required: false,
                name,
                schema: v.clone(),
            });
            continue;
        }
        let mut schema = leaf.clone();
        if let Some(m) = schema.as_object_mut() {
            m.remove("description");
        }
        let unit = unit_of(&docs);
        out.0.push(ParamSpec {
            numeric: numeric(&schema).map(|n| Numeric { unit, ..n }),
            doc: join_docs(&docs),
            required: prefix.is_empty() && required.contains(&key.as_str()),
            name,
            schema,
        });
    }
}

fn numeric(s: &Value) -> Option<Numeric> {
    let types: Vec<&str> = match s.get("type") {
        Some(Value::String(t)) => vec![t.as_str()],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let integer = types.contains(&"integer");
    if !integer && !types.contains(&"number") {
        return None;
    }
    let one_of: Option<Vec<f64>> = s
        .get("enum")
        .and_then(Value::as_array)
        .map(|v| v.iter().filter_map(Value::as_f64).collect());
    let (min, max) = match &one_of {
        Some(v) => (
            v.iter().copied().fold(f64::INFINITY, f64::min),
            v.iter().copied().fold(f64::NEG_INFINITY, f64::max),
        ),
        None => (
            s.get("minimum").and_then(Value::as_f64)?,
            s.get("maximum")
                .or_else(|| s.get("exclusiveMaximum"))
                .and_then(Value::as_f64)?,
        ),
    };
    Some(Numeric {
        integer,
        decimal: types.contains(&"string"),
        min,
        max,
        max_exclusive: s.get("exclusiveMaximum").is_some(),
        one_of,
        unit: String::new(),
    })
}

/// Follows `$ref`s and `oneOf [T, null]` to the schema that carries the type, collecting the
/// descriptions met on the way (the outermost, i.e. the field's doc, first).
pub fn resolve<'a>(
    comps: &'a BTreeMap<String, Value>,
    s: &'a Value,
    docs: &mut Vec<String>,
) -> &'a Value {
    resolve_with(comps, s, |d| docs.push(d.to_string()))
}

/// [`resolve`], handing each description met on the way to `on_doc` (`|_| {}` to follow the
/// schema alone: a request's shape check follows one per field and copies none).
pub fn resolve_with<'a>(
    comps: &'a BTreeMap<String, Value>,
    mut s: &'a Value,
    mut on_doc: impl FnMut(&'a str),
) -> &'a Value {
    for _ in 0..16 {
        if let Some(d) = s.get("description").and_then(Value::as_str) {
            on_doc(d);
        }
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            match comps.get(r.rsplit('/').next().unwrap_or("")) {
                Some(next) => s = next,
                None => return s,
            }
            continue;
        }
        let variants = ["oneOf", "anyOf", "allOf"]
            .iter()
            .find_map(|k| s.get(*k).and_then(Value::as_array));
        match variants.and_then(|v| {
            v.iter()
                .find(|x| x.get("type") != Some(&Value::from("null")))
        }) {
            Some(next) => s = next,
            None => return s,
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_and_its_type_documented_alike_read_once() {
        let docs = [
            "Most tiers (2 or 3). Default 3.".to_string(),
            "Most tiers (2 or 3). Unit: switch tiers. Range 2–3.".to_string(),
        ];
        assert_eq!(
            join_docs(&docs),
            "Most tiers (2 or 3). Default 3. Unit: switch tiers. Range 2–3."
        );
        // Different sentences are all kept.
        let docs = ["Value of one GPU-hour.".to_string(), "USD.".to_string()];
        assert_eq!(join_docs(&docs), "Value of one GPU-hour. USD.");
    }

    #[test]
    fn no_query_parameter_says_a_sentence_twice() {
        for p in plan_params().iter().chain(map_params()) {
            let sentences: Vec<&str> = p
                .doc
                .split(". ")
                .map(str::trim)
                .filter(|s| s.len() > 12)
                .collect();
            for (i, s) in sentences.iter().enumerate() {
                assert!(
                    !sentences[..i].contains(s),
                    "{}: \"{s}\" twice in \"{}\"",
                    p.name,
                    p.doc
                );
            }
        }
    }
}
