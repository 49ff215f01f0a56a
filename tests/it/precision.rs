//! No bogus symbols: on every log people posted, every unresolved symbol lnkfix reports is one
//! the log names: in `../shared/examples` the careful reader's list (`cases.jsonl` `symbols`), in
//! `../shared/examples2` (other failure classes) the names the errors mention (`subjects`).
//! Precision must be at least 0.98 on every log and recall 1 on the first set; the figures are
//! printed (`cargo test --test precision -- --nocapture`).

use std::path::{Path, PathBuf};

fn shared(dir: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(dir);
    assert!(
        path.join("cases.jsonl").is_file(),
        "{} is missing: the tests read the shared examples beside the checkout",
        path.display()
    );
    path
}

/// The reported symbols: the linker-level name and the name as shown.
fn reported(log: PathBuf) -> Vec<(String, String)> {
    let bytes = std::fs::read(&log).unwrap_or_else(|e| panic!("{}: {e}", log.display()));
    let failure =
        lnkfix::symbols::collect(std::io::Cursor::new(bytes), Default::default()).unwrap();
    failure
        .symbols
        .iter()
        .map(|s| {
            (
                s.linker_name.clone().unwrap_or_else(|| s.name.clone()),
                s.name.clone(),
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
fn every_posted_log_has_no_bogus_symbol() {
    let mut failures = Vec::new();
    let (mut true_positives, mut reported_total, mut expected_total) = (0usize, 0usize, 0usize);
    for (set, log_dir, truth_field) in [
        ("examples", "", "symbols"),
        ("examples2", "logs", "subjects"),
    ] {
        let dir = shared(set);
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
