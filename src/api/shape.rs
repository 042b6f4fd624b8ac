//! The JSON shape a request type's schema promises, checked before typing: serde's derive
//! accepts a JSON array where a struct is expected (`"topology": []` would silently mean "all
//! defaults"); a request whose objects are not objects is a 422 naming the field instead.
//! Read from the type's own OpenAPI schema, so it cannot drift from the type.

use std::collections::BTreeMap;

use serde_json::Value;

use super::error::{ApiError, ErrorCode};
use super::extract::escape_pointer;

/// A request type's schema and its components, as JSON.
#[derive(Debug, Clone)]
pub struct Shape {
    root: Value,
    comps: BTreeMap<String, Value>,
}

impl Shape {
    /// The shape of `T` from its `ToSchema` implementation.
    pub fn of<T: utoipa::ToSchema>() -> Shape {
        let mut comps = Vec::new();
        T::schemas(&mut comps);
        let mut comps: BTreeMap<String, Value> = comps
            .into_iter()
            .filter_map(|(n, s)| serde_json::to_value(s).ok().map(|v| (n, v)))
            .collect();
        let root = serde_json::to_value(T::schema()).unwrap_or(Value::Null);
        comps.insert(T::name().into_owned(), root.clone());
        Shape { root, comps }
    }

    /// The components (for walking the schema elsewhere).
    pub fn components(&self) -> &BTreeMap<String, Value> {
        &self.comps
    }

    /// The root schema.
    pub fn root(&self) -> &Value {
        &self.root
    }

    /// Every place where the schema expects an object must hold an object (or null).
    pub fn check(&self, value: &Value) -> Result<(), ApiError> {
        self.walk(&self.root, value, &mut String::new())
    }

    fn walk(&self, schema: &Value, value: &Value, pointer: &mut String) -> Result<(), ApiError> {
        let s = resolve(&self.comps, schema, &mut Vec::new());
        let wants_object = s.get("properties").is_some() || s.get("additionalProperties").is_some();
        match value {
            Value::Null => Ok(()),
            Value::Object(m) if wants_object => {
                for (k, v) in m {
                    let sub = s
                        .get("properties")
                        .and_then(|p| p.get(k))
                        .or_else(|| s.get("additionalProperties").filter(|a| a.is_object()));
                    if let Some(sub) = sub {
                        let len = pointer.len();
                        pointer.push('/');
                        pointer.push_str(&escape_pointer(k));
                        self.walk(sub, v, pointer)?;
                        pointer.truncate(len);
                    }
                }
                Ok(())
            }
            _ if wants_object => Err(ApiError::field(
                if pointer.is_empty() { "/" } else { pointer },
                ErrorCode::InvalidType,
                format!("expected an object, got {}", kind(value)),
            )),
            Value::Array(items) => match s.get("items") {
                Some(sub) => {
                    for (i, v) in items.iter().enumerate() {
                        let len = pointer.len();
                        pointer.push('/');
                        pointer.push_str(&i.to_string());
                        self.walk(sub, v, pointer)?;
                        pointer.truncate(len);
                    }
                    Ok(())
                }
                None => Ok(()),
            },
            _ => Ok(()),
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "true or false",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

/// Follows `$ref`s and `oneOf [T, null]` to the schema that carries the type, collecting the
/// descriptions met on the way (the outermost, i.e. the field's doc, first).
pub fn resolve<'a>(
    comps: &'a BTreeMap<String, Value>,
    mut s: &'a Value,
    docs: &mut Vec<String>,
) -> &'a Value {
    for _ in 0..16 {
        if let Some(d) = s.get("description").and_then(Value::as_str) {
            docs.push(d.to_string());
        }
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            match comps.get(r.rsplit('/').next().unwrap_or("")) {
                Some(next) => s = next,
                None => return s,
            }
            continue;
        }
        let variants = ["oneOf", "anyOf", "allOf"]
            .iter()
            .find_map(|k| s.get(*k).and_then(Value::as_array));
        match variants.and_then(|v| {
            v.iter()
                .find(|x| x.get("type") != Some(&Value::from("null")))
        }) {
            Some(next) => s = next,
            None => return s,
        }
    }
    s
}

/// A request type whose JSON shape is checked before typing (built once per type).
pub trait Shaped {
    fn shape() -> &'static Shape;
}

impl Shaped for crate::plan::PlanRequest {
    fn shape() -> &'static Shape {
        static S: std::sync::OnceLock<Shape> = std::sync::OnceLock::new();
        S.get_or_init(Shape::of::<crate::plan::PlanRequest>)
    }
}
