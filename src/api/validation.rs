//! `GET /v1/validation`: the performance model against every published measurement it is
//! checked on, computed by the running model (JSON, or CSV a row a case).

use actix_web::{HttpRequest, HttpResponse, get, web};
use sha2::{Digest, Sha256};

use super::AppState;
use super::error::{ApiError, ErrorCode};
use super::query::Query;
use super::responses::{JsonOrCsv, QueryProblems, Sheet};
use super::sheets::{etag, negotiate, respond};

use crate::validation::{self, Validation};

impl Sheet for Validation {
    const DESCRIPTION: &'static str = "Every reference case (source, the request that reproduces it, measured, model, error, tolerance, group) and each group's geometric-mean error (JSON), or CSV with a row a case.";
}

/// The model against published measurements.
///
/// Every case of the validation table — nccl-tests all-reduce runs on InfiniBand, RoCE and
/// NVLink domains (one server to 1,984 GPUs, NVL72 racks and trays), each with its source —
/// computed now by the running model on the fabric the measurement ran on: measured, model,
/// error, tolerance, the algorithm chosen, and a `POST /v1/plans` body that reproduces it.
/// Per group, the geometric-mean error and the cases outside their tolerance. `anomaly` rows
/// are shown, never fitted (their own thread calls the figure low). `format=csv` (or
/// `Accept: text/csv`) gives one row a case.
#[utoipa::path(
    tag = "validation",
    params(("format" = Option<String>, Query, description = "`json` (default) or `csv`; else `Accept`.")),
    responses(JsonOrCsv<Validation>, QueryProblems, (status = 422, description = "An unknown query parameter or format.", body = super::error::Problem, content_type = "application/problem+json"))
)]
#[get("/v1/validation")]
pub async fn get_validation(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> Result<HttpResponse, ApiError> {
    let q = Query::from_request(&req)?;
    if let Some((k, _)) = q
        .pairs
        .iter()
        .find(|(k, _)| k != "format" && !k.starts_with('_'))
    {
        return Err(ApiError::field(
            &format!("/{k}"),
            ErrorCode::UnknownField,
            format!(
                "query parameter '{k}' is not read here: GET /v1/validation takes only 'format'"
            ),
        ));
    }
    let format = negotiate(&req, Some(&q))?;
    let set = state.catalogs.current();
    let catalog = set.newest();
    let v = validation::validate(catalog);
    let internal = |e: serde_json::Error| ApiError::internal(&e);
    let (body, content_type, suffix) = format.body(
        || crate::json::to_vec(&v).map_err(internal),
        || Ok(csv(&v).into_bytes()),
    )?;
    // The table is computed: its entity tag is its bytes' digest.
    let digest = Sha256::digest(&body);
    let hex: String = digest.iter().take(16).map(|b| format!("{b:02x}")).collect();
    let tag = etag(&format!("validation-{hex}{suffix}"));
    Ok(respond(&req, &tag, content_type, body))
}

/// The table as CSV: one row a case.
pub fn csv(v: &Validation) -> String {
    use serde_json::json;
    let mut out = crate::table::csv::Csv::new(&[
        "id",
        "group",
        "status",
        "metric",
        "measured",
        "model",
        "error",
        "tolerance",
        "within_tolerance",
        "algorithm",
        "protocol",
        "gpu",
        "gpus",
        "gpus_per_node",
        "nvlink_domain_gpus",
        "nics_per_node",
        "nic_speed_gbps",
        "fabric",
        "message_bytes",
        "source",
    ]);
    for o in &v.cases {
        let c = &o.case;
        out.row([
            json!(c.id),
            json!(crate::words::wire_name(&c.group)),
            json!(crate::words::wire_name(&c.status)),
            json!(crate::words::wire_name(&c.metric)),
            json!(c.measured),
            json!(round4(o.model)),
            json!(round4(o.error)),
            json!(c.tolerance),
            json!(o.within_tolerance),
            json!(o.algorithm),
            json!(o.protocol),
            json!(c.catalog_gpu.as_deref().unwrap_or(&c.gpu)),
            json!(c.gpus),
            json!(c.gpus_per_node),
            json!(c.nvlink_domain_gpus.unwrap_or(c.gpus_per_node)),
            json!(c.nics_per_node),
            json!(c.nic_speed_gbps),
            json!(c.fabric.as_str()),
            json!(c.message_bytes),
            json!(c.source),
        ]);
    }
    out.finish()
}

/// Four decimals for a sheet (a figure's noise is far above them); non-finite as null.
fn round4(x: f64) -> Option<f64> {
    x.is_finite().then(|| (x * 1e4).round() / 1e4)
}
