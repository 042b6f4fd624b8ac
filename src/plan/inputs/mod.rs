//! Resolves a request against a catalog: every default filled in, every catalog reference
//! checked. Produces the concrete values the pipeline uses and the normalized request that the
//! plan echoes as `inputs` (post it back and you get the same plan).

use crate::error_code::ErrorCode;
use std::sync::Arc;

use rust_decimal::Decimal;

use super::PlanError;
use super::request::*;
use crate::catalog::{Catalog, CatalogSet, Gpu};
use crate::cost::{Economics, PriceAdjustments, failure};
use crate::fabric::Fabric;
use crate::perf::{self, RoceTuning, Workload};

/// Default GPU model.
pub const DEFAULT_GPU_MODEL: &str = "h100";
/// Default NIC speed, Gb/s (ConnectX-7 / NDR class).
pub const DEFAULT_NIC_SPEED_GBPS: u32 = 400;

pub use crate::fabric::NoteScope;
pub use hardware::nvlink_domain_gpus;
pub use topology::default_planes;

mod experts;
mod hardware;
mod topology;
mod workload;

/// Concrete values for one plan.
#[derive(Debug, Clone)]
pub struct Resolved {
    pub catalog: Arc<Catalog>,
    pub gpu: Gpu,
    pub gpus: u32,
    pub gpus_per_node: u32,
    /// GPUs in one NVLink domain ([`nvlink_domain_gpus`]): the server, or an NVL72 rack.
    pub nvlink_domain_gpus: u32,
    pub nics_per_node: u32,
    pub nic_speed_gbps: u32,
    /// The server's own NIC the plan uses (the GPU's `nic_on_board`, $0): at the speed asked,
    /// when the server has one for each NIC asked; `None`: the fabric profile's add-in card.
    pub nic_on_board: Option<String>,
    pub fabrics: Vec<Fabric>,
    pub oversubscription: f64,
    pub rail_optimized: bool,
    /// The request's planes; `None`: per fabric, [`default_planes`].
    pub planes: Option<u32>,
    pub max_tiers: u8,
    /// `auto` or a named design (docs/sizing.md "Designs").
    pub design: crate::sizing::DesignChoice,
    /// Servers per rack, when the buyer gave it (sizes `tor_copper`).
    pub nodes_per_rack: Option<u32>,
    pub switch_sku: Option<String>,
    pub in_network_reduction: bool,
    pub roce_tuning: RoceTuning,
    pub cabling: CablingRequest,
    pub workload: Workload,
    pub reliability: failure::Reliability,
    pub economics: Economics,
    pub gpu_hour_basis: GpuHourBasis,
    pub adjustments: PriceAdjustments,
    /// Assumption notes raised while resolving (e.g. no GPU price).
    pub warnings: Vec<String>,
    /// Notes about figures only some fabrics count (the NOS licence's price, a placeholder
    /// operating figure): the plan says each only when it builds a fabric of its scope (audit
    /// 25 F1: a NOS note was said for an Ethernet fabric that could not be built, beside an
    /// InfiniBand one).
    pub fabric_notes: Vec<(NoteScope, String)>,
    /// The request with every default filled in.
    pub normalized: PlanRequest,
}

/// Fills defaults and checks catalog references.
pub fn resolve(req: &PlanRequest, catalogs: &CatalogSet) -> Result<Resolved, PlanError> {
    let catalog = hardware::catalog(req, catalogs)?;
    let hardware::Hardware {
        gpu,
        gpus,
        gpus_per_node,
        domain_gpus,
        nics_per_node,
        nic_speed_gbps,
        fabrics,
    } = hardware::resolve(req, &catalog)?;
    let topology = topology::resolve(req, &catalog, nic_speed_gbps, &fabrics)?;

    let job = workload::resolve(req, gpus, gpus_per_node)?;
    let workload::Job { dp, replica, .. } = job;
    let workload = &job.workload;
    let rel = req.reliability.clone().unwrap_or_default();
    let defaults = failure::Reliability::default();
    let rate =
        |v: Option<FailuresPerPartYear>, d: f64| v.map(FailuresPerPartYear::get).unwrap_or(d);
    let reliability = failure::Reliability {
        nic_failures_per_year: rate(rel.nic_failures_per_year, defaults.nic_failures_per_year),
        switch_failures_per_year: rate(
            rel.switch_failures_per_year,
            defaults.switch_failures_per_year,
        ),
        transceiver_failures_per_year: rate(
            rel.transceiver_failures_per_year,
            defaults.transceiver_failures_per_year,
        ),
        cable_failures_per_year: rate(
            rel.cable_failures_per_year,
            defaults.cable_failures_per_year,
        ),
        checkpoint_interval_minutes: rel
            .checkpoint_interval_minutes
            .map(Minutes::get)
            .unwrap_or(defaults.checkpoint_interval_minutes),
        restart_minutes: rel
            .restart_minutes
            .map(Minutes::get)
            .unwrap_or(defaults.restart_minutes),
    };

    // Economics: request, else catalog operating figures.
    let ops = &catalog.data.operations;
    let e = req.economics.clone().unwrap_or_default();
    let busy_fraction = req
        .utilization
        .as_ref()
        .and_then(|u| u.busy_fraction.map(Fraction::get))
        .unwrap_or(ops.busy_fraction.value);
    let mut warnings: Vec<String> = job.expert_note.clone().into_iter().collect();
    // Expert groups that do not tile a multi-node NVLink domain (64 GPUs on 72-GPU NVL72 racks)
    // straddle racks and cross the network (docs/model.md §5b): say how many, and name the
    // degrees that tile.
    let domain = u64::from(domain_gpus);
    let tp = u64::from(workload.tensor_parallel.max(1));
    let stride = tp * u64::from(workload.context_parallel.max(1));
    let ep = u64::from(workload.expert_parallel.max(1));
    let span = ep.saturating_mul(stride);
    let used = dp.saturating_mul(perf::data_parallel_replica_gpus(&workload));
    if workload.message_bytes.is_none()
        && ep > 1
        && domain > u64::from(gpus_per_node)
        && u64::from(gpus) > domain
        && dp.is_multiple_of(ep)
        && !domain.is_multiple_of(span)
        && !span.is_multiple_of(domain)
    {
        // A block of EP·stride GPUs that divides a domain: every expert group inside one
        // (a block of whole domains keeps its groups' all-to-all on the network: EP 9 of
        // TP 8 × CP 2 on NVL72 idles more than EP 2).
        let tiling: Vec<String> = (2..=dp)
            .filter(|e| dp.is_multiple_of(*e) && domain.is_multiple_of(e * stride))
            .map(|e| e.to_string())
            .collect();
        // Each block of EP·stride GPUs holds `stride` expert groups (ranks `stride` apart).
        let groups = if stride > 1 {
            format!("expert groups of {ep} ranks, {stride} GPUs apart (blocks of {span} GPUs),")
        } else {
            format!("expert groups of {ep} GPUs")
        };
        warnings.push(format!(
            "workload.expert_parallel: {groups} do not tile the {domain}-GPU NVLink domains of {}: {}, and the step waits for their all-to-all across the network{}",
            gpu.id,
            straddle_words(span, stride, domain, used),
            if tiling.is_empty() {
                String::new()
            } else {
                format!("; degrees that tile a domain: {}", tiling.join(", "))
            }
        ));
    }
    // Tensor-parallel groups larger than an NVLink domain, or not tiling a multi-node one: their
    // all-reduce of every layer runs over the scale-out network (docs/model.md §5b).
    if workload.message_bytes.is_none()
        && tp > 1
        && u64::from(gpus) > domain
        && !domain.is_multiple_of(tp)
    {
        let fitting: Vec<String> = (2..=domain.min(tp))
            .filter(|t| domain.is_multiple_of(*t))
            .map(|t| t.to_string())
            .collect();
        let placed = if tp > domain {
            format!("every group spans {} domains", tp.div_ceil(domain))
        } else {
            straddle_words(tp, 1, domain, used)
        };
        warnings.push(format!(
            "workload.tensor_parallel: tensor-parallel groups of {tp} GPUs do not fit the {domain}-GPU NVLink domains of {}: {placed}, and the step waits for their all-reduce of every layer across the scale-out network{}",
            gpu.id,
            if fitting.is_empty() {
                String::new()
            } else {
                format!("; degrees within a domain: {}", fitting.join(", "))
            }
        ));
    }
    // GPUs no data-parallel replica holds: the job runs on the rest, and the left-out GPUs are
    // priced as if they ran it (their idle cost at the job's idle fraction). (`replica` above:
    // fitting the expert degree does not change TP·PP·CP.)
    let used = dp.saturating_mul(replica);
    if workload.message_bytes.is_none() && dp > 0 && used < u64::from(gpus) {
        let (tp, pp, cp) = (
            u64::from(workload.tensor_parallel.max(1)),
            u64::from(workload.pipeline_parallel.max(1)),
            u64::from(workload.context_parallel.max(1)),
        );
        let all = u64::from(gpus);
        let left = all - used;
        // The pipeline degree nearest below the one used (or the default's 4) that uses all.
        let fits = (1..=pp.max(u64::from(perf::DEFAULT_PIPELINE_PARALLEL)))
            .rev()
            .find(|p| all.is_multiple_of(tp * cp * p));
        warnings.push(format!(
            "workload: a data-parallel replica is TP {tp} x PP {pp} x CP {cp} = {replica} GPUs, so {gpus} GPUs hold {dp} and the job runs on {used}; the other {left} {} no part of it{}: {}",
            if left == 1 { "GPU runs" } else { "run" },
            // Inside one NVLink domain no idle cost is charged at all (the note below says
            // so; audit 34 read the two as contradicting each other).
            if all <= u64::from(domain_gpus) {
                String::new()
            } else {
                format!(
                    " and {} priced as if {} ran it (idle cost at the job's idle fraction)",
                    if left == 1 { "is" } else { "are" },
                    if left == 1 { "it" } else { "they" },
                )
            },
            match fits {
                Some(p) => format!("workload.pipeline_parallel {p} uses all {gpus}"),
                None => format!(
                    "choose tensor_parallel x context_parallel dividing {gpus} to use them all"
                ),
            }
        ));
    }
    // An explicit message times one all-reduce: a preset's job beside it is not timed, and is
    // said so (audit 27: the preset was echoed while its traffic was silently dropped).
    if let (Some(bytes), Some(preset)) = (workload.message_bytes, workload.preset) {
        warnings.push(format!(
            "workload.message_bytes: one all-reduce of {bytes} bytes over all GPUs is timed; the preset {}'s training step is not (leave message_bytes out to time it)",
            preset.as_str()
        ));
    }
    // A mixture of experts timed with layers by the dense rule: its expert all-to-all runs
    // a MoE layer, so the count scales it (audit 27: 86 layers for Mixtral 8x22B's 56).
    if workload.message_bytes.is_none() && ep > 1 && workload.layers.is_none() {
        warnings.push(format!(
            "workload.layers: {} derived by a dense model's rule (active parameters ÷ (12 × hidden²)), which overcounts a mixture of experts' layers (Mixtral 8x22B: 86 for 56) and with them its expert all-to-all; set workload.layers",
            perf::job::layers(&workload)
        ));
    }
    // An expert all-to-all over the network is counted fully exposed (docs/model.md §5b): an
    // upper bound for jobs that overlap it with computation, as DeepSeek-V3 did with DualPipe.
    if workload.message_bytes.is_none() && ep > 1 && span > domain {
        warnings.push(format!(
            "workload.expert_parallel: the expert all-to-all across {ep} x {stride} GPUs is counted fully exposed, as without overlap with computation (DeepSeek-V3 hid it with DualPipe): its idle time is an upper bound for a job that overlaps it"
        ));
    }
    // A multi-node NVLink domain (an NVL72 rack) is bought whole: a cluster of part of one
    // buys, cables and powers the whole rack (audit 26 F4: 1,024 GB200 were sized as 256 trays
    // with no word that it is 15 racks, 1,080 GPUs, $1.17M more on InfiniBand).
    if domain > u64::from(gpus_per_node) && !u64::from(gpus).is_multiple_of(domain) {
        let racks = u64::from(gpus).div_ceil(domain);
        let servers = u64::from(gpus).div_ceil(u64::from(gpus_per_node));
        warnings.push(format!(
            "gpus: {gpus} GPU{} not whole {domain}-GPU NVLink domains of {} (racks are bought whole): the plan sizes the fabric for the {servers} server{} of {gpus_per_node} GPUs {} fill{}; {racks} whole rack{} {} {} GPUs (set gpus = {})",
            if gpus == 1 { " is" } else { "s are" },
            gpu.id,
            if servers == 1 { "" } else { "s" },
            if gpus == 1 { "it" } else { "they" },
            if gpus == 1 { "s" } else { "" },
            if racks == 1 { "" } else { "s" },
            if racks == 1 { "is" } else { "are" },
            racks * domain,
            racks * domain
        ));
    }
    // The server's own NICs (HGX B300, GB300: on its board, bought with it): used at their
    // speed when the server has one for each NIC asked; else add-in cards are bought, and the
    // plan says why (audit 26 F2: 1,024 B300 bought 1,024 ConnectX-8 cards, $2.15M, that came
    // with the servers).
    let own_nic = gpu.nic_on_board.as_deref().and_then(|sku| catalog.nic(sku));
    let own_nics_suffice = nics_per_node <= gpu.gpus_per_node;
    let nic_on_board = own_nic
        .filter(|n| n.speed_gbps == nic_speed_gbps && own_nics_suffice)
        .map(|n| n.part.sku.to_string());
    // Asked for another speed (a regression audit: B300 at 400G bought 1,024 ConnectX-7
    // beside its ConnectX-8s).
    if let Some(own) = own_nic.filter(|n| n.speed_gbps != nic_speed_gbps) {
        warnings.push(format!(
            "nic_speed_gbps: {nic_speed_gbps} Gb/s NICs are bought as add-in cards; the {} server's own {} ({} Gb/s, included with it) are not used",
            gpu.id, own.part.sku, own.speed_gbps
        ));
    }
    // More NICs than GPUs a server: each GPU reaches its NICs over its own PCIe x16 link, so
    // the extra ones add no bandwidth (the model caps it), though they are bought and cabled
    // (a regression audit: 16 NICs on 8 H100 doubled NIC and switch capex without a word).
    if nics_per_node > gpus_per_node {
        warnings.push(format!(
            "nics_per_node: {nics_per_node} NICs on {gpus_per_node} GPUs a server: a GPU reaches its NICs over its own PCIe x16 link, so NICs beyond one a GPU add no bandwidth to the job, while the plan buys and cables them{}",
            match &gpu.nic_on_board {
                Some(sku) if !own_nics_suffice => format!(
                    "; the {} {sku} on the {} server board are not used (add-in cards are bought for all {nics_per_node})",
                    gpu.gpus_per_node, gpu.id
                ),
                _ => String::new(),
            }
        ));
    }
    // The job inside one NVLink domain: a server, or a multi-node NVLink rack (NVL72).
    if gpus <= domain_gpus {
        let inside = if gpus <= gpus_per_node {
            format!(
                "one server ({gpus} GPU{})",
                if gpus == 1 { "" } else { "s" }
            )
        } else {
            format!(
                "one NVLink domain ({gpus} GPUs of the {domain_gpus}-GPU {} domain)",
                gpu.id
            )
        };
        warnings.push(format!(
            "{inside}: every collective of the job runs over NVLink inside it, so no scale-out fabric changes its step time; each fabric is priced as asked (for storage, growth or a second {}) and no idle cost is charged to it (no wait on it, and no failure of its parts interrupts the job)",
            if gpus <= gpus_per_node { "server" } else { "domain" }
        ));
    }
    let electricity = e
        .electricity_usd_per_kwh
        .map(ElectricityUsdPerKwh::get)
        .unwrap_or(ops.electricity_usd_per_kwh.value);
    let pue = e.pue.map(Pue::get).unwrap_or(ops.pue.value);
    let gpu_hour_basis = e.gpu_hour_basis.unwrap_or_default();
    // `None`: the catalog has no price to derive it from (counted at $0, with a warning).
    let priced_gpu_hour = match e.gpu_hour_usd.map(GpuHourUsd::get) {
        Some(v) => Some(v),
        None => default_gpu_hour(&gpu, gpu_hour_basis, ops, pue, electricity, &mut warnings)?,
    };
    let gpu_hour_usd = priced_gpu_hour.unwrap_or(Decimal::ZERO);
    // `placeholder`: the catalog's price was used and is grade P.
    let mut fabric_notes = Vec::new();
    let (nos, nos_placeholder) = match e.ethernet_nos_usd_per_switch_per_year {
        Some(v) => (v.get(), false),
        None => {
            let licence = catalog
                .data
                .licenses
                .iter()
                .find(|l| l.basis == crate::catalog::LicenseBasis::PerSwitchPerYear);
            let price = licence.and_then(|l| l.price_usd).unwrap_or(Decimal::ZERO);
            // A placeholder licence price is a figure nobody published: say so wherever an
            // Ethernet fabric's opex counts it (the plan says these notes only when it builds
            // one), as a placeholder BOM price is said.
            // A licence without a price (quote required, as UFM) is no figure either: its $0
            // is said, not charged silently (audit 24 F4).
            let unpriced = licence.is_some_and(|l| l.price_usd.is_none());
            let placeholder = licence.is_some_and(|l| l.provenance.is_placeholder()) || unpriced;
            if let Some(l) = licence.filter(|_| placeholder) {
                fabric_notes.push((NoteScope::Ethernet, if unpriced {
                    format!(
                        "Ethernet: the NOS licence ({}) has no price in the catalog (quote required) — Ethernet opex counts $0 for it; set economics.ethernet_nos_usd_per_switch_per_year",
                        l.part.sku
                    )
                } else {
                    format!(
                        "Ethernet: the NOS licence price ({}, ${} per switch per year) is a placeholder (grade P) — Ethernet opex counts it as given; set economics.ethernet_nos_usd_per_switch_per_year",
                        l.part.sku, price
                    )
                }));
            }
            (price, placeholder)
        }
    };
    // The request's value, else the catalog's operating figure.
    macro_rules! given_or_catalog {
        ($field:ident) => {
            e.$field.map(|v| v.get()).unwrap_or(ops.$field.value)
        };
    }
    let economics = Economics {
        years: e.years.unwrap_or_default().get(),
        discount_rate: given_or_catalog!(discount_rate),
        electricity_usd_per_kwh: electricity,
        pue,
        support_rate: given_or_catalog!(support_rate),
        network_engineer_usd_per_year: given_or_catalog!(network_engineer_usd_per_year),
        ib_specialist_usd_per_year: given_or_catalog!(ib_specialist_usd_per_year),
        gpus_per_network_fte: given_or_catalog!(gpus_per_network_fte),
        gpus_per_ib_specialist: given_or_catalog!(gpus_per_ib_specialist),
        ufm_usd_per_endpoint_per_year: e.ufm_usd_per_endpoint_per_year.map(UsdPerEndpointYear::get),
        ethernet_nos_usd_per_switch_per_year: nos,
        spares_rate: given_or_catalog!(spares_rate),
        gpu_hour_usd,
        busy_fraction,
    };
    // Catalog operating figures that are placeholders (grade P), where the plan counts them:
    // said as a placeholder part price is, where a fabric the plan builds counts them (audit
    // 26 F6: the InfiniBand specialist ratio made $1.25M of a $2.77M gap without a word). By
    // value, not by whether the request gave it: the echoed inputs, posted back, give the
    // figure and must give the same plan. The sentences are written once a catalog
    // (`Catalog::notes`): formatting them in every plan was 3.6 % of a figures plan.
    let notes = catalog.notes.get_or_init(|| placeholder_notes(ops));
    for (i, value, scope, text) in notes {
        if PLACEHOLDER_FIGURES.get(*i).map(|f| (f.used)(&economics)) == Some(*value) {
            fabric_notes.push((*scope, text.clone()));
        }
    }

    let prices = req.prices.clone().unwrap_or_default();
    let overrides = prices.overrides.clone().unwrap_or_default();
    for sku in overrides.keys() {
        let known = catalog.switch(sku).is_some()
            || catalog.nic(sku).is_some()
            || catalog.transceiver(sku).is_some()
            || catalog.cable(sku).is_some()
            || catalog.license(sku).is_some();
        let at = || {
            format!(
                "/prices/overrides/{}",
                crate::error_code::escape_pointer(sku)
            )
        };
        if !known {
            return Err(PlanError::field(
                &at(),
                ErrorCode::UnknownSku,
                format!("no SKU '{sku}' in catalog '{}'", catalog.id()),
            ));
        }
        // A yearly subscription is no BOM line: an override would be echoed and change
        // nothing. Its price is an economics input.
        use crate::catalog::LicenseBasis;
        let yearly = match catalog.license(sku).map(|l| l.basis) {
            Some(LicenseBasis::PerEndpointPerYear) => {
                Some("per endpoint per year: set economics.ufm_usd_per_endpoint_per_year")
            }
            Some(LicenseBasis::PerSwitchPerYear) => {
                Some("per switch per year: set economics.ethernet_nos_usd_per_switch_per_year")
            }
            Some(LicenseBasis::PerSwitch) | None => None,
        };
        if let Some(priced) = yearly {
            return Err(PlanError::field(
                &at(),
                ErrorCode::NotOverridable,
                format!(
                    "'{sku}' is a yearly subscription, not a part an override prices; it is priced {priced}"
                ),
            ));
        }
    }
    let discounts = prices.discounts.clone().unwrap_or_default();
    // A discount for a vendor no part has would change nothing: say so rather than echo it.
    if let Some(given) = discounts.vendor.as_ref().filter(|m| !m.is_empty()) {
        let vendors = catalog.vendors();
        if let Some(vendor) = given.keys().find(|k| !vendors.contains(&k.as_str())) {
            return Err(PlanError::field(
                &format!(
                    "/prices/discounts/vendor/{}",
                    crate::error_code::escape_pointer(vendor)
                ),
                ErrorCode::UnknownValue,
                unknown_vendor(&catalog, vendor),
            ));
        }
    }
    let adjustments = PriceAdjustments {
        overrides: overrides
            .iter()
            .map(|(k, v)| (k.clone(), v.get()))
            .collect(),
        vendor_discounts: discounts
            .vendor
            .iter()
            .flatten()
            .map(|(k, v)| (k.clone(), v.get()))
            .collect(),
        category_discounts: discounts
            .category
            .iter()
            .flatten()
            .map(|(k, v)| (*k, v.get()))
            .collect(),
    };

    topology::warn_in_network_reduction(&topology, &fabrics, &mut warnings);

    let normalized = PlanRequest {
        gpus: Gpus::echo(gpus),
        gpu_model: Some(gpu.id.clone()),
        gpus_per_node: Some(GpusPerNode::echo(gpus_per_node)),
        nics_per_node: Some(NicsPerNode::echo(nics_per_node)),
        nic_speed_gbps: Some(NicSpeedGbps::echo(nic_speed_gbps)),
        fabrics: Some(fabrics.clone()),
        catalog: Some(catalog.id().to_string()),
        topology: Some(topology::echo(
            &topology,
            &catalog,
            &fabrics,
            nic_speed_gbps,
        )),
        workload: Some(workload::echo(&job)),
        reliability: Some(ReliabilityRequest {
            nic_failures_per_year: Some(FailuresPerPartYear::echo(
                reliability.nic_failures_per_year,
            )),
            switch_failures_per_year: Some(FailuresPerPartYear::echo(
                reliability.switch_failures_per_year,
            )),
            transceiver_failures_per_year: Some(FailuresPerPartYear::echo(
                reliability.transceiver_failures_per_year,
            )),
            cable_failures_per_year: Some(FailuresPerPartYear::echo(
                reliability.cable_failures_per_year,
            )),
            checkpoint_interval_minutes: Some(Minutes::echo(
                reliability.checkpoint_interval_minutes,
            )),
            restart_minutes: Some(Minutes::echo(reliability.restart_minutes)),
        }),
        utilization: Some(UtilizationRequest {
            busy_fraction: Some(Fraction::echo(busy_fraction)),
        }),
        economics: Some(EconomicsRequest {
            years: Some(Years::echo(economics.years)),
            discount_rate: Some(Fraction::echo(economics.discount_rate)),
            electricity_usd_per_kwh: Some(ElectricityUsdPerKwh::echo(
                economics.electricity_usd_per_kwh,
            )),
            pue: Some(Pue::echo(economics.pue)),
            support_rate: Some(Fraction::echo(economics.support_rate)),
            network_engineer_usd_per_year: Some(SalaryUsdPerYear::echo(
                economics.network_engineer_usd_per_year,
            )),
            ib_specialist_usd_per_year: Some(SalaryUsdPerYear::echo(
                economics.ib_specialist_usd_per_year,
            )),
            gpus_per_network_fte: Some(GpusPerFte::echo(economics.gpus_per_network_fte)),
            gpus_per_ib_specialist: Some(GpusPerFte::echo(economics.gpus_per_ib_specialist)),
            spares_rate: Some(Fraction::echo(economics.spares_rate)),
            // No value when none could be derived: the $0 it is counted at is not an input
            // (a given 0 is), so the two requests get different ids, as they get different
            // warnings.
            gpu_hour_usd: priced_gpu_hour.map(|_| GpuHourUsd::echo(economics.gpu_hour_usd)),
            // The basis only derives the default GPU-hour value: echoed when it was used (or
            // given), not invented when the user set the value itself.
            gpu_hour_basis: (e.gpu_hour_usd.is_none() || e.gpu_hour_basis.is_some())
                .then_some(gpu_hour_basis),
            ufm_usd_per_endpoint_per_year: economics
                .ufm_usd_per_endpoint_per_year
                .map(UsdPerEndpointYear::echo),
            // Like the GPU-hour value: a placeholder price is not an input (a given one is),
            // so the two requests get different ids, as they get different warnings.
            ethernet_nos_usd_per_switch_per_year: (!nos_placeholder)
                .then(|| UsdPerSwitchYear::echo(economics.ethernet_nos_usd_per_switch_per_year)),
        }),
        prices: Some(PricesRequest {
            overrides: Some(
                overrides
                    .into_iter()
                    .map(|(k, v)| (k, UnitPriceUsd::echo(v.get())))
                    .collect(),
            ),
            discounts: Some(DiscountsRequest {
                vendor: Some(
                    adjustments
                        .vendor_discounts
                        .iter()
                        .map(|(k, v)| (k.clone(), Discount::echo(*v)))
                        .collect(),
                ),
                category: Some(
                    adjustments
                        .category_discounts
                        .iter()
                        .map(|(k, v)| (*k, Discount::echo(*v)))
                        .collect(),
                ),
            }),
        }),
        uncertainty: req.uncertainty.as_ref().map(|u| UncertaintyRequest {
            samples: Some(u.samples.unwrap_or_default()),
            seed: Some(u.seed.unwrap_or_default()),
            catalog_price_ranges: Some(u.catalog_price_ranges.unwrap_or(true)),
            inputs: Some(u.inputs.clone().unwrap_or_default()),
        }),
    };

    Ok(Resolved {
        catalog,
        gpu,
        gpus,
        gpus_per_node,
        nvlink_domain_gpus: domain_gpus,
        nics_per_node,
        nic_speed_gbps,
        nic_on_board,
        fabrics,
        oversubscription: topology.oversubscription,
        rail_optimized: topology.rail_optimized,
        planes: topology.planes,
        max_tiers: topology.max_tiers,
        design: topology.design,
        nodes_per_rack: topology.nodes_per_rack,
        switch_sku: topology.switch_sku,
        in_network_reduction: topology.in_network_reduction,
        roce_tuning: topology.roce_tuning,
        cabling: topology.cabling,
        workload: job.workload,
        reliability,
        economics,
        gpu_hour_basis,
        adjustments,
        warnings,
        fabric_notes,
        normalized,
    })
}

/// A catalog operating figure a plan counts, which the catalog may grade placeholder.
struct CountedFigure {
    figure: fn(&crate::catalog::Operations) -> &crate::catalog::Figure,
    /// The value the plan uses (the request's, else the catalog's).
    used: fn(&Economics) -> Decimal,
    /// The request input that sets it.
    input: &'static str,
    scope: NoteScope,
    counted_by: &'static str,
}

/// One [`CountedFigure`]: `section.field` is the request input and names the field of
/// [`crate::catalog::Operations`] and of [`Economics`] alike.
macro_rules! counted {
    ($section:ident . $field:ident, $scope:ident, $counted_by:literal) => {
        CountedFigure {
            figure: |o| &o.$field,
            used: |e| e.$field,
            input: concat!(stringify!($section), ".", stringify!($field)),
            scope: NoteScope::$scope,
            counted_by: $counted_by,
        }
    };
}

/// The operating figures whose placeholders a plan says, one table for the catalog's side and
/// the plan's ([`placeholder_notes`] indexes it).
const PLACEHOLDER_FIGURES: [CountedFigure; 4] = [
    counted!(economics.discount_rate, Any, "the TCO's present value"),
    counted!(economics.spares_rate, Any, "opex"),
    counted!(utilization.busy_fraction, Any, "GPU-idle cost"),
    counted!(
        economics.gpus_per_ib_specialist,
        Infiniband,
        "InfiniBand staff opex"
    ),
];

/// The catalog's [`PLACEHOLDER_FIGURES`] graded placeholder, each as (its index, the catalog's
/// value, the fabrics it concerns, the sentence said when a plan uses that value).
fn placeholder_notes(ops: &crate::catalog::Operations) -> Vec<(usize, Decimal, NoteScope, String)> {
    PLACEHOLDER_FIGURES
        .iter()
        .enumerate()
        .map(|(i, c)| (i, (c.figure)(ops), c))
        .filter(|(_, figure, _)| figure.provenance.is_placeholder())
        .map(|(i, figure, c)| {
            let (input, scope, counted_by) = (c.input, c.scope, c.counted_by);
            (
                i,
                figure.value,
                scope,
                format!(
                    "{}{input}: {} ({}) is the catalog's placeholder figure (grade P, no public source) — {counted_by} counts it; set your own {input}",
                    scope.prefix(),
                    figure.value.normalize(),
                    figure.unit
                ),
            )
        })
        .collect()
}

/// The default value of a GPU-hour from the catalog's GPU entry; `None` (with a warning) when
/// the entry has no price for the basis.
fn default_gpu_hour(
    gpu: &Gpu,
    basis: GpuHourBasis,
    ops: &crate::catalog::Operations,
    pue: Decimal,
    electricity: Decimal,
    warnings: &mut Vec<String>,
) -> Result<Option<Decimal>, PlanError> {
    match basis {
        GpuHourBasis::Rental => match gpu.rental_usd_per_hour {
            Some(r) => Ok(Some(r)),
            None => {
                warnings.push(format!(
                    "GPU '{}' has no rental price in the catalog: GPU-idle cost is counted at $0; set economics.gpu_hour_usd",
                    gpu.id
                ));
                Ok(None)
            }
        },
        GpuHourBasis::Owned => match (gpu.purchase_usd, gpu.server_share_usd) {
            (Some(p), Some(s)) => {
                let years =
                    rust_decimal::prelude::ToPrimitive::to_u32(&ops.depreciation_years.value)
                        .unwrap_or(5);
                crate::cost::owned_gpu_hour_usd(p, s, years, gpu.power_w, pue, electricity)
                    .map(Some)
                    .map_err(PlanError::from)
            }
            _ => {
                warnings.push(format!(
                    "GPU '{}' has no purchase price in the catalog: GPU-idle cost is counted at $0; set economics.gpu_hour_usd",
                    gpu.id
                ));
                Ok(None)
            }
        },
    }
}

/// The NIC a fabric's profile picks for `nic_speed_gbps`, if any.
pub fn nic_for(
    catalog: &crate::catalog::Catalog,
    fabric: Fabric,
    nic_speed_gbps: u32,
) -> Option<&crate::catalog::Nic> {
    let profile = catalog.profile(fabric)?;
    let sku = profile
        .nic_by_speed
        .get(super::DecimalText::new(nic_speed_gbps).as_str())?;
    catalog.nic(sku)
}

/// Why `vendor` takes no discount: no part of `catalog` comes from it (names are matched as
/// written, case included), and the vendors that do.
pub fn unknown_vendor(catalog: &crate::catalog::Catalog, vendor: &str) -> String {
    format!(
        "no part in catalog '{}' comes from vendor '{vendor}' (names are matched exactly, case included); its vendors: {}",
        catalog.id(),
        catalog.vendors().join(", ")
    )
}

/// How many of the groups in the blocks of `span` GPUs that tile `used` GPUs from GPU 0 cross a
/// boundary of the `domain`-GPU NVLink domains, in words ("7 of 64 groups straddle two
/// domains"). A block holds `per_block` groups, interleaved (the expert groups of a block of
/// EP × TP·CP GPUs: group j has the block's GPUs j, j + TP·CP, …). A group whose GPUs span more
/// than a domain always straddles; otherwise it crosses at most one boundary, and a boundary
/// `off` GPUs into a block is crossed by the groups that have GPUs on both sides of it. With
/// one group a block (tensor parallelism) those are the boundaries inside the job that are not
/// block edges (multiples of lcm(span, domain)).
pub fn straddle_words(span: u64, per_block: u64, domain: u64, used: u64) -> String {
    let per_block = per_block.max(1);
    let blocks = used.checked_div(span).unwrap_or(0);
    let groups = blocks.saturating_mul(per_block);
    // GPUs from a group's first to its last.
    let extent = span.saturating_sub(per_block).saturating_add(1);
    let last = used.saturating_sub(1);
    let straddling = if extent > domain {
        groups
    } else if per_block == 1 {
        let g = u64::try_from(crate::arith::gcd(u128::from(span), u128::from(domain))).unwrap_or(1);
        let lcm = span
            .checked_div(g)
            .and_then(|s| s.checked_mul(domain))
            .unwrap_or(u64::MAX);
        (last.checked_div(domain).unwrap_or(0))
            .saturating_sub(last.checked_div(lcm).unwrap_or(0))
            .min(blocks)
    } else {
        // At most one boundary a group: count the groups each boundary inside the job cuts
        // (a boundary `off` GPUs into its block cuts groups j with j < off ≤ j + extent − 1).
        let boundaries = last.checked_div(domain).unwrap_or(0);
        (1..=boundaries)
            .map(|m| {
                let off = (m * domain) % span.max(1);
                off.min(per_block)
                    .saturating_sub(off.saturating_sub(extent.saturating_sub(1)))
            })
            .sum::<u64>()
            .min(groups)
    };
    let domains = if extent > domain {
        format!("{} or more domains", extent.div_ceil(domain))
    } else {
        "two domains".to_string()
    };
    match (straddling, groups) {
        (s, g) if s == g => format!("all {g} groups straddle {domains}"),
        (1, g) => format!("1 of {g} groups straddles {domains}"),
        (s, g) => format!("{s} of {g} groups straddle {domains}"),
    }
}

#[cfg(test)]
mod tests {
    use super::straddle_words;

    /// The straddle count against a brute force: every group of every block, its GPUs listed,
    /// straddling when they lie in more than one domain.
    #[test]
    fn straddling_groups_are_counted_one_by_one() {
        for domain in [8u64, 36, 72] {
            for stride in [1u64, 2, 3, 4, 8, 16] {
                for ep in [2u64, 3, 4, 5, 9, 16] {
                    let span = ep * stride;
                    for used in [span * 4, span * 37, span * 64] {
                        let mut straddling = 0;
                        for b in 0..used / span {
                            for j in 0..stride {
                                let gpus = (0..ep).map(|k| b * span + j + k * stride);
                                let first = gpus.clone().min().unwrap_or(0) / domain;
                                if gpus.map(|g| g / domain).any(|d| d != first) {
                                    straddling += 1;
                                }
                            }
                        }
                        let groups = used / span * stride;
                        let words = straddle_words(span, stride, domain, used);
                        let want_all = straddling == groups;
                        let said = if want_all {
                            words.starts_with(&format!("all {groups} groups"))
                        } else {
                            words.starts_with(&format!("{straddling} of {groups} group"))
                        };
                        assert!(
                            said,
                            "EP {ep} × stride {stride} on {used} GPUs, domain {domain}: {straddling} of {groups}, said {words}"
                        );
                    }
                }
            }
        }
    }
}
