//! The spreadsheet surface through real HTTP: GET plans = POST plans, CSV, single values, BOM,
//! HTTP caching behaviour, query parameter errors, sweeps.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::{TestApp, assert_problem, spawn_app};

/// A small RFC 4180 reader: quoted fields, doubled quotes, CRLF or LF line ends.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
        } else {
            match c {
                '"' => quoted = true,
                ',' => row.push(std::mem::take(&mut field)),
                '\r' => {}
                '\n' => {
                    row.push(std::mem::take(&mut field));
                    rows.push(std::mem::take(&mut row));
                }
                _ => field.push(c),
            }
        }
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    rows
}

/// CSV rows as maps header → cell.
fn csv_records(text: &str) -> Vec<BTreeMap<String, String>> {
    let rows = parse_csv(text);
    let header = rows[0].clone();
    rows[1..]
        .iter()
        .map(|r| {
            assert_eq!(r.len(), header.len(), "row width");
            header.iter().cloned().zip(r.iter().cloned()).collect()
        })
        .collect()
}

fn dig<'a>(v: &'a Value, path: &str) -> &'a Value {
    path.split('.')
        .fold(v, |cur, seg| match seg.parse::<usize>() {
            Ok(i) if cur.is_array() => &cur[i],
            _ => &cur[seg],
        })
}

/// A JSON leaf as the number it stands for (money is a decimal string).
fn num(v: &Value) -> f64 {
    match v {
        Value::Number(n) => n.as_f64().unwrap(),
        Value::String(s) => s.parse().unwrap_or_else(|_| panic!("not a number: {s}")),
        other => panic!("not a number: {other}"),
    }
}

async fn get_text(app: &TestApp, path: &str) -> (u16, reqwest::header::HeaderMap, String) {
    let res = app.get(path).await;
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    (status, headers, res.text().await.unwrap())
}

/// GET `path`, which must answer 200; its headers and body.
async fn get_ok(app: &TestApp, path: &str) -> (reqwest::header::HeaderMap, String) {
    let (status, headers, text) = get_text(app, path).await;
    assert_eq!(status, 200, "{path}: {text}");
    (headers, text)
}

/// GET `path`, which must answer 200 with `rows` CSV records; the records.
async fn csv_rows(app: &TestApp, path: &str, rows: usize) -> Vec<BTreeMap<String, String>> {
    let (h, text) = get_ok(app, path).await;
    assert_eq!(h["content-type"], "text/csv; charset=utf-8", "{path}");
    let recs = csv_records(&text);
    assert_eq!(recs.len(), rows, "{path}");
    recs
}

/// The answer's `ETag` is the plan's id (then `suffix`), quoted.
fn assert_plan_etag(h: &reqwest::header::HeaderMap, plan: &Value, suffix: &str) {
    let id = plan["plan_id"].as_str().unwrap();
    assert_eq!(h["etag"].to_str().unwrap(), format!("\"{id}{suffix}\""));
}

/// A text cell (CSV cell or bare value) is the number of a JSON leaf, to 1 part in 10^12.
fn assert_number(cell: &str, leaf: &Value, what: &str) {
    let want = num(leaf);
    let got: f64 = cell.parse().unwrap();
    assert!(
        (got - want).abs() <= want.abs() * 1e-12,
        "{what}: {got} vs {want}"
    );
}

/// A field of a problem's first error, as text.
fn first_error<'a>(p: &'a Value, field: &str) -> &'a str {
    p["errors"][0][field].as_str().unwrap()
}

const Q: &str = "gpus=2048&gpu_model=h100&fabrics=infiniband,roce&economics.years=4\
&topology.oversubscription=1&prices.discounts.category.optic=0.3&prices.overrides.nvidia-qm9700=42000";

/// The plan `POST /v1/plans` answers for [`q_body`].
async fn q_plan(app: &TestApp) -> Value {
    app.post_value("/v1/plans", &q_body()).await
}

fn q_body() -> Value {
    json!({
        "gpus": 2048, "gpu_model": "h100", "fabrics": ["infiniband", "roce"], "economics": {"years": 4},
        "topology": {"oversubscription": 1}, "prices": {"discounts": {"category": {"optic": "0.3"}}, "overrides": {"nvidia-qm9700": "42000"}}
    })
}

#[tokio::test]
async fn get_plan_equals_post_plan_for_the_same_inputs() {
    let app = spawn_app().await;
    let (h, body) = get_ok(&app, &format!("/v1/plans?{Q}&_=12345")).await;
    assert_eq!(h["cache-control"], "no-store");
    let got: Value = serde_json::from_str(&body).unwrap();
    let post = q_plan(&app).await;
    assert_eq!(got["plan_id"], post["plan_id"]);
    assert_eq!(got, post);
    assert_plan_etag(&h, &post, "");
    // Repeated list parameter = comma-separated.
    let (_, _, rep) = get_text(
        &app,
        &format!(
            "/v1/plans?{}",
            Q.replace("infiniband,roce", "infiniband&fabrics=roce")
        ),
    )
    .await;
    let rep: Value = serde_json::from_str(&rep).unwrap();
    assert_eq!(rep["plan_id"], post["plan_id"]);
}

#[tokio::test]
async fn plan_csv_parses_and_matches_the_json_figures() {
    let app = spawn_app().await;
    let plan = q_plan(&app).await;
    let (h, text) = get_ok(&app, &format!("/v1/plans?{Q}&format=csv")).await;
    assert_eq!(h["content-type"], "text/csv; charset=utf-8");
    assert_plan_etag(&h, &plan, "-csv");
    let recs = csv_records(&text);
    assert_eq!(recs.len(), 2);
    for (rec, f) in recs.iter().zip(plan["fabrics"].as_array().unwrap()) {
        assert_eq!(rec["fabric"], f["fabric"].as_str().unwrap());
        assert_eq!(rec["plan_id"], plan["plan_id"].as_str().unwrap());
        assert_eq!(
            rec["catalog.version"],
            plan["catalog"]["version"].as_str().unwrap()
        );
        for col in [
            "topology.leaf_switches",
            "topology.spine_switches",
            "topology.links.node_leaf",
            "capex.total_usd",
            "capex.optics_usd",
            "opex_per_year.total_usd",
            "tco.total_usd",
            "performance.gpu_idle_fraction",
            "gpu_idle.cost_total_usd",
            "total_cost_usd",
            "tco.npv_usd",
            "cost_per_useful_gpu_hour_usd",
        ] {
            let cell = &rec[col];
            assert!(
                !cell.contains(['e', 'E', ' ']),
                "{col}: plain number {cell}"
            );
            assert_number(cell, dig(f, col), col);
        }
        let cheapest = plan["comparison"]["cheapest_fabric"] == f["fabric"];
        assert_eq!(rec["cheapest"], cheapest.to_string());
    }
    // Accept: text/csv on GET and on POST give the same CSV.
    let via_accept = app
        .get_with(&format!("/v1/plans?{Q}"), ("Accept", "text/csv"))
        .await
        .text()
        .await
        .unwrap();
    assert_eq!(via_accept, text);
    let post_csv = app
        .client
        .post(app.url("/v1/plans"))
        .header("Accept", "text/csv")
        .json(&q_body())
        .send()
        .await
        .unwrap();
    assert!(
        post_csv.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/csv")
    );
    assert_eq!(post_csv.text().await.unwrap(), text);
}

#[tokio::test]
async fn bom_rows_match_the_plan() {
    let app = spawn_app().await;
    let plan = q_plan(&app).await;
    let bom: Value = app.json(&format!("/v1/plans/bom?{Q}")).await;
    let rows = bom["rows"].as_array().unwrap();
    let lines: usize = plan["fabrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["bom"].as_array().unwrap().len())
        .sum();
    assert_eq!(rows.len(), lines);
    let recs = csv_rows(&app, &format!("/v1/plans/bom?{Q}&format=csv"), lines).await;
    for f in plan["fabrics"].as_array().unwrap() {
        let name = f["fabric"].as_str().unwrap();
        let sum: f64 = recs
            .iter()
            .filter(|r| r["fabric"] == name)
            .map(|r| r["extended_price_usd"].parse::<f64>().unwrap())
            .sum();
        let total = num(&f["capex"]["total_usd"]);
        assert!(
            (sum - total).abs() < 0.01,
            "{name}: BOM {sum} vs capex {total}"
        );
    }
}

/// The bill of materials, the sheet handed to procurement, carries the plan's warnings (here
/// optics whose ends do not link at 200G) and names a fabric asked for that cannot be built:
/// it carried neither, and an infeasible fabric simply had no rows.
#[tokio::test]
async fn the_bom_carries_the_warnings_and_the_fabrics_not_built() {
    let app = spawn_app().await;
    let q = "gpus=1024&nic_speed_gbps=200&fabrics=infiniband";
    let plan = app.ok_json(&format!("/v1/plans?{q}")).await;
    let bom = app.ok_json(&format!("/v1/plans/bom?{q}")).await;
    assert_eq!(bom["warnings"], plan["warnings"]);
    assert!(
        bom["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("do not link")),
        "{}",
        bom["warnings"]
    );
    let lines = bom["rows"].as_array().unwrap().len();
    let recs = csv_rows(&app, &format!("/v1/plans/bom?{q}&format=csv"), lines).await;
    assert!(recs.iter().all(|r| r["warnings"].contains("do not link")));
    let q = "gpus=70000&fabrics=infiniband,roce";
    let bom = app.ok_json(&format!("/v1/plans/bom?{q}")).await;
    assert_eq!(bom["not_built"][0]["fabric"], "infiniband");
    assert!(
        bom["not_built"][0]["infeasible_reason"]
            .as_str()
            .unwrap()
            .contains("three-tier ceiling")
    );
    let lines = bom["rows"].as_array().unwrap().len();
    let recs = csv_rows(&app, &format!("/v1/plans/bom?{q}&format=csv"), lines + 1).await;
    let ib: Vec<_> = recs
        .iter()
        .filter(|r| r["fabric"] == "infiniband")
        .collect();
    assert_eq!(ib.len(), 1);
    assert_eq!(ib[0]["sku"], "");
    assert!(
        ib[0]["warnings"].contains("infiniband: infeasible for this request — 70,000 endpoints"),
        "{}",
        ib[0]["warnings"]
    );
    // RoCE's lines do not carry InfiniBand's reason, as in the plan CSV.
    assert!(
        recs.iter()
            .filter(|r| r["fabric"] == "roce")
            .all(|r| !r["warnings"].contains("infiniband:"))
    );
}

#[tokio::test]
async fn value_is_the_bare_json_number() {
    let app = spawn_app().await;
    let plan = q_plan(&app).await;
    for fabric in ["infiniband", "roce"] {
        let f = plan["fabrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["fabric"] == fabric)
            .unwrap();
        for metric in [
            "tco.total_usd",
            "capex.total_usd",
            "performance.gpu_idle_fraction",
            "topology.spine_switches",
            "tco.by_year.1.cost_usd",
        ] {
            let (h, text) = get_ok(
                &app,
                &format!("/v1/value?metric={metric}&fabric={fabric}&{Q}"),
            )
            .await;
            assert_eq!(h["content-type"], "text/plain; charset=utf-8");
            assert!(
                !text.ends_with('\n') && !text.contains(['e', ',']),
                "{text:?}"
            );
            assert_number(&text, dig(f, metric), metric);
        }
    }
    let (_, text) = get_ok(
        &app,
        &format!("/v1/value?metric=comparison.break_even.current_gpu_hour_usd&{Q}"),
    )
    .await;
    assert_eq!(
        text.parse::<f64>().unwrap(),
        num(&plan["comparison"]["break_even"]["current_gpu_hour_usd"])
    );
}

#[tokio::test]
async fn value_errors_are_problems_that_help() {
    let app = spawn_app().await;
    // An infeasible fabric's figure: the answer says why it has none, not "unknown metric".
    const INFEASIBLE: &str = "/v1/value?metric=capex.total_usd&fabric=infiniband&gpus=100000";
    let p = app.problem_at(INFEASIBLE, 422, "/fabric").await;
    let detail = p["errors"][0]["detail"].as_str().unwrap();
    assert!(
        detail.contains(
            "infiniband cannot be built for this request, so it has no 'capex.total_usd'"
        ) && detail.contains("three-tier ceiling"),
        "{detail}"
    );
    // Its delta too (it was "unknown metric", though the metric is listed as valid).
    let p = app
        .problem_at(
            "/v1/value?metric=comparison.deltas.total_usd&fabric=infiniband&gpus=100000",
            422,
            "/fabric",
        )
        .await;
    assert!(
        p["errors"][0]["detail"]
            .as_str()
            .unwrap()
            .contains("so it has no 'comparison.deltas.total_usd'"),
        "{p}"
    );
    let p = app
        .problem(&format!("/v1/value?metric=tco.totl&fabric=roce&{Q}"), 422)
        .await;
    let valid: Vec<&str> = p["extra"]["valid_metrics"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    for m in [
        "tco.total_usd",
        "capex.total_usd",
        "topology.spine_switches",
        "performance.gpu_idle_fraction",
    ] {
        assert!(valid.contains(&m), "{m} in {valid:?}");
    }
    assert!(!valid.contains(&"fabric") && !valid.contains(&"topology.switch_sku"));
    assert_eq!(
        app.code(
            &format!("/v1/value?metric=topology.switch_sku&fabric=roce&{Q}"),
            422
        )
        .await,
        "not_numeric"
    );
    assert_eq!(
        app.pointer(&format!("/v1/value?metric=tco.total_usd&{Q}"), 422)
            .await,
        "/fabric"
    );
    assert_eq!(
        app.pointer(
            &format!("/v1/value?metric=tco.total_usd&fabric=roce_adaptive&{Q}"),
            422
        )
        .await,
        "/fabric"
    );
    assert_eq!(
        app.pointer("/v1/value?fabric=roce&gpus=8", 422).await,
        "/metric"
    );
}

#[tokio::test]
async fn head_etag_and_304() {
    let app = spawn_app().await;
    for path in [
        format!("/v1/plans?{Q}"),
        format!("/v1/plans?{Q}&format=csv"),
        format!("/v1/plans/bom?{Q}"),
        format!("/v1/value?metric=tco.total_usd&fabric=roce&{Q}"),
        format!("/v1/sweeps?{Q}&vary=gpus&values=256,1024"),
        format!("/v1/sweeps?{Q}&vary=gpus&values=256,1024&format=csv"),
    ] {
        let get = app.get(&path).await;
        assert_eq!(get.status(), 200, "{path}");
        let tag = get.headers()["etag"].to_str().unwrap().to_string();
        assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
        let len = get.bytes().await.unwrap().len();
        let head = app.send(reqwest::Method::HEAD, &path).await;
        assert_eq!(head.status(), 200, "HEAD {path}");
        assert_eq!(head.headers()["etag"].to_str().unwrap(), tag);
        assert_eq!(head.headers()["cache-control"], "no-store");
        assert_eq!(
            head.headers()["content-length"].to_str().unwrap(),
            len.to_string()
        );
        assert!(head.bytes().await.unwrap().is_empty());
        let cond = app.get_with(&path, ("If-None-Match", &tag)).await;
        assert_eq!(cond.status(), 304, "{path}");
        assert_eq!(cond.headers()["etag"].to_str().unwrap(), tag);
        assert!(cond.bytes().await.unwrap().is_empty());
        let other = app
            .get_with(&path, ("If-None-Match", "\"something-else\""))
            .await;
        assert_eq!(other.status(), 200);
    }
    // Representations differ in their tags.
    let a = app.get(&format!("/v1/plans?{Q}")).await;
    let b = app.get(&format!("/v1/plans?{Q}&format=csv")).await;
    assert_ne!(a.headers()["etag"], b.headers()["etag"]);
    // A sweep's tag is made from its rows' plan ids: any input, varied or not, changes it,
    // and so does the format.
    let sweep = format!("/v1/sweeps?{Q}&vary=gpus&values=256,1024");
    let mut tags: Vec<String> = Vec::new();
    for p in [
        sweep.clone(),
        format!("{sweep}&format=csv"),
        sweep.replace("values=256,1024", "values=256,2048"),
        sweep.replace("economics.years=4", "economics.years=5"),
        sweep.replace(
            "vary=gpus&values=256,1024",
            "vary=economics.years&values=3,4",
        ),
    ] {
        let r = app.get(&p).await;
        assert_eq!(r.status(), 200, "{p}");
        tags.push(r.headers()["etag"].to_str().unwrap().to_string());
    }
    // A GPU-hour value of 0 given, and none given for a GPU the catalog has no price for on
    // the basis asked (B300 has no rental rate): other warnings, other plan ids, other tags.
    let b300 = "/v1/sweeps?vary=gpus&values=256,1024&gpu_model=b300&fabrics=infiniband,roce&economics.gpu_hour_basis=rental";
    let given = format!("{b300}&economics.gpu_hour_usd=0");
    let (a, b) = (app.get(b300).await, app.get(&given).await);
    tags.push(a.headers()["etag"].to_str().unwrap().to_string());
    tags.push(b.headers()["etag"].to_str().unwrap().to_string());
    let (a, b): (Value, Value) = (a.json().await.unwrap(), b.json().await.unwrap());
    let ids = |v: &Value| -> Vec<Value> {
        v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["plan_id"].clone())
            .collect()
    };
    assert_ne!(ids(&a), ids(&b));
    let said = |v: &Value| (v["warnings"].clone(), v["rows"][0]["warnings"].clone());
    assert_ne!(said(&a), said(&b));
    for (i, t) in tags.iter().enumerate() {
        assert!(t.starts_with("\"sweep-"), "{t}");
        assert!(
            !tags[..i].contains(t),
            "tag {i} repeats an earlier one: {tags:?}"
        );
    }
    // OPTIONS is answered from the route table.
    let opt = app.send(reqwest::Method::OPTIONS, "/v1/value").await;
    assert_eq!(opt.status(), 204);
    assert!(opt.headers()["allow"].to_str().unwrap().contains("HEAD"));
}

#[tokio::test]
async fn malformed_and_unknown_parameters_are_named_and_cache_busters_ignored() {
    let app = spawn_app().await;
    let bad_years = "/v1/plans?gpus=1024&economics.years=abc";
    let p = app.problem_at(bad_years, 422, "/economics/years").await;
    assert!(first_error(&p, "detail").contains("economics.years"));
    for (query, pointer) in [
        (
            "gpus=1024&topology.oversubscription=0.5",
            "/topology/oversubscription",
        ),
        ("economics.years=5", "/gpus"),
        // A whole number's text with a fraction is refused, not rounded through a float
        // (1024.9999999999999999 was read as 1025; a buyer audit, 2026-11-27).
        ("gpus=1024.9999999999999999", "/gpus"),
        (
            "gpus=1024&economics.years=14.99999999999999999",
            "/economics/years",
        ),
        // A decimal's text beyond 28 digits is refused, not rounded into range.
        (
            "gpus=1024&economics.gpu_hour_usd=1000.00000000000000000000000001",
            "/economics/gpu_hour_usd",
        ),
    ] {
        let path = format!("/v1/plans?{query}");
        assert_eq!(app.pointer(&path, 422).await, pointer, "{path}");
    }
    assert_eq!(
        app.code("/v1/plans?gpus=8&gpus=16", 422).await,
        "duplicate_key"
    );
    let p = app
        .problem("/v1/plans?gpus=8&fabrics=roce,ethernet", 422)
        .await;
    assert!(first_error(&p, "pointer").starts_with("/fabrics"));
    assert_eq!(
        app.pointer("/v1/plans?gpus=8&format=ods", 422).await,
        "/format"
    );
    let long = format!("/v1/plans?gpus=8&_={}", "x".repeat(9000));
    app.problem(&long, 414).await;

    // A misspelt name is a 422 naming it, on every GET surface (never the default silently).
    for path in [
        "/v1/plans?gpus=64&economics.yeras=3",
        "/v1/plans/bom?gpus=64&economics.yeras=3",
        "/v1/value?metric=tco.total_usd&fabric=roce&gpus=64&economics.yeras=3",
        "/v1/sweeps?vary=gpus&values=64,128&economics.yeras=3",
    ] {
        let p = app.problem_at(path, 422, "/economics/yeras").await;
        assert_eq!(p["errors"][0]["code"], "unknown_field", "{path}");
        assert!(p["detail"].as_str().unwrap().contains("economics.yeras"));
    }
    assert_eq!(
        app.pointer("/v1/plans?gpus=64&utm_source=sheet", 422).await,
        "/utm_source"
    );
    // Another endpoint's own parameter is not a plan input here.
    assert_eq!(
        app.pointer("/v1/plans?gpus=64&metric=tco.total_usd", 422)
            .await,
        "/metric"
    );
    // Strict numbers: no digit separators, no exotic floats.
    for bad in [
        "gpus=1_024",
        "gpus=64&economics.pue=1__2",
        "gpus=64&topology.oversubscription=inf",
    ] {
        let p = app.problem(&format!("/v1/plans?{bad}"), 422).await;
        assert!(
            first_error(&p, "detail").starts_with("query parameter"),
            "{bad}: {p}"
        );
    }

    // Cache busters (names beginning with `_`) and empty values are ignored.
    let a = app.json("/v1/plans?gpus=64").await;
    let b = app
        .json("/v1/plans?gpus=64&_=1700000000&_refresh=2&gpu_model=")
        .await;
    assert_eq!(a["plan_id"], b["plan_id"]);
}

#[tokio::test]
async fn csv_text_cells_are_guarded_against_formulas() {
    // A vendor discount key is echoed nowhere in the CSV, so check the guard on BOM text: no
    // text cell may start with = + - @ unquoted-unprefixed.
    let app = spawn_app().await;
    let (_, _, text) = get_text(&app, "/v1/plans/bom?gpus=512&format=csv").await;
    for rec in csv_records(&text) {
        for (k, v) in rec {
            if v.parse::<f64>().is_err() {
                assert!(!v.starts_with(['=', '+', '-', '@']), "{k}: {v}");
            }
        }
    }
}

/// A catalog whose texts a spreadsheet would run as formulas (`=`, `+`, `-`, `@` and the
/// full-width `＝ ＋ － ＠`; control characters are refused by catalog validation): every BOM
/// text cell that begins with one is prefixed with `'`.
#[tokio::test]
async fn csv_cells_from_hostile_catalog_texts_are_not_formulas() {
    let mut v: Value =
        serde_json::from_slice(&std::fs::read("pricing/default.json").expect("catalog"))
            .expect("json");
    let hostile = [
        "=HYPERLINK(\"http://x\")",
        "＝1+2",
        "+cmd|' /C calc'!A0",
        "－5",
        "@SUM(1)",
        "＠x",
    ];
    let mut n = 0;
    for list in ["switches", "nics", "transceivers", "cables"] {
        for part in v[list].as_array_mut().expect(list) {
            part["description"] = hostile[n % hostile.len()].into();
            n += 1;
        }
    }
    let catalog =
        fabric_tco::catalog::Catalog::parse("test", &serde_json::to_vec(&v).expect("bytes"))
            .expect("catalog loads");
    let app =
        crate::spawn_with(fabric_tco::catalog::CatalogSet::new(vec![catalog]).expect("set")).await;
    let (_, _, text) = get_text(&app, "/v1/plans/bom?gpus=512&format=csv").await;
    let mut guarded = 0;
    for rec in csv_records(&text) {
        for (k, v) in rec {
            if v.parse::<f64>().is_ok() {
                continue;
            }
            assert!(
                !v.starts_with(['=', '+', '-', '@', '＝', '＋', '－', '＠']),
                "{k}: {v}"
            );
            if hostile.iter().any(|h| v.starts_with(&format!("'{h}"))) {
                guarded += 1;
            }
        }
    }
    assert!(
        guarded >= 3,
        "the hostile descriptions are in the BOM, prefixed: {text}"
    );
}

async fn cheapest_at(app: &TestApp, gpus: u64) -> String {
    let v = app
        .ok_json(&format!(
            "/v1/plans?gpus={gpus}&fabrics=infiniband,roce_adaptive&economics.years=5"
        ))
        .await;
    v["comparison"]["cheapest_fabric"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test]
async fn sweep_rows_and_crossovers_agree_with_single_plans() {
    let app = spawn_app().await;
    let sw = app
        .ok_json(
            "/v1/sweeps?vary=gpus&from=16&to=1024&steps=8&scale=geometric\
         &fabrics=infiniband,roce_adaptive&economics.years=5",
        )
        .await;
    let rows = sw["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 16);
    // Each row is the single plan's figures.
    let first = &rows[0];
    let single: Value = app
        .json("/v1/plans?gpus=16&fabrics=infiniband,roce_adaptive&economics.years=5")
        .await;
    assert_eq!(first["gpus"], 16);
    assert_eq!(first["plan_id"], single["plan_id"]);
    assert_eq!(
        first["total_cost_usd"],
        single["fabrics"][0]["total_cost_usd"]
    );
    assert!(!sw["crossovers"].as_array().unwrap().is_empty(), "{sw}");
    // Crossovers: cheapest just below differs from cheapest at the value.
    for c in sw["crossovers"].as_array().unwrap() {
        let at = c["value"].as_f64().unwrap() as u64;
        assert_eq!(
            cheapest_at(&app, at).await,
            c["to_fabric"].as_str().unwrap(),
            "{c}"
        );
        assert_eq!(
            cheapest_at(&app, at - 1).await,
            c["from_fabric"].as_str().unwrap(),
            "{c}"
        );
    }
    // POST gives the same.
    let post: Value = app.post_value(
            "/v1/sweeps",
            &json!({"base": {"gpus": 1, "fabrics": ["infiniband", "roce_adaptive"], "economics": {"years": 5}},
                    "vary": "gpus", "from": 16, "to": 1024, "steps": 8, "scale": "geometric"}),
        ).await;
    assert_eq!(post, sw);
    // CSV rows.
    let recs = csv_rows(
        &app,
        "/v1/sweeps?vary=gpus&values=512,1024&fabrics=infiniband,roce&format=csv",
        4,
    )
    .await;
    assert_eq!(recs[0]["gpus"], "512");
}

#[tokio::test]
async fn sweep_limits_and_bad_points_are_422_problems() {
    let app = spawn_app().await;
    let p = app
        .problem_at("/v1/sweeps?vary=gpu_model&values=1,2", 422, "/vary")
        .await;
    assert!(p["extra"]["valid_inputs"].as_array().unwrap().len() > 5);
    assert_eq!(
        app.pointer("/v1/sweeps?vary=gpus&from=1&to=1000&steps=20000", 422)
            .await,
        "/steps"
    );
    // A grid too large for its second axis names that axis (audit 16).
    assert_eq!(
        app.pointer(
            "/v1/sweeps?vary=gpus&values=8,16&vary2=economics.gpu_hour_usd&from2=1&to2=10&steps2=6000",
            422
        )
        .await,
        "/steps2"
    );
    // A value beyond the tier ceiling fails the sweep with a 422 naming the value.
    let res = app
        .get("/v1/sweeps?vary=gpus&from=100000&to=1000000&steps=50&fabrics=infiniband")
        .await;
    let p = assert_problem(res, 422).await;
    assert!(p["detail"].as_str().unwrap().contains("gpus="), "{p}");
    let post = app
        .post_json(
            "/v1/sweeps",
            &json!({"base": {"gpus": 8}, "vary": "economics.years", "values": [1, 99]}),
        )
        .await;
    assert_problem(post, 422).await;
}

async fn plan_at(app: &TestApp, query: &str) -> Value {
    app.ok_json(&format!("/v1/plans?{query}")).await
}

#[tokio::test]
async fn grid_sweep_rows_and_crossovers_agree_with_single_plans() {
    let app = spawn_app().await;
    let base = "fabrics=infiniband,roce";
    let sw = app
        .ok_json(&format!(
            "/v1/sweeps?vary=gpus&from=16&to=512&steps=4&scale=geometric\
             &vary2=economics.gpu_hour_usd&values2=1,12&{base}"
        ))
        .await;
    assert_eq!(sw["vary2"], "economics.gpu_hour_usd");
    let rows = sw["rows"].as_array().unwrap();
    // 4 values × 2 values × 2 fabrics.
    assert_eq!(rows.len(), 16);
    for r in rows {
        let plan = plan_at(
            &app,
            &format!(
                "gpus={}&economics.gpu_hour_usd={}&{base}",
                r["gpus"], r["economics.gpu_hour_usd"]
            ),
        )
        .await;
        assert_eq!(r["plan_id"], plan["plan_id"], "{r}");
        let f = plan["fabrics"]
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["fabric"] == r["fabric"])
            .unwrap();
        assert_eq!(r["total_cost_usd"], f["total_cost_usd"], "{r}");
    }
    // Each crossover holds at its own value of the second input.
    let crossovers = sw["crossovers"].as_array().unwrap();
    assert!(!crossovers.is_empty(), "{sw}");
    for c in crossovers {
        assert_eq!(c["input2"], "economics.gpu_hour_usd");
        let at = c["value"].as_f64().unwrap() as u64;
        let v2 = &c["value2"];
        let cheapest = |p: Value| p["comparison"]["cheapest_fabric"].clone();
        let q = |g: u64| format!("gpus={g}&economics.gpu_hour_usd={v2}&{base}");
        assert_eq!(cheapest(plan_at(&app, &q(at)).await), c["to_fabric"], "{c}");
        assert_eq!(
            cheapest(plan_at(&app, &q(at - 1)).await),
            c["from_fabric"],
            "{c}"
        );
    }
    // CSV carries both inputs as columns.
    let recs = csv_rows(
        &app,
        &format!("/v1/sweeps?vary=gpus&values=512,1024&vary2=economics.years&values2=3,5&{base}&format=csv"),
        8,
    )
    .await;
    assert_eq!(recs[0]["economics.years"], "3");
}

#[tokio::test]
async fn grid_sweep_errors_name_the_second_input() {
    let app = spawn_app().await;
    // Range of a second input without the input.
    assert_eq!(
        app.pointer("/v1/sweeps?vary=gpus&values=512&from2=1", 422)
            .await,
        "/vary2"
    );
    // The same input twice.
    assert_eq!(
        app.pointer(
            "/v1/sweeps?vary=gpus&values=512&vary2=gpus&values2=1024",
            422
        )
        .await,
        "/vary2"
    );
    // 200 × 100 grid points is over the 10,000-plan cap: refused before any plan is made.
    assert_eq!(app.code("/v1/sweeps?vary=gpus&from=256&to=16384&steps=200&vary2=economics.gpu_hour_usd&from2=1&to2=10&steps2=100", 422).await, "too_many_plans");
    // A bad second range names its own field, and the end that is out of range (`to2=99`
    // years; it used to name `from2`, which was fine).
    assert_eq!(
        app.pointer(
            "/v1/sweeps?vary=gpus&values=512&vary2=economics.years&from2=1&to2=99",
            422
        )
        .await,
        "/to2"
    );
    assert_eq!(
        app.pointer(
            "/v1/sweeps?vary=gpus&values=512&vary2=economics.years&from2=0&to2=5",
            422
        )
        .await,
        "/from2"
    );
    // A listed value out of range by its place, as a listed value of the wrong type is.
    assert_eq!(
        app.pointer(
            "/v1/sweeps?vary=gpus&values=512&vary2=economics.years&values2=1,99",
            422
        )
        .await,
        "/values2/1"
    );
    // POST: the same rules.
    let post = app
        .post_json(
            "/v1/sweeps",
            &json!({"base": {"gpus": 8}, "vary": "gpus", "values": [512], "steps2": 4}),
        )
        .await;
    let p = assert_problem(post, 422).await;
    assert_eq!(p["errors"][0]["pointer"], "/vary2");
}

#[tokio::test]
async fn a_decimal_crossover_is_bisected_to_the_plans_break_even() {
    let app = spawn_app().await;
    let sw = app
        .ok_json(
            "/v1/sweeps?vary=economics.gpu_hour_usd&values=0,500&gpus=1024&fabrics=infiniband,roce",
        )
        .await;
    let c = &sw["crossovers"][0];
    assert_eq!(c["exact"], true, "{c}");
    let value = c["value"].as_f64().unwrap();
    let plan = app
        .post_json(
            "/v1/plans",
            &json!({"gpus": 1024, "fabrics": ["infiniband", "roce"]}),
        )
        .await
        .json::<Value>()
        .await
        .unwrap();
    let be: f64 = plan["comparison"]["break_even"]["gpu_hour_usd"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    // Five significant figures: the flip within one step (≤ 1/10,000 of the value) below it,
    // in at most ⌈log2(10⁹)⌉ + 1 bisections.
    assert!(value >= be && value - be <= be * 1e-4, "{value} vs {be}");
    assert!(sw["plans_computed"].as_u64().unwrap() <= 2 + 31);
}

#[tokio::test]
async fn inputs_with_a_set_of_values_sweep_without_bisecting_into_forbidden_values() {
    let app = spawn_app().await;
    let sw = app
        .ok_json("/v1/sweeps?vary=nic_speed_gbps&values=200,400,800&gpus=64")
        .await;
    assert_eq!(
        sw["plans_computed"], 3,
        "no plan between the allowed speeds"
    );
    for c in sw["crossovers"].as_array().unwrap() {
        assert_eq!(c["exact"], false, "{c}");
    }
    // A geometric range ending exactly at an input's upper bound stays inside it.
    get_ok(
        &app,
        "/v1/sweeps?vary=economics.years&from=1&to=15&steps=4&scale=geometric&gpus=64&fabrics=infiniband",
    )
    .await;
}

#[tokio::test]
async fn csv_columns_sum_to_totals_and_carry_the_warnings() {
    use rust_decimal::Decimal;
    use std::str::FromStr;
    let app = spawn_app().await;
    let json: Value = app.json("/v1/plans?gpus=1024").await;
    let text = app.text("/v1/plans?gpus=1024&format=csv").await;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let col = |name: &str| {
        header
            .iter()
            .position(|h| *h == name)
            .unwrap_or_else(|| panic!("no column {name}"))
    };
    let warnings = json["warnings"].as_array().unwrap();
    assert!(
        !warnings.is_empty(),
        "the default plan has placeholder prices"
    );
    let mut row_warnings = Vec::new();
    for line in lines {
        let cells = parse_csv_line(line);
        let d = |name: &str| Decimal::from_str(&cells[col(name)]).unwrap();
        let parts = crate::OPEX_PARTS
            .iter()
            .map(|p| d(&format!("opex_per_year.{p}")))
            .sum::<Decimal>();
        assert_eq!(parts, d("opex_per_year.total_usd"), "{line}");
        // A row carries the plan's warnings and its fabric's, not the other fabrics'.
        let w = &cells[col("warnings")];
        let fabric = cells[col("fabric")].as_str();
        let others: &[&str] = match fabric {
            "infiniband" => &["roce: ", "roce_adaptive: ", "Ethernet: "],
            "roce" => &["infiniband: ", "roce_adaptive: ", "InfiniBand: "],
            "roce_adaptive" => &["infiniband: ", "roce: ", "InfiniBand: "],
            other => panic!("fabric {other}"),
        };
        for o in others {
            assert!(
                !w.starts_with(o) && !w.contains(&format!(" | {o}")),
                "{fabric}: {w}"
            );
        }
        // Every warning about this fabric is on its row.
        for about in warnings.iter().filter_map(|x| x.as_str()).filter(|x| {
            let scope = if fabric == "infiniband" {
                "InfiniBand: "
            } else {
                "Ethernet: "
            };
            x.starts_with(&format!("{fabric}: ")) || x.starts_with(scope)
        }) {
            assert!(w.contains(about), "{fabric}: {w}");
        }
        // The cell splits back into whole warnings (the UFM one holds a semicolon).
        for part in w.split(" | ") {
            assert!(warnings.iter().any(|x| x == part), "{part}");
        }
        row_warnings.push(w.clone());
    }
    // Every warning is on some row.
    for expected in warnings {
        let expected = expected.as_str().unwrap();
        assert!(
            row_warnings.iter().any(|w| w.contains(expected)),
            "{expected}"
        );
    }
    assert!(
        row_warnings[0].contains("InfiniBand: UFM"),
        "{}",
        row_warnings[0]
    );
    // Sweep rows carry their point's warnings too, by the same rule: the whole plan's and
    // their own fabric's.
    // What every row has is the sweep's `warnings`, said once.
    let sweep: Value = app.json("/v1/sweeps?vary=gpus&values=64,128").await;
    let shared = sweep["warnings"].as_array().unwrap();
    assert!(
        shared.iter().any(|w| w
            .as_str()
            .unwrap()
            .starts_with("economics.discount_rate: 0.08")),
        "{shared:?}"
    );
    for r in sweep["rows"].as_array().unwrap() {
        let fabric = r["fabric"].as_str().unwrap();
        let w = r["warnings"].as_array().unwrap();
        assert!(!w.is_empty(), "{r}");
        assert!(w.iter().all(|w| !shared.contains(w)), "{r}");
        for text in w.iter().chain(shared).map(|w| w.as_str().unwrap()) {
            let about = Some(text.split_once(": ").map_or(text, |(head, _)| head));
            let other = ["infiniband", "roce", "roce_adaptive"]
                .into_iter()
                .find(|f| *f != fabric && about == Some(*f));
            assert_eq!(other, None, "{fabric}: {text}");
            assert!(
                fabric == "infiniband" || !text.starts_with("InfiniBand: "),
                "{fabric}: {text}"
            );
            assert!(
                fabric != "infiniband" || !text.starts_with("Ethernet: "),
                "{fabric}: {text}"
            );
        }
    }
    let csv = app
        .text("/v1/sweeps?vary=gpus&values=64,128&format=csv")
        .await;
    assert!(csv.lines().next().unwrap().ends_with(",warnings"));
}

/// A CSV line's cells (quoted cells may hold commas and doubled quotes).
pub(crate) fn parse_csv_line(line: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cur.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => out.push(std::mem::take(&mut cur)),
            (c, _) => cur.push(c),
        }
    }
    out.push(cur);
    out
}

/// The idle cost of a plan CSV row and of a sweep row splits into the waits and the failures,
/// each in its own column: at 100,000 GPUs on RoCE the failures are most of it (~$70M of
/// ~$73M a year), which no column showed.
#[tokio::test]
async fn idle_cost_columns_show_the_failure_line() {
    let app = spawn_app().await;
    let q = "gpus=100000&fabrics=roce&economics.years=3";
    let plan = app.ok_json(&format!("/v1/plans?{q}")).await;
    let idle = &plan["fabrics"][0]["gpu_idle"];
    let rows = csv_rows(&app, &format!("/v1/plans?format=csv&{q}"), 1).await;
    let r = &rows[0];
    for c in [
        "gpu_hours_per_year",
        "failure_gpu_hours_per_year",
        "failure_cost_per_year_usd",
        "cost_per_year_usd",
    ] {
        assert_eq!(
            r[&format!("gpu_idle.{c}")].parse::<f64>().unwrap(),
            num(&idle[c]),
            "{c}"
        );
    }
    let per_year = num(&idle["cost_per_year_usd"]);
    let failures = num(&idle["failure_cost_per_year_usd"]);
    let rate = num(&plan["inputs"]["economics"]["gpu_hour_usd"]);
    let waits = num(&idle["gpu_hours_per_year"]) * rate;
    assert!(failures > 0.9 * per_year, "{failures} of {per_year}");
    assert!(
        (per_year - failures - waits).abs() < 1.0,
        "{per_year} {failures} {waits}"
    );
    let sweep = app
        .ok_json(&format!("/v1/sweeps?vary=gpus&values=100000&{q}"))
        .await;
    let row = &sweep["rows"][0];
    assert!((num(&row["failure_cost_usd"]) - failures * 3.0).abs() < 0.005);
    assert!((num(&row["gpu_idle_cost_usd"]) - per_year * 3.0).abs() < 0.005);
}

/// Two spellings of one value are one plan: the same id, the same tag, the same bytes (the
/// current GPU-hour value was echoed as written, "0.906" or "0.9060", under one ETag).
#[tokio::test]
async fn one_value_spelt_two_ways_is_one_body() {
    let app = spawn_app().await;
    let (ha, a) = get_ok(&app, "/v1/plans?gpus=1024&economics.gpu_hour_usd=0.906").await;
    let (hb, b) = get_ok(&app, "/v1/plans?gpus=1024&economics.gpu_hour_usd=0.9060").await;
    assert_eq!(ha["etag"], hb["etag"]);
    assert_eq!(a, b);
    let v: Value = serde_json::from_str(&a).unwrap();
    assert_eq!(
        v["comparison"]["break_even"]["current_gpu_hour_usd"],
        "0.9060"
    );
}

#[tokio::test]
async fn value_of_the_cheapest_fabric() {
    let app = spawn_app().await;
    let plan: Value = app.json("/v1/plans?gpus=1024").await;
    let cheapest = plan["comparison"]["cheapest_fabric"].as_str().unwrap();
    let a = app
        .text(&format!(
            "/v1/value?metric=total_cost_usd&fabric={cheapest}&gpus=1024"
        ))
        .await;
    let b = app
        .text("/v1/value?metric=total_cost_usd&fabric=cheapest&gpus=1024")
        .await;
    assert_eq!(a, b);
    let p = app
        .problem(
            "/v1/value?metric=total_cost_usd&fabric=ethernet&gpus=1024",
            422,
        )
        .await;
    assert!(first_error(&p, "detail").contains("cheapest"));
    // With one fabric buildable there is no comparison: `cheapest` is that fabric whatever
    // the order asked (it was the first listed, here InfiniBand, which cannot be built).
    let q = "gpus=70000&fabrics=infiniband,roce";
    let a = app
        .text(&format!("/v1/value?metric=total_cost_usd&fabric=roce&{q}"))
        .await;
    let b = app
        .text(&format!(
            "/v1/value?metric=total_cost_usd&fabric=cheapest&{q}"
        ))
        .await;
    assert_eq!(a, b);
    let rows = csv_rows(&app, &format!("/v1/plans?format=csv&{q}"), 2).await;
    let cheapest: Vec<&str> = rows.iter().map(|r| r["cheapest"].as_str()).collect();
    assert_eq!(cheapest, ["false", "true"]);
}

/// A sweep or an analysis computed on several threads (`FABRIC_TCO_HEAVY_THREADS`) is the
/// one-thread answer byte for byte, with its entity tag: a list and a grid, both with crossovers
/// to bisect, a sweep whose points fail, and an uncertainty analysis.
#[tokio::test]
async fn a_sweep_on_four_threads_is_the_one_thread_sweep() {
    let with_threads = |n: usize, priority: fabric_tco::config::HeavyPriority| {
        let store = std::sync::Arc::new(fabric_tco::catalog::store::CatalogStore::new(
            fabric_tco::catalog::CatalogSet::embedded().expect("embedded catalog"),
            &[],
        ));
        crate::spawn_configured(
            store,
            fabric_tco::ServerOptions {
                heavy_threads: Some(n),
                heavy_priority: priority,
                ..Default::default()
            },
        )
    };
    // One thread in the idle class, four at normal priority (`FABRIC_TCO_HEAVY_PRIORITY`).
    let one = with_threads(1, fabric_tco::config::HeavyPriority::Idle).await;
    let four = with_threads(4, fabric_tco::config::HeavyPriority::Normal).await;
    for path in [
        "/v1/sweeps?fabrics=infiniband,roce,roce_adaptive&vary=gpus&from=16&to=4096&steps=200",
        "/v1/sweeps?fabrics=infiniband,roce&vary=gpus&from=16&to=2048&steps=40&vary2=economics.years&values2=1,3,7&format=csv",
        // Every point of the second slice fails (no 100 Gb/s InfiniBand switch): the answer
        // names the first.
        "/v1/sweeps?fabrics=infiniband&vary=gpus&values=512,1024,2048,4096&vary2=nic_speed_gbps&values2=400,100",
    ] {
        let (a, b) = (one.get(path).await, four.get(path).await);
        assert_eq!(a.status(), b.status(), "{path}");
        assert_eq!(a.headers().get("etag"), b.headers().get("etag"), "{path}");
        let (a, b) = (a.text().await.unwrap(), b.text().await.unwrap());
        assert!(a.len() > 200, "{path}: {a}");
        assert_eq!(a, b, "{path}");
        if path.contains("values2=400,100") {
            assert!(a.contains("at gpus=512, nic_speed_gbps=100:"), "{a}");
        }
    }
    // An uncertainty analysis likewise.
    let body = json!({"gpus": 2048, "uncertainty": {"samples": 2000, "seed": 9,
        "inputs": {"economics.gpu_hour_usd": "0.5,2,40"}}});
    let (a, b) = (
        one.post_json("/v1/plans", &body).await,
        four.post_json("/v1/plans", &body).await,
    );
    assert_eq!(a.status(), 200);
    assert_eq!(a.headers().get("etag"), b.headers().get("etag"));
    let (a, b) = (a.text().await.unwrap(), b.text().await.unwrap());
    assert!(a.contains("\"probability_cheapest\""), "{a}");
    assert_eq!(a, b);
}

/// A fabric infeasible at a sweep point has no row there; its warning (why it is infeasible)
/// goes on the point's other rows instead of vanishing.
#[tokio::test]
async fn a_sweep_point_keeps_the_warnings_of_a_fabric_without_a_row() {
    let app = spawn_app().await;
    let sw: Value = app.json("/v1/sweeps?vary=gpus&values=60000,70000").await;
    let rows = sw["rows"].as_array().unwrap();
    let at = |gpus: u64| rows.iter().filter(move |r| r["gpus"] == gpus);
    assert_eq!(at(60_000).count(), 3);
    assert!(at(70_000).all(|r| r["fabric"] != "infiniband"));
    for r in at(70_000) {
        let w = r["warnings"].as_array().unwrap();
        assert!(
            w.iter()
                .any(|w| w.as_str().unwrap().starts_with("infiniband: infeasible")),
            "{r}"
        );
    }
    for r in at(60_000).filter(|r| r["fabric"] != "infiniband") {
        let w = r["warnings"].as_array().unwrap();
        assert!(
            w.iter()
                .all(|w| !w.as_str().unwrap().starts_with("infiniband: ")),
            "{r}"
        );
    }
}

/// What every row of a sweep would say (the catalog's placeholder operating figures, in every
/// plan of a sweep that does not vary them) is the sweep's `warnings`, said once: a
/// 10,000-point sweep carried ~800 bytes of them in every row (49.5 MB for `gpus` 1,024 →
/// 11,023). A figure the sweep varies is said only by the rows at its placeholder value; each
/// CSV row carries both, the sweep's first.
#[tokio::test]
async fn a_sweep_says_what_every_row_shares_once() {
    let app = spawn_app().await;
    let q = "/v1/sweeps?gpus=1024&vary=economics.spares_rate&values=0.02,0.03";
    let sw = app.ok_json(q).await;
    let shared: Vec<&str> = sw["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(
        shared
            .iter()
            .any(|w| w.starts_with("economics.discount_rate: 0.08")),
        "{shared:?}"
    );
    assert!(
        !shared.iter().any(|w| w.contains("spares_rate")),
        "{shared:?}"
    );
    let rows = sw["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 6);
    for r in rows {
        let own = r["warnings"].to_string();
        assert!(!own.contains("economics.discount_rate"), "{r}");
        let at_placeholder = r["value"].as_f64() == Some(0.02);
        assert_eq!(
            own.contains("economics.spares_rate: 0.02"),
            at_placeholder,
            "{r}"
        );
        assert_eq!(
            own.contains("InfiniBand: UFM"),
            r["fabric"] == "infiniband",
            "{r}"
        );
    }
    // A figure no total depends on is said flat, and why.
    let npv = app
        .ok_json("/v1/sweeps?gpus=1024&vary=economics.discount_rate&values=0.08,0.1")
        .await;
    assert_eq!(
        npv["warnings"][0],
        "total cost is the same at every value of economics.discount_rate for every fabric: the totals are undiscounted; it moves only the discounted figures (tco.npv_usd, tco.by_year[].discounted_usd)"
    );
    let recs = csv_rows(&app, &format!("{q}&format=csv"), rows.len()).await;
    let head = shared.join(" | ");
    for (r, j) in recs.iter().zip(rows) {
        assert!(r["warnings"].starts_with(&head), "{r:?}");
        let own = j["warnings"].as_array().unwrap();
        for w in own {
            assert!(r["warnings"].contains(w.as_str().unwrap()), "{r:?}");
        }
    }
}

/// NVL72 racks are bought whole: a `gpus` range on GB200 NVL72 is taken in whole racks, and
/// no crossover is bisected between two of them (audit 34: the report page of one rack drew
/// a crossover at 41 GPUs, 11 trays). Listed values stay as written; HGX GPUs are not touched.
#[tokio::test]
async fn an_nvl72_sweep_steps_in_whole_racks() {
    let app = spawn_app().await;
    let sizes = |v: &Value| -> Vec<u64> {
        let mut s: Vec<u64> = v["rows"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["gpus"].as_u64().unwrap())
            .collect();
        s.dedup();
        s
    };
    let racks = app
        .ok_json("/v1/sweeps?vary=gpus&from=18&to=288&steps=9&scale=geometric&gpu_model=gb200-nvl72&economics.gpu_hour_usd=4")
        .await;
    assert_eq!(sizes(&racks), [72, 144, 216, 288]);
    // 72 GPUs "a server" on NVL72 are still racks bought whole (audit 35).
    let rack_servers = app
        .ok_json(
            "/v1/sweeps?vary=gpus&from=1&to=1000&steps=5&gpu_model=gb200-nvl72&gpus_per_node=72",
        )
        .await;
    assert_eq!(sizes(&rack_servers), [72, 216, 504, 720, 1008]);
    let crossing = app
        .ok_json("/v1/sweeps?vary=gpus&from=72&to=14400&steps=60&gpu_model=gb200-nvl72&fabrics=infiniband,roce_adaptive&economics.gpu_hour_usd=4")
        .await;
    let crossovers = crossing["crossovers"].as_array().unwrap();
    assert!(!crossovers.is_empty(), "{crossing}");
    for c in crossovers {
        assert_eq!(c["exact"], false, "{c}");
        assert_eq!(c["value"].as_f64().unwrap() % 72.0, 0.0, "{c}");
    }
    let listed = app
        .ok_json("/v1/sweeps?vary=gpus&values=41,100&gpu_model=gb200-nvl72")
        .await;
    assert_eq!(sizes(&listed), [41, 100]);
    let hgx = app
        .ok_json("/v1/sweeps?vary=gpus&from=18&to=288&steps=9&scale=geometric")
        .await;
    assert_eq!(sizes(&hgx).len(), 9);
}

/// A grid's bisections leave the plan budget its later slices' grid points need: past it a
/// crossover is reported at the upper value, `"exact": false`, and the sweep answers (audit 15:
/// with five-figure crossovers costing up to 31 plans, this grid of 2 × 700 values ran out at
/// a later slice and answered 422; 2 × 1,000 values since the pipeline bubble left 700 slices
/// budget for every bisection).
#[tokio::test]
async fn a_grid_whose_bisections_run_out_reports_inexact_crossovers_not_an_error() {
    let app = spawn_app().await;
    let sw = app
        .ok_json(
            "/v1/sweeps?vary=economics.gpu_hour_usd&from=0&to=1000&steps=2\
             &vary2=gpus&from2=1024&to2=20000&steps2=1000&fabrics=infiniband,roce",
        )
        .await;
    let plans = sw["plans_computed"].as_u64().unwrap_or(u64::MAX);
    assert!((1400..=10_000).contains(&plans), "{plans}");
    let crossovers = sw["crossovers"].as_array().expect("crossovers");
    let exact = crossovers.iter().filter(|c| c["exact"] == true).count();
    assert!(
        exact > 0 && exact < crossovers.len(),
        "{exact} of {}",
        crossovers.len()
    );
    for c in crossovers.iter().filter(|c| c["exact"] == false) {
        assert_eq!(c["value"], c["between"][1], "{c}");
    }
    assert_eq!(sw["rows"].as_array().map(Vec::len), Some(2 * 1000 * 2));
}

/// A documented metric a plan has no part for is there but empty: `topology.partial_leaf.*`
/// on a cluster of whole scalable units is an empty 200, as a null figure (its CSV cell) is,
/// not "unknown metric" (audit 15); on a partly filled one it is a number.
#[tokio::test]
async fn a_partial_leaf_metric_without_a_partial_unit_has_no_value() {
    let app = spawn_app().await;
    let metric = "metric=topology.partial_leaf.uplinks&fabric=infiniband";
    let (status, _, v) = get_text(&app, &format!("/v1/value?gpus=2048&{metric}")).await;
    assert_eq!((status, v.as_str()), (200, ""), "an empty figure");
    let plan = app.ok_json("/v1/plans?gpus=2048&fabrics=infiniband").await;
    assert!(
        plan["fabrics"][0]["topology"]["partial_leaf"].is_null(),
        "{}",
        plan["fabrics"][0]["topology"]
    );
    let v = app.text(&format!("/v1/value?gpus=1056&{metric}")).await;
    assert!(v.parse::<u32>().is_ok(), "{v}");
}

/// A sheet reads the plan CSV's cells by position: the columns of earlier releases keep theirs,
/// and columns added since come last (audit 21 F5: two figures inserted before `cheapest`
/// moved it from column 41 to 43).
#[tokio::test]
async fn plan_csv_columns_keep_their_positions() {
    let app = spawn_app().await;
    let text = app.text("/v1/plans?gpus=1024&format=csv").await;
    let header: Vec<&str> = text.lines().next().unwrap_or_default().split(',').collect();
    let released = "fabric,feasible,infeasible_reason,nic_sku,topology.design,topology.tiers,\
        topology.planes,topology.switch_sku,topology.leaf_switches,topology.spine_switches,\
        topology.core_switches,topology.links.node_leaf,topology.links.leaf_spine,\
        topology.links.spine_core,capex.nics_usd,capex.switches_usd,capex.optics_usd,\
        capex.cables_usd,capex.licenses_usd,capex.total_usd,opex_per_year.power_usd,\
        opex_per_year.support_usd,opex_per_year.staff_usd,opex_per_year.licenses_usd,\
        opex_per_year.spares_usd,opex_per_year.total_usd,tco.years,tco.total_usd,\
        performance.allreduce_time_us,performance.busbw_gbytes_per_s,\
        performance.exposed_comm_ms,performance.network_exposed_ms,performance.step_time_ms,\
        performance.gpu_idle_fraction,gpu_idle.gpu_hours_per_year,\
        gpu_idle.failure_gpu_hours_per_year,gpu_idle.failure_cost_per_year_usd,\
        gpu_idle.cost_per_year_usd,gpu_idle.cost_total_usd,total_cost_usd,cheapest,catalog.id,\
        catalog.version,plan_id,warnings";
    let released: Vec<&str> = released.split(',').collect();
    assert_eq!(header[..released.len()], released[..]);
    assert_eq!(
        header[released.len()..released.len() + 4],
        [
            "tco.npv_usd",
            "cost_per_useful_gpu_hour_usd",
            "recommendation",
            "break_even_gpu_hour_usd"
        ]
    );
    // The uncertainty analysis' columns come next, there without an analysis (empty cells)
    // and with one (filled): turning the analysis on moves no column. The rules of thumb's
    // four verdicts, appended since, come last.
    let rules = [
        "rules_of_thumb.cost_gap",
        "rules_of_thumb.throughput_share",
        "rules_of_thumb.size_band",
        "rules_of_thumb.comm_threshold",
    ];
    assert_eq!(header[header.len() - 4..], rules);
    let analysis_columns = &header[released.len() + 4..header.len() - 4];
    assert_eq!(
        analysis_columns.first(),
        Some(&"uncertainty.probability_cheapest")
    );
    assert_eq!(analysis_columns.len(), 18);
    // Read from the end (`rsplitn`): the last 4 cells are the verdicts, the 18 before them
    // the analysis'.
    let row: Vec<&str> = text
        .lines()
        .nth(1)
        .unwrap_or_default()
        .rsplitn(23, ',')
        .collect();
    assert!(
        row[4..22].iter().all(|c| c.is_empty()),
        "empty without an analysis: {row:?}"
    );
    assert!(
        row[..4].iter().all(|c| ["holds", "fails"].contains(c)),
        "verdicts: {row:?}"
    );
    let with = app
        .text("/v1/plans?gpus=1024&format=csv&uncertainty.samples=20")
        .await;
    assert_eq!(with.lines().next(), text.lines().next(), "the same columns");
    let row: Vec<&str> = with
        .lines()
        .nth(1)
        .unwrap_or_default()
        .rsplitn(23, ',')
        .collect();
    assert!(
        row[4..22].iter().all(|c| !c.is_empty()),
        "filled with one: {row:?}"
    );
    // CI's LibreOffice area link reads A1:BZ20 (tests/spreadsheet/check.fods.in): 78 columns.
    let area = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/spreadsheet/check.fods.in"),
    )
    .expect("the spreadsheet check");
    assert!(
        area.contains("table:name=\"A1:BZ20\""),
        "the area is A1:BZ20"
    );
    assert!(header.len() <= 78, "{} columns past BZ", header.len());
}

/// The decimal of a JSON leaf or CSV cell (money and fractions are decimal strings).
fn dec(s: &str) -> rust_decimal::Decimal {
    s.parse().unwrap_or_else(|_| panic!("not a decimal: {s:?}"))
}

/// The BOM CSV says which prices were discounted or overridden (a buyer could not tell): its
/// last columns are each line's list price, discount off list and override flag, as the JSON
/// lines carry them; the released columns keep their places.
#[tokio::test]
async fn the_bom_csv_ends_with_list_price_discount_and_override() {
    let app = spawn_app().await;
    let bom: Value = app.ok_json(&format!("/v1/plans/bom?{Q}")).await;
    let lines = bom["rows"].as_array().unwrap();
    let (_, text) = get_ok(&app, &format!("/v1/plans/bom?{Q}&format=csv")).await;
    let rows = parse_csv(&text);
    let released = "fabric,sku,vendor,category,description,quantity,unit,unit_price_usd,\
        extended_price_usd,power_w,extended_power_w,placeholder_price,source,warnings";
    let released: Vec<&str> = released.split(',').collect();
    assert_eq!(rows[0][..released.len()], released[..]);
    assert_eq!(
        rows[0][released.len()..],
        [
            "list_unit_price_usd",
            "discount_fraction",
            "price_overridden"
        ]
    );
    let recs = csv_records(&text);
    assert_eq!(recs.len(), lines.len());
    let (mut overridden, mut discounted) = (0, 0);
    for (r, l) in recs.iter().zip(lines) {
        assert_eq!(r["sku"], l["sku"].as_str().unwrap());
        for c in ["list_unit_price_usd", "discount_fraction"] {
            assert_eq!(
                dec(&r[c]),
                dec(l[c].as_str().unwrap()),
                "{c} of {}",
                r["sku"]
            );
        }
        assert_eq!(r["price_overridden"], l["price_overridden"].to_string());
        overridden += usize::from(r["price_overridden"] == "true");
        discounted += usize::from(!dec(&r["discount_fraction"]).is_zero());
        // The unit price follows from them: the override, or list less the discount.
        let (list, off) = (dec(&r["list_unit_price_usd"]), dec(&r["discount_fraction"]));
        if r["price_overridden"] == "false" {
            let net = (list * (rust_decimal::Decimal::ONE - off)).round_dp(2);
            assert_eq!(dec(&r["unit_price_usd"]), net, "{}", r["sku"]);
        }
    }
    assert!(
        overridden > 0 && discounted > 0,
        "{overridden} {discounted}"
    );
}

/// The plan CSV carries the recommendation and the break-even GPU-hour value (a spreadsheet
/// user saw neither): the last columns, the same on every row, as the JSON plan says them;
/// the break-even empty when one fabric is cheaper at every GPU-hour value. `/v1/value`
/// answers that empty cell as an empty 200, not a 422.
#[tokio::test]
async fn the_plan_csv_ends_with_the_recommendation_and_the_break_even() {
    let app = spawn_app().await;
    let mut seen_none = false;
    for qs in ["gpus=1024", "gpus=8", "gpus=2048&fabrics=infiniband,roce"] {
        let plan = app.ok_json(&format!("/v1/plans?{qs}")).await;
        let c = &plan["comparison"];
        let (_, text) = get_ok(&app, &format!("/v1/plans?{qs}&format=csv")).await;
        let header = parse_csv(&text)[0].clone();
        // The last plan columns, before the uncertainty analysis' 18 (empty without one) and
        // the rules of thumb's 4 verdicts.
        let first_analysis = header
            .iter()
            .position(|h| h == "uncertainty.probability_cheapest")
            .expect("the analysis columns");
        assert_eq!(header.len() - first_analysis, 18 + 4);
        assert_eq!(
            header[first_analysis - 2..first_analysis],
            ["recommendation", "break_even_gpu_hour_usd"]
        );
        let recs = csv_records(&text);
        let want = &c["break_even"]["gpu_hour_usd"];
        seen_none |= want.is_null();
        let (status, h, value) = get_text(
            &app,
            &format!("/v1/value?metric=comparison.break_even.gpu_hour_usd&{qs}"),
        )
        .await;
        assert_eq!(status, 200, "{qs}: {value}");
        assert_eq!(h["content-type"], "text/plain; charset=utf-8");
        for r in &recs {
            assert_eq!(r["recommendation"], c["recommendation"].as_str().unwrap());
            assert!(!r["recommendation"].is_empty(), "{qs}");
            match want.as_str() {
                Some(d) => {
                    assert_eq!(dec(&r["break_even_gpu_hour_usd"]), dec(d), "{qs}");
                    assert_eq!(dec(&value), dec(d), "{qs}");
                }
                None => {
                    assert_eq!(r["break_even_gpu_hour_usd"], "", "{qs}");
                    assert_eq!(value, "", "{qs}");
                }
            }
        }
    }
    assert!(seen_none, "no case without a break-even");
    // A plan without a comparison is still a 422 (a wrong request, not an empty figure).
    app.problem(
        "/v1/value?metric=comparison.break_even.gpu_hour_usd&gpus=64&fabrics=roce",
        422,
    )
    .await;
}

/// A sweep CSV has no `crossovers` list: the row of each fabric at the first swept value past
/// a crossover begins its warnings with it; the other rows do not mention one.
#[tokio::test]
async fn the_sweep_csv_says_the_crossovers_in_the_warnings() {
    let app = spawn_app().await;
    let q = "/v1/sweeps?gpus=1024&vary=economics.gpu_hour_usd&from=0.1&to=500&steps=7";
    let sw = app.ok_json(q).await;
    let crossovers = sw["crossovers"].as_array().unwrap();
    assert!(!crossovers.is_empty(), "{sw}");
    let recs = csv_rows(
        &app,
        &format!("{q}&format=csv"),
        sw["rows"].as_array().unwrap().len(),
    )
    .await;
    for r in &recs {
        let value: f64 = r["economics.gpu_hour_usd"].parse().unwrap();
        let here: Vec<&Value> = crossovers
            .iter()
            .filter(|c| c["between"][1].as_f64() == Some(value))
            .collect();
        if here.is_empty() {
            assert!(!r["warnings"].contains("crossover"), "{r:?}");
            continue;
        }
        for c in here {
            let want = format!(
                "crossover: {} is cheapest below economics.gpu_hour_usd={} and {} from there",
                fabric_name(&c["from_fabric"]),
                c["value"],
                fabric_name(&c["to_fabric"])
            );
            assert!(r["warnings"].starts_with(&want), "{want} in {r:?}");
        }
    }
}

fn fabric_name(f: &Value) -> &'static str {
    match f.as_str() {
        Some("infiniband") => "InfiniBand",
        Some("roce") => "RoCE (ECMP)",
        Some("roce_adaptive") => "adaptive-routing Ethernet",
        other => panic!("fabric {other:?}"),
    }
}

/// A swept decimal input is written as its short decimal in JSON and CSV rows (0.01 + 5 ×
/// 0.01 printed as 0.060000000000000005, which no lookup of 0.06 finds), and planned at it:
/// the row's plan is the plan of the value as written.
#[tokio::test]
async fn a_swept_decimal_input_is_its_short_decimal() {
    let app = spawn_app().await;
    let q =
        "/v1/sweeps?gpus=1024&fabrics=roce&vary=economics.discount_rate&from=0.01&to=0.1&steps=10";
    let sw = app.ok_json(q).await;
    let want: Vec<String> = (1..=10)
        .map(|i| rust_decimal::Decimal::new(i, 2).normalize().to_string())
        .collect();
    let rows = sw["rows"].as_array().unwrap();
    let got: Vec<String> = rows
        .iter()
        .map(|r| r["economics.discount_rate"].to_string())
        .collect();
    assert_eq!(got, want);
    let values: Vec<String> = rows.iter().map(|r| r["value"].to_string()).collect();
    assert_eq!(values, want);
    let recs = csv_rows(&app, &format!("{q}&format=csv"), rows.len()).await;
    let cells: Vec<&str> = recs
        .iter()
        .map(|r| r["economics.discount_rate"].as_str())
        .collect();
    assert_eq!(cells, want);
    for (r, v) in rows.iter().zip(&want) {
        let plan = app
            .ok_json(&format!(
                "/v1/plans?gpus=1024&fabrics=roce&economics.discount_rate={v}"
            ))
            .await;
        assert_eq!(r["plan_id"], plan["plan_id"], "at {v}");
    }
}

/// A sweep point the plan cannot take is blamed on the sweep field that put the value there,
/// not on the base (audit 28 F3: `/base/gpus` and `/base/prices/overrides/…`, inputs the
/// request's base did not give).
#[tokio::test]
async fn a_sweep_points_error_names_the_sweeps_own_field() {
    let app = spawn_app().await;
    for (body, pointer, part) in [
        (
            json!({"vary": "prices.overrides.nvidia-sn5600", "values": [1e-30, 5], "base": {"gpus": 64}}),
            "/values/0",
            "plain decimal notation",
        ),
        (
            json!({"vary": "gpus", "values": [1024, 600000], "base": {"gpus": 64}}),
            "/vary",
            "at gpus=600000: no fabric can be built",
        ),
        (
            json!({"vary": "gpus", "from": 1024, "to": 2048, "steps": 2, "base": {"gpus": 64, "nics_per_node": 8},
                "vary2": "economics.years", "values2": [3, 20]}),
            "/values2",
            "",
        ),
    ] {
        let res = app.post_json("/v1/sweeps", &body).await;
        let p = assert_problem(res, 422).await;
        let at = p["errors"][0]["pointer"].as_str().unwrap();
        assert!(at.starts_with(pointer), "{p}");
        assert!(
            p["errors"][0]["detail"].as_str().unwrap().contains(part),
            "{p}"
        );
    }
    let p = app
        .problem("/v1/sweeps?vary=gpus&from=1024&to=1000000&steps=3", 422)
        .await;
    assert_eq!(p["errors"][0]["pointer"], "/vary", "{p}");
    // A first value the plan cannot take, on GET too (audit 31: it named nic_speed_gbps, a
    // parameter the request did not give).
    for (q, pointer) in [
        ("from=300&to=800&steps=3", "/from"),
        ("values=300,800", "/values/0"),
    ] {
        let p = app
            .problem(&format!("/v1/sweeps?gpus=64&vary=nic_speed_gbps&{q}"), 422)
            .await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{p}");
    }
}

#[tokio::test]
async fn a_cell_can_get_the_name_of_the_cheapest_fabric() {
    let app = crate::spawn_app().await;
    let plan = app.json("/v1/plans?gpus=2048&gpu_model=b200").await;
    let name = app
        .text("/v1/value?gpus=2048&gpu_model=b200&metric=comparison.cheapest_fabric")
        .await;
    assert_eq!(
        name,
        plan["comparison"]["cheapest_fabric"]
            .as_str()
            .expect("name")
    );
    let runner = app
        .text("/v1/value?gpus=2048&gpu_model=b200&metric=comparison.break_even.runner_up_fabric")
        .await;
    assert!(
        ["infiniband", "roce", "roce_adaptive"].contains(&runner.as_str()),
        "{runner}"
    );
    // Other text is still not a value.
    let p = app
        .problem("/v1/value?gpus=2048&metric=comparison.recommendation", 422)
        .await;
    assert_eq!(p["errors"][0]["code"], "not_numeric");
}

#[tokio::test]
async fn days_to_train_is_a_value_a_cell_can_read() {
    let app = crate::spawn_app().await;
    let q = "gpus=4096&workload.train_tokens=15e12";
    let plan = app.json(&format!("/v1/plans?{q}")).await;
    let days = app
        .text(&format!(
            "/v1/value?{q}&metric=training.days_to_train&fabric=roce"
        ))
        .await;
    let roce = plan["fabrics"]
        .as_array()
        .expect("fabrics")
        .iter()
        .find(|f| f["fabric"] == "roce")
        .expect("roce");
    assert_eq!(
        days.parse::<f64>().ok(),
        roce["training"]["days_to_train"].as_f64()
    );
    // Without a run the cell is empty, as its CSV cell would be.
    assert_eq!(
        app.text("/v1/value?gpus=4096&metric=training.days_to_train&fabric=roce")
            .await,
        ""
    );
    app.problem_at(
        "/v1/plans?gpus=4096&workload.train_tokens=0",
        422,
        "/workload/train_tokens",
    )
    .await;
}

/// `errors=text`: a spreadsheet cell (`=WEBSERVICE(…)`) shows only `Err:540` for a 4xx, so the
/// problem can be asked as one line of text with a 200, its status in `X-Error-Status`; a valid
/// request answers as without it, and an unknown `errors` value is itself a 422.
#[tokio::test]
async fn value_errors_can_be_asked_as_one_line_of_text() {
    let app = spawn_app().await;
    let res = app
        .get("/v1/value?metric=total_cost_usd&fabric=nope&gpus=1024&errors=text")
        .await;
    assert_eq!(res.status(), 200);
    assert_eq!(res.headers()["x-error-status"], "422");
    assert!(
        res.headers()["content-type"]
            .to_str()
            .unwrap_or("")
            .starts_with("text/plain")
    );
    let line = res.text().await.expect("text");
    assert!(
        line.starts_with("Error 422: ") && line.contains("'fabric'") && !line.contains('\n'),
        "{line}"
    );
    let res = app
        .get("/v1/value?metric=total_cost_usd&fabric=roce&gpus=0&errors=text")
        .await;
    assert_eq!(res.status(), 200);
    let line = res.text().await.expect("text");
    assert!(
        line.starts_with("Error 422: ") && line.contains("gpus"),
        "{line}"
    );
    // Valid: the same number as without it.
    let plain = app
        .text("/v1/value?metric=total_cost_usd&fabric=roce&gpus=1024")
        .await;
    let asked = app
        .text("/v1/value?metric=total_cost_usd&fabric=roce&gpus=1024&errors=text")
        .await;
    assert_eq!(plain, asked);
    assert!(plain.parse::<rust_decimal::Decimal>().is_ok(), "{plain}");
    // Without it, or with errors=problem: the problem document.
    app.problem("/v1/value?metric=total_cost_usd&fabric=nope&gpus=1024", 422)
        .await;
    app.problem(
        "/v1/value?metric=total_cost_usd&fabric=nope&gpus=1024&errors=problem",
        422,
    )
    .await;
    let p = app
        .problem("/v1/value?metric=total_cost_usd&gpus=1024&errors=html", 422)
        .await;
    assert_eq!(p["errors"][0]["pointer"], "/errors", "{p}");
}

/// The sheets of a served workbook, in order, and one part's XML.
fn workbook_parts(bytes: &[u8], part: &str) -> (Vec<String>, String) {
    use std::io::Read;
    let mut zip = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("an xlsx is a zip");
    let mut book = String::new();
    zip.by_name("xl/workbook.xml")
        .expect("workbook part")
        .read_to_string(&mut book)
        .expect("utf-8");
    let sheets = book
        .split("<sheet ")
        .skip(1)
        .filter_map(|s| {
            s.split("name=\"")
                .nth(1)?
                .split('"')
                .next()
                .map(str::to_string)
        })
        .collect();
    let mut xml = String::new();
    zip.by_name(part)
        .expect("part")
        .read_to_string(&mut xml)
        .expect("utf-8");
    (sheets, xml)
}

/// `format=xlsx` on a plan (GET, POST, `Accept`): a workbook with live formulas, its own
/// entity tag and a file name; the BOM and sweeps offer no workbook (422 listing what they do).
/// LibreOffice recalculates it against the API in CI (tests/spreadsheet/xlsx_check.py).
#[tokio::test]
async fn plans_answer_a_workbook_with_live_formulas() {
    let app = spawn_app().await;
    let plan = app.ok_json("/v1/plans?gpus=64").await;
    let res = app.get("/v1/plans?gpus=64&format=xlsx").await;
    assert_eq!(res.status(), 200);
    let h = res.headers().clone();
    assert_eq!(
        h["content-type"],
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
    );
    let id = plan["plan_id"].as_str().unwrap();
    assert_eq!(h["etag"], format!("\"{id}-xlsx\"").as_str());
    assert_eq!(
        h["content-disposition"],
        format!("attachment; filename=\"fabric-tco-{id}.xlsx\"").as_str()
    );
    let bytes = res.bytes().await.unwrap();
    let (sheets, side) = workbook_parts(&bytes, "xl/worksheets/sheet6.xml");
    assert_eq!(
        sheets,
        [
            "Summary",
            "Assumptions",
            "BOM infiniband",
            "BOM roce",
            "BOM roce_adaptive",
            "Side by side",
            "Opex by year",
            "Depreciation",
            "Uncertainty",
            "Warnings"
        ]
    );
    // Live formulas, each with the API's figure as its cached result.
    assert!(side.contains("<f>SUMIF('BOM infiniband'!$C$2"), "{side}");
    let ib = &plan["fabrics"][0];
    for figure in [
        &ib["capex"]["total_usd"],
        &ib["tco"]["total_usd"],
        &ib["total_cost_usd"],
    ] {
        let v: f64 = figure.as_str().unwrap().parse().unwrap();
        assert!(
            side.contains(&format!("<v>{v}</v>")),
            "{figure} cached in {side}"
        );
    }
    let tagged = app
        .client
        .get(app.url("/v1/plans?gpus=64&format=xlsx"))
        .header("If-None-Match", format!("\"{id}-xlsx\""))
        .send()
        .await
        .unwrap();
    assert_eq!(tagged.status(), 304);
    // By Accept, and on POST.
    let accepted = app
        .client
        .get(app.url("/v1/plans?gpus=64"))
        .header(
            "Accept",
            "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        )
        .send()
        .await
        .unwrap();
    assert_eq!(accepted.bytes().await.unwrap()[..2], *b"PK");
    let posted = app
        .client
        .post(app.url("/v1/plans?format=xlsx"))
        .json(&json!({"gpus": 64}))
        .send()
        .await
        .unwrap();
    assert_eq!(posted.status(), 200);
    assert_eq!(posted.bytes().await.unwrap()[..2], *b"PK");
    // The BOM offers none (a 422 listing what it offers).
    let p = app
        .problem_at("/v1/plans/bom?gpus=64&format=xlsx", 422, "/format")
        .await;
    assert!(
        p["errors"][0]["detail"].as_str().unwrap().contains("'csv'"),
        "{p}"
    );
    // A sweep's workbook: its rows as values, its crossovers, its warnings.
    let sweep = app
        .get("/v1/sweeps?gpus=64&vary=gpus&values=64,128&fabrics=infiniband,roce&format=xlsx")
        .await;
    assert_eq!(sweep.status(), 200);
    assert!(
        sweep.headers()["etag"]
            .to_str()
            .unwrap()
            .ends_with("-xlsx\"")
    );
    let bytes = sweep.bytes().await.unwrap();
    let (sheets, rows) = workbook_parts(&bytes, "xl/worksheets/sheet1.xml");
    assert_eq!(sheets, ["Rows", "Crossovers", "Warnings"]);
    // Two values × two fabrics, under the header.
    assert_eq!(rows.matches("<row ").count(), 5, "{rows}");
}
