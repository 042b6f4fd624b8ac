//! The committed `openapi/openapi.json` must equal what the code serves.

use crate::spawn_app;

const REGENERATE: &str = "cargo run --quiet -- openapi > openapi/openapi.json";

#[tokio::test]
async fn committed_openapi_matches_the_served_document() {
    let app = spawn_app().await;
    let served: serde_json::Value = app.get("/openapi.json").await.json().await.unwrap();
    let committed_text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json"))
            .unwrap_or_default();
    let committed: serde_json::Value = serde_json::from_str(&committed_text).unwrap_or_default();
    assert!(
        served == committed,
        "openapi/openapi.json is out of date with the code; regenerate it with:\n    {REGENERATE}"
    );
}

#[tokio::test]
async fn document_is_openapi_3_1_and_every_operation_is_documented() {
    let app = spawn_app().await;
    let doc: serde_json::Value = app.get("/openapi.json").await.json().await.unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.len() >= 4);
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            let where_ = format!("{method} {path}");
            assert!(
                op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{where_}: summary"
            );
            assert!(
                op["description"].as_str().is_some_and(|s| !s.is_empty()),
                "{where_}: description"
            );
            let responses = op["responses"].as_object().unwrap();
            for (status, r) in responses {
                assert!(
                    r["description"].as_str().is_some_and(|s| !s.is_empty()),
                    "{where_} {status}: description"
                );
            }
            if op.get("requestBody").is_some()
                || op
                    .get("parameters")
                    .is_some_and(|p| !p.as_array().unwrap().is_empty())
            {
                assert!(
                    responses.keys().any(|s| s.starts_with('4')),
                    "{where_}: documents its 4xx responses"
                );
            }
        }
    }
}
