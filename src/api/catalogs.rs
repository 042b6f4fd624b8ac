//! `GET /v1/catalogs` and `GET /v1/catalogs/{id}`.

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::error::{ApiError, ErrorCode, Problem};
use super::query::Query;
use crate::catalog::store::SourceStatus;
use crate::catalog::{Catalog, CatalogData, EntryCounts, Listed, Part, Provenance, is_pin};

/// One loaded catalog, summarized.
#[derive(Debug, Serialize, ToSchema)]
pub struct CatalogSummary {
    /// Catalog id: pass it as `catalog` in a plan request.
    #[schema(example = "default")]
    pub id: String,
    /// Catalog version.
    #[schema(example = "2026.11.0")]
    pub version: String,
    /// Hex SHA-256 of the catalog file's bytes; plans quote it.
    #[schema(example = "3f0c…")]
    pub sha256: String,
    /// Publication date (`YYYY-MM-DD`); the newest catalog is the default.
    #[schema(example = "2026-11-22")]
    pub published: String,
    /// What the catalog is.
    pub description: String,
    /// Where it was loaded from: `embedded:pricing/default.json`, `file:<name>` or `remote`
    /// (full paths and URLs only when the operator sets `FABRIC_TCO_EXPOSE_SOURCES=true`).
    pub origin: String,
    /// True for the catalog used when a request names none.
    pub default: bool,
    /// Entries per kind.
    pub entry_counts: EntryCounts,
    /// SKUs whose price is a placeholder (grade P): get a quote.
    pub placeholder_skus: Vec<String>,
}

/// The catalogs loaded.
#[derive(Debug, Serialize, ToSchema)]
pub struct CatalogList {
    /// Newest first.
    pub catalogs: Vec<CatalogSummary>,
    /// The remote sources (`FABRIC_TCO_CATALOG_URLS`), in configuration order: state, last
    /// successful fetch, last error. Empty when none is configured.
    pub sources: Vec<SourceStatus>,
}

/// One catalog in full: every entry with its price, power, source, date and grade.
#[derive(Debug, Serialize, ToSchema)]
pub struct CatalogDetail {
    #[serde(flatten)]
    pub summary: CatalogSummary,
    /// The catalog's content.
    pub content: CatalogData,
}

fn summarize(c: &Catalog, default: bool, origin: String) -> CatalogSummary {
    let d = &c.data;
    fn sources<T: Listed>(xs: &[T]) -> impl Iterator<Item = (&Part, &Provenance)> {
        xs.iter().map(|x| (x.part(), x.provenance()))
    }
    let mut placeholders: Vec<String> = sources(&d.switches)
        .chain(sources(&d.nics))
        .chain(sources(&d.transceivers))
        .chain(sources(&d.cables))
        .chain(sources(&d.chassis_modules))
        .chain(d.licenses.iter().map(|x| (&x.part, &x.provenance)))
        .filter(|(_, p)| p.is_placeholder())
        .map(|(part, _)| part.sku.to_string())
        .collect();
    placeholders.sort();
    CatalogSummary {
        id: d.id.clone(),
        version: d.version.clone(),
        sha256: c.sha256.clone(),
        published: d.published.clone(),
        description: d.description.clone(),
        origin,
        default,
        entry_counts: c.entry_counts(),
        placeholder_skus: placeholders,
    }
}

/// List the pricing catalogs.
///
/// Every catalog the service serves, newest first, with its version, content hash (SHA-256 of
/// the file), publication date, origin, entry counts and the SKUs whose prices are
/// placeholders; then the remote sources with their state, last successful fetch and last
/// error. A remote catalog replaces a local one with the same id; a failing source keeps its
/// last good catalog served.
#[utoipa::path(
    tag = "catalogs",
    responses((status = 200, description = "The loaded catalogs, newest first.", body = CatalogList))
)]
#[get("/v1/catalogs")]
pub async fn list_catalogs(state: web::Data<AppState>) -> HttpResponse {
    let set = state.catalogs.current();
    let newest = set.newest().id().to_string();
    let catalogs = set
        .all()
        .iter()
        .map(|c| summarize(c, c.id() == newest, state.catalogs.shown_origin(&c.origin)))
        .collect();
    HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(CatalogList {
            catalogs,
            sources: state.catalogs.sources(),
        })
}

fn unknown(set: &crate::catalog::CatalogSet, id: &str) -> ApiError {
    let known: Vec<&str> = set.all().iter().map(|c| c.id()).collect();
    ApiError::not_found(format!("no catalog '{id}'; loaded: {}", known.join(", ")))
}

/// The version of catalog `id` that `v` names (a version string or 12+ hex digits of its
/// sha256): the live one when it matches, else a stored one; never another (404).
async fn version(
    state: &AppState,
    live: Option<&Arc<Catalog>>,
    id: &str,
    v: &str,
) -> Result<Arc<Catalog>, ApiError> {
    use crate::archive::VersionError;
    use crate::store::versions::Selector;
    if let Some(l) = live
        && (l.data.version == v || (is_pin(v) && l.sha256.starts_with(v)))
    {
        return Ok(Arc::clone(l));
    }
    let selector = if is_pin(v) {
        Selector::Sha256Prefix(v)
    } else {
        Selector::Version(v)
    };
    match state.archive.version(id, selector).await {
        Ok(Some(c)) => Ok(c),
        Ok(None) => Err(ApiError::not_found(format!(
            "catalog '{id}' has no version '{v}' (a version string or 12 to 64 hex digits of its sha256); GET /v1/catalogs/{id}/versions lists them"
        ))),
        Err(VersionError::Store(e)) => Err(ApiError::store(&e)),
        Err(VersionError::Ambiguous(m) | VersionError::Invalid(m)) => {
            Err(ApiError::field("/version", ErrorCode::UnknownCatalog, m))
        }
    }
}

/// One stored version of a catalog.
#[derive(Debug, Serialize, ToSchema)]
pub struct CatalogVersion {
    /// Hex SHA-256 of the catalog's bytes: pin it as `catalog: "<id>@<first 12+ digits>"`.
    pub sha256: String,
    /// The catalog's own version string.
    #[schema(example = "2026.11.0")]
    pub version: String,
    /// Its publication date (`YYYY-MM-DD`).
    pub published: String,
    /// When this service first loaded it (RFC 3339, UTC).
    pub first_seen_at: String,
    /// True for the version served now.
    pub live: bool,
}

/// The stored versions of one catalog.
#[derive(Debug, Serialize, ToSchema)]
pub struct CatalogVersions {
    pub id: String,
    /// Newest first.
    pub versions: Vec<CatalogVersion>,
}

/// List a catalog's versions.
///
/// Every content of this catalog the service has loaded (embedded, directory or remote), kept
/// once by its sha256, newest first, with the time it was first seen. A plan pins one with
/// `catalog: "<id>@<sha256 prefix>"`; `GET /v1/catalogs/{id}?version=` shows one.
#[utoipa::path(
    tag = "catalogs",
    params(("id" = String, Path, description = "Catalog id.", example = "default")),
    responses(
        (status = 200, description = "The versions, newest first.", body = CatalogVersions),
        (status = 404, description = "No version of this catalog was ever loaded.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached.", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/catalogs/{id}/versions")]
pub async fn list_versions(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let set = state.catalogs.current();
    state.archive.remember(&set).await?;
    let rows = state.archive.versions(&id).await?;
    if rows.is_empty() {
        return Err(unknown(&set, &id));
    }
    let live = set.get(&id).map(|c| c.sha256.clone());
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(CatalogVersions {
            id: id.into_inner(),
            versions: rows
                .into_iter()
                .map(|r| CatalogVersion {
                    live: live.as_deref() == Some(r.sha256.as_str()),
                    first_seen_at: crate::clock::rfc3339_ms(r.first_seen_ms),
                    sha256: r.sha256,
                    version: r.version,
                    published: r.published,
                })
                .collect(),
        }))
}

/// Show one pricing catalog.
///
/// Every entry: switches (ports, speeds, latency, power in W, price in USD), NICs, transceivers,
/// cables, licences, GPUs, operating defaults and fabric profiles, each with `source`, `date`
/// and `grade` (A vendor spec, B analyst/government, C reseller/derived, D rule of thumb,
/// P placeholder). Money is a decimal string in USD.
#[utoipa::path(
    tag = "catalogs",
    params(
        ("id" = String, Path, description = "Catalog id, as listed by `GET /v1/catalogs`.", example = "default"),
        ("version" = Option<String>, Query, description = "A version string (`2026.11.0`) or 12 to 64 hex digits of its sha256: that version, live or stored (`GET /v1/catalogs/{id}/versions`). Default: the live one.")
    ),
    responses(
        (status = 200, description = "The catalog with every entry and its source.", body = CatalogDetail),
        (status = 404, description = "No catalog with this id, or no such version of it.", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "An unknown query parameter, or a version prefix that matches two versions.", body = Problem, content_type = "application/problem+json"),
        (status = 503, description = "The database cannot be reached (for a version that is not live).", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/catalogs/{id}")]
pub async fn get_catalog(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let q = Query::from_request(&req)?;
    if let Some((k, _)) = q
        .pairs
        .iter()
        .find(|(k, _)| k != "version" && !k.starts_with('_'))
    {
        return Err(ApiError::field(
            &format!("/{k}"),
            ErrorCode::UnknownField,
            format!("query parameter '{k}' is not read here; this takes only 'version'"),
        ));
    }
    let set = state.catalogs.current();
    let live = set.get(&id);
    let catalog = match q.single("version")? {
        None => Arc::clone(live.ok_or_else(|| unknown(&set, &id))?),
        Some(v) => version(&state, live, &id, v).await?,
    };
    let default =
        live.is_some_and(|l| l.sha256 == catalog.sha256) && catalog.id() == set.newest().id();
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(CatalogDetail {
            summary: summarize(
                &catalog,
                default,
                state.catalogs.shown_origin(&catalog.origin),
            ),
            content: catalog.data.clone(),
        }))
}
