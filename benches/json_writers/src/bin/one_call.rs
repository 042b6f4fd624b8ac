//! One call of one writer on one answer, for counting its instructions with callgrind:
//!
//! `valgrind --tool=callgrind --toggle-collect=json_writers_one_call one_call ANSWER WRITER`
//!
//! Only the call inside `one_call` is counted (building the answer is not).

use json_writers::{Answer, answer, sweep_parts, write};
use std::hint::black_box;

#[unsafe(no_mangle)]
#[inline(never)]
pub extern "Rust" fn json_writers_one_call(w: &str, a: &Answer) -> usize {
    match (w, a) {
        ("ours_as_served", Answer::Sweep(s)) => sweep_parts(s).iter().map(Vec::len).sum(),
        _ => write(w, a).len(),
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let [_, name, writer] = &args[..] else {
        eprintln!("usage: one_call ANSWER WRITER");
        std::process::exit(2);
    };
    let cats = fabric_tco::catalog::CatalogSet::embedded().expect("catalog");
    let a = answer(name, &cats);
    let n = json_writers_one_call(black_box(writer), black_box(&a));
    println!("{name}/{writer}: {n} bytes");
}
