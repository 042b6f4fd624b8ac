//! The analysis against the point plan, itself, and hand-checked cases.

use rust_decimal::Decimal;
use serde_json::json;

use crate::catalog::CatalogSet;
use crate::fabric::Fabric;
use crate::plan::{Plan, PlanRequest, build_plan};

fn cats() -> CatalogSet {
    CatalogSet::embedded().expect("catalog")
}

fn plan(v: serde_json::Value) -> Plan {
    let req: PlanRequest = serde_json::from_value(v).expect("request");
    build_plan(&req, &cats()).expect("plan")
}

fn d(s: &str) -> Decimal {
    s.parse().expect("decimal")
}

#[test]
fn smoke_prints_a_1024_gpu_analysis() {
    let t = std::time::Instant::now();
    let p = plan(json!({"gpus": 1024, "uncertainty": {"samples": 1000, "seed": 7, "inputs": {}}}));
    eprintln!("{:?}", t.elapsed());
    let u = p.uncertainty.expect("analysis");
    eprintln!("{}", serde_json::to_string_pretty(&u.fabrics).unwrap());
    for e in u.tornado.iter().take(5) {
        eprintln!(
            "{} swing {} flips {:?}: {}",
            e.input, e.swing_usd, e.flips_at, e.reason
        );
    }
    for r in &u.reasons {
        eprintln!("{r}");
    }
    let _ = (d("1"), Fabric::Roce);
}
