//! `fabric-tco`: serve the API (default), or `fabric-tco openapi` to print the OpenAPI document.

use std::net::TcpListener;
use std::process::ExitCode;

use fabric_tco::config::Settings;

#[actix_web::main]
async fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info")).init();

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
    let catalogs = match fabric_tco::load_catalogs(&settings) {
        Ok(c) => c,
        Err(e) => {
            eprintln!("fabric-tco: {e}");
            return ExitCode::FAILURE;
        }
    };
    for c in catalogs.all() {
        log::info!(
            "catalog {} v{} sha256 {} from {}",
            c.id(),
            c.data.version,
            c.sha256,
            c.origin
        );
    }
    let listener = match TcpListener::bind(settings.bind) {
        Ok(l) => l,
        Err(e) => {
            eprintln!("fabric-tco: cannot listen on {}: {e}", settings.bind);
            return ExitCode::FAILURE;
        }
    };
    log::info!(
        "listening on http://{}/ (Swagger UI at /swagger-ui/)",
        settings.bind
    );
    let server = match fabric_tco::build_server(listener, catalogs, settings.workers) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fabric-tco: cannot start the server: {e}");
            return ExitCode::FAILURE;
        }
    };
    // actix-web stops gracefully on SIGTERM / SIGINT: it stops accepting, lets in-flight
    // requests finish (up to the shutdown timeout), then returns.
    match server.await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fabric-tco: server error: {e}");
            ExitCode::FAILURE
        }
    }
}
