//! The system of record: catalog versions, saved scenarios and API keys, in SQL.
//!
//! One code path over SQLite (the embedded default: a file under the data directory, WAL) and
//! PostgreSQL (several replicas on one database): sqlx's `Any` driver, portable SQL (TEXT and
//! BIGINT columns, `$n` parameters, `ON CONFLICT`, row-value comparisons), and one set of
//! migrations embedded in the binary and run before the first query.
//!
//! Plain rows in, plain rows out: the store knows neither HTTP nor plans nor a catalog's shape
//! (`api` and [`crate::archive`] translate).

pub mod keys;
pub mod scenarios;
pub mod versions;
pub mod writer;

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use sqlx::any::{AnyConnectOptions, AnyPoolOptions};
use sqlx::{AnyPool, Executor};

/// The migrations, in `src/store/migrations/` (compiled in).
static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("src/store/migrations");

/// The SQLite file's name under the data directory.
pub const SQLITE_FILE: &str = "fabric-tco.sqlite3";

/// How long a query waits for a free connection (and SQLite for a lock) before the store
/// reports itself unavailable.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);

/// PostgreSQL connections per process: its default `max_connections` (100) shared by a few
/// replicas.
const MAX_CONNECTIONS: u32 = 16;

/// SQLite connections per process: each is a thread of sqlx's; writes go one batch at a time
/// ([`writer`]: one connection) and reads are short, so two suffice — more only added thread
/// switches under load (16 → 4 → 2: saves at 64 clients p99 36 → 18–24 → 15–20 ms on two
/// cores, docs/performance.md).
const SQLITE_CONNECTIONS: u32 = 2;

/// The database behind the store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Why the store cannot serve.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StoreError {
    /// The database cannot be reached or failed (retry later: 503).
    Unavailable(String),
    /// The database holds something that is not fabric-tco's: refused, never written.
    Foreign(String),
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StoreError::Unavailable(e) => write!(f, "the database is unavailable: {e}"),
            StoreError::Foreign(e) => write!(f, "{e}"),
        }
    }
}

impl From<sqlx::Error> for StoreError {
    fn from(e: sqlx::Error) -> StoreError {
        StoreError::Unavailable(describe(&e))
    }
}

/// A database error's text without the connection's URL or credentials (sqlx's messages
/// carry neither; a driver's own text is kept).
fn describe(e: &sqlx::Error) -> String {
    match e {
        sqlx::Error::Database(d) => d.message().to_string(),
        sqlx::Error::PoolTimedOut => "no connection within 5 s".to_string(),
        sqlx::Error::Io(io) => format!("I/O: {}", io.kind()),
        other => other.to_string(),
    }
}

/// The store: a connection pool, opened lazily, migrated before its first use.
#[derive(Debug)]
pub struct Db {
    pool: AnyPool,
    backend: Backend,
    /// Set once the schema is checked and migrated (retried while the database is unreachable).
    migrated: tokio::sync::OnceCell<()>,
    /// The SQLite file, for backups and messages.
    sqlite_path: Option<PathBuf>,
    /// Writes, committed in groups ([`writer`]).
    writer: writer::Writer,
    /// Keys verified lately ([`keys::verify`]).
    verified: keys::Verified,
}

/// The default database: SQLite in `data_dir`.
pub fn default_url(data_dir: &Path) -> String {
    format!("sqlite://{}", data_dir.join(SQLITE_FILE).display())
}

impl Db {
    /// A store over `url` (`sqlite://PATH` or `postgres://…`). Nothing is connected yet; a
    /// SQLite file's directory is created. Errors: a URL that names neither.
    pub fn open(url: &str) -> Result<Db, String> {
        sqlx::any::install_default_drivers();
        let (backend, url, sqlite_path) = if let Some(rest) = url.strip_prefix("sqlite:") {
            let path = rest.trim_start_matches("//");
            let path = path.split('?').next().unwrap_or(path);
            if path.is_empty() || path == ":memory:" {
                return Err(
                    "FABRIC_TCO_DATABASE_URL: a SQLite database must be a file (sqlite://PATH)"
                        .to_string(),
                );
            }
            let file = PathBuf::from(path);
            if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).map_err(|e| {
                    format!("cannot create the data directory {}: {e}", dir.display())
                })?;
            }
            // rwc: create the file on first start.
            (
                Backend::Sqlite,
                format!("sqlite://{path}?mode=rwc"),
                Some(file),
            )
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            (Backend::Postgres, url.to_string(), None)
        } else {
            return Err(
                "FABRIC_TCO_DATABASE_URL must start with sqlite:// or postgres://".to_string(),
            );
        };
        let options = AnyConnectOptions::from_str(&url)
            .map_err(|e| format!("FABRIC_TCO_DATABASE_URL is not a database URL: {e}"))?;
        let pool = AnyPoolOptions::new()
            .max_connections(match backend {
                Backend::Sqlite => SQLITE_CONNECTIONS,
                Backend::Postgres => MAX_CONNECTIONS,
            })
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .after_connect(move |conn, _| {
                Box::pin(async move {
                    if backend == Backend::Sqlite {
                        // WAL: readers never wait for the writer; FULL: a commit is on disk
                        // before it is acknowledged; busy_timeout: a writer waits for the lock
                        // instead of failing.
                        conn.execute("PRAGMA journal_mode = WAL").await?;
                        conn.execute("PRAGMA synchronous = FULL").await?;
                        conn.execute("PRAGMA busy_timeout = 5000").await?;
                    }
                    Ok(())
                })
            })
            .connect_lazy_with(options);
        Ok(Db {
            pool,
            backend,
            migrated: tokio::sync::OnceCell::new(),
            sqlite_path,
            writer: writer::Writer::default(),
            verified: keys::Verified::default(),
        })
    }

    /// Runs `job` in a write transaction, committed together with the writes queued beside
    /// it ([`writer`]); its result once committed.
    pub async fn write<T, F>(&self, job: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: for<'c> FnOnce(
                &'c mut sqlx::AnyConnection,
            ) -> writer::BoxFuture<'c, Result<T, StoreError>>
            + Send
            + 'static,
    {
        let pool = self.pool().await?;
        self.writer.write(pool, job).await
    }

    fn verified(&self) -> &keys::Verified {
        &self.verified
    }

    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool, the schema checked and migrated first (once per process; tried again on the
    /// next call while the database cannot be reached).
    pub async fn pool(&self) -> Result<&AnyPool, StoreError> {
        self.migrated
            .get_or_try_init(|| async { self.migrate().await })
            .await?;
        Ok(&self.pool)
    }

    /// Refuses a database that holds tables but not ours, then runs the pending migrations.
    async fn migrate(&self) -> Result<(), StoreError> {
        if let Some(path) = &self.sqlite_path {
            check_sqlite_header(path)?;
        }
        let tables = self.tables().await?;
        let ours = tables.iter().any(|t| t == "fabric_tco_meta");
        let foreign: Vec<&String> = tables.iter().filter(|t| *t != "_sqlx_migrations").collect();
        if !ours && !foreign.is_empty() {
            return Err(StoreError::Foreign(format!(
                "the database {} holds tables that are not fabric-tco's ({}); refusing to use it (point FABRIC_TCO_DATABASE_URL at an empty database or a new file)",
                self.shown(),
                foreign
                    .iter()
                    .take(5)
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
        MIGRATOR.run(&self.pool).await.map_err(|e| match e {
            sqlx::migrate::MigrateError::Execute(e) => StoreError::from(e),
            other => StoreError::Foreign(format!(
                "the database {} cannot be migrated: {other}",
                self.shown()
            )),
        })
    }

    /// Table names in the database (SQLite) or the connection's schema (PostgreSQL). A file
    /// that is not a SQLite database is [`StoreError::Foreign`].
    async fn tables(&self) -> Result<Vec<String>, StoreError> {
        let sql = match self.backend {
            Backend::Sqlite => "SELECT name FROM sqlite_master WHERE type = 'table'",
            Backend::Postgres => {
                "SELECT CAST(table_name AS TEXT) FROM information_schema.tables WHERE table_schema = current_schema()"
            }
        };
        sqlx::query_scalar::<_, String>(sql)
            .fetch_all(&self.pool)
            .await
            .map_err(|e| match &e {
                sqlx::Error::Database(d) if self.backend == Backend::Sqlite => {
                    StoreError::Foreign(format!(
                        "{} is not a fabric-tco database ({}); refusing to use it",
                        self.shown(),
                        d.message()
                    ))
                }
                _ => StoreError::from(e),
            })
    }

    /// The database as messages name it: the SQLite file, or `PostgreSQL` (never its URL, which
    /// may hold a password).
    pub fn shown(&self) -> String {
        match &self.sqlite_path {
            Some(p) => p.display().to_string(),
            None => "PostgreSQL".to_string(),
        }
    }

    /// True when the database answers (readiness).
    pub async fn reachable(&self) -> Result<(), StoreError> {
        let pool = self.pool().await?;
        sqlx::query("SELECT 1").execute(pool).await?;
        Ok(())
    }

    /// A consistent copy of the SQLite database in `target` (a new file), taken while the
    /// service runs (`VACUUM INTO`). PostgreSQL is backed up with `pg_dump`.
    pub async fn backup(&self, target: &Path) -> Result<(), String> {
        if self.backend != Backend::Sqlite {
            return Err("backup copies a SQLite database; use pg_dump for PostgreSQL".into());
        }
        if target.exists() {
            return Err(format!(
                "{} exists; backup writes a new file",
                target.display()
            ));
        }
        let pool = self.pool().await.map_err(|e| e.to_string())?;
        let text = target
            .to_str()
            .ok_or_else(|| format!("{} is not a UTF-8 path", target.display()))?;
        sqlx::query("VACUUM INTO $1")
            .bind(text.to_string())
            .execute(pool)
            .await
            .map_err(|e| format!("backup to {} failed: {}", target.display(), describe(&e)))?;
        Ok(())
    }

    /// Closes every connection (a clean stop checkpoints SQLite's WAL into the file).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// A file that exists and has bytes must start with SQLite's header: anything else is refused
/// before a connection could touch it.
fn check_sqlite_header(path: &Path) -> Result<(), StoreError> {
    use std::io::Read;
    const HEADER: &[u8; 16] = b"SQLite format 3\0";
    let mut head = Vec::with_capacity(16);
    match std::fs::File::open(path) {
        Ok(f) => f
            .take(16)
            .read_to_end(&mut head)
            .map_err(|e| StoreError::Unavailable(format!("cannot read {}: {e}", path.display())))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => {
            return Err(StoreError::Unavailable(format!(
                "cannot open {}: {e}",
                path.display()
            )));
        }
    };
    if head.is_empty() || head.as_slice() == HEADER {
        Ok(())
    } else {
        Err(StoreError::Foreign(format!(
            "{} is not a SQLite database; refusing to use it (point FABRIC_TCO_DATABASE_URL at a new file)",
            path.display()
        )))
    }
}

/// Milliseconds since the Unix epoch, now.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
        .unwrap_or(0)
}

/// `n` random bytes from the operating system, as lower-case hex.
pub fn random_hex(n: usize) -> Result<String, StoreError> {
    let mut bytes = vec![0u8; n];
    getrandom::fill(&mut bytes)
        .map_err(|e| StoreError::Unavailable(format!("no random bytes from the OS: {e}")))?;
    Ok(hex(&bytes))
}

/// Bytes as lower-case hex.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests;
