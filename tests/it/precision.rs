//! No bogus symbols: on every log, ours (`tests/logs/`) and the posted ones (`common::LogSet`),
//! every unresolved symbol lnkfix reports is one the log names: in the unresolved-symbol logs the
//! careful reader's list (`cases.jsonl` `symbols`), in the other failure classes the names the
//! errors mention (`subjects`). Precision must be at least 0.98 on every log and recall 1 on the
//! unresolved-symbol logs; the figures are printed (`-- --nocapture`).

use crate::common::{self, LogSet};

use std::path::{Path, PathBuf};

/// The reported symbols: the linker-level name and the name as shown.
fn reported(log: PathBuf) -> Vec<(String, String)> {
    let bytes = std::fs::read(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    let failure =
        lnkfix::read::symbols::collect(std::io::Cursor::new(bytes), Default::default()).unwrap();
    failure
        .symbols
        .iter()
        .map(|s| {
            (
                s.linker_name().unwrap_or(s.name()).to_string(),
                s.name().to_string(),
            )
        })
        .collect()
}

fn cases(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("cases.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_log_of_ours_has_no_bogus_symbol() {
    every_log_has_no_bogus_symbol(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn every_posted_log_has_no_bogus_symbol() {
    every_log_has_no_bogus_symbol(LogSet::Posted);
}

fn every_log_has_no_bogus_symbol(log_set: LogSet) {
    let mut failures = Vec::new();
    let (mut true_positives, mut reported_total, mut expected_total) = (0usize, 0usize, 0usize);
    for (set, log_dir, truth_field) in [
        ("examples", "", "symbols"),
        ("examples2", "logs", "subjects"),
    ] {
        let dir = match set {
            "examples" => common::unresolved_logs(log_set),
            _ => common::failure_logs(log_set),
        };
        for case in cases(&dir) {
            let id = case["id"].as_str().unwrap();
            let truth = strings(&case[truth_field]);
            let got = reported(dir.join(log_dir).join(format!("{id}.log")));
            let right = got
                .iter()
                .filter(|(linker, shown)| truth.contains(linker) || truth.contains(shown))
                .count();
            let precision = if got.is_empty() {
                1.0
            } else {
                right as f64 / got.len() as f64
            };
            if precision < 0.98 {
                let bogus: Vec<&String> = got
                    .iter()
                    .filter(|(l, s)| !truth.contains(l) && !truth.contains(s))
                    .map(|(l, _)| l)
                    .collect();
                failures.push(format!(
                    "{set}/{id}: precision {precision:.2}, bogus {bogus:?}"
                ));
            }
            true_positives += right;
            reported_total += got.len();
            if set == "examples" {
                expected_total += truth.len();
                if right < truth.len() {
                    failures.push(format!(
                        "{set}/{id}: {right} of {} symbols found",
                        truth.len()
                    ));
                }
            }
        }
    }
    println!(
        "precision {:.3} ({true_positives} of {reported_total} reported), every one of the {expected_total} symbols of the first set found",
        true_positives as f64 / reported_total.max(1) as f64
    );
    assert!(
        reported_total > 60,
        "only {reported_total} symbols reported"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
