//! What the log shows already in the link (libraries whose members reference a name, libraries
//! linker warnings name, CRT libraries in the evidence), and what that says about each answer.

use serde::Serialize;

use super::{Answerer, ResolvedSymbol, SearchContext};
use crate::index::discover;
use crate::read::symbols::LinkFailure;
use crate::rules::RuleBook;

/// A library the log shows in the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LinkedLibrary {
    /// The library's file name as the log wrote it (`oldnames.lib`).
    pub library: String,
    /// 1-based line of the evidence.
    pub line: u64,
    /// What shows it (`a member of it references a symbol`, `LNK4217 names it`).
    pub evidence: String,
}

/// The file name of a library in `lib.lib(member.obj)` or a path to it, when `text` names one.
fn library_in(text: &str) -> Option<String> {
    let text = text.trim_matches(['\'', '"']);
    let head = match text.find('(') {
        Some(at) => &text[..at],
        None => return None,
    };
    let name = head.rsplit(['\\', '/']).next().unwrap_or(head).trim();
    let lower = name.to_ascii_lowercase();
    (lower.ends_with(".lib") || lower.ends_with(".a")).then(|| name.to_string())
}

/// The libraries the log shows already in the link: the library part of a referencing
/// `lib.lib(member.obj)`, and libraries named by linker warnings that only a linked library
/// produces (LNK4217, LNK4286, LNK4006, LNK2005). `/DEFAULTLIB` options are not counted: a
/// `/NODEFAULTLIB` elsewhere may cancel them.
pub fn linked_libraries(failure: &LinkFailure) -> Vec<LinkedLibrary> {
    let mut out: Vec<LinkedLibrary> = Vec::new();
    let mut add = |library: String, line: u64, evidence: &str| {
        if !out.iter().any(|l| l.library.eq_ignore_ascii_case(&library)) {
            out.push(LinkedLibrary {
                library,
                line,
                evidence: evidence.to_string(),
            });
        }
    };
    for symbol in &failure.symbols {
        for reference in &symbol.references {
            if let Some(library) = reference.object.as_deref().and_then(library_in) {
                add(
                    library,
                    symbol.first_line,
                    "a member of it references an unresolved symbol",
                );
            }
        }
    }
    for finding in &failure.findings {
        if !["LNK4217", "LNK4286", "LNK4006", "LNK2005"].contains(&finding.code.as_str()) {
            continue;
        }
        for text in finding.values.iter().chain(&finding.objects) {
            if let Some(library) = library_in(text) {
                add(
                    library,
                    finding.line,
                    &format!("{} names a member of it", finding.code),
                );
            }
        }
    }
    out
}

/// What the log already shows about each answer: a library already in the link (it is not
/// offered again, and the note says the copy used lacks the name), and a rule's library that is
/// installed but lacks the name. Returns the libraries that lack names.
pub(super) fn note_log_evidence(
    symbols: &mut [ResolvedSymbol],
    linked: &[LinkedLibrary],
    context: Option<&SearchContext<'_>>,
    book: &RuleBook,
) -> Vec<String> {
    let mut lacking: Vec<String> = Vec::new();
    for s in symbols.iter_mut() {
        if let Some(library) = &s.library {
            if let Some(l) = linked
                .iter()
                .find(|l| l.library.eq_ignore_ascii_case(library))
            {
                s.already_linked = Some(Box::new(l.clone()));
                let note = format!(
                    "{} is already in the link (line {}: {}) and the name is still unresolved: the copy the linker used does not define it (another version, or another copy found first on the library path)",
                    l.library, l.line, l.evidence
                );
                s.match_note = Some(match s.match_note.take() {
                    Some(old) => format!("{note}; {old}"),
                    None => note,
                });
            }
        }
        if s.provider == Some(Answerer::Rule) && s.not_found_on_disk {
            let installed = s
                .library
                .as_deref()
                .and_then(|library| context.and_then(|c| discover::find_library(c.dirs, library)));
            if let Some(path) = installed {
                let path = path.to_string_lossy().into_owned();
                let library = s.library.clone().unwrap_or_default();
                // A third-party library's namespace (a CRT name the installed CRT lacks is a
                // toolset difference, said as such).
                let crt = book.is_crt_family(&s.family);
                if !crt && s.source.as_deref().is_some_and(|r| book.is_scope_rule(r)) {
                    if s.near_misses.is_empty() {
                        not_exported(s, library, path);
                    } else {
                        s.match_note = Some(format!(
                            "{path} defines this function differently (near miss below: what differs and the fix); it is no internal name"
                        ));
                    }
                    continue;
                }
                if !lacking.contains(&library) {
                    lacking.push(library.clone());
                }
                s.match_note = Some(format!(
                    "{library} should define it, but the installed {path} does not: the SDK on disk is older or newer than the code expects"
                ));
                s.installed_lacks = Some(path);
            }
        }
    }

    lacking
}

/// A name in a known library's namespace that the library on disk (`path`) does not export:
/// internal to it, so no library is offered.
fn not_exported(s: &mut ResolvedSymbol, library: String, path: String) {
    s.match_note = Some(format!(
        "not exported by {library} (internal): {path} is in the link's search path and does not export it; there is no library to add: call the library's public (exported) API instead, or build the library from source with the name exported"
    ));
    s.library = None;
    s.not_exported_by = Some(library);
}

#[cfg(test)]
mod tests {
    use super::super::test_support::with_index;
    use crate::index::{LibrarySymbol, Machine, SymbolKind};
    use std::path::{Path, PathBuf};

    #[test]
    fn a_library_already_in_the_link_is_not_offered_again() {
        let log = "oldnames.lib(getpid.obj) : error LNK2001: unresolved external symbol _getpid\n\
                   app.obj : error LNK2019: unresolved external symbol legacy_fn referenced in function main\n";
        let legacy = LibrarySymbol::new(
            "legacy_fn".into(),
            Path::new("oldnames.lib"),
            SymbolKind::Defined,
            Machine::X64,
        );
        let d = with_index(log, vec![legacy], Path::new("."));
        let s = d
            .symbols
            .iter()
            .find(|s| s.symbol.name == "legacy_fn")
            .unwrap();
        let linked = s.already_linked.as_ref().expect("oldnames.lib is linked");
        assert_eq!(linked.library, "oldnames.lib");
        assert!(s
            .match_note
            .as_deref()
            .unwrap()
            .contains("already in the link"));
        assert!(
            !d.link_flags
                .iter()
                .any(|f| f.eq_ignore_ascii_case("oldnames.lib")),
            "{:?}",
            d.link_flags
        );
    }

    #[test]
    fn an_installed_library_that_lacks_the_name_leads_the_headline() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("amdhip64.lib"), b"!<arch>\n").unwrap();
        let log = "app.obj : error LNK2019: unresolved external symbol hipNewApiOnlyIn7 referenced in function main\n";
        let d = with_index(log, Vec::new(), dir.path());
        let s = &d.symbols[0];
        assert_eq!(
            s.installed_lacks.as_deref().map(PathBuf::from),
            Some(dir.path().join("amdhip64.lib"))
        );
        assert!(
            d.verdict
                .summary
                .starts_with("installed amdhip64.lib lacks"),
            "{}",
            d.verdict.summary
        );
    }
}
