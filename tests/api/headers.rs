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
