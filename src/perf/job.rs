//! Every collective a training step runs, from the job's parallelism: group sizes, placement
//! (inside the NVLink domain or across the fabric), bytes, time through the same α-β
//! communicator model, and how much of it compute hides. Closed form: no loops over ranks.

use super::collective::{Algorithm, Communicator};
use super::constants::{
    BACKWARD_SHARE, BYTES_PER_US_PER_GBYTES_PER_S, PARAMS_PER_BILLION, RING_BASE_US,
    RING_NET_HOP_US, SIMPLE, US_PER_MS,
};
use super::input::{DataParallelMode, HEAD_DIM, MoeDispatcher, Workload};
use serde::Serialize;
use utoipa::ToSchema;

/// Parameters ≈ 12 · layers · hidden² for a decoder-only transformer (Kaplan et al. 2020), with
/// layers ≈ hidden / 128 in the Llama family (Llama 2 70B 8,192/80, Llama 3 405B 16,384/126):
/// hidden ≈ (params · 128 / 12)^(1/3) when the job does not give it.
pub const HIDDEN_PER_LAYER: f64 = 128.0;

/// One collective of a training step.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CollectiveResult {
    /// `all_reduce`, `reduce_scatter`, `all_gather`, `all_to_all` or `send_recv`.
    #[schema(value_type = String)]
    pub kind: &'static str,
    /// Which parallelism sends it: `data`, `tensor`, `pipeline`, `context`, `expert`.
    #[schema(value_type = String)]
    pub parallelism: &'static str,
    /// Ranks in one group.
    pub group_size: u32,
    /// `nvlink` when the whole group sits in one NVLink domain, else `network`.
    #[schema(value_type = String)]
    pub placement: &'static str,
    /// Bytes each GPU sends into this collective per step (buffer sizes summed over calls); a
    /// whole number that can pass 2^64 at the inputs' extremes.
    // 128 bits: the bounded inputs reach ~1e21 bytes (a 10-million-token sequence of a
    // 1e6-wide model); a `u64` saturated at 18446744073709551615. Written as an integer up to
    // 2^64 and past it as the float it was computed as (3.2e19: serde_json's values, which
    // `/v1/value` reads through, hold no wider integer).
    #[schema(minimum = 0, value_type = f64)]
    #[serde(serialize_with = "whole_bytes")]
    pub bytes_per_step: u128,
    /// Time of all calls per step, ms.
    pub time_ms: f64,
    /// Part of `time_ms` not hidden behind compute, ms.
    pub exposed_ms: f64,
    /// Algorithm (`ring`, `tree`, `nvls`, … for reductions; `direct` for all-to-all and
    /// point-to-point).
    #[schema(value_type = String)]
    pub algorithm: &'static str,
}

/// What a step's collectives need besides the workload.
pub struct JobContext<'a> {
    /// The workload.
    pub workload: &'a Workload,
    /// GPUs in the job.
    pub gpus: f64,
    /// GPUs per server.
    pub gpus_per_node: f64,
    /// GPUs per NVLink domain (≥ GPUs per server).
    pub domain_gpus: f64,
    /// Compute of one step, ms.
    pub step_compute_ms: f64,
    /// Builds the communicator of a group: (ranks, ranks per NVLink domain, stride).
    pub comm: &'a dyn Fn(f64, f64, f64) -> Communicator,
    /// The same for point-to-point pairs (pipeline stages): each NIC keeps flows to one peer a
    /// stage away, so a leaf's servers cross as their peers lie elsewhere.
    pub comm_pairs: &'a dyn Fn(f64, f64, f64) -> Communicator,
    /// The same for an all-to-all, whose NICs each keep flows to every other server of the
    /// group (ECMP hashes many flows, not a ring's few).
    pub comm_all_to_all: &'a dyn Fn(f64, f64, f64) -> Communicator,
}

/// Ranks of a group of `size` with rank stride `stride` that every NVLink domain of `domain`
/// GPUs it touches holds, at the least, on a job of `gpus` GPUs.
///
/// Groups tile the ranks in aligned blocks of `size · stride` GPUs (Megatron order), one after
/// another from GPU 0. A block lies inside one domain only when it fits there; otherwise it is
/// cut by domain boundaries into pieces — a first piece to the end of its first domain, whole
/// domains, a last piece — and each group of the block has about ⌊piece / stride⌋ ranks in
/// a piece (at least one in a piece shorter than the stride). A straddling group is as slow as
/// its smallest part (the all-to-all, and the inter-domain step of an all-reduce, wait for the
/// domain that sends the most per rank across), so the smallest piece over the job's blocks
/// sets the group's shape. The pieces repeat every domain ÷ gcd(block, domain) blocks, so at
/// most that many are looked at. Many blocks reach the gcd(block, domain) ÷ stride bound
/// (64-GPU expert groups on 72-GPU NVL72 racks: 8 of each group's GPUs kept together on 1,024
/// GPUs); few blocks keep more (121-rank data-parallel groups of 484 GPUs on 27 racks, four
/// blocks: 3, not 1). On 8-GPU servers with power-of-two degrees this is ⌊domain / stride⌋.
pub fn ranks_per_domain(size: f64, stride: f64, domain: f64, gpus: f64) -> f64 {
    let k = size.max(1.0).round() as u64;
    let s = stride.max(1.0).round() as u64;
    let d = domain.max(1.0).round() as u64;
    let Some(span) = k.checked_mul(s) else {
        return 1.0;
    };
    let blocks = ((gpus.max(0.0) / span as f64).floor() as u64).max(1);
    let repeat = crate::arith::gcd(u128::from(span), u128::from(d)).max(1);
    let period = u64::try_from(u128::from(d) / repeat).unwrap_or(d);
    let mut least = k;
    for b in 0..blocks.min(period) {
        // Where block b starts inside its first domain.
        let offset = u64::try_from((u128::from(b) * u128::from(span)) % u128::from(d)).unwrap_or(0);
        let first = (d - offset).min(span);
        let rest = span - first;
        let whole = if rest >= d { d } else { 0 };
        for piece in [first, whole, rest % d] {
            if piece > 0 {
                least = least.min((piece / s).max(1));
            }
        }
    }
    (least as f64).clamp(1.0, size.max(1.0))
}

/// Hidden size: the job's, or derived from the active parameters (see [`HIDDEN_PER_LAYER`]).
pub fn hidden_size(w: &Workload) -> f64 {
    match w.hidden_size {
        Some(h) => f64::from(h),
        None => (active_params(w) * HIDDEN_PER_LAYER / 12.0).cbrt().max(1.0),
    }
}

/// Active parameters per token (all of them for a dense model).
pub fn active_params(w: &Workload) -> f64 {
    w.active_params_billion
        .unwrap_or(w.model_params_billion)
        .min(w.model_params_billion)
        * PARAMS_PER_BILLION
}

/// Transformer layers: the workload's, else ≈ active params / (12 · hidden²), at least 1 (a
/// dense model's rule: 4·hidden² of attention and 8·hidden² of feed-forward a layer).
pub fn layers(w: &Workload) -> f64 {
    match w.layers {
        Some(l) => f64::from(l.max(1)),
        None => {
            let h = hidden_size(w);
            (active_params(w) / (12.0 * h * h)).round().max(1.0)
        }
    }
}

/// Routed-expert parameters of a mixture of experts: a token uses k of the E routed experts, so
/// the parameters it does not use, total − active, are (E − k)/E of them: routed = (total −
/// active) · E / (E − k) (DeepSeek-V3, E = 256, k = 8: 654.5 B of 671 B; its dense part —
/// attention, dense and shared-expert feed-forward, router, embeddings — 16.5 B, not the 37 B
/// active, which hold 8 routed experts a layer). Without E (`workload.experts` not given), or with
/// every expert active, total − active: the routed experts a token uses then count as dense.
pub fn routed_expert_params(w: &Workload) -> f64 {
    let total = w.model_params_billion * PARAMS_PER_BILLION;
    let idle = (total - active_params(w)).max(0.0);
    match w.experts {
        Some(e) if e > w.moe_top_k => (idle * f64::from(e) / f64::from(e - w.moe_top_k)).min(total),
        _ => idle,
    }
}

/// Parameters one GPU holds before data-parallel sharding: the dense part, and its 1/EP of the
/// routed experts, divided over TP·PP (expert tensor parallelism = TP, Megatron-Core's default:
/// `arguments.py` sets `expert_tensor_parallel_size` to `tensor_model_parallel_size`; its memory
/// estimator, `theoretical_memory_usage.py`, shards routed experts by ETP · EP and the rest by
/// TP). Until 2026-11-27 the dense part was taken as all the active parameters, 8 routed experts a
/// layer included: DeepSeek-V3's preset reduced 5.86 GB a GPU where 3.34 GB are.
pub fn params_per_model_shard(w: &Workload) -> f64 {
    let total = w.model_params_billion * PARAMS_PER_BILLION;
    let routed = routed_expert_params(w);
    let ep = w.expert_parallel.max(1);
    // The busiest rank's share: ⌈E/EP⌉ of E experts when they split unevenly (a preset's
    // refitted degree), 1/EP otherwise.
    let share = match w.experts {
        Some(e) if e > 0 => f64::from(e.div_ceil(ep)) / f64::from(e),
        _ => 1.0 / f64::from(ep),
    };
    let per_ep = (total - routed).max(0.0) + routed * share;
    per_ep / (f64::from(w.tensor_parallel.max(1)) * f64::from(w.pipeline_parallel.max(1)))
}

fn ring_half_us(c: &Communicator, bytes: f64) -> f64 {
    // Reduce-scatter and all-gather are each half a ring all-reduce: n−1 of its 2(n−1) steps.
    c.time_us(Algorithm::Ring, SIMPLE, bytes).unwrap_or(0.0) / 2.0
}

fn net_per_gpu(c: &Communicator) -> f64 {
    c.net_node_raw_gbytes_per_s * c.congestion_factor / c.ranks_per_node.max(1.0)
}

/// What an all-to-all moves a rank, bytes: over NVLink inside its domain and over the network.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AllToAllBytes {
    pub nvlink: f64,
    pub network: f64,
}

impl AllToAllBytes {
    /// NCCL's all-to-all of `bytes` a rank (k copies a token): (g − 1)/n of it to the other
    /// ranks of its domain, (n − g)/n across the network.
    pub fn copies(c: &Communicator, bytes: f64) -> Self {
        let n = c.ranks.max(1.0);
        let g = c.ranks_per_node.min(n);
        AllToAllBytes {
            nvlink: bytes * (g - 1.0).max(0.0) / n,
            network: bytes * (n - g).max(0.0) / n,
        }
    }

    /// A deduplicating dispatch (DeepEP) of `tokens` a rank of `token_bytes` each, routed to
    /// `k` experts on `distinct` nodes of `nodes` (its own included): across the network once
    /// to each distinct remote node, distinct · (N − 1)/N copies a token; there, and on its
    /// own node, forwarded over NVLink to each GPU holding one of its experts, about
    /// g · (1 − (1 − 1/g)^(k/distinct)) GPUs a node (k/distinct experts a node visited,
    /// uniformly over its g GPUs), every one counted as DeepEP counts its NVLink receive
    /// bytes (`recv_x`): at EP 32 that is 2.06 × its RDMA bytes, as DeepEP#82 and #397 print
    /// (76.50 against 37.93, 61.85 against 30.80 GB/s).
    pub fn deduplicated(
        c: &Communicator,
        tokens: f64,
        token_bytes: f64,
        k: f64,
        distinct: f64,
    ) -> Self {
        let n_nodes = c.nodes.max(1.0);
        let g = c.ranks_per_node.max(1.0);
        let per_node = k.max(1.0) / distinct.max(1.0);
        let gpus_a_node = g * (1.0 - (1.0 - 1.0 / g).powf(per_node));
        AllToAllBytes {
            nvlink: if g > 1.0 {
                tokens * distinct * gpus_a_node * token_bytes
            } else {
                0.0
            },
            network: tokens * distinct * (n_nodes - 1.0) / n_nodes * token_bytes,
        }
    }
}

/// Time of an all-to-all, µs: its NVLink and network parts at once, each at its bandwidth (the
/// network at the rank's share of its node's NICs and the fabric's congestion).
pub fn all_to_all_us(c: &Communicator, bytes: AllToAllBytes) -> f64 {
    if c.ranks < 2.0 {
        return 0.0;
    }
    let intra = bytes.nvlink / (c.nvlink_ring_gbytes_per_s * BYTES_PER_US_PER_GBYTES_PER_S);
    let (inter, hop) = if bytes.network > 0.0 {
        let bw = net_per_gpu(c) * BYTES_PER_US_PER_GBYTES_PER_S;
        let t = if bw > 0.0 {
            bytes.network / bw
        } else {
            f64::INFINITY
        };
        (
            t,
            RING_NET_HOP_US[SIMPLE] + c.path_latency_us + c.incast_tail_us,
        )
    } else {
        (0.0, 0.0)
    };
    RING_BASE_US[SIMPLE] + hop + intra.max(inter)
}

/// What a mixture of experts' dispatch (or combine) of `tokens` a rank, `token_bytes` each,
/// moves over `c` under the job's dispatcher.
pub fn dispatch_bytes(
    w: &Workload,
    c: &Communicator,
    tokens: f64,
    token_bytes: f64,
) -> AllToAllBytes {
    let k = f64::from(w.moe_top_k.max(1));
    match w.moe_dispatcher {
        MoeDispatcher::AllToAll => AllToAllBytes::copies(c, tokens * k * token_bytes),
        MoeDispatcher::DeepEp => {
            AllToAllBytes::deduplicated(c, tokens, token_bytes, k, token_distinct_nodes(w, c.nodes))
        }
    }
}

/// Distinct nodes a token of the job is routed to among `nodes` (its own included).
pub fn token_distinct_nodes(w: &Workload, nodes: f64) -> f64 {
    let limit = w.moe_node_limit.map_or(nodes, f64::from);
    distinct_nodes(
        nodes,
        limit,
        w.experts.map(f64::from),
        f64::from(w.moe_top_k.max(1)),
    )
}

/// Expected distinct NVLink domains (nodes) a token's `k` experts lie on, when the `experts`
/// routed experts (`None`: many) are spread evenly over `nodes` and routing first keeps the
/// `node_limit` best nodes (DeepSeek-V3's node-limited routing, report §2.1.2; DeepEP's test
/// `num_topk_groups = min(nodes, 4)`), then the k best experts on them, uniformly at random
/// as balanced routing makes them: G · (1 − C(G·e − e, k) ÷ C(G·e, k)), G = min(limit, nodes),
/// e = experts a node. With G = 1 it is 1; with many experts, G · (1 − (1 − 1/G)^k).
pub fn distinct_nodes(nodes: f64, node_limit: f64, experts: Option<f64>, k: f64) -> f64 {
    let n = nodes.max(1.0).floor();
    let g = node_limit.clamp(1.0, n).floor();
    let k = k.max(1.0).floor();
    let none_on_a_node = match experts {
        Some(e) if e >= n && (e / n) * g >= k => {
            let per = e / n;
            let pool = per * g;
            // A product of at most MAX_TOP_K (64) factors: constant in the GPU count.
            let mut p = 1.0;
            let mut i = 0.0;
            while i < k {
                p *= ((pool - per - i) / (pool - i)).max(0.0);
                i += 1.0;
            }
            p
        }
        _ => (1.0 - 1.0 / g).powf(k),
    };
    g * (1.0 - none_on_a_node)
}

/// One point-to-point transfer of `bytes` between neighbours in different domains (or over
/// NVLink when the group shares a domain).
pub fn send_recv_us(c: &Communicator, bytes: f64) -> f64 {
    if c.nodes <= 1.0 {
        return RING_BASE_US[SIMPLE] + bytes / (c.nvlink_ring_gbytes_per_s * 1000.0);
    }
    let bw = net_per_gpu(c) * BYTES_PER_US_PER_GBYTES_PER_S;
    let t = if bw > 0.0 { bytes / bw } else { f64::INFINITY };
    RING_BASE_US[SIMPLE] + RING_NET_HOP_US[SIMPLE] + c.path_latency_us + t
}

/// `placement` of a collective that crosses the scale-out network.
pub const NETWORK: &str = "network";
/// `placement` of a collective that stays inside one NVLink domain (a node, or an NVL72 rack).
pub const NVLINK: &str = "nvlink";

/// A byte count as a whole number: NaN and negatives are 0; a `u128` holds every count the
/// bounded inputs can make (the cast saturates only past 3.4e38).
pub fn bytes_of(bytes: f64) -> u128 {
    bytes.max(0.0) as u128
}

/// A byte count as JSON: an integer while it fits 64 bits, else a float (no precision is lost:
/// counts past 2^64 come from a float).
fn whole_bytes<S: serde::Serializer>(n: &u128, s: S) -> Result<S::Ok, S::Error> {
    match u64::try_from(*n) {
        Ok(n) => s.serialize_u64(n),
        Err(_) => s.serialize_f64(*n as f64),
    }
}

fn placement(c: &Communicator) -> &'static str {
    if c.nodes <= 1.0 { NVLINK } else { NETWORK }
}

fn result(
    kind: &'static str,
    parallelism: &'static str,
    c: &Communicator,
    bytes: f64,
    time_ms: f64,
    exposed_ms: f64,
    algorithm: &'static str,
) -> CollectiveResult {
    CollectiveResult {
        kind,
        parallelism,
        group_size: c.ranks.min(f64::from(u32::MAX)) as u32,
        placement: placement(c),
        bytes_per_step: bytes_of(bytes),
        time_ms,
        exposed_ms: exposed_ms.clamp(0.0, time_ms.max(0.0)),
        algorithm,
    }
}

/// Collectives other than the data-parallel gradient reduction (which `evaluate` models with
/// its buckets): tensor, pipeline, context and expert traffic, and FSDP's parameter
/// all-gathers and gradient reduce-scatter. Overlap rules (docs/model.md):
/// - tensor all-reduce: exposed (on the critical path of every layer; Megatron-LM, Narayanan
///   et al. SC21 §3.3 — why TP stays inside the NVLink domain);
/// - pipeline send/recv: hidden behind other micro-batches except the fill and drain, 2·(PP−1)
///   transfers (Narayanan et al. SC21, 1F1B schedule);
/// - context all-gather: overlapped with attention, exposed beyond the forward share of compute;
/// - expert all-to-all: exposed (dispatch and combine sit between attention and the expert
///   MLP; DeepSeek-V3 needed its DualPipe schedule to hide it);
/// - FSDP all-gather / reduce-scatter: prefetched one layer ahead, hidden behind the forward
///   (1/3 of compute) and backward (2/3) except the first layer's gather.
pub fn other_collectives(ctx: &JobContext<'_>, dp: f64) -> Vec<CollectiveResult> {
    let w = ctx.workload;
    let s = &StepShape::of(ctx, dp);
    let mut out = Vec::new();

    if s.tp >= 2.0 {
        out.push(tensor_all_reduce(ctx, s));
    }
    if s.cp >= 2.0 {
        out.push(context_all_gather(ctx, s));
    }
    if s.pp >= 2.0 {
        out.push(pipeline_send_recv(ctx, s, dp));
    }
    if s.ep >= 2.0 {
        out.push(expert_all_to_all(ctx, s));
    }
    if w.data_parallel_mode == DataParallelMode::Fsdp && dp >= 2.0 {
        out.extend(fsdp_gather_and_scatter(ctx, s, dp));
    }
    out
}

/// What every collective of a step is sized by: the parallel degrees, the activations' bytes
/// per value, the hidden size, a pipeline stage's layers, a sequence's tokens, the micro-batches
/// of one replica and the step's forward and backward compute.
struct StepShape {
    tp: f64,
    pp: f64,
    cp: f64,
    ep: f64,
    act: f64,
    h: f64,
    layers_stage: f64,
    seq: f64,
    micro: f64,
    forward_ms: f64,
    backward_ms: f64,
}

impl StepShape {
    fn of(ctx: &JobContext<'_>, dp: f64) -> StepShape {
        let w = ctx.workload;
        let tp = f64::from(w.tensor_parallel.max(1));
        let pp = f64::from(w.pipeline_parallel.max(1));
        let cp = f64::from(w.context_parallel.max(1));
        let ep = f64::from(w.expert_parallel.max(1));
        let act = w.precision.bytes();
        let h = hidden_size(w);
        let layers_stage = (layers(w) / pp).max(1.0);
        let seq = f64::from(w.sequence_length.max(1));
        let tokens = global_tokens(w, dp);
        // Tokens one data-parallel replica (TP·PP·CP GPUs) processes per step.
        let tokens_replica = tokens / dp.max(1.0);
        // Micro-batches of one sequence each.
        let micro = (tokens_replica / seq).max(1.0);
        let forward_ms = (1.0 - BACKWARD_SHARE) * ctx.step_compute_ms;
        let backward_ms = BACKWARD_SHARE * ctx.step_compute_ms;
        StepShape {
            tp,
            pp,
            cp,
            ep,
            act,
            h,
            layers_stage,
            seq,
            micro,
            forward_ms,
            backward_ms,
        }
    }
}

/// Tensor parallelism's all-reduces of every layer's activations: all exposed, or with
/// `tp_comm_overlap` only what the step's compute cannot cover. Megatron's `--tp-comm-overlap`
/// (Transformer Engine userbuffers) splits each all-gather and reduce-scatter into chunks
/// pipelined with the GEMM beside it (Wang et al., "Overlap Communication with Dependent
/// Computation via Decomposition", ASPLOS 2023); every Megatron-Bridge Llama pre-training
/// recipe with TP > 1 sets it (`perf_recipes/llama/*/llama3*.py`, `tp_comm_overlap_cfg =
/// userbuffers_*`). The SMs userbuffers take are not charged.
fn tensor_all_reduce(ctx: &JobContext<'_>, s: &StepShape) -> CollectiveResult {
    let c = (ctx.comm)(
        s.tp,
        ranks_per_domain(s.tp, 1.0, ctx.domain_gpus, ctx.gpus),
        1.0,
    );
    // Per layer 2 all-reduces forward, 2 backward, each of one micro-batch's activations
    // (seq/CP · hidden).
    let msg = s.seq / s.cp * s.h * s.act;
    let calls = 4.0 * s.layers_stage * s.micro;
    let choice = c.choose(msg);
    let t_ms = choice.map_or(0.0, |x| x.time_us) * calls / US_PER_MS;
    let algo = choice.map_or("none", |x| x.algorithm.as_str());
    let exposed = if ctx.workload.tp_comm_overlap {
        (t_ms - ctx.step_compute_ms).max(0.0)
    } else {
        t_ms
    };
    result("all_reduce", "tensor", &c, msg * calls, t_ms, exposed, algo)
}

/// Context parallelism's K and V all-gathers (and gradient reduce-scatters): exposed beyond the
/// forward compute.
fn context_all_gather(ctx: &JobContext<'_>, s: &StepShape) -> CollectiveResult {
    let w = ctx.workload;
    let c = (ctx.comm)(
        s.cp,
        ranks_per_domain(s.cp, s.tp, ctx.domain_gpus, ctx.gpus),
        s.tp,
    );
    // K and V of the whole sequence gathered per layer forward, their gradients
    // reduce-scattered backward (Llama 3 all-gather context parallelism). With grouped-
    // query attention K and V are the KV heads' width, not the model's (Llama 3 405B: 8
    // heads of 128 = 1,024 of 16,384, "much smaller than Q", §3.3.2); TP splits the heads,
    // a rank keeping at least one.
    let kv_width = (f64::from(w.kv_heads.max(1)) * HEAD_DIM).min(s.h);
    let msg = 2.0 * s.seq * s.act * (kv_width / s.tp).max(HEAD_DIM.min(kv_width));
    let calls = 2.0 * s.layers_stage * s.micro;
    let t_ms = ring_half_us(&c, msg) * calls / US_PER_MS;
    let exposed = (t_ms - s.forward_ms).max(0.0);
    result(
        "all_gather",
        "context",
        &c,
        msg * calls,
        t_ms,
        exposed,
        "ring",
    )
}

/// Pipeline parallelism's activation and gradient transfers: exposed in the fill and drain.
fn pipeline_send_recv(ctx: &JobContext<'_>, s: &StepShape, dp: f64) -> CollectiveResult {
    let stride = s.tp * s.cp * dp;
    let c = (ctx.comm_pairs)(
        s.pp,
        ranks_per_domain(s.pp, stride, ctx.domain_gpus, ctx.gpus),
        stride,
    );
    // One activation forward and one gradient backward per micro-batch, split over TP.
    let msg = s.seq / s.cp * s.h * s.act / s.tp;
    let calls = 2.0 * s.micro;
    let one_ms = send_recv_us(&c, msg) / US_PER_MS;
    let t_ms = one_ms * calls;
    let exposed = one_ms * 2.0 * (s.pp - 1.0);
    result(
        "send_recv",
        "pipeline",
        &c,
        msg * calls,
        t_ms,
        exposed,
        "direct",
    )
}

/// Expert parallelism's dispatch and combine all-to-alls: exposed but what the job's overlap
/// (`workload.a2a_overlap`) hides behind compute.
fn expert_all_to_all(ctx: &JobContext<'_>, s: &StepShape) -> CollectiveResult {
    let w = ctx.workload;
    let stride = s.tp * s.cp;
    let c = (ctx.comm_all_to_all)(
        s.ep,
        ranks_per_domain(s.ep, stride, ctx.domain_gpus, ctx.gpus),
        stride,
    );
    // Dispatch and combine, forward and backward, per MoE layer: the GPU's tokens of one
    // micro-batch × top-k × hidden.
    // FP8 sends the dispatches only (`Precision::expert_bytes`).
    let k = f64::from(w.moe_top_k.max(1));
    let tokens = s.seq / (s.cp * s.tp);
    let token_bytes = s.h * w.precision.expert_bytes();
    let msg = tokens * k * token_bytes;
    let calls = 4.0 * s.layers_stage * s.micro;
    let t_ms = all_to_all_us(&c, dispatch_bytes(w, &c, tokens, token_bytes)) * calls / US_PER_MS;
    let exposed = w.a2a_overlap.exposed_ms(t_ms, ctx.step_compute_ms);
    result(
        "all_to_all",
        "expert",
        &c,
        msg * calls,
        t_ms,
        exposed,
        "direct",
    )
}

/// FSDP's parameter all-gathers and gradient reduce-scatter, prefetched a layer ahead.
fn fsdp_gather_and_scatter(ctx: &JobContext<'_>, s: &StepShape, dp: f64) -> [CollectiveResult; 2] {
    let w = ctx.workload;
    let stride = s.tp * s.cp;
    let c = (ctx.comm)(
        dp,
        ranks_per_domain(dp, stride, ctx.domain_gpus, ctx.gpus),
        stride,
    );
    let shard = params_per_model_shard(w);
    // Parameters gathered in the activation precision of the weights (bf16), gradients
    // reduce-scattered at `bytes_per_gradient`.
    let ag_bytes = shard * 2.0;
    let rs_bytes = shard * f64::from(w.bytes_per_gradient);
    let per_layer = s.layers_stage.max(1.0);
    let ag_ms = ring_half_us(&c, ag_bytes / per_layer) * per_layer / US_PER_MS;
    let rs_ms = ring_half_us(&c, rs_bytes / per_layer) * per_layer / US_PER_MS;
    let first = ag_ms / per_layer;
    let exposed_ag = (ag_ms - s.forward_ms).max(0.0) + first;
    let exposed_bwd = (ag_ms + rs_ms - s.backward_ms).max(0.0);
    [
        result(
            "all_gather",
            "data",
            &c,
            2.0 * ag_bytes,
            2.0 * ag_ms,
            exposed_ag + exposed_bwd * ag_ms / (ag_ms + rs_ms).max(1e-12),
            "ring",
        ),
        result(
            "reduce_scatter",
            "data",
            &c,
            rs_bytes,
            rs_ms,
            exposed_bwd * rs_ms / (ag_ms + rs_ms).max(1e-12),
            "ring",
        ),
    ]
}

/// Tokens per step over the whole job.
pub fn global_tokens(w: &Workload, dp: f64) -> f64 {
    match w.global_batch_tokens {
        Some(t) => t as f64,
        None => {
            dp.max(1.0)
                * super::input::DEFAULT_SEQUENCES_PER_REPLICA as f64
                * f64::from(w.sequence_length.max(1))
        }
    }
}

/// Dense FP8 tensor throughput over dense BF16 on Hopper and Blackwell: H100 1,979 against 989
/// TFLOPS, B200 4,500 against 2,250 (NVIDIA H100 and HGX B200 datasheets, dense = sparse ÷ 2).
pub const FP8_OVER_BF16_PEAK: f64 = 2.0;

/// Model FLOPs of one token's forward and backward: 6 · active params (Kaplan et al. 2020) plus
/// causal attention's scores and values, 6 · layers · sequence · hidden (Megatron-LM's counter,
/// `megatron/training/training.py` `num_floating_point_operations`: PaLM's 12·L·H·Q·T halved
/// for the causal mask). Llama 3 405B at 8,192 tokens: 2.43e12 + 1.01e11 (+4 %); at 131,072:
/// +67 %.
pub fn flops_per_token(w: &Workload) -> f64 {
    let attention = 6.0 * layers(w) * f64::from(w.sequence_length.max(1)) * hidden_size(w);
    6.0 * active_params(w) + attention
}

/// Compute per step, ms: model FLOPs per token · tokens ÷ (GPUs · peak · efficiency), the peak
/// the job's precision runs at (FP8: [`FP8_OVER_BF16_PEAK`] × the dense BF16 peak) and the
/// share of it the GPU sustains while computing (`workload.mfu`, else the GPU's entry in the
/// efficiency table); model FLOPs as the Llama 3 paper and Megatron-Bridge count them
/// (attention included, no recomputation).
pub fn step_compute_ms(
    w: &Workload,
    dp: f64,
    job_gpus: f64,
    dense_bf16_tflops: f64,
    efficiency: f64,
) -> f64 {
    let flops = flops_per_token(w) * global_tokens(w, dp);
    let rate = job_gpus.max(1.0) * peak_tflops(w, dense_bf16_tflops) * 1e12 * efficiency;
    if rate > 0.0 {
        flops / rate * US_PER_MS
    } else {
        f64::INFINITY
    }
}

/// The dense peak the job's precision runs at, TFLOPS per GPU.
pub fn peak_tflops(w: &Workload, dense_bf16_tflops: f64) -> f64 {
    match w.precision {
        super::input::Precision::Bf16 => dense_bf16_tflops,
        super::input::Precision::Fp8 => dense_bf16_tflops * FP8_OVER_BF16_PEAK,
    }
}

/// Micro-batches each pipeline runs per step: the step's sequences over the data-parallel
/// replicas and the micro-batch size, at least 1.
pub fn micro_batches(w: &Workload, dp: f64) -> f64 {
    let sequences = global_tokens(w, dp) / f64::from(w.sequence_length.max(1));
    (sequences / (dp.max(1.0) * f64::from(w.micro_batch_sequences.max(1)))).max(1.0)
}

/// The pipeline bubble of a step, ms: the step's compute × the schedule's bubble share
/// ([`super::pipeline::bubble_share`]).
pub fn pipeline_bubble_ms(w: &Workload, dp: f64, step_compute_ms: f64) -> f64 {
    step_compute_ms
        * super::pipeline::bubble_share(
            w.pipeline_schedule,
            f64::from(w.pipeline_parallel.max(1)),
            micro_batches(w, dp),
            f64::from(w.virtual_stages.max(1)),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_shape_by_hand() {
        let w = Workload {
            hidden_size: None,
            model_params_billion: 70.0,
            ..Workload::default()
        };
        // (70e9 · 128 / 12)^(1/3) ≈ 9,072
        assert!(
            (hidden_size(&w) - 9072.0).abs() < 5.0,
            "{}",
            hidden_size(&w)
        );
        let w405 = Workload {
            model_params_billion: 405.0,
            hidden_size: Some(16_384),
            ..Workload::default()
        };
        // 405e9 / (12 · 16384²) = 125.7 → 126 layers (Llama 3 405B has 126).
        assert_eq!(layers(&w405), 126.0);
        assert_eq!(ranks_per_domain(64.0, 1.0, 8.0, 1024.0), 8.0);
        // 64-GPU groups do not tile 72-GPU racks: most straddle two, 8 GPUs kept together.
        assert_eq!(ranks_per_domain(64.0, 1.0, 72.0, 1024.0), 8.0);
        assert_eq!(ranks_per_domain(36.0, 1.0, 72.0, 1152.0), 36.0);
        assert_eq!(ranks_per_domain(9.0, 8.0, 72.0, 1152.0), 9.0);
        assert_eq!(ranks_per_domain(18.0, 8.0, 72.0, 1152.0), 9.0);
        assert_eq!(ranks_per_domain(8.0, 8.0, 8.0, 1024.0), 1.0);
        // One 64-GPU group inside the first rack.
        assert_eq!(ranks_per_domain(64.0, 1.0, 72.0, 64.0), 64.0);
        // 1,944 GB200, TP 4 × PP 4: data-parallel groups of 121 ranks, 484-GPU blocks starting
        // 0, 52, 32 and 12 GPUs into a rack; the smallest piece is the 12 GPUs the last block
        // leaves in its first rack: 3 ranks (the gcd bound, 4 GPUs, would say 1).
        assert_eq!(ranks_per_domain(121.0, 4.0, 72.0, 1936.0), 3.0);
        // A stride wider than the domain: one rank per domain.
        assert_eq!(ranks_per_domain(16.0, 128.0, 72.0, 2048.0), 1.0);
    }

    #[test]
    fn default_step_compute_by_hand() {
        // (6 · 70e9 + 6 · L · 4,096 · h) · (64 · 65,536) / (2048 · 989e12 · 0.40), with the
        // derived h = 9,072 and L = 70e9 / (12 h²) = 70.9: the attention adds 3.76 % to the
        // 2,174.32 ms of 6N alone, 2,256.3 ms.
        let w = Workload::default();
        let t = step_compute_ms(&w, 64.0, 2048.0, 989.0, 0.40);
        let per_token = 6.0 * 70e9 + 6.0 * layers(&w) * 4096.0 * hidden_size(&w);
        let want = per_token * 64.0 * 65_536.0 / (2048.0 * 989e12 * 0.40) * 1e3;
        assert!((t - want).abs() < 1e-9 && (t - 2256.3).abs() < 0.1, "{t}");
        // FP8 runs at twice the BF16 peak.
        let fp8 = Workload {
            precision: crate::perf::input::Precision::Fp8,
            ..w
        };
        assert!((step_compute_ms(&fp8, 64.0, 2048.0, 989.0, 0.40) - t / 2.0).abs() < 1e-9);
        // Twice the peak, half the time.
        assert!((step_compute_ms(&w, 64.0, 2048.0, 1978.0, 0.40) - t / 2.0).abs() < 1e-9);
    }
}
