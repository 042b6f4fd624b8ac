//! Inputs of the performance model: plain data, with published defaults and valid ranges.

use super::efficiency::ComputeEfficiency;
use super::pipeline::PipelineSchedule;
use super::presets::WorkloadPreset;
use crate::fabric::Fabric;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How a RoCE fabric is tuned. Only affects `roce` and `roce_adaptive`.
///
/// - `default`: NCCL defaults (1 queue pair per connection), plain ECMP, default ECN/PFC.
/// - `tuned`: more queue pairs per connection and enhanced ECMP hashing on the QP field
///   (Meta 2024: "up to 40%" more AllReduce throughput than plain ECMP), tuned ECN thresholds
///   (halves the incast tail). Modelled as 4 QPs per connection (unless `nccl.qps_per_connection`
///   says otherwise): four times the sub-flows for ECMP to hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum RoceTuning {
    /// NCCL and switch defaults.
    #[default]
    Default,
    /// Production tuning (more QPs, enhanced ECMP, tuned ECN).
    Tuned,
}

/// The model's own terms as multipliers, 1 by default: what the uncertainty analysis samples
/// over ranges derived from the validation table's residuals (docs/uncertainty.md), so that
/// the odds carry the model's error as well as the inputs'.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ModelTerms {
    /// Every scale-out link's delivered bandwidth (the NIC efficiency).
    pub nic_efficiency: f64,
    /// Plain ECMP's efficiency on traffic crossing a leaf (RoCE only; its collision loss).
    pub ecmp_efficiency: f64,
    /// The expert all-to-all's network bandwidth.
    pub a2a_efficiency: f64,
}

impl Default for ModelTerms {
    fn default() -> Self {
        ModelTerms {
            nic_efficiency: 1.0,
            ecmp_efficiency: 1.0,
            a2a_efficiency: 1.0,
        }
    }
}

/// Smallest and largest multiplier a model term takes.
pub const MODEL_TERM_RANGE: (f64, f64) = (0.25, 2.0);

/// How much of the expert all-to-all the job hides behind compute.
///
/// - `none`: all of it is exposed (dispatch and combine sit between attention and experts).
/// - `dualpipe`: DeepSeek-V3's DualPipe overlaps one micro-batch's dispatch and combine with
///   another's compute. DeepSeek's released training trace (deepseek-ai/profile-data
///   `train.json`, EP64) has its DeepEP kernels busy 113.4 ms of a 129.0 ms chunk pair, 109.3 ms
///   of it beside compute kernels: 96.4 % hidden ([`DUALPIPE_HIDDEN_SHARE`]), at most the step's
///   compute; and the 20 of 132 SMs DeepEP takes (DeepSeek-V3 report §3.2.2) slow the compute
///   they overlap by that share ([`DUALPIPE_SM_SHARE`]).
/// - a fraction in [0, 1]: that share is hidden, at no other cost.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub enum A2aOverlap {
    #[default]
    None,
    DualPipe,
    Fraction(f64),
}

/// Share of the all-to-all DualPipe hides: 109.3 of 113.4 ms in DeepSeek's released trace
/// (deepseek-ai/profile-data `train.json`: DeepEP kernels beside GEMM/attention kernels).
pub const DUALPIPE_HIDDEN_SHARE: f64 = 109.3 / 113.4;
/// Share of a GPU's SMs the overlapped dispatch and combine take from compute: 20 of H800's
/// 132 (DeepSeek-V3 technical report §3.2.2).
pub const DUALPIPE_SM_SHARE: f64 = 20.0 / 132.0;

impl A2aOverlap {
    /// The exposed part, ms, of an all-to-all taking `time_ms` in a step with `compute_ms` of
    /// compute to hide it behind.
    pub fn exposed_ms(self, time_ms: f64, compute_ms: f64) -> f64 {
        match self {
            A2aOverlap::None => time_ms,
            A2aOverlap::Fraction(f) => time_ms * (1.0 - f.clamp(0.0, 1.0)),
            A2aOverlap::DualPipe => {
                let hidden = (time_ms * DUALPIPE_HIDDEN_SHARE).min(compute_ms.max(0.0));
                (time_ms - hidden) + hidden * DUALPIPE_SM_SHARE
            }
        }
    }
}

impl Serialize for A2aOverlap {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            A2aOverlap::None => s.serialize_str("none"),
            A2aOverlap::DualPipe => s.serialize_str("dualpipe"),
            A2aOverlap::Fraction(f) => s.serialize_f64(*f),
        }
    }
}

impl<'de> Deserialize<'de> for A2aOverlap {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = A2aOverlap;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("'none', 'dualpipe' or a fraction between 0 and 1")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<A2aOverlap, E> {
                match v.trim() {
                    "none" => Ok(A2aOverlap::None),
                    "dualpipe" => Ok(A2aOverlap::DualPipe),
                    other => other
                        .parse::<f64>()
                        .map_err(|_| E::invalid_value(serde::de::Unexpected::Str(v), &self))
                        .and_then(|f| self.visit_f64(f)),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<A2aOverlap, E> {
                if (0.0..=1.0).contains(&v) {
                    Ok(A2aOverlap::Fraction(v))
                } else {
                    Err(E::invalid_value(serde::de::Unexpected::Float(v), &self))
                }
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<A2aOverlap, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<A2aOverlap, E> {
                self.visit_f64(v as f64)
            }
        }
        d.deserialize_any(V)
    }
}

impl utoipa::PartialSchema for A2aOverlap {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Type};
        OneOfBuilder::new()
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::String)
                    .enum_values(Some(["none", "dualpipe"])),
            )
            .item(
                ObjectBuilder::new()
                    .schema_type(Type::Number)
                    .minimum(Some(0.0))
                    .maximum(Some(1.0)),
            )
            .description(Some(
                "Share of the expert all-to-all hidden behind compute: `none`, `dualpipe` (DeepSeek-V3's schedule: 96.4 % hidden, at most the step's compute, at 20 of 132 SMs) or a fraction 0–1.",
            ))
            .into()
    }
}

impl ToSchema for A2aOverlap {}

/// NCCL's all-reduce algorithm as a request forces it (`NCCL_ALGO`), or `auto`: NCCL's own
/// choice, the fastest candidate of its cost model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NcclAlgorithm {
    /// NCCL's selection (its cost model's fastest candidate).
    #[default]
    Auto,
    /// Ring.
    Ring,
    /// Double binary tree across nodes.
    Tree,
    /// NVLink SHARP inside one NVLink domain.
    Nvls,
    /// NVLS inside domains and a tree across them.
    NvlsTree,
    /// In-network reduction (SHARP); InfiniBand with `topology.in_network_reduction` only.
    Collnet,
}

/// NCCL's protocol as a request forces it (`NCCL_PROTO`), or `auto`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NcclProtocol {
    /// NCCL's selection.
    #[default]
    Auto,
    /// Simple.
    Simple,
    /// LL (low latency, 8-byte stores with flags: half the bandwidth).
    Ll,
    /// LL128.
    Ll128,
}

/// NCCL settings a published run may have forced, so that it can be reproduced: `auto` (or
/// absent) keeps NCCL's own choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct NcclSettings {
    /// `NCCL_ALGO`.
    pub algorithm: NcclAlgorithm,
    /// `NCCL_PROTO`.
    pub protocol: NcclProtocol,
    /// Channels a communicator runs (`NCCL_MIN_CTAS` = `NCCL_MAX_CTAS`); `None`: two a NIC,
    /// as NCCL's search and its duplication give on NVLink servers.
    pub channels: Option<u32>,
    /// `NCCL_IB_QPS_PER_CONNECTION`; `None`: 1, or 4 under `roce_tuning: tuned`.
    pub qps_per_connection: Option<u32>,
}

/// Most channels NCCL runs (`MAXCHANNELS`, `src/include/device.h`).
pub const MAX_NCCL_CHANNELS: u32 = 64;
/// Most queue pairs per connection NCCL accepts (`NCCL_IB_QPS_PER_CONNECTION`: 1–128,
/// `docs/userguide/source/env.rst`).
pub const MAX_QPS_PER_CONNECTION: u32 = 128;

/// What a GPU brings to the model: its NVLink domain bandwidth.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GpuSpec {
    /// Ring all-reduce bus bandwidth inside one NVLink domain, GB/s (nccl-tests busbw).
    pub nvlink_ring_busbw_gbytes_per_s: f64,
    /// NVLink SHARP (NVLS) all-reduce bus bandwidth in one node, GB/s; `None` without NVLS.
    pub nvls_busbw_gbytes_per_s: Option<f64>,
    /// Largest number of GPUs in one NVLink domain (node).
    pub gpus_per_node_max: u32,
    /// Dense BF16 tensor throughput per GPU, TFLOPS (datasheet, no sparsity).
    pub dense_bf16_tflops: f64,
    /// GPUs in one NVLink domain (8 on HGX/DGX, 72 on NVL72).
    pub nvlink_domain_gpus: u32,
    /// PCIe generation of the GPU's own x16 host link. GPUDirect traffic to every NIC the GPU
    /// uses crosses it (NCCL's topology search takes the minimum along GPU → PCIe switch →
    /// NIC), so a GPU's share of its server's NICs is at most this link's bandwidth.
    pub pcie_gen: u8,
    /// The GPU reaches its NICs through a Grace CPU's NVLink-C2C (900 GB/s; GH200, GB200,
    /// GB300): the NICs hang off Grace's PCIe and the GPU's own x16 link does not cap its
    /// share of them (one GH200 with four 200G ports: 96.07 GB/s, NVIDIA/nccl#1579).
    pub grace_c2c: bool,
    /// Share of the dense peak the GPU sustains while computing, by job class and precision
    /// ([`super::efficiency`]); `workload.mfu` overrides it.
    pub efficiency: ComputeEfficiency,
}

/// H100 and H200 (the same NVLink 4 / NVSwitch, the same dense BF16 peak: H200 changes the
/// memory only).
const HOPPER: GpuSpec = GpuSpec {
    nvlink_ring_busbw_gbytes_per_s: 365.0,
    nvls_busbw_gbytes_per_s: Some(480.0),
    gpus_per_node_max: 8,
    dense_bf16_tflops: 989.0,
    nvlink_domain_gpus: 8,
    pcie_gen: 5,
    grace_c2c: false,
    efficiency: ComputeEfficiency::uniform(DEFAULT_MFU),
};

/// Per-GPU defaults the catalog can copy: `(name, spec, source)`.
///
/// - A100: NCCL caps compute capability 8.0 ring bandwidth at 235 GB/s (tuning.cc, NCCL 2.12
///   `if (compCap80) busBw = std::min(busBw, 235.0f)`); measured DGX A100 busbw ≈ 230 GB/s.
///   No NVLS (NVSwitch gen 2 has no SHARP).
/// - H100 / H200 (NVLink 4, 18 links): ring busbw ≈ 365–370 GB/s, NVLS ≈ 480 GB/s in one node
///   (nccl-tests#212, performance.md §2). H200 has the same NVLink as H100.
/// - B200 (NVLink 5, 2× NVLink 4 per GPU): ring busbw 695 GB/s, measured on 8 B300 with NVLS
///   off (NVIDIA/nccl#2140, NCCL 2.30.4; 680 on one 4-GPU GB200 tray, Azure ND GB200 v6), not
///   2 × H100's 365 as NCCL's tables scale Blackwell: rows N-B300-RING, N-GB200-TRAY-RING-*.
///   NVLS busbw is measured, 840 GB/s, not 2 × 480: 8 B200 in one server "830+" GB/s
///   (NVIDIA/nccl#1807) and one GB200 NVL72 rack 834.57–846.82 GB/s at 8 GiB
///   (coreweave/nccl-tests#43); NVLink SHARP is bounded by the switch's reduction, not the
///   link count. Calibration rows C13 and C15.
pub const GPU_DEFAULTS: [(&str, GpuSpec, &str); 4] = [
    (
        "a100",
        GpuSpec {
            nvlink_ring_busbw_gbytes_per_s: 230.0,
            nvls_busbw_gbytes_per_s: None,
            gpus_per_node_max: 8,
            dense_bf16_tflops: 312.0,
            nvlink_domain_gpus: 8,
            pcie_gen: 4,
            grace_c2c: false,
            efficiency: ComputeEfficiency::uniform(DEFAULT_MFU),
        },
        "NCCL tuning.cc compCap80 cap 235 GB/s; DGX A100 nccl-tests ≈ 230 GB/s",
    ),
    (
        "h100",
        HOPPER,
        "nccl-tests#212: H100 ring busbw 365-370 GB/s, NVLS ~480 GB/s in one node",
    ),
    (
        "h200",
        HOPPER,
        "same NVLink 4 / NVSwitch as H100 (nccl-tests#212)",
    ),
    (
        "b200",
        GpuSpec {
            nvlink_ring_busbw_gbytes_per_s: 695.0,
            nvls_busbw_gbytes_per_s: Some(840.0),
            gpus_per_node_max: 8,
            dense_bf16_tflops: 2250.0,
            nvlink_domain_gpus: 8,
            pcie_gen: 5,
            grace_c2c: false,
            efficiency: ComputeEfficiency::uniform(DEFAULT_MFU),
        },
        "ring 695: 8 B300 with NVLS off (NVIDIA/nccl#2140), 680 on a 4-GPU GB200 tray (Azure ND GB200 v6); NVLS 840: NVIDIA/nccl#1807, coreweave/nccl-tests#43",
    ),
];

/// Looks up a GPU default by name (`a100`, `h100`, `h200`, `b200`), with its compute
/// efficiency from the table ([`super::efficiency::for_gpu`]).
pub fn gpu_default(name: &str) -> Option<GpuSpec> {
    GPU_DEFAULTS
        .iter()
        .find(|(n, _, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, spec, _)| GpuSpec {
            efficiency: super::efficiency::for_gpu(name),
            ..*spec
        })
}

/// One NIC of a node.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NicSpec {
    /// Line rate of the NIC (all planes/ports together), Gb/s.
    pub speed_gbps: u32,
    /// PCIe generation of the GPU↔NIC path (3–6).
    pub pcie_gen: u8,
    /// PCIe lanes of the NIC (16 typical).
    pub pcie_lanes: u8,
}

/// The path collectives take through the scale-out fabric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FabricPath {
    /// Fabric family.
    pub fabric: Fabric,
    /// Switch tiers of the fabric (1 = single leaf layer, 2 = leaf–spine, 3 = with core).
    pub tiers: u8,
    /// Independent fabric planes (no effect on time: each plane is an identical copy).
    pub planes: u32,
    /// Leaf oversubscription, downlink : uplink bandwidth (1 = non-blocking).
    pub oversubscription: f64,
    /// Rail-optimized wiring (NIC i of every node in a group on the same leaf).
    pub rail_optimized: bool,
    /// Nodes that reach each other through one leaf on their rail (rail group or ToR), ≥ 1.
    pub nodes_per_leaf: u32,
    /// Uplinks of one leaf (per plane), the ECMP bins.
    pub leaf_uplinks: u32,
    /// Node-speed links one uplink carries: its speed over the link speed (4 for a leaf's
    /// 400G uplinks over 100G server links), 1 when uplinks run at the link speed. A fatter
    /// bin takes more hashed sub-flows before one must slow down (docs/model.md §4).
    pub uplink_lanes: f64,
    /// A leaf of a partly filled last scalable unit beside whole ones (sizing's
    /// `partial_leaf`): its servers have fewer same-rail peers under it, so more of their
    /// traffic crosses; the slower of it and a whole leaf sets the pace.
    pub partial_leaf: Option<PartialLeafPath>,
    /// Whole leaves hold `nodes_per_leaf` consecutive servers from the first, one after
    /// another, so a communicator's blocks can be laid on them; false where leaves follow
    /// another grid (rack leaves of `tor_copper` with racks that are not whole leaves).
    pub uniform_leaves: bool,
    /// Port-to-port latency of one switch, ns.
    pub switch_latency_ns: f64,
    /// RoCE tuning (ignored on InfiniBand).
    pub roce_tuning: RoceTuning,
    /// In-network reduction (SHARP / NCCL CollNet); only honoured on InfiniBand.
    pub in_network_reduction: bool,
}

impl FabricPath {
    /// One plane of rail-optimized, non-blocking leaves: `nodes_per_leaf` servers under each
    /// rail leaf and as many uplinks (a DGX SuperPOD scalable unit: 32 and 32 on 64-port
    /// switches), whole leaves, default RoCE tuning, no in-network reduction.
    pub fn rail_optimized(
        fabric: Fabric,
        tiers: u8,
        nodes_per_leaf: u32,
        switch_latency_ns: f64,
    ) -> FabricPath {
        FabricPath {
            fabric,
            tiers,
            planes: 1,
            oversubscription: 1.0,
            rail_optimized: true,
            nodes_per_leaf,
            leaf_uplinks: nodes_per_leaf,
            uplink_lanes: 1.0,
            partial_leaf: None,
            uniform_leaves: true,
            switch_latency_ns,
            roce_tuning: RoceTuning::Default,
            in_network_reduction: false,
        }
    }
}

/// The busiest leaf of a partial scalable unit, timed beside the whole ones: which of the
/// job's servers have ports on it and how many uplinks carry what crosses.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PartialLeafPath {
    /// The first server of the partial unit, in the order the job fills servers (a job that
    /// ends before it does not reach the leaf).
    pub first_server: f64,
    /// Servers of the partial unit.
    pub servers: f64,
    /// Rails whole on the leaf: a port on every server of the unit.
    pub whole_rails: f64,
    /// Pieces of rails split with another leaf: (first server from the unit's first, servers);
    /// (0, 0) when unused.
    pub split_rails: [(f64, f64); 2],
    /// Uplinks of the leaf, the ECMP bins.
    pub uplinks: u32,
}

/// How data parallelism keeps the model state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DataParallelMode {
    /// Replicated weights, gradient all-reduce in buckets (PyTorch DDP, Megatron DP).
    #[default]
    Ddp,
    /// Fully sharded (ZeRO-3 / FSDP): parameters all-gathered in forward and backward,
    /// gradients reduce-scattered — 1.5× the DDP volume (Rajbhandari et al., ZeRO, SC20).
    Fsdp,
}

/// Element width of activations on the wire (tensor, pipeline, context and expert traffic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Precision {
    /// 2 bytes per activation element.
    #[default]
    Bf16,
    /// 1 byte per activation element on tensor, pipeline and context traffic; on the expert
    /// all-to-all the dispatches only, the combines staying BF16 (DeepSeek-V3). Compute runs
    /// against the FP8 peak (twice the dense BF16 peak) times `mfu`.
    Fp8,
}

impl Precision {
    /// Bytes per activation element (tensor, pipeline and context traffic).
    pub fn bytes(self) -> f64 {
        match self {
            Precision::Bf16 => 2.0,
            Precision::Fp8 => 1.0,
        }
    }

    /// Bytes per element of the expert all-to-all, averaged over its four calls a MoE layer
    /// (dispatch and combine, forward and backward). FP8 as DeepSeek-V3 trains (technical
    /// report §3.3.2): the activations before the dispatch and the activation gradient before
    /// the down-projection are sent in FP8 with one FP32 scale a 1×128 tile; "both the
    /// forward and backward combine components" stay BF16. So two calls of four at
    /// 1 + 4/128 bytes, two at 2: 1.515625 bytes, 0.76 × BF16 (not 0.5 ×; audit 27).
    pub fn expert_bytes(self) -> f64 {
        match self {
            Precision::Bf16 => 2.0,
            Precision::Fp8 => {
                let fp8 = 1.0 + FP8_SCALE_BYTES / FP8_TILE_ELEMENTS;
                (fp8 + Precision::Bf16.bytes()) / 2.0
            }
        }
    }
}

/// How a mixture of experts moves tokens to their experts (`workload.moe_dispatcher`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
pub enum MoeDispatcher {
    /// NCCL's all-to-all (Megatron-Core's `alltoall` token dispatcher): every (token, expert)
    /// pair is a copy, k a token.
    #[default]
    #[serde(rename = "alltoall")]
    AllToAll,
    /// DeepEP-style: a token crosses the network once to each distinct remote node it is
    /// routed to, and is forwarded over NVLink there (DeepSeek-V3 report §3.2.2; Megatron's
    /// `flex` dispatcher with the DeepEP backend).
    #[serde(rename = "deepep")]
    DeepEp,
}

/// Bytes of one FP8 scaling factor (FP32; DeepSeek-V3 technical report §3.3.2).
pub const FP8_SCALE_BYTES: f64 = 4.0;
/// Activation elements sharing one FP8 scale (a 1×128 tile; DeepSeek-V3 §3.3.2).
pub const FP8_TILE_ELEMENTS: f64 = 128.0;

/// The training job (or a single collective when `message_bytes` is set).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Workload {
    /// Explicit message size for one all-reduce over all GPUs, bytes (nccl-tests style). When
    /// set, the model fields below except `step_compute_ms` are ignored.
    pub message_bytes: Option<u64>,
    /// Preset the job came from (informational; the fields below are what is evaluated).
    pub preset: Option<WorkloadPreset>,
    /// Model parameters, billions (all experts for a mixture of experts).
    pub model_params_billion: f64,
    /// Parameters active per token, billions (MoE); `None` = dense (all parameters).
    pub active_params_billion: Option<f64>,
    /// Bytes per gradient element in the data-parallel reduction (2 bf16, 4 fp32).
    pub bytes_per_gradient: u32,
    /// Tensor-parallel degree (inside the NVLink domain when it fits).
    pub tensor_parallel: u32,
    /// Pipeline-parallel degree.
    pub pipeline_parallel: u32,
    /// Context-parallel degree (1 = none).
    pub context_parallel: u32,
    /// Expert-parallel degree (1 = dense model); carved out of data parallelism.
    pub expert_parallel: u32,
    /// Experts each token is routed to (MoE top-k).
    pub moe_top_k: u32,
    /// Key/value attention heads (grouped-query attention), each [`HEAD_DIM`] wide: the width
    /// of the K and V a context-parallel all-gather moves per token.
    pub kv_heads: u32,
    /// Data-parallel degree; `None` = GPUs ÷ (TP·PP·CP).
    pub data_parallel: Option<u32>,
    /// DDP or FSDP/ZeRO-3.
    pub data_parallel_mode: DataParallelMode,
    /// Tokens per sequence.
    pub sequence_length: u32,
    /// Tokens per optimizer step over the whole job; `None` = 16 sequences per replica.
    pub global_batch_tokens: Option<u64>,
    /// Model hidden size; `None` = derived from the active parameters (see docs/model.md).
    pub hidden_size: Option<u32>,
    /// Transformer layers; `None` = derived: active params ÷ (12 · hidden²), a dense model's
    /// rule, which overcounts a mixture of experts (its active feed-forward per layer is k
    /// experts, not 8·hidden²: Mixtral 8x22B has 56 layers, the rule gives 86).
    pub layers: Option<u32>,
    /// Routed experts of a mixture of experts; `None` = not given (the expert-parallel degree
    /// and top-k are then not checked against it).
    pub experts: Option<u32>,
    /// Activation precision on the wire.
    pub precision: Precision,
    /// Share of the precision's dense peak the GPU sustains while it computes, (0, 1]; `None` =
    /// the GPU's entry in the achievable-efficiency table ([`super::efficiency`]). The pipeline
    /// bubble and exposed communication come on top of the compute it gives.
    pub mfu: Option<f64>,
    /// Sequences in one micro-batch (a pipeline stage's unit of work).
    pub micro_batch_sequences: u32,
    /// Model chunks a GPU holds in an interleaved pipeline (1 = not interleaved).
    pub virtual_stages: u32,
    /// How pipeline stages order their micro-batches.
    pub pipeline_schedule: PipelineSchedule,
    /// Tensor parallelism's communication overlapped with the GEMMs it feeds (Megatron's
    /// `--tp-comm-overlap`, Transformer Engine userbuffers): exposed only beyond the compute.
    pub tp_comm_overlap: bool,
    /// Compute time of one training step (forward + backward), ms; `None` = from FLOPs:
    /// model FLOPs × tokens ÷ (GPUs × the precision's dense peak × compute efficiency).
    pub step_compute_ms: Option<f64>,
    /// DDP gradient bucket size, MB (10^6 bytes).
    pub bucket_mb: f64,
    /// Share of every scale-out link's bandwidth taken by other jobs (shared fabrics), [0, 0.95].
    pub background_load: f64,
    /// NCCL settings forced by the request (algorithm, protocol, channels, QPs).
    pub nccl: NcclSettings,
    /// How much of the expert all-to-all compute hides.
    pub a2a_overlap: A2aOverlap,
    /// How tokens reach their experts.
    pub moe_dispatcher: MoeDispatcher,
    /// Most nodes a token is routed to (node-limited routing); `None` = no limit.
    pub moe_node_limit: Option<u32>,
    /// The model's own terms (1 unless an uncertainty analysis samples them).
    pub model_terms: ModelTerms,
}

/// Default model size: 70 B parameters (Llama 2/3 70B class).
pub const DEFAULT_MODEL_PARAMS_BILLION: f64 = 70.0;
/// Default gradient element: bf16 (2 bytes).
pub const DEFAULT_BYTES_PER_GRADIENT: u32 = 2;
/// Default tensor parallelism: 8 (one NVLink node, Megatron-LM practice for 70B).
pub const DEFAULT_TENSOR_PARALLEL: u32 = 8;
/// Default pipeline parallelism: 4.
pub const DEFAULT_PIPELINE_PARALLEL: u32 = 4;
/// Default DDP bucket: 25 MB (PyTorch DDP `bucket_cap_mb` default).
pub const DEFAULT_BUCKET_MB: f64 = 25.0;
/// Default sequence length, tokens (Llama 2: 4k context).
pub const DEFAULT_SEQUENCE_LENGTH: u32 = 4096;
/// Default sequences per data-parallel replica per step when `global_batch_tokens` is unset.
/// One replica (TP·PP = 32 H100) processes 16 sequences of 4,096 tokens (65,536 tokens; Llama 2
/// 70B used a 4 M-token global batch, i.e. 64 replicas).
pub const DEFAULT_SEQUENCES_PER_REPLICA: u64 = 16;
/// Default key/value heads: 8 (grouped-query attention: Llama 3 paper Table 3, 8 key/value
/// heads at 8B, 70B and 405B; Mixtral of Experts paper Table 1, n_kv_heads 8; Llama 2 70B uses
/// GQA (Llama 2 paper Table 1) with 8 in its released configuration).
pub const DEFAULT_KV_HEADS: u32 = 8;
/// Width of one attention head: 128 in every model above (Llama 3 405B: 16,384 / 128 query
/// heads; Llama 2 70B: 8,192 / 64).
pub const HEAD_DIM: f64 = 128.0;
/// Most key/value heads (multi-head attention on a 131,072-wide model).
pub const MAX_KV_HEADS: u32 = 1024;
pub use super::efficiency::DEFAULT_MFU;
/// Default micro-batch: one sequence (every Megatron-Bridge pre-training recipe of Llama 3
/// 70B/405B and DeepSeek-V3 on H100 uses MBS 1; docs/performance-summary.md).
pub const DEFAULT_MICRO_BATCH_SEQUENCES: u32 = 1;
/// Largest micro-batch, sequences.
pub const MAX_MICRO_BATCH_SEQUENCES: u32 = 65_536;
/// Most model chunks a GPU holds in an interleaved pipeline (Megatron-Bridge recipes use 2–12).
pub const MAX_VIRTUAL_STAGES: u32 = 1000;
/// Most transformer layers (Llama 3 405B has 126).
pub const MAX_LAYERS: u32 = 1000;
/// Most routed experts (DeepSeek-V3 has 256; Switch Transformer up to 2,048).
pub const MAX_EXPERTS: u32 = 4096;
/// Default MoE top-k (used only when expert_parallel > 1): 2 (Mixtral 8x7B/8x22B, GShard).
pub const DEFAULT_MOE_TOP_K: u32 = 2;

impl Workload {
    /// A mixture of experts: fewer parameters active per token than the model has.
    pub fn is_mixture_of_experts(&self) -> bool {
        self.active_params_billion
            .is_some_and(|a| a < self.model_params_billion)
    }
}

impl Default for Workload {
    /// The documented mid-size LLM data-parallel job (see docs/model.md).
    fn default() -> Self {
        Workload {
            message_bytes: None,
            preset: None,
            model_params_billion: DEFAULT_MODEL_PARAMS_BILLION,
            active_params_billion: None,
            bytes_per_gradient: DEFAULT_BYTES_PER_GRADIENT,
            tensor_parallel: DEFAULT_TENSOR_PARALLEL,
            pipeline_parallel: DEFAULT_PIPELINE_PARALLEL,
            context_parallel: 1,
            expert_parallel: 1,
            moe_top_k: DEFAULT_MOE_TOP_K,
            kv_heads: DEFAULT_KV_HEADS,
            data_parallel: None,
            data_parallel_mode: DataParallelMode::Ddp,
            sequence_length: DEFAULT_SEQUENCE_LENGTH,
            global_batch_tokens: None,
            hidden_size: None,
            layers: None,
            experts: None,
            precision: Precision::Bf16,
            mfu: None,
            micro_batch_sequences: DEFAULT_MICRO_BATCH_SEQUENCES,
            virtual_stages: 1,
            pipeline_schedule: PipelineSchedule::OneFOneB,
            tp_comm_overlap: false,
            step_compute_ms: None,
            bucket_mb: DEFAULT_BUCKET_MB,
            background_load: 0.0,
            nccl: NcclSettings::default(),
            a2a_overlap: A2aOverlap::None,
            moe_dispatcher: MoeDispatcher::AllToAll,
            moe_node_limit: None,
            model_terms: ModelTerms::default(),
        }
    }
}

impl WorkloadPreset {
    /// The job this preset describes.
    pub fn workload(self) -> Workload {
        let base = Workload::default();
        match self {
            WorkloadPreset::DenseLlama3_405b => Workload {
                preset: Some(self),
                model_params_billion: 405.0,
                bytes_per_gradient: 4,
                tensor_parallel: 8,
                pipeline_parallel: 16,
                sequence_length: 8192,
                global_batch_tokens: Some(16 * 1024 * 1024),
                hidden_size: Some(16_384),
                // Llama 3 paper Table 3: 126 layers.
                layers: Some(126),
                // The paper (§3.3.2) runs an interleaved 1F1B schedule and does not print its
                // virtual-stage count: Megatron-Bridge's Llama 3.1 405B pre-training recipe on
                // H100 uses 8 (`perf_recipes/llama/h100/llama31.py`, TP8 PP8 VP8).
                pipeline_schedule: PipelineSchedule::Interleaved,
                virtual_stages: 8,
                ..base
            },
            WorkloadPreset::FsdpLlama2_70b => Workload {
                preset: Some(self),
                model_params_billion: 70.0,
                tensor_parallel: 1,
                pipeline_parallel: 1,
                data_parallel_mode: DataParallelMode::Fsdp,
                sequence_length: 4096,
                global_batch_tokens: Some(4 * 1024 * 1024),
                hidden_size: Some(8192),
                // Llama 2 70B: 80 layers (Touvron et al. 2023, released configuration; the
                // dense rule gives 87).
                layers: Some(80),
                ..base
            },
            WorkloadPreset::MoeDeepseekV3 => Workload {
                preset: Some(self),
                model_params_billion: 671.0,
                active_params_billion: Some(37.0),
                tensor_parallel: 1,
                pipeline_parallel: 16,
                expert_parallel: 64,
                moe_top_k: 8,
                sequence_length: 4096,
                global_batch_tokens: Some(15_360 * 4096),
                hidden_size: Some(7168),
                // DeepSeek-V3 technical report §4.2: 61 layers, 256 routed experts (and one
                // shared) a MoE layer. Its first 3 layers are dense: all 61 are counted with an
                // all-to-all, 5 % too many.
                layers: Some(61),
                experts: Some(256),
                precision: Precision::Bf16,
                // The published job hides its all-to-all with DualPipe (report §3.2.1), which
                // is also its pipeline schedule.
                a2a_overlap: A2aOverlap::DualPipe,
                pipeline_schedule: PipelineSchedule::DualPipe,
                // Its all-to-all kernels send a token over InfiniBand once to each of at most 4
                // nodes and forward it over NVLink (report §2.1.2 and §3.2.2).
                moe_dispatcher: MoeDispatcher::DeepEp,
                moe_node_limit: Some(4),
                ..base
            },
        }
    }
}

/// Everything `evaluate` needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PerfInput {
    /// GPUs in the job.
    pub gpus: u32,
    /// GPUs per node (NVLink domain).
    pub gpus_per_node: u32,
    /// Scale-out NICs per node.
    pub nics_per_node: u32,
    /// GPU NVLink figures.
    pub gpu: GpuSpec,
    /// NIC figures.
    pub nic: NicSpec,
    /// Fabric path.
    pub path: FabricPath,
    /// Workload.
    pub workload: Workload,
}

// Valid ranges (inclusive): the model's own domain, checked by `validate`. The API's bounded
// inputs (`plan::request`) lie within them, asserted where those are declared.

/// Smallest job, GPUs.
pub const MIN_GPUS: u32 = 1;
/// Largest job, GPUs.
pub const MAX_GPUS: u32 = 1_000_000;
/// Smallest node, GPUs.
pub const MIN_GPUS_PER_NODE: u32 = 1;
/// Largest NVLink domain, GPUs (GB200 NVL72).
pub const MAX_GPUS_PER_NODE: u32 = 72;
/// Fewest NICs per node.
pub const MIN_NICS_PER_NODE: u32 = 1;
/// Most NICs per node.
pub const MAX_NICS_PER_NODE: u32 = 72;
/// Slowest NIC, Gb/s.
pub const MIN_NIC_SPEED_GBPS: u32 = 10;
/// Fastest NIC, Gb/s.
pub const MAX_NIC_SPEED_GBPS: u32 = 3200;
/// Oldest PCIe generation.
pub const MIN_PCIE_GEN: u8 = 3;
/// Newest PCIe generation.
pub const MAX_PCIE_GEN: u8 = 6;
/// Fewest PCIe lanes.
pub const MIN_PCIE_LANES: u8 = 1;
/// Most PCIe lanes.
pub const MAX_PCIE_LANES: u8 = 32;
/// Fewest switch tiers.
pub const MIN_TIERS: u8 = 1;
/// Most switch tiers.
pub const MAX_TIERS: u8 = 4;
/// Fewest planes.
pub const MIN_PLANES: u32 = 1;
/// Most planes.
pub const MAX_PLANES: u32 = 16;
/// Lowest oversubscription (non-blocking).
pub const MIN_OVERSUBSCRIPTION: f64 = 1.0;
/// Highest oversubscription.
pub const MAX_OVERSUBSCRIPTION: f64 = 16.0;
/// Fewest nodes per leaf.
pub const MIN_NODES_PER_LEAF: u32 = 1;
/// Most nodes per leaf.
pub const MAX_NODES_PER_LEAF: u32 = 4096;
/// Fewest leaf uplinks.
pub const MIN_LEAF_UPLINKS: u32 = 1;
/// Most leaf uplinks.
pub const MAX_LEAF_UPLINKS: u32 = 4096;
/// Fewest node-speed links an uplink carries (uplinks at the link speed).
pub const MIN_UPLINK_LANES: f64 = 1.0;
/// Most node-speed links an uplink carries (1.6T over 100G is 16).
pub const MAX_UPLINK_LANES: f64 = 64.0;
/// Lowest switch latency, ns.
pub const MIN_SWITCH_LATENCY_NS: f64 = 0.0;
/// Highest switch latency, ns.
pub const MAX_SWITCH_LATENCY_NS: f64 = 10_000.0;
/// Lowest NVLink ring / NVLS busbw, GB/s.
pub const MIN_NVLINK_BUSBW_GBYTES_PER_S: f64 = 1.0;
/// Highest NVLink ring / NVLS busbw, GB/s.
pub const MAX_NVLINK_BUSBW_GBYTES_PER_S: f64 = 100_000.0;
/// Smallest explicit message, bytes.
pub const MIN_MESSAGE_BYTES: u64 = 1;
/// Largest explicit message, bytes (1 TiB).
pub const MAX_MESSAGE_BYTES: u64 = 1 << 40;
/// Smallest model, billions of parameters.
pub const MIN_MODEL_PARAMS_BILLION: f64 = 0.001;
/// Largest model, billions of parameters.
pub const MAX_MODEL_PARAMS_BILLION: f64 = 100_000.0;
/// Smallest gradient element, bytes (fp8).
pub const MIN_BYTES_PER_GRADIENT: u32 = 1;
/// Largest gradient element, bytes (fp64).
pub const MAX_BYTES_PER_GRADIENT: u32 = 8;
/// Smallest TP / PP degree.
pub const MIN_PARALLEL: u32 = 1;
/// Largest TP / PP degree.
pub const MAX_PARALLEL: u32 = 4096;
/// Shortest step compute, ms.
pub const MIN_STEP_COMPUTE_MS: f64 = 0.001;
/// Longest step compute, ms (one hour).
pub const MAX_STEP_COMPUTE_MS: f64 = 3_600_000.0;
/// Smallest bucket, MB.
pub const MIN_BUCKET_MB: f64 = 0.001;
/// Largest bucket, MB.
pub const MAX_BUCKET_MB: f64 = 1_000_000.0;
/// Highest context / expert parallel degree.
pub const MAX_CP_EP: u32 = 4096;
/// Highest MoE top-k.
pub const MAX_TOP_K: u32 = 64;
/// Longest sequence, tokens.
pub const MAX_SEQUENCE_LENGTH: u32 = 10_000_000;
/// Largest global batch, tokens.
pub const MAX_GLOBAL_BATCH_TOKENS: u64 = 1_000_000_000_000;
/// Smallest / largest hidden size.
pub const MIN_HIDDEN_SIZE: u32 = 64;
/// Largest hidden size.
pub const MAX_HIDDEN_SIZE: u32 = 1_000_000;
/// Lowest MFU.
pub const MIN_MFU: f64 = 0.01;
/// Highest MFU.
pub const MAX_MFU: f64 = 1.0;
/// Highest background load share.
pub const MAX_BACKGROUND_LOAD: f64 = 0.95;
