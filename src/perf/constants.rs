//! Named, sourced constants of the performance model (the NCCL `tuning.cc` style: small tables
//! plus a few formulas in the sibling modules). Units are in the names.

/// Index of a protocol in the NCCL tables below: LL, LL128, Simple.
pub const LL: usize = 0;
/// Index of LL128 in the protocol tables.
pub const LL128: usize = 1;
/// Index of Simple in the protocol tables.
pub const SIMPLE: usize = 2;

// ---------------------------------------------------------------------------------------------
// NCCL latency model — NVIDIA/nccl src/graph/tuning.cc (`baseLat`, `hwLat`), v2.19–2.23 tables
// (github.com/NVIDIA/nccl; quoted in docs/model.md). Microseconds, indexed [LL, LL128, Simple].
// ---------------------------------------------------------------------------------------------

/// Tree base latency per protocol (tuning.cc `baseLat[TREE]`).
pub const TREE_BASE_US: [f64; 3] = [6.8, 14.0, 8.4];
/// Ring base latency per protocol (tuning.cc `baseLat[RING]`).
pub const RING_BASE_US: [f64; 3] = [6.6, 14.0, 8.4];
/// Tree per-hop latency over NVLink (tuning.cc `hwLat[NVLINK][TREE]`).
pub const TREE_NVLINK_HOP_US: [f64; 3] = [0.6, 1.25, 4.0];
/// Ring per-hop latency over NVLink (tuning.cc `hwLat[NVLINK][RING]`).
pub const RING_NVLINK_HOP_US: [f64; 3] = [0.6, 1.9, 3.4];
/// Tree per-hop latency over the network (tuning.cc `hwLat[NET][TREE]`).
pub const TREE_NET_HOP_US: [f64; 3] = [5.0, 8.5, 14.0];
/// Ring per-hop latency over the network (tuning.cc `hwLat[NET][RING]`).
pub const RING_NET_HOP_US: [f64; 3] = [2.7, 4.0, 14.0];
/// NVLS (NVLink SHARP) latency inside one node, Simple only (tuning.cc `hwLat[NVLINK][NVLS]`).
pub const NVLS_NODE_US: f64 = 25.0;
/// Ranks of the measurement that sets a GPU's NVLS figure (`nvls_busbw_gbytes_per_s`): one
/// 8-GPU server (H100: nccl-tests#212, 480 GB/s; B200: nccl#1807, 830+). Below it NVLS moves
/// each GPU's whole buffer through its own links at a constant algorithm bandwidth, so its bus
/// bandwidth falls as 2(n−1)/n: on one H100 server nccl#1455 measured NVLS at 420, 440, 460
/// and 480 GB/s on 5 to 8 GPUs (the rule: 438, 456, 470, 480) and no gain over ring on 4 or
/// fewer. Above it the switch's reduction rate caps the bus bandwidth: 8 B200 and a 72-GPU
/// GB200 NVL72 rack both measure 830–847 (nccl#1807, coreweave/nccl-tests README).
pub const NVLS_REFERENCE_RANKS: f64 = 8.0;
/// NCCL's NVLS chunk, bytes (`NCCL_NVLS_CHUNKSIZE`, default 128 KiB, docs/userguide env.rst).
/// Each rank's channel fills its pipeline with about one chunk before the switch streams:
/// an NVLS all-reduce of S bytes on n ranks with C channels takes min(S, n·C·chunk) ÷ algbw
/// longer than its bandwidth alone (docs/model.md §3). Checked against two independent size
/// tables: one H100 server (Azure ND H100 v5, 1 MiB–8 GiB) and one GB200 NVL72 rack
/// (coreweave/nccl-tests, 512 MiB–8 GiB).
pub const NVLS_CHUNK_BYTES: f64 = 131_072.0;
/// NVLS channels NCCL runs in one NVLink domain: 16 on Hopper (`NVLS_NCHANNELS_SM90`), 24 on
/// Blackwell (`NVLS_NCHANNELS_SM100`), `src/transport/nvls.cc`.
pub const NVLS_CHANNELS_HOPPER: f64 = 16.0;
/// See [`NVLS_CHANNELS_HOPPER`].
pub const NVLS_CHANNELS_BLACKWELL: f64 = 24.0;
/// NVLink 4's NVLS bus bandwidth (one H100 server, nccl-tests#212): a GPU whose figure is
/// above it has an NVLink 5 switch, and NCCL runs Blackwell's NVLS channel count on it.
pub const NVLINK4_NVLS_BUSBW_GBYTES_PER_S: f64 = 480.0;
/// NVLSTree per network tree level (performance.md §1: `25 + 2·floor(log2 N)·20.9`).
pub const NVLS_TREE_NET_HOP_US: f64 = 20.9;
/// CollNetDirect (SHARP) network latency, Simple (tuning.cc `hwLat[NET][COLLNET_DIRECT]`).
pub const COLLNET_NET_US: f64 = 31.0;
/// CollNetDirect intra-node hop, Simple (tuning.cc `hwLat[NVLINK][COLLNET_DIRECT]`).
pub const COLLNET_NVLINK_HOP_US: f64 = 3.7;
/// CollNetDirect arity serialization per local GPU (tuning.cc: "Add 0.4 us arity serialization").
pub const COLLNET_ARITY_US: f64 = 0.4;
/// Host post overhead per network step on x86/Intel (tuning.cc `getNetOverhead`: 1 µs).
pub const NET_OVERHEAD_US: f64 = 1.0;
/// Simple protocol multiplies the network post overhead by 3 (tuning.cc `netOverhead *= 3`).
pub const NET_OVERHEAD_SIMPLE_FACTOR: f64 = 3.0;
/// Multi-node ring Simple "plateau effect" latency factor on compute capability ≥ 8.0
/// (tuning.cc `ncclTopoGetAlgoTime`: `lat *= minCompCap < 80 ? 1.9 : 1.4`).
pub const RING_SIMPLE_PLATEAU_FACTOR: f64 = 1.4;
/// The plateau applies when bytes / (channels · ranks) ≥ 64 (tuning.cc `ncclTopoGetAlgoTime`).
pub const RING_PLATEAU_BYTES_PER_CHANNEL_RANK: f64 = 64.0;
/// NCCL duplicates channels on NVLink systems so each NIC carries two channels
/// (src/graph/search.cc `ncclTopoDupChannels`); each channel is its own connection (QP).
pub const CHANNELS_PER_NIC: f64 = 2.0;

// ---------------------------------------------------------------------------------------------
// NCCL protocol / algorithm bandwidth factors (tuning.cc "Various model refinements").
// ---------------------------------------------------------------------------------------------

/// Ring bus bandwidth factor per protocol: LL ×0.5 (`busBw * .5`), LL128 ×0.92
/// (`busBw * 0.92 /*120.0/128.0*/`), Simple ×1.
pub const RING_PROTO_FACTOR: [f64; 3] = [0.5, 0.92, 1.0];
/// Tree all-reduce bandwidth factor (tuning.cc `busBw*.92`).
pub const TREE_BW_FACTOR: f64 = 0.92;
/// Tree LL divides bandwidth by 3.8 (tuning.cc `busBw*1.0/3.8`).
pub const TREE_LL_FACTOR: f64 = 1.0 / 3.8;
/// Tree LL128 factor on one node (tuning.cc `7.0/9.0`).
pub const TREE_LL128_FACTOR_ONE_NODE: f64 = 7.0 / 9.0;
/// Tree LL128 factor across nodes (tuning.cc `120.0/128.0`).
pub const TREE_LL128_FACTOR_MULTI_NODE: f64 = 120.0 / 128.0;
/// Non-ring algorithms convert bus to algorithm bandwidth with ratio 0.5 (tuning.cc `ratio *= .5`).
pub const TREE_ALGBW_RATIO: f64 = 0.5;
/// NVLS / NVLSTree algorithm-bandwidth ratio (tuning.cc `ratio *= 5.0/6.0`).
pub const NVLS_TREE_ALGBW_RATIO: f64 = 5.0 / 6.0;
/// CollNet bandwidth factor (tuning.cc, NCCL 2.12: `if (a == NCCL_ALGO_COLLNET) busBw *= .9`).
pub const COLLNET_BW_FACTOR: f64 = 0.9;

/// Tree correction factor per protocol at powers of two from 64 B (index 0) to 256 MiB (index 22)
/// (tuning.cc `treeCorrectionFactor`: "Trees are not perfectly sticking to the model for medium
/// sizes"). Rows: LL, LL128, Simple.
pub const TREE_CORRECTION: [[f64; 23]; 3] = [
    [
        1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.7, 0.7, 0.7, 0.7, 0.6, 0.5, 0.4, 0.4, 0.5, 0.6, 0.7, 0.8,
        0.9, 1.0, 1.0, 1.0, 1.0,
    ],
    [
        1.0, 1.0, 1.0, 1.0, 1.0, 0.9, 0.8, 0.8, 0.8, 0.7, 0.6, 0.6, 0.6, 0.6, 0.6, 0.6, 0.8, 0.9,
        0.9, 0.9, 0.9, 1.0, 1.0,
    ],
    [
        0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.9, 0.8, 0.7, 0.6, 0.6, 0.5, 0.5, 0.5, 0.5, 0.6, 0.7, 0.8,
        0.7, 0.7, 0.8, 0.9, 0.9,
    ],
];

// ---------------------------------------------------------------------------------------------
// NIC and PCIe ceilings.
// ---------------------------------------------------------------------------------------------

/// PCIe x16 effective GPU↔NIC bandwidth by generation, GB/s, as NCCL counts it
/// (src/graph/topo.h: `PCI_BW 12.0` for Gen3 x16; Gen4 x16 = 24, Gen5 x16 = 48 per
/// performance.md §2; Gen6 doubles Gen5 by the PCIe 6.0 spec). Index = generation − 3.
pub const PCIE_X16_GBYTES_PER_S: [f64; 4] = [12.0, 24.0, 48.0, 96.0];
/// Lanes of the reference links in [`PCIE_X16_GBYTES_PER_S`].
pub const PCIE_REFERENCE_LANES: f64 = 16.0;
/// Largest message payload per packet, bytes: IB MTU 4096 (IBTA spec vol. 1 §7.7), and RoCEv2
/// runs on the same 4096-byte RDMA path MTU (RoCE max active MTU is 4096 on 9000-byte frames).
pub const RDMA_MTU_BYTES: f64 = 4096.0;
/// InfiniBand per-packet overhead: LRH 8 + BTH 12 + ICRC 4 + VCRC 2 bytes (IBTA vol. 1 §5, §7).
pub const IB_HEADER_BYTES: f64 = 26.0;
/// RoCEv2 per-packet overhead: preamble+SFD 8 + Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 +
/// ICRC 4 + FCS 4 + inter-frame gap 12 bytes (IEEE 802.3, RFC 791/768, IBTA RoCEv2 annex A17).
pub const ROCE_HEADER_BYTES: f64 = 82.0;
/// Bits per byte, to turn a NIC speed in Gb/s into GB/s.
pub const BITS_PER_BYTE: f64 = 8.0;

// ---------------------------------------------------------------------------------------------
// Congestion (performance.md §3).
// ---------------------------------------------------------------------------------------------

/// Adaptive-routing Ethernet effective throughput on traffic crossing the fabric: NVIDIA
/// Spectrum-X "95% effective data throughput" (vs "just 60%" for standard Ethernet).
pub const ADAPTIVE_ETHERNET_EFFICIENCY: f64 = 0.95;
/// InfiniBand with NCCL's default adaptive routing (`NCCL_IB_ADAPTIVE_ROUTING` enabled by default
/// on IB): reference efficiency 1 — the calibration busbw (C1, C3) was measured on IB.
pub const INFINIBAND_AR_EFFICIENCY: f64 = 1.0;
/// Queue pairs per connection by default (`NCCL_IB_QPS_PER_CONNECTION` default 1).
pub const DEFAULT_QPS_PER_CONNECTION: f64 = 1.0;
/// Queue pairs per connection when tuned (Meta 2024, "RDMA over Ethernet for Distributed AI
/// Training at Meta Scale": enhanced ECMP hashing on the QP field with QP scaling; 4 QPs is the
/// value NCCL users commonly set with `NCCL_IB_QPS_PER_CONNECTION=4`).
pub const TUNED_QPS_PER_CONNECTION: f64 = 4.0;
/// PFC/incast tail penalty per fan-in network stage on RoCE, µs. Engineering assumption (not a
/// measurement): one pause/resume reaction at the top of the 0.1–1 µs switch-latency range quoted
/// in performance.md §3. Affects only fan-in algorithms (tree, NVLSTree, CollNet) on RoCE.
pub const ROCE_INCAST_TAIL_US: f64 = 1.0;
/// Tuned RoCE (ECN/DCQCN thresholds tuned, Meta 2024) halves the incast tail (assumption).
pub const ROCE_TUNED_INCAST_FACTOR: f64 = 0.5;

// ---------------------------------------------------------------------------------------------
// Workload (performance.md §4).
// ---------------------------------------------------------------------------------------------

/// Share of a training step's compute that is backward (forward 1×, backward 2×).
pub const BACKWARD_SHARE: f64 = 2.0 / 3.0;
/// Bytes per MB (bucket sizes are decimal megabytes, as PyTorch DDP's `bucket_cap_mb` is used).
pub const BYTES_PER_MB: f64 = 1.0e6;
/// Parameters per "billion".
pub const PARAMS_PER_BILLION: f64 = 1.0e9;
/// Microseconds per millisecond.
pub const US_PER_MS: f64 = 1000.0;
/// Bytes per microsecond in one GB/s (performance.md: 1 GB/s = 1000 B/µs).
pub const BYTES_PER_US_PER_GBYTES_PER_S: f64 = 1000.0;
