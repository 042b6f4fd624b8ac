//! Catalog loading and validation against broken fixtures: each must fail with a message that
//! names the file, the entry and the field.

use super::*;

fn default_json() -> serde_json::Value {
    serde_json::from_str(EMBEDDED[0].1).expect("embedded catalog is JSON")
}

fn load_err(v: &serde_json::Value) -> String {
    let bytes = serde_json::to_vec(v).expect("serialize");
    match Catalog::parse("fixture.json", &bytes) {
        Ok(_) => panic!("a broken catalog loaded"),
        Err(e) => e.to_string(),
    }
}

fn assert_names(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message does not name '{p}': {msg}");
    }
}

/// The embedded catalog with `edit` applied must fail to load with a message naming `parts`.
fn assert_broken(edit: impl FnOnce(&mut serde_json::Value), parts: &[&str]) {
    let mut v = default_json();
    edit(&mut v);
    assert_names(&load_err(&v), parts);
}

#[test]
fn embedded_catalog_loads_and_is_consistent() {
    let set = CatalogSet::embedded().expect("embedded catalog loads");
    let c = set.newest();
    assert_eq!(c.id(), "default");
    assert_eq!(c.sha256.len(), 64);
    for f in crate::fabric::Fabric::ALL {
        assert!(c.profile(f).is_some(), "profile for {f:?}");
    }
    assert!(c.is_placeholder("nvidia-q3400-ra"));
    assert!(!c.is_placeholder("nvidia-qm9700"));
}

#[test]
fn non_positive_price_is_named() {
    assert_broken(
        |v| v["switches"][1]["price_usd"] = "0".into(),
        &[
            "fixture.json",
            "switches[1] (nvidia-qm9790)",
            "price_usd",
            "> 0",
        ],
    );
}

#[test]
fn missing_source_is_named() {
    assert_broken(
        |v| _ = v["nics"][0].as_object_mut().unwrap().remove("source"),
        &["fixture.json", "nics[0]", "source"],
    );
    assert_broken(
        |v| v["cables"][0]["source"] = " ".into(),
        &["cables[0] (fiber-mpo12-om4-10m)", "source", "empty"],
    );
}

#[test]
fn duplicate_sku_is_named() {
    assert_broken(
        |v| v["transceivers"][1]["sku"] = v["transceivers"][0]["sku"].clone(),
        &["transceivers[1]", "sku", "duplicate SKU 'osfp-800g-2xsr4'"],
    );
}

/// A SKU is an identifier requests can name (audit 17: a spaced or 70-character SKU could be
/// priced but not swept or chosen as `topology.switch_sku`).
#[test]
fn a_sku_is_an_identifier() {
    assert_broken(
        |v| v["cables"][0]["sku"] = "fiber mpo12".into(),
        &["cables[0] (fiber mpo12)", "sku", "is not 1–64 of A–Z"],
    );
    assert_broken(
        |v| v["cables"][0]["sku"] = "x".repeat(65).into(),
        &["cables[0]", "sku", "is not 1–64"],
    );
}

#[test]
fn unknown_sku_reference_is_named() {
    assert_broken(
        |v| v["fabric_profiles"][0]["switch_by_link_speed"]["400"] = "no-such-switch".into(),
        &[
            "fabric_profiles[0] (infiniband)",
            "switch_by_link_speed.400",
            "unknown switch SKU 'no-such-switch'",
        ],
    );
    assert_broken(
        |v| v["fabric_profiles"][1]["cabling"][0]["leaf_spine"]["cable"] = "nope".into(),
        &[
            "fabric_profiles[1] (roce)",
            "cabling[0].leaf_spine.cable",
            "unknown cable SKU 'nope'",
        ],
    );

    // The optional in-rack cabling is checked like the tiers: an unknown SKU, and optics
    // with copper.
    let i = default_json()["fabric_profiles"][0]["cabling"]
        .as_array()
        .and_then(|a| a.iter().position(|c| c["link_speed_gbps"] == 400))
        .expect("400G cabling");
    assert_broken(
        |v| v["fabric_profiles"][0]["cabling"][i]["inter_switch"]["cable"] = "dac-nope".into(),
        &[
            &format!("cabling[{i}].inter_switch.cable"),
            "unknown cable SKU 'dac-nope'",
        ],
    );
    assert_broken(
        |v| {
            v["fabric_profiles"][0]["cabling"][i]["node_leaf_in_rack"]["nic_module"] =
                "osfp-400g-sr4".into();
        },
        &[
            &format!("cabling[{i}].node_leaf_in_rack.cable"),
            "copper cables carry their own ends",
        ],
    );
}

#[test]
fn wrong_type_names_the_field_path() {
    assert_broken(
        |v| v["switches"][0]["ports"] = "many".into(),
        &["fixture.json", "switches[0].ports"],
    );
}

#[test]
fn unknown_field_is_rejected() {
    assert_broken(
        |v| v["gpus"][0]["nvlink_gbps_typo"] = 1.into(),
        &["gpus[0]", "nvlink_gbps_typo"],
    );
    // Every kind whose name and price are flattened in still refuses a field it does not have.
    for kind in ["switches", "nics", "transceivers", "cables", "licenses"] {
        assert_broken(
            |v| v[kind][0]["price_usd_typo"] = "1".into(),
            &[&format!("{kind}[0]"), "price_usd_typo"],
        );
    }
}

#[test]
fn out_of_range_operating_figure_is_named() {
    assert_broken(
        |v| v["operations"]["pue"]["value"] = "0.5".into(),
        &["operations.pue", "value"],
    );
}

#[test]
fn directory_loading_names_the_broken_file() {
    let dir = std::env::temp_dir().join(format!("fabric-tco-cat-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut v = default_json();
    v["id"] = "second".into();
    v["nics"][2]["price_usd"] = "-5".into();
    std::fs::write(dir.join("broken.json"), serde_json::to_vec(&v).unwrap()).unwrap();
    std::fs::write(dir.join("good.json"), EMBEDDED[0].1).unwrap();
    let err = CatalogSet::from_dir(&dir).unwrap_err().to_string();
    assert_names(
        &err,
        &[
            "broken.json",
            "nics[2] (nvidia-bf3-supernic-400g)",
            "price_usd",
        ],
    );

    std::fs::remove_file(dir.join("broken.json")).unwrap();
    v["nics"][2]["price_usd"] = "2000".into();
    v["published"] = crate::catalog::validate::day_after_embedded().into();
    std::fs::write(dir.join("newer.json"), serde_json::to_vec(&v).unwrap()).unwrap();
    let set = CatalogSet::from_dir(&dir).unwrap();
    assert_eq!(set.all().len(), 2);
    assert_eq!(
        set.newest().id(),
        "second",
        "newest published is the default"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn duplicate_catalog_ids_are_rejected() {
    let a = Catalog::parse("a.json", EMBEDDED[0].1.as_bytes()).unwrap();
    let b = Catalog::parse("b.json", EMBEDDED[0].1.as_bytes()).unwrap();
    let err = CatalogSet::new(vec![a, b]).unwrap_err().to_string();
    assert!(err.contains("duplicate catalog id 'default'"), "{err}");
}

#[test]
fn price_ranges_must_bracket_the_price_and_follow_it() {
    // Above the high end.
    assert_broken(
        |v| v["switches"][0]["price_usd"] = "999999.00".into(),
        &[
            "switches[0] (nvidia-qm9700)",
            "price_range_usd",
            "low <= price <= high",
        ],
    );
    // Missing on a priced entry: a schema error naming the field.
    assert_broken(
        |v| {
            _ = v["transceivers"][0]
                .as_object_mut()
                .unwrap()
                .remove("price_range_usd")
        },
        &["price_range_usd"],
    );
    // A GPU range without the price it ranges.
    assert_broken(
        |v| {
            let gpus = v["gpus"].as_array_mut().unwrap();
            let h100 = gpus.iter_mut().find(|g| g["id"] == "h100").unwrap();
            h100["purchase_usd"] = serde_json::Value::Null;
        },
        &["gpus[1] (h100)", "purchase_range_usd", "without a price"],
    );
}

#[test]
fn every_priced_entry_has_a_range_and_new_gpus_have_their_figures() {
    let set = CatalogSet::embedded().expect("catalog");
    let c = set.newest();
    let json = serde_json::to_value(&c.data).expect("json");
    for kind in ["switches", "nics", "transceivers", "cables"] {
        for e in json[kind].as_array().unwrap() {
            assert!(
                e["price_range_usd"]["low"].is_string(),
                "{kind} {}",
                e["sku"]
            );
            assert!(
                e["price_range_usd"]["high"].is_string(),
                "{kind} {}",
                e["sku"]
            );
        }
    }
    for (id, per_node, domain, tflops, nic) in [
        ("a100", 8, 8, 312.0, 200),
        ("h100", 8, 8, 989.0, 400),
        ("h200", 8, 8, 989.0, 400),
        ("b200", 8, 8, 2250.0, 400),
        ("b300", 8, 8, 2250.0, 800),
        ("gb200-nvl72", 4, 72, 2500.0, 400),
        ("gb300-nvl72", 4, 72, 2500.0, 800),
    ] {
        let g = c.gpu(&id.to_ascii_uppercase()).expect(id);
        assert_eq!(
            (
                g.gpus_per_node,
                g.nvlink_domain_gpus,
                g.dense_bf16_tflops,
                g.nic_speed_gbps
            ),
            (per_node, domain, tflops, nic),
            "{id}"
        );
    }
    // BlueField-3 takes QSFP112.
    assert_eq!(
        c.transceiver("qsfp112-400g-sr4")
            .expect("qsfp112")
            .form_factor,
        "QSFP112"
    );
}

/// A one-off licence per switch is refused at load: no bill of materials prices it, and a
/// catalog with one used to load and leave it out of capex (audit 21 F7).
#[test]
fn a_one_off_licence_is_refused() {
    assert_broken(
        |v| v["licenses"][1]["basis"] = "per_switch".into(),
        &[
            "fixture.json",
            "licenses[1] (ethernet-nos-support)",
            "basis",
            "per_switch_per_year",
        ],
    );
}

/// A catalog's yearly licences must be what plans charge: one of each kind, the per-switch one
/// listed by every Ethernet profile and by no InfiniBand one, the per-endpoint one (UFM) by
/// InfiniBand only and unpriced (its price is a request input). A second per-switch licence was
/// never charged, and one listed by RoCE alone was charged to adaptive Ethernet too (audit 23 F3).
#[test]
fn yearly_licences_are_the_ones_plans_charge() {
    assert_broken(
        |v| {
            let mut second = v["licenses"][1].clone();
            second["sku"] = "nos-two".into();
            v["licenses"].as_array_mut().expect("licences").push(second);
        },
        &["licenses[2] (nos-two)", "basis", "a second licence"],
    );
    assert_broken(
        |v| v["fabric_profiles"][2]["licenses"] = serde_json::json!([]),
        &[
            "fabric_profiles[2] (roce_adaptive)",
            "licenses",
            "must list 'ethernet-nos-support'",
        ],
    );
    assert_broken(
        |v| v["fabric_profiles"][0]["licenses"] = serde_json::json!(["ethernet-nos-support"]),
        &[
            "fabric_profiles[0] (infiniband)",
            "licenses[0]",
            "Ethernet fabrics only",
        ],
    );
    assert_broken(
        |v| v["licenses"][0]["price_usd"] = "100".into(),
        &[
            "licenses[0] (nvidia-ufm-enterprise)",
            "price_usd",
            "must be null",
        ],
    );
}

/// #44: a price that overflows the arithmetic, a power no part draws, a version with a line
/// break and a description of megabytes are refused at load, each named.
#[test]
fn figures_and_texts_out_of_bounds_are_refused_at_load() {
    assert_broken(
        |v| v["switches"][0]["price_usd"] = "79228162514264337593543950335".into(),
        &["switches", "price_usd", "more than 100000000 USD"],
    );
    assert_broken(
        |v| v["switches"][0]["price_range_usd"]["high"] = "1000000000".into(),
        &["price_range_usd", "high"],
    );
    assert_broken(
        |v| v["nics"][0]["power_w"] = "5000000".into(),
        &["nics", "power_w", "more than 1000000 W"],
    );
    assert_broken(
        |v| v["version"] = "2026.11.0\nINFO forged line".into(),
        &["version", "control character"],
    );
    assert_broken(
        |v| v["switches"][1]["description"] = "x".repeat(validate::MAX_TEXT_CHARS + 1).into(),
        &["description", "longer than 4000"],
    );
}

/// The day after a date, across month, leap-day and year ends.
#[test]
fn the_day_after_crosses_month_and_year_ends() {
    use crate::catalog::validate::day_after;
    for (d, next) in [
        ("2026-11-29", "2026-11-30"),
        ("2026-11-30", "2026-12-01"),
        ("2026-12-31", "2027-01-01"),
        ("2028-02-28", "2028-02-29"),
        ("2027-02-28", "2027-03-01"),
    ] {
        assert_eq!(day_after(d).as_deref(), Some(next), "{d}");
    }
    assert_eq!(day_after("not a date"), None);
}

/// A chassis' slots times its line card's ports are its ports, and each module it names is in
/// `chassis_modules` as that kind of module.
#[test]
fn a_chassis_names_its_modules_and_its_ports_add_up() {
    let chassis = |v: &serde_json::Value| {
        v["switches"]
            .as_array()
            .unwrap()
            .iter()
            .position(|s| s.get("chassis").is_some())
            .expect("a chassis in the catalog")
    };
    assert_broken(
        |v| {
            let i = chassis(v);
            v["switches"][i]["ports"] = 100.into();
        },
        &[
            "arista-7804r3",
            "ports",
            "line_card_slots × the line card's ports",
        ],
    );
    assert_broken(
        |v| {
            let i = chassis(v);
            let sup = v["switches"][i]["chassis"]["supervisor"].clone();
            v["switches"][i]["chassis"]["fabric_module"] = sup;
        },
        &[
            "chassis.fabric_module",
            "is not a FabricModule of chassis_modules",
        ],
    );
    assert_broken(
        |v| {
            let i = chassis(v);
            v["switches"][i]["chassis"]["line_card"] = "no-such-card".into();
        },
        &["chassis.line_card", "'no-such-card' is not a LineCard"],
    );
}
