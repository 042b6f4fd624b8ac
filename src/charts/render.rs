//! Draws a [`Chart`] as SVG (plotters' SVG backend) and rasterises it to PNG (resvg, with an
//! embedded font: no system fonts are read at run time).

use std::sync::{Arc, OnceLock};

use plotters::chart::MeshStyle;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged, ValueFormatter};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use resvg::{tiny_skia, usvg};

use super::data::{Chart, Series, f, group_thousands, usd, usd_tick};
use crate::fabric::Fabric;

/// Logical size of every chart, px (the SVG's size; PNG scales it to the requested width).
pub const WIDTH: u32 = 720;
pub const HEIGHT: u32 = 450;

/// Font family every text element asks for (the embedded DejaVu Sans renders it).
const FAMILY: &str = "DejaVu Sans";

/// DejaVu Sans 2.37 from Debian's `fonts-dejavu-core` (licence beside it: Bitstream Vera /
/// public-domain changes).
static FONT: &[u8] = include_bytes!("fonts/DejaVuSans.ttf");

/// Okabe & Ito's colour-blind-safe palette ("Color Universal Design", 2008,
/// <https://jfly.uni-koeln.de/color/>).
pub mod okabe_ito {
    use plotters::style::RGBColor;
    pub const BLACK: RGBColor = RGBColor(0, 0, 0);
    pub const ORANGE: RGBColor = RGBColor(230, 159, 0);
    pub const SKY_BLUE: RGBColor = RGBColor(86, 180, 233);
    pub const BLUISH_GREEN: RGBColor = RGBColor(0, 158, 115);
    pub const YELLOW: RGBColor = RGBColor(240, 228, 66);
    pub const BLUE: RGBColor = RGBColor(0, 114, 178);
    pub const VERMILLION: RGBColor = RGBColor(213, 94, 0);
    pub const REDDISH_PURPLE: RGBColor = RGBColor(204, 121, 167);
}
use okabe_ito as oi;

const SEGMENT_COLOURS: [RGBColor; 7] = [
    oi::BLUE,
    oi::SKY_BLUE,
    oi::BLUISH_GREEN,
    oi::YELLOW,
    oi::REDDISH_PURPLE,
    oi::ORANGE,
    oi::VERMILLION,
];

fn fabric_colour(f: Fabric) -> RGBColor {
    match f {
        Fabric::Infiniband => oi::BLUE,
        Fabric::Roce => oi::VERMILLION,
        Fabric::RoceAdaptive => oi::BLUISH_GREEN,
    }
}

/// Why a chart could not be drawn (a bug, not bad input).
#[derive(Debug)]
pub struct RenderError(pub String);

impl std::fmt::Display for RenderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "chart rendering failed: {}", self.0)
    }
}

impl std::error::Error for RenderError {}

fn err<E: std::fmt::Debug>(e: E) -> RenderError {
    RenderError(format!("{e:?}"))
}

/// A legend entry: a filled box (bars) or a line with a marker (lines).
enum Key {
    Box(RGBColor),
    Line(RGBColor, usize),
    Dashed,
    /// Text alone.
    Note,
}

/// Roughly how wide `text` is at `size` px in DejaVu Sans (average advance ≈ 0.6 em).
fn text_width(text: &str, size: u32) -> i32 {
    (text.chars().count() as f64 * f64::from(size) * 0.6).ceil() as i32
}

/// Lays legend entries left to right, wrapping; returns each entry's top-left corner and
/// the height used.
fn legend_layout(entries: &[(Key, String)], width: i32) -> (Vec<(i32, i32)>, i32) {
    let (mut x, mut y) = (12, 6);
    let mut out = Vec::with_capacity(entries.len());
    for (_, label) in entries {
        let w = 30 + text_width(label, 14) + 18;
        if x + w > width - 8 && x > 12 {
            x = 12;
            y += 22;
        }
        out.push((x, y));
        x += w;
    }
    let h = if entries.is_empty() { 0 } else { y + 24 };
    (out, h)
}

fn draw_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    c: RGBColor,
    shape: usize,
    at: (i32, i32),
) -> Result<(), RenderError> {
    let style = c.filled();
    match shape % 3 {
        0 => area.draw(&Circle::new(at, 4, style)).map_err(err)?,
        1 => area.draw(&TriangleMarker::new(at, 5, style)).map_err(err)?,
        _ => area
            .draw(&Rectangle::new(
                [(at.0 - 4, at.1 - 4), (at.0 + 4, at.1 + 4)],
                style,
            ))
            .map_err(err)?,
    }
    Ok(())
}

fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    entries: &[(Key, String)],
    places: &[(i32, i32)],
) -> Result<(), RenderError> {
    let font = (FAMILY, 14).into_font().color(&oi::BLACK);
    for ((key, label), &(x, y)) in entries.iter().zip(places) {
        let mid = y + 8;
        match key {
            Key::Box(c) => area
                .draw(&Rectangle::new([(x, y + 1), (x + 22, y + 15)], c.filled()))
                .map_err(err)?,
            Key::Line(c, shape) => {
                area.draw(&PathElement::new(
                    vec![(x, mid), (x + 24, mid)],
                    c.stroke_width(3),
                ))
                .map_err(err)?;
                draw_marker(area, *c, *shape, (x + 12, mid))?;
            }
            Key::Note => {}
            Key::Dashed => {
                for i in 0..3 {
                    area.draw(&PathElement::new(
                        vec![(x + 11, y + i * 6), (x + 11, y + i * 6 + 3)],
                        oi::BLACK.stroke_width(2),
                    ))
                    .map_err(err)?;
                }
            }
        }
        area.draw_text(label, &font, (x + 30, y)).map_err(err)?;
    }
    Ok(())
}

/// The chart as an SVG document, [`WIDTH`] × [`HEIGHT`] px.
pub fn svg(chart: &Chart) -> Result<String, RenderError> {
    let mut buf = String::new();
    {
        let root = SVGBackend::with_string(&mut buf, (WIDTH, HEIGHT)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let entries = legend_entries(chart);
        let (places, legend_h) = legend_layout(&entries, WIDTH as i32);
        let footer_h = 24;
        let plot_h = HEIGHT as i32 - legend_h - footer_h;
        let (plot, rest) = root.split_vertically(plot_h);
        let (legend, foot) = rest.split_vertically(legend_h);
        draw_legend(&legend, &entries, &places)?;
        foot.draw_text(
            &chart.footer,
            &(FAMILY, 12).into_font().color(&RGBColor(68, 68, 68)),
            (12, 4),
        )
        .map_err(err)?;
        match &chart.series {
            Series::Bars(bars) => draw_bars(&plot, chart, bars)?,
            Series::Tornado {
                x_label,
                gap_at_modes_usd,
                bars,
            } => draw_tornado(&plot, chart, x_label, f(*gap_at_modes_usd), bars)?,
            Series::Lines {
                x_label,
                x_integer,
                x_log,
                lines,
                markers,
                ..
            } => draw_lines(
                &plot,
                chart,
                LineAxes {
                    x_label,
                    x_integer: *x_integer,
                    x_log: *x_log,
                    x_decimals: 0,
                },
                lines,
                markers,
            )?,
        }
        root.present().map_err(err)?;
    }
    Ok(buf)
}

fn legend_entries(chart: &Chart) -> Vec<(Key, String)> {
    match &chart.series {
        Series::Bars(bars) => {
            let Some(first) = bars.first() else {
                return Vec::new();
            };
            first
                .segments
                .iter()
                .enumerate()
                .filter(|(i, _)| {
                    bars.iter()
                        .any(|b| b.segments.get(*i).is_some_and(|s| !s.usd.is_zero()))
                })
                .map(|(i, s)| {
                    (
                        Key::Box(SEGMENT_COLOURS[i % SEGMENT_COLOURS.len()]),
                        s.label.to_string(),
                    )
                })
                .collect()
        }
        Series::Tornado { .. } => vec![
            (Key::Box(oi::SKY_BLUE), "input at its low".to_string()),
            (Key::Box(oi::ORANGE), "input at its high".to_string()),
            (Key::Dashed, "equal totals: the ranking flips".to_string()),
        ],
        Series::Lines {
            lines,
            markers,
            notes,
            ..
        } => {
            let mut v: Vec<(Key, String)> = lines
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    (
                        Key::Line(fabric_colour(l.fabric), i),
                        l.fabric.short_name().to_string(),
                    )
                })
                .collect();
            v.extend(
                markers
                    .iter()
                    .map(|m| (Key::Dashed, format!("cheapest changes: {}", m.label))),
            );
            v.extend(notes.iter().map(|n| (Key::Note, n.clone())));
            v
        }
    }
}

/// A chart area with the caption, the common margin and the given right margin and label areas
/// (x below, y left), px.
fn chart_builder<'a, 'b, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, plotters::coord::Shift>,
    chart: &'b Chart,
    margin_right: u32,
    x_label_area: u32,
    y_label_area: u32,
) -> ChartBuilder<'a, 'b, DB> {
    let mut builder = ChartBuilder::on(area);
    builder
        .caption(&chart.title, (FAMILY, 20).into_font())
        .margin(10)
        .margin_right(margin_right)
        .x_label_area_size(x_label_area)
        .y_label_area_size(y_label_area);
    builder
}

/// Draws a configured mesh with labels of `label` px, axis descriptions of `desc` px and light
/// grey grid lines.
fn draw_mesh<X, Y, DB>(
    mesh: &mut MeshStyle<'_, '_, X, Y, DB>,
    label: u32,
    desc: u32,
) -> Result<(), RenderError>
where
    X: Ranged + ValueFormatter<X::ValueType>,
    Y: Ranged + ValueFormatter<Y::ValueType>,
    DB: DrawingBackend,
{
    mesh.label_style((FAMILY, label))
        .axis_desc_style((FAMILY, desc))
        .light_line_style(RGBColor(235, 235, 235))
        .draw()
        .map_err(err)
}

/// The name at a segment's centre, `names[index(i)]` for segment `i` (blank elsewhere and
/// beyond the names).
/// `label` in at most `max` characters: its first and last characters around a "…".
pub(super) fn fit_label(label: &str, max: usize) -> String {
    let chars: Vec<char> = label.chars().collect();
    if chars.len() <= max || max < 3 {
        return label.to_string();
    }
    let tail = (max - 1) / 2;
    let head = max - 1 - tail;
    let mut out: String = chars.iter().take(head).collect();
    out.push('…');
    out.extend(chars.iter().skip(chars.len() - tail));
    out
}

/// Each label in at most `max` characters ([`fit_label`]), and labels that would read alike
/// (long SKUs of one vendor prefix and one revision suffix) shown instead around where they
/// first differ: "…ys-sn5600-64x800g-rev-a1 list price".
pub(super) fn fit_labels(labels: &[&str], max: usize) -> Vec<String> {
    let fitted: Vec<String> = labels.iter().map(|l| fit_label(l, max)).collect();
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    labels
        .iter()
        .enumerate()
        .map(|(i, label)| {
            let at = (0..labels.len())
                .filter(|&j| j != i && fitted.get(j) == fitted.get(i))
                .filter_map(|j| labels.get(j).map(|other| common(label, other)))
                .max();
            match at {
                Some(at) => window(label, at, max),
                None => fitted.get(i).cloned().unwrap_or_default(),
            }
        })
        .collect()
}

/// `max` characters of `label` from a little before character `at`, with "…" where text is
/// left out.
fn window(label: &str, at: usize, max: usize) -> String {
    let chars: Vec<char> = label.chars().collect();
    if chars.len() <= max || max < 3 {
        return label.to_string();
    }
    // Start so that the window ends at the label's end if it can, and shows `at`.
    let start = at.saturating_sub(4).min(chars.len() - (max - 1));
    let mut out = String::new();
    if start > 0 {
        out.push('…');
    }
    let room = max - usize::from(start > 0);
    if start + room >= chars.len() {
        out.extend(chars.iter().skip(start));
    } else {
        out.extend(chars.iter().skip(start).take(room - 1));
        out.push('…');
    }
    out
}

fn centre_name(v: &SegmentValue<i32>, names: &[&str], index: impl Fn(i32) -> i32) -> String {
    match v {
        SegmentValue::CenterOf(i) => usize::try_from(index(*i))
            .ok()
            .and_then(|k| names.get(k))
            .map(|s| s.to_string())
            .unwrap_or_default(),
        _ => String::new(),
    }
}

fn y_max(max: f64) -> f64 {
    if max > 0.0 { max * 1.12 } else { 1.0 }
}

fn draw_bars<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    chart: &Chart,
    bars: &[super::data::CostBar],
) -> Result<(), RenderError> {
    // Slots: one a fabric, at least two (plotters maps a one-segment axis to no width: one
    // fabric's bar was drawn -56 px wide, i.e. not at all); a lone bar takes the left slot.
    let n = bars.len().max(2) as i32;
    let top = bars.iter().map(|b| f(b.total_usd)).fold(0.0, f64::max);
    let mut c = chart_builder(area, chart, 20, 36, 118)
        .build_cartesian_2d((0..n - 1).into_segmented(), 0f64..y_max(top))
        .map_err(err)?;
    let names: Vec<&str> = bars.iter().map(|b| b.fabric.short_name()).collect();
    let x_fmt = |v: &SegmentValue<i32>| centre_name(v, &names, |i| i);
    let y_fmt = |v: &f64| usd_tick(*v);
    draw_mesh(
        c.configure_mesh()
            .disable_x_mesh()
            .y_desc(&chart.y_label)
            .x_labels(bars.len() + 1)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt),
        14,
        15,
    )?;
    let segments = bars.first().map(|b| b.segments.len()).unwrap_or(0);
    let mut base = vec![0.0_f64; bars.len()];
    for s in 0..segments {
        let colour = SEGMENT_COLOURS[s % SEGMENT_COLOURS.len()];
        let mut rects = Vec::with_capacity(bars.len());
        for (i, b) in bars.iter().enumerate() {
            let v = b.segments.get(s).map(|x| f(x.usd)).unwrap_or(0.0);
            if v <= 0.0 {
                continue;
            }
            let i32i = i as i32;
            let mut r = Rectangle::new(
                [
                    (SegmentValue::Exact(i32i), base[i]),
                    (SegmentValue::Exact(i32i + 1), base[i] + v),
                ],
                colour.filled(),
            );
            r.set_margin(0, 0, 28, 28);
            rects.push(r);
            base[i] += v;
        }
        c.draw_series(rects).map_err(err)?;
    }
    let label_font = (FAMILY, 14)
        .into_font()
        .color(&oi::BLACK)
        .pos(Pos::new(HPos::Center, VPos::Bottom));
    c.draw_series(bars.iter().enumerate().map(|(i, b)| {
        Text::new(
            usd(b.total_usd),
            (SegmentValue::CenterOf(i as i32), f(b.total_usd)),
            label_font.clone(),
        )
    }))
    .map_err(err)?;
    Ok(())
}

/// Tornado: one row per input (largest swing on top), a bar from the gap at the modes to the
/// gap with the input at its low (sky blue) and at its high (orange), a solid line at the gap
/// at the modes and a dashed one at zero.
fn draw_tornado<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    chart: &Chart,
    x_label: &str,
    base: f64,
    bars: &[super::data::TornadoBar],
) -> Result<(), RenderError> {
    // Rows: one a bar, at least two (plotters maps a one-segment axis to no height: a single
    // bar was drawn 8 px tall upside down, i.e. not at all); a lone bar takes the top row.
    let n = bars.len().max(2) as i32;
    let (mut lo, mut hi) = bars
        .iter()
        .flat_map(|b| [f(b.gap_at_low_usd), f(b.gap_at_high_usd)])
        .chain([base, 0.0])
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
            (a.min(x), b.max(x))
        });
    if hi <= lo {
        hi = lo + 1.0;
    }
    let pad = (hi - lo) * 0.06;
    (lo, hi) = (lo - pad, hi + pad);
    // A right margin wide enough for half a "$150,000,000" tick label centred on the edge.
    let mut c = chart_builder(area, chart, 56, 48, 236)
        .build_cartesian_2d(lo..hi, (0..n - 1).into_segmented())
        .map_err(err)?;
    // Row k from the top is segment n − 1 − k. A name wider than the 236 px label area (a
    // long SKU's price) keeps its start and its end ("…-1600g-2xdr4 price (USD)").
    let labels: Vec<&str> = bars.iter().map(|b| b.label.as_str()).collect();
    let fitted = fit_labels(&labels, 38);
    let names: Vec<&str> = fitted.iter().map(String::as_str).collect();
    let y_fmt = |v: &SegmentValue<i32>| centre_name(v, &names, |i| n - 1 - i);
    let x_fmt = |v: &f64| usd_tick(*v);
    draw_mesh(
        c.configure_mesh()
            .disable_y_mesh()
            .x_desc(x_label)
            .y_labels(n as usize + 1)
            .y_label_formatter(&y_fmt)
            .x_label_formatter(&x_fmt)
            // Five: "$1,000,000" labels 100 px apart ran into each other at seven.
            .x_labels(5),
        12,
        14,
    )?;
    let mut rects = Vec::with_capacity(2 * bars.len());
    for (k, b) in bars.iter().enumerate() {
        let row = n - 1 - k as i32;
        for (gap, colour) in [
            (f(b.gap_at_low_usd), oi::SKY_BLUE),
            (f(b.gap_at_high_usd), oi::ORANGE),
        ] {
            let (a, z) = if gap < base { (gap, base) } else { (base, gap) };
            // A side that maps to no whole pixel is left out, not drawn as a `width="0"`
            // rectangle (#44): the model terms' swings are dollars against millions.
            let x = |v: f64| c.backend_coord(&(v, SegmentValue::Exact(row))).0;
            if x(a) == x(z) {
                continue;
            }
            let mut r = Rectangle::new(
                [
                    (a, SegmentValue::Exact(row)),
                    (z, SegmentValue::Exact(row + 1)),
                ],
                colour.filled(),
            );
            r.set_margin(4, 4, 0, 0);
            rects.push(r);
        }
    }
    c.draw_series(rects).map_err(err)?;
    let ends = (SegmentValue::Exact(0), SegmentValue::Exact(n));
    c.draw_series(LineSeries::new(
        vec![(base, ends.0.clone()), (base, ends.1.clone())],
        oi::BLACK.stroke_width(1),
    ))
    .map_err(err)?;
    c.draw_series(DashedLineSeries::new(
        vec![(0.0, ends.0), (0.0, ends.1)],
        6,
        5,
        oi::BLACK.stroke_width(2),
    ))
    .map_err(err)?;
    Ok(())
}

/// The smallest of 1, 2 and 5 times a power of ten that is at least `raw` (a tick step).
fn nice_step(raw: f64) -> f64 {
    if !raw.is_finite() || raw <= 0.0 {
        return 1.0;
    }
    let p = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
}

/// A linear f64 axis with ticks at the given values (the data's x values when few).
struct Ticks {
    lo: f64,
    hi: f64,
    ticks: Vec<f64>,
}

impl Ranged for Ticks {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.hi - self.lo;
        let t = if span > 0.0 {
            (v - self.lo) / span
        } else {
            0.0
        };
        limit.0 + (t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.max_num_points() >= self.ticks.len() {
            self.ticks.clone()
        } else {
            Vec::new()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// Width of the y-axis label area of a line chart, px.
const Y_LABELS_PX: u32 = 118;

/// Nine evenly spaced ticks from `x0` to `x1`.
fn even_ticks(x0: f64, x1: f64) -> Vec<f64> {
    (0..=8)
        .map(|i| x0 + (x1 - x0) * f64::from(i) / 8.0)
        .collect()
}

/// Ticks of a log axis from 10^`x0` to 10^`x1` (log10 units): the powers of ten in it (every
/// second, third… when there are more than nine), or 1, 2 and 5 times them when the span holds
/// fewer than three; evenly spaced when that still gives fewer than three.
fn log_ticks(x0: f64, x1: f64) -> Vec<f64> {
    let (first, last) = (x0.ceil() as i64, x1.floor() as i64);
    let decades: Vec<f64> = (first..=last).map(|k| k as f64).collect();
    if decades.len() >= 3 {
        let every = decades.len().div_ceil(9);
        return decades.into_iter().step_by(every).collect();
    }
    let eps = 1e-9;
    let steps: Vec<f64> = (first - 1..=last)
        .flat_map(|k| [1.0f64, 2.0, 5.0].map(|m| k as f64 + m.log10()))
        .filter(|t| *t >= x0 - eps && *t <= x1 + eps)
        .collect();
    if steps.len() >= 3 {
        steps
    } else {
        even_ticks(x0, x1)
    }
}

/// An x tick's label. A log axis is drawn in log10 units and labelled with the value; whole
/// values (years, GPUs, bytes) with thousands separators (blank between whole values on a
/// linear axis), others with two decimals on a linear axis (whole, with separators, from 1,000
/// up) and three significant digits on a log one (0.05, 0.113, 1.5: rounded to whole numbers they printed "0", "0", "1").
fn x_tick_label(v: f64, axes: &LineAxes<'_>) -> String {
    let x = if axes.x_log { 10f64.powf(v) } else { v };
    if axes.x_integer || (axes.x_log && x >= 1000.0) {
        if !axes.x_log && (x - x.round()).abs() > 1e-6 {
            return String::new();
        }
        group_thousands(x.round() as i128)
    } else if axes.x_log {
        let decimals = 2i32
            .saturating_sub(x.abs().log10().floor() as i32)
            .clamp(0, 9) as usize;
        let s = format!("{x:.decimals$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        // A price in dollars: "37,143", not "37142.86"; more decimals only where neighbouring
        // ticks need them to differ.
        grouped_decimal(x, axes.x_decimals)
    }
}

/// `x` with `decimals` places and its whole part grouped in thousands: `45,934.92`.
pub fn grouped_decimal(x: f64, decimals: usize) -> String {
    let text = format!("{:.decimals$}", x.abs());
    // No "-0.00": a sign only where a digit is not zero.
    let sign = if x < 0.0 && text.bytes().any(|b| b.is_ascii_digit() && b != b'0') {
        "-"
    } else {
        ""
    };
    format!("{sign}{}", super::data::group_decimal_text(&text))
}

/// How wide a tick label is drawn, px: plotters sets a size-14 font at 14 / 1.24 ≈ 11.3 px, in
/// which DejaVu Sans' digits advance 1,303 of its 2,048 units per em and `,` and `.` 651.
fn tick_label_px(label: &str) -> f64 {
    let px_per_unit = 14.0 / 1.24 / 2048.0;
    label
        .chars()
        .map(|c| {
            if matches!(c, ',' | '.') {
                651.0
            } else {
                1303.0
            }
        })
        .sum::<f64>()
        * px_per_unit
}

/// The ticks whose labels do not overlap their neighbours' on a `plot_px`-wide axis from `x0`
/// to `x1`: the last is kept, and from left to right each tick whose label clears the last
/// kept one and the last tick's (an overlapping one is left out; its point is still drawn).
/// Labels are centred on their ticks and need 8 px between them.
fn without_collisions(
    ticks: &[f64],
    x0: f64,
    x1: f64,
    plot_px: f64,
    label: &dyn Fn(&f64) -> String,
) -> Vec<f64> {
    let span = x1 - x0;
    let at = |v: f64| {
        if span > 0.0 {
            (v - x0) / span * plot_px
        } else {
            0.0
        }
    };
    let half = |v: &f64| tick_label_px(&label(v)) / 2.0;
    let clear = |a: &f64, b: &f64| (at(*b) - at(*a)).abs() >= half(a) + half(b) + 8.0;
    let Some((last, rest)) = ticks.split_last() else {
        return Vec::new();
    };
    let mut kept: Vec<f64> = Vec::with_capacity(ticks.len());
    for t in rest {
        if kept.last().is_none_or(|k| clear(k, t)) && clear(t, last) {
            kept.push(*t);
        }
    }
    kept.push(*last);
    kept
}

struct LineAxes<'a> {
    x_label: &'a str,
    x_integer: bool,
    x_log: bool,
    /// Decimals of a linear, non-integer axis's labels ([`tick_decimals`]).
    x_decimals: usize,
}

/// Decimals for the labels of a linear axis's `ticks`: 2 below 1,000 and none from 1,000 up
/// (a price in whole dollars), or more where neighbouring ticks would otherwise print alike
/// (0.300, 0.305, 0.310; 45,934.4 … 45,935.2).
fn tick_decimals(ticks: &[f64]) -> usize {
    let big = ticks.iter().any(|t| t.abs() >= 1000.0);
    let base = if big { 0 } else { 2 };
    (base..=9)
        .find(|&d| {
            ticks
                .windows(2)
                .all(|w| format!("{:.d$}", w[0]) != format!("{:.d$}", w[1]))
        })
        .unwrap_or(9)
}

/// The x range of a line chart's points and markers (on the drawn axis, `tx`), at least 1 wide;
/// 0 to 1 when there is nothing to draw.
fn x_range(
    lines: &[super::data::Line],
    markers: &[super::data::Marker],
    tx: &impl Fn(f64) -> f64,
) -> (f64, f64) {
    let xs = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| tx(p.0)))
        .chain(markers.iter().map(|m| tx(m.x)));
    let (mut x0, mut x1) = xs.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), x| {
        (a.min(x), b.max(x))
    });
    if !x0.is_finite() || !x1.is_finite() {
        (x0, x1) = (0.0, 1.0);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    (x0, x1)
}

/// The x ticks of a line chart: its points' x values or, when there are more than 11, the
/// axis's own (a log axis's powers of ten, whole values at a round step, or nine even ones).
fn x_ticks(
    lines: &[super::data::Line],
    (x0, x1): (f64, f64),
    axes: &LineAxes<'_>,
    tx: &impl Fn(f64) -> f64,
) -> Vec<f64> {
    let mut ticks: Vec<f64> = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| tx(p.0)))
        .collect();
    ticks.sort_by(f64::total_cmp);
    ticks.dedup();
    if ticks.len() > 11 {
        ticks = if axes.x_log {
            log_ticks(x0, x1)
        } else if axes.x_integer {
            // Whole values (years, GPUs) at a round step: eighths of 0–15 years fell between
            // years and printed blank.
            let step = nice_step((x1 - x0) / 8.0).max(1.0);
            let first = (x0 / step).ceil() as i64;
            let last = (x1 / step).floor() as i64;
            (first..=last).map(|k| k as f64 * step).collect()
        } else {
            even_ticks(x0, x1)
        };
    }
    ticks
}

fn draw_lines<DB: DrawingBackend>(
    area: &DrawingArea<DB, plotters::coord::Shift>,
    chart: &Chart,
    axes: LineAxes<'_>,
    lines: &[super::data::Line],
    markers: &[super::data::Marker],
) -> Result<(), RenderError> {
    // A log axis is drawn as log10(x) on a linear axis, labelled with x.
    let tx = |x: f64| {
        if axes.x_log && x > 0.0 { x.log10() } else { x }
    };
    let (x0, x1) = x_range(lines, markers, &tx);
    let top = lines
        .iter()
        .flat_map(|l| l.points.iter().map(|p| f(p.1)))
        .fold(0.0, f64::max);
    let ticks = x_ticks(lines, (x0, x1), &axes, &tx);
    let axes = LineAxes {
        x_decimals: tick_decimals(&ticks),
        ..axes
    };
    let x_fmt = |v: &f64| x_tick_label(*v, &axes);
    // The last tick sits on the plot's right edge, centred: the right margin holds half its
    // label (a 14-character byte count ran off the image).
    let margin_right = ticks
        .last()
        .map_or(0, |v| (tick_label_px(&x_fmt(v)) / 2.0).ceil() as u32 + 4)
        .max(24);
    // The plot's width: the area less the left margin, the right one and the y labels.
    let plot_px = f64::from(area.dim_in_pixel().0) - f64::from(10 + margin_right + Y_LABELS_PX);
    let ticks = without_collisions(&ticks, x0, x1, plot_px, &x_fmt);
    let mut c = chart_builder(area, chart, margin_right, 48, Y_LABELS_PX)
        .build_cartesian_2d(
            Ticks {
                lo: x0,
                hi: x1,
                ticks,
            },
            0f64..y_max(top),
        )
        .map_err(err)?;
    let y_fmt = |v: &f64| usd_tick(*v);
    draw_mesh(
        c.configure_mesh()
            .x_desc(axes.x_label)
            .y_desc(&chart.y_label)
            .x_label_formatter(&x_fmt)
            .y_label_formatter(&y_fmt),
        14,
        15,
    )?;
    for m in markers {
        let x = tx(m.x);
        c.draw_series(DashedLineSeries::new(
            vec![(x, 0.0), (x, y_max(top))],
            6,
            5,
            oi::BLACK.stroke_width(2),
        ))
        .map_err(err)?;
    }
    for (i, l) in lines.iter().enumerate() {
        let colour = fabric_colour(l.fabric);
        let pts: Vec<(f64, f64)> = l.points.iter().map(|p| (tx(p.0), f(p.1))).collect();
        c.draw_series(LineSeries::new(pts.clone(), colour.stroke_width(3)))
            .map_err(err)?;
        let style = colour.filled();
        match i % 3 {
            0 => c.draw_series(
                pts.iter()
                    .map(|p| EmptyElement::at(*p) + Circle::new((0, 0), 4, style)),
            ),
            1 => c.draw_series(
                pts.iter()
                    .map(|p| EmptyElement::at(*p) + TriangleMarker::new((0, 0), 5, style)),
            ),
            _ => c.draw_series(
                pts.iter()
                    .map(|p| EmptyElement::at(*p) + Rectangle::new([(-4, -4), (4, 4)], style)),
            ),
        }
        .map_err(err)?;
    }
    Ok(())
}

fn render_options() -> &'static usvg::Options<'static> {
    static OPTS: OnceLock<usvg::Options<'static>> = OnceLock::new();
    OPTS.get_or_init(|| {
        let mut db = usvg::fontdb::Database::new();
        db.load_font_data(FONT.to_vec());
        db.set_sans_serif_family(FAMILY);
        let mut o = usvg::Options {
            font_family: FAMILY.to_string(),
            ..usvg::Options::default()
        };
        o.fontdb = Arc::new(db);
        o
    })
}

/// PNG widths accepted (the height follows the 16:10 aspect ratio).
pub const PNG_MIN_WIDTH: u32 = 320;
pub const PNG_MAX_WIDTH: u32 = 2400;

/// The PNG height for a width (16:10, like the SVG).
pub fn png_height(width: u32) -> u32 {
    (u64::from(width) * u64::from(HEIGHT) / u64::from(WIDTH)) as u32
}

/// Rasterises an SVG made by [`svg`] to a PNG `width` px wide.
pub fn png(svg: &str, width: u32) -> Result<Vec<u8>, RenderError> {
    let width = width.clamp(PNG_MIN_WIDTH, PNG_MAX_WIDTH);
    let tree = usvg::Tree::from_str(svg, render_options()).map_err(err)?;
    let height = png_height(width);
    let scale = width as f32 / WIDTH as f32;
    let mut pixmap =
        tiny_skia::Pixmap::new(width, height).ok_or_else(|| RenderError("pixmap".into()))?;
    pixmap.fill(tiny_skia::Color::WHITE);
    resvg::render(
        &tree,
        tiny_skia::Transform::from_scale(scale, scale),
        &mut pixmap.as_mut(),
    );
    pixmap.encode_png().map_err(err)
}
