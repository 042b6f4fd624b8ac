//! `fabric-tco`: serve the API (default), or `fabric-tco openapi` to print the OpenAPI document.

use std::net::TcpListener;
use std::process::ExitCode;

use fabric_tco::ServerOptions;
use fabric_tco::config::Settings;

#[actix_web::main]
async fn main() -> ExitCode {
    if std::env::args().nth(1).as_deref() == Some("openapi") {
        return match fabric_tco::api::openapi_document().to_pretty_json() {
            Ok(json) => {
                println!("{json}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("fabric-tco: cannot render the OpenAPI document: {e}");
                ExitCode::FAILURE
            }
        };
    }

    let settings = match Settings::from_env() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fabric-tco: {e}");
            return ExitCode::FAILURE;
        }
    };
    fabric_tco::logging::init(settings.log_format);
    let (store, fetcher) = match fabric_tco::start_catalogs(&settings).await {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fabric-tco: {e}");
            return ExitCode::FAILURE;
        }
    };
    for c in store.current().all() {
        log::info!(
            "catalog {} v{} sha256 {} from {}",
            c.id(),
            c.data.version,
            c.sha256,
            c.origin
        );
    }
    if store.degraded() {
        log::warn!(
            "a remote catalog source is failing; serving the local catalogs and each source's last good version (GET /readyz shows which)"
        );
    }
    let listener = match TcpListener::bind(settings.bind) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("fabric-tco: cannot listen on {}: {e}", settings.bind);
            return ExitCode::FAILURE;
        }
    };
    // The bound address (with `FABRIC_TCO_BIND=127.0.0.1:0` the OS picks the port; scripts
    // read it from this line).
    let bound = listener.local_addr().unwrap_or(settings.bind);
    log::info!("listening on http://{bound}/ (Swagger UI at /swagger-ui/)");
    let options = ServerOptions::from_settings(&settings);
    let server = match fabric_tco::build_server(listener, store.clone(), &options) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fabric-tco: cannot start the server: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let (Some(fetcher), Some(every)) = (fetcher, settings.catalog_refresh) {
        actix_web::rt::spawn(fetcher.run(store, every));
    }
    // actix-web stops gracefully on SIGTERM / SIGINT: it stops accepting, lets in-flight
    // requests finish (up to FABRIC_TCO_SHUTDOWN_SECS), then returns.
    match server.await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fabric-tco: server error: {e}");
            ExitCode::FAILURE
        }
    }
}
