//! Liveness and readiness probes.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;

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
    /// `ready` when at least one catalog is loaded.
    #[schema(example = "ready")]
    pub status: String,
    /// Catalogs loaded.
    #[schema(example = 1)]
    pub catalogs: usize,
    /// Id of the default (newest) catalog.
    #[schema(example = "default")]
    pub default_catalog: String,
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
/// Answers `200` once the pricing catalogs are loaded (the service refuses to start without a
/// valid one, so a running service is ready).
#[utoipa::path(
    tag = "health",
    responses((status = 200, description = "Catalogs are loaded; plans can be priced.", body = Readiness))
)]
#[get("/readyz")]
pub async fn readyz(state: web::Data<AppState>) -> HttpResponse {
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(Readiness {
            status: "ready".into(),
            catalogs: state.catalogs.all().len(),
            default_catalog: state.catalogs.newest().id().to_string(),
        })
}
