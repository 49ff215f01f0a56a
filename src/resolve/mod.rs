//! Resolution: each unresolved symbol to a family and library, the verdict (the rule book's
//! >50% rule), and the exact linker arguments to add.
//!
//! The diagnosis's types are here, and [`diagnose_with`], which runs the steps in order: each
//! symbol's answer (`answer.rs`; entry points in `entry_point.rs`), what the log shows already
//! linked (`linked.rs`), the names another failure class explains (`explained.rs`), the verdict
//! (`verdict.rs`), the linker arguments (`flags.rs`) and the warnings (`warnings.rs`).
//! [`providers`] matches a name against the library index (exact, dllimport, x86 decorations,
//! demangled forms, near misses) and ranks what it finds; [`toolsets`] holds the MSVC toolset
//! facts the answers and problems use.

use serde::Serialize;
use std::collections::BTreeMap;

use crate::index::discover::SearchDir;
use crate::index::Index;
use crate::read::evidence::{self, CrtDecision, Evidence};
use crate::read::linklog::Finding;
use crate::read::symbols::{LinkFailure, Shared, UnresolvedSymbol};
use crate::rules::{Classification, Flavour, RuleBook};

mod answer;
mod entry_point;
mod explained;
mod flags;
mod linked;
pub mod providers;
mod python;
pub mod toolsets;
mod verdict;
mod warnings;

pub use answer::classify;
pub use entry_point::{entry_point_name, is_entry_point, ENTRY_POINTS};
pub use linked::{linked_libraries, Linked, LinkedLibrary};

use answer::resolve_symbols;
use explained::mark_explained;
use flags::{link_flags, locate, FlagInputs};
use linked::note_log_evidence;
use verdict::{verdict_summary, Tally};
use warnings::failure_warnings;

/// The JSON schema version of [`Diagnosis`].
pub const SCHEMA_VERSION: u32 = 1;

/// One unresolved symbol with its answer.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct ResolvedSymbol {
    /// What the log said.
    #[serde(flatten)]
    pub symbol: UnresolvedSymbol,
    /// The library family (`hip-runtime`, `windows-system`, `cxx-stdlib`, `crt-startup`, `ucrt`,
    /// `vcruntime`), or `unknown` (shared by the symbols of the same family).
    pub family: Shared,
    /// The library to link, when known (for CRT families: once the flavour is known).
    pub library: Option<String>,
    /// Where the library was found on disk (filled when archives are searched).
    pub library_path: Option<Box<str>>,
    /// Where `library_path`'s directory came from: the `source` of its entry in
    /// `searched_dirs` (`--lib-dir`, `LIB`, `CUDA_PATH`, `python (VIRTUAL_ENV=DIR): torch/lib`);
    /// only when it is one of them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub library_source: Option<Box<String>>,
    /// Who answered (`null` when nobody knows the symbol).
    pub provider: Option<Answerer>,
    /// The rule or table that answered (`rule hip-prefix`, `table windows-api`).
    pub source: Option<Shared>,
    /// The DLL that exports it, when known.
    pub dll: Option<String>,
    /// The archive member (or PDB module) that defines it.
    pub member: Option<String>,
    /// The exact name the archive defines, when the log showed another form (a demangled name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_name: Option<Box<str>>,
    /// A note about the match (LNK4217, matched by demangled name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_note: Option<Box<str>>,
    /// Other libraries that also define it, in rank order.
    pub alternatives: Vec<providers::Provider>,
    /// When nothing defines it exactly: the almost-matching definitions and the likely cause.
    pub near_misses: Vec<providers::NearMiss>,
    /// The archives on disk contradict the rule book: the archives win.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_differs: Option<Box<str>>,
    /// Libraries were searched and none defines it: the answer is the rule book's alone.
    pub not_found_on_disk: bool,
    /// The answers few symbols have, in one allocation that most symbols never make (a log of
    /// 300,000 names holds 300,000 of these structs at once): read them through the accessors
    /// below. Serialized in place, after the fields above.
    #[serde(flatten)]
    pub rare: Option<Box<RareAnswer>>,
}

/// The parts of a [`ResolvedSymbol`]'s answer that only some symbols have.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct RareAnswer {
    /// When the flavour is not known: the library for each flavour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub libraries_by_flavour: Option<BTreeMap<Flavour, String>>,
    /// When the rule book's table says otherwise than the verified home.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rulebook_differs: Option<Shared>,
    /// The log shows the answer's library already in the link (a member of it references
    /// something, or a linker warning names it): it is not offered again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub already_linked: Option<LinkedLibrary>,
    /// The rule names a library that is installed but does not define the name: the path of
    /// that installed library (the SDK on disk is older or newer than the code expects).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed_lacks: Option<Box<str>>,
    /// The answer's library is the import library of the DLL this link builds (`c10.lib` while
    /// `c10.dll` is linked): the name is the output's own, its defining object is missing from
    /// the link, and no library is offered (`library` is `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub own_output: Option<Box<LinkedLibrary>>,
    /// The name is in the namespace of a known library (a rule by scope: `c10::` is c10.lib's),
    /// that library is on disk, and it does not export the name: the library's own internal
    /// (not exported) name. No library provides it, so none is offered (`library` is `None`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_exported_by: Option<Box<str>>,
    /// Another failure class explains the name (a toolset or machine mismatch): no library of
    /// the link line can satisfy it, so it is left out of the verdict and the link flags (a name
    /// the CRT before Visual Studio 2015 had keeps its add-on library, which still defines it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explained_by: Option<Explained>,
}

impl ResolvedSymbol {
    /// The rare parts, made on first write.
    pub fn rare_mut(&mut self) -> &mut RareAnswer {
        self.rare.get_or_insert_with(Default::default)
    }

    /// When the flavour is not known: the library for each flavour.
    pub fn libraries_by_flavour(&self) -> Option<&BTreeMap<Flavour, String>> {
        self.rare.as_ref()?.libraries_by_flavour.as_ref()
    }

    /// When the rule book's table says otherwise than the verified home.
    pub fn rulebook_differs(&self) -> Option<&Shared> {
        self.rare.as_ref()?.rulebook_differs.as_ref()
    }

    /// The log shows the answer's library already in the link.
    pub fn already_linked(&self) -> Option<&LinkedLibrary> {
        self.rare.as_ref()?.already_linked.as_ref()
    }

    /// The path of an installed library the rule names that does not define the name.
    pub fn installed_lacks(&self) -> Option<&str> {
        self.rare.as_ref()?.installed_lacks.as_deref()
    }

    /// Takes the installed-lacks note away (another failure explains the name); whether there
    /// was one.
    pub fn take_installed_lacks(&mut self) -> bool {
        self.rare
            .as_deref_mut()
            .and_then(|r| r.installed_lacks.take())
            .is_some()
    }

    /// The DLL this link builds, when the answer's library is its own import library.
    pub fn own_output(&self) -> Option<&LinkedLibrary> {
        self.rare.as_ref()?.own_output.as_deref()
    }

    /// The known library whose internal (not exported) name this is.
    pub fn not_exported_by(&self) -> Option<&str> {
        self.rare.as_ref()?.not_exported_by.as_deref()
    }

    /// Another failure class that explains the name.
    pub fn explained_by(&self) -> Option<&Explained> {
        self.rare.as_ref()?.explained_by.as_ref()
    }
}

/// `Some(text)`, for the rarely set text fields of [`ResolvedSymbol`] (a boxed `str` is 16
/// bytes inline where a `String` is 24).
pub(crate) fn some_text(text: impl Into<Box<str>>) -> Option<Box<str>> {
    Some(text.into())
}

/// Who answered a symbol. Serialised as `archive`, `pdb` or `rule`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Answerer {
    /// A library, object, DLL or `.def` file on disk.
    Archive,
    /// A linker PDB.
    Pdb,
    /// The rule book alone.
    Rule,
}

impl Answerer {
    /// Whether a file on disk answered (an archive or a PDB).
    pub fn on_disk(self) -> bool {
        matches!(self, Answerer::Archive | Answerer::Pdb)
    }
}

impl From<providers::ProviderSource> for Answerer {
    fn from(source: providers::ProviderSource) -> Answerer {
        match source {
            providers::ProviderSource::Archive => Answerer::Archive,
            providers::ProviderSource::Pdb => Answerer::Pdb,
        }
    }
}

/// Which failure class explains an unresolved name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ExplainedKind {
    /// The referencing code was built by another toolset than the libraries linked.
    ToolsetMismatch,
    /// The referencing code was built for another machine than the libraries searched.
    MachineMismatch,
    /// The referencing library was built for another C runtime than the rest of the link.
    CrtMismatch,
}

/// Why a name is explained by another failure class.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Explained {
    /// The class.
    pub kind: ExplainedKind,
    /// What shows it, for people.
    pub note: String,
    /// For a toolset mismatch: which side the name shows.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<crate::resolve::toolsets::Generation>,
    /// For a machine mismatch: the machine the name was built for (`x86`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name_machine: Option<crate::index::Machine>,
    /// For a machine mismatch: the machine of the libraries searched, and the library that
    /// defines the name in that machine's form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library_machine: Option<String>,
    /// For a machine mismatch: the name in the other machine's form (`malloc` for `_malloc`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub other_form: Option<String>,
}

/// The verdict kinds.
#[derive(Debug, Clone, Default, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VerdictKind {
    /// Nothing unresolved in the log.
    #[default]
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
    /// Only entry points are unresolved (`WinMain`, `main`, ... asked for by the CRT's startup
    /// code or the linker): the subsystem or entry point is wrong, no library is missing.
    EntryPoint,
    /// Every unresolved symbol is explained by another problem (a toolset or machine mismatch):
    /// no library to add.
    Explained,
    /// No record was read, but a line cut at `--max-line-bytes` held a link error: the link
    /// failed, and its records are past the limit.
    RecordsCut,
}

/// The one-line answer.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Verdict {
    /// Which kind.
    pub kind: VerdictKind,
    /// A sentence for people.
    pub summary: String,
}

/// Totals.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Counts {
    /// Distinct unresolved symbols that no other failure class explains (a machine or toolset
    /// mismatch, a pre-2015 CRT name): those a library can satisfy, the verdict's count.
    pub unresolved: usize,
    /// Of those, symbols in CRT families or Windows system libraries.
    pub crt_or_system: usize,
    /// Of those, symbols nobody knows.
    pub unknown: usize,
    /// LNK1120 counts in the log.
    pub lnk1120: Vec<u64>,
    /// lld-link stopped at its error limit: the list is incomplete.
    pub incomplete: bool,
}

/// The whole diagnosis: what `--format json` prints.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Diagnosis {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The log read (`-` for stdin).
    pub log: String,
    /// When nothing unresolved was found: what was read (encoding, lines, link-looking lines and
    /// why none was a record), so a clean log can be told from a shape lnkfix does not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read: Option<crate::read::linklog::read_summary::ReadSummary>,
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
    pub stats: crate::read::linklog::LogStats,
    /// The build system recognised from the log, and the fix in its terms (`null`: none
    /// recognised).
    pub build_system: Option<BuildSystemFix>,
    /// Every way the link failed, most fundamental first (`crate::problems`; docs/GUIDE.md,
    /// "Problems"). Empty when the log shows no failure, or until `problems::attach` ran.
    pub problems: Vec<crate::problems::problem::Problem>,
    /// Whether the log shows a failed link: an error record, a fatal `LNK1xxx`, an lld-link
    /// error, `linker command failed`.
    pub link_failed: bool,
    /// When the link failed and no problem explains it: the lines that show the failure
    /// (1-based line, text), for people to read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unrecognised: Vec<(u64, String)>,
    /// The library directories searched, in order, each with where it came from (`source`):
    /// an option, `LIB`, `HIP_PATH`, `CUDA_PATH`, `python (VIRTUAL_ENV=DIR): torch/lib`, ...
    pub searched_dirs: Vec<SearchDir>,
    /// The Python interpreter whose directories were searched (its version, pointer size and
    /// build), or why it could not be asked; `null` when none was chosen.
    pub python: Option<crate::index::discover::PythonFound>,
}

/// The build system a log shows, and the fix written for it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct BuildSystemFix {
    /// Which (`tvm-ffi`, `cmake`, `msbuild`, `cargo`, `setuptools`, `node-gyp`, `meson`).
    pub kind: crate::read::build_system::BuildSystem,
    /// 1-based line that shows it.
    pub line: u64,
    /// That line.
    pub evidence: String,
    /// The changes to make, one per line, in the build system's terms.
    pub fix: Vec<String>,
}

impl Diagnosis {
    /// Records the build system recognised in the log and phrases the fix for it.
    pub fn set_build_system(&mut self, recognised: Option<crate::read::build_system::Recognised>) {
        self.build_system = recognised.map(|r| BuildSystemFix {
            kind: r.kind,
            line: r.line,
            fix: crate::read::build_system::fix_lines(
                r.kind,
                &self.link_flags,
                self.crt.flavour,
                &self.log,
            ),
            evidence: r.evidence,
        });
    }
}

/// Options for [`diagnose`].
#[derive(Debug, Clone, Default)]
pub struct DiagnoseOptions {
    /// Force the CRT flavour (`--crt`).
    pub crt: Option<Flavour>,
    /// The log's name for the report.
    pub log_name: String,
    /// The machines of objects the log names, read from the files (evidence of what the
    /// objects were built for).
    pub object_machines: Vec<(String, crate::index::Machine)>,
}

/// The link environment searched: the library index, the directories in search order, and
/// evidence read from the build's own objects and build files.
pub struct SearchContext<'a> {
    /// The index of every library found.
    pub index: &'a Index,
    /// The directories searched, in order (for `/LIBPATH:` and the chain's libraries).
    pub dirs: &'a [SearchDir],
    /// CRT evidence from objects (`/DEFAULTLIB` directives) and `build.ninja` command lines.
    pub evidence: Vec<Evidence>,
}

/// Resolves a link failure with the rule book alone (no archives searched).
pub fn diagnose(failure: LinkFailure, book: &RuleBook, options: &DiagnoseOptions) -> Diagnosis {
    diagnose_with(failure, book, options, None)
}

/// Resolves a link failure: with a [`SearchContext`], the archives on disk decide and the rule
/// book only fills in what no archive provides; without one, the rule book answers alone.
pub fn diagnose_with(
    mut failure: LinkFailure,
    book: &RuleBook,
    options: &DiagnoseOptions,
    context: Option<&SearchContext<'_>>,
) -> Diagnosis {
    let Answered {
        symbols,
        crt,
        lacking,
    } = answer_all(&mut failure, book, options, context);
    let flavour = crt.flavour;
    let tally = Tally::new(book, &symbols);
    let verdict_kind = tally.verdict(symbols.is_empty(), failure.stats.cut_records > 0);
    let chain = default_chain(book, context, verdict_kind, flavour);

    let inputs = FlagInputs {
        book,
        symbols: &symbols,
        context,
        verdict_kind,
        crt: &crt,
    };
    let (link_flags, link_flags_by_flavour) = link_flags(&inputs, flavour);
    // LNK1120 counts every unresolved name, those another problem explains included.
    let warnings = failure_warnings(&failure, &symbols, symbols.len(), &chain, context);
    let summary = verdict_summary(
        &symbols,
        verdict_kind,
        &tally,
        flavour,
        crt.conflict.is_some(),
        &lacking,
    );
    let read = (verdict_kind == VerdictKind::NothingUnresolved).then(|| {
        let records = failure.findings.len() + failure.lnk1120_counts.len();
        crate::read::linklog::read_summary::summarize(&failure.stats, records)
    });
    Diagnosis {
        schema_version: SCHEMA_VERSION,
        log: options.log_name.clone(),
        read,
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
            unresolved: tally.unresolved,
            crt_or_system: tally.crt_or_system,
            unknown: tally.unknown,
            lnk1120: failure.lnk1120_counts,
            incomplete: failure.incomplete,
        },
        stats: failure.stats,
        build_system: None,
        problems: Vec::new(),
        link_failed: false,
        unrecognised: Vec::new(),
        searched_dirs: Vec::new(),
        python: None,
    }
}

/// Every symbol answered, with what the answers were decided on.
struct Answered {
    /// One answer per symbol, in the log's order.
    symbols: Vec<ResolvedSymbol>,
    /// The CRT flavour and its evidence.
    crt: CrtDecision,
    /// Installed libraries that lack names the code uses (of names no other problem explains).
    lacking: Vec<String>,
}

/// Names a Markdown renderer shortened: `__std_search_1` pasted from a rendered page reads
/// `std_search_1` (the `__` pair became bold and vanished). A name no rule knows whose `__` form
/// is a name of the embedded tables is looked up as that name, with a warning that says so; the
/// name as the log shows it stays the symbol's name.
/// Only names no rule classified (`classes`, one per symbol) are tried, and a restored name's
/// class is computed again.
fn restore_eaten_underscores(
    failure: &mut LinkFailure,
    classes: &mut [Option<Classification>],
    book: &RuleBook,
) {
    for (symbol, class) in failure.symbols.iter_mut().zip(classes.iter_mut()) {
        let name = symbol.lookup_name().to_string();
        if class.is_some() || name.starts_with(['_', '?']) || name.is_empty() {
            continue;
        }
        let restored = format!("__{name}");
        let known = !crate::rules::names::chain_lookup(&restored).is_empty()
            || !crate::rules::names::lookup(&restored).is_empty();
        if !known {
            continue;
        }
        symbol.warning = Some(format!(
            "read as {restored}: no name {name} exists, and a Markdown renderer turns the underscores of __{name} into bold and drops them"
        ));
        let names = symbol.names();
        let linker_name = if names.linker_name == Some(name.as_str()) {
            Some(restored.clone())
        } else {
            names.linker_name.map(str::to_string)
        };
        let (shown, display, demangled, canonical) = (
            names.name.to_string(),
            names.display.map(str::to_string),
            names.demangled.to_string(),
            names.canonical.to_string(),
        );
        symbol.set_names(crate::read::symbols::Names {
            name: &shown,
            display: display.as_deref(),
            linker_name: linker_name.as_deref(),
            demangled: &demangled,
            canonical: &canonical,
            lookup_name: &restored,
        });
        *class = classify(book, symbol);
    }
}

/// Answers every symbol of the failure (moving them out of it): the flavour from the evidence,
/// each symbol's providers on disk, then its answer, what the log already shows about it, and
/// whether another failure class explains it.
fn answer_all(
    failure: &mut LinkFailure,
    book: &RuleBook,
    options: &DiagnoseOptions,
    context: Option<&SearchContext<'_>>,
) -> Answered {
    let mut classes: Vec<Option<Classification>> =
        failure.symbols.iter().map(|s| classify(book, s)).collect();
    restore_eaten_underscores(failure, &mut classes, book);
    let extra = context.map_or(&[][..], |c| c.evidence.as_slice());
    let crt = evidence::decide(failure, &classes, book, options.crt, extra);
    let matches = find_providers(failure, book, context, crt.flavour);

    // Read from the symbols' references before they are moved out.
    let linked = linked_libraries(failure);
    let mut symbols = resolve_symbols(failure, book, classes, matches, &crt, context.is_some());
    python::answer_python(&mut symbols, &failure.python);
    // Evidence in the log: libraries already linked are not offered again, and a rule's library
    // that is installed but lacks the name is said first.
    let mut lacking = note_log_evidence(&mut symbols, &linked, context, book, failure);

    // Names another failure class explains are no library's to answer.
    mark_explained(
        book,
        &mut symbols,
        context,
        options,
        &failure.machines,
        &crt,
    );
    lacking.retain(|library| {
        symbols.iter().any(|s| {
            s.explained_by().is_none()
                && s.installed_lacks().is_some()
                && s.library.as_deref() == Some(library)
        })
    });
    Answered {
        symbols,
        crt,
        lacking,
    }
}

/// Each symbol's providers in the libraries searched (`None` for each when none were).
fn find_providers(
    failure: &LinkFailure,
    book: &RuleBook,
    context: Option<&SearchContext<'_>>,
    flavour: Option<Flavour>,
) -> Vec<Option<providers::Match>> {
    match context {
        Some(c) => {
            let demangled_index = providers::DemangledIndex::new(c.index, &failure.symbols);
            failure
                .symbols
                .iter()
                .map(|s| Some(providers::find(c.index, &demangled_index, book, s, flavour)))
                .collect()
        }
        None => vec![None; failure.symbols.len()],
    }
}

/// The default-library chain to link, as found on disk, when the verdict says it is absent and
/// the flavour is known.
fn default_chain(
    book: &RuleBook,
    context: Option<&SearchContext<'_>>,
    verdict_kind: VerdictKind,
    flavour: Option<Flavour>,
) -> Option<Vec<String>> {
    let chain_for = |f: Flavour| -> Vec<String> {
        book.chain(f)
            .iter()
            .map(|name| locate(context, name).0)
            .collect()
    };
    (verdict_kind == VerdictKind::DefaultLibChainAbsent)
        .then(|| flavour.map(chain_for))
        .flatten()
}

/// Helpers for the unit tests of resolution's steps.
#[cfg(test)]
mod test_support {
    use super::*;
    use crate::index::{LibrarySymbol, Machine};
    use std::path::Path;

    /// The link failure a log shows.
    pub(super) fn failure(log: &str) -> LinkFailure {
        crate::read::symbols::collect(
            std::io::Cursor::new(log.as_bytes().to_vec()),
            Default::default(),
        )
        .unwrap()
    }

    /// The diagnosis of a log against an index of `symbols`, with `dir` searched.
    pub(super) fn with_index(log: &str, symbols: Vec<LibrarySymbol>, dir: &Path) -> Diagnosis {
        let index = Index::from_symbols(symbols, Vec::new(), Machine::X64);
        let dirs = [SearchDir {
            path: dir.to_path_buf(),
            origin: "--lib-dir".into(),
        }];
        let context = SearchContext {
            index: &index,
            dirs: &dirs,
            evidence: Vec::new(),
        };
        diagnose_with(
            failure(log),
            &RuleBook::builtin(),
            &DiagnoseOptions::default(),
            Some(&context),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A symbol with every field set, the rare ones (boxed to keep the common symbol small)
    /// included, as `--format json` writes it.
    fn every_field() -> serde_json::Value {
        serde_json::json!({
            "name": "?f@@YAXXZ", "display": "void __cdecl f(void)", "linker_name": "?f@@YAXXZ",
            "demangled": "void __cdecl f(void)", "canonical": "void __cdecl f()", "import": true,
            "lookup_name": "?f@@YAXXZ", "x86_decoration": {"convention": "stdcall", "bytes": 8},
            "arch": "x86", "entry_point": true,
            "references": [{"object": "a.obj", "function": "main", "function_name": "_main"}],
            "reported": 3, "linkers": ["link-exe", "lld-link"], "first_line": 7,
            "hints": [{"display": "void __cdecl f(int)", "decorated": "?f@@YAXH@Z"}],
            "warning": "a warning", "family": "ucrt", "library": "ucrt.lib",
            "library_path": "/l/ucrt.lib", "provider": "archive", "source": "table crt-chain",
            "dll": "ucrtbase.dll", "member": "f.obj", "matched_name": "_f@8",
            "match_note": "by demangled name",
            "alternatives": [], "near_misses": [], "index_differs": "the archives say so",
            "not_found_on_disk": true,
            "libraries_by_flavour": {"static": "libucrt.lib", "dynamic": "ucrt.lib"},
            "rulebook_differs": "the rule book says other",
            "already_linked": {"library": "ucrt.lib", "line": 4, "evidence": "LNK4217 names it"},
            "installed_lacks": "/l/old/ucrt.lib", "not_exported_by": "c10.lib",
            "explained_by": {"kind": "machine-mismatch", "note": "x86 name",
                "generation": "older", "name_machine": "x86", "library_machine": "x64 (ucrt.lib)",
                "other_form": "f"},
        })
    }

    #[test]
    fn a_symbol_keeps_every_field_through_json() {
        let value = every_field();
        let symbol: ResolvedSymbol = serde_json::from_value(value.clone()).unwrap();
        assert_eq!(
            symbol.explained_by().unwrap().other_form.as_deref(),
            Some("f")
        );
        assert_eq!(symbol.already_linked().unwrap().line, 4);
        // Every key comes back, in the same place, with the same value.
        let again = serde_json::to_string(&symbol).unwrap();
        assert_eq!(again, serde_json::to_string(&value).unwrap());
        let copy: ResolvedSymbol = serde_json::from_str(&again).unwrap();
        assert_eq!(serde_json::to_string(&copy).unwrap(), again);
    }

    #[test]
    fn a_symbol_is_small() {
        // 300,000 distinct symbols live at once: the inline size is most of their memory (it
        // was 784 bytes with the rare fields inline, 664 with the name forms in six strings, 496
        // with the rare answers inline).
        let sizes = [
            ("ResolvedSymbol", std::mem::size_of::<ResolvedSymbol>(), 408),
            (
                "UnresolvedSymbol",
                std::mem::size_of::<UnresolvedSymbol>(),
                168,
            ),
            (
                "SymbolReference",
                std::mem::size_of::<crate::read::symbols::SymbolReference>(),
                48,
            ),
            (
                "Linkers",
                std::mem::size_of::<crate::read::symbols::Linkers>(),
                2,
            ),
        ];
        for (name, size, bound) in sizes {
            assert!(size <= bound, "{name}: {size} bytes, more than {bound}");
        }
    }
}
