//! The patch's acceptance test: for a real HIP link failure (the closed-loop `/MD` log, diagnosed against
//! the stand-in libraries, and a shared example), `lnkfix patch` gives a diff that applies to every
//! tested tvm-ffi release, and the ninja link line the patched file generates carries exactly the
//! libraries lnkfix diagnosed.

use crate::common::{self, LogSet};

use crate::patch_common;
use common::StartRetrying;

use lnkfix::fix::patch::plan_from_diagnosis;
use patch_common::{
    assert_compiles, assert_diff_applies, assert_ninja, changed, releases, HIP_PATH, PATH_AS_GIVEN,
};

/// The flags the Windows+HIP ldflags line must gain: HIP's /LIBPATH (from HIP_PATH) and library,
/// then each other library with its /LIBPATH, then the chain (without repeats).
fn expected_flags(plan: &lnkfix::fix::patch::PatchPlan) -> Vec<String> {
    let mut added = vec![
        format!("/LIBPATH:{}lib", HIP_PATH),
        plan.hip.as_ref().unwrap().library.clone(),
    ];
    for library in &plan.libraries {
        if let Some(dir) = &library.dir {
            let flag = format!("/LIBPATH:{}", dir.display());
            if !added.contains(&flag) {
                added.push(flag);
            }
        }
        added.push(library.name.clone());
    }
    for name in plan.chain.iter().flat_map(|c| c.libraries.iter()) {
        if !added.iter().any(|a| a.eq_ignore_ascii_case(name)) {
            added.push(name.clone());
        }
    }
    added
}

fn check_every_release(label: &str, diagnosis: &serde_json::Value) {
    let typed: lnkfix::resolve::Diagnosis =
        serde_json::from_value(diagnosis.clone()).expect("a diagnosis reads back");
    let plan = plan_from_diagnosis(&typed, "build.log", false);
    assert!(
        plan.hip.is_some(),
        "{label}: a HIP failure links the HIP runtime"
    );
    let added = expected_flags(&plan);
    // Exactly the libraries lnkfix diagnosed: every library of link_flags is in the block (bar
    // tvm_ffi.lib, which the file links itself), and nothing else is.
    let diagnosed: Vec<String> = diagnosis["link_flags"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.as_str())
        .filter(|f| !f.starts_with('/'))
        .map(|f| f.to_ascii_lowercase())
        .collect();
    let mut in_block: Vec<String> = added
        .iter()
        .filter(|a| !a.starts_with('/'))
        .map(|a| a.to_ascii_lowercase())
        .collect();
    let mut wanted = diagnosed.clone();
    in_block.sort();
    wanted.sort();
    assert_eq!(
        in_block, wanted,
        "{label}: the block links exactly the diagnosed libraries"
    );
    for (version, original) in releases() {
        let (diff, new_text, _) = changed(PATH_AS_GIVEN, original, &plan);
        assert_diff_applies(&format!("{label} {version}"), original, &diff, &new_text);
        assert_compiles(&format!("{label} {version}"), &new_text);
        assert_ninja(
            &format!("{label} {version}"),
            original,
            &new_text,
            Some(HIP_PATH),
            &added,
        );
    }
}

#[test]
fn closed_loop_md_log_patches_every_release() {
    let dir = common::fixtures();
    let diagnosis = common::diagnose_json(
        dir,
        &[
            "logs/md-demangled.log",
            "--sdk-lib",
            "kits/Lib/10.0.26100.0",
            "--vc-lib",
            "vc",
            "--hip-path",
            "hip",
            "--objects",
            "obj/md",
        ],
    );
    assert_eq!(diagnosis["verdict"]["kind"], "default-lib-chain-absent");
    assert_eq!(diagnosis["crt"]["flavour"], "dynamic");
    check_every_release("md-demangled", &diagnosis);
}

/// A cargo log of HIP symbols (the `001` shape: a `note:` block with `␍` line ends) patches every
/// release.
#[test]
fn our_cargo_log_patches_every_release() {
    cargo_log_patches_every_release(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn the_posted_cargo_log_patches_every_release() {
    cargo_log_patches_every_release(LogSet::Posted);
}

fn cargo_log_patches_every_release(set: LogSet) {
    let log = common::log_of(set, "unresolved", "001");
    let diagnosis = common::diagnose_json(&common::root(), &[log.to_str().unwrap()]);
    check_every_release("001", &diagnosis);
}

/// Every `diagnose --format json` of a set's logs (both kinds) reads back into `Diagnosis`, and
/// writes out again as the identical JSON value: a saved diagnosis loses nothing.
#[test]
fn every_saved_diagnosis_of_our_logs_reads_back_unchanged() {
    every_saved_diagnosis_reads_back_unchanged(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn every_saved_diagnosis_of_the_posted_logs_reads_back_unchanged() {
    every_saved_diagnosis_reads_back_unchanged(LogSet::Posted);
}

fn every_saved_diagnosis_reads_back_unchanged(set: LogSet) {
    let mut logs = Vec::new();
    for dir in [
        common::unresolved_logs(set),
        common::failure_logs(set).join("logs"),
    ] {
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "log") {
                logs.push(path);
            }
        }
    }
    logs.sort();
    assert!(logs.len() >= 40, "{} logs", logs.len());
    for log in &logs {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"))
            .env_remove("LIB")
            .args(["diagnose", "--format", "json", "--no-cache"])
            .arg(log)
            .output_retrying()
            .expect("run lnkfix");
        let written: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{}: {e}", log.display()));
        let typed: lnkfix::resolve::Diagnosis = serde_json::from_value(written.clone())
            .unwrap_or_else(|e| panic!("{}: does not read back: {e}", log.display()));
        let again = serde_json::to_value(&typed).unwrap();
        assert_eq!(again, written, "{}", log.display());
    }
}
