//! fabric-tco: sizes, prices and compares GPU-cluster scale-out fabrics (InfiniBand, RoCEv2 with
//! ECMP, adaptive-routing Ethernet).
//!
//! Data flows one way: `api` → `plan` → {`sizing`, `perf`, `cost`} → `catalog`. Only `api`
//! knows about HTTP; the rest are plain functions over plain data (`arith` holds the integer
//! helpers the models share).

pub mod admin;
pub mod api;
pub mod archive;
pub mod arith;
pub mod catalog;
pub mod charts;
pub mod clock;
pub mod config;
pub mod cost;
pub mod error_code;
pub mod fabric;
pub mod json;
pub mod logging;
pub mod parallel;
pub mod perf;
pub mod plan;
pub mod report;
pub mod sizing;
pub mod store;
pub mod table;
pub mod validation;
pub mod words;

#[cfg(test)]
mod structure_tests;

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_service::ServiceFactoryExt;
use actix_web::dev::Server;
use actix_web::middleware::from_fn;
use actix_web::{App, web};
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use api::{AppState, RouteTable};
use catalog::remote::Fetcher;
use catalog::store::CatalogStore;
use catalog::{CatalogSet, LoadError};
pub use config::ServerOptions;
use config::Settings;

/// Loads the local catalogs the settings ask for: a directory, or the embedded ones.
pub fn load_catalogs(settings: &Settings) -> Result<CatalogSet, LoadError> {
    match &settings.catalog_dir {
        Some(dir) => CatalogSet::from_dir(dir),
        None => CatalogSet::embedded(),
    }
}

/// The live catalog store for `settings`: the local catalogs, then one fetch of every remote
/// source (concurrently, each bounded by the catalog timeout). A failing source does not stop
/// the start: the store reports it and keeps serving the local catalogs. Returns the fetcher
/// for the periodic refresh (`None` without remote sources).
pub async fn start_catalogs(
    settings: &Settings,
) -> Result<(Arc<CatalogStore>, Option<Arc<Fetcher>>), String> {
    let local = load_catalogs(settings).map_err(|e| e.to_string())?;
    let store = Arc::new(CatalogStore::new(local, &settings.catalog_urls));
    store.set_expose_sources(settings.expose_sources);
    if settings.catalog_urls.is_empty() {
        return Ok((store, None));
    }
    let fetcher = Arc::new(Fetcher::new(
        settings.catalog_urls.clone(),
        settings.catalog_timeout,
    )?);
    fetcher.refresh_all(&store).await;
    Ok((store, Some(fetcher)))
}

/// Opens the store the settings name and writes the live catalogs' versions to it. A database
/// that cannot be reached is not fatal (plans answer; readiness says so; the versions are
/// written on first use); one that is not fabric-tco's is.
pub async fn open_archive(
    settings: &Settings,
    catalogs: &CatalogStore,
) -> Result<Arc<archive::Archive>, String> {
    let db = Arc::new(store::Db::open(&settings.database_url())?);
    let archive = Arc::new(archive::Archive::new(db));
    match archive.remember(&catalogs.current()).await {
        Ok(()) => log::info!("database: {}", archive.db().shown()),
        Err(e @ store::StoreError::Foreign(_)) => return Err(e.to_string()),
        Err(e) => log::warn!("{e}; saved scenarios are unavailable until it answers"),
    }
    Ok(archive)
}

/// Refreshes the remote catalogs every `every`, storing each new version.
pub async fn refresh_catalogs(
    fetcher: Arc<Fetcher>,
    catalogs: Arc<CatalogStore>,
    archive: Arc<archive::Archive>,
    every: Duration,
) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await; // the first tick is immediate; start-up already fetched
    loop {
        tick.tick().await;
        fetcher.refresh_all(&catalogs).await;
        if let Err(e) = archive.remember(&catalogs.current()).await {
            log::warn!("catalog versions not stored: {e}");
        }
    }
}

/// The app factory: builds the HTTP server on `listener` (used by `main` and the tests).
/// Everything shared — the catalog store, the OpenAPI document, the route table — is built
/// once here, outside the per-worker closure.
pub fn build_server(
    listener: TcpListener,
    catalogs: Arc<CatalogStore>,
    archive: Arc<archive::Archive>,
    options: &ServerOptions,
) -> std::io::Result<Server> {
    let doc = api::openapi_document();
    let heavy = api::heavy::Heavy::new(options.heavy_threads, options.heavy_priority);
    log::info!(
        "sweeps and analyses: {} computing threads, {}",
        heavy.threads(),
        match (heavy.class(), options.heavy_priority) {
            (config::HeavyPriority::Idle, _) => "in the idle scheduling class (SCHED_IDLE)".into(),
            (config::HeavyPriority::Nice(n), _) =>
                format!("at nice {n} (FABRIC_TCO_HEAVY_PRIORITY)"),
            (config::HeavyPriority::Normal, config::HeavyPriority::Normal) =>
                "at normal priority (FABRIC_TCO_HEAVY_PRIORITY)".into(),
            (config::HeavyPriority::Normal, _) => {
                "at normal priority (the system refused the lower class asked for)".into()
            }
        }
    );
    let state = web::Data::new(AppState {
        catalogs,
        routes: Arc::new(RouteTable::from_openapi(&doc)),
        plans: Arc::new(plan::cache::PlanCache::new(options.plan_cache)),
        request_deadline: options.request_deadline,
        sweep_slots: Arc::new(tokio::sync::Semaphore::new(
            api::sheets::sweeps::MAX_CONCURRENT_SWEEPS,
        )),
        heavy,
        renders: Arc::new(tokio::sync::Semaphore::new(api::charts::render_permits())),
        unsent: Arc::new(tokio::sync::Semaphore::new(api::parts::UNSENT_KIB)),
        unsent_by_peer: api::parts::UnsentByPeer::default(),
        archive,
        keys_for_all: options.keys_for_all,
    });
    let app = move || {
        App::new()
            .app_data(state.clone())
            .app_data(web::PayloadConfig::new(api::extract::MAX_BODY_BYTES))
            .into_utoipa_app()
            .configure(api::configure)
            .into_app()
            .service(
                SwaggerUi::new("/swagger-ui/{_:.*}")
                    .url("/openapi.json", doc.clone())
                    // No badge: Swagger UI would send this service's address to a public
                    // online validator from every reader's browser.
                    .config(utoipa_swagger_ui::Config::default().validator_url("none")),
            )
            .default_service(web::to(api::fallback))
            .wrap(from_fn(api::middleware::require_keys))
            .wrap(from_fn(api::middleware::deadline))
            .wrap(from_fn(api::middleware::refuse_content_encoding))
            .wrap(from_fn(api::middleware::problem_bodies))
            .wrap(from_fn(api::middleware::head_as_get))
            .wrap(from_fn(api::middleware::access_log))
            .wrap(from_fn(api::middleware::security_headers))
    };
    // actix-web's `HttpServer` wired by hand (same settings), so that each accepted stream can
    // be wrapped: the HTTP layer's own error responses (400, 408, 431) get problem bodies
    // (`api::wire`).
    let addr = listener.local_addr()?;
    let keep_alive = options.keep_alive;
    let request_timeout = options.request_timeout;
    // A client that takes no byte of an answer for `write_stall` is cut off (`api::wire`).
    let stall_limit = options.write_stall;
    let mut builder = actix_server::Server::build()
        .shutdown_timeout(options.shutdown.as_secs())
        .listen("fabric-tco", listener, move || {
            let http = actix_http::HttpService::build()
                .keep_alive(keep_alive)
                .client_request_timeout(request_timeout)
                .client_disconnect_timeout(Duration::from_secs(1))
                .local_addr(addr)
                .finish(actix_service::map_config(
                    actix_service::IntoServiceFactory::into_factory(app())
                        .map_err(|e: actix_web::Error| e.error_response()),
                    |()| actix_web::dev::AppConfig::default(),
                ));
            actix_service::fn_service(move |io: actix_rt::net::TcpStream| async move {
                let peer = io.peer_addr().ok();
                Ok::<_, actix_http::error::DispatchError>((
                    api::wire::ProblemWire::new(io, stall_limit),
                    actix_http::Protocol::Http1,
                    peer,
                ))
            })
            .and_then(http)
        })?;
    if let Some(n) = options.workers {
        builder = builder.workers(n);
    }
    Ok(builder.run())
}
