//! Pricing catalogs: schema, loading (embedded or from a directory), validation, content hash.

pub mod remote;
pub mod schema;
pub mod source_url;
pub mod store;
pub mod text;
pub mod validate;

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use sha2::{Digest, Sha256};

pub use schema::*;

/// The catalogs compiled into the binary: (file name, content). The binary runs from any
/// directory and needs no file at run time.
pub const EMBEDDED: &[(&str, &str)] = &[(
    "pricing/default.json",
    include_str!("../../pricing/default.json"),
)];

/// Largest catalog file accepted, bytes.
pub const MAX_CATALOG_BYTES: usize = 4 * 1024 * 1024;

/// A loaded, validated catalog.
#[derive(Debug, Clone)]
pub struct Catalog {
    pub data: CatalogData,
    /// Hex SHA-256 of the file's bytes exactly as loaded.
    pub sha256: String,
    /// Where it came from (`embedded:pricing/default.json`, a file path, a URL).
    pub origin: String,
    /// The file's text exactly as loaded (what the store keeps under `sha256`).
    pub content: Arc<str>,
    /// The plan's notes about this catalog's placeholder operating figures, written by the
    /// first plan that reads them (`plan::inputs`): (index, value, scope, sentence).
    pub notes: std::sync::OnceLock<
        Vec<(
            usize,
            rust_decimal::Decimal,
            crate::fabric::NoteScope,
            String,
        )>,
    >,
}

/// Why a catalog could not be loaded. The message names the file, the entry and the field.
#[derive(Debug, Clone, PartialEq)]
pub struct LoadError {
    pub origin: String,
    pub message: String,
}

impl fmt::Display for LoadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "catalog {}: {}", self.origin, self.message)
    }
}

impl std::error::Error for LoadError {}

impl Catalog {
    /// Parses and validates one catalog file's bytes.
    pub fn parse(origin: &str, bytes: &[u8]) -> Result<Catalog, LoadError> {
        let err = |message: String| LoadError {
            origin: origin.to_string(),
            message,
        };
        if bytes.len() > MAX_CATALOG_BYTES {
            return Err(err(format!(
                "{} bytes exceed the {} byte limit",
                bytes.len(),
                MAX_CATALOG_BYTES
            )));
        }
        let de = &mut serde_json::Deserializer::from_slice(bytes);
        let data: CatalogData = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            err(format!("field '{path}': {}", e.inner()))
        })?;
        let problems = validate::validate(&data);
        if !problems.is_empty() {
            let list: Vec<String> = problems
                .iter()
                .map(|p| format!("{}: field '{}': {}", p.entry, p.field, p.message))
                .collect();
            return Err(err(list.join("; ")));
        }
        let sha256 = hex(&Sha256::digest(bytes));
        // JSON that parsed is UTF-8 (its tokens are ASCII, serde_json checks its strings).
        let content = std::str::from_utf8(bytes)
            .map_err(|e| err(format!("not UTF-8: {e}")))?
            .into();
        Ok(Catalog {
            data,
            sha256,
            origin: origin.to_string(),
            content,
            notes: std::sync::OnceLock::new(),
        })
    }

    pub fn id(&self) -> &str {
        &self.data.id
    }

    pub fn switch(&self, sku: &str) -> Option<&Switch> {
        by_sku(&self.data.switches, sku)
    }
    pub fn nic(&self, sku: &str) -> Option<&Nic> {
        by_sku(&self.data.nics, sku)
    }
    pub fn transceiver(&self, sku: &str) -> Option<&Transceiver> {
        by_sku(&self.data.transceivers, sku)
    }
    pub fn chassis_module(&self, sku: &str) -> Option<&ChassisModule> {
        by_sku(&self.data.chassis_modules, sku)
    }
    pub fn cable(&self, sku: &str) -> Option<&Cable> {
        by_sku(&self.data.cables, sku)
    }
    pub fn license(&self, sku: &str) -> Option<&License> {
        by_sku(&self.data.licenses, sku)
    }
    /// The vendors of the catalog's parts, sorted, each once: the names
    /// `prices.discounts.vendor` takes.
    pub fn vendors(&self) -> Vec<&str> {
        let d = &self.data;
        let mut v: Vec<&str> = d
            .switches
            .iter()
            .map(|x| &x.part)
            .chain(d.nics.iter().map(|x| &x.part))
            .chain(d.transceivers.iter().map(|x| &x.part))
            .chain(d.cables.iter().map(|x| &x.part))
            .chain(d.licenses.iter().map(|x| &x.part))
            .chain(d.chassis_modules.iter().map(|x| &x.part))
            .map(|p| &*p.vendor)
            .collect();
        v.sort_unstable();
        v.dedup();
        v
    }
    pub fn gpu(&self, id: &str) -> Option<&Gpu> {
        self.data
            .gpus
            .iter()
            .find(|g| g.id.eq_ignore_ascii_case(id))
    }
    pub fn profile(&self, fabric: crate::fabric::Fabric) -> Option<&FabricProfile> {
        self.data
            .fabric_profiles
            .iter()
            .find(|p| p.fabric == fabric)
    }
    /// Number of entries per kind, for listings.
    pub fn entry_counts(&self) -> EntryCounts {
        let d = &self.data;
        EntryCounts {
            switches: d.switches.len(),
            nics: d.nics.len(),
            transceivers: d.transceivers.len(),
            cables: d.cables.len(),
            licenses: d.licenses.len(),
            chassis_modules: d.chassis_modules.len(),
            gpus: d.gpus.len(),
            fabric_profiles: d.fabric_profiles.len(),
        }
    }
    /// A listed part by SKU (switch, NIC, transceiver or cable) and which kind it is.
    pub fn listed(&self, sku: &str) -> Option<(&dyn Listed, PartKind)> {
        fn listed<T: Listed>(kind: PartKind) -> impl Fn(&T) -> (&dyn Listed, PartKind) {
            move |x| (x as &dyn Listed, kind)
        }
        (self.switch(sku).map(listed(PartKind::Switch)))
            .or_else(|| self.nic(sku).map(listed(PartKind::Nic)))
            .or_else(|| self.transceiver(sku).map(listed(PartKind::Transceiver)))
            .or_else(|| self.cable(sku).map(listed(PartKind::Cable)))
    }

    /// A priced entry by SKU (switch, NIC, transceiver, cable or licence): its price (`None`
    /// for a licence without a public price), its range and its provenance.
    pub fn priced(
        &self,
        sku: &str,
    ) -> Option<(
        Option<rust_decimal::Decimal>,
        Option<&PriceRange>,
        &Provenance,
    )> {
        if let Some((x, _)) = self.listed(sku) {
            let l = x.listing();
            return Some((Some(l.price_usd), Some(&l.price_range_usd), x.provenance()));
        }
        let l = self.license(sku)?;
        Some((l.price_usd, l.price_range_usd.as_ref(), &l.provenance))
    }

    /// SKUs whose price is a placeholder (grade P).
    pub fn is_placeholder(&self, sku: &str) -> bool {
        self.priced(sku)
            .is_some_and(|(_, _, prov)| prov.is_placeholder())
    }
}

/// The kinds of listed part ([`Catalog::listed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PartKind {
    Switch,
    Nic,
    Transceiver,
    Cable,
}

/// Entries per kind in a catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, utoipa::ToSchema)]
pub struct EntryCounts {
    pub switches: usize,
    pub nics: usize,
    pub transceivers: usize,
    pub cables: usize,
    pub licenses: usize,
    /// Line cards, fabric modules and supervisors of the modular chassis.
    pub chassis_modules: usize,
    pub gpus: usize,
    pub fabric_profiles: usize,
}

fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(char::from(HEX[usize::from(b >> 4)]));
        s.push(char::from(HEX[usize::from(b & 0x0f)]));
    }
    s
}

/// The catalogs a running service knows, newest first.
#[derive(Debug, Clone)]
pub struct CatalogSet {
    newest: Arc<Catalog>,
    catalogs: Vec<Arc<Catalog>>,
    /// Earlier versions a request pinned (read back from the store for that request): found by
    /// [`CatalogSet::resolve`] with their hash only, never by id alone.
    pinned: Vec<Arc<Catalog>>,
}

/// Shortest hash prefix that pins a catalog version (`default@<12+ hex digits>`).
pub const MIN_PIN_HEX: usize = 12;

/// A catalog reference split: `default` → (`default`, None); `default@3f0c…` → (`default`,
/// Some(`3f0c…`)).
pub fn split_reference(reference: &str) -> (&str, Option<&str>) {
    match reference.split_once('@') {
        Some((id, prefix)) => (id, Some(prefix)),
        None => (reference, None),
    }
}

/// True for a pin's hash part: 12 to 64 lower-case hex digits.
pub fn is_pin(prefix: &str) -> bool {
    (MIN_PIN_HEX..=64).contains(&prefix.len())
        && prefix
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

impl CatalogSet {
    /// Builds a set; rejects duplicate ids; orders newest `published` first (ties: id).
    pub fn new(catalogs: Vec<Catalog>) -> Result<CatalogSet, LoadError> {
        CatalogSet::from_shared(catalogs.into_iter().map(Arc::new).collect())
    }

    /// [`CatalogSet::new`] over catalogs already shared (a refresh reuses the unchanged ones).
    pub fn from_shared(mut catalogs: Vec<Arc<Catalog>>) -> Result<CatalogSet, LoadError> {
        catalogs.sort_by(|a, b| {
            b.data
                .published
                .cmp(&a.data.published)
                .then_with(|| a.data.id.cmp(&b.data.id))
        });
        let mut seen = std::collections::HashSet::new();
        for c in &catalogs {
            if !seen.insert(c.data.id.clone()) {
                return Err(LoadError {
                    origin: c.origin.clone(),
                    message: format!("duplicate catalog id '{}'", c.data.id),
                });
            }
        }
        match catalogs.first() {
            Some(newest) => Ok(CatalogSet {
                newest: Arc::clone(newest),
                catalogs,
                pinned: Vec::new(),
            }),
            None => Err(LoadError {
                origin: "catalogs".into(),
                message: "no catalog loaded".into(),
            }),
        }
    }

    /// The catalogs compiled into the binary.
    pub fn embedded() -> Result<CatalogSet, LoadError> {
        let list = EMBEDDED
            .iter()
            .map(|(name, text)| Catalog::parse(&format!("embedded:{name}"), text.as_bytes()))
            .collect::<Result<Vec<_>, _>>()?;
        CatalogSet::new(list)
    }

    /// Every `*.json` file in `dir` (not recursive), each one catalog.
    pub fn from_dir(dir: &Path) -> Result<CatalogSet, LoadError> {
        let origin = dir.display().to_string();
        let rd = std::fs::read_dir(dir).map_err(|e| LoadError {
            origin: origin.clone(),
            message: format!("cannot read directory: {e}"),
        })?;
        let mut paths = Vec::new();
        for entry in rd {
            let entry = entry.map_err(|e| LoadError {
                origin: origin.clone(),
                message: format!("cannot list directory: {e}"),
            })?;
            let p = entry.path();
            if p.extension().is_some_and(|x| x == "json") && p.is_file() {
                paths.push(p);
            }
        }
        paths.sort();
        if paths.is_empty() {
            return Err(LoadError {
                origin,
                message: "no *.json catalog file in the directory".into(),
            });
        }
        let mut list = Vec::new();
        for p in paths {
            let name = p.display().to_string();
            let bytes = std::fs::read(&p).map_err(|e| LoadError {
                origin: name.clone(),
                message: format!("cannot read: {e}"),
            })?;
            list.push(Catalog::parse(&name, &bytes)?);
        }
        CatalogSet::new(list)
    }

    /// The newest catalog (the default for requests that name none).
    pub fn newest(&self) -> &Arc<Catalog> {
        &self.newest
    }

    pub fn get(&self, id: &str) -> Option<&Arc<Catalog>> {
        self.catalogs.iter().find(|c| c.data.id == id)
    }

    /// The catalog a request's `catalog` names: an id (the live catalog), or `id@<hash prefix>`
    /// (that version: the live one when its hash matches, else a pinned one this set carries).
    pub fn resolve(&self, reference: &str) -> Option<&Arc<Catalog>> {
        match split_reference(reference) {
            (id, None) => self.get(id),
            (id, Some(prefix)) => self
                .catalogs
                .iter()
                .chain(&self.pinned)
                .find(|c| c.data.id == id && is_pin(prefix) && c.sha256.starts_with(prefix)),
        }
    }

    /// This set and `version`, an earlier version of one of its catalogs, for one request.
    pub fn with_pinned(&self, version: Arc<Catalog>) -> CatalogSet {
        let mut out = self.clone();
        out.pinned.push(version);
        out
    }

    pub fn all(&self) -> &[Arc<Catalog>] {
        &self.catalogs
    }
}

#[cfg(test)]
mod tests;
