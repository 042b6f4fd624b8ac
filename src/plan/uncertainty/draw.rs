//! Random draws that are the same on every machine: a counter-based generator (each draw is a
//! pure function of the seed, the input's name and the sample number) and the inverse CDFs of
//! the uniform and triangular distributions.
//!
//! Counter-based, so an input's draws do not depend on which other inputs are uncertain or in
//! what order they are listed: widening one range changes nothing else (common random numbers
//! across fabrics *and* across analyses with the same seed).

use crate::plan::request::DistributionKind;

/// SplitMix64's output function (the "mix13" variant): a bijective 64-bit mixer with full
/// avalanche. Steele, Lea & Flood, "Fast splittable pseudorandom number generators",
/// OOPSLA 2014; constants from D. Stafford, "Better Bit Mixing" (2011), mix13.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// SplitMix64's increment, the golden-ratio constant ⌊2^64 / φ⌋ (Steele et al. 2014).
const GOLDEN_GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// The stream id of an input: FNV-1a (64-bit) of its name, stable across machines and builds.
pub fn stream(name: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// The `k`-th draw of stream `stream` under `seed`: uniform on [0, 1) with 53 random bits.
pub fn uniform(seed: u64, stream: u64, k: u64) -> f64 {
    let z = mix(seed ^ mix(stream.wrapping_add(GOLDEN_GAMMA)))
        .wrapping_add(k.wrapping_add(1).wrapping_mul(GOLDEN_GAMMA));
    (mix(z) >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A distribution over `[low, high]`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Distribution {
    pub kind: DistributionKind,
    pub low: f64,
    /// The most likely value (the midpoint for a uniform range): the value an input holds
    /// while another one moves in the tornado.
    pub mode: f64,
    pub high: f64,
}

impl Distribution {
    /// The value at cumulative probability `u` ∈ [0, 1) (inverse CDF). A zero-width range
    /// gives `low` exactly.
    pub fn quantile(&self, u: f64) -> f64 {
        let (a, c, b) = (self.low, self.mode, self.high);
        let w = b - a;
        if w <= 0.0 {
            return a;
        }
        let x = match self.kind {
            DistributionKind::Uniform => a + u * w,
            DistributionKind::Triangular => {
                let fc = (c - a) / w;
                if u < fc {
                    a + (u * w * (c - a)).sqrt()
                } else {
                    b - ((1.0 - u) * w * (b - c)).sqrt()
                }
            }
        };
        x.clamp(a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn draws_are_uniform_and_reproducible() {
        let s = stream("economics.gpu_hour_usd");
        assert_eq!(uniform(7, s, 0), uniform(7, s, 0));
        assert_ne!(uniform(7, s, 0), uniform(8, s, 0));
        assert_ne!(uniform(7, s, 0), uniform(7, stream("economics.pue"), 0));
        // Moments of 100k draws: mean 1/2, variance 1/12, every decile about 10%.
        let n = 100_000u64;
        let xs: Vec<f64> = (0..n).map(|k| uniform(7, s, k)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        assert!((mean - 0.5).abs() < 0.005, "mean {mean}");
        assert!((var - 1.0 / 12.0).abs() < 0.002, "variance {var}");
        let mut bins = [0u32; 10];
        for x in &xs {
            assert!((0.0..1.0).contains(x));
            bins[(x * 10.0) as usize] += 1;
        }
        for b in bins {
            assert!((9_500..10_500).contains(&b), "decile count {b}");
        }
    }

    #[test]
    fn golden_values_pin_the_generator() {
        // Any change to the generator changes every published analysis: pin it.
        let s = stream("prices.list.nvidia-qm9790");
        assert_eq!(s, stream("prices.list.nvidia-qm9790"));
        let v: Vec<u64> = (0..3).map(|k| (uniform(1, s, k) * 1e12) as u64).collect();
        assert_eq!(v, GOLDEN.to_vec(), "generator changed: {v:?}");
    }
    const GOLDEN: [u64; 3] = [945_170_639_999, 958_236_129_908, 604_356_585_123];

    #[test]
    fn triangular_quantiles() {
        let d = Distribution {
            kind: DistributionKind::Triangular,
            low: 0.0,
            mode: 1.0,
            high: 4.0,
        };
        // CDF at the mode is (c - a) / (b - a) = 1/4.
        assert!((d.quantile(0.25) - 1.0).abs() < 1e-12);
        assert_eq!(d.quantile(0.0), 0.0);
        assert!((d.quantile(0.999_999_999) - 4.0).abs() < 1e-3);
        // Mean of a triangular is (a + b + c) / 3 = 5/3.
        let s = stream("t");
        let n = 100_000u64;
        let mean = (0..n).map(|k| d.quantile(uniform(3, s, k))).sum::<f64>() / n as f64;
        assert!((mean - 5.0 / 3.0).abs() < 0.01, "mean {mean}");
        let zero = Distribution {
            kind: DistributionKind::Triangular,
            low: 2.5,
            mode: 2.5,
            high: 2.5,
        };
        assert_eq!(zero.quantile(0.7), 2.5);
    }
}
