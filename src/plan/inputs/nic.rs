//! The NICs a plan buys: the server's own, or add-in cards, and why.

use crate::catalog::Catalog;
use crate::fabric::Fabric;

use super::hardware::Hardware;

/// The server's own NICs (HGX B300, GB300: on its board, bought with it): used at their
/// speed when the server has one for each NIC asked (its SKU); else (`None`) add-in cards are
/// bought, and the plan says why.
pub(super) fn on_board(
    catalog: &Catalog,
    hw: &Hardware,
    warnings: &mut Vec<String>,
) -> Option<String> {
    let (gpu, nic_speed_gbps) = (&hw.gpu, hw.nic_speed_gbps);
    let (nics_per_node, gpus_per_node) = (hw.nics_per_node, hw.gpus_per_node);
    let own_nic = gpu.nic_on_board.as_deref().and_then(|sku| catalog.nic(sku));
    let own_nics_suffice = nics_per_node <= gpu.gpus_per_node;
    let nic_on_board = own_nic
        .filter(|n| n.speed_gbps == nic_speed_gbps && own_nics_suffice)
        .map(|n| n.part.sku.to_string());
    // Asked for another speed (B300 at 400G would buy ConnectX-7 cards beside its ConnectX-8s).
    if let Some(own) = own_nic.filter(|n| n.speed_gbps != nic_speed_gbps) {
        warnings.push(format!(
            "nic_speed_gbps: {nic_speed_gbps} Gb/s NICs are bought as add-in cards; the {} server's own {} ({} Gb/s, included with it) are not used",
            gpu.id, own.part.sku, own.speed_gbps
        ));
    }
    // More NICs than GPUs a server: each GPU reaches its NICs over its own PCIe x16 link, so
    // the extra ones add no bandwidth (the model caps it), though they are bought and cabled.
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
    nic_on_board
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
        .get(crate::words::DecimalText::new(nic_speed_gbps).as_str())?;
    catalog.nic(sku)
}
