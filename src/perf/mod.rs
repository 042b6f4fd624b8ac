//! Performance model: NCCL-style all-reduce cost on NVLink and the scale-out fabric, congestion
//! per fabric, and the GPU idle time it causes. Pure functions over plain data, no I/O; cost is
//! constant in the number of GPUs (no loops over ranks or nodes). See docs/model.md.

pub mod bandwidth;
pub mod collective;
pub mod congestion;
pub mod constants;
pub mod efficiency;
pub mod input;
pub mod job;
pub mod pipeline;
pub mod presets;
pub mod result;
pub mod workload;

#[cfg(test)]
mod tests;

pub use efficiency::ComputeEfficiency;
pub use input::{
    A2aOverlap, DUALPIPE_HIDDEN_SHARE, DUALPIPE_SM_SHARE, MAX_NCCL_CHANNELS,
    MAX_QPS_PER_CONNECTION, MoeDispatcher, NcclAlgorithm, NcclProtocol, NcclSettings,
};
pub use input::{
    DEFAULT_BUCKET_MB, DEFAULT_BYTES_PER_GRADIENT, DEFAULT_MODEL_PARAMS_BILLION,
    DEFAULT_PIPELINE_PARALLEL, DEFAULT_TENSOR_PARALLEL, FabricPath, GPU_DEFAULTS, GpuSpec,
    MAX_BUCKET_MB, MAX_BYTES_PER_GRADIENT, MAX_GPUS, MAX_GPUS_PER_NODE, MAX_LEAF_UPLINKS,
    MAX_MESSAGE_BYTES, MAX_MODEL_PARAMS_BILLION, MAX_NIC_SPEED_GBPS, MAX_NICS_PER_NODE,
    MAX_NODES_PER_LEAF, MAX_NVLINK_BUSBW_GBYTES_PER_S, MAX_OVERSUBSCRIPTION, MAX_PARALLEL,
    MAX_PCIE_GEN, MAX_PCIE_LANES, MAX_PLANES, MAX_STEP_COMPUTE_MS, MAX_SWITCH_LATENCY_NS,
    MAX_TIERS, MAX_UPLINK_LANES, MIN_BUCKET_MB, MIN_BYTES_PER_GRADIENT, MIN_GPUS,
    MIN_GPUS_PER_NODE, MIN_LEAF_UPLINKS, MIN_MESSAGE_BYTES, MIN_MODEL_PARAMS_BILLION,
    MIN_NIC_SPEED_GBPS, MIN_NICS_PER_NODE, MIN_NODES_PER_LEAF, MIN_NVLINK_BUSBW_GBYTES_PER_S,
    MIN_OVERSUBSCRIPTION, MIN_PARALLEL, MIN_PCIE_GEN, MIN_PCIE_LANES, MIN_PLANES,
    MIN_STEP_COMPUTE_MS, MIN_SWITCH_LATENCY_NS, MIN_TIERS, MIN_UPLINK_LANES, NicSpec,
    PartialLeafPath, PerfInput, RoceTuning, Workload, gpu_default,
};
pub use input::{
    DEFAULT_KV_HEADS, DEFAULT_MFU, DEFAULT_MICRO_BATCH_SEQUENCES, DEFAULT_MOE_TOP_K,
    DEFAULT_SEQUENCE_LENGTH, DataParallelMode, MAX_BACKGROUND_LOAD, MAX_CP_EP, MAX_EXPERTS,
    MAX_GLOBAL_BATCH_TOKENS, MAX_HIDDEN_SIZE, MAX_KV_HEADS, MAX_LAYERS, MAX_MFU,
    MAX_SEQUENCE_LENGTH, MAX_TOP_K, MIN_HIDDEN_SIZE, MIN_MFU, Precision,
};
pub use input::{MAX_MICRO_BATCH_SEQUENCES, MAX_VIRTUAL_STAGES, MODEL_TERM_RANGE, ModelTerms};
pub use job::CollectiveResult;
pub use pipeline::PipelineSchedule;
pub use presets::WorkloadPreset;
pub use result::{PerfError, PerfResult, RoceTuningRow};

use crate::fabric::Fabric;
use collective::{Communicator, protocol_name};
use constants::{BYTES_PER_MB, CHANNELS_PER_NIC, US_PER_MS};

fn out_of_range(field: &'static str, detail: String) -> PerfError {
    PerfError::OutOfRange { field, detail }
}

fn check_u32(field: &'static str, v: u32, min: u32, max: u32) -> Result<(), PerfError> {
    if v < min || v > max {
        return Err(out_of_range(
            field,
            format!("{v} is outside [{min}, {max}]"),
        ));
    }
    Ok(())
}

fn check_u8(field: &'static str, v: u8, min: u8, max: u8) -> Result<(), PerfError> {
    check_u32(field, u32::from(v), u32::from(min), u32::from(max))
}

fn check_f64(field: &'static str, v: f64, min: f64, max: f64) -> Result<(), PerfError> {
    if v.is_nan() || v < min || v > max {
        return Err(out_of_range(
            field,
            format!("{v} is outside [{min}, {max}]"),
        ));
    }
    Ok(())
}

/// Checks every input against the published ranges.
pub fn validate(input: &PerfInput) -> Result<(), PerfError> {
    validate_node(input)?;
    validate_path(&input.path)?;
    check_f64(
        "gpu.dense_bf16_tflops",
        input.gpu.dense_bf16_tflops,
        1.0,
        100_000.0,
    )?;
    check_u32(
        "gpu.nvlink_domain_gpus",
        input.gpu.nvlink_domain_gpus,
        1,
        MAX_GPUS,
    )?;
    validate_workload(&input.workload)
}

/// The job's GPUs and a node's GPUs, NICs and their links.
fn validate_node(input: &PerfInput) -> Result<(), PerfError> {
    check_u32("gpus", input.gpus, MIN_GPUS, MAX_GPUS)?;
    check_u32(
        "gpus_per_node",
        input.gpus_per_node,
        MIN_GPUS_PER_NODE,
        MAX_GPUS_PER_NODE,
    )?;
    check_u32(
        "gpu.gpus_per_node_max",
        input.gpu.gpus_per_node_max,
        MIN_GPUS_PER_NODE,
        MAX_GPUS_PER_NODE,
    )?;
    if input.gpus_per_node > input.gpu.gpus_per_node_max {
        return Err(out_of_range(
            "gpus_per_node",
            format!(
                "{} exceeds the GPU's NVLink domain of {}",
                input.gpus_per_node, input.gpu.gpus_per_node_max
            ),
        ));
    }
    check_u32(
        "nics_per_node",
        input.nics_per_node,
        MIN_NICS_PER_NODE,
        MAX_NICS_PER_NODE,
    )?;
    check_f64(
        "gpu.nvlink_ring_busbw_gbytes_per_s",
        input.gpu.nvlink_ring_busbw_gbytes_per_s,
        MIN_NVLINK_BUSBW_GBYTES_PER_S,
        MAX_NVLINK_BUSBW_GBYTES_PER_S,
    )?;
    if let Some(nvls) = input.gpu.nvls_busbw_gbytes_per_s {
        check_f64(
            "gpu.nvls_busbw_gbytes_per_s",
            nvls,
            MIN_NVLINK_BUSBW_GBYTES_PER_S,
            MAX_NVLINK_BUSBW_GBYTES_PER_S,
        )?;
    }
    check_u32(
        "nic.speed_gbps",
        input.nic.speed_gbps,
        MIN_NIC_SPEED_GBPS,
        MAX_NIC_SPEED_GBPS,
    )?;
    check_u8(
        "nic.pcie_gen",
        input.nic.pcie_gen,
        MIN_PCIE_GEN,
        MAX_PCIE_GEN,
    )?;
    check_u8(
        "nic.pcie_lanes",
        input.nic.pcie_lanes,
        MIN_PCIE_LANES,
        MAX_PCIE_LANES,
    )?;
    Ok(())
}

/// The scale-out path: tiers, planes, oversubscription, leaves and the switch latency.
fn validate_path(p: &FabricPath) -> Result<(), PerfError> {
    check_u8("path.tiers", p.tiers, MIN_TIERS, MAX_TIERS)?;
    check_u32("path.planes", p.planes, MIN_PLANES, MAX_PLANES)?;
    check_f64(
        "path.oversubscription",
        p.oversubscription,
        MIN_OVERSUBSCRIPTION,
        MAX_OVERSUBSCRIPTION,
    )?;
    check_u32(
        "path.nodes_per_leaf",
        p.nodes_per_leaf,
        MIN_NODES_PER_LEAF,
        MAX_NODES_PER_LEAF,
    )?;
    check_u32(
        "path.leaf_uplinks",
        p.leaf_uplinks,
        MIN_LEAF_UPLINKS,
        MAX_LEAF_UPLINKS,
    )?;
    check_f64(
        "path.uplink_lanes",
        p.uplink_lanes,
        MIN_UPLINK_LANES,
        MAX_UPLINK_LANES,
    )?;
    if let Some(l) = &p.partial_leaf {
        validate_partial_leaf(l)?;
    }
    check_f64(
        "path.switch_latency_ns",
        p.switch_latency_ns,
        MIN_SWITCH_LATENCY_NS,
        MAX_SWITCH_LATENCY_NS,
    )
}

/// The partly filled leaf: where its servers start, how many, their rails and uplinks.
fn validate_partial_leaf(l: &PartialLeafPath) -> Result<(), PerfError> {
    let servers = f64::from(MAX_GPUS);
    check_f64(
        "path.partial_leaf.first_server",
        l.first_server,
        0.0,
        servers,
    )?;
    check_f64("path.partial_leaf.servers", l.servers, 1.0, servers)?;
    check_f64(
        "path.partial_leaf.whole_rails",
        l.whole_rails,
        0.0,
        f64::from(MAX_NICS_PER_NODE),
    )?;
    for (from, n) in l.split_rails {
        check_f64("path.partial_leaf.split_rails", from, 0.0, servers)?;
        check_f64("path.partial_leaf.split_rails", n, 0.0, servers)?;
    }
    check_u32(
        "path.partial_leaf.uplinks",
        l.uplinks,
        MIN_LEAF_UPLINKS,
        MAX_LEAF_UPLINKS,
    )?;
    Ok(())
}

/// The workload: compute time, background load, and either a message size or a model.
fn validate_workload(w: &Workload) -> Result<(), PerfError> {
    let (lo, hi) = MODEL_TERM_RANGE;
    let t = &w.model_terms;
    check_f64("model.nic_efficiency", t.nic_efficiency, lo, hi)?;
    check_f64("model.ecmp_efficiency", t.ecmp_efficiency, lo, hi)?;
    check_f64("model.a2a_efficiency", t.a2a_efficiency, lo, hi)?;
    if let Some(c) = w.nccl.channels {
        check_u32("nccl.channels", c, 1, MAX_NCCL_CHANNELS)?;
    }
    if let Some(q) = w.nccl.qps_per_connection {
        check_u32("nccl.qps_per_connection", q, 1, MAX_QPS_PER_CONNECTION)?;
    }
    if let Some(ms) = w.step_compute_ms {
        check_f64(
            "workload.step_compute_ms",
            ms,
            MIN_STEP_COMPUTE_MS,
            MAX_STEP_COMPUTE_MS,
        )?;
    }
    check_f64(
        "workload.background_load",
        w.background_load,
        0.0,
        MAX_BACKGROUND_LOAD,
    )?;
    match w.message_bytes {
        Some(bytes) => {
            if !(MIN_MESSAGE_BYTES..=MAX_MESSAGE_BYTES).contains(&bytes) {
                return Err(out_of_range(
                    "workload.message_bytes",
                    format!("{bytes} is outside [{MIN_MESSAGE_BYTES}, {MAX_MESSAGE_BYTES}]"),
                ));
            }
        }
        None => validate_model(w)?,
    }
    Ok(())
}

/// A model's size, gradient bytes, parallelism, shape, experts, batch and MFU, in that order.
fn validate_model(w: &Workload) -> Result<(), PerfError> {
    check_f64(
        "workload.model_params_billion",
        w.model_params_billion,
        MIN_MODEL_PARAMS_BILLION,
        MAX_MODEL_PARAMS_BILLION,
    )?;
    check_u32(
        "workload.bytes_per_gradient",
        w.bytes_per_gradient,
        MIN_BYTES_PER_GRADIENT,
        MAX_BYTES_PER_GRADIENT,
    )?;
    check_u32(
        "workload.tensor_parallel",
        w.tensor_parallel,
        MIN_PARALLEL,
        MAX_PARALLEL,
    )?;
    check_u32(
        "workload.pipeline_parallel",
        w.pipeline_parallel,
        MIN_PARALLEL,
        MAX_PARALLEL,
    )?;
    check_f64(
        "workload.bucket_mb",
        w.bucket_mb,
        MIN_BUCKET_MB,
        MAX_BUCKET_MB,
    )?;
    check_u32(
        "workload.context_parallel",
        w.context_parallel,
        MIN_PARALLEL,
        MAX_CP_EP,
    )?;
    check_u32(
        "workload.expert_parallel",
        w.expert_parallel,
        MIN_PARALLEL,
        MAX_CP_EP,
    )?;
    check_u32("workload.moe_top_k", w.moe_top_k, 1, MAX_TOP_K)?;
    check_u32("workload.kv_heads", w.kv_heads, 1, MAX_KV_HEADS)?;
    if let Some(l) = w.layers {
        check_u32("workload.layers", l, 1, MAX_LAYERS)?;
    }
    // Context parallelism splits each sequence: a rank needs at least one token.
    if w.context_parallel > w.sequence_length {
        return Err(out_of_range(
            "workload.context_parallel",
            format!(
                "{} exceeds the {} tokens of a sequence it splits (each rank needs at least one)",
                w.context_parallel, w.sequence_length
            ),
        ));
    }
    if let Some(x) = w.experts {
        validate_experts(w, x)?;
    }
    check_u32(
        "workload.sequence_length",
        w.sequence_length,
        1,
        MAX_SEQUENCE_LENGTH,
    )?;
    if let Some(t) = w.global_batch_tokens
        && !(1..=MAX_GLOBAL_BATCH_TOKENS).contains(&t)
    {
        return Err(out_of_range(
            "workload.global_batch_tokens",
            format!("{t} is outside [1, {MAX_GLOBAL_BATCH_TOKENS}]"),
        ));
    }
    if let Some(h) = w.hidden_size {
        check_u32("workload.hidden_size", h, MIN_HIDDEN_SIZE, MAX_HIDDEN_SIZE)?;
    }
    if let Some(a) = w.active_params_billion {
        check_f64(
            "workload.active_params_billion",
            a,
            MIN_MODEL_PARAMS_BILLION,
            w.model_params_billion,
        )?;
    }
    if let Some(mfu) = w.mfu {
        check_f64("workload.mfu", mfu, MIN_MFU, MAX_MFU)?;
    }
    check_u32(
        "workload.micro_batch_sequences",
        w.micro_batch_sequences,
        1,
        MAX_MICRO_BATCH_SEQUENCES,
    )?;
    check_u32(
        "workload.virtual_stages",
        w.virtual_stages,
        1,
        MAX_VIRTUAL_STAGES,
    )?;
    if w.pipeline_schedule == PipelineSchedule::Interleaved && w.virtual_stages < 2 {
        return Err(out_of_range(
            "workload.virtual_stages",
            "an interleaved pipeline holds at least 2 model chunks a GPU; give virtual_stages >= 2 or pipeline_schedule 1f1b".to_string(),
        ));
    }
    Ok(())
}

/// The `experts` of a mixture of experts: a count in range, on a mixture of experts, no fewer
/// than the experts a token is routed to.
fn validate_experts(w: &Workload, x: u32) -> Result<(), PerfError> {
    check_u32("workload.experts", x, 1, MAX_EXPERTS)?;
    // Experts belong to a mixture of experts: on a dense model the count would be
    // echoed and change nothing.
    if !w.is_mixture_of_experts() {
        return Err(out_of_range(
            "workload.experts",
            format!(
                "{x} experts need a mixture of experts: set workload.active_params_billion below model_params_billion"
            ),
        ));
    }
    // Whatever the expert degree: at expert degree 1 too.
    if w.moe_top_k > x {
        return Err(out_of_range(
            "workload.moe_top_k",
            format!(
                "{} exceeds the {x} routed experts a token can be sent to",
                w.moe_top_k
            ),
        ));
    }
    Ok(())
}

/// Data-parallel replicas of the job: GPUs ÷ (TP · PP · CP), rounded down.
pub fn data_parallel_replicas(gpus: u32, w: &Workload) -> u64 {
    u64::from(gpus) / data_parallel_replica_gpus(w)
}

/// GPUs of one data-parallel replica: TP·PP·CP (at least 1).
pub fn data_parallel_replica_gpus(w: &Workload) -> u64 {
    u64::from(w.tensor_parallel.max(1))
        .saturating_mul(u64::from(w.pipeline_parallel.max(1)))
        .saturating_mul(u64::from(w.context_parallel.max(1)))
        .max(1)
}

/// Tokens of one sequence for every data-parallel replica ([`data_parallel_replicas`] ×
/// `sequence_length`): the smallest global batch the job can run.
pub fn one_sequence_per_replica_tokens(gpus: u32, w: &Workload) -> u64 {
    data_parallel_replicas(gpus, w).saturating_mul(u64::from(w.sequence_length.max(1)))
}

/// GPUs of one NVLink domain as the job sees it: the GPU's domain (72 on NVL72), at least a
/// server, at most the job.
fn domain_gpus(input: &PerfInput) -> u32 {
    input
        .gpu
        .nvlink_domain_gpus
        .max(input.gpus_per_node)
        .min(input.gpus)
        .max(1)
}

/// Ranks, ranks per NVLink domain and NVLink domains of the all-reduce communicator, and the
/// data-parallel degree. A "node" of the communicator is an NVLink domain: a server on HGX, a
/// 72-GPU rack on NVL72, where NCCL runs the intra-domain part over multi-node NVLink.
fn communicator_shape(input: &PerfInput) -> Result<(u64, u64, u64, u64), PerfError> {
    let gpus = u64::from(input.gpus);
    let g_node = u64::from(domain_gpus(input));
    let (ranks, per_node, dp) = match input.workload.message_bytes {
        // Every GPU in one communicator, domains filled in order: a partly filled last server
        // or rack holds the fewest ranks and its NICs gate the collective, as the emptiest
        // domain gates a data-parallel group below (1,025 H100: the 1,025th GPU's one NIC).
        Some(_) => (
            gpus,
            job::ranks_per_domain(gpus as f64, 1.0, g_node as f64, gpus as f64) as u64,
            gpus,
        ),
        None => data_parallel_group(input, gpus, g_node)?,
    };
    let per_node = per_node.max(1);
    let nodes = match input.workload.message_bytes {
        // The servers (domains) the GPUs fill: the emptiest one's NICs set the bandwidth above,
        // the latency terms count the real nodes (1,017 H100 are 128 servers, not 1,017).
        Some(_) => gpus.div_ceil(g_node.max(1)),
        None => ranks.div_ceil(per_node),
    }
    .max(1);
    Ok((ranks, per_node, nodes, dp))
}

/// The gradient all-reduce's group of a model's job: its ranks (CP·DP), ranks per NVLink domain,
/// and the data-parallel degree DP; an error when the model does not fit or a degree given
/// does not match the job.
fn data_parallel_group(
    input: &PerfInput,
    gpus: u64,
    g_node: u64,
) -> Result<(u64, u64, u64), PerfError> {
    let w = &input.workload;
    let tp = u64::from(w.tensor_parallel.max(1));
    let pp = u64::from(w.pipeline_parallel.max(1));
    let cp = u64::from(w.context_parallel.max(1));
    let replica = tp * pp * cp;
    if gpus < replica {
        return Err(PerfError::ModelDoesNotFit {
            gpus: input.gpus,
            gpus_per_replica: replica,
        });
    }
    let dp = gpus / replica;
    check_data_parallel(w, gpus, replica, dp)?;
    check_sequence_per_replica(input, gpus, replica, dp)?;
    check_expert_parallel(w, dp)?;
    // Gradients are reduced over the data-parallel and context-parallel ranks together
    // (they hold the same weights and see different tokens; Megatron-LM's
    // data-parallel group with context parallelism): CP·DP ranks, TP apart. TP fills
    // the domain first (Megatron order tp → cp → dp → pp): a domain of G GPUs holds
    // G/TP ranks of each group when the group's span divides it, else the part every
    // group keeps together ([`job::ranks_per_domain`]).
    let group = dp * cp;
    let per_node = job::ranks_per_domain(
        group as f64,
        tp as f64,
        g_node as f64,
        f64::from(input.gpus),
    ) as u64;
    Ok((group, per_node, dp))
}

/// A `data_parallel` given must be the whole replicas the GPUs hold.
fn check_data_parallel(w: &Workload, gpus: u64, replica: u64, dp: u64) -> Result<(), PerfError> {
    if let Some(want) = w.data_parallel
        && u64::from(want) != dp
    {
        return Err(out_of_range(
            "workload.data_parallel",
            format!(
                "{want} does not match the whole replicas of TP x PP x CP = {replica} GPUs that {gpus} GPUs hold: {dp}{}",
                if gpus.is_multiple_of(replica) {
                    String::new()
                } else {
                    format!(" ({} GPUs left over)", gpus % replica)
                }
            ),
        ));
    }
    Ok(())
}

/// The global batch gives every data-parallel replica at least one whole sequence.
fn check_sequence_per_replica(
    input: &PerfInput,
    gpus: u64,
    replica: u64,
    dp: u64,
) -> Result<(), PerfError> {
    let w = &input.workload;
    // Every replica processes at least one whole sequence per step: a global batch of
    // fewer sequences than replicas is not a job that can run (the compute would be a
    // fraction of a sequence per GPU while every collective still moves a whole one).
    let seq = u64::from(w.sequence_length.max(1));
    let floor = one_sequence_per_replica_tokens(input.gpus, w);
    if w.global_batch_tokens.is_some() && floor > MAX_GLOBAL_BATCH_TOKENS {
        return Err(out_of_range(
            "workload.sequence_length",
            format!(
                "one sequence of {seq} tokens for each of the {dp} data-parallel replicas is {floor} tokens, above the largest global batch ({MAX_GLOBAL_BATCH_TOKENS}); shorten sequence_length or add tensor, pipeline or context parallelism"
            ),
        ));
    }
    if let Some(t) = w.global_batch_tokens
        && t < floor
    {
        return Err(out_of_range(
            "workload.global_batch_tokens",
            format!(
                "{t} tokens is {} sequences of {seq}, fewer than the {dp} data-parallel replicas (GPUs / (TP x PP x CP) = {gpus} / {replica}); each replica needs at least one sequence per step: give at least {floor} tokens, or more tensor, pipeline or context parallelism",
                t / seq,
            ),
        ));
    }
    // A micro-batch is cut from one replica's sequences: no larger than all of them (Megatron
    // requires the global batch to be a multiple of micro-batch × data-parallel size).
    if w.message_bytes.is_none() && w.pipeline_parallel > 1 {
        let per_replica = job::global_tokens(w, dp as f64) / seq as f64 / (dp.max(1) as f64);
        if f64::from(w.micro_batch_sequences) > per_replica.max(1.0) {
            return Err(out_of_range(
                "workload.micro_batch_sequences",
                format!(
                    "{} sequences a micro-batch is more than the {} each of the {dp} data-parallel replicas runs a step; give at most that many, or a larger global_batch_tokens",
                    w.micro_batch_sequences,
                    per_replica.max(1.0).floor()
                ),
            ));
        }
    }
    Ok(())
}

/// Expert parallelism: on a mixture of experts, no more ranks than experts, and a divisor of
/// the data-parallel degree it is carved from.
fn check_expert_parallel(w: &Workload, dp: u64) -> Result<(), PerfError> {
    let ep = u64::from(w.expert_parallel.max(1));
    // Expert parallelism splits a mixture of experts' experts over ranks: a dense model
    // has none to split (EP 8 on a dense job would charge idle time to an all-to-all it
    // never sends).
    if ep > 1 && !w.is_mixture_of_experts() {
        return Err(out_of_range(
            "workload.expert_parallel",
            format!(
                "{ep} needs a mixture of experts: set workload.active_params_billion below model_params_billion (and workload.experts), or expert_parallel 1"
            ),
        ));
    }
    // Each rank holds at least one expert. A degree that does not divide them splits
    // them unevenly, whose gradient the model counts at the busiest rank (⌈E/EP⌉
    // experts); the plan layer refuses it unless it refitted a preset's degree
    // (Megatron-LM needs num_experts % expert_parallel == 0).
    if let Some(x) = w.experts.map(u64::from)
        && ep > x
    {
        return Err(out_of_range(
            "workload.expert_parallel",
            format!(
                "{ep} exceeds the {x} routed experts (each rank holds at least one whole expert): use a divisor of {x}"
            ),
        ));
    }
    if ep > dp {
        return Err(out_of_range(
            "workload.expert_parallel",
            format!("{ep} exceeds the data-parallel degree {dp} it is carved from"),
        ));
    }
    // Megatron-LM: the data-parallel size must be a multiple of the expert-parallel size
    // (expert groups tile the data-parallel replicas).
    if !dp.is_multiple_of(ep) {
        let divisors: Vec<String> = crate::arith::divisors(dp, 2)
            .take(24)
            .map(|d| d.to_string())
            .collect();
        return Err(out_of_range(
            "workload.expert_parallel",
            format!(
                "{ep} does not divide the data-parallel degree {dp} it is carved from (GPUs / (TP x PP x CP)); expert groups must tile the replicas: use a divisor of {dp} ({})",
                divisors.join(", ")
            ),
        ));
    }
    Ok(())
}

/// Evaluates the model for one fabric.
pub fn evaluate(input: &PerfInput) -> Result<PerfResult, PerfError> {
    validate(input)?;
    let (ranks, per_node, nodes, dp) = communicator_shape(input)?;
    let path = &input.path;
    let (nic_gbytes_per_s, gpn, node_net) = node_network(input);
    let w = &input.workload;
    let (used_servers, servers_f) = servers_used_and_spanned(input, ranks, dp, gpn);
    let flows = congestion::sub_flows(path, &w.nccl, input.nics_per_node);
    let span = congestion::Span::ring(path, servers_f, used_servers, flows)
        .with_ecmp_term(path, w.model_terms.ecmp_efficiency);
    let (crossing, kappa) = (span.crossing, span.kappa);
    let comm = data_parallel_communicator(input, (ranks, per_node, nodes), node_net, gpn, span);

    let message_bytes = timed_message_bytes(w);
    let dp_f = dp as f64;
    let step_compute_ms = step_compute_ms(input, dp_f)?;
    let buckets = gradient_buckets(w, message_bytes);
    let bucket_bytes = (message_bytes / buckets).ceil().max(1.0);

    let whole = comm.choose(message_bytes);
    let bucket = comm.choose(bucket_bytes);
    let (algorithm, protocol, time_us) = match whole {
        Some(c) => (c.algorithm.as_str(), protocol_name(c.protocol), c.time_us),
        None => ("none", "none", 0.0),
    };
    let bucket_us = bucket.map_or(0.0, |c| c.time_us);
    let (algbw, busbw) = all_reduce_bandwidths(message_bytes, time_us, ranks as f64);
    let bucket_ms = bucket_us / US_PER_MS;
    let comm_time_ms = buckets * bucket_ms;
    let (hidden, dp_exposed_ms) =
        data_parallel_exposure(w, buckets, (bucket_us, bucket_ms), step_compute_ms);
    let mut collectives = Vec::new();
    let bucket_algorithm = bucket.map_or("none", |c| c.algorithm.as_str());
    let timed = (comm_time_ms, dp_exposed_ms, bucket_algorithm);
    collectives.extend(data_parallel_all_reduce(
        w,
        ranks,
        nodes,
        message_bytes,
        timed,
    ));
    if w.message_bytes.is_none() {
        let per_gpu_net = node_net / gpn;
        let shared = (per_gpu_net, gpn, used_servers);
        collectives.extend(model_collectives(input, shared, step_compute_ms, dp_f));
    }
    let (exposed_ms, network_exposed_ms) = exposed_comm_ms(w, dp_exposed_ms, &collectives);
    let bubble_ms = match w.message_bytes {
        Some(_) => 0.0,
        None => job::pipeline_bubble_ms(w, dp_f, step_compute_ms),
    };
    let step_ms = step_compute_ms + bubble_ms + exposed_ms;
    let idle = workload::idle_fraction(network_exposed_ms, step_ms);
    let (layers, hidden_size) = timed_model_shape(w);

    let result = PerfResult {
        message_bytes: message_bytes as u64,
        algorithm,
        protocol,
        allreduce_time_us: time_us,
        busbw_gbytes_per_s: busbw,
        algbw_gbytes_per_s: algbw,
        congestion_factor: kappa,
        crossing_share: crossing,
        nic_effective_gbytes_per_s: nic_gbytes_per_s,
        busbw_ceiling_gbytes_per_s: comm.busbw_ceiling_gbytes_per_s(),
        communicator_ranks: u32::try_from(ranks).unwrap_or(u32::MAX),
        communicator_nodes: u32::try_from(nodes).unwrap_or(u32::MAX),
        buckets: buckets as u64,
        bucket_bytes: bucket_bytes as u64,
        bucket_allreduce_time_us: bucket_us,
        comm_time_ms,
        hidden_share: hidden,
        exposed_comm_ms: exposed_ms,
        network_exposed_ms,
        step_time_ms: step_ms,
        gpu_idle_fraction: idle,
        step_compute_ms,
        pipeline_bubble_ms: bubble_ms,
        compute_efficiency: compute_efficiency(input),
        tokens_per_step: w
            .message_bytes
            .is_none()
            .then(|| job::global_tokens(w, dp_f)),
        layers,
        hidden_size,
        collectives,
        roce_tuning_side_by_side: Vec::new(),
    };
    check_finite(&result)?;
    Ok(result)
}

/// One NIC's effective bandwidth (GB/s), GPUs a server, and the scale-out bandwidth the
/// server's GPUs get (GB/s, [`node_network_gbytes_per_s`]).
fn node_network(input: &PerfInput) -> (f64, f64, f64) {
    let nic = bandwidth::nic_effective_gbytes_per_s(
        input.path.fabric,
        input.nic.speed_gbps,
        input.nic.pcie_gen,
        input.nic.pcie_lanes,
    );
    let gpn = f64::from(input.gpus_per_node.max(1));
    (nic, gpn, node_network_gbytes_per_s(input, nic, gpn))
}

/// The scale-out bandwidth a node's GPUs get, GB/s: its NICs, as much as its GPUs' links can
/// feed, less the share other jobs' traffic takes.
fn node_network_gbytes_per_s(input: &PerfInput, nic_gbytes_per_s: f64, gpn: f64) -> f64 {
    // A GPU reaches its NICs over its own x16 link: more NICs than it can feed add nothing
    // (16 × 400G NICs on 8 H100 would credit each GPU 96 GB/s over a 48 GB/s link).
    // On a Grace system (NVL72 trays) the NICs hang off Grace's PCIe and the GPU reaches them
    // over NVLink-C2C: each NIC's own link (in `nic_gbytes_per_s`) is the only cap.
    let gpu_link = if input.gpu.grace_c2c {
        f64::INFINITY
    } else {
        bandwidth::pcie_x16_gbytes_per_s(input.gpu.pcie_gen)
    };
    // Other jobs' traffic on a shared fabric takes its share of every scale-out link; the
    // model's NIC efficiency term (1 unless sampled) scales what a link delivers.
    (f64::from(input.nics_per_node) * nic_gbytes_per_s).min(gpn * gpu_link)
        * input.workload.model_terms.nic_efficiency
        * (1.0
            - input
                .workload
                .background_load
                .clamp(0.0, MAX_BACKGROUND_LOAD))
}

/// The servers the job runs on (a job that leaves GPUs out ends before the last ones), and
/// the consecutive servers one data-parallel group spans: its ranks, TP apart (every GPU
/// for an explicit all-reduce). Congestion and hops follow them.
fn servers_used_and_spanned(input: &PerfInput, ranks: u64, dp: u64, gpn: f64) -> (f64, f64) {
    let w = &input.workload;
    let (used_gpus, group_gpus) = match w.message_bytes {
        Some(_) => (f64::from(input.gpus), f64::from(input.gpus)),
        None => (
            dp as f64 * data_parallel_replica_gpus(w) as f64,
            ranks as f64 * f64::from(w.tensor_parallel.max(1)),
        ),
    };
    let used_servers = (used_gpus / gpn).ceil().max(1.0);
    let servers_f = (group_gpus / gpn).ceil().clamp(1.0, used_servers);
    (used_servers, servers_f)
}

/// The communicator of the data-parallel all-reduce, `(ranks, ranks per node, nodes)`, on
/// `node_net` GB/s per server across `span`.
fn data_parallel_communicator(
    input: &PerfInput,
    (ranks, per_node, nodes): (u64, u64, u64),
    node_net: f64,
    gpn: f64,
    span: congestion::Span,
) -> Communicator {
    let path = &input.path;
    // Every GPU's data-parallel group runs at once: each communicator gets the network share
    // of its GPUs in a domain (each GPU its server's NICs ÷ GPUs per server).
    let net_node_raw = node_net / gpn * per_node as f64;
    let nodes_f = nodes as f64;
    Communicator {
        ranks: ranks as f64,
        nodes: nodes_f,
        ranks_per_node: per_node as f64,
        nvlink_ring_gbytes_per_s: input.gpu.nvlink_ring_busbw_gbytes_per_s,
        nvls_gbytes_per_s: input.gpu.nvls_busbw_gbytes_per_s,
        net_node_raw_gbytes_per_s: net_node_raw,
        congestion_factor: span.kappa,
        path_latency_us: span.hops * path.switch_latency_ns / 1000.0,
        incast_tail_us: congestion::incast_tail_us(path),
        collnet: path.fabric == Fabric::Infiniband && path.in_network_reduction,
        channels: channels(input),
        forced: forced(input),
    }
}

/// The model's shape as timed, derived or given, `(layers, hidden size)`: shown so that a wrong
/// derived layer count can be seen; none for an explicit all-reduce.
fn timed_model_shape(w: &Workload) -> (Option<u32>, Option<u32>) {
    (
        (w.message_bytes.is_none()).then(|| job::layers(w) as u32),
        (w.message_bytes.is_none()).then(|| job::hidden_size(w).round() as u32),
    )
}

/// Bytes of the all-reduce timed: the message given, else one model shard's gradients.
fn timed_message_bytes(w: &Workload) -> f64 {
    match w.message_bytes {
        Some(b) => b as f64,
        None => workload::gradient_bytes(
            job::params_per_model_shard(w) / constants::PARAMS_PER_BILLION,
            1,
            1,
            w.bytes_per_gradient,
        ),
    }
}

/// The share of the precision's dense peak the job computes at: `workload.mfu`, else the GPU's
/// table entry for the job's class and precision.
pub fn compute_efficiency(input: &PerfInput) -> f64 {
    let w = &input.workload;
    w.mfu.unwrap_or_else(|| {
        input
            .gpu
            .efficiency
            .get(w.is_mixture_of_experts(), w.precision == Precision::Fp8)
    })
}

/// Compute of one step, ms: given, or the job's at its compute efficiency; an error when it is
/// not finite and positive.
fn step_compute_ms(input: &PerfInput, dp_f: f64) -> Result<f64, PerfError> {
    let w = &input.workload;
    let efficiency = compute_efficiency(input);
    let job_gpus = match w.message_bytes {
        Some(_) => f64::from(input.gpus),
        None => {
            f64::from(w.tensor_parallel.max(1))
                * f64::from(w.pipeline_parallel.max(1))
                * f64::from(w.context_parallel.max(1))
                * dp_f
        }
    };
    let peak = input.gpu.dense_bf16_tflops;
    let step_compute_ms = match w.step_compute_ms {
        Some(ms) => ms,
        // One all-reduce of `message_bytes` (nccl-tests style) still sits on the compute of
        // the workload's job on this GPU at its efficiency: as many whole replicas as the
        // cluster holds (at least one), each with its share of the global batch.
        None if w.message_bytes.is_some() => {
            let replica = f64::from(w.tensor_parallel.max(1))
                * f64::from(w.pipeline_parallel.max(1))
                * f64::from(w.context_parallel.max(1));
            let replicas = (f64::from(input.gpus) / replica).floor().max(1.0);
            job::step_compute_ms(w, replicas, replicas * replica, peak, efficiency)
        }
        None => job::step_compute_ms(w, dp_f, job_gpus, peak, efficiency),
    };
    if !(step_compute_ms.is_finite() && step_compute_ms > 0.0) {
        return Err(out_of_range(
            "workload.mfu",
            "the job has no finite compute time".to_string(),
        ));
    }
    Ok(step_compute_ms)
}

/// Buckets the gradient all-reduce is split into: one for an explicit all-reduce.
fn gradient_buckets(w: &Workload, message_bytes: f64) -> f64 {
    match w.message_bytes {
        Some(_) => 1.0,
        None => workload::bucket_count(message_bytes, w.bucket_mb * BYTES_PER_MB),
    }
}

/// The share of the data-parallel all-reduce hidden behind compute and its exposed time, ms,
/// from its buckets' time `(µs, ms)`: an explicit all-reduce is all exposed.
fn data_parallel_exposure(
    w: &Workload,
    buckets: f64,
    (bucket_us, bucket_ms): (f64, f64),
    step_compute_ms: f64,
) -> (f64, f64) {
    match w.message_bytes {
        Some(_) => (0.0, bucket_ms),
        None if bucket_us > 0.0 => (
            workload::hidden_share(buckets),
            workload::exposed_comm_ms(bucket_ms, buckets, step_compute_ms),
        ),
        None => (0.0, 0.0),
    }
}

/// Algorithm and bus bandwidth of an all-reduce of `message_bytes` over `n` ranks taking
/// `time_us`, GB/s (zero when nothing is timed).
fn all_reduce_bandwidths(message_bytes: f64, time_us: f64, n: f64) -> (f64, f64) {
    if time_us > 0.0 && n >= 2.0 {
        let alg = message_bytes / time_us / 1000.0;
        (alg, alg * 2.0 * (n - 1.0) / n)
    } else {
        (0.0, 0.0)
    }
}

/// The data-parallel all-reduce as a collective of the step, `timed` (its time and exposed
/// time, ms, and its buckets' algorithm); none under FSDP or on a single rank.
fn data_parallel_all_reduce(
    w: &Workload,
    ranks: u64,
    nodes: u64,
    message_bytes: f64,
    (comm_time_ms, dp_exposed_ms, algorithm): (f64, f64, &'static str),
) -> Option<CollectiveResult> {
    let fsdp = w.message_bytes.is_none() && w.data_parallel_mode == DataParallelMode::Fsdp;
    (!fsdp && ranks >= 2).then(|| CollectiveResult {
        kind: "all_reduce",
        parallelism: "data",
        group_size: u32::try_from(ranks).unwrap_or(u32::MAX),
        placement: if nodes > 1 { job::NETWORK } else { job::NVLINK },
        bytes_per_step: job::bytes_of(message_bytes),
        time_ms: comm_time_ms,
        exposed_ms: dp_exposed_ms,
        algorithm,
    })
}

/// What the communicators of a model job's other groups share: the job, each GPU's network
/// share (GB/s), GPUs per server and the servers the job runs on.
struct GroupComm<'a> {
    input: &'a PerfInput,
    per_gpu_net: f64,
    gpn: f64,
    used_servers: f64,
}

impl GroupComm<'_> {
    /// The communicator of a group of `k` ranks, `per_domain` of them in an NVLink domain,
    /// `stride` GPUs apart, whose NICs send `traffic`: a ring's (tensor, context, FSDP), a
    /// pair's (pipeline) or every peer's (all-to-all: each NIC keeps flows to every other
    /// server the group spans).
    fn communicator(&self, k: f64, per_domain: f64, stride: f64, traffic: Pattern) -> Communicator {
        let (input, path) = (self.input, &self.input.path);
        let span = (k * stride / self.gpn).ceil().clamp(1.0, self.used_servers);
        let flows = congestion::sub_flows(path, &input.workload.nccl, input.nics_per_node);
        let terms = input.workload.model_terms;
        let across = match traffic {
            Pattern::Ring => congestion::Span::ring(path, span, self.used_servers, flows),
            Pattern::Pairs => congestion::Span::spread(path, span, self.used_servers, 1.0, flows),
            Pattern::EveryPeer => {
                let peers = (span - 1.0).max(1.0);
                congestion::Span::spread(path, span, self.used_servers, peers, flows)
            }
        }
        .with_ecmp_term(path, terms.ecmp_efficiency);
        // The model's all-to-all efficiency term (1 unless sampled) scales what its network
        // part gets.
        let net_term = match traffic {
            Pattern::EveryPeer => terms.a2a_efficiency,
            Pattern::Ring | Pattern::Pairs => 1.0,
        };
        Communicator {
            ranks: k,
            nodes: (k / per_domain.max(1.0)).ceil().max(1.0),
            ranks_per_node: per_domain.max(1.0),
            nvlink_ring_gbytes_per_s: input.gpu.nvlink_ring_busbw_gbytes_per_s,
            nvls_gbytes_per_s: input.gpu.nvls_busbw_gbytes_per_s,
            net_node_raw_gbytes_per_s: self.per_gpu_net * per_domain.max(1.0) * net_term,
            congestion_factor: across.kappa,
            path_latency_us: across.hops * path.switch_latency_ns / 1000.0,
            incast_tail_us: congestion::incast_tail_us(path),
            collnet: false,
            channels: channels(input),
            forced: forced(input),
        }
    }
}

/// The flows a group's NICs send.
#[derive(Clone, Copy)]
enum Pattern {
    /// A ring or tree over rank-ordered servers.
    Ring,
    /// One peer a stage away (pipeline send/recv).
    Pairs,
    /// Every other server of the group (all-to-all).
    EveryPeer,
}

/// The algorithm and protocol the request forces (`nccl.algorithm`, `nccl.protocol`).
fn forced(input: &PerfInput) -> (NcclAlgorithm, NcclProtocol) {
    (input.workload.nccl.algorithm, input.workload.nccl.protocol)
}

/// Channels a communicator runs: as forced (`nccl.channels`), else two a NIC.
fn channels(input: &PerfInput) -> f64 {
    input
        .workload
        .nccl
        .channels
        .map_or(CHANNELS_PER_NIC * f64::from(input.nics_per_node), f64::from)
}

/// An expert all-to-all over all the input's GPUs, the GPUs of a server in one group piece
/// (as a DeepEP benchmark runs it): a dispatch of `tokens` a GPU, each `hidden` values of
/// `bytes_per_value`, routed as the input's workload routes them (`moe_top_k`, `experts`,
/// `moe_dispatcher`, `moe_node_limit`). Returns (time, µs; distinct nodes a token is routed to,
/// its own included; nodes of the group).
pub fn expert_dispatch(
    input: &PerfInput,
    tokens: f64,
    hidden: f64,
    bytes_per_value: f64,
) -> Result<(f64, f64, f64), PerfError> {
    validate(input)?;
    let (_, gpn, node_net) = node_network(input);
    let used_servers = (f64::from(input.gpus) / gpn).ceil().max(1.0);
    let g = GroupComm {
        input,
        per_gpu_net: node_net / gpn,
        gpn,
        used_servers,
    };
    let ranks = f64::from(input.gpus);
    let c = g.communicator(ranks, gpn.min(ranks), 1.0, Pattern::EveryPeer);
    let w = &input.workload;
    let time = job::all_to_all_us(
        &c,
        job::dispatch_bytes(w, &c, tokens, hidden * bytes_per_value),
    );
    Ok((time, job::token_distinct_nodes(w, c.nodes), c.nodes))
}

/// A model job's collectives besides the data-parallel all-reduce (see
/// [`job::other_collectives`]), their communicators sharing `(each GPU's network share (GB/s),
/// GPUs per server, the servers the job runs on)`.
fn model_collectives(
    input: &PerfInput,
    (per_gpu_net, gpn, used_servers): (f64, f64, f64),
    step_compute_ms: f64,
    dp_f: f64,
) -> Vec<CollectiveResult> {
    let g = &GroupComm {
        input,
        per_gpu_net,
        gpn,
        used_servers,
    };
    let make =
        |k: f64, per_domain: f64, stride: f64| g.communicator(k, per_domain, stride, Pattern::Ring);
    let make_pairs = |k: f64, per_domain: f64, stride: f64| {
        g.communicator(k, per_domain, stride, Pattern::Pairs)
    };
    let make_all_to_all = |k: f64, per_domain: f64, stride: f64| {
        g.communicator(k, per_domain, stride, Pattern::EveryPeer)
    };
    let ctx = job::JobContext {
        workload: &input.workload,
        gpus: f64::from(input.gpus),
        gpus_per_node: g.gpn,
        domain_gpus: f64::from(domain_gpus(input)),
        step_compute_ms,
        comm: &make,
        comm_pairs: &make_pairs,
        comm_all_to_all: &make_all_to_all,
    };
    job::other_collectives(&ctx, dp_f)
}

/// The step's exposed communication, ms, and the part of it waiting on the scale-out network.
fn exposed_comm_ms(
    w: &Workload,
    dp_exposed_ms: f64,
    collectives: &[CollectiveResult],
) -> (f64, f64) {
    let exposed_ms: f64 = match w.message_bytes {
        Some(_) => dp_exposed_ms,
        // From +0: an empty `sum` of f64 is −0.0, which a one-GPU job showed as
        // `"exposed_comm_ms": -0.0` and an idle fraction of −0 (no collective at all).
        None => collectives.iter().fold(0.0, |t, c| t + c.exposed_ms),
    };
    // Only waits on the scale-out network are the fabric's: a collective inside one NVLink
    // domain (tensor parallelism in a node, the whole job on one server) takes the same time
    // whichever fabric is bought, so it lengthens the step but is not charged as GPU time lost
    // to the network.
    let network_exposed_ms = collectives
        .iter()
        .filter(|c| c.placement == job::NETWORK)
        .fold(0.0, |t, c| t + c.exposed_ms);
    (exposed_ms, network_exposed_ms)
}

/// Every number of a prediction is finite, else the inputs have none.
fn check_finite(result: &PerfResult) -> Result<(), PerfError> {
    let numbers = [
        result.allreduce_time_us,
        result.busbw_gbytes_per_s,
        result.algbw_gbytes_per_s,
        result.congestion_factor,
        result.busbw_ceiling_gbytes_per_s,
        result.bucket_allreduce_time_us,
        result.comm_time_ms,
        result.exposed_comm_ms,
        result.network_exposed_ms,
        result.step_time_ms,
        result.gpu_idle_fraction,
        result.step_compute_ms,
    ];
    let collective_numbers = result
        .collectives
        .iter()
        .flat_map(|c| [c.time_ms, c.exposed_ms]);
    if numbers
        .iter()
        .copied()
        .chain(collective_numbers)
        .any(|v| !v.is_finite())
    {
        return Err(out_of_range(
            "input",
            "the combination of inputs has no finite prediction".to_string(),
        ));
    }
    Ok(())
}
