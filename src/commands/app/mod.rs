//! One entry per command: validated inputs in, a report out. The binary parses its arguments
//! into these requests, calls one function, renders what comes back through [`Report`] and exits
//! with the report's [`Status`]. Nothing here prints, and nothing reads process-global settings:
//! the environment comes in as a function, progress goes out through a callback.
//!
//! This file holds what every command shares (the status, the report trait, the library search,
//! the environment, the rule book); each command's orchestration is in its own file
//! (`diagnose.rs`, with the build's evidence in `build_evidence.rs`; `explain.rs`, `index.rs`,
//! `patch.rs`, `triage.rs`, `doctor.rs`, `zombies.rs`, `whence.rs`).

use std::io::{self, Write};
use std::path::PathBuf;

use serde::Serialize;

use crate::commands::error::Error;
use crate::index::discover::{self, SearchDir, SearchOptions};
use crate::index::{Index, IndexOptions, IndexWarning, Progress};
use crate::output::report::Style;

pub use crate::output::format::Format;
use crate::rules::RuleBook;

mod build_evidence;
mod build_patch;
mod diagnose;
mod doctor;
mod explain;
mod index;
mod patch;
mod triage;
mod whence;
mod zombies;

pub use build_patch::{plan_build_patch, BuildPatchReport, BuildPatchRequest};
pub use diagnose::{
    diagnose, diagnose_against, verified_diagnosis, DiagnoseReport, DiagnoseRequest, PatchPreview,
};
pub use doctor::doctor;
pub use explain::{explain, ExplainReport, ExplainRequest};
pub use index::{index, IndexReport, IndexRequest};
pub use patch::{plan_patch, PatchReport, PatchRequest};
pub use triage::triage;
pub use whence::{whence, WhenceRequest};
pub use zombies::zombies;

/// How a command ended: the process exit code. One enum for every command; the README's table
/// lists what each code means for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// 0: nothing to fix (no unresolved symbol, every check passed, the patch was written).
    Ok = 0,
    /// 1: something was found and reported (unresolved symbols, a classified failure, a failed
    /// check, a name nothing defines).
    Found = 1,
    /// 2: bad usage or unreadable input.
    Usage = 2,
    /// 3: `triage` matched nothing it knows; `diagnose`: a failed link it could not classify.
    Unclassified = 3,
    /// 4: `--verify`: the link still fails with the fix (or could not be run again).
    NotVerified = 4,
}

impl Status {
    /// The exit code.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A command's output: for people, for tools, and the exit status it implies.
pub trait Report {
    /// Writes the report for people (colour only when `style` says so).
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()>;
    /// Writes the report as one JSON document (the documented schema).
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()>;
    /// The exit status the report implies.
    fn status(&self) -> Status;
    /// The findings as annotations for CI formats (GitHub workflow commands, SARIF); `None`
    /// for reports that have none (`index`, `explain`, `doctor`).
    fn annotations(&self) -> Option<crate::output::annotations::Annotations> {
        None
    }
}

/// Writes `report` in `format`: the one place a format is chosen. Text is styled as `style`
/// says; GitHub workflow commands and SARIF come from the report's
/// [`annotations`](Report::annotations) (none for a report without findings).
pub fn write_report(
    report: &dyn Report,
    format: Format,
    style: Style,
    out: &mut dyn Write,
) -> io::Result<()> {
    let annotations = || report.annotations().unwrap_or_default();
    match format {
        Format::Text => report.write_text(out, style),
        Format::Json => report.write_json(out),
        Format::Github => crate::output::annotations::write_github(&annotations().findings, out),
        Format::Sarif => crate::output::annotations::write_sarif(&annotations(), out),
    }
}

/// Writes `value` as one pretty-printed JSON document and a newline.
pub fn write_json_value<T: Serialize + ?Sized>(value: &T, out: &mut dyn Write) -> io::Result<()> {
    crate::output::terminal::write_json(value, out)
}

/// Where the libraries are and how to read them.
#[derive(Debug, Clone, Default)]
pub struct LibrarySearch {
    /// Directories, layouts and globs (with none given: the environment, as link.exe does).
    pub options: SearchOptions,
    /// The index cache directory; `None`: no cache.
    pub cache_dir: Option<PathBuf>,
}

/// What the caller's process provides: its environment variables and a progress callback for
/// long scans.
pub struct Environment<'a> {
    /// Reads an environment variable.
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// Told how far a library scan is (`None`: nobody shows progress).
    pub progress: Option<Progress>,
}

impl Environment<'_> {
    /// The process environment, no progress.
    pub fn process() -> Environment<'static> {
        fn var(name: &str) -> Option<String> {
            std::env::var(name).ok()
        }
        Environment {
            var: &var,
            progress: None,
        }
    }
}

/// The platform cache directory for the index: `%LOCALAPPDATA%\lnkfix\cache` on Windows,
/// `$XDG_CACHE_HOME/lnkfix` or `~/.cache/lnkfix` elsewhere.
pub fn default_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(windows) {
        var("LOCALAPPDATA").map(|d| d.join("lnkfix").join("cache"))
    } else {
        var("XDG_CACHE_HOME")
            .or_else(|| var("HOME").map(|h| h.join(".cache")))
            .map(|d| d.join("lnkfix"))
    }
}

/// The environment variable that makes every command read the libraries in full (through the
/// per-file cache) instead of answering from the lookup table: for tests that compare the two.
pub const FULL_DECODE: &str = "LNKFIX_INDEX_FULL_DECODE";

/// The library index of a search, with its directories and warnings; `None` when nothing is
/// searched (no option given and no variable set).
pub struct Searched {
    /// Every library found.
    pub index: Index,
    /// The directories, in search order.
    pub dirs: Vec<SearchDir>,
    /// Problems with files (each names the file).
    pub index_warnings: Vec<IndexWarning>,
}

/// A library search made once, with the warnings of finding the libraries: tests diagnose many
/// logs against one ([`diagnose_against`]).
#[derive(Default)]
pub struct SearchDone {
    /// The index, or `None` when nothing is searched.
    pub searched: Option<Searched>,
    /// Problems finding the directories (the index's own are in [`Searched::index_warnings`]).
    pub warnings: Vec<String>,
    /// The Python interpreter whose directories were searched, or why it could not be asked;
    /// `None` when none was chosen.
    pub python: Option<discover::PythonFound>,
}

impl LibrarySearch {
    /// Finds the directories and builds the index, keeping the warnings apart.
    pub fn search(&self, env: &Environment<'_>) -> SearchDone {
        let mut warnings = Vec::new();
        let (python, searched) = self.index_as(env, &mut warnings, true);
        SearchDone {
            searched,
            warnings,
            python,
        }
    }

    /// Finds the directories and builds the index, answering from the lookup table of the set
    /// when the cache has a current one (lookups read only the names asked); `None` when nothing
    /// is searched.
    pub fn index(&self, env: &Environment<'_>, warnings: &mut Vec<String>) -> Option<Searched> {
        self.index_as(env, warnings, true).1
    }

    /// Finds the directories and reads every library (through the per-file cache), for commands
    /// that list every symbol: the lookup table would only be read and set aside.
    pub fn index_all(&self, env: &Environment<'_>, warnings: &mut Vec<String>) -> Option<Searched> {
        self.index_as(env, warnings, false).1
    }

    /// The search, with the Python interpreter whose directories were searched (or why it could
    /// not be asked; `None` when none was chosen).
    fn index_as(
        &self,
        env: &Environment<'_>,
        warnings: &mut Vec<String>,
        lookup: bool,
    ) -> (Option<discover::PythonFound>, Option<Searched>) {
        let cache_dir = self.cache_dir.as_deref();
        let probe = |exe: &std::path::Path| {
            crate::index::interpreter::probe_remembered(exe, cache_dir, env.var)
        };
        let found = discover::discover_with(&self.options, env.var, &probe);
        warnings.extend(found.warnings);
        if found.dirs.is_empty() && found.files.is_empty() {
            return (found.python, None);
        }
        let options = IndexOptions {
            arch: found.layout_machine.unwrap_or(self.options.arch),
            progress: env.progress.clone(),
            cache_dir: self.cache_dir.clone(),
        };
        // The full decode, forced: tests compare its answers with the lookup table's.
        let (index, index_warnings) = if !lookup || (env.var)(FULL_DECODE).is_some() {
            Index::build(&found.files, &options)
        } else {
            Index::open(&found.files, &options)
        };
        let searched = Searched {
            index,
            dirs: found.dirs,
            index_warnings,
        };
        (found.python, Some(searched))
    }
}

/// The rule book with the user's rule files added.
pub fn rule_book(rules: &[PathBuf]) -> Result<RuleBook, Error> {
    let mut book = RuleBook::builtin();
    for path in rules {
        book.add_file(path)?;
    }
    Ok(book)
}
