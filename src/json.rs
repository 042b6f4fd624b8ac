//! Compact JSON written faster than `serde_json` writes it, byte for byte the same text.
//!
//! A plan's answer is ~32 KB of JSON, about half of it field names and text. `serde_json`
//! looks at every byte of every string, keys included, one at a time
//! (`format_escaped_str`: 22 % of building and encoding a plan in a profile of
//! `plan/1024_gpus_3_fabrics/build+json`), and `rust_decimal` writes each decimal a digit at a
//! time with a 96-bit division per digit (14 %). Here strings are scanned eight bytes at a time
//! for the three things JSON escapes (control characters, `"` and `\`), and
//! [`decimal`] writes a decimal through its integer mantissa.
//!
//! Everything but the string scan is `serde_json`'s own: numbers and escapes go through its
//! `CompactFormatter`, and any shape this writer does not take (a map key that is not text or an
//! integer, say) is written by `serde_json` itself. The tests in `json/tests.rs` hold the
//! output to `serde_json::to_vec` for plans, requests, every serde shape and every byte a string
//! can hold. One difference no derived or std `Serialize` can show: a hand-written one that
//! announces a length of 0 and then writes elements gets valid JSON here, where serde_json
//! closes the bracket at once.
//!
//! [`pick`] reads values at dotted paths of a serialised value without building its tree.

/// The associated types of a `serde::Serializer` whose arrays and objects are all `$c`.
macro_rules! compound_types {
    ($e:ty, $c:ty) => {
        type Ok = ();
        type Error = $e;
        type SerializeSeq = $c;
        type SerializeTuple = $c;
        type SerializeTupleStruct = $c;
        type SerializeTupleVariant = $c;
        type SerializeMap = $c;
        type SerializeStruct = $c;
        type SerializeStructVariant = $c;
    };
}

/// A newtype struct written as what it wraps (as `serde_json` writes it).
macro_rules! transparent_newtype {
    () => {
        fn serialize_newtype_struct<T: Serialize + ?Sized>(self, _: &'static str, v: &T) -> Done {
            v.serialize(self)
        }
    };
}

/// The seven `serde::Serializer` methods that start an array or object, each through `$open`
/// with `$variant` (an enum variant's name, for its content) and `$array` (array or object).
macro_rules! openers {
    ($e:ty, $c:ty, |$s:ident, $variant:ident, $array:ident| $open:expr) => {
        openers!(@ $e, $c, $s, $variant, $array, $open,
            serialize_seq(_len: Option<usize>) => (None, true);
            serialize_tuple(_len: usize) => (None, true);
            serialize_tuple_struct(_name: &'static str, _len: usize) => (None, true);
            serialize_tuple_variant(_name: &'static str, _i: u32, v: &'static str, _len: usize)
                => (Some(v), true);
            serialize_map(_len: Option<usize>) => (None, false);
            serialize_struct(_name: &'static str, _len: usize) => (None, false);
            serialize_struct_variant(_name: &'static str, _i: u32, v: &'static str, _len: usize)
                => (Some(v), false);
        );
    };
    (@ $e:ty, $c:ty, $s:ident, $variant:ident, $array:ident, $open:expr,
        $($f:ident($($arg:ident: $t:ty),*) => ($var:expr, $arr:expr);)*) => {
        $(fn $f(self, $($arg: $t),*) -> Result<$c, $e> {
            let ($s, $variant, $array): (Self, Option<&'static str>, bool) = (self, $var, $arr);
            $open
        })*
    };
}

/// `Serialize` for types shown as text (they implement `Display`): a JSON string written
/// straight into the output (`collect_str`), with no `String` in between.
macro_rules! serialized_as_text {
    ($($t:ty),*) => {$(
        impl serde::Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }
    )*};
}
pub(crate) use serialized_as_text;

mod pick;

pub use pick::pick;

use rust_decimal::Decimal;
use serde::ser::{self, Serialize, SerializeSeq, SerializeStruct};
use serde_json::ser::{CharEscape, CompactFormatter, Formatter};

/// `value` as compact JSON: the bytes `serde_json::to_vec` gives.
pub fn to_vec<T: Serialize + ?Sized>(value: &T) -> serde_json::Result<Vec<u8>> {
    to_vec_sized(value, 128)
}

/// [`to_vec`] into a buffer of `capacity` bytes to begin with: a large value written whole
/// (a 32 KB plan) is not copied a dozen times as its buffer doubles.
pub fn to_vec_sized<T: Serialize + ?Sized>(
    value: &T,
    capacity: usize,
) -> serde_json::Result<Vec<u8>> {
    let mut out = Vec::with_capacity(capacity);
    to_writer(&mut out, value)?;
    Ok(out)
}

/// Appends `value` as compact JSON to `out`: the bytes `serde_json::to_writer` appends. On an
/// error `out` is as it was.
pub fn to_writer<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> serde_json::Result<()> {
    let start = out.len();
    if write(out, value).is_ok() {
        return Ok(());
    }
    // A shape this writer leaves to serde_json, or the value's own error: serde_json answers.
    out.truncate(start);
    let r = serde_json::to_writer(&mut *out, value);
    if r.is_err() {
        out.truncate(start);
    }
    r
}

/// This writer alone: `Err` for a shape it leaves to serde_json (or the value's own error).
fn write<T: Serialize + ?Sized>(out: &mut Vec<u8>, value: &T) -> Done {
    value.serialize(&mut Writer { out })
}

/// `#[serde(serialize_with = "crate::json::decimal")]`: the text rust_decimal's `Serialize`
/// gives (`"-12.50"`: the sign, the digits, every place of the scale), written from the integer
/// mantissa in one pass instead of a 96-bit division per digit.
pub fn decimal<S: ser::Serializer>(d: &Decimal, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&decimal_text(d))
}

/// [`decimal`] for an optional decimal (`null` when absent).
pub fn opt_decimal<S: ser::Serializer>(d: &Option<Decimal>, s: S) -> Result<S::Ok, S::Error> {
    match d {
        Some(d) => decimal(d, s),
        None => s.serialize_none(),
    }
}

/// `prefix.key`, or `key` at the top level: an input's dotted name as the query form writes
/// it (`economics.gpu_hour_usd`).
pub fn dotted(prefix: &str, key: &str) -> String {
    if prefix.is_empty() {
        key.to_string()
    } else {
        format!("{prefix}.{key}")
    }
}

/// `d.to_string()`, written by [`decimal_text`].
pub fn decimal_string(d: &Decimal) -> String {
    decimal_text(d).to_string()
}

/// Longest decimal text: a sign, 29 digits of a 96-bit mantissa, a point and a leading zero.
pub const DECIMAL_TEXT: usize = 40;

/// The text of a decimal: [`DECIMAL_TEXT`] bytes on the stack.
pub type DecimalText = arrayvec::ArrayString<DECIMAL_TEXT>;

/// `d` as `Decimal::to_string` writes it, built from text pieces (the sign, itoa's digits, the
/// point, zeros), so no UTF-8 check of the result is needed (`str::from_utf8` of the whole
/// text was 6 % of a plan's JSON).
pub fn decimal_text(d: &Decimal) -> DecimalText {
    let mut digits = itoa::Buffer::new();
    let mantissa = d.mantissa().unsigned_abs();
    // A plan's amounts fit in 64 bits; their digits are then written without 128-bit division.
    let m = match u64::try_from(mantissa) {
        Ok(small) => digits.format(small),
        Err(_) => digits.format(mantissa),
    };
    let scale = d.scale() as usize;
    let mut text = DecimalText::new();
    // At most 31 bytes in all (a sign and "0." with 28 places, or a sign, 29 digits and a
    // point): every piece fits.
    let mut put = |piece: &str| {
        let _ = text.try_push_str(piece);
    };
    if d.is_sign_negative() {
        put("-");
    }
    match m.split_at_checked(m.len().saturating_sub(scale)) {
        Some((whole, frac)) if !whole.is_empty() => {
            put(whole);
            if scale > 0 {
                put(".");
                put(frac);
            }
        }
        _ => {
            const ZEROS: &str = "0000000000000000000000000000";
            put("0.");
            put(ZEROS.get(..scale - m.len()).unwrap_or_default());
            put(m);
        }
    }
    text
}

/// Why this writer hands a value to serde_json (never seen by a caller).
#[derive(Debug)]
struct Declined;

impl std::fmt::Display for Declined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("left to serde_json")
    }
}

impl std::error::Error for Declined {}

impl ser::Error for Declined {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Declined
    }
}

type Done = Result<(), Declined>;

struct Writer<'a> {
    out: &'a mut Vec<u8>,
}

/// Writing to a `Vec` cannot fail; the formatter's `io::Result` is always `Ok`.
fn io(r: std::io::Result<()>) -> Done {
    r.map_err(|_| Declined)
}

/// Lets through a word of eight bytes that holds no control character (< 0x20), `"` or `\`.
#[inline]
fn plain_word(w: u64) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero_byte = |v: u64| v.wrapping_sub(ONES) & !v & HIGH;
    // Bytes below 0x20 (a byte ≥ 0x80 is never flagged: `!w` clears its high bit).
    let control = w.wrapping_sub(ONES.wrapping_mul(0x20)) & !w & HIGH;
    let quote = zero_byte(w ^ ONES.wrapping_mul(u64::from(b'"')));
    let backslash = zero_byte(w ^ ONES.wrapping_mul(u64::from(b'\\')));
    control | quote | backslash == 0
}

/// How JSON writes byte `b` inside a string, if it must be escaped (serde_json's table).
#[inline]
fn escape_of(b: u8) -> Option<CharEscape> {
    Some(match b {
        b'"' => CharEscape::Quote,
        b'\\' => CharEscape::ReverseSolidus,
        0x08 => CharEscape::Backspace,
        0x09 => CharEscape::Tab,
        0x0a => CharEscape::LineFeed,
        0x0c => CharEscape::FormFeed,
        0x0d => CharEscape::CarriageReturn,
        0x00..=0x1f => CharEscape::AsciiControl(b),
        _ => return None,
    })
}

/// Bytes JSON escapes inside a string: control characters, `"` and `\\`.
static ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

/// Where the first byte of `bytes` that JSON escapes is: eight bytes at a time, then one by one
/// in the word that holds it and in the tail.
#[inline]
fn first_escaped(bytes: &[u8]) -> Option<usize> {
    let words = bytes.chunks_exact(8);
    let tail = words.remainder();
    for (n, w) in words.enumerate() {
        let mut word = [0u8; 8];
        word.copy_from_slice(w);
        // A flagged word is searched byte by byte; were the predicate ever to flag a word
        // with nothing to escape, the scan goes on rather than ending (and copying the rest raw).
        if !plain_word(u64::from_ne_bytes(word))
            && let Some(p) = w.iter().position(|&b| ESCAPED[usize::from(b)])
        {
            return Some(n * 8 + p);
        }
    }
    let at = bytes.len() - tail.len();
    tail.iter()
        .position(|&b| ESCAPED[usize::from(b)])
        .map(|p| at + p)
}

/// `s` as a JSON string, quotes included.
#[inline]
fn write_str(out: &mut Vec<u8>, s: &str) -> Done {
    out.reserve(s.len() + 2);
    out.push(b'"');
    write_text(out, s)?;
    out.push(b'"');
    Ok(())
}

/// An object's key: `open` (`"`, or `,"` after another entry), `key` escaped, then `":`, in
/// as few writes as it takes.
#[inline]
fn write_key(out: &mut Vec<u8>, open: &[u8], key: &str) -> Done {
    out.reserve(key.len() + 4);
    out.extend_from_slice(open);
    write_text(out, key)?;
    out.extend_from_slice(b"\":");
    Ok(())
}

/// `s` escaped, without quotes. Decimals, enum names, SKUs, map keys and variant names are
/// short and plain: written without a call into the scan.
#[inline(always)]
fn write_text(out: &mut Vec<u8>, s: &str) -> Done {
    if short_and_plain(s.as_bytes()) {
        out.extend_from_slice(s.as_bytes());
        Ok(())
    } else {
        write_escaped(out, s)
    }
}

/// A struct field's name, from `#[derive(Serialize)]`: a snake_case identifier in every type
/// this crate writes (every schema's property names are checked by a test, and each name here
/// in debug builds), so it is written without the escape scan. Tried and not kept: the same for
/// enum variants' names (as strings and as keys), +0.3 to +0.7 % instructions for a plan's JSON
/// against this alone, as LLVM inlined differently.
#[inline]
fn write_name_key(out: &mut Vec<u8>, open: &[u8], name: &'static str) -> Done {
    debug_assert!(
        name.bytes().all(|b| !ESCAPED[usize::from(b)]),
        "field name {name:?} needs escaping"
    );
    out.reserve(name.len() + 4);
    out.extend_from_slice(open);
    out.extend_from_slice(name.as_bytes());
    out.extend_from_slice(b"\":");
    Ok(())
}

/// True when `bytes` is at most 32 bytes long and holds nothing JSON escapes: a word test at
/// every eighth byte and one on the last eight (overlapping the one before when the length is
/// not a multiple of 8), or a byte loop under 8 bytes.
#[inline]
fn short_and_plain(bytes: &[u8]) -> bool {
    let word = |at: usize| {
        bytes
            .get(at..at.saturating_add(8))
            .and_then(|w| <[u8; 8]>::try_from(w).ok())
            .is_some_and(|w| plain_word(u64::from_ne_bytes(w)))
    };
    match bytes.len() {
        0..8 => bytes.iter().all(|&b| !ESCAPED[usize::from(b)]),
        n @ 8..=32 => (0..n - 8).step_by(8).all(word) && word(n - 8),
        _ => false,
    }
}

/// `s` escaped as inside a JSON string, without quotes.
#[inline]
fn write_escaped(out: &mut Vec<u8>, s: &str) -> Done {
    let mut rest = s.as_bytes();
    while let Some(p) = first_escaped(rest) {
        let (run, from) = rest.split_at(p);
        out.extend_from_slice(run);
        let (&b, after) = from.split_first().ok_or(Declined)?;
        io(CompactFormatter.write_char_escape(out, escape_of(b).ok_or(Declined)?))?;
        rest = after;
    }
    out.extend_from_slice(rest);
    Ok(())
}

/// A `Display` value written as a JSON string's content, escaped as it is formatted: no
/// intermediate `String` (serde's default `collect_str` formats into one first).
struct Escaping<'o> {
    out: &'o mut Vec<u8>,
}

impl std::fmt::Write for Escaping<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        if short_and_plain(s.as_bytes()) {
            self.out.extend_from_slice(s.as_bytes());
            return Ok(());
        }
        write_escaped(self.out, s).map_err(|_| std::fmt::Error)
    }
}

/// An array or object being written: whether an element has been written yet.
struct Compound<'w, 'a> {
    w: &'w mut Writer<'a>,
    first: bool,
    /// Closing bytes: `]`, `}`, or `]}` / `}}` for an enum variant's content.
    close: &'static [u8],
}

impl<'w, 'a> Compound<'w, 'a> {
    /// Starts an array (`array`) or object, inside `{"variant":` for an enum variant's content.
    fn open(
        w: &'w mut Writer<'a>,
        variant: Option<&'static str>,
        array: bool,
    ) -> Result<Self, Declined> {
        if let Some(v) = variant {
            write_key(w.out, b"{\"", v)?;
        }
        w.out.push(if array { b'[' } else { b'{' });
        let close: &'static [u8] = match (array, variant.is_some()) {
            (true, false) => b"]",
            (true, true) => b"]}",
            (false, false) => b"}",
            (false, true) => b"}}",
        };
        Ok(Compound {
            w,
            first: true,
            close,
        })
    }

    fn comma(&mut self) {
        if !std::mem::take(&mut self.first) {
            self.w.out.push(b',');
        }
    }

    /// What opens the next key: `"`, or `,"` after another entry.
    fn key_opening(&mut self) -> &'static [u8] {
        if std::mem::take(&mut self.first) {
            b"\""
        } else {
            b",\""
        }
    }

    fn end(self) -> Done {
        self.w.out.extend_from_slice(self.close);
        Ok(())
    }
}

/// The ten integer methods of a `serde::Serializer`, each with its `CompactFormatter` writer,
/// listed once for `$m` to implement (`numbers` for values, `integer_keys` for map keys): a
/// method left out would compile (serde has defaults for 128 bits) and fail at run time.
macro_rules! integer_methods {
    ($m:ident) => {
        $m!(
            serialize_i8 i8 => write_i8, serialize_i16 i16 => write_i16,
            serialize_i32 i32 => write_i32, serialize_i64 i64 => write_i64,
            serialize_i128 i128 => write_i128, serialize_u8 u8 => write_u8,
            serialize_u16 u16 => write_u16, serialize_u32 u32 => write_u32,
            serialize_u64 u64 => write_u64, serialize_u128 u128 => write_u128,
        );
    };
}

macro_rules! numbers {
    ($($f:ident $t:ty => $write:ident),* $(,)?) => {
        $(fn $f(self, v: $t) -> Done {
            io(CompactFormatter.$write(self.out, v))
        })*
    };
}

impl<'w, 'a> ser::Serializer for &'w mut Writer<'a> {
    compound_types!(Declined, Compound<'w, 'a>);

    transparent_newtype!();

    integer_methods!(numbers);

    fn serialize_bool(self, v: bool) -> Done {
        io(CompactFormatter.write_bool(self.out, v))
    }

    fn serialize_f32(self, v: f32) -> Done {
        if v.is_finite() {
            io(CompactFormatter.write_f32(self.out, v))
        } else {
            self.serialize_unit()
        }
    }

    fn serialize_f64(self, v: f64) -> Done {
        if v.is_finite() {
            io(CompactFormatter.write_f64(self.out, v))
        } else {
            self.serialize_unit()
        }
    }

    fn serialize_char(self, v: char) -> Done {
        write_str(self.out, v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Done {
        write_str(self.out, v)
    }

    fn collect_str<T: std::fmt::Display + ?Sized>(self, v: &T) -> Done {
        use std::fmt::Write;
        self.out.push(b'"');
        write!(Escaping { out: self.out }, "{v}").map_err(|_| Declined)?;
        self.out.push(b'"');
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Done {
        let mut seq = self.serialize_seq(Some(v.len()))?;
        v.iter().try_for_each(|b| seq.serialize_element(b))?;
        SerializeSeq::end(seq)
    }

    fn serialize_none(self) -> Done {
        self.serialize_unit()
    }

    fn serialize_some<T: Serialize + ?Sized>(self, v: &T) -> Done {
        v.serialize(self)
    }

    fn serialize_unit(self) -> Done {
        self.out.extend_from_slice(b"null");
        Ok(())
    }

    fn serialize_unit_struct(self, _: &'static str) -> Done {
        self.serialize_unit()
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Done {
        write_str(self.out, variant)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        variant: &'static str,
        v: &T,
    ) -> Done {
        write_key(self.out, b"{\"", variant)?;
        v.serialize(&mut *self)?;
        self.out.push(b'}');
        Ok(())
    }

    openers!(Declined, Compound<'w, 'a>, |w, variant, array| {
        Compound::open(w, variant, array)
    });
}

impl ser::SerializeSeq for Compound<'_, '_> {
    type Ok = ();
    type Error = Declined;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, v: &T) -> Done {
        self.comma();
        v.serialize(&mut *self.w)
    }

    fn end(self) -> Done {
        Compound::end(self)
    }
}

/// The compound traits that write as another does: a tuple's elements and fields as a
/// sequence's elements, a struct variant's fields as a struct's.
macro_rules! written_as {
    ($($t:ident::$m:ident($($key:ident)?) => $via:ident::$vm:ident;)*) => {
        $(impl ser::$t for Compound<'_, '_> {
            type Ok = ();
            type Error = Declined;

            fn $m<T: Serialize + ?Sized>(&mut self, $($key: &'static str,)? v: &T) -> Done {
                $via::$vm(self, $($key,)? v)
            }

            fn end(self) -> Done {
                Compound::end(self)
            }
        })*
    };
}

written_as! {
    SerializeTuple::serialize_element() => SerializeSeq::serialize_element;
    SerializeTupleStruct::serialize_field() => SerializeSeq::serialize_element;
    SerializeTupleVariant::serialize_field() => SerializeSeq::serialize_element;
    SerializeStructVariant::serialize_field(key) => SerializeStruct::serialize_field;
}

impl ser::SerializeMap for Compound<'_, '_> {
    type Ok = ();
    type Error = Declined;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, k: &T) -> Done {
        let open = self.key_opening();
        k.serialize(Key {
            out: &mut *self.w.out,
            open,
        })
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, v: &T) -> Done {
        v.serialize(&mut *self.w)
    }

    fn end(self) -> Done {
        Compound::end(self)
    }
}

impl ser::SerializeStruct for Compound<'_, '_> {
    type Ok = ();
    type Error = Declined;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, v: &T) -> Done {
        let open = self.key_opening();
        write_name_key(self.w.out, open, key)?;
        v.serialize(&mut *self.w)
    }

    fn end(self) -> Done {
        Compound::end(self)
    }
}

/// A map key: text, or an integer in quotes, as serde_json writes them, after `open` and
/// followed by `:`; any other key is left to serde_json.
struct Key<'a> {
    out: &'a mut Vec<u8>,
    open: &'static [u8],
}

macro_rules! integer_keys {
    ($($f:ident $t:ty => $write:ident),* $(,)?) => {
        $(fn $f(self, v: $t) -> Done {
            self.out.extend_from_slice(self.open);
            io(CompactFormatter.$write(self.out, v))?;
            self.out.extend_from_slice(b"\":");
            Ok(())
        })*
    };
}

macro_rules! declined {
    ($($f:ident($($t:ty),*)),* $(,)?) => {
        $(fn $f(self, $(_: $t),*) -> Done {
            Err(Declined)
        })*
    };
}

impl ser::Serializer for Key<'_> {
    compound_types!(Declined, ser::Impossible<(), Declined>);

    transparent_newtype!();

    integer_methods!(integer_keys);

    declined!(
        serialize_bool(bool),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_bytes(&[u8]),
        serialize_none(),
        serialize_unit(),
        serialize_unit_struct(&'static str),
    );

    fn serialize_char(self, v: char) -> Done {
        write_key(self.out, self.open, v.encode_utf8(&mut [0; 4]))
    }

    fn serialize_str(self, v: &str) -> Done {
        write_key(self.out, self.open, v)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Done {
        Err(Declined)
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, variant: &'static str) -> Done {
        write_key(self.out, self.open, variant)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Done {
        Err(Declined)
    }

    openers!(Declined, ser::Impossible<(), Declined>, |_key, _variant, _array| Err(Declined));
}

#[cfg(test)]
mod tests;
