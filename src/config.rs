//! Settings from the environment (documented in README.md, "Configuration").

use std::net::SocketAddr;
use std::path::PathBuf;

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
    /// `FABRIC_TCO_WORKERS`: HTTP worker threads (default: one per CPU core).
    pub workers: Option<usize>,
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
        Ok(Settings {
            bind,
            catalog_dir,
            workers,
        })
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
        assert_eq!(s.workers, Some(3));
    }

    #[test]
    fn bad_values_are_named() {
        let e =
            Settings::from_lookup(|k| (k == "FABRIC_TCO_BIND").then(|| "nope".into())).unwrap_err();
        assert!(e.contains("FABRIC_TCO_BIND"), "{e}");
        let e =
            Settings::from_lookup(|k| (k == "FABRIC_TCO_WORKERS").then(|| "0".into())).unwrap_err();
        assert!(e.contains("FABRIC_TCO_WORKERS"), "{e}");
    }
}
