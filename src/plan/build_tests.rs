//! The pipeline's own steps: sizing remembered across plans.

use serde_json::json;

use crate::catalog::CatalogSet;
use crate::plan::{PlanRequest, SizingMemo, build_plan, build_with};

#[test]
fn remembered_sizing_gives_the_same_plans_as_sizing_again() {
    // A sweep over inputs sizing does not read reuses the sized fabrics; a change of a sizing
    // input (GPUs, a price override that can change the chosen design) sizes again.
    let cats = CatalogSet::embedded().expect("catalog");
    let mut memo = SizingMemo::default();
    let reqs = [
        json!({"gpus": 1024, "economics": {"gpu_hour_usd": "1.5"}}),
        json!({"gpus": 1024, "economics": {"gpu_hour_usd": "9", "years": 3}}),
        json!({"gpus": 1024, "workload": {"preset": "moe-deepseek-v3"}, "utilization": {"busy_fraction": "0.5"}}),
        json!({"gpus": 2048, "economics": {"gpu_hour_usd": "9"}}),
        json!({"gpus": 2048, "prices": {"overrides": {"nvidia-qm9700": "1000"}}}),
        json!({"gpus": 2048, "reliability": {"restart_minutes": 60}, "prices": {"overrides": {"nvidia-qm9700": "1000"}}}),
    ];
    for v in &reqs {
        let req: PlanRequest = serde_json::from_value(v.clone()).expect("request");
        let fresh = build_plan(&req, &cats).expect("plan");
        let (remembered, _) = build_with(&req, &cats, None, Some(&mut memo)).expect("plan");
        assert_eq!(
            serde_json::to_string(&fresh).expect("json"),
            serde_json::to_string(&remembered).expect("json"),
            "{v}"
        );
    }
    assert_eq!(
        memo.hits, 3,
        "three requests differ from the one before only in non-sizing inputs"
    );
}
