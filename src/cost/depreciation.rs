//! The network's depreciation schedule: straight line over `economics.depreciation_years`, no
//! residual value, the same life the owned GPU-hour value uses. Each year's expense is the
//! capex ÷ years in cents, the last year taking the rounding, so the years sum to the capex
//! exactly and the book value ends at zero.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::CostError;
use super::money::{div, round_money, sub};

const INPUT: &str = "economics.depreciation_years";

/// One year of the schedule.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct DepreciationYear {
    /// 1 = the year of purchase.
    pub year: u32,
    /// Depreciation expense of the year, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String, example = "1418975.20")]
    pub expense_usd: Decimal,
    /// Book value at the end of the year, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub book_value_usd: Decimal,
}

/// The network capex written off over its life.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Depreciation {
    /// `straight_line`.
    pub method: &'static str,
    /// Years of life (`economics.depreciation_years`).
    pub years: u32,
    /// What is depreciated: the fabric's `capex.total_usd`, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    #[schema(value_type = String)]
    pub basis_usd: Decimal,
    pub by_year: Vec<DepreciationYear>,
}

/// The straight-line schedule of `capex_usd` over `years`.
pub fn straight_line(capex_usd: Decimal, years: u32) -> Result<Depreciation, CostError> {
    if years == 0 {
        return Err(CostError::Invalid {
            input: INPUT,
            reason: "must be at least 1",
        });
    }
    let each = round_money(div(capex_usd, Decimal::from(years), INPUT)?);
    let mut book = capex_usd;
    let by_year = (1..=years)
        .map(|year| {
            let expense = if year == years { book } else { each.min(book) };
            book = sub(book, expense, INPUT)?;
            Ok(DepreciationYear {
                year,
                expense_usd: expense,
                book_value_usd: book,
            })
        })
        .collect::<Result<Vec<_>, CostError>>()?;
    Ok(Depreciation {
        method: "straight_line",
        years,
        basis_usd: capex_usd,
        by_year,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_years_sum_to_the_capex_and_the_book_ends_at_zero() {
        let capex = Decimal::new(709_504_001, 2); // $7,095,040.01
        let d = straight_line(capex, 3).expect("schedule");
        assert_eq!(d.by_year.len(), 3);
        assert_eq!(d.by_year[0].expense_usd, Decimal::new(236_501_334, 2));
        assert_eq!(d.by_year[1].expense_usd, Decimal::new(236_501_334, 2));
        // The last year takes the cent the rounding left.
        assert_eq!(d.by_year[2].expense_usd, Decimal::new(236_501_333, 2));
        let sum: Decimal = d.by_year.iter().map(|y| y.expense_usd).sum();
        assert_eq!(sum, capex);
        assert_eq!(d.by_year[2].book_value_usd, Decimal::ZERO);
        assert_eq!(
            d.by_year[0].book_value_usd,
            capex - Decimal::new(236_501_334, 2)
        );
        assert!(straight_line(capex, 0).is_err());
    }
}
