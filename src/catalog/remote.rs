//! Remote catalogs: fetch each configured URL with a timeout and a size cap, validate it exactly
//! like a file, and hand the outcome to the [`CatalogStore`]. `If-None-Match` with the last
//! `ETag` avoids refetching an unchanged catalog.
//!
//! URLs come from configuration only (`FABRIC_TCO_CATALOG_URLS`); nothing a request carries can
//! make the service fetch a URL. Redirects are not followed (a moved catalog is an error to
//! fix in the configuration, not a hop to take silently).

use std::sync::Arc;
use std::time::{Duration, SystemTime};

use reqwest::header::{ACCEPT, ETAG, IF_NONE_MATCH};

use super::source_url::redact_url;
use super::store::{CatalogStore, FetchOutcome, SourceState, SourceStatus};
use super::{Catalog, MAX_CATALOG_BYTES};

/// Installs the process's TLS crypto provider, rustls' ring, before any HTTP client is built
/// (reqwest is built without a provider of its own; Cargo.toml says why). Idempotent.
pub fn install_tls_provider() {
    // An error only means a provider is installed already.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// Fetches the remote catalog sources.
#[derive(Debug, Clone)]
pub struct Fetcher {
    client: reqwest::Client,
    urls: Vec<String>,
    timeout: Duration,
}

impl Fetcher {
    /// A fetcher for `urls` (in the store's source order); `timeout` bounds each fetch from
    /// connect to the last body byte.
    pub fn new(urls: Vec<String>, timeout: Duration) -> Result<Fetcher, String> {
        install_tls_provider();
        let client = reqwest::Client::builder()
            .timeout(timeout)
            .connect_timeout(timeout.min(Duration::from_secs(5)))
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("fabric-tco/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| format!("cannot build the HTTP client: {e}"))?;
        Ok(Fetcher {
            client,
            urls,
            timeout,
        })
    }

    /// One fetch of `url`, with `If-None-Match: etag` when given.
    pub async fn fetch(&self, url: &str, etag: Option<&str>) -> FetchOutcome {
        let shown = redact_url(url);
        let mut req = self.client.get(url).header(ACCEPT, "application/json");
        if let Some(tag) = etag {
            req = req.header(IF_NONE_MATCH, tag);
        }
        let mut resp = match req.send().await {
            Ok(r) => r,
            Err(e) => return FetchOutcome::Failed(self.describe(&e)),
        };
        let status = resp.status();
        if status == reqwest::StatusCode::NOT_MODIFIED {
            return FetchOutcome::NotModified;
        }
        if !status.is_success() {
            return FetchOutcome::Failed(format!("HTTP {status}"));
        }
        if let Some(len) = resp.content_length()
            && len > MAX_CATALOG_BYTES as u64
        {
            return FetchOutcome::Failed(format!(
                "Content-Length {len} exceeds the {MAX_CATALOG_BYTES} byte limit"
            ));
        }
        let new_etag = resp
            .headers()
            .get(ETAG)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string);
        let mut body: Vec<u8> = Vec::new();
        loop {
            match resp.chunk().await {
                Ok(Some(chunk)) => {
                    if body.len().saturating_add(chunk.len()) > MAX_CATALOG_BYTES {
                        return FetchOutcome::Failed(format!(
                            "body exceeds the {MAX_CATALOG_BYTES} byte limit"
                        ));
                    }
                    body.extend_from_slice(&chunk);
                }
                Ok(None) => break,
                Err(e) => return FetchOutcome::Failed(self.describe(&e)),
            }
        }
        match Catalog::parse(&shown, &body) {
            Ok(c) => FetchOutcome::Loaded {
                catalog: Box::new(c),
                etag: new_etag,
            },
            Err(e) => FetchOutcome::Failed(format!("invalid catalog: {}", e.message)),
        }
    }

    /// A reqwest error without its URL (it may carry credentials).
    fn describe(&self, e: &reqwest::Error) -> String {
        if e.is_timeout() {
            return format!("timed out after {} s", self.timeout.as_secs_f64());
        }
        let kind = if e.is_connect() {
            "connection failed"
        } else if e.is_body() || e.is_decode() {
            "reading the body failed"
        } else {
            "request failed"
        };
        let mut msg = format!("{kind}: {}", strip_url(e));
        let mut src = std::error::Error::source(e);
        while let Some(s) = src {
            msg.push_str(": ");
            msg.push_str(&s.to_string());
            src = s.source();
        }
        msg
    }

    /// Fetches every source once, concurrently, and applies the outcomes to `store`.
    pub async fn refresh_all(self: &Arc<Self>, store: &Arc<CatalogStore>) {
        let mut tasks = tokio::task::JoinSet::new();
        for (i, url) in self.urls.iter().enumerate() {
            let me = Arc::clone(self);
            let store = Arc::clone(store);
            let url = url.clone();
            tasks.spawn(async move {
                let outcome = me.fetch(&url, store.etag(i).as_deref()).await;
                let status = store.apply(i, outcome, SystemTime::now());
                log_status(&status);
            });
        }
        while tasks.join_next().await.is_some() {}
    }
}

fn strip_url(e: &reqwest::Error) -> String {
    // `without_url` consumes; rebuild the text from the displayed message instead.
    let text = e.to_string();
    match text.find(" for url (") {
        Some(i) => text[..i].to_string(),
        None => text,
    }
}

fn log_status(s: &SourceStatus) {
    let url = &s.url;
    let catalog = match (&s.catalog_id, &s.catalog_version, &s.sha256) {
        (Some(id), Some(v), Some(sha)) => format!("{id} v{v} sha256 {sha}"),
        _ => "no catalog".to_string(),
    };
    match (s.state, s.last_result.as_deref()) {
        (SourceState::Ok, Some("updated")) => {
            log::info!(target: "fabric_tco::catalog", "catalog source {url}: loaded {catalog}")
        }
        (SourceState::Ok, r) => log::debug!(
            target: "fabric_tco::catalog",
            "catalog source {url}: {} ({catalog})",
            r.unwrap_or("ok")
        ),
        (_, _) => log::warn!(
            target: "fabric_tco::catalog",
            "catalog source {url}: {} (failure {} in a row); serving {}",
            s.last_error.as_deref().unwrap_or("failed"),
            s.consecutive_failures,
            if s.catalog_id.is_some() { format!("its last good catalog, {catalog}") } else { "the local catalogs only".to_string() }
        ),
    }
}
