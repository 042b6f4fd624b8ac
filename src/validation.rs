//! The performance model against published measurements: every case of the validation table
//! (`tests/data/perf_calibration.json`, each with its source), computed by the running model on
//! the fabric the measurement ran on, with its error, its tolerance and the plan request that
//! reproduces it through the API. The same table drives the calibration tests; `GET
//! /v1/validation` serves it (docs/model.md §6).
//!
//! Pure: a case list in, a table out. The table is parsed once; the model runs on every call
//! (a few microseconds a case).

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::catalog::Catalog;
use crate::fabric::Fabric;
use crate::perf::{self, FabricPath, GpuSpec, NcclSettings, NicSpec, PerfInput, Workload};

/// The table, as committed (sources and all).
const TABLE: &str = include_str!("../tests/data/perf_calibration.json");

/// Nodes under one leaf of the fabric the cases are timed on: a DGX SuperPOD scalable unit
/// (rail-optimized, non-blocking, one switch tier up to 32 nodes, two above; 130 ns a switch).
pub const REFERENCE_NODES_PER_LEAF: u32 = 32;
/// Port-to-port latency of the reference fabric's switches, ns.
pub const REFERENCE_SWITCH_LATENCY_NS: f64 = 130.0;

/// What a case's row says of itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Asserted: the model must land within the tolerance; counted in its group's error.
    Reference,
    /// Shown, never fitted or asserted: the source's own thread calls the figure low or the
    /// cluster misconfigured.
    Anomaly,
    /// Sets a figure of the model (a GPU's compute efficiency, `perf::efficiency`): shown, and
    /// reproduced by construction, so not counted in its group's error.
    Calibration,
}

/// The family a case belongs to; each has its own geometric-mean error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Group {
    /// All-reduce across servers over InfiniBand.
    Infiniband,
    /// All-reduce across servers over RoCE.
    Roce,
    /// Inside one NVLink domain (a server, an NVL72 rack), or NVL72 racks and trays joined by
    /// the scale-out fabric.
    NvlinkDomain,
    /// Expert-parallel all-to-all.
    AllToAll,
    /// Whole training steps.
    StepTime,
}

/// The figure a case compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Metric {
    /// nccl-tests bus bandwidth, GB/s.
    BusbwGbytesPerS,
    /// Time of one all-reduce, µs.
    AllreduceTimeUs,
    /// Training throughput, tokens per second per GPU (Megatron-Bridge's column).
    TokensPerSPerGpu,
    /// An expert dispatch or combine as DeepEP's benchmark counts it, GB/s a GPU: (token,
    /// distinct destination node) pairs, the own node included, × hidden × bytes ÷ time
    /// (`tests/legacy/test_internode.py`, `num_rdma_token_sent`).
    DispatchRdmaGbytesPerS,
}

/// The expert dispatch of an all-to-all case (DeepEP's internode benchmark).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseDispatch {
    /// Tokens a GPU dispatches.
    pub tokens: u32,
    pub hidden: u32,
    pub top_k: u32,
    pub experts: u32,
    /// Most nodes a token is routed to (`num_topk_groups`).
    pub node_limit: u32,
    /// Bytes a value on the wire: 2 (BF16), 1 + 4/128 (FP8 with a scale a 128 values).
    pub bytes_per_value: f64,
}

/// The training job a step-time case ran: its model's shape, parallelism and batch, as
/// published (`workload.*` of a plan request).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseJob {
    pub model_params_billion: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub active_params_billion: Option<f64>,
    pub layers: u32,
    pub hidden_size: u32,
    pub kv_heads: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub experts: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moe_top_k: Option<u32>,
    pub tensor_parallel: u32,
    pub pipeline_parallel: u32,
    pub context_parallel: u32,
    #[serde(default = "one")]
    pub expert_parallel: u32,
    #[serde(default = "one")]
    pub virtual_stages: u32,
    #[serde(default)]
    pub data_parallel_mode: perf::DataParallelMode,
    pub micro_batch_sequences: u32,
    /// Tensor parallelism overlapped with GEMMs (the recipe's `tp_comm_overlap`).
    #[serde(default)]
    pub tp_comm_overlap: bool,
    pub global_batch_sequences: u64,
    pub sequence_length: u32,
    pub precision: perf::Precision,
}

fn one() -> u32 {
    1
}

impl CaseJob {
    /// The job as the model's workload.
    pub fn workload(&self) -> Workload {
        let base = Workload::default();
        Workload {
            model_params_billion: self.model_params_billion,
            active_params_billion: self.active_params_billion,
            layers: Some(self.layers),
            hidden_size: Some(self.hidden_size),
            kv_heads: self.kv_heads,
            experts: self.experts,
            moe_top_k: self.moe_top_k.unwrap_or(base.moe_top_k),
            tensor_parallel: self.tensor_parallel,
            pipeline_parallel: self.pipeline_parallel,
            context_parallel: self.context_parallel,
            expert_parallel: self.expert_parallel,
            virtual_stages: self.virtual_stages,
            pipeline_schedule: self.schedule(),
            data_parallel_mode: self.data_parallel_mode,
            micro_batch_sequences: self.micro_batch_sequences,
            tp_comm_overlap: self.tp_comm_overlap,
            global_batch_tokens: Some(self.global_batch_tokens()),
            sequence_length: self.sequence_length,
            precision: self.precision,
            ..base
        }
    }

    fn global_batch_tokens(&self) -> u64 {
        self.global_batch_sequences
            .saturating_mul(u64::from(self.sequence_length))
    }

    fn schedule(&self) -> perf::PipelineSchedule {
        if self.virtual_stages > 1 {
            perf::PipelineSchedule::Interleaved
        } else {
            perf::PipelineSchedule::OneFOneB
        }
    }

    /// The job as a plan request's `workload`.
    fn request(&self) -> serde_json::Value {
        let mut w = serde_json::json!({
            "model_params_billion": self.model_params_billion,
            "layers": self.layers,
            "hidden_size": self.hidden_size,
            "kv_heads": self.kv_heads,
            "tensor_parallel": self.tensor_parallel,
            "pipeline_parallel": self.pipeline_parallel,
            "context_parallel": self.context_parallel,
            "expert_parallel": self.expert_parallel,
            "virtual_stages": self.virtual_stages,
            "pipeline_schedule": self.schedule(),
            "data_parallel_mode": self.data_parallel_mode,
            "micro_batch_sequences": self.micro_batch_sequences,
            "tp_comm_overlap": self.tp_comm_overlap,
            "global_batch_tokens": self.global_batch_tokens(),
            "sequence_length": self.sequence_length,
            "precision": self.precision,
        });
        if let Some(a) = self.active_params_billion {
            w["active_params_billion"] = a.into();
        }
        if let Some(e) = self.experts {
            w["experts"] = e.into();
        }
        if let Some(k) = self.moe_top_k {
            w["moe_top_k"] = k.into();
        }
        w
    }
}

/// NCCL settings the measured run forced.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CaseNccl {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub algorithm: Option<perf::NcclAlgorithm>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<perf::NcclProtocol>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channels: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub qps_per_connection: Option<u32>,
}

/// One published measurement and the cluster it ran on. (Unknown keys in the table are caught
/// by `validation::tests`, not by `deny_unknown_fields`, which would close the schema of the
/// outcome this is flattened into.)
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Case {
    /// Row id (`C1`, `N-GB200-2RACK-16G`, …).
    pub id: String,
    pub group: Group,
    pub status: Status,
    /// The model's GPU entry (`a100`, `h100`, `h200`, `b200`).
    pub gpu: String,
    /// The catalog GPU the row plans on, when it differs from `gpu` (NVL72, B300).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalog_gpu: Option<String>,
    pub gpus: u32,
    pub gpus_per_node: u32,
    /// GPUs in one NVLink domain when it spans servers (72 on NVL72); else the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvlink_domain_gpus: Option<u32>,
    pub nics_per_node: u32,
    pub nic_speed_gbps: u32,
    /// PCIe generation of the NIC's host link.
    pub pcie_gen: u8,
    /// The fabric the measurement ran on.
    pub fabric: Fabric,
    /// All-reduce size, bytes (0 for a step-time case, which runs `job`).
    #[serde(default)]
    pub message_bytes: u64,
    /// The training job of a step-time case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job: Option<CaseJob>,
    /// The dispatch of an all-to-all case.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dispatch: Option<CaseDispatch>,
    pub metric: Metric,
    /// The published figure, in the metric's unit.
    pub measured: f64,
    /// Largest relative error accepted (0.15 for bandwidth at 256 MiB and more, 0.25 below).
    pub tolerance: f64,
    /// Where the figure is published, with the quote.
    pub source: String,
    #[serde(default, skip_serializing_if = "is_default")]
    pub nccl: CaseNccl,
    /// The GPU's NVLink bandwidth when the run's differs from the catalog GPU's (H800: 160
    /// GB/s), GB/s.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvlink_gbytes_per_s: Option<f64>,
    /// `false` when the run disabled NVLink SHARP (`NCCL_NVLS_ENABLE=0`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nvls: Option<bool>,
    /// What the row assumes beyond its source.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// `false` when the embedded catalog cannot plan the cluster (100G NICs).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plannable: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plannable_note: Option<String>,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

#[derive(Deserialize)]
struct Table {
    cases: Vec<Case>,
}

/// The committed table, parsed once.
pub fn cases() -> &'static [Case] {
    static CASES: OnceLock<Vec<Case>> = OnceLock::new();
    CASES.get_or_init(|| {
        // The table is compiled in and checked by the tests: a malformed one fails them, and a
        // binary built from it would serve an empty table rather than fail a request.
        serde_json::from_str::<Table>(TABLE)
            .map(|t| t.cases)
            .unwrap_or_default()
    })
}

/// A case computed by the model.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Outcome {
    #[serde(flatten)]
    pub case: Case,
    /// The model's figure, in the metric's unit.
    pub model: f64,
    /// (model − measured) ÷ measured.
    pub error: f64,
    /// |error| ≤ tolerance.
    pub within_tolerance: bool,
    /// The algorithm and protocol the model chose.
    pub algorithm: String,
    pub protocol: String,
    /// A `POST /v1/plans` body that runs the case through the planner (which sizes its own
    /// fabric; the figure above is on the reference fabric); absent when the API cannot say
    /// what the run forced (NVLS disabled).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Object>)]
    pub request: Option<serde_json::Value>,
}

/// One group's agreement.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct GroupSummary {
    pub group: Group,
    /// Reference rows in the group.
    pub reference_cases: usize,
    /// Geometric mean of 1 + |error| over them, minus 1.
    pub geomean_error: f64,
    /// Reference rows outside their tolerance.
    pub outside_tolerance: Vec<String>,
}

/// The whole table, computed.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Validation {
    /// The fabric every case is timed on.
    pub reference_fabric: String,
    pub groups: Vec<GroupSummary>,
    pub cases: Vec<Outcome>,
}

/// Computes every case with the model, GPUs taken from `catalog` when it lists them.
pub fn validate(catalog: &Catalog) -> Validation {
    let outcomes: Vec<Outcome> = cases().iter().map(|c| outcome(c, catalog)).collect();
    let mut groups: Vec<Group> = outcomes.iter().map(|o| o.case.group).collect();
    groups.sort();
    groups.dedup();
    let summaries = groups
        .into_iter()
        .map(|g| summarize(g, &outcomes))
        .collect();
    Validation {
        reference_fabric: format!(
            "rail-optimized, non-blocking, {REFERENCE_NODES_PER_LEAF} servers a leaf (one switch tier up to {REFERENCE_NODES_PER_LEAF}, two above), {REFERENCE_SWITCH_LATENCY_NS} ns a switch; each case on the fabric it was measured on"
        ),
        groups: summaries,
        cases: outcomes,
    }
}

fn summarize(group: Group, outcomes: &[Outcome]) -> GroupSummary {
    let reference: Vec<&Outcome> = outcomes
        .iter()
        .filter(|o| o.case.group == group && o.case.status == Status::Reference)
        .collect();
    let n = reference.len();
    let log_sum: f64 = reference.iter().map(|o| o.error.abs().ln_1p()).sum();
    GroupSummary {
        group,
        reference_cases: n,
        geomean_error: if n == 0 {
            0.0
        } else {
            (log_sum / n as f64).exp_m1()
        },
        outside_tolerance: reference
            .iter()
            .filter(|o| !o.within_tolerance)
            .map(|o| o.case.id.clone())
            .collect(),
    }
}

/// The model's input for a case: its GPU (the catalog's figures when listed), NICs, NCCL
/// settings and message on the reference fabric; `None` for a GPU neither the catalog nor the
/// model's table knows.
pub fn perf_input(case: &Case, catalog: &Catalog) -> Option<PerfInput> {
    let domain = case.nvlink_domain_gpus.unwrap_or(case.gpus_per_node);
    let mut gpu = gpu_spec(case, catalog)?;
    gpu.nvlink_domain_gpus = domain;
    if case.nvls == Some(false) {
        gpu.nvls_busbw_gbytes_per_s = None;
    }
    if let Some(nvlink) = case.nvlink_gbytes_per_s {
        gpu.nvlink_ring_busbw_gbytes_per_s = nvlink;
    }
    let nodes = case.gpus.div_ceil(case.gpus_per_node.max(1));
    let tiers = if nodes > REFERENCE_NODES_PER_LEAF {
        2
    } else {
        1
    };
    Some(PerfInput {
        gpus: case.gpus,
        gpus_per_node: case.gpus_per_node,
        nics_per_node: case.nics_per_node,
        gpu,
        nic: NicSpec {
            speed_gbps: case.nic_speed_gbps,
            pcie_gen: case.pcie_gen,
            pcie_lanes: 16,
        },
        path: FabricPath::rail_optimized(
            case.fabric,
            tiers,
            REFERENCE_NODES_PER_LEAF,
            REFERENCE_SWITCH_LATENCY_NS,
        ),
        workload: {
            let (message_bytes, job) = match (case.job, case.dispatch) {
                (Some(job), _) => (None, job.workload()),
                (None, Some(d)) => (
                    Some(case.message_bytes.max(1)),
                    Workload {
                        moe_top_k: d.top_k,
                        experts: Some(d.experts),
                        moe_dispatcher: perf::MoeDispatcher::DeepEp,
                        moe_node_limit: Some(d.node_limit),
                        ..Workload::default()
                    },
                ),
                (None, None) => (Some(case.message_bytes), Workload::default()),
            };
            Workload {
                message_bytes,
                nccl: NcclSettings {
                    algorithm: case.nccl.algorithm.unwrap_or_default(),
                    protocol: case.nccl.protocol.unwrap_or_default(),
                    channels: case.nccl.channels,
                    qps_per_connection: case.nccl.qps_per_connection,
                },
                ..job
            }
        },
    })
}

/// The GPU's figures: the catalog's entry for the case's catalog GPU (or GPU) when listed,
/// else the model's table entry for `gpu`.
fn gpu_spec(case: &Case, catalog: &Catalog) -> Option<GpuSpec> {
    let id = case.catalog_gpu.as_deref().unwrap_or(&case.gpu);
    Some(
        match catalog
            .data
            .gpus
            .iter()
            .find(|g| g.id.eq_ignore_ascii_case(id))
        {
            Some(g) => GpuSpec {
                nvlink_ring_busbw_gbytes_per_s: g.nvlink_ring_busbw_gbytes_per_s,
                nvls_busbw_gbytes_per_s: g.nvls_busbw_gbytes_per_s,
                gpus_per_node_max: g.gpus_per_node.max(case.gpus_per_node),
                dense_bf16_tflops: g.dense_bf16_tflops,
                nvlink_domain_gpus: g.nvlink_domain_gpus,
                pcie_gen: g.pcie_gen,
                grace_c2c: g.nvlink_domain_gpus > g.gpus_per_node,
                efficiency: perf::efficiency::for_gpu(&g.id),
            },
            None => {
                let base = perf::gpu_default(&case.gpu)?;
                GpuSpec {
                    gpus_per_node_max: base.gpus_per_node_max.max(case.gpus_per_node),
                    ..base
                }
            }
        },
    )
}

/// DeepEP's figure for a dispatch case: the (token, distinct node) pairs, own node included,
/// × hidden × bytes ÷ the modelled time, GB/s.
fn dispatch_gbytes_per_s(input: &PerfInput, d: &CaseDispatch) -> Result<f64, String> {
    let (tokens, hidden) = (f64::from(d.tokens), f64::from(d.hidden));
    let (time_us, distinct, _) = perf::expert_dispatch(input, tokens, hidden, d.bytes_per_value)
        .map_err(|e| e.to_string())?;
    let logical = tokens * distinct * hidden * d.bytes_per_value;
    Ok(if time_us > 0.0 {
        logical / time_us / 1e3
    } else {
        0.0
    })
}

/// The model's figure for a case in its metric, with the algorithm and protocol it ran.
fn modelled(case: &Case, catalog: &Catalog) -> Result<(f64, String, String), String> {
    let input = perf_input(case, catalog)
        .ok_or_else(|| format!("no GPU '{}' in the catalog or the model's table", case.gpu))?;
    if let (Some(d), Metric::DispatchRdmaGbytesPerS) = (&case.dispatch, case.metric) {
        let model = dispatch_gbytes_per_s(&input, d)?;
        return Ok((model, "direct".to_string(), "simple".to_string()));
    }
    let r = perf::evaluate(&input).map_err(|e| e.to_string())?;
    let model = match case.metric {
        Metric::BusbwGbytesPerS => r.busbw_gbytes_per_s,
        Metric::AllreduceTimeUs => r.allreduce_time_us,
        Metric::TokensPerSPerGpu => tokens_per_s_per_gpu(&r, case.gpus),
        // A dispatch metric on a case without a dispatch: nothing to compare.
        Metric::DispatchRdmaGbytesPerS => f64::NAN,
    };
    Ok((model, r.algorithm.to_string(), r.protocol.to_string()))
}

fn outcome(case: &Case, catalog: &Catalog) -> Outcome {
    let (model, algorithm, protocol) = modelled(case, catalog)
        .unwrap_or_else(|e| (f64::NAN, format!("error: {e}"), String::new()));
    let error = if case.measured > 0.0 {
        (model - case.measured) / case.measured
    } else {
        f64::NAN
    };
    Outcome {
        case: case.clone(),
        model,
        error,
        within_tolerance: error.abs() <= case.tolerance,
        algorithm,
        protocol,
        request: request(case),
    }
}

/// The compute efficiency (`workload.mfu`) at which the model reproduces a step-time case's
/// measured throughput: what a calibration row sets in `perf::efficiency`. `None` for a case
/// without a job, or one the model cannot run; bisection to 1e-6 over the model's range.
pub fn implied_efficiency(case: &Case, catalog: &Catalog) -> Option<f64> {
    case.job?;
    let input = perf_input(case, catalog)?;
    let throughput = |e: f64| {
        let mut i = input;
        i.workload.mfu = Some(e);
        perf::evaluate(&i)
            .ok()
            .map(|r| tokens_per_s_per_gpu(&r, case.gpus))
    };
    let (mut lo, mut hi) = (perf::MIN_MFU, perf::MAX_MFU);
    if throughput(hi)? < case.measured || throughput(lo)? > case.measured {
        return None;
    }
    while hi - lo > 1e-6 {
        let mid = (lo + hi) / 2.0;
        if throughput(mid)? < case.measured {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some((lo + hi) / 2.0)
}

/// Training throughput of a step, tokens per second per GPU (0 without a step).
pub fn tokens_per_s_per_gpu(r: &perf::PerfResult, gpus: u32) -> f64 {
    match r.tokens_per_step {
        Some(tokens) if r.step_time_ms > 0.0 => {
            tokens / (r.step_time_ms / 1e3) / f64::from(gpus.max(1))
        }
        _ => 0.0,
    }
}

/// A `POST /v1/plans` body for the case; none where the run disabled NVLS (no request input
/// says that).
pub fn request(case: &Case) -> Option<serde_json::Value> {
    if case.nvls == Some(false) || case.dispatch.is_some() {
        return None;
    }
    let mut body = serde_json::json!({
        "gpus": case.gpus,
        "gpu_model": case.catalog_gpu.as_deref().unwrap_or(&case.gpu),
        "gpus_per_node": case.gpus_per_node,
        "nics_per_node": case.nics_per_node,
        "nic_speed_gbps": case.nic_speed_gbps,
        "fabrics": [case.fabric.as_str()],
        "workload": match &case.job {
            Some(job) => job.request(),
            None => serde_json::json!({"message_bytes": case.message_bytes}),
        },
    });
    if case.nccl != CaseNccl::default() {
        body["nccl"] = serde_json::to_value(case.nccl).unwrap_or_default();
    }
    Some(body)
}

#[cfg(test)]
mod tests;
