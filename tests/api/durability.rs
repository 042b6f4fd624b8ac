//! `kill -9` during concurrent saves loses no save that was acknowledged: each 201 is
//! committed to disk before it is sent (SQLite WAL, synchronous=FULL), and the restarted
//! service serves every one.

use std::sync::Arc;
use std::time::Duration;

use fabric_tco::store::keys::{self, Scope};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::binary::Binary;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn kill_9_during_50_concurrent_saves_loses_no_acknowledged_save() {
    let data = std::env::temp_dir().join(format!(
        "fabric-tco-kill9-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    ));
    let url = fabric_tco::store::default_url(&data);
    let db = fabric_tco::store::Db::open(&url).expect("open");
    let (_, key) = keys::create(&db, "kill9", "t", Scope::Write)
        .await
        .expect("key");
    db.close().await;
    let env = [("FABRIC_TCO_DATA_DIR", data.display().to_string())];
    let mut service = Binary::start(&env);
    fabric_tco::catalog::remote::install_tls_provider();
    let client = reqwest::Client::new();
    let acked = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut tasks = Vec::new();
    for i in 0..50 {
        let (client, base, key, acked) = (
            client.clone(),
            service.base.clone(),
            key.clone(),
            Arc::clone(&acked),
        );
        tasks.push(tokio::spawn(async move {
            // Each client saves until the service is gone.
            for round in 0.. {
                let res = client
                    .post(format!("{base}/v1/scenarios"))
                    .bearer_auth(&key)
                    .json(&json!({"name": format!("client {i} save {round}"), "request": {"gpus": 64 + 8 * (i % 16)}}))
                    .timeout(Duration::from_secs(10))
                    .send()
                    .await;
                let Ok(res) = res else { return };
                if res.status() != 201 {
                    return;
                }
                let Ok(body) = res.json::<Value>().await else { return };
                if let Some(id) = body["id"].as_str() {
                    acked.lock().await.push(id.to_string());
                }
            }
        }));
    }
    // Kill once saves are flowing.
    let started = std::time::Instant::now();
    while acked.lock().await.len() < 100 && started.elapsed() < Duration::from_secs(60) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    service.kill9();
    for t in tasks {
        let _ = t.await;
    }
    let acked = acked.lock().await.clone();
    assert!(
        acked.len() >= 100,
        "only {} saves before the kill",
        acked.len()
    );

    let restarted = Binary::start(&env);
    let mut missing = Vec::new();
    for id in &acked {
        let res = client
            .get(format!("{}/v1/scenarios/{id}", restarted.base))
            .bearer_auth(&key)
            .send()
            .await
            .expect("get");
        if res.status() != 200 {
            missing.push(id.clone());
        }
    }
    assert!(
        missing.is_empty(),
        "{} of {} acknowledged saves lost: {missing:?}",
        missing.len(),
        acked.len()
    );
}

/// A data directory of its own under the temporary directory.
fn data_dir(tag: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!(
        "fabric-tco-{tag}-{}-{}",
        std::process::id(),
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or_default()
    ))
}

fn run_cli(args: &[&str], env: &[(&str, String)]) -> std::process::Output {
    let mut cmd = std::process::Command::new(env!("CARGO_BIN_EXE_fabric-tco"));
    cmd.args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run the binary")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keys_from_the_command_line_work_revoke_and_never_reach_a_log_line() {
    let data = data_dir("keys");
    let env = [("FABRIC_TCO_DATA_DIR", data.display().to_string())];
    let out = run_cli(
        &[
            "keys", "create", "--name", "ci", "--scope", "write", "--team", "blue",
        ],
        &env,
    );
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let token = text.lines().next().expect("the key").to_string();
    assert!(token.starts_with("ftco_"), "{text}");
    let secret = token.rsplit('_').next().expect("secret").to_string();
    for bad in [
        vec!["keys", "create", "--name", "x"],
        vec!["keys", "create", "--name", "x", "--scope", "admin"],
        vec!["keys", "create", "--scope", "read"],
        vec!["keys", "revoke", "nope"],
        vec!["keys", "frobnicate"],
    ] {
        let out = run_cli(&bad, &env);
        assert_eq!(out.status.code(), Some(1), "{bad:?}: {out:?}");
    }
    let service = Binary::start(&env);
    fabric_tco::catalog::remote::install_tls_provider();
    let client = reqwest::Client::new();
    let save = client
        .post(format!("{}/v1/scenarios", service.base))
        .bearer_auth(&token)
        .json(&json!({"name": "logged?", "request": {"gpus": 64}}))
        .send()
        .await
        .expect("save");
    assert_eq!(save.status(), 201);
    let wrong = client
        .get(format!("{}/v1/scenarios", service.base))
        .bearer_auth(format!("{token}x"))
        .send()
        .await
        .expect("list");
    assert_eq!(wrong.status(), 401);
    // Revoked from the command line while the service runs: refused within the time a
    // verified key is believed.
    let list = run_cli(&["keys", "list"], &env);
    let listed = String::from_utf8_lossy(&list.stdout).to_string();
    assert!(
        listed.contains("ci\tblue\twrite") && !listed.contains(&secret),
        "{listed}"
    );
    let id = token.split('_').nth(1).expect("id");
    assert!(run_cli(&["keys", "revoke", id], &env).status.success());
    tokio::time::sleep(fabric_tco::store::keys::VERIFIED_FOR + Duration::from_millis(200)).await;
    let after = client
        .get(format!("{}/v1/scenarios", service.base))
        .bearer_auth(&token)
        .send()
        .await
        .expect("list");
    assert_eq!(after.status(), 401);
    let log = service.log.lock().expect("log").join("\n");
    assert!(
        log.contains("/v1/scenarios"),
        "the access log is captured: {log}"
    );
    assert!(
        !log.contains(&secret) && !log.contains(&token),
        "a secret reached the log"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_taken_while_serving_restores_every_save() {
    let data = data_dir("backup");
    let env = [("FABRIC_TCO_DATA_DIR", data.display().to_string())];
    let out = run_cli(&["keys", "create", "--name", "b", "--scope", "write"], &env);
    let token = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .unwrap_or("")
        .to_string();
    let service = Binary::start(&env);
    fabric_tco::catalog::remote::install_tls_provider();
    let client = reqwest::Client::new();
    let mut ids = Vec::new();
    for i in 0..5 {
        let saved: Value = client
            .post(format!("{}/v1/scenarios", service.base))
            .bearer_auth(&token)
            .json(&json!({"name": format!("kept {i}"), "request": {"gpus": 64}}))
            .send()
            .await
            .expect("save")
            .json()
            .await
            .expect("json");
        ids.push(saved["id"].as_str().expect("id").to_string());
    }
    let copy = data_dir("restored");
    std::fs::create_dir_all(&copy).expect("dir");
    let file = copy.join(fabric_tco::store::SQLITE_FILE);
    let out = run_cli(&["backup", &file.display().to_string()], &env);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        run_cli(&["backup", &file.display().to_string()], &env)
            .status
            .code(),
        Some(1),
        "a backup never overwrites"
    );
    // Restore: a service started on the copy serves every save.
    let restored = Binary::start(&[("FABRIC_TCO_DATA_DIR", copy.display().to_string())]);
    for id in &ids {
        let res = client
            .get(format!("{}/v1/scenarios/{id}", restored.base))
            .bearer_auth(&token)
            .send()
            .await
            .expect("get");
        assert_eq!(res.status(), 200, "{id}");
    }
}

#[test]
fn a_database_file_that_is_not_ours_stops_the_start_and_is_left_alone() {
    let data = data_dir("foreign");
    std::fs::create_dir_all(&data).expect("dir");
    let file = data.join("notes.txt");
    let text = "somebody's notes, not a database\n".repeat(100);
    std::fs::write(&file, &text).expect("write");
    let out = run_cli(
        &[],
        &[
            (
                "FABRIC_TCO_DATABASE_URL",
                format!("sqlite://{}", file.display()),
            ),
            ("FABRIC_TCO_BIND", "127.0.0.1:0".into()),
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("is not a SQLite database"),
        "{out:?}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("read"), text);
}
