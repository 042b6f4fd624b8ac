//! Content negotiation and conditional requests through actix-web's typed headers: `Accept`
//! ranked by q-value and specificity, `If-None-Match` with lists, weak tags and `*`.

use crate::spawn_app;

async fn with_header(
    app: &crate::TestApp,
    path: &str,
    name: &str,
    value: &str,
) -> reqwest::Response {
    app.get_with(path, (name, value)).await
}

/// Each `Accept` header gets the representation named beside it (200, that content type).
async fn assert_picks(app: &crate::TestApp, path: &str, cases: &[(&str, &str)]) {
    for (accept, want) in cases {
        let res = with_header(app, path, "accept", accept).await;
        assert_eq!(res.status(), 200, "{accept}");
        let ct = res.headers()["content-type"]
            .to_str()
            .expect("ascii")
            .to_string();
        assert!(ct.starts_with(want), "Accept: {accept} gave {ct}");
    }
}

/// Each endpoint's `Accept` cases: q-values against wildcards, equal q, specificity, upper case,
/// empty and unparsable headers (the later cases from a second, independent implementation of
/// this issue).
#[tokio::test]
async fn accept_is_ranked_by_q_value_and_specificity() {
    let app = spawn_app().await;
    let plans = [
        ("text/csv;q=0.5, application/json", "application/json"),
        ("application/json;q=0.4, text/csv", "text/csv"),
        ("*/*", "application/json"),
        ("text/*", "text/csv"),
        ("application/json;q=0, */*;q=0.1", "text/csv"),
        ("text/html, */*;q=0.8", "application/json"),
        ("text/csv, application/json;q=0.5", "text/csv"),
        ("text/*, application/json;q=0.9", "text/csv"),
        ("text/csv;q=0.8, */*;q=0.9", "application/json"),
        ("text/csv;q=0.9, */*", "application/json"),
        ("text/csv;q=0, application/json;q=0.1", "application/json"),
        ("application/json, text/csv", "application/json"),
        ("TEXT/CSV", "text/csv"),
        ("", "application/json"),
        ("not a media range", "application/json"),
    ];
    assert_picks(&app, "/v1/plans?gpus=64", &plans).await;
    let charts = [
        ("image/png, image/svg+xml;q=0.5", "image/png"),
        ("image/*", "image/svg+xml"),
        ("image/svg+xml;q=0.2, image/png;q=0.9", "image/png"),
        ("image/png;q=0.5, image/svg+xml", "image/svg+xml"),
        ("*/*", "image/svg+xml"),
        ("image/*;q=0.9, image/png", "image/png"),
    ];
    assert_picks(&app, "/v1/charts/cost?gpus=64", &charts).await;
}

#[tokio::test]
async fn if_none_match_takes_lists_weak_tags_and_a_star() {
    let app = spawn_app().await;
    let path = "/v1/value?metric=tco.total_usd&fabric=roce&gpus=64";
    let first = app.get(path).await;
    assert_eq!(first.status(), 200);
    let tag = first.headers()["etag"].to_str().expect("ascii").to_string();
    assert!(
        tag.starts_with('"') && tag.ends_with('"'),
        "a strong, quoted tag: {tag}"
    );
    for (inm, status) in [
        (tag.clone(), 304),
        (format!("W/{tag}"), 304),
        (format!("\"other\", {tag}"), 304),
        ("*".to_string(), 304),
        ("\"other\"".to_string(), 200),
    ] {
        let res = with_header(&app, path, "if-none-match", &inm).await;
        assert_eq!(res.status(), status, "If-None-Match: {inm}");
        assert_eq!(res.headers()["etag"], tag.as_str());
        assert_eq!(res.headers()["cache-control"], "no-store");
        if status == 304 {
            assert!(res.bytes().await.expect("body").is_empty());
        }
    }
}

/// Security headers of one answer: no sniffing, no framing, no `Referer`, and `policy`.
fn assert_secured(headers: &reqwest::header::HeaderMap, what: &str, policy: &str) {
    let h = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(h("x-content-type-options"), "nosniff", "{what}");
    assert_eq!(h("x-frame-options"), "DENY", "{what}");
    assert_eq!(h("referrer-policy"), "no-referrer", "{what}");
    let csp = h("content-security-policy");
    assert!(csp.contains("frame-ancestors 'none'"), "{what}: {csp}");
    assert!(csp.contains(policy), "{what}: {csp} lacks {policy}");
}

/// Every kind of answer carries the security headers: JSON, CSV, SVG, a problem, a 404, a 405,
/// the report page (its own charts and inline stylesheet, no script), Swagger UI (its own
/// scripts only, requests to this service only) and the HTTP layer's own 400.
#[tokio::test]
async fn every_response_carries_the_security_headers() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let app = spawn_app().await;
    let none = "default-src 'none'";
    for (path, status, policy) in [
        ("/v1/plans?gpus=64", 200, none),
        ("/v1/plans?gpus=64&format=csv", 200, none),
        ("/v1/charts/cost?gpus=64", 200, none),
        ("/openapi.json", 200, none),
        ("/healthz", 200, none),
        ("/v1/plans?gpus=0", 422, none),
        ("/nowhere", 404, none),
        ("/", 200, "img-src 'self'; style-src 'unsafe-inline'"),
        ("/report?gpus=64", 200, "form-action 'self'"),
        ("/swagger-ui/", 200, "script-src 'self'"),
        (
            "/swagger-ui/swagger-initializer.js",
            200,
            "connect-src 'self'",
        ),
    ] {
        let res = app.get(path).await;
        assert_eq!(res.status().as_u16(), status, "{path}");
        assert_secured(res.headers(), path, policy);
        if path == "/" {
            assert!(!res.text().await.unwrap().contains("<script"), "{path}");
        }
    }
    let res = app
        .client
        .delete(app.url("/v1/plans"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 405);
    assert_secured(res.headers(), "DELETE /v1/plans", none);

    // A head actix-http refuses itself (400, before any application code).
    let addr = app.base.trim_start_matches("http://").to_string();
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    s.write_all(b"GET / HTTP/1.1\r\nHost x\r\n\r\n")
        .await
        .unwrap();
    let mut got = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(5), s.read_to_end(&mut got)).await;
    let text = String::from_utf8_lossy(&got).to_lowercase();
    assert!(text.starts_with("http/1.1 400"), "{text}");
    for line in [
        "x-content-type-options: nosniff\r\n",
        "x-frame-options: deny\r\n",
        "referrer-policy: no-referrer\r\n",
        "content-security-policy: default-src 'none'",
    ] {
        assert!(text.contains(line), "{line} missing in {text}");
    }
}

/// Swagger UI is configured without the online validator: its badge would send this service's
/// address to a public host from every reader's browser.
#[tokio::test]
async fn swagger_ui_calls_no_online_validator() {
    let app = spawn_app().await;
    let js = app.text("/swagger-ui/swagger-initializer.js").await;
    assert!(
        js.contains(r#""validatorUrl": "none""#) || js.contains(r#""validatorUrl":"none""#),
        "{js}"
    );
}
