//! PyTorch and the HIP SDK's libraries: names from the real import libraries of PyPI's torch
//! 2.15.0 Windows wheel (fetched on first use by `tests/fixtures/fetch_torch.sh`) answered from
//! the embedded knowledge and from the libraries on disk; a `long` against `__int64` near miss
//! made by mutating a real export; a name internal to c10 (in its namespace, not exported), with
//! its metamorphic twin that is exported; the HIP SDK's tables; a closed loop that links against
//! the real c10.lib with the flags lnkfix prints.
// Under Windows the tests that read real data fetched by bash scripts (and run clang, lld or
// Python) are compiled out, and with them the helpers only they use.
#![cfg_attr(windows, allow(dead_code, unused_imports))]

use crate::common;

use lnkfix::index::Machine;
use std::collections::BTreeMap;
use std::process::Command;

/// Every C++ name `library` exports (no `__imp_`), with its own name (scope on), sorted.
fn cxx_exports(library: &str) -> Vec<(String, String)> {
    let (index, _) = common::index(&[common::torch_libs().join(library)], Machine::X64);
    let mut out: BTreeMap<String, String> = BTreeMap::new();
    for s in index.symbols() {
        if s.name.starts_with('?') {
            let demangled = lnkfix::read::demangle::demangle(&s.name).text;
            let own = lnkfix::rules::own_name(&demangled).to_string();
            out.insert(s.name.clone(), own);
        }
    }
    out.into_iter().collect()
}

/// A link.exe log with one LNK2019 per name.
fn log_of(names: &[&str]) -> String {
    let mut log: String = names
        .iter()
        .map(|n| format!("ext.obj : error LNK2019: unresolved external symbol {n} referenced in function \"void __cdecl my_op(void)\" (?my_op@@YAXXZ)\n"))
        .collect();
    log.push_str(&format!(
        "ext.pyd : fatal error LNK1120: {} unresolved externals\n",
        names.len()
    ));
    log
}

/// `lnkfix diagnose --format json` of `log` (written into a temporary directory) with `args`.
fn diagnose(log: &str, args: &[&str]) -> serde_json::Value {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("link.log"), log).unwrap();
    let mut all = vec!["link.log", "--no-cache"];
    all.extend_from_slice(args);
    common::diagnose_json(dir.path(), &all)
}

/// Each symbol's name and answered library (`-` for none).
fn libraries(json: &serde_json::Value) -> BTreeMap<String, String> {
    json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            (
                s["name"].as_str().unwrap().to_string(),
                s["library"].as_str().unwrap_or("-").to_string(),
            )
        })
        .collect()
}

/// Every 40th name of a sorted list: a spread over the whole library, the same each run.
fn sample(names: &[(String, String)], keep: impl Fn(&str) -> bool) -> Vec<String> {
    names
        .iter()
        .filter(|(_, own)| keep(own))
        .step_by(40)
        .map(|(name, _)| name.clone())
        .collect()
}

#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn real_torch_exports_are_answered_from_knowledge_and_from_the_libraries() {
    let libraries_of =
        |list: &[(String, String)], lib: &str, m: &mut BTreeMap<String, Vec<String>>| {
            for (name, _) in list {
                m.entry(name.clone()).or_default().push(lib.to_string());
            }
        };
    let (c10, cpu, python) = (
        cxx_exports("c10.lib"),
        cxx_exports("torch_cpu.lib"),
        cxx_exports("torch_python.lib"),
    );
    // Every library that exports each name: a name two of them export may be answered by either.
    let mut exporters: BTreeMap<String, Vec<String>> = BTreeMap::new();
    libraries_of(&c10, "c10.lib", &mut exporters);
    libraries_of(&cpu, "torch_cpu.lib", &mut exporters);
    libraries_of(&python, "torch_python.lib", &mut exporters);
    let mut names = sample(&c10, |own| own.starts_with("c10::"));
    names.extend(sample(&cpu, |own| {
        ["at::", "torch::", "c10::IValue::", "c10::ivalue::"]
            .iter()
            .any(|p| own.starts_with(p))
    }));
    names.extend(sample(&python, |own| own.starts_with("torch::")));
    names.sort();
    names.dedup();
    assert!(names.len() > 500, "{}", names.len());
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let log = log_of(&names);
    let check = |json: &serde_json::Value| -> Vec<String> {
        let got = libraries(json);
        names
            .iter()
            .filter(|n| !exporters[**n].contains(&got[**n]))
            .map(|n| format!("{n}: want one of {:?}, got {}", exporters[*n], got[*n]))
            .collect()
    };

    // Without the files: the embedded table (c10, torch_python) and the namespace rules.
    let wrong = check(&diagnose(&log, &[]));
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        names.len(),
        wrong.join("\n")
    );

    // With the real libraries: the same answers, from the archives.
    let dir = common::torch_libs().to_str().unwrap().to_string();
    let on_disk = diagnose(&log, &["--lib-dir", &dir]);
    let wrong = check(&on_disk);
    assert!(
        wrong.is_empty(),
        "{} of {}:\n{}",
        wrong.len(),
        names.len(),
        wrong.join("\n")
    );
    for s in on_disk["symbols"].as_array().unwrap() {
        assert_eq!(s["provider"], "archive", "{}", s["name"]);
    }
    let flags: Vec<&str> = on_disk["link_flags"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f.as_str())
        .collect();
    for lib in ["c10.lib", "torch_cpu.lib", "torch_python.lib"] {
        assert!(flags.contains(&lib), "{flags:?}");
    }
}

#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn long_against_int64_in_a_real_c10_export_is_a_near_miss_with_its_fix() {
    // A real export taking an __int64 (`_J`) parameter, its last one declared `long` (`J`).
    let exports = cxx_exports("c10.lib");
    let (real, _) = exports
        .iter()
        .find(|(n, own)| own.starts_with("c10::TensorImpl::") && n.ends_with("_J@Z"))
        .expect("c10.lib exports a TensorImpl method taking an int64_t");
    let mutated = format!("{}J@Z", &real[..real.len() - "_J@Z".len()]);
    assert!(!exports.iter().any(|(n, _)| *n == mutated));
    let dir = common::torch_libs().to_str().unwrap().to_string();
    let json = diagnose(&log_of(&[&mutated]), &["--lib-dir", &dir]);
    let s = &json["symbols"][0];
    assert_eq!(s["library"], "c10.lib", "{s}");
    assert!(s.get("not_exported_by").is_none(), "{s}");
    let miss = &s["near_misses"][0];
    assert_eq!(miss["found_name"].as_str(), Some(real.as_str()), "{s}");
    let cause = miss["cause"].as_str().unwrap();
    assert!(
        cause.contains("declared with `long`") && cause.contains("int64_t"),
        "{cause}"
    );
    assert_eq!(s["near_misses"].as_array().unwrap().len(), 1, "{s}");

    // The same export with 32-bit pointers (`AEB` → `AB`), and as __stdcall (`YA` → `YG`).
    let (real, _) = exports
        .iter()
        .find(|(n, own)| own.starts_with("c10::") && n.contains("@@YAXAEB"))
        .expect("c10.lib exports a void c10::f(T const &)");
    let x86 = real.replacen("@@YAXAEB", "@@YAXAB", 1);
    let stdcall = real.replacen("@@YAXAEB", "@@YGXAEB", 1);
    let json = diagnose(&log_of(&[&x86, &stdcall]), &["--lib-dir", &dir]);
    let causes: Vec<&str> = json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["near_misses"][0]["cause"].as_str().unwrap_or("none"))
        .collect();
    assert!(causes[0].starts_with("pointer width"), "{causes:?}");
    assert!(causes[1].starts_with("calling convention"), "{causes:?}");
}

#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn a_c10_name_c10_does_not_export_is_internal_and_the_same_name_exported_is_c10s() {
    // A plausible helper of c10::detail: in c10's namespace, exported by no torch library.
    let name = "?lnkfixProbeHelper@detail@c10@@YAXPEAX@Z";
    let exports = cxx_exports("c10.lib");
    assert!(!exports.iter().any(|(n, _)| n == name));
    let log = log_of(&[name]);

    // The real c10.lib on disk does not export it: internal, no library to add.
    let dir = common::torch_libs().to_str().unwrap().to_string();
    let json = diagnose(&log, &["--lib-dir", &dir]);
    let s = &json["symbols"][0];
    assert_eq!(s["not_exported_by"], "c10.lib", "{s}");
    assert!(s["library"].is_null(), "{s}");
    assert!(
        s["match_note"].as_str().unwrap().contains("internal"),
        "{s}"
    );
    assert!(json["verdict"]["summary"]
        .as_str()
        .unwrap()
        .starts_with("names internal to c10.lib"));
    let problem = &json["problems"][0];
    assert!(
        problem["cause"]
            .as_str()
            .unwrap()
            .contains("internal to it"),
        "{problem}"
    );
    assert!(
        problem["fix"].as_str().unwrap().contains("public"),
        "{problem}"
    );
    assert!(!json["link_flags"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "c10.lib"));

    // Without c10.lib on disk: c10.lib by namespace, with the doubt said.
    let json = diagnose(&log, &[]);
    let s = &json["symbols"][0];
    assert_eq!(s["library"], "c10.lib", "{s}");
    assert!(
        s["match_note"].as_str().unwrap().contains("not checked"),
        "{s}"
    );

    // Metamorphic: a c10.lib that exports the same name answers it.
    let exporting = tempfile::tempdir().unwrap();
    std::fs::write(
        exporting.path().join("c10.def"),
        format!("LIBRARY c10.dll\nEXPORTS\n  {name}\n"),
    )
    .unwrap();
    common::run(
        "llvm-dlltool-19",
        &["-m", "i386:x86-64", "-d", "c10.def", "-l", "c10.lib"],
        exporting.path(),
    );
    let dir = exporting.path().to_str().unwrap().to_string();
    let json = diagnose(&log, &["--lib-dir", &dir]);
    let s = &json["symbols"][0];
    assert_eq!(s["library"], "c10.lib", "{s}");
    assert_eq!(s["provider"], "archive", "{s}");
    assert!(s.get("not_exported_by").is_none(), "{s}");
}

/// Our logs of torch, HIP SDK and Itanium-mangled failures (`tests/logs/unresolved/`, the cases
/// whose notes name this test): the link flags are exactly `fix_libs`, from the embedded tables.
#[test]
fn our_torch_and_hip_sdk_logs_get_their_libraries_from_the_embedded_knowledge() {
    let dir = common::root().join("tests/logs/unresolved");
    let cases = std::fs::read_to_string(dir.join("cases.jsonl")).unwrap();
    let mut checked = 0;
    for line in cases.lines().filter(|l| l.contains("torch_hip.rs")) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        let log = std::fs::read_to_string(dir.join(format!("{id}.log"))).unwrap();
        let json = diagnose(&log, &[]);
        let mut flags: Vec<String> = json["link_flags"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_string())
            .collect();
        let mut want: Vec<String> = case["fix_libs"]
            .as_array()
            .map(|a| a.iter().map(|f| f.as_str().unwrap().to_string()).collect())
            .unwrap_or_default();
        flags.sort();
        want.sort();
        assert_eq!(flags, want, "{id}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} cases");
}

/// rocBLAS, rocSOLVER and rocFFT names (our log 185) are answered by name from the HIP SDK table
/// (Debian 13's exports), each with its import library and DLL, in JSON and in text; the rocTX
/// marker, which the Windows HIP SDK does not ship, gets no library, and nothing goes to
/// amdhip64.lib.
#[test]
fn roc_math_library_names_are_answered_from_the_hip_sdk_table() {
    let json = diagnose(&our_log("185"), &[]);
    let symbols = json["symbols"].as_array().unwrap();
    let symbol = |name: &str| {
        symbols
            .iter()
            .find(|s| s["name"] == name)
            .unwrap_or_else(|| panic!("{name} not reported: {json}"))
    };
    for (name, library, dll) in [
        ("rocblas_sgemm", "rocblas.lib", "rocblas.dll"),
        ("rocsolver_dgetrf", "rocsolver.lib", "rocsolver.dll"),
        ("rocfft_plan_create", "rocfft.lib", "rocfft.dll"),
    ] {
        let s = symbol(name);
        assert_eq!(s["library"], library, "{s}");
        assert_eq!(s["dll"], dll, "{s}");
        assert_eq!(s["source"], "table hip-sdk", "{s}");
    }
    let roctx = symbol("roctxRangePushA");
    assert!(roctx["library"].is_null(), "{roctx}");
    assert_eq!(roctx["family"], "gpu-linux-only", "{roctx}");
    assert_eq!(roctx["source"], "rule gpu-linux-only", "{roctx}");
    let mut flags: Vec<&str> = json["link_flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap())
        .collect();
    flags.sort_unstable();
    assert_eq!(flags, ["rocblas.lib", "rocfft.lib", "rocsolver.lib"]);

    // The text report says the same: each library, its source, each name with its DLL.
    let log = common::root().join("tests/logs/unresolved/185.log");
    let out = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(["diagnose", "--no-cache"])
        .arg(&log)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    for (heading, line) in [
        (
            "rocblas.lib  AMD rocBLAS (HIP SDK, %HIP_PATH%\\lib); table hip-sdk",
            "rocblas_sgemm  (rocblas.dll)",
        ),
        (
            "rocsolver.lib  AMD rocSOLVER (HIP SDK, %HIP_PATH%\\lib); table hip-sdk",
            "rocsolver_dgetrf  (rocsolver.dll)",
        ),
        (
            "rocfft.lib  AMD rocFFT (HIP SDK, %HIP_PATH%\\lib); table hip-sdk",
            "rocfft_plan_create  (rocfft.dll)",
        ),
    ] {
        assert!(text.contains(heading), "{heading}:\n{text}");
        assert!(text.contains(line), "{line}:\n{text}");
    }
    let no_library = text
        .split("gpu-linux-only (no library defines it)")
        .nth(1)
        .unwrap_or_else(|| panic!("no gpu-linux-only group:\n{text}"));
    assert!(no_library.contains("roctxRangePushA"), "{text}");
    assert!(!text.contains("not known to any rule"), "{text}");
    assert!(!text.contains("amdhip64"), "{text}");
}

#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn an_itanium_mangled_reference_is_a_compiler_mismatch() {
    let json = diagnose(&log_of(&["_ZN3c1010TensorImpl4sizeEl"]), &[]);
    let s = &json["symbols"][0];
    assert_eq!(s["family"], "itanium-abi", "{s}");
    assert!(s["library"].is_null());
    assert!(
        s["match_note"].as_str().unwrap().contains("MSVC ABI"),
        "{s}"
    );
    // rustc's legacy mangling (a 16-digit hash before the final E) is no compiler mismatch.
    let json = diagnose(
        &log_of(&["_ZN4core9panicking5panic17h0c4d5e6f7a8b9c0dE"]),
        &[],
    );
    assert_eq!(json["symbols"][0]["family"], "rust-crate");
    // The library on disk defines the function under its MSVC name: the near miss says which
    // mangling each side used. The reference is made from a real c10 export `?f@c10@@YA...`.
    let exports = cxx_exports("c10.lib");
    let (msvc, function) = exports
        .iter()
        .find_map(|(n, _)| {
            let f = n.strip_prefix('?')?.strip_suffix("@c10@@YA_NXZ")?;
            f.chars()
                .all(|c| c.is_ascii_alphanumeric())
                .then(|| (n.clone(), f.to_string()))
        })
        .expect("c10.lib exports a bool c10::f(void)");
    let itanium = format!("_ZN3c10{}{function}Ev", function.len());
    let dir = common::torch_libs().to_str().unwrap().to_string();
    let json = diagnose(&log_of(&[&itanium]), &["--lib-dir", &dir]);
    let s = &json["symbols"][0];
    assert_eq!(s["family"], "itanium-abi", "{s}");
    assert_eq!(
        s["near_misses"][0]["found_name"].as_str(),
        Some(msvc.as_str()),
        "{s}"
    );
    assert!(
        s["near_misses"][0]["cause"]
            .as_str()
            .unwrap()
            .starts_with("Itanium"),
        "{s}"
    );
    // The same declaration MSVC-mangled is c10's.
    let json = diagnose(&log_of(&["?size@TensorImpl@c10@@QEBA_J_J@Z"]), &[]);
    assert_eq!(json["symbols"][0]["library"], "c10.lib");
}

/// The closed loop: an object built by clang-cl 19 that calls a real c10 function (declared by
/// hand with its exact signature) fails to link with lld-link 19; appending lnkfix's flags,
/// found against the real torch libraries, makes the same link succeed.
#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn linking_against_the_real_c10_with_the_printed_flags_succeeds() {
    let exports = cxx_exports("c10.lib");
    let name = "?IsNUMAEnabled@c10@@YA_NXZ";
    assert!(
        exports.iter().any(|(n, _)| n == name),
        "c10.lib exports {name}"
    );
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("ext.cpp"),
        "namespace c10 { bool IsNUMAEnabled(); }\nextern \"C\" int numa(void) { return c10::IsNUMAEnabled() ? 1 : 0; }\n",
    )
    .unwrap();
    common::run(
        "clang-19",
        &[
            "--driver-mode=cl",
            "/nologo",
            "/c",
            "/Zl",
            "/GS-",
            "ext.cpp",
            "/Foext.obj",
        ],
        d,
    );
    let link = |extra: &[String]| {
        let mut cmd = Command::new("lld-link-19");
        cmd.current_dir(d)
            .args([
                "/nologo",
                "/dll",
                "/noentry",
                "/nodefaultlib",
                "/machine:x64",
            ])
            .args(["/out:ext.dll", "ext.obj"])
            .args(extra);
        cmd.output().expect("run lld-link-19")
    };
    let failed = link(&[]);
    assert!(!failed.status.success());
    let log = String::from_utf8_lossy(&failed.stderr).into_owned();
    assert!(log.contains("undefined symbol"), "{log}");
    let libs = common::torch_libs().to_str().unwrap().to_string();
    let json = diagnose(&log, &["--lib-dir", &libs]);
    let flags: Vec<String> = json["link_flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert!(flags.iter().any(|f| f == "c10.lib"), "{flags:?}");
    let linked = link(&flags);
    assert!(
        linked.status.success(),
        "{flags:?}\n{}",
        String::from_utf8_lossy(&linked.stderr)
    );
    assert!(d.join("ext.dll").is_file());
}

/// One of our logs (tests/logs/unresolved/NNN.log).
fn our_log(id: &str) -> String {
    let path = common::root().join(format!("tests/logs/unresolved/{id}.log"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// torch's Python bindings (THP*): torch_python.lib without the libraries, and against the real
/// torch_python.lib an old THPVariable_Wrap signature is a near miss of the one it exports.
#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn thp_names_are_torch_python_and_an_old_signature_is_a_near_miss() {
    let json = diagnose(&our_log("146"), &[]);
    let got = libraries(&json);
    assert_eq!(got.len(), 2, "{got:?}");
    assert!(got.values().all(|l| l == "torch_python.lib"), "{got:?}");
    assert_eq!(json["counts"]["lnk1120"][0], 2, "{json}");
    let lib_dir = common::torch_libs().to_str().unwrap().to_string();
    let json = diagnose(&our_log("146"), &["--lib-dir", &lib_dir]);
    let wrap = json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"].as_str().unwrap().starts_with("?THPVariable_Wrap"))
        .expect("THPVariable_Wrap is read");
    assert_eq!(wrap["library"], "torch_python.lib", "{wrap}");
    let miss = &wrap["near_misses"][0];
    assert_eq!(miss["library"], "torch_python.lib", "{wrap}");
    assert!(
        miss["found"].as_str().unwrap().contains("at::TensorBase"),
        "{miss}"
    );
}

/// A torch BuildExtension build is told as such (kind `torch-extension`), and its fix is in
/// cpp_extension's terms: CppExtension's libraries=, load()'s extra_ldflags, CUDAExtension for a
/// c10::cuda name, and torch_cpu, which BuildExtension linked already, not offered again.
#[test]
fn a_cpp_extension_build_gets_the_fix_in_cpp_extension_terms() {
    let json = diagnose(&our_log("147"), &[]);
    assert_eq!(
        libraries(&json).values().collect::<Vec<_>>(),
        ["torch_cpu.lib", "c10_cuda.lib"]
    );
    let build = &json["build_system"];
    assert_eq!(build["kind"], "torch-extension", "{build}");
    assert!(
        build["evidence"]
            .as_str()
            .unwrap()
            .contains("cpp_extension.py"),
        "{build}"
    );
    let fix: Vec<&str> = build["fix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l.as_str().unwrap())
        .collect();
    let has = |needle: &str| fix.iter().any(|l| l.contains(needle));
    // torch_cpu.lib is on the link line already (BuildExtension linked it): not offered again.
    assert!(
        has(r#"CppExtension/CUDAExtension(...): libraries=["c10_cuda"]"#),
        "{fix:#?}"
    );
    assert!(has(r#"extra_ldflags=["c10_cuda.lib"]"#), "{fix:#?}");
    assert!(has("c10_cuda come with CUDAExtension"), "{fix:#?}");
    assert!(!has("c10_cuda themselves"), "{fix:#?}");
    let data_ptr = &json["symbols"][1];
    assert_eq!(data_ptr["already_linked"]["library"], "torch_cpu.lib");
    assert!(data_ptr["match_note"]
        .as_str()
        .unwrap()
        .starts_with("torch_cpu.lib is already in the link"));
    // The JIT load() log is a torch extension build too; a plain setuptools log is not.
    assert_eq!(
        diagnose(&our_log("148"), &[])["build_system"]["kind"],
        "torch-extension"
    );
    assert_eq!(
        diagnose(&our_log("145"), &[])["build_system"]["kind"],
        "setuptools"
    );
}

/// data_ptr<long> against the real torch_cpu.lib: the instantiation it exports is
/// data_ptr<__int64>, the near miss said first with the long/int64_t fix.
#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn data_ptr_of_long_is_a_near_miss_of_data_ptr_of_int64() {
    let json = diagnose(&our_log("148"), &[]);
    assert_eq!(
        libraries(&json).values().collect::<Vec<_>>(),
        ["torch_cpu.lib"]
    );
    assert!(json["symbols"][0]["near_misses"]
        .as_array()
        .unwrap()
        .is_empty());
    let lib_dir = common::torch_libs().to_str().unwrap().to_string();
    let json = diagnose(&our_log("148"), &["--lib-dir", &lib_dir]);
    let miss = &json["symbols"][0]["near_misses"][0];
    assert_eq!(
        miss["found_name"], "??$data_ptr@_J@TensorBase@at@@QEBAPEA_JXZ",
        "{miss}"
    );
    assert!(
        miss["cause"]
            .as_str()
            .unwrap()
            .starts_with("long against __int64"),
        "{miss}"
    );
}

/// A torch build whose link line names c10.lib already (178: CMake with libtorch 2.3.1's headers)
/// against the real torch 2.15.0 libraries laid out as a wheel's `torch/lib` with its
/// `torch/version.py`: the library is not offered again, the note says it is linked and lacks
/// the name (or defines it differently), and names both torch versions.
#[cfg(not(windows))] // real data fetched by bash scripts, symbolic links: Linux only
#[test]
fn a_torch_library_already_on_the_link_line_is_not_offered_again() {
    let site = tempfile::tempdir().unwrap();
    let lib = site.path().join("torch/lib");
    std::fs::create_dir_all(&lib).unwrap();
    for name in ["c10.lib", "torch_cpu.lib", "torch.lib"] {
        std::os::unix::fs::symlink(common::torch_libs().join(name), lib.join(name)).unwrap();
    }
    std::fs::write(
        site.path().join("torch/version.py"),
        "__version__ = '2.15.0+cpu'\ndebug = False\n",
    )
    .unwrap();
    let json = diagnose(
        &our_log("178"),
        &["--no-python", "--lib-dir", lib.to_str().unwrap()],
    );
    assert_eq!(json["link_flags"], serde_json::json!([]));
    for s in json["symbols"].as_array().unwrap() {
        assert_eq!(s["already_linked"]["library"], "c10.lib", "{s}");
        assert_eq!(
            s["already_linked"]["evidence"],
            "the link command line names it"
        );
        assert!(
            s["installed_lacks"].as_str().unwrap().ends_with("c10.lib"),
            "{s}"
        );
        assert!(s.get("not_exported_by").is_none(), "{s}");
        let note = s["match_note"].as_str().unwrap();
        assert!(note.contains("adding it again cannot help"), "{note}");
        assert!(note.contains("headers 2.3.1+cpu (line 1)"), "{note}");
        assert!(note.contains("libraries 2.15.0+cpu"), "{note}");
        assert!(note.contains("version.py"), "{note}");
    }
    // The int/unsigned int signature is a near miss of the real export, said as such.
    let check = &json["symbols"][1];
    assert!(check["match_note"]
        .as_str()
        .unwrap()
        .contains("defines it differently (near miss below)"));
    assert!(!check["near_misses"].as_array().unwrap().is_empty());
    let problem = &json["problems"][0];
    assert!(
        problem["cause"]
            .as_str()
            .unwrap()
            .starts_with("c10.lib already in the link"),
        "{problem}"
    );
    assert!(
        problem["fix"]
            .as_str()
            .unwrap()
            .contains("adding the library again cannot help"),
        "{problem}"
    );
    // Metamorphic: without c10.lib on the link line the same log is answered with c10.lib to
    // add (the name is internal to it as far as the installed copy tells: no flag either) and
    // nothing says it is linked.
    let unlinked = our_log("178").replace(r"C:\venv\Lib\site-packages\torch\lib\c10.lib", "");
    let json = diagnose(
        &unlinked,
        &["--no-python", "--lib-dir", lib.to_str().unwrap()],
    );
    for s in json["symbols"].as_array().unwrap() {
        assert!(s.get("already_linked").is_none(), "{s}");
    }
}

/// The libraries of each symbol's answer, and its `own_output` (`-` for none).
fn own_outputs(json: &serde_json::Value) -> BTreeMap<String, (String, String)> {
    json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let text = |v: &serde_json::Value| v.as_str().unwrap_or("-").to_string();
            (
                text(&s["name"]),
                (text(&s["library"]), text(&s["own_output"]["library"])),
            )
        })
        .collect()
}

/// A DLL's link whose names are its own (the answer is its own import library: TheRock building
/// torch_hip.dll, an MSBuild build of c10.dll): no library is offered for them, the cause says
/// the defining objects are missing; a name of another library in the same link keeps its
/// library. Metamorphic: the same log building another DLL, or a program, offers the library.
#[test]
fn a_dlls_own_names_are_not_answered_with_its_own_import_library() {
    let json = diagnose(&our_log("183"), &["--no-python"]);
    let answers = own_outputs(&json);
    let hip = "struct rocblas_handle * __cdecl at::hip::getCurrentHIPBlasHandle(void)";
    assert_eq!(
        answers[hip],
        ("-".into(), "torch_hip.dll".into()),
        "{answers:?}"
    );
    let props = "struct hipDeviceProp_tR0600 * __cdecl at::hip::getDeviceProperties(__int64)";
    assert_eq!(answers[props].1, "torch_hip.dll");
    let stub = answers
        .iter()
        .find(|(name, _)| name.contains("set_hip_dispatch_ptr"))
        .unwrap();
    assert_eq!(stub.1, &("torch_cpu.lib".into(), "-".into()));
    assert_eq!(json["link_flags"], serde_json::json!(["torch_cpu.lib"]));
    let evidence = &json["symbols"][0]["own_output"];
    assert_eq!(evidence["line"], 4, "{evidence}");
    assert_eq!(
        evidence["evidence"],
        "its link command's /OUT: names it, and /IMPLIB: torch_hip.lib"
    );
    let problem = &json["problems"][0];
    assert!(
        problem["cause"]
            .as_str()
            .unwrap()
            .contains("names of torch_hip.dll itself, which this link builds"),
        "{problem}"
    );
    // MSBuild shows no command: the LNK1120 line names the output. Every name is c10.dll's own.
    let json = diagnose(&our_log("184"), &["--no-python"]);
    for (name, (library, own)) in own_outputs(&json) {
        assert_eq!((library.as_str(), own.as_str()), ("-", "c10.dll"), "{name}");
    }
    assert_eq!(json["link_flags"], serde_json::json!([]));
    assert_eq!(
        json["symbols"][0]["own_output"]["evidence"],
        "the link's LNK1120 line names it"
    );
    let problem = &json["problems"][0];
    assert!(
        problem["fix"]
            .as_str()
            .unwrap()
            .starts_with("add the source files that define these names to the c10.dll target"),
        "{problem}"
    );
    // Metamorphic: the same errors in the link of another DLL, or of a program named c10.exe
    // (a program beside a static c10.lib is common), are c10.lib's to add.
    for output in ["c10_tests.dll", "c10.exe"] {
        let log = our_log("184").replace(r"bin\Release\c10.dll", &format!(r"bin\Release\{output}"));
        let json = diagnose(&log, &["--no-python"]);
        for (name, (library, own)) in own_outputs(&json) {
            assert_eq!(
                (library.as_str(), own.as_str()),
                ("c10.lib", "-"),
                "{output}: {name}"
            );
        }
        assert_eq!(
            json["link_flags"],
            serde_json::json!(["c10.lib"]),
            "{output}"
        );
    }
}

/// Against the real c10.lib on disk (a stale copy of the DLL's own import library, found in the
/// search path), the DLL's own exported name is still its own, not c10.lib's to add.
#[cfg(not(windows))] // real data fetched by bash scripts: Linux only
#[test]
fn a_dlls_own_name_found_in_a_real_import_library_on_disk_is_still_its_own() {
    let lib = common::torch_libs().display().to_string();
    let json = diagnose(&our_log("184"), &["--no-python", "--lib-dir", &lib]);
    let s = json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| {
            s["name"]
                .as_str()
                .unwrap()
                .starts_with("?DeviceTypeName@c10@@")
        })
        .unwrap();
    assert_eq!(s["provider"], "archive", "{s}");
    assert_eq!(s["own_output"]["library"], "c10.dll", "{s}");
    assert!(s["library"].is_null(), "{s}");
    assert_eq!(json["link_flags"], serde_json::json!([]));
}
