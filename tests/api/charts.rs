//! Charts (`/v1/charts/{chart}`) and the report page (`/`, `/report`) over HTTP.

use serde_json::Value;

use crate::{assert_problem, spawn_app};

fn dollars(s: &str) -> String {
    let d: rust_decimal::Decimal = s.parse().expect("decimal");
    fabric_tco::charts::data::usd(d)
}

async fn plan_json(app: &crate::TestApp, qs: &str) -> Value {
    app.ok_json(&format!("/v1/plans?{qs}")).await
}

#[tokio::test]
async fn every_chart_is_reachable_as_svg_and_png() {
    let app = spawn_app().await;
    for chart in ["cost", "cumulative", "sweep", "tornado"] {
        let res = app
            .get(&format!("/v1/charts/{chart}?gpus=512&format=svg"))
            .await;
        assert_eq!(res.status(), 200, "{chart} svg");
        assert_eq!(res.headers()["content-type"], "image/svg+xml");
        assert!(res.headers().contains_key("etag"));
        let svg = res.text().await.expect("svg");
        assert!(svg.starts_with("<svg"), "{chart}");

        let res = app
            .get(&format!("/v1/charts/{chart}?gpus=512&format=png&width=600"))
            .await;
        assert_eq!(res.status(), 200, "{chart} png");
        assert_eq!(res.headers()["content-type"], "image/png");
        let png = res.bytes().await.expect("png");
        let img = resvg::tiny_skia::Pixmap::decode_png(&png).expect("PNG decodes");
        assert_eq!((img.width(), img.height()), (600, 375), "{chart}");

        // Accept negotiation, without `format`.
        let res = app
            .get_with(
                &format!("/v1/charts/{chart}?gpus=512"),
                ("accept", "image/png"),
            )
            .await;
        assert_eq!(res.headers()["content-type"], "image/png", "{chart}");
        let res = app
            .client
            .get(app.url(&format!("/v1/charts/{chart}?gpus=512")))
            .header("accept", "image/svg+xml, image/png;q=0.5")
            .send()
            .await
            .expect("request");
        assert_eq!(res.headers()["content-type"], "image/svg+xml", "{chart}");
    }
}

#[tokio::test]
async fn the_cost_chart_shows_the_plans_totals_and_ids() {
    let app = spawn_app().await;
    let qs = "gpus=3072&economics.years=3&fabrics=infiniband,roce_adaptive";
    let plan = plan_json(&app, qs).await;
    let svg = app.text(&format!("/v1/charts/cost?{qs}")).await;
    let fabrics = plan["fabrics"].as_array().expect("fabrics");
    assert_eq!(fabrics.len(), 2);
    for f in fabrics {
        let total = dollars(f["total_cost_usd"].as_str().expect("total"));
        assert!(svg.contains(&total), "{total} not in the chart");
    }
    assert!(svg.contains(plan["plan_id"].as_str().expect("id")));
    assert!(svg.contains(plan["catalog"]["version"].as_str().expect("version")));
    assert!(svg.contains("over 3 years"));
}

#[tokio::test]
async fn the_sweep_chart_marks_the_sweeps_crossovers() {
    let app = spawn_app().await;
    let qs = "gpus=1024&vary=gpus&from=256&to=4096&steps=5&scale=geometric";
    let sweep: Value = app.json(&format!("/v1/sweeps?{qs}")).await;
    let svg = app.text(&format!("/v1/charts/sweep?{qs}")).await;
    let crossovers = sweep["crossovers"].as_array().expect("crossovers");
    for c in crossovers {
        let v = c["value"].as_f64().expect("value").round() as i128;
        let label = format!("at {}", fabric_tco::charts::data::group_thousands(v));
        assert!(svg.contains(&label), "crossover {label} not marked");
    }
    assert_eq!(
        svg.matches("cheapest changes").count(),
        crossovers.len(),
        "one legend line per crossover"
    );
}

#[tokio::test]
async fn bad_chart_requests_are_problems() {
    let app = spawn_app().await;
    app.problem("/v1/charts/violin?gpus=8", 404).await;
    for (query, pointer) in [
        // A tornado compares two fabrics.
        ("tornado?gpus=64&fabrics=roce", "/fabrics"),
        ("cost?gpus=8&format=gif", "/format"),
        ("cost", "/gpus"),
        ("cost?gpus=0", "/gpus"),
        ("cost?gpus=8&format=png&width=10", "/width"),
        (
            "sweep?gpus=8&vary=gpus&values=8,16&vary2=economics.years&values2=1,2",
            "/vary2",
        ),
    ] {
        let path = format!("/v1/charts/{query}");
        assert_eq!(app.pointer(&path, 422).await, pointer, "{path}");
    }
    app.problem("/v1/charts/sweep?gpus=8&from=4", 422).await;
}

#[tokio::test]
async fn the_page_shows_the_form_the_comparison_and_the_charts() {
    let app = spawn_app().await;
    let html = app.html("/", 200).await;
    assert!(html.contains("<form"));
    assert!(html.contains("name=\"gpus\""));
    assert!(!html.contains("<script"), "no JavaScript");
    let plan = plan_json(&app, "gpus=1024").await;
    for f in plan["fabrics"].as_array().expect("fabrics") {
        let total = f["total_cost_usd"].as_str().expect("total");
        let fabric = f["fabric"].as_str().expect("fabric");
        let cell = format!(
            "data-metric=\"total_cost_usd\" data-fabric=\"{fabric}\" data-value=\"{}\">{}</td>",
            total
                .parse::<rust_decimal::Decimal>()
                .expect("d")
                .normalize(),
            dollars(total)
        );
        assert!(html.contains(&cell), "missing {cell}");
    }
    for chart in ["cost", "cumulative", "sweep"] {
        assert!(
            html.replace("&#38;", "&").contains(&format!(
                "<img src=\"/v1/charts/{chart}?gpus=1024&format=svg\""
            )),
            "{chart} image"
        );
    }
    assert!(html.contains(plan["plan_id"].as_str().expect("id")));
    assert!(html.contains(plan["comparison"]["recommendation"].as_str().expect("rec")));
}

#[tokio::test]
async fn the_report_takes_plan_parameters_and_escapes_them() {
    let app = spawn_app().await;
    let qs = "gpus=256&fabrics=roce&fabrics=infiniband&economics.years=7&_x=%3Cb%3E";
    let html = app.text(&format!("/report?{qs}")).await;
    let plan = plan_json(&app, qs).await;
    assert!(html.contains(plan["plan_id"].as_str().expect("id")));
    assert!(html.contains("Network TCO (7 years)"));
    assert!(!html.contains("<b>"), "query text is escaped");
    assert!(html.contains("value=\"roce\" checked"));
    assert!(!html.contains("value=\"roce_adaptive\" checked"));
    // A parameter name that is markup is an unknown input (422), shown escaped.
    let res = app.get("/report?gpus=256&%3Cb%3E=1").await;
    assert_eq!(res.status(), 422);
    let html = res.text().await.expect("html");
    assert!(
        (html.contains("&lt;b&gt;") || html.contains("&#60;b&#62;")) && !html.contains("<b>"),
        "escaped"
    );
}

#[tokio::test]
async fn an_invalid_query_gives_an_html_page_naming_the_problem() {
    let app = spawn_app().await;
    let html = app.html("/report?gpus=0&economics.years=99", 422).await;
    for part in ["<form", "class=\"problem\"", "gpus"] {
        assert!(html.contains(part), "{part}");
    }
    let html = app.html("/?gpus=abc", 422).await;
    assert!(html.contains("class=\"problem\""));
    let res = app.client.post(app.url("/")).send().await.expect("post");
    assert_problem(res, 405).await;
}

#[tokio::test]
async fn the_report_form_offers_the_workload_presets() {
    let app = spawn_app().await;
    let html = app
        .text("/?gpus=1024&workload.preset=moe-deepseek-v3")
        .await;
    assert!(html.contains("name=\"workload.preset\""), "preset select");
    assert!(
        html.contains("value=\"moe-deepseek-v3\" selected"),
        "selected preset"
    );
    let plan = plan_json(&app, "gpus=1024&workload.preset=moe-deepseek-v3").await;
    assert!(html.contains(plan["plan_id"].as_str().expect("id")));
}

/// Inputs the form has no field for ride along as hidden fields, listed, and a select keeps a
/// value it does not list: pressing "Compare" used to drop a price override and turn
/// `uncertainty.samples=500` off.
#[tokio::test]
async fn the_report_form_keeps_the_inputs_it_has_no_field_for() {
    let app = spawn_app().await;
    let html = app
        .text("/report?gpus=64&prices.overrides.nvidia-sn5600=50000&uncertainty.samples=500&_t=1")
        .await;
    assert!(
        html.contains(
            "<input type=\"hidden\" name=\"prices.overrides.nvidia-sn5600\" value=\"50000\">"
        ),
        "hidden override"
    );
    assert!(html.contains("<code>prices.overrides.nvidia-sn5600=50000</code>"));
    assert!(html.contains("<option value=\"500\" selected>500</option>"));
    assert!(!html.contains("name=\"_t\""), "cache-busters are not kept");
    assert!(
        !html.contains("type=\"hidden\" name=\"gpus\""),
        "form fields are not doubled"
    );
}
