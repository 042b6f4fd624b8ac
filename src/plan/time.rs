//! Stage 3, time: the performance model's input for a sized fabric, its evaluation, and the
//! RoCE tunings side by side.

use super::error::{PlanError, perf_error};
use super::inputs;
use super::size::SizedFabric;
use crate::perf::{self, PerfResult};
use crate::sizing;
use crate::words::push_unique;

/// Share of a NIC's line rate below which its PCIe link is said to waste it: a product
/// threshold, not a physical constant (400G on PCIe Gen5 x16, 48 of 50 GB/s, is not warned;
/// 800G, 48 of 100 GB/s, is).
const PCIE_BOUND_SHARE: f64 = 0.75;

/// Warns when the host's PCIe link carries less than [`PCIE_BOUND_SHARE`] of the NIC's line
/// rate (an 800 Gb/s NIC on a PCIe Gen5 x16 server): the performance model caps the NIC at the
/// PCIe figure, so a slower, cheaper NIC performs the same.
pub(super) fn pcie_bound_nic_warning(nic: &perf::NicSpec, warnings: &mut Vec<String>) {
    let line = f64::from(nic.speed_gbps) / perf::constants::BITS_PER_BYTE;
    let pcie = perf::bandwidth::pcie_gbytes_per_s(nic.pcie_gen, nic.pcie_lanes);
    if pcie < PCIE_BOUND_SHARE * line {
        push_unique(
            warnings,
            format!(
                "nic_speed_gbps: {} Gb/s NICs ({line:.0} GB/s line rate) on this server's PCIe Gen{} x{} links, which carry {pcie:.0} GB/s, run at {:.0}% of their line rate; the performance model caps them there, so slower NICs perform the same",
                nic.speed_gbps,
                nic.pcie_gen,
                nic.pcie_lanes,
                100.0 * pcie / line
            ),
        );
    }
}

/// Warns when `nccl.algorithm` or `nccl.protocol` forced a choice the all-reduce cannot make
/// here (NVLS across servers, CollNet without SHARP, NVLS on a GPU without it): NCCL's own
/// choice ran instead, and the plan says which.
pub(super) fn forced_algorithm_warning(
    nccl: &perf::NcclSettings,
    result: &PerfResult,
    fabric: crate::fabric::Fabric,
    warnings: &mut Vec<String>,
) {
    if nccl.algorithm == perf::NcclAlgorithm::Auto && nccl.protocol == perf::NcclProtocol::Auto {
        return;
    }
    let (algorithm, protocol) = (
        crate::words::wire_name(&nccl.algorithm),
        crate::words::wire_name(&nccl.protocol),
    );
    let ran = |given: &str, chosen: &str| given == "auto" || given == chosen;
    if result.algorithm == "none"
        || (ran(&algorithm, result.algorithm) && ran(&protocol, result.protocol))
    {
        return;
    }
    push_unique(
        warnings,
        format!(
            "nccl: {algorithm}/{protocol} cannot run this all-reduce on {} (NVLS needs one NVLink domain with NVLink SHARP, nvls_tree several, collnet InfiniBand with topology.in_network_reduction); NCCL's own choice, {}/{}, is timed instead",
            fabric.as_str(),
            result.algorithm,
            result.protocol
        ),
    );
}

/// Warns when the all-reduce runs ring or tree across several multi-server NVLink domains
/// (NVL72 racks with NVLS off or not chosen): the model's ring and tree there are bounded by
/// NVLink and every rack's NICs, and give more than the only public run of the kind, which
/// it does not reproduce (validation rows `N-GB200-20RACK-*`, docs/model.md §6): the plan's
/// all-reduce figures are then an upper bound, and the plan says so.
pub(super) fn cross_rack_ring_warning(
    input: &perf::PerfInput,
    result: &PerfResult,
    fabric: crate::fabric::Fabric,
    warnings: &mut Vec<String>,
) {
    let racks = input.gpu.nvlink_domain_gpus > input.gpus_per_node;
    if !racks || result.communicator_nodes < 2 || !matches!(result.algorithm, "ring" | "tree") {
        return;
    }
    push_unique(
        warnings,
        format!(
            "{}: the all-reduce runs {} across {} NVLink racks ({} GPUs each); the model gives more than the only public run of that kind, 20 GB200 NVL72 racks with NVLS disabled (coreweave/nccl-tests: 406 GB/s bus bandwidth at 16 GiB, 151 at 512 MiB), and does not reproduce it (docs/model.md §6): read this plan's all-reduce figures as an upper bound",
            fabric.as_str(),
            result.algorithm,
            result.communicator_nodes,
            input.gpu.nvlink_domain_gpus
        ),
    );
}

/// Share of a step idled on the network above which the plan says which collective waits and
/// what would help (a third: issue 41's threshold, where a buyer stops trusting a plan that
/// does not explain itself).
const NETWORK_BOUND_SHARE: f64 = 1.0 / 3.0;

/// Warns when the job idles more than [`NETWORK_BOUND_SHARE`] of its step on the network: the
/// collective with the most exposed network time, its share, and what would help it.
pub(super) fn network_bound_warning(
    fabric: crate::fabric::Fabric,
    result: &PerfResult,
    workload: &perf::Workload,
    warnings: &mut Vec<String>,
) {
    if result.gpu_idle_fraction <= NETWORK_BOUND_SHARE || workload.message_bytes.is_some() {
        return;
    }
    let Some(worst) = result
        .collectives
        .iter()
        .filter(|c| c.placement == perf::job::NETWORK)
        .max_by(|a, b| a.exposed_ms.total_cmp(&b.exposed_ms))
    else {
        return;
    };
    let help = match (worst.parallelism, worst.kind) {
        ("expert", _) => {
            "hide it behind compute (workload.a2a_overlap: dualpipe, or the share your schedule hides), keep expert groups inside an NVLink domain (a smaller expert_parallel, or an NVL72 rack), or place them under one leaf"
        }
        ("data", "all_gather" | "reduce_scatter") => {
            "shard over fewer GPUs (add tensor or pipeline parallelism) or give each GPU more tokens a step (a larger batch), so that the parameter traffic hides behind compute"
        }
        ("data", _) => {
            "give each GPU more compute a step (a larger batch) or more of the backward to hide the gradient all-reduce behind"
        }
        ("tensor", _) => {
            "keep tensor parallelism inside an NVLink domain (tensor_parallel at most the GPUs of a server or rack)"
        }
        ("pipeline", _) => "run more micro-batches a step, or fewer pipeline stages",
        ("context", _) => {
            "keep context-parallel groups inside an NVLink domain, or shorten the sequence a rank holds"
        }
        _ => "overlap it with compute",
    };
    push_unique(
        warnings,
        format!(
            "{}: the job idles {:.0} % of its step on the network; the largest wait is the {} {} over {} GPUs ({:.0} ms exposed of a {:.0} ms step): {help}",
            fabric.as_str(),
            100.0 * result.gpu_idle_fraction,
            worst.parallelism,
            worst.kind.replace('_', "-"),
            worst.group_size,
            worst.exposed_ms,
            result.step_time_ms
        ),
    );
}

/// The performance model's input for a sized fabric under the resolved request. The leaves'
/// realised ratio is the one traffic sees (1 without spines).
pub fn perf_input(r: &inputs::Resolved, s: &SizedFabric) -> perf::PerfInput {
    let topology = &s.topology;
    perf::PerfInput {
        gpus: r.gpus,
        gpus_per_node: r.gpus_per_node,
        nics_per_node: r.nics_per_node,
        gpu: perf::GpuSpec {
            nvlink_ring_busbw_gbytes_per_s: r.gpu.nvlink_ring_busbw_gbytes_per_s,
            nvls_busbw_gbytes_per_s: r.gpu.nvls_busbw_gbytes_per_s,
            gpus_per_node_max: r.gpu.gpus_per_node.max(r.gpus_per_node),
            dense_bf16_tflops: r.gpu.dense_bf16_tflops,
            nvlink_domain_gpus: r.nvlink_domain_gpus,
            pcie_gen: r.gpu.pcie_gen,
            // An NVL72 compute tray: Grace CPUs with NVLink-C2C between GPU and NICs.
            grace_c2c: r.gpu.nvlink_domain_gpus > r.gpu.gpus_per_node,
            efficiency: perf::efficiency::for_gpu(&r.gpu.id),
        },
        nic: perf::NicSpec {
            speed_gbps: r.nic_speed_gbps,
            pcie_gen: s.nic_pcie_gen.min(r.gpu.pcie_gen),
            pcie_lanes: s.nic_pcie_lanes,
        },
        path: perf::FabricPath {
            fabric: s.fabric,
            tiers: topology.tiers,
            planes: topology.planes,
            oversubscription: topology.oversubscription_realised.max(1.0),
            rail_optimized: r.rail_optimized,
            nodes_per_leaf: topology.nodes_per_leaf.max(1),
            leaf_uplinks: topology.leaf_uplinks.max(1),
            uplink_lanes: topology.uplink_speed_gbps.map_or(1.0, |up| {
                f64::from(up) / f64::from(topology.link_speed_gbps.max(1))
            }),
            partial_leaf: topology.partial_leaf.as_ref().map(|l| {
                let mut split_rails = [(0.0, 0.0); 2];
                for (slot, r) in split_rails.iter_mut().zip(&l.split_rails) {
                    *slot = (f64::from(r.from_server), f64::from(r.servers));
                }
                perf::PartialLeafPath {
                    first_server: f64::from(l.first_server),
                    servers: f64::from(l.servers),
                    whole_rails: f64::from(l.whole_rails),
                    split_rails,
                    uplinks: l.uplinks.max(1),
                }
            }),
            // Rack leaves of racks that are not whole leaves (16 servers on leaves of 6: 6 + 6
            // + 4) do not tile the servers one after another.
            uniform_leaves: topology.design != sizing::Design::TorCopper
                || topology
                    .scalable_unit_nodes
                    .is_multiple_of(topology.nodes_per_leaf.max(1)),
            switch_latency_ns: f64::from(s.switch_latency_ns),
            roce_tuning: r.roce_tuning,
            in_network_reduction: r.in_network_reduction,
        },
        workload: r.workload,
    }
}

/// Both RoCE tunings side by side: the same job with each setting.
pub(super) fn roce_tunings(
    input: &perf::PerfInput,
    asked: &PerfResult,
) -> Result<Vec<perf::RoceTuningRow>, PlanError> {
    let other = match input.path.roce_tuning {
        perf::RoceTuning::Default => perf::RoceTuning::Tuned,
        perf::RoceTuning::Tuned => perf::RoceTuning::Default,
    };
    let mut alt_input = *input;
    alt_input.path.roce_tuning = other;
    let alt = perf::evaluate(&alt_input).map_err(perf_error)?;
    let (d, t) = match input.path.roce_tuning {
        perf::RoceTuning::Default => (asked, &alt),
        perf::RoceTuning::Tuned => (&alt, asked),
    };
    let row = |tuning: perf::RoceTuning, p: &PerfResult| perf::RoceTuningRow {
        roce_tuning: tuning,
        busbw_gbytes_per_s: p.busbw_gbytes_per_s,
        exposed_comm_ms: p.exposed_comm_ms,
        gpu_idle_fraction: p.gpu_idle_fraction,
    };
    Ok(vec![
        row(perf::RoceTuning::Default, d),
        row(perf::RoceTuning::Tuned, t),
    ])
}
