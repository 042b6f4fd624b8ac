use crate::{assert_problem, spawn_app};

#[tokio::test]
async fn unknown_path_is_a_404_problem() {
    let app = spawn_app().await;
    let body = app.problem("/no/such/path", 404).await;
    assert_eq!(body["code"], "not_found");
}

#[tokio::test]
async fn wrong_method_is_a_405_problem_with_allow() {
    let app = spawn_app().await;
    let res = app.send(reqwest::Method::DELETE, "/v1/catalogs").await;
    assert_eq!(res.headers()["allow"], "GET, HEAD, OPTIONS");
    let body = assert_problem(res, 405).await;
    assert_eq!(body["code"], "method_not_allowed");
    let res = app.client.post(app.url("/healthz")).send().await.unwrap();
    assert_problem(res, 405).await;
}

#[tokio::test]
async fn malformed_json_is_a_400_problem() {
    let app = spawn_app().await;
    let body = assert_problem(post_raw(&app, b"{\"gpus\": 8,", &[]).await, 400).await;
    assert_eq!(body["code"], "malformed_request");
}

#[tokio::test]
async fn wrong_or_missing_content_type_is_a_415_problem() {
    let app = spawn_app().await;
    let res = app
        .post_raw("/v1/plans", ("content-type", "text/plain"), "{\"gpus\": 8}")
        .await;
    assert_problem(res, 415).await;
    let res = app
        .client
        .post(app.url("/v1/plans"))
        .body("{\"gpus\": 8}")
        .send()
        .await
        .unwrap();
    assert_problem(res, 415).await;
}

#[tokio::test]
async fn oversized_body_is_a_413_problem() {
    let app = spawn_app().await;
    let big = format!(
        "{{\"gpus\": 8, \"catalog\": \"{}\"}}",
        "x".repeat(300 * 1024)
    );
    let res = app
        .post_raw("/v1/plans", ("content-type", "application/json"), big)
        .await;
    assert_problem(res, 413).await;
}

/// A client that sends its head and then trickles (or stalls) its body gets a 408 problem at
/// the request deadline instead of holding the connection forever.
#[tokio::test]
async fn a_stalled_body_gets_a_408_problem_at_the_deadline() {
    use std::time::{Duration, Instant};
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let app = with_deadline(Duration::from_secs(1)).await;
    let addr = app.base.trim_start_matches("http://").to_string();
    let mut s = tokio::net::TcpStream::connect(&addr).await.unwrap();
    let started = Instant::now();
    s.write_all(
        b"POST /v1/plans HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"gpus\":",
    )
    .await
    .unwrap();
    let mut buf = Vec::new();
    let _ = tokio::time::timeout(Duration::from_secs(10), s.read_to_end(&mut buf)).await;
    let text = String::from_utf8_lossy(&buf);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("application/problem+json"), "{text}");
    assert!(text.contains("request_timeout"), "{text}");
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(900) && waited < Duration::from_secs(5),
        "answered after {waited:?}"
    );
    // A normal request on a fresh connection is unaffected.
    assert_eq!(app.get("/healthz").await.status(), 200);
}

/// A sweep stops itself at 90% of the request deadline, counted from when the request arrived,
/// with a 503 that names the budget, so the heavy threads do not go on computing an answer
/// nobody will read and the client hears why. (Counted from the sweep's own start, the budget
/// outlived a 200 ms deadline and the client got the deadline's bare 408.) A 10,000-plan sweep takes
/// over a second of two cores in the test build (about a third of that in release): far past
/// a 180 ms budget.
#[tokio::test]
async fn a_sweep_past_its_time_budget_is_stopped_with_a_503() {
    use std::time::Duration;

    let app = with_deadline(Duration::from_millis(200)).await;
    let res = app
        .get("/v1/sweeps?vary=economics.gpu_hour_usd&from=0.5&to=10&steps=10000&gpus=1024")
        .await;
    assert_eq!(res.status(), 503);
    assert!(res.headers().get("retry-after").is_some());
    let body: serde_json::Value = res.json().await.unwrap();
    assert_eq!(body["code"], "sweep_too_slow", "{body}");
}

/// The report page whose analysis runs past its time budget says the plan cannot be made now
/// (a 503 page with Retry-After), not that its inputs are invalid.
#[tokio::test]
async fn the_report_pages_503_says_the_service_not_the_inputs() {
    use std::time::Duration;

    let app = with_deadline(Duration::from_millis(200)).await;
    let res = app
        .get("/report?gpus=1024&uncertainty.samples=100000")
        .await;
    assert_eq!(res.status(), 503);
    assert!(res.headers().get("retry-after").is_some());
    let ct = res.headers()["content-type"].to_str().unwrap().to_string();
    assert!(ct.starts_with("text/html"), "{ct}");
    let page = res.text().await.unwrap();
    assert!(page.contains("not available now"), "{page}");
    assert!(page.contains("The plan cannot be made now (503"), "{page}");
    assert!(!page.contains("invalid input"), "{page}");
    assert!(!page.contains("cannot be planned"), "{page}");
}

/// At most four sweeps are admitted at once; a fifth gets a 503 `busy` with Retry-After and the
/// four finish normally. Sweeps share the heavy threads, so four 10,000-plan sweeps run for
/// several seconds together and the first ends after more than a second: the fifth, sent a
/// fifth of a second after the others, finds four admitted. (One test used to check both this
/// and the time budget with a one-second deadline; once sweeps got faster than the budget,
/// the first finished before the fifth arrived.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fifth_concurrent_sweep_is_refused_with_retry_after() {
    use std::time::Duration;

    let app = with_deadline(Duration::from_secs(120)).await;
    let path = "/v1/sweeps?vary=economics.gpu_hour_usd&from=0.5&to=10&steps=10000&gpus=1024";
    let url = app.url(path);
    let send = |app_client: reqwest::Client, url: String| {
        tokio::spawn(async move {
            let res = app_client.get(url).send().await.unwrap();
            let status = res.status().as_u16();
            let retry = res.headers().get("retry-after").is_some();
            let body: serde_json::Value = res.json().await.unwrap();
            (
                status,
                body["code"].as_str().unwrap_or("").to_string(),
                retry,
            )
        })
    };
    let first: Vec<_> = (0..4)
        .map(|_| send(app.client.clone(), url.clone()))
        .collect();
    tokio::time::sleep(Duration::from_millis(200)).await;
    let (status, code, retry) = send(app.client.clone(), url.clone()).await.unwrap();
    assert_eq!((status, code.as_str(), retry), (503, "busy", true));
    for t in first {
        let (status, code, _) = t.await.unwrap();
        assert_eq!(status, 200, "{code}");
    }
    // With the four done, a sweep is admitted again.
    assert_eq!(
        app.get(&path.replace("steps=10000", "steps=8"))
            .await
            .status(),
        200
    );
}

/// A sweep's computing slot is given back once its answer is encoded, not when the client has
/// read it, and a client that takes nothing for the write-stall time is cut off (#44: four
/// clients that never read held the four slots for 31 s and every sweep, analysis and tornado
/// answered 503; audit 28 before it: answers nobody read were held without bound). Four
/// clients that read nothing leave a fifth client's sweep answering 200; past the write stall
/// their connections are closed with the answer cut short.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_readers_hold_no_computing_slot_and_are_cut_off_when_they_stall() {
    use std::time::Duration;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    // Heavy threads at normal priority: in the idle class they get no core while the rest of
    // the suite runs. The deadline leaves the debug-build sweeps room on a loaded machine.
    let stall = Duration::from_secs(8);
    let store = std::sync::Arc::new(fabric_tco::catalog::store::CatalogStore::new(
        fabric_tco::catalog::CatalogSet::embedded().unwrap(),
        &[],
    ));
    let app = crate::spawn_configured(
        store,
        fabric_tco::ServerOptions {
            request_deadline: Duration::from_secs(20),
            write_stall: stall,
            heavy_priority: fabric_tco::config::HeavyPriority::Normal,
            ..Default::default()
        },
    )
    .await;
    let addr: std::net::SocketAddr = app.base.trim_start_matches("http://").parse().unwrap();
    // ~3,000 rows of ~3 KB: far more than the kernel buffers between the two ends hold.
    let path = "/v1/sweeps?vary=economics.gpu_hour_usd&from=0.5&to=10&steps=3000&gpus=64";
    let mut silent = Vec::new();
    for _ in 0..4 {
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let mut s = socket.connect(addr).await.unwrap();
        s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
            .await
            .unwrap();
        silent.push(s);
    }
    // While the four are computed (a 503 busy: their slots are computing) and then sent to
    // clients that read nothing, a fifth client's sweep is served well before the stall cuts
    // them off (holding the slots while sending, it was a 503 until then).
    let started = std::time::Instant::now();
    let fifth = loop {
        let res = app.get(&path.replace("steps=3000", "steps=50")).await;
        if res.status() != 503 || started.elapsed() > stall * 3 / 4 {
            break res.status();
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    };
    assert_eq!(
        fifth,
        200,
        "a fifth client's sweep after {:?}",
        started.elapsed()
    );
    // Past the write stall with nothing taken, each connection is closed: what a late reader
    // finds is a head and a body cut far short of its content-length.
    tokio::time::sleep(stall * 2).await;
    for mut s in silent {
        let mut got = Vec::new();
        let _ = tokio::time::timeout(Duration::from_secs(5), s.read_to_end(&mut got)).await;
        let text = String::from_utf8_lossy(&got[..got.len().min(4096)]).to_lowercase();
        assert!(text.starts_with("http/1.1 200"), "{text}");
        let length: usize = text
            .split("content-length: ")
            .nth(1)
            .and_then(|r| r.split("\r\n").next())
            .and_then(|n| n.parse().ok())
            .expect("a content-length");
        assert!(length > 4_000_000, "{length}");
        assert!(got.len() < length, "{} of {length} bytes", got.len());
    }
}

/// A busy fraction so small that the cost per useful GPU-hour leaves the decimal range is
/// named as the request names it, and as too small (audit 28 F2: the pointer was
/// `/economics/busy_fraction`, a field that does not exist, and the value "too large").
#[tokio::test]
async fn a_tiny_busy_fraction_is_named_where_it_was_given() {
    let app = crate::spawn_app().await;
    let tiny = "0.0000000000000000000000000001";
    for res in [
        app.post_json(
            "/v1/plans",
            &serde_json::json!({"gpus": 64, "utilization": {"busy_fraction": tiny}}),
        )
        .await,
        app.get(&format!(
            "/v1/plans?gpus=64&utilization.busy_fraction={tiny}"
        ))
        .await,
    ] {
        assert_eq!(res.status(), 422);
        let p: serde_json::Value = res.json().await.unwrap();
        assert_eq!(
            p["errors"][0]["pointer"], "/utilization/busy_fraction",
            "{p}"
        );
        assert!(p["detail"].as_str().unwrap().contains("too small"), "{p}");
    }
}

/// A body of 10,000 unknown keys is refused with the first 100 listed and all counted, not an
/// answer 22 times its size (audit 28 F4: 110 KB drew 2.4 MB).
#[tokio::test]
async fn a_body_of_many_unknown_keys_gets_a_bounded_answer() {
    let app = crate::spawn_app().await;
    let mut body = serde_json::Map::new();
    body.insert("gpus".into(), 64.into());
    for i in 0..10_000 {
        body.insert(format!("k{i}"), 1.into());
    }
    let res = app
        .post_json("/v1/plans", &serde_json::Value::Object(body))
        .await;
    assert_eq!(res.status(), 422);
    let text = res.text().await.unwrap();
    assert!(text.len() < 100_000, "{} bytes", text.len());
    let p: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(p["errors"].as_array().map(Vec::len), Some(100));
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .starts_with("10000 fields are invalid; the first 100"),
        "{p}"
    );
    // A GET counts them all too (it said "100 fields" when the list was cut before the
    // query's errors were renamed).
    let qs: Vec<String> = (0..300).map(|i| format!("k{i}=1")).collect();
    let p = app
        .problem(&format!("/v1/plans?gpus=64&{}", qs.join("&")), 422)
        .await;
    assert_eq!(p["errors"].as_array().map(Vec::len), Some(100));
    assert!(
        p["detail"]
            .as_str()
            .unwrap()
            .starts_with("300 fields are invalid"),
        "{p}"
    );
}

/// The service with the embedded catalog and a given request deadline.
async fn with_deadline(deadline: std::time::Duration) -> crate::TestApp {
    let store = std::sync::Arc::new(fabric_tco::catalog::store::CatalogStore::new(
        fabric_tco::catalog::CatalogSet::embedded().unwrap(),
        &[],
    ));
    crate::spawn_configured(
        store,
        fabric_tco::ServerOptions {
            request_deadline: deadline,
            ..Default::default()
        },
    )
    .await
}

/// POSTs `body` to `/v1/plans` as `application/json`, with `headers` besides.
async fn post_raw(
    app: &crate::TestApp,
    body: &'static [u8],
    headers: &[(&str, &str)],
) -> reqwest::Response {
    let mut rb = app
        .client
        .post(app.url("/v1/plans"))
        .header("content-type", "application/json");
    for (k, v) in headers {
        rb = rb.header(*k, *v);
    }
    rb.body(body).send().await.unwrap()
}

#[tokio::test]
async fn compressed_request_bodies_are_refused_before_reading() {
    let app = spawn_app().await;
    // A gzip stream of 1 MiB of zeros (it would inflate past the body limit); the bytes are
    // never decoded: any Content-Encoding but identity is a 415 problem.
    for enc in ["gzip", "deflate", "br", "zstd", "GZIP", "identity, gzip"] {
        let res = post_raw(
            &app,
            b"\x1f\x8b\x08\x00\x00\x00\x00\x00",
            &[("content-encoding", enc)],
        )
        .await;
        let p = assert_problem(res, 415).await;
        assert!(
            p["detail"].as_str().unwrap().contains("Content-Encoding"),
            "{enc}: {p}"
        );
    }
    let res = post_raw(&app, br#"{"gpus": 8}"#, &[("content-encoding", "identity")]).await;
    assert_eq!(res.status(), 200);
}

#[tokio::test]
async fn bodies_must_be_exactly_one_json_object() {
    let app = spawn_app().await;
    for body in [
        &br#"{"gpus":1024}{"gpus":2048}"#[..],
        br#"{"gpus":1024} trailing"#,
        br#"[1024,"b200"]"#,
        br#""gpus""#,
        b"1024",
        b"null",
    ] {
        let p = assert_problem(post_raw(&app, body, &[]).await, 400).await;
        assert_eq!(
            p["code"],
            "malformed_request",
            "{}",
            String::from_utf8_lossy(body)
        );
    }
    // Whitespace after the object is fine.
    assert_eq!(
        post_raw(&app, b"{\"gpus\": 8}\n  ", &[]).await.status(),
        200
    );
}

#[tokio::test]
async fn wrong_types_and_duplicate_keys_are_422_naming_the_field_in_plain_words() {
    let app = spawn_app().await;
    for (body, pointer, code) in [
        (
            &br#"{"gpus":1024,"fabrics":[1]}"#[..],
            "/fabrics/0",
            "invalid_type",
        ),
        (br#"{"gpus":"x"}"#, "/gpus", "invalid_type"),
        (br#"{"gpus":1024,"gpus":8}"#, "/gpus", "duplicate_key"),
        (
            br#"{"gpus":8,"prices":{"overrides":{"nvidia-qm9700":"1","nvidia-qm9700":"2"}}}"#,
            "/prices/overrides/nvidia-qm9700",
            "duplicate_key",
        ),
        (
            br#"{"gpus":8,"economics":{"pue":"1.2","pue":"1.3"}}"#,
            "/economics/pue",
            "duplicate_key",
        ),
        (
            br#"{"gpus":8,"economics":{"pue":"1__2"}}"#,
            "/economics/pue",
            "invalid_type",
        ),
        (
            br#"{"gpus":8,"prices":{"overrides":{"nvidia-qm9700":"1__0_0_0_"}}}"#,
            "/prices/overrides/nvidia-qm9700",
            "invalid_type",
        ),
        (
            br#"{"gpus":8,"economics":{"pue":"1e0"}}"#,
            "/economics/pue",
            "invalid_type",
        ),
        (
            br#"{"gpus":8,"economics":{"years":99}}"#,
            "/economics/years",
            "range",
        ),
        (
            br#"{"gpus":8,"economics":{"support_rate":"1.5"}}"#,
            "/economics/support_rate",
            "range",
        ),
        (br#"{"gpus":8,"topology":[]}"#, "/topology", "invalid_type"),
        (
            br#"{"gpus":8,"topology":{"planez":2}}"#,
            "/topology/planez",
            "unknown_field",
        ),
        (br#"{"economics":{"years":5}}"#, "/gpus", "required"),
        // A choice of names takes a name, not serde's map form of an enum (which the derive
        // accepted: `{"infiniband":null}` planned InfiniBand), and says the names.
        (
            br#"{"gpus":8,"fabrics":[{"infiniband":null}]}"#,
            "/fabrics/0",
            "invalid_type",
        ),
        (
            br#"{"gpus":8,"fabrics":[null]}"#,
            "/fabrics/0",
            "invalid_type",
        ),
        (
            br#"{"gpus":8,"workload":{"data_parallel_mode":5}}"#,
            "/workload/data_parallel_mode",
            "invalid_type",
        ),
        (
            br#"{"gpus":8,"topology":{"design":{"su_clos":null}}}"#,
            "/topology/design",
            "invalid_type",
        ),
        // Valid JSON beyond an f64: out of range at its field, not "not valid JSON".
        (br#"{"gpus":1e309}"#, "/gpus", "range"),
        // One uncertain input by its dotted name and nested is a repeated key.
        (
            br#"{"gpus":8,"uncertainty":{"inputs":{"economics.pue":{"low":1.1,"high":1.5},"economics":{"pue":{"low":1.2,"high":1.4}}}}}"#,
            "/uncertainty/inputs",
            "duplicate_key",
        ),
    ] {
        let p = assert_problem(post_raw(&app, body, &[]).await, 422).await;
        let text = String::from_utf8_lossy(body);
        assert_eq!(p["errors"][0]["pointer"], pointer, "{text}: {p}");
        assert_eq!(p["errors"][0]["code"], code, "{text}: {p}");
        let detail = p["errors"][0]["detail"].as_str().unwrap();
        for rust in [
            "u32",
            "u64",
            "f64",
            "struct ",
            "Decimal type",
            "PlanRequest",
            "elements",
            "string or map",
            "single key",
            "expected unit",
        ] {
            assert!(
                !detail.contains(rust),
                "{text}: a Rust type name in '{detail}'"
            );
        }
    }
    let p = assert_problem(
        post_raw(&app, br#"{"gpus":8,"fabrics":[{"infiniband":null}]}"#, &[]).await,
        422,
    )
    .await;
    assert_eq!(
        p["errors"][0]["detail"],
        "expected one of 'infiniband', 'roce', 'roce_adaptive', got an object"
    );
}

#[tokio::test]
async fn slash_variants_are_404_or_a_redirect_never_405() {
    let app = spawn_app().await;
    for path in ["/healthz/", "/v1/plans/", "/readyz/", "/v1/catalogs/"] {
        let res = app.get(path).await;
        assert_problem(res, 404).await;
    }
    fabric_tco::catalog::remote::install_tls_provider();
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let res = client.get(app.url("/swagger-ui")).send().await.unwrap();
    assert_eq!(res.status(), 308);
    assert_eq!(res.headers()["location"], "/swagger-ui/");
}

/// Sends raw bytes on a new connection and reads the whole answer (the server closes).
async fn raw_exchange(base: &str, request: &[u8]) -> (String, serde_json::Value) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let addr = base.trim_start_matches("http://");
    let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
    if !request.is_empty() {
        // A peer may close while a large head is still being sent: that is fine here.
        let _ = s.write_all(request).await;
    }
    let mut out = Vec::new();
    let _ = tokio::time::timeout(std::time::Duration::from_secs(10), s.read_to_end(&mut out)).await;
    let text = String::from_utf8_lossy(&out).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    (
        head.to_string(),
        serde_json::from_str(body).unwrap_or_default(),
    )
}

/// Sends `request` raw; its status line must be `status` and its problem's code `code`. The head.
async fn assert_raw_problem(base: &str, request: &[u8], status: u16, code: &str) -> String {
    let (head, p) = raw_exchange(base, request).await;
    assert!(head.starts_with(&format!("HTTP/1.1 {status}")), "{head}");
    assert_eq!(p["code"], code, "{head}");
    head
}

#[tokio::test]
async fn the_http_layers_own_errors_are_problem_documents() {
    let store = std::sync::Arc::new(fabric_tco::catalog::store::CatalogStore::new(
        fabric_tco::catalog::CatalogSet::embedded().unwrap(),
        &[],
    ));
    let app = crate::spawn_configured(
        store,
        fabric_tco::ServerOptions {
            request_timeout: std::time::Duration::from_millis(300),
            ..Default::default()
        },
    )
    .await;
    let base = &app.base;
    // A request line that is not HTTP.
    let head = assert_raw_problem(base, b"GARBAGE\r\n\r\n", 400, "malformed_request").await;
    assert!(
        head.contains("content-type: application/problem+json"),
        "{head}"
    );
    // A request line past the 65,534 bytes a URI may have: the HTTP layer's bare 400 is the
    // 414 a 9 KB query gets (it was a 400 "cannot be parsed"; a buyer audit, 2026-11-27).
    let long = format!(
        "GET /v1/plans?gpus=1024&_={} HTTP/1.1\r\nHost: x\r\n\r\n",
        "a".repeat(70_000)
    );
    assert_raw_problem(base, long.as_bytes(), 414, "uri_too_long").await;
    // A header line without a colon.
    let (head, p) = raw_exchange(
        base,
        b"GET /healthz HTTP/1.1\r\nHost: x\r\nbroken header\r\n\r\n",
    )
    .await;
    assert!(head.starts_with("HTTP/1.1 400"), "{head}");
    assert_eq!(p["status"], 400);
    // A request head larger than the HTTP layer's buffer.
    let big = format!(
        "GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(200_000)
    );
    assert_raw_problem(base, big.as_bytes(), 431, "headers_too_large").await;
    // A client that connects and sends nothing within the head timeout.
    assert_raw_problem(base, b"GET /healthz HTTP/1.1\r\n", 408, "request_timeout").await;
}

/// A query string that cannot be decoded is a 400 saying where, not a value read as its
/// literal text (`gpus=%zz` was a 422 quoting "%zz"; `%FF` became U+FFFD).
#[tokio::test]
async fn an_undecodable_query_is_a_400() {
    let app = spawn_app().await;
    for (q, says) in [
        ("gpus=%zz", "invalid percent-encoding '%zz' at character 6"),
        (
            "gpus=1024&fabrics=roce%2",
            "invalid percent-encoding '%2' at character",
        ),
        ("gpus=1024&fabrics=%FF", "not UTF-8"),
        ("gpus=%+1", "invalid percent-encoding '%+1'"),
    ] {
        let p = app.problem(&format!("/v1/plans?{q}"), 400).await;
        let detail = p["detail"].as_str().unwrap();
        assert!(detail.contains(says), "{q}: {detail}");
    }
    // Encoded characters that decode to UTF-8 are fine: %25 is a literal '%', %C3%A9 is 'é'.
    let p = app.problem("/v1/plans?gpus=1024&fabrics=%C3%A9", 422).await;
    assert!(
        p["errors"][0]["detail"].as_str().unwrap().contains('é'),
        "{p}"
    );
}

/// A parameter name of thousands of dots was a tree thousands of levels deep whose typing
/// overflowed a worker's stack and aborted the process (audit 13 F1): names are refused past
/// 32 parts, on every GET that reads a plan, and the service keeps answering.
#[tokio::test]
async fn a_parameter_name_too_deep_is_a_422_not_a_crash() {
    let app = spawn_app().await;
    let deep = "a.".repeat(3_900);
    let page = app
        .html(
            &format!(
                "/report?gpus=8&uncertainty.inputs.{}b=1,2",
                ".".repeat(5_000)
            ),
            422,
        )
        .await;
    assert!(
        page.contains("at most 32"),
        "the report page names the limit"
    );
    for path in [
        format!("/v1/plans?gpus=8&uncertainty.inputs.{deep}b=1,2"),
        format!("/v1/value?metric=tco.total_usd&fabric=roce&gpus=8&economics.{deep}x=1"),
        format!("/v1/sweeps?vary=gpus&values=8,16&topology.{deep}x=1"),
    ] {
        let p = app.problem(&path, 422).await;
        let detail = p["errors"][0]["detail"].as_str().unwrap_or_default();
        assert!(detail.contains("at most 32"), "{}: {p}", &path[..40]);
    }
    // The deepest real names still pass: a keyed range in GET form and a dotted catalog key.
    let ok = app
        .get("/v1/plans?gpus=64&uncertainty.samples=20&uncertainty.inputs.prices.discounts.vendor.FS.com-class=0,0.2")
        .await;
    assert_eq!(ok.status(), 200);
    assert_eq!(app.get("/healthz").await.status(), 200);
}

/// Errors point at the input at fault, down to a map's key, and say it once: a category
/// discount of 1.5 at `/prices/discounts/category/optic` (was the map), an unknown category
/// by its key in plain words, a forced rack design without servers per rack at
/// `/topology/nodes_per_rack` (was `/gpus`), a model error without the field's name repeated
/// in front (a GET said "query parameter 'workload.expert_parallel': workload.expert_parallel:").
#[tokio::test]
async fn errors_point_at_the_input_at_fault_and_name_it_once() {
    let app = spawn_app().await;
    let problem = |body: serde_json::Value| {
        let app = &app;
        async move {
            let res = app.post_json("/v1/plans", &body).await;
            assert_eq!(res.status(), 422, "{body}");
            let p: serde_json::Value = res.json().await.unwrap();
            let e = &p["errors"][0];
            (
                e["pointer"].as_str().unwrap().to_string(),
                e["detail"].as_str().unwrap().to_string(),
            )
        }
    };
    // (body, pointer, a part of the detail)
    for (body, pointer, part) in [
        (
            serde_json::json!({"gpus": 1024, "prices": {"discounts": {"category": {"optic": "1.5"}}}}),
            "/prices/discounts/category/optic",
            "",
        ),
        (
            serde_json::json!({"gpus": 1024, "prices": {"discounts": {"category": {"optics": "0.1"}}}}),
            "/prices/discounts/category/optics",
            "unknown value 'optics'; expected one of 'nic'",
        ),
        (
            serde_json::json!({"gpus": 1024, "topology": {"design": "tor_copper"}}),
            "/topology/nodes_per_rack",
            "needs the number of servers per rack",
        ),
        (
            serde_json::json!({"gpus": 1024, "workload": {"expert_parallel": 3, "active_params_billion": 20}}),
            "/workload/expert_parallel",
            "3 does not divide",
        ),
        // Expert parallelism of a dense model, experts split finer than whole, more experts a
        // token than the model has (audit 27: each went through, EP 8 on the dense 70B job
        // charged 14 % idle to an all-to-all it never sends).
        (
            serde_json::json!({"gpus": 1024, "workload": {"expert_parallel": 8}}),
            "/workload/expert_parallel",
            "8 needs a mixture of experts",
        ),
        (
            serde_json::json!({"gpus": 4096, "workload": {"preset": "moe-deepseek-v3",
                "pipeline_parallel": 4, "expert_parallel": 1024}}),
            "/workload/expert_parallel",
            "1024 exceeds the 256 routed experts",
        ),
        (
            serde_json::json!({"gpus": 1024, "workload": {"preset": "moe-deepseek-v3",
                "experts": 64, "moe_top_k": 65}}),
            "/workload/moe_top_k",
            "",
        ),
        (
            serde_json::json!({"gpus": 1024, "workload": {"preset": "moe-deepseek-v3",
                "experts": 32, "moe_top_k": 40}}),
            "/workload/moe_top_k",
            "40 exceeds the 32 routed experts",
        ),
        // A degree that divides neither: the ones that divide both are listed, and the preset's
        // own fit offered (audit 36: "use a divisor of 256", all but 1 refused by the 129
        // replicas).
        (
            serde_json::json!({"gpus": 2064, "workload": {"preset": "moe-deepseek-v3",
                "expert_parallel": 43}}),
            "/workload/expert_parallel",
            "use a degree dividing both the 256 experts and the 129 data-parallel replicas (1), or leave it out",
        ),
        // A top-k above the experts whatever the expert degree (audit 36: EP 1 let it through).
        (
            serde_json::json!({"gpus": 1024, "workload": {"preset": "moe-deepseek-v3",
                "expert_parallel": 1, "pipeline_parallel": 4, "experts": 4}}),
            "/workload/moe_top_k",
            "8 exceeds the 4 routed experts",
        ),
        (
            serde_json::json!({"gpus": 2048, "workload": {"experts": 64}}),
            "/workload/experts",
            "64 experts need a mixture of experts",
        ),
        // A sequence split finer than its tokens (audit 27: sequence 8 at CP 16 idled 93 %).
        (
            serde_json::json!({"gpus": 1024, "workload": {"sequence_length": 8, "context_parallel": 16,
                "tensor_parallel": 1, "pipeline_parallel": 1}}),
            "/workload/context_parallel",
            "16 exceeds the 8 tokens of a sequence",
        ),
        // Degrees the user wrote: the largest of them is at fault, not one the request lacks.
        (
            serde_json::json!({"gpus": 48, "workload": {"pipeline_parallel": 8, "context_parallel": 2}}),
            "/workload/pipeline_parallel",
            "= 128 GPUs does not fit in 48 GPUs",
        ),
        // More GPUs a server than one NVLink board holds (16 H100 were timed as one 16-GPU
        // NVLink domain); a multi-node NVLink rack's trays are not bounded so.
        (
            serde_json::json!({"gpus": 1024, "gpus_per_node": 16}),
            "/gpus_per_node",
            "16 GPUs a server exceed the 8 GPUs of one h100 server",
        ),
        (
            serde_json::json!({"gpus": 1024, "gpu_model": "b300", "gpus_per_node": 9}),
            "/gpus_per_node",
            "set gpus_per_node to at most 8",
        ),
        // Planes that split the NIC into links no switch runs (100G: InfiniBand's profile has
        // no 100G switch; RoCE's has one).
        (
            serde_json::json!({"gpus": 1024, "gpu_model": "b300", "fabrics": ["infiniband"],
                "topology": {"planes": 8}}),
            "/topology/planes",
            "",
        ),
    ] {
        let (at, detail) = problem(body).await;
        assert_eq!(at, pointer);
        assert!(detail.contains(part), "{detail}");
    }
    // A yearly subscription is priced by its economics input, not by an override (the override
    // was echoed and changed nothing).
    for (sku, input) in [
        (
            "nvidia-ufm-enterprise",
            "economics.ufm_usd_per_endpoint_per_year",
        ),
        (
            "ethernet-nos-support",
            "economics.ethernet_nos_usd_per_switch_per_year",
        ),
    ] {
        let (at, detail) =
            problem(serde_json::json!({"gpus": 1024, "prices": {"overrides": {sku: "100"}}})).await;
        assert_eq!(at, format!("/prices/overrides/{sku}"));
        assert!(detail.contains(input), "{detail}");
    }
    // A cluster past every tier.
    let (at, detail) = problem(serde_json::json!({"gpus": 1_000_000})).await;
    assert_eq!(at, "/gpus");
    // Every fabric's reason, not the first's alone.
    for f in ["infiniband: ", "; roce: ", "; roce_adaptive: "] {
        assert!(detail.contains(f), "{detail}");
    }
    let p = app
        .problem(
            "/v1/plans?gpus=1024&workload.expert_parallel=3&workload.active_params_billion=20",
            422,
        )
        .await;
    // The top-level detail says the parameter once.
    let top = p["detail"].as_str().unwrap();
    assert_eq!(top.matches("expert_parallel").count(), 1, "{top}");
    let detail = p["errors"][0]["detail"].as_str().unwrap();
    assert_eq!(detail.matches("expert_parallel").count(), 1, "{detail}");
}

/// A POST's input is its body: `format` is honoured as on GET, cache busters are ignored, and
/// any other query parameter is a 422 naming it (they were silently ignored: `?format=csv` gave
/// JSON and `?gpus=9` beside a body of 64 GPUs planned 64; a buyer audit, 2026-11-27).
#[tokio::test]
async fn a_post_reads_format_from_its_query_and_refuses_anything_else() {
    let app = spawn_app().await;
    let body = serde_json::json!({"gpus": 64});
    let sweep = serde_json::json!({"base": {"gpus": 64}, "vary": "gpus", "values": [64, 128]});
    for (path, body) in [
        ("/v1/plans?format=csv&_=7", &body),
        ("/v1/sweeps?format=csv", &sweep),
    ] {
        let res = app.post_json(path, body).await;
        assert_eq!(res.status(), 200, "{path}");
        let ct = res.headers()["content-type"].to_str().unwrap_or("");
        assert!(ct.starts_with("text/csv"), "{path}: {ct}");
    }
    for (path, pointer) in [
        ("/v1/plans?gpus=9", "/gpus"),
        ("/v1/plans?economics.yeras=3", "/economics/yeras"),
        ("/v1/sweeps?bogus=1", "/bogus"),
    ] {
        let body = if path.starts_with("/v1/sweeps") {
            &sweep
        } else {
            &body
        };
        let p = assert_problem(app.post_json(path, body).await, 422).await;
        assert_eq!(p["errors"][0]["pointer"], pointer, "{path}: {p}");
        assert_eq!(p["errors"][0]["code"], "unknown_field", "{path}: {p}");
    }
}

/// #44, smaller items: a cabling SKU for a tier the plan does not build is still checked; a
/// number past the input's type is echoed as given, not as another number; a huge sweep end is
/// echoed in exponent form, not as 309 digits.
#[tokio::test]
async fn unknown_cabling_skus_and_huge_numbers_are_named_as_given() {
    let app = crate::spawn_app().await;
    // 1,024 GPUs: two tiers, no spine–core links to cable.
    let p = app
        .problem_at(
            "/v1/plans?gpus=1024&topology.cabling.spine_core.cable=doesnotexist",
            422,
            "/topology/cabling/spine_core/cable",
        )
        .await;
    assert_eq!(p["errors"][0]["code"], "unknown_sku", "{p}");
    app.problem_at(
        "/v1/plans?gpus=1024&topology.cabling.leaf_spine.cable=fiber-mpo12-om4-10m&topology.cabling.leaf_spine.switch_module=nope",
        422,
        "/topology/cabling/leaf_spine/switch_module",
    )
    .await;
    let p = app
        .problem_at("/v1/plans?gpus=18446744073709551616", 422, "/gpus")
        .await;
    let detail = p["errors"][0]["detail"].as_str().unwrap_or("");
    assert!(
        !detail.contains("18446744073709551615") && detail.contains("e19"),
        "{detail}"
    );
    let p = app
        .problem("/v1/sweeps?gpus=1024&vary=gpus&from=256&to=1e308", 422)
        .await;
    let detail = p["detail"].as_str().unwrap_or("");
    assert!(detail.contains("1e308") && detail.len() < 300, "{detail}");
}

/// A bad `Transfer-Encoding` is a 400 however large the body behind it: a body without line
/// feeds is no request line, so it never makes the answer a 414 "URI too long" (#44).
#[tokio::test]
async fn a_bad_transfer_encoding_is_a_400_whatever_the_body() {
    let app = spawn_app().await;
    for te in ["foo", "gzip, chunked"] {
        for body_len in [10usize, 100_000] {
            let mut request = format!(
                "POST /v1/plans HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: {te}\r\n\r\n"
            )
            .into_bytes();
            request.extend(std::iter::repeat_n(b'x', body_len));
            assert_raw_problem(&app.base, &request, 400, "malformed_request").await;
        }
    }
    // A request line that long is still a 414.
    let mut long = b"GET /v1/plans?gpus=".to_vec();
    long.extend(std::iter::repeat_n(b'1', 70_000));
    long.extend_from_slice(b" HTTP/1.1\r\nHost: x\r\n\r\n");
    assert_raw_problem(&app.base, &long, 414, "uri_too_long").await;
}

/// serde's names of JSON's kinds are said in JSON's words: "got an object", "got a list",
/// never "got map" or "got sequence" (#44).
#[tokio::test]
async fn wrong_kinds_are_named_in_json_words() {
    let app = spawn_app().await;
    for (body, got) in [
        (serde_json::json!({"gpus": {"a": 1}}), "got an object"),
        (serde_json::json!({"gpus": [1]}), "got a list"),
        (
            serde_json::json!({"gpus": 64, "economics": {"years": {"n": 5}}}),
            "got an object",
        ),
        (serde_json::json!({"gpus": true}), "got true"),
    ] {
        let p = assert_problem(app.post_json("/v1/plans", &body).await, 422).await;
        let detail = p["errors"][0]["detail"].as_str().unwrap_or_default();
        assert!(detail.contains(got), "{body}: {detail}");
        for serde_word in ["map", "sequence", "boolean"] {
            assert!(!detail.contains(serde_word), "{body}: {detail}");
        }
    }
}

/// A decimal input's swept values follow the input's own notation: `values=1e0` is a 422, as
/// `economics.gpu_hour_usd=1e0` is on a plan (#44); an integer input's are unchanged.
#[tokio::test]
async fn a_decimal_inputs_swept_values_are_plain_decimals() {
    let app = spawn_app().await;
    for qs in [
        "vary=economics.gpu_hour_usd&values=1e0,2.5e0",
        "vary=economics.gpu_hour_usd&from=1e0&to=2&steps=2",
        "vary=gpus&values=64&vary2=economics.pue&values2=1.2,13e-1",
    ] {
        let p = app
            .problem(&format!("/v1/sweeps?gpus=1024&{qs}"), 422)
            .await;
        assert!(
            p["errors"][0]["detail"]
                .as_str()
                .unwrap_or_default()
                .contains("plain decimal"),
            "{qs}: {p}"
        );
    }
    let ok = app
        .get("/v1/sweeps?gpus=1024&vary=economics.gpu_hour_usd&values=1,2.5")
        .await;
    assert_eq!(ok.status(), 200);
}
