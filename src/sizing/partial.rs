//! The busiest leaf of a partly filled last scalable unit (or rack). Its servers have fewer
//! same-rail peers under it than a whole unit's, so more of their traffic crosses its uplinks;
//! the performance model times them too and the slower leaf sets the pace (docs/model.md §4).
//! 1,024 H100 on 400G at 8:1 (112:14): the 16 servers past the first 112 put 7 rails on one
//! `collapsed_rails` leaf, 112 ports of which 112/127 of the traffic crosses 14 uplinks.

use serde::Serialize;
use utoipa::ToSchema;

use super::{SizingError, add, mul, or_overflow, sub};

/// Servers of one rail split over two leaves of the partial unit: the part on this leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ToSchema)]
pub struct SplitRail {
    /// Its first server, counted from the partial unit's first.
    pub from_server: u32,
    /// Its servers.
    pub servers: u32,
}

/// A leaf of the partial scalable unit, as the performance model needs it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PartialLeaf {
    /// Server ports on the leaf, one plane.
    pub server_ports: u32,
    /// Same-rail servers under the leaf, per server port and weighted by traffic (Σ p² ÷ ports
    /// over the rail pieces on it, p servers each): a port reaches p − 1 same-rail peers
    /// without its uplinks.
    pub same_rail_servers: f64,
    /// Uplinks of the leaf, one plane.
    pub uplinks: u32,
    /// The first of its servers, counted from 0 in the order the job fills servers (a job
    /// that leaves GPUs out does not reach it when it ends before).
    pub first_server: u32,
    /// Its servers (the partial scalable unit's, or the short leaf's).
    pub servers: u32,
    /// Rails whole on the leaf: each has a port on every one of those servers.
    pub whole_rails: u32,
    /// Pieces of rails this leaf shares with a neighbouring leaf, before or after it
    /// (`collapsed_rails` when the partial unit's rails do not fit its leaves whole; packed in
    /// order, a rail can run over more than two leaves): at most two on one leaf.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub split_rails: Vec<SplitRail>,
}

/// One leaf's server ports, Σ p² over its rail pieces, and uplinks; and where its servers
/// are: from `first_server`, `servers` of them (the partial unit's or the short leaf's).
#[derive(Debug, Clone, Copy)]
pub(super) struct Candidate {
    pub ports: u64,
    pub squares: u64,
    pub uplinks: u64,
    pub first_server: u64,
    pub servers: u64,
    pub whole_rails: u64,
    /// Split rail pieces: (first server from the unit's first, servers); (0, 0) when unused.
    pub split: [(u64, u64); 2],
}

impl Candidate {
    /// A leaf of `servers` servers from `first_server` on, with `rails` ports each, every rail
    /// whole on it.
    pub fn whole_rails(
        first_server: u64,
        servers: u64,
        rails: u64,
        uplinks: u64,
    ) -> Result<Self, SizingError> {
        let ports = mul(servers, rails, W)?;
        Ok(Candidate {
            ports,
            squares: mul(ports, servers, W)?,
            uplinks,
            first_server,
            servers,
            whole_rails: rails,
            split: [(0, 0); 2],
        })
    }

    /// Traffic the leaf sends up, in port-loads per uplink, with `n` servers and peers spread
    /// uniformly: a port whose rail has p servers on the leaf sends (n − p)/(n − 1) of its
    /// traffic up, so the leaf (ports·n − Σ p²)/(n − 1).
    fn load(&self, n: u64) -> f64 {
        if n < 2 || self.uplinks == 0 {
            return 0.0;
        }
        let up = (self.ports as f64 * n as f64 - self.squares as f64).max(0.0);
        up / (n as f64 - 1.0) / self.uplinks as f64
    }
}

const W: &str = "partial leaf";

/// Of `candidates`, the one that sends the most up with `nodes` servers in the fabric, as the
/// topology reports it; `None` without candidates or a server port.
pub(super) fn busiest(
    nodes: u64,
    candidates: impl IntoIterator<Item = Candidate>,
) -> Result<Option<PartialLeaf>, SizingError> {
    let best = candidates
        .into_iter()
        .filter(|c| c.ports > 0)
        .max_by(|a, b| a.load(nodes).total_cmp(&b.load(nodes)));
    let Some(c) = best else {
        return Ok(None);
    };
    Ok(Some(PartialLeaf {
        server_ports: super::to_u32(c.ports, W)?,
        same_rail_servers: c.squares as f64 / c.ports as f64,
        uplinks: super::to_u32(c.uplinks, W)?,
        first_server: super::to_u32(c.first_server, W)?,
        servers: super::to_u32(c.servers, W)?,
        whole_rails: super::to_u32(c.whole_rails, W)?,
        split_rails: c
            .split
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|&(from, n)| {
                Ok(SplitRail {
                    from_server: super::to_u32(from, W)?,
                    servers: super::to_u32(n, W)?,
                })
            })
            .collect::<Result<_, SizingError>>()?,
    }))
}

/// The leaves of `collapsed_rails`' partial scalable unit: its `rem` servers (from
/// `first_server` on) × R rails laid
/// rail-major (a rail's ports together) on `leaves` = ⌈rem·R / d⌉ leaves, whole rails first:
/// each leaf takes w = ⌊d / rem⌋ whole rails in rail order (the last leaf what is left), and
/// when the leaves cannot hold every rail whole (leaves·w < R) the rails left over fill the
/// leaves' spare d − w·rem ports in order, a rail split over adjacent leaves. With R leaves
/// that is one rail a leaf, as in `su_clos`.
pub(super) fn packed_rails(
    first_server: u64,
    rem: u64,
    r: u64,
    d: u64,
    leaves: u64,
    uplinks: u64,
) -> Result<Vec<Candidate>, SizingError> {
    let w = or_overflow(d.checked_div(rem), W)?;
    let whole = mul(leaves, w, W)?;
    let leftover = mul(r.saturating_sub(whole), rem, W)?;
    let spare = sub(d, mul(w, rem, W)?, W)?;
    let rem_sq = mul(rem, rem, W)?;
    (0..leaves)
        .map(|j| {
            if leftover == 0 {
                // Every rail whole: w a leaf in order, the last leaf what is left.
                let rails = r.saturating_sub(mul(j, w, W)?).min(w);
                return Ok(Candidate {
                    ports: mul(rails, rem, W)?,
                    squares: mul(rails, rem_sq, W)?,
                    uplinks,
                    first_server,
                    servers: rem,
                    whole_rails: rails,
                    split: [(0, 0); 2],
                });
            }
            // w whole rails, then this leaf's share [lo, hi) of the left-over rails' ports,
            // which fill the spares in order (each rail `rem` ports).
            let lo = mul(j, spare, W)?.min(leftover);
            let hi = add(lo, spare, W)?.min(leftover);
            let mut squares = mul(w, rem_sq, W)?;
            let mut split = [(0, 0); 2];
            let mut at = lo;
            // A share below rem ports holds pieces of at most two rails.
            for slot in split.iter_mut() {
                if at >= hi {
                    break;
                }
                // The rail holding port `at` ends at the next multiple of rem.
                let rail = or_overflow(at.checked_div(rem), W)?;
                let rail_start = mul(rail, rem, W)?;
                let rail_end = add(rail_start, rem, W)?;
                let piece = sub(rail_end.min(hi), at, W)?;
                squares = add(squares, mul(piece, piece, W)?, W)?;
                *slot = (sub(at, rail_start, W)?, piece);
                at = add(at, piece, W)?;
            }
            Ok(Candidate {
                ports: add(mul(w, rem, W)?, sub(hi, lo, W)?, W)?,
                squares,
                uplinks,
                first_server,
                servers: rem,
                whole_rails: w,
                split,
            })
        })
        .collect()
}
