//! The conventions a CLI of this kind is expected to follow: shell completions, a man page,
//! CI-native output (GitHub Actions workflow commands, SARIF 2.1.0 validated against the official
//! schema), and `--help` texts checked against reviewed snapshots.
//!
//! Snapshots live in `tests/snapshots/help/`; after a deliberate change, regenerate them with
//! `LNKFIX_BLESS=1 cargo test --test it cli_conventions::` and review the diff.

use crate::common;

use common::StartRetrying;

use std::path::Path;
use std::process::Command;

fn lnkfix(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .current_dir(common::root())
        .args(args)
        .env_remove("LIB")
        .env_remove("HIP_PATH")
        .env_remove("VCToolsInstallDir")
        .env_remove("WindowsSdkDir")
        // The help wraps to COLUMNS when stdout is not a terminal: the snapshots are at 100.
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .output_retrying()
        .expect("run lnkfix")
}

fn stdout(args: &[&str]) -> String {
    let output = lnkfix(args);
    String::from_utf8(output.stdout).expect("utf-8 output")
}

#[test]
fn completions_for_every_shell_name_every_command() {
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let output = lnkfix(&["completions", shell]);
        assert!(output.status.success(), "{shell}");
        let text = String::from_utf8(output.stdout).unwrap();
        for command in [
            "diagnose", "explain", "index", "triage", "doctor", "patch", "zombies", "whence",
        ] {
            assert!(text.contains(command), "{shell}: no {command}");
        }
        assert!(text.contains("lib-dir"), "{shell}: no --lib-dir option");
    }
    assert_eq!(lnkfix(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn the_man_page_is_roff_with_every_command() {
    let page = stdout(&["man"]);
    assert!(
        page.contains(".TH lnkfix 1"),
        "{}",
        &page[..200.min(page.len())]
    );
    for command in [
        "diagnose", "explain", "index", "triage", "doctor", "patch", "zombies", "whence",
    ] {
        assert!(page.contains(command), "no {command}");
    }
}

#[test]
fn github_annotations_point_at_each_unresolved_symbol() {
    let json: serde_json::Value = serde_json::from_str(&stdout(&[
        "diagnose",
        "examples/tvm-ffi-hip-lld-link.log",
        "--format",
        "json",
    ]))
    .unwrap();
    let output = lnkfix(&[
        "diagnose",
        "examples/tvm-ffi-hip-lld-link.log",
        "--format",
        "github",
    ]);
    assert_eq!(
        output.status.code(),
        Some(1),
        "the exit status is diagnose's"
    );
    let text = String::from_utf8(output.stdout).unwrap();
    let errors: Vec<&str> = text.lines().filter(|l| l.starts_with("::error ")).collect();
    let symbols = json["symbols"].as_array().unwrap();
    assert_eq!(errors.len(), symbols.len(), "{text}");
    for (line, symbol) in errors.iter().zip(symbols) {
        assert!(
            line.starts_with(&format!(
                "::error file=examples/tvm-ffi-hip-lld-link.log,line={},",
                symbol["first_line"]
            )),
            "{line}"
        );
    }
    assert!(
        text.lines().all(|l| l.starts_with("::error ")
            || l.starts_with("::warning ")
            || l.starts_with("::notice ")),
        "{text}"
    );
    let notice = text.lines().find(|l| l.starts_with("::notice ")).unwrap();
    assert!(notice.contains("amdhip64.lib"), "{notice}");

    let triage = stdout(&[
        "triage",
        "tests/triage/compile_arch_gfx906.log",
        "--format",
        "github",
    ]);
    assert!(
        triage.starts_with("::error file=tests/triage/compile_arch_gfx906.log,line=5,"),
        "{triage}"
    );
    assert!(
        triage.contains("::notice "),
        "cascades are notices: {triage}"
    );
}

#[test]
#[cfg(not(windows))] // the validator needs npm and python3, which Wine has not
fn sarif_output_is_valid_sarif_2_1_0() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for (name, args) in [
        (
            "diagnose.sarif",
            vec![
                "diagnose",
                "examples/tvm-ffi-hip-lld-link.log",
                "--format",
                "sarif",
            ],
        ),
        (
            "triage.sarif",
            vec![
                "triage",
                "tests/triage/compile_arch_gfx906.log",
                "--format",
                "sarif",
            ],
        ),
    ] {
        let text = stdout(&args);
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["version"], "2.1.0");
        assert!(!json["runs"][0]["results"].as_array().unwrap().is_empty());
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        files.push(path);
    }
    // The validator must be able to say no: a broken copy is refused.
    let broken = dir.path().join("broken.sarif");
    let mut json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    json["runs"][0]["results"][0]["level"] = "fatal".into();
    std::fs::write(&broken, json.to_string()).unwrap();
    assert!(
        !validate(&[broken.as_path()]),
        "the schema check accepts anything"
    );
    let paths: Vec<&Path> = files.iter().map(|p| p.as_path()).collect();
    assert!(validate(&paths), "lnkfix's SARIF does not validate");
}

/// Runs tests/fixtures/validate_sarif.sh on `files`: true when all are valid.
#[cfg(not(windows))]
fn validate(files: &[&Path]) -> bool {
    let status = Command::new("bash")
        .arg(common::root().join("tests/fixtures/validate_sarif.sh"))
        .args(files)
        .status()
        .expect("run validate_sarif.sh");
    assert!(
        status.code() == Some(0) || status.code() == Some(1),
        "validate_sarif.sh could not run ({status}): it needs npm, python3 with pip and the network"
    );
    status.success()
}

#[test]
fn help_texts_match_their_snapshots() {
    let dir = common::root().join("tests/snapshots/help");
    let bless = std::env::var_os("LNKFIX_BLESS").is_some();
    let mut differ = Vec::new();
    for command in [
        "",
        "diagnose",
        "explain",
        "index",
        "triage",
        "doctor",
        "zombies",
        "patch",
        "whence",
        "completions",
    ] {
        let mut args: Vec<&str> = command.split_whitespace().collect();
        args.push("--help");
        let text = stdout(&args);
        let name = if command.is_empty() {
            "lnkfix"
        } else {
            command
        };
        let path = dir.join(format!("{name}.txt"));
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &text).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (LNKFIX_BLESS=1 writes it)", path.display()));
        if want.replace("\r\n", "\n") != text.replace("\r\n", "\n") {
            differ.push(format!("{name}:\n--- snapshot\n{want}\n--- now\n{text}"));
        }
    }
    assert!(
        differ.is_empty(),
        "--help changed (review, then LNKFIX_BLESS=1 cargo test --test it cli_conventions::):\n{}",
        differ.join("\n")
    );
}
