//! The pipeline: request → resolve (defaults, catalog) → per fabric {sizing → BOM → performance
//! → cost} → comparison → plan. Plain functions over plain data; no HTTP.

pub mod bom;
pub mod bounded;
#[cfg(test)]
mod build_tests;
pub mod cache;
#[cfg(test)]
mod design_tests;
pub mod inputs;
pub mod registry;
pub mod request;
pub mod sweep;
pub mod uncertainty;

use crate::error_code::ErrorCode;
use rust_decimal::Decimal;
use serde::Serialize;
use sha2::{Digest, Sha256};
use utoipa::ToSchema;

use crate::catalog::{CatalogSet, Text, TierCabling};
use crate::cost::{self, Capex, Category, Comparison, FabricCostInput, GpuIdle, OpexPerYear, Tco};
use crate::fabric::Fabric;
use crate::perf::{self, PerfResult};
use crate::sizing::{self, Design, Topology};

pub use request::PlanRequest;

/// Why a plan cannot be made from a (syntactically valid) request: names the input.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanError {
    /// JSON pointer of the input at fault.
    pub pointer: String,
    /// Stable machine code.
    pub code: ErrorCode,
    /// What is wrong and what would work.
    pub detail: String,
}

impl PlanError {
    pub fn field(pointer: &str, code: ErrorCode, detail: impl Into<String>) -> PlanError {
        PlanError {
            pointer: pointer.to_string(),
            code,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.pointer, self.detail)
    }
}

impl std::error::Error for PlanError {}

impl From<cost::CostError> for PlanError {
    fn from(e: cost::CostError) -> PlanError {
        PlanError::field(&e.pointer(), e.code(), e.to_string())
    }
}

/// The catalog that priced a plan.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CatalogRef {
    /// Catalog id.
    pub id: String,
    /// Catalog version.
    pub version: String,
    /// SHA-256 of the catalog file.
    pub sha256: String,
}

/// One BOM line of a plan: the priced line (SKU, quantity, list and net price, power) with its
/// counting unit, how the quantity was derived and where the catalog figures come from. The
/// one BOM line type: sizing's [`cost::BomLine`] inside [`cost::PricedLine`] inside this.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct BomLineOut {
    /// The line and its price.
    #[serde(flatten)]
    pub priced: cost::PricedLine,
    /// Counting unit of `quantity`.
    #[schema(value_type = String)]
    pub unit: bom::Unit,
    /// How `quantity` follows from the topology's link and port counts.
    #[schema(value_type = String)]
    pub derivation: bom::Derivation,
    /// True when the price used is a catalog placeholder (grade P): get a quote. False when
    /// `prices.overrides` sets this SKU's price.
    pub placeholder_price: bool,
    /// Source of the catalog figures (with an overridden price: says the price is the
    /// request's and the source covers the other figures).
    #[schema(value_type = String)]
    pub source: Text,
}

/// One design the plan sized for a fabric, with its capex, so a buyer sees why the chosen one won.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct DesignAlternative {
    /// Design id (`single_switch`, `dual_switch`, `collapsed_rails`, `rail_only`, `su_clos`,
    /// `tor_copper`).
    pub design: Design,
    /// Switch tiers: 1, 2 or 3.
    pub tiers: u8,
    /// Leaf (or single-layer) switches, total across planes.
    pub leaf_switches: u64,
    /// Spine switches, total across planes.
    pub spine_switches: u64,
    /// Core switches, total across planes.
    pub core_switches: u64,
    /// Network capex of this design at the plan's prices (NICs, switches, optics, cables,
    /// one-off licences), USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub capex_usd: Decimal,
    /// True when the design meets the request: within `topology.max_tiers`, at or below the
    /// asked oversubscription, and (under `auto`) not rail-only; with a named
    /// `topology.design`, only that design.
    pub meets_request: bool,
    /// True for the design the plan uses (`topology.design`).
    pub chosen: bool,
}

/// Everything the plan says about one fabric. A fabric that cannot be built for the request
/// has `feasible: false`, `infeasible_reason` and `suggestions`, and no topology or cost fields.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FabricPlan {
    /// `infiniband`, `roce` or `roce_adaptive`.
    pub fabric: Fabric,
    /// True when the fabric can be built for the request (then every cost field is present).
    pub feasible: bool,
    /// Why the fabric cannot be built (infeasible fabrics only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub infeasible_reason: Option<String>,
    /// What would make it buildable: more planes, a larger-radix switch, three tiers, fewer GPUs
    /// (infeasible fabrics only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub suggestions: Vec<String>,
    /// NIC SKU used.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<String>)]
    pub nic_sku: Option<Text>,
    /// Sized topology of the chosen design: design, tiers, switch counts, links (totals across
    /// planes).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub topology: Option<Topology>,
    /// Every design sized for this fabric, with its capex; the chosen one is the cheapest that
    /// meets the request.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub design_alternatives: Vec<DesignAlternative>,
    /// Bill of materials.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bom: Option<Vec<BomLineOut>>,
    /// Capex by category, USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capex: Option<Capex>,
    /// Yearly operating cost, USD per year.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opex_per_year: Option<OpexPerYear>,
    /// Multi-year TCO of the network, USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tco: Option<Tco>,
    /// All-reduce model: time, bandwidth, exposed communication, GPU idle fraction.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub performance: Option<PerfResult>,
    /// GPU time lost to the network, GPU-hours and USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gpu_idle: Option<GpuIdle>,
    /// tco.total_usd + gpu_idle.cost_total_usd, USD.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[serde(serialize_with = "crate::json::opt_decimal")]
    pub total_cost_usd: Option<Decimal>,
    /// total_cost_usd per useful GPU-hour over the horizon, USD; null when none (absent on
    /// infeasible fabrics).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Decimal>, nullable)]
    pub cost_per_useful_gpu_hour_usd: Option<Option<Decimal>>,
}

/// A feasible fabric's results, borrowed without the `Option`s (every field is present when
/// the fabric can be built).
#[derive(Debug, Clone, Copy)]
pub struct Built<'a> {
    pub fabric: Fabric,
    pub nic_sku: &'a str,
    pub topology: &'a Topology,
    pub bom: &'a [BomLineOut],
    pub capex: &'a Capex,
    pub opex_per_year: &'a OpexPerYear,
    pub tco: &'a Tco,
    pub performance: &'a PerfResult,
    pub gpu_idle: &'a GpuIdle,
    pub total_cost_usd: Decimal,
    pub cost_per_useful_gpu_hour_usd: Option<Decimal>,
}

impl FabricPlan {
    /// The results of a feasible fabric (`None` when it cannot be built).
    pub fn built(&self) -> Option<Built<'_>> {
        Some(Built {
            fabric: self.fabric,
            nic_sku: self.nic_sku.as_deref()?,
            topology: self.topology.as_ref()?,
            bom: self.bom.as_deref()?,
            capex: self.capex.as_ref()?,
            opex_per_year: self.opex_per_year.as_ref()?,
            tco: self.tco.as_ref()?,
            performance: self.performance.as_ref()?,
            gpu_idle: self.gpu_idle.as_ref()?,
            total_cost_usd: self.total_cost_usd?,
            cost_per_useful_gpu_hour_usd: self.cost_per_useful_gpu_hour_usd.flatten(),
        })
    }
}

impl Plan {
    /// The fabric with the lowest total cost: the comparison's, or with one feasible fabric
    /// (no comparison), that one, whatever the order the fabrics were asked in. `None` when
    /// no fabric can be built.
    pub fn cheapest_fabric(&self) -> Option<Fabric> {
        match &self.comparison {
            Some(c) => Some(c.cheapest_fabric),
            None => self.fabrics.iter().find(|f| f.feasible).map(|f| f.fabric),
        }
    }

    /// The warnings that concern `fabric`: those about the whole plan and those about it. A
    /// warning about one fabric begins with its id (`roce: the catalog price of …`), and the
    /// licence warnings with the family they price (`InfiniBand: UFM …`, `Ethernet: the NOS …`);
    /// a plan CSV row carries these only (it carried every fabric's).
    pub fn warnings_for(&self, fabric: Fabric) -> impl Iterator<Item = &str> {
        self.warnings_for_rows(fabric, &[])
    }

    /// [`Self::warnings_for`] on a table whose rows are the fabrics in `shown` (empty: every
    /// fabric has one): a warning about a fabric without a row (an infeasible one in a sweep)
    /// goes on every row, so no warning is lost.
    pub fn warnings_for_rows<'a>(
        &'a self,
        fabric: Fabric,
        shown: &'a [Fabric],
    ) -> impl Iterator<Item = &'a str> {
        self.warnings.iter().map(String::as_str).filter(move |w| {
            warning_concerns(w, fabric)
                || (!shown.is_empty() && !shown.iter().any(|s| warning_concerns(w, *s)))
        })
    }

    /// The feasible fabrics' results, in plan order.
    pub fn built(&self) -> impl Iterator<Item = Built<'_>> {
        self.fabrics.iter().filter_map(FabricPlan::built)
    }

    /// The plan as the JSON answer of `POST /v1/plans`, written into a buffer sized for it
    /// up front: about 10 KB a fabric with its BOM, plus the inputs, warnings and comparison
    /// (an analysis adds a few KB; the buffer grows if it must).
    pub fn to_json(&self) -> serde_json::Result<Vec<u8>> {
        let per_fabric = 10 << 10;
        let capacity = self
            .fabrics
            .len()
            .saturating_mul(per_fabric)
            .saturating_add(6 << 10);
        crate::json::to_vec_sized(self, capacity)
    }
}

impl FabricPlan {
    /// Why the fabric cannot be built, without the fabric's id in front (the reason reads
    /// "infiniband: 70,000 endpoints …"; a sentence that names the fabric says the rest). Empty
    /// for a feasible fabric.
    pub fn reason_words(&self) -> &str {
        let reason = self.infeasible_reason.as_deref().unwrap_or_default();
        reason
            .strip_prefix(self.fabric.as_str())
            .and_then(|r| r.strip_prefix(": "))
            .unwrap_or(reason)
    }

    fn infeasible(fabric: Fabric, reason: String, suggestions: Vec<String>) -> FabricPlan {
        FabricPlan {
            fabric,
            feasible: false,
            infeasible_reason: Some(reason),
            suggestions,
            nic_sku: None,
            topology: None,
            design_alternatives: Vec::new(),
            bom: None,
            capex: None,
            opex_per_year: None,
            tco: None,
            performance: None,
            gpu_idle: None,
            total_cost_usd: None,
            cost_per_useful_gpu_hour_usd: None,
        }
    }
}

/// A fabric plan: sizing, BOM, performance and cost per fabric, side by side.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Plan {
    /// Stable id: SHA-256 of the normalized request and the catalog's SHA-256 (first 16 bytes,
    /// hex). Same request + same catalog ⇒ same id.
    pub plan_id: String,
    /// The catalog that priced the plan.
    pub catalog: CatalogRef,
    /// The request with every default filled in (post it back to reproduce the plan).
    pub inputs: PlanRequest,
    /// Caveats: placeholder prices, quotes required, assumptions.
    pub warnings: Vec<String>,
    /// One result per requested fabric, in request order; infeasible fabrics say why
    /// (`feasible: false`) and carry no costs.
    pub fabrics: Vec<FabricPlan>,
    /// Side-by-side comparison of the feasible fabrics; null with fewer than two.
    pub comparison: Option<Comparison>,
    /// The uncertainty analysis, when the request asks for one (`uncertainty`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub uncertainty: Option<uncertainty::Uncertainty>,
}

/// Whether a plan warning concerns `fabric` (see [`Plan::warnings_for`]).
fn warning_concerns(w: &str, fabric: Fabric) -> bool {
    let about = |prefix: &str| {
        w.strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with(": "))
    };
    if let Some(other) = Fabric::ALL.into_iter().find(|f| about(f.as_str())) {
        return other == fabric;
    }
    if about("InfiniBand") {
        return fabric == Fabric::Infiniband;
    }
    if about("Ethernet") {
        return fabric.is_ethernet();
    }
    true
}

/// Price adjustments no line of the plan's chosen designs prices with: an override of a SKU
/// none buys, a discount of a vendor or a category none of whose lines is priced by it (every
/// such line overridden, or none bought). Candidates only: a design that lost may buy the part,
/// and the adjustment may be what made it lose ([`confirm_unused`] decides).
#[derive(Debug, Clone, Default, PartialEq)]
struct UnusedAdjustments {
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
    fn of(adj: &cost::PriceAdjustments, sized: &[std::sync::Arc<SizedFabric>]) -> Self {
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

    fn is_empty(&self) -> bool {
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
fn confirm_unused(
    candidates: UnusedAdjustments,
    req: &PlanRequest,
    plan: &Plan,
    catalogs: &CatalogSet,
    effort: Effort,
) -> Vec<String> {
    let same = |without: &UnusedAdjustments| {
        let Ok(other) = figures_unchecked(&without.removed_from(req), catalogs, effort) else {
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
    catalogs: &CatalogSet,
    effort: Effort,
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
    let other = figures_unchecked(&req, catalogs, effort).ok()?;
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

/// The figures plan of a request made to check another plan's warnings: it checks none of its
/// own ([`confirm_unused`]) and remembers no sizing.
fn figures_unchecked(
    req: &PlanRequest,
    catalogs: &CatalogSet,
    effort: Effort,
) -> Result<Plan, PlanError> {
    build_checked(req, catalogs, effort, None, Detail::Figures, false)
}

/// Plans [`confirm_unused`] builds at the most for one plan (a sweep point pays them too).
const MAX_UNUSED_CHECKS: usize = 8;

fn push_unique(warnings: &mut Vec<String>, w: String) {
    if !warnings.contains(&w) {
        warnings.push(w);
    }
}

/// A fabric sized for the request: the chosen design and its BOM quantities — everything that
/// stays fixed while prices, economics, the job or failure rates change (an uncertainty sample
/// re-prices and re-evaluates it without sizing again).
#[derive(Debug, Clone)]
pub struct SizedFabric {
    pub fabric: Fabric,
    pub nic_sku: Text,
    pub topology: Topology,
    pub design_alternatives: Vec<DesignAlternative>,
    /// The chosen design's BOM lines, and beside each (same index) its unit, derivation and
    /// source.
    pub lines: Vec<cost::BomLine>,
    pub notes: Vec<bom::LineNotes>,
    /// Port-to-port latency of the chosen switch, ns.
    pub switch_latency_ns: u32,
    /// The NIC's PCIe generation and lanes.
    pub nic_pcie_gen: u8,
    pub nic_pcie_lanes: u8,
    /// Failure-prone parts (NICs, switches, optics, cables).
    pub parts: cost::failure::PartCounts,
    /// NIC ports on the fabric.
    pub endpoints: u64,
    /// Switches on the fabric.
    pub switches: u64,
}

/// One fabric sized, or infeasible (with the error a single-fabric request would have returned).
#[derive(Debug, Clone)]
enum Sizing {
    /// Shared: a remembered sizing (`SizingMemo`) and the plan's `Prepared` hold the same one.
    Sized(std::sync::Arc<SizedFabric>),
    Infeasible(Box<FabricPlan>, PlanError),
}

fn infeasible(fabric: Fabric, e: PlanError, suggestions: Vec<String>) -> Sizing {
    Sizing::Infeasible(
        Box::new(FabricPlan::infeasible(
            fabric,
            e.detail.clone(),
            suggestions,
        )),
        e,
    )
}

/// The request resolved and every requested fabric sized: what a plan and each uncertainty
/// sample start from.
#[derive(Debug, Clone)]
pub struct Prepared {
    /// The request as the client sent it, kept when it asks for an uncertainty analysis: each
    /// sample sets its values on it (so defaults that follow an input, such as the GPU-hour
    /// value from the PUE, follow the sampled value as in a plan made with that value).
    pub request: Option<PlanRequest>,
    pub resolved: inputs::Resolved,
    /// Sized fabrics, in request order (infeasible ones left out).
    pub sized: Vec<std::sync::Arc<SizedFabric>>,
}

/// Makes a plan. A fabric that cannot be built for the request is returned as infeasible; only
/// when no requested fabric is feasible is the request an error (the first fabric's reason).
pub fn build_plan(req: &PlanRequest, catalogs: &CatalogSet) -> Result<Plan, PlanError> {
    build(req, catalogs, Effort::default())
}

/// The sized fabrics of the last plan, remembered for the next one when the two differ only in
/// inputs sizing does not read (economics, utilization, workload, reliability): a sweep over
/// one of those re-prices and re-evaluates the same designs instead of sizing them again. The
/// key is the SHA-256 of the request without those sections and the catalog's hash.
#[derive(Debug, Default)]
pub struct SizingMemo {
    key: Option<[u8; 32]>,
    /// The detail the remembered sizing was built at (a figures sizing has no BOM text).
    detail: Option<Detail>,
    fabrics: Vec<(Sizing, Vec<String>)>,
    /// Plans that reused the remembered sizing.
    pub hits: usize,
}

impl SizingMemo {
    /// Whether sizing reads the input named `name` (dotted, as a sweep names it): everything
    /// but the sections [`SizingMemo::key`] leaves out. A sweep along such an input sizes at
    /// every point, so remembering its sizing would only cost.
    pub fn sizing_reads(name: &str) -> bool {
        let ignored = ["workload.", "reliability.", "utilization.", "economics."];
        !ignored.iter().any(|s| name.starts_with(s))
    }

    /// What sizing reads of a resolved request: everything but the sections it ignores.
    fn key(r: &inputs::Resolved) -> Option<[u8; 32]> {
        let sizing_inputs = PlanRequest {
            workload: None,
            reliability: None,
            utilization: None,
            economics: None,
            uncertainty: None,
            ..r.normalized.clone()
        };
        let mut h = Sha256::new();
        h.update(crate::json::to_vec(&sizing_inputs).ok()?);
        h.update(b"\n");
        h.update(r.catalog.sha256.as_bytes());
        Some(h.finalize().into())
    }
}

/// Sizes every requested fabric (or recalls them from `memo`), with the warnings sizing raised
/// for each.
fn size_all(
    r: &inputs::Resolved,
    memo: Option<&mut SizingMemo>,
    detail: Detail,
) -> Result<Vec<(Sizing, Vec<String>)>, PlanError> {
    let fresh = |r: &inputs::Resolved| -> Result<Vec<(Sizing, Vec<String>)>, PlanError> {
        r.fabrics
            .iter()
            .map(|&fabric| {
                let mut w = Vec::new();
                Ok((size_fabric(r, fabric, &mut w, detail)?, w))
            })
            .collect()
    };
    let Some(memo) = memo else {
        return fresh(r);
    };
    let key = SizingMemo::key(r);
    if key.is_some() && memo.key == key && memo.detail == Some(detail) {
        memo.hits += 1;
        return Ok(memo.fabrics.clone());
    }
    let out = fresh(r)?;
    memo.key = key;
    memo.detail = Some(detail);
    memo.fabrics = out.clone();
    Ok(out)
}

/// How an uncertainty analysis may compute: until when, and on how many threads.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Effort {
    /// Past it the analysis stops with `analysis_too_slow`; `None`, no limit.
    pub deadline: Option<std::time::Instant>,
    /// Threads drawing its samples (0 or 1: the calling thread alone). The answer does not
    /// depend on it.
    pub threads: usize,
}

/// The plan, its uncertainty analysis computed within `effort`.
pub fn build(req: &PlanRequest, catalogs: &CatalogSet, effort: Effort) -> Result<Plan, PlanError> {
    build_with(req, catalogs, effort, None, Detail::Full)
}

/// How much of a plan to write out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Everything: the BOM lines with their text, the comparison's recommendation and reasons.
    Full,
    /// The figures a sweep row reads (costs, performance, the cheapest fabric, warnings, the
    /// plan id): no BOM lines, no suggestions for infeasible fabrics, no recommendation or
    /// reasons, no RoCE tunings side by side. Every figure is the one `Full` gives for the
    /// same request.
    Figures,
}

/// [`build`], reusing the sizing in `memo` when the request differs from the last one only in
/// inputs sizing does not read (see [`SizingMemo`]; a sizing remembered at another `detail` is
/// not reused).
pub fn build_with(
    req: &PlanRequest,
    catalogs: &CatalogSet,
    effort: Effort,
    memo: Option<&mut SizingMemo>,
    detail: Detail,
) -> Result<Plan, PlanError> {
    build_checked(req, catalogs, effort, memo, detail, true)
}

/// [`build_with`]; `check_unused`: confirm price adjustments that no chosen design prices with
/// by a plan without them ([`confirm_unused`]; that plan does not check again).
fn build_checked(
    req: &PlanRequest,
    catalogs: &CatalogSet,
    effort: Effort,
    memo: Option<&mut SizingMemo>,
    detail: Detail,
    check_unused: bool,
) -> Result<Plan, PlanError> {
    let r = inputs::resolve(req, catalogs)?;
    let r_oversubscription = r.oversubscription;
    let mut warnings = r.warnings.clone();
    let mut fabrics = Vec::with_capacity(r.fabrics.len());
    let mut costs = Vec::with_capacity(r.fabrics.len());
    let mut sized_all = Vec::with_capacity(r.fabrics.len());
    let mut first_error = None;

    for (sizing, raised) in size_all(&r, memo, detail)? {
        for w in raised {
            push_unique(&mut warnings, w);
        }
        match sizing {
            Sizing::Sized(sized) => {
                let fabric = sized.fabric;
                let (fp, cost) = plan_sized(&r, &sized, &mut warnings, detail)?;
                fabrics.push(fp);
                costs.push((fabric, cost));
                sized_all.push(sized);
            }
            Sizing::Infeasible(fp, e) => {
                push_unique(
                    &mut warnings,
                    format!(
                        "{}: infeasible for this request — {}",
                        fp.fabric.as_str(),
                        fp.reason_words()
                    ),
                );
                fabrics.push(*fp);
                first_error.get_or_insert(e);
            }
        }
    }
    for (scope, w) in &r.fabric_notes {
        if sized_all.iter().any(|s| scope.covers(s.fabric)) {
            push_unique(&mut warnings, w.clone());
        }
    }
    // Candidates only where they will be confirmed (not in the plans that confirm them).
    let unused = check_unused.then(|| UnusedAdjustments::of(&r.adjustments, &sized_all));
    if costs.is_empty()
        && let Some(mut e) = first_error
    {
        // No fabric can be built: the error points where the first failed and says why each
        // did (1,000,000 GPUs named only InfiniBand's ceiling though every fabric is past its
        // own).
        if fabrics.len() > 1 {
            // Each reason names its fabric ("roce: …").
            let why: Vec<String> = fabrics
                .iter()
                .map(|f| match &f.infeasible_reason {
                    Some(r) => r.clone(),
                    None => format!("{}: not built", f.fabric.as_str()),
                })
                .collect();
            e.detail = format!("no fabric can be built — {}", why.join("; "));
        }
        return Err(e);
    }

    let pairs: Vec<(Fabric, &cost::FabricCost)> = costs.iter().map(|(f, c)| (*f, c)).collect();
    let words = detail == Detail::Full;
    let mut comparison = cost::compare_with(&pairs, &r.economics, r.gpus, words)?;
    // A job inside one NVLink domain needs no fabric: the recommendation says so first.
    if let Some(c) = comparison
        .as_mut()
        .filter(|_| words && r.gpus <= r.nvlink_domain_gpus)
    {
        let then = std::mem::replace(&mut c.recommendation, cost::Recommendation::Unwritten);
        c.recommendation = cost::Recommendation::NoneNeeded {
            gpus: r.gpus,
            server: r.gpus <= r.gpus_per_node,
            then: Box::new(then),
        };
    }

    let catalog = &r.catalog;
    let catalog_ref = CatalogRef {
        id: catalog.id().to_string(),
        version: catalog.data.version.clone(),
        sha256: catalog.sha256.clone(),
    };
    let plan_id = plan_id(&r.normalized, &catalog.sha256);
    // What the plan was made from, kept only for an analysis to re-price: a plan without one
    // (every sweep point among them) moves its normalized request into `inputs`, uncopied.
    let (inputs, prepared) = if r.normalized.uncertainty.is_some() {
        let inputs = r.normalized.clone();
        let prepared = Prepared {
            request: req.uncertainty.as_ref().map(|_| req.clone()),
            resolved: r,
            sized: sized_all,
        };
        (inputs, Some(prepared))
    } else {
        (r.normalized, None)
    };
    let mut plan = Plan {
        plan_id,
        catalog: catalog_ref,
        inputs,
        warnings,
        fabrics,
        comparison,
        uncertainty: None,
    };
    if let Some(prepared) = &prepared
        && let Some(u) = &prepared.resolved.normalized.uncertainty
    {
        let spec = uncertainty::spec(u, prepared)?;
        plan.uncertainty = Some(uncertainty::analyse(&spec, prepared, catalogs, effort)?);
        for w in uncertainty::outside_ranges(&spec, prepared, catalogs, effort) {
            push_unique(&mut plan.warnings, w);
        }
    }
    if let Some(unused) = unused.filter(|u| !u.is_empty()) {
        for w in confirm_unused(unused, req, &plan, catalogs, effort) {
            push_unique(&mut plan.warnings, w);
        }
    }
    if check_unused && detail == Detail::Full && r_oversubscription == 1.0 {
        for w in near_non_blocking(req, &plan, catalogs, effort) {
            push_unique(&mut plan.warnings, w);
        }
    }
    Ok(plan)
}

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
    catalogs: &CatalogSet,
    effort: Effort,
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
    let other = figures_unchecked(&near, catalogs, effort).ok()?;
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
fn near_non_blocking(
    req: &PlanRequest,
    plan: &Plan,
    catalogs: &CatalogSet,
    effort: Effort,
) -> Vec<String> {
    let mut out = Vec::new();
    for f in &plan.fabrics {
        let (Some(t), Some(capex), Some(perf)) = (&f.topology, &f.capex, &f.performance) else {
            continue;
        };
        if t.tiers != 2 || t.spine_switches == 0 {
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
            if let Some(near) = at_ratio(req, f.fabric, ratio, capex.total_usd, catalogs, effort)
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
        if let Some(near) = at_ratio(req, f.fabric, ratio, capex.total_usd, catalogs, effort)
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

/// A number's decimal text on the stack, `n.to_string()` without the allocation: the catalog's
/// profile maps are keyed by speeds as text (`"400"`), looked up for every fabric of every plan.
pub(crate) struct DecimalText {
    digits: [u8; 10],
    start: usize,
}

impl DecimalText {
    pub(crate) fn new(mut n: u32) -> DecimalText {
        let mut digits = [b'0'; 10];
        let mut start = digits.len();
        // From the last digit back; u32::MAX has 10 digits, so the slots never run out.
        for (i, d) in digits.iter_mut().enumerate().rev() {
            // n % 10 < 10: the cast keeps it exactly.
            *d = b'0' + (n % 10) as u8;
            n /= 10;
            start = i;
            if n == 0 {
                break;
            }
        }
        DecimalText { digits, start }
    }

    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(self.digits.get(self.start..).unwrap_or_default()).unwrap_or_default()
    }
}

fn switch_spec(sw: &crate::catalog::Switch) -> sizing::SwitchSpec {
    sizing::SwitchSpec {
        sku: sw.part.sku.clone(),
        ports: sw.ports,
        port_speed_gbps: sw.port_speed_gbps,
        link_speeds_gbps: sw.link_speeds_gbps.clone(),
        ports_per_cage: sw.ports_per_cage,
    }
}

/// Sizes one fabric: every design, each priced at the plan's prices; the cheapest that meets
/// the request wins (docs/sizing.md "Designs", "Feasibility").
fn size_fabric<'a>(
    r: &'a inputs::Resolved,
    fabric: Fabric,
    warnings: &mut Vec<String>,
    detail: Detail,
) -> Result<Sizing, PlanError> {
    let catalog = &r.catalog;
    let profile = match catalog.profile(fabric) {
        Some(p) => p,
        None => {
            return Ok(infeasible(
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
            ));
        }
    };
    // The server's own NIC where the plan uses one (`Resolved::nic_on_board`) and it runs
    // this fabric; else the profile's add-in card.
    let on_board = r.nic_on_board.as_deref().filter(|sku| {
        catalog
            .nic(sku)
            .is_some_and(|n| n.fabrics.contains(&fabric))
    });
    let nic_sku = match on_board.or_else(|| {
        profile
            .nic_by_speed
            .get(DecimalText::new(r.nic_speed_gbps).as_str())
            .map(String::as_str)
    }) {
        Some(n) => n,
        None => {
            return Ok(infeasible(
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
            ));
        }
    };
    let nic = catalog.nic(nic_sku).ok_or_else(|| {
        PlanError::field(
            "/nic_speed_gbps",
            ErrorCode::UnknownSku,
            format!("no NIC '{nic_sku}'"),
        )
    })?;

    let planes = r
        .planes
        .unwrap_or_else(|| inputs::default_planes(Some(nic), fabric, r.nic_speed_gbps));
    let link_speed = r.nic_speed_gbps / planes.max(1);
    if let Some(max) = nic.ethernet_max_link_gbps
        && fabric.is_ethernet()
        && link_speed > max
    {
        return Ok(infeasible(
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
        ));
    }
    let switch_sku: &str = match &r.switch_sku {
        Some(s) => s,
        None => match profile
            .switch_by_link_speed
            .get(DecimalText::new(link_speed).as_str())
        {
            Some(s) => s,
            None => {
                // The planes the request chose split the NIC into links no switch runs.
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
                return Ok(infeasible(fabric, e, hint));
            }
        },
    };
    let switch = catalog.switch(switch_sku).ok_or_else(|| {
        PlanError::field(
            "/topology/switch_sku",
            ErrorCode::UnknownSku,
            format!("no switch '{switch_sku}'"),
        )
    })?;
    // 1. Sizing: every design, each priced; the cheapest that meets the request wins.
    let cluster = sizing::ClusterSpec {
        gpus: r.gpus,
        gpus_per_node: r.gpus_per_node,
        nics_per_node: r.nics_per_node,
        nic_speed_gbps: r.nic_speed_gbps,
    };
    let sw_spec = switch_spec(switch);
    let opts = sizing::TopologyOptions {
        planes,
        oversubscription: r.oversubscription,
        rail_optimized: r.rail_optimized,
        max_tiers: r.max_tiers,
        nodes_per_rack: r.nodes_per_rack,
    };
    let profile_cabling = profile
        .cabling
        .iter()
        .find(|c| c.link_speed_gbps == link_speed);
    // Borrowed from the request or the catalog: a sweep point copies no cabling text.
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
    let cabling = (|| -> Result<[&TierCabling; 3], PlanError> {
        Ok([
            pick(
                &r.cabling.node_leaf,
                profile_cabling.map(|c| &c.node_leaf),
                "node_leaf",
            )?,
            pick(
                &r.cabling.leaf_spine,
                profile_cabling.map(|c| &c.leaf_spine),
                "leaf_spine",
            )?,
            pick(
                &r.cabling.spine_core,
                profile_cabling.map(|c| &c.spine_core),
                "spine_core",
            )?,
        ])
    })();
    let cabling = match cabling {
        Ok(c) => c,
        Err(e) => return Ok(infeasible(fabric, e, Vec::new())),
    };
    let ctx = bom::BomContext {
        catalog,
        switch,
        nic,
        cabling,
        nics_per_node: r.nics_per_node,
        pointer_for_cabling: "/topology/cabling",
    };

    // The two switches of `dual_switch` are joined by the profile's inter-switch cabling
    // (in-rack copper) unless the request sets `topology.cabling.leaf_spine`.
    let isl_cabling = match (&r.cabling.leaf_spine, profile_cabling) {
        (None, Some(c)) => c.inter_switch.as_ref(),
        _ => None,
    };
    let isl_ctx = isl_cabling.map(|isl| bom::BomContext {
        cabling: [cabling[0], isl, cabling[2]],
        ..ctx
    });
    // `tor_copper` cables servers to their rack's leaf with the profile's in-rack copper, or
    // with the request's `topology.cabling.node_leaf`; without either it cannot be cabled.
    let tor_ctx = match (&r.cabling.node_leaf, profile_cabling) {
        (Some(_), _) => Some(ctx),
        (None, Some(c)) => c.node_leaf_in_rack.as_ref().map(|copper| bom::BomContext {
            cabling: [copper, cabling[1], cabling[2]],
            ..ctx
        }),
        (None, None) => None,
    };
    let mut sized: Vec<(Design, Topology, Decimal)> = Vec::with_capacity(Design::ALL.len());
    let mut not_fitting: Vec<(Design, sizing::SizingError)> = Vec::with_capacity(Design::ALL.len());
    let no_copper = || sizing::SizingError::DesignDoesNotFit {
        design: Design::TorCopper,
        why: sizing::Why::Text(format!(
            "the {} profile has no in-rack copper for {link_speed} Gb/s links; set topology.cabling.node_leaf",
            fabric.as_str()
        )),
    };
    // The BOM context each design is cabled with; `None`: it cannot be cabled.
    let ctx_for = |d: Design| match d {
        Design::DualSwitch => Some(isl_ctx.as_ref().unwrap_or(&ctx)),
        Design::TorCopper => tor_ctx.as_ref(),
        _ => Some(&ctx),
    };
    for (design, res) in sizing::alternatives(&cluster, &sw_spec, &opts) {
        // A design with cabling of its own (the inter-switch bundle, in-rack copper) that
        // cannot be cabled does not fit; it must not fail the other designs.
        let own_cabling = matches!(design, Design::DualSwitch | Design::TorCopper);
        match res {
            Ok(t) => {
                let Some(ctx) = ctx_for(design) else {
                    not_fitting.push((design, no_copper()));
                    continue;
                };
                // The alternatives are compared by capex alone: no BOM text, no copies.
                let capex = match bom::capex_of(&t, ctx, &r.adjustments) {
                    Ok(c) => c,
                    Err(e) if own_cabling => {
                        not_fitting.push((
                            design,
                            sizing::SizingError::DesignDoesNotFit {
                                design,
                                why: sizing::Why::Text(format!(
                                    "its cabling cannot be priced: {}",
                                    e.detail
                                )),
                            },
                        ));
                        continue;
                    }
                    Err(e) => return Err(e),
                };
                sized.push((design, t, capex));
            }
            Err(e) if sizing::feasibility::is_infeasibility(&e) => not_fitting.push((design, e)),
            Err(e) => return Err(sizing_error(&e, fabric)),
        }
    }
    // Racks given but no top-of-rack design built: say why, unless one or two switches are
    // sized, where a leaf in each rack is beside the point whatever kept it out (audit 34:
    // three notes on 16 GPUs, each naming its fabric twice, beside the dual_switch plan; audit
    // 35: 24 B300 on InfiniBand, kept out by the 800G cabling first).
    let one_or_two = sized
        .iter()
        .any(|(d, _, _)| matches!(d, Design::SingleSwitch | Design::DualSwitch));
    if r.nodes_per_rack.is_some()
        && !one_or_two
        && let Some((_, e)) = not_fitting.iter().find(|(d, _)| *d == Design::TorCopper)
    {
        push_unique(
            warnings,
            format!(
                "{}: tor_copper (copper to the servers in each rack) was not sized: {e}",
                fabric.as_str(),
            ),
        );
    }
    let within = |t: &Topology| {
        t.tiers <= r.max_tiers && t.oversubscription_realised <= r.oversubscription + 1e-9
    };
    let meets = |t: &Topology| within(t) && r.design.accepts(t, r.rail_optimized);
    // Cheapest that meets; ties go to the earlier design (fewer tiers).
    let chosen = sized
        .iter()
        .enumerate()
        .filter(|(_, (_, t, _))| meets(t))
        .min_by(|(i, a), (j, b)| a.2.cmp(&b.2).then(i.cmp(j)))
        .map(|(i, _)| i);
    let Some(chosen) = chosen else {
        // Report the named design's error, else the SU design's (the one with ceilings).
        let want = r.design.named().unwrap_or(Design::SuClos);
        let e = not_fitting
            .iter()
            .find(|(d, _)| *d == want)
            .or_else(|| not_fitting.first())
            .map(|(_, e)| sizing_error(e, fabric))
            .unwrap_or_else(|| {
                PlanError::field(
                    "/topology/design",
                    ErrorCode::DesignDoesNotFit,
                    format!(
                        "{}: no design meets the request (design {:?})",
                        fabric.as_str(),
                        r.design
                    ),
                )
            });
        // What would make it buildable: advice for a reader, left out of a sweep's figures.
        let suggestions = if detail == Detail::Full {
            let others: Vec<sizing::SwitchSpec> = catalog
                .data
                .switches
                .iter()
                .filter(|s| s.fabrics.contains(&fabric))
                .map(switch_spec)
                .collect();
            // A split is suggested only when a module carries its links in the NIC's cage
            // (the profile's NIC module at the split speed, or one the catalog fits): a
            // ConnectX-7's one OSFP cage has no 2 x 200G module, so planes = 2 is not advice.
            let nic_splits = |planes: u32| {
                let split_speed = r.nic_speed_gbps / planes.max(1);
                profile
                    .cabling
                    .iter()
                    .find(|c| c.link_speed_gbps == split_speed)
                    .and_then(|c| c.node_leaf.nic_module.as_deref())
                    .and_then(|sku| catalog.transceiver(sku))
                    .is_some_and(|m| bom::nic_side_module(catalog, nic, m, planes).fits)
            };
            sizing::feasibility::suggestions(&cluster, &sw_spec, &opts, &others, &nic_splits)
        } else {
            Vec::new()
        };
        return Ok(infeasible(fabric, e, suggestions));
    };
    let design_alternatives: Vec<DesignAlternative> = sized
        .iter()
        .enumerate()
        .map(|(i, (d, t, capex))| DesignAlternative {
            design: *d,
            tiers: t.tiers,
            leaf_switches: t.leaf_switches,
            spine_switches: t.spine_switches,
            core_switches: t.core_switches,
            capex_usd: *capex,
            meets_request: meets(t),
            chosen: i == chosen,
        })
        .collect();
    let Some((design, topology, _)) = sized.into_iter().nth(chosen) else {
        return Err(PlanError::field(
            "/gpus",
            ErrorCode::InternalError,
            "chosen design lost",
        ));
    };
    let chosen_ctx = ctx_for(design).unwrap_or(&ctx);
    let items = bom::bill_of_materials(&topology, chosen_ctx, detail)?;
    // A switch cage takes one module carrying all its links: a module that serves fewer (a
    // twin-port 2 x 400G in a 1.6T cage run as 4 x 400G) is counted per link end, two in one
    // cage; one that carries more (a 4-link module named for a 2-link cage) serves only the
    // cage's links, one a cage; either way the plan says so.
    let per_cage = bom::links_per_cage(switch, &topology);
    let links = [
        topology.links.node_leaf,
        topology.links.leaf_spine,
        topology.links.spine_core,
    ];
    let misfit = |fewer: bool| -> Vec<String> {
        bom::TIERS
            .iter()
            .zip(chosen_ctx.cabling)
            .zip(links)
            .filter(|(_, l)| *l > 0)
            .filter_map(|((tier, cab), _)| {
                let m = catalog.transceiver(cab.switch_module.as_deref()?)?;
                let links = u64::from(m.links_per_module);
                (if fewer {
                    links < per_cage
                } else {
                    links > per_cage
                })
                .then(|| format!("{tier} ({}, {links} link(s))", m.part.sku))
            })
            .collect()
    };
    let (short, long) = (misfit(true), misfit(false));
    let cage = format!(
        "{}: every {} cage carries {per_cage} links at {} Gb/s",
        fabric.as_str(),
        switch.part.sku,
        topology.link_speed_gbps
    );
    for (named, says) in [
        (
            short,
            "fewer; counted per link end, more than one module per cage — get a module that fills the cage from the switch vendor or name one in topology.cabling",
        ),
        (
            long,
            "more; counted one per cage in use, the other links unused — check that it fits the cage",
        ),
    ] {
        if !named.is_empty() {
            let (noun, verb) = if named.len() > 1 {
                ("modules", "carry")
            } else {
                ("module", "carries")
            };
            push_unique(
                warnings,
                format!(
                    "{cage} and the switch-side {noun} named for {} {verb} {says}",
                    named.join(", ")
                ),
            );
        }
    }
    if let Some(m) = chosen_ctx.cabling[0]
        .nic_module
        .as_deref()
        .and_then(|sku| catalog.transceiver(sku))
    {
        let side = bom::nic_side_module(catalog, nic, m, topology.planes);
        // The two ends of a NIC link must signal at the same lane rate (an HDR module on 50G
        // lanes cannot link to an NDR switch module on 100G lanes): a profile or request that
        // pairs them is priced as given and said to be unbuildable as such.
        if let Some(sw) = chosen_ctx.cabling[0]
            .switch_module
            .as_deref()
            .and_then(|sku| catalog.transceiver(sku))
            && let (Some(nic_lane), Some(sw_lane)) = (side.module.lane_gbps, sw.lane_gbps)
            && nic_lane != sw_lane
            && topology.links.node_leaf > 0
        {
            push_unique(
                warnings,
                format!(
                    "{}: the NIC-side {} signals on {nic_lane}G lanes and the switch-side {} on {sw_lane}G lanes; optics cannot change lane rate, so these two ends do not link ({}) — the node–leaf cabling is priced as the profile names it but must be replaced",
                    fabric.as_str(),
                    side.module.part.sku,
                    sw.part.sku,
                    if nic.speed_gbps <= 200 && nic_lane == 50 {
                        "HDR hosts on an NDR switch need the vendor's splitter AOC, or HDR switches"
                    } else {
                        "both ends need modules of one lane rate; set topology.cabling.node_leaf, or change the plane split"
                    },
                ),
            );
        }
        if !side.fits {
            push_unique(
                warnings,
                format!(
                    "{}: no module in the catalog carries {} link(s) of {} Gb/s in one {} cage of {}; counted {} {} per NIC as the profile names it — check the NIC's port split",
                    fabric.as_str(),
                    topology.planes.div_ceil(nic.ports.max(1)),
                    topology.link_speed_gbps,
                    nic.cage.as_deref().unwrap_or(&m.form_factor),
                    nic.part.sku,
                    side.per_nic,
                    m.part.sku,
                ),
            );
        }
    }

    if topology.leaf_uplinks > 0
        && (topology.oversubscription_realised - r.oversubscription).abs() > 1e-9
    {
        push_unique(
            warnings,
            format!(
                "{}: oversubscription {}:1 cannot be realised exactly on {}-port leaves; using the nearest ratio below, {}:{} = {:.3}:1",
                fabric.as_str(),
                r.oversubscription,
                topology.radix,
                topology.leaf_downlinks,
                topology.leaf_uplinks,
                topology.oversubscription_realised
            ),
        );
    }

    // 2. Bill of materials (already built for the chosen design): warnings.
    for it in &items {
        if it.notes.placeholder_price && !r.adjustments.overrides.contains_key(it.line.sku.as_str())
        {
            push_unique(
                warnings,
                format!(
                    "{}: the catalog price of {} is a placeholder (grade P) — get a quote or set prices.overrides",
                    fabric.as_str(),
                    it.line.sku
                ),
            );
        }
        if it.notes.placeholder_power {
            push_unique(
                warnings,
                format!(
                    "{}: the power figure of {} is a placeholder (not published)",
                    fabric.as_str(),
                    it.line.sku
                ),
            );
        }
    }

    // A job inside one NVLink domain sends nothing over the scale-out fabric: a failed NIC,
    // switch or optic does not interrupt it.
    let parts = if r.gpus <= r.nvlink_domain_gpus {
        cost::failure::PartCounts {
            planes: topology.planes,
            ..Default::default()
        }
    } else {
        failure_parts(&items, topology.planes)
    };
    let endpoints = topology.links.node_leaf;
    let switches = topology
        .leaf_switches
        .checked_add(topology.spine_switches)
        .and_then(|s| s.checked_add(topology.core_switches))
        .ok_or_else(|| {
            PlanError::field("/gpus", ErrorCode::TooLarge, "too many switches to count")
        })?;
    let (lines, notes) = items.into_iter().map(bom::BomItem::split).unzip();
    Ok(Sizing::Sized(std::sync::Arc::new(SizedFabric {
        fabric,
        nic_sku: nic.part.sku.clone(),
        topology,
        design_alternatives,
        lines,
        notes,
        switch_latency_ns: switch.latency_ns,
        nic_pcie_gen: nic.pcie_gen,
        nic_pcie_lanes: nic.pcie_lanes,
        parts,
        endpoints,
        switches,
    })))
}

/// Share of a NIC's line rate below which its PCIe link is said to waste it: a product
/// threshold, not a physical constant (400G on PCIe Gen5 x16, 48 of 50 GB/s, is not warned;
/// 800G, 48 of 100 GB/s, is).
const PCIE_BOUND_SHARE: f64 = 0.75;

/// Busy GPU-hours lost to failures of network parts above which a plan says what the failure
/// line assumes: 2 % (reached near 20,000 GPUs on one plane at the Llama 3 rates).
const FAILURE_SHARE_WARNED: f64 = 0.02;

/// Leaf–spine links beyond what the node links need at the realised ratio, as a share of the
/// node links, above which a plan says they are there.
const SPARE_UPLINKS_SAID: f64 = 0.10;

/// A two-tier fabric cables every leaf's full uplink share, as NVIDIA's published tables do,
/// whether its downlinks are all used or not: room to grow without recabling the spines, bought
/// now (audit 34: 72 NIC ports with 96 leaf–spine links on InfiniBand, 288 with 384 for 144
/// GB300 on RoCE, about $130K of modules and fibre, said only in docs/sizing.md). Said when
/// the spare links are at least [`SPARE_UPLINKS_SAID`] of the node links (1 SU of a SuperPOD,
/// 8 spare of 248, says nothing).
fn spare_uplinks_warning(s: &SizedFabric, warnings: &mut Vec<String>) {
    let t = &s.topology;
    // Two tiers: above them a core's own spare links would be a second count (audit 35).
    if t.tiers != 2 || t.spine_switches == 0 {
        return;
    }
    let (node, up) = (t.links.node_leaf, t.links.leaf_spine);
    let o = t.oversubscription_realised.max(1.0);
    let needed = (node as f64 / o).ceil() as u64;
    let spare = up.saturating_sub(needed);
    if spare == 0 || (spare as f64) < SPARE_UPLINKS_SAID * node as f64 {
        return;
    }
    let ratio = if (o - o.round()).abs() < 1e-9 {
        format!("{}:1", o.round())
    } else {
        format!("{o:.3}:1")
    };
    push_unique(
        warnings,
        format!(
            "{}: every leaf is cabled for its full uplink share ({} leaf–spine links for {} node links at {ratio}), so {spare} links are room to grow, their modules and fibre bought now; cabling only the used downlinks is not an option of this design",
            s.fabric.as_str(),
            up,
            node,
        ),
    );
}

/// The failure line charges every interruption to every GPU (one job spans the cluster, as
/// Llama 3's did): it grows with the square of the cluster and dominates the idle line at
/// 100,000 GPUs. Said when it passes [`FAILURE_SHARE_WARNED`] of busy GPU-hours.
fn failure_share_warning(
    r: &inputs::Resolved,
    fabric: Fabric,
    idle: &cost::GpuIdle,
    warnings: &mut Vec<String>,
) {
    use rust_decimal::prelude::ToPrimitive;
    // Busy GPU-hours as the idle cost counts them (`cost`'s one formula).
    let busy = cost::busy_gpu_hours_per_year(r.gpus, r.economics.busy_fraction)
        .ok()
        .and_then(|b| b.to_f64())
        .unwrap_or(0.0);
    if busy <= 0.0 {
        return;
    }
    let share = idle.failure_gpu_hours_per_year / busy;
    if share >= FAILURE_SHARE_WARNED {
        warnings.push(format!(
            "{}: failures of network parts cost {:.1} % of busy GPU-hours a year: the model assumes one job spans all {} GPUs, so every interruption stops all of them; a cluster running several smaller jobs loses less (docs/cost.md, Failures)",
            fabric.as_str(),
            share * 100.0,
            r.gpus,
        ));
    }
}

/// Warns when the host's PCIe link carries less than [`PCIE_BOUND_SHARE`] of the NIC's line
/// rate (an 800 Gb/s NIC on a PCIe Gen5 x16 server): the performance model caps the NIC at the
/// PCIe figure, so a slower, cheaper NIC performs the same.
fn pcie_bound_nic_warning(nic: &perf::NicSpec, warnings: &mut Vec<String>) {
    let line = f64::from(nic.speed_gbps) / perf::constants::BITS_PER_BYTE;
    let pcie = perf::bandwidth::pcie_gbytes_per_s(nic.pcie_gen, nic.pcie_lanes);
    if pcie < PCIE_BOUND_SHARE * line {
        push_unique(
            warnings,
            format!(
                "nic_speed_gbps: {} Gb/s NICs ({line:.0} GB/s line rate) on this server's PCIe Gen{} x{} links, which carry {pcie:.0} GB/s, run at {:.0}% of their line rate; the performance model caps them there, so slower NICs perform the same",
                nic.speed_gbps,
                nic.pcie_gen,
                nic.pcie_lanes,
                100.0 * pcie / line
            ),
        );
    }
}

/// The performance model's input for a sized fabric under the resolved request. The leaves'
/// realised ratio is the one traffic sees (1 without spines).
pub fn perf_input(r: &inputs::Resolved, s: &SizedFabric) -> perf::PerfInput {
    let topology = &s.topology;
    perf::PerfInput {
        gpus: r.gpus,
        gpus_per_node: r.gpus_per_node,
        nics_per_node: r.nics_per_node,
        gpu: perf::GpuSpec {
            nvlink_ring_busbw_gbytes_per_s: r.gpu.nvlink_ring_busbw_gbytes_per_s,
            nvls_busbw_gbytes_per_s: r.gpu.nvls_busbw_gbytes_per_s,
            gpus_per_node_max: r.gpu.gpus_per_node.max(r.gpus_per_node),
            dense_bf16_tflops: r.gpu.dense_bf16_tflops,
            nvlink_domain_gpus: r.nvlink_domain_gpus,
            pcie_gen: r.gpu.pcie_gen,
        },
        nic: perf::NicSpec {
            speed_gbps: r.nic_speed_gbps,
            pcie_gen: s.nic_pcie_gen.min(r.gpu.pcie_gen),
            pcie_lanes: s.nic_pcie_lanes,
        },
        path: perf::FabricPath {
            fabric: s.fabric,
            tiers: topology.tiers,
            planes: topology.planes,
            oversubscription: topology.oversubscription_realised.max(1.0),
            rail_optimized: r.rail_optimized,
            nodes_per_leaf: topology.nodes_per_leaf.max(1),
            leaf_uplinks: topology.leaf_uplinks.max(1),
            partial_leaf: topology.partial_leaf.as_ref().map(|l| {
                let mut split_rails = [(0.0, 0.0); 2];
                for (slot, r) in split_rails.iter_mut().zip(&l.split_rails) {
                    *slot = (f64::from(r.from_server), f64::from(r.servers));
                }
                perf::PartialLeafPath {
                    first_server: f64::from(l.first_server),
                    servers: f64::from(l.servers),
                    whole_rails: f64::from(l.whole_rails),
                    split_rails,
                    uplinks: l.uplinks.max(1),
                }
            }),
            // Rack leaves of racks that are not whole leaves (16 servers on leaves of 6: 6 + 6
            // + 4) do not tile the servers one after another.
            uniform_leaves: topology.design != sizing::Design::TorCopper
                || topology
                    .scalable_unit_nodes
                    .is_multiple_of(topology.nodes_per_leaf.max(1)),
            switch_latency_ns: f64::from(s.switch_latency_ns),
            roce_tuning: r.roce_tuning,
            in_network_reduction: r.in_network_reduction,
        },
        workload: r.workload,
    }
}

/// GPU-hours lost per year to network failures on a sized fabric.
pub fn failure_gpu_hours(r: &inputs::Resolved, s: &SizedFabric) -> f64 {
    let busy =
        rust_decimal::prelude::ToPrimitive::to_f64(&r.economics.busy_fraction).unwrap_or(1.0);
    cost::failure::failure_gpu_hours_per_year(&s.parts, &r.reliability, r.gpus, busy)
}

/// The cost model's input for a sized fabric: its BOM at list price, the idle fraction and
/// the failure hours (`traffic` names the exposed communication for the reasons).
pub fn cost_input<'s>(
    r: &inputs::Resolved,
    s: &'s SizedFabric,
    gpu_idle_fraction: f64,
    traffic: Vec<cost::TrafficShare>,
) -> FabricCostInput<'s> {
    FabricCostInput {
        fabric: s.fabric,
        gpus: r.gpus,
        endpoints: s.endpoints,
        switches: s.switches,
        lines: std::borrow::Cow::Borrowed(&s.lines),
        gpu_idle_fraction,
        failure_gpu_hours_per_year: failure_gpu_hours(r, s),
        traffic,
    }
}

/// Performance and cost of a sized fabric, with its plan entry.
fn plan_sized(
    r: &inputs::Resolved,
    s: &SizedFabric,
    warnings: &mut Vec<String>,
    detail: Detail,
) -> Result<(FabricPlan, cost::FabricCost), PlanError> {
    let fabric = s.fabric;
    // Words and lines for a reader; a figures plan (a sweep point) builds neither.
    let full = detail == Detail::Full;
    // 3. Performance.
    let perf_input = perf_input(r, s);
    let mut performance = perf::evaluate(&perf_input).map_err(perf_error)?;
    pcie_bound_nic_warning(&perf_input.nic, warnings);
    // Both RoCE tunings side by side are a reader's comparison, not a figure of the plan asked.
    if fabric == Fabric::Roce && full {
        performance.roce_tuning_side_by_side = roce_tunings(&perf_input, &performance)?;
    }

    // 4. Cost. The traffic is named only in the comparison's reasons, which a figures plan
    // does not write.
    let traffic = if full {
        performance
            .collectives
            .iter()
            .map(|c| cost::TrafficShare {
                label: cost::TrafficLabel {
                    parallelism: c.parallelism,
                    kind: c.kind,
                    group_size: c.group_size,
                    placement: c.placement,
                },
                exposed_ms: c.exposed_ms,
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut cost = cost::fabric_cost_with(
        &cost_input(r, s, performance.gpu_idle_fraction, traffic),
        &r.adjustments,
        &r.economics,
        full,
    )?;
    for w in &cost.warnings {
        push_unique(warnings, w.clone());
    }
    failure_share_warning(r, s.fabric, &cost.gpu_idle, warnings);
    if full {
        spare_uplinks_warning(s, warnings);
    }
    // The priced lines move into the plan (the comparison does not read them).
    let priced = std::mem::take(&mut cost.bom);
    let bom = full.then(|| {
        s.notes
            .iter()
            .zip(priced)
            .map(|(it, p)| {
                // An overridden price is the buyer's own: no longer a placeholder, and the
                // catalog's source speaks for the other figures only.
                let overridden = p.price.price_overridden;
                BomLineOut {
                    placeholder_price: it.placeholder_price && !overridden,
                    priced: p,
                    unit: it.unit,
                    derivation: it.derivation,
                    source: if overridden {
                        Text::from(format!(
                            "price: the request's prices.overrides; other figures: {}",
                            it.source
                        ))
                    } else {
                        it.source.clone()
                    },
                }
            })
            .collect()
    });
    let fp = FabricPlan {
        fabric,
        feasible: true,
        infeasible_reason: None,
        suggestions: Vec::new(),
        nic_sku: Some(s.nic_sku.clone()),
        topology: Some(s.topology.clone()),
        design_alternatives: s.design_alternatives.clone(),
        bom,
        capex: Some(cost.capex.clone()),
        opex_per_year: Some(cost.opex_per_year.clone()),
        tco: Some(cost.tco.clone()),
        performance: Some(performance),
        gpu_idle: Some(cost.gpu_idle.clone()),
        total_cost_usd: Some(cost.total_cost_usd),
        cost_per_useful_gpu_hour_usd: Some(cost.cost_per_useful_gpu_hour_usd),
    };
    Ok((fp, cost))
}

/// Both RoCE tunings side by side: the same job with each setting.
fn roce_tunings(
    input: &perf::PerfInput,
    asked: &PerfResult,
) -> Result<Vec<perf::RoceTuningRow>, PlanError> {
    let other = match input.path.roce_tuning {
        perf::RoceTuning::Default => perf::RoceTuning::Tuned,
        perf::RoceTuning::Tuned => perf::RoceTuning::Default,
    };
    let mut alt_input = *input;
    alt_input.path.roce_tuning = other;
    let alt = perf::evaluate(&alt_input).map_err(perf_error)?;
    let (d, t) = match input.path.roce_tuning {
        perf::RoceTuning::Default => (asked, &alt),
        perf::RoceTuning::Tuned => (&alt, asked),
    };
    let row = |tuning: perf::RoceTuning, p: &PerfResult| perf::RoceTuningRow {
        roce_tuning: tuning,
        busbw_gbytes_per_s: p.busbw_gbytes_per_s,
        exposed_comm_ms: p.exposed_comm_ms,
        gpu_idle_fraction: p.gpu_idle_fraction,
    };
    Ok(vec![
        row(perf::RoceTuning::Default, d),
        row(perf::RoceTuning::Tuned, t),
    ])
}

/// SHA-256 over the normalized request's JSON and the catalog hash; 32 hex characters.
pub fn plan_id(normalized: &PlanRequest, catalog_sha256: &str) -> String {
    thread_local! {
        /// The JSON of the last request hashed on this thread, its capacity kept for the next
        /// (a request is ~1.5 KB: a sweep point then neither allocates nor feeds the hash a
        /// token at a time).
        static TEXT: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let mut h = Sha256::new();
    // Serialising a request to JSON cannot fail (its maps are keyed by strings or an enum, and
    // a non-finite float is written as `null`). Were it to, the id would hash the empty text
    // (`json::to_writer` leaves the buffer as it was) or, on the unbuffered path, the part
    // written so far: either way an id, no panic.
    let buffered = TEXT.with(|cell| {
        let Ok(mut text) = cell.try_borrow_mut() else {
            return false;
        };
        text.clear();
        let _ = crate::json::to_writer(&mut text, normalized);
        h.update(text.as_slice());
        // A very large request (thousands of price overrides) does not pin its buffer.
        if text.capacity() > 1 << 16 {
            *text = Vec::new();
        }
        true
    });
    if !buffered {
        let _ = serde_json::to_writer(Hashing(&mut h), normalized);
    }
    h.update(b"\n");
    h.update(catalog_sha256.as_bytes());
    hex_prefix(&h.finalize(), 16)
}

/// Feeds JSON to a hash as it is written: the same bytes as `to_vec`, no buffer (when the
/// thread's buffer is taken).
struct Hashing<'a>(&'a mut Sha256);

impl std::io::Write for Hashing<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The first `n` bytes of `bytes` as lower-case hex (a plan id, an entity tag).
pub fn hex_prefix(bytes: &[u8], n: usize) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(n.saturating_mul(2));
    for &b in bytes.iter().take(n) {
        out.push(char::from(DIGITS[usize::from(b >> 4)]));
        out.push(char::from(DIGITS[usize::from(b & 0x0f)]));
    }
    out
}

fn sizing_error(e: &sizing::SizingError, fabric: Fabric) -> PlanError {
    let pointer = match e.field() {
        Some("planes") => "/topology/planes",
        Some("oversubscription") => "/topology/oversubscription",
        // Past the three-tier ceiling no tier setting helps: the cluster is too large.
        Some("max_tiers")
            if matches!(
                e,
                sizing::SizingError::ExceedsTierCeiling {
                    max_tiers: request::MaxTiers::MAX,
                    ..
                }
            ) =>
        {
            "/gpus"
        }
        Some("max_tiers") => "/topology/max_tiers",
        Some("rail_optimized") => "/topology/rail_optimized",
        Some("nic_speed_gbps") => "/nic_speed_gbps",
        Some("gpus_per_node") => "/gpus_per_node",
        Some("nics_per_node") => "/nics_per_node",
        Some("design") => "/topology/design",
        Some("nodes_per_rack") => "/topology/nodes_per_rack",
        _ => "/gpus",
    };
    PlanError::field(pointer, e.code(), format!("{}: {e}", fabric.as_str()))
}

pub fn perf_error(e: perf::PerfError) -> PlanError {
    let pointer = match &e {
        perf::PerfError::ModelDoesNotFit { .. } => "/workload/tensor_parallel".to_string(),
        perf::PerfError::OutOfRange { field, .. } => {
            let last = field.rsplit('.').next().unwrap_or(field);
            // A workload input by the registry of plan inputs (one declaration an input:
            // a new one needs no line here).
            if registry::numeric_or_keyed(&format!("workload.{last}")).is_some() {
                format!("/workload/{last}")
            } else {
                match last {
                    "oversubscription" | "planes" => format!("/topology/{last}"),
                    "gpus" | "gpus_per_node" | "nics_per_node" => format!("/{last}"),
                    _ => "/workload".to_string(),
                }
            }
        }
    };
    // The pointer names the field: the detail does not repeat it (it read
    // "workload.expert_parallel: workload.expert_parallel: 3 does not divide …" in a GET's
    // answer), unless the field has no pointer of its own.
    let detail = match e {
        perf::PerfError::OutOfRange { detail, .. } if pointer != "/workload" => detail,
        other => other.to_string(),
    };
    PlanError::field(&pointer, ErrorCode::PerformanceModel, detail)
}

/// Failure-prone parts of a fabric from its BOM lines (NICs, switches, optics, cables) and its
/// planes.
fn failure_parts(items: &[bom::BomItem], planes: u32) -> cost::failure::PartCounts {
    let mut p = cost::failure::PartCounts {
        planes,
        ..Default::default()
    };
    for it in items {
        let q = it.line.quantity;
        // A NIC-side module carrying every plane of its NIC fails like the NIC.
        if let bom::Unit::NicModule { links } = it.notes.unit
            && planes >= 2
            && links >= planes
        {
            p.all_plane_modules = p.all_plane_modules.saturating_add(q);
        }
        match it.line.category {
            Category::Nic => p.nics = p.nics.saturating_add(q),
            Category::Switch => p.switches = p.switches.saturating_add(q),
            Category::Optic => p.transceivers = p.transceivers.saturating_add(q),
            Category::Cable => p.cables = p.cables.saturating_add(q),
            _ => {}
        }
    }
    p
}

#[cfg(test)]
mod workload_tests;
