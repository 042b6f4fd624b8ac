//! Fit to an envelope (`POST /v1/fit`): per fabric, the largest cluster a budget or a power
//! envelope buys, what bound it, and which fabric buys the most GPUs and the most trained
//! tokens.
//!
//! A cluster grows in steps of whole servers (whole racks for NVL72 GPUs). The search plans
//! one fabric at a time (figures only) and keeps two sizes: `lo`, which fits, and `hi`, which
//! does not. `hi` starts at the envelope's GPU ceiling, where the GPUs alone fill it
//! ([`crate::cost::Envelope::gpu_ceiling`]), and a bisection closes the gap until `hi` is
//! `lo` plus one step. The answer is thus a cluster that fits whose next step does not, as a
//! buyer asks it, whatever the shape of the cost curve between them (a tier added, a design
//! changed). The fitted cluster is then planned in full.

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use validator::Validate;

use super::error::PlanError;
use super::options::Effort;
use super::output::{CatalogRef, Plan};
use super::pipeline;
use super::request::{BudgetUsd, FacilityMw, Gpus, PlanRequest, UnitPriceUsd};
use crate::catalog::CatalogSet;
use crate::cost::{self, Envelope, Limit, Spend, SpendInput};
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;

/// The envelope a fit stays within: any of a purchase budget, a budget over the horizon and a
/// facility's power (at least one).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, Validate, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct Budget {
    /// Most the cluster may cost to buy: GPU servers and the network's capex, USD.
    pub capex_usd: Option<BudgetUsd>,
    /// Most the cluster may cost over `economics.years`: GPU servers, their electricity and the
    /// network's TCO (capex and opex), USD.
    pub total_usd: Option<BudgetUsd>,
    /// Most facility power: GPU servers and network at full power, times the PUE, MW.
    pub facility_mw: Option<FacilityMw>,
    /// Price of one GPU with its share of the server, USD. Default: the catalog's
    /// `purchase_usd + server_share_usd` for the GPU model (docs/cost.md).
    pub server_usd_per_gpu: Option<UnitPriceUsd>,
}

/// A fit request: the envelope, and every plan input but `gpus` and `uncertainty` (the JSON
/// body holds them side by side: `{"budget": {…}, "gpu_model": "h100", …}`).
#[derive(Debug, Clone, PartialEq)]
pub struct FitRequest {
    pub budget: Budget,
    /// The plan inputs; its `gpus` is set at each size tried.
    pub plan: PlanRequest,
}

/// Why a fabric's cluster is no larger: the envelope's fields its next step exceeds, or
/// `sizing` (the fabric cannot be built that large), or `gpus_limit` (the API's GPU bound).
pub const BOUND_SIZING: &str = "sizing";
pub const BOUND_GPUS_LIMIT: &str = "gpus_limit";

/// The next step up from the fitted cluster, and why it is not taken.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct NextStep {
    pub gpus: u32,
    /// Its spend; absent when it cannot be built (`reason` says why).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spend: Option<Spend>,
    /// Why it is not taken, in words.
    pub reason: String,
}

/// One fabric's fit.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct FabricFit {
    pub fabric: Fabric,
    /// GPUs of the largest cluster that fits (0: not even one step does).
    pub gpus: u32,
    /// GPU servers (compute trays for NVL72).
    pub servers: u32,
    /// NVL72 racks; absent for other GPUs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub racks: Option<u32>,
    /// What stops the next step: `budget.capex_usd`, `budget.total_usd`, `budget.facility_mw`,
    /// `sizing` or `gpus_limit`.
    pub bound_by: Vec<String>,
    /// The fitted cluster's spend; absent when nothing fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spend: Option<Spend>,
    /// The next step up (`step_gpus` more) and why it does not fit; absent past the GPU limit.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_step: Option<NextStep>,
    /// GPU-hours of work over the horizon: busy hours less the time waiting on the network and
    /// lost to network failures (2 decimals).
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String, example = "31000000.00")]
    pub useful_gpu_hours: Decimal,
    /// Tokens trained over the horizon: tokens per step × the steps its busy, failure-free time
    /// holds; absent when the workload has no tokens per step (an explicit `message_bytes`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trained_tokens: Option<f64>,
    /// The fitted cluster's plan (this fabric alone); absent when nothing fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<Box<Plan>>,
}

/// The fit: per fabric the largest cluster within the envelope.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Fit {
    pub catalog: CatalogRef,
    /// The envelope, as asked (`server_usd_per_gpu` filled in).
    pub budget: Budget,
    /// GPUs a cluster grows by: one server, or one NVL72 rack.
    pub step_gpus: u32,
    pub fabrics: Vec<FabricFit>,
    /// The fabric whose cluster has the most GPUs (the cheaper total on a tie); absent when
    /// nothing fits.
    pub most_gpus_fabric: Option<Fabric>,
    /// The fabric that trains the most tokens over the horizon (most useful GPU-hours when the
    /// workload has no tokens per step); absent when nothing fits.
    pub most_trained_tokens_fabric: Option<Fabric>,
    pub warnings: Vec<String>,
}

/// The cluster figures every size shares: the GPU's price and power, the economics.
struct Cluster {
    step_gpus: u32,
    gpus_per_node: u32,
    /// GPUs per NVL72 rack, when the GPU comes in racks.
    rack_gpus: Option<u32>,
    per_gpu: SpendInput,
    busy_fraction: Decimal,
}

/// One size tried for one fabric.
#[derive(Debug, Clone)]
enum At {
    Built {
        spend: Spend,
        over: Vec<Limit>,
    },
    /// The fabric cannot be planned at this size: why.
    NotBuilt(String),
}

impl At {
    fn fits(&self) -> bool {
        matches!(self, At::Built { over, .. } if over.is_empty())
    }
}

/// The fit of `req`, within `effort`'s deadline.
pub fn fit(req: &FitRequest, catalogs: &CatalogSet, effort: Effort) -> Result<Fit, PlanError> {
    let envelope = envelope_of(&req.budget)?;
    let (cluster, fabrics, catalog, mut warnings) = cluster_of(req, catalogs)?;
    let ceiling_steps = envelope
        .gpu_ceiling(&cluster.per_gpu)
        .map_or(u64::MAX, |g| g / u64::from(cluster.step_gpus));
    let limit_steps = u64::from(Gpus::MAX / cluster.step_gpus);
    let mut out = Vec::with_capacity(fabrics.len());
    for &fabric in &fabrics {
        let search = Search {
            req,
            fabric,
            catalogs,
            cluster: &cluster,
            envelope: &envelope,
            deadline: effort.deadline,
        };
        out.push(search.run(ceiling_steps.min(limit_steps), limit_steps, &mut warnings)?);
    }
    let most_gpus_fabric = out
        .iter()
        .filter(|f| f.gpus > 0)
        .max_by(|a, b| {
            a.gpus.cmp(&b.gpus).then_with(|| {
                let total = |f: &FabricFit| f.spend.as_ref().map(|s| s.total_usd);
                total(b).cmp(&total(a))
            })
        })
        .map(|f| f.fabric);
    let all_tokens = out.iter().all(|f| f.trained_tokens.is_some());
    let most_trained_tokens_fabric = out
        .iter()
        .filter(|f| f.gpus > 0)
        .max_by(|a, b| {
            if all_tokens {
                let t = |f: &FabricFit| f.trained_tokens.unwrap_or(0.0);
                t(a).total_cmp(&t(b))
            } else {
                a.useful_gpu_hours.cmp(&b.useful_gpu_hours)
            }
        })
        .map(|f| f.fabric);
    if !all_tokens && most_trained_tokens_fabric.is_some() {
        crate::words::push_unique(
            &mut warnings,
            "the workload gives no tokens per step: the most trained tokens are ranked by useful GPU-hours".to_string(),
        );
    }
    let mut budget = req.budget.clone();
    budget.server_usd_per_gpu = Some(UnitPriceUsd::echo(cluster.per_gpu.server_usd_per_gpu));
    Ok(Fit {
        catalog,
        budget,
        step_gpus: cluster.step_gpus,
        fabrics: out,
        most_gpus_fabric,
        most_trained_tokens_fabric,
        warnings,
    })
}

fn envelope_of(b: &Budget) -> Result<Envelope, PlanError> {
    let e = Envelope {
        capex_usd: b.capex_usd.map(BudgetUsd::get),
        total_usd: b.total_usd.map(BudgetUsd::get),
        facility_mw: b.facility_mw.map(FacilityMw::get),
    };
    if e == Envelope::default() {
        return Err(PlanError::field(
            "/budget",
            ErrorCode::Required,
            "give at least one of budget.capex_usd, budget.total_usd and budget.facility_mw",
        ));
    }
    Ok(e)
}

/// The request at `gpus` GPUs, for `fabric` alone.
fn at_size(req: &PlanRequest, fabric: Option<Fabric>, gpus: u32) -> Result<PlanRequest, PlanError> {
    let mut r = req.clone();
    r.gpus = Gpus::new(gpus).ok_or_else(|| {
        PlanError::field(
            "/budget",
            ErrorCode::Range,
            format!("{gpus} GPUs is beyond the {} a plan takes", Gpus::MAX),
        )
    })?;
    if let Some(f) = fabric {
        r.fabrics = Some(vec![f]);
    }
    r.uncertainty = None;
    Ok(r)
}

/// The GPU's step, price and power, the economics, the fabrics and the catalog, read from the
/// request resolved at one NVL72 rack's size (every server size divides it).
fn cluster_of(
    req: &FitRequest,
    catalogs: &CatalogSet,
) -> Result<(Cluster, Vec<Fabric>, CatalogRef, Vec<String>), PlanError> {
    let per_node = req.plan.gpus_per_node.map_or(8, |g| g.get());
    let probe = at_size(&req.plan, None, 72 * per_node)?;
    let r = super::inputs::resolve(&probe, catalogs)?;
    let rack_gpus =
        (r.gpu.nvlink_domain_gpus > r.gpu.gpus_per_node).then_some(r.gpu.nvlink_domain_gpus);
    let step_gpus = rack_gpus.unwrap_or(r.gpus_per_node).max(1);
    let catalog_price = match (r.gpu.purchase_usd, r.gpu.server_share_usd) {
        (Some(p), Some(s)) => p.checked_add(s),
        _ => None,
    };
    let server_usd_per_gpu = req
        .budget
        .server_usd_per_gpu
        .map(UnitPriceUsd::get)
        .or(catalog_price)
        .ok_or_else(|| {
            PlanError::field(
                "/budget/server_usd_per_gpu",
                ErrorCode::Required,
                format!(
                    "GPU '{}' has no purchase price in the catalog: give budget.server_usd_per_gpu",
                    r.gpu.id
                ),
            )
        })?;
    let mut warnings = Vec::new();
    if req.budget.server_usd_per_gpu.is_none()
        && let Some(range) = &r.gpu.purchase_range_usd
    {
        warnings.push(format!(
            "GPU servers are priced at the catalog's ${server_usd_per_gpu} per GPU ({} purchase ${}–${} plus the server's share; docs/cost.md): set budget.server_usd_per_gpu to the quote",
            r.gpu.id, range.low, range.high
        ));
    }
    let e = &r.economics;
    let cluster = Cluster {
        step_gpus,
        gpus_per_node: r.gpus_per_node.max(1),
        rack_gpus,
        per_gpu: SpendInput {
            gpus: 1,
            server_usd_per_gpu,
            gpu_power_w: r.gpu.power_w,
            network_capex_usd: Decimal::ZERO,
            network_tco_usd: Decimal::ZERO,
            network_it_power_w: Decimal::ZERO,
            pue: e.pue,
            electricity_usd_per_kwh: e.electricity_usd_per_kwh,
            years: e.years,
        },
        busy_fraction: e.busy_fraction,
    };
    let catalog = CatalogRef {
        id: r.catalog.id().to_string(),
        version: r.catalog.data.version.clone(),
        sha256: r.catalog.sha256.clone(),
    };
    Ok((cluster, r.fabrics.clone(), catalog, warnings))
}

/// One fabric's search.
struct Search<'a> {
    req: &'a FitRequest,
    fabric: Fabric,
    catalogs: &'a CatalogSet,
    cluster: &'a Cluster,
    envelope: &'a Envelope,
    deadline: Option<std::time::Instant>,
}

impl Search<'_> {
    fn run(
        &self,
        ceiling_steps: u64,
        limit_steps: u64,
        warnings: &mut Vec<String>,
    ) -> Result<FabricFit, PlanError> {
        // The smallest size that builds: one step, or (a workload that needs more GPUs than a
        // server) the first power of two steps that does.
        let mut lo = 1u64;
        let mut first = self.at(lo)?;
        while matches!(first, At::NotBuilt(_)) && lo.saturating_mul(2) <= ceiling_steps {
            lo *= 2;
            first = self.at(lo)?;
        }
        if !first.fits() {
            return Ok(self.nothing_fits(lo, &first));
        }
        let mut hi = ceiling_steps.max(lo);
        let mut top = self.at(hi)?;
        if top.fits() {
            // The GPUs alone fill the envelope here (or the GPU limit is reached): the next
            // step cannot fit, but a cent's rounding could let it; step on while it does.
            lo = hi;
            loop {
                hi = lo + 1;
                if hi > limit_steps {
                    return self.fitted(lo, None, warnings);
                }
                top = self.at(hi)?;
                if !top.fits() {
                    break;
                }
                lo = hi;
            }
        }
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let at = self.at(mid)?;
            if at.fits() {
                lo = mid;
            } else {
                hi = mid;
                top = at;
            }
        }
        self.fitted(lo, Some((hi, top)), warnings)
    }

    fn gpus(&self, steps: u64) -> u32 {
        u32::try_from(steps.saturating_mul(u64::from(self.cluster.step_gpus))).unwrap_or(u32::MAX)
    }

    /// The figures plan at `steps` steps, against the envelope.
    fn at(&self, steps: u64) -> Result<At, PlanError> {
        if self
            .deadline
            .is_some_and(|d| std::time::Instant::now() >= d)
        {
            return Err(PlanError::field(
                "/budget",
                ErrorCode::AnalysisTooSlow,
                "the fit had not found its clusters when its time budget (90 % of the request deadline) ran out; retry when the service is less busy",
            ));
        }
        let req = at_size(&self.req.plan, Some(self.fabric), self.gpus(steps))?;
        match pipeline::figures_unchecked(&req, self.catalogs, Effort::default()) {
            Ok(plan) => match self.spend_of(&plan)? {
                Some(spend) => {
                    let over = self.envelope.exceeded(&spend);
                    Ok(At::Built { spend, over })
                }
                None => Ok(At::NotBuilt(infeasible_reason(&plan))),
            },
            Err(e) => Ok(At::NotBuilt(e.detail)),
        }
    }

    /// The cluster's spend on the plan's network; `None` when the fabric was not built.
    fn spend_of(&self, plan: &Plan) -> Result<Option<Spend>, PlanError> {
        let Some(f) = plan.fabrics.iter().find(|f| f.fabric == self.fabric) else {
            return Ok(None);
        };
        let (Some(capex), Some(tco), Some(opex)) = (&f.capex, &f.tco, &f.opex_per_year) else {
            return Ok(None);
        };
        let input = SpendInput {
            gpus: plan.inputs.gpus.get(),
            network_capex_usd: capex.total_usd,
            network_tco_usd: tco.total_usd,
            network_it_power_w: opex.it_power_w,
            ..self.cluster.per_gpu.clone()
        };
        Ok(Some(cost::spend(&input)?))
    }

    fn nothing_fits(&self, steps: u64, at: &At) -> FabricFit {
        FabricFit {
            fabric: self.fabric,
            gpus: 0,
            servers: 0,
            racks: self.cluster.rack_gpus.map(|_| 0),
            bound_by: bound_by(at),
            spend: None,
            next_step: Some(self.next_step(steps, at)),
            useful_gpu_hours: Decimal::ZERO,
            trained_tokens: None,
            plan: None,
        }
    }

    fn next_step(&self, steps: u64, at: &At) -> NextStep {
        let gpus = self.gpus(steps);
        match at {
            At::Built { spend, over } => NextStep {
                gpus,
                spend: Some(spend.clone()),
                reason: format!(
                    "{gpus} GPUs would exceed {}",
                    over.iter()
                        .map(|l| over_words(*l, spend, self.envelope))
                        .collect::<Vec<_>>()
                        .join(" and ")
                ),
            },
            At::NotBuilt(why) => NextStep {
                gpus,
                spend: None,
                reason: format!("{gpus} GPUs cannot be planned: {why}"),
            },
        }
    }

    /// The fabric's fit at `steps`, planned in full; `next`: the step above and its verdict
    /// (`None`: past the GPU limit).
    fn fitted(
        &self,
        steps: u64,
        next: Option<(u64, At)>,
        warnings: &mut Vec<String>,
    ) -> Result<FabricFit, PlanError> {
        let gpus = self.gpus(steps);
        let req = at_size(&self.req.plan, Some(self.fabric), gpus)?;
        let plan = pipeline::build(&req, self.catalogs, Effort::default())?;
        let spend = self.spend_of(&plan)?;
        // A plan's warnings name their fabric where they concern one.
        for w in &plan.warnings {
            crate::words::push_unique(warnings, w.clone());
        }
        let (useful_gpu_hours, trained_tokens) = self.work(&plan, gpus)?;
        let (bound_by, next_step) = match next {
            Some((hi, at)) => (bound_by(&at), Some(self.next_step(hi, &at))),
            None => (vec![BOUND_GPUS_LIMIT.to_string()], None),
        };
        Ok(FabricFit {
            fabric: self.fabric,
            gpus,
            servers: gpus / self.cluster.gpus_per_node,
            racks: self.cluster.rack_gpus.map(|r| gpus / r),
            bound_by,
            spend,
            next_step,
            useful_gpu_hours,
            trained_tokens,
            plan: Some(Box::new(plan)),
        })
    }

    /// Useful GPU-hours and tokens trained over the horizon, from the plan's step and idle
    /// figures.
    fn work(&self, plan: &Plan, gpus: u32) -> Result<(Decimal, Option<f64>), PlanError> {
        let years = self.cluster.per_gpu.years;
        let Some(f) = plan.fabrics.iter().find(|f| f.fabric == self.fabric) else {
            return Ok((Decimal::ZERO, None));
        };
        let (Some(idle), Some(perf)) = (&f.gpu_idle, &f.performance) else {
            return Ok((Decimal::ZERO, None));
        };
        let busy_fraction = self.cluster.busy_fraction;
        let useful_per_year = cost::useful_gpu_hours_per_year(
            gpus,
            busy_fraction,
            idle.idle_fraction,
            idle.failure_gpu_hours_per_year,
        )?
        .max(Decimal::ZERO);
        let useful = cost::money::round_hours(
            useful_per_year
                .checked_mul(Decimal::from(years))
                .ok_or_else(|| PlanError::from(cost::CostError::Overflow { input: "budget" }))?,
        );
        let failure_share =
            cost::failure_share(gpus, busy_fraction, idle.failure_gpu_hours_per_year)?;
        let tokens = perf
            .tokens_per_step
            .filter(|_| perf.step_time_ms > 0.0)
            .map(|per_step| {
                cost::tokens_over_years(
                    years,
                    busy_fraction,
                    failure_share,
                    per_step,
                    perf.step_time_ms,
                )
            });
        Ok((useful, tokens))
    }
}

fn bound_by(at: &At) -> Vec<String> {
    match at {
        At::Built { over, .. } => over.iter().map(|l| l.field().to_string()).collect(),
        At::NotBuilt(_) => vec![BOUND_SIZING.to_string()],
    }
}

fn over_words(limit: Limit, spend: &Spend, envelope: &Envelope) -> String {
    match limit {
        Limit::CapexUsd => format!(
            "budget.capex_usd (${} > ${})",
            spend.capex_usd,
            envelope.capex_usd.unwrap_or_default()
        ),
        Limit::TotalUsd => format!(
            "budget.total_usd (${} > ${})",
            spend.total_usd,
            envelope.total_usd.unwrap_or_default()
        ),
        Limit::FacilityMw => format!(
            "budget.facility_mw ({} MW > {} MW)",
            spend.facility_mw,
            envelope.facility_mw.unwrap_or_default()
        ),
    }
}

fn infeasible_reason(plan: &Plan) -> String {
    plan.fabrics
        .iter()
        .find_map(|f| f.infeasible_reason.clone())
        .unwrap_or_else(|| "the fabric cannot be built at this size".to_string())
}
