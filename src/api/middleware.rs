//! Cross-cutting HTTP behaviour: HEAD answered as GET without a body, every error body as
//! problem+json, one log line per request, security headers on every response.

use crate::error_code::ErrorCode;
use std::time::Instant;

use actix_web::body::{EitherBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::header::HeaderValue;
use actix_web::http::{Method, header};
use actix_web::middleware::Next;
use actix_web::{Error, ResponseError};

use super::error::{ApiError, PROBLEM_JSON};

/// HEAD is routed as GET; actix's HTTP/1 encoder still sends no body for a HEAD request, and
/// keeps the GET response's headers (`Content-Length`, `ETag`, …).
pub async fn head_as_get(
    mut req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    if req.method() == Method::HEAD {
        req.head_mut().method = Method::GET;
    }
    next.call(req).await
}

/// Request bodies are never decompressed (actix-web's decoders are not compiled in), so a
/// `Content-Encoding` other than `identity` is refused with 415 before any byte is read: a
/// small compressed body can never expand in memory.
pub async fn refuse_content_encoding(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let encoding = req
        .headers()
        .get_all(header::CONTENT_ENCODING)
        .map(|v| v.to_str().unwrap_or("?").trim().to_ascii_lowercase())
        .find(|v| !v.is_empty() && v != "identity");
    match encoding {
        None => Ok(next.call(req).await?.map_into_left_body()),
        Some(enc) => {
            let e = ApiError::unsupported_media_type(format!(
                "request bodies must not be compressed: Content-Encoding '{enc}' is not accepted \
                 (send the JSON uncompressed; it is limited to 256 KiB)"
            ));
            Ok(req.into_response(e.error_response()).map_into_right_body())
        }
    }
}

/// Safety net: any 4xx/5xx response whose body is not problem+json (a framework default, a
/// bundled service) is replaced by a problem document with the same status (and `Allow`).
pub async fn problem_bodies(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<EitherBody<impl MessageBody>>, Error> {
    let res = next.call(req).await?;
    let status = res.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return Ok(res.map_into_left_body());
    }
    let is_problem = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with(PROBLEM_JSON));
    // The report page answers invalid input with an HTML page describing the problem.
    let is_html_page = res
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"));
    if is_problem || is_html_page {
        return Ok(res.map_into_left_body());
    }
    let allow = res.headers().get(header::ALLOW).cloned();
    let (req, _) = res.into_parts();
    let mut replacement = ApiError::from_status(status).error_response();
    if let Some(allow) = allow {
        replacement.headers_mut().insert(header::ALLOW, allow);
    }
    Ok(ServiceResponse::new(req, replacement).map_into_right_body())
}

/// Every request must be received and answered within the deadline (`FABRIC_TCO_REQUEST_DEADLINE_SECS`,
/// in [`AppState`](super::AppState)): a client trickling its body, or any request that overruns,
/// gets a 408 problem instead of holding a connection and a worker slot indefinitely. (The
/// request head has its own, shorter limit: `FABRIC_TCO_REQUEST_TIMEOUT_MS`.)
pub async fn deadline(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let limit = req
        .app_data::<actix_web::web::Data<super::AppState>>()
        .map(|s| s.request_deadline);
    let Some(limit) = limit else {
        return next.call(req).await;
    };
    // On expiry the inner future (handler, body read) is dropped and the error becomes the
    // response (actix renders it through `ApiError`'s problem+json). The handler sees when the
    // request arrived ([`heavy_budget`]).
    let answered = actix_web::rt::time::timeout(limit, next.call(req));
    match ARRIVED.scope(Instant::now(), answered).await {
        Ok(res) => res,
        Err(_) => Err(ApiError::new(
            ErrorCode::RequestTimeout,
            format!(
                "the request was not received and answered within {} s",
                limit.as_secs_f64()
            ),
        )
        .into()),
    }
}

/// With `FABRIC_TCO_KEYS_FOR=all`, every API path but the probes and the OpenAPI document
/// (and the saved-scenario paths, which check their own scope) needs a valid key of any scope.
pub async fn require_keys(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<actix_web::body::EitherBody<impl MessageBody>>, Error> {
    let state = req
        .app_data::<actix_web::web::Data<super::AppState>>()
        .cloned();
    let path = req.path();
    let open = matches!(path, "/healthz" | "/readyz" | "/openapi.json")
        || path.starts_with("/swagger-ui")
        || path.starts_with("/v1/scenarios")
        || path == "/v1/diff";
    if let Some(state) = state
        && state.keys_for_all
        && !open
    {
        let (http, payload) = req.into_parts();
        if let Err(e) = super::auth::caller(&http, &state, crate::store::keys::Scope::Read).await {
            return Ok(ServiceResponse::new(http, e.error_response()).map_into_right_body());
        }
        let req = ServiceRequest::from_parts(http, payload);
        return Ok(next.call(req).await?.map_into_left_body());
    }
    Ok(next.call(req).await?.map_into_left_body())
}

tokio::task_local! {
    /// When the request being served arrived: set by [`deadline`] around its handler.
    static ARRIVED: Instant;
}

/// The time budget of heavy work (a sweep, an uncertainty analysis) for a request with this
/// deadline: 90 % of it, counted from when the request arrived (outside a request, from now),
/// so the work stops with its own 503 before the deadline's 408 however long the request
/// waited before the work began. Returns the end and the budget.
pub fn heavy_budget(deadline: std::time::Duration) -> (Instant, std::time::Duration) {
    let limit = deadline.mul_f64(0.9);
    let arrived = ARRIVED.try_with(|t| *t).unwrap_or_else(|_| Instant::now());
    (arrived + limit, limit)
}

/// The plan a response carries, for the access log (handlers put it in the response's
/// extensions).
#[derive(Debug, Clone)]
pub struct PlanId(pub String);

/// Tags a response with the plan it carries.
pub fn with_plan_id(mut res: actix_web::HttpResponse, plan_id: &str) -> actix_web::HttpResponse {
    res.extensions_mut().insert(PlanId(plan_id.to_string()));
    res
}

/// One log line per request: method, path (never the query string, which may carry prices),
/// status, latency.
pub async fn access_log(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let start = Instant::now();
    let method = req.method().clone();
    let path = req.path().to_string();
    let res = next.call(req).await;
    let latency_ms = (start.elapsed().as_secs_f64() * 1e6).round() / 1e3;
    let (status, plan_id) = match &res {
        Ok(r) => (
            r.status().as_u16(),
            r.response()
                .extensions()
                .get::<PlanId>()
                .map(|p| p.0.clone()),
        ),
        Err(e) => (e.as_response_error().status_code().as_u16(), None),
    };
    let method = method.as_str();
    let path = path.as_str();
    match plan_id {
        Some(plan_id) => log::info!(
            target: "fabric_tco::access",
            method, path, status, latency_ms, plan_id = plan_id.as_str();
            "{method} {path} {status} {latency_ms:.3}ms"
        ),
        None => log::info!(
            target: "fabric_tco::access",
            method, path, status, latency_ms;
            "{method} {path} {status} {latency_ms:.3}ms"
        ),
    }
    res
}

/// The Content-Security-Policy of everything but the pages below: nothing may load, run or
/// frame it (a JSON, CSV or SVG answer opened in a browser stays inert).
pub const CSP_DEFAULT: &str = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'";

/// The report page's policy: its own charts, its inline stylesheet (static, in
/// `templates/report.html`; the page has no script), and forms sent to itself.
pub const CSP_REPORT: &str = "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; \
     form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// Swagger UI's policy: its own scripts and stylesheets (no inline script), the inline styles
/// and `data:` icons its components set, and requests to this service only ("Try it out").
pub const CSP_SWAGGER_UI: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; \
     font-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

/// The policy of a path (see the three policies above).
pub fn content_security_policy(path: &str) -> &'static str {
    if path.starts_with("/swagger-ui") {
        CSP_SWAGGER_UI
    } else if matches!(
        path,
        "/" | "/report" | "/report/save" | "/report/compare" | "/report/open"
    ) {
        CSP_REPORT
    } else {
        CSP_DEFAULT
    }
}

/// The headers every response carries, with the path's Content-Security-Policy: no MIME
/// sniffing, no framing (`X-Frame-Options` for browsers without `frame-ancestors`), no
/// `Referer` sent on (a report URL holds the buyer's inputs). Defence in depth: the pages
/// escape what they show. The HTTP layer's own error answers get the same headers
/// (`api::wire`).
pub const SECURITY_HEADERS: [(&str, &str); 3] = [
    ("x-content-type-options", "nosniff"),
    ("x-frame-options", "DENY"),
    ("referrer-policy", "no-referrer"),
];

/// Adds the security headers to every response, errors included (an error reaching here
/// answers with its own response, the headers added).
pub async fn security_headers(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, Error> {
    let policy = content_security_policy(req.path());
    match next.call(req).await {
        Ok(mut res) => {
            // A report page answered at an API path (a saved scenario's plan as HTML).
            let html = res
                .headers()
                .get(header::CONTENT_TYPE)
                .is_some_and(|t| t.as_bytes().starts_with(b"text/html"));
            let policy = if html && policy == CSP_DEFAULT {
                CSP_REPORT
            } else {
                policy
            };
            secure(res.headers_mut(), policy);
            Ok(res)
        }
        Err(e) => {
            let mut answer = e.error_response();
            secure(answer.headers_mut(), policy);
            Err(actix_web::error::InternalError::from_response(e.to_string(), answer).into())
        }
    }
}

fn secure(headers: &mut header::HeaderMap, policy: &'static str) {
    for (name, value) in SECURITY_HEADERS {
        headers.insert(
            header::HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(policy),
    );
}
