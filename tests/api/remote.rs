//! Remote catalogs against a local HTTP server that can be told to misbehave: picked up and
//! served, ETag round-trip, every failure keeps the last good catalog, a new version is picked
//! up, all sources down at start-up, and no plan ever priced from a mixture.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use actix_web::{App, HttpRequest, HttpResponse, HttpServer, web};
use fabric_tco::catalog::CatalogSet;
use fabric_tco::catalog::remote::Fetcher;
use fabric_tco::catalog::store::CatalogStore;
use serde_json::{Value, json};

use crate::{TestApp, spawn_store};

/// What the catalog server answers.
#[derive(Clone)]
enum Mode {
    Catalog { body: Vec<u8>, etag: Option<String> },
    Status(u16),
    Malformed,
    Slow(Duration),
}

#[derive(Clone, Default)]
struct Seen {
    requests: usize,
    if_none_match: Vec<Option<String>>,
}

struct CatalogServer {
    url: String,
    mode: Arc<Mutex<Mode>>,
    seen: Arc<Mutex<Seen>>,
}

impl CatalogServer {
    fn set(&self, m: Mode) {
        *self.mode.lock().unwrap() = m;
    }
    fn seen(&self) -> Seen {
        self.seen.lock().unwrap().clone()
    }
}

async fn serve(
    req: HttpRequest,
    mode: web::Data<Arc<Mutex<Mode>>>,
    seen: web::Data<Arc<Mutex<Seen>>>,
) -> HttpResponse {
    let inm = req
        .headers()
        .get("if-none-match")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    {
        let mut s = seen.lock().unwrap();
        s.requests += 1;
        s.if_none_match.push(inm.clone());
    }
    let m = mode.lock().unwrap().clone();
    match m {
        Mode::Catalog { body, etag } => {
            if let (Some(tag), Some(inm)) = (&etag, &inm)
                && tag == inm
            {
                return HttpResponse::NotModified().finish();
            }
            let mut r = HttpResponse::Ok();
            r.content_type("application/json");
            if let Some(tag) = etag {
                r.insert_header(("ETag", tag));
            }
            r.body(body)
        }
        Mode::Status(s) => HttpResponse::build(actix_web::http::StatusCode::from_u16(s).unwrap())
            .body("upstream trouble"),
        Mode::Malformed => HttpResponse::Ok()
            .content_type("application/json")
            .body("{\"id\": \"half\", \"switches\": [ {\"sku\": "),
        Mode::Slow(d) => {
            actix_web::rt::time::sleep(d).await;
            HttpResponse::Ok()
                .content_type("application/json")
                .body("{}")
        }
    }
}

async fn catalog_server(initial: Mode) -> CatalogServer {
    let mode = Arc::new(Mutex::new(initial));
    let seen = Arc::new(Mutex::new(Seen::default()));
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let (m, s) = (mode.clone(), seen.clone());
    let server = HttpServer::new(move || {
        App::new()
            .app_data(web::Data::new(m.clone()))
            .app_data(web::Data::new(s.clone()))
            .default_service(web::to(serve))
    })
    .workers(1)
    .listen(listener)
    .unwrap()
    .run();
    tokio::spawn(server);
    CatalogServer {
        url: format!("http://127.0.0.1:{port}/catalog.json"),
        mode,
        seen,
    }
}

/// The embedded catalog renamed, dated later (so it is the default) and with the first
/// switch repriced: plans priced from it differ from the embedded ones.
fn catalog_bytes(version: &str, qm9700_usd: &str) -> Vec<u8> {
    let text = fabric_tco::catalog::EMBEDDED[0].1;
    let mut v: Value = serde_json::from_str(text).unwrap();
    v["id"] = "negotiated".into();
    v["version"] = version.into();
    // Newer than the embedded catalog, and not in the future.
    let published = v["published"].as_str().unwrap().to_string();
    v["published"] = fabric_tco::catalog::validate::day_after(&published)
        .unwrap()
        .into();
    let sw = v["switches"]
        .as_array_mut()
        .unwrap()
        .iter_mut()
        .find(|s| s["sku"] == "nvidia-qm9700")
        .unwrap();
    sw["price_usd"] = qm9700_usd.into();
    sw["price_range_usd"] = serde_json::json!({"low": "0", "high": qm9700_usd});
    serde_json::to_vec_pretty(&v).unwrap()
}

fn served(version: &str, price: &str, etag: Option<&str>) -> Mode {
    Mode::Catalog {
        body: catalog_bytes(version, price),
        etag: etag.map(str::to_string),
    }
}

async fn setup(urls: &[String], timeout: Duration) -> (Arc<CatalogStore>, Arc<Fetcher>, TestApp) {
    let store = Arc::new(CatalogStore::new(CatalogSet::embedded().unwrap(), urls));
    // These tests check the operator's full view (FABRIC_TCO_EXPOSE_SOURCES=true).
    store.set_expose_sources(true);
    let fetcher = Arc::new(Fetcher::new(urls.to_vec(), timeout).unwrap());
    fetcher.refresh_all(&store).await;
    let app = spawn_store(store.clone()).await;
    (store, fetcher, app)
}

/// The catalog a 1,024-GPU InfiniBand plan was priced from, and its switch capex.
async fn ib_plan(app: &TestApp) -> (Value, String) {
    let (c, sw, _) = ib_plan_warned(app).await;
    (c, sw)
}

/// The same, and the plan's warnings joined.
async fn ib_plan_warned(app: &TestApp) -> (Value, String, String) {
    let v = app
        .post_plan(&json!({"gpus": 1024, "fabrics": ["infiniband"]}))
        .await;
    let warnings = v["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    (
        v["catalog"].clone(),
        v["fabrics"][0]["capex"]["switches_usd"]
            .as_str()
            .unwrap()
            .to_string(),
        warnings,
    )
}

async fn source(app: &TestApp) -> Value {
    let v: Value = app.json("/v1/catalogs").await;
    v["sources"][0].clone()
}

#[tokio::test]
async fn a_remote_catalog_is_served_refreshed_with_etag_and_survives_every_failure() {
    let srv = catalog_server(served("1", "20000.00", Some("\"v1\""))).await;
    let (store, fetcher, app) =
        setup(std::slice::from_ref(&srv.url), Duration::from_millis(700)).await;

    // Picked up, listed with its source, and used to price plans.
    let list: Value = app.json("/v1/catalogs").await;
    let remote = list["catalogs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "negotiated")
        .expect("remote catalog listed")
        .clone();
    assert_eq!(remote["default"], true);
    assert_eq!(remote["origin"], srv.url);
    assert_eq!(list["sources"][0]["state"], "ok");
    assert_eq!(list["sources"][0]["last_result"], "updated");
    assert!(list["sources"][0]["last_success_at"].is_string());
    let (cat, v1_switches) = ib_plan(&app).await;
    assert_eq!(cat["id"], "negotiated");
    assert_eq!(cat["sha256"], remote["sha256"]);
    let embedded: Value = app
        .post_value(
            "/v1/plans",
            &json!({"gpus": 1024, "fabrics": ["infiniband"], "catalog": "default"}),
        )
        .await;
    assert_ne!(
        embedded["fabrics"][0]["capex"]["switches_usd"], v1_switches,
        "the remote price is used"
    );
    let ready: Value = app.json("/readyz").await;
    assert_eq!(ready["status"], "ready");

    // ETag round-trip: the refresh sends If-None-Match and takes the 304.
    fetcher.refresh_all(&store).await;
    assert_eq!(
        srv.seen()
            .if_none_match
            .last()
            .cloned()
            .flatten()
            .as_deref(),
        Some("\"v1\"")
    );
    assert_eq!(source(&app).await["last_result"], "not_modified");

    // Each failure: the last good catalog stays, the source says stale and why.
    let failures = [
        (Mode::Status(500), "HTTP 500"),
        (Mode::Malformed, "invalid catalog"),
        (Mode::Slow(Duration::from_secs(3)), "timed out"),
        (Mode::Status(404), "HTTP 404"),
    ];
    for (n, (mode, why)) in failures.into_iter().enumerate() {
        srv.set(mode);
        fetcher.refresh_all(&store).await;
        let s = source(&app).await;
        assert_eq!(s["state"], "stale", "{s}");
        assert!(
            s["last_error"].as_str().unwrap().contains(why),
            "{why}: {s}"
        );
        assert_eq!(s["consecutive_failures"], n as u64 + 1);
        assert!(s["last_success_at"].is_string());
        let (c, sw, warnings) = ib_plan_warned(&app).await;
        assert!(
            warnings.contains("refreshing it has failed") && warnings.contains(why),
            "the plan says its catalog is stale and why: {warnings}"
        );
        assert_eq!(
            c["sha256"], cat["sha256"],
            "after '{why}' the old catalog still prices"
        );
        assert_eq!(sw, v1_switches);
        let ready: Value = app.json("/readyz").await;
        assert_eq!(ready["status"], "degraded");
    }

    // A valid new version is picked up: plans show the new sha256 and price.
    srv.set(served("2", "25000.00", Some("\"v2\"")));
    fetcher.refresh_all(&store).await;
    let s = source(&app).await;
    assert_eq!(s["state"], "ok");
    assert_eq!(s["catalog_version"], "2");
    assert_eq!(s["consecutive_failures"], 0);
    let (c2, v2_switches, warnings) = ib_plan_warned(&app).await;
    assert!(!warnings.contains("refreshing it has failed"), "{warnings}");
    assert_eq!(c2["version"], "2");
    assert_ne!(c2["sha256"], cat["sha256"]);
    assert_eq!(c2["sha256"], s["sha256"]);
    assert_ne!(v2_switches, v1_switches);
    let ready: Value = app.json("/readyz").await;
    assert_eq!(ready["status"], "ready");
}

#[tokio::test]
async fn with_every_source_down_at_start_the_embedded_catalog_serves_and_readiness_is_degraded() {
    // One refuses connections (a port nobody listens on), one answers 500, one never answers
    // in time.
    let closed = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = l.local_addr().unwrap().port();
        drop(l);
        format!("http://127.0.0.1:{port}/c.json")
    };
    let failing = catalog_server(Mode::Status(500)).await;
    let slow = catalog_server(Mode::Slow(Duration::from_secs(5))).await;
    let urls = [closed, failing.url.clone(), slow.url.clone()];
    let started = std::time::Instant::now();
    let (_store, _fetcher, app) = setup(&urls, Duration::from_millis(500)).await;
    assert!(
        started.elapsed() < Duration::from_secs(4),
        "sources are fetched concurrently, each bounded by the timeout"
    );
    let ready = app.get("/readyz").await;
    assert_eq!(ready.status(), 200);
    let ready: Value = ready.json().await.unwrap();
    assert_eq!(ready["status"], "degraded");
    assert_eq!(ready["default_catalog"], "default");
    assert_eq!(
        crate::strs(&ready["sources"], "state"),
        ["failed", "failed", "failed"]
    );
    for s in ready["sources"].as_array().unwrap() {
        assert!(s["last_error"].is_string(), "{s}");
        assert!(s["last_success_at"].is_null(), "{s}");
    }
    let (cat, _, warnings) = ib_plan_warned(&app).await;
    assert_eq!(cat["id"], "default");
    assert_eq!(
        warnings.matches("has never loaded").count(),
        3,
        "each failed source is named in the plan: {warnings}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plans_during_swaps_are_priced_from_one_whole_catalog() {
    let srv = catalog_server(served("1", "20000.00", None)).await;
    let (store, fetcher, app) = setup(std::slice::from_ref(&srv.url), Duration::from_secs(2)).await;
    // The figure each version must give.
    let (c1, p1) = ib_plan(&app).await;
    srv.set(served("2", "31000.00", None));
    fetcher.refresh_all(&store).await;
    let (c2, p2) = ib_plan(&app).await;
    assert_ne!(p1, p2);
    let expected = |sha: &Value| {
        if *sha == c1["sha256"] {
            p1.clone()
        } else if *sha == c2["sha256"] {
            p2.clone()
        } else {
            panic!("a plan quoted an unknown catalog {sha}")
        }
    };
    // Swap back and forth while plans run.
    let swapper = {
        let (store, fetcher, mode) = (store.clone(), fetcher.clone(), srv.mode.clone());
        tokio::spawn(async move {
            for i in 0..40 {
                *mode.lock().unwrap() = if i % 2 == 0 {
                    served("1", "20000.00", None)
                } else {
                    served("2", "31000.00", None)
                };
                fetcher.refresh_all(&store).await;
            }
        })
    };
    let mut seen = std::collections::HashSet::new();
    while !swapper.is_finished() {
        let (c, sw) = ib_plan(&app).await;
        assert_eq!(
            sw,
            expected(&c["sha256"]),
            "plan priced from a mixture: {c}"
        );
        seen.insert(c["version"].as_str().unwrap().to_string());
    }
    swapper.await.unwrap();
    assert_eq!(srv.seen().requests, 42);
    assert!(!seen.is_empty());
}

#[tokio::test]
async fn a_request_can_never_make_the_service_fetch_a_url() {
    let srv = catalog_server(served("1", "20000.00", None)).await;
    let app = crate::spawn_app().await;
    // A URL where a catalog id goes is refused, in the body and in the query string.
    let res = app
        .post_json("/v1/plans", &json!({"gpus": 64, "catalog": srv.url}))
        .await;
    let p = crate::assert_problem(res, 422).await;
    assert_eq!(p["errors"][0]["pointer"], "/catalog");
    let q = format!("/v1/plans?gpus=64&catalog={}", srv.url.replace(':', "%3A"));
    app.problem(&q, 422).await;
    assert_eq!(
        srv.seen().requests,
        0,
        "the service fetched a URL a request named"
    );
}

#[tokio::test]
async fn clients_see_no_host_names_paths_or_error_text_unless_the_operator_allows() {
    // A source that refuses connections, on a host name that must not leak.
    let dead = "http://127.0.0.1:9/internal-prices.example/catalog.json".to_string();
    let store = Arc::new(CatalogStore::new(
        CatalogSet::embedded().unwrap(),
        std::slice::from_ref(&dead),
    ));
    let fetcher = Arc::new(Fetcher::new(vec![dead.clone()], Duration::from_millis(500)).unwrap());
    fetcher.refresh_all(&store).await;
    let app = spawn_store(store.clone()).await;
    let (_, _, warnings) = ib_plan_warned(&app).await;
    for body in [
        app.text("/v1/catalogs").await,
        app.text("/readyz").await,
        warnings,
    ] {
        assert!(
            !body.contains("127.0.0.1") && !body.contains("internal-prices"),
            "{body}"
        );
        assert!(!body.contains("os error"), "{body}");
    }
    let list: Value = app.json("/v1/catalogs").await;
    assert_eq!(list["sources"][0]["url"], "source 1");
    assert_eq!(list["sources"][0]["last_error"], "connection failed");
    store.set_expose_sources(true);
    let list: Value = app.json("/v1/catalogs").await;
    assert_eq!(list["sources"][0]["url"], dead);
}
