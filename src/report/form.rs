//! The report page's form: its fields, declared once in [`FORM`] and filled from the query, the
//! query inputs it has no field for, and the plan's query string.

use serde_json::Value;

/// GPUs in the page's default plan (when the query does not say).
pub const DEFAULT_GPUS: u32 = 1024;

/// Parameters that belong to a representation, not to the plan (dropped from chart links).
const NOT_PLAN: &[&str] = &["format", "width"];

/// One option of a select or a checkbox group.
#[derive(Debug, Clone)]
pub struct Opt {
    pub value: String,
    pub label: String,
    pub selected: bool,
}

/// One form input. `input` is `number`, `select` or `checkboxes`.
#[derive(Debug, Clone)]
pub struct Field {
    pub name: &'static str,
    pub id: String,
    pub label: &'static str,
    pub input: &'static str,
    pub min: String,
    pub max: String,
    pub step: &'static str,
    /// As typed in the query (empty = the default applies).
    pub value: String,
    /// The value the plan used, shown when the field is empty.
    pub placeholder: String,
    pub options: Vec<Opt>,
    pub help: &'static str,
}

/// How a form field is declared: adding an input to the form is one entry in [`FORM`].
#[derive(Debug, Clone, Copy)]
pub enum FieldSpec {
    /// A number input; bounds come from the plan's query-parameter table.
    Number(&'static str, &'static str, &'static str, &'static str),
    /// A select over a fixed list of (value, label); empty value = "default".
    Select(
        &'static str,
        &'static str,
        &'static [(&'static str, &'static str)],
        &'static str,
    ),
    /// The GPU model select (options from the catalog).
    GpuModel(&'static str, &'static str),
    /// The fabrics checkboxes.
    Fabrics(&'static str, &'static str),
}

/// The form's inputs, in order: (name, label, step, help).
pub const FORM: &[FieldSpec] = &[
    FieldSpec::Number("gpus", "GPUs", "1", "Cluster size, GPUs (default 1,024)."),
    FieldSpec::GpuModel("gpu_model", "GPU model"),
    FieldSpec::Fabrics("fabrics", "Fabrics to compare"),
    FieldSpec::Number("economics.years", "Years", "1", "Horizon of the TCO."),
    FieldSpec::Number(
        "economics.gpu_hour_usd",
        "GPU-hour value (USD per GPU-hour)",
        "any",
        "What an hour of one GPU is worth; blank = the catalog's owned cost.",
    ),
    FieldSpec::Number(
        "utilization.busy_fraction",
        "Utilization (0–1)",
        "any",
        "Share of hours the cluster runs jobs.",
    ),
    FieldSpec::Number(
        "topology.nodes_per_rack",
        "Servers per rack",
        "1",
        "Blank = not known. When given, a leaf in each rack with copper to its servers (tor_copper) is priced too, and built when cheapest with topology.rail_optimized=false in the address (docs/sizing.md, Designs).",
    ),
    FieldSpec::Select(
        "uncertainty.samples",
        "How sure: uncertainty analysis",
        &[
            ("", "Off"),
            ("1000", "1,000 samples"),
            ("10000", "10,000 samples"),
        ],
        "Monte Carlo over the catalog's price ranges: how often each fabric is cheapest, and what would flip the answer (docs/uncertainty.md).",
    ),
    FieldSpec::Select(
        "workload.preset",
        "Training job",
        &[
            (
                "",
                "Default: 70B dense, TP 8 × PP 4 (less on a small cluster), DDP",
            ),
            ("dense-llama3-405b", "Dense 405B (Llama 3), 3D parallel"),
            ("fsdp-llama2-70b", "70B with FSDP / ZeRO-3"),
            ("moe-deepseek-v3", "Mixture of experts (DeepSeek-V3), EP 64"),
        ],
        "The job whose traffic the network carries (docs/model.md, presets).",
    ),
];

fn bounds(name: &str) -> (String, String) {
    // The bounds of the input's one declaration (its schema), as the form's min/max.
    match crate::plan::registry::plan_params()
        .iter()
        .find(|s| s.name == name)
        .and_then(|s| s.numeric.as_ref())
    {
        Some(n) if n.one_of.is_none() => (n.min.to_string(), n.max.to_string()),
        _ => (String::new(), String::new()),
    }
}

/// The raw value of a query parameter (last non-empty one).
pub(super) fn raw<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .rev()
        .find(|(k, v)| k == name && !v.trim().is_empty())
        .map(|(_, v)| v.trim())
}

/// The value at a dotted path of a JSON tree, as text.
pub(super) fn at(tree: Option<&Value>, path: &str) -> Option<String> {
    let mut cur = tree?;
    for seg in path.split('.') {
        cur = cur.get(seg)?;
    }
    match cur {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// The form, filled from the query as typed; an empty field shows the value the plan used
/// (its default) as a placeholder, so submitting it keeps the default (which may depend on
/// another input, as the GPU-hour value depends on the GPU model).
pub fn form(pairs: &[(String, String)], inputs: Option<&Value>, gpus: &[String]) -> Vec<Field> {
    FORM.iter()
        .map(|spec| {
            let mk = |name: &'static str, label, input, step, help| {
                let (min, max) = bounds(name);
                Field {
                    name,
                    id: format!("f-{}", name.replace('.', "-")),
                    label,
                    input,
                    min,
                    max,
                    step,
                    value: raw(pairs, name).map(str::to_string).unwrap_or_default(),
                    placeholder: at(inputs, name).unwrap_or_default(),
                    options: Vec::new(),
                    help,
                }
            };
            match *spec {
                FieldSpec::Number(name, label, step, help) => mk(name, label, "number", step, help),
                FieldSpec::Select(name, label, opts, help) => {
                    let mut f = mk(name, label, "select", "", help);
                    f.options = opts
                        .iter()
                        .map(|(v, l)| Opt {
                            value: v.to_string(),
                            label: l.to_string(),
                            selected: *v == f.value,
                        })
                        .collect();
                    // A value from the address that is not a listed option (`samples=500`)
                    // is offered and selected, not shown as the default and dropped.
                    if !f.value.is_empty() && !opts.iter().any(|(v, _)| *v == f.value) {
                        f.options.push(Opt {
                            value: f.value.clone(),
                            label: f.value.clone(),
                            selected: true,
                        });
                    }
                    f
                }
                FieldSpec::GpuModel(name, label) => {
                    let mut f = mk(name, label, "select", "", "");
                    f.options = gpus
                        .iter()
                        .map(|g| Opt {
                            value: g.clone(),
                            label: g.to_uppercase(),
                            selected: *g == f.value || (f.value.is_empty() && *g == f.placeholder),
                        })
                        .collect();
                    f
                }
                FieldSpec::Fabrics(name, label) => {
                    let mut f = mk(name, label, "checkboxes", "", "");
                    let asked: Vec<String> = pairs
                        .iter()
                        .filter(|(k, _)| k == name)
                        .flat_map(|(_, v)| v.split(',').map(|s| s.trim().to_string()))
                        .filter(|s| !s.is_empty())
                        .collect();
                    let resolved: Vec<String> = inputs
                        .and_then(|t| t.get("fabrics"))
                        .and_then(Value::as_array)
                        .map(|a| {
                            a.iter()
                                .filter_map(Value::as_str)
                                .map(str::to_string)
                                .collect()
                        })
                        .unwrap_or_default();
                    f.options = crate::fabric::Fabric::ALL
                        .iter()
                        .map(|fab| {
                            let v = fab.as_str().to_string();
                            let on = if asked.is_empty() {
                                resolved.is_empty() || resolved.contains(&v)
                            } else {
                                asked.contains(&v)
                            };
                            Opt {
                                label: fab.display_name().to_string(),
                                value: v,
                                selected: on,
                            }
                        })
                        .collect();
                    f
                }
            }
        })
        .collect()
}

/// The query's plan inputs the form has no field for (`prices.overrides.nvidia-sn5600`,
/// `topology.in_network_reduction`), in their order; not the cache-busters (`_…`) or blanks.
pub fn kept(pairs: &[(String, String)]) -> Vec<(String, String)> {
    let in_form = |k: &str| {
        FORM.iter().any(|spec| match *spec {
            FieldSpec::Number(n, ..)
            | FieldSpec::Select(n, ..)
            | FieldSpec::GpuModel(n, _)
            | FieldSpec::Fabrics(n, _) => n == k,
        })
    };
    pairs
        .iter()
        .filter(|(k, v)| !k.starts_with('_') && !v.trim().is_empty() && !in_form(k))
        .cloned()
        .collect()
}

/// Percent-encodes a query component (RFC 3986 unreserved characters kept).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The plan's query string: the non-empty plan parameters as given (representation
/// parameters dropped), `gpus` added when absent.
pub fn plan_query(pairs: &[(String, String)]) -> String {
    let mut parts: Vec<String> = pairs
        .iter()
        .filter(|(k, v)| !v.trim().is_empty() && !NOT_PLAN.contains(&k.as_str()))
        .map(|(k, v)| format!("{}={}", encode(k), encode(v.trim())))
        .collect();
    if raw(pairs, "gpus").is_none() {
        parts.insert(0, format!("gpus={DEFAULT_GPUS}"));
    }
    parts.join("&")
}

/// The plan inputs the address gives (every other input is at its default), as given: the
/// printed page (whose form is not printed) says which inputs made it.
pub fn given_inputs(pairs: &[(String, String)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .filter(|(k, v)| {
            !k.starts_with('_') && !v.trim().is_empty() && !NOT_PLAN.contains(&k.as_str())
        })
        .map(|(k, v)| (k.clone(), v.trim().to_string()))
        .collect()
}
