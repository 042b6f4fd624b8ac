//! Failure rates of the fabric's parts, and the job's checkpoints and restarts.

use crate::cost::failure::Reliability;
use crate::plan::request::*;

/// The request's reliability figures, else the defaults.
pub(super) fn resolve(req: &PlanRequest) -> Reliability {
    let rel = req.reliability.clone().unwrap_or_default();
    let defaults = Reliability::default();
    let rate =
        |v: Option<FailuresPerPartYear>, d: f64| v.map(FailuresPerPartYear::get).unwrap_or(d);
    Reliability {
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
    }
}

/// The reliability figures as echoed in the normalized request.
pub(super) fn echo(reliability: &Reliability) -> ReliabilityRequest {
    ReliabilityRequest {
        nic_failures_per_year: Some(FailuresPerPartYear::echo(reliability.nic_failures_per_year)),
        switch_failures_per_year: Some(FailuresPerPartYear::echo(
            reliability.switch_failures_per_year,
        )),
        transceiver_failures_per_year: Some(FailuresPerPartYear::echo(
            reliability.transceiver_failures_per_year,
        )),
        cable_failures_per_year: Some(FailuresPerPartYear::echo(
            reliability.cable_failures_per_year,
        )),
        checkpoint_interval_minutes: Some(Minutes::echo(reliability.checkpoint_interval_minutes)),
        restart_minutes: Some(Minutes::echo(reliability.restart_minutes)),
    }
}
