//! Triage: a whole bring-up log (supervisor, ninja, hipcc/clang, link.exe/lld-link, Python) to the
//! rule book's answer — the stage, the first root error with its line, the cause, the ONE fix to
//! apply next and what to check after relaunching (docs/RULES.md §14, §15).
//!
//! The classification, in the rule book's order:
//!
//! 1. **Fresh log?** With `since` (or `started_after`), a log last written before the attempt
//!    started is stale: the process never started. Its content is not read.
//! 2. **Which attempt?** A log that holds several relaunches is split at attempt markers (shell
//!    prompts, supervisor launch lines, `=== attempt N ===` banners: `attempt_markers` in
//!    `symbol-db/triage.json`) and at a `ninja: Entering directory` for a directory this attempt
//!    already built. The newest attempt is classified — unless it shows nothing but cascades, in
//!    which case the rule book's "scroll up" applies and the newest earlier attempt with a root
//!    error is classified (the report says so).
//! 3. **Which error?** Every line is matched against the rows (user rows first, then
//!    `symbol-db/triage.json`, first matching row wins on a line). The first root error of the
//!    attempt wins; cascades (`Backend worker is gone`, `FAILED:`, `linker command failed`) are
//!    listed and ignored; `ready to serve` is success only when no root error is present; an arch
//!    other than the intended one on a compile command line is the root when it comes before the
//!    first compile error (or when nothing else failed).
//! 4. **Link stage** hands the attempt's lines to the resolver ([`crate::resolve::diagnose`]): the
//!    report embeds its diagnosis.

mod arch;
mod render;
pub mod rows;
mod time;

pub use arch::{is_valid_target, split_list, ArchCheck, IntendedSource, OffloadArch};
pub use render::{render_text, render_text_with};
pub use rows::{Analysis, AttemptMarker, Row, RowBook, RowKind};
pub use time::{format_rfc3339, parse_time};

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};
use std::time::SystemTime;

use crate::linklog::{clean, LineReader, ReadLimits};
use crate::resolve::{DiagnoseOptions, Diagnosis};
use crate::rules::RuleBook;

/// The JSON schema version of [`TriageReport`].
pub const SCHEMA_VERSION: u32 = 1;

/// The stage a failure happened in (the rule book's truth table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Stage {
    /// The process never ran (stale, missing or empty log).
    Launch,
    /// The JIT compile (hipcc/clang) failed.
    Compile,
    /// The link failed.
    Link,
    /// The build worked; a kernel launch or Python call failed.
    Runtime,
    /// The server came up.
    Success,
    /// Nothing in the log matched a row.
    Unknown,
}

impl Stage {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Launch => "launch",
            Stage::Compile => "compile",
            Stage::Link => "link",
            Stage::Runtime => "runtime",
            Stage::Success => "success",
            Stage::Unknown => "unknown",
        }
    }
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Why triage could not run (the CLI's exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum TriageError {
    /// The log could not be read.
    #[error("{path}: cannot read: {source}")]
    Read {
        /// The log (`-` for stdin).
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// The `--started-after` file could not be read.
    #[error("{path}: cannot read its modification time (--started-after): {source}")]
    StartedAfter {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: io::Error,
    },
    /// A triage rule file is unusable.
    #[error("{path}: {message}")]
    Rules {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// A `--rules` file's link-symbol rules are unusable.
    #[error(transparent)]
    LinkRules(#[from] crate::rules::RuleError),
    /// A `--since` time could not be read.
    #[error("--since {text:?}: {message}")]
    Time {
        /// The text given.
        text: String,
        /// What is wrong.
        message: String,
    },
}

/// How to triage.
#[derive(Debug, Clone, Default)]
pub struct TriageOptions {
    /// When the attempt started (`--since`): a log last modified before it is stale.
    pub since: Option<SystemTime>,
    /// A file whose modification time is when the attempt started (`--started-after`); the later
    /// of this and `since` counts.
    pub started_after: Option<PathBuf>,
    /// The log's modification time, when the caller knows it (read from the file by
    /// [`triage_path`] when `None`; stdin has none).
    pub log_mtime: Option<SystemTime>,
    /// Extra rule files (`--rules`): triage rows (`rows`, `attempt_markers`, `meta_rules`) and/or
    /// link-symbol rules (`families`, `rules`) for the embedded diagnosis.
    pub extra_rules: Vec<PathBuf>,
    /// The arch the user builds for (`--arch-intended`, e.g. `gfx1201`; a list is allowed).
    pub intended_arch: Option<String>,
    /// `TVM_FFI_ROCM_ARCH_LIST` as lnkfix's environment has it (the CLI fills this in).
    pub arch_list_env: Option<String>,
    /// Options for the link-stage diagnosis.
    pub diagnose: DiagnoseOptions,
    /// Line-length bound for reading.
    pub limits: ReadLimits,
    /// Bytes of a stream (stdin) kept in memory before it is spilled to a temporary file
    /// (`None`: 16 MiB).
    pub stream_memory_limit: Option<usize>,
}

/// One line of the input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct EvidenceLine {
    /// 1-based line number in the input.
    pub line: u64,
    /// The line's text (colour escapes removed; very long lines shortened around the match).
    pub text: String,
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
    /// Problems worth knowing.
    pub warnings: Vec<String>,
    /// Lines read.
    pub lines: u64,
}

/// The exit code for a report: 0 success, 1 a classified failure, 3 nothing matched (2 is the
/// CLI's: usage errors and unreadable input).
pub fn exit_code(report: &TriageReport) -> i32 {
    match report.stage {
        Stage::Success => 0,
        Stage::Unknown => 3,
        _ => 1,
    }
}

/// Writes the JSON report (one document, pretty-printed, newline-terminated).
pub fn write_json(report: &TriageReport, out: &mut dyn Write) -> io::Result<()> {
    crate::terminal::write_json(report, out)
}

/// Triage a log file; `-` reads stdin (buffered, spilled to a temporary file when large).
///
/// A missing file is a launch-stage answer (`log-missing`) when a freshness check was asked for
/// (`since` or `started_after`): the run was supposed to write it. Otherwise it is an error.
pub fn triage_path(path: &Path, options: &TriageOptions) -> Result<TriageReport, TriageError> {
    let name = path.to_string_lossy().into_owned();
    if name == "-" {
        return triage_reader(io::stdin(), "-", options);
    }
    let read_error = |source| TriageError::Read {
        path: path.to_path_buf(),
        source,
    };
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => Err(read_error(io::Error::other(
            "is a directory, not a log file",
        ))),
        Ok(m) => {
            let mut options = options.clone();
            if options.log_mtime.is_none() {
                options.log_mtime = m.modified().ok();
            }
            // Opened once here so an unreadable file is an error before any work.
            std::fs::File::open(path).map_err(read_error)?;
            run(&Source::File(path.to_path_buf()), &name, &options)
        }
        Err(e)
            if e.kind() == io::ErrorKind::NotFound
                && (options.since.is_some() || options.started_after.is_some()) =>
        {
            let since = attempt_start(options)?;
            let book = RowBook::load(&options.extra_rules)?;
            let mut report = launch_report(&book, "log-missing", &name, &BTreeMap::new());
            report.freshness = since.map(|s| Freshness {
                log_modified: None,
                attempt_started: format_rfc3339(s),
                fresh: Some(false),
            });
            Ok(report)
        }
        Err(e) => Err(read_error(e)),
    }
}

/// Triage a log held in memory.
pub fn triage_bytes(
    bytes: &[u8],
    name: &str,
    options: &TriageOptions,
) -> Result<TriageReport, TriageError> {
    run(&Source::Memory(Arc::new(bytes.to_vec())), name, options)
}

/// Triage a stream (stdin): it is buffered in memory up to `stream_memory_limit` and spilled to
/// a temporary file beyond, because the link stage reads it a second time.
pub fn triage_reader<R: Read>(
    reader: R,
    name: &str,
    options: &TriageOptions,
) -> Result<TriageReport, TriageError> {
    let limit = options.stream_memory_limit.unwrap_or(SPOOL_MEMORY);
    let source = spool(reader, limit).map_err(|source| TriageError::Read {
        path: PathBuf::from(name),
        source,
    })?;
    run(&source, name, options)
}

/// Bytes kept in memory before a stream is spilled to a temporary file.
const SPOOL_MEMORY: usize = 16 << 20;

/// A log that can be opened more than once.
enum Source {
    Memory(Arc<Vec<u8>>),
    File(PathBuf),
    Spooled(TempFile),
}

struct SharedBytes(Arc<Vec<u8>>);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Source {
    fn open(&self) -> io::Result<Box<dyn Read>> {
        Ok(match self {
            Source::Memory(bytes) => Box::new(io::Cursor::new(SharedBytes(bytes.clone()))),
            Source::File(path) => Box::new(std::fs::File::open(path)?),
            Source::Spooled(temp) => Box::new(std::fs::File::open(&temp.0)?),
        })
    }
}

/// A temporary file removed when dropped.
struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn spool<R: Read>(mut reader: R, limit: usize) -> io::Result<Source> {
    let mut memory = Vec::new();
    (&mut reader)
        .take(limit as u64 + 1)
        .read_to_end(&mut memory)?;
    if memory.len() <= limit {
        return Ok(Source::Memory(Arc::new(memory)));
    }
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let path = std::env::temp_dir().join(format!(
        "lnkfix-triage-{}-{nanos}-{}.log",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    let temp = TempFile(path);
    file.write_all(&memory)?;
    drop(memory);
    io::copy(&mut reader, &mut file)?;
    file.flush()?;
    Ok(Source::Spooled(temp))
}

fn attempt_start(options: &TriageOptions) -> Result<Option<SystemTime>, TriageError> {
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

fn launch_report(
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

fn empty_report(name: &str) -> TriageReport {
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
        warnings: Vec::new(),
        lines: 0,
    }
}

fn apply_row(
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

/// One matched line.
#[derive(Debug, Clone)]
struct Hit {
    row: usize,
    line: EvidenceLine,
    captures: BTreeMap<String, String>,
    context: Vec<EvidenceLine>,
}

/// What one attempt showed.
#[derive(Debug, Clone)]
struct AttemptScan {
    index: usize,
    first_line: u64,
    last_line: u64,
    started_by: String,
    first_root: Option<Hit>,
    first_fallback: Option<Hit>,
    first_success: Option<Hit>,
    /// Later root errors, one per row (for `also_seen`).
    later: Vec<Hit>,
    cascades: Vec<Hit>,
    cascades_total: usize,
    /// Per context pattern (row, index): the last line that matched, in this attempt.
    context_last: HashMap<(usize, usize), EvidenceLine>,
    ninja_dirs: HashSet<String>,
    /// Distinct archs on compile command lines, the first line of each.
    offload: Vec<(String, Hit)>,
    /// Whether anything of interest was seen (an attempt marker only splits after content).
    content: bool,
}

impl AttemptScan {
    fn new(index: usize, first_line: u64, started_by: &str) -> AttemptScan {
        AttemptScan {
            index,
            first_line,
            last_line: first_line,
            started_by: started_by.to_string(),
            first_root: None,
            first_fallback: None,
            first_success: None,
            later: Vec::new(),
            cascades: Vec::new(),
            cascades_total: 0,
            context_last: HashMap::new(),
            ninja_dirs: HashSet::new(),
            offload: Vec::new(),
            content: false,
        }
    }

    fn has_root(&self, facts: &arch::ArchFacts) -> bool {
        self.first_root.is_some() || self.wrong_arch(facts).is_some()
    }

    /// The first command line that builds for an arch other than the intended one.
    fn wrong_arch(&self, facts: &arch::ArchFacts) -> Option<&Hit> {
        self.offload
            .iter()
            .filter(|(arch, _)| facts.is_wrong(arch))
            .map(|(_, hit)| hit)
            .min_by_key(|hit| hit.line.line)
    }

    fn offload_lines(&self) -> Vec<(String, EvidenceLine)> {
        self.offload
            .iter()
            .map(|(arch, hit)| (arch.clone(), hit.line.clone()))
            .collect()
    }
}

/// Cascades and later errors kept per attempt.
const MAX_LISTED: usize = 20;
/// Longest evidence text kept.
const MAX_EVIDENCE_CHARS: usize = 600;

/// Shortens a long line around the matched range.
fn excerpt(text: &str, range: std::ops::Range<usize>) -> String {
    if text.chars().count() <= MAX_EVIDENCE_CHARS {
        return text.to_string();
    }
    let floor = |mut i: usize| {
        while i > 0 && !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    let head_end = floor(200.min(text.len()));
    let start = floor(range.start.saturating_sub(150).max(head_end));
    let end = floor((range.end + 150).min(text.len()));
    let mut out = text[..head_end].to_string();
    if start > head_end {
        out.push_str(" … ");
    }
    out.push_str(&text[start.max(head_end)..end.max(start.max(head_end))]);
    if end < text.len() {
        out.push_str(" …");
    }
    out
}

fn ninja_entering() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r"ninja: Entering directory [`'](?P<dir>[^'`]+)'").expect("ninja pattern")
    })
}

struct Scanner<'a> {
    book: &'a RowBook,
    /// What the options and environment say about the arch (the log's own mention is folded in
    /// after the scan).
    facts: arch::ArchFacts,
    context_set: regex::RegexSet,
    context_owners: Vec<(usize, usize)>,
    arch_facts_log: Option<Option<String>>,
    current: AttemptScan,
    last_with_root: Option<AttemptScan>,
    attempts: usize,
    arch_row: Option<usize>,
}

impl<'a> Scanner<'a> {
    fn new(book: &'a RowBook, facts: arch::ArchFacts) -> Result<Scanner<'a>, TriageError> {
        let mut sources = Vec::new();
        let mut owners = Vec::new();
        for (r, row) in book.rows.iter().enumerate() {
            for (i, p) in row.row.context.iter().enumerate() {
                sources.push(rows::ascii_boundaries(p));
                owners.push((r, i));
            }
        }
        let context_set = regex::RegexSet::new(&sources).map_err(|e| TriageError::Rules {
            path: PathBuf::from("(all rows)"),
            message: format!("context patterns do not compile together: {e}"),
        })?;
        let arch_row = book
            .rows
            .iter()
            .position(|r| r.row.analysis == Some(Analysis::ArchMismatch));
        Ok(Scanner {
            book,
            facts,
            context_set,
            context_owners: owners,
            arch_facts_log: None,
            current: AttemptScan::new(1, 1, "start-of-log"),
            last_with_root: None,
            attempts: 1,
            arch_row,
        })
    }

    fn start_attempt(&mut self, line: u64, started_by: &str) {
        self.attempts += 1;
        let next = AttemptScan::new(self.attempts, line, started_by);
        let finished = std::mem::replace(&mut self.current, next);
        if finished.has_root(&self.facts) {
            self.last_with_root = Some(finished);
        }
    }

    fn piece(&mut self, number: u64, text: &str) {
        // Attempt boundaries first: the marker line belongs to the attempt it starts.
        if let Some(marker) = self.book.markers.iter().find(|(_, re)| re.is_match(text)) {
            if self.current.content {
                let id = marker.0.id.clone();
                self.start_attempt(number, &id);
            }
        } else if let Some(c) = ninja_entering().captures(text) {
            let dir = c["dir"].to_string();
            if self.current.ninja_dirs.contains(&dir) {
                self.start_attempt(number, "ninja-reentry");
            }
            self.current.ninja_dirs.insert(dir);
        }
        self.current.last_line = number;
        if let Some(value) = arch::variable_in_line(text) {
            // The last mention before the failure is the one in force.
            self.arch_facts_log = Some(value);
        }

        let matches = self.book.set.matches(text);
        if matches.matched_any() {
            // First matching row (in book order) wins on this line.
            let mut best: Option<(usize, usize)> = None;
            for i in matches.iter() {
                let owner = self.book.owners[i];
                if best.is_none_or(|b| owner < b) {
                    best = Some(owner);
                }
            }
            if let Some((row_index, pattern_index)) = best {
                self.hit(number, text, row_index, pattern_index);
            }
        }
        // Context lines are recorded after the row check: a line is not its own context.
        for i in self.context_set.matches(text).iter() {
            let owner = self.context_owners[i];
            self.current.context_last.insert(
                owner,
                EvidenceLine {
                    line: number,
                    text: excerpt(text, 0..0),
                },
            );
        }
    }

    fn hit(&mut self, number: u64, text: &str, row_index: usize, pattern_index: usize) {
        let compiled = &self.book.rows[row_index];
        let Some(m) = compiled.patterns[pattern_index].captures(text) else {
            return;
        };
        let whole = m.get(0).map_or(0..0, |g| g.range());
        let captures: BTreeMap<String, String> = compiled.patterns[pattern_index]
            .capture_names()
            .flatten()
            .filter_map(|n| m.name(n).map(|v| (n.to_string(), v.as_str().to_string())))
            .collect();
        let line = EvidenceLine {
            line: number,
            text: excerpt(text, whole),
        };
        let context = (0..compiled.context.len())
            .filter_map(|i| self.current.context_last.get(&(row_index, i)).cloned())
            .collect();
        let hit = Hit {
            row: row_index,
            line,
            captures,
            context,
        };
        let attempt = &mut self.current;
        match compiled.row.kind {
            RowKind::Cascade => {
                attempt.cascades_total += 1;
                if attempt.cascades.len() < MAX_LISTED {
                    attempt.cascades.push(hit);
                }
            }
            RowKind::Success => {
                attempt.content = true;
                if attempt.first_success.is_none() {
                    attempt.first_success = Some(hit);
                }
            }
            RowKind::Fallback => {
                attempt.content = true;
                if attempt.first_fallback.is_none() {
                    attempt.first_fallback = Some(hit);
                }
            }
            RowKind::Root => {
                attempt.content = true;
                match &attempt.first_root {
                    None => attempt.first_root = Some(hit),
                    // Later lines of the chosen row are the same error again; other rows are
                    // listed once each.
                    Some(first) if first.row == row_index => {}
                    Some(_) => {
                        if attempt.later.len() < MAX_LISTED
                            && !attempt.later.iter().any(|h| h.row == row_index)
                        {
                            attempt.later.push(hit);
                        }
                    }
                }
            }
            RowKind::Context => {
                attempt.content = true;
                if Some(row_index) == self.arch_row {
                    let arch = hit.captures.get("arch").cloned().unwrap_or_default();
                    let key = arch::processor(&arch);
                    if !attempt
                        .offload
                        .iter()
                        .any(|(a, _)| arch::processor(a) == key)
                    {
                        attempt.offload.push((arch, hit));
                    }
                } else if attempt.first_root.is_none() {
                    // A user's context row without an analysis behaves as a root.
                    attempt.first_root = Some(hit);
                }
            }
        }
        // Any matched line is content, cascades included: a worker restart after a cascade is a
        // boundary only when a marker says so.
        attempt.content = true;
    }
}

/// The run: freshness, the scan, the decision, the link handover.
fn run(source: &Source, name: &str, options: &TriageOptions) -> Result<TriageReport, TriageError> {
    let book = RowBook::load(&options.extra_rules)?;
    let since = attempt_start(options)?;
    let mut warnings = Vec::new();
    let mut freshness = None;
    if let Some(since) = since {
        let fresh = options.log_mtime.map(|m| m >= since);
        freshness = Some(Freshness {
            log_modified: options.log_mtime.map(format_rfc3339),
            attempt_started: format_rfc3339(since),
            fresh,
        });
        match options.log_mtime {
            Some(modified) if modified < since => {
                let mut values = BTreeMap::new();
                values.insert("log_modified".into(), format_rfc3339(modified));
                values.insert("attempt_started".into(), format_rfc3339(since));
                let mut report = launch_report(&book, "log-stale", name, &values);
                report.freshness = freshness;
                return Ok(report);
            }
            Some(_) => {}
            None => warnings.push(
                "the log's modification time is unknown (stdin): freshness not checked; pass the file instead".into(),
            ),
        }
    }

    // Pass 1: the rows, line by line.
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
        &book,
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
    let lines = reader.line_number;
    if reader.truncated_lines > 0 {
        warnings.push(format!(
            "{} lines were longer than the limit and were cut",
            reader.truncated_lines
        ));
    }
    if !non_blank {
        let mut report = launch_report(&book, "log-empty", name, &BTreeMap::new());
        report.freshness = freshness;
        report.lines = lines;
        report.warnings = warnings;
        return Ok(report);
    }

    let facts = arch::ArchFacts::new(
        options.intended_arch.as_deref(),
        scanner.arch_facts_log.as_ref(),
        options.arch_list_env.as_deref(),
    );
    let attempts = scanner.attempts;
    let arch_row = scanner.arch_row;
    let newest = scanner.current;
    // The rule book's "scroll up": a newest attempt with only cascades hands over to the newest
    // attempt that has a root error.
    let only_cascades = !newest.has_root(&facts)
        && newest.first_success.is_none()
        && newest.first_fallback.is_none()
        && !newest.cascades.is_empty();
    let (attempt, note) = match (only_cascades, scanner.last_with_root) {
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
    };

    let mut report = empty_report(name);
    report.lines = lines;
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
    let seen = |h: &Hit| Seen {
        rule: book.rows[h.row].row.id.clone(),
        stage: book.rows[h.row].row.stage,
        line: h.line.line,
        text: h.line.text.clone(),
    };
    report.cascades_ignored = attempt.cascades.iter().map(seen).collect();
    if attempt.cascades_total > attempt.cascades.len() {
        report.warnings.push(format!(
            "{} more cascade lines not listed",
            attempt.cascades_total - attempt.cascades.len()
        ));
    }

    // The decision.
    let root = attempt.first_root.clone();
    let wrong_arch = attempt.wrong_arch(&facts).cloned();
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
    let chosen = chosen
        .or_else(|| attempt.first_success.clone())
        .or_else(|| attempt.first_fallback.clone());

    let Some(hit) = chosen else {
        // Nothing but cascades (or nothing at all).
        if let Some(first) = attempt.cascades.first() {
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
                || {
                    "capture the failing process's own output into the log and triage it again"
                        .into()
                },
                |g| g.row.fix.clone(),
            );
            report.follow_up =
                "the log shows the first error of the build, above its cascades".into();
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
        } else {
            report.cause = "no row of the rule book matched this attempt".into();
            report.fix = "read the log from the top of the attempt for the first error; if it is a new kind, add a row with --rules FILE".into();
            report.follow_up = "triage recognises the next log".into();
        }
        return Ok(report);
    };

    // Other roots in the attempt, for after this fix.
    let mut also: Vec<Hit> = Vec::new();
    // The runtime arch analysis already reports the command lines' archs.
    let arch_reported = book.rows[hit.row].row.analysis == Some(Analysis::OffloadArch);
    for h in [&root, &wrong_arch]
        .into_iter()
        .flatten()
        .chain(attempt.later.iter())
    {
        let same = h.row == hit.row;
        let arch = Some(h.row) == arch_row && arch_reported;
        if !same && !arch {
            also.push(h.clone());
        }
    }
    also.sort_by_key(|h| h.line.line);
    also.dedup_by_key(|h| (h.line.line, h.row));
    report.also_seen = also.iter().map(seen).collect();

    let row = book.rows[hit.row].row.clone();
    let mut values = hit.captures.clone();
    match row.analysis {
        Some(Analysis::ArchMismatch) => {
            let arch = values.get("arch").cloned().unwrap_or_default();
            values.extend(facts.mismatch_values(&arch));
            report.arch = Some(facts.mismatch_check(&attempt.offload_lines(), &arch));
        }
        Some(Analysis::OffloadArch) => {
            // JIT command lines anywhere in the log count: the JIT may have built in an earlier
            // attempt and cached the module.
            let seen_archs = if attempt.offload.is_empty() {
                collect_offload(source, options, &book, arch_row)
            } else {
                attempt.offload_lines()
            };
            let (check, v) = facts.offload_check(&seen_archs);
            values.extend(v);
            report.arch = Some(check);
        }
        Some(Analysis::LinkDiagnosis) => {
            let link_book = link_rule_book(&options.extra_rules)?;
            let diagnosis = link_diagnosis(
                source,
                name,
                options,
                &link_book,
                attempt.first_line,
                attempt.last_line,
            )?;
            values.extend(link_values(&diagnosis, &values));
            report.diagnosis = Some(diagnosis);
        }
        None => {}
    }
    apply_row(&mut report, &book, &row, &values);
    let mut evidence = hit.context.clone();
    evidence.push(hit.line.clone());
    evidence.sort_by_key(|e| e.line);
    evidence.dedup_by_key(|e| e.line);
    report.evidence = evidence;
    Ok(report)
}

/// The resolver's rule book plus the link-symbol rules of the `--rules` files that have some.
fn link_rule_book(extra: &[PathBuf]) -> Result<RuleBook, TriageError> {
    let mut book = RuleBook::builtin();
    for path in extra {
        let text =
            crate::open::read_regular_to_string(path).map_err(|source| TriageError::Rules {
                path: path.clone(),
                message: format!("cannot read: {source}"),
            })?;
        if rows::has_link_rules(&text) {
            book.add_file(path)?;
        }
    }
    Ok(book)
}

/// Every distinct arch on a compile command line in the whole log (a second pass).
fn collect_offload(
    source: &Source,
    options: &TriageOptions,
    book: &RowBook,
    arch_row: Option<usize>,
) -> Vec<(String, EvidenceLine)> {
    let Some(row) = arch_row else {
        return Vec::new();
    };
    let mut out: Vec<(String, EvidenceLine)> = Vec::new();
    let Ok(input) = source.open() else {
        return out;
    };
    let Ok(mut reader) = LineReader::new(input, options.limits.max_line_bytes) else {
        return out;
    };
    let mut line = String::new();
    while let Ok(true) = reader.next_line(&mut line) {
        let text = clean::strip_escapes(&line);
        for pattern in &book.rows[row].patterns {
            for c in pattern.captures_iter(&text) {
                let Some(arch) = c.name("arch") else { continue };
                let key = arch::processor(arch.as_str());
                if !out.iter().any(|(a, _)| arch::processor(a) == key) {
                    out.push((
                        arch.as_str().to_string(),
                        EvidenceLine {
                            line: reader.line_number,
                            text: excerpt(&text, arch.range()),
                        },
                    ));
                }
            }
        }
    }
    out
}

/// The resolver's diagnosis of the attempt's lines (a second pass over the log).
fn link_diagnosis(
    source: &Source,
    name: &str,
    options: &TriageOptions,
    book: &RuleBook,
    first_line: u64,
    last_line: u64,
) -> Result<Diagnosis, TriageError> {
    let read_error = |source| TriageError::Read {
        path: PathBuf::from(name),
        source,
    };
    let mut collector = crate::symbols::Collector::new();
    let stats = crate::linklog::read_log(
        source.open().map_err(read_error)?,
        options.limits,
        &mut |event| {
            if (first_line..=last_line).contains(&event.line) {
                collector.push(event);
            }
        },
    )
    .map_err(read_error)?;
    let failure = collector.finish(stats);
    let mut diagnose_options = options.diagnose.clone();
    if diagnose_options.log_name.is_empty() {
        diagnose_options.log_name = name.to_string();
    }
    let mut diagnosis = crate::resolve::diagnose(failure, book, &diagnose_options);
    if let Ok(reader) = source.open() {
        diagnosis.set_build_system(crate::build_system::recognise(reader));
    }
    Ok(diagnosis)
}

/// Placeholders for the link rows, from the diagnosis.
fn link_values(
    diagnosis: &Diagnosis,
    captures: &BTreeMap<String, String>,
) -> Vec<(String, String)> {
    let mut values = vec![("verdict".to_string(), diagnosis.verdict.summary.clone())];
    let fix = if !diagnosis.link_flags.is_empty() || diagnosis.link_flags_by_flavour.is_some() {
        let mut text = String::new();
        if !diagnosis.link_flags.is_empty() {
            text.push_str(&format!("add {}", diagnosis.link_flags.join(" ")));
        }
        if let Some(by) = &diagnosis.link_flags_by_flavour {
            let parts: Vec<String> = by
                .iter()
                .map(|(f, flags)| format!("for {f}: {}", flags.join(" ")))
                .collect();
            if !text.is_empty() {
                text.push_str("; ");
            }
            text.push_str(&format!(
                "the CRT flavour is not known from the log, so add the libraries of the one you build with ({})",
                parts.join("; ")
            ));
        }
        match &diagnosis.build_system {
            Some(build) if build.kind != crate::build_system::BuildSystem::TvmFfi => {
                text.push_str(&format!(
                    ", in {} terms: {}",
                    build.kind.name(),
                    build.fix.join("; ")
                ));
            }
            Some(_) => text.push_str(
                " to the Windows link flags in extension.py (the one list every JIT module links with)",
            ),
            None => text.push_str(
                " to the link command (in a tvm-ffi JIT build: to the Windows link flags in extension.py, the one list every JIT module links with)",
            ),
        }
        text
    } else if diagnosis.counts.unknown > 0 {
        "no library provides these symbols by rule: they are the project's own (a source file, template instantiation or export missing from the build) or from a library not searched; find the definition and add that source or library once in extension.py".into()
    } else {
        "see the diagnosis below".into()
    };
    values.push(("link_fix".into(), fix));

    let file = captures
        .get("file")
        .cloned()
        .unwrap_or_else(|| "a file".into());
    let lower = file.to_ascii_lowercase();
    let base = lower
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(&lower)
        .to_string();
    let crt_or_sdk = [
        "libcmt",
        "msvcrt",
        "libucrt",
        "ucrt",
        "libvcruntime",
        "vcruntime",
        "libcpmt",
        "msvcprt",
        "kernel32",
        "user32",
        "advapi32",
        "shell32",
        "oldnames",
        "uuid",
    ];
    let (reason, fix) = if base.starts_with("python") && base.ends_with(".lib") {
        (
            "the Python import library is not on the library path".to_string(),
            format!("add the Python installation's libs directory (sys.base_prefix\\libs, which holds {file}) with /LIBPATH: once in extension.py's link flags"),
        )
    } else if base.starts_with("amdhip64") {
        (
            "HIP_PATH\\lib is not on the library path".to_string(),
            "add /LIBPATH:%HIP_PATH%\\lib once in extension.py's link flags (check HIP_PATH with lnkfix doctor)".to_string(),
        )
    } else if crt_or_sdk
        .iter()
        .any(|c| base.trim_end_matches(".lib") == *c)
    {
        (
            "the MSVC/Windows SDK library directories are not in LIB: the vcvars environment is missing".to_string(),
            "launch from a shell where vcvars64.bat ran (lnkfix doctor checks LIB, LIBPATH, INCLUDE), then relaunch".to_string(),
        )
    } else if [".dll", ".pyd", ".exe", ".so"]
        .iter()
        .any(|e| base.ends_with(e))
    {
        (
            "the output file is locked: a leftover process still has the module loaded".to_string(),
            "kill leftover processes (python / ft older than this attempt), relaunch".to_string(),
        )
    } else if base.ends_with(".obj") || base.ends_with(".o") {
        (
            "an object file is missing: its compile failed or was skipped".to_string(),
            "fix the compile of that object first (triage the compile output above the link)"
                .to_string(),
        )
    } else {
        (
            "it is in no /LIBPATH or LIB directory".to_string(),
            format!("add the directory that holds {file} with /LIBPATH: once in extension.py's link flags, or drop the library if it is not needed"),
        )
    };
    values.push(("file".into(), file));
    values.push(("open_reason".into(), reason));
    values.push(("open_fix".into(), fix));
    values
}
