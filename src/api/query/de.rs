//! A serde `Deserializer` over a query string's (name, value) pairs: dotted names nest
//! (`economics.years=5` → `economics: {years: 5}`), values are typed by the field that asks for
//! them (`u32`, `f64`, `bool`, enum, list, map, the bounded input types), so a GET request is
//! deserialised straight into the typed `PlanRequest` — the same `Deserialize` impls, bounds and
//! unknown-field rules as a JSON body, with no JSON in between.

use std::collections::BTreeMap;

use serde::de::value::{Error, StrDeserializer};
use serde::de::{self, DeserializeSeed, Deserializer, IntoDeserializer, MapAccess, Visitor};

/// `Option`s and newtype structs are transparent in a query: a parameter that is there is
/// `Some`, and a newtype (a bounded input) reads the value itself.
macro_rules! transparent_wrappers {
    () => {
        fn deserialize_option<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
            v.visit_some(self)
        }

        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _name: &'static str,
            v: V,
        ) -> Result<V::Value, Error> {
            v.visit_newtype_struct(self)
        }
    };
}

/// Scalar methods: on a [`Node`], the one value's (`scalar_methods!(m…)`); on a [`Scalar`], a
/// number parsed from the text whatever numeric type the field asks for
/// (`scalar_methods!(numbers: m…)`), the field's own `Deserialize` then checking type and range
/// (a bounded input says its range in the error).
macro_rules! scalar_methods {
    ($($m:ident)*) => {
        $(
            fn $m<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
                self.scalar()?.$m(v)
            }
        )*
    };
    (numbers: $($m:ident)*) => {
        $(
            fn $m<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
                self.number(v)
            }
        )*
    };
    (whole numbers: $($m:ident)*) => {
        $(
            fn $m<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
                self.whole_number(v)
            }
        )*
    };
}

/// The message of a scalar query parameter given more than once.
pub const GIVEN_TWICE: &str = "given more than once";

/// The pairs as a tree of dotted names.
#[derive(Debug)]
pub enum Node<'a> {
    /// The values of one parameter (several when it is repeated).
    Leaf(Vec<&'a str>),
    /// Parameters under a common dotted prefix.
    Branch(BTreeMap<&'a str, Node<'a>>),
}

/// Most dot-separated parts in a parameter's name. The deepest real names have seven
/// (`uncertainty.inputs.prices.discounts.vendor.<vendor>.low` in POST form) plus the dots
/// inside a catalog key; each part is a level of the tree and of the recursion that types it,
/// so a name of thousands of dots must not get that far (it overflowed a worker's stack).
pub const MAX_NAME_PARTS: usize = 32;

/// A parameter name the tree cannot hold.
#[derive(Debug, Clone, PartialEq)]
pub enum BadName {
    /// The name is both a value and a prefix (`topology=1&topology.planes=2`).
    Conflict(String),
    /// The name has more than [`MAX_NAME_PARTS`] dot-separated parts.
    TooDeep(String),
}

impl<'a> Node<'a> {
    /// Builds the tree from (name, value) pairs; empty values are left out ("not given").
    pub fn build(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> Result<Node<'a>, BadName> {
        let mut root = BTreeMap::new();
        for (name, value) in pairs {
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            let segs: Vec<&str> = name.split('.').take(MAX_NAME_PARTS + 1).collect();
            if segs.len() > MAX_NAME_PARTS {
                return Err(BadName::TooDeep(name.to_string()));
            }
            insert(&mut root, &segs, value).map_err(|()| BadName::Conflict(name.to_string()))?;
        }
        Ok(Node::Branch(root))
    }
}

impl Node<'_> {
    /// The tree's structure as JSON (branches as objects, values as strings), for checking
    /// names against the request's schema before typing.
    pub fn structure(&self) -> serde_json::Value {
        match self {
            Node::Leaf(v) => serde_json::Value::String(v.first().map_or("", |s| s).to_string()),
            Node::Branch(m) => serde_json::Value::Object(
                m.iter()
                    .map(|(k, n)| ((*k).to_string(), n.structure()))
                    .collect(),
            ),
        }
    }
}

fn insert<'a>(
    map: &mut BTreeMap<&'a str, Node<'a>>,
    segs: &[&'a str],
    value: &'a str,
) -> Result<(), ()> {
    let Some((first, rest)) = segs.split_first() else {
        return Err(());
    };
    if rest.is_empty() {
        match map.entry(first).or_insert_with(|| Node::Leaf(Vec::new())) {
            Node::Leaf(v) => {
                v.push(value);
                Ok(())
            }
            Node::Branch(_) => Err(()),
        }
    } else {
        match map
            .entry(first)
            .or_insert_with(|| Node::Branch(BTreeMap::new()))
        {
            Node::Branch(m) => insert(m, rest, value),
            Node::Leaf(_) => Err(()),
        }
    }
}

fn err<T>(msg: impl std::fmt::Display) -> Result<T, Error> {
    Err(de::Error::custom(msg))
}

impl<'de, 'a: 'de> Deserializer<'de> for &'de Node<'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self {
            Node::Leaf(_) => self.scalar()?.deserialize_any(v),
            Node::Branch(m) => v.visit_map(Entries::new(m, false)),
        }
    }

    transparent_wrappers!();

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        match self {
            Node::Branch(m) => v.visit_map(Entries::new(m, false)),
            Node::Leaf(_) => err("expected a group of parameters (name.field=value), got a value"),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self {
            // Map keys may contain dots (SKU ids): the whole rest of the name is the key.
            Node::Branch(m) => v.visit_map(Entries::new(m, true)),
            Node::Leaf(_) => err("expected entries (name.key=value), got a value"),
        }
    }

    fn deserialize_seq<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self {
            Node::Leaf(values) => {
                let items: Vec<Scalar<'de>> = values
                    .iter()
                    .flat_map(|s| s.split(','))
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .map(Scalar)
                    .collect();
                v.visit_seq(de::value::SeqDeserializer::new(items.into_iter()))
            }
            Node::Branch(_) => err("expected a list of values, got a group of parameters"),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        self.scalar()?.deserialize_enum(name, variants, v)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_unit()
    }

    scalar_methods! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32
        deserialize_f64 deserialize_char deserialize_str deserialize_string deserialize_bytes
        deserialize_byte_buf deserialize_unit deserialize_identifier
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        v: V,
    ) -> Result<V::Value, Error> {
        self.scalar()?.deserialize_unit(v)
    }

    fn deserialize_tuple<V: Visitor<'de>>(self, _len: usize, v: V) -> Result<V::Value, Error> {
        self.deserialize_seq(v)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _len: usize,
        v: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(v)
    }
}

impl<'a> Node<'a> {
    /// The one value of a scalar parameter.
    fn scalar(&self) -> Result<Scalar<'a>, Error> {
        match self {
            Node::Leaf(values) => match values.as_slice() {
                [one] => Ok(Scalar(one)),
                _ => err(GIVEN_TWICE),
            },
            Node::Branch(_) => err("expected a value, got a group of parameters (name.field=…)"),
        }
    }
}

/// The entries of a branch, as a serde map; `flatten` joins nested names into one key.
struct Entries<'de, 'a> {
    items: std::vec::IntoIter<(String, &'de Node<'a>)>,
    value: Option<&'de Node<'a>>,
}

impl<'de, 'a> Entries<'de, 'a> {
    fn new(m: &'de BTreeMap<&'a str, Node<'a>>, flatten: bool) -> Self {
        let mut items = Vec::new();
        collect(m, "", flatten, &mut items);
        Entries {
            items: items.into_iter(),
            value: None,
        }
    }
}

fn collect<'de, 'a>(
    m: &'de BTreeMap<&'a str, Node<'a>>,
    prefix: &str,
    flatten: bool,
    out: &mut Vec<(String, &'de Node<'a>)>,
) {
    for (k, node) in m {
        let key = crate::json::dotted(prefix, k);
        match node {
            Node::Branch(inner) if flatten => collect(inner, &key, true, out),
            _ => out.push((key, node)),
        }
    }
}

impl<'de, 'a: 'de> MapAccess<'de> for Entries<'de, 'a> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.items.next() {
            Some((k, node)) => {
                self.value = Some(node);
                let d: de::value::StringDeserializer<Error> = k.into_deserializer();
                seed.deserialize(d).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(node) => seed.deserialize(node),
            None => err("a value without a name"),
        }
    }
}

/// One query value, typed by what the field asks for.
#[derive(Debug, Clone, Copy)]
struct Scalar<'a>(&'a str);

impl<'de> IntoDeserializer<'de, Error> for Scalar<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> Scalar<'de> {
    /// A whole number: integer text, or a plain number whose exact value is whole (`1024.0`,
    /// `1e3`, as a JSON body reads numbers). Text whose exact value has a fraction
    /// (`1024.9999999999999999`) is refused, not read as a float that rounds to 1025.
    fn whole_number<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let s = self.0.trim();
        if let Ok(n) = s.parse::<u64>() {
            return v.visit_u64(n);
        }
        if let Ok(n) = s.parse::<i64>() {
            return v.visit_i64(n);
        }
        let Some(f) = plain_float(s) else {
            return v.visit_str(s);
        };
        let exact = if s.contains(['e', 'E']) {
            rust_decimal::Decimal::from_scientific(s)
        } else {
            rust_decimal::Decimal::from_str_exact(s)
        };
        match exact {
            Ok(d) if !d.fract().is_zero() => err(format!(
                "expected a whole number, got \"{}\"",
                s.chars().take(40).collect::<String>()
            )),
            // Whole, or beyond a decimal's 28 digits (then far beyond every bound): the field
            // reads it as the number it is.
            _ => v.visit_f64(f),
        }
    }

    fn number<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        let s = self.0.trim();
        if let Ok(n) = s.parse::<u64>() {
            v.visit_u64(n)
        } else if let Ok(n) = s.parse::<i64>() {
            v.visit_i64(n)
        } else if let Some(f) = plain_float(s) {
            v.visit_f64(f)
        } else {
            v.visit_str(s)
        }
    }
}

/// A float in plain notation (digits, one point, optional minus/exponent), nothing exotic:
/// `inf`, `NaN` and `1_000` are not numbers here.
fn plain_float(s: &str) -> Option<f64> {
    let ok = !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'-' | b'+' | b'e' | b'E'))
        && s.bytes().any(|b| b.is_ascii_digit());
    if !ok {
        return None;
    }
    s.parse::<f64>().ok().filter(|f| f.is_finite())
}

impl<'de> Deserializer<'de> for Scalar<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        v.visit_str(self.0.trim())
    }

    fn deserialize_bool<V: Visitor<'de>>(self, v: V) -> Result<V::Value, Error> {
        match self.0.trim().to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" => v.visit_bool(true),
            "false" | "0" | "no" => v.visit_bool(false),
            _ => err(format!(
                "expected true or false (also 1/0, yes/no), got \"{}\"",
                self.0.chars().take(40).collect::<String>()
            )),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        v: V,
    ) -> Result<V::Value, Error> {
        let d: StrDeserializer<'de, Error> = self.0.trim().into_deserializer();
        d.deserialize_enum(name, variants, v)
    }

    transparent_wrappers!();

    scalar_methods! {
        whole numbers:
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8
        deserialize_u16 deserialize_u32 deserialize_u64
    }

    scalar_methods! {
        numbers: deserialize_f32 deserialize_f64
    }

    serde::forward_to_deserialize_any! {
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Inner {
        years: Option<u32>,
        rate: Option<f64>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(deny_unknown_fields)]
    struct Outer {
        gpus: u32,
        on: Option<bool>,
        list: Option<Vec<String>>,
        economics: Option<Inner>,
        prices: Option<BTreeMap<String, String>>,
    }

    fn de(q: &[(&str, &str)]) -> Result<Outer, String> {
        let node = Node::build(q.iter().copied()).map_err(|c| format!("{c:?}"))?;
        serde_path_to_error::deserialize::<_, Outer>(&node)
            .map_err(|e| format!("{}: {}", e.path().clone(), e.into_inner()))
    }

    #[test]
    fn nests_types_and_lists() {
        let o = de(&[
            ("gpus", "1024"),
            ("on", "YES"),
            ("list", "a,b"),
            ("list", "c"),
            ("economics.years", "5"),
            ("economics.rate", "0.5"),
            ("prices.nvidia.qm9700", "1"),
            ("economics.rate", ""),
        ]);
        assert_eq!(
            o,
            Ok(Outer {
                gpus: 1024,
                on: Some(true),
                list: Some(vec!["a".into(), "b".into(), "c".into()]),
                economics: Some(Inner {
                    years: Some(5),
                    rate: Some(0.5)
                }),
                prices: Some([("nvidia.qm9700".to_string(), "1".to_string())].into()),
            })
        );
    }

    #[test]
    fn unknown_repeated_and_mistyped_are_errors_at_their_path() {
        let e = de(&[("gpus", "8"), ("economics.yeras", "3")]).unwrap_err();
        assert!(
            e.starts_with("economics.yeras:") && e.contains("unknown field `yeras`"),
            "{e}"
        );
        let e = de(&[("gpus", "8"), ("gpus", "9")]).unwrap_err();
        assert!(e.starts_with("gpus:") && e.contains(GIVEN_TWICE), "{e}");
        let e = de(&[("gpus", "abc")]).unwrap_err();
        assert!(e.starts_with("gpus:"), "{e}");
        let e = de(&[("gpus", "1_000")]).unwrap_err();
        assert!(e.starts_with("gpus:"), "{e}");
        assert!(Node::build([("a", "1"), ("a.b", "2")]).is_err());
    }
}
