//! The build system is recognised from logs of every wrapper (ours and the posted ones,
//! `common::LogSet`), and the fix is written in its terms:
//! `diagnose` (text and JSON) and `triage` never tell a cargo, CMake or MSBuild project to edit
//! tvm-ffi's extension.py.

use crate::common::{self, LogSet};

use common::StartRetrying;

use std::process::Command;

fn diagnose_json(log: &str) -> serde_json::Value {
    let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .current_dir(common::root())
        .args(["diagnose", log, "--format", "json"])
        .env_remove("LIB")
        .env_remove("HIP_PATH")
        .env_remove("VCToolsInstallDir")
        .env_remove("WindowsSdkDir")
        .output_retrying()
        .unwrap();
    serde_json::from_slice(&output.stdout).unwrap()
}

#[test]
fn our_logs_name_their_build_system() {
    logs_name_their_build_system(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn posted_logs_name_their_build_system() {
    logs_name_their_build_system(LogSet::Posted);
}

fn logs_name_their_build_system(set: LogSet) {
    let logs = common::unresolved_logs(set);
    let rows = [
        ("001", "cargo"),
        ("026", "cargo"),
        ("003", "cmake"),
        ("028", "cmake"),
        ("057", "cmake"),
        ("022", "msbuild"),
        ("033", "msbuild"),
        ("066", "msbuild"),
        ("074", "node-gyp"),
        ("011", ""),
    ];
    let mut failures = Vec::new();
    for (id, want) in rows {
        let log = logs.join(format!("{id}.log"));
        let json = diagnose_json(log.to_str().unwrap());
        let got = json["build_system"]["kind"].as_str().unwrap_or("");
        if got != want {
            failures.push(format!("{id}: want {want:?}, got {got:?}"));
        }
        let fix = json["build_system"]["fix"].to_string();
        if !want.is_empty() && fix.contains("extension.py") {
            failures.push(format!(
                "{id}: a {want} project told to edit extension.py: {fix}"
            ));
        }
    }
    let example = diagnose_json("examples/tvm-ffi-hip-lld-link.log");
    if example["build_system"]["kind"] != "tvm-ffi" {
        failures.push(format!("bundled example: {}", example["build_system"]));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The cargo fix names the library the way cargo links it.
    let cargo = diagnose_json(logs.join("001.log").to_str().unwrap());
    assert!(
        cargo["build_system"]["fix"][0]
            .as_str()
            .unwrap()
            .contains("cargo:rustc-link-lib=amdhip64"),
        "{}",
        cargo["build_system"]
    );
}

#[test]
fn triage_phrases_the_link_fix_for_the_build_system_of_our_log() {
    triage_phrases_the_link_fix_for_the_build_system(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn triage_phrases_the_link_fix_for_the_build_system_of_the_posted_log() {
    triage_phrases_the_link_fix_for_the_build_system(LogSet::Posted);
}

fn triage_phrases_the_link_fix_for_the_build_system(set: LogSet) {
    let log = common::log_of(set, "unresolved", "001");
    let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(["triage", log.to_str().unwrap(), "--format", "json"])
        .output_retrying()
        .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let fix = json["fix"].as_str().unwrap();
    assert!(fix.contains("cargo"), "{fix}");
    assert!(!fix.contains("extension.py"), "{fix}");
}

/// A log read from standard input is read once: its build system is recognised in that pass, as
/// for a file, and the same diagnosis comes out.
#[test]
fn our_log_on_standard_input_names_its_build_system() {
    a_log_on_standard_input_names_its_build_system(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn a_posted_log_on_standard_input_names_its_build_system() {
    a_log_on_standard_input_names_its_build_system(LogSet::Posted);
}

fn a_log_on_standard_input_names_its_build_system(set: LogSet) {
    let logs = common::unresolved_logs(set);
    for id in ["001", "003", "022", "074"] {
        let path = logs.join(format!("{id}.log"));
        let from_file = diagnose_json(path.to_str().unwrap());
        let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
            .current_dir(common::root())
            .args(["diagnose", "-", "--format", "json"])
            .env_remove("LIB")
            .env_remove("HIP_PATH")
            .env_remove("VCToolsInstallDir")
            .env_remove("WindowsSdkDir")
            .stdin(std::fs::File::open(&path).unwrap())
            .output_retrying()
            .unwrap();
        let from_stdin: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        assert!(
            from_file["build_system"].is_object(),
            "{id}: {}",
            from_file["build_system"]
        );
        assert_eq!(
            from_stdin["build_system"], from_file["build_system"],
            "{id}"
        );
    }
}
