//! Content negotiation and conditional responses, through actix-web's typed headers: which
//! representation `Accept` (or `format=`) asks for, and 200 or 304 by `If-None-Match`, with an
//! `ETag` and `Cache-Control: no-store` on every read endpoint's answer.

use actix_web::http::header::{
    self, Accept, CacheControl, CacheDirective, ETag, EntityTag, Header, IfNoneMatch, Quality,
};
use actix_web::{HttpRequest, HttpResponse};

use super::error::ApiError;
use super::query::Query;
use crate::error_code::ErrorCode;

/// A representation a read endpoint can return.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Json,
    Csv,
    /// A workbook (`format=xlsx`), offered by the plan endpoints only ([`negotiate_plan`]).
    Xlsx,
}

impl Format {
    /// The body in this format (`json` or `csv` makes it), its media type and the suffix its
    /// entity tag takes (`-csv` for CSV, none for JSON).
    pub fn body<B>(
        self,
        json: impl FnOnce() -> Result<B, ApiError>,
        csv: impl FnOnce() -> Result<B, ApiError>,
    ) -> Result<(B, &'static str, &'static str), ApiError> {
        Ok(match self {
            Format::Json => (json()?, "application/json", ""),
            Format::Csv => (csv()?, crate::table::csv::TEXT_CSV, "-csv"),
            // Not offered where a body is made this way (a caller offering it answers it).
            Format::Xlsx => return Err(not_offered()),
        })
    }

    /// [`Self::body`] with the workbook `xlsx` makes, for a representation that has one.
    pub fn body_or_workbook<B>(
        self,
        json: impl FnOnce() -> Result<B, ApiError>,
        csv: impl FnOnce() -> Result<B, ApiError>,
        xlsx: impl FnOnce() -> Result<B, ApiError>,
    ) -> Result<(B, &'static str, &'static str), ApiError> {
        Ok(match self {
            Format::Xlsx => (xlsx()?, crate::table::workbook::XLSX, "-xlsx"),
            other => return other.body(json, csv),
        })
    }
}

fn not_offered() -> ApiError {
    ApiError::new(
        ErrorCode::NotAcceptable,
        "a workbook (xlsx) is offered for plans, saved scenarios' plans and sweeps only",
    )
}

/// The media type of a workbook.
pub fn xlsx_mime() -> actix_web::mime::Mime {
    crate::table::workbook::XLSX
        .parse()
        .unwrap_or(actix_web::mime::APPLICATION_OCTET_STREAM)
}

/// A plan's or a sweep's representations: [`negotiate`]'s, and a workbook (`format=xlsx` or
/// `Accept: application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`).
pub fn negotiate_plan(req: &HttpRequest, q: Option<&Query>) -> Result<Format, ApiError> {
    choose(
        req,
        q,
        &[
            (actix_web::mime::APPLICATION_JSON, "json", Format::Json),
            (actix_web::mime::TEXT_CSV, "csv", Format::Csv),
            (xlsx_mime(), "xlsx", Format::Xlsx),
        ],
    )
}

/// A plan's workbook as the answer: its entity tag (`"<plan tag>-xlsx"`), no-store, and a
/// file name (`fabric-tco-<plan_id>.xlsx`).
pub fn workbook_answer(
    req: &HttpRequest,
    tag: &str,
    plan: &crate::plan::Plan,
) -> Result<HttpResponse, ApiError> {
    let bytes = crate::table::workbook::plan_workbook(plan).map_err(|e| ApiError::internal(&e))?;
    let mut res = respond(
        req,
        &etag(&format!("{tag}-xlsx")),
        crate::table::workbook::XLSX,
        bytes,
    );
    if res.status() == actix_web::http::StatusCode::OK
        && let Ok(v) = header::HeaderValue::from_str(&format!(
            "attachment; filename=\"fabric-tco-{}.xlsx\"",
            plan.plan_id
        ))
    {
        res.headers_mut().insert(header::CONTENT_DISPOSITION, v);
    }
    Ok(res)
}

/// `format=csv|json` wins; otherwise `Accept` ([`preferred`]); otherwise JSON.
pub fn negotiate(req: &HttpRequest, q: Option<&Query>) -> Result<Format, ApiError> {
    choose(
        req,
        q,
        &[
            (actix_web::mime::APPLICATION_JSON, "json", Format::Json),
            (actix_web::mime::TEXT_CSV, "csv", Format::Csv),
        ],
    )
}

/// Which of `offered` (media type, `format=` name, representation; the first is the default)
/// the request asks for: `format=<name>` (any case) wins; otherwise `Accept` ([`preferred`]);
/// otherwise the first. A `format` naming none of them is a 422 that lists the names.
pub fn choose<F: Copy>(
    req: &HttpRequest,
    q: Option<&Query>,
    offered: &[(actix_web::mime::Mime, &str, F)],
) -> Result<F, ApiError> {
    if let Some(q) = q
        && let Some(f) = q.single("format")?
    {
        let f = f.to_ascii_lowercase();
        return match offered.iter().find(|(_, name, _)| *name == f) {
            Some(&(_, _, chosen)) => Ok(chosen),
            None => {
                let names: Vec<String> = offered.iter().map(|(_, n, _)| format!("'{n}'")).collect();
                Err(ApiError::field(
                    "/format",
                    ErrorCode::UnknownValue,
                    format!(
                        "query parameter 'format' must be {} (got '{f}')",
                        names.join(" or ")
                    ),
                ))
            }
        };
    }
    let media_types: Vec<_> = offered.iter().map(|(m, _, _)| m.clone()).collect();
    Ok(offered[preferred(req, &media_types)].2)
}

/// Which of `offered` (the first is the default) the request's `Accept` prefers. The header is
/// parsed by actix-web's typed `Accept` (media ranges with their `Quality`); each offered type
/// takes the quality of the most specific range that covers it (RFC 9110 §12.5.1: `text/csv`
/// over `text/*` over `*/*`, so `application/json;q=0, */*;q=0.1` refuses JSON and accepts
/// CSV); the highest quality above zero wins, ties going to the earlier offered type. No
/// `Accept`, an unparsable one, or one that accepts none: the default.
pub fn preferred(req: &HttpRequest, offered: &[actix_web::mime::Mime]) -> usize {
    use actix_web::mime::{Mime, STAR};
    let Ok(Accept(ranges)) = Accept::parse(req) else {
        return 0;
    };
    let specificity = |r: &Mime| match (r.type_() == STAR, r.subtype() == STAR) {
        (true, _) => 0,
        (false, true) => 1,
        (false, false) => 2,
    };
    let quality = |m: &Mime| {
        ranges
            .iter()
            .filter(|r| {
                (r.item.type_() == STAR || r.item.type_() == m.type_())
                    && (r.item.subtype() == STAR || r.item.subtype() == m.subtype())
            })
            .max_by_key(|r| (specificity(&r.item), r.quality))
            .map_or(Quality::ZERO, |r| r.quality)
    };
    let mut best = (0, Quality::ZERO);
    for (i, m) in offered.iter().enumerate() {
        let q = quality(m);
        if q > best.1 {
            best = (i, q);
        }
    }
    best.0
}

/// A strong entity tag.
pub fn etag(id: &str) -> EntityTag {
    EntityTag::new_strong(id.to_string())
}

/// True when the request's `If-None-Match` (typed) names this tag (weak comparison, as RFC
/// 9110 asks for `If-None-Match`) or is `*`.
fn matches_if_none_match(req: &HttpRequest, tag: &EntityTag) -> bool {
    match IfNoneMatch::parse(req) {
        Ok(IfNoneMatch::Any) => true,
        Ok(IfNoneMatch::Items(tags)) => tags.iter().any(|t| t.weak_eq(tag)),
        Err(_) => false,
    }
}

/// 200 with the body, or 304 when `If-None-Match` matches; `Cache-Control: no-store` and the
/// `ETag` either way.
pub fn respond(
    req: &HttpRequest,
    tag: &EntityTag,
    content_type: &str,
    body: impl actix_web::body::MessageBody + 'static,
) -> HttpResponse {
    let not_modified = matches_if_none_match(req, tag);
    let mut res = if not_modified {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    res.insert_header(ETag(tag.clone()))
        .insert_header(CacheControl(vec![CacheDirective::NoStore]));
    if not_modified {
        return res.finish();
    }
    res.insert_header((header::CONTENT_TYPE, content_type))
        .body(body)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_prefers_csv_only_when_asked() {
        let pick = |accept: &str| {
            let req = actix_web::test::TestRequest::default()
                .insert_header((header::ACCEPT, accept))
                .to_http_request();
            negotiate(&req, None).expect("format")
        };
        assert_eq!(pick("text/csv"), Format::Csv);
        assert_eq!(pick("*/*"), Format::Json);
        assert_eq!(pick("application/json, text/csv;q=0.5"), Format::Json);
        assert_eq!(pick("text/csv, application/json;q=0.5"), Format::Csv);
        assert_eq!(
            pick("text/html,application/xhtml+xml,*/*;q=0.8"),
            Format::Json
        );
        assert_eq!(pick("text/*"), Format::Csv);
        assert_eq!(pick("application/json;q=0, text/csv;q=0.1"), Format::Csv);
        assert_eq!(pick("text/html"), Format::Json);
        assert_eq!(pick("not a media type"), Format::Json);
        let none = actix_web::test::TestRequest::default().to_http_request();
        assert_eq!(negotiate(&none, None).expect("format"), Format::Json);
    }

    #[test]
    fn an_unknown_format_is_refused_naming_the_choices() {
        let req = actix_web::test::TestRequest::default().to_http_request();
        let q = Query::parse("format=XLSX").expect("query");
        let err = negotiate(&req, Some(&q)).expect_err("refused");
        let problem = serde_json::to_value(err.problem()).expect("json");
        assert_eq!(problem["errors"][0]["pointer"], "/format");
        assert_eq!(problem["errors"][0]["code"], "unknown_value");
        assert_eq!(
            problem["errors"][0]["detail"],
            "query parameter 'format' must be 'json' or 'csv' (got 'xlsx')"
        );
        let q = Query::parse("format=CSV").expect("query");
        assert_eq!(negotiate(&req, Some(&q)).expect("format"), Format::Csv);
        let q = Query::parse("format=gif").expect("query");
        let err = crate::api::charts::negotiate(&req, &q).expect_err("refused");
        assert_eq!(
            err.problem().errors[0].detail,
            "query parameter 'format' must be 'svg' or 'png' (got 'gif')"
        );
    }

    #[test]
    fn if_none_match_is_typed_and_weak() {
        let tag = etag("abc");
        let with = |v: &str| {
            actix_web::test::TestRequest::default()
                .insert_header((header::IF_NONE_MATCH, v))
                .to_http_request()
        };
        assert!(matches_if_none_match(&with("\"abc\""), &tag));
        assert!(matches_if_none_match(&with("W/\"abc\""), &tag));
        assert!(matches_if_none_match(&with("\"x\", \"abc\""), &tag));
        assert!(matches_if_none_match(&with("*"), &tag));
        assert!(!matches_if_none_match(&with("\"abcd\""), &tag));
        assert!(
            !matches_if_none_match(&with("abc"), &tag),
            "unquoted is not a tag"
        );
    }
}
