use crate::spawn_app;

#[tokio::test]
async fn healthz_and_readyz_answer_200() {
    let app = spawn_app().await;
    let body = app.ok_json("/healthz").await;
    assert_eq!(body["status"], "ok");

    let body = app.ok_json("/readyz").await;
    assert_eq!(body["status"], "ready");
    assert_eq!(body["default_catalog"], "default");
}

#[tokio::test]
async fn head_is_answered_like_get_without_a_body() {
    let app = spawn_app().await;
    let get = app.get("/v1/catalogs").await;
    let get_len = get.bytes().await.unwrap().len();
    let head = app.send(reqwest::Method::HEAD, "/v1/catalogs").await;
    assert_eq!(head.status(), 200);
    let declared: usize = head.headers()["content-length"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert_eq!(declared, get_len);
    assert!(head.bytes().await.unwrap().is_empty());
}

#[tokio::test]
async fn options_lists_the_allowed_methods() {
    let app = spawn_app().await;
    let res = app
        .send(reqwest::Method::OPTIONS, "/v1/catalogs/default")
        .await;
    assert_eq!(res.status(), 204);
    assert_eq!(res.headers()["allow"], "GET, HEAD, OPTIONS");
}

#[tokio::test]
async fn swagger_ui_is_served_offline() {
    let app = spawn_app().await;
    let res = app.get("/swagger-ui/").await;
    assert_eq!(res.status(), 200);
    let html = res.text().await.unwrap();
    assert!(html.contains("swagger"), "Swagger UI page");
    let res = app.get("/swagger-ui/swagger-initializer.js").await;
    assert_eq!(res.status(), 200);
    assert!(res.text().await.unwrap().contains("/openapi.json"));
}
