//! The plan request as clients send it (JSON body or query parameters). Every field but `gpus`
//! is optional; [`super::inputs::resolve`] fills the documented defaults. Every limit is checked
//! by `validator` and mirrored in the OpenAPI schema.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::{Validate, ValidationError};

use crate::catalog::TierCabling;
use crate::cost::Category;
use crate::fabric::Fabric;
use crate::perf::{DataParallelMode, Precision, RoceTuning, WorkloadPreset};

// ---- The bounded inputs: each declared once (type, unit, bounds, default, doc). ----
// One line an input: `int`, `float` or `decimal`, then what `bounded_int!`, `bounded_float!`
// or `bounded_decimal!` takes.
crate::plan::bounded::bounded_inputs! {
    /// GPUs in the cluster.
    int Gpus: u32, 1..=1_000_000, "GPUs";
    /// GPUs per server (8 on HGX/DGX).
    int GpusPerNode: u32, 1..=72, "GPUs per server";
    /// Scale-out NIC ports per server.
    int NicsPerNode: u32, 1..=72, "NIC ports per server";
    /// Leaf oversubscription, downlink : uplink bandwidth (1 = non-blocking).
    float Oversubscription, 1.0..=16.0, "downlink:uplink ratio", default 1;
    /// Independent fabric planes; each NIC's bandwidth is split across them. Not given: 1, or
    /// on Ethernet as many planes as the NIC runs links (ConnectX-8: 2 × 400G).
    int Planes: u32, 1..=8, "planes";
    // Default three tiers: NVIDIA's SuperPOD layout above the two-tier ceiling.
    /// Most switch tiers allowed (2 = leaf–spine, 3 = with core).
    int MaxTiers: u8, 2..=3, "switch tiers", default 3;
    /// GPU servers a rack of the buyer's data hall takes (power and cooling decide it).
    int NodesPerRack: u32, 1..=72, "servers per rack";
    /// One all-reduce of this many bytes over all GPUs (nccl-tests style).
    int MessageBytes: u64, 1..=1_099_511_627_776, "bytes";
    /// Model parameters.
    float ModelParamsBillion, 0.001..=100000.0, "billion parameters", model_default 70;
    /// Bytes per gradient element in the all-reduce (2 = bf16, 4 = fp32).
    int BytesPerGradient: u32, 1..=8, "bytes per element", model_default 2;
    /// A parallelism degree (GPUs per group).
    int ParallelDegree: u32, 1..=4096, "GPUs per group";
    /// Compute time of one training step (forward + backward).
    float StepComputeMs, 0.001..=3600000.0, "ms";
    /// DDP gradient bucket size (PyTorch `bucket_cap_mb`).
    float BucketMb, 0.001..=1000000.0, "MB (10^6 bytes)", default 25;
    /// Experts each token is routed to (mixture of experts).
    int MoeTopK: u32, 1..=64, "experts per token", model_default 2;
    /// Key/value attention heads of 128 (grouped-query attention).
    int KvHeads: u32, 1..=1024, "heads", default 8;
    /// Transformer layers of the model.
    int Layers: u32, 1..=1000, "layers";
    /// Routed experts of a mixture of experts.
    int Experts: u32, 1..=4096, "experts";
    /// Data-parallel degree (model replicas).
    int DataParallelDegree: u32, 1..=1_000_000, "replicas";
    /// Tokens per training sequence.
    int SequenceLength: u32, 1..=10_000_000, "tokens", model_default 4096;
    /// Tokens per optimizer step over the whole job.
    int GlobalBatchTokens: u64, 1..=1_000_000_000_000, "tokens";
    /// Model hidden size.
    int HiddenSize: u32, 64..=1_000_000, "model dimension";
    /// Tokens a training run processes.
    float TrainTokens, 1.0..=1.0e16, "tokens";
    /// Share of the precision's dense peak the GPU sustains while it computes.
    float Mfu, 0.01..=1.0, "fraction of peak";
    /// Most nodes a token is routed to.
    int MoeNodeLimit: u32, 1..=1_000_000, "nodes";
    /// Sequences in one pipeline micro-batch.
    int MicroBatchSequences: u32, 1..=65_536, "sequences", model_default 1;
    /// Model chunks a GPU holds in an interleaved pipeline.
    int VirtualStages: u32, 1..=1000, "model chunks a GPU", model_default 1;
    /// Share of every scale-out link's bandwidth other jobs use.
    float BackgroundLoad, 0.0..=0.95, "fraction of link bandwidth", default 0;
    /// Job-interrupting failures per part and year.
    float FailuresPerPartYear, 0.0..=10.0, "failures per part-year";
    /// A duration in minutes (up to a week).
    float Minutes, 0.0..=10080.0, "minutes";
    // Default five years: the depreciation life of servers and networking.
    /// TCO horizon.
    int Years: u32, 1..=15, "years", default 5;
    /// Life over which capex is written off.
    int DepreciationYears: u32, 1..=15, "years";
    /// A share between 0 and 1.
    decimal Fraction, 0..=1, "fraction (0.12 = 12%)";
    /// Electricity price.
    decimal ElectricityUsdPerKwh, 0..=10, "USD per kWh";
    /// Power usage effectiveness (facility power ÷ IT power).
    decimal Pue, 1..=3, "ratio";
    /// A fully loaded yearly salary.
    decimal SalaryUsdPerYear, 0..=10_000_000, "USD per year";
    /// GPUs one full-time engineer looks after.
    decimal GpusPerFte, 1..=1_000_000, "GPUs per FTE";
    /// Value of one GPU-hour.
    decimal GpuHourUsd, 0..=1000, "USD per GPU-hour";
    /// A subscription priced per NIC endpoint.
    decimal UsdPerEndpointYear, 0..=100_000, "USD per endpoint per year";
    /// A subscription priced per switch.
    decimal UsdPerSwitchYear, 0..=1_000_000, "USD per switch per year";
    /// A net unit price.
    decimal UnitPriceUsd, 0..=1_000_000_000, "USD";
    /// A budget.
    decimal BudgetUsd, 0..=1_000_000_000_000_i64, "USD";
    /// A facility's power envelope.
    decimal FacilityMw, 0..=100_000, "MW";
    /// A discount off list price (0.15 = 15% off).
    decimal Discount, 0..<1, "fraction off list";
    /// NCCL channels a communicator runs (`NCCL_MIN_CTAS` = `NCCL_MAX_CTAS`).
    int NcclChannels: u32, 1..=64, "channels";
    /// Queue pairs per NCCL connection (`NCCL_IB_QPS_PER_CONNECTION`).
    int QpsPerConnection: u32, 1..=128, "queue pairs per connection";
    /// A multiplier on one of the performance model's own terms.
    float ModelTerm, 0.25..=2.0, "multiplier (1 = the model as validated)", default 1;
    /// Monte Carlo samples of an uncertainty analysis.
    int Samples: u32, 1..=100_000, "samples", model_default 1000;
    /// Seed of the uncertainty analysis' random draws: the same seed gives the same answer on
    /// any machine (below 2^53, so every JSON client keeps it exact).
    int Seed: u64, 0..=9_007_199_254_740_991, "seed", model_default 1;
}
// ---- The bounded inputs: each declared once (type, unit, bounds, default, doc). ----

// The comparison's break-even sentence names this bound when the break-even lies beyond it.
const _: () = assert!(GpuHourUsd::MAX_I64 == crate::cost::GPU_HOUR_USD_MAX);

// What the performance model accepts (`perf::validate`, its own domain, wider where the API is
// stricter: planes, tiers) holds every request within these bounds, and the defaults these
// inputs document are the model's: checked when the crate compiles.
// One line an input (rustfmt would wrap the longer ones).
#[rustfmt::skip]
const _: () = {
    use crate::perf as p;
    // `inside!(T, MIN, MAX)`: T's bounds lie in the model's [MIN, MAX]; `, DEFAULT` also
    // checks T's documented default is the model's; `_` skips a bound the model lacks.
    macro_rules! inside {
        ($t:ident, $min:tt, $max:ident $(, $default:ident)?) => {
            inside!(@min $t, $min);
            assert!($t::MAX <= p::$max);
            $(assert!($t::DEFAULT == p::$default);)?
        };
        (@min $t:ident, _) => {};
        (@min $t:ident, $min:ident) => {
            assert!($t::MIN >= p::$min);
        };
    }
    inside!(Gpus, MIN_GPUS, MAX_GPUS);
    inside!(GpusPerNode, MIN_GPUS_PER_NODE, MAX_GPUS_PER_NODE);
    inside!(NicsPerNode, MIN_NICS_PER_NODE, MAX_NICS_PER_NODE);
    inside!(Oversubscription, MIN_OVERSUBSCRIPTION, MAX_OVERSUBSCRIPTION);
    inside!(Planes, MIN_PLANES, MAX_PLANES);
    inside!(MaxTiers, MIN_TIERS, MAX_TIERS);
    inside!(MessageBytes, MIN_MESSAGE_BYTES, MAX_MESSAGE_BYTES);
    inside!(ModelParamsBillion, MIN_MODEL_PARAMS_BILLION, MAX_MODEL_PARAMS_BILLION, DEFAULT_MODEL_PARAMS_BILLION);
    inside!(BytesPerGradient, MIN_BYTES_PER_GRADIENT, MAX_BYTES_PER_GRADIENT, DEFAULT_BYTES_PER_GRADIENT);
    inside!(ParallelDegree, MIN_PARALLEL, MAX_PARALLEL);
    inside!(ParallelDegree, _, MAX_CP_EP);
    inside!(StepComputeMs, MIN_STEP_COMPUTE_MS, MAX_STEP_COMPUTE_MS);
    inside!(BucketMb, MIN_BUCKET_MB, MAX_BUCKET_MB, DEFAULT_BUCKET_MB);
    inside!(MoeTopK, _, MAX_TOP_K, DEFAULT_MOE_TOP_K);
    inside!(KvHeads, _, MAX_KV_HEADS, DEFAULT_KV_HEADS);
    inside!(Layers, _, MAX_LAYERS);
    inside!(Experts, _, MAX_EXPERTS);
    inside!(SequenceLength, _, MAX_SEQUENCE_LENGTH, DEFAULT_SEQUENCE_LENGTH);
    inside!(GlobalBatchTokens, _, MAX_GLOBAL_BATCH_TOKENS);
    inside!(HiddenSize, MIN_HIDDEN_SIZE, MAX_HIDDEN_SIZE);
    inside!(Mfu, MIN_MFU, MAX_MFU);
    inside!(MicroBatchSequences, _, MAX_MICRO_BATCH_SEQUENCES, DEFAULT_MICRO_BATCH_SEQUENCES);
    inside!(VirtualStages, _, MAX_VIRTUAL_STAGES);
    inside!(BackgroundLoad, _, MAX_BACKGROUND_LOAD);
    assert!(BackgroundLoad::MIN >= 0.0);
    inside!(NcclChannels, _, MAX_NCCL_CHANNELS);
    inside!(QpsPerConnection, _, MAX_QPS_PER_CONNECTION);
};

/// NIC speeds the catalogs carry, Gb/s.
pub const NIC_SPEEDS_GBPS: [u32; 4] = [100, 200, 400, 800];

/// Speed of each scale-out NIC port: 100, 200, 400 or 800 Gb/s.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct NicSpeedGbps(u32);

impl NicSpeedGbps {
    pub fn get(self) -> u32 {
        self.0
    }
    pub fn new(v: u32) -> Option<NicSpeedGbps> {
        NIC_SPEEDS_GBPS.contains(&v).then_some(NicSpeedGbps(v))
    }
    /// A resolved value echoed in a plan's `inputs`.
    pub fn echo(v: u32) -> NicSpeedGbps {
        NicSpeedGbps(v)
    }
}

impl<'de> Deserialize<'de> for NicSpeedGbps {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = u64::deserialize(d)?;
        u32::try_from(n)
            .ok()
            .and_then(NicSpeedGbps::new)
            .ok_or_else(|| {
                serde::de::Error::custom(format!(
                    "{}must be one of 100, 200, 400, 800 (Gb/s) (got {n})",
                    super::bounded::OUT_OF_RANGE
                ))
            })
    }
}

impl utoipa::PartialSchema for NicSpeedGbps {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
        ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::Integer))
            .enum_values(Some(NIC_SPEEDS_GBPS))
            .description(Some(
                "Speed of each scale-out NIC port. Unit: Gb/s. One of 100, 200, 400, 800.",
            ))
            .into()
    }
}

impl utoipa::ToSchema for NicSpeedGbps {
    fn name() -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed("NicSpeedGbps")
    }
}

/// Largest number of entries in one price map.
pub const MAX_PRICE_ENTRIES: usize = 256;

fn map_size<K, V>(m: &BTreeMap<K, V>) -> Result<(), ValidationError> {
    if m.len() > MAX_PRICE_ENTRIES {
        let mut e = ValidationError::new("length");
        e.message = Some(format!("at most {MAX_PRICE_ENTRIES} entries").into());
        return Err(e);
    }
    Ok(())
}

fn distinct_fabrics(v: &[Fabric]) -> Result<(), ValidationError> {
    let mut seen = Vec::new();
    for f in v {
        if seen.contains(f) {
            let mut e = ValidationError::new("unique");
            e.message = Some(format!("'{}' is listed twice", f.as_str()).into());
            return Err(e);
        }
        seen.push(*f);
    }
    Ok(())
}

/// A catalog reference: an id, or `id@<12 to 64 lower-case hex digits of its SHA-256>`.
fn catalog_reference(v: &str) -> Result<(), ValidationError> {
    let (id, pin) = crate::catalog::split_reference(v);
    identifier(id)?;
    match pin {
        Some(p) if !crate::catalog::is_pin(p) => {
            let mut e = ValidationError::new("pattern");
            e.message = Some(
                "a pinned version is 'id@' and 12 to 64 lower-case hex digits of its sha256".into(),
            );
            Err(e)
        }
        _ => Ok(()),
    }
}

fn identifier(v: &str) -> Result<(), ValidationError> {
    if v.bytes()
        .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
    {
        Ok(())
    } else {
        let mut e = ValidationError::new("pattern");
        e.message = Some("only letters, digits, '-', '_' and '.'".into());
        Err(e)
    }
}

/// A plan request: the cluster, the fabrics to compare and the assumptions.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"gpus": 1024, "gpu_model": "h100", "fabrics": ["infiniband", "roce", "roce_adaptive"], "economics": {"years": 5}}))]
pub struct PlanRequest {
    /// GPUs in the cluster (required).
    pub gpus: Gpus,
    /// Catalog GPU id (`a100`, `h100`, `h200`, `b200`, `b300`, `gb200-nvl72`, `gb300-nvl72`;
    /// matched case-insensitively). Default `h100`.
    #[validate(length(min = 1, max = 32), custom(function = "identifier"))]
    #[schema(value_type = Option<crate::catalog::GpuModelId>, example = "h100")]
    pub gpu_model: Option<String>,
    /// GPUs per server. Default: the GPU model's (8 for HGX/DGX, 4 for an NVL72 compute tray).
    /// At most the model's where the server is its NVLink domain (HGX/DGX: 8; more is a 422);
    /// fewer is a smaller board (an HGX H100 4-GPU server).
    pub gpus_per_node: Option<GpusPerNode>,
    /// Scale-out NIC ports per server. Default: one per GPU.
    pub nics_per_node: Option<NicsPerNode>,
    /// Speed of each scale-out NIC, Gb/s: 100, 200, 400 or 800. Default: the GPU model's (the
    /// catalog's `gpus[].nic_speed_gbps`: 400 for H100, H200, B200 and GB200, 800 for B300 and
    /// GB300, 200 for A100).
    pub nic_speed_gbps: Option<NicSpeedGbps>,
    /// Fabrics to plan and compare. Default: all three.
    #[validate(length(min = 1, max = 3), custom(function = "distinct_fabrics"))]
    #[schema(min_items = 1, max_items = 3)]
    pub fabrics: Option<Vec<Fabric>>,
    /// Pricing catalog id (see `GET /v1/catalogs`), or one version of it pinned by the first 12
    /// or more hex digits of its sha256 (`default@3f0c1a2b4c5d`; see
    /// `GET /v1/catalogs/{id}/versions`): a pinned plan is priced from that version even after
    /// the catalog changed. Default: the newest catalog, as it is now.
    #[validate(length(min = 1, max = 129), custom(function = "catalog_reference"))]
    #[schema(
        min_length = 1,
        max_length = 129,
        pattern = "^[A-Za-z0-9._-]+(@[0-9a-f]{12,64})?$",
        example = "default"
    )]
    pub catalog: Option<String>,
    /// Fabric shape.
    #[validate(nested)]
    pub topology: Option<TopologyRequest>,
    /// What the gradient all-reduce moves and how much compute hides it.
    #[validate(nested)]
    pub workload: Option<WorkloadRequest>,
    /// NCCL settings a published run forced, to reproduce it (`auto`: NCCL's own choice).
    #[validate(nested)]
    pub nccl: Option<NcclRequest>,
    /// The performance model's own terms as multipliers (1 = the model as validated); an
    /// uncertainty analysis samples them over ranges from the validation table's residuals.
    #[validate(nested)]
    pub model: Option<ModelRequest>,
    /// Network failures that interrupt the job (rates per part, checkpointing, restart).
    #[validate(nested)]
    pub reliability: Option<ReliabilityRequest>,
    /// How much the cluster is used.
    #[validate(nested)]
    pub utilization: Option<UtilizationRequest>,
    /// Money and time assumptions.
    #[validate(nested)]
    pub economics: Option<EconomicsRequest>,
    /// The buyer's own prices: per-SKU overrides and discounts.
    #[validate(nested)]
    pub prices: Option<PricesRequest>,
    /// An uncertainty analysis beside the point plan: ranges on inputs and catalog prices,
    /// Monte Carlo percentiles, the probability each fabric is cheapest, a tornado of what
    /// drives the gap (docs/uncertainty.md). Absent: no analysis.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<UncertaintyRequest>,
}

/// Fabric shape options.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologyRequest {
    /// Leaf oversubscription, downlink : uplink bandwidth (1 = non-blocking). Default 1.
    pub oversubscription: Option<Oversubscription>,
    /// Rail-optimized wiring (NIC i of every node on the same leaf group). Default true.
    pub rail_optimized: Option<bool>,
    /// Independent fabric planes; each NIC's bandwidth is split across them. Default: 1 link
    /// per NIC, except on Ethernet with a NIC that runs its speed only as several links
    /// (ConnectX-8: two 400G planes); `inputs` then leave it out and each fabric's
    /// `topology.planes` says what was built.
    pub planes: Option<Planes>,
    /// Most switch tiers allowed (2 = leaf–spine, 3 = with core). Default 3.
    pub max_tiers: Option<MaxTiers>,
    /// Fabric design: `auto` (default: size every design that fits and keep the cheapest that
    /// meets the oversubscription and tiers, never rail-only nor a whole fabric on one switch)
    /// or one named design (`single_switch`, `dual_switch`, `collapsed_rails`, `rail_only`,
    /// `su_clos`, `tor_copper`). See docs/sizing.md "Designs".
    pub design: Option<crate::sizing::DesignChoice>,
    /// GPU servers per rack in your data hall. When given, the `tor_copper` design is sized:
    /// a leaf switch in each rack, cabled to its servers with copper (no NIC-side optics). It
    /// puts all of a server's NIC ports on one leaf, so `auto` builds it only with
    /// `rail_optimized: false` (it is listed either way). No default: rack density is a
    /// facility limit (NVIDIA's H100 SuperPOD RA allows 1, 2 or 4 DGX per rack).
    pub nodes_per_rack: Option<NodesPerRack>,
    /// Switch SKU from the catalog for every requested fabric, instead of each fabric's profile.
    #[validate(length(min = 1, max = 64), custom(function = "identifier"))]
    #[schema(min_length = 1, max_length = 64, pattern = "^[A-Za-z0-9._-]+$")]
    pub switch_sku: Option<String>,
    /// Switch SKU from the catalog for the spine tier, when it is another model than the
    /// leaves (`switch_sku` or the profile's): the fabric is then a two-tier leaf–spine of the
    /// two, and a leaf with faster uplink ports (the Arista 7280CR3-32D4's 4 × 400G beside
    /// 32 × 100G) uses them, the spine taking them at that speed. See docs/sizing.md "A spine
    /// of another model".
    #[validate(length(min = 1, max = 64), custom(function = "identifier"))]
    #[schema(min_length = 1, max_length = 64, pattern = "^[A-Za-z0-9._-]+$")]
    pub spine_sku: Option<String>,
    /// NIC SKU from the catalog for every requested fabric, instead of each fabric's profile
    /// (and the server's own NICs). It must run every fabric asked; `nic_speed_gbps` defaults
    /// to its speed. With `topology.switch_sku`, the parts of one vendor set (e.g. a Broadcom
    /// Thor2 NIC on a Tomahawk 5 switch for `roce_adaptive`).
    #[validate(length(min = 1, max = 64), custom(function = "identifier"))]
    #[schema(min_length = 1, max_length = 64, pattern = "^[A-Za-z0-9._-]+$")]
    pub nic_sku: Option<String>,
    /// In-network reduction (SHARP / CollNet) on InfiniBand. Default false.
    pub in_network_reduction: Option<bool>,
    /// RoCE tuning: `default` (1 QP per connection, plain ECMP) or `tuned` (more QPs, enhanced
    /// ECMP, tuned ECN). Default `default`.
    pub roce_tuning: Option<RoceTuning>,
    /// The NVLink domain of an NVL72 GPU (GB200, GB300): `rack` (default: the 72 GPUs of a
    /// rack share multi-node NVLink, as NCCL's MNNVL runs them) or `tray` (each 4-GPU compute
    /// tray a node of its own, everything between trays over the scale-out fabric, as with
    /// MNNVL disabled). On a GPU whose server is its NVLink domain both mean the server.
    pub nvlink_domain: Option<NvlinkDomain>,
    /// Per-tier optics and cables (catalog SKUs), replacing the fabric profile's choice.
    pub cabling: Option<CablingRequest>,
}

/// Which GPUs share one NVLink domain on an NVL72 rack.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum NvlinkDomain {
    /// The rack's 72 GPUs (multi-node NVLink).
    #[default]
    Rack,
    /// A compute tray's 4 GPUs.
    Tray,
}

/// Per-tier cabling overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CablingRequest {
    /// Node–leaf: e.g. `{"nic_module": null, "switch_module": null, "cable": "dac-800g-twin-2m"}`
    /// for in-rack copper.
    pub node_leaf: Option<TierCabling>,
    /// Leaf–spine.
    pub leaf_spine: Option<TierCabling>,
    /// Spine–core.
    pub spine_core: Option<TierCabling>,
}

/// The training job whose gradient all-reduce the network carries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadRequest {
    /// One all-reduce of this many bytes over all GPUs (nccl-tests style) instead of the
    /// job's gradient buckets, fully exposed on the step's compute (`step_compute_ms`, else
    /// the job's compute on this GPU at `mfu`).
    pub message_bytes: Option<MessageBytes>,
    /// Model parameters, billions. Default 70, or the preset's.
    pub model_params_billion: Option<ModelParamsBillion>,
    /// Bytes per gradient element in the all-reduce (2 = bf16, 4 = fp32). Default 2, or the
    /// preset's.
    pub bytes_per_gradient: Option<BytesPerGradient>,
    /// Tensor-parallel degree. Default min(8, GPUs per node, GPUs ÷ context_parallel).
    pub tensor_parallel: Option<ParallelDegree>,
    /// Pipeline-parallel degree. Default 4, or min(4, GPUs ÷ (TP × CP)) on a smaller
    /// cluster; GPUs ÷ (TP × CP × DP) when `data_parallel` is given. GPUs a shape leaves out
    /// are warned.
    pub pipeline_parallel: Option<ParallelDegree>,
    /// Compute time of one training step (forward + backward), ms. Default: derived from the
    /// model, the global batch, the GPU's dense BF16 TFLOPS and the MFU (2,174 ms for the
    /// default job on H100, 956 ms on B200; docs/model.md §5).
    pub step_compute_ms: Option<StepComputeMs>,
    /// DDP gradient bucket. Default 25.
    pub bucket_mb: Option<BucketMb>,
    /// A documented, sourced job (docs/model.md#presets); the fields below override it.
    /// Default: none — the 70B TP 8 × PP 4 DDP job above (smaller on a small cluster).
    pub preset: Option<WorkloadPreset>,
    /// Parameters active per token, billions (mixture of experts), at most
    /// `model_params_billion`. Default: all parameters (dense).
    pub active_params_billion: Option<ModelParamsBillion>,
    /// Context-parallel degree. Default 1.
    pub context_parallel: Option<ParallelDegree>,
    /// Expert-parallel degree (1 = dense), carved out of data parallelism. Default 1, or the
    /// preset's; a preset's degree that does not divide the cluster's data-parallel replicas is
    /// fitted (warned), and echoed in `inputs` as null so that posting them back fits it again.
    pub expert_parallel: Option<ParallelDegree>,
    /// Experts per token (MoE top-k). Default 2, or the preset's.
    pub moe_top_k: Option<MoeTopK>,
    /// Key/value attention heads, each 128 wide (grouped-query attention): the width of the
    /// K and V a context-parallel all-gather moves (capped at the hidden size; as many as
    /// query heads for multi-head attention). Default 8 (Llama 2 70B, Llama 3, Mixtral).
    pub kv_heads: Option<KvHeads>,
    /// Transformer layers. Default: the preset's, else active parameters ÷ (12 × hidden²), a
    /// dense model's rule that overcounts a mixture of experts (Mixtral 8x22B: 56 layers, the
    /// rule gives 86): set it for one. The value used is `performance.layers`.
    pub layers: Option<Layers>,
    /// Routed experts (mixture of experts): `expert_parallel` must divide it and `moe_top_k`
    /// be at most it. Default: the preset's (DeepSeek-V3: 256), else not checked; echoed as
    /// null when a preset's fitted degree splits them unevenly.
    pub experts: Option<Experts>,
    /// Data-parallel degree; must equal the whole replicas of TP × PP × CP GPUs the cluster
    /// holds, ⌊GPUs ÷ (TP × PP × CP)⌋ (GPUs left over are warned). Default: that number.
    pub data_parallel: Option<DataParallelDegree>,
    /// `ddp` (gradient all-reduce) or `fsdp` (ZeRO-3: parameter all-gathers and gradient
    /// reduce-scatter). Default `ddp`.
    pub data_parallel_mode: Option<DataParallelMode>,
    /// Tokens per sequence. Default 4,096, or the preset's.
    pub sequence_length: Option<SequenceLength>,
    /// Tokens per optimizer step over the whole job; at least one sequence per data-parallel
    /// replica (`sequence_length` × GPUs ÷ (TP · PP · CP)), else 422. Default: 16 sequences
    /// per replica; a preset's published batch, raised to one sequence per replica on a larger
    /// cluster.
    pub global_batch_tokens: Option<GlobalBatchTokens>,
    /// Model hidden size. Default: derived from the active parameters (params ≈ 12 · layers ·
    /// hidden², layers ≈ hidden / 128).
    pub hidden_size: Option<HiddenSize>,
    /// Activation precision on the wire: `bf16` (2 bytes) or `fp8` (1 byte; on the expert
    /// all-to-all the dispatches only, the combines stay BF16, as DeepSeek-V3). Default `bf16`.
    pub precision: Option<Precision>,
    /// Share of the expert all-to-all hidden behind compute: `none`, `dualpipe` (DeepSeek-V3's
    /// schedule: 96.4 % hidden as its released trace shows, at most the step's compute, its 20
    /// of 132 SMs taken from the compute it overlaps) or a fraction 0–1. Default `none`, or the
    /// preset's (`moe-deepseek-v3`: `dualpipe`).
    pub a2a_overlap: Option<crate::perf::A2aOverlap>,
    /// Share of the precision's dense peak (BF16, or FP8 at twice it) the GPU sustains while
    /// it computes; the pipeline bubble and exposed communication come on top. Default: the
    /// GPU's entry in the achievable-efficiency table for the job's class (dense or mixture of
    /// experts) and precision, derived from published runs (docs/model.md §7); 0.40 for a GPU
    /// the table does not list. Sets the step compute when `step_compute_ms` is not given.
    pub mfu: Option<Mfu>,
    /// Sequences in one pipeline micro-batch: with the global batch it sets the micro-batches
    /// a pipeline runs per step, and so its bubble. Default 1 (Megatron-Bridge's recipes).
    pub micro_batch_sequences: Option<MicroBatchSequences>,
    /// How pipeline stages order their micro-batches: `1f1b` (bubble (p − 1)/m of the
    /// compute), `interleaved` (with `virtual_stages` v: (p − 1)/(v·m)) or `dualpipe`
    /// (DeepSeek's: (p/2 − 1)·(2/3)/m). Default `interleaved` when `virtual_stages` > 1, else
    /// `1f1b`; the preset's (`moe-deepseek-v3`: `dualpipe`).
    pub pipeline_schedule: Option<crate::perf::PipelineSchedule>,
    /// Model chunks a GPU holds in an interleaved pipeline (Megatron's
    /// `--num-layers-per-virtual-pipeline-stage` gives layers ÷ (p · v)). Default 1; at least 2
    /// with `pipeline_schedule: interleaved`.
    pub virtual_stages: Option<VirtualStages>,
    /// Tensor parallelism's communication overlapped with the GEMMs it feeds (Megatron's
    /// `--tp-comm-overlap`, Transformer Engine userbuffers, as every Megatron-Bridge Llama
    /// recipe with TP > 1 sets it): then exposed only beyond the step's compute. Default
    /// `false` (Megatron-LM's default).
    pub tp_comm_overlap: Option<bool>,
    /// How a mixture of experts moves tokens to their experts: `alltoall` (NCCL's all-to-all,
    /// Megatron-Core's default dispatcher: k copies of a token) or `deepep` (a token crosses the
    /// network once to each distinct node it is routed to and is forwarded over NVLink there:
    /// DeepSeek-V3's kernels, Megatron's `flex` dispatcher). Default `alltoall`, or the
    /// preset's (`moe-deepseek-v3`: `deepep`).
    pub moe_dispatcher: Option<crate::perf::MoeDispatcher>,
    /// Most nodes (NVLink domains) a token is routed to: node-limited routing (DeepSeek-V3: 4).
    /// With `deepep` it bounds the distinct nodes a token crosses to. Default: no limit, or
    /// the preset's (`moe-deepseek-v3`: 4).
    pub moe_node_limit: Option<MoeNodeLimit>,
    /// Share of link bandwidth other jobs use. On a shared cluster; applies to every fabric.
    /// Default 0.
    pub background_load: Option<BackgroundLoad>,
    /// Tokens the training run processes (Llama 3 405B: 15.6e12): gives per fabric
    /// `training` — the days to train from the step time, GPU-hours, and the cost per million
    /// tokens (network, idle GPU time, the GPUs' own time). Default: none (not timed).
    pub train_tokens: Option<TrainTokens>,
}

/// NCCL settings, as `NCCL_ALGO`, `NCCL_PROTO`, `NCCL_MIN_CTAS`/`NCCL_MAX_CTAS` and
/// `NCCL_IB_QPS_PER_CONNECTION` would force them, so that a published run can be reproduced.
/// Absent or `auto`: NCCL's own choice (docs/model.md §3). They apply to every collective of
/// the job.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NcclRequest {
    /// All-reduce algorithm: `auto` (default: the fastest of NCCL's cost model), `ring`,
    /// `tree`, `nvls`, `nvls_tree`, `collnet`. One that cannot run on the cluster (NVLS across
    /// servers, CollNet without `topology.in_network_reduction`) leaves the choice to NCCL, and
    /// the plan says so.
    pub algorithm: Option<crate::perf::NcclAlgorithm>,
    /// Protocol: `auto` (default), `simple`, `ll`, `ll128`.
    pub protocol: Option<crate::perf::NcclProtocol>,
    /// Channels a communicator runs, shared over the server's NICs. Default: two a NIC (NCCL's
    /// search and duplication on NVLink servers).
    pub channels: Option<NcclChannels>,
    /// Queue pairs per connection: more sub-flows for ECMP to hash. Default 1, or 4 with
    /// `topology.roce_tuning: tuned`; given, it applies whatever the tuning.
    pub qps_per_connection: Option<QpsPerConnection>,
}

/// The performance model's own terms, each a multiplier on what the model predicts (1 = the
/// model as validated against `GET /v1/validation`). Set one to ask "what if the model is off
/// by this much"; an uncertainty analysis samples them by default (`uncertainty.model_error_ranges`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ModelRequest {
    /// Bandwidth every scale-out link delivers (NIC efficiency). Default 1.
    pub nic_efficiency: Option<ModelTerm>,
    /// Plain ECMP's efficiency on traffic that crosses a leaf (RoCE only). Default 1.
    pub ecmp_efficiency: Option<ModelTerm>,
    /// The expert all-to-all's network bandwidth. Default 1.
    pub a2a_efficiency: Option<ModelTerm>,
}

/// Network faults that interrupt the job: yearly failure rates per part and what each
/// interruption costs. Defaults and sources in docs/cost.md#failures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReliabilityRequest {
    /// Job-interrupting failures per NIC per year. Default 0.00289 (Llama 3: 7 NIC
    /// interruptions in 54 days on 16,384 NICs).
    pub nic_failures_per_year: Option<FailuresPerPartYear>,
    /// Job-interrupting failures per switch per year. Default 0.00220 (with two or more
    /// planes they do not interrupt).
    pub switch_failures_per_year: Option<FailuresPerPartYear>,
    /// Job-interrupting failures per transceiver per year. Default 0.00220 (with two or more
    /// planes they do not interrupt).
    pub transceiver_failures_per_year: Option<FailuresPerPartYear>,
    /// Job-interrupting failures per cable per year. Default 0.00220 (with two or more
    /// planes they do not interrupt).
    pub cable_failures_per_year: Option<FailuresPerPartYear>,
    /// Minutes between checkpoints; an interruption loses half of it on average.
    /// Default 30.
    pub checkpoint_interval_minutes: Option<Minutes>,
    /// Minutes from an interruption to training again (detect, replace or cordon, reload).
    /// Default 15.
    pub restart_minutes: Option<Minutes>,
}

/// Cluster utilization.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UtilizationRequest {
    /// Share of hours the cluster runs jobs. Default: catalog.
    pub busy_fraction: Option<Fraction>,
}

/// How a GPU-hour is valued for idle cost.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum GpuHourBasis {
    /// Owned cost: (purchase + server share) ÷ depreciation hours + power.
    #[default]
    Owned,
    /// The on-demand rental rate (opportunity cost).
    Rental,
}

/// Money and time assumptions. Money and rates accept decimal strings (`"0.085"`) or numbers.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct EconomicsRequest {
    /// Horizon of the TCO. Default 5.
    pub years: Option<Years>,
    /// Discount rate per year for NPV. Default: catalog.
    pub discount_rate: Option<Fraction>,
    /// Electricity price. Default: catalog.
    pub electricity_usd_per_kwh: Option<ElectricityUsdPerKwh>,
    /// Power usage effectiveness. Default: catalog.
    pub pue: Option<Pue>,
    /// Hardware support per year as a share of hardware capex. Default: catalog.
    pub support_rate: Option<Fraction>,
    /// Network engineer, fully loaded, USD per year. Default: catalog.
    pub network_engineer_usd_per_year: Option<SalaryUsdPerYear>,
    /// InfiniBand specialist, fully loaded, USD per year. Default: catalog.
    pub ib_specialist_usd_per_year: Option<SalaryUsdPerYear>,
    /// GPUs per network engineer FTE (either fabric). Default: catalog.
    pub gpus_per_network_fte: Option<GpusPerFte>,
    /// GPUs per additional InfiniBand specialist FTE. Default: catalog.
    pub gpus_per_ib_specialist: Option<GpusPerFte>,
    /// Spare parts per year as a share of hardware capex. Default: catalog.
    pub spares_rate: Option<Fraction>,
    /// Years over which the network's capex (each fabric's `depreciation`) and the GPUs (the
    /// owned GPU-hour value) are depreciated, straight line. Default: catalog (5).
    pub depreciation_years: Option<DepreciationYears>,
    /// Value of one GPU-hour. Default: from the GPU model and `gpu_hour_basis`.
    pub gpu_hour_usd: Option<GpuHourUsd>,
    /// `owned` (default) or `rental`: how the default GPU-hour value is derived.
    pub gpu_hour_basis: Option<GpuHourBasis>,
    /// NVIDIA UFM subscription, USD per NIC endpoint per year (InfiniBand). No public price:
    /// without it the plan warns "quote required".
    pub ufm_usd_per_endpoint_per_year: Option<UsdPerEndpointYear>,
    /// Ethernet NOS subscription/support, USD per switch per year. Default: catalog.
    pub ethernet_nos_usd_per_switch_per_year: Option<UsdPerSwitchYear>,
}

/// The buyer's prices.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PricesRequest {
    /// Net unit price per SKU, USD (no discount applies on top of an override). The yearly
    /// subscriptions (UFM, Ethernet NOS support) are priced by their `economics` inputs: an
    /// override of one is a 422 naming the input.
    #[validate(custom(function = "map_size"))]
    #[schema(example = json!({"nvidia-qm9700": "42000.00"}))]
    pub overrides: Option<BTreeMap<String, UnitPriceUsd>>,
    /// Discounts off list price.
    #[validate(nested)]
    pub discounts: Option<DiscountsRequest>,
}

/// Discounts as fractions (0.15 = 15% off). Vendor and category discounts compound.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscountsRequest {
    /// Discount by vendor. Vendors are named as in the catalog (`NVIDIA`), case included; a
    /// vendor no part comes from is a 422 listing the catalog's vendors.
    #[validate(custom(function = "map_size"))]
    #[schema(example = json!({"NVIDIA": "0.15"}))]
    pub vendor: Option<BTreeMap<String, Discount>>,
    /// Discount by category (`nic`, `switch`, `optic`, `cable`, `license`).
    #[validate(custom(function = "map_size"))]
    #[schema(example = json!({"optic": "0.30"}))]
    pub category: Option<BTreeMap<Category, Discount>>,
}

/// Most uncertain inputs one analysis names.
pub const MAX_UNCERTAIN_INPUTS: usize = 64;

/// What the uncertainty analysis samples, and how often.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UncertaintyRequest {
    /// Monte Carlo samples. Default 1,000 (sending it asks for an analysis).
    pub samples: Option<Samples>,
    /// Seed of the random draws (same seed, same answer). Default 1 (sending it asks for an
    /// analysis).
    pub seed: Option<Seed>,
    /// Give every BOM SKU without a range of its own (and without a price override) its
    /// catalog price range (`price_range_usd`: triangular, low / list price / high), and every
    /// catalog operating figure with a range (support rate, staffing ratios, the InfiniBand
    /// specialist's cost) that the request neither sets nor ranges its catalog range. Default
    /// true.
    pub catalog_price_ranges: Option<bool>,
    /// Sample the performance model's own terms (`model.nic_efficiency`,
    /// `model.ecmp_efficiency`, `model.a2a_efficiency`) over ranges derived from the validation
    /// table's residuals (`GET /v1/validation`), unless the request ranges them itself.
    /// Default true.
    pub model_error_ranges: Option<bool>,
    /// Uncertain inputs by name: any continuous plan input that does not change the fabric's
    /// design (`economics.*`, `utilization.*`, `workload.*`, `reliability.*`,
    /// `prices.overrides.<sku>`, `prices.discounts.vendor.<vendor>`,
    /// `prices.discounts.category.<category>`) or a catalog list price
    /// (`prices.list.<sku>`). Each is a range: `{"low": …, "mode": …, "high": …}` (triangular)
    /// or `{"low": …, "high": …}` (uniform), or the same as text, `"low,mode,high"` /
    /// `"low,high"` (the query form: `uncertainty.inputs.economics.gpu_hour_usd=1.5,2.5,4`).
    /// Empty: the catalog's price ranges only. At most 64.
    pub inputs: Option<UncertainInputs>,
}

/// A distribution of an uncertain input.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DistributionKind {
    /// Every value from low to high equally likely.
    Uniform,
    /// Low, most likely (mode), high: the density rises linearly to the mode and falls to high.
    Triangular,
}

/// The range of one uncertain input, in the input's unit. Numbers or decimal strings.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct InputRange {
    /// `uniform` or `triangular`. Default: triangular when `mode` is given, else uniform.
    #[schema(required = false)]
    pub distribution: DistributionKind,
    /// Lowest value.
    #[schema(schema_with = range_low_schema)]
    pub low: rust_decimal::Decimal,
    /// Most likely value (triangular only).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(schema_with = range_mode_schema, required = false)]
    pub mode: Option<rust_decimal::Decimal>,
    /// Highest value.
    #[schema(schema_with = range_high_schema)]
    pub high: rust_decimal::Decimal,
}

/// An end (or the mode) of a range: a decimal string or a JSON number, as the service reads it
/// (`strict_decimal`; a number by its shortest text). Typed `string` alone until audit 20, so a
/// client validating against the schema refused `{"low": 1.5}`.
fn range_value_schema(what: &str, example: &str) -> utoipa::openapi::schema::Object {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::from_iter([Type::String, Type::Number]))
        .pattern(Some(r"^-?[0-9]+(\.[0-9]+)?$"))
        .description(Some(format!(
            "{what}, in the input's unit: a decimal string (\"{example}\") or a number."
        )))
        .examples([example])
        .build()
}

fn range_low_schema() -> utoipa::openapi::schema::Object {
    range_value_schema("Lowest value", "1.5")
}

fn range_mode_schema() -> utoipa::openapi::schema::Object {
    range_value_schema("Most likely value (triangular only)", "2.5")
}

fn range_high_schema() -> utoipa::openapi::schema::Object {
    range_value_schema("Highest value", "4")
}

/// Uncertain inputs by dotted name (nested objects are read as dotted names too, which is
/// how the query form arrives).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(transparent)]
pub struct UncertainInputs(pub BTreeMap<String, InputRange>);

impl utoipa::ToSchema for UncertainInputs {
    fn schemas(
        out: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        out.push((
            "InputRange".into(),
            <InputRange as utoipa::PartialSchema>::schema(),
        ));
        <InputRange as utoipa::ToSchema>::schemas(out);
    }
}

impl utoipa::PartialSchema for UncertainInputs {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Ref, SchemaType, Type};
        let text = ObjectBuilder::new()
            .schema_type(SchemaType::new(Type::String))
            .description(Some("`low,high` (uniform) or `low,mode,high` (triangular)"))
            .pattern(Some(
                r"^\s*-?[0-9]+(\.[0-9]+)?\s*(,\s*-?[0-9]+(\.[0-9]+)?\s*){1,2}$",
            ));
        ObjectBuilder::new()
        .schema_type(SchemaType::new(Type::Object))
        .description(Some(
            "Uncertain inputs by dotted name, each a range; nested objects are read as dotted names.",
        ))
        .additional_properties(Some(utoipa::openapi::RefOr::T(
            utoipa::openapi::schema::Schema::OneOf(
                // A group of names (`{"economics": {"gpu_hour_usd": …}}`), read as dotted
                // names: the same schema again (audit 21 F8: the nested form the docs show
                // failed the schema). An object with `low` and `high` is a range.
                OneOfBuilder::new()
                    .item(text)
                    .item(Ref::from_schema_name("InputRange"))
                    .item(Ref::from_schema_name("UncertainInputs"))
                    .build(),
            ),
        )))
        .examples([serde_json::json!({
            "economics.gpu_hour_usd": {"low": "1.5", "mode": "2.5", "high": "4"},
            "prices.list.nvidia-sn5600": "30000,45000"
        })])
        .into()
    }
}

impl InputRange {
    /// From text: `low,high` (uniform) or `low,mode,high` (triangular).
    pub fn parse(text: &str) -> Result<InputRange, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        let num = |t: &str| {
            crate::plan::bounded::strict_decimal(t)
                .ok_or_else(|| format!("'{t}' is not a plain decimal number"))
        };
        match parts.as_slice() {
            [lo, hi] => Ok(InputRange {
                distribution: DistributionKind::Uniform,
                low: num(lo)?,
                mode: None,
                high: num(hi)?,
            }),
            [lo, mode, hi] => Ok(InputRange {
                distribution: DistributionKind::Triangular,
                low: num(lo)?,
                mode: Some(num(mode)?),
                high: num(hi)?,
            }),
            _ => Err("a range is 'low,high' (uniform) or 'low,mode,high' (triangular)".into()),
        }
    }
}

const RANGE_KEYS: [&str; 4] = ["distribution", "low", "mode", "high"];

/// A range's number: a JSON number or a decimal string.
struct RangeNumber(rust_decimal::Decimal);

impl<'de> Deserialize<'de> for RangeNumber {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<RangeNumber, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = RangeNumber;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a number or a decimal string")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<RangeNumber, E> {
                crate::plan::bounded::strict_decimal(v.trim())
                    .map(RangeNumber)
                    .ok_or_else(|| E::custom(format!("'{v}' is not a plain decimal number")))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<RangeNumber, E> {
                crate::plan::bounded::decimal_from_f64(v)
                    .map(RangeNumber)
                    .ok_or_else(|| E::custom("not a finite number"))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<RangeNumber, E> {
                Ok(RangeNumber(rust_decimal::Decimal::from(v)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<RangeNumber, E> {
                Ok(RangeNumber(rust_decimal::Decimal::from(v)))
            }
        }
        d.deserialize_any(V)
    }
}

/// One entry of `inputs`: a range (object or text) or a group of further names.
enum Entry {
    Range(InputRange),
    Group(Vec<(String, InputRange)>),
}

impl<'de> Deserialize<'de> for Entry {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Entry, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Entry;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a range: {\"low\", \"mode\", \"high\"} or \"low,mode,high\"")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Entry, E> {
                InputRange::parse(v).map(Entry::Range).map_err(E::custom)
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut m: A) -> Result<Entry, A::Error> {
                use serde::de::Error;
                let mut dist: Option<DistributionKind> = None;
                let (mut low, mut mode, mut high) = (None, None, None);
                let mut group: Vec<(String, InputRange)> = Vec::new();
                let mut is_range: Option<bool> = None;
                while let Some(key) = m.next_key::<String>()? {
                    let range_key = RANGE_KEYS.contains(&key.as_str());
                    if *is_range.get_or_insert(range_key) != range_key {
                        return Err(A::Error::custom(format!(
                            "'{key}': a range has only distribution, low, mode and high"
                        )));
                    }
                    match key.as_str() {
                        "distribution" if dist.is_none() => dist = Some(m.next_value()?),
                        "low" if low.is_none() => low = Some(m.next_value::<RangeNumber>()?.0),
                        "mode" if mode.is_none() => mode = Some(m.next_value::<RangeNumber>()?.0),
                        "high" if high.is_none() => high = Some(m.next_value::<RangeNumber>()?.0),
                        k if range_key => {
                            return Err(A::Error::custom(format!(
                                "{}'{k}' is given more than once",
                                crate::plan::bounded::REPEATED
                            )));
                        }
                        _ => match m.next_value::<Entry>()? {
                            Entry::Range(r) => group.push((key, r)),
                            // `{"economics.pue": {}}` names no range: refused, not dropped.
                            Entry::Group(g) if g.is_empty() => {
                                return Err(A::Error::custom(format!(
                                    "'{key}': an empty object is no range; give {{\"low\": …, \"high\": …}}"
                                )));
                            }
                            Entry::Group(g) => {
                                group.extend(g.into_iter().map(|(k, r)| (format!("{key}.{k}"), r)))
                            }
                        },
                    }
                }
                if is_range != Some(true) {
                    return Ok(Entry::Group(group));
                }
                let (Some(low), Some(high)) = (low, high) else {
                    return Err(A::Error::custom("a range needs 'low' and 'high'"));
                };
                let distribution = dist.unwrap_or(if mode.is_some() {
                    DistributionKind::Triangular
                } else {
                    DistributionKind::Uniform
                });
                Ok(Entry::Range(InputRange {
                    distribution,
                    low,
                    mode,
                    high,
                }))
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de> Deserialize<'de> for InputRange {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<InputRange, D::Error> {
        match Entry::deserialize(d)? {
            Entry::Range(r) => Ok(r),
            Entry::Group(_) => Err(serde::de::Error::custom(
                "a range: {\"low\", \"mode\", \"high\"} or \"low,mode,high\"",
            )),
        }
    }
}

impl<'de> Deserialize<'de> for UncertainInputs {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<UncertainInputs, D::Error> {
        use serde::de::Error;
        let flat = match Entry::deserialize(d)? {
            Entry::Group(g) => g,
            Entry::Range(_) => {
                return Err(D::Error::custom(
                    "name each uncertain input: {\"economics.gpu_hour_usd\": {\"low\": …, \"high\": …}}",
                ));
            }
        };
        if flat.len() > MAX_UNCERTAIN_INPUTS {
            return Err(D::Error::custom(format!(
                "at most {MAX_UNCERTAIN_INPUTS} uncertain inputs"
            )));
        }
        let mut out = BTreeMap::new();
        for (k, r) in flat {
            if out.insert(k.clone(), r).is_some() {
                return Err(D::Error::custom(format!(
                    "{}'{k}' is given more than once (by its dotted name and nested)",
                    crate::plan::bounded::REPEATED
                )));
            }
        }
        Ok(UncertainInputs(out))
    }
}
