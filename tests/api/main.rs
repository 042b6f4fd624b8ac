//! Black-box tests: the real server on a random port, spoken to over HTTP with reqwest.
//! One integration-test binary (modules below) so it links once.

mod binary;
mod catalogs;
mod charts;
mod cli;
mod durability;
mod errors;
mod fit;
mod headers;
mod health;
mod healthcheck;
mod openapi;
mod plans;
mod remote;
mod replicas;
mod rules;
mod scenarios;
mod sheets;
mod shutdown;
mod spine;
mod svg;
mod uncertainty;
mod validation;

use std::net::TcpListener;

use std::sync::Arc;

use fabric_tco::catalog::CatalogSet;
use fabric_tco::catalog::store::CatalogStore;

/// A running service on 127.0.0.1 with a random port.
pub struct TestApp {
    pub base: String,
    pub client: reqwest::Client,
}

impl TestApp {
    pub fn url(&self, path: &str) -> String {
        format!("{}{}", self.base, path)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .send()
            .await
            .expect("request failed")
    }

    /// GET `path`, which must answer a `status` problem; the problem document.
    pub async fn problem(&self, path: &str, status: u16) -> serde_json::Value {
        assert_problem(self.get(path).await, status).await
    }

    /// GET `path`, which must answer a `status` problem whose first error points at `pointer`;
    /// the problem document.
    pub async fn problem_at(&self, path: &str, status: u16, pointer: &str) -> serde_json::Value {
        let p = self.problem(path, status).await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{path}: {p}");
        p
    }

    /// GET `path`, which must answer a `status` problem; the pointer of its first error.
    pub async fn pointer(&self, path: &str, status: u16) -> serde_json::Value {
        self.problem(path, status).await["errors"][0]["pointer"].take()
    }

    /// GET `path`, which must answer a `status` problem; the code of its first error.
    pub async fn code(&self, path: &str, status: u16) -> serde_json::Value {
        self.problem(path, status).await["errors"][0]["code"].take()
    }

    /// GET `path`, which must answer an HTML page with `status`; the page.
    pub async fn html(&self, path: &str, status: u16) -> String {
        let res = self.get(path).await;
        assert_eq!(res.status().as_u16(), status, "status of {path}");
        assert!(
            content_type(&res).starts_with("text/html"),
            "{path} is HTML"
        );
        res.text().await.expect("HTML body")
    }

    /// GET `path` and its body as text.
    pub async fn text(&self, path: &str) -> String {
        self.get(path).await.text().await.expect("body")
    }

    /// GET `path` and its body as JSON.
    pub async fn json(&self, path: &str) -> serde_json::Value {
        self.get(path).await.json().await.expect("JSON body")
    }

    /// GET `path`, which must answer 200; its body as JSON.
    pub async fn ok_json(&self, path: &str) -> serde_json::Value {
        ok_json(self.get(path).await).await
    }

    /// POST `body` to `path`, which must answer 200; the answer's body as JSON.
    pub async fn post_ok(&self, path: &str, body: &serde_json::Value) -> serde_json::Value {
        ok_json(self.post_json(path, body).await).await
    }

    /// POST `body` to `/v1/plans`, which must answer 200; the plan.
    pub async fn post_plan(&self, body: &serde_json::Value) -> serde_json::Value {
        self.post_ok("/v1/plans", body).await
    }

    pub async fn post_json(&self, path: &str, body: &serde_json::Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("request failed")
    }

    /// `method` on `path`, no body.
    pub async fn send(&self, method: reqwest::Method, path: &str) -> reqwest::Response {
        let req = self.client.request(method, self.url(path));
        req.send().await.expect("request failed")
    }

    /// GET `path` with one request header.
    pub async fn get_with(&self, path: &str, (name, value): (&str, &str)) -> reqwest::Response {
        let req = self.client.get(self.url(path)).header(name, value);
        req.send().await.expect("request failed")
    }

    /// POST a raw `body` to `path` with one request header (usually `content-type`).
    pub async fn post_raw(
        &self,
        path: &str,
        (name, value): (&str, &str),
        body: impl Into<reqwest::Body>,
    ) -> reqwest::Response {
        let req = self.client.post(self.url(path)).header(name, value);
        req.body(body).send().await.expect("request failed")
    }

    /// POST `body` to `path` and the answer's body as JSON.
    pub async fn post_value(&self, path: &str, body: &serde_json::Value) -> serde_json::Value {
        self.post_json(path, body)
            .await
            .json()
            .await
            .expect("JSON body")
    }
}

/// Starts the service with the embedded catalogs.
pub async fn spawn_app() -> TestApp {
    spawn_with(CatalogSet::embedded().expect("embedded catalog must load")).await
}

pub async fn spawn_with(catalogs: CatalogSet) -> TestApp {
    spawn_store(Arc::new(CatalogStore::new(catalogs, &[]))).await
}

/// Starts the service over a given catalog store (remote-source tests drive its refreshes).
pub async fn spawn_store(store: Arc<CatalogStore>) -> TestApp {
    spawn_configured(store, fabric_tco::ServerOptions::default()).await
}

/// A new SQLite database file in the temporary directory (nothing is created until used).
pub fn temp_sqlite_url() -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static N: AtomicU32 = AtomicU32::new(0);
    let dir = std::env::temp_dir().join(format!(
        "fabric-tco-api-{}-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    ));
    fabric_tco::store::default_url(&dir)
}

/// The store over `url`.
pub fn archive_at(url: &str) -> Arc<fabric_tco::archive::Archive> {
    Arc::new(fabric_tco::archive::Archive::new(Arc::new(
        fabric_tco::store::Db::open(url).expect("database URL"),
    )))
}

/// Starts the service with given server options (one worker) and a new SQLite store.
pub async fn spawn_configured(
    store: Arc<CatalogStore>,
    options: fabric_tco::ServerOptions,
) -> TestApp {
    spawn_full(store, archive_at(&temp_sqlite_url()), options).await
}

/// Starts the service over a given catalog store and database.
pub async fn spawn_full(
    store: Arc<CatalogStore>,
    archive: Arc<fabric_tco::archive::Archive>,
    options: fabric_tco::ServerOptions,
) -> TestApp {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a random port");
    let port = listener.local_addr().expect("local addr").port();
    let options = fabric_tco::ServerOptions {
        workers: Some(1),
        ..options
    };
    let server =
        fabric_tco::build_server(listener, store, archive, &options).expect("server builds");
    tokio::spawn(server);
    TestApp {
        base: format!("http://127.0.0.1:{port}"),
        client: {
            fabric_tco::catalog::remote::install_tls_provider();
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .expect("client")
        },
    }
}

/// The parts of `opex_per_year` that sum to its `total_usd`.
pub const OPEX_PARTS: [&str; 5] = [
    "power_usd",
    "support_usd",
    "staff_usd",
    "licenses_usd",
    "spares_usd",
];

/// A plan's warnings that contain `part`.
pub fn warnings_with(plan: &serde_json::Value, part: &str) -> Vec<String> {
    let all = plan["warnings"].as_array().expect("warnings");
    all.iter()
        .filter_map(|w| w.as_str())
        .filter(|w| w.contains(part))
        .map(str::to_string)
        .collect()
}

/// The string `key` of every object in the array `v`.
pub fn strs<'a>(v: &'a serde_json::Value, key: &str) -> Vec<&'a str> {
    let items = v.as_array().expect("an array");
    items.iter().map(|x| x[key].as_str().expect(key)).collect()
}

/// The object in the array `v` whose `key` is `value`.
pub fn find<'a>(v: &'a serde_json::Value, key: &str, value: &str) -> &'a serde_json::Value {
    let items = v.as_array().expect("an array");
    items.iter().find(|x| x[key] == value).expect(value)
}

/// The response's `Content-Type`, or "" when it has none.
pub fn content_type(res: &reqwest::Response) -> &str {
    let ct = res.headers().get("content-type");
    ct.and_then(|v| v.to_str().ok()).unwrap_or("")
}

/// Asserts a 200 response and returns its body as JSON.
pub async fn ok_json(res: reqwest::Response) -> serde_json::Value {
    assert_eq!(res.status().as_u16(), 200, "status of {}", res.url());
    res.json().await.expect("JSON body")
}

/// Asserts a problem+json response with `status` and returns its body.
pub async fn assert_problem(res: reqwest::Response, status: u16) -> serde_json::Value {
    assert_eq!(res.status().as_u16(), status, "status");
    let ct = content_type(&res).to_string();
    assert!(
        ct.starts_with("application/problem+json"),
        "content-type was {ct}"
    );
    let body: serde_json::Value = res.json().await.expect("problem body is JSON");
    assert_eq!(body["status"], status, "problem status field: {body}");
    assert!(
        body["code"].as_str().is_some_and(|c| !c.is_empty()),
        "problem has a code: {body}"
    );
    assert!(
        body["title"].is_string() && body["detail"].is_string(),
        "{body}"
    );
    body
}
