use super::axes::short_decimal;
use super::encode::{GATHERED, Gathered, TAG_LEAF_ROWS, sweep_tag};
use super::*;
use crate::fabric::Fabric;
use crate::table::{NamedValue, NamedValues};
use rust_decimal::Decimal;
use sha2::{Digest, Sha256};

fn row(
    value: f64,
    value2: Option<f64>,
    fabric: Fabric,
    cheapest: bool,
    warnings: &Arc<[String]>,
) -> NamedSweepRow {
    NamedSweepRow {
        inputs: NamedValues(
            NamedValue {
                name: "gpus".into(),
                value: Value::from(value as i64),
            },
            value2.map(|v| NamedValue {
                name: "economics.gpu_hour_usd".into(),
                value: serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number),
            }),
        ),
        row: SweepRow {
            value,
            value2,
            fabric,
            design: crate::sizing::Design::SuClos,
            total_cost_usd: Decimal::new(123_456_789, 2),
            capex_usd: Decimal::new(-5, 1),
            tco_usd: Decimal::new(7, 0),
            gpu_idle_fraction: if cheapest { 0.1 + 0.2 } else { f64::NAN },
            gpu_idle_cost_usd: Decimal::new(1, 28),
            failure_cost_usd: Decimal::ZERO,
            cheapest,
            plan_id: Arc::from(format!("id-{value}").as_str()),
            warnings: Arc::clone(warnings),
        },
    }
}

/// The hand-written JSON of a sweep is the bytes serde writes for it: one input and a grid,
/// rows sharing their point's warnings and rows with their own, text needing escapes.
#[test]
fn the_sweep_json_is_the_serde_json_of_the_result() {
    let a: Arc<[String]> = vec![
        "roce: \"quoted\" \\ and\ttab — ünïcode".to_string(),
        "second".to_string(),
    ]
    .into();
    let b: Arc<[String]> = Vec::new().into();
    let c: Arc<[String]> = vec!["other".to_string()].into();
    let crossover = Crossover {
        input: "gpus".into(),
        between: [8.0, 16.0],
        value: 12.0,
        exact: true,
        from_fabric: Fabric::Roce,
        to_fabric: Fabric::Infiniband,
        input2: Some("economics.gpu_hour_usd".into()),
        value2: Some(2.5),
    };
    for grid in [None, Some(2.5)] {
        let rows = vec![
            row(8.0, grid, Fabric::Infiniband, true, &a),
            row(8.0, grid, Fabric::Roce, false, &a),
            row(16.0, grid, Fabric::Infiniband, false, &b),
            row(16.0, grid, Fabric::RoceAdaptive, true, &b),
            row(24.0, grid, Fabric::Roce, true, &c),
            row(32.0, grid, Fabric::Roce, true, &a),
        ];
        for rows in [rows.clone(), Vec::new()] {
            let r = SweepResult {
                vary: "gpus".into(),
                vary2: grid.map(|_| "economics.gpu_hour_usd".to_string()),
                warnings: vec!["said \"once\" for every row".into()],
                rows,
                crossovers: vec![crossover.clone()],
                plans_computed: 9,
                notes: Vec::new(),
            };
            let want = String::from_utf8(serde_json::to_vec(&r).expect("serde"));
            for threads in [1, 2, 3, 4, 7] {
                let parts = sweep_json(&r, threads).expect("json");
                let got = String::from_utf8(parts.iter().flatten().copied().collect());
                assert_eq!(got, want, "{threads} threads");
            }
        }
    }
}

/// A sweep's tag is the same on any number of threads (its leaves have a fixed size), and
/// it changes with one point's warnings, one row's plan id or one value, in any leaf.
#[test]
fn the_tag_does_not_depend_on_the_threads_and_sees_every_row() {
    let points: Vec<Arc<[String]>> = (0..4_000)
        .map(|i| vec![format!("UFM for {i} endpoints"), "a placeholder".into()].into())
        .collect();
    let rows: Vec<NamedSweepRow> = points
        .iter()
        .enumerate()
        .flat_map(|(i, w)| {
            [Fabric::Infiniband, Fabric::Roce, Fabric::RoceAdaptive]
                .map(|f| row(f64::from(8 * i as u32 + 8), None, f, f == Fabric::Roce, w))
        })
        .collect();
    let result = |rows: Vec<NamedSweepRow>| SweepResult {
        vary: "gpus".into(),
        vary2: None,
        warnings: vec!["every row's".into()],
        rows,
        crossovers: Vec::new(),
        plans_computed: 4_000,
        notes: Vec::new(),
    };
    let base = result(rows.clone());
    let tag = sweep_tag(&base, 1);
    for threads in [2, 3, 8] {
        assert_eq!(sweep_tag(&base, threads), tag, "{threads} threads");
    }
    let mut said = result(rows.clone());
    said.warnings.push("one more for the whole sweep".into());
    assert_ne!(sweep_tag(&said, 2), tag, "the sweep's warnings");
    for at in [0, TAG_LEAF_ROWS - 1, TAG_LEAF_ROWS, rows.len() - 1] {
        let mut changed = rows.clone();
        changed[at].row.warnings = vec!["another".to_string()].into();
        assert_ne!(sweep_tag(&result(changed), 2), tag, "warnings of row {at}");
        let mut changed = rows.clone();
        changed[at].row.plan_id = Arc::from("another");
        assert_ne!(sweep_tag(&result(changed), 2), tag, "plan id of row {at}");
        let mut changed = rows.clone();
        changed[at].row.value += 1.0;
        assert_ne!(sweep_tag(&result(changed), 2), tag, "value of row {at}");
    }
}

/// Feeding the hash in gathered pieces gives the digest of the bytes fed one by one,
/// across piece boundaries and for pieces larger than a gathering.
#[test]
fn a_gathered_hash_is_the_hash_of_its_bytes() {
    let mut direct = Sha256::new();
    let mut gathered = Gathered {
        hash: Sha256::new(),
        buf: Vec::new(),
    };
    let mut x = 0x9e37_79b9_7f4a_7c15_u64;
    for i in 0..20_000usize {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let len = if i % 997 == 0 {
            3 * GATHERED + 5
        } else {
            (x % 300) as usize
        };
        let piece: Vec<u8> = (0..len).map(|j| (x >> (j % 56)) as u8).collect();
        direct.update(&piece);
        gathered.update(&piece);
    }
    assert_eq!(direct.finalize().as_slice(), gathered.finalize().as_ref());
}

/// Float noise of a range goes; a value's own digits stay.
#[test]
fn a_short_decimal_drops_float_noise_only() {
    let noisy = 0.01 + 5.0 * 0.01;
    assert_ne!(noisy.to_string(), "0.06");
    assert_eq!(short_decimal(noisy).to_string(), "0.06");
    assert_eq!(short_decimal(0.1 + 0.2).to_string(), "0.3");
    assert_eq!(
        short_decimal(83.416_666_666_666_66).to_string(),
        "83.4166666666667"
    );
    assert_eq!(short_decimal(148.397).to_string(), "148.397");
}
