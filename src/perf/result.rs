//! Output and error of the performance model.

use serde::Serialize;
use utoipa::ToSchema;

/// Predicted collective performance and GPU idle time for one fabric.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PerfResult {
    /// Bytes of the data-parallel all-reduce per GPU per step (gradients / (TP·PP) × bytes per
    /// gradient), or the explicit message size, bytes.
    pub message_bytes: u64,
    /// Algorithm chosen for `message_bytes` as NCCL would (fastest modelled): `ring`, `tree`,
    /// `nvls`, `nvls_tree`, `collnet`, or `none` when only one rank takes part.
    #[schema(value_type = String)]
    pub algorithm: &'static str,
    /// Protocol chosen: `ll`, `ll128`, `simple` (`none` when only one rank takes part).
    #[schema(value_type = String)]
    pub protocol: &'static str,
    /// Time of one all-reduce of `message_bytes`, µs.
    pub allreduce_time_us: f64,
    /// Bus bandwidth of that all-reduce (nccl-tests `busbw = algbw · 2(n−1)/n`), GB/s.
    pub busbw_gbytes_per_s: f64,
    /// Algorithm bandwidth of that all-reduce (`message_bytes / time`), GB/s.
    pub algbw_gbytes_per_s: f64,
    /// Congestion factor κ on the scale-out bandwidth (1 = none), dimensionless, in (0, 1].
    pub congestion_factor: f64,
    /// Share of inter-node traffic that crosses a hashed or oversubscribed tier, in [0, 1].
    pub crossing_share: f64,
    /// Effective bandwidth of one NIC (line rate × header efficiency, PCIe-capped), GB/s.
    pub nic_effective_gbytes_per_s: f64,
    /// Physical bus-bandwidth ceiling of this communicator (NVLink and network bounds), GB/s.
    pub busbw_ceiling_gbytes_per_s: f64,
    /// Ranks in the all-reduce communicator (data-parallel size, or all GPUs).
    pub communicator_ranks: u32,
    /// NVLink domains of the communicator as modelled (servers on HGX/DGX, 72-GPU racks on
    /// NVL72; 1: the all-reduce runs on NVLink only): its ranks ÷ the ranks the emptiest domain
    /// it touches holds. When its groups do not tile the domains, every domain is modelled as
    /// the emptiest, so this can exceed the domains the group touches (docs/model.md §5b).
    pub communicator_nodes: u32,
    /// Gradient buckets per step (1 for an explicit message).
    pub buckets: u64,
    /// Bytes per bucket.
    pub bucket_bytes: u64,
    /// Time of one bucket all-reduce, µs.
    pub bucket_allreduce_time_us: f64,
    /// Total communication time per step (all buckets), ms.
    pub comm_time_ms: f64,
    /// Share of the backward pass that can hide communication, ρ = 1 − 1/buckets, in [0, 1).
    pub hidden_share: f64,
    /// Communication not hidden behind compute, per step, ms (sum over `collectives`, on
    /// NVLink and on the network).
    pub exposed_comm_ms: f64,
    /// The part of `exposed_comm_ms` spent in collectives that cross the scale-out network
    /// (`collectives[].placement` = `network`), ms. The rest waits on NVLink inside a node or
    /// NVLink domain, which no fabric choice changes.
    pub network_exposed_ms: f64,
    /// Step time = compute + pipeline bubble + exposed communication, ms.
    pub step_time_ms: f64,
    /// Fraction of the step the GPU waits on the scale-out network,
    /// `network_exposed_ms / step_time_ms`, in [0, 1); what `gpu_idle` prices. NVLink waits
    /// lengthen the step but are not charged to the network.
    pub gpu_idle_fraction: f64,
    /// Compute of one step, ms: the request's `step_compute_ms`, else model FLOPs (6 × active
    /// params + causal attention) × tokens ÷ (GPUs × the precision's dense peak ×
    /// `compute_efficiency`).
    pub step_compute_ms: f64,
    /// Time a pipeline stage waits while the schedule fills and drains, per step, ms: the
    /// compute × the schedule's bubble share (1F1B (p − 1)/m, interleaved (p − 1)/(v·m),
    /// DualPipe (p/2 − 1)·(2/3)/m; 0 without pipeline parallelism or for an explicit
    /// `message_bytes`). Part of `step_time_ms`, never charged to the network.
    pub pipeline_bubble_ms: f64,
    /// Share of the precision's dense peak the GPU sustains while it computes: `workload.mfu`,
    /// else the GPU's entry in the achievable-efficiency table for the job's class (dense or
    /// mixture of experts) and precision (docs/model.md §7).
    pub compute_efficiency: f64,
    /// Tokens per optimizer step over the whole job (`workload.global_batch_tokens`, else 16
    /// sequences per data-parallel replica); null for an explicit `message_bytes`.
    pub tokens_per_step: Option<f64>,
    /// Transformer layers the job was timed with: `workload.layers`, else derived (active
    /// params ÷ (12 × hidden²)); null for an explicit `message_bytes`.
    pub layers: Option<u32>,
    /// Hidden size the job was timed with: `workload.hidden_size`, else derived
    /// (∛(active params × 128 ÷ 12)); null for an explicit `message_bytes`.
    pub hidden_size: Option<u32>,
    /// Every collective of the step (data-parallel reduction first), with its exposed time:
    /// `exposed_comm_ms` is their sum. Empty for an explicit `message_bytes` on one rank.
    pub collectives: Vec<super::job::CollectiveResult>,
    /// RoCE only: the same job with `roce_tuning` `default` and `tuned`, side by side (two
    /// rows; absent on other fabrics).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub roce_tuning_side_by_side: Vec<RoceTuningRow>,
}

/// A RoCE fabric's prediction under one tuning.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct RoceTuningRow {
    /// `default` or `tuned`.
    pub roce_tuning: super::input::RoceTuning,
    /// Headline data-parallel all-reduce busbw, GB/s.
    pub busbw_gbytes_per_s: f64,
    /// Exposed communication per step, ms.
    pub exposed_comm_ms: f64,
    /// GPU idle fraction.
    pub gpu_idle_fraction: f64,
}
/// Why an input cannot be evaluated.
#[derive(Debug, Clone, PartialEq)]
pub enum PerfError {
    /// An input is outside its documented range (field name, explanation).
    OutOfRange {
        /// Field path, e.g. `path.oversubscription`.
        field: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// Fewer GPUs than one model replica needs (TP · PP · CP).
    ModelDoesNotFit {
        /// GPUs in the job.
        gpus: u32,
        /// GPUs one replica needs.
        gpus_per_replica: u64,
    },
}

impl std::fmt::Display for PerfError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PerfError::OutOfRange { field, detail } => write!(f, "{field}: {detail}"),
            PerfError::ModelDoesNotFit {
                gpus,
                gpus_per_replica,
            } => write!(
                f,
                "{gpus} GPUs cannot hold one replica of tensor_parallel x pipeline_parallel x context_parallel = {gpus_per_replica} GPUs"
            ),
        }
    }
}

impl std::error::Error for PerfError {}
