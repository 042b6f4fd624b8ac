//! The comparison's sentences, kept as the numbers they say and written when shown. A plan read
//! only for its figures (a sweep point, a spreadsheet cell, a Monte Carlo sample) never formats
//! them; a JSON answer writes them straight into its bytes (`collect_str`), with no string in
//! between. Formatting them at build time was 21 % of the instructions of a three-fabric plan
//! when profiled (`benches/instructions.sh`).

use std::fmt;

use rust_decimal::Decimal;

use super::TrafficLabel;
use super::money::{ROUNDING, format_percent, format_usd_short, group_digits};
use crate::fabric::Fabric;

/// `comparison.recommendation`: one sentence.
#[derive(Debug, Clone, PartialEq)]
pub enum Recommendation {
    /// A comparison built for its figures alone: no sentence (written as `""`).
    Unwritten,
    /// "Choose A: the lowest total cost over N years ($X …), $Y less than B."
    Choose {
        cheapest: Fabric,
        runner_up: Fabric,
        years: u32,
        cheapest_total_usd: Decimal,
        gap_usd: Decimal,
    },
    /// The job fits one NVLink domain, so no scale-out fabric changes its step time: said
    /// first, then what to buy if a fabric is bought anyway (audit 26: one server was told
    /// "Choose InfiniBand" at $126K).
    NoneNeeded {
        gpus: u32,
        /// The domain is one server (else a multi-node NVLink domain, an NVL72 rack).
        server: bool,
        then: Box<Recommendation>,
    },
    /// The two cheapest are within the tie threshold of each other.
    Tied {
        cheapest: Fabric,
        runner_up: Fabric,
        years: u32,
        threshold: Decimal,
        cheapest_total_usd: Decimal,
        runner_up_total_usd: Decimal,
    },
}

/// One of `comparison.reasons[]`: A is the cheapest fabric, F the one it is compared with.
#[derive(Debug, Clone, PartialEq)]
pub enum Reason {
    /// Capex and GPU idle cost, A minus F, over the horizon.
    UpFront {
        a: Fabric,
        f: Fabric,
        years: u32,
        capex_delta_usd: Decimal,
        idle_delta_usd: Decimal,
        /// The two lose the same GPU-hours (waits and failures), not only the same dollars (at
        /// a GPU-hour valued at $0 different hours cost the same).
        same_idle_hours: bool,
    },
    /// Yearly opex, A minus F.
    Running {
        a: Fabric,
        f: Fabric,
        opex_delta_usd: Decimal,
    },
    /// Idle fractions of busy time on each.
    Waits {
        a: Fabric,
        f: Fabric,
        idle_fraction_a: Decimal,
        idle_fraction_f: Decimal,
    },
    /// The idle difference is mostly network failures: GPU-hours a year lost on each.
    Failures {
        a: Fabric,
        f: Fabric,
        gpu_hours_a: f64,
        gpu_hours_f: f64,
    },
    /// The idle difference comes from one traffic: its exposed ms per step on each.
    Traffic {
        a: Fabric,
        f: Fabric,
        label: TrafficLabel,
        exposed_ms_a: f64,
        exposed_ms_f: f64,
    },
    /// Totals (network TCO plus idle GPU time) over the horizon.
    Totals {
        a: Fabric,
        f: Fabric,
        years: u32,
        total_a_usd: Decimal,
        total_f_usd: Decimal,
    },
    /// Where the runner-up becomes cheaper as the GPU-hour value moves.
    BreakEven {
        a: Fabric,
        runner_up: Fabric,
        now_usd: Decimal,
        at: BreakEvenAt,
    },
}

/// Where, in GPU-hour value, the runner-up becomes cheaper than the cheapest fabric.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum BreakEvenAt {
    /// At no value.
    Never,
    /// Above this value, which is beyond `max_usd`, the most a plan accepts: the figure is
    /// said with the bound, so the sentence and `break_even.gpu_hour_usd` tell one story.
    BeyondAccepted { at_usd: Decimal, max_usd: Decimal },
    /// Above this value (the break-even is above today's).
    Above(Decimal),
    /// Below this value.
    Below(Decimal),
}

fn year_word(years: u32) -> &'static str {
    if years == 1 { "year" } else { "years" }
}

/// "$1.4M more {tail} {other}" / "$1.4M less …" / "{same} {other}".
fn more_less(
    f: &mut fmt::Formatter<'_>,
    delta: Decimal,
    tail: &str,
    same: &str,
    other: &str,
) -> fmt::Result {
    if delta > Decimal::ZERO {
        write!(f, "{} more {tail} {other}", format_usd_short(delta))
    } else if delta < Decimal::ZERO {
        write!(f, "{} less {tail} {other}", format_usd_short(delta))
    } else {
        write!(f, "{same} {other}")
    }
}

/// A per-hour rate in dollars and cents for sentences, with thousands separators: `$2.50`,
/// `$1,234.50`.
pub(super) fn format_usd_rate(v: Decimal) -> String {
    format_usd_rate_places(v, 2)
}

/// A break-even and the current value, for a sentence that compares them ("above $121.0077 per
/// GPU-hour (now $121.0076)"): in cents or, where cents would show them equal, with as many
/// more places as tell them apart, up to the break-even's own (it is exact to its last place
/// only: the current value between the true crossing and the break-even as written must not
/// read as lying on the other side of it). `None` when they are equal to that precision: the
/// current value is the break-even (audit 19 F3, audit 21 F4: "Above $121.01 (now $121.01)",
/// "Below $148.40 (now $148.40)").
pub(super) fn format_usd_rates(star: Decimal, now: Decimal) -> Option<(String, String)> {
    let most = own_places(star);
    let places = (2..=most).find(|&p| {
        star.round_dp_with_strategy(p, ROUNDING) != now.round_dp_with_strategy(p, ROUNDING)
    })?;
    Some((
        format_usd_rate_places(star, places),
        format_usd_rate_places(now, places),
    ))
}

/// A rate with the places of the break-even it is.
fn format_usd_rate_exact(v: Decimal) -> String {
    format_usd_rate_places(v, own_places(v))
}

/// The places a break-even is written to: its own, cents at least, six at most.
fn own_places(v: Decimal) -> u32 {
    v.normalize().scale().clamp(2, 6)
}

fn format_usd_rate_places(v: Decimal, places: u32) -> String {
    let mut r = v.round_dp_with_strategy(places, ROUNDING);
    r.rescale(places);
    let sign = if r.is_sign_negative() && !r.is_zero() {
        "-"
    } else {
        ""
    };
    format!("{sign}${}", group_digits(&r.abs().to_string()))
}

impl fmt::Display for Recommendation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Recommendation::Unwritten => Ok(()),
            Recommendation::NoneNeeded {
                gpus,
                server,
                ref then,
            } => {
                let (inside, second) = if server {
                    ("one server", "server")
                } else {
                    ("one NVLink domain", "NVLink domain")
                };
                let all = if gpus == 1 {
                    "the one GPU is".to_string()
                } else {
                    format!("all {gpus} GPUs are")
                };
                write!(
                    f,
                    "No scale-out fabric is needed: {all} in {inside}, every collective runs over NVLink and no fabric changes the job's step time. If one is bought anyway (storage, growth, a second {second}): {then}"
                )
            }
            Recommendation::Choose {
                cheapest,
                runner_up,
                years,
                cheapest_total_usd,
                gap_usd,
            } => write!(
                f,
                "Choose {}: the lowest total cost over {years} {} ({} of network TCO and idle \
                 GPU time), {} less than {}.",
                cheapest.display_name(),
                year_word(years),
                format_usd_short(cheapest_total_usd),
                format_usd_short(gap_usd),
                runner_up.display_name(),
            ),
            Recommendation::Tied {
                cheapest,
                runner_up,
                years,
                threshold,
                cheapest_total_usd,
                runner_up_total_usd,
            } => write!(
                f,
                "{} and {} cost within {} of each other over {years} {} ({} vs {}): treat \
                 them as tied on cost and decide on performance, operations and vendor preference.",
                cheapest.display_name(),
                runner_up.display_name(),
                format_percent(threshold),
                year_word(years),
                format_usd_short(cheapest_total_usd),
                format_usd_short(runner_up_total_usd),
            ),
        }
    }
}

impl fmt::Display for Reason {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::UpFront {
                a,
                f,
                years,
                capex_delta_usd,
                idle_delta_usd,
                same_idle_hours,
            } => write_up_front(
                out,
                (*a, *f),
                *years,
                *capex_delta_usd,
                *idle_delta_usd,
                *same_idle_hours,
            ),
            Reason::Running {
                a,
                f,
                opex_delta_usd,
            } => {
                write!(out, "{} costs ", a.display_name())?;
                more_less(
                    out,
                    *opex_delta_usd,
                    "per year to run than",
                    "the same per year to run as",
                    f.display_name(),
                )?;
                out.write_str(" (power, support, staff, licences, spares).")
            }
            Reason::Waits {
                a,
                f,
                idle_fraction_a,
                idle_fraction_f,
            } => write!(
                out,
                "GPUs wait on the network {} of busy time on {} and {} on {}.",
                format_percent(*idle_fraction_a),
                a.display_name(),
                format_percent(*idle_fraction_f),
                f.display_name(),
            ),
            Reason::Failures {
                a,
                f,
                gpu_hours_a,
                gpu_hours_f,
            } => write!(
                out,
                "Most of the idle difference is network failures: {} loses {gpu_hours_a:.0} \
                 GPU-hours a year to interruptions (NIC, switch, optics and cable faults) \
                 against {gpu_hours_f:.0} on {}.",
                a.display_name(),
                f.display_name(),
            ),
            Reason::Traffic {
                a,
                f,
                label,
                exposed_ms_a,
                exposed_ms_f,
            } => write!(
                out,
                "The idle difference comes from {label}: {exposed_ms_a:.1} ms exposed per step on \
                 {} against {exposed_ms_f:.1} ms on {}.",
                a.display_name(),
                f.display_name(),
            ),
            Reason::Totals {
                a,
                f,
                years,
                total_a_usd,
                total_f_usd,
            } => write!(
                out,
                "Over {years} {} {} totals {} against {} for {} (network TCO plus idle GPU time).",
                year_word(*years),
                a.display_name(),
                format_usd_short(*total_a_usd),
                format_usd_short(*total_f_usd),
                f.display_name(),
            ),
            Reason::BreakEven {
                a,
                runner_up,
                now_usd,
                at,
            } => write_break_even(out, (*a, *runner_up), *now_usd, at),
        }
    }
}

/// The sentence a [`Reason::UpFront`] says: what `a` costs up front against `f`, and what it
/// saves or loses in GPU time.
fn write_up_front(
    out: &mut fmt::Formatter<'_>,
    (a, f): (Fabric, Fabric),
    years: u32,
    capex_delta_usd: Decimal,
    idle_delta_usd: Decimal,
    same_idle_hours: bool,
) -> fmt::Result {
    let (a, f) = (a.display_name(), f.display_name());
    write!(out, "{a} costs ")?;
    more_less(
        out,
        capex_delta_usd,
        "up front than",
        "the same up front as",
        f,
    )?;
    let idle = idle_delta_usd;
    if idle < Decimal::ZERO {
        write!(out, " and saves {} of GPU time", format_usd_short(idle))?;
    } else if idle > Decimal::ZERO {
        write!(
            out,
            " and loses {} more GPU time to network waits and failures",
            format_usd_short(idle)
        )?;
    } else if same_idle_hours {
        out.write_str(" and loses the same GPU time")?;
    } else {
        out.write_str(" and, with GPU time valued at $0, the same idle cost")?;
    }
    write!(out, " over {years} {}.", year_word(years))
}

/// The sentence a [`Reason::BreakEven`] says: at which GPU-hour value, if any, `runner_up`
/// becomes cheaper than `a`.
fn write_break_even(
    out: &mut fmt::Formatter<'_>,
    (a, runner_up): (Fabric, Fabric),
    now_usd: Decimal,
    at: &BreakEvenAt,
) -> fmt::Result {
    let (a, runner) = (a.display_name(), runner_up.display_name());
    match at {
        BreakEvenAt::BeyondAccepted { at_usd, max_usd } => {
            let (at, max) = format_usd_rates(*at_usd, *max_usd)
                .unwrap_or_else(|| (format_usd_rate(*at_usd), format_usd_rate(*max_usd)));
            write!(
                out,
                "Only above {at} per GPU-hour (now {}), beyond the {max} a plan \
                 accepts, would {runner} become cheaper than {a}.",
                format_usd_rate(now_usd),
            )
        }
        BreakEvenAt::Above(star) | BreakEvenAt::Below(star) => {
            let side = if matches!(at, BreakEvenAt::Above(_)) {
                ("Above", "above")
            } else {
                ("Below", "below")
            };
            match format_usd_rates(*star, now_usd) {
                Some((star, now)) => write!(
                    out,
                    "{} {star} per GPU-hour (now {now}), {runner} becomes cheaper than {a}.",
                    side.0
                ),
                None => write!(
                    out,
                    "At {} per GPU-hour, the current value, {a} and {runner} cost about \
                     the same (the break-even); {} it {runner} becomes cheaper than {a}.",
                    format_usd_rate_exact(*star),
                    side.1
                ),
            }
        }
        BreakEvenAt::Never => {
            write!(out, "No GPU-hour value makes {runner} cheaper than {a}.")
        }
    }
}

crate::json::serialized_as_text!(Recommendation, Reason);

#[cfg(test)]
mod tests {
    use super::*;

    /// The idle line is waits and failures together: a fabric that waits less but fails more
    /// (GB300 on InfiniBand against twin-plane RoCE) must not read as losing it to waits alone.
    #[test]
    fn the_up_front_sentence_names_both_parts_of_the_idle_line() {
        let up_front = |idle: i64, same_idle_hours: bool| {
            Reason::UpFront {
                a: Fabric::Infiniband,
                f: Fabric::Roce,
                years: 5,
                capex_delta_usd: Decimal::from(1_000_000),
                idle_delta_usd: Decimal::from(idle),
                same_idle_hours,
            }
            .to_string()
        };
        let more = up_front(5_900_000, false);
        assert!(
            more.ends_with(
                "and loses $5.9M more GPU time to network waits and failures over 5 years."
            ),
            "{more}"
        );
        assert!(up_front(0, true).contains("and loses the same GPU time over 5 years"));
        assert!(up_front(0, false).contains("with GPU time valued at $0, the same idle cost"));
    }

    /// A break-even that cents would show equal to the current value gets the places that tell
    /// them apart, up to its own, and stays on its side; equal to its own places, the current
    /// value is the break-even (audit 19 F3: "Above $121.01 (now $121.01)"; audit 21 F4: "Above
    /// $121.00770 (now $121.00769)" where the cent totals had already flipped at 121.00767).
    #[test]
    fn a_break_even_is_written_apart_from_the_current_value() {
        let d = |s: &str| s.parse::<Decimal>().expect("decimal");
        let sentence = |star: &str, now: &str, above: bool| {
            let star = d(star);
            Reason::BreakEven {
                a: Fabric::Roce,
                runner_up: Fabric::RoceAdaptive,
                now_usd: d(now),
                at: if above {
                    BreakEvenAt::Above(star)
                } else {
                    BreakEvenAt::Below(star)
                },
            }
            .to_string()
        };
        for (star, now, above, want) in [
            (
                "121.0077",
                "121.0076",
                true,
                "Above $121.0077 per GPU-hour (now $121.0076), ",
            ),
            (
                "148.397",
                "2.5",
                true,
                "Above $148.40 per GPU-hour (now $2.50), ",
            ),
            (
                "1.4883",
                "2.5",
                false,
                "Below $1.49 per GPU-hour (now $2.50), ",
            ),
            (
                "1234.5",
                "1234.4951",
                true,
                "At $1,234.50 per GPU-hour, the current value, ",
            ),
            (
                "121.0077",
                "121.00769",
                true,
                "At $121.0077 per GPU-hour, the current value, ",
            ),
            (
                "148.397",
                "148.397",
                false,
                "At $148.397 per GPU-hour, the current value, ",
            ),
        ] {
            let s = sentence(star, now, above);
            assert!(s.starts_with(want), "{star} vs {now}: {s}");
        }
        assert!(
            sentence("148.397", "148.397", false).ends_with(
                "cost about the same (the break-even); below it adaptive-routing Ethernet becomes \
                 cheaper than RoCE (ECMP)."
            ),
            "{}",
            sentence("148.397", "148.397", false)
        );
    }
}
