//! Logs of link failures other than unresolved symbols, ours (`tests/logs/failures/`, four per
//! class of the six, two per fatal kind) and the ones real people posted (`common::LogSet`), with the truth in `cases.jsonl`:
//! the class and every file, object, member, symbol and value the errors name. Each is diagnosed
//! as a user would (`lnkfix diagnose --format json`): the first problem must be the log's class,
//! the problems must name the subjects, the exit code must be 1, and `triage` must answer the link
//! stage with the row of that class. The unresolved-symbol logs whose failure is not a missing
//! library are checked the same way. The figures are printed (`--nocapture`).

use crate::common::{self, LogSet};

use std::path::Path;

use common::StartRetrying;
use serde_json::Value;

fn run(args: &[&str]) -> (Value, i32) {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(args)
        .output_retrying()
        .expect("run lnkfix");
    let json = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: not JSON ({e})"));
    (json, output.status.code().unwrap_or(-1))
}

/// The problem kind of a case's class (`duplicate` is `duplicate-symbol`).
fn kind_of(class: &str) -> &str {
    match class {
        "duplicate" => "duplicate-symbol",
        other => other,
    }
}

/// The triage row of a problem kind: the six classes and `unresolved` have their own
/// (`link-crt-mismatch`); the fatal kinds (ltcg-mismatch, image-too-large, tool-missing,
/// tool-failed, pdb, corrupt-input, other) answer with the link stage's general row.
fn triage_row(kind: &str) -> String {
    match kind {
        "duplicate-symbol" | "crt-mismatch" | "machine-mismatch" | "cannot-open"
        | "toolset-mismatch" | "entry-point" | "unresolved" => format!("link-{kind}"),
        _ => "link-error".into(),
    }
}

/// What one log got: (class right, subjects named, subjects, a description).
struct Outcome {
    right: bool,
    named: usize,
    subjects: usize,
    line: String,
}

fn judge(
    log: &Path,
    want: &str,
    subjects: &[String],
    failures: &mut Vec<String>,
    id: &str,
) -> Outcome {
    let log = log.to_string_lossy().into_owned();
    let (json, code) = run(&["diagnose", "--format", "json", &log]);
    let problems = json["problems"].as_array().cloned().unwrap_or_default();
    let got = problems
        .first()
        .and_then(|p| p["kind"].as_str())
        .unwrap_or("none")
        .to_string();
    let named: Vec<String> = problems
        .iter()
        .flat_map(|p| p["subjects"].as_array().cloned().unwrap_or_default())
        .filter_map(|s| s.as_str().map(str::to_string))
        .collect();
    let missing: Vec<&String> = subjects
        .iter()
        .filter(|s| !named.iter().any(|n| n == *s || n.eq_ignore_ascii_case(s)))
        .collect();
    let right = got == want;
    if right && code != 1 {
        failures.push(format!("{id}: exit {code}, want 1"));
    }
    if !right && code == 0 {
        failures.push(format!("{id}: a failed link exits 0"));
    }
    if right {
        let (triage, _) = run(&["triage", "--format", "json", &log]);
        let row = triage_row(want);
        if triage["stage"] != "link" || triage["rule"] != row.as_str() {
            failures.push(format!(
                "{id}: triage {} {} (want link {row})",
                triage["stage"], triage["rule"]
            ));
        }
    }
    Outcome {
        right,
        named: subjects.len() - missing.len(),
        subjects: subjects.len(),
        line: format!(
            "{id}  {want:<17} got {got:<17} exit {code}  subjects {}/{}{}",
            subjects.len() - missing.len(),
            subjects.len(),
            if missing.is_empty() {
                String::new()
            } else {
                format!("  missing {missing:?}")
            }
        ),
    }
}

/// Logs whose paste shape the parser does not read yet. Each must exit 3 (a failed link, not
/// classified), never 0; when one gets its class, this list is out of date and the test says so.
/// Empty: the paste lenses read the last one (the Visual Studio Error List pasted as a Markdown
/// list with space-separated columns).
const PENDING_SHAPES: &[&str] = &[];

#[test]
fn every_class_of_our_failure_logs() {
    every_class_of_the_failure_logs(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn every_class_of_the_posted_failure_logs() {
    every_class_of_the_failure_logs(LogSet::Posted);
}

fn every_class_of_the_failure_logs(set: LogSet) {
    let dir = common::failure_logs(set);
    let cases = std::fs::read_to_string(dir.join("cases.jsonl")).unwrap();
    let mut failures = Vec::new();
    let mut report = Vec::new();
    let (mut right, mut named, mut total, mut count) = (0, 0, 0, 0);
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        let want = kind_of(case["error_class"].as_str().unwrap());
        let subjects: Vec<String> = case["subjects"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        let log = dir.join("logs").join(format!("{id}.log"));
        let outcome = judge(&log, want, &subjects, &mut failures, id);
        count += 1;
        right += usize::from(outcome.right);
        named += outcome.named;
        total += outcome.subjects;
        let pending = PENDING_SHAPES.contains(&id);
        if pending && outcome.right {
            failures.push(format!("{id}: now classified: take it off PENDING_SHAPES"));
        }
        if !pending && !outcome.right {
            failures.push(format!("{id}: wrong class: {}", outcome.line));
        }
        if !pending && outcome.named < outcome.subjects {
            failures.push(format!("{id}: subjects not named: {}", outcome.line));
        }
        if pending {
            let (_, code) = run(&["diagnose", "--format", "json", &log.to_string_lossy()]);
            if code != 3 {
                failures.push(format!(
                    "{id}: exit {code}, want 3 (a failed link not classified)"
                ));
            }
        }
        report.push(outcome.line);
    }
    println!(
        "{}: {right} of {count} logs get their class; {named} of {total} subjects named\n{}",
        dir.display(),
        report.join("\n")
    );
    // Ours: four logs of each of the six classes, then the fatal kinds (025-041) and 042-044; the posted
    // set has the six classes only.
    let want = match set {
        LogSet::Ours => 44,
        LogSet::Posted => 24,
    };
    assert_eq!(
        count,
        want,
        "{}: a failure set has {want} logs",
        dir.display()
    );
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// An unresolved-symbol log whose failure is not a missing library: its id, its class and the
/// subjects the problems must name.
type OtherFailure<'a> = (&'a str, &'a str, &'a [&'a str]);

/// Our unresolved-symbol logs whose failure is not a missing library, by their `fix_source`: 093
/// cannot open a Python library; 013 and 031 are prebuilt libraries from a newer toolset
/// (`__CxxFrameHandler4`, `__std_*` helpers referenced from library members); 026 warns LNK4098
/// (a debug library in a release link).
#[test]
fn our_unresolved_logs_other_failures() {
    other_failures(LogSet::Ours, OUR_OTHER_FAILURES);
}

/// The same, on the posted logs of those shapes.
#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn posted_unresolved_logs_other_failures() {
    other_failures(
        LogSet::Posted,
        &[
            ("093", "cannot-open", &["python310.lib"]),
            (
                "013",
                "toolset-mismatch",
                &[
                    "__CxxFrameHandler4",
                    "C:\\repos\\casparCG\\casparcg-server\\build\\shell\\libcef_dll_wrapper.lib(menu_model_ctocpp.obj)",
                ],
            ),
            (
                "031",
                "toolset-mismatch",
                &["__std_find_trivial_1", "__std_find_trivial_8", "exiv2.lib(xmp.cpp.obj)"],
            ),
            ("026", "crt-mismatch", &["MSVCRTD"]),
        ],
    );
}

const OUR_OTHER_FAILURES: &[OtherFailure] = &[
    ("093", "cannot-open", &["python312.lib"]),
    (
        "013",
        "toolset-mismatch",
        &[
            "__CxxFrameHandler4",
            "D:\\build\\kiosk\\deps\\webview_wrapper.lib(browser_view_ctocpp.obj)",
        ],
    ),
    (
        "031",
        "toolset-mismatch",
        &[
            "__std_count_trivial_1",
            "__std_find_last_trivial_1",
            "textkit.lib(scan.cpp.obj)",
        ],
    ),
    ("026", "crt-mismatch", &["MSVCRTD"]),
];

fn other_failures(set: LogSet, cases: &[OtherFailure]) {
    let dir = common::unresolved_logs(set);
    assert!(cases.len() >= 4, "{} cases", cases.len());
    let mut failures = Vec::new();
    let mut report = Vec::new();
    let (mut right, mut named, mut total) = (0, 0, 0);
    for (id, want, subjects) in cases {
        let subjects: Vec<String> = subjects.iter().map(|s| s.to_string()).collect();
        let outcome = judge(
            &dir.join(format!("{id}.log")),
            want,
            &subjects,
            &mut failures,
            id,
        );
        right += usize::from(outcome.right);
        named += outcome.named;
        total += outcome.subjects;
        if !outcome.right || outcome.named < outcome.subjects {
            failures.push(outcome.line.clone());
        }
        report.push(outcome.line);
    }
    println!(
        "examples (other failures): {right} of {} logs get their class; {named} of {total} subjects named\n{}",
        cases.len(),
        report.join("\n")
    );
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// A log of a fatal kind: its id, the kind, and what the cause and the fix must say (read from
/// the log's own evidence where it holds it: the file, the tool, the compiler versions).
type FatalCase<'a> = (&'a str, &'a str, &'a str, &'a str);

/// Our logs of the fatal kinds (025-041), a machine mismatch behind CMake's platform (042), a
/// dllimport mismatch told by warnings (043) and a misspelt /LIBPATH (044): the first problem's kind, cause and fix, and the text
/// report's headline, cause and fix lines say the same as the JSON.
const FATAL_CASES: &[FatalCase] = &[
    ("025", "ltcg-mismatch", "than other objects such as C:\\work\\orbit\\Viewer\\obj\\Release64\\panel.obj", "rebuild C:\\work\\orbit\\vendor\\bin\\Release64\\geomkit.lib with the toolset that links it"),
    ("026", "ltcg-mismatch", "relay.dir\\Release\\Session.obj was built by an older compiler", "rebuild relay.dir\\Release\\Session.obj"),
    ("027", "image-too-large", "lib.exe writes an archive of at most 4 GB", "make src\\solver\\solver_core.lib smaller"),
    ("028", "image-too-large", "2 GB for what the loader maps", "fewer GPU architectures"),
    ("029", "tool-missing", "Windows SDK's bin directory", "developer prompt"),
    ("030", "tool-failed", "(line 3: error RC2135 : file not found: probe.exe.manifest)", "fix what rc.exe reports on line 3"),
    ("031", "pdb", "the file system refused the program database", "delete the .pdb"),
    ("032", "pdb", "held by another process", "end mspdbsrv.exe"),
    ("033", "corrupt-input", "only about 132 bytes long", "git lfs pull"),
    ("034", "corrupt-input", "lzcore.dll is a DLL", "link the import library lzcore.lib"),
    ("035", "corrupt-input", "vendor/noise.lib ends before the data its headers announce", "delete vendor/noise.lib and rebuild it"),
    ("036", "other", "two targets of the build have the same output name", "OUTPUT_NAME"),
    ("037", "other", "static libraries carry their own (FluxCore_static_64.lib(FluxCore.rc.res) and FluxCommon_static_64.lib(FluxCommon.rc.res))", "without their .rc files"),
    ("038", "other", "a function compiled to managed code", "remove ?clamp@@$$J0YANNNN@Z from ChartsNet.def"),
    ("039", "other", "given /MANIFESTINPUT without /MANIFEST:EMBED", "add /MANIFEST:EMBED"),
    ("040", "other", "the object compiled with /Yc (stdafx.obj)", "link stdafx.obj"),
    ("041", "tool-failed", "being used by another process", "close what holds the image mt.exe writes into"),
    ("042", "machine-mismatch", "CMake's Visual Studio 16 2019 generator made the Visual Studio projects for Win32 (-A Win32 on line 1)", "configure a new build directory for x64: cmake -S <source> -B <new build directory> -G \"Visual Studio 16 2019\" -A x64"),
    ("043", "dllimport-mismatch", "(__imp_tiles_render and __imp_tiles_layer_count), which only a DLL's import library defines", "likely TILES_STATIC defined"),
    ("044", "cannot-open", "link.exe ignored /LIBPATHC:\\sdk\\zmq\\lib (line 3, LNK4044", "write the option as /LIBPATH:C:\\sdk\\zmq\\lib"),
];

#[test]
fn the_fatal_kinds_give_their_cause_and_fix_in_json_and_text() {
    let dir = common::failure_logs(LogSet::Ours).join("logs");
    let mut failures = Vec::new();
    for (id, kind, cause, fix) in FATAL_CASES {
        let log = dir.join(format!("{id}.log"));
        let log = log.to_string_lossy().into_owned();
        let (json, code) = run(&["diagnose", "--format", "json", &log]);
        let p = &json["problems"][0];
        let (got_kind, got_cause, got_fix, summary) = (
            p["kind"].as_str().unwrap_or("none"),
            p["cause"].as_str().unwrap_or(""),
            p["fix"].as_str().unwrap_or(""),
            p["summary"].as_str().unwrap_or(""),
        );
        if code != 1 || got_kind != *kind {
            failures.push(format!(
                "{id}: exit {code}, kind {got_kind} (want 1, {kind})"
            ));
        }
        if !got_cause.contains(cause) {
            failures.push(format!("{id}: cause {got_cause:?} lacks {cause:?}"));
        }
        if !got_fix.contains(fix) {
            failures.push(format!("{id}: fix {got_fix:?} lacks {fix:?}"));
        }
        let text = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"))
            .args(["diagnose", &log])
            .output_retrying()
            .expect("run lnkfix");
        let text = String::from_utf8_lossy(&text.stdout).into_owned();
        let headline = text.lines().next().unwrap_or("");
        if !headline.starts_with("lnkfix: ") || !headline.ends_with(summary) {
            failures.push(format!(
                "{id}: headline {headline:?} is not the summary {summary:?}"
            ));
        }
        for (label, value) in [("  cause: ", got_cause), ("  fix:   ", got_fix)] {
            if !text.lines().any(|l| l == format!("{label}{value}")) {
                failures.push(format!("{id}: no text line {label}{value:?}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A link that succeeded with warnings (`tests/logs/warnings/001.log`): no problem, exit code 0
/// (the log shows no failed link), and each warning with its fix: a compiler option given to the
/// linker (LNK4044), a library's missing PDB (LNK4099, three lines, one warning), the static C
/// runtime's name imported by a /MD library and a project's own name imported (LNK4217).
#[test]
fn a_link_that_succeeded_with_warnings_exits_0_and_gives_their_fixes() {
    let log = common::root()
        .join("tests/logs/warnings/001.log")
        .to_string_lossy()
        .into_owned();
    let (json, code) = run(&["diagnose", "--format", "json", &log]);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["link_failed"], false);
    assert_eq!(json["problems"].as_array().map(Vec::len), Some(0), "{json}");
    let warnings: Vec<&str> = json["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for (starts, says) in [
        (
            "LNK4044 (line 7)",
            "/EHsc, a compiler option given to the linker; fix: pass it to the compiler",
        ),
        (
            "LNK4099 (lines 8, 9 and 10)",
            "put yamlcpp.pdb beside yamlcpp.lib",
        ),
        ("LNK4217 (line 11)", "one runtime option (/MD, or /MT)"),
        ("LNK4217 (line 12)", "<TARGET>_EXPORTS"),
    ] {
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with(starts) && w.contains(says)),
            "{starts} / {says}: {warnings:#?}"
        );
    }
    let text = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(["diagnose", &log])
        .output_retrying()
        .expect("run lnkfix");
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.starts_with("lnkfix: no link failure in the log"),
        "{text}"
    );
    assert!(
        text.contains("warning: LNK4099 (lines 8, 9 and 10)"),
        "{text}"
    );
}
