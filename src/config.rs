//! Settings from the environment (documented in README.md, "Configuration").

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

/// Default listen address: loopback only, so a developer's run is not exposed.
pub const DEFAULT_BIND: &str = "127.0.0.1:8080";

/// The service's settings.
#[derive(Debug, Clone, PartialEq)]
pub struct Settings {
    /// `FABRIC_TCO_BIND`: address and port to listen on.
    pub bind: SocketAddr,
    /// `FABRIC_TCO_CATALOG_DIR`: load every `*.json` catalog from this directory instead of the
    /// embedded ones.
    pub catalog_dir: Option<PathBuf>,
    /// `FABRIC_TCO_CATALOG_URLS`: comma-separated http(s) URLs of remote catalogs, fetched at
    /// start-up and every `catalog_refresh`.
    pub catalog_urls: Vec<String>,
    /// `FABRIC_TCO_CATALOG_REFRESH_SECS` (default 300; 0 = fetch at start-up only).
    pub catalog_refresh: Option<Duration>,
    /// `FABRIC_TCO_CATALOG_TIMEOUT_SECS` (default 10): bound on one fetch, connect to last byte.
    pub catalog_timeout: Duration,
    /// `FABRIC_TCO_LOG_FORMAT`: `text` (default) or `json` (one JSON object per line).
    pub log_format: LogFormat,
    /// The HTTP server's settings (`FABRIC_TCO_WORKERS`, `…_KEEP_ALIVE_SECS`,
    /// `…_REQUEST_TIMEOUT_MS`, `…_SHUTDOWN_SECS`, `…_PLAN_CACHE`, `…_REQUEST_DEADLINE_SECS`, `…_WRITE_STALL_SECS`,
    /// `…_HEAVY_THREADS`, `…_HEAVY_PRIORITY`; each field says its variable).
    pub server: ServerOptions,
    /// `FABRIC_TCO_EXPOSE_SOURCES` (default false): show catalog file paths, source URLs and
    /// fetch error text in `/v1/catalogs`, `/readyz` and plan warnings.
    pub expose_sources: bool,
    /// `FABRIC_TCO_DATABASE_URL`: `sqlite://PATH` or `postgres://…`; default: SQLite in the data
    /// directory ([`Settings::database_url`]).
    pub database_url: Option<String>,
    /// `FABRIC_TCO_DATA_DIR`: where the default SQLite database lives; default
    /// `$XDG_DATA_HOME/fabric-tco`, else `$HOME/.local/share/fabric-tco`, else `./fabric-tco-data`.
    pub data_dir: PathBuf,
}

/// Plans the memo keeps by default (`FABRIC_TCO_PLAN_CACHE`): a plan with its JSON is ~60 KB,
/// so the default stays under ~16 MB.
pub const DEFAULT_PLAN_CACHE: usize = 256;

/// HTTP server settings ([`Settings::server`]); the defaults are the environment's.
#[derive(Debug, Clone, PartialEq)]
pub struct ServerOptions {
    /// `FABRIC_TCO_WORKERS`: HTTP worker threads; `None` = one per CPU core.
    pub workers: Option<usize>,
    /// `FABRIC_TCO_KEEP_ALIVE_SECS` (default 5): idle keep-alive per connection.
    pub keep_alive: Duration,
    /// `FABRIC_TCO_REQUEST_TIMEOUT_MS` (default 5000): time a client has to send the request
    /// head; slower clients get 408.
    pub request_timeout: Duration,
    /// `FABRIC_TCO_SHUTDOWN_SECS` (default 10): grace period for in-flight requests on
    /// SIGTERM/SIGINT.
    pub shutdown: Duration,
    /// `FABRIC_TCO_PLAN_CACHE` (default 256; 0 = off): plans remembered for repeated requests.
    pub plan_cache: usize,
    /// `FABRIC_TCO_REQUEST_DEADLINE_SECS` (default 30): longest a request may take from its
    /// head to its answer, body included; 408 after.
    pub request_deadline: Duration,
    /// `FABRIC_TCO_WRITE_STALL_SECS` (default 10): a client that takes no byte of an answer
    /// for this long is cut off (the answer's memory is given back).
    pub write_stall: Duration,
    /// `FABRIC_TCO_HEAVY_THREADS` (default 0 = `None`): threads computing sweeps and analyses
    /// at once, together; `None`: every core at a lower priority (idle class or nice), the
    /// cores less one at normal priority (`api::heavy::Heavy::new`).
    pub heavy_threads: Option<usize>,
    /// `FABRIC_TCO_KEYS_FOR` (default `scenarios`): `all` makes every API path but the probes,
    /// `/openapi.json` and Swagger UI need an API key (plans, sweeps, values, charts, the
    /// report page, catalogs, validation); `scenarios`: only saved scenarios and diffs.
    pub keys_for_all: bool,
    /// `FABRIC_TCO_HEAVY_PRIORITY` (default `nice`, nice [`HEAVY_NICE`]): the scheduling
    /// class of those threads, `idle` (Linux's `SCHED_IDLE`), `nice`, `nice:N` (1–19) or
    /// `normal`.
    pub heavy_priority: HeavyPriority,
}

impl Default for ServerOptions {
    fn default() -> Self {
        ServerOptions {
            workers: None,
            keep_alive: Duration::from_secs(5),
            request_timeout: Duration::from_secs(5),
            shutdown: Duration::from_secs(10),
            plan_cache: DEFAULT_PLAN_CACHE,
            request_deadline: Duration::from_secs(30),
            write_stall: Duration::from_secs(10),
            heavy_threads: None,
            heavy_priority: HeavyPriority::default(),
            keys_for_all: false,
        }
    }
}

/// The scheduling class of the threads computing sweeps and analyses
/// (`FABRIC_TCO_HEAVY_PRIORITY`; `api::heavy`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HeavyPriority {
    /// `idle`: Linux's `SCHED_IDLE`, where the system allows it: a core only when nothing
    /// else wants it, this service's requests and every other program alike.
    Idle,
    /// `nice` (the default, nice [`HEAVY_NICE`]) or `nice:N` (1–19): the normal class at a
    /// lower weight — request threads win a core over them, and other programs cannot
    /// take every cycle from them.
    Nice(u8),
    /// `normal`: the priority of every other thread.
    Normal,
}

/// The nice value of heavy threads by default: measured with `benches/starve.py` (light
/// requests beside four sweeps) and `benches/busy_host.py` (a sweep beside two busy
/// programs), docs/performance.md.
pub const HEAVY_NICE: u8 = 2;

impl Default for HeavyPriority {
    fn default() -> Self {
        HeavyPriority::Nice(HEAVY_NICE)
    }
}

impl HeavyPriority {
    /// `idle`, `normal`, `nice` or `nice:N` (N in 1..=19).
    fn parse(value: &str) -> Option<HeavyPriority> {
        match value {
            "idle" => Some(HeavyPriority::Idle),
            "normal" => Some(HeavyPriority::Normal),
            "nice" => Some(HeavyPriority::Nice(HEAVY_NICE)),
            _ => value
                .strip_prefix("nice:")
                .and_then(|n| n.parse::<u8>().ok())
                .filter(|n| (1..=19).contains(n))
                .map(HeavyPriority::Nice),
        }
    }
}

/// Log line format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LogFormat {
    #[default]
    Text,
    Json,
}

/// Most remote catalog URLs.
pub const MAX_CATALOG_URLS: usize = 16;

fn number(
    get: &impl Fn(&str) -> Option<String>,
    name: &str,
    default: u64,
    range: std::ops::RangeInclusive<u64>,
) -> Result<u64, String> {
    match get(name).filter(|s| !s.trim().is_empty()) {
        None => Ok(default),
        Some(v) => match v.trim().parse::<u64>() {
            Ok(n) if range.contains(&n) => Ok(n),
            _ => Err(format!(
                "{name}='{v}' must be a whole number {}..={}",
                range.start(),
                range.end()
            )),
        },
    }
}

/// A variable naming one of `choices` (each its words, the first the one the error message
/// names); unset or empty is the first choice.
fn choice<T: Copy>(
    get: &impl Fn(&str) -> Option<String>,
    name: &str,
    choices: &[(&[&str], T)],
) -> Result<T, String> {
    let text = get(name).unwrap_or_default();
    let text = text.trim();
    if text.is_empty()
        && let Some(&(_, first)) = choices.first()
    {
        return Ok(first);
    }
    if let Some(&(_, value)) = choices.iter().find(|(words, _)| words.contains(&text)) {
        return Ok(value);
    }
    let named: Vec<String> = choices
        .iter()
        .filter_map(|(words, _)| words.first().map(|w| format!("'{w}'")))
        .collect();
    Err(format!("{name}='{text}' must be {}", named.join(" or ")))
}

fn catalog_urls(text: Option<String>) -> Result<Vec<String>, String> {
    let Some(text) = text else {
        return Ok(Vec::new());
    };
    let urls: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(str::to_string)
        .collect();
    if urls.len() > MAX_CATALOG_URLS {
        return Err(format!(
            "FABRIC_TCO_CATALOG_URLS lists {} URLs; at most {MAX_CATALOG_URLS}",
            urls.len()
        ));
    }
    for (i, u) in urls.iter().enumerate() {
        let shown = crate::catalog::source_url::redact_url(u);
        if urls[..i].contains(u) {
            return Err(format!("FABRIC_TCO_CATALOG_URLS lists '{shown}' twice"));
        }
        let parsed = reqwest::Url::parse(u)
            .map_err(|e| format!("FABRIC_TCO_CATALOG_URLS: '{shown}' is not a URL ({e})"))?;
        if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
            return Err(format!(
                "FABRIC_TCO_CATALOG_URLS: '{shown}' must be an http:// or https:// URL with a host"
            ));
        }
    }
    Ok(urls)
}

impl Settings {
    /// Reads the settings from a variable lookup (the process environment in `main`).
    pub fn from_lookup(get: impl Fn(&str) -> Option<String>) -> Result<Settings, String> {
        let bind_text = get("FABRIC_TCO_BIND").unwrap_or_else(|| DEFAULT_BIND.to_string());
        let bind = bind_text
            .parse()
            .map_err(|e| format!("FABRIC_TCO_BIND='{bind_text}' is not an address:port ({e})"))?;
        let catalog_dir = get("FABRIC_TCO_CATALOG_DIR")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from);
        let workers = match get("FABRIC_TCO_WORKERS").filter(|s| !s.is_empty()) {
            None => None,
            Some(w) => match w.parse::<usize>() {
                Ok(n) if (1..=256).contains(&n) => Some(n),
                _ => {
                    return Err(format!(
                        "FABRIC_TCO_WORKERS='{w}' must be a whole number 1..=256"
                    ));
                }
            },
        };
        let catalog_urls = catalog_urls(get("FABRIC_TCO_CATALOG_URLS"))?;
        let refresh = number(&get, "FABRIC_TCO_CATALOG_REFRESH_SECS", 300, 0..=86_400)?;
        let timeout = number(&get, "FABRIC_TCO_CATALOG_TIMEOUT_SECS", 10, 1..=120)?;
        let log_format = choice(
            &get,
            "FABRIC_TCO_LOG_FORMAT",
            &[(&["text"], LogFormat::Text), (&["json"], LogFormat::Json)],
        )?;
        let keep_alive = number(&get, "FABRIC_TCO_KEEP_ALIVE_SECS", 5, 0..=300)?;
        let request_timeout = number(&get, "FABRIC_TCO_REQUEST_TIMEOUT_MS", 5_000, 100..=60_000)?;
        let shutdown = number(&get, "FABRIC_TCO_SHUTDOWN_SECS", 10, 0..=300)?;
        let plan_cache = number(&get, "FABRIC_TCO_PLAN_CACHE", 256, 0..=100_000)?;
        let deadline = number(&get, "FABRIC_TCO_REQUEST_DEADLINE_SECS", 30, 1..=600)?;
        let write_stall = number(&get, "FABRIC_TCO_WRITE_STALL_SECS", 10, 1..=600)?;
        let heavy_threads = number(&get, "FABRIC_TCO_HEAVY_THREADS", 0, 0..=256)?;
        let heavy_priority = match get("FABRIC_TCO_HEAVY_PRIORITY") {
            None => HeavyPriority::default(),
            Some(text) if text.trim().is_empty() => HeavyPriority::default(),
            Some(text) => HeavyPriority::parse(text.trim()).ok_or_else(|| {
                format!(
                    "FABRIC_TCO_HEAVY_PRIORITY='{}' must be 'nice', 'nice:N' (N from 1 to 19), \
                     'idle' or 'normal'",
                    text.trim()
                )
            })?,
        };
        let keys_for_all = choice(
            &get,
            "FABRIC_TCO_KEYS_FOR",
            &[(&["scenarios"], false), (&["all"], true)],
        )?;
        let expose_sources = choice(
            &get,
            "FABRIC_TCO_EXPOSE_SOURCES",
            &[(&["false", "0"], false), (&["true", "1"], true)],
        )?;
        let database_url = get("FABRIC_TCO_DATABASE_URL").filter(|s| !s.is_empty());
        let data_dir = get("FABRIC_TCO_DATA_DIR")
            .filter(|s| !s.is_empty())
            .map(PathBuf::from)
            .or_else(|| {
                get("XDG_DATA_HOME")
                    .filter(|s| s.starts_with('/'))
                    .map(|d| PathBuf::from(d).join("fabric-tco"))
            })
            .or_else(|| {
                get("HOME")
                    .filter(|s| s.starts_with('/') && s != "/nonexistent")
                    .map(|h| PathBuf::from(h).join(".local/share/fabric-tco"))
            })
            .unwrap_or_else(|| PathBuf::from("fabric-tco-data"));
        Ok(Settings {
            database_url,
            data_dir,
            bind,
            catalog_dir,
            catalog_urls,
            catalog_refresh: (refresh > 0).then(|| Duration::from_secs(refresh)),
            catalog_timeout: Duration::from_secs(timeout),
            log_format,
            server: ServerOptions {
                workers,
                keep_alive: Duration::from_secs(keep_alive),
                request_timeout: Duration::from_millis(request_timeout),
                shutdown: Duration::from_secs(shutdown),
                plan_cache: usize::try_from(plan_cache).unwrap_or(256),
                request_deadline: Duration::from_secs(deadline),
                write_stall: Duration::from_secs(write_stall),
                heavy_threads: usize::try_from(heavy_threads).ok().filter(|&n| n > 0),
                heavy_priority,
                keys_for_all,
            },
            expose_sources,
        })
    }

    /// The database to open: `FABRIC_TCO_DATABASE_URL`, else SQLite under the data directory.
    pub fn database_url(&self) -> String {
        self.database_url
            .clone()
            .unwrap_or_else(|| crate::store::default_url(&self.data_dir))
    }

    pub fn from_env() -> Result<Settings, String> {
        Settings::from_lookup(|k| std::env::var(k).ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let s = Settings::from_lookup(|_| None).unwrap();
        assert_eq!(s.bind.to_string(), DEFAULT_BIND);
        assert_eq!(s.catalog_dir, None);
        let s = Settings::from_lookup(|k| match k {
            "FABRIC_TCO_BIND" => Some("0.0.0.0:9000".into()),
            "FABRIC_TCO_CATALOG_DIR" => Some("/tmp/c".into()),
            "FABRIC_TCO_WORKERS" => Some("3".into()),
            _ => None,
        })
        .unwrap();
        assert_eq!(s.bind.to_string(), "0.0.0.0:9000");
        assert_eq!(s.catalog_dir, Some(PathBuf::from("/tmp/c")));
        assert_eq!(s.server.workers, Some(3));
        assert_eq!(s.server.heavy_threads, None);
        let s = Settings::from_lookup(|k| (k == "FABRIC_TCO_HEAVY_THREADS").then(|| "3".into()))
            .unwrap();
        assert_eq!(s.server.heavy_threads, Some(3));
        assert_eq!(s.server.heavy_priority, HeavyPriority::Nice(HEAVY_NICE));
        for (text, priority) in [
            ("normal", HeavyPriority::Normal),
            ("idle", HeavyPriority::Idle),
            ("nice", HeavyPriority::Nice(HEAVY_NICE)),
            (" nice:19 ", HeavyPriority::Nice(19)),
            ("nice:1", HeavyPriority::Nice(1)),
        ] {
            let s = Settings::from_lookup(|k| {
                (k == "FABRIC_TCO_HEAVY_PRIORITY").then(|| text.to_string())
            })
            .unwrap();
            assert_eq!(s.server.heavy_priority, priority, "{text}");
        }
    }

    #[test]
    fn choices_take_their_words_trimmed_and_name_them_when_wrong() {
        let with = |k: &'static str, v: &'static str| {
            Settings::from_lookup(move |n| (n == k).then(|| v.to_string()))
        };
        assert!(
            with("FABRIC_TCO_EXPOSE_SOURCES", "1")
                .unwrap()
                .expose_sources
        );
        assert!(
            !with("FABRIC_TCO_EXPOSE_SOURCES", " ")
                .unwrap()
                .expose_sources
        );
        assert_eq!(
            with("FABRIC_TCO_LOG_FORMAT", " json ").unwrap().log_format,
            LogFormat::Json
        );
        assert_eq!(
            with("FABRIC_TCO_EXPOSE_SOURCES", "yes").unwrap_err(),
            "FABRIC_TCO_EXPOSE_SOURCES='yes' must be 'false' or 'true'"
        );
    }

    #[test]
    fn bad_values_are_named() {
        let e =
            Settings::from_lookup(|k| (k == "FABRIC_TCO_BIND").then(|| "nope".into())).unwrap_err();
        assert!(e.contains("FABRIC_TCO_BIND"), "{e}");
        let e =
            Settings::from_lookup(|k| (k == "FABRIC_TCO_WORKERS").then(|| "0".into())).unwrap_err();
        assert!(e.contains("FABRIC_TCO_WORKERS"), "{e}");
        for (k, v) in [
            ("FABRIC_TCO_CATALOG_URLS", "file:///etc/passwd"),
            ("FABRIC_TCO_CATALOG_URLS", "not a url"),
            ("FABRIC_TCO_CATALOG_REFRESH_SECS", "-1"),
            ("FABRIC_TCO_CATALOG_TIMEOUT_SECS", "0"),
            ("FABRIC_TCO_LOG_FORMAT", "xml"),
            ("FABRIC_TCO_REQUEST_TIMEOUT_MS", "5"),
            ("FABRIC_TCO_HEAVY_THREADS", "257"),
            ("FABRIC_TCO_HEAVY_PRIORITY", "low"),
            ("FABRIC_TCO_HEAVY_PRIORITY", "nice:0"),
            ("FABRIC_TCO_HEAVY_PRIORITY", "nice:20"),
            ("FABRIC_TCO_HEAVY_PRIORITY", "nice:-5"),
            ("FABRIC_TCO_CATALOG_URLS", "http://a/c.json,http://a/c.json"),
        ] {
            let e = Settings::from_lookup(|n| (n == k).then(|| v.to_string())).unwrap_err();
            assert!(e.contains(k), "{e}");
        }
    }

    #[test]
    fn catalog_urls_are_listed_and_never_echo_credentials() {
        let s = Settings::from_lookup(|k| {
            (k == "FABRIC_TCO_CATALOG_URLS")
                .then(|| " http://a:1/c.json , https://b/d.json ,".into())
        })
        .unwrap();
        assert_eq!(s.catalog_urls, ["http://a:1/c.json", "https://b/d.json"]);
        assert_eq!(s.catalog_refresh, Some(Duration::from_secs(300)));
        let e = Settings::from_lookup(|k| {
            (k == "FABRIC_TCO_CATALOG_URLS").then(|| "ftp://u:hunter2@h/c.json".into())
        })
        .unwrap_err();
        assert!(!e.contains("hunter2"), "{e}");
        let s =
            Settings::from_lookup(|k| (k == "FABRIC_TCO_CATALOG_REFRESH_SECS").then(|| "0".into()))
                .unwrap();
        assert_eq!(s.catalog_refresh, None);
    }
}
