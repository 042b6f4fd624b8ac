//! Sentences a buyer can read: money with thousands separators and a unit, values in the
//! input's unit, each sentence starting with a capital.

use rust_decimal::Decimal;

use crate::cost::money::group_digits as group;

use super::{FabricUncertainty, Target, TornadoEntry};
use crate::fabric::Fabric;

/// A plain number with at most 4 significant digits (whole numbers exact), grouped.
pub fn number(v: f64) -> String {
    if !v.is_finite() {
        return v.to_string();
    }
    let d = crate::plan::bounded::decimal_from_f64(v).unwrap_or_default();
    let digits = if v.abs() >= 1000.0 { 0 } else { sig_dp(v, 4) };
    group(&d.round_dp(digits).normalize().to_string())
}

/// Decimal places that keep `sig` significant digits of `v`.
fn sig_dp(v: f64, sig: i32) -> u32 {
    if v == 0.0 {
        return 0;
    }
    let mag = v.abs().log10().floor() as i32;
    (sig - 1 - mag).clamp(0, 12) as u32
}

/// Money: `$41,250` from $1,000 up, `$2.57` below; a minus sign before the dollar.
pub fn money(d: Decimal) -> String {
    let sign = if d < Decimal::ZERO { "-" } else { "" };
    let a = d.abs();
    let t = if a.is_zero() {
        "0".to_string()
    } else if a >= Decimal::from(1000) {
        a.round_dp(0).to_string()
    } else {
        let mut r = a.round_dp(2);
        r.rescale(2);
        r.to_string()
    };
    format!("{sign}${}", group(&t))
}

/// A value of a target in its unit: `$2.57 per GPU-hour`, `$41,250`, `45 minutes`.
pub fn value(t: &Target, v: f64) -> String {
    if t.unit.starts_with("fraction") {
        let d = crate::plan::bounded::decimal_from_f64(v * 100.0).unwrap_or_default();
        return format!("{}%", group(&d.round_dp(2).normalize().to_string()));
    }
    match t.unit.strip_prefix("USD") {
        Some(rest) => {
            let d = crate::plan::bounded::decimal_from_f64(v).unwrap_or_default();
            format!("{}{rest}", money(d))
        }
        None if t.unit.is_empty() => number(v),
        None => format!("{} {}", number(v), t.unit),
    }
}

/// The first letter in upper case.
pub fn capital(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

fn name(f: Fabric) -> &'static str {
    f.display_name()
}

/// What would make the runner-up cheaper than the leader, for one input.
pub fn flip_reason(
    t: &Target,
    leader: Fabric,
    others: &[Fabric],
    below: Option<(f64, Fabric)>,
    above: Option<(f64, Fabric)>,
    searched: (f64, f64),
) -> String {
    let who = |f: Fabric| format!("{} becomes cheaper than {}", name(f), name(leader));
    let s = match (below, above) {
        (Some((b, fb)), Some((a, fa))) if fb == fa => format!(
            "{} if {} is below {} or above {}.",
            who(fb),
            t.label,
            value(t, b),
            value(t, a)
        ),
        (Some((b, fb)), Some((a, fa))) => format!(
            "{} if {} is below {}, and {} if it is above {}.",
            who(fb),
            t.label,
            value(t, b),
            who(fa),
            value(t, a)
        ),
        (Some((b, f)), None) => format!("{} if {} is below {}.", who(f), t.label, value(t, b)),
        (None, Some((a, f))) => format!("{} if {} is above {}.", who(f), t.label, value(t, a)),
        (None, None) => {
            let names: Vec<&str> = others.iter().map(|f| name(*f)).collect();
            format!(
                "no value of {} from {} to {} makes {} cheaper than {}.",
                t.label,
                value(t, searched.0),
                value(t, searched.1),
                names.join(" or "),
                name(leader)
            )
        }
    };
    capital(&s)
}

fn percent(count: u32, n: u32) -> String {
    let p = Decimal::from(count) * Decimal::ONE_HUNDRED / Decimal::from(n.max(1));
    let mut p = p.round_dp(1);
    p.rescale(1);
    format!("{p}%")
}

/// The analysis in sentences: how often each fabric wins, the regret of each choice, and what
/// would flip the ranking for the inputs that drive it most (`drivers`: the tornado's entries,
/// largest swing first).
pub fn reasons(
    fabrics: &[FabricUncertainty],
    drivers: &[TornadoEntry],
    samples: u32,
) -> Vec<String> {
    let mut out = Vec::new();
    let mut by_wins: Vec<&FabricUncertainty> = fabrics.iter().collect();
    by_wins.sort_by_key(|f| std::cmp::Reverse(f.cheapest_samples));
    if let Some(first) = by_wins.first() {
        let others: Vec<String> = by_wins[1..]
            .iter()
            .map(|f| {
                format!(
                    "{} in {}",
                    name(f.fabric),
                    percent(f.cheapest_samples, samples)
                )
            })
            .collect();
        let mut s = format!(
            "{} is the cheapest fabric in {} of {} samples",
            name(first.fabric),
            percent(first.cheapest_samples, samples),
            group(&samples.to_string())
        );
        if !others.is_empty() {
            s.push_str(&format!("; {}", others.join(", ")));
        }
        s.push('.');
        out.push(capital(&s));
        let regrets: Vec<String> = fabrics
            .iter()
            .map(|f| format!("{} {}", name(f.fabric), money(f.expected_regret_usd)))
            .collect();
        if fabrics.len() > 1 {
            out.push(capital(&format!(
                "expected regret of each choice (its total minus the cheapest total, averaged over the samples): {}.",
                regrets.join(", ")
            )));
        }
    }
    for e in drivers.iter().take(3) {
        out.push(e.reason.clone());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_like_a_buyer_writes_them() {
        assert_eq!(money(Decimal::new(1409276, 2)), "$14,093");
        assert_eq!(money(Decimal::new(257, 2)), "$2.57");
        assert_eq!(money(Decimal::new(-2_800_000, 0)), "-$2,800,000");
        assert_eq!(money(Decimal::from(1000)), "$1,000");
        assert_eq!(number(0.002891), "0.002891");
        assert_eq!(number(1234567.0), "1,234,567");
        assert_eq!(number(0.35), "0.35");
        assert_eq!(number(1.23456), "1.235");
        assert_eq!(
            capital("adaptive-routing Ethernet wins"),
            "Adaptive-routing Ethernet wins"
        );
    }
}
