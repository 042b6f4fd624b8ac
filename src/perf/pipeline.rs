//! The pipeline bubble: the time a pipeline-parallel stage waits while the schedule fills and
//! drains, by schedule. Closed form, from the schedules' published bubble formulas.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// How pipeline stages order their micro-batches (`workload.pipeline_schedule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, ToSchema)]
pub enum PipelineSchedule {
    /// One forward, one backward (PipeDream-Flush; Megatron-LM's default): bubble
    /// (p − 1) / m of the compute (Narayanan et al., SC21, §2.2.1).
    #[default]
    #[serde(rename = "1f1b")]
    OneFOneB,
    /// Interleaved 1F1B with `virtual_stages` model chunks a GPU: bubble (1/v)(p − 1)/m
    /// (Narayanan et al., SC21, §2.2.2; Megatron-LM `schedules.py` with the default
    /// `microbatch_group_size_per_vp_stage` = p).
    #[serde(rename = "interleaved")]
    Interleaved,
    /// DeepSeek's DualPipe: bubble (p/2 − 1)(F&B + B − 3W) against 1F1B's (p − 1)(F + B)
    /// (deepseek-ai/DualPipe README). With the usual split of a micro-batch's compute into
    /// forward F, input-gradient B_in and weight-gradient W of equal FLOPs (each 1/3, and B is
    /// B_in plus W: the zero-bubble paper's convention, Qi et al., ICLR 2024) and F&B = F + B
    /// when a forward and a backward chunk overlap: (p/2 − 1)·(2/3) micro-batches of compute.
    #[serde(rename = "dualpipe")]
    DualPipe,
}

impl PipelineSchedule {
    /// Wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            PipelineSchedule::OneFOneB => "1f1b",
            PipelineSchedule::Interleaved => "interleaved",
            PipelineSchedule::DualPipe => "dualpipe",
        }
    }
}

/// Compute of one micro-batch's forward and backward DualPipe's bubble takes per stage beyond
/// the first two: F&B + B − 3W = (F + B) + B − 3W, with F = B_in = W = 1/3 of F + B.
pub const DUALPIPE_BUBBLE_PER_STAGE_PAIR: f64 = 2.0 / 3.0;

/// Bubble share of the compute, in micro-batches of compute per micro-batch processed: the
/// step's pipeline bubble is `compute_ms ×` this. `stages` p, `micro_batches` m per replica
/// per step (at least 1), `virtual_stages` v (interleaved only). 0 without a pipeline.
pub fn bubble_share(
    schedule: PipelineSchedule,
    stages: f64,
    micro_batches: f64,
    virtual_stages: f64,
) -> f64 {
    if stages <= 1.0 {
        return 0.0;
    }
    let m = micro_batches.max(1.0);
    let idle_micro_batches = match schedule {
        PipelineSchedule::OneFOneB => stages - 1.0,
        PipelineSchedule::Interleaved => (stages - 1.0) / virtual_stages.max(1.0),
        PipelineSchedule::DualPipe => {
            (stages / 2.0 - 1.0).max(0.0) * DUALPIPE_BUBBLE_PER_STAGE_PAIR
        }
    };
    idle_micro_batches / m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bubbles_by_hand() {
        // SC21's example: p = 8, m = 32 → 7/32; interleaved with v = 4 → 7/128.
        assert_eq!(
            bubble_share(PipelineSchedule::OneFOneB, 8.0, 32.0, 1.0),
            7.0 / 32.0
        );
        assert_eq!(
            bubble_share(PipelineSchedule::Interleaved, 8.0, 32.0, 4.0),
            7.0 / 128.0
        );
        // DualPipe on 16 stages: (8 − 1)·2/3 micro-batches against 1F1B's 15.
        let dual = bubble_share(PipelineSchedule::DualPipe, 16.0, 60.0, 1.0);
        assert!((dual - 7.0 * 2.0 / 3.0 / 60.0).abs() < 1e-12);
        assert!(dual < bubble_share(PipelineSchedule::OneFOneB, 16.0, 60.0, 1.0) / 3.0);
        // No pipeline, no bubble; fewer micro-batches than one count as one.
        assert_eq!(bubble_share(PipelineSchedule::OneFOneB, 1.0, 1.0, 1.0), 0.0);
        assert_eq!(bubble_share(PipelineSchedule::OneFOneB, 4.0, 0.5, 1.0), 3.0);
        // Interleaving one chunk is 1F1B.
        assert_eq!(
            bubble_share(PipelineSchedule::Interleaved, 4.0, 8.0, 1.0),
            bubble_share(PipelineSchedule::OneFOneB, 4.0, 8.0, 1.0)
        );
    }
}
