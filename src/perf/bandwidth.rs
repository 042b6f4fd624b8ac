//! Per-NIC effective bandwidth: line rate × protocol header efficiency, capped by PCIe.

use super::constants::{
    BITS_PER_BYTE, IB_HEADER_BYTES, PCIE_REFERENCE_LANES, PCIE_X16_GBYTES_PER_S, RDMA_MTU_BYTES,
    ROCE_HEADER_BYTES,
};
use crate::fabric::Fabric;

/// Payload share of the wire for full-MTU packets: MTU / (MTU + header bytes).
pub fn header_efficiency(fabric: Fabric) -> f64 {
    let header = match fabric {
        Fabric::Infiniband => IB_HEADER_BYTES,
        Fabric::Roce | Fabric::RoceAdaptive => ROCE_HEADER_BYTES,
    };
    RDMA_MTU_BYTES / (RDMA_MTU_BYTES + header)
}

/// A PCIe x16 link's bandwidth as NCCL counts it, GB/s (a GPU's own host link).
pub fn pcie_x16_gbytes_per_s(pcie_gen: u8) -> f64 {
    let idx = usize::from(pcie_gen.clamp(3, 6)) - 3;
    PCIE_X16_GBYTES_PER_S.get(idx).copied().unwrap_or(0.0)
}

/// GPU↔NIC PCIe bandwidth as NCCL counts it, GB/s (x16 table scaled by lanes).
pub fn pcie_gbytes_per_s(pcie_gen: u8, pcie_lanes: u8) -> f64 {
    pcie_x16_gbytes_per_s(pcie_gen) * f64::from(pcie_lanes) / PCIE_REFERENCE_LANES
}

/// Effective NIC bandwidth, GB/s: min(speed/8 × header efficiency, PCIe).
pub fn nic_effective_gbytes_per_s(
    fabric: Fabric,
    speed_gbps: u32,
    pcie_gen: u8,
    pcie_lanes: u8,
) -> f64 {
    let wire = f64::from(speed_gbps) / BITS_PER_BYTE * header_efficiency(fabric);
    wire.min(pcie_gbytes_per_s(pcie_gen, pcie_lanes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_efficiency_by_hand() {
        // 4096 / 4122 and 4096 / 4178
        assert!((header_efficiency(Fabric::Infiniband) - 0.993_692).abs() < 1e-6);
        assert!((header_efficiency(Fabric::Roce) - 0.980_373).abs() < 1e-6);
        assert!(header_efficiency(Fabric::Infiniband) > header_efficiency(Fabric::Roce));
    }

    #[test]
    fn nic_ceilings_match_published_figures() {
        // 200G HDR on Gen4 x16: PCIe-bound at 24 GB/s (nccl-tests#119: "24GB/s ... per 200G NIC").
        assert_eq!(
            nic_effective_gbytes_per_s(Fabric::Infiniband, 200, 4, 16),
            24.0
        );
        // 400G NDR on Gen5 x16: 48 GB/s (nccl-tests#290: 46-48 GB/s).
        assert_eq!(
            nic_effective_gbytes_per_s(Fabric::Infiniband, 400, 5, 16),
            48.0
        );
        // 100G: wire-bound 12.5 × 0.9937 = 12.42 GB/s (nccl-tests#119: "12 GB/s for 100G").
        let v = nic_effective_gbytes_per_s(Fabric::Infiniband, 100, 4, 16);
        assert!((v - 12.421).abs() < 1e-3, "{v}");
        // RoCE 100G: 12.5 × 0.98037 = 12.255
        let r = nic_effective_gbytes_per_s(Fabric::Roce, 100, 4, 16);
        assert!((r - 12.2547).abs() < 1e-3, "{r}");
        // x8 halves PCIe.
        assert_eq!(pcie_gbytes_per_s(4, 8), 12.0);
    }
}
