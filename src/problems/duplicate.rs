//! Duplicate symbols (docs/RULES.md §20): LNK2005 `X already defined in B`, LNK4006 (the
//! second definition ignored), LNK1169 (the summary), and lld-link's `duplicate symbol: X` with
//! its two `>>> defined at` lines. Both definers are named, and the pair is told apart: two CRT
//! libraries of different flavours (a CRT mismatch, [`super::crt_mismatch`]), the same code
//! linked twice from two libraries, a DLL's import and a static copy of the same code, a
//! definition in a header included by several objects, a name the project defines that the CRT
//! defines too. `/FORCE` is never the fix.

use super::text::{files, first_symbol, library_file, member};
use super::{count, join_words, some_of, Problem, ProblemKind, Scan};
use crate::read::evidence::flavour_of_library;
use crate::read::linklog::Finding;
use crate::rules::{Flavour, RuleBook};

/// One report of a name defined twice.
#[derive(Debug, Clone)]
pub(crate) struct Occurrence {
    /// Index of the finding in the diagnosis.
    pub(crate) finding: usize,
    /// 1-based line.
    pub(crate) line: u64,
    /// The name: the decorated form when shown, else the name as shown.
    pub(crate) symbol: String,
    /// The definers as shown: the object or `lib(member)` that brought the second definition,
    /// then the one that had it already (link.exe); in lld-link's order.
    pub(crate) definers: Vec<String>,
    /// Source lines lld-link showed for a definer (`util.h:3`).
    pub(crate) sources: Vec<String>,
    /// A warning (LNK4006, lld-link's `/force`), not an error.
    pub(crate) warning: bool,
}

/// The object in front of a link.exe record (or in the Error List's File column), when the
/// record has one: the first object of the finding that its text does not name.
pub(crate) fn prefix_object(finding: &Finding) -> Option<&str> {
    let object = finding
        .objects
        .first()
        .map(String::as_str)
        .filter(|o| !finding.text.contains(*o))?;
    // A wrapper's logger columns in front (`nmake      INFO         x.lib(y.dll)`): the file is
    // the last column. A path with single spaces (`C:\Program Files\x.obj`) stays whole.
    let object = match object.rfind("  ") {
        Some(at) if files(&object[at..]).len() == 1 => object[at..].trim(),
        _ => object,
    };
    // An IDE's location after the file (Qt Creator's `Main.obj:-1: error`): the file alone.
    let cut = [": ", ":-"]
        .iter()
        .filter_map(|m| object.find(m))
        .filter(|&at| at > 1)
        .min();
    match cut {
        Some(at) if !files(&object[..at]).is_empty() => Some(object[..at].trim()),
        _ => Some(object),
    }
}

/// The text after a record's leading symbol.
fn after_symbol<'t>(text: &'t str, symbol: &str) -> &'t str {
    match text.find(symbol) {
        Some(at) => {
            let rest = &text[at + symbol.len()..];
            rest.strip_prefix(')').unwrap_or(rest)
        }
        None => text,
    }
}

/// Every duplicate-symbol report of the diagnosis, claimed or not.
pub(crate) fn occurrences(scan: &Scan<'_>) -> Vec<Occurrence> {
    let mut out = Vec::new();
    for (i, f) in scan.diagnosis.findings.iter().enumerate() {
        match f.code.as_str() {
            "LNK2005" | "LNK4006" => {
                let Some((_, symbol)) = first_symbol(&f.text) else {
                    continue;
                };
                let mut definers: Vec<String> =
                    prefix_object(f).map(str::to_string).into_iter().collect();
                for file in files(after_symbol(&f.text, &symbol)) {
                    if !definers.contains(&file) {
                        definers.push(file);
                    }
                }
                out.push(Occurrence {
                    finding: i,
                    line: f.line,
                    symbol,
                    definers,
                    sources: Vec::new(),
                    warning: f.code == "LNK4006",
                });
            }
            code if code.starts_with("lld-link") && f.text.starts_with("duplicate symbol: ") => {
                let Some(symbol) = f.values.first().cloned() else {
                    continue;
                };
                out.push(Occurrence {
                    finding: i,
                    line: f.line,
                    symbol,
                    definers: f.objects.clone(),
                    sources: f.values[1..].to_vec(),
                    warning: code == "lld-link warning",
                });
            }
            _ => {}
        }
    }
    out
}

/// The CRT flavour of a definer that is a member of a CRT library (`LIBCMT.lib(memmove.obj)`,
/// `MSVCRT.lib(MSVCR120.dll)`, `msvcprt.lib(MSVCP100.dll)`).
pub(crate) fn crt_flavour(book: &RuleBook, definer: &str) -> Option<Flavour> {
    library_file(definer).and_then(|l| flavour_of_library(book, l))
}

/// Whether the pair is two CRT libraries of different flavours, or the C++ library of one
/// flavour and an object or library that holds the C++ library's own code compiled for the other
/// ([`implied_flavour`]).
pub(crate) fn is_crt_pair(book: &RuleBook, occurrence: &Occurrence) -> bool {
    let flavours: Vec<Option<Flavour>> = occurrence
        .definers
        .iter()
        .map(|d| crt_flavour(book, d))
        .collect();
    match flavours.as_slice() {
        [Some(a), Some(b), ..] => a != b,
        [Some(_), None, ..] | [None, Some(_), ..] => implied_flavour(book, occurrence).is_some(),
        _ => false,
    }
}

/// A name of the C++ library itself (`std::` members, `?...@std@@`), defined both by a C++ library
/// import member (`msvcprt.lib(MSVCP140.dll)`) and by a static object or library: that object was
/// compiled for the static C++ library (`/MT`), whose code it holds, while the link uses the DLL
/// one (or the reverse). Returns the definer that is not a CRT library and the flavour it implies.
pub(crate) fn implied_flavour(
    book: &RuleBook,
    occurrence: &Occurrence,
) -> Option<(String, Flavour)> {
    if !occurrence.symbol.contains("@std@@") && !occurrence.symbol.contains("std::") {
        return None;
    }
    let [a, b, ..] = occurrence.definers.as_slice() else {
        return None;
    };
    let (crt, other) = match (crt_flavour(book, a), crt_flavour(book, b)) {
        (Some(f), None) => (f, b),
        (None, Some(f)) => (f, a),
        _ => return None,
    };
    let crt_side = if crt_flavour(book, a).is_some() { a } else { b };
    // The DLL C++ library's import member against a static copy: the copy is /MT code.
    if crt.is_dynamic() && is_import_member(crt_side) && !is_import_member(other) {
        return Some((other.clone(), Flavour::from_parts(false, crt.is_debug())));
    }
    None
}

/// How a pair of definers came to define the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// The same code linked twice: two libraries holding the same member, or one library under
    /// two names or versions.
    SameCodeTwice,
    /// A DLL's import (`x.lib(y.dll)`) and a static copy of the same code.
    ImportAndStatic,
    /// Two of the project's own objects: a definition in a header they include, or in two sources.
    HeaderDefinition,
    /// The project (or a third-party library) defines a name the CRT defines too.
    ProjectAndCrt,
    /// Two libraries, or anything else.
    TwoDefiners,
}

/// Library names that are one library under two names (OpenSSL 1.0 and 1.1+, zlib builds).
const ALIASES: &[&[&str]] = &[
    &["libcrypto", "libeay32", "libeay"],
    &["libssl", "ssleay32", "ssleay"],
    &[
        "zlib",
        "zlibstatic",
        "zlibwapi",
        "zlib1",
        "zlibd",
        "zlibstaticd",
        "z",
    ],
    &["libpng", "libpng16", "libpng16_static", "png"],
    &["jpeg", "libjpeg", "jpeg-static", "turbojpeg"],
];

/// A library's base names: lower case, no extension, version digits removed, with and without
/// a debug `d` (`libpng16d.lib` → `libpng16d`, `libpng`).
fn base_names(library: &str) -> Vec<String> {
    let lower = library.to_ascii_lowercase();
    let stem = lower
        .rsplit_once('.')
        .map_or(lower.as_str(), |(stem, _)| stem);
    let trim = |s: &str| -> String {
        let s = s.trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '_'));
        let s = s
            .strip_suffix("-static")
            .or_else(|| s.strip_suffix("_static"))
            .unwrap_or(s);
        s.trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '_'))
            .to_string()
    };
    let mut out = vec![trim(stem)];
    if let Some(release) = stem.strip_suffix('d') {
        out.push(trim(release));
    }
    out
}

/// Whether two library file names are one library under two names or versions.
fn same_library(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
    if a == b {
        return true;
    }
    let stem = |s: &str| {
        s.rsplit_once('.')
            .map_or(s.to_string(), |(x, _)| x.to_string())
    };
    let (sa, sb) = (stem(&a), stem(&b));
    if ALIASES
        .iter()
        .any(|set| set.contains(&sa.as_str()) && set.contains(&sb.as_str()))
    {
        return true;
    }
    let (ba, bb) = (base_names(&a), base_names(&b));
    ba.iter().any(|x| x.len() >= 3 && bb.contains(x))
}

/// A member's stem: `WordList.cxx.obj` → `wordlist`.
fn member_stem(definer: &str) -> Option<String> {
    let member = member(definer)?;
    let name = member.rsplit(['\\', '/']).next().unwrap_or(member);
    let stem = name.split('.').next().unwrap_or(name);
    (!stem.is_empty()).then(|| stem.to_ascii_lowercase())
}

fn is_import_member(definer: &str) -> bool {
    member(definer).is_some_and(|m| {
        let lower = m.to_ascii_lowercase();
        lower.ends_with(".dll") || lower.ends_with(".exe") || lower.ends_with(".sys")
    })
}

fn is_project_object(definer: &str) -> bool {
    let lower = definer.to_ascii_lowercase();
    !definer.contains('(') && (lower.ends_with(".obj") || lower.ends_with(".o"))
}

fn shape(book: &RuleBook, definers: &[String]) -> Shape {
    let [a, b, ..] = definers else {
        return Shape::TwoDefiners;
    };
    let crt = |d: &str| crt_flavour(book, d).is_some();
    if crt(a) != crt(b) {
        return Shape::ProjectAndCrt;
    }
    if let (Some(la), Some(lb)) = (library_file(a), library_file(b)) {
        if same_library(la, lb) {
            return Shape::SameCodeTwice;
        }
    }
    if is_import_member(a) != is_import_member(b) {
        return Shape::ImportAndStatic;
    }
    if is_project_object(a) && is_project_object(b) {
        return Shape::HeaderDefinition;
    }
    if library_file(a).is_some() && library_file(b).is_some() {
        let same_member = member_stem(a).is_some() && member_stem(a) == member_stem(b);
        if same_member {
            return Shape::SameCodeTwice;
        }
    }
    Shape::TwoDefiners
}

/// Whether a source file is a header.
fn is_header(source: &str) -> bool {
    let path = source.rsplit_once(':').map_or(source, |(p, line)| {
        if line.bytes().all(|b| b.is_ascii_digit()) {
            p
        } else {
            source
        }
    });
    let lower = path.to_ascii_lowercase();
    [".h", ".hh", ".hpp", ".hxx", ".inl", ".cuh", ".ipp", ".tcc"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// The problems of the unclaimed duplicate-symbol reports, one per pair of definers.
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let occurrences: Vec<Occurrence> = occurrences(scan)
        .into_iter()
        .filter(|o| !scan.claimed[o.finding])
        .collect();
    let summaries = scan.unclaimed(&["LNK1169"]);
    if occurrences.is_empty() && summaries.is_empty() {
        return Vec::new();
    }
    // Group by the pair of definers, in order of first appearance; members of the same two
    // libraries are one pair (`zlib.lib(inflate.obj)` and `zlib.lib(deflate.obj)` against one
    // other library is one library bundling another's code, not two problems).
    let mut groups: Vec<(Vec<String>, Vec<&Occurrence>)> = Vec::new();
    for o in &occurrences {
        let mut key: Vec<String> = o
            .definers
            .iter()
            .map(|d| {
                library_file(d)
                    .filter(|_| !is_import_member(d))
                    .unwrap_or(d)
                    .to_ascii_lowercase()
            })
            .collect();
        key.sort();
        match groups.iter_mut().find(|(k, _)| *k == key) {
            Some((_, list)) => list.push(o),
            None => groups.push((key, vec![o])),
        }
    }
    let book = scan.inputs.book;
    let mut out: Vec<Problem> = groups
        .iter()
        .map(|(_, list)| problem_for(book, list))
        .collect();
    for o in &occurrences {
        scan.claim(o.finding);
    }
    if out.is_empty() {
        // Only the summary: the LNK2005 lines are outside the excerpt.
        out.push(Problem::new(
            ProblemKind::DuplicateSymbol,
            "names are defined more than once (LNK1169); the lines that name them are not in this log".into(),
            "two objects or libraries of the link define the same names".into(),
            "find the LNK2005 lines above LNK1169 in the full build log (or relink with /VERBOSE) to see which objects define each name, then keep one definition".into(),
        ));
    }
    let output = summaries
        .iter()
        .find_map(|(_, f)| f.objects.first().cloned())
        .or_else(|| scan.output());
    for (i, f) in &summaries {
        out[0].line(f.line);
        scan.claim(*i);
    }
    if let Some(output) = output {
        if !summaries.is_empty() || !out.is_empty() {
            out[0].subject(output);
        }
    }
    out
}

/// The problem of one pair of definers and the names they both define.
fn problem_for(book: &RuleBook, list: &[&Occurrence]) -> Problem {
    let first = list[0];
    let definers = &first.definers;
    let mut names: Vec<String> = Vec::new();
    for o in list {
        if !names.contains(&o.symbol) {
            names.push(o.symbol.clone());
        }
    }
    let warning = list.iter().all(|o| o.warning);
    let what = count(names.len(), "name");
    let pair = match definers.as_slice() {
        [a, b, ..] => format!("{a} and {b}"),
        [a] => format!("{a} and another object"),
        [] => "two objects".to_string(),
    };
    let summary = format!(
        "{what} defined twice{}: {} in {pair}",
        if warning {
            " (the second definition was ignored)"
        } else {
            ""
        },
        some_of(&names, 3)
    );
    let (cause, fix) = cause_and_fix(book, definers, list, &pair);
    let kind = ProblemKind::DuplicateSymbol;
    let mut problem = Problem::new(kind, summary, cause, fix);
    for o in list {
        problem.line(o.line);
    }
    for d in definers {
        problem.subject(d.clone());
    }
    for o in list {
        for d in &o.definers {
            problem.subject(d.clone());
        }
    }
    for name in &names {
        problem.subject(name.clone());
    }
    problem
        .notes
        .push("/FORCE links anyway and keeps one definition at random: it is never the fix".into());
    problem
}

/// The cause and the fix of a pair of definers, by what the pair is. Long because it is one
/// match with an arm per shape of pair, each arm the two sentences a user reads.
fn cause_and_fix(
    book: &RuleBook,
    definers: &[String],
    list: &[&Occurrence],
    pair: &str,
) -> (String, String) {
    let headers: Vec<&String> = list
        .iter()
        .flat_map(|o| &o.sources)
        .filter(|s| is_header(s))
        .collect();
    match shape(book, definers) {
        Shape::SameCodeTwice => {
            let libraries: Vec<String> = definers
                .iter()
                .filter_map(|d| library_file(d).map(str::to_string))
                .collect();
            (
                format!(
                    "the same code is linked twice: {} both hold it (one library under two names or versions, or a library that bundles a copy of another)",
                    join_words(&libraries)
                ),
                format!(
                    "link only one of {}: drop the other from the link inputs (or the dependency that brings it in)",
                    join_words(&libraries)
                ),
            )
        }
        Shape::ImportAndStatic => {
            let import = definers.iter().find(|d| is_import_member(d));
            let static_side = definers.iter().find(|d| !is_import_member(d));
            let dll = import.and_then(|d| member(d)).unwrap_or("the DLL");
            let import_lib = import.and_then(|d| library_file(d)).unwrap_or("its import library");
            let static_side = static_side.map(String::as_str).unwrap_or("a static copy");
            (
                format!(
                    "{dll} exports these names (through {import_lib}) and {static_side} defines them too: the link has both the DLL's import and a static copy of the same code"
                ),
                format!(
                    "link one of them: drop {static_side} ({dll} provides the names), or link the static library instead of {import_lib}"
                ),
            )
        }
        Shape::HeaderDefinition if !headers.is_empty() => (
            format!(
                "a non-inline definition in a header ({}) is compiled into every object that includes it",
                headers[0]
            ),
            "make the definition inline (or static) in the header, or move it into one .cpp and keep only a declaration (extern for a variable) in the header".into(),
        ),
        Shape::HeaderDefinition => (
            format!(
                "both {pair} define the names: a function or variable defined (not only declared) in a header that both include, or the same definition in two sources"
            ),
            "make a definition in a header inline (or static), or move it into one .cpp and keep only a declaration (extern for a variable) in the header; a source compiled twice (listed twice in the project) is removed once".into(),
        ),
        Shape::ProjectAndCrt => {
            let crt = definers
                .iter()
                .find(|d| crt_flavour(book, d).is_some())
                .map(String::as_str)
                .unwrap_or("the C runtime");
            let other = definers
                .iter()
                .find(|d| crt_flavour(book, d).is_none())
                .map(String::as_str)
                .unwrap_or("the project");
            if is_import_member(other) {
                let dll = member(other).unwrap_or(other);
                let import = library_file(other).unwrap_or(other);
                return (
                    format!(
                        "{dll} exports names the C runtime defines too ({crt}), and its import library {import} brings them into the link beside the CRT's"
                    ),
                    format!(
                        "an import library cannot be changed: drop {import} if nothing else of {dll} is needed, or link a build of {dll} that does not export the C runtime's names"
                    ),
                );
            }
            if let Some(library) = library_file(other) {
                return (
                    format!(
                        "{library} (its member {}) holds its own definitions of names the C runtime defines ({crt}): a library built with another runtime or toolset, or one that bundles a copy of C runtime code",
                        member(other).unwrap_or(other)
                    ),
                    format!(
                        "link a build of {library} made for this toolset and runtime (its vendor's build for your Visual Studio version and /MD or /MT), or rebuild it from source with the link's runtime option"
                    ),
                );
            }
            (
                format!(
                    "{other} defines names the C runtime defines too ({crt}): the linker brought in that CRT member for another name and found the project's definition already there"
                ),
                format!(
                    "rename the definitions in {other} (or make them static) so they no longer collide with the CRT's; to replace a CRT function on purpose, define every function of that CRT member, or none"
                ),
            )
        }
        Shape::TwoDefiners => two_libraries(definers, list)
            .unwrap_or_else(|| {
                (
                    format!("both {pair} define the names"),
                    format!(
                        "keep one definition: link only one of {pair}, or rebuild one of them without these names"
                    ),
                )
            }),
    }
}

/// Name prefixes of libraries that other libraries often bundle a copy of, with the base names
/// of the library that owns them (zlib's `inflate`, ICU's `uloc_`, SQLite's `sqlite3_`).
const BUNDLED: &[(&[&str], &[&str])] = &[
    (
        &[
            "inflate",
            "deflate",
            "crc32",
            "adler32",
            "compress",
            "uncompress",
            "gz",
            "zlib",
        ],
        &["zlib", "z"],
    ),
    (
        &[
            "u_", "uloc_", "ucnv_", "ubrk_", "ucol_", "udat_", "unum_", "ures_", "utext_", "uset_",
        ],
        &["icuuc", "icuin", "icui18n", "icudt", "icu"],
    ),
    (&["png_"], &["libpng", "png"]),
    (&["jpeg_", "tj"], &["jpeg", "libjpeg", "turbojpeg"]),
    (&["sqlite3"], &["sqlite3", "sqlite"]),
    (
        &["ssl_", "evp_", "crypto_", "bio_", "x509", "rsa_", "ec_"],
        &["libcrypto", "libssl", "libeay", "ssleay", "openssl"],
    ),
];

/// The library of `libraries` that owns `names`: its base name starts the names, or the names
/// are those of a library it is (zlib's names and `zlibstatic.lib`).
fn owner<'a>(libraries: &[&'a str], names: &[&str]) -> Option<&'a str> {
    let plain = |n: &str| {
        n.trim_start_matches("__imp_")
            .trim_start_matches('_')
            .to_ascii_lowercase()
    };
    let names: Vec<String> = names.iter().map(|n| plain(n)).collect();
    let owns = |library: &str| {
        let bases = base_names(library);
        let by_prefix = bases
            .iter()
            .any(|b| b.len() >= 3 && names.iter().all(|n| n.starts_with(b.as_str())));
        let by_table = BUNDLED.iter().any(|(prefixes, owners)| {
            bases.iter().any(|b| {
                owners
                    .iter()
                    .any(|o| b == o || (o.len() >= 3 && b.starts_with(o)))
            }) && names
                .iter()
                .all(|n| prefixes.iter().any(|p| n.starts_with(p)))
        });
        by_prefix || by_table
    };
    let owning: Vec<&'a str> = libraries.iter().copied().filter(|l| owns(l)).collect();
    match owning.as_slice() {
        [one] => Some(one),
        _ => None,
    }
}

/// Two libraries (static archives or import libraries) defining the same names: which two
/// collide, and, when the names show whose they are, that the other bundles a copy of them.
/// An import library cannot be rebuilt, so its fix is always to drop one.
fn two_libraries(definers: &[String], list: &[&Occurrence]) -> Option<(String, String)> {
    let [a, b, ..] = definers else {
        return None;
    };
    let (la, lb) = (library_file(a)?, library_file(b)?);
    let names: Vec<&str> = list.iter().map(|o| o.symbol.as_str()).collect();
    let imports = is_import_member(a) && is_import_member(b);
    let shown = some_of(&names.iter().map(|n| n.to_string()).collect::<Vec<_>>(), 3);
    match owner(&[la, lb], &names) {
        Some(own) => {
            let bundler = if own == la { lb } else { la };
            Some((
                format!(
                    "{bundler} bundles its own copy of {own}'s code ({shown}), and the link has {own} too"
                ),
                format!(
                    "link one copy: drop {own} if {bundler}'s copy serves the rest of the link, or link a build of {bundler} that does not bundle {own} (many vendors ship one, or an option to leave it out)"
                ),
            ))
        }
        None if imports => Some((
            format!(
                "two DLLs export the same names: {} (through {la}) and {} (through {lb})",
                member(a).unwrap_or(a),
                member(b).unwrap_or(b)
            ),
            format!(
                "import libraries cannot be rebuilt without names: link only one of {la} and {lb} for these names, keeping the one whose DLL the program must call"
            ),
        )),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libraries_under_two_names() {
        assert!(same_library("libcrypto.lib", "libeay32.lib"));
        assert!(same_library("libpng16.lib", "libpng16d.lib"));
        assert!(same_library("zlib.lib", "zlibstatic.lib"));
        assert!(!same_library("kernel32.lib", "user32.lib"));
        assert!(!same_library("a.lib", "b.lib"));
        assert_eq!(
            member_stem("x.lib(WordList.cxx.obj)"),
            Some("wordlist".into())
        );
        assert!(is_header("C:\\src\\util.h:3"));
        assert_eq!(
            owner(
                &["vendor_sdk.lib", "zlibstatic.lib"],
                &["inflate", "deflate"]
            ),
            Some("zlibstatic.lib")
        );
        assert_eq!(
            owner(&["myapp.lib", "sqlite3.lib"], &["sqlite3_open"]),
            Some("sqlite3.lib")
        );
        assert_eq!(owner(&["a.lib", "b.lib"], &["frobnicate"]), None);
        assert!(!is_header("C:\\src\\util.cpp:3"));
    }
}
