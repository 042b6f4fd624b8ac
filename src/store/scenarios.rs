//! Saved scenarios and their revisions. A scenario belongs to a team; every save or revision
//! is one transaction, committed before it is acknowledged.

use sqlx::AnyConnection;

use super::{Db, StoreError, now_ms};

/// A scenario as listed: its newest revision's name, description and tags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioRow {
    pub id: String,
    pub team: String,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
    pub revision: i64,
    pub created_ms: i64,
    pub updated_ms: i64,
}

/// One revision, whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RevisionRow {
    pub scenario_id: String,
    pub revision: i64,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
    /// The normalized plan request, JSON, its catalog pinned.
    pub request: String,
    pub catalog_sha256: String,
    pub plan_id: String,
    /// The headline figures at save time, JSON.
    pub headline: String,
    pub key_id: String,
    pub created_ms: i64,
}

/// What a save or a revision writes.
#[derive(Debug, Clone)]
pub struct Draft {
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
    pub request: String,
    pub catalog_sha256: String,
    pub plan_id: String,
    pub headline: String,
    pub key_id: String,
}

/// The outcome of a conditional write.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Write<T> {
    Done(T),
    NotFound,
    /// `If-Match` named another revision: the current one.
    Stale(i64),
}

fn tags_text(tags: &[String]) -> String {
    serde_json::to_string(tags).unwrap_or_else(|_| "[]".to_string())
}

fn tags_of(text: &str) -> Vec<String> {
    serde_json::from_str(text).unwrap_or_default()
}

/// A new scenario's id: a UUIDv7 (RFC 9562) as 32 lower-case hex digits: 48 bits of
/// milliseconds, then a counter reseeded at random each millisecond and random bits (the
/// `uuid` crate keeps one process's ids in the order they were made). Ordered by time, a new
/// id lands at the end of every index keyed by it (the scenario, its revisions, its tags)
/// instead of on a random page: a batch of saves then dirties a few pages, not one per save
/// and index, and its commit does not grow with the table (docs/performance.md, "Time-ordered
/// scenario ids").
pub(super) fn new_scenario_id() -> String {
    uuid::Uuid::now_v7().simple().to_string()
}

/// Saves a new scenario (revision 1). With an idempotency key already used by this team, the
/// scenario saved then is returned instead and nothing is written (a retried request); the
/// flag is false then.
pub async fn create(
    db: &Db,
    team: &str,
    draft: &Draft,
    idempotency_key: Option<&str>,
) -> Result<(ScenarioRow, bool), StoreError> {
    let id = new_scenario_id();
    let (team, draft, key) = (
        team.to_string(),
        draft.clone(),
        idempotency_key.map(str::to_string),
    );
    let sqlite = db.backend() == super::Backend::Sqlite;
    db.write(move |conn| {
        Box::pin(async move {
            if let Some(k) = &key
                && let Some(row) = by_idempotency_key(&mut *conn, &team, k).await?
            {
                return Ok((row, false));
            }
            let now = now_ms();
            if sqlite {
                // One command to SQLite's connection thread, not three: the scenario, its
                // first revision and its tags in one statement list (`benches/scenarios.rs`:
                // a save's round trips to that thread were most of its cost). SQLite has
                // one writer, and the look-up above ran in this transaction: no other save
                // can take the key between them.
                sqlx::query(CREATE_ON_SQLITE)
                    .bind(&id)
                    .bind(&team)
                    .bind(&draft.name)
                    .bind(&draft.description)
                    .bind(tags_text(&draft.tags))
                    .bind(now)
                    .bind(key.as_deref())
                    .bind(&draft.request)
                    .bind(&draft.catalog_sha256)
                    .bind(&draft.plan_id)
                    .bind(&draft.headline)
                    .bind(&draft.key_id)
                    .bind(tags_text(&distinct_tags(&draft.tags)))
                    .execute(&mut *conn)
                    .await?;
                return Ok((created(id, team, draft, now), true));
            }
            let inserted = sqlx::query(
                "INSERT INTO scenarios (id, team, name, description, tags, revision, created_ms, updated_ms, idempotency_key) \
                 VALUES ($1, $2, $3, $4, $5, 1, $6, $6, $7) ON CONFLICT DO NOTHING",
            )
            .bind(&id)
            .bind(&team)
            .bind(&draft.name)
            .bind(&draft.description)
            .bind(tags_text(&draft.tags))
            .bind(now)
            .bind(key.as_deref())
            .execute(&mut *conn)
            .await?;
            if inserted.rows_affected() == 0 {
                // Another replica saved with the same key between the look-up and the insert
                // (PostgreSQL waited for its commit): that save is the answer.
                if let Some(k) = &key
                    && let Some(row) = by_idempotency_key(&mut *conn, &team, k).await?
                {
                    return Ok((row, false));
                }
                return Err(StoreError::Unavailable(
                    "the scenario could not be saved; retry".into(),
                ));
            }
            insert_revision(conn, &id, 1, &draft, now, false).await?;
            Ok((created(id, team, draft, now), true))
        })
    })
    .await
}

/// A save on SQLite as one statement list: `$1` id, `$2` team, `$3` name, `$4` description,
/// `$5` tags (JSON), `$6` time, `$7` idempotency key, `$8`–`$12` the revision's request,
/// catalog, plan id, headline and key, `$13` the distinct tags (JSON).
const CREATE_ON_SQLITE: &str = "\
INSERT INTO scenarios (id, team, name, description, tags, revision, created_ms, updated_ms, idempotency_key) \
 VALUES ($1, $2, $3, $4, $5, 1, $6, $6, $7); \
INSERT INTO scenario_revisions (scenario_id, revision, name, description, tags, request, catalog_sha256, plan_id, headline, key_id, created_ms) \
 VALUES ($1, 1, $3, $4, $5, $8, $9, $10, $11, $12, $6); \
INSERT INTO scenario_tags (scenario_id, tag) SELECT $1, value FROM json_each($13)";

/// The row a new scenario's save wrote.
fn created(id: String, team: String, draft: Draft, now: i64) -> ScenarioRow {
    ScenarioRow {
        id,
        team,
        name: draft.name,
        description: draft.description,
        tags: draft.tags,
        revision: 1,
        created_ms: now,
        updated_ms: now,
    }
}

/// Tags sorted, each once (the tag table's rows).
fn distinct_tags(tags: &[String]) -> Vec<String> {
    let mut tags = tags.to_vec();
    tags.sort();
    tags.dedup();
    tags
}

/// The scenario's current row when the change was made on it (`expected`, the revision of
/// `If-Match`; none: any), else the write's answer: not found, or stale at the current revision.
async fn current_at<T>(
    conn: &mut AnyConnection,
    team: &str,
    id: &str,
    expected: Option<i64>,
) -> Result<Result<ScenarioRow, Write<T>>, StoreError> {
    let Some(current) = current_in(conn, team, id).await? else {
        return Ok(Err(Write::NotFound));
    };
    if expected.is_some_and(|e| e != current.revision) {
        return Ok(Err(Write::Stale(current.revision)));
    }
    Ok(Ok(current))
}

async fn by_idempotency_key(
    conn: &mut AnyConnection,
    team: &str,
    key: &str,
) -> Result<Option<ScenarioRow>, StoreError> {
    let row = sqlx::query_as::<_, ScenarioTuple>(
        "SELECT id, team, name, description, tags, revision, created_ms, updated_ms FROM scenarios \
         WHERE team = $1 AND idempotency_key = $2",
    )
    .bind(team)
    .bind(key)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(scenario_of))
}

async fn insert_revision(
    conn: &mut AnyConnection,
    id: &str,
    revision: i64,
    draft: &Draft,
    now: i64,
    replace_tags: bool,
) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO scenario_revisions (scenario_id, revision, name, description, tags, request, catalog_sha256, plan_id, headline, key_id, created_ms) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
    )
    .bind(id)
    .bind(revision)
    .bind(&draft.name)
    .bind(&draft.description)
    .bind(tags_text(&draft.tags))
    .bind(&draft.request)
    .bind(&draft.catalog_sha256)
    .bind(&draft.plan_id)
    .bind(&draft.headline)
    .bind(&draft.key_id)
    .bind(now)
    .execute(&mut *conn)
    .await?;
    if replace_tags {
        sqlx::query("DELETE FROM scenario_tags WHERE scenario_id = $1")
            .bind(id)
            .execute(&mut *conn)
            .await?;
    }
    for tag in &distinct_tags(&draft.tags) {
        sqlx::query("INSERT INTO scenario_tags (scenario_id, tag) VALUES ($1, $2)")
            .bind(id)
            .bind(tag)
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

type ScenarioTuple = (String, String, String, String, String, i64, i64, i64);

fn scenario_of(t: ScenarioTuple) -> ScenarioRow {
    let (id, team, name, description, tags, revision, created_ms, updated_ms) = t;
    ScenarioRow {
        id,
        team,
        name,
        description,
        tags: tags_of(&tags),
        revision,
        created_ms,
        updated_ms,
    }
}

/// Scenario `id` of `team`.
pub async fn get(db: &Db, team: &str, id: &str) -> Result<Option<ScenarioRow>, StoreError> {
    let mut conn = db.pool().await?.acquire().await?;
    current_in(&mut conn, team, id).await
}

/// Scenario `id` of `team`, read on `conn` (inside a write: the row as that write sees it;
/// PostgreSQL locks it until the write commits).
async fn current_in(
    conn: &mut AnyConnection,
    team: &str,
    id: &str,
) -> Result<Option<ScenarioRow>, StoreError> {
    let lock = match conn.backend_name() {
        "PostgreSQL" => " FOR UPDATE",
        _ => "",
    };
    let row = sqlx::query_as::<_, ScenarioTuple>(sqlx::AssertSqlSafe(format!(
        "SELECT id, team, name, description, tags, revision, created_ms, updated_ms FROM scenarios \
         WHERE id = $1 AND team = $2{lock}"
    )))
    .bind(id)
    .bind(team)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(scenario_of))
}

type RevisionTuple = (
    String,
    i64,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    String,
    i64,
);

fn revision_of(t: RevisionTuple) -> RevisionRow {
    let (
        scenario_id,
        revision,
        name,
        description,
        tags,
        request,
        catalog_sha256,
        plan_id,
        headline,
        key_id,
        created_ms,
    ) = t;
    RevisionRow {
        scenario_id,
        revision,
        name,
        description,
        tags: tags_of(&tags),
        request,
        catalog_sha256,
        plan_id,
        headline,
        key_id,
        created_ms,
    }
}

const REVISION_COLUMNS: &str = "r.scenario_id, r.revision, r.name, r.description, r.tags, r.request, r.catalog_sha256, r.plan_id, r.headline, r.key_id, r.created_ms";

/// Revision `revision` of scenario `id` of `team` (the newest when `None`).
pub async fn revision(
    db: &Db,
    team: &str,
    id: &str,
    revision: Option<i64>,
) -> Result<Option<RevisionRow>, StoreError> {
    let pool = db.pool().await?;
    let sql = format!(
        "SELECT {REVISION_COLUMNS} FROM scenario_revisions r JOIN scenarios s ON s.id = r.scenario_id \
         WHERE s.id = $1 AND s.team = $2 AND r.revision = {}",
        if revision.is_some() {
            "$3"
        } else {
            "s.revision"
        }
    );
    let mut q = sqlx::query_as::<_, RevisionTuple>(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .bind(team);
    if let Some(r) = revision {
        q = q.bind(r);
    }
    Ok(q.fetch_optional(pool).await?.map(revision_of))
}

/// Every revision of scenario `id` of `team`, oldest first; `None` when there is no such
/// scenario.
pub async fn revisions(
    db: &Db,
    team: &str,
    id: &str,
) -> Result<Option<Vec<RevisionRow>>, StoreError> {
    if get(db, team, id).await?.is_none() {
        return Ok(None);
    }
    let pool = db.pool().await?;
    let sql = format!(
        "SELECT {REVISION_COLUMNS} FROM scenario_revisions r WHERE r.scenario_id = $1 ORDER BY r.revision"
    );
    let rows = sqlx::query_as::<_, RevisionTuple>(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_all(pool)
        .await?;
    Ok(Some(rows.into_iter().map(revision_of).collect()))
}

/// Adds a revision to scenario `id` of `team`: when `expected` is given, only if it is the
/// current revision.
pub async fn revise(
    db: &Db,
    team: &str,
    id: &str,
    expected: Option<i64>,
    draft: &Draft,
) -> Result<Write<ScenarioRow>, StoreError> {
    let (team, id, draft) = (team.to_string(), id.to_string(), draft.clone());
    db.write(move |conn| {
        Box::pin(async move {
            let current = match current_at(&mut *conn, &team, &id, expected).await? {
                Ok(current) => current,
                Err(refused) => return Ok(refused),
            };
            let now = now_ms();
            sqlx::query(
                "UPDATE scenarios SET name = $1, description = $2, tags = $3, revision = revision + 1, updated_ms = $4 \
                 WHERE id = $5 AND team = $6 AND revision = $7",
            )
            .bind(&draft.name)
            .bind(&draft.description)
            .bind(tags_text(&draft.tags))
            .bind(now)
            .bind(&id)
            .bind(&team)
            .bind(current.revision)
            .execute(&mut *conn)
            .await?;
            let next = current.revision.saturating_add(1);
            insert_revision(conn, &id, next, &draft, now, true).await?;
            Ok(Write::Done(ScenarioRow {
                id,
                team,
                name: draft.name,
                description: draft.description,
                tags: draft.tags,
                revision: next,
                created_ms: current.created_ms,
                updated_ms: now,
            }))
        })
    })
    .await
}

/// Deletes scenario `id` of `team` and its revisions: when `expected` is given, only if it is
/// the current revision.
pub async fn delete(
    db: &Db,
    team: &str,
    id: &str,
    expected: Option<i64>,
) -> Result<Write<()>, StoreError> {
    let (team, id) = (team.to_string(), id.to_string());
    db.write(move |conn| {
        Box::pin(async move {
            if let Err(refused) = current_at::<()>(&mut *conn, &team, &id, expected).await? {
                return Ok(refused);
            }
            for sql in [
                "DELETE FROM scenario_revisions WHERE scenario_id = $1",
                "DELETE FROM scenario_tags WHERE scenario_id = $1",
                "DELETE FROM scenarios WHERE id = $1",
            ] {
                sqlx::query(sql).bind(&id).execute(&mut *conn).await?;
            }
            Ok(Write::Done(()))
        })
    })
    .await
}

/// The order of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sort {
    Name,
    Created,
    Updated,
}

impl Sort {
    fn column(self) -> &'static str {
        match self {
            Sort::Name => "s.name",
            Sort::Created => "s.created_ms",
            Sort::Updated => "s.updated_ms",
        }
    }
}

/// Where a page starts: after the row with this sort key and id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum After {
    Text(String, String),
    Number(i64, String),
}

/// A listing's filter, order and page.
#[derive(Debug, Clone)]
pub struct Listing {
    pub tag: Option<String>,
    /// Case-insensitive substring of the name.
    pub name_contains: Option<String>,
    pub sort: Sort,
    pub descending: bool,
    pub after: Option<After>,
    pub limit: u32,
}

/// One page of `team`'s scenarios, and the cursor of the next page when there is one.
pub async fn list(
    db: &Db,
    team: &str,
    listing: &Listing,
) -> Result<(Vec<ScenarioRow>, Option<After>), StoreError> {
    let pool = db.pool().await?;
    let mut sql = String::from(
        "SELECT s.id, s.team, s.name, s.description, s.tags, s.revision, s.created_ms, s.updated_ms \
         FROM scenarios s WHERE s.team = $1",
    );
    let mut n = 1;
    let mut next = || {
        n += 1;
        format!("${n}")
    };
    if listing.tag.is_some() {
        sql += &format!(
            " AND EXISTS (SELECT 1 FROM scenario_tags t WHERE t.scenario_id = s.id AND t.tag = {})",
            next()
        );
    }
    if listing.name_contains.is_some() {
        sql += &format!(" AND LOWER(s.name) LIKE {} ESCAPE '\\'", next());
    }
    let col = listing.sort.column();
    let (cmp, dir) = if listing.descending {
        ("<", "DESC")
    } else {
        (">", "ASC")
    };
    if listing.after.is_some() {
        let (a, b) = (next(), next());
        sql += &format!(" AND ({col}, s.id) {cmp} ({a}, {b})");
    }
    let limit = next();
    sql += &format!(" ORDER BY {col} {dir}, s.id {dir} LIMIT {limit}");
    let mut q = sqlx::query_as::<_, ScenarioTuple>(sqlx::AssertSqlSafe(sql)).bind(team);
    if let Some(tag) = &listing.tag {
        q = q.bind(tag);
    }
    if let Some(name) = &listing.name_contains {
        let escaped = name
            .to_lowercase()
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_");
        q = q.bind(format!("%{escaped}%"));
    }
    match &listing.after {
        Some(After::Text(k, id)) => q = q.bind(k).bind(id),
        Some(After::Number(k, id)) => q = q.bind(*k).bind(id),
        None => {}
    }
    // One more than the page: whether a next page exists.
    q = q.bind(i64::from(listing.limit).saturating_add(1));
    let mut rows: Vec<ScenarioRow> = q
        .fetch_all(pool)
        .await?
        .into_iter()
        .map(scenario_of)
        .collect();
    let more = rows.len() > listing.limit as usize;
    rows.truncate(listing.limit as usize);
    let cursor = match rows.last() {
        Some(last) if more => Some(match listing.sort {
            Sort::Name => After::Text(last.name.clone(), last.id.clone()),
            Sort::Created => After::Number(last.created_ms, last.id.clone()),
            Sort::Updated => After::Number(last.updated_ms, last.id.clone()),
        }),
        _ => None,
    };
    Ok((rows, cursor))
}
