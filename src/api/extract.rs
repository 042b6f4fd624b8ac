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

use super::error::{ApiError, FieldError};

/// Largest request body accepted, bytes (256 KiB).
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// A JSON body, parsed and validated. Every failure is a problem+json: wrong or missing
/// content type → 415, too large → 413, not JSON → 400, wrong types or invalid values → 422
/// naming the JSON pointer of each bad field.
#[derive(Debug)]
pub struct ValidJson<T>(pub T);

impl<T> FromRequest for ValidJson<T>
where
    T: DeserializeOwned + Validate + 'static,
{
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let req = req.clone();
        let mut payload = payload.take();
        Box::pin(async move {
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
                    _ => ApiError::malformed(format!("could not read the request body: {e}")),
                })?;
            if bytes.len() > MAX_BODY_BYTES {
                return Err(ApiError::payload_too_large(MAX_BODY_BYTES));
            }
            let value = parse_json::<T>(&bytes)?;
            validate(&value)?;
            Ok(ValidJson(value))
        })
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

/// Parses JSON, mapping syntax errors to 400 and data errors (wrong type, unknown variant,
/// missing field) to 422 with the JSON pointer of the field.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let de = &mut serde_json::Deserializer::from_slice(bytes);
    match serde_path_to_error::deserialize::<_, T>(de) {
        Ok(v) => Ok(v),
        Err(e) => {
            let pointer = path_to_pointer(e.path());
            let inner = e.into_inner();
            use serde_json::error::Category;
            match inner.classify() {
                Category::Syntax | Category::Eof | Category::Io => Err(ApiError::malformed(
                    format!("the body is not valid JSON: {inner}"),
                )),
                Category::Data => {
                    let msg = strip_position(&inner.to_string());
                    // serde reports a missing or unknown field at its parent: name the field.
                    let named = |prefix: &str| {
                        msg.strip_prefix(prefix)
                            .and_then(|rest| rest.split('`').next())
                            .map(|f| {
                                let last = format!("/{}", escape_pointer(f));
                                if pointer.ends_with(&last) {
                                    pointer.clone()
                                } else {
                                    format!("{pointer}{last}")
                                }
                            })
                    };
                    if let Some(p) = named("missing field `") {
                        Err(ApiError::field(&p, "required", msg))
                    } else if let Some(p) = named("unknown field `") {
                        Err(ApiError::field(&p, "unknown_field", msg))
                    } else {
                        Err(ApiError::field(&pointer, "invalid_type", msg))
                    }
                }
            }
        }
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

fn escape_pointer(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

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
                        code: e.code.to_string(),
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
