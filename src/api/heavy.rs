//! Heavy work — sweeps and uncertainty analyses, up to a second of CPU each — runs on threads of
//! its own at the lowest scheduling class Linux has (`SCHED_IDLE`, nice 19): the kernel gives
//! them a core only when no request thread wants it, and a request thread that wakes preempts
//! them. Health checks and single plans then keep their latency however much heavy work runs,
//! and the heavy work may use every core, not the cores less one.
//!
//! Where the class cannot be set (another OS, a sandbox that refuses `sched_setscheduler`),
//! heavy threads run at normal priority and the default number of computing permits keeps one
//! core free instead ([`default_permits`]).

use std::sync::{Arc, OnceLock};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use thread_priority::{
    NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
    set_thread_priority_and_policy, thread_native_id,
};

use super::error::ApiError;
use crate::error_code::ErrorCode;

/// Puts the calling thread in the idle class; false when the system refuses.
fn lower_this_thread() -> bool {
    set_thread_priority_and_policy(
        thread_native_id(),
        ThreadPriority::Min,
        ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle),
    )
    .is_ok()
}

/// Whether heavy threads can be put in the idle class here (asked once, on a thread made for
/// the question).
pub fn idle_class_available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| {
        std::thread::Builder::new()
            .name("heavy-probe".into())
            .spawn(lower_this_thread)
            .ok()
            .and_then(|h| h.join().ok())
            .unwrap_or(false)
    })
}

/// Computing permits when `FABRIC_TCO_HEAVY_THREADS` is not set: every core when heavy threads
/// run in the idle class, else the cores less one (at least one), so that request threads
/// always find a core.
pub fn default_permits() -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if idle_class_available() {
        cores
    } else {
        cores.saturating_sub(1).max(1)
    }
}

/// Computing permits held by one sweep or analysis: a thread each.
pub struct Permits(Vec<OwnedSemaphorePermit>);

impl Permits {
    /// One permit of `slots` (waiting for it), and every other one free now: alone, a sweep or
    /// analysis computes on every permit; beside others, on what they leave. It never waits for
    /// more than one, so work admitted together shares the permits in turn.
    pub async fn take(slots: &Arc<Semaphore>) -> Result<Permits, ApiError> {
        let first = Arc::clone(slots)
            .acquire_owned()
            .await
            .map_err(|e| ApiError::internal(&e))?;
        let mut held = vec![first];
        while let Ok(p) = Arc::clone(slots).try_acquire_owned() {
            held.push(p);
        }
        Ok(Permits(held))
    }

    /// Threads the work may compute on.
    pub fn threads(&self) -> usize {
        self.0.len()
    }
}

/// Runs `work` on a new thread in the idle class (threads it starts inherit the class) and
/// gives its result. A thread the system will not start is a 503 (retry); a panic in `work`
/// is a 500.
pub async fn run<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, ApiError> {
    run_then_free(move || (work(), ())).await
}

/// [`run`] for work that also leaves something to free (a sweep's rows, tens of thousands of
/// allocations): the answer is sent first, and the rest freed on the heavy thread after it.
pub async fn run_then_free<T: Send + 'static, L>(
    work: impl FnOnce() -> (T, L) + Send + 'static,
) -> Result<T, ApiError> {
    let (tx, rx) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .name("heavy".into())
        .spawn(move || {
            // Refused: the thread runs at normal priority (see the module docs).
            let _ = lower_this_thread();
            let (answer, rest) = work();
            let _ = tx.send(answer);
            drop(rest);
        })
        .map_err(|e| {
            ApiError::new(
                ErrorCode::Busy,
                format!("no thread for the computation ({e}); retry in a second"),
            )
            .with_retry_after(1)
        })?;
    rx.await
        .map_err(|_| ApiError::internal(&"the computation stopped without an answer"))
}
