//! `fabric-tco`: serve the API (default), `fabric-tco openapi` to print the OpenAPI document, or
//! `fabric-tco healthcheck` to probe a running service's `/healthz` (the container's HEALTHCHECK).

use std::io::{Read, Write};
use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr, TcpListener, TcpStream};
use std::process::ExitCode;
use std::time::Duration;

use fabric_tco::config::Settings;

/// What `fabric-tco --help` prints.
const USAGE: &str = "\
fabric-tco: GPU-cluster fabric sizing and TCO, InfiniBand against RoCE Ethernet, as a REST service

Usage:
  fabric-tco               serve the API (Swagger UI at /swagger-ui/)
  fabric-tco openapi       print the OpenAPI document
  fabric-tco healthcheck   probe a running service's /healthz (exit 0 on 200)
  fabric-tco keys create --name N --scope read|write [--team T]
                           create an API key for saved scenarios (printed once)
  fabric-tco keys list     the keys (never their secrets)
  fabric-tco keys revoke ID
                           revoke a key
  fabric-tco backup FILE   copy the SQLite database to FILE (a new file), while the service runs
  fabric-tco --help        this text
  fabric-tco --version     the version

Settings come from the environment (README.md, Configuration), among them:
  FABRIC_TCO_BIND                   address to listen on (default 127.0.0.1:8080)
  FABRIC_TCO_CATALOG_DIR            a directory of pricing catalogs (default: the embedded one)
  FABRIC_TCO_CATALOG_URLS           remote catalogs, comma-separated
  FABRIC_TCO_DATABASE_URL           sqlite://PATH or postgres://... (default: SQLite in the data directory)
  FABRIC_TCO_DATA_DIR               the data directory (default $XDG_DATA_HOME/fabric-tco or ~/.local/share/fabric-tco)
  FABRIC_TCO_REQUEST_DEADLINE_SECS  longest a request may take (default 30)
  FABRIC_TCO_LOG_FORMAT             text (default) or json
";

#[actix_web::main]
async fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    match words.as_slice() {
        [] => {}
        ["openapi"] => return openapi(),
        ["healthcheck"] => return healthcheck(),
        ["--help" | "-h" | "help"] => return print_or_fail(USAGE),
        ["--version" | "-V" | "version"] => {
            return print_or_fail(&format!("fabric-tco {}\n", env!("CARGO_PKG_VERSION")));
        }
        ["keys", rest @ ..] => {
            return admin(|s| async move { fabric_tco::admin::keys(&s, rest).await }).await;
        }
        ["backup", file] => {
            return admin(|s| async move { fabric_tco::admin::backup(&s, file).await }).await;
        }
        [
            first @ ("openapi" | "healthcheck" | "backup" | "help" | "--help" | "-h" | "--version"
            | "-V" | "version"),
            second,
            ..,
        ] => {
            eprintln!("fabric-tco: unexpected argument '{second}' after '{first}'\n\n{USAGE}");
            return ExitCode::from(2);
        }
        [other, ..] => {
            eprintln!("fabric-tco: unknown command '{other}'\n\n{USAGE}");
            return ExitCode::from(2);
        }
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
    let archive = match fabric_tco::open_archive(&settings, &store).await {
        Ok(a) => a,
        Err(e) => {
            eprintln!("fabric-tco: {e}");
            return ExitCode::FAILURE;
        }
    };
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
    let options = &settings.server;
    let server = match fabric_tco::build_server(listener, store.clone(), archive.clone(), options) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fabric-tco: cannot start the server: {e}");
            return ExitCode::FAILURE;
        }
    };
    if let (Some(fetcher), Some(every)) = (fetcher, settings.catalog_refresh) {
        actix_web::rt::spawn(fabric_tco::refresh_catalogs(
            fetcher,
            store,
            archive.clone(),
            every,
        ));
    }
    // actix-web stops gracefully on SIGTERM / SIGINT: it stops accepting, lets in-flight
    // requests finish (up to FABRIC_TCO_SHUTDOWN_SECS), then returns.
    let served = server.await;
    archive.db().close().await;
    match served {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fabric-tco: server error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// An operator's command with the service's settings: its text on standard output, or its
/// error on standard error and exit status 1.
async fn admin<F, Fut>(command: F) -> ExitCode
where
    F: FnOnce(Settings) -> Fut,
    Fut: std::future::Future<Output = Result<String, String>>,
{
    let settings = match Settings::from_env() {
        Ok(s) => s,
        Err(e) => {
            eprintln!("fabric-tco: {e}");
            return ExitCode::FAILURE;
        }
    };
    match command(settings).await {
        Ok(text) => print_or_fail(&text),
        Err(e) => {
            eprintln!("fabric-tco: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `fabric-tco openapi`: the OpenAPI document on standard output.
fn openapi() -> ExitCode {
    match fabric_tco::api::openapi_document().to_pretty_json() {
        Ok(json) => print_or_fail(&format!("{json}\n")),
        Err(e) => {
            eprintln!("fabric-tco: cannot render the OpenAPI document: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes `text` to standard output. A reader that stops early (`fabric-tco openapi | head`)
/// is not an error: the rest is not wanted (`println!` panicked on the closed pipe).
fn print_or_fail(text: &str) -> ExitCode {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fabric-tco: cannot write to standard output: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `fabric-tco healthcheck`: `GET /healthz` on the address the service listens on
/// (`FABRIC_TCO_BIND`, read like the server reads it; a wildcard address is probed on loopback).
/// Exit status 0 on a 200 answer, 1 otherwise, so a container needs no HTTP client of its own.
fn healthcheck() -> ExitCode {
    let bind = match Settings::from_env() {
        Ok(s) => s.bind,
        Err(e) => {
            eprintln!("fabric-tco healthcheck: {e}");
            return ExitCode::FAILURE;
        }
    };
    match probe_healthz(bind, Duration::from_secs(2)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("fabric-tco healthcheck: {e}");
            ExitCode::FAILURE
        }
    }
}

/// One HTTP/1.1 `GET /healthz` to `bind` within `timeout` per step; `Ok` only on status 200.
fn probe_healthz(bind: SocketAddr, timeout: Duration) -> Result<(), String> {
    let mut addr = bind;
    if addr.ip().is_unspecified() {
        addr.set_ip(match addr {
            SocketAddr::V4(_) => Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => Ipv6Addr::LOCALHOST.into(),
        });
    }
    let url = format!("http://{addr}/healthz");
    let mut stream = TcpStream::connect_timeout(&addr, timeout)
        .map_err(|e| format!("cannot connect to {addr}: {e}"))?;
    stream
        .set_read_timeout(Some(timeout))
        .and_then(|()| stream.set_write_timeout(Some(timeout)))
        .map_err(|e| format!("{url}: {e}"))?;
    stream
        .write_all(
            format!("GET /healthz HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n")
                .as_bytes(),
        )
        .map_err(|e| format!("{url}: cannot send the request: {e}"))?;
    // The status line is all we need; the answer is small and the connection closes after it.
    let mut head = Vec::new();
    stream
        .take(4096)
        .read_to_end(&mut head)
        .map_err(|e| format!("{url}: cannot read the answer: {e}"))?;
    let text = String::from_utf8_lossy(&head);
    let status_line = text.lines().next().unwrap_or("").trim();
    if status_line.starts_with("HTTP/1.") && status_line.split_whitespace().nth(1) == Some("200") {
        Ok(())
    } else {
        Err(format!("{url} answered '{status_line}', not 200"))
    }
}
