//! Resolves a request against a catalog: every default filled in, every catalog reference
//! checked. Produces the concrete values the pipeline uses and the normalized request that the
//! plan echoes as `inputs` (post it back and you get the same plan).

use crate::error_code::ErrorCode;
use std::sync::Arc;

use rust_decimal::Decimal;

use super::PlanError;
use super::request::*;
use crate::catalog::{Catalog, CatalogSet, Gpu};
use crate::cost::{Economics, PriceAdjustments, failure};
use crate::fabric::Fabric;
use crate::perf::{RoceTuning, Workload};

/// Default GPU model.
pub const DEFAULT_GPU_MODEL: &str = "h100";
/// Default NIC speed, Gb/s (ConnectX-7 / NDR class).
pub const DEFAULT_NIC_SPEED_GBPS: u32 = 400;

pub use crate::fabric::NoteScope;
pub use hardware::nvlink_domain_gpus;
pub use nic::nic_for;
pub use placement::straddle_words;
pub use topology::default_planes;

mod experts;
mod hardware;
mod nic;
mod placement;
mod topology;
mod workload;

/// Concrete values for one plan.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub catalog: Arc<Catalog>,
    pub gpu: Gpu,
    pub gpus: u32,
    pub gpus_per_node: u32,
    /// GPUs in one NVLink domain ([`nvlink_domain_gpus`]): the server, or an NVL72 rack.
    pub nvlink_domain_gpus: u32,
    pub nics_per_node: u32,
    pub nic_speed_gbps: u32,
    /// The server's own NIC the plan uses (the GPU's `nic_on_board`, $0): at the speed asked,
    /// when the server has one for each NIC asked; `None`: the fabric profile's add-in card.
    pub nic_on_board: Option<String>,
    pub fabrics: Vec<Fabric>,
    pub oversubscription: f64,
    pub rail_optimized: bool,
    /// The request's planes; `None`: per fabric, [`default_planes`].
    pub planes: Option<u32>,
    pub max_tiers: u8,
    /// `auto` or a named design (docs/sizing.md "Designs").
    pub design: crate::sizing::DesignChoice,
    /// Servers per rack, when the buyer gave it (sizes `tor_copper`).
    pub nodes_per_rack: Option<u32>,
    pub switch_sku: Option<String>,
    pub in_network_reduction: bool,
    pub roce_tuning: RoceTuning,
    pub cabling: CablingRequest,
    pub workload: Workload,
    pub reliability: failure::Reliability,
    pub economics: Economics,
    pub gpu_hour_basis: GpuHourBasis,
    pub adjustments: PriceAdjustments,
    /// Assumption notes raised while resolving (e.g. no GPU price).
    pub warnings: Vec<String>,
    /// Notes about figures only some fabrics count (the NOS licence's price, a placeholder
    /// operating figure): the plan says each only when it builds a fabric of its scope (audit
    /// 25 F1: a NOS note was said for an Ethernet fabric that could not be built, beside an
    /// InfiniBand one).
    pub fabric_notes: Vec<(NoteScope, String)>,
    /// The request with every default filled in.
    pub normalized: PlanRequest,
}

/// Fills defaults and checks catalog references.
pub fn resolve(req: &PlanRequest, catalogs: &CatalogSet) -> Result<Resolved, PlanError> {
    let catalog = hardware::catalog(req, catalogs)?;
    let hw = hardware::resolve(req, &catalog)?;
    let (gpus, gpus_per_node, nics_per_node, nic_speed_gbps) = (
        hw.gpus,
        hw.gpus_per_node,
        hw.nics_per_node,
        hw.nic_speed_gbps,
    );
    let topology = topology::resolve(req, &catalog, nic_speed_gbps, &hw.fabrics)?;

    let job = workload::resolve(req, gpus, gpus_per_node)?;
    let rel = req.reliability.clone().unwrap_or_default();
    let defaults = failure::Reliability::default();
    let rate =
        |v: Option<FailuresPerPartYear>, d: f64| v.map(FailuresPerPartYear::get).unwrap_or(d);
    let reliability = failure::Reliability {
        nic_failures_per_year: rate(rel.nic_failures_per_year, defaults.nic_failures_per_year),
        switch_failures_per_year: rate(
            rel.switch_failures_per_year,
            defaults.switch_failures_per_year,
        ),
        transceiver_failures_per_year: rate(
            rel.transceiver_failures_per_year,
            defaults.transceiver_failures_per_year,
        ),
        cable_failures_per_year: rate(
            rel.cable_failures_per_year,
            defaults.cable_failures_per_year,
        ),
        checkpoint_interval_minutes: rel
            .checkpoint_interval_minutes
            .map(Minutes::get)
            .unwrap_or(defaults.checkpoint_interval_minutes),
        restart_minutes: rel
            .restart_minutes
            .map(Minutes::get)
            .unwrap_or(defaults.restart_minutes),
    };

    // Economics: request, else catalog operating figures.
    let ops = &catalog.data.operations;
    let e = req.economics.clone().unwrap_or_default();
    let busy_fraction = req
        .utilization
        .as_ref()
        .and_then(|u| u.busy_fraction.map(Fraction::get))
        .unwrap_or(ops.busy_fraction.value);
    let mut warnings: Vec<String> = job.expert_note.clone().into_iter().collect();
    placement::warn(&hw, &job, &mut warnings);
    let nic_on_board = nic::on_board(&catalog, &hw, &mut warnings);
    placement::warn_inside_one_domain(&hw, &mut warnings);
    let electricity = e
        .electricity_usd_per_kwh
        .map(ElectricityUsdPerKwh::get)
        .unwrap_or(ops.electricity_usd_per_kwh.value);
    let pue = e.pue.map(Pue::get).unwrap_or(ops.pue.value);
    let gpu_hour_basis = e.gpu_hour_basis.unwrap_or_default();
    // `None`: the catalog has no price to derive it from (counted at $0, with a warning).
    let priced_gpu_hour = match e.gpu_hour_usd.map(GpuHourUsd::get) {
        Some(v) => Some(v),
        None => default_gpu_hour(
            &hw.gpu,
            gpu_hour_basis,
            ops,
            pue,
            electricity,
            &mut warnings,
        )?,
    };
    let gpu_hour_usd = priced_gpu_hour.unwrap_or(Decimal::ZERO);
    // `placeholder`: the catalog's price was used and is grade P.
    let mut fabric_notes = Vec::new();
    let (nos, nos_placeholder) = match e.ethernet_nos_usd_per_switch_per_year {
        Some(v) => (v.get(), false),
        None => {
            let licence = catalog
                .data
                .licenses
                .iter()
                .find(|l| l.basis == crate::catalog::LicenseBasis::PerSwitchPerYear);
            let price = licence.and_then(|l| l.price_usd).unwrap_or(Decimal::ZERO);
            // A placeholder licence price is a figure nobody published: say so wherever an
            // Ethernet fabric's opex counts it (the plan says these notes only when it builds
            // one), as a placeholder BOM price is said.
            // A licence without a price (quote required, as UFM) is no figure either: its $0
            // is said, not charged silently (audit 24 F4).
            let unpriced = licence.is_some_and(|l| l.price_usd.is_none());
            let placeholder = licence.is_some_and(|l| l.provenance.is_placeholder()) || unpriced;
            if let Some(l) = licence.filter(|_| placeholder) {
                fabric_notes.push((NoteScope::Ethernet, if unpriced {
                    format!(
                        "Ethernet: the NOS licence ({}) has no price in the catalog (quote required) — Ethernet opex counts $0 for it; set economics.ethernet_nos_usd_per_switch_per_year",
                        l.part.sku
                    )
                } else {
                    format!(
                        "Ethernet: the NOS licence price ({}, ${} per switch per year) is a placeholder (grade P) — Ethernet opex counts it as given; set economics.ethernet_nos_usd_per_switch_per_year",
                        l.part.sku, price
                    )
                }));
            }
            (price, placeholder)
        }
    };
    // The request's value, else the catalog's operating figure.
    macro_rules! given_or_catalog {
        ($field:ident) => {
            e.$field.map(|v| v.get()).unwrap_or(ops.$field.value)
        };
    }
    let economics = Economics {
        years: e.years.unwrap_or_default().get(),
        discount_rate: given_or_catalog!(discount_rate),
        electricity_usd_per_kwh: electricity,
        pue,
        support_rate: given_or_catalog!(support_rate),
        network_engineer_usd_per_year: given_or_catalog!(network_engineer_usd_per_year),
        ib_specialist_usd_per_year: given_or_catalog!(ib_specialist_usd_per_year),
        gpus_per_network_fte: given_or_catalog!(gpus_per_network_fte),
        gpus_per_ib_specialist: given_or_catalog!(gpus_per_ib_specialist),
        ufm_usd_per_endpoint_per_year: e.ufm_usd_per_endpoint_per_year.map(UsdPerEndpointYear::get),
        ethernet_nos_usd_per_switch_per_year: nos,
        spares_rate: given_or_catalog!(spares_rate),
        gpu_hour_usd,
        busy_fraction,
    };
    // Catalog operating figures that are placeholders (grade P), where the plan counts them:
    // said as a placeholder part price is, where a fabric the plan builds counts them (audit
    // 26 F6: the InfiniBand specialist ratio made $1.25M of a $2.77M gap without a word). By
    // value, not by whether the request gave it: the echoed inputs, posted back, give the
    // figure and must give the same plan. The sentences are written once a catalog
    // (`Catalog::notes`): formatting them in every plan was 3.6 % of a figures plan.
    let notes = catalog.notes.get_or_init(|| placeholder_notes(ops));
    for (i, value, scope, text) in notes {
        if PLACEHOLDER_FIGURES.get(*i).map(|f| (f.used)(&economics)) == Some(*value) {
            fabric_notes.push((*scope, text.clone()));
        }
    }

    let prices = req.prices.clone().unwrap_or_default();
    let overrides = prices.overrides.clone().unwrap_or_default();
    for sku in overrides.keys() {
        let known = catalog.switch(sku).is_some()
            || catalog.nic(sku).is_some()
            || catalog.transceiver(sku).is_some()
            || catalog.cable(sku).is_some()
            || catalog.license(sku).is_some();
        let at = || {
            format!(
                "/prices/overrides/{}",
                crate::error_code::escape_pointer(sku)
            )
        };
        if !known {
            return Err(PlanError::field(
                &at(),
                ErrorCode::UnknownSku,
                format!("no SKU '{sku}' in catalog '{}'", catalog.id()),
            ));
        }
        // A yearly subscription is no BOM line: an override would be echoed and change
        // nothing. Its price is an economics input.
        use crate::catalog::LicenseBasis;
        let yearly = match catalog.license(sku).map(|l| l.basis) {
            Some(LicenseBasis::PerEndpointPerYear) => {
                Some("per endpoint per year: set economics.ufm_usd_per_endpoint_per_year")
            }
            Some(LicenseBasis::PerSwitchPerYear) => {
                Some("per switch per year: set economics.ethernet_nos_usd_per_switch_per_year")
            }
            Some(LicenseBasis::PerSwitch) | None => None,
        };
        if let Some(priced) = yearly {
            return Err(PlanError::field(
                &at(),
                ErrorCode::NotOverridable,
                format!(
                    "'{sku}' is a yearly subscription, not a part an override prices; it is priced {priced}"
                ),
            ));
        }
    }
    let discounts = prices.discounts.clone().unwrap_or_default();
    // A discount for a vendor no part has would change nothing: say so rather than echo it.
    if let Some(given) = discounts.vendor.as_ref().filter(|m| !m.is_empty()) {
        let vendors = catalog.vendors();
        if let Some(vendor) = given.keys().find(|k| !vendors.contains(&k.as_str())) {
            return Err(PlanError::field(
                &format!(
                    "/prices/discounts/vendor/{}",
                    crate::error_code::escape_pointer(vendor)
                ),
                ErrorCode::UnknownValue,
                unknown_vendor(&catalog, vendor),
            ));
        }
    }
    let adjustments = PriceAdjustments {
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.clone(), v.get()))
            .collect(),
        vendor_discounts: discounts
            .vendor
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.get()))
            .collect(),
        category_discounts: discounts
            .category
            .iter()
            .flatten()
            .map(|(k, v)| (*k, v.get()))
            .collect(),
    };

    topology::warn_in_network_reduction(&topology, &hw.fabrics, &mut warnings);

    let normalized = PlanRequest {
        gpus: Gpus::echo(gpus),
        gpu_model: Some(hw.gpu.id.clone()),
        gpus_per_node: Some(GpusPerNode::echo(gpus_per_node)),
        nics_per_node: Some(NicsPerNode::echo(nics_per_node)),
        nic_speed_gbps: Some(NicSpeedGbps::echo(nic_speed_gbps)),
        fabrics: Some(hw.fabrics.clone()),
        catalog: Some(catalog.id().to_string()),
        topology: Some(topology::echo(
            &topology,
            &catalog,
            &hw.fabrics,
            nic_speed_gbps,
        )),
        workload: Some(workload::echo(&job)),
        reliability: Some(ReliabilityRequest {
            nic_failures_per_year: Some(FailuresPerPartYear::echo(
                reliability.nic_failures_per_year,
            )),
            switch_failures_per_year: Some(FailuresPerPartYear::echo(
                reliability.switch_failures_per_year,
            )),
            transceiver_failures_per_year: Some(FailuresPerPartYear::echo(
                reliability.transceiver_failures_per_year,
            )),
            cable_failures_per_year: Some(FailuresPerPartYear::echo(
                reliability.cable_failures_per_year,
            )),
            checkpoint_interval_minutes: Some(Minutes::echo(
                reliability.checkpoint_interval_minutes,
            )),
            restart_minutes: Some(Minutes::echo(reliability.restart_minutes)),
        }),
        utilization: Some(UtilizationRequest {
            busy_fraction: Some(Fraction::echo(busy_fraction)),
        }),
        economics: Some(EconomicsRequest {
            years: Some(Years::echo(economics.years)),
            discount_rate: Some(Fraction::echo(economics.discount_rate)),
            electricity_usd_per_kwh: Some(ElectricityUsdPerKwh::echo(
                economics.electricity_usd_per_kwh,
            )),
            pue: Some(Pue::echo(economics.pue)),
            support_rate: Some(Fraction::echo(economics.support_rate)),
            network_engineer_usd_per_year: Some(SalaryUsdPerYear::echo(
                economics.network_engineer_usd_per_year,
            )),
            ib_specialist_usd_per_year: Some(SalaryUsdPerYear::echo(
                economics.ib_specialist_usd_per_year,
            )),
            gpus_per_network_fte: Some(GpusPerFte::echo(economics.gpus_per_network_fte)),
            gpus_per_ib_specialist: Some(GpusPerFte::echo(economics.gpus_per_ib_specialist)),
            spares_rate: Some(Fraction::echo(economics.spares_rate)),
            // No value when none could be derived: the $0 it is counted at is not an input
            // (a given 0 is), so the two requests get different ids, as they get different
            // warnings.
            gpu_hour_usd: priced_gpu_hour.map(|_| GpuHourUsd::echo(economics.gpu_hour_usd)),
            // The basis only derives the default GPU-hour value: echoed when it was used (or
            // given), not invented when the user set the value itself.
            gpu_hour_basis: (e.gpu_hour_usd.is_none() || e.gpu_hour_basis.is_some())
                .then_some(gpu_hour_basis),
            ufm_usd_per_endpoint_per_year: economics
                .ufm_usd_per_endpoint_per_year
                .map(UsdPerEndpointYear::echo),
            // Like the GPU-hour value: a placeholder price is not an input (a given one is),
            // so the two requests get different ids, as they get different warnings.
            ethernet_nos_usd_per_switch_per_year: (!nos_placeholder)
                .then(|| UsdPerSwitchYear::echo(economics.ethernet_nos_usd_per_switch_per_year)),
        }),
        prices: Some(PricesRequest {
            overrides: Some(
                overrides
                    .into_iter()
                    .map(|(k, v)| (k, UnitPriceUsd::echo(v.get())))
                    .collect(),
            ),
            discounts: Some(DiscountsRequest {
                vendor: Some(
                    adjustments
                        .vendor_discounts
                        .iter()
                        .map(|(k, v)| (k.clone(), Discount::echo(*v)))
                        .collect(),
                ),
                category: Some(
                    adjustments
                        .category_discounts
                        .iter()
                        .map(|(k, v)| (*k, Discount::echo(*v)))
                        .collect(),
                ),
            }),
        }),
        uncertainty: req.uncertainty.as_ref().map(|u| UncertaintyRequest {
            samples: Some(u.samples.unwrap_or_default()),
            seed: Some(u.seed.unwrap_or_default()),
            catalog_price_ranges: Some(u.catalog_price_ranges.unwrap_or(true)),
            inputs: Some(u.inputs.clone().unwrap_or_default()),
        }),
    };

    Ok(Resolved {
        catalog,
        gpu: hw.gpu,
        gpus,
        gpus_per_node,
        nvlink_domain_gpus: hw.domain_gpus,
        nics_per_node,
        nic_speed_gbps,
        nic_on_board,
        fabrics: hw.fabrics,
        oversubscription: topology.oversubscription,
        rail_optimized: topology.rail_optimized,
        planes: topology.planes,
        max_tiers: topology.max_tiers,
        design: topology.design,
        nodes_per_rack: topology.nodes_per_rack,
        switch_sku: topology.switch_sku,
        in_network_reduction: topology.in_network_reduction,
        roce_tuning: topology.roce_tuning,
        cabling: topology.cabling,
        workload: job.workload,
        reliability,
        economics,
        gpu_hour_basis,
        adjustments,
        warnings,
        fabric_notes,
        normalized,
    })
}

/// A catalog operating figure a plan counts, which the catalog may grade placeholder.
struct CountedFigure {
    figure: fn(&crate::catalog::Operations) -> &crate::catalog::Figure,
    /// The value the plan uses (the request's, else the catalog's).
    used: fn(&Economics) -> Decimal,
    /// The request input that sets it.
    input: &'static str,
    scope: NoteScope,
    counted_by: &'static str,
}

/// One [`CountedFigure`]: `section.field` is the request input and names the field of
/// [`crate::catalog::Operations`] and of [`Economics`] alike.
macro_rules! counted {
    ($section:ident . $field:ident, $scope:ident, $counted_by:literal) => {
        CountedFigure {
            figure: |o| &o.$field,
            used: |e| e.$field,
            input: concat!(stringify!($section), ".", stringify!($field)),
            scope: NoteScope::$scope,
            counted_by: $counted_by,
        }
    };
}

/// The operating figures whose placeholders a plan says, one table for the catalog's side and
/// the plan's ([`placeholder_notes`] indexes it).
const PLACEHOLDER_FIGURES: [CountedFigure; 4] = [
    counted!(economics.discount_rate, Any, "the TCO's present value"),
    counted!(economics.spares_rate, Any, "opex"),
    counted!(utilization.busy_fraction, Any, "GPU-idle cost"),
    counted!(
        economics.gpus_per_ib_specialist,
        Infiniband,
        "InfiniBand staff opex"
    ),
];

/// The catalog's [`PLACEHOLDER_FIGURES`] graded placeholder, each as (its index, the catalog's
/// value, the fabrics it concerns, the sentence said when a plan uses that value).
fn placeholder_notes(ops: &crate::catalog::Operations) -> Vec<(usize, Decimal, NoteScope, String)> {
    PLACEHOLDER_FIGURES
        .iter()
        .enumerate()
        .map(|(i, c)| (i, (c.figure)(ops), c))
        .filter(|(_, figure, _)| figure.provenance.is_placeholder())
        .map(|(i, figure, c)| {
            let (input, scope, counted_by) = (c.input, c.scope, c.counted_by);
            (
                i,
                figure.value,
                scope,
                format!(
                    "{}{input}: {} ({}) is the catalog's placeholder figure (grade P, no public source) — {counted_by} counts it; set your own {input}",
                    scope.prefix(),
                    figure.value.normalize(),
                    figure.unit
                ),
            )
        })
        .collect()
}

/// The default value of a GPU-hour from the catalog's GPU entry; `None` (with a warning) when
/// the entry has no price for the basis.
fn default_gpu_hour(
    gpu: &Gpu,
    basis: GpuHourBasis,
    ops: &crate::catalog::Operations,
    pue: Decimal,
    electricity: Decimal,
    warnings: &mut Vec<String>,
) -> Result<Option<Decimal>, PlanError> {
    match basis {
        GpuHourBasis::Rental => match gpu.rental_usd_per_hour {
            Some(r) => Ok(Some(r)),
            None => {
                warnings.push(format!(
                    "GPU '{}' has no rental price in the catalog: GPU-idle cost is counted at $0; set economics.gpu_hour_usd",
                    gpu.id
                ));
                Ok(None)
            }
        },
        GpuHourBasis::Owned => match (gpu.purchase_usd, gpu.server_share_usd) {
            (Some(p), Some(s)) => {
                let years =
                    rust_decimal::prelude::ToPrimitive::to_u32(&ops.depreciation_years.value)
                        .unwrap_or(5);
                crate::cost::owned_gpu_hour_usd(p, s, years, gpu.power_w, pue, electricity)
                    .map(Some)
                    .map_err(PlanError::from)
            }
            _ => {
                warnings.push(format!(
                    "GPU '{}' has no purchase price in the catalog: GPU-idle cost is counted at $0; set economics.gpu_hour_usd",
                    gpu.id
                ));
                Ok(None)
            }
        },
    }
}

/// Why `vendor` takes no discount: no part of `catalog` comes from it (names are matched as
/// written, case included), and the vendors that do.
pub fn unknown_vendor(catalog: &crate::catalog::Catalog, vendor: &str) -> String {
    format!(
        "no part in catalog '{}' comes from vendor '{vendor}' (names are matched exactly, case included); its vendors: {}",
        catalog.id(),
        catalog.vendors().join(", ")
    )
}
