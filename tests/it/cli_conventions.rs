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
    assert_eq!(symbols.len(), 45);
    // A step shows ten errors: the first ten symbols, then one notice for the other 35.
    assert_eq!(errors.len(), 10, "{text}");
    let last = text.lines().last().unwrap();
    assert!(
        last.starts_with(
            "::notice file=examples/tvm-ffi-hip-lld-link.log,title=35 more findings::"
        ) && last.contains("--format json"),
        "{last}"
    );
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
#[cfg(not(windows))] // the validator needs python3 with pip, which Wine has not
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
    // Logs whose names a URI must escape: a Windows drive path, a name that would read as a
    // scheme, the characters RFC 3986 leaves out, letters beyond ASCII, an absolute path.
    let log = std::fs::read(common::root().join("examples/tvm-ffi-hip-lld-link.log")).unwrap();
    let absolute = dir.path().join("abs olute.log");
    for (name, uri) in [
        (
            "C:\\build.log".to_owned(),
            "file:///C:/build.log".to_owned(),
        ),
        ("a:b.log".to_owned(), "a%3Ab.log".to_owned()),
        (
            "[]{}|^`<>\"é.log".to_owned(),
            "%5B%5D%7B%7D%7C%5E%60%3C%3E%22%C3%A9.log".to_owned(),
        ),
        (
            absolute.display().to_string(),
            format!("file://{}/abs%20olute.log", dir.path().display()),
        ),
    ] {
        std::fs::write(dir.path().join(&name), &log).unwrap();
        let output = Command::new(env!("CARGO_BIN_EXE_lnkfix"))
            .current_dir(dir.path())
            .args(["diagnose", &name, "--format", "sarif"])
            .env_remove("LIB")
            .output_retrying()
            .unwrap();
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
        let location = &json["runs"][0]["results"][0]["locations"][0]["physicalLocation"];
        assert_eq!(location["artifactLocation"]["uri"], uri.as_str(), "{name}");
        let path = dir.path().join(format!("named{}.sarif", files.len()));
        std::fs::write(&path, &output.stdout).unwrap();
        files.push(path);
    }
    // With --verify, the verdict is an invocation's property and the first result: here no
    // linker is on PATH, so no link runs, and the run exits 4.
    let empty = dir.path().join("empty-path");
    std::fs::create_dir_all(&empty).unwrap();
    let example = common::root().join("examples/tvm-ffi-hip-lld-link.log");
    let verify = lnkfix_in(
        dir.path(),
        &[
            "diagnose".to_owned(),
            example.display().to_string(),
            "--verify".to_owned(),
            "--format".to_owned(),
            "sarif".to_owned(),
        ],
    )
    .env("PATH", &empty)
    .output_retrying()
    .unwrap();
    assert_eq!(verify.status.code(), Some(4));
    let json: serde_json::Value = serde_json::from_slice(&verify.stdout).unwrap();
    let run = &json["runs"][0];
    let verdict = &run["invocations"][0]["properties"]["verification"];
    assert_eq!(verdict["verified"], false, "{verdict}");
    assert_eq!(verdict["rounds"], 0, "{verdict}");
    assert_eq!(run["results"][0]["ruleId"], "verification");
    assert_eq!(run["results"][0]["level"], "error");
    let path = dir.path().join("verify.sarif");
    std::fs::write(&path, &verify.stdout).unwrap();
    files.push(path);
    // The validator must be able to say no: broken copies are refused, by the schema's structure
    // and by its formats (a URI with a space and brackets, a time that is no RFC 3339 time).
    let original: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&files[0]).unwrap()).unwrap();
    let mut level = original.clone();
    level["runs"][0]["results"][0]["level"] = "fatal".into();
    let mut uri = original.clone();
    uri["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] =
        "my build[1].log".into();
    let mut time = original.clone();
    time["runs"][0]["invocations"] =
        serde_json::json!([{"executionSuccessful": true, "startTimeUtc": "yesterday"}]);
    for (name, broken) in [("level", level), ("uri", uri), ("time", time)] {
        let path = dir.path().join(format!("broken-{name}.sarif"));
        std::fs::write(&path, broken.to_string()).unwrap();
        assert!(
            !validate(&[path.as_path()]),
            "the schema check accepts a broken {name}"
        );
    }
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
        "validate_sarif.sh could not run ({status}): it needs python3 with pip and the network"
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

/// Inputs for every command, written into `dir`, large enough that the reports of `diagnose`,
/// `triage`, `index --list` and `whence` fill a pipe many times over: a log of 3,000 unresolved
/// symbols, a `.def` library of 5,000 exports, 3,000 Python functions raising one message, and a
/// cut-down `extension.py` for `patch`.
fn write_big_inputs(dir: &Path) {
    use std::fmt::Write as _;
    let name = |i: usize| format!("big_function_number_{i:05}_{}", "x".repeat(40));
    let mut log = String::from("[2/2] lld-link app.obj /DLL /out:big.dll\nFAILED: big.dll\n");
    for i in 0..3000 {
        let _ = write!(
            log,
            "lld-link: error: undefined symbol: {}\n>>> referenced by C:\\src\\app.cpp:{}\n\
             >>>               obj/app.obj:(caller_{i})\n\n",
            name(i),
            i + 1
        );
    }
    std::fs::write(dir.join("big.log"), log).unwrap();
    let mut def = String::from("LIBRARY big.dll\nEXPORTS\n");
    for i in 0..5000 {
        let _ = writeln!(def, "{}", name(i));
    }
    std::fs::create_dir_all(dir.join("libs")).unwrap();
    std::fs::write(dir.join("libs/big.def"), def).unwrap();
    let mut python = String::new();
    for i in 0..3000 {
        let _ = write!(
            python,
            "def f{i}(x):\n    raise KeyError(f\"no such kernel: {{x}}\")\n"
        );
    }
    std::fs::create_dir_all(dir.join("site")).unwrap();
    std::fs::write(dir.join("site/kernels.py"), python).unwrap();
    std::fs::create_dir_all(dir.join("tvm_ffi/cpp")).unwrap();
    std::fs::write(
        dir.join("tvm_ffi/cpp/extension.py"),
        crate::patch_common::EXTENSION_PY,
    )
    .unwrap();
}

/// Every command that writes to stdout, in every format it has, run in the directory of
/// [`write_big_inputs`].
fn every_command_and_format() -> Vec<Vec<String>> {
    let mut runs: Vec<Vec<&str>> = Vec::new();
    for format in ["text", "json", "github", "sarif"] {
        runs.push(vec![
            "diagnose",
            "big.log",
            "--lib-dir",
            "libs",
            "--no-cache",
            "--format",
            format,
        ]);
        runs.push(vec!["triage", "big.log", "--format", format]);
    }
    for format in ["text", "json"] {
        runs.push(vec![
            "index",
            "--list",
            "libs",
            "--no-cache",
            "--format",
            format,
        ]);
        runs.push(vec!["index", "libs", "--no-cache", "--format", format]);
        runs.push(vec!["explain", "hipMalloc", "--format", format]);
        runs.push(vec!["doctor", "--format", format]);
        runs.push(vec![
            "zombies",
            "--no-default-names",
            "libs",
            "--format",
            format,
        ]);
        runs.push(vec![
            "whence",
            "KeyError: 'no such kernel: abc'",
            "--site-packages",
            "site",
            "--limit",
            "10000",
            "--format",
            format,
        ]);
    }
    runs.push(vec![
        "patch",
        "--from",
        "big.log",
        "--lib-dir",
        "libs",
        "tvm_ffi/cpp/extension.py",
    ]);
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        runs.push(vec!["completions", shell]);
    }
    runs.push(vec!["man"]);
    runs.push(vec!["--help"]);
    runs.push(vec!["diagnose", "--help"]);
    runs.into_iter()
        .map(|args| args.into_iter().map(str::to_owned).collect())
        .collect()
}

/// lnkfix in `dir` with `args`, no link environment, caches under `dir`.
fn lnkfix_in(dir: &Path, args: &[String]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_lnkfix"));
    command
        .current_dir(dir)
        .args(args)
        .env_remove("LIB")
        .env_remove("HIP_PATH")
        .env_remove("VCToolsInstallDir")
        .env_remove("WindowsSdkDir")
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("LOCALAPPDATA", dir.join("cache"))
        .env("NO_COLOR", "1");
    command
}

/// Runs lnkfix with stdout into a pipe whose reader takes `read` bytes and then closes it while
/// lnkfix still writes; with `read` 0, a pipe whose reader is closed before lnkfix starts (so the
/// first write fails however fast lnkfix is). Returns the exit status and what lnkfix wrote on
/// stderr.
fn closed_early(mut command: Command, read: usize) -> (std::process::ExitStatus, String) {
    use common::SpawnRetrying;
    use std::io::Read;
    use std::process::Stdio;
    command.stdin(Stdio::null()).stderr(Stdio::piped());
    let output = if read == 0 {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        command.stdout(writer).output_retrying().unwrap()
    } else {
        let mut child = command
            .stdout(Stdio::piped())
            .spawn_retrying()
            .expect("start lnkfix");
        let mut stdout = child.stdout.take().unwrap();
        let mut taken = vec![0; read];
        stdout.read_exact(&mut taken).unwrap();
        drop(stdout);
        child.wait_with_output().unwrap()
    };
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// A reader that goes away (`| head`) ends every command quietly with success, as ripgrep and fd
/// do: exit 0, nothing more on stderr than a complete run writes (nothing at all but `patch`'s
/// notes). Where the whole output is over 1 MiB, the reader takes 16 bytes first, so lnkfix is
/// surely still writing when the pipe closes; smaller outputs go to a pipe closed before lnkfix
/// starts.
#[test]
fn a_closed_pipe_ends_every_command_quietly_with_success() {
    let dir = tempfile::tempdir().unwrap();
    write_big_inputs(dir.path());
    let mut large = Vec::new();
    let mut failures = Vec::new();
    for args in every_command_and_format() {
        let complete = lnkfix_in(dir.path(), &args).output_retrying().unwrap();
        let size = complete.stdout.len();
        assert!(size > 0, "{args:?} writes nothing");
        let want_stderr = String::from_utf8_lossy(&complete.stderr).into_owned();
        assert!(
            want_stderr.is_empty() || args[0] == "patch",
            "{args:?} writes on stderr: {want_stderr}"
        );
        let read = if size > 1 << 20 { 16 } else { 0 };
        if read > 0 {
            large.push(args.join(" "));
        }
        let (status, stderr) = closed_early(lnkfix_in(dir.path(), &args), read);
        if status.code() != Some(0) || stderr != want_stderr {
            failures.push(format!("{args:?}: {status}, stderr {stderr:?}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // `2>&1 | head`: the warning `explain` writes after its report goes to the same closed pipe.
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    let args = ["explain", "hipMalloc", "--lib-dir", "nothing-here"].map(str::to_owned);
    let status = {
        use common::SpawnRetrying;
        lnkfix_in(dir.path(), &args)
            .stdout(writer.try_clone().unwrap())
            .stderr(writer)
            .status_retrying()
            .unwrap()
    };
    assert_eq!(status.code(), Some(0), "{args:?} with stderr closed too");
    for command in ["diagnose", "triage", "index --list", "whence"] {
        assert!(
            large.iter().any(|run| run.starts_with(command)),
            "no output of {command} is over 1 MiB: {large:?}"
        );
    }
}

/// Every JSON document lnkfix writes says its `schema_version`: each command's `--format json`,
/// the `index` summary and `--list` included.
#[test]
fn every_json_document_has_a_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    write_big_inputs(dir.path());
    let mut commands = Vec::new();
    for args in every_command_and_format() {
        if !args
            .windows(2)
            .any(|w| w[0] == "--format" && w[1] == "json")
        {
            continue;
        }
        let output = lnkfix_in(dir.path(), &args).output_retrying().unwrap();
        let json: serde_json::Value = serde_json::from_slice(&output.stdout)
            .unwrap_or_else(|e| panic!("{args:?}: not JSON: {e}"));
        assert_eq!(json["schema_version"], 1, "{args:?}");
        commands.push(args[0].clone());
    }
    commands.dedup();
    assert_eq!(
        commands,
        ["diagnose", "triage", "index", "explain", "doctor", "zombies", "whence"]
    );
}

/// A rule file of a `schema_version` this lnkfix does not read is refused, naming the file and
/// the version it reads, by every command that takes `--rules`.
#[test]
fn a_rule_file_of_an_unknown_schema_version_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    write_big_inputs(dir.path());
    let rules = r#"{"schema_version": 99, "rules": []}"#;
    let rows = r#"{"schema_version": 99, "rows": []}"#;
    std::fs::write(dir.path().join("future-rules.json"), rules).unwrap();
    std::fs::write(dir.path().join("future-rows.json"), rows).unwrap();
    for args in [
        vec!["diagnose", "big.log", "--rules", "future-rules.json"],
        vec!["explain", "hipMalloc", "--rules", "future-rules.json"],
        vec!["triage", "big.log", "--rules", "future-rules.json"],
        vec!["triage", "big.log", "--rules", "future-rows.json"],
    ] {
        let args: Vec<String> = args.into_iter().map(str::to_owned).collect();
        let output = lnkfix_in(dir.path(), &args).output_retrying().unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(
            stderr.contains(&format!(
                "{}: rule file schema_version 99 is not one this lnkfix understands (it reads 1)",
                args[3]
            )),
            "{args:?}: {stderr}"
        );
    }
}
