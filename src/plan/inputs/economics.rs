//! Economics: the request's figures, else the catalog's operating figures; the GPU-hour value
//! and the Ethernet NOS licence's price, each said when it is no published figure.

use rust_decimal::Decimal;

use crate::catalog::{Catalog, Gpu, LicenseBasis, Operations};
use crate::cost::Economics;
use crate::plan::error::PlanError;
use crate::plan::request::*;

use super::NoteScope;
use super::placeholders;

/// The economics of one plan, and what the echo and the notes need to know of them.
pub(super) struct Costs {
    pub economics: Economics,
    pub gpu_hour_basis: GpuHourBasis,
    /// The GPU-hour value given or derived; `None`: the catalog has no price to derive it from
    /// (counted at $0, with a warning).
    pub priced_gpu_hour: Option<Decimal>,
    /// The basis derived the GPU-hour value, or was given.
    pub basis_used: bool,
    /// The NOS licence's price is the catalog's placeholder (or missing) one.
    pub nos_placeholder: bool,
    pub fabric_notes: Vec<(NoteScope, String)>,
}

/// The request's economics, else the catalog's operating figures; a GPU-hour value the catalog
/// cannot derive is warned in `warnings`.
pub(super) fn resolve(
    req: &PlanRequest,
    catalog: &Catalog,
    gpu: &Gpu,
    warnings: &mut Vec<String>,
) -> Result<Costs, PlanError> {
    let ops = &catalog.data.operations;
    let e = req.economics.clone().unwrap_or_default();
    let mut economics = given_or_catalog(req, &e, ops);
    let gpu_hour_basis = e.gpu_hour_basis.unwrap_or_default();
    let priced_gpu_hour = match e.gpu_hour_usd.map(GpuHourUsd::get) {
        Some(v) => Some(v),
        None => default_gpu_hour(
            gpu,
            gpu_hour_basis,
            economics.depreciation_years,
            economics.pue,
            economics.electricity_usd_per_kwh,
            warnings,
        )?,
    };
    economics.gpu_hour_usd = priced_gpu_hour.unwrap_or(Decimal::ZERO);
    let mut fabric_notes = Vec::new();
    let (nos, nos_placeholder) = match e.ethernet_nos_usd_per_switch_per_year {
        Some(v) => (v.get(), false),
        None => catalog_nos_price(catalog, &mut fabric_notes),
    };
    economics.ethernet_nos_usd_per_switch_per_year = nos;
    placeholders::note_used(catalog, &economics, &mut fabric_notes);
    Ok(Costs {
        economics,
        gpu_hour_basis,
        priced_gpu_hour,
        basis_used: e.gpu_hour_usd.is_none() || e.gpu_hour_basis.is_some(),
        nos_placeholder,
        fabric_notes,
    })
}

/// The request's value, else the catalog's operating figure.
macro_rules! given_or_catalog {
    ($e:ident, $ops:ident, $field:ident) => {
        $e.$field.map(|v| v.get()).unwrap_or($ops.$field.value)
    };
}

/// Every figure the request gives, else the catalog's; the GPU-hour value and the NOS
/// licence's price at $0, set by [`resolve`].
fn given_or_catalog(req: &PlanRequest, e: &EconomicsRequest, ops: &Operations) -> Economics {
    Economics {
        years: e.years.unwrap_or_default().get(),
        discount_rate: given_or_catalog!(e, ops, discount_rate),
        electricity_usd_per_kwh: given_or_catalog!(e, ops, electricity_usd_per_kwh),
        pue: given_or_catalog!(e, ops, pue),
        support_rate: given_or_catalog!(e, ops, support_rate),
        network_engineer_usd_per_year: given_or_catalog!(e, ops, network_engineer_usd_per_year),
        ib_specialist_usd_per_year: given_or_catalog!(e, ops, ib_specialist_usd_per_year),
        gpus_per_network_fte: given_or_catalog!(e, ops, gpus_per_network_fte),
        gpus_per_ib_specialist: given_or_catalog!(e, ops, gpus_per_ib_specialist),
        ufm_usd_per_endpoint_per_year: e.ufm_usd_per_endpoint_per_year.map(UsdPerEndpointYear::get),
        ethernet_nos_usd_per_switch_per_year: Decimal::ZERO,
        spares_rate: given_or_catalog!(e, ops, spares_rate),
        gpu_hour_usd: Decimal::ZERO,
        busy_fraction: req
            .utilization
            .as_ref()
            .and_then(|u| u.busy_fraction.map(Fraction::get))
            .unwrap_or(ops.busy_fraction.value),
        depreciation_years: e.depreciation_years.map_or_else(
            || {
                rust_decimal::prelude::ToPrimitive::to_u32(&ops.depreciation_years.value)
                    .filter(|&y| y >= 1)
                    .unwrap_or(5)
            },
            |y| y.get(),
        ),
    }
}

/// The default value of a GPU-hour from the catalog's GPU entry; `None` (with a warning) when
/// the entry has no price for the basis.
fn default_gpu_hour(
    gpu: &Gpu,
    basis: GpuHourBasis,
    depreciation_years: u32,
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
            (Some(p), Some(s)) => crate::cost::owned_gpu_hour_usd(
                p,
                s,
                depreciation_years,
                gpu.power_w,
                pue,
                electricity,
            )
            .map(Some)
            .map_err(PlanError::from),
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

/// The catalog's per-switch-per-year licence price ($0 without one), and whether it is a
/// placeholder. A placeholder licence price is a figure nobody published: said wherever an
/// Ethernet fabric's opex counts it (the plan says these notes only when it builds one), as a
/// placeholder BOM price is said. A licence without a price (quote required, as UFM) is no
/// figure either: its $0 is said, not charged silently.
fn catalog_nos_price(
    catalog: &Catalog,
    fabric_notes: &mut Vec<(NoteScope, String)>,
) -> (Decimal, bool) {
    let licence = catalog
        .data
        .licenses
        .iter()
        .find(|l| l.basis == LicenseBasis::PerSwitchPerYear);
    let price = licence.and_then(|l| l.price_usd).unwrap_or(Decimal::ZERO);
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

/// The busy fraction as echoed in the normalized request.
pub(super) fn echo_utilization(costs: &Costs) -> UtilizationRequest {
    UtilizationRequest {
        busy_fraction: Some(Fraction::echo(costs.economics.busy_fraction)),
    }
}

/// The economics as echoed in the normalized request.
pub(super) fn echo(costs: &Costs) -> EconomicsRequest {
    let economics = &costs.economics;
    EconomicsRequest {
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
        depreciation_years: Some(DepreciationYears::echo(economics.depreciation_years)),
        // No value when none could be derived: the $0 it is counted at is not an input
        // (a given 0 is), so the two requests get different ids, as they get different
        // warnings.
        gpu_hour_usd: costs
            .priced_gpu_hour
            .map(|_| GpuHourUsd::echo(economics.gpu_hour_usd)),
        // The basis only derives the default GPU-hour value: echoed when it was used (or
        // given), not invented when the user set the value itself.
        gpu_hour_basis: costs.basis_used.then_some(costs.gpu_hour_basis),
        ufm_usd_per_endpoint_per_year: economics
            .ufm_usd_per_endpoint_per_year
            .map(UsdPerEndpointYear::echo),
        // Like the GPU-hour value: a placeholder price is not an input (a given one is),
        // so the two requests get different ids, as they get different warnings.
        ethernet_nos_usd_per_switch_per_year: (!costs.nos_placeholder)
            .then(|| UsdPerSwitchYear::echo(economics.ethernet_nos_usd_per_switch_per_year)),
    }
}
