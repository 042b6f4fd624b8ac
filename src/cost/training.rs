//! Time to train and cost per token: a training run of `train_tokens` on one fabric, from the
//! step time the performance model gives.
//!
//! days = steps × step time ÷ (1 − share of busy GPU time lost to network failures), with
//! steps = ⌈train_tokens ÷ tokens per step⌉: the cluster runs this job alone, around the clock,
//! restarting from checkpoints after each network failure (the failure model's GPU-hours).
//! Money over the run: the network's cost is its TCO spread evenly over the horizon's days, the
//! GPUs' cost their GPU-hours at the GPU-hour value, of which the idle part is the time they
//! wait on the network.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::CostError;
use super::money::{HOURS_PER_YEAR, decimal_from_f64_rounded, div, money, mul, round_hours};

/// Hours in a day and days in a year (the horizon's days: 365 × years, as `HOURS_PER_YEAR`).
const HOURS_PER_DAY: u32 = 24;
const DAYS_PER_YEAR: u32 = HOURS_PER_YEAR / HOURS_PER_DAY;

/// What one training run needs.
#[derive(Debug, Clone, PartialEq)]
pub struct TrainingInput {
    /// Tokens the run processes.
    pub train_tokens: f64,
    /// Tokens per optimizer step over the whole job (performance model).
    pub tokens_per_step: f64,
    /// One step, compute and exposed communication, ms (performance model).
    pub step_time_ms: f64,
    /// GPUs in the job.
    pub gpus: u32,
    /// Share of busy GPU time lost waiting on the network (performance model), [0, 1).
    pub gpu_idle_fraction: Decimal,
    /// GPU-hours lost per year to network failures.
    pub failure_gpu_hours_per_year: f64,
    /// Share of the year the cluster runs jobs, [0, 1].
    pub busy_fraction: Decimal,
    /// The network's TCO over the horizon, USD, and the horizon, years.
    pub network_tco_usd: Decimal,
    pub years: u32,
    /// Value of one GPU-hour, USD (0: the GPUs' own cost is not counted).
    pub gpu_hour_usd: Decimal,
}

/// Cost per million tokens trained, USD.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct CostPerMillionTokens {
    /// The network's cost over the run ÷ million tokens.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String, example = "0.0041")]
    pub network_usd: Decimal,
    /// GPU time spent waiting on the network ÷ million tokens (part of `gpus_usd`).
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub gpu_idle_usd: Decimal,
    /// The GPUs' time at `economics.gpu_hour_usd` ÷ million tokens; null when the GPU-hour
    /// value is 0.
    #[serde(serialize_with = "crate::json::opt_decimal")]
    #[schema(value_type = Option<String>)]
    pub gpus_usd: Option<Decimal>,
    /// network_usd + gpus_usd.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub total_usd: Decimal,
}

/// A training run on one fabric (`training`, when `workload.train_tokens` is given).
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Training {
    /// Tokens the run processes.
    pub train_tokens: f64,
    /// Optimizer steps, ⌈train_tokens ÷ tokens per step⌉.
    pub steps: u64,
    /// Tokens per step over the whole job.
    pub tokens_per_step: f64,
    /// Wall-clock days: steps × step time, plus restarts after network failures.
    pub days_to_train: f64,
    /// gpus × days × 24, GPU-hours (2 decimals).
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub gpu_hours: Decimal,
    /// The network's TCO spread over the horizon, for the run's days, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub network_cost_usd: Decimal,
    /// gpu_hours × gpu_hour_usd, USD (0 when the GPU-hour value is 0).
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub gpu_cost_usd: Decimal,
    /// The part of `gpu_cost_usd` spent waiting on the network, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub gpu_idle_cost_usd: Decimal,
    pub cost_per_million_tokens_usd: CostPerMillionTokens,
}

const INPUT: &str = "workload.train_tokens";

fn invalid(reason: &'static str) -> CostError {
    CostError::Invalid {
        input: INPUT,
        reason,
    }
}

/// Busy time lost to network failures, as a share of busy time, in [0, 0.9] (the failure model
/// caps it below 1).
pub(crate) fn failure_share(
    gpus: u32,
    busy_fraction: Decimal,
    failure_gpu_hours_per_year: f64,
) -> Result<f64, CostError> {
    let busy = super::money::approx_f64(super::idle::busy_gpu_hours_per_year(gpus, busy_fraction)?);
    Ok(if busy > 0.0 {
        (failure_gpu_hours_per_year / busy).clamp(0.0, 0.9)
    } else {
        0.0
    })
}

/// Tokens trained in `years` of the cluster's busy time, failures' share taken out, at
/// `tokens_per_step` every `step_time_ms` (rounded to a whole token).
pub fn tokens_over_years(
    years: u32,
    busy_fraction: Decimal,
    failure_share: f64,
    tokens_per_step: f64,
    step_time_ms: f64,
) -> f64 {
    let busy_ms = super::money::approx_f64(busy_fraction)
        * f64::from(HOURS_PER_YEAR)
        * 3_600_000.0
        * f64::from(years)
        * (1.0 - failure_share);
    (busy_ms / step_time_ms * tokens_per_step).round()
}

/// The run, or why it cannot be timed.
pub fn training(t: &TrainingInput) -> Result<Training, CostError> {
    let finite = |x: f64| x.is_finite() && x > 0.0;
    if !finite(t.train_tokens) || !finite(t.tokens_per_step) || !finite(t.step_time_ms) {
        return Err(invalid(
            "tokens, tokens per step and step time must be positive",
        ));
    }
    let steps = (t.train_tokens / t.tokens_per_step).ceil();
    let failure_share = failure_share(t.gpus, t.busy_fraction, t.failure_gpu_hours_per_year)?;
    let days = steps * t.step_time_ms / 86_400_000.0 / (1.0 - failure_share);
    if !days.is_finite() || days > 1.0e9 {
        return Err(invalid("the run would take more than a billion days"));
    }
    let days_d = decimal_from_f64_rounded(days, 9).ok_or_else(|| invalid("days out of range"))?;
    let gpu_hours = round_hours(mul(
        mul(Decimal::from(t.gpus), days_d, INPUT)?,
        Decimal::from(HOURS_PER_DAY),
        INPUT,
    )?);
    let horizon_days = Decimal::from(t.years.max(1)) * Decimal::from(DAYS_PER_YEAR);
    let network_cost = money(
        mul(div(t.network_tco_usd, horizon_days, INPUT)?, days_d, INPUT)?,
        INPUT,
    )?;
    let gpu_cost = money(mul(gpu_hours, t.gpu_hour_usd, INPUT)?, INPUT)?;
    let idle_cost = money(mul(gpu_cost, t.gpu_idle_fraction, INPUT)?, INPUT)?;
    let millions = decimal_from_f64_rounded(t.train_tokens / 1.0e6, 6)
        .filter(|m| !m.is_zero())
        .ok_or_else(|| invalid("fewer than a millionth of a million tokens"))?;
    let per_m = |usd: Decimal| -> Result<Decimal, CostError> {
        Ok(super::money::round_places(div(usd, millions, INPUT)?, 6))
    };
    let gpus_usd = (!t.gpu_hour_usd.is_zero())
        .then(|| per_m(gpu_cost))
        .transpose()?;
    let network_usd = per_m(network_cost)?;
    let total_usd = super::money::add(network_usd, gpus_usd.unwrap_or_default(), INPUT)?;
    Ok(Training {
        train_tokens: t.train_tokens,
        steps: steps as u64,
        tokens_per_step: t.tokens_per_step,
        days_to_train: days,
        gpu_hours,
        network_cost_usd: network_cost,
        gpu_cost_usd: gpu_cost,
        gpu_idle_cost_usd: idle_cost,
        cost_per_million_tokens_usd: CostPerMillionTokens {
            network_usd,
            gpu_idle_usd: per_m(idle_cost)?,
            total_usd,
            gpus_usd,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> TrainingInput {
        TrainingInput {
            train_tokens: 15.0e12,
            tokens_per_step: 16.0 * 1024.0 * 1024.0,
            step_time_ms: 6_000.0,
            gpus: 4096,
            gpu_idle_fraction: Decimal::new(5, 2),
            failure_gpu_hours_per_year: 0.0,
            busy_fraction: Decimal::ONE,
            network_tco_usd: Decimal::from(36_500_000),
            years: 5,
            gpu_hour_usd: Decimal::from(2),
        }
    }

    #[test]
    fn days_follow_steps_and_step_time() {
        let t = training(&input()).expect("run");
        // 15e12 / 16 Mi tokens = 894,070 steps (rounded up) × 6 s = 62.09 days.
        assert_eq!(t.steps, 894_070);
        assert!((t.days_to_train - 894_070.0 * 6.0 / 86_400.0).abs() < 1e-9);
        // GPU-hours = 4,096 × days × 24; GPU cost at $2; idle 5 % of it.
        let hours = t.days_to_train * 4096.0 * 24.0;
        let got: f64 = t.gpu_hours.to_string().parse().expect("number");
        assert!((got - hours).abs() < 0.5, "{got} vs {hours}");
        assert_eq!(
            t.gpu_idle_cost_usd,
            super::super::money::round_money(t.gpu_cost_usd * Decimal::new(5, 2))
        );
        // The network: $36.5M over 1,825 days = $20,000 a day.
        let per_day: f64 =
            t.network_cost_usd.to_string().parse::<f64>().expect("n") / t.days_to_train;
        assert!((per_day - 20_000.0).abs() < 1.0, "{per_day}");
        let c = &t.cost_per_million_tokens_usd;
        assert_eq!(
            c.total_usd,
            c.network_usd + c.gpus_usd.expect("gpus counted")
        );
    }

    #[test]
    fn failures_lengthen_the_run_and_a_free_gpu_hour_counts_no_gpus() {
        let base = training(&input()).expect("run");
        let failing = training(&TrainingInput {
            failure_gpu_hours_per_year: 4096.0 * 8760.0 * 0.1,
            gpu_hour_usd: Decimal::ZERO,
            ..input()
        })
        .expect("run");
        assert!((failing.days_to_train / base.days_to_train - 1.0 / 0.9).abs() < 1e-9);
        assert_eq!(failing.cost_per_million_tokens_usd.gpus_usd, None);
        assert!(
            training(&TrainingInput {
                tokens_per_step: 0.0,
                ..input()
            })
            .is_err()
        );
    }
}
