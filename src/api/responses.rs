//! The responses endpoints share, declared once for the OpenAPI document. A handler names them
//! in `#[utoipa::path(responses(...))]`; the problem examples are added to every problem
//! response afterwards (`super::add_examples`).

use std::collections::BTreeMap;
use std::marker::PhantomData;

use utoipa::openapi::schema::{ObjectBuilder, Type};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, Response, ResponseBuilder};
use utoipa::{IntoResponses, ToSchema};

use super::error::Problem;

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

impl Sheet for super::sheets::sweeps::SweepResult {
    const DESCRIPTION: &'static str = "Rows and crossovers (JSON), or the rows as CSV.";
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
