//! Problems: every way a link failed, not only unresolved symbols. Each problem has a kind, a
//! headline, the cause, the one fix, the 1-based log lines of its evidence and the files,
//! objects, libraries, symbols and values involved (docs/RULES.md §20; the JSON contract in
//! docs/GUIDE.md, "Problems").
//!
//! The stage runs after [`crate::resolve`]: it reads the diagnosis (the parser's findings, the
//! resolved symbols, the CRT evidence), the library index when one was searched, and the log's
//! context (toolset versions, intended machine, output file; [`context`]). One file per class,
//! tried in this order, each claiming the findings it explains so that no line is explained
//! twice:
//!
//! - [`machine`]: LNK1112, LNK4272, lld-link's `machine type X conflicts with Y`, and x86 names
//!   against x64 libraries (or the reverse);
//! - [`cannot_open`]: LNK1104, LNK1181, LNK1168, lld-link's `could not open`, an output file that
//!   cannot be written;
//! - [`crt_mismatch`]: LNK2038 (`RuntimeLibrary`, `_ITERATOR_DEBUG_LEVEL`), LNK4098, LNK2005
//!   between CRT libraries of different flavours, lld-link's `/failifmismatch`, object
//!   directives;
//! - [`toolset`]: names only a newer toolset's libraries define, or only the CRT before 2015 had;
//! - [`duplicate`]: LNK2005, LNK4006, LNK1169, lld-link's `duplicate symbol`;
//! - [`entry_point`]: LNK1561, lld-link's `entry point must be defined`, entry points the CRT's
//!   startup code asks for;
//! - `other`: an LNK2038 on another `detect_mismatch` key, a file that is no object or library
//!   (LNK1107, LNK1136), a program database the linker cannot write (LNK1201, LNK1318);
//! - [`fatal`]: every other fatal error of link.exe and lld-link, from a catalogue (link-time
//!   code generation across compiler versions, an image over 4 GB, a tool that cannot run, a
//!   program database, an invalid input, ...);
//! - `warnings`: LNK4217/LNK4286 beside unresolved `__imp_` names of the same library (a
//!   dllimport mismatch), a misspelt `/LIBPATH:` (LNK4044) behind a library that cannot be
//!   opened; the warnings no problem explains, with their fixes;
//! - `unresolved`: the rest of the unresolved symbols, with the resolver's verdict and flags.

pub mod cannot_open;
pub mod context;
pub mod crt_mismatch;
pub mod duplicate;
pub mod entry_point;
pub mod fatal;
pub mod machine;
mod other;
pub mod problem;
pub(crate) mod text;
pub mod toolset;
mod unresolved;
mod warnings;

pub use context::{LazyContext, LogContext, MachineMention, Mention};
pub use problem::{CrtRow, Problem, ProblemKind};

use crate::index::discover::SearchDir;
use crate::index::Index;
use crate::read::build_system::BuildSystem;
use crate::read::linklog::Finding;
use crate::resolve::Diagnosis;
use crate::rules::RuleBook;

/// The library index searched, and its directories.
#[derive(Clone, Copy)]
pub struct Search<'a> {
    /// Every library found.
    pub index: &'a Index,
    /// The directories, in search order.
    pub dirs: &'a [SearchDir],
}

/// What the stage reads besides the diagnosis.
pub struct Inputs<'a> {
    /// The rule book (CRT library names, families).
    pub book: &'a RuleBook,
    /// The libraries searched, when any were.
    pub search: Option<Search<'a>>,
    /// The log's context, read when a problem first cites it.
    pub context: &'a LazyContext<'a>,
    /// The objects the log names whose machine was read from the file.
    pub object_machines: &'a [(String, crate::index::Machine)],
}

/// What the class modules share: the diagnosis, the inputs, and which findings are explained.
pub(crate) struct Scan<'a> {
    pub(crate) diagnosis: &'a Diagnosis,
    pub(crate) inputs: &'a Inputs<'a>,
    /// For each of `diagnosis.findings`: whether a problem already explains it.
    pub(crate) claimed: Vec<bool>,
    /// Unresolved names a problem before the unresolved-symbols one explains (a dllimport
    /// mismatch's `__imp_` names).
    pub(crate) explained: Vec<String>,
}

impl<'a> Scan<'a> {
    /// The unclaimed findings with one of `codes`, with their index.
    pub(crate) fn unclaimed(&self, codes: &[&str]) -> Vec<(usize, &'a Finding)> {
        self.diagnosis
            .findings
            .iter()
            .enumerate()
            .filter(|(i, f)| !self.claimed[*i] && codes.contains(&f.code.as_str()))
            .collect()
    }

    /// The unclaimed lld-link errors and warnings whose text starts with `prefix`.
    pub(crate) fn unclaimed_lld(&self, prefix: &str) -> Vec<(usize, &'a Finding)> {
        self.diagnosis
            .findings
            .iter()
            .enumerate()
            .filter(|(i, f)| {
                !self.claimed[*i] && f.code.starts_with("lld-link") && f.text.starts_with(prefix)
            })
            .collect()
    }

    /// The unresolved symbols another failure class of `kind` explains.
    pub(crate) fn explained_as(
        &self,
        kind: crate::resolve::ExplainedKind,
    ) -> Vec<&'a crate::resolve::ResolvedSymbol> {
        self.diagnosis
            .symbols
            .iter()
            .filter(|s| s.explained_by().is_some_and(|e| e.kind == kind))
            .collect()
    }

    fn claim(&mut self, index: usize) {
        self.claimed[index] = true;
    }

    /// The build system the log shows.
    pub(crate) fn build_system(&self) -> Option<BuildSystem> {
        self.diagnosis.build_system.as_ref().map(|b| b.kind)
    }

    /// The output file of the link, when the log shows it (a fatal summary's file, `/OUT:`).
    pub(crate) fn output(&self) -> Option<String> {
        self.inputs
            .context
            .get()
            .outputs
            .first()
            .map(|o| o.value.clone())
    }
}

/// Finds the problems of a diagnosis and records them in it, with whether the link failed. Call
/// after [`Diagnosis::set_build_system`], so that fixes are written in the build system's terms.
pub fn attach(diagnosis: &mut Diagnosis, inputs: &Inputs<'_>) {
    let (problems, notes) = find_with_warnings(diagnosis, inputs);
    diagnosis.warnings.extend(notes);
    diagnosis.link_failed = !problems.is_empty()
        || link_failed(diagnosis)
        || !inputs.context.get().failure_lines.is_empty();
    if problems.is_empty() && diagnosis.link_failed {
        diagnosis.unrecognised = inputs
            .context
            .get()
            .failure_lines
            .iter()
            .take(8)
            .map(|m| (m.line, m.text.clone()))
            .collect();
    }
    diagnosis.problems = problems;
}

/// Every problem of a diagnosis, most fundamental first.
pub fn find(diagnosis: &Diagnosis, inputs: &Inputs<'_>) -> Vec<Problem> {
    find_with_warnings(diagnosis, inputs).0
}

/// Every problem of a diagnosis, most fundamental first, and the warnings no problem explains,
/// each with its fix ([`warnings`]).
fn find_with_warnings(diagnosis: &Diagnosis, inputs: &Inputs<'_>) -> (Vec<Problem>, Vec<String>) {
    let mut scan = Scan {
        diagnosis,
        inputs,
        claimed: vec![false; diagnosis.findings.len()],
        explained: Vec::new(),
    };
    let mut out = Vec::new();
    out.extend(machine::find(&mut scan));
    out.extend(cannot_open::find(&mut scan));
    out.extend(crt_mismatch::find(&mut scan));
    out.extend(toolset::find(&mut scan));
    out.extend(duplicate::find(&mut scan));
    out.extend(entry_point::find(&mut scan));
    out.extend(other::find(&mut scan));
    out.extend(fatal::find(&mut scan));
    out.extend(warnings::find(&mut scan));
    out.extend(unresolved::find(&mut scan));
    warnings::misspelt_libpath(&mut scan, &mut out);
    warning_mismatch_after_unresolved(&mut out, diagnosis, inputs);
    let notes = warnings::notes(&scan, &out);
    (out, notes)
}

/// A CRT mismatch that rests on LNK4098 alone (a warning: the link goes on) is not why a link
/// with unresolved names failed when none of those names is a C runtime's: the unresolved
/// names come first (they are the failure), the mismatch after them (it still needs fixing).
fn warning_mismatch_after_unresolved(
    problems: &mut Vec<Problem>,
    diagnosis: &Diagnosis,
    inputs: &Inputs<'_>,
) {
    let Some(unresolved) = problems
        .iter()
        .position(|p| p.kind == ProblemKind::Unresolved)
    else {
        return;
    };
    let any_crt_name = diagnosis
        .symbols
        .iter()
        .any(|s| inputs.book.is_crt_family(&s.family));
    if any_crt_name {
        return;
    }
    let only_warnings = |problem: &Problem| {
        let codes: Vec<&str> = diagnosis
            .findings
            .iter()
            .filter(|f| problem.lines.contains(&f.line))
            .map(|f| f.code.as_str())
            .collect();
        !codes.is_empty() && codes.iter().all(|code| *code == "LNK4098")
    };
    let mismatches: Vec<usize> = (0..unresolved)
        .filter(|&i| problems[i].kind == ProblemKind::CrtMismatch && only_warnings(&problems[i]))
        .collect();
    for (moved, index) in mismatches.into_iter().enumerate() {
        let problem = problems.remove(index - moved);
        problems.push(problem);
    }
}

/// Codes of link.exe's fatal errors and errors are `LNK1nnn` and `LNK2nnn`; `LNK4nnn` are
/// warnings (docs/RULES.md §8).
pub(crate) fn is_error_code(code: &str) -> bool {
    code.len() == 7
        && code.starts_with("LNK")
        && matches!(code.as_bytes()[3], b'1' | b'2')
        && code[3..].bytes().all(|b| b.is_ascii_digit())
}

/// Whether the log shows a failed link whatever lnkfix makes of it (a record cut at
/// `--max-line-bytes` counts: the line named a link error).
pub fn link_failed(diagnosis: &Diagnosis) -> bool {
    !diagnosis.symbols.is_empty()
        || diagnosis.verdict.kind == crate::resolve::VerdictKind::RecordsCut
        || !diagnosis.counts.lnk1120.is_empty()
        || diagnosis
            .findings
            .iter()
            .any(|f| is_error_code(&f.code) || f.code == "lld-link error" || f.code == "clang")
}

/// `a, b and c`.
pub(crate) fn join_words(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// `1 name`, `2 names`.
pub(crate) fn count(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// The first `limit` items joined, and how many more.
pub(crate) fn some_of(items: &[String], limit: usize) -> String {
    if items.len() > limit {
        format!(
            "{} and {} more",
            items[..limit].join(", "),
            items.len() - limit
        )
    } else {
        join_words(items)
    }
}

/// A log's diagnosis with its problems, from the rule book alone (the unit tests of the problem
/// kinds).
#[cfg(test)]
pub(crate) fn diagnose_text(log: &str) -> Diagnosis {
    diagnose_text_with(log, &LazyContext::ready(LogContext::from_text(log)))
}

/// [`diagnose_text`] with the context given.
#[cfg(test)]
pub(crate) fn diagnose_text_with(log: &str, context: &LazyContext<'_>) -> Diagnosis {
    let failure = crate::read::symbols::collect(
        std::io::Cursor::new(log.as_bytes().to_vec()),
        Default::default(),
    )
    .unwrap();
    let book = crate::rules::RuleBook::builtin();
    let mut d = crate::resolve::diagnose(failure, &book, &Default::default());
    let inputs = Inputs {
        book: &book,
        search: None,
        context,
        object_machines: &[],
    };
    attach(&mut d, &inputs);
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    /// How many times the log's context is read while a log is diagnosed.
    fn context_reads(log: &str) -> usize {
        let reads = std::cell::Cell::new(0);
        let context = LazyContext::new(|| {
            reads.set(reads.get() + 1);
            Ok(LogContext::from_text(log))
        });
        diagnose_text_with(log, &context);
        assert_eq!(context.was_read(), reads.get() > 0);
        reads.get()
    }

    #[test]
    fn the_context_is_read_only_when_a_problem_cites_it() {
        // Missing libraries alone: nothing cites the rest of the log.
        let unresolved = "a.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\n\
                          a.exe : fatal error LNK1120: 1 unresolved externals\n";
        assert_eq!(context_reads(unresolved), 0);
        // A file that cannot be opened: whether it is the link's output is in the context.
        assert_eq!(
            context_reads("LINK : fatal error LNK1104: cannot open file 'spirv-cross-cored.lib'\n"),
            1
        );
        // No record: failure lines are looked for in the context, once.
        assert_eq!(
            context_reads("ninja: build stopped: subcommand failed.\n"),
            1
        );
    }
}
