//! Triage's inputs and outputs: freshness (stale, missing, empty logs), stdin and encodings, user
//! rule files, the unresolved-symbol logs (ours and the posted ones, `common::LogSet`), the JSON shape and the text report, and
//! inputs that must not panic.

use crate::common::{self, LogSet};
use lnkfix::commands::triage::{self, Stage, TriageError, TriageOptions};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/triage")
        .join(name)
}

/// Copies a fixture into a temporary directory and sets its modification time.
fn log_with_mtime(dir: &tempfile::TempDir, name: &str, modified: SystemTime) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::copy(fixture(name), &path).unwrap();
    let file = std::fs::File::options().write(true).open(&path).unwrap();
    file.set_modified(modified).unwrap();
    path
}

#[test]
fn stale_log_is_a_launch_failure_and_is_not_parsed() {
    let dir = tempfile::tempdir().unwrap();
    let now = SystemTime::now();
    let path = log_with_mtime(&dir, "link_lnk2019.log", now - Duration::from_secs(3600));
    let options = TriageOptions {
        since: Some(now - Duration::from_secs(600)),
        ..TriageOptions::default()
    };
    let report = triage::triage_path(&path, &options).unwrap();
    assert_eq!(report.stage, Stage::Launch);
    assert_eq!(report.rule.as_deref(), Some("log-stale"));
    assert!(report
        .fix
        .contains("the process never started: kill leftover processes"));
    assert!(report.fix.contains("relaunch"));
    // Not parsed as fresh: no evidence, no attempt, no diagnosis.
    assert!(report.evidence.is_empty());
    assert!(report.attempt.is_none());
    assert!(report.diagnosis.is_none());
    assert_eq!(report.freshness.as_ref().unwrap().fresh, Some(false));
    assert_eq!(triage::exit_code(&report), 1);

    // --started-after: a marker file touched when the attempt started.
    let marker = dir.path().join("attempt.started");
    std::fs::write(&marker, b"").unwrap();
    std::fs::File::options()
        .write(true)
        .open(&marker)
        .unwrap()
        .set_modified(now - Duration::from_secs(60))
        .unwrap();
    let options = TriageOptions {
        started_after: Some(marker.clone()),
        ..TriageOptions::default()
    };
    let report = triage::triage_path(&path, &options).unwrap();
    assert_eq!(report.rule.as_deref(), Some("log-stale"));

    // The same log written after the attempt started is read.
    let fresh = log_with_mtime(&dir, "compile_fpic.log", now);
    let report = triage::triage_path(&fresh, &options).unwrap();
    assert_eq!(report.rule.as_deref(), Some("fpic-msvc"));
    assert_eq!(report.freshness.as_ref().unwrap().fresh, Some(true));

    // An unreadable marker is an error (exit 2), not a guess.
    let options = TriageOptions {
        started_after: Some(dir.path().join("no-such-marker")),
        ..TriageOptions::default()
    };
    assert!(matches!(
        triage::triage_path(&fresh, &options),
        Err(TriageError::StartedAfter { .. })
    ));
}

#[test]
fn missing_and_empty_logs() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("serve.log");
    let options = TriageOptions {
        since: Some(SystemTime::now()),
        ..TriageOptions::default()
    };
    let report = triage::triage_path(&missing, &options).unwrap();
    assert_eq!(report.stage, Stage::Launch);
    assert_eq!(report.rule.as_deref(), Some("log-missing"));
    // Without a freshness check a missing file is unreadable input.
    assert!(matches!(
        triage::triage_path(&missing, &TriageOptions::default()),
        Err(TriageError::Read { .. })
    ));
    assert!(matches!(
        triage::triage_path(dir.path(), &TriageOptions::default()),
        Err(TriageError::Read { .. })
    ));
    for empty in [&b""[..], b"\r\n\r\n  \n", b"\xFF\xFE"] {
        let report = triage::triage_bytes(empty, "-", &TriageOptions::default()).unwrap();
        assert_eq!(report.rule.as_deref(), Some("log-empty"), "{empty:?}");
    }
}

#[test]
fn stdin_utf16_and_crlf_give_the_same_answer() {
    let text = std::fs::read_to_string(fixture("link_lnk2019.log")).unwrap();
    let plain = triage::triage_reader(text.as_bytes(), "-", &TriageOptions::default()).unwrap();
    let crlf = text.replace('\n', "\r\n");
    let mut utf16 = vec![0xFF, 0xFE];
    for unit in crlf.encode_utf16() {
        utf16.extend_from_slice(&unit.to_le_bytes());
    }
    let wide = triage::triage_reader(&utf16[..], "-", &TriageOptions::default()).unwrap();
    for r in [&plain, &wide] {
        assert_eq!(r.stage, Stage::Link);
        assert_eq!(r.evidence[0].line, 9);
        assert_eq!(r.diagnosis.as_ref().unwrap().symbols.len(), 3);
    }
    // A stream larger than the in-memory buffer is spilled to a temporary file and read twice.
    let mut big = String::new();
    let filler = "[worker] INFO step 1234 ok tokens/s=812.4 kv_cache=0.41 batch=8 queue=0\n";
    for _ in 0..200 {
        big.push_str(filler);
    }
    let first_link_line = 200 + 9;
    big.push_str(&text);
    let options = TriageOptions {
        stream_memory_limit: Some(4096),
        ..TriageOptions::default()
    };
    let spilled = triage::triage_reader(big.as_bytes(), "-", &options).unwrap();
    assert_eq!(spilled.stage, Stage::Link);
    assert_eq!(spilled.evidence[0].line, first_link_line);
    assert_eq!(spilled.diagnosis.as_ref().unwrap().symbols.len(), 3);
}

#[test]
fn python_repr_logs_are_expanded() {
    let log = "Traceback (most recent call last):\n  File \"x.py\", line 9, in build\nRuntimeError: Error building extension 'k': b'[1/1] clang++ -x hip -fPIC -c k.cu\\r\\nclang++: error: unsupported option \\'-fPIC\\' for target \\'x86_64-pc-windows-msvc\\'\\r\\nninja: build stopped: subcommand failed.\\r\\n'\n";
    let r = triage::triage_bytes(log.as_bytes(), "x", &TriageOptions::default()).unwrap();
    assert_eq!(r.rule.as_deref(), Some("fpic-msvc"));
    assert_eq!(r.evidence.last().unwrap().line, 3);
}

#[test]
fn user_rules_add_and_replace_rows() {
    let dir = tempfile::tempdir().unwrap();
    let rules = dir.path().join("mine.json");
    std::fs::write(
        &rules,
        r#"{
          "schema_version": 1,
          "rows": [
            { "id": "hip-oom", "stage": "runtime", "kind": "root",
              "patterns": ["hipErrorOutOfMemory .*?(?P<bytes>\\d+) bytes"],
              "cause": "the GPU ran out of memory allocating {bytes} bytes",
              "fix": "lower --max-batch", "follow_up": "no hipErrorOutOfMemory",
              "meta": ["one-change"] },
            { "id": "ready-to-serve", "stage": "success", "kind": "success",
              "patterns": ["ready to serve on (?P<address>\\S+)"],
              "cause": "up on {address}", "fix": "run the smoke test" }
          ],
          "attempt_markers": [ { "id": "my-banner", "pattern": "^>>> relaunch" } ]
        }"#,
    )
    .unwrap();
    let options = TriageOptions {
        extra_rules: vec![rules.clone()],
        ..TriageOptions::default()
    };
    let log = "ready to serve on 127.0.0.1:1919\nhipErrorOutOfMemory allocating 1073741824 bytes\n>>> relaunch\nready to serve on 127.0.0.1:1919\n";
    let r = triage::triage_bytes(log.as_bytes(), "x", &options).unwrap();
    assert_eq!(r.rule.as_deref(), Some("ready-to-serve"));
    assert_eq!(r.fix, "run the smoke test");
    assert_eq!(r.attempt.as_ref().unwrap().started_by, "my-banner");
    let r = triage::triage_bytes(&log.as_bytes()[..80], "x", &options).unwrap();
    assert_eq!(r.rule.as_deref(), Some("hip-oom"));
    assert_eq!(
        r.cause,
        "the GPU ran out of memory allocating 1073741824 bytes"
    );

    // Bad files are errors that name the file and the row.
    for (text, want) in [
        (
            r#"{"schema_version": 1, "rows": [{"id": "x", "stage": "runtime", "kind": "root", "patterns": ["("]}]}"#,
            "row x: bad pattern",
        ),
        (
            r#"{"schema_version": 1, "rows": [{"id": "x", "kind": "root", "patterns": ["a"]}]}"#,
            "needs a stage",
        ),
        (
            r#"{"schema_version": 1, "rows": [{"id": "x", "stage": "nowhere", "kind": "root"}]}"#,
            "not a valid",
        ),
        (
            r#"{"schema_version": 1, "rows": [{"id": "x", "stage": "runtime", "kind": "root", "meta": ["nope"]}]}"#,
            "unknown meta-rule",
        ),
        ("not json", "not a valid"),
    ] {
        std::fs::write(&rules, text).unwrap();
        match triage::triage_bytes(b"x\n", "x", &options) {
            Err(e @ TriageError::Rules { .. }) => {
                let message = e.to_string();
                assert!(message.contains(want), "{message}");
                assert!(message.contains("mine.json"), "{message}");
            }
            other => panic!("{text}: {other:?}"),
        }
    }

    // A link-symbol rule file passed with --rules feeds the embedded diagnosis.
    std::fs::write(
        &rules,
        r#"{"schema_version": 1, "families": {"acme": {"description": "ACME", "crt": false, "libraries": null}},
            "rules": [{"id": "acme", "match": {"prefix": ["acme_"]}, "family": "acme"}]}"#,
    )
    .unwrap();
    let r = triage::triage_bytes(
        b"k.obj : error LNK2019: unresolved external symbol acme_init referenced in function main\n",
        "x",
        &options,
    )
    .unwrap();
    assert_eq!(r.diagnosis.unwrap().symbols[0].family, "acme");
}

#[test]
fn our_unresolved_logs_are_link_stage_with_a_diagnosis() {
    unresolved_logs_are_link_stage_with_a_diagnosis(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn posted_unresolved_logs_are_link_stage_with_a_diagnosis() {
    unresolved_logs_are_link_stage_with_a_diagnosis(LogSet::Posted);
}

fn unresolved_logs_are_link_stage_with_a_diagnosis(set: LogSet) {
    let dir = common::unresolved_logs(set);
    let mut ids: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".log").map(str::to_string)
        })
        .collect();
    ids.sort();
    assert!(ids.len() >= 25, "only {} examples", ids.len());
    let mut failures = Vec::new();
    for id in &ids {
        let path = dir.join(format!("{id}.log"));
        let report = match triage::triage_path(&path, &TriageOptions::default()) {
            Ok(r) => r,
            Err(e) => {
                failures.push(format!("{id}: error {e}"));
                continue;
            }
        };
        // The class of each log's failure (cases.jsonl's fix_source): 093 cannot open
        // a Python library; 013 and 031 are prebuilt libraries from a newer toolset; 026 warns
        // LNK4098 (a debug library in a release link) beside unresolved C runtime names; 161 and
        // 166 warn LNK4098 too (LIBCMT beside a CUDA link, as posted), but none of their
        // unresolved names is the C runtime's: they fail for the missing CUDA library, like the
        // rest.
        let want_rule = match id.as_str() {
            "093" => "link-cannot-open",
            "013" | "031" => "link-toolset-mismatch",
            "026" => "link-crt-mismatch",
            _ => "link-unresolved",
        };
        if report.stage != Stage::Link || report.rule.as_deref() != Some(want_rule) {
            failures.push(format!(
                "{id}: {} {:?} (want link {want_rule})",
                report.stage, report.rule
            ));
        }
        match &report.diagnosis {
            None => failures.push(format!("{id}: no diagnosis")),
            Some(d) if id != "093" && d.symbols.is_empty() => {
                failures.push(format!("{id}: diagnosis without symbols"))
            }
            Some(_) => {}
        }
        if report.evidence.is_empty() {
            failures.push(format!("{id}: no evidence"));
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
fn json_carries_the_documented_fields() {
    let report = triage::triage_path(&fixture("link_lnk2019.log"), &Default::default()).unwrap();
    let mut out = Vec::new();
    triage::write_json(&report, &mut out).unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(v["schema_version"], 1);
    assert_eq!(v["stage"], "link");
    assert_eq!(v["rule"], "link-unresolved");
    assert_eq!(v["evidence"][0]["line"], 9);
    assert!(v["evidence"][0]["text"]
        .as_str()
        .unwrap()
        .contains("LNK2019"));
    assert!(v["cause"].is_string() && v["fix"].is_string() && v["follow_up"].is_string());
    assert_eq!(v["attempt"]["index"], 1);
    assert_eq!(v["attempt"]["first_line"], 1);
    assert_eq!(v["diagnosis"]["schema_version"], 1);
    assert!(v["diagnosis"]["link_flags"]
        .as_array()
        .unwrap()
        .iter()
        .any(|f| f == "amdhip64.lib"));
    assert!(v["cascades_ignored"].as_array().unwrap().len() >= 3);

    let stale = triage::triage_bytes(
        b"x\n",
        "x",
        &TriageOptions {
            since: Some(SystemTime::now()),
            log_mtime: Some(SystemTime::now() - Duration::from_secs(5)),
            ..TriageOptions::default()
        },
    )
    .unwrap();
    let v = serde_json::to_value(&stale).unwrap();
    assert_eq!(v["stage"], "launch");
    assert!(v["attempt"].is_null());
    assert!(v["freshness"]["log_modified"]
        .as_str()
        .unwrap()
        .ends_with('Z'));
}

#[test]
fn text_report() {
    let render = |name: &str| {
        let report = triage::triage_path(&fixture(name), &Default::default()).unwrap();
        let mut out = Vec::new();
        triage::render_text(&report, &mut out, false).unwrap();
        String::from_utf8(out).unwrap()
    };
    let text = render("compile_fpic.log");
    assert!(
        text.starts_with("lnkfix triage: stage compile (rule fpic-msvc), attempt 1 of 1"),
        "{text}"
    );
    assert!(
        text.contains("       8 | clang++: error: unsupported option '-fPIC'"),
        "{text}"
    );
    assert!(text.contains("fix:"), "{text}");
    assert!(text.contains("One change per relaunch"), "{text}");
    assert!(text.contains("ignored cascades"), "{text}");
    assert!(!text.contains('\u{1b}'), "no colour unless asked");

    let link = render("link_lnk2019.log");
    assert!(link.contains("link diagnosis:"), "{link}");
    assert!(link.contains("amdhip64.lib"), "{link}");

    let report = triage::triage_path(&fixture("success.log"), &Default::default()).unwrap();
    let mut out = Vec::new();
    triage::render_text(&report, &mut out, true).unwrap();
    assert!(String::from_utf8(out).unwrap().contains('\u{1b}'));
}

#[test]
fn odd_inputs_do_not_panic() {
    // A deterministic pseudo-random stream of bytes biased towards the patterns' characters.
    let alphabet = b"LNK2019 error: '/{}()[]\\\r\n\t\x00\xff\xfe gfx906 --offload-arch= ready to serve on KeyError: Keyword argument x was specified but unrecognised b'\\r\\n'";
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    for round in 0..40 {
        let mut bytes = Vec::new();
        for _ in 0..(round * 97 + 13) {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            bytes.push(alphabet[(state % alphabet.len() as u64) as usize]);
        }
        let _ = triage::triage_bytes(&bytes, "fuzz", &TriageOptions::default()).unwrap();
    }
    // One very long line, cut at the limit with a warning.
    let mut long =
        b"clang++: error: unsupported option '-fPIC' for target 'x86_64-pc-windows-msvc' ".to_vec();
    long.extend(std::iter::repeat_n(b'x', 3 << 20));
    long.push(b'\n');
    let r = triage::triage_bytes(&long, "long", &TriageOptions::default()).unwrap();
    assert_eq!(r.rule.as_deref(), Some("fpic-msvc"));
    assert!(r.evidence[0].text.chars().count() < 1000);
    assert!(r.warnings.iter().any(|w| w.contains("cut")));
}

#[test]
fn since_times_parse() {
    let t = triage::parse_time("2026-11-30T12:00:00Z").unwrap();
    assert_eq!(triage::format_rfc3339(t), "2026-11-30T12:00:00Z");
    assert!(matches!(
        triage::parse_time("2026-11-30 12:00"),
        Err(TriageError::Time { .. })
    ));
}

/// Triage reads link records the way `diagnose` does: the shapes its rows' patterns do not name
/// (a driver's `error: lld-link:`, a respelled `LNK 2001`, Markdown around MSBuild's prefixes)
/// still answer the link stage, at the record's line.
#[test]
fn triage_reads_every_shape_diagnose_reads() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (
            "zig.log",
            "Build Summary: 1/3 steps succeeded\nerror: lld-link: undefined symbol: hipMalloc\n>>> referenced by kern.obj\n",
            2,
        ),
        (
            "respelled.log",
            "[4/4] Linking app.exe\nmain.obj : error LNK 2001: unresolved external symbol hipFree\n",
            2,
        ),
        (
            "markdown.log",
            "### Output\n> 1>main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\n",
            2,
        ),
    ];
    for (name, text, line) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let report = triage::triage_path(&path, &TriageOptions::default()).unwrap();
        assert_eq!(report.stage, Stage::Link, "{name}: {report:?}");
        assert_eq!(report.rule.as_deref(), Some("link-unresolved"), "{name}");
        assert!(
            report.evidence.iter().any(|e| e.line == line),
            "{name}: {:?}",
            report.evidence
        );
    }
}

/// A runtime error caused by how the code was built: when the log shows the GPU's arch
/// (`TRITON_OVERRIDE_ARCH=gfx1201`), the intent is read from it, the compile line that built the
/// other arch is cited as the root, and the fix names the arch.
#[test]
fn the_gpu_the_log_shows_is_the_intended_arch() {
    let report = triage::triage_path(
        &fixture("runtime_invalid_device_shown.log"),
        &TriageOptions::default(),
    )
    .unwrap();
    assert_eq!(report.stage, Stage::Runtime);
    assert!(
        report.evidence.iter().any(|e| e.line == 4),
        "{:?}",
        report.evidence
    );
    assert!(
        report.fix.contains("TVM_FFI_ROCM_ARCH_LIST=gfx1201"),
        "{}",
        report.fix
    );
    let arch = report.arch.as_ref().unwrap();
    assert_eq!(arch.intended, ["gfx1201"]);
    assert_eq!(
        arch.intended_source,
        Some(lnkfix::commands::triage::IntendedSource::LogDevice)
    );
}
