//! A spine of another model (`topology.spine_sku`): the published 4-leaf, 2-spine design
//! reproduced with the parts it names, and the requests that cannot be built refused at the
//! field.

use rust_decimal::Decimal;
use serde_json::{Value, json};

use crate::{assert_problem, spawn_app};

fn dec(v: &Value) -> Decimal {
    v.as_str().unwrap().parse().unwrap()
}

/// The catalog entry of `sku` in `section`.
fn entry<'a>(catalog: &'a Value, section: &str, sku: &str) -> &'a Value {
    catalog["content"][section]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["sku"] == sku)
        .unwrap_or_else(|| panic!("{sku} in {section}"))
}

/// The BOM lines whose description ends with `ending`.
fn lines<'a>(f: &'a Value, ending: &str) -> Vec<&'a Value> {
    f["bom"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|l| l["description"].as_str().unwrap().ends_with(ending))
        .collect()
}

#[tokio::test]
async fn the_articles_four_leaf_two_spine_design_is_built_of_the_parts_it_names() {
    let app = spawn_app().await;
    let catalog = app.ok_json("/v1/catalogs/default").await;
    let data: Value = serde_json::from_str(include_str!("../data/reference_designs.json")).unwrap();
    for case in data["cases"].as_array().unwrap() {
        let (req, want) = (&case["request"], &case["expect"]);
        let res = app.post_json("/v1/plans", req).await;
        assert_eq!(res.status(), 200, "{}", case["name"]);
        let plan: Value = res.json().await.unwrap();
        let f = &plan["fabrics"][0];
        let t = &f["topology"];
        for key in [
            "nodes",
            "tiers",
            "leaf_switches",
            "spine_switches",
            "leaf_downlinks",
            "leaf_uplinks",
            "uplink_speed_gbps",
            "oversubscription_realised",
        ] {
            assert_eq!(t[key], want[key], "{}: {key} in {t}", case["name"]);
        }
        assert_eq!(t["links"]["node_leaf"], want["node_leaf"]);
        assert_eq!(t["links"]["leaf_spine"], want["leaf_spine"]);
        assert_eq!(t["spine_sku"], req["topology"]["spine_sku"]);

        // Each switch role is the model asked, at its catalog price.
        for (role, sku, count) in [
            (
                "leaf",
                &req["topology"]["switch_sku"],
                &want["leaf_switches"],
            ),
            (
                "spine",
                &req["topology"]["spine_sku"],
                &want["spine_switches"],
            ),
        ] {
            let l = lines(f, &format!(" — {role}"));
            assert_eq!(l.len(), 1, "{role}: {l:?}");
            assert_eq!(&l[0]["sku"], sku);
            assert_eq!(&l[0]["quantity"], count);
            let sw = entry(&catalog, "switches", sku.as_str().unwrap());
            assert_eq!(l[0]["unit_price_usd"], sw["price_usd"]);
            if sw["grade"] == "P" {
                let warned = plan["warnings"].as_array().unwrap().iter().any(|w| {
                    let w = w.as_str().unwrap();
                    w.contains(sku.as_str().unwrap()) && w.contains("placeholder")
                });
                assert!(warned, "{sku} placeholder warned: {}", plan["warnings"]);
            }
        }

        // Every leaf–spine link has a module at each end, of the uplink cages' form factor and
        // speed, and a fibre; every node link has a module at each end.
        let up = lines(f, " — leaf_spine switch side");
        assert_eq!(up.len(), 1, "{up:?}");
        let module = entry(&catalog, "transceivers", up[0]["sku"].as_str().unwrap());
        assert_eq!(module["form_factor"], want["leaf_spine_module_form_factor"]);
        assert_eq!(module["link_speed_gbps"], want["uplink_speed_gbps"]);
        let leaf_spine = want["leaf_spine"].as_u64().unwrap();
        assert_eq!(up[0]["quantity"].as_u64(), Some(2 * leaf_spine));
        assert_eq!(
            lines(f, " — leaf_spine")
                .iter()
                .map(|l| l["quantity"].as_u64().unwrap())
                .sum::<u64>(),
            leaf_spine,
            "one fibre a leaf-spine link"
        );
        let node_leaf = want["node_leaf"].as_u64().unwrap();
        for ending in [" — node_leaf switch side", " — NIC side"] {
            let q: u64 = lines(f, ending)
                .iter()
                .map(|l| l["quantity"].as_u64().unwrap())
                .sum();
            assert_eq!(q, node_leaf, "{ending}");
        }
        // The switches' capex is the two lines.
        let switches: Decimal = lines(f, " — leaf")
            .iter()
            .chain(lines(f, " — spine").iter())
            .map(|l| dec(&l["unit_price_usd"]) * Decimal::from(l["quantity"].as_u64().unwrap()))
            .sum();
        assert_eq!(dec(&f["capex"]["switches_usd"]), switches);
        assert!(f["performance"]["gpu_idle_fraction"].as_f64().unwrap() > 0.0);
    }
}

#[tokio::test]
async fn a_spine_of_another_model_is_refused_where_it_cannot_be_built() {
    let app = spawn_app().await;
    let article = |gpus: u32, topology: Value| {
        let mut t = json!({
            "switch_sku": "arista-7280cr3-32d4",
            "spine_sku": "arista-7060dx5-64s",
            "oversubscription": 2
        });
        for (k, v) in topology.as_object().unwrap() {
            t[k] = v.clone();
        }
        json!({"gpus": gpus, "fabrics": ["roce"], "nics_per_node": 4, "nic_speed_gbps": 100,
               "topology": t})
    };
    // The 64 spine ports' leaves hold 2,048 server ports: 512 servers fit, one more does not,
    // and a larger spine is what would help.
    let res = app.post_json("/v1/plans", &article(4096, json!({}))).await;
    assert_eq!(res.status(), 200);
    for (body, pointer, code) in [
        (
            article(4104, json!({})),
            "/topology/spine_sku",
            "exceeds_tier_ceiling",
        ),
        (
            article(256, json!({"spine_sku": "arista-7050cx3-32s"})),
            "/topology/spine_sku",
            "unsupported_link_speed",
        ),
        (
            article(256, json!({"spine_sku": "no-such-switch"})),
            "/topology/spine_sku",
            "unknown_sku",
        ),
        (
            article(256, json!({"design": "dual_switch"})),
            "/topology/design",
            "design_does_not_fit",
        ),
        (
            json!({"gpus": 256, "fabrics": ["roce", "infiniband"],
                   "topology": {"spine_sku": "arista-7060dx5-64s"}}),
            "/topology/spine_sku",
            "switch_cannot_run_fabric",
        ),
    ] {
        let p = assert_problem(app.post_json("/v1/plans", &body).await, 422).await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{p}");
        assert_eq!(p["errors"][0]["code"], code, "{p}");
    }
}

/// A dual-port 100GbE card (two QSFP28 cages, 100G a link on Ethernet) runs two planes of
/// 100G at the card's 200 Gb/s: a QSFP28 module in each cage, every node link at 100G, its
/// placeholder price and power warned.
#[tokio::test]
async fn a_dual_100g_card_runs_a_plane_on_each_cage() {
    let app = spawn_app().await;
    let catalog = app.ok_json("/v1/catalogs/default").await;
    let sku = "nvidia-cx5-ex-2x100g";
    let nic = entry(&catalog, "nics", sku);
    let link = nic["ethernet_max_link_gbps"].as_u64().unwrap();
    let planes = nic["speed_gbps"].as_u64().unwrap() / link;
    assert_eq!(planes, nic["ports"].as_u64().unwrap(), "a link a cage");
    let res = app
        .post_json(
            "/v1/plans",
            &json!({"gpus": 256, "fabrics": ["roce"], "nics_per_node": 4,
                    "topology": {"nic_sku": sku}}),
        )
        .await;
    assert_eq!(res.status(), 200);
    let plan: Value = res.json().await.unwrap();
    let f = &plan["fabrics"][0];
    assert_eq!(f["topology"]["planes"].as_u64(), Some(planes));
    assert_eq!(f["topology"]["link_speed_gbps"].as_u64(), Some(link));
    let nics = 32 * 4;
    let card = lines(f, "");
    let card = card.iter().find(|l| l["sku"] == sku).unwrap();
    assert_eq!(card["quantity"].as_u64(), Some(nics));
    assert_eq!(card["unit_price_usd"], nic["price_usd"]);
    let side = lines(f, " — NIC side");
    assert_eq!(side.len(), 1);
    assert_eq!(side[0]["quantity"].as_u64(), Some(nics * planes));
    let module = entry(&catalog, "transceivers", side[0]["sku"].as_str().unwrap());
    assert_eq!(module["form_factor"], nic["cage"]);
    assert_eq!(module["link_speed_gbps"].as_u64(), Some(link));
    let warnings: Vec<&str> = plan["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .filter(|w| w.contains(sku))
        .collect();
    assert!(warnings.iter().any(|w| w.contains("price")), "{warnings:?}");
    assert!(warnings.iter().any(|w| w.contains("power")), "{warnings:?}");
}

/// The alternative listed for `design`, if any.
fn alternative<'a>(f: &'a Value, design: &str) -> Option<&'a Value> {
    f["design_alternatives"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["design"] == design)
}

/// Where leaf–spine on the fabric's own switch needs a third tier, a chassis spine keeps two:
/// it is listed then, priced as its own plan prices it, chosen when two tiers are asked, and
/// built of the chassis, its line cards for the links each takes, and every chassis' fabric
/// modules and supervisors. Where two tiers suffice it is not listed.
#[tokio::test]
async fn a_chassis_spine_is_an_alternative_where_it_removes_a_tier() {
    let app = spawn_app().await;
    let catalog = app.ok_json("/v1/catalogs/default").await;
    let plan = |body: Value| {
        let app = &app;
        async move {
            let res = app.post_json("/v1/plans", &body).await;
            assert_eq!(res.status(), 200);
            res.json::<Value>().await.unwrap()
        }
    };
    let two_tiers = plan(json!({"gpus": 8192, "fabrics": ["roce"]})).await;
    let f = &two_tiers["fabrics"][0];
    assert_eq!(alternative(f, "su_clos").unwrap()["tiers"], 2);
    assert!(alternative(f, "chassis_spine").is_none(), "{f}");

    let auto = plan(json!({"gpus": 16384, "fabrics": ["roce"]})).await;
    let f = &auto["fabrics"][0];
    assert_eq!(alternative(f, "su_clos").unwrap()["tiers"], 3);
    let listed = alternative(f, "chassis_spine")
        .expect("chassis listed")
        .clone();
    assert_eq!(listed["tiers"], 2);
    assert_eq!(listed["core_switches"], 0);

    let named = plan(json!({"gpus": 16384, "fabrics": ["roce"],
                            "topology": {"design": "chassis_spine"}}))
    .await;
    let c = &named["fabrics"][0];
    assert_eq!(c["topology"]["design"], "chassis_spine");
    assert_eq!(c["capex"]["total_usd"], listed["capex_usd"]);
    // Its power as listed is the plan's IT power once built, and the chassis' modules count.
    assert_eq!(c["opex_per_year"]["it_power_w"], listed["it_power_w"]);
    let su = alternative(f, "su_clos").unwrap();
    let chosen = &auto["fabrics"][0]["opex_per_year"]["it_power_w"];
    assert_eq!(&su["it_power_w"], chosen);
    let capped =
        plan(json!({"gpus": 16384, "fabrics": ["roce"], "topology": {"max_tiers": 2}})).await;
    assert_eq!(capped["fabrics"][0]["topology"]["design"], "chassis_spine");
    // The chassis named as the spine builds the same design.
    let spine = named["fabrics"][0]["topology"]["spine_sku"].clone();
    let as_spine = plan(json!({"gpus": 16384, "fabrics": ["roce"],
                               "topology": {"spine_sku": spine}}))
    .await;
    assert_eq!(
        as_spine["fabrics"][0]["topology"]["design"],
        "chassis_spine"
    );
    assert_eq!(
        as_spine["fabrics"][0]["capex"],
        named["fabrics"][0]["capex"]
    );

    // Its parts, counted from the catalog's chassis.
    let t = &c["topology"];
    let sku = t["spine_sku"].as_str().unwrap();
    let chassis = entry(&catalog, "switches", sku);
    let slots = &chassis["chassis"];
    let spines = t["spine_switches"].as_u64().unwrap();
    let links = t["links"]["leaf_spine"].as_u64().unwrap();
    let card = entry(
        &catalog,
        "chassis_modules",
        slots["line_card"].as_str().unwrap(),
    );
    let per_card = card["ports"].as_u64().unwrap()
        * (chassis["port_speed_gbps"].as_u64().unwrap() / t["link_speed_gbps"].as_u64().unwrap());
    let (q, r) = (links / spines, links % spines);
    let cards = r * (q + 1).div_ceil(per_card) + (spines - r) * q.div_ceil(per_card);
    for (ending, sku, quantity) in [
        (" — spine", sku, spines),
        (" — spine line card", card["sku"].as_str().unwrap(), cards),
        (
            " — spine fabric module",
            slots["fabric_module"].as_str().unwrap(),
            spines * slots["fabric_modules"].as_u64().unwrap(),
        ),
        (
            " — spine supervisor",
            slots["supervisor"].as_str().unwrap(),
            spines * slots["supervisors"].as_u64().unwrap(),
        ),
    ] {
        let l = lines(c, ending);
        assert_eq!(l.len(), 1, "{ending}");
        assert_eq!(l[0]["sku"], sku);
        assert_eq!(l[0]["quantity"].as_u64(), Some(quantity), "{ending}");
    }
    // Every leaf–spine link has a module at each end that fits it: the spine end of the
    // chassis' cage form factor.
    let spine_end = lines(c, " — leaf_spine spine side");
    assert_eq!(spine_end.len(), 1, "{}", c["bom"]);
    let m = entry(
        &catalog,
        "transceivers",
        spine_end[0]["sku"].as_str().unwrap(),
    );
    assert_eq!(m["form_factor"], chassis["cage"]);
    assert_eq!(spine_end[0]["quantity"].as_u64(), Some(links));
    let leaf_end = lines(c, " — leaf_spine leaf side");
    let per = leaf_end[0]["unit"].as_str().unwrap().to_string();
    assert!(
        leaf_end[0]["quantity"].as_u64().unwrap() * 2 >= links,
        "{per}"
    );

    // A leaf-spine module no catalog module of the chassis' cage can stand in for (multimode
    // 400G: the catalog's QSFP-DD 400G is single-mode) is priced at both ends, and said.
    let mm = plan(json!({"gpus": 16384, "fabrics": ["roce"],
        "topology": {"design": "chassis_spine", "cabling": {"leaf_spine":
            {"switch_module": "osfp-400g-sr4", "cable": "fiber-mpo12-om4-10m"}}}}))
    .await;
    let warned = mm["warnings"].as_array().unwrap().iter().any(|w| {
        let w = w.as_str().unwrap();
        w.contains(sku) && w.contains("QSFP-DD cages") && w.contains("osfp-400g-sr4")
    });
    assert!(warned, "{}", mm["warnings"]);
    let both = lines(&mm["fabrics"][0], " — leaf_spine switch side");
    assert_eq!(both[0]["quantity"].as_u64(), Some(2 * links));

    // InfiniBand has no chassis in the catalog: named, the design does not fit.
    let p = assert_problem(
        app.post_json(
            "/v1/plans",
            &json!({"gpus": 16384, "fabrics": ["infiniband"],
                    "topology": {"design": "chassis_spine"}}),
        )
        .await,
        422,
    )
    .await;
    assert_eq!(p["errors"][0]["code"], "design_does_not_fit", "{p}");
}
