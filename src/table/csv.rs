//! CSV for spreadsheets: UTF-8, a header row, CRLF line ends (RFC 4180), `.` decimals, no
//! thousands separators, quoting where needed, and text cells that a spreadsheet would run as a
//! formula (`= + - @`, their full-width forms, tab, CR, LF) prefixed with `'`.

use std::fmt::Write as _;
use std::str::FromStr;

use rust_decimal::Decimal;
use serde_json::Value;

/// The media type of every CSV response.
pub const TEXT_CSV: &str = "text/csv; charset=utf-8";

/// A CSV document being written.
#[derive(Debug, Default)]
pub struct Csv {
    out: String,
}

impl Csv {
    pub fn new(header: &[&str]) -> Csv {
        let mut c = Csv::default();
        for (n, h) in header.iter().enumerate() {
            if n > 0 {
                c.out.push(',');
            }
            write_string_cell(&mut c.out, h);
        }
        c.out.push_str("\r\n");
        c
    }

    /// Appends one row; each JSON value becomes a cell (see [`write_cell`]).
    pub fn row(&mut self, cells: impl IntoIterator<Item = Value>) {
        for (n, v) in cells.into_iter().enumerate() {
            if n > 0 {
                self.out.push(',');
            }
            write_cell(&mut self.out, &v);
        }
        self.out.push_str("\r\n");
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// A JSON value as a CSV cell, written at the end of `out` (a row's cells go straight into the
/// document): numbers and decimal strings as plain numbers, booleans as `true`/`false`, null as
/// empty, other text guarded and quoted.
fn write_cell(out: &mut String, v: &Value) {
    match v {
        Value::Null => {}
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(out, n),
        Value::String(s) => write_string_cell(out, s),
        Value::Array(items) => write_text(
            out,
            &items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join(LIST_SEPARATOR),
        ),
        other => write_text(out, &other.to_string()),
    }
}

/// Between the items of a list in one cell (a row's warnings): `" | "`, which no warning
/// contains (`"; "` was, until 2026-11-26, and several warnings hold a semicolon).
pub const LIST_SEPARATOR: &str = " | ";

/// A string cell: a decimal string as a plain number, other text guarded and quoted.
fn write_string_cell(out: &mut String, s: &str) {
    // Only a digit, a sign or a point can begin a decimal (`may_be_decimal` is tested against
    // the parser): names, SKUs and warnings skip a parse whose error allocates its message.
    let parsed = if may_be_decimal(s) {
        Decimal::from_str(s).ok()
    } else {
        None
    };
    match parsed {
        Some(d) => out.push_str(&crate::json::decimal_text(&d)),
        None => write_text(out, s),
    }
}

/// False when `s` cannot be a decimal `Decimal::from_str` parses.
fn may_be_decimal(s: &str) -> bool {
    s.bytes()
        .next()
        .is_some_and(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.'))
}

/// A JSON number in plain notation (never an exponent).
pub fn number(n: &serde_json::Number) -> String {
    let mut out = String::new();
    write_number(&mut out, n);
    out
}

fn write_number(out: &mut String, n: &serde_json::Number) {
    if let Some(u) = n.as_u64() {
        out.push_str(itoa::Buffer::new().format(u));
    } else if let Some(i) = n.as_i64() {
        out.push_str(itoa::Buffer::new().format(i));
    } else if let Some(f) = n.as_f64() {
        // Writing to a `String` cannot fail.
        let _ = write!(out, "{f}");
    }
}

/// A text cell: formula-injection guard, then RFC 4180 quoting.
fn write_text(out: &mut String, s: &str) {
    // OWASP's list, a line feed (Calc reads the cell's next line as its start), and the
    // full-width forms East Asian spreadsheets take for the same signs.
    let guard = s.starts_with([
        '=', '+', '-', '@', '\t', '\r', '\n', '\u{FF1D}', '\u{FF0B}', '\u{FF0D}', '\u{FF20}',
    ]);
    // The guard's `'` needs no quoting: whether to quote depends on `s` alone.
    let quote = s.contains([',', '"', '\r', '\n']);
    if quote {
        out.push('"');
    }
    if guard {
        out.push('\'');
    }
    if quote {
        for (n, part) in s.split('"').enumerate() {
            if n > 0 {
                out.push_str("\"\"");
            }
            out.push_str(part);
        }
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// The value at a dotted path (`capex.total_usd`) in a JSON value; array segments by index.
pub fn dig<'a>(v: &'a Value, path: &str) -> Option<&'a Value> {
    path.split('.').try_fold(v, |cur, seg| match cur {
        Value::Object(m) => m.get(seg),
        Value::Array(a) => seg.parse::<usize>().ok().and_then(|i| a.get(i)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cell(v: &Value) -> String {
        let mut out = String::new();
        write_cell(&mut out, v);
        out
    }

    #[test]
    fn cells_are_plain_numbers_or_guarded_quoted_text() {
        assert_eq!(cell(&json!("-1234.50")), "-1234.50");
        assert_eq!(cell(&json!(0.0000001)), "0.0000001");
        assert_eq!(
            cell(&json!("=HYPERLINK(\"x\")")),
            "\"'=HYPERLINK(\"\"x\"\")\""
        );
        assert_eq!(cell(&json!("@SUM")), "'@SUM");
        assert_eq!(cell(&json!("a,b")), "\"a,b\"");
        assert_eq!(cell(&json!("nvidia-qm9700")), "nvidia-qm9700");
        assert_eq!(cell(&json!("-a,b")), "\"'-a,b\"");
        assert_eq!(cell(&json!("a\"b\"")), "\"a\"\"b\"\"\"");
        assert_eq!(cell(&json!("\"")), "\"\"\"\"");
        assert_eq!(cell(&json!("\rx")), "\"'\rx\"");
        assert_eq!(cell(&json!("\tx")), "'\tx");
        assert_eq!(cell(&json!("\n=1+1")), "\"'\n=1+1\"");
        assert_eq!(cell(&json!("＝1+1")), "'＝1+1");
        assert_eq!(cell(&json!("＋1")), "'＋1");
        assert_eq!(cell(&json!("－1")), "'－1");
        assert_eq!(cell(&json!("＠SUM")), "'＠SUM");
        assert_eq!(cell(&json!("+1.50")), "1.50");
        assert_eq!(cell(&json!(true)), "true");
        assert_eq!(cell(&json!(-3)), "-3");
        assert_eq!(
            cell(&json!(18446744073709551615u64)),
            "18446744073709551615"
        );
        assert_eq!(cell(&json!(2.5)), "2.5");
        assert_eq!(cell(&json!(["a", 1, null])), "a | 1 | null");
        assert_eq!(cell(&json!({"k": "v"})), "\"{\"\"k\"\":\"\"v\"\"}\"");
        assert_eq!(cell(&Value::Null), "");
    }

    #[test]
    fn only_a_digit_a_sign_or_a_point_begins_a_decimal() {
        let tails = [
            "", "1", "1.5", "0", "_1", "1_000", ".5", "e3", "1e3", " 1", "-1",
        ];
        let mut firsts: Vec<String> = (0u8..128).map(|b| char::from(b).to_string()).collect();
        firsts.extend(["é", "\u{00a0}", "\u{2212}", "\u{ff11}"].map(String::from));
        let mut parsed = 0;
        for first in &firsts {
            for tail in tails {
                let s = format!("{first}{tail}");
                if Decimal::from_str(&s).is_ok() {
                    parsed += 1;
                    assert!(may_be_decimal(&s), "{s:?} parses but is skipped");
                }
            }
        }
        assert!(parsed > 20, "the check saw decimals parse ({parsed})");
        assert!(!may_be_decimal("") && !may_be_decimal("infiniband"));
    }

    #[test]
    fn rows_end_with_crlf() {
        let mut c = Csv::new(&["a", "b"]);
        c.row([json!(1), json!("x")]);
        assert_eq!(c.finish(), "a,b\r\n1,x\r\n");
    }
}
