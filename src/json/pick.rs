//! Values at dotted paths of a serialised value, without its whole JSON tree.
//!
//! A plan's CSV row reads 37 figures of a fabric's result by JSON path (`capex.total_usd`,
//! `topology.links.node_leaf`). Converting the fabric to a `serde_json::Value` first builds
//! every string and map of it, bill of materials included, to throw nearly all of it away:
//! the CSV of a plan nobody asked for before cost more service CPU than its JSON. [`pick`]
//! walks the value as serde serialises it, goes only into the parts on the way to a path and
//! converts only what it finds.

use serde::ser::{self, Serialize, SerializeMap, Serializer};
use serde_json::{Error, Value};

/// What `serde_json::to_value(value)` has at each of `paths` (dotted, an array's elements by
/// index, as `table::csv::dig` reads a tree): `None` where there is nothing. An error where
/// `to_value` would fail on a part the walk reaches. (Were a map to repeat a key, the tree
/// keeps the last member whole; this keeps what each path found last.)
pub fn pick<T: Serialize + ?Sized>(value: &T, paths: &[&str]) -> Result<Vec<Option<Value>>, Error> {
    let mut out = vec![None; paths.len()];
    value.serialize(Picker {
        paths,
        live: (0..paths.len()).map(|i| Live::at(paths, i, 0)).collect(),
        out: &mut out,
    })?;
    Ok(out)
}

/// Serialises a value on the way to some of the paths: `live` holds each such path's index and
/// where, in it, what lies below this value starts.
struct Picker<'p, 'o> {
    paths: &'p [&'p str],
    live: Vec<Live<'p>>,
    out: &'o mut [Option<Value>],
}

/// Path `i` from byte `from` on: its first segment there (up to its first dot) and where the
/// part below that segment starts (`None`: the path ends with it). Found once per path and
/// level, not once per member the level has.
#[derive(Clone, Copy)]
struct Live<'p> {
    i: usize,
    segment: &'p str,
    below: Option<usize>,
}

impl<'p> Live<'p> {
    fn at(paths: &[&'p str], i: usize, from: usize) -> Live<'p> {
        let rest = paths.get(i).and_then(|p| p.get(from..)).unwrap_or_default();
        match rest.split_once('.') {
            Some((segment, _)) => Live {
                i,
                segment,
                below: Some(from + segment.len() + 1),
            },
            None => Live {
                i,
                segment: rest,
                below: None,
            },
        }
    }
}

/// How a path's segment names a member: an object's by its key, an array's by a segment that
/// parses as its index (as `dig` reads it: `01` and `+1` are element 1).
#[derive(Clone, Copy)]
enum Step<'k> {
    Key(&'k str),
    Index(usize),
}

impl Step<'_> {
    /// Whether `segment` (a path's segment, without dots) names this member; a key with a
    /// dot never does.
    fn names(self, segment: &str) -> bool {
        match self {
            Step::Key(k) => segment == k,
            Step::Index(i) => segment.parse::<usize>() == Ok(i),
        }
    }
}

impl<'p, 'o> Picker<'p, 'o> {
    /// When `l`'s segment names `key`: where in the path the member's own part starts (past
    /// the segment and its dot), `None` when the path ends at the member.
    fn past(l: Live<'_>, key: Step<'_>) -> Option<Option<usize>> {
        key.names(l.segment).then_some(l.below)
    }

    /// `v`, this value's member `key` or element `key`: its JSON for every path that ends
    /// there, and a walk into it for the paths that go further.
    fn visit<T: Serialize + ?Sized>(&mut self, key: Step<'_>, v: &T) -> Result<(), Error> {
        let mut further = Vec::new();
        // The first path that ends here gets the member's JSON; any other, a copy of it.
        let mut first: Option<usize> = None;
        for &l in &self.live {
            match Self::past(l, key) {
                Some(None) => {
                    let value = match first {
                        Some(f) => self.out.get(f).cloned().flatten(),
                        None => Some(serde_json::to_value(v)?),
                    };
                    if let Some(slot) = self.out.get_mut(l.i) {
                        *slot = value;
                        first.get_or_insert(l.i);
                    }
                }
                Some(Some(below)) => further.push(Live::at(self.paths, l.i, below)),
                None => {}
            }
        }
        if !further.is_empty() {
            v.serialize(Picker {
                paths: self.paths,
                live: further,
                out: &mut *self.out,
            })?;
        }
        Ok(())
    }

    /// An array or object, or an enum variant's content (serde_json writes it as
    /// `{"variant": …}`: the paths that go through `variant`).
    fn open(self, variant: Option<&str>) -> Result<Members<'p, 'o>, Error> {
        let live = match variant {
            None => self.live,
            Some(name) => self
                .live
                .iter()
                .filter_map(|&l| match Self::past(l, Step::Key(name)) {
                    Some(Some(below)) => Some(Live::at(self.paths, l.i, below)),
                    _ => None,
                })
                .collect(),
        };
        Ok(Members {
            picker: Picker { live, ..self },
            index: 0,
            key: None,
        })
    }
}

/// A map key as `serde_json::to_value` turns it into text: through serde_json itself, as the
/// only key of a one-member map.
fn key_text<K: Serialize + ?Sized>(key: &K) -> Result<String, Error> {
    struct One<'k, K: ?Sized>(&'k K);
    impl<K: Serialize + ?Sized> Serialize for One<'_, K> {
        fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
            let mut m = s.serialize_map(Some(1))?;
            m.serialize_entry(self.0, &())?;
            m.end()
        }
    }
    match serde_json::to_value(One(key))? {
        Value::Object(m) => Ok(m.into_iter().next().map(|(k, _)| k).unwrap_or_default()),
        _ => Err(ser::Error::custom("key must be a string")),
    }
}

/// The elements or members of an array or object being walked.
struct Members<'p, 'o> {
    picker: Picker<'p, 'o>,
    /// The next element's index (arrays).
    index: usize,
    /// The key whose value comes next (maps).
    key: Option<String>,
}

impl Members<'_, '_> {
    fn element<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let at = self.index;
        self.index = self.index.saturating_add(1);
        self.picker.visit(Step::Index(at), v)
    }

    fn member<T: Serialize + ?Sized>(&mut self, key: &str, v: &T) -> Result<(), Error> {
        self.picker.visit(Step::Key(key), v)
    }
}

/// The scalars: nothing below them.
macro_rules! leaves {
    ($($f:ident($($t:ty),*)),* $(,)?) => {
        $(fn $f(self, $(_: $t),*) -> Result<(), Error> {
            Ok(())
        })*
    };
}

impl<'p, 'o> ser::Serializer for Picker<'p, 'o> {
    compound_types!(Error, Members<'p, 'o>);

    leaves!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_i128(i128),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u32(u32),
        serialize_u64(u64),
        serialize_u128(u128),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
        serialize_unit_variant(&'static str, u32, &'static str),
    );

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Result<(), Error> {
        v.serialize(self)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        v.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        mut self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Result<(), Error> {
        self.visit(Step::Key(variant), v)
    }

    openers!(Error, Members<'p, 'o>, |picker, variant, _array| picker
        .open(variant));
}

/// The compound traits: elements by index, members by key.
macro_rules! walked {
    ($($t:ident::$m:ident($($key:ident)?) => $how:ident;)*) => {
        $(impl ser::$t for Members<'_, '_> {
            type Ok = ();
            type Error = Error;

            fn $m<T: Serialize + ?Sized>(&mut self, $($key: &'static str,)? v: &T) -> Result<(), Error> {
                self.$how($($key,)? v)
            }

            fn end(self) -> Result<(), Error> {
                Ok(())
            }
        })*
    };
}

walked! {
    SerializeSeq::serialize_element() => element;
    SerializeTuple::serialize_element() => element;
    SerializeTupleStruct::serialize_field() => element;
    SerializeTupleVariant::serialize_field() => element;
    SerializeStruct::serialize_field(key) => member;
    SerializeStructVariant::serialize_field(key) => member;
}

impl ser::SerializeMap for Members<'_, '_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Result<(), Error> {
        self.key = Some(key_text(k)?);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Result<(), Error> {
        let key = self.key.take().unwrap_or_default();
        self.member(&key, v)
    }

    fn end(self) -> Result<(), Error> {
        Ok(())
    }
}
