//! `GET /v1/catalogs` and `GET /v1/catalogs/{id}`.

use actix_web::{HttpResponse, get, web};
use serde::Serialize;
use utoipa::ToSchema;

use super::AppState;
use super::error::{ApiError, Problem};
use crate::catalog::store::SourceStatus;
use crate::catalog::{Catalog, CatalogData, EntryCounts, Listed, Part, Provenance};

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

/// Show one pricing catalog.
///
/// Every entry: switches (ports, speeds, latency, power in W, price in USD), NICs, transceivers,
/// cables, licences, GPUs, operating defaults and fabric profiles, each with `source`, `date`
/// and `grade` (A vendor spec, B analyst/government, C reseller/derived, D rule of thumb,
/// P placeholder). Money is a decimal string in USD.
#[utoipa::path(
    tag = "catalogs",
    params(("id" = String, Path, description = "Catalog id, as listed by `GET /v1/catalogs`.", example = "default")),
    responses(
        (status = 200, description = "The catalog with every entry and its source.", body = CatalogDetail),
        (status = 404, description = "No catalog with this id.", body = Problem, content_type = "application/problem+json")
    )
)]
#[get("/v1/catalogs/{id}")]
pub async fn get_catalog(
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let id = id.into_inner();
    let set = state.catalogs.current();
    let catalog = set.get(&id).ok_or_else(|| {
        let known: Vec<&str> = set.all().iter().map(|c| c.id()).collect();
        ApiError::not_found(format!("no catalog '{id}'; loaded: {}", known.join(", ")))
    })?;
    let default = catalog.id() == set.newest().id();
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(CatalogDetail {
            summary: summarize(
                catalog,
                default,
                state.catalogs.shown_origin(&catalog.origin),
            ),
            content: catalog.data.clone(),
        }))
}
