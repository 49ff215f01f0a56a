//! `lnkfix whence` on real code: the sources of PyPI triton 3.3.1 (`tests/fixtures/fetch_triton.sh`,
//! fetched at test time into a cache outside the repository) and the running Python's standard
//! library, each searched together with decoys the tests write (the same words in tests, a
//! vendored copy, another package), and `triage --site-packages` on a runtime log. Also the
//! walk's rules: `.py` only, `__pycache__`, large and binary files skipped, symbolic-link loops
//! and dangling links as warnings, and the errors for bad sources.
//!
//! On Windows (under Wine) there is no bash, pip or python: the triton sources and the standard
//! library's location are read from what `.ci/windows.sh` prepared on Linux
//! (`$LNKFIX_PREPARED/whence-triton.txt`, `whence-stdlib.txt`: a Linux path each, which Wine
//! reads on drive Z:).

use crate::common;

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use assert_cmd::Command;
use common::AssertRetrying;
use serde_json::Value;

const TRITON_MESSAGE: &str =
    "KeyError: 'Keyword argument launch_pdl was specified but unrecognised'";
const JSON_MESSAGE: &str =
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)";
const TIMEOUT_MESSAGE: &str =
    "subprocess.TimeoutExpired: Command '['sleep', '10']' timed out after 1 seconds";

fn lnkfix() -> Command {
    let mut cmd = Command::cargo_bin("lnkfix").unwrap();
    cmd.env_remove("NO_COLOR");
    cmd
}

/// A directory prepared on Linux for the Windows run, named by a file in `LNKFIX_PREPARED`.
fn prepared_dir(name: &str, made_by: &str) -> PathBuf {
    let file = common::prepared().join(name);
    let text = std::fs::read_to_string(&file).unwrap_or_else(|e| {
        panic!(
            "{}: {e}: on Windows the tests read the directory {made_by} prints, prepared on Linux; run .ci/windows.sh",
            file.display()
        )
    });
    PathBuf::from(text.trim())
}

/// triton 3.3.1's sources, laid out as in site-packages.
fn triton() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        if cfg!(windows) {
            return prepared_dir("whence-triton.txt", "tests/fixtures/fetch_triton.sh");
        }
        common::fetched("fetch_triton.sh")
    })
}

/// The running Python's standard library (`sysconfig`'s `stdlib`).
fn stdlib() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        if cfg!(windows) {
            return prepared_dir(
                "whence-stdlib.txt",
                "python3 -c 'import sysconfig; print(sysconfig.get_paths()[\"stdlib\"])'",
            );
        }
        let output = std::process::Command::new("python3")
            .args([
                "-c",
                "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
            ])
            .output()
            .expect("python3 is required by these tests");
        assert!(output.status.success(), "python3 could not name its stdlib");
        let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
        assert!(
            dir.join("json").join("decoder.py").is_file(),
            "{}: no json/decoder.py",
            dir.display()
        );
        dir
    })
}

fn write(root: &Path, relative: &str, text: &str) {
    let path = root.join(relative);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Packages that hold the same words as the real raisers, in the places a real environment has
/// them: tests that assert on the message, a vendored copy of the raising code, another package
/// that compares the text, documentation, and a stub.
fn decoys() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "kernels/tests/test_launch.py",
        "import pytest\n\ndef test_pdl():\n    with pytest.raises(KeyError, match='Keyword argument launch_pdl was specified but unrecognised'):\n        launch(launch_pdl=False)\n\ndef test_json():\n    assert str(err) == 'Expecting value: line 1 column 1 (char 0)'\n\ndef test_timeout():\n    assert \"Command '['sleep', '10']' timed out after 1 seconds\" in out\n",
    );
    write(
        root,
        "kernels/_vendor/triton_copy/jit.py",
        "def run(self, **kwargs):\n    for k in kwargs:\n        raise KeyError(\"Keyword argument %s was specified but unrecognised\" % k)\n",
    );
    write(
        root,
        "compat/retry.py",
        "def unrecognised(error):\n    return 'was specified but unrecognised' in str(error)\n\ndef timed_out(text):\n    return 'timed out after' in text\n\ndef bad_json(e):\n    return e.msg == 'Expecting value'\n",
    );
    write(
        root,
        "kernels/docs/faq.py",
        "ANSWER = 'Keyword argument %s was specified but unrecognised: the backend lacks the option'\n",
    );
    write(
        root,
        "kernels/jit.pyi",
        "def run(x): raise KeyError(\"Keyword argument %s was specified but unrecognised\" % x)\n",
    );
    dir
}

fn whence(args: &[&str], code: i32) -> Value {
    let output = lnkfix()
        .arg("whence")
        .args(args)
        .args(["--format", "json", "--limit", "50"])
        .assert_retrying()
        .code(code);
    serde_json::from_slice(&output.get_output().stdout).expect("whence --format json prints JSON")
}

fn paths(report: &Value) -> Vec<String> {
    report["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| format!("{}:{}", c["path"].as_str().unwrap(), c["line"]))
        .collect()
}

#[test]
fn triton_kwarg_finds_jit_py_above_the_decoys() {
    let decoys = decoys();
    let triton = triton().to_str().unwrap().to_string();
    let decoy_dir = decoys.path().to_str().unwrap().to_string();
    let report = whence(
        &[
            TRITON_MESSAGE,
            "--site-packages",
            &triton,
            "--site-packages",
            &decoy_dir,
        ],
        0,
    );
    assert_eq!(report["schema_version"], 1);
    assert_eq!(report["message"], TRITON_MESSAGE);
    assert_eq!(report["exception"], "KeyError");
    assert_eq!(report["searched"], serde_json::json!([triton, decoy_dir]));
    assert!(
        report["files_scanned"].as_u64().unwrap() >= 58,
        "{}",
        report["files_scanned"]
    );
    let found = paths(&report);
    let top = &report["candidates"][0];
    assert_eq!(found[0], "triton/runtime/jit.py:557", "{found:?}");
    assert_eq!(top["function"], "run");
    assert_eq!(top["class"], "JITFunction");
    assert_eq!(top["exception"], "KeyError");
    assert_eq!(top["raises"], "on-line");
    assert_eq!(top["location"], "source");
    assert_eq!(
        top["template"],
        "Keyword argument {} was specified but unrecognised"
    );
    assert_eq!(
        top["text"],
        "raise KeyError(\"Keyword argument %s was specified but unrecognised\" % k)"
    );
    // 48 of the 58 characters: all but the filled-in "launch_pdl".
    assert_eq!(top["explains"].as_f64().unwrap(), 0.828);
    assert!(Path::new(top["file"].as_str().unwrap()).is_file());
    for key in ["path", "line", "function", "text", "exception", "explains"] {
        assert!(top.get(key).is_some(), "candidate has no {key}");
    }
    // The decoys are found and ranked below: the other package, then the vendored copy, the
    // test that quotes the whole message, the documentation; the stub is never read.
    let rank = |path: &str| {
        found
            .iter()
            .position(|f| f.starts_with(path))
            .unwrap_or_else(|| panic!("{path} not in {found:?}"))
    };
    assert!(rank("compat/retry.py") > 0);
    assert!(rank("kernels/_vendor/triton_copy/jit.py") > rank("compat/retry.py"));
    assert!(rank("kernels/tests/test_launch.py") > rank("kernels/_vendor/triton_copy/jit.py"));
    assert!(rank("kernels/docs/faq.py") > rank("kernels/tests/test_launch.py"));
    assert!(!found.iter().any(|f| f.contains(".pyi")), "{found:?}");
    let test = &report["candidates"][rank("kernels/tests/test_launch.py")];
    assert_eq!(
        test["explains"].as_f64().unwrap(),
        1.0,
        "the test quotes all of it"
    );
    assert_eq!(test["location"], "tests");
}

#[test]
fn json_decode_error_finds_the_decoder_that_raises_it() {
    let decoys = decoys();
    let stdlib = stdlib().to_str().unwrap();
    let report = whence(
        &[
            JSON_MESSAGE,
            "--site-packages",
            stdlib,
            "--site-packages",
            decoys.path().to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(report["exception"], "JSONDecodeError");
    assert_eq!(report["module"], "json.decoder");
    let top = &report["candidates"][0];
    assert_eq!(top["path"], "json/decoder.py", "{:?}", paths(&report));
    assert_eq!(top["exception"], "JSONDecodeError");
    assert_eq!(top["raises"], "on-line");
    assert!(
        top["text"]
            .as_str()
            .unwrap()
            .starts_with("raise JSONDecodeError(\"Expecting value\""),
        "{}",
        top["text"]
    );
    // "Expecting value" raised here, the rest formatted by JSONDecodeError.__init__.
    let formatted_by = top["formatted_by"].as_str().unwrap();
    assert!(
        formatted_by.starts_with("json/decoder.py:"),
        "{formatted_by}"
    );
    assert!(
        top["explains"].as_f64().unwrap() > 0.9,
        "{}",
        top["explains"]
    );
    let evidence: Vec<&str> = top["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e.as_str().unwrap())
        .collect();
    for e in [
        "raises",
        "exception-type-matches",
        "module-matches",
        "completed-by-exception-class",
    ] {
        assert!(evidence.contains(&e), "{evidence:?}");
    }
    // The __init__ that formats the rest is a candidate too.
    let init = report["candidates"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["function"] == "__init__" && c["path"] == "json/decoder.py")
        .expect("JSONDecodeError.__init__ is a candidate");
    assert_eq!(init["class"], "JSONDecodeError");
    assert_eq!(init["raises"], "in-exception-class");
    assert_eq!(init["template"], "{}: line {} column {} (char {})");
    // The decoy comparing the text ranks below every raiser in the decoder.
    let found = paths(&report);
    let decoy = found
        .iter()
        .position(|f| f.starts_with("compat/retry.py"))
        .expect("the decoy is found");
    let last_decoder = found
        .iter()
        .rposition(|f| f.starts_with("json/decoder.py"))
        .unwrap();
    assert!(decoy > last_decoder, "{found:?}");
}

#[test]
fn timeout_expired_is_built_in_str() {
    let decoys = decoys();
    let stdlib = stdlib().to_str().unwrap();
    let report = whence(
        &[
            TIMEOUT_MESSAGE,
            "--site-packages",
            stdlib,
            "--site-packages",
            decoys.path().to_str().unwrap(),
        ],
        0,
    );
    let top = &report["candidates"][0];
    assert_eq!(top["path"], "subprocess.py", "{:?}", paths(&report));
    assert_eq!(top["function"], "__str__");
    assert_eq!(top["class"], "TimeoutExpired");
    assert_eq!(top["exception"], "TimeoutExpired");
    assert_eq!(top["raises"], "in-exception-class");
    assert_eq!(top["template"], "Command '{}' timed out after {} seconds");
    let found = paths(&report);
    assert!(
        found.iter().any(|f| f.starts_with("compat/retry.py")),
        "{found:?}"
    );
    assert!(
        found.iter().any(|f| f.starts_with("kernels/tests/")),
        "{found:?}"
    );
}

#[cfg(not(windows))] // asks python3, which Wine has not
#[test]
fn python_on_path_is_asked_through_sysconfig() {
    let report = whence(&[TIMEOUT_MESSAGE, "--python", "python3"], 0);
    let searched: Vec<&str> = report["searched"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert!(
        searched.contains(&stdlib().to_str().unwrap()),
        "{searched:?}"
    );
    let kinds = report["searched_kinds"].as_array().unwrap();
    assert!(
        kinds.iter().any(|k| k == "stdlib") && kinds.iter().any(|k| k == "purelib"),
        "{kinds:?}"
    );
    assert!(report["searched_from"]
        .as_str()
        .unwrap()
        .contains("--python python3"));
    assert_eq!(report["candidates"][0]["path"], "subprocess.py");
    // With no option: python3 on PATH.
    let report = whence(&[TIMEOUT_MESSAGE], 0);
    assert!(
        report["searched_from"]
            .as_str()
            .unwrap()
            .contains("on PATH"),
        "{}",
        report["searched_from"]
    );
    assert_eq!(report["candidates"][0]["path"], "subprocess.py");
}

#[test]
fn text_report_names_the_raiser() {
    let output = lnkfix()
        .args([
            "whence",
            TRITON_MESSAGE,
            "--site-packages",
            triton().to_str().unwrap(),
        ])
        .assert_retrying()
        .code(0);
    let text = String::from_utf8(output.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("1. triton/runtime/jit.py:557 in run (class JITFunction)"),
        "{text}"
    );
    assert!(
        text.contains(
            "explains 83% of the message: Keyword argument {} was specified but unrecognised"
        ),
        "{text}"
    );
    assert!(
        text.contains("raises KeyError there; the message's type (KeyError)"),
        "{text}"
    );
    assert!(
        !text.contains('\x1b'),
        "no colour when stdout is not a terminal"
    );
}

#[test]
fn triage_attaches_raisers_to_runtime_evidence() {
    let log = common::root().join("tests/triage/runtime_triton_kwarg.log");
    let triton_dir = triton().to_str().unwrap().to_string();
    let output = lnkfix()
        .args([
            "triage",
            log.to_str().unwrap(),
            "--format",
            "json",
            "--site-packages",
            &triton_dir,
        ])
        .assert_retrying()
        .code(1);
    let report: Value = serde_json::from_slice(&output.get_output().stdout).unwrap();
    assert_eq!(report["stage"], "runtime");
    assert_eq!(report["rule"], "triton-unrecognised-kwarg");
    let evidence = report["evidence"].as_array().unwrap();
    let keyerror = evidence
        .iter()
        .find(|e| e["text"].as_str().unwrap().starts_with("KeyError:"))
        .expect("the KeyError line is evidence");
    let raisers = keyerror["raisers"]
        .as_array()
        .expect("raisers on the KeyError line");
    assert_eq!(raisers[0]["path"], "triton/runtime/jit.py");
    assert_eq!(raisers[0]["line"], 557);
    assert_eq!(raisers[0]["function"], "run");
    assert_eq!(raisers[0]["exception"], "KeyError");
    // A traceback frame is a location, not a message: nothing is looked up for it.
    let frame = evidence
        .iter()
        .find(|e| e["text"].as_str().unwrap().contains("File \""))
        .expect("the jit.py frame is context evidence");
    assert!(frame.get("raisers").is_none(), "{frame}");
    // The fix names the files on disk: the backend's Options class to change, and the raiser.
    let fix = report["fix"].as_str().unwrap();
    let compiler = triton()
        .join("triton")
        .join("backends")
        .join("amd")
        .join("compiler.py");
    assert!(fix.contains(&compiler.display().to_string()), "{fix}");
    assert!(
        fix.contains("the KeyError is raised at triton/runtime/jit.py:557 in run"),
        "{fix}"
    );

    // The text report shows the raiser under its line.
    let output = lnkfix()
        .args([
            "triage",
            log.to_str().unwrap(),
            "--site-packages",
            &triton_dir,
        ])
        .assert_retrying()
        .code(1);
    let text = String::from_utf8(output.get_output().stdout.clone()).unwrap();
    assert!(
        text.contains("raised at triton/runtime/jit.py:557 in run"),
        "{text}"
    );

    // Without the option nothing is looked up, and the JSON has no raisers.
    let output = lnkfix()
        .args(["triage", log.to_str().unwrap(), "--format", "json"])
        .assert_retrying()
        .code(1);
    let plain: Value = serde_json::from_slice(&output.get_output().stdout).unwrap();
    assert!(plain["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e.get("raisers").is_none()));
    assert!(!plain["fix"].as_str().unwrap().contains("raised at"));
}

#[test]
fn triage_leaves_other_stages_alone() {
    let log = common::root().join("tests/triage/compile_fpic.log");
    let triton = triton().to_str().unwrap().to_string();
    let output = lnkfix()
        .args([
            "triage",
            log.to_str().unwrap(),
            "--format",
            "json",
            "--site-packages",
            &triton,
        ])
        .assert_retrying()
        .code(1);
    let report: Value = serde_json::from_slice(&output.get_output().stdout).unwrap();
    assert_eq!(report["stage"], "compile");
    assert!(report["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .all(|e| e.get("raisers").is_none()));
    // A missing directory is an error, as for whence.
    lnkfix()
        .args([
            "triage",
            log.to_str().unwrap(),
            "--site-packages",
            "/no/such/dir",
        ])
        .assert_retrying()
        .code(2);
}

#[test]
fn the_walk_skips_what_python_does_not_run() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let line = "raise ValueError(\"the quantum flux capacitor %s is misaligned\" % name)\n";
    write(root, "pkg/real.py", line);
    write(root, "pkg/__pycache__/cached.py", line);
    write(root, "pkg/stub.pyi", line);
    write(root, "pkg/gui.pyw", line);
    write(root, "pkg/notes.txt", line);
    // Over the size bound, and a file with a NUL: skipped and counted.
    let mut big = line.repeat(1 + (9 << 20) / line.len());
    big.push('\n');
    write(root, "pkg/generated.py", &big);
    write(root, "pkg/binary.py", &format!("\0{line}"));
    let report = whence(
        &[
            "ValueError: the quantum flux capacitor main is misaligned",
            "--site-packages",
            root.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(paths(&report), ["pkg/gui.pyw:1", "pkg/real.py:1"]);
    assert_eq!(report["files_scanned"], 2);
    assert_eq!(report["files_skipped"], 2);
    // 41 of the 45 characters: all but "main".
    assert_eq!(report["candidates"][0]["explains"], 0.911);
}

#[cfg(unix)] // symbolic links
#[test]
fn links_are_followed_once_and_bad_ones_are_warnings() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    write(
        root,
        "pkg/mod.py",
        "raise OSError(\"the reticulated spline %d broke\" % n)\n",
    );
    std::os::unix::fs::symlink(root.join("pkg"), root.join("pkg").join("loop")).unwrap();
    std::os::unix::fs::symlink(root.join("pkg"), root.join("alias")).unwrap();
    std::os::unix::fs::symlink(
        root.join("nowhere.py"),
        root.join("pkg").join("dangling.py"),
    )
    .unwrap();
    let report = whence(
        &[
            "OSError: the reticulated spline 3 broke",
            "--site-packages",
            root.to_str().unwrap(),
        ],
        0,
    );
    // The same file through a link is one candidate.
    assert_eq!(report["candidates_total"], 1, "{:?}", paths(&report));
    let warnings: Vec<&str> = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap())
        .collect();
    assert!(warnings.iter().any(|w| w.contains("loop")), "{warnings:?}");
    assert!(
        warnings.iter().any(|w| w.contains("dangling.py")),
        "{warnings:?}"
    );
}

#[test]
fn bad_sources_are_errors_and_values_alone_find_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir");
    let output = lnkfix()
        .args([
            "whence",
            "KeyError: 'x y z'",
            "--site-packages",
            missing.to_str().unwrap(),
        ])
        .assert_retrying()
        .code(2);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    assert!(
        stderr.contains(missing.to_str().unwrap()) && stderr.contains("not a directory"),
        "{stderr}"
    );
    let exe = dir.path().join("no-such-python");
    let output = lnkfix()
        .args([
            "whence",
            "KeyError: 'x y z'",
            "--python",
            exe.to_str().unwrap(),
        ])
        .assert_retrying()
        .code(2);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    assert!(
        stderr.contains("no-such-python") && stderr.contains("cannot run"),
        "{stderr}"
    );
    // A bare KeyError of a dict lookup: only a value, no text to look for.
    let report = whence(
        &[
            "KeyError: 'launch_pdl'",
            "--site-packages",
            dir.path().to_str().unwrap(),
        ],
        1,
    );
    assert_eq!(report["prefilter"], serde_json::json!([]));
    assert_eq!(report["candidates"], serde_json::json!([]));
    // Words no file holds: searched, nothing found.
    write(dir.path(), "pkg/a.py", "x = 1\n");
    let report = whence(
        &[
            "RuntimeError: nothing anywhere says this",
            "--site-packages",
            dir.path().to_str().unwrap(),
        ],
        1,
    );
    assert_eq!(report["files_scanned"], 1);
    assert_eq!(report["candidates_total"], 0);
}

#[test]
fn a_placeholder_inside_every_run_needs_the_second_pass() {
    let dir = tempfile::tempdir().unwrap();
    write(
        dir.path(),
        "devices/check.py",
        "def check(t, want):\n    if t.device != want:\n        raise RuntimeError(f\"Expected {want} tensor but got {t.device} tensor\")\n",
    );
    let report = whence(
        &[
            "RuntimeError: Expected cuda tensor but got cpu tensor",
            "--site-packages",
            dir.path().to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(report["passes"], 2);
    assert_eq!(paths(&report), ["devices/check.py:3"]);
    assert_eq!(
        report["candidates"][0]["template"],
        "Expected {} tensor but got {} tensor"
    );
}

/// A `.py` file whose name is not UTF-8: `whence` and `triage` report it in JSON and text with
/// those bytes as `\xNN` (never U+FFFD, never a failed report).
#[cfg(unix)]
#[test]
fn a_source_whose_name_is_not_utf8_is_shown_with_its_bytes_escaped() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    let package = root.join("kernels");
    std::fs::create_dir_all(&package).unwrap();
    std::fs::write(
        package.join(std::ffi::OsStr::from_bytes(b"jit-\xff.py")),
        "def run(self, **kwargs):\n    for k in kwargs:\n        raise KeyError(\"Keyword argument %s was specified but unrecognised\" % k)\n",
    )
    .unwrap();
    let site = root.to_str().unwrap();
    let file = format!("{site}/kernels/jit-\\xff.py");
    let report = whence(&[TRITON_MESSAGE, "--site-packages", site], 0);
    assert_eq!(paths(&report), ["kernels/jit-\\xff.py:3"]);
    assert_eq!(report["candidates"][0]["file"], file.as_str());
    let output = lnkfix()
        .args(["whence", TRITON_MESSAGE, "--site-packages", site])
        .assert_retrying()
        .code(0);
    let text = String::from_utf8(output.get_output().stdout.clone()).unwrap();
    assert!(text.contains("1. kernels/jit-\\xff.py:3 in run"), "{text}");
    assert!(text.contains(&file) && !text.contains('\u{fffd}'), "{text}");

    let log = common::root().join("tests/triage/runtime_triton_kwarg.log");
    let output = lnkfix()
        .args(["triage", log.to_str().unwrap(), "--format", "json"])
        .args(["--site-packages", site])
        .assert_retrying()
        .code(1);
    let report: Value = serde_json::from_slice(&output.get_output().stdout).unwrap();
    let raisers = report["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .find_map(|e| e.get("raisers"))
        .expect("raisers on the KeyError line");
    assert_eq!(raisers[0]["path"], "kernels/jit-\\xff.py");
    assert_eq!(raisers[0]["file"], file.as_str());
}

/// A fake interpreter (a shell script) that answers the query for `site` and leaves a process
/// behind that keeps its output open: `started` is the shell line that starts it.
#[cfg(unix)]
fn fake_python(dir: &Path, site: &Path, started: &str) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let site = site.to_str().unwrap();
    let script = dir.join("python3");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\n{started}\necho '{{\"purelib\": \"{site}\", \"platlib\": \"{site}\", \"stdlib\": \"{site}\", \"site\": [], \"executable\": \"fake\", \"version\": \"3.0\"}}'\n"
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    script
}

/// `--python` whose output stays open after it answered: a child it left in its process group
/// is ended with it (the child never gets to write its marker), and one in a session of its own
/// cannot hold lnkfix past the time limit.
#[cfg(unix)]
#[test]
fn an_interpreter_whose_output_stays_open_does_not_hold_whence() {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    let site = root.join("site");
    write(
        &site,
        "pkg/mod.py",
        "raise OSError(\"the reticulated spline %d broke\" % n)\n",
    );
    let marker = root.join("child-finished");
    let python = fake_python(
        &root,
        &site,
        &format!("( sleep 40; touch '{}' ) &", marker.display()),
    );
    let report = whence(
        &[
            "OSError: the reticulated spline 3 broke",
            "--python",
            python.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(paths(&report), ["pkg/mod.py:1"]);
    // Ended with the interpreter's group, not waited for.
    std::thread::sleep(std::time::Duration::from_secs(1));
    assert!(!marker.exists());

    // In a session of its own (the interpreter answers only once it is there) it is out of
    // reach: lnkfix gives up at the time limit (30 s).
    let pid_file = root.join("session-child.pid");
    let python = fake_python(
        &root,
        &site,
        &format!(
            "setsid sh -c 'echo $$ > {pid}; sleep 90; touch {}' &\nwhile [ ! -s {pid} ]; do sleep 0.05; done",
            marker.display(),
            pid = pid_file.display(),
        ),
    );
    let output = lnkfix()
        .args([
            "whence",
            "OSError: the reticulated spline 3 broke",
            "--python",
        ])
        .arg(&python)
        .assert_retrying()
        .code(2);
    let stderr = String::from_utf8_lossy(&output.get_output().stderr).into_owned();
    if let Ok(pid) = std::fs::read_to_string(&pid_file) {
        let _ = std::process::Command::new("kill").arg(pid.trim()).status();
    }
    assert!(stderr.contains("did not answer within 30 s"), "{stderr}");
    assert!(!marker.exists());
}

/// Directories that each link twice to the next, inside the searched directory and outside it:
/// every directory is entered once, not 2^16 times.
#[cfg(unix)]
#[test]
fn a_symlink_dag_is_walked_once() {
    let dir = tempfile::tempdir().unwrap();
    let root = dunce::canonicalize(dir.path()).unwrap();
    let chain = |base: &Path| {
        for level in 0..=16 {
            std::fs::create_dir_all(base.join(format!("d{level}"))).unwrap();
        }
        for level in 0..16 {
            for link in ["a", "b"] {
                std::os::unix::fs::symlink(
                    format!("../d{}", level + 1),
                    base.join(format!("d{level}")).join(link),
                )
                .unwrap();
            }
        }
        write(
            base,
            "d16/mod.py",
            "raise OSError(\"the reticulated spline %d broke\" % n)\n",
        );
    };
    let inside = root.join("inside");
    chain(&inside);
    let report = whence(
        &[
            "OSError: the reticulated spline 3 broke",
            "--site-packages",
            inside.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(report["files_scanned"], 1);
    assert_eq!(paths(&report), ["d16/mod.py:1"]);

    let outside = root.join("outside");
    chain(&outside);
    let site = root.join("site");
    std::fs::create_dir_all(&site).unwrap();
    std::os::unix::fs::symlink(outside.join("d0"), site.join("ext")).unwrap();
    let report = whence(
        &[
            "OSError: the reticulated spline 3 broke",
            "--site-packages",
            site.to_str().unwrap(),
        ],
        0,
    );
    assert_eq!(report["files_scanned"], 1);
    assert_eq!(report["candidates_total"], 1);
}
