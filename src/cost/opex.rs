//! Yearly operating cost of one fabric.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::capex::{Capex, LinePrice};
use super::error::CostError;
use super::input::Economics;
use super::money::{HOURS_PER_YEAR, add, div, money, mul, sum_blamed};
use crate::fabric::Fabric;

/// Reported staff FTEs keep this many decimal places.
const FTE_DP: u32 = 4;

/// Yearly opex (`opex_per_year.*`), USD per year, each part rounded to cents and
/// `total_usd` = the exact sum of the five parts.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct OpexPerYear {
    /// Electricity: Σ(quantity × power_w) ÷ 1000 × 8,760 h × PUE × USD/kWh, USD per year.
    #[serde(serialize_with = "crate::json::decimal")]
    pub power_usd: Decimal,
    /// Hardware support: support_rate × hardware capex, USD per year.
    #[serde(serialize_with = "crate::json::decimal")]
    pub support_usd: Decimal,
    /// Staff: fractional FTEs × fully loaded salaries, USD per year.
    #[serde(serialize_with = "crate::json::decimal")]
    pub staff_usd: Decimal,
    /// Recurring licences: UFM per endpoint (InfiniBand, when priced) or NOS per switch
    /// (Ethernet), USD per year.
    #[serde(serialize_with = "crate::json::decimal")]
    pub licenses_usd: Decimal,
    /// Spares: spares_rate × hardware capex, USD per year.
    #[serde(serialize_with = "crate::json::decimal")]
    pub spares_usd: Decimal,
    /// power + support + staff + licences + spares, USD per year.
    #[serde(serialize_with = "crate::json::decimal")]
    pub total_usd: Decimal,
    /// IT power of the fabric, Σ(quantity × power_w), watts (before PUE).
    #[serde(serialize_with = "crate::json::decimal")]
    pub it_power_w: Decimal,
    /// Staff charged to the fabric, FTEs (fractional, 4 decimals).
    #[serde(serialize_with = "crate::json::decimal")]
    pub staff_fte: Decimal,
    /// `staff_usd` by role: network engineers on every fabric, InfiniBand specialists on
    /// InfiniBand; `staff_usd` is the sum of their `usd`.
    pub staff_by_role: Vec<StaffRole>,
}

/// One staff role charged to the fabric.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct StaffRole {
    /// `network_engineer` or `ib_specialist`.
    #[schema(example = "network_engineer")]
    pub role: &'static str,
    /// GPUs one FTE of the role looks after (`economics.gpus_per_network_fte`,
    /// `economics.gpus_per_ib_specialist`).
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub gpus_per_fte: Decimal,
    /// gpus ÷ gpus_per_fte, FTEs (4 decimals).
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub fte: Decimal,
    /// Fully loaded cost of one FTE, USD per year.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub usd_per_fte_per_year: Decimal,
    /// FTEs × cost, USD per year (cents).
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub usd: Decimal,
}

/// Computes [`OpexPerYear`]; also returns the input behind the largest part (blamed if a later
/// multi-year sum overflows).
pub fn opex_per_year(
    fabric: Fabric,
    gpus: u32,
    endpoints: u64,
    switches: u64,
    lines: &[LinePrice],
    capex: &Capex,
    econ: &Economics,
) -> Result<(OpexPerYear, &'static str), CostError> {
    let (power, it_power_w) = power_per_year(lines, econ)?;

    // Support and spares on hardware (licences excluded).
    let support_input = "economics.support_rate";
    let support = money(
        mul(econ.support_rate, capex.hardware_usd, support_input)?,
        support_input,
    )?;
    let spares_input = "economics.spares_rate";
    let spares = money(
        mul(econ.spares_rate, capex.hardware_usd, spares_input)?,
        spares_input,
    )?;

    let (staff, fte, staff_input, staff_by_role) = staff_per_year(fabric, gpus, econ)?;
    let (licenses, licence_input) = licences_per_year(fabric, endpoints, switches, econ)?;

    let parts = [
        (power, "economics.electricity_usd_per_kwh"),
        (support, "economics.support_rate"),
        (staff, staff_input),
        (licenses, licence_input),
        (spares, "economics.spares_rate"),
    ];
    let blame = super::money::largest_input(parts);
    let total = money(sum_blamed(&parts)?, blame)?;
    let staff_fte = super::money::round_places(fte, FTE_DP);
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
            staff_by_role,
        },
        blame,
    ))
}

/// Electricity per year, USD, and the IT power it is for, watts.
fn power_per_year(lines: &[LinePrice], econ: &Economics) -> Result<(Decimal, Decimal), CostError> {
    let mut it_power_w = Decimal::ZERO;
    for l in lines {
        it_power_w = add(it_power_w, l.extended_power_w, "gpus")?;
    }
    let kwh_per_year = mul(
        div(it_power_w, Decimal::from(1_000u32), "gpus")?,
        Decimal::from(HOURS_PER_YEAR),
        "gpus",
    )?;
    if kwh_per_year >= super::money::MAX_AMOUNT_USD {
        // Σ(quantity × power_w) comes from sizing and the catalog: the cluster is too large.
        return Err(CostError::Overflow { input: "gpus" });
    }
    let facility_kwh = mul(kwh_per_year, econ.pue, "economics.pue")?;
    let electricity = "economics.electricity_usd_per_kwh";
    let power = money(
        mul(facility_kwh, econ.electricity_usd_per_kwh, electricity)?,
        electricity,
    )?;

    Ok((power, it_power_w))
}

/// Staff per year, USD (the sum of its roles, each rounded to cents; blaming the larger of its
/// two salaries), its fractional FTEs, and the roles.
fn staff_per_year(
    fabric: Fabric,
    gpus: u32,
    econ: &Economics,
) -> Result<(Decimal, Decimal, &'static str, Vec<StaffRole>), CostError> {
    // Staff: fractional FTEs, no rounding up to whole people (the fabric's share of a team).
    let g = Decimal::from(gpus);
    let role = |name: &'static str,
                per_fte: Decimal,
                salary: Decimal,
                (per_fte_input, salary_input): (&'static str, &'static str)|
     -> Result<(StaffRole, Decimal), CostError> {
        let fte = div(g, per_fte, per_fte_input)?;
        let usd = money(mul(fte, salary, salary_input)?, salary_input)?;
        Ok((
            StaffRole {
                role: name,
                gpus_per_fte: per_fte,
                fte: super::money::round_places(fte, FTE_DP),
                usd_per_fte_per_year: salary,
                usd,
            },
            fte,
        ))
    };
    let (net, net_fte) = role(
        "network_engineer",
        econ.gpus_per_network_fte,
        econ.network_engineer_usd_per_year,
        (
            "economics.gpus_per_network_fte",
            "economics.network_engineer_usd_per_year",
        ),
    )?;
    let mut staff = net.usd;
    let mut fte = net_fte;
    let mut staff_input = "economics.network_engineer_usd_per_year";
    let mut roles = vec![net];
    if fabric == Fabric::Infiniband {
        let (ib, ib_fte) = role(
            "ib_specialist",
            econ.gpus_per_ib_specialist,
            econ.ib_specialist_usd_per_year,
            (
                "economics.gpus_per_ib_specialist",
                "economics.ib_specialist_usd_per_year",
            ),
        )?;
        if ib.usd > staff {
            staff_input = "economics.ib_specialist_usd_per_year";
        }
        staff = add(staff, ib.usd, staff_input)?;
        fte = add(fte, ib_fte, "economics.gpus_per_ib_specialist")?;
        roles.push(ib);
    }
    let staff = money(staff, staff_input)?;

    Ok((staff, fte, staff_input, roles))
}

/// Recurring licences per year, USD, and the input that prices them: UFM per endpoint on
/// InfiniBand, a NOS per switch on Ethernet.
fn licences_per_year(
    fabric: Fabric,
    endpoints: u64,
    switches: u64,
    econ: &Economics,
) -> Result<(Decimal, &'static str), CostError> {
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
    let licenses = money(licenses, licence_input)?;

    Ok((licenses, licence_input))
}
