//! `whence`: from an error message to the Python code that formats it. A supervisor log keeps
//! the message (`KeyError: 'Keyword argument launch_pdl was specified but unrecognised'`) and
//! loses the traceback; the source holds the format (`"Keyword argument %s was specified but
//! unrecognised" % k`). This stage finds the format in the installed sources:
//!
//! ```text
//! MESSAGE ─▶ message (type, module, prefilter fragments) ─┐
//! --site-packages / --python / PATH / VIRTUAL_ENV ─▶ sources ─┼─▶ walk (prefilter, python) ─▶ rank
//! ```
//!
//! The message's exception prefix is taken off and used to rank; the files are walked in
//! parallel and only those holding one of the message's literal fragments are read as Python;
//! each string-building expression becomes a template (constant parts and placeholders) laid
//! over the message; the candidates are ranked by location, the share of the message they
//! explain, and the evidence that they raise it (docs/GUIDE.md, `lnkfix whence`).

pub mod message;
mod python;
mod rank;
mod render;
pub mod sources;
pub mod template;
mod walk;

use std::path::PathBuf;

pub use message::Message;
pub use python::Raises;
pub use rank::{module_of, Candidate, Location, MIN_EXPLAINS};
pub use render::{location_line, write_json, write_raisers, write_text};
pub use sources::{resolve, SearchDir, SourceSpec, Sources};
pub use walk::{is_python_source, MAX_FILE_BYTES};

/// Why a search could not run (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum WhenceError {
    /// A `--site-packages` directory does not exist or is not a directory.
    #[error("{path}: not a directory (--site-packages)")]
    NotADirectory {
        /// The path given.
        path: PathBuf,
    },
    /// The interpreter could not be asked where its sources are.
    #[error("{exe}: cannot run it to ask where its sources are: {reason}")]
    Python {
        /// The interpreter as given.
        exe: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// No option was given and neither an interpreter on `PATH` nor `VIRTUAL_ENV` answered.
    #[error("no Python sources to search: give --site-packages DIR or --python EXE ({})", tried.join("; "))]
    NoSources {
        /// What was tried and why each failed.
        tried: Vec<String>,
    },
}

/// What a search read.
#[derive(Debug, Clone, Default)]
pub struct SearchStats {
    /// Python files read (in the first pass).
    pub files_scanned: usize,
    /// Bytes read from them.
    pub bytes_scanned: u64,
    /// Files the prefilter let through (all passes).
    pub files_matched: usize,
    /// Files skipped: too large, or not text.
    pub files_skipped: usize,
    /// Walks made: 1, or 2 when a message needed the finer word-pair prefilter.
    pub passes: usize,
    /// Unreadable files and directories, symbolic-link loops.
    pub warnings: Vec<String>,
}

/// The answer for one message.
#[derive(Debug, Clone)]
pub struct MessageResult {
    /// The message, parsed.
    pub message: Message,
    /// The fragments the prefilter looked for (both passes).
    pub prefilter: Vec<String>,
    /// Every candidate, best first.
    pub candidates: Vec<Candidate>,
}

/// Below this share of the message, a second, finer pass looks again.
const SECOND_PASS_BELOW: f64 = 0.5;

/// The directories to walk: those not inside another one of `dirs` (the innermost still names a
/// file's root).
fn walk_roots(dirs: &[PathBuf]) -> Vec<PathBuf> {
    let canonical: Vec<PathBuf> = dirs
        .iter()
        .map(|d| dunce::canonicalize(d).unwrap_or_else(|_| d.clone()))
        .collect();
    dirs.iter()
        .enumerate()
        .filter(|&(i, _)| {
            !canonical.iter().enumerate().any(|(j, outer)| {
                j != i && canonical[i].starts_with(outer) && (canonical[i] != *outer || j < i)
            })
        })
        .map(|(_, d)| d.clone())
        .collect()
}

/// Searches `dirs` for the code that formats each of `messages`.
pub fn search(messages: Vec<Message>, dirs: &[PathBuf]) -> (Vec<MessageResult>, SearchStats) {
    let roots = walk_roots(dirs);
    let refs: Vec<&Message> = messages.iter().collect();
    let fragments: Vec<walk::Fragments> = messages
        .iter()
        .map(|m| walk::Fragments {
            list: m.runs(),
            needed: 1,
        })
        .collect();
    let first = walk::walk(&roots, &refs, &fragments);
    let mut stats = SearchStats {
        files_scanned: first.files_scanned,
        bytes_scanned: first.bytes_scanned,
        files_matched: first.files_matched,
        files_skipped: first.files_skipped,
        passes: 1,
        warnings: first.warnings.clone(),
    };
    let mut results: Vec<MessageResult> = messages
        .iter()
        .enumerate()
        .map(|(i, message)| MessageResult {
            message: message.clone(),
            prefilter: fragments[i].list.clone(),
            candidates: rank::candidates(&first.found, i, message, dirs),
        })
        .collect();
    // A placeholder inside every run of words: look again for pairs of words, in files that
    // hold two of them (one when the message has only one or two).
    let finer: Vec<walk::Fragments> = results
        .iter()
        .map(|r| {
            let best = r.candidates.first().map_or(0.0, |c| c.explains);
            if best >= SECOND_PASS_BELOW {
                return walk::Fragments::default();
            }
            let list: Vec<String> = r
                .message
                .word_pairs()
                .into_iter()
                .filter(|pair| !r.prefilter.contains(pair))
                .collect();
            let needed = if list.len() >= 3 { 2 } else { 1 };
            walk::Fragments { list, needed }
        })
        .collect();
    if finer.iter().any(|f| !f.list.is_empty()) {
        let second = walk::walk(&roots, &refs, &finer);
        stats.passes = 2;
        stats.files_matched += second.files_matched;
        for warning in second.warnings {
            if !stats.warnings.contains(&warning) {
                stats.warnings.push(warning);
            }
        }
        for (i, result) in results.iter_mut().enumerate() {
            if finer[i].list.is_empty() {
                continue;
            }
            let more = rank::candidates(&second.found, i, &result.message, dirs);
            result.candidates = rank::merge(std::mem::take(&mut result.candidates), more);
            result.prefilter.extend(finer[i].list.iter().cloned());
        }
    }
    (results, stats)
}

/// One template of a Python source that explains part of a message (see [`explain_source`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceMatch {
    /// 1-based line of its first constant part that matched.
    pub line: usize,
    /// The template, `{}` for each placeholder.
    pub template: String,
    /// Characters of the message its constant parts cover.
    pub covered_chars: usize,
    /// How it is tied to raising.
    pub raises: Raises,
}

/// What the search does with one file's text, without the walk or the ranking: every template
/// in `source` that explains part of `message` (for fuzzing, and for tools that hold the text).
pub fn explain_source(source: &str, message: &Message) -> Vec<SourceMatch> {
    python::analyse(source, &[message])
        .into_iter()
        .map(|found| SourceMatch {
            line: found.line,
            template: found.template,
            covered_chars: found.matched.covered_chars,
            raises: found.raises,
        })
        .collect()
}

/// What `lnkfix whence` produced.
#[derive(Debug, Clone)]
pub struct WhenceReport {
    /// The answer.
    pub result: MessageResult,
    /// Where it looked.
    pub sources: Sources,
    /// What it read.
    pub stats: SearchStats,
    /// Most candidates shown.
    pub limit: usize,
}

/// Looks for the code that formats `message` in `sources`.
pub fn whence(message: &str, sources: Sources, limit: usize) -> WhenceReport {
    let dirs: Vec<PathBuf> = sources.dirs.iter().map(|d| d.path.clone()).collect();
    let (mut results, stats) = search(vec![Message::parse(message)], &dirs);
    WhenceReport {
        result: results.remove(0),
        sources,
        stats,
        limit,
    }
}
