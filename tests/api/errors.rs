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
