//! `fabric-tco healthcheck` (the container's HEALTHCHECK): exit 0 only when `/healthz` at the
//! address in `FABRIC_TCO_BIND` answers 200.

use std::io::{Read, Write};
use std::net::TcpListener;
use std::process::{Command, Output};

use super::spawn_app;

/// Runs `fabric-tco healthcheck` with `FABRIC_TCO_BIND=bind` (blocking, off the test runtime).
async fn healthcheck(bind: String) -> Output {
    tokio::task::spawn_blocking(move || {
        Command::new(env!("CARGO_BIN_EXE_fabric-tco"))
            .arg("healthcheck")
            .env("FABRIC_TCO_BIND", bind)
            .output()
            .expect("run the binary")
    })
    .await
    .expect("join")
}

fn port_of(base: &str) -> u16 {
    base.rsplit(':').next().unwrap().parse().unwrap()
}

#[tokio::test]
async fn healthcheck_passes_against_a_running_service() {
    let app = spawn_app().await;
    let port = port_of(&app.base);
    let out = healthcheck(format!("127.0.0.1:{port}")).await;
    assert!(out.status.success(), "{out:?}");
    // A wildcard bind address (the container's 0.0.0.0) is probed on loopback.
    let out = healthcheck(format!("0.0.0.0:{port}")).await;
    assert!(out.status.success(), "{out:?}");
}

#[tokio::test]
async fn healthcheck_fails_when_nothing_listens() {
    let free = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = free.local_addr().unwrap().port();
    drop(free);
    let out = healthcheck(format!("127.0.0.1:{port}")).await;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot connect"));
}

#[tokio::test]
async fn healthcheck_fails_on_a_non_200_answer() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let server = std::thread::spawn(move || {
        let (mut conn, _) = listener.accept().unwrap();
        let mut buf = [0u8; 1024];
        let _ = conn.read(&mut buf);
        conn.write_all(
            b"HTTP/1.1 503 Service Unavailable\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
        )
        .unwrap();
    });
    let out = healthcheck(format!("127.0.0.1:{port}")).await;
    server.join().unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("503"));
}

#[tokio::test]
async fn healthcheck_fails_on_a_bad_bind_address() {
    let out = healthcheck("not-an-address".to_string()).await;
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("FABRIC_TCO_BIND"));
}
