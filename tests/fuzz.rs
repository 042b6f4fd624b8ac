//! Fuzzing, bounded (#44): the three ways untrusted bytes enter the service — a JSON body, a
//! query string and a catalog (remote catalogs are fetched) — driven by proptest with a fixed
//! number of cases each, so `cargo test` runs them in CI in seconds. Each input must end in a
//! value or an error, never a panic, and a request that parses must plan or fail with an error
//! (the service's 422), never a panic or an overflow.
//!
//! Inputs: raw bytes; JSON documents built from the request's own field names (so most reach
//! the typed layer and the planner, not only the parser); query strings from the same names;
//! and the embedded catalog with one figure replaced by an extreme or ill-typed value.
//! `FUZZ_CASES` (default 400 a target) runs more: `FUZZ_CASES=20000 cargo test --test fuzz`.

use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use serde_json::{Value, json};

use fabric_tco::api::extract::{parse_json, validate};
use fabric_tco::api::query::Query;
use fabric_tco::catalog::{Catalog, CatalogSet};
use fabric_tco::plan::{PlanRequest, build_plan};

fn cases() -> u32 {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

fn runner() -> TestRunner {
    TestRunner::new(Config {
        cases: cases(),
        failure_persistence: None,
        ..Config::default()
    })
}

/// Names a request holds (top level and nested), to build documents that reach the planner.
#[rustfmt::skip]
const NAMES: &[&str] = &[
    "gpus", "gpu_model", "gpus_per_node", "nics_per_node", "nic_speed_gbps", "fabrics",
    "catalog", "topology", "oversubscription", "rail_optimized", "planes", "max_tiers",
    "switch_sku", "design", "nodes_per_rack", "nvlink_domain", "workload", "preset",
    "message_bytes", "model_params_billion", "tensor_parallel", "pipeline_parallel",
    "expert_parallel", "data_parallel_mode", "step_compute_ms", "train_tokens", "mfu",
    "background_load", "a2a_overlap", "economics", "years", "electricity_usd_per_kwh", "pue",
    "gpu_hour_usd", "depreciation_years", "prices", "overrides", "discounts", "vendor",
    "uncertainty", "samples", "seed", "inputs", "nccl", "algorithm", "protocol", "channels",
    "reliability", "utilization", "busy_fraction", "model", "ecmp_efficiency",
];

/// Values that sit on and past every kind of bound.
fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>()
            .prop_map(|f| serde_json::Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(vec![
            json!(0),
            json!(1),
            json!(-1),
            json!(8),
            json!(1024),
            json!(100_000),
            json!(1_000_000),
            json!(1e308),
            json!(-0.0),
            json!("1e3"),
            json!("0.085"),
            json!("-0"),
            json!(""),
            json!("h100"),
            json!("gb200-nvl72"),
            json!("infiniband"),
            json!("roce"),
            json!("roce_adaptive"),
            json!("nvidia-qm9700"),
            json!("auto"),
            json!(null),
            json!("79228162514264337593543950335"),
            json!("\u{0000}"),
            json!("＝1+1"),
        ]),
        "[a-z0-9_.-]{0,12}".prop_map(Value::from),
    ]
}

/// JSON documents from the request's names, three levels deep.
fn document() -> impl Strategy<Value = Value> {
    let name = prop::sample::select(NAMES.to_vec());
    leaf().prop_recursive(3, 24, 6, move |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::btree_map(name.clone(), inner, 0..6).prop_map(|m| Value::Object(
                m.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

/// Fields where the request has them (group, field; no group: top level).
#[rustfmt::skip]
const FIELDS: &[(&str, &str)] = &[
    ("", "gpu_model"), ("", "nic_speed_gbps"), ("", "gpus_per_node"), ("", "nics_per_node"),
    ("topology", "oversubscription"), ("topology", "planes"), ("topology", "max_tiers"),
    ("topology", "switch_sku"), ("topology", "rail_optimized"), ("topology", "nvlink_domain"),
    ("topology", "design"), ("workload", "preset"), ("workload", "message_bytes"),
    ("workload", "tensor_parallel"), ("workload", "pipeline_parallel"),
    ("workload", "step_compute_ms"), ("workload", "mfu"), ("workload", "background_load"),
    ("workload", "train_tokens"), ("workload", "a2a_overlap"), ("economics", "years"),
    ("economics", "pue"), ("economics", "gpu_hour_usd"), ("economics", "depreciation_years"),
    ("economics", "electricity_usd_per_kwh"), ("nccl", "algorithm"), ("nccl", "channels"),
    ("nccl", "qps_per_connection"), ("model", "ecmp_efficiency"), ("utilization", "busy_fraction"),
];

/// Documents shaped as the request is: each field in its group, with an edge value.
fn shaped() -> impl Strategy<Value = Value> {
    let small = prop_oneof![
        (1u32..200).prop_map(Value::from),
        (0.0f64..4.0).prop_map(|f| json!(f)),
        prop::sample::select(vec![
            json!("0.5"),
            json!("1.2"),
            json!(true),
            json!("tray"),
            json!("ring"),
            json!("dualpipe"),
            json!("moe-deepseek-v3"),
            json!("b200"),
            json!("gb300-nvl72"),
            json!(800)
        ]),
    ];
    let field = (
        prop::sample::select(FIELDS.to_vec()),
        prop_oneof![6 => small, 1 => leaf()],
    );
    (1u32..20_000, prop::collection::vec(field, 0..4)).prop_map(|(gpus, fields)| {
        let mut doc = json!({"gpus": gpus});
        for ((group, name), value) in fields {
            if group.is_empty() {
                doc[name] = value;
            } else {
                doc[group][name] = value;
            }
        }
        doc
    })
}

/// A body that parses and validates is planned: a value or an error, never a panic. True when
/// it reached the planner.
fn plan_if_valid(bytes: &[u8], catalogs: &CatalogSet) -> bool {
    if let Ok(req) = parse_json::<PlanRequest>(bytes)
        && validate(&req).is_ok()
    {
        plan(req, catalogs);
        return true;
    }
    false
}

/// Plans `req`, its analysis (if any) cut to a few samples: the fuzz is about what a request
/// can make the planner do, not about waiting for 100,000 debug-build samples.
fn plan(mut req: PlanRequest, catalogs: &CatalogSet) {
    if let Some(u) = req.uncertainty.as_mut() {
        u.samples = fabric_tco::plan::request::Samples::new(8);
    }
    let _ = build_plan(&req, catalogs);
}

#[test]
fn json_bodies_of_raw_bytes_never_panic() {
    let catalogs = CatalogSet::embedded().expect("catalog");
    runner()
        .run(&prop::collection::vec(any::<u8>(), 0..512), |bytes| {
            let _ = plan_if_valid(&bytes, &catalogs);
            Ok(())
        })
        .expect("no panic");
}

#[test]
fn json_bodies_built_from_the_requests_names_never_panic() {
    let catalogs = CatalogSet::embedded().expect("catalog");
    let free = (document(), 1u32..5000).prop_map(|(mut d, gpus)| {
        // Most documents carry a GPU count, so that they reach the planner.
        if let Value::Object(m) = &mut d {
            m.entry("gpus").or_insert(json!(gpus));
        }
        d
    });
    let body = prop_oneof![free, shaped()];
    let planned = std::sync::atomic::AtomicU32::new(0);
    runner()
        .run(&body, |d| {
            let bytes = serde_json::to_vec(&d).expect("json");
            if plan_if_valid(&bytes, &catalogs) {
                planned.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            Ok(())
        })
        .expect("no panic");
    // The documents are worth their time only if many reach the planner (about a fifth do).
    let planned = planned.into_inner();
    eprintln!("{planned} of {} documents planned", cases());
    assert!(
        planned * 8 >= cases(),
        "only {planned} of {} documents reached the planner",
        cases()
    );
}

#[test]
fn query_strings_never_panic() {
    let catalogs = CatalogSet::embedded().expect("catalog");
    let pair = (
        prop::sample::select(NAMES.to_vec()),
        prop::option::of(prop::sample::select(NAMES.to_vec())),
        prop_oneof![
            "[ -~]{0,16}".prop_map(|s| s),
            prop::sample::select(vec![
                "1024".to_string(),
                "%ZZ".to_string(),
                "%00".to_string(),
                "1e308".to_string(),
                "18446744073709551616".to_string(),
                "infiniband,roce".to_string(),
                "0.085".to_string(),
                "".to_string(),
                "%E2%82".to_string(),
            ]),
        ],
    )
        .prop_map(|(a, b, v)| match b {
            Some(b) => format!("{a}.{b}={v}"),
            None => format!("{a}={v}"),
        });
    let qs = prop::collection::vec(pair, 0..8).prop_map(|p| p.join("&"));
    runner()
        .run(&qs, |qs| {
            if let Ok(q) = Query::parse(&qs)
                && let Ok(req) = q.plan_request(&["format"])
            {
                plan(req, &catalogs);
            }
            Ok(())
        })
        .expect("no panic");
    // Raw bytes as a query string, too.
    runner()
        .run(&"\\PC{0,64}", |qs| {
            let _ = Query::parse(&qs).map(|q| q.plan_request(&["format"]));
            Ok(())
        })
        .expect("no panic");
}

/// Every leaf of the catalog, as a JSON pointer.
fn leaves(v: &Value, at: String, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                leaves(
                    x,
                    format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")),
                    out,
                );
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().enumerate() {
                leaves(x, format!("{at}/{i}"), out);
            }
        }
        _ => out.push(at),
    }
}

#[test]
fn catalogs_with_one_figure_changed_load_or_are_refused_and_plan_without_panic() {
    let text = std::fs::read("pricing/default.json").expect("catalog");
    let base: Value = serde_json::from_slice(&text).expect("json");
    let mut pointers = Vec::new();
    leaves(&base, String::new(), &mut pointers);
    let change = (prop::sample::select(pointers), leaf());
    runner()
        .run(&change, |(pointer, value)| {
            let mut doc = base.clone();
            if let Some(slot) = doc.pointer_mut(&pointer) {
                *slot = value;
            }
            let bytes = serde_json::to_vec(&doc).expect("json");
            if let Ok(c) = Catalog::parse("fuzz", &bytes)
                && let Ok(set) = CatalogSet::new(vec![c])
            {
                // A catalog that loads plans a cluster of each size class without panicking.
                for gpus in [8, 1024, 65_536] {
                    let req: PlanRequest =
                        serde_json::from_value(json!({"gpus": gpus})).expect("request");
                    let _ = build_plan(&req, &set);
                }
            }
            Ok(())
        })
        .expect("no panic");
    // Truncated catalogs: every prefix length class.
    runner()
        .run(&(0..text.len()), |n| {
            let _ = Catalog::parse("fuzz", &text[..n]);
            Ok(())
        })
        .expect("no panic");
}
