//! The three scale-out fabrics fabric-tco compares. Plain data, shared by every module.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A scale-out fabric family.
///
/// - `infiniband`: credit-based, lossless by design, adaptive routing on by default (NCCL).
/// - `roce`: RoCEv2 on Ethernet with PFC/ECN and plain ECMP (static flow hashing).
/// - `roce_adaptive`: Ethernet with adaptive routing / packet spraying (Spectrum-X or UEC class).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
pub enum Fabric {
    Infiniband,
    Roce,
    RoceAdaptive,
}

impl Fabric {
    /// Every fabric, in the order plans list them.
    pub const ALL: [Fabric; 3] = [Fabric::Infiniband, Fabric::Roce, Fabric::RoceAdaptive];

    /// The wire name (`infiniband`, `roce`, `roce_adaptive`).
    pub fn as_str(self) -> &'static str {
        match self {
            Fabric::Infiniband => "infiniband",
            Fabric::Roce => "roce",
            Fabric::RoceAdaptive => "roce_adaptive",
        }
    }

    /// A human name for sentences ("InfiniBand", "RoCE (ECMP)", "adaptive-routing Ethernet").
    pub fn display_name(self) -> &'static str {
        match self {
            Fabric::Infiniband => "InfiniBand",
            Fabric::Roce => "RoCE (ECMP)",
            Fabric::RoceAdaptive => "adaptive-routing Ethernet",
        }
    }

    /// A name short enough for a chart label ("InfiniBand", "RoCE (ECMP)", "Adaptive
    /// Ethernet": each fits under a bar at 720 px).
    pub fn short_name(self) -> &'static str {
        match self {
            Fabric::Infiniband => "InfiniBand",
            Fabric::Roce => "RoCE (ECMP)",
            Fabric::RoceAdaptive => "Adaptive Ethernet",
        }
    }

    /// Its place in [`Fabric::ALL`] (0, 1, 2): an index for per-fabric tables.
    pub const fn index(self) -> usize {
        match self {
            Fabric::Infiniband => 0,
            Fabric::Roce => 1,
            Fabric::RoceAdaptive => 2,
        }
    }

    /// Whether the fabric is Ethernet (RoCE, with or without adaptive routing).
    pub fn is_ethernet(self) -> bool {
        matches!(self, Fabric::Roce | Fabric::RoceAdaptive)
    }

    /// Parses the wire name.
    pub fn parse(s: &str) -> Option<Fabric> {
        Fabric::ALL.into_iter().find(|f| f.as_str() == s)
    }
}

/// The fabrics a note is about: a plan says it only when it builds one of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoteScope {
    /// Every fabric (a figure every fabric's cost counts).
    Any,
    /// RoCE and adaptive Ethernet.
    Ethernet,
    /// InfiniBand.
    Infiniband,
}

impl NoteScope {
    /// What a note of this scope starts with, so that a table row of one fabric carries it
    /// only if it concerns that fabric (`plan::warning_concerns`).
    pub fn prefix(self) -> &'static str {
        match self {
            NoteScope::Any => "",
            NoteScope::Ethernet => "Ethernet: ",
            NoteScope::Infiniband => "InfiniBand: ",
        }
    }

    /// Whether a plan that builds `fabric` says the note.
    pub fn covers(self, fabric: Fabric) -> bool {
        match self {
            NoteScope::Any => true,
            NoteScope::Ethernet => fabric.is_ethernet(),
            NoteScope::Infiniband => fabric == Fabric::Infiniband,
        }
    }
}
