//! Names another failure class explains (docs/RULES.md §20, §21): a machine mismatch (x86 names
//! against x64 libraries, or the reverse), a toolset mismatch (names of newer toolsets, names
//! only the CRT before Visual Studio 2015 had), or a CRT mismatch (a prebuilt library's dllimport
//! references to the DLL runtime in a link of the static one). No library of the link line satisfies them.

use super::{Answerer, DiagnoseOptions, Explained, ExplainedKind, ResolvedSymbol, SearchContext};
use crate::index::discover;
use crate::read::symbols::UnresolvedSymbol;
use crate::rules::{Flavour, RuleBook};

/// Marks the names another failure class explains (docs/RULES.md §20, §21): x86 names against
/// x64 libraries (or the reverse), then names only newer toolsets' libraries define and names
/// only the CRT before Visual Studio 2015 had.
pub(super) fn mark_explained(
    book: &RuleBook,
    symbols: &mut [ResolvedSymbol],
    context: Option<&SearchContext<'_>>,
    options: &DiagnoseOptions,
    log_machines: &[crate::index::Machine],
    crt: &crate::read::evidence::CrtDecision,
) {
    if let Some(c) = context {
        mark_machine(symbols, c, options, log_machines);
    }
    mark_toolset(book, symbols, context);
    mark_library_runtime(book, symbols, crt);
}

/// The C runtime names that one prebuilt library (`ZXing.lib`) asks for, all through dllimport
/// (`__imp_`), when no object of the project's own misses the runtime and they are most of the
/// names left, and nothing else in the log says the link is for the DLL runtime: that library
/// was built for the DLL C runtime (/MD), the rest of the link uses the static one (/MT), whose
/// libraries define no `__imp_` names. Linking the DLL chain as well would
/// put two runtimes in the program, so these names are the CRT mismatch's, not the chain's.
fn mark_library_runtime(
    book: &RuleBook,
    symbols: &mut [ResolvedSymbol],
    crt: &crate::read::evidence::CrtDecision,
) {
    use crate::read::evidence::EvidenceSource;
    // Evidence other than the names themselves that the link is for the DLL runtime (a /MD
    // compile line, the objects' directives): then the chain is what is missing.
    let link_is_dynamic = crt.evidence.iter().any(|e| {
        e.dynamic == Some(true)
            && !matches!(
                e.source,
                EvidenceSource::DllimportCrtSymbol
                    | EvidenceSource::PlainUcrtReference
                    | EvidenceSource::DebugOnlySymbol
            )
    });
    if link_is_dynamic {
        return;
    }
    let is_crt = |s: &ResolvedSymbol| book.is_crt_family(&s.family);
    let left = symbols
        .iter()
        .filter(|s| s.explained_by().is_none())
        .count();
    let crt: Vec<&ResolvedSymbol> = symbols
        .iter()
        .filter(|s| s.explained_by().is_none() && is_crt(s))
        .collect();
    if crt.is_empty() || crt.len() * 2 <= left || crt.iter().any(|s| !s.symbol.import) {
        return;
    }
    let mut library: Option<String> = None;
    for s in &crt {
        if s.symbol.references.is_empty() {
            return;
        }
        for r in &s.symbol.references {
            let Some(lib) = r
                .object
                .as_deref()
                .filter(|o| o.contains('('))
                .and_then(crate::problems::text::library_file)
            else {
                return;
            };
            if crate::read::evidence::flavour_of_library(book, lib).is_some()
                || library
                    .as_deref()
                    .is_some_and(|l| !l.eq_ignore_ascii_case(lib))
            {
                return;
            }
            library = Some(lib.to_string());
        }
    }
    let Some(library) = library else {
        return;
    };
    for s in symbols
        .iter_mut()
        .filter(|s| s.explained_by().is_none() && is_crt(s))
    {
        s.rare_mut().explained_by = Some(Explained {
            kind: ExplainedKind::CrtMismatch,
            note: format!(
                "only {library} asks for {} and through dllimport: {library} was built for the DLL C runtime",
                s.symbol.lookup_name()
            ),
            generation: None,
            name_machine: None,
            library_machine: None,
            other_form: None,
        });
    }
}

/// The name of `symbol` in the other machine's form, for a library index of `arch`: an x86 name
/// against x64 libraries (`_malloc` → `malloc`, `_Sleep@4` → `Sleep`, `__imp__Sleep@4` →
/// `__imp_Sleep`), an x64 name against x86 libraries (`malloc` → `_malloc`).
fn other_machine_form(symbol: &UnresolvedSymbol, arch: crate::index::Machine) -> Option<String> {
    use crate::index::Machine;
    let linker = symbol.linker_name().unwrap_or(symbol.lookup_name());
    let (import, bare) = match linker.strip_prefix("__imp_") {
        Some(rest) => ("__imp_", rest),
        None => ("", linker),
    };
    if bare.starts_with('?') || bare.is_empty() {
        return None;
    }
    match arch {
        Machine::X64 | Machine::Arm64 | Machine::Arm64ec => {
            let (base, decoration) = crate::read::symbols::undecorate(bare);
            let base = if decoration.is_some() {
                base
            } else {
                bare.strip_prefix('_')?.to_string()
            };
            (!base.is_empty()).then(|| format!("{import}{base}"))
        }
        Machine::X86 => (symbol.x86_decoration.is_none()).then(|| format!("{import}_{bare}")),
        _ => None,
    }
}

/// Marks the names that only the other machine's form of makes defined in the libraries
/// searched, when the log's objects show that machine (decorated x86 names, the linker asking for
/// `_mainCRTStartup`, an object read as x86, `/machine:x86`), and no name resolved as is.
fn mark_machine(
    symbols: &mut [ResolvedSymbol],
    context: &SearchContext<'_>,
    options: &DiagnoseOptions,
    log_machines: &[crate::index::Machine],
) {
    use crate::index::Machine;
    let arch = context.index.arch();
    let (name_machine, library_machine) = match arch {
        Machine::X86 => (Machine::X64, Machine::X86),
        Machine::X64 => (Machine::X86, Machine::X64),
        _ => return,
    };
    let mut hits = machine_hits(symbols, context, arch, false);
    // A name resolved as is stops the finding, unless its other machine's form is defined too
    // and another name needs that form: an x86 `__imp__PyErr_Clear` read as is matches x64
    // Python's private `_PyErr_Clear`, while the x86 reading (`PyErr_Clear`) is the public one
    // that the other x86 names of the log agree with.
    let resolved_as_is = |i: usize, s: &ResolvedSymbol| {
        s.provider.is_some_and(Answerer::on_disk) && !hits.iter().any(|(h, _, _)| *h == i)
    };
    let collision_only = hits.len() >= 2
        && hits
            .iter()
            .any(|(h, _, _)| !symbols[*h].provider.is_some_and(Answerer::on_disk));
    if symbols.iter().enumerate().any(|(i, s)| {
        resolved_as_is(i, s) || (!collision_only && s.provider.is_some_and(Answerer::on_disk))
    }) {
        return;
    }
    let (mut name_machine, mut library_machine, mut arch) = (name_machine, library_machine, arch);
    if hits.is_empty() && arch == Machine::X64 {
        // x64 names against libraries of x86 only: the index was built for x64 (the log's
        // machine), and the x86 library is one of "another machine".
        hits = machine_hits(symbols, context, Machine::X86, true);
        (name_machine, library_machine, arch) = (Machine::X64, Machine::X86, Machine::X86);
    }
    if hits.is_empty() {
        return;
    }
    let shown = other_machine_shown(symbols, options, log_machines, arch, name_machine);
    if !(shown || hits.len() >= 2) {
        return;
    }
    for (i, form, library) in hits {
        let s = &mut symbols[i];
        s.rare_mut().explained_by = Some(Explained {
            kind: ExplainedKind::MachineMismatch,
            note: format!(
                "{} is the {name_machine} form of the name: the {library_machine} libraries searched define {form} ({library})",
                s.symbol.name()
            ),
            generation: None,
            name_machine: Some(name_machine),
            library_machine: Some(format!("{library_machine} ({library})")),
            other_form: Some(form),
        });
        if s.take_installed_lacks() {
            s.match_note = None;
        }
    }
}

/// The symbols whose other-machine form (for libraries of `arch`) a library searched defines:
/// (symbol, form, library file name). `other` looks among the libraries of machines other than
/// the index's own.
fn machine_hits(
    symbols: &[ResolvedSymbol],
    context: &SearchContext<'_>,
    arch: crate::index::Machine,
    other: bool,
) -> Vec<(usize, String, String)> {
    // x86 import members by the name they import (`CreateFileW` for `__imp__CreateFileW@28`):
    // an x64 name does not say an x86 __stdcall name's `@N`. Built only when an x86 library was
    // read among the other machines'.
    let x86_read = context
        .index
        .libraries()
        .iter()
        .any(|l| l.machines.contains(&arch));
    let by_export = if other && x86_read {
        x86_imports_by_export(context.index, arch)
    } else {
        std::collections::HashMap::new()
    };
    symbols
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let (form, provider) = if other {
                let form = other_machine_form(&s.symbol, arch)?;
                match context
                    .index
                    .lookup_other_machines(&form)
                    .iter()
                    .find(|p| p.machine == arch)
                {
                    Some(p) => (form, p),
                    None => stdcall_form(&s.symbol, &by_export)?,
                }
            } else {
                let form = other_machine_form(&s.symbol, arch)?;
                let provider = context.index.lookup(&form).first()?;
                (form, provider)
            };
            let library = provider
                .library
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            Some((i, form, library))
        })
        .collect()
}

/// The import members of `arch` among the other machines' libraries, by the name they import.
fn x86_imports_by_export(
    index: &crate::index::Index,
    arch: crate::index::Machine,
) -> std::collections::HashMap<&str, &crate::index::LibrarySymbol> {
    let mut map = std::collections::HashMap::new();
    for symbol in index.other_machine_symbols() {
        if symbol.machine == arch && symbol.is_import() && symbol.name.starts_with("__imp_") {
            if let Some(export) = symbol.export_name.as_deref() {
                map.entry(export).or_insert(symbol);
            }
        }
    }
    map
}

/// The x86 form of an x64 name that an x86 import member imports under another decoration
/// (`__imp_CreateFileW` → `__imp__CreateFileW@28`), and that member.
fn stdcall_form<'a>(
    symbol: &UnresolvedSymbol,
    by_export: &std::collections::HashMap<&str, &'a crate::index::LibrarySymbol>,
) -> Option<(String, &'a crate::index::LibrarySymbol)> {
    let linker = symbol.linker_name().unwrap_or(symbol.lookup_name());
    let (import, bare) = match linker.strip_prefix("__imp_") {
        Some(rest) => (true, rest),
        None => (false, linker),
    };
    if bare.starts_with('?') || bare.is_empty() || symbol.x86_decoration.is_some() {
        return None;
    }
    let member = *by_export.get(bare)?;
    let form = if import {
        member.name.clone()
    } else {
        member.name.strip_prefix("__imp_")?.to_string()
    };
    Some((form, member))
}

/// Whether the log's objects show the other machine than the libraries': an object read as that
/// machine, the log naming it (`/machine:x86`), decorated x86 names against x64 libraries, or the
/// linker asking for that machine's form of a CRT entry point (`_mainCRTStartup`).
fn other_machine_shown(
    symbols: &[ResolvedSymbol],
    options: &DiagnoseOptions,
    log_machines: &[crate::index::Machine],
    arch: crate::index::Machine,
    name_machine: crate::index::Machine,
) -> bool {
    use crate::index::Machine;
    let object_machine = options.object_machines.iter().any(|(_, m)| {
        (*m == Machine::X86 && arch == Machine::X64) || (*m == Machine::X64 && arch == Machine::X86)
    });
    let log_machine = log_machines.contains(&name_machine);
    let decorated = symbols.iter().any(|s| {
        arch == Machine::X64
            && matches!(
                s.symbol.x86_decoration,
                Some(
                    crate::read::symbols::X86Decoration::Stdcall { .. }
                        | crate::read::symbols::X86Decoration::Fastcall { .. }
                )
            )
    });
    let root_entry = symbols.iter().any(|s| {
        s.symbol.entry_point
            && if arch == Machine::X64 {
                s.symbol.lookup_name().starts_with('_')
                    && s.symbol.lookup_name().ends_with("CRTStartup")
                    || s.symbol.lookup_name().starts_with("__DllMainCRTStartup")
            } else {
                !s.symbol.lookup_name().starts_with('_')
                    && s.symbol.lookup_name().ends_with("CRTStartup")
            }
    });
    object_machine || log_machine || decorated || root_entry
}

/// Marks names of another toolset generation than the libraries linked.
fn mark_toolset(
    book: &RuleBook,
    symbols: &mut [ResolvedSymbol],
    context: Option<&SearchContext<'_>>,
) {
    use crate::resolve::toolsets::{is_newer_toolset_name, is_pre_2015_name, Generation};
    let crt_family = |family: &str| book.is_crt_family(family);
    // A CRT name that is no toolset's says the chain itself is missing.
    let plain_crt = symbols
        .iter()
        .filter(|s| {
            s.explained_by().is_none()
                && crt_family(&s.family)
                && !is_newer_toolset_name(s.symbol.lookup_name())
        })
        .count();
    for s in symbols.iter_mut().filter(|s| s.explained_by().is_none()) {
        let name = s.symbol.lookup_name().to_string();
        let from_libraries = !s.symbol.references.is_empty()
            && s.symbol.references.iter().all(|r| {
                r.object.as_deref().is_some_and(|o| {
                    crate::problems::text::library_file(o).is_some() && o.contains('(')
                })
            });
        if is_pre_2015_name(&name, &s.family, s.symbol.import) {
            let note = if s.family == "legacy-stdio" {
                format!("{name} was out of line in the CRT before Visual Studio 2015 (now inline in the headers): the code that references it was compiled against an older CRT; legacy_stdio_definitions.lib still defines it")
            } else {
                format!("{name} existed only in the CRT before Visual Studio 2015: the code that references it was built with an older toolset, and no current library defines it")
            };
            s.rare_mut().explained_by = Some(Explained {
                kind: ExplainedKind::ToolsetMismatch,
                note,
                generation: Some(Generation::Older),
                name_machine: None,
                library_machine: None,
                other_form: None,
            });
            continue;
        }
        if !is_newer_toolset_name(&name) {
            continue;
        }
        let Some(note) = newer_toolset_note(book, s, context, from_libraries && plain_crt == 0)
        else {
            continue;
        };
        s.rare_mut().explained_by = Some(Explained {
            kind: ExplainedKind::ToolsetMismatch,
            note,
            generation: Some(Generation::Newer),
            name_machine: None,
            library_machine: None,
            other_form: None,
        });
        if s.take_installed_lacks() {
            s.match_note = None;
        }
    }
}

/// Why a name only newer toolsets define is unresolved, when the evidence says the toolset:
/// the installed library lacks it; or only prebuilt library members ask for it (`only_libraries`,
/// with no plain CRT name missing), whether or not the libraries searched define it (when they
/// do, the link used an older toolset's libraries than those). `None`: a library's answer.
fn newer_toolset_note(
    book: &RuleBook,
    s: &ResolvedSymbol,
    context: Option<&SearchContext<'_>>,
    only_libraries: bool,
) -> Option<String> {
    let name = &s.symbol.lookup_name();
    let on_disk = s.provider.is_some_and(Answerer::on_disk);
    if on_disk {
        return only_libraries.then(|| format!(
            "{name} comes with newer toolsets; the libraries searched define it ({}), but the link did not find it: the linker used an older toolset's libraries, and the prebuilt library that references it was built by a newer MSVC",
            s.library_path.as_deref().or(s.library.as_deref()).unwrap_or("a library searched")
        ));
    }
    let installed = context.and_then(|c| {
        let family = book.family(&s.family)?;
        let libraries = family.libraries.as_ref()?;
        Flavour::ALL
            .iter()
            .filter_map(|f| libraries.get(f))
            .find_map(|library| discover::find_library(c.dirs, library))
    });
    match installed {
        Some(path) => Some(format!(
            "{name} comes with newer toolsets: the installed {} does not define it, so the code that references it was built by a newer MSVC than the one linking",
            path.display()
        )),
        None if only_libraries => Some(format!(
            "{name} is defined only by newer toolsets' libraries (Visual Studio 2019 and 2022 updates added these names): the prebuilt library that references it was built by a newer MSVC than the one linking"
        )),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::with_index;
    use crate::index::{LibrarySymbol, Machine, SymbolKind};
    use crate::resolve::ExplainedKind;
    use std::path::Path;

    /// A newer toolset's helper that only a prebuilt library asks for is the toolset's problem
    /// even when the libraries searched define it: the link used older ones. Asked for by the
    /// project's own object, it is an answer of the libraries searched.
    #[test]
    fn a_newer_toolset_name_is_the_toolsets_even_when_the_libraries_searched_define_it() {
        let helper = || {
            vec![LibrarySymbol::new(
                "__std_find_trivial_1".into(),
                Path::new("msvcprt.lib"),
                SymbolKind::Defined,
                Machine::X64,
            )]
        };
        let from_library = "vendor.lib(scan.obj) : error LNK2019: unresolved external symbol __std_find_trivial_1 referenced in function f\n";
        let d = with_index(from_library, helper(), Path::new("."));
        let e = d.symbols[0].explained_by().expect("explained");
        assert_eq!(e.kind, ExplainedKind::ToolsetMismatch);
        assert!(e.note.contains("older toolset's libraries"), "{}", e.note);
        let from_project = "app.obj : error LNK2019: unresolved external symbol __std_find_trivial_1 referenced in function f\n";
        let d = with_index(from_project, helper(), Path::new("."));
        assert!(d.symbols[0].explained_by().is_none());
    }
}
