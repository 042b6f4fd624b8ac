use super::*;

fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
    v.iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect()
}

#[test]
fn plan_query_adds_gpus_and_drops_format_and_blanks() {
    assert_eq!(plan_query(&[]), "gpus=1024");
    assert_eq!(
        plan_query(&pairs(&[
            ("gpus", "64"),
            ("format", "png"),
            ("economics.years", ""),
            ("fabrics", "roce"),
            ("x", "a b&c")
        ])),
        "gpus=64&fabrics=roce&x=a%20b%26c"
    );
}

#[test]
fn the_form_has_a_field_per_spec_with_the_tables_bounds() {
    let f = form(&pairs(&[("gpus", "64")]), None, &["h100".into()]);
    assert_eq!(f.len(), FORM.len());
    assert_eq!(f[0].value, "64");
    assert_eq!((f[0].min.as_str(), f[0].max.as_str()), ("1", "1000000"));
}

#[test]
fn the_analysis_shows_as_a_table_and_a_tornado_only_when_asked_for() {
    let cats = crate::catalog::CatalogSet::embedded().expect("catalog");
    let make = |q: &[(&str, &str)]| {
        let mut v = serde_json::json!({"gpus": 512});
        if let Some((_, n)) = q.iter().find(|(k, _)| *k == "uncertainty.samples") {
            v["uncertainty"] = serde_json::json!({"samples": n.parse::<u32>().expect("n")});
        }
        let req: crate::plan::PlanRequest = serde_json::from_value(v).expect("request");
        let plan = crate::plan::build_plan(&req, &cats).expect("plan");
        report(&plan, Some(cats.newest()), &pairs(q))
    };
    let plain = make(&[("gpus", "512")]);
    assert!(plain.sure.is_none());
    assert!(plain.charts.iter().all(|c| c.id != "tornado"));
    let sure = make(&[("gpus", "512"), ("uncertainty.samples", "200")]);
    let s = sure.sure.as_ref().expect("table");
    assert_eq!(s.samples, "200");
    let p: f64 = s
        .rows
        .iter()
        .map(|r| r.probability.exact.parse::<f64>().expect("p"))
        .sum();
    assert!((p - 1.0).abs() < 1e-12);
    let t = sure
        .charts
        .iter()
        .find(|c| c.id == "tornado")
        .expect("tornado");
    assert!(t.svg.contains("uncertainty.samples=200"), "{}", t.svg);
}

/// The page says which training job the idle cost is for, with its shape as planned.
#[test]
fn the_assumptions_name_the_job_and_its_shape() {
    let cats = crate::catalog::CatalogSet::embedded().expect("catalog");
    let job = |v: serde_json::Value, pairs: &[(String, String)]| {
        let req: crate::plan::PlanRequest = serde_json::from_value(v).expect("request");
        let plan = crate::plan::build_plan(&req, &cats).expect("plan");
        report(&plan, Some(cats.newest()), pairs)
            .assumptions
            .into_iter()
            .find(|a| a.name == "workload")
            .expect("a workload row")
    };
    let a = job(serde_json::json!({"gpus": 1024}), &[]);
    assert_eq!(a.value, "70 B dense, DDP, TP 8 × PP 4 × CP 1 × DP 32");
    assert!(a.source.starts_with("the default job"), "{}", a.source);
    let a = job(serde_json::json!({"gpus": 16}), &[]);
    assert_eq!(a.value, "70 B dense, DDP, TP 8 × PP 2 × CP 1 × DP 1");
    let a = job(
        serde_json::json!({"gpus": 1024, "workload": {"preset": "moe-deepseek-v3"}}),
        &pairs(&[("workload.preset", "moe-deepseek-v3")]),
    );
    assert!(a.value.contains("mixture of experts"), "{}", a.value);
    assert!(a.source.contains("moe-deepseek-v3"), "{}", a.source);
}

/// A GPU the catalog has no price for: the GPU-hour row says it is counted at $0 and why,
/// instead of citing an owned cost it could not compute.
#[test]
fn an_unpriced_gpu_hour_is_shown_as_zero_with_the_reason() {
    let cats = crate::catalog::CatalogSet::embedded().expect("catalog");
    let row = |v: serde_json::Value| {
        let req: crate::plan::PlanRequest = serde_json::from_value(v).expect("request");
        let plan = crate::plan::build_plan(&req, &cats).expect("plan");
        report(&plan, Some(cats.newest()), &[])
            .assumptions
            .into_iter()
            .find(|a| a.name == "economics.gpu_hour_usd")
            .expect("a GPU-hour row")
    };
    // Every GPU of the embedded catalog has a purchase price (#43); B300 has no rental rate.
    assert!(
        cats.newest()
            .data
            .gpus
            .iter()
            .all(|g| g.purchase_usd.is_some()),
        "a GPU without a purchase price"
    );
    let b300 = row(serde_json::json!({"gpus": 64, "gpu_model": "b300",
        "economics": {"gpu_hour_basis": "rental"}}));
    assert_eq!(b300.value, "0");
    assert!(b300.source.contains("no rental price"), "{}", b300.source);
    let b300 = row(serde_json::json!({"gpus": 64, "gpu_model": "b300"}));
    assert!(b300.source.contains("owned cost"), "{}", b300.source);
    let h100 = row(serde_json::json!({"gpus": 64}));
    assert!(h100.source.contains("owned cost"), "{}", h100.source);
    assert_ne!(h100.value, "0");
}

#[test]
fn each_bom_names_its_design_and_the_alternatives() {
    let cats = crate::catalog::CatalogSet::embedded().expect("catalog");
    let req: crate::plan::PlanRequest = serde_json::from_value(serde_json::json!({
        "gpus": 1024, "fabrics": ["infiniband"], "topology": {"nodes_per_rack": 4}
    }))
    .expect("request");
    let plan = crate::plan::build_plan(&req, &cats).expect("plan");
    let r = report(&plan, Some(cats.newest()), &pairs(&[("gpus", "1024")]));
    let t = plan.fabrics[0].topology.as_ref().expect("topology");
    let line = &r.boms[0].design;
    assert!(
        line.starts_with(&format!(
            "Design: {}, {} leaf + {} spine",
            t.design.as_str(),
            t.leaf_switches,
            t.spine_switches
        )),
        "{line}"
    );
    for a in plan.fabrics[0]
        .design_alternatives
        .iter()
        .filter(|a| !a.chosen)
    {
        assert!(line.contains(a.design.as_str()), "{line}");
    }
}

fn planned(v: serde_json::Value) -> (Plan, crate::catalog::CatalogSet) {
    let cats = crate::catalog::CatalogSet::embedded().expect("catalog");
    let req: crate::plan::PlanRequest = serde_json::from_value(v).expect("request");
    (crate::plan::build_plan(&req, &cats).expect("plan"), cats)
}

/// A per-GPU figure is rounded once from the exact quotient, half away from zero: not to
/// cents and then to dollars (twice), nor with banker's rounding at a midpoint.
#[test]
fn a_per_gpu_figure_is_rounded_once_half_away_from_zero() {
    let d = |s: &str| s.parse::<Decimal>().expect("decimal");
    let c = per_unit_cell(d("16179712.06"), d("1024"));
    assert_eq!((c.exact.as_str(), c.text.as_str()), ("15800.5", "$15,801"));
    // An exact midpoint: $2.50 a GPU is $3 (banker's rounding said $2).
    assert_eq!(per_unit_cell(d("10"), d("4")).text, "$3");
    assert_eq!(per_unit_cell(d("-10"), d("4")).text, "-$3");
    assert_eq!(per_unit_cell(d("10"), d("3")).exact, "3.33");
}

/// A fabric asked for that cannot be built is named, with its reason, in the box: as the
/// reason there is no comparison, or next to the comparison of the others.
#[test]
fn the_box_names_the_fabrics_that_cannot_be_built() {
    // An A100 has no 200 Gb/s NIC for adaptive routing.
    let (p, _) = planned(
        serde_json::json!({"gpus": 1024, "gpu_model": "a100", "fabrics": ["roce", "roce_adaptive"]}),
    );
    let why = p.fabrics[1].infeasible_reason.as_deref().expect("reason");
    let why = why.strip_prefix("roce_adaptive: ").unwrap_or(why);
    assert_eq!(
        no_comparison(&p),
        format!(
            "Adaptive-routing Ethernet cannot be built for this request ({why}); only RoCE (ECMP) was priced."
        )
    );
    let (p, cats) = planned(serde_json::json!({"gpus": 1024, "gpu_model": "a100"}));
    let r = report(&p, Some(cats.newest()), &[]);
    let c = p.comparison.as_ref().expect("comparison");
    assert_eq!(r.recommendation, c.recommendation.to_string());
    assert_eq!(
        r.reasons.last().map(String::as_str),
        Some(
            format!(
                "Adaptive-routing Ethernet cannot be built for this request ({why}), so it is not compared."
            )
            .as_str()
        )
    );
    let (p, _) = planned(serde_json::json!({"gpus": 64, "fabrics": ["roce"]}));
    assert_eq!(
        no_comparison(&p),
        "One fabric was asked for: nothing to compare."
    );
}

/// The depreciation life is an input (`economics.depreciation_years`): its row is named by
/// its input path, with the catalog's figure and source, or "your input" when given.
#[test]
fn the_depreciation_life_is_an_input_row() {
    let row = |v: serde_json::Value, q: &[(&str, &str)]| {
        let (p, cats) = planned(v);
        let r = report(&p, Some(cats.newest()), &pairs(q));
        r.assumptions
            .into_iter()
            .find(|a| a.name == "economics.depreciation_years")
            .expect("a depreciation row")
    };
    let a = row(serde_json::json!({"gpus": 64}), &[]);
    assert_eq!(
        (a.value.as_str(), a.unit.as_str(), a.given),
        ("5", "years", false)
    );
    assert!(!a.source.contains("your input"), "{}", a.source);
    let a = row(
        serde_json::json!({"gpus": 64, "economics": {"depreciation_years": 3}}),
        &[("economics.depreciation_years", "3")],
    );
    assert_eq!((a.value.as_str(), a.given), ("3", true));
    assert_eq!(a.source, "your input");
}

/// A sweep that cannot be drawn is said in words in the chart's place, with no image; a
/// limited one points its image at the range that can be planned.
#[test]
fn a_sweep_chart_that_cannot_be_drawn_is_said_in_words() {
    let (p, cats) = planned(serde_json::json!({"gpus": 64}));
    let q = pairs(&[("gpus", "64")]);
    let page = |span: &SweepSpan| {
        let mut r = report(&p, Some(cats.newest()), &q);
        limit_sweep(&mut r, &q, span);
        Page {
            fields: Vec::new(),
            kept: Vec::new(),
            report: Some(r),
            problem: None,
            plan_pairs: Vec::new(),
            notice: None,
        }
        .render()
        .expect("page")
    };
    let html = page(&SweepSpan::None("no reason at all".into()));
    assert!(html.contains("No chart of total cost against cluster size: no reason at all"));
    assert!(!html.contains("/v1/charts/sweep?"), "no sweep image");
    assert!(html.contains("/v1/charts/cost?"), "the other charts stay");
    let html = page(&SweepSpan::Limited {
        from: 20,
        to: 100,
        why: vec!["a reason".into()],
    });
    assert!(
        html.contains("vary=gpus&#38;from=20&#38;to=100")
            || html.contains("vary=gpus&amp;from=20&amp;to=100"),
        "the limited range"
    );
    assert!(html.contains("a reason"));
}

/// The memo: at most five reasons, none repeated and none about a third fabric; at most three
/// inputs, named in words (no SKU, no dotted path); the placeholders the answer rests on in
/// its headline; without an analysis, a note saying how to get one.
#[test]
fn the_memo_names_what_would_change_the_answer_in_words() {
    let (p, _) = planned(serde_json::json!({"gpus": 2048, "gpu_model": "b200"}));
    let (a, _) = planned(serde_json::json!({"gpus": 2048, "gpu_model": "b200",
        "uncertainty": {"samples": 300, "catalog_price_ranges": true}}));
    let m = memo::memo(&p, Some(&a), None);
    let c = p.comparison.as_ref().expect("comparison");
    assert!(
        m.headline.starts_with(&c.recommendation.to_string()),
        "{}",
        m.headline
    );
    assert_eq!(m.rows.len(), 3);
    assert_eq!(m.rows.iter().filter(|r| r.cheapest).count(), 1);
    assert!(!m.reasons.is_empty() && m.reasons.len() <= memo::MAX_REASONS);
    assert!(
        c.reasons.len() > memo::MAX_REASONS,
        "the full list is longer"
    );
    let mut seen = m.reasons.clone();
    seen.dedup();
    assert_eq!(seen.len(), m.reasons.len());
    // RoCE leads adaptive Ethernet here: no reason is about InfiniBand, the third.
    assert!(
        m.reasons.iter().all(|r| !r.contains("InfiniBand")),
        "{:?}",
        m.reasons
    );
    assert!(!m.drivers.is_empty() && m.drivers.len() <= memo::MAX_DRIVERS);
    for d in &m.drivers {
        assert!(!d.contains("prices."), "{d}");
        assert!(
            !d.contains("arista-7060x6-64pe") && !d.contains("nvidia-sn5600"),
            "{d}"
        );
    }
    assert!(
        m.drivers[0].starts_with("Arista 7060X6-64PE switch price"),
        "{}",
        m.drivers[0]
    );
    assert!(
        m.headline
            .contains("placeholder prices (Arista 7060X6-64PE switch"),
        "{}",
        m.headline
    );
    // No analysis: no drivers, and the note given.
    let bare = memo::memo(&p, None, Some("ask".into()));
    assert!(bare.drivers.is_empty());
    assert_eq!(bare.drivers_note.as_deref(), Some("ask"));
    // One fabric: nothing to change.
    let (one, _) = planned(serde_json::json!({"gpus": 64, "fabrics": ["roce"]}));
    let m = memo::memo(&one, None, None);
    assert!(m.drivers_note.is_some_and(|n| n.contains("One fabric")));
}
