//! The classification of one log, in the rule book's order: is the log fresh, which attempt is
//! read, which matched line is the root, and the analysis its row asks for. [`run`] is the whole
//! of it, one named step after another.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::SystemTime;

use super::analysis::{
    collect_offload, lines_text, link_diagnosis, link_rule_book, link_values, row_of_problem,
};
use super::report::{apply_row, empty_report, launch_report};
use super::rows::{Analysis, RowBook};
use super::scan::{AttemptScan, Hit, Scanner};
use super::source::Source;
use super::{
    arch, format_rfc3339, Attempt, Freshness, Seen, Stage, TriageError, TriageOptions, TriageReport,
};
use crate::read::linklog::{clean, LineReader};

/// When the attempt started: the later of `--since` and `--started-after`'s modification time.
pub(super) fn attempt_start(options: &TriageOptions) -> Result<Option<SystemTime>, TriageError> {
    let mut since = options.since;
    if let Some(path) = &options.started_after {
        let modified = std::fs::metadata(path)
            .and_then(|m| m.modified())
            .map_err(|source| TriageError::StartedAfter {
                path: path.clone(),
                source,
            })?;
        since = Some(since.map_or(modified, |s| s.max(modified)));
    }
    Ok(since)
}

/// The run: freshness, the scan, the attempt, the root, the row's analysis. Long because it is
/// those stages in order, each a call to a named step and the report fields it fills, with the
/// early returns (stale, empty, no root) where they happen.
pub(super) fn run(
    source: &Source,
    name: &str,
    options: &TriageOptions,
) -> Result<TriageReport, TriageError> {
    let book = RowBook::load(&options.extra_rules)?;
    let mut warnings = Vec::new();
    let freshness = match check_freshness(&book, name, options, &mut warnings)? {
        FreshnessCheck::Stale(report) => return Ok(*report),
        FreshnessCheck::Checked(freshness) => freshness,
    };
    let scanned = scan_log(source, name, &book, options, &mut warnings)?;
    if !scanned.non_blank {
        let mut report = launch_report(&book, "log-empty", name, &BTreeMap::new());
        report.freshness = freshness;
        report.lines = scanned.lines;
        report.warnings = warnings;
        return Ok(report);
    }
    let facts = arch::ArchFacts::new(
        options.intended_arch.as_deref(),
        scanned.scanner.arch_facts_log.as_ref(),
        options.arch_list_env.as_deref(),
    )
    .with_device(scanned.scanner.device_arch_log.as_deref());
    let attempts = scanned.scanner.attempts;
    let arch_row = scanned.scanner.arch_row;
    let (attempt, note) = choose_attempt(
        scanned.scanner.current,
        scanned.scanner.last_with_root,
        attempts,
        &facts,
    );

    let mut report = empty_report(name);
    report.lines = scanned.lines;
    report.freshness = freshness;
    report.warnings = warnings;
    report.attempt = Some(Attempt {
        index: attempt.index,
        count: attempts,
        first_line: attempt.first_line,
        last_line: attempt.last_line,
        started_by: attempt.started_by.clone(),
        note,
    });
    report.cascades_ignored = attempt.cascades.iter().map(|h| seen(&book, h)).collect();
    if attempt.cascades_total > attempt.cascades.len() {
        report.warnings.push(format!(
            "{} more cascade lines not listed",
            attempt.cascades_total - attempt.cascades.len()
        ));
    }

    let hit = match choose_root(&attempt, &facts, &book, &mut report) {
        Some(hit) => hit,
        None => match link_records(source, name, options, &book, &attempt)? {
            Some(hit) => hit,
            None => {
                explain_no_root(&attempt, &book, &mut report);
                return Ok(report);
            }
        },
    };
    report.also_seen = also_seen(&attempt, &facts, &book, &hit, arch_row);
    let mut values = hit.captures.clone();
    let outcome = run_analysis(
        source,
        name,
        options,
        &book,
        &attempt,
        &facts,
        &hit,
        arch_row,
        &mut values,
        &mut report,
    )?;
    let row = match outcome.row.and_then(|id| book.row(id)) {
        Some(row) => row.clone(),
        None => book.rows[hit.row].row.clone(),
    };
    apply_row(&mut report, &book, &row, &values);
    let mut evidence = hit.context.clone();
    evidence.extend(outcome.evidence);
    evidence.push(hit.line.clone());
    evidence.sort_by_key(|e| e.line);
    evidence.dedup_by_key(|e| e.line);
    report.evidence = evidence;
    if let Some(spec) = &options.python_sources {
        super::raisers::attach_raisers(&mut report, spec)?;
    }
    Ok(report)
}

/// When no row's pattern matched a line of the attempt: the link records `diagnose`'s reader
/// finds there (a zig driver's `error: lld-link:`, `LNK 2001`, an Error List cell, a record a
/// console or a paste reshaped), as a hit of the link stage's general row at the first of them.
/// One reader decides for both commands what a link record is.
fn link_records(
    source: &Source,
    name: &str,
    options: &TriageOptions,
    book: &RowBook,
    attempt: &AttemptScan,
) -> Result<Option<Hit>, TriageError> {
    let Some(row) = book.rows().position(|r| r.id == "link-error") else {
        return Ok(None);
    };
    let diagnosis = attempt_link_diagnosis(source, name, options, attempt)?;
    let first = diagnosis
        .findings
        .iter()
        .map(|f| f.line)
        .chain(diagnosis.symbols.iter().map(|s| s.symbol.first_line))
        .filter(|line| *line > 0)
        .min();
    let Some(line) = first.filter(|_| diagnosis.link_failed) else {
        return Ok(None);
    };
    let Some(evidence) = lines_text(source, options, &[line]).into_iter().next() else {
        return Ok(None);
    };
    Ok(Some(Hit {
        row,
        line: evidence,
        captures: BTreeMap::new(),
        context: Vec::new(),
    }))
}

/// The link diagnosis of an attempt's lines, with the user's link-symbol rules.
fn attempt_link_diagnosis(
    source: &Source,
    name: &str,
    options: &TriageOptions,
    attempt: &AttemptScan,
) -> Result<crate::resolve::Diagnosis, TriageError> {
    let link_book = link_rule_book(&options.extra_rules)?;
    link_diagnosis(
        source,
        name,
        options,
        &link_book,
        attempt.first_line,
        attempt.last_line,
    )
}

/// What the freshness check decided.
enum FreshnessCheck {
    /// The log is stale: this is the whole answer, its content is not read.
    Stale(Box<TriageReport>),
    /// Fresh, or not checked (`None`: no `--since`/`--started-after`).
    Checked(Option<Freshness>),
}

/// Step 1: with `--since`/`--started-after`, a log last written before the attempt started is
/// stale (the `log-stale` launch answer).
fn check_freshness(
    book: &RowBook,
    name: &str,
    options: &TriageOptions,
    warnings: &mut Vec<String>,
) -> Result<FreshnessCheck, TriageError> {
    let Some(since) = attempt_start(options)? else {
        return Ok(FreshnessCheck::Checked(None));
    };
    let freshness = Freshness {
        log_modified: options.log_mtime.map(format_rfc3339),
        attempt_started: format_rfc3339(since),
        fresh: options.log_mtime.map(|m| m >= since),
    };
    match options.log_mtime {
        Some(modified) if modified < since => {
            let mut values = BTreeMap::new();
            values.insert("log_modified".into(), format_rfc3339(modified));
            values.insert("attempt_started".into(), format_rfc3339(since));
            let check = crate::commands::zombies::launch_check(
                std::path::Path::new(name),
                since,
                options.list_processes,
            );
            values.insert("zombies_command".into(), check.command.clone());
            let mut report = launch_report(book, "log-stale", name, &values);
            report.zombies = Some(check);
            report.freshness = Some(freshness);
            return Ok(FreshnessCheck::Stale(Box::new(report)));
        }
        Some(_) => {}
        None => warnings.push(
            "the log's modification time is unknown (stdin): freshness not checked; pass the file instead".into(),
        ),
    }
    Ok(FreshnessCheck::Checked(Some(freshness)))
}

/// What the pass over the lines gathered.
struct Scanned<'a> {
    scanner: Scanner<'a>,
    /// Lines read.
    lines: u64,
    /// Whether any line holds more than white space.
    non_blank: bool,
}

/// Step 2: every line (Python reprs expanded) through the [`Scanner`].
fn scan_log<'a>(
    source: &Source,
    name: &str,
    book: &'a RowBook,
    options: &TriageOptions,
    warnings: &mut Vec<String>,
) -> Result<Scanned<'a>, TriageError> {
    let read_error = |source| TriageError::Read {
        path: PathBuf::from(name),
        source,
    };
    let mut reader = LineReader::new(
        source.open().map_err(read_error)?,
        options.limits.max_line_bytes,
    )
    .map_err(read_error)?;
    let mut scanner = Scanner::new(
        book,
        arch::ArchFacts::new(
            options.intended_arch.as_deref(),
            None,
            options.arch_list_env.as_deref(),
        ),
    )?;
    let mut physical = String::new();
    let mut non_blank = false;
    while reader.next_line(&mut physical).map_err(read_error)? {
        let number = reader.line_number;
        let text = clean::strip_escapes(&physical);
        if !text.trim().is_empty() {
            non_blank = true;
        }
        if clean::looks_like_python_repr(&text) {
            for piece in clean::expand_python_repr(&text) {
                scanner.piece(number, &piece);
            }
        } else {
            scanner.piece(number, &text);
        }
    }
    if reader.truncated_lines > 0 {
        warnings.push(format!(
            "{} lines were longer than the limit and were cut",
            reader.truncated_lines
        ));
    }
    Ok(Scanned {
        scanner,
        lines: reader.line_number,
        non_blank,
    })
}

/// Step 3: the newest attempt, unless it shows only cascades: then the rule book's "scroll up"
/// hands over to the newest attempt that has a root error (the note says so).
fn choose_attempt(
    newest: AttemptScan,
    last_with_root: Option<AttemptScan>,
    attempts: usize,
    facts: &arch::ArchFacts,
) -> (AttemptScan, Option<String>) {
    let only_cascades = !newest.has_root(facts)
        && newest.first_success.is_none()
        && newest.first_fallback.is_none()
        && !newest.cascades.is_empty();
    match (only_cascades, last_with_root) {
        (true, Some(earlier)) => {
            let note = format!(
                "the newest attempt ({} of {attempts}, from line {}) shows only cascades ({}); the root is in attempt {}",
                newest.index,
                newest.first_line,
                newest
                    .cascades
                    .iter()
                    .map(|h| format!("line {}", h.line.line))
                    .collect::<Vec<_>>()
                    .join(", "),
                earlier.index
            );
            (earlier, Some(note))
        }
        _ => (newest, None),
    }
}

/// Step 4: the line that answers. The first root error; a wrong arch on a compile command line
/// before a compile error; else the success line; else a fallback (an uncaught exception).
fn choose_root(
    attempt: &AttemptScan,
    facts: &arch::ArchFacts,
    book: &RowBook,
    report: &mut TriageReport,
) -> Option<Hit> {
    let root = attempt.first_root.clone();
    let wrong_arch = attempt.wrong_arch(facts).cloned();
    let chosen: Option<Hit> = match (&root, &wrong_arch) {
        (Some(r), Some(a)) => {
            let root_stage = book.rows[r.row].row.stage;
            if root_stage == Some(Stage::Compile) && a.line.line < r.line.line {
                Some(a.clone())
            } else {
                Some(r.clone())
            }
        }
        (Some(r), None) => Some(r.clone()),
        (None, Some(a)) => {
            if attempt.first_success.is_some() {
                report.warnings.push(format!(
                    "the server came up, but line {} builds for {}: expect 'invalid device function' at the first kernel launch",
                    a.line.line,
                    a.captures.get("arch").map_or("another arch", String::as_str)
                ));
                None
            } else {
                Some(a.clone())
            }
        }
        (None, None) => None,
    };
    chosen
        .or_else(|| attempt.first_success.clone())
        .or_else(|| attempt.first_fallback.clone())
}

/// Step 4, when no line answers: only cascades (the root is not in this log), or nothing known.
fn explain_no_root(attempt: &AttemptScan, book: &RowBook, report: &mut TriageReport) {
    let Some(first) = attempt.cascades.first() else {
        report.cause = "no row of the rule book matched this attempt".into();
        report.fix = "read the log from the top of the attempt for the first error; if it is a new kind, add a row with --rules FILE".into();
        report.follow_up = "triage recognises the next log".into();
        return;
    };
    let row = &book.rows[first.row].row;
    let gone = book.rows.iter().find(|r| r.row.id == "backend-worker-gone");
    let explain = attempt
        .cascades
        .iter()
        .find(|h| book.rows[h.row].row.id == "backend-worker-gone")
        .and(gone)
        .map_or(&row.cause, |g| &g.row.cause);
    report.cause = format!(
        "{explain}; no root error precedes the cascade{} in this log",
        if attempt.cascades.len() == 1 { "" } else { "s" }
    );
    report.fix = gone.map_or_else(
        || "capture the failing process's own output into the log and triage it again".into(),
        |g| g.row.fix.clone(),
    );
    report.follow_up = "the log shows the first error of the build, above its cascades".into();
    report.advice = ["cascade", "supervisor-swallows", "one-change"]
        .iter()
        .filter_map(|m| book.meta_rule(m).map(str::to_string))
        .collect();
    report.evidence = attempt
        .cascades
        .iter()
        .take(3)
        .map(|h| h.line.clone())
        .collect();
}

/// A matched line as the report lists it.
fn seen(book: &RowBook, hit: &Hit) -> Seen {
    Seen {
        rule: book.rows[hit.row].row.id.clone(),
        stage: book.rows[hit.row].row.stage,
        line: hit.line.line,
        text: hit.line.text.clone(),
    }
}

/// Step 5: the attempt's other root errors, for the relaunches after this fix.
fn also_seen(
    attempt: &AttemptScan,
    facts: &arch::ArchFacts,
    book: &RowBook,
    hit: &Hit,
    arch_row: Option<usize>,
) -> Vec<Seen> {
    let root = attempt.first_root.as_ref();
    let wrong_arch = attempt.wrong_arch(facts);
    // The runtime arch analysis already reports the command lines' archs.
    let arch_reported = book.rows[hit.row].row.analysis == Some(Analysis::OffloadArch);
    let mut also: Vec<&Hit> = Vec::new();
    for h in [root, wrong_arch]
        .into_iter()
        .flatten()
        .chain(attempt.later.iter())
    {
        let same = h.row == hit.row;
        let arch = Some(h.row) == arch_row && arch_reported;
        if !same && !arch {
            also.push(h);
        }
    }
    also.sort_by_key(|h| h.line.line);
    also.dedup_by_key(|h| (h.line.line, h.row));
    also.into_iter().map(|h| seen(book, h)).collect()
}

/// What a row's analysis adds: another row that answers better (the row of the link
/// diagnosis's first problem), and more evidence lines (the JIT command line that built the wrong
/// arch, the linker's lines of the problem).
#[derive(Default)]
struct Outcome {
    row: Option<&'static str>,
    evidence: Vec<super::EvidenceLine>,
}

/// Step 6: the analysis the chosen row asks for, filling its placeholders (and the report's
/// `arch` or `diagnosis`).
#[allow(clippy::too_many_arguments)]
fn run_analysis(
    source: &Source,
    name: &str,
    options: &TriageOptions,
    book: &RowBook,
    attempt: &AttemptScan,
    facts: &arch::ArchFacts,
    hit: &Hit,
    arch_row: Option<usize>,
    values: &mut BTreeMap<String, String>,
    report: &mut TriageReport,
) -> Result<Outcome, TriageError> {
    let mut outcome = Outcome::default();
    match book.rows[hit.row].row.analysis {
        Some(Analysis::ArchMismatch) => {
            let arch = values.get("arch").cloned().unwrap_or_default();
            values.extend(facts.mismatch_values(&arch));
            report.arch = Some(facts.mismatch_check(&attempt.offload_lines(), &arch));
        }
        Some(Analysis::OffloadArch) => {
            // JIT command lines anywhere in the log count: the JIT may have built in an earlier
            // attempt and cached the module.
            let seen_archs = if attempt.offload.is_empty() {
                collect_offload(source, options, book, arch_row)
            } else {
                attempt.offload_lines()
            };
            let (check, v) = facts.offload_check(&seen_archs);
            values.extend(v);
            // The root is the JIT command line that built the wrong arch; the runtime error is
            // its symptom.
            outcome.evidence.extend(
                check
                    .offload_archs
                    .iter()
                    .filter(|a| a.intended == Some(false))
                    .map(|a| a.first.clone()),
            );
            report.arch = Some(check);
        }
        Some(Analysis::LinkDiagnosis) => {
            let diagnosis = attempt_link_diagnosis(source, name, options, attempt)?;
            let captures = values.clone();
            values.extend(link_values(&diagnosis, &captures));
            outcome.row = row_of_problem(&diagnosis);
            // The linker's own lines of a problem other than unresolved symbols (those are many,
            // and the matched line stands for them).
            if let Some(problem) = diagnosis
                .problems
                .first()
                .filter(|p| p.kind != crate::problems::ProblemKind::Unresolved)
            {
                let wanted: Vec<u64> = problem
                    .lines
                    .iter()
                    .copied()
                    .filter(|l| (attempt.first_line..=attempt.last_line).contains(l))
                    .take(3)
                    .collect();
                outcome.evidence = lines_text(source, options, &wanted);
                if let Some(file) = problem.subjects.first() {
                    values
                        .entry("file".to_string())
                        .or_insert_with(|| file.clone());
                }
            }
            report.diagnosis = Some(diagnosis);
        }
        None => {}
    }
    Ok(outcome)
}
