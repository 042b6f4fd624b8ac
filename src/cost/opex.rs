//! Yearly operating cost of one fabric.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::capex::{Capex, PricedLine};
use super::error::CostError;
use super::input::Economics;
use super::money::{HOURS_PER_YEAR, add, div, mul, round_money, sum_blamed};
use crate::fabric::Fabric;

/// Reported staff FTEs keep this many decimal places.
const FTE_DP: u32 = 4;

/// Yearly opex (`opex_per_year.*`), USD per year, each part rounded to cents and
/// `total_usd` = the exact sum of the five parts.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct OpexPerYear {
    /// Electricity: Σ(quantity × power_w) ÷ 1000 × 8,760 h × PUE × USD/kWh, USD per year.
    pub power_usd: Decimal,
    /// Hardware support: support_rate × hardware capex, USD per year.
    pub support_usd: Decimal,
    /// Staff: fractional FTEs × fully loaded salaries, USD per year.
    pub staff_usd: Decimal,
    /// Recurring licences: UFM per endpoint (InfiniBand, when priced) or NOS per switch
    /// (Ethernet), USD per year.
    pub licenses_usd: Decimal,
    /// Spares: spares_rate × hardware capex, USD per year.
    pub spares_usd: Decimal,
    /// power + support + staff + licences + spares, USD per year.
    pub total_usd: Decimal,
    /// IT power of the fabric, Σ(quantity × power_w), watts (before PUE).
    pub it_power_w: Decimal,
    /// Staff charged to the fabric, FTEs (fractional, 4 decimals).
    pub staff_fte: Decimal,
}

/// Computes [`OpexPerYear`]; also returns the input behind the largest part (blamed if a later
/// multi-year sum overflows).
pub fn opex_per_year(
    fabric: Fabric,
    gpus: u32,
    endpoints: u64,
    switches: u64,
    lines: &[PricedLine],
    capex: &Capex,
    econ: &Economics,
) -> Result<(OpexPerYear, &'static str), CostError> {
    // Power.
    let mut it_power_w = Decimal::ZERO;
    for l in lines {
        it_power_w = add(it_power_w, l.extended_power_w, "gpus")?;
    }
    let kwh_per_year = mul(
        div(it_power_w, Decimal::from(1_000u32), "gpus")?,
        Decimal::from(HOURS_PER_YEAR),
        "gpus",
    )?;
    let facility_kwh = mul(kwh_per_year, econ.pue, "economics.pue")?;
    let power = round_money(mul(
        facility_kwh,
        econ.electricity_usd_per_kwh,
        "economics.electricity_usd_per_kwh",
    )?);

    // Support and spares on hardware (licences excluded).
    let support = round_money(mul(
        econ.support_rate,
        capex.hardware_usd,
        "economics.support_rate",
    )?);
    let spares = round_money(mul(
        econ.spares_rate,
        capex.hardware_usd,
        "economics.spares_rate",
    )?);

    // Staff: fractional FTEs, no rounding up to whole people (the fabric's share of a team).
    let g = Decimal::from(gpus);
    let net_fte = div(g, econ.gpus_per_network_fte, "economics.gpus_per_network_fte")?;
    let mut staff = mul(
        net_fte,
        econ.network_engineer_usd_per_year,
        "economics.network_engineer_usd_per_year",
    )?;
    let mut fte = net_fte;
    if fabric == Fabric::Infiniband {
        let ib_fte = div(g, econ.gpus_per_ib_specialist, "economics.gpus_per_ib_specialist")?;
        let ib = mul(
            ib_fte,
            econ.ib_specialist_usd_per_year,
            "economics.ib_specialist_usd_per_year",
        )?;
        staff = add(staff, ib, "economics.ib_specialist_usd_per_year")?;
        fte = add(fte, ib_fte, "economics.gpus_per_ib_specialist")?;
    }
    let staff = round_money(staff);

    // Recurring licences.
    let (licenses, licence_input) = match fabric {
        Fabric::Infiniband => {
            let input = "economics.ufm_usd_per_endpoint_per_year";
            let v = match econ.ufm_usd_per_endpoint_per_year {
                Some(ufm) => mul(ufm, Decimal::from(endpoints), input)?,
                None => Decimal::ZERO,
            };
            (v, input)
        }
        Fabric::Roce | Fabric::RoceAdaptive => {
            let input = "economics.ethernet_nos_usd_per_switch_per_year";
            (
                mul(
                    econ.ethernet_nos_usd_per_switch_per_year,
                    Decimal::from(switches),
                    input,
                )?,
                input,
            )
        }
    };
    let licenses = round_money(licenses);

    let parts = [
        (power, "economics.electricity_usd_per_kwh"),
        (support, "economics.support_rate"),
        (staff, "economics.network_engineer_usd_per_year"),
        (licenses, licence_input),
        (spares, "economics.spares_rate"),
    ];
    let total = sum_blamed(&parts)?;
    let blame = super::money::largest_input(&parts);
    let mut staff_fte = fte.round_dp_with_strategy(FTE_DP, super::money::ROUNDING);
    staff_fte.rescale(FTE_DP);
    Ok((
        OpexPerYear {
            power_usd: power,
            support_usd: support,
            staff_usd: staff,
            licenses_usd: licenses,
            spares_usd: spares,
            total_usd: total,
            it_power_w,
            staff_fte,
        },
        blame,
    ))
}
