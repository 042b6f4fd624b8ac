//! Request extractors that route every failure through [`ApiError`]: JSON bodies (content type,
//! size limit, syntax, types, validation) and query strings.

use std::future::Future;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::error::PayloadError;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, web};
use serde::de::DeserializeOwned;
use validator::{Validate, ValidationErrors, ValidationErrorsKind};

use super::error::{ApiError, ErrorCode, FieldError};

/// Largest request body accepted, bytes (256 KiB).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// A JSON body, parsed and validated. Every failure is a problem+json: wrong or missing
/// content type → 415, too large → 413, not JSON → 400, wrong types or invalid values → 422
/// naming the JSON pointer of each bad field.
#[derive(Debug)]
pub struct ValidJson<T>(pub T);

impl<T> FromRequest for ValidJson<T>
where
    T: DeserializeOwned + Validate + super::shape::Shaped + 'static,
{
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let body = json_body(req, payload);
        Box::pin(async move {
            let value = parse_json::<T>(&body.await?)?;
            validate(&value)?;
            Ok(ValidJson(value))
        })
    }
}

/// A JSON request's body bytes: content type, size limit and framing checked (415, 413, 400).
pub fn json_body(
    req: &HttpRequest,
    payload: &mut Payload,
) -> impl Future<Output = Result<web::Bytes, ApiError>> + 'static {
    let req = req.clone();
    let mut payload = payload.take();
    async move {
        check_json_content_type(&req)?;
        if let Some(len) = req
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok())
            && len > MAX_BODY_BYTES
        {
            return Err(ApiError::payload_too_large(MAX_BODY_BYTES));
        }
        let bytes = web::Bytes::from_request(&req, &mut payload)
            .await
            .map_err(|e| match e.as_error::<PayloadError>() {
                Some(PayloadError::Overflow) => ApiError::payload_too_large(MAX_BODY_BYTES),
                // In words, not the layer's Display ("payload reached EOF before
                // completing: None").
                Some(PayloadError::Incomplete(_)) => ApiError::malformed(
                    "the request body ended before its declared length or last chunk (Content-Length or chunked framing)",
                ),
                Some(PayloadError::EncodingCorrupted) => {
                    ApiError::malformed("the request body's encoding is corrupted")
                }
                _ => ApiError::malformed("could not read the request body"),
            })?;
        if bytes.len() > MAX_BODY_BYTES {
            return Err(ApiError::payload_too_large(MAX_BODY_BYTES));
        }
        Ok(bytes)
    }
}

fn check_json_content_type(req: &HttpRequest) -> Result<(), ApiError> {
    let ct = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let essence = ct
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    if essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
    {
        Ok(())
    } else if essence.is_empty() {
        Err(ApiError::unsupported_media_type(
            "send the body with Content-Type: application/json",
        ))
    } else {
        Err(ApiError::unsupported_media_type(format!(
            "Content-Type '{essence}' is not accepted: send application/json"
        )))
    }
}

/// Parses a JSON request body strictly, then types it.
///
/// 1. Syntax: one JSON value and nothing after it, no key twice in any object (anywhere in the
///    document: serde's last-wins would silently drop one), and the top level an object — else
///    400 (422 for a duplicate key, naming it).
/// 2. Types: the value is deserialised into `T`; a wrong type, an unknown field or a bad value
///    is a 422 naming the field's JSON pointer, in words (never a Rust type name).
pub fn parse_json<T: DeserializeOwned + super::shape::Shaped>(bytes: &[u8]) -> Result<T, ApiError> {
    let value = strict_value(bytes)?;
    T::shape().check(&value)?;
    from_value(value)
}

/// Deserialises an already strict-parsed JSON value into `T` (422 naming the field).
pub fn from_value<T: DeserializeOwned>(value: serde_json::Value) -> Result<T, ApiError> {
    match serde_path_to_error::deserialize::<_, T>(value) {
        Ok(v) => Ok(v),
        Err(e) => {
            let pointer = path_to_pointer(e.path());
            let msg = e.into_inner().to_string();
            Err(data_error(&pointer, &msg))
        }
    }
}

/// A data error (wrong type or bad value) as a 422 naming the field. Missing and unknown fields
/// never get here: the request's shape is checked against its schema first (`api::shape`).
pub fn data_error(pointer: &str, msg: &str) -> ApiError {
    if let Some(rest) = msg.strip_prefix(crate::plan::bounded::OUT_OF_RANGE) {
        ApiError::field(pointer, ErrorCode::Range, rest)
    } else if let Some(rest) = msg.strip_prefix(crate::plan::bounded::REPEATED) {
        ApiError::field(pointer, ErrorCode::DuplicateKey, rest)
    } else {
        ApiError::field(pointer, ErrorCode::InvalidType, humanize(msg))
    }
}

/// serde's messages in the user's terms: "invalid type: string \"x\", expected u32" →
/// "expected an integer, got the string \"x\"".
pub fn humanize(msg: &str) -> String {
    let (head, expected) = match msg.split_once(", expected ") {
        Some((h, e)) => (h, Some(e)),
        None => (msg, None),
    };
    let got = head
        .strip_prefix("invalid type: ")
        .or_else(|| head.strip_prefix("invalid value: "))
        .map(|g| {
            let g = g.replace('`', "");
            match g.split_once(' ') {
                Some(("string", rest)) => format!("the string {rest}"),
                Some(("integer" | "floating", rest)) => {
                    format!("the number {}", rest.trim_start_matches("point "))
                }
                Some(("boolean", rest)) => rest.to_string(),
                // serde's names for JSON's kinds, in JSON's words.
                _ => match g.as_str() {
                    "map" => "an object".to_string(),
                    "sequence" => "a list".to_string(),
                    "unit" | "unit value" => "null".to_string(),
                    _ => g,
                },
            }
        });
    let expected = expected.map(|e| {
        let e = e.trim();
        if e.starts_with("u8")
            || e.starts_with("u16")
            || e.starts_with("u32")
            || e.starts_with("u64")
            || e.starts_with("i32")
            || e.starts_with("i64")
        {
            "a whole number".to_string()
        } else if e.starts_with("f64") || e.starts_with("f32") {
            "a number".to_string()
        } else if e.starts_with("struct ") || e.starts_with("a map") {
            "an object".to_string()
        } else if e.starts_with("a sequence") {
            "a list".to_string()
        } else if e.starts_with("a boolean") {
            "true or false".to_string()
        } else if e.contains("Decimal") {
            "a decimal number, as a string (\"0.085\") or a number".to_string()
        } else {
            e.replace('`', "'")
        }
    });
    match (got, expected) {
        (Some(g), Some(e)) => format!("expected {e}, got {g}"),
        // "unknown variant `ib`" → "unknown value 'ib'" (a user writes values, not variants).
        (None, Some(e)) => format!(
            "{}; expected {e}",
            head.replace("unknown variant ", "unknown value ")
                .replace('`', "'")
        ),
        (Some(g), None) => format!("invalid: {g}"),
        (None, None) => head.to_string(),
    }
}

/// Parses one JSON value with nothing after it, refusing a key given twice in any object and
/// a top level that is not an object (400; a duplicate key is a 422 naming it).
pub fn strict_value(bytes: &[u8]) -> Result<serde_json::Value, ApiError> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let parsed = serde_path_to_error::deserialize::<_, StrictValue>(&mut de);
    if parsed.is_ok()
        && let Err(e) = de.end()
    {
        let msg = strip_position(&e.to_string());
        return Err(ApiError::malformed(format!(
            "the body has data after the JSON value: send exactly one object ({msg})"
        )));
    }
    let value = match parsed {
        Ok(StrictValue(v)) => v,
        Err(e) => {
            let pointer = path_to_pointer(e.path());
            let inner = e.into_inner();
            let msg = strip_position(&inner.to_string());
            if let Some(key) = msg
                .strip_prefix(DUPLICATE_KEY)
                .and_then(|r| r.strip_suffix('`'))
            {
                let last = format!("/{}", escape_pointer(key));
                let p = if pointer.ends_with(&last) {
                    pointer
                } else {
                    format!("{pointer}{last}")
                };
                return Err(ApiError::field(
                    &p,
                    ErrorCode::DuplicateKey,
                    "this key appears more than once in its object",
                ));
            }
            // A number JSON allows but an f64 cannot hold (`1e309`): valid JSON, a value out of
            // range at its field, as every other out-of-range number.
            if msg.starts_with("number out of range") && !pointer.is_empty() {
                return Err(ApiError::field(
                    &pointer,
                    ErrorCode::Range,
                    "the number is beyond any bound (larger than 1.8e308)",
                ));
            }
            let what = if inner.is_eof() {
                "the body ends before the JSON value does"
            } else if msg.starts_with("trailing characters") {
                "the body has data after the JSON value: send exactly one object"
            } else {
                "the body is not valid JSON"
            };
            return Err(ApiError::malformed(format!("{what} ({msg})")));
        }
    };
    if !value.is_object() {
        return Err(ApiError::malformed(
            "the body must be a JSON object (e.g. {\"gpus\": 1024})",
        ));
    }
    Ok(value)
}

const DUPLICATE_KEY: &str = "duplicate key `";

/// A JSON value whose objects never repeat a key.
struct StrictValue(serde_json::Value);

impl<'de> serde::Deserialize<'de> for StrictValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(StrictVisitor).map(StrictValue)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = serde_json::Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(serde_json::Number::from_f64(v).map_or(serde_json::Value::Null, Into::into))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(v.into())
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(serde_json::Value::Null)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::new();
        while let Some(StrictValue(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(serde_json::Value::Array(out))
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut out = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(serde::de::Error::custom(format!("{DUPLICATE_KEY}{key}`")));
            }
            let StrictValue(v) = map.next_value()?;
            out.insert(key, v);
        }
        Ok(serde_json::Value::Object(out))
    }
}

/// serde_json appends " at line 1 column 12"; the pointer says where, so drop it.
fn strip_position(msg: &str) -> String {
    match msg.rfind(" at line ") {
        Some(i) => msg[..i].to_string(),
        None => msg.to_string(),
    }
}

/// A serde_path_to_error path as an RFC 6901 JSON pointer.
pub fn path_to_pointer(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for seg in path.iter() {
        match seg {
            Segment::Seq { index } => {
                out.push('/');
                out.push_str(&index.to_string());
            }
            Segment::Map { key } => {
                out.push('/');
                out.push_str(&escape_pointer(key));
            }
            Segment::Enum { variant } => {
                out.push('/');
                out.push_str(&escape_pointer(variant));
            }
            Segment::Unknown => {}
        }
    }
    out
}

use crate::error_code::escape_pointer;

/// Runs `validator` and maps its errors to field errors with JSON pointers.
pub fn validate<T: Validate>(value: &T) -> Result<(), ApiError> {
    match value.validate() {
        Ok(()) => Ok(()),
        Err(errs) => {
            let mut out = Vec::new();
            collect(&errs, "", &mut out);
            out.sort_by(|a, b| a.pointer.cmp(&b.pointer));
            Err(ApiError::validation(out))
        }
    }
}

fn collect(errs: &ValidationErrors, prefix: &str, out: &mut Vec<FieldError>) {
    for (field, kind) in errs.errors() {
        let pointer = format!("{prefix}/{}", escape_pointer(field));
        match kind {
            ValidationErrorsKind::Field(list) => {
                for e in list {
                    let detail = e
                        .message
                        .as_ref()
                        .map(|m| m.to_string())
                        .unwrap_or_else(|| describe(e));
                    out.push(FieldError {
                        pointer: pointer.clone(),
                        code: ErrorCode::from_validator(&e.code),
                        detail,
                    });
                }
            }
            ValidationErrorsKind::Struct(inner) => collect(inner, &pointer, out),
            ValidationErrorsKind::List(map) => {
                for (i, inner) in map {
                    collect(inner, &format!("{pointer}/{i}"), out);
                }
            }
        }
    }
}

fn describe(e: &validator::ValidationError) -> String {
    let p = |k: &str| e.params.get(k).map(|v| v.to_string());
    match (e.code.as_ref(), p("min"), p("max")) {
        ("range", Some(min), Some(max)) => format!("must be between {min} and {max}"),
        ("range", Some(min), None) => format!("must be at least {min}"),
        ("range", None, Some(max)) => format!("must be at most {max}"),
        ("length", Some(min), Some(max)) => format!("length must be between {min} and {max}"),
        ("length", None, Some(max)) => format!("length must be at most {max}"),
        ("length", Some(min), None) => format!("length must be at least {min}"),
        (code, _, _) => format!("invalid ({code})"),
    }
}
