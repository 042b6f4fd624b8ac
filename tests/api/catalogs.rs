use crate::spawn_app;

#[tokio::test]
async fn lists_the_default_catalog_with_its_sha256() {
    let app = spawn_app().await;
    let body: serde_json::Value = app.json("/v1/catalogs").await;
    let list = body["catalogs"].as_array().unwrap();
    assert_eq!(list.len(), 1);
    let c = &list[0];
    assert_eq!(c["id"], "default");
    assert_eq!(c["default"], true);
    let sha = c["sha256"].as_str().unwrap();
    assert_eq!(sha.len(), 64);
    assert!(sha.bytes().all(|b| b.is_ascii_hexdigit()));
    // The hash is of the file's bytes, as shipped.
    use sha2::Digest;
    let expected = sha2::Sha256::digest(include_bytes!("../../pricing/default.json"));
    let hex: String = expected.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(sha, hex);
    assert!(c["entry_counts"]["switches"].as_u64().unwrap() >= 3);
    assert!(
        c["placeholder_skus"]
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s == "nvidia-q3400-ra")
    );
}

#[tokio::test]
async fn shows_every_entry_with_its_source() {
    let app = spawn_app().await;
    let body = app.ok_json("/v1/catalogs/default").await;
    let content = &body["content"];
    let mut n = 0;
    for kind in [
        "switches",
        "nics",
        "transceivers",
        "cables",
        "licenses",
        "gpus",
        "fabric_profiles",
    ] {
        for e in content[kind].as_array().unwrap() {
            for field in ["source", "date", "grade"] {
                assert!(
                    e[field].as_str().is_some_and(|s| !s.is_empty()),
                    "{kind} entry lacks {field}: {e}"
                );
            }
            n += 1;
        }
    }
    for (name, f) in content["operations"].as_object().unwrap() {
        assert!(
            f["source"].as_str().is_some_and(|s| !s.is_empty()),
            "operations.{name} lacks a source"
        );
        n += 1;
    }
    assert!(n > 30, "catalog has {n} entries");
    // Money is a decimal string.
    assert_eq!(content["switches"][0]["price_usd"], "50000.00");
}

#[tokio::test]
async fn unknown_catalog_is_a_404_problem() {
    let app = spawn_app().await;
    let body = app.problem("/v1/catalogs/nope", 404).await;
    assert!(body["detail"].as_str().unwrap().contains("default"));
}

#[tokio::test]
async fn a_catalog_dated_in_the_future_or_not_a_date_is_refused_at_load() {
    let dir = std::env::temp_dir().join(format!("fabric-tco-dates-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut v: serde_json::Value =
        serde_json::from_slice(&std::fs::read("pricing/default.json").unwrap()).unwrap();
    for (published, expect) in [("9999-99-99", "real date"), ("2099-01-01", "future")] {
        v["id"] = "dated".into();
        v["published"] = published.into();
        std::fs::write(dir.join("dated.json"), serde_json::to_vec(&v).unwrap()).unwrap();
        let err = fabric_tco::catalog::CatalogSet::from_dir(&dir)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(
            err.contains("published") && err.contains(expect),
            "{published}: {err}"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}
