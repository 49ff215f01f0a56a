//! CRT flavour from evidence, never by guess: command-line options and directives in the log,
//! LNK2038/LNK4098 texts, dllimport references to CRT functions, debug-only CRT names, and
//! references from CRT archives. `--crt` forces a flavour.

use serde::{Deserialize, Serialize};

use crate::read::linklog::Finding;
use crate::read::symbols::{LinkFailure, UnresolvedSymbol};
use crate::rules::{Classification, Flavour, RuleBook};

/// Where a piece of CRT evidence comes from. Serialised (and shown) as the words in quotes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum EvidenceSource {
    /// `--crt` forces the flavour.
    #[serde(rename = "--crt")]
    Forced,
    /// A CRT-selecting option on a command line in the log.
    #[serde(rename = "command line")]
    CommandLine,
    /// An LNK2038 `RuntimeLibrary` mismatch text.
    #[serde(rename = "LNK2038")]
    Lnk2038,
    /// An LNK4098 `defaultlib conflicts` text.
    #[serde(rename = "LNK4098")]
    Lnk4098,
    /// A `/DEFAULTLIB` directive in one of the build's objects.
    #[serde(rename = "object directive")]
    ObjectDirective,
    /// An object of the build that names no CRT library.
    #[serde(rename = "object without CRT directive")]
    ObjectWithoutCrtDirective,
    /// The build's `build.ninja`.
    #[serde(rename = "build.ninja")]
    BuildNinja,
    /// A dllimport reference to a CRT function.
    #[serde(rename = "dllimport CRT symbol")]
    DllimportCrtSymbol,
    /// A plain (not dllimport) reference to a UCRT function: weak evidence.
    #[serde(rename = "plain UCRT reference")]
    PlainUcrtReference,
    /// A name only the debug CRT defines.
    #[serde(rename = "debug-only symbol")]
    DebugOnlySymbol,
    /// A reference from a member of a CRT archive.
    #[serde(rename = "CRT archive reference")]
    CrtArchiveReference,
}

impl EvidenceSource {
    /// The words it is serialised and shown as (`command line`, `LNK2038`).
    pub fn as_str(self) -> &'static str {
        match self {
            EvidenceSource::Forced => "--crt",
            EvidenceSource::CommandLine => "command line",
            EvidenceSource::Lnk2038 => "LNK2038",
            EvidenceSource::Lnk4098 => "LNK4098",
            EvidenceSource::ObjectDirective => "object directive",
            EvidenceSource::ObjectWithoutCrtDirective => "object without CRT directive",
            EvidenceSource::BuildNinja => "build.ninja",
            EvidenceSource::DllimportCrtSymbol => "dllimport CRT symbol",
            EvidenceSource::PlainUcrtReference => "plain UCRT reference",
            EvidenceSource::DebugOnlySymbol => "debug-only symbol",
            EvidenceSource::CrtArchiveReference => "CRT archive reference",
        }
    }
}

impl std::fmt::Display for EvidenceSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What one piece of evidence says about the CRT.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Evidence {
    /// Where it comes from.
    pub source: EvidenceSource,
    /// `Some(true)` for the DLL CRT, `Some(false)` for the static one, `None` when it says nothing.
    pub dynamic: Option<bool>,
    /// `Some(true)` for a debug CRT, `Some(false)` for release, `None` when it says nothing.
    pub debug: Option<bool>,
    /// The text it was read from.
    pub detail: String,
    /// 1-based line in the log, when it came from one.
    pub line: Option<u64>,
}

impl Evidence {
    fn strength(&self) -> u8 {
        match self.source {
            EvidenceSource::Forced => 5,
            EvidenceSource::CommandLine
            | EvidenceSource::Lnk2038
            | EvidenceSource::ObjectDirective
            | EvidenceSource::BuildNinja => 4,
            EvidenceSource::Lnk4098 => 3,
            EvidenceSource::DllimportCrtSymbol | EvidenceSource::DebugOnlySymbol => 2,
            EvidenceSource::PlainUcrtReference
            | EvidenceSource::ObjectWithoutCrtDirective
            | EvidenceSource::CrtArchiveReference => 1,
        }
    }
}

/// The flavour chosen and why.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct CrtDecision {
    /// The chosen flavour, or `None` when nothing in the evidence tells.
    pub flavour: Option<Flavour>,
    /// Every piece of evidence considered.
    pub evidence: Vec<Evidence>,
    /// When the evidence disagrees: which sources say what. That disagreement is itself a
    /// diagnosis (a mixed build).
    pub conflict: Option<String>,
    /// Notes on how the choice was made (`release assumed: ...`).
    pub notes: Vec<String>,
}

/// What a library name (`msvcrt`, `LIBCMT.lib`, `MSVCRTD`) says about the flavour.
pub fn flavour_of_library(book: &RuleBook, library: &str) -> Option<Flavour> {
    let name = library.trim_matches(['"', '\'']).to_ascii_lowercase();
    let name = if name.ends_with(".lib") {
        name
    } else {
        format!("{name}.lib")
    };
    let found = book.crt_library_flavours(&name);
    found
        .first()
        .map(|(_, f)| *f)
        .or_else(|| legacy_crt_flavour(&name))
}

/// The C runtimes of Visual C++ 2003 and older that current toolsets no longer ship, by the
/// flavour a link sees them as: the single-threaded CRT (`/ML`: `libc.lib`, `libcp.lib`; `/MLd`:
/// `libcd.lib`, `libcpd.lib`) is a static CRT, and the old iostream libraries (`libci`,
/// `libcimt`, `msvcirt` and their debug `d`) follow their CRT (docs/RULES.md §3). A link that
/// mixes one of them with a current CRT is a CRT mismatch like any other.
pub fn legacy_crt_flavour(library: &str) -> Option<Flavour> {
    let name = library.to_ascii_lowercase();
    let stem = name.strip_suffix(".lib").unwrap_or(&name);
    Some(match stem {
        "libc" | "libcp" | "libci" | "libcimt" => Flavour::Static,
        "libcd" | "libcpd" | "libcid" | "libcimtd" => Flavour::StaticDebug,
        "msvcirt" => Flavour::Dynamic,
        "msvcirtd" => Flavour::DynamicDebug,
        _ => return None,
    })
}

/// What a compiler option says: `/MD`, `-fms-runtime-lib=dll_dbg`, `--dependent-lib=msvcrt`.
pub fn flavour_of_option(book: &RuleBook, option: &str) -> (Option<bool>, Option<bool>) {
    let parts = |f: Flavour| (Some(f.is_dynamic()), Some(f.is_debug()));
    let body = option.trim_start_matches(['/', '-']);
    match body {
        "MT" => return parts(Flavour::Static),
        "MTd" => return parts(Flavour::StaticDebug),
        "MD" => return parts(Flavour::Dynamic),
        "MDd" => return parts(Flavour::DynamicDebug),
        "D_DLL" => return (Some(true), None),
        _ => {}
    }
    if let Some(value) = body.strip_prefix("fms-runtime-lib=") {
        return match value {
            "static" => parts(Flavour::Static),
            "static_dbg" => parts(Flavour::StaticDebug),
            "dll" => parts(Flavour::Dynamic),
            "dll_dbg" => parts(Flavour::DynamicDebug),
            _ => (None, None),
        };
    }
    let library = body
        .strip_prefix("-dependent-lib=")
        .or_else(|| body.strip_prefix("dependent-lib="))
        .or_else(|| {
            body.get(..11)
                .filter(|p| p.eq_ignore_ascii_case("DEFAULTLIB:"))
                .map(|_| &body[11..])
        });
    match library.and_then(|l| flavour_of_library(book, l)) {
        Some(f) => parts(f),
        None => (None, None),
    }
}

/// Evidence from the build's own objects: the `/DEFAULTLIB` directives cl and clang-cl write into
/// `.drectve`, and which objects carry none (hipcc's GNU-style driver writes none, docs/RULES.md §3).
pub fn from_objects(book: &RuleBook, objects: &crate::index::Index) -> Vec<Evidence> {
    let mut out = Vec::new();
    for info in objects.libraries() {
        if info.format != crate::index::FileFormat::Object {
            continue;
        }
        let name = info.path.to_string_lossy();
        let mut any = false;
        for library in &info.default_libs {
            if let Some(f) = flavour_of_library(book, library) {
                any = true;
                out.push(Evidence {
                    source: EvidenceSource::ObjectDirective,
                    dynamic: Some(f.is_dynamic()),
                    debug: Some(f.is_debug()),
                    detail: format!("{name}: /DEFAULTLIB:{library}"),
                    line: None,
                });
            }
        }
        if !any {
            out.push(Evidence {
                source: EvidenceSource::ObjectWithoutCrtDirective,
                dynamic: None,
                debug: None,
                detail: format!(
                    "{name} names no CRT library (built by hipcc/clang's GNU driver, or with /Zl)"
                ),
                line: None,
            });
        }
    }
    out
}

/// Evidence from a `build.ninja`: the CRT options on its compile and link command lines.
pub fn from_build_file(book: &RuleBook, path: &std::path::Path) -> std::io::Result<Vec<Evidence>> {
    let file = crate::files::open::open_regular(path)?;
    let failure = crate::read::symbols::collect(file, Default::default())?;
    let mut out = Vec::new();
    for option in &failure.crt_options {
        let (dynamic, debug) = flavour_of_option(book, &option.option);
        if dynamic.is_some() || debug.is_some() {
            out.push(Evidence {
                source: EvidenceSource::BuildNinja,
                dynamic,
                debug,
                detail: format!("{}: {}", path.display(), option.option),
                line: Some(option.line),
            });
        }
    }
    Ok(out)
}

/// The flavour of a `RuntimeLibrary` value of LNK2038 (`MT_StaticRelease` → static).
pub fn runtime_library_value(value: &str) -> Option<Flavour> {
    match value {
        "MT_StaticRelease" => Some(Flavour::Static),
        "MTd_StaticDebug" => Some(Flavour::StaticDebug),
        "MD_DynamicRelease" => Some(Flavour::Dynamic),
        "MDd_DynamicDebug" => Some(Flavour::DynamicDebug),
        _ => None,
    }
}

/// The archive file of a reference like `libcpmt.lib(winapisupp.obj)`.
fn archive_of(object: &str) -> Option<&str> {
    let open = object.rfind('(')?;
    let path = &object[..open];
    let file = path.rsplit(['\\', '/']).next()?;
    file.to_ascii_lowercase().ends_with(".lib").then_some(file)
}

/// Gathers the evidence in a log and decides the flavour.
pub fn decide(
    failure: &LinkFailure,
    classes: &[Option<Classification>],
    book: &RuleBook,
    forced: Option<Flavour>,
    extra: &[Evidence],
) -> CrtDecision {
    let mut evidence = Vec::new();
    if let Some(f) = forced {
        evidence.push(Evidence {
            source: EvidenceSource::Forced,
            dynamic: Some(f.is_dynamic()),
            debug: Some(f.is_debug()),
            detail: format!("--crt {}", f.name()),
            line: None,
        });
    }
    evidence.extend(extra.iter().cloned());
    for option in &failure.crt_options {
        let (dynamic, debug) = flavour_of_option(book, &option.option);
        if dynamic.is_some() || debug.is_some() {
            evidence.push(Evidence {
                source: EvidenceSource::CommandLine,
                dynamic,
                debug,
                detail: option.option.clone(),
                line: Some(option.line),
            });
        }
    }
    for finding in &failure.findings {
        finding_evidence(book, finding, &mut evidence);
    }
    for (symbol, class) in failure.symbols.iter().zip(classes) {
        symbol_evidence(book, symbol, class.as_ref(), &mut evidence);
    }
    choose(evidence)
}

/// The evidence of one linker finding: LNK2038's `RuntimeLibrary` and `_ITERATOR_DEBUG_LEVEL`
/// values, and the library LNK4098 names.
fn finding_evidence(book: &RuleBook, finding: &Finding, evidence: &mut Vec<Evidence>) {
    match finding.code.as_str() {
        "LNK2038" if finding.values.first().map(String::as_str) == Some("RuntimeLibrary") => {
            for (i, value) in finding.values.iter().skip(1).enumerate() {
                if let Some(f) = runtime_library_value(value) {
                    let object = finding.objects.get(i).cloned().unwrap_or_default();
                    evidence.push(Evidence {
                        source: EvidenceSource::Lnk2038,
                        dynamic: Some(f.is_dynamic()),
                        debug: Some(f.is_debug()),
                        detail: format!("{object}: RuntimeLibrary {value}"),
                        line: Some(finding.line),
                    });
                }
            }
        }
        "LNK2038"
            if finding.values.first().map(String::as_str) == Some("_ITERATOR_DEBUG_LEVEL") =>
        {
            for (i, value) in finding.values.iter().skip(1).enumerate() {
                let object = finding.objects.get(i).cloned().unwrap_or_default();
                evidence.push(Evidence {
                    source: EvidenceSource::Lnk2038,
                    dynamic: None,
                    debug: Some(value != "0"),
                    detail: format!("{object}: _ITERATOR_DEBUG_LEVEL {value}"),
                    line: Some(finding.line),
                });
            }
        }
        "LNK4098" => {
            if let Some(f) = finding
                .values
                .first()
                .and_then(|l| flavour_of_library(book, l))
            {
                evidence.push(Evidence {
                    source: EvidenceSource::Lnk4098,
                    dynamic: Some(f.is_dynamic()),
                    debug: Some(f.is_debug()),
                    detail: format!(
                        "defaultlib '{}' is requested by some objects",
                        finding.values[0]
                    ),
                    line: Some(finding.line),
                });
            }
        }
        _ => {}
    }
}

/// The evidence of one unresolved symbol: a dllimport CRT reference, a plain UCRT reference
/// from the project's own object, a debug-only name, and references from CRT archives (each
/// archive member once).
fn symbol_evidence(
    book: &RuleBook,
    symbol: &UnresolvedSymbol,
    class: Option<&Classification>,
    evidence: &mut Vec<Evidence>,
) {
    let crt = class.is_some_and(|c| book.is_crt_family(&c.family));
    if symbol.import && crt {
        evidence.push(Evidence {
            source: EvidenceSource::DllimportCrtSymbol,
            dynamic: Some(true),
            debug: None,
            detail: symbol.name().to_string(),
            line: Some(symbol.first_line),
        });
    }
    if !symbol.import
        && class.is_some_and(|c| c.family == "ucrt")
        && !is_compiler_intrinsic(symbol.lookup_name())
    {
        evidence.extend(plain_ucrt_reference(symbol));
    }
    if book.is_debug_only(symbol.lookup_name()) {
        evidence.push(Evidence {
            source: EvidenceSource::DebugOnlySymbol,
            dynamic: None,
            debug: Some(true),
            detail: format!("{} exists only in the debug CRT", symbol.lookup_name()),
            line: Some(symbol.first_line),
        });
    }
    for reference in &symbol.references {
        let archive = reference.object.as_deref().and_then(archive_of);
        if let Some(f) = archive.and_then(|a| flavour_of_library(book, a)) {
            let detail = format!(
                "{} is part of the CRT",
                reference.object.as_deref().unwrap_or_default()
            );
            if !evidence.iter().any(|e: &Evidence| e.detail == detail) {
                evidence.push(Evidence {
                    source: EvidenceSource::CrtArchiveReference,
                    dynamic: Some(f.is_dynamic()),
                    debug: Some(f.is_debug()),
                    detail,
                    line: Some(symbol.first_line),
                });
            }
        }
    }
}

/// A plain (not `__imp_`) reference to a UCRT function from the project's own object: weak
/// evidence of the static CRT.
fn plain_ucrt_reference(symbol: &UnresolvedSymbol) -> Option<Evidence> {
    // The DLL CRT's headers declare UCRT functions dllimport, so code compiled for /MD
    // references them as __imp_X; a plain X from the project's own object means it was
    // compiled for the static CRT. Weaker than a compiler option: an object compiled
    // without the CRT headers' declarations references X plainly too.
    let object = symbol.references.iter().find_map(|r| {
        r.object.as_deref().filter(|o| {
            let lower = o.to_ascii_lowercase();
            !o.contains('(') && (lower.ends_with(".obj") || lower.ends_with(".o"))
        })
    })?;
    Some(Evidence {
        source: EvidenceSource::PlainUcrtReference,
        dynamic: Some(false),
        debug: None,
        detail: format!(
            "{} is referenced without __imp_ by {object}: compiled for the static CRT (weak: no compiler option says so)",
            symbol.lookup_name()
        ),
        line: Some(symbol.first_line),
    })
}

/// Decides the flavour from the evidence: the strongest vote for linkage and for debug, a
/// conflict when firm votes disagree, notes for what was assumed or not known.
fn choose(evidence: Vec<Evidence>) -> CrtDecision {
    let mut decision = CrtDecision::default();
    let strongest = |pick: &dyn Fn(&Evidence) -> Option<bool>| -> (Option<bool>, bool) {
        let votes: Vec<(&Evidence, bool)> = evidence
            .iter()
            .filter_map(|e| pick(e).map(|v| (e, v)))
            .collect();
        // Weak evidence (a plain UCRT reference) never makes a mixed build on its own.
        let firm: Vec<bool> = votes
            .iter()
            .filter(|(e, _)| e.source != EvidenceSource::PlainUcrtReference)
            .map(|(_, v)| *v)
            .collect();
        let conflict = firm.iter().any(|v| *v) && firm.iter().any(|v| !*v);
        let best = votes
            .iter()
            .max_by_key(|(e, _)| e.strength())
            .map(|(_, v)| *v);
        (best, conflict)
    };
    let (dynamic, linkage_conflict) = strongest(&|e| e.dynamic);
    // A debug-only name can only be satisfied by a debug library: it outweighs a release vote.
    let debug_symbol = evidence
        .iter()
        .any(|e| e.source == EvidenceSource::DebugOnlySymbol);
    let (debug, debug_conflict) = strongest(&|e| e.debug);
    let forced = evidence.iter().any(|e| e.source == EvidenceSource::Forced);
    let debug = if debug_symbol && !forced {
        Some(true)
    } else {
        debug
    };

    if linkage_conflict || debug_conflict {
        decision.conflict = Some(conflict_text(&evidence));
    }
    decision.flavour = match (dynamic, debug) {
        (Some(d), Some(g)) => Some(Flavour::from_parts(d, g)),
        (Some(d), None) => {
            decision
                .notes
                .push("release assumed: nothing in the evidence asks for the debug CRT".into());
            Some(Flavour::from_parts(d, false))
        }
        _ => None,
    };
    if decision.flavour.is_none() {
        decision.notes.push(if evidence.is_empty() {
            "no evidence of the CRT flavour in the log: both are shown (pass --crt, or the objects with --objects)".into()
        } else {
            "the evidence does not say static or DLL CRT: both are shown (pass --crt)".into()
        });
    }
    decision.evidence = evidence;
    decision
}

/// What a mixed build's evidence says, piece by piece.
fn conflict_text(evidence: &[Evidence]) -> String {
    let describe = |e: &Evidence| {
        let linkage = match e.dynamic {
            Some(true) => "DLL CRT",
            Some(false) => "static CRT",
            None => "",
        };
        let debug = match e.debug {
            Some(true) => " debug",
            Some(false) => " release",
            None => "",
        };
        format!(
            "{} says{}{} ({})",
            e.source,
            debug,
            if linkage.is_empty() {
                "".into()
            } else {
                format!(" {linkage}")
            },
            e.detail
        )
    };
    let lines: Vec<String> = evidence.iter().map(describe).collect();
    format!(
        "the evidence disagrees (a mixed build: objects compiled for different CRTs): {}",
        lines.join("; ")
    )
}

/// Functions the compiler may call by their plain name whatever the CRT flavour (intrinsics and
/// the math functions it inlines or calls directly under /Oi), so a plain reference to them says
/// nothing about the flavour.
fn is_compiler_intrinsic(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "memcpy", "memmove", "memset", "memcmp", "memchr", "strlen", "strcmp", "strcpy", "strcat",
        "strset", "_strset", "wcslen", "wcscmp", "wcscpy", "wcscat", "abs", "labs", "llabs",
        "_abs64", "fabs", "_alloca", "acos", "asin", "atan", "atan2", "ceil", "cos", "cosh", "exp",
        "floor", "fmod", "log", "log10", "pow", "sin", "sinh", "sqrt", "tan", "tanh", "_rotl",
        "_rotr", "_lrotl", "_lrotr", "_rotl64", "_rotr64",
    ];
    let base = name
        .strip_suffix('f')
        .filter(|b| NAMES.contains(b))
        .unwrap_or(name);
    NAMES.contains(&base) || name.starts_with("_byteswap_") || name.starts_with("_Cbuild")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_map_to_flavours() {
        let book = RuleBook::builtin();
        assert_eq!(flavour_of_option(&book, "/MD"), (Some(true), Some(false)));
        assert_eq!(flavour_of_option(&book, "-MTd"), (Some(false), Some(true)));
        assert_eq!(
            flavour_of_option(&book, "-fms-runtime-lib=dll_dbg"),
            (Some(true), Some(true))
        );
        assert_eq!(
            flavour_of_option(&book, "--dependent-lib=msvcrt"),
            (Some(true), Some(false))
        );
        assert_eq!(
            flavour_of_option(&book, "/DEFAULTLIB:LIBCMT"),
            (Some(false), Some(false))
        );
        assert_eq!(flavour_of_option(&book, "-D_DLL"), (Some(true), None));
        assert_eq!(
            flavour_of_option(&book, "/DEFAULTLIB:kernel32"),
            (None, None)
        );
        assert_eq!(
            archive_of("C:\\x\\libcpmt.lib(winapisupp.obj)"),
            Some("libcpmt.lib")
        );
    }

    fn decide_log(log: &str, forced: Option<Flavour>) -> CrtDecision {
        let book = RuleBook::builtin();
        let failure = crate::read::symbols::collect(
            std::io::Cursor::new(log.as_bytes().to_vec()),
            Default::default(),
        )
        .unwrap();
        let classes: Vec<_> = failure
            .symbols
            .iter()
            .map(|s| {
                book.classify(crate::rules::SymbolKey {
                    name: s.lookup_name(),
                    demangled: s.demangled(),
                    import: s.import,
                })
            })
            .collect();
        decide(&failure, &classes, &book, forced, &[])
    }

    #[test]
    fn plain_ucrt_references_say_static_weakly() {
        let d = decide_log(
            "app.obj : error LNK2019: unresolved external symbol _getch referenced in function main\n",
            None,
        );
        assert_eq!(d.flavour, Some(Flavour::Static));
        assert!(d
            .evidence
            .iter()
            .any(|e| e.source == EvidenceSource::PlainUcrtReference));
        // An intrinsic says nothing; a CRT library member is not the project's code.
        let d = decide_log(
            "app.obj : error LNK2019: unresolved external symbol strlen referenced in function main\n",
            None,
        );
        assert!(!d
            .evidence
            .iter()
            .any(|e| e.source == EvidenceSource::PlainUcrtReference));
        // A command-line option outweighs it.
        let d = decide_log(
            "cl /MD /c app.cpp\napp.obj : error LNK2019: unresolved external symbol _getch referenced in function main\n",
            None,
        );
        assert_eq!(d.flavour, Some(Flavour::Dynamic));
        assert!(d.conflict.is_none(), "weak evidence is no mixed build");
    }

    #[test]
    fn dllimport_crt_and_debug_only_symbols() {
        let d = decide_log(
            "a.obj : error LNK2001: unresolved external symbol __imp__CrtDbgReport\n",
            None,
        );
        assert_eq!(d.flavour, Some(Flavour::DynamicDebug));
        let d = decide_log(
            "a.obj : error LNK2001: unresolved external symbol __CxxFrameHandler4\n",
            None,
        );
        assert_eq!(d.flavour, None);
        assert!(d.notes[0].contains("both"));
    }

    #[test]
    fn conflicting_evidence_is_reported_and_strongest_wins() {
        let log = "cl /MD /c a.cpp\nb.obj : error LNK2038: mismatch detected for 'RuntimeLibrary': value 'MT_StaticRelease' doesn't match value 'MD_DynamicRelease' in a.obj\n\
                   libcpmt.lib(x.obj) : error LNK2001: unresolved external symbol __imp_wcsnlen\n";
        let d = decide_log(log, None);
        assert!(
            d.conflict.as_ref().unwrap().contains("static CRT"),
            "{:?}",
            d.conflict
        );
        assert!(d.flavour.unwrap().is_dynamic());
        let d = decide_log(log, Some(Flavour::Static));
        assert_eq!(d.flavour, Some(Flavour::Static));
    }
}
