//! Why a plan cannot be made, as the input at fault: the plan's own error and the translation
//! of the models' errors (sizing, performance) into it.

use super::request;
use crate::cost;
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
use crate::perf;
use crate::sizing;

use super::registry;

/// Why a plan cannot be made from a (syntactically valid) request: names the input.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanError {
    /// JSON pointer of the input at fault.
    pub pointer: String,
    /// Stable machine code.
    pub code: ErrorCode,
    /// What is wrong and what would work.
    pub detail: String,
}

impl PlanError {
    pub fn field(pointer: &str, code: ErrorCode, detail: impl Into<String>) -> PlanError {
        PlanError {
            pointer: pointer.to_string(),
            code,
            detail: detail.into(),
        }
    }
}

impl std::fmt::Display for PlanError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.pointer, self.detail)
    }
}

impl std::error::Error for PlanError {}

impl From<cost::CostError> for PlanError {
    fn from(e: cost::CostError) -> PlanError {
        PlanError::field(&e.pointer(), e.code(), e.to_string())
    }
}

pub(super) fn sizing_error(e: &sizing::SizingError, fabric: Fabric) -> PlanError {
    let pointer = match e.field() {
        Some("planes") => "/topology/planes",
        Some("oversubscription") => "/topology/oversubscription",
        // Past the three-tier ceiling no tier setting helps: the cluster is too large.
        Some("max_tiers")
            if matches!(
                e,
                sizing::SizingError::ExceedsTierCeiling {
                    max_tiers: request::MaxTiers::MAX,
                    ..
                }
            ) =>
        {
            "/gpus"
        }
        Some("max_tiers") => "/topology/max_tiers",
        Some("rail_optimized") => "/topology/rail_optimized",
        Some("nic_speed_gbps") => "/nic_speed_gbps",
        Some("gpus_per_node") => "/gpus_per_node",
        Some("nics_per_node") => "/nics_per_node",
        Some("design") => "/topology/design",
        Some("nodes_per_rack") => "/topology/nodes_per_rack",
        _ => "/gpus",
    };
    PlanError::field(pointer, e.code(), format!("{}: {e}", fabric.as_str()))
}

pub fn perf_error(e: perf::PerfError) -> PlanError {
    let pointer = match &e {
        perf::PerfError::ModelDoesNotFit { .. } => "/workload/tensor_parallel".to_string(),
        perf::PerfError::OutOfRange { field, .. } => {
            let last = field.rsplit('.').next().unwrap_or(field);
            // A workload input by the registry of plan inputs (one declaration an input:
            // a new one needs no line here).
            if registry::numeric_or_keyed(&format!("workload.{last}")).is_some() {
                format!("/workload/{last}")
            } else {
                match last {
                    "oversubscription" | "planes" => format!("/topology/{last}"),
                    "gpus" | "gpus_per_node" | "nics_per_node" => format!("/{last}"),
                    _ => "/workload".to_string(),
                }
            }
        }
    };
    // The pointer names the field: the detail does not repeat it (it read
    // "workload.expert_parallel: workload.expert_parallel: 3 does not divide …" in a GET's
    // answer), unless the field has no pointer of its own.
    let detail = match e {
        perf::PerfError::OutOfRange { detail, .. } if pointer != "/workload" => detail,
        other => other.to_string(),
    };
    PlanError::field(&pointer, ErrorCode::PerformanceModel, detail)
}
