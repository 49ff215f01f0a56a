//! Every row of the rule book's stage truth table and runtime addendum, recognised in a realistic
//! full log (`tests/triage/*.log`: supervisor lines, ninja, compiler command lines, Python
//! tracebacks), plus the generic rows on short logs. Table-driven: every failing row is reported.

use lnkfix::commands::triage::{self, Stage, TriageOptions, TriageReport};
use std::path::PathBuf;

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/triage")
        .join(name)
}

/// One expected answer.
struct Case {
    log: &'static str,
    stage: Stage,
    rule: Option<&'static str>,
    /// The evidence lines (1-based), in order.
    evidence: &'static [u64],
    /// (attempt index, attempt count, first line).
    attempt: (usize, usize, u64),
    /// Substrings the cause must hold.
    cause: &'static [&'static str],
    /// Substrings the fix must hold.
    fix: &'static [&'static str],
    /// Options to triage with.
    arch_intended: Option<&'static str>,
}

const CASES: &[Case] = &[
    Case {
        log: "compile_msvc_flags.log",
        stage: Stage::Compile,
        rule: Some("clang-msvc-flags"),
        evidence: &[9, 10],
        attempt: (1, 1, 1),
        cause: &["'/O2'", "MSVC-style"],
        fix: &["extension.py", "GNU-style", "clang-cl"],
        arch_intended: None,
    },
    Case {
        log: "compile_fpic.log",
        stage: Stage::Compile,
        rule: Some("fpic-msvc"),
        evidence: &[7, 8],
        attempt: (1, 1, 1),
        cause: &["x86_64-pc-windows-msvc"],
        fix: &["drop -fPIC", "extension.py"],
        arch_intended: None,
    },
    Case {
        log: "compile_arch_gfx906.log",
        stage: Stage::Compile,
        rule: Some("arch-mismatch"),
        evidence: &[5],
        attempt: (1, 1, 1),
        cause: &["gfx906", "TVM_FFI_ROCM_ARCH_LIST is unset"],
        fix: &["set TVM_FFI_ROCM_ARCH_LIST="],
        arch_intended: None,
    },
    Case {
        log: "compile_arch_gfx906.log",
        stage: Stage::Compile,
        rule: Some("arch-mismatch"),
        evidence: &[5],
        attempt: (1, 1, 1),
        cause: &["builds for gfx906, not gfx1201"],
        fix: &["TVM_FFI_ROCM_ARCH_LIST=gfx1201"],
        arch_intended: Some("gfx1201"),
    },
    Case {
        log: "compile_always_inline.log",
        stage: Stage::Compile,
        rule: Some("always-inline"),
        evidence: &[8],
        attempt: (1, 1, 1),
        cause: &["__always_inline"],
        fix: &["shim", "#define __always_inline"],
        arch_intended: None,
    },
    Case {
        log: "compile_sys_cdefs.log",
        stage: Stage::Compile,
        rule: Some("sys-cdefs"),
        evidence: &[8],
        attempt: (1, 1, 1),
        cause: &["POSIX"],
        fix: &["guard", "_WIN32"],
        arch_intended: None,
    },
    Case {
        log: "compile_pdl.log",
        stage: Stage::Compile,
        rule: Some("pdl-attr"),
        evidence: &[7],
        attempt: (1, 1, 1),
        cause: &["ROCm headers"],
        fix: &["gate", "__HIP_PLATFORM_AMD__"],
        arch_intended: None,
    },
    Case {
        log: "compile_fake_msc_ver.log",
        stage: Stage::Compile,
        rule: Some("fake-msc-ver-gnu"),
        evidence: &[4, 8],
        attempt: (1, 1, 1),
        cause: &["_InlineInterlockedAdd64", "-D_MSC_VER"],
        fix: &["windows-msvc triple"],
        arch_intended: None,
    },
    Case {
        log: "link_lnk2019.log",
        stage: Stage::Link,
        rule: Some("link-unresolved"),
        evidence: &[9],
        attempt: (1, 1, 1),
        cause: &["unresolved"],
        fix: &["amdhip64.lib", "extension.py"],
        arch_intended: None,
    },
    Case {
        log: "link_lld.log",
        stage: Stage::Link,
        rule: Some("link-unresolved"),
        evidence: &[7],
        attempt: (1, 1, 1),
        cause: &["default-library chain absent"],
        fix: &["amdhip64.lib", "vcruntime.lib"],
        arch_intended: None,
    },
    Case {
        log: "cascade_only.log",
        stage: Stage::Unknown,
        rule: None,
        evidence: &[5],
        attempt: (1, 1, 1),
        cause: &["Backend worker is gone", "no root error"],
        fix: &["captured"],
        arch_intended: None,
    },
    Case {
        log: "success.log",
        stage: Stage::Success,
        rule: Some("ready-to-serve"),
        evidence: &[11],
        attempt: (1, 1, 1),
        cause: &["127.0.0.1:1919"],
        fix: &["runtime tests"],
        arch_intended: None,
    },
    Case {
        log: "runtime_invalid_device_unwired.log",
        stage: Stage::Runtime,
        rule: Some("invalid-device-function"),
        evidence: &[16],
        attempt: (1, 1, 1),
        cause: &["no --offload-arch=", "read but never wired"],
        fix: &["wire TVM_FFI_ROCM_ARCH_LIST", "extension.py"],
        arch_intended: None,
    },
    Case {
        log: "runtime_invalid_device_gfx906.log",
        stage: Stage::Runtime,
        rule: Some("invalid-device-function"),
        // The JIT command line that built gfx906 is the root; the runtime error its symptom.
        evidence: &[4, 9],
        attempt: (1, 1, 1),
        cause: &["gfx906 (line 4)", "not gfx1201"],
        fix: &["set TVM_FFI_ROCM_ARCH_LIST=gfx1201"],
        arch_intended: Some("gfx1201"),
    },
    Case {
        log: "runtime_triton_kwarg.log",
        stage: Stage::Runtime,
        rule: Some("triton-unrecognised-kwarg"),
        evidence: &[14, 16],
        attempt: (1, 1, 1),
        cause: &["'launch_pdl'", "by name"],
        fix: &[
            "'launch_pdl'",
            "Options",
            "instead of conditioning every call site",
        ],
        arch_intended: None,
    },
    Case {
        log: "multi_attempt.log",
        stage: Stage::Link,
        rule: Some("link-unresolved"),
        evidence: &[25],
        attempt: (3, 3, 20),
        cause: &["default-library chain absent"],
        fix: &["vcruntime.lib"],
        arch_intended: None,
    },
    Case {
        log: "fixed_then_success.log",
        stage: Stage::Success,
        rule: Some("ready-to-serve"),
        evidence: &[15],
        attempt: (2, 2, 10),
        cause: &["came up"],
        fix: &["POST a chat sample"],
        arch_intended: None,
    },
    Case {
        log: "worker_restart.log",
        stage: Stage::Compile,
        rule: Some("sys-cdefs"),
        evidence: &[7],
        attempt: (1, 2, 1),
        cause: &["sys/cdefs.h"],
        fix: &["guard"],
        arch_intended: None,
    },
    // Every link failure class, inside a ninja log of tvm-ffi's JIT build (the row is the
    // class of the link diagnosis's first problem, whatever line matched).
    Case {
        log: "link_duplicate_ninja.log",
        stage: Stage::Link,
        rule: Some("link-duplicate-symbol"),
        evidence: &[8, 9],
        attempt: (1, 1, 1),
        cause: &[
            "?clamp_index@flashinfer@@YAHHH@Z",
            "rope_binding.o and rope.o",
            "header",
        ],
        fix: &["inline"],
        arch_intended: None,
    },
    Case {
        log: "link_crt_mismatch_ninja.log",
        stage: Stage::Link,
        rule: Some("link-crt-mismatch"),
        evidence: &[8, 9],
        attempt: (1, 1, 1),
        cause: &["rope.o /MD", "rope_binding.o /MT"],
        // tvm-ffi's JIT builds a Python extension: the DLL CRT, spelled for extension.py.
        fix: &["/MD", "extension.py", "-fms-runtime-lib=dll"],
        arch_intended: None,
    },
    Case {
        log: "link_machine_ninja.log",
        stage: Stage::Link,
        rule: Some("link-machine-mismatch"),
        // The link command's /MACHINE:X64 and the LNK1112.
        evidence: &[6, 8],
        attempt: (1, 1, 1),
        cause: &["tvm_ffi.lib(tvm_ffi.dll)", "x86", "x64"],
        fix: &["x64 build of tvm_ffi.lib"],
        arch_intended: None,
    },
    Case {
        log: "link_locked_ninja.log",
        stage: Stage::Link,
        rule: Some("link-cannot-open"),
        evidence: &[8],
        attempt: (1, 1, 1),
        cause: &["flashinfer_rope.dll", "in use"],
        fix: &["tasklist /m flashinfer_rope.dll", "kill leftover processes"],
        arch_intended: None,
    },
    Case {
        log: "link_toolset_ninja.log",
        stage: Stage::Link,
        rule: Some("link-toolset-mismatch"),
        // The link command shows MSVC 14.29.30133 (the toolset on disk), then the two names.
        evidence: &[6, 8, 9],
        attempt: (1, 1, 1),
        cause: &[
            "flashinfer_kernels.lib",
            "newer toolset",
            "__std_find_trivial_4",
        ],
        fix: &[
            "14.29.30133",
            "Visual Studio 2019",
            "rebuild flashinfer_kernels.lib",
        ],
        arch_intended: None,
    },
    Case {
        log: "link_entry_point_ninja.log",
        stage: Stage::Link,
        rule: Some("link-entry-point"),
        evidence: &[8],
        attempt: (1, 1, 1),
        cause: &["entry point"],
        fix: &["/SUBSYSTEM:CONSOLE", "/DLL"],
        arch_intended: None,
    },
    // A fatal code of the catalogue: the linker crashed.
    Case {
        log: "link_other_ninja.log",
        stage: Stage::Link,
        rule: Some("link-error"),
        evidence: &[8],
        attempt: (1, 1, 1),
        cause: &["internal error"],
        fix: &["/INCREMENTAL:NO"],
        arch_intended: None,
    },
    // A fatal code outside the catalogue (LNK1276, a bad directive in an object).
    Case {
        log: "link_unknown_ninja.log",
        stage: Stage::Link,
        rule: Some("link-error"),
        evidence: &[8],
        attempt: (1, 1, 1),
        cause: &["does not recognise"],
        fix: &["lnkfix diagnose"],
        arch_intended: None,
    },
    // A linker error of the kind `other`: the row says what the link diagnosis found.
    Case {
        log: "link_pdb_ninja.log",
        stage: Stage::Link,
        rule: Some("link-error"),
        evidence: &[8],
        attempt: (1, 1, 1),
        cause: &["program database", "held by another process"],
        fix: &["mspdbsrv.exe", "/PDB:"],
        arch_intended: None,
    },
    // Attempts: a banner behind the supervisor's tag, and ninja's count starting again.
    Case {
        log: "attempt_banner_tagged.log",
        stage: Stage::Link,
        rule: Some("link-machine-mismatch"),
        evidence: &[12, 14],
        attempt: (2, 2, 8),
        cause: &["x86"],
        fix: &["x64"],
        arch_intended: None,
    },
    Case {
        log: "ninja_restart.log",
        stage: Stage::Link,
        rule: Some("link-duplicate-symbol"),
        evidence: &[11, 12],
        attempt: (2, 2, 7),
        cause: &["?clamp_index@flashinfer@@YAHHH@Z"],
        fix: &["inline"],
        arch_intended: None,
    },
    Case {
        log: "ninja_reentry.log",
        stage: Stage::Compile,
        rule: Some("pdl-attr"),
        evidence: &[9],
        attempt: (2, 2, 6),
        cause: &["programmatic"],
        fix: &["gate"],
        arch_intended: None,
    },
];

fn check(case: &Case, report: &TriageReport) -> Vec<String> {
    let mut problems = Vec::new();
    if report.stage != case.stage {
        problems.push(format!("stage {} (want {})", report.stage, case.stage));
    }
    if report.rule.as_deref() != case.rule {
        problems.push(format!("rule {:?} (want {:?})", report.rule, case.rule));
    }
    let lines: Vec<u64> = report.evidence.iter().map(|e| e.line).collect();
    if lines != case.evidence {
        problems.push(format!(
            "evidence lines {lines:?} (want {:?})",
            case.evidence
        ));
    }
    let attempt = report
        .attempt
        .as_ref()
        .map(|a| (a.index, a.count, a.first_line));
    if attempt != Some(case.attempt) {
        problems.push(format!("attempt {attempt:?} (want {:?})", case.attempt));
    }
    for want in case.cause {
        if !report.cause.contains(want) {
            problems.push(format!("cause lacks {want:?}: {}", report.cause));
        }
    }
    for want in case.fix {
        if !report.fix.contains(want) {
            problems.push(format!("fix lacks {want:?}: {}", report.fix));
        }
    }
    if report.cause.contains('{') || report.fix.contains('{') || report.follow_up.contains('{') {
        problems.push(format!(
            "unfilled placeholder: {} / {} / {}",
            report.cause, report.fix, report.follow_up
        ));
    }
    if (report.stage == Stage::Link) != report.diagnosis.is_some() {
        problems.push("a diagnosis exactly for the link stage".into());
    }
    if report.stage != Stage::Unknown && report.stage != Stage::Success && report.advice.is_empty()
    {
        problems.push("no meta-rule advice".into());
    }
    problems
}

#[test]
fn every_truth_table_and_runtime_row_has_a_realistic_log() {
    let mut failures = Vec::new();
    for case in CASES {
        let options = TriageOptions {
            intended_arch: case.arch_intended.map(str::to_string),
            ..TriageOptions::default()
        };
        match triage::triage_path(&fixture(case.log), &options) {
            Ok(report) => {
                for p in check(case, &report) {
                    failures.push(format!("{}: {p}", case.log));
                }
            }
            Err(e) => failures.push(format!("{}: error {e}", case.log)),
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_shipped_row_is_exercised() {
    // Rows a fixture or the generic table below must reach (launch rows: tests/it/triage_inputs.rs).
    let reached: Vec<&str> = CASES
        .iter()
        .filter_map(|c| c.rule)
        .chain(GENERIC.iter().map(|g| g.1))
        .chain(["log-stale", "log-missing", "log-empty"])
        .chain([
            "backend-worker-gone",
            "ninja-failed",
            "errors-generated",
            "build-extension-failed",
        ])
        .chain(["linker-command-failed"])
        .collect();
    let book = triage::RowBook::builtin();
    let missing: Vec<&str> = book
        .rows()
        .map(|r| r.id.as_str())
        .filter(|id| !reached.contains(id))
        .collect();
    assert!(missing.is_empty(), "rows without a test: {missing:?}");
}

/// Generic rows (the flowchart's fallbacks) on short logs: (log, row, stage).
const GENERIC: &[(&str, &str, Stage)] = &[
    (
        "[1/2] cl /c k.cpp\nC:\\src\\k.cpp(12): error C2065: 'foo': undeclared identifier\n",
        "compile-error",
        Stage::Compile,
    ),
    (
        "worker | clang++: error: unknown argument: '-mno-ms-bitfields-x'\n",
        "clang-flag-rejected",
        Stage::Compile,
    ),
    (
        "C:\\src\\k.cu:3:10: fatal error: 'unistd.h' file not found\n",
        "header-not-found",
        Stage::Compile,
    ),
    (
        "C:\\src\\k.cu:3:1: error: unknown type name '__nv_bfloat16'\n",
        "unknown-type-name",
        Stage::Compile,
    ),
    (
        "clang: error: cannot find HIP runtime; provide its path via '--rocm-path'\n",
        "clang-driver-error",
        Stage::Compile,
    ),
    (
        "Traceback (most recent call last):\n  File \"x.py\", line 1, in <module>\nValueError: bad shape\n",
        "python-exception",
        Stage::Runtime,
    ),
    (
        "2026-11-30 12:00:00,000 ERROR worker | HIP error: out of memory\n",
        "gpu-runtime-error",
        Stage::Runtime,
    ),
    (
        "(venv) C:\\Users\\F>python test.py\nmain.c\nLINK : fatal error LNK1104: cannot open file 'python310.lib'\n",
        "link-cannot-open",
        Stage::Link,
    ),
    (
        "LINK : fatal error LNK1104: cannot open file 'C:\\cache\\flashinfer_rope.dll'\n",
        "link-cannot-open",
        Stage::Link,
    ),
    // A warning that explains the failure when nothing else in the log does: the row of its
    // problem's class.
    (
        "  C:\\openssl\\lib\\libssl.lib : warning LNK4272: library machine type 'x86' conflicts with target machine type 'x64' [C:\\b\\winpr.vcxproj]\n",
        "link-machine-mismatch",
        Stage::Link,
    ),
    // The same row with no class to hand over to: a default library that is no CRT's.
    (
        "LINK : warning LNK4098: defaultlib 'zlib.lib' conflicts with use of other libs; use /NODEFAULTLIB:library\n",
        "link-warning",
        Stage::Link,
    ),
];

#[test]
fn generic_rows() {
    let mut failures = Vec::new();
    for (log, rule, stage) in GENERIC {
        match triage::triage_bytes(log.as_bytes(), "generic", &TriageOptions::default()) {
            Ok(r) => {
                if r.rule.as_deref() != Some(*rule) || r.stage != *stage {
                    failures.push(format!("{rule}: got {:?} {} for {log:?}", r.rule, r.stage));
                }
                if r.fix.contains('{') || r.cause.contains('{') {
                    failures.push(format!(
                        "{rule}: unfilled placeholder: {} / {}",
                        r.cause, r.fix
                    ));
                }
            }
            Err(e) => failures.push(format!("{rule}: error {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn lnk1104_advice_depends_on_the_file() {
    let python = triage::triage_bytes(
        b"LINK : fatal error LNK1104: cannot open file 'python310.lib'\n",
        "x",
        &TriageOptions::default(),
    )
    .unwrap();
    assert!(python.fix.contains("libs"), "{}", python.fix);
    let locked = triage::triage_bytes(
        b"LINK : fatal error LNK1104: cannot open file 'flashinfer_rope.dll'\n",
        "x",
        &TriageOptions::default(),
    )
    .unwrap();
    assert!(
        locked.fix.contains("kill leftover processes"),
        "{}",
        locked.fix
    );
}

#[test]
fn first_root_error_wins_over_cascades_and_later_errors() {
    let report =
        triage::triage_path(&fixture("compile_msvc_flags.log"), &Default::default()).unwrap();
    // The root is the first '/O2' error, not the last line (worker gone) nor the RuntimeError.
    assert_eq!(report.evidence.last().unwrap().line, 10);
    let cascades: Vec<(&str, u64)> = report
        .cascades_ignored
        .iter()
        .map(|s| (s.rule.as_str(), s.line))
        .collect();
    assert!(
        cascades.contains(&("backend-worker-gone", 31)),
        "{cascades:?}"
    );
    assert!(cascades.contains(&("ninja-failed", 14)), "{cascades:?}");
    assert!(
        cascades.contains(&("build-extension-failed", 29)),
        "{cascades:?}"
    );
    // Repeats of the same error are not "also seen".
    assert!(report
        .also_seen
        .iter()
        .all(|s| s.rule != "clang-msvc-flags"));

    // A compile error after the wrong-arch command line: the arch is the root, the error is
    // listed for after the relaunch.
    let arch =
        triage::triage_path(&fixture("compile_arch_gfx906.log"), &Default::default()).unwrap();
    assert!(arch
        .also_seen
        .iter()
        .any(|s| s.rule == "compile-error" && s.line == 8));
    let check = arch.arch.unwrap();
    assert_eq!(check.variable_set, Some(false));
    assert_eq!(check.offload_archs[0].arch, "gfx906");
}

#[test]
fn newest_attempt_is_classified_and_only_its_symbols_diagnosed() {
    let report = triage::triage_path(&fixture("multi_attempt.log"), &Default::default()).unwrap();
    let diagnosis = report.diagnosis.as_ref().unwrap();
    let names: Vec<&str> = diagnosis.symbols.iter().map(|s| s.symbol.name()).collect();
    assert!(
        !names.contains(&"hipMalloc"),
        "attempt 2's symbol leaked: {names:?}"
    );
    assert!(names.contains(&"__CxxFrameHandler4"), "{names:?}");
    assert_eq!(report.attempt.as_ref().unwrap().started_by, "shell-prompt");

    let restart = triage::triage_path(&fixture("worker_restart.log"), &Default::default()).unwrap();
    let note = restart.attempt.as_ref().unwrap().note.clone().unwrap();
    assert!(note.contains("only cascades"), "{note}");

    let reentry = triage::triage_path(&fixture("ninja_reentry.log"), &Default::default()).unwrap();
    assert_eq!(
        reentry.attempt.as_ref().unwrap().started_by,
        "ninja-reentry"
    );
}

#[test]
fn runtime_arch_analysis_reports_what_the_command_lines_say() {
    let unwired = triage::triage_path(
        &fixture("runtime_invalid_device_unwired.log"),
        &Default::default(),
    )
    .unwrap();
    let check = unwired.arch.unwrap();
    assert_eq!(check.variable_set, Some(true));
    assert_eq!(check.intended, ["gfx1201"]);
    assert!(check.offload_archs.is_empty());

    // The JIT built for the intended arch: the stale cache / triton is to blame, not the flags.
    let log = "TVM_FFI_ROCM_ARCH_LIST=gfx1201\n[1/1] clang++ -x hip --offload-arch=gfx1201 -c k.cu -o k.o\nready to serve on 127.0.0.1:1919\nRuntimeError: CUDA error: invalid device function\n";
    let cached = triage::triage_bytes(log.as_bytes(), "x", &TriageOptions::default()).unwrap();
    assert_eq!(cached.rule.as_deref(), Some("invalid-device-function"));
    assert!(
        cached.cause.contains("comes from elsewhere"),
        "{}",
        cached.cause
    );
    assert!(cached.fix.contains("JIT cache"), "{}", cached.fix);

    // The command lines are in an earlier attempt than the failure (the module was cached).
    let log = "$ ft serve\n[1/1] clang++ -x hip --offload-arch=gfx906 -c k.cu -o k.o\nready to serve on 127.0.0.1:1919\n$ ft serve\nready to serve on 127.0.0.1:1919\nRuntimeError: CUDA error: invalid device function\n";
    let earlier = triage::triage_bytes(
        log.as_bytes(),
        "x",
        &TriageOptions {
            arch_list_env: Some("gfx1201".into()),
            ..TriageOptions::default()
        },
    )
    .unwrap();
    assert_eq!(earlier.attempt.as_ref().unwrap().index, 2);
    assert!(
        earlier.cause.contains("gfx906 (line 2)"),
        "{}",
        earlier.cause
    );
    assert!(
        earlier.cause.contains("read but never wired"),
        "{}",
        earlier.cause
    );
}

#[test]
fn success_with_a_wrong_arch_warns() {
    let log = "[1/1] clang++ -x hip --offload-arch=gfx906 -c k.cu -o k.o\nready to serve on 127.0.0.1:1919\n";
    let r = triage::triage_bytes(log.as_bytes(), "x", &TriageOptions::default()).unwrap();
    assert_eq!(r.stage, Stage::Success);
    assert_eq!(triage::exit_code(&r), 0);
    assert!(r
        .warnings
        .iter()
        .any(|w| w.contains("invalid device function")));
}

#[test]
fn exit_codes() {
    let run = |log: &str| {
        triage::exit_code(&triage::triage_bytes(log.as_bytes(), "x", &Default::default()).unwrap())
    };
    assert_eq!(run("ready to serve on 127.0.0.1:1919\n"), 0);
    assert_eq!(
        run("clang: error: unsupported option '-fPIC' for target 'x86_64-pc-windows-msvc'\n"),
        1
    );
    assert_eq!(run("nothing to see\n"), 3);
    assert_eq!(run("Backend worker is gone and cannot be restarted\n"), 3);
    assert_eq!(run(""), 1);
}

/// ninja's count starting again is a relaunch only after a failed run: a JIT run that builds
/// several modules starts a count per module.
#[test]
fn ninja_counts_start_again_for_each_module() {
    let log = "[1/2] clang++ -x hip --offload-arch=gfx1201 -c a.cu -o a.o\n\
               [2/2] link.exe a.o /DLL /OUT:a.dll\n\
               [1/2] clang++ -x hip --offload-arch=gfx1201 -c b.cu -o b.o\n\
               [2/2] link.exe b.o /DLL /OUT:b.dll\n\
               FAILED: b.dll\n\
               LINK : fatal error LNK1104: cannot open file 'b.dll'\n";
    let report = triage::triage_bytes(log.as_bytes(), "x", &TriageOptions::default()).unwrap();
    let attempt = report.attempt.unwrap();
    assert_eq!((attempt.index, attempt.count), (1, 1));
    assert_eq!(report.rule.as_deref(), Some("link-cannot-open"));
}
