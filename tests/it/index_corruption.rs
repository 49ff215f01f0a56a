//! Bad files never stop the scan and never panic: every test archive (and DLL, PDB, object)
//! truncated at several points, with garbage written over size and offset fields, with random byte
//! flips (a deterministic stand-in for a fuzz target), plus empty, non-archive and unreadable files.

use crate::common;

use std::path::{Path, PathBuf};

use common::{index, index_fixtures, windows_lib};
use lnkfix::index::Machine;

fn inputs() -> Vec<PathBuf> {
    let f = index_fixtures();
    vec![
        f.static_lib.clone(),
        f.x86_lib.clone(),
        f.oldnames_lib.clone(),
        f.import_lib.clone(),
        f.dll.clone(),
        f.pdb.clone(),
        f.object.clone(),
        f.def.clone(),
    ]
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lnkfix-corrupt-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// Writes each variant next to a good file and checks the scan survives and still reads the
/// good one.
fn survive(dir: &Path, variants: Vec<(String, Vec<u8>)>) {
    let good = index_fixtures().import_lib.clone();
    let mut files = Vec::new();
    for (name, bytes) in &variants {
        let path = dir.join(name);
        std::fs::write(&path, bytes).expect("write variant");
        files.push(path);
    }
    files.push(good);
    let (index, warnings) = index(&files, Machine::X64);
    assert_eq!(
        index
            .lookup("__imp_hipMalloc")
            .last()
            .map(|s| s.library.clone()),
        Some(index_fixtures().import_lib.clone()),
        "the good file after the bad ones is still read"
    );
    for warning in &warnings {
        assert!(!warning.message.is_empty());
        assert!(files.contains(&warning.path), "{warning}");
    }
}

#[test]
fn truncated_at_several_points() {
    let dir = scratch("truncated");
    let mut variants = Vec::new();
    for input in inputs() {
        let bytes = std::fs::read(&input).expect("read fixture");
        let stem = input.file_name().unwrap().to_string_lossy().into_owned();
        let mut cuts: Vec<usize> = vec![1, 7, 8, 9, 60, 67, 68, 100, 200];
        cuts.extend((1..10).map(|tenth| bytes.len() * tenth / 10));
        cuts.push(bytes.len() - 1);
        for cut in cuts.into_iter().filter(|&c| c < bytes.len()) {
            variants.push((format!("{cut}-{stem}"), bytes[..cut].to_vec()));
        }
    }
    survive(&dir, variants);
    // A truncated archive names itself and the reason.
    let lib = std::fs::read(&index_fixtures().static_lib).expect("read");
    let path = dir.join("cut.lib");
    std::fs::write(&path, &lib[..lib.len() / 2]).expect("write");
    let (_, warnings) = index(std::slice::from_ref(&path), Machine::X64);
    assert!(!warnings.is_empty());
    assert!(warnings.iter().all(|w| w.path == path));
}

#[test]
fn garbage_sizes_and_offsets() {
    let dir = scratch("garbage");
    let mut variants = Vec::new();
    for input in inputs() {
        let bytes = std::fs::read(&input).expect("read fixture");
        let stem = input.file_name().unwrap().to_string_lossy().into_owned();
        // Archive member sizes (header bytes 48..58), symbol map counts and offsets, COFF
        // header fields (symbol table pointer, counts), PE and MSF header words.
        let spots = [
            8 + 48,
            8 + 60,
            8 + 64,
            8 + 60 + 4,
            2,
            8,
            12,
            16,
            0x3c,
            32,
            40,
            52,
        ];
        for (n, spot) in spots.into_iter().enumerate() {
            for garbage in [[0xFFu8; 4], [0x7F, 0xFF, 0xFF, 0x7F], *b"9999", [0; 4]] {
                let mut corrupt = bytes.clone();
                if spot + 4 <= corrupt.len() {
                    corrupt[spot..spot + 4].copy_from_slice(&garbage);
                    variants.push((format!("g{n}-{}-{stem}", garbage[0]), corrupt));
                }
            }
        }
        // Garbage in every member header's size field of an archive.
        if bytes.starts_with(b"!<arch>\n") {
            let mut corrupt = bytes.clone();
            let mut at = 8;
            while at + 60 <= corrupt.len() {
                let size: usize = std::str::from_utf8(&corrupt[at + 48..at + 58])
                    .ok()
                    .and_then(|s| s.trim().parse().ok())
                    .unwrap_or(0);
                let next = at + 60 + size + (size & 1);
                if next >= corrupt.len() {
                    corrupt[at + 48..at + 58].copy_from_slice(b"4294967295");
                }
                at = next;
            }
            variants.push((format!("lastsize-{stem}"), corrupt));
        }
    }
    survive(&dir, variants);
}

#[test]
fn random_byte_flips() {
    let dir = scratch("flips");
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let mut variants = Vec::new();
    for input in inputs() {
        let bytes = std::fs::read(&input).expect("read fixture");
        let stem = input.file_name().unwrap().to_string_lossy().into_owned();
        for round in 0..40 {
            let mut corrupt = bytes.clone();
            for _ in 0..1 + round % 8 {
                let at = (next() % corrupt.len() as u64) as usize;
                corrupt[at] = next() as u8;
            }
            variants.push((format!("f{round}-{stem}"), corrupt));
        }
    }
    survive(&dir, variants);
}

#[test]
fn real_import_library_truncated() {
    let dir = scratch("real");
    let bytes = std::fs::read(windows_lib("windows_x86_64_msvc")).expect("read");
    let mut variants = Vec::new();
    for tenth in [1, 5, 9] {
        variants.push((
            format!("w{tenth}.lib"),
            bytes[..bytes.len() * tenth / 10].to_vec(),
        ));
    }
    survive(&dir, variants);
    let path = dir.join("w5.lib");
    let (index, warnings) = index(std::slice::from_ref(&path), Machine::X64);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    // Members before the cut are still indexed.
    assert!(index.libraries()[0].symbols > 1000);
    assert!(warnings[0]
        .to_string()
        .starts_with(&path.display().to_string()));
}

#[test]
fn empty_non_archive_missing_and_directory() {
    let dir = scratch("odd");
    let empty = dir.join("empty.lib");
    std::fs::write(&empty, b"").expect("write");
    let text = dir.join("readme.lib");
    std::fs::write(&text, b"this is not an archive\n").expect("write");
    let missing = dir.join("missing.lib");
    let directory = dir.join("folder.lib");
    std::fs::create_dir_all(&directory).expect("mkdir");
    let thin = dir.join("thin.lib");
    std::fs::write(&thin, b"!<thin>\n").expect("write");
    let header_only = dir.join("header.lib");
    std::fs::write(&header_only, b"!<arch>\n").expect("write");
    let files = vec![
        empty.clone(),
        text.clone(),
        missing.clone(),
        directory.clone(),
        thin.clone(),
        header_only.clone(),
    ];
    let (index, warnings) = index(&files, Machine::X64);
    let messages: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
    for path in [&empty, &text, &missing, &directory, &thin] {
        let count = warnings.iter().filter(|w| &w.path == path).count();
        assert_eq!(count, 1, "{}: {messages:#?}", path.display());
    }
    assert!(
        messages.iter().any(|m| m.ends_with("empty file")),
        "{messages:#?}"
    );
    // An archive with no members is valid and empty.
    assert_eq!(index.libraries().len(), 1);
    assert_eq!(index.libraries()[0].path, header_only);
}
