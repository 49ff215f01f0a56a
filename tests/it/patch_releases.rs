//! The patch against the real `tvm_ffi/cpp/extension.py` of released apache-tvm-ffi Windows wheels,
//! fetched at test time by tests/patch/fetch_tvm_ffi.sh (needs pip and the network: a missing tool
//! or network fails these tests).

use crate::patch_common as common;

use std::path::PathBuf;

use common::*;
use lnkfix::fix::patch::{
    apply_patch, plan_patch, sha256_hex, DefaultLibChain, HipLibrary, LinkLibrary, PatchError,
    PatchOutcome, PatchPlan,
};

const DYNAMIC_CHAIN: [&str; 6] = [
    "msvcrt.lib",
    "vcruntime.lib",
    "ucrt.lib",
    "msvcprt.lib",
    "oldnames.lib",
    "kernel32.lib",
];
const STATIC_CHAIN: [&str; 6] = [
    "libcmt.lib",
    "libvcruntime.lib",
    "libucrt.lib",
    "libcpmt.lib",
    "oldnames.lib",
    "kernel32.lib",
];

fn chain_plan(flavour: &str, libraries: &[&str]) -> PatchPlan {
    PatchPlan {
        chain: Some(DefaultLibChain {
            flavour: flavour.to_string(),
            libraries: libraries.iter().map(|name| name.to_string()).collect(),
            evidence_disagrees: None,
        }),
        ..hip_plan()
    }
}

fn has_backend(original: &[u8]) -> bool {
    String::from_utf8_lossy(original).contains("backend: str | None = None")
}

fn strings(values: &[&str]) -> Vec<String> {
    values.iter().map(|value| value.to_string()).collect()
}

/// HIP only, HIP_PATH set at build time: every release gets a diff both tools apply, the result
/// compiles, and on Windows + HIP the ninja link line gains `/LIBPATH:<HIP_PATH>\lib amdhip64.lib`
/// (HIP_PATH's trailing backslash handled); Linux, CUDA and CPU-only ninja files are unchanged.
#[test]
fn every_release_links_hip_from_hip_path() {
    for (version, original) in releases() {
        let (diff, new_text, notes) = changed(PATH_AS_GIVEN, original, &hip_plan());
        assert_diff_applies(version, original, &diff, &new_text);
        assert_compiles(version, &new_text);
        let added = strings(&[
            "/LIBPATH:C:\\Program Files\\AMD\\ROCm\\6.4\\lib",
            "amdhip64.lib",
        ]);
        let report = assert_ninja(version, original, &new_text, Some(HIP_PATH), &added);
        eprintln!("{version}: {}\n{report}", notes.join("; "));
        let gate_note = if has_backend(original) {
            "gated on `with_hip`"
        } else {
            "gated on HIP_PATH"
        };
        assert!(
            notes.iter().any(|note| note.contains(gate_note)),
            "{version}: {notes:?}"
        );
    }
}

/// HIP_PATH unset at build time: the directory found now is the fallback (releases with `with_hip`;
/// older ones gate on HIP_PATH itself, so there is nothing to fall back from).
#[test]
fn every_release_falls_back_to_the_found_directory() {
    for (version, original) in releases()
        .iter()
        .filter(|(_, original)| has_backend(original))
    {
        let (_, new_text, _) = changed(PATH_AS_GIVEN, original, &hip_plan());
        let added = strings(&[&format!("/LIBPATH:{FOUND_DIR}"), "amdhip64.lib"]);
        assert_ninja(version, original, &new_text, None, &added);
    }
}

/// `literal_paths` bakes the found directory in, whatever HIP_PATH says.
#[test]
fn every_release_literal_paths() {
    for (version, original) in releases() {
        let plan = PatchPlan {
            literal_paths: true,
            ..hip_plan()
        };
        let (diff, new_text, _) = changed(PATH_AS_GIVEN, original, &plan);
        assert!(
            !String::from_utf8_lossy(&new_text).contains("_lnkfix_hip_path"),
            "{version}"
        );
        assert_diff_applies(version, original, &diff, &new_text);
        let added = strings(&[&format!("/LIBPATH:{FOUND_DIR}"), "amdhip64.lib"]);
        assert_ninja(version, original, &new_text, Some(HIP_PATH), &added);
    }
}

/// HIP plus other libraries (with and without a directory) plus either chain: the link line carries
/// exactly those, in order, each once (kernel32.lib is both a resolved library and in the chain).
#[test]
fn every_release_links_libraries_and_chains() {
    for (flavour, chain) in [("dynamic", DYNAMIC_CHAIN), ("static", STATIC_CHAIN)] {
        for (version, original) in releases() {
            let mut plan = chain_plan(flavour, &chain);
            plan.libraries = vec![
                LinkLibrary {
                    name: "kernel32.lib".to_string(),
                    dir: None,
                },
                LinkLibrary {
                    name: "hiprtc.lib".to_string(),
                    dir: Some(PathBuf::from("D:\\sdk dir\\lib")),
                },
            ];
            let (diff, new_text, notes) = changed(PATH_AS_GIVEN, original, &plan);
            assert_diff_applies(version, original, &diff, &new_text);
            assert_compiles(version, &new_text);
            let mut added = strings(&[
                "/LIBPATH:C:\\Program Files\\AMD\\ROCm\\6.4\\lib",
                "amdhip64.lib",
                "kernel32.lib",
                "/LIBPATH:D:\\sdk dir\\lib",
                "hiprtc.lib",
            ]);
            added.extend(
                chain
                    .iter()
                    .filter(|name| **name != "kernel32.lib")
                    .map(|name| name.to_string()),
            );
            assert_ninja(
                &format!("{version} {flavour}"),
                original,
                &new_text,
                Some(HIP_PATH),
                &added,
            );
            let warns = notes.iter().any(|note| note.contains("mixed build"));
            assert_eq!(warns, flavour == "static", "{version} {flavour}: {notes:?}");
        }
    }
}

/// Patching the patched file again: no diff, and a note naming where each library already is.
#[test]
fn every_release_twice_is_already_patched() {
    for (version, original) in releases() {
        let plan = chain_plan("dynamic", &DYNAMIC_CHAIN);
        let (_, new_text, _) = changed(PATH_AS_GIVEN, original, &plan);
        match plan_patch(PATH_AS_GIVEN, &new_text, &plan) {
            Ok(PatchOutcome::AlreadyPatched { notes }) => {
                assert!(
                    notes
                        .iter()
                        .any(|note| note.contains("amdhip64.lib is already linked")),
                    "{version}: {notes:?}"
                );
            }
            other => panic!("{version}: second run should be AlreadyPatched, got {other:?}"),
        }
        // Asking for one more library adds just that one.
        let mut more = plan.clone();
        more.libraries.push(LinkLibrary {
            name: "user32.lib".to_string(),
            dir: None,
        });
        let (_, third, _) = changed(PATH_AS_GIVEN, &new_text, &more);
        let added = inserted_lines(version, &new_text, &third);
        let added_text = String::from_utf8_lossy(&added.concat()).into_owned();
        assert!(
            added_text.contains("\"user32.lib\""),
            "{version}: {added_text}"
        );
        assert!(
            !added_text.contains("amdhip64") && !added_text.contains("msvcrt"),
            "{version}: {added_text}"
        );
        assert_compiles(version, &third);
    }
}

/// The wheels' CRLF line endings and indentation are kept: the only change is a contiguous run of
/// CRLF lines, indented at least as deep as the Windows branch, inside `_generate_ninja_build`.
#[test]
fn every_release_keeps_crlf_and_touches_nothing_else() {
    for (version, original) in releases() {
        assert!(
            original.windows(2).any(|pair| pair == b"\r\n"),
            "{version}: the wheel's file has no CRLF?"
        );
        let (diff, new_text, _) = changed(PATH_AS_GIVEN, original, &hip_plan());
        let inserted = inserted_lines(version, original, &new_text);
        assert!(!inserted.is_empty());
        for line in &inserted {
            assert!(
                line.ends_with(b"\r\n"),
                "{version}: {:?}",
                String::from_utf8_lossy(line)
            );
            assert!(
                line.starts_with(b"        "),
                "{version}: {:?}",
                String::from_utf8_lossy(line)
            );
            assert!(line.is_ascii(), "{version}");
        }
        assert!(String::from_utf8_lossy(&inserted[0])
            .trim_start()
            .starts_with("# lnkfix: generated from the diagnosis of build.log"));
        assert_eq!(
            diff.matches("\r\n").count(),
            diff.lines().count() - 3,
            "{version}: every content line keeps its CR"
        );
    }
}

/// Hostile values: quotes, backslashes, braces, `$`, triple quotes, non-ASCII, code-looking text in
/// the directory and the library names; newlines too in the diagnosis name (newlines in directories
/// and library names are refused: see tests/it/patch_cases.rs). The file still compiles and the values come
/// out byte for byte.
#[test]
fn every_release_hostile_paths() {
    let hostile_dir = r#"\\host\c$\evil"); __import__('os').system('calc') #{x}\é😀\"#;
    let hostile_library = r#"we"ird{0}\'''lib $(x).lib"#;
    for (version, original) in releases() {
        for literal_paths in [false, true] {
            let plan = PatchPlan {
                hip: Some(HipLibrary {
                    library: "amdhip64.lib".to_string(),
                    found_dir: Some(PathBuf::from(hostile_dir)),
                }),
                libraries: vec![LinkLibrary {
                    name: hostile_library.to_string(),
                    dir: Some(PathBuf::from("D:\\'''\"\"\"\\{}")),
                }],
                chain: None,
                source: "C:\\logs\\x\n    raise SystemExit('pwned')\r\n\"{}.log".to_string(),
                literal_paths,
            };
            let label = format!("{version} literal={literal_paths}");
            let (diff, new_text, _) = changed(PATH_AS_GIVEN, original, &plan);
            assert_diff_applies(&label, original, &diff, &new_text);
            assert_compiles(&label, &new_text);
            let inserted = inserted_lines(&label, original, &new_text);
            assert!(inserted.iter().all(|line| line.is_ascii()), "{label}");
            let hip_dir_flag = if literal_paths || has_backend(original) {
                format!("/LIBPATH:{}", hostile_dir)
            } else {
                "/LIBPATH:C:\\Program Files\\AMD\\ROCm\\6.4\\lib".to_string()
            };
            let hip_path = if literal_paths || !has_backend(original) {
                Some(HIP_PATH)
            } else {
                None
            };
            let added = vec![
                hip_dir_flag,
                "amdhip64.lib".to_string(),
                "/LIBPATH:D:\\'''\"\"\"\\{}".to_string(),
                hostile_library.to_string(),
            ];
            assert_ninja(&label, original, &new_text, hip_path, &added);
            // lnkfix recognises its own escaped values: a second run changes nothing.
            let again = plan_patch(PATH_AS_GIVEN, &new_text, &plan);
            assert!(
                matches!(again, Ok(PatchOutcome::AlreadyPatched { .. })),
                "{label}: {again:?}"
            );
        }
    }
}

/// A copy patched by hand (amdhip64.lib already added to the Windows list, in upper case, with its
/// own /LIBPATH:) is recognised: HIP is not added twice, the rest of the plan still is.
#[test]
fn hand_patched_release() {
    let (version, original) = releases().last().expect("a release");
    let text = String::from_utf8_lossy(original);
    let anchor = "            f\"{tvm_ffi_lib_name}.lib\",\r\n";
    let hand = "            f\"{tvm_ffi_lib_name}.lib\",\r\n            \"/LIBPATH:C:\\\\ROCm\\\\lib\",\r\n            \"AMDHIP64.LIB\",  # by hand\r\n";
    assert!(text.contains(anchor), "{version}: anchor not found");
    let hand_patched = text.replacen(anchor, hand, 1).into_bytes();
    assert_compiles("hand-patched", &hand_patched);
    match plan_patch(PATH_AS_GIVEN, &hand_patched, &hip_plan()) {
        Ok(PatchOutcome::AlreadyPatched { notes }) => {
            assert!(
                notes.iter().any(|note| note.contains("already linked")),
                "{notes:?}"
            );
        }
        other => panic!("hand-patched: expected AlreadyPatched, got {other:?}"),
    }
    let plan = chain_plan("dynamic", &DYNAMIC_CHAIN);
    let (diff, new_text, _) = changed(PATH_AS_GIVEN, &hand_patched, &plan);
    assert!(
        !diff.contains("+                \"amdhip64.lib\""),
        "{diff}"
    );
    assert_diff_applies("hand-patched", &hand_patched, &diff, &new_text);
    assert_compiles("hand-patched", &new_text);
}

/// Golden diffs against the newest pinned release (0.1.15.post2): HIP only; HIP + static chain;
/// HIP + dynamic chain. `LNKFIX_BLESS=1` rewrites them.
#[test]
fn golden_diffs() {
    let (_, original) = releases()
        .iter()
        .find(|(version, _)| version == "0.1.15.post2")
        .expect("0.1.15.post2");
    let cases = [
        ("hip-only", hip_plan()),
        ("hip-static-chain", chain_plan("static", &STATIC_CHAIN)),
        ("hip-dynamic-chain", chain_plan("dynamic", &DYNAMIC_CHAIN)),
    ];
    let bless = std::env::var_os("LNKFIX_BLESS").is_some_and(|value| value == "1");
    let mut failures = Vec::new();
    for (name, plan) in cases {
        let (diff, _, _) = changed(PATH_AS_GIVEN, original, &plan);
        let golden = tests_dir().join("golden").join(format!("{name}.diff"));
        if bless {
            std::fs::write(&golden, &diff).expect("write golden");
            continue;
        }
        let expected = std::fs::read_to_string(&golden).unwrap_or_else(|error| {
            panic!("{}: {error} (LNKFIX_BLESS=1 creates it)", golden.display())
        });
        if expected != diff {
            failures.push(format!(
                "{name}: differs from {} (LNKFIX_BLESS=1 regenerates)\n{diff}",
                golden.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `apply_patch` on a real release: backup is the original, the file is the new text, the temporary
/// file is gone, and a file changed after planning is refused and left alone.
#[test]
fn apply_real_release() {
    let (_, original) = releases().first().expect("a release");
    let (_, new_text, _) = changed(PATH_AS_GIVEN, original, &hip_plan());
    let directory = tempfile::tempdir().expect("tempdir");
    let file = directory.path().join("extension.py");
    std::fs::write(&file, original).expect("write");
    let report = apply_patch(&file, Some(&sha256_hex(original)), &new_text, true).expect("apply");
    assert_eq!(std::fs::read(&file).expect("read"), new_text);
    let backup = report.backup.expect("backup");
    assert_eq!(
        backup.file_name().and_then(|name| name.to_str()),
        Some("extension.py.orig")
    );
    assert_eq!(std::fs::read(&backup).expect("read"), *original);
    // python3 exists only on Linux (tests/it/patch_common.rs); under Wine there is no interpreter.
    #[cfg(not(windows))]
    assert!(
        report.compiled_with.is_some(),
        "python3 is required in these tests"
    );
    let left: Vec<_> = std::fs::read_dir(directory.path())
        .expect("ls")
        .map(|entry| entry.expect("entry").file_name())
        .collect();
    assert_eq!(left.len(), 2, "{left:?}");

    // The file now differs from the diagnosed original: refused, untouched.
    let error =
        apply_patch(&file, Some(&sha256_hex(original)), original, false).expect_err("must refuse");
    assert!(matches!(error, PatchError::FileChanged { .. }), "{error}");
    assert_eq!(std::fs::read(&file).expect("read"), new_text);
}
