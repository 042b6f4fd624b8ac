//! Why a fabric cannot be sized: each error names the limit and the input at fault, as a
//! sentence people read.

use std::fmt;

use crate::catalog::Text;

use super::Design;

/// Why a fabric cannot be sized. `Display` gives a sentence naming the limit.
#[derive(Debug, Clone, PartialEq)]
pub enum SizingError {
    /// A count that must be at least 1 is 0.
    Zero { field: &'static str },
    /// Oversubscription is not a finite number ≥ 1.
    Oversubscription { value: f64 },
    /// `max_tiers` is not 2 or 3.
    MaxTiers { value: u8 },
    /// The NIC speed does not split evenly across the planes.
    PlanesDoNotDivideNicSpeed { nic_speed_gbps: u32, planes: u32 },
    /// The switch cannot run ports at the link speed.
    UnsupportedLinkSpeed {
        link_speed_gbps: u32,
        switch_sku: Text,
        link_speeds_gbps: Vec<u32>,
    },
    /// The leaf split leaves no downlinks or no uplinks (radix too small or ratio too high).
    LeafSplit {
        radix: u64,
        leaf_downlinks: u64,
        oversubscription: f64,
    },
    /// Not rail-optimized: one node's NIC ports do not fit on one leaf's downlinks.
    NodeExceedsLeaf {
        nics_per_node: u32,
        leaf_downlinks: u64,
    },
    /// The cluster has more endpoints per plane than `max_tiers` tiers can connect.
    ExceedsTierCeiling {
        max_tiers: u8,
        endpoints_per_plane: u64,
        ceiling_endpoints_per_plane: u64,
        /// The formula and its inputs, e.g. "k^3/4 with k = 64 ports of 400G on nvidia-qm9700".
        formula: String,
    },
    /// Endpoints fit the ceiling, but rounded up to whole scalable units they need more leaves
    /// than `max_tiers` tiers can connect.
    LeavesExceedTierLimit {
        max_tiers: u8,
        leaves_per_plane: u64,
        max_leaves_per_plane: u64,
        scalable_units: u64,
        scalable_unit_nodes: u64,
        formula: String,
    },
    /// A named design cannot connect this cluster (e.g. one switch with fewer ports than NIC
    /// ports); `why` says which limit.
    DesignDoesNotFit { design: Design, why: Why },
    /// An intermediate count does not fit the integer type (absurd inputs).
    Overflow { what: &'static str },
}

impl SizingError {
    /// A stable machine code for API errors.
    pub fn code(&self) -> crate::error_code::ErrorCode {
        use crate::error_code::ErrorCode;
        match self {
            SizingError::Zero { .. } => ErrorCode::ZeroValue,
            SizingError::Oversubscription { .. } => ErrorCode::OversubscriptionOutOfRange,
            SizingError::MaxTiers { .. } => ErrorCode::MaxTiersOutOfRange,
            SizingError::PlanesDoNotDivideNicSpeed { .. } => ErrorCode::PlanesDoNotDivideNicSpeed,
            SizingError::UnsupportedLinkSpeed { .. } => ErrorCode::UnsupportedLinkSpeed,
            SizingError::LeafSplit { .. } => ErrorCode::NoLeafDownlinksOrUplinks,
            SizingError::NodeExceedsLeaf { .. } => ErrorCode::NodeExceedsLeaf,
            SizingError::ExceedsTierCeiling { .. } => ErrorCode::ExceedsTierCeiling,
            SizingError::LeavesExceedTierLimit { .. } => ErrorCode::ExceedsTierLeafLimit,
            SizingError::DesignDoesNotFit { .. } => ErrorCode::DesignDoesNotFit,
            SizingError::Overflow { .. } => ErrorCode::Overflow,
        }
    }

    /// The input field at fault, by its Rust field name, when there is one.
    pub fn field(&self) -> Option<&'static str> {
        match self {
            SizingError::Zero { field } => Some(field),
            SizingError::Oversubscription { .. } | SizingError::LeafSplit { .. } => {
                Some("oversubscription")
            }
            SizingError::MaxTiers { .. }
            | SizingError::ExceedsTierCeiling { .. }
            | SizingError::LeavesExceedTierLimit { .. } => Some("max_tiers"),
            SizingError::PlanesDoNotDivideNicSpeed { .. } => Some("planes"),
            SizingError::UnsupportedLinkSpeed { .. } => Some("nic_speed_gbps"),
            SizingError::NodeExceedsLeaf { .. } => Some("rail_optimized"),
            SizingError::DesignDoesNotFit {
                why: Why::NeedsNodesPerRack,
                ..
            } => Some("nodes_per_rack"),
            SizingError::DesignDoesNotFit { .. } => Some("design"),
            SizingError::Overflow { .. } => None,
        }
    }
}

fn tier_word(tiers: u8) -> &'static str {
    if tiers <= 2 { "two" } else { "three" }
}

impl fmt::Display for SizingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SizingError::Zero { field } => write!(f, "{field} must be at least 1"),
            SizingError::Oversubscription { value } => {
                write!(
                    f,
                    "oversubscription must be a number >= 1 (1 = non-blocking), got {value}"
                )
            }
            SizingError::MaxTiers { value } => {
                write!(f, "max_tiers must be 2 or 3, got {value}")
            }
            SizingError::PlanesDoNotDivideNicSpeed {
                nic_speed_gbps,
                planes,
            } => write!(
                f,
                "a {nic_speed_gbps}G NIC port cannot be split evenly into {planes} planes"
            ),
            SizingError::UnsupportedLinkSpeed {
                link_speed_gbps,
                switch_sku,
                link_speeds_gbps,
            } => {
                let speeds: Vec<String> =
                    link_speeds_gbps.iter().map(|s| format!("{s}G")).collect();
                write!(
                    f,
                    "{switch_sku} cannot run {link_speed_gbps}G links (NIC speed / planes); \
                     it supports {}",
                    speeds.join(", ")
                )
            }
            SizingError::LeafSplit {
                radix,
                leaf_downlinks,
                oversubscription,
            } => write!(
                f,
                "oversubscription {oversubscription} on a {radix}-port leaf leaves \
                 {leaf_downlinks} downlinks and {} uplinks; a leaf needs at least one of each",
                radix.saturating_sub(*leaf_downlinks)
            ),
            SizingError::NodeExceedsLeaf {
                nics_per_node,
                leaf_downlinks,
            } => write!(
                f,
                "{nics_per_node} NIC ports per node do not fit on one leaf with {leaf_downlinks} \
                 downlinks; use a rail-optimized fabric"
            ),
            SizingError::ExceedsTierCeiling {
                max_tiers,
                endpoints_per_plane,
                ceiling_endpoints_per_plane,
                formula,
            } => write!(
                f,
                "{} endpoints per plane exceed the {}-tier ceiling of {} ({formula})",
                thousands(*endpoints_per_plane),
                tier_word(*max_tiers),
                thousands(*ceiling_endpoints_per_plane)
            ),
            SizingError::LeavesExceedTierLimit {
                max_tiers,
                leaves_per_plane,
                max_leaves_per_plane,
                scalable_units,
                scalable_unit_nodes,
                formula,
            } => write!(
                f,
                "{} scalable units of {} nodes need {} leaves per plane, more than the {}-tier \
                 limit of {} leaves per plane ({formula})",
                thousands(*scalable_units),
                thousands(*scalable_unit_nodes),
                thousands(*leaves_per_plane),
                tier_word(*max_tiers),
                thousands(*max_leaves_per_plane)
            ),
            SizingError::DesignDoesNotFit { design, why } => {
                write!(f, "the {} design does not fit: {why}", design.as_str())
            }
            SizingError::Overflow { what } => write!(f, "{what} is too large to compute"),
        }
    }
}

impl std::error::Error for SizingError {}

/// Why a design does not fit, as its figures: the sentence is written only when the error is
/// shown (a plan sizes every design of every fabric, and a sweep point reads none of these
/// errors unless no design fits).
#[derive(Debug, Clone, PartialEq)]
pub enum Why {
    /// A sentence.
    Text(String),
    /// `single_switch`: more NIC ports per plane than one switch has.
    PortsExceedOneSwitch {
        endpoints: u64,
        k: u64,
        sku: Text,
        link: u32,
    },
    /// `rail_only`: more nodes than one rail switch has ports.
    NodesExceedRailSwitch {
        nodes: u64,
        k: u64,
        sku: Text,
        link: u32,
    },
    /// `collapsed_rails`: the nodes fill whole scalable units of `d`.
    WholeScalableUnits { nodes: u64, d: u64 },
    /// `dual_switch`: node ports and inter-switch links exceed one switch.
    DualSwitchPorts {
        per_switch: u64,
        isl: u64,
        k: u64,
        sku: Text,
        link: u32,
    },
    /// `tor_copper`: the request does not say how many servers share a rack.
    NeedsNodesPerRack,
    /// `tor_copper`: one server's NIC ports exceed a leaf's downlinks.
    ServerExceedsLeaf { r: u64, d: u64, o: f64 },
    /// Two tiers: every NIC port fits on one leaf.
    OneLeaf { endpoints: u64, downlinks: u64 },
    /// Two tiers: more leaves than the two-tier limit.
    TwoTierLeaves { count: u64, k: u64 },
}

impl From<&str> for Why {
    fn from(s: &str) -> Why {
        Why::Text(s.to_string())
    }
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Text(s) => f.write_str(s),
            Why::NeedsNodesPerRack => f.write_str("needs the number of servers per rack"),
            Why::PortsExceedOneSwitch {
                endpoints,
                k,
                sku,
                link,
            } => write!(
                f,
                "{endpoints} NIC ports per plane exceed the {k} ports of one {sku} at {link}G"
            ),
            Why::NodesExceedRailSwitch {
                nodes,
                k,
                sku,
                link,
            } => write!(
                f,
                "{nodes} nodes exceed the {k} ports of one rail switch ({sku} at {link}G)"
            ),
            Why::WholeScalableUnits { nodes, d } => write!(
                f,
                "{nodes} nodes are whole scalable units of {d}; use su_clos"
            ),
            Why::DualSwitchPorts {
                per_switch,
                isl,
                k,
                sku,
                link,
            } => write!(
                f,
                "{per_switch} node ports and {isl} inter-switch links per switch exceed the {k} ports of one {sku} at {link}G"
            ),
            Why::ServerExceedsLeaf { r, d, o } => write!(
                f,
                "a server's {r} NIC ports exceed a leaf's {d} downlinks at {o}:1"
            ),
            Why::OneLeaf {
                endpoints,
                downlinks,
            } => write!(
                f,
                "all {endpoints} NIC ports fit on one leaf's {downlinks} downlinks; use single_switch or dual_switch"
            ),
            Why::TwoTierLeaves { count, k } => write!(
                f,
                "{count} leaves exceed the two-tier limit of {k} leaves per plane; use su_clos"
            ),
        }
    }
}

/// `65544` → `"65,544"`, for messages people read.
pub(super) fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len().saturating_add(digits.len() / 3));
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && digits.len().saturating_sub(i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}
