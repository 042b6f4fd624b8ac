//! Black-box tests: the real server on a random port, spoken to over HTTP with reqwest.
//! One integration-test binary (modules below) so it links once.

mod catalogs;
mod charts;
mod errors;
mod headers;
mod health;
mod healthcheck;
mod openapi;
mod plans;
mod remote;
mod sheets;
mod shutdown;
mod uncertainty;

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

    /// GET `path` and its body as text.
    pub async fn text(&self, path: &str) -> String {
        self.get(path).await.text().await.expect("body")
    }

    /// GET `path` and its body as JSON.
    pub async fn json(&self, path: &str) -> serde_json::Value {
        self.get(path).await.json().await.expect("JSON body")
    }

    pub async fn post_json(&self, path: &str, body: &serde_json::Value) -> reqwest::Response {
        self.client
            .post(self.url(path))
            .json(body)
            .send()
            .await
            .expect("request failed")
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

/// Starts the service with given server options (one worker).
pub async fn spawn_configured(
    store: Arc<CatalogStore>,
    options: fabric_tco::ServerOptions,
) -> TestApp {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind a random port");
    let port = listener.local_addr().expect("local addr").port();
    let options = fabric_tco::ServerOptions {
        workers: Some(1),
        ..options
    };
    let server = fabric_tco::build_server(listener, store, &options).expect("server builds");
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

/// Asserts a problem+json response with `status` and returns its body.
pub async fn assert_problem(res: reqwest::Response, status: u16) -> serde_json::Value {
    assert_eq!(res.status().as_u16(), status, "status");
    let ct = res
        .headers()
        .get("content-type")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
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
