//! A plan as an Excel workbook (`format=xlsx`) with live formulas: change a unit price or a
//! rate and the totals follow. The formulas are the cost model's (`src/cost/`), rounding
//! included (`ROUND(…, 2)` wherever the model rounds to cents), so a recalculated workbook
//! equals the API to the cent (checked in LibreOffice in CI: tests/spreadsheet/xlsx_check.py).
//! Every formula also carries the API's value as its cached result, for readers that do not
//! recalculate.
//!
//! Sheets: Summary, Side by side (capex by category from the BOM sheets, opex from the rates,
//! TCO, NPV, GPU-idle cost, total), one BOM sheet per built fabric (quantity × unit price),
//! Opex by year (the NPV's discounted years), Depreciation, Assumptions (the rates, with where
//! they come from), Uncertainty (the analysis' figures, when the plan has one), Warnings.

use rust_decimal::Decimal;
use rust_xlsxwriter::utility::{quote_sheet_name, row_col_to_cell, row_col_to_cell_absolute};
use rust_xlsxwriter::{ColNum, Format, Formula, RowNum, Workbook, Worksheet, XlsxError};

use crate::cost::Category;
use crate::fabric::Fabric;
use crate::plan::{Built, Plan};

/// The media type of a workbook.
pub const XLSX: &str = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/// Years the Opex sheet lays out (the longest horizon a plan takes).
const MAX_YEARS: u32 = 15;

use crate::cost::money::approx_f64 as to_f64;

/// A formula with the API's value as its cached result.
fn formula(text: String, cached: Decimal) -> Formula {
    Formula::new(text).set_result(cached.normalize().to_string())
}

/// `'Sheet name'!$B$3`.
fn at(sheet: &str, row: RowNum, col: ColNum) -> String {
    format!(
        "{}!{}",
        quote_sheet_name(sheet),
        row_col_to_cell_absolute(row, col)
    )
}

struct Formats {
    bold: Format,
    money: Format,
    money_bold: Format,
    number: Format,
    wrap: Format,
}

impl Formats {
    fn new() -> Formats {
        Formats {
            bold: Format::new().set_bold(),
            money: Format::new().set_num_format("#,##0.00"),
            money_bold: Format::new().set_num_format("#,##0.00").set_bold(),
            number: Format::new().set_num_format("#,##0.######"),
            wrap: Format::new().set_text_wrap(),
        }
    }
}

/// The rates the formulas read, each a cell of the Assumptions sheet.
struct Rates {
    gpus: String,
    years: String,
    discount_rate: String,
    electricity: String,
    pue: String,
    support_rate: String,
    spares_rate: String,
    engineer_salary: String,
    engineer_gpus_per_fte: String,
    specialist_salary: String,
    specialist_gpus_per_fte: String,
    ufm_per_endpoint: String,
    nos_per_switch: String,
    depreciation_years: String,
}

const ASSUMPTIONS: &str = "Assumptions";
const SIDE: &str = "Side by side";
const OPEX: &str = "Opex by year";

/// The workbook of `plan`.
pub fn plan_workbook(plan: &Plan) -> Result<Vec<u8>, XlsxError> {
    let f = Formats::new();
    let mut book = Workbook::new();
    let built: Vec<Built<'_>> = plan.built().collect();
    // Sheets are written in dependency order, then arranged: Summary first.
    let summary = book.add_worksheet();
    summary.set_name("Summary")?;
    let rates = assumptions(book.add_worksheet(), plan, &built, &f)?;
    let mut boms = Vec::new();
    for b in &built {
        let name = format!("BOM {}", b.fabric.as_str());
        bom_sheet(book.add_worksheet(), &name, b, &f)?;
        boms.push(name);
    }
    let cells = side_by_side(book.add_worksheet(), &built, &boms, &rates, &f)?;
    opex_by_year(book.add_worksheet(), &built, &cells, &rates, &f)?;
    depreciation(book.add_worksheet(), &built, &cells, &rates, &f)?;
    uncertainty(book.add_worksheet(), plan, &f)?;
    warnings(book.add_worksheet(), plan, &f)?;
    summary_sheet(
        book.worksheet_from_name("Summary")?,
        plan,
        &built,
        &cells,
        &f,
    )?;
    book.save_to_buffer()
}

fn assumptions(
    ws: &mut Worksheet,
    plan: &Plan,
    built: &[Built<'_>],
    f: &Formats,
) -> Result<Rates, XlsxError> {
    ws.set_name(ASSUMPTIONS)?;
    ws.set_column_width(0, 44)?;
    ws.set_column_width(1, 16)?;
    ws.set_column_width(2, 24)?;
    ws.set_column_width(3, 60)?;
    for (c, h) in ["Input", "Value", "Unit", "Where it comes from"]
        .iter()
        .enumerate()
    {
        ws.write_string_with_format(0, c as ColNum, *h, &f.bold)?;
    }
    let e = plan.inputs.economics.clone().unwrap_or_default();
    let get = |d: Option<Decimal>| d.unwrap_or_default();
    // The NOS rate a plan counted: given, else the catalog's (echoed as null), read back from
    // an Ethernet fabric's licences.
    let nos = e
        .ethernet_nos_usd_per_switch_per_year
        .map(|v| v.get())
        .or_else(|| {
            built
                .iter()
                .find(|b| b.fabric != Fabric::Infiniband)
                .and_then(|b| {
                    let switches = switch_count(b);
                    (switches > 0).then(|| {
                        (b.opex_per_year.licenses_usd / Decimal::from(switches)).round_dp(2)
                    })
                })
        })
        .unwrap_or_default();
    let from_plan = format!(
        "the plan's inputs (plan {}, catalog {} {}); GET /v1/catalogs/{} for every catalog figure's source",
        plan.plan_id, plan.catalog.id, plan.catalog.version, plan.catalog.id
    );
    // One row a rate: its input name, the value the plan used, its unit; its cell goes to the
    // rate's field by name.
    let mut row: RowNum = 0;
    let mut put = |name: &str, value: Decimal, unit: &str| -> Result<String, XlsxError> {
        row += 1;
        ws.write_string(row, 0, name)?;
        ws.write_number_with_format(row, 1, to_f64(value), &f.number)?;
        ws.write_string(row, 2, unit)?;
        ws.write_string(row, 3, &from_plan)?;
        Ok(at(ASSUMPTIONS, row, 1))
    };
    let years = |y: Option<u32>| Decimal::from(y.unwrap_or(5));
    #[rustfmt::skip]
    let rates = Rates {
        gpus: put("gpus", Decimal::from(plan.inputs.gpus.get()), "GPUs")?,
        years: put("economics.years", years(e.years.map(|y| y.get())), "years")?,
        discount_rate: put("economics.discount_rate", get(e.discount_rate.map(|v| v.get())), "per year")?,
        electricity: put("economics.electricity_usd_per_kwh", get(e.electricity_usd_per_kwh.map(|v| v.get())), "USD per kWh")?,
        pue: put("economics.pue", get(e.pue.map(|v| v.get())), "ratio")?,
        support_rate: put("economics.support_rate", get(e.support_rate.map(|v| v.get())), "of hardware capex per year")?,
        spares_rate: put("economics.spares_rate", get(e.spares_rate.map(|v| v.get())), "of hardware capex per year")?,
        engineer_salary: put("economics.network_engineer_usd_per_year", get(e.network_engineer_usd_per_year.map(|v| v.get())), "USD per FTE per year")?,
        engineer_gpus_per_fte: put("economics.gpus_per_network_fte", get(e.gpus_per_network_fte.map(|v| v.get())), "GPUs per FTE")?,
        specialist_salary: put("economics.ib_specialist_usd_per_year", get(e.ib_specialist_usd_per_year.map(|v| v.get())), "USD per FTE per year")?,
        specialist_gpus_per_fte: put("economics.gpus_per_ib_specialist", get(e.gpus_per_ib_specialist.map(|v| v.get())), "GPUs per FTE")?,
        ufm_per_endpoint: put("economics.ufm_usd_per_endpoint_per_year", get(e.ufm_usd_per_endpoint_per_year.map(|v| v.get())), "USD per NIC endpoint per year (0: not priced, not counted)")?,
        nos_per_switch: put("economics.ethernet_nos_usd_per_switch_per_year", nos, "USD per switch per year")?,
        depreciation_years: put("economics.depreciation_years", years(e.depreciation_years.map(|y| y.get())), "years")?,
    };
    Ok(rates)
}

fn switch_count(b: &Built<'_>) -> u64 {
    b.topology.leaf_switches + b.topology.spine_switches + b.topology.core_switches
}

/// BOM columns.
const BOM_HEADER: [&str; 13] = [
    "SKU",
    "Vendor",
    "Category",
    "Description",
    "Quantity",
    "Unit price (USD, net)",
    "Extended price (USD)",
    "Power each (W)",
    "Extended power (W)",
    "List price (USD)",
    "Discount",
    "Placeholder price",
    "Source",
];
const COL_CATEGORY: ColNum = 2;
const COL_QTY: ColNum = 4;
const COL_UNIT: ColNum = 5;
const COL_EXT: ColNum = 6;
const COL_POWER: ColNum = 7;
const COL_EXT_POWER: ColNum = 8;

fn bom_sheet(ws: &mut Worksheet, name: &str, b: &Built<'_>, f: &Formats) -> Result<(), XlsxError> {
    ws.set_name(name)?;
    for (c, h) in BOM_HEADER.iter().enumerate() {
        ws.write_string_with_format(0, c as ColNum, *h, &f.bold)?;
    }
    for (c, w) in [28, 18, 10, 60, 10, 16, 18, 12, 16, 14, 10, 10, 60]
        .iter()
        .enumerate()
    {
        ws.set_column_width(c as ColNum, *w)?;
    }
    ws.set_freeze_panes(1, 0)?;
    // One price cell per SKU: a SKU on several lines (leaf and spine) refers to its first, so a
    // price changed once changes every line, as `prices.overrides` does.
    let mut first_price: Vec<(&str, String)> = Vec::new();
    for (i, l) in b.bom.iter().enumerate() {
        let r = (i + 1) as RowNum;
        let line = &l.priced.line;
        let price = &l.priced.price;
        let sku = line.sku.as_str();
        ws.write_string(r, 0, sku)?;
        ws.write_string(r, 1, line.vendor.as_str())?;
        ws.write_string(r, COL_CATEGORY, line.category.as_str())?;
        ws.write_string(r, 3, line.description.to_string())?;
        ws.write_number(r, COL_QTY, line.quantity as f64)?;
        match first_price.iter().find(|(s, _)| *s == sku) {
            Some((_, cell)) => {
                ws.write_formula_with_format(
                    r,
                    COL_UNIT,
                    formula(format!("={cell}"), price.unit_price_usd),
                    &f.money,
                )?;
            }
            None => {
                ws.write_number_with_format(r, COL_UNIT, to_f64(price.unit_price_usd), &f.money)?;
                first_price.push((sku, row_col_to_cell_absolute(r, COL_UNIT)));
            }
        }
        ws.write_formula_with_format(
            r,
            COL_EXT,
            formula(
                format!(
                    "={}*{}",
                    row_col_to_cell(r, COL_QTY),
                    row_col_to_cell(r, COL_UNIT)
                ),
                price.extended_price_usd,
            ),
            &f.money,
        )?;
        ws.write_number_with_format(r, COL_POWER, to_f64(line.power_w), &f.number)?;
        ws.write_formula_with_format(
            r,
            COL_EXT_POWER,
            formula(
                format!(
                    "={}*{}",
                    row_col_to_cell(r, COL_QTY),
                    row_col_to_cell(r, COL_POWER)
                ),
                price.extended_power_w,
            ),
            &f.number,
        )?;
        ws.write_number_with_format(r, 9, to_f64(line.list_unit_price_usd), &f.money)?;
        ws.write_number_with_format(r, 10, to_f64(price.discount_fraction), &f.number)?;
        ws.write_boolean(r, 11, l.placeholder_price)?;
        ws.write_string(r, 12, l.source.as_str())?;
    }
    Ok(())
}

/// Where each fabric's figures sit on the Side by side sheet.
struct FabricCells {
    capex_total: String,
    hardware: String,
    opex_total: String,
    tco: String,
    npv: String,
    idle: String,
    total: String,
}

/// Side by side rows.
#[derive(Clone, Copy, PartialEq)]
enum Line {
    Capex(Category),
    Hardware,
    CapexTotal,
    ItPower,
    Power,
    Support,
    Engineers,
    Specialists,
    Staff,
    Licences,
    Spares,
    OpexTotal,
    Tco,
    Npv,
    Idle,
}

const LINES: [(Line, &str); 19] = [
    (Line::Capex(Category::Nic), "Capex: NICs"),
    (Line::Capex(Category::Switch), "Capex: switches"),
    (Line::Capex(Category::Optic), "Capex: optics"),
    (Line::Capex(Category::Cable), "Capex: cables"),
    (
        Line::Hardware,
        "Capex: hardware (support and spares are rated on it)",
    ),
    (Line::Capex(Category::License), "Capex: licences"),
    (Line::CapexTotal, "Capex total"),
    (Line::ItPower, "IT power (W)"),
    (Line::Power, "Opex per year: power"),
    (Line::Support, "Opex per year: support"),
    (Line::Engineers, "Opex per year: network engineers"),
    (Line::Specialists, "Opex per year: InfiniBand specialists"),
    (Line::Staff, "Opex per year: staff"),
    (Line::Licences, "Opex per year: licences"),
    (Line::Spares, "Opex per year: spares"),
    (Line::OpexTotal, "Opex per year"),
    (Line::Tco, "Network TCO (undiscounted)"),
    (Line::Npv, "Network TCO, net present cost"),
    (Line::Idle, "GPU idle cost over the horizon"),
];

/// The Side by side row of `line` (row 0 holds the fabrics' names).
fn row(line: Line) -> RowNum {
    (LINES.iter().position(|(l, _)| *l == line).unwrap_or(0) + 1) as RowNum
}

/// The row of the total, after the lines.
const TOTAL_ROW: RowNum = LINES.len() as RowNum + 1;

/// One fabric's column of Side by side: what its formulas read.
struct Column<'a> {
    b: &'a Built<'a>,
    /// Its BOM sheet.
    bom: &'a str,
    /// Its place among the built fabrics (its columns on Opex by year).
    k: usize,
    c: ColNum,
    rates: &'a Rates,
}

impl Column<'_> {
    fn cell(&self, line: Line) -> String {
        row_col_to_cell(row(line), self.c)
    }

    /// A column of its BOM sheet, absolute.
    fn bom_range(&self, col: ColNum) -> String {
        let n = self.b.bom.len().max(1) as RowNum;
        format!(
            "{}!{}:{}",
            quote_sheet_name(self.bom),
            row_col_to_cell_absolute(1, col),
            row_col_to_cell_absolute(n, col)
        )
    }

    fn role_usd(&self, name: &str) -> Decimal {
        self.b
            .opex_per_year
            .staff_by_role
            .iter()
            .find(|r| r.role == name)
            .map_or(Decimal::ZERO, |r| r.usd)
    }

    /// The line's formula (the cost model's, rounding included) and the API's figure for it;
    /// `None` for a value no price moves (the GPU-idle cost, the performance model's).
    fn formula(&self, line: Line) -> Option<(String, Decimal)> {
        let (b, rates) = (self.b, self.rates);
        let (cap, op) = (b.capex, b.opex_per_year);
        let ib = b.fabric == Fabric::Infiniband;
        Some(match line {
            Line::Capex(cat) => (
                format!(
                    "=SUMIF({},\"{}\",{})",
                    self.bom_range(COL_CATEGORY),
                    cat.as_str(),
                    self.bom_range(COL_EXT)
                ),
                match cat {
                    Category::Nic => cap.nics_usd,
                    Category::Switch => cap.switches_usd,
                    Category::Optic => cap.optics_usd,
                    Category::Cable => cap.cables_usd,
                    Category::License => cap.licenses_usd,
                },
            ),
            Line::Hardware => (
                format!(
                    "={}+{}+{}+{}",
                    self.cell(Line::Capex(Category::Nic)),
                    self.cell(Line::Capex(Category::Switch)),
                    self.cell(Line::Capex(Category::Optic)),
                    self.cell(Line::Capex(Category::Cable))
                ),
                cap.hardware_usd,
            ),
            Line::CapexTotal => (
                format!(
                    "={}+{}",
                    self.cell(Line::Hardware),
                    self.cell(Line::Capex(Category::License))
                ),
                cap.total_usd,
            ),
            Line::ItPower => (
                format!("=SUM({})", self.bom_range(COL_EXT_POWER)),
                op.it_power_w,
            ),
            Line::Power => (
                format!(
                    "=ROUND({}/1000*8760*{}*{},2)",
                    self.cell(Line::ItPower),
                    rates.pue,
                    rates.electricity
                ),
                op.power_usd,
            ),
            Line::Support => (
                format!(
                    "=ROUND({}*{},2)",
                    rates.support_rate,
                    self.cell(Line::Hardware)
                ),
                op.support_usd,
            ),
            Line::Engineers => (
                format!(
                    "=ROUND({}/{}*{},2)",
                    rates.gpus, rates.engineer_gpus_per_fte, rates.engineer_salary
                ),
                self.role_usd("network_engineer"),
            ),
            Line::Specialists => (
                if ib {
                    format!(
                        "=ROUND({}/{}*{},2)",
                        rates.gpus, rates.specialist_gpus_per_fte, rates.specialist_salary
                    )
                } else {
                    "=0".to_string()
                },
                self.role_usd("ib_specialist"),
            ),
            Line::Staff => (
                format!(
                    "={}+{}",
                    self.cell(Line::Engineers),
                    self.cell(Line::Specialists)
                ),
                op.staff_usd,
            ),
            Line::Licences => (
                if ib {
                    format!(
                        "=ROUND({}*{},2)",
                        rates.ufm_per_endpoint, b.topology.links.node_leaf
                    )
                } else {
                    format!("=ROUND({}*{},2)", rates.nos_per_switch, switch_count(b))
                },
                op.licenses_usd,
            ),
            Line::Spares => (
                format!(
                    "=ROUND({}*{},2)",
                    rates.spares_rate,
                    self.cell(Line::Hardware)
                ),
                op.spares_usd,
            ),
            Line::OpexTotal => (
                format!(
                    "={}+{}+{}+{}+{}",
                    self.cell(Line::Power),
                    self.cell(Line::Support),
                    self.cell(Line::Staff),
                    self.cell(Line::Licences),
                    self.cell(Line::Spares)
                ),
                op.total_usd,
            ),
            Line::Tco => (
                format!(
                    "={}+{}*{}",
                    self.cell(Line::CapexTotal),
                    rates.years,
                    self.cell(Line::OpexTotal)
                ),
                b.tco.total_usd,
            ),
            // The discounted years are on the Opex by year sheet.
            Line::Npv => (
                format!(
                    "={}+SUM({}!{}:{})",
                    self.cell(Line::CapexTotal),
                    quote_sheet_name(OPEX),
                    row_col_to_cell_absolute(1, 2 * self.k as ColNum + 2),
                    row_col_to_cell_absolute(MAX_YEARS as RowNum, 2 * self.k as ColNum + 2)
                ),
                b.tco.npv_usd,
            ),
            Line::Idle => return None,
        })
    }
}

fn side_by_side(
    ws: &mut Worksheet,
    built: &[Built<'_>],
    boms: &[String],
    rates: &Rates,
    f: &Formats,
) -> Result<Vec<FabricCells>, XlsxError> {
    ws.set_name(SIDE)?;
    ws.set_column_width(0, 52)?;
    ws.write_string_with_format(
        0,
        0,
        "USD (figures per year where the row says so)",
        &f.bold,
    )?;
    for (line, label) in LINES {
        ws.write_string(row(line), 0, label)?;
    }
    ws.write_string_with_format(TOTAL_ROW, 0, "Total cost (TCO + GPU idle)", &f.bold)?;
    let mut out = Vec::with_capacity(built.len());
    for (k, (b, bom)) in built.iter().zip(boms).enumerate() {
        let col = Column {
            b,
            bom,
            k,
            c: (k + 1) as ColNum,
            rates,
        };
        let c = col.c;
        ws.set_column_width(c, 20)?;
        ws.write_string_with_format(0, c, b.fabric.display_name(), &f.bold)?;
        for (line, _) in LINES {
            let format = match line {
                Line::CapexTotal | Line::OpexTotal | Line::Tco => &f.money_bold,
                Line::ItPower => &f.number,
                _ => &f.money,
            };
            match col.formula(line) {
                Some((text, cached)) => {
                    ws.write_formula_with_format(row(line), c, formula(text, cached), format)?;
                }
                None => {
                    ws.write_number_with_format(
                        row(line),
                        c,
                        to_f64(b.gpu_idle.cost_total_usd),
                        format,
                    )?;
                }
            }
        }
        ws.write_formula_with_format(
            TOTAL_ROW,
            c,
            formula(
                format!("={}+{}", col.cell(Line::Tco), col.cell(Line::Idle)),
                b.total_cost_usd,
            ),
            &f.money_bold,
        )?;
        let abs = |line: Line| at(SIDE, row(line), c);
        out.push(FabricCells {
            capex_total: abs(Line::CapexTotal),
            hardware: abs(Line::Hardware),
            opex_total: abs(Line::OpexTotal),
            tco: abs(Line::Tco),
            npv: abs(Line::Npv),
            idle: abs(Line::Idle),
            total: at(SIDE, TOTAL_ROW, c),
        });
    }
    Ok(out)
}

/// A sheet of years: 1 to [`MAX_YEARS`] down column A, and two columns a fabric from column B,
/// headed "<fabric>: <heads[0]>" and "<fabric>: <heads[1]>".
fn year_columns(
    ws: &mut Worksheet,
    built: &[Built<'_>],
    heads: [&str; 2],
    f: &Formats,
) -> Result<(), XlsxError> {
    ws.write_string_with_format(0, 0, "Year", &f.bold)?;
    for t in 1..=MAX_YEARS {
        ws.write_number(t as RowNum, 0, t)?;
    }
    for (k, b) in built.iter().enumerate() {
        for (i, head) in heads.iter().enumerate() {
            let c = (2 * k + 1 + i) as ColNum;
            let title = format!("{}: {head}", b.fabric.display_name());
            ws.set_column_width(c, title.len().max(20) as f64)?;
            ws.write_string_with_format(0, c, title, &f.bold)?;
        }
    }
    Ok(())
}

fn opex_by_year(
    ws: &mut Worksheet,
    built: &[Built<'_>],
    cells: &[FabricCells],
    rates: &Rates,
    f: &Formats,
) -> Result<(), XlsxError> {
    ws.set_name(OPEX)?;
    year_columns(ws, built, ["opex", "opex discounted"], f)?;
    for (k, b) in built.iter().enumerate() {
        let c = 2 * k as ColNum + 1;
        for t in 1..=MAX_YEARS {
            let r = t as RowNum;
            let year = b.tco.by_year.get(t as usize - 1);
            let opex = year.map_or(Decimal::ZERO, |y| y.opex_usd);
            let discounted = year.map_or(Decimal::ZERO, |y| y.discounted_usd - y.capex_usd);
            ws.write_formula_with_format(
                r,
                c,
                formula(
                    format!("=IF(A{}<={},{},0)", r + 1, rates.years, cells[k].opex_total),
                    opex,
                ),
                &f.money,
            )?;
            // Paid at the end of year t: ÷ (1 + r)^t, in cents (the cost model's rounding).
            ws.write_formula_with_format(
                r,
                c + 1,
                formula(
                    format!(
                        "=ROUND({}/(1+{})^A{},2)",
                        row_col_to_cell(r, c),
                        rates.discount_rate,
                        r + 1
                    ),
                    discounted,
                ),
                &f.money,
            )?;
        }
    }
    Ok(())
}

fn depreciation(
    ws: &mut Worksheet,
    built: &[Built<'_>],
    cells: &[FabricCells],
    rates: &Rates,
    f: &Formats,
) -> Result<(), XlsxError> {
    ws.set_name("Depreciation")?;
    year_columns(ws, built, ["expense", "book value"], f)?;
    ws.write_string(
        0,
        2 * built.len() as ColNum + 1,
        "Straight line over economics.depreciation_years, no residual value; the last year takes the rounding.",
    )?;
    for (k, b) in built.iter().enumerate() {
        let c = 2 * k as ColNum + 1;
        for t in 1..=MAX_YEARS {
            let r = t as RowNum;
            let year = b.depreciation.and_then(|d| d.by_year.get(t as usize - 1));
            let before = if t == 1 {
                cells[k].capex_total.clone()
            } else {
                row_col_to_cell(r - 1, c + 1)
            };
            ws.write_formula_with_format(
                r,
                c,
                formula(
                    format!(
                        "=IF(A{row}>{y},0,IF(A{row}={y},{before},MIN({before},ROUND({capex}/{y},2))))",
                        row = r + 1,
                        y = rates.depreciation_years,
                        capex = cells[k].capex_total,
                    ),
                    year.map_or(Decimal::ZERO, |y| y.expense_usd),
                ),
                &f.money,
            )?;
            ws.write_formula_with_format(
                r,
                c + 1,
                formula(
                    format!("={before}-{}", row_col_to_cell(r, c)),
                    year.map_or(Decimal::ZERO, |y| y.book_value_usd),
                ),
                &f.money,
            )?;
        }
    }
    Ok(())
}

fn uncertainty(ws: &mut Worksheet, plan: &Plan, f: &Formats) -> Result<(), XlsxError> {
    ws.set_name("Uncertainty")?;
    ws.set_column_width(0, 60)?;
    let Some(u) = &plan.uncertainty else {
        ws.write_string(
            0,
            0,
            "No uncertainty analysis in this plan: ask for one with uncertainty.samples (docs/uncertainty.md).",
        )?;
        return Ok(());
    };
    let Ok(v) = serde_json::to_value(u) else {
        return Ok(());
    };
    let mut r: RowNum = 0;
    ws.write_string_with_format(r, 0, "Per fabric (values, not formulas)", &f.bold)?;
    r += 1;
    for fabric in v["fabrics"].as_array().into_iter().flatten() {
        for (key, value) in flatten(fabric) {
            ws.write_string(r, 0, key)?;
            write_value(ws, r, 1, &value, f)?;
            r += 1;
        }
        r += 1;
    }
    ws.write_string_with_format(r, 0, "Tornado: what moves the gap most", &f.bold)?;
    r += 1;
    for bar in v["tornado"].as_array().into_iter().flatten() {
        for (key, value) in flatten(bar) {
            ws.write_string(r, 0, key)?;
            write_value(ws, r, 1, &value, f)?;
            r += 1;
        }
        r += 1;
    }
    Ok(())
}

/// `v`'s leaves by dotted path (`total_usd.p50`), arrays by index.
fn flatten(v: &serde_json::Value) -> Vec<(String, serde_json::Value)> {
    fn walk(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, serde_json::Value)>) {
        match v {
            serde_json::Value::Object(m) => {
                for (k, x) in m {
                    walk(&crate::json::dotted(prefix, k), x, out);
                }
            }
            serde_json::Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    walk(&crate::json::dotted(prefix, &i.to_string()), x, out);
                }
            }
            leaf => out.push((prefix.to_string(), leaf.clone())),
        }
    }
    let mut out = Vec::new();
    walk("", v, &mut out);
    out
}

fn write_value(
    ws: &mut Worksheet,
    r: RowNum,
    c: ColNum,
    v: &serde_json::Value,
    f: &Formats,
) -> Result<(), XlsxError> {
    match v {
        serde_json::Value::Number(n) => {
            ws.write_number_with_format(r, c, n.as_f64().unwrap_or(0.0), &f.number)?;
        }
        serde_json::Value::String(s) => match s.parse::<f64>() {
            Ok(x) => {
                ws.write_number_with_format(r, c, x, &f.number)?;
            }
            Err(_) => {
                ws.write_string(r, c, s)?;
            }
        },
        serde_json::Value::Bool(b) => {
            ws.write_boolean(r, c, *b)?;
        }
        serde_json::Value::Null => {}
        serde_json::Value::Array(items) => {
            let text: Vec<String> = items
                .iter()
                .map(|i| i.as_str().map_or_else(|| i.to_string(), str::to_string))
                .collect();
            ws.write_string(r, c, text.join(super::csv::LIST_SEPARATOR))?;
        }
        other => {
            ws.write_string(r, c, other.to_string())?;
        }
    }
    Ok(())
}

fn warnings(ws: &mut Worksheet, plan: &Plan, f: &Formats) -> Result<(), XlsxError> {
    ws.set_name("Warnings")?;
    ws.set_column_width(0, 140)?;
    ws.write_string_with_format(
        0,
        0,
        "Warnings (placeholders to replace with quotes first)",
        &f.bold,
    )?;
    for (i, w) in plan.warnings.iter().enumerate() {
        ws.write_string_with_format((i + 1) as RowNum, 0, w, &f.wrap)?;
    }
    Ok(())
}

fn summary_sheet(
    ws: &mut Worksheet,
    plan: &Plan,
    built: &[Built<'_>],
    cells: &[FabricCells],
    f: &Formats,
) -> Result<(), XlsxError> {
    ws.set_column_width(0, 34)?;
    ws.write_string_with_format(0, 0, "fabric-tco plan", &f.bold)?;
    let info = [
        ("Plan id", plan.plan_id.clone()),
        (
            "Catalog",
            format!(
                "{} {} (sha256 {})",
                plan.catalog.id, plan.catalog.version, plan.catalog.sha256
            ),
        ),
        ("GPUs", plan.inputs.gpus.get().to_string()),
        (
            "Recommendation (as computed; the table below recalculates)",
            plan.comparison
                .as_ref()
                .map(|c| c.recommendation.to_string())
                .unwrap_or_default(),
        ),
    ];
    for (i, (k, v)) in info.iter().enumerate() {
        ws.write_string(i as RowNum + 1, 0, *k)?;
        ws.write_string(i as RowNum + 1, 1, v)?;
    }
    let head: RowNum = 7;
    let columns = [
        "Fabric",
        "Capex",
        "Hardware capex",
        "Opex per year",
        "Network TCO",
        "Net present cost",
        "GPU idle cost",
        "Total cost",
    ];
    for (c, h) in columns.iter().enumerate() {
        ws.write_string_with_format(head, c as ColNum, *h, &f.bold)?;
        if c > 0 {
            ws.set_column_width(c as ColNum, 18)?;
        }
    }
    for (k, (b, cell)) in built.iter().zip(cells).enumerate() {
        let r = head + 1 + k as RowNum;
        ws.write_string(r, 0, b.fabric.display_name())?;
        let refs = [
            (&cell.capex_total, b.capex.total_usd),
            (&cell.hardware, b.capex.hardware_usd),
            (&cell.opex_total, b.opex_per_year.total_usd),
            (&cell.tco, b.tco.total_usd),
            (&cell.npv, b.tco.npv_usd),
            (&cell.idle, b.gpu_idle.cost_total_usd),
            (&cell.total, b.total_cost_usd),
        ];
        for (c, (reference, cached)) in refs.iter().enumerate() {
            ws.write_formula_with_format(
                r,
                c as ColNum + 1,
                formula(format!("={reference}"), *cached),
                if c == 6 { &f.money_bold } else { &f.money },
            )?;
        }
    }
    if !built.is_empty() {
        let first = head + 1;
        let last = head + built.len() as RowNum;
        let r = last + 2;
        ws.write_string_with_format(r, 0, "Cheapest fabric (lowest total cost)", &f.bold)?;
        let names = format!(
            "{}:{}",
            row_col_to_cell_absolute(first, 0),
            row_col_to_cell_absolute(last, 0)
        );
        let totals = format!(
            "{}:{}",
            row_col_to_cell_absolute(first, 7),
            row_col_to_cell_absolute(last, 7)
        );
        let cheapest = plan
            .cheapest_fabric()
            .map(|fb| fb.display_name())
            .unwrap_or_default();
        ws.write_formula(
            r,
            1,
            Formula::new(format!("=INDEX({names},MATCH(MIN({totals}),{totals},0))"))
                .set_result(cheapest),
        )?;
    }
    Ok(())
}

/// A sweep as a workbook: its rows (the varied inputs, then [`super::SWEEP_COLUMNS`]) as
/// values, its crossovers in words and its warnings. A sweep is many plans' headline figures:
/// each row's plan, with live formulas, is its `plan_id`'s workbook (`format=xlsx` on a plan).
pub fn sweep_workbook(
    vary: &str,
    vary2: Option<&str>,
    warnings: &[String],
    rows: &[super::NamedSweepRow],
    crossovers: &[crate::plan::sweep::Crossover],
) -> Result<Vec<u8>, XlsxError> {
    let f = Formats::new();
    let mut book = Workbook::new();
    let ws = book.add_worksheet();
    ws.set_name("Rows")?;
    let mut header: Vec<&str> = vec![vary];
    header.extend(vary2);
    header.extend_from_slice(super::SWEEP_COLUMNS);
    for (c, h) in header.iter().enumerate() {
        ws.write_string_with_format(0, c as ColNum, *h, &f.bold)?;
        ws.set_column_width(c as ColNum, 16)?;
    }
    ws.set_freeze_panes(1, 0)?;
    for (i, r) in rows.iter().enumerate() {
        let row = (i + 1) as RowNum;
        let inputs = std::iter::once(&r.inputs.0).chain(&r.inputs.1);
        let cells = inputs
            .map(|n| n.value.clone())
            .chain(super::sweep_cells(&r.row, &[]));
        for (c, v) in cells.enumerate() {
            write_value(ws, row, c as ColNum, &v, &f)?;
        }
    }
    let ws = book.add_worksheet();
    ws.set_name("Crossovers")?;
    ws.set_column_width(0, 140)?;
    ws.write_string_with_format(0, 0, "Where the cheapest fabric changes", &f.bold)?;
    for (i, c) in crossovers.iter().enumerate() {
        ws.write_string((i + 1) as RowNum, 0, super::crossover_sentence(c))?;
    }
    let ws = book.add_worksheet();
    ws.set_name("Warnings")?;
    ws.set_column_width(0, 140)?;
    ws.write_string_with_format(0, 0, "Warnings", &f.bold)?;
    for (i, w) in warnings.iter().enumerate() {
        ws.write_string_with_format((i + 1) as RowNum, 0, w, &f.wrap)?;
    }
    book.save_to_buffer()
}
