//! Criterion: Monte Carlo batches of the uncertainty analysis (docs/uncertainty.md), in
//! process — the plan for 1,024 H100 GPUs on three fabrics, with the catalog's price ranges
//! only (re-pricing) and with request-level inputs (re-resolving and re-running the
//! performance model each sample), on one thread and on two.
//!
//! `cargo bench --bench uncertainty -- --warm-up-time 1 --measurement-time 5`

use criterion::{Criterion, criterion_group, criterion_main};
use fabric_tco::catalog::CatalogSet;
use fabric_tco::plan::{Effort, PlanRequest, build};

fn request(samples: u32, inputs: serde_json::Value) -> PlanRequest {
    serde_json::from_value(serde_json::json!({
        "gpus": 1024,
        "uncertainty": {"samples": samples, "seed": 7, "inputs": inputs}
    }))
    .expect("request")
}

fn bench(c: &mut Criterion) {
    let cats = CatalogSet::embedded().expect("catalog");
    let mut group = c.benchmark_group("uncertainty");
    group.sample_size(10);
    for (name, inputs) in [
        ("catalog_prices", serde_json::json!({})),
        (
            "prices_and_job",
            serde_json::json!({"economics.gpu_hour_usd": "1,2,4", "workload.background_load": "0,0.3"}),
        ),
    ] {
        let req = request(10_000, inputs);
        // One thread, and two (the API gives an analysis every free computing permit).
        for (suffix, threads) in [("", 1), ("/2_threads", 2)] {
            let effort = Effort {
                deadline: None,
                threads,
            };
            group.bench_function(
                format!("1024_gpus_3_fabrics_10000_samples/{name}{suffix}"),
                |b| b.iter(|| build(&req, &cats, effort).expect("plan")),
            );
        }
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
