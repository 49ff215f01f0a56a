//! Toolset mismatches (docs/RULES.md §21): code built by another Visual C++ toolset than the
//! libraries it is linked with. A prebuilt library from a newer toolset calls helpers only newer
//! libraries define (the vectorised `__std_*` algorithms, `__CxxFrameHandler4`): upgrade the
//! linking toolset or rebuild the library. One built against the CRT before Visual Studio 2015
//! calls `__iob_func`, an imported `_iob` or the out-of-line printf/scanf family:
//! `legacy_stdio_definitions.lib` covers the latter, the rest needs a rebuild. LNK2038 on
//! `_MSC_VER` is the compiler's own check of the same. The toolset on disk is named when the
//! log's paths or the libraries searched show its version (`MSVC\14.29.30133`).

use super::crt_mismatch::mismatch_sides;
use super::{join_words, some_of, Problem, ProblemKind, Scan};
use crate::resolve::toolsets::{self, Generation};
use crate::resolve::{ExplainedKind, ResolvedSymbol};

/// The toolset mismatches of the diagnosis.
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let explained = |generation: Generation| -> Vec<&ResolvedSymbol> {
        scan.diagnosis
            .symbols
            .iter()
            .filter(|s| {
                s.explained_by().is_some_and(|e| {
                    e.kind == ExplainedKind::ToolsetMismatch && e.generation == Some(generation)
                })
            })
            .collect()
    };
    let mut out = Vec::new();
    let newer = explained(Generation::Newer);
    if !newer.is_empty() {
        out.push(newer_toolset(scan, &newer));
    }
    let older = explained(Generation::Older);
    if !older.is_empty() {
        out.push(older_crt(scan, &older));
    }
    let mut mismatches = scan.unclaimed(&["LNK2038"]);
    mismatches.extend(scan.unclaimed_lld("/failifmismatch"));
    for (i, f) in mismatches {
        let Some((key, sides)) = mismatch_sides(f) else {
            continue;
        };
        if key != "_MSC_VER" || sides.len() < 2 {
            continue;
        }
        scan.claim(i);
        let described: Vec<String> = sides
            .iter()
            .map(|(object, value)| {
                let product = msc_ver_product(value)
                    .map(|p| format!(" ({p})"))
                    .unwrap_or_default();
                format!("{object} _MSC_VER {value}{product}")
            })
            .collect();
        let mut problem = Problem::new(
            ProblemKind::ToolsetMismatch,
            format!("objects built by different compilers: {}", join_words(&described)),
            "the C++ library headers record the compiler version (_MSC_VER) in every object and the linker refuses to mix them: objects from before Visual Studio 2015 cannot be linked with newer ones".into(),
            format!(
                "rebuild {} with the toolset that links",
                sides
                    .iter()
                    .min_by_key(|(_, v)| v.parse::<u32>().unwrap_or(u32::MAX))
                    .map(|(o, _)| o.as_str())
                    .unwrap_or("the older objects")
            ),
        );
        problem.line(f.line);
        for (object, value) in &sides {
            problem.subject(object.to_string());
            problem.subject(value.clone());
        }
        problem.subject("_MSC_VER");
        out.push(problem);
    }
    out
}

/// The Visual Studio of a compiler's `_MSC_VER` (`1916`: toolset 14.16, Visual Studio 2017;
/// `1800`: Visual Studio 2013; there was no 13.0).
fn msc_ver_product(value: &str) -> Option<&'static str> {
    let v: u32 = value.trim().parse().ok()?;
    let (major, minor) = (v / 100, v % 100);
    let toolset = match major {
        19.. => format!("{}.{minor}", major - 5),
        _ => format!("{}.0", major.checked_sub(6)?),
    };
    toolsets::product_of(&toolset)
}

/// The referencing objects of some symbols (library members first), and their libraries.
fn referencers(symbols: &[&ResolvedSymbol]) -> (Vec<String>, Vec<String>) {
    let mut objects: Vec<String> = Vec::new();
    let mut libraries: Vec<String> = Vec::new();
    for s in symbols {
        for r in &s.symbol.references {
            if let Some(o) = &r.object {
                if o == "<root>" {
                    continue;
                }
                if !objects.iter().any(|x| o == x) {
                    objects.push(o.to_string());
                }
                if let Some(l) = super::text::library_file(o) {
                    if o.contains('(') && !libraries.iter().any(|x| x == l) {
                        libraries.push(l.to_string());
                    }
                }
            }
        }
    }
    (objects, libraries)
}

/// The toolset versions the log and the libraries searched show, described.
fn toolsets_on_disk(scan: &Scan<'_>, problem: &mut Problem) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for mention in &scan.inputs.context.get().toolsets {
        let text = mention.value.describe();
        if !seen.contains(&text) {
            problem.cite(mention.line, &mention.text);
            problem
                .notes
                .push(format!("line {} shows {text}", mention.line));
            seen.push(text);
        }
    }
    if let Some(search) = scan.inputs.search {
        for dir in search.dirs {
            for version in toolsets::versions_in(&dir.path.to_string_lossy()) {
                let text = version.describe();
                if !seen.contains(&text) {
                    problem.notes.push(format!(
                        "the libraries searched are {text} ({})",
                        dir.path.display()
                    ));
                    seen.push(text);
                }
            }
        }
    }
    seen
}

/// Code from a newer toolset than the libraries linked.
fn newer_toolset(scan: &Scan<'_>, symbols: &[&ResolvedSymbol]) -> Problem {
    let names: Vec<String> = symbols
        .iter()
        .map(|s| s.symbol.name().to_string())
        .collect();
    let (objects, libraries) = referencers(symbols);
    let built = if libraries.is_empty() {
        some_of(&objects, 3)
    } else {
        join_words(&libraries)
    };
    let summary = format!(
        "{built} built by a newer toolset: {} {} only by newer MSVC libraries",
        some_of(&names, 3),
        if names.len() == 1 {
            "is defined"
        } else {
            "are defined"
        }
    );
    let cause = format!(
        "{built} calls helpers that came with later Visual C++ releases (the C++ library's vectorised algorithms, FH4 exception handling); the libraries of the toolset that links do not have them. A toolset links only code built by the same or an older toolset"
    );
    let mut problem = Problem::new(ProblemKind::ToolsetMismatch, summary, cause, String::new());
    let on_disk = toolsets_on_disk(scan, &mut problem);
    problem.fix = format!(
        "link with a toolset at least as new as the one that built {built} (update Visual Studio or the MSVC build tools{}), or rebuild {built} with this toolset",
        if on_disk.is_empty() {
            String::new()
        } else {
            format!("; now: {}", join_words(&on_disk))
        }
    );
    add_subjects(&mut problem, symbols, &objects);
    for s in symbols {
        if let Some(e) = s.explained_by() {
            if !problem.notes.contains(&e.note) && problem.notes.len() < 8 {
                problem.notes.push(e.note.clone());
            }
        }
    }
    problem
}

/// Code built against the CRT before Visual Studio 2015.
fn older_crt(scan: &Scan<'_>, symbols: &[&ResolvedSymbol]) -> Problem {
    let names: Vec<String> = symbols
        .iter()
        .map(|s| s.symbol.name().to_string())
        .collect();
    let (objects, libraries) = referencers(symbols);
    let built = if libraries.is_empty() {
        some_of(&objects, 3)
    } else {
        join_words(&libraries)
    };
    let stdio: Vec<String> = symbols
        .iter()
        .filter(|s| s.family == "legacy-stdio")
        .map(|s| s.symbol.name().to_string())
        .collect();
    let gone: Vec<String> = symbols
        .iter()
        .filter(|s| s.family != "legacy-stdio")
        .map(|s| s.symbol.name().to_string())
        .collect();
    let summary = format!(
        "{built} built against the CRT before Visual Studio 2015: {}",
        some_of(&names, 4)
    );
    let cause = format!(
        "Visual Studio 2015 replaced the C runtime (the Universal CRT): the printf/scanf family became inline functions of the headers, and names like __iob_func and _iob are gone; {built} still calls the old ones"
    );
    let fix = match (stdio.is_empty(), gone.is_empty()) {
        (false, true) => format!(
            "add legacy_stdio_definitions.lib to the link (it defines {}), or rebuild {built} with this toolset",
            some_of(&stdio, 3)
        ),
        (false, false) => format!(
            "rebuild {built} with Visual Studio 2015 or newer: legacy_stdio_definitions.lib covers {} but nothing defines {}",
            some_of(&stdio, 3),
            some_of(&gone, 3)
        ),
        _ => format!(
            "rebuild {built} with Visual Studio 2015 or newer (or link it with the toolset it was built for): no current library defines {}",
            some_of(&gone, 3)
        ),
    };
    let mut problem = Problem::new(ProblemKind::ToolsetMismatch, summary, cause, fix);
    toolsets_on_disk(scan, &mut problem);
    add_subjects(&mut problem, symbols, &objects);
    problem
}

fn add_subjects(problem: &mut Problem, symbols: &[&ResolvedSymbol], objects: &[String]) {
    for s in symbols {
        problem.line(s.symbol.first_line);
    }
    for o in objects {
        problem.subject(o.to_string());
    }
    for s in symbols {
        problem.subject(s.symbol.name().to_string());
    }
    for s in symbols {
        for r in &s.symbol.references {
            if let Some(f) = &r.function {
                problem.subject(f.to_string());
            }
            if let Some(f) = &r.function_name {
                problem.subject(f.to_string());
            }
        }
    }
}
