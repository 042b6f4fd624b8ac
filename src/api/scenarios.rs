//! Saved scenarios: `POST /v1/scenarios`, `GET /v1/scenarios[/{id}[/plan|/revisions]]`, `PUT`,
//! `DELETE`. A scenario keeps its normalized request with the catalog pinned to the version
//! that priced it, so its plan comes back identical after the catalog changed.

use actix_web::http::header::{self, EntityTag, IfMatch};
use actix_web::{HttpRequest, HttpResponse, delete, get, post, put, web};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use validator::{Validate, ValidationError};

use super::AppState;
use super::auth::caller;
use super::error::{ApiError, ErrorCode, Problem};
use super::extract::ValidJson;
use super::query::Query;
use super::responses::{BodyProblems, KeyProblems, NoScenario, ReadOnlyKey, StaleRevision};
use crate::fabric::Fabric;
use crate::plan::{Plan, PlanRequest};
use crate::store::keys::Scope;
use crate::store::scenarios::{self as rows, After, Draft, Listing, RevisionRow, Sort, Write};

/// Longest scenario name and tag (the description's bound and the tag count are on
/// [`ScenarioInput`]).
pub const MAX_NAME_CHARS: u64 = 200;
pub const MAX_TAG_CHARS: usize = 50;
/// Most scenarios a page lists, and the default.
pub const MAX_PAGE: u32 = 200;
pub const DEFAULT_PAGE: u32 = 50;

/// A scenario to save or revise.
#[derive(Debug, Clone, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "March approval", "tags": ["q1"], "request": {"gpus": 1024}}))]
pub struct ScenarioInput {
    /// A name for people (1 to 200 characters).
    #[validate(length(min = 1, max = 200))]
    #[schema(min_length = 1, max_length = 200, example = "March approval")]
    pub name: String,
    /// What it is for (at most 4,000 characters).
    #[validate(length(max = 4000))]
    #[schema(max_length = 4000)]
    pub description: Option<String>,
    /// Labels to filter by: at most 20, each 1 to 50 letters, digits, `-`, `_`, `.` or `:`.
    #[validate(length(max = 20), custom(function = "valid_tags"))]
    #[schema(max_items = 20)]
    pub tags: Option<Vec<String>>,
    /// The plan request, as `POST /v1/plans` takes it. Saved normalized, its catalog pinned to
    /// the version that priced it now (`default@<sha256>`).
    #[validate(nested)]
    pub request: PlanRequest,
}

fn valid_tags(tags: &[String]) -> Result<(), ValidationError> {
    for t in tags {
        if t.is_empty()
            || t.chars().count() > MAX_TAG_CHARS
            || !t
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-_.:".contains(&b))
        {
            let mut e = ValidationError::new("pattern");
            e.message = Some(
                format!("each tag is 1 to {MAX_TAG_CHARS} letters, digits, '-', '_', '.' or ':'")
                    .into(),
            );
            return Err(e);
        }
    }
    Ok(())
}

impl super::shape::Shaped for ScenarioInput {
    fn shape() -> &'static super::shape::Shape {
        static S: std::sync::OnceLock<super::shape::Shape> = std::sync::OnceLock::new();
        S.get_or_init(super::shape::Shape::of::<ScenarioInput>)
    }
}

/// A fabric's headline figures at save time, USD.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct FabricHeadline {
    pub fabric: Fabric,
    pub feasible: bool,
    /// Network capex.
    #[schema(value_type = Option<String>, example = "31456000.00")]
    pub capex_usd: Option<Decimal>,
    /// Network TCO over the horizon.
    #[schema(value_type = Option<String>)]
    pub tco_usd: Option<Decimal>,
    /// GPU time lost to the network over the horizon.
    #[schema(value_type = Option<String>)]
    pub gpu_idle_cost_usd: Option<Decimal>,
    /// TCO plus GPU-idle cost: what the recommendation ranks by.
    #[schema(value_type = Option<String>)]
    pub total_cost_usd: Option<Decimal>,
}

/// The plan's figures at save time (the plan itself is recomputed on demand).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
pub struct Headline {
    /// The fabric with the lowest total cost (null with fewer than two feasible fabrics).
    pub cheapest_fabric: Option<Fabric>,
    pub fabrics: Vec<FabricHeadline>,
}

impl Headline {
    fn of(plan: &Plan) -> Headline {
        Headline {
            cheapest_fabric: plan.comparison.as_ref().map(|c| c.cheapest_fabric),
            fabrics: plan
                .fabrics
                .iter()
                .map(|f| FabricHeadline {
                    fabric: f.fabric,
                    feasible: f.feasible,
                    capex_usd: f.capex.as_ref().map(|c| c.total_usd),
                    tco_usd: f.tco.as_ref().map(|t| t.total_usd),
                    gpu_idle_cost_usd: f.gpu_idle.as_ref().map(|g| g.cost_total_usd),
                    total_cost_usd: f.total_cost_usd,
                })
                .collect(),
        }
    }
}

/// The catalog version a scenario is pinned to.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct PinnedCatalog {
    #[schema(example = "default")]
    pub id: String,
    /// Hex SHA-256 of the catalog's bytes.
    pub sha256: String,
}

/// One revision of a scenario.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Revision {
    /// 1 for the first save, one more for each `PUT`.
    pub revision: i64,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
    /// When it was saved (RFC 3339, UTC).
    pub saved_at: String,
    /// The key that saved it (its id, never its secret).
    pub saved_by_key: String,
    pub catalog: PinnedCatalog,
    /// The plan's id: `GET …/plan?revision=N` answers this id again.
    pub plan_id: String,
    pub headline: Headline,
    /// The normalized request, its catalog pinned.
    #[schema(value_type = Object)]
    pub request: Box<serde_json::value::RawValue>,
}

/// A saved scenario: its current revision, with links.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct Scenario {
    #[schema(example = "9f2c4e1a0b7d4c3e8a6f5d2b1c0e9a7f")]
    pub id: String,
    /// When it was first saved (RFC 3339, UTC).
    pub created_at: String,
    /// When its current revision was saved (RFC 3339, UTC).
    pub updated_at: String,
    #[serde(flatten)]
    pub current: Revision,
    /// `plan`, `revisions` and `self` URLs.
    pub links: ScenarioLinks,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ScenarioLinks {
    #[serde(rename = "self")]
    pub self_: String,
    pub plan: String,
    pub revisions: String,
}

/// One scenario in a listing.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ScenarioSummary {
    pub id: String,
    pub name: String,
    pub description: String,
    pub tags: Vec<String>,
    pub revision: i64,
    pub created_at: String,
    pub updated_at: String,
}

/// A page of scenarios.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct ScenarioPage {
    pub scenarios: Vec<ScenarioSummary>,
    /// Pass as `cursor` for the next page; null on the last page.
    pub next_cursor: Option<String>,
}

/// Every revision of a scenario, oldest first.
#[derive(Debug, Clone, Serialize, ToSchema)]
pub struct RevisionList {
    pub id: String,
    pub revisions: Vec<Revision>,
}

fn revision_out(r: RevisionRow) -> Revision {
    /// The one field read back from a stored request.
    #[derive(Deserialize)]
    struct CatalogOnly {
        catalog: Option<String>,
    }
    let catalog_id = serde_json::from_str::<CatalogOnly>(&r.request)
        .ok()
        .and_then(|c| c.catalog)
        .map(|c| crate::catalog::split_reference(&c).0.to_string())
        .unwrap_or_default();
    Revision {
        revision: r.revision,
        name: r.name,
        description: r.description,
        tags: r.tags,
        saved_at: crate::clock::rfc3339_ms(r.created_ms),
        saved_by_key: r.key_id,
        catalog: PinnedCatalog {
            id: catalog_id,
            sha256: r.catalog_sha256,
        },
        plan_id: r.plan_id,
        headline: serde_json::from_str(&r.headline).unwrap_or(Headline {
            cheapest_fabric: None,
            fabrics: Vec::new(),
        }),
        // Stored as serde wrote it: answered as it is.
        request: serde_json::value::RawValue::from_string(r.request).unwrap_or_else(|_| {
            serde_json::value::RawValue::from_string("null".into()).unwrap_or_default()
        }),
    }
}

fn scenario_out(row: &rows::ScenarioRow, current: RevisionRow) -> Scenario {
    let base = format!("/v1/scenarios/{}", row.id);
    Scenario {
        id: row.id.clone(),
        created_at: crate::clock::rfc3339_ms(row.created_ms),
        updated_at: crate::clock::rfc3339_ms(row.updated_ms),
        current: revision_out(current),
        links: ScenarioLinks {
            plan: format!("{base}/plan"),
            revisions: format!("{base}/revisions"),
            self_: base,
        },
    }
}

fn revision_tag(revision: i64) -> EntityTag {
    EntityTag::new_strong(revision.to_string())
}

/// The revision `If-Match` names (`None` without the header or with `*`); a tag that is not a
/// revision number can match none (412).
fn if_match(req: &HttpRequest) -> Result<Option<i64>, ApiError> {
    use actix_web::http::header::Header;
    match IfMatch::parse(req) {
        Ok(IfMatch::Any) => Ok(None),
        Ok(IfMatch::Items(tags)) if tags.is_empty() => Ok(None),
        Ok(IfMatch::Items(tags)) => Ok(Some(
            tags.iter()
                .find(|t| !t.weak)
                .and_then(|t| t.tag().parse::<i64>().ok())
                .unwrap_or(-1),
        )),
        Err(_) => Err(ApiError::malformed(
            "If-Match must be '*' or entity tags (\"3\") as GET /v1/scenarios/{id} gives them",
        )),
    }
}

fn stale(current: i64) -> ApiError {
    ApiError::new(
        ErrorCode::PreconditionFailed,
        format!(
            "the scenario is at revision {current}, not the one If-Match names; GET it again and reapply the change"
        ),
    )
    .with_extra(serde_json::json!({"current_revision": current}))
}

fn no_scenario(id: &str) -> ApiError {
    ApiError::not_found(format!("no saved scenario '{id}' for this key's team"))
}

/// Plans `input.request` on the catalog version it names (or the newest), and the draft to
/// store: the normalized request with the catalog pinned to its whole sha256.
pub(super) async fn draft(
    state: &AppState,
    input: &ScenarioInput,
    key_id: &str,
) -> Result<Draft, ApiError> {
    let set = super::catalogs_for(state, input.request.catalog.as_deref())
        .await
        .map_err(|e| e.under("/request"))?;
    let reference = input
        .request
        .catalog
        .clone()
        .unwrap_or_else(|| set.newest().id().to_string());
    let Some(catalog) = set.resolve(&reference) else {
        // The plan names the reason (unknown catalog or version).
        return Err(
            super::plan_at(state, &input.request, crate::plan::Detail::Full)
                .await
                .err()
                .unwrap_or_else(|| ApiError::not_found("no such catalog"))
                .under("/request"),
        );
    };
    let (sha, id) = (catalog.sha256.clone(), catalog.id().to_string());
    state.archive.remember(&set).await?;
    let mut pinned = input.request.clone();
    pinned.catalog = Some(format!("{id}@{sha}"));
    let cached = super::plan_at(state, &pinned, crate::plan::Detail::Full)
        .await
        .map_err(|e| e.under("/request"))?;
    let plan = &cached.plan;
    Ok(Draft {
        name: input.name.clone(),
        description: input.description.clone().unwrap_or_default(),
        tags: input.tags.clone().unwrap_or_default(),
        request: serde_json::to_string(&plan.inputs).map_err(|e| ApiError::internal(&e))?,
        catalog_sha256: sha,
        plan_id: plan.plan_id.clone(),
        headline: serde_json::to_string(&Headline::of(plan)).map_err(|e| ApiError::internal(&e))?,
        key_id: key_id.to_string(),
    })
}

/// The revision a write just stored, from what it wrote (no read back).
fn written(row: &rows::ScenarioRow, draft: Draft) -> RevisionRow {
    RevisionRow {
        scenario_id: row.id.clone(),
        revision: row.revision,
        name: draft.name,
        description: draft.description,
        tags: draft.tags,
        request: draft.request,
        catalog_sha256: draft.catalog_sha256,
        plan_id: draft.plan_id,
        headline: draft.headline,
        key_id: draft.key_id,
        created_ms: row.updated_ms,
    }
}

fn with_scenario(mut res: actix_web::HttpResponseBuilder, s: &Scenario) -> HttpResponse {
    res.insert_header(header::ETag(revision_tag(s.current.revision)))
        .insert_header(("Cache-Control", "no-store"))
        .json(s)
}

/// Save a scenario.
///
/// Plans the request (a request that would not plan is a 422 and nothing is stored), pins its
/// catalog to the version that priced it, and stores the normalized request, the catalog's
/// sha256, the `plan_id` and the headline figures as revision 1, owned by the key's team.
/// Answers 201 with `Location` and `ETag`. An `Idempotency-Key` header makes a retried save
/// (a lost answer, a load balancer's retry) return the scenario the first one stored, with
/// `Idempotent-Replayed: true`, and store nothing. Needs a key with scope `write`.
#[utoipa::path(
    tag = "scenarios",
    request_body(content = ScenarioInput, content_type = "application/json"),
    params(("Idempotency-Key" = Option<String>, Header, description = "Up to 100 characters; a repeated key returns the scenario saved with it.")),
    security(("api_key" = [])),
    responses(
        KeyProblems,
        (status = 201, description = "Saved; `Location` names it, `ETag` is its revision. A save repeated with the same `Idempotency-Key` answers the scenario the first one stored, with `Idempotent-Replayed: true`.", body = Scenario),
        BodyProblems,
        ReadOnlyKey,
        (status = 422, description = "Invalid scenario, a request that does not plan, or an `Idempotency-Key` used before for another save.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[post("/v1/scenarios")]
pub async fn create_scenario(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: ValidJson<ScenarioInput>,
) -> Result<HttpResponse, ApiError> {
    Query::for_post(&req)?;
    let key = caller(&req, &state, Scope::Write).await?;
    let idempotency = req
        .headers()
        .get("Idempotency-Key")
        .map(|v| {
            v.to_str()
                .ok()
                .filter(|s| !s.is_empty() && s.len() <= 100)
                .map(str::to_string)
                .ok_or_else(|| {
                    ApiError::malformed("Idempotency-Key must be 1 to 100 visible ASCII characters")
                })
        })
        .transpose()?;
    let draft = draft(&state, &body.0, &key.id).await?;
    let (row, new) = rows::create(
        state.archive.db(),
        &key.team,
        &draft,
        idempotency.as_deref(),
    )
    .await?;
    let current = if new {
        written(&row, draft)
    } else {
        // A replay must be the same save: the first revision's name and request.
        let first = rows::revision(state.archive.db(), &key.team, &row.id, Some(1))
            .await?
            .ok_or_else(|| no_scenario(&row.id))?;
        if first.name != draft.name || first.request != draft.request {
            return Err(ApiError::new(
                ErrorCode::IdempotencyKeyReused,
                format!(
                    "Idempotency-Key was used for scenario {} with another name or request; use a new key for a new save",
                    row.id
                ),
            ));
        }
        rows::revision(state.archive.db(), &key.team, &row.id, None)
            .await?
            .ok_or_else(|| no_scenario(&row.id))?
    };
    let out = scenario_out(&row, current);
    // A replay answers as the first save did (201), and says it is one.
    let mut res = HttpResponse::Created();
    res.insert_header((header::LOCATION, out.links.self_.clone()));
    if !new {
        res.insert_header(("Idempotent-Replayed", "true"));
    }
    Ok(with_scenario(res, &out))
}

/// Parameters of `GET /v1/scenarios`.
#[derive(Debug, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct ListParams {
    /// Only scenarios with this tag.
    tag: Option<String>,
    /// Only scenarios whose name contains this text (any case).
    name: Option<String>,
    /// `name`, `created_at` or `updated_at`; `-` first for descending. Default `-updated_at`.
    sort: Option<String>,
    /// `next_cursor` of the previous page.
    cursor: Option<String>,
    /// Scenarios per page, 1 to 200 (default 50).
    limit: Option<u32>,
}

fn listing(q: &Query) -> Result<(Listing, String), ApiError> {
    for (k, _) in &q.pairs {
        if !["tag", "name", "sort", "cursor", "limit"].contains(&k.as_str()) && !k.starts_with('_')
        {
            return Err(ApiError::field(
                &format!("/{k}"),
                ErrorCode::UnknownField,
                format!(
                    "query parameter '{k}' is not read here; this listing takes tag, name, sort, cursor and limit"
                ),
            ));
        }
    }
    let sort_text = q.single("sort")?.unwrap_or("-updated_at").to_string();
    let (descending, name) = match sort_text.strip_prefix('-') {
        Some(n) => (true, n),
        None => (false, sort_text.as_str()),
    };
    let sort = match name {
        "name" => Sort::Name,
        "created_at" => Sort::Created,
        "updated_at" => Sort::Updated,
        _ => {
            return Err(ApiError::field(
                "/sort",
                ErrorCode::UnknownValue,
                "query parameter 'sort' must be name, created_at or updated_at, '-' first for descending",
            ));
        }
    };
    let limit = match q.single("limit")? {
        None => DEFAULT_PAGE,
        Some(t) => t
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=MAX_PAGE).contains(n))
            .ok_or_else(|| {
                ApiError::field(
                    "/limit",
                    ErrorCode::Range,
                    format!("query parameter 'limit' must be a whole number from 1 to {MAX_PAGE}"),
                )
            })?,
    };
    let after = match q.single("cursor")? {
        None => None,
        Some(c) => Some(decode_cursor(c, sort, &sort_text).ok_or_else(|| {
            ApiError::field(
                "/cursor",
                ErrorCode::Pattern,
                "query parameter 'cursor' is not a cursor of this listing (pass next_cursor as given, with the same sort)",
            )
        })?),
    };
    let text = |name: &str, max: usize| -> Result<Option<String>, ApiError> {
        match q.single(name)? {
            Some(t) if t.chars().count() > max => Err(ApiError::field(
                &format!("/{name}"),
                ErrorCode::Length,
                format!("query parameter '{name}' is at most {max} characters"),
            )),
            Some(t) if !t.is_empty() => Ok(Some(t.to_string())),
            _ => Ok(None),
        }
    };
    Ok((
        Listing {
            tag: text("tag", MAX_TAG_CHARS)?,
            name_contains: text("name", MAX_NAME_CHARS as usize)?,
            sort,
            descending,
            after,
            limit,
        },
        sort_text,
    ))
}

/// A cursor: hex of `sort \n key \n id` (opaque to clients; checked against the listing's sort).
fn encode_cursor(after: &After, sort_text: &str) -> String {
    let (key, id) = match after {
        After::Text(k, id) => (k.clone(), id),
        After::Number(n, id) => (n.to_string(), id),
    };
    format!("{sort_text}\n{key}\n{id}")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

fn decode_cursor(c: &str, sort: Sort, sort_text: &str) -> Option<After> {
    if !c.len().is_multiple_of(2) || c.len() > 2_000 {
        return None;
    }
    let bytes: Option<Vec<u8>> = (0..c.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(c.get(i..i + 2)?, 16).ok())
        .collect();
    let text = String::from_utf8(bytes?).ok()?;
    let mut parts = text.splitn(3, '\n');
    let (s, key, id) = (parts.next()?, parts.next()?, parts.next()?);
    if s != sort_text {
        return None;
    }
    Some(match sort {
        Sort::Name => After::Text(key.to_string(), id.to_string()),
        Sort::Created | Sort::Updated => After::Number(key.parse().ok()?, id.to_string()),
    })
}

/// List saved scenarios.
///
/// The key's team's scenarios, filtered by `tag` and `name`, sorted, a page at a time (pass
/// `next_cursor` back as `cursor`). Needs a key.
#[utoipa::path(
    tag = "scenarios",
    params(ListParams),
    security(("api_key" = [])),
    responses(
        KeyProblems,
        (status = 200, description = "One page.", body = ScenarioPage),
        (status = 422, description = "An invalid parameter.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[get("/v1/scenarios")]
pub async fn list_scenarios(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let key = caller(&req, &state, Scope::Read).await?;
    let q = Query::from_request(&req)?;
    let (listing, sort_text) = listing(&q)?;
    let (page, next) = rows::list(state.archive.db(), &key.team, &listing).await?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(ScenarioPage {
            scenarios: page
                .into_iter()
                .map(|r| ScenarioSummary {
                    created_at: crate::clock::rfc3339_ms(r.created_ms),
                    updated_at: crate::clock::rfc3339_ms(r.updated_ms),
                    id: r.id,
                    name: r.name,
                    description: r.description,
                    tags: r.tags,
                    revision: r.revision,
                })
                .collect(),
            next_cursor: next.map(|a| encode_cursor(&a, &sort_text)),
        }))
}

pub(super) fn scenario_id(id: &str) -> Result<&str, ApiError> {
    if id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit()) {
        Ok(id)
    } else {
        Err(no_scenario(id.get(..40).unwrap_or("…")))
    }
}

/// Show a saved scenario.
///
/// Its current revision: name, tags, the pinned catalog, the `plan_id` and headline figures at
/// save time, the normalized request. `ETag` is the revision (send it as `If-Match` to `PUT` or
/// `DELETE`). Needs a key.
#[utoipa::path(
    tag = "scenarios",
    params(("id" = String, Path, description = "Scenario id.")),
    security(("api_key" = [])),
    responses(
        KeyProblems,
        (status = 200, description = "The scenario.", body = Scenario),
        NoScenario,
    )
)]
#[get("/v1/scenarios/{id}")]
pub async fn get_scenario(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = caller(&req, &state, Scope::Read).await?;
    let id = scenario_id(&id)?;
    let db = state.archive.db();
    let row = rows::get(db, &key.team, id)
        .await?
        .ok_or_else(|| no_scenario(id))?;
    let current = rows::revision(db, &key.team, id, Some(row.revision))
        .await?
        .ok_or_else(|| no_scenario(id))?;
    Ok(with_scenario(
        HttpResponse::Ok(),
        &scenario_out(&row, current),
    ))
}

/// Revise a saved scenario.
///
/// Stores the body as a new revision (the earlier ones stay, each reproducible). With
/// `If-Match`, only when it names the current revision; a stale one is a 412. Needs a key with
/// scope `write`.
#[utoipa::path(
    tag = "scenarios",
    params(
        ("id" = String, Path, description = "Scenario id."),
        ("If-Match" = Option<String>, Header, description = "The `ETag` of the revision this change was made on.")
    ),
    request_body(content = ScenarioInput, content_type = "application/json"),
    security(("api_key" = [])),
    responses(
        KeyProblems,
        (status = 200, description = "The scenario at its new revision.", body = Scenario),
        BodyProblems,
        ReadOnlyKey,
        NoScenario,
        StaleRevision,
        (status = 422, description = "Invalid scenario, or a request that does not plan.", body = Problem, content_type = "application/problem+json"),
    )
)]
#[put("/v1/scenarios/{id}")]
pub async fn revise_scenario(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
    body: ValidJson<ScenarioInput>,
) -> Result<HttpResponse, ApiError> {
    Query::for_post(&req)?;
    let key = caller(&req, &state, Scope::Write).await?;
    let id = scenario_id(&id)?;
    let expected = if_match(&req)?;
    let draft = draft(&state, &body.0, &key.id).await?;
    let db = state.archive.db();
    let row = match rows::revise(db, &key.team, id, expected, &draft).await? {
        Write::Done(row) => row,
        Write::NotFound => return Err(no_scenario(id)),
        Write::Stale(now) => return Err(stale(now)),
    };
    let current = written(&row, draft);
    Ok(with_scenario(
        HttpResponse::Ok(),
        &scenario_out(&row, current),
    ))
}

/// Delete a saved scenario.
///
/// The scenario and every revision. With `If-Match`, only when it names the current revision.
/// Needs a key with scope `write`.
#[utoipa::path(
    tag = "scenarios",
    params(
        ("id" = String, Path, description = "Scenario id."),
        ("If-Match" = Option<String>, Header, description = "The `ETag` of the revision to delete.")
    ),
    security(("api_key" = [])),
    responses(
        KeyProblems,
        (status = 204, description = "Deleted."),
        (status = 400, description = "A malformed `If-Match`.", body = Problem, content_type = "application/problem+json"),
        ReadOnlyKey,
        NoScenario,
        StaleRevision,
    )
)]
#[delete("/v1/scenarios/{id}")]
pub async fn delete_scenario(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = caller(&req, &state, Scope::Write).await?;
    let id = scenario_id(&id)?;
    let expected = if_match(&req)?;
    match rows::delete(state.archive.db(), &key.team, id, expected).await? {
        Write::Done(()) => Ok(HttpResponse::NoContent().finish()),
        Write::NotFound => Err(no_scenario(id)),
        Write::Stale(now) => Err(stale(now)),
    }
}

/// A scenario's revisions.
///
/// Every revision, oldest first, each with its pinned catalog, `plan_id`, headline figures
/// and request. Needs a key.
#[utoipa::path(
    tag = "scenarios",
    params(("id" = String, Path, description = "Scenario id.")),
    security(("api_key" = [])),
    responses(
        KeyProblems,
        (status = 200, description = "The revisions.", body = RevisionList),
        NoScenario,
    )
)]
#[get("/v1/scenarios/{id}/revisions")]
pub async fn list_revisions(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let key = caller(&req, &state, Scope::Read).await?;
    let id = scenario_id(&id)?;
    let list = rows::revisions(state.archive.db(), &key.team, id)
        .await?
        .ok_or_else(|| no_scenario(id))?;
    Ok(HttpResponse::Ok()
        .insert_header(("Cache-Control", "no-store"))
        .json(RevisionList {
            id: id.to_string(),
            revisions: list.into_iter().map(revision_out).collect(),
        }))
}

/// The stored request of a scenario's revision (the current one when `revision` is absent).
pub async fn stored_request(
    state: &AppState,
    team: &str,
    id: &str,
    revision: Option<i64>,
) -> Result<(PlanRequest, RevisionRow), ApiError> {
    let row = rows::revision(state.archive.db(), team, id, revision)
        .await?
        .ok_or_else(|| match revision {
            Some(r) => ApiError::not_found(format!("scenario '{id}' has no revision {r}")),
            None => no_scenario(id),
        })?;
    let request: PlanRequest = serde_json::from_str(&row.request).map_err(|e| {
        ApiError::new(
            ErrorCode::UnknownCatalog,
            format!("revision {} of scenario '{id}' no longer reads as a plan request ({e}); save it again", row.revision),
        )
    })?;
    Ok((request, row))
}
