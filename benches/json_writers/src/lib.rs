//! The answers the writers are measured on, built through the service's public API, and the
//! writers themselves.

use std::sync::Arc;

use fabric_tco::api::sheets::sweeps::SweepResult;
use fabric_tco::catalog::CatalogSet;
use fabric_tco::plan::sweep::{self, AxisInput, Domain, Scale, Spec};
use fabric_tco::plan::{self, Detail, Effort, Plan, PlanRequest};
use fabric_tco::table::{NamedSweepRow, NamedValue, NamedValues};

/// One answer to encode.
pub enum Answer {
    Plan(Plan),
    Sweep(SweepResult),
}

/// The answers by name: `plan` (1,024 GPUs, three fabrics), `plan_uncertainty` (the same with
/// a 200-sample uncertainty analysis), `sweep` (`vary=gpus` from 1,024 to 11,023 in 10,000
/// steps).
pub const ANSWERS: [&str; 3] = ["plan", "plan_uncertainty", "sweep"];

/// The writers by name.
///
/// `sonic_rs_sized`: sonic-rs into a buffer sized up front as the service sizes its own
/// (`Plan::to_json`'s capacity; ~1 KB a sweep row), for a like-for-like comparison with
/// `ours_as_served` (`ours`, `serde_json` and `sonic_rs` all start at 128 bytes).
pub const WRITERS: [&str; 5] = [
    "ours",
    "serde_json",
    "sonic_rs",
    "ours_as_served",
    "sonic_rs_sized",
];

fn request(v: serde_json::Value) -> PlanRequest {
    serde_json::from_value(v).expect("plan request")
}

/// The answer called `name` (one of [`ANSWERS`]).
pub fn answer(name: &str, cats: &CatalogSet) -> Answer {
    match name {
        "plan" => Answer::Plan(
            plan::build_plan(&request(serde_json::json!({"gpus": 1024})), cats).expect("plan"),
        ),
        "plan_uncertainty" => Answer::Plan(
            plan::build_plan(
                &request(serde_json::json!({"gpus": 1024, "uncertainty": {"samples": 200}})),
                cats,
            )
            .expect("plan"),
        ),
        "sweep" => Answer::Sweep(gpus_sweep(cats)),
        other => panic!("no answer called {other}"),
    }
}

/// `GET /v1/sweeps?vary=gpus&from=1024&to=11023&steps=10000` as the API computes it
/// (`api::sheets::sweeps::run`, which is private): figures plans at every point on the
/// embedded catalogs, the shared warnings taken out, each row named by `gpus`. The API's sweep
/// notes are empty for this request (no input both fixed and varied, the totals move).
pub fn gpus_sweep(cats: &CatalogSet) -> SweepResult {
    let first = sweep::axis(
        AxisInput {
            name: "gpus".into(),
            from: Some(1024.0),
            to: Some(11023.0),
            steps: Some(10_000),
            scale: Scale::Linear,
            values: None,
            suffix: "",
        },
        // The API's domain for `gpus`: whole numbers 1..=1,000,000, bisected.
        Domain {
            integer: true,
            contiguous: true,
            min: 1.0,
            max: 1_000_000.0,
        },
    )
    .expect("axis");
    let spec = Spec::new(first, None).expect("spec");
    let base = request(serde_json::json!({"gpus": 1024}));
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut out = sweep::run(&spec, workers, || {
        let base = &base;
        move |v: f64, _v2: Option<f64>| {
            let mut r = base.clone();
            r.gpus = plan::request::Gpus::new(v as u32).ok_or_else(|| format!("gpus {v}"))?;
            plan::build_with(&r, cats, Effort::default(), None, Detail::Figures)
                .map_err(|e| format!("{e:?}"))
        }
    })
    .unwrap_or_else(|e| match e {
        sweep::RunError::Sweep(s) => panic!("sweep: {s:?}"),
        sweep::RunError::Plan(p) => panic!("plan: {p}"),
    });
    let warnings = sweep::take_shared_warnings(&mut out.rows);
    let name: Arc<str> = Arc::from("gpus");
    let rows = out
        .rows
        .into_iter()
        .map(|row| NamedSweepRow {
            inputs: NamedValues(
                NamedValue {
                    name: Arc::clone(&name),
                    value: serde_json::Value::from(row.value as i64),
                },
                None,
            ),
            row,
        })
        .collect();
    SweepResult {
        vary: "gpus".into(),
        vary2: None,
        warnings,
        rows,
        crossovers: out.crossovers,
        plans_computed: out.plans_computed,
        notes: Vec::new(),
    }
}

/// The answer's JSON as `writer` (one of [`WRITERS`]) writes it. `ours_as_served` is what the
/// service itself calls: `Plan::to_json` (a buffer sized for the plan up front) for a plan; for
/// a sweep the rows by `table::sweep_rows_json` on one thread between the head and the tail
/// written by `json::to_writer` (`api::sheets::sweeps::encode::sweep_json`, private, sends
/// these parts without joining them; joined here).
pub fn write(writer: &str, a: &Answer) -> Vec<u8> {
    match (writer, a) {
        ("ours", Answer::Plan(p)) => fabric_tco::json::to_vec(p).expect("ours"),
        ("ours", Answer::Sweep(s)) => fabric_tco::json::to_vec(s).expect("ours"),
        ("serde_json", Answer::Plan(p)) => serde_json::to_vec(p).expect("serde_json"),
        ("serde_json", Answer::Sweep(s)) => serde_json::to_vec(s).expect("serde_json"),
        ("sonic_rs", Answer::Plan(p)) => sonic_rs::to_vec(p).expect("sonic_rs"),
        ("sonic_rs", Answer::Sweep(s)) => sonic_rs::to_vec(s).expect("sonic_rs"),
        ("ours_as_served", Answer::Plan(p)) => p.to_json().expect("to_json"),
        ("ours_as_served", Answer::Sweep(s)) => sweep_parts(s).concat(),
        ("sonic_rs_sized", a) => {
            // Plan::to_json's capacity: 10 KB a fabric plus 6 KB.
            let capacity = match a {
                Answer::Plan(p) => p.fabrics.len() * (10 << 10) + (6 << 10),
                Answer::Sweep(s) => s.rows.len() * 1024 + 1024,
            };
            let mut out = Vec::with_capacity(capacity);
            match a {
                Answer::Plan(p) => sonic_rs::to_writer(&mut out, p),
                Answer::Sweep(s) => sonic_rs::to_writer(&mut out, s),
            }
            .expect("sonic_rs");
            out
        }
        (w, _) => panic!("no writer called {w}"),
    }
}

/// The sweep's JSON in the parts the service sends (see [`write`]).
pub fn sweep_parts(r: &SweepResult) -> Vec<Vec<u8>> {
    use fabric_tco::json::to_writer;
    fn member<T: serde::Serialize + ?Sized>(out: &mut Vec<u8>, name: &str, v: &T) {
        out.extend_from_slice(b",\"");
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(b"\":");
        to_writer(out, v).expect("member");
    }
    let mut head = Vec::with_capacity(64);
    head.extend_from_slice(b"{\"vary\":");
    to_writer(&mut head, &r.vary).expect("vary");
    if let Some(v2) = &r.vary2 {
        member(&mut head, "vary2", v2);
    }
    member(&mut head, "warnings", &r.warnings);
    head.extend_from_slice(b",\"rows\":");
    let mut out = vec![head];
    out.extend(fabric_tco::table::sweep_rows_json(&r.rows, 1).expect("rows"));
    let mut tail = Vec::new();
    member(&mut tail, "crossovers", &r.crossovers);
    member(&mut tail, "plans_computed", &r.plans_computed);
    tail.push(b'}');
    out.push(tail);
    out
}

/// Whether `got` is `want` byte for byte; if not, the first differing offset and 80 bytes of
/// each from 40 before it.
pub fn compare(want: &[u8], got: &[u8]) -> Result<(), String> {
    if want == got {
        return Ok(());
    }
    let at = want
        .iter()
        .zip(got)
        .position(|(a, b)| a != b)
        .unwrap_or(want.len().min(got.len()));
    let from = at.saturating_sub(40);
    let show = |b: &[u8]| {
        String::from_utf8_lossy(&b[from.min(b.len())..(from + 80).min(b.len())]).into_owned()
    };
    Err(format!(
        "first difference at byte {at} (lengths {} and {})\n    serde_json: {}\n    this:       {}",
        want.len(),
        got.len(),
        show(want),
        show(got)
    ))
}
