//! The parts a fabric is built of for a request: its catalog profile, NIC, planes, switch and
//! the cabling of each tier, or why the fabric cannot be built.

use super::{Sizing, infeasible};
use crate::catalog::{Cabling, FabricProfile, Nic, Switch, TierCabling};
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
use crate::plan::error::PlanError;
use crate::plan::inputs;
use crate::words::DecimalText;

/// A fabric's catalog parts for the request.
#[derive(Clone, Copy)]
pub(super) struct Parts<'a> {
    pub profile: &'a FabricProfile,
    pub nic: &'a Nic,
    pub switch: &'a Switch,
    /// The spines' model when the request names one (`topology.spine_sku`).
    pub spine: Option<&'a Switch>,
    /// The catalog's modular chassis for the `chassis_spine` design: of the fabric, running
    /// the link speed, the most ports at it (ties: the first listed); none when the request
    /// names a spine.
    pub chassis: Option<&'a Switch>,
    pub planes: u32,
    /// Gb/s of one link: the NIC's speed over the planes.
    pub link_speed: u32,
    /// Gb/s of one leaf–spine link: the leaf's faster uplink ports' under a named spine, else
    /// the link speed.
    pub uplink_speed: u32,
    /// The profile's cabling at that link speed, if it has one.
    pub profile_cabling: Option<&'a Cabling>,
}

impl Parts<'_> {
    /// The leaves' faster uplink ports, when a named spine takes them.
    pub fn uplink_group(&self) -> Option<crate::sizing::UplinkGroup> {
        let g = self.switch.uplink_ports.as_ref()?;
        (self.spine.is_some() && g.speed_gbps > self.link_speed).then_some(
            crate::sizing::UplinkGroup {
                ports: g.ports,
                speed_gbps: g.speed_gbps,
            },
        )
    }
}

/// The parts of `fabric` for the request; `Ok(Err(..))`: the fabric cannot be built (no
/// profile, NIC or switch for the speeds asked), an error for a single-fabric request.
pub(super) fn choose<'a>(
    r: &'a inputs::Resolved,
    fabric: Fabric,
) -> Result<Result<Parts<'a>, Sizing>, PlanError> {
    let catalog = &r.catalog;
    let Some(profile) = catalog.profile(fabric) else {
        return Ok(Err(infeasible(
            fabric,
            PlanError::field(
                "/fabrics",
                ErrorCode::NoProfile,
                format!(
                    "catalog '{}' has no {} profile",
                    catalog.id(),
                    fabric.as_str()
                ),
            ),
            Vec::new(),
        )));
    };
    let nic = match nic(r, fabric, profile)? {
        Ok(n) => n,
        Err(s) => return Ok(Err(s)),
    };
    let planes = r
        .planes
        .unwrap_or_else(|| inputs::default_planes(Some(nic), fabric, r.nic_speed_gbps));
    let link_speed = r.nic_speed_gbps / planes.max(1);
    if let Some(max) = nic.ethernet_max_link_gbps
        && fabric.is_ethernet()
        && link_speed > max
    {
        return Ok(Err(link_too_fast(r, fabric, nic, planes, max, link_speed)));
    }
    let switch = match switch(r, fabric, profile, planes, link_speed)? {
        Ok(s) => s,
        Err(s) => return Ok(Err(s)),
    };
    let spine = match r.spine_sku.as_deref() {
        None => None,
        Some(sku) => Some(r.catalog.switch(sku).ok_or_else(|| {
            PlanError::field(
                "/topology/spine_sku",
                ErrorCode::UnknownSku,
                format!("no switch '{sku}'"),
            )
        })?),
    };
    let uplink_speed = match (spine, &switch.uplink_ports) {
        (Some(_), Some(g)) if g.speed_gbps > link_speed => g.speed_gbps,
        _ => link_speed,
    };
    if let Some(sp) = spine
        && !runs_links_of(sp, uplink_speed)
    {
        return Ok(Err(spine_too_slow(fabric, switch, sp, uplink_speed)));
    }
    let chassis = if spine.is_some() {
        None
    } else {
        largest_chassis(r, fabric, link_speed)
    };
    Ok(Ok(Parts {
        profile,
        nic,
        switch,
        spine,
        chassis,
        planes,
        link_speed,
        uplink_speed,
        profile_cabling: profile
            .cabling
            .iter()
            .find(|c| c.link_speed_gbps == link_speed),
    }))
}

/// The server's own NIC where the plan uses one (`Resolved::nic_on_board`) and it runs this
/// fabric; else the profile's add-in card at the speed asked.
fn nic<'a>(
    r: &'a inputs::Resolved,
    fabric: Fabric,
    profile: &'a FabricProfile,
) -> Result<Result<&'a Nic, Sizing>, PlanError> {
    let catalog = &r.catalog;
    let on_board = r.nic_on_board.as_deref().filter(|sku| {
        catalog
            .nic(sku)
            .is_some_and(|n| n.fabrics.contains(&fabric))
    });
    // The request's NIC (checked to run every fabric asked), else the server's own, else the
    // profile's.
    let named = r.nic_sku.as_deref();
    let nic_sku = match named.or(on_board).or_else(|| {
        profile
            .nic_by_speed
            .get(DecimalText::new(r.nic_speed_gbps).as_str())
            .map(String::as_str)
    }) {
        Some(n) => n,
        None => {
            return Ok(Err(infeasible(
                fabric,
                PlanError::field(
                    "/nic_speed_gbps",
                    ErrorCode::NoNicForSpeed,
                    format!(
                        "{}: the profile has no {} Gb/s NIC",
                        fabric.as_str(),
                        r.nic_speed_gbps
                    ),
                ),
                vec![format!(
                    "a NIC speed the profile lists: {}",
                    profile
                        .nic_by_speed
                        .keys()
                        .cloned()
                        .collect::<Vec<_>>()
                        .join(", ")
                )],
            )));
        }
    };
    catalog.nic(nic_sku).map(Ok).ok_or_else(|| {
        PlanError::field(
            "/nic_speed_gbps",
            ErrorCode::UnknownSku,
            format!("no NIC '{nic_sku}'"),
        )
    })
}

/// An Ethernet NIC whose links at the planes asked are faster than it runs.
fn link_too_fast(
    r: &inputs::Resolved,
    fabric: Fabric,
    nic: &Nic,
    planes: u32,
    max: u32,
    link_speed: u32,
) -> Sizing {
    infeasible(
        fabric,
        PlanError::field(
            "/topology/planes",
            ErrorCode::NicLinkTooFast,
            format!(
                "{}: the {} NIC runs Ethernet links of at most {max} Gb/s; {planes} plane(s) of a {} Gb/s NIC are {link_speed} Gb/s links",
                fabric.as_str(),
                nic.part.sku,
                r.nic_speed_gbps
            ),
        ),
        vec![format!(
            "run {} planes of {max}G (topology.planes = {}), or leave topology.planes out",
            r.nic_speed_gbps / max,
            r.nic_speed_gbps / max
        )],
    )
}

/// The request's switch, else the profile's for the link speed.
fn switch<'a>(
    r: &'a inputs::Resolved,
    fabric: Fabric,
    profile: &'a FabricProfile,
    planes: u32,
    link_speed: u32,
) -> Result<Result<&'a Switch, Sizing>, PlanError> {
    let switch_sku: &str = match &r.switch_sku {
        Some(s) => s,
        None => match profile
            .switch_by_link_speed
            .get(DecimalText::new(link_speed).as_str())
        {
            Some(s) => s,
            None => {
                return Ok(Err(no_switch_for_speed(
                    r, fabric, profile, planes, link_speed,
                )));
            }
        },
    };
    r.catalog.switch(switch_sku).map(Ok).ok_or_else(|| {
        PlanError::field(
            "/topology/switch_sku",
            ErrorCode::UnknownSku,
            format!("no switch '{switch_sku}'"),
        )
    })
}

/// The catalog's modular chassis for `fabric` that runs `link_speed` links, the most ports at
/// that speed (ties: the first listed).
fn largest_chassis(r: &inputs::Resolved, fabric: Fabric, link_speed: u32) -> Option<&Switch> {
    let ports = |s: &Switch| {
        u64::from(s.ports) * u64::from(s.port_speed_gbps.checked_div(link_speed).unwrap_or(0))
    };
    r.catalog
        .data
        .switches
        .iter()
        .filter(|s| {
            s.chassis.is_some() && s.fabrics.contains(&fabric) && runs_links_of(s, link_speed)
        })
        .fold(None, |best: Option<&Switch>, s| match best {
            Some(b) if ports(b) >= ports(s) => Some(b),
            _ => Some(s),
        })
}

/// Whether `sw` runs links of `speed` Gb/s: a speed it lists that divides its port speed.
fn runs_links_of(sw: &Switch, speed: u32) -> bool {
    sw.link_speeds_gbps.contains(&speed) && speed > 0 && sw.port_speed_gbps.is_multiple_of(speed)
}

/// The named spine does not run the leaves' uplinks.
fn spine_too_slow(fabric: Fabric, leaf: &Switch, spine: &Switch, speed: u32) -> Sizing {
    let links: Vec<String> = spine
        .link_speeds_gbps
        .iter()
        .map(|s| format!("{s}G"))
        .collect();
    infeasible(
        fabric,
        PlanError::field(
            "/topology/spine_sku",
            ErrorCode::UnsupportedLinkSpeed,
            format!(
                "{}: spine '{}' runs {} links; the leaves ('{}') go up at {speed} Gb/s",
                fabric.as_str(),
                spine.part.sku,
                links.join(", "),
                leaf.part.sku
            ),
        ),
        Vec::new(),
    )
}

/// The planes the request chose (or the NIC's speed) split the NIC into links no switch of
/// the profile runs: the splits that would work.
fn no_switch_for_speed(
    r: &inputs::Resolved,
    fabric: Fabric,
    profile: &FabricProfile,
    planes: u32,
    link_speed: u32,
) -> Sizing {
    let at = if r.planes.is_some() {
        "/topology/planes"
    } else {
        "/nic_speed_gbps"
    };
    let e = PlanError::field(
        at,
        ErrorCode::NoSwitchForSpeed,
        format!(
            "{}: the profile has no switch for {link_speed} Gb/s links ({} Gb/s NIC over {} plane(s)); it has: {}",
            fabric.as_str(),
            r.nic_speed_gbps,
            planes,
            profile
                .switch_by_link_speed
                .keys()
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        ),
    );
    let hint = profile
        .switch_by_link_speed
        .keys()
        .filter_map(|k| k.parse::<u32>().ok())
        .filter(|&l| l > 0 && r.nic_speed_gbps.is_multiple_of(l))
        .map(|l| {
            format!(
                "run {} plane(s) of {l}G (topology.planes = {})",
                r.nic_speed_gbps / l,
                r.nic_speed_gbps / l
            )
        })
        .collect();
    infeasible(fabric, e, hint)
}

/// Each tier's cabling: the request's, else the profile's at the link speed (borrowed from
/// either: a sweep point copies no cabling text).
pub(super) fn cabling<'a>(
    r: &'a inputs::Resolved,
    fabric: Fabric,
    parts: &Parts<'a>,
) -> Result<[&'a TierCabling; 3], PlanError> {
    let link_speed = parts.link_speed;
    let pick = |over: &'a Option<TierCabling>,
                from_profile: Option<&'a TierCabling>,
                tier: &str|
     -> Result<&'a TierCabling, PlanError> {
        over.as_ref().or(from_profile).ok_or_else(|| {
            PlanError::field(
                "/nic_speed_gbps",
                ErrorCode::NoCablingForSpeed,
                format!(
                    "{}: the profile has no {tier} cabling for {link_speed} Gb/s links; give topology.cabling.{tier}",
                    fabric.as_str(),
                ),
            )
        })
    };
    let profile = parts.profile_cabling;
    // Leaf–spine links at the uplinks' speed take the profile's cabling at that speed.
    let up_profile = if parts.uplink_speed == link_speed {
        profile
    } else {
        parts
            .profile
            .cabling
            .iter()
            .find(|c| c.link_speed_gbps == parts.uplink_speed)
    };
    Ok([
        pick(
            &r.cabling.node_leaf,
            profile.map(|c| &c.node_leaf),
            "node_leaf",
        )?,
        pick(
            &r.cabling.leaf_spine,
            up_profile.map(|c| &c.leaf_spine),
            "leaf_spine",
        )?,
        pick(
            &r.cabling.spine_core,
            profile.map(|c| &c.spine_core),
            "spine_core",
        )?,
    ])
}
