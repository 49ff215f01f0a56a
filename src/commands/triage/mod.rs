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
//!
//! The files, in the order data flows: `source` (a log readable twice), `scan` (attempts and
//! row matching, one pass), `decide` (the steps above), `analysis` (the second passes a row asks
//! for), `report` (the report's types), `render` (text); `rows` loads the rows, `arch` and `time`
//! hold the arch facts and the time formats.

mod analysis;
mod arch;
mod decide;
mod raisers;
mod render;
mod report;
pub mod rows;
mod scan;
mod source;
pub mod time;

pub use arch::{is_valid_target, split_list, ArchCheck, IntendedSource, OffloadArch};
pub use render::{render_text, render_text_with};
pub use report::{Attempt, EvidenceLine, Freshness, Seen, TriageReport};
pub use rows::{Analysis, AttemptMarker, Row, RowBook, RowKind};
pub use time::{format_rfc3339, parse_time};

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::SystemTime;

use crate::read::linklog::ReadLimits;
use crate::resolve::DiagnoseOptions;
use decide::{attempt_start, run};
use report::launch_report;
use source::{spool, Source, SPOOL_MEMORY};

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
    /// The Python sources for the raisers could not be found.
    #[error(transparent)]
    Whence(#[from] crate::commands::whence::WhenceError),
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
    /// On a stale or missing log, also list the leftover processes of its directory
    /// ([`crate::commands::zombies::launch_check`]); the command that ends them is named either way.
    pub list_processes: bool,
    /// Where to look for the code that raises a runtime-stage exception (`--site-packages`,
    /// `--python`); `None`: not looked for.
    pub python_sources: Option<crate::commands::whence::SourceSpec>,
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
    crate::output::terminal::write_json(report, out)
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
            let zombies = since
                .map(|s| crate::commands::zombies::launch_check(path, s, options.list_processes));
            let mut values = BTreeMap::new();
            if let Some(check) = &zombies {
                values.insert("zombies_command".into(), check.command.clone());
            }
            let mut report = launch_report(&book, "log-missing", &name, &values);
            report.zombies = zombies;
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
