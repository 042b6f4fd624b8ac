//! Bill of materials: from a sized topology and a fabric profile to quantities of catalog SKUs.
//! Every quantity is derived from a link or port count, with its counting unit stated.
//!
//! Counting units (docs/sizing.md, "Cables and optics"):
//! - NIC: one per NIC (nodes × NICs per node);
//! - switch: one line per role (leaf, spine, core);
//! - NIC-side module: per NIC, enough modules for its links (one per plane link);
//! - switch-side module: per switch port end, `links_per_module` link ends per module
//!   (a twin-port 800G OSFP serves two 400G ports) — counted per link end, where NVIDIA's
//!   reference BOM fills every cage (see docs/sizing.md);
//! - fibre: one per link; copper: one per `links_per_cable` links (no modules).

use super::PlanError;
use crate::catalog::{Catalog, Listed, Nic, Switch, Text, TierCabling, Transceiver};
use crate::cost::{BomLine, Category};
use crate::error_code::ErrorCode;
use crate::sizing::Topology;

/// What a BOM line says besides its figures (a sized fabric keeps these beside its lines, for
/// the cost model to borrow the lines alone).
#[derive(Debug, Clone, PartialEq)]
pub struct LineNotes {
    /// Counting unit of `quantity` (`NIC`, `switch`, `module (2 links)`, `fibre run per link`…).
    pub unit: String,
    /// How the quantity was derived, with the numbers.
    pub derivation: String,
    /// The catalog entry's source.
    pub source: Text,
    /// True when the catalog price is a placeholder (grade P).
    pub placeholder_price: bool,
    /// True when the catalog power figure is a placeholder.
    pub placeholder_power: bool,
}

/// A BOM line with where its quantity and price come from.
#[derive(Debug, Clone, PartialEq)]
pub struct BomItem {
    pub line: BomLine,
    pub notes: LineNotes,
}

impl BomItem {
    /// The line and its notes.
    pub fn split(self) -> (BomLine, LineNotes) {
        (self.line, self.notes)
    }
}

/// Where the BOM walk puts each line: the plan's items (with their text), or a running capex
/// total (`cost::CapexTotal`: no text, no copies) for the alternatives a plan only compares.
pub trait LineSink {
    fn line(
        &mut self,
        e: &dyn Listed,
        category: Category,
        quantity: u64,
        words: impl FnOnce() -> (Text, String, String),
    ) -> Result<(), PlanError>;
}

/// The plan's BOM items; with `text: false` (a sweep point, which reads figures only) without
/// descriptions, units, derivations or sources.
struct Items {
    items: Vec<BomItem>,
    text: bool,
}

impl LineSink for Items {
    fn line(
        &mut self,
        e: &dyn Listed,
        category: Category,
        quantity: u64,
        words: impl FnOnce() -> (Text, String, String),
    ) -> Result<(), PlanError> {
        let (description, unit, derivation, source) = if self.text {
            let (description, unit, derivation) = words();
            (description, unit, derivation, e.provenance().source.clone())
        } else {
            Default::default()
        };
        self.items.push(BomItem {
            line: BomLine {
                sku: e.part().sku.clone(),
                vendor: e.part().vendor.clone(),
                category,
                description,
                quantity,
                list_unit_price_usd: e.listing().price_usd,
                power_w: e.power_w(),
            },
            notes: LineNotes {
                unit,
                derivation,
                source,
                placeholder_price: e.provenance().is_placeholder(),
                placeholder_power: e.provenance().power_grade == Some(crate::catalog::Grade::P),
            },
        });
        Ok(())
    }
}

impl LineSink for crate::cost::CapexTotal<'_> {
    fn line(
        &mut self,
        e: &dyn Listed,
        category: Category,
        quantity: u64,
        _words: impl FnOnce() -> (Text, String, String),
    ) -> Result<(), PlanError> {
        Ok(self.add(
            &e.part().sku,
            &e.part().vendor,
            category,
            e.listing().price_usd,
            quantity,
        )?)
    }
}

/// The tier names, in order.
pub const TIERS: [&str; 3] = ["node_leaf", "leaf_spine", "spine_core"];

/// What one plan's BOM needs besides the topology.
#[derive(Clone, Copy)]
pub struct BomContext<'a> {
    pub catalog: &'a Catalog,
    pub switch: &'a Switch,
    pub nic: &'a Nic,
    /// Cabling per tier (profile choice or the request's override), in `TIERS` order.
    pub cabling: [&'a TierCabling; 3],
    pub nics_per_node: u32,
    pub pointer_for_cabling: &'a str,
}

/// Looks up a transceiver for a tier (`which`: `switch_module` or `nic_module`) and checks it
/// serves links of the tier's speed; errors point at the tier's cabling.
fn module<'a>(
    ctx: &BomContext<'a>,
    sku: &str,
    tier: &str,
    which: &str,
    link_speed_gbps: u32,
) -> Result<&'a Transceiver, PlanError> {
    let pointer = || format!("{}/{tier}/{which}", ctx.pointer_for_cabling);
    let t = ctx.catalog.transceiver(sku).ok_or_else(|| {
        PlanError::field(
            &pointer(),
            ErrorCode::UnknownSku,
            format!("no transceiver '{sku}' in the catalog"),
        )
    })?;
    if t.link_speed_gbps != link_speed_gbps {
        return Err(PlanError::field(
            &pointer(),
            ErrorCode::WrongLinkSpeed,
            format!(
                "transceiver '{sku}' serves {} Gb/s links; this fabric's links run at {link_speed_gbps} Gb/s",
                t.link_speed_gbps
            ),
        ));
    }
    Ok(t)
}

fn ceil_div(a: u64, b: u64) -> u64 {
    if b == 0 { a } else { a.div_ceil(b) }
}

fn overflow(what: &str) -> PlanError {
    PlanError::field(
        "/gpus",
        ErrorCode::TooLarge,
        format!("the cluster is too large to count {what}"),
    )
}

/// Builds the BOM for one fabric.
pub fn bill_of_materials(
    topo: &Topology,
    ctx: &BomContext<'_>,
    detail: super::Detail,
) -> Result<Vec<BomItem>, PlanError> {
    // Room for a three-tier BOM (NICs, switches, optics and cables per tier, licences): one
    // allocation, no regrowth.
    let mut items = Items {
        items: Vec::with_capacity(16),
        text: detail == super::Detail::Full,
    };
    walk(topo, ctx, &mut items)?;
    Ok(items.items)
}

/// The capex of the BOM [`bill_of_materials`] would build, priced as the plan prices it
/// (`cost::line_prices`, `cost::capex`), without building it.
pub fn capex_of(
    topo: &Topology,
    ctx: &BomContext<'_>,
    adj: &crate::cost::PriceAdjustments,
) -> Result<rust_decimal::Decimal, PlanError> {
    let mut total = crate::cost::CapexTotal::new(adj)?;
    walk(topo, ctx, &mut total)?;
    Ok(total.total()?)
}

/// Walks the topology's BOM lines into `out`.
fn walk(topo: &Topology, ctx: &BomContext<'_>, out: &mut impl LineSink) -> Result<(), PlanError> {
    let nics = u64::from(topo.nodes)
        .checked_mul(u64::from(ctx.nics_per_node))
        .ok_or_else(|| overflow("NICs"))?;
    let nic = ctx.nic;
    out.line(nic, Category::Nic, nics, || {
        (
            nic.part.description.clone(),
            "NIC".into(),
            format!("{} nodes × {} NICs per node", topo.nodes, ctx.nics_per_node),
        )
    })?;
    let sw = ctx.switch;
    for (role, count) in [
        ("leaf", topo.leaf_switches),
        ("spine", topo.spine_switches),
        ("core", topo.core_switches),
    ] {
        if count > 0 {
            out.line(sw, Category::Switch, count, || {
                (
                    format!("{} — {role}", sw.part.description).into(),
                    format!("{role} switch"),
                    format!("{count} {role} switches across {} plane(s)", topo.planes),
                )
            })?;
        }
    }

    let links = [
        topo.links.node_leaf,
        topo.links.leaf_spine,
        topo.links.spine_core,
    ];
    for (i, tier) in TIERS.iter().enumerate() {
        let (Some(&l), Some(cab)) = (links.get(i), ctx.cabling.get(i)) else {
            continue;
        };
        if l == 0 {
            continue;
        }
        let node_side = i == 0;
        // Link ends on switches: one per node–leaf link, two per switch–switch link.
        let switch_ends = if node_side {
            l
        } else {
            l.checked_mul(2).ok_or_else(|| overflow("ports"))?
        };
        let cable = ctx.catalog.cable(&cab.cable).ok_or_else(|| {
            PlanError::field(
                &format!("{}/{tier}/cable", ctx.pointer_for_cabling),
                ErrorCode::UnknownSku,
                format!("no cable '{}' in the catalog", cab.cable),
            )
        })?;
        if let Some(m) = &cab.switch_module {
            let t = module(ctx, m, tier, "switch_module", topo.link_speed_gbps)?;
            let q = ceil_div(switch_ends, u64::from(t.links_per_module));
            out.line(t, Category::Optic, q, || {
                (
                    format!("{} — {tier} switch side", t.part.description).into(),
                    format!("module ({} link ends)", t.links_per_module),
                    format!(
                        "{l} {tier} links × {} switch end(s) = {switch_ends} ports ÷ {} per module",
                        if node_side { 1 } else { 2 },
                        t.links_per_module
                    ),
                )
            })?;
        }
        if node_side && let Some(m) = &cab.nic_module {
            let t = module(ctx, m, tier, "nic_module", topo.link_speed_gbps)?;
            // Each NIC carries `planes` links; a module cannot span two NICs.
            let per_nic = ceil_div(u64::from(topo.planes), u64::from(t.links_per_module));
            let q = nics
                .checked_mul(per_nic)
                .ok_or_else(|| overflow("modules"))?;
            out.line(t, Category::Optic, q, || {
                (
                    format!("{} — NIC side", t.part.description).into(),
                    format!("module ({} link(s))", t.links_per_module),
                    format!(
                        "{nics} NICs × {per_nic} module(s) per NIC ({} plane link(s) per NIC)",
                        topo.planes
                    ),
                )
            })?;
        }
        // A multi-link cable (twin DAC) cannot span two planes: round up per plane.
        let planes = u64::from(topo.planes.max(1));
        let q = ceil_div(
            l.checked_div(planes).unwrap_or(l),
            u64::from(cable.links_per_cable),
        )
        .checked_mul(planes)
        .ok_or_else(|| overflow("cables"))?;
        out.line(cable, Category::Cable, q, || {
            (
                format!("{} — {tier}", cable.part.description).into(),
                if cable.links_per_cable == 1 {
                    "cable per link".into()
                } else {
                    format!("cable ({} links)", cable.links_per_cable)
                },
                format!(
                    "{l} {tier} links ÷ {} link(s) per cable",
                    cable.links_per_cable
                ),
            )
        })?;
    }
    Ok(())
}
