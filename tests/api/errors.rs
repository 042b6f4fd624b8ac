use crate::{assert_problem, spawn_app};

#[tokio::test]
async fn unknown_path_is_a_404_problem() {
    let app = spawn_app().await;
    let body = assert_problem(app.get("/no/such/path").await, 404).await;
    assert_eq!(body["code"], "not_found");
}

#[tokio::test]
async fn wrong_method_is_a_405_problem_with_allow() {
    let app = spawn_app().await;
    let res = app
        .client
        .delete(app.url("/v1/catalogs"))
        .send()
        .await
        .unwrap();
    assert_eq!(res.headers()["allow"], "GET, HEAD, OPTIONS");
    let body = assert_problem(res, 405).await;
    assert_eq!(body["code"], "method_not_allowed");
    let res = app.client.post(app.url("/healthz")).send().await.unwrap();
    assert_problem(res, 405).await;
}

#[tokio::test]
async fn malformed_json_is_a_400_problem() {
    let app = spawn_app().await;
    let res = app
        .client
        .post(app.url("/v1/plans"))
        .header("content-type", "application/json")
        .body("{\"gpus\": 8,")
        .send()
        .await
        .unwrap();
    let body = assert_problem(res, 400).await;
    assert_eq!(body["code"], "malformed_request");
}

#[tokio::test]
async fn wrong_or_missing_content_type_is_a_415_problem() {
    let app = spawn_app().await;
    let res = app
        .client
        .post(app.url("/v1/plans"))
        .header("content-type", "text/plain")
        .body("{\"gpus\": 8}")
        .send()
        .await
        .unwrap();
    assert_problem(res, 415).await;
    let res = app
        .client
        .post(app.url("/v1/plans"))
        .body("{\"gpus\": 8}")
        .send()
        .await
        .unwrap();
    assert_problem(res, 415).await;
}

#[tokio::test]
async fn oversized_body_is_a_413_problem() {
    let app = spawn_app().await;
    let big = format!(
        "{{\"gpus\": 8, \"catalog\": \"{}\"}}",
        "x".repeat(300 * 1024)
    );
    let res = app
        .client
        .post(app.url("/v1/plans"))
        .header("content-type", "application/json")
        .body(big)
        .send()
        .await
        .unwrap();
    assert_problem(res, 413).await;
}
