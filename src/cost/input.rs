//! Inputs of the cost model: priced-BOM lines from sizing, the buyer's price adjustments, the
//! economic assumptions, and the per-fabric quantities the opex formulas need.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::error::CostError;
use super::money::check_range;
use crate::catalog::{Label, Text};
use crate::fabric::Fabric;

/// Bill-of-materials category; decides which `capex.*` bucket a line lands in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// Scale-out NICs (`capex.nics_usd`).
    Nic,
    /// Leaf / spine / core switches (`capex.switches_usd`).
    Switch,
    /// Transceivers (`capex.optics_usd`).
    Optic,
    /// Copper cables, fibre runs, splitters (`capex.cables_usd`).
    Cable,
    /// One-off software licences (`capex.licenses_usd`; not hardware, so no support or spares).
    License,
}

impl Category {
    /// Every category, in `capex` order.
    pub const ALL: [Category; 5] = [
        Category::Nic,
        Category::Switch,
        Category::Optic,
        Category::Cable,
        Category::License,
    ];

    /// The wire name (`nic`, `switch`, `optic`, `cable`, `license`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Category::Nic => "nic",
            Category::Switch => "switch",
            Category::Optic => "optic",
            Category::Cable => "cable",
            Category::License => "license",
        }
    }
}

/// Read as a string (not as serde's enum), so that as a map key (`prices.discounts.category`)
/// a bad value's error names the key: `/prices/discounts/category/optic` for a discount of 1.5
/// (the pointer stopped at the map).
impl<'de> Deserialize<'de> for Category {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Name;
        impl serde::de::Visitor<'_> for Name {
            type Value = Category;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a part category")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Category, E> {
                Category::ALL
                    .into_iter()
                    .find(|c| c.as_str() == v)
                    .ok_or_else(|| E::unknown_variant(v, &CATEGORY_NAMES))
            }
        }
        d.deserialize_str(Name)
    }
}

/// The wire names of [`Category::ALL`], for serde's "expected one of".
const CATEGORY_NAMES: [&str; Category::ALL.len()] = {
    let mut names = [""; Category::ALL.len()];
    let mut i = 0;
    while i < names.len() {
        names[i] = Category::ALL[i].as_str();
        i += 1;
    }
    names
};

/// One BOM line as sizing produces it, at catalog (list) price.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct BomLine {
    /// Catalog SKU id; the key of `prices.overrides`.
    #[schema(value_type = String)]
    pub sku: Text,
    /// Vendor id; the key of `prices.vendor_discounts`.
    #[schema(value_type = String)]
    pub vendor: Text,
    /// What the part is; the key of `prices.category_discounts`.
    pub category: Category,
    /// Human description, copied to the priced line.
    #[schema(value_type = String)]
    pub description: Label,
    /// Units.
    pub quantity: u64,
    /// Catalog price of one unit, USD, before discounts.
    #[serde(serialize_with = "crate::json::decimal")]
    pub list_unit_price_usd: Decimal,
    /// Typical power of one unit, watts.
    #[serde(serialize_with = "crate::json::decimal")]
    pub power_w: Decimal,
}

/// The buyer's price adjustments (`prices.*`).
///
/// - An override is a **net** unit price: it replaces the list price and no discount applies
///   on top.
/// - Otherwise vendor and category discounts **compound**:
///   `unit = list × (1 − vendor_discount) × (1 − category_discount)` (a missing entry is 0).
///   E.g. 10 % off everything from a vendor and 20 % off optics gives 28 % off that vendor's
///   optics.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(default)]
pub struct PriceAdjustments {
    /// Net unit price by SKU id, USD (≥ 0). Replaces the list price; no discount on top.
    pub overrides: BTreeMap<String, Decimal>,
    /// Discount by vendor id, a fraction in [0, 1] (0.25 = 25 % off list).
    pub vendor_discounts: BTreeMap<String, Decimal>,
    /// Discount by category, a fraction in [0, 1]; compounds with the vendor discount.
    pub category_discounts: BTreeMap<Category, Decimal>,
}

/// Economic assumptions (`economics.*`). Defaults and sources: docs/cost.md and the catalog.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Economics {
    /// TCO horizon in years, 1..=15.
    pub years: u32,
    /// Yearly discount rate for the NPV, a fraction in [0, 1] (0.08 = 8 %).
    #[serde(serialize_with = "crate::json::decimal")]
    pub discount_rate: Decimal,
    /// Electricity price, USD per kWh (≥ 0).
    #[serde(serialize_with = "crate::json::decimal")]
    pub electricity_usd_per_kwh: Decimal,
    /// Power usage effectiveness, facility ÷ IT power (≥ 1).
    #[serde(serialize_with = "crate::json::decimal")]
    pub pue: Decimal,
    /// Hardware support per year as a fraction of hardware capex, [0, 1].
    #[serde(serialize_with = "crate::json::decimal")]
    pub support_rate: Decimal,
    /// Fully loaded network engineer cost, USD per year (≥ 0).
    #[serde(serialize_with = "crate::json::decimal")]
    pub network_engineer_usd_per_year: Decimal,
    /// Fully loaded InfiniBand / HPC fabric specialist cost, USD per year (≥ 0).
    #[serde(serialize_with = "crate::json::decimal")]
    pub ib_specialist_usd_per_year: Decimal,
    /// GPUs per network FTE, either fabric (> 0).
    #[serde(serialize_with = "crate::json::decimal")]
    pub gpus_per_network_fte: Decimal,
    /// GPUs per additional InfiniBand specialist FTE, InfiniBand only (> 0).
    #[serde(serialize_with = "crate::json::decimal")]
    pub gpus_per_ib_specialist: Decimal,
    /// UFM licence, USD per NIC endpoint per year, InfiniBand only (≥ 0). `None` = no quote:
    /// the plan gets a "quote required" warning and UFM is left out, never a silent $0.
    #[serde(serialize_with = "crate::json::opt_decimal")]
    pub ufm_usd_per_endpoint_per_year: Option<Decimal>,
    /// Ethernet NOS licence / subscription, USD per switch per year, Ethernet fabrics (≥ 0).
    #[serde(serialize_with = "crate::json::decimal")]
    pub ethernet_nos_usd_per_switch_per_year: Decimal,
    /// Spares budget per year as a fraction of hardware capex, [0, 1]
    /// (default [`crate::cost::DEFAULT_SPARES_RATE`]).
    #[serde(serialize_with = "crate::json::decimal")]
    pub spares_rate: Decimal,
    /// Value of one GPU-hour, USD (≥ 0): rental rate or owned cost.
    #[serde(serialize_with = "crate::json::decimal")]
    pub gpu_hour_usd: Decimal,
    /// Share of the year the cluster runs jobs, [0, 1].
    #[serde(serialize_with = "crate::json::decimal")]
    pub busy_fraction: Decimal,
    /// Straight-line depreciation life of the network and the GPUs, years (≥ 1).
    pub depreciation_years: u32,
}

/// Everything about one fabric the cost model needs besides prices and economics.
#[derive(Debug, Clone, PartialEq)]
pub struct FabricCostInput<'a> {
    /// Which fabric (decides staff and licence rules).
    pub fabric: Fabric,
    /// GPUs in the cluster.
    pub gpus: u32,
    /// NIC ports on the fabric (UFM is licensed per endpoint).
    pub endpoints: u64,
    /// Switches on the fabric (Ethernet NOS is licensed per switch).
    pub switches: u64,
    /// The BOM at list price: borrowed from the sized fabric, copied only by a caller that
    /// rewrites prices in place (the uncertainty samples).
    pub lines: std::borrow::Cow<'a, [BomLine]>,
    /// Share of busy GPU time lost waiting on the network, from the performance model, [0, 1].
    pub gpu_idle_fraction: f64,
    /// GPU-hours per year lost to network failures (`failure::failure_gpu_hours_per_year`), ≥ 0.
    pub failure_gpu_hours_per_year: f64,
    /// Exposed communication per step by traffic (from the performance model), for the
    /// comparison's reasons. Empty = not named.
    pub traffic: Vec<TrafficShare>,
}

/// One kind of traffic and the time per step it leaves exposed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrafficShare {
    /// What the traffic is, as the reasons name it.
    pub label: TrafficLabel,
    /// Exposed ms per step.
    pub exposed_ms: f64,
}

/// Names a traffic of a training step, written when shown: `the expert all-to-all over 64 GPUs
/// (network)`. Two labels are equal when they say the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrafficLabel {
    /// Which parallelism sends it (`data`, `expert`, …).
    pub parallelism: &'static str,
    /// The collective, as the performance model names it (`all_to_all`); written with `-`.
    pub kind: &'static str,
    /// Ranks in one group.
    pub group_size: u32,
    /// `nvlink` or `network`.
    pub placement: &'static str,
}

impl std::fmt::Display for TrafficLabel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "the {} ", self.parallelism)?;
        for (i, word) in self.kind.split('_').enumerate() {
            if i > 0 {
                f.write_str("-")?;
            }
            f.write_str(word)?;
        }
        write!(f, " over {} GPUs ({})", self.group_size, self.placement)
    }
}

const FRACTION: &str = "must be between 0 and 1";
const NON_NEGATIVE: &str = "must not be negative";
const POSITIVE: &str = "must be greater than 0";

impl Economics {
    /// Checks every range documented on the fields.
    pub fn validate(&self) -> Result<(), CostError> {
        let zero = Some(Decimal::ZERO);
        let one = Some(Decimal::ONE);
        if !(1..=15).contains(&self.years) {
            return Err(CostError::Invalid {
                input: "economics.years",
                reason: "must be between 1 and 15",
            });
        }
        check_range(
            self.discount_rate,
            zero,
            one,
            "economics.discount_rate",
            FRACTION,
        )?;
        check_range(
            self.electricity_usd_per_kwh,
            zero,
            None,
            "economics.electricity_usd_per_kwh",
            NON_NEGATIVE,
        )?;
        check_range(self.pue, one, None, "economics.pue", "must be at least 1")?;
        check_range(
            self.support_rate,
            zero,
            one,
            "economics.support_rate",
            FRACTION,
        )?;
        check_range(
            self.network_engineer_usd_per_year,
            zero,
            None,
            "economics.network_engineer_usd_per_year",
            NON_NEGATIVE,
        )?;
        check_range(
            self.ib_specialist_usd_per_year,
            zero,
            None,
            "economics.ib_specialist_usd_per_year",
            NON_NEGATIVE,
        )?;
        for (v, input) in [
            (self.gpus_per_network_fte, "economics.gpus_per_network_fte"),
            (
                self.gpus_per_ib_specialist,
                "economics.gpus_per_ib_specialist",
            ),
        ] {
            if v <= Decimal::ZERO {
                return Err(CostError::Invalid {
                    input,
                    reason: POSITIVE,
                });
            }
        }
        if let Some(ufm) = self.ufm_usd_per_endpoint_per_year {
            check_range(
                ufm,
                zero,
                None,
                "economics.ufm_usd_per_endpoint_per_year",
                NON_NEGATIVE,
            )?;
        }
        check_range(
            self.ethernet_nos_usd_per_switch_per_year,
            zero,
            None,
            "economics.ethernet_nos_usd_per_switch_per_year",
            NON_NEGATIVE,
        )?;
        check_range(
            self.spares_rate,
            zero,
            one,
            "economics.spares_rate",
            FRACTION,
        )?;
        check_range(
            self.gpu_hour_usd,
            zero,
            None,
            "economics.gpu_hour_usd",
            NON_NEGATIVE,
        )?;
        check_range(
            self.busy_fraction,
            zero,
            one,
            "utilization.busy_fraction",
            FRACTION,
        )?;
        Ok(())
    }
}

impl PriceAdjustments {
    /// Checks overrides ≥ 0 and discounts in [0, 1].
    pub fn validate(&self) -> Result<(), CostError> {
        let zero = Some(Decimal::ZERO);
        let one = Some(Decimal::ONE);
        for v in self.overrides.values() {
            check_range(*v, zero, None, "prices.overrides", NON_NEGATIVE)?;
        }
        for v in self.vendor_discounts.values() {
            check_range(*v, zero, one, "prices.vendor_discounts", FRACTION)?;
        }
        for v in self.category_discounts.values() {
            check_range(*v, zero, one, "prices.category_discounts", FRACTION)?;
        }
        Ok(())
    }
}

/// Checks a list unit price: not negative.
pub(crate) fn check_list_price(list_unit_price_usd: Decimal) -> Result<(), CostError> {
    check_range(
        list_unit_price_usd,
        Some(Decimal::ZERO),
        None,
        "bom.list_unit_price_usd",
        NON_NEGATIVE,
    )
}

/// Checks BOM lines: list price and power not negative.
pub(crate) fn validate_lines(lines: &[BomLine]) -> Result<(), CostError> {
    for line in lines {
        check_list_price(line.list_unit_price_usd)?;
        check_range(
            line.power_w,
            Some(Decimal::ZERO),
            None,
            "bom.power_w",
            NON_NEGATIVE,
        )?;
    }
    Ok(())
}
