//! `POST /v1/fit` and `GET /v1/fit`: the largest cluster per fabric within a budget or a power
//! envelope ([`crate::plan::fit`]). The body (or the query) is a plan request without `gpus`,
//! which the fit finds, and with a `budget`.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::{FromRequest, HttpRequest, HttpResponse, get, post, web};
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterIn};
use utoipa::openapi::schema::{Schema, SchemaType, Type};
use utoipa::openapi::{Ref, RefOr};
use validator::Validate;

use super::AppState;
use super::error::{ApiError, ErrorCode};
use super::extract::{from_value, json_body, strict_value, validate};
use super::query::{self, Query, format_param, request_from_json};
use super::responses::{BodyProblems, Busy, JsonOrCsv, PlanInvalid, QueryProblems, Sheet};
use super::shape::{Shape, Shaped};
use crate::plan::fit::{Budget, Fit, FitRequest};
use crate::plan::{PlanRequest, request::Gpus};

/// The plan inputs a fit does not take: it finds `gpus`, and an uncertainty analysis of every
/// size tried is not what a fit answers (plan the fitted cluster with one).
const NOT_READ: [(&str, &str); 2] = [
    (
        "gpus",
        "a fit finds the GPU count: give budget.capex_usd, budget.total_usd or budget.facility_mw instead",
    ),
    (
        "uncertainty",
        "a fit takes no uncertainty analysis: plan the fitted cluster (its `gpus`) with one at /v1/plans",
    ),
];

/// `gpus` while the plan inputs are typed (each size tried replaces it).
const ANY_GPUS: u32 = Gpus::MIN;

impl Sheet for Fit {
    const DESCRIPTION: &'static str = "Per fabric the largest cluster within the envelope, what bound it and its plan (JSON), or one CSV row per fabric.";
}

/// The OpenAPI schema of a fit's body: `PlanRequest`'s without `gpus` and `uncertainty`, with
/// `budget` (required).
pub struct FitRequestBody;

impl utoipa::PartialSchema for FitRequestBody {
    fn schema() -> RefOr<Schema> {
        let mut schema = <PlanRequest as utoipa::PartialSchema>::schema();
        if let RefOr::T(Schema::Object(o)) = &mut schema {
            for (name, _) in NOT_READ {
                o.properties.shift_remove(name);
                o.required.retain(|r| r != name);
            }
            let mut props = std::mem::take(&mut o.properties);
            o.properties
                .insert("budget".into(), Ref::from_schema_name("Budget").into());
            o.properties.append(&mut props);
            o.required.insert(0, "budget".into());
            o.schema_type = SchemaType::new(Type::Object);
            o.description = Some(
                "A fit: the envelope (`budget`, at least one of its limits) and every plan input but `gpus`, which the fit finds, and `uncertainty`.".into(),
            );
            o.examples = vec![serde_json::json!({
                "budget": {"total_usd": "60000000"},
                "gpu_model": "h100",
                "economics": {"years": 5}
            })];
        }
        schema
    }
}

impl utoipa::ToSchema for FitRequestBody {
    fn name() -> std::borrow::Cow<'static, str> {
        "FitRequest".into()
    }

    fn schemas(out: &mut Vec<(String, RefOr<Schema>)>) {
        out.push(("Budget".into(), <Budget as utoipa::PartialSchema>::schema()));
        <Budget as utoipa::ToSchema>::schemas(out);
        <PlanRequest as utoipa::ToSchema>::schemas(out);
    }
}

impl Shaped for FitRequestBody {
    fn shape() -> &'static Shape {
        static S: std::sync::OnceLock<Shape> = std::sync::OnceLock::new();
        S.get_or_init(Shape::of::<FitRequestBody>)
    }
}

/// `{"budget": …}` alone: the budget typed at its own pointer.
#[derive(Debug, Deserialize, Validate, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
struct BudgetOnly {
    #[validate(nested)]
    budget: Budget,
}

impl Shaped for BudgetOnly {
    fn shape() -> &'static Shape {
        static S: std::sync::OnceLock<Shape> = std::sync::OnceLock::new();
        S.get_or_init(Shape::of::<BudgetOnly>)
    }
}

/// A fit's JSON body, typed: the budget and the plan inputs, each at its own pointer.
pub struct FitBody(pub FitRequest);

impl FromRequest for FitBody {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = json_body(req, payload);
        Box::pin(async move { fit_from_value(strict_value(&body.await?)?).map(FitBody) })
    }
}

fn not_read(name: &str) -> Option<ApiError> {
    NOT_READ
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(n, why)| ApiError::field(&format!("/{n}"), ErrorCode::UnknownField, *why))
}

fn fit_from_value(mut value: Value) -> Result<FitRequest, ApiError> {
    if let Some(e) = value
        .as_object()
        .and_then(|o| o.keys().find_map(|k| not_read(k)))
    {
        return Err(e);
    }
    FitRequestBody::shape().check(&value)?;
    let Some(obj) = value.as_object_mut() else {
        return Err(ApiError::malformed("the body is not a JSON object"));
    };
    let budget = obj.remove("budget").unwrap_or(Value::Null);
    let BudgetOnly { budget } = from_value(serde_json::json!({ "budget": budget }))?;
    validate(&BudgetOnly {
        budget: budget.clone(),
    })?;
    obj.insert("gpus".into(), Value::from(ANY_GPUS));
    let plan = request_from_json(&value)?;
    Ok(FitRequest { budget, plan })
}

fn fit_from_query(q: &Query) -> Result<FitRequest, ApiError> {
    if let Some(e) = q.pairs.iter().find_map(|(k, _)| {
        not_read(k.split('.').next().unwrap_or_default()).map(query::name_params)
    }) {
        return Err(e);
    }
    let is_budget = |k: &str| k.starts_with("budget.") || k == "budget";
    let BudgetOnly { budget } = q.typed(|k| is_budget(k), true)?;
    let mut plan_query = Query {
        pairs: q
            .pairs
            .iter()
            .filter(|(k, _)| !is_budget(k))
            .cloned()
            .collect(),
    };
    plan_query.pairs.push(("gpus".into(), ANY_GPUS.to_string()));
    let plan = plan_query.plan_request(&["format"])?;
    Ok(FitRequest { budget, plan })
}

/// Runs the fit on a heavy thread: it plans tens of sizes per fabric.
async fn fit_answer(
    req: &HttpRequest,
    state: &AppState,
    q: Option<&Query>,
    fit: FitRequest,
) -> Result<HttpResponse, ApiError> {
    let format = super::sheets::negotiate(req, q)?;
    let set = super::catalogs_for(state, fit.plan.catalog.as_deref()).await?;
    let late = || {
        ApiError::new(
            ErrorCode::AnalysisTooSlow,
            "the fit had not found its clusters when its time budget (90 % of the request deadline) ran out; retry when the service is less busy",
        )
    };
    let answer = super::heavy_admitted(state, late, move |effort| {
        crate::plan::fit::fit(&fit, &set, effort).map_err(ApiError::from)
    })
    .await?;
    let (body, media_type, _) = format.body(
        || serde_json::to_vec(&answer).map_err(|e| ApiError::internal(&e)),
        || Ok(crate::table::fit_csv(&answer).into_bytes()),
    )?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .content_type(media_type)
        .body(body))
}

/// The largest cluster per fabric within a budget or a power envelope.
///
/// The body is a plan request without `gpus` (the fit finds it) and with a `budget`: any of
/// `capex_usd` (GPU servers and network bought), `total_usd` (over `economics.years`: servers,
/// their electricity and the network's TCO) and `facility_mw` (servers and network at full
/// power × PUE). Clusters grow by whole servers (whole racks for NVL72). Per fabric: the GPUs,
/// what stops the next step (`bound_by`, with the next step's spend), useful GPU-hours and
/// tokens trained over the horizon, and the fitted cluster's plan; then the fabric that buys the
/// most GPUs and the one that trains the most tokens. `format=csv`: one row per fabric.
#[utoipa::path(
    tag = "plans",
    params(super::sheets::PostParams),
    request_body(content = FitRequestBody, description = "The envelope and the plan inputs; only `budget` is required.", content_type = "application/json"),
    responses(JsonOrCsv<Fit>, BodyProblems, PlanInvalid, Busy)
)]
#[post("/v1/fit")]
pub async fn post_fit(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: FitBody,
) -> Result<HttpResponse, ApiError> {
    let q = Query::for_post(&req)?;
    fit_answer(&req, &state, Some(&q), body.0).await
}

/// Query parameters of `GET /v1/fit`: `budget.*`, the plan inputs but `gpus` and
/// `uncertainty.*`, and `format`.
pub struct FitParams;

impl IntoParams for FitParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let mut v: Vec<Parameter> = crate::plan::registry::params_of::<BudgetOnly>()
            .iter()
            .filter_map(|s| query::param_from_schema(&s.name, s.required, &s.doc, s.schema.clone()))
            .collect();
        // Swagger's "Try it out" runs as it opens: a budget the example fills in.
        if let Some(p) = v.iter_mut().find(|p| p.name == "budget.total_usd") {
            *p = query::with_example(p.clone(), Value::from("60000000"));
        }
        v.extend(query::plan_parameters().into_iter().filter(|p| {
            let first = p.name.split('.').next().unwrap_or_default();
            !NOT_READ.iter().any(|(n, _)| *n == first)
        }));
        v.push(format_param());
        v
    }
}

/// The largest cluster per fabric within a budget or a power envelope, from query parameters.
///
/// `POST /v1/fit` with the inputs as query parameters (`budget.total_usd=60000000&gpu_model=h100`).
#[utoipa::path(tag = "plans", params(FitParams), responses(JsonOrCsv<Fit>, QueryProblems, PlanInvalid, Busy))]
#[get("/v1/fit")]
pub async fn get_fit(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let q = Query::from_request(&req)?;
    let fit = fit_from_query(&q)?;
    fit_answer(&req, &state, Some(&q), fit).await
}
