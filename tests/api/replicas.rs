//! Two replicas on one PostgreSQL behind nginx (`tests/replicas.sh`): one replica restarted
//! during saves fails no request and loses or duplicates no save. Skipped, saying so, where
//! nginx or PostgreSQL is absent (`.ci/run` installs nginx).

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use fabric_tco::store::keys::{self, Scope};
use serde_json::{Value, json};
use tokio::sync::Mutex;

fn script(args: &[&str], dir: &std::path::Path, db: &str) -> std::process::Output {
    Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/replicas.sh"))
        .arg(args[0])
        .arg(dir)
        .args(&args[1..])
        .env("FABRIC_TCO_BIN", env!("CARGO_BIN_EXE_fabric-tco"))
        .env("FABRIC_TCO_DATABASE_URL", db)
        .output()
        .expect("run tests/replicas.sh")
}

fn script_ok(args: &[&str], dir: &std::path::Path, db: &str) -> String {
    let out = script(args, dir, db);
    assert!(
        out.status.success(),
        "replicas.sh {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_replica_restarted_during_saves_fails_no_request_and_loses_no_save() {
    let has_nginx = ["/usr/sbin/nginx", "/usr/bin/nginx"]
        .iter()
        .any(|p| std::path::Path::new(p).exists());
    if !has_nginx {
        eprintln!("nginx is not installed: the replica test is skipped (apt-get install nginx)");
        return;
    }
    let Some(db) = crate::scenarios::postgres_url("replicas").await else {
        return;
    };
    let store = fabric_tco::store::Db::open(&db).expect("open");
    let (_, key) = keys::create(&store, "replicas", "t", Scope::Write)
        .await
        .expect("key");
    store.close().await;
    let dir = std::env::temp_dir().join(format!("fabric-tco-replicas-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let lb = script_ok(&["up"], &dir, &db);

    fabric_tco::catalog::remote::install_tls_provider();
    let client = reqwest::Client::new();
    let stop = Arc::new(AtomicBool::new(false));
    let saved = Arc::new(Mutex::new(Vec::<String>::new()));
    let failures = Arc::new(Mutex::new(Vec::<String>::new()));
    let mut tasks = Vec::new();
    for task in 0..6 {
        let (client, lb, key) = (client.clone(), lb.clone(), key.clone());
        let (stop, saved, failures) =
            (Arc::clone(&stop), Arc::clone(&saved), Arc::clone(&failures));
        tasks.push(tokio::spawn(async move {
            let mut n = 0;
            while !stop.load(Ordering::Relaxed) {
                n += 1;
                let name = format!("task {task} save {n}");
                let res = client
                    .post(format!("{lb}/v1/scenarios"))
                    .bearer_auth(&key)
                    .header("Idempotency-Key", name.replace(' ', "-"))
                    .json(&json!({"name": name, "request": {"gpus": 64}}))
                    .send()
                    .await;
                match res {
                    Ok(r) if r.status() == 201 => {
                        let body: Value = r.json().await.unwrap_or_default();
                        saved
                            .lock()
                            .await
                            .push(body["id"].as_str().unwrap_or("").to_string());
                    }
                    Ok(r) => failures
                        .lock()
                        .await
                        .push(format!("{name}: {}", r.status())),
                    Err(e) => failures.lock().await.push(format!("{name}: {e}")),
                }
                let plan = client.get(format!("{lb}/v1/plans?gpus=128")).send().await;
                if !plan.as_ref().is_ok_and(|r| r.status() == 200) {
                    failures
                        .lock()
                        .await
                        .push(format!("plan after {name}: {plan:?}"));
                }
            }
        }));
    }
    tokio::time::sleep(Duration::from_millis(800)).await;
    let restart = {
        let (dir, db) = (dir.clone(), db.clone());
        tokio::task::spawn_blocking(move || script_ok(&["restart", "a"], &dir, &db))
    };
    restart.await.expect("restart");
    tokio::time::sleep(Duration::from_millis(800)).await;
    stop.store(true, Ordering::Relaxed);
    for t in tasks {
        t.await.expect("task");
    }
    let failures = failures.lock().await.clone();
    let saved = saved.lock().await.clone();

    // Every acknowledged save is stored once.
    let mut listed = Vec::new();
    let mut path = "/v1/scenarios?limit=200&sort=name".to_string();
    loop {
        let page: Value = client
            .get(format!("{lb}{path}"))
            .bearer_auth(&key)
            .send()
            .await
            .expect("list")
            .json()
            .await
            .expect("json");
        for s in page["scenarios"].as_array().expect("page") {
            listed.push(s["id"].as_str().unwrap_or("").to_string());
        }
        match page["next_cursor"].as_str() {
            Some(c) => path = format!("/v1/scenarios?limit=200&sort=name&cursor={c}"),
            None => break,
        }
    }
    script_ok(&["down"], &dir, &db);
    assert!(
        failures.is_empty(),
        "{} failed requests: {failures:?}",
        failures.len()
    );
    assert!(saved.len() > 20, "only {} saves", saved.len());
    let mut a = saved.clone();
    a.sort();
    listed.sort();
    assert_eq!(a, listed, "saves acknowledged and saves stored differ");
}
