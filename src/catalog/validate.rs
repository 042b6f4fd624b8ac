//! Catalog validation: every problem names the entry and the field.

use std::collections::{BTreeMap, HashSet};

use rust_decimal::Decimal;

use super::schema::ModuleKind;
use super::schema::{
    Cable, CatalogData, FabricProfile, Figure, Gpu, License, LicenseBasis, Listed, Nic, Operations,
    Part, PriceRange, Provenance, Switch, TierCabling, Transceiver, by_sku,
};
use crate::fabric::Fabric;

/// One validation failure: `entry` locates the entry (`switches[2] (nvidia-qm9700)`), `field`
/// names the field, `message` says what is wrong.
#[derive(Debug, Clone, PartialEq)]
pub struct Problem {
    pub entry: String,
    pub field: String,
    pub message: String,
}

struct Checker {
    problems: Vec<Problem>,
}

impl Checker {
    fn fail(&mut self, entry: &str, field: &str, message: impl Into<String>) {
        self.problems.push(Problem {
            entry: entry.to_string(),
            field: field.to_string(),
            message: message.into(),
        });
    }

    fn text(&mut self, entry: &str, field: &str, value: &str) {
        if value.trim().is_empty() {
            self.fail(entry, field, "must not be empty");
        }
    }

    fn provenance(&mut self, entry: &str, p: &Provenance) {
        self.text(entry, "source", &p.source);
        if !is_date(&p.date) {
            self.fail(
                entry,
                "date",
                format!("'{}' is not YYYY-MM or YYYY-MM-DD", p.date),
            );
        }
    }

    fn positive(&mut self, entry: &str, field: &str, v: Decimal) {
        if v <= Decimal::ZERO {
            self.fail(entry, field, format!("must be > 0 (got {v})"));
        }
    }

    fn non_negative(&mut self, entry: &str, field: &str, v: Decimal) {
        if v < Decimal::ZERO {
            self.fail(entry, field, format!("must be >= 0 (got {v})"));
        }
    }

    /// A price range must bracket its point price: 0 ≤ low ≤ price ≤ high. `None` is an error
    /// exactly when the point price exists.
    fn range(
        &mut self,
        entry: &str,
        field: &str,
        price: Option<Decimal>,
        range: Option<&PriceRange>,
    ) {
        match (price, range) {
            (Some(p), Some(r)) => {
                if r.low < Decimal::ZERO || r.low > p || p > r.high {
                    self.fail(
                        entry,
                        field,
                        format!(
                            "must satisfy 0 <= low <= price <= high (low {}, price {p}, high {})",
                            r.low, r.high
                        ),
                    );
                }
            }
            (Some(_), None) => self.fail(entry, field, "required when the price is given"),
            (None, Some(_)) => self.fail(entry, field, "given without a price"),
            (None, None) => {}
        }
    }

    /// The start of every SKU'd entry (`kind[i] (sku)`, which it returns): a SKU, not empty
    /// and not used before (`skus`), a vendor and a description.
    fn entry<'a>(
        &mut self,
        skus: &mut HashSet<&'a str>,
        kind: &str,
        i: usize,
        part: &'a Part,
    ) -> String {
        let (sku, vendor, description) = (&*part.sku, &*part.vendor, &*part.description);
        let entry = format!("{kind}[{i}] ({sku})");
        self.text(&entry, "sku", sku);
        // A SKU is an identifier requests name in query names, paths and CSV headers: the
        // characters and length `topology.switch_sku` takes (a 70-character or spaced SKU could
        // be priced but not swept or chosen).
        if !sku.is_empty() && !is_identifier(sku) {
            self.fail(
                &entry,
                "sku",
                format!("'{sku}' is not 1–{MAX_SKU_CHARS} of A–Z, a–z, 0–9, '.', '_' and '-'"),
            );
        }
        if !skus.insert(sku) {
            self.fail(&entry, "sku", format!("duplicate SKU '{sku}'"));
        }
        self.text(&entry, "vendor", vendor);
        self.text(&entry, "description", description);
        entry
    }

    /// The end of every priced entry: a unit price > 0 inside its range, and its source.
    fn priced(&mut self, entry: &str, x: &impl Listed) {
        let l = x.listing();
        self.positive(entry, "price_usd", l.price_usd);
        self.range(
            entry,
            "price_range_usd",
            Some(l.price_usd),
            Some(&l.price_range_usd),
        );
        self.provenance(entry, x.provenance());
    }

    /// A profile's map from speed (Gb/s) to SKU, `(field, what the key is, what the SKU is)`:
    /// every key a number, every SKU one that `find` knows (its fabrics) and that runs `fabric`.
    fn by_speed<'c>(
        &mut self,
        entry: &str,
        fabric: Fabric,
        map: &BTreeMap<String, String>,
        (name, key, kind): (&str, &str, &str),
        find: impl Fn(&str) -> Option<&'c Vec<Fabric>>,
    ) {
        for (speed, sku) in map {
            let field = format!("{name}.{speed}");
            if speed.parse::<u32>().is_err() {
                self.fail(entry, &field, format!("key must be a {key} in Gb/s"));
            }
            match find(sku) {
                None => self.fail(entry, &field, format!("unknown {kind} SKU '{sku}'")),
                Some(fabrics) if !fabrics.contains(&fabric) => self.fail(
                    entry,
                    &field,
                    format!("{kind} '{sku}' does not run {}", fabric.as_str()),
                ),
                Some(_) => {}
            }
        }
    }

    /// `speed_gbps` (a link speed of `field`) must divide `whole_gbps`, the speed `whole` names.
    fn divides(&mut self, entry: &str, field: &str, speed_gbps: u32, whole: &str, whole_gbps: u32) {
        if speed_gbps == 0 || !whole_gbps.is_multiple_of(speed_gbps) {
            self.fail(
                entry,
                field,
                format!("{speed_gbps} Gb/s must divide {whole} {whole_gbps}"),
            );
        }
    }

    fn nonzero(&mut self, entry: &str, field: &str, v: u64) {
        if v == 0 {
            self.fail(entry, field, "must be > 0");
        }
    }

    fn figure(&mut self, name: &str, f: &Figure, min: Decimal, max: Decimal) {
        let entry = format!("operations.{name}");
        if f.value < min || f.value > max {
            self.fail(
                &entry,
                "value",
                format!("must be within {min}..={max} (got {})", f.value),
            );
        }
        if let Some(r) = f.range
            && !(r.low <= f.value && f.value <= r.high && min <= r.low && r.high <= max)
        {
            self.fail(
                &entry,
                "range",
                format!(
                    "must hold the value and stay within {min}..={max} (got {}..={} around {})",
                    r.low, r.high, f.value
                ),
            );
        }
        self.text(&entry, "unit", &f.unit);
        self.provenance(&entry, &f.provenance);
    }
}

/// Longest SKU, characters (as `topology.switch_sku` and `catalog`).
pub const MAX_SKU_CHARS: usize = 64;

/// 1–[`MAX_SKU_CHARS`] of A–Z, a–z, 0–9, `.`, `_`, `-`.
fn is_identifier(s: &str) -> bool {
    (1..=MAX_SKU_CHARS).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'_' | b'-'))
}

/// A real calendar date, `YYYY-MM` or `YYYY-MM-DD`, in the years 1990–2100 (a catalog entry's
/// figure or a catalog's publication; `9999-99-99` is not a date).
fn is_date(s: &str) -> bool {
    parse_date(s).is_some()
}

/// (year, month, day) of `YYYY-MM` (day 1) or `YYYY-MM-DD`, if it is a real date in 1990–2100.
fn parse_date(s: &str) -> Option<(u32, u32, u32)> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<u32> {
        let part = b.get(r)?;
        if !part.iter().all(u8::is_ascii_digit) {
            return None;
        }
        std::str::from_utf8(part).ok()?.parse().ok()
    };
    let (y, m, d) = match b.len() {
        7 if b.get(4) == Some(&b'-') => (num(0..4)?, num(5..7)?, 1),
        10 if b.get(4) == Some(&b'-') && b.get(7) == Some(&b'-') => {
            (num(0..4)?, num(5..7)?, num(8..10)?)
        }
        _ => return None,
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return None,
    };
    ((1990..=2100).contains(&y) && (1..=days).contains(&d)).then_some((y, m, d))
}

/// Days since 1970-01-01 of a civil date (Howard Hinnant's `days_from_civil`).
fn days_from_civil(y: u32, m: u32, d: u32) -> i64 {
    let y = i64::from(y) - i64::from(m <= 2);
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (i64::from(m) + 9) % 12;
    let doy = (153 * mp + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The date after `date` (`YYYY-MM-DD`), by Howard Hinnant's `civil_from_days`; tests use it
/// for a catalog newer than the embedded one that is not in the future, whatever its date.
pub fn day_after(date: &str) -> Option<String> {
    let (y, m, d) = parse_date(date)?;
    let z = days_from_civil(y, m, d) + 1 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    Some(format!("{year:04}-{month:02}-{day:02}"))
}

/// The day after the embedded default catalog's `published` date.
#[cfg(test)]
pub(crate) fn day_after_embedded() -> String {
    let v: serde_json::Value =
        serde_json::from_str(super::EMBEDDED[0].1).expect("embedded catalog");
    day_after(v["published"].as_str().expect("published")).expect("date")
}

/// True when `published` lies more than a day after now: a catalog from the future would
/// silently become the default ("newest") catalog.
fn in_the_future(published: &str) -> bool {
    let Some((y, m, d)) = parse_date(published) else {
        return false;
    };
    let today = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|t| (t.as_secs() / 86_400) as i64)
        .unwrap_or(0);
    days_from_civil(y, m, d) > today + 1
}

/// Checks a parsed catalog; returns every problem found (empty when valid).
pub fn validate(c: &CatalogData) -> Vec<Problem> {
    let mut k = Checker {
        problems: Vec::new(),
    };
    check_header(&mut k, c);
    // SKUs are unique across every kind of entry, so a BOM line names exactly one thing.
    let mut skus: HashSet<&str> = HashSet::new();
    check_switches(&mut k, &mut skus, &c.switches);
    check_nics(&mut k, &mut skus, &c.nics);
    check_transceivers(&mut k, &mut skus, &c.transceivers);
    check_cables(&mut k, &mut skus, &c.cables);
    check_licenses(&mut k, &mut skus, &c.licenses);
    check_chassis(&mut k, &mut skus, c);
    check_gpus(&mut k, c);
    check_operations(&mut k, &c.operations);
    check_fabric_profiles(&mut k, c);
    check_bounds(&mut k, c);
    k.problems
}

/// Longest text a catalog field may hold, characters (the longest source today has 840).
pub const MAX_TEXT_CHARS: usize = 4_000;

/// Largest amount of money one catalog figure may state, USD (a unit price, a range's end, a
/// GPU's price or hourly rate): a modular chassis is about $1M, and at this bound a plan of the
/// most GPUs a request may ask (1,000,000), its parts and its years stays far inside a
/// decimal's 28 digits. A remote catalog with `price_usd "79228162514264337593543950335"`
/// loaded, and every plan using the part then failed with the user's `gpus` blamed.
pub const MAX_CATALOG_USD: u64 = 100_000_000;

/// Largest power one catalog part may draw, W (a 16-slot chassis draws tens of kW).
pub const MAX_PART_POWER_W: u64 = 1_000_000;

/// Every text of the catalog is printable and at most [`MAX_TEXT_CHARS`] (a `version` with a
/// newline forged a log line; a 3.9 MB description loaded), every amount of money at most
/// [`MAX_CATALOG_USD`] and every part's power at most [`MAX_PART_POWER_W`]: walked over the
/// catalog as served, so a field added later is covered too.
fn check_bounds(k: &mut Checker, c: &CatalogData) {
    match serde_json::to_value(c) {
        Ok(v) => walk_bounds(k, "catalog", "", &v),
        Err(e) => k.fail("catalog", "", format!("cannot be read back: {e}")),
    }
}

fn walk_bounds(k: &mut Checker, path: &str, key: &str, v: &serde_json::Value) {
    use serde_json::Value;
    match v {
        Value::String(text) => {
            if text.chars().any(char::is_control) {
                k.fail(
                    path,
                    key,
                    "holds a control character (a line break, a tab, …)",
                );
            }
            if text.chars().count() > MAX_TEXT_CHARS {
                k.fail(
                    path,
                    key,
                    format!("is longer than {MAX_TEXT_CHARS} characters"),
                );
            }
            figure_bound(k, path, key, text.parse::<Decimal>().ok());
        }
        Value::Number(n) => {
            figure_bound(
                k,
                path,
                key,
                n.as_f64().and_then(|f| Decimal::try_from(f).ok()),
            );
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                walk_bounds(k, &format!("{path}.{key}[{i}]"), "", item);
            }
        }
        Value::Object(fields) => {
            let here = if key.is_empty() {
                path.to_string()
            } else {
                format!("{path}.{key}")
            };
            for (name, item) in fields {
                walk_bounds(k, &here, name, item);
            }
        }
        Value::Bool(_) | Value::Null => {}
    }
}

/// A figure named `key` against its bound: money (`…_usd…`, a range's `low`/`high` under one)
/// or power (`power_w`).
fn figure_bound(k: &mut Checker, path: &str, key: &str, value: Option<Decimal>) {
    let Some(value) = value else { return };
    let money = key.contains("_usd") || (path.contains("_usd") && (key == "low" || key == "high"));
    let (bound, unit) = if money {
        (MAX_CATALOG_USD, "USD")
    } else if key == "power_w" {
        (MAX_PART_POWER_W, "W")
    } else {
        return;
    };
    if value > Decimal::from(bound) {
        k.fail(
            path,
            key,
            format!("is more than {bound} {unit} (got {value})"),
        );
    }
}

/// The catalog's own fields: id, version, publication date and currency.
fn check_header(k: &mut Checker, c: &CatalogData) {
    if c.id.is_empty()
        || !c.id.bytes().all(|b| {
            b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'.' || b == b'_'
        })
    {
        k.fail("catalog", "id", "must be non-empty lowercase [a-z0-9._-]");
    }
    k.text("catalog", "version", &c.version);
    if !is_date(&c.published) || c.published.len() != 10 {
        k.fail(
            "catalog",
            "published",
            "must be a real date YYYY-MM-DD in the years 1990–2100",
        );
    } else if in_the_future(&c.published) {
        k.fail(
            "catalog",
            "published",
            "lies in the future (it would become the default catalog)",
        );
    }
    if c.currency != "USD" {
        k.fail("catalog", "currency", "only USD is supported");
    }
}

fn check_switches<'a>(k: &mut Checker, skus: &mut HashSet<&'a str>, switches: &'a [Switch]) {
    for (i, s) in switches.iter().enumerate() {
        let e = k.entry(skus, "switches", i, &s.part);
        k.nonzero(&e, "ports", s.ports.into());
        k.nonzero(&e, "port_speed_gbps", s.port_speed_gbps.into());
        k.nonzero(&e, "ports_per_cage", s.ports_per_cage.into());
        if s.fabrics.is_empty() {
            k.fail(&e, "fabrics", "must list at least one fabric");
        }
        if !s.link_speeds_gbps.contains(&s.port_speed_gbps) {
            k.fail(&e, "link_speeds_gbps", "must include port_speed_gbps");
        }
        for &ls in &s.link_speeds_gbps {
            k.divides(
                &e,
                "link_speeds_gbps",
                ls,
                "the port speed",
                s.port_speed_gbps,
            );
        }
        if let Some(up) = &s.uplink_ports {
            k.nonzero(&e, "uplink_ports.ports", up.ports.into());
            if up.speed_gbps <= s.port_speed_gbps {
                k.fail(
                    &e,
                    "uplink_ports.speed_gbps",
                    "must be faster than port_speed_gbps (uplinks of another speed)",
                );
            }
            if up.cage.trim().is_empty() {
                k.fail(&e, "uplink_ports.cage", "must name a form factor");
            }
        }
        // A chassis' own power is its fans' and power supplies' (its modules are lines of
        // their own), which a source may put on its fabric modules: 0 is allowed.
        if s.chassis.is_some() {
            k.non_negative(&e, "power_w", s.power_w);
        } else {
            k.positive(&e, "power_w", s.power_w);
        }
        k.priced(&e, s);
    }
}

/// Each chassis' slots and modules: the modules exist, are of their kind, and every slot
/// filled gives the chassis' `ports`.
fn check_chassis<'a>(k: &mut Checker, skus: &mut HashSet<&'a str>, c: &'a CatalogData) {
    for (i, m) in c.chassis_modules.iter().enumerate() {
        let e = k.entry(skus, "chassis_modules", i, &m.part);
        if m.kind == ModuleKind::LineCard {
            k.nonzero(&e, "ports", m.ports.into());
        }
        k.positive(&e, "power_w", m.power_w);
        k.priced(&e, m);
    }
    for (i, s) in c.switches.iter().enumerate() {
        let Some(ch) = &s.chassis else { continue };
        let e = format!("switches[{i}] ({})", s.part.sku);
        k.nonzero(&e, "chassis.line_card_slots", ch.line_card_slots.into());
        k.nonzero(&e, "chassis.supervisors", ch.supervisors.into());
        let module = |sku: &str, kind: ModuleKind| {
            by_sku(&c.chassis_modules, sku).filter(|m| m.kind == kind)
        };
        for (field, sku, kind) in [
            ("chassis.line_card", &ch.line_card, ModuleKind::LineCard),
            (
                "chassis.fabric_module",
                &ch.fabric_module,
                ModuleKind::FabricModule,
            ),
            ("chassis.supervisor", &ch.supervisor, ModuleKind::Supervisor),
        ] {
            if module(sku, kind).is_none() {
                k.fail(
                    &e,
                    field,
                    format!("'{sku}' is not a {kind:?} of chassis_modules"),
                );
            }
        }
        if let Some(card) = module(&ch.line_card, ModuleKind::LineCard)
            && u64::from(card.ports) * u64::from(ch.line_card_slots) != u64::from(s.ports)
        {
            k.fail(
                &e,
                "ports",
                format!(
                    "must be line_card_slots × the line card's ports ({} × {})",
                    ch.line_card_slots, card.ports
                ),
            );
        }
    }
}

fn check_nics<'a>(k: &mut Checker, skus: &mut HashSet<&'a str>, nics: &'a [Nic]) {
    for (i, n) in nics.iter().enumerate() {
        let e = k.entry(skus, "nics", i, &n.part);
        k.nonzero(&e, "speed_gbps", n.speed_gbps.into());
        k.nonzero(&e, "ports", n.ports.into());
        if !(3..=6).contains(&n.pcie_gen) {
            k.fail(&e, "pcie_gen", "must be 3..=6");
        }
        if ![8, 16, 32].contains(&n.pcie_lanes) {
            k.fail(&e, "pcie_lanes", "must be 8, 16 or 32");
        }
        if n.fabrics.is_empty() {
            k.fail(&e, "fabrics", "must list at least one fabric");
        }
        if let Some(cage) = &n.cage {
            k.text(&e, "cage", cage);
        }
        if let Some(max) = n.ethernet_max_link_gbps {
            k.divides(
                &e,
                "ethernet_max_link_gbps",
                max,
                "the card's speed",
                n.speed_gbps,
            );
        }
        k.positive(&e, "power_w", n.power_w);
        if n.included_with_server {
            // Comes with the server: nothing to price, nothing to range over.
            let l = &n.listing;
            if !(l.price_usd.is_zero()
                && l.price_range_usd.low.is_zero()
                && l.price_range_usd.high.is_zero())
            {
                k.fail(
                    &e,
                    "price_usd",
                    "must be 0, with a range of 0 to 0, for a NIC included with the server",
                );
            }
            k.provenance(&e, &n.provenance);
        } else {
            k.priced(&e, n);
        }
    }
}

fn check_transceivers<'a>(
    k: &mut Checker,
    skus: &mut HashSet<&'a str>,
    transceivers: &'a [Transceiver],
) {
    for (i, t) in transceivers.iter().enumerate() {
        let e = k.entry(skus, "transceivers", i, &t.part);
        k.text(&e, "form_factor", &t.form_factor);
        k.nonzero(&e, "link_speed_gbps", t.link_speed_gbps.into());
        k.nonzero(&e, "links_per_module", t.links_per_module.into());
        k.nonzero(&e, "reach_m", t.reach_m.into());
        if let Some(lane) = t.lane_gbps {
            k.divides(&e, "lane_gbps", lane, "the link speed", t.link_speed_gbps);
        }
        k.non_negative(&e, "power_w", t.power_w);
        k.priced(&e, t);
    }
}

fn check_cables<'a>(k: &mut Checker, skus: &mut HashSet<&'a str>, cables: &'a [Cable]) {
    for (i, cb) in cables.iter().enumerate() {
        let e = k.entry(skus, "cables", i, &cb.part);
        k.nonzero(&e, "reach_m", cb.reach_m.into());
        k.nonzero(&e, "links_per_cable", cb.links_per_cable.into());
        k.non_negative(&e, "power_w", cb.power_w);
        k.priced(&e, cb);
    }
}

fn check_licenses<'a>(k: &mut Checker, skus: &mut HashSet<&'a str>, licenses: &'a [License]) {
    for (i, l) in licenses.iter().enumerate() {
        let e = k.entry(skus, "licenses", i, &l.part);
        // No bill of materials prices a one-off licence: a catalog with one would have its
        // plans leave it out of capex without a word.
        if l.basis == LicenseBasis::PerSwitch {
            k.fail(
                &e,
                "basis",
                "per_switch (a one-off licence per switch) is not priced by plans yet: use per_switch_per_year, or include the licence in the switch's price",
            );
        }
        // One licence of each yearly kind: plans price each kind by one economics input
        // (a second one would never be charged).
        if l.basis != LicenseBasis::PerSwitch
            && licenses[..i].iter().any(|other| other.basis == l.basis)
        {
            k.fail(
                &e,
                "basis",
                "a second licence of this basis: plans charge one per switch per year (Ethernet NOS) and one per endpoint per year (UFM)",
            );
        }
        // UFM is priced by `economics.ufm_usd_per_endpoint_per_year` alone: a catalog price
        // would be left out without a word.
        if l.basis == LicenseBasis::PerEndpointPerYear && l.price_usd.is_some() {
            k.fail(
                &e,
                "price_usd",
                "must be null: plans price a per-endpoint licence by economics.ufm_usd_per_endpoint_per_year (a quote), not by the catalog",
            );
        }
        if let Some(p) = l.price_usd {
            k.non_negative(&e, "price_usd", p);
        }
        k.range(
            &e,
            "price_range_usd",
            l.price_usd,
            l.price_range_usd.as_ref(),
        );
        k.provenance(&e, &l.provenance);
    }
}

fn check_gpus(k: &mut Checker, c: &CatalogData) {
    let mut gpu_ids = HashSet::new();
    for (i, g) in c.gpus.iter().enumerate() {
        let e = format!("gpus[{i}] ({})", g.id);
        k.text(&e, "id", &g.id);
        if !gpu_ids.insert(g.id.as_str()) {
            k.fail(&e, "id", format!("duplicate GPU id '{}'", g.id));
        }
        check_gpu_hardware(k, c, &e, g);
        check_gpu_prices(k, &e, g);
    }
}

/// A GPU's node, interconnect and compute figures (and its id's case), in the order reported.
fn check_gpu_hardware(k: &mut Checker, c: &CatalogData, e: &str, g: &Gpu) {
    k.text(e, "description", &g.description);
    if !(1..=72).contains(&g.gpus_per_node) {
        k.fail(e, "gpus_per_node", "must be 1..=72");
    }
    if !(g.nvlink_ring_busbw_gbytes_per_s.is_finite() && g.nvlink_ring_busbw_gbytes_per_s > 0.0) {
        k.fail(
            e,
            "nvlink_ring_busbw_gbytes_per_s",
            "must be a positive number",
        );
    }
    if let Some(v) = g.nvls_busbw_gbytes_per_s
        && !(v.is_finite() && v > 0.0)
    {
        k.fail(
            e,
            "nvls_busbw_gbytes_per_s",
            "must be a positive number or null",
        );
    }
    if !(3..=6).contains(&g.pcie_gen) {
        k.fail(e, "pcie_gen", "must be 3..=6");
    }
    if let Some(sku) = &g.nic_on_board
        && !c
            .nics
            .iter()
            .any(|n| &n.part.sku == sku && n.included_with_server)
    {
        k.fail(
            e,
            "nic_on_board",
            format!("'{sku}' is not a NIC of this catalog included with the server"),
        );
    }
    if !(g.dense_bf16_tflops.is_finite() && (1.0..=100_000.0).contains(&g.dense_bf16_tflops)) {
        k.fail(e, "dense_bf16_tflops", "must be a number in 1..=100000");
    }
    k.positive(e, "power_w", g.power_w);
    if g.id != g.id.to_ascii_lowercase() {
        k.fail(
            e,
            "id",
            "must be lower case (requests match it case-insensitively)",
        );
    }
    if !(1..=576).contains(&g.nvlink_domain_gpus) || g.nvlink_domain_gpus < g.gpus_per_node {
        k.fail(
            e,
            "nvlink_domain_gpus",
            "must be 1..=576 and at least gpus_per_node",
        );
    }
    if ![100, 200, 400, 800, 1600].contains(&g.nic_speed_gbps) {
        k.fail(e, "nic_speed_gbps", "must be 100, 200, 400, 800 or 1600");
    }
}

/// A GPU's purchase and rental prices, each inside its range, and their source.
fn check_gpu_prices(k: &mut Checker, e: &str, g: &Gpu) {
    k.range(
        e,
        "purchase_range_usd",
        g.purchase_usd,
        g.purchase_range_usd.as_ref(),
    );
    k.range(
        e,
        "rental_range_usd_per_hour",
        g.rental_usd_per_hour,
        g.rental_range_usd_per_hour.as_ref(),
    );
    for (field, v) in [
        ("purchase_usd", g.purchase_usd),
        ("rental_usd_per_hour", g.rental_usd_per_hour),
    ] {
        if let Some(v) = v {
            k.positive(e, field, v);
        }
    }
    // 0 where the purchase price is the whole system's share (an NVL72 rack's price / 72).
    if let Some(v) = g.server_share_usd {
        k.non_negative(e, "server_share_usd", v);
    }
    k.provenance(e, &g.provenance);
}

/// The operations figures, each inside its plausible range.
fn check_operations(k: &mut Checker, o: &Operations) {
    let d = Decimal::from;
    for (name, figure, min, max) in [
        ("electricity_usd_per_kwh", &o.electricity_usd_per_kwh, 0, 10),
        ("pue", &o.pue, 1, 3),
        ("support_rate", &o.support_rate, 0, 1),
        (
            "network_engineer_usd_per_year",
            &o.network_engineer_usd_per_year,
            0,
            10_000_000,
        ),
        (
            "ib_specialist_usd_per_year",
            &o.ib_specialist_usd_per_year,
            0,
            10_000_000,
        ),
        (
            "gpus_per_network_fte",
            &o.gpus_per_network_fte,
            1,
            1_000_000,
        ),
        (
            "gpus_per_ib_specialist",
            &o.gpus_per_ib_specialist,
            1,
            1_000_000,
        ),
        ("depreciation_years", &o.depreciation_years, 1, 15),
        ("spares_rate", &o.spares_rate, 0, 1),
        ("busy_fraction", &o.busy_fraction, 0, 1),
        ("discount_rate", &o.discount_rate, 0, 1),
    ] {
        k.figure(name, figure, d(min), d(max));
    }
}

/// Fabric profiles: one per fabric, every reference resolves to an entry of the right kind.
fn check_fabric_profiles(k: &mut Checker, c: &CatalogData) {
    let mut seen = HashSet::new();
    for (i, p) in c.fabric_profiles.iter().enumerate() {
        let e = format!("fabric_profiles[{i}] ({})", p.fabric.as_str());
        if !seen.insert(p.fabric) {
            k.fail(&e, "fabric", "duplicate profile for this fabric");
        }
        k.text(&e, "description", &p.description);
        k.provenance(&e, &p.provenance);
        let switches = |sku: &str| by_sku(&c.switches, sku).map(|x| &x.fabrics);
        let by_link_speed = ("switch_by_link_speed", "link speed", "switch");
        k.by_speed(
            &e,
            p.fabric,
            &p.switch_by_link_speed,
            by_link_speed,
            switches,
        );
        let nics = |sku: &str| by_sku(&c.nics, sku).map(|x| &x.fabrics);
        k.by_speed(
            &e,
            p.fabric,
            &p.nic_by_speed,
            ("nic_by_speed", "NIC speed", "NIC"),
            nics,
        );
        check_profile_licenses(k, c, &e, p);
        check_profile_cabling(k, c, &e, p);
    }
    for f in Fabric::ALL {
        if !seen.contains(&f) {
            k.fail(
                "fabric_profiles",
                "fabric",
                format!("no profile for {}", f.as_str()),
            );
        }
    }
}

/// A profile's licences: each one known and of a kind plans charge on its fabric.
fn check_profile_licenses(k: &mut Checker, c: &CatalogData, e: &str, p: &FabricProfile) {
    for (j, l) in p.licenses.iter().enumerate() {
        match by_sku(&c.licenses, l).map(|x| x.basis) {
            None => k.fail(
                e,
                &format!("licenses[{j}]"),
                format!("unknown licence SKU '{l}'"),
            ),
            // Plans charge a yearly licence by its kind of fabric: the per-switch one on
            // every Ethernet fabric, the per-endpoint one (UFM) on InfiniBand.
            Some(LicenseBasis::PerSwitchPerYear) if !p.fabric.is_ethernet() => k.fail(
                e,
                &format!("licenses[{j}]"),
                format!(
                    "'{l}' is per switch per year, which plans charge on Ethernet fabrics only"
                ),
            ),
            Some(LicenseBasis::PerEndpointPerYear) if p.fabric.is_ethernet() => k.fail(
                e,
                &format!("licenses[{j}]"),
                format!(
                    "'{l}' is per endpoint per year (UFM), which plans charge on InfiniBand only"
                ),
            ),
            Some(_) => {}
        }
    }
    // …and every Ethernet profile pays the per-switch one: a profile that leaves it out
    // would be charged it all the same.
    if p.fabric.is_ethernet()
        && let Some(nos) = c
            .licenses
            .iter()
            .find(|l| l.basis == LicenseBasis::PerSwitchPerYear)
        && !p
            .licenses
            .iter()
            .any(|l| l.as_str() == nos.part.sku.as_str())
    {
        k.fail(
            e,
            "licenses",
            format!(
                "must list '{}': plans charge the per-switch-per-year licence on every Ethernet fabric",
                nos.part.sku
            ),
        );
    }
}

/// A profile's cabling: at least one link speed, every tier's parts known and consistent.
fn check_profile_cabling(k: &mut Checker, c: &CatalogData, e: &str, p: &FabricProfile) {
    if p.cabling.is_empty() {
        k.fail(
            e,
            "cabling",
            "must list cabling for at least one link speed",
        );
    }
    for (j, cab) in p.cabling.iter().enumerate() {
        let optional = [
            ("inter_switch", cab.inter_switch.as_ref()),
            ("node_leaf_in_rack", cab.node_leaf_in_rack.as_ref()),
        ];
        for (tier, t) in [
            ("node_leaf", Some(&cab.node_leaf)),
            ("leaf_spine", Some(&cab.leaf_spine)),
            ("spine_core", Some(&cab.spine_core)),
        ]
        .into_iter()
        .chain(optional)
        {
            let Some(t) = t else { continue };
            let field = format!("cabling[{j}].{tier}");
            let node_side = tier.starts_with("node_leaf");
            check_tier(k, c, e, &field, t, cab.link_speed_gbps, node_side);
        }
    }
}

fn check_tier(
    k: &mut Checker,
    c: &CatalogData,
    entry: &str,
    field: &str,
    t: &TierCabling,
    speed: u32,
    node_side: bool,
) {
    let module = |sku: &Option<String>, k: &mut Checker, which: &str| {
        if let Some(s) = sku {
            match by_sku(&c.transceivers, s) {
                None => k.fail(
                    entry,
                    &format!("{field}.{which}"),
                    format!("unknown transceiver SKU '{s}'"),
                ),
                Some(x) if x.link_speed_gbps != speed => k.fail(
                    entry,
                    &format!("{field}.{which}"),
                    format!(
                        "transceiver '{s}' serves {} Gb/s links, not {speed}",
                        x.link_speed_gbps
                    ),
                ),
                Some(_) => {}
            }
        }
    };
    module(&t.switch_module, k, "switch_module");
    if node_side {
        module(&t.nic_module, k, "nic_module");
    } else if t.nic_module.is_some() {
        k.fail(
            entry,
            &format!("{field}.nic_module"),
            "only the node_leaf tier has NIC modules",
        );
    }
    match by_sku(&c.cables, &t.cable) {
        None => k.fail(
            entry,
            &format!("{field}.cable"),
            format!("unknown cable SKU '{}'", t.cable),
        ),
        Some(cb) => {
            let copper = cb.medium == super::schema::Medium::Copper;
            let has_modules = t.switch_module.is_some() || t.nic_module.is_some();
            if copper && has_modules {
                k.fail(
                    entry,
                    &format!("{field}.cable"),
                    "copper cables carry their own ends: no modules",
                );
            }
            if !copper && (t.switch_module.is_none() || (node_side && t.nic_module.is_none())) {
                k.fail(
                    entry,
                    &format!("{field}.cable"),
                    "fibre needs a transceiver at each end",
                );
            }
        }
    }
}

#[cfg(test)]
mod date_tests {
    use super::*;

    /// One wrong GPU field is one problem: each rule is written once.
    #[test]
    fn a_wrong_gpu_field_is_reported_once() {
        let text = crate::catalog::EMBEDDED
            .first()
            .map(|(_, t)| *t)
            .unwrap_or_default();
        let mut data: CatalogData = serde_json::from_str(text).unwrap();
        assert!(validate(&data).is_empty());
        let gpu = data.gpus.first_mut().unwrap();
        gpu.nvlink_domain_gpus = 0;
        gpu.dense_bf16_tflops = -1.0;
        let fields: Vec<String> = validate(&data).into_iter().map(|p| p.field).collect();
        assert_eq!(fields, ["dense_bf16_tflops", "nvlink_domain_gpus"]);
    }

    #[test]
    fn dates_are_real_calendar_dates() {
        for ok in ["2026-11", "2026-11-22", "2024-02-29", "1990-01-01"] {
            assert!(is_date(ok), "{ok}");
        }
        for bad in [
            "9999-99-99",
            "2026-13",
            "2026-02-30",
            "2023-02-29",
            "2026-00-10",
            "26-11-22",
            "2026/11/22",
            "9999-12-31",
        ] {
            assert!(!is_date(bad), "{bad}");
        }
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert!(in_the_future("2100-01-01"));
        assert!(!in_the_future("2024-06-01"));
    }
}
