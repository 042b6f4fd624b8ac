//! API keys on the saved-scenario endpoints: `Authorization: Bearer ftco_…`. A missing or
//! invalid key is a 401, a read key that writes a 403. Neither the header nor the key is ever
//! logged (the access log writes method, path and status only).

use actix_web::HttpRequest;
use actix_web::http::header;

use super::AppState;
use super::error::{ApiError, ErrorCode};
use crate::store::keys::{self, KeyRow, Scope};

/// The key presented with `req`, verified, and allowed `need`.
pub async fn caller(req: &HttpRequest, state: &AppState, need: Scope) -> Result<KeyRow, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Err(ApiError::new(
            ErrorCode::Unauthorized,
            "saved scenarios need an API key: send 'Authorization: Bearer <key>' (keys come from 'fabric-tco keys create --name N --scope read|write')",
        ));
    };
    let token = value
        .to_str()
        .ok()
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .unwrap_or("");
    caller_token(state, token, need).await
}

/// The key `token` (as a form on the report page sends it), verified, and allowed `need`.
pub async fn caller_token(state: &AppState, token: &str, need: Scope) -> Result<KeyRow, ApiError> {
    let key = keys::verify(state.archive.db(), token)
        .await?
        .ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unauthorized,
                "the API key is not valid (unknown, mistyped or revoked)",
            )
        })?;
    if need == Scope::Write && key.scope == Scope::Read {
        return Err(ApiError::new(
            ErrorCode::Forbidden,
            format!(
                "key '{}' may read only; saving, revising and deleting need a key with --scope write",
                key.name
            ),
        ));
    }
    Ok(key)
}
