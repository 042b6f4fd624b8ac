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
