//! A plan in a loop, for `perf record` (docs/performance.md, "Where a plan's time goes").
//! `cargo build --release --example profile_plan && perf record --call-graph dwarf target/release/examples/profile_plan`
use fabric_tco::catalog::CatalogSet;
use fabric_tco::plan::{PlanRequest, build_plan};

fn main() {
    let cats = CatalogSet::embedded().expect("catalog");
    let req: PlanRequest =
        serde_json::from_value(serde_json::json!({"gpus": 1024})).expect("request");
    let n: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20_000);
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(build_plan(&req, &cats).expect("plan"));
    }
    println!(
        "{:.1} µs a plan (1,024 GPUs, three fabrics, {n} plans)",
        t.elapsed().as_secs_f64() / f64::from(n) * 1e6
    );
}
