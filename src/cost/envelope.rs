//! What a whole cluster spends against a buyer's envelope (`POST /v1/fit`): to buy it (GPU
//! servers and the network), over the horizon (the servers' electricity and the network's TCO
//! added), and in facility power (servers and network at full power, times PUE).
//!
//! - capex = gpus × server price per GPU + network capex
//! - total = capex − network capex + network TCO + servers' electricity over the horizon, where
//!   the network's TCO already holds its capex, and the servers' electricity is
//!   gpus × power per GPU ÷ 1000 × 8,760 h × years × PUE × USD/kWh (every hour counted, as the
//!   network's power and the owned GPU-hour count it)
//! - facility = (gpus × power per GPU + network IT power) × PUE
//!
//! Not counted: the servers' support, staff and software (the catalog prices none), storage,
//! the building. docs/cost.md ("Fit to an envelope") says the same.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::CostError;
use super::money::{HOURS_PER_YEAR, add, money, mul, round_places};

const INPUT: &str = "budget";

/// Watts in a megawatt, and in a kilowatt.
const W_PER_MW: u32 = 1_000_000;
const W_PER_KW: u32 = 1_000;

/// One cluster's figures for the envelope.
#[derive(Debug, Clone, PartialEq)]
pub struct SpendInput {
    pub gpus: u32,
    /// One GPU with its share of the server (CPUs, memory, chassis), USD.
    pub server_usd_per_gpu: Decimal,
    /// One GPU's share of its server's maximum power, W.
    pub gpu_power_w: Decimal,
    /// The network's capex and TCO over the horizon (the plan's), USD.
    pub network_capex_usd: Decimal,
    pub network_tco_usd: Decimal,
    /// The network's IT power, W (before PUE).
    pub network_it_power_w: Decimal,
    pub pue: Decimal,
    pub electricity_usd_per_kwh: Decimal,
    pub years: u32,
}

/// What a cluster spends, by the envelope's measures.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Spend {
    pub gpus: u32,
    /// GPU servers bought: gpus × server price per GPU, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String, example = "26250000.00")]
    pub gpu_servers_usd: Decimal,
    /// The network's capex (the plan's `capex.total_usd`), USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub network_capex_usd: Decimal,
    /// gpu_servers_usd + network_capex_usd, USD: what `budget.capex_usd` bounds.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub capex_usd: Decimal,
    /// The GPU servers' electricity over the horizon, at full power every hour, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub gpu_servers_power_usd: Decimal,
    /// The network's TCO over the horizon (the plan's `tco.total_usd`, capex included), USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub network_tco_usd: Decimal,
    /// gpu_servers_usd + gpu_servers_power_usd + network_tco_usd, USD: what
    /// `budget.total_usd` bounds.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub total_usd: Decimal,
    /// Servers' and network's IT power at full load, kW (3 decimals).
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String, example = "1312.500")]
    pub it_power_kw: Decimal,
    /// it_power_kw × PUE, MW (6 decimals): what `budget.facility_mw` bounds.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String, example = "1.640625")]
    pub facility_mw: Decimal,
}

/// The envelope's measures; each `None` is not bounded.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Envelope {
    pub capex_usd: Option<Decimal>,
    pub total_usd: Option<Decimal>,
    pub facility_mw: Option<Decimal>,
}

/// One measure of the envelope.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    CapexUsd,
    TotalUsd,
    FacilityMw,
}

impl Limit {
    /// The request field that sets it.
    pub fn field(self) -> &'static str {
        match self {
            Limit::CapexUsd => "budget.capex_usd",
            Limit::TotalUsd => "budget.total_usd",
            Limit::FacilityMw => "budget.facility_mw",
        }
    }
}

impl Envelope {
    /// The measures `s` exceeds, in the order capex, total, facility.
    pub fn exceeded(&self, s: &Spend) -> Vec<Limit> {
        let over = |limit: Option<Decimal>, spent: Decimal| limit.is_some_and(|l| spent > l);
        [
            (Limit::CapexUsd, over(self.capex_usd, s.capex_usd)),
            (Limit::TotalUsd, over(self.total_usd, s.total_usd)),
            (Limit::FacilityMw, over(self.facility_mw, s.facility_mw)),
        ]
        .into_iter()
        .filter_map(|(l, o)| o.then_some(l))
        .collect()
    }

    /// The most GPUs the envelope could hold if the network cost nothing and drew no power: an
    /// upper bound on any fit, from `cluster`'s per-GPU figures, unrounded (`None` when
    /// nothing is bounded or a GPU costs nothing by every bounded measure).
    pub fn gpu_ceiling(&self, cluster: &SpendInput) -> Option<u64> {
        let per_gpu_total = cluster.server_usd_per_gpu.checked_add(
            (cluster.gpu_power_w / Decimal::from(W_PER_KW))
                .checked_mul(Decimal::from(HOURS_PER_YEAR) * Decimal::from(cluster.years))?
                .checked_mul(cluster.pue)?
                .checked_mul(cluster.electricity_usd_per_kwh)?,
        )?;
        let per_gpu_mw = cluster.gpu_power_w.checked_mul(cluster.pue)? / Decimal::from(W_PER_MW);
        let ceiling = |limit: Option<Decimal>, each: Decimal| -> Option<u64> {
            let limit = limit?;
            if each <= Decimal::ZERO {
                return None;
            }
            rust_decimal::prelude::ToPrimitive::to_u64(&limit.checked_div(each)?.floor())
        };
        [
            ceiling(self.capex_usd, cluster.server_usd_per_gpu),
            ceiling(self.total_usd, per_gpu_total),
            ceiling(self.facility_mw, per_gpu_mw),
        ]
        .into_iter()
        .flatten()
        .min()
    }
}

/// The cluster's spend. Amounts are rounded to cents, power to the places its field says.
pub fn spend(s: &SpendInput) -> Result<Spend, CostError> {
    let gpus = Decimal::from(s.gpus);
    let gpu_servers_usd = money(mul(gpus, s.server_usd_per_gpu, INPUT)?, INPUT)?;
    let servers_w = mul(gpus, s.gpu_power_w, INPUT)?;
    let kwh_over_horizon = mul(
        servers_w / Decimal::from(W_PER_KW),
        Decimal::from(HOURS_PER_YEAR) * Decimal::from(s.years),
        INPUT,
    )?;
    let gpu_servers_power_usd = money(
        mul(
            mul(kwh_over_horizon, s.pue, INPUT)?,
            s.electricity_usd_per_kwh,
            INPUT,
        )?,
        INPUT,
    )?;
    let capex_usd = money(add(gpu_servers_usd, s.network_capex_usd, INPUT)?, INPUT)?;
    let total_usd = money(
        add(
            add(gpu_servers_usd, gpu_servers_power_usd, INPUT)?,
            s.network_tco_usd,
            INPUT,
        )?,
        INPUT,
    )?;
    let it_w = add(servers_w, s.network_it_power_w, INPUT)?;
    let it_power_kw = round_places(it_w / Decimal::from(W_PER_KW), 3);
    let facility_mw = round_places(mul(it_w, s.pue, INPUT)? / Decimal::from(W_PER_MW), 6);
    Ok(Spend {
        gpus: s.gpus,
        gpu_servers_usd,
        network_capex_usd: s.network_capex_usd,
        capex_usd,
        gpu_servers_power_usd,
        network_tco_usd: s.network_tco_usd,
        total_usd,
        it_power_kw,
        facility_mw,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100(gpus: u32) -> SpendInput {
        SpendInput {
            gpus,
            // docs/cost.md: H100 $30,000 + $3,750 server share, 1,275 W (DGX H100 10.2 kW ÷ 8).
            server_usd_per_gpu: Decimal::from(33_750),
            gpu_power_w: Decimal::from(1_275),
            network_capex_usd: Decimal::from(1_000_000),
            network_tco_usd: Decimal::from(2_500_000),
            network_it_power_w: Decimal::from(40_000),
            pue: Decimal::new(125, 2),
            electricity_usd_per_kwh: Decimal::new(85, 3),
            years: 5,
        }
    }

    #[test]
    fn spend_adds_servers_their_power_and_the_network() {
        let s = spend(&h100(1024)).expect("spend");
        assert_eq!(s.gpu_servers_usd, Decimal::from(34_560_000));
        assert_eq!(s.capex_usd, Decimal::from(35_560_000));
        // 1024 × 1.275 kW × 43,800 h × 1.25 × $0.085 = $6,075,936.00
        assert_eq!(s.gpu_servers_power_usd, Decimal::new(607_593_600, 2));
        assert_eq!(
            s.total_usd,
            Decimal::from(34_560_000) + Decimal::new(607_593_600, 2) + Decimal::from(2_500_000)
        );
        // (1,305.6 + 40) kW IT; × 1.25 = 1.682 MW.
        assert_eq!(s.it_power_kw, Decimal::new(1_345_600, 3));
        assert_eq!(s.facility_mw, Decimal::new(1_682_000, 6));
    }

    #[test]
    fn the_envelope_names_what_a_spend_exceeds() {
        let s = spend(&h100(1024)).expect("spend");
        let e = Envelope {
            capex_usd: Some(Decimal::from(40_000_000)),
            total_usd: Some(Decimal::from(40_000_000)),
            facility_mw: Some(Decimal::ONE),
        };
        assert_eq!(e.exceeded(&s), vec![Limit::TotalUsd, Limit::FacilityMw]);
        assert!(Envelope::default().exceeded(&s).is_empty());
    }

    #[test]
    fn the_gpu_ceiling_is_the_tightest_measure_without_the_network() {
        let e = Envelope {
            capex_usd: Some(Decimal::from(60_000_000)),
            ..Envelope::default()
        };
        // $60M ÷ $33,750 = 1,777.8 GPUs.
        assert_eq!(e.gpu_ceiling(&h100(1)), Some(1_777));
        let both = Envelope {
            facility_mw: Some(Decimal::ONE),
            ..e
        };
        // 1 MW ÷ (1,275 W × 1.25) = 627.45 GPUs.
        assert_eq!(both.gpu_ceiling(&h100(1)), Some(627));
        // $60M ÷ ($33,750 + 1.275 kW × 43,800 h × 1.25 × $0.085 = $39,683.74) = 1,511.95.
        let total = Envelope {
            total_usd: Some(Decimal::from(60_000_000)),
            ..Envelope::default()
        };
        assert_eq!(total.gpu_ceiling(&h100(1)), Some(1_511));
        assert_eq!(Envelope::default().gpu_ceiling(&h100(1)), None);
    }
}
