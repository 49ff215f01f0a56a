//! The triage report: its types (what `triage --format json` prints) and how a row's texts fill
//! it.

use serde::Serialize;
use std::collections::BTreeMap;

use super::rows::{self, Row, RowBook};
use super::{ArchCheck, Stage, SCHEMA_VERSION};
use crate::resolve::Diagnosis;

/// One line of the input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceLine {
    /// 1-based line number in the input.
    pub line: u64,
    /// The line's text (colour escapes removed; very long lines shortened around the match).
    pub text: String,
    /// The code that formats the line's Python exception, best first (runtime stage, with
    /// `--site-packages`/`--python`; absent otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raisers: Option<Vec<crate::commands::whence::Candidate>>,
}

/// The attempt that was classified.
#[derive(Debug, Clone, Serialize)]
pub struct Attempt {
    /// 1-based index among the attempts in the log.
    pub index: usize,
    /// How many attempts the log holds.
    pub count: usize,
    /// The attempt's first line.
    pub first_line: u64,
    /// The attempt's last line.
    pub last_line: u64,
    /// What started it: an attempt marker id, `ninja-reentry`, or `start-of-log`.
    pub started_by: String,
    /// Why an earlier attempt than the newest was classified, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// A matched line that is not the answer: a cascade, or another error to fix after this one.
#[derive(Debug, Clone, Serialize)]
pub struct Seen {
    /// The row that matched.
    pub rule: String,
    /// The row's stage (`None` for cascades).
    pub stage: Option<Stage>,
    /// 1-based line number.
    pub line: u64,
    /// The line.
    pub text: String,
}

/// The freshness check (`--since`, `--started-after`).
#[derive(Debug, Clone, Serialize)]
pub struct Freshness {
    /// When the log was last written (RFC 3339, UTC), if known.
    pub log_modified: Option<String>,
    /// When the attempt started (RFC 3339, UTC).
    pub attempt_started: String,
    /// Whether the log was written after the attempt started.
    pub fresh: Option<bool>,
}

/// The answer: what `triage --format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct TriageReport {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The log read (`-` for stdin).
    pub log: String,
    /// The stage.
    pub stage: Stage,
    /// The row that decided it (`None` when nothing matched).
    pub rule: Option<String>,
    /// The rule book's row, as written, when the row cites one.
    pub rulebook: Option<String>,
    /// The root-cause line(s) with their 1-based line numbers, in order.
    pub evidence: Vec<EvidenceLine>,
    /// Why it failed.
    pub cause: String,
    /// The one fix to apply next.
    pub fix: String,
    /// What to check after relaunching.
    pub follow_up: String,
    /// The meta-rules that go with this fix (one change per relaunch, fix at the choke point).
    pub advice: Vec<String>,
    /// The attempt classified (`None` when the content was not read: stale, missing, empty).
    pub attempt: Option<Attempt>,
    /// The resolver's diagnosis, for the link stage.
    pub diagnosis: Option<Diagnosis>,
    /// The arch analysis, when the row asked for it.
    pub arch: Option<ArchCheck>,
    /// Cascades in the attempt, ignored (the rule book: symptoms; the root is above them).
    pub cascades_ignored: Vec<Seen>,
    /// Other root errors and evidence in the attempt, to fix one at a time after this one.
    pub also_seen: Vec<Seen>,
    /// The freshness check, when asked for.
    pub freshness: Option<Freshness>,
    /// On a stale or missing log: the leftovers of its directory and the command that ends them.
    pub zombies: Option<crate::commands::zombies::LaunchCheck>,
    /// Problems worth knowing.
    pub warnings: Vec<String>,
    /// Lines read.
    pub lines: u64,
}

pub(super) fn launch_report(
    book: &RowBook,
    id: &str,
    name: &str,
    values: &BTreeMap<String, String>,
) -> TriageReport {
    let mut report = empty_report(name);
    report.stage = Stage::Launch;
    if let Some(row) = book.row(id) {
        apply_row(&mut report, book, row, values);
    }
    report
}

pub(super) fn empty_report(name: &str) -> TriageReport {
    TriageReport {
        schema_version: SCHEMA_VERSION,
        log: name.to_string(),
        stage: Stage::Unknown,
        rule: None,
        rulebook: None,
        evidence: Vec::new(),
        cause: String::new(),
        fix: String::new(),
        follow_up: String::new(),
        advice: Vec::new(),
        attempt: None,
        diagnosis: None,
        arch: None,
        cascades_ignored: Vec::new(),
        also_seen: Vec::new(),
        freshness: None,
        zombies: None,
        warnings: Vec::new(),
        lines: 0,
    }
}

pub(super) fn apply_row(
    report: &mut TriageReport,
    book: &RowBook,
    row: &Row,
    values: &BTreeMap<String, String>,
) {
    report.rule = Some(row.id.clone());
    report.rulebook = row.rulebook.clone();
    if let Some(stage) = row.stage {
        report.stage = stage;
    }
    report.cause = rows::fill(&row.cause, values);
    report.fix = rows::fill(&row.fix, values);
    report.follow_up = rows::fill(&row.follow_up, values);
    report.advice = row
        .meta
        .iter()
        .filter_map(|m| book.meta_rule(m).map(str::to_string))
        .collect();
}
