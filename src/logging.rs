//! Log output: human-readable text (default) or one JSON object per line
//! (`FABRIC_TCO_LOG_FORMAT=json`), both carrying the record's key-value fields. Access-log
//! records hold `method`, `path` (never the query string), `status`, `latency_ms` and, when a
//! plan was computed, `plan_id`. Nothing that could hold a secret is logged: catalog URLs are
//! logged without user-info and query (see `catalog::source_url::redact_url`).

use std::io::Write;

use log::kv::{Key, Value, VisitSource};

use crate::clock::rfc3339;
use crate::config::LogFormat;

/// The level a record is shown at: actix-http's HTTP/1 dispatcher logs every request head a
/// client sends malformed as ERROR ("stream error: request parse error"), which lets any client
/// fill the operator's error log; a client's fault is shown as WARN (the client gets its 400
/// problem either way).
fn shown_level(r: &log::Record<'_>) -> log::Level {
    if r.level() == log::Level::Error && r.target().starts_with("actix_http::h1::dispatcher") {
        log::Level::Warn
    } else {
        r.level()
    }
}

/// Installs the global logger (`RUST_LOG` filters, default `info`). Call once.
pub fn init(format: LogFormat) {
    let mut b = env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("info"));
    match format {
        LogFormat::Text => b.format(|buf, r| {
            let mut fields = TextFields(String::new());
            let _ = r.key_values().visit(&mut fields);
            writeln!(
                buf,
                "{} {:<5} {} {}{}",
                rfc3339(std::time::SystemTime::now()),
                shown_level(r),
                r.target(),
                r.args(),
                fields.0
            )
        }),
        LogFormat::Json => b.format(|buf, r| {
            let mut obj = serde_json::Map::new();
            obj.insert("ts".into(), rfc3339(std::time::SystemTime::now()).into());
            obj.insert("level".into(), shown_level(r).as_str().into());
            obj.insert("target".into(), r.target().into());
            obj.insert("msg".into(), r.args().to_string().into());
            let mut fields = JsonFields(&mut obj);
            let _ = r.key_values().visit(&mut fields);
            writeln!(buf, "{}", serde_json::Value::Object(obj))
        }),
    };
    b.init();
}

struct TextFields(String);

impl<'kvs> VisitSource<'kvs> for TextFields {
    fn visit_pair(&mut self, key: Key<'kvs>, value: Value<'kvs>) -> Result<(), log::kv::Error> {
        self.0.push_str(&format!(" {key}={value}"));
        Ok(())
    }
}

struct JsonFields<'a>(&'a mut serde_json::Map<String, serde_json::Value>);

impl<'kvs> VisitSource<'kvs> for JsonFields<'_> {
    fn visit_pair(&mut self, key: Key<'kvs>, value: Value<'kvs>) -> Result<(), log::kv::Error> {
        let v = if let Some(n) = value.to_u64() {
            serde_json::Value::from(n)
        } else if let Some(f) = value.to_f64() {
            serde_json::Number::from_f64(f)
                .map(serde_json::Value::Number)
                .unwrap_or(serde_json::Value::Null)
        } else {
            serde_json::Value::String(value.to_string())
        };
        self.0.insert(key.to_string(), v);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_clients_malformed_head_is_a_warning_not_an_error() {
        let shown = |target: &str| {
            shown_level(
                &log::Record::builder()
                    .level(log::Level::Error)
                    .target(target)
                    .args(format_args!("stream error: request parse error"))
                    .build(),
            )
        };
        assert_eq!(shown("actix_http::h1::dispatcher"), log::Level::Warn);
        assert_eq!(shown("fabric_tco::api"), log::Level::Error);
    }
}
