//! Hostile inputs, second round: each attack reproduced, then shown to be answered. Names whose
//! back-references double the output at each level (in a log, through `explain`, in a library),
//! and the rest of the file: FIFOs, cycles, planted links, owners, encodings, cut records,
//! non-UTF-8 paths, control characters and saved diagnoses.

mod common;

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
            let bound = lnkfix::demangle::output_bound(&name);
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
