//! A sweep's axes as the client gave them: each names a numeric plan input (the inputs and
//! their domains are derived from the request schema), a second one makes a grid, and NVL72
//! GPU counts step in whole racks.

use super::{Base, SweepRequest};
use crate::api::error::ApiError;
use crate::api::query::{Numeric, ParamSpec, pointer_of};
use crate::catalog::CatalogSet;
use crate::error_code::ErrorCode;
use crate::plan;
use crate::plan::sweep::{self, Axis, AxisInput, Domain, Spec, SweepError};

/// A numeric plan input, by name, from the parameters derived from the request schema.
fn numeric_spec(name: &str) -> Option<&'static ParamSpec> {
    crate::plan::registry::axis_inputs().find(|s| s.name == name)
}

/// The names of the numeric plan inputs (the valid sweep axes).
pub(super) fn numeric_names() -> Vec<&'static str> {
    crate::plan::registry::axis_inputs()
        .map(|s| s.name.as_str())
        .collect()
}

/// The domain of a numeric plan input, from its schema.
fn domain(n: &Numeric) -> Domain {
    Domain {
        integer: n.integer,
        contiguous: n.one_of.is_none(),
        min: n.min,
        max: n.highest(),
    }
}

pub(super) fn bad(field: &str, detail: impl Into<String>) -> ApiError {
    ApiError::field(&format!("/{field}"), ErrorCode::InvalidSweep, detail)
}

pub(super) fn sweep_error(e: SweepError) -> ApiError {
    ApiError::field(&format!("/{}", e.field), e.code, e.detail)
}

/// One axis: the input must be a numeric plan input (the 422 lists them).
fn axis(input: AxisInput) -> Result<(Axis, &'static Numeric, bool), ApiError> {
    // A keyed input (`prices.overrides.<sku>`) sweeps as its map input declares it; the plan
    // at the first point says whether the key is the catalog's.
    let spec = numeric_spec(&input.name)
        .or_else(|| crate::plan::registry::keyed_input(&input.name).map(|(s, _)| s));
    let Some(n) = spec.and_then(|s| s.numeric.as_ref()) else {
        let names = numeric_names();
        return Err(bad(
            &format!("vary{}", input.suffix),
            format!(
                "'{}' is not a numeric plan input (nor prices.overrides.<sku>, prices.discounts.vendor.<vendor>, prices.discounts.category.<category>)",
                input.name
            ),
        )
        .with_extra(serde_json::json!({ "valid_inputs": names })));
    };
    let ranged = input.values.is_none();
    let mut a = sweep::axis(input, domain(n)).map_err(sweep_error)?;
    if ranged && n.decimal && !n.integer {
        // A range's values are computed in binary floating point (0.01 + 5 × 0.01 is
        // 0.060000000000000005): a decimal input is planned and shown at its short decimal.
        for v in &mut a.values {
            *v = short_decimal(*v);
        }
        a.values.dedup();
    }
    Ok((a, n, ranged))
}

/// `v` rounded to 15 significant digits (fewer than an `f64` holds, so the last bits of
/// arithmetic noise go), as the nearest `f64`: its shortest text is the short decimal
/// (`0.06`, not `0.060000000000000005`).
pub(super) fn short_decimal(v: f64) -> f64 {
    format!("{v:.14e}").parse().unwrap_or(v)
}

/// A checked sweep and the kinds of its inputs (to write values into requests and rows).
pub(super) struct Checked {
    pub(super) spec: Spec,
    pub(super) kinds: (&'static Numeric, Option<&'static Numeric>),
    /// Each axis's values come from a range (`from`, `to`), not a list.
    pub(super) ranged: [bool; 2],
}

impl Checked {
    /// `e` with each pointer at a varied input moved to the sweep's own field that set its
    /// value, `at(0)` for the first axis and `at(1)` for the second (audit 28: a point's error
    /// blamed `/base/gpus`, a base the request did not give).
    pub(super) fn to_axis(&self, e: ApiError, at: impl Fn(usize) -> String) -> ApiError {
        let axes: Vec<String> = std::iter::once(&self.spec.first)
            .chain(self.spec.second.as_ref())
            .map(|a| pointer_of(&a.name))
            .collect();
        if !e.problem().errors.iter().any(|f| axes.contains(&f.pointer)) {
            return e;
        }
        repoint(e, |pointer| {
            axes.iter()
                .position(|a| a == pointer)
                .map_or_else(|| pointer.to_string(), &at)
        })
    }
}

/// A 422's field errors with each pointer rewritten by `to` (other problems as they are).
pub(super) fn repoint(e: ApiError, to: impl Fn(&str) -> String) -> ApiError {
    let p = e.problem();
    if p.status != 422 || p.errors.is_empty() {
        return e;
    }
    ApiError::validation(
        p.errors
            .iter()
            .map(|f| crate::api::error::FieldError {
                pointer: to(&f.pointer),
                code: f.code,
                detail: f.detail.clone(),
            })
            .collect(),
    )
}

fn spec(first: AxisInput, second: Option<AxisInput>) -> Result<Checked, ApiError> {
    let (a, ka, ranged_a) = axis(first)?;
    let (b, kb, ranged_b) = match second.map(axis).transpose()? {
        Some((b, kb, r)) => (Some(b), Some(kb), r),
        None => (None, None, false),
    };
    Ok(Checked {
        spec: Spec::new(a, b).map_err(sweep_error)?,
        kinds: (ka, kb),
        ranged: [ranged_a, ranged_b],
    })
}

/// A `gpus` axis on a GPU whose NVLink domain spans servers (GB200/GB300 NVL72: racks are
/// bought whole) in whole domains ([`sweep::in_whole_units`]; audit 34: the report page of one
/// GB200 rack drew "InfiniBand → RoCE (ECMP) at 41 GPUs", 11 trays). The catalog's server
/// against its domain: a request's 72 GPUs "a server" on an NVL72 rack are still racks bought
/// whole (audit 35). `None`: the sweep as asked.
pub(super) fn in_whole_domains(base: &Base, c: &Checked, catalogs: &CatalogSet) -> Option<Spec> {
    let first = c.spec.first.values.first().copied()?;
    let second = c
        .spec
        .second
        .as_ref()
        .and_then(|a| a.values.first().copied());
    let req = base.request(c, first, second, false).ok()?;
    let r = plan::inputs::resolve(&req, catalogs).ok()?;
    if r.gpu.nvlink_domain_gpus <= r.gpu.gpus_per_node {
        return None;
    }
    sweep::in_whole_units(
        &c.spec,
        "gpus",
        f64::from(r.nvlink_domain_gpus),
        c.ranged,
        f64::from(plan::request::Gpus::MAX),
    )
}

/// The sweep's axes as the client gave them (GET parameters or POST body): each `vary` must
/// name a numeric plan input, and a second range needs its `vary2`.
pub(super) fn axes(b: &SweepRequest) -> Result<Checked, ApiError> {
    if b.vary2.is_none() {
        let given = [
            ("from2", b.from2.is_some()),
            ("to2", b.to2.is_some()),
            ("steps2", b.steps2.is_some()),
            ("scale2", b.scale2.is_some()),
            ("values2", b.values2.is_some()),
        ];
        if let Some((name, _)) = given.iter().find(|(_, g)| *g) {
            return Err(bad(
                "vary2",
                format!("'{name}' is given but 'vary2' is not: name the input to vary"),
            ));
        }
    }
    let second = b.vary2.clone().map(|vary| AxisInput {
        name: vary,
        from: b.from2,
        to: b.to2,
        steps: b.steps2,
        scale: b.scale2.unwrap_or_default(),
        values: b.values2.clone(),
        suffix: "2",
    });
    spec(
        AxisInput {
            name: b.vary.clone(),
            from: b.from,
            to: b.to,
            steps: b.steps,
            scale: b.scale.unwrap_or_default(),
            values: b.values.clone(),
            suffix: "",
        },
        second,
    )
}
