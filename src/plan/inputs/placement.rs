//! How the job sits on the cluster's NVLink domains, said as warnings: groups that cross the
//! network, GPUs no replica holds, racks bought whole, a job inside one domain.

use crate::perf::{self, Workload};

use super::hardware::Hardware;
use super::workload::Job;

/// The job's groups against the NVLink domains.
struct Layout<'a> {
    gpu: &'a str,
    gpus: u32,
    gpus_per_node: u32,
    /// GPUs in one NVLink domain.
    domain: u64,
    workload: &'a Workload,
    tp: u64,
    /// GPUs between the ranks of an expert group: TP·CP.
    stride: u64,
    ep: u64,
    /// GPUs of a block of expert groups: EP·TP·CP.
    span: u64,
    dp: u64,
    replica: u64,
    /// GPUs the data-parallel replicas hold.
    used: u64,
}

/// The warnings about where the job's groups sit, in the order they are said.
pub(super) fn warn(hw: &Hardware, job: &Job, warnings: &mut Vec<String>) {
    let workload = &job.workload;
    let tp = u64::from(workload.tensor_parallel.max(1));
    let stride = tp * u64::from(workload.context_parallel.max(1));
    let ep = u64::from(workload.expert_parallel.max(1));
    // `replica`: fitting the expert degree does not change TP·PP·CP.
    let layout = Layout {
        gpu: &hw.gpu.id,
        gpus: hw.gpus,
        gpus_per_node: hw.gpus_per_node,
        domain: u64::from(hw.domain_gpus),
        workload,
        tp,
        stride,
        ep,
        span: ep.saturating_mul(stride),
        dp: job.dp,
        replica: job.replica,
        used: job.dp.saturating_mul(job.replica),
    };
    warnings.extend(
        [
            expert_groups_straddle(&layout),
            tensor_groups_straddle(&layout),
            gpus_left_out(&layout),
            preset_not_timed(&layout),
            efficiency_assumed(&layout),
            dense_layers(&layout),
            all_to_all_exposed(&layout),
            part_of_a_rack(&layout),
        ]
        .into_iter()
        .flatten(),
    );
}

/// Expert groups that do not tile a multi-node NVLink domain (64 GPUs on 72-GPU NVL72 racks)
/// straddle racks and cross the network (docs/model.md §5b): say how many, and name the
/// degrees that tile.
fn expert_groups_straddle(l: &Layout) -> Option<String> {
    let (ep, stride, span, domain, dp) = (l.ep, l.stride, l.span, l.domain, l.dp);
    let applies = l.workload.message_bytes.is_none()
        && ep > 1
        && domain > u64::from(l.gpus_per_node)
        && u64::from(l.gpus) > domain
        && dp.is_multiple_of(ep)
        && !domain.is_multiple_of(span)
        && !span.is_multiple_of(domain);
    if !applies {
        return None;
    }
    // A block of EP·stride GPUs that divides a domain: every expert group inside one
    // (a block of whole domains keeps its groups' all-to-all on the network: EP 9 of
    // TP 8 × CP 2 on NVL72 idles more than EP 2).
    let tiling: Vec<String> = (2..=dp)
        .filter(|e| dp.is_multiple_of(*e) && domain.is_multiple_of(e * stride))
        .map(|e| e.to_string())
        .collect();
    // Each block of EP·stride GPUs holds `stride` expert groups (ranks `stride` apart).
    let groups = if stride > 1 {
        format!("expert groups of {ep} ranks, {stride} GPUs apart (blocks of {span} GPUs),")
    } else {
        format!("expert groups of {ep} GPUs")
    };
    Some(format!(
        "workload.expert_parallel: {groups} do not tile the {domain}-GPU NVLink domains of {}: {}, and the step waits for their all-to-all across the network{}",
        l.gpu,
        straddle_words(span, stride, domain, l.used),
        if tiling.is_empty() {
            String::new()
        } else {
            format!("; degrees that tile a domain: {}", tiling.join(", "))
        }
    ))
}

/// Tensor-parallel groups larger than an NVLink domain, or not tiling a multi-node one: their
/// all-reduce of every layer runs over the scale-out network (docs/model.md §5b).
fn tensor_groups_straddle(l: &Layout) -> Option<String> {
    let (tp, domain) = (l.tp, l.domain);
    let applies = l.workload.message_bytes.is_none()
        && tp > 1
        && u64::from(l.gpus) > domain
        && !domain.is_multiple_of(tp);
    if !applies {
        return None;
    }
    let fitting: Vec<String> = (2..=domain.min(tp))
        .filter(|t| domain.is_multiple_of(*t))
        .map(|t| t.to_string())
        .collect();
    let placed = if tp > domain {
        format!("every group spans {} domains", tp.div_ceil(domain))
    } else {
        straddle_words(tp, 1, domain, l.used)
    };
    Some(format!(
        "workload.tensor_parallel: tensor-parallel groups of {tp} GPUs do not fit the {domain}-GPU NVLink domains of {}: {placed}, and the step waits for their all-reduce of every layer across the scale-out network{}",
        l.gpu,
        if fitting.is_empty() {
            String::new()
        } else {
            format!("; degrees within a domain: {}", fitting.join(", "))
        }
    ))
}

/// GPUs no data-parallel replica holds: the job runs on the rest, and the left-out GPUs are
/// priced as if they ran it (their idle cost at the job's idle fraction).
fn gpus_left_out(l: &Layout) -> Option<String> {
    let (gpus, dp, used, replica) = (l.gpus, l.dp, l.used, l.replica);
    let applies = l.workload.message_bytes.is_none() && dp > 0 && used < u64::from(gpus);
    if !applies {
        return None;
    }
    let (tp, pp, cp) = (
        u64::from(l.workload.tensor_parallel.max(1)),
        u64::from(l.workload.pipeline_parallel.max(1)),
        u64::from(l.workload.context_parallel.max(1)),
    );
    let all = u64::from(gpus);
    let left = all - used;
    // The pipeline degree nearest below the one used (or the default's 4) that uses all.
    let fits = (1..=pp.max(u64::from(perf::DEFAULT_PIPELINE_PARALLEL)))
        .rev()
        .find(|p| all.is_multiple_of(tp * cp * p));
    Some(format!(
        "workload: a data-parallel replica is TP {tp} x PP {pp} x CP {cp} = {replica} GPUs, so {gpus} GPUs hold {dp} and the job runs on {used}; the other {left} {} no part of it{}: {}",
        if left == 1 { "GPU runs" } else { "run" },
        // Inside one NVLink domain no idle cost is charged at all (the note on a job inside
        // one domain says so).
        if all <= l.domain {
            String::new()
        } else {
            format!(
                " and {} priced as if {} ran it (idle cost at the job's idle fraction)",
                if left == 1 { "is" } else { "are" },
                if left == 1 { "it" } else { "they" },
            )
        },
        match fits {
            Some(p) => format!("workload.pipeline_parallel {p} uses all {gpus}"),
            None =>
                format!("choose tensor_parallel x context_parallel dividing {gpus} to use them all"),
        }
    ))
}

/// An explicit message times one all-reduce: a preset's job beside it is not timed, and is
/// said so.
fn preset_not_timed(l: &Layout) -> Option<String> {
    let (Some(bytes), Some(preset)) = (l.workload.message_bytes, l.workload.preset) else {
        return None;
    };
    Some(format!(
        "workload.message_bytes: one all-reduce of {bytes} bytes over all GPUs is timed; the preset {}'s training step is not (leave message_bytes out to time it)",
        preset.as_str()
    ))
}

/// A step timed at a compute efficiency no published run gives for the GPU (a GPU the
/// efficiency table does not list, `perf::efficiency`), unless the request sets one.
fn efficiency_assumed(l: &Layout) -> Option<String> {
    let applies = l.workload.message_bytes.is_none()
        && l.workload.mfu.is_none()
        && l.workload.step_compute_ms.is_none()
        && perf::efficiency::entry(l.gpu).is_none();
    applies.then(|| {
        format!(
            "workload.mfu: no published run gives {}'s compute efficiency; {} of its peak is assumed (docs/model.md §5c) — set workload.mfu",
            l.gpu,
            perf::DEFAULT_MFU
        )
    })
}

/// A mixture of experts timed with layers by the dense rule: its expert all-to-all runs
/// a MoE layer, so the count scales it (Mixtral 8x22B: 86 layers for 56).
fn dense_layers(l: &Layout) -> Option<String> {
    let applies = l.workload.message_bytes.is_none() && l.ep > 1 && l.workload.layers.is_none();
    if !applies {
        return None;
    }
    Some(format!(
        "workload.layers: {} derived by a dense model's rule (active parameters ÷ (12 × hidden²)), which overcounts a mixture of experts' layers (Mixtral 8x22B: 86 for 56) and with them its expert all-to-all; set workload.layers",
        perf::job::layers(l.workload)
    ))
}

/// An expert all-to-all over the network is counted fully exposed (docs/model.md §5b): an
/// upper bound for jobs that overlap it with computation, as DeepSeek-V3 did with DualPipe.
fn all_to_all_exposed(l: &Layout) -> Option<String> {
    let (ep, stride) = (l.ep, l.stride);
    let applies = l.workload.message_bytes.is_none() && ep > 1 && l.span > l.domain;
    if !applies {
        return None;
    }
    Some(format!(
        "workload.expert_parallel: the expert all-to-all across {ep} x {stride} GPUs is counted fully exposed, as without overlap with computation (DeepSeek-V3 hid it with DualPipe): its idle time is an upper bound for a job that overlaps it"
    ))
}

/// A multi-node NVLink domain (an NVL72 rack) is bought whole: a cluster of part of one
/// buys, cables and powers the whole rack, and is said so.
fn part_of_a_rack(l: &Layout) -> Option<String> {
    let (gpus, gpus_per_node, domain) = (l.gpus, l.gpus_per_node, l.domain);
    let applies = domain > u64::from(gpus_per_node) && !u64::from(gpus).is_multiple_of(domain);
    if !applies {
        return None;
    }
    let racks = u64::from(gpus).div_ceil(domain);
    let servers = u64::from(gpus).div_ceil(u64::from(gpus_per_node));
    Some(format!(
        "gpus: {gpus} GPU{} not whole {domain}-GPU NVLink domains of {} (racks are bought whole): the plan sizes the fabric for the {servers} server{} of {gpus_per_node} GPUs {} fill{}; {racks} whole rack{} {} {} GPUs (set gpus = {})",
        if gpus == 1 { " is" } else { "s are" },
        l.gpu,
        if servers == 1 { "" } else { "s" },
        if gpus == 1 { "it" } else { "they" },
        if gpus == 1 { "s" } else { "" },
        if racks == 1 { "" } else { "s" },
        if racks == 1 { "is" } else { "are" },
        racks * domain,
        racks * domain
    ))
}

/// The job inside one NVLink domain: a server, or a multi-node NVLink rack (NVL72).
pub(super) fn warn_inside_one_domain(hw: &Hardware, warnings: &mut Vec<String>) {
    let (gpus, gpus_per_node, domain_gpus) = (hw.gpus, hw.gpus_per_node, hw.domain_gpus);
    if gpus > domain_gpus {
        return;
    }
    let inside = if gpus <= gpus_per_node {
        format!(
            "one server ({gpus} GPU{})",
            if gpus == 1 { "" } else { "s" }
        )
    } else {
        format!(
            "one NVLink domain ({gpus} GPUs of the {domain_gpus}-GPU {} domain)",
            hw.gpu.id
        )
    };
    warnings.push(format!(
        "{inside}: every collective of the job runs over NVLink inside it, so no scale-out fabric changes its step time; each fabric is priced as asked (for storage, growth or a second {}) and no idle cost is charged to it (no wait on it, and no failure of its parts interrupts the job)",
        if gpus <= gpus_per_node { "server" } else { "domain" }
    ));
}

/// How many of the groups in the blocks of `span` GPUs that tile `used` GPUs from GPU 0 cross a
/// boundary of the `domain`-GPU NVLink domains, in words ("7 of 64 groups straddle two
/// domains"). A block holds `per_block` groups, interleaved (the expert groups of a block of
/// EP × TP·CP GPUs: group j has the block's GPUs j, j + TP·CP, …). A group whose GPUs span more
/// than a domain always straddles; otherwise it crosses at most one boundary, and a boundary
/// `off` GPUs into a block is crossed by the groups that have GPUs on both sides of it. With
/// one group a block (tensor parallelism) those are the boundaries inside the job that are not
/// block edges (multiples of lcm(span, domain)).
pub fn straddle_words(span: u64, per_block: u64, domain: u64, used: u64) -> String {
    let per_block = per_block.max(1);
    let blocks = used.checked_div(span).unwrap_or(0);
    let groups = blocks.saturating_mul(per_block);
    // GPUs from a group's first to its last.
    let extent = span.saturating_sub(per_block).saturating_add(1);
    let last = used.saturating_sub(1);
    let straddling = if extent > domain {
        groups
    } else if per_block == 1 {
        let g = u64::try_from(crate::arith::gcd(u128::from(span), u128::from(domain))).unwrap_or(1);
        let lcm = span
            .checked_div(g)
            .and_then(|s| s.checked_mul(domain))
            .unwrap_or(u64::MAX);
        (last.checked_div(domain).unwrap_or(0))
            .saturating_sub(last.checked_div(lcm).unwrap_or(0))
            .min(blocks)
    } else {
        // At most one boundary a group: count the groups each boundary inside the job cuts
        // (a boundary `off` GPUs into its block cuts groups j with j < off ≤ j + extent − 1).
        let boundaries = last.checked_div(domain).unwrap_or(0);
        (1..=boundaries)
            .map(|m| {
                let off = (m * domain) % span.max(1);
                off.min(per_block)
                    .saturating_sub(off.saturating_sub(extent.saturating_sub(1)))
            })
            .sum::<u64>()
            .min(groups)
    };
    let domains = if extent > domain {
        format!("{} or more domains", extent.div_ceil(domain))
    } else {
        "two domains".to_string()
    };
    match (straddling, groups) {
        (s, g) if s == g => format!("all {g} groups straddle {domains}"),
        (1, g) => format!("1 of {g} groups straddles {domains}"),
        (s, g) => format!("{s} of {g} groups straddle {domains}"),
    }
}

#[cfg(test)]
mod tests {
    use super::straddle_words;

    /// The straddle count against a brute force: every group of every block, its GPUs listed,
    /// straddling when they lie in more than one domain.
    #[test]
    fn straddling_groups_are_counted_one_by_one() {
        for domain in [8u64, 36, 72] {
            for stride in [1u64, 2, 3, 4, 8, 16] {
                for ep in [2u64, 3, 4, 5, 9, 16] {
                    let span = ep * stride;
                    for used in [span * 4, span * 37, span * 64] {
                        let mut straddling = 0;
                        for b in 0..used / span {
                            for j in 0..stride {
                                let gpus = (0..ep).map(|k| b * span + j + k * stride);
                                let first = gpus.clone().min().unwrap_or(0) / domain;
                                if gpus.map(|g| g / domain).any(|d| d != first) {
                                    straddling += 1;
                                }
                            }
                        }
                        let groups = used / span * stride;
                        let words = straddle_words(span, stride, domain, used);
                        let want_all = straddling == groups;
                        let said = if want_all {
                            words.starts_with(&format!("all {groups} groups"))
                        } else {
                            words.starts_with(&format!("{straddling} of {groups} group"))
                        };
                        assert!(
                            said,
                            "EP {ep} × stride {stride} on {used} GPUs, domain {domain}: {straddling} of {groups}, said {words}"
                        );
                    }
                }
            }
        }
    }
}
