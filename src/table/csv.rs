//! CSV for spreadsheets: UTF-8, a header row, CRLF line ends (RFC 4180), `.` decimals, no
//! thousands separators, quoting where needed, and text cells that a spreadsheet would run as a
//! formula (`= + - @`, tab, CR) prefixed with `'`.

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
        c.row(header.iter().map(|h| Value::String((*h).to_string())));
        c
    }

    /// Appends one row; each JSON value becomes a cell (see [`cell`]).
    pub fn row(&mut self, cells: impl IntoIterator<Item = Value>) {
        let mut first = true;
        for v in cells {
            if !first {
                self.out.push(',');
            }
            first = false;
            self.out.push_str(&cell(&v));
        }
        self.out.push_str("\r\n");
    }

    pub fn finish(self) -> String {
        self.out
    }
}

/// A JSON value as a CSV cell: numbers and decimal strings as plain numbers, booleans as
/// `true`/`false`, null as empty, other text guarded and quoted.
pub fn cell(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number(n),
        Value::String(s) => match Decimal::from_str(s) {
            Ok(d) => crate::json::decimal_string(&d),
            Err(_) => text(s),
        },
        Value::Array(items) => text(
            &items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                .collect::<Vec<_>>()
                .join("; "),
        ),
        other => text(&other.to_string()),
    }
}

/// A JSON number in plain notation (never an exponent).
pub fn number(n: &serde_json::Number) -> String {
    if let Some(u) = n.as_u64() {
        u.to_string()
    } else if let Some(i) = n.as_i64() {
        i.to_string()
    } else {
        n.as_f64().map(|f| format!("{f}")).unwrap_or_default()
    }
}

/// A text cell: formula-injection guard, then RFC 4180 quoting.
pub fn text(s: &str) -> String {
    let guarded = if s.starts_with(['=', '+', '-', '@', '\t', '\r']) {
        format!("'{s}")
    } else {
        s.to_string()
    };
    if guarded.contains([',', '"', '\r', '\n']) {
        format!("\"{}\"", guarded.replace('"', "\"\""))
    } else {
        guarded
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
        assert_eq!(cell(&Value::Null), "");
    }

    #[test]
    fn rows_end_with_crlf() {
        let mut c = Csv::new(&["a", "b"]);
        c.row([json!(1), json!("x")]);
        assert_eq!(c.finish(), "a,b\r\n1,x\r\n");
    }
}
