//! One full `evaluate` for 8 GPUs and for 1,000,000 GPUs: the cost must not grow with GPU count.
//! And one whole plan (sizing, BOM, performance, cost, comparison for three fabrics) at 1,024
//! GPUs, without and with its JSON serialization: what `POST /v1/plans` costs besides HTTP.

use criterion::{Criterion, criterion_group, criterion_main};
use fabric_tco::fabric::Fabric;
use fabric_tco::perf::{
    FabricPath, GpuSpec, NicSpec, PerfInput, Workload, WorkloadPreset, evaluate, gpu_default,
};
use std::hint::black_box;

fn input(gpus: u32, fabric: Fabric, gpu: GpuSpec) -> PerfInput {
    PerfInput {
        gpus,
        gpus_per_node: 8,
        nics_per_node: 8,
        gpu,
        nic: NicSpec {
            speed_gbps: 400,
            pcie_gen: 5,
            pcie_lanes: 16,
        },
        path: FabricPath::rail_optimized(fabric, 3, 32, 300.0),
        workload: Workload::default(),
    }
}

fn bench(c: &mut Criterion) {
    // The model's own H100 figures (sourced in src/perf); nothing to measure without them.
    let Some(h100) = gpu_default("h100") else {
        return;
    };
    let mut group = c.benchmark_group("evaluate");
    for (name, gpus) in [("8_gpus", 8u32), ("1000000_gpus", 1_000_000)] {
        for fabric in [Fabric::Infiniband, Fabric::Roce] {
            let mut i = input(gpus, fabric, h100);
            if gpus == 8 {
                // One node cannot hold a TP·PP = 32 replica: measure the single-collective path.
                i.workload.message_bytes = Some(1 << 30);
            }
            group.bench_function(format!("{name}/{}", fabric.as_str()), |b| {
                b.iter(|| evaluate(black_box(&i)))
            });
        }
    }
    // Every collective of a preset job: still closed form, so 1,024 and 1,000,000 GPUs cost
    // the same.
    for preset in [
        WorkloadPreset::MoeDeepseekV3,
        WorkloadPreset::FsdpLlama2_70b,
    ] {
        for gpus in [1024u32, 1_000_000] {
            let mut i = input(gpus, Fabric::Roce, h100);
            i.workload = preset.workload();
            group.bench_function(format!("{}/{gpus}_gpus", preset.as_str()), |b| {
                b.iter(|| evaluate(black_box(&i)))
            });
        }
    }
    group.finish();
}

/// The embedded catalog and a three-fabric 1,024-GPU plan request.
fn catalog_and_request() -> Option<(
    fabric_tco::catalog::CatalogSet,
    fabric_tco::plan::PlanRequest,
)> {
    let cats = fabric_tco::catalog::CatalogSet::embedded().ok()?;
    let req = serde_json::from_value(serde_json::json!({
        "gpus": 1024, "fabrics": ["infiniband", "roce", "roce_adaptive"]
    }))
    .ok()?;
    Some((cats, req))
}

fn bench_plan(c: &mut Criterion) {
    let Some((cats, req)) = catalog_and_request() else {
        return;
    };
    let mut group = c.benchmark_group("plan");
    group.bench_function("1024_gpus_3_fabrics/build", |b| {
        b.iter(|| fabric_tco::plan::build_plan(black_box(&req), &cats))
    });
    // What a sweep point builds: the same figures, no BOM lines or comparison text.
    let figures = || {
        fabric_tco::plan::build_with(
            black_box(&req),
            &cats,
            fabric_tco::plan::Effort::default(),
            None,
            fabric_tco::plan::Detail::Figures,
        )
    };
    group.bench_function("1024_gpus_3_fabrics/figures", |b| b.iter(figures));
    // What `GET /v1/plans?format=csv` computes: a figures plan and its CSV rows.
    group.bench_function("1024_gpus_3_fabrics/figures+csv", |b| {
        b.iter(|| {
            figures()
                .ok()
                .and_then(|p| fabric_tco::table::plan_csv(&p).ok())
        })
    });
    group.bench_function("1024_gpus_3_fabrics/build+json", |b| {
        b.iter(|| {
            fabric_tco::plan::build_plan(black_box(&req), &cats)
                .ok()
                .and_then(|p| p.to_json().ok())
        })
    });
    // What `POST /v1/plans` does with the body before planning: strict parse, shape check,
    // typing (`api::extract::parse_json`).
    let body =
        br#"{"gpus":1024,"gpu_model":"h100","fabrics":["infiniband","roce","roce_adaptive"]}"#;
    group.bench_function("1024_gpus_3_fabrics/request", |b| {
        b.iter(|| {
            fabric_tco::api::extract::parse_json::<fabric_tco::plan::PlanRequest>(black_box(body))
                .is_ok()
        })
    });
    group.finish();
    // The same plan at other cluster sizes: the target is a cost constant in the number of GPUs.
    let mut group = c.benchmark_group("plan_by_size");
    for gpus in [16u32, 1024, 16_384, 80_000] {
        let mut r = req.clone();
        let Some(g) = fabric_tco::plan::request::Gpus::new(gpus) else {
            return;
        };
        r.gpus = g;
        group.bench_function(format!("{gpus}_gpus_3_fabrics/build"), |b| {
            b.iter(|| fabric_tco::plan::build_plan(black_box(&r), &cats))
        });
    }
    group.finish();
}

/// A sweep as `GET /v1/sweeps?vary=gpus&from=256&to=16384&steps=64&scale=geometric` runs it
/// (three fabrics, crossovers bisected to one GPU), without HTTP and JSON: `plan::sweep::run`
/// over `build_with` as the API calls it (figures only; no sizing memo along `gpus`), the
/// request copied per point with its `gpus` replaced.
fn bench_sweep(c: &mut Criterion) {
    use fabric_tco::plan::sweep::{self, AxisInput, Domain, Scale, Spec};
    let Some((cats, req)) = catalog_and_request() else {
        return;
    };
    let domain = Domain {
        integer: true,
        contiguous: true,
        min: 1.0,
        max: 1_000_000.0,
    };
    let Ok(axis) = sweep::axis(
        AxisInput {
            name: "gpus".into(),
            from: Some(256.0),
            to: Some(16_384.0),
            steps: Some(64),
            scale: Scale::Geometric,
            values: None,
            suffix: "",
        },
        domain,
    ) else {
        return;
    };
    let Ok(spec) = Spec::new(axis, None) else {
        return;
    };
    let mut group = c.benchmark_group("sweep");
    group.sample_size(10);
    // One thread (the sweep's only one on a two-core host) and two (one per core, as on a host
    // with three or more cores, where the API gives a sweep every free computing permit).
    for (name, workers) in [
        ("gpus_256_16384_x64_3_fabrics", 1),
        ("gpus_256_16384_x64_3_fabrics/2_threads", 2),
    ] {
        group.bench_function(name, |b| {
            b.iter(|| {
                sweep::run(black_box(&spec), workers, || {
                    // As the API: no memo along `gpus`, which sizing reads.
                    let mut memo = (!fabric_tco::plan::SizingMemo::sizing_reads("gpus"))
                        .then(fabric_tco::plan::SizingMemo::default);
                    let (req, cats) = (&req, &cats);
                    move |v: f64, _| {
                        let mut r = req.clone();
                        r.gpus = fabric_tco::plan::request::Gpus::new(v as u32).ok_or(())?;
                        let detail = fabric_tco::plan::Detail::Figures;
                        fabric_tco::plan::build_with(
                            &r,
                            cats,
                            Default::default(),
                            memo.as_mut(),
                            detail,
                        )
                        .map_err(|_| ())
                    }
                })
                .ok()
                .map(|o| o.rows.len())
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench, bench_plan, bench_sweep);
criterion_main!(benches);
