//! Liveness and readiness probes.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use crate::catalog::store::SourceStatus;

/// Liveness: the process serves HTTP.
#[derive(Debug, Serialize, ToSchema)]
pub struct Health {
    /// Always `ok`.
    #[schema(example = "ok")]
    pub status: String,
    /// Service version (Cargo package version).
    #[schema(example = "0.1.0")]
    pub version: String,
}

/// Readiness: catalogs are loaded and plans can be priced.
#[derive(Debug, Serialize, ToSchema)]
pub struct Readiness {
    /// `ready`: plans are priced and every remote catalog source is up to date. `degraded`:
    /// plans are still priced (from the local catalogs and each source's last good version),
    /// but a remote source is failing or has never loaded — see `sources`.
    #[schema(example = "ready")]
    pub status: String,
    /// Catalogs loaded.
    #[schema(example = 1)]
    pub catalogs: usize,
    /// Id of the default (newest) catalog.
    #[schema(example = "default")]
    pub default_catalog: String,
    /// Version of the default catalog.
    #[schema(example = "2026.11.0")]
    pub default_catalog_version: String,
    /// SHA-256 of the default catalog.
    pub default_catalog_sha256: String,
    /// Remote catalog sources: state, last successful fetch, last error.
    pub sources: Vec<SourceStatus>,
    /// The memo of recent plans (`FABRIC_TCO_PLAN_CACHE`).
    pub plan_cache: PlanCacheStats,
    /// The database of saved scenarios and catalog versions.
    pub database: DatabaseStatus,
}

/// Whether the database answers.
#[derive(Debug, Serialize, ToSchema)]
pub struct DatabaseStatus {
    /// `sqlite` or `postgres`.
    #[schema(example = "sqlite")]
    pub backend: String,
    /// `ok`, or `unavailable` (saved scenarios and catalog versions answer 503; plans still
    /// answer).
    #[schema(example = "ok")]
    pub state: String,
}

/// What the plan memo holds and how often it answered.
#[derive(Debug, Serialize, ToSchema)]
pub struct PlanCacheStats {
    /// Plans held now.
    pub entries: usize,
    /// Most plans held (0 = memo off).
    pub capacity: usize,
    /// Requests answered from the memo since start.
    pub hits: u64,
    /// Plans computed since start.
    pub misses: u64,
}

/// Liveness probe.
///
/// Answers `200` with `{"status":"ok"}` while the process serves HTTP. Cheap: use it as a
/// container health check and as the load-test baseline.
#[utoipa::path(
    tag = "health",
    responses((status = 200, description = "The service is alive.", body = Health))
)]
#[get("/healthz")]
pub async fn healthz() -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(Health {
            status: "ok".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        })
}

/// Readiness probe.
///
/// Answers `200` while plans can be priced: the service refuses to start without a valid local
/// catalog, so a running service can always price. `status` is `degraded` when a configured
/// remote catalog source is failing (or never loaded): plans are then priced from the local
/// catalogs and each source's last good version; `sources` says which source, since when and
/// why. Alert on `degraded`; do not take the instance out of rotation for it. Answers `503`
/// with `status: unavailable` while the database cannot be reached (within 5 s): saved
/// scenarios cannot be served then, though plans still answer.
#[utoipa::path(
    tag = "health",
    responses(
        (status = 200, description = "Plans can be priced and the database answers; `status` says whether every remote catalog source is current.", body = Readiness),
        (status = 503, description = "The database cannot be reached (`database.state`); plans still answer.", body = Readiness)
    )
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    let set = state.catalogs.current();
    let db = state.archive.db();
    let reachable = db.reachable().await.is_ok();
    let mut res = if reachable {
        HttpResponse::Ok()
    } else {
        HttpResponse::ServiceUnavailable()
    };
    res.insert_header(("Cache-Control", "no-store"))
        .json(Readiness {
            status: if !reachable {
                "unavailable".into()
            } else if state.catalogs.degraded() {
                "degraded".into()
            } else {
                "ready".into()
            },
            database: DatabaseStatus {
                backend: match db.backend() {
                    crate::store::Backend::Sqlite => "sqlite".into(),
                    crate::store::Backend::Postgres => "postgres".into(),
                },
                state: if reachable { "ok" } else { "unavailable" }.into(),
            },
            catalogs: set.all().len(),
            default_catalog: set.newest().id().to_string(),
            default_catalog_version: set.newest().data.version.clone(),
            default_catalog_sha256: set.newest().sha256.clone(),
            sources: state.catalogs.sources(),
            plan_cache: {
                let (hits, misses) = state.plans.stats();
                PlanCacheStats {
                    entries: state.plans.len(),
                    capacity: state.plans.capacity(),
                    hits,
                    misses,
                }
            },
        })
}
