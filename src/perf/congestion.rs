//! Congestion κ per fabric, applied to the share of traffic that crosses a hashed or
//! oversubscribed tier, plus per-step network path latency (switch hops, RoCE incast tail).

use super::constants::{
    ADAPTIVE_ETHERNET_EFFICIENCY, CHANNELS_PER_NIC, DEFAULT_QPS_PER_CONNECTION,
    INFINIBAND_AR_EFFICIENCY, ROCE_INCAST_TAIL_US, ROCE_TUNED_INCAST_FACTOR,
    TUNED_QPS_PER_CONNECTION,
};
use super::input::{FabricPath, NcclSettings, PartialLeafPath, RoceTuning};
use crate::fabric::Fabric;

/// Share of a node's inter-node traffic whose peer sits under another leaf, in [0, 1]:
/// `max(0, N − D) / (N − 1)` with N nodes in the communicator and D nodes per leaf (peers
/// spread uniformly over the job's nodes, as with NCCL trees and scheduler-scattered jobs).
pub fn crossing_share(nodes: f64, nodes_per_leaf: f64) -> f64 {
    if nodes <= 1.0 || nodes <= nodes_per_leaf {
        return 0.0;
    }
    ((nodes - nodes_per_leaf) / (nodes - 1.0)).clamp(0.0, 1.0)
}

/// How a collective's flows leave a leaf.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Traffic {
    /// A ring or tree over rank-ordered servers. NCCL numbers nodes by their first rank
    /// (`init.cc`, `nodesFirstRank`) and links node n to n + 1 on every channel (`connect.cc`,
    /// `connectRings`); its double binary tree pairs nodes 2^k apart (`trees.cc`,
    /// `ncclGetBtree`), so a block of consecutive servers leaves an aligned leaf through one
    /// edge. A block leaves a leaf once per piece it has there (and per rail the leaf
    /// carries); the rest of its edges stay under the leaf.
    Ring,
    /// Each NIC keeps flows to `peers` servers spread over the group: an all-to-all (every
    /// other server of the group) or pipeline pairs a stage apart.
    Spread { peers: f64 },
}

/// How a communicator spanning some servers meets the fabric: the share of its traffic that
/// crosses a leaf's uplinks, the congestion factor κ and the switches per network step. With a
/// partial scalable unit (`path.partial_leaf`) its leaf is timed too and the slower leaf sets
/// the pace (a synchronous collective waits for its slowest member); its crossing share is
/// then the one given.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Span {
    pub crossing: f64,
    pub kappa: f64,
    pub hops: f64,
}

impl Span {
    /// A ring or tree (see [`Traffic::Ring`]) over `servers`, one block of the `used` servers
    /// the job runs on (blocks tile them from the first); each NIC keeps `flows` sub-flows
    /// (channels × queue pairs) to its ring neighbour.
    pub fn ring(path: &FabricPath, servers: f64, used: f64, flows: f64) -> Span {
        Span::of(path, servers, used, Traffic::Ring, flows)
    }

    /// Flows from each NIC to `peers` servers spread over the block (an all-to-all: every
    /// other server of the group; pipeline pairs: one), `flows` sub-flows to each, so ECMP
    /// hashes `peers × flows` of them.
    pub fn spread(path: &FabricPath, servers: f64, used: f64, peers: f64, flows: f64) -> Span {
        Span::of(path, servers, used, Traffic::Spread { peers }, flows)
    }

    fn of(path: &FabricPath, servers: f64, used: f64, traffic: Traffic, flows: f64) -> Span {
        let npl = f64::from(path.nodes_per_leaf);
        let whole_end = if path.uniform_leaves {
            // Whole leaves only: the servers before the partial unit (or all the job's).
            path.partial_leaf
                .as_ref()
                .map_or(used, |l| used.min(l.first_server.max(npl)))
        } else {
            0.0
        };
        let crossing = match (traffic, path.uniform_leaves) {
            (Traffic::Ring, true) => worst_leaf_ring_pieces(servers, npl, whole_end, used) / npl,
            (Traffic::Ring, false) => aligned_ring_pieces(servers, npl) / npl,
            (Traffic::Spread { .. }, true) => worst_leaf_crossing(servers, npl, whole_end, used),
            (Traffic::Spread { .. }, false) => crossing_share(servers, npl),
        };
        let q = match traffic {
            Traffic::Ring => flows,
            Traffic::Spread { peers } => flows * peers.max(1.0),
        };
        let o = path.oversubscription.max(1.0);
        let m = f64::from(path.leaf_uplinks.max(1));
        let mut span = Span {
            crossing,
            kappa: leaf_factor(path, crossing, o, m, q),
            hops: switch_hops(servers, npl, path.tiers),
        };
        if let Some(leaf) = path.partial_leaf.as_ref().filter(|l| used > l.first_server)
            && let Some((h, ports)) = partial_leaf_crossing(leaf, servers, used, traffic)
        {
            let m = f64::from(leaf.uplinks.max(1));
            let kappa = leaf_factor(path, h, ports / (m * path.uplink_lanes.max(1.0)), m, q);
            if kappa < span.kappa {
                (span.kappa, span.crossing) = (kappa, h);
            }
            if h > 0.0 {
                span.hops = span.hops.max(2.0 * f64::from(path.tiers) - 1.0);
            }
        }
        span
    }
}

impl Span {
    /// The span with the model's ECMP efficiency term (1 unless an uncertainty analysis samples
    /// it) applied to plain ECMP's crossing traffic: the collision loss the model predicts may
    /// be too small or too large.
    pub fn with_ecmp_term(self, path: &FabricPath, ecmp_efficiency: f64) -> Span {
        if path.fabric == Fabric::Roce && self.crossing > 0.0 {
            Span {
                kappa: (self.kappa * ecmp_efficiency).clamp(0.0, 1.0),
                ..self
            }
        } else {
            self
        }
    }
}

/// The partial unit's leaf when the job reaches it: the share of its ports' traffic that
/// crosses and its ports, for the servers the job runs on (a port of a server the job leaves
/// out carries nothing). A ring leaves it once per piece a block has on each of its rails;
/// spread flows cross as Σ p·(N − p) over the pieces.
fn partial_leaf_crossing(
    leaf: &PartialLeafPath,
    servers: f64,
    used: f64,
    traffic: Traffic,
) -> Option<(f64, f64)> {
    let reached = leaf.servers.min(used - leaf.first_server);
    let first = leaf.first_server;
    let piece = |start: f64, len: f64| match traffic {
        Traffic::Ring => ring_pieces_f(servers, start, len, used),
        Traffic::Spread { .. } => pieces_load_f(servers, start, len),
    };
    let mut ports = leaf.whole_rails * reached;
    let mut load = leaf.whole_rails * piece(first, reached);
    for (from, n) in leaf.split_rails {
        let len = (from + n).min(reached) - from;
        if len > 0.0 {
            ports += len;
            load += piece(first + from, len);
        }
    }
    if ports <= 0.0 || servers <= 1.0 {
        return None;
    }
    let per_port = match traffic {
        Traffic::Ring => load / ports,
        Traffic::Spread { .. } => load / ((servers - 1.0) * ports),
    };
    Some((per_port.clamp(0.0, 1.0), ports))
}

/// Leaves scanned one by one at the most; past it every offset of a block against a leaf is
/// taken as occurring (the pattern repeats every lcm(block, leaf) servers).
const MAX_LEAVES_SCANNED: u64 = 1024;

/// The crossing share of the whole leaf whose servers cross the most, traffic-weighted, when
/// communicators are blocks of `block` consecutive servers tiling the job's `used` servers from
/// the first and whole leaves hold `per_leaf` consecutive servers (a rail's, or a ToR's) up to
/// server `whole` (where a partial unit begins, or the job ends): a block that starts or ends
/// inside a leaf leaves a piece of p servers there, each reaching p − 1 same-leaf peers, so the
/// leaf sends Σ p·(block − p)/(block − 1) servers' worth up. Aligned blocks give
/// [`crossing_share`] (a block of 126 over leaves of 84: 42/125); a misaligned one more (its leaf
/// of two 42-server pieces: 84/125, the one a buyer audit counted 1.34× loaded at 2:1). A block
/// that runs on past the whole leaves (into a partial unit) leaves its piece on the last of
/// them. At most [`MAX_LEAVES_SCANNED`] leaves are read, so the cost does not grow with the
/// cluster.
pub fn worst_leaf_crossing(block: f64, per_leaf: f64, whole: f64, used: f64) -> f64 {
    let aligned = crossing_share(block, per_leaf);
    let (n, d) = (block.max(0.0) as u64, per_leaf.max(0.0) as u64);
    let leaves = (whole.max(0.0) as u64).checked_div(d).unwrap_or(0);
    if n < 2 || d == 0 || leaves == 0 || used <= per_leaf || n % d == 0 || d % n == 0 {
        // One server, no whole leaf, the job inside one leaf, or blocks made of whole leaves
        // or tiling them: aligned.
        return aligned;
    }
    let worst = worst_leaf(n, d, leaves, |start| pieces_load(n, start, d));
    let h = worst as f64 / ((block - 1.0) * per_leaf);
    h.clamp(aligned, 1.0)
}

/// The largest `of_leaf(first server)` over the whole leaves of `d` servers that blocks of `n`
/// tile: leaf offsets against the block grid repeat every n / gcd(n, d) leaves, so at most that
/// many are read, and at most [`MAX_LEAVES_SCANNED`] (past it every offset a multiple of the
/// gcd is taken as occurring).
fn worst_leaf(n: u64, d: u64, leaves: u64, of_leaf: impl Fn(u64) -> u64) -> u64 {
    let g = u64::try_from(crate::arith::gcd(u128::from(n), u128::from(d))).unwrap_or(1);
    let period = n / g.max(1);
    let worst = if leaves.min(period) <= MAX_LEAVES_SCANNED {
        (0..leaves.min(period)).map(|i| of_leaf(i * d)).max()
    } else {
        (0..period.min(MAX_LEAVES_SCANNED))
            .map(|i| of_leaf(i * g))
            .max()
    };
    worst.unwrap_or(0)
}

/// Edges by which a ring over blocks of `block` consecutive servers leaves the worst whole leaf
/// of `per_leaf` servers (up to server `whole`; blocks tile the job's `used` servers): one for
/// each block that is partly on the leaf, so 0, 1 or 2 (see [`Traffic::Ring`]). Aligned blocks
/// larger than a leaf leave each leaf once; blocks that tile a leaf never leave it.
pub fn worst_leaf_ring_pieces(block: f64, per_leaf: f64, whole: f64, used: f64) -> f64 {
    let (n, d) = (block.max(0.0) as u64, per_leaf.max(0.0) as u64);
    let leaves = (whole.max(0.0) as u64).checked_div(d).unwrap_or(0);
    if n < 2 || d == 0 || leaves == 0 || used <= per_leaf {
        return 0.0;
    }
    if n.is_multiple_of(d) || d.is_multiple_of(n) {
        return aligned_ring_pieces(block, per_leaf);
    }
    let used = used.max(0.0) as u64;
    worst_leaf(n, d, leaves, |start| ring_pieces(n, start, d, used)) as f64
}

/// Ring edges leaving a leaf when blocks are aligned with leaves: one when a block is larger
/// than a leaf, none when it fits in one.
fn aligned_ring_pieces(block: f64, per_leaf: f64) -> f64 {
    if block > per_leaf { 1.0 } else { 0.0 }
}

/// Edges by which rings over blocks of `n` consecutive servers (tiling `used` servers from
/// server 0) leave the `len` servers from `start`: one for each block partly on them and partly
/// elsewhere (the first and the last block they meet; blocks between lie wholly on them).
fn ring_pieces(n: u64, start: u64, len: u64, used: u64) -> u64 {
    let end = start.saturating_add(len).min(used);
    if n < 2 || end <= start {
        return 0;
    }
    let crosses = |b: u64| {
        let from = b.saturating_mul(n);
        let to = b.saturating_add(1).saturating_mul(n).min(used);
        from < start || to > end
    };
    let (first, last) = (start / n, (end - 1) / n);
    u64::from(crosses(first))
        + if last == first {
            0
        } else {
            u64::from(crosses(last))
        }
}

/// [`ring_pieces`] of servers given as floats (whole numbers in practice).
fn ring_pieces_f(block: f64, start: f64, len: f64, used: f64) -> f64 {
    ring_pieces(
        block.max(0.0) as u64,
        start.max(0.0) as u64,
        len.max(0.0) as u64,
        used.max(0.0) as u64,
    ) as f64
}

/// Σ p·(n − p) over the pieces that blocks of `n` servers (tiling from server 0) leave on the
/// `len` servers from `start`: the first piece runs to the next block edge, the last from the
/// last edge; whole blocks between add nothing.
fn pieces_load(n: u64, start: u64, len: u64) -> u64 {
    if n == 0 || len == 0 {
        return 0;
    }
    let end = start.saturating_add(len);
    let next = (start / n).saturating_add(1).saturating_mul(n);
    if next >= end {
        return len.saturating_mul(n.saturating_sub(len));
    }
    let first = next - start;
    let last = end - (end - 1) / n * n;
    first.saturating_mul(n - first.min(n)) + last.saturating_mul(n - last.min(n))
}

/// [`pieces_load`] of servers given as floats (whole numbers in practice).
fn pieces_load_f(block: f64, start: f64, len: f64) -> f64 {
    pieces_load(
        block.max(0.0) as u64,
        start.max(0.0) as u64,
        len.max(0.0) as u64,
    ) as f64
}

/// Switches a packet crosses per network step: 1 inside a leaf, 2·tiers − 1 across the fabric.
pub fn switch_hops(nodes: f64, nodes_per_leaf: f64, tiers: u8) -> f64 {
    if nodes <= nodes_per_leaf || tiers <= 1 {
        1.0
    } else {
        2.0 * f64::from(tiers) - 1.0
    }
}

/// E[max] of m independent Poisson(λ) bins — the balls-into-bins maximum load under the
/// Poisson approximation: `Σ_{t≥0} (1 − F(t)^m)`. The loop runs over load values t (bounded by
/// λ + 12√λ + 40), never over ranks, nodes or bins.
pub fn expected_max_poisson(lambda: f64, bins: f64) -> f64 {
    if lambda.is_nan() || lambda <= 0.0 || bins.is_nan() || bins < 1.0 {
        return 0.0;
    }
    if lambda > POISSON_SUM_MAX_LAMBDA {
        return expected_max_normal(lambda, bins);
    }
    let t_max = (lambda + 12.0 * lambda.sqrt() + 40.0).ceil();
    let mut pmf = (-lambda).exp();
    let mut cdf = pmf;
    let mut sum = 0.0;
    let mut t = 0.0;
    // The last survival and its term: once F(t) rounds to one value (where the tail falls below
    // about 10⁻¹⁶: more than half of the loop), every later term is that same number, added
    // without recomputing its logarithm and exponential (the sum is bit-for-bit the same).
    let mut last = (f64::NAN, 0.0);
    while t <= t_max {
        let survival = (1.0 - cdf).max(0.0);
        if survival.to_bits() != last.0.to_bits() {
            // 1 − F^m = −expm1(m · ln(1 − S)), accurate when S is tiny.
            let term = -(bins * (-survival).ln_1p()).exp_m1();
            last = (survival, term.clamp(0.0, 1.0));
        }
        sum += last.1;
        t += 1.0;
        pmf *= lambda / t;
        cdf += pmf;
    }
    // The maximum is never below one bin's mean.
    sum.max(lambda)
}

/// Above this mean load (sub-flows per uplink: an all-to-all's flows to every peer) the sum
/// gives way to the normal approximation, within 0.7 % of it there
/// (`normal_approximation_meets_the_sum`): the sum's loop runs about λ + 12√λ terms, and its
/// first probability e^−λ underflows to 0 past λ ≈ 745, which would count every term as 1.
const POISSON_SUM_MAX_LAMBDA: f64 = 400.0;

/// E[max] of `bins` Poisson(λ) bins for large λ, each bin ≈ N(λ, λ): λ + √λ · a_m with a_m the
/// expected maximum of m standard normals: exact for m ≤ 5, else ≈ √(2 ln m) − (ln ln m +
/// ln 4π)/(2√(2 ln m)) + γ/√(2 ln m) (extreme-value asymptotics, Euler's γ).
fn expected_max_normal(lambda: f64, bins: f64) -> f64 {
    // The exact expected maxima of 2 to 5 standard normals (Tippett 1925), where the
    // asymptotic form is off by up to 12 %.
    let a_m = match bins.floor() as u32 {
        0 | 1 => 0.0,
        2 => 0.564_19,
        3 => 0.846_28,
        4 => 1.029_38,
        5 => 1.162_96,
        _ => {
            let a = (2.0 * bins.ln()).sqrt();
            a - (bins.ln().ln() + (4.0 * std::f64::consts::PI).ln()) / (2.0 * a)
                + 0.577_215_664_901_532_9 / a
        }
    };
    lambda + lambda.sqrt() * a_m.max(0.0)
}

/// Efficiency of static ECMP on crossing traffic: each NIC sends `q` equal sub-flows, a share
/// `crossing` of them leaves the leaf, hashed onto `uplinks` links carrying `oversubscription`×
/// the downlink load. A synchronous collective runs at the most-loaded link:
/// `κ = min(1, q / E[max sub-flows per link])`.
pub fn ecmp_efficiency(crossing: f64, oversubscription: f64, uplinks: f64, q: f64) -> f64 {
    ecmp_efficiency_fat(crossing, oversubscription, uplinks, q, 1.0)
}

/// [`ecmp_efficiency`] on uplinks `lanes` times as fast as a server link (400G uplinks over
/// 100G servers: 4): each takes `lanes` × as many sub-flows at full rate, and carries that many
/// more on average at the same bandwidth ratio, so `λ = crossing · o · q · lanes` and
/// `κ = min(1, q · lanes / E[max])`. The relative spread of the busiest bin falls as √λ grows:
/// fat uplinks lose less to collisions (the same load on a quarter of the bins, each four times
/// as wide).
pub fn ecmp_efficiency_fat(
    crossing: f64,
    oversubscription: f64,
    uplinks: f64,
    q: f64,
    lanes: f64,
) -> f64 {
    let lanes = lanes.max(1.0);
    let lambda = crossing * oversubscription * q * lanes;
    let capacity = q * lanes;
    let e_max = expected_max_poisson(lambda, uplinks);
    if e_max <= capacity {
        1.0
    } else {
        (capacity / e_max).clamp(0.0, 1.0)
    }
}

/// Load-balanced fabrics (adaptive routing): the uplinks deliver `efficiency` of their capacity
/// (Spectrum-X's "95% effective data throughput"), so crossing traffic runs at
/// `min(1, efficiency / (crossing · o))`: `efficiency` at full load (min(1, 1/o) when all of it
/// crosses), full rate while the load leaves that much headroom. Until 2026-11-27 the
/// efficiency also cut a lightly loaded leaf's traffic, so once a collective ran at its slowest
/// edge, adaptive routing came out 5 % behind plain ECMP on uplinks ECMP hashes without a
/// collision (a buyer audit: 1,772 such plans, most of them all-to-all).
fn balanced_efficiency(crossing: f64, oversubscription: f64, efficiency: f64) -> f64 {
    let load = crossing * oversubscription;
    if load > efficiency {
        efficiency / load
    } else {
        1.0
    }
}

/// Sub-flows a NIC keeps to one peer: NCCL's channels on the NIC (two by default: its search
/// finds one a NIC on NVLink servers and `ncclTopoPostset` duplicates them; `nccl.channels`
/// shares a forced count over the NICs) × queue pairs per connection
/// (`NCCL_IB_QPS_PER_CONNECTION`: 1 by default, 4 under `roce_tuning: tuned`, or as given).
/// Each QP is its own UDP source port on RoCEv2 (the mlx5 driver derives it from the QP
/// numbers), so each is a flow ECMP hashes on its own.
pub fn sub_flows(path: &FabricPath, nccl: &NcclSettings, nics_per_node: u32) -> f64 {
    let channels_per_nic = nccl.channels.map_or(CHANNELS_PER_NIC, |c| {
        (f64::from(c) / f64::from(nics_per_node.max(1))).max(1.0)
    });
    let qps = nccl.qps_per_connection.map_or(
        match path.roce_tuning {
            RoceTuning::Default => DEFAULT_QPS_PER_CONNECTION,
            RoceTuning::Tuned => TUNED_QPS_PER_CONNECTION,
        },
        f64::from,
    );
    channels_per_nic * qps.max(1.0)
}

/// κ on the crossing traffic for a fabric: a whole leaf, each NIC with NCCL's default sub-flows
/// to one peer (two channels, QPs by the path's tuning).
pub fn crossing_efficiency(path: &FabricPath, crossing: f64) -> f64 {
    let o = path.oversubscription.max(1.0);
    let m = f64::from(path.leaf_uplinks.max(1));
    let q = sub_flows(path, &NcclSettings::default(), 1);
    crossing_efficiency_at(path, crossing, o, m, q)
}

/// κ on the crossing traffic of a leaf with `o` server ports per uplink and `m` uplinks, each
/// NIC sending `q` equal sub-flows (ECMP hashes them one by one).
fn crossing_efficiency_at(path: &FabricPath, crossing: f64, o: f64, m: f64, q: f64) -> f64 {
    match path.fabric {
        Fabric::Infiniband => balanced_efficiency(crossing, o, INFINIBAND_AR_EFFICIENCY),
        Fabric::RoceAdaptive => balanced_efficiency(crossing, o, ADAPTIVE_ETHERNET_EFFICIENCY),
        Fabric::Roce => ecmp_efficiency_fat(crossing, o, m, q.max(1.0), path.uplink_lanes),
    }
}

/// Overall congestion factor on scale-out bandwidth for a whole leaf: see [`leaf_factor`].
pub fn congestion_factor(path: &FabricPath, crossing: f64) -> f64 {
    let o = path.oversubscription.max(1.0);
    let m = f64::from(path.leaf_uplinks.max(1));
    let q = sub_flows(path, &NcclSettings::default(), 1);
    leaf_factor(path, crossing, o, m, q)
}

/// The congestion factor of a collective crossing a share h of its traffic over a leaf with `o`
/// server ports per uplink and `m` uplinks, each NIC with `q` sub-flows: 1 without crossing
/// traffic, else its crossing edges' κ_cross. A ring (or tree) runs at its slowest edge, and an
/// all-to-all ends with its slowest flows, so a collective with any crossing edge runs at
/// κ_cross; not the time-weighted `1 / ((1 − h) + h / κ_cross)` used until 2026-11-27, which let
/// local edges make up for slow crossing ones (h = 0.5 at 4:1 on InfiniBand: 0.667, where the
/// crossing edges get half their rate).
fn leaf_factor(path: &FabricPath, crossing: f64, o: f64, m: f64, q: f64) -> f64 {
    if crossing > 0.0 {
        crossing_efficiency_at(path, crossing, o, m, q).clamp(0.0, 1.0)
    } else {
        1.0
    }
}

/// RoCE PFC/incast tail added to each fan-in network stage, µs (0 on InfiniBand).
pub fn incast_tail_us(path: &FabricPath) -> f64 {
    match path.fabric {
        Fabric::Infiniband => 0.0,
        Fabric::Roce | Fabric::RoceAdaptive => match path.roce_tuning {
            RoceTuning::Default => ROCE_INCAST_TAIL_US,
            RoceTuning::Tuned => ROCE_INCAST_TAIL_US * ROCE_TUNED_INCAST_FACTOR,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::perf::input::PartialLeafPath;

    #[test]
    fn crossing_share_by_hand() {
        assert_eq!(crossing_share(32.0, 32.0), 0.0);
        assert_eq!(crossing_share(1.0, 1.0), 0.0);
        // 64 nodes, 32 per leaf: 32/63
        assert!((crossing_share(64.0, 32.0) - 32.0 / 63.0).abs() < 1e-12);
        assert!((crossing_share(1e6, 1.0) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn switch_hops_by_hand() {
        assert_eq!(switch_hops(32.0, 32.0, 2), 1.0);
        assert_eq!(switch_hops(33.0, 32.0, 2), 3.0);
        assert_eq!(switch_hops(5000.0, 32.0, 3), 5.0);
    }

    #[test]
    fn expected_max_reproduces_balls_into_bins_table() {
        // performance.md §3: efficiency q / E[max] at full load (k = m), m uplinks, q QPs.
        // One row per uplink count m; columns q = 1, 2, 4, 8 QPs.
        let table = [
            (8.0, [0.38, 0.48, 0.57, 0.65]),
            (16.0, [0.33, 0.41, 0.51, 0.60]),
            (64.0, [0.25, 0.34, 0.43, 0.52]),
        ];
        for (m, row) in table {
            for (q, want) in [1.0, 2.0, 4.0, 8.0].into_iter().zip(row) {
                let got = ecmp_efficiency(1.0, 1.0, m, q);
                assert!((got - want).abs() < 0.03, "m={m} q={q}: {got} vs {want}");
            }
        }
    }

    /// The sum as written before the last term was reused, every term computed (the same
    /// operations in the same order, written as a counted loop).
    fn expected_max_poisson_every_term(lambda: f64, bins: f64) -> f64 {
        // NaN fails both comparisons, as it fails the function's own guard.
        if !(lambda > 0.0 && bins >= 1.0) {
            return 0.0;
        }
        let last = (lambda + 12.0 * lambda.sqrt() + 40.0).ceil() as u32;
        let (mut pmf, mut sum) = ((-lambda).exp(), 0.0);
        let mut cdf = pmf;
        for k in 1..=last + 1 {
            let s = (1.0 - cdf).max(0.0);
            sum += (-(bins * (-s).ln_1p()).exp_m1()).clamp(0.0, 1.0);
            pmf *= lambda / f64::from(k);
            cdf += pmf;
        }
        sum.max(lambda)
    }

    /// Reusing the last term changes no bit of the sum: λ from 10⁻³ to the sum's limit (400;
    /// the model's λ is crossing share × oversubscription × sub-flows, a few tens but for an
    /// all-to-all) over 1 to 4,096 bins.
    #[test]
    fn reusing_the_last_term_changes_no_bit() {
        // λ up to the sum's limit (above it the normal approximation stands in).
        let mut lambdas: Vec<f64> = (0..=600)
            .map(|i| 10f64.powf(-3.0 + f64::from(i) / 100.0))
            .filter(|&l| l <= POISSON_SUM_MAX_LAMBDA)
            .collect();
        lambdas.extend([0.0, -1.0, f64::NAN, 2.0, 8.0, 0.5 * 2.0, 31.0 / 63.0 * 2.0]);
        for bins in [
            1.0, 2.0, 3.0, 7.0, 8.0, 16.0, 32.0, 33.0, 64.0, 100.0, 256.0, 4096.0, 0.5,
        ] {
            for &l in &lambdas {
                let (got, want) = (
                    expected_max_poisson(l, bins),
                    expected_max_poisson_every_term(l, bins),
                );
                assert_eq!(
                    got.to_bits(),
                    want.to_bits(),
                    "λ={l} m={bins}: {got} vs {want}"
                );
            }
        }
    }

    /// Past the loop's limit the normal approximation stands in; at the limit it is within
    /// 0.7 % of the sum, on 2 to 4,096 bins.
    #[test]
    fn normal_approximation_meets_the_sum() {
        for bins in [2.0, 8.0, 14.0, 64.0, 128.0, 512.0, 4096.0] {
            let sum = expected_max_poisson_every_term(POISSON_SUM_MAX_LAMBDA, bins);
            let normal = expected_max_normal(POISSON_SUM_MAX_LAMBDA, bins);
            assert!(
                ((normal - sum) / sum).abs() < 0.007,
                "m={bins}: {normal} vs {sum}"
            );
        }
        // Used above the limit, and still at least the mean.
        let big = expected_max_poisson(1e6, 64.0);
        assert!(big > 1e6 && big < 1e6 * 1.01, "{big}");
        assert_eq!(expected_max_poisson(1e6, 1.0), 1e6);
    }

    #[test]
    fn poisson_max_by_hand() {
        // One bin: E[max] = λ.
        assert!((expected_max_poisson(3.0, 1.0) - 3.0).abs() < 1e-9);
        // m = 8, λ = 1: Σ(1 − F^8) ≈ 2.58 (hand sum in docs/model.md).
        let v = expected_max_poisson(1.0, 8.0);
        assert!((v - 2.58).abs() < 0.02, "{v}");
        assert_eq!(expected_max_poisson(0.0, 8.0), 0.0);
    }

    #[test]
    fn light_crossing_load_does_not_collide() {
        assert_eq!(ecmp_efficiency(0.0, 1.0, 32.0, 2.0), 1.0);
        assert!(ecmp_efficiency(0.05, 1.0, 32.0, 2.0) > ecmp_efficiency(1.0, 1.0, 32.0, 2.0));
    }

    /// Blocks against leaves, by hand: aligned blocks are `crossing_share`; a block of 126
    /// servers over leaves of 84 leaves a leaf with two 42-server pieces (84/125 of its
    /// traffic crosses, where the aligned rule said 42/125); blocks of 60 over leaves of 64 on
    /// 240 servers: the third leaf holds pieces of 52 and 12, (52·8 + 12·48) / (59·64).
    #[test]
    fn misaligned_blocks_cross_more() {
        assert_eq!(
            worst_leaf_crossing(128.0, 64.0, 1024.0, 1024.0),
            crossing_share(128.0, 64.0)
        );
        assert_eq!(worst_leaf_crossing(32.0, 64.0, 128.0, 128.0), 0.0);
        assert!((worst_leaf_crossing(126.0, 84.0, 504.0, 504.0) - 84.0 / 125.0).abs() < 1e-12);
        let want = (52.0 * 8.0 + 12.0 * 48.0) / (59.0 * 64.0);
        assert!((worst_leaf_crossing(60.0, 64.0, 192.0, 240.0) - want).abs() < 1e-12);
        // One leaf's worth of servers: nothing crosses whatever the blocks.
        assert_eq!(worst_leaf_crossing(60.0, 64.0, 64.0, 64.0), 0.0);
        // The scan is bounded: a million servers cost no more than a period's leaves.
        let h = worst_leaf_crossing(997.0, 64.0, 1_000_000.0, 1_000_000.0);
        assert!(h > crossing_share(997.0, 64.0) && h <= 1.0, "{h}");
    }

    /// The same uplink bandwidth in fewer, faster links loses less to hash collisions: 4 ×
    /// 400G against 16 × 100G under 32 servers' 100G (2:1), and one lane is the plain model.
    #[test]
    fn fat_uplinks_lose_less_to_collisions_than_as_many_thin_ones() {
        for q in [1.0, 2.0, 8.0] {
            for crossing in [0.25, 0.5, 1.0] {
                let thin = ecmp_efficiency(crossing, 2.0, 16.0, q);
                let fat = ecmp_efficiency_fat(crossing, 2.0, 4.0, q, 4.0);
                assert!(fat >= thin, "q {q} h {crossing}: fat {fat} thin {thin}");
                assert_eq!(ecmp_efficiency_fat(crossing, 2.0, 16.0, q, 1.0), thin);
            }
        }
        // Fully loaded at 1:1 with one sub-flow a NIC, 64 thin links lose more than 16 fat.
        let thin = ecmp_efficiency(1.0, 1.0, 64.0, 1.0);
        let fat = ecmp_efficiency_fat(1.0, 1.0, 16.0, 1.0, 4.0);
        assert!(fat > thin * 1.2, "fat {fat} thin {thin}");
    }

    /// A two-tier InfiniBand rail fabric of `nodes_per_leaf` servers a leaf on `uplinks`
    /// uplinks at `o`:1.
    fn oversubscribed_ib(nodes_per_leaf: u32, uplinks: u32, o: f64) -> FabricPath {
        FabricPath {
            oversubscription: o,
            leaf_uplinks: uplinks,
            ..FabricPath::rail_optimized(Fabric::Infiniband, 2, nodes_per_leaf, 130.0)
        }
    }

    /// The 1,024-H100 case of docs/model.md §4, by hand: the leaves 128-port Ethernet builds at
    /// 8:1 (a whole leaf of 112 servers a rail and 14 uplinks, and the partial SU's leaf of 7
    /// rails × 16 servers: 112 ports, 14 uplinks), timed with InfiniBand's rule (no ECMP loss)
    /// to isolate the leaves. Over all 128 servers the whole leaf's servers cross 16/127
    /// (load 8 · 16/127 = 1.008: κ = 1/1.008 = 0.992); the partial leaf's 112/127, load
    /// 8 · 112/127 ≈ 7.06, κ = 1/7.06 ≈ 0.1417. A lightly filled partial leaf (one server: 8
    /// ports on 14 uplinks) changes nothing.
    #[test]
    fn the_slower_leaf_sets_the_pace() {
        let path = oversubscribed_ib(112, 14, 8.0);
        let whole = Span::spread(&path, 128.0, 128.0, 1.0, 2.0);
        assert!((whole.crossing - 16.0 / 127.0).abs() < 1e-12);
        let want_whole = 1.0 / (8.0 * 16.0 / 127.0);
        assert!((whole.kappa - want_whole).abs() < 1e-12, "{whole:?}");
        assert!(whole.kappa > 0.99);
        // A partial unit from server 112: `servers` of them with `rails` whole rails each.
        let with_leaf = |servers: f64, rails: f64| FabricPath {
            partial_leaf: Some(PartialLeafPath {
                first_server: 112.0,
                servers,
                whole_rails: rails,
                split_rails: [(0.0, 0.0); 2],
                uplinks: 14,
            }),
            ..path
        };
        let packed = with_leaf(16.0, 7.0);
        let s = Span::spread(&packed, 128.0, 128.0, 1.0, 2.0);
        let h = 112.0 / 127.0;
        let want = 1.0 / (8.0 * h);
        assert!((s.crossing - h).abs() < 1e-12);
        assert!((s.kappa - want).abs() < 1e-12, "{} vs {want}", s.kappa);
        assert!((s.kappa - 0.1417).abs() < 1e-3);
        let light = with_leaf(1.0, 8.0);
        assert_eq!(
            Span::spread(&light, 113.0, 113.0, 1.0, 2.0).kappa,
            Span::spread(&path, 113.0, 113.0, 1.0, 2.0).kappa
        );
        // A communicator inside one partial leaf's servers does not cross.
        assert_eq!(Span::spread(&packed, 16.0, 128.0, 1.0, 2.0).kappa, 1.0);
    }

    /// Ring edges by hand: blocks larger than a leaf leave each leaf once; blocks that tile a
    /// leaf never leave it; blocks of 60 over leaves of 64 leave the second leaf (servers
    /// 64–127: the end of block 1 and the start of block 2) twice.
    #[test]
    fn a_ring_leaves_a_leaf_once_a_piece() {
        assert_eq!(worst_leaf_ring_pieces(128.0, 32.0, 1024.0, 1024.0), 1.0);
        assert_eq!(worst_leaf_ring_pieces(32.0, 64.0, 1024.0, 1024.0), 0.0);
        assert_eq!(worst_leaf_ring_pieces(64.0, 64.0, 1024.0, 1024.0), 0.0);
        assert_eq!(ring_pieces(60, 64, 64, 240), 2);
        assert_eq!(ring_pieces(60, 0, 64, 240), 1);
        assert_eq!(worst_leaf_ring_pieces(60.0, 64.0, 192.0, 240.0), 2.0);
        // One block over the whole job (an nccl-tests run): each leaf it touches, once.
        assert_eq!(ring_pieces(128, 64, 64, 128), 1);
        assert_eq!(ring_pieces(66, 64, 2, 66), 1);
        // The job inside one leaf: nothing crosses.
        assert_eq!(worst_leaf_ring_pieces(48.0, 64.0, 0.0, 48.0), 0.0);
        // Bounded: a million servers cost no more than a period's leaves.
        let x = worst_leaf_ring_pieces(997.0, 64.0, 1_000_000.0, 1_000_000.0);
        assert!(x == 1.0 || x == 2.0, "{x}");
    }

    /// A ring over 128 servers on rail leaves of 32 (1,024 H100, 8 rails): each leaf carries
    /// one crossing NIC edge, two sub-flows on 32 uplinks. Plain ECMP hashes them without
    /// loss, so RoCE runs as InfiniBand there; spread traffic over the same servers (an
    /// all-to-all, h = 96/127) does not.
    #[test]
    fn a_rank_ordered_ring_crosses_at_one_edge_a_leaf() {
        let roce = FabricPath::rail_optimized(Fabric::Roce, 2, 32, 130.0);
        let ring = Span::ring(&roce, 128.0, 128.0, 2.0);
        assert!((ring.crossing - 1.0 / 32.0).abs() < 1e-12, "{ring:?}");
        assert_eq!(ring.kappa, 1.0);
        assert_eq!(ring.hops, 3.0);
        let spread = Span::spread(&roce, 128.0, 128.0, 1.0, 2.0);
        assert!(spread.kappa < 0.7, "{spread:?}");
    }

    /// Meta's RoCE racks (Llama 3 paper §3.3.1: two servers, 16 GPUs, a rack switch, 1:1 in a
    /// pod): a rank-ordered ring leaves each rack on all 8 NICs (8 edges on 16 uplinks). Plain
    /// ECMP with NCCL's default 2 sub-flows a NIC hashes 16 flows onto 16 uplinks; the 16 flows
    /// between two GPUs Meta opens instead (E-ECMP + QP scaling) spread them. Derived, not
    /// fitted: the gain lands near the "up to 40%" Meta reports (Meta engineering blog,
    /// 2024-08-05).
    #[test]
    fn more_queue_pairs_spread_a_racks_ring_as_meta_reports() {
        let rack = FabricPath {
            rail_optimized: false,
            ..FabricPath::rail_optimized(Fabric::Roce, 2, 2, 130.0)
        };
        let rack = FabricPath {
            leaf_uplinks: 16,
            ..rack
        };
        let plain = Span::ring(&rack, 192.0, 192.0, 2.0);
        let scaled = Span::ring(&rack, 192.0, 192.0, 16.0);
        let gain = scaled.kappa / plain.kappa - 1.0;
        assert!(
            (0.25..=0.6).contains(&gain),
            "{plain:?} {scaled:?} gain {gain}"
        );
    }

    #[test]
    fn congestion_factor_by_hand() {
        let path = oversubscribed_ib(32, 16, 2.0);
        // Full crossing at 2:1 on IB: κ = 1/2.
        assert!((congestion_factor(&path, 1.0) - 0.5).abs() < 1e-12);
        // Half crossing at 2:1: load 1 → no capacity loss.
        assert!((congestion_factor(&path, 0.5) - 1.0).abs() < 1e-12);
        let adaptive = FabricPath {
            fabric: Fabric::RoceAdaptive,
            oversubscription: 1.0,
            ..path
        };
        assert!((congestion_factor(&adaptive, 1.0) - 0.95).abs() < 1e-12);
        // h = 0.5 at 1:1: the uplinks are half loaded, within the 95 % they deliver, so the
        // crossing edges run at full rate (as on InfiniBand, and as ECMP with many flows).
        assert_eq!(congestion_factor(&adaptive, 0.5), 1.0);
        // Loaded past 95 %: the crossing edges, and the collective, at 0.95 / load.
        let adaptive_2 = FabricPath {
            oversubscription: 2.0,
            ..adaptive
        };
        assert!((congestion_factor(&adaptive_2, 0.75) - 0.95 / 1.5).abs() < 1e-12);
        // At 4:1 half the traffic crossing loads the uplinks 2×: the crossing edges, and so
        // the collective, at 1/2 (by time it was 1 / (0.5 + 0.5 · 2) = 0.667).
        let four = FabricPath {
            oversubscription: 4.0,
            ..path
        };
        assert!((congestion_factor(&four, 0.5) - 0.5).abs() < 1e-12);
    }
}
