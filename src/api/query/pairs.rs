//! Plan request → query pairs: the inverse of [`super::de`], so a request that arrived as JSON
//! (a saved scenario's) can be shown on the report page, whose form and links are query pairs.
//!
//! Objects nest as dotted names (`economics.years=5`), map keys are appended whole (a SKU id
//! may hold dots; the query reads the rest of the name as the key), lists of words are
//! comma-separated, and an uncertainty range is its text form (`low,high` or `low,mode,high`).
//! Reading the pairs back with [`super::Query::plan_request`] gives the same request (tested).

use serde_json::Value;

use crate::plan::PlanRequest;

/// The query pairs that read back as `request`, or why there are none (a value the query form
/// cannot carry).
pub fn pairs_of(request: &PlanRequest) -> Result<Vec<(String, String)>, String> {
    let value = serde_json::to_value(request).map_err(|e| e.to_string())?;
    pairs_of_value(&value)
}

/// The query pairs of a plan request given as JSON (a POST sweep's `base`), or why there are
/// none.
pub fn pairs_of_value(value: &Value) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    flatten("", value, &mut out)?;
    Ok(out)
}

fn flatten(name: &str, value: &Value, out: &mut Vec<(String, String)>) -> Result<(), String> {
    match value {
        Value::Null => Ok(()),
        Value::Bool(b) => {
            out.push((name.to_string(), b.to_string()));
            Ok(())
        }
        Value::Number(n) => {
            out.push((name.to_string(), n.to_string()));
            Ok(())
        }
        Value::String(s) => {
            out.push((name.to_string(), s.clone()));
            Ok(())
        }
        Value::Array(items) => {
            let words = items
                .iter()
                .map(|v| match v {
                    Value::String(s) if !s.contains(',') => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    _ => Err(format!("'{name}' holds a list the query form cannot carry")),
                })
                .collect::<Result<Vec<_>, _>>()?;
            if !words.is_empty() {
                out.push((name.to_string(), words.join(",")));
            }
            Ok(())
        }
        Value::Object(fields) if name.starts_with("uncertainty.inputs.") => {
            out.push((name.to_string(), range_text(name, fields)?));
            Ok(())
        }
        Value::Object(fields) => {
            for (k, v) in fields {
                let inner = if name.is_empty() {
                    k.clone()
                } else {
                    format!("{name}.{k}")
                };
                flatten(&inner, v, out)?;
            }
            Ok(())
        }
    }
}

/// An uncertainty range as the query writes it: `low,high` (uniform) or `low,mode,high`
/// (triangular).
fn range_text(name: &str, fields: &serde_json::Map<String, Value>) -> Result<String, String> {
    let text = |k: &str| match fields.get(k) {
        Some(Value::String(s)) => Some(s.clone()),
        Some(Value::Number(n)) => Some(n.to_string()),
        _ => None,
    };
    let distribution = fields.get("distribution").and_then(Value::as_str);
    match (distribution, text("low"), text("mode"), text("high")) {
        (Some("uniform") | None, Some(low), None, Some(high)) => Ok(format!("{low},{high}")),
        (Some("triangular") | None, Some(low), Some(mode), Some(high)) => {
            Ok(format!("{low},{mode},{high}"))
        }
        _ => Err(format!("the range '{name}' has no query form")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::query::Query;

    fn round_trip(json: serde_json::Value) {
        let request: PlanRequest = serde_json::from_value(json.clone()).unwrap();
        let pairs = pairs_of(&request).unwrap();
        let back = Query {
            pairs: pairs.clone(),
        }
        .plan_request(&[]);
        let back = back.unwrap_or_else(|e| panic!("{json} as {pairs:?}: {:?}", e.problem()));
        assert_eq!(back, request, "{json} as {pairs:?}");
    }

    #[test]
    fn requests_read_back_from_their_pairs() {
        round_trip(serde_json::json!({"gpus": 1024}));
        round_trip(serde_json::json!({
            "gpus": 2048,
            "catalog": "default@0123456789abcdef",
            "fabrics": ["infiniband", "roce"],
            "gpu_model": "b200",
            "economics": {"years": 4, "pue": 1.3, "gpu_hour_usd": "2.5"},
            "prices": {"overrides": {"nvidia-qm9700": "42000.50"}, "discounts": {"vendor": {"NVIDIA": "0.15"}}},
            "workload": {"message_bytes": 8589934592u64, "train_tokens": 1.5e13},
            "uncertainty": {"samples": 200, "seed": 7, "inputs": {
                "economics.gpu_hour_usd": {"low": "1.5", "mode": "2.5", "high": "4"},
                "prices.list.nvidia-sn5600": "30000,45000"
            }}
        }));
    }

    #[test]
    fn a_range_without_a_query_form_is_said_not_guessed() {
        let mut fields = serde_json::Map::new();
        fields.insert("distribution".into(), "uniform".into());
        fields.insert("low".into(), "1".into());
        fields.insert("mode".into(), "2".into());
        fields.insert("high".into(), "3".into());
        assert!(range_text("uncertainty.inputs.x", &fields).is_err());
    }
}
