//! The index cache: a warm build gives exactly what reading the files gives,
//! a changed file is read again, a damaged entry is discarded with a warning, and concurrent
//! builds sharing one cache directory are safe.

use crate::common;

use std::path::{Path, PathBuf};

use common::{index_fixtures, windows_lib};
use lnkfix::index::{write_list, write_summary, Index, IndexOptions, IndexWarning, Machine};
use lnkfix::output::format::Format;

fn inputs() -> Vec<PathBuf> {
    let f = index_fixtures();
    vec![
        f.static_lib.clone(),
        f.x86_lib.clone(),
        f.oldnames_lib.clone(),
        f.import_lib.clone(),
        f.object.clone(),
        f.dll.clone(),
        f.def.clone(),
        windows_lib("windows_x86_64_gnu"),
        windows_lib("windows_x86_64_msvc"),
    ]
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lnkfix-cache-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn build(files: &[PathBuf], cache: Option<&Path>, arch: Machine) -> (Index, Vec<IndexWarning>) {
    let options = IndexOptions {
        arch,
        cache_dir: cache.map(Path::to_path_buf),
        ..IndexOptions::default()
    };
    Index::build(files, &options)
}

/// Everything an index shows: summary (with warnings), every symbol, every name.
fn render(index: &Index, warnings: &[IndexWarning]) -> String {
    let mut out = Vec::new();
    write_summary(index, warnings, &mut out, Format::Text).expect("write");
    String::from_utf8(out).expect("utf-8") + &list(index)
}

/// Every symbol and every name.
fn list(index: &Index) -> String {
    let mut out = Vec::new();
    write_list(index, &mut out, Format::Json).expect("write");
    let mut text = String::from_utf8(out).expect("utf-8");
    for name in index.names() {
        text.push_str(name);
        text.push('\n');
    }
    text
}

fn entries(dir: &Path) -> Vec<PathBuf> {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("cache dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "idx"))
        .collect();
    entries.sort();
    entries
}

#[test]
fn warm_builds_equal_reading_the_files() {
    let files = inputs();
    let dir = scratch("equal");
    for arch in [Machine::X64, Machine::X86] {
        let (plain, plain_warnings) = build(&files, None, arch);
        let expected = render(&plain, &plain_warnings);
        let (cold, cold_warnings) = build(&files, Some(&dir), arch);
        assert_eq!(render(&cold, &cold_warnings), expected, "cold {arch}");
        let (warm, warm_warnings) = build(&files, Some(&dir), arch);
        assert_eq!(render(&warm, &warm_warnings), expected, "warm {arch}");
    }
    // Lookups come back whole from the cache alone.
    let (warm, _) = build(&files, Some(&dir), Machine::X64);
    let create = warm.lookup("__imp_CreateFileW");
    assert_eq!(create.len(), 2, "{create:#?}");
    assert!(create
        .iter()
        .all(|s| s.dll.as_deref() == Some("kernel32.dll")));
    assert_eq!(warm.lookup("weak_fn").len(), 1);
    // Archives and objects are cached; the DLL and the .def are read each time.
    assert_eq!(entries(&dir).len(), files.len() - 2);
}

#[test]
fn changed_files_are_read_again() {
    let f = index_fixtures();
    let dir = scratch("changed");
    let lib = dir.join("lib");
    std::fs::create_dir_all(&lib).expect("mkdir");
    let path = lib.join("moving.lib");
    std::fs::copy(&f.static_lib, &path).expect("copy");
    let cache = dir.join("cache");
    let (first, _) = build(std::slice::from_ref(&path), Some(&cache), Machine::X64);
    assert_eq!(first.lookup("helper").len(), 1);
    // The index maps the files it read; Windows refuses to overwrite a mapped file.
    drop(first);
    // Same name, other content (and size and time): the entry must not be used.
    std::fs::copy(&f.import_lib, &path).expect("copy");
    let (second, warnings) = build(std::slice::from_ref(&path), Some(&cache), Machine::X64);
    assert!(warnings.is_empty(), "{warnings:?}");
    assert!(second.lookup("helper").is_empty());
    assert_eq!(second.lookup("__imp_hipMalloc").len(), 1);
}

#[test]
fn damaged_entries_are_discarded_with_a_warning() {
    let files = inputs();
    let dir = scratch("damaged");
    let (plain, plain_warnings) = build(&files, None, Machine::X64);
    let expected = render(&plain, &plain_warnings);
    build(&files, Some(&dir), Machine::X64);
    let cached = entries(&dir);
    assert!(!cached.is_empty());
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    for (round, entry) in cached.iter().enumerate() {
        let mut bytes = std::fs::read(entry).expect("read entry");
        match round % 3 {
            // A flipped byte past the header, truncation, garbage.
            0 => {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let at = 64 + (state as usize % (bytes.len() - 64));
                bytes[at] ^= 0x5a;
            }
            1 => bytes.truncate(bytes.len() / 2),
            _ => bytes[8..].iter_mut().for_each(|b| *b = 0xff),
        }
        std::fs::write(entry, &bytes).expect("write entry");
    }
    let (index, warnings) = build(&files, Some(&dir), Machine::X64);
    let damaged: Vec<&IndexWarning> = warnings
        .iter()
        .filter(|w| w.message.contains("damaged index cache entry"))
        .collect();
    // Garbage over the header makes an entry unrecognisable for its file; the others are named.
    assert!(damaged.len() >= cached.len() / 2, "{warnings:#?}");
    assert!(damaged.iter().all(|w| files.contains(&w.path)));
    assert_eq!(warnings.len(), plain_warnings.len() + damaged.len());
    assert_eq!(list(&index), list(&plain));
    // Each damaged entry is counted against its file, nothing else differs.
    for (library, read) in index.libraries().iter().zip(plain.libraries()) {
        let extra = damaged.iter().filter(|w| w.path == library.path).count();
        assert_eq!(library.warnings, read.warnings + extra);
        let mut same = library.clone();
        same.warnings = read.warnings;
        assert_eq!(&same, read);
    }
    // The entries were written again: the next build is clean.
    let (again, warnings) = build(&files, Some(&dir), Machine::X64);
    assert_eq!(render(&again, &warnings), expected);
}

#[test]
fn concurrent_builds_share_one_cache() {
    let files = inputs();
    let dir = scratch("concurrent");
    let (plain, plain_warnings) = build(&files, None, Machine::X64);
    let expected = render(&plain, &plain_warnings);
    let results: Vec<String> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                scope.spawn(|| {
                    let (index, warnings) = build(&files, Some(&dir), Machine::X64);
                    render(&index, &warnings)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    for result in results {
        assert_eq!(result, expected);
    }
    let (warm, warnings) = build(&files, Some(&dir), Machine::X64);
    assert_eq!(render(&warm, &warnings), expected);
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("cache dir")
        .map(|e| e.expect("entry").file_name())
        .filter(|n| n.to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn unwritable_cache_is_one_warning() {
    let files = inputs();
    let dir = scratch("unwritable");
    let blocker = dir.join("not-a-dir");
    std::fs::write(&blocker, b"a file where the cache dir should be").expect("write");
    let (plain, plain_warnings) = build(&files, None, Machine::X64);
    let (index, warnings) = build(&files, Some(&blocker), Machine::X64);
    assert_eq!(warnings.len(), plain_warnings.len() + 1, "{warnings:#?}");
    assert!(warnings
        .iter()
        .any(|w| w.path == blocker && w.message.starts_with("cannot write the index cache")));
    assert_eq!(
        render(&index, &plain_warnings),
        render(&plain, &plain_warnings)
    );
}

/// Another program truncates every cache entry in place while a warm index that was read from
/// them is still in use. A mapped entry would end the process (SIGBUS) at the first name read
/// past the new end; entries are read into memory, so the index reads on, and the next build
/// rebuilds the damaged entries.
#[test]
fn entries_truncated_while_in_use_do_not_end_the_run() {
    let files = inputs();
    let dir = scratch("truncated");
    let (plain, plain_warnings) = build(&files, None, Machine::X64);
    let expected = render(&plain, &plain_warnings);
    build(&files, Some(&dir), Machine::X64);
    let (warm, warm_warnings) = build(&files, Some(&dir), Machine::X64);
    let cached = entries(&dir);
    assert!(!cached.is_empty());
    for entry in &cached {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .open(entry)
            .expect("open entry");
        file.set_len(0).expect("truncate entry");
    }
    assert_eq!(render(&warm, &warm_warnings), expected);
    assert_eq!(warm.lookup("weak_fn").len(), 1);
    drop(warm);
    let (rebuilt, warnings) = build(&files, Some(&dir), Machine::X64);
    assert_eq!(list(&rebuilt), list(&plain));
    assert!(warnings.len() >= plain_warnings.len(), "{warnings:#?}");
    let (again, warnings) = build(&files, Some(&dir), Machine::X64);
    assert_eq!(render(&again, &warnings), expected);
}
