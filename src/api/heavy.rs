//! Heavy work — sweeps and uncertainty analyses, up to a second of CPU each — runs on threads of
//! its own at a lower priority than request threads, and may use every core.
//!
//! By default ([`crate::config::HEAVY_NICE`]) they run in Linux's normal class at nice 2: a
//! request thread (nice 0, weight 1,024) outweighs a heavy one (weight 655) and takes the core
//! when it wakes, so health checks and single plans keep their latency beside four sweeps; and
//! beside other busy programs a heavy thread keeps its share (39 % of a core shared with a
//! nice-0 program), so a sweep on a busy host still ends, within 3× its quiet time. The idle
//! class (`SCHED_IDLE`, `FABRIC_TCO_HEAVY_PRIORITY=idle`) yields to every busy program, not
//! only to requests: beside two of them a sweep got no core and answered 503. Measured both
//! ways with `benches/starve.py` and `benches/busy_host.py` (docs/performance.md). Where the
//! system refuses the class asked for, heavy threads run at normal priority, one core left
//! free of them ([`Heavy::new`]).

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

/// Puts the calling thread in `class`; false when the system refuses.
fn lower_this_thread(class: HeavyPriority) -> bool {
    match class {
        HeavyPriority::Idle => set_thread_priority_and_policy(
            thread_native_id(),
            ThreadPriority::Min,
            ThreadSchedulePolicy::Normal(NormalThreadSchedulePolicy::Idle),
        )
        .is_ok(),
        // On Linux a nice value is a thread's own (`setpriority(PRIO_PROCESS, 0)` sets the
        // calling thread's); raising it needs no privilege.
        HeavyPriority::Nice(n) => rustix::process::setpriority_process(None, i32::from(n)).is_ok(),
        HeavyPriority::Normal => true,
    }
}

/// Whether heavy threads can be put in `class` here (asked once a class, on a thread made
/// for the question).
pub fn class_available(class: HeavyPriority) -> bool {
    static IDLE: OnceLock<bool> = OnceLock::new();
    static NICE: OnceLock<bool> = OnceLock::new();
    let ask = || {
        std::thread::Builder::new()
            .name("heavy-probe".into())
            .spawn(move || lower_this_thread(class))
            .ok()
            .and_then(|h| h.join().ok())
            .unwrap_or(false)
    };
    match class {
        HeavyPriority::Idle => *IDLE.get_or_init(ask),
        HeavyPriority::Nice(_) => *NICE.get_or_init(ask),
        HeavyPriority::Normal => true,
    }
}

/// Where heavy work runs: its computing permits and the class of its threads.
#[derive(Debug, Clone)]
pub struct Heavy {
    slots: Arc<Semaphore>,
    total: usize,
    class: HeavyPriority,
}

impl Heavy {
    /// `threads` computing permits, by default every core when heavy threads run at a lower
    /// priority than request threads (idle class or nice), else the cores less one (at least
    /// one), so that request threads always find a core.
    pub fn new(threads: Option<usize>, priority: HeavyPriority) -> Heavy {
        let class = if class_available(priority) {
            priority
        } else {
            HeavyPriority::Normal
        };
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let default = if class == HeavyPriority::Normal {
            cores.saturating_sub(1).max(1)
        } else {
            cores
        };
        let total = threads.unwrap_or(default).max(1);
        Heavy {
            slots: Arc::new(Semaphore::new(total)),
            total,
            class,
        }
    }

    /// Computing permits in all.
    pub fn threads(&self) -> usize {
        self.total
    }

    /// How heavy threads are scheduled.
    pub fn class(&self) -> HeavyPriority {
        self.class
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
        let class = self.class;
        std::thread::Builder::new()
            .name("heavy".into())
            .spawn(move || {
                // Refused after all: the thread runs at normal priority.
                let _ = lower_this_thread(class);
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

    /// A nice value is the heavy thread's own: the thread that asked keeps its priority.
    #[test]
    fn a_heavy_thread_at_a_nice_value_leaves_other_threads_alone() {
        let before = rustix::process::getpriority_process(None).expect("own nice");
        let inside = std::thread::spawn(|| {
            let lowered = lower_this_thread(HeavyPriority::Nice(7));
            (lowered, rustix::process::getpriority_process(None).ok())
        })
        .join()
        .expect("thread");
        assert_eq!(inside, (true, Some(7)));
        assert_eq!(
            rustix::process::getpriority_process(None).ok(),
            Some(before)
        );
        assert!(class_available(HeavyPriority::Nice(3)));
    }

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
