//! All-reduce cost per algorithm and protocol, NCCL style: `T(S) = L(algo, proto) + S / B_alg`,
//! and the choice of the fastest pair, as NCCL's tuner does.

use super::constants::{
    BYTES_PER_US_PER_GBYTES_PER_S, COLLNET_ARITY_US, COLLNET_BW_FACTOR, COLLNET_NET_US,
    COLLNET_NVLINK_HOP_US, LL, LL128, NET_OVERHEAD_SIMPLE_FACTOR, NET_OVERHEAD_US,
    NVLINK4_NVLS_BUSBW_GBYTES_PER_S, NVLS_CHANNELS_BLACKWELL, NVLS_CHANNELS_HOPPER,
    NVLS_CHUNK_BYTES, NVLS_NODE_US, NVLS_REFERENCE_RANKS, NVLS_TREE_ALGBW_RATIO,
    NVLS_TREE_NET_HOP_US, RING_BASE_US, RING_NET_HOP_US, RING_NVLINK_HOP_US,
    RING_PLATEAU_BYTES_PER_CHANNEL_RANK, RING_PROTO_FACTOR, RING_SIMPLE_PLATEAU_FACTOR, SIMPLE,
    TREE_ALGBW_RATIO, TREE_BASE_US, TREE_BW_FACTOR, TREE_CORRECTION, TREE_LL_FACTOR,
    TREE_LL128_FACTOR_MULTI_NODE, TREE_LL128_FACTOR_ONE_NODE, TREE_NET_HOP_US, TREE_NVLINK_HOP_US,
};
use super::input::{NcclAlgorithm, NcclProtocol};

/// An NCCL all-reduce algorithm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algorithm {
    /// Ring (flat across NVLink and network).
    Ring,
    /// Double binary tree across nodes, chain inside.
    Tree,
    /// NVLink SHARP in one node.
    Nvls,
    /// NVLS inside nodes plus a tree across nodes.
    NvlsTree,
    /// In-network reduction (SHARP, NCCL CollNetDirect), InfiniBand only.
    CollNet,
}

impl Algorithm {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Algorithm::Ring => "ring",
            Algorithm::Tree => "tree",
            Algorithm::Nvls => "nvls",
            Algorithm::NvlsTree => "nvls_tree",
            Algorithm::CollNet => "collnet",
        }
    }
}

/// Protocol wire names, indexed like the constant tables.
pub const PROTOCOL_NAMES: [&str; 3] = ["ll", "ll128", "simple"];

/// The communicator an all-reduce runs on, reduced to the numbers the model needs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Communicator {
    /// Ranks n (≥ 2).
    pub ranks: f64,
    /// Nodes N (≥ 1).
    pub nodes: f64,
    /// Ranks per node g = n / N.
    pub ranks_per_node: f64,
    /// NVLink ring bus bandwidth, GB/s.
    pub nvlink_ring_gbytes_per_s: f64,
    /// NVLS bus bandwidth, GB/s, when the GPU has NVLink SHARP.
    pub nvls_gbytes_per_s: Option<f64>,
    /// Network bandwidth available to this communicator per node, before congestion, GB/s.
    pub net_node_raw_gbytes_per_s: f64,
    /// Congestion factor κ applied to the network bandwidth.
    pub congestion_factor: f64,
    /// Switch traversal time added to each network step, µs.
    pub path_latency_us: f64,
    /// RoCE incast tail added to each fan-in network stage, µs.
    pub incast_tail_us: f64,
    /// In-network reduction available (InfiniBand SHARP requested).
    pub collnet: bool,
    /// NCCL channels (for the ring plateau rule).
    pub channels: f64,
    /// The algorithm and protocol a request forces (`nccl.algorithm`, `nccl.protocol`); `auto`
    /// keeps NCCL's choice. A forced algorithm that cannot run here (NVLS across nodes, CollNet
    /// without SHARP) leaves the choice to NCCL, as NCCL does when `NCCL_ALGO` names none it
    /// can use.
    pub forced: (NcclAlgorithm, NcclProtocol),
}

/// A message size and what every candidate's time for it shares.
struct Message {
    bytes: f64,
    /// The physical ceiling as algorithm bandwidth, GB/s (the same for every candidate).
    cap_algbw: f64,
    /// [`size_log2`] of `bytes`.
    size_log2: Option<f64>,
}

/// Which bandwidth a candidate's cost takes where NCCL's tuner and the wire differ: NCCL chooses
/// by its tuner's figures (`tuning.cc`), and the chosen algorithm then runs at what its traffic
/// allows. They differ only for the tree on three nodes ([`tree_node_load`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Estimate {
    /// NCCL's tuner: a tree beyond two nodes at half its graph bandwidth.
    Tuner,
    /// The traffic: a tree at its graph bandwidth over the busiest node's load.
    Wire,
}

/// The chosen algorithm/protocol and its cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Choice {
    /// Algorithm.
    pub algorithm: Algorithm,
    /// Protocol index (LL, LL128, SIMPLE).
    pub protocol: usize,
    /// Time of the all-reduce, µs.
    pub time_us: f64,
}

const CANDIDATES: [(Algorithm, usize); 9] = [
    (Algorithm::Ring, LL),
    (Algorithm::Ring, LL128),
    (Algorithm::Ring, SIMPLE),
    (Algorithm::Tree, LL),
    (Algorithm::Tree, LL128),
    (Algorithm::Tree, SIMPLE),
    (Algorithm::Nvls, SIMPLE),
    (Algorithm::NvlsTree, SIMPLE),
    (Algorithm::CollNet, SIMPLE),
];

fn pick(table: &[f64; 3], p: usize) -> f64 {
    table.get(p).copied().unwrap_or(0.0)
}

fn log2_floor(x: f64) -> f64 {
    if x >= 1.0 { x.log2().floor() } else { 0.0 }
}

impl Communicator {
    fn has_nvlink(&self) -> bool {
        self.ranks_per_node >= 2.0
    }

    fn net_eff(&self) -> f64 {
        self.net_node_raw_gbytes_per_s * self.congestion_factor
    }

    /// n / (2(n−1)): converts bus to algorithm bandwidth.
    fn bus_to_alg(&self) -> f64 {
        self.ranks / (2.0 * (self.ranks - 1.0))
    }

    fn nvlink_bound(&self) -> f64 {
        if self.has_nvlink() {
            let g = self.ranks_per_node;
            let nvls_busbw = self
                .nvls_algbw_at(g)
                .map_or(0.0, |a| a * 2.0 * (g - 1.0) / g);
            self.nvlink_ring_gbytes_per_s.max(nvls_busbw)
        } else {
            f64::INFINITY
        }
    }

    /// Physical bus-bandwidth ceiling, GB/s, with network bandwidth `net` per node:
    /// NVLink bound and, across nodes, the node-level minimum traffic of any host-based
    /// all-reduce, 2(N−1)/N·S per node (Patarasuk & Yuan 2009), or S per node with
    /// in-network reduction.
    fn ceiling_with(&self, net: f64) -> f64 {
        let nvl = self.nvlink_bound();
        if self.nodes <= 1.0 {
            return nvl;
        }
        let host_algbw = net * self.nodes / (2.0 * (self.nodes - 1.0));
        let algbw = if self.collnet {
            net.max(host_algbw)
        } else {
            host_algbw
        };
        let busbw = algbw / self.bus_to_alg();
        nvl.min(busbw)
    }

    /// Reported ceiling (no congestion).
    pub fn busbw_ceiling_gbytes_per_s(&self) -> f64 {
        if self.ranks.is_nan() || self.ranks < 2.0 {
            return 0.0;
        }
        self.ceiling_with(self.net_node_raw_gbytes_per_s)
    }

    fn ring_algbw(&self, p: usize) -> f64 {
        let graph = if self.nodes <= 1.0 {
            self.nvlink_ring_gbytes_per_s
        } else if self.has_nvlink() {
            self.nvlink_ring_gbytes_per_s.min(self.net_eff())
        } else {
            self.net_eff()
        };
        graph * pick(&RING_PROTO_FACTOR, p) * self.bus_to_alg()
    }

    fn ring_latency_us(&self, p: usize, bytes: f64) -> f64 {
        let steps = 2.0 * (self.ranks - 1.0);
        let multi = self.nodes > 1.0;
        let inter_steps = if multi { 2.0 * (self.nodes - 1.0) } else { 0.0 };
        let mut intra = pick(&RING_NVLINK_HOP_US, p);
        if multi {
            let overhead = if p == SIMPLE {
                NET_OVERHEAD_US * NET_OVERHEAD_SIMPLE_FACTOR
            } else {
                NET_OVERHEAD_US
            };
            intra = intra.max(overhead);
        }
        // With one rank per node NCCL uses the tree network latency (tuning.cc).
        let net_hop = if self.ranks_per_node < 2.0 {
            pick(&TREE_NET_HOP_US, p)
        } else {
            pick(&RING_NET_HOP_US, p)
        };
        let inter = net_hop + self.path_latency_us * flush_factor(p);
        let mut lat = pick(&RING_BASE_US, p) + (steps - inter_steps) * intra + inter_steps * inter;
        if p == SIMPLE
            && multi
            && bytes / (self.channels.max(1.0) * self.ranks) >= RING_PLATEAU_BYTES_PER_CHANNEL_RANK
        {
            lat *= RING_SIMPLE_PLATEAU_FACTOR;
        }
        lat
    }

    /// Tree algorithm bandwidth, GB/s: the graph bandwidth (NVLink inside a node, the node's
    /// network across nodes) over the busiest node's load in messages ([`tree_node_load`]),
    /// NCCL's tree factors applied. NCCL's tuner takes a load of 2 beyond two nodes (`ratio *=
    /// .5`; on two nodes it runs the tree at the intra-node bandwidth, a load of 1), which is
    /// the wire's load from four nodes on; on three it is 1.5.
    fn tree_algbw(&self, p: usize, estimate: Estimate) -> f64 {
        let nvl = if self.has_nvlink() {
            self.nvlink_ring_gbytes_per_s
        } else {
            f64::INFINITY
        };
        let graph = if self.nodes <= 1.0 {
            self.nvlink_ring_gbytes_per_s
        } else {
            let load = match estimate {
                Estimate::Tuner if self.nodes > 2.0 => 2.0,
                _ => tree_node_load(self.nodes),
            };
            nvl.min(self.net_eff() * 2.0 / load)
        };
        let mut bus = graph * TREE_BW_FACTOR;
        if p == LL {
            bus *= TREE_LL_FACTOR;
        } else if p == LL128 {
            bus *= if self.nodes <= 1.0 {
                TREE_LL128_FACTOR_ONE_NODE
            } else {
                TREE_LL128_FACTOR_MULTI_NODE
            };
        }
        bus * TREE_ALGBW_RATIO
    }

    fn tree_latency_us(&self, p: usize) -> f64 {
        let levels = log2_floor(self.nodes);
        let inter = pick(&TREE_NET_HOP_US, p)
            + self.path_latency_us * flush_factor(p)
            + self.incast_tail_us;
        pick(&TREE_BASE_US, p)
            + 2.0 * ((self.ranks_per_node - 1.0) * pick(&TREE_NVLINK_HOP_US, p) + levels * inter)
    }

    /// NVLS algorithm bandwidth on `g` ranks of one NVLink domain, GB/s: a GPU's links carry
    /// its whole buffer in and out at a constant rate (the reference server's, 8 ranks), and
    /// the switch's reduction rate caps the bus bandwidth at the GPU's NVLS figure
    /// ([`NVLS_REFERENCE_RANKS`]).
    fn nvls_algbw_at(&self, g: f64) -> Option<f64> {
        let nvls = self.nvls_gbytes_per_s?;
        if g < 2.0 {
            return None;
        }
        let link = nvls * NVLS_REFERENCE_RANKS / (2.0 * (NVLS_REFERENCE_RANKS - 1.0));
        let switch = nvls * g / (2.0 * (g - 1.0));
        Some(link.min(switch))
    }

    fn nvls_algbw(&self) -> Option<f64> {
        if !self.has_nvlink() {
            return None;
        }
        self.nvls_algbw_at(self.ranks_per_node)
    }

    /// The NVLS pipeline's fill, µs: each of the domain's `g` ranks runs `C` channels, each
    /// filled with about one chunk before the switch streams, so a message waits
    /// min(S, g·C·chunk) at the algorithm bandwidth on top of its transfer
    /// ([`NVLS_CHUNK_BYTES`]).
    fn nvls_fill_us(&self, g: f64, bytes: f64, algbw: f64) -> f64 {
        let blackwell = self
            .nvls_gbytes_per_s
            .is_some_and(|b| b > NVLINK4_NVLS_BUSBW_GBYTES_PER_S);
        let channels = if blackwell {
            NVLS_CHANNELS_BLACKWELL
        } else {
            NVLS_CHANNELS_HOPPER
        };
        let pipeline = g * channels * NVLS_CHUNK_BYTES;
        if algbw > 0.0 {
            bytes.min(pipeline) / (BYTES_PER_US_PER_GBYTES_PER_S * algbw)
        } else {
            0.0
        }
    }

    /// (latency µs, algorithm bandwidth GB/s) of a candidate, or None when it does not apply.
    fn cost(
        &self,
        algorithm: Algorithm,
        p: usize,
        bytes: f64,
        estimate: Estimate,
    ) -> Option<(f64, f64)> {
        let multi = self.nodes > 1.0;
        match algorithm {
            Algorithm::Ring => Some((self.ring_latency_us(p, bytes), self.ring_algbw(p))),
            Algorithm::Tree => Some((self.tree_latency_us(p), self.tree_algbw(p, estimate))),
            Algorithm::Nvls => {
                if multi {
                    return None;
                }
                let algbw = self.nvls_algbw_at(self.ranks)?;
                let fill = self.nvls_fill_us(self.ranks, bytes, algbw);
                Some((NVLS_NODE_US + fill, algbw))
            }
            Algorithm::NvlsTree => {
                if !multi {
                    return None;
                }
                let intra = self.nvls_algbw()?;
                let net = if self.nodes <= 2.0 {
                    self.net_eff()
                } else {
                    self.net_eff() / 2.0
                };
                let levels = log2_floor(self.nodes);
                let hop = NVLS_TREE_NET_HOP_US
                    + self.path_latency_us * flush_factor(SIMPLE)
                    + self.incast_tail_us;
                let algbw = NVLS_TREE_ALGBW_RATIO * intra.min(net);
                let fill = self.nvls_fill_us(self.ranks_per_node, bytes, intra);
                Some((NVLS_NODE_US + fill + 2.0 * levels * hop, algbw))
            }
            Algorithm::CollNet => {
                if !multi || !self.collnet {
                    return None;
                }
                let g = self.ranks_per_node;
                let intra = if self.has_nvlink() {
                    self.nvlink_ring_gbytes_per_s * g / (2.0 * (g - 1.0))
                } else {
                    f64::INFINITY
                };
                let lat = 2.0
                    * ((g - 1.0).min(1.0) * COLLNET_NVLINK_HOP_US + (g - 1.0) * COLLNET_ARITY_US)
                    + COLLNET_NET_US
                    + self.path_latency_us * flush_factor(SIMPLE)
                    + self.incast_tail_us;
                Some((lat, COLLNET_BW_FACTOR * intra.min(self.net_eff())))
            }
        }
    }

    /// Time of one candidate for `bytes` on the wire, µs, or None if it does not apply.
    pub fn time_us(&self, algorithm: Algorithm, p: usize, bytes: f64) -> Option<f64> {
        self.time_of(algorithm, p, &self.message(bytes), Estimate::Wire)
    }

    /// What every candidate's time for `bytes` shares, computed once for all of them.
    fn message(&self, bytes: f64) -> Message {
        Message {
            bytes,
            cap_algbw: self.ceiling_with(self.net_eff()) * self.bus_to_alg(),
            size_log2: size_log2(bytes),
        }
    }

    fn time_of(
        &self,
        algorithm: Algorithm,
        p: usize,
        m: &Message,
        estimate: Estimate,
    ) -> Option<f64> {
        let bytes = m.bytes;
        let (lat, algbw) = self.cost(algorithm, p, bytes, estimate)?;
        let mut bw = algbw.min(m.cap_algbw);
        if algorithm == Algorithm::Tree {
            bw *= tree_correction_at(p, m.size_log2);
        }
        if bw.is_nan() || bw <= 0.0 || !lat.is_finite() {
            return None;
        }
        Some(lat + bytes / (BYTES_PER_US_PER_GBYTES_PER_S * bw))
    }

    /// The fastest algorithm/protocol for `bytes` as NCCL's tuner ranks them, among those the
    /// request allows (`forced`; NCCL's own choice when none of those can run), timed on the
    /// wire.
    pub fn choose(&self, bytes: f64) -> Option<Choice> {
        if self.ranks.is_nan() || self.ranks < 2.0 {
            return None;
        }
        let m = self.message(bytes);
        let allowed = |a: Algorithm, p: usize| allows(self.forced, a, p);
        let chosen = self
            .fastest(&m, allowed)
            .or_else(|| self.fastest(&m, |_, _| true))?;
        if !self.tuner_differs_from_wire(chosen.algorithm) {
            return Some(chosen);
        }
        let time_us = self
            .time_of(chosen.algorithm, chosen.protocol, &m, Estimate::Wire)
            .unwrap_or(chosen.time_us);
        Some(Choice { time_us, ..chosen })
    }

    /// Whether NCCL's tuner and the wire time `algorithm` differently here: only a tree whose
    /// node load is under the tuner's 2 beyond two nodes ([`tree_node_load`]).
    fn tuner_differs_from_wire(&self, algorithm: Algorithm) -> bool {
        algorithm == Algorithm::Tree && self.nodes > 2.0 && tree_node_load(self.nodes) < 2.0
    }

    /// The fastest candidate `allowed` lets run.
    fn fastest(&self, m: &Message, allowed: impl Fn(Algorithm, usize) -> bool) -> Option<Choice> {
        let mut best: Option<Choice> = None;
        for (algorithm, protocol) in CANDIDATES {
            if !allowed(algorithm, protocol) {
                continue;
            }
            if let Some(t) = self.time_of(algorithm, protocol, m, Estimate::Tuner)
                && best.is_none_or(|b| t < b.time_us)
            {
                best = Some(Choice {
                    algorithm,
                    protocol,
                    time_us: t,
                });
            }
        }
        best
    }
}

/// Whether forced settings let `algorithm` with protocol `p` run.
fn allows((algorithm, protocol): (NcclAlgorithm, NcclProtocol), a: Algorithm, p: usize) -> bool {
    let algorithm_ok = match algorithm {
        NcclAlgorithm::Auto => true,
        NcclAlgorithm::Ring => a == Algorithm::Ring,
        NcclAlgorithm::Tree => a == Algorithm::Tree,
        NcclAlgorithm::Nvls => a == Algorithm::Nvls,
        NcclAlgorithm::NvlsTree => a == Algorithm::NvlsTree,
        NcclAlgorithm::Collnet => a == Algorithm::CollNet,
    };
    let protocol_ok = match protocol {
        NcclProtocol::Auto => true,
        NcclProtocol::Ll => p == LL,
        NcclProtocol::Ll128 => p == LL128,
        NcclProtocol::Simple => p == SIMPLE,
    };
    algorithm_ok && protocol_ok
}

/// The busiest node's network load in an all-reduce over NCCL's double binary tree, in
/// messages sent (and as many received): each tree carries half the message, and a node sends
/// it once to its parent (reduce) and once to each child (broadcast). NCCL's trees
/// (`graph/trees.cc`, `ncclGetDtree`: a binary tree and its mirror, or its shift by one for an
/// odd count) give one message on two nodes, 1.5 on three (two chains, 0←2←1 and 1←0←2, whose
/// middle nodes send twice), and 2 from four nodes on, where the busiest nodes are inner in one
/// tree (three sends) and a leaf in the other (one); checked over 2–3,000 nodes with the file's
/// construction (test `tree_node_load_is_nccls_double_binary_tree`).
pub fn tree_node_load(nodes: f64) -> f64 {
    if nodes <= 2.0 {
        1.0
    } else if nodes <= 3.0 {
        1.5
    } else {
        2.0
    }
}

/// NCCL adds the network path latency twice for Simple (send + flush, tuning.cc).
fn flush_factor(p: usize) -> f64 {
    if p == SIMPLE { 2.0 } else { 1.0 }
}

/// NCCL's tree correction factor, interpolated geometrically between its power-of-two points
/// (64 B … 256 MiB, 1.0 beyond) so that time stays monotone in size.
pub fn tree_correction(p: usize, bytes: f64) -> f64 {
    tree_correction_at(p, size_log2(bytes))
}

/// log₂(bytes ÷ 64), the position among the tree correction's points; None below 64 B.
fn size_log2(bytes: f64) -> Option<f64> {
    if bytes.is_nan() || bytes < 64.0 {
        None
    } else {
        Some((bytes / 64.0).log2())
    }
}

/// [`tree_correction`] at `x` = [`size_log2`] of the message.
fn tree_correction_at(p: usize, x: Option<f64>) -> f64 {
    let (Some(row), Some(x)) = (TREE_CORRECTION.get(p), x) else {
        return 1.0;
    };
    let last = row.len() as f64;
    if x.is_nan() || x >= last {
        return 1.0;
    }
    let i = x.floor();
    let frac = x - i;
    let idx = i as usize;
    let lo = row.get(idx).copied().unwrap_or(1.0);
    let hi = row.get(idx + 1).copied().unwrap_or(1.0);
    lo.powf(1.0 - frac) * hi.powf(frac)
}

/// Protocol wire name.
pub fn protocol_name(p: usize) -> &'static str {
    PROTOCOL_NAMES.get(p).copied().unwrap_or("simple")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn comm(n: f64, nodes: f64, net: f64) -> Communicator {
        Communicator {
            ranks: n,
            nodes,
            ranks_per_node: n / nodes,
            nvlink_ring_gbytes_per_s: 230.0,
            nvls_gbytes_per_s: None,
            net_node_raw_gbytes_per_s: net,
            congestion_factor: 1.0,
            path_latency_us: 0.0,
            incast_tail_us: 0.0,
            collnet: false,
            channels: 8.0,
            forced: Default::default(),
        }
    }

    #[test]
    fn tree_ll_latency_by_hand() {
        // 256 ranks, 32 nodes: 6.8 + 2·(7·0.6 + 5·5.0) = 65.2 µs
        let c = comm(256.0, 32.0, 96.0);
        assert!((c.tree_latency_us(LL) - 65.2).abs() < 1e-9);
    }

    #[test]
    fn ring_latency_by_hand() {
        // One node of 8, LL: 6.6 + 14·0.6 = 15.0 µs
        let c = comm(8.0, 1.0, 0.0);
        assert!((c.ring_latency_us(LL, 8.0) - 15.0).abs() < 1e-9);
        // 24 ranks on 3 nodes, LL: 6.6 + (46 − 4)·max(0.6, 1) + 4·2.7 = 59.4 µs
        let c = comm(24.0, 3.0, 96.0);
        assert!((c.ring_latency_us(LL, 8.0) - 59.4).abs() < 1e-9);
        // Simple, large: (8.4 + 42·max(3.4, 3) + 4·14)·1.4 = 290.08 µs
        assert!((c.ring_latency_us(SIMPLE, 1e9) - 290.08).abs() < 1e-9);
    }

    #[test]
    fn ring_bandwidth_by_hand() {
        // busbw = min(230, 96) = 96; algbw = 96 · 24/46
        let c = comm(24.0, 3.0, 96.0);
        assert!((c.ring_algbw(SIMPLE) - 96.0 * 24.0 / 46.0).abs() < 1e-9);
        assert!((c.ring_algbw(LL) - 48.0 * 24.0 / 46.0).abs() < 1e-9);
    }

    /// NCCL's `ncclGetBtree` (`graph/trees.cc`): (parent, child 0, child 1), −1 for none.
    fn btree(n: i64, r: i64) -> (i64, i64, i64) {
        let mut bit = 1;
        while bit < n {
            if bit & r != 0 {
                break;
            }
            bit <<= 1;
        }
        if r == 0 {
            return (-1, -1, if n > 1 { bit >> 1 } else { -1 });
        }
        let mut up = (r ^ bit) | (bit << 1);
        if up >= n {
            up = r ^ bit;
        }
        let mut low = bit >> 1;
        let d0 = if low == 0 { -1 } else { r - low };
        let mut d1 = if low == 0 { -1 } else { r + low };
        while d1 >= n {
            d1 = if low == 0 { -1 } else { r + low };
            low >>= 1;
        }
        (up, d0, d1)
    }

    /// NCCL's `ncclGetDtree`: the binary tree and its mirror (even n) or shift (odd n).
    fn dtree(n: i64, r: i64) -> [(i64, i64, i64); 2] {
        let moved = |x: i64, f: &dyn Fn(i64) -> i64| if x == -1 { -1 } else { f(x) };
        let second = if n % 2 == 1 {
            let (u, d0, d1) = btree(n, (r - 1 + n) % n);
            let f = |x: i64| (x + 1) % n;
            (moved(u, &f), moved(d0, &f), moved(d1, &f))
        } else {
            let (u, d0, d1) = btree(n, n - 1 - r);
            let f = |x: i64| n - 1 - x;
            (moved(u, &f), moved(d0, &f), moved(d1, &f))
        };
        [btree(n, r), second]
    }

    #[test]
    fn tree_node_load_is_nccls_double_binary_tree() {
        for n in 2..3000_i64 {
            let busiest = (0..n)
                .map(|r| {
                    dtree(n, r)
                        .iter()
                        .map(|&(u, d0, d1)| [u, d0, d1].iter().filter(|&&x| x != -1).count())
                        .sum::<usize>()
                })
                .max()
                .unwrap_or(0);
            // Each tree carries half the message.
            assert_eq!(busiest as f64 / 2.0, tree_node_load(n as f64), "{n} nodes");
        }
    }

    #[test]
    fn three_nodes_choose_as_nccls_tuner_and_run_a_tree_at_its_load() {
        // 3 nodes of 4 ranks, 200 GB/s of network each: NCCL's tuner ranks the tree at half
        // the graph bandwidth, the wire runs it at 1/1.5 of it.
        let c = c_three();
        assert!((c.tree_algbw(SIMPLE, Estimate::Tuner) - 200.0 * 0.92 * 0.5).abs() < 1e-9);
        assert!((c.tree_algbw(SIMPLE, Estimate::Wire) - 200.0 / 1.5 * 0.92).abs() < 1e-9);
        // Two and four nodes: the tuner's figure is the wire's.
        for nodes in [2.0, 4.0] {
            let c = Communicator {
                nvlink_ring_gbytes_per_s: 600.0,
                ..comm(4.0 * nodes, nodes, 200.0)
            };
            assert_eq!(
                c.tree_algbw(SIMPLE, Estimate::Tuner),
                c.tree_algbw(SIMPLE, Estimate::Wire)
            );
        }
        // At 16 GiB NCCL's tuner prefers the ring on three nodes (tree 92 GB/s against the
        // ring's 109): the choice stays the ring, at the ring's time.
        let s = 16.0 * 1024.0 * 1024.0 * 1024.0;
        let choice = c_three().choose(s).expect("a choice");
        assert_eq!(choice.algorithm, Algorithm::Ring);
        assert_eq!(
            Some(choice.time_us),
            c_three().time_us(Algorithm::Ring, SIMPLE, s)
        );
        // Forced, the tree runs at its wire figure, faster than the tuner believes.
        let forced = Communicator {
            forced: (NcclAlgorithm::Tree, NcclProtocol::Auto),
            ..c_three()
        };
        let tree = forced.choose(s).expect("a tree");
        assert_eq!(tree.algorithm, Algorithm::Tree);
        assert_eq!(
            Some(tree.time_us),
            c_three().time_us(Algorithm::Tree, SIMPLE, s)
        );
        let m = c_three().message(s);
        let tuner = c_three()
            .time_of(Algorithm::Tree, SIMPLE, &m, Estimate::Tuner)
            .expect("tuner time");
        assert!(tree.time_us < tuner * 0.8);
    }

    fn c_three() -> Communicator {
        Communicator {
            nvlink_ring_gbytes_per_s: 600.0,
            ..comm(12.0, 3.0, 200.0)
        }
    }

    #[test]
    fn tree_correction_points_and_monotone_time() {
        assert_eq!(tree_correction(SIMPLE, 64.0), 0.9);
        assert!((tree_correction(LL, 64.0 * 4096.0) - 0.4).abs() < 1e-12);
        assert_eq!(tree_correction(SIMPLE, 1e12), 1.0);
        let c = comm(256.0, 32.0, 96.0);
        let mut prev = 0.0;
        let mut s = 1.0;
        while s < 1e11 {
            let t = c
                .time_us(Algorithm::Tree, SIMPLE, s)
                .unwrap_or(f64::INFINITY);
            assert!(t >= prev, "tree time fell at {s}");
            prev = t;
            s *= 1.1;
        }
    }
}
