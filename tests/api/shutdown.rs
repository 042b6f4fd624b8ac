//! SIGTERM during load: the real binary, several long requests in flight, then SIGTERM. Every
//! in-flight request must complete with its full answer, the process must exit 0, and the port
//! must be closed afterwards.

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fn free_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().port()
}

/// Starts the binary cargo built for these tests on `port` with `env`, output to `out`, and waits for
/// `/healthz`. Returns the child, its base URL and a client.
async fn start_binary(
    port: u16,
    env: &[(&str, String)],
    out: fn() -> Stdio,
) -> (std::process::Child, String, reqwest::Client) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_fabric-tco"));
    let data =
        std::env::temp_dir().join(format!("fabric-tco-shutdown-{port}-{}", std::process::id()));
    cmd.env("FABRIC_TCO_BIND", format!("127.0.0.1:{port}"))
        .env("FABRIC_TCO_DATA_DIR", data)
        .stdout(out())
        .stderr(out());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let child = cmd.spawn().expect("start the binary");
    let base = format!("http://127.0.0.1:{port}");
    fabric_tco::catalog::remote::install_tls_provider();
    let client = reqwest::Client::new();
    let up = Instant::now();
    while client.get(format!("{base}/healthz")).send().await.is_err() {
        assert!(
            up.elapsed() < Duration::from_secs(20),
            "service did not start"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (child, base, client)
}

/// GETs `url` and parses the answer as JSON.
async fn get_json(client: &reqwest::Client, url: String) -> Value {
    client.get(url).send().await.unwrap().json().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_lets_in_flight_requests_finish() {
    let port = free_port();
    let (mut child, base, client) = start_binary(
        port,
        &[
            ("FABRIC_TCO_WORKERS", "2".into()),
            ("FABRIC_TCO_SHUTDOWN_SECS", "30".into()),
            // The sweeps run at the lowest priority: on a machine busy with other work (a CI
            // run beside a load test) four of them once overran the default 27 s budget and
            // answered 503, which says nothing about shutdown.
            ("FABRIC_TCO_REQUEST_DEADLINE_SECS", "300".into()),
            ("RUST_LOG", "warn".into()),
        ],
        Stdio::null,
    )
    .await;

    // Long requests (a 1,000-plan sweep each, ~1 s together in a debug build), all in flight
    // when the signal arrives.
    let sweep =
        format!("{base}/v1/sweeps?vary=economics.gpu_hour_usd&from=0.5&to=10&steps=1000&gpus=1024");
    let mut tasks = Vec::new();
    for _ in 0..4 {
        let (client, url) = (client.clone(), sweep.clone());
        tasks.push(tokio::spawn(async move {
            let res = client.get(url).send().await.map_err(|e| e.to_string())?;
            let status = res.status().as_u16();
            let body: Value = res.json().await.map_err(|e| e.to_string())?;
            Ok::<_, String>((status, body["plans_computed"].as_u64(), Instant::now()))
        }));
    }
    // And one request certainly in flight: its head and half its body are sent before the
    // signal, the rest after.
    let body = br#"{"gpus": 1024, "fabrics": ["infiniband", "roce"]}"#;
    let mut raw = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .unwrap();
    let head = format!(
        "POST /v1/plans HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    raw.write_all(head.as_bytes()).await.unwrap();
    raw.write_all(&body[..10]).await.unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(
        child.try_wait().unwrap().is_none(),
        "the service is still running before the signal"
    );
    let signalled = Instant::now();
    let killed = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(killed.success());
    tokio::time::sleep(Duration::from_millis(300)).await;
    raw.write_all(&body[10..]).await.unwrap();
    let mut answer = Vec::new();
    tokio::time::timeout(Duration::from_secs(30), raw.read_to_end(&mut answer))
        .await
        .expect("the half-sent request is answered")
        .unwrap();
    let answer = String::from_utf8_lossy(&answer);
    assert!(
        answer.starts_with("HTTP/1.1 200"),
        "a request whose body was still arriving at SIGTERM is answered: {answer:.200}"
    );
    assert!(answer.contains("\"plan_id\""));

    let mut finished_after_signal = 0;
    for t in tasks {
        let (status, plans, done) = t.await.unwrap().expect("in-flight request completes");
        assert_eq!(status, 200);
        assert_eq!(plans, Some(1000), "the whole sweep was answered");
        finished_after_signal += usize::from(done > signalled);
    }
    assert!(
        finished_after_signal > 0,
        "no request was in flight at the signal: the test proves nothing"
    );
    let deadline = Instant::now() + Duration::from_secs(40);
    let exit = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the service did not exit after SIGTERM");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert!(exit.success(), "exit status {exit}");
    assert!(
        std::net::TcpStream::connect(("127.0.0.1", port)).is_err(),
        "the port is closed after shutdown"
    );
}

/// JSON logs: every line is a JSON object; the access line carries method, path, status,
/// latency and plan id; neither the catalog URL's credentials nor any query string appear.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn json_logs_are_structured_and_carry_no_secret() {
    let port = free_port();
    let closed = free_port();
    let (child, base, client) = start_binary(
        port,
        &[
            ("FABRIC_TCO_WORKERS", "1".into()),
            ("FABRIC_TCO_LOG_FORMAT", "json".into()),
            (
                "FABRIC_TCO_CATALOG_URLS",
                format!("http://buyer:hunter2@127.0.0.1:{closed}/c.json?token=s3cret"),
            ),
            ("FABRIC_TCO_CATALOG_TIMEOUT_SECS", "1".into()),
            ("RUST_LOG", "info".into()),
        ],
        Stdio::piped,
    )
    .await;
    let plan = get_json(
        &client,
        format!("{base}/v1/plans?gpus=64&economics.gpu_hour_usd=2.5"),
    )
    .await;
    let plan_id = plan["plan_id"].as_str().unwrap().to_string();
    let ready = get_json(&client, format!("{base}/readyz")).await;
    assert_eq!(ready["status"], "degraded");
    assert!(!ready.to_string().contains("hunter2"));
    assert!(!ready.to_string().contains("s3cret"));
    Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("run kill");
    let out = tokio::task::spawn_blocking(move || child.wait_with_output())
        .await
        .unwrap()
        .unwrap();
    assert!(out.status.success());
    let text =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(
        !text.contains("hunter2"),
        "a credential was logged:\n{text}"
    );
    assert!(
        !text.contains("s3cret"),
        "a query secret was logged:\n{text}"
    );
    assert!(
        !text.contains("gpu_hour_usd"),
        "a query string was logged:\n{text}"
    );
    let mut access = None;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let v: Value =
            serde_json::from_str(line).unwrap_or_else(|e| panic!("not a JSON line ({e}): {line}"));
        assert!(v["ts"].is_string() && v["level"].is_string(), "{line}");
        if v["path"] == "/v1/plans" {
            access = Some(v);
        }
    }
    let access = access.expect("an access line for GET /v1/plans");
    assert_eq!(access["method"], "GET");
    assert_eq!(access["status"], 200);
    assert!(access["latency_ms"].as_f64().is_some(), "{access}");
    assert_eq!(access["plan_id"], plan_id.as_str());
    assert!(text.contains("catalog source http://127.0.0.1:"), "{text}");
}
