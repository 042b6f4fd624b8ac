//! Query string → plan request. The (name, value) pairs are deserialised straight into the typed
//! [`PlanRequest`] by [`de`] (dotted names nest; values are typed by the field), so a
//! GET goes through the same `Deserialize` impls, bounds, unknown-field rules and `validate` as
//! a POST body.
//!
//! The OpenAPI query parameters are derived from the `PlanRequest` schema itself
//! ([`plan_params`]): one declaration per input (see `plan::bounded`) gives the body schema, the
//! GET parameters and the sweep axes.

use std::sync::Arc;

use actix_web::HttpRequest;
use serde_json::Value;
use utoipa::openapi::path::{Parameter, ParameterBuilder, ParameterIn, ParameterStyle};
use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
use utoipa::openapi::{RefOr, Required, Schema};

pub mod de;
pub mod pairs;

use crate::api::AppState;
use crate::api::error::{ApiError, ErrorCode, FieldError};
use crate::api::extract::{data_error, from_value, validate};
use crate::plan::PlanRequest;
use crate::plan::cache::CachedPlan;
pub use crate::plan::registry::{Numeric, ParamSpec, plan_params};
use de::{BadName, GIVEN_TWICE, MAX_NAME_PARTS, Node};

/// Longest query string accepted, bytes (8 KiB; Excel caps whole URLs at 2,048 characters).
pub const MAX_QUERY_BYTES: usize = 8 * 1024;

/// The type of a non-plan query parameter (`steps`, `from`, `format`, …) in OpenAPI.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// Integer with inclusive bounds.
    Int(i64, i64),
    /// Floating-point number with inclusive bounds.
    Float(f64, f64),
    /// One of these words.
    Enum(&'static [&'static str]),
}

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
`prices.discounts.category.optic=0.3`), uncertainty ranges too \
(`uncertainty.inputs.economics.gpu_hour_usd=1.5,2.5,4` for low,mode,high; `uncertainty.inputs.prices.list.nvidia-sn5600=30000,45000` \
for low,high). An empty value means \"not given\" (the default applies). An unknown \
parameter is a 422 naming it (a misspelt name must not silently give the default), except names beginning \
with `_`, which are ignored (cache busters such as `_=123`); a parameter given twice is an error. The query \
string is limited to 8 KiB.";

/// Every `%` starts two hex digits, and the decoded bytes are UTF-8.
fn check_encoding(qs: &str) -> Result<(), String> {
    let b = qs.as_bytes();
    if !b.contains(&b'%') {
        return Ok(());
    }
    let mut decoded = Vec::with_capacity(b.len());
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        if c != b'%' {
            decoded.push(c);
            i += 1;
            continue;
        }
        let byte = match b.get(i + 1..i + 3) {
            Some(&[h, l]) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit() => {
                std::str::from_utf8(&[h, l])
                    .ok()
                    .and_then(|x| u8::from_str_radix(x, 16).ok())
            }
            _ => None,
        };
        let Some(byte) = byte else {
            let at: String = qs[i..].chars().take(3).collect();
            return Err(format!(
                "invalid percent-encoding '{at}' at character {} (a '%' must start two hex digits; write a literal '%' as %25)",
                qs[..i].chars().count() + 1
            ));
        };
        decoded.push(byte);
        i += 3;
    }
    std::str::from_utf8(&decoded).map(|_| ()).map_err(|e| {
        format!(
            "the percent-encoded bytes are not UTF-8 (after {} valid bytes)",
            e.valid_up_to()
        )
    })
}

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
                ErrorCode::UriTooLong,
                format!(
                    "the query string is {} bytes; at most {MAX_QUERY_BYTES} are accepted",
                    qs.len()
                ),
            ));
        }
        // The decoder below is lossy (a stray `%` stays literal, bad UTF-8 becomes U+FFFD):
        // a value that cannot be decoded is refused rather than read as something else.
        check_encoding(qs)
            .map_err(|e| ApiError::malformed(format!("the query string cannot be decoded: {e}")))?;
        let pairs = actix_web::web::Query::<Vec<(String, String)>>::from_query(qs)
            .map_err(|e| ApiError::malformed(format!("the query string cannot be decoded: {e}")))?
            .into_inner();
        Ok(Query { pairs })
    }

    /// The query of a POST, whose input is its body: `format` (as on GET) and cache busters
    /// (names beginning with `_`) only; any other parameter is a 422 naming it, not silently
    /// ignored (`?gpus=9` beside a body of 64 GPUs, or a misspelt `foramt=csv`).
    pub fn for_post(req: &HttpRequest) -> Result<Query, ApiError> {
        let q = Query::from_request(req)?;
        if let Some((k, _)) = q
            .pairs
            .iter()
            .find(|(k, _)| k != "format" && !k.starts_with('_'))
        {
            return Err(ApiError::field(
                &pointer_of(k),
                ErrorCode::UnknownField,
                format!(
                    "query parameter '{k}' is not read by a POST, whose input is its body (a POST takes only 'format' and names beginning with '_')"
                ),
            ));
        }
        Ok(q)
    }

    /// Whether the query gives an `uncertainty.*` parameter a value (the plan carries an
    /// analysis). An empty value is no value (the report form's "Off" sends
    /// `uncertainty.samples=`), as everywhere in a query.
    pub fn asks_analysis(&self) -> bool {
        self.pairs
            .iter()
            .any(|(k, v)| k.starts_with("uncertainty.") && !v.trim().is_empty())
    }

    /// Asks for the default uncertainty analysis (the catalog's price ranges) when the query
    /// names no `uncertainty.*` parameter: a tornado chart or an `uncertainty.*` metric needs one.
    pub fn ensure_analysis(&mut self) {
        if !self.asks_analysis() {
            self.pairs
                .push(("uncertainty.catalog_price_ranges".into(), "true".into()));
        }
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

    /// The plan request from every parameter but the endpoint's own (`own`) and cache busters
    /// (names beginning with `_`): typed, bounded and validated like a POST body; an unknown
    /// parameter is a 422 naming it.
    pub fn plan_request(&self, own: &[&str]) -> Result<PlanRequest, ApiError> {
        self.typed_request(own, true)
    }

    /// [`Self::plan_request`]; `check_names: false` skips the check of names against the schema
    /// (unknown, missing) for pairs already checked once (a sweep's base with a new value of an
    /// input it names): serde still refuses unknown names, only the wording is less precise.
    pub fn typed_request(&self, own: &[&str], check_names: bool) -> Result<PlanRequest, ApiError> {
        self.typed(|k| !k.starts_with('_') && !own.contains(&k), check_names)
    }

    /// The pairs whose names `keep` selects, typed as `T` through the same `Deserialize`
    /// impls, shape check (`check_names`) and `validate` as a JSON body of `T`; errors name
    /// the query parameter.
    pub fn typed<T>(&self, keep: impl Fn(&str) -> bool, check_names: bool) -> Result<T, ApiError>
    where
        T: serde::de::DeserializeOwned + validator::Validate + crate::api::shape::Shaped,
    {
        let node = Node::build(
            self.pairs
                .iter()
                .filter(|(k, _)| keep(k))
                .map(|(k, v)| (k.as_str(), v.as_str())),
        )
        .map_err(|bad| match bad {
            BadName::Conflict(name) => ApiError::field(
                &pointer_of(&name),
                ErrorCode::InvalidType,
                format!("'{name}' is both a value and a group of parameters"),
            ),
            BadName::TooDeep(name) => ApiError::field(
                &pointer_of(name.split('.').next().unwrap_or_default()),
                ErrorCode::UnknownField,
                format!(
                    "'{}…' has {} dot-separated parts; a parameter name has at most \
                     {MAX_NAME_PARTS}",
                    name.chars().take(48).collect::<String>(),
                    name.split('.').count()
                ),
            ),
        })?;
        if check_names {
            T::shape().check(&node.structure()).map_err(name_params)?;
        }
        // Typed without tracking the path first (a sweep types a request per point); only a
        // request that fails is typed again with the path, which names the parameter at fault
        // (the same `Deserialize`, so the same verdict and the same error as before).
        let req = match T::deserialize(&node) {
            Ok(r) => Ok(r),
            Err(_) => serde_path_to_error::deserialize::<_, T>(&node),
        };
        let req = match req {
            Ok(r) => r,
            Err(e) => {
                let pointer = input_key_pointer(crate::api::extract::path_to_pointer(e.path()));
                let msg = e.into_inner().to_string();
                let err = if msg == GIVEN_TWICE {
                    ApiError::field(&pointer, ErrorCode::DuplicateKey, "given more than once")
                } else {
                    data_error(&pointer, &msg)
                };
                return Err(name_params(err));
            }
        };
        validate(&req).map_err(name_params)?;
        Ok(req)
    }
}

fn duplicate(name: &str) -> ApiError {
    ApiError::field(
        &pointer_of(name),
        ErrorCode::DuplicateKey,
        format!("query parameter '{name}' is given more than once"),
    )
}

/// An uncertain input's error at the input's name, as its map key: the query's dotted name is
/// read as nested groups (`/uncertainty/inputs/economics/gpu_hour_usd`), while a range's own
/// checks name the key (`/uncertainty/inputs/economics.gpu_hour_usd`); one form for both.
fn input_key_pointer(pointer: String) -> String {
    const INPUTS: &str = "/uncertainty/inputs/";
    match pointer.strip_prefix(INPUTS) {
        Some(rest) if rest.contains('/') => format!("{INPUTS}{}", rest.replace('/', ".")),
        _ => pointer,
    }
}

/// `economics.years` → `/economics/years` (RFC 6901 escaping).
pub fn pointer_of(name: &str) -> String {
    let mut out = String::new();
    for seg in name.split('.') {
        out.push('/');
        out.push_str(&crate::error_code::escape_pointer(seg));
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

/// A plan request from a JSON value (a sweep point): the same typing and `validate` as a POST
/// body, without serialising and parsing again.
pub fn request_from_json(v: &Value) -> Result<PlanRequest, ApiError> {
    use crate::api::shape::Shaped;
    PlanRequest::shape().check(v)?;
    let req = from_value::<PlanRequest>(v.clone())?;
    validate(&req)?;
    Ok(req)
}

/// Plans from the query: parse, validate, build or recall (errors name the query parameter).
pub async fn plan_from_query(
    q: &Query,
    own: &[&str],
    state: &AppState,
) -> Result<Arc<CachedPlan>, ApiError> {
    plan_from_query_at(q, own, state, crate::plan::Detail::Full).await
}

/// [`plan_from_query`] at `detail` (see [`crate::api::plan_at`]).
pub async fn plan_from_query_at(
    q: &Query,
    own: &[&str],
    state: &AppState,
    detail: crate::plan::Detail,
) -> Result<Arc<CachedPlan>, ApiError> {
    let req = q.plan_request(own)?;
    crate::api::plan_at(state, &req, detail)
        .await
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
            code: f.code,
            detail: if f.detail.starts_with("query parameter") {
                f.detail.clone()
            } else {
                format!("query parameter '{}': {}", param_of(&f.pointer), f.detail)
            },
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

fn param(
    name: &str,
    required: bool,
    description: &str,
    schema: impl Into<RefOr<Schema>>,
) -> Parameter {
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
        Kind::Float(min, max) => ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::Number))
            .minimum(Some(min))
            .maximum(Some(max))
            .into(),
        Kind::Enum(words) => ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::String))
            .enum_values(Some(words.iter().copied()))
            .into(),
    }
}

/// The OpenAPI parameters of every plan input (each with its body schema).
pub fn plan_parameters() -> Vec<Parameter> {
    let mut v: Vec<Parameter> = plan_params()
        .iter()
        .filter_map(|s| param_from_schema(&s.name, s.required, &s.doc, s.schema.clone()))
        .collect();
    // Swagger's "Try it out" fills the one required input in: it runs as it opens.
    if let Some(p) = v.iter_mut().find(|p| p.name == "gpus") {
        *p = with_example(p.clone(), Value::from(1024));
    }
    v
}

/// `p` with an example value (Swagger's "Try it out" fills it in).
#[allow(deprecated)]
pub fn with_example(p: Parameter, example: Value) -> Parameter {
    utoipa::openapi::path::ParameterBuilder::from(p)
        .example(Some(example))
        .build()
}

/// A query parameter with a body field's JSON schema; a list is repeated or comma-separated.
pub fn param_from_schema(
    name: &str,
    required: bool,
    doc: &str,
    schema: Value,
) -> Option<Parameter> {
    let list = match schema.get("type") {
        Some(Value::Array(types)) => types.contains(&Value::from("array")),
        t => t == Some(&Value::from("array")),
    };
    let schema: RefOr<Schema> = serde_json::from_value(schema).ok()?;
    let mut prm = param(name, required, doc, schema);
    if list {
        prm.style = Some(ParameterStyle::Form);
        prm.explode = Some(true);
    }
    Some(prm)
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
            .enum_values(Some(words.iter().copied())),
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
            .pattern(Some(pattern)),
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

/// `format` of a plan or a sweep: [`format_param`]'s, and `xlsx` for a workbook.
pub fn plan_format_param() -> Parameter {
    extra_param(
        "format",
        false,
        "`csv` for CSV (also `Accept: text/csv`); `xlsx` for a workbook (also `Accept: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`): a plan's with live formulas, a sweep's rows as values (docs/spreadsheets.md, \"Workbook\"); `json` (default).",
        Kind::Enum(&["json", "csv", "xlsx"]),
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
        let r = q.plan_request(&[]).map_err(|e| e.to_string());
        let v = r.map(|r| serde_json::to_value(r).unwrap_or_default());
        let v = v.unwrap_or_default();
        assert_eq!(v["gpus"], 1024);
        assert_eq!(v["economics"]["years"], 5);
        assert_eq!(v["topology"]["oversubscription"], 2.0);
        assert_eq!(v["topology"]["rail_optimized"], false);
        assert_eq!(v["fabrics"], serde_json::json!(["infiniband", "roce"]));
        assert_eq!(v["prices"]["overrides"]["nvidia-qm9700"], "42000");
        assert_eq!(v["gpu_model"], Value::Null);
    }

    #[test]
    fn repeated_scalar_and_unknown_names_are_errors() {
        let q = Query::parse("gpus=1&gpus=2").unwrap_or_default();
        assert!(q.plan_request(&[]).is_err());
        let q = Query::parse("gpus=8&fabrics=roce&fabrics=infiniband").unwrap_or_default();
        let r = q.plan_request(&[]).ok().and_then(|r| r.fabrics);
        assert_eq!(r.map(|v| v.len()), Some(2));
        let q = Query::parse("gpus=8&economics.yeras=3").unwrap_or_default();
        let e = q
            .plan_request(&[])
            .err()
            .map(|e| e.problem().errors[0].pointer.clone());
        assert_eq!(e.as_deref(), Some("/economics/yeras"));
        let q = Query::parse("gpus=8&format=csv").unwrap_or_default();
        assert!(q.plan_request(&[]).is_err());
        assert!(q.plan_request(&["format"]).is_ok());
    }

    #[test]
    fn long_query_is_rejected() {
        let long = "a=".to_string() + &"x".repeat(MAX_QUERY_BYTES);
        assert!(Query::parse(&long).is_err());
    }

    #[test]
    fn parameters_come_from_the_request_schema() {
        let names: Vec<&str> = plan_params().iter().map(|p| p.name.as_str()).collect();
        for n in [
            "gpus",
            "economics.years",
            "economics.pue",
            "topology.cabling.node_leaf.cable",
            "workload.bucket_mb",
            "fabrics",
        ] {
            assert!(names.contains(&n), "{n} missing from {names:?}");
        }
        let pue = plan_params().iter().find(|p| p.name == "economics.pue");
        assert_eq!(
            pue.and_then(|p| p.numeric.clone())
                .map(|n| (n.min, n.max, n.decimal)),
            Some((1.0, 3.0, true))
        );
        let years = plan_params().iter().find(|p| p.name == "economics.years");
        assert!(years.is_some_and(
            |p| p.doc.contains("years") && p.numeric.as_ref().is_some_and(|n| n.integer)
        ));
        assert!(plan_params().iter().any(|p| p.name == "gpus" && p.required));
    }
}
