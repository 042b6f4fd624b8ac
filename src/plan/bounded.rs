//! Bounded input types: each numeric plan input is declared once, as a newtype that carries its
//! representation, unit, bounds, default and doc. From that one declaration come
//!
//! - parsing ("parse, don't validate"): a JSON body, a query string and a sweep point all go
//!   through the type's `Deserialize`, which refuses out-of-range values, wrong types and (for
//!   decimals) anything but plain decimal syntax, with a message in the user's terms;
//! - the OpenAPI schema (`ToSchema`: type, minimum, maximum, default, description with the unit),
//!   which the body schema, the GET query parameters, the sweep axes and the uncertainty
//!   analysis' inputs are all read from (`crate::plan::registry`).
//!
//! Adding a numeric input = one `bounded_*!` declaration and one field that uses it.

use rust_decimal::Decimal;

/// Marks an out-of-range value in a deserialisation message (the API maps it to code `range`).
pub const OUT_OF_RANGE: &str = "out of range: ";
/// Marks an input given twice in a deserialisation message (the API maps it to code
/// `duplicate_key`, as a key repeated in a JSON object).
pub const REPEATED: &str = "repeated: ";

/// Plain decimal syntax: optional minus, digits, optional fraction (`"0.085"`, `"1000"`), held
/// exactly. Refuses what `Decimal::from_str` would also take: `_` separators, exponents, `+`,
/// spaces, and text it would round to 28 digits (`"1000.00000000000000000000000001"` would
/// become 1000 and pass a range that refuses it).
pub fn strict_decimal(s: &str) -> Option<Decimal> {
    let body = s.strip_prefix('-').unwrap_or(s);
    let (int, frac) = match body.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (body, None),
    };
    let digits = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit());
    if !digits(int) || frac.is_some_and(|f| !digits(f)) || body.len() > 40 {
        return None;
    }
    Decimal::from_str_exact(s).ok()
}

/// A JSON number as a decimal: integers exactly, floats by their shortest round-trip text.
pub fn decimal_from_f64(v: f64) -> Option<Decimal> {
    if !v.is_finite() {
        return None;
    }
    strict_decimal(&format!("{v}")).or_else(|| Decimal::from_scientific(&format!("{v:e}")).ok())
}

/// Builds the JSON schema of a bounded input.
pub fn number_schema(
    integer: bool,
    decimal: bool,
    min: f64,
    max: f64,
    max_exclusive: bool,
    default: Option<f64>,
    description: &str,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    let ty = if integer {
        SchemaType::new(Type::Integer)
    } else if decimal {
        SchemaType::from_iter([Type::String, Type::Number])
    } else {
        SchemaType::new(Type::Number)
    };
    let mut b = ObjectBuilder::new()
        .schema_type(ty)
        .description(Some(description.trim().to_string()))
        .minimum(Some(min));
    b = if max_exclusive {
        b.exclusive_maximum(Some(max))
    } else {
        b.maximum(Some(max))
    };
    if decimal {
        // A negative text only where the range has negatives (a schema validator then refuses
        // "-5" for a price, as the service does).
        b = b.pattern(Some(if min < 0.0 {
            r"^-?[0-9]+(\.[0-9]+)?$"
        } else {
            r"^[0-9]+(\.[0-9]+)?$"
        }));
    }
    if let Some(d) = default {
        b = b.default(Some(if integer {
            serde_json::Value::from(d as i64)
        } else if decimal {
            decimal_from_f64(d).map_or(serde_json::Value::Null, |x| x.to_string().into())
        } else {
            serde_json::Value::from(d)
        }));
    }
    b.into()
}

/// The OpenAPI impls of a bounded type: its schema (the block) under its own name.
macro_rules! bounded_schema {
    ($name:ident, $schema:block) => {
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> $schema
        }

        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                std::borrow::Cow::Borrowed(stringify!($name))
            }
        }
    };
}

/// A bounded input's `Deserialize`: a visitor that expects the input's range (its
/// `range_text`) and has the given `visit_*` methods, entered through `deserialize_*`.
#[doc(hidden)]
macro_rules! bounded_deserialize {
    ($name:ident, $entry:ident, { $($visit:item)* }) => {
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str(&$name::range_text())
                    }
                    $($visit)*
                }
                d.$entry(V)
            }
        }
    };
}

/// `v`, with `-0.0` as `0.0`: one input, one text in a plan's `inputs` and one plan id.
pub fn plain_zero(v: f64) -> f64 {
    if v == 0.0 { 0.0 } else { v }
}

/// The error of a value outside its input's range (`range`: the input's `range_text`).
/// A number as an error message echoes it: plain up to 10^15, else in exponent form (`1e308`,
/// not its 309 digits; `1.8446744073709552e19` for 2^64).
pub fn number_text(v: f64) -> String {
    if v.abs() < 1e15 {
        format!("{v}")
    } else {
        format!("{v:e}")
    }
}

pub fn out_of_range<E: serde::de::Error>(range: String, got: impl std::fmt::Display) -> E {
    E::custom(format!("{OUT_OF_RANGE}must be {range} (got {got})"))
}

/// What a bounded integer and a bounded float input declare alike: bounds, unit, `get`,
/// `echo` and the schema with its default (`integer`: the schema's type).
#[doc(hidden)]
macro_rules! bounded_number {
    ($name:ident: $t:ty, $integer:literal, $min:literal, $max:literal, $unit:literal, [$($doc:literal)*] $(, $def:literal, $in_schema:literal)?) => {
        impl $name {
            pub const MIN: $t = $min;
            pub const MAX: $t = $max;
            pub const UNIT: &'static str = $unit;
            $(
                /// The declared default.
                pub const DEFAULT: $t = $def as $t;
            )?
            /// The value.
            pub fn get(self) -> $t {
                self.0
            }
            /// A resolved value (a default or a catalog figure) echoed in a plan's `inputs`.
            pub fn echo(v: $t) -> $name {
                $name(v)
            }
        }

        $crate::plan::bounded::bounded_schema!($name, {
                #[allow(unused_mut, unused_assignments)]
                let mut default: Option<f64> = None;
                // A default that depends on other inputs (a workload preset) is the model's
                // alone: written in the field's description, not as the schema's `default`,
                // which Swagger UI would send as if the user had chosen it (audit 20).
                $(if $in_schema { default = Some($def as f64); })?
                #[allow(clippy::unnecessary_cast)]
                let (min, max) = ($name::MIN as f64, $name::MAX as f64);
                $crate::plan::bounded::number_schema(
                    $integer, false, min, max, false, default,
                    &format!("{} Unit: {}. Range {}–{}.", concat!($($doc),*), $unit, $name::MIN, $name::MAX),
                )
        });
    };
}

/// An integer input's `Default`: its declared default (`default N` or `model_default N`), if
/// any.
macro_rules! bounded_default {
    ($name:ident) => {};
    ($name:ident, $def:literal) => {
        impl Default for $name {
            /// The declared default.
            fn default() -> $name {
                $name($def)
            }
        }
    };
}

/// Declares a bounded integer input: `bounded_int!(/// doc \n Years: u32, 1..=15, "years", default 5);`
macro_rules! bounded_int {
    ($(#[doc = $doc:literal])* $name:ident: $t:ty, $min:literal ..= $max:literal, $unit:literal $(, default $def:literal)? $(, model_default $mdef:literal)?) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name($t);

        $crate::plan::bounded::bounded_number!($name: $t, true, $min, $max, $unit, [$($doc)*] $(, $def, true)? $(, $mdef, false)?);

        $crate::plan::bounded::bounded_default!($name $(, $def)? $(, $mdef)?);

        impl $name {
            /// The value if it is within bounds.
            pub fn new(v: $t) -> Option<$name> {
                (Self::MIN..=Self::MAX).contains(&v).then_some($name(v))
            }
            fn range_text() -> String {
                format!("a whole number from {} to {} ({})", Self::MIN, Self::MAX, Self::UNIT)
            }
        }

        $crate::plan::bounded::bounded_deserialize!($name, deserialize_u64, {
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<$name, E> {
                <$t>::try_from(v)
                    .ok()
                    .and_then($name::new)
                    .ok_or_else(|| $crate::plan::bounded::out_of_range($name::range_text(), v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<$name, E> {
                match u64::try_from(v) {
                    Ok(u) => self.visit_u64(u),
                    Err(_) => Err($crate::plan::bounded::out_of_range($name::range_text(), v)),
                }
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<$name, E> {
                // `u64::MAX as f64` is 2^64, one past `u64::MAX`: `<`, or 2^64 saturated to
                // u64::MAX and was echoed as a number the request never gave (#44). Floats
                // are echoed as `number_text` writes them (`1e308`, not 309 digits).
                if v.is_finite() && v.fract() == 0.0 && v >= 0.0 && v < u64::MAX as f64 {
                    self.visit_u64(v as u64)
                } else if v.is_finite() && v.fract() == 0.0 && v > 0.0 {
                    Err($crate::plan::bounded::out_of_range($name::range_text(), $crate::plan::bounded::number_text(v)))
                } else {
                    Err(E::custom(format!("expected {}, got the number {}", $name::range_text(), $crate::plan::bounded::number_text(v))))
                }
            }
        });

    };
}

/// Declares a bounded floating-point input (`f64`).
macro_rules! bounded_float {
    ($(#[doc = $doc:literal])* $name:ident, $min:literal ..= $max:literal, $unit:literal $(, default $def:literal)? $(, model_default $mdef:literal)?) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, PartialOrd, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(f64);

        $crate::plan::bounded::bounded_number!($name: f64, false, $min, $max, $unit, [$($doc)*] $(, $def, true)? $(, $mdef, false)?);

        impl $name {
            /// The value if it is finite and within bounds; `-0.0` is `0.0` (`bounded::plain_zero`).
            pub fn new(v: f64) -> Option<$name> {
                let v = $crate::plan::bounded::plain_zero(v);
                (v.is_finite() && (Self::MIN..=Self::MAX).contains(&v)).then_some($name(v))
            }
            fn range_text() -> String {
                format!("a number from {} to {} ({})", Self::MIN, Self::MAX, Self::UNIT)
            }
        }

        $crate::plan::bounded::bounded_deserialize!($name, deserialize_f64, {
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<$name, E> {
                $name::new(v).ok_or_else(|| $crate::plan::bounded::out_of_range($name::range_text(), v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<$name, E> {
                self.visit_f64(v as f64)
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<$name, E> {
                self.visit_f64(v as f64)
            }
        });

    };
}

/// Declares a bounded exact-decimal input (money, rates): a decimal string (`"0.085"`) or a
/// JSON number; `max_exclusive` makes the upper bound open (discounts below 1).
macro_rules! bounded_decimal {
    ($(#[doc = $doc:literal])* $name:ident, $min:literal ..= $max:literal, $unit:literal) => {
        $crate::plan::bounded::bounded_decimal!(@ $(#[doc = $doc])* $name, $min, $max, false, $unit);
    };
    ($(#[doc = $doc:literal])* $name:ident, $min:literal ..< $max:literal, $unit:literal) => {
        $crate::plan::bounded::bounded_decimal!(@ $(#[doc = $doc])* $name, $min, $max, true, $unit);
    };
    (@ $(#[doc = $doc:literal])* $name:ident, $min:literal, $max:literal, $excl:literal, $unit:literal) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
        #[serde(transparent)]
        pub struct $name(
            #[serde(serialize_with = "crate::json::decimal")] rust_decimal::Decimal,
        );

        impl $name {
            pub const UNIT: &'static str = $unit;
            pub const MIN_I64: i64 = $min;
            pub const MAX_I64: i64 = $max;
            pub const MAX_EXCLUSIVE: bool = $excl;
            pub fn get(self) -> rust_decimal::Decimal {
                self.0
            }
            pub fn new(v: rust_decimal::Decimal) -> Option<$name> {
                let lo = rust_decimal::Decimal::from(Self::MIN_I64);
                let hi = rust_decimal::Decimal::from(Self::MAX_I64);
                let ok = v >= lo && if Self::MAX_EXCLUSIVE { v < hi } else { v <= hi };
                ok.then_some($name(v))
            }
            /// A resolved value (a default or a catalog figure) echoed in a plan's `inputs`,
            /// normalized (`0.0850` → `0.085`).
            pub fn echo(v: rust_decimal::Decimal) -> $name {
                $name(v.normalize())
            }
            fn range_text() -> String {
                let close = if Self::MAX_EXCLUSIVE { "to below" } else { "to" };
                format!("a decimal from {} {close} {} ({})", Self::MIN_I64, Self::MAX_I64, Self::UNIT)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl V {
                    fn check<E: serde::de::Error>(v: rust_decimal::Decimal) -> Result<$name, E> {
                        $name::new(v).ok_or_else(|| $crate::plan::bounded::out_of_range($name::range_text(), v))
                    }
                }
                impl<'de> serde::de::Visitor<'de> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                        f.write_str(&$name::range_text())
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        match $crate::plan::bounded::strict_decimal(v.trim()) {
                            Some(d) => V::check(d),
                            None => Err(E::custom(format!(
                                "expected {} in plain decimal notation (\"0.085\", \"1000\"; no exponent or separators, at most 28 digits), got \"{}\"",
                                $name::range_text(), v.chars().take(40).collect::<String>()
                            ))),
                        }
                    }
                    fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<$name, E> {
                        match $crate::plan::bounded::decimal_from_f64(v) {
                            Some(d) => V::check(d),
                            None => Err(E::custom(format!("expected {}, got the number {}", $name::range_text(), $crate::plan::bounded::number_text(v)))),
                        }
                    }
                    fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<$name, E> {
                        V::check(rust_decimal::Decimal::from(v))
                    }
                    fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<$name, E> {
                        V::check(rust_decimal::Decimal::from(v))
                    }
                }
                d.deserialize_any(V)
            }
        }

        $crate::plan::bounded::bounded_schema!($name, {
                let close = if $excl { "to below" } else { "to" };
                $crate::plan::bounded::number_schema(
                    false, true, $min as f64, $max as f64, $excl, None,
                    &format!("{} Unit: {}. Range {} {close} {}; a decimal string (\"0.085\") or a number.", concat!($($doc),*), $unit, $min, $max),
                )
        });
    };
}

/// Declares the bounded inputs as a table, one line each: `int`, `float` or `decimal`, then what
/// [`bounded_int!`], [`bounded_float!`] or [`bounded_decimal!`] takes, then `;`:
/// `bounded_inputs! { /// TCO horizon. \n int Years: u32, 1..=15, "years", default 5; }`.
macro_rules! bounded_inputs {
    () => {};
    ($(#[doc = $doc:literal])* int $name:ident: $t:ty, $min:literal ..= $max:literal, $unit:literal $(, default $def:literal)? $(, model_default $mdef:literal)?; $($rest:tt)*) => {
        $crate::plan::bounded::bounded_int!($(#[doc = $doc])* $name: $t, $min..=$max, $unit $(, default $def)? $(, model_default $mdef)?);
        $crate::plan::bounded::bounded_inputs!($($rest)*);
    };
    ($(#[doc = $doc:literal])* float $name:ident, $min:literal ..= $max:literal, $unit:literal $(, default $def:literal)? $(, model_default $mdef:literal)?; $($rest:tt)*) => {
        $crate::plan::bounded::bounded_float!($(#[doc = $doc])* $name, $min..=$max, $unit $(, default $def)? $(, model_default $mdef)?);
        $crate::plan::bounded::bounded_inputs!($($rest)*);
    };
    ($(#[doc = $doc:literal])* decimal $name:ident, $min:literal ..= $max:literal, $unit:literal; $($rest:tt)*) => {
        $crate::plan::bounded::bounded_decimal!($(#[doc = $doc])* $name, $min..=$max, $unit);
        $crate::plan::bounded::bounded_inputs!($($rest)*);
    };
    ($(#[doc = $doc:literal])* decimal $name:ident, $min:literal ..< $max:literal, $unit:literal; $($rest:tt)*) => {
        $crate::plan::bounded::bounded_decimal!($(#[doc = $doc])* $name, $min..<$max, $unit);
        $crate::plan::bounded::bounded_inputs!($($rest)*);
    };
}

// The declaring macros, by path (`crate::plan::bounded::bounded_int!`), for this crate only.
pub(crate) use {
    bounded_decimal, bounded_default, bounded_deserialize, bounded_float, bounded_inputs,
    bounded_int, bounded_number, bounded_schema,
};

#[cfg(test)]
#[allow(dead_code)]
mod tests {
    use super::*;

    crate::plan::bounded::bounded_int!(
        /// Test years.
        TestYears: u32, 1..=15, "years", default 5
    );
    crate::plan::bounded::bounded_decimal!(
        /// Test share.
        TestShare, 0..<1, "fraction"
    );
    crate::plan::bounded::bounded_float!(
        /// Test ratio.
        TestRatio, 1.0..=16.0, "ratio"
    );

    fn parse<T: serde::de::DeserializeOwned>(s: &str) -> Result<T, String> {
        serde_json::from_str(s).map_err(|e| e.to_string())
    }

    #[test]
    fn integers_are_bounded_and_typed() {
        assert_eq!(parse::<TestYears>("5").map(TestYears::get), Ok(5));
        assert_eq!(parse::<TestYears>("5.0").map(TestYears::get), Ok(5));
        assert!(parse::<TestYears>("16").is_err_and(|e| e.starts_with(OUT_OF_RANGE)));
        assert!(parse::<TestYears>("0").is_err());
        assert!(parse::<TestYears>("-1").is_err());
        assert!(parse::<TestYears>("5.5").is_err());
        assert!(parse::<TestYears>("\"5\"").is_err());
    }

    #[test]
    fn decimals_take_plain_syntax_only() {
        assert_eq!(
            parse::<TestShare>("\"0.15\"").map(|d| d.get().to_string()),
            Ok("0.15".to_string())
        );
        assert_eq!(
            parse::<TestShare>("0.1").map(|d| d.get().to_string()),
            Ok("0.1".to_string())
        );
        for bad in [
            "\"1__0\"", "\"1e-1\"", "\"+0.1\"", "\" \"", "\"0.\"", "\".5\"", "\"1\"", "1",
        ] {
            assert!(parse::<TestShare>(bad).is_err(), "{bad} accepted");
        }
        assert_eq!(strict_decimal("1_000"), None);
        // Text a decimal would round is refused, not rounded into range.
        assert_eq!(strict_decimal("1000.00000000000000000000000001"), None);
        assert_eq!(strict_decimal("-0.0000000000000000000000000000001"), None);
        assert_eq!(strict_decimal("0.9999999999999999999999999999999"), None);
        assert_eq!(
            strict_decimal("0.9999999999999999999999999999"),
            "0.9999999999999999999999999999".parse().ok()
        );
        assert_eq!(strict_decimal("1000"), Some(Decimal::from(1000)));
    }

    #[test]
    fn floats_are_bounded() {
        assert!(parse::<TestRatio>("2").is_ok());
        assert!(parse::<TestRatio>("0.5").is_err());
        assert!(parse::<TestRatio>("17").is_err());
    }

    #[test]
    fn schema_carries_bounds_unit_and_default() {
        let s = serde_json::to_value(<TestYears as utoipa::PartialSchema>::schema())
            .unwrap_or_default();
        assert_eq!(s["minimum"], 1.0);
        assert_eq!(s["maximum"], 15.0);
        assert_eq!(s["default"], 5);
        assert!(s["description"].as_str().unwrap_or("").contains("years"));
        let s = serde_json::to_value(<TestShare as utoipa::PartialSchema>::schema())
            .unwrap_or_default();
        assert_eq!(s["exclusiveMaximum"], 1.0);
    }
}
