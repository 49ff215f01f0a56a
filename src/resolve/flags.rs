//! The linker arguments to append: `/LIBPATH:` entries, then libraries (the default-library
//! chain when it is absent), `/NODEFAULTLIB:` for a mixed build; one line per flavour when the
//! flavour is unknown.

use std::collections::BTreeMap;

use super::{ExplainedKind, ResolvedSymbol, SearchContext, VerdictKind};
use crate::index::discover;
use crate::read::evidence::CrtDecision;
use crate::rules::{Flavour, RuleBook};

/// Accumulates linker arguments: `/LIBPATH:` entries first, then libraries, without repeats.
#[derive(Default)]
struct LinkLine {
    libpaths: Vec<String>,
    libraries: Vec<String>,
}

impl LinkLine {
    fn add(&mut self, library: &str, dir: Option<String>) {
        if let Some(dir) = dir {
            let flag = format!("/LIBPATH:{dir}");
            if !self.libpaths.contains(&flag) {
                self.libpaths.push(flag);
            }
        }
        if !self
            .libraries
            .iter()
            .any(|l| l.eq_ignore_ascii_case(library))
        {
            self.libraries.push(library.to_string());
        }
    }

    fn flags(self) -> Vec<String> {
        let mut flags = self.libpaths;
        flags.extend(self.libraries);
        flags
    }
}

/// A library name to link: on disk when the search finds it (exact file name, and its directory
/// unless that directory is already on the linker's `LIB` path), else the rule's name.
pub(super) fn locate(context: Option<&SearchContext<'_>>, name: &str) -> (String, Option<String>) {
    let Some(context) = context else {
        return (name.to_string(), None);
    };
    match discover::find_library(context.dirs, name) {
        Some(path) => {
            let file = path
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_else(|| name.to_string());
            let dir = path.parent().map(|d| d.to_string_lossy().into_owned());
            let on_lib_path = context
                .dirs
                .iter()
                .any(|d| d.origin == "LIB" && Some(d.path.to_string_lossy().into_owned()) == dir);
            (file, if on_lib_path { None } else { dir })
        }
        None => (name.to_string(), None),
    }
}

fn dir_of(path: &str) -> Option<String> {
    let cut = path.rfind(['\\', '/'])?;
    Some(path[..cut].to_string())
}

/// What the link flags are computed from.
pub(super) struct FlagInputs<'a, 'c> {
    pub(super) book: &'a RuleBook,
    pub(super) symbols: &'a [ResolvedSymbol],
    pub(super) context: Option<&'a SearchContext<'c>>,
    pub(super) verdict_kind: VerdictKind,
    pub(super) crt: &'a CrtDecision,
}

/// The link line for one flavour: non-CRT libraries as found, then the CRT part (the whole
/// chain when it is absent, else each symbol's library in that flavour).
fn flags_for(inputs: &FlagInputs<'_, '_>, f: Option<Flavour>) -> Vec<String> {
    let FlagInputs {
        book,
        symbols,
        context,
        verdict_kind,
        crt,
    } = *inputs;
    let is_crt = |s: &ResolvedSymbol| book.is_crt_family(&s.family);
    let mut line = LinkLine::default();
    for s in symbols
        .iter()
        .filter(|s| !is_crt(s) && s.already_linked().is_none() && library_helps(s))
    {
        if let Some(library) = &s.library {
            let dir = match &s.library_path {
                Some(path) => {
                    let dir = dir_of(path);
                    let on_lib_path = context.is_some_and(|c| {
                        c.dirs.iter().any(|d| {
                            d.origin == "LIB" && Some(d.path.to_string_lossy().into_owned()) == dir
                        })
                    });
                    if on_lib_path {
                        None
                    } else {
                        dir
                    }
                }
                None => locate(context, library).1,
            };
            line.add(library, dir);
        }
    }
    let Some(f) = f else {
        return line.flags();
    };
    // A mixed build (the evidence disagrees) gets the smallest fix: each symbol's library
    // in the chosen flavour, not a whole second chain.
    let mixed = crt.conflict.is_some();
    let crt_libraries: Vec<String> = if verdict_kind == VerdictKind::DefaultLibChainAbsent && !mixed
    {
        book.chain(f).to_vec()
    } else {
        symbols
            .iter()
            .filter(|s| is_crt(s) && s.already_linked().is_none() && library_helps(s))
            .filter_map(|s| {
                s.libraries_by_flavour()
                    .and_then(|by| by.get(&f).cloned())
                    .or_else(|| s.library.clone())
                    .or_else(|| book.family_library(&s.family, f).map(str::to_string))
            })
            .collect()
    };
    for name in crt_libraries {
        let (file, dir) = locate(context, &name);
        line.add(&file, dir);
    }
    // No /NODEFAULTLIB: for an LNK4098: it silences the warning and links objects against a CRT
    // they were not compiled for (the CRT mismatch problem says so, and to rebuild them).
    line.flags()
}

/// The flags to append: for the flavour decided, or, when it is unknown and CRT libraries are
/// needed, the flags both flavours share and one line per flavour.
pub(super) fn link_flags(
    inputs: &FlagInputs<'_, '_>,
    flavour: Option<Flavour>,
) -> (Vec<String>, Option<BTreeMap<Flavour, Vec<String>>>) {
    let needs_crt = inputs
        .symbols
        .iter()
        .any(|s| inputs.book.is_crt_family(&s.family) && library_helps(s));
    match flavour {
        Some(f) => (flags_for(inputs, Some(f)), None),
        None if needs_crt => {
            let by: BTreeMap<Flavour, Vec<String>> = [Flavour::Static, Flavour::Dynamic]
                .into_iter()
                .map(|f| (f, flags_for(inputs, Some(f))))
                .collect();
            (flags_for(inputs, None), Some(by))
        }
        None => (flags_for(inputs, None), None),
    }
}

/// Whether linking a symbol's library can satisfy it: not when another failure class explains
/// the name, except for a name of the CRT before 2015 whose add-on library still defines it
/// (`legacy_stdio_definitions.lib`).
fn library_helps(symbol: &ResolvedSymbol) -> bool {
    match symbol.explained_by() {
        None => true,
        Some(e) => {
            e.kind == ExplainedKind::ToolsetMismatch
                && e.generation == Some(crate::resolve::toolsets::Generation::Older)
                && symbol.family == "legacy-stdio"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::failure;
    use crate::resolve::{diagnose, DiagnoseOptions};
    use crate::rules::{Flavour, RuleBook};

    #[test]
    fn mixed_evidence_gets_the_smallest_fix() {
        let log = "cl /MD /c a.cpp\n\
                   LINK : warning LNK4098: defaultlib 'LIBCMT' conflicts with use of other libs; use /NODEFAULTLIB:library\n\
                   a.obj : error LNK2019: unresolved external symbol __imp_malloc referenced in function main\n";
        let d = diagnose(
            failure(log),
            &RuleBook::builtin(),
            &DiagnoseOptions::default(),
        );
        assert!(d.crt.conflict.is_some());
        assert_eq!(d.crt.flavour, Some(Flavour::Dynamic));
        // The symbol's library in the chosen flavour, and no /NODEFAULTLIB: for the LNK4098.
        assert_eq!(d.link_flags, vec!["ucrt.lib"]);
    }
}
