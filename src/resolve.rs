//! Resolution: each unresolved symbol to a family and library, the verdict (the rule book's
//! >50% rule), and the exact linker arguments to add.

use serde::Serialize;
use std::collections::BTreeMap;

use crate::discover::{self, SearchDir};
use crate::evidence::{self, CrtDecision, Evidence};
use crate::index::Index;
use crate::linklog::Finding;
use crate::providers;
use crate::rules::{Classification, Flavour, RuleBook, SymbolKey};
use crate::symbols::{LinkFailure, UnresolvedSymbol};

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
    /// `vcruntime`), or `unknown`.
    pub family: String,
    /// The library to link, when known (for CRT families: once the flavour is known).
    pub library: Option<String>,
    /// Where the library was found on disk (filled when archives are searched).
    pub library_path: Option<String>,
    /// Who answered (`null` when nobody knows the symbol).
    pub provider: Option<Answerer>,
    /// The rule or table that answered (`rule hip-prefix`, `table windows-api`).
    pub source: Option<String>,
    /// The DLL that exports it, when known.
    pub dll: Option<String>,
    /// The archive member (or PDB module) that defines it.
    pub member: Option<String>,
    /// The exact name the archive defines, when the log showed another form (a demangled name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_name: Option<String>,
    /// A note about the match (LNK4217, matched by demangled name).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub match_note: Option<String>,
    /// Other libraries that also define it, in rank order.
    pub alternatives: Vec<providers::Provider>,
    /// When nothing defines it exactly: the almost-matching definitions and the likely cause.
    pub near_misses: Vec<providers::NearMiss>,
    /// The archives on disk contradict the rule book: the archives win.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub index_differs: Option<String>,
    /// Libraries were searched and none defines it: the answer is the rule book's alone.
    pub not_found_on_disk: bool,
    /// When the flavour is not known: the library for each flavour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub libraries_by_flavour: Option<BTreeMap<Flavour, String>>,
    /// When the rule book's table says otherwise than the verified home.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rulebook_differs: Option<String>,
    /// The log shows the answer's library already in the link (a member of it references
    /// something, or a linker warning names it): it is not offered again.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub already_linked: Option<LinkedLibrary>,
    /// The rule names a library that is installed but does not define the name: the path of
    /// that installed library (the SDK on disk is older or newer than the code expects).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub installed_lacks: Option<String>,
    /// Another failure class explains the name (a toolset or machine mismatch): no library of
    /// the link line can satisfy it, so it is left out of the verdict and the link flags (a name
    /// the CRT before Visual Studio 2015 had keeps its add-on library, which still defines it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explained_by: Option<Explained>,
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
    pub generation: Option<crate::toolsets::Generation>,
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

/// A library the log shows in the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LinkedLibrary {
    /// The library's file name as the log wrote it (`oldnames.lib`).
    pub library: String,
    /// 1-based line of the evidence.
    pub line: u64,
    /// What shows it (`a member of it references a symbol`, `LNK4217 names it`).
    pub evidence: String,
}

/// The CRT libraries the log shows in the link: libraries already linked, and CRT library names
/// in the evidence (`/DEFAULTLIB:LIBCMT`, LNK4098's `'LIBCMT'`), as `libcmt.lib`, first seen first.
fn shown_crt_libraries(
    book: &RuleBook,
    linked: &[LinkedLibrary],
    crt: &CrtDecision,
) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut add = |name: &str| {
        let lower = name.to_ascii_lowercase();
        let lower = if lower.ends_with(".lib") {
            lower
        } else {
            format!("{lower}.lib")
        };
        if !book.crt_library_flavours(&lower).is_empty() && !out.contains(&lower) {
            out.push(lower);
        }
    };
    for library in linked {
        add(&library.library);
    }
    for evidence in &crt.evidence {
        for word in evidence
            .detail
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_'))
            .filter(|w| !w.is_empty())
        {
            add(word);
        }
    }
    out
}

/// The file name of a library in `lib.lib(member.obj)` or a path to it, when `text` names one.
fn library_in(text: &str) -> Option<String> {
    let text = text.trim_matches(['\'', '"']);
    let head = match text.find('(') {
        Some(at) => &text[..at],
        None => return None,
    };
    let name = head.rsplit(['\\', '/']).next().unwrap_or(head).trim();
    let lower = name.to_ascii_lowercase();
    (lower.ends_with(".lib") || lower.ends_with(".a")).then(|| name.to_string())
}

/// The libraries the log shows already in the link: the library part of a referencing
/// `lib.lib(member.obj)`, and libraries named by linker warnings that only a linked library
/// produces (LNK4217, LNK4286, LNK4006, LNK2005). `/DEFAULTLIB` options are not counted: a
/// `/NODEFAULTLIB` elsewhere may cancel them.
pub fn linked_libraries(failure: &LinkFailure) -> Vec<LinkedLibrary> {
    let mut out: Vec<LinkedLibrary> = Vec::new();
    let mut add = |library: String, line: u64, evidence: &str| {
        if !out.iter().any(|l| l.library.eq_ignore_ascii_case(&library)) {
            out.push(LinkedLibrary {
                library,
                line,
                evidence: evidence.to_string(),
            });
        }
    };
    for symbol in &failure.symbols {
        for reference in &symbol.references {
            if let Some(library) = reference.object.as_deref().and_then(library_in) {
                add(
                    library,
                    symbol.first_line,
                    "a member of it references an unresolved symbol",
                );
            }
        }
    }
    for finding in &failure.findings {
        if !["LNK4217", "LNK4286", "LNK4006", "LNK2005"].contains(&finding.code.as_str()) {
            continue;
        }
        for text in finding.values.iter().chain(&finding.objects) {
            if let Some(library) = library_in(text) {
                add(
                    library,
                    finding.line,
                    &format!("{} names a member of it", finding.code),
                );
            }
        }
    }
    out
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
    pub read: Option<crate::linklog::read_summary::ReadSummary>,
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
    /// The build system recognised from the log, and the fix in its terms (`null`: none
    /// recognised).
    pub build_system: Option<BuildSystemFix>,
    /// Every way the link failed, most fundamental first (`crate::problems`; docs/GUIDE.md,
    /// "Problems"). Empty when the log shows no failure, or until `problems::attach` ran.
    pub problems: Vec<crate::problems::Problem>,
    /// Whether the log shows a failed link: an error record, a fatal `LNK1xxx`, an lld-link
    /// error, `linker command failed`.
    pub link_failed: bool,
    /// When the link failed and no problem explains it: the lines that show the failure
    /// (1-based line, text), for people to read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unrecognised: Vec<(u64, String)>,
}

/// The build system a log shows, and the fix written for it.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct BuildSystemFix {
    /// Which (`tvm-ffi`, `cmake`, `msbuild`, `cargo`, `setuptools`, `node-gyp`, `meson`).
    pub kind: crate::build_system::BuildSystem,
    /// 1-based line that shows it.
    pub line: u64,
    /// That line.
    pub evidence: String,
    /// The changes to make, one per line, in the build system's terms.
    pub fix: Vec<String>,
}

impl Diagnosis {
    /// Records the build system recognised in the log and phrases the fix for it.
    pub fn set_build_system(&mut self, recognised: Option<crate::build_system::Recognised>) {
        self.build_system = recognised.map(|r| BuildSystemFix {
            kind: r.kind,
            line: r.line,
            fix: crate::build_system::fix_lines(
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

/// Families that count as "plain CRT/system" for the rule book's >50% rule.
fn is_crt_or_system(book: &RuleBook, family: &str) -> bool {
    family == "windows-system" || book.family(family).is_some_and(|f| f.crt)
}

/// Classifies a symbol; for a name with a leading `_` that nothing knows, tries it once more
/// without (an x86 `__cdecl` name in a log that mixes x86 and x64 builds).
pub fn classify(book: &RuleBook, symbol: &UnresolvedSymbol) -> Option<Classification> {
    // A chain name whose decoration is part of the name (`__avx2_acos4@@32`, a vectorcall
    // function) is looked up as the linker wrote it.
    if let Some(linker) = symbol.linker_name.as_deref() {
        let bare = linker.strip_prefix("__imp_").unwrap_or(linker);
        if bare != symbol.lookup_name && !crate::rules::names::chain_lookup(bare).is_empty() {
            return book.classify(SymbolKey {
                name: bare,
                demangled: &symbol.demangled,
                import: symbol.import,
            });
        }
    }
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
fn locate(context: Option<&SearchContext<'_>>, name: &str) -> (String, Option<String>) {
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

/// Resolves a link failure: with a [`SearchContext`], the archives on disk decide and the rule
/// book only fills in what no archive provides; without one, the rule book answers alone.
pub fn diagnose_with(
    mut failure: LinkFailure,
    book: &RuleBook,
    options: &DiagnoseOptions,
    context: Option<&SearchContext<'_>>,
) -> Diagnosis {
    let classes: Vec<Option<Classification>> =
        failure.symbols.iter().map(|s| classify(book, s)).collect();
    let extra = context.map_or(&[][..], |c| c.evidence.as_slice());
    let crt = evidence::decide(&failure, &classes, book, options.crt, extra);
    let flavour = crt.flavour;

    let matches: Vec<Option<providers::Match>> = match context {
        Some(c) => {
            let demangled_index = providers::DemangledIndex::new(c.index, &failure.symbols);
            failure
                .symbols
                .iter()
                .map(|s| Some(providers::find(c.index, &demangled_index, book, s, flavour)))
                .collect()
        }
        None => vec![None; failure.symbols.len()],
    };

    // Read from the symbols' references before they are moved out.
    let linked = linked_libraries(&failure);
    let mut symbols = resolve_symbols(
        &mut failure,
        book,
        classes,
        matches,
        &crt,
        context.is_some(),
    );
    // Evidence in the log: libraries already linked are not offered again, and a rule's library
    // that is installed but lacks the name is said first.
    let mut lacking = note_log_evidence(&mut symbols, &linked, context);

    // Names another failure class explains are no library's to answer.
    mark_explained(book, &mut symbols, context, options, &failure.machines);
    lacking.retain(|library| {
        symbols.iter().any(|s| {
            s.explained_by.is_none()
                && s.installed_lacks.is_some()
                && s.library.as_deref() == Some(library)
        })
    });

    let tally = Tally::new(book, &symbols);
    let verdict_kind = tally.verdict(symbols.is_empty(), failure.stats.cut_records > 0);
    let chain_for = |f: Flavour| -> Vec<String> {
        book.chain(f)
            .iter()
            .map(|name| locate(context, name).0)
            .collect()
    };
    let chain = (verdict_kind == VerdictKind::DefaultLibChainAbsent)
        .then(|| flavour.map(chain_for))
        .flatten();

    let inputs = FlagInputs {
        book,
        symbols: &symbols,
        context,
        verdict_kind,
        crt: &crt,
        findings: &failure.findings,
        linked: &linked,
    };
    let (link_flags, link_flags_by_flavour) = link_flags(&inputs, flavour);
    let warnings = failure_warnings(&failure, &symbols, tally.unresolved, &chain, context);
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
        crate::linklog::read_summary::summarize(&failure.stats, records)
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
    }
}

/// Resolves each symbol, moving it out of the failure (not copying it) and giving the inputs'
/// memory back as they are used up: a log of many distinct symbols would otherwise hold each one
/// three times at the peak.
fn resolve_symbols(
    failure: &mut LinkFailure,
    book: &RuleBook,
    mut classes: Vec<Option<Classification>>,
    mut matches: Vec<Option<providers::Match>>,
    crt: &CrtDecision,
    on_disk: bool,
) -> Vec<ResolvedSymbol> {
    let mut unresolved = std::mem::take(&mut failure.symbols);
    let mut symbols = Vec::with_capacity(unresolved.len());
    while let (Some(symbol), Some(class), Some(found)) =
        (unresolved.pop(), classes.pop(), matches.pop())
    {
        symbols.push(resolve_one(book, symbol, class, found, crt, on_disk));
        if unresolved.len() < unresolved.capacity() / 2 && unresolved.capacity() > 1024 {
            unresolved.shrink_to_fit();
            classes.shrink_to_fit();
            matches.shrink_to_fit();
        }
    }
    symbols.reverse();

    symbols
}

/// What the log already shows about each answer: a library already in the link (it is not
/// offered again, and the note says the copy used lacks the name), and a rule's library that is
/// installed but lacks the name. Returns the libraries that lack names.
fn note_log_evidence(
    symbols: &mut [ResolvedSymbol],
    linked: &[LinkedLibrary],
    context: Option<&SearchContext<'_>>,
) -> Vec<String> {
    let mut lacking: Vec<String> = Vec::new();
    for s in symbols.iter_mut() {
        if let Some(library) = &s.library {
            if let Some(l) = linked
                .iter()
                .find(|l| l.library.eq_ignore_ascii_case(library))
            {
                s.already_linked = Some(l.clone());
                let note = format!(
                    "{} is already in the link (line {}: {}) and the name is still unresolved: the copy the linker used does not define it (another version, or another copy found first on the library path)",
                    l.library, l.line, l.evidence
                );
                s.match_note = Some(match s.match_note.take() {
                    Some(old) => format!("{note}; {old}"),
                    None => note,
                });
            }
        }
        if s.provider == Some(Answerer::Rule) && s.not_found_on_disk {
            let installed = s
                .library
                .as_deref()
                .and_then(|library| context.and_then(|c| discover::find_library(c.dirs, library)));
            if let Some(path) = installed {
                let path = path.to_string_lossy().into_owned();
                let library = s.library.clone().unwrap_or_default();
                if !lacking.contains(&library) {
                    lacking.push(library.clone());
                }
                s.match_note = Some(format!(
                    "{library} should define it, but the installed {path} does not: the SDK on disk is older or newer than the code expects"
                ));
                s.installed_lacks = Some(path);
            }
        }
    }

    lacking
}

/// The counts the verdict is decided on, over the names no other problem explains.
struct Tally {
    /// Names left unresolved.
    unresolved: usize,
    /// Of those, CRT or system names.
    crt_or_system: usize,
    /// Of those, CRT names.
    crt_only: usize,
    /// Names no rule, table or library knows.
    unknown: usize,
    /// Entry points.
    entry_points: usize,
}

impl Tally {
    fn new(book: &RuleBook, symbols: &[ResolvedSymbol]) -> Tally {
        let counted = || symbols.iter().filter(|s| s.explained_by.is_none());
        Tally {
            unresolved: counted().count(),
            crt_or_system: counted()
                .filter(|s| is_crt_or_system(book, &s.family))
                .count(),
            crt_only: counted()
                .filter(|s| book.family(&s.family).is_some_and(|f| f.crt))
                .count(),
            unknown: counted().filter(|s| s.family == "unknown").count(),
            entry_points: counted().filter(|s| s.family == "entry-point").count(),
        }
    }

    /// The verdict: more than half CRT/system names is the default-library chain missing.
    fn verdict(&self, no_symbols: bool, cut_records: bool) -> VerdictKind {
        let unresolved = self.unresolved;
        if no_symbols && cut_records {
            VerdictKind::RecordsCut
        } else if no_symbols {
            VerdictKind::NothingUnresolved
        } else if unresolved == 0 {
            VerdictKind::Explained
        } else if self.entry_points == unresolved {
            VerdictKind::EntryPoint
        } else if self.crt_or_system * 2 > unresolved && self.crt_only > 0 {
            VerdictKind::DefaultLibChainAbsent
        } else if self.crt_or_system * 2 > unresolved {
            VerdictKind::SystemLibrariesMissing
        } else if self.unknown == unresolved {
            VerdictKind::UnknownSymbols
        } else {
            VerdictKind::LibrariesMissing
        }
    }
}

/// What the link flags are computed from.
struct FlagInputs<'a, 'c> {
    book: &'a RuleBook,
    symbols: &'a [ResolvedSymbol],
    context: Option<&'a SearchContext<'c>>,
    verdict_kind: VerdictKind,
    crt: &'a CrtDecision,
    findings: &'a [Finding],
    linked: &'a [LinkedLibrary],
}

/// Whether a symbol's family is a CRT one.
fn is_crt_symbol(book: &RuleBook, s: &ResolvedSymbol) -> bool {
    book.family(&s.family).is_some_and(|f| f.crt)
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
        findings,
        linked,
    } = *inputs;
    let is_crt = |s: &ResolvedSymbol| is_crt_symbol(book, s);
    let mut line = LinkLine::default();
    for s in symbols
        .iter()
        .filter(|s| !is_crt(s) && s.already_linked.is_none() && library_helps(s))
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
            .filter(|s| is_crt(s) && s.already_linked.is_none() && library_helps(s))
            .filter_map(|s| {
                s.libraries_by_flavour
                    .as_ref()
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
    if mixed {
        // Keep out the other flavours' CRT libraries that an LNK4098 names, and only those:
        // /NODEFAULTLIB answers that warning (with the CRT mismatch problem's warning), and
        // cannot clear an LNK2038, a mismatch the objects themselves carry.
        for name in lnk4098_libraries(book, findings, linked, crt) {
            if evidence::flavour_of_library(book, &name) == Some(f) {
                continue;
            }
            let flag = format!("/NODEFAULTLIB:{name}");
            if !line.libraries.iter().any(|l| l.eq_ignore_ascii_case(&flag)) {
                line.libraries.push(flag);
            }
        }
    }
    line.flags()
}

/// The flags to append: for the flavour decided, or, when it is unknown and CRT libraries are
/// needed, the flags both flavours share and one line per flavour.
fn link_flags(
    inputs: &FlagInputs<'_, '_>,
    flavour: Option<Flavour>,
) -> (Vec<String>, Option<BTreeMap<Flavour, Vec<String>>>) {
    let needs_crt = inputs
        .symbols
        .iter()
        .any(|s| is_crt_symbol(inputs.book, s) && library_helps(s));
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

/// What the reader and the resolution warn about: LNK1120 counts that disagree, several links,
/// an incomplete list, encodings, cut lines and records, capped symbols, demangler warnings,
/// chain libraries not found.
fn failure_warnings(
    failure: &LinkFailure,
    symbols: &[ResolvedSymbol],
    unresolved: usize,
    chain: &Option<Vec<String>>,
    context: Option<&SearchContext<'_>>,
) -> Vec<String> {
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
    let stats = &failure.stats;
    if !stats.encoding_regions.is_empty() {
        let regions: Vec<String> = stats
            .encoding_regions
            .iter()
            .map(|e| {
                serde_json::to_value(e)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default()
            })
            .collect();
        warnings.push(format!(
            "the log changes encoding ({}): text was appended in another encoding; each part was read in its own",
            regions.join(", then ")
        ));
    }
    if stats.replacement_characters >= 16 && stats.replacement_characters * 6 > stats.bytes {
        warnings.push(format!(
            "the log decodes to mostly U+FFFD ({} replaced characters in {} bytes): it is probably in \
             an encoding lnkfix does not read (re-save it as UTF-8 or UTF-16)",
            stats.replacement_characters, stats.bytes
        ));
    }
    if stats.mostly_cjk {
        warnings.push(
            "the log decodes as UTF-16 to mostly CJK ideographs: if it is not in a CJK language, it is \
             probably not UTF-16 (re-save it as UTF-8)"
                .into(),
        );
    }
    if failure.stats.truncated_lines > 0 {
        warnings.push(format!(
            "{} lines were longer than the limit and were cut (--max-line-bytes)",
            failure.stats.truncated_lines
        ));
    }
    if failure.records_past_max_symbols > 0 {
        warnings.push(format!(
            "only the first {} distinct symbols were kept (--max-symbols); {} records of further \
             symbols were counted, not read: the list is incomplete",
            failure.max_symbols, failure.records_past_max_symbols
        ));
    }
    if failure.stats.cut_records > 0 {
        warnings.push(format!(
            "{} cut lines held a link error past the limit: records may be missing (raise --max-line-bytes)",
            failure.stats.cut_records
        ));
    }
    for s in symbols {
        if let Some(w) = &s.symbol.warning {
            warnings.push(format!("{}: {w}", s.symbol.name));
        }
    }
    if let Some(c) = context {
        for name in chain.iter().flatten() {
            if discover::find_library(c.dirs, name).is_none() {
                warnings.push(format!(
                    "{name} (default-library chain) was not found in the directories searched"
                ));
            }
        }
    }

    warnings
}

/// The verdict's sentence, with what is mixed or lacking said first.
fn verdict_summary(
    symbols: &[ResolvedSymbol],
    verdict_kind: VerdictKind,
    tally: &Tally,
    flavour: Option<Flavour>,
    mixed: bool,
    lacking: &[String],
) -> String {
    let entry_names: Vec<&str> = symbols
        .iter()
        .filter(|s| s.explained_by.is_none())
        .filter(|s| s.family == "entry-point")
        .map(|s| s.symbol.lookup_name.as_str())
        .collect();
    let mut summary = summary_line(
        &entry_names,
        verdict_kind,
        tally.unresolved,
        tally.crt_or_system,
        tally.unknown,
        flavour,
    );
    if verdict_kind == VerdictKind::DefaultLibChainAbsent && mixed {
        summary.push_str(
            "; but the CRT evidence is mixed, so only the libraries these symbols need are added, and the other flavour's libraries the log shows are kept out",
        );
    }
    if !lacking.is_empty() {
        summary = format!(
            "installed {} lack{} names the code uses (the SDK on disk is older or newer than the code expects); {summary}",
            lacking.join(", "),
            if lacking.len() == 1 { "s" } else { "" }
        );
    }
    summary
}

/// Whether linking a symbol's library can satisfy it: not when another failure class explains
/// the name, except for a name of the CRT before 2015 whose add-on library still defines it
/// (`legacy_stdio_definitions.lib`).
fn library_helps(symbol: &ResolvedSymbol) -> bool {
    match &symbol.explained_by {
        None => true,
        Some(e) => {
            e.kind == ExplainedKind::ToolsetMismatch
                && e.generation == Some(crate::toolsets::Generation::Older)
                && symbol.family == "legacy-stdio"
        }
    }
}

/// The CRT libraries an LNK4098 names (`defaultlib 'LIBCMT' conflicts ...`, in any language and
/// quotes), as `libcmt.lib`: the only ones `/NODEFAULTLIB:` may keep out.
fn lnk4098_libraries(
    book: &RuleBook,
    findings: &[Finding],
    linked: &[LinkedLibrary],
    crt: &CrtDecision,
) -> Vec<String> {
    let named: Vec<String> = findings
        .iter()
        .filter(|f| f.code == "LNK4098")
        .flat_map(|f| {
            crate::problems::text::quoted(&f.text)
                .into_iter()
                .chain(f.values.iter().cloned())
        })
        .map(|l| {
            let lower = l.to_ascii_lowercase();
            if lower.ends_with(".lib") {
                lower
            } else {
                format!("{lower}.lib")
            }
        })
        .collect();
    shown_crt_libraries(book, linked, crt)
        .into_iter()
        .filter(|l| named.contains(l))
        .collect()
}

/// Marks the names another failure class explains (docs/RULES.md §20, §21): x86 names against
/// x64 libraries (or the reverse), then names only newer toolsets' libraries define and names
/// only the CRT before Visual Studio 2015 had.
fn mark_explained(
    book: &RuleBook,
    symbols: &mut [ResolvedSymbol],
    context: Option<&SearchContext<'_>>,
    options: &DiagnoseOptions,
    log_machines: &[crate::index::Machine],
) {
    if let Some(c) = context {
        mark_machine(symbols, c, options, log_machines);
    }
    mark_toolset(book, symbols, context);
}

/// The name of `symbol` in the other machine's form, for a library index of `arch`: an x86 name
/// against x64 libraries (`_malloc` → `malloc`, `_Sleep@4` → `Sleep`, `__imp__Sleep@4` →
/// `__imp_Sleep`), an x64 name against x86 libraries (`malloc` → `_malloc`).
fn other_machine_form(symbol: &UnresolvedSymbol, arch: crate::index::Machine) -> Option<String> {
    use crate::index::Machine;
    let linker = symbol.linker_name.as_deref().unwrap_or(&symbol.lookup_name);
    let (import, bare) = match linker.strip_prefix("__imp_") {
        Some(rest) => ("__imp_", rest),
        None => ("", linker),
    };
    if bare.starts_with('?') || bare.is_empty() {
        return None;
    }
    match arch {
        Machine::X64 | Machine::Arm64 | Machine::Arm64ec => {
            let (base, decoration) = crate::symbols::undecorate(bare);
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
    if symbols
        .iter()
        .any(|s| s.provider.is_some_and(Answerer::on_disk))
    {
        return;
    }
    let hits: Vec<(usize, String, String)> = symbols
        .iter()
        .enumerate()
        .filter_map(|(i, s)| {
            let form = other_machine_form(&s.symbol, arch)?;
            let provider = context.index.lookup(&form).first()?;
            let library = provider
                .library
                .file_name()
                .map(|f| f.to_string_lossy().into_owned())
                .unwrap_or_default();
            Some((i, form, library))
        })
        .collect();
    if hits.is_empty() {
        return;
    }
    let object_machine = options.object_machines.iter().any(|(_, m)| {
        (*m == Machine::X86 && arch == Machine::X64) || (*m == Machine::X64 && arch == Machine::X86)
    });
    let log_machine = log_machines.contains(&name_machine);
    let decorated = symbols.iter().any(|s| {
        arch == Machine::X64
            && matches!(
                s.symbol.x86_decoration,
                Some(
                    crate::symbols::X86Decoration::Stdcall { .. }
                        | crate::symbols::X86Decoration::Fastcall { .. }
                )
            )
    });
    let root_entry = symbols.iter().any(|s| {
        s.symbol.entry_point
            && if arch == Machine::X64 {
                s.symbol.lookup_name.starts_with('_')
                    && s.symbol.lookup_name.ends_with("CRTStartup")
                    || s.symbol.lookup_name.starts_with("__DllMainCRTStartup")
            } else {
                !s.symbol.lookup_name.starts_with('_')
                    && s.symbol.lookup_name.ends_with("CRTStartup")
            }
    });
    if !(object_machine || log_machine || decorated || root_entry || hits.len() >= 2) {
        return;
    }
    for (i, form, library) in hits {
        let s = &mut symbols[i];
        s.explained_by = Some(Explained {
            kind: ExplainedKind::MachineMismatch,
            note: format!(
                "{} is the {name_machine} form of the name: the {library_machine} libraries searched define {form} ({library})",
                s.symbol.name
            ),
            generation: None,
            name_machine: Some(name_machine),
            library_machine: Some(format!("{library_machine} ({library})")),
            other_form: Some(form),
        });
        if s.installed_lacks.take().is_some() {
            s.match_note = None;
        }
    }
}

/// Marks names of another toolset generation than the libraries linked.
fn mark_toolset(
    book: &RuleBook,
    symbols: &mut [ResolvedSymbol],
    context: Option<&SearchContext<'_>>,
) {
    use crate::toolsets::{is_newer_toolset_name, is_pre_2015_name, Generation};
    let crt_family = |family: &str| book.family(family).is_some_and(|f| f.crt);
    // A CRT name that is no toolset's says the chain itself is missing.
    let plain_crt = symbols
        .iter()
        .filter(|s| {
            s.explained_by.is_none()
                && crt_family(&s.family)
                && !is_newer_toolset_name(&s.symbol.lookup_name)
        })
        .count();
    for s in symbols.iter_mut().filter(|s| s.explained_by.is_none()) {
        let name = s.symbol.lookup_name.clone();
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
            s.explained_by = Some(Explained {
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
        let on_disk = s.provider.is_some_and(Answerer::on_disk);
        let installed = context.and_then(|c| {
            let family = book.family(&s.family)?;
            let libraries = family.libraries.as_ref()?;
            Flavour::ALL
                .iter()
                .filter_map(|f| libraries.get(f))
                .find_map(|library| discover::find_library(c.dirs, library))
        });
        let note = match (&installed, context) {
            _ if on_disk => continue,
            (Some(path), _) => format!(
                "{name} comes with newer toolsets: the installed {} does not define it, so the code that references it was built by a newer MSVC than the one linking",
                path.display()
            ),
            (None, _) if from_libraries && plain_crt == 0 => format!(
                "{name} is defined only by newer toolsets' libraries (Visual Studio 2019 and 2022 updates added these names): the prebuilt library that references it was built by a newer MSVC than the one linking"
            ),
            _ => continue,
        };
        s.explained_by = Some(Explained {
            kind: ExplainedKind::ToolsetMismatch,
            note,
            generation: Some(Generation::Newer),
            name_machine: None,
            library_machine: None,
            other_form: None,
        });
        if s.installed_lacks.take().is_some() {
            s.match_note = None;
        }
    }
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
        Some(c) if !book.family(&c.family).is_some_and(|f| f.crt) && c.family != "dll-import" => {
            c.family.clone()
        }
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

/// Entry-point names the CRT's startup objects call: never a missing library.
pub const ENTRY_POINTS: &[&str] = &["main", "wmain", "WinMain", "wWinMain", "DllMain"];

/// Whether an unresolved symbol is a program's entry point: one of [`ENTRY_POINTS`] that the
/// linker asks for (`<root>`) or that the CRT's startup code references (`exe_main.obj`,
/// `exe_winmain.obj`, `dll_dllmain.obj`, `invoke_main`, `__scrt_common_main_seh`).
pub fn is_entry_point(symbol: &UnresolvedSymbol) -> bool {
    // The CRT's own entry points (`_DllMainCRTStartup`, `mainCRTStartup`) asked for by the
    // linker are CRT symbols like any other: the chain provides them.
    let name = symbol.lookup_name.as_str();
    // An x86 log whose names were not undecorated shows `_main` (the `__cdecl` underscore): it
    // counts only when the startup code asks for it.
    let decorated = !ENTRY_POINTS.contains(&name);
    if decorated
        && !name
            .strip_prefix('_')
            .is_some_and(|n| ENTRY_POINTS.contains(&n))
    {
        return false;
    }
    // Asked for by the linker, or reported with no reference at all (nothing but the startup
    // code calls an entry point).
    if !decorated && (symbol.entry_point || symbol.references.is_empty()) {
        return true;
    }
    let startup_object = |object: &str| {
        let lower = object.to_ascii_lowercase();
        let member = lower.rsplit(['\\', '/', '(']).next().unwrap_or(&lower);
        member.starts_with("exe_") || member.starts_with("dll_dllmain")
    };
    let startup_function = |function: &str| {
        [
            "invoke_main",
            "__scrt_common_main",
            "dllmain_dispatch",
            "DllMainCRTStartup",
            "WinMainCRTStartup",
            "mainCRTStartup",
        ]
        .iter()
        .any(|f| function.contains(f))
    };
    symbol.references.iter().any(|r| {
        r.object.as_deref().is_some_and(startup_object)
            || r.function.as_deref().is_some_and(startup_function)
    })
}

/// The entry-point answer: what asked for the name, why, and the fix.
/// An entry point's name without the x86 `__cdecl` underscore (`_main` → `main`).
pub fn entry_point_name(name: &str) -> &str {
    match name.strip_prefix('_') {
        Some(rest) if ENTRY_POINTS.contains(&rest) => rest,
        _ => name,
    }
}

fn entry_point_answer(
    symbol: UnresolvedSymbol,
    near_misses: Vec<providers::NearMiss>,
) -> ResolvedSymbol {
    let name = entry_point_name(&symbol.lookup_name);
    let note = match name {
        "WinMain" | "wWinMain" => format!(
            "{name} is the entry point of a /SUBSYSTEM:WINDOWS program: the CRT's startup code calls it because the link targets the Windows subsystem. A program that defines main (a console program) links with /SUBSYSTEM:CONSOLE; a GUI program defines {name}. No library provides it"
        ),
        "main" | "wmain" => format!(
            "{name} is the entry point of a console program: the CRT's startup code calls it and the objects define none. A DLL links with /DLL; a GUI program that defines WinMain links with /SUBSYSTEM:WINDOWS; a program that defines wmain instead links with /ENTRY:wmainCRTStartup. No library provides it"
        ),
        "DllMain" => "DllMain is the entry point of a DLL: the CRT's DLL startup calls it. Define it (extern \"C\" BOOL WINAPI DllMain(...)), or let the CRT supply its default by linking the CRT chain normally. No library provides it".to_string(),
        other => format!(
            "{other} is the entry point the linker was asked to use (/ENTRY or the subsystem's default) and no object defines it: check /ENTRY, /SUBSYSTEM and /DLL against what the objects define"
        ),
    };
    ResolvedSymbol {
        symbol,
        family: "entry-point".into(),
        library: None,
        library_path: None,
        provider: None,
        source: Some("entry point".into()),
        dll: None,
        member: None,
        matched_name: None,
        match_note: Some(note),
        alternatives: Vec::new(),
        near_misses,
        libraries_by_flavour: None,
        rulebook_differs: None,
        index_differs: None,
        not_found_on_disk: false,
        already_linked: None,
        installed_lacks: None,
        explained_by: None,
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
    let crt_family = book.family(&family).is_some_and(|f| f.crt);
    let mut libraries_by_flavour = None;
    let mut chosen = Some(best.clone());
    if crt_family && crt.flavour.is_none() {
        let debug = crt.evidence.iter().any(|e| e.debug == Some(true));
        let mut by = BTreeMap::new();
        for p in providers {
            for (_, f) in book.crt_library_flavours(&p.library) {
                if f.is_debug() == debug {
                    by.entry(f).or_insert_with(|| p.library.clone());
                }
            }
        }
        if by.len() > 1 {
            libraries_by_flavour = Some(by);
            chosen = None;
        }
    }
    let alternatives: Vec<providers::Provider> = providers
        .iter()
        .enumerate()
        .filter(|(at, _)| *at != usable)
        .map(|(_, p)| p.clone())
        .collect();
    let matched_name = (symbol.linker_name.as_ref() != Some(&best.matched_name))
        .then(|| best.matched_name.clone());
    // A library that is not an ordinary answer (an add-on, a runtime variant, an umbrella)
    // is chosen only because nothing ordinary defines the name: say what it is for.
    let match_note = if best.role.is_ordinary() {
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
    };
    ResolvedSymbol {
        symbol,
        family,
        library: chosen.as_ref().map(|p| p.library.clone()),
        library_path: chosen.as_ref().map(|p| p.path.clone()),
        provider: Some(best.source.into()),
        source: Some(best.source.to_string()),
        dll: best.dll.clone(),
        member: best.member.clone(),
        matched_name,
        match_note,
        alternatives,
        near_misses,
        libraries_by_flavour,
        rulebook_differs,
        index_differs,
        not_found_on_disk: false,
        already_linked: None,
        installed_lacks: None,
        explained_by: None,
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
        libraries_by_flavour: None,
        rulebook_differs: None,
        index_differs: None,
        not_found_on_disk: searched,
        already_linked: None,
        installed_lacks: None,
        explained_by: None,
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
    // A family with no library (a name from a pre-2015 CRT) says what it means instead.
    let mut match_note = match book.family(&class.family) {
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
    };
    // The library of one flavour: from the chain table when the name is a chain name (the
    // family may differ by flavour), else the family's library.
    let for_flavour = |f: Flavour| -> Option<(String, String)> {
        match &class.by_flavour {
            Some(by) => by.get(&f).cloned(),
            None => book
                .family_library(&class.family, f)
                .map(|l| (class.family.clone(), l.to_string())),
        }
    };
    if library.is_none() {
        match crt.flavour {
            Some(f) => match for_flavour(f) {
                Some((f_family, f_library)) => {
                    family = f_family;
                    library = Some(f_library);
                }
                None if class.by_flavour.is_some() => {
                    let others: Vec<String> = class
                        .by_flavour
                        .iter()
                        .flatten()
                        .map(|(g, (_, l))| format!("{l} ({})", g.compiler_option()))
                        .collect();
                    match_note = Some(format!(
                        "the {f} libraries do not define it; {} do: the objects that reference it were built for another CRT flavour; rebuild them with {}, or build the whole project for that flavour",
                        others.join(", "),
                        f.compiler_option()
                    ));
                }
                None => {}
            },
            None => {
                let debug = crt.evidence.iter().any(|e| e.debug == Some(true));
                let flavours = if debug {
                    [Flavour::StaticDebug, Flavour::DynamicDebug]
                } else {
                    [Flavour::Static, Flavour::Dynamic]
                };
                let by: BTreeMap<Flavour, String> = flavours
                    .into_iter()
                    .filter_map(|f| for_flavour(f).map(|(_, l)| (f, l)))
                    .collect();
                if !by.is_empty() {
                    libraries_by_flavour = Some(by);
                }
            }
        }
    }
    ResolvedSymbol {
        symbol,
        family,
        library,
        library_path: None,
        provider: Some(Answerer::Rule),
        source: Some(class.source),
        dll: class.dll,
        member: None,
        matched_name: None,
        match_note,
        alternatives: Vec::new(),
        near_misses,
        libraries_by_flavour,
        rulebook_differs: class.rulebook_differs,
        index_differs: None,
        not_found_on_disk: searched,
        already_linked: None,
        installed_lacks: None,
        explained_by: None,
    }
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
        family,
        library: None,
        library_path: None,
        provider: Some(first.source.into()),
        source: Some(first.source.to_string()),
        dll: first.dll.clone(),
        member: first.member.clone(),
        matched_name: None,
        match_note: Some(note),
        alternatives: providers.to_vec(),
        near_misses,
        libraries_by_flavour: None,
        rulebook_differs: None,
        index_differs: None,
        not_found_on_disk: false,
        already_linked: None,
        installed_lacks: None,
        explained_by: None,
    }
}

fn summary_line(
    entry_names: &[&str],
    kind: VerdictKind,
    unresolved: usize,
    crt_or_system: usize,
    unknown: usize,
    flavour: Option<Flavour>,
) -> String {
    let plural = |n: usize| if n == 1 { "" } else { "s" };
    match kind {
        VerdictKind::NothingUnresolved => "no unresolved symbols in the log".into(),
        VerdictKind::Explained => {
            "every unresolved symbol is explained by the problems above: no library to add".into()
        }
        VerdictKind::RecordsCut => "the link failed, but its error records are on lines longer than --max-line-bytes: raise it to read them".into(),
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
        VerdictKind::EntryPoint => format!(
            "entry point missing: {unresolved} unresolved entry point{} ({}); the subsystem or entry point is wrong, no library is missing",
            plural(unresolved),
            entry_names.join(", ")
        ),
        VerdictKind::UnknownSymbols => format!(
            "{unresolved} unresolved symbol{} that no rule or library knows: they are probably the project's own (a missing source file, template instantiation or export), or from a library not searched",
            plural(unresolved)
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::{LibrarySymbol, Machine, SymbolKind};
    use std::path::{Path, PathBuf};

    fn failure(log: &str) -> LinkFailure {
        crate::symbols::collect(
            std::io::Cursor::new(log.as_bytes().to_vec()),
            Default::default(),
        )
        .unwrap()
    }

    fn with_index(log: &str, symbols: Vec<LibrarySymbol>, dir: &Path) -> Diagnosis {
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

    #[test]
    fn entry_points_get_no_library() {
        let log = "MSVCRT.lib(exe_winmain.obj) : error LNK2019: unresolved external symbol WinMain referenced in function \"int __cdecl __scrt_common_main_seh(void)\" (?__scrt_common_main_seh@@YAHXZ)\n";
        let vccorlib = LibrarySymbol::new(
            "WinMain".into(),
            Path::new("vccorlib.lib"),
            SymbolKind::Defined,
            Machine::X64,
        );
        let d = with_index(log, vec![vccorlib], Path::new("."));
        let s = &d.symbols[0];
        assert_eq!(s.family, "entry-point");
        assert!(s.library.is_none(), "{:?}", s.library);
        assert!(s
            .match_note
            .as_deref()
            .unwrap()
            .contains("/SUBSYSTEM:CONSOLE"));
        assert_eq!(d.verdict.kind, VerdictKind::EntryPoint);
        assert!(d.link_flags.is_empty(), "{:?}", d.link_flags);
        // The CRT's own entry point asked for by the linker is a CRT name like any other.
        let d = diagnose(
            failure("lld-link: error: <root>: undefined symbol: _DllMainCRTStartup\n"),
            &RuleBook::builtin(),
            &DiagnoseOptions::default(),
        );
        assert_eq!(d.symbols[0].family, "crt-startup");
    }

    #[test]
    fn a_library_already_in_the_link_is_not_offered_again() {
        let log = "oldnames.lib(getpid.obj) : error LNK2001: unresolved external symbol _getpid\n\
                   app.obj : error LNK2019: unresolved external symbol legacy_fn referenced in function main\n";
        let legacy = LibrarySymbol::new(
            "legacy_fn".into(),
            Path::new("oldnames.lib"),
            SymbolKind::Defined,
            Machine::X64,
        );
        let d = with_index(log, vec![legacy], Path::new("."));
        let s = d
            .symbols
            .iter()
            .find(|s| s.symbol.name == "legacy_fn")
            .unwrap();
        let linked = s.already_linked.as_ref().expect("oldnames.lib is linked");
        assert_eq!(linked.library, "oldnames.lib");
        assert!(s
            .match_note
            .as_deref()
            .unwrap()
            .contains("already in the link"));
        assert!(
            !d.link_flags
                .iter()
                .any(|f| f.eq_ignore_ascii_case("oldnames.lib")),
            "{:?}",
            d.link_flags
        );
    }

    #[test]
    fn an_installed_library_that_lacks_the_name_leads_the_headline() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("amdhip64.lib"), b"!<arch>\n").unwrap();
        let log = "app.obj : error LNK2019: unresolved external symbol hipNewApiOnlyIn7 referenced in function main\n";
        let d = with_index(log, Vec::new(), dir.path());
        let s = &d.symbols[0];
        assert_eq!(
            s.installed_lacks.as_deref().map(PathBuf::from),
            Some(dir.path().join("amdhip64.lib"))
        );
        assert!(
            d.verdict
                .summary
                .starts_with("installed amdhip64.lib lacks"),
            "{}",
            d.verdict.summary
        );
    }

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
        assert_eq!(d.link_flags, vec!["ucrt.lib", "/NODEFAULTLIB:libcmt.lib"]);
    }

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
