//! The libraries of the ecosystems users build for: the Python C API, Node addons and CUDA,
//! named from the embedded tables (symbol-db/names/python.txt, node.txt, cuda.txt) and found in
//! real libraries on disk: CPython's python312.dll export list built into import libraries
//! (`tests/fixtures/fetch_python.sh`), Node-API's export list built into x64 and ia32 node.lib
//! (`tests/fixtures/fetch_node.sh`), NVIDIA's cudart.lib (`tests/fixtures/fetch_cuda.sh`), the
//! windows crates' x86 and x64 import libraries; and a closed loop, lld-link-19 linking a
//! clang-cl-19 object with the flags lnkfix writes.
//!
//! Linux only: the fetch scripts (bash, cargo, npm, pip), clang-19 and lld-link-19 do not run
//! under Wine. The Windows run checks lnkfix.exe's answers on our logs 094-096 against the Linux
//! binary's (`tests/it/windows.rs`).
#![cfg(not(windows))]

use crate::common;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

/// Runs a fetch script of tests/fixtures once and returns the directory it prints.
fn fetched(script: &str, slot: &'static OnceLock<PathBuf>) -> &'static Path {
    slot.get_or_init(|| common::fetched(script))
}

fn python_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    fetched("fetch_python.sh", &DIR)
}

fn node_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    fetched("fetch_node.sh", &DIR)
}

fn cuda_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    fetched("fetch_cuda.sh", &DIR)
}

/// Writes a log into a fresh temporary directory and diagnoses it with `args`.
fn diagnose(log: &str, args: &[&str]) -> (serde_json::Value, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("build.log"), log).unwrap();
    let mut all: Vec<&str> = args.to_vec();
    all.push("build.log");
    (common::diagnose_json(dir.path(), &all), dir)
}

/// (name as the log shows it, family, library, who answered) of every symbol.
fn answers(json: &serde_json::Value) -> Vec<(String, String, String, String)> {
    json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| {
            let text = |v: &serde_json::Value| v.as_str().unwrap_or("-").to_string();
            (
                text(&s["name"]),
                text(&s["family"]),
                text(&s["library"]),
                text(&s["provider"]),
            )
        })
        .collect()
}

/// One of our logs (tests/logs/unresolved/NNN.log).
fn our_log(id: &str) -> String {
    let path = common::root().join(format!("tests/logs/unresolved/{id}.log"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The same names with no Python version anywhere in the log.
const NO_VERSION: &str = "spam.obj : error LNK2001: unresolved external symbol __imp_PyExc_TypeError\nspam.obj : error LNK2019: unresolved external symbol __imp_PyLong_FromLong referenced in function f\n";

/// Without any library on disk: the version the log shows picks python312.lib; with no version,
/// no library is invented and the note names the family.
#[test]
fn python_c_api_from_the_embedded_table() {
    // 094: a setuptools build whose command lines show Python 3.12.
    let (json, _dir) = diagnose(&our_log("094"), &[]);
    let got = answers(&json);
    assert_eq!(got.len(), 3, "{got:?}");
    for (name, family, library, provider) in &got {
        assert_eq!(
            (family.as_str(), library.as_str(), provider.as_str()),
            ("python-c-api", "python312.lib", "rule"),
            "{name}"
        );
    }
    assert_eq!(json["link_flags"], serde_json::json!(["python312.lib"]));
    let fix = json["build_system"]["fix"].to_string();
    assert!(fix.contains(r#"libraries=[\"python312\"]"#), "{fix}");
    let (json, _dir) = diagnose(NO_VERSION, &[]);
    for s in json["symbols"].as_array().unwrap() {
        assert_eq!(s["family"], "python-c-api");
        assert!(s["library"].is_null(), "{s}");
        let note = s["match_note"].as_str().unwrap();
        assert!(note.starts_with("python3XX.lib of your Python"), "{note}");
        assert!(
            note.contains("python312.lib") && note.contains("python3.lib"),
            "{note}"
        );
    }
    // An x86 name (`__imp__PyLong_FromLong`) in a log that does not say x86: the same answer.
    let x86 = "spam.obj : error LNK2019: unresolved external symbol __imp__PyLong_FromLong referenced in function _f\n";
    let (json, _dir) = diagnose(x86, &[]);
    let note = json["symbols"][0]["match_note"].as_str().unwrap();
    assert!(note.contains("python312.lib"), "{note}");
}

/// The near misses between Python's libraries, from the table: a debug-only name, a name the
/// stable ABI lacks while the log links python3.lib, a name the version's DLL does not export.
#[test]
fn python_debug_limited_and_version_near_misses() {
    let debug = "cl /c /D_DEBUG /MDd -IC:\\Python312\\include spam.c\nspam.obj : error LNK2001: unresolved external symbol _Py_RefTotal\nspam.obj : error LNK2001: unresolved external symbol _Py_NegativeRefcount\n";
    let (json, _dir) = diagnose(debug, &[]);
    for s in json["symbols"].as_array().unwrap() {
        assert_eq!(s["family"], "python-debug", "{s}");
        assert_eq!(s["library"], "python312_d.lib", "{s}");
        let note = s["match_note"].as_str().unwrap();
        assert!(
            note.contains("Py_DEBUG") && note.contains("python312.lib"),
            "{note}"
        );
    }
    let limited = "cl /c /DPy_LIMITED_API=0x030C0000 -IC:\\Python312\\include spam.c\nlink /DLL spam.obj python3.lib\nspam.obj : error LNK2019: unresolved external symbol __imp_PyUnstable_Code_New referenced in function f\nspam.obj : error LNK2019: unresolved external symbol __imp_PyLong_FromLong referenced in function f\n";
    let (json, _dir) = diagnose(limited, &[]);
    let s = &json["symbols"][0];
    let note = s["match_note"].as_str().unwrap();
    assert!(note.starts_with("not in the stable ABI"), "{note}");
    assert_eq!(s["library"], "python312.lib", "{s}");
    assert_eq!(json["symbols"][1]["library"], "python3.lib");
    // PyUnstable_Code_New came with 3.12: python311.dll does not export it.
    let old = "cl -IC:\\Python311\\include x.c\nx.obj : error LNK2019: unresolved external symbol __imp_PyUnstable_Code_New referenced in function f\n";
    let (json, _dir) = diagnose(old, &[]);
    let s = &json["symbols"][0];
    assert!(s["library"].is_null(), "{s}");
    let note = s["match_note"].as_str().unwrap();
    assert!(
        note.starts_with("python311.dll does not export it"),
        "{note}"
    );
    assert!(note.contains("python312.lib"), "{note}");
}

/// A debug build that cannot open python312_d.lib: the fix is the debug binaries or a Release
/// build that links python312.lib, not only a library path.
#[test]
fn python_debug_library_cannot_be_opened() {
    let log = "cl /c /D_DEBUG /MDd -IC:\\Python312\\include spam.c\nLINK : fatal error LNK1104: cannot open file 'python312_d.lib'\n";
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("build.log"), log).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .current_dir(dir.path())
        .args(["diagnose", "--format", "json", "build.log"])
        .output()
        .expect("run lnkfix");
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let problem = &json["problems"][0];
    assert_eq!(problem["kind"], "cannot-open", "{problem}");
    let summary = problem["summary"].as_str().unwrap();
    assert!(
        summary.contains("a debug build asks for the debug Python's library"),
        "{summary}"
    );
    let fix = problem["fix"].as_str().unwrap();
    assert!(
        fix.contains("Release") && fix.contains("python312.lib"),
        "{fix}"
    );
}

/// With CPython 3.12's real export list as an x64 import library on disk, the archive answers.
#[test]
fn python_c_api_found_on_disk() {
    let x64 = python_dir().join("x64");
    let (json, _dir) = diagnose(NO_VERSION, &["--lib-dir", x64.to_str().unwrap()]);
    for (name, family, library, provider) in answers(&json) {
        assert_eq!(
            (family.as_str(), library.as_str(), provider.as_str()),
            ("python-c-api", "python312.lib", "archive"),
            "{name}"
        );
    }
}

/// A library of another Python version than the log builds for (python311.lib found, the log
/// shows 3.12): the archive answers, and the note says the version differs.
#[test]
fn python_library_of_another_version_is_said() {
    let x64_311 = python_dir().join("x64-311");
    let (json, _dir) = diagnose(&our_log("094"), &["--lib-dir", x64_311.to_str().unwrap()]);
    for s in json["symbols"].as_array().unwrap() {
        assert_eq!(s["library"], "python311.lib", "{s}");
        let note = s["match_note"].as_str().unwrap_or_default();
        assert!(
            note.starts_with(
                "the log builds for python312.lib (line 3) but the library found is python311.lib"
            ),
            "{note}"
        );
    }
}

/// x86 names against the x64 python312.lib and node.lib and x64 names against the x86 ones: a
/// machine mismatch both ways, headed in the library's terms ("this build is x86; the
/// python312.lib found is x64"), never "the project's own"; and the same with the windows
/// crates' real Microsoft-made import libraries, x64 names of x86 `__stdcall` functions included
/// (`__imp_CreateFileW` against `__imp__CreateFileW@28`: the x64 name does not say the `@N`).
#[test]
fn x86_and_x64_decoration_both_ways() {
    let x86_python = "spam.obj : error LNK2001: unresolved external symbol __imp__PyExc_TypeError\nspam.obj : error LNK2019: unresolved external symbol __imp__PyLong_FromLong referenced in function _f\n";
    let x86_addon = "addon.obj : error LNK2019: unresolved external symbol _napi_create_function referenced in function _Init\naddon.obj : error LNK2019: unresolved external symbol _napi_module_register referenced in function _register\n";
    let x64_addon = "addon.obj : error LNK2019: unresolved external symbol napi_create_function referenced in function Init\naddon.obj : error LNK2019: unresolved external symbol napi_module_register referenced in function register\n";
    let rows = [
        (x86_python, python_dir().join("x64"), "this build is x86; the python312.lib found is x64", "x86 Python"),
        (NO_VERSION, python_dir().join("x86"), "this build is x64; the python312.lib found is x86", "x64 Python"),
        (x86_addon, node_dir().join("x64"), "this build is x86; the node.lib found is x64", "--arch=ia32"),
        (x64_addon, node_dir().join("ia32"), "this build is x64; the node.lib found is x86", "--arch=x64"),
        (
            "a.obj : error LNK2019: unresolved external symbol __imp__CreateFileW@28 referenced in function _main\na.obj : error LNK2019: unresolved external symbol __imp__CloseHandle@4 referenced in function _main\n",
            common::crate_lib_dir("windows_x86_64_msvc"),
            "the objects are x86, the libraries searched are x64",
            "x86 Native Tools prompt",
        ),
        (
            // x64 names of __cdecl functions (an x86 stdcall name's @N is not in an x64 name).
            "a.obj : error LNK2019: unresolved external symbol __imp_wsprintfW referenced in function main\na.obj : error LNK2019: unresolved external symbol __imp_DbgPrint referenced in function main\n",
            common::crate_lib_dir("windows_i686_msvc"),
            "the objects are x64, the libraries searched are x86",
            "x64 Native Tools prompt",
        ),
        (
            "a.obj : error LNK2019: unresolved external symbol __imp_CreateFileW referenced in function main\na.obj : error LNK2019: unresolved external symbol __imp_CloseHandle referenced in function main\n",
            common::crate_lib_dir("windows_i686_msvc"),
            "the objects are x64, the libraries searched are x86",
            "x64 Native Tools prompt",
        ),
    ];
    let mut failures = Vec::new();
    for (log, dir, headline, fix) in rows {
        let (json, _tmp) = diagnose(log, &["--lib-dir", dir.to_str().unwrap()]);
        let explained = json["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .all(|s| s["explained_by"]["kind"] == "machine-mismatch");
        let problem = &json["problems"][0];
        let summary = problem["summary"].as_str().unwrap_or_default();
        let said_fix = problem["fix"].as_str().unwrap_or_default();
        if !explained || !summary.starts_with(headline) || !said_fix.contains(fix) {
            failures.push(format!("{}: {summary} / {said_fix}", dir.display()));
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
}

/// Node addons: Node-API and libuv from the table, V8 by its scope, all node.lib, said in
/// binding.gyp terms.
#[test]
fn node_addon_names_are_node_lib() {
    let (json, _dir) = diagnose(&our_log("095"), &[]);
    let got = answers(&json);
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(
        got.iter()
            .all(|(_, family, library, _)| family == "node" && library == "node.lib"),
        "{got:?}"
    );
    let fix = json["build_system"]["fix"].to_string();
    assert!(
        fix.contains("binding.gyp") && fix.contains("node.lib"),
        "{fix}"
    );
}

/// The node.lib built from node-api-headers' def file exports Node-API only: the libuv and V8
/// names of 095 are said to need the node.lib of a Node release (or a port to Node-API), not
/// "the installed node.lib lacks it" nor "internal"; a node.lib that exports other APIs too and
/// lacks the name is the plain "installed lacks it".
#[test]
fn a_node_api_only_node_lib_is_said_as_such() {
    let x64 = node_dir().join("x64");
    let (json, _dir) = diagnose(
        &our_log("095"),
        &["--no-python", "--lib-dir", x64.to_str().unwrap()],
    );
    let symbols = json["symbols"].as_array().unwrap();
    for s in &symbols[..2] {
        assert_eq!(s["provider"], "archive", "{s}");
    }
    for (s, api) in symbols[2..].iter().zip(["libuv", "V8"]) {
        let note = s["match_note"].as_str().unwrap();
        assert!(note.contains("is a Node-API-only node.lib"), "{note}");
        assert!(note.contains(&format!("the {api} API")), "{note}");
        assert!(
            note.contains(r"node-gyp\Cache\20.11.1\x64\node.lib"),
            "{note}"
        );
        // The version of node-gyp's `gyp info using node@20.11.1` line.
        assert!(note.contains("node-gyp install 20.11.1"), "{note}");
        assert!(note.contains("port the addon to Node-API"), "{note}");
        assert!(s.get("not_exported_by").is_none(), "{s}");
        assert!(
            s["installed_lacks"].as_str().unwrap().ends_with("node.lib"),
            "{s}"
        );
    }
    let summary = json["verdict"]["summary"].as_str().unwrap();
    assert!(!summary.contains("installed node.lib lacks"), "{summary}");
    assert!(!summary.contains("internal"), "{summary}");
    // Metamorphic: a node.lib that also exports a libuv function is a release's: the name it
    // lacks is the plain "installed lacks it".
    let release = tempfile::tempdir().unwrap();
    std::fs::write(
        release.path().join("node.def"),
        "LIBRARY node.exe\nEXPORTS\n  napi_create_function\n  napi_module_register\n  uv_loop_init\n",
    )
    .unwrap();
    common::run(
        "llvm-dlltool-19",
        &["-m", "i386:x86-64", "-d", "node.def", "-l", "node.lib"],
        release.path(),
    );
    let (json, _dir) = diagnose(
        &our_log("095"),
        &["--no-python", "--lib-dir", release.path().to_str().unwrap()],
    );
    let uv = &json["symbols"][2];
    let note = uv["match_note"].as_str().unwrap();
    assert!(!note.contains("Node-API-only"), "{note}");
    assert!(note.contains("does not"), "{note}");
}

/// CUDA: the runtime, driver and cuBLAS names from the table; cudaMalloc and the fat-binary
/// registration nvcc's host code calls found in NVIDIA's real cudart.lib.
#[test]
fn cuda_names_from_the_table_and_the_real_cudart() {
    let log = our_log("096");
    let (json, _dir) = diagnose(&log, &[]);
    let libraries: Vec<String> = answers(&json).into_iter().map(|a| a.2).collect();
    assert_eq!(
        libraries,
        ["cudart.lib", "cudart.lib", "cublas.lib", "cuda.lib"]
    );
    let lib = cuda_dir().join("lib/x64");
    let (json, _dir) = diagnose(&log, &["--lib-dir", lib.to_str().unwrap()]);
    let got = answers(&json);
    for at in [0, 1, 3] {
        assert_eq!(got[at].3, "archive", "{got:?}");
    }
    assert_eq!(got[1].2, "cudart.lib");
    assert_eq!(got[3].2, "cuda.lib");
    assert_eq!(json["symbols"][1]["dll"], "cudart64_12.dll");
}

/// A closed loop: a C extension that uses the Python C API, compiled with clang-cl 19, fails to
/// link with lld-link 19; the flags lnkfix writes from the real python312 import library make
/// the same link succeed.
#[test]
fn python_extension_links_with_the_flags() {
    let dir = tempfile::tempdir().unwrap();
    let source = "typedef struct _object PyObject;\n__declspec(dllimport) PyObject *PyLong_FromLong(long);\n__declspec(dllimport) extern PyObject *PyExc_TypeError;\n__declspec(dllexport) PyObject *spam(long v) { return v ? PyLong_FromLong(v) : PyExc_TypeError; }\n";
    std::fs::write(dir.path().join("spam.c"), source).unwrap();
    common::run(
        "clang-19",
        &[
            "--driver-mode=cl",
            "--target=x86_64-pc-windows-msvc",
            "/c",
            "/GS-",
            "/Zl",
            "spam.c",
            "/Fospam.obj",
        ],
        dir.path(),
    );
    let link = |extra: &[String]| {
        Command::new("lld-link-19")
            .args([
                "/dll",
                "/noentry",
                "/nodefaultlib",
                "/machine:x64",
                "spam.obj",
                "/out:spam.pyd",
            ])
            .args(extra)
            .current_dir(dir.path())
            .output()
            .expect("lld-link-19 runs")
    };
    let failed = link(&[]);
    assert!(!failed.status.success());
    std::fs::write(dir.path().join("link.log"), &failed.stderr).unwrap();
    let x64 = python_dir().join("x64");
    let json = common::diagnose_json(
        dir.path(),
        &["--lib-dir", x64.to_str().unwrap(), "link.log"],
    );
    let flags: Vec<String> = json["link_flags"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_string())
        .collect();
    assert!(flags.iter().any(|f| f == "python312.lib"), "{flags:?}");
    let linked = link(&flags);
    assert!(
        linked.status.success(),
        "{flags:?}: {}",
        String::from_utf8_lossy(&linked.stderr)
    );
}

/// An x86 Python build from a Win32 .vcxproj: no library without the libraries (no version in
/// the log); against the x64 python312.lib the machine mismatch, although `__imp__PyErr_Clear`
/// read as is names x64 Python's private `_PyErr_Clear`; against the x86 one, python312.lib.
#[test]
fn an_x86_python_build_against_x64_python_is_the_machine_mismatch() {
    let (json, _dir) = diagnose(&our_log("143"), &[]);
    let got = answers(&json);
    assert_eq!(got.len(), 4, "{got:?}");
    assert!(
        got.iter()
            .all(|(_, family, library, _)| family == "python-c-api" && library == "-"),
        "{got:?}"
    );
    let x64 = python_dir().join("x64");
    let (json, _dir) = diagnose(&our_log("143"), &["--lib-dir", x64.to_str().unwrap()]);
    for s in json["symbols"].as_array().unwrap() {
        assert_eq!(s["explained_by"]["kind"], "machine-mismatch", "{s}");
    }
    let summary = json["problems"][0]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("this build is x86; the python312.lib found is x64"),
        "{summary}"
    );
    let x86 = python_dir().join("x86");
    let (json, _dir) = diagnose(
        &our_log("143"),
        &["--arch", "x86", "--lib-dir", x86.to_str().unwrap()],
    );
    let got = answers(&json);
    assert!(
        got.iter()
            .all(|(_, _, library, provider)| library == "python312.lib" && provider != "rule"),
        "{got:?}"
    );
}

/// Logs whose only x86 evidence is the mangling of the referencing functions: references and
/// pointers without `E` (`ABV`, `AAV`, `AAH`; x64 has `AEBV`). The `_` of the C names is then x86
/// decoration: `curl_easy_init` is looked up, and the x86 Python import against the real x64
/// python312.lib is the machine mismatch, not "the installed python312.lib lacks it".
#[test]
fn x86_pointer_mangling_alone_makes_the_log_x86() {
    let (json, _dir) = diagnose(&our_log("176"), &[]);
    let names: Vec<&str> = json["symbols"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["lookup_name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["curl_easy_init", "curl_easy_setopt", "curl_easy_cleanup"]
    );
    let x64 = python_dir().join("x64");
    let (json, _dir) = diagnose(&our_log("177"), &["--lib-dir", x64.to_str().unwrap()]);
    let s = &json["symbols"][0];
    assert_eq!(s["lookup_name"], "PyUnicode_FromStringAndSize");
    assert_eq!(s["explained_by"]["kind"], "machine-mismatch", "{s}");
    assert!(s.get("installed_lacks").is_none(), "{s}");
    let summary = json["problems"][0]["summary"].as_str().unwrap();
    assert!(
        summary.starts_with("this build is x86; the python312.lib found is x64"),
        "{summary}"
    );
    // The x86 library answers it.
    let x86 = python_dir().join("x86");
    let (json, _dir) = diagnose(
        &our_log("177"),
        &["--arch", "x86", "--lib-dir", x86.to_str().unwrap()],
    );
    assert_eq!(json["symbols"][0]["provider"], "archive");
    assert_eq!(json["symbols"][0]["library"], "python312.lib");
}

/// Python 2.7: told by the names only Python 2 has (a Cython module, no version shown) or by
/// the log's C:\Python27 lines; every C API name is then python27.lib's, said in setuptools
/// terms. The same names without dllimport in a Python 3 build are code to port.
#[test]
fn python2_builds_get_python27_and_python2_names_in_python3_are_to_port() {
    for id in ["144", "145"] {
        let (json, _dir) = diagnose(&our_log(id), &[]);
        let got = answers(&json);
        assert!(
            got.iter().all(
                |(_, family, library, _)| family == "python-c-api" && library == "python27.lib"
            ),
            "{id}: {got:?}"
        );
        let note = json["symbols"][0]["match_note"].as_str().unwrap();
        assert!(note.contains("built for Python 2.7"), "{id}: {note}");
        assert_eq!(json["build_system"]["kind"], "setuptools", "{id}");
        let fix = json["build_system"]["fix"].to_string();
        assert!(fix.contains(r#"libraries=[\"python27\"]"#), "{id}: {fix}");
        assert!(fix.contains("sys.base_prefix"), "{id}: {fix}");
    }
    let port = "-IC:\\Python312\\include\nm.obj : error LNK2019: unresolved external symbol PyString_FromString referenced in function f\nm.obj : error LNK2019: unresolved external symbol __imp_PyLong_FromLong referenced in function f\n";
    let (json, _dir) = diagnose(port, &[]);
    let got = answers(&json);
    assert_eq!(got[0].2, "-", "{got:?}");
    assert_eq!(got[1].2, "python312.lib", "{got:?}");
    let note = json["symbols"][0]["match_note"].as_str().unwrap();
    assert!(
        note.contains("Python 3 removed it") && note.contains("PyBytes_"),
        "{note}"
    );
}

/// node-gyp logs: an ia32 build's x86 Node-API names are node.lib's, and against the x64
/// node.lib the machine mismatch with node-gyp's --arch; a console-wrapped x64 log's names are
/// read whole and answered in binding.gyp terms.
#[test]
fn node_gyp_logs_ia32_and_wrapped() {
    let (json, _dir) = diagnose(&our_log("149"), &[]);
    assert!(
        answers(&json)
            .iter()
            .all(|(_, family, library, _)| family == "node" && library == "node.lib"),
        "{json}"
    );
    assert_eq!(json["build_system"]["kind"], "node-gyp");
    let x64 = node_dir().join("x64");
    let (json, _dir) = diagnose(&our_log("149"), &["--lib-dir", x64.to_str().unwrap()]);
    let problem = &json["problems"][0];
    let summary = problem["summary"].as_str().unwrap();
    assert!(
        summary.contains("this build is x86; the node.lib found is x64"),
        "{summary}"
    );
    assert!(
        problem["fix"].as_str().unwrap().contains("--arch=ia32"),
        "{problem}"
    );
    let ia32 = node_dir().join("ia32");
    let (json, _dir) = diagnose(
        &our_log("149"),
        &["--arch", "x86", "--lib-dir", ia32.to_str().unwrap()],
    );
    assert!(
        answers(&json)
            .iter()
            .all(|(_, _, library, provider)| library == "node.lib" && provider != "rule"),
        "{json}"
    );
    let (json, _dir) = diagnose(&our_log("150"), &[]);
    let got = answers(&json);
    let names: Vec<&str> = got.iter().map(|g| g.0.as_str()).collect();
    assert_eq!(names, ["napi_get_new_target", "uv_default_loop"]);
    assert!(got.iter().all(|g| g.2 == "node.lib"), "{got:?}");
    let fix = json["build_system"]["fix"].to_string();
    assert!(fix.contains(r#"\"libraries\": [\"node.lib\"]"#), "{fix}");
}
