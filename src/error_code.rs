//! Every error code the service can return, as data: each code carries its HTTP status and a
//! title, and the OpenAPI document lists them as the enum of `Problem.code` / `FieldError.code`.
//! Core modules (plan, cost, catalog) name their errors with these codes; only `api` turns them
//! into HTTP responses.

use serde::Serialize;
use utoipa::ToSchema;

/// A stable machine-readable error code (snake_case in JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    // ---- problem-level codes ----
    /// 400: the body or query string cannot be parsed (not JSON, trailing data, not an object).
    MalformedRequest,
    /// 422: one or more inputs are invalid; `errors[]` names each.
    ValidationFailed,
    /// 404: no resource at this path.
    NotFound,
    /// 405: the path exists but not for this method (`Allow` lists the methods).
    MethodNotAllowed,
    /// 406: no representation matches `Accept`.
    NotAcceptable,
    /// 408: the request was not received or answered within its deadline.
    RequestTimeout,
    /// 413: the body is larger than the limit.
    PayloadTooLarge,
    /// 414: the query string is longer than the limit.
    UriTooLong,
    /// 415: wrong `Content-Type`, or a `Content-Encoding` on the request body.
    UnsupportedMediaType,
    /// 431: request headers too large.
    HeadersTooLarge,
    /// 500: an internal error (logged; never detailed to the client).
    InternalError,
    /// 503: the service is busy (too many sweeps at once): retry after `Retry-After`.
    Busy,
    /// 503: a sweep would not finish within the request deadline.
    SweepTooSlow,
    /// 503: an uncertainty analysis would not finish within the request deadline.
    AnalysisTooSlow,
    /// Any other 4xx/5xx status produced by the HTTP layer.
    HttpError,
    /// No valid API key (`Authorization: Bearer …`).
    Unauthorized,
    /// The key's scope does not allow this.
    Forbidden,
    /// `If-Match` names a revision that is no longer the current one.
    PreconditionFailed,
    /// The database cannot be reached; plans still answer.
    DatabaseUnavailable,
    /// An `Idempotency-Key` used before for another save.
    IdempotencyKeyReused,
    // ---- field-level codes (in `errors[]`) ----
    /// A required input is missing.
    Required,
    /// The value has the wrong type (e.g. text where a number goes).
    InvalidType,
    /// A field the request does not have (a misspelt name).
    UnknownField,
    /// A key or query parameter given more than once.
    DuplicateKey,
    /// A number outside its documented range.
    Range,
    /// A text or list outside its allowed length.
    Length,
    /// Not one of the allowed values.
    UnknownValue,
    /// Text with characters outside the allowed pattern.
    Pattern,
    /// A list that names an item twice.
    Unique,
    /// No such SKU in the catalog.
    UnknownSku,
    /// A SKU a price override cannot price (a yearly subscription, priced by an economics
    /// input).
    NotOverridable,
    /// No such catalog.
    UnknownCatalog,
    /// No such GPU model in the catalog.
    UnknownGpuModel,
    /// The result is too large to compute (an input scales a count or a sum past its range).
    TooLarge,
    /// The cost computation overflows the decimal range.
    CostOverflow,
    /// A cost input is out of its domain.
    CostInvalidInput,
    /// The performance model rejects the inputs.
    PerformanceModel,
    /// The catalog's fabric profile lacks an entry for this request.
    NoProfile,
    /// No switch in the profile for this link speed.
    NoSwitchForSpeed,
    /// No NIC in the profile for this speed.
    NoNicForSpeed,
    /// No optics/cable choice in the profile for this link speed.
    NoCablingForSpeed,
    /// The chosen switch cannot run this fabric.
    SwitchCannotRunFabric,
    /// The chosen NIC cannot run this fabric.
    NicCannotRunFabric,
    /// The chosen NIC runs another speed than `nic_speed_gbps` asks.
    NicSpeedMismatch,
    /// A module or cable does not match the link speed.
    WrongLinkSpeed,
    /// The planes do not divide the NIC ports.
    PlanesDoNotDivide,
    /// The NIC cannot run a link this fast on this fabric (ConnectX-8 on Ethernet: 400G at
    /// most); more planes split it into slower links.
    NicLinkTooFast,
    /// A sweep request is inconsistent.
    InvalidSweep,
    /// An uncertainty input that is not a continuous plan input or a catalog price, or one
    /// that would change the fabric's design.
    UnknownInput,
    /// A range whose low, mode and high are not in order or outside the input's domain.
    InvalidRange,
    /// A sweep would need more plans than allowed.
    TooManyPlans,
    /// Sizing: A count that must be positive is zero.
    ZeroValue,
    /// Sizing: The oversubscription cannot be realised.
    OversubscriptionOutOfRange,
    /// Sizing: The tiers asked cannot be built.
    MaxTiersOutOfRange,
    /// Sizing: The planes do not divide the NIC speed.
    PlanesDoNotDivideNicSpeed,
    /// Sizing: No switch port runs at this link speed.
    UnsupportedLinkSpeed,
    /// Sizing: The leaf has no downlinks or no uplinks at this ratio.
    NoLeafDownlinksOrUplinks,
    /// Sizing: One node needs more ports than a leaf has.
    NodeExceedsLeaf,
    /// Sizing: The cluster exceeds the switch tiers' ceiling.
    ExceedsTierCeiling,
    /// Sizing: The leaves exceed what the tiers can connect.
    ExceedsTierLeafLimit,
    /// Sizing: A count overflows.
    Overflow,
    /// Sizing: the named design cannot hold this cluster.
    DesignDoesNotFit,
    /// `/v1/value`: no such metric.
    UnknownMetric,
    /// `/v1/value`: the metric is not a number.
    NotNumeric,
    /// `/v1/value`: the fabric is not in the plan.
    NotInPlan,
    /// `/v1/value`: the plan has no comparison (one fabric).
    NoComparison,
}

impl ErrorCode {
    /// The code as it appears in JSON (a unit test keeps it equal to serde's name).
    pub fn as_str(self) -> &'static str {
        use ErrorCode::*;
        match self {
            MalformedRequest => "malformed_request",
            ValidationFailed => "validation_failed",
            NotFound => "not_found",
            MethodNotAllowed => "method_not_allowed",
            NotAcceptable => "not_acceptable",
            RequestTimeout => "request_timeout",
            PayloadTooLarge => "payload_too_large",
            UriTooLong => "uri_too_long",
            UnsupportedMediaType => "unsupported_media_type",
            HeadersTooLarge => "headers_too_large",
            InternalError => "internal_error",
            Busy => "busy",
            SweepTooSlow => "sweep_too_slow",
            AnalysisTooSlow => "analysis_too_slow",
            HttpError => "http_error",
            Unauthorized => "unauthorized",
            Forbidden => "forbidden",
            PreconditionFailed => "precondition_failed",
            DatabaseUnavailable => "database_unavailable",
            IdempotencyKeyReused => "idempotency_key_reused",
            Required => "required",
            InvalidType => "invalid_type",
            UnknownField => "unknown_field",
            DuplicateKey => "duplicate_key",
            Range => "range",
            Length => "length",
            UnknownValue => "unknown_value",
            Pattern => "pattern",
            Unique => "unique",
            UnknownSku => "unknown_sku",
            NotOverridable => "not_overridable",
            UnknownCatalog => "unknown_catalog",
            UnknownGpuModel => "unknown_gpu_model",
            TooLarge => "too_large",
            CostOverflow => "cost_overflow",
            CostInvalidInput => "cost_invalid_input",
            PerformanceModel => "performance_model",
            NoProfile => "no_profile",
            NoSwitchForSpeed => "no_switch_for_speed",
            NoNicForSpeed => "no_nic_for_speed",
            NoCablingForSpeed => "no_cabling_for_speed",
            SwitchCannotRunFabric => "switch_cannot_run_fabric",
            NicCannotRunFabric => "nic_cannot_run_fabric",
            NicSpeedMismatch => "nic_speed_mismatch",
            WrongLinkSpeed => "wrong_link_speed",
            PlanesDoNotDivide => "planes_do_not_divide",
            NicLinkTooFast => "nic_link_too_fast",
            InvalidSweep => "invalid_sweep",
            UnknownInput => "unknown_input",
            InvalidRange => "invalid_range",
            TooManyPlans => "too_many_plans",
            ZeroValue => "zero_value",
            OversubscriptionOutOfRange => "oversubscription_out_of_range",
            MaxTiersOutOfRange => "max_tiers_out_of_range",
            PlanesDoNotDivideNicSpeed => "planes_do_not_divide_nic_speed",
            UnsupportedLinkSpeed => "unsupported_link_speed",
            NoLeafDownlinksOrUplinks => "no_leaf_downlinks_or_uplinks",
            NodeExceedsLeaf => "node_exceeds_leaf",
            ExceedsTierCeiling => "exceeds_tier_ceiling",
            ExceedsTierLeafLimit => "exceeds_tier_leaf_limit",
            Overflow => "overflow",
            DesignDoesNotFit => "design_does_not_fit",
            UnknownMetric => "unknown_metric",
            NotNumeric => "not_numeric",
            NotInPlan => "not_in_plan",
            NoComparison => "no_comparison",
        }
    }

    /// The HTTP status a problem with this code has (field codes: 422).
    pub fn status(self) -> u16 {
        use ErrorCode::*;
        match self {
            MalformedRequest => 400,
            NotFound => 404,
            MethodNotAllowed => 405,
            NotAcceptable => 406,
            RequestTimeout => 408,
            PayloadTooLarge => 413,
            UriTooLong => 414,
            UnsupportedMediaType => 415,
            HeadersTooLarge => 431,
            InternalError => 500,
            Busy | SweepTooSlow | AnalysisTooSlow | DatabaseUnavailable => 503,
            HttpError => 500,
            Unauthorized => 401,
            Forbidden => 403,
            PreconditionFailed => 412,
            _ => 422,
        }
    }

    /// The problem's title.
    pub fn title(self) -> &'static str {
        use ErrorCode::*;
        match self {
            MalformedRequest => "Malformed request",
            NotFound => "Not found",
            MethodNotAllowed => "Method not allowed",
            NotAcceptable => "Not acceptable",
            RequestTimeout => "Request timeout",
            PayloadTooLarge => "Payload too large",
            UriTooLong => "URI too long",
            UnsupportedMediaType => "Unsupported media type",
            HeadersTooLarge => "Request header fields too large",
            InternalError => "Internal error",
            Busy => "Busy",
            SweepTooSlow => "Sweep too slow",
            AnalysisTooSlow => "Analysis too slow",
            HttpError => "HTTP error",
            Unauthorized => "Unauthorized",
            Forbidden => "Forbidden",
            PreconditionFailed => "Precondition failed",
            DatabaseUnavailable => "Database unavailable",
            IdempotencyKeyReused => "Idempotency key reused",
            _ => "Invalid request",
        }
    }

    /// Field codes that `validator` reports (`range`, `length`, …), as codes.
    pub fn from_validator(code: &str) -> ErrorCode {
        match code {
            "range" => ErrorCode::Range,
            "length" => ErrorCode::Length,
            "one_of" => ErrorCode::UnknownValue,
            "pattern" => ErrorCode::Pattern,
            "unique" => ErrorCode::Unique,
            "required" => ErrorCode::Required,
            _ => ErrorCode::ValidationFailed,
        }
    }
}

/// One JSON-pointer segment, escaped (RFC 6901: `~` → `~0`, `/` → `~1`); the one place the
/// service escapes pointers.
pub fn escape_pointer(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    push_escaped(&mut out, segment);
    out
}

/// Appends `segment` to a JSON pointer, escaped as [`escape_pointer`] does, without a copy.
pub fn push_escaped(pointer: &mut String, segment: &str) {
    for c in segment.chars() {
        match c {
            '~' => pointer.push_str("~0"),
            '/' => pointer.push_str("~1"),
            c => pointer.push(c),
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_name_is_as_str() {
        for c in [
            ErrorCode::MalformedRequest,
            ErrorCode::UnknownField,
            ErrorCode::NoCablingForSpeed,
            ErrorCode::TooManyPlans,
        ] {
            assert_eq!(serde_json::to_value(c).ok(), Some(c.as_str().into()));
        }
    }
}
