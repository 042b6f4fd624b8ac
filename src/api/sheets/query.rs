//! Query string → plan request. The query is turned into the JSON value a client would have
//! POSTed (dotted names → nested objects, values typed by the field), then goes through the
//! same `parse_json` + `validate` + `build_plan` as `POST /v1/plans`.
//!
//! One table ([`PLAN_PARAMS`]) drives both the parsing and the OpenAPI parameters, so the
//! documented limits cannot drift from what the query parser accepts.

use std::str::FromStr;
use std::sync::Arc;

use actix_web::HttpRequest;
use actix_web::http::StatusCode;
use rust_decimal::Decimal;
use serde_json::{Map, Value};
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn, ParameterStyle};
use utoipa::openapi::schema::{ArrayBuilder, ObjectBuilder, SchemaType, Type};
use utoipa::openapi::{Required, Schema};

use crate::api::AppState;
use crate::api::error::{ApiError, FieldError};
use crate::api::extract::{parse_json, validate};
use crate::plan::PlanRequest;
use crate::plan::cache::CachedPlan;

/// Longest query string accepted, bytes (8 KiB; Excel caps whole URLs at 2,048 characters).
pub const MAX_QUERY_BYTES: usize = 8 * 1024;

/// How a query value is typed into JSON.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// Integer with inclusive bounds.
    Int(i64, i64),
    /// One of a few integers.
    OneOf(&'static [i64]),
    /// Floating-point number with inclusive bounds.
    Float(f64, f64),
    /// Exact decimal (sent on as a decimal string) with inclusive bounds.
    Dec(i64, i64),
    /// `true` / `false` (also `1`/`0`, `yes`/`no`, any case).
    Bool,
    /// Identifier (letters, digits, `-`, `_`, `.`), up to this many characters.
    Ident(usize),
    /// One of these words.
    Enum(&'static [&'static str]),
    /// A list of fabrics, repeated or comma-separated.
    Fabrics,
}

/// One documented query parameter of a plan.
#[derive(Debug, Clone, Copy)]
pub struct ParamSpec {
    pub name: &'static str,
    pub kind: Kind,
    pub doc: &'static str,
}

const fn p(name: &'static str, kind: Kind, doc: &'static str) -> ParamSpec {
    ParamSpec { name, kind, doc }
}

/// Every plan input as a query parameter (the JSON field names, nested with dots).
pub const PLAN_PARAMS: &[ParamSpec] = &[
    p(
        "gpus",
        Kind::Int(1, 1_000_000),
        "GPUs in the cluster (required).",
    ),
    p(
        "gpu_model",
        Kind::Ident(32),
        "Catalog GPU id (`a100`, `h100`, `h200`, `b200`). Default `h100`.",
    ),
    p(
        "gpus_per_node",
        Kind::Int(1, 72),
        "GPUs per server. Default: the GPU model's.",
    ),
    p(
        "nics_per_node",
        Kind::Int(1, 72),
        "Scale-out NIC ports per server. Default: one per GPU.",
    ),
    p(
        "nic_speed_gbps",
        Kind::OneOf(&[100, 200, 400, 800]),
        "NIC speed, Gb/s. Default 400.",
    ),
    p(
        "fabrics",
        Kind::Fabrics,
        "Fabrics to compare, repeated or comma-separated (`infiniband,roce`). Default: all three.",
    ),
    p(
        "catalog",
        Kind::Ident(64),
        "Pricing catalog id. Default: the newest.",
    ),
    p(
        "topology.oversubscription",
        Kind::Float(1.0, 16.0),
        "Leaf downlink:uplink bandwidth (1 = non-blocking). Default 1.",
    ),
    p(
        "topology.rail_optimized",
        Kind::Bool,
        "Rail-optimized wiring. Default true.",
    ),
    p(
        "topology.planes",
        Kind::Int(1, 8),
        "Independent fabric planes. Default 1.",
    ),
    p(
        "topology.max_tiers",
        Kind::Int(2, 3),
        "Most switch tiers allowed. Default 3.",
    ),
    p(
        "topology.design",
        Kind::Enum(&[
            "auto",
            "single_switch",
            "collapsed_rails",
            "rail_only",
            "su_clos",
        ]),
        "Fabric design: `auto` (cheapest that meets the request) or one named design. Default `auto`.",
    ),
    p(
        "topology.switch_sku",
        Kind::Ident(64),
        "Switch SKU for every fabric instead of each profile's.",
    ),
    p(
        "topology.in_network_reduction",
        Kind::Bool,
        "In-network reduction (SHARP) on InfiniBand. Default false.",
    ),
    p(
        "topology.roce_tuning",
        Kind::Enum(&["default", "tuned"]),
        "RoCE tuning. Default `default`.",
    ),
    p(
        "topology.cabling.node_leaf.nic_module",
        Kind::Ident(64),
        "Node–leaf transceiver at the NIC end (catalog SKU).",
    ),
    p(
        "topology.cabling.node_leaf.switch_module",
        Kind::Ident(64),
        "Node–leaf transceiver at the switch end.",
    ),
    p(
        "topology.cabling.node_leaf.cable",
        Kind::Ident(64),
        "Node–leaf cable (required when overriding node–leaf cabling).",
    ),
    p(
        "topology.cabling.leaf_spine.switch_module",
        Kind::Ident(64),
        "Leaf–spine transceiver.",
    ),
    p(
        "topology.cabling.leaf_spine.cable",
        Kind::Ident(64),
        "Leaf–spine cable (required when overriding leaf–spine cabling).",
    ),
    p(
        "topology.cabling.spine_core.switch_module",
        Kind::Ident(64),
        "Spine–core transceiver.",
    ),
    p(
        "topology.cabling.spine_core.cable",
        Kind::Ident(64),
        "Spine–core cable (required when overriding spine–core cabling).",
    ),
    p(
        "workload.message_bytes",
        Kind::Int(1, 1_099_511_627_776),
        "One all-reduce of this many bytes instead of a training step.",
    ),
    p(
        "workload.model_params_billion",
        Kind::Float(0.001, 100_000.0),
        "Model parameters, billions. Default 70.",
    ),
    p(
        "workload.bytes_per_gradient",
        Kind::Int(1, 8),
        "Bytes per gradient element. Default 2.",
    ),
    p(
        "workload.tensor_parallel",
        Kind::Int(1, 4096),
        "Tensor-parallel degree.",
    ),
    p(
        "workload.pipeline_parallel",
        Kind::Int(1, 4096),
        "Pipeline-parallel degree.",
    ),
    p(
        "workload.step_compute_ms",
        Kind::Float(0.001, 3_600_000.0),
        "Compute time of one step, ms. Default 2175.",
    ),
    p(
        "workload.bucket_mb",
        Kind::Float(0.001, 1_000_000.0),
        "DDP gradient bucket, MB. Default 25.",
    ),
    p(
        "utilization.busy_fraction",
        Kind::Dec(0, 1),
        "Share of hours the cluster runs jobs, 0–1.",
    ),
    p(
        "economics.years",
        Kind::Int(1, 15),
        "Horizon, years. Default 5.",
    ),
    p(
        "economics.discount_rate",
        Kind::Dec(0, 1),
        "Discount rate per year for NPV, 0–1.",
    ),
    p(
        "economics.electricity_usd_per_kwh",
        Kind::Dec(0, 10),
        "Electricity price, USD per kWh.",
    ),
    p(
        "economics.pue",
        Kind::Dec(1, 3),
        "Power usage effectiveness.",
    ),
    p(
        "economics.support_rate",
        Kind::Dec(0, 1),
        "Hardware support per year, share of hardware capex.",
    ),
    p(
        "economics.network_engineer_usd_per_year",
        Kind::Dec(0, 10_000_000),
        "Network engineer, USD per year.",
    ),
    p(
        "economics.ib_specialist_usd_per_year",
        Kind::Dec(0, 10_000_000),
        "InfiniBand specialist, USD per year.",
    ),
    p(
        "economics.gpus_per_network_fte",
        Kind::Dec(1, 1_000_000),
        "GPUs per network engineer FTE.",
    ),
    p(
        "economics.gpus_per_ib_specialist",
        Kind::Dec(1, 1_000_000),
        "GPUs per InfiniBand specialist FTE.",
    ),
    p(
        "economics.spares_rate",
        Kind::Dec(0, 1),
        "Spare parts per year, share of hardware capex.",
    ),
    p(
        "economics.gpu_hour_usd",
        Kind::Dec(0, 1000),
        "Value of one GPU-hour, USD.",
    ),
    p(
        "economics.gpu_hour_basis",
        Kind::Enum(&["owned", "rental"]),
        "How the default GPU-hour value is derived.",
    ),
    p(
        "economics.ufm_usd_per_endpoint_per_year",
        Kind::Dec(0, 100_000),
        "UFM subscription, USD per endpoint per year.",
    ),
    p(
        "economics.ethernet_nos_usd_per_switch_per_year",
        Kind::Dec(0, 1_000_000),
        "Ethernet NOS, USD per switch per year.",
    ),
];

/// Map-valued inputs: `<prefix><key>=<decimal>`.
pub const MAP_PREFIXES: &[&str] = &[
    "prices.overrides.",
    "prices.discounts.vendor.",
    "prices.discounts.category.",
];

/// Text added to each operation's description about how the query maps to the request.
pub const QUERY_HELP: &str = "Inputs are the JSON field names of the plan request; nested fields use dots \
(`economics.years=5`), lists are repeated or comma-separated (`fabrics=infiniband,roce`), price maps use dots \
too (`prices.overrides.nvidia-qm9700=42000`, `prices.discounts.vendor.NVIDIA=0.15`, \
`prices.discounts.category.optic=0.3`). An empty value means \"not given\" (the default applies). Unknown \
parameters are ignored (cache busters such as `_=123`); a parameter given twice is an error. The query string \
is limited to 8 KiB.";

/// The query's (name, value) pairs, decoded.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub pairs: Vec<(String, String)>,
}

impl Query {
    /// Decodes the request's query string (limit [`MAX_QUERY_BYTES`]).
    pub fn from_request(req: &HttpRequest) -> Result<Query, ApiError> {
        Query::parse(req.query_string())
    }

    pub fn parse(qs: &str) -> Result<Query, ApiError> {
        if qs.len() > MAX_QUERY_BYTES {
            return Err(ApiError::new(
                StatusCode::URI_TOO_LONG,
                "uri_too_long",
                "URI too long",
                format!(
                    "the query string is {} bytes; at most {MAX_QUERY_BYTES} are accepted",
                    qs.len()
                ),
            ));
        }
        let pairs = actix_web::web::Query::<Vec<(String, String)>>::from_query(qs)
            .map_err(|e| ApiError::malformed(format!("the query string cannot be decoded: {e}")))?
            .into_inner();
        Ok(Query { pairs })
    }

    /// The single value of a non-plan parameter (`format`, `metric`, …); empty = absent.
    pub fn single(&self, name: &str) -> Result<Option<&str>, ApiError> {
        let mut found: Option<&str> = None;
        for (k, v) in &self.pairs {
            if k == name && !v.trim().is_empty() {
                if found.is_some() {
                    return Err(duplicate(name));
                }
                found = Some(v.trim());
            }
        }
        Ok(found)
    }

    /// The plan request as JSON (only plan parameters; everything else is ignored).
    pub fn plan_json(&self) -> Result<Value, ApiError> {
        let mut root = Map::new();
        for (name, raw) in &self.pairs {
            let raw = raw.trim();
            if raw.is_empty() {
                continue;
            }
            if let Some(spec) = PLAN_PARAMS.iter().find(|s| s.name == name) {
                let path: Vec<&str> = spec.name.split('.').collect();
                if let Kind::Fabrics = spec.kind {
                    if let Some(list) = entry_array(&mut root, &path) {
                        list.extend(
                            raw.split(',')
                                .map(str::trim)
                                .filter(|s| !s.is_empty())
                                .map(|s| Value::String(s.to_string())),
                        );
                    }
                    continue;
                }
                set(&mut root, &path, typed(spec.kind, raw), name)?;
            } else if let Some((prefix, key)) = MAP_PREFIXES
                .iter()
                .find_map(|p| name.strip_prefix(p).map(|k| (*p, k)))
                && !key.is_empty()
            {
                let mut path: Vec<&str> = prefix.trim_end_matches('.').split('.').collect();
                path.push(key);
                set(&mut root, &path, typed(Kind::Dec(0, 0), raw), name)?;
            }
        }
        Ok(Value::Object(root))
    }
}

fn duplicate(name: &str) -> ApiError {
    ApiError::field(
        &pointer_of(name),
        "duplicate",
        format!("query parameter '{name}' is given more than once"),
    )
}

/// `economics.years` → `/economics/years`.
pub fn pointer_of(name: &str) -> String {
    let mut out = String::new();
    for seg in name.split('.') {
        out.push('/');
        out.push_str(&seg.replace('~', "~0").replace('/', "~1"));
    }
    out
}

/// `/economics/years` → `economics.years`.
fn param_of(pointer: &str) -> String {
    pointer
        .trim_start_matches('/')
        .split('/')
        .map(|s| s.replace("~1", "/").replace("~0", "~"))
        .collect::<Vec<_>>()
        .join(".")
}

/// The object at `parents` (created as needed; a non-object in the way is replaced).
fn object_at<'a>(
    root: &'a mut Map<String, Value>,
    parents: &[&str],
) -> Option<&'a mut Map<String, Value>> {
    let mut cur = root;
    for seg in parents {
        let v = cur
            .entry(seg.to_string())
            .or_insert_with(|| Value::Object(Map::new()));
        if !v.is_object() {
            *v = Value::Object(Map::new());
        }
        cur = match v {
            Value::Object(m) => m,
            _ => return None,
        };
    }
    Some(cur)
}

fn entry_array<'a>(root: &'a mut Map<String, Value>, path: &[&str]) -> Option<&'a mut Vec<Value>> {
    let (last, parents) = path.split_last()?;
    let v = object_at(root, parents)?
        .entry(last.to_string())
        .or_insert_with(|| Value::Array(Vec::new()));
    if !v.is_array() {
        *v = Value::Array(Vec::new());
    }
    match v {
        Value::Array(a) => Some(a),
        _ => None,
    }
}

fn set(
    root: &mut Map<String, Value>,
    path: &[&str],
    value: Value,
    name: &str,
) -> Result<(), ApiError> {
    let Some((last, parents)) = path.split_last() else {
        return Ok(());
    };
    let Some(obj) = object_at(root, parents) else {
        return Ok(());
    };
    if obj.contains_key(*last) {
        return Err(duplicate(name));
    }
    obj.insert(last.to_string(), value);
    Ok(())
}

/// Types a query value by the field's kind; a value that does not fit is passed on as a string
/// so the JSON parser reports it (422 naming the field).
fn typed(kind: Kind, raw: &str) -> Value {
    match kind {
        Kind::Int(..) | Kind::OneOf(_) => {
            if let Ok(n) = raw.parse::<u64>() {
                Value::from(n)
            } else if let Ok(n) = raw.parse::<i64>() {
                Value::from(n)
            } else {
                float_or_string(raw)
            }
        }
        Kind::Float(..) => float_or_string(raw),
        Kind::Dec(..) => match Decimal::from_str(raw).or_else(|_| Decimal::from_scientific(raw)) {
            Ok(d) => Value::String(d.to_string()),
            Err(_) => Value::String(raw.to_string()),
        },
        Kind::Bool => match raw.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => Value::Bool(true),
            "false" | "0" | "no" => Value::Bool(false),
            _ => Value::String(raw.to_string()),
        },
        Kind::Ident(_) | Kind::Enum(_) | Kind::Fabrics => Value::String(raw.to_string()),
    }
}

fn float_or_string(raw: &str) -> Value {
    raw.parse::<f64>()
        .ok()
        .filter(|f| f.is_finite())
        .and_then(serde_json::Number::from_f64)
        .map(Value::Number)
        .unwrap_or_else(|| Value::String(raw.to_string()))
}

/// A plan request from its JSON value: the same `parse_json` + `validate` as a POST body.
pub fn request_from_json(v: &Value) -> Result<PlanRequest, ApiError> {
    let bytes = serde_json::to_vec(v).map_err(|e| ApiError::internal(&e))?;
    let req = parse_json::<PlanRequest>(&bytes)?;
    validate(&req)?;
    Ok(req)
}

/// Plans from the query: parse, validate, build or recall (errors name the query parameter).
pub fn plan_from_query(q: &Query, state: &AppState) -> Result<Arc<CachedPlan>, ApiError> {
    let json = q.plan_json()?;
    let req = request_from_json(&json).map_err(name_params)?;
    crate::api::plan_for(state, &req)
        .map_err(ApiError::from)
        .map_err(name_params)
}

/// Adds the query parameter's name to each field error's detail.
pub fn name_params(e: ApiError) -> ApiError {
    let p = e.problem();
    if p.status != 422 || p.errors.is_empty() {
        return e;
    }
    let errors = p
        .errors
        .iter()
        .map(|f| FieldError {
            pointer: f.pointer.clone(),
            code: f.code.clone(),
            detail: format!("query parameter '{}': {}", param_of(&f.pointer), f.detail),
        })
        .collect();
    let extra = p.extra.clone();
    let out = ApiError::validation(errors);
    match extra {
        Some(x) => out.with_extra(x),
        None => out,
    }
}

// ---- OpenAPI ----

fn param(name: &str, required: bool, description: &str, schema: Schema) -> Parameter {
    ParameterBuilder::new()
        .name(name)
        .parameter_in(ParameterIn::Query)
        .required(if required {
            Required::True
        } else {
            Required::False
        })
        .description(Some(description))
        .schema(Some(schema))
        .build()
}

fn schema_of(kind: Kind) -> Schema {
    match kind {
        Kind::Int(min, max) => ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::Integer))
            .minimum(Some(min as f64))
            .maximum(Some(max as f64))
            .into(),
        Kind::OneOf(vals) => ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::Integer))
            .enum_values(Some(vals.iter().copied()))
            .into(),
        Kind::Float(min, max) => ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::Number))
            .minimum(Some(min))
            .maximum(Some(max))
            .into(),
        Kind::Dec(min, max) => ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::Number))
            .minimum(Some(min as f64))
            .maximum(Some(max as f64))
            .into(),
        Kind::Bool => ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::Boolean))
            .into(),
        Kind::Ident(max) => ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::String))
            .min_length(Some(1))
            .max_length(Some(max))
            .pattern(Some("^[A-Za-z0-9._-]+$"))
            .into(),
        Kind::Enum(words) => ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::String))
            .enum_values(Some(words.iter().copied()))
            .into(),
        Kind::Fabrics => ArrayBuilder::new()
            .items(
                ObjectBuilder::new()
                    .schema_type(SchemaType::new(Type::String))
                    .enum_values(Some(["infiniband", "roce", "roce_adaptive"])),
            )
            .min_items(Some(1))
            .max_items(Some(3))
            .unique_items(true)
            .into(),
    }
}

/// The OpenAPI parameters of every plan input.
pub fn plan_parameters() -> Vec<Parameter> {
    PLAN_PARAMS
        .iter()
        .map(|s| {
            let mut prm = param(s.name, s.name == "gpus", s.doc, schema_of(s.kind));
            if let Kind::Fabrics = s.kind {
                prm.style = Some(ParameterStyle::Form);
                prm.explode = Some(true);
            }
            prm
        })
        .collect()
}

/// An OpenAPI query parameter for a non-plan input.
pub fn extra_param(name: &str, required: bool, description: &str, kind: Kind) -> Parameter {
    param(name, required, description, schema_of(kind))
}

/// An OpenAPI query parameter with a list of allowed words.
pub fn enum_param(name: &str, required: bool, description: &str, words: &[&str]) -> Parameter {
    param(
        name,
        required,
        description,
        ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::String))
            .enum_values(Some(words.iter().copied()))
            .into(),
    )
}

/// An OpenAPI query parameter holding text that matches `pattern`.
pub fn pattern_param(name: &str, description: &str, pattern: &str, max: usize) -> Parameter {
    param(
        name,
        false,
        description,
        ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::String))
            .min_length(Some(1))
            .max_length(Some(max))
            .pattern(Some(pattern))
            .into(),
    )
}

/// `format`: `json` (default) or `csv`.
pub fn format_param() -> Parameter {
    extra_param(
        "format",
        false,
        "`csv` for CSV (also `Accept: text/csv`); `json` (default).",
        Kind::Enum(&["json", "csv"]),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dotted_names_nest_and_values_are_typed() {
        let q = Query::parse(
            "gpus=1024&economics.years=5&topology.oversubscription=2&fabrics=infiniband,roce\
             &prices.overrides.nvidia-qm9700=42000&topology.rail_optimized=FALSE&_=123&gpu_model=",
        )
        .unwrap_or_default();
        let v = q.plan_json().unwrap_or_default();
        assert_eq!(
            v,
            serde_json::json!({
                "gpus": 1024, "economics": {"years": 5}, "topology": {"oversubscription": 2.0, "rail_optimized": false},
                "fabrics": ["infiniband", "roce"], "prices": {"overrides": {"nvidia-qm9700": "42000"}}
            })
        );
    }

    #[test]
    fn repeated_scalar_is_an_error_and_repeated_list_appends() {
        let q = Query::parse("gpus=1&gpus=2").unwrap_or_default();
        assert!(q.plan_json().is_err());
        let q = Query::parse("fabrics=roce&fabrics=infiniband").unwrap_or_default();
        let v = q.plan_json().unwrap_or_default();
        assert_eq!(v["fabrics"], serde_json::json!(["roce", "infiniband"]));
    }

    #[test]
    fn long_query_is_rejected() {
        let long = "a=".to_string() + &"x".repeat(MAX_QUERY_BYTES);
        assert!(Query::parse(&long).is_err());
    }
}

/// The query-parameter table repeats the bounds that `PlanRequest` declares for validation
/// and OpenAPI; this keeps the two from drifting apart (sweep ranges are checked against the
/// table, request validation against `PlanRequest`).
#[cfg(test)]
mod bounds_match_the_request_schema {
    use super::*;

    fn resolve<'a>(doc: &'a Value, mut s: &'a Value) -> &'a Value {
        loop {
            if let Some(r) = s.get("$ref").and_then(Value::as_str) {
                let name = r.rsplit('/').next().unwrap_or("");
                s = &doc["components"]["schemas"][name];
                continue;
            }
            let variants = ["allOf", "oneOf", "anyOf"]
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
    }

    #[test]
    fn every_numeric_parameter_has_the_request_fields_bounds() {
        let doc = serde_json::to_value(crate::api::openapi_document()).expect("doc");
        let mut checked = 0;
        for spec in PLAN_PARAMS {
            // Decimal inputs are strings in the schema (their bounds live in validator
            // functions), so only integer and float inputs are compared.
            let (lo, hi) = match spec.kind {
                Kind::Int(a, b) => (a as f64, b as f64),
                Kind::Float(a, b) => (a, b),
                _ => continue,
            };
            let mut s = &doc["components"]["schemas"]["PlanRequest"];
            for seg in spec.name.split('.') {
                s = resolve(&doc, &resolve(&doc, s)["properties"][seg]);
            }
            let min = s["minimum"].as_f64();
            let max = s["maximum"].as_f64();
            assert_eq!(
                (min, max),
                (Some(lo), Some(hi)),
                "{}: query table says {lo}..={hi}, PlanRequest schema says {min:?}..={max:?}",
                spec.name
            );
            checked += 1;
        }
        assert!(checked > 10, "only {checked} numeric parameters checked");
    }
}
