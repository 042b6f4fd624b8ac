//! The committed `openapi/openapi.json` must equal what the code serves.

use crate::spawn_app;

const REGENERATE: &str = "cargo run --quiet -- openapi > openapi/openapi.json";

#[tokio::test]
async fn committed_openapi_matches_the_served_document() {
    let app = spawn_app().await;
    let served: serde_json::Value = app.json("/openapi.json").await;
    let committed_text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json"))
            .unwrap_or_default();
    let committed: serde_json::Value = serde_json::from_str(&committed_text).unwrap_or_default();
    assert!(
        served == committed,
        "openapi/openapi.json is out of date with the code; regenerate it with:\n    {REGENERATE}"
    );
}

/// The service writes struct field names into its JSON without the escape scan
/// (`json::write_name_key`): every property name of every schema must be a snake_case name,
/// which needs none.
#[tokio::test]
async fn every_property_name_is_snake_case() {
    fn walk(v: &serde_json::Value, names: &mut Vec<String>) {
        match v {
            serde_json::Value::Object(m) => {
                if let Some(serde_json::Value::Object(props)) = m.get("properties") {
                    names.extend(props.keys().cloned());
                }
                m.values().for_each(|x| walk(x, names));
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, names)),
            _ => {}
        }
    }
    let app = spawn_app().await;
    let doc: serde_json::Value = app.json("/openapi.json").await;
    let mut names = Vec::new();
    walk(&doc, &mut names);
    assert!(names.len() > 100, "{} property names", names.len());
    for n in &names {
        assert!(
            !n.is_empty()
                && n.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_'),
            "property name {n:?} is not snake_case"
        );
    }
}

#[tokio::test]
async fn document_is_openapi_3_1_and_every_operation_is_documented() {
    let app = spawn_app().await;
    let doc: serde_json::Value = app.json("/openapi.json").await;
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.len() >= 4);
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            let where_ = format!("{method} {path}");
            assert!(
                op["summary"].as_str().is_some_and(|s| !s.is_empty()),
                "{where_}: summary"
            );
            assert!(
                op["description"].as_str().is_some_and(|s| !s.is_empty()),
                "{where_}: description"
            );
            let responses = op["responses"].as_object().unwrap();
            for (status, r) in responses {
                assert!(
                    r["description"].as_str().is_some_and(|s| !s.is_empty()),
                    "{where_} {status}: description"
                );
            }
            if op.get("requestBody").is_some()
                || op
                    .get("parameters")
                    .is_some_and(|p| !p.as_array().unwrap().is_empty())
            {
                assert!(
                    responses.keys().any(|s| s.starts_with('4')),
                    "{where_}: documents its 4xx responses"
                );
            }
        }
    }
}

/// Every problem response shows a problem the service renders for that status, and the plan
/// endpoints show a real plan, not schema stubs (`"plan_id": "string"`).
#[tokio::test]
async fn examples_are_real_responses() {
    let app = spawn_app().await;
    let doc: serde_json::Value = app.json("/openapi.json").await;
    let mut problems = 0;
    for (path, item) in doc["paths"].as_object().unwrap() {
        for (method, op) in item.as_object().unwrap() {
            for (status, r) in op["responses"].as_object().unwrap() {
                let Some(ex) = r["content"]["application/problem+json"]["example"].as_object()
                else {
                    continue;
                };
                problems += 1;
                assert_eq!(
                    ex["status"].to_string(),
                    *status,
                    "{method} {path} {status}: example of another status"
                );
                assert!(ex["code"].is_string() && ex["detail"].is_string());
            }
        }
    }
    assert!(problems >= 15, "only {problems} problem examples");
    let plan = &doc["paths"]["/v1/plans"]["post"]["responses"]["200"]["content"]["application/json"]
        ["example"];
    let id = plan["plan_id"].as_str().unwrap_or("");
    assert!(
        id.len() == 32 && id.chars().all(|c| c.is_ascii_hexdigit()),
        "{id}"
    );
    assert!(plan["fabrics"].as_array().is_some_and(|f| f.len() == 2));
}

/// The repository cites public sources, never files outside it.
#[test]
fn no_file_cites_paths_outside_the_repository() {
    let root = env!("CARGO_MANIFEST_DIR");
    let mut stack = vec![
        std::path::PathBuf::from(root).join("src"),
        std::path::PathBuf::from(root).join("docs"),
        std::path::PathBuf::from(root).join("pricing"),
        std::path::PathBuf::from(root).join("README.md"),
    ];
    let mut read = 0;
    while let Some(p) = stack.pop() {
        if p.is_dir() {
            for e in std::fs::read_dir(&p).unwrap().flatten() {
                stack.push(e.path());
            }
        } else if let Ok(text) = std::fs::read_to_string(&p) {
            read += 1;
            for bad in ["shared/reference", "/work/"] {
                assert!(!text.contains(bad), "{} cites '{bad}'", p.display());
            }
        }
    }
    assert!(read > 20);
}

/// Every JSON, CSV and text `200` of the plan, BOM, value and sweep endpoints carries a real
/// answer as its example (Swagger UI would otherwise make up `"plan_id": "string"`), the chart
/// 404's example is the chart refusal the service gives, and a PNG is a binary string (a buyer
/// audit, 2026-11-27, found these missing or wrong).
#[tokio::test]
async fn the_200_examples_are_real_answers() {
    let app = spawn_app().await;
    let doc: serde_json::Value = app.json("/openapi.json").await;
    let example = |path: &str, method: &str, ct: &str| {
        doc["paths"][path][method]["responses"]["200"]["content"][ct]["example"].clone()
    };
    for (path, method) in [("/v1/sweeps", "get"), ("/v1/sweeps", "post")] {
        let json = example(path, method, "application/json");
        assert_eq!(json["vary"], "gpus", "{path}");
        assert_eq!(json["rows"].as_array().map(Vec::len), Some(4), "{path}");
        let csv = example(path, method, "text/csv");
        assert!(
            csv.as_str().unwrap_or("").starts_with("gpus,fabric,"),
            "{csv}"
        );
    }
    let bom = example("/v1/plans/bom", "get", "application/json");
    assert!(
        bom["rows"].as_array().is_some_and(|r| !r.is_empty()),
        "{bom}"
    );
    let bom_csv = example("/v1/plans/bom", "get", "text/csv");
    assert!(bom_csv.as_str().unwrap_or("").starts_with("fabric,sku,"));
    let plan_csv = example("/v1/plans", "get", "text/csv");
    assert!(
        plan_csv
            .as_str()
            .unwrap_or("")
            .starts_with("fabric,feasible,")
    );
    // The value example is what `GET /v1/value` answers for it.
    let value = example("/v1/value", "get", "text/plain");
    let served = app
        .text("/v1/value?gpus=64&fabrics=infiniband,roce&metric=tco.total_usd&fabric=infiniband")
        .await;
    assert_eq!(value.as_str(), Some(served.trim()));
    let chart = &doc["paths"]["/v1/charts/{chart}"]["get"]["responses"];
    assert!(
        chart["404"]["content"]["application/problem+json"]["example"]["detail"]
            .as_str()
            .unwrap_or("")
            .starts_with("no chart named")
    );
    // The keyed inputs a GET reads (`prices.overrides.<sku>`, …) are said where OpenAPI cannot
    // list them by name.
    for path in ["/v1/plans", "/v1/value", "/v1/sweeps", "/v1/charts/{chart}"] {
        let d = doc["paths"][path]["get"]["description"]
            .as_str()
            .unwrap_or("");
        for name in ["prices.overrides.<sku>", "uncertainty.inputs.<input>"] {
            assert!(d.contains(name), "{path}: {name}");
        }
    }
    let png = &chart["200"]["content"]["image/png"]["schema"]["$ref"];
    let name = png.as_str().unwrap_or("").rsplit('/').next().unwrap_or("");
    let schema = &doc["components"]["schemas"][name];
    assert_eq!(
        (schema["type"].as_str(), schema["format"].as_str()),
        (Some("string"), Some("binary"))
    );
}

/// A parameter's schema `default` is what the service uses when the parameter is left out:
/// Swagger UI's "Try it out" fills it in, so sending it must give the same plan (the same
/// `plan_id`, which hashes the normalised request) — also beside a workload preset and on a GPU
/// whose NIC is not 400G (audit 20: `active_params_billion` advertised 70, `nic_speed_gbps` 400,
/// and the workload fields the model's defaults, each of which changed such a plan; audit 21:
/// `uncertainty.samples` 1000 and `uncertainty.seed` 1, each of which asks for an analysis).
#[tokio::test]
async fn every_advertised_default_is_the_default_used() {
    let app = spawn_app().await;
    let doc: serde_json::Value = app.json("/openapi.json").await;
    let params = doc["paths"]["/v1/plans"]["get"]["parameters"]
        .as_array()
        .expect("parameters");
    let defaults: Vec<(String, String)> = params
        .iter()
        .filter_map(|p| {
            let name = p["name"].as_str()?;
            let d = p["schema"].get("default")?;
            let text = match d {
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some((name.to_string(), text))
        })
        .collect();
    assert!(defaults.len() >= 5, "{defaults:?}");
    for base in [
        "gpus=1024&gpu_model=b300&workload.preset=moe-deepseek-v3",
        "gpus=2048&workload.preset=dense-llama3-405b",
        "gpus=1024&gpu_model=a100&fabrics=infiniband,roce",
    ] {
        let plan_id = |q: String| {
            let app = &app;
            async move { app.ok_json(&format!("/v1/plans?{q}")).await["plan_id"].clone() }
        };
        let want = plan_id(base.to_string()).await;
        let mut all = base.to_string();
        for (name, value) in &defaults {
            let q = format!("{base}&{name}={value}");
            assert_eq!(
                plan_id(q).await,
                want,
                "{base}: {name}={value} changed the plan"
            );
            all.push_str(&format!("&{name}={value}"));
        }
        assert_eq!(plan_id(all).await, want, "{base} with every default");
    }
}

/// An uncertainty range's ends are read as decimal strings or numbers
/// (`uncertainty::the_query_form_reads_ranges_as_text` posts `{"low": 1.5, …}`): the schema
/// must allow both, or a client validating against it refuses a valid request (audit 20).
#[tokio::test]
async fn a_range_end_is_a_string_or_a_number_in_the_schema() {
    let app = spawn_app().await;
    let doc: serde_json::Value = app.json("/openapi.json").await;
    let props = &doc["components"]["schemas"]["InputRange"]["properties"];
    for end in ["low", "mode", "high"] {
        assert_eq!(
            props[end]["type"],
            serde_json::json!(["string", "number"]),
            "InputRange.{end}"
        );
    }
}

/// The nested form of `uncertainty.inputs` the docs show (`{"economics": {"gpu_hour_usd": …}}`)
/// is in the schema: a group of names is the same schema again (audit 21 F8).
#[tokio::test]
async fn nested_uncertain_inputs_are_in_the_schema() {
    let app = spawn_app().await;
    let doc: serde_json::Value = app.json("/openapi.json").await;
    let items = &doc["components"]["schemas"]["UncertainInputs"]["additionalProperties"]["oneOf"];
    let refs: Vec<&str> = items
        .as_array()
        .expect("oneOf")
        .iter()
        .filter_map(|i| i["$ref"].as_str())
        .collect();
    assert_eq!(
        refs,
        [
            "#/components/schemas/InputRange",
            "#/components/schemas/UncertainInputs"
        ]
    );
    // And the service reads it.
    let nested = serde_json::json!({"gpus": 256, "uncertainty": {"samples": 20, "inputs": {
        "economics": {"gpu_hour_usd": {"low": 1.5, "high": 4}}}}});
    let plan = app.post_plan(&nested).await;
    assert!(plan["uncertainty"].is_object());
}

/// Every `$ref` names a schema the document holds (the fit's answer referred to `Fit`, which
/// was not in `components`: schemathesis skipped its checks and Swagger UI could not draw it).
#[test]
fn every_reference_resolves() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/openapi/openapi.json"))
            .expect("openapi.json");
    let doc: serde_json::Value = serde_json::from_str(&text).expect("json");
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    let prefix = "\"#/components/schemas/";
    let missing: std::collections::BTreeSet<&str> = text
        .match_indices(prefix)
        .filter_map(|(at, _)| text[at + prefix.len()..].split('"').next())
        .filter(|name| !schemas.contains_key(*name))
        .collect();
    assert!(missing.is_empty(), "unresolvable references: {missing:?}");
}
