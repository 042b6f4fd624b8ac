//! Independent pieces of one computation (a sweep's grid points, an analysis's samples) on
//! several threads, with the answer one thread would give.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Maps `items` in order on up to `threads` threads, each a contiguous run of items (the calling
/// thread takes the first run). `make` gives each run its own function, so that what it keeps
/// between items (a memo, a pricing engine) stays on one thread.
///
/// The answer is the one a single thread gives: the results in item order or, of several
/// failing items, the error of the first. A run stops at its first error; the runs after a
/// failed one stop soon after it, the runs before it go on. A thread the system refuses to start
/// leaves its run to the calling thread; a panic in a run goes on on the calling thread.
pub fn map_in_order<T, U, E, F>(
    items: &[T],
    threads: usize,
    make: impl Fn() -> Result<F, E> + Sync,
) -> Result<Vec<U>, E>
where
    T: Sync,
    U: Send,
    E: Send,
    F: FnMut(&T) -> Result<U, E>,
{
    // The index of the first run known to have failed.
    let first_failed = AtomicUsize::new(usize::MAX);
    let run_of = |index: usize, run: &[T]| -> Result<Vec<U>, E> {
        let fail = |e: E| {
            first_failed.fetch_min(index, Ordering::Relaxed);
            e
        };
        let mut f = make().map_err(fail)?;
        let mut out = Vec::with_capacity(run.len());
        for item in run {
            if first_failed.load(Ordering::Relaxed) < index {
                // An earlier run failed: the answer is its error, whatever this run finds.
                break;
            }
            out.push(f(item).map_err(fail)?);
        }
        Ok(out)
    };
    let threads = threads.clamp(1, items.len().max(1));
    if threads == 1 {
        return run_of(0, items);
    }
    let runs: Vec<&[T]> = items.chunks(items.len().div_ceil(threads)).collect();
    let results: Vec<Result<Vec<U>, E>> = std::thread::scope(|s| {
        let run_of = &run_of;
        let spawned: Vec<_> = runs
            .iter()
            .enumerate()
            .skip(1)
            .map(|(i, &run)| {
                std::thread::Builder::new()
                    .spawn_scoped(s, move || run_of(i, run))
                    .map_err(|_| (i, run))
            })
            .collect();
        let mut results = Vec::with_capacity(runs.len());
        results.push(
            runs.first()
                .map_or_else(|| Ok(Vec::new()), |&r| run_of(0, r)),
        );
        for handle in spawned {
            results.push(match handle {
                Ok(h) => h
                    .join()
                    .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
                Err((i, run)) => run_of(i, run),
            });
        }
        results
    });
    let mut out = Vec::with_capacity(items.len());
    for r in results {
        out.extend(r?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Results in order on any number of threads, each run with its own state.
    #[test]
    fn results_are_in_item_order() {
        let items: Vec<u32> = (0..1000).collect();
        for threads in [0, 1, 2, 3, 7, 999, 1000, 5000] {
            let out = map_in_order(&items, threads, || {
                let mut seen = 0u32;
                Ok::<_, ()>(move |&i: &u32| {
                    seen += 1;
                    Ok((i * 3, seen))
                })
            })
            .expect("no error");
            assert_eq!(
                out.iter().map(|p| p.0).collect::<Vec<_>>(),
                items.iter().map(|i| i * 3).collect::<Vec<_>>(),
                "{threads} threads"
            );
            // Each run's state counts from one, as many times as there are runs: runs never
            // share a function, and each run is one function's.
            let runs = items
                .len()
                .div_ceil(items.len().div_ceil(threads.clamp(1, items.len())));
            assert_eq!(
                out.iter().filter(|p| p.1 == 1).count(),
                runs,
                "{threads} threads"
            );
            assert!(out.windows(2).all(|w| w[1].1 == 1 || w[1].1 == w[0].1 + 1));
        }
        let none: Vec<u32> = Vec::new();
        let out = map_in_order(&none, 4, || Ok::<_, ()>(|&i: &u32| Ok(i))).expect("empty");
        assert!(out.is_empty());
    }

    /// Of several failing items the first is the answer, on any number of threads: a run whose
    /// last item fails goes on while a later run has failed at once; a failing `make` is its
    /// run's error.
    #[test]
    fn the_first_failure_in_item_order_is_the_answer() {
        let items: Vec<u32> = (0..40).collect();
        for threads in [1, 2, 4, 8, 40] {
            // Runs of 10 with 4 threads: the first fails at its last item, the third and fourth
            // at their first.
            let r = map_in_order(&items, threads, || {
                Ok(|&i: &u32| {
                    if i == 9 || i >= 20 {
                        Err(i)
                    } else {
                        std::thread::sleep(std::time::Duration::from_micros(200));
                        Ok(i)
                    }
                })
            });
            assert_eq!(r, Err(9), "{threads} threads");
        }
        let r = map_in_order(&items, 3, || {
            Err::<fn(&u32) -> Result<u32, &'static str>, _>("no engine")
        });
        assert_eq!(r, Err("no engine"));
    }
}
