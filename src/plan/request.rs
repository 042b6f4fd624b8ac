//! The plan request as clients send it (JSON body or query parameters). Every field but `gpus`
//! is optional; [`super::inputs::resolve`] fills the documented defaults. Every limit is checked
//! by `validator` and mirrored in the OpenAPI schema.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::{Validate, ValidationError};

use crate::catalog::TierCabling;
use crate::cost::Category;
use crate::fabric::Fabric;
use crate::perf::{DataParallelMode, Precision, RoceTuning, WorkloadPreset};

/// Checks a decimal against an inclusive range (validator's `range` does not take Decimal).
fn in_range(v: &Decimal, min: i64, max: i64) -> Result<(), ValidationError> {
    if *v < Decimal::from(min) || *v > Decimal::from(max) {
        let mut e = ValidationError::new("range");
        e.message = Some(format!("must be between {min} and {max} (got {v})").into());
        return Err(e);
    }
    Ok(())
}

fn fraction(v: &Decimal) -> Result<(), ValidationError> {
    in_range(v, 0, 1)
}
fn electricity(v: &Decimal) -> Result<(), ValidationError> {
    in_range(v, 0, 10)
}
fn pue_range(v: &Decimal) -> Result<(), ValidationError> {
    in_range(v, 1, 3)
}
fn salary(v: &Decimal) -> Result<(), ValidationError> {
    in_range(v, 0, 10_000_000)
}
fn gpus_per_fte(v: &Decimal) -> Result<(), ValidationError> {
    in_range(v, 1, 1_000_000)
}
fn gpu_hour(v: &Decimal) -> Result<(), ValidationError> {
    in_range(v, 0, 1_000)
}
fn per_endpoint(v: &Decimal) -> Result<(), ValidationError> {
    in_range(v, 0, 100_000)
}
fn per_switch(v: &Decimal) -> Result<(), ValidationError> {
    in_range(v, 0, 1_000_000)
}

/// Largest number of entries in one price map.
pub const MAX_PRICE_ENTRIES: usize = 256;

fn override_prices(m: &BTreeMap<String, Decimal>) -> Result<(), ValidationError> {
    if m.len() > MAX_PRICE_ENTRIES {
        let mut e = ValidationError::new("length");
        e.message = Some(format!("at most {MAX_PRICE_ENTRIES} overrides").into());
        return Err(e);
    }
    for (sku, p) in m {
        if *p < Decimal::ZERO || *p > Decimal::from(1_000_000_000) {
            let mut e = ValidationError::new("range");
            e.message =
                Some(format!("price for '{sku}' must be between 0 and 1000000000 USD").into());
            return Err(e);
        }
    }
    Ok(())
}

fn vendor_discounts(m: &BTreeMap<String, Decimal>) -> Result<(), ValidationError> {
    discount_map(m.iter().map(|(k, v)| (k.as_str(), v)), m.len())
}

fn category_discounts(m: &BTreeMap<Category, Decimal>) -> Result<(), ValidationError> {
    discount_map(m.iter().map(|(k, v)| (k.as_str(), v)), m.len())
}

fn discount_map<'a>(
    entries: impl Iterator<Item = (&'a str, &'a Decimal)>,
    len: usize,
) -> Result<(), ValidationError> {
    if len > MAX_PRICE_ENTRIES {
        let mut e = ValidationError::new("length");
        e.message = Some(format!("at most {MAX_PRICE_ENTRIES} discounts").into());
        return Err(e);
    }
    for (k, v) in entries {
        if *v < Decimal::ZERO || *v >= Decimal::ONE {
            let mut e = ValidationError::new("range");
            e.message = Some(
                format!("discount for '{k}' must be a fraction in [0, 1) (0.15 = 15% off)").into(),
            );
            return Err(e);
        }
    }
    Ok(())
}

fn nic_speed(v: u32) -> Result<(), ValidationError> {
    if [100, 200, 400, 800].contains(&v) {
        Ok(())
    } else {
        let mut e = ValidationError::new("one_of");
        e.message = Some("must be one of 100, 200, 400, 800 (Gb/s)".into());
        Err(e)
    }
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"gpus": 1024, "gpu_model": "h100", "fabrics": ["infiniband", "roce", "roce_adaptive"], "economics": {"years": 5}}))]
pub struct PlanRequest {
    /// GPUs in the cluster (required).
    #[validate(range(min = 1, max = 1_000_000))]
    #[schema(minimum = 1, maximum = 1000000, example = 1024)]
    pub gpus: u32,
    /// Catalog GPU id (`a100`, `h100`, `h200`, `b200`). Default `h100`.
    #[serde(default)]
    #[validate(length(min = 1, max = 32), custom(function = "identifier"))]
    #[schema(
        min_length = 1,
        max_length = 32,
        pattern = "^[A-Za-z0-9._-]+$",
        example = "h100"
    )]
    pub gpu_model: Option<String>,
    /// GPUs per server. Default: the GPU model's (8 for HGX/DGX).
    #[serde(default)]
    #[validate(range(min = 1, max = 72))]
    #[schema(minimum = 1, maximum = 72, example = 8)]
    pub gpus_per_node: Option<u32>,
    /// Scale-out NIC ports per server. Default: one per GPU.
    #[serde(default)]
    #[validate(range(min = 1, max = 72))]
    #[schema(minimum = 1, maximum = 72, example = 8)]
    pub nics_per_node: Option<u32>,
    /// Speed of each scale-out NIC, Gb/s: 100, 200, 400 or 800. Default 400.
    #[serde(default)]
    #[validate(custom(function = "nic_speed"))]
    #[schema(minimum = 100, maximum = 800, example = 400)]
    pub nic_speed_gbps: Option<u32>,
    /// Fabrics to plan and compare. Default: all three.
    #[serde(default)]
    #[validate(length(min = 1, max = 3), custom(function = "distinct_fabrics"))]
    #[schema(min_items = 1, max_items = 3)]
    pub fabrics: Option<Vec<Fabric>>,
    /// Pricing catalog id (see `GET /v1/catalogs`). Default: the newest.
    #[serde(default)]
    #[validate(length(min = 1, max = 64), custom(function = "identifier"))]
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = "^[A-Za-z0-9._-]+$",
        example = "default"
    )]
    pub catalog: Option<String>,
    /// Fabric shape.
    #[serde(default)]
    #[validate(nested)]
    pub topology: Option<TopologyRequest>,
    /// What the gradient all-reduce moves and how much compute hides it.
    #[serde(default)]
    #[validate(nested)]
    pub workload: Option<WorkloadRequest>,
    /// Network failures that interrupt the job (rates per part, checkpointing, restart).
    #[serde(default)]
    #[validate(nested)]
    pub reliability: Option<ReliabilityRequest>,
    /// How much the cluster is used.
    #[serde(default)]
    #[validate(nested)]
    pub utilization: Option<UtilizationRequest>,
    /// Money and time assumptions.
    #[serde(default)]
    #[validate(nested)]
    pub economics: Option<EconomicsRequest>,
    /// The buyer's own prices: per-SKU overrides and discounts.
    #[serde(default)]
    #[validate(nested)]
    pub prices: Option<PricesRequest>,
}

/// Fabric shape options.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TopologyRequest {
    /// Leaf oversubscription, downlink : uplink bandwidth (1 = non-blocking). Default 1.
    #[serde(default)]
    #[validate(range(min = 1.0, max = 16.0))]
    #[schema(minimum = 1, maximum = 16, example = 1)]
    pub oversubscription: Option<f64>,
    /// Rail-optimized wiring (NIC i of every node on the same leaf group). Default true.
    #[serde(default)]
    pub rail_optimized: Option<bool>,
    /// Independent fabric planes; each NIC's bandwidth is split across them. Default 1.
    #[serde(default)]
    #[validate(range(min = 1, max = 8))]
    #[schema(minimum = 1, maximum = 8, example = 1)]
    pub planes: Option<u32>,
    /// Most switch tiers allowed (2 = leaf–spine, 3 = with core). Default 3.
    #[serde(default)]
    #[validate(range(min = 2, max = 3))]
    #[schema(minimum = 2, maximum = 3, example = 3)]
    pub max_tiers: Option<u8>,
    /// Switch SKU from the catalog for every requested fabric, instead of each fabric's profile.
    #[serde(default)]
    #[validate(length(min = 1, max = 64), custom(function = "identifier"))]
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = "^[A-Za-z0-9._-]+$",
        example = "nvidia-qm9790"
    )]
    pub switch_sku: Option<String>,
    /// In-network reduction (SHARP / CollNet) on InfiniBand. Default false.
    #[serde(default)]
    pub in_network_reduction: Option<bool>,
    /// RoCE tuning: `default` (1 QP per connection, plain ECMP) or `tuned` (more QPs, enhanced
    /// ECMP, tuned ECN). Default `default`.
    #[serde(default)]
    pub roce_tuning: Option<RoceTuning>,
    /// Per-tier optics and cables (catalog SKUs), replacing the fabric profile's choice.
    #[serde(default)]
    pub cabling: Option<CablingRequest>,
}

/// Per-tier cabling overrides.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CablingRequest {
    /// Node–leaf: e.g. `{"nic_module": null, "switch_module": null, "cable": "dac-800g-twin-2m"}`
    /// for in-rack copper.
    #[serde(default)]
    pub node_leaf: Option<TierCabling>,
    /// Leaf–spine.
    #[serde(default)]
    pub leaf_spine: Option<TierCabling>,
    /// Spine–core.
    #[serde(default)]
    pub spine_core: Option<TierCabling>,
}

/// The training job whose gradient all-reduce the network carries.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkloadRequest {
    /// One all-reduce of this many bytes over all GPUs (nccl-tests style) instead of a
    /// training step.
    #[serde(default)]
    #[validate(range(min = 1, max = 1_099_511_627_776_u64))]
    #[schema(minimum = 1, maximum = 1099511627776_u64, example = 8589934592_u64)]
    pub message_bytes: Option<u64>,
    /// Model parameters, billions. Default 70.
    #[serde(default)]
    #[validate(range(min = 0.001, max = 100000.0))]
    #[schema(minimum = 0.001, maximum = 100000, example = 70)]
    pub model_params_billion: Option<f64>,
    /// Bytes per gradient element in the all-reduce (2 = bf16, 4 = fp32). Default 2.
    #[serde(default)]
    #[validate(range(min = 1, max = 8))]
    #[schema(minimum = 1, maximum = 8, example = 2)]
    pub bytes_per_gradient: Option<u32>,
    /// Tensor-parallel degree. Default min(8, GPUs per node).
    #[serde(default)]
    #[validate(range(min = 1, max = 4096))]
    #[schema(minimum = 1, maximum = 4096, example = 8)]
    pub tensor_parallel: Option<u32>,
    /// Pipeline-parallel degree. Default min(4, GPUs ÷ tensor_parallel).
    #[serde(default)]
    #[validate(range(min = 1, max = 4096))]
    #[schema(minimum = 1, maximum = 4096, example = 4)]
    pub pipeline_parallel: Option<u32>,
    /// Compute time of one training step (forward + backward), ms. Default 2,175.
    #[serde(default)]
    #[validate(range(min = 0.001, max = 3600000.0))]
    #[schema(minimum = 0.001, maximum = 3600000, example = 2175)]
    pub step_compute_ms: Option<f64>,
    /// DDP gradient bucket, MB (10^6 bytes). Default 25.
    #[serde(default)]
    #[validate(range(min = 0.001, max = 1000000.0))]
    #[schema(minimum = 0.001, maximum = 1000000, example = 25)]
    pub bucket_mb: Option<f64>,
    /// A documented, sourced job (docs/model.md#presets); the fields below override it.
    /// Default: none — the 70B TP 8 × PP 4 DDP job above.
    #[serde(default)]
    pub preset: Option<WorkloadPreset>,
    /// Parameters active per token, billions (mixture of experts), at most
    /// `model_params_billion`. Default: all parameters (dense).
    #[serde(default)]
    #[validate(range(min = 0.001, max = 100000.0))]
    #[schema(minimum = 0.001, maximum = 100000, example = 37)]
    pub active_params_billion: Option<f64>,
    /// Context-parallel degree. Default 1.
    #[serde(default)]
    #[validate(range(min = 1, max = 4096))]
    #[schema(minimum = 1, maximum = 4096, example = 1)]
    pub context_parallel: Option<u32>,
    /// Expert-parallel degree (1 = dense), carved out of data parallelism. Default 1.
    #[serde(default)]
    #[validate(range(min = 1, max = 4096))]
    #[schema(minimum = 1, maximum = 4096, example = 1)]
    pub expert_parallel: Option<u32>,
    /// Experts per token (MoE top-k). Default 2.
    #[serde(default)]
    #[validate(range(min = 1, max = 64))]
    #[schema(minimum = 1, maximum = 64, example = 2)]
    pub moe_top_k: Option<u32>,
    /// Data-parallel degree; must equal GPUs ÷ (TP × PP × CP). Default: that quotient.
    #[serde(default)]
    #[validate(range(min = 1, max = 1000000))]
    #[schema(minimum = 1, maximum = 1000000, example = 32)]
    pub data_parallel: Option<u32>,
    /// `ddp` (gradient all-reduce) or `fsdp` (ZeRO-3: parameter all-gathers and gradient
    /// reduce-scatter). Default `ddp`.
    #[serde(default)]
    pub data_parallel_mode: Option<DataParallelMode>,
    /// Tokens per sequence. Default 4,096.
    #[serde(default)]
    #[validate(range(min = 1, max = 10000000))]
    #[schema(minimum = 1, maximum = 10000000, example = 4096)]
    pub sequence_length: Option<u32>,
    /// Tokens per optimizer step over the whole job. Default: 16 sequences per data-parallel
    /// replica.
    #[serde(default)]
    #[validate(range(min = 1, max = 1_000_000_000_000_u64))]
    #[schema(minimum = 1, maximum = 1000000000000_u64, example = 4194304)]
    pub global_batch_tokens: Option<u64>,
    /// Model hidden size. Default: derived from the active parameters (params ≈ 12 · layers ·
    /// hidden², layers ≈ hidden / 128).
    #[serde(default)]
    #[validate(range(min = 64, max = 1000000))]
    #[schema(minimum = 64, maximum = 1000000, example = 8192)]
    pub hidden_size: Option<u32>,
    /// Activation precision on the wire: `bf16` (2 bytes) or `fp8` (1 byte). Default `bf16`.
    #[serde(default)]
    pub precision: Option<Precision>,
    /// Model FLOPs utilization against the GPU's dense BF16 peak, 0.01–1. Default 0.40 (Llama 3
    /// paper: 38–43% on H100). Sets the step compute when `step_compute_ms` is not given.
    #[serde(default)]
    #[validate(range(min = 0.01, max = 1.0))]
    #[schema(minimum = 0.01, maximum = 1, example = 0.4)]
    pub mfu: Option<f64>,
    /// Share of every scale-out link's bandwidth used by other jobs on a shared fabric,
    /// 0–0.95, applied to every fabric. Default 0.
    #[serde(default)]
    #[validate(range(min = 0.0, max = 0.95))]
    #[schema(minimum = 0, maximum = 0.95, example = 0)]
    pub background_load: Option<f64>,
}

/// Network faults that interrupt the job: yearly failure rates per part and what each
/// interruption costs. Defaults and sources in docs/cost.md#failures.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ReliabilityRequest {
    /// Job-interrupting failures per NIC per year, 0–10. Default 0.00289 (Llama 3: 7 NIC
    /// interruptions in 54 days on 16,384 NICs).
    #[serde(default)]
    #[validate(range(min = 0.0, max = 10.0))]
    #[schema(minimum = 0, maximum = 10, example = 0.00289)]
    pub nic_failures_per_year: Option<f64>,
    /// Job-interrupting failures per switch per year, 0–10. Default 0.00159.
    #[serde(default)]
    #[validate(range(min = 0.0, max = 10.0))]
    #[schema(minimum = 0, maximum = 10, example = 0.00159)]
    pub switch_failures_per_year: Option<f64>,
    /// Job-interrupting failures per transceiver per year, 0–10. Default 0.00159.
    #[serde(default)]
    #[validate(range(min = 0.0, max = 10.0))]
    #[schema(minimum = 0, maximum = 10, example = 0.00159)]
    pub transceiver_failures_per_year: Option<f64>,
    /// Job-interrupting failures per cable per year, 0–10. Default 0.00159.
    #[serde(default)]
    #[validate(range(min = 0.0, max = 10.0))]
    #[schema(minimum = 0, maximum = 10, example = 0.00159)]
    pub cable_failures_per_year: Option<f64>,
    /// Minutes between checkpoints, 0–10,080; an interruption loses half of it on average.
    /// Default 30.
    #[serde(default)]
    #[validate(range(min = 0.0, max = 10080.0))]
    #[schema(minimum = 0, maximum = 10080, example = 30)]
    pub checkpoint_interval_minutes: Option<f64>,
    /// Minutes from an interruption to training again (detect, replace or cordon, reload),
    /// 0–10,080. Default 15.
    #[serde(default)]
    #[validate(range(min = 0.0, max = 10080.0))]
    #[schema(minimum = 0, maximum = 10080, example = 15)]
    pub restart_minutes: Option<f64>,
}

/// Cluster utilization.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UtilizationRequest {
    /// Share of hours the cluster runs jobs, 0–1 (decimal string or number). Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "fraction"))]
    #[schema(value_type = Option<String>, example = "0.90")]
    pub busy_fraction: Option<Decimal>,
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
    /// Horizon, years (1–15). Default 5.
    #[serde(default)]
    #[validate(range(min = 1, max = 15))]
    #[schema(minimum = 1, maximum = 15, example = 5)]
    pub years: Option<u32>,
    /// Discount rate per year for NPV, 0–1. Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "fraction"))]
    #[schema(value_type = Option<String>, example = "0.08")]
    pub discount_rate: Option<Decimal>,
    /// Electricity price, USD per kWh, 0–10. Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "electricity"))]
    #[schema(value_type = Option<String>, example = "0.085")]
    pub electricity_usd_per_kwh: Option<Decimal>,
    /// Power usage effectiveness, 1–3. Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "pue_range"))]
    #[schema(value_type = Option<String>, example = "1.25")]
    pub pue: Option<Decimal>,
    /// Hardware support per year as a share of hardware capex, 0–1. Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "fraction"))]
    #[schema(value_type = Option<String>, example = "0.12")]
    pub support_rate: Option<Decimal>,
    /// Network engineer, fully loaded, USD per year. Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "salary"))]
    #[schema(value_type = Option<String>, example = "185000")]
    pub network_engineer_usd_per_year: Option<Decimal>,
    /// InfiniBand specialist, fully loaded, USD per year. Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "salary"))]
    #[schema(value_type = Option<String>, example = "250000")]
    pub ib_specialist_usd_per_year: Option<Decimal>,
    /// GPUs per network engineer FTE (either fabric). Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "gpus_per_fte"))]
    #[schema(value_type = Option<String>, example = "256")]
    pub gpus_per_network_fte: Option<Decimal>,
    /// GPUs per additional InfiniBand specialist FTE. Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "gpus_per_fte"))]
    #[schema(value_type = Option<String>, example = "1024")]
    pub gpus_per_ib_specialist: Option<Decimal>,
    /// Spare parts per year as a share of hardware capex, 0–1. Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "fraction"))]
    #[schema(value_type = Option<String>, example = "0.02")]
    pub spares_rate: Option<Decimal>,
    /// Value of one GPU-hour, USD (0–1000). Default: from the GPU model and `gpu_hour_basis`.
    #[serde(default)]
    #[validate(custom(function = "gpu_hour"))]
    #[schema(value_type = Option<String>, example = "2.50")]
    pub gpu_hour_usd: Option<Decimal>,
    /// `owned` (default) or `rental`: how the default GPU-hour value is derived.
    #[serde(default)]
    pub gpu_hour_basis: Option<GpuHourBasis>,
    /// NVIDIA UFM subscription, USD per NIC endpoint per year (InfiniBand). No public price:
    /// without it the plan warns "quote required".
    #[serde(default)]
    #[validate(custom(function = "per_endpoint"))]
    #[schema(value_type = Option<String>, example = "100")]
    pub ufm_usd_per_endpoint_per_year: Option<Decimal>,
    /// Ethernet NOS subscription/support, USD per switch per year. Default: catalog.
    #[serde(default)]
    #[validate(custom(function = "per_switch"))]
    #[schema(value_type = Option<String>, example = "0")]
    pub ethernet_nos_usd_per_switch_per_year: Option<Decimal>,
}

/// The buyer's prices.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PricesRequest {
    /// Net unit price per SKU, USD (no discount applies on top of an override).
    #[serde(default)]
    #[validate(custom(function = "override_prices"))]
    #[schema(value_type = Option<BTreeMap<String, String>>, example = json!({"nvidia-qm9700": "42000.00"}))]
    pub overrides: Option<BTreeMap<String, Decimal>>,
    /// Discounts off list price.
    #[serde(default)]
    #[validate(nested)]
    pub discounts: Option<DiscountsRequest>,
}

/// Discounts as fractions (0.15 = 15% off). Vendor and category discounts compound.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DiscountsRequest {
    /// By vendor (as named in the catalog, e.g. `NVIDIA`).
    #[serde(default)]
    #[validate(custom(function = "vendor_discounts"))]
    #[schema(value_type = Option<BTreeMap<String, String>>, example = json!({"NVIDIA": "0.15"}))]
    pub vendor: Option<BTreeMap<String, Decimal>>,
    /// By category (`nic`, `switch`, `optic`, `cable`, `license`).
    #[serde(default)]
    #[validate(custom(function = "category_discounts"))]
    #[schema(value_type = Option<BTreeMap<String, String>>, example = json!({"optic": "0.30"}))]
    pub category: Option<BTreeMap<Category, Decimal>>,
}
