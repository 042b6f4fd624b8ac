//! Reading an SVG chart's texts back, for tests: the API tests use it as a module, the charts
//! unit tests include this file by path (`src/charts/tests.rs`), so one parser serves both.

/// Every text of an SVG, trimmed, in document order.
pub fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            Some(
                t.split_once('>')?
                    .1
                    .split("</text>")
                    .next()?
                    .trim()
                    .to_string(),
            )
        })
        .collect()
}

/// The centred texts of an SVG, left to right: (centre x, font size as written, text).
pub fn centred_texts(svg: &str) -> Vec<(f64, String, String)> {
    let mut out: Vec<(f64, String, String)> = svg
        .split("<text")
        .skip(1)
        .filter_map(|t| {
            let (attrs, rest) = t.split_once('>')?;
            let attr = |name: &str| {
                attrs
                    .split(&format!(" {name}=\""))
                    .nth(1)?
                    .split('"')
                    .next()
                    .map(str::to_string)
            };
            if attr("text-anchor")? != "middle" {
                return None;
            }
            let text = rest.split("</text>").next()?.trim().to_string();
            Some((attr("x")?.parse().ok()?, attr("font-size")?, text))
        })
        .collect();
    out.sort_by(|a, b| a.0.total_cmp(&b.0));
    out
}

/// The x-axis tick labels of a chart's SVG, left to right: (centre x, text). They are the
/// centred texts at the tick-label size (plotters writes size 14 as 11.29 px).
pub fn x_tick_labels(svg: &str) -> Vec<(f64, String)> {
    centred_texts(svg)
        .into_iter()
        .filter(|(_, size, _)| size.starts_with("11.29"))
        .map(|(x, _, text)| (x, text))
        .collect()
}

/// The texts of [`x_tick_labels`], left to right.
pub fn x_tick_texts(svg: &str) -> Vec<String> {
    x_tick_labels(svg).into_iter().map(|(_, t)| t).collect()
}

/// At least two x tick labels, none overlapping its neighbour (centres closer than half their
/// widths: DejaVu Sans at 11.29 px, digits 7.2 px, `,` and `.` 3.6 px) and every one inside
/// an image `width` px wide.
pub fn assert_ticks_apart(svg: &str, width: f64, what: &str) {
    let ticks = x_tick_labels(svg);
    assert!(ticks.len() >= 2, "{what}: ticks {ticks:?}");
    let half = |s: &str| {
        s.chars()
            .map(|c| if matches!(c, ',' | '.') { 3.6 } else { 7.2 })
            .sum::<f64>()
            / 2.0
    };
    for w in ticks.windows(2) {
        let ((xa, a), (xb, b)) = (&w[0], &w[1]);
        assert!(
            xb - xa >= half(a) + half(b),
            "{what}: {a} at {xa} and {b} at {xb} overlap"
        );
    }
    for (x, t) in &ticks {
        assert!(
            x - half(t) >= 0.0 && x + half(t) <= width,
            "{what}: {t} at {x} runs off the image"
        );
    }
}
