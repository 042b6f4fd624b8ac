//! Bill of materials: from a sized topology and a fabric profile to quantities of catalog SKUs.
//! Every quantity is derived from a link or port count, with its counting unit stated.
//!
//! Counting units (docs/sizing.md, "Cables and optics"):
//! - NIC: one per NIC (nodes × NICs per node);
//! - switch: one line per role (leaf, spine, core);
//! - NIC-side module: per NIC, enough modules for its links (one per plane link);
//! - switch-side module: per switch port end, `links_per_module` link ends per module
//!   (a twin-port 800G OSFP serves two 400G ports), and one more for each cage in use that a
//!   count per link end leaves out (a switch with an odd number of ports in use), so that every
//!   cage in use has its module; NVIDIA's reference BOM fills every cage (see docs/sizing.md);
//! - fibre: one per link; copper: one per `links_per_cable` links (no modules).

mod words;

pub use words::{Derivation, Unit};

use super::error::PlanError;
use crate::catalog::{Cable, Catalog, Label, Listed, Nic, Switch, Text, TierCabling, Transceiver};
use crate::cost::{BomLine, Category};
use crate::error_code::ErrorCode;
use crate::sizing::Topology;

/// What a BOM line says besides its figures (a sized fabric keeps these beside its lines, for
/// the cost model to borrow the lines alone).
#[derive(Debug, Clone, PartialEq)]
pub struct LineNotes {
    /// Counting unit of `quantity` (`NIC`, `leaf switch`, `module (2 link ends)`, `cable per
    /// link`…).
    pub unit: Unit,
    /// How the quantity was derived, with the numbers.
    pub derivation: Derivation,
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

/// One line of the BOM walk: the catalog entry, what it is in this fabric, how many and why.
pub struct Line<'e> {
    pub entry: &'e dyn Listed,
    pub category: Category,
    pub quantity: u64,
    /// What follows the entry's description in this fabric (` — leaf`, ` — NIC side`), or "".
    pub ending: &'static str,
    pub unit: Unit,
    pub derivation: Derivation,
}

/// Where the BOM walk puts each line: the plan's items, or a running capex total
/// (`cost::CapexTotal`: no copies) for the alternatives a plan only compares.
pub trait LineSink {
    fn line(&mut self, l: Line<'_>) -> Result<(), PlanError>;
}

/// The plan's BOM items; with `text: false` (a sweep point, which reads figures only) without
/// the catalog's descriptions and sources (shared text, but each share is counted).
struct Items {
    items: Vec<BomItem>,
    text: bool,
}

impl LineSink for Items {
    #[inline]
    fn line(&mut self, l: Line<'_>) -> Result<(), PlanError> {
        let e = l.entry;
        let (description, source) = if self.text {
            (
                Label::new(e.part().description.clone(), l.ending),
                e.provenance().source.clone(),
            )
        } else {
            Default::default()
        };
        self.items.push(BomItem {
            line: BomLine {
                sku: e.part().sku.clone(),
                vendor: e.part().vendor.clone(),
                category: l.category,
                description,
                quantity: l.quantity,
                list_unit_price_usd: e.listing().price_usd,
                power_w: e.power_w(),
            },
            notes: LineNotes {
                unit: l.unit,
                derivation: l.derivation,
                source,
                placeholder_price: e.provenance().is_placeholder(),
                placeholder_power: e.provenance().power_grade == Some(crate::catalog::Grade::P),
            },
        });
        Ok(())
    }
}

impl LineSink for crate::cost::CapexTotal<'_> {
    #[inline]
    fn line(&mut self, l: Line<'_>) -> Result<(), PlanError> {
        let e = l.entry;
        Ok(self.add(
            &e.part().sku,
            &e.part().vendor,
            l.category,
            e.listing().price_usd,
            l.quantity,
        )?)
    }
}

/// The tier names, in order.
pub const TIERS: [&str; 3] = ["node_leaf", "leaf_spine", "spine_core"];

/// What one plan's BOM needs besides the topology.
#[derive(Clone, Copy)]
pub struct BomContext<'a> {
    pub catalog: &'a Catalog,
    /// The leaves' model (and the spines' and cores', unless `spine` differs).
    pub switch: &'a Switch,
    /// The spines' model: `switch`, or the request's `topology.spine_sku`.
    pub spine: &'a Switch,
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

/// The NIC-side module for a NIC whose `planes` links leave through its cages, and how many
/// per NIC. The profile names a module per link speed; a NIC with fewer cages than links
/// (ConnectX-8 as 2 × 400G in one OSFP cage) needs a module carrying `planes / cages` links
/// (a twin-port module), and a NIC's cage takes only modules of its form factor (a QSFP112
/// module does not fit an OSFP cage). The replacement is the catalog's cheapest module of the
/// cage's form factor, the link speed, that many links, the profile module's medium and at
/// least its reach. Without one the profile's module is counted per link as before, and
/// `fits` is false (the plan warns).
pub struct NicSideModule<'a> {
    pub module: &'a Transceiver,
    pub per_nic: u64,
    pub fits: bool,
}

pub fn nic_side_module<'a>(
    catalog: &'a Catalog,
    nic: &Nic,
    profile_module: &'a Transceiver,
    planes: u32,
) -> NicSideModule<'a> {
    let cages = nic.ports.max(1);
    let links_per_cage = planes.max(1).div_ceil(cages);
    let form = nic
        .cage
        .as_deref()
        .unwrap_or(profile_module.form_factor.as_str());
    let fits = |t: &Transceiver| {
        t.form_factor.eq_ignore_ascii_case(form) && t.links_per_module == links_per_cage
    };
    let per_nic =
        |t: &Transceiver| ceil_div(u64::from(planes.max(1)), u64::from(t.links_per_module));
    if fits(profile_module) {
        return NicSideModule {
            module: profile_module,
            per_nic: per_nic(profile_module),
            fits: true,
        };
    }
    match module_like(catalog, profile_module, fits) {
        Some(t) => NicSideModule {
            module: t,
            per_nic: per_nic(t),
            fits: true,
        },
        None => NicSideModule {
            module: profile_module,
            per_nic: per_nic(profile_module),
            fits: false,
        },
    }
}

/// The catalog's cheapest module that `fits` (a cage's form factor and links) and does the
/// job of `like`: its link speed, lane speed and medium, and at least its reach.
fn module_like<'a>(
    catalog: &'a Catalog,
    like: &Transceiver,
    fits: impl Fn(&Transceiver) -> bool,
) -> Option<&'a Transceiver> {
    catalog
        .data
        .transceivers
        .iter()
        .filter(|t| {
            fits(t)
                && t.link_speed_gbps == like.link_speed_gbps
                && t.lane_gbps == like.lane_gbps
                && t.medium == like.medium
                && t.reach_m >= like.reach_m
        })
        .min_by(|a, b| {
            a.listing
                .price_usd
                .cmp(&b.listing.price_usd)
                .then_with(|| a.part.sku.cmp(&b.part.sku))
        })
}

/// The switch-side module of the leaves' faster uplink ports: the tier's module when it is of
/// their cages' form factor, else the catalog's cheapest one of that form factor with one link
/// that does its job (a QSFP-DD 400G DR4 where the profile's 400G module is a twin-port OSFP);
/// the tier's module when none does (the plan warns).
pub fn uplink_cage_module<'a>(
    ctx: &BomContext<'a>,
    topo: &Topology,
    tier_module: &'a Transceiver,
) -> &'a Transceiver {
    let Some(cage) = ctx
        .switch
        .uplink_ports
        .as_ref()
        .filter(|_| topo.uplink_speed_gbps.is_some())
        .map(|g| g.cage.as_str())
    else {
        return tier_module;
    };
    let fits =
        |t: &Transceiver| t.form_factor.eq_ignore_ascii_case(cage) && t.links_per_module == 1;
    if fits(tier_module) {
        return tier_module;
    }
    module_like(ctx.catalog, tier_module, fits).unwrap_or(tier_module)
}

/// Speed of one link of tier `i` (`TIERS` order): the leaves' uplinks' for leaf–spine when
/// they run faster, else the link speed.
pub fn tier_speed(topo: &Topology, i: usize) -> u32 {
    match (i, topo.uplink_speed_gbps) {
        (1, Some(up)) => up,
        _ => topo.link_speed_gbps,
    }
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
    detail: super::options::Detail,
) -> Result<Vec<BomItem>, PlanError> {
    // Room for a three-tier BOM (NICs, switches, optics and cables per tier, licences): one
    // allocation, no regrowth.
    let mut items = Items {
        items: Vec::with_capacity(16),
        text: detail == super::options::Detail::Full,
    };
    walk(topo, ctx, &mut items)?;
    Ok(items.items)
}

/// A design's capex and IT power as the BOM walk goes, without building the BOM.
struct DesignTotals<'a> {
    capex: crate::cost::CapexTotal<'a>,
    power_w: rust_decimal::Decimal,
}

impl LineSink for DesignTotals<'_> {
    #[inline]
    fn line(&mut self, l: Line<'_>) -> Result<(), PlanError> {
        self.power_w = l
            .entry
            .power_w()
            .checked_mul(rust_decimal::Decimal::from(l.quantity))
            .and_then(|w| self.power_w.checked_add(w))
            .ok_or_else(|| overflow("power"))?;
        self.capex.line(l)
    }
}

/// The capex of the BOM [`bill_of_materials`] would build, priced as the plan prices it
/// (`cost::line_prices`, `cost::capex`), and its IT power, Σ(quantity × power_w) in watts
/// (as `cost::opex` sums it), without building it.
pub fn capex_and_power_of(
    topo: &Topology,
    ctx: &BomContext<'_>,
    adj: &crate::cost::PriceAdjustments,
) -> Result<(rust_decimal::Decimal, rust_decimal::Decimal), PlanError> {
    let mut totals = DesignTotals {
        capex: crate::cost::CapexTotal::new(adj)?,
        power_w: rust_decimal::Decimal::ZERO,
    };
    walk(topo, ctx, &mut totals)?;
    Ok((totals.capex.total()?, totals.power_w))
}

/// What follows a description in each tier, in `TIERS` order: a cable's, and a switch-side
/// module's.
const TIER_ENDINGS: [&str; 3] = [" — node_leaf", " — leaf_spine", " — spine_core"];
const SWITCH_SIDE_ENDINGS: [&str; 3] = [
    " — node_leaf switch side",
    " — leaf_spine switch side",
    " — spine_core switch side",
];

/// Walks the topology's BOM lines into `out`.
fn walk(topo: &Topology, ctx: &BomContext<'_>, out: &mut impl LineSink) -> Result<(), PlanError> {
    let nics = nic_and_switch_lines(topo, ctx, out)?;
    let links = [
        topo.links.node_leaf,
        topo.links.leaf_spine,
        topo.links.spine_core,
    ];
    // Switch-side modules counted per link end, and whether every tier's module fills a cage
    // (then a cage in use holds exactly one module, and the cages counted per switch say how
    // many modules are needed in all).
    let per_cage = links_per_cage(ctx.switch, topo);
    // Leaf–spine links on a spine of another model: a cage of the leaves' uplink group holds
    // one; else as many as the leaf's and the spine's cages both hold.
    let up_per_cage = if topo.uplink_speed_gbps.is_some() {
        1
    } else {
        per_cage.min(links_per_cage(ctx.spine, topo))
    };
    // Each tier's switch-side module when it fills a cage (one module a cage in use): the
    // module, the tier's modules and those of one end.
    let mut filling: [Option<Filling<'_>>; 3] = [None; 3];
    for (i, &tier) in TIERS.iter().enumerate() {
        let (Some(&l), Some(cab), Some(&tier_ending), Some(&switch_side)) = (
            links.get(i),
            ctx.cabling.get(i),
            TIER_ENDINGS.get(i),
            SWITCH_SIDE_ENDINGS.get(i),
        ) else {
            continue;
        };
        if l == 0 {
            continue;
        }
        let node_side = i == 0;
        // Link ends on switches: one per node–leaf link, two per switch–switch link.
        let ends_per_link: u8 = if node_side { 1 } else { 2 };
        let switch_ends = l
            .checked_mul(u64::from(ends_per_link))
            .ok_or_else(|| overflow("ports"))?;
        let cable = ctx.catalog.cable(&cab.cable).ok_or_else(|| {
            PlanError::field(
                &format!("{}/{tier}/cable", ctx.pointer_for_cabling),
                ErrorCode::UnknownSku,
                format!("no cable '{}' in the catalog", cab.cable),
            )
        })?;
        let ends = match (&cab.switch_module, i) {
            (Some(m), 1) => leaf_spine_ends(topo, ctx, m, per_cage)?,
            _ => LeafSpineEnds::Shared,
        };
        if let LeafSpineEnds::Split(ends) = ends {
            ends.lines(l, out)?;
        } else if let Some(m) = &cab.switch_module {
            let ends = TierEnds {
                tier,
                links: l,
                ends_per_link,
                switch_ends,
                per_cage: if i == 1 { up_per_cage } else { per_cage },
                speed: tier_speed(topo, i),
            };
            let fills = switch_module_line(topo, ctx, &ends, m, switch_side, out)?;
            if let (Some(slot), Some(f)) = (filling.get_mut(i), fills) {
                *slot = Some(f);
            }
        }
        if node_side && let Some(m) = &cab.nic_module {
            nic_module_line(topo, ctx, nics, m, tier, out)?;
        }
        cable_line(topo, l, tier, cable, tier_ending, out)?;
    }
    shared_cages(topo, links, filling, out)
}

/// The NICs' line and each switch role's; the NICs counted.
fn nic_and_switch_lines(
    topo: &Topology,
    ctx: &BomContext<'_>,
    out: &mut impl LineSink,
) -> Result<u64, PlanError> {
    let nics = u64::from(topo.nodes)
        .checked_mul(u64::from(ctx.nics_per_node))
        .ok_or_else(|| overflow("NICs"))?;
    out.line(Line {
        entry: ctx.nic,
        category: Category::Nic,
        quantity: nics,
        ending: "",
        unit: Unit::Nic,
        derivation: Derivation::Nics {
            nodes: topo.nodes,
            nics_per_node: ctx.nics_per_node,
        },
    })?;
    for (role, ending, count, model) in [
        ("leaf", " — leaf", topo.leaf_switches, ctx.switch),
        ("spine", " — spine", topo.spine_switches, ctx.spine),
        ("core", " — core", topo.core_switches, ctx.switch),
    ] {
        if count > 0 {
            out.line(Line {
                entry: model,
                category: Category::Switch,
                quantity: count,
                ending,
                unit: Unit::Switch { role },
                derivation: Derivation::Switches {
                    count,
                    role,
                    planes: topo.planes,
                },
            })?;
            if let Some(slots) = &model.chassis {
                chassis_module_lines(topo, ctx, model, slots, count, out)?;
            }
        }
    }
    Ok(nics)
}

/// The modules of `chassis` chassis spines: line cards for the leaf–spine links each takes
/// (spread evenly, as sizing spreads them, each chassis' rounded up), and every chassis'
/// fabric modules and supervisors.
fn chassis_module_lines(
    topo: &Topology,
    ctx: &BomContext<'_>,
    model: &Switch,
    slots: &crate::catalog::ChassisSlots,
    chassis: u64,
    out: &mut impl LineSink,
) -> Result<(), PlanError> {
    let module = |sku: &str| {
        ctx.catalog.chassis_module(sku).ok_or_else(|| {
            PlanError::field(
                "/catalog",
                ErrorCode::UnknownSku,
                format!("no chassis module '{sku}' in the catalog"),
            )
        })
    };
    let card = module(&slots.line_card)?;
    let planes = u64::from(topo.planes.max(1));
    let breakout = u64::from(model.port_speed_gbps / tier_speed(topo, 1).max(1));
    let per_card = u64::from(card.ports).saturating_mul(breakout).max(1);
    let per_plane = |v: u64| v.checked_div(planes).unwrap_or(v);
    let cards = crate::sizing::line_cards(
        per_plane(topo.links.leaf_spine),
        per_plane(chassis),
        per_card,
    )
    .map_err(|_| overflow("line cards"))?
    .checked_mul(planes)
    .ok_or_else(|| overflow("line cards"))?;
    out.line(Line {
        entry: card,
        category: Category::Switch,
        quantity: cards,
        ending: " — spine line card",
        unit: Unit::ChassisModule { kind: "line card" },
        derivation: Derivation::LineCards {
            links: topo.links.leaf_spine,
            chassis,
            per_card,
        },
    })?;
    for (sku, each, kind, ending) in [
        (
            &slots.fabric_module,
            slots.fabric_modules,
            "fabric module",
            " — spine fabric module",
        ),
        (
            &slots.supervisor,
            slots.supervisors,
            "supervisor",
            " — spine supervisor",
        ),
    ] {
        if each > 0 {
            out.line(Line {
                entry: module(sku)?,
                category: Category::Switch,
                quantity: chassis
                    .checked_mul(u64::from(each))
                    .ok_or_else(|| overflow("chassis modules"))?,
                ending,
                unit: Unit::ChassisModule { kind },
                derivation: Derivation::PerChassis { chassis, each },
            })?;
        }
    }
    Ok(())
}

/// Leaf–spine links whose two ends take different modules: a spine of another model whose
/// cages (`cage`) do not take the leaf end's module (a chassis' QSFP-DD ports under leaves with
/// twin-port OSFP cages). Each end is counted on its own, its module serving at most its
/// cage's links.
struct SplitEnds<'a> {
    leaf: (&'a Transceiver, u64),
    spine: (&'a Transceiver, u64),
}

/// What the leaf–spine tier's two ends take.
enum LeafSpineEnds<'a> {
    /// One module serves both ends (one model, a spine without stated cages, or a module that
    /// fits them).
    Shared,
    /// Each end its own module.
    Split(SplitEnds<'a>),
    /// The spine states cages no catalog module doing the leaf end's job fits: the leaf end's
    /// module is counted at both ends (the plan warns).
    Unfit {
        cage: &'a str,
        module: &'a Transceiver,
    },
}

/// The two ends of the leaf–spine tier of module `sku` (`per_cage`: the leaf's links a cage).
fn leaf_spine_ends<'a>(
    topo: &Topology,
    ctx: &BomContext<'a>,
    sku: &str,
    per_cage: u64,
) -> Result<LeafSpineEnds<'a>, PlanError> {
    if ctx.spine.part.sku == ctx.switch.part.sku {
        return Ok(LeafSpineEnds::Shared);
    }
    let Some(cage) = ctx.spine.cage.as_deref() else {
        return Ok(LeafSpineEnds::Shared);
    };
    let speed = tier_speed(topo, 1);
    let tier_module = module(ctx, sku, "leaf_spine", "switch_module", speed)?;
    let leaf_end = uplink_cage_module(ctx, topo, tier_module);
    let leaf_per_cage = if topo.uplink_speed_gbps.is_some() {
        1
    } else {
        per_cage
    };
    let spine_per_cage = cage_links(ctx.spine, speed);
    let fits = |t: &Transceiver| {
        t.form_factor.eq_ignore_ascii_case(cage) && u64::from(t.links_per_module) == spine_per_cage
    };
    if fits(leaf_end) {
        return Ok(LeafSpineEnds::Shared);
    }
    Ok(match module_like(ctx.catalog, leaf_end, fits) {
        Some(spine_end) => LeafSpineEnds::Split(SplitEnds {
            leaf: (leaf_end, leaf_per_cage),
            spine: (spine_end, spine_per_cage),
        }),
        None => LeafSpineEnds::Unfit {
            cage,
            module: leaf_end,
        },
    })
}

/// The spine's cage and the leaf–spine module when a spine of another model states a cage no
/// catalog module doing that module's job fits (the BOM then counts the module at both ends).
pub fn spine_end_unfit(topo: &Topology, ctx: &BomContext<'_>) -> Option<(String, String)> {
    if topo.links.leaf_spine == 0 {
        return None;
    }
    let sku = ctx.cabling[1].switch_module.as_deref()?;
    match leaf_spine_ends(topo, ctx, sku, links_per_cage(ctx.switch, topo)).ok()? {
        LeafSpineEnds::Unfit { cage, module } => {
            Some((cage.to_string(), module.part.sku.to_string()))
        }
        _ => None,
    }
}

impl SplitEnds<'_> {
    /// A line for each end's modules over the tier's `links`.
    fn lines(&self, links: u64, out: &mut impl LineSink) -> Result<(), PlanError> {
        for ((t, per_cage), ending) in [
            (self.leaf, " — leaf_spine leaf side"),
            (self.spine, " — leaf_spine spine side"),
        ] {
            let per_module = u64::from(t.links_per_module).min(per_cage).max(1);
            let link_ends = u32::try_from(per_module).unwrap_or(t.links_per_module);
            out.line(Line {
                entry: t,
                category: Category::Optic,
                quantity: ceil_div(links, per_module),
                ending,
                unit: Unit::SwitchModule { link_ends },
                derivation: Derivation::SwitchModules {
                    links,
                    tier: "leaf_spine",
                    ends_per_link: 1,
                    ports: links,
                    per_module: link_ends,
                },
            })?;
        }
        Ok(())
    }
}

/// A tier's links and their ends on switches.
struct TierEnds {
    tier: &'static str,
    links: u64,
    ends_per_link: u8,
    switch_ends: u64,
    /// Links one switch cage carries.
    per_cage: u64,
    /// Speed of one link, Gb/s.
    speed: u32,
}

/// A tier's switch-side modules, counted per link end; the module where it fills a cage.
fn switch_module_line<'a>(
    topo: &Topology,
    ctx: &BomContext<'a>,
    ends: &TierEnds,
    sku: &str,
    switch_side: &'static str,
    out: &mut impl LineSink,
) -> Result<Option<Filling<'a>>, PlanError> {
    let t = module(ctx, sku, ends.tier, "switch_module", ends.speed)?;
    let t = if ends.tier == "leaf_spine" {
        uplink_cage_module(ctx, topo, t)
    } else {
        t
    };
    // A module serves at most the links of the cage it sits in (one carrying more links than
    // the cage is one a cage, its other links unused; the plan warns).
    let per_module = u64::from(t.links_per_module).min(ends.per_cage).max(1);
    let quantity = ceil_div(ends.switch_ends, per_module);
    let link_ends = u32::try_from(per_module).unwrap_or(t.links_per_module);
    let fills = (per_module == ends.per_cage).then(|| Filling {
        module: t,
        tier: quantity,
        one_end: ceil_div(ends.links, per_module),
        link_ends,
    });
    out.line(Line {
        entry: t,
        category: Category::Optic,
        quantity,
        ending: switch_side,
        unit: Unit::SwitchModule { link_ends },
        derivation: Derivation::SwitchModules {
            links: ends.links,
            tier: ends.tier,
            ends_per_link: ends.ends_per_link,
            ports: ends.switch_ends,
            per_module: link_ends,
        },
    })?;
    Ok(fills)
}

/// The NIC-side modules: each NIC carries `planes` links through its cages; a module cannot
/// span two NICs.
fn nic_module_line(
    topo: &Topology,
    ctx: &BomContext<'_>,
    nics: u64,
    sku: &str,
    tier: &'static str,
    out: &mut impl LineSink,
) -> Result<(), PlanError> {
    let profile_module = module(ctx, sku, tier, "nic_module", topo.link_speed_gbps)?;
    let NicSideModule {
        module: t, per_nic, ..
    } = nic_side_module(ctx.catalog, ctx.nic, profile_module, topo.planes);
    out.line(Line {
        entry: t,
        category: Category::Optic,
        quantity: nics
            .checked_mul(per_nic)
            .ok_or_else(|| overflow("modules"))?,
        ending: " — NIC side",
        unit: Unit::NicModule {
            links: t.links_per_module,
        },
        derivation: Derivation::NicModules {
            nics,
            per_nic,
            planes: topo.planes,
        },
    })
}

/// A tier's cables: a multi-link cable (twin DAC) cannot span two planes, so rounded up per
/// plane.
fn cable_line(
    topo: &Topology,
    links: u64,
    tier: &'static str,
    cable: &Cable,
    tier_ending: &'static str,
    out: &mut impl LineSink,
) -> Result<(), PlanError> {
    let planes = u64::from(topo.planes.max(1));
    let q = ceil_div(
        links.checked_div(planes).unwrap_or(links),
        u64::from(cable.links_per_cable),
    )
    .checked_mul(planes)
    .ok_or_else(|| overflow("cables"))?;
    out.line(Line {
        entry: cable,
        category: Category::Cable,
        quantity: q,
        ending: tier_ending,
        unit: Unit::Cable {
            links: cable.links_per_cable,
        },
        derivation: Derivation::Cables {
            links,
            tier,
            per_cable: cable.links_per_cable,
        },
    })
}

/// A tier's switch-side module where it fills a cage: the module, the tier's modules counted
/// per link end, and those of one of its ends.
#[derive(Clone, Copy)]
struct Filling<'e> {
    module: &'e Transceiver,
    tier: u64,
    one_end: u64,
    /// Link ends one module serves (the cage's links).
    link_ends: u32,
}

/// A switch with an odd number of ports in use (a spine of 33 links, a leaf of 31 node links
/// and 32 uplinks) has a cage with one link end, and that cage still takes a whole module,
/// which a count per link end leaves out: 1,056 H100 on InfiniBand uses 1,600 cages where link
/// ends ÷ 2 gave 1,584. One module a cage in use, the sizing's count (`switch_cages_used`,
/// ports of two tiers sharing a cage): the cages not counted are a line per switch role, of the
/// role's cages in use less the modules of its ends, of the module of the tier with the odd
/// count — a leaf's uplinks when a leaf has an odd number of them, else its node links; a
/// spine's leaf tier; a core's spine tier. A role any of whose tiers is copper or has a module
/// that does not fill a cage (copper takes cages without modules) is left as counted. At 4 SU
/// of the DGX SuperPOD this gives NVIDIA's 1,536 (RA-11333-001).
fn shared_cages<'e>(
    topo: &Topology,
    links: [u64; 3],
    filling: [Option<Filling<'e>>; 3],
    out: &mut impl LineSink,
) -> Result<(), PlanError> {
    // Each tier with links, if it fills cages (`None` inside: it does not, or is copper).
    let tier = |i: usize| {
        (links.get(i).copied().unwrap_or(0) > 0).then(|| filling.get(i).copied().flatten())
    };
    let (node, up, top) = (tier(0), tier(1), tier(2));
    let dual = topo.spine_switches == 0 && up.is_some();
    // Modules of a tier at one end, and at the other (its tier count less the first end's).
    let one = |t: Option<Option<Filling<'e>>>| t.flatten().map_or(0, |f| f.one_end);
    let other = |t: Option<Option<Filling<'e>>>| {
        t.flatten().map_or(0, |f| f.tier.saturating_sub(f.one_end))
    };
    let all = |ts: &[Option<Option<Filling<'e>>>]| ts.iter().all(|t| !matches!(t, Some(None)));
    let module = |t: Option<Option<Filling<'e>>>| t.flatten().map(|f| (f.module, f.link_ends));
    // The two switches of `dual_switch` joined by copper: the node links' modules fill cages
    // of their own on each switch, so a switch with an odd number of node links takes a
    // module for its last one (audit 26 F7: 3 servers of 2 NICs bought 3 modules for the 4
    // cages their 6 node links fill on the two switches).
    if dual
        && matches!(up, Some(None))
        && let Some(Some(f)) = node
    {
        let per_module = u64::from(f.link_ends.max(1));
        let a = u64::from(topo.leaf_downlinks);
        let b = topo.endpoints_per_plane.saturating_sub(a);
        let cages = (a.div_ceil(per_module) + b.div_ceil(per_module))
            .saturating_mul(u64::from(topo.planes.max(1)));
        let short = cages.saturating_sub(f.tier);
        if short > 0 {
            out.line(Line {
                entry: f.module,
                category: Category::Optic,
                quantity: short,
                ending: " — leaf switch side, cages with one link end in use",
                unit: Unit::SwitchModule {
                    link_ends: f.link_ends,
                },
                derivation: Derivation::SharedCages {
                    role: "leaf",
                    cages,
                    counted: f.tier,
                    shared: 0,
                },
            })?;
        }
        return Ok(());
    }
    let odd_uplinks = topo.leaf_uplinks % 2 == 1;
    let leaf_module = if node.is_none() || (odd_uplinks && up.is_some()) {
        module(up)
    } else {
        module(node)
    };
    let roles = [
        (
            "leaf",
            topo.ports.leaf_cages_used,
            one(node) + one(up) + if dual { other(up) } else { 0 },
            leaf_module.or(module(up)),
            all(&[node, up]),
            " — leaf switch side, cages with one link end in use",
        ),
        (
            "spine",
            topo.ports.spine_cages_used,
            if dual { 0 } else { other(up) } + one(top),
            module(up),
            all(&[up, top]),
            " — spine switch side, cages with one link end in use",
        ),
        (
            "core",
            topo.ports.core_cages_used,
            other(top),
            module(top),
            all(&[top]),
            " — core switch side, cages with one link end in use",
        ),
    ];
    // Where every role fills its cages, the lines make the total exactly the cages in use
    // (a cage two tiers share is one module; the per-role shortfalls, rounded apart, can add
    // up to more).
    let counted: u64 = [node, up, top]
        .iter()
        .map(|t| t.flatten().map_or(0, |f| f.tier))
        .sum();
    let mut left = roles
        .iter()
        .all(|r| r.4)
        .then(|| topo.ports.switch_cages_used.saturating_sub(counted));
    for (role, cages, counted, module, fills, ending) in roles {
        let short = cages.saturating_sub(counted);
        let quantity = match &mut left {
            Some(left) => {
                let q = short.min(*left);
                *left -= q;
                q
            }
            None => short,
        };
        if let (Some((t, link_ends)), true, true) = (module, fills, quantity > 0) {
            out.line(Line {
                entry: t,
                category: Category::Optic,
                quantity,
                ending,
                unit: Unit::SwitchModule { link_ends },
                derivation: Derivation::SharedCages {
                    role,
                    cages,
                    counted,
                    shared: short - quantity,
                },
            })?;
        }
    }
    Ok(())
}

/// Links one switch cage carries: ports per cage × the links a port is split into (2 on a
/// QM9700 at 400G, 4 at 200G).
pub fn links_per_cage(switch: &Switch, topo: &Topology) -> u64 {
    cage_links(switch, topo.link_speed_gbps)
}

/// Links of `speed` Gb/s one cage of `switch` carries: ports per cage × the links a port is
/// split into.
fn cage_links(switch: &Switch, speed: u32) -> u64 {
    u64::from(switch.ports_per_cage.max(1))
        .saturating_mul(u64::from(switch.port_speed_gbps / speed.max(1)))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The static endings are the tier names they used to be formatted from.
    #[test]
    fn endings_name_their_tiers() {
        for (i, tier) in TIERS.iter().enumerate() {
            assert_eq!(TIER_ENDINGS.get(i), Some(&format!(" — {tier}").as_str()));
            assert_eq!(
                SWITCH_SIDE_ENDINGS.get(i),
                Some(&format!(" — {tier} switch side").as_str())
            );
        }
    }
}
