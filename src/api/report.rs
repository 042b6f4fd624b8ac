//! `GET /` and `GET /report`: the report page (server-rendered HTML, no JavaScript).

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, get, post, web};
use askama::Template;
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterIn};

use super::AppState;
use super::charts::{plan_from_query, plan_parameters};

/// The report page takes plan inputs only.
const REPORT_PARAMS: &[&str] = &[];
use super::error::ApiError;
use super::middleware::with_plan_id;
use super::query::Query;
use crate::catalog::CatalogSet;
use crate::plan::{Detail, Effort};
use crate::report::{self, DEFAULT_GPUS, Page, ProblemLine, SweepSpan};
use std::sync::Arc;

/// Query parameters of the report page: every plan input, all optional (`gpus` defaults to
/// 1024 here).
pub struct ReportParams;

impl IntoParams for ReportParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        plan_parameters()
            .into_iter()
            .map(|mut p| {
                p.required = utoipa::openapi::Required::False;
                p
            })
            .collect()
    }
}

const HTML: &str = "text/html; charset=utf-8";

fn html(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .insert_header((header::CONTENT_TYPE, HTML))
        .insert_header((header::CACHE_CONTROL, "no-store"))
        .body(body)
}

fn problem_page(e: &ApiError, pairs: &[(String, String)], gpus: &[String]) -> HttpResponse {
    let p = e.problem();
    let status = StatusCode::from_u16(p.status).unwrap_or(StatusCode::BAD_REQUEST);
    // As many as a problem answer lists (the detail counts them all).
    let lines = p
        .errors
        .iter()
        .take(crate::api::error::MAX_FIELD_ERRORS)
        .map(|f| ProblemLine {
            param: f.pointer.trim_start_matches('/').replace('/', "."),
            detail: f.detail.clone(),
        })
        .collect();
    let page = Page {
        fields: report::form(pairs, None, gpus),
        kept: report::kept(pairs),
        report: None,
        problem: Some((p.status, p.title.clone(), p.detail.clone(), lines)),
        plan_pairs: report::plan_pairs(pairs),
        notice: None,
    };
    match page.render() {
        Ok(body) => {
            let mut res = html(status, body);
            if let Some(secs) = e.retry_after_secs()
                && let Ok(v) = header::HeaderValue::from_str(&secs.to_string())
            {
                res.headers_mut().insert(header::RETRY_AFTER, v);
            }
            res
        }
        Err(e) => ApiError::internal(&e).into_response(),
    }
}

trait IntoResponse {
    fn into_response(self) -> HttpResponse;
}

impl IntoResponse for ApiError {
    fn into_response(self) -> HttpResponse {
        actix_web::ResponseError::error_response(&self)
    }
}

/// The page for this request: the plan from the query (`gpus` defaults to 1024), or the
/// problem with the form to correct it.
async fn page(req: &HttpRequest, state: &AppState) -> HttpResponse {
    match Query::from_request(req) {
        Ok(q) => page_of(q, state, None).await,
        Err(e) => problem_page(&e, &[], &gpu_ids(state.catalogs.current().newest())),
    }
}

/// The page for the plan inputs `q` (`gpus` defaults to 1024), with `notice` above the
/// report, or the problem with the form to correct it.
async fn page_of(mut q: Query, state: &AppState, notice: Option<String>) -> HttpResponse {
    let set = state.catalogs.current();
    if !q
        .pairs
        .iter()
        .any(|(k, v)| k == "gpus" && !v.trim().is_empty())
    {
        q.pairs.retain(|(k, _)| k != "gpus");
        q.pairs.push(("gpus".into(), DEFAULT_GPUS.to_string()));
    }
    let cached = match plan_from_query(&q, REPORT_PARAMS, state).await {
        Ok(c) => c,
        Err(e) => return problem_page(&e, &q.pairs, &gpu_ids(set.newest())),
    };
    let plan = &cached.plan;
    let catalog = set.get(&plan.catalog.id).cloned();
    let gpus = gpu_ids(catalog.as_ref().unwrap_or(set.newest()));
    let inputs = serde_json::to_value(&plan.inputs).ok();
    let mut shown = report::report(plan, catalog.as_deref(), &q.pairs);
    // The memo names the inputs that would change the answer from an analysis over the
    // catalog's price ranges (1,000 samples, about 12 ms of heavy work, admitted as any
    // analysis is) when the page asked for none.
    if plan.uncertainty.is_none() && plan.comparison.is_some() {
        let mut analysed = q.clone();
        analysed.ensure_analysis();
        shown.memo = match plan_from_query(&analysed, REPORT_PARAMS, state).await {
            Ok(a) => report::memo::memo(plan, Some(&a.plan), None),
            Err(e) => report::memo::memo(
                plan,
                None,
                Some(format!(
                    "The analysis that names them could not be made now ({}); reload the page.",
                    e.problem().detail
                )),
            ),
        };
    }
    let (pairs, planned) = (q.pairs.clone(), plan.inputs.gpus.get());
    let set = Arc::clone(&set);
    let span = web::block(move || sweep_span(&pairs, planned, &set))
        .await
        .unwrap_or(SweepSpan::Default);
    report::limit_sweep(&mut shown, &q.pairs, &span);
    let notice = notice.or_else(|| {
        q.pairs
            .iter()
            .find(|(k, v)| k == "_saved" && v.len() <= 64 && v.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'@'))
            .map(|(_, id)| {
                format!("Saved as scenario {id}: GET /v1/scenarios/{id} with your key brings it back, its plan byte for byte.")
            })
    });
    let page = Page {
        fields: report::form(&q.pairs, inputs.as_ref(), &gpus),
        kept: report::kept(&q.pairs),
        report: Some(shown),
        problem: None,
        plan_pairs: report::plan_pairs(&q.pairs),
        notice,
    };
    match page.render() {
        Ok(body) => with_plan_id(html(StatusCode::OK, body), &plan.plan_id),
        Err(e) => ApiError::internal(&e).into_response(),
    }
}

/// Whether the page's plan inputs can be planned at `gpus` GPUs (a figures plan, as a sweep
/// point is made), or the reason they cannot.
fn plannable(pairs: &[(String, String)], gpus: u32, set: &CatalogSet) -> Result<(), String> {
    let mut q = Query {
        pairs: pairs
            .iter()
            .filter(|(k, _)| k != "gpus" && !k.starts_with("uncertainty."))
            .cloned()
            .collect(),
    };
    q.pairs.push(("gpus".into(), gpus.to_string()));
    let why = |e: ApiError| {
        let p = e.problem();
        p.errors
            .first()
            .map_or_else(|| p.detail.clone(), |f| f.detail.clone())
    };
    let req = q.plan_request(REPORT_PARAMS).map_err(why)?;
    crate::plan::build_with(&req, set, Effort::default(), None, Detail::Figures)
        .map(|_| ())
        .map_err(|e| why(ApiError::from(e)))
}

/// The sizes the sweep chart can draw for a plan of `gpus` (which can be planned): the default
/// range when both its ends can be planned; else each end that cannot moved, by bisection, to
/// the last size that can (what stops a sweep — a preset's minimum, the largest fabric's
/// ceiling — holds from a size on, below or above).
fn sweep_span(pairs: &[(String, String)], gpus: u32, set: &CatalogSet) -> SweepSpan {
    let (from, to) = report::default_sweep_range(gpus);
    let ok = |n: u32| plannable(pairs, n, set);
    let mut why = Vec::new();
    // The size closest to `bad` between it and `good` (which can be planned) that can be.
    let closest = |mut good: u32, mut bad: u32| {
        while good.abs_diff(bad) > 1 {
            let mid = (good / 2) + (bad / 2) + (good % 2 + bad % 2) / 2;
            match ok(mid) {
                Ok(()) => good = mid,
                Err(_) => bad = mid,
            }
        }
        good
    };
    // An end of the range, or the size closest to it that can be planned, and why.
    let mut limit = |end: u32, beyond: &str| match ok(end) {
        Ok(()) => end,
        Err(e) if end != gpus => {
            let edge = closest(gpus, end);
            why.push(format!(
                "{beyond} {} GPUs cannot be planned: at {}, {e}",
                report::group(edge),
                report::group(end)
            ));
            edge
        }
        Err(_) => gpus,
    };
    let from = limit(from, "fewer than");
    let to = limit(to, "more than");
    if why.is_empty() {
        SweepSpan::Default
    } else if from >= to {
        SweepSpan::None(format!(
            "no other cluster size around {} GPUs can be planned ({})",
            report::group(gpus),
            why.join("; ")
        ))
    } else {
        SweepSpan::Limited { from, to, why }
    }
}

fn gpu_ids(c: &crate::catalog::Catalog) -> Vec<String> {
    c.data.gpus.iter().map(|g| g.id.clone()).collect()
}

/// What the page answers: the page itself, or the page showing the problem with its status.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
enum PageResponses {
    /// The report page.
    #[response(status = 200, content_type = "text/html")]
    Page(String),
    /// The query string cannot be decoded: the page shows the problem.
    #[response(status = 400, content_type = "text/html")]
    Malformed(String),
    /// The query string exceeds 8 KiB: the page shows the problem.
    #[response(status = 414, content_type = "text/html")]
    TooLong(String),
    /// An input is invalid: the page shows the problem and the form.
    #[response(status = 422, content_type = "text/html")]
    Invalid(String),
    /// The plan cannot be made now: too many analyses at once, or an analysis past its time
    /// budget (`Retry-After` when a retry soon may succeed). The page says so, with the form.
    #[response(status = 503, content_type = "text/html")]
    Unavailable(String),
    /// The request head (request line and headers) exceeds what the HTTP layer buffers: the
    /// HTTP layer answers, with a problem document, before the page is involved.
    #[response(status = 431, content_type = "application/problem+json")]
    HeadTooLarge(super::error::Problem),
}

/// The report page for the default plan (1,024 GPUs, every other input at its default).
///
/// Server-rendered HTML: a form with the main inputs (a GET to `/report`), the recommendation
/// and its reasons, the fabrics side by side, the charts, the BOM per fabric, the warnings and
/// the assumptions with their sources. Plan inputs may be given as in `GET /v1/plans`.
#[utoipa::path(tag = "report", params(ReportParams), responses(PageResponses))]
#[get("/")]
pub async fn index(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    page(&req, &state).await
}

/// The report page for a plan given by query parameters (the form submits here).
///
/// Same page as `GET /`; the URL reproduces it (share it, bookmark it, print it).
#[utoipa::path(tag = "report", params(ReportParams), responses(PageResponses))]
#[get("/report")]
pub async fn report_page(req: HttpRequest, state: web::Data<AppState>) -> HttpResponse {
    page(&req, &state).await
}

/// Most bytes a page's form may post: what its address may hold (the form carries the page's
/// query plus a name, tags and a key).
const MAX_FORM_BYTES: usize = super::query::MAX_QUERY_BYTES;

/// A form posted by the page: its pairs (URL-encoded, as a query string), the page's plan
/// inputs among them; `gpus` defaults as on the page.
fn form_pairs(body: &[u8]) -> Result<Query, ApiError> {
    if body.len() > MAX_FORM_BYTES {
        return Err(ApiError::payload_too_large(MAX_FORM_BYTES));
    }
    let text =
        std::str::from_utf8(body).map_err(|_| ApiError::malformed("the form is not UTF-8 text"))?;
    let mut q = Query::parse(text)?;
    if !q
        .pairs
        .iter()
        .any(|(k, v)| k == "gpus" && !v.trim().is_empty())
    {
        q.pairs.retain(|(k, _)| k != "gpus");
        q.pairs.push(("gpus".into(), DEFAULT_GPUS.to_string()));
    }
    Ok(q)
}

/// The form's field `name` (one of the page's own, `_…`).
fn field<'a>(q: &'a Query, name: &str) -> Result<&'a str, ApiError> {
    q.single(name)?
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .ok_or_else(|| {
            ApiError::field(
                &format!("/{name}"),
                super::error::ErrorCode::Required,
                format!("the form's field '{name}' is required"),
            )
        })
}

/// The report page's address for the form's plan inputs.
fn report_address(q: &Query, extra: &[(&str, &str)]) -> String {
    let mut pairs: Vec<(String, String)> = report::plan_pairs(&q.pairs);
    pairs.extend(extra.iter().map(|(k, v)| (k.to_string(), v.to_string())));
    let encoded: Vec<String> = pairs
        .iter()
        .map(|(k, v)| format!("{}={}", report::encode(k), report::encode(v)))
        .collect();
    format!("/report?{}", encoded.join("&"))
}

/// The "Save" form's own fields; the page's plan inputs ride along as further fields, named as
/// in `GET /v1/plans` (for the OpenAPI document only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct SaveForm {
    /// The scenario's name (1 to 200 characters).
    #[schema(min_length = 1, max_length = 200, example = "March quote, 1,024 H100")]
    _name: String,
    /// Tags, comma-separated.
    #[schema(example = "h100,march")]
    _tags: Option<String>,
    /// A write key (`fabric-tco keys create --scope write`).
    _key: String,
    /// GPUs of the plan, as `GET /v1/plans` takes it (default 1,024).
    #[schema(example = 1024)]
    gpus: Option<u32>,
}

/// The "Compare with…" form's own fields, and the page's plan inputs (OpenAPI only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct CompareForm {
    /// A saved scenario's id, or `id@revision`.
    _scenario: String,
    /// A key (`read` or `write`).
    _key: String,
    /// GPUs of the plan, as `GET /v1/plans` takes it (default 1,024).
    #[schema(example = 1024)]
    gpus: Option<u32>,
}

/// What the page's forms answer.
#[derive(utoipa::IntoResponses)]
#[allow(dead_code)]
enum FormResponses {
    /// The comparison (Compare with…).
    #[response(status = 200, content_type = "text/html")]
    Page(String),
    /// Saved: to the report page, which says so.
    #[response(status = 303)]
    SeeOther,
    /// The form cannot be decoded.
    #[response(status = 400, content_type = "text/html")]
    Malformed(String),
    /// No valid API key.
    #[response(status = 401, content_type = "text/html")]
    Unauthorized(String),
    /// The key may only read.
    #[response(status = 403, content_type = "text/html")]
    Forbidden(String),
    /// No such scenario for the key's team.
    #[response(status = 404, content_type = "text/html")]
    NotFound(String),
    /// The form is larger than 8 KiB.
    #[response(status = 413, content_type = "text/html")]
    TooLarge(String),
    /// A field is missing or invalid, or the plan cannot be made.
    #[response(status = 422, content_type = "text/html")]
    Invalid(String),
    /// The database cannot be reached, or the service is busy.
    #[response(status = 503, content_type = "text/html")]
    Unavailable(String),
}

/// Save the page's plan as a scenario.
///
/// The report page's "Save" form (`application/x-www-form-urlencoded`): the page's plan inputs,
/// `_name`, `_tags` (comma-separated) and `_key` (a write key). Saves as `POST /v1/scenarios`
/// does and answers 303 to the report page, which names the scenario; a problem is the page
/// with the problem.
#[utoipa::path(
    tag = "report",
    request_body(content = SaveForm, content_type = "application/x-www-form-urlencoded", description = "The page's plan inputs, `_name`, `_tags`, `_key`."),
    responses(FormResponses)
)]
#[post("/report/save")]
pub async fn save_form(state: web::Data<AppState>, body: web::Bytes) -> HttpResponse {
    let set = state.catalogs.current();
    let q = match form_pairs(&body) {
        Ok(q) => q,
        Err(e) => return problem_page(&e, &[], &gpu_ids(set.newest())),
    };
    match saved(&state, &q).await {
        Ok(id) => HttpResponse::SeeOther()
            .insert_header((header::LOCATION, report_address(&q, &[("_saved", &id)])))
            .insert_header((header::CACHE_CONTROL, "no-store"))
            .finish(),
        Err(e) => problem_page(&e, &report::plan_pairs(&q.pairs), &gpu_ids(set.newest())),
    }
}

async fn saved(state: &AppState, q: &Query) -> Result<String, ApiError> {
    let key = super::auth::caller_token(state, field(q, "_key")?, crate::store::keys::Scope::Write)
        .await?;
    let request = q.plan_request(REPORT_PARAMS)?;
    let tags: Vec<String> = q
        .single("_tags")?
        .unwrap_or("")
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(str::to_string)
        .collect();
    let input = super::scenarios::ScenarioInput {
        name: field(q, "_name")?.to_string(),
        description: None,
        tags: (!tags.is_empty()).then_some(tags),
        request,
    };
    validator::Validate::validate(&input).map_err(|e| {
        ApiError::field(
            "/_name",
            super::error::ErrorCode::ValidationFailed,
            format!("the name (1 to 200 characters) or a tag (1 to 50 letters, digits, '-', '_', '.', ':'; at most 20) is invalid: {e}"),
        )
    })?;
    let draft = super::scenarios::draft(state, &input, &key.id).await?;
    let (row, _) =
        crate::store::scenarios::create(state.archive.db(), &key.team, &draft, None).await?;
    Ok(row.id)
}

/// The report page of a saved scenario's revision (the current one when `revision` is absent):
/// its stored request as the page's inputs, the catalog pinned as saved, so the page shows the
/// plan the scenario keeps (the same `plan_id`), with a line naming the scenario.
pub async fn scenario_page(
    state: &AppState,
    team: &str,
    id: &str,
    revision: Option<i64>,
) -> Result<HttpResponse, ApiError> {
    let (request, row) = super::scenarios::stored_request(state, team, id, revision).await?;
    let pairs = crate::api::query::pairs::pairs_of(&request).map_err(|why| {
        ApiError::new(
            super::error::ErrorCode::ValidationFailed,
            format!(
                "revision {} of scenario '{id}' cannot be shown as the report page ({why}); its JSON and CSV are at /v1/scenarios/{id}/plan",
                row.revision
            ),
        )
    })?;
    let notice = format!(
        "Saved scenario “{}” ({id}), revision {}, saved {}; plan {} on catalog version {} (pinned). Changing an input below makes a new plan; saving it makes a new scenario.",
        row.name,
        row.revision,
        crate::clock::rfc3339_ms(row.created_ms),
        row.plan_id,
        row.catalog_sha256.get(..12).unwrap_or(&row.catalog_sha256),
    );
    Ok(page_of(Query { pairs }, state, Some(notice)).await)
}

/// The "Open a saved scenario" form's fields (OpenAPI only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct OpenForm {
    /// A saved scenario's id, or `id@revision`.
    _scenario: String,
    /// A key (`read` or `write`).
    _key: String,
}

/// Open a saved scenario as the report page.
///
/// The report page's "Open" form: `_scenario` (an id, or `id@revision`) and `_key` (a read or
/// write key). Answers the report page of the scenario's plan, recomputed on its pinned
/// catalog version (the page `GET /v1/scenarios/{id}/plan?format=html` answers to a key in
/// the `Authorization` header).
#[utoipa::path(
    tag = "report",
    request_body(content = OpenForm, content_type = "application/x-www-form-urlencoded", description = "`_scenario`, `_key`."),
    responses(FormResponses)
)]
#[post("/report/open")]
pub async fn open_form(state: web::Data<AppState>, body: web::Bytes) -> HttpResponse {
    let set = state.catalogs.current();
    let page = async {
        let q = form_pairs(&body)?;
        let key =
            super::auth::caller_token(&state, field(&q, "_key")?, crate::store::keys::Scope::Read)
                .await?;
        let (id, revision) = super::diff::scenario_reference("_scenario", field(&q, "_scenario")?)?;
        scenario_page(&state, &key.team, id, revision).await
    };
    match page.await {
        Ok(res) => res,
        Err(e) => problem_page(&e, &[], &gpu_ids(set.newest())),
    }
}

/// Compare the page's plan with a saved scenario.
///
/// The report page's "Compare with…" form: the page's plan inputs, `_scenario` (an id, or
/// `id@revision`) and `_key`. Answers a page with what changed from the scenario to the page's
/// plan, as `GET /v1/diff?from=<scenario>&to=plan` does.
#[utoipa::path(
    tag = "report",
    request_body(content = CompareForm, content_type = "application/x-www-form-urlencoded", description = "The page's plan inputs, `_scenario`, `_key`."),
    responses(FormResponses)
)]
#[post("/report/compare")]
pub async fn compare_form(state: web::Data<AppState>, body: web::Bytes) -> HttpResponse {
    let set = state.catalogs.current();
    let q = match form_pairs(&body) {
        Ok(q) => q,
        Err(e) => return problem_page(&e, &[], &gpu_ids(set.newest())),
    };
    let page = async {
        let key =
            super::auth::caller_token(&state, field(&q, "_key")?, crate::store::keys::Scope::Read)
                .await?;
        let d = super::diff::scenario_against_query(&state, &key.team, field(&q, "_scenario")?, &q)
            .await?;
        report::DiffPage::of(&d, report_address(&q, &[]))
            .render()
            .map_err(|e| ApiError::internal(&e))
    };
    match page.await {
        Ok(body) => html(StatusCode::OK, body),
        Err(e) => problem_page(&e, &report::plan_pairs(&q.pairs), &gpu_ids(set.newest())),
    }
}
