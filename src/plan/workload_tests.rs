//! Plans with presets, failures and the reasons that name traffic (issue #11).

use crate::catalog::CatalogSet;
use crate::fabric::Fabric;
use crate::plan::{Plan, PlanRequest, build_plan};

fn plan(v: serde_json::Value) -> Plan {
    let cats = CatalogSet::embedded().expect("embedded catalog");
    let req: PlanRequest = serde_json::from_value(v).expect("request");
    build_plan(&req, &cats).expect("plan")
}

fn fabric(p: &Plan, f: Fabric) -> crate::plan::Built<'_> {
    p.built().find(|x| x.fabric == f).expect("feasible fabric")
}

#[test]
fn moe_preset_at_1024_idles_more_than_dense_with_breakdown() {
    let moe = plan(serde_json::json!({"gpus": 1024, "workload": {"preset": "moe-deepseek-v3"}}));
    let dense =
        plan(serde_json::json!({"gpus": 1024, "workload": {"preset": "dense-llama3-405b"}}));
    for f in [Fabric::Infiniband, Fabric::Roce, Fabric::RoceAdaptive] {
        let m = &fabric(&moe, f).performance;
        let d = &fabric(&dense, f).performance;
        assert!(m.gpu_idle_fraction > d.gpu_idle_fraction + 0.05, "{f:?}");
        assert!(
            m.collectives
                .iter()
                .any(|c| c.kind == "all_to_all" && c.exposed_ms > 0.0)
        );
        // The headline all-reduce stays the data-parallel gradient reduction.
        assert_eq!(m.collectives[0].kind, "all_reduce");
        assert_eq!(m.collectives[0].parallelism, "data");
        assert_eq!(u64::from(m.communicator_ranks), 64);
    }
    // Posting the echoed inputs back gives the same plan.
    let again = plan(serde_json::to_value(&moe.inputs).expect("json"));
    assert_eq!(again.plan_id, moe.plan_id);
}

#[test]
fn gpu_generations_give_different_idle() {
    let h = plan(serde_json::json!({"gpus": 1024, "gpu_model": "h100"}));
    let b = plan(serde_json::json!({"gpus": 1024, "gpu_model": "b200"}));
    for f in [Fabric::Infiniband, Fabric::Roce, Fabric::RoceAdaptive] {
        let hp = &fabric(&h, f).performance;
        let bp = &fabric(&b, f).performance;
        assert!(bp.step_compute_ms < hp.step_compute_ms);
        assert!(bp.gpu_idle_fraction > hp.gpu_idle_fraction, "{f:?}");
    }
}

#[test]
fn failure_line_is_sourced_scales_with_optics_and_zeroes() {
    let base = plan(serde_json::json!({"gpus": 1024, "fabrics": ["roce"]}));
    let f = fabric(&base, Fabric::Roce);
    assert!(f.gpu_idle.failure_gpu_hours_per_year > 0.0);
    assert!(f.gpu_idle.failure_cost_per_year_usd > rust_decimal::Decimal::ZERO);
    // Copper to the servers: fewer transceivers, fewer lost hours.
    let dac = plan(
        serde_json::json!({"gpus": 1024, "fabrics": ["roce"], "topology": {"cabling": {
        "node_leaf": {"nic_module": null, "switch_module": null, "cable": "dac-800g-twin-2m"}}}}),
    );
    let d = fabric(&dac, Fabric::Roce);
    let optics = |p: &crate::plan::Built| -> u64 {
        p.bom
            .iter()
            .filter(|l| l.priced.line.category == crate::cost::Category::Optic)
            .map(|l| l.priced.line.quantity)
            .sum()
    };
    assert!(optics(&d) < optics(&f));
    assert!(d.gpu_idle.failure_gpu_hours_per_year < f.gpu_idle.failure_gpu_hours_per_year);
    // Rates at zero: no failure line, and the idle cost drops by exactly that line.
    let zero = plan(
        serde_json::json!({"gpus": 1024, "fabrics": ["roce"], "reliability": {
        "nic_failures_per_year": 0, "switch_failures_per_year": 0,
        "transceiver_failures_per_year": 0, "cable_failures_per_year": 0}}),
    );
    let z = fabric(&zero, Fabric::Roce);
    assert_eq!(z.gpu_idle.failure_gpu_hours_per_year, 0.0);
    assert_eq!(
        z.gpu_idle.failure_cost_per_year_usd,
        rust_decimal::Decimal::ZERO
    );
    assert_eq!(
        f.gpu_idle.cost_per_year_usd - z.gpu_idle.cost_per_year_usd,
        f.gpu_idle.failure_cost_per_year_usd
    );
    assert!(z.total_cost_usd < f.total_cost_usd);
}

#[test]
fn roce_shows_both_tunings() {
    let p = plan(serde_json::json!({"gpus": 4096, "workload": {"preset": "fsdp-llama2-70b"}}));
    let r = &fabric(&p, Fabric::Roce).performance;
    assert_eq!(r.roce_tuning_side_by_side.len(), 2);
    assert!(
        r.roce_tuning_side_by_side[1].gpu_idle_fraction
            <= r.roce_tuning_side_by_side[0].gpu_idle_fraction
    );
    assert!(
        fabric(&p, Fabric::Infiniband)
            .performance
            .roce_tuning_side_by_side
            .is_empty()
    );
}

#[test]
fn reasons_name_the_traffic_when_idle_matters() {
    let p = plan(
        serde_json::json!({"gpus": 4096, "topology": {"oversubscription": 2},
        "workload": {"preset": "fsdp-llama2-70b"}}),
    );
    let c = p.comparison.as_ref().expect("comparison");
    let reasons: Vec<String> = c.reasons.iter().map(ToString::to_string).collect();
    super::design_tests::assert_mentions(&reasons, "idle difference comes from the");
}

#[test]
fn presets_that_do_not_fit_are_4xx_naming_the_workload() {
    let cats = CatalogSet::embedded().expect("embedded catalog");
    // A preset the cluster cannot hold names the preset (the user wrote no degree), says what
    // the published job needs and how to get a plan.
    for (body, needs) in [
        (
            serde_json::json!({"gpus": 64, "workload": {"preset": "moe-deepseek-v3"}}),
            "1024 GPUs",
        ),
        (
            serde_json::json!({"gpus": 768, "gpu_model": "b300", "workload": {"preset": "moe-deepseek-v3"}}),
            "1024 GPUs",
        ),
        (
            serde_json::json!({"gpus": 64, "workload": {"preset": "dense-llama3-405b"}}),
            "= 128 GPUs",
        ),
    ] {
        let req: PlanRequest = serde_json::from_value(body.clone()).expect("request");
        let err = build_plan(&req, &cats).expect_err("must not fit");
        let text = format!("{err:?}");
        assert!(text.contains("/workload/preset"), "{body}: {text}");
        assert!(text.contains(needs), "{body}: {text}");
    }
    // Degrees the user wrote are named.
    for body in [
        serde_json::json!({"gpus": 512, "workload": {"preset": "moe-deepseek-v3", "expert_parallel": 64}}),
        serde_json::json!({"gpus": 1024, "workload": {"data_parallel": 7}}),
        serde_json::json!({"gpus": 1024, "workload": {"model_params_billion": 10, "active_params_billion": 20}}),
    ] {
        let req: PlanRequest = serde_json::from_value(body.clone()).expect("request");
        let err = build_plan(&req, &cats).expect_err("must not fit");
        let text = format!("{err:?}");
        assert!(text.contains("/workload/"), "{body}: {text}");
        assert!(!text.contains("/workload/preset"), "{body}: {text}");
    }
}

/// A data-parallel replica processes at least one whole sequence per step. The FSDP preset's
/// published batch (4,194,304 tokens = 1,024 sequences of 4,096) grows to one sequence per
/// replica on a larger cluster, and the value used is echoed; a batch the user gives that
/// leaves a replica less than a sequence is refused, naming the field.
#[test]
fn every_replica_gets_at_least_one_sequence() {
    let batch = |p: &Plan| {
        p.inputs
            .workload
            .as_ref()
            .and_then(|w| w.global_batch_tokens)
            .map(|b| b.get())
    };
    let small = plan(serde_json::json!({"gpus": 512, "workload": {"preset": "fsdp-llama2-70b"}}));
    assert_eq!(batch(&small), Some(4_194_304));
    let large = plan(serde_json::json!({"gpus": 8192, "workload": {"preset": "fsdp-llama2-70b"}}));
    assert_eq!(batch(&large), Some(8192 * 4096));
    // One sequence per GPU: 6 × 70e9 × 4,096 tokens ÷ (989 TFLOPS × 0.40 MFU) = 4,349 ms of
    // compute (it was an eighth of that, with every collective still a whole sequence's).
    let compute = fabric(&large, Fabric::Infiniband)
        .performance
        .step_compute_ms;
    assert!((compute - 4349.0).abs() < 5.0, "compute {compute} ms");

    let cats = CatalogSet::embedded().expect("embedded catalog");
    let req: PlanRequest = serde_json::from_value(serde_json::json!({
        "gpus": 8192, "workload": {"preset": "fsdp-llama2-70b", "global_batch_tokens": 4_194_304}
    }))
    .expect("request");
    let text = format!(
        "{:?}",
        build_plan(&req, &cats).expect_err("a fraction of a sequence")
    );
    assert!(text.contains("/workload/global_batch_tokens"), "{text}");
    assert!(text.contains("at least 33554432 tokens"), "{text}");
    // One sequence per replica above the largest batch: the input to change is the sequence.
    let req: PlanRequest = serde_json::from_value(serde_json::json!({
        "gpus": 150_000, "fabrics": ["roce"],
        "workload": {"preset": "fsdp-llama2-70b", "sequence_length": 10_000_000}
    }))
    .expect("request");
    let text = format!(
        "{:?}",
        build_plan(&req, &cats).expect_err("no batch that large")
    );
    assert!(text.contains("/workload/sequence_length"), "{text}");
}

/// The default job uses every GPU: its pipeline degree is the largest of 4, 3, 2, 1 dividing
/// the GPUs per tensor group (48 H100: TP 8 x PP 3 x DP 2; PP 4 would run on 32 and leave 16
/// out). A shape the user gives that leaves GPUs out is planned and warned, with the count.
#[test]
fn the_default_job_uses_every_gpu_and_a_shape_that_leaves_some_out_is_warned() {
    let degrees = |p: &Plan| {
        let w = p.inputs.workload.as_ref().expect("workload echoed");
        (
            w.tensor_parallel.map(|d| d.get()),
            w.pipeline_parallel.map(|d| d.get()),
        )
    };
    let left_out = |p: &Plan| {
        p.warnings
            .iter()
            .find(|w| w.contains("run no part of it"))
            .cloned()
    };
    for (gpus, pp) in [(16, 2), (24, 3), (48, 3), (64, 4), (80, 2), (1024, 4)] {
        let p = plan(serde_json::json!({ "gpus": gpus }));
        assert_eq!(degrees(&p), (Some(8), Some(pp)), "{gpus} GPUs");
        assert_eq!(left_out(&p), None, "{gpus} GPUs");
    }
    let p = plan(serde_json::json!({"gpus": 48, "workload": {"pipeline_parallel": 4}}));
    let w = left_out(&p).expect("16 GPUs left out");
    assert!(w.contains("48 GPUs hold 1 and the job runs on 32"), "{w}");
    assert!(w.contains("the other 16"), "{w}");
    // A data-parallel degree given with it is the number of whole replicas; a wrong one says
    // how many there are and how many GPUs are left over.
    let p = plan(
        serde_json::json!({"gpus": 48, "workload": {"pipeline_parallel": 4, "data_parallel": 1}}),
    );
    assert!(left_out(&p).is_some());
    let cats = CatalogSet::embedded().expect("embedded catalog");
    let req: PlanRequest = serde_json::from_value(serde_json::json!(
        {"gpus": 48, "workload": {"pipeline_parallel": 4, "data_parallel": 2}}
    ))
    .expect("request");
    let text = format!("{:?}", build_plan(&req, &cats).expect_err("one replica"));
    assert!(text.contains("/workload/data_parallel"), "{text}");
    assert!(
        text.contains(
            "the whole replicas of TP x PP x CP = 32 GPUs that 48 GPUs hold: 1 (16 GPUs left over)"
        ),
        "{text}"
    );
}

/// A job on one server is said in the singular when it is one GPU.
#[test]
fn one_gpu_is_one_gpu() {
    let p = plan(serde_json::json!({"gpus": 1, "gpus_per_node": 1, "nics_per_node": 1}));
    assert!(
        p.warnings
            .iter()
            .any(|w| w.starts_with("one server (1 GPU):")),
        "{:?}",
        p.warnings
    );
}
