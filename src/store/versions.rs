//! Catalog versions: every catalog content the service has loaded, stored once under the
//! SHA-256 of its bytes, with the time it was first seen.

use super::{Db, StoreError};

/// One stored catalog version, without its content.
#[derive(Debug, Clone, PartialEq, Eq, sqlx::FromRow)]
pub struct VersionRow {
    pub sha256: String,
    pub catalog_id: String,
    pub version: String,
    pub published: String,
    pub first_seen_ms: i64,
}

/// Stores `content` under `row.sha256` unless it is there already (the first-seen time is
/// kept). True when it was new.
pub async fn remember(db: &Db, row: &VersionRow, content: &str) -> Result<bool, StoreError> {
    let pool = db.pool().await?;
    let done = sqlx::query(
        "INSERT INTO catalog_versions (sha256, catalog_id, version, published, first_seen_ms, content) \
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (sha256) DO NOTHING",
    )
    .bind(&row.sha256)
    .bind(&row.catalog_id)
    .bind(&row.version)
    .bind(&row.published)
    .bind(row.first_seen_ms)
    .bind(content)
    .execute(pool)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// The versions of catalog `catalog_id`, newest first.
pub async fn list(db: &Db, catalog_id: &str) -> Result<Vec<VersionRow>, StoreError> {
    let pool = db.pool().await?;
    Ok(sqlx::query_as::<_, VersionRow>(
        "SELECT sha256, catalog_id, version, published, first_seen_ms FROM catalog_versions \
         WHERE catalog_id = $1 ORDER BY first_seen_ms DESC, sha256",
    )
    .bind(catalog_id)
    .fetch_all(pool)
    .await?)
}

/// The versions of `catalog_id` whose SHA-256 starts with `sha256_prefix` (lower-case hex) or,
/// when `version` is given instead, whose version string is `version`; at most 2 (more than one
/// means the selector is ambiguous). With the content.
pub async fn find(
    db: &Db,
    catalog_id: &str,
    selector: Selector<'_>,
) -> Result<Vec<(VersionRow, String)>, StoreError> {
    let pool = db.pool().await?;
    let (clause, value) = match selector {
        // The prefix is hex (checked by the caller): no LIKE wildcard can be in it.
        Selector::Sha256Prefix(p) => ("sha256 LIKE $2", format!("{p}%")),
        Selector::Version(v) => ("version = $2", v.to_string()),
    };
    let sql = format!(
        "SELECT sha256, catalog_id, version, published, first_seen_ms, content FROM catalog_versions \
         WHERE catalog_id = $1 AND {clause} ORDER BY first_seen_ms DESC, sha256 LIMIT 2"
    );
    let rows = sqlx::query_as::<_, (String, String, String, String, i64, String)>(
        sqlx::AssertSqlSafe(sql),
    )
    .bind(catalog_id)
    .bind(value)
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(
            |(sha256, catalog_id, version, published, first_seen_ms, content)| {
                (
                    VersionRow {
                        sha256,
                        catalog_id,
                        version,
                        published,
                        first_seen_ms,
                    },
                    content,
                )
            },
        )
        .collect())
}

/// How a stored version is named.
#[derive(Debug, Clone, Copy)]
pub enum Selector<'a> {
    /// A prefix of its SHA-256, lower-case hex.
    Sha256Prefix(&'a str),
    /// Its version string (`2026.11.0`).
    Version(&'a str),
}
