//! BOM pricing (list price → net unit price) and capex by category.

use rust_decimal::Decimal;
use serde::Serialize;
use utoipa::ToSchema;

use super::error::CostError;
use super::input::{BomLine, Category, PriceAdjustments};
use super::money::{
    add_money, extended_money, largest_input, money, mul, round_money, sub, sum_money,
};

/// The input blamed when a line's own arithmetic overflows: the override when the buyer set the
/// price, otherwise the cluster size (quantities scale with `gpus`; catalog prices are bounded).
fn line_input(overridden: bool) -> &'static str {
    if overridden {
        "prices.overrides"
    } else {
        "gpus"
    }
}

/// One priced BOM line: the sized line (at list price) and what the buyer pays for it.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct PricedLine {
    /// The line as sized: SKU, vendor, category, description, quantity, list price, power.
    #[serde(flatten)]
    pub line: BomLine,
    /// What the buyer pays for it.
    #[serde(flatten)]
    pub price: LinePrice,
}

// All the cost model reads of a priced line (capex, opex): a plan that reports only figures
// (a sweep point, a Monte Carlo sample) prices its lines without copying them.
/// What the buyer pays for one BOM line: net unit price, extended price and power.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, ToSchema)]
pub struct LinePrice {
    /// The line's category (already in [`PricedLine::line`]; kept here for capex by category).
    #[serde(skip)]
    pub category: Category,
    /// Net price of one unit after the override or discounts, USD, rounded to cents.
    #[serde(serialize_with = "crate::json::decimal")]
    pub unit_price_usd: Decimal,
    /// `quantity × unit_price_usd`, USD, exact (no further rounding).
    #[serde(serialize_with = "crate::json::decimal")]
    pub extended_price_usd: Decimal,
    /// `true` when `prices.overrides` set the unit price (net; no discount applied).
    pub price_overridden: bool,
    /// Effective discount off list, a fraction in [0, 1] (0 when overridden).
    #[serde(serialize_with = "crate::json::decimal")]
    pub discount_fraction: Decimal,
    /// `quantity × power_w`, watts.
    #[serde(serialize_with = "crate::json::decimal")]
    pub extended_power_w: Decimal,
}

/// Prices every line: an override is the net unit price; otherwise
/// `unit = round_cents(list × (1 − vendor_discount) × (1 − category_discount))`.
/// `extended = quantity × unit`, exact. The lines are not copied (a [`PricedLine`] joins a
/// line and its price where a plan reports them).
pub fn line_prices(lines: &[BomLine], adj: &PriceAdjustments) -> Result<Vec<LinePrice>, CostError> {
    adj.validate()?;
    super::input::validate_lines(lines)?;
    let mut out = Vec::with_capacity(lines.len());
    for line in lines {
        let (unit, overridden, discount) = net_unit(line, adj)?;
        let qty = Decimal::from(line.quantity);
        let input = line_input(overridden);
        out.push(LinePrice {
            category: line.category,
            unit_price_usd: unit,
            extended_price_usd: extended_money(unit, line.quantity, input)?,
            price_overridden: overridden,
            discount_fraction: discount,
            extended_power_w: mul(qty, line.power_w, "gpus")?,
        });
    }
    Ok(out)
}

/// A line's net unit price (an override, or the list price less the vendor and category
/// discounts, rounded to cents), whether an override set it, and its discount off list.
fn net_unit(line: &BomLine, adj: &PriceAdjustments) -> Result<(Decimal, bool, Decimal), CostError> {
    net_unit_of(
        &line.sku,
        &line.vendor,
        line.category,
        line.list_unit_price_usd,
        adj,
    )
}

/// The unit price a part of this SKU, vendor and category would be bought at with this list
/// price under `adj`: its override, else the list price less the discounts, in cents.
pub fn net_unit_price(
    sku: &str,
    vendor: &str,
    category: Category,
    list_unit_price_usd: Decimal,
    adj: &PriceAdjustments,
) -> Result<Decimal, CostError> {
    net_unit_of(sku, vendor, category, list_unit_price_usd, adj).map(|(unit, _, _)| unit)
}

fn net_unit_of(
    sku: &str,
    vendor: &str,
    category: Category,
    list_unit_price_usd: Decimal,
    adj: &PriceAdjustments,
) -> Result<(Decimal, bool, Decimal), CostError> {
    if let Some(net) = adj.overrides.get(sku) {
        return Ok((money(*net, "prices.overrides")?, true, Decimal::ZERO));
    }
    let vd = adj.vendor_discounts.get(vendor).copied();
    let cd = adj.category_discounts.get(&category).copied();
    // No discount given (the usual plan): the list price in cents, exactly what the products
    // below give with both factors 1 (scale 0), without the decimal arithmetic.
    if vd.is_none() && cd.is_none() {
        return Ok((money(list_unit_price_usd, "gpus")?, false, Decimal::ZERO));
    }
    let vd = vd.unwrap_or(Decimal::ZERO);
    let cd = cd.unwrap_or(Decimal::ZERO);
    // Both factors are in [0, 1], so these products cannot grow the price.
    let keep = mul(
        sub(Decimal::ONE, vd, "prices.vendor_discounts")?,
        sub(Decimal::ONE, cd, "prices.category_discounts")?,
        "prices.category_discounts",
    )?;
    let unit = money(mul(list_unit_price_usd, keep, "gpus")?, "gpus")?;
    let discount = sub(Decimal::ONE, keep, "prices.category_discounts")?;
    Ok((unit, false, discount))
}

/// The capex total of lines given one at a time, priced as [`line_prices`] prices them, without
/// building priced lines or copying any text: what a plan needs of each design alternative
/// it only compares.
pub struct CapexTotal<'a> {
    adj: &'a PriceAdjustments,
    terms: Vec<(Decimal, &'static str)>,
}

impl<'a> CapexTotal<'a> {
    pub fn new(adj: &'a PriceAdjustments) -> Result<CapexTotal<'a>, CostError> {
        adj.validate()?;
        Ok(CapexTotal {
            adj,
            terms: Vec::with_capacity(16),
        })
    }

    /// Adds one line: its SKU, vendor and category (for the override and discounts), list
    /// unit price and quantity.
    pub fn add(
        &mut self,
        sku: &str,
        vendor: &str,
        category: Category,
        list_unit_price_usd: Decimal,
        quantity: u64,
    ) -> Result<(), CostError> {
        super::input::check_list_price(list_unit_price_usd)?;
        let (unit, overridden, _) =
            net_unit_of(sku, vendor, category, list_unit_price_usd, self.adj)?;
        let input = line_input(overridden);
        self.terms
            .push((extended_money(unit, quantity, input)?, input));
        Ok(())
    }

    /// `capex(&line_prices(…)).total_usd` of the lines added.
    pub fn total(&self) -> Result<Decimal, CostError> {
        // Every design of every fabric is totalled at every point: the input to blame is
        // looked for only when the sum overflows.
        sum_money(self.terms.iter().map(|t| t.0), "gpus").map_err(|_| CostError::Overflow {
            input: largest_input(self.terms.iter().copied()),
        })
    }
}

/// Capex by category (`capex.*`), USD. Every field is the exact sum of its lines'
/// `extended_price_usd` (already in cents); `total_usd` is the sum of the five categories.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Capex {
    /// NICs, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub nics_usd: Decimal,
    /// Switches, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub switches_usd: Decimal,
    /// Transceivers, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub optics_usd: Decimal,
    /// Cables, fibre and splitters, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub cables_usd: Decimal,
    /// One-off software licences, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub licenses_usd: Decimal,
    /// Hardware = NICs + switches + optics + cables (the base of support and spares), USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub hardware_usd: Decimal,
    /// Everything: hardware + licences, USD.
    #[serde(serialize_with = "crate::json::decimal")]
    pub total_usd: Decimal,
}

/// Sums line prices into [`Capex`]. Also returns the input to blame if a later sum over capex
/// overflows (the one behind the largest line).
pub fn capex(lines: &[LinePrice]) -> Result<(Capex, &'static str), CostError> {
    let blame = largest_input(
        lines
            .iter()
            .map(|l| (l.extended_price_usd, line_input(l.price_overridden))),
    );
    let [nics, switches, optics, cables, licenses] = Category::ALL.map(|c| {
        sum_money(
            lines
                .iter()
                .filter(move |l| l.category == c)
                .map(|l| l.extended_price_usd),
            blame,
        )
    });
    let (nics, switches, optics, cables, licenses) =
        (nics?, switches?, optics?, cables?, licenses?);
    let hardware = sum_money([nics, switches, optics, cables], blame)?;
    let total = add_money(hardware, licenses, blame)?;
    Ok((
        Capex {
            nics_usd: round_money(nics),
            switches_usd: round_money(switches),
            optics_usd: round_money(optics),
            cables_usd: round_money(cables),
            licenses_usd: round_money(licenses),
            hardware_usd: round_money(hardware),
            total_usd: round_money(total),
        },
        blame,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A total that overflows blames the input behind the largest line, as `capex` does.
    #[test]
    fn an_overflowing_total_blames_the_largest_line() {
        let mut with_override = PriceAdjustments::default();
        with_override.overrides.insert(
            "big".to_string(),
            Decimal::new(9, 0) * Decimal::from(10u64.pow(18)),
        );
        // A cable line of 100,000 × 6·10¹⁸ USD.
        let huge = |t: &mut CapexTotal, sku: &str| {
            let price = Decimal::new(6, 0) * Decimal::from(10u64.pow(18));
            t.add(sku, "v", Category::Cable, price, 100_000)
                .expect("a line");
        };
        let mut t = CapexTotal::new(&with_override).expect("adjustments");
        huge(&mut t, "small");
        t.add("big", "v", Category::Switch, Decimal::ONE, 100_000)
            .expect("a line");
        assert_eq!(
            t.total(),
            Err(CostError::Overflow {
                input: "prices.overrides"
            })
        );
        let mut t = CapexTotal::new(&with_override).expect("adjustments");
        huge(&mut t, "small");
        huge(&mut t, "other");
        t.add("big", "v", Category::Switch, Decimal::ONE, 1)
            .expect("a line");
        assert_eq!(t.total(), Err(CostError::Overflow { input: "gpus" }));
    }

    /// The blame capex reports is `largest_input` of the lines' prices: the first of
    /// the largest (a tie keeps the first, an override's input differs from a list price's).
    #[test]
    fn capex_blames_the_largest_line_as_largest_input_does() {
        let line = |usd: i64, overridden: bool| LinePrice {
            category: Category::Switch,
            unit_price_usd: Decimal::new(usd, 2),
            extended_price_usd: Decimal::new(usd, 2),
            price_overridden: overridden,
            discount_fraction: Decimal::ZERO,
            extended_power_w: Decimal::ZERO,
        };
        let cases: Vec<Vec<LinePrice>> = vec![
            vec![],
            vec![line(5, false)],
            vec![line(5, false), line(9, true), line(7, false)],
            vec![line(9, true), line(9, false)],
            vec![line(9, false), line(9, true)],
            vec![line(1, true), line(2, false), line(2, true)],
        ];
        for lines in cases {
            let terms: Vec<(Decimal, &'static str)> = lines
                .iter()
                .map(|l| (l.extended_price_usd, line_input(l.price_overridden)))
                .collect();
            let (_, blame) = capex(&lines).expect("capex");
            assert_eq!(blame, largest_input(terms));
        }
        assert_ne!(line_input(true), line_input(false));
    }

    /// The no-discount shortcut gives what the discount arithmetic gives with both factors 1:
    /// the same unit price and discount, scale included (JSON prints them).
    #[test]
    fn no_discount_is_the_list_price_in_cents() {
        let none = PriceAdjustments::default();
        // Discounts given as exactly 0 (scale 0) take the full arithmetic.
        let zero = PriceAdjustments {
            vendor_discounts: [("v".to_string(), Decimal::ZERO)].into(),
            category_discounts: [(Category::Optic, Decimal::ZERO)].into(),
            ..PriceAdjustments::default()
        };
        for list in [
            "0", "1", "12.345", "12.355", "1299.995", "31000", "0.004", "7.1",
        ] {
            let list: Decimal = list.parse().unwrap_or_default();
            let text = |adj: &PriceAdjustments| {
                net_unit_of("s", "v", Category::Optic, list, adj)
                    .map(|(unit, overridden, discount)| {
                        (unit.to_string(), overridden, discount.to_string())
                    })
                    .ok()
            };
            let short = text(&none);
            assert!(short.is_some(), "{list}");
            assert_eq!(short, text(&zero), "{list}");
        }
    }
}
