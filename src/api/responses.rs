//! The responses endpoints share, declared once for the OpenAPI document. A handler names them
//! in `#[utoipa::path(responses(...))]`; the problem examples are added to every problem
//! response afterwards (`super::add_examples`).

use std::collections::BTreeMap;
use std::marker::PhantomData;

use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{IntoResponses, ToSchema};

use super::error::{ApiError, Problem};
use crate::error_code::ErrorCode;

/// A `200` that is `T` as JSON or, when negotiated (`Accept: text/csv` or `format=csv`), a CSV
/// table.
pub struct JsonOrCsv<T>(PhantomData<T>);

/// What a JSON-or-CSV `200` holds, in the words of its response description.
pub trait Sheet: ToSchema {
    const DESCRIPTION: &'static str;
}

impl Sheet for crate::plan::Plan {
    const DESCRIPTION: &'static str =
        "The plan, one result per fabric, and the comparison (JSON), or one CSV row per fabric.";
}

impl Sheet for crate::table::BomSheet {
    const DESCRIPTION: &'static str = "The BOM rows (JSON), or CSV with a header row.";
}

impl<T: Sheet> IntoResponses for JsonOrCsv<T> {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let json = ContentBuilder::new()
            .schema(Some(Ref::from_schema_name(T::name())))
            .build();
        let csv = ContentBuilder::new()
            .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
            .build();
        let ok = ResponseBuilder::new()
            .description(T::DESCRIPTION)
            .content("application/json", json)
            .content("text/csv", csv)
            .build();
        BTreeMap::from([("200".to_string(), RefOr::T(ok))])
    }
}

/// A plan's `200`: [`JsonCsvOrXlsx`] of the plan.
pub type PlanAnswers = JsonCsvOrXlsx<crate::plan::Plan>;

/// A `200` that is [`JsonOrCsv`] or, when negotiated (`format=xlsx` or its media type), a
/// workbook.
pub struct JsonCsvOrXlsx<T>(PhantomData<T>);

impl<T: Sheet> IntoResponses for JsonCsvOrXlsx<T> {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let mut answers = JsonOrCsv::<T>::responses();
        if let Some(RefOr::T(ok)) = answers.get_mut("200") {
            let book = ContentBuilder::new()
                .schema(Some(
                    ObjectBuilder::new()
                        .schema_type(Type::String)
                        .content_media_type("application/octet-stream"),
                ))
                .build();
            ok.content
                .insert(crate::table::workbook::XLSX.to_string(), RefOr::T(book));
            ok.description = format!("{} Or a workbook (xlsx).", T::DESCRIPTION);
        }
        answers
    }
}

/// A `200` that is [`PlanAnswers`] or, when negotiated (`Accept: text/html` or
/// `format=html`), the report page.
pub struct JsonCsvOrPage<T>(PhantomData<T>);

impl<T: Sheet> IntoResponses for JsonCsvOrPage<T> {
    fn responses() -> BTreeMap<String, RefOr<Response>> {
        let mut answers = JsonCsvOrXlsx::<T>::responses();
        if let Some(RefOr::T(ok)) = answers.get_mut("200") {
            let page = ContentBuilder::new()
                .schema(Some(ObjectBuilder::new().schema_type(Type::String)))
                .build();
            ok.content.insert("text/html".to_string(), RefOr::T(page));
            ok.description = format!("{} Or the report page (HTML).", T::DESCRIPTION);
        }
        answers
    }
}

/// `304 Not Modified`, for every GET that answers with an `ETag`.
#[derive(IntoResponses)]
#[response(
    status = 304,
    description = "`If-None-Match` matched the `ETag`: no body."
)]
pub struct NotModified;

/// What every GET with plan query parameters may answer besides its 200 and its own 422.
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum QueryProblems {
    /// `If-None-Match` matched the `ETag`: no body.
    #[response(status = 304)]
    NotModified,
    /// The query string cannot be decoded.
    #[response(status = 400, content_type = "application/problem+json")]
    Malformed(Problem),
    /// The query string exceeds 8 KiB.
    #[response(status = 414, content_type = "application/problem+json")]
    TooLong(Problem),
    /// The request head (request line and headers) exceeds what the HTTP layer buffers, before
    /// the query string is read.
    #[response(status = 431, content_type = "application/problem+json")]
    HeadTooLarge(Problem),
}

/// The problems any endpoint with a JSON body may return besides its own 422.
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum BodyProblems {
    /// The body is not one JSON object (not JSON, data after the value, an array or a scalar).
    #[response(status = 400, content_type = "application/problem+json")]
    Malformed(Problem),
    /// The body exceeds 256 KiB.
    #[response(status = 413, content_type = "application/problem+json")]
    TooLarge(Problem),
    /// The body is not `application/json`, or it is compressed (`Content-Encoding` is refused).
    #[response(status = 415, content_type = "application/problem+json")]
    MediaType(Problem),
}

/// An input is invalid (a query parameter also when it is missing, like `gpus`, or given
/// twice), or the cluster cannot be built as asked; `errors[].pointer` names it
/// (`economics.years` → `/economics/years`).
#[derive(IntoResponses)]
#[response(status = 422, content_type = "application/problem+json")]
#[allow(dead_code)]
pub struct PlanInvalid(Problem);

/// The sweep is invalid (unknown input, bad range, more than 10,000 plans) or a value cannot be
/// planned; the problem names the input and the value.
#[derive(IntoResponses)]
#[response(status = 422, content_type = "application/problem+json")]
#[allow(dead_code)]
pub struct SweepInvalid(Problem);

/// Four sweeps or uncertainty analyses are already running (`Retry-After: 1`), or this one
/// overran its time budget (90% of the request deadline, `FABRIC_TCO_REQUEST_DEADLINE_SECS`).
/// Only a sweep or a request with an uncertainty analysis (`uncertainty.*`) can get it.
#[derive(IntoResponses)]
#[response(status = 503, content_type = "application/problem+json")]
#[allow(dead_code)]
pub struct Busy(Problem);

/// What every saved-scenario endpoint may answer besides its own: no valid key, or a database
/// that cannot be reached.
#[derive(IntoResponses)]
#[allow(dead_code)]
pub enum KeyProblems {
    /// No valid API key (`Authorization: Bearer …`): missing, unknown, mistyped or revoked;
    /// with `WWW-Authenticate: Bearer`.
    #[response(status = 401, content_type = "application/problem+json")]
    Unauthorized(Problem),
    /// The database cannot be reached (`Retry-After`); plans still answer.
    #[response(status = 503, content_type = "application/problem+json")]
    Unavailable(Problem),
}

/// The key may only read: saving, revising and deleting need scope `write`.
#[derive(IntoResponses)]
#[response(status = 403, content_type = "application/problem+json")]
#[allow(dead_code)]
pub struct ReadOnlyKey(Problem);

/// No such scenario (or revision) for this key's team.
#[derive(IntoResponses)]
#[response(status = 404, content_type = "application/problem+json")]
#[allow(dead_code)]
pub struct NoScenario(Problem);

/// `If-Match` names a revision that is no longer the current one (`extra.current_revision`).
#[derive(IntoResponses)]
#[response(status = 412, content_type = "application/problem+json")]
#[allow(dead_code)]
pub struct StaleRevision(Problem);

/// A real problem document for `status`, as the service renders it (for OpenAPI examples; a
/// chart's 404 is `charts::unknown_chart`'s).
pub fn problem_example(status: u16, query: bool) -> Option<serde_json::Value> {
    let e = match status {
        // The real refusal of a stray '%' (`?gpus=%zz`).
        400 if query => crate::api::query::Query::parse("gpus=%zz").err()?,
        400 => ApiError::malformed(
            "the body has data after the JSON value: send exactly one object (trailing characters)",
        ),
        404 => ApiError::not_found("no catalog 'nope'; loaded: default"),
        405 => ApiError::method_not_allowed("GET, HEAD, OPTIONS".into()),
        408 => ApiError::new(
            ErrorCode::RequestTimeout,
            "the request was not received and answered within 30 s",
        ),
        413 => ApiError::payload_too_large(super::extract::MAX_BODY_BYTES),
        414 => ApiError::new(
            ErrorCode::UriTooLong,
            "the query string is 9000 bytes; at most 8192 are accepted",
        ),
        431 => ApiError::new(
            ErrorCode::HeadersTooLarge,
            "the request head is larger than the service accepts",
        ),
        415 => ApiError::unsupported_media_type(
            "request bodies must not be compressed: Content-Encoding 'gzip' is not accepted \
             (send the JSON uncompressed; it is limited to 256 KiB)",
        ),
        422 => super::extract::parse_json::<crate::plan::PlanRequest>(
            br#"{"gpus": 1024, "economics": {"years": 20}}"#,
        )
        .err()?,
        503 => ApiError::new(ErrorCode::Busy, "4 sweeps are running; retry in a second"),
        _ => return None,
    };
    serde_json::to_value(e.problem()).ok()
}
