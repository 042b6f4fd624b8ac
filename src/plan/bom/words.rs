//! What a BOM line says about its quantity — its counting unit and how the quantity follows from
//! the topology — kept as the numbers themselves and written out only when the line is shown
//! (JSON, CSV, the report page). Building a plan formats nothing here: a sweep point, a Monte
//! Carlo sample or a `/v1/value` that never shows a BOM line never pays for its words.

use std::fmt;

/// Counting unit of a BOM line's `quantity`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// `NIC`.
    Nic,
    /// `leaf switch`, `spine switch`, `core switch`.
    Switch { role: &'static str },
    /// `module (2 link ends)`: switch-side modules, counted per link end.
    SwitchModule { link_ends: u32 },
    /// `module (1 link(s))`: NIC-side modules.
    NicModule { links: u32 },
    /// `cable per link`, or `cable (2 links)` for a multi-link cable.
    Cable { links: u32 },
    /// `line card`, `fabric module`, `supervisor`: a module of a modular chassis.
    ChassisModule { kind: &'static str },
}

impl fmt::Display for Unit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Unit::Nic => f.write_str("NIC"),
            Unit::Switch { role } => write!(f, "{role} switch"),
            Unit::SwitchModule { link_ends } => write!(f, "module ({link_ends} link ends)"),
            Unit::NicModule { links } => write!(f, "module ({links} link(s))"),
            Unit::Cable { links: 1 } => f.write_str("cable per link"),
            Unit::Cable { links } => write!(f, "cable ({links} links)"),
            Unit::ChassisModule { kind } => f.write_str(kind),
        }
    }
}

/// How a BOM line's quantity was derived, with the numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Derivation {
    /// `128 nodes × 8 NICs per node`.
    Nics { nodes: u32, nics_per_node: u32 },
    /// `32 leaf switches across 1 plane(s)`.
    Switches {
        count: u64,
        role: &'static str,
        planes: u32,
    },
    /// `1024 node_leaf links × 1 switch end(s) = 1024 ports ÷ 2 per module`.
    SwitchModules {
        links: u64,
        tier: &'static str,
        ends_per_link: u8,
        ports: u64,
        per_module: u32,
    },
    /// `1056 spine cages in use − 1040 modules counted by link end: 16 cage(s) whose module
    /// carries one link end`.
    SharedCages {
        role: &'static str,
        cages: u64,
        counted: u64,
        /// Of the cages not counted, those two tiers' ports share (one module).
        shared: u64,
    },
    /// `1024 NICs × 1 module(s) per NIC (1 plane link(s) per NIC)`.
    NicModules {
        nics: u64,
        per_nic: u64,
        planes: u32,
    },
    /// `1024 node_leaf links ÷ 1 link(s) per cable`.
    Cables {
        links: u64,
        tier: &'static str,
        per_cable: u32,
    },
    /// `16384 leaf_spine links over 64 chassis, 36 a line card, each chassis' rounded up`.
    LineCards {
        links: u64,
        chassis: u64,
        per_card: u64,
    },
    /// `64 chassis × 6 each`.
    PerChassis { chassis: u64, each: u32 },
}

impl fmt::Display for Derivation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Derivation::Nics {
                nodes,
                nics_per_node,
            } => write!(
                f,
                "{nodes} node{} × {nics_per_node} NIC{} per node",
                if nodes == 1 { "" } else { "s" },
                if nics_per_node == 1 { "" } else { "s" }
            ),
            Derivation::Switches {
                count,
                role,
                planes,
            } => write!(f, "{count} {role} switches across {planes} plane(s)"),
            Derivation::SwitchModules {
                links,
                tier,
                ends_per_link,
                ports,
                per_module,
            } => write!(
                f,
                "{links} {tier} links × {ends_per_link} switch end(s) = {ports} ports ÷ {per_module} per module"
            ),
            Derivation::SharedCages {
                role,
                cages,
                counted,
                shared,
            } => {
                write!(
                    f,
                    "{cages} {role} cages in use − {counted} modules counted by link end: {} \
                     cage(s) whose module carries one link end",
                    cages.saturating_sub(counted).saturating_sub(shared)
                )?;
                if shared > 0 {
                    write!(
                        f,
                        " ({shared} more hold a port of two tiers, counted already)"
                    )?;
                }
                Ok(())
            }
            Derivation::NicModules {
                nics,
                per_nic,
                planes,
            } => write!(
                f,
                "{nics} NICs × {per_nic} module(s) per NIC ({planes} plane link(s) per NIC)"
            ),
            Derivation::Cables {
                links,
                tier,
                per_cable,
            } => write!(f, "{links} {tier} links ÷ {per_cable} link(s) per cable"),
            Derivation::LineCards {
                links,
                chassis,
                per_card,
            } => write!(
                f,
                "{links} leaf_spine links over {chassis} chassis, {per_card} a line card, each chassis' rounded up"
            ),
            Derivation::PerChassis { chassis, each } => {
                write!(f, "{chassis} chassis × {each} each")
            }
        }
    }
}

crate::json::serialized_as_text!(Unit, Derivation);

#[cfg(test)]
mod tests {
    use super::*;

    /// The words as the BOM wrote them with `format!` before they were kept as numbers.
    #[test]
    fn words_read_as_they_always_did() {
        let cases: [(String, String); 11] = [
            (Unit::Nic.to_string(), "NIC".into()),
            (
                Unit::Switch { role: "spine" }.to_string(),
                "spine switch".into(),
            ),
            (
                Unit::SwitchModule { link_ends: 2 }.to_string(),
                "module (2 link ends)".into(),
            ),
            (
                Unit::NicModule { links: 1 }.to_string(),
                "module (1 link(s))".into(),
            ),
            (
                Unit::Cable { links: 1 }.to_string(),
                "cable per link".into(),
            ),
            (
                Unit::Cable { links: 2 }.to_string(),
                "cable (2 links)".into(),
            ),
            (
                Derivation::Nics {
                    nodes: 128,
                    nics_per_node: 8,
                }
                .to_string(),
                "128 nodes × 8 NICs per node".into(),
            ),
            (
                Derivation::Switches {
                    count: 32,
                    role: "leaf",
                    planes: 2,
                }
                .to_string(),
                "32 leaf switches across 2 plane(s)".into(),
            ),
            (
                Derivation::SwitchModules {
                    links: 1024,
                    tier: "leaf_spine",
                    ends_per_link: 2,
                    ports: 2048,
                    per_module: 2,
                }
                .to_string(),
                "1024 leaf_spine links × 2 switch end(s) = 2048 ports ÷ 2 per module".into(),
            ),
            (
                Derivation::NicModules {
                    nics: 1024,
                    per_nic: 1,
                    planes: 2,
                }
                .to_string(),
                "1024 NICs × 1 module(s) per NIC (2 plane link(s) per NIC)".into(),
            ),
            (
                Derivation::Cables {
                    links: 512,
                    tier: "node_leaf",
                    per_cable: 1,
                }
                .to_string(),
                "512 node_leaf links ÷ 1 link(s) per cable".into(),
            ),
        ];
        for (got, want) in cases {
            assert_eq!(got, want);
        }
        let json = serde_json::to_string(&Unit::Cable { links: 2 }).expect("json");
        assert_eq!(json, "\"cable (2 links)\"");
    }
}
