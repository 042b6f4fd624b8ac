//! API keys: `ftco_<id>_<secret>`. The store keeps the id, the key's name, team and scope and
//! the SHA-256 of the secret; the secret is shown once, at creation, and never stored or
//! logged. A presented key is found by its id and its secret's hash compared in constant time.
//!
//! The secret is 32 random bytes from the OS: a fast hash is enough (there is no password to
//! guess, so no slow hash is needed).

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{Db, StoreError, now_ms, random_hex};

/// What a key may do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Read scenarios, their plans and diffs.
    Read,
    /// Read, and save, revise and delete scenarios.
    Write,
}

impl Scope {
    pub fn as_str(self) -> &'static str {
        match self {
            Scope::Read => "read",
            Scope::Write => "write",
        }
    }

    pub fn parse(s: &str) -> Option<Scope> {
        match s {
            "read" => Some(Scope::Read),
            "write" => Some(Scope::Write),
            _ => None,
        }
    }
}

/// One key, without its secret.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyRow {
    pub id: String,
    pub name: String,
    pub team: String,
    pub scope: Scope,
    pub created_ms: i64,
    pub revoked_ms: Option<i64>,
}

/// How long a verified key is believed without asking the database again: a key revoked in
/// another process stops working within this time (at once in the process that revoked it).
pub const VERIFIED_FOR: std::time::Duration = std::time::Duration::from_secs(5);

/// Most verified keys remembered (the memory is emptied when full).
const VERIFIED_KEPT: usize = 10_000;

/// Keys verified lately, by the SHA-256 of the whole token presented.
#[derive(Debug, Default)]
pub struct Verified {
    map: std::sync::Mutex<std::collections::HashMap<[u8; 32], (KeyRow, std::time::Instant)>>,
}

impl Verified {
    fn lock(
        &self,
    ) -> std::sync::MutexGuard<'_, std::collections::HashMap<[u8; 32], (KeyRow, std::time::Instant)>>
    {
        self.map
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Longest key name and team name.
pub const MAX_NAME_CHARS: usize = 100;

/// Creates a key; returns it with the token to hand out (shown once).
pub async fn create(
    db: &Db,
    name: &str,
    team: &str,
    scope: Scope,
) -> Result<(KeyRow, String), StoreError> {
    let pool = db.pool().await?;
    let id = random_hex(8)?;
    let secret = random_hex(32)?;
    let row = KeyRow {
        id: id.clone(),
        name: name.to_string(),
        team: team.to_string(),
        scope,
        created_ms: now_ms(),
        revoked_ms: None,
    };
    sqlx::query(
        "INSERT INTO api_keys (id, name, team, scope, secret_sha256, created_ms) VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&row.id)
    .bind(&row.name)
    .bind(&row.team)
    .bind(scope.as_str())
    .bind(secret_hash(&secret))
    .bind(row.created_ms)
    .execute(pool)
    .await?;
    Ok((row, format!("ftco_{id}_{secret}")))
}

fn secret_hash(secret: &str) -> String {
    super::hex(&Sha256::digest(secret.as_bytes()))
}

/// The key a presented token belongs to, if it is valid and not revoked.
pub async fn verify(db: &Db, token: &str) -> Result<Option<KeyRow>, StoreError> {
    let seen: [u8; 32] = Sha256::digest(token.as_bytes()).into();
    if let Some((row, at)) = db.verified().lock().get(&seen)
        && at.elapsed() < VERIFIED_FOR
    {
        return Ok(Some(row.clone()));
    }
    let found = verify_stored(db, token).await?;
    let mut memo = db.verified().lock();
    match &found {
        Some(row) => {
            if memo.len() >= VERIFIED_KEPT {
                memo.clear();
            }
            memo.insert(seen, (row.clone(), std::time::Instant::now()));
        }
        None => {
            memo.remove(&seen);
        }
    }
    Ok(found)
}

/// [`verify`] against the database.
async fn verify_stored(db: &Db, token: &str) -> Result<Option<KeyRow>, StoreError> {
    let Some((id, secret)) = token
        .strip_prefix("ftco_")
        .and_then(|rest| rest.split_once('_'))
    else {
        return Ok(None);
    };
    if id.len() != 16 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Ok(None);
    }
    let pool = db.pool().await?;
    let row = sqlx::query_as::<_, (String, String, String, String, String, i64, Option<i64>)>(
        "SELECT id, name, team, scope, secret_sha256, created_ms, revoked_ms FROM api_keys WHERE id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?;
    let Some((id, name, team, scope, stored, created_ms, revoked_ms)) = row else {
        return Ok(None);
    };
    let presented = secret_hash(secret);
    let same: bool = presented.as_bytes().ct_eq(stored.as_bytes()).into();
    match (same, revoked_ms, Scope::parse(&scope)) {
        (true, None, Some(scope)) => Ok(Some(KeyRow {
            id,
            name,
            team,
            scope,
            created_ms,
            revoked_ms,
        })),
        _ => Ok(None),
    }
}

/// Revokes key `id`; false when there is no such key or it was revoked already.
pub async fn revoke(db: &Db, id: &str) -> Result<bool, StoreError> {
    let pool = db.pool().await?;
    let done =
        sqlx::query("UPDATE api_keys SET revoked_ms = $1 WHERE id = $2 AND revoked_ms IS NULL")
            .bind(now_ms())
            .bind(id)
            .execute(pool)
            .await?;
    db.verified().lock().retain(|_, (row, _)| row.id != id);
    Ok(done.rows_affected() == 1)
}

/// Every key, oldest first.
pub async fn list(db: &Db) -> Result<Vec<KeyRow>, StoreError> {
    let pool = db.pool().await?;
    let rows = sqlx::query_as::<_, (String, String, String, String, i64, Option<i64>)>(
        "SELECT id, name, team, scope, created_ms, revoked_ms FROM api_keys ORDER BY created_ms, id",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, name, team, scope, created_ms, revoked_ms)| {
            Some(KeyRow {
                id,
                name,
                team,
                scope: Scope::parse(&scope)?,
                created_ms,
                revoked_ms,
            })
        })
        .collect())
}
