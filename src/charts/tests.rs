//! The charts draw the plan's numbers: the data series against the plan's fields, the SVG
//! against the series, the PNG's size.

use rust_decimal::Decimal;
use serde_json::json;

use super::data::{self, Series, SweepInput, usd};
use super::render;
#[path = "../../tests/api/svg.rs"]
mod svg;
use crate::catalog::CatalogSet;
use crate::fabric::Fabric;
use crate::plan::sweep::Crossover;
use crate::plan::{Plan, PlanRequest, build_plan};
use svg::{assert_ticks_apart, svg_texts, x_tick_texts};

fn plan(v: serde_json::Value) -> Plan {
    let req: PlanRequest = serde_json::from_value(v).expect("request");
    build_plan(&req, &CatalogSet::embedded().expect("catalog")).expect("plan")
}

#[test]
fn cost_segments_are_the_plans_figures_and_add_up_to_the_total() {
    let p = plan(json!({"gpus": 2048, "economics": {"years": 4}}));
    let c = data::cost_breakdown(&p);
    let Series::Bars(bars) = &c.series else {
        panic!("bars expected")
    };
    assert_eq!(bars.len(), p.built().count());
    for (b, f) in bars.iter().zip(p.built()) {
        assert_eq!(b.fabric, f.fabric);
        let get = |label: &str| {
            b.segments
                .iter()
                .find(|s| s.label == label)
                .map(|s| s.usd)
                .expect(label)
        };
        assert_eq!(get("NICs"), f.capex.nics_usd);
        assert_eq!(get("Switches"), f.capex.switches_usd);
        assert_eq!(get("Optics"), f.capex.optics_usd);
        assert_eq!(get("Cables"), f.capex.cables_usd);
        assert_eq!(get("Licences (capex)"), f.capex.licenses_usd);
        assert_eq!(
            get("Opex over the years"),
            f.opex_per_year.total_usd * Decimal::from(4u32)
        );
        assert_eq!(get("GPU idle cost"), f.gpu_idle.cost_total_usd);
        let sum: Decimal = b.segments.iter().map(|s| s.usd).sum();
        assert_eq!(sum, f.total_cost_usd, "{:?}", f.fabric);
        assert_eq!(b.total_usd, f.total_cost_usd);
    }
    assert!(c.footer.contains(&p.plan_id) && c.footer.contains(&p.catalog.version));
}

#[test]
fn cumulative_starts_at_capex_and_ends_at_the_total() {
    let p = plan(json!({"gpus": 512, "economics": {"years": 6}}));
    let c = data::cumulative(&p);
    let Series::Lines { lines, .. } = &c.series else {
        panic!("lines expected")
    };
    for (l, f) in lines.iter().zip(p.built()) {
        assert_eq!(l.fabric, f.fabric);
        assert_eq!(l.points.len(), 7);
        assert_eq!(l.points[0], (0.0, f.capex.total_usd));
        for (pt, y) in l.points[1..].iter().zip(&f.tco.by_year) {
            assert_eq!(pt.0, f64::from(y.year));
            assert_eq!(
                pt.1,
                y.cumulative_usd + f.gpu_idle.cost_per_year_usd * Decimal::from(y.year)
            );
        }
        assert_eq!(l.points[6].1, f.total_cost_usd);
    }
}

/// A sweep row of `vary` at `value` for `fabric`, costing `total`.
fn sweep_row(
    vary: &str,
    value: f64,
    fabric: Fabric,
    total: Decimal,
) -> crate::table::NamedSweepRow {
    crate::table::NamedSweepRow {
        inputs: crate::table::NamedValues(
            crate::table::NamedValue {
                name: vary.into(),
                value: json!(value),
            },
            None,
        ),
        row: crate::plan::sweep::SweepRow {
            value,
            value2: None,
            fabric,
            design: crate::sizing::Design::SuClos,
            total_cost_usd: total,
            capex_usd: Decimal::ZERO,
            tco_usd: Decimal::ZERO,
            gpu_idle_fraction: 0.0,
            gpu_idle_cost_usd: Decimal::ZERO,
            failure_cost_usd: Decimal::ZERO,
            cheapest: false,
            plan_id: "p".into(),
            warnings: Vec::new().into(),
        },
    }
}

/// A RoCE row of `vary` at each of `values`, each costing $1.
fn roce_rows(vary: &str, values: &[f64]) -> Vec<crate::table::NamedSweepRow> {
    let row = |v: &f64| sweep_row(vary, *v, Fabric::Roce, Decimal::ONE);
    values.iter().map(row).collect()
}

/// An exact crossover of the one input `input` from `from` to `to` at `value`.
fn exact_crossover(
    input: &str,
    between: [f64; 2],
    value: f64,
    from: Fabric,
    to: Fabric,
) -> Crossover {
    Crossover {
        input: input.into(),
        between,
        value,
        exact: true,
        from_fabric: from,
        to_fabric: to,
        input2: None,
        value2: None,
    }
}

/// The sweep chart of `rows` of `vary` with `crossovers`, no notes.
fn sweep_chart(
    p: &Plan,
    vary: &str,
    rows: &[crate::table::NamedSweepRow],
    crossovers: &[Crossover],
    geometric: bool,
) -> data::Chart {
    let input = SweepInput {
        vary,
        rows,
        crossovers,
        geometric,
        notes: &[],
    };
    data::sweep(p, &input)
}

#[test]
fn sweep_lines_and_markers_come_from_the_rows_and_crossovers() {
    let p = plan(json!({"gpus": 1024}));
    let row = |value: f64, fabric: Fabric, total: Decimal| sweep_row("gpus", value, fabric, total);
    let rows = vec![
        row(256.0, Fabric::Infiniband, Decimal::new(10050, 2)),
        row(256.0, Fabric::Roce, Decimal::from(120)),
        row(512.0, Fabric::Infiniband, Decimal::from(300)),
        row(512.0, Fabric::Roce, Decimal::new(25025, 2)),
    ];
    let cross = [exact_crossover(
        "gpus",
        [256.0, 512.0],
        400.0,
        Fabric::Infiniband,
        Fabric::Roce,
    )];
    let c = sweep_chart(&p, "gpus", &rows, &cross, true);
    let Series::Lines {
        lines,
        markers,
        x_integer,
        ..
    } = &c.series
    else {
        panic!("lines expected")
    };
    assert!(*x_integer);
    assert_eq!(lines.len(), 2);
    assert_eq!(
        lines[0].points,
        vec![(256.0, Decimal::new(10050, 2)), (512.0, Decimal::from(300))]
    );
    assert_eq!(
        lines[1].points,
        vec![(256.0, Decimal::from(120)), (512.0, Decimal::new(25025, 2))]
    );
    assert_eq!(markers.len(), 1);
    assert_eq!(markers[0].x, 400.0);
    // With the input's unit (it was a bare "at 400").
    assert!(
        markers[0]
            .label
            .ends_with("InfiniBand → RoCE (ECMP) at 400 GPUs"),
        "{}",
        markers[0].label
    );
    let svg = render::svg(&c).expect("svg");
    assert!(svg.contains("at 400 GPUs"), "crossover label drawn");
}

/// The SVG is what the series says: each bar's total as its label, the footer, the palette.
#[test]
fn the_svg_carries_the_plans_totals_footer_and_palette() {
    let p = plan(json!({"gpus": 1024}));
    let svg = render::svg(&data::cost_breakdown(&p)).expect("svg");
    assert!(svg.starts_with("<svg"));
    assert!(svg.contains(&format!(
        "width=\"{}\" height=\"{}\"",
        render::WIDTH,
        render::HEIGHT
    )));
    for f in p.built() {
        assert!(
            svg.contains(&format!(">{}<", usd(f.total_cost_usd)))
                || svg.contains(&format!(">\n{}\n<", usd(f.total_cost_usd))),
            "bar label {} for {:?} missing",
            usd(f.total_cost_usd),
            f.fabric
        );
    }
    assert!(svg.contains(&p.plan_id) && svg.contains(&p.catalog.version));
    // Okabe–Ito blue (#0072B2) and vermillion (#D55E00).
    assert!(svg.to_ascii_uppercase().contains("#0072B2"));
    assert!(svg.to_ascii_uppercase().contains("#D55E00"));
    // Axis labels carry units and thousands separators.
    assert!(svg.contains("Cost (USD)"));
    assert!(svg.contains(",000,000"));
}

#[test]
fn png_decodes_at_the_stated_size() {
    let p = plan(json!({"gpus": 256, "fabrics": ["infiniband", "roce"]}));
    let svg = render::svg(&data::cumulative(&p)).expect("svg");
    for w in [render::PNG_MIN_WIDTH, 600, render::WIDTH, 1200] {
        let png = render::png(&svg, w).expect("png");
        let img = resvg::tiny_skia::Pixmap::decode_png(&png).expect("decodes");
        assert_eq!((img.width(), img.height()), (w, render::png_height(w)));
        // Something is drawn: more than 2% of the pixels are not near-white.
        let inked = img
            .pixels()
            .iter()
            .filter(|px| px.red() < 200 || px.green() < 200 || px.blue() < 200)
            .count();
        let area = (img.width() * img.height()) as usize;
        assert!(inked * 50 > area, "only {inked} inked pixels at width {w}");
    }
    assert_eq!(render::png_height(600), 375);
}

#[test]
fn text_renders_without_system_fonts() {
    // The same SVG with and without its text: the text must change pixels, so glyphs came
    // from the embedded font (fontdb holds no other).
    let p = plan(json!({"gpus": 64}));
    let svg = render::svg(&data::cost_breakdown(&p)).expect("svg");
    let stripped: String = {
        let mut out = String::new();
        let mut rest = svg.as_str();
        while let Some(i) = rest.find("<text") {
            out.push_str(&rest[..i]);
            match rest[i..].find("</text>") {
                Some(j) => rest = &rest[i + j + 7..],
                None => break,
            }
        }
        out.push_str(rest);
        out
    };
    assert_ne!(stripped, svg, "the SVG has text elements");
    let a = render::png(&svg, 720).expect("png");
    let b = render::png(&stripped, 720).expect("png");
    assert_ne!(a, b, "text drew nothing");
}

#[test]
fn tornado_bars_are_the_analysis_largest_swings() {
    let p = plan(json!({"gpus": 1024, "uncertainty": {"samples": 20}}));
    let c = data::tornado(&p).expect("two fabrics and an analysis");
    let u = p.uncertainty.as_ref().expect("analysis");
    let Series::Tornado {
        bars,
        gap_at_modes_usd,
        ..
    } = &c.series
    else {
        panic!("tornado expected")
    };
    assert_eq!(Some(*gap_at_modes_usd), u.gap_at_modes_usd);
    let moving: Vec<_> = u
        .tornado
        .iter()
        .filter(|e| !e.swing_usd.is_zero())
        .collect();
    assert_eq!(bars.len(), moving.len().min(data::TORNADO_BARS));
    for (b, e) in bars.iter().zip(&moving) {
        assert_eq!(
            (b.label.as_str(), b.gap_at_low_usd, b.gap_at_high_usd),
            (
                data::human_input_short(&p, &e.input).as_str(),
                e.gap_at_low_usd,
                e.gap_at_high_usd
            )
        );
    }
    let svg = render::svg(&c).expect("svg");
    // Its dollar ticks do not run into each other (seven "$1,000,000" labels did): centred
    // texts beginning with "$", at most 6.2 px a character (DejaVu Sans digits at 9.7 px).
    let ticks: Vec<(f64, String)> = svg::centred_texts(&svg)
        .into_iter()
        .filter(|(_, _, text)| text.trim_start_matches('-').starts_with('$'))
        .map(|(x, _, text)| (x, text))
        .collect();
    assert!(ticks.len() >= 2, "{ticks:?}");
    for w in ticks.windows(2) {
        let room = (w[0].1.chars().count() + w[1].1.chars().count()) as f64 * 6.2 / 2.0;
        assert!(w[1].0 - w[0].0 >= room, "tornado ticks overlap: {ticks:?}");
    }
    for b in bars {
        assert!(svg.contains(&b.label), "{} labelled", b.label);
        assert!(!b.label.starts_with("prices."), "{} in words", b.label);
    }
    assert_eq!(
        data::tornado_label("prices.list.nvidia-sn5600"),
        "nvidia-sn5600 list price"
    );
    // A part of the plan by its name, not its SKU (#43: "tornado labels that are raw part
    // numbers").
    assert_eq!(
        data::human_input(&p, "prices.list.nvidia-qm9700"),
        "NVIDIA Quantum-2 QM9700 NDR InfiniBand switch price"
    );
    assert_eq!(
        data::human_input_short(&p, "prices.list.nvidia-qm9700"),
        "NVIDIA QM9700 switch price"
    );
    assert_eq!(
        data::human_input_short(&p, "prices.list.arista-7060x6-64pe"),
        "Arista 7060X6-64PE switch price"
    );
    assert_eq!(data::part_name(&p, "not-in-the-plan"), "not-in-the-plan");
    assert_eq!(
        data::tornado_label("prices.discounts.vendor.NVIDIA"),
        "NVIDIA discount"
    );
    assert_eq!(
        data::tornado_label("economics.gpu_hour_usd"),
        "GPU-hour value"
    );
    // No analysis, or one fabric: no tornado.
    assert!(data::tornado(&plan(json!({"gpus": 1024}))).is_none());
    let one = plan(json!({"gpus": 1024, "fabrics": ["roce"], "uncertainty": {"samples": 5}}));
    assert!(data::tornado(&one).is_none());
}

/// One input that moves the gap: its bar is drawn (the one-row axis had no height, so the
/// bar's rectangles were -8 px tall and the chart was blank).
#[test]
fn a_tornado_of_one_bar_draws_it() {
    let p = plan(json!({"gpus": 1024, "uncertainty": {"samples": 20,
        "catalog_price_ranges": false, "model_error_ranges": false,
        "inputs": {"economics.gpu_hour_usd": "1,2.5,4"}}}));
    let c = data::tornado(&p).expect("an analysis of two fabrics");
    let Series::Tornado { bars, .. } = &c.series else {
        panic!("tornado expected")
    };
    assert_eq!(bars.len(), 1);
    let svg = render::svg(&c).expect("svg");
    assert!(svg.contains(&bars[0].label), "labelled");
    assert!(
        !svg.contains("height=\"-"),
        "a rectangle of negative height"
    );
    let tall = rect_sizes(&svg, "height").filter(|h| *h > 20.0).count();
    assert!(tall >= 3, "background and two bar halves at least: {tall}");
}

/// A plan of one fabric: its cost bar is drawn (the one-slot axis had no width, so its
/// rectangles were -56 px wide and the chart was blank).
#[test]
fn a_cost_chart_of_one_fabric_draws_its_bar() {
    let p = plan(json!({"gpus": 1024, "fabrics": ["roce"]}));
    let svg = render::svg(&data::cost_breakdown(&p)).expect("svg");
    assert!(!svg.contains("width=\"-"), "a rectangle of negative width");
    let wide = rect_sizes(&svg, "width").filter(|w| *w > 30.0).count();
    assert!(wide >= 2, "background and the bar's segments: {wide}");
}

/// Fifteen years are labelled at a whole step (0, 2, 4, …): eighths of the span fell between
/// years and printed blank, leaving only 0 and 15.
#[test]
fn a_long_horizon_labels_whole_years() {
    let p = plan(json!({"gpus": 1024, "fabrics": ["infiniband", "roce"],
        "economics": {"years": 15}}));
    let svg = render::svg(&data::cumulative(&p)).expect("svg");
    let texts = svg_texts(&svg);
    for year in ["2", "4", "8", "12"] {
        assert!(texts.iter().any(|t| t == year), "year {year}: {texts:?}");
    }
}

/// Each `<rect>`'s `attr` (`width`, `height`) in an SVG.
fn rect_sizes<'a>(svg: &'a str, attr: &'a str) -> impl Iterator<Item = f64> + 'a {
    svg.split("<rect").skip(1).filter_map(move |r| {
        r.split(&format!("{attr}=\""))
            .nth(1)?
            .split('"')
            .next()?
            .parse::<f64>()
            .ok()
    })
}

/// A fabric that cannot be built is named in the chart's footer instead of vanishing.
#[test]
fn a_fabric_that_cannot_be_built_is_named_under_the_chart() {
    let p = plan(json!({"gpus": 70_000}));
    let c = data::cost_breakdown(&p);
    assert!(
        c.footer.contains("not drawn (infeasible): InfiniBand"),
        "{}",
        c.footer
    );
    let p = plan(json!({"gpus": 1024}));
    assert!(!data::cost_breakdown(&p).footer.contains("not drawn"));
}

/// Every input a sweep may vary has words and its registry unit on the sweep chart's axis
/// and in its title: `workload.message_bytes`, `workload.mfu`, `nic_speed_gbps`… were drawn
/// as their raw dotted names with no unit. A new sweepable input without a line in
/// `data::INPUT_WORDS` fails here.
#[test]
fn every_sweepable_input_has_words_and_its_unit() {
    let mut missing = Vec::new();
    for p in crate::plan::registry::axis_inputs() {
        let label = data::input_label(&p.name);
        let unit = data::input_unit(&p.name);
        let Some(unit) = unit else {
            missing.push(format!("{}: no unit in its declaration", p.name));
            continue;
        };
        // The registry's unit, less only a parenthesised example.
        let declared = &p.numeric.as_ref().expect("numeric").unit;
        assert!(
            declared.starts_with(unit),
            "{}: {unit} vs {declared}",
            p.name
        );
        let Some(words) = label.strip_suffix(&format!(" ({unit})")) else {
            missing.push(format!("{}: {label:?} does not end with ({unit})", p.name));
            continue;
        };
        if words == p.name || words.contains(['.', '_']) || words.is_empty() {
            missing.push(format!("{}: no words ({label:?})", p.name));
        }
    }
    assert!(
        missing.is_empty(),
        "inputs without words or unit: {missing:#?}"
    );
    // And no line for an input that is not one.
    for (name, _) in data::INPUT_WORDS {
        assert!(
            crate::plan::registry::axis_inputs().any(|p| p.name == *name),
            "{name} is not a sweepable input"
        );
    }
}

/// The audit's inputs, word for word, and the GPU-hour value's unit (it said "USD").
#[test]
fn the_sweep_axis_says_the_inputs_words_and_unit() {
    for (name, label) in [
        ("workload.message_bytes", "All-reduce message size (bytes)"),
        (
            "workload.background_load",
            "Background load (fraction of link bandwidth)",
        ),
        ("workload.mfu", "Compute efficiency (fraction of peak)"),
        ("topology.planes", "Fabric planes (planes)"),
        ("nic_speed_gbps", "NIC speed (Gb/s)"),
        (
            "economics.gpu_hour_usd",
            "GPU-hour value (USD per GPU-hour)",
        ),
        ("economics.years", "Horizon (years)"),
        ("gpus", "Cluster size (GPUs)"),
        ("economics.discount_rate", "Discount rate (fraction)"),
    ] {
        assert_eq!(data::input_label(name), label, "{name}");
    }
    let p = plan(json!({"gpus": 1024}));
    let vary = "economics.gpu_hour_usd";
    let rows = vec![
        sweep_row(vary, 0.5, Fabric::Roce, Decimal::ONE),
        sweep_row(vary, 400.5, Fabric::Roce, Decimal::TWO),
    ];
    let cross = [exact_crossover(
        vary,
        [0.5, 400.5],
        253.73,
        Fabric::Roce,
        Fabric::RoceAdaptive,
    )];
    let c = sweep_chart(&p, vary, &rows, &cross, false);
    assert_eq!(c.title, "Total cost vs. GPU-hour value (USD per GPU-hour)");
    let Series::Lines { markers, .. } = &c.series else {
        panic!("lines expected")
    };
    assert!(
        markers[0].label.ends_with("at $253.73 per GPU-hour"),
        "{}",
        markers[0].label
    );
}

/// The log-axis rule (`data::log_x_axis`): geometric sweeps; otherwise positive values over
/// more than two decades that sit more evenly on a log axis. Linear sweeps stay linear.
#[test]
fn a_sweep_over_decades_is_drawn_on_a_log_axis() {
    let linear = |from: f64, to: f64, steps: u32| -> Vec<f64> {
        (0..=steps)
            .map(|i| from + (to - from) * f64::from(i) / f64::from(steps))
            .collect()
    };
    assert!(data::log_x_axis(&[1e3, 1e6, 1e9, 1e10], false));
    assert!(data::log_x_axis(&[1.0, 10.0, 100.0, 1000.0], false));
    assert!(data::log_x_axis(&[256.0, 512.0], true), "geometric");
    // Evenly spaced, however wide: linear, as today.
    assert!(!data::log_x_axis(&linear(64.0, 16384.0, 8), false));
    assert!(!data::log_x_axis(&linear(0.5, 400.0, 8), false));
    assert!(!data::log_x_axis(&linear(1.0, 1e10, 3), false));
    // Within two decades, with a zero or a negative, or too few values: linear.
    assert!(!data::log_x_axis(&[1.0, 2.0, 5.0, 50.0], false));
    assert!(!data::log_x_axis(&[0.0, 1e3, 1e6, 1e9], false));
    assert!(!data::log_x_axis(&[1e3, 1e9], false));
    // Rows repeat each value per fabric: that is not a gap of zero.
    assert!(data::log_x_axis(&[1e3, 1e3, 1e6, 1e6, 1e9, 1e9], false));
}

/// Message sizes over seven decades: a log axis whose labels are apart and inside the image
/// ("1,000" and "1,000,000" were both drawn at x = 128; "10,000,000,000" ran off the right
/// edge). Values within two decades that crowd a linear axis lose a label, not overlap.
#[test]
fn sweep_tick_labels_never_collide() {
    let p = plan(json!({"gpus": 1024}));
    for (vary, values) in [
        ("workload.message_bytes", vec![1e3, 1e6, 1e9, 1e10]),
        ("gpus", vec![100.0, 101.0, 102.0, 5000.0]),
        ("economics.gpu_hour_usd", vec![0.5, 0.51, 20.0, 40.0]),
    ] {
        let rows: Vec<_> = values
            .iter()
            .enumerate()
            .flat_map(|(i, v)| {
                [Fabric::Infiniband, Fabric::Roce]
                    .map(|f| sweep_row(vary, *v, f, Decimal::from(1000 + i as i64)))
            })
            .collect();
        let c = sweep_chart(&p, vary, &rows, &[], false);
        let svg = render::svg(&c).expect("svg");
        assert_ticks_apart(&svg, f64::from(render::WIDTH), vary);
        assert!(svg.contains(&data::input_label(vary)), "{vary}: axis title");
        assert!(!svg.contains(&format!(">{vary}<")), "{vary}: raw name");
    }
    // The message sizes are on a log axis: the first three points are not in the first tenth.
    let vary = "workload.message_bytes";
    let c = sweep_chart(
        &p,
        vary,
        &roce_rows(vary, &[1e3, 1e6, 1e9, 1e10]),
        &[],
        false,
    );
    let Series::Lines { x_log, .. } = &c.series else {
        panic!("lines expected")
    };
    assert!(*x_log);
    let labels = x_tick_texts(&render::svg(&c).expect("svg"));
    for l in ["1,000", "1,000,000", "10,000,000,000"] {
        assert!(labels.iter().any(|t| t == l), "{l} in {labels:?}");
    }
}

/// A geometric sweep of a fraction is labelled with its digits (rounded to whole numbers the
/// ticks read "0", "0", "1").
#[test]
fn a_log_axis_of_fractions_keeps_its_digits() {
    let p = plan(json!({"gpus": 1024}));
    let vary = "utilization.busy_fraction";
    let rows = roce_rows(vary, &[0.05, 0.1, 0.2, 0.4, 0.8]);
    let c = sweep_chart(&p, vary, &rows, &[], true);
    let labels = x_tick_texts(&render::svg(&c).expect("svg"));
    assert_eq!(labels, ["0.05", "0.1", "0.2", "0.4", "0.8"], "{labels:?}");
}

/// A tornado bar's name fits the label area: a long SKU's keeps its start and its end, so
/// "list price" and "price" bars of one SKU still differ (audit 17: names ran off the image);
/// names that would then read alike — long SKUs of one vendor prefix and one revision suffix —
/// are shown around where they differ (audit 18: two switches' bars both read
/// "vendor-whitebox-sys…-rev-a1 list price").
#[test]
fn long_tornado_names_fit_and_stay_apart() {
    use super::render::fit_labels;
    let short = "nvidia-sn5600 list price";
    let a = "vendor-whitebox-system-switch-sn5600-64x800g-rev-a1 list price";
    let b = "vendor-whitebox-system-switch-7060x6-64pe-rev-a1 list price";
    let c = "vendor-whitebox-system-switch-7060x6-64pe-rev-a1 price (USD)";
    let fitted = fit_labels(&[short, a, b, c], 38);
    assert_eq!(fitted[0], short);
    for f in &fitted {
        assert!(f.chars().count() <= 38, "{f}");
    }
    for (i, x) in fitted.iter().enumerate() {
        for y in fitted.iter().skip(i + 1) {
            assert_ne!(x, y, "{fitted:?}");
        }
    }
    assert!(
        fitted[1].contains("sn5600") && fitted[2].contains("7060x6"),
        "{fitted:?}"
    );
    assert!(fitted[3].ends_with("price (USD)"), "{fitted:?}");
}

/// #44: a tornado side narrower than half a pixel is left out, not drawn as a `width="0"`
/// rectangle (the default job's model terms swing by dollars against millions).
#[test]
fn tornado_svgs_draw_no_zero_width_bars() {
    for gpus in [256, 1024, 4096] {
        let p = plan(json!({"gpus": gpus, "uncertainty": {"samples": 20}}));
        let svg = render::svg(&data::tornado(&p).expect("tornado")).expect("svg");
        assert!(svg.contains("<rect"), "bars drawn at {gpus}");
        assert!(
            !svg.contains(r#"width="0""#),
            "a zero-width bar at {gpus} GPUs"
        );
    }
}
