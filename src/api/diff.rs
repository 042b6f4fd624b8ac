//! `GET /v1/diff?from=…&to=…`: two saved scenarios, two revisions, or a scenario and an ad-hoc
//! plan query, compared ([`crate::plan::diff`]).

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, get, web};
use utoipa::IntoParams;

use super::AppState;
use super::auth::caller;
use super::error::{ApiError, ErrorCode, Problem};
use super::query::Query;
use super::responses::{KeyProblems, NoScenario};
use super::scenarios::stored_request;
use crate::plan::diff::{PlanDiff, diff, diff_rows};
use crate::store::keys::Scope;
use crate::table::csv::Csv;

/// Parameters of `GET /v1/diff`; any other parameter is a plan input of the `plan` side.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct DiffParams {
    /// `<scenario id>` (its current revision), `<scenario id>@<revision>`, or `plan` (the plan
    /// the other query parameters describe, as `GET /v1/plans` reads them).
    #[param(example = "9f2c4e1a0b7d4c3e8a6f5d2b1c0e9a7f@1")]
    from: String,
    /// As `from`.
    #[param(example = "9f2c4e1a0b7d4c3e8a6f5d2b1c0e9a7f@2")]
    to: String,
    /// `json` (default) or `csv`.
    format: Option<String>,
}

/// Names this endpoint reads itself (the rest describe the `plan` side).
const OWN: &[&str] = &["from", "to", "format"];

/// One side: a scenario revision or the query's plan.
enum Side<'a> {
    Scenario { id: &'a str, revision: Option<i64> },
    Query,
}

fn side<'a>(name: &str, text: &'a str) -> Result<Side<'a>, ApiError> {
    if text == "plan" {
        return Ok(Side::Query);
    }
    let (id, revision) = scenario_reference(name, text)?;
    Ok(Side::Scenario { id, revision })
}

/// A scenario reference `<id>` or `<id>@<revision>` given as parameter `name`.
pub fn scenario_reference<'a>(
    name: &str,
    text: &'a str,
) -> Result<(&'a str, Option<i64>), ApiError> {
    let (id, revision) = match text.split_once('@') {
        Some((id, r)) => (id, Some(r)),
        None => (text, None),
    };
    let bad = || {
        ApiError::field(
            &format!("/{name}"),
            ErrorCode::Pattern,
            format!(
                "query parameter '{name}' must be a scenario id (32 hex digits), optionally '@' and a revision number{}",
                if name == "_scenario" {
                    ""
                } else {
                    ", or 'plan'"
                }
            ),
        )
    };
    if id.len() != 32 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(bad());
    }
    let revision = match revision {
        None => None,
        Some(r) => Some(revision_number(r).ok_or_else(bad)?),
    };
    Ok((id, revision))
}

/// A revision number as a request writes it: a whole number from 1.
pub fn revision_number(text: &str) -> Option<i64> {
    text.parse::<i64>().ok().filter(|r| *r >= 1)
}

async fn plan_of(
    state: &AppState,
    q: &Query,
    team: &str,
    side: &Side<'_>,
) -> Result<(Arc<crate::plan::cache::CachedPlan>, String), ApiError> {
    match side {
        Side::Query => Ok((
            super::query::plan_from_query(q, OWN, state).await?,
            "plan query".to_string(),
        )),
        Side::Scenario { id, revision } => {
            let (request, row) = stored_request(state, team, id, *revision).await?;
            let plan = super::plan_at(state, &request, crate::plan::Detail::Full).await?;
            Ok((plan, format!("scenario {id} revision {}", row.revision)))
        }
    }
}

/// The diff of saved scenario `reference` (`<id>` or `<id>@<revision>`) and the plan that the
/// query `q` describes (the report page's "Compare with…").
pub async fn scenario_against_query(
    state: &AppState,
    team: &str,
    reference: &str,
    q: &Query,
) -> Result<PlanDiff, ApiError> {
    let from = side("_scenario", reference)?;
    let (a, a_label) = plan_of(state, q, team, &from).await?;
    let (b, b_label) = plan_of(state, q, team, &Side::Query).await?;
    Ok(diff(&a.plan, &a_label, &b.plan, &b_label))
}

/// Compare two plans.
///
/// `from` and `to` each name a saved scenario (its current revision), one revision of it
/// (`<id>@<n>`), or `plan`: the plan that the other query parameters describe, as
/// `GET /v1/plans` reads them (so a saved scenario can be compared with this week's quote).
/// Answers what changed: the inputs; per fabric capex by category, opex by line, TCO, NPV,
/// GPU-idle cost and total; BOM lines added, removed, re-priced or re-counted; and whether the
/// recommendation changed and why. JSON, or CSV (`format=csv`: section, fabric, item, change,
/// from, to, delta). Needs a key.
#[utoipa::path(
    tag = "scenarios",
    params(DiffParams),
    security(("api_key" = [])),
    responses(
        KeyProblems,
        (status = 200, description = "The diff (JSON), or one CSV row per change.", body = PlanDiff, content_type = "application/json"),
        NoScenario,
        (status = 422, description = "An invalid `from`, `to` or plan parameter.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/diff")]
pub async fn get_diff(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let key = caller(&req, &state, Scope::Read).await?;
    let q = Query::from_request(&req)?;
    let format = super::sheets::negotiate(&req, Some(&q))?;
    let text = |name: &str| -> Result<String, ApiError> {
        q.single(name)?.map(str::to_string).ok_or_else(|| {
            ApiError::field(
                &format!("/{name}"),
                ErrorCode::Required,
                format!("query parameter '{name}' is required: a scenario id, '<id>@<revision>' or 'plan'"),
            )
        })
    };
    let (from_text, to_text) = (text("from")?, text("to")?);
    let (from, to) = (side("from", &from_text)?, side("to", &to_text)?);
    let uses_query = matches!(from, Side::Query) || matches!(to, Side::Query);
    if !uses_query
        && let Some((k, _)) = q
            .pairs
            .iter()
            .find(|(k, _)| !OWN.contains(&k.as_str()) && !k.starts_with('_'))
    {
        return Err(ApiError::field(
            &format!("/{k}"),
            ErrorCode::UnknownField,
            format!(
                "query parameter '{k}' describes a plan, but neither 'from' nor 'to' is 'plan'"
            ),
        ));
    }
    let (a, a_label) = plan_of(&state, &q, &key.team, &from).await?;
    let (b, b_label) = plan_of(&state, &q, &key.team, &to).await?;
    let d = diff(&a.plan, &a_label, &b.plan, &b_label);
    let (body, media_type, _) = format.body(
        || crate::json::to_vec(&d).map_err(|e| ApiError::internal(&e)),
        || {
            let mut csv = Csv::new(&["section", "fabric", "item", "change", "from", "to", "delta"]);
            for row in diff_rows(&d) {
                csv.row(row);
            }
            Ok(csv.finish().into_bytes())
        },
    )?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .content_type(media_type)
        .body(body))
}
