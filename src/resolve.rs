//! Resolution: each unresolved symbol to a family and library, the verdict (the rule book's
//! >50% rule), and the exact linker arguments to add.

use serde::Serialize;
use std::collections::BTreeMap;

use crate::evidence::{self, CrtDecision};
use crate::linklog::Finding;
use crate::rules::{Classification, Flavour, RuleBook, SymbolKey};
use crate::symbols::{LinkFailure, UnresolvedSymbol};

/// The JSON schema version of [`Diagnosis`].
pub const SCHEMA_VERSION: u32 = 1;

/// One unresolved symbol with its answer.
#[derive(Debug, Clone, Serialize)]
pub struct ResolvedSymbol {
    /// What the log said.
    #[serde(flatten)]
    pub symbol: UnresolvedSymbol,
    /// The library family (`hip-runtime`, `windows-system`, `cxx-stdlib`, `crt-startup`, `ucrt`,
    /// `vcruntime`), or `unknown`.
    pub family: String,
    /// The library to link, when known (for CRT families: once the flavour is known).
    pub library: Option<String>,
    /// Where the library was found on disk (filled when archives are searched).
    pub library_path: Option<String>,
    /// Who answered: `archive`, `pdb`, `rule`, or `null` when nobody knows the symbol.
    pub provider: Option<String>,
    /// The rule or table that answered (`rule hip-prefix`, `table windows-api`).
    pub source: Option<String>,
    /// The DLL that exports it, when known.
    pub dll: Option<String>,
    /// When the flavour is not known: the library for each flavour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub libraries_by_flavour: Option<BTreeMap<Flavour, String>>,
    /// When the rule book's table says otherwise than the verified home.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rulebook_differs: Option<String>,
}

/// The verdict kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictKind {
    /// Nothing unresolved in the log.
    NothingUnresolved,
    /// More than half the symbols are CRT/system ones: the default-library chain is missing.
    DefaultLibChainAbsent,
    /// Only Windows system import libraries are missing (the CRT never pulls these in).
    SystemLibrariesMissing,
    /// Specific libraries are missing.
    LibrariesMissing,
    /// No rule, table or archive knows the symbols: they are the project's own, or come from a
    /// library that was not searched.
    UnknownSymbols,
}

/// The one-line answer.
#[derive(Debug, Clone, Serialize)]
pub struct Verdict {
    /// Which kind.
    pub kind: VerdictKind,
    /// A sentence for people.
    pub summary: String,
}

/// Totals.
#[derive(Debug, Clone, Serialize)]
pub struct Counts {
    /// Distinct unresolved symbols.
    pub unresolved: usize,
    /// Symbols in CRT families or Windows system libraries.
    pub crt_or_system: usize,
    /// Symbols nobody knows.
    pub unknown: usize,
    /// LNK1120 counts in the log.
    pub lnk1120: Vec<u64>,
    /// lld-link stopped at its error limit: the list is incomplete.
    pub incomplete: bool,
}

/// The whole diagnosis: what `--format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct Diagnosis {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The log read (`-` for stdin).
    pub log: String,
    /// One entry per distinct unresolved symbol.
    pub symbols: Vec<ResolvedSymbol>,
    /// The CRT flavour and its evidence.
    pub crt: CrtDecision,
    /// The answer.
    pub verdict: Verdict,
    /// The explicit default-library chain, when the verdict says it is absent.
    pub chain: Option<Vec<String>>,
    /// Linker arguments to append (decided libraries only).
    pub link_flags: Vec<String>,
    /// When the flavour is unknown: the complete arguments for each release flavour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub link_flags_by_flavour: Option<BTreeMap<Flavour, Vec<String>>>,
    /// Other linker findings (LNK2038, LNK4098, LNK1104, ...).
    pub findings: Vec<Finding>,
    /// Problems worth knowing (count mismatches, incomplete lists, demangling refusals).
    pub warnings: Vec<String>,
    /// Totals.
    pub counts: Counts,
    /// What reading the log measured.
    pub stats: crate::linklog::LogStats,
}

/// Options for [`diagnose`].
#[derive(Debug, Clone, Default)]
pub struct DiagnoseOptions {
    /// Force the CRT flavour (`--crt`).
    pub crt: Option<Flavour>,
    /// The log's name for the report.
    pub log_name: String,
}

/// Families that count as "plain CRT/system" for the rule book's >50% rule.
fn is_crt_or_system(book: &RuleBook, family: &str) -> bool {
    family == "windows-system" || book.family(family).is_some_and(|f| f.crt)
}

/// Classifies a symbol; for a name with a leading `_` that nothing knows, tries it once more
/// without (an x86 `__cdecl` name in a log that mixes x86 and x64 builds).
pub fn classify(book: &RuleBook, symbol: &UnresolvedSymbol) -> Option<Classification> {
    let key = SymbolKey {
        name: &symbol.lookup_name,
        demangled: &symbol.demangled,
        import: symbol.import,
    };
    let direct = book.classify(key);
    let generic = direct.as_ref().is_some_and(|c| c.family == "dll-import");
    if direct.is_none() || generic {
        if let Some(base) = symbol
            .lookup_name
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

/// Resolves a link failure with the rule book: the stage before the archives on disk are read.
pub fn diagnose(failure: LinkFailure, book: &RuleBook, options: &DiagnoseOptions) -> Diagnosis {
    let classes: Vec<Option<Classification>> =
        failure.symbols.iter().map(|s| classify(book, s)).collect();
    let crt = evidence::decide(&failure, &classes, book, options.crt);
    let flavour = crt.flavour;

    let mut symbols = Vec::with_capacity(failure.symbols.len());
    for (symbol, class) in failure.symbols.iter().cloned().zip(classes) {
        symbols.push(resolve_one(book, symbol, class, flavour, &crt));
    }

    let unresolved = symbols.len();
    let crt_or_system = symbols
        .iter()
        .filter(|s| is_crt_or_system(book, &s.family))
        .count();
    let crt_only = symbols
        .iter()
        .filter(|s| book.family(&s.family).is_some_and(|f| f.crt))
        .count();
    let unknown = symbols.iter().filter(|s| s.family == "unknown").count();

    let verdict_kind = if unresolved == 0 {
        VerdictKind::NothingUnresolved
    } else if crt_or_system * 2 > unresolved && crt_only > 0 {
        VerdictKind::DefaultLibChainAbsent
    } else if crt_or_system * 2 > unresolved {
        VerdictKind::SystemLibrariesMissing
    } else if unknown == unresolved {
        VerdictKind::UnknownSymbols
    } else {
        VerdictKind::LibrariesMissing
    };

    let chain_for = |f: Flavour| -> Vec<String> { book.chain(f).to_vec() };
    let chain = (verdict_kind == VerdictKind::DefaultLibChainAbsent)
        .then(|| flavour.map(chain_for))
        .flatten();

    // Libraries the symbols name for sure, in order of first need.
    let mut fixed: Vec<String> = Vec::new();
    for s in &symbols {
        let crt_family = book.family(&s.family).is_some_and(|f| f.crt);
        if let Some(library) = &s.library {
            if !crt_family && !fixed.iter().any(|l| l.eq_ignore_ascii_case(library)) {
                fixed.push(library.clone());
            }
        }
    }
    let flags_for = |f: Flavour| -> Vec<String> {
        let mut flags = fixed.clone();
        let crt_libraries: Vec<String> = if verdict_kind == VerdictKind::DefaultLibChainAbsent {
            chain_for(f)
        } else {
            symbols
                .iter()
                .filter(|s| book.family(&s.family).is_some_and(|fam| fam.crt))
                .filter_map(|s| book.family_library(&s.family, f).map(str::to_string))
                .collect()
        };
        for library in crt_libraries {
            if !flags.iter().any(|l| l.eq_ignore_ascii_case(&library)) {
                flags.push(library);
            }
        }
        flags
    };
    let needs_crt = symbols
        .iter()
        .any(|s| book.family(&s.family).is_some_and(|f| f.crt));
    let (link_flags, link_flags_by_flavour) = match flavour {
        Some(f) => (flags_for(f), None),
        None if needs_crt => {
            let by: BTreeMap<Flavour, Vec<String>> = [Flavour::Static, Flavour::Dynamic]
                .into_iter()
                .map(|f| (f, flags_for(f)))
                .collect();
            (fixed.clone(), Some(by))
        }
        None => (fixed.clone(), None),
    };

    let mut warnings = Vec::new();
    for count in &failure.lnk1120_counts {
        if *count as usize != unresolved && failure.lnk1120_counts.len() == 1 {
            warnings.push(format!(
                "LNK1120 reports {count} unresolved externals but the log shows {unresolved} distinct symbols: {}",
                if (*count as usize) > unresolved {
                    "the log is an excerpt, or some errors were cut"
                } else {
                    "the log holds more than one link"
                }
            ));
        }
    }
    if failure.lnk1120_counts.len() > 1 {
        warnings.push(format!(
            "the log holds {} links (LNK1120 counts {:?}); their symbols are reported together",
            failure.lnk1120_counts.len(),
            failure.lnk1120_counts
        ));
    }
    if failure.incomplete {
        warnings.push(
            "lld-link stopped after its error limit: the list is incomplete (relink with /errorlimit:0)".into(),
        );
    }
    if failure.stats.truncated_lines > 0 {
        warnings.push(format!(
            "{} lines were longer than the limit and were cut (--max-line-bytes)",
            failure.stats.truncated_lines
        ));
    }
    for s in &symbols {
        if let Some(w) = &s.symbol.warning {
            warnings.push(format!("{}: {w}", s.symbol.name));
        }
    }

    let summary = summary_line(verdict_kind, unresolved, crt_or_system, unknown, flavour);
    Diagnosis {
        schema_version: SCHEMA_VERSION,
        log: options.log_name.clone(),
        symbols,
        crt,
        verdict: Verdict {
            kind: verdict_kind,
            summary,
        },
        chain,
        link_flags,
        link_flags_by_flavour,
        findings: failure.findings,
        warnings,
        counts: Counts {
            unresolved,
            crt_or_system,
            unknown,
            lnk1120: failure.lnk1120_counts,
            incomplete: failure.incomplete,
        },
        stats: failure.stats,
    }
}

fn resolve_one(
    book: &RuleBook,
    symbol: UnresolvedSymbol,
    class: Option<Classification>,
    flavour: Option<Flavour>,
    crt: &CrtDecision,
) -> ResolvedSymbol {
    let Some(class) = class else {
        return ResolvedSymbol {
            symbol,
            family: "unknown".into(),
            library: None,
            library_path: None,
            provider: None,
            source: None,
            dll: None,
            libraries_by_flavour: None,
            rulebook_differs: None,
        };
    };
    let mut library = class.library.clone();
    let mut libraries_by_flavour = None;
    if library.is_none() {
        match flavour {
            Some(f) => library = book.family_library(&class.family, f).map(str::to_string),
            None => {
                let debug = crt.evidence.iter().any(|e| e.debug == Some(true));
                let flavours = if debug {
                    [Flavour::StaticDebug, Flavour::DynamicDebug]
                } else {
                    [Flavour::Static, Flavour::Dynamic]
                };
                let by: BTreeMap<Flavour, String> = flavours
                    .into_iter()
                    .filter_map(|f| {
                        book.family_library(&class.family, f)
                            .map(|l| (f, l.to_string()))
                    })
                    .collect();
                if !by.is_empty() {
                    libraries_by_flavour = Some(by);
                }
            }
        }
    }
    ResolvedSymbol {
        symbol,
        family: class.family,
        library,
        library_path: None,
        provider: Some("rule".into()),
        source: Some(class.source),
        dll: class.dll,
        libraries_by_flavour,
        rulebook_differs: class.rulebook_differs,
    }
}

fn summary_line(
    kind: VerdictKind,
    unresolved: usize,
    crt_or_system: usize,
    unknown: usize,
    flavour: Option<Flavour>,
) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    match kind {
        VerdictKind::NothingUnresolved => "no unresolved symbols in the log".into(),
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
        VerdictKind::UnknownSymbols => format!(
            "{unresolved} unresolved symbol{} that no rule or library knows: they are probably the project's own (a missing source file, template instantiation or export), or from a library not searched",
            plural(unresolved)
        ),
    }
}
