//! Each symbol's answer: from a library on disk, from the rule book, or none (unknown); a name
//! only another CRT flavour's libraries define is said as such.

use std::collections::BTreeMap;

use super::entry_point::{entry_point_answer, is_entry_point};
use super::{Answerer, RareAnswer, ResolvedSymbol};
use crate::read::evidence::CrtDecision;
use crate::read::symbols::{Interner, LinkFailure, Shared, UnresolvedSymbol};
use crate::resolve::providers;
use crate::rules::{Classification, Flavour, RuleBook, SymbolKey};

/// Classifies a symbol; for a name with a leading `_` that nothing knows, tries it once more
/// without (an x86 `__cdecl` name in a log that mixes x86 and x64 builds).
pub fn classify(book: &RuleBook, symbol: &UnresolvedSymbol) -> Option<Classification> {
    // A chain name whose decoration is part of the name (`__avx2_acos4@@32`, a vectorcall
    // function) is looked up as the linker wrote it.
    if let Some(linker) = symbol.linker_name() {
        let bare = linker.strip_prefix("__imp_").unwrap_or(linker);
        if bare != symbol.lookup_name() && !crate::rules::names::chain_lookup(bare).is_empty() {
            return book.classify(SymbolKey {
                name: bare,
                demangled: symbol.demangled(),
                import: symbol.import,
            });
        }
    }
    let key = SymbolKey {
        name: symbol.lookup_name(),
        demangled: symbol.demangled(),
        import: symbol.import,
    };
    let direct = book.classify(key);
    let generic = direct.as_ref().is_some_and(|c| c.family == "dll-import");
    if direct.is_none() || generic {
        if let Some(base) = symbol
            .lookup_name()
            .strip_prefix('_')
            .filter(|b| !b.is_empty())
        {
            let retry = book.classify(SymbolKey {
                name: base,
                demangled: base,
                import: symbol.import,
            });
            if retry.as_ref().is_some_and(|c| c.family != "dll-import") {
                return retry;
            }
        }
    }
    direct
}

/// Resolves each symbol, moving it out of the failure (not copying it) and giving the inputs'
/// memory back as they are used up: a log of many distinct symbols would otherwise hold each one
/// three times at the peak.
pub(super) fn resolve_symbols(
    failure: &mut LinkFailure,
    book: &RuleBook,
    mut classes: Vec<Option<Classification>>,
    mut matches: Vec<Option<providers::Match>>,
    crt: &CrtDecision,
    on_disk: bool,
) -> Vec<ResolvedSymbol> {
    let mut unresolved = std::mem::take(&mut failure.symbols);
    let mut symbols = Vec::with_capacity(unresolved.len());
    // The family, source and rule-book texts repeat over thousands of symbols: one copy each.
    let mut interner = Interner::default();
    while let (Some(symbol), Some(class), Some(found)) =
        (unresolved.pop(), classes.pop(), matches.pop())
    {
        let mut resolved = resolve_one(book, symbol, class, found, crt, on_disk);
        resolved.family = interner.get(&resolved.family);
        resolved.source = resolved.source.map(|s| interner.get(&s));
        if let Some(rare) = resolved.rare.as_deref_mut() {
            rare.rulebook_differs = rare.rulebook_differs.take().map(|s| interner.get(&s));
        }
        symbols.push(resolved);
        // Given back an eighth at a time: halving let the inputs' unused half stand beside the
        // resolved symbols (the peak of a log of many distinct names was half-way through).
        if unresolved.len() < unresolved.capacity() / 8 * 7 && unresolved.capacity() > 1024 {
            unresolved.shrink_to_fit();
            classes.shrink_to_fit();
            matches.shrink_to_fit();
        }
    }
    symbols.reverse();

    symbols
}

/// The family the archive on disk implies: a CRT family by the library's name, else the rule's
/// family, else what the member is (an import from some DLL, or a static library's definition).
fn family_from_provider(
    book: &RuleBook,
    provider: &providers::Provider,
    class: Option<&Classification>,
) -> String {
    let lower = provider.library.to_ascii_lowercase();
    if lower == "oldnames.lib" {
        return "oldnames".into();
    }
    if let Some((family, _)) = book
        .crt_library_flavours(&provider.library)
        .into_iter()
        .next()
    {
        return family;
    }
    let hip = provider
        .library
        .to_ascii_lowercase()
        .starts_with("amdhip64")
        || provider
            .dll
            .as_deref()
            .is_some_and(|d| d.to_ascii_lowercase().starts_with("amdhip64"));
    if hip {
        return "hip-runtime".into();
    }
    match class {
        Some(c) if !book.is_crt_family(&c.family) && c.family != "dll-import" => c.family.clone(),
        _ if provider.dll.is_some() => {
            if class.is_some_and(|c| c.family == "windows-system") {
                "windows-system".into()
            } else {
                "dll-import".into()
            }
        }
        _ => "static-library".into(),
    }
}

/// Resolves one symbol: an entry point is no library's; else the best usable provider on disk;
/// else, when only another flavour's libraries define it, that said; else the rule book's
/// answer; else unknown.
fn resolve_one(
    book: &RuleBook,
    symbol: UnresolvedSymbol,
    class: Option<Classification>,
    found: Option<providers::Match>,
    crt: &CrtDecision,
    searched: bool,
) -> ResolvedSymbol {
    let found = found.unwrap_or_default();
    let near_misses = found.near_misses;
    if is_entry_point(&symbol) {
        return entry_point_answer(symbol, Vec::new());
    }
    let usable = found.providers.iter().position(|p| p.excluded.is_none());
    if let (None, Some(first), Some(f)) = (usable, found.providers.first(), crt.flavour) {
        // Defined only by libraries of another CRT flavour: never mixed into this link.
        return only_in_another_flavour(
            book,
            symbol,
            class,
            &found.providers,
            first,
            f,
            near_misses,
        );
    }
    if let Some(at) = usable {
        return from_provider(book, symbol, class, &found.providers, at, crt, near_misses);
    }
    match class {
        Some(class) => from_rule(book, symbol, class, crt, near_misses, searched),
        None => unknown_answer(symbol, near_misses, searched),
    }
}

/// The answer from a library on disk, `providers[usable]`: its family, what the rule book said
/// if it differs, the best provider of each linkage when the flavour is unknown, the others.
fn from_provider(
    book: &RuleBook,
    symbol: UnresolvedSymbol,
    class: Option<Classification>,
    providers: &[providers::Provider],
    usable: usize,
    crt: &CrtDecision,
    near_misses: Vec<providers::NearMiss>,
) -> ResolvedSymbol {
    let best = providers[usable].clone();
    let family = family_from_provider(book, &best, class.as_ref());
    let rulebook_differs = class
        .as_ref()
        .and_then(|c| c.rulebook_differs.as_ref())
        .map(|text| format!("{text}; on disk it is defined by {}", best.library));
    let index_differs = class
        .as_ref()
        .filter(|c| c.family != family && c.family != "dll-import")
        .map(|c| {
            format!(
                "the rule book ({}) says {}; the archive on disk says {family} ({})",
                c.source, c.family, best.library
            )
        });
    // With the flavour unknown, a CRT symbol keeps the best provider of each linkage.
    let crt_family = book.is_crt_family(&family);
    let libraries_by_flavour = (crt_family && crt.flavour.is_none())
        .then(|| libraries_by_linkage(book, providers, crt))
        .flatten();
    let chosen = libraries_by_flavour.is_none().then(|| best.clone());
    let alternatives: Vec<providers::Provider> = providers
        .iter()
        .enumerate()
        .filter(|(at, _)| *at != usable)
        .map(|(_, p)| p.clone())
        .collect();
    let matched_name = (symbol.linker_name() != Some(best.matched_name.as_str()))
        .then(|| best.matched_name.clone());
    let match_note = role_note(&best);
    ResolvedSymbol {
        symbol,
        family: family.into(),
        library: chosen.as_ref().map(|p| p.library.clone()),
        library_path: chosen.as_ref().map(|p| p.path.as_str().into()),
        provider: Some(best.source.into()),
        source: Some(best.source.to_string().into()),
        dll: best.dll.clone(),
        member: best.member.clone(),
        matched_name: matched_name.map(Into::into),
        match_note: match_note.map(Into::into),
        alternatives,
        near_misses,
        index_differs: index_differs.map(Into::into),
        not_found_on_disk: false,
        library_source: None,
        rare: rare_answer(libraries_by_flavour, rulebook_differs.map(Shared::from)),
    }
}

/// With the flavour unknown: the best provider of each flavour of the evidence's debug-ness,
/// when more than one flavour has one.
fn libraries_by_linkage(
    book: &RuleBook,
    providers: &[providers::Provider],
    crt: &CrtDecision,
) -> Option<BTreeMap<Flavour, String>> {
    let debug = crt.evidence.iter().any(|e| e.debug == Some(true));
    let mut by = BTreeMap::new();
    for p in providers {
        for (_, f) in book.crt_library_flavours(&p.library) {
            if f.is_debug() == debug {
                by.entry(f).or_insert_with(|| p.library.clone());
            }
        }
    }
    (by.len() > 1).then_some(by)
}

/// The provider's note; for a library that is not an ordinary answer (an add-on, a runtime
/// variant, an umbrella), chosen only because nothing ordinary defines the name, what it is for.
fn role_note(best: &providers::Provider) -> Option<String> {
    if best.role.is_ordinary() {
        best.note.clone()
    } else {
        let what = format!(
            "{} ({}): {}; chosen because no ordinary library defines the name",
            best.library,
            best.role,
            best.purpose.as_deref().unwrap_or("no purpose recorded")
        );
        Some(match &best.note {
            Some(note) => format!("{what}; {note}"),
            None => what,
        })
    }
}

/// A name no rule, table or library knows.
fn unknown_answer(
    symbol: UnresolvedSymbol,
    near_misses: Vec<providers::NearMiss>,
    searched: bool,
) -> ResolvedSymbol {
    ResolvedSymbol {
        symbol,
        family: "unknown".into(),
        library: None,
        library_path: None,
        provider: None,
        source: None,
        dll: None,
        member: None,
        matched_name: None,
        match_note: None,
        alternatives: Vec::new(),
        near_misses,
        index_differs: None,
        not_found_on_disk: searched,
        library_source: None,
        rare: None,
    }
}

/// The rule book's answer (no library searched defines the name, or none was searched): the
/// family's library in the flavour decided, or one per flavour when it is unknown.
fn from_rule(
    book: &RuleBook,
    symbol: UnresolvedSymbol,
    class: Classification,
    crt: &CrtDecision,
    near_misses: Vec<providers::NearMiss>,
    searched: bool,
) -> ResolvedSymbol {
    let mut library = class.library.clone();
    let mut libraries_by_flavour = None;
    let mut family = class.family.clone();
    let mut match_note = no_library_note(book, &class).or_else(|| by_namespace_note(book, &class));
    if library.is_none() {
        match crt.flavour {
            Some(f) => match flavour_library(book, &class, f) {
                Some((f_family, f_library)) => {
                    family = f_family;
                    library = Some(f_library);
                }
                None if class.by_flavour.is_some() => {
                    match_note = Some(other_flavours_note(&class, f));
                }
                None => {}
            },
            None => libraries_by_flavour = rule_libraries_by_flavour(book, &class, crt),
        }
    }
    ResolvedSymbol {
        symbol,
        family: family.into(),
        library,
        library_path: None,
        provider: Some(Answerer::Rule),
        source: Some(class.source.into()),
        dll: class.dll,
        member: None,
        matched_name: None,
        match_note: match_note.map(Into::into),
        alternatives: Vec::new(),
        near_misses,
        index_differs: None,
        not_found_on_disk: searched,
        library_source: None,
        rare: rare_answer(
            libraries_by_flavour,
            class.rulebook_differs.map(Shared::from),
        ),
    }
}

/// What a family with no library (a name from a pre-2015 CRT) means, said instead of a library.
fn no_library_note(book: &RuleBook, class: &Classification) -> Option<String> {
    match book.family(&class.family) {
        Some(f)
            if f.libraries.is_none()
                && !f.crt
                && class.library.is_none()
                && class.family != "windows-system"
                && class.family != "dll-import" =>
        {
            Some(f.description.clone())
        }
        _ => None,
    }
}

/// For a rule by namespace (a known library's scope): the library exports that namespace's
/// public names; one it does not export is internal to it. Said with less certainty than when
/// the library is on disk (then `linked::note_log_evidence` decides).
fn by_namespace_note(book: &RuleBook, class: &Classification) -> Option<String> {
    let library = class.library.as_deref()?;
    book.is_scope_rule(&class.source).then(|| {
        format!(
            "by namespace ({}), not checked against {library} (not on disk): a name {library} does not export is internal to it, with no library to add",
            class.source
        )
    })
}

/// The family and library of one flavour: from the chain table when the name is a chain name
/// (the family may differ by flavour), else the family's library.
fn flavour_library(
    book: &RuleBook,
    class: &Classification,
    f: Flavour,
) -> Option<(String, String)> {
    match &class.by_flavour {
        Some(by) => by.get(&f).cloned(),
        None => book
            .family_library(&class.family, f)
            .map(|l| (class.family.clone(), l.to_string())),
    }
}

/// The note for a chain name the decided flavour's libraries do not define: which libraries of
/// other flavours do, and how to rebuild.
fn other_flavours_note(class: &Classification, f: Flavour) -> String {
    let others: Vec<String> = class
        .by_flavour
        .iter()
        .flatten()
        .map(|(g, (_, l))| format!("{l} ({})", g.compiler_option()))
        .collect();
    format!(
        "the {f} libraries do not define it; {} do: the objects that reference it were built for another CRT flavour; rebuild them with {}, or build the whole project for that flavour",
        others.join(", "),
        f.compiler_option()
    )
}

/// With the flavour unknown: the rule's library in each release flavour (each debug flavour when
/// the evidence says debug); `None` when no flavour has one.
fn rule_libraries_by_flavour(
    book: &RuleBook,
    class: &Classification,
    crt: &CrtDecision,
) -> Option<BTreeMap<Flavour, String>> {
    let debug = crt.evidence.iter().any(|e| e.debug == Some(true));
    let flavours = if debug {
        [Flavour::StaticDebug, Flavour::DynamicDebug]
    } else {
        [Flavour::Static, Flavour::Dynamic]
    };
    let by: BTreeMap<Flavour, String> = flavours
        .into_iter()
        .filter_map(|f| flavour_library(book, class, f).map(|(_, l)| (f, l)))
        .collect();
    (!by.is_empty()).then_some(by)
}

/// The answer for a name that only libraries of another CRT flavour define: no library is
/// offered (flavours are never mixed); the note says which flavour the referencing objects
/// were built for.
fn only_in_another_flavour(
    book: &RuleBook,
    symbol: UnresolvedSymbol,
    class: Option<Classification>,
    providers: &[providers::Provider],
    first: &providers::Provider,
    flavour: Flavour,
    near_misses: Vec<providers::NearMiss>,
) -> ResolvedSymbol {
    let family = family_from_provider(book, first, class.as_ref());
    let mut libraries: Vec<&str> = providers.iter().map(|p| p.library.as_str()).collect();
    libraries.dedup();
    let theirs: Vec<String> = providers
        .iter()
        .flat_map(|p| {
            let mut flavours: Vec<Flavour> = book
                .crt_library_flavours(&p.library)
                .into_iter()
                .map(|(_, f)| f)
                .collect();
            if let Some(list) = crate::rules::roles::Roles::builtin()
                .role_of(&p.library)
                .flavours
            {
                flavours.extend_from_slice(list);
            }
            flavours
        })
        .map(|f| f.compiler_option().to_string())
        .fold(Vec::new(), |mut acc, f| {
            if !acc.contains(&f) {
                acc.push(f);
            }
            acc
        });
    let note = format!(
        "defined only by {} ({}), not by the {flavour} libraries: the objects that reference it were built for {}; rebuild them with {}, or build the whole project for that flavour",
        libraries.join(", "),
        if theirs.is_empty() { "another flavour".to_string() } else { theirs.join("/") },
        if theirs.is_empty() { "another CRT flavour".to_string() } else { theirs.join(" or ") },
        flavour.compiler_option()
    );
    ResolvedSymbol {
        symbol,
        family: family.into(),
        library: None,
        library_path: None,
        provider: Some(first.source.into()),
        source: Some(first.source.to_string().into()),
        dll: first.dll.clone(),
        member: first.member.clone(),
        matched_name: None,
        match_note: super::some_text(note),
        alternatives: providers.to_vec(),
        near_misses,
        index_differs: None,
        not_found_on_disk: false,
        library_source: None,
        rare: None,
    }
}

/// The rare part of an answer when it has one of these (most answers have neither).
fn rare_answer(
    libraries_by_flavour: Option<BTreeMap<Flavour, String>>,
    rulebook_differs: Option<Shared>,
) -> Option<Box<RareAnswer>> {
    (libraries_by_flavour.is_some() || rulebook_differs.is_some()).then(|| {
        Box::new(RareAnswer {
            libraries_by_flavour,
            rulebook_differs,
            ..RareAnswer::default()
        })
    })
}

#[cfg(test)]
mod tests {
    use super::super::test_support::failure;
    use crate::resolve::{diagnose, DiagnoseOptions};
    use crate::rules::RuleBook;

    #[test]
    fn a_name_only_a_pre_2015_crt_had_says_so() {
        let d = diagnose(
            failure("old.lib(x.obj) : error LNK2019: unresolved external symbol __iob_func referenced in function f\n"),
            &RuleBook::builtin(),
            &DiagnoseOptions::default(),
        );
        let s = &d.symbols[0];
        assert_eq!(s.family, "pre-2015-crt");
        assert!(s.library.is_none());
        assert!(s
            .match_note
            .as_deref()
            .unwrap()
            .contains("Visual Studio 2015"));
    }
}
