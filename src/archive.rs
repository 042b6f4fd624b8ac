//! Catalog versions kept: every catalog the service serves is written to the store once
//! (addressed by its sha256), and a version a request pins is read back and validated again.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use crate::catalog::{Catalog, CatalogSet};
use crate::store::versions::{self, Selector, VersionRow};
use crate::store::{Db, StoreError};

/// Parsed versions kept in memory (a catalog is ~50 KB of text; a pinned plan reads its
/// version from here after the first time).
const PARSED_KEPT: usize = 16;

/// The store's catalog versions, with what this process has written and read.
#[derive(Debug)]
pub struct Archive {
    db: Arc<Db>,
    /// Hashes known to be stored (no query for them again).
    remembered: Mutex<HashSet<String>>,
    /// Versions read back, by sha256.
    parsed: Mutex<HashMap<String, Arc<Catalog>>>,
}

/// Why a pinned version cannot be served.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum VersionError {
    /// The store cannot be read.
    Store(StoreError),
    /// Two versions start with the prefix given.
    Ambiguous(String),
    /// The stored content no longer validates (a newer schema or rule): reported, not served.
    Invalid(String),
}

impl From<StoreError> for VersionError {
    fn from(e: StoreError) -> VersionError {
        VersionError::Store(e)
    }
}

impl Archive {
    pub fn new(db: Arc<Db>) -> Archive {
        Archive {
            db,
            remembered: Mutex::new(HashSet::new()),
            parsed: Mutex::new(HashMap::new()),
        }
    }

    pub fn db(&self) -> &Arc<Db> {
        &self.db
    }

    fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
        m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes every catalog of `set` the store does not hold yet (one query per new content;
    /// none for a content this process stored before).
    pub async fn remember(&self, set: &CatalogSet) -> Result<(), StoreError> {
        for c in set.all() {
            if Self::lock(&self.remembered).contains(&c.sha256) {
                continue;
            }
            let row = VersionRow {
                sha256: c.sha256.clone(),
                catalog_id: c.data.id.clone(),
                version: c.data.version.clone(),
                published: c.data.published.clone(),
                first_seen_ms: crate::store::now_ms(),
            };
            if versions::remember(&self.db, &row, &c.content).await? {
                log::info!(
                    "catalog {} v{} sha256 {} stored as a new version",
                    row.catalog_id,
                    row.version,
                    row.sha256
                );
            }
            Self::lock(&self.remembered).insert(c.sha256.clone());
        }
        Ok(())
    }

    /// The stored versions of `catalog_id`, newest first.
    pub async fn versions(&self, catalog_id: &str) -> Result<Vec<VersionRow>, StoreError> {
        versions::list(&self.db, catalog_id).await
    }

    /// The version of `catalog_id` that `selector` names, parsed and validated; `None` when
    /// the store has none.
    pub async fn version(
        &self,
        catalog_id: &str,
        selector: Selector<'_>,
    ) -> Result<Option<Arc<Catalog>>, VersionError> {
        if let Selector::Sha256Prefix(prefix) = selector {
            let cached = Self::lock(&self.parsed)
                .values()
                .find(|c| c.data.id == catalog_id && c.sha256.starts_with(prefix))
                .cloned();
            if cached.is_some() {
                return Ok(cached);
            }
        }
        let mut found = versions::find(&self.db, catalog_id, selector).await?;
        if found.len() > 1 {
            let what = match selector {
                Selector::Sha256Prefix(p) => format!("sha256 prefix {p}"),
                Selector::Version(v) => format!("version {v}"),
            };
            return Err(VersionError::Ambiguous(format!(
                "{} versions of catalog '{catalog_id}' match {what}; give more hex digits",
                found.len()
            )));
        }
        let Some((row, content)) = found.pop() else {
            return Ok(None);
        };
        let origin = format!("stored:{}@{}", row.catalog_id, row.sha256);
        let catalog = Catalog::parse(&origin, content.as_bytes()).map_err(|e| {
            VersionError::Invalid(format!(
                "stored version {} of catalog '{catalog_id}' no longer validates: {}",
                row.sha256, e.message
            ))
        })?;
        if catalog.sha256 != row.sha256 {
            return Err(VersionError::Invalid(format!(
                "stored version {} of catalog '{catalog_id}' does not match its hash",
                row.sha256
            )));
        }
        let catalog = Arc::new(catalog);
        let mut parsed = Self::lock(&self.parsed);
        if parsed.len() >= PARSED_KEPT {
            parsed.clear();
        }
        parsed.insert(catalog.sha256.clone(), Arc::clone(&catalog));
        Ok(Some(catalog))
    }
}
