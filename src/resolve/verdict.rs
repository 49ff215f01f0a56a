//! The verdict: the counts it is decided on (the rule book's >50% rule) and its sentence.

use super::{ResolvedSymbol, VerdictKind};
use crate::rules::{Flavour, RuleBook};

/// Families that count as "plain CRT/system" for the rule book's >50% rule.
fn is_crt_or_system(book: &RuleBook, family: &str) -> bool {
    family == "windows-system" || book.is_crt_family(family)
}

/// The counts the verdict is decided on, over the names no other problem explains.
pub(super) struct Tally {
    /// Names left unresolved.
    pub(super) unresolved: usize,
    /// Of those, CRT or system names.
    pub(super) crt_or_system: usize,
    /// Of those, CRT names.
    crt_only: usize,
    /// Names no rule, table or library knows.
    pub(super) unknown: usize,
    /// Entry points.
    entry_points: usize,
}

impl Tally {
    /// Counts the names no other problem explains.
    pub(super) fn new(book: &RuleBook, symbols: &[ResolvedSymbol]) -> Tally {
        let counted = || symbols.iter().filter(|s| s.explained_by().is_none());
        Tally {
            unresolved: counted().count(),
            crt_or_system: counted()
                .filter(|s| is_crt_or_system(book, &s.family))
                .count(),
            crt_only: counted().filter(|s| book.is_crt_family(&s.family)).count(),
            unknown: counted().filter(|s| s.family == "unknown").count(),
            entry_points: counted().filter(|s| s.family == "entry-point").count(),
        }
    }

    /// The verdict: more than half CRT/system names is the default-library chain missing.
    pub(super) fn verdict(&self, no_symbols: bool, cut_records: bool) -> VerdictKind {
        let unresolved = self.unresolved;
        if no_symbols && cut_records {
            VerdictKind::RecordsCut
        } else if no_symbols {
            VerdictKind::NothingUnresolved
        } else if unresolved == 0 {
            VerdictKind::Explained
        } else if self.entry_points == unresolved {
            VerdictKind::EntryPoint
        } else if self.crt_or_system * 2 > unresolved && self.crt_only > 0 {
            VerdictKind::DefaultLibChainAbsent
        } else if self.crt_or_system * 2 > unresolved {
            VerdictKind::SystemLibrariesMissing
        } else if self.unknown == unresolved {
            VerdictKind::UnknownSymbols
        } else {
            VerdictKind::LibrariesMissing
        }
    }
}

/// The verdict's sentence, with what is mixed or lacking said first.
pub(super) fn verdict_summary(
    symbols: &[ResolvedSymbol],
    verdict_kind: VerdictKind,
    tally: &Tally,
    flavour: Option<Flavour>,
    mixed: bool,
    lacking: &[String],
) -> String {
    let entry_names: Vec<&str> = symbols
        .iter()
        .filter(|s| s.explained_by().is_none())
        .filter(|s| s.family == "entry-point")
        .map(|s| s.symbol.lookup_name())
        .collect();
    let mut summary = summary_line(
        &entry_names,
        verdict_kind,
        tally.unresolved,
        tally.crt_or_system,
        tally.unknown,
        flavour,
    );
    if verdict_kind == VerdictKind::DefaultLibChainAbsent && mixed {
        summary.push_str(
            "; but the CRT evidence is mixed, so only the libraries these symbols need are added, and the other flavour's libraries the log shows are kept out",
        );
    }
    let mut internal: Vec<&str> = symbols
        .iter()
        .filter(|s| s.explained_by().is_none())
        .filter_map(|s| s.not_exported_by())
        .collect();
    internal.sort_unstable();
    internal.dedup();
    let mut own: Vec<&str> = symbols
        .iter()
        .filter(|s| s.explained_by().is_none())
        .filter_map(|s| s.own_output().map(|o| o.library.as_str()))
        .collect();
    own.sort_unstable();
    own.dedup();
    if !own.is_empty() {
        summary = format!(
            "names of {} itself, which this link builds (their defining objects are not in the link; no library provides them); {summary}",
            own.join(", ")
        );
    }
    if !internal.is_empty() {
        summary = format!(
            "names internal to {} (not exported: no library provides them; use the public API); {summary}",
            internal.join(", ")
        );
    }
    if !lacking.is_empty() {
        summary = format!(
            "installed {} lack{} names the code uses (the SDK on disk is older or newer than the code expects); {summary}",
            lacking.join(", "),
            if lacking.len() == 1 { "s" } else { "" }
        );
    }
    summary
}

/// The verdict's sentence for its kind and counts.
fn summary_line(
    entry_names: &[&str],
    kind: VerdictKind,
    unresolved: usize,
    crt_or_system: usize,
    unknown: usize,
    flavour: Option<Flavour>,
) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    match kind {
        VerdictKind::NothingUnresolved => "no unresolved symbols in the log".into(),
        VerdictKind::Explained => {
            "every unresolved symbol is explained by the problems above: no library to add".into()
        }
        VerdictKind::RecordsCut => "the link failed, but its error records are on lines longer than --max-line-bytes: raise it to read them".into(),
        VerdictKind::DefaultLibChainAbsent => format!(
            "default-library chain absent: {crt_or_system} of {unresolved} unresolved symbol{} are CRT/system symbols; link the whole chain{}",
            plural(unresolved),
            match flavour {
                Some(f) => format!(" for {f}"),
                None => " (flavour unknown: both shown)".into(),
            }
        ),
        VerdictKind::SystemLibrariesMissing => format!(
            "Windows system import libraries missing: {crt_or_system} of {unresolved} unresolved symbol{} come from them",
            plural(unresolved)
        ),
        VerdictKind::LibrariesMissing => format!(
            "{unresolved} unresolved symbol{}: {} known, {unknown} unknown",
            plural(unresolved),
            unresolved - unknown
        ),
        VerdictKind::EntryPoint => format!(
            "entry point missing: {unresolved} unresolved entry point{} ({}); the subsystem or entry point is wrong, no library is missing",
            plural(unresolved),
            entry_names.join(", ")
        ),
        VerdictKind::UnknownSymbols => format!(
            "{unresolved} unresolved symbol{} that no rule or library knows: they are probably the project's own (a missing source file, template instantiation or export), or from a library not searched",
            plural(unresolved)
        ),
    }
}
