//! The source files import each other without loops (#13): a file may use its parent module
//! (the `mod.rs` or the crate root that declares it) and anything below or beside it, but no
//! chain of `crate::…` / `super::…` paths may lead from a file back to itself. Test files
//! (`tests.rs`, `*_tests.rs`) are left out: they may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Module path of every source file under `src/` (`src/plan/bom.rs` → `["plan", "bom"]`).
fn modules(dir: &Path, prefix: &[String], out: &mut BTreeMap<Vec<String>, PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let Some(name) = path
            .file_stem()
            .and_then(|s| s.to_str())
            .map(str::to_string)
        else {
            continue;
        };
        let mut module = prefix.to_vec();
        if path.is_dir() {
            module.push(name);
            modules(&path, &module, out);
        } else if path.extension().is_some_and(|e| e == "rs")
            && name != "main"
            && name != "tests"
            && !name.ends_with("_tests")
        {
            if name != "mod" && name != "lib" {
                module.push(name);
            }
            out.insert(module, path);
        }
    }
}

/// The code of a file without its comments (doc links name paths that are no imports) and
/// without its inline test modules (`#[cfg(test)] mod … { … }`).
fn code(text: &str) -> String {
    let mut out: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join("\n");
    while let Some(at) = out.find("#[cfg(test)]") {
        let after = &out[at + "#[cfg(test)]".len()..];
        let body = after.trim_start();
        let Some(open) = body.strip_prefix("mod ").and_then(|b| b.find('{')) else {
            // A test-only item, not a module: keep it and look further.
            out.replace_range(at..at + "#[cfg(test)]".len(), "");
            continue;
        };
        let start = out.len() - body.len() + "mod ".len() + open;
        let mut depth = 0usize;
        let mut end = out.len();
        for (i, c) in out[start..].char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        end = start + i + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.replace_range(at..end, "");
    }
    out
}

/// Every path the code of module `here` names from `crate::` or `super::`, as segments from
/// the root (`use crate::{a::b, c}` gives `a::b` and `c`).
fn paths(code: &str, here: &[String]) -> Vec<Vec<String>> {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let mut out = Vec::new();
    for (i, _) in code
        .match_indices("crate::")
        .chain(code.match_indices("super::"))
    {
        if code[..i].ends_with("super::") || code[..i].ends_with(|c: char| ident(c)) {
            continue; // the tail of a longer path, or part of a longer word
        }
        let mut base: Vec<String> = here.to_vec();
        let mut rest = &code[i..];
        if rest.starts_with("crate::") {
            base.clear();
            rest = &rest["crate::".len()..];
        }
        while let Some(r) = rest.strip_prefix("super::") {
            base.pop();
            rest = r;
        }
        let groups: Vec<&str> = match rest.strip_prefix('{') {
            Some(r) => r.split('}').next().unwrap_or("").split(',').collect(),
            None => vec![rest],
        };
        for g in groups {
            let mut p = base.clone();
            let mut g = g.trim_start();
            loop {
                let end = g.find(|c: char| !ident(c)).unwrap_or(g.len());
                if end == 0 {
                    break;
                }
                if &g[..end] != "self" {
                    p.push(g[..end].to_string());
                }
                match g[end..].strip_prefix("::") {
                    Some(next) => g = next,
                    None => break,
                }
            }
            out.push(p);
        }
    }
    out
}

type Edges = BTreeMap<Vec<String>, BTreeSet<Vec<String>>>;

/// Which file imports which, by module path: every file under `src/` but test files.
fn file_edges() -> Edges {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = BTreeMap::new();
    modules(&root, &[], &mut files);
    assert!(files.len() > 50, "found only {} source files", files.len());
    let mut edges = Edges::new();
    for (module, path) in &files {
        let text = std::fs::read_to_string(path).expect("source file");
        let out = edges.entry(module.clone()).or_default();
        for p in paths(&code(&text), module) {
            // The longest prefix of the path that is a file.
            let target = (0..=p.len())
                .rev()
                .find_map(|n| files.get_key_value(&p[..n]).map(|(k, _)| k));
            // A file may use itself and the modules that contain it.
            if let Some(t) = target.filter(|t| !module.starts_with(t)) {
                out.insert(t.clone());
            }
        }
    }
    edges
}

/// A loop in `edges`, if there is one, as the names along it.
fn find_loop(edges: &Edges) -> Option<Vec<String>> {
    fn visit<'a>(
        m: &'a Vec<String>,
        edges: &'a Edges,
        stack: &mut Vec<&'a Vec<String>>,
        done: &mut BTreeSet<&'a Vec<String>>,
    ) -> Option<Vec<String>> {
        if let Some(at) = stack.iter().position(|s| *s == m) {
            return Some(stack[at..].iter().map(|s| s.join("::")).collect());
        }
        if !done.insert(m) {
            return None;
        }
        stack.push(m);
        for next in edges.get(m).into_iter().flatten() {
            if let Some(found) = visit(next, edges, stack, done) {
                return Some(found);
            }
        }
        stack.pop();
        None
    }
    let mut done = BTreeSet::new();
    edges
        .keys()
        .find_map(|m| visit(m, edges, &mut Vec::new(), &mut done))
}

#[test]
fn no_two_source_files_import_each_other_in_a_loop() {
    let found = find_loop(&file_edges());
    assert!(
        found.is_none(),
        "these files import each other in a loop: {}",
        found.unwrap_or_default().join(" -> ")
    );
}

/// The layers lib.rs describes: data flows `api` → `report` → `table`/`charts` → `plan` →
/// {`sizing`, `perf`, `cost`} → `catalog`. No top-level module reaches back up, the pure core
/// reaches none of the layers above it, and only `api` (and the crate root) knows `api`.
#[test]
fn the_top_level_modules_are_layered_and_the_core_knows_no_http() {
    let mut top = Edges::new();
    for (from, targets) in file_edges() {
        let Some(a) = from.first() else {
            continue; // the crate root declares every module
        };
        for t in targets {
            if let Some(b) = t.first().filter(|b| *b != a) {
                top.entry(vec![a.clone()])
                    .or_default()
                    .insert(vec![b.clone()]);
            }
        }
    }
    let found = find_loop(&top);
    assert!(
        found.is_none(),
        "these top-level modules import each other in a loop: {}",
        found.unwrap_or_default().join(" -> ")
    );
    let above_the_core = ["plan", "table", "charts", "report", "api"];
    for core in [
        "sizing",
        "perf",
        "cost",
        "catalog",
        "fabric",
        "clock",
        "error_code",
    ] {
        for up in above_the_core {
            let reaches = top
                .get(&vec![core.to_string()])
                .is_some_and(|t| t.contains(&vec![up.to_string()]));
            assert!(!reaches, "the core module {core} imports {up}");
        }
    }
    for (from, targets) in &top {
        assert!(
            from[0] == "api" || !targets.contains(&vec!["api".to_string()]),
            "{} imports api: only the HTTP layer may",
            from[0]
        );
    }
}
