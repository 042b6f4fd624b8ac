//! The JSON shape a request type's schema promises, checked before typing: serde's derive
//! accepts a JSON array where a struct is expected (`"topology": []` would silently mean "all
//! defaults"); a request whose objects are not objects is a 422 naming the field instead.
//! Read from the type's own OpenAPI schema, so it cannot drift from the type.

use std::collections::BTreeMap;

use serde_json::Value;

use super::error::{ApiError, ErrorCode, FieldError};
use crate::error_code::{escape_pointer, push_escaped};

/// A request type's schema and its components, as JSON.
#[derive(Debug, Clone)]
pub struct Shape {
    root: Value,
    comps: BTreeMap<String, Value>,
}

impl Shape {
    /// The shape of `T` from its `ToSchema` implementation.
    pub fn of<T: utoipa::ToSchema>() -> Shape {
        let (root, comps) = crate::plan::registry::schema_of::<T>();
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

    /// Checks the value's structure against the schema, before typing: where an object is
    /// expected there is an object (or null), it has its required fields and no field the
    /// schema does not list (`additionalProperties: false`). Every violation is named by its
    /// JSON pointer — read from the schema, not from a parser's message.
    pub fn check(&self, value: &Value) -> Result<(), ApiError> {
        let mut errors = Vec::new();
        self.walk(&self.root, value, &mut String::new(), &mut errors);
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ApiError::validation(errors))
        }
    }

    fn walk(&self, schema: &Value, value: &Value, pointer: &mut String, out: &mut Vec<FieldError>) {
        let s = resolve_with(&self.comps, schema, |_| {});
        let props = s.get("properties").and_then(Value::as_object);
        let extra = s.get("additionalProperties");
        let wants_object = props.is_some() || extra.is_some_and(Value::is_object);
        // A choice of names is a string: serde's derive would also take its map form
        // (`{"infiniband": null}`) and say "expected string or map" of anything else.
        if let Some(names) = string_choices(s) {
            if !matches!(value, Value::String(_) | Value::Null) {
                push(
                    out,
                    pointer,
                    ErrorCode::InvalidType,
                    format!("expected one of {}, got {}", quoted(names), kind(value)),
                );
            }
            return;
        }
        match value {
            Value::Null => {}
            Value::Object(m) if wants_object => {
                for (k, v) in m {
                    let len = pointer.len();
                    pointer.push('/');
                    push_escaped(pointer, k);
                    match props
                        .and_then(|p| p.get(k))
                        .or(extra.filter(|a| a.is_object()))
                    {
                        Some(sub) => self.walk(sub, v, pointer, out),
                        None if extra == Some(&Value::Bool(false)) => {
                            let allowed: Vec<&str> = props
                                .map(|p| p.keys().map(String::as_str).collect())
                                .unwrap_or_default();
                            push(
                                out,
                                pointer,
                                ErrorCode::UnknownField,
                                format!("unknown field (allowed here: {})", allowed.join(", ")),
                            );
                        }
                        None => {}
                    }
                    pointer.truncate(len);
                }
                let required = s.get("required").and_then(Value::as_array);
                for name in required.into_iter().flatten().filter_map(Value::as_str) {
                    if m.get(name).is_none_or(Value::is_null) {
                        push(
                            out,
                            &format!("{pointer}/{}", escape_pointer(name)),
                            ErrorCode::Required,
                            "required".into(),
                        );
                    }
                }
            }
            _ if wants_object => push(
                out,
                pointer,
                ErrorCode::InvalidType,
                format!("expected an object, got {}", kind(value)),
            ),
            Value::Array(items) => {
                if let Some(sub) = s.get("items") {
                    let names = string_choices(resolve_with(&self.comps, sub, |_| {}));
                    for (i, v) in items.iter().enumerate() {
                        let len = pointer.len();
                        pointer.push('/');
                        pointer.push_str(itoa::Buffer::new().format(i));
                        match &names {
                            // A list of names holds names, not nulls.
                            Some(names) if v.is_null() => push(
                                out,
                                pointer,
                                ErrorCode::InvalidType,
                                format!("expected one of {}, got null", quoted(names)),
                            ),
                            _ => self.walk(sub, v, pointer, out),
                        }
                        pointer.truncate(len);
                    }
                }
            }
            _ => {}
        }
    }
}

/// A schema's `enum` of strings; `None` for any other schema (an enum of numbers takes
/// numbers). Only looked at, not copied: a valid request's check allocates nothing for it.
fn string_choices(schema: &Value) -> Option<&[Value]> {
    let names = schema.get("enum")?.as_array()?;
    (!names.is_empty() && names.iter().all(Value::is_string)).then_some(names.as_slice())
}

/// The names quoted and joined, for an error ("'ddp', 'fsdp'").
fn quoted(names: &[Value]) -> String {
    let quoted: Vec<String> = names
        .iter()
        .filter_map(Value::as_str)
        .map(|n| format!("'{n}'"))
        .collect();
    quoted.join(", ")
}

fn push(out: &mut Vec<FieldError>, pointer: &str, code: ErrorCode, detail: String) {
    out.push(FieldError {
        pointer: if pointer.is_empty() {
            "/".into()
        } else {
            pointer.to_string()
        },
        code,
        detail,
    })
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

pub use crate::plan::registry::{resolve, resolve_with};

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
