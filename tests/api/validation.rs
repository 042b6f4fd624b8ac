//! `GET /v1/validation`: the validation table computed by the running service.

use serde_json::Value;

use crate::{assert_problem, spawn_app};

/// JSON: every case with its source, figures, tolerance and request; groups with their
/// geometric-mean error; the same numbers the library computes.
#[tokio::test]
async fn the_validation_table_is_served_live() {
    let app = spawn_app().await;
    let res = app.get("/v1/validation").await;
    assert_eq!(res.status(), 200);
    assert!(res.headers().get("etag").is_some());
    let v: Value = res.json().await.unwrap();
    let cases = v["cases"].as_array().unwrap();
    assert_eq!(cases.len(), fabric_tco::validation::cases().len());
    for c in cases {
        for key in [
            "id",
            "group",
            "source",
            "measured",
            "model",
            "error",
            "tolerance",
        ] {
            assert!(!c[key].is_null(), "{key} in {c}");
        }
        let err = (c["model"].as_f64().unwrap() - c["measured"].as_f64().unwrap())
            / c["measured"].as_f64().unwrap();
        assert!((err - c["error"].as_f64().unwrap()).abs() < 1e-9, "{c}");
    }
    let groups: Vec<&str> = v["groups"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| g["group"].as_str().unwrap())
        .collect();
    assert_eq!(
        groups,
        [
            "infiniband",
            "roce",
            "nvlink_domain",
            "all_to_all",
            "step_time"
        ]
    );
    // A case's request plans through the API.
    let c1 = cases.iter().find(|c| c["id"] == "C1").unwrap();
    let res = app.post_json("/v1/plans", &c1["request"]).await;
    assert_eq!(res.status(), 200);
}

/// CSV: a header and a row a case; an unknown parameter is a 422 naming it.
#[tokio::test]
async fn the_validation_table_as_csv_and_its_errors() {
    let app = spawn_app().await;
    let res = app.get("/v1/validation?format=csv").await;
    assert_eq!(res.status(), 200);
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    let text = res.text().await.unwrap();
    assert_eq!(
        text.lines().count(),
        fabric_tco::validation::cases().len() + 1
    );
    let res = app.get("/v1/validation?gpus=8").await;
    let body = assert_problem(res, 422).await;
    assert_eq!(body["errors"][0]["pointer"], "/gpus");
    let res = app.get("/v1/validation?format=xml").await;
    assert_problem(res, 422).await;
}

/// The report page has a section with the validation groups and every case.
#[tokio::test]
async fn the_report_page_shows_the_model_against_measurements() {
    let app = spawn_app().await;
    let html = app.html("/report?gpus=64", 200).await;
    assert!(html.contains("The model against measurements"));
    assert!(html.contains("id=\"validation-groups\"") && html.contains("id=\"validation-cases\""));
    for group in ["infiniband", "roce", "nvlink_domain"] {
        assert!(
            html.contains(&format!("<th scope=\"row\">{group}</th>")),
            "{group}"
        );
    }
    let rows = html.matches("<tr><th scope=\"row\">").count();
    assert!(rows >= fabric_tco::validation::cases().len(), "{rows}");
}
