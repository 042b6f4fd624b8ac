//! The fast writer against serde_json: the same bytes for every value the service writes.

use std::collections::BTreeMap;

use rust_decimal::Decimal;
use serde::{Serialize, Serializer};
use serde_json::json;

use super::{decimal, decimal_text, opt_decimal, to_vec, to_writer, write};
use crate::catalog::CatalogSet;
use crate::plan::{PlanRequest, build_plan};

/// `v` is written by this writer itself (not handed to serde_json), as serde_json writes it.
fn same<T: Serialize + ?Sized>(v: &T) {
    let mut own = Vec::new();
    assert!(write(&mut own, v).is_ok(), "left to serde_json");
    same_text(v);
    assert_eq!(own, serde_json::to_vec(v).expect("serde_json"));
}

/// `to_vec` gives serde_json's bytes, by whichever writer.
fn same_text<T: Serialize + ?Sized>(v: &T) {
    let want = serde_json::to_vec(v).expect("serde_json");
    let got = to_vec(v).expect("fast");
    assert_eq!(
        String::from_utf8_lossy(&got),
        String::from_utf8_lossy(&want)
    );
}

#[test]
fn every_character_is_escaped_as_serde_json_escapes_it() {
    // Each ASCII byte and a few wider characters, at every place within and across the
    // eight-byte words the scan reads, alone and in runs.
    let mut chars: Vec<char> = (0u8..=0x7f).map(char::from).collect();
    chars.extend([
        'é', '×', '≤', '€', '\u{2028}', '😀', '\u{7f}', '\u{80}', '\u{ffff}',
    ]);
    for &c in &chars {
        for before in 0..17 {
            for after in [0, 1, 7, 8, 9] {
                let s = format!("{}{c}{}", "a".repeat(before), "b".repeat(after));
                same(&s);
                same(&format!("{s}{c}{c}{s}"));
            }
        }
    }
    same("");
    same(&'"');
    same(&'\n');
    // Random text over a small alphabet heavy in the characters that are escaped.
    let alphabet: Vec<char> = "ab\"\\\n\t\r\u{1}\u{1f} é×😀/\u{8}\u{c}".chars().collect();
    let mut next = crate::cost::money::xorshift(7);
    for _ in 0..5_000 {
        let len = (next() % 80) as usize;
        let s: String = (0..len)
            .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
            .collect();
        same(&s);
    }
}

#[test]
fn decimal_text_is_rust_decimal_text() {
    let mut next = crate::cost::money::xorshift(11);
    let check = |v: Decimal| {
        let text = decimal_text(&v).to_string();
        assert_eq!(text, v.to_string(), "{v:?}");
        assert_eq!(super::decimal_string(&v), text);
        // rust_decimal's Serialize writes the same text as a string.
        assert_eq!(
            format!("\"{text}\""),
            serde_json::to_string(&v).expect("json")
        );
    };
    for scale in 0..=28 {
        // Negative zero (`from_parts` makes a zero positive; a sign set afterwards stays).
        let mut zero = Decimal::from_parts(0, 0, 0, false, scale);
        zero.set_sign_negative(true);
        check(zero);
        for negative in [false, true] {
            check(Decimal::from_parts(0, 0, 0, negative, scale));
            check(Decimal::from_parts(
                u32::MAX,
                u32::MAX,
                u32::MAX,
                negative,
                scale,
            ));
            for _ in 0..2_000 {
                // Mantissas of every length, from one digit to 96 bits.
                let bits = next() % 97;
                let m = u128::from(next()) << 64 | u128::from(next());
                let m = if bits == 0 { 0 } else { m >> (128 - bits) };
                let lo = m as u32;
                let mid = (m >> 32) as u32;
                let hi = (m >> 64) as u32;
                check(Decimal::from_parts(lo, mid, hi, negative, scale));
            }
        }
    }
}

/// Every shape serde has, and the ones serde_json writes in its own way.
#[derive(Serialize)]
enum Shape {
    Unit,
    Newtype(u8),
    Tuple(i32, f64),
    Struct { a: Option<u8>, b: Vec<String> },
}

#[derive(Serialize)]
struct Unit;

#[derive(Serialize)]
struct Wrapper(String);

#[derive(Serialize)]
struct Tuple(u16, &'static str);

#[derive(Serialize)]
struct Everything {
    t: bool,
    f: bool,
    small: i8,
    big: i128,
    huge: u128,
    neg: i64,
    float: f64,
    float32: f32,
    nan: f64,
    inf: f32,
    tiny: f64,
    ch: char,
    none: Option<u32>,
    some: Option<Option<u32>>,
    unit: (),
    unit_struct: Unit,
    wrapper: Wrapper,
    tuple: (u8, &'static str, [u8; 0]),
    tuple_struct: Tuple,
    empty: Vec<u8>,
    #[serde(with = "serde_bytes_like")]
    bytes: Vec<u8>,
    shapes: Vec<Shape>,
    by_name: BTreeMap<String, Shape>,
    by_number: BTreeMap<u64, i8>,
    by_signed: BTreeMap<i32, ()>,
    by_char: BTreeMap<char, u8>,
    by_variant: BTreeMap<Key, u8>,
    by_wrapper: BTreeMap<KeyWrapper, u8>,
    #[serde(serialize_with = "decimal")]
    money: Decimal,
    #[serde(serialize_with = "opt_decimal")]
    some_money: Option<Decimal>,
    #[serde(serialize_with = "opt_decimal")]
    no_money: Option<Decimal>,
    value: serde_json::Value,
}

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
enum Key {
    First,
    Second,
}

#[derive(Serialize, PartialEq, Eq, PartialOrd, Ord)]
struct KeyWrapper(String);

mod serde_bytes_like {
    pub fn serialize<S: serde::Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(v)
    }
}

#[test]
fn every_shape_is_written_as_serde_json_writes_it() {
    let e = Everything {
        t: true,
        f: false,
        small: -128,
        big: i128::MIN,
        huge: u128::MAX,
        neg: -1,
        float: 0.1 + 0.2,
        float32: 1.0e-7,
        nan: f64::NAN,
        inf: f32::NEG_INFINITY,
        tiny: 5e-324,
        ch: '\u{1}',
        none: None,
        some: Some(None),
        unit: (),
        unit_struct: Unit,
        wrapper: Wrapper("w\"".into()),
        tuple: (1, "two", []),
        tuple_struct: Tuple(3, "four"),
        empty: vec![],
        bytes: vec![0, 255, 7],
        shapes: vec![
            Shape::Unit,
            Shape::Newtype(9),
            Shape::Tuple(-1, 2.5),
            Shape::Struct {
                a: None,
                b: vec!["x".into(), String::new()],
            },
        ],
        by_name: BTreeMap::from([
            ("a\tb".to_string(), Shape::Unit),
            (String::new(), Shape::Newtype(1)),
        ]),
        by_number: BTreeMap::from([(0, 1), (u64::MAX, -1)]),
        by_signed: BTreeMap::from([(-5, ())]),
        by_char: BTreeMap::from([('"', 1), ('é', 2)]),
        by_variant: BTreeMap::from([(Key::First, 1), (Key::Second, 2)]),
        by_wrapper: BTreeMap::from([(KeyWrapper("k".into()), 3)]),
        money: Decimal::new(-12_345, 3),
        some_money: Some(Decimal::new(5, 1)),
        no_money: None,
        value: json!({"a": [1, -2, 3.5, null, true, "s\u{0}"], "b": {}, "c": []}),
    };
    same(&e);
    same(&Shape::Struct {
        a: Some(1),
        b: vec![],
    });
    same(&Vec::<Shape>::new());
    same(&BTreeMap::<String, u8>::new());
}

#[test]
fn what_this_writer_leaves_to_serde_json_is_written_by_serde_json() {
    // Keys serde_json writes but this writer does not (true, a float), and keys serde_json
    // refuses (a sequence): serde_json's answer either way, and nothing left in the buffer on
    // an error.
    let bool_keys = BTreeMap::from([(true, 1), (false, 2)]);
    assert!(write(&mut Vec::new(), &bool_keys).is_err());
    same_text(&bool_keys);
    let float_keys: Vec<(f64, u8)> = vec![(1.5, 1)];
    struct FloatKeys(Vec<(f64, u8)>);
    impl Serialize for FloatKeys {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_map(self.0.iter().map(|(k, v)| (k, v)))
        }
    }
    assert!(write(&mut Vec::new(), &FloatKeys(float_keys.clone())).is_err());
    same_text(&FloatKeys(float_keys));
    let mut out = b"kept".to_vec();
    let bad = BTreeMap::from([(vec![1u8], 1u8)]);
    assert!(to_writer(&mut out, &bad).is_err());
    assert!(serde_json::to_vec(&bad).is_err());
    assert_eq!(out, b"kept");
    // A value's own error midway: the same error, the buffer as it was.
    struct Fails;
    impl Serialize for Fails {
        fn serialize<S: Serializer>(&self, _: S) -> Result<S::Ok, S::Error> {
            Err(serde::ser::Error::custom("no"))
        }
    }
    let mut out = b"kept".to_vec();
    let e = to_writer(&mut out, &(1, "two", Fails)).expect_err("fails");
    assert_eq!(e.to_string(), "no");
    assert_eq!(out, b"kept");
}

#[test]
fn plans_and_requests_are_serde_json() {
    let cats = CatalogSet::embedded().expect("catalog");
    for v in [
        json!({"gpus": 1}),
        json!({"gpus": 16}),
        json!({"gpus": 1024, "fabrics": ["infiniband", "roce", "roce_adaptive"]}),
        json!({"gpus": 100_000}),
        json!({"gpus": 2048, "gpu_model": "b200", "workload": {"preset": "moe-deepseek-v3"}}),
        json!({"gpus": 512, "uncertainty": {"samples": 300, "seed": 3}}),
        json!({"gpus": 64, "topology": {"design": "single_switch"}}),
        json!({"gpus": 4096, "prices": {"overrides": {"nvidia-qm9700": "1000.5"}},
               "economics": {"years": 7, "discount_rate": "0.0725"}}),
    ] {
        let req: PlanRequest = serde_json::from_value(v.clone()).expect("request");
        same(&req);
        match build_plan(&req, &cats) {
            Ok(plan) => {
                same(&plan);
                same(&plan.inputs);
            }
            Err(e) => panic!("{v}: {e}"),
        }
    }
}

mod picking {
    use std::collections::BTreeMap;

    use serde::Serialize;
    use serde_json::{Value, json};

    use crate::catalog::CatalogSet;
    use crate::json::pick;
    use crate::plan::{PlanRequest, build_plan};
    use crate::table::csv::dig;

    /// `pick` finds what the whole tree has at each path.
    fn same_as_the_tree<T: Serialize>(v: &T, paths: &[&str]) {
        let tree = serde_json::to_value(v).expect("tree");
        let want: Vec<Option<Value>> = paths.iter().map(|p| dig(&tree, p).cloned()).collect();
        assert_eq!(pick(v, paths).expect("pick"), want);
    }

    #[derive(Serialize)]
    enum Variant {
        Unit,
        Newtype(Inner),
        Tuple(u8, Inner),
        Struct { inner: Inner, n: Option<u8> },
    }

    #[derive(Serialize)]
    struct Inner {
        a: u8,
        b: Vec<Option<String>>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
    }

    #[derive(Serialize)]
    struct Outer {
        #[serde(flatten)]
        flat: Inner,
        variants: Vec<Variant>,
        by_number: BTreeMap<u32, Inner>,
        tuple: (u8, Inner),
        none: Option<Inner>,
        wrapped: Wrapped,
    }

    #[derive(Serialize)]
    struct Wrapped(Inner);

    fn inner(a: u8) -> Inner {
        Inner {
            a,
            b: vec![Some("x".into()), None],
            skipped: None,
        }
    }

    #[test]
    fn every_shape_is_read_as_the_tree_reads_it() {
        let v = Outer {
            flat: inner(1),
            variants: vec![
                Variant::Unit,
                Variant::Newtype(inner(2)),
                Variant::Tuple(3, inner(4)),
                Variant::Struct {
                    inner: inner(5),
                    n: None,
                },
            ],
            by_number: BTreeMap::from([(7, inner(6))]),
            tuple: (8, inner(9)),
            none: None,
            wrapped: Wrapped(inner(10)),
        };
        let paths = [
            "a",
            "b",
            "b.0",
            "b.1",
            "b.2",
            "b.0.x",
            "skipped",
            "variants",
            "variants.0",
            "variants.0.Unit",
            "variants.1.Newtype.a",
            "variants.1.Newtype",
            "variants.2.Tuple.0",
            "variants.2.Tuple.1.b.0",
            "variants.3.Struct.inner.a",
            "variants.3.Struct.n",
            "variants.4",
            "by_number.7.a",
            "by_number.7",
            "by_number.8",
            "tuple.1.a",
            "tuple.0",
            "tuple.0.x",
            "none",
            "none.a",
            "wrapped.a",
            "wrapped.b.1",
            "",
            ".",
            "a.",
            "x",
            "a",
            // A member's name followed by anything but a dot is another name.
            "wrappedxa",
            "tuple_1.a",
            "variants0",
            // An array's index as `dig` parses it: leading zeros and a plus sign.
            "b.01",
            "b.+1",
            "variants.+1.Newtype.a",
            "variants.002.Tuple.01.a",
            "b.1a",
            "b.-1",
        ];
        same_as_the_tree(&v, &paths);
        same_as_the_tree(
            &json!({"k": [1, {"m": null}], "n": {}}),
            &["k.1.m", "k.1", "n", "k.x"],
        );
        same_as_the_tree(
            &vec![inner(1), inner(2)],
            &["0.a", "1.b.0", "2", "001.b.+0"],
        );
        // A key with a dot in it is never one segment of a path.
        same_as_the_tree(
            &json!({"a": {"b": 2}, "a.b": 1, "x.y": 3}),
            &["a.b", "x.y", "x"],
        );
    }

    #[test]
    fn a_plans_columns_and_metrics_are_read_as_the_tree_reads_them() {
        let cats = CatalogSet::embedded().expect("catalog");
        let mut paths: Vec<&str> = crate::table::PLAN_COLUMNS.to_vec();
        paths.extend(
            crate::table::metrics::value_metrics()
                .iter()
                .map(String::as_str),
        );
        paths.extend([
            "tco.by_year.0.cost_usd",
            "tco.by_year.9.cost_usd",
            "tco.by_year.01.cost_usd",
            "tco.by_year.+2.cost_usd",
            "bom.3.sku",
            "design_alternatives.1.capex_usd",
            "performance.collectives.0.kind",
            "topology",
            "bom",
        ]);
        for v in [
            json!({"gpus": 16}),
            json!({"gpus": 1024, "uncertainty": {"samples": 50}}),
            json!({"gpus": 100_000, "fabrics": ["roce"]}),
            // InfiniBand infeasible: no cost fields, a reason.
            json!({"gpus": 100_000}),
        ] {
            let req: PlanRequest = serde_json::from_value(v.clone()).expect("request");
            let plan = build_plan(&req, &cats).expect("plan");
            for f in &plan.fabrics {
                same_as_the_tree(f, &paths);
            }
            let whole = [
                "fabrics.0.capex.total_usd",
                "comparison.cheapest_fabric",
                "uncertainty.samples",
                "inputs.gpus",
                "warnings",
                "fabrics.2.bom.0.sku",
            ];
            same_as_the_tree(&plan, &whole);
        }
    }
}

/// A value serialised through `collect_str` (the BOM's units, derivations and labels), written
/// in several pieces: each piece escaped where it falls, as serde_json escapes the whole.
#[test]
fn displayed_values_are_escaped_as_serde_json_escapes_them() {
    struct Pieces(Vec<String>);
    impl std::fmt::Display for Pieces {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            self.0.iter().try_for_each(|p| f.write_str(p))
        }
    }
    impl Serialize for Pieces {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            s.collect_str(self)
        }
    }
    let alphabet: Vec<char> = "ab\"\\\n\u{1}\u{1f} ×—😀".chars().collect();
    let mut next = crate::cost::money::xorshift(11);
    for _ in 0..2_000 {
        let pieces = (0..next() % 5)
            .map(|_| {
                (0..next() % 12)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect()
            })
            .collect();
        let v = Pieces(pieces);
        same(&v);
        same(&json!({ "k": v.to_string() }));
    }
    same(&crate::catalog::Label::new(
        "QM9700 \"x\"".into(),
        " — leaf",
    ));
}

/// Keys are written with what opens them (`"` or `,"`) and closes them (`":`) in one go: every
/// character at every place of a key, first in its object or not, as serde_json writes it.
#[test]
fn every_character_in_a_key_is_escaped_as_serde_json_escapes_it() {
    let mut chars: Vec<char> = (0u8..=0x7f).map(char::from).collect();
    chars.extend(['é', '×', '😀']);
    for &c in &chars {
        // Short keys are tested a word at a time (up to 32 bytes), longer ones scanned: the
        // character at every place of keys around each word boundary and just past 32 bytes.
        let places = [1, 2, 7, 8, 9, 15, 16, 17, 23, 24, 25, 31, 32, 33, 34]
            .into_iter()
            .flat_map(|len: usize| (0..len).map(move |at| (at, len - at - 1)));
        for (before, after) in places {
            let key = format!("{}{c}{}", "k".repeat(before), "k".repeat(after));
            same(&BTreeMap::from([(key.clone(), 1)]));
            same(&BTreeMap::from([(key.clone(), 1), (format!("~{key}"), 2)]));
            same(&json!({ "a": { key.as_str(): [key.as_str()] }, "b": 0 }));
        }
    }
}

/// A struct field's name is written without the escape scan (`write_name_key`); one that would
/// need escaping is caught in debug builds, where every test runs, instead of written as
/// invalid JSON.
#[test]
#[cfg(debug_assertions)]
#[should_panic(expected = "needs escaping")]
fn a_field_name_that_needs_escaping_is_caught() {
    #[derive(Serialize)]
    struct Odd {
        #[serde(rename = "a\"b")]
        a: u8,
    }
    let _ = write(&mut Vec::new(), &Odd { a: 1 });
}
