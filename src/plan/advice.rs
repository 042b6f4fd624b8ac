//! Advice that takes other plans to give: price adjustments that change nothing, a price at
//! which another design wins, and a cheaper fabric at a slight oversubscription. Each builds
//! figures plans of variants of the request (never checking their own advice).

use rust_decimal::Decimal;

use super::error::PlanError;
use super::output::Plan;
use super::request::{self, PlanRequest};
use super::size::Prepared;
use super::size::SizedFabric;
use crate::cost;
use crate::fabric::Fabric;
use crate::sizing::{Design, Topology};

/// The figures plan of a variant of the request: the pipeline's, which gives no advice of its
/// own (passed in, so that advice does not call back into the pipeline that calls it).
pub(crate) type Figures<'f> = &'f dyn Fn(&PlanRequest) -> Result<Plan, PlanError>;

/// Price adjustments no line of the plan's chosen designs prices with: an override of a SKU
/// none buys, a discount of a vendor or a category none of whose lines is priced by it (every
/// such line overridden, or none bought). Candidates only: a design that lost may buy the part,
/// and the adjustment may be what made it lose ([`confirm_unused`] decides).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct UnusedAdjustments {
    overrides: Vec<String>,
    vendors: Vec<String>,
    categories: Vec<cost::Category>,
}

/// What a price adjustment names: a SKU (an override, a list price), a vendor or a category
/// (a discount).
#[derive(Debug, Clone, Copy)]
pub(crate) enum PriceKey<'a> {
    Sku(&'a str),
    Vendor(&'a str),
    Category(cost::Category),
}

impl PriceKey<'_> {
    /// Why nothing in a plan is priced by it, in the words of its warnings.
    pub(crate) fn unpriced_words(self) -> String {
        match self {
            PriceKey::Sku(sku) => format!("no fabric in this plan buys {sku}"),
            PriceKey::Vendor(v) => format!(
                "no part of this plan is priced by this discount (none bought from {v}, or each overridden)"
            ),
            PriceKey::Category(c) => format!(
                "no part of this plan is priced by this discount (no {} bought, or each overridden)",
                c.as_str()
            ),
        }
    }
}

/// Whether a line of the sized fabrics' chosen designs is priced by `key`: one of its SKU for
/// a SKU; for a discount, one of its vendor or category that `adj` does not override (an
/// override is a net price, no discount applies on top).
pub(crate) fn priced_by(
    sized: &[std::sync::Arc<SizedFabric>],
    adj: &cost::PriceAdjustments,
    key: PriceKey<'_>,
) -> bool {
    let mut lines = sized.iter().flat_map(|s| s.lines.iter());
    let discounted = |l: &cost::BomLine| !adj.overrides.contains_key(l.sku.as_str());
    match key {
        PriceKey::Sku(sku) => lines.any(|l| l.sku.as_str() == sku),
        PriceKey::Vendor(v) => lines.any(|l| l.vendor.as_str() == v && discounted(l)),
        PriceKey::Category(c) => lines.any(|l| l.category == c && discounted(l)),
    }
}

impl UnusedAdjustments {
    pub(super) fn of(adj: &cost::PriceAdjustments, sized: &[std::sync::Arc<SizedFabric>]) -> Self {
        let unused = |key| !priced_by(sized, adj, key);
        UnusedAdjustments {
            overrides: adj
                .overrides
                .keys()
                .filter(|sku| unused(PriceKey::Sku(sku)))
                .cloned()
                .collect(),
            vendors: adj
                .vendor_discounts
                .keys()
                .filter(|v| unused(PriceKey::Vendor(v)))
                .cloned()
                .collect(),
            categories: adj
                .category_discounts
                .keys()
                .filter(|c| unused(PriceKey::Category(**c)))
                .copied()
                .collect(),
        }
    }

    pub(super) fn is_empty(&self) -> bool {
        self.overrides.is_empty() && self.vendors.is_empty() && self.categories.is_empty()
    }

    /// The request without these adjustments and without an analysis (its figures only).
    fn removed_from(&self, req: &PlanRequest) -> PlanRequest {
        let mut out = PlanRequest {
            uncertainty: None,
            ..req.clone()
        };
        if let Some(prices) = out.prices.as_mut() {
            if let Some(o) = prices.overrides.as_mut() {
                o.retain(|sku, _| !self.overrides.contains(sku));
            }
            if let Some(d) = prices.discounts.as_mut() {
                if let Some(v) = d.vendor.as_mut() {
                    v.retain(|vendor, _| !self.vendors.contains(vendor));
                }
                if let Some(c) = d.category.as_mut() {
                    c.retain(|category, _| !self.categories.contains(category));
                }
            }
        }
        out
    }

    /// One line an adjustment: why it prices nothing, and that it changes nothing — with
    /// others named, together with them (removing them all gives the same plan, removing one
    /// alone may not: a $300 quote for an optic only an unchosen design buys can be offset by
    /// a $5,000 quote for another, audit 24 F3).
    fn warnings(&self) -> Vec<String> {
        let n = self.overrides.len() + self.vendors.len() + self.categories.len();
        let tail = |what: &str| {
            if n == 1 {
                format!("the {what} changes nothing")
            } else {
                format!(
                    "together with the other {} adjustment(s) named so, the {what} changes nothing (removing them all gives the same plan; removing one alone may not)",
                    n - 1
                )
            }
        };
        let overrides = self.overrides.iter().map(|sku| {
            let key = PriceKey::Sku(sku);
            (format!("prices.overrides.{sku}"), key, "override")
        });
        let vendors = self.vendors.iter().map(|v| {
            let key = PriceKey::Vendor(v);
            (format!("prices.discounts.vendor.{v}"), key, "discount")
        });
        let categories = self.categories.iter().map(|c| {
            let key = PriceKey::Category(*c);
            (
                format!("prices.discounts.category.{}", c.as_str()),
                key,
                "discount",
            )
        });
        overrides
            .chain(vendors)
            .chain(categories)
            .map(|(name, key, what)| format!("{name}: {}; {}", key.unpriced_words(), tail(what)))
            .collect()
    }
}

/// The candidates that truly change nothing: a set whose removal, all together, leaves every
/// fabric's design and total as they are (an override of a part only a losing design buys can
/// be what made it lose: a $700 quote for a top-of-rack DAC moved RoCE from `tor_copper` to
/// `su_clos`, audit 21 F1; two quotes can each keep a design out alone, so neither is harmless
/// without the other, audit 23 F1). All at once; else one at a time, each kept only if removing
/// it with those kept so far still changes nothing, up to [`MAX_UNUSED_CHECKS`] plans (past
/// them the rest is not named). A plan with no candidate (every plan without price
/// adjustments) builds nothing more.
pub(super) fn confirm_unused(
    candidates: UnusedAdjustments,
    req: &PlanRequest,
    plan: &Plan,
    figures: Figures<'_>,
) -> Vec<String> {
    let same = |without: &UnusedAdjustments| {
        let Ok(other) = figures(&without.removed_from(req)) else {
            return false;
        };
        other.fabrics.len() == plan.fabrics.len()
            && other.fabrics.iter().zip(&plan.fabrics).all(|(a, b)| {
                a.fabric == b.fabric
                    && a.total_cost_usd == b.total_cost_usd
                    && a.topology.as_ref().map(|t| t.design)
                        == b.topology.as_ref().map(|t| t.design)
            })
    };
    if same(&candidates) {
        return candidates.warnings();
    }
    let mut kept = UnusedAdjustments::default();
    let mut checks = 1;
    let mut try_with = |add: &dyn Fn(&mut UnusedAdjustments)| {
        if checks >= MAX_UNUSED_CHECKS {
            return;
        }
        checks += 1;
        let mut with = kept.clone();
        add(&mut with);
        if same(&with) {
            kept = with;
        }
    };
    for sku in &candidates.overrides {
        try_with(&|u| u.overrides.push(sku.clone()));
    }
    for v in &candidates.vendors {
        try_with(&|u| u.vendors.push(v.clone()));
    }
    for c in &candidates.categories {
        try_with(&|u| u.categories.push(*c));
    }
    kept.warnings()
}

/// A price a plan is made at by [`design_moves_at`]: an override, a list price (bought at it
/// less the plan's discounts), a vendor's or a category's discount.
#[derive(Debug, Clone, Copy)]
pub(crate) enum PriceSet<'a> {
    Override(&'a str),
    List(&'a str),
    Vendor(&'a str),
    Category(cost::Category),
}

impl<'a> PriceSet<'a> {
    /// What it prices: a SKU, a vendor's lines or a category's.
    pub(crate) fn key(self) -> PriceKey<'a> {
        match self {
            PriceSet::Override(sku) | PriceSet::List(sku) => PriceKey::Sku(sku),
            PriceSet::Vendor(v) => PriceKey::Vendor(v),
            PriceSet::Category(c) => PriceKey::Category(c),
        }
    }
}

/// The first fabric (and its design) that a plan made with `set` at `value` would build
/// another design for than `prepared`'s: a price of a part the chosen designs do not buy can
/// still make a design that buys it cheaper (an analysis keeps the chosen designs, so its
/// range on such a price moves nothing in it, which alone would read as "the price does not
/// matter"; audits 23 F2 and 24 F1–F2). One figures plan.
pub(crate) fn design_moves_at(
    prepared: &Prepared,
    figures: Figures<'_>,
    set: PriceSet<'_>,
    value: Decimal,
) -> Option<(Fabric, Design)> {
    let mut req = PlanRequest {
        uncertainty: None,
        ..prepared.resolved.normalized.clone()
    };
    let prices = req.prices.get_or_insert_with(Default::default);
    let mut price_of = |sku: &str, unit: Decimal| -> Option<()> {
        prices
            .overrides
            .get_or_insert_with(Default::default)
            .insert(sku.to_string(), request::UnitPriceUsd::new(unit)?);
        Some(())
    };
    match set {
        PriceSet::Override(sku) => price_of(sku, value)?,
        PriceSet::List(sku) => {
            use crate::catalog::PartKind;
            let (part, kind) = prepared.resolved.catalog.listed(sku)?;
            let category = match kind {
                PartKind::Switch => cost::Category::Switch,
                PartKind::Nic => cost::Category::Nic,
                PartKind::Transceiver => cost::Category::Optic,
                PartKind::Cable => cost::Category::Cable,
            };
            let vendor = part.part().vendor.as_str();
            let adj = &prepared.resolved.adjustments;
            let net = cost::net_unit_price(sku, vendor, category, value, adj).ok()?;
            price_of(sku, net)?
        }
        PriceSet::Vendor(v) => {
            let d = request::Discount::new(value)?;
            let discounts = prices.discounts.get_or_insert_with(Default::default);
            discounts
                .vendor
                .get_or_insert_with(Default::default)
                .insert(v.to_string(), d);
        }
        PriceSet::Category(category) => {
            let d = request::Discount::new(value)?;
            let discounts = prices.discounts.get_or_insert_with(Default::default);
            discounts
                .category
                .get_or_insert_with(Default::default)
                .insert(category, d);
        }
    }
    let other = figures(&req).ok()?;
    prepared.sized.iter().find_map(|s| {
        let there = other
            .fabrics
            .iter()
            .find(|f| f.fabric == s.fabric)?
            .topology
            .as_ref()?
            .design;
        (there != s.topology.design).then_some((s.fabric, there))
    })
}

/// Plans [`confirm_unused`] builds at the most for one plan (a sweep point pays them too).
const MAX_UNUSED_CHECKS: usize = 8;

/// Spines used below this share of their ports mark a two-tier fabric whose leaf–spine rule,
/// not its traffic, set the spine count.
const IDLE_SPINE_PORTS: f64 = 0.75;
/// The cheaper fabric a slight oversubscription gives is said when it saves this share of
/// capex.
const NEAR_NON_BLOCKING_SAVING: f64 = 0.05;
/// The largest oversubscription at which two switches are named instead of a leaf–spine fabric
/// asked non-blocking (a judgement: 2:1 halves the bandwidth between the two switches, which
/// the note's idle figures price for the job asked).
const TWO_SWITCH_MAX_RATIO: f64 = 2.0;

/// A ratio as a buyer would type it: rounded up to two places (so that it still fits).
fn ceil_hundredths(x: f64) -> f64 {
    (x * 100.0).ceil() / 100.0
}

/// A fabric of the request at another leaf oversubscription ([`at_ratio`]).
struct Near {
    topology: Topology,
    capex_usd: Decimal,
    gpu_idle_fraction: f64,
    /// Capex saved against the plan's.
    saving_usd: Decimal,
}

impl Near {
    /// "$7.1M up front, $954K less, and the job idles 0.1091 % of busy time against 0.1090 %"
    /// (`was`: the plan's idle fraction), `than` after "less".
    fn said(&self, than: &str, was: f64) -> String {
        format!(
            "{} up front, {} less{than}, and the job idles {:.4} % of busy time against {:.4} %",
            cost::format_usd_short(self.capex_usd),
            cost::format_usd_short(self.saving_usd),
            100.0 * self.gpu_idle_fraction,
            100.0 * was,
        )
    }
}

/// The fabric `f` of the request at leaf oversubscription `ratio` (one figures plan), against
/// the plan's `capex`.
fn at_ratio(
    req: &PlanRequest,
    fabric: Fabric,
    ratio: f64,
    capex: Decimal,
    figures: Figures<'_>,
) -> Option<Near> {
    let o = request::Oversubscription::new(ratio)?;
    let near = PlanRequest {
        fabrics: Some(vec![fabric]),
        topology: Some(request::TopologyRequest {
            oversubscription: Some(o),
            ..req.topology.clone().unwrap_or_default()
        }),
        uncertainty: None,
        ..req.clone()
    };
    let other = figures(&near).ok()?;
    let g = other.fabrics.into_iter().next()?;
    let (topology, c, p) = (g.topology?, g.capex?, g.performance?);
    Some(Near {
        topology,
        capex_usd: c.total_usd,
        gpu_idle_fraction: p.gpu_idle_fraction,
        saving_usd: capex - c.total_usd,
    })
}

/// A two-tier fabric asked non-blocking that a slight oversubscription builds for markedly less
/// (at least [`NEAR_NON_BLOCKING_SAVING`] of capex), said with the job's idle on both:
/// - its spines mostly idle: every leaf puts the same number of uplinks on each spine, so one
///   server past a whole scalable unit can double the spines (1,032 H100 on InfiniBand: 33
///   leaves need 32 spines, 52 % of their ports used, $937K more than 1,024). The fabric at the
///   next leaf split, (k/2 + 1) : (k/2 − 1) (audit 26 F1: at 1.07, 32 leaves and 16 spines,
///   $954K less, idle 0.1091 % against 0.1090 %);
/// - a few servers past what two switches carry non-blocking: the two switches at the ratio
///   that fits them, up to [`TWO_SWITCH_MAX_RATIO`] (audit 34: 72 H100 on InfiniBand, 3
///   leaves and 2 spines for $612,520, where two switches at 1.29:1 cost $337,120 and the job
///   idles the same).
///
/// One figures plan for each candidate.
pub(super) fn near_non_blocking(
    req: &PlanRequest,
    plan: &Plan,
    figures: Figures<'_>,
) -> Vec<String> {
    let mut out = Vec::new();
    for f in &plan.fabrics {
        let (Some(t), Some(capex), Some(perf)) = (&f.topology, &f.capex, &f.performance) else {
            continue;
        };
        // A spine of another model is the buyer's choice of part: its ports and the leaves'
        // split are not the one radix these ratios are worked out on.
        if t.tiers != 2 || t.spine_switches == 0 || t.spine_sku.is_some() {
            continue;
        }
        let was = perf.gpu_idle_fraction;
        let worth = |saving: Decimal| {
            rust_decimal::prelude::ToPrimitive::to_f64(
                &(saving / capex.total_usd.max(Decimal::ONE)),
            )
            .unwrap_or(0.0)
                >= NEAR_NON_BLOCKING_SAVING
        };
        let spine_ports = t.spine_switches.saturating_mul(u64::from(t.radix)) as f64;
        let half = f64::from(t.radix / 2);
        if (t.ports.spine_ports_used as f64) < IDLE_SPINE_PORTS * spine_ports && half >= 2.0 {
            // The next split's ratio.
            let ratio = ceil_hundredths((half + 1.0) / (half - 1.0));
            if let Some(near) = at_ratio(req, f.fabric, ratio, capex.total_usd, figures)
                && worth(near.saving_usd)
            {
                let t2 = &near.topology;
                out.push(format!(
                    "{}: its {} spines use {:.0} % of their ports (every leaf puts the same number of uplinks on each spine, which {} leaves need); at topology.oversubscription = {ratio} ({} leaves, {} spines, {:.3}:1 realised) the fabric costs {}",
                    f.fabric.as_str(),
                    t.spine_switches,
                    100.0 * t.ports.spine_ports_used as f64 / spine_ports,
                    t.leaf_switches,
                    t2.leaf_switches,
                    t2.spine_switches,
                    t2.oversubscription_realised,
                    near.said("", was),
                ));
                continue;
            }
        }
        // Two switches, each with every server's rails i mod 2 (⌈R/2⌉ a server) and the
        // bundle between them: the ratio at which they fit the radix.
        let nodes = u64::from(t.nodes.max(1));
        let per_node = t.endpoints_per_plane.div_ceil(nodes);
        let per_switch = (nodes.saturating_mul(per_node.div_ceil(2))) as f64;
        let k = f64::from(t.radix);
        if per_switch >= k {
            continue;
        }
        let ratio = ceil_hundredths(per_switch / (k - per_switch));
        if ratio <= 1.0 || ratio > TWO_SWITCH_MAX_RATIO {
            continue;
        }
        if let Some(near) = at_ratio(req, f.fabric, ratio, capex.total_usd, figures)
            && near.topology.design == crate::sizing::Design::DualSwitch
            && worth(near.saving_usd)
        {
            let t2 = &near.topology;
            // Totals over the planes, which each repeat the two switches (audit 35: B300 on
            // RoCE runs two planes, four switches).
            let (two, planes) = if t.planes > 1 {
                (
                    format!("two switches a plane ({} in all)", 2 * u64::from(t.planes)),
                    format!(" in all, over {} planes", t.planes),
                )
            } else {
                ("two switches".to_string(), String::new())
            };
            let than = format!(
                " than {} leaves and {} spines{planes}",
                t.leaf_switches, t.spine_switches
            );
            out.push(format!(
                "{}: {two} carry these {} servers at topology.oversubscription = {ratio} (dual_switch, {}:{} a switch, {:.3}:1 realised) for {}",
                f.fabric.as_str(),
                t.nodes,
                t2.leaf_downlinks,
                t2.leaf_uplinks,
                t2.oversubscription_realised,
                near.said(&than, was),
            ));
        }
    }
    out
}
