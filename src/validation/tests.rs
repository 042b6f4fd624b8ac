//! The validation table as the calibration test: every reference case within its tolerance
//! (but the misses named below, each still missing), each group's geometric-mean error under
//! 10 %, and the table's coverage.

use super::*;
use crate::catalog::CatalogSet;

/// Reference cases the model misses today, each with why. The test fails when one of them
/// comes within its tolerance (take it off the list) or another falls out (explain it here or
/// fix the model): the list is the model's known error, said where it is checked.
const KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "N-H100-NVLS-1M",
        "1 MiB forced onto NVLS: the pipeline fill is charged as the whole message (min(S, n·C·chunk)), while NCCL's chunks shrink with small messages; +29 % against 25 %",
    ),
    NVLS_OFF_20_RACKS[0],
    NVLS_OFF_20_RACKS[1],
    NVLS_OFF_20_RACKS[2],
    NVLS_OFF_20_RACKS[3],
    NVLS_OFF_20_RACKS[4],
    NVLS_OFF_20_RACKS[5],
    LLAMA_8B_ON_NVL72[0],
    LLAMA_8B_ON_NVL72[1],
    LLAMA_8B_ON_NVL72[2],
];

/// Llama 3 8B on one NVL72 tray pair (8 GB200 or GB300): +17 % to +21 %. The table holds one
/// dense FP8 figure a GPU, from Llama 3 70B (hidden 8,192); the 8B model's 4,096-wide GEMMs
/// reach a smaller share of Blackwell's peak (the same GPUs run the 8B at 0.33–0.41 of it and
/// the 70B at 0.39–0.48, release 25.11 and 26.04.01). The model has no GEMM-width term; on
/// H100 and B200 the 8B rows land within 4 %.
const LLAMA_8B_ON_NVL72: [(&str, &str); 3] = [
    (
        "S-llama38b-GB300-8-FP8-CS-25.11",
        "Llama 3 8B on GB300: narrow GEMMs",
    ),
    (
        "S-llama38b-GB300-8-FP8-MX-25.11-alt",
        "Llama 3 8B on GB300: narrow GEMMs",
    ),
    (
        "S-llama38b-GB200-8-FP8-MX-25.11-alt",
        "Llama 3 8B on GB200: narrow GEMMs",
    ),
];

/// The 20-rack GB200 run with NVLS disabled: the model's ring and tree across racks are bounded
/// by the NVLink ring figure and the racks' 72 NICs each, and predict 545–662 GB/s; the run's
/// curve (an algorithm bandwidth tending to ~217 GB/s after a ~5 ms fixed cost) says NCCL's
/// inter-rack graph uses far less than that, which the model (no graph search) does not
/// reproduce.
const NVLS_OFF_20_RACKS: [(&str, &str); 6] = [
    ("N-GB200-20RACK-512M", "NVLS off across 20 NVL72 racks"),
    ("N-GB200-20RACK-1G", "NVLS off across 20 NVL72 racks"),
    ("N-GB200-20RACK-2G", "NVLS off across 20 NVL72 racks"),
    ("N-GB200-20RACK-4G", "NVLS off across 20 NVL72 racks"),
    ("N-GB200-20RACK-8G", "NVLS off across 20 NVL72 racks"),
    ("N-GB200-20RACK-16G", "NVLS off across 20 NVL72 racks"),
];

fn computed() -> Validation {
    let set = CatalogSet::embedded().expect("embedded catalog");
    validate(set.newest())
}

#[test]
fn every_reference_case_lands_within_its_tolerance() {
    let v = computed();
    let mut outside = Vec::new();
    for o in &v.cases {
        let c = &o.case;
        println!(
            "{:<24} [{:?}, {:?}] measured {:>9.2}, model {:>9.2} ({:+6.1} %, ±{:.0} %) via {}/{}",
            c.id,
            c.group,
            c.status,
            c.measured,
            o.model,
            o.error * 100.0,
            c.tolerance * 100.0,
            o.algorithm,
            o.protocol
        );
        assert!(o.model.is_finite(), "{}: {}", c.id, o.algorithm);
        if c.status == Status::Reference && !o.within_tolerance {
            outside.push(c.id.as_str());
        }
    }
    let known: Vec<&str> = KNOWN_MISSES.iter().map(|(id, _)| *id).collect();
    assert_eq!(outside, known, "reference cases outside their tolerance");
    // Each group's geometric-mean error, over every reference case (what the table serves)
    // and over those the model does not know it misses (asserted under 10 %).
    for g in &v.groups {
        let kept: Vec<f64> = v
            .cases
            .iter()
            .filter(|o| o.case.group == g.group && o.case.status == Status::Reference)
            .filter(|o| !known.contains(&o.case.id.as_str()))
            .map(|o| o.error.abs().ln_1p())
            .collect();
        let geo = (kept.iter().sum::<f64>() / kept.len().max(1) as f64).exp_m1();
        println!(
            "{:?}: geometric-mean error {:.1} % over {} reference cases, {:.1} % over the {} not known to miss",
            g.group,
            g.geomean_error * 100.0,
            g.reference_cases,
            geo * 100.0,
            kept.len()
        );
        assert!(geo < 0.10, "{:?}: {geo}", g.group);
    }
}

/// What the table covers: InfiniBand, RoCE and NVLink-domain groups, one server (8 GPUs) to
/// over 1,024 GPUs, multi-rack NVL72, and every row with a source.
#[test]
fn the_table_covers_the_fabrics_and_sizes() {
    let all = cases();
    let reference: Vec<&Case> = all
        .iter()
        .filter(|c| c.status == Status::Reference)
        .collect();
    assert!(reference.len() >= 40, "{} reference rows", reference.len());
    for g in [Group::Infiniband, Group::Roce, Group::NvlinkDomain] {
        assert!(reference.iter().any(|c| c.group == g), "{g:?}");
    }
    let sizes: Vec<u32> = reference.iter().map(|c| c.gpus).collect();
    assert!(sizes.iter().min() <= Some(&8) && sizes.iter().max() >= Some(&1024));
    let multi_rack = reference
        .iter()
        .filter(|c| c.nvlink_domain_gpus.is_some() && c.gpus > c.nvlink_domain_gpus.unwrap_or(0))
        .count();
    assert!(multi_rack >= 6, "{multi_rack} multi-rack NVL72 rows");
    // Whole steps: at least 8 published runs the model is checked on (calibration rows apart),
    // on every GPU the efficiency table derives a figure for.
    let steps: Vec<&&Case> = reference
        .iter()
        .filter(|c| c.group == Group::StepTime)
        .collect();
    assert!(steps.len() >= 8, "{} step-time rows", steps.len());
    for gpu in ["h100", "b200", "gb200-nvl72", "gb300-nvl72"] {
        assert!(
            steps
                .iter()
                .any(|c| c.catalog_gpu.as_deref().unwrap_or(&c.gpu) == gpu),
            "no step-time row on {gpu}"
        );
    }
    for c in all {
        assert!(c.source.len() > 20, "{}: no source", c.id);
        assert!(c.tolerance > 0.0 && c.tolerance <= 0.25, "{}", c.id);
    }
    let mut ids: Vec<&str> = all.iter().map(|c| c.id.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), all.len(), "ids are unique");
}

/// Every key of every case in the table is a field of `Case` (a misspelt key would otherwise be
/// dropped without a word).
#[test]
fn the_table_has_no_unknown_keys() {
    const KEYS: [&str; 25] = [
        "id",
        "job",
        "dispatch",
        "nvlink_gbytes_per_s",
        "group",
        "status",
        "gpu",
        "catalog_gpu",
        "gpus",
        "gpus_per_node",
        "nvlink_domain_gpus",
        "nics_per_node",
        "nic_speed_gbps",
        "pcie_gen",
        "fabric",
        "message_bytes",
        "metric",
        "measured",
        "tolerance",
        "source",
        "nccl",
        "nvls",
        "note",
        "plannable",
        "plannable_note",
    ];
    let raw: serde_json::Value = serde_json::from_str(TABLE).expect("the table is JSON");
    let rows = raw["cases"].as_array().expect("cases");
    assert_eq!(rows.len(), cases().len());
    for row in rows {
        for key in row.as_object().expect("a case is an object").keys() {
            assert!(
                KEYS.contains(&key.as_str()),
                "{}: unknown key {key}",
                row["id"]
            );
        }
    }
}

/// Every dense FP8 figure of the efficiency table is the one its calibration row implies
/// (re-derived by bisection through the model), and that row is in the table with status
/// `calibration`: change the model and this says which figures moved.
#[test]
fn the_efficiency_table_is_what_its_calibration_rows_imply() {
    let set = CatalogSet::embedded().expect("embedded catalog");
    for entry in crate::perf::efficiency::TABLE {
        let Some(id) = entry.calibration_row else {
            continue;
        };
        let case = cases()
            .iter()
            .find(|c| c.id == id)
            .unwrap_or_else(|| panic!("{}: no case {id}", entry.gpu));
        assert_eq!(case.status, Status::Calibration, "{id}");
        assert_eq!(case.catalog_gpu.as_deref().unwrap_or(&case.gpu), entry.gpu);
        let implied = implied_efficiency(case, set.newest()).expect("implied");
        assert!(
            (implied - entry.efficiency.dense_fp8).abs() < 5e-4,
            "{}: table {}, {id} implies {implied:.4}",
            entry.gpu,
            entry.efficiency.dense_fp8
        );
    }
    // Every calibration row sets a figure.
    for c in cases().iter().filter(|c| c.status == Status::Calibration) {
        assert!(
            crate::perf::efficiency::TABLE
                .iter()
                .any(|e| e.calibration_row == Some(c.id.as_str())),
            "{} sets nothing",
            c.id
        );
    }
}
