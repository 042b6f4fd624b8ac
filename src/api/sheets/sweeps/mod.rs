//! The HTTP side of sweeps (`GET` and `POST /v1/sweeps`): reads the axes from the query or
//! the body, checks that each names a numeric plan input (the inputs and their domains are
//! derived from the request schema), and makes the plan at each point from the base request's
//! (name, value) pairs plus the point's values, through the same typed parse and `validate` as
//! `GET /v1/plans`. The sweep itself — values, grid, crossovers, bisection, the plan cap — is
//! plain code in [`crate::plan::sweep`].
//!
//! A value that cannot be planned (out of range, beyond the tier ceiling, …) fails the whole
//! sweep with a 422 naming the input and the value: a chart with silent holes would mislead.

mod axes;
mod encode;

use axes::{Checked, axes, bad, in_whole_domains, numeric_names, repoint, sweep_error};
use encode::{render, sweep_json};

use crate::api::heavy;
use crate::error_code::ErrorCode;
use std::sync::Arc;
use std::time::{Duration, Instant};

use actix_web::{HttpRequest, HttpResponse, get, post, web};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::{IntoParams, ToSchema};
use validator::Validate;

use crate::api::AppState;
use crate::api::error::ApiError;
use crate::api::extract::ValidJson;
use crate::api::query::{
    self, Numeric, Query, name_params, plan_parameters, pointer_of, request_from_json,
};
use crate::api::responses::{BodyProblems, Busy, NotModified, QueryProblems, SweepInvalid};
use crate::catalog::CatalogSet;
use crate::plan::sweep::{self, Crossover, RunError, Scale, SweepRow};
use crate::plan::{self, PlanRequest};
use crate::table::{NamedSweepRow, NamedValue, NamedValues};

/// A sweep: a base plan request and the input to vary.
#[derive(Debug, Clone, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"base": {"gpus": 1024, "fabrics": ["infiniband", "roce"]}, "vary": "gpus", "from": 256, "to": 16384, "steps": 8, "scale": "geometric"}))]
pub struct SweepRequest {
    /// The plan request every value starts from (its value of `vary` is replaced). In
    /// `GET /v1/sweeps` the plan inputs are the other query parameters.
    #[serde(default)]
    #[schema(value_type = PlanRequest, required = true)]
    pub base: Value,
    /// The numeric plan input to vary, by its query-parameter name (`gpus`,
    /// `economics.years`, `economics.gpu_hour_usd`, `topology.oversubscription`, …), or a keyed
    /// price input (`prices.overrides.<sku>`, `prices.discounts.vendor.<vendor>`,
    /// `prices.discounts.category.<category>`).
    // A keyed name: `prices.discounts.category.` and a 64-character key.
    #[validate(length(min = 1, max = 128))]
    #[schema(min_length = 1, max_length = 128, example = "gpus")]
    pub vary: String,
    /// First value of the range (with `to` and `steps`; ignored when `values` is given).
    #[schema(example = 256)]
    pub from: Option<f64>,
    /// Last value of the range.
    #[schema(example = 16384)]
    pub to: Option<f64>,
    /// Number of values in the range, 2–10000. Default 8.
    #[validate(range(min = 2, max = 10000))]
    #[schema(minimum = 2, maximum = 10000, example = 8)]
    pub steps: Option<u32>,
    /// `linear` (default) or `geometric`.
    pub scale: Option<Scale>,
    /// Explicit values (sorted ascending, duplicates removed), instead of a range.
    #[validate(length(min = 1, max = 10000))]
    #[schema(min_items = 1, max_items = 10000)]
    pub values: Option<Vec<f64>>,
    /// A second numeric input, for a grid (every value of `vary` at every value of `vary2`);
    /// crossovers are found along `vary` at each value of `vary2`. At most 10,000 grid points.
    #[validate(length(min = 1, max = 128))]
    #[schema(min_length = 1, max_length = 128, example = "economics.gpu_hour_usd")]
    pub vary2: Option<String>,
    /// First value of the second input's range.
    pub from2: Option<f64>,
    /// Last value of the second input's range.
    pub to2: Option<f64>,
    /// Number of values of the second input, 2–10000. Default 8.
    #[validate(range(min = 2, max = 10000))]
    #[schema(minimum = 2, maximum = 10000)]
    pub steps2: Option<u32>,
    /// Spacing of the second input's range.
    pub scale2: Option<Scale>,
    /// Explicit values of the second input, instead of a range.
    #[validate(length(min = 1, max = 10000))]
    #[schema(min_items = 1, max_items = 10000)]
    pub values2: Option<Vec<f64>>,
}

/// A sweep's result.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct SweepResult {
    /// The varied input.
    pub vary: String,
    /// The second varied input (grids only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub vary2: Option<String>,
    /// What every row's plan says, said once (the catalog's placeholder operating figures, a
    /// varied input the request also fixes, flat lines, anything else all points share); a
    /// row's `warnings` has the rest. In CSV each row's `warnings` cell carries them, after a
    /// crossover's sentence and before the row's own.
    pub warnings: Vec<String>,
    /// A row per value and fabric (per grid point and fabric for grids).
    #[schema(value_type = Vec<SweepRow>)]
    pub rows: Vec<NamedSweepRow>,
    /// The values where the cheapest fabric changes.
    pub crossovers: Vec<Crossover>,
    /// Plans computed (grid and bisection).
    pub plans_computed: usize,
    /// What the sweep as a whole says, in few words, for the chart's legend (`warnings` begins
    /// with it in full).
    #[serde(skip)]
    pub notes: Vec<String>,
}

impl SweepResult {
    /// The rows as CSV ([`crate::table::sweep_csv`]).
    fn csv(&self) -> String {
        crate::table::sweep_csv(
            &self.vary,
            self.vary2.as_deref(),
            &self.warnings,
            &self.rows,
            &self.crossovers,
        )
    }
}

impl crate::api::responses::Sheet for SweepResult {
    const DESCRIPTION: &'static str = "Rows and crossovers (JSON), or the rows as CSV, or a workbook of rows, crossovers and warnings.";
}

/// The sweep's own query parameters: `SweepRequest`'s fields but `base`.
pub(crate) fn own_params() -> &'static [String] {
    static NAMES: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        use crate::api::shape::Shaped;
        let props = SweepRequest::shape().root()["properties"].as_object();
        props
            .into_iter()
            .flat_map(|m| m.keys().cloned())
            .filter(|k| k != "base")
            .collect()
    })
}

/// A value as query text, typed by the input: integers as integers, decimals in plain
/// decimal notation, floats as Rust prints them (shortest round trip).
fn value_text(kind: &Numeric, v: f64) -> String {
    if kind.integer {
        format!("{}", v as i64)
    } else if kind.decimal {
        crate::plan::bounded::decimal_from_f64(v)
            .map(|d| d.normalize().to_string())
            .unwrap_or_else(|| v.to_string())
    } else {
        v.to_string()
    }
}

/// Sets `value` at the dotted input name `name` of a JSON request (objects made as needed). A
/// keyed input's key is one member however many dots it holds
/// (`prices.discounts.vendor.FS.com-class`: the vendor `FS.com-class`).
fn set_path(req: &mut Value, name: &str, value: Value) {
    let mut cur = req;
    let (path, key) = match crate::plan::registry::keyed_input(name) {
        Some((spec, key)) => (spec.name.as_str(), Some(key)),
        None => (name, None),
    };
    let mut segs = path.split('.').chain(key).peekable();
    while let Some(seg) = segs.next() {
        if !cur.is_object() {
            *cur = Value::Object(serde_json::Map::new());
        }
        let Value::Object(m) = cur else { return };
        if segs.peek().is_none() {
            m.insert(seg.to_string(), value);
            return;
        }
        cur = m.entry(seg.to_string()).or_insert(Value::Null);
    }
}

impl crate::api::shape::Shaped for SweepRequest {
    fn shape() -> &'static crate::api::shape::Shape {
        static S: std::sync::OnceLock<crate::api::shape::Shape> = std::sync::OnceLock::new();
        S.get_or_init(crate::api::shape::Shape::of::<SweepRequest>)
    }
}

/// The base request of a sweep: the plan inputs as (name, value) pairs, without the varied
/// ones. Each point adds its values and goes through the same typed parse (bounded inputs,
/// unknown names, `validate`) as `GET /v1/plans`: a typed setter per input, no JSON patching.
#[derive(Debug, Clone)]
pub struct Base {
    pairs: Vec<(String, String)>,
    /// The varied inputs the request also gave a value (`gpus=1024` beside `vary=gpus`), as
    /// `name=value`: replaced at every point, and the answer says so.
    replaced: Vec<String>,
}

impl Base {
    /// The pairs with the axes removed; checked once with each axis at its first value (a
    /// sweep over `gpus` need not give `gpus`).
    fn new(pairs: Vec<(String, String)>, c: &Checked) -> Result<Base, ApiError> {
        if let Some((k, _)) = pairs.iter().find(|(k, _)| k.starts_with("uncertainty.")) {
            return Err(ApiError::field(
                &pointer_of(k),
                ErrorCode::InvalidSweep,
                "a sweep does not run uncertainty analyses (one per point would be thousands of \
                 plans each); ask for the analysis on the plan at the point you care about",
            ));
        }
        let axes: Vec<&str> = std::iter::once(c.spec.first.name.as_str())
            .chain(c.spec.second.as_ref().map(|a| a.name.as_str()))
            .collect();
        let (given, pairs): (Vec<_>, Vec<_>) = pairs
            .into_iter()
            .partition(|(k, _)| axes.contains(&k.as_str()));
        let base = Base {
            pairs,
            replaced: given.iter().map(|(k, v)| format!("{k}={v}")).collect(),
        };
        let first = c.spec.first.values.first().copied().unwrap_or(0.0);
        let second = c
            .spec
            .second
            .as_ref()
            .and_then(|a| a.values.first().copied());
        base.request(c, first, second, true)?;
        Ok(base)
    }

    /// The typed request at one point (`check_names`: see [`Query::typed_request`]).
    fn request(
        &self,
        c: &Checked,
        v: f64,
        v2: Option<f64>,
        check_names: bool,
    ) -> Result<PlanRequest, ApiError> {
        let mut q = Query {
            pairs: self.pairs.clone(),
        };
        q.pairs
            .push((c.spec.first.name.clone(), value_text(c.kinds.0, v)));
        if let (Some(b), Some(kb), Some(v2)) = (&c.spec.second, c.kinds.1, v2) {
            q.pairs.push((b.name.clone(), value_text(kb, v2)));
        }
        q.typed_request(&[], check_names)
    }
}

/// The plan at one point: the base request with the point's values, through the same typed
/// parse, validation and planning as a plan request; an error names the point.
fn plan_at(
    base: &Base,
    c: &Checked,
    catalogs: &CatalogSet,
    memo: Option<&mut plan::SizingMemo>,
    v: f64,
    v2: Option<f64>,
) -> Result<plan::Plan, ApiError> {
    // The point's label is written only for an error.
    let at_value = |e: ApiError| {
        let mut label = format!("{}={v}", c.spec.first.name);
        if let (Some(b), Some(v2)) = (&c.spec.second, v2) {
            label.push_str(&format!(", {}={v2}", b.name));
        }
        let p = e.problem();
        let first = p.errors.first();
        ApiError::field(
            &first
                .map(|f| f.pointer.clone())
                .unwrap_or_else(|| pointer_of(&c.spec.first.name)),
            first.map(|f| f.code).unwrap_or(p.code),
            format!(
                "at {label}: {}",
                first
                    .map(|f| f.detail.clone())
                    .unwrap_or_else(|| p.detail.clone())
            ),
        )
    };
    // An error at a varied input is the sweep's: its `vary` (or `vary2`) took it there.
    let at_axis = |e: ApiError| {
        c.to_axis(at_value(e), |i| {
            if i == 0 { "/vary" } else { "/vary2" }.to_string()
        })
    };
    let r = base.request(c, v, v2, false).map_err(at_axis)?;
    plan::build_with(
        &r,
        catalogs,
        plan::Effort::default(),
        memo,
        plan::Detail::Figures,
    )
    .map_err(ApiError::from)
    .map_err(at_axis)
}

/// A sweep past its time budget (90 % of the request deadline).
fn too_slow(limit: Duration) -> ApiError {
    ApiError::new(
        ErrorCode::SweepTooSlow,
        format!(
            "the sweep did not finish within its {:.1} s time budget (90 % of the request deadline); use fewer values, or retry when the service is less busy",
            limit.as_secs_f64()
        ),
    )
    .with_retry_after(1)
}

/// Runs the sweep and shapes the answer: each row also carries the varied inputs under their
/// own names (`"gpus": 1024`).
fn run(
    base: Base,
    c: &Checked,
    catalogs: &CatalogSet,
    budget: Option<(Instant, Duration)>,
    workers: usize,
) -> Result<SweepResult, ApiError> {
    // A sweep over an input sizing does not read (economics, utilization, workload,
    // reliability) sizes once and re-prices at every point; along one sizing reads, every
    // point sizes anew and there is nothing to remember.
    // (A grid with one value of a sizing input and a non-sizing second input also repeats.)
    let reads = |name: &str| plan::SizingMemo::sizing_reads(name);
    let repeats = !reads(&c.spec.first.name)
        || (c.spec.first.values.len() == 1
            && c.spec.second.as_ref().is_some_and(|s| !reads(&s.name)));
    let base = &base;
    let whole = in_whole_domains(base, c, catalogs);
    let out = sweep::run(whole.as_ref().unwrap_or(&c.spec), workers, || {
        let mut memo = repeats.then(plan::SizingMemo::default);
        move |v, v2| {
            if let Some((until, limit)) = budget
                && Instant::now() >= until
            {
                return Err(too_slow(limit));
            }
            plan_at(base, c, catalogs, memo.as_mut(), v, v2)
        }
    })
    .map_err(|e| match e {
        RunError::Sweep(s) => sweep_error(s),
        RunError::Plan(p) => p,
    })?;
    let (notes, short) = sweep_notes(base, c, &out.rows);
    let mut out = out;
    let shared = sweep::take_shared_warnings(&mut out.rows);
    let warnings = notes.into_iter().chain(shared).collect();
    let first: Arc<str> = Arc::from(c.spec.first.name.as_str());
    let second: Option<Arc<str>> = c.spec.second.as_ref().map(|b| Arc::from(b.name.as_str()));
    let rows = out
        .rows
        .into_iter()
        .map(|row| NamedSweepRow {
            inputs: NamedValues(
                NamedValue {
                    name: Arc::clone(&first),
                    value: json_value_out(c.kinds.0, row.value),
                },
                match (&second, c.kinds.1, row.value2) {
                    (Some(name), Some(kb), Some(v2)) => Some(NamedValue {
                        name: Arc::clone(name),
                        value: json_value_out(kb, v2),
                    }),
                    _ => None,
                },
            ),
            row,
        })
        .collect();
    Ok(SweepResult {
        vary: c.spec.first.name.clone(),
        vary2: c.spec.second.as_ref().map(|b| b.name.clone()),
        warnings,
        rows,
        crossovers: out.crossovers,
        plans_computed: out.plans_computed,
        notes: short,
    })
}

/// What the sweep as a whole should say beside its rows, in full and in few words (for a
/// chart): a varied input also given a fixed value (replaced at every point), and an input
/// that moves no fabric's total (a price of a SKU no plan buys: flat lines that would read as
/// "the price does not matter").
fn sweep_notes(base: &Base, c: &Checked, rows: &[sweep::SweepRow]) -> (Vec<String>, Vec<String>) {
    let mut notes: Vec<String> = base
        .replaced
        .iter()
        .map(|given| format!("{given} in the request is replaced by the swept values"))
        .collect();
    let mut short = Vec::new();
    let name = &c.spec.first.name;
    if c.spec.first.values.len() >= 2 && !rows.is_empty() && is_flat(rows) {
        let why = match crate::plan::registry::keyed_input(name) {
            Some((spec, key)) if spec.name == "prices.overrides" => {
                format!("no fabric's bill of materials buys {key}")
            }
            Some((spec, key)) if spec.name == "prices.discounts.vendor" => {
                format!("no fabric's bill of materials has a line from {key}")
            }
            Some((spec, key)) if spec.name == "prices.discounts.category" => {
                format!("no fabric's bill of materials has a line in category {key}")
            }
            // The totals are undiscounted sums (`tco.total_usd`): the rate moves the discounted
            // figures only.
            _ if name == "economics.discount_rate" => {
                "the totals are undiscounted; it moves only the discounted figures (tco.npv_usd, tco.by_year[].discounted_usd)".to_string()
            }
            _ => "these plans' totals do not depend on it".to_string(),
        };
        notes.push(format!(
            "total cost is the same at every value of {name} for every fabric: {why}"
        ));
        short.push(format!("flat lines: {why}"));
    }
    (notes, short)
}

/// Every fabric's total is the same at every value of the first input (at each value of the
/// second, for grids).
fn is_flat(rows: &[sweep::SweepRow]) -> bool {
    let mut first = std::collections::HashMap::new();
    rows.iter().all(|r| {
        let key = (r.fabric.as_str(), r.value2.map(f64::to_bits));
        *first.entry(key).or_insert(r.total_cost_usd) == r.total_cost_usd
    })
}

/// A computed sweep, with what it holds until its answer is encoded: its place among the sweeps
/// admitted at once and its computing permits (the encoding runs on as many threads).
pub struct Computed {
    pub result: SweepResult,
    slot: tokio::sync::OwnedSemaphorePermit,
    permits: heavy::Permits,
    /// The end of its time budget, and the budget.
    until: Instant,
    limit: Duration,
}

/// Runs a sweep on heavy threads ([`heavy::Heavy::run`]): up to 10,000 plans take up to a second of
/// CPU, which must not stall the other connections of this worker's event loop.
///
/// At most [`MAX_CONCURRENT_SWEEPS`] are admitted at once, computing, encoding or sending
/// (more get a 503 with `Retry-After`; a client that takes none of its answer for the request
/// deadline is cut off, `api::wire`), and each stops itself at 90% of the request deadline: when the
/// deadline answers the client, the heavy work does not go on computing a sweep nobody will
/// read.
async fn run_blocking(
    base: Base,
    checked: Checked,
    state: &AppState,
) -> Result<Computed, ApiError> {
    // A place among the sweeps admitted at once, given back when the answer is encoded (the
    // answer's bytes then count against `AppState::unsent`, `parts::Held`).
    let slot = Arc::clone(&state.sweep_slots)
        .try_acquire_owned()
        .map_err(|_| {
            ApiError::new(
                ErrorCode::Busy,
                format!("{MAX_CONCURRENT_SWEEPS} sweeps are running; retry in a second"),
            )
            .with_retry_after(1)
        })?;
    let set = state.catalogs.current();
    let (until, limit) = crate::api::middleware::heavy_budget(state.request_deadline);
    heavy::by(until, || too_slow(limit), async move {
        // Computing: permits of `AppState::heavy` (the wait counts against the time budget).
        let permits = state.heavy.permits().await?;
        state
            .heavy
            .run(move || {
                let result = run(
                    base,
                    &checked,
                    &set,
                    Some((until, limit)),
                    permits.threads(),
                )?;
                Ok(Computed {
                    result,
                    slot,
                    permits,
                    until,
                    limit,
                })
            })
            .await?
    })
    .await
}

/// Most sweeps admitted at once, computing or encoding (each can take a second of a core), and
/// uncertainty analyses computing. Answers being sent hold no slot (`parts::UNSENT_KIB`).
pub const MAX_CONCURRENT_SWEEPS: usize = 4;

/// The varied value as the row shows it: integers as integers.
fn json_value_out(kind: &Numeric, v: f64) -> Value {
    if kind.integer {
        Value::from(v as i64)
    } else {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

/// Query parameters of `GET /v1/sweeps`: the fields of [`SweepRequest`] but `base` (each
/// with its body schema; `vary` and `vary2` list the numeric plan inputs), `format`, and every
/// plan input.
pub struct SweepParams;

impl IntoParams for SweepParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        use crate::api::shape::Shaped;
        let root = SweepRequest::shape().root();
        let required = |k: &str| {
            root["required"]
                .as_array()
                .is_some_and(|r| r.iter().any(|n| n == k))
        };
        let inputs: Value = numeric_names().into();
        let mut v: Vec<Parameter> = root["properties"]
            .as_object()
            .into_iter()
            .flatten()
            .filter(|(k, _)| *k != "base")
            .filter_map(|(k, prop)| {
                let mut docs = Vec::new();
                let mut schema = if k.starts_with("vary") {
                    docs.extend(prop["description"].as_str().map(str::to_string));
                    let mut any = serde_json::json!({"anyOf": [
                        {"type": "string", "enum": inputs},
                        {"type": "string", "pattern": crate::plan::registry::keyed_input_pattern(),
                         "maxLength": 64}
                    ]});
                    if *k == "vary" {
                        // Swagger UI's "Try it out" fills the example in.
                        any["example"] = Value::from("gpus");
                    }
                    any
                } else {
                    crate::api::shape::resolve(SweepRequest::shape().components(), prop, &mut docs)
                        .clone()
                };
                if let Some(m) = schema.as_object_mut() {
                    m.remove("description");
                }
                query::param_from_schema(k, required(k), &docs.join(" "), schema)
            })
            .collect();
        v.push(query::plan_format_param());
        for mut p in plan_parameters() {
            p.required = utoipa::openapi::Required::False;
            v.push(p);
        }
        v
    }
}

/// Sweep one plan input from query parameters (spreadsheets, charts).
///
/// `vary` names a numeric plan input; its values are `values=256,512,…` or `from`, `to`,
/// `steps` (default 8) and `scale` (`linear` or `geometric`); integer inputs are rounded,
/// values are sorted and deduplicated. Every other plan input as in `GET /v1/plans`. The JSON
/// gives a row per value and fabric (with the value under the input's own name, e.g. `gpus`)
/// and the crossovers where the cheapest fabric changes, refined by bisection: to the exact
/// integer for integer inputs, for the others to a decimal grid at least 1,000 times finer than
/// the gap between the two sweep values and 10,000 times finer than the value (five significant
/// figures). CSV (`format=csv`) gives the rows. A second input (`vary2` with
/// `from2`/`to2`/`steps2`/`scale2` or `values2`) makes a grid: a row per grid point and fabric,
/// with both values, and crossovers along `vary` at each value of `vary2` (`input2`,
/// `value2`). At most 10,000 plans per sweep, bisection included; a value that cannot be
/// planned fails the sweep with a 422 naming it.
#[utoipa::path(tag = "plans", params(SweepParams), responses(crate::api::responses::JsonCsvOrXlsx<SweepResult>, QueryProblems, SweepInvalid, Busy))]
#[get("/v1/sweeps")]
pub async fn get_sweep(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let q = Query::from_request(&req)?;
    let format = crate::api::conneg::negotiate_plan(&req, Some(&q))?;
    encode::admit_reader(&state, &req)?;
    let result = sweep_from_query(&q, &["format"], &state).await?;
    render(&req, &state, format, result).await
}

/// Sweep one plan input (JSON body).
///
/// `{"base": <plan request>, "vary": "gpus", "from": 256, "to": 16384, "steps": 8, "scale":
/// "geometric"}` or `"values": [...]`; optionally `"vary2"` with `from2`/`to2`/`steps2`/`scale2`
/// or `values2` for a grid. Same rows, crossovers and limits as `GET /v1/sweeps`; `Accept:
/// text/csv` for the rows as CSV.
#[utoipa::path(
    tag = "plans",
    params(super::PostPlanParams),
    request_body(content = SweepRequest, description = "The base plan request and the input to vary.", content_type = "application/json"),
    responses(crate::api::responses::JsonCsvOrXlsx<SweepResult>, NotModified, BodyProblems, SweepInvalid, Busy)
)]
#[post("/v1/sweeps")]
pub async fn post_sweep(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: ValidJson<SweepRequest>,
) -> Result<HttpResponse, ApiError> {
    let q = crate::api::query::Query::for_post(&req)?;
    let format = crate::api::conneg::negotiate_plan(&req, Some(&q))?;
    let b = body.0;
    if !b.base.is_object() {
        return Err(ApiError::field(
            "/base",
            ErrorCode::InvalidType,
            "'base' must be a plan request object",
        ));
    }
    let spec = axes(&b)?;
    // The base is checked as JSON first (shape, types and bounds, as a plan request body,
    // with the varied inputs at their first values), then carried as (name, value) pairs.
    let mut checked = b.base.clone();
    for (axis, kind) in std::iter::once((&spec.spec.first, spec.kinds.0))
        .chain(spec.spec.second.as_ref().zip(spec.kinds.1))
    {
        let v = axis.values.first().copied().unwrap_or(0.0);
        let text = value_text(kind, v);
        let json = if kind.decimal {
            Value::String(text)
        } else {
            serde_json::from_str(&text).unwrap_or(Value::Null)
        };
        set_path(&mut checked, &axis.name, json);
    }
    // A first value the base cannot take is the sweep's own field's fault.
    request_from_json(&checked)
        .map_err(|e| spec.to_axis(e, |i| first_value_field(&b, i)))
        .map_err(prefix_base)?;
    // Checked above as a plan request: every value has a query form.
    let pairs = crate::api::query::pairs::pairs_of_value(&b.base)
        .map_err(|why| ApiError::field("/base", ErrorCode::InvalidType, why))?;
    let mut base = Base::new(pairs, &spec).map_err(prefix_base)?;
    // A POST's base is a whole plan request, whose `gpus` is required: a `gpus` sweep must
    // give one, so its replacement goes without saying.
    base.replaced.retain(|given| !given.starts_with("gpus="));
    encode::admit_reader(&state, &req)?;
    let result = run_blocking(base, spec, &state)
        .await
        .map_err(prefix_base)?;
    render(&req, &state, format, result).await
}

/// The sweep field that set axis `i`'s first value: its first explicit value, else `from`.
fn first_value_field(b: &SweepRequest, i: usize) -> String {
    let (values, name) = if i == 0 {
        (b.values.is_some(), ("/values/0", "/from"))
    } else {
        (b.values2.is_some(), ("/values2/0", "/from2"))
    };
    if values { name.0 } else { name.1 }.to_string()
}

/// In a POST sweep, plan inputs live under `/base`.
fn prefix_base(e: ApiError) -> ApiError {
    if e.problem()
        .errors
        .iter()
        .any(|f| f.code == ErrorCode::TooManyPlans)
    {
        return e;
    }
    // The sweep's own fields (`/vary`, `/values/0`) are not under the base.
    repoint(e, |pointer| {
        let first = pointer
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or("");
        if own_params().iter().any(|o| o == first) {
            pointer.to_string()
        } else {
            format!("/base{pointer}")
        }
    })
}

/// The sweep `GET /v1/sweeps` answers for this query, without rendering it (the `sweep`
/// chart draws it); `own`: the calling endpoint's own parameters (not plan inputs).
pub async fn sweep_from_query(
    q: &Query,
    own: &[&str],
    state: &AppState,
) -> Result<Computed, ApiError> {
    if q.single("vary")?.is_none() {
        return Err(bad(
            "vary",
            "query parameter 'vary' is required (e.g. vary=gpus)",
        ));
    }
    let (base, spec) = from_query(q, own)?;
    run_blocking(base, spec, state).await.map_err(name_params)
}

/// The values of a decimal input (money, rates) in a query are written as the input itself is
/// (`economics.gpu_hour_usd=1e0` is a 422 on a plan): plain decimal notation, no exponent.
fn plain_decimal_values(q: &Query) -> Result<(), ApiError> {
    for (vary, params) in [
        ("vary", ["values", "from", "to"]),
        ("vary2", ["values2", "from2", "to2"]),
    ] {
        let Some(name) = q.single(vary)? else {
            continue;
        };
        let decimal = crate::plan::registry::numeric_or_keyed(name)
            .and_then(|s| s.numeric.as_ref())
            .is_some_and(|n| n.decimal && !n.integer);
        if !decimal {
            continue;
        }
        for (k, v) in q.pairs.iter().filter(|(k, _)| params.contains(&k.as_str())) {
            if let Some(text) = v
                .split(',')
                .map(str::trim)
                .find(|t| !t.is_empty() && crate::plan::bounded::strict_decimal(t).is_none())
            {
                return Err(bad(
                    k,
                    format!(
                        "'{name}' is a decimal input: its values are written in plain decimal notation (\"2.5\", \"1000\"; no exponent or separators), got \"{}\"",
                        text.chars().take(40).collect::<String>()
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The sweep a query asks for: its axes (the sweep's own parameters) and the base plan request
/// (every other parameter but the endpoint's `own` and cache busters).
fn from_query(q: &Query, own: &[&str]) -> Result<(Base, Checked), ApiError> {
    plain_decimal_values(q)?;
    let names = own_params();
    let b: SweepRequest = q.typed(|k| names.iter().any(|n| n == k), false)?;
    let spec = axes(&b)?;
    let pairs = q
        .pairs
        .iter()
        .filter(|(k, _)| !k.starts_with('_') && !own.contains(&k.as_str()) && !names.contains(k))
        .cloned()
        .collect();
    let base =
        Base::new(pairs, &spec).map_err(|e| spec.to_axis(e, |i| first_value_field(&b, i)))?;
    Ok((base, spec))
}

/// A real sweep's answer as JSON and CSV, for the OpenAPI examples: the query `qs` (as
/// `GET /v1/sweeps` takes it) run on `catalogs` on this thread, without a time budget.
pub fn example(qs: &str, catalogs: &CatalogSet) -> Option<(Value, String)> {
    let (base, spec) = from_query(&Query::parse(qs).ok()?, &[]).ok()?;
    let result = run(base, &spec, catalogs, None, 1).ok()?;
    let json: Vec<u8> = sweep_json(&result, 1)
        .ok()?
        .iter()
        .flatten()
        .copied()
        .collect();
    Some((serde_json::from_slice(&json).ok()?, result.csv()))
}

#[cfg(test)]
mod tests;
