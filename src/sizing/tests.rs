//! Tests for the sizing rules: published reference cases (data-driven, tests/data), designs built
//! by the same rules that the rules were not tuned on (expected values hand-computed in the
//! comments), error cases, and properties over random clusters.

use super::error::thousands;
use super::oversubscription::two_tier_spines;
use super::*;
use proptest::prelude::*;
use serde::Deserialize;
use std::collections::BTreeMap;

const CASES: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/sizing_cases.json"
));

#[derive(Deserialize)]
struct CaseFile {
    switches: BTreeMap<String, SwitchSpec>,
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    name: String,
    source: String,
    switch: String,
    cluster: ClusterSpec,
    options: TopologyOptions,
    /// The design the published case uses (default: the SU Clos).
    #[serde(default)]
    design: Option<Design>,
    expect: BTreeMap<String, u64>,
    bom: Option<Bom>,
}

#[derive(Deserialize)]
struct Bom {
    source: String,
    switches: u64,
    cables: u64,
    switch_side_modules_fill_every_cage: u64,
    switch_side_modules_per_link: u64,
    ufm_links: u64,
    node_side_modules: u64,
    node_ports_per_module: u64,
}

fn load() -> CaseFile {
    serde_json::from_str(CASES).expect("tests/data/sizing_cases.json parses")
}

/// The value of an `expect` key in a topology.
fn field(t: &Topology, key: &str) -> u64 {
    match key {
        "tiers" => u64::from(t.tiers),
        "radix" => u64::from(t.radix),
        "nodes" => u64::from(t.nodes),
        "leaf_downlinks" => u64::from(t.leaf_downlinks),
        "leaf_uplinks" => u64::from(t.leaf_uplinks),
        "leaf_switches" => t.leaf_switches,
        "spine_switches" => t.spine_switches,
        "core_switches" => t.core_switches,
        "node_leaf" => t.links.node_leaf,
        "leaf_spine" => t.links.leaf_spine,
        "spine_core" => t.links.spine_core,
        "two_tier_max_endpoints_per_plane" => t.two_tier_max_endpoints_per_plane,
        "three_tier_max_endpoints_per_plane" => t.three_tier_max_endpoints_per_plane,
        other => panic!("unknown expect key {other}"),
    }
}

fn qm9700() -> SwitchSpec {
    load()
        .switches
        .remove("nvidia-qm9700")
        .expect("qm9700 in data")
}

/// An 800G switch (links at 800G or 400G) with `ports` ports, `ports_per_cage` per cage.
fn switch_800g(sku: &str, ports: u32, ports_per_cage: u32) -> SwitchSpec {
    SwitchSpec {
        sku: sku.into(),
        ports,
        port_speed_gbps: 800,
        link_speeds_gbps: vec![800, 400],
        ports_per_cage,
    }
}

/// 64 × 800G Ethernet (Tomahawk-5 / Spectrum-4 class), one 800G port per OSFP cage, runs as
/// 128 × 400G.
fn eth_64x800() -> SwitchSpec {
    switch_800g("eth-64x800", 64, 1)
}

/// 144 × 800G (Quantum-X800 Q3400 class) in 72 twin-port cages.
fn xdr_144x800() -> SwitchSpec {
    switch_800g("ib-144x800", 144, 2)
}

fn cluster(gpus: u32, nics: u32, nic_speed_gbps: u32) -> ClusterSpec {
    ClusterSpec {
        gpus,
        gpus_per_node: 8,
        nics_per_node: nics,
        nic_speed_gbps,
    }
}

fn opts(planes: u32, oversubscription: f64, max_tiers: u8) -> TopologyOptions {
    TopologyOptions {
        planes,
        oversubscription,
        rail_optimized: true,
        max_tiers,
        nodes_per_rack: None,
    }
}

/// (tiers, leaves, spines, cores, node-leaf, leaf-spine, spine-core)
type Summary = (u8, u64, u64, u64, u64, u64, u64);

fn summary(t: &Topology) -> Summary {
    (
        t.tiers,
        t.leaf_switches,
        t.spine_switches,
        t.core_switches,
        t.links.node_leaf,
        t.links.leaf_spine,
        t.links.spine_core,
    )
}

/// Sizes `gpus` GPUs (8 per node, 8 NICs of `nic_gbps`) on `sw` with `o`, asserts that its
/// [`summary`] is `want` and returns the topology for further checks.
fn sized(
    sw: &SwitchSpec,
    o: &TopologyOptions,
    gpus: u32,
    nic_gbps: u32,
    want: Summary,
) -> Topology {
    let t = size(&cluster(gpus, 8, nic_gbps), sw, o).expect("sizes");
    assert_eq!(summary(&t), want, "{gpus} GPUs at {nic_gbps}G");
    t
}

/// The (two-tier, three-tier) endpoint ceilings per plane.
fn ceilings(t: &Topology) -> (u64, u64) {
    (
        t.two_tier_max_endpoints_per_plane,
        t.three_tier_max_endpoints_per_plane,
    )
}

// ---------------------------------------------------------------- published reference cases

#[test]
fn published_cases_reproduce() {
    let data = load();
    assert!(
        data.cases.len() >= 6,
        "every published case is in the data file"
    );
    for case in &data.cases {
        assert!(
            !case.source.is_empty(),
            "{}: every row names its source",
            case.name
        );
        assert!(!case.expect.is_empty(), "{}: nothing to check", case.name);
        let switch = &data.switches[&case.switch];
        let design = case.design.unwrap_or(Design::SuClos);
        let t = size_design(&case.cluster, switch, &case.options, design)
            .unwrap_or_else(|e| panic!("{}: {e}", case.name));
        for (key, want) in &case.expect {
            assert_eq!(
                field(&t, key),
                *want,
                "{} ({}): {key}",
                case.name,
                case.source
            );
        }
    }
}

#[test]
fn published_4su_bill_of_materials() {
    let data = load();
    let mut checked = 0;
    for case in &data.cases {
        let Some(bom) = &case.bom else { continue };
        let switch = &data.switches[&case.switch];
        let t = size(&case.cluster, switch, &case.options).expect("sizes");
        let ctx = format!("{} ({})", case.name, bom.source);
        let switches = t.leaf_switches + t.spine_switches + t.core_switches;
        assert_eq!(switches, bom.switches, "{ctx}: switches");
        // One cable per 400G link.
        assert_eq!(
            t.links.node_leaf + t.links.leaf_spine + t.links.spine_core,
            bom.cables,
            "{ctx}"
        );
        // NVIDIA fills every cage: 48 × 32 = 1,536; here every cage is also used.
        assert_eq!(
            t.ports.switch_cages_total, bom.switch_side_modules_fill_every_cage,
            "{ctx}"
        );
        assert_eq!(
            t.ports.switch_cages_used, bom.switch_side_modules_fill_every_cage,
            "{ctx}"
        );
        // Strict per-link counting: switch ports used (+ the UFM ports NVIDIA adds) / 2 per module.
        let used = t.ports.leaf_ports_used + t.ports.spine_ports_used + t.ports.core_ports_used;
        let per_link = (used + bom.ufm_links).div_ceil(u64::from(switch.ports_per_cage));
        assert_eq!(
            per_link, bom.switch_side_modules_per_link,
            "{ctx}: per-link modules"
        );
        // Node side: each NIC port has its own module slot, twin-port modules: 4 per DGX.
        let per_node = (t.ports.nic_ports / u64::from(t.nodes)).div_ceil(bom.node_ports_per_module);
        assert_eq!(
            u64::from(t.nodes) * per_node,
            bom.node_side_modules,
            "{ctx}: node modules"
        );
        checked += 1;
    }
    assert_eq!(checked, 1, "the 4-SU BOM row is present");
}

// ------------------------------------------- further designs, same rules, not tuned on them

#[test]
fn ethernet_128x400_breakout() {
    // 64 × 800G broken out: k = 64 × 800/400 = 128, d = u = 64, SU = 64 nodes (8 rail leaves),
    // two-tier ceiling k·d = 8,192 endpoints, three-tier 128³/4 = 524,288.
    let sw = eth_64x800();
    let o = opts(1, 1.0, 3);
    // 1,024 GPUs = 128 nodes = 2 SU → L = 16; ceil(16·64/128) = 8 divides 64 → 8 spines.
    let t = sized(&sw, &o, 1024, 400, (2, 16, 8, 0, 1024, 1024, 0));
    assert_eq!(
        (t.radix, t.scalable_unit_nodes, t.scalable_units),
        (128, 64, 2)
    );
    assert_eq!(ceilings(&t), (8192, 524_288));
    // 1,536 GPUs = 192 nodes = 3 SU → L = 24; ceil(24·64/128) = 12 does not divide 64 → 16
    // (the same effect as NVIDIA's 3-SU row).
    sized(&sw, &o, 1536, 400, (2, 24, 16, 0, 1536, 1536, 0));
    // 8,192 GPUs = 1,024 nodes = 16 SU → L = 128 = k, S = 64: exactly at the two-tier ceiling.
    sized(&sw, &o, 8192, 400, (2, 128, 64, 0, 8192, 8192, 0));
    // 8,200 GPUs = 1,025 nodes = 17 SU → L = 136 > 128 → three tiers: spines = 136·64/64 = 136,
    // core = 136·64/128 = 68; leaf-spine = spine-core = 136·64 = 8,704.
    let t = sized(&sw, &o, 8200, 400, (3, 136, 136, 68, 8200, 8704, 8704));
    // Cages: one 800G port (2 × 400G links) per cage, 64 cages per switch.
    assert_eq!(t.ports.switch_cages_total, (136 + 136 + 68) * 64);
}

#[test]
fn xdr_144x800_su_is_72_nodes() {
    // 144 × 800G at 800G: k = 144, d = u = 72, SU = 72 nodes (the B300-on-XDR SU),
    // two-tier ceiling 144·72 = 10,368, three-tier 144³/4 = 746,496.
    let sw = xdr_144x800();
    let o = opts(1, 1.0, 3);
    // 576 GPUs = 72 nodes = 1 SU → L = 8; ceil(8·72/144) = 4 divides 72 → 4 spines.
    let t = sized(&sw, &o, 576, 800, (2, 8, 4, 0, 576, 576, 0));
    assert_eq!((t.link_speed_gbps, t.scalable_unit_nodes), (800, 72));
    assert_eq!(ceilings(&t), (10_368, 746_496));
    // 2,304 GPUs = 288 nodes = 4 SU → L = 32; ceil(32·72/144) = 16; divisors of 72 ≥ 16 → 18.
    sized(&sw, &o, 2304, 800, (2, 32, 18, 0, 2304, 2304, 0));
    // 20,736 GPUs = 2,592 nodes = 36 SU → L = 288 > 144 → three tiers: spines 288, core 144,
    // leaf-spine = spine-core = 288·72 = 20,736.
    sized(
        &sw,
        &o,
        20_736,
        800,
        (3, 288, 288, 144, 20_736, 20_736, 20_736),
    );
}

#[test]
fn two_planes_of_400g_from_800g_nics() {
    // 8 × 800G NICs, 2 planes → 400G links; 64 × 800G run as k = 128, SU = 64 nodes.
    // 512 GPUs = 64 nodes = 1 SU. Per plane: L = 8, ceil(8·64/128) = 4 → 4 spines.
    // Totals ×2: 16 leaves, 8 spines; node-leaf = 64·8·2 = 1,024; leaf-spine = 16·64 = 1,024.
    let sw = eth_64x800();
    let two = opts(2, 1.0, 3);
    let t = sized(&sw, &two, 512, 800, (2, 16, 8, 0, 1024, 1024, 0));
    assert_eq!(
        (t.planes, t.link_speed_gbps, t.radix, t.endpoints_per_plane),
        (2, 400, 128, 512)
    );
    assert_eq!(t.ports.nic_ports, 1024);
    // 8,192 GPUs = 1,024 nodes = 16 SU: per plane L = 128 = k, S = 64 (ceiling 8,192 per plane);
    // totals 256 leaves, 128 spines, 16,384 node-leaf and 16,384 leaf-spine links.
    sized(&sw, &two, 8192, 800, (2, 256, 128, 0, 16_384, 16_384, 0));
    // The same NICs on one plane run 800G links: k = 64, a different fabric.
    let t = size(&cluster(512, 8, 800), &sw, &opts(1, 1.0, 3)).expect("sizes");
    assert_eq!(
        (t.link_speed_gbps, t.radix, t.scalable_unit_nodes),
        (800, 64, 32)
    );
}

#[test]
fn three_to_one_oversubscription() {
    // QM9700 at 3:1: d = 48, u = 16, SU = 48 nodes, two-tier ceiling 3,072,
    // three-tier k²·d/2 = 64·64·48/2 = 98,304.
    let sw = qm9700();
    let o = opts(1, 3.0, 3);
    // 1,024 GPUs = 128 nodes = ceil(128/48) = 3 SU → L = 24; ceil(24·16/64) = 6 → divisors of
    // 16 → 8 spines; leaf-spine = 24·16 = 384.
    let t = sized(&sw, &o, 1024, 400, (2, 24, 8, 0, 1024, 384, 0));
    assert_eq!((t.scalable_unit_nodes, t.scalable_units), (48, 3));
    assert_eq!(t.three_tier_max_endpoints_per_plane, 98_304);
    // 3,072 GPUs = 384 nodes = 8 SU → L = 64 = k, S = 16.
    sized(&sw, &o, 3072, 400, (2, 64, 16, 0, 3072, 1024, 0));
    // 4,096 GPUs = 512 nodes = 11 SU → L = 88 > 64 → three tiers: spines = 88·16/32 = 44,
    // core = 44·32/64 = 22; leaf-spine = spine-core = 1,408.
    sized(&sw, &o, 4096, 400, (3, 88, 44, 22, 4096, 1408, 1408));
}

#[test]
fn not_rail_optimized_puts_a_node_on_one_leaf() {
    // QM9700 1:1, 8 NIC ports per node on one leaf: 32/8 = 4 nodes per leaf = the SU.
    // 1,016 GPUs = 127 nodes → 32 leaves, ceil(32·32/64) = 16 spines (same as rail-optimized).
    // 800 GPUs = 100 nodes → 25 leaves, ceil(25·32/64) = 13 → 16 spines; leaf-spine 800.
    let sw = qm9700();
    let mut o = opts(1, 1.0, 3);
    o.rail_optimized = false;
    let t = sized(&sw, &o, 1016, 400, (2, 32, 16, 0, 1016, 1024, 0));
    assert_eq!((t.nodes_per_leaf, t.scalable_unit_nodes), (4, 4));
    sized(&sw, &o, 800, 400, (2, 25, 16, 0, 800, 800, 0));
}

#[test]
fn two_to_one_is_exact_and_never_adds_spines() {
    // 2:1 on a 64-port leaf: ⌈64/3⌉ = 22 uplinks would give 42:22 (not 2:1), so the fullest
    // exact split is 42:21 (one port unused). 31 nodes fit one SU with every exact split down
    // to 32:16 (8 rail leaves each), so the split with the fewest switches is built:
    // 42:21 → ⌈8·21/64⌉ = 3, 3 divides 21 → 3 spines (11 switches); 40:20 → 3 → 4 (12);
    // 38:19 → 3 → 19, capped at 1:1's 4 (12); 36:18 → 3 (11); 34:17 → 3 → 17, capped 4 (12);
    // 32:16 → ⌈128/64⌉ = 2, 2 divides 16 → 2 spines: 10 switches, each spine 8 × 8 = 64 ports
    // full, against 12 at 1:1. (The old rule, d = ⌊k·o/(1+o)⌋ = 42 with u = 22, needed 11
    // spines: 22 has no divisor between 3 and 10.)
    let sw = qm9700();
    let t = sized(&sw, &opts(1, 2.0, 3), 248, 400, (2, 8, 2, 0, 248, 128, 0));
    assert_eq!((t.leaf_downlinks, t.leaf_uplinks), (32, 16));
    assert_eq!(t.oversubscription_realised, 2.0);
    let s = leaf_split(64, 2.0);
    assert_eq!((s.downlinks, s.uplinks, s.exact), (42, 21, true));
    sized(&sw, &opts(1, 1.0, 3), 248, 400, (2, 8, 4, 0, 248, 256, 0));
    // 2:1 on 128 × 400G (64 × 800G Ethernet): 84:42, two ports unused.
    let s = leaf_split(128, 2.0);
    assert_eq!((s.downlinks, s.uplinks, s.exact), (84, 42, true));
    // A ratio no split realises exactly falls to the nearest one below, flagged.
    let s = leaf_split(64, 1.0 + 1.0 / 3.0 + 1e-4);
    assert!(!s.exact);
    assert!(s.realised() <= 1.0 + 1.0 / 3.0 + 1e-4);
    // 6:5 is realised exactly only by splits with fewer downlinks than a non-blocking leaf
    // (30:25, 24:20, …: d = 1.2·u ≥ 32 needs u ≥ 27, and no multiple of 5 lies in
    // 27..=⌊64/2.2⌋ = 29): the nearest ratio below is used, 64 − ⌈64/2.2⌉ = 34 : 30, flagged.
    let s = leaf_split(64, 1.2);
    assert_eq!((s.downlinks, s.uplinks, s.exact), (34, 30, false));
    // 1,024 GPUs: 4 SU of 34 nodes = 32 leaves, ⌈960/64⌉ = 15 → divisor of 30: 15 spines
    // (47 switches); the old 30:25 built 40 leaves + 25 spines, against 32 + 16 at 1:1.
    let t = sized(
        &sw,
        &opts(1, 1.2, 3),
        1024,
        400,
        (2, 32, 15, 0, 1024, 960, 0),
    );
    assert!(t.oversubscription_realised < 1.2);
    // u prime: the divisor rule would take all 13 spines; capped at the 1:1 count.
    assert_eq!(two_tier_spines(8, 13, 64), Some(4));
}

#[test]
fn two_to_one_on_1024_gpus_uses_the_split_with_the_fewest_switches() {
    // 1,024 H100 = 128 nodes × 8 rails of 400G on QM9700 (k = 64) at 2:1: 1,024 endpoints per
    // plane. Exact 2:1 splits d = 2u, d + u ≤ 64: 42:21, 40:20, 38:19, 36:18, 34:17, 32:16, …
    // At 1:1 (d = 32): 4 SU = 32 leaves, ⌈32·32/64⌉ = 16 spines, 48 switches; no split may
    // need more leaves than that.
    let sw = qm9700();
    let two = opts(1, 2.0, 3);
    let c = cluster(1024, 8, 400);
    // collapsed_rails, leaves = ⌈1,024 / d⌉ (a whole-SU split counts as the su_clos it is):
    //   42:21 → 3 SU + 2 nodes: 24 + ⌈16/42⌉ = 25 leaves, ⌈525/64⌉ = 9, smallest divisor of
    //           21 ≥ 9 is 21, capped at 1:1's count (smallest divisor of 32 ≥ ⌈25·32/64⌉ = 13:
    //           16) → 16 spines, 41 switches: the old answer, 525 links on 1,024 spine ports;
    //   40:20 → 24 + ⌈64/40⌉ = 26 leaves, ⌈520/64⌉ = 9 → divisor of 20: 10 spines, 36;
    //   38:19 → 24 + ⌈112/38⌉ = 27 leaves, ⌈513/64⌉ = 9 → 19, capped at 16: 43;
    //   36:18 → 24 + ⌈160/36⌉ = 29 leaves, ⌈522/64⌉ = 9 → 9 spines: 38;
    //   34:17 → 24 + ⌈208/34⌉ = 31 leaves, ⌈527/64⌉ = 9 → 17, capped at 16: 47;
    //   32:16 → whole SUs (4 × 32 nodes): su_clos's 32 leaves + 8 spines, 40;
    //   30:15 → ⌈1,024/30⌉ = 35 leaves > 32: not considered (nor any smaller split).
    // So 40:20: 26 leaves + 10 spines, 520 links, 2 from every leaf to every spine (52 of a
    // spine's 64 ports used).
    let t = size_design(&c, &sw, &two, Design::CollapsedRails).expect("collapsed");
    assert_eq!(summary(&t), (2, 26, 10, 0, 1024, 520, 0));
    assert_eq!((t.leaf_downlinks, t.leaf_uplinks), (40, 20));
    assert_eq!(t.oversubscription_realised, 2.0);
    // su_clos, leaves = ⌈128 / d⌉ SU × 8: every split down to 32:16 needs 4 SU = 32 leaves;
    //   42:21 → ⌈672/64⌉ = 11 → 21, capped at 16: 48 (the old answer, as many as 1:1);
    //   40:20 → 10: 42; 38:19 → 19, capped 16: 48; 36:18 → ⌈576/64⌉ = 9: 41;
    //   34:17 → 17, capped 16: 48; 32:16 → ⌈512/64⌉ = 8 → 8 spines: 40.
    let t = sized(&sw, &two, 1024, 400, (2, 32, 8, 0, 1024, 512, 0));
    assert_eq!((t.leaf_downlinks, t.leaf_uplinks), (32, 16));
    // The tier ceilings are still those of the fullest split, 42:21: 64·42 = 2,688.
    assert_eq!(ceilings(&t), (2688, 64 * 32 * 42));
    // Non-blocking is unchanged: 32 leaves + 16 spines.
    sized(
        &sw,
        &opts(1, 1.0, 3),
        1024,
        400,
        (2, 32, 16, 0, 1024, 1024, 0),
    );
}

#[test]
fn three_tiers_choose_among_exact_splits_too() {
    // 2,880 GPUs = 360 nodes × 8 rails at 2:1 on QM9700: the fullest split 42:21 needs
    // ⌈360/42⌉ = 9 SU = 72 leaves > 64: three tiers, spines ⌈72·21/32⌉ = 48, core
    // ⌈48·32/64⌉ = 24: 144 switches. 40:20 fills 9 SU exactly (360 nodes): 72 leaves,
    // ⌈72·20/32⌉ = 45 spines, ⌈45·32/64⌉ = 23 core: 140. Every smaller split needs 10 SU or
    // more (80+ leaves; the best of them, 36:18, 80 + 45 + 23 = 148).
    let sw = qm9700();
    let t = sized(
        &sw,
        &opts(1, 2.0, 3),
        2880,
        400,
        (3, 72, 45, 23, 2880, 1440, 1440),
    );
    assert_eq!((t.leaf_downlinks, t.leaf_uplinks), (40, 20));
}

/// `rail_optimized: false` asks for a server's ports on one leaf; `collapsed_rails` packs them
/// rail-major, so `auto` does not build it then (as it does not build `tor_copper` for a
/// rail-optimized request), though it is sized and listed. Asked for by name, it is built.
#[test]
fn auto_builds_collapsed_rails_only_for_rail_optimized_requests() {
    let mut node_major = opts(1, 1.0, 3);
    node_major.rail_optimized = false;
    let t = size_design(
        &cluster(1016, 8, 400),
        &eth_64x800(),
        &node_major,
        Design::CollapsedRails,
    )
    .expect("sized all the same");
    assert_eq!(t.design, Design::CollapsedRails);
    assert!(!DesignChoice::Auto.accepts(&t, false));
    assert!(DesignChoice::Auto.accepts(&t, true));
    assert!(DesignChoice::CollapsedRails.accepts(&t, false));
}

// --------------------------------------------------------------------------------- errors

#[test]
fn tier_ceiling_errors_name_the_limit() {
    let sw = qm9700();
    for (gpus, max_tiers, message) in [
        // 65,537 GPUs → 8,193 nodes → 65,544 endpoints per plane > 64³/4 = 65,536.
        (
            65_537,
            3,
            "65,544 endpoints per plane exceed the three-tier ceiling of 65,536 \
             (k^3/4 with k = 64 ports of 400G on nvidia-qm9700)",
        ),
        // 2,056 GPUs → 257 nodes → 2,056 endpoints > 64·32 = 2,048.
        (
            2056,
            2,
            "2,056 endpoints per plane exceed the two-tier ceiling of 2,048 \
             (k^2/2 with k = 64 ports of 400G on nvidia-qm9700)",
        ),
    ] {
        let err = size(&cluster(gpus, 8, 400), &sw, &opts(1, 1.0, max_tiers)).unwrap_err();
        assert_eq!(err.to_string(), message);
        assert_eq!(err.code().as_str(), "exceeds_tier_ceiling");
    }
    // One SU less fits: 65,536 GPUs = 2,048 SU·leaves = k²/2.
    sized(
        &sw,
        &opts(1, 1.0, 3),
        65_536,
        400,
        (3, 2048, 2048, 1024, 65_536, 65_536, 65_536),
    );
    // At 3:1 the ceiling is k·d = 3,072.
    let err = size(&cluster(3080, 8, 400), &sw, &opts(1, 3.0, 2)).unwrap_err();
    assert!(
        err.to_string()
            .contains("ceiling of 3,072 (k*d with k = 64"),
        "{err}"
    );
}

#[test]
fn leaves_rounded_to_sus_can_exceed_a_tier() {
    // 3 NIC ports per node (R does not divide k): 672 nodes = 21 SU = 63 leaves fit two tiers;
    // 680 nodes = 2,040 endpoints ≤ 2,048 but 22 SU = 66 leaves > k = 64.
    let c = ClusterSpec {
        gpus: 680,
        gpus_per_node: 1,
        nics_per_node: 3,
        nic_speed_gbps: 400,
    };
    let err = size(&c, &qm9700(), &opts(1, 1.0, 2)).unwrap_err();
    assert_eq!(err.code().as_str(), "exceeds_tier_leaf_limit");
    assert!(err.to_string().contains("66 leaves per plane"), "{err}");
    let t = size(&c, &qm9700(), &opts(1, 1.0, 3)).expect("three tiers");
    assert_eq!(t.tiers, 3);
}

#[test]
fn invalid_inputs_are_errors() {
    let sw = qm9700();
    let ok = opts(1, 1.0, 3);
    // 800G links on a 400G switch: unsupported.
    let err = size(&cluster(1024, 8, 800), &sw, &ok).unwrap_err();
    assert_eq!(err.code().as_str(), "unsupported_link_speed");
    assert!(err.to_string().contains("cannot run 800G"), "{err}");
    // 300G links: not a breakout of 800G.
    let mut odd = eth_64x800();
    odd.link_speeds_gbps.push(300);
    let err = size(&cluster(1024, 8, 300), &odd, &ok).unwrap_err();
    assert_eq!(err.code().as_str(), "unsupported_link_speed");
    // 400G NIC over 3 planes.
    let err = size(&cluster(1024, 8, 400), &sw, &opts(3, 1.0, 3)).unwrap_err();
    assert_eq!(err.code().as_str(), "planes_do_not_divide_nic_speed");
    // 400G NIC over 2 planes = 200G links: QM9700 supports NDR200.
    let t = size(&cluster(1024, 8, 400), &sw, &opts(2, 1.0, 3)).expect("200G links");
    assert_eq!((t.link_speed_gbps, t.radix), (200, 128));
    for o in [0.5, f64::NAN, f64::INFINITY, -1.0] {
        let err = size(&cluster(1024, 8, 400), &sw, &opts(1, o, 3)).unwrap_err();
        assert_eq!(err.code().as_str(), "oversubscription_out_of_range");
    }
    // 63:1 still leaves one uplink (d = floor(64·63/64) = 63); a ratio near infinity none.
    let t = size(&cluster(1024, 8, 400), &sw, &opts(1, 63.0, 3)).expect("one uplink");
    assert_eq!((t.leaf_downlinks, t.leaf_uplinks), (63, 1));
    let err = size(&cluster(1024, 8, 400), &sw, &opts(1, 1e15, 3)).unwrap_err();
    assert_eq!(err.code().as_str(), "no_leaf_downlinks_or_uplinks");
    for tiers in [0, 1, 4] {
        let err = size(&cluster(1024, 8, 400), &sw, &opts(1, 1.0, tiers)).unwrap_err();
        assert_eq!(err, SizingError::MaxTiers { value: tiers });
    }
    let zero_cases: [(&str, ClusterSpec); 4] = [
        ("gpus", cluster(0, 8, 400)),
        (
            "gpus_per_node",
            ClusterSpec {
                gpus_per_node: 0,
                ..cluster(8, 8, 400)
            },
        ),
        ("nics_per_node", cluster(8, 0, 400)),
        ("nic_speed_gbps", cluster(8, 8, 0)),
    ];
    for (name, c) in zero_cases {
        assert_eq!(
            size(&c, &sw, &ok).unwrap_err(),
            SizingError::Zero { field: name }
        );
    }
    assert_eq!(
        size(&cluster(8, 8, 400), &sw, &opts(0, 1.0, 3))
            .unwrap_err()
            .field(),
        Some("planes")
    );
    // Not rail-optimized with more NIC ports per node than leaf downlinks.
    let small = SwitchSpec {
        ports: 8,
        ..qm9700()
    };
    let mut o = ok.clone();
    o.rail_optimized = false;
    let err = size(&cluster(64, 8, 400), &small, &o).unwrap_err();
    assert_eq!(err.code().as_str(), "node_exceeds_leaf");
}

#[test]
fn absurd_switches_do_not_panic() {
    let huge = SwitchSpec {
        sku: "huge".into(),
        ports: u32::MAX,
        port_speed_gbps: 800,
        link_speeds_gbps: vec![100],
        ports_per_cage: 1,
    };
    let err = size(&cluster(1_000_000, 8, 100), &huge, &opts(1, 1.0, 3)).unwrap_err();
    assert_eq!(err.code().as_str(), "overflow");
}

// ------------------------------------------------------------------------------- contract

#[test]
fn json_field_names_are_the_public_contract() {
    let t = size(&cluster(4096, 8, 400), &qm9700(), &opts(1, 1.0, 3)).expect("sizes");
    let v = serde_json::to_value(&t).expect("serializes");
    for key in [
        "tiers",
        "planes",
        "leaf_switches",
        "spine_switches",
        "core_switches",
        "switch_sku",
    ] {
        assert!(v.get(key).is_some(), "missing {key}");
    }
    for key in ["node_leaf", "leaf_spine", "spine_core"] {
        assert!(v["links"].get(key).is_some(), "missing links.{key}");
    }
    assert_eq!(v["switch_sku"], "nvidia-qm9700");
}

#[test]
fn helpers() {
    assert_eq!(thousands(0), "0");
    assert_eq!(thousands(999), "999");
    assert_eq!(thousands(65_544), "65,544");
    assert_eq!(thousands(1_000_000), "1,000,000");
    assert_eq!(smallest_divisor_at_least(32, 12), Some(16));
    assert_eq!(smallest_divisor_at_least(72, 16), Some(18));
    assert_eq!(smallest_divisor_at_least(26, 3), Some(13));
    assert_eq!(smallest_divisor_at_least(16, 17), None);
    assert_eq!(leaf_downlinks(64, 1.0), 32);
    assert_eq!(leaf_downlinks(64, 3.0), 48);
    assert_eq!(leaf_downlinks(128, 2.0), 84);
    assert_eq!(leaf_downlinks(144, 1.0), 72);
}

// ----------------------------------------------------------------------------- properties

fn arb_switch() -> impl Strategy<Value = SwitchSpec> {
    prop_oneof![Just(qm9700()), Just(eth_64x800()), Just(xdr_144x800())]
}

/// Oversubscription ratios a k-port leaf realizes exactly: d/u with d + u = k (u dividing k,
/// u ≤ k/2), and n/m for m ≤ 4 up to 8:1 that [`leaf_split`] realises exactly (2:1 on 64
/// ports: 42:21 with one port unused; not 6:5, whose exact splits have fewer downlinks than a
/// non-blocking leaf).
fn exact_ratios(k: u32) -> Vec<f64> {
    let mut out: Vec<f64> = (1..=k / 2)
        .filter(|u| k.is_multiple_of(*u))
        .map(|u| f64::from(k - u) / f64::from(u))
        .collect();
    for m in 1..=4u32 {
        for n in m..=8 * m {
            let o = f64::from(n) / f64::from(m);
            let s = leaf_split(u64::from(k), o);
            if s.exact && !out.iter().any(|x| (x - o).abs() < 1e-9) {
                out.push(o);
            }
        }
    }
    out
}

/// [`arb_case`] at exact and at inexact ratios, half each.
fn arb_any_case() -> impl Strategy<Value = (ClusterSpec, SwitchSpec, TopologyOptions)> {
    prop_oneof![arb_case(false), arb_case(true)]
}

/// Random valid clusters: NIC speed = a link speed of the switch × planes. With `exact`, the
/// oversubscription is one of [`exact_ratios`] (where the leaf split is chosen per cluster);
/// otherwise 1:1 or any ratio in [1, 20] (almost never exact: one split each).
fn arb_case(exact: bool) -> impl Strategy<Value = (ClusterSpec, SwitchSpec, TopologyOptions)> {
    (
        arb_switch(),
        1u32..=1_000_000,
        1u32..=72,
        1u32..=16,
        prop_oneof![Just(1u32), Just(2), Just(4), Just(8)],
        any::<bool>(),
        2u8..=3,
    )
        .prop_flat_map(|(sw, gpus, gpn, nics, planes, rail, tiers)| {
            let speeds = sw.link_speeds_gbps.clone();
            (
                Just((sw, gpus, gpn, nics, planes, rail, tiers)),
                proptest::sample::select(speeds),
            )
        })
        .prop_flat_map(move |(case, link)| {
            let k = case.0.ports * (case.0.port_speed_gbps / link);
            let o = if exact {
                proptest::sample::select(exact_ratios(k)).boxed()
            } else {
                prop_oneof![Just(1.0f64), 1.0f64..20.0].boxed()
            };
            (Just((case, link)), o)
        })
        .prop_map(|(((sw, gpus, gpn, nics, planes, rail, tiers), link), o)| {
            let c = ClusterSpec {
                gpus,
                gpus_per_node: gpn,
                nics_per_node: nics,
                nic_speed_gbps: link * planes,
            };
            let o = TopologyOptions {
                planes,
                oversubscription: o,
                rail_optimized: rail,
                max_tiers: tiers,
                nodes_per_rack: None,
            };
            (c, sw, o)
        })
}

fn switches(t: &Topology) -> u64 {
    t.leaf_switches + t.spine_switches + t.core_switches
}

/// Every NIC port has a link and a leaf port, no switch is overfull, the ratio is never above
/// the asked one and the fabric stays within its ceiling.
fn check_ports_and_ceilings(
    c: &ClusterSpec,
    sw: &SwitchSpec,
    o: &TopologyOptions,
) -> Result<(), TestCaseError> {
    let Ok(t) = size(c, sw, o) else { return Ok(()) };
    let (k, p) = (u64::from(t.radix), u64::from(t.planes));
    let nodes = u64::from(c.gpus.div_ceil(c.gpus_per_node));
    prop_assert_eq!(u64::from(t.nodes), nodes);
    prop_assert!(nodes * u64::from(c.gpus_per_node) >= u64::from(c.gpus));
    // Every NIC port in every plane has a link and a leaf port.
    let ends = nodes * u64::from(c.nics_per_node) * p;
    prop_assert_eq!(t.links.node_leaf, ends);
    prop_assert_eq!(t.ports.nic_ports, ends);
    prop_assert!(t.leaf_switches * u64::from(t.leaf_downlinks) >= ends);
    // Leaves: d + u ≤ k (an exact ratio may leave ports unused), and never more
    // oversubscribed than asked.
    prop_assert!(u64::from(t.leaf_downlinks + t.leaf_uplinks) <= k);
    prop_assert!(t.oversubscription_realised <= o.oversubscription + 1e-9);
    prop_assert_eq!(
        t.links.leaf_spine,
        t.leaf_switches * u64::from(t.leaf_uplinks)
    );
    // Spines and core: links spread evenly, so the fullest switch has ceil(total/count).
    prop_assert!(t.spine_switches > 0);
    prop_assert!(t.ports.spine_ports_used.div_ceil(t.spine_switches) <= k);
    if t.tiers == 2 {
        // Each leaf has the same number of links to every spine, except where that would
        // need more spines than 1:1 (then links spread as evenly as they go).
        let per_plane = t.spine_switches / p;
        if u64::from(t.leaf_uplinks) % per_plane != 0 {
            prop_assert!(o.oversubscription > 1.0);
            prop_assert!(
                per_plane <= (t.leaf_switches / p).div_ceil(2).next_power_of_two().max(1) * 2
            );
        }
        prop_assert_eq!(t.core_switches, 0);
        prop_assert_eq!(t.links.spine_core, 0);
    } else {
        prop_assert!(t.links.leaf_spine.div_ceil(t.spine_switches) <= k / 2);
        prop_assert!(t.core_switches > 0);
        prop_assert!(t.ports.core_ports_used.div_ceil(t.core_switches) <= k);
        prop_assert!(t.leaf_switches / p <= k * (k / 2));
    }
    // Port and cage totals are consistent.
    let used = t.ports.leaf_ports_used + t.ports.spine_ports_used + t.ports.core_ports_used;
    prop_assert_eq!(
        used,
        2 * (t.links.node_leaf + t.links.leaf_spine + t.links.spine_core) - t.links.node_leaf
    );
    prop_assert!(used <= t.ports.switch_ports_total);
    prop_assert_eq!(t.ports.switch_ports_total, switches(&t) * k);
    prop_assert!(t.ports.switch_cages_used <= t.ports.switch_cages_total);
    let ceiling = if t.tiers == 2 {
        t.two_tier_max_endpoints_per_plane
    } else {
        t.three_tier_max_endpoints_per_plane
    };
    prop_assert!(t.endpoints_per_plane <= ceiling);
    Ok(())
}

/// An oversubscribed fabric never has more switches, spines, leaves or tiers than the
/// non-blocking one, and fits whenever that one does.
fn check_no_dearer_than_non_blocking(
    c: &ClusterSpec,
    sw: &SwitchSpec,
    o: &TopologyOptions,
) -> Result<(), TestCaseError> {
    let blocking = TopologyOptions {
        oversubscription: 1.0,
        ..o.clone()
    };
    if let Ok(nb) = size(c, sw, &blocking) {
        let over = size(c, sw, o);
        prop_assert!(over.is_ok(), "fits non-blocking, so fits oversubscribed");
        if let Ok(ov) = over {
            prop_assert!(switches(&ov) <= switches(&nb));
            prop_assert!(
                ov.spine_switches <= nb.spine_switches,
                "a cheaper ratio never adds spines"
            );
            prop_assert!(ov.leaf_switches <= nb.leaf_switches);
            prop_assert!(ov.tiers <= nb.tiers);
        }
    }
    Ok(())
}

/// Every design that fits connects every NIC port, overfills no switch and stays within its
/// tiers; designs other than the SU Clos never need more switches than it.
fn check_every_design(
    c: &ClusterSpec,
    sw: &SwitchSpec,
    o: &TopologyOptions,
) -> Result<(), TestCaseError> {
    let su = size(c, sw, o);
    for (d, t) in alternatives(c, sw, o) {
        let Ok(t) = t else { continue };
        prop_assert_eq!(t.design, d);
        let k = u64::from(t.radix);
        prop_assert_eq!(
            t.links.node_leaf,
            t.endpoints_per_plane * u64::from(t.planes)
        );
        prop_assert!(t.ports.leaf_ports_used <= t.leaf_switches * k);
        prop_assert!(t.ports.switch_cages_used <= t.ports.switch_cages_total);
        prop_assert!(t.tiers <= o.max_tiers);
        if let (Ok(su), Design::SingleSwitch | Design::CollapsedRails) = (&su, d) {
            prop_assert!(
                switches(&t) <= switches(su),
                "{d:?} {} > su {}",
                switches(&t),
                switches(su)
            );
        }
    }
    Ok(())
}

/// Switches per plane (and tiers) of the SU Clos with leaf split d : u, from the rules: SU of d
/// nodes and R leaves (⌊d/R⌋ nodes and one leaf when not rail-optimized); two tiers up to k
/// leaves with the two-tier spine rule; three tiers up to k·⌊k/2⌋ leaves with ⌈L·u/⌊k/2⌋⌉
/// spines and ⌈S·⌊k/2⌋/k⌉ core. `None` when it does not fit.
fn su_switches_by_hand(
    c: &ClusterSpec,
    o: &TopologyOptions,
    k: u64,
    d: u64,
    u: u64,
) -> Option<(u8, u64)> {
    let nodes = u64::from(c.gpus.div_ceil(c.gpus_per_node));
    let r = u64::from(c.nics_per_node);
    let (su, per_su) = if o.rail_optimized { (d, r) } else { (d / r, 1) };
    if su == 0 {
        return None;
    }
    let leaves = nodes.div_ceil(su) * per_su;
    let half = k / 2;
    if leaves <= k {
        Some((2, leaves + two_tier_spines(leaves, u, k)?))
    } else if o.max_tiers == 3 && leaves <= k * half {
        let spines = (leaves * u).div_ceil(half);
        Some((3, leaves + spines + (spines * half).div_ceil(k)))
    } else {
        None
    }
}

/// Switches per plane of `collapsed_rails` with leaf split d : u, from the rules: ⌈N·R/d⌉
/// leaves (2 to k) and the two-tier spine rule; a split that makes whole SUs is the SU Clos
/// (N/d·R leaves, 1 to k).
fn collapsed_switches_by_hand(c: &ClusterSpec, k: u64, d: u64, u: u64) -> Option<u64> {
    let nodes = u64::from(c.gpus.div_ceil(c.gpus_per_node));
    let endpoints = nodes * u64::from(c.nics_per_node);
    let leaves = endpoints.div_ceil(d);
    let least = if nodes.is_multiple_of(d) { 1 } else { 2 };
    if leaves < least || leaves > k {
        return None;
    }
    Some(leaves + two_tier_spines(leaves, u, k)?)
}

/// Every exact split d = o·u (d ≥ 1, d + u ≤ k) of an oversubscribed ratio, by brute force.
fn every_exact_split(k: u64, o: f64) -> Vec<(u64, u64)> {
    (1..=k)
        .filter_map(|u| {
            let d = o * u as f64;
            let whole = (d - d.round()).abs() < 1e-6 && d >= 1.0;
            whole.then_some((d.round() as u64, u))
        })
        .filter(|&(d, u)| d + u <= k)
        .collect()
}

fn check_fewest_switches_of_any_exact_split(
    c: &ClusterSpec,
    sw: &SwitchSpec,
    o: &TopologyOptions,
) -> Result<(), TestCaseError> {
    // 1:1 keeps the k/2 : k/2 leaf of [RA]; the choice is for oversubscribed fabrics.
    if o.oversubscription <= 1.0 {
        return Ok(());
    }
    let Ok(t) = size(c, sw, o) else {
        return Ok(());
    };
    let (k, p) = (u64::from(t.radix), u64::from(t.planes));
    prop_assert!(leaf_split(k, o.oversubscription).exact);
    prop_assert_eq!(t.oversubscription_realised, o.oversubscription);
    // The rule weighs the splits that need no more leaves than the SU Clos at 1:1 (d = ⌊k/2⌋),
    // in any tiers; collapsed rails uses the same bound.
    let nodes = u64::from(c.gpus.div_ceil(c.gpus_per_node));
    let r = u64::from(c.nics_per_node);
    let su_leaves = |d: u64| match (o.rail_optimized, d / r) {
        (true, _) => nodes.div_ceil(d) * r,
        (false, 0) => u64::MAX,
        (false, per_leaf) => nodes.div_ceil(per_leaf),
    };
    let splits = every_exact_split(k, o.oversubscription);
    for &(d, u) in &splits {
        if su_leaves(d) > su_leaves(k / 2) {
            continue;
        }
        if let Some((_, n)) = su_switches_by_hand(c, o, k, d, u) {
            prop_assert!(
                switches(&t) <= n * p,
                "su_clos {} > {} with {d}:{u}",
                switches(&t),
                n * p
            );
        }
    }
    if let Ok(cr) = size_design(c, sw, o, Design::CollapsedRails) {
        let endpoints = nodes * r;
        for &(d, u) in &splits {
            if endpoints.div_ceil(d) > su_leaves(k / 2) {
                continue;
            }
            if let Some(n) = collapsed_switches_by_hand(c, k, d, u) {
                prop_assert!(
                    switches(&cr) <= n * p,
                    "collapsed {} > {} with {d}:{u}",
                    switches(&cr),
                    n * p
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Per tier, at inexact ratios and 1:1 (one leaf split each). At an exact oversubscribed
    /// ratio a bigger cluster can build another split, trading leaves for spines: see
    /// `switches_never_decrease_as_gpus_grow_at_exact_ratios`.
    #[test]
    fn switch_counts_never_decrease_as_gpus_grow((c, sw, o) in arb_case(false), extra in 1u32..100_000) {
        let bigger = ClusterSpec { gpus: c.gpus.saturating_add(extra), ..c.clone() };
        if let (Ok(a), Ok(b)) = (size(&c, &sw, &o), size(&bigger, &sw, &o)) {
            prop_assert!(b.leaf_switches >= a.leaf_switches);
            prop_assert!(b.spine_switches >= a.spine_switches);
            prop_assert!(b.core_switches >= a.core_switches);
            prop_assert!(b.tiers >= a.tiers);
        }
        // A cluster that does not fit never makes a bigger one fit.
        if size(&c, &sw, &o).is_err() {
            prop_assert!(size(&bigger, &sw, &o).is_err());
        }
    }

    /// At exact ratios the split is chosen per cluster (the fewest switches), so leaves and
    /// spines can trade as the cluster grows (at 2:1 on QM9700, 1,008 GPUs build 24 leaves +
    /// 16 spines and 1,016 GPUs 32 leaves + 8 spines); the total and the tiers never fall.
    #[test]
    fn switches_never_decrease_as_gpus_grow_at_exact_ratios((c, sw, o) in arb_case(true), extra in 1u32..100_000) {
        let bigger = ClusterSpec { gpus: c.gpus.saturating_add(extra), ..c.clone() };
        if let (Ok(a), Ok(b)) = (size(&c, &sw, &o), size(&bigger, &sw, &o)) {
            prop_assert!(switches(&b) >= switches(&a), "{} < {}", switches(&b), switches(&a));
            prop_assert!(b.tiers >= a.tiers);
        }
        if size(&c, &sw, &o).is_err() {
            prop_assert!(size(&bigger, &sw, &o).is_err());
        }
    }

    /// At an exact oversubscribed ratio, the SU Clos and (when it fits) collapsed rails need no
    /// more switches than any exact split d = o·u, d + u ≤ k that needs no more leaves than 1:1
    /// would give, in any tiers, each sized here by brute force from the rules (leaves from the
    /// SU, spines by the two-tier rule or the three-tier link count).
    #[test]
    fn exact_ratios_build_the_split_with_the_fewest_switches((c, sw, o) in arb_case(true)) {
        check_fewest_switches_of_any_exact_split(&c, &sw, &o)?;
    }
}

// The checks that hold at any ratio: 1,024 cases, half at exact ratios (as many of each as
// the per-kind tests above draw).
proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn every_endpoint_has_a_port_and_no_switch_is_overfull((c, sw, o) in arb_any_case()) {
        check_ports_and_ceilings(&c, &sw, &o)?;
    }

    #[test]
    fn oversubscribed_never_needs_more_switches((c, sw, o) in arb_any_case()) {
        check_no_dearer_than_non_blocking(&c, &sw, &o)?;
    }

    #[test]
    fn every_design_is_consistent_and_no_dearer_in_switches_than_su((c, sw, o) in arb_any_case()) {
        check_every_design(&c, &sw, &o)?;
    }
}

/// The reasons a design does not fit are kept as figures and written when shown; each must read
/// as the sentence it replaced, word for word.
#[test]
fn why_a_design_does_not_fit_reads_as_before() {
    use crate::sizing::Why;
    let sku = crate::catalog::Text::from("nvidia-qm9700");
    let cases = [
        (
            Why::PortsExceedOneSwitch {
                endpoints: 130,
                k: 64,
                sku: sku.clone(),
                link: 400,
            },
            "130 NIC ports per plane exceed the 64 ports of one nvidia-qm9700 at 400G",
        ),
        (
            Why::NodesExceedRailSwitch {
                nodes: 70,
                k: 64,
                sku: sku.clone(),
                link: 200,
            },
            "70 nodes exceed the 64 ports of one rail switch (nvidia-qm9700 at 200G)",
        ),
        (
            Why::WholeScalableUnits { nodes: 64, d: 32 },
            "64 nodes are whole scalable units of 32; use su_clos",
        ),
        (
            Why::DualSwitchPorts {
                per_switch: 40,
                isl: 30,
                k: 64,
                sku,
                link: 800,
            },
            "40 node ports and 30 inter-switch links per switch exceed the 64 ports of one nvidia-qm9700 at 800G",
        ),
        (
            Why::ServerExceedsLeaf { r: 8, d: 6, o: 2.5 },
            "a server's 8 NIC ports exceed a leaf's 6 downlinks at 2.5:1",
        ),
        (
            Why::ServerExceedsLeaf { r: 8, d: 6, o: 1.0 },
            "a server's 8 NIC ports exceed a leaf's 6 downlinks at 1:1",
        ),
        (
            Why::OneLeaf {
                endpoints: 16,
                downlinks: 32,
            },
            "all 16 NIC ports fit on one leaf's 32 downlinks; use single_switch or dual_switch",
        ),
        (
            Why::TwoTierLeaves { count: 65, k: 64 },
            "65 leaves exceed the two-tier limit of 64 leaves per plane; use su_clos",
        ),
        (Why::from("any sentence"), "any sentence"),
    ];
    for (why, text) in cases {
        assert_eq!(why.to_string(), text);
    }
}

/// A plane split is suggested only when the caller says the NIC's cage can carry it: 100,000
/// H100 on QM9700 fit with two planes of 200G, so the suggestion stands when the split is
/// carried and is left out when it is not; the other suggestions are unchanged.
#[test]
fn a_plane_split_is_suggested_only_when_the_nic_can_carry_it() {
    use crate::sizing::feasibility::suggestions;
    let c = cluster(100_000, 8, 400);
    let o = opts(1, 1.0, 3);
    let carried = suggestions(&c, &qm9700(), &o, &[], &|_| true);
    let not = suggestions(&c, &qm9700(), &o, &[], &|_| false);
    assert!(
        carried.iter().any(|s| s.contains("topology.planes = 2")),
        "{carried:?}"
    );
    assert!(
        !not.iter().any(|s| s.contains("topology.planes")),
        "{not:?}"
    );
    assert_eq!(carried[1..], not[..]);
}

/// A whole scalable unit's leaf uses its node links and uplinks, not every cage: 1,536 H100
/// on QM9700 at 8:1 is 48:6 leaves (54 of 64 ports, 27 twin-port cages each) — 32 leaves ×
/// 27 + 3 spines × 32 = 960 cages, where counting a whole SU's leaves at all 32 cages said
/// 1,080 (audit 14 F3).
#[test]
fn a_whole_sus_leaf_counts_the_cages_it_uses() {
    let t = size(&cluster(1536, 8, 400), &qm9700(), &opts(1, 8.0, 3)).expect("sizes");
    assert_eq!(
        (
            t.leaf_downlinks,
            t.leaf_uplinks,
            t.leaf_switches,
            t.spine_switches
        ),
        (48, 6, 32, 3)
    );
    let leaf_cages = t.leaf_switches * (48 + 6_u64).div_ceil(2);
    let spine_cages = t.spine_switches * (t.links.leaf_spine / t.spine_switches).div_ceil(2);
    assert_eq!(leaf_cages + spine_cages, 960);
    assert_eq!(t.ports.switch_cages_used, 960);
}
