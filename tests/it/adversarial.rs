//! Hostile environments: symbol-map claims of billions of entries, member sizes past the
//! end, symlink loops and unreadable entries in a lib dir, a lib dir of 50,000 files, and paths with
//! spaces, non-ASCII and quotes. Each run is bounded, gives warnings naming the file, and never
//! panics; good files beside the bad ones are still read.

use crate::common;

use common::StartRetrying;

use std::path::{Path, PathBuf};

use lnkfix::index::discover::{discover, SearchOptions};
use lnkfix::index::{Index, IndexOptions, Machine};

fn no_env(_: &str) -> Option<String> {
    None
}

fn search(dir: &Path) -> lnkfix::index::discover::Discovered {
    let options = SearchOptions {
        lib_dirs: vec![dir.to_path_buf()],
        arch: Machine::X64,
        ..SearchOptions::default()
    };
    discover(&options, &no_env)
}

/// A small, valid import library (built by the fixture script) to copy around.
fn good_library() -> PathBuf {
    common::fixtures().join("kits/Lib/10.0.26100.0/um/x64/kernel32.Lib")
}

fn archive_with_symbol_map(count: u32, offset: u32) -> Vec<u8> {
    // `!<arch>` + a first linker member whose count and offsets lie.
    let mut body = Vec::new();
    body.extend_from_slice(&count.to_be_bytes());
    for _ in 0..4 {
        body.extend_from_slice(&offset.to_be_bytes());
    }
    body.extend_from_slice(b"a\0b\0c\0d\0");
    let mut out = b"!<arch>\n".to_vec();
    out.extend_from_slice(
        format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            "/",
            "0",
            "0",
            "0",
            "0",
            body.len()
        )
        .as_bytes(),
    );
    out.extend_from_slice(&body);
    out
}

#[test]
fn lying_archives_are_warned_about_and_the_scan_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let billions = dir.path().join("billions.lib");
    std::fs::write(&billions, archive_with_symbol_map(u32::MAX, 8)).unwrap();
    let past_end = dir.path().join("past_end.lib");
    std::fs::write(&past_end, archive_with_symbol_map(4, u32::MAX - 16)).unwrap();
    // A member header claiming more bytes than the file has.
    let mut oversized = b"!<arch>\n".to_vec();
    oversized.extend_from_slice(
        format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            "big.obj/", "0", "0", "0", "0", "9999999999"
        )
        .as_bytes(),
    );
    oversized.extend_from_slice(&[0u8; 64]);
    let oversized_path = dir.path().join("oversized.lib");
    std::fs::write(&oversized_path, oversized).unwrap();
    let good = dir.path().join("kernel32.Lib");
    std::fs::copy(good_library(), &good).unwrap();

    let files = vec![
        billions.clone(),
        past_end.clone(),
        oversized_path.clone(),
        good.clone(),
    ];
    let (index, warnings) = Index::build(&files, &IndexOptions::default());
    assert!(
        !index.lookup("__imp_CreateFileW").is_empty(),
        "the good library is read"
    );
    for bad in [&billions, &past_end, &oversized_path] {
        // Either a warning names it, or it simply defines nothing; never a panic or a hang.
        let named = warnings.iter().any(|w| w.path == *bad);
        let defines = index
            .libraries()
            .iter()
            .any(|l| l.path == *bad && l.symbols > 0);
        assert!(named || !defines, "{}: {warnings:?}", bad.display());
    }
    assert!(
        warnings.iter().any(|w| w.path == oversized_path),
        "{warnings:?}"
    );
}

#[cfg(unix)]
#[test]
fn symlink_loops_and_unreadable_entries() {
    let dir = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(dir.path().join("loop_b.lib"), dir.path().join("loop_a.lib"))
        .unwrap();
    std::os::unix::fs::symlink(dir.path().join("loop_a.lib"), dir.path().join("loop_b.lib"))
        .unwrap();
    std::os::unix::fs::symlink(dir.path(), dir.path().join("self")).unwrap();
    std::fs::create_dir(dir.path().join("a directory.lib")).unwrap();
    std::fs::copy(good_library(), dir.path().join("kernel32.Lib")).unwrap();
    let found = search(dir.path());
    let (index, warnings) = Index::build(&found.files, &IndexOptions::default());
    assert!(!index.lookup("__imp_CreateFileW").is_empty());
    // Loops resolve to nothing readable: at most a warning each, never a hang.
    for w in &warnings {
        assert!(!w.to_string().is_empty());
    }
}

#[test]
fn a_lib_dir_of_fifty_thousand_files() {
    let dir = tempfile::tempdir().unwrap();
    // Under Wine every file creation crosses its server: 50,000 take minutes there, so the
    // Windows run uses 5,000 (the Linux run covers 50,000).
    let count = if cfg!(windows) { 5_000 } else { 50_000 };
    for i in 0..count {
        std::fs::write(dir.path().join(format!("noise_{i}.txt")), b"").unwrap();
    }
    std::fs::copy(good_library(), dir.path().join("kernel32.Lib")).unwrap();
    let found = search(dir.path());
    assert!(found.files.iter().any(|f| f.ends_with("kernel32.Lib")));
    assert!(
        found.files.len() < 10,
        "only libraries are indexed: {}",
        found.files.len()
    );
    let (index, _) = Index::build(&found.files, &IndexOptions::default());
    assert!(!index.lookup("__imp_CreateFileW").is_empty());
}

#[test]
fn paths_with_spaces_non_ascii_and_quotes() {
    let root = tempfile::tempdir().unwrap();
    // Windows forbids `"` in file names; elsewhere the quote is part of the test.
    let name = if cfg!(windows) {
        "Jörg's ROCm 6.4"
    } else {
        "Jörg's \"ROCm\" 6.4"
    };
    let dir = root
        .path()
        .join("Program Files (x86)")
        .join(name)
        .join("lib");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(good_library(), dir.join("kernel32.Lib")).unwrap();
    let found = search(&dir);
    let (index, warnings) = Index::build(&found.files, &IndexOptions::default());
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(!index.lookup("__imp_CreateFileW").is_empty());

    // And through the CLI: the flags quote the path for a Windows command line.
    let log = root.path().join("link log ö.txt");
    std::fs::write(&log, "a.obj : error LNK2019: unresolved external symbol __imp_CreateFileW referenced in function main\n").unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .arg("diagnose")
        .arg(&log)
        .arg("--lib-dir")
        .arg(&dir)
        .output_retrying()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout);
    assert_eq!(output.status.code(), Some(1), "{text}");
    assert!(text.contains("\"/LIBPATH:"), "the path is quoted: {text}");
    if !cfg!(windows) {
        assert!(
            text.contains("Jörg's \\\"ROCm\\\" 6.4"),
            "quotes escaped for CommandLineToArgvW: {text}"
        );
    }
}
