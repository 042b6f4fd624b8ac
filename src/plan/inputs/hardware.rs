//! The catalog, the GPU and its servers, the NICs and the fabrics a request asks for.

use std::sync::Arc;

use crate::catalog::{Catalog, CatalogSet, Gpu};
use crate::error_code::ErrorCode;
use crate::fabric::Fabric;
use crate::plan::error::PlanError;
use crate::plan::request::*;

use super::{DEFAULT_GPU_MODEL, DEFAULT_NIC_SPEED_GBPS};

/// The GPUs, servers, NICs and fabrics of one plan.
pub(super) struct Hardware {
    pub gpu: Gpu,
    pub gpus: u32,
    pub gpus_per_node: u32,
    /// GPUs in one NVLink domain ([`nvlink_domain_gpus`]).
    pub domain_gpus: u32,
    pub nics_per_node: u32,
    pub nic_speed_gbps: u32,
    pub fabrics: Vec<Fabric>,
}

/// The catalog the request names, else the newest loaded.
pub(super) fn catalog(req: &PlanRequest, catalogs: &CatalogSet) -> Result<Arc<Catalog>, PlanError> {
    Ok(match &req.catalog {
        None => Arc::clone(catalogs.newest()),
        Some(reference) => Arc::clone(catalogs.resolve(reference).ok_or_else(|| {
            let known: Vec<&str> = catalogs.all().iter().map(|c| c.id()).collect();
            let detail = match crate::catalog::split_reference(reference) {
                (id, Some(pin)) if catalogs.get(id).is_some() => format!(
                    "catalog '{id}' has no version {pin}; GET /v1/catalogs/{id}/versions lists them"
                ),
                (id, _) => format!("no catalog '{id}'; loaded: {}", known.join(", ")),
            };
            PlanError::field("/catalog", ErrorCode::UnknownCatalog, detail)
        })?),
    })
}

/// The GPU, its servers and their NICs, and the fabrics, defaults filled in.
pub(super) fn resolve(req: &PlanRequest, catalog: &Catalog) -> Result<Hardware, PlanError> {
    let gpu = gpu(req, catalog)?;
    let gpus = req.gpus.get();
    let gpus_per_node = gpus_per_node(req, &gpu)?;
    let nics_per_node = req
        .nics_per_node
        .map(NicsPerNode::get)
        .unwrap_or(gpus_per_node);
    // Default NIC speed: the NIC the request names, else the GPU's reference system (B300 and
    // GB300 NVL72: ConnectX-8 800G).
    let named_nic = req
        .topology
        .as_ref()
        .and_then(|t| t.nic_sku.as_deref())
        .and_then(|sku| catalog.nic(sku));
    let nic_speed_gbps = req
        .nic_speed_gbps
        .map(NicSpeedGbps::get)
        .unwrap_or(match named_nic {
            Some(n) => n.speed_gbps,
            None if gpu.nic_speed_gbps > 0 => gpu.nic_speed_gbps,
            None => DEFAULT_NIC_SPEED_GBPS,
        });
    let fabrics = req.fabrics.clone().unwrap_or_else(|| Fabric::ALL.to_vec());
    let trays = req
        .topology
        .as_ref()
        .and_then(|t| t.nvlink_domain)
        .is_some_and(|d| d == NvlinkDomain::Tray);
    Ok(Hardware {
        // `tray`: each server (an NVL72 compute tray) is its own NVLink domain.
        domain_gpus: if trays {
            gpus_per_node
        } else {
            nvlink_domain_gpus(&gpu, gpus_per_node)
        },
        gpu,
        gpus,
        gpus_per_node,
        nics_per_node,
        nic_speed_gbps,
        fabrics,
    })
}

/// The GPU the request names, else [`DEFAULT_GPU_MODEL`], from the catalog.
fn gpu(req: &PlanRequest, catalog: &Catalog) -> Result<Gpu, PlanError> {
    let gpu_id = req
        .gpu_model
        .clone()
        .unwrap_or_else(|| DEFAULT_GPU_MODEL.to_string());
    catalog.gpu(&gpu_id).cloned().ok_or_else(|| {
        let known: Vec<&str> = catalog.data.gpus.iter().map(|g| g.id.as_str()).collect();
        PlanError::field(
            "/gpu_model",
            ErrorCode::UnknownGpuModel,
            format!(
                "no GPU '{gpu_id}' in catalog '{}'; known: {}",
                catalog.id(),
                known.join(", ")
            ),
        )
    })
}

/// GPUs a server: the request's, else the GPU's server.
fn gpus_per_node(req: &PlanRequest, gpu: &Gpu) -> Result<u32, PlanError> {
    let gpus_per_node = req
        .gpus_per_node
        .map(GpusPerNode::get)
        .unwrap_or(gpu.gpus_per_node);
    // A server whose NVLink domain is its own board holds at most the board's GPUs: more would be
    // several NVLink domains in one server, which the model would time as one (16 H100 "a
    // server" were timed as a 16-GPU NVLink domain, which no HGX H100 has; 16 B300 bought 16
    // add-in ConnectX-8s beside the boards' own, without a word).
    if gpu.nvlink_domain_gpus <= gpu.gpus_per_node && gpus_per_node > gpu.gpus_per_node {
        return Err(PlanError::field(
            "/gpus_per_node",
            ErrorCode::Range,
            format!(
                "{gpus_per_node} GPUs a server exceed the {} GPUs of one {} server, one NVLink domain (more would be several domains in one server, which the model does not time); set gpus_per_node to at most {}",
                gpu.gpus_per_node, gpu.id, gpu.gpus_per_node
            ),
        ));
    }
    Ok(gpus_per_node)
}

/// GPUs in one NVLink domain of servers with `gpus_per_node` GPUs: the catalog's domain when it
/// spans servers (multi-node NVLink, GB200/GB300 NVL72: 72 GPUs over 4-GPU trays), else the
/// server as asked (an H100 in 4-GPU servers has a 4-GPU domain, not the HGX board's 8).
pub fn nvlink_domain_gpus(gpu: &crate::catalog::Gpu, gpus_per_node: u32) -> u32 {
    if gpu.nvlink_domain_gpus > gpu.gpus_per_node {
        gpu.nvlink_domain_gpus.max(gpus_per_node)
    } else {
        gpus_per_node
    }
}
