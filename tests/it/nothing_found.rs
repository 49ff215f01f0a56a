//! When no unresolved symbol is found, `diagnose` says what it read (text and JSON `read`), and
//! an empty file, a binary file, a log without link output and a log whose link-looking lines
//! are not records each get their own message; the exit status stays 0 (no link failure) when no
//! line names a linker error.

use crate::common;

use common::StartRetrying;

/// Runs `lnkfix diagnose --format FORMAT` on `bytes` written to a file; returns (exit code, stdout).
fn diagnose(name: &str, bytes: &[u8], format: &str) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    std::fs::write(&path, bytes).unwrap();
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(["diagnose", "--color", "never", "--format", format])
        .arg(&path)
        .env_remove("NO_COLOR")
        .output_retrying()
        .expect("run lnkfix");
    (
        output.status.code(),
        String::from_utf8_lossy(&output.stdout).into_owned(),
    )
}

const CASES: &[(&str, &[u8], &str, &str)] = &[
    ("empty.log", b"", "empty", "the log is empty (0 bytes)"),
    (
        "amdhip64.lib",
        b"!<arch>\n/               0           0     0     0       14        `\n\0\0\0\x01\0\0\0\x08\x01\x02",
        "binary",
        "the input is not text",
    ),
    (
        "build.log",
        b"[1/3] clang-cl /nologo /c a.cpp\r\n[2/3] clang-cl /nologo /c b.cpp\r\nninja: build stopped\r\n",
        "no-link-output",
        "read 3 lines (utf8); none looks like link output",
    ),
    (
        "mingw.log",
        b"[3/3] Linking CXX executable app.exe\nld: main.o: in function `main':\nmain.c:(.text+0x1e): undefined reference to `hipMalloc'\ncollect2: error: ld returned 1 exit status\n",
        "link-output-unread",
        "none was a record lnkfix reads",
    ),
    (
        "warning-only.log",
        b"b.obj : warning LNK4217: symbol 'f' defined in 'a.obj' is imported by 'b.obj' in function 'g'\n",
        "records",
        "1 record read, none an unresolved symbol",
    ),
];

#[test]
fn each_kind_of_input_gets_its_own_message() {
    for (name, bytes, content, message) in CASES {
        let (code, text) = diagnose(name, bytes, "text");
        assert_eq!(code, Some(0), "{name}: {text}");
        assert!(
            text.contains("no link failure in the log"),
            "{name}: {text}"
        );
        assert!(text.contains(message), "{name}: {text}");
        let (code, json) = diagnose(name, bytes, "json");
        assert_eq!(code, Some(0), "{name}");
        let report: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(report["read"]["content"], *content, "{name}: {json}");
        assert!(
            report["read"]["message"]
                .as_str()
                .unwrap()
                .contains(message),
            "{name}"
        );
    }
}

#[test]
fn unread_link_lines_are_shown_with_their_reason() {
    let log =
        b"x.obj : LNK2019 unresolved external symbol foo\nld: a.o: undefined reference to `f'\n";
    let (_, text) = diagnose("odd.log", log, "text");
    assert!(
        text.contains("not a record: line 1: x.obj : LNK2019 unresolved external symbol foo"),
        "{text}"
    );
    assert!(text.contains("GNU ld output"), "{text}");
    let (_, json) = diagnose("odd.log", log, "json");
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["read"]["link_lines"], 2);
    assert_eq!(report["read"]["unread"][1]["line"], 2);
}

#[test]
fn a_diagnosis_with_symbols_has_no_read_summary() {
    let (code, json) = diagnose(
        "x.log",
        b"a.obj : error LNK2001: unresolved external symbol hipFree\n",
        "json",
    );
    assert_eq!(code, Some(1));
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert!(report.get("read").is_none());
    assert_eq!(report["stats"]["link_lines"], 1);
}
