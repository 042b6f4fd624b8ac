//! The binary's command line: `--help` and `--version` answer and exit (they used to start the
//! server), an unknown command is refused, and `openapi` into a reader that stops early exits
//! cleanly (it used to panic on the closed pipe).

use std::io::Read;
use std::process::{Command, Stdio};

fn run(arg: &str) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_fabric-tco"))
        .arg(arg)
        // Were the command ignored, the server would start here: make that fail fast.
        .env("FABRIC_TCO_BIND", "not-an-address")
        .output()
        .expect("run the binary")
}

#[test]
fn help_and_version_answer_without_serving() {
    for arg in ["--help", "-h"] {
        let out = run(arg);
        assert!(out.status.success(), "{arg}: {out:?}");
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(
            text.contains("Usage:") && text.contains("FABRIC_TCO_BIND"),
            "{text}"
        );
    }
    let out = run("--version");
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("fabric-tco {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn an_unknown_command_is_refused_with_the_usage() {
    let out = run("serve-please");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown command 'serve-please'") && err.contains("Usage:"),
        "{err}"
    );
}

#[test]
fn an_extra_argument_is_refused() {
    let out = Command::new(env!("CARGO_BIN_EXE_fabric-tco"))
        .args(["--version", "extra"])
        .output()
        .expect("run the binary");
    assert_eq!(out.status.code(), Some(2), "{out:?}");
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument 'extra'"));
}

#[test]
fn openapi_into_a_reader_that_stops_early_exits_cleanly() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_fabric-tco"))
        .arg("openapi")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run the binary");
    let mut first = [0u8; 1];
    child
        .stdout
        .take()
        .expect("stdout")
        .read_exact(&mut first)
        .expect("a first byte");
    // The pipe is closed here, with about 600 KB unread.
    let out = child.wait_with_output().expect("wait");
    assert_eq!(first, *b"{");
    assert!(out.status.success(), "{out:?}");
    assert!(
        out.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
