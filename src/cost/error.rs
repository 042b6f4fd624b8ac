//! The one error type of the cost model.

use std::fmt;

/// Why a cost could not be computed. Every variant names the request input to blame, as a
/// dotted path (`economics.electricity_usd_per_kwh`, `prices.overrides`, `gpus`); the API turns
/// it into a 422 whose JSON pointer is [`CostError::pointer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CostError {
    /// A product or sum exceeded the range of `rust_decimal::Decimal` (about 7.9 × 10²⁸). The
    /// named input is the one being applied when it happened (for sums: the input behind the
    /// largest term), i.e. the one to make smaller.
    Overflow {
        /// Dotted path of the input that is too large.
        input: &'static str,
    },
    /// An input outside its allowed range (a negative price, a discount above 1, a NaN idle
    /// fraction, …). The API should reject these in validation already; this is the backstop.
    Invalid {
        /// Dotted path of the offending input.
        input: &'static str,
        /// What the value must satisfy, e.g. "must be between 0 and 1".
        reason: &'static str,
    },
}

impl CostError {
    /// The dotted path of the input to blame.
    pub fn input(&self) -> &'static str {
        match self {
            CostError::Overflow { input } | CostError::Invalid { input, .. } => input,
        }
    }

    /// The input as an RFC 6901 JSON pointer (`economics.years` → `/economics/years`).
    pub fn pointer(&self) -> String {
        let mut p = String::with_capacity(self.input().len() + 1);
        for part in self.input().split('.') {
            p.push('/');
            p.push_str(part);
        }
        p
    }

    /// A stable machine code: `cost_overflow` or `cost_invalid_input`.
    pub fn code(&self) -> crate::error_code::ErrorCode {
        match self {
            CostError::Overflow { .. } => crate::error_code::ErrorCode::CostOverflow,
            CostError::Invalid { .. } => crate::error_code::ErrorCode::CostInvalidInput,
        }
    }
}

impl fmt::Display for CostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CostError::Overflow { input } => write!(
                f,
                "`{input}` is too large: the cost computation overflows the decimal range"
            ),
            CostError::Invalid { input, reason } => write!(f, "`{input}` {reason}"),
        }
    }
}

impl std::error::Error for CostError {}
