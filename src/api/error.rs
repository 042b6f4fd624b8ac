//! One error type for every failure, rendered as RFC 9457 `application/problem+json` with a
//! stable machine `code` and, for validation, the JSON pointer of each bad field.

use std::fmt;

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpResponse, ResponseError};
use serde::Serialize;
use utoipa::ToSchema;

pub use crate::error_code::ErrorCode;

/// The media type of every error body.
pub const PROBLEM_JSON: &str = "application/problem+json";

/// One invalid input.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FieldError {
    /// JSON pointer (RFC 6901) of the field in the request body; for query parameters, the
    /// pointer of the same field (`economics.years` → `/economics/years`).
    #[schema(example = "/topology/oversubscription")]
    pub pointer: String,
    /// Stable machine code (`range`, `required`, `invalid_type`, `unknown_field`, …).
    pub code: ErrorCode,
    /// What is wrong and what is accepted.
    #[schema(example = "must be between 1 and 16")]
    pub detail: String,
}

/// An RFC 9457 problem document.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Problem {
    /// URI reference identifying the problem type (`about:blank` plus a stable `code`).
    #[serde(rename = "type")]
    #[schema(example = "https://fabric-tco.dev/problems/validation")]
    pub type_uri: String,
    /// Short, human-readable summary of the problem type.
    #[schema(example = "Invalid request")]
    pub title: String,
    /// HTTP status code.
    #[schema(example = 422)]
    pub status: u16,
    /// Human-readable explanation of this occurrence.
    #[schema(example = "1 field is invalid")]
    pub detail: String,
    /// Stable machine-readable code.
    pub code: ErrorCode,
    /// The invalid fields (validation problems only).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
    /// Extra machine-readable context (e.g. the valid values).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Value>,
}

/// Most field errors a problem lists: a 110 KB body of 10,000 unknown keys drew a 2.4 MB
/// answer listing each (audit 28 F4).
pub const MAX_FIELD_ERRORS: usize = 100;

/// The service's error: an HTTP status and a problem document.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    status: StatusCode,
    problem: Box<Problem>,
    allow: Option<String>,
    retry_after_secs: Option<u32>,
}

impl ApiError {
    /// A problem with `code`'s status and title.
    pub fn new(code: ErrorCode, detail: impl Into<String>) -> ApiError {
        let status =
            StatusCode::from_u16(code.status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        ApiError::with_status(status, code, detail)
    }

    fn with_status(status: StatusCode, code: ErrorCode, detail: impl Into<String>) -> ApiError {
        ApiError {
            status,
            problem: Box::new(Problem {
                type_uri: format!(
                    "https://fabric-tco.dev/problems/{}",
                    code.as_str().replace('_', "-")
                ),
                title: code.title().to_string(),
                status: status.as_u16(),
                detail: detail.into(),
                code,
                errors: Vec::new(),
                extra: None,
            }),
            allow: None,
            retry_after_secs: None,
        }
    }

    /// 400: the body or query could not be parsed at all.
    pub fn malformed(detail: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::MalformedRequest, detail)
    }

    /// 422: parsed, but one or more fields are invalid. The answer lists at most
    /// [`MAX_FIELD_ERRORS`] ([`ResponseError::error_response`]); the detail counts them all
    /// (kept whole here: an error renamed on its way out is rebuilt from its list, and a GET
    /// of 300 unknown names said "100 fields" when the list was cut here).
    pub fn validation(errors: Vec<FieldError>) -> ApiError {
        let n = errors.len();
        let detail = match errors.as_slice() {
            // A query parameter's error names it already ("query parameter 'gpus': …").
            [one] if one.detail.starts_with("query parameter '") => one.detail.clone(),
            [one] => format!("{}: {}", one.pointer, one.detail),
            _ if n > MAX_FIELD_ERRORS => {
                format!("{n} fields are invalid; the first {MAX_FIELD_ERRORS} are listed")
            }
            _ => format!("{n} fields are invalid"),
        };
        let mut e = ApiError::new(ErrorCode::ValidationFailed, detail);
        e.problem.errors = errors;
        e
    }

    /// 422 for one field.
    pub fn field(pointer: &str, code: ErrorCode, detail: impl Into<String>) -> ApiError {
        ApiError::validation(vec![FieldError {
            pointer: pointer.to_string(),
            code,
            detail: detail.into(),
        }])
    }

    /// 503 while the database cannot be reached (plans still answer); a database that is not
    /// ours (refused at start) is an internal error.
    pub fn store(e: &crate::store::StoreError) -> ApiError {
        match e {
            crate::store::StoreError::Unavailable(_) => {
                log::warn!("{e}");
                ApiError::new(
                    ErrorCode::DatabaseUnavailable,
                    "the database cannot be reached; saved scenarios and catalog versions are unavailable (plans still answer); retry later",
                )
                .with_retry_after(5)
            }
            crate::store::StoreError::Foreign(_) => ApiError::internal(e),
        }
    }

    /// The same problem with every field pointer under `prefix` (a plan request inside a
    /// scenario: `/gpus` → `/request/gpus`).
    pub fn under(mut self, prefix: &str) -> ApiError {
        for e in &mut self.problem.errors {
            e.pointer = format!("{prefix}{}", e.pointer);
        }
        if let [one] = self.problem.errors.as_slice()
            && !one.detail.starts_with("query parameter '")
        {
            self.problem.detail = format!("{}: {}", one.pointer, one.detail);
        }
        self
    }

    pub fn not_found(detail: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::NotFound, detail)
    }

    pub fn method_not_allowed(allow: String) -> ApiError {
        let mut e = ApiError::new(
            ErrorCode::MethodNotAllowed,
            format!("this path allows: {allow}"),
        );
        e.allow = Some(allow);
        e
    }

    pub fn payload_too_large(limit: usize) -> ApiError {
        ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!("request bodies are limited to {limit} bytes"),
        )
    }

    pub fn unsupported_media_type(detail: impl Into<String>) -> ApiError {
        ApiError::new(ErrorCode::UnsupportedMediaType, detail)
    }

    /// 500 with an opaque detail; the cause is logged, never returned.
    pub fn internal(cause: &dyn fmt::Display) -> ApiError {
        log::error!("internal error: {cause}");
        ApiError::new(
            ErrorCode::InternalError,
            "the service failed to handle this request; it has been logged",
        )
    }

    /// Builds a problem for any status (used by the safety net that converts stray errors).
    pub fn from_status(status: StatusCode) -> ApiError {
        let code = match status.as_u16() {
            400 => ErrorCode::MalformedRequest,
            404 => ErrorCode::NotFound,
            405 => ErrorCode::MethodNotAllowed,
            406 => ErrorCode::NotAcceptable,
            408 => ErrorCode::RequestTimeout,
            413 => ErrorCode::PayloadTooLarge,
            414 => ErrorCode::UriTooLong,
            415 => ErrorCode::UnsupportedMediaType,
            431 => ErrorCode::HeadersTooLarge,
            500 => ErrorCode::InternalError,
            _ => ErrorCode::HttpError,
        };
        let title = status.canonical_reason().unwrap_or("Error");
        ApiError::with_status(status, code, title.to_string())
    }

    /// Adds `Retry-After: secs` (503 when busy).
    /// Seconds after which a retry may succeed (a busy service), if said.
    pub fn retry_after_secs(&self) -> Option<u32> {
        self.retry_after_secs
    }

    pub fn with_retry_after(mut self, secs: u32) -> ApiError {
        self.retry_after_secs = Some(secs);
        self
    }

    pub fn with_extra(mut self, extra: serde_json::Value) -> ApiError {
        self.problem.extra = Some(extra);
        self
    }

    pub fn problem(&self) -> &Problem {
        &self.problem
    }
}

impl fmt::Display for ApiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} {}: {}",
            self.status.as_u16(),
            self.problem.code,
            self.problem.detail
        )
    }
}

impl ResponseError for ApiError {
    fn status_code(&self) -> StatusCode {
        self.status
    }

    fn error_response(&self) -> HttpResponse {
        let body = if self.problem.errors.len() > MAX_FIELD_ERRORS {
            let mut listed = self.problem.clone();
            listed.errors.truncate(MAX_FIELD_ERRORS);
            serde_json::to_vec(&listed)
        } else {
            serde_json::to_vec(&self.problem)
        }
        .unwrap_or_default();
        let mut res = HttpResponse::build(self.status);
        res.insert_header((header::CONTENT_TYPE, HeaderValue::from_static(PROBLEM_JSON)));
        res.insert_header((header::CACHE_CONTROL, HeaderValue::from_static("no-store")));
        if let Some(allow) = &self.allow
            && let Ok(v) = HeaderValue::from_str(allow)
        {
            res.insert_header((header::ALLOW, v));
        }
        if let Some(secs) = self.retry_after_secs {
            res.insert_header((header::RETRY_AFTER, secs.to_string()));
        }
        if self.status == StatusCode::UNAUTHORIZED {
            res.insert_header((
                header::WWW_AUTHENTICATE,
                HeaderValue::from_static("Bearer realm=\"fabric-tco\""),
            ));
        }
        res.body(body)
    }
}

impl From<crate::store::StoreError> for ApiError {
    fn from(e: crate::store::StoreError) -> ApiError {
        ApiError::store(&e)
    }
}
