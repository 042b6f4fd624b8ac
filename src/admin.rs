//! The operator's commands: `fabric-tco keys …` and `fabric-tco backup FILE`. Each returns
//! the text to print, or the error to report; `main` prints and sets the exit status.

use std::path::Path;

use crate::config::Settings;
use crate::store::keys::{self, MAX_NAME_CHARS, Scope};
use crate::store::{Db, StoreError};

/// `keys create --name N --scope read|write [--team T]`, `keys list`, `keys revoke ID`.
pub async fn keys(settings: &Settings, args: &[&str]) -> Result<String, String> {
    let db = Db::open(&settings.database_url())?;
    let out = match args {
        ["create", rest @ ..] => create(&db, rest).await,
        ["list"] => list(&db).await,
        ["revoke", id] => match keys::revoke(&db, id).await.map_err(shown)? {
            true => Ok(format!("key {id} revoked\n")),
            false => Err(format!("no active key '{id}'")),
        },
        _ => Err(
            "usage: fabric-tco keys create --name N --scope read|write [--team T] | keys list | keys revoke ID"
                .to_string(),
        ),
    };
    db.close().await;
    out
}

fn shown(e: StoreError) -> String {
    e.to_string()
}

/// A name or team: 1 to 100 visible characters.
fn label(what: &str, v: &str) -> Result<String, String> {
    let n = v.chars().count();
    if n == 0 || n > MAX_NAME_CHARS || v.chars().any(char::is_control) {
        return Err(format!(
            "--{what} must be 1 to {MAX_NAME_CHARS} characters, none a control character"
        ));
    }
    Ok(v.to_string())
}

async fn create(db: &Db, args: &[&str]) -> Result<String, String> {
    let (mut name, mut scope, mut team) = (None, None, None);
    let mut it = args.iter();
    while let Some(flag) = it.next() {
        let value = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        match *flag {
            "--name" => name = Some(label("name", value)?),
            "--team" => team = Some(label("team", value)?),
            "--scope" => {
                scope = Some(
                    Scope::parse(value)
                        .ok_or_else(|| format!("--scope must be read or write, not '{value}'"))?,
                );
            }
            other => return Err(format!("unknown option '{other}'")),
        }
    }
    let name = name.ok_or("--name is required")?;
    let scope = scope.ok_or("--scope is required (read or write)")?;
    let team = team.unwrap_or_else(|| "default".to_string());
    let (row, token) = keys::create(db, &name, &team, scope).await.map_err(shown)?;
    Ok(format!(
        "{token}\n# key {} '{}' (team {}, scope {}): shown once, store it now; send it as 'Authorization: Bearer <key>'\n",
        row.id,
        row.name,
        row.team,
        row.scope.as_str()
    ))
}

async fn list(db: &Db) -> Result<String, String> {
    let mut out = String::from("id\tname\tteam\tscope\tcreated\trevoked\n");
    for k in keys::list(db).await.map_err(shown)? {
        out += &format!(
            "{}\t{}\t{}\t{}\t{}\t{}\n",
            k.id,
            k.name,
            k.team,
            k.scope.as_str(),
            crate::clock::rfc3339_ms(k.created_ms),
            k.revoked_ms
                .map(crate::clock::rfc3339_ms)
                .unwrap_or_default()
        );
    }
    Ok(out)
}

/// `backup FILE`: a consistent copy of the SQLite database, taken while the service runs.
pub async fn backup(settings: &Settings, file: &str) -> Result<String, String> {
    let db = Db::open(&settings.database_url())?;
    let out = db
        .backup(Path::new(file))
        .await
        .map(|()| format!("backed up {} to {file}\n", db.shown()));
    db.close().await;
    out
}
