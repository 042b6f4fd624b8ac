//! Saved scenarios, catalog versions and keys, over HTTP, on SQLite and on PostgreSQL (a new
//! schema in database `test` at 127.0.0.1:5432; that half is skipped, saying so, where it
//! does not answer).

use std::sync::Arc;

use fabric_tco::catalog::store::CatalogStore;
use fabric_tco::catalog::{Catalog, CatalogSet, EMBEDDED};
use fabric_tco::store::keys::{self, Scope};
use serde_json::{Value, json};

use crate::{TestApp, archive_at, spawn_full, temp_sqlite_url};

/// PostgreSQL for the tests: `FABRIC_TCO_TEST_POSTGRES_URL`, else the project's default.
fn postgres_base_url() -> String {
    std::env::var("FABRIC_TCO_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/test".to_string())
}

/// A new schema in the test PostgreSQL and a URL whose connections use it; `None` (said on
/// standard error) when PostgreSQL does not answer.
pub async fn postgres_url(tag: &str) -> Option<String> {
    use sqlx::{Connection, Executor};
    sqlx::any::install_default_drivers();
    let base = postgres_base_url();
    let connect = sqlx::AnyConnection::connect(&base);
    let Ok(Ok(mut conn)) = tokio::time::timeout(std::time::Duration::from_secs(3), connect).await
    else {
        eprintln!("PostgreSQL does not answer at {base}: the PostgreSQL half of {tag} is skipped");
        return None;
    };
    let schema = format!(
        "api_{tag}_{}",
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    );
    conn.execute(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {schema}")))
        .await
        .expect("create a schema");
    Some(format!("{base}?options=-c%20search_path%3D{schema}"))
}

/// The databases a test runs on: a new SQLite file, and PostgreSQL when it answers.
async fn databases(tag: &str) -> Vec<String> {
    let mut out = vec![temp_sqlite_url()];
    out.extend(postgres_url(tag).await);
    out
}

/// The embedded catalog with `sku`'s price multiplied by `factor` (a new version).
fn repriced(sku: &str, factor: u32) -> Catalog {
    let mut v: Value = serde_json::from_str(EMBEDDED[0].1).expect("json");
    let switches = v["switches"].as_array_mut().expect("switches");
    let s = switches
        .iter_mut()
        .find(|s| s["sku"] == sku)
        .expect("the switch");
    let price: u64 = s["price_usd"]
        .as_str()
        .and_then(|p| p.split('.').next())
        .and_then(|p| p.parse().ok())
        .expect("a price");
    let new = (price * u64::from(factor)).to_string();
    s["price_usd"] = new.clone().into();
    s["price_range_usd"] = json!({"low": "0", "high": new});
    v["version"] = "2026.12.0".into();
    Catalog::parse("test:repriced", &serde_json::to_vec(&v).expect("bytes")).expect("valid")
}

/// Where two bodies first differ, with some context.
fn first_difference(a: &[u8], b: &[u8]) -> String {
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let around = |s: &[u8]| {
        String::from_utf8_lossy(&s[at.saturating_sub(80)..(at + 80).min(s.len())]).into_owned()
    };
    format!(
        "at byte {at}:\n  before …{}…\n  after  …{}…",
        around(a),
        around(b)
    )
}

fn embedded() -> CatalogSet {
    CatalogSet::embedded().expect("embedded")
}

/// The service on `catalogs` and database `url`, with a write key and a read key.
async fn start(catalogs: CatalogSet, url: &str) -> (TestApp, String, String) {
    let archive = archive_at(url);
    let store = Arc::new(CatalogStore::new(catalogs, &[]));
    archive
        .remember(&store.current())
        .await
        .expect("the database answers");
    let (_, write) = keys::create(archive.db(), "writer", "team-a", Scope::Write)
        .await
        .expect("key");
    let (_, read) = keys::create(archive.db(), "reader", "team-a", Scope::Read)
        .await
        .expect("key");
    let app = spawn_full(store, archive, fabric_tco::ServerOptions::default()).await;
    (app, write, read)
}

async fn send(
    app: &TestApp,
    method: reqwest::Method,
    path: &str,
    key: Option<&str>,
    body: Option<Value>,
    if_match: Option<&str>,
) -> reqwest::Response {
    let mut r = app.client.request(method, app.url(path));
    if let Some(k) = key {
        r = r.bearer_auth(k);
    }
    if let Some(b) = body {
        r = r.json(&b);
    }
    if let Some(m) = if_match {
        r = r.header("If-Match", m);
    }
    r.send().await.expect("request")
}

async fn save(app: &TestApp, key: &str, body: Value) -> Value {
    let res = send(
        app,
        reqwest::Method::POST,
        "/v1/scenarios",
        Some(key),
        Some(body),
        None,
    )
    .await;
    assert_eq!(res.status(), 201, "{:?}", res.text().await);
    res.json().await.expect("json")
}

async fn problem(res: reqwest::Response, status: u16) -> Value {
    assert_eq!(res.status().as_u16(), status);
    assert_eq!(
        res.headers()["content-type"].to_str().unwrap(),
        "application/problem+json"
    );
    res.json().await.expect("problem")
}

#[tokio::test]
async fn a_saved_plan_is_byte_identical_after_the_catalog_changed_while_a_fresh_plan_is_not() {
    for url in databases("reproduce").await {
        let (app, write, read) = start(embedded(), &url).await;
        let request = json!({"gpus": 2048, "gpu_model": "b200"});
        let saved = save(&app, &write, json!({"name": "March", "request": request})).await;
        let plan_path = saved["links"]["plan"]
            .as_str()
            .expect("plan link")
            .to_string();
        let before = send(
            &app,
            reqwest::Method::GET,
            &plan_path,
            Some(&read),
            None,
            None,
        )
        .await;
        assert_eq!(before.status(), 200);
        let before = before.bytes().await.expect("body");
        let plan: Value = serde_json::from_slice(&before).expect("plan");
        assert_eq!(plan["plan_id"], saved["plan_id"], "{url}");
        // A switch this plan buys.
        let sku = plan["fabrics"][0]["bom"]
            .as_array()
            .expect("bom")
            .iter()
            .find(|l| l["category"] == "switch")
            .and_then(|l| l["sku"].as_str())
            .expect("a switch line")
            .to_string();
        let old_sha = plan["catalog"]["sha256"].as_str().expect("sha").to_string();

        // The catalog changes and the service restarts on the same database.
        let (app, _, _) = start(CatalogSet::new(vec![repriced(&sku, 2)]).expect("set"), &url).await;
        let after = send(
            &app,
            reqwest::Method::GET,
            &plan_path,
            Some(&read),
            None,
            None,
        )
        .await;
        assert_eq!(after.status(), 200);
        let after = after.bytes().await.expect("body");
        assert!(
            after == before,
            "{url}: the saved plan changed:\n{}",
            first_difference(&before, &after)
        );
        // A fresh plan of the same request shows the new price.
        let fresh = app
            .client
            .post(app.url("/v1/plans"))
            .json(&request)
            .send()
            .await
            .expect("plan");
        let fresh: Value = fresh.json().await.expect("plan");
        assert_ne!(fresh["catalog"]["sha256"], old_sha.as_str());
        assert_ne!(
            fresh["fabrics"][0]["capex"]["switches_usd"],
            plan["fabrics"][0]["capex"]["switches_usd"]
        );
        // The diff of the saved scenario and the same request planned now names the re-priced
        // switch lines and their deltas.
        let id = saved["id"].as_str().expect("id");
        let d: Value = send(
            &app,
            reqwest::Method::GET,
            &format!("/v1/diff?from={id}&to=plan&gpus=2048&gpu_model=b200"),
            Some(&read),
            None,
            None,
        )
        .await
        .json()
        .await
        .expect("diff");
        assert_eq!(d["catalog_changed"], true, "{d}");
        let ib = &d["fabrics"][0];
        let repriced: Vec<&Value> = ib["bom"]
            .as_array()
            .expect("bom changes")
            .iter()
            .filter(|c| c["sku"] == sku.as_str())
            .collect();
        assert!(!repriced.is_empty(), "{ib}");
        let mut sum = rust_decimal::Decimal::ZERO;
        for c in &repriced {
            assert_eq!(c["change"], "repriced", "{c}");
            let dec = |v: &Value| {
                v.as_str()
                    .expect("decimal")
                    .parse::<rust_decimal::Decimal>()
                    .expect("decimal")
            };
            let qty = rust_decimal::Decimal::from(c["to_quantity"].as_u64().expect("qty"));
            let unit = dec(&c["to_unit_price_usd"]) - dec(&c["from_unit_price_usd"]);
            assert_eq!(dec(&c["extended_delta_usd"]), qty * unit, "{c}");
            sum += dec(&c["extended_delta_usd"]);
        }
        let switches = ib["capex"]
            .as_array()
            .expect("capex")
            .iter()
            .find(|m| m["item"] == "switches_usd")
            .expect("switches line");
        assert_eq!(
            switches["delta"]
                .as_str()
                .map(|s| s.parse::<rust_decimal::Decimal>().ok()),
            Some(Some(sum))
        );
        assert!(
            d["inputs"]
                .as_array()
                .expect("inputs")
                .iter()
                .all(|i| i["pointer"] == "/catalog"),
            "{}",
            d["inputs"]
        );
        let csv = send(
            &app,
            reqwest::Method::GET,
            &format!("/v1/diff?from={id}&to=plan&gpus=2048&gpu_model=b200&format=csv"),
            Some(&read),
            None,
            None,
        )
        .await
        .text()
        .await
        .expect("csv");
        assert!(
            csv.starts_with("section,fabric,item,change,from,to,delta\r\n"),
            "{csv}"
        );
        assert!(
            csv.contains(&format!("bom,infiniband,{sku} (leaf switch),repriced,")),
            "{csv}"
        );
        // Both versions are listed; the old one is served by its hash, an unknown one is a 404.
        let versions = app.json("/v1/catalogs/default/versions").await;
        let listed: Vec<&str> = versions["versions"]
            .as_array()
            .expect("versions")
            .iter()
            .filter_map(|v| v["sha256"].as_str())
            .collect();
        assert!(
            listed.contains(&old_sha.as_str()) && listed.len() == 2,
            "{versions}"
        );
        assert_eq!(versions["versions"][0]["live"], true);
        let old = app
            .json(&format!("/v1/catalogs/default?version={}", &old_sha[..12]))
            .await;
        assert_eq!(old["sha256"], old_sha.as_str());
        assert_eq!(old["default"], false);
        app.problem("/v1/catalogs/default?version=2025.01.0", 404)
            .await;
        app.problem("/v1/catalogs/default?version=0123456789ab", 404)
            .await;
        // An ad-hoc plan pins the old version by a prefix of its hash, and says so.
        let pinned: Value = app
            .client
            .post(app.url("/v1/plans"))
            .json(&json!({"gpus": 2048, "gpu_model": "b200", "catalog": format!("default@{}", &old_sha[..12])}))
            .send()
            .await
            .expect("plan")
            .json()
            .await
            .expect("json");
        assert_eq!(pinned["catalog"]["sha256"], old_sha.as_str());
        assert_eq!(
            pinned["inputs"]["catalog"],
            format!("default@{old_sha}").as_str()
        );
    }
}

#[tokio::test]
async fn scenarios_need_a_key_and_a_read_key_cannot_write() {
    let (app, write, read) = start(embedded(), &temp_sqlite_url()).await;
    let body = json!({"name": "x", "request": {"gpus": 64}});
    let none = send(
        &app,
        reqwest::Method::POST,
        "/v1/scenarios",
        None,
        Some(body.clone()),
        None,
    )
    .await;
    assert_eq!(
        none.headers()["www-authenticate"].to_str().unwrap(),
        "Bearer realm=\"fabric-tco\""
    );
    assert_eq!(problem(none, 401).await["code"], "unauthorized");
    // The write key with its last hex digit changed.
    let last = if write.ends_with('0') { '1' } else { '0' };
    let wrong = format!("{}{last}", &write[..write.len() - 1]);
    for bad in [wrong.as_str(), "ftco_", "nonsense"] {
        let res = send(
            &app,
            reqwest::Method::GET,
            "/v1/scenarios",
            Some(bad),
            None,
            None,
        )
        .await;
        problem(res, 401).await;
    }
    let res = send(
        &app,
        reqwest::Method::POST,
        "/v1/scenarios",
        Some(&read),
        Some(body),
        None,
    )
    .await;
    assert_eq!(problem(res, 403).await["code"], "forbidden");
    // Plans stay open.
    assert_eq!(app.get("/v1/plans?gpus=64").await.status(), 200);
}

#[tokio::test]
async fn revisions_are_conditional_kept_and_each_reproducible() {
    for url in databases("revisions").await {
        let (app, write, read) = start(embedded(), &url).await;
        let first = save(
            &app,
            &write,
            json!({"name": "A", "tags": ["q1"], "request": {"gpus": 512}}),
        )
        .await;
        let path = first["links"]["self"].as_str().expect("self").to_string();
        let get = send(&app, reqwest::Method::GET, &path, Some(&read), None, None).await;
        assert_eq!(get.headers()["etag"].to_str().unwrap(), "\"1\"");
        let change = json!({"name": "A", "tags": ["q2"], "request": {"gpus": 1024}});
        let put = send(
            &app,
            reqwest::Method::PUT,
            &path,
            Some(&write),
            Some(change.clone()),
            Some("\"1\""),
        )
        .await;
        assert_eq!(put.status(), 200);
        let second: Value = put.json().await.expect("json");
        assert_eq!(second["revision"], 2);
        // A write made on revision 1 is now stale.
        let stale = send(
            &app,
            reqwest::Method::PUT,
            &path,
            Some(&write),
            Some(change),
            Some("\"1\""),
        )
        .await;
        let p = problem(stale, 412).await;
        assert_eq!(p["extra"]["current_revision"], 2);
        let stale_delete = send(
            &app,
            reqwest::Method::DELETE,
            &path,
            Some(&write),
            None,
            Some("\"1\""),
        )
        .await;
        problem(stale_delete, 412).await;
        // Every revision's plan comes back with the id it was saved with.
        let history: Value = send(
            &app,
            reqwest::Method::GET,
            &format!("{path}/revisions"),
            Some(&read),
            None,
            None,
        )
        .await
        .json()
        .await
        .expect("json");
        let revs = history["revisions"].as_array().expect("revisions");
        assert_eq!(revs.len(), 2);
        assert_ne!(revs[0]["plan_id"], revs[1]["plan_id"]);
        for r in revs {
            let plan: Value = send(
                &app,
                reqwest::Method::GET,
                &format!("{path}/plan?revision={}", r["revision"]),
                Some(&read),
                None,
                None,
            )
            .await
            .json()
            .await
            .expect("plan");
            assert_eq!(plan["plan_id"], r["plan_id"], "{url}");
        }
        let csv = send(
            &app,
            reqwest::Method::GET,
            &format!("{path}/plan?format=csv"),
            Some(&read),
            None,
            None,
        )
        .await;
        assert!(
            csv.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("text/csv")
        );
        // And as a workbook, named by the saved plan's id.
        let book = send(
            &app,
            reqwest::Method::GET,
            &format!("{path}/plan?format=xlsx"),
            Some(&read),
            None,
            None,
        )
        .await;
        assert_eq!(book.status(), 200);
        // Revisions are listed oldest first: the last is the current one.
        let current = revs.last().and_then(|r| r["plan_id"].as_str());
        let disposition = book.headers()["content-disposition"]
            .to_str()
            .unwrap()
            .to_string();
        assert!(
            current.is_some_and(|id| disposition.contains(id)),
            "{disposition}"
        );
        assert_eq!(book.bytes().await.unwrap()[..2], *b"PK");
        // Another team sees nothing; deleting removes it.
        let db = archive_at(&url);
        let (_, other) = keys::create(db.db(), "other", "team-b", Scope::Write)
            .await
            .expect("key");
        problem(
            send(&app, reqwest::Method::GET, &path, Some(&other), None, None).await,
            404,
        )
        .await;
        let gone = send(
            &app,
            reqwest::Method::DELETE,
            &path,
            Some(&write),
            None,
            Some("\"2\""),
        )
        .await;
        assert_eq!(gone.status(), 204);
        problem(
            send(&app, reqwest::Method::GET, &path, Some(&read), None, None).await,
            404,
        )
        .await;
    }
}

#[tokio::test]
async fn a_request_that_would_not_plan_is_refused_and_nothing_is_stored() {
    let (app, write, read) = start(embedded(), &temp_sqlite_url()).await;
    let cases = [
        (
            json!({"name": "x", "request": {"gpus": 0}}),
            "/request/gpus",
        ),
        (json!({"name": "", "request": {"gpus": 64}}), "/name"),
        (
            json!({"name": "x".repeat(201), "request": {"gpus": 64}}),
            "/name",
        ),
        (
            json!({"name": "x", "tags": ["a b"], "request": {"gpus": 64}}),
            "/tags",
        ),
        (
            json!({"name": "x", "request": {"gpus": 64, "catalog": "default@0123456789ab"}}),
            "/request/catalog",
        ),
        (
            json!({"name": "x", "request": {"gpus": 64, "catalog": "default@XYZ"}}),
            "/request/catalog",
        ),
        (
            json!({"name": "x", "request": {"gpus": 64}, "owner": "me"}),
            "/owner",
        ),
    ];
    for (body, pointer) in cases {
        let res = send(
            &app,
            reqwest::Method::POST,
            "/v1/scenarios",
            Some(&write),
            Some(body.clone()),
            None,
        )
        .await;
        let p = problem(res, 422).await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{body}: {p}");
    }
    let list: Value = send(
        &app,
        reqwest::Method::GET,
        "/v1/scenarios",
        Some(&read),
        None,
        None,
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(list["scenarios"], json!([]));
    for path in [
        "/v1/scenarios/0123456789abcdef0123456789abcdef",
        "/v1/scenarios/not-an-id",
        "/v1/scenarios/0123456789abcdef0123456789abcdef/plan",
        "/v1/scenarios/0123456789abcdef0123456789abcdef/revisions",
    ] {
        problem(
            send(&app, reqwest::Method::GET, path, Some(&read), None, None).await,
            404,
        )
        .await;
    }
}

#[tokio::test]
async fn listing_filters_by_tag_and_name_and_pages_with_a_cursor() {
    for url in databases("listing").await {
        let (app, write, read) = start(embedded(), &url).await;
        for i in 0..7 {
            let tags = if i % 2 == 0 {
                json!(["even"])
            } else {
                json!([])
            };
            save(
                &app,
                &write,
                json!({"name": format!("plan {i}"), "tags": tags, "request": {"gpus": 64}}),
            )
            .await;
        }
        let mut names = Vec::new();
        let mut path = "/v1/scenarios?sort=name&limit=3".to_string();
        loop {
            let page: Value = send(&app, reqwest::Method::GET, &path, Some(&read), None, None)
                .await
                .json()
                .await
                .expect("json");
            names.extend(
                page["scenarios"]
                    .as_array()
                    .expect("page")
                    .iter()
                    .map(|s| s["name"].as_str().expect("name").to_string()),
            );
            match page["next_cursor"].as_str() {
                Some(c) => path = format!("/v1/scenarios?sort=name&limit=3&cursor={c}"),
                None => break,
            }
        }
        assert_eq!(
            names,
            (0..7).map(|i| format!("plan {i}")).collect::<Vec<_>>(),
            "{url}"
        );
        let even: Value = send(
            &app,
            reqwest::Method::GET,
            "/v1/scenarios?tag=even&name=PLAN",
            Some(&read),
            None,
            None,
        )
        .await
        .json()
        .await
        .expect("json");
        assert_eq!(even["scenarios"].as_array().map(Vec::len), Some(4));
        for (q, pointer) in [
            ("sort=price", "/sort"),
            ("limit=0", "/limit"),
            ("limit=201", "/limit"),
            ("cursor=zz", "/cursor"),
            ("owner=me", "/owner"),
        ] {
            let res = send(
                &app,
                reqwest::Method::GET,
                &format!("/v1/scenarios?{q}"),
                Some(&read),
                None,
                None,
            )
            .await;
            assert_eq!(
                problem(res, 422).await["errors"][0]["pointer"],
                pointer,
                "{q}"
            );
        }
    }
}

#[tokio::test]
async fn a_retried_save_with_an_idempotency_key_is_stored_once() {
    let (app, write, read) = start(embedded(), &temp_sqlite_url()).await;
    let body = json!({"name": "once", "request": {"gpus": 64}});
    let mut ids = Vec::new();
    for replayed in [false, true] {
        let res = app
            .client
            .post(app.url("/v1/scenarios"))
            .bearer_auth(&write)
            .header("Idempotency-Key", "order-42")
            .json(&body)
            .send()
            .await
            .expect("save");
        assert_eq!(res.status(), 201);
        assert_eq!(res.headers().contains_key("idempotent-replayed"), replayed);
        ids.push(res.json::<Value>().await.expect("json")["id"].clone());
    }
    assert_eq!(ids[0], ids[1]);
    // The same key for another save is refused.
    let other = app
        .client
        .post(app.url("/v1/scenarios"))
        .bearer_auth(&write)
        .header("Idempotency-Key", "order-42")
        .json(&json!({"name": "another", "request": {"gpus": 64}}))
        .send()
        .await
        .expect("save");
    assert_eq!(problem(other, 422).await["code"], "idempotency_key_reused");
    let list: Value = send(
        &app,
        reqwest::Method::GET,
        "/v1/scenarios",
        Some(&read),
        None,
        None,
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(list["scenarios"].as_array().map(Vec::len), Some(1));
}

#[tokio::test]
async fn without_a_database_plans_answer_and_scenarios_say_unavailable() {
    // Nothing listens on port 9 (discard).
    let archive = archive_at("postgres://postgres@127.0.0.1:9/test?connect_timeout=1");
    let store = Arc::new(CatalogStore::new(embedded(), &[]));
    let app = spawn_full(store, archive, fabric_tco::ServerOptions::default()).await;
    assert_eq!(app.get("/v1/plans?gpus=64").await.status(), 200);
    let res = send(
        &app,
        reqwest::Method::GET,
        "/v1/scenarios",
        Some("ftco_0123456789abcdef_00"),
        None,
        None,
    )
    .await;
    assert!(res.headers().contains_key("retry-after"));
    assert_eq!(problem(res, 503).await["code"], "database_unavailable");
    let ready = app.get("/readyz").await;
    assert_eq!(ready.status(), 503);
}

#[tokio::test]
async fn a_stored_version_that_no_longer_validates_is_reported_not_served() {
    let url = temp_sqlite_url();
    let (app, _, _) = start(embedded(), &url).await;
    let db = archive_at(&url);
    let row = fabric_tco::store::versions::VersionRow {
        sha256: "ab".repeat(32),
        catalog_id: "default".into(),
        version: "2020.01.0".into(),
        published: "2020-01-01".into(),
        first_seen_ms: 1,
    };
    fabric_tco::store::versions::remember(
        db.db(),
        &row,
        r#"{"id": "default", "switches": "gone"}"#,
    )
    .await
    .expect("stored");
    let res = app
        .client
        .post(app.url("/v1/plans"))
        .json(&json!({"gpus": 64, "catalog": "default@abababababab"}))
        .send()
        .await
        .expect("plan");
    let p = problem(res, 422).await;
    assert_eq!(p["errors"][0]["pointer"], "/catalog", "{p}");
    assert!(
        p["errors"][0]["detail"]
            .as_str()
            .is_some_and(|d| d.contains("no longer validates")),
        "{p}"
    );
    let shown = app
        .problem("/v1/catalogs/default?version=2020.01.0", 422)
        .await;
    assert!(
        shown["detail"]
            .as_str()
            .is_some_and(|d| d.contains("no longer validates")),
        "{shown}"
    );
}

#[tokio::test]
async fn with_keys_for_all_every_api_path_but_the_probes_needs_a_key() {
    let url = temp_sqlite_url();
    let archive = archive_at(&url);
    let store = Arc::new(CatalogStore::new(embedded(), &[]));
    archive.remember(&store.current()).await.expect("database");
    let (_, read) = keys::create(archive.db(), "reader", "t", Scope::Read)
        .await
        .expect("key");
    let options = fabric_tco::ServerOptions {
        keys_for_all: true,
        ..Default::default()
    };
    let app = spawn_full(store, archive, options).await;
    for path in [
        "/v1/plans?gpus=64",
        "/v1/catalogs",
        "/report?gpus=64",
        "/v1/value?gpus=64&metric=tco.total_usd&fabric=roce",
    ] {
        problem(app.get(path).await, 401).await;
        let ok = send(&app, reqwest::Method::GET, path, Some(&read), None, None).await;
        assert_eq!(ok.status(), 200, "{path}");
    }
    for open in ["/healthz", "/readyz", "/openapi.json"] {
        assert_eq!(app.get(open).await.status(), 200, "{open}");
    }
}

/// POSTs a form (URL-encoded pairs) to `path` without following a redirect.
async fn post_form(app: &TestApp, path: &str, pairs: &[(&str, &str)]) -> reqwest::Response {
    let body: Vec<String> = pairs
        .iter()
        .map(|(k, v)| {
            let enc = |s: &str| {
                s.bytes()
                    .map(|b| {
                        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                            char::from(b).to_string()
                        } else {
                            format!("%{b:02X}")
                        }
                    })
                    .collect::<String>()
            };
            format!("{}={}", enc(k), enc(v))
        })
        .collect();
    app.client
        .post(app.url(path))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(body.join("&"))
        .send()
        .await
        .expect("form")
}

#[tokio::test]
async fn the_report_page_saves_its_plan_and_compares_it_with_a_saved_one() {
    let (app, write, read) = start(embedded(), &temp_sqlite_url()).await;
    let page = app.html("/report?gpus=512&economics.years=7", 200).await;
    assert!(
        page.contains(r#"action="/report/save""#) && page.contains(r#"action="/report/compare""#)
    );
    let res = post_form(
        &app,
        "/report/save",
        &[
            ("gpus", "512"),
            ("economics.years", "7"),
            ("_name", "from the page"),
            ("_tags", "q1, web"),
            ("_key", &write),
        ],
    )
    .await;
    assert_eq!(res.status(), 303);
    let location = res.headers()["location"]
        .to_str()
        .expect("location")
        .to_string();
    assert!(
        location.starts_with("/report?gpus=512&economics.years=7&_saved="),
        "{location}"
    );
    let id = location.rsplit('=').next().expect("id").to_string();
    let shown = app.html(&location, 200).await;
    assert!(
        shown.contains(&format!("Saved as scenario {id}")),
        "the page says it"
    );
    // The scenario is the page's plan.
    let saved: Value = send(
        &app,
        reqwest::Method::GET,
        &format!("/v1/scenarios/{id}"),
        Some(&read),
        None,
        None,
    )
    .await
    .json()
    .await
    .expect("json");
    assert_eq!(saved["tags"], json!(["q1", "web"]));
    assert_eq!(saved["request"]["gpus"], 512);
    assert_eq!(saved["request"]["economics"]["years"], 7);
    // Compared with 1,024 GPUs: the page names the input that changed.
    let res = post_form(
        &app,
        "/report/compare",
        &[("gpus", "1024"), ("_scenario", &id), ("_key", &read)],
    )
    .await;
    assert_eq!(res.status(), 200);
    let diff = res.text().await.expect("page");
    assert!(
        diff.contains(&format!("scenario {id} revision 1")) && diff.contains("<code>gpus</code>"),
        "{diff}"
    );
    // A read key cannot save; a wrong key is a 401 page; a missing name a 422 page.
    let res = post_form(
        &app,
        "/report/save",
        &[("gpus", "512"), ("_name", "x"), ("_key", &read)],
    )
    .await;
    assert_eq!(res.status(), 403);
    let res = post_form(
        &app,
        "/report/save",
        &[
            ("gpus", "512"),
            ("_name", "x"),
            ("_key", "ftco_0123456789abcdef_00"),
        ],
    )
    .await;
    assert_eq!(res.status(), 401);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap_or("")
            .starts_with("text/html")
    );
    let res = post_form(&app, "/report/save", &[("gpus", "512"), ("_key", &write)]).await;
    assert_eq!(res.status(), 422);
    let res = post_form(
        &app,
        "/report/compare",
        &[("gpus", "512"), ("_scenario", "nope"), ("_key", &read)],
    )
    .await;
    assert_eq!(res.status(), 422);
}

#[tokio::test]
async fn a_page_form_over_8_kib_is_a_413_page() {
    let (app, write, _) = start(embedded(), &temp_sqlite_url()).await;
    let long = "x".repeat(9 * 1024);
    let res = post_form(&app, "/report/save", &[("_name", &long), ("_key", &write)]).await;
    assert_eq!(res.status(), 413);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap_or("")
            .starts_with("text/html")
    );
}

#[tokio::test]
async fn a_saved_scenarios_plan_is_a_report_page_on_its_pinned_catalog() {
    let url = temp_sqlite_url();
    let (app, write, read) = start(embedded(), &url).await;
    // Inputs of every kind the page carries: a list, nested groups, a price map keyed by SKU,
    // an uncertainty range.
    let request = json!({
        "gpus": 1024,
        "fabrics": ["infiniband", "roce"],
        "economics": {"years": 4},
        "prices": {"overrides": {"nvidia-qm9700": "45000"}},
        "uncertainty": {"samples": 20, "seed": 3, "inputs": {"economics.pue": "1.2,1.4"}}
    });
    let saved = save(
        &app,
        &write,
        json!({"name": "June review", "request": request}),
    )
    .await;
    let id = saved["id"].as_str().expect("id").to_string();
    let plan_id = saved["plan_id"].as_str().expect("plan id").to_string();
    let pinned = saved["request"]["catalog"]
        .as_str()
        .expect("pinned catalog")
        .to_string();

    // The catalog changes and the service restarts on the same database: the page is still
    // the saved plan (its plan id), and its form keeps the pinned version.
    let (app, _, _) = start(
        CatalogSet::new(vec![repriced("nvidia-sn5600", 2)]).expect("set"),
        &url,
    )
    .await;
    let res = send(
        &app,
        reqwest::Method::GET,
        &format!("/v1/scenarios/{id}/plan?format=html"),
        Some(&read),
        None,
        None,
    )
    .await;
    assert_eq!(res.status(), 200);
    let csp = res.headers()["content-security-policy"]
        .to_str()
        .expect("csp")
        .to_string();
    assert!(
        csp.contains("img-src 'self'"),
        "the report page's policy: {csp}"
    );
    let page = res.text().await.expect("page");
    assert!(page.contains(&format!("plan {plan_id}")), "the saved plan");
    assert!(page.contains("Saved scenario “June review”"), "named");
    assert!(
        pinned.starts_with("default@") && page.contains(&format!(r#"value="{pinned}""#)),
        "the form keeps the pin"
    );
    // The same page from Accept: text/html, and from the page's own "Open" form.
    let by_accept = app
        .client
        .get(app.url(&format!("/v1/scenarios/{id}/plan")))
        .header("authorization", format!("Bearer {read}"))
        .header("accept", "text/html")
        .send()
        .await
        .expect("page");
    assert_eq!(by_accept.status(), 200);
    assert!(
        by_accept
            .text()
            .await
            .expect("page")
            .contains(&format!("plan {plan_id}"))
    );
    let res = post_form(
        &app,
        "/report/open",
        &[("_scenario", &format!("{id}@1")), ("_key", &read)],
    )
    .await;
    assert_eq!(res.status(), 200);
    assert!(
        res.text()
            .await
            .expect("page")
            .contains(&format!("plan {plan_id}"))
    );
    // No key, an unknown scenario, a bad reference: pages with the problem.
    let res = post_form(
        &app,
        "/report/open",
        &[("_scenario", &id), ("_key", "ftco_0123456789abcdef_00")],
    )
    .await;
    assert_eq!(res.status(), 401);
    let res = post_form(
        &app,
        "/report/open",
        &[("_scenario", &"0".repeat(32)), ("_key", &read)],
    )
    .await;
    assert_eq!(res.status(), 404);
    let res = post_form(
        &app,
        "/report/open",
        &[("_scenario", "nope"), ("_key", &read)],
    )
    .await;
    assert_eq!(res.status(), 422);
    // Without a key the API answers 401 problem+json, as for JSON.
    let res = send(
        &app,
        reqwest::Method::GET,
        &format!("/v1/scenarios/{id}/plan?format=html"),
        None,
        None,
        None,
    )
    .await;
    assert_eq!(res.status(), 401);
}
