//! Saved scenarios under load, over HTTP against the service in process (release build):
//! saves at 64 concurrent clients (latency percentiles), then 10,000 saved scenarios listed a
//! page at a time (latency per page), then the saves again into that store of 10,000; on
//! SQLite (a new file) and, when it answers, PostgreSQL (a new schema in database `test` at
//! 127.0.0.1:5432).
//!
//! `cargo bench --bench scenarios` (figures in docs/performance.md, "Saved scenarios")

use std::sync::Arc;
use std::time::{Duration, Instant};

use fabric_tco::catalog::CatalogSet;
use fabric_tco::catalog::store::CatalogStore;
use fabric_tco::store::keys::{self, Scope};
use serde_json::json;

const CLIENTS: usize = 64;
const SAVES_PER_CLIENT: usize = 50;
const WARM_UP_PER_CLIENT: usize = 10;
const LISTED: usize = 10_000;

/// `per_client` saves by each of [`CLIENTS`] concurrent clients; each save's latency.
async fn saves(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    per_client: usize,
    what: &str,
) -> Vec<Duration> {
    let mut tasks = Vec::new();
    for c in 0..CLIENTS {
        let (client, base, key, what) = (
            client.clone(),
            base.to_string(),
            key.to_string(),
            what.to_string(),
        );
        tasks.push(tokio::spawn(async move {
            let mut times = Vec::with_capacity(per_client);
            for i in 0..per_client {
                let body = json!({"name": format!("client {c} {what} {i}"), "tags": ["bench"], "request": {"gpus": 1024}});
                let t = Instant::now();
                let res = client
                    .post(format!("{base}/v1/scenarios"))
                    .bearer_auth(&key)
                    .json(&body)
                    .send()
                    .await
                    .expect("save");
                assert_eq!(res.status(), 201);
                let _ = res.bytes().await;
                times.push(t.elapsed());
            }
            times
        }));
    }
    let mut times = Vec::new();
    for t in tasks {
        times.extend(t.await.expect("client"));
    }
    times
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

async fn run(label: &str, url: &str) {
    let db = Arc::new(fabric_tco::store::Db::open(url).expect("database URL"));
    let archive = Arc::new(fabric_tco::archive::Archive::new(Arc::clone(&db)));
    let catalogs = Arc::new(CatalogStore::new(
        CatalogSet::embedded().expect("catalog"),
        &[],
    ));
    archive
        .remember(&catalogs.current())
        .await
        .expect("database");
    let (_, key) = keys::create(&db, "bench", "bench", Scope::Write)
        .await
        .expect("key");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let server = fabric_tco::build_server(
        listener,
        catalogs,
        archive,
        &fabric_tco::ServerOptions::default(),
    )
    .expect("server");
    tokio::spawn(server);
    fabric_tco::catalog::remote::install_tls_provider();
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(CLIENTS)
        .build()
        .expect("client");

    // Warm-up (not measured): connections, the plan memo, the database's first pages.
    saves(&client, &base, &key, WARM_UP_PER_CLIENT, "warm-up").await;
    measured_saves(&client, &base, &key, label, "a new store", "save").await;

    // Fill to 10,000 through the store (the listing is what is measured), then page.
    let draft = fabric_tco::store::scenarios::Draft {
        name: String::new(),
        description: String::new(),
        tags: vec!["bulk".into()],
        request: r#"{"gpus":1024}"#.into(),
        catalog_sha256: CatalogSet::embedded()
            .expect("catalog")
            .newest()
            .sha256
            .clone(),
        plan_id: "0".repeat(32),
        headline: "{}".into(),
        key_id: "bench".into(),
    };
    for i in (CLIENTS * (SAVES_PER_CLIENT + WARM_UP_PER_CLIENT))..LISTED {
        let d = fabric_tco::store::scenarios::Draft {
            name: format!("bulk {i:05}"),
            ..draft.clone()
        };
        fabric_tco::store::scenarios::create(&db, "bench", &d, None)
            .await
            .expect("fill");
    }
    for (sort, limit) in [("-updated_at", 50), ("name", 50), ("name", 200)] {
        let mut pages = Vec::new();
        let mut seen = 0;
        let mut path = format!("/v1/scenarios?sort={sort}&limit={limit}");
        loop {
            let t = Instant::now();
            let page: serde_json::Value = client
                .get(format!("{base}{path}"))
                .bearer_auth(&key)
                .send()
                .await
                .expect("list")
                .json()
                .await
                .expect("json");
            pages.push(t.elapsed());
            seen += page["scenarios"].as_array().map_or(0, Vec::len);
            match page["next_cursor"].as_str() {
                Some(c) => path = format!("/v1/scenarios?sort={sort}&limit={limit}&cursor={c}"),
                None => break,
            }
        }
        assert_eq!(seen, LISTED);
        pages.sort();
        println!(
            "{label}: {LISTED} scenarios listed {limit} a page (sort={sort}), {} pages: p50 {}, p99 {}, max {}",
            pages.len(),
            ms(percentile(&pages, 0.5)),
            ms(percentile(&pages, 0.99)),
            ms(*pages.last().expect("pages"))
        );
    }
    // Saves again, into a store that now holds the 10,000 listed.
    measured_saves(
        &client,
        &base,
        &key,
        label,
        "a store of 10,000",
        "later save",
    )
    .await;
    db.close().await;
}

/// [`SAVES_PER_CLIENT`] saves by each of [`CLIENTS`] clients, timed and printed.
async fn measured_saves(
    client: &reqwest::Client,
    base: &str,
    key: &str,
    label: &str,
    store: &str,
    what: &str,
) {
    let started = Instant::now();
    let mut times = saves(client, base, key, SAVES_PER_CLIENT, what).await;
    let wall = started.elapsed();
    times.sort();
    println!(
        "{label}: {} saves by {CLIENTS} concurrent clients into {store} in {} ({:.0}/s): p50 {}, p99 {}, max {}",
        times.len(),
        ms(wall),
        times.len() as f64 / wall.as_secs_f64(),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99)),
        ms(*times.last().expect("saves"))
    );
}

async fn postgres() -> Option<String> {
    use sqlx::{Connection, Executor};
    sqlx::any::install_default_drivers();
    let base = "postgres://postgres@127.0.0.1:5432/test";
    let connect = sqlx::AnyConnection::connect(base);
    let Ok(Ok(mut conn)) = tokio::time::timeout(Duration::from_secs(3), connect).await else {
        println!("PostgreSQL does not answer at {base}: its half is skipped");
        return None;
    };
    let schema = format!("bench_{}", std::process::id());
    conn.execute(sqlx::AssertSqlSafe(format!(
        "DROP SCHEMA IF EXISTS {schema} CASCADE"
    )))
    .await
    .ok()?;
    conn.execute(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .await
        .ok()?;
    Some(format!("{base}?options=-c%20search_path%3D{schema}"))
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    // `cargo bench` passes `--bench`; nothing else is read.
    let dir = std::env::temp_dir().join(format!("fabric-tco-bench-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    run("SQLite", &fabric_tco::store::default_url(&dir)).await;
    if let Some(url) = postgres().await {
        run("PostgreSQL", &url).await;
    }
    let _ = std::fs::remove_dir_all(&dir);
}
