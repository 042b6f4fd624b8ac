//! The live catalog set: the local catalogs (embedded or from a directory) plus the last good
//! catalog of each remote source, swapped atomically as a whole.
//!
//! Readers take one `Arc<CatalogSet>` per request ([`CatalogStore::current`]) and price the
//! whole request from it; a refresh builds a complete, validated new set and then replaces the
//! pointer. A request therefore sees either the old set or the new one, never a mixture, and
//! never a catalog that has not passed validation.
//!
//! The state kept per source and the rules for composing the set are plain data and functions
//! ([`CatalogStore::apply`]); fetching over HTTP lives in [`super::remote`].

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use serde::Serialize;
use utoipa::ToSchema;

use super::source_url::redact_url;
use super::{Catalog, CatalogSet, LoadError};
use crate::clock::rfc3339;

/// The state of one remote catalog source, as `/readyz` and `/v1/catalogs` report it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct SourceStatus {
    /// The URL, with any user-info and query string removed (they may hold credentials).
    #[schema(example = "https://prices.example.internal/fabric/catalog.json")]
    pub url: String,
    /// `pending` (not fetched yet), `ok` (last fetch succeeded), `stale` (last fetch failed;
    /// the last good catalog is still served) or `failed` (never loaded).
    #[schema(example = "ok")]
    pub state: SourceState,
    /// Id of the catalog this source serves (last good version).
    pub catalog_id: Option<String>,
    /// Its version.
    pub catalog_version: Option<String>,
    /// Hex SHA-256 of its bytes.
    pub sha256: Option<String>,
    /// Last fetch attempt (RFC 3339, UTC).
    pub last_attempt_at: Option<String>,
    /// Last successful fetch, new content or `304 Not Modified` (RFC 3339, UTC).
    pub last_success_at: Option<String>,
    /// What the last successful fetch gave: `updated`, `unchanged` (same bytes) or
    /// `not_modified` (`304` to `If-None-Match`).
    pub last_result: Option<String>,
    /// The most recent error (kept after a later success, with its time, for diagnosis).
    pub last_error: Option<String>,
    /// When `last_error` happened (RFC 3339, UTC).
    pub last_error_at: Option<String>,
    /// Failed attempts since the last success.
    pub consecutive_failures: u32,
}

/// See [`SourceStatus::state`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SourceState {
    Pending,
    Ok,
    Stale,
    Failed,
}

/// The kind of a fetch failure without host names, addresses or OS text: the part before the
/// first `: ` (`connection failed`, `timed out after 10 s`, `HTTP 500`, `invalid catalog`).
fn error_kind(e: &str) -> String {
    e.split(": ").next().unwrap_or(e).to_string()
}

/// What one fetch of a source gave.
#[derive(Debug)]
pub enum FetchOutcome {
    /// New bytes, already parsed and validated, with the response's `ETag` if any.
    Loaded {
        catalog: Box<Catalog>,
        etag: Option<String>,
    },
    /// `304 Not Modified`.
    NotModified,
    /// Anything else: timeout, connection error, HTTP status, size cap, invalid catalog.
    Failed(String),
}

#[derive(Debug)]
struct Source {
    status: SourceStatus,
    good: Option<Arc<Catalog>>,
    etag: Option<String>,
}

/// Local catalogs + remote sources, and the set currently served.
#[derive(Debug)]
pub struct CatalogStore {
    local: Vec<Arc<Catalog>>,
    sources: Mutex<Vec<Source>>,
    /// The set requests are priced from, swapped whole (lock-free reads).
    active: arc_swap::ArcSwap<CatalogSet>,
    /// Show source URLs (host names), file paths and fetch error text to API clients
    /// (`FABRIC_TCO_EXPOSE_SOURCES`); off by default: clients see `source 1`, file names only
    /// and the kind of failure.
    expose: std::sync::atomic::AtomicBool,
}

impl CatalogStore {
    /// A store serving `local`, with remote sources `urls` (not fetched yet).
    pub fn new(local: CatalogSet, urls: &[String]) -> CatalogStore {
        let sources = urls
            .iter()
            .map(|u| Source {
                status: SourceStatus::new(redact_url(u), SourceState::Pending),
                good: None,
                etag: None,
            })
            .collect();
        CatalogStore {
            local: local.all().to_vec(),
            sources: Mutex::new(sources),
            active: arc_swap::ArcSwap::from_pointee(local),
            expose: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Show (true) or hide (false, the default) source URLs, file paths and error text.
    pub fn set_expose_sources(&self, on: bool) {
        self.expose.store(on, std::sync::atomic::Ordering::Relaxed);
    }

    fn exposed(&self) -> bool {
        self.expose.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// A catalog's origin as clients see it: a file path shows its file name only, a URL
    /// becomes `remote`, unless exposure is on.
    pub fn shown_origin(&self, origin: &str) -> String {
        if self.exposed() || origin.starts_with("embedded:") {
            return origin.to_string();
        }
        if origin.starts_with("http://") || origin.starts_with("https://") {
            return "remote".to_string();
        }
        let name = std::path::Path::new(origin)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        format!("file:{name}")
    }

    /// A source status as clients see it (see [`Self::set_expose_sources`]).
    fn shown(&self, index: usize, st: &SourceStatus) -> SourceStatus {
        if self.exposed() {
            return st.clone();
        }
        let mut out = st.clone();
        out.url = format!("source {}", index + 1);
        out.last_error = st.last_error.as_deref().map(error_kind);
        out
    }

    /// The set to price one request with (take it once per request).
    pub fn current(&self) -> Arc<CatalogSet> {
        self.active.load_full()
    }

    /// The remote sources' states, in configuration order.
    pub fn sources(&self) -> Vec<SourceStatus> {
        self.lock_sources()
            .iter()
            .enumerate()
            .map(|(i, s)| self.shown(i, &s.status))
            .collect()
    }

    /// True when remote sources are configured and any of them is not `ok`.
    pub fn degraded(&self) -> bool {
        self.lock_sources()
            .iter()
            .any(|s| s.status.state != SourceState::Ok)
    }

    /// Warnings for a plan priced from catalog `catalog_id`: the catalog is a remote source's
    /// last good version and refreshing it is failing; or a configured source has never loaded
    /// (the plan may be priced from list prices where negotiated ones were meant).
    pub fn plan_warnings(&self, catalog_id: &str) -> Vec<String> {
        let mut out = Vec::new();
        for (i, s) in self.lock_sources().iter().enumerate() {
            let st = &self.shown(i, &s.status);
            let err = st.last_error.as_deref().unwrap_or("unknown error");
            match st.state {
                SourceState::Stale if st.catalog_id.as_deref() == Some(catalog_id) => {
                    out.push(format!(
                        "catalog '{catalog_id}' is the version fetched from {} at {}; refreshing it has failed {} time(s) since (last at {}: {err})",
                        st.url,
                        st.last_success_at.as_deref().unwrap_or("?"),
                        st.consecutive_failures,
                        st.last_error_at.as_deref().unwrap_or("?"),
                    ));
                }
                SourceState::Failed => out.push(format!(
                    "remote catalog {} has never loaded ({err}); this plan is priced from catalog '{catalog_id}'",
                    st.url
                )),
                _ => {}
            }
        }
        out
    }

    /// The `ETag` to send as `If-None-Match` for source `index`.
    pub fn etag(&self, index: usize) -> Option<String> {
        self.lock_sources().get(index).and_then(|s| s.etag.clone())
    }

    /// Number of remote sources.
    pub fn source_count(&self) -> usize {
        self.lock_sources().len()
    }

    fn lock_sources(&self) -> std::sync::MutexGuard<'_, Vec<Source>> {
        match self.sources.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    /// Records a fetch outcome for source `index` at `now` and, when the served content changes,
    /// swaps in the new complete set. An outcome that cannot be applied (a failure, or a catalog
    /// whose id another source already serves) leaves the source's last good catalog served.
    ///
    /// Returns the source's state afterwards, for the log.
    pub fn apply(&self, index: usize, outcome: FetchOutcome, now: SystemTime) -> SourceStatus {
        let stamp = rfc3339(now);
        let mut sources = self.lock_sources();
        let Some(src) = sources.get_mut(index) else {
            return unknown_source();
        };
        src.status.last_attempt_at = Some(stamp.clone());
        let previous_good = src.good.clone();
        let previous_etag = src.etag.clone();
        let result = take_outcome(src, outcome);
        // Compose with the new content; a conflict (two sources, one id) undoes this source's
        // update and counts as its failure.
        let result = match result {
            Ok(r) => match compose(&self.local, &sources) {
                Ok((set, conflicts)) => {
                    self.swap(set);
                    match drop_conflicts(&mut sources, index, conflicts, &stamp) {
                        None => Ok(r),
                        Some(msg) => Err(msg),
                    }
                }
                Err(e) => {
                    if let Some(src) = sources.get_mut(index) {
                        src.good = previous_good;
                        src.etag = previous_etag;
                    }
                    Err(e.message)
                }
            },
            Err(e) => Err(e),
        };
        let Some(src) = sources.get_mut(index) else {
            return unknown_source();
        };
        record_result(src, result, stamp)
    }

    fn swap(&self, set: CatalogSet) {
        self.active.store(Arc::new(set));
    }
}

/// Takes a fetch outcome into `src` (its catalog and `ETag`): the result word for the log, or
/// why the fetch failed.
fn take_outcome(src: &mut Source, outcome: FetchOutcome) -> Result<&'static str, String> {
    match outcome {
        FetchOutcome::NotModified => {
            if src.good.is_some() {
                Ok("not_modified")
            } else {
                Err("304 Not Modified but no catalog was loaded from this source".to_string())
            }
        }
        FetchOutcome::Loaded { catalog, etag } => {
            let same = src
                .good
                .as_ref()
                .is_some_and(|g| g.sha256 == catalog.sha256);
            src.etag = etag;
            if same {
                Ok("unchanged")
            } else {
                src.good = Some(Arc::new(*catalog));
                Ok("updated")
            }
        }
        FetchOutcome::Failed(e) => Err(e),
    }
}

/// Drops every source that lost a conflict, failing it at `stamp`; returns why source `index`
/// lost, if it did (its catalog then dropped too, its failure recorded by the caller).
fn drop_conflicts(
    sources: &mut [Source],
    index: usize,
    conflicts: Vec<(usize, String)>,
    stamp: &str,
) -> Option<String> {
    // A source whose id an earlier-configured source serves is dropped, this
    // one or another: configuration order decides, not fetch timing.
    let mut mine = None;
    for (j, msg) in conflicts {
        if j == index {
            mine = Some(msg);
        } else if let Some(other) = sources.get_mut(j) {
            other.good = None;
            other.etag = None;
            other.status.state = SourceState::Failed;
            other.status.last_error = Some(msg);
            other.status.last_error_at = Some(stamp.to_string());
            other.status.catalog_id = None;
            other.status.catalog_version = None;
            other.status.sha256 = None;
        }
    }
    if mine.is_some()
        && let Some(src) = sources.get_mut(index)
    {
        src.good = None;
        src.etag = None;
        src.status.catalog_id = None;
        src.status.catalog_version = None;
        src.status.sha256 = None;
    }
    mine
}

/// Records the attempt's result in `src`'s status at `stamp` (its state from whether a good
/// catalog is still served) and returns the status.
fn record_result(src: &mut Source, result: Result<&str, String>, stamp: String) -> SourceStatus {
    match result {
        Ok(r) => {
            src.status.last_success_at = Some(stamp);
            src.status.last_result = Some(r.to_string());
            src.status.consecutive_failures = 0;
            src.status.state = SourceState::Ok;
        }
        Err(e) => {
            src.status.last_error = Some(e);
            src.status.last_error_at = Some(stamp);
            src.status.consecutive_failures = src.status.consecutive_failures.saturating_add(1);
            src.status.state = if src.good.is_some() {
                SourceState::Stale
            } else {
                SourceState::Failed
            };
        }
    }
    if let Some(g) = &src.good {
        src.status.catalog_id = Some(g.data.id.clone());
        src.status.catalog_version = Some(g.data.version.clone());
        src.status.sha256 = Some(g.sha256.clone());
    }
    src.status.clone()
}

fn unknown_source() -> SourceStatus {
    SourceStatus {
        last_error: Some("no such source".into()),
        ..SourceStatus::new(String::new(), SourceState::Failed)
    }
}

impl SourceStatus {
    fn new(url: String, state: SourceState) -> SourceStatus {
        SourceStatus {
            url,
            state,
            catalog_id: None,
            catalog_version: None,
            sha256: None,
            last_attempt_at: None,
            last_success_at: None,
            last_result: None,
            last_error: None,
            last_error_at: None,
            consecutive_failures: 0,
        }
    }
}

/// Local catalogs, then each source's last good catalog in configuration order: a remote
/// catalog replaces a local one with the same id; when two sources serve one id the one listed
/// first wins and the other is returned as a conflict (its index and why).
type Composed = (CatalogSet, Vec<(usize, String)>);

fn compose(local: &[Arc<Catalog>], sources: &[Source]) -> Result<Composed, LoadError> {
    let mut by_id: HashMap<String, Arc<Catalog>> = local
        .iter()
        .map(|c| (c.data.id.clone(), Arc::clone(c)))
        .collect();
    let mut remote_ids: HashMap<String, String> = HashMap::new();
    let mut conflicts = Vec::new();
    for (i, s) in sources.iter().enumerate() {
        let Some(c) = &s.good else { continue };
        if let Some(first) = remote_ids.get(&c.data.id) {
            conflicts.push((
                i,
                format!(
                    "catalog id '{}' is also served by {first}, listed earlier in FABRIC_TCO_CATALOG_URLS; each source must serve its own id",
                    c.data.id
                ),
            ));
            continue;
        }
        remote_ids.insert(c.data.id.clone(), s.status.url.clone());
        by_id.insert(c.data.id.clone(), Arc::clone(c));
    }
    Ok((
        CatalogSet::from_shared(by_id.into_values().collect())?,
        conflicts,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn catalog(id: &str, version: &str, switch_price: u32) -> Catalog {
        let mut v: serde_json::Value =
            serde_json::from_str(super::super::EMBEDDED[0].1).expect("json");
        v["id"] = id.into();
        v["version"] = version.into();
        v["published"] = crate::catalog::validate::day_after_embedded().into();
        v["switches"][0]["price_usd"] = switch_price.to_string().into();
        v["switches"][0]["price_range_usd"] =
            serde_json::json!({"low": "0", "high": switch_price.to_string()});
        Catalog::parse("test", &serde_json::to_vec(&v).expect("bytes")).expect("valid")
    }

    fn t(secs: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(secs)
    }

    #[test]
    fn sources_load_go_stale_and_recover_keeping_the_last_good_set() {
        let store = CatalogStore::new(
            CatalogSet::embedded().expect("embedded"),
            &["http://a/c.json".into()],
        );
        assert!(store.degraded());
        assert_eq!(store.current().newest().id(), "default");
        store.apply(0, FetchOutcome::Failed("timeout".into()), t(1));
        assert_eq!(store.sources()[0].state, SourceState::Failed);
        assert_eq!(store.current().all().len(), 1);

        store.apply(
            0,
            FetchOutcome::Loaded {
                catalog: Box::new(catalog("negotiated", "1", 40_000)),
                etag: Some("\"v1\"".into()),
            },
            t(2),
        );
        let s = &store.sources()[0];
        assert_eq!(s.state, SourceState::Ok);
        assert_eq!(s.last_result.as_deref(), Some("updated"));
        assert_eq!(s.last_error.as_deref(), Some("timeout"));
        assert_eq!(store.etag(0).as_deref(), Some("\"v1\""));
        let set = store.current();
        assert_eq!(set.newest().id(), "negotiated");
        assert_eq!(set.all().len(), 2);
        let v1_sha = set.newest().sha256.clone();

        // A failure keeps the last good catalog served.
        store.apply(0, FetchOutcome::Failed("HTTP 500".into()), t(3));
        let s = &store.sources()[0];
        assert_eq!(s.state, SourceState::Stale);
        assert_eq!(s.consecutive_failures, 1);
        assert_eq!(store.current().newest().sha256, v1_sha);
        assert!(
            Arc::ptr_eq(&store.current(), &set),
            "a failure does not swap"
        );

        store.apply(0, FetchOutcome::NotModified, t(4));
        assert_eq!(store.sources()[0].state, SourceState::Ok);
        assert_eq!(
            store.sources()[0].last_result.as_deref(),
            Some("not_modified")
        );
        assert!(!store.degraded());

        // A new version replaces the old one.
        store.apply(
            0,
            FetchOutcome::Loaded {
                catalog: Box::new(catalog("negotiated", "2", 41_000)),
                etag: None,
            },
            t(5),
        );
        let now = store.current();
        assert_eq!(now.newest().data.version, "2");
        assert_ne!(now.newest().sha256, v1_sha);
        // The set taken before the swap is untouched: in-flight requests finish on it.
        assert_eq!(set.newest().data.version, "1");
    }

    #[test]
    fn a_not_modified_without_content_is_a_failure() {
        let store = CatalogStore::new(CatalogSet::embedded().expect("e"), &["http://a/".into()]);
        store.apply(0, FetchOutcome::NotModified, t(1));
        assert_eq!(store.sources()[0].state, SourceState::Failed);
    }

    #[test]
    fn remote_replaces_local_by_id_and_the_first_listed_source_wins_an_id() {
        let store = CatalogStore::new(
            CatalogSet::embedded().expect("e"),
            &["http://a/".into(), "http://b/".into()],
        );
        let load = |i: usize, version: &str, price: u32, at: u64| {
            store.apply(
                i,
                FetchOutcome::Loaded {
                    catalog: Box::new(catalog("default", version, price)),
                    etag: None,
                },
                t(at),
            )
        };
        // B (listed second) loads first: it serves, replacing the local 'default'.
        load(1, "10", 2_000, 1);
        let set = store.current();
        assert_eq!(set.all().len(), 1);
        assert_eq!(set.newest().data.version, "10");
        // A (listed first) loads the same id: A wins, B is dropped and says why.
        let a = load(0, "9", 1_000, 2);
        assert_eq!(a.state, SourceState::Ok);
        assert_eq!(store.current().newest().data.version, "9");
        let b = &store.sources()[1];
        assert_eq!(b.state, SourceState::Failed);
        let why = b.last_error.as_deref().unwrap_or("");
        assert!(
            why.contains("http://a/") && why.contains("listed earlier"),
            "{why}"
        );
        // B loading again changes nothing: A still serves the id.
        let b = load(1, "11", 3_000, 3);
        assert_eq!(b.state, SourceState::Failed);
        assert_eq!(store.current().newest().data.version, "9");
        assert_eq!(store.current().all().len(), 1);
    }
}
