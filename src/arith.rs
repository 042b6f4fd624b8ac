//! Integer arithmetic the models share.

/// Greatest common divisor (Euclid); `gcd(a, 0) = a`.
pub fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// The divisors of `n` from `from` up, in order, none above 4,096 (lists said in messages).
pub fn divisors(n: u64, from: u64) -> impl Iterator<Item = u64> {
    (from.max(1)..=n.min(4096)).filter(move |d| n.is_multiple_of(*d))
}

#[cfg(test)]
mod tests {
    #[test]
    fn gcd_by_hand() {
        assert_eq!(super::gcd(64, 72), 8);
        assert_eq!(super::gcd(72, 36), 36);
        assert_eq!(super::gcd(7, 0), 7);
        assert_eq!(super::gcd(0, 0), 0);
    }

    #[test]
    fn divisors_by_hand() {
        assert_eq!(
            super::divisors(72, 2).collect::<Vec<_>>(),
            [2, 3, 4, 6, 8, 9, 12, 18, 24, 36, 72]
        );
        assert_eq!(super::divisors(1, 1).collect::<Vec<_>>(), [1]);
    }
}
