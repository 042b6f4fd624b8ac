//! Criterion: `POST /v1/fit`'s work in process (`plan::fit::fit`), the fits a buyer asks most:
//! $60M over 5 years of H100 on three fabrics (about 1,000 GPUs), $1B of B200 (about 20,000),
//! a 100 MW hall of GB200 NVL72 racks, and $100k (nothing fits). Target: under 100 ms each
//! (issue #43); docs/performance.md records the figures.
//!
//! `cargo bench --bench fit -- --warm-up-time 1 --measurement-time 5`

use criterion::{Criterion, criterion_group, criterion_main};
use fabric_tco::catalog::CatalogSet;
use fabric_tco::plan::fit::{Budget, FitRequest, fit};
use fabric_tco::plan::{Effort, PlanRequest};

fn request(plan: serde_json::Value, budget: serde_json::Value) -> FitRequest {
    let mut plan = plan;
    plan["gpus"] = serde_json::json!(1);
    FitRequest {
        budget: serde_json::from_value::<Budget>(budget).expect("budget"),
        plan: serde_json::from_value::<PlanRequest>(plan).expect("plan"),
    }
}

fn bench(c: &mut Criterion) {
    let cats = CatalogSet::embedded().expect("catalog");
    let mut group = c.benchmark_group("fit");
    group.sample_size(20);
    for (name, plan, budget) in [
        (
            "h100_60m_total_3_fabrics",
            serde_json::json!({"gpu_model": "h100"}),
            serde_json::json!({"total_usd": "60000000"}),
        ),
        (
            "b200_1b_capex_3_fabrics",
            serde_json::json!({"gpu_model": "b200"}),
            serde_json::json!({"capex_usd": "1000000000"}),
        ),
        (
            "gb200_nvl72_100mw_infiniband",
            serde_json::json!({"gpu_model": "gb200-nvl72", "fabrics": ["infiniband"]}),
            serde_json::json!({"facility_mw": "100"}),
        ),
        (
            "h100_100k_nothing_fits",
            serde_json::json!({"gpu_model": "h100"}),
            serde_json::json!({"capex_usd": "100000"}),
        ),
    ] {
        let req = request(plan, budget);
        group.bench_function(name, |b| {
            b.iter(|| fit(&req, &cats, Effort::default()).expect("fit"))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
