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
