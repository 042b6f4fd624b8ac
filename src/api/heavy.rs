//! Heavy work — sweeps and uncertainty analyses, up to a second of CPU each — runs on threads of
//! its own at the lowest scheduling class Linux has (`SCHED_IDLE`, nice 19): the kernel gives
//! them a core only when no request thread wants it, and a request thread that wakes preempts
//! them. Health checks and single plans then keep their latency however much heavy work runs,
//! and the heavy work may use every core, not the cores less one.
//!
//! The class is a weight, not a reservation: a heavy thread runs only when nothing else of
//! normal priority wants the core, request threads and any other busy process alike. On a
//! host shared with busy programs, `FABRIC_TCO_HEAVY_PRIORITY=normal` keeps heavy threads at
//! normal priority (and one core free of them by default). Where the class cannot be set
//! (another OS, a sandbox that refuses `sched_setscheduler`), heavy threads run at normal
//! priority the same way ([`Heavy::new`]).

use std::sync::{Arc, OnceLock};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use thread_priority::{
    NormalThreadSchedulePolicy, ThreadPriority, ThreadSchedulePolicy,
    set_thread_priority_and_policy, thread_native_id,
};

use super::error::ApiError;
use crate::config::HeavyPriority;
use crate::error_code::ErrorCode;

/// `work`'s answer, or `late()` when it has none by `until` (the end of a heavy request's
/// budget, [`super::middleware::heavy_budget`]). Heavy threads in the idle class get no core
/// while busy programs run: their own checks of `until` then never run, and the client got the
/// deadline's bare 408 "not received and answered" instead of the 503 that says why. The work
/// left behind stops at its next check of `until`.
pub async fn by<T>(
    until: std::time::Instant,
    late: impl FnOnce() -> ApiError,
    work: impl std::future::Future<Output = Result<T, ApiError>>,
) -> Result<T, ApiError> {
    match tokio::time::timeout_at(tokio::time::Instant::from_std(until), work).await {
        Ok(answer) => answer,
        Err(_) => Err(late()),
    }
}

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

/// Where heavy work runs: its computing permits and the class of its threads.
#[derive(Debug, Clone)]
pub struct Heavy {
    slots: Arc<Semaphore>,
    total: usize,
    idle: bool,
}

impl Heavy {
    /// `threads` computing permits, by default every core when heavy threads run in the idle
    /// class, else the cores less one (at least one), so that request threads always find a
    /// core.
    pub fn new(threads: Option<usize>, priority: HeavyPriority) -> Heavy {
        let idle = priority == HeavyPriority::Idle && idle_class_available();
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let default = if idle {
            cores
        } else {
            cores.saturating_sub(1).max(1)
        };
        let total = threads.unwrap_or(default).max(1);
        Heavy {
            slots: Arc::new(Semaphore::new(total)),
            total,
            idle,
        }
    }

    /// Computing permits in all.
    pub fn threads(&self) -> usize {
        self.total
    }

    /// Whether heavy threads run in the idle class.
    pub fn idle(&self) -> bool {
        self.idle
    }

    /// One permit (waiting for it), and every other one free now: alone, a sweep or analysis
    /// computes on every permit; beside others, on what they leave. It never waits for more
    /// than one, so work admitted together shares the permits in turn. It holds them all to
    /// its end, its single-threaded steps included (a sweep's bisections, an analysis's
    /// tornado).
    pub async fn permits(&self) -> Result<Permits, ApiError> {
        let first = Arc::clone(&self.slots)
            .acquire_owned()
            .await
            .map_err(|e| ApiError::internal(&e))?;
        let mut held = vec![first];
        while let Ok(p) = Arc::clone(&self.slots).try_acquire_owned() {
            held.push(p);
        }
        Ok(Permits(held))
    }

    /// Runs `work` on a new heavy thread (threads it starts inherit its class) and gives its
    /// result. A thread the system will not start is a 503 (retry); a panic in `work` is a 500.
    pub async fn run<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Result<T, ApiError> {
        self.run_then_free(move || (work(), ())).await
    }

    /// [`Self::run`] for work that also leaves something to free (a sweep's rows, tens of
    /// thousands of allocations): the answer is sent first, and the rest freed on the heavy
    /// thread after it.
    pub async fn run_then_free<T: Send + 'static, L>(
        &self,
        work: impl FnOnce() -> (T, L) + Send + 'static,
    ) -> Result<T, ApiError> {
        let (tx, rx) = tokio::sync::oneshot::channel();
        let idle = self.idle;
        std::thread::Builder::new()
            .name("heavy".into())
            .spawn(move || {
                if idle {
                    // Refused after all: the thread runs at normal priority.
                    let _ = lower_this_thread();
                }
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
}

/// Computing permits held by one sweep or analysis: a thread each.
pub struct Permits(Vec<OwnedSemaphorePermit>);

impl Permits {
    /// Threads the work may compute on.
    pub fn threads(&self) -> usize {
        self.0.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

    /// Work that never answers (a heavy thread given no core) is answered by `late` at the end
    /// of the budget; work that answers in time is its own answer.
    #[tokio::test]
    async fn work_without_an_answer_by_the_end_of_its_budget_is_late() {
        let late = || ApiError::new(ErrorCode::SweepTooSlow, "late");
        let started = Instant::now();
        let until = started + Duration::from_millis(50);
        let never = std::future::pending::<Result<u32, ApiError>>();
        let err = by(until, late, never).await.expect_err("late");
        assert_eq!(err, late());
        assert!(started.elapsed() >= Duration::from_millis(50));
        assert!(started.elapsed() < Duration::from_secs(5));
        let answer = by(Instant::now() + Duration::from_secs(5), late, async {
            Ok(7)
        })
        .await;
        assert_eq!(answer.ok(), Some(7));
    }
}
