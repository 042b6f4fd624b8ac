//! Build identity: a fingerprint of the source files, `Cargo.toml` and `Cargo.lock`, given to
//! the crate as `FABRIC_TCO_BUILD_ID` (16 hex digits). A sweep's entity tag carries it, so an
//! answer the same inputs get from a build with other code never matches a cached copy
//! (src/api/sheets/sweeps.rs, `sweep_tag`). `std`'s SipHash with its fixed keys: the same files
//! give the same id on every machine with the same toolchain; no dependency.

use std::hash::{DefaultHasher, Hasher};
use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

fn main() {
    let mut paths = vec![PathBuf::from("Cargo.toml"), PathBuf::from("Cargo.lock")];
    files(Path::new("src"), &mut paths);
    paths.sort();
    let mut h = DefaultHasher::new();
    for path in &paths {
        // A file that cannot be read still counts by its name.
        h.write(path.to_string_lossy().as_bytes());
        h.write_u8(0);
        h.write(&std::fs::read(path).unwrap_or_default());
        h.write_u8(0);
    }
    println!("cargo:rustc-env=FABRIC_TCO_BUILD_ID={:016x}", h.finish());
    for watched in ["src", "Cargo.toml", "Cargo.lock"] {
        println!("cargo:rerun-if-changed={watched}");
    }
}
