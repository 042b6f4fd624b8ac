//! The plan pipeline, in stages over plain data (no HTTP):
//! 1. resolve ([`inputs`]): the request against its catalog, every default filled in;
//! 2. size ([`size`]): each fabric's design chosen and its BOM counted;
//! 3. time ([`time`]): the performance model on each sized fabric;
//! 4. price ([`price`]): capex, opex, TCO and idle cost of each;
//! 5. compare ([`compare`]): the fabrics side by side and the recommendation.
//!
//! [`pipeline`] runs them in that order, then the uncertainty analysis ([`uncertainty`], which
//! re-runs time and price on the sized fabrics) and the advice that takes other plans to give
//! ([`advice`]); a sweep ([`sweep`]) runs the whole pipeline per point. Each module imports the
//! module that defines what it uses, never this one: the names below are for the rest of the
//! crate.

mod advice;
pub mod bom;
pub mod bounded;
#[cfg(test)]
mod build_tests;
pub mod cache;
mod compare;
#[cfg(test)]
mod design_tests;
pub mod diff;
mod error;
pub mod fit;
mod id;
pub mod inputs;
mod options;
mod output;
mod pipeline;
mod price;
pub mod registry;
pub mod request;
mod size;
pub mod sweep;
mod time;
pub mod uncertainty;
#[cfg(test)]
mod workload_tests;

pub use error::{PlanError, perf_error};
pub use id::{hex_prefix, plan_id};
pub use options::{Detail, Effort};
pub use output::{BomLineOut, Built, CatalogRef, DesignAlternative, FabricPlan, Plan};
pub use pipeline::{build, build_plan, build_with};
pub use price::{cost_input, failure_gpu_hours};
pub use request::PlanRequest;
pub use size::{Prepared, SizedFabric, SizingMemo};
pub use time::perf_input;
