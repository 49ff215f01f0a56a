//! The binary's wiring: arguments, stdin, exit codes (0 nothing unresolved, 1 unresolved found,
//! 2 usage error or unreadable input), colour rules and the JSON contract.

use crate::common;

use assert_cmd::Command;
use common::AssertRetrying;

fn lnkfix() -> Command {
    let mut cmd = Command::cargo_bin("lnkfix").unwrap();
    cmd.env_remove("NO_COLOR");
    cmd
}

const LOG: &str = "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\r\n\
main.obj : error LNK2019: unresolved external symbol \"void __cdecl operator delete(void *,unsigned __int64)\" (??3@YAXPEAX_K@Z) referenced in function main\r\n\
out.dll : fatal error LNK1120: 2 unresolved externals\r\n";

#[test]
fn exit_codes() {
    lnkfix()
        .args(["diagnose", "-"])
        .write_stdin(LOG)
        .assert_retrying()
        .code(1);
    lnkfix()
        .args(["diagnose", "-"])
        .write_stdin("all good\n")
        .assert_retrying()
        .code(0);
    let out = lnkfix()
        .args(["diagnose", "/no/such/log"])
        .assert_retrying()
        .code(2);
    let stderr = String::from_utf8(out.get_output().stderr.clone()).unwrap();
    assert!(
        stderr.contains("/no/such/log") && stderr.contains("cannot read"),
        "{stderr}"
    );
    lnkfix().args(["diagnose"]).assert_retrying().code(2);
    lnkfix()
        .args(["diagnose", "-", "--crt", "sometimes"])
        .write_stdin(LOG)
        .assert_retrying()
        .code(2);
    let dir = tempfile::tempdir().unwrap();
    lnkfix()
        .arg("diagnose")
        .arg(dir.path())
        .assert_retrying()
        .code(2);
    lnkfix().arg("--help").assert_retrying().code(0);
}

#[test]
fn json_contract() {
    let out = lnkfix()
        .args(["diagnose", "--format", "json", "-"])
        .write_stdin(LOG)
        .assert_retrying()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["schema_version"], 1);
    for key in [
        "symbols",
        "crt",
        "verdict",
        "link_flags",
        "findings",
        "warnings",
    ] {
        assert!(json.get(key).is_some(), "missing {key}");
    }
    for key in ["flavour", "evidence"] {
        assert!(json["crt"].get(key).is_some(), "missing crt.{key}");
    }
    let symbols = json["symbols"].as_array().unwrap();
    assert_eq!(symbols.len(), 2);
    for key in [
        "name",
        "display",
        "demangled",
        "import",
        "references",
        "family",
        "library",
        "library_path",
        "provider",
    ] {
        assert!(symbols[0].get(key).is_some(), "missing symbols[].{key}");
    }
    assert_eq!(symbols[0]["name"], "hipMalloc");
    assert_eq!(symbols[0]["library"], "amdhip64.lib");
    assert_eq!(symbols[0]["provider"], "rule");
    assert_eq!(symbols[0]["references"][0]["object"], "main.obj");
    assert_eq!(symbols[0]["references"][0]["function"], "main");
    assert_eq!(symbols[1]["name"], "??3@YAXPEAX_K@Z");
    assert!(symbols[1]["demangled"]
        .as_str()
        .unwrap()
        .contains("operator delete"));
    assert_eq!(json["link_flags"][0], "amdhip64.lib");
}

#[test]
fn colour_only_when_asked_and_never_with_no_color() {
    let plain = lnkfix()
        .args(["diagnose", "-"])
        .write_stdin(LOG)
        .assert_retrying()
        .code(1);
    assert!(
        !plain.get_output().stdout.contains(&0x1b),
        "piped output has no escapes"
    );
    let forced = lnkfix()
        .args(["diagnose", "--color", "always", "-"])
        .write_stdin(LOG)
        .assert_retrying()
        .code(1);
    assert!(forced.get_output().stdout.contains(&0x1b));
    let no_color = lnkfix()
        .env("NO_COLOR", "1")
        .args(["diagnose", "-"])
        .write_stdin(LOG)
        .assert_retrying()
        .code(1);
    assert!(!no_color.get_output().stdout.contains(&0x1b));
}

#[test]
fn utf16_file_written_by_powershell() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("link.log");
    let mut bytes = vec![0xFF, 0xFE];
    for unit in LOG.encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    std::fs::write(&path, bytes).unwrap();
    let out = lnkfix()
        .args(["diagnose", "--format", "json"])
        .arg(&path)
        .assert_retrying()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["symbols"].as_array().unwrap().len(), 2);
    assert_eq!(json["stats"]["encoding"], "utf16-le-bom");
}

#[test]
fn bundled_example_runs() {
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/tvm-ffi-hip-lld-link.log"
    );
    let out = lnkfix()
        .args(["diagnose", example])
        .assert_retrying()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(text.contains("amdhip64.lib"), "{text}");
    assert!(text.contains("default-library chain absent"), "{text}");
}

#[test]
fn user_rules_file() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("rules.json");
    std::fs::write(&rules, r#"{"schema_version":1,"families":{"kvstore":{"description":"A key-value store","crt":false,"libraries":{"static":"kvstore.lib","dynamic":"kvstore.lib","static-debug":"kvstore.lib","dynamic-debug":"kvstore.lib"}}},"rules":[{"id":"kv","match":{"prefix":["kvstore_"]},"family":"kvstore"}]}"#).unwrap();
    // A project's own C API, unresolved in its test program (MSBuild's suffix on every line).
    let log = dir.path().join("kv_test.log");
    std::fs::write(
        &log,
        "kv_test.obj : error LNK2019: unresolved external symbol kvstore_open referenced in function main [C:\\src\\kv\\build\\kv_test.vcxproj]\r\n\
         kv_test.obj : error LNK2019: unresolved external symbol kvstore_close referenced in function main [C:\\src\\kv\\build\\kv_test.vcxproj]\r\n\
         C:\\src\\kv\\build\\Debug\\kv_test.exe : fatal error LNK1120: 2 unresolved externals [C:\\src\\kv\\build\\kv_test.vcxproj]\r\n",
    )
    .unwrap();
    let out = lnkfix()
        .args(["diagnose", "--format", "json", "--rules"])
        .arg(&rules)
        .arg(&log)
        .assert_retrying()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    assert_eq!(json["link_flags"], serde_json::json!(["kvstore.lib"]));
    std::fs::write(&rules, "not json").unwrap();
    let out = lnkfix()
        .args(["diagnose", "--rules"])
        .arg(&rules)
        .arg("-")
        .write_stdin(LOG)
        .assert_retrying()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("rules.json"));
}

const EXTENSION_PY: &str = "import os\n\nIS_WINDOWS = os.name == \"nt\"\n\n\ndef _windows_argument(x):\n    return x\n\n\ndef _generate_ninja_build(name, with_cuda=False, with_hip=False):\n    if IS_WINDOWS:\n        default_ldflags = [\"/DLL\"]\n    else:\n        default_ldflags = [\"-shared\"]\n    return default_ldflags\n";

#[test]
fn patch_diff_apply_and_idempotence() {
    let dir = tempfile::tempdir().unwrap();
    let ext = dir.path().join("extension.py");
    std::fs::write(&ext, EXTENSION_PY).unwrap();
    let example = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/tvm-ffi-hip-lld-link.log"
    );
    let out = lnkfix()
        .arg("patch")
        .arg(&ext)
        .args(["--from", example])
        .assert_retrying()
        .code(0);
    let diff = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    assert!(
        diff.contains("+                \"amdhip64.lib\","),
        "{diff}"
    );
    assert!(diff.contains("\"msvcrt.lib\""), "the /MD chain: {diff}");
    assert_eq!(
        std::fs::read_to_string(&ext).unwrap(),
        EXTENSION_PY,
        "no --apply: file untouched"
    );

    // A saved diagnosis carries the file's hash; --apply refuses once the file changed.
    let saved = lnkfix()
        .args(["diagnose", "--format", "json", "--patch"])
        .arg(&ext)
        .arg(example)
        .assert_retrying()
        .code(1);
    let json_path = dir.path().join("diagnosis.json");
    std::fs::write(&json_path, &saved.get_output().stdout).unwrap();
    std::fs::write(&ext, format!("{EXTENSION_PY}# edited\n")).unwrap();
    lnkfix()
        .arg("patch")
        .arg(&ext)
        .arg("--from")
        .arg(&json_path)
        .arg("--apply")
        .assert_retrying()
        .code(2);
    std::fs::write(&ext, EXTENSION_PY).unwrap();
    lnkfix()
        .arg("patch")
        .arg(&ext)
        .arg("--from")
        .arg(&json_path)
        .arg("--apply")
        .assert_retrying()
        .code(0);
    let patched = std::fs::read_to_string(&ext).unwrap();
    assert!(patched.contains("amdhip64.lib"));
    assert_eq!(
        std::fs::read_to_string(dir.path().join("extension.py.orig")).unwrap(),
        EXTENSION_PY
    );
    let again = lnkfix()
        .arg("patch")
        .arg(&ext)
        .args(["--from", example])
        .assert_retrying()
        .code(0);
    assert!(again.get_output().stdout.is_empty(), "second run: no diff");
    assert_eq!(std::fs::read_to_string(&ext).unwrap(), patched);

    let bad = dir.path().join("other.py");
    std::fs::write(&bad, "print('no ninja here')\n").unwrap();
    let out = lnkfix()
        .arg("patch")
        .arg(&bad)
        .args(["--from", example])
        .assert_retrying()
        .code(2);
    assert!(String::from_utf8_lossy(&out.get_output().stderr).contains("other.py"));
}

/// With no CRT evidence: every line under "Append to the link command" pastes as is (labels on
/// their own lines), and `patch` says the flavour is unknown and how to give it.
#[test]
fn unknown_flavour_gives_pasteable_lines_and_a_patch_refusal() {
    let log = "app.obj : error LNK2019: unresolved external symbol _tls_index referenced in function f\n\
               app.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function f\n";
    let out = lnkfix()
        .args(["diagnose", "--color", "never", "-"])
        .write_stdin(log)
        .assert_retrying()
        .code(1);
    let text = String::from_utf8(out.get_output().stdout.clone()).unwrap();
    let append = text
        .split("Append to the link command")
        .nth(1)
        .expect("an append section");
    let lines: Vec<&str> = append
        .lines()
        .skip(1)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(lines.len(), 4, "{append}");
    for pair in lines.chunks(2) {
        assert!(
            pair[0]
                .trim_start()
                .starts_with("if the project builds with /M"),
            "{pair:?}"
        );
        // The flags line holds link inputs only: no compiler option to paste by mistake.
        assert!(
            pair[1].split_whitespace().all(|w| w.ends_with(".lib")),
            "{pair:?}"
        );
    }
    let dir = tempfile::tempdir().unwrap();
    let ext = dir.path().join("extension.py");
    std::fs::write(&ext, EXTENSION_PY).unwrap();
    let log_path = dir.path().join("link.log");
    std::fs::write(&log_path, log).unwrap();
    let refused = lnkfix()
        .arg("patch")
        .arg(&ext)
        .arg("--from")
        .arg(&log_path)
        .assert_retrying()
        .code(2);
    let message = String::from_utf8_lossy(&refused.get_output().stderr).to_string();
    assert!(
        message.contains("CRT flavour is unknown")
            && message.contains("--crt")
            && message.contains("--objects"),
        "{message}"
    );
    lnkfix()
        .arg("patch")
        .arg(&ext)
        .arg("--from")
        .arg(&log_path)
        .args(["--crt", "dynamic"])
        .assert_retrying()
        .code(0);
}

/// The README's exit-code table ("## Exit codes"): each command's codes and what they mean, as
/// the table says them (backticks removed). A row may name several commands (`a`, `b`).
fn readme_exit_codes() -> Vec<(String, std::collections::BTreeMap<u8, String>)> {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let section = readme
        .split("\n## Exit codes\n")
        .nth(1)
        .expect("README has an Exit codes section");
    let mut rows = Vec::new();
    for line in section.lines().take_while(|l| !l.starts_with("## ")) {
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').collect();
        if !line.starts_with("| `") || cells.len() != 6 {
            continue;
        }
        let codes: std::collections::BTreeMap<u8, String> = (0u8..)
            .zip(&cells[1..])
            .filter(|(_, cell)| !cell.trim().is_empty())
            .map(|(code, cell)| (code, cell.trim().replace('`', "")))
            .collect();
        for command in cells[0].split(',') {
            rows.push((command.trim().replace('`', ""), codes.clone()));
        }
    }
    rows
}

/// The "Exit status:" block of a help text: each code and its meaning (lines clap wrapped are
/// joined again).
fn help_exit_codes(help: &str) -> std::collections::BTreeMap<u8, String> {
    let block = help
        .split("Exit status:\n")
        .nth(1)
        .unwrap_or_else(|| panic!("no Exit status in:\n{help}"));
    let mut codes = std::collections::BTreeMap::new();
    let mut last = None;
    for line in block.lines() {
        let entry = line.strip_prefix("  ").and_then(|rest| {
            let (code, meaning) = rest.split_once("  ")?;
            Some((code.parse::<u8>().ok()?, meaning))
        });
        match (entry, last) {
            (Some((code, meaning)), _) => {
                codes.insert(code, meaning.to_string());
                last = Some(code);
            }
            (None, Some(code)) if !line.starts_with("Each command's") => {
                let meaning: &mut String = codes.get_mut(&code).unwrap();
                meaning.push(' ');
                meaning.push_str(line.trim());
            }
            _ => {}
        }
    }
    codes
}

fn help(args: &[&str], columns: &str) -> String {
    let out = lnkfix()
        .args(args)
        .arg("--help")
        .env("COLUMNS", columns)
        .assert_retrying()
        .code(0);
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn every_help_lists_the_readme_exit_codes() {
    let rows = readme_exit_codes();
    let commands: Vec<&str> = rows.iter().map(|(c, _)| c.as_str()).collect();
    for command in [
        "diagnose",
        "explain",
        "triage",
        "whence",
        "doctor",
        "zombies",
        "patch",
        "completions",
        "man",
        "index",
    ] {
        assert!(commands.contains(&command), "README lists no {command}");
    }
    let mut every_code = std::collections::BTreeSet::new();
    for (command, readme) in &rows {
        // A narrow terminal: the meanings wrap and are joined again.
        for columns in ["100", "50"] {
            let listed = help_exit_codes(&help(&[command.as_str()], columns));
            assert_eq!(&listed, readme, "{command} --help (COLUMNS={columns})");
        }
        every_code.extend(readme.keys().copied());
    }
    assert!(every_code.contains(&3), "{every_code:?}");
    let top: Vec<u8> = help_exit_codes(&help(&[], "100")).into_keys().collect();
    assert_eq!(
        top,
        every_code.into_iter().collect::<Vec<_>>(),
        "lnkfix --help"
    );
}

#[test]
fn help_wraps_to_the_terminal_width() {
    let narrow = help(&["diagnose"], "60");
    let wide = help(&["diagnose"], "100");
    let longest = |text: &str| text.lines().map(|l| l.chars().count()).max().unwrap_or(0);
    assert!(longest(&narrow) <= 60, "{narrow}");
    assert!(longest(&wide) > 60 && longest(&wide) <= 100, "{wide}");
    for heading in ["Input:", "Libraries:", "Limits:", "Verify:", "Output:"] {
        assert!(
            wide.lines().any(|l| l == heading),
            "no {heading} in:\n{wide}"
        );
    }
}

/// A library asked for under another name than the one its build wrote (the debug `d` suffix):
/// the directory searched holds the other, and the answer names it.
#[test]
fn cannot_open_names_the_library_under_its_other_name() {
    let dir = tempfile::tempdir().unwrap();
    // An empty archive is a valid library.
    std::fs::write(dir.path().join("zlib.lib"), b"!<arch>\n").unwrap();
    let log = dir.path().join("link.log");
    std::fs::write(
        &log,
        "LINK : fatal error LNK1104: cannot open file 'zlibd.lib'\r\n",
    )
    .unwrap();
    let out = lnkfix()
        .args(["diagnose", "--format", "json", "--no-cache", "--lib-dir"])
        .arg(dir.path())
        .arg(&log)
        .assert_retrying()
        .code(1);
    let json: serde_json::Value = serde_json::from_slice(&out.get_output().stdout).unwrap();
    let problem = &json["problems"][0];
    assert_eq!(problem["kind"], "cannot-open");
    assert!(
        problem["summary"]
            .as_str()
            .unwrap()
            .ends_with("the library is named zlib.lib"),
        "{problem}"
    );
    assert!(
        problem["fix"]
            .as_str()
            .unwrap()
            .starts_with("link zlib.lib"),
        "{problem}"
    );
}
