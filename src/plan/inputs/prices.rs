//! Price overrides and discounts: every SKU and vendor checked against the catalog.

use std::collections::BTreeMap;

use crate::catalog::{Catalog, LicenseBasis};
use crate::cost::PriceAdjustments;
use crate::error_code::{ErrorCode, escape_pointer};
use crate::plan::error::PlanError;
use crate::plan::request::*;

/// The request's prices, checked.
pub(super) struct Prices {
    /// The overrides as the request gives them.
    pub overrides: BTreeMap<String, UnitPriceUsd>,
    pub adjustments: PriceAdjustments,
}

/// The request's overrides and discounts, each checked against the catalog.
pub(super) fn resolve(req: &PlanRequest, catalog: &Catalog) -> Result<Prices, PlanError> {
    let prices = req.prices.clone().unwrap_or_default();
    let overrides = prices.overrides.clone().unwrap_or_default();
    for sku in overrides.keys() {
        check_override(catalog, sku)?;
    }
    let discounts = prices.discounts.clone().unwrap_or_default();
    check_vendor_discounts(catalog, &discounts)?;
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
    Ok(Prices {
        overrides,
        adjustments,
    })
}

/// An override must name a part of the catalog that a BOM line prices.
fn check_override(catalog: &Catalog, sku: &str) -> Result<(), PlanError> {
    let known = catalog.switch(sku).is_some()
        || catalog.nic(sku).is_some()
        || catalog.transceiver(sku).is_some()
        || catalog.cable(sku).is_some()
        || catalog.license(sku).is_some();
    let at = || format!("/prices/overrides/{}", escape_pointer(sku));
    if !known {
        return Err(PlanError::field(
            &at(),
            ErrorCode::UnknownSku,
            format!("no SKU '{sku}' in catalog '{}'", catalog.id()),
        ));
    }
    // A yearly subscription is no BOM line: an override would be echoed and change
    // nothing. Its price is an economics input.
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
    Ok(())
}

/// A discount for a vendor no part has would change nothing: say so rather than echo it.
fn check_vendor_discounts(
    catalog: &Catalog,
    discounts: &DiscountsRequest,
) -> Result<(), PlanError> {
    if let Some(given) = discounts.vendor.as_ref().filter(|m| !m.is_empty()) {
        let vendors = catalog.vendors();
        if let Some(vendor) = given.keys().find(|k| !vendors.contains(&k.as_str())) {
            return Err(PlanError::field(
                &format!("/prices/discounts/vendor/{}", escape_pointer(vendor)),
                ErrorCode::UnknownValue,
                unknown_vendor(catalog, vendor),
            ));
        }
    }
    Ok(())
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

/// The prices as echoed in the normalized request.
pub(super) fn echo(prices: &Prices) -> PricesRequest {
    let adjustments = &prices.adjustments;
    PricesRequest {
        overrides: Some(
            prices
                .overrides
                .iter()
                .map(|(k, v)| (k.clone(), UnitPriceUsd::echo(v.get())))
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
    }
}
