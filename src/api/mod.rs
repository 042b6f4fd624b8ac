//! HTTP only: handlers translate between HTTP and the pure core (`plan`), nothing else.

pub mod auth;
pub mod catalogs;
pub mod charts;
pub mod conneg;
pub mod diff;
pub mod error;
pub mod extract;
pub mod fit;
pub mod health;
pub mod heavy;
pub mod middleware;
pub mod parts;
pub mod plans;
pub mod query;
pub mod report;
pub mod responses;
pub mod scenario_plan;
pub mod scenarios;
pub mod shape;
pub mod sheets;
pub mod validation;
pub mod wire;

use std::sync::Arc;

use actix_web::http::Method;
use actix_web::{HttpRequest, HttpResponse};
use utoipa::OpenApi;
use utoipa::openapi::OpenApi as OpenApiDoc;
use utoipa_actix_web::service_config::ServiceConfig;

use crate::catalog::store::CatalogStore;
use error::ApiError;

/// What every handler shares (built once, outside the per-worker factory).
#[derive(Debug, Clone)]
pub struct AppState {
    /// The live catalogs: take `catalogs.current()` once per request.
    pub catalogs: Arc<CatalogStore>,
    pub routes: Arc<RouteTable>,
    /// Recent plans (a repeated request is answered without recomputing).
    pub plans: Arc<crate::plan::cache::PlanCache>,
    /// Longest a request may take, receipt of the body included.
    pub request_deadline: std::time::Duration,
    /// Permits for sweeps and analyses admitted at once (`sheets::sweeps::MAX_CONCURRENT_SWEEPS`;
    /// more get a 503 busy).
    pub sweep_slots: Arc<tokio::sync::Semaphore>,
    /// Where sweeps and analyses compute: permits for the threads computing at once
    /// (`FABRIC_TCO_HEAVY_THREADS`) and their scheduling class (`FABRIC_TCO_HEAVY_PRIORITY`).
    /// A sweep or an analysis takes one permit and every other one free ([`heavy::Heavy`]);
    /// admitted work beyond them waits its turn (within its deadline).
    pub heavy: heavy::Heavy,
    /// Permits for chart images rasterised at once ([`charts::RENDER_WAIT`]): a PNG holds a
    /// pixmap of up to 14 MB and a core; more wait briefly, then get a 503 busy.
    pub renders: Arc<tokio::sync::Semaphore>,
    /// KiB of heavy answers computed but not yet taken by their clients
    /// ([`parts::UNSENT_KIB`]): the memory slow readers may hold, apart from the computing
    /// slots, which are given back once an answer is encoded.
    pub unsent: Arc<tokio::sync::Semaphore>,
    /// Heavy answers not yet taken, by client address ([`parts::MAX_UNSENT_PER_PEER`]): a
    /// client that does not read its answers is refused more, and other clients are not.
    pub unsent_by_peer: parts::UnsentByPeer,
    /// The store: catalog versions, saved scenarios, API keys.
    pub archive: Arc<crate::archive::Archive>,
    /// `FABRIC_TCO_KEYS_FOR=all`: every API path needs a key, not only saved scenarios.
    pub keys_for_all: bool,
}

/// The catalogs to plan `reference` with: the live set, plus the stored version it pins when
/// that is not live any more.
pub async fn catalogs_for(
    state: &AppState,
    reference: Option<&str>,
) -> Result<Arc<crate::catalog::CatalogSet>, ApiError> {
    use crate::archive::VersionError;
    let set = state.catalogs.current();
    let Some(reference) = reference else {
        return Ok(set);
    };
    let (id, Some(pin)) = crate::catalog::split_reference(reference) else {
        return Ok(set);
    };
    if set.resolve(reference).is_some() || !crate::catalog::is_pin(pin) {
        return Ok(set);
    }
    let selector = crate::store::versions::Selector::Sha256Prefix(pin);
    match state.archive.version(id, selector).await {
        Ok(Some(c)) => Ok(Arc::new(set.with_pinned(c))),
        // The plan names the unknown version (422).
        Ok(None) => Ok(set),
        Err(VersionError::Store(e)) => Err(ApiError::store(&e)),
        Err(VersionError::Ambiguous(m) | VersionError::Invalid(m)) => Err(ApiError::field(
            "/catalog",
            error::ErrorCode::UnknownCatalog,
            m,
        )),
    }
}

/// The plan for `req` from the live catalogs (through the memo), with warnings about failing
/// remote catalog sources.
///
/// A request with an uncertainty analysis (up to 100,000 samples, seconds of a core) runs on
/// heavy threads ([`heavy::Heavy`]: its samples over every free computing permit), at most
/// [`sheets::sweeps::MAX_CONCURRENT_SWEEPS`] at once together with the sweeps (more get a 503
/// with `Retry-After`), and stops at 90% of the request deadline: it must not stall the other
/// connections of this worker's event loop.
pub async fn plan_for(
    state: &AppState,
    req: &crate::plan::PlanRequest,
) -> Result<Arc<crate::plan::cache::CachedPlan>, ApiError> {
    plan_at(state, req, crate::plan::Detail::Full).await
}

/// [`plan_for`] at `detail`: a [`crate::plan::Detail::Figures`] plan for an answer that reads
/// figures only (a `/v1/value` number, the plan CSV), without the BOM's lines and the
/// comparison's words.
pub async fn plan_at(
    state: &AppState,
    req: &crate::plan::PlanRequest,
    detail: crate::plan::Detail,
) -> Result<Arc<crate::plan::cache::CachedPlan>, ApiError> {
    let set = catalogs_for(state, req.catalog.as_deref()).await?;
    let id = req
        .catalog
        .as_deref()
        .map(|r| crate::catalog::split_reference(r).0.to_string())
        .unwrap_or_else(|| set.newest().id().to_string());
    // A pinned plan says nothing of newer versions: its answer stays byte for byte the same
    // after the catalog changed (`plan.catalog` names the version that priced it).
    let warnings = state.catalogs.plan_warnings(&id);
    if req.uncertainty.is_none() {
        return Ok(state.plans.plan(req, &set, &warnings, detail)?);
    }
    let plans = Arc::clone(&state.plans);
    let samples = req
        .uncertainty
        .as_ref()
        .map(|u| u.samples.unwrap_or_default().get())
        .unwrap_or_default();
    let req = req.clone();
    let late = move || ApiError::from(crate::plan::uncertainty::too_slow(samples));
    heavy_admitted(state, late, move |effort| {
        plans
            .plan_until(&req, &set, &warnings, effort, detail)
            .map_err(ApiError::from)
    })
    .await
}

/// Runs `work` as heavy work: admitted among the sweeps and analyses (a 503 with `Retry-After`
/// past [`sheets::sweeps::MAX_CONCURRENT_SWEEPS`]), on heavy threads ([`heavy::Heavy`]), within
/// 90 % of the request deadline (`late()` past it; `work` gets it as its effort's deadline).
pub async fn heavy_admitted<T: Send + 'static>(
    state: &AppState,
    late: impl FnOnce() -> ApiError,
    work: impl FnOnce(crate::plan::Effort) -> Result<T, ApiError> + Send + 'static,
) -> Result<T, ApiError> {
    let slot = Arc::clone(&state.sweep_slots)
        .try_acquire_owned()
        .map_err(|_| {
            ApiError::new(
                error::ErrorCode::Busy,
                format!(
                    "{} sweeps, fits or uncertainty analyses are running; retry in a second",
                    sheets::sweeps::MAX_CONCURRENT_SWEEPS
                ),
            )
            .with_retry_after(1)
        })?;
    let (until, _) = middleware::heavy_budget(state.request_deadline);
    heavy::by(until, late, async move {
        let permits = state.heavy.permits().await?;
        state
            .heavy
            .run(move || {
                let effort = crate::plan::Effort {
                    deadline: Some(until),
                    threads: permits.threads(),
                };
                let _slots = (slot, permits);
                work(effort)
            })
            .await?
    })
    .await
}

/// Registers every documented endpoint (each `#[utoipa::path]` handler).
pub fn configure(cfg: &mut ServiceConfig) {
    cfg.service(health::healthz)
        .service(health::readyz)
        .service(catalogs::list_catalogs)
        .service(catalogs::list_versions)
        .service(catalogs::get_catalog)
        .service(scenarios::create_scenario)
        .service(scenarios::list_scenarios)
        .service(scenarios::get_scenario)
        .service(scenarios::revise_scenario)
        .service(scenarios::delete_scenario)
        .service(scenarios::list_revisions)
        .service(scenario_plan::scenario_plan)
        .service(diff::get_diff)
        .service(plans::post_plan)
        .service(fit::post_fit)
        .service(fit::get_fit)
        .service(charts::get_chart)
        .service(report::index)
        .service(report::report_page)
        .service(report::save_form)
        .service(report::compare_form)
        .service(report::open_form)
        .service(validation::get_validation)
        .configure(sheets::configure);
}

#[derive(OpenApi)]
#[openapi(
    info(
        title = "fabric-tco",
        description = "Sizes, prices and compares GPU-cluster scale-out fabrics — InfiniBand, RoCEv2 with ECMP, \
adaptive-routing Ethernet — from a sourced pricing catalog and an analytical all-reduce model: capex, \
multi-year TCO and the cost of GPU time lost to the network, side by side.\n\nMoney is a decimal string in USD. \
Every error is `application/problem+json` (RFC 9457) with a stable `code` and, for invalid input, the JSON \
pointer of each bad field.",
        license(name = "Apache-2.0")
    ),
    tags(
        (name = "plans", description = "Fabric plans: sizing, bill of materials, performance, cost."),
        (name = "catalogs", description = "Pricing catalogs: SKUs, prices, power, sources."),
        (name = "health", description = "Liveness and readiness probes."),
        (name = "charts", description = "Plans drawn as SVG or PNG images."),
        (name = "report", description = "The report page (HTML) for people."),
        (name = "validation", description = "The performance model against published measurements, computed live."),
        (name = "scenarios", description = "Saved scenarios, each plan reproducible on its pinned catalog version (API key).")
    ),
    modifiers(&BearerKeys),
    components(schemas(
        error::Problem,
        error::FieldError,
        crate::charts::data::ChartId,
        crate::plan::Plan,
        crate::table::BomSheet,
        sheets::sweeps::SweepResult,
        crate::plan::fit::Fit,
        crate::validation::Validation
    ))
)]
struct ApiDoc;

/// The `api_key` security scheme the scenario endpoints name: `Authorization: Bearer <key>`.
struct BearerKeys;

impl utoipa::Modify for BearerKeys {
    fn modify(&self, doc: &mut OpenApiDoc) {
        use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};
        if let Some(c) = doc.components.as_mut() {
            c.add_security_scheme(
                "api_key",
                SecurityScheme::Http(
                    HttpBuilder::new()
                        .scheme(HttpAuthScheme::Bearer)
                        .description(Some(
                            "A key from `fabric-tco keys create --name N --scope read|write`.",
                        ))
                        .build(),
                ),
            );
        }
    }
}

/// The OpenAPI document the service serves (and `openapi/openapi.json` holds).
pub fn openapi_document() -> OpenApiDoc {
    use utoipa_actix_web::AppExt;
    let (_, mut doc) = actix_web::App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(configure)
        .split_for_parts();
    add_examples(&mut doc);
    describe_keyed_params(&mut doc);
    doc
}

/// What the plan's GET endpoints also read: one parameter per key of a map input. OpenAPI
/// names every parameter, and these names carry a SKU, vendor, category or input, so they are
/// said in each such operation's description rather than listed.
const KEYED_PARAMS: &str = "\n\nAlso read, one parameter per key (their names carry the key, so they \
are not listed above): `prices.overrides.<sku>=<USD>` (a SKU's net unit price), \
`prices.discounts.vendor.<vendor>=<fraction>` and `prices.discounts.category.<category>=<fraction>` \
(discounts off list, 0 to below 1), and `uncertainty.inputs.<input>=<low>,<high>` or \
`<low>,<mode>,<high>` (a range of any continuous input or `prices.list.<sku>`, in its unit; \
docs/uncertainty.md). A sweep's `vary` takes the listed numeric inputs and the keyed price \
inputs (`vary=prices.overrides.nvidia-sn5600`: the price at which the cheapest fabric changes).";

fn describe_keyed_params(doc: &mut OpenApiDoc) {
    for item in doc.paths.paths.values_mut() {
        let Some(op) = item.get.as_mut() else {
            continue;
        };
        let reads_plan = op.parameters.as_ref().is_some_and(|ps| {
            ps.iter()
                .any(|p| matches!(p, utoipa::openapi::RefOr::T(p) if p.name == "gpus"))
        });
        if reads_plan {
            let d = op.description.get_or_insert_with(String::new);
            d.push_str(KEYED_PARAMS);
        }
    }
}

/// Real examples, generated rather than written: every problem response shows a problem the
/// service renders for that status, and the plan endpoints' 200 shows a real plan (64 GPUs,
/// InfiniBand and RoCE, embedded catalog).
fn add_examples(doc: &mut OpenApiDoc) {
    use utoipa::openapi::RefOr;
    let examples = Examples::new();
    for (path, item) in doc.paths.paths.iter_mut() {
        let ops = [(&mut item.get, true), (&mut item.post, false)];
        for (op, query) in ops {
            let Some(op) = op else { continue };
            for (status, resp) in op.responses.responses.iter_mut() {
                let RefOr::T(r) = resp else { continue };
                let code = status.parse::<u16>().unwrap_or(0);
                for (ct, content) in r.content.iter_mut() {
                    let RefOr::T(content) = content else { continue };
                    if ct == error::PROBLEM_JSON {
                        content.example = if code == 404 && path.starts_with("/v1/charts/") {
                            serde_json::to_value(charts::unknown_chart("nope").problem()).ok()
                        } else {
                            responses::problem_example(code, query)
                        };
                    } else if code == 200 {
                        content.example = examples.of(path, ct).or(content.example.take());
                    }
                }
            }
        }
    }
}

/// Real answers of the embedded catalog for the OpenAPI `200` examples: a plan of 64 GPUs on
/// InfiniBand and RoCE (JSON and CSV), its BOM, one figure of it, and a sweep of it over 64 and
/// 128 GPUs. Built when the document is (once per process); a part that cannot be built is left
/// without an example rather than given a stub.
struct Examples {
    plan: Option<serde_json::Value>,
    plan_csv: Option<String>,
    bom: Option<serde_json::Value>,
    bom_csv: Option<String>,
    value: Option<String>,
    sweep: Option<(serde_json::Value, String)>,
}

impl Examples {
    fn new() -> Examples {
        let set = crate::catalog::CatalogSet::embedded().ok();
        let plan = set.as_ref().and_then(|set| {
            let req = extract::parse_json::<crate::plan::PlanRequest>(
                br#"{"gpus": 64, "fabrics": ["infiniband", "roce"]}"#,
            )
            .ok()?;
            crate::plan::build_plan(&req, set).ok()
        });
        let sheet = plan.as_ref().map(crate::table::bom_sheet);
        Examples {
            plan: plan.as_ref().and_then(|p| serde_json::to_value(p).ok()),
            plan_csv: plan.as_ref().and_then(|p| crate::table::plan_csv(p).ok()),
            bom: sheet.as_ref().and_then(|s| serde_json::to_value(s).ok()),
            bom_csv: plan
                .as_ref()
                .zip(sheet.as_ref())
                .and_then(|(p, s)| crate::table::bom_csv(p, s).ok()),
            value: plan.as_ref().and_then(|p| {
                crate::table::metrics::value(
                    p,
                    "tco.total_usd",
                    crate::table::metrics::FabricChoice::Named(crate::fabric::Fabric::Infiniband),
                )
                .ok()
                .map(|(v, _)| v)
            }),
            sweep: set.as_ref().and_then(|set| {
                sheets::sweeps::example("vary=gpus&values=64,128&fabrics=infiniband,roce", set)
            }),
        }
    }

    /// The example of `path`'s `200` in content type `ct`.
    fn of(&self, path: &str, ct: &str) -> Option<serde_json::Value> {
        let text = |t: &Option<String>| t.clone().map(serde_json::Value::String);
        match (path, ct) {
            ("/v1/plans", "application/json") => self.plan.clone(),
            ("/v1/plans", "text/csv") => text(&self.plan_csv),
            ("/v1/plans/bom", "application/json") => self.bom.clone(),
            ("/v1/plans/bom", "text/csv") => text(&self.bom_csv),
            ("/v1/value", "text/plain") => text(&self.value),
            ("/v1/sweeps", "application/json") => self.sweep.as_ref().map(|s| s.0.clone()),
            ("/v1/sweeps", "text/csv") => self.sweep.as_ref().map(|s| s.1.clone().into()),
            _ => None,
        }
    }
}

/// Paths the service answers and the methods each allows, for 405 `Allow` and OPTIONS.
#[derive(Debug, Clone, Default)]
pub struct RouteTable {
    routes: Vec<(Vec<String>, Vec<Method>)>,
}

impl RouteTable {
    /// From the OpenAPI document (so the table cannot drift from the handlers), plus the
    /// undocumented GET-only paths (`/openapi.json`, Swagger UI).
    pub fn from_openapi(doc: &OpenApiDoc) -> RouteTable {
        let mut routes = Vec::new();
        for (path, item) in &doc.paths.paths {
            let mut methods = Vec::new();
            if item.get.is_some() {
                methods.push(Method::GET);
                methods.push(Method::HEAD);
            }
            if item.post.is_some() {
                methods.push(Method::POST);
            }
            if item.put.is_some() {
                methods.push(Method::PUT);
            }
            if item.delete.is_some() {
                methods.push(Method::DELETE);
            }
            methods.push(Method::OPTIONS);
            routes.push((split(path), methods));
        }
        for path in ["/openapi.json", "/swagger-ui/"] {
            routes.push((
                split(path),
                vec![Method::GET, Method::HEAD, Method::OPTIONS],
            ));
        }
        RouteTable { routes }
    }

    /// The methods allowed on `path`, if the path is known.
    pub fn allowed(&self, path: &str) -> Option<&[Method]> {
        let segs = split(path);
        self.routes
            .iter()
            .find(|(tpl, _)| {
                tpl.len() == segs.len()
                    && tpl
                        .iter()
                        .zip(&segs)
                        .all(|(t, s)| (t.starts_with('{') && !s.is_empty()) || t == s)
            })
            .map(|(_, m)| m.as_slice())
    }
}

/// Path segments; a trailing slash is an empty last segment, so `/healthz/` is not `/healthz`.
fn split(path: &str) -> Vec<String> {
    path.split('/').skip(1).map(str::to_string).collect()
}

/// Answers requests no handler took: `/swagger-ui` → 308 to `/swagger-ui/`; OPTIONS on a known
/// path → 204 with `Allow`; another method on a known path → 405 with `Allow`; anything else
/// (slash variants of known paths included) → 404. Always problem+json.
pub async fn fallback(req: HttpRequest) -> Result<HttpResponse, ApiError> {
    if req.path() == "/swagger-ui" {
        return Ok(HttpResponse::PermanentRedirect()
            .insert_header(("Location", "/swagger-ui/"))
            .finish());
    }
    let routes = req
        .app_data::<actix_web::web::Data<AppState>>()
        .map(|s| Arc::clone(&s.routes))
        .unwrap_or_default();
    match routes.allowed(req.path()) {
        Some(methods) => {
            let allow = methods
                .iter()
                .map(Method::as_str)
                .collect::<Vec<_>>()
                .join(", ");
            if req.method() == Method::OPTIONS {
                Ok(HttpResponse::NoContent()
                    .insert_header(("Allow", allow))
                    .finish())
            } else {
                Err(ApiError::method_not_allowed(allow))
            }
        }
        None => Err(ApiError::not_found(format!(
            "no resource at {}",
            req.path()
        ))),
    }
}
