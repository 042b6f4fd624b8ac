//! Network faults as GPU idle time: a failure of a NIC, switch, transceiver or cable interrupts
//! the job (on one plane; with two or more planes only a part carrying all of a GPU's planes
//! does, see [`interruptions_per_year`]); each interruption loses the work since the last
//! checkpoint (half the interval on average) plus the restart, on every GPU of the job. Pure
//! arithmetic over plain data; sources of the default rates in docs/cost.md#failures.

/// Yearly job-interrupting failure rates per part, and what one interruption costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reliability {
    /// Failures per NIC per year.
    pub nic_failures_per_year: f64,
    /// Failures per switch per year.
    pub switch_failures_per_year: f64,
    /// Failures per transceiver per year.
    pub transceiver_failures_per_year: f64,
    /// Failures per cable per year.
    pub cable_failures_per_year: f64,
    /// Minutes between checkpoints.
    pub checkpoint_interval_minutes: f64,
    /// Minutes from interruption to training again.
    pub restart_minutes: f64,
}

/// Llama 3 paper (Meta 2024, §3.3.4, Table 5): 419 unexpected interruptions in 54 days on
/// 16,384 H100; 7 attributed to NICs (one 400G NIC per GPU): 7 / 16,384 / (54/365) per NIC-year.
pub const DEFAULT_NIC_FAILURES_PER_YEAR: f64 = 0.00289;
/// Same table: 35 interruptions from "network switch/cable" in 54 days = 236.6 per year. The
/// paper does not split switches, optics and cables, so the rate is spread equally over the
/// parts of a non-blocking three-tier 400G fabric for 16,384 GPUs built from 64-port switches,
/// counted as this crate's bill of materials counts them (the default InfiniBand plan for
/// 16,384 H100: 1,280 switches, 57,344 modules — a twin-port switch module is one part serving
/// two links — and 49,152 fibres: 107,776 parts): 236.6 / 107,776 per part-year, so that plan
/// reproduces the paper's rate (tested). Until 2026-11-25 the parts were counted per link end
/// (98,304 transceivers, 148,736 parts: 0.00159), which gave 72 % of the paper's rate on the
/// very cluster it came from. An estimate (equal per-part split is an assumption), not a
/// measured AFR.
pub const DEFAULT_NETWORK_PART_FAILURES_PER_YEAR: f64 = 0.00220;
/// Default checkpoint interval, minutes (assumption: 30 minutes, the order Meta reports for
/// large jobs; set your own).
pub const DEFAULT_CHECKPOINT_INTERVAL_MINUTES: f64 = 30.0;
/// Default restart, minutes (assumption: detect, cordon and reload a checkpoint in 15 minutes).
pub const DEFAULT_RESTART_MINUTES: f64 = 15.0;

impl Default for Reliability {
    fn default() -> Self {
        Reliability {
            nic_failures_per_year: DEFAULT_NIC_FAILURES_PER_YEAR,
            switch_failures_per_year: DEFAULT_NETWORK_PART_FAILURES_PER_YEAR,
            transceiver_failures_per_year: DEFAULT_NETWORK_PART_FAILURES_PER_YEAR,
            cable_failures_per_year: DEFAULT_NETWORK_PART_FAILURES_PER_YEAR,
            checkpoint_interval_minutes: DEFAULT_CHECKPOINT_INTERVAL_MINUTES,
            restart_minutes: DEFAULT_RESTART_MINUTES,
        }
    }
}

/// Parts of a fabric that can fail, from its bill of materials.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PartCounts {
    /// NICs.
    pub nics: u64,
    /// Switches.
    pub switches: u64,
    /// Transceivers (optical modules).
    pub transceivers: u64,
    /// Cables (fibre or copper).
    pub cables: u64,
    /// Independent fabric planes (1 or more).
    pub planes: u32,
    /// Of `transceivers`, the NIC-side modules that carry every plane of their NIC (one
    /// twin-port module in a ConnectX-8's cage for two 400G planes): their failure takes all of
    /// a GPU's planes, like the NIC's.
    pub all_plane_modules: u64,
}

/// Expected job interruptions per year from the fabric's parts while the cluster is busy.
///
/// With two or more planes a switch, transceiver or cable serves one plane: its failure leaves
/// every NIC a path on the other planes and the job runs on at reduced bandwidth until the part
/// is replaced (NVIDIA DGX SuperPOD B300 RA, Network Fabrics: in the twin-planar fabric "a
/// single switch failure, transceiver failure or cable failure will not lead to a catastrophic
/// job abortion. Instead, the application can continue to operate on ½ of the original
/// bandwidth"). Only the failure of a part that carries all of a GPU's planes interrupts: the
/// NIC, and a NIC-side module serving every plane of its NIC. The slower steps while a plane is
/// degraded are not priced.
pub fn interruptions_per_year(parts: &PartCounts, r: &Reliability, busy_fraction: f64) -> f64 {
    let plane_local = if parts.planes >= 2 {
        parts.all_plane_modules as f64 * r.transceiver_failures_per_year
    } else {
        parts.switches as f64 * r.switch_failures_per_year
            + parts.transceivers as f64 * r.transceiver_failures_per_year
            + parts.cables as f64 * r.cable_failures_per_year
    };
    let raw = parts.nics as f64 * r.nic_failures_per_year + plane_local;
    raw * busy_fraction.clamp(0.0, 1.0)
}

/// GPU-hours lost per year: interruptions × (checkpoint/2 + restart) × job GPUs.
pub fn failure_gpu_hours_per_year(
    parts: &PartCounts,
    r: &Reliability,
    gpus: u32,
    busy_fraction: f64,
) -> f64 {
    let lost_hours = (r.checkpoint_interval_minutes / 2.0 + r.restart_minutes) / 60.0;
    let v = interruptions_per_year(parts, r, busy_fraction) * lost_hours * f64::from(gpus);
    // A job cannot lose more than the hours it runs: with absurd rates the line saturates at
    // every busy GPU-hour of the year instead of exceeding it.
    let busy_hours =
        f64::from(gpus) * f64::from(super::money::HOURS_PER_YEAR) * busy_fraction.clamp(0.0, 1.0);
    if v.is_finite() {
        v.clamp(0.0, busy_hours)
    } else {
        busy_hours
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_hand_and_zero_rates() {
        let parts = PartCounts {
            nics: 1024,
            switches: 48,
            transceivers: 4096,
            cables: 2048,
            planes: 1,
            all_plane_modules: 0,
        };
        let r = Reliability::default();
        // (1024·0.00289 + (48 + 4096 + 2048)·0.00220) = 16.58 interruptions/year at busy 1;
        // × (15 + 15)/60 h × 1024 GPUs = 8,487 GPU-hours.
        let h = failure_gpu_hours_per_year(&parts, &r, 1024, 1.0);
        let want = (1024.0 * 0.00289 + 6192.0 * 0.00220) * 0.5 * 1024.0;
        assert!((h - want).abs() < 1e-6, "{h} vs {want}");
        let zero = Reliability {
            nic_failures_per_year: 0.0,
            switch_failures_per_year: 0.0,
            transceiver_failures_per_year: 0.0,
            cable_failures_per_year: 0.0,
            ..r
        };
        assert_eq!(failure_gpu_hours_per_year(&parts, &zero, 1024, 1.0), 0.0);
        // Absurd rates saturate at every busy GPU-hour of the year.
        let absurd = Reliability {
            nic_failures_per_year: 10.0,
            checkpoint_interval_minutes: 10080.0,
            ..r
        };
        assert_eq!(
            failure_gpu_hours_per_year(&parts, &absurd, 1024, 0.5),
            1024.0 * 8760.0 * 0.5
        );
        // More transceivers, more lost hours.
        let more = PartCounts {
            transceivers: 8192,
            ..parts
        };
        assert!(failure_gpu_hours_per_year(&more, &r, 1024, 1.0) > h);
        // Two planes: a switch, module or cable leaves the other plane; only NICs interrupt,
        // and NIC-side modules that carry both planes.
        let twin = PartCounts { planes: 2, ..parts };
        let nic_only = 1024.0 * 0.00289 * 0.5 * 1024.0;
        assert!((failure_gpu_hours_per_year(&twin, &r, 1024, 1.0) - nic_only).abs() < 1e-6);
        let shared = PartCounts {
            all_plane_modules: 1024,
            ..twin
        };
        let with_modules = (1024.0 * 0.00289 + 1024.0 * 0.00220) * 0.5 * 1024.0;
        assert!((failure_gpu_hours_per_year(&shared, &r, 1024, 1.0) - with_modules).abs() < 1e-6);
    }
}
