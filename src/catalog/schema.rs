//! The pricing catalog's data model: what a file under `pricing/` holds.
//!
//! Every priced or measured entry carries `source`, `date` and `grade` (see [`Grade`]); a grade-P
//! price is a placeholder and every plan that uses it says so in `warnings`. Money is
//! `rust_decimal` (a JSON string such as `"50000.00"`); power is watts.

pub use super::text::{Label, Text};
use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::fabric::Fabric;

/// Confidence grade of a figure: A vendor specification or list, B analyst or government, C a
/// reseller or derived, D rule of thumb, P placeholder (docs/catalog.md).
///
/// `A` vendor specification or list; `B` analyst or government figure; `C` a single reseller or
/// derived from sourced figures; `D` rule of thumb from a secondary source; `P` placeholder: no
/// public quote exists and plans using it carry a warning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum Grade {
    A,
    B,
    C,
    D,
    P,
}

/// Where a figure comes from. Flattened into every catalog entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Provenance {
    /// Citation: publication, page or vendor document, enough to find the figure again.
    #[schema(value_type = String)]
    pub source: Text,
    /// When the figure was published or observed (`YYYY-MM` or `YYYY-MM-DD`).
    pub date: String,
    /// Confidence grade of the price (or of the value for operating figures).
    pub grade: Grade,
    /// Grade of the power figure when it differs from the price's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub power_grade: Option<Grade>,
}

impl Provenance {
    /// True when the price is a placeholder (grade P).
    pub fn is_placeholder(&self) -> bool {
        self.grade == Grade::P
    }
}

/// A price range: what the figure could reasonably be, given how well it is known
/// (docs/catalog.md "Price ranges": list prices narrow, reseller listings wider, placeholders
/// widest). `low ≤ point price ≤ high`, checked at load. Plans use the point price; the range is
/// for uncertainty analysis.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct PriceRange {
    /// Lowest plausible price, USD (decimal string).
    pub low: Decimal,
    /// Highest plausible price, USD (decimal string).
    pub high: Decimal,
}

/// What names a part: flattened into every switch, NIC, transceiver, cable and licence.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Part {
    /// Catalog SKU (unique across the catalog).
    #[schema(value_type = String)]
    pub sku: Text,
    #[schema(value_type = String)]
    pub vendor: Text,
    #[schema(value_type = String)]
    pub description: Text,
}

/// A part's unit price and its range: flattened into every switch, NIC, transceiver and cable
/// (a licence's price may be missing: it has its own).
// No flattened field in here (provenance stays beside it): serde cannot refuse unknown fields
// through a flatten within a flatten.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Listing {
    /// Unit price, USD.
    pub price_usd: Decimal,
    /// Range of the unit price, USD.
    pub price_range_usd: PriceRange,
}

/// A catalog part with a SKU (switch, NIC, transceiver, cable, licence).
pub trait Named {
    fn part(&self) -> &Part;
}

/// The entry of `sku` among `entries`.
pub fn by_sku<'a, T: Named>(entries: &'a [T], sku: &str) -> Option<&'a T> {
    entries.iter().find(|x| x.part().sku == sku)
}

/// A priced part (switch, NIC, transceiver, cable): its name, unit power, price and source.
pub trait Listed: Named {
    /// Unit power, W.
    fn power_w(&self) -> Decimal;
    fn listing(&self) -> &Listing;
    fn provenance(&self) -> &Provenance;
}

impl Named for License {
    fn part(&self) -> &Part {
        &self.part
    }
}

/// Declares a priced catalog part: its [`Part`] (flattened first), the fields written (ending
/// with its unit `power_w`), then its [`Listing`] and [`Provenance`] (flattened last); with
/// [`Named`] and [`Listed`].
macro_rules! priced_part {
    ($(#[$meta:meta])* pub struct $name:ident { $($fields:tt)* }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            #[serde(flatten)]
            pub part: Part,
            $($fields)*
            #[serde(flatten)]
            pub listing: Listing,
            #[serde(flatten)]
            pub provenance: Provenance,
        }

        impl Named for $name {
            fn part(&self) -> &Part {
                &self.part
            }
        }

        impl Listed for $name {
            fn power_w(&self) -> Decimal {
                self.power_w
            }
            fn listing(&self) -> &Listing {
                &self.listing
            }
            fn provenance(&self) -> &Provenance {
                &self.provenance
            }
        }
    };
}

priced_part! {
    /// A switch model.
    pub struct Switch {
        /// Which fabrics the switch can run.
        pub fabrics: Vec<Fabric>,
        /// Physical ports at `port_speed_gbps`.
        pub ports: u32,
        /// Native port speed, Gb/s.
        pub port_speed_gbps: u32,
        /// Speeds one port can run at, natively or split (breakout), Gb/s; e.g. `[800, 400]`.
        pub link_speeds_gbps: Vec<u32>,
        /// Physical ports per cage (2 for twin-port OSFP cages).
        pub ports_per_cage: u32,
        /// Form factor of its cages (`OSFP`, `QSFP-DD`), where stated: as a spine of another
        /// model its leaf–spine links' spine end takes a module of this form factor. Absent:
        /// the tier's module is taken to fit.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cage: Option<String>,
        /// Port-to-port latency, ns (typical, as published).
        pub latency_ns: u32,
        /// Packet buffer, MB (0 when not published).
        pub buffer_mb: u32,
        /// Ports of a second, faster speed beside `ports`, for a leaf's uplinks (the Arista
        /// 7280CR3-32D4's 4 × 400G beside its 32 × 100G). Used only when the request names a
        /// spine of another model (`topology.spine_sku`); absent: every port is at
        /// `port_speed_gbps`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub uplink_ports: Option<UplinkPorts>,
        /// A modular chassis: its line-card slots and the modules it is built of (`ports` is
        /// then every slot filled, and the price and power are the empty chassis'). Absent: a
        /// fixed switch.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub chassis: Option<ChassisSlots>,
        /// Typical power with passive copper, W (optics counted separately).
        pub power_w: Decimal,
    }
}

/// What a modular chassis holds (docs/sizing.md "Chassis spine"): line cards as its ports need
/// them, and a fixed complement of fabric modules and supervisors. Each names an entry of
/// `chassis_modules`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ChassisSlots {
    /// Line-card slots.
    pub line_card_slots: u32,
    /// SKU of its line card (a `line_card` of `chassis_modules`).
    pub line_card: String,
    /// SKU of its fabric module.
    pub fabric_module: String,
    /// Fabric modules a chassis holds (every one is bought: the full fabric's bandwidth).
    pub fabric_modules: u32,
    /// SKU of its supervisor.
    pub supervisor: String,
    /// Supervisors a chassis holds (two: one redundant).
    pub supervisors: u32,
}

/// What a chassis module is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ModuleKind {
    LineCard,
    FabricModule,
    Supervisor,
}

priced_part! {
    /// A module of a modular chassis: a line card, a fabric module or a supervisor.
    pub struct ChassisModule {
        pub kind: ModuleKind,
        /// Front ports of a line card at the chassis' port speed (0 for the other kinds).
        #[serde(default)]
        pub ports: u32,
        /// Typical power, W.
        pub power_w: Decimal,
    }
}

/// A switch's ports of a second speed, for uplinks (docs/sizing.md "A spine of another model").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct UplinkPorts {
    /// How many.
    pub ports: u32,
    /// Speed of one, Gb/s: one link a port (no breakout).
    pub speed_gbps: u32,
    /// Form factor of their cages (`QSFP-DD`, `OSFP`): an uplink's switch-side module is of
    /// this form factor.
    pub cage: String,
}

priced_part! {
    /// A scale-out NIC model.
    pub struct Nic {
        /// Which fabrics the NIC can run.
        pub fabrics: Vec<Fabric>,
        /// Line rate of the card, Gb/s.
        pub speed_gbps: u32,
        /// Network cages on the card.
        pub ports: u32,
        /// Form factor of its cages (`OSFP`, `QSFP112`, `QSFP56`): a NIC-side module must be of
        /// this form factor. Absent: the profile's module is taken as it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub cage: Option<String>,
        /// Fastest single Ethernet link the card runs, Gb/s, when below `speed_gbps` (ConnectX-8:
        /// 800G InfiniBand, 400GbE per link): on an Ethernet fabric it then runs
        /// `speed_gbps / ethernet_max_link_gbps` links, one per plane.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub ethernet_max_link_gbps: Option<u32>,
        /// Host PCIe generation (4, 5, 6).
        pub pcie_gen: u8,
        /// Host PCIe lanes.
        pub pcie_lanes: u8,
        /// The NIC is part of the server (soldered on the HGX B300 baseboard, on a GB300 compute
        /// tray's board) and comes with it: its price is 0 (and its range 0–0), and a GPU names
        /// it as `nic_on_board`. Absent: false, an add-in card bought with the fabric.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        pub included_with_server: bool,
        /// Typical power, W.
        pub power_w: Decimal,
    }
}

/// Transmission medium of an optic or cable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Medium {
    Multimode,
    SingleMode,
    Copper,
}

priced_part! {
    /// A pluggable transceiver (or the module end of an active/passive copper cable counted per end).
    pub struct Transceiver {
        /// Form factor (`OSFP`, `QSFP112`, …).
        pub form_factor: String,
        /// Speed of each link the module serves, Gb/s.
        pub link_speed_gbps: u32,
        /// Links served by one module (2 for a twin-port module in a switch cage).
        pub links_per_module: u32,
        /// Maximum reach, m.
        pub reach_m: u32,
        pub medium: Medium,
        /// Signalling rate of one lane, Gb/s: 50 (HDR, 50G-PAM4), 100 (NDR and 400GbE, 100G-PAM4),
        /// 200 (XDR and 800GbE per port, 200G-PAM4). The two ends of a link must have the same: a
        /// module cannot downshift (NVIDIA LinkX: "200G-PAM4-based transceivers cannot downshift to
        /// 100G-PAM4 or 50G-PAM4"; HDR "cannot be directly linked" to NDR). Absent: not checked.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pub lane_gbps: Option<u32>,
        /// Power per module, W.
        pub power_w: Decimal,
    }
}

/// Kind of passive cabling.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum CableKind {
    /// Fibre patch or trunk between two transceivers, one per link.
    Fiber,
    /// Direct-attach copper, module ends included, no transceivers needed.
    Dac,
    /// Active copper, module ends included, no transceivers needed.
    Acc,
    /// Fibre splitter (one twin-port module to two single-port ends).
    Splitter,
}

priced_part! {
    /// A cable.
    pub struct Cable {
        pub kind: CableKind,
        pub medium: Medium,
        /// Length or maximum reach, m.
        pub reach_m: u32,
        /// Links carried by one cable (2 for a twin-port copper cable).
        pub links_per_cable: u32,
        /// Power per cable, W (active copper only).
        pub power_w: Decimal,
    }
}

/// How a licence is counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum LicenseBasis {
    /// Per NIC endpoint per year (e.g. NVIDIA UFM).
    PerEndpointPerYear,
    /// Per switch per year (network OS support).
    PerSwitchPerYear,
    /// One-off per switch (perpetual NOS licence).
    PerSwitch,
}

/// A software licence or subscription.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct License {
    #[serde(flatten)]
    pub part: Part,
    pub basis: LicenseBasis,
    /// Price per unit of `basis`, USD; `null` when no public price exists (quote required).
    pub price_usd: Option<Decimal>,
    /// Range of the price, USD; present exactly when `price_usd` is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub price_range_usd: Option<PriceRange>,
    #[serde(flatten)]
    pub provenance: Provenance,
}

/// GPU ids of the embedded catalog, for the OpenAPI enum of `gpu_model`: lower case, and the
/// same id in upper case (requests match ids case-insensitively).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub enum GpuModelId {
    #[serde(rename = "a100")]
    A100,
    #[serde(rename = "h100")]
    H100,
    #[serde(rename = "h200")]
    H200,
    #[serde(rename = "b200")]
    B200,
    #[serde(rename = "b300")]
    B300,
    #[serde(rename = "gb200-nvl72")]
    Gb200Nvl72,
    #[serde(rename = "gb300-nvl72")]
    Gb300Nvl72,
    #[serde(rename = "A100")]
    A100Upper,
    #[serde(rename = "H100")]
    H100Upper,
    #[serde(rename = "H200")]
    H200Upper,
    #[serde(rename = "B200")]
    B200Upper,
    #[serde(rename = "B300")]
    B300Upper,
    #[serde(rename = "GB200-NVL72")]
    Gb200Nvl72Upper,
    #[serde(rename = "GB300-NVL72")]
    Gb300Nvl72Upper,
}

/// A GPU model: what the performance and idle-cost models need.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Gpu {
    /// Request id, lower case (`a100`, `h100`, `h200`, `b200`, `b300`, `gb200-nvl72`,
    /// `gb300-nvl72`); requests match it case-insensitively.
    pub id: String,
    pub description: String,
    /// GPUs per server (node) in the reference system: 8 for HGX/DGX, 4 per NVL72 compute tray.
    pub gpus_per_node: u32,
    /// Dense BF16 tensor-core throughput per GPU, TFLOPS (10^12 FLOP/s), without sparsity
    /// (NVIDIA datasheets quote sparse figures with an asterisk: dense is half of those).
    pub dense_bf16_tflops: f64,
    /// GPUs in one NVLink domain, count: 8 on HGX/DGX, 72 on NVL72 racks. Tensor- and
    /// expert-parallel groups that fit in it stay on NVLink.
    pub nvlink_domain_gpus: u32,
    /// Scale-out NIC speed per GPU in the reference system, Gb/s (one NIC per GPU): the default
    /// `nic_speed_gbps` for this GPU.
    pub nic_speed_gbps: u32,
    /// Measured NVLink ring all-reduce busbw within one node, GB/s.
    pub nvlink_ring_busbw_gbytes_per_s: f64,
    /// NVLink SHARP (NVLS) all-reduce busbw within one node, GB/s; `null` without NVLS.
    pub nvls_busbw_gbytes_per_s: Option<f64>,
    /// PCIe generation of the host-NIC path.
    pub pcie_gen: u8,
    /// The GPU's share of server power (system max ÷ GPUs per node), W: what an owned
    /// GPU-hour pays for electricity.
    pub power_w: Decimal,
    /// Purchase price per GPU, USD; `null` when not priced (calibration-only GPUs).
    pub purchase_usd: Option<Decimal>,
    /// Range of `purchase_usd`, USD; present exactly when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub purchase_range_usd: Option<PriceRange>,
    /// Share of the server (CPUs, memory, chassis) per GPU, USD; 0 when `purchase_usd` is the
    /// whole system's price per GPU (an NVL72 rack's).
    pub server_share_usd: Option<Decimal>,
    /// On-demand rental rate per GPU-hour, USD; `null` when not priced.
    pub rental_usd_per_hour: Option<Decimal>,
    /// Range of `rental_usd_per_hour`, USD per GPU-hour; present exactly when it is.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rental_range_usd_per_hour: Option<PriceRange>,
    /// SKU of the scale-out NIC the server comes with, one per GPU (a NIC with
    /// `included_with_server`): plans at its speed use it, at $0, unless the request asks for
    /// more NICs per server than it has GPUs. Absent: the fabric profile's add-in NIC.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub nic_on_board: Option<String>,
    #[serde(flatten)]
    pub provenance: Provenance,
}

/// One operating figure with its source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Figure {
    pub value: Decimal,
    /// Unit of `value` (`USD/kWh`, `ratio`, `USD/year`, …).
    pub unit: String,
    /// The range the source gives (or the catalog assumes, as its source says), around
    /// `value`: an uncertainty analysis varies the figure over it (triangular, peak at `value`)
    /// when the request neither sets the figure nor ranges it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub range: Option<FigureRange>,
    #[serde(flatten)]
    pub provenance: Provenance,
}

/// A figure's plausible range.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FigureRange {
    #[schema(value_type = String)]
    pub low: Decimal,
    #[schema(value_type = String)]
    pub high: Decimal,
}

/// Operating defaults (requests may override each).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Operations {
    pub electricity_usd_per_kwh: Figure,
    pub pue: Figure,
    /// Hardware support per year as a share of net hardware price.
    pub support_rate: Figure,
    pub network_engineer_usd_per_year: Figure,
    pub ib_specialist_usd_per_year: Figure,
    pub gpus_per_network_fte: Figure,
    pub gpus_per_ib_specialist: Figure,
    pub depreciation_years: Figure,
    /// Spare parts held, as a share of hardware capex.
    pub spares_rate: Figure,
    /// Share of hours the cluster runs jobs.
    pub busy_fraction: Figure,
    /// Discount rate for NPV.
    pub discount_rate: Figure,
}

/// Which optics and cable a tier uses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct TierCabling {
    /// Transceiver at the NIC end (node–leaf tier only); `null` for copper.
    #[serde(default)]
    pub nic_module: Option<String>,
    /// Transceiver at a switch end; `null` for copper.
    #[serde(default)]
    pub switch_module: Option<String>,
    /// Cable or fibre per link (or per `links_per_cable` links).
    pub cable: String,
}

/// Cabling per tier at one link speed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Cabling {
    /// Link speed this cabling applies to, Gb/s.
    pub link_speed_gbps: u32,
    pub node_leaf: TierCabling,
    pub leaf_spine: TierCabling,
    pub spine_core: TierCabling,
    /// The bundle between the two switches of a `dual_switch` design (in-rack, usually
    /// copper); absent: the `leaf_spine` cabling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inter_switch: Option<TierCabling>,
    /// Node–leaf cabling inside a rack, for the `tor_copper` design (copper: no modules);
    /// absent: `tor_copper` is not offered at this speed unless the request sets
    /// `topology.cabling.node_leaf`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_leaf_in_rack: Option<TierCabling>,
}

/// What a fabric is built from by default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FabricProfile {
    pub fabric: Fabric,
    pub description: String,
    /// Switch SKU by link speed (Gb/s, as a string key).
    pub switch_by_link_speed: BTreeMap<String, String>,
    /// NIC SKU by NIC speed (Gb/s, as a string key).
    pub nic_by_speed: BTreeMap<String, String>,
    /// Licence SKUs the fabric needs.
    pub licenses: Vec<String>,
    /// Optics and cables per tier, per link speed.
    pub cabling: Vec<Cabling>,
    #[serde(flatten)]
    pub provenance: Provenance,
}

/// A whole pricing catalog, as stored in `pricing/*.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CatalogData {
    /// Catalog id, used in requests (`catalog`) and paths (`/v1/catalogs/{id}`).
    pub id: String,
    /// Catalog version (semantic or date-based).
    pub version: String,
    /// Publication date (`YYYY-MM-DD`); the newest catalog is the default.
    pub published: String,
    pub description: String,
    /// Currency of every price (only `USD` is supported).
    pub currency: String,
    pub switches: Vec<Switch>,
    pub nics: Vec<Nic>,
    pub transceivers: Vec<Transceiver>,
    pub cables: Vec<Cable>,
    pub licenses: Vec<License>,
    /// Modules of the modular chassis among `switches` (line cards, fabric modules,
    /// supervisors); absent: none.
    #[serde(default)]
    pub chassis_modules: Vec<ChassisModule>,
    pub gpus: Vec<Gpu>,
    pub operations: Operations,
    pub fabric_profiles: Vec<FabricProfile>,
}
