//! The unresolved symbols no other problem explains: the resolver's verdict (docs/RULES.md §2)
//! as a problem, with the link flags as its fix.

use super::{count, some_of, Problem, ProblemKind, Scan};
use crate::resolve::VerdictKind;

/// The unresolved-symbols problem, when symbols are left that only a library can satisfy.
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let d = scan.diagnosis;
    let left: Vec<&crate::resolve::ResolvedSymbol> = d
        .symbols
        .iter()
        .filter(|s| {
            s.explained_by().is_none()
                && s.family != "entry-point"
                && !scan.explained.iter().any(|e| e == s.symbol.name())
        })
        .collect();
    let summary_only = left.is_empty() && !d.counts.lnk1120.is_empty() && d.symbols.is_empty();
    if left.is_empty() && !summary_only {
        return Vec::new();
    }
    if summary_only {
        return vec![summary_only_problem(d.counts.lnk1120[0])];
    }
    let (cause, fix) = internal_cause_and_fix(&left, cause_and_fix(d));
    let (cause, fix) = linked_cause_and_fix(&left, (cause, fix));
    let (cause, fix) = own_output_cause_and_fix(&left, (cause, fix));
    let names: Vec<String> = left.iter().map(|s| s.symbol.name().to_string()).collect();
    let summary =
        if d.verdict.kind == VerdictKind::Explained || d.verdict.kind == VerdictKind::EntryPoint {
            format!(
                "{} unresolved: {}",
                count(left.len(), "symbol"),
                some_of(&names, 3)
            )
        } else {
            d.verdict.summary.clone()
        };
    let mut problem = Problem::new(ProblemKind::Unresolved, summary, cause, fix);
    for s in &left {
        problem.line(s.symbol.first_line);
    }
    problem.subjects_from(names);
    for flag in d.link_flags.iter().filter(|f| !f.starts_with('/')) {
        problem.subject(flag.clone());
    }
    // (tvm-ffi's line names the log itself: it is in the build system's own fix lines.)
    if let Some(build) = d
        .build_system
        .as_ref()
        .filter(|b| b.kind != crate::read::build_system::BuildSystem::TvmFfi)
    {
        if let Some(first) = build.fix.first().filter(|f| !f.trim().is_empty()) {
            problem
                .notes
                .push(format!("in {} terms: {first}", build.kind.name()));
        }
    }
    vec![problem]
}

/// The cause and fix when some names are the link's own output's (`own_output`): said in the
/// cause; when every name is, the missing source is the fix, not a library.
fn own_output_cause_and_fix(
    left: &[&crate::resolve::ResolvedSymbol],
    (cause, fix): (String, String),
) -> (String, String) {
    let mut own: Vec<&str> = left
        .iter()
        .filter_map(|s| s.own_output().map(|o| o.library.as_str()))
        .collect();
    own.sort_unstable();
    own.dedup();
    if own.is_empty() {
        return (cause, fix);
    }
    let outputs = own.join(", ");
    let what = format!(
        "names of {outputs} itself, which this link builds: the objects that define them are not in the link, and its own import library cannot provide them"
    );
    if left.iter().all(|s| s.own_output().is_some()) {
        let fix = format!(
            "add the source files that define these names to the {outputs} target (a file left out of its sources, or compiled out by a preprocessor condition or a build option), or define the functions that are only declared; do not link {outputs}'s own import library"
        );
        (what, fix)
    } else {
        (format!("{cause}; {what}"), fix)
    }
}

/// The cause and fix when some names are internal to a library (`not_exported_by`): said in the
/// cause; when every name is, no library is the fix.
fn internal_cause_and_fix(
    left: &[&crate::resolve::ResolvedSymbol],
    (cause, fix): (String, String),
) -> (String, String) {
    let mut internal: Vec<&str> = left.iter().filter_map(|s| s.not_exported_by()).collect();
    internal.sort_unstable();
    internal.dedup();
    if internal.is_empty() {
        return (cause, fix);
    }
    let what = format!(
        "names in the namespace of {} that it does not export (internal to it): no library provides them",
        internal.join(", ")
    );
    if left.iter().all(|s| s.not_exported_by().is_some()) {
        let fix = "call the library's public (exported) API instead, or build the library from source with these names exported".to_string();
        (what, fix)
    } else {
        (format!("{cause}; {what}"), fix)
    }
}

/// The cause and fix when every name's library is already in the link and the installed copy
/// lacks it (`already_linked` with `installed_lacks`): adding the library again cannot help; the
/// code was compiled against another version of it (the symbol notes name the versions).
fn linked_cause_and_fix(
    left: &[&crate::resolve::ResolvedSymbol],
    (cause, fix): (String, String),
) -> (String, String) {
    let lacking = |s: &&&crate::resolve::ResolvedSymbol| {
        s.already_linked().is_some() && s.installed_lacks().is_some()
    };
    if left.is_empty() || !left.iter().all(|s| lacking(&s)) {
        return (cause, fix);
    }
    let mut libraries: Vec<&str> = left.iter().filter_map(|s| s.library.as_deref()).collect();
    libraries.sort_unstable();
    libraries.dedup();
    let torch = left.iter().any(|s| s.family.starts_with("torch"));
    let cause = format!(
        "{} already in the link, and the installed {} not define these names: the code was compiled against another version's headers{}",
        libraries.join(", "),
        if libraries.len() == 1 { "copy does" } else { "copies do" },
        if torch { " (with torch: headers of one torch version, libraries of another)" } else { "" }
    );
    let fix = if torch {
        "build with the include directories of the torch whose libraries are linked (torch.utils.cpp_extension.include_paths() of the same Python), or link the libraries of the torch whose headers are used; adding the library again cannot help".to_string()
    } else {
        "compile against the headers of the library version that is linked, or link the version the headers are from; adding the library again cannot help".to_string()
    };
    (cause, fix)
}

/// The problem of a log that shows LNK1120's count but none of the records it counts.
fn summary_only_problem(unresolved: u64) -> Problem {
    let mut problem = Problem::new(
        ProblemKind::Unresolved,
        format!(
            "{} unresolved (LNK1120); the lines that name them are not in this log",
            count(unresolved as usize, "symbol")
        ),
        "the link has unresolved externals, listed above LNK1120 in the full log".into(),
        "diagnose the full build log, from the first LNK2019/LNK2001 line".into(),
    );
    problem.subject(format!("LNK1120: {unresolved}"));
    problem
}

/// The cause, by the resolver's verdict, and the fix: the link flags to append.
fn cause_and_fix(d: &crate::resolve::Diagnosis) -> (String, String) {
    let cause = match d.verdict.kind {
        VerdictKind::DefaultLibChainAbsent => "the default-library chain of the C runtime is not linked (/NODEFAULTLIB, a compiler that writes no /DEFAULTLIB, or libraries given without it)".to_string(),
        VerdictKind::SystemLibrariesMissing => "Windows system import libraries are not linked (the CRT never pulls in user32, advapi32, shell32 and the like)".to_string(),
        VerdictKind::UnknownSymbols => "no library searched and no rule knows these names: they are the project's own (a source file, a template instantiation or an export missing from the build), or from a library that was not searched".to_string(),
        _ => "the libraries that define these names are not linked".to_string(),
    };
    let flags: Vec<String> = d
        .link_flags
        .iter()
        .map(|f| crate::output::report::quote_windows_argument(f))
        .collect();
    let fix = if let Some(by) = &d.link_flags_by_flavour {
        let each: Vec<String> = by
            .iter()
            .map(|(f, flags)| format!("for {}: {}", f.compiler_option(), flags.join(" ")))
            .collect();
        format!(
            "append to the link command the libraries of the CRT the project builds with ({})",
            each.join("; ")
        )
    } else if !flags.is_empty() {
        format!("append to the link command: {}", flags.join(" "))
    } else if d.verdict.kind == VerdictKind::UnknownSymbols {
        "find where these names are defined and add that source or library to the build".into()
    } else {
        "see the symbols below".into()
    };
    (cause, fix)
}
