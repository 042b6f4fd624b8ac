//! Hand-worked plan, properties, overflow and break-even tests for the cost model.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rust_decimal::Decimal;

use super::*;
use crate::catalog::Label;
use crate::fabric::Fabric;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

/// pricing.md defaults (spares: DEFAULT_SPARES_RATE), UFM priced at a test value of $100.
fn econ() -> Economics {
    Economics {
        years: 3,
        discount_rate: d("0.08"),
        electricity_usd_per_kwh: d("0.085"),
        pue: d("1.25"),
        support_rate: d("0.12"),
        network_engineer_usd_per_year: d("185000"),
        ib_specialist_usd_per_year: d("250000"),
        gpus_per_network_fte: d("256"),
        gpus_per_ib_specialist: d("1024"),
        ufm_usd_per_endpoint_per_year: Some(d("100")),
        ethernet_nos_usd_per_switch_per_year: d("500"),
        spares_rate: DEFAULT_SPARES_RATE,
        gpu_hour_usd: d("2.50"),
        busy_fraction: d("0.8"),
        depreciation_years: 5,
    }
}

fn line(sku: &str, vendor: &str, category: Category, qty: u64, price: &str, w: &str) -> BomLine {
    BomLine {
        sku: sku.into(),
        vendor: vendor.into(),
        category,
        description: format!("{sku} test part").into(),
        quantity: qty,
        list_unit_price_usd: d(price),
        power_w: d(w),
    }
}

/// 16 GPUs, one leaf.
fn hand_lines() -> Vec<BomLine> {
    vec![
        line("cx7", "nvidia", Category::Nic, 16, "1900", "25"),
        line("qm9700", "nvidia", Category::Switch, 1, "50000", "750"),
        line("osfp400-sr4", "fs", Category::Optic, 16, "770", "8"),
        line("osfp800-2xsr4", "fs", Category::Optic, 8, "900", "16"),
        line("mpo12", "fs", Category::Cable, 16, "90", "0"),
        line("lic", "nvidia", Category::License, 1, "1000", "0"),
    ]
}

fn hand_adj() -> PriceAdjustments {
    PriceAdjustments {
        overrides: BTreeMap::from([("mpo12".to_string(), d("85"))]),
        vendor_discounts: BTreeMap::from([
            ("nvidia".to_string(), d("0.10")),
            ("fs".to_string(), d("0.05")),
        ]),
        category_discounts: BTreeMap::from([(Category::Optic, d("0.20"))]),
    }
}

fn hand_input(fabric: Fabric, idle: f64) -> FabricCostInput<'static> {
    FabricCostInput {
        fabric,
        gpus: 16,
        endpoints: 16,
        switches: 1,
        lines: hand_lines().into(),
        gpu_idle_fraction: idle,
        failure_gpu_hours_per_year: 0.0,
        traffic: Vec::new(),
    }
}

#[test]
fn hand_worked_infiniband_plan() {
    let c = fabric_cost(&hand_input(Fabric::Infiniband, 0.05), &hand_adj(), &econ()).unwrap();

    // Unit prices: vendor and category discounts compound; the override is net.
    //   cx7     1,900 × 0.90          = 1,710.00   × 16 = 27,360.00
    //   qm9700 50,000 × 0.90          = 45,000.00  ×  1 = 45,000.00
    //   sr4       770 × 0.95 × 0.80   = 585.20     × 16 =  9,363.20
    //   2xsr4     900 × 0.95 × 0.80   = 684.00     ×  8 =  5,472.00
    //   mpo12  override 85 (no fs 5 %) = 85.00     × 16 =  1,360.00
    //   lic     1,000 × 0.90          = 900.00     ×  1 =    900.00
    // One column of the priced lines, as text.
    let column = |f: fn(&LinePrice) -> Decimal| -> Vec<String> {
        c.bom.iter().map(|l| f(&l.price).to_string()).collect()
    };
    let units = column(|p| p.unit_price_usd);
    assert_eq!(
        units,
        ["1710.00", "45000.00", "585.20", "684.00", "85.00", "900.00"]
    );
    let ext = column(|p| p.extended_price_usd);
    assert_eq!(
        ext,
        [
            "27360.00", "45000.00", "9363.20", "5472.00", "1360.00", "900.00"
        ]
    );
    assert_eq!(c.bom[2].price.discount_fraction, d("0.24"));
    assert!(c.bom[4].price.price_overridden);
    assert_eq!(c.bom[4].price.discount_fraction, Decimal::ZERO);

    // Capex: optics 9,363.20 + 5,472.00 = 14,835.20; hardware = 27,360 + 45,000 + 14,835.20
    // + 1,360 = 88,555.20; total = 88,555.20 + 900 = 89,455.20.
    assert_eq!(c.capex.nics_usd, d("27360.00"));
    assert_eq!(c.capex.switches_usd, d("45000.00"));
    assert_eq!(c.capex.optics_usd, d("14835.20"));
    assert_eq!(c.capex.cables_usd, d("1360.00"));
    assert_eq!(c.capex.licenses_usd, d("900.00"));
    assert_eq!(c.capex.hardware_usd, d("88555.20"));
    assert_eq!(c.capex.total_usd, d("89455.20"));

    // Opex per year:
    //   IT power = 16×25 + 750 + 16×8 + 8×16 = 1,406 W
    //   power    = 1.406 kW × 8,760 h × 1.25 × 0.085 = 1,308.6345 → 1,308.63
    //   support  = 0.12 × 88,555.20 = 10,626.624 → 10,626.62
    //   staff    = 16/256 × 185,000 + 16/1024 × 250,000 = 11,562.50 + 3,906.25 = 15,468.75
    //   licences = UFM 100 × 16 endpoints = 1,600.00
    //   spares   = 0.02 × 88,555.20 = 1,771.104 → 1,771.10
    //   total    = 1,308.63 + 10,626.62 + 15,468.75 + 1,600.00 + 1,771.10 = 30,775.10
    let o = &c.opex_per_year;
    assert_eq!(o.it_power_w, d("1406"));
    assert_eq!(o.power_usd, d("1308.63"));
    assert_eq!(o.support_usd, d("10626.62"));
    assert_eq!(o.staff_usd, d("15468.75"));
    assert_eq!(o.licenses_usd, d("1600.00"));
    assert_eq!(o.spares_usd, d("1771.10"));
    assert_eq!(o.total_usd, d("30775.10"));
    assert_eq!(o.staff_fte, d("0.0781")); // 0.0625 + 0.015625 = 0.078125

    // TCO, r = 8 %, capex at t = 0, opex at the end of each year:
    //   y1: cost 89,455.20 + 30,775.10 = 120,230.30; disc 89,455.20 + 30,775.10/1.08
    //       (= 28,495.4630 → 28,495.46) = 117,950.66
    //   y2: cost 30,775.10, cum 151,005.40; disc 30,775.10/1.1664 = 26,384.6879 → 26,384.69,
    //       cum 144,335.35
    //   y3: cost 30,775.10, cum 181,780.50; disc 30,775.10/1.259712 = 24,430.2666 → 24,430.27,
    //       cum 168,765.62
    let t = &c.tco;
    assert_eq!(t.years, 3);
    let rows: Vec<[String; 6]> = t
        .by_year
        .iter()
        .map(|r| {
            [
                r.capex_usd.to_string(),
                r.opex_usd.to_string(),
                r.cost_usd.to_string(),
                r.cumulative_usd.to_string(),
                r.discounted_usd.to_string(),
                r.cumulative_discounted_usd.to_string(),
            ]
        })
        .collect();
    assert_eq!(
        rows,
        [
            [
                "89455.20",
                "30775.10",
                "120230.30",
                "120230.30",
                "117950.66",
                "117950.66"
            ],
            [
                "0.00",
                "30775.10",
                "30775.10",
                "151005.40",
                "26384.69",
                "144335.35"
            ],
            [
                "0.00",
                "30775.10",
                "30775.10",
                "181780.50",
                "24430.27",
                "168765.62"
            ],
        ]
        .map(|r| r.map(String::from))
    );
    assert_eq!(t.total_usd, d("181780.50"));
    assert_eq!(t.npv_usd, d("168765.62"));

    // GPU idle: 0.05 × 16 × 8,760 × 0.8 = 5,606.40 h/yr × $2.50 = 14,016.00/yr × 3 = 42,048.00.
    assert_eq!(c.gpu_idle.idle_fraction.to_string(), "0.050000");
    assert_eq!(c.gpu_idle.gpu_hours_per_year.to_string(), "5606.40");
    assert_eq!(c.gpu_idle.cost_per_year_usd.to_string(), "14016.00");
    assert_eq!(c.gpu_idle.cost_total_usd.to_string(), "42048.00");

    // Total 181,780.50 + 42,048.00 = 223,828.50; per useful GPU-hour:
    // 223,828.50 / (16 × 8,760 × 0.8 × 3 × 0.95 = 319,564.8) = 0.700416… → 0.7004.
    assert_eq!(c.total_cost_usd.to_string(), "223828.50");
    assert_eq!(c.cost_per_useful_gpu_hour_usd, Some(d("0.7004")));
    assert!(c.warnings.is_empty());
    // Hours lost to failures are not useful either: 1,000 h/yr × $2.50 adds 7,500.00 over 3
    // years to the total, and the useful hours are (106,521.6 − 1,000) × 3 = 316,564.8:
    // 231,328.50 / 316,564.8 = 0.730748… → 0.7307 (it divided by 319,564.8: 0.7239).
    let failing = FabricCostInput {
        failure_gpu_hours_per_year: 1000.0,
        ..hand_input(Fabric::Infiniband, 0.05)
    };
    let f = fabric_cost(&failing, &hand_adj(), &econ()).unwrap();
    assert_eq!(f.total_cost_usd.to_string(), "231328.50");
    assert_eq!(f.cost_per_useful_gpu_hour_usd, Some(d("0.7307")));

    // Money serializes as JSON strings.
    let json = serde_json::to_value(&c).unwrap();
    assert_eq!(json["capex"]["total_usd"], "89455.20");
    assert_eq!(
        json["tco"]["by_year"][2]["cumulative_discounted_usd"],
        "168765.62"
    );
    assert_eq!(json["bom"][0]["category"], "nic");
}

#[test]
fn hand_worked_roce_opex_uses_nos_and_no_ib_specialist() {
    let c = fabric_cost(&hand_input(Fabric::Roce, 0.08), &hand_adj(), &econ()).unwrap();
    // staff = 16/256 × 185,000 = 11,562.50; licences = NOS 500 × 1 switch = 500.00
    // total = 1,308.63 + 10,626.62 + 11,562.50 + 500.00 + 1,771.10 = 25,768.85
    assert_eq!(c.opex_per_year.staff_usd, d("11562.50"));
    assert_eq!(c.opex_per_year.licenses_usd, d("500.00"));
    assert_eq!(c.opex_per_year.total_usd, d("25768.85"));
    // TCO = 89,455.20 + 3 × 25,768.85 = 166,761.75
    assert_eq!(c.tco.total_usd, d("166761.75"));
    // idle 0.08 × 16 × 8,760 × 0.8 = 8,970.24 h × 2.50 = 22,425.60/yr × 3 = 67,276.80
    assert_eq!(c.gpu_idle.cost_total_usd, d("67276.80"));
    assert_eq!(c.total_cost_usd, d("234038.55"));
}

#[test]
fn ufm_without_price_warns_and_is_not_silently_zero_priced() {
    let mut e = econ();
    e.ufm_usd_per_endpoint_per_year = None;
    let c = fabric_cost(&hand_input(Fabric::Infiniband, 0.05), &hand_adj(), &e).unwrap();
    assert_eq!(c.opex_per_year.licenses_usd, d("0.00"));
    assert_eq!(c.warnings.len(), 1);
    assert!(c.warnings[0].contains("quote required"));
    assert!(c.warnings[0].contains("economics.ufm_usd_per_endpoint_per_year"));
    // Ethernet never needs UFM.
    let r = fabric_cost(&hand_input(Fabric::Roce, 0.05), &hand_adj(), &e).unwrap();
    assert!(r.warnings.is_empty());
}

/// Two hand-worked fabrics (16 GPUs), each at its idle fraction, priced under `e` and compared.
fn hand_compare(a: (Fabric, f64), b: (Fabric, f64), e: &Economics) -> Comparison {
    let cost_a = fabric_cost(&hand_input(a.0, a.1), &hand_adj(), e).unwrap();
    let cost_b = fabric_cost(&hand_input(b.0, b.1), &hand_adj(), e).unwrap();
    compare(&[(a.0, &cost_a), (b.0, &cost_b)], e, 16)
        .unwrap()
        .unwrap()
}

#[test]
fn hand_worked_comparison_and_break_even() {
    let cmp = hand_compare((Fabric::Infiniband, 0.05), (Fabric::Roce, 0.08), &econ());
    assert_eq!(cmp.cheapest_fabric, Fabric::Infiniband);
    // RoCE − IB: capex 0; opex 25,768.85 − 30,775.10 = −5,006.25; TCO −15,018.75;
    // idle 67,276.80 − 42,048.00 = 25,228.80; total 10,210.05.
    let r = &cmp.deltas[1];
    assert_eq!(r.fabric, Fabric::Roce);
    assert_eq!(r.capex_usd, d("0.00"));
    assert_eq!(r.opex_per_year_usd, d("-5006.25"));
    assert_eq!(r.tco_usd, d("-15018.75"));
    assert_eq!(r.gpu_idle_usd, d("25228.80"));
    assert_eq!(r.total_usd, d("10210.05"));
    assert_eq!(cmp.deltas[0].total_usd, d("0.00"));
    // K = 16 × 8,760 × 0.8 × 3 = 336,384 busy GPU-hours.
    // v* = (166,761.75 − 181,780.50) / ((0.05 − 0.08) × 336,384) = 1.488254… → 1.4883
    // gap* = (181,780.50 − 166,761.75) / (2.50 × 336,384) = 0.017859…
    let be = &cmp.break_even;
    assert_eq!(be.runner_up_fabric, Fabric::Roce);
    assert_eq!(be.gpu_hour_usd, Some(d("1.4883")));
    assert_eq!(be.idle_fraction_gap, d("0.030000"));
    assert_eq!(be.break_even_idle_fraction_gap, Some(d("0.017859")));
    assert_eq!(
        cmp.recommendation.to_string(),
        "Choose InfiniBand: the lowest total cost over 3 years ($224K of network TCO and idle \
         GPU time), $10K less than RoCE (ECMP)."
    );
    assert_eq!(
        cmp.reasons[0].to_string(),
        "InfiniBand costs the same up front as RoCE (ECMP) and saves $25K of GPU time over 3 years."
    );
    assert_eq!(
        cmp.reasons[1].to_string(),
        "InfiniBand costs $5K more per year to run than RoCE (ECMP) (power, support, staff, \
         licences, spares)."
    );
    assert!(
        cmp.reasons
            .last()
            .unwrap()
            .to_string()
            .starts_with("Below $1.49 per GPU-hour (now $2.50)")
    );
    let json = serde_json::to_value(&cmp).unwrap();
    assert_eq!(json["cheapest_fabric"], "infiniband");
    assert_eq!(json["break_even"]["gpu_hour_usd"], "1.4883");

    // Across the break-even the answer flips.
    for (v, want) in [("1.47", Fabric::Roce), ("1.50", Fabric::Infiniband)] {
        let mut e2 = econ();
        e2.gpu_hour_usd = d(v);
        let c = hand_compare((Fabric::Infiniband, 0.05), (Fabric::Roce, 0.08), &e2);
        assert_eq!(c.cheapest_fabric, want, "at ${v}/GPU-hour");
        // The break-even value itself does not depend on v.
        assert_eq!(c.break_even.gpu_hour_usd, Some(d("1.4883")));
    }
}

#[test]
fn compare_needs_two_distinct_fabrics() {
    let e = econ();
    let ib = fabric_cost(&hand_input(Fabric::Infiniband, 0.05), &hand_adj(), &e).unwrap();
    assert_eq!(compare(&[(Fabric::Infiniband, &ib)], &e, 16).unwrap(), None);
    assert_eq!(compare(&[], &e, 16).unwrap(), None);
    let err = compare(
        &[(Fabric::Infiniband, &ib), (Fabric::Infiniband, &ib)],
        &e,
        16,
    );
    assert_eq!(err.unwrap_err().input(), "fabrics");
}

#[test]
fn near_equal_totals_are_called_a_tie() {
    let c = hand_compare(
        (Fabric::Roce, 0.05),
        (Fabric::RoceAdaptive, 0.0501),
        &econ(),
    );
    assert_eq!(c.cheapest_fabric, Fabric::Roce);
    assert!(
        c.recommendation
            .to_string()
            .contains("within 1.0% of each other"),
        "{}",
        c.recommendation
    );
}

#[test]
fn owned_h100_gpu_hour_matches_pricing_md() {
    // (30,000 + 3,750) / (5 × 8,760) = 0.770548; 1.275 kW × 1.25 × 0.085 = 0.135469;
    // sum 0.906017 → 0.9060 ≈ pricing.md's $0.91.
    let v = owned_gpu_hour_usd(d("30000"), d("3750"), 5, d("1275"), d("1.25"), d("0.085"));
    assert_eq!(v, Ok(d("0.9060")));
    assert_eq!(
        owned_gpu_hour_usd(d("1"), d("0"), 0, d("0"), d("1"), d("0"))
            .unwrap_err()
            .input(),
        "depreciation_years"
    );
    assert_eq!(
        owned_gpu_hour_usd(Decimal::MAX, Decimal::MAX, 5, d("0"), d("1"), d("0")),
        Err(CostError::Overflow {
            input: "purchase_usd"
        })
    );
}

#[test]
fn invalid_inputs_name_the_field() {
    let adj = hand_adj();
    let idle = |x: f64| fabric_cost(&hand_input(Fabric::Roce, x), &adj, &econ());
    for x in [f64::NAN, f64::INFINITY, -0.1, 1.5] {
        assert_eq!(idle(x).unwrap_err().input(), "gpu_idle_fraction");
    }
    let mut e = econ();
    e.years = 0;
    let err = fabric_cost(&hand_input(Fabric::Roce, 0.1), &adj, &e).unwrap_err();
    assert_eq!(err.pointer(), "/economics/years");
    let mut e = econ();
    e.gpus_per_network_fte = Decimal::ZERO;
    let err = fabric_cost(&hand_input(Fabric::Roce, 0.1), &adj, &e).unwrap_err();
    assert_eq!(err.input(), "economics.gpus_per_network_fte");
    let mut a = hand_adj();
    a.vendor_discounts.insert("fs".into(), d("1.5"));
    let err = fabric_cost(&hand_input(Fabric::Roce, 0.1), &a, &econ()).unwrap_err();
    assert_eq!(err.input(), "prices.vendor_discounts");
    // Idle fraction 1: no useful hours, per-useful-hour cost is null, not a division by zero.
    let c = idle(1.0).unwrap();
    assert_eq!(c.cost_per_useful_gpu_hour_usd, None);
}

type Mutate = Box<dyn Fn(&mut FabricCostInput, &mut PriceAdjustments, &mut Economics)>;

#[test]
fn overflow_names_the_input() {
    let huge = d("10000000000000000000000000000"); // 1e28, a valid Decimal
    let cases: Vec<(&str, Mutate)> = vec![
        (
            "prices.overrides",
            Box::new(move |_, a, _| {
                a.overrides.insert("cx7".into(), huge);
            }),
        ),
        (
            "gpus",
            Box::new(|i, _, _| i.lines.to_mut()[0].quantity = u64::MAX),
        ),
        (
            "economics.electricity_usd_per_kwh",
            Box::new(move |_, _, e| {
                e.electricity_usd_per_kwh = huge;
            }),
        ),
        (
            "economics.network_engineer_usd_per_year",
            Box::new(move |_, _, e| {
                e.network_engineer_usd_per_year = huge;
            }),
        ),
        (
            "economics.ufm_usd_per_endpoint_per_year",
            Box::new(move |_, _, e| {
                e.ufm_usd_per_endpoint_per_year = Some(huge);
            }),
        ),
        (
            "economics.gpu_hour_usd",
            Box::new(move |_, _, e| e.gpu_hour_usd = huge),
        ),
        (
            "economics.gpus_per_network_fte",
            Box::new(|_, _, e| {
                e.gpus_per_network_fte = d("0.0000000000000000000000000001");
            }),
        ),
    ];
    for (want, f) in cases {
        let mut i = hand_input(Fabric::Infiniband, 0.05);
        i.lines.to_mut()[0].list_unit_price_usd = d("10000000000"); // 1e10, so u64::MAX × it overflows
        let mut a = hand_adj();
        let mut e = econ();
        f(&mut i, &mut a, &mut e);
        assert_eq!(
            fabric_cost(&i, &a, &e),
            Err(CostError::Overflow { input: want }),
            "{want}"
        );
    }
}

// ---------------------------------------------------------------- properties

fn arb_line(i: usize) -> impl Strategy<Value = BomLine> {
    (
        0..5usize,
        0..3usize,
        0..5_000u64,
        0..10_000_000i64,
        0..20_000i64,
    )
        .prop_map(move |(c, v, qty, cents, deciwatts)| BomLine {
            sku: format!("sku{i}").into(),
            vendor: ["nvidia", "arista", "fs"][v].into(),
            category: Category::ALL[c],
            description: Label::default(),
            quantity: qty,
            list_unit_price_usd: Decimal::new(cents, 2),
            power_w: Decimal::new(deciwatts, 1),
        })
}

fn arb_lines() -> impl Strategy<Value = Vec<BomLine>> {
    (1..8usize).prop_flat_map(|n| (0..n).map(arb_line).collect::<Vec<_>>())
}

fn arb_adj() -> impl Strategy<Value = PriceAdjustments> {
    (0..=100i64, 0..=100i64, 0..=100i64, 0..5usize).prop_map(|(v1, v2, c, cat)| PriceAdjustments {
        overrides: BTreeMap::new(),
        vendor_discounts: BTreeMap::from([
            ("nvidia".to_string(), Decimal::new(v1, 2)),
            ("fs".to_string(), Decimal::new(v2, 2)),
        ]),
        category_discounts: BTreeMap::from([(Category::ALL[cat], Decimal::new(c, 2))]),
    })
}

prop_compose! {
    fn arb_econ()(
        years in 1..=15u32,
        r in 0..=2_000i64,
        elec in 0..=300i64,
        pue in 100..=200i64,
        support in 0..=30i64,
        eng in 0..=400_000i64,
        ib in 0..=400_000i64,
        per_fte in 1..=4_096i64,
        per_ib in 1..=4_096i64,
        ufm in proptest::option::of(0..=2_000i64),
        nos in 0..=5_000i64,
        spares in 0..=10i64,
        gpu_hour in 0..=1_000i64,
        busy in 0..=100i64,
    ) -> Economics {
        Economics {
            years,
            discount_rate: Decimal::new(r, 4),
            electricity_usd_per_kwh: Decimal::new(elec, 3),
            pue: Decimal::new(pue, 2),
            support_rate: Decimal::new(support, 2),
            network_engineer_usd_per_year: Decimal::from(eng),
            ib_specialist_usd_per_year: Decimal::from(ib),
            gpus_per_network_fte: Decimal::from(per_fte),
            gpus_per_ib_specialist: Decimal::from(per_ib),
            ufm_usd_per_endpoint_per_year: ufm.map(Decimal::from),
            ethernet_nos_usd_per_switch_per_year: Decimal::from(nos),
            spares_rate: Decimal::new(spares, 2),
            gpu_hour_usd: Decimal::new(gpu_hour, 2),
            busy_fraction: Decimal::new(busy, 2),
            depreciation_years: 5,
        }
    }
}

fn arb_input() -> impl Strategy<Value = FabricCostInput<'static>> {
    (
        0..3usize,
        1..20_000u32,
        0..100_000u64,
        0..2_000u64,
        arb_lines(),
        0.0..=1.0f64,
        prop_oneof![Just(0.0), 0.0..100_000.0f64],
    )
        .prop_map(
            |(f, gpus, endpoints, switches, lines, idle, failure)| FabricCostInput {
                fabric: Fabric::ALL[f],
                gpus,
                endpoints,
                switches,
                lines: lines.into(),
                gpu_idle_fraction: idle,
                failure_gpu_hours_per_year: failure,
                traffic: Vec::new(),
            },
        )
}

/// Two fabrics of one cluster: an InfiniBand and an adaptive-routing Ethernet input.
fn arb_pair() -> impl Strategy<Value = (FabricCostInput<'static>, FabricCostInput<'static>)> {
    (arb_input(), arb_input()).prop_map(|(mut x, mut y)| {
        x.fabric = Fabric::Infiniband;
        y.fabric = Fabric::RoceAdaptive;
        y.gpus = x.gpus;
        (x, y)
    })
}

/// Both fabrics of [`arb_pair`] costed, and their comparison.
fn compare_pair(
    x: &FabricCostInput<'_>,
    y: &FabricCostInput<'_>,
    a: &PriceAdjustments,
    e: &Economics,
) -> (FabricCost, FabricCost, Comparison) {
    let cx = fabric_cost(x, a, e).unwrap();
    let cy = fabric_cost(y, a, e).unwrap();
    let c = compare(&[(x.fabric, &cx), (y.fabric, &cy)], e, x.gpus)
        .unwrap()
        .unwrap();
    (cx, cy, c)
}

fn sum(xs: impl IntoIterator<Item = Decimal>) -> Decimal {
    xs.into_iter().sum()
}

proptest! {
    #[test]
    fn totals_equal_the_sum_of_their_parts(i in arb_input(), a in arb_adj(), e in arb_econ()) {
        let c = fabric_cost(&i, &a, &e).unwrap();
        for cat in Category::ALL {
            let lines = sum(c.bom.iter().filter(|l| l.line.category == cat).map(|l| l.price.extended_price_usd));
            let bucket = match cat {
                Category::Nic => c.capex.nics_usd,
                Category::Switch => c.capex.switches_usd,
                Category::Optic => c.capex.optics_usd,
                Category::Cable => c.capex.cables_usd,
                Category::License => c.capex.licenses_usd,
            };
            prop_assert_eq!(bucket, lines);
        }
        for l in &c.bom {
            prop_assert_eq!(l.price.extended_price_usd, Decimal::from(l.line.quantity) * l.price.unit_price_usd);
        }
        let k = &c.capex;
        prop_assert_eq!(k.hardware_usd, k.nics_usd + k.switches_usd + k.optics_usd + k.cables_usd);
        prop_assert_eq!(k.total_usd, k.hardware_usd + k.licenses_usd);
        let o = &c.opex_per_year;
        prop_assert_eq!(o.total_usd, o.power_usd + o.support_usd + o.staff_usd + o.licenses_usd + o.spares_usd);
        let t = &c.tco;
        prop_assert_eq!(t.by_year.len(), e.years as usize);
        prop_assert_eq!(t.total_usd, sum(t.by_year.iter().map(|r| r.cost_usd)));
        prop_assert_eq!(t.npv_usd, sum(t.by_year.iter().map(|r| r.discounted_usd)));
        prop_assert_eq!(t.total_usd, k.total_usd + o.total_usd * Decimal::from(e.years));
        let mut cum = Decimal::ZERO;
        for r in &t.by_year {
            prop_assert_eq!(r.cost_usd, r.capex_usd + r.opex_usd);
            cum += r.cost_usd;
            prop_assert_eq!(r.cumulative_usd, cum);
        }
        prop_assert!(t.npv_usd <= t.total_usd);
        prop_assert_eq!(c.gpu_idle.cost_total_usd, c.gpu_idle.cost_per_year_usd * Decimal::from(e.years));
        prop_assert_eq!(c.total_cost_usd, t.total_usd + c.gpu_idle.cost_total_usd);
        // Every money amount is whole cents.
        for m in [k.total_usd, o.total_usd, t.npv_usd, c.total_cost_usd, o.power_usd, o.staff_usd] {
            prop_assert_eq!(m.scale(), 2);
        }
    }

    #[test]
    fn more_years_never_lower_tco(i in arb_input(), a in arb_adj(), e in arb_econ()) {
        prop_assume!(e.years < 15);
        let mut longer = e.clone();
        longer.years += 1;
        let c1 = fabric_cost(&i, &a, &e).unwrap();
        let c2 = fabric_cost(&i, &a, &longer).unwrap();
        prop_assert!(c2.tco.total_usd >= c1.tco.total_usd);
        prop_assert!(c2.tco.npv_usd >= c1.tco.npv_usd);
        prop_assert!(c2.total_cost_usd >= c1.total_cost_usd);
    }

    #[test]
    fn the_alternatives_capex_total_equals_the_priced_capex(
        lines in arb_lines(), a in arb_adj(), over in 0..=5_000_000i64,
    ) {
        // `CapexTotal` (design alternatives) and `capex(line_prices)` (the chosen design)
        // must agree to the cent, with discounts and an override.
        let mut a = a;
        if let Some(first) = lines.first() {
            a.overrides.insert(first.sku.to_string(), Decimal::new(over, 2));
        }
        let priced = line_prices(&lines, &a).unwrap();
        let (c, _) = capex(&priced).unwrap();
        let mut t = CapexTotal::new(&a).unwrap();
        for l in &lines {
            t.add(&l.sku, &l.vendor, l.category, l.list_unit_price_usd, l.quantity).unwrap();
        }
        prop_assert_eq!(t.total().unwrap(), c.total_usd);
    }

    #[test]
    fn a_cost_without_priced_lines_has_every_other_figure(
        i in arb_input(), a in arb_adj(), e in arb_econ(),
    ) {
        // What a sweep point or a Monte Carlo sample gets (`priced_lines: false`) is the full
        // cost but for the lines themselves, with and without discounts.
        for adj in [a, PriceAdjustments::default()] {
            match (fabric_cost(&i, &adj, &e), fabric_cost_with(&i, &adj, &e, false)) {
                (Ok(full), Ok(bare)) => {
                    prop_assert_eq!(full.bom.len(), i.lines.len());
                    prop_assert!(bare.bom.is_empty());
                    prop_assert_eq!(FabricCost { bom: Vec::new(), ..full }, bare);
                }
                (full, bare) => prop_assert_eq!(full.err(), bare.err()),
            }
        }
    }

    #[test]
    fn a_discount_never_raises_capex(
        i in arb_input(), a in arb_adj(), e in arb_econ(),
        vendor in 0..3usize, cat in 0..5usize, extra in 0..=100i64,
    ) {
        let before = fabric_cost(&i, &a, &e).unwrap();
        let mut more = a.clone();
        let v = ["nvidia", "arista", "fs"][vendor].to_string();
        let cur = more.vendor_discounts.get(&v).copied().unwrap_or_default();
        more.vendor_discounts.insert(v, (cur + Decimal::new(extra, 2)).min(Decimal::ONE));
        let c = Category::ALL[cat];
        let cur = more.category_discounts.get(&c).copied().unwrap_or_default();
        more.category_discounts.insert(c, (cur + Decimal::new(extra, 2)).min(Decimal::ONE));
        let after = fabric_cost(&i, &more, &e).unwrap();
        prop_assert!(after.capex.total_usd <= before.capex.total_usd);
        for (x, y) in after.bom.iter().zip(&before.bom) {
            prop_assert!(x.price.extended_price_usd <= y.price.extended_price_usd);
        }
    }

    #[test]
    fn an_override_changes_capex_by_quantity_times_price_difference(
        i in arb_input(), a in arb_adj(), e in arb_econ(),
        pick in any::<prop::sample::Index>(), cents in 0..100_000_000i64,
    ) {
        let before = fabric_cost(&i, &a, &e).unwrap();
        let k = pick.index(i.lines.len());
        let price = Decimal::new(cents, 2);
        let mut o = a.clone();
        o.overrides.insert(i.lines[k].sku.to_string(), price);
        let after = fabric_cost(&i, &o, &e).unwrap();
        let q = Decimal::from(i.lines[k].quantity);
        prop_assert_eq!(
            after.capex.total_usd - before.capex.total_usd,
            q * (price - before.bom[k].price.unit_price_usd)
        );
        prop_assert_eq!(after.bom[k].price.unit_price_usd, price);
    }

    #[test]
    fn a_higher_gpu_hour_value_never_favours_the_idler_fabric(
        mut lo in arb_input(), mut hi in arb_input(), a in arb_adj(), e in arb_econ(),
        v1 in 0..=1_000i64, bump in 1..=1_000i64,
    ) {
        lo.fabric = Fabric::Infiniband;
        hi.fabric = Fabric::Roce;
        hi.gpus = lo.gpus;
        prop_assume!(hi.gpu_idle_fraction > lo.gpu_idle_fraction);
        let at = |v: i64| {
            let mut e = e.clone();
            e.gpu_hour_usd = Decimal::new(v, 2);
            let l = fabric_cost(&lo, &a, &e).unwrap();
            let h = fabric_cost(&hi, &a, &e).unwrap();
            let c = compare(&[(Fabric::Infiniband, &l), (Fabric::Roce, &h)], &e, lo.gpus).unwrap().unwrap();
            (c.cheapest_fabric, h.total_cost_usd - l.total_cost_usd)
        };
        let (first, margin) = at(v1);
        // Idle cost is rounded to cents per year, so the gap may wobble by a cent a year:
        // skip exact near-ties.
        prop_assume!(margin.abs() > Decimal::ONE);
        if first == Fabric::Infiniband {
            prop_assert_eq!(at(v1 + bump).0, Fabric::Infiniband);
        }
    }

    #[test]
    fn crossing_the_break_even_flips_the_cheapest_fabric(
        (x, y) in arb_pair(), a in arb_adj(), e in arb_econ(),
    ) {
        let (cx, cy, c) = compare_pair(&x, &y, &a, &e);
        let Some(v_star) = c.break_even.gpu_hour_usd else { return Ok(()); };
        // Margins so 4-decimal rounding of v* and cent rounding cannot decide the outcome.
        prop_assume!(v_star >= d("0.05"));
        prop_assume!((cx.tco.total_usd - cy.tco.total_usd).abs() >= d("1000"));
        let winner_at = |v: Decimal| {
            let mut e = e.clone();
            e.gpu_hour_usd = v;
            compare_pair(&x, &y, &a, &e).2.cheapest_fabric
        };
        let below = winner_at(v_star * d("0.99"));
        let above = winner_at(v_star * d("1.01"));
        prop_assert_ne!(below, above);
    }

    #[test]
    fn the_break_even_idle_gap_equalises_the_totals(
        (mut x, mut y) in arb_pair(), a in arb_adj(), e in arb_econ(),
    ) {
        let (cx, cy, c) = compare_pair(&x, &y, &a, &e);
        let be = &c.break_even;
        let Some(gap) = be.break_even_idle_fraction_gap else { return Ok(()); };
        // Move the runner-up's idle fraction to the cheapest one's plus the reported gap.
        let (base, runner) = if be.cheapest_fabric == Fabric::Infiniband {
            (cx.gpu_idle.idle_fraction, &mut y)
        } else {
            (cy.gpu_idle.idle_fraction, &mut x)
        };
        let target = base + gap;
        prop_assume!(target >= Decimal::ZERO && target <= Decimal::ONE);
        runner.gpu_idle_fraction = rust_decimal::prelude::ToPrimitive::to_f64(&target).unwrap();
        let (cx, cy, _) = compare_pair(&x, &y, &a, &e);
        // The gap is rounded to 6 decimals (worth v × K × 5e-7) and each year's idle cost to
        // cents: the totals meet within that.
        let k = Decimal::from(x.gpus) * Decimal::from(8760u32) * e.busy_fraction * Decimal::from(e.years);
        let slack = e.gpu_hour_usd * k * d("0.0000011") + Decimal::from(e.years) * d("0.03");
        let diff = (cx.total_cost_usd - cy.total_cost_usd).abs();
        prop_assert!(diff <= slack, "totals differ by {} (slack {})", diff, slack);
    }

    #[test]
    fn huge_inputs_give_an_error_never_a_panic(
        i in arb_input(), e in arb_econ(),
        qty in any::<u64>(), mant in any::<i64>(), scale in 0..=28u32,
        which in 0..6usize,
    ) {
        let mut i = i;
        let mut e = e;
        let mut a = PriceAdjustments::default();
        let big = Decimal::new(mant.checked_abs().unwrap_or(i64::MAX), 0)
            .checked_mul(Decimal::from(10_000_000_000u64))
            .unwrap_or(Decimal::MAX)
            * Decimal::new(1, scale);
        i.lines.to_mut()[0].quantity = qty;
        match which {
            0 => { a.overrides.insert(i.lines[0].sku.to_string(), big); }
            1 => i.lines.to_mut()[0].list_unit_price_usd = big,
            2 => e.electricity_usd_per_kwh = big,
            3 => e.gpu_hour_usd = big,
            4 => e.network_engineer_usd_per_year = big,
            _ => i.lines.to_mut()[0].power_w = big,
        }
        match fabric_cost(&i, &a, &e) {
            Ok(c) => prop_assert!(c.total_cost_usd >= Decimal::ZERO),
            Err(err) => prop_assert!(matches!(err, CostError::Overflow { .. }), "{err:?}"),
        }
    }
}

#[test]
fn schemas_document_money_as_strings() {
    use utoipa::PartialSchema;
    let s = serde_json::to_value(FabricCost::schema()).unwrap();
    let props = &s["properties"];
    for f in [
        "bom",
        "capex",
        "opex_per_year",
        "tco",
        "gpu_idle",
        "total_cost_usd",
    ] {
        assert!(props.get(f).is_some(), "{f} missing from schema");
    }
    assert_eq!(props["total_cost_usd"]["type"], "string");
    assert!(
        props["total_cost_usd"]["description"]
            .as_str()
            .unwrap()
            .contains("USD")
    );
    let c = serde_json::to_value(Comparison::schema()).unwrap();
    for f in [
        "cheapest_fabric",
        "deltas",
        "recommendation",
        "reasons",
        "break_even",
    ] {
        assert!(c["properties"].get(f).is_some(), "{f} missing from schema");
    }
}

/// A traffic's label reads as the sentence it was formatted into before it was kept as fields.
#[test]
fn traffic_labels_read_as_sentences() {
    let label = crate::cost::TrafficLabel {
        parallelism: "expert",
        kind: "all_to_all",
        group_size: 64,
        placement: "network",
    };
    assert_eq!(
        label.to_string(),
        "the expert all-to-all over 64 GPUs (network)"
    );
    let send = crate::cost::TrafficLabel {
        kind: "send_recv",
        parallelism: "pipeline",
        ..label
    };
    assert_eq!(
        send.to_string(),
        "the pipeline send-recv over 64 GPUs (network)"
    );
    assert_ne!(label, send);
}
