//! The patch on small synthetic `extension.py` shapes (no network): files it must refuse, layouts
//! the releases do not have (negated branch, tabs, LF, no final newline, other names), odd paths in
//! diff headers, and `apply_patch`'s safety rules. python3, patch and git are required.

use crate::patch_common as common;

use std::path::PathBuf;

use common::*;
use lnkfix::fix::patch::{
    apply_patch, plan_patch, sha256_hex, DefaultLibChain, HipLibrary, LinkLibrary, PatchError,
    PatchOutcome, PatchPlan,
};

/// The shape of 0.1.15's generator, cut down: `with_hip`, `_windows_argument`, CUDA gated inside.
const MODERN: &str = r#"import os
import subprocess
import sys

IS_WINDOWS = sys.platform == "win32"


def _windows_argument(argument: str) -> str:
    return subprocess.list2cmdline([argument])


def _generate_ninja_build(name, extra_ldflags, backend=None):
    """Doc string that mentions
    if IS_WINDOWS:
        default_ldflags = ["not code"]
    """
    with_hip = backend == "hip"
    with_cuda = backend == "cuda"
    if IS_WINDOWS:
        default_ldflags = [
            "/DLL",
            "tvm_ffi.lib",  # the runtime
        ]
        if with_cuda:
            default_ldflags += ["cudart.lib"]

    else:
        default_ldflags = ["-shared"]
    ldflags = default_ldflags + list(extra_ldflags)
    return "ldflags = " + " ".join(ldflags)
"#;

fn assert_checked(
    label: &str,
    original: &[u8],
    plan: &PatchPlan,
    hip_path: Option<&str>,
    added: &[String],
) -> Vec<u8> {
    let (diff, new_text, _) = changed(PATH_AS_GIVEN, original, plan);
    assert_diff_applies(label, original, &diff, &new_text);
    assert_compiles(label, &new_text);
    assert_ninja(label, original, &new_text, hip_path, added);
    new_text
}

fn hip_added() -> Vec<String> {
    vec![format!("/LIBPATH:{FOUND_DIR}"), "amdhip64.lib".to_string()]
}

#[test]
fn modern_shape_lf() {
    let new_text = assert_checked("modern", MODERN.as_bytes(), &hip_plan(), None, &hip_added());
    let inserted = inserted_lines("modern", MODERN.as_bytes(), &new_text);
    assert!(inserted
        .iter()
        .all(|line| line.ends_with(b"\n") && !line.ends_with(b"\r\n")));
    // Inserted after `if with_cuda:`'s block, before the blank line and `else:`.
    let text = String::from_utf8(new_text).expect("utf-8");
    let block = text.find("# lnkfix:").expect("block");
    assert!(
        block > text.find("cudart.lib").expect("cuda")
            && block < text.find("    else:").expect("else")
    );
}

#[test]
fn file_without_windows_branch_is_a_clear_error() {
    let linux_only = MODERN.replace("if IS_WINDOWS:", "if with_hip:");
    let error =
        plan_patch("ext.py", linux_only.as_bytes(), &hip_plan()).expect_err("no choke point");
    let message = error.to_string();
    assert!(
        matches!(error, PatchError::ChokePointNotFound { .. }),
        "{message}"
    );
    assert!(
        message.contains("ext.py")
            && message.contains("IS_WINDOWS")
            && message.contains("_generate_ninja_build"),
        "{message}"
    );
    assert!(message.contains("have no Windows branch"), "{message}");

    let no_list = MODERN.replace("default_ldflags = [\n", "flags = [\n");
    let message = plan_patch("ext.py", no_list.as_bytes(), &hip_plan())
        .expect_err("no list")
        .to_string();
    assert!(
        message.contains("assigns no `...ldflags = [...]` list"),
        "{message}"
    );

    let no_function = "import sys\nIS_WINDOWS = True\nif IS_WINDOWS:\n    default_ldflags = []\n";
    let message = plan_patch("ext.py", no_function.as_bytes(), &hip_plan())
        .expect_err("no function")
        .to_string();
    assert!(
        message.contains("no top-level function with `ninja` in its name"),
        "{message}"
    );
}

#[test]
fn negated_branch_tabs_and_other_names() {
    let negated = MODERN
        .replace(
            "    if IS_WINDOWS:\n        default_ldflags = [\n            \"/DLL\",\n            \"tvm_ffi.lib\",  # the runtime\n        ]\n        if with_cuda:\n            default_ldflags += [\"cudart.lib\"]\n\n    else:\n        default_ldflags = [\"-shared\"]\n",
            "    if not IS_WINDOWS:\n        default_ldflags = [\"-shared\"]\n    else:\n        default_ldflags = [\"/DLL\", \"tvm_ffi.lib\"]\n",
        )
        .replace("_generate_ninja_build", "_write_ninja_file");
    assert!(negated.contains("if not IS_WINDOWS"));
    let plan = hip_plan();
    let (_, new_text, notes) = changed(PATH_AS_GIVEN, negated.as_bytes(), &plan);
    assert!(notes[0].contains("`_write_ninja_file`"), "{notes:?}");
    let renamed = String::from_utf8(new_text)
        .expect("utf-8")
        .replace("_write_ninja_file", "_generate_ninja_build");
    let original = negated.replace("_write_ninja_file", "_generate_ninja_build");
    assert_compiles("negated", renamed.as_bytes());
    assert_ninja(
        "negated",
        original.as_bytes(),
        renamed.as_bytes(),
        None,
        &hip_added(),
    );

    let tabs = MODERN.replace("    ", "\t");
    let new_text = assert_checked("tabs", tabs.as_bytes(), &plan, None, &hip_added());
    let inserted = inserted_lines("tabs", tabs.as_bytes(), &new_text);
    let tabs_only = |line: &Vec<u8>| {
        line.starts_with(b"\t\t")
            && line
                .iter()
                .take_while(|byte| byte.is_ascii_whitespace())
                .all(|byte| *byte == b'\t')
    };
    assert!(inserted.iter().all(tabs_only), "tabs kept");
}

/// 0.1.3's shape: no `with_hip`, no `_windows_argument`; here also no `import os` or `subprocess`
/// at top level, so the block brings its own under `_lnkfix_` names.
#[test]
fn old_shape_without_imports_gates_on_hip_path() {
    let old = MODERN
        .replace("import os\nimport subprocess\n", "")
        .replace("def _windows_argument(argument: str) -> str:\n    return subprocess.list2cmdline([argument])\n", "")
        .replace("    with_hip = backend == \"hip\"\n", "")
        .replace("backend=None", "with_cuda=False")
        .replace("    with_cuda = backend == \"cuda\"\n", "");
    let (_, new_text, notes) = changed(PATH_AS_GIVEN, old.as_bytes(), &hip_plan());
    let text = String::from_utf8_lossy(&new_text);
    assert!(
        text.contains("import os as _lnkfix_os")
            && text.contains("_lnkfix_subprocess.list2cmdline"),
        "{text}"
    );
    assert!(
        notes.iter().any(|note| note.contains("gated on HIP_PATH")),
        "{notes:?}"
    );
    let added = vec![
        "/LIBPATH:C:\\Program Files\\AMD\\ROCm\\6.4\\lib".to_string(),
        "amdhip64.lib".to_string(),
    ];
    assert_checked("old", old.as_bytes(), &hip_plan(), Some(HIP_PATH), &added);
}

/// A file whose last line is the end of the Windows branch, without a final newline; CRLF.
#[test]
fn branch_at_end_of_file_without_newline() {
    let source = "import sys\r\nIS_WINDOWS = True\r\ndef _generate_ninja_build(with_hip):\r\n    if IS_WINDOWS:\r\n        default_ldflags = [\"/DLL\"]";
    let (diff, new_text, _) = changed(PATH_AS_GIVEN, source.as_bytes(), &hip_plan());
    assert!(diff.contains("\\ No newline at end of file"), "{diff}");
    assert!(new_text.ends_with(b"        ]\r\n"));
    assert_diff_applies("eof", source.as_bytes(), &diff, &new_text);
    assert_compiles("eof", &new_text);
}

/// Diff headers: the path as given (backslashes to `/`, `./` dropped), quoted when it has spaces;
/// both tools apply it from the directory the path is relative to.
#[test]
fn diff_header_paths() {
    let (diff, _, _) = changed(
        ".\\tvm_ffi\\cpp\\extension.py",
        MODERN.as_bytes(),
        &hip_plan(),
    );
    assert!(
        diff.starts_with("--- a/tvm_ffi/cpp/extension.py\n+++ b/tvm_ffi/cpp/extension.py\n"),
        "{diff}"
    );

    let spaced = "site packages/tvm_ffi/cpp/extension.py";
    let (diff, new_text, _) = changed(spaced, MODERN.as_bytes(), &hip_plan());
    assert!(diff.starts_with("--- \"a/site packages/"), "{diff}");
    // patch and git exist only on Linux (tests/it/patch_common.rs).
    #[cfg(windows)]
    let _ = new_text;
    #[cfg(not(windows))]
    for (tool, arguments) in [
        ("patch", vec!["-p1", "--batch"]),
        ("git", vec!["apply", "-"]),
    ] {
        let directory = tempfile::tempdir().expect("tempdir");
        let file = directory.path().join(spaced);
        std::fs::create_dir_all(file.parent().expect("parent")).expect("mkdir");
        std::fs::write(&file, MODERN).expect("write");
        let output = run(tool, &arguments, directory.path(), Some(diff.as_bytes()));
        assert!(output.status.success(), "{tool}: {}", text(&output));
        assert_eq!(std::fs::read(&file).expect("read"), new_text, "{tool}");
    }
}

#[test]
fn refusals() {
    let empty = PatchPlan {
        source: "empty.json".to_string(),
        ..PatchPlan::default()
    };
    let error = plan_patch("e.py", MODERN.as_bytes(), &empty).expect_err("nothing");
    assert!(matches!(error, PatchError::NothingToLink { .. }), "{error}");

    let mut latin1 = MODERN.as_bytes().to_vec();
    latin1.splice(0..0, b"# caf\xe9\n".iter().copied());
    let error = plan_patch("e.py", &latin1, &hip_plan()).expect_err("not utf-8");
    assert!(
        matches!(error, PatchError::NotUtf8 { line: 1, .. }),
        "{error}"
    );

    let mut newline_dir = hip_plan();
    newline_dir.hip = Some(HipLibrary {
        library: "amdhip64.lib".to_string(),
        found_dir: Some(PathBuf::from("C:\\x\nrule evil")),
    });
    let error = plan_patch("e.py", MODERN.as_bytes(), &newline_dir).expect_err("control");
    assert!(matches!(error, PatchError::UnusablePath { .. }), "{error}");

    let mut newline_library = hip_plan();
    newline_library.libraries.push(LinkLibrary {
        name: "x.lib\nbuild evil".to_string(),
        dir: None,
    });
    let error = plan_patch("e.py", MODERN.as_bytes(), &newline_library).expect_err("control");
    assert!(
        matches!(error, PatchError::InvalidLibraryName { .. }),
        "{error}"
    );
}

/// Already linked libraries are left out, case-insensitively and with or without `.lib`; when all
/// are there: AlreadyPatched.
#[test]
fn already_linked_is_not_added_twice() {
    let hand = MODERN.replace(
        "\"tvm_ffi.lib\",  # the runtime",
        "\"tvm_ffi.lib\",  # the runtime\n            \"AMDHIP64\",",
    );
    match plan_patch("e.py", hand.as_bytes(), &hip_plan()).expect("plan") {
        PatchOutcome::AlreadyPatched { notes } => {
            assert!(
                notes.iter().any(|note| note
                    .contains("amdhip64.lib is already linked by the Windows branch (line 23)")),
                "{notes:?}"
            );
        }
        other => panic!("{other:?}"),
    }
    // Linked by hand in a second Windows branch of the function: recognised too.
    let second_branch = MODERN.replace(
        "    ldflags = default_ldflags",
        "    if IS_WINDOWS:\n        default_ldflags.append(\"amdhip64.lib\")\n    ldflags = default_ldflags",
    );
    assert!(matches!(
        plan_patch("e.py", second_branch.as_bytes(), &hip_plan()),
        Ok(PatchOutcome::AlreadyPatched { .. })
    ));
    let plan = PatchPlan {
        chain: Some(DefaultLibChain {
            flavour: "dynamic".to_string(),
            libraries: vec!["msvcrt.lib".to_string(), "tvm_ffi.lib".to_string()],
            evidence_disagrees: Some("the objects' directives name LIBCMT".to_string()),
        }),
        ..hip_plan()
    };
    let (diff, _, notes) = changed("e.py", hand.as_bytes(), &plan);
    assert!(
        diff.contains("+                \"msvcrt.lib\",\n"),
        "{diff}"
    );
    assert!(!diff.contains("+                \"tvm_ffi.lib\""), "{diff}");
    assert!(!diff.contains("_lnkfix_hip_path"), "{diff}");
    assert!(
        notes
            .iter()
            .any(|note| note.contains("evidence disagrees") && note.contains("LIBCMT")),
        "{notes:?}"
    );
}

/// No input makes the planner panic: every prefix of a real shape, and some junk.
#[test]
fn no_panics_on_truncated_or_junk_input() {
    let plan = hip_plan();
    let bytes = MODERN.as_bytes();
    for end in 0..=bytes.len() {
        let _ = plan_patch("t.py", &bytes[..end], &plan);
    }
    let junk: [&[u8]; 6] = [
        b"",
        b"\n\n\n",
        b"\"\"\"",
        b"def _generate_ninja_build(:\n  if IS_WINDOWS:\n",
        b"\xff\xfe\x00",
        b"if IS_WINDOWS:\n\tdefault_ldflags = [\n",
    ];
    for input in junk {
        let _ = plan_patch("j.py", input, &plan);
    }
}

#[test]
fn apply_backups_refusals_and_atomicity() {
    let directory = tempfile::tempdir().expect("tempdir");
    let file = directory.path().join("extension.py");
    std::fs::write(&file, MODERN).expect("write");
    let (_, new_text, _) = changed("extension.py", MODERN.as_bytes(), &hip_plan());

    // Does not compile: refused, untouched, no temporary or backup left. (Needs python3, which
    // exists only on Linux: tests/it/patch_common.rs.)
    #[cfg(not(windows))]
    {
        let broken = b"def broken(:\n".to_vec();
        let error = apply_patch(&file, Some(&sha256_hex(MODERN.as_bytes())), &broken, true)
            .expect_err("broken");
        assert!(
            matches!(error, PatchError::DoesNotCompile { .. }),
            "{error}"
        );
        assert_eq!(std::fs::read(&file).expect("read"), MODERN.as_bytes());
        assert_eq!(std::fs::read_dir(directory.path()).expect("ls").count(), 1);
    }

    // Wrong hash: refused, untouched.
    let error =
        apply_patch(&file, Some(&sha256_hex(b"another file")), &new_text, true).expect_err("hash");
    assert!(matches!(error, PatchError::FileChanged { .. }), "{error}");
    assert_eq!(std::fs::read(&file).expect("read"), MODERN.as_bytes());

    // An existing backup is never overwritten.
    std::fs::write(directory.path().join("extension.py.orig"), "older original").expect("write");
    let report =
        apply_patch(&file, Some(&sha256_hex(MODERN.as_bytes())), &new_text, true).expect("apply");
    // Compared canonically: on Windows the report has no `\\?\` prefix and the temporary
    // directory may be spelled with short names.
    assert_eq!(
        report
            .backup
            .as_deref()
            .map(|backup| backup.canonicalize().expect("c")),
        Some(
            directory
                .path()
                .join("extension.py.orig.1")
                .canonicalize()
                .expect("c")
        )
    );
    assert_eq!(
        std::fs::read_to_string(directory.path().join("extension.py.orig")).expect("read"),
        "older original"
    );
    assert_eq!(std::fs::read(&file).expect("read"), new_text);
    assert_eq!(report.new_sha256, sha256_hex(&new_text));

    // No backup asked: none written. Through a symbolic link: the target changes, the link stays.
    #[cfg(unix)]
    {
        let link = directory.path().join("link.py");
        std::os::unix::fs::symlink(&file, &link).expect("symlink");
        let report = apply_patch(
            &link,
            Some(&sha256_hex(&new_text)),
            MODERN.as_bytes(),
            false,
        )
        .expect("apply");
        assert!(report.backup.is_none());
        assert!(std::fs::symlink_metadata(&link)
            .expect("meta")
            .file_type()
            .is_symlink());
        assert_eq!(std::fs::read(&file).expect("read"), MODERN.as_bytes());
    }
    let names: Vec<String> = std::fs::read_dir(directory.path())
        .expect("ls")
        .map(|entry| {
            entry
                .expect("entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .filter(|name| name.contains("tmp") || name.contains("pycache"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// The checker is not vacuous: it rejects an ungated block (CUDA output changes) and a block that
/// links something other than what was asked. (It is python3: Linux only.)
#[cfg(not(windows))]
#[test]
fn checker_rejects_wrong_patches() {
    let run_checker = |patched: &str, added: &[&str]| {
        let directory = tempfile::tempdir().expect("tempdir");
        std::fs::write(directory.path().join("original.py"), MODERN).expect("write");
        std::fs::write(directory.path().join("patched.py"), patched).expect("write");
        let expect = serde_json::json!({ "hip_path": null, "added": added });
        std::fs::write(directory.path().join("expect.json"), expect.to_string()).expect("write");
        let checker = tests_dir().join("check_ninja.py");
        let arguments = [
            checker.to_str().expect("utf-8"),
            "original.py",
            "patched.py",
            "expect.json",
        ];
        run("python3", &arguments, directory.path(), None)
    };
    let ungated = MODERN.replace(
        "            default_ldflags += [\"cudart.lib\"]\n",
        "            default_ldflags += [\"cudart.lib\"]\n        default_ldflags += [\"amdhip64.lib\"]\n",
    );
    let output = run_checker(&ungated, &["amdhip64.lib"]);
    assert!(
        !output.status.success() && text(&output).contains("FAIL windows-cuda"),
        "{}",
        text(&output)
    );
    let (_, new_text, _) = changed(PATH_AS_GIVEN, MODERN.as_bytes(), &hip_plan());
    let output = run_checker(
        &String::from_utf8(new_text).expect("utf-8"),
        &["amdhip64.lib"],
    );
    assert!(
        !output.status.success() && text(&output).contains("FAIL windows-hip ldflags"),
        "{}",
        text(&output)
    );
}
