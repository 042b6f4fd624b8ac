//! A computed sweep's answer: JSON in parts (rows written on several threads) or CSV, encoded
//! on heavy threads, with its entity tag.

use std::sync::Arc;
use std::time::Instant;

use actix_web::http::header::EntityTag;
use actix_web::{HttpRequest, HttpResponse};
use sha2::{Digest, Sha256};

use super::{Computed, SweepResult, too_slow};
use crate::api::AppState;
use crate::api::error::ApiError;
use crate::api::heavy;
use crate::api::parts::{Held, Parts};
use crate::api::sheets::{Format, etag, respond};
use crate::plan;
use crate::table::{NamedSweepRow, member};

/// The answer, encoded on heavy threads ([`heavy::Heavy::run_then_free`], JSON rows on every computing permit it
/// gets): a 10,000-point sweep is ~30 MB of JSON, whose encoding takes tens of ms that must
/// not stall this worker's event loop (measured by `benches/starve.py`: /healthz waited up to
/// 485 ms behind it) nor, at normal priority, the request threads.
pub(super) async fn render(
    req: &HttpRequest,
    state: &AppState,
    format: Format,
    c: Computed,
) -> Result<HttpResponse, ApiError> {
    let (until, limit) = (c.until, c.limit);
    let encoding = state.heavy.run_then_free(move || {
        let Computed {
            result,
            slot,
            permits,
            until,
            limit,
        } = c;
        let encoded = if Instant::now() >= until {
            // Computed, but its time is up (its heavy threads waited for a core).
            Err(too_slow(limit))
        } else {
            encode(format, &result, permits.threads())
        };
        // Computed and encoded: the computing slot goes back now, not when the client has
        // read the answer ([`Held`] holds its bytes' share of the unsent budget instead).
        drop(permits);
        drop(slot);
        (encoded, result)
    });
    let (body, ct, tag) = heavy::by(until, || too_slow(limit), async { encoding.await? }).await?;
    let unsent = unsent_share(state, body.len())?;
    let reader = state.unsent_by_peer.hold(req.peer_addr().map(|a| a.ip()));
    Ok(respond(req, &tag, ct, Held::new(body, (unsent, reader))))
}

/// A 503 busy when this client's address has [`crate::api::parts::MAX_UNSENT_PER_PEER`] heavy
/// answers it has not read yet (asked before computing another).
pub(crate) fn admit_reader(state: &AppState, req: &HttpRequest) -> Result<(), ApiError> {
    if state.unsent_by_peer.admits(req.peer_addr().map(|a| a.ip())) {
        return Ok(());
    }
    Err(ApiError::new(
        crate::error_code::ErrorCode::Busy,
        format!(
            "this client has {} sweep answers it has not read yet; read them (or close their connections) and retry",
            crate::api::parts::MAX_UNSENT_PER_PEER
        ),
    )
    .with_retry_after(5))
}

/// `len` bytes' share of the answers waiting for their clients ([`crate::api::parts::UNSENT_KIB`]),
/// or a 503 busy when slow readers hold it all.
pub(crate) fn unsent_share(
    state: &AppState,
    len: u64,
) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    let kib = crate::api::parts::unsent_kib(len);
    std::sync::Arc::clone(&state.unsent)
        .try_acquire_many_owned(kib)
        .map_err(|_| {
            ApiError::new(
                crate::error_code::ErrorCode::Busy,
                format!(
                    "answers their clients have not read yet hold the {} MiB kept for them; retry in a few seconds",
                    crate::api::parts::UNSENT_KIB / 1024
                ),
            )
            .with_retry_after(5)
        })
}

/// The sweep as JSON, in parts: the bytes `serde_json::to_vec` gives for a [`SweepResult`],
/// with the rows written by [`crate::table::sweep_rows_json`] (each point's warnings escaped
/// once) on up to `threads` threads.
pub(super) fn sweep_json(r: &SweepResult, threads: usize) -> serde_json::Result<Parts> {
    let mut head = Vec::with_capacity(64);
    head.extend_from_slice(b"{\"vary\":");
    crate::json::to_writer(&mut head, &r.vary)?;
    if let Some(v2) = &r.vary2 {
        member(&mut head, "vary2", v2)?;
    }
    member(&mut head, "warnings", &r.warnings)?;
    head.extend_from_slice(b",\"rows\":");
    let mut out = Parts::from(head);
    for part in crate::table::sweep_rows_json(&r.rows, threads)? {
        out.push(part);
    }
    let mut tail = Vec::new();
    member(&mut tail, "crossovers", &r.crossovers)?;
    member(&mut tail, "plans_computed", &r.plans_computed)?;
    tail.push(b'}');
    out.push(tail);
    Ok(out)
}

/// The sweep as JSON or CSV, its content type and entity tag ([`sweep_tag`]).
fn encode(
    format: Format,
    r: &SweepResult,
    threads: usize,
) -> Result<(Parts, &'static str, EntityTag), ApiError> {
    let (body, ct, suffix) = format.body_or_workbook(
        || sweep_json(r, threads).map_err(|e| ApiError::internal(&e)),
        || Ok(Parts::from(r.csv().into_bytes())),
        || {
            crate::table::workbook::sweep_workbook(
                &r.vary,
                r.vary2.as_deref(),
                &r.warnings,
                &r.rows,
                &r.crossovers,
            )
            .map(Parts::from)
            .map_err(|e| ApiError::internal(&e))
        },
    )?;
    Ok((
        body,
        ct,
        etag(&format!("sweep-{}{suffix}", sweep_tag(r, threads))),
    ))
}

/// The sweep's entity tag: a hash of what its answer is made from, not of the answer's bytes.
/// Each row's `plan_id` hashes the point's whole normalised request and the catalog, which fix
/// its figures; each point's warnings are hashed too, so that no text rests on the request's
/// normalisation alone (a GPU-hour value of 0 given and none given for an unpriced GPU once
/// normalised alike and warned differently); with the varied inputs, the values, the
/// crossovers and this build's id (a fingerprint of the source, `build.rs`) they fix every
/// byte of the answer. Hashing ~30 bytes a row and ~700 a point instead of ~2.8 KB a row: the
/// SHA-256 of a 10,000-point answer was 7 % of the sweep's time (docs/performance.md,
/// session 9). The rows are hashed in leaves of [`TAG_LEAF_ROWS`] on up to `threads` threads,
/// and the leaves' digests in order: the tag does not depend on the threads.
pub(super) fn sweep_tag(r: &SweepResult, threads: usize) -> String {
    let leaves: Vec<&[NamedSweepRow]> = r.rows.chunks(TAG_LEAF_ROWS).collect();
    let digests = crate::parallel::map_in_order(&leaves, threads, || {
        Ok::<_, std::convert::Infallible>(|leaf: &&[NamedSweepRow]| Ok(rows_digest(leaf)))
    })
    .unwrap_or_else(|never| match never {});
    let mut h = Sha256::new();
    h.update(concat!("fabric-tco ", env!("FABRIC_TCO_BUILD_ID"), "\n").as_bytes());
    h.update(r.vary.as_bytes());
    h.update(b"\n");
    h.update(r.vary2.as_deref().unwrap_or("").as_bytes());
    h.update(b"\n");
    h.update(r.warnings.len().to_le_bytes());
    for w in &r.warnings {
        h.update(w.len().to_le_bytes());
        h.update(w.as_bytes());
    }
    for d in &digests {
        h.update(d);
    }
    // A few crossovers: their JSON is their whole content.
    h.update(serde_json::to_vec(&r.crossovers).unwrap_or_default());
    h.update(r.plans_computed.to_le_bytes());
    plan::hex_prefix(h.finalize().as_slice(), 16)
}

/// Rows a leaf of a sweep tag's hash covers (a fixed number: the tag is the same on any number
/// of threads).
pub(super) const TAG_LEAF_ROWS: usize = 4096;

/// The digest of a run of rows: each row's plan id, fabric and values, and its warnings (a
/// marker when they are its fabric's last row's).
fn rows_digest(rows: &[NamedSweepRow]) -> Vec<u8> {
    let mut h = Gathered {
        hash: Sha256::new(),
        buf: Vec::with_capacity(GATHERED),
    };
    // Per fabric, the warnings last hashed: a row whose list is the same as its fabric's last
    // row's hashes a marker instead.
    let mut last_warnings: [Option<&Arc<[String]>>; 3] = [None; 3];
    for n in rows {
        let row = &n.row;
        h.update(row.plan_id.as_bytes());
        h.update(row.fabric.as_str().as_bytes());
        h.update(row.value.to_bits().to_le_bytes());
        h.update(row.value2.map_or(u64::MAX, f64::to_bits).to_le_bytes());
        let last = &mut last_warnings[row.fabric.index()];
        if last.is_some_and(|w| **w == *row.warnings) {
            h.update(b"=");
        } else {
            h.update(row.warnings.len().to_le_bytes());
            for w in row.warnings.iter() {
                h.update(w.len().to_le_bytes());
                h.update(w.as_bytes());
            }
            *last = Some(&row.warnings);
        }
    }
    h.finalize().as_ref().to_vec()
}

/// Bytes gathered before the hash takes them.
pub(super) const GATHERED: usize = 1 << 16;

/// A hash fed in pieces of [`GATHERED`] bytes: the same bytes, the same digest, in few calls
/// (a 10,000-point sweep's 150,000 small updates took 13 ms, a quarter of its encoding).
pub(super) struct Gathered {
    pub(super) hash: Sha256,
    pub(super) buf: Vec<u8>,
}

impl Gathered {
    pub(super) fn update(&mut self, bytes: impl AsRef<[u8]>) {
        self.buf.extend_from_slice(bytes.as_ref());
        if self.buf.len() >= GATHERED {
            self.hash.update(&self.buf);
            self.buf.clear();
        }
    }

    pub(super) fn finalize(mut self) -> impl AsRef<[u8]> {
        self.hash.update(&self.buf);
        self.hash.finalize()
    }
}
