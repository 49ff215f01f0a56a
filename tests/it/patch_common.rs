//! Helpers shared by the patch integration tests: the external tools (python3, patch, git, pip)
//! are required — a missing one fails the test with a message, it never skips.
//!
//! On Windows (the test run under Wine, `.ci/windows.sh`) those tools do not exist: the releases are
//! read as fetched on Linux beforehand, and the three checks that run them — [`assert_diff_applies`]
//! (`patch`, `git apply`), [`assert_compiles`] and [`assert_ninja`] (`python3`) — do nothing there;
//! everything lnkfix itself does still runs. See CONTRIBUTING.md, "Windows".
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use lnkfix::fix::patch::{plan_patch, HipLibrary, PatchOutcome, PatchPlan};

/// The path the diffs name, relative to the directory `patch -p1`/`git apply` run in.
pub const PATH_AS_GIVEN: &str = "tvm_ffi/cpp/extension.py";

/// Where the index "found" amdhip64.lib in these tests.
pub const FOUND_DIR: &str = "C:\\Program Files\\AMD\\ROCm\\6.2\\lib";

/// HIP_PATH as the HIP SDK installer sets it: trailing backslash.
pub const HIP_PATH: &str = "C:\\Program Files\\AMD\\ROCm\\6.4\\";

/// The shape of tvm-ffi 0.1.15's ninja generator, cut down (as in `patch_cases`): the
/// `extension.py` of the hostile-input and `--verify` tests.
pub const EXTENSION_PY: &str = r#"import os
import subprocess
import sys

IS_WINDOWS = sys.platform == "win32"


def _windows_argument(argument: str) -> str:
    return subprocess.list2cmdline([argument])


def _generate_ninja_build(name, extra_ldflags, backend=None):
    with_hip = backend == "hip"
    with_cuda = backend == "cuda"
    if IS_WINDOWS:
        default_ldflags = [
            "/DLL",
            "tvm_ffi.lib",
        ]
        if with_cuda:
            default_ldflags += ["cudart.lib"]

    else:
        default_ldflags = ["-shared"]
    ldflags = default_ldflags + list(extra_ldflags)
    return "ldflags = " + " ".join(ldflags)
"#;

pub fn tests_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join("patch")
}

/// Runs a tool, failing the test with a clear message when it is missing.
pub fn run(program: &str, arguments: &[&str], directory: &Path, stdin: Option<&[u8]>) -> Output {
    use std::io::Write;
    let mut child = Command::new(program)
        .args(arguments)
        .current_dir(directory)
        .stdin(if stdin.is_some() { Stdio::piped() } else { Stdio::null() })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|error| panic!("required tool `{program}` cannot be run ({error}): install it; these tests do not skip"));
    if let Some(input) = stdin {
        child
            .stdin
            .take()
            .expect("stdin piped")
            .write_all(input)
            .expect("write stdin");
    }
    child.wait_with_output().expect("wait for tool")
}

pub fn text(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The fetched releases: (version, extension.py bytes). Fetched once per test binary into
/// `LNKFIX_TVM_FFI_DIR` (default: a directory under the system temp dir, reused between runs).
pub fn releases() -> &'static [(String, Vec<u8>)] {
    static RELEASES: OnceLock<Vec<(String, Vec<u8>)>> = OnceLock::new();
    RELEASES.get_or_init(|| {
        let out = std::env::var_os("LNKFIX_TVM_FFI_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| std::env::temp_dir().join("lnkfix-tvm-ffi-extension"));
        if cfg!(windows) {
            // No bash or pip here: read what fetch_tvm_ffi.sh wrote on Linux (.ci/windows.sh).
            assert!(
                out.join("versions.txt").is_file(),
                "{}: no versions.txt; on Windows set LNKFIX_TVM_FFI_DIR to the directory \
                 tests/patch/fetch_tvm_ffi.sh filled on Linux (.ci/windows.sh does)",
                out.display()
            );
        } else {
            fetch(&out);
        }
        let versions = std::fs::read_to_string(out.join("versions.txt")).expect("versions.txt");
        let releases: Vec<(String, Vec<u8>)> = versions
            .lines()
            .filter(|line| !line.trim().is_empty())
            .map(|version| {
                let bytes = std::fs::read(out.join(version).join("extension.py"))
                    .unwrap_or_else(|error| panic!("{version}: {error}"));
                (version.to_string(), bytes)
            })
            .collect();
        assert!(
            releases.len() >= 5,
            "fewer than five releases fetched: {versions}"
        );
        for required in ["0.1.3", "0.1.9", "0.1.15.post2"] {
            assert!(
                releases.iter().any(|(version, _)| version == required),
                "{required} not fetched"
            );
        }
        releases
    })
}

/// Runs fetch_tvm_ffi.sh into `out`.
fn fetch(out: &Path) {
    let script = tests_dir().join("fetch_tvm_ffi.sh");
    let output = run(
        "bash",
        &[
            script.to_str().expect("utf-8 path"),
            out.to_str().expect("utf-8 path"),
        ],
        Path::new(env!("CARGO_MANIFEST_DIR")),
        None,
    );
    assert!(
        output.status.success(),
        "fetch_tvm_ffi.sh failed (pip and network are required):\n{}",
        text(&output)
    );
}

pub fn hip_plan() -> PatchPlan {
    PatchPlan {
        hip: Some(HipLibrary {
            library: "amdhip64.lib".to_string(),
            found_dir: Some(PathBuf::from(FOUND_DIR)),
        }),
        libraries: Vec::new(),
        chain: None,
        source: "build.log".to_string(),
        literal_paths: false,
    }
}

pub fn changed(path: &str, original: &[u8], plan: &PatchPlan) -> (String, Vec<u8>, Vec<String>) {
    match plan_patch(path, original, plan) {
        Ok(PatchOutcome::Changed {
            diff,
            new_text,
            notes,
        }) => (diff, new_text, notes),
        other => panic!("{path}: expected a change, got {other:?}"),
    }
}

/// `patch --dry-run -p1` and `git apply --check` accept the diff, and really applying it with each
/// tool gives exactly `new_text`. (Not on Windows: no `patch` or `git` there.)
pub fn assert_diff_applies(label: &str, original: &[u8], diff: &str, new_text: &[u8]) {
    if cfg!(windows) {
        return;
    }
    for tool in ["patch", "git"] {
        let directory = tempfile::tempdir().expect("tempdir");
        let file = directory.path().join(PATH_AS_GIVEN);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, original).expect("write original");
        let (check, apply): (Vec<&str>, Vec<&str>) = if tool == "patch" {
            (vec!["--dry-run", "-p1", "--batch"], vec!["-p1", "--batch"])
        } else {
            (vec!["apply", "--check", "-"], vec!["apply", "-"])
        };
        let checked = run(tool, &check, directory.path(), Some(diff.as_bytes()));
        assert!(
            checked.status.success(),
            "{label}: {tool} {check:?} rejects the diff:\n{}\n{diff}",
            text(&checked)
        );
        let applied = run(tool, &apply, directory.path(), Some(diff.as_bytes()));
        assert!(
            applied.status.success(),
            "{label}: {tool} {apply:?} failed:\n{}",
            text(&applied)
        );
        let result = std::fs::read(&file).expect("read patched");
        assert!(
            result == new_text,
            "{label}: {tool} produced a different file than new_text"
        );
    }
}

/// `python3 -m py_compile` accepts the text. (Not on Windows: no `python3` there.)
pub fn assert_compiles(label: &str, bytes: &[u8]) {
    if cfg!(windows) {
        return;
    }
    let directory = tempfile::tempdir().expect("tempdir");
    let file = directory.path().join("extension.py");
    std::fs::write(&file, bytes).expect("write");
    let output = run(
        "python3",
        &["-m", "py_compile", "extension.py"],
        directory.path(),
        None,
    );
    assert!(
        output.status.success(),
        "{label}: py_compile failed:\n{}",
        text(&output)
    );
}

/// Runs check_ninja.py on the original and the patched text. `added` are the raw flag values the
/// Windows+HIP ldflags line must gain, in order. (Not on Windows: no `python3` there; returns "".)
pub fn assert_ninja(
    label: &str,
    original: &[u8],
    patched: &[u8],
    hip_path: Option<&str>,
    added: &[String],
) -> String {
    if cfg!(windows) {
        return String::new();
    }
    let directory = tempfile::tempdir().expect("tempdir");
    std::fs::write(directory.path().join("original.py"), original).expect("write");
    std::fs::write(directory.path().join("patched.py"), patched).expect("write");
    let expect = serde_json::json!({ "hip_path": hip_path, "added": added });
    std::fs::write(directory.path().join("expect.json"), expect.to_string()).expect("write");
    let checker = tests_dir().join("check_ninja.py");
    let output = run(
        "python3",
        &[
            checker.to_str().expect("utf-8"),
            "original.py",
            "patched.py",
            "expect.json",
        ],
        directory.path(),
        None,
    );
    assert!(
        output.status.success(),
        "{label}: check_ninja.py failed:\n{}",
        text(&output)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The lines `new_text` adds: it must be `original` with one contiguous run of lines inserted.
pub fn inserted_lines(label: &str, original: &[u8], new_text: &[u8]) -> Vec<Vec<u8>> {
    let split = |bytes: &[u8]| -> Vec<Vec<u8>> {
        bytes
            .split_inclusive(|&byte| byte == b'\n')
            .map(<[u8]>::to_vec)
            .collect()
    };
    let old = split(original);
    let new = split(new_text);
    let prefix = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    assert_eq!(
        prefix + suffix,
        old.len(),
        "{label}: lines outside the inserted block changed"
    );
    new[prefix..new.len() - suffix].to_vec()
}
