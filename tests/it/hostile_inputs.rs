//! Hostile inputs, second round: each attack reproduced, then shown to be answered. Names whose
//! back-references double the output at each level (in a log, through `explain`, in a library),
//! and the rest of the file: FIFOs, cycles, planted links, owners, encodings, cut records,
//! non-UTF-8 paths, control characters and saved diagnoses.

use crate::common;
use crate::patch_common::EXTENSION_PY;

use assert_cmd::Command;
use common::AssertRetrying;

fn lnkfix() -> Command {
    let mut cmd = Command::cargo_bin("lnkfix").unwrap();
    cmd.env_remove("NO_COLOR").env_remove("LIB");
    cmd
}

/// `B<T, T>` nested `levels` deep, the second `T` a back-reference to the first: 8 bytes a level,
/// 2^levels bytes demangled. At 30 levels (250 bytes) msvc-demangler ran out of memory.
fn doubling_name(levels: usize) -> String {
    format!(
        "?x@@3{}VA@@{}A",
        "V?$B@".repeat(levels),
        "0@@".repeat(levels)
    )
}

/// A short import member (COFF import header, then the symbol and the DLL name).
fn import_member(symbol: &str, dll: &str, code: bool) -> Vec<u8> {
    let mut strings = symbol.as_bytes().to_vec();
    strings.push(0);
    strings.extend_from_slice(dll.as_bytes());
    strings.push(0);
    let mut member = Vec::new();
    member.extend_from_slice(&0u16.to_le_bytes());
    member.extend_from_slice(&0xFFFFu16.to_le_bytes());
    member.extend_from_slice(&0u16.to_le_bytes());
    member.extend_from_slice(&0x8664u16.to_le_bytes());
    member.extend_from_slice(&0u32.to_le_bytes());
    member.extend_from_slice(&(strings.len() as u32).to_le_bytes());
    member.extend_from_slice(&0u16.to_le_bytes());
    // Import type (0 code, 1 data) and name type 1 (the symbol name as it is).
    let kind: u16 = if code { 0 } else { 1 };
    member.extend_from_slice(&(kind | (1 << 2)).to_le_bytes());
    member.extend_from_slice(&strings);
    member
}

/// An archive of the given members (no linker member: the reader walks the members).
fn archive(members: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = b"!<arch>\n".to_vec();
    for (name, data) in members {
        let header = format!(
            "{:<16}{:<12}{:<6}{:<6}{:<8}{:<10}`\n",
            format!("{name}/"),
            0,
            0,
            0,
            644,
            data.len()
        );
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(data);
        if data.len() % 2 == 1 {
            out.push(b'\n');
        }
    }
    out
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn a_doubling_name_in_a_log_is_shown_raw_with_the_flag_named() {
    let name = doubling_name(30);
    let log = format!(
        "main.obj : error LNK2019: unresolved external symbol {name} referenced in function main\r\n\
         main.obj : error LNK2001: unresolved external symbol __imp_{name}\r\n"
    );
    let assert = lnkfix()
        .args(["diagnose", "-", "--format", "json"])
        .write_stdin(log.clone())
        .assert_retrying()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    let symbols = json["symbols"].as_array().unwrap();
    assert!(!symbols.is_empty());
    for symbol in symbols {
        assert_eq!(symbol["demangled"], name.as_str(), "{symbol}");
        let warning = symbol["warning"].as_str().unwrap_or_default();
        assert!(warning.contains("--max-demangle-output"), "{symbol}");
    }
    // The text report says so too, and a larger limit is still a bound (the name stays raw).
    let assert = lnkfix()
        .args(["diagnose", "-", "--max-demangle-output", "100000000"])
        .write_stdin(log)
        .assert_retrying()
        .code(1);
    let text = stdout(assert.get_output());
    assert!(text.contains(&name), "{text}");
    // Through explain, the same guard.
    let assert = lnkfix()
        .args(["explain", &name, "--format", "json"])
        .assert_retrying();
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(json["demangled"], name.as_str(), "{json}");
}

#[test]
fn a_doubling_name_in_a_library_is_not_demangled_and_the_rest_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let library = archive(&[
        ("x.dll", import_member(&doubling_name(30), "x.dll", false)),
        ("x.dll", import_member("?f@@YAXXZ", "x.dll", true)),
    ]);
    std::fs::write(dir.path().join("x.lib"), library).unwrap();
    // lld-link names symbols demangled: matching them demangles the library's names.
    let log = "lld-link: error: undefined symbol: void __cdecl f(void)\n\
               >>> referenced by main.obj:(main)\n";
    std::fs::write(dir.path().join("link.log"), log).unwrap();
    let json = common::diagnose_json(dir.path(), &["link.log", "--lib-dir", ".", "--no-cache"]);
    let symbol = &json["symbols"][0];
    assert_eq!(symbol["library"], "x.lib", "{json}");
    assert_eq!(symbol["dll"], "x.dll", "{json}");
}

/// Every C++ name of the real MSVC C++ libraries: the bound is never under msvc-demangler's
/// output, and every name it demangles has a bound (the walk follows its grammar).
#[cfg(not(windows))]
#[test]
fn the_output_bound_holds_on_the_real_msvc_names() {
    use object::read::archive::ArchiveFile;
    let dirs = common::RealDirs::get();
    let mut checked = 0;
    let mut failures = Vec::new();
    for library in ["msvcprt.lib", "libcpmt.lib", "msvcrt.lib", "vcruntime.lib"] {
        let data = std::fs::read(dirs.vc.join(library)).unwrap();
        let archive = ArchiveFile::parse(&*data).unwrap();
        let mut names = Vec::new();
        for symbol in archive.symbols().unwrap().unwrap() {
            let name = symbol.unwrap().name();
            let name = std::str::from_utf8(name).unwrap();
            let bare = name.strip_prefix("__imp_").unwrap_or(name);
            if bare.starts_with('?') {
                names.push(bare.to_string());
            }
        }
        names.sort();
        names.dedup();
        for name in names {
            let real = msvc_demangler::demangle(&name, msvc_demangler::DemangleFlags::llvm());
            let bound = lnkfix::read::demangle::output_bound(&name);
            match (real, bound) {
                (Ok(text), Some(bound)) if (text.len() as u64) <= bound => checked += 1,
                (Err(_), _) => {}
                (real, bound) => failures.push(format!("{name}: {real:?} bound {bound:?}")),
            }
        }
    }
    assert!(checked > 5_000, "only {checked} names");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Runs a command that must end by itself within a minute (a blocked `open` never does): kills it
/// and fails otherwise. Returns its output.
#[cfg(unix)]
pub(crate) fn finishes(mut command: std::process::Command) -> std::process::Output {
    use std::io::Read;
    let mut child = command
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Drain the pipes on threads so a large output cannot stall the child.
    let mut out = child.stdout.take().unwrap();
    let mut err = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        out.read_to_end(&mut bytes).map(|_| bytes)
    });
    let err = std::thread::spawn(move || {
        let mut bytes = Vec::new();
        err.read_to_end(&mut bytes).map(|_| bytes)
    });
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            panic!("{command:?} did not end within a minute (blocked?)");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    std::process::Output {
        status,
        stdout: out.join().unwrap().unwrap(),
        stderr: err.join().unwrap().unwrap(),
    }
}

#[cfg(unix)]
pub(crate) fn mkfifo(path: &std::path::Path) {
    let status = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(status.success(), "mkfifo {}", path.display());
}

#[cfg(unix)]
pub(crate) fn lnkfix_std() -> std::process::Command {
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"));
    command.env_remove("LIB").env_remove("NO_COLOR");
    command
}

const IMPORT_LOG_TEXT: &str =
    "main.obj : error LNK2019: unresolved external symbol __imp_CreateFileW referenced in function main\r\n";
#[cfg(unix)]
const IMPORT_LOG: &str = IMPORT_LOG_TEXT;

/// A library directory with one good import library (`kernel32.dll`'s `CreateFileW`).
#[cfg(unix)]
fn library_dir(dir: &std::path::Path) {
    std::fs::create_dir_all(dir).unwrap();
    let library = archive(&[(
        "KERNEL32.dll",
        import_member("CreateFileW", "KERNEL32.dll", true),
    )]);
    std::fs::write(dir.join("x.lib"), library).unwrap();
}

#[cfg(unix)]
pub(crate) fn all_text(output: &std::process::Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// FIFOs at every path lnkfix opens besides the log: each is a warning naming it (or, for an
/// input that is the whole point of the run, an error naming it), never a blocked process.
#[cfg(unix)]
#[test]
fn fifos_are_refused_wherever_a_file_is_opened() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let libs = root.join("libs");
    library_dir(&libs);
    for fifo in ["y.lib", "z.def", "w.pdb", "v.obj"] {
        mkfifo(&libs.join(fifo));
    }
    let objects = root.join("objects");
    std::fs::create_dir(&objects).unwrap();
    mkfifo(&objects.join("main.obj"));
    let build = root.join("build");
    std::fs::create_dir(&build).unwrap();
    mkfifo(&build.join("build.ninja"));
    std::fs::write(root.join("link.log"), IMPORT_LOG).unwrap();

    // Library directory (by --lib-dir and by LIB), globbed files, objects, build.ninja.
    let glob = format!("{}/*", libs.display());
    for variant in 0..3 {
        let mut command = lnkfix_std();
        command
            .current_dir(root)
            .args(["diagnose", "link.log", "--no-cache", "--format", "json"]);
        match variant {
            0 => command.args(["--lib-dir", "libs"]),
            1 => command.env("LIB", &libs),
            _ => command.args(["--lib", &glob]),
        };
        command.args(["--objects", "objects", "--build-dir", "build"]);
        let output = finishes(command);
        let text = all_text(&output);
        assert_eq!(output.status.code(), Some(1), "{variant}: {text}");
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["symbols"][0]["library"], "x.lib", "{variant}: {text}");
        let warnings: Vec<&str> = json["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|w| w.as_str())
            .collect();
        let mut expected = vec!["y.lib", "build.ninja", "main.obj"];
        if variant == 2 {
            expected.extend(["z.def", "w.pdb", "v.obj"]);
        }
        for name in expected {
            assert!(
                warnings
                    .iter()
                    .any(|w| w.contains(name) && w.contains("not a regular file (a FIFO")),
                "{variant}: no warning for {name}: {warnings:?}"
            );
        }
    }

    // Cache entries (per file, and the lookup table of the set): written by a first run, replaced
    // by FIFOs, then read by a second.
    let cache = root.join("cache");
    let mut command = lnkfix_std();
    command
        .current_dir(root)
        .args(["diagnose", "link.log", "--lib-dir", "libs", "--cache-dir"])
        .arg(&cache);
    assert_eq!(finishes(command).status.code(), Some(1));
    let mut entries = 0;
    for entry in std::fs::read_dir(&cache).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "idx" || e == "set") {
            std::fs::remove_file(&path).unwrap();
            mkfifo(&path);
            entries += 1;
        }
    }
    assert!(entries >= 1);
    let mut command = lnkfix_std();
    command
        .current_dir(root)
        .args([
            "diagnose",
            "link.log",
            "--format",
            "json",
            "--lib-dir",
            "libs",
            "--cache-dir",
        ])
        .arg(&cache);
    let output = finishes(command);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(
        json["symbols"][0]["library"],
        "x.lib",
        "{}",
        all_text(&output)
    );

    // Rule files (diagnose and triage): an error naming the file.
    mkfifo(&root.join("rules.json"));
    for command_name in ["diagnose", "triage"] {
        let mut command = lnkfix_std();
        command
            .current_dir(root)
            .args([command_name, "link.log", "--rules", "rules.json"]);
        let output = finishes(command);
        let text = all_text(&output);
        assert_eq!(output.status.code(), Some(2), "{command_name}: {text}");
        assert!(
            text.contains("rules.json") && text.contains("not a regular file"),
            "{command_name}: {text}"
        );
    }

    // A saved diagnosis and the file to patch.
    std::fs::write(root.join("extension.py"), "import sys\n").unwrap();
    mkfifo(&root.join("diag.json"));
    mkfifo(&root.join("fifo.py"));
    for (target, from) in [("extension.py", "diag.json"), ("fifo.py", "link.log")] {
        let mut command = lnkfix_std();
        command
            .current_dir(root)
            .args(["patch", target, "--from", from]);
        let output = finishes(command);
        let text = all_text(&output);
        assert_eq!(output.status.code(), Some(2), "{target} {from}: {text}");
        assert!(
            text.contains("not a regular file"),
            "{target} {from}: {text}"
        );
    }
}

/// The log itself may be a FIFO (`diagnose <(cmd)`): read once, never opened a second time.
#[cfg(unix)]
#[test]
fn a_log_read_from_a_fifo_is_read_once() {
    let root = tempfile::tempdir().unwrap();
    let fifo = root.path().join("link.log");
    mkfifo(&fifo);
    let writer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::write(fifo, IMPORT_LOG))
    };
    let mut command = lnkfix_std();
    command.arg("diagnose").arg(&fifo);
    let output = finishes(command);
    writer.join().unwrap().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", all_text(&output));
    assert!(all_text(&output).contains("CreateFileW"));
}

/// A saved diagnosis of the import log against a one-library directory, as UTF-8 bytes.
fn saved_diagnosis(dir: &std::path::Path) -> Vec<u8> {
    let libs = dir.join("libs");
    std::fs::create_dir_all(&libs).unwrap();
    let library = archive(&[(
        "KERNEL32.dll",
        import_member("CreateFileW", "KERNEL32.dll", true),
    )]);
    std::fs::write(libs.join("x.lib"), library).unwrap();
    std::fs::write(
        dir.join("link.log"),
        "main.obj : error LNK2019: unresolved external symbol __imp_CreateFileW referenced in function main\r\n",
    )
    .unwrap();
    let assert = lnkfix()
        .current_dir(dir)
        .args([
            "diagnose",
            "link.log",
            "--lib-dir",
            "libs",
            "--no-cache",
            "--crt",
            "dynamic",
        ])
        .args(["--format", "json"])
        .assert_retrying()
        .code(1);
    assert.get_output().stdout.clone()
}

fn utf16(text: &str, big_endian: bool) -> Vec<u8> {
    let mut out = if big_endian {
        vec![0xFE, 0xFF]
    } else {
        vec![0xFF, 0xFE]
    };
    for unit in text.encode_utf16() {
        out.extend_from_slice(&if big_endian {
            unit.to_be_bytes()
        } else {
            unit.to_le_bytes()
        });
    }
    out
}

#[test]
fn saved_diagnoses_in_every_encoding_a_shell_writes_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("extension.py"), EXTENSION_PY).unwrap();
    let json = saved_diagnosis(dir);
    let text = String::from_utf8(json.clone()).unwrap();
    let patch = |from: &[u8]| {
        std::fs::write(dir.join("diag.json"), from).unwrap();
        lnkfix()
            .current_dir(dir)
            .args(["patch", "extension.py", "--from", "diag.json"])
            .assert_retrying()
    };
    // As written by a shell, by PowerShell 5.1 (`>`: UTF-16LE with BOM), with a UTF-8 BOM
    // (PowerShell 7 `Out-File -Encoding utf8BOM`), and UTF-16BE: the same diff.
    let reference = patch(&json).code(0).get_output().stdout.clone();
    let reference = String::from_utf8(reference).unwrap();
    assert!(
        reference.contains("+") && reference.contains("kernel32") || reference.contains("x.lib"),
        "{reference}"
    );
    let mut with_bom = b"\xEF\xBB\xBF".to_vec();
    with_bom.extend_from_slice(&json);
    for encoded in [with_bom, utf16(&text, false), utf16(&text, true)] {
        let output = patch(&encoded).code(0).get_output().stdout.clone();
        assert_eq!(String::from_utf8(output).unwrap(), reference);
    }
    // JSON that is not a diagnosis: an error with the reason, never read as a log.
    let cut = &json[..json.len() / 2];
    let mut schema_99: serde_json::Value = serde_json::from_slice(&json).unwrap();
    schema_99["schema_version"] = 99.into();
    let mut option_in_chain: serde_json::Value = serde_json::from_slice(&json).unwrap();
    option_in_chain["chain"] = serde_json::json!(["msvcrt.lib", "/WHOLEARCHIVE:evil.lib"]);
    let mut response_file: serde_json::Value = serde_json::from_slice(&json).unwrap();
    response_file["link_flags"] = serde_json::json!(["@evil.rsp"]);
    let mut quoted: serde_json::Value = serde_json::from_slice(&json).unwrap();
    quoted["symbols"][0]["library"] = "x.lib\" /DEF:evil".into();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (cut.to_vec(), "not valid JSON (UTF-8): EOF while parsing"),
        (
            utf16(std::str::from_utf8(cut).unwrap(), false),
            "not valid JSON (UTF-16LE with BOM)",
        ),
        (
            b"{\"schema_version\": 1}".to_vec(),
            "JSON, but not a diagnosis: no symbols list",
        ),
        (
            b"[1, 2]".to_vec(),
            "JSON, but not a diagnosis: not an object",
        ),
        (b"{\"symbols\": []}".to_vec(), "no schema_version"),
        (
            schema_99.to_string().into_bytes(),
            "schema_version 99 is not one this lnkfix reads",
        ),
        (
            option_in_chain.to_string().into_bytes(),
            "chain entry \"/WHOLEARCHIVE:evil.lib\" is not a library name",
        ),
        (
            response_file.to_string().into_bytes(),
            "link_flags entry \"@evil.rsp\" is not a library name",
        ),
        (quoted.to_string().into_bytes(), "symbols[].library entry"),
    ];
    for (bytes, expected) in cases {
        let assert = patch(&bytes).code(2);
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert!(
            stderr.contains("diag.json") && stderr.contains(expected),
            "{expected}: {stderr}"
        );
        assert!(!stderr.contains("nothing to patch"), "{stderr}");
    }
    // The position of the error is given.
    let assert = patch(b"{\n  \"schema_version\": 1,\n  \"symbols\": [,]\n}").code(2);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    assert!(stderr.contains("at line 3, column 15"), "{stderr}");
}

/// A library whose `CreateFileW` comes from `dll` (the same length for every DLL name of the
/// same length: a rewrite keeps the size).
fn library_of(dll: &str) -> Vec<u8> {
    archive(&[(dll, import_member("CreateFileW", dll, true))])
}

fn diagnose_dll(dir: &std::path::Path, cache: &std::path::Path) -> String {
    let assert = lnkfix()
        .current_dir(dir)
        .args([
            "diagnose",
            "link.log",
            "--lib-dir",
            "libs",
            "--format",
            "json",
            "--cache-dir",
        ])
        .arg(cache)
        .assert_retrying()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    json["symbols"][0]["dll"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A library rewritten with the same size and modification time (in place, and renamed over) is
/// read again, not answered from the cache.
#[test]
fn a_same_size_same_time_rewrite_is_not_answered_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let cache = dir.join("cache");
    std::fs::create_dir(dir.join("libs")).unwrap();
    std::fs::write(dir.join("link.log"), IMPORT_LOG_TEXT).unwrap();
    let library = dir.join("libs").join("x.lib");
    std::fs::write(&library, library_of("KERNEL32.dll")).unwrap();
    let modified = std::fs::metadata(&library).unwrap().modified().unwrap();
    assert_eq!(diagnose_dll(dir, &cache), "KERNEL32.dll");
    assert_eq!(diagnose_dll(dir, &cache), "KERNEL32.dll");
    let set_time = |path: &std::path::Path| {
        std::fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(modified)
            .unwrap();
    };
    // In place: the same file, a new change time.
    std::thread::sleep(std::time::Duration::from_millis(50));
    std::fs::write(&library, library_of("KERNELBA.dll")).unwrap();
    set_time(&library);
    assert_eq!(
        std::fs::metadata(&library).unwrap().modified().unwrap(),
        modified
    );
    assert_eq!(diagnose_dll(dir, &cache), "KERNELBA.dll");
    // Renamed over: another file.
    let replacement = dir.join("libs").join("x.new");
    std::fs::write(&replacement, library_of("API-MS-W.dll")).unwrap();
    set_time(&replacement);
    std::fs::rename(&replacement, &library).unwrap();
    assert_eq!(diagnose_dll(dir, &cache), "API-MS-W.dll");
}

/// Symbolic links planted in the cache directory, at the entry names and at temporary names
/// derived from them, are replaced, never written through.
#[cfg(unix)]
#[test]
fn planted_links_in_the_cache_are_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let cache = dir.join("cache");
    std::fs::create_dir(dir.join("libs")).unwrap();
    std::fs::write(dir.join("link.log"), IMPORT_LOG_TEXT).unwrap();
    std::fs::write(dir.join("libs").join("x.lib"), library_of("KERNEL32.dll")).unwrap();
    assert_eq!(diagnose_dll(dir, &cache), "KERNEL32.dll");
    let victim = dir.join("victim");
    std::fs::write(&victim, "keep").unwrap();
    let mut planted = 0;
    let names: Vec<String> = std::fs::read_dir(&cache)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    for name in &names {
        std::fs::remove_file(cache.join(name)).unwrap();
        for link in [
            name.clone(),
            format!("{name}.tmp"),
            format!(".{name}.tmp"),
            format!(".{name}"),
        ] {
            std::os::unix::fs::symlink(&victim, cache.join(link)).unwrap();
            planted += 1;
        }
    }
    assert!(planted >= 4);
    assert_eq!(diagnose_dll(dir, &cache), "KERNEL32.dll");
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "keep");
    assert!(!names.is_empty());
    for name in &names {
        let metadata = std::fs::symlink_metadata(cache.join(name)).unwrap();
        assert!(metadata.file_type().is_file(), "{name} is still a link");
    }
    // And the entries answer (a third run reads them).
    assert_eq!(diagnose_dll(dir, &cache), "KERNEL32.dll");
}

/// `**` over directory links that loop (`up -> ..`, and two directories linking to each other):
/// the walk ends, says where the cycle is, finds the library once, and `/LIBPATH:` names its real
/// directory.
#[cfg(unix)]
#[test]
fn recursive_globs_end_on_link_cycles() {
    let root = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(root.path()).unwrap();
    let libs = root.join("libs");
    std::fs::create_dir_all(libs.join("a")).unwrap();
    std::fs::create_dir_all(libs.join("b")).unwrap();
    std::fs::create_dir_all(libs.join("d")).unwrap();
    std::os::unix::fs::symlink("..", libs.join("a").join("up")).unwrap();
    std::os::unix::fs::symlink(libs.join("d"), libs.join("b").join("to-d")).unwrap();
    std::os::unix::fs::symlink(libs.join("b"), libs.join("d").join("to-b")).unwrap();
    std::fs::write(libs.join("a").join("x.Lib"), library_of("KERNEL32.dll")).unwrap();
    std::fs::write(root.join("link.log"), IMPORT_LOG_TEXT).unwrap();
    let glob = format!("{}/**/*.Lib", libs.display());
    let mut command = lnkfix_std();
    command.current_dir(&root).args([
        "diagnose",
        "link.log",
        "--no-cache",
        "--format",
        "json",
        "--lib",
        &glob,
    ]);
    let output = finishes(command);
    assert_eq!(output.status.code(), Some(1), "{}", all_text(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["symbols"][0]["library"], "x.Lib", "{json}");
    let flags: Vec<&str> = json["link_flags"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    let libpath = format!("/LIBPATH:{}", libs.join("a").display());
    assert!(flags.contains(&libpath.as_str()), "{flags:?}");
    // Only the part below `libs` is ours: the temporary directory's random name may hold "up".
    let libs_text = libs.display().to_string();
    assert!(
        !flags.iter().any(|f| f
            .split_once(libs_text.as_str())
            .is_some_and(|(_, below)| below.contains("up") || below.contains("to-"))),
        "{flags:?}"
    );
    let warnings = json["warnings"].to_string();
    assert!(warnings.contains("(a cycle)"), "{warnings}");
}

/// `patch -o` onto the file it patches, onto the `--from` file, or onto a link to either: refused,
/// and both files are as they were.
#[test]
fn patch_output_onto_its_own_inputs_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    std::fs::write(dir.join("extension.py"), EXTENSION_PY).unwrap();
    let json = saved_diagnosis(dir);
    std::fs::write(dir.join("diag.json"), &json).unwrap();
    std::fs::hard_link(dir.join("extension.py"), dir.join("hard.py")).unwrap();
    #[cfg_attr(not(unix), allow(unused_mut))]
    let mut outputs = vec![
        "extension.py",
        "diag.json",
        "./hard.py",
        "sub/../extension.py",
    ];
    std::fs::create_dir(dir.join("sub")).unwrap();
    #[cfg(unix)]
    {
        std::os::unix::fs::symlink("extension.py", dir.join("link.py")).unwrap();
        std::os::unix::fs::symlink("diag.json", dir.join("link.json")).unwrap();
        outputs.extend(["link.py", "link.json"]);
    }
    for output in outputs {
        let assert = lnkfix()
            .current_dir(dir)
            .args(["patch", "extension.py", "--from", "diag.json", "-o", output])
            .assert_retrying()
            .code(2);
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert!(stderr.contains("is the same file as"), "{output}: {stderr}");
        assert_eq!(
            std::fs::read_to_string(dir.join("extension.py")).unwrap(),
            EXTENSION_PY
        );
        assert_eq!(std::fs::read(dir.join("diag.json")).unwrap(), json);
    }
    // Anywhere else: written.
    lnkfix()
        .current_dir(dir)
        .args([
            "patch",
            "extension.py",
            "--from",
            "diag.json",
            "-o",
            "fix.diff",
        ])
        .assert_retrying()
        .code(0);
    assert!(std::fs::read_to_string(dir.join("fix.diff"))
        .unwrap()
        .starts_with("--- a/extension.py"));
}

/// `--apply` as root on another user's file keeps its owner, group and mode, and the backup has
/// them too; as anyone else the lost owner is said.
#[cfg(unix)]
#[test]
fn apply_keeps_owner_and_mode_and_the_backup_is_no_wider() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let file = dir.join("extension.py");
    std::fs::write(&file, EXTENSION_PY).unwrap();
    let json = saved_diagnosis(dir);
    std::fs::write(dir.join("diag.json"), &json).unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o640)).unwrap();
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&file, Some(4321), Some(4322)).unwrap();
    }
    let assert = lnkfix()
        .current_dir(dir)
        .env("PATH", "/nonexistent")
        .args(["patch", "extension.py", "--from", "diag.json", "--apply"])
        .assert_retrying()
        .code(0);
    let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
    let after = std::fs::metadata(&file).unwrap();
    let backup = std::fs::metadata(dir.join("extension.py.orig")).unwrap();
    assert_ne!(std::fs::read_to_string(&file).unwrap(), EXTENSION_PY);
    assert_eq!(
        std::fs::read_to_string(dir.join("extension.py.orig")).unwrap(),
        EXTENSION_PY
    );
    for metadata in [&after, &backup] {
        assert_eq!(metadata.mode() & 0o7777, 0o640, "{stderr}");
        if root {
            assert_eq!((metadata.uid(), metadata.gid()), (4321, 4322), "{stderr}");
        }
    }
    assert!(!stderr.contains("could not be kept"), "{stderr}");
}

/// A refused `--apply` (the file changed while the new text was checked) leaves no backup: the
/// backup is written only when the patch is applied. The change is made by a stand-in `python3`
/// that the check runs.
#[cfg(unix)]
#[test]
fn a_refused_apply_leaves_no_backup() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let file = dir.join("extension.py");
    std::fs::write(&file, EXTENSION_PY).unwrap();
    std::fs::write(dir.join("diag.json"), saved_diagnosis(dir)).unwrap();
    let bin = dir.join("bin");
    std::fs::create_dir(&bin).unwrap();
    // Called as `python3 -c CHECK TEMPORARY TARGET`: changes the target, then passes.
    std::fs::write(
        bin.join("python3"),
        "#!/bin/sh\necho '# edited' >> \"$4\"\nexit 0\n",
    )
    .unwrap();
    std::fs::set_permissions(bin.join("python3"), std::fs::Permissions::from_mode(0o755)).unwrap();
    for _ in 0..3 {
        let assert = lnkfix()
            .current_dir(dir)
            .env("PATH", &bin)
            .args(["patch", "extension.py", "--from", "diag.json", "--apply"])
            .assert_retrying()
            .code(2);
        let stderr = String::from_utf8_lossy(&assert.get_output().stderr).into_owned();
        assert!(stderr.contains("changed"), "{stderr}");
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(
            names,
            ["bin", "diag.json", "extension.py", "libs", "link.log"],
            "{stderr}"
        );
        // Put it back for the next try (the hash in the plan is of this text).
        std::fs::write(&file, EXTENSION_PY).unwrap();
    }
}

/// A PowerShell UTF-16 log with `cmd >>` output (UTF-8) appended, and the reverse: the records of
/// both parts are read, and the warning says the log changes encoding.
#[test]
fn logs_in_two_encodings_are_read_per_region() {
    let head = "PS C:\\b> ninja\r\n[1/2] Building CXX object main.obj\r\n";
    let tail = "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\r\n\
                main.obj : error LNK2019: unresolved external symbol __imp_CreateFileW referenced in function main\r\n\
                out.dll : fatal error LNK1120: 2 unresolved externals\r\n";
    let mut powershell_then_cmd = utf16(head, false);
    powershell_then_cmd.extend_from_slice(tail.as_bytes());
    let mut cmd_then_powershell = head.as_bytes().to_vec();
    cmd_then_powershell.extend_from_slice(&utf16(tail, false)[2..]);
    for (label, bytes) in [
        ("UTF-16LE then UTF-8", powershell_then_cmd),
        ("UTF-8 then UTF-16LE", cmd_then_powershell),
    ] {
        let assert = lnkfix()
            .args(["diagnose", "-", "--format", "json"])
            .write_stdin(bytes)
            .assert_retrying()
            .code(1);
        let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
        let names: Vec<&str> = json["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|s| s["name"].as_str())
            .collect();
        assert!(
            names.contains(&"hipMalloc") && names.contains(&"__imp_CreateFileW"),
            "{label}: {names:?}"
        );
        assert!(
            json["warnings"].to_string().contains("changes encoding"),
            "{label}: {}",
            json["warnings"]
        );
    }
}

/// A log in an encoding lnkfix does not read (here Latin-1 bytes pretending to be UTF-8, a whole
/// file of them) says so instead of answering quietly.
#[test]
fn a_log_that_decodes_to_mostly_replacement_characters_warns() {
    let bytes: Vec<u8> = (0..4000u32).map(|i| 0x80 + (i % 64) as u8).collect();
    let assert = lnkfix()
        .args(["diagnose", "-", "--format", "json"])
        .write_stdin(bytes)
        .assert_retrying();
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert!(
        json["warnings"].to_string().contains("mostly U+FFFD"),
        "{json}"
    );
}

/// Copies of a Microsoft import library with one linker member's size field damaged: each is
/// read in full from the other linker member's offsets, with a warning naming the file.
fn damaged_linker_members_are_read_around(library: &std::path::Path, name: &str, dll: &str) {
    let data = std::fs::read(library).unwrap();
    assert_eq!(&data[..8], b"!<arch>\n");
    let first_size: usize = std::str::from_utf8(&data[8 + 48..8 + 58])
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let second = 68 + first_size + (first_size & 1);
    assert_eq!(
        &data[second..second + 16],
        b"/               ",
        "two linker members"
    );
    let dir = tempfile::tempdir().unwrap();
    let intact = common::index(&[library.to_path_buf()], lnkfix::index::Machine::X64).0;
    let want = common::dlls(&intact, name);
    assert_eq!(want, [dll]);
    for (checked, (header, damage)) in [
        (second, &b"99999999  "[..]),
        (second, b"12x4      "),
        (second, b"10        "),
        (8, b"99999999  "),
        (8, b"12x4      "),
    ]
    .into_iter()
    .enumerate()
    {
        let mut bytes = data.clone();
        bytes[header + 48..header + 58].copy_from_slice(damage);
        let path = dir.path().join(format!("damaged-{checked}.lib"));
        std::fs::write(&path, &bytes).unwrap();
        let (index, warnings) =
            common::index(std::slice::from_ref(&path), lnkfix::index::Machine::X64);
        let label = format!("{header} {:?}", String::from_utf8_lossy(damage));
        assert_eq!(common::dlls(&index, name), want, "{label}");
        let counts = |index: &lnkfix::index::Index| {
            let info = &index.libraries()[0];
            (info.members, info.symbols)
        };
        assert_eq!(counts(&index), counts(&intact), "{label}");
        assert!(
            warnings.iter().any(|w| {
                let text = w.to_string();
                text.contains(&*path.to_string_lossy()) && text.contains("damaged archive")
            }),
            "{label}: {warnings:?}"
        );
    }
}

#[test]
fn damaged_linker_members_of_the_windows_crate_library() {
    let library = common::windows_lib("windows_x86_64_msvc");
    damaged_linker_members_are_read_around(&library, "CreateFileW", "kernel32.dll");
}

#[cfg(not(windows))]
#[test]
fn damaged_linker_members_of_the_real_kernel32() {
    let library = common::RealDirs::get().um.join("kernel32.Lib");
    damaged_linker_members_are_read_around(&library, "CreateFileW", "KERNEL32.dll");
}

/// The only record of a failed link on a line cut at `--max-line-bytes` (a long object path before
/// it): still a failed link, one lnkfix cannot classify (exit 3), with a verdict and a warning that say why nothing is listed.
#[test]
fn a_record_cut_at_the_line_limit_is_still_a_failed_link() {
    for prefix in [
        format!("C:\\{}\\", "x".repeat(600)),
        format!("[build] {} ", "y".repeat(5000)),
    ] {
        for record in [
            "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\r\n",
            "lld-link: error: undefined symbol: hipMalloc\r\n",
        ] {
            let log = format!("{prefix}{record}");
            let assert = lnkfix()
                .args(["diagnose", "-", "--format", "json", "--max-line-bytes", "500"])
                .write_stdin(log)
                .assert_retrying()
                .code(3);
            let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
            assert_eq!(json["verdict"]["kind"], "records-cut", "{json}");
            assert_eq!(json["link_failed"], true, "{json}");
            assert!(json["warnings"].to_string().contains("raise --max-line-bytes"), "{json}");
        }
    }
    // Cut lines with no link error are no failure.
    let log = format!("{}\r\nall good\r\n", "z".repeat(2000));
    lnkfix()
        .args(["diagnose", "-", "--max-line-bytes", "500"])
        .write_stdin(log)
        .assert_retrying()
        .code(0);
}

/// Paths that are not valid Unicode (a library directory's file name of Latin-1 bytes): the file
/// is refused with a warning that shows its bytes escaped, `link_flags` never holds U+FFFD, and
/// every JSON document is whole.
#[cfg(unix)]
#[test]
fn non_unicode_paths_are_refused_clearly_and_json_stays_whole() {
    use std::os::unix::ffi::OsStrExt;
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let libs = root.join(std::ffi::OsStr::from_bytes(b"libs\xff"));
    std::fs::create_dir(&libs).unwrap();
    std::fs::write(
        libs.join(std::ffi::OsStr::from_bytes(b"x\xfe.lib")),
        library_of("KERNEL32.dll"),
    )
    .unwrap();
    std::fs::write(root.join("link.log"), IMPORT_LOG_TEXT).unwrap();
    for args in [
        vec![
            "diagnose",
            "link.log",
            "--format",
            "json",
            "--no-cache",
            "--lib-dir",
        ],
        vec!["index", "--format", "json", "--no-cache", "--lib-dir"],
        vec![
            "explain",
            "CreateFileW",
            "--format",
            "json",
            "--no-cache",
            "--lib-dir",
        ],
    ] {
        let mut command = lnkfix_std();
        command.current_dir(root).args(&args).arg(&libs);
        let output = finishes(command);
        let json: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not whole JSON ({e}): {}", all_text(&output)));
        let text = format!("{json}{}", String::from_utf8_lossy(&output.stderr));
        assert!(!text.contains('\u{FFFD}'), "{args:?}: {text}");
        if args[0] != "explain" {
            assert!(
                text.replace("\\\\", "\\")
                    .contains("x\\xfe.lib is not valid Unicode"),
                "{args:?}: {text}"
            );
        }
    }
}

/// Control characters from every source a report quotes: the log, a path, an archive's member
/// and symbol names, the environment, a saved diagnosis. None reaches the terminal as it is.
#[test]
fn control_characters_from_every_source_are_shown_escaped() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    let hostile = "e\x1b]0;pwned\x07v\u{9d}52;c;eA==\u{9c}i\u{202e}l\x08";
    // A directory name may not hold every control character on Windows.
    let dir_name = if cfg!(windows) {
        "libs\u{202e}\u{9b}"
    } else {
        "libs\x1b]0;t\x07\u{202e}"
    };
    let libs = root.join(dir_name);
    std::fs::create_dir(&libs).unwrap();
    let dll = format!("K{hostile}.dll");
    let library = archive(&[
        ("KERNEL32.dll", import_member("CreateFileW", &dll, true)),
        (
            "KERNEL32.dll",
            import_member(&format!("Create{hostile}"), &dll, true),
        ),
    ]);
    std::fs::write(libs.join("x.lib"), library).unwrap();
    let log = format!(
        "main.obj : error LNK2019: unresolved external symbol __imp_CreateFileW referenced in function main\r\n\
         main.obj : error LNK2019: unresolved external symbol sym{hostile} referenced in function f{hostile}\r\n"
    );
    std::fs::write(root.join("link.log"), log).unwrap();
    let lib_dir = libs.to_string_lossy().into_owned();
    let mut diag: serde_json::Value = serde_json::json!({
        "schema_version": 1, "symbols": [], "link_flags": [], "chain": [format!("/x{hostile}")]
    });
    diag["verdict"] = serde_json::json!({"kind": "default-lib-chain-absent"});
    std::fs::write(root.join("diag.json"), diag.to_string()).unwrap();
    std::fs::write(root.join("extension.py"), EXTENSION_PY).unwrap();
    let runs: Vec<Vec<String>> = vec![
        vec![
            "diagnose".into(),
            "link.log".into(),
            "--no-cache".into(),
            "--lib-dir".into(),
            lib_dir.clone(),
        ],
        vec![
            "index".into(),
            "--list".into(),
            "--no-cache".into(),
            "--lib-dir".into(),
            lib_dir.clone(),
        ],
        vec![
            "explain".into(),
            format!("Create{hostile}"),
            "--no-cache".into(),
            "--lib-dir".into(),
            lib_dir.clone(),
        ],
        vec!["triage".into(), "link.log".into()],
        vec!["doctor".into(), "--lib-dir".into(), lib_dir.clone()],
        vec![
            "patch".into(),
            "extension.py".into(),
            "--from".into(),
            "diag.json".into(),
        ],
    ];
    for args in runs {
        let assert = lnkfix()
            .current_dir(root)
            .env("LIB", format!("C:\\x{hostile}"))
            .args(&args)
            .args(
                if ["diagnose", "triage", "doctor"].contains(&args[0].as_str()) {
                    vec!["--color", "never"]
                } else {
                    vec![]
                },
            )
            .assert_retrying();
        let output = assert.get_output();
        for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            let bad: Vec<char> = text
                .chars()
                .filter(|&c| lnkfix::output::terminal::is_unsafe(c))
                .collect();
            assert!(bad.is_empty(), "{} {stream}: {bad:?} in\n{text}", args[0]);
        }
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(
            all.contains("\\u{202e}"),
            "{}: the hostile text is not shown escaped:\n{all}",
            args[0]
        );
    }
}

/// `--max-symbols N` keeps the first N distinct symbols of a log of endless distinct names, says
/// so, and the link still fails.
#[test]
fn max_symbols_caps_what_is_kept() {
    let mut log = String::new();
    for i in 0..2000 {
        log.push_str(&format!(
            "m.obj : error LNK2019: unresolved external symbol f{i} referenced in function main\r\n"
        ));
    }
    let assert = lnkfix()
        .args(["diagnose", "-", "--format", "json", "--max-symbols", "100"])
        .write_stdin(log.clone())
        .assert_retrying()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(json["symbols"].as_array().unwrap().len(), 100);
    assert_eq!(json["symbols"][99]["name"], "f99");
    let warnings = json["warnings"].to_string();
    assert!(
        warnings.contains("--max-symbols") && warnings.contains("1900 records"),
        "{warnings}"
    );
    // A repeat of a kept symbol is still counted on it.
    let assert = lnkfix()
        .args(["diagnose", "-", "--format", "json", "--max-symbols", "1"])
        .write_stdin(format!("{log}{}", &log[..log.find('\n').unwrap() + 1]))
        .assert_retrying()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&assert.get_output().stdout).unwrap();
    assert_eq!(json["symbols"][0]["reported"], 2);
}

#[test]
fn since_past_the_clock_range_is_an_error_not_a_panic() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("build.log");
    std::fs::write(
        &log,
        "main.obj : error LNK2019: unresolved external symbol f referenced in function main\r\n",
    )
    .unwrap();
    let log = log.to_str().unwrap();
    let dir_arg = dir.path().to_str().unwrap();
    for since in [
        "@18446744073709551615",
        "@9223372036854775807",
        "@253402207201",
    ] {
        for args in [
            vec!["zombies", dir_arg, "--since", since],
            vec!["triage", "--since", since, log],
        ] {
            let output = lnkfix().args(&args).output().unwrap();
            let err = String::from_utf8_lossy(&output.stderr);
            assert_eq!(output.status.code(), Some(2), "{args:?}: {err}");
            assert!(!err.contains("panicked"), "{args:?}: {err}");
            assert!(
                err.contains("--since") && err.contains("too large"),
                "{args:?}: {err}"
            );
        }
    }
}

/// A log whose path is not valid Unicode is read (clap hands it over as bytes): the report names
/// it with the bytes escaped, and a missing one is an error that names it so, never U+FFFD.
#[cfg(unix)]
#[test]
fn a_log_whose_path_is_not_unicode_is_read_and_named_with_its_bytes_escaped() {
    use std::os::unix::ffi::OsStrExt;
    let root = tempfile::tempdir().unwrap();
    let log = root
        .path()
        .join(std::ffi::OsStr::from_bytes(b"link\xff.log"));
    std::fs::write(&log, IMPORT_LOG_TEXT).unwrap();
    let mut command = lnkfix_std();
    command
        .args(["diagnose", "--format", "json", "--no-cache", "--no-python"])
        .arg(&log);
    let output = finishes(command);
    assert_eq!(output.status.code(), Some(1), "{}", all_text(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let name = json["log"].as_str().unwrap();
    assert!(name.ends_with("link\\xff.log"), "{name}");
    assert!(!json["symbols"].as_array().unwrap().is_empty(), "{json}");

    let missing = root
        .path()
        .join(std::ffi::OsStr::from_bytes(b"gone\xfe.log"));
    let mut command = lnkfix_std();
    command.args(["diagnose", "--no-cache"]).arg(&missing);
    let output = finishes(command);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("gone\\xfe.log: cannot read"), "{stderr}");
    assert!(!stderr.contains('\u{FFFD}'), "{stderr}");
}
