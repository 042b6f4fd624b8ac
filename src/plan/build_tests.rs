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

#[test]
fn comparison_reasons_read_like_sentences_with_separators_and_bounds() {
    let cats = CatalogSet::embedded().expect("catalog");
    let mut beyond = 0;
    for gpus in [64, 1024, 16_384] {
        let req: PlanRequest = serde_json::from_value(json!({ "gpus": gpus })).expect("request");
        let plan = build_plan(&req, &cats).expect("plan");
        let c = plan.comparison.expect("three fabrics");
        for r in &c.reasons {
            assert!(r.chars().next().is_some_and(char::is_uppercase), "{r}");
            for part in r.split('$').skip(1) {
                let digits = part.chars().take_while(char::is_ascii_digit).count();
                assert!(digits <= 3, "money without separators: {r}");
            }
        }
        // The break-even GPU-hour value is within the values a plan accepts, or said not to be.
        let star = c.break_even.gpu_hour_usd.expect("a break-even");
        let last = c.reasons.last().expect("reasons");
        if star > rust_decimal::Decimal::from(crate::cost::GPU_HOUR_USD_MAX) {
            assert!(
                last.starts_with("No GPU-hour value from $0 to $1,000.00 per GPU-hour"),
                "{last}"
            );
            beyond += 1;
        } else {
            assert!(
                last.starts_with("Above") || last.starts_with("Below"),
                "{last}"
            );
        }
    }
    assert!(
        beyond > 0,
        "64 GPUs: the break-even lies beyond $1,000 per GPU-hour"
    );
}
