//! Every input a fuzz target crashed on, kept as a file in
//! `tests/fuzz_regressions/<target>/`, replayed through the code the target runs
//! (`fuzz/src/lib.rs`, included by path), in the normal `cargo test`: no fuzz toolchain needed.
//! Each file's name says what it broke; `fuzz/README.md` lists the fixes.

use crate::fuzz_targets;

use std::path::PathBuf;

/// Runs every kept input of `target` (and the empty input) through `run`; reports every failing
/// file, not just the first.
fn replay(target: &str, run: fn(&[u8])) {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("fuzz_regressions")
        .join(target);
    let mut inputs: Vec<(String, Vec<u8>)> = vec![("(empty input)".to_string(), Vec::new())];
    if let Ok(entries) = std::fs::read_dir(&dir) {
        let mut paths: Vec<PathBuf> = entries.map(|entry| entry.unwrap().path()).collect();
        paths.sort();
        for path in paths {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            inputs.push((name, std::fs::read(&path).unwrap()));
        }
    }
    let mut failures = Vec::new();
    for (name, data) in &inputs {
        if std::panic::catch_unwind(|| run(data)).is_err() {
            failures.push(name.clone());
        }
    }
    assert!(
        failures.is_empty(),
        "{target}: {} of {} inputs fail (panic messages above): {failures:?}",
        failures.len(),
        inputs.len()
    );
}

#[test]
fn log_reader() {
    replay("log_reader", fuzz_targets::log_reader);
}

#[test]
fn demangle() {
    replay("demangle", fuzz_targets::demangle);
}

#[test]
fn archive() {
    replay("archive", fuzz_targets::archive);
}

#[test]
fn pe_exports() {
    replay("pe_exports", fuzz_targets::pe_exports);
}

#[test]
fn def_file() {
    replay("def_file", fuzz_targets::def_file);
}

#[test]
fn pdb() {
    replay("pdb", fuzz_targets::pdb);
}

#[test]
fn patch() {
    replay("patch", fuzz_targets::patch);
}

#[test]
fn whence() {
    replay("whence", fuzz_targets::whence);
}

#[test]
fn lenses() {
    replay("lenses", fuzz_targets::lenses);
}
