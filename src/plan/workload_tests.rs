//! Plans with presets, failures and the reasons that name traffic (issue #11).

use crate::catalog::CatalogSet;
use crate::fabric::Fabric;
use crate::plan::output::Plan;
use crate::plan::pipeline::build_plan;
use crate::plan::request::PlanRequest;

fn plan(v: serde_json::Value) -> Plan {
    let cats = CatalogSet::embedded().expect("embedded catalog");
    let req: PlanRequest = serde_json::from_value(v).expect("request");
    build_plan(&req, &cats).expect("plan")
}

fn fabric(p: &Plan, f: Fabric) -> crate::plan::output::Built<'_> {
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
        // DualPipe hides most of the preset's all-to-all and DeepEP halves it: about 3 % idle
        // against the dense preset's 0.02 %.
        assert!(m.gpu_idle_fraction > d.gpu_idle_fraction + 0.01, "{f:?}");
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
    let optics = |p: &crate::plan::output::Built| -> u64 {
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
    // One sequence per GPU: (6 × 70e9 + 6 × 80 × 4,096 × 8,192) × 4,096 tokens ÷ (989 TFLOPS ×
    // 0.40 MFU) = 4,515 ms of compute (4,349 for 6N alone; it was an eighth of that, with every
    // collective still a whole sequence's).
    let compute = fabric(&large, Fabric::Infiniband)
        .performance
        .step_compute_ms;
    assert!((compute - 4515.0).abs() < 5.0, "compute {compute} ms");

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

/// The default job keeps one shape, TP 8 x PP 4, wherever the cluster holds it, so a sweep over
/// `gpus` compares one job (fitting PP to divide each size made neighbours run PP 4, 1 and 3);
/// a smaller cluster shrinks PP, around a context-parallel degree too, and a data-parallel
/// degree given sets PP. GPUs a shape leaves out are warned with the count and a degree that
/// uses them all.
#[test]
fn the_default_job_keeps_its_shape_and_gpus_it_leaves_out_are_warned() {
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
            .find(|w| w.contains("no part of it"))
            .cloned()
    };
    for (gpus, pp) in [(8, 1), (16, 2), (24, 3), (32, 4), (64, 4), (1024, 4)] {
        let p = plan(serde_json::json!({ "gpus": gpus }));
        assert_eq!(degrees(&p), (Some(8), Some(pp)), "{gpus} GPUs");
        assert_eq!(left_out(&p), None, "{gpus} GPUs");
    }
    for gpus in (992..=1056).step_by(8) {
        let p = plan(serde_json::json!({ "gpus": gpus }));
        assert_eq!(
            degrees(&p),
            (Some(8), Some(4)),
            "{gpus} GPUs: one job along a sweep"
        );
    }
    for (gpus, used, left, hint) in [
        (48, 32, 16, "workload.pipeline_parallel 3 uses all 48"),
        (80, 64, 16, "workload.pipeline_parallel 2 uses all 80"),
        (1000, 992, 8, "workload.pipeline_parallel 1 uses all 1000"),
    ] {
        let p = plan(serde_json::json!({ "gpus": gpus }));
        let w = left_out(&p).unwrap_or_else(|| panic!("{gpus} GPUs: {:?}", p.warnings));
        assert!(
            w.contains(&format!(
                "{gpus} GPUs hold {} and the job runs on {used}; the other {left} run",
                used / 32
            )),
            "{w}"
        );
        assert!(w.ends_with(hint), "{w}");
    }
    let p = plan(
        serde_json::json!({"gpus": 9, "gpus_per_node": 1, "nics_per_node": 1, "workload": {"tensor_parallel": 1, "pipeline_parallel": 4}}),
    );
    let w = left_out(&p).expect("one GPU left out");
    assert!(
        w.contains("the other 1 GPU runs no part of it and is priced as if it ran it"),
        "{w}"
    );
    // Context parallelism: TP and PP shrink around it (16 GPUs: TP 8 x PP 1 x CP 2).
    let p = plan(serde_json::json!({"gpus": 16, "workload": {"context_parallel": 2}}));
    assert_eq!(degrees(&p), (Some(8), Some(1)));
    let p = plan(serde_json::json!({"gpus": 8, "workload": {"context_parallel": 2}}));
    assert_eq!(degrees(&p), (Some(4), Some(1)));
    // A data-parallel degree given sets the pipeline: 48 GPUs at DP 6 are TP 8 x PP 1.
    let p = plan(serde_json::json!({"gpus": 48, "workload": {"data_parallel": 6}}));
    assert_eq!(degrees(&p), (Some(8), Some(1)));
    assert_eq!(left_out(&p), None);
    // A wrong one with the pipeline given says how many whole replicas there are and the GPUs
    // left over.
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
    super::design_tests::assert_mentions(&p.warnings, "one server (1 GPU):");
}

/// SHARP asked for with an Ethernet fabric: said, on the Ethernet fabrics only.
#[test]
fn in_network_reduction_on_ethernet_is_warned() {
    let sharp = |fabrics: serde_json::Value| {
        let p = plan(serde_json::json!({"gpus": 1024, "fabrics": fabrics,
            "topology": {"in_network_reduction": true}}));
        p.warnings
            .iter()
            .any(|w| w.starts_with("Ethernet: in-network reduction"))
    };
    assert!(sharp(serde_json::json!(["infiniband", "roce"])));
    assert!(!sharp(serde_json::json!(["infiniband"])));
}

/// At 100,000 GPUs the failure line is most of the idle cost; the plan says what it assumes
/// (one job on every GPU). At 1,024 it is far below the threshold and nothing is said.
#[test]
fn a_failure_line_that_dominates_says_it_assumes_one_job() {
    let said = |gpus: u32| {
        plan(serde_json::json!({"gpus": gpus, "fabrics": ["roce"]}))
            .warnings
            .into_iter()
            .find(|w| w.contains("assumes one job spans all"))
    };
    let w = said(100_000).expect("warned at 100,000 GPUs");
    assert!(
        w.starts_with("roce: failures of network parts cost "),
        "{w}"
    );
    assert_eq!(said(1024), None);
}

/// An expert all-to-all over the network is said to be an upper bound (it is counted fully
/// exposed); a dense job gets no such warning.
#[test]
fn an_exposed_expert_all_to_all_is_said_to_be_an_upper_bound() {
    let said = |v: serde_json::Value| {
        plan(v)
            .warnings
            .iter()
            .any(|w| w.contains("is counted fully exposed"))
    };
    assert!(said(
        serde_json::json!({"gpus": 1024, "workload": {"preset": "moe-deepseek-v3"}})
    ));
    assert!(!said(serde_json::json!({"gpus": 1024})));
}

#[test]
fn a_4096_gpu_run_takes_its_steps_times_its_step_time() {
    let p = plan(serde_json::json!({"gpus": 4096, "workload": {"train_tokens": 15e12}}));
    let twice = plan(serde_json::json!({"gpus": 4096, "workload": {"train_tokens": 30e12}}));
    for f in &p.fabrics {
        let perf = f.performance.as_ref().expect("performance");
        let t = f.training.as_ref().expect("training");
        let tokens = perf.tokens_per_step.expect("tokens per step");
        assert_eq!(t.steps, (15e12 / tokens).ceil() as u64);
        // Steps × step time, lengthened only by restarts after network failures (a few %).
        let bare_days = t.steps as f64 * perf.step_time_ms / 86_400_000.0;
        assert!(
            t.days_to_train >= bare_days && t.days_to_train < bare_days * 1.05,
            "{:?}: {} days against {bare_days}",
            f.fabric,
            t.days_to_train
        );
        let gpu_hours: f64 = t.gpu_hours.to_string().parse().expect("number");
        assert!((gpu_hours - t.days_to_train * 4096.0 * 24.0).abs() < 0.01);
        let other = twice
            .fabrics
            .iter()
            .find(|x| x.fabric == f.fabric)
            .and_then(|x| x.training.as_ref())
            .expect("training");
        assert!((other.days_to_train / t.days_to_train - 2.0).abs() < 1e-5);
        // Per million tokens the same at any run length (to the cost model's rounding).
        let per = |x: &crate::cost::Training| {
            x.cost_per_million_tokens_usd
                .total_usd
                .to_string()
                .parse::<f64>()
                .expect("number")
        };
        assert!((per(other) / per(t) - 1.0).abs() < 1e-3);
    }
    // Without train_tokens there is no training section.
    let none = plan(serde_json::json!({"gpus": 4096}));
    assert!(none.fabrics.iter().all(|f| f.training.is_none()));
}

#[test]
fn staff_is_laid_out_by_role_and_sums_to_the_staff_line() {
    // 1,000 GPUs: fractional FTEs (1,000 ÷ 256, 1,000 ÷ 1,024), each role rounded to cents.
    let p = plan(serde_json::json!({"gpus": 1000, "gpus_per_node": 8}));
    for f in &p.fabrics {
        let opex = f.opex_per_year.as_ref().expect("opex");
        let roles: Vec<&str> = opex.staff_by_role.iter().map(|r| r.role).collect();
        let expected: &[&str] = if f.fabric == Fabric::Infiniband {
            &["network_engineer", "ib_specialist"]
        } else {
            &["network_engineer"]
        };
        assert_eq!(roles, expected, "{:?}", f.fabric);
        let sum: rust_decimal::Decimal = opex.staff_by_role.iter().map(|r| r.usd).sum();
        assert_eq!(sum, opex.staff_usd, "{:?}", f.fabric);
        let fte: rust_decimal::Decimal = opex.staff_by_role.iter().map(|r| r.fte).sum();
        assert!((fte - opex.staff_fte).abs() <= rust_decimal::Decimal::new(2, 4));
    }
}

/// A step's pipeline: the bubble follows the schedule (1F1B, interleaved), a micro-batch larger
/// than a replica's share of the batch is refused naming the field, and a GPU without a
/// published compute efficiency is said to run at an assumed one.
#[test]
fn the_pipeline_bubble_follows_the_schedule_and_the_micro_batch() {
    let bubble = |w: serde_json::Value| {
        let p = plan(serde_json::json!({"gpus": 1024, "fabrics": ["infiniband"], "workload": w}));
        let perf = &fabric(&p, Fabric::Infiniband).performance;
        (perf.pipeline_bubble_ms, perf.step_compute_ms)
    };
    // The default job: PP 4, 16 one-sequence micro-batches a replica: 3/16 of the compute.
    let (one_f_one_b, compute) = bubble(serde_json::json!({}));
    assert!((one_f_one_b / compute - 3.0 / 16.0).abs() < 1e-12);
    // Four virtual stages: a quarter of it; micro-batches of 4 sequences: four times it.
    let (interleaved, _) = bubble(serde_json::json!({"virtual_stages": 4}));
    assert!((interleaved - one_f_one_b / 4.0).abs() < 1e-9);
    let (fewer, _) = bubble(serde_json::json!({"micro_batch_sequences": 4}));
    assert!((fewer - one_f_one_b * 4.0).abs() < 1e-9);
    // 17 sequences a micro-batch of a replica's 16: no such job.
    let cats = CatalogSet::embedded().expect("catalog");
    let req: PlanRequest = serde_json::from_value(
        serde_json::json!({"gpus": 1024, "workload": {"micro_batch_sequences": 17}}),
    )
    .expect("request");
    let err = build_plan(&req, &cats).expect_err("refused").to_string();
    assert!(err.contains("micro_batch_sequences"), "{err}");
    // A100 is not in the efficiency table: the plan says what it assumed, unless mfu is set.
    let assumed = |w: serde_json::Value| {
        plan(serde_json::json!({"gpus": 1024, "gpu_model": "a100", "workload": w}))
            .warnings
            .iter()
            .any(|w| w.starts_with("workload.mfu: no published run gives a100"))
    };
    assert!(assumed(serde_json::json!({})));
    assert!(!assumed(serde_json::json!({"mfu": 0.5})));
    let h100 = plan(serde_json::json!({"gpus": 1024}));
    assert!(!h100.warnings.iter().any(|w| w.starts_with("workload.mfu")));
}
