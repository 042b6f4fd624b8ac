//! What a plan answers: the plan, each fabric's entry, its BOM lines and design alternatives,
//! and the catalog that priced it. The types every surface (JSON, CSV, report, charts) reads.

pub mod analysis;

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::bom;
use super::request::PlanRequest;
use crate::catalog::Text;
use crate::cost::{self, Capex, Comparison, GpuIdle, OpexPerYear, Tco};
use crate::fabric::Fabric;
use crate::perf::PerfResult;
use crate::sizing::{Design, Topology};

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
    /// `chassis_spine`, `tor_copper`).
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
    /// IT power of this design's network, Σ(quantity × power_w) over its BOM, watts (before
    /// PUE): the chosen one's is `opex_per_year.it_power_w`.
    #[serde(serialize_with = "crate::json::decimal")]
    pub it_power_w: Decimal,
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
    /// The network capex's straight-line depreciation over `economics.depreciation_years`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depreciation: Option<cost::Depreciation>,
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
    /// The training run `workload.train_tokens` asks for: days to train, GPU-hours, cost per
    /// million tokens (absent without `train_tokens` and on infeasible fabrics).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub training: Option<cost::Training>,
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
    /// The capex's depreciation schedule (a full plan's).
    pub depreciation: Option<&'a cost::Depreciation>,
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
            depreciation: self.depreciation.as_ref(),
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

    pub(super) fn infeasible(
        fabric: Fabric,
        reason: String,
        suggestions: Vec<String>,
    ) -> FabricPlan {
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
            depreciation: None,
            performance: None,
            gpu_idle: None,
            training: None,
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
    pub uncertainty: Option<analysis::Uncertainty>,
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
