//! CRT mismatches (docs/RULES.md §3, §20): objects and libraries built for different C
//! runtimes. Read from LNK2038 (`RuntimeLibrary`, `_ITERATOR_DEBUG_LEVEL`) and lld-link's
//! `/failifmismatch` (each side's value), LNK4098 (a default library another CRT conflicts with),
//! LNK2005 between CRT libraries of different flavours, and the `/DEFAULTLIB` directives of the
//! objects given with `--objects`. The answer is a table of every object and library seen with
//! its value, the majority and the odd ones out, and the fix that matches the evidence ("build
//! the project with /MT", "rebuild X.lib with /MD"), written in the build system's terms.
//! `/NODEFAULTLIB:` is never offered as a fix: for LNK4098 the problem warns that it hides the
//! mismatch.

use std::collections::BTreeMap;

use super::duplicate::{crt_flavour, is_crt_pair, occurrences, prefix_object};
use super::text::{files, library_file, quoted};
use super::{join_words, some_of, CrtRow, Problem, ProblemKind, Scan};
use crate::read::build_system::runtime_setting;
use crate::read::evidence::{flavour_of_library, runtime_library_value};
use crate::read::linklog::Finding;
use crate::rules::Flavour;

/// The detect_mismatch keys that are CRT choices.
const RUNTIME_LIBRARY: &str = "RuntimeLibrary";
const ITERATOR_DEBUG_LEVEL: &str = "_ITERATOR_DEBUG_LEVEL";

/// The key of a mismatch record and each side's (subject, value): link.exe's LNK2038 (`A :
/// ... 'K': value 'V1' ... 'V2' in B`), lld-link's `/failifmismatch` with its `>>> X has value V`.
pub(crate) fn mismatch_sides(finding: &Finding) -> Option<(String, Vec<(String, String)>)> {
    if finding.code.starts_with("lld-link") {
        let key = finding.values.first()?.clone();
        let sides = finding
            .objects
            .iter()
            .cloned()
            .zip(finding.values[1..].iter().cloned())
            .collect();
        return Some((key, sides));
    }
    let values = if finding.values.len() >= 3 {
        finding.values.clone()
    } else {
        quoted(&finding.text)
    };
    let [key, first, second, ..] = values.as_slice() else {
        return None;
    };
    let mut sides = Vec::new();
    if let Some(a) = prefix_object(finding) {
        sides.push((a.to_string(), first.clone()));
    }
    if let Some(b) = files(&finding.text).last() {
        sides.push((b.clone(), second.clone()));
    }
    Some((key.clone(), sides))
}

/// What a table row belongs to: one of the project's objects, or a library (its members count
/// as the library).
fn unit_of(subject: &str) -> (bool, String) {
    match library_file(subject) {
        Some(library) => (false, library.to_string()),
        None => (true, subject.to_string()),
    }
}

/// The flavour a row means.
fn row_flavour(key: &str, value: &str) -> Option<Flavour> {
    match key {
        RUNTIME_LIBRARY => runtime_library_value(value),
        _ => None,
    }
}

/// The CRT evidence gathered from a diagnosis.
#[derive(Default)]
struct Gathered {
    /// Every object and library seen with its value.
    rows: Vec<CrtRow>,
    /// The evidence lines.
    lines: Vec<u64>,
    /// Default libraries an LNK4098 names, with their flavour.
    requested: Vec<(String, Option<Flavour>)>,
    /// Names both CRTs define (CRT LNK2005s).
    symbols: Vec<String>,
    /// The flavour of the object each mismatch compares against (the first one linked).
    reference: Vec<Flavour>,
    /// Whether a linker record shows it (not only object directives).
    from_log: bool,
    /// The link's output, when a summary names it.
    output: Option<String>,
}

impl Gathered {
    /// Whether the rows show a mismatch: a linker record says so, or the flavours or iterator
    /// debug levels seen differ.
    fn shows_a_mismatch(&self) -> bool {
        let mut flavours: Vec<Flavour> = self.rows.iter().filter_map(|r| r.flavour).collect();
        flavours.sort();
        flavours.dedup();
        let idl: Vec<&str> = self
            .rows
            .iter()
            .filter(|r| r.key == ITERATOR_DEBUG_LEVEL)
            .map(|r| r.value.as_str())
            .collect();
        let idl_differs = idl.iter().any(|v| *v != idl[0]);
        !self.rows.is_empty() && (self.from_log || flavours.len() > 1 || idl_differs)
    }

    fn push_row(&mut self, row: CrtRow) {
        if !self
            .rows
            .iter()
            .any(|r| r.subject == row.subject && r.key == row.key)
        {
            self.rows.push(row);
        }
    }
}

/// The CRT mismatch of the diagnosis, when its evidence shows one.
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let mut out = from_records(scan);
    out.extend(prebuilt_library_runtime(scan));
    out
}

/// A prebuilt library built for the DLL C runtime in a link of the static one: the names the
/// resolver marked (its dllimport references to the runtime, and only its), as one problem.
fn prebuilt_library_runtime(scan: &Scan<'_>) -> Option<Problem> {
    let book = scan.inputs.book;
    let marked = scan.explained_as(crate::resolve::ExplainedKind::CrtMismatch);
    let first = marked.first()?;
    let member = first.symbol.references.first()?.object.clone()?;
    let library = library_file(&member)?.to_string();
    let debug = marked
        .iter()
        .any(|s| book.is_debug_only(s.symbol.lookup_name()));
    let (dll, static_) = if debug {
        (Flavour::DynamicDebug, Flavour::StaticDebug)
    } else {
        (Flavour::Dynamic, Flavour::Static)
    };
    let (dll, static_) = (dll.compiler_option(), static_.compiler_option());
    let names: Vec<String> = marked.iter().map(|s| s.symbol.name().to_string()).collect();
    let mut problem = Problem::new(
        ProblemKind::CrtMismatch,
        format!("{library} was built for the DLL C runtime ({dll}), the link uses the static one ({static_})"),
        format!(
            "only {library} asks for the C runtime names left ({}), and always through dllimport (__imp_): it was compiled with {dll}, while the rest of the link uses {static_}, whose libraries define no __imp_ names",
            some_of(&names, 3)
        ),
        format!(
            "rebuild {library} with {static_} (or get its {static_} build), or build the project with {dll} to match it; adding the {dll} libraries to the link would put two C runtimes in the program"
        ),
    );
    for s in &marked {
        problem.line(s.symbol.first_line);
    }
    problem.subject(library);
    for s in &marked {
        for r in &s.symbol.references {
            if let Some(object) = &r.object {
                problem.subject(object.to_string());
            }
        }
    }
    problem.subjects_from(names);
    Some(problem)
}

/// The CRT mismatch the linker's records show: LNK2038, LNK4098, CRT duplicates, directives.
fn from_records(scan: &mut Scan<'_>) -> Vec<Problem> {
    let mut gathered = Gathered::default();
    mismatch_records(scan, &mut gathered);
    default_library_conflicts(scan, &mut gathered);
    let only_crt_duplicates = crt_duplicates(scan, &mut gathered);
    object_directives(scan, &mut gathered);
    if !gathered.shows_a_mismatch() {
        return Vec::new();
    }
    summaries(scan, &mut gathered, only_crt_duplicates);
    let mut problem = compose(
        scan,
        &gathered.rows,
        &gathered.requested,
        &gathered.reference,
    );
    for line in &gathered.lines {
        problem.line(*line);
    }
    for row in &gathered.rows {
        problem.subject(row.subject.clone());
    }
    for symbol in &gathered.symbols {
        problem.subject(symbol.clone());
    }
    let mut keys_and_values: Vec<&String> = Vec::new();
    for row in gathered
        .rows
        .iter()
        .filter(|r| r.key == RUNTIME_LIBRARY || r.key == ITERATOR_DEBUG_LEVEL)
    {
        for v in [&row.key, &row.value] {
            if !keys_and_values.contains(&v) {
                keys_and_values.push(v);
            }
        }
    }
    for v in keys_and_values {
        problem.subject(v.to_string());
    }
    if let Some(output) = gathered.output.take() {
        problem.subject(output);
    }
    note_legacy_runtimes(&mut problem, &gathered.rows);
    problem.table = gathered.rows;
    vec![problem]
}

/// A note for each C runtime of Visual C++ 2003 and older the table shows (`LIBCD.lib`, the
/// single-threaded debug CRT): no current toolset has it, so what asks for it is old code.
fn note_legacy_runtimes(problem: &mut Problem, rows: &[CrtRow]) {
    let mut seen: Vec<String> = Vec::new();
    for row in rows {
        let name = library_file(&row.subject)
            .map(str::to_string)
            .unwrap_or_else(|| row.value.clone());
        let Some(flavour) = crate::read::evidence::legacy_crt_flavour(&name) else {
            continue;
        };
        let stem = name.to_ascii_lowercase();
        let stem = stem.strip_suffix(".lib").unwrap_or(&stem).to_string();
        if seen.contains(&stem) {
            continue;
        }
        let what = match stem.as_str() {
            "libc" | "libcp" => "the single-threaded C runtime (/ML)".to_string(),
            "libcd" | "libcpd" => "the single-threaded debug C runtime (/MLd)".to_string(),
            _ => format!("the old iostream library ({})", flavour.compiler_option()),
        };
        problem.notes.push(format!(
            "{name} is {what} of Visual C++ 2003 and older, which no current toolset ships: the library or object that asks for it was built with such a toolset; rebuild it with the toolset of the link (or link it with its own)"
        ));
        seen.push(stem);
    }
}

/// LNK2038 and lld-link's `/failifmismatch` on `RuntimeLibrary` and `_ITERATOR_DEBUG_LEVEL`:
/// each side with its value (other keys are not CRT choices).
fn mismatch_records(scan: &mut Scan<'_>, gathered: &mut Gathered) {
    let mut mismatches = scan.unclaimed(&["LNK2038"]);
    mismatches.extend(scan.unclaimed_lld("/failifmismatch"));
    for (i, f) in mismatches {
        let Some((key, sides)) = mismatch_sides(f) else {
            continue;
        };
        if key != RUNTIME_LIBRARY && key != ITERATOR_DEBUG_LEVEL {
            continue;
        }
        // link.exe names the object it compares against last (`in X.obj`), lld-link first.
        let first_linked = if f.code.starts_with("lld-link") {
            sides.first()
        } else {
            sides.last()
        };
        gathered
            .reference
            .extend(first_linked.and_then(|(_, v)| row_flavour(&key, v)));
        for (subject, value) in sides {
            gathered.push_row(CrtRow {
                flavour: row_flavour(&key, &value),
                subject,
                key: key.clone(),
                value,
                line: Some(f.line),
            });
        }
        gathered.lines.push(f.line);
        gathered.from_log = true;
        scan.claim(i);
    }
}

/// LNK4098: a CRT default library some objects ask for, in conflict with the link's CRT.
fn default_library_conflicts(scan: &mut Scan<'_>, gathered: &mut Gathered) {
    let book = scan.inputs.book;
    for (i, f) in scan.unclaimed(&["LNK4098"]) {
        let library = quoted(&f.text)
            .into_iter()
            .chain(f.values.iter().cloned())
            .find(|q| flavour_of_library(book, q).is_some());
        let Some(library) = library else {
            continue;
        };
        let flavour = flavour_of_library(book, &library);
        gathered.rows.push(CrtRow {
            subject: library.clone(),
            key: "defaultlib".into(),
            value: library.clone(),
            flavour,
            line: Some(f.line),
        });
        gathered.requested.push((library, flavour));
        gathered.lines.push(f.line);
        gathered.from_log = true;
        scan.claim(i);
    }
}

/// LNK2005 between CRT libraries of different flavours, and between the DLL C++ library and a
/// static copy of its code. Returns whether every duplicate of the log is one of these.
fn crt_duplicates(scan: &mut Scan<'_>, gathered: &mut Gathered) -> bool {
    let book = scan.inputs.book;
    let duplicates = occurrences(scan);
    let crt: Vec<_> = duplicates
        .iter()
        .filter(|o| !scan.claimed[o.finding] && is_crt_pair(book, o))
        .cloned()
        .collect();
    for o in &crt {
        if let Some((other, flavour)) = super::duplicate::implied_flavour(book, o) {
            gathered.push_row(CrtRow {
                subject: other.clone(),
                key: "library".into(),
                value: format!(
                    "{COPY_OF_THE_CXX_LIBRARY} ({}), compiled for {}",
                    o.symbol,
                    flavour.compiler_option()
                ),
                flavour: Some(flavour),
                line: Some(o.line),
            });
        }
        for definer in &o.definers {
            if let Some(flavour) = crt_flavour(book, definer) {
                gathered.push_row(CrtRow {
                    subject: definer.clone(),
                    key: "library".into(),
                    value: library_file(definer).unwrap_or(definer).to_string(),
                    flavour: Some(flavour),
                    line: Some(o.line),
                });
            }
        }
        if !gathered.symbols.contains(&o.symbol) {
            gathered.symbols.push(o.symbol.clone());
        }
        gathered.lines.push(o.line);
        gathered.from_log = true;
        scan.claim(o.finding);
    }
    !crt.is_empty()
        && duplicates
            .iter()
            .all(|o| crt.iter().any(|c| c.finding == o.finding))
}

/// The `/DEFAULTLIB` directives of the objects read (`--objects`, and objects the log names),
/// for the objects the log does not already show with a value.
fn object_directives(scan: &Scan<'_>, gathered: &mut Gathered) {
    let book = scan.inputs.book;
    for e in &scan.diagnosis.crt.evidence {
        if e.source != crate::read::evidence::EvidenceSource::ObjectDirective {
            continue;
        }
        let Some((object, library)) = e.detail.rsplit_once(": /DEFAULTLIB:") else {
            continue;
        };
        let name = super::text::file_name(object);
        if gathered
            .rows
            .iter()
            .any(|r| super::text::file_name(&r.subject).eq_ignore_ascii_case(name))
        {
            continue;
        }
        gathered.rows.push(CrtRow {
            subject: object.to_string(),
            key: "/DEFAULTLIB".into(),
            value: library.to_string(),
            flavour: flavour_of_library(book, library),
            line: None,
        });
    }
}

/// The summaries that belong to the mismatch: LNK1319 (the count of LNK2038s), and LNK1169 when
/// every duplicate of the log is a CRT one.
fn summaries(scan: &mut Scan<'_>, gathered: &mut Gathered, only_crt_duplicates: bool) {
    for (i, f) in scan.unclaimed(&["LNK1319"]) {
        gathered.lines.push(f.line);
        scan.claim(i);
    }
    if only_crt_duplicates {
        for (i, f) in scan.unclaimed(&["LNK1169"]) {
            gathered.lines.push(f.line);
            gathered.output = gathered
                .output
                .take()
                .or_else(|| f.objects.first().cloned());
            scan.claim(i);
        }
        gathered.output = gathered.output.take().or_else(|| scan.output());
    }
}

/// The value of a row for a library that holds a copy of the C++ library's code.
const COPY_OF_THE_CXX_LIBRARY: &str = "holds the C++ library's own code";

/// A flavour as the log spells it: its option and, for a RuntimeLibrary value, the value.
fn spelled(flavour: Flavour) -> String {
    format!("{} ({})", flavour.compiler_option(), flavour.name())
}

/// Per unit (a project object, or a library with its members): the flavours it shows, and
/// whether its iterator debug level says Debug.
struct Units<'a> {
    project: Vec<(&'a String, &'a Vec<Flavour>)>,
    libraries: Vec<(&'a String, &'a Vec<Flavour>)>,
    project_flavours: Vec<Flavour>,
    debug_sides: Vec<bool>,
}

/// The headline, cause, fix and notes of one case.
type Told = (String, String, String, Vec<String>);

fn describe_unit((name, flavours): &(&String, &Vec<Flavour>)) -> String {
    let options: Vec<String> = flavours
        .iter()
        .map(|f| f.compiler_option().to_string())
        .collect();
    format!("{name} {}", options.join("+"))
}

/// The headline, cause, fix and warning from the table.
fn compose(
    scan: &Scan<'_>,
    rows: &[CrtRow],
    requested: &[(String, Option<Flavour>)],
    reference: &[Flavour],
) -> Problem {
    let mut flavours_of: BTreeMap<(bool, String), Vec<Flavour>> = BTreeMap::new();
    let mut debug_of: BTreeMap<(bool, String), Vec<bool>> = BTreeMap::new();
    for row in rows.iter().filter(|r| r.key != "defaultlib") {
        let unit = unit_of(&row.subject);
        if let Some(f) = row.flavour {
            let list = flavours_of.entry(unit.clone()).or_default();
            if !list.contains(&f) {
                list.push(f);
            }
        }
        if row.key == ITERATOR_DEBUG_LEVEL {
            let list = debug_of.entry(unit).or_default();
            let debug = row.value != "0";
            if !list.contains(&debug) {
                list.push(debug);
            }
        }
    }
    let pick = |project: bool| -> Vec<(&String, &Vec<Flavour>)> {
        flavours_of
            .iter()
            .filter(|((is_project, _), _)| *is_project == project)
            .map(|((_, name), f)| (name, f))
            .collect()
    };
    let (project, libraries) = (pick(true), pick(false));
    let mut project_flavours: Vec<Flavour> = project
        .iter()
        .flat_map(|(_, f)| f.iter().copied())
        .collect();
    project_flavours.sort();
    project_flavours.dedup();
    let units = Units {
        project,
        libraries,
        project_flavours,
        debug_sides: debug_of.values().flatten().copied().collect(),
    };
    let (summary, cause, fix, notes) = match units.project_flavours.as_slice() {
        [p] => one_project_flavour(scan, &units, *p, rows, requested),
        [_, _, ..] => project_objects_differ(scan, &units, reference),
        [] if !units.libraries.is_empty() && rows.iter().any(|r| r.key == RUNTIME_LIBRARY) => {
            libraries_differ(scan, &units, reference)
        }
        [] => generic(scan, rows, requested, None),
    };
    let mut problem = Problem::new(ProblemKind::CrtMismatch, summary, cause, fix);
    problem.notes = notes;
    // The iterator debug level on its own: Debug and Release code in one link.
    if units.debug_sides.contains(&true) && units.debug_sides.contains(&false) {
        problem.notes.push(
            "_ITERATOR_DEBUG_LEVEL differs too: Debug code (2) and Release code (0) are linked together; build every part in one configuration".into(),
        );
    }
    if let Some((library, _)) = requested.first() {
        problem.warning = Some(format!(
            "/NODEFAULTLIB:{library} silences LNK4098 but hides the real mismatch: the objects that ask for {library} were compiled for it, and linked against another CRT they get two heaps and two sets of C runtime state; rebuild them instead"
        ));
    }
    problem
}

/// The project's objects agree on `p`: the libraries that differ are rebuilt, or the project
/// takes the libraries' option when they all agree on another.
fn one_project_flavour(
    scan: &Scan<'_>,
    units: &Units<'_>,
    p: Flavour,
    rows: &[CrtRow],
    requested: &[(String, Option<Flavour>)],
) -> Told {
    let odd: Vec<&(&String, &Vec<Flavour>)> = units
        .libraries
        .iter()
        .filter(|(_, f)| f.iter().any(|x| *x != p))
        .collect();
    if odd.is_empty() {
        // Only requested default libraries disagree (LNK4098 with the project's own rows).
        return generic(scan, rows, requested, Some(p));
    }
    let mixed: Vec<String> = units
        .libraries
        .iter()
        .filter(|(_, f)| f.len() > 1)
        .map(|(n, _)| n.to_string())
        .collect();
    let mut lib_flavours: Vec<Flavour> = odd.iter().flat_map(|(_, f)| f.iter().copied()).collect();
    lib_flavours.sort();
    lib_flavours.dedup();
    let names: Vec<String> = odd.iter().map(|(n, _)| n.to_string()).collect();
    if odd.len() == units.libraries.len() && mixed.is_empty() && lib_flavours.len() == 1 {
        // Every library agrees on another flavour than the project: the project changes.
        return project_takes_libraries_flavour(scan, units, p, lib_flavours[0], &names);
    }
    let mut cause = format!(
        "the project's objects use {}, and {} {} built for another runtime: {}",
        p.compiler_option(),
        join_words(&names),
        if names.len() == 1 { "was" } else { "were" },
        odd.iter()
            .map(|u| describe_unit(u))
            .collect::<Vec<_>>()
            .join(", ")
    );
    if !mixed.is_empty() {
        cause.push_str(&format!(
            "; {} {} members built with different runtimes",
            join_words(&mixed),
            if mixed.len() == 1 { "has" } else { "have" }
        ));
    }
    (
        format!(
            "{} built for another C runtime than the project, {}",
            join_words(&names),
            spelled(p)
        ),
        cause,
        format!(
            "rebuild {} with {} (the project's runtime), or get builds of {} made with it",
            join_words(&names),
            p.compiler_option(),
            if names.len() == 1 { "it" } else { "them" }
        ),
        vec![format!(
            "or build the project with the libraries' runtime instead: {}",
            lib_flavours
                .iter()
                .map(|f| runtime_setting(scan.build_system(), *f))
                .collect::<Vec<_>>()
                .join("; ")
        )],
    )
}

/// Every library (`names`) was built with `v`, the project with `p`: the project changes to `v`.
fn project_takes_libraries_flavour(
    scan: &Scan<'_>,
    units: &Units<'_>,
    p: Flavour,
    v: Flavour,
    names: &[String],
) -> Told {
    let project_names: Vec<String> = units.project.iter().map(|(n, _)| n.to_string()).collect();
    (
        format!(
            "{} built with {} but the project ({}) with {}",
            join_words(names),
            spelled(v),
            some_of(&project_names, 3),
            spelled(p)
        ),
        format!(
            "every object of one link must use the same C runtime; the libraries were built for {} and the project's objects for {}",
            v.compiler_option(),
            p.compiler_option()
        ),
        format!(
            "build the project with {}, the runtime the libraries were built with: {}",
            v.compiler_option(),
            runtime_setting(scan.build_system(), v)
        ),
        vec![format!(
            "or use builds of {} made with {}",
            join_words(names),
            p.compiler_option()
        )],
    )
}

/// The project's own objects differ among themselves: one option for all.
fn project_objects_differ(scan: &Scan<'_>, units: &Units<'_>, reference: &[Flavour]) -> Told {
    let described: Vec<String> = units.project.iter().map(describe_unit).collect();
    let majority = majority(&units.project, reference, scan.build_system());
    (
        format!(
            "the project's own objects use different C runtimes ({})",
            some_of(&described, 4)
        ),
        format!(
            "objects of one project were compiled with different runtime options: {}",
            described.join(", ")
        ),
        format!(
            "compile every object with one option ({}): {}; a clean rebuild, when the option was changed since some objects were built: stale objects keep the old one",
            majority.compiler_option(),
            runtime_setting(scan.build_system(), majority)
        ),
        Vec::new(),
    )
}

/// Only libraries show values: the odd ones out are rebuilt with the majority's option.
fn libraries_differ(scan: &Scan<'_>, units: &Units<'_>, reference: &[Flavour]) -> Told {
    let majority = majority(&units.libraries, reference, scan.build_system());
    let odd: Vec<String> = units
        .libraries
        .iter()
        .filter(|(_, f)| f.iter().any(|x| *x != majority))
        .map(|(n, _)| n.to_string())
        .collect();
    (
        format!(
            "{} built for another C runtime than the rest ({})",
            join_words(&odd),
            spelled(majority)
        ),
        format!(
            "the libraries of the link were built with different runtimes: {}",
            units
                .libraries
                .iter()
                .map(describe_unit)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        format!(
            "rebuild {} with {} (or get builds made with it)",
            join_words(&odd),
            majority.compiler_option()
        ),
        Vec::new(),
    )
}

/// The flavour most units show; on a tie, the one a Python extension needs (/MD) when the build
/// is one, else the flavour of the object each mismatch compares against (the first linked).
fn majority(
    units: &[(&String, &Vec<Flavour>)],
    reference: &[Flavour],
    build_system: Option<crate::read::build_system::BuildSystem>,
) -> Flavour {
    use crate::read::build_system::BuildSystem;
    let mut votes: BTreeMap<Flavour, usize> = BTreeMap::new();
    for (_, flavours) in units {
        for f in flavours.iter() {
            *votes.entry(*f).or_default() += 1;
        }
    }
    let best = votes.values().copied().max().unwrap_or(0);
    let tied: Vec<Flavour> = votes
        .iter()
        .filter(|(_, n)| **n == best)
        .map(|(f, _)| *f)
        .collect();
    if let [one] = tied.as_slice() {
        return *one;
    }
    if matches!(
        build_system,
        Some(BuildSystem::TvmFfi | BuildSystem::Setuptools | BuildSystem::TorchExtension)
    ) && tied.contains(&Flavour::Dynamic)
    {
        return Flavour::Dynamic;
    }
    reference
        .iter()
        .copied()
        .find(|f| tied.contains(f))
        .or_else(|| tied.first().copied())
        .unwrap_or(Flavour::Dynamic)
}

/// The mismatch told by libraries alone (CRT LNK2005, LNK4098): which flavours meet in the link.
fn generic(
    scan: &Scan<'_>,
    rows: &[CrtRow],
    requested: &[(String, Option<Flavour>)],
    project: Option<Flavour>,
) -> Told {
    let mut by_flavour: BTreeMap<Flavour, Vec<String>> = BTreeMap::new();
    for row in rows {
        if let Some(f) = row.flavour {
            let name = library_file(&row.subject)
                .unwrap_or(&row.subject)
                .to_string();
            let list = by_flavour.entry(f).or_default();
            if !list.contains(&name) {
                list.push(name);
            }
        }
    }
    let sides: Vec<String> = by_flavour
        .iter()
        .map(|(f, names)| format!("{} ({})", join_words(names), f.compiler_option()))
        .collect();
    // The flavour to build with: the project's, else the one the evidence chose that is not the
    // requested default library's.
    let requested_flavours: Vec<Flavour> = requested.iter().filter_map(|(_, f)| *f).collect();
    let target = project.or(scan
        .diagnosis
        .crt
        .flavour
        .filter(|f| !requested_flavours.contains(f) || by_flavour.len() == 1));
    let build_system = scan.build_system();
    let fix = match target {
        Some(f) => format!(
            "compile every object and library of the link with {}: {}; a clean rebuild, when the option was changed since some objects were built (stale objects keep the old one)",
            f.compiler_option(),
            runtime_setting(build_system, f)
        ),
        None => "compile every object and library of the link with one runtime option (all /MD, or all /MT); a clean rebuild, when the option was changed since some objects were built (stale objects keep the old one)".into(),
    };
    if let Some(told) = static_cxx_library_copies(scan, rows) {
        return told;
    }
    let summary = if sides.len() > 1 {
        format!("the link mixes C runtimes: {}", join_words(&sides))
    } else if let Some((library, _)) = requested.first() {
        format!("some objects ask for {library} while the link uses another C runtime (LNK4098)")
    } else {
        format!("the link mixes C runtimes: {}", join_words(&sides))
    };
    (summary, mixed_cause(requested), fix, Vec::new())
}

/// Libraries that carry the C++ library's own code, compiled for the static one, in a link with
/// the DLL one: they are the odd ones out, rebuilt with /MD.
fn static_cxx_library_copies(scan: &Scan<'_>, rows: &[CrtRow]) -> Option<Told> {
    let copies: Vec<String> = rows
        .iter()
        .filter(|r| r.value.starts_with(COPY_OF_THE_CXX_LIBRARY))
        .filter_map(|r| library_file(&r.subject).map(str::to_string))
        .fold(Vec::new(), |mut acc, l| {
            if !acc.contains(&l) {
                acc.push(l);
            }
            acc
        });
    if copies.is_empty() {
        return None;
    }
    let dll = Flavour::Dynamic;
    Some((
        format!(
            "{} compiled for the static C++ library in a link with the DLL one",
            join_words(&copies)
        ),
        format!(
            "{} define names of the C++ library itself (std:: members), which only code compiled with /MT carries; the link imports the same names from msvcprt.lib (/MD)",
            join_words(&copies)
        ),
        format!(
            "rebuild {} with /MD, the runtime of the rest of the link: {}",
            join_words(&copies),
            runtime_setting(scan.build_system(), dll)
        ),
        vec!["or build the whole project with /MT".into()],
    ))
}

/// The cause of a mixed link: objects of different runtime options, or what the requested
/// default libraries say the objects were compiled for.
fn mixed_cause(requested: &[(String, Option<Flavour>)]) -> String {
    if requested.is_empty() {
        "objects compiled with different runtime options (/MT and /MD, or debug and release) are linked together: the libraries of both CRTs are pulled in and define the same names".to_string()
    } else {
        let wanted: Vec<String> = requested
            .iter()
            .map(|(l, f)| match f {
                Some(f) => format!("{l} ({})", f.compiler_option()),
                None => l.clone(),
            })
            .collect();
        format!(
            "objects compiled for {} are linked with objects or libraries compiled for another runtime",
            join_words(&wanted)
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::problems::ProblemKind;

    use crate::problems::diagnose_text as diagnose;

    /// The C runtime names only one prebuilt library asks for, all through dllimport: that
    /// library was built for the DLL runtime. A compile line that shows the project is /MD too
    /// makes it the missing chain instead.
    #[test]
    fn a_prebuilt_library_of_the_other_runtime() {
        let records = "ZXing.lib(BitMatrix.obj) : error LNK2019: unresolved external symbol __imp_malloc referenced in function f\n\
             ZXing.lib(BitMatrix.obj) : error LNK2019: unresolved external symbol __imp_free referenced in function g\n\
             ZXing.lib(Content.obj) : error LNK2001: unresolved external symbol __imp_strtol\n\
             app.exe : fatal error LNK1120: 3 unresolved externals\n";
        let d = diagnose(records);
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::CrtMismatch, "{}", p.summary);
        assert!(
            p.summary
                .starts_with("ZXing.lib was built for the DLL C runtime (/MD)"),
            "{}",
            p.summary
        );
        assert!(p.fix.starts_with("rebuild ZXing.lib with /MT"), "{}", p.fix);
        assert!(d.link_flags.is_empty(), "{:?}", d.link_flags);
        let d = diagnose(&format!("cl /nologo /MD /c app.cpp\n{records}"));
        assert_eq!(
            d.problems[0].kind,
            ProblemKind::Unresolved,
            "{}",
            d.problems[0].summary
        );
    }

    /// The C runtimes of Visual C++ 2003 and older are C runtimes: two of them defining the same
    /// names is a CRT mismatch with a note on the old one, never a duplicate to rename.
    #[test]
    fn old_crt_names_are_c_runtimes() {
        let d = diagnose(
            "LIBCD.lib(dbgheap.obj) : error LNK2005: _malloc already defined in MSVCRTD.lib(MSVCR71D.dll)\n\
             LINK : warning LNK4098: defaultlib 'LIBCD' conflicts with use of other libs; use /NODEFAULTLIB:library\n\
             app.exe : fatal error LNK1169: one or more multiply defined symbols found\n",
        );
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::CrtMismatch, "{}", p.summary);
        assert!(!p.fix.contains("rename"), "{}", p.fix);
        assert!(
            p.notes
                .iter()
                .any(|n| n.contains("LIBCD") && n.contains("/MLd")),
            "{:?}",
            p.notes
        );
        let d = diagnose(
            "LIBC.lib(crt0.obj) : error LNK2005: _exit already defined in MSVCRT.lib(MSVCR71.dll)\n",
        );
        assert_eq!(d.problems[0].kind, ProblemKind::CrtMismatch);
        assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
    }

    #[test]
    fn lnk4098_gets_its_warning_and_no_nodefaultlib_flag() {
        let d = diagnose(
            "cl /MD /c a.cpp\nLINK : warning LNK4098: defaultlib 'LIBCMT' conflicts with use of other libs; use /NODEFAULTLIB:library\n\
             a.obj : error LNK2019: unresolved external symbol __imp_malloc referenced in function main\n",
        );
        let crt = &d.problems[0];
        assert_eq!(crt.kind, ProblemKind::CrtMismatch);
        assert!(crt
            .warning
            .as_deref()
            .unwrap()
            .contains("/NODEFAULTLIB:LIBCMT"));
        // The flags never propose what the warning warns against.
        assert!(
            !d.link_flags.iter().any(|f| f.starts_with("/NODEFAULTLIB")),
            "{:?}",
            d.link_flags
        );
        let d = diagnose(
            "b.lib(x.obj) : error LNK2038: mismatch detected for 'RuntimeLibrary': value 'MT_StaticRelease' doesn't match value 'MD_DynamicRelease' in a.obj\n\
             libcpmt.lib(y.obj) : error LNK2019: unresolved external symbol __imp_wcsnlen referenced in function f\n",
        );
        assert_eq!(d.problems[0].kind, ProblemKind::CrtMismatch);
        assert!(d.problems[0].warning.is_none());
        assert!(
            !d.link_flags.iter().any(|f| f.starts_with("/NODEFAULTLIB")),
            "{:?}",
            d.link_flags
        );
    }

    #[test]
    fn the_odd_library_is_rebuilt_when_the_rest_agree_with_the_project() {
        let d = diagnose(
            "libCoinUtils.lib(CoinError.obj) : error LNK2038: mismatch detected for 'RuntimeLibrary': value 'MT_StaticRelease' doesn't match value 'MD_DynamicRelease' in app.obj\n\
             libClp.lib(ClpModel.obj) : error LNK2038: mismatch detected for '_ITERATOR_DEBUG_LEVEL': value '0' doesn't match value '0' in app.obj\n\
             zlib.lib(adler32.obj) : error LNK2038: mismatch detected for 'RuntimeLibrary': value 'MD_DynamicRelease' doesn't match value 'MD_DynamicRelease' in app.obj\n",
        );
        let p = &d.problems[0];
        assert!(
            p.fix.starts_with("rebuild libCoinUtils.lib with /MD"),
            "{}",
            p.fix
        );
        assert!(p.table.iter().any(|r| r.subject == "app.obj"));
    }
}
