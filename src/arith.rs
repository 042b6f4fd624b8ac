//! Integer arithmetic the models share.

/// Greatest common divisor (Euclid); `gcd(a, 0) = a`.
pub fn gcd(mut a: u128, mut b: u128) -> u128 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
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
}
