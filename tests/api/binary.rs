//! The release or test build of the binary as a child process: started on port 0, its bound
//! address read from its "listening on" log line (the one helper every process test uses).

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

/// A running service process.
pub struct Binary {
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// Every line it has logged so far.
    pub log: std::sync::Arc<std::sync::Mutex<Vec<String>>>,
}

impl Binary {
    /// Starts the binary with `env` (`FABRIC_TCO_BIND` is set to port 0) and waits for its
    /// "listening on" line (20 s at most).
    pub fn start(env: &[(&str, String)]) -> Binary {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_fabric-tco"));
        cmd.env("FABRIC_TCO_BIND", "127.0.0.1:0")
            .env("RUST_LOG", "info")
            .env("FABRIC_TCO_LOG_FORMAT", "text")
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().expect("start the binary");
        let stderr = child.stderr.take().expect("stderr");
        let (tx, rx) = std::sync::mpsc::channel();
        let log = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = std::sync::Arc::clone(&log);
        std::thread::spawn(move || {
            let mut sent = false;
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if let Ok(mut l) = kept.lock() {
                    l.push(line.clone());
                }
                if !sent && let Some(at) = line.find("listening on http://") {
                    let addr = line[at + "listening on ".len()..]
                        .split('/')
                        .take(3)
                        .collect::<Vec<_>>()
                        .join("/");
                    let _ = tx.send(addr);
                    sent = true;
                }
            }
        });
        let base = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the service logs its address within 20 s");
        Binary { child, base, log }
    }

    /// SIGKILL, and wait for the process to be gone.
    pub fn kill9(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Binary {
    fn drop(&mut self) {
        self.kill9();
    }
}
