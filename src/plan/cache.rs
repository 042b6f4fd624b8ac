//! A bounded memo of recent plans. A plan is a pure function of the request and the catalog's
//! bytes, so a repeated request (a spreadsheet recalculating, a procurement tool polling) can
//! be answered from the plan computed the first time, with its JSON rendered once.
//!
//! The key is the request exactly as parsed (its JSON) plus the SHA-256 of the catalog it
//! resolves to: a catalog refresh changes the key, so a stale plan is never served. Errors are
//! not cached. A plan is admitted on the second request for its key (a "doorkeeper" remembers
//! the hashes of recently seen keys): a stream of distinct requests — a script walking a
//! parameter — then costs a hash per request instead of keeping and freeing every plan, which
//! measured ~30% more CPU per request on misses. Eviction is first-in first-out at `capacity`
//! entries (a plan with its JSON is ~60 KB; the default 256 entries stay under ~16 MB; keys are
//! 32-byte hashes, however large the request).

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use bytes::Bytes;
use sha2::{Digest, Sha256};

use super::error::PlanError;
use super::options::Detail;
use super::output::Plan;
use super::request::PlanRequest;
use crate::catalog::CatalogSet;

/// A plan and, once asked for, its JSON (shared, not copied, by every response that sends it).
#[derive(Debug)]
pub struct CachedPlan {
    pub plan: Plan,
    /// What the plan holds: a [`Detail::Figures`] plan answers a figure or a CSV row, never a
    /// JSON plan (it has no BOM lines or recommendation).
    pub detail: Detail,
    /// Entity tag of this answer: the `plan_id`, plus a hash of the catalog-source warnings
    /// when there are any (the same request and catalog answer differently during an outage,
    /// and a client's `If-None-Match` must not hide that).
    pub tag: String,
    json: OnceLock<Result<Bytes, String>>,
}

impl CachedPlan {
    fn new(plan: Plan, detail: Detail, extra_warnings: &[String]) -> CachedPlan {
        let tag = if extra_warnings.is_empty() {
            plan.plan_id.clone()
        } else {
            let mut h = Sha256::new();
            for w in extra_warnings {
                h.update(w.as_bytes());
                h.update(b"\n");
            }
            let hash: String = h
                .finalize()
                .iter()
                .take(4)
                .map(|b| format!("{b:02x}"))
                .collect();
            format!("{}-w{hash}", plan.plan_id)
        };
        CachedPlan {
            plan,
            detail,
            tag,
            json: OnceLock::new(),
        }
    }

    /// The plan as JSON bytes (rendered on first use, then shared by reference count); an
    /// error for a figures plan, which is not the plan's answer.
    pub fn json(&self) -> Result<Bytes, String> {
        if self.detail != Detail::Full {
            return Err("a figures plan has no JSON answer".into());
        }
        self.json
            .get_or_init(|| {
                self.plan
                    .to_json()
                    .map(Bytes::from)
                    .map_err(|e| e.to_string())
            })
            .clone()
    }
}

#[derive(Debug, Default)]
struct Inner {
    map: HashMap<Key, Arc<CachedPlan>>,
    order: VecDeque<Key>,
    /// Keys seen once and not admitted yet, with the sighting's sequence number; `seen_order`
    /// may hold stale entries (admitted keys, older sightings), skipped when popped.
    seen: HashMap<Key, u64>,
    seen_order: VecDeque<(Key, u64)>,
    seq: u64,
}

/// A memo key: SHA-256 of what determines the answer.
type Key = [u8; 32];

/// Keys remembered by the doorkeeper, per memo entry.
const SEEN_PER_ENTRY: usize = 4;

/// The memo. `capacity` 0 disables it.
#[derive(Debug)]
pub struct PlanCache {
    capacity: usize,
    inner: Mutex<Inner>,
    hits: AtomicU64,
    misses: AtomicU64,
}

impl PlanCache {
    pub fn new(capacity: usize) -> PlanCache {
        PlanCache {
            capacity,
            inner: Mutex::new(Inner::default()),
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
        }
    }

    /// The plan for `req` priced from `catalogs`, with `extra_warnings` (about where the
    /// catalog came from) added: from the memo, or built and remembered. The warnings are part
    /// of the key, so a plan remembered while a source was failing is not served once it
    /// recovers.
    pub fn plan(
        &self,
        req: &PlanRequest,
        catalogs: &CatalogSet,
        extra_warnings: &[String],
        detail: Detail,
    ) -> Result<Arc<CachedPlan>, PlanError> {
        self.plan_until(
            req,
            catalogs,
            extra_warnings,
            super::options::Effort::default(),
            detail,
        )
    }

    /// [`Self::plan`], its uncertainty analysis computed within `effort`; one still running at
    /// the deadline stops with `analysis_too_slow` (not remembered). A plan at each `detail` is
    /// its own entry.
    pub fn plan_until(
        &self,
        req: &PlanRequest,
        catalogs: &CatalogSet,
        extra_warnings: &[String],
        effort: super::options::Effort,
        detail: Detail,
    ) -> Result<Arc<CachedPlan>, PlanError> {
        let key = self.key(req, catalogs, extra_warnings, detail);
        if let Some(k) = &key
            && let Some(hit) = self.lock().map.get(k).cloned()
        {
            self.hits.fetch_add(1, Ordering::Relaxed);
            return Ok(hit);
        }
        self.misses.fetch_add(1, Ordering::Relaxed);
        let mut plan = super::pipeline::build_with(req, catalogs, effort, None, detail)?;
        for w in extra_warnings {
            if !plan.warnings.contains(w) {
                plan.warnings.push(w.clone());
            }
        }
        let built = Arc::new(CachedPlan::new(plan, detail, extra_warnings));
        if let Some(k) = key {
            let mut inner = self.lock();
            if inner.seen.remove(&k).is_none() {
                // First sighting: remember the key only.
                let limit = self.capacity.saturating_mul(SEEN_PER_ENTRY);
                while inner.seen.len() >= limit || inner.seen_order.len() >= 2 * limit {
                    match inner.seen_order.pop_front() {
                        Some((old, seq)) => {
                            if inner.seen.get(&old) == Some(&seq) {
                                inner.seen.remove(&old);
                            }
                        }
                        None => break,
                    }
                }
                inner.seq = inner.seq.wrapping_add(1);
                let seq = inner.seq;
                inner.seen.insert(k, seq);
                inner.seen_order.push_back((k, seq));
                return Ok(built);
            }
            // Evicted plans are freed after the lock is let go: the thread holding it may be a
            // heavy one (an analysis), which the kernel runs last.
            let mut evicted = Vec::new();
            if !inner.map.contains_key(&k) {
                while inner.order.len() >= self.capacity {
                    match inner.order.pop_front() {
                        Some(old) => evicted.extend(inner.map.remove(&old)),
                        None => break,
                    }
                }
                inner.order.push_back(k);
                inner.map.insert(k, Arc::clone(&built));
            }
            drop(inner);
            drop(evicted);
        }
        Ok(built)
    }

    /// (hits, misses) since start.
    pub fn stats(&self) -> (u64, u64) {
        (
            self.hits.load(Ordering::Relaxed),
            self.misses.load(Ordering::Relaxed),
        )
    }

    /// Most plans held.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Plans held.
    pub fn len(&self) -> usize {
        self.lock().map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// SHA-256 of the request's JSON, the catalog's sha256, the warnings and the detail: 32
    /// bytes per entry however large the request.
    fn key(
        &self,
        req: &PlanRequest,
        catalogs: &CatalogSet,
        warnings: &[String],
        detail: Detail,
    ) -> Option<Key> {
        if self.capacity == 0 {
            return None;
        }
        let catalog = match &req.catalog {
            None => catalogs.newest(),
            Some(reference) => catalogs.resolve(reference)?,
        };
        let mut h = Sha256::new();
        h.update(crate::json::to_vec(req).ok()?);
        h.update(b"\n");
        h.update(catalog.sha256.as_bytes());
        for w in warnings {
            h.update(b"\n");
            h.update(w.as_bytes());
        }
        // A warning is one line: this cannot be taken for one.
        if detail == Detail::Figures {
            h.update(b"\n\0figures");
        }
        Some(h.finalize().into())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plan::pipeline::build_plan;

    /// `cache`'s plan for `gpus` GPUs priced from `cats`, at `detail`.
    fn planned(cache: &PlanCache, gpus: u32, cats: &CatalogSet, detail: Detail) -> Arc<CachedPlan> {
        cache.plan(&req(gpus), cats, &[], detail).expect("plan")
    }

    /// The 512-GPU plans at `a` and at `b`, each asked for twice (admitted on the second) and
    /// then once more, from the memo.
    fn remembered(
        cache: &PlanCache,
        a: (&CatalogSet, Detail),
        b: (&CatalogSet, Detail),
    ) -> (Arc<CachedPlan>, Arc<CachedPlan>) {
        for _ in 0..2 {
            planned(cache, 512, a.0, a.1);
            planned(cache, 512, b.0, b.1);
        }
        (planned(cache, 512, a.0, a.1), planned(cache, 512, b.0, b.1))
    }

    fn req(gpus: u32) -> PlanRequest {
        serde_json::from_value(serde_json::json!({ "gpus": gpus })).expect("request")
    }

    #[test]
    fn repeats_are_hits_and_equal_a_fresh_plan() {
        let cats = CatalogSet::embedded().expect("catalog");
        let cache = PlanCache::new(2);
        let first = planned(&cache, 1024, &cats, Detail::Full);
        assert!(cache.is_empty(), "admitted on the second request only");
        let a = planned(&cache, 1024, &cats, Detail::Full);
        let b = planned(&cache, 1024, &cats, Detail::Full);
        assert!(Arc::ptr_eq(&a, &b));
        assert!(!Arc::ptr_eq(&first, &a));
        assert_eq!(cache.stats(), (1, 2));
        let fresh = build_plan(&req(1024), &cats).expect("plan");
        assert_eq!(
            a.json().expect("json").to_vec(),
            serde_json::to_vec(&fresh).expect("json")
        );
    }

    #[test]
    fn bounded_first_in_first_out_and_errors_not_kept() {
        let cats = CatalogSet::embedded().expect("catalog");
        let cache = PlanCache::new(2);
        for g in [64, 128, 256, 64, 128, 256] {
            planned(&cache, g, &cats, Detail::Full);
        }
        assert_eq!(cache.len(), 2);
        planned(&cache, 64, &cats, Detail::Full);
        assert_eq!(cache.stats(), (0, 7), "64 was evicted first");
        planned(&cache, 256, &cats, Detail::Full);
        assert_eq!(cache.stats(), (1, 7));
        let bad: PlanRequest =
            serde_json::from_value(serde_json::json!({"gpus": 64, "catalog": "nope"}))
                .expect("request");
        assert!(cache.plan(&bad, &cats, &[], Detail::Full).is_err());
        assert_eq!(cache.len(), 2);
    }

    #[test]
    fn a_different_catalog_is_a_different_entry() {
        let cats = CatalogSet::embedded().expect("catalog");
        let mut v: serde_json::Value =
            serde_json::from_str(crate::catalog::EMBEDDED[0].1).expect("json");
        v["version"] = "other".into();
        let other = crate::catalog::Catalog::parse("t", &serde_json::to_vec(&v).expect("bytes"))
            .expect("valid");
        let cats2 = CatalogSet::new(vec![other]).expect("set");
        let cache = PlanCache::new(8);
        let (a, b) = remembered(&cache, (&cats, Detail::Full), (&cats2, Detail::Full));
        assert!(!Arc::ptr_eq(&a, &b));
        assert_ne!(a.plan.catalog.sha256, b.plan.catalog.sha256);
        assert_eq!(cache.stats().0, 2);
        let disabled = PlanCache::new(0);
        planned(&disabled, 512, &cats, Detail::Full);
        planned(&disabled, 512, &cats, Detail::Full);
        assert!(disabled.is_empty());
    }

    #[test]
    fn figures_and_full_plans_are_separate_entries() {
        let cats = CatalogSet::embedded().expect("catalog");
        let cache = PlanCache::new(8);
        let (full, figures) = remembered(&cache, (&cats, Detail::Full), (&cats, Detail::Figures));
        assert_eq!(cache.stats(), (2, 4));
        assert!(full.plan.fabrics.iter().all(|f| f.bom.is_some()));
        assert!(figures.plan.fabrics.iter().all(|f| f.bom.is_none()));
        assert_eq!(full.plan.plan_id, figures.plan.plan_id);
        assert_eq!(full.tag, figures.tag);
        assert!(full.json().is_ok());
        assert!(
            figures.json().is_err(),
            "a figures plan is never sent as the plan"
        );
    }
}
