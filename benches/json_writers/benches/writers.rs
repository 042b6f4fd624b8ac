//! Each writer on each answer: first its bytes against `serde_json::to_vec`'s, then its time
//! (criterion, one thread). `cargo bench` (README.md).

use criterion::{Criterion, criterion_group, criterion_main};
use json_writers::{ANSWERS, Answer, WRITERS, answer, compare, sweep_parts, write};
use std::hint::black_box;
use std::time::Duration;

fn bench(c: &mut Criterion) {
    let cats = fabric_tco::catalog::CatalogSet::embedded().expect("catalog");
    for name in ANSWERS {
        let a = answer(name, &cats);
        let want = write("serde_json", &a);
        let mut group = c.benchmark_group(name);
        group.warm_up_time(Duration::from_secs(1));
        group.measurement_time(Duration::from_secs(3));
        if matches!(a, Answer::Sweep(_)) {
            // ~30 MB and tens of ms a call.
            group.sample_size(10);
        }
        for w in WRITERS {
            let got = write(w, &a);
            match compare(&want, &got) {
                Ok(()) => println!("{name}/{w}: {} bytes, byte-identical: yes", got.len()),
                Err(e) => println!("{name}/{w}: {} bytes, byte-identical: no, {e}", got.len()),
            }
            match (w, &a) {
                // The parts as the service sends them, not joined.
                ("ours_as_served", Answer::Sweep(s)) => {
                    group.bench_function(w, |b| b.iter(|| sweep_parts(black_box(s))))
                }
                _ => group.bench_function(w, |b| b.iter(|| write(w, black_box(&a)))),
            };
        }
        group.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
