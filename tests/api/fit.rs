//! `POST /v1/fit` and `GET /v1/fit`: the largest cluster per fabric within an envelope, checked
//! against plans of the same clusters (the fit's answer is recomputed here from
//! `POST /v1/plans` and the catalog's GPU entry, not read back).

use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::{TestApp, spawn_app};

fn dec(v: &Value) -> Decimal {
    v.as_str()
        .unwrap_or_else(|| panic!("a decimal string: {v}"))
        .parse()
        .unwrap_or_else(|e| panic!("{v}: {e}"))
}

/// The catalog's entry for `gpu`.
async fn gpu_entry(app: &TestApp, gpu: &str) -> Value {
    let catalog: Value = app.get("/v1/catalogs/default").await.json().await.unwrap();
    catalog["content"]["gpus"]
        .as_array()
        .unwrap()
        .iter()
        .find(|g| g["id"] == gpu)
        .cloned()
        .unwrap_or_else(|| panic!("{gpu} in the catalog"))
}

/// What a cluster of `gpus` on `fabric` spends over the horizon, from its plan and the
/// catalog: servers bought, their electricity every hour at PUE, and the network's TCO.
async fn total_over_horizon(app: &TestApp, gpu: &Value, fabric: &str, gpus: u64) -> Decimal {
    let plan = app
        .post_ok(
            "/v1/plans",
            &json!({"gpus": gpus, "gpu_model": gpu["id"], "fabrics": [fabric]}),
        )
        .await;
    let e = &plan["inputs"]["economics"];
    let years = Decimal::from(e["years"].as_u64().unwrap());
    let n = Decimal::from(gpus);
    let servers = n * (dec(&gpu["purchase_usd"]) + dec(&gpu["server_share_usd"]));
    let kwh = n * dec(&gpu["power_w"]) / Decimal::from(1000) * Decimal::from(8760) * years;
    let power = (kwh * dec(&e["pue"]) * dec(&e["electricity_usd_per_kwh"])).round_dp(2);
    servers + power + dec(&plan["fabrics"][0]["tco"]["total_usd"])
}

#[tokio::test]
async fn sixty_million_dollars_of_h100_buys_a_cluster_whose_next_server_would_not_fit() {
    let app = spawn_app().await;
    let budget = Decimal::from(60_000_000);
    let fit = app
        .post_ok(
            "/v1/fit",
            &json!({"gpu_model": "h100", "budget": {"total_usd": "60000000"}, "economics": {"years": 5}}),
        )
        .await;
    assert_eq!(fit["step_gpus"], 8, "{fit}");
    let gpu = gpu_entry(&app, "h100").await;
    let fabrics = fit["fabrics"].as_array().unwrap();
    assert_eq!(fabrics.len(), 3, "every fabric by default");
    let mut most = (0, String::new());
    for f in fabrics {
        let name = f["fabric"].as_str().unwrap();
        let gpus = f["gpus"].as_u64().unwrap();
        assert!(gpus >= 8 && gpus % 8 == 0, "{name}: whole servers: {gpus}");
        assert_eq!(f["servers"].as_u64().unwrap() * 8, gpus);
        // The fit's total is the plans' total, and it fits.
        let total = total_over_horizon(&app, &gpu, name, gpus).await;
        assert_eq!(dec(&f["spend"]["total_usd"]), total, "{name}");
        assert!(total <= budget, "{name}: {gpus} GPUs cost {total}");
        // One more server does not.
        let next = total_over_horizon(&app, &gpu, name, gpus + 8).await;
        assert!(next > budget, "{name}: {} GPUs cost {next}", gpus + 8);
        assert_eq!(f["bound_by"], json!(["budget.total_usd"]), "{name}");
        assert_eq!(f["next_step"]["gpus"].as_u64(), Some(gpus + 8));
        assert_eq!(dec(&f["next_step"]["spend"]["total_usd"]), next, "{name}");
        // The fitted cluster's own plan is in the answer.
        assert_eq!(f["plan"]["inputs"]["gpus"].as_u64(), Some(gpus), "{name}");
        assert!(f["trained_tokens"].as_f64().unwrap() > 0.0, "{name}");
        if gpus > most.0 {
            most = (gpus, name.to_string());
        }
    }
    assert_eq!(fit["most_gpus_fabric"], most.1.as_str(), "{fit}");
    assert!(fit["most_trained_tokens_fabric"].is_string());
    // The GPU servers' price is said, with its range, as a figure to replace by a quote.
    assert_eq!(fit["budget"]["server_usd_per_gpu"], "33750");
    assert!(
        fit["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("budget.server_usd_per_gpu")),
        "{}",
        fit["warnings"]
    );
}

#[tokio::test]
async fn each_limit_binds_and_the_tightest_wins() {
    let app = spawn_app().await;
    // Capex alone: $20M of H100 at a quoted $30,000 per GPU with the server.
    let capex = app
        .post_ok(
            "/v1/fit",
            &json!({"fabrics": ["infiniband"], "budget": {"capex_usd": 20_000_000, "server_usd_per_gpu": "30000"}}),
        )
        .await;
    let f = &capex["fabrics"][0];
    assert_eq!(
        f["bound_by"],
        json!(["budget.capex_usd"]),
        "{}",
        f["next_step"]
    );
    assert!(dec(&f["spend"]["capex_usd"]) <= Decimal::from(20_000_000));
    assert!(dec(&f["next_step"]["spend"]["capex_usd"]) > Decimal::from(20_000_000));
    assert_eq!(
        dec(&f["spend"]["gpu_servers_usd"]),
        Decimal::from(f["gpus"].as_u64().unwrap() * 30_000)
    );
    // A 0.5 MW hall beside the same money: power binds first.
    let both = app
        .post_ok(
            "/v1/fit",
            &json!({"fabrics": ["infiniband"], "budget": {"capex_usd": 20_000_000, "facility_mw": "0.5", "server_usd_per_gpu": "30000"}}),
        )
        .await;
    let g = &both["fabrics"][0];
    assert_eq!(
        g["bound_by"],
        json!(["budget.facility_mw"]),
        "{}",
        g["next_step"]
    );
    assert!(g["gpus"].as_u64() < f["gpus"].as_u64());
    let half = Decimal::new(5, 1);
    assert!(dec(&g["spend"]["facility_mw"]) <= half);
    assert!(dec(&g["next_step"]["spend"]["facility_mw"]) > half);
    // 0.5 MW ÷ (1,275 W × PUE 1.25) is at most 313 GPUs before the network draws any.
    assert!(g["gpus"].as_u64().unwrap() <= 313);
}

#[tokio::test]
async fn nvl72_clusters_grow_by_whole_racks() {
    let app = spawn_app().await;
    let fit = app
        .post_ok(
            "/v1/fit",
            &json!({"gpu_model": "gb200-nvl72", "fabrics": ["infiniband"], "budget": {"capex_usd": "100000000"}}),
        )
        .await;
    assert_eq!(fit["step_gpus"], 72, "{fit}");
    let f = &fit["fabrics"][0];
    let gpus = f["gpus"].as_u64().unwrap();
    assert!(gpus > 0 && gpus % 72 == 0, "{f}");
    assert_eq!(f["racks"].as_u64(), Some(gpus / 72));
    assert_eq!(f["next_step"]["gpus"].as_u64(), Some(gpus + 72));
}

#[tokio::test]
async fn a_budget_below_one_server_fits_nothing_and_says_so() {
    let app = spawn_app().await;
    let fit = app
        .post_ok(
            "/v1/fit",
            &json!({"fabrics": ["roce"], "budget": {"capex_usd": "100000"}}),
        )
        .await;
    let f = &fit["fabrics"][0];
    assert_eq!(f["gpus"], 0, "{f}");
    assert!(f.get("plan").is_none() && f.get("spend").is_none());
    assert_eq!(f["next_step"]["gpus"], 8);
    assert_eq!(f["bound_by"], json!(["budget.capex_usd"]));
    assert!(fit["most_gpus_fabric"].is_null());
}

#[tokio::test]
async fn the_get_form_is_the_post_and_reads_as_csv() {
    let app = spawn_app().await;
    let post = app
        .post_ok(
            "/v1/fit",
            &json!({"gpu_model": "h200", "fabrics": ["roce", "infiniband"], "budget": {"capex_usd": "30000000"}}),
        )
        .await;
    let get: Value = app
        .get("/v1/fit?gpu_model=h200&fabrics=roce,infiniband&budget.capex_usd=30000000")
        .await
        .json()
        .await
        .unwrap();
    assert_eq!(get, post);
    let res = app
        .get("/v1/fit?fabrics=roce,infiniband&budget.capex_usd=30000000&gpu_model=h200&format=csv")
        .await;
    assert_eq!(res.status(), 200);
    let csv = res.text().await.unwrap();
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 3, "{csv}");
    assert!(lines[0].starts_with("fabric,gpus,servers,racks,bound_by,capex_usd,total_usd"));
    let roce_gpus = post["fabrics"][0]["gpus"].as_u64().unwrap();
    assert!(lines[1].starts_with(&format!("roce,{roce_gpus},")), "{csv}");
}

#[tokio::test]
async fn a_fit_refuses_what_it_cannot_read_naming_the_field() {
    let app = spawn_app().await;
    for (body, pointer) in [
        (json!({"gpus": 1024, "budget": {"capex_usd": 1}}), "/gpus"),
        (
            json!({"budget": {"capex_usd": 1}, "uncertainty": {"samples": 10}}),
            "/uncertainty",
        ),
        (json!({"gpu_model": "h100"}), "/budget"),
        (json!({"budget": {}}), "/budget"),
        (json!({"budget": {"capex_usd": "-5"}}), "/budget/capex_usd"),
        (json!({"budget": {"total_usd": 1e13}}), "/budget/total_usd"),
        (
            json!({"budget": {"facility_mw": "lots"}}),
            "/budget/facility_mw",
        ),
        (
            json!({"budget": {"capex_usd": 1, "watts": 3}}),
            "/budget/watts",
        ),
        (
            json!({"budget": {"capex_usd": 1}, "economics": {"yeras": 3}}),
            "/economics/yeras",
        ),
        (
            json!({"budget": {"capex_usd": 1}, "gpu_model": "z900"}),
            "/gpu_model",
        ),
    ] {
        let res = app.post_json("/v1/fit", &body).await;
        let p = crate::assert_problem(res, 422).await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{body}: {p}");
    }
    app.problem_at("/v1/fit?budget.capex_usd=1&gpus=8", 422, "/gpus")
        .await;
    app.problem_at("/v1/fit?gpu_model=h100", 422, "/budget")
        .await;
    app.problem_at("/v1/fit?budget.capex_usd=x", 422, "/budget/capex_usd")
        .await;
}
