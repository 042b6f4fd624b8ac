//! `GET /v1/charts/{chart}`: a plan (or a sweep) drawn as SVG or PNG, from the same query
//! parameters as `GET /v1/plans`.

use std::sync::Arc;

use actix_web::{HttpRequest, HttpResponse, get, web};
use sha2::{Digest, Sha256};
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterIn};

use super::AppState;
use super::error::{ApiError, ErrorCode, Problem};
use super::middleware::with_plan_id;
use super::query::{self, Kind, Query};
use super::responses::{Busy, PlanInvalid, QueryProblems};
use super::sheets::{etag, respond, sweeps};
use crate::charts::data::{self, ChartId, SweepInput};
use crate::charts::render;
use crate::plan::cache::CachedPlan;

// ---- the adapter: every plan and sweep the charts and the report page draw comes from here ----

/// The plan for a query, exactly as `GET /v1/plans` makes it (the one place the charts and
/// the report page reach into the query layer).
/// `own`: the endpoint's own (non-plan) parameters.
pub async fn plan_from_query(
    q: &Query,
    own: &[&str],
    state: &AppState,
) -> Result<Arc<CachedPlan>, ApiError> {
    query::plan_from_query(q, own, state).await
}

/// The chart endpoint's own parameters (everything else is a plan input): `format`, `width`
/// and the sweep's own (`vary`, `from`, …, read from `SweepRequest`).
pub fn chart_params() -> &'static [&'static str] {
    static NAMES: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| {
        ["format", "width"]
            .into_iter()
            .chain(sweeps::own_params().iter().map(String::as_str))
            .collect()
    })
}

/// The sweep for a query, exactly as `GET /v1/sweeps` makes it.
pub async fn sweep_from_query(
    q: &Query,
    state: &AppState,
) -> Result<sweeps::SweepResult, ApiError> {
    Ok(sweeps::sweep_from_query(q, chart_params(), state)
        .await?
        .result)
}

/// The OpenAPI parameters of a plan (the same as `GET /v1/plans`).
pub fn plan_parameters() -> Vec<Parameter> {
    query::plan_parameters()
}

// ---- format ----

/// An image format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ImageFormat {
    Svg,
    Png,
}

/// `format=svg|png` wins; otherwise `Accept` (`conneg::preferred`); otherwise SVG.
pub fn negotiate(req: &HttpRequest, q: &Query) -> Result<ImageFormat, ApiError> {
    super::conneg::choose(
        req,
        Some(q),
        &[
            (actix_web::mime::IMAGE_SVG, "svg", ImageFormat::Svg),
            (actix_web::mime::IMAGE_PNG, "png", ImageFormat::Png),
        ],
    )
}

fn width(q: &Query) -> Result<u32, ApiError> {
    let bad = || {
        ApiError::field(
            "/width",
            ErrorCode::Range,
            format!(
                "query parameter 'width' must be an integer from {} to {} (pixels)",
                render::PNG_MIN_WIDTH,
                render::PNG_MAX_WIDTH
            ),
        )
    };
    match q.single("width")? {
        None => Ok(render::WIDTH),
        Some(s) => {
            let w: u32 = s.parse().map_err(|_| bad())?;
            if (render::PNG_MIN_WIDTH..=render::PNG_MAX_WIDTH).contains(&w) {
                Ok(w)
            } else {
                Err(bad())
            }
        }
    }
}

/// Sweep parameters the `sweep` chart takes (the rest of `GET /v1/sweeps`'s are refused).
const SWEEP_NAMES: &[&str] = &["vary", "from", "to", "steps", "scale", "values"];

/// The sweep query for the `sweep` chart: as given, or by default the cluster size from a
/// quarter to four times the plan's (geometric, 9 values).
fn sweep_query(q: &Query, gpus: u32) -> Result<(Query, bool), ApiError> {
    for n in ["vary2", "from2", "to2", "steps2", "scale2", "values2"] {
        if q.single(n)?.is_some() {
            return Err(ApiError::field(
                &format!("/{n}"),
                ErrorCode::InvalidSweep,
                "the sweep chart draws one varied input; a grid (vary2) is available as data from /v1/sweeps",
            ));
        }
    }
    let mut out = q.clone();
    // The chart draws point totals: an uncertainty analysis in the query is for the plan, not
    // for each sweep point (sweeps refuse it).
    out.pairs.retain(|(k, _)| !k.starts_with("uncertainty."));
    let geometric = if q.single("vary")?.is_none() {
        for n in SWEEP_NAMES {
            if q.single(n)?.is_some() {
                return Err(ApiError::field(
                    "/vary",
                    ErrorCode::InvalidSweep,
                    format!("'{n}' is given but 'vary' is not: name the input to vary"),
                ));
            }
        }
        let (from, to) = crate::report::default_sweep_range(gpus);
        out.pairs.retain(|(k, _)| k != "gpus");
        out.pairs.extend([
            ("vary".to_string(), "gpus".to_string()),
            ("from".to_string(), from.to_string()),
            ("to".to_string(), to.to_string()),
            ("steps".to_string(), "9".to_string()),
            ("scale".to_string(), "geometric".to_string()),
        ]);
        true
    } else {
        // The chart's plan takes the varied input's value if the query gives one; the sweep
        // varies it (and would otherwise note the value as replaced).
        if let Some(vary) = q.single("vary")? {
            out.pairs.retain(|(k, _)| k != vary);
        }
        q.single("scale")? == Some("geometric")
    };
    Ok((out, geometric))
}

/// Query parameters of `GET /v1/charts/{chart}`.
pub struct ChartParams;

impl IntoParams for ChartParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let mut v = vec![
            query::extra_param(
                "format",
                false,
                "`svg` (default; also `Accept: image/svg+xml`) or `png` (also `Accept: image/png`).",
                Kind::Enum(&["svg", "png"]),
            ),
            query::extra_param(
                "width",
                false,
                "PNG width in pixels, 320–2400 (default 720); the height is width × 5/8. The SVG is always 720 × 450 and scales.",
                Kind::Int(320, 2400),
            ),
        ];
        let sweep_params = <sweeps::SweepParams as IntoParams>::into_params(|| None);
        for mut p in sweep_params {
            if SWEEP_NAMES.contains(&p.name.as_str()) {
                p.required = utoipa::openapi::Required::False;
                p.description = Some(format!(
                    "`sweep` chart only: {} Default: `vary=gpus` from a quarter to four times `gpus`, 9 geometric steps.",
                    p.description.unwrap_or_default()
                ));
                v.push(p);
            }
        }
        v.extend(plan_parameters());
        v
    }
}

/// How long a chart waits for a render permit before it is a 503 busy: a PNG of the largest
/// width takes about 50 ms of a core, so a queue of this length clears in well under it.
pub const RENDER_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

/// Charts rendered at once: one per core (at least 2), so a burst of PNG requests queues for
/// cores instead of holding one pixmap per request (256 at once held 3.1 GB).
pub fn render_permits() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().max(2))
}

/// A permit to render, within [`RENDER_WAIT`], or a 503 busy with `Retry-After`.
async fn render_permit(state: &AppState) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    let wait = Arc::clone(&state.renders).acquire_owned();
    match tokio::time::timeout(RENDER_WAIT, wait).await {
        Ok(Ok(permit)) => Ok(permit),
        _ => Err(ApiError::new(
            crate::error_code::ErrorCode::Busy,
            format!(
                "{} charts are being drawn and more are waiting; retry in a second",
                render_permits()
            ),
        )
        .with_retry_after(1)),
    }
}

/// The 404 of a chart name that is none of the charts.
pub fn unknown_chart(name: &str) -> ApiError {
    ApiError::not_found(format!(
        "no chart named '{name}'; charts: cost, cumulative, sweep, tornado"
    ))
}

/// A PNG image's bytes: in OpenAPI a binary string (not an array of integers).
pub struct PngBytes;

impl utoipa::PartialSchema for PngBytes {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, Type};
        ObjectBuilder::new()
            .schema_type(Type::String)
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::Binary)))
            .description(Some("The PNG image's bytes."))
            .into()
    }
}

impl utoipa::ToSchema for PngBytes {}

/// Draw a plan as a chart (SVG or PNG).
///
/// `cost`: per fabric, capex by category (NICs, switches, optics, cables, licences), opex over
/// the horizon and GPU-idle cost, stacked; the bar's total is `total_cost_usd`. `cumulative`:
/// per fabric, network TCO plus GPU-idle cost paid by the end of each year (year 0 = capex);
/// where lines cross is the break-even year. `sweep`: total cost against a swept input
/// (`vary`, `from`, `to`, `steps`, `scale` or `values` as in `GET /v1/sweeps`; default the
/// cluster size from a quarter to four times `gpus`), crossovers marked. Every plan input as in
/// `GET /v1/plans`. Okabe–Ito colours, axis units, the catalog version and plan id in the
/// footer. `format=png` (or `Accept: image/png`) for spreadsheets' `IMAGE()`. `sweep` and
/// `tornado` (an uncertainty analysis) can answer 503 (busy), as `GET /v1/sweeps` does.
#[utoipa::path(
    tag = "charts",
    params(
        ("chart" = ChartId, Path, description = "Which chart: `cost`, `cumulative`, `sweep` or `tornado`."),
        ChartParams
    ),
    responses(
        (status = 200, description = "The chart.", content(
            (String = "image/svg+xml"),
            (PngBytes = "image/png")
        )),
        QueryProblems,
        (status = 404, description = "No chart with that name.", body = Problem, content_type = "application/problem+json"),
        PlanInvalid,
        Busy
    )
)]
#[get("/v1/charts/{chart}")]
pub async fn get_chart(
    req: HttpRequest,
    path: web::Path<String>,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let name = path.into_inner();
    let Some(id) = ChartId::parse(&name) else {
        return Err(unknown_chart(&name));
    };
    let q = Query::from_request(&req)?;
    let format = negotiate(&req, &q)?;
    let width = width(&q)?;
    // The tornado needs an analysis: the default one when the query asks for none.
    let mut q = q;
    if id == ChartId::Tornado {
        q.ensure_analysis();
    }
    let cached = plan_from_query(&q, chart_params(), &state).await?;
    let plan = &cached.plan;
    let chart = match id {
        ChartId::Tornado => data::tornado(plan).ok_or_else(|| {
            ApiError::field(
                "/fabrics",
                crate::error_code::ErrorCode::NoComparison,
                "a tornado compares two fabrics: the plan has fewer than two feasible ones",
            )
        })?,
        ChartId::Cost => data::cost_breakdown(plan),
        ChartId::Cumulative => data::cumulative(plan),
        ChartId::Sweep => {
            let (sq, geometric) = sweep_query(&q, plan.inputs.gpus.get())?;
            let s = sweep_from_query(&sq, &state).await?;
            data::sweep(
                plan,
                &SweepInput {
                    vary: &s.vary,
                    rows: &s.rows,
                    crossovers: &s.crossovers,
                    geometric,
                    notes: &s.notes,
                },
            )
        }
    };
    let permit = render_permit(&state).await?;
    let (body, ct) = web::block(move || -> Result<(Vec<u8>, &'static str), ApiError> {
        let _permit = permit;
        let svg = render::svg(&chart).map_err(|e| ApiError::internal(&e))?;
        Ok(match format {
            ImageFormat::Svg => (svg.into_bytes(), "image/svg+xml"),
            ImageFormat::Png => (
                render::png(&svg, width).map_err(|e| ApiError::internal(&e))?,
                "image/png",
            ),
        })
    })
    .await
    .map_err(|e| ApiError::internal(&e))??;
    let hash: String = Sha256::digest(&body)
        .iter()
        .take(16)
        .map(|b| format!("{b:02x}"))
        .collect();
    let res = respond(&req, &etag(&format!("chart-{hash}")), ct, body);
    Ok(with_plan_id(res, &plan.plan_id))
}
