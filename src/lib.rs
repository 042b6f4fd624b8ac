//! fabric-tco: sizes, prices and compares GPU-cluster scale-out fabrics (InfiniBand, RoCEv2 with
//! ECMP, adaptive-routing Ethernet).
//!
//! Data flows one way: `api` → `plan` → {`sizing`, `perf`, `cost`} → `catalog`. Only `api`
//! knows about HTTP; the rest are plain functions over plain data.

pub mod api;
pub mod catalog;
pub mod config;
pub mod cost;
pub mod fabric;
pub mod perf;
pub mod plan;
pub mod sizing;

use std::net::TcpListener;
use std::sync::Arc;

use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{App, HttpServer, web};
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use api::{AppState, RouteTable};
use catalog::{CatalogSet, LoadError};
use config::Settings;

/// Loads the catalogs the settings ask for: a directory, or the embedded ones.
pub fn load_catalogs(settings: &Settings) -> Result<CatalogSet, LoadError> {
    match &settings.catalog_dir {
        Some(dir) => CatalogSet::from_dir(dir),
        None => CatalogSet::embedded(),
    }
}

/// The app factory: builds the HTTP server on `listener` (used by `main` and the tests).
/// Everything shared — catalogs, the OpenAPI document, the route table — is built once here,
/// outside the per-worker closure.
pub fn build_server(
    listener: TcpListener,
    catalogs: CatalogSet,
    workers: Option<usize>,
) -> std::io::Result<Server> {
    let doc = api::openapi_document();
    let state = web::Data::new(AppState {
        catalogs: Arc::new(catalogs),
        routes: Arc::new(RouteTable::from_openapi(&doc)),
    });
    let mut server = HttpServer::new(move || {
        App::new()
            .app_data(state.clone())
            .app_data(web::PayloadConfig::new(api::extract::MAX_BODY_BYTES))
            .into_utoipa_app()
            .configure(api::configure)
            .into_app()
            .service(SwaggerUi::new("/swagger-ui/{_:.*}").url("/openapi.json", doc.clone()))
            .default_service(web::to(api::fallback))
            .wrap(from_fn(api::middleware::problem_bodies))
            .wrap(from_fn(api::middleware::head_as_get))
            .wrap(from_fn(api::middleware::access_log))
    })
    .listen(listener)?
    .shutdown_timeout(10);
    if let Some(n) = workers {
        server = server.workers(n);
    }
    Ok(server.run())
}
