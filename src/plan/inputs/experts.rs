//! The expert-parallel degree: a preset's fitted to the cluster's data-parallel replicas, and
//! every degree checked against the experts.
//!
//! Expert parallelism is carved out of data parallelism and must divide it (Megatron-LM: the
//! data-parallel size must be a multiple of the expert-parallel size). A preset's degree
//! (DeepSeek-V3: 64) that does not divide this cluster's replicas becomes the largest one below
//! it that does, warned (and echoed as not set, so the echo posted back refits it again). A
//! preset's degree above the replicas is a 422 on the preset: spreading the experts over fewer
//! GPUs is a different job (DeepSeek-V3 on EP 4 would hold ~12 B parameters per H100), not the
//! published one. A degree the user gives is kept (and refused by the performance model when it
//! does not divide).

use crate::error_code::ErrorCode;
use crate::perf::{self, Workload, WorkloadPreset};
use crate::plan::error::PlanError;
use crate::plan::request::*;

/// A preset's degree refitted to this cluster.
pub(super) struct Refit {
    /// The warning that says so.
    pub note: String,
    /// The refitted degree splits the experts unevenly (echoed as not set too: given, they would
    /// be the user's, and the refit would have to divide them).
    pub experts_uneven: bool,
}

/// The preset's degree, refitted when it does not divide the `dp` replicas of `gpus` GPUs;
/// `None`: kept as it is.
pub(super) fn fit(
    w: &WorkloadRequest,
    gpus: u32,
    dp: u64,
    workload: &mut Workload,
) -> Result<Option<Refit>, PlanError> {
    let preset_ep = u64::from(workload.expert_parallel.max(1));
    if let Some(preset) = w.preset
        && w.expert_parallel.is_none()
        && preset_ep > dp
    {
        return Err(preset_degree_too_large(
            preset, preset_ep, dp, gpus, workload,
        ));
    }
    if w.expert_parallel.is_none() && preset_ep > 1 && !dp.is_multiple_of(preset_ep) {
        return Ok(Some(refit(w, gpus, dp, preset_ep, workload)));
    }
    Ok(None)
}

/// A preset's degree above the replicas: a 422 on the preset.
fn preset_degree_too_large(
    preset: WorkloadPreset,
    preset_ep: u64,
    dp: u64,
    gpus: u32,
    workload: &Workload,
) -> PlanError {
    let replica = perf::data_parallel_replica_gpus(workload);
    PlanError::field(
        "/workload/preset",
        ErrorCode::PerformanceModel,
        format!(
            "the preset {} spreads its experts over {preset_ep}-way expert parallelism, carved from at least {preset_ep} data-parallel replicas of {replica} GPUs = {} GPUs; {gpus} GPUs have {dp}: plan at least {} GPUs, or set workload.expert_parallel to a divisor of {dp} (each GPU then holds more experts)",
            preset.as_str(),
            preset_ep.saturating_mul(replica),
            preset_ep.saturating_mul(replica)
        ),
    )
}

/// The largest degree up to the preset's that divides the replicas, set in `workload`. Requiring
/// it to divide the experts too gave EP 1 or 2 at ordinary sizes (2,064 GPUs: every GPU holding
/// all 256 experts, half the cost of 2,048): the fitted job keeps its degree, splits the experts
/// unevenly, and is said so, with the sizes the preset's own degree fits. Experts the request
/// gives are the user's to check: the degree then divides them too.
fn refit(
    w: &WorkloadRequest,
    gpus: u32,
    dp: u64,
    preset_ep: u64,
    workload: &mut Workload,
) -> Refit {
    let given_experts = w.experts.map(|x| u64::from(x.get()));
    let fitted = (1..=preset_ep)
        .rev()
        .find(|e| dp.is_multiple_of(*e) && given_experts.is_none_or(|x| x.is_multiple_of(*e)))
        .unwrap_or(1);
    workload.expert_parallel = u32::try_from(fitted).unwrap_or(1);
    // Kept, split unevenly (the busiest rank holds ⌈E/EP⌉, whose share of the gradient the
    // model counts): this job is the preset's, refitted.
    let uneven = workload
        .experts
        .map(u64::from)
        .filter(|x| !x.is_multiple_of(fitted));
    let unit = preset_ep.saturating_mul(perf::data_parallel_replica_gpus(workload));
    let lower = u64::from(gpus) / unit.max(1) * unit;
    let note = format!(
        "workload.expert_parallel: the preset's {preset_ep} does not divide the {dp} data-parallel replicas of {gpus} GPUs; using {fitted}, the largest degree up to {preset_ep} that divides them{}{}; the preset's {preset_ep} fits {lower} or {} GPUs (set workload.expert_parallel to a degree dividing both the replicas and the experts, or leave it out)",
        // Experts the request gives must be divided too ("the largest that does" would read
        // false where 43 divides the replicas but not 64 experts).
        given_experts
            .map(|x| format!(" and the {x} experts given"))
            .unwrap_or_default(),
        uneven
            .map(|x| format!(
                ", which splits the {x} experts unevenly ({} or {} a rank; Megatron-LM needs a divisor)",
                x / fitted,
                x.div_ceil(fitted)
            ))
            .unwrap_or_default(),
        lower.saturating_add(unit)
    );
    Refit {
        note,
        experts_uneven: uneven.is_some(),
    }
}

/// Each rank holds whole experts (Megatron-LM: num_experts % expert_parallel == 0): a degree
/// the user gives, or experts the user gives, must divide; only the preset's refitted degree
/// splits them unevenly (and says so). More ranks than experts, or a top-k above the experts,
/// are the model's to refuse, top-k first.
pub(super) fn check_divides(
    w: &WorkloadRequest,
    workload: &Workload,
    ep_refitted: bool,
    dp: u64,
) -> Result<(), PlanError> {
    let ep = u64::from(workload.expert_parallel.max(1));
    if !ep_refitted
        && let Some(x) = workload.experts.map(u64::from)
        && ep > 1
        && ep < x
        && u64::from(workload.moe_top_k) <= x
        && !x.is_multiple_of(ep)
    {
        return Err(PlanError::field(
            "/workload/expert_parallel",
            ErrorCode::PerformanceModel,
            format!(
                "{ep} does not divide the {x} routed experts (each rank holds whole experts): use a degree dividing both the {x} experts and the {dp} data-parallel replicas ({}){}",
                common_divisors(x, dp),
                if w.preset.is_some() && w.expert_parallel.is_some() {
                    ", or leave it out to let the preset's degree be fitted"
                } else {
                    ""
                }
            ),
        ));
    }
    Ok(())
}

/// The divisors of both `a` and `b`, listed ("1, 2, 4, 8"; at most the 12 largest).
fn common_divisors(a: u64, b: u64) -> String {
    let g = crate::arith::gcd(u128::from(a.max(1)), u128::from(b.max(1)));
    let all: Vec<u64> = crate::arith::divisors(u64::try_from(g).unwrap_or(1), 1).collect();
    let shown = &all[all.len().saturating_sub(12)..];
    shown
        .iter()
        .map(u64::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}
