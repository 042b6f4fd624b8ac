//! One suite, run on SQLite (a new file) and on PostgreSQL (a new schema in database `test` on
//! 127.0.0.1:5432, the project's machines; skipped with a message where it does not answer).

use super::keys::{self, Scope};
use super::scenarios::{self, After, Draft, Listing, Sort, Write};
use super::versions::{self, Selector, VersionRow};
use super::*;

/// PostgreSQL for the tests: `FABRIC_TCO_TEST_POSTGRES_URL`, else the project's default.
pub fn postgres_base_url() -> String {
    std::env::var("FABRIC_TCO_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
}

/// A new SQLite file in the temporary directory.
pub fn sqlite_url(tag: &str) -> String {
    let dir = std::env::temp_dir().join(format!(
        "fabric-tco-store-{tag}-{}-{}",
        std::process::id(),
        random_hex(6).unwrap_or_default()
    ));
    default_url(&dir)
}

/// A new schema in the test PostgreSQL, and a URL whose connections use it; `None` (and a
/// message) when PostgreSQL does not answer.
pub async fn postgres_url(tag: &str) -> Option<String> {
    sqlx::any::install_default_drivers();
    let base = postgres_base_url();
    let mut conn = match tokio::time::timeout(
        Duration::from_secs(3),
        <sqlx::AnyConnection as sqlx::Connection>::connect(&base),
    )
    .await
    {
        Ok(Ok(c)) => c,
        _ => {
            eprintln!(
                "PostgreSQL does not answer at {base}: the PostgreSQL half of {tag} is skipped"
            );
            return None;
        }
    };
    let schema = format!("t_{tag}_{}", random_hex(6).ok()?);
    conn.execute(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .await
        .ok()?;
    Some(format!("{base}?options=-c%20search_path%3D{schema}"))
}

/// The URLs to run a suite on: SQLite always, PostgreSQL when it answers.
pub async fn backends(tag: &str) -> Vec<String> {
    let mut out = vec![sqlite_url(tag)];
    out.extend(postgres_url(tag).await);
    out
}

fn draft(name: &str, tags: &[&str]) -> Draft {
    Draft {
        name: name.to_string(),
        description: String::new(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        request: r#"{"gpus":1024}"#.to_string(),
        catalog_sha256: "ab".repeat(32),
        plan_id: "p".repeat(32),
        headline: "{}".to_string(),
        key_id: "k".to_string(),
    }
}

async fn with_version(db: &Db) {
    let row = VersionRow {
        sha256: "ab".repeat(32),
        catalog_id: "default".into(),
        version: "2026.11.0".into(),
        published: "2026-11-22".into(),
        first_seen_ms: 1,
    };
    versions::remember(db, &row, "{}").await.expect("remember");
}

#[tokio::test]
async fn catalog_versions_are_kept_once_and_found_by_prefix_or_version() {
    for url in backends("versions").await {
        let db = Db::open(&url).expect("open");
        let mut row = VersionRow {
            sha256: format!("{}{}", "0123456789ab", "c".repeat(52)),
            catalog_id: "default".into(),
            version: "2026.11.0".into(),
            published: "2026-11-22".into(),
            first_seen_ms: 10,
        };
        assert!(versions::remember(&db, &row, "{\"a\":1}").await.unwrap());
        // The same bytes again: kept once, first-seen time unchanged.
        row.first_seen_ms = 20;
        assert!(!versions::remember(&db, &row, "{\"a\":1}").await.unwrap());
        let newer = VersionRow {
            sha256: "d".repeat(64),
            version: "2026.12.0".into(),
            first_seen_ms: 30,
            ..row.clone()
        };
        versions::remember(&db, &newer, "{}").await.unwrap();
        let listed = versions::list(&db, "default").await.unwrap();
        assert_eq!(
            listed.iter().map(|v| v.first_seen_ms).collect::<Vec<_>>(),
            [30, 10],
            "{url}"
        );
        let found = versions::find(&db, "default", Selector::Sha256Prefix("0123456789ab"))
            .await
            .unwrap();
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].1, "{\"a\":1}");
        let by_version = versions::find(&db, "default", Selector::Version("2026.12.0"))
            .await
            .unwrap();
        assert_eq!(by_version[0].0.sha256, "d".repeat(64));
        assert!(
            versions::find(&db, "other", Selector::Version("2026.12.0"))
                .await
                .unwrap()
                .is_empty()
        );
        db.close().await;
    }
}

#[tokio::test]
async fn keys_verify_only_their_own_secret_and_not_once_revoked() {
    for url in backends("keys").await {
        let db = Db::open(&url).expect("open");
        let (row, token) = keys::create(&db, "ci", "team-a", Scope::Write)
            .await
            .unwrap();
        let found = keys::verify(&db, &token).await.unwrap().expect("valid");
        assert_eq!((found.team.as_str(), found.scope), ("team-a", Scope::Write));
        // One character of the secret changed.
        let mut wrong = token.clone();
        let last = if wrong.ends_with('0') { '1' } else { '0' };
        wrong.pop();
        wrong.push(last);
        assert_eq!(keys::verify(&db, &wrong).await.unwrap(), None);
        for junk in [
            "",
            "ftco_",
            "Bearer x",
            "ftco_zz_zz",
            &format!("ftco_{}_", row.id),
        ] {
            assert_eq!(keys::verify(&db, junk).await.unwrap(), None, "{junk}");
        }
        assert!(keys::revoke(&db, &row.id).await.unwrap());
        assert!(!keys::revoke(&db, &row.id).await.unwrap());
        assert_eq!(keys::verify(&db, &token).await.unwrap(), None);
        assert_eq!(keys::list(&db).await.unwrap().len(), 1);
        db.close().await;
    }
}

#[tokio::test]
async fn scenarios_revise_conditionally_and_stay_with_their_team() {
    for url in backends("scenarios").await {
        let db = Db::open(&url).expect("open");
        with_version(&db).await;
        let (saved, new) = scenarios::create(&db, "a", &draft("March", &["q1"]), None)
            .await
            .unwrap();
        assert!(new);
        assert_eq!(saved.revision, 1);
        // Another team sees nothing.
        assert_eq!(scenarios::get(&db, "b", &saved.id).await.unwrap(), None);
        // A write on a stale revision is refused; on the current one it lands.
        let mut june = draft("June", &["q2"]);
        june.request = r#"{"gpus":2048}"#.into();
        assert_eq!(
            scenarios::revise(&db, "a", &saved.id, Some(7), &june)
                .await
                .unwrap(),
            Write::Stale(1)
        );
        let Write::Done(revised) = scenarios::revise(&db, "a", &saved.id, Some(1), &june)
            .await
            .unwrap()
        else {
            panic!("revision refused")
        };
        assert_eq!(revised.revision, 2);
        let history = scenarios::revisions(&db, "a", &saved.id)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            history
                .iter()
                .map(|r| r.request.as_str())
                .collect::<Vec<_>>(),
            [r#"{"gpus":1024}"#, r#"{"gpus":2048}"#]
        );
        let first = scenarios::revision(&db, "a", &saved.id, Some(1))
            .await
            .unwrap()
            .unwrap();
        assert_eq!(first.name, "March");
        let newest = scenarios::revision(&db, "a", &saved.id, None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(newest.revision, 2);
        // Tags follow the newest revision.
        let listing = |tag: &str| Listing {
            tag: Some(tag.to_string()),
            name_contains: None,
            sort: Sort::Name,
            descending: false,
            after: None,
            limit: 10,
        };
        assert!(
            scenarios::list(&db, "a", &listing("q1"))
                .await
                .unwrap()
                .0
                .is_empty()
        );
        assert_eq!(
            scenarios::list(&db, "a", &listing("q2"))
                .await
                .unwrap()
                .0
                .len(),
            1
        );
        assert_eq!(
            scenarios::delete(&db, "a", &saved.id, Some(1))
                .await
                .unwrap(),
            Write::Stale(2)
        );
        assert_eq!(
            scenarios::delete(&db, "b", &saved.id, None).await.unwrap(),
            Write::NotFound
        );
        assert_eq!(
            scenarios::delete(&db, "a", &saved.id, Some(2))
                .await
                .unwrap(),
            Write::Done(())
        );
        assert_eq!(
            scenarios::revisions(&db, "a", &saved.id).await.unwrap(),
            None
        );
        db.close().await;
    }
}

#[tokio::test]
async fn a_retried_save_with_its_idempotency_key_is_stored_once() {
    for url in backends("idempotent").await {
        let db = Db::open(&url).expect("open");
        with_version(&db).await;
        let (a, new_a) = scenarios::create(&db, "t", &draft("x", &[]), Some("k1"))
            .await
            .unwrap();
        let (b, new_b) = scenarios::create(&db, "t", &draft("x", &[]), Some("k1"))
            .await
            .unwrap();
        assert_eq!((a.id.clone(), new_a, new_b), (b.id, true, false));
        // Another team's key space is its own.
        let (c, _) = scenarios::create(&db, "u", &draft("x", &[]), Some("k1"))
            .await
            .unwrap();
        assert_ne!(c.id, a.id);
        db.close().await;
    }
}

#[tokio::test]
async fn pages_cover_every_scenario_once_in_order() {
    for url in backends("pages").await {
        let db = Db::open(&url).expect("open");
        with_version(&db).await;
        for i in 0..23 {
            let tags: &[&str] = if i % 2 == 0 { &["even"] } else { &[] };
            scenarios::create(&db, "t", &draft(&format!("plan {i:02}"), tags), None)
                .await
                .unwrap();
        }
        for (sort, descending) in [
            (Sort::Name, false),
            (Sort::Name, true),
            (Sort::Created, true),
        ] {
            let mut seen = Vec::new();
            let mut after: Option<After> = None;
            loop {
                let listing = Listing {
                    tag: None,
                    name_contains: Some("PLAN".into()),
                    sort,
                    descending,
                    after: after.clone(),
                    limit: 5,
                };
                let (rows, next) = scenarios::list(&db, "t", &listing).await.unwrap();
                seen.extend(rows.into_iter().map(|r| r.name));
                match next {
                    Some(n) => after = Some(n),
                    None => break,
                }
            }
            assert_eq!(seen.len(), 23, "{url} {sort:?}");
            let mut sorted = seen.clone();
            sorted.sort();
            if descending && sort == Sort::Name {
                sorted.reverse();
            }
            if sort == Sort::Name {
                assert_eq!(seen, sorted, "{url}");
            }
            sorted.dedup();
            assert_eq!(sorted.len(), 23);
        }
        // A name filter is a literal substring: `_` and `%` match themselves.
        let literal = Listing {
            tag: None,
            name_contains: Some("%".into()),
            sort: Sort::Name,
            descending: false,
            after: None,
            limit: 50,
        };
        assert!(
            scenarios::list(&db, "t", &literal)
                .await
                .unwrap()
                .0
                .is_empty()
        );
        db.close().await;
    }
}

#[tokio::test]
async fn a_database_that_is_not_ours_is_refused_and_left_alone() {
    // A file that is not SQLite at all.
    let url = sqlite_url("foreign");
    let path = url.trim_start_matches("sqlite://").to_string();
    std::fs::create_dir_all(std::path::Path::new(&path).parent().unwrap()).unwrap();
    std::fs::write(
        &path,
        b"these are somebody's notes, not a database\n".repeat(200),
    )
    .unwrap();
    let db = Db::open(&url).expect("open");
    let err = db.reachable().await.expect_err("refused");
    assert!(matches!(err, StoreError::Foreign(_)), "{err:?}");
    assert!(
        std::fs::read(&path)
            .unwrap()
            .starts_with(b"these are somebody's notes")
    );
    // A SQLite database with somebody else's tables; and a PostgreSQL schema likewise.
    let mut urls = vec![sqlite_url("foreign-db")];
    urls.extend(postgres_url("foreign").await);
    for url in urls {
        let db = Db::open(&url).expect("open");
        sqlx::query("CREATE TABLE invoices (id BIGINT)")
            .execute(&db.pool)
            .await
            .unwrap();
        let err = db.reachable().await.expect_err("refused");
        assert!(
            matches!(&err, StoreError::Foreign(m) if m.contains("invoices")),
            "{url}: {err:?}"
        );
        db.close().await;
    }
}

#[tokio::test]
async fn a_backup_is_a_database_with_every_save() {
    let url = sqlite_url("backup");
    let db = Db::open(&url).expect("open");
    with_version(&db).await;
    let (saved, _) = scenarios::create(&db, "t", &draft("kept", &[]), None)
        .await
        .unwrap();
    let target = std::env::temp_dir().join(format!(
        "fabric-tco-backup-{}-{}.sqlite3",
        std::process::id(),
        random_hex(4).unwrap()
    ));
    db.backup(&target).await.expect("backup");
    assert!(db.backup(&target).await.is_err(), "never overwrites");
    let copy = Db::open(&format!("sqlite://{}", target.display())).expect("open copy");
    let row = scenarios::get(&copy, "t", &saved.id).await.unwrap();
    assert_eq!(row.map(|r| r.name), Some("kept".to_string()));
    copy.close().await;
    db.close().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writes_committed_together_each_get_their_own_answer() {
    for url in backends("group").await {
        let db = std::sync::Arc::new(Db::open(&url).expect("open"));
        with_version(&db).await;
        let (saved, _) = scenarios::create(&db, "t", &draft("base", &[]), None)
            .await
            .unwrap();
        // 40 saves and 10 revisions of one scenario, all on revision 1, at once.
        let mut tasks = Vec::new();
        for i in 0..50 {
            let (db, id) = (std::sync::Arc::clone(&db), saved.id.clone());
            tasks.push(tokio::spawn(async move {
                if i < 40 {
                    let (row, new) =
                        scenarios::create(&db, "t", &draft(&format!("s{i}"), &[]), None)
                            .await
                            .unwrap();
                    assert!(new);
                    Ok(row.id)
                } else {
                    Err(scenarios::revise(&db, "t", &id, Some(1), &draft("r", &[]))
                        .await
                        .unwrap())
                }
            }));
        }
        let (mut ids, mut revised, mut stale) = (Vec::new(), 0, 0);
        for t in tasks {
            match t.await.unwrap() {
                Ok(id) => ids.push(id),
                Err(Write::Done(row)) => {
                    assert_eq!(row.revision, 2);
                    revised += 1;
                }
                Err(Write::Stale(2)) => stale += 1,
                Err(other) => panic!("{other:?}"),
            }
        }
        ids.sort();
        ids.dedup();
        assert_eq!((ids.len(), revised, stale), (40, 1, 9), "{url}");
        for id in &ids {
            assert!(scenarios::get(&db, "t", id).await.unwrap().is_some());
        }
        db.close().await;
    }
}

#[test]
fn new_scenario_ids_are_32_hex_digits_in_the_order_they_were_made() {
    let ids: Vec<String> = (0..10_000).map(|_| scenarios::new_scenario_id()).collect();
    for id in &ids {
        assert_eq!(id.len(), 32, "{id}");
        assert!(
            id.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)),
            "{id}"
        );
    }
    // Each id sorts after the one before (as text, as the indexes compare them): a new
    // scenario's rows go to the end of every index keyed by its id.
    assert!(ids.windows(2).all(|w| w[0] < w[1]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_scenarios_saved_together_each_keep_their_own_revision_and_tags() {
    for url in backends("together").await {
        let db = std::sync::Arc::new(Db::open(&url).expect("open"));
        with_version(&db).await;
        // 60 saves at once: no tag, one, a tag given twice, three.
        let tag_sets: [&[&str]; 4] = [&[], &["a"], &["b", "a", "b"], &["c", "a", "d"]];
        let mut tasks = Vec::new();
        for i in 0..60 {
            let db = std::sync::Arc::clone(&db);
            let mut d = draft(&format!("n{i:02}"), tag_sets[i % 4]);
            d.request = format!(r#"{{"gpus":{}}}"#, 8 * (i + 1));
            tasks.push(tokio::spawn(async move {
                let (row, new) = scenarios::create(&db, "t", &d, None).await.unwrap();
                assert!(new);
                (row, d)
            }));
        }
        let mut saved = Vec::new();
        for t in tasks {
            saved.push(t.await.unwrap());
        }
        for (row, d) in &saved {
            let got = scenarios::get(&db, "t", &row.id).await.unwrap().unwrap();
            assert_eq!(
                (&got.name, &got.tags, got.revision),
                (&d.name, &d.tags, 1),
                "{url}"
            );
            let rev = scenarios::revision(&db, "t", &row.id, Some(1))
                .await
                .unwrap()
                .unwrap();
            assert_eq!((&rev.request, &rev.name), (&d.request, &d.name), "{url}");
        }
        // The tag table: "a" on every save that names it, once each.
        assert_eq!(tagged(&db, "a").await.len(), 45, "{url}");
        assert_eq!(tagged(&db, "d").await.len(), 15, "{url}");
        db.close().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_save_that_fails_stores_nothing_and_every_answered_save_is_stored() {
    for url in backends("failed").await {
        let db = std::sync::Arc::new(Db::open(&url).expect("open"));
        with_version(&db).await;
        // Saves at once, one naming a catalog version never stored (a foreign key it breaks):
        // the batch it falls in fails as a whole; each save is stored exactly when it was
        // answered Ok.
        let mut tasks = Vec::new();
        for i in 0..40 {
            let db = std::sync::Arc::clone(&db);
            let mut d = draft(&format!("f{i:02}"), &["x"]);
            if i == 20 {
                d.catalog_sha256 = "cd".repeat(32);
            }
            tasks.push(tokio::spawn(async move {
                (i, scenarios::create(&db, "t", &d, None).await)
            }));
        }
        let (mut ok, mut failed) = (0, Vec::new());
        for t in tasks {
            let (i, result) = t.await.unwrap();
            match result {
                Ok((row, _)) => {
                    assert!(scenarios::get(&db, "t", &row.id).await.unwrap().is_some());
                    ok += 1;
                }
                Err(_) => failed.push(i),
            }
        }
        assert!(failed.contains(&20), "{url}: {failed:?}");
        let page = tagged(&db, "x").await;
        assert_eq!(page.len(), ok, "{url}");
        assert!(page.iter().all(|r| r.name != "f20"), "{url}");
        db.close().await;
    }
}

/// Team `t`'s scenarios tagged `tag`, by name (at most 200).
async fn tagged(db: &Db, tag: &str) -> Vec<scenarios::ScenarioRow> {
    let listing = Listing {
        tag: Some(tag.into()),
        name_contains: None,
        sort: Sort::Name,
        descending: false,
        after: None,
        limit: 200,
    };
    scenarios::list(db, "t", &listing).await.unwrap().0
}
