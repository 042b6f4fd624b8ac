//! From a training job to the data-parallel message, buckets, and exposed communication.

use super::constants::{BACKWARD_SHARE, PARAMS_PER_BILLION};

/// Gradient bytes each GPU all-reduces per step: `params / (TP·PP) × bytes_per_gradient`,
/// at least 1 byte.
pub fn gradient_bytes(params_billion: f64, tp: u32, pp: u32, bytes_per_gradient: u32) -> f64 {
    let shards = f64::from(tp.max(1)) * f64::from(pp.max(1));
    (params_billion * PARAMS_PER_BILLION / shards * f64::from(bytes_per_gradient))
        .round()
        .max(1.0)
}

/// Number of DDP buckets for `message_bytes` with buckets of `bucket_bytes` (≥ 1).
pub fn bucket_count(message_bytes: f64, bucket_bytes: f64) -> f64 {
    if bucket_bytes.is_nan() || bucket_bytes <= 0.0 {
        return 1.0;
    }
    (message_bytes / bucket_bytes).ceil().max(1.0)
}

/// Hidden share ρ = 1 − 1/N_buckets.
pub fn hidden_share(buckets: f64) -> f64 {
    if buckets >= 1.0 {
        1.0 - 1.0 / buckets
    } else {
        0.0
    }
}

/// Exposed communication per step, ms:
/// `max(0, T_overlappable − ρ·T_backward) + T_last_bucket`, with T_backward = 2/3 of compute
/// and T_overlappable the first N−1 buckets (the last bucket can never overlap).
pub fn exposed_comm_ms(bucket_ms: f64, buckets: f64, step_compute_ms: f64) -> f64 {
    let rho = hidden_share(buckets);
    let backward_ms = BACKWARD_SHARE * step_compute_ms;
    let overlappable_ms = (buckets - 1.0).max(0.0) * bucket_ms;
    (overlappable_ms - rho * backward_ms).max(0.0) + bucket_ms
}

/// Idle fraction = waiting / step (step = compute + every exposed collective), in [0, 1];
/// 0 for an empty step.
pub fn idle_fraction(waiting_ms: f64, step_ms: f64) -> f64 {
    if step_ms > 0.0 {
        (waiting_ms / step_ms).clamp(0.0, 1.0)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_job_message_by_hand() {
        // 70e9 / 32 × 2 = 4.375e9 bytes
        assert_eq!(gradient_bytes(70.0, 8, 4, 2), 4.375e9);
        assert_eq!(bucket_count(4.375e9, 25e6), 175.0);
        assert_eq!(gradient_bytes(0.001, 4096, 4096, 1), 1.0);
    }

    #[test]
    fn exposure_by_hand() {
        // 10 buckets of 2 ms, compute 30 ms: backward 20, ρ 0.9 → hides 18 of 18 → exposed 2.
        assert!((exposed_comm_ms(2.0, 10.0, 30.0) - 2.0).abs() < 1e-12);
        // compute 15 ms: backward 10, hides 9 of 18 → 9 + 2 = 11.
        assert!((exposed_comm_ms(2.0, 10.0, 15.0) - 11.0).abs() < 1e-12);
        // one bucket: nothing hides.
        assert!((exposed_comm_ms(5.0, 1.0, 100.0) - 5.0).abs() < 1e-12);
        assert!((idle_fraction(11.0, 26.0) - 11.0 / 26.0).abs() < 1e-12);
        assert_eq!(idle_fraction(1.0, 0.0), 0.0);
        assert_eq!(hidden_share(1.0), 0.0);
    }
}
