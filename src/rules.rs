//! The rule book as data: `symbol-db/rules.json` (families, the explicit default-library chain,
//! the link-symbol rules with the rule book's claim and the verified home) and the generated name
//! tables in [`names`]. Users add rules with `--rules FILE` (same format; their rules go first).

pub mod names;
pub mod roles;

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// The shipped rule file.
const BUILTIN_RULES: &str =
    include_str!(concat!(env!("CARGO_MANIFEST_DIR"), "/symbol-db/rules.json"));

/// A CRT and C++ library family choice: the compiler's `/MT`, `/MD`, `/MTd` or `/MDd`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Flavour {
    /// `/MT`: libcmt, libvcruntime, libucrt, libcpmt.
    Static,
    /// `/MD`: msvcrt, vcruntime, ucrt, msvcprt.
    Dynamic,
    /// `/MTd`.
    StaticDebug,
    /// `/MDd`.
    DynamicDebug,
}

impl Flavour {
    /// All four, release first.
    pub const ALL: [Flavour; 4] = [
        Flavour::Static,
        Flavour::Dynamic,
        Flavour::StaticDebug,
        Flavour::DynamicDebug,
    ];

    /// Builds a flavour from linkage and debug-ness.
    pub fn from_parts(dynamic: bool, debug: bool) -> Flavour {
        match (dynamic, debug) {
            (false, false) => Flavour::Static,
            (true, false) => Flavour::Dynamic,
            (false, true) => Flavour::StaticDebug,
            (true, true) => Flavour::DynamicDebug,
        }
    }

    /// Whether this flavour uses the DLL CRT.
    pub fn is_dynamic(self) -> bool {
        matches!(self, Flavour::Dynamic | Flavour::DynamicDebug)
    }

    /// Whether this flavour is a debug one.
    pub fn is_debug(self) -> bool {
        matches!(self, Flavour::StaticDebug | Flavour::DynamicDebug)
    }

    /// The name used in JSON and on the command line (`static`, `dynamic-debug`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Flavour::Static => "static",
            Flavour::Dynamic => "dynamic",
            Flavour::StaticDebug => "static-debug",
            Flavour::DynamicDebug => "dynamic-debug",
        }
    }

    /// The compiler option that selects it.
    pub fn compiler_option(self) -> &'static str {
        match self {
            Flavour::Static => "/MT",
            Flavour::Dynamic => "/MD",
            Flavour::StaticDebug => "/MTd",
            Flavour::DynamicDebug => "/MDd",
        }
    }
}

impl std::fmt::Display for Flavour {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({})", self.name(), self.compiler_option())
    }
}

/// A library family: what kind of library provides a symbol.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Family {
    /// What the family is.
    pub description: String,
    /// Whether the family is part of the CRT default-library chain.
    pub crt: bool,
    /// The library for each flavour (`None` when the library depends on the symbol, as for the
    /// Windows system libraries).
    pub libraries: Option<BTreeMap<Flavour, String>>,
    /// Whether no library defines the family's names (another ABI, a build step's own output):
    /// the report says so instead of "library unknown".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub no_library: bool,
}

/// How a rule matches a symbol.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleMatch {
    /// Exact linker-level names (C names without `__imp_` and x86 decoration, or mangled names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exact: Vec<String>,
    /// Prefixes of the name.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub prefix: Vec<String>,
    /// A regular expression on the name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub regex: Option<String>,
    /// A regular expression on the demangled name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub demangled_regex: Option<String>,
    /// A regular expression on the symbol's own name in the demangled text, from its outermost
    /// scope on ([`own_name`]: `ui::Widget::name(void) const`, never the return type before it),
    /// so that a function of a third-party library that returns `std::string` is not the C++
    /// library's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope_regex: Option<String>,
    /// Matches dllimport references (`__imp_`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub import: Option<bool>,
}

/// One link-symbol rule.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Rule {
    /// Stable identifier shown in reports (`rule hip-prefix`).
    pub id: String,
    /// What it matches.
    #[serde(rename = "match")]
    pub matcher: RuleMatch,
    /// The family it assigns (the verified home).
    pub family: String,
    /// The rule book's row, as written.
    #[serde(default)]
    pub rulebook: Option<String>,
    /// The family the rule book claims when it differs from the verified one.
    #[serde(default)]
    pub rulebook_family: Option<String>,
    /// Why the verified family differs, with its source.
    #[serde(default)]
    pub verified: Option<String>,
    /// Anything else worth saying.
    #[serde(default)]
    pub note: Option<String>,
}

/// The `schema_version` of the rule files this lnkfix reads.
pub const RULE_SCHEMA_VERSION: u32 = 1;

#[derive(Debug, Deserialize)]
struct RuleFile {
    schema_version: u32,
    #[serde(default)]
    families: BTreeMap<String, Family>,
    #[serde(default)]
    chain: BTreeMap<Flavour, Vec<String>>,
    #[serde(default)]
    debug_only: Vec<String>,
    #[serde(default)]
    rules: Vec<Rule>,
}

/// Why a rule file could not be used.
#[derive(Debug, thiserror::Error)]
pub enum RuleError {
    /// The file could not be read.
    #[error("{path}: cannot read rule file: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid rule JSON.
    #[error("{path}: not a valid rule file: {source}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// The JSON error.
        source: serde_json::Error,
    },
    /// The file is of a `schema_version` this lnkfix does not read.
    #[error(
        "{path}: rule file schema_version {found} is not one this lnkfix understands (it reads \
         {RULE_SCHEMA_VERSION})"
    )]
    SchemaVersion {
        /// The file.
        path: PathBuf,
        /// The version it says.
        found: u32,
    },
    /// A rule's regular expression does not compile.
    #[error("{path}: rule {rule}: bad regular expression: {source}")]
    Regex {
        /// The file.
        path: PathBuf,
        /// The rule id.
        rule: String,
        /// The regex error.
        source: PatternError,
    },
    /// A rule names a family that no file defines.
    #[error("{path}: rule {rule}: unknown family {family:?}")]
    UnknownFamily {
        /// The file.
        path: PathBuf,
        /// The rule id.
        rule: String,
        /// The family it names.
        family: String,
    },
}

struct CompiledRule {
    rule: Rule,
    exact: HashSet<String>,
}

/// What the rule book says about one symbol.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Classification {
    /// The family.
    pub family: String,
    /// A library fixed by the evidence regardless of flavour (`kernel32.lib`, `amdhip64.lib`).
    pub library: Option<String>,
    /// The DLL, when a name table knows it.
    pub dll: Option<String>,
    /// Where the answer came from: `rule <id>` or `table <name>`.
    pub source: String,
    /// The rule book's own claim, when the verified home differs from it.
    pub rulebook_differs: Option<String>,
    /// For a name the default-library chain defines (the `crt-chain` table): the library of each
    /// flavour whose chain defines it, and its family there (`None`: not a chain name).
    pub by_flavour: Option<BTreeMap<Flavour, (String, String)>>,
}

/// The parts of a symbol the rules look at.
#[derive(Debug, Clone, Copy)]
pub struct SymbolKey<'a> {
    /// The linker-level name without `__imp_` and without x86 decoration (or a mangled C++ name).
    pub name: &'a str,
    /// The demangled text.
    pub demangled: &'a str,
    /// Whether the reference is a dllimport one.
    pub import: bool,
}

/// The loaded rule book: families, chains, rules and the debug-only names.
pub struct RuleBook {
    families: BTreeMap<String, Family>,
    chain: BTreeMap<Flavour, Vec<String>>,
    debug_only: HashSet<String>,
    rules: Vec<CompiledRule>,
    matchers: Matchers,
}

/// Every rule's matchers as one set each, so a symbol costs a few lookups and one pass of each
/// set whatever the number of rules (20,000 user rules once cost a millisecond a symbol): exact
/// names and prefixes in hash maps, patterns in a `RegexSet`. Each gives the first rule (in
/// matching order) that matches.
#[derive(Default)]
struct Matchers {
    /// Exact name to the first rule listing it.
    exact: HashMap<String, usize>,
    /// Prefix to the first rule listing it, and the lengths prefixes have.
    prefixes: HashMap<String, usize>,
    prefix_lengths: Vec<usize>,
    /// Name patterns and the rule of each.
    names: Option<PatternSet>,
    name_rules: Vec<usize>,
    /// Demangled-name patterns and the rule of each.
    demangled: Option<PatternSet>,
    demangled_rules: Vec<usize>,
    /// Own-name patterns ([`own_name`]) and the rule of each.
    scopes: Option<PatternSet>,
    scope_rules: Vec<usize>,
    /// The first rule matching every dllimport reference.
    import: Option<usize>,
}

impl Matchers {
    fn new(rules: &[CompiledRule]) -> Result<Matchers, PatternError> {
        let mut matchers = Matchers::default();
        let (mut names, mut demangled, mut scopes) = (Vec::new(), Vec::new(), Vec::new());
        for (index, rule) in rules.iter().enumerate() {
            let m = &rule.rule.matcher;
            for name in &rule.exact {
                matchers.exact.entry(name.clone()).or_insert(index);
            }
            for prefix in &m.prefix {
                matchers.prefixes.entry(prefix.clone()).or_insert(index);
                if !matchers.prefix_lengths.contains(&prefix.len()) {
                    matchers.prefix_lengths.push(prefix.len());
                }
            }
            if let Some(pattern) = &m.regex {
                names.push(pattern.as_str());
                matchers.name_rules.push(index);
            }
            if let Some(pattern) = &m.demangled_regex {
                demangled.push(pattern.as_str());
                matchers.demangled_rules.push(index);
            }
            if let Some(pattern) = &m.scope_regex {
                scopes.push(pattern.as_str());
                matchers.scope_rules.push(index);
            }
            if m.import == Some(true) && matchers.import.is_none() {
                matchers.import = Some(index);
            }
        }
        matchers.names = PatternSet::build(&names)?;
        matchers.demangled = PatternSet::build(&demangled)?;
        matchers.scopes = PatternSet::build(&scopes)?;
        Ok(matchers)
    }

    /// The first rule listing `name` exactly.
    fn exact(&self, name: &str) -> Option<usize> {
        self.exact.get(name).copied()
    }

    /// The first rule whose prefix, pattern, demangled pattern or dllimport flag matches.
    fn first_match(&self, key: SymbolKey<'_>) -> Option<usize> {
        let by_prefix = self
            .prefix_lengths
            .iter()
            .filter_map(|&length| key.name.get(..length))
            .filter_map(|prefix| self.prefixes.get(prefix).copied())
            .min();
        let first_in = |set: &Option<PatternSet>, rules: &[usize], text: &str| {
            set.as_ref()
                .and_then(|set| set.first_match(text))
                .map(|pattern| rules[pattern])
        };
        let by_name = first_in(&self.names, &self.name_rules, key.name);
        let by_demangled = first_in(&self.demangled, &self.demangled_rules, key.demangled);
        let by_scope = self
            .scopes
            .as_ref()
            .and_then(|_| first_in(&self.scopes, &self.scope_rules, own_name(key.demangled)));
        let by_import = self.import.filter(|_| key.import);
        [by_prefix, by_name, by_demangled, by_scope, by_import]
            .into_iter()
            .flatten()
            .min()
    }
}

/// The calling conventions a demangled function shows before its own name.
const CALLING_CONVENTIONS: &[&str] = &[
    " __cdecl ",
    " __stdcall ",
    " __fastcall ",
    " __thiscall ",
    " __vectorcall ",
    " __clrcall ",
];

/// The symbol's own name in a demangled text, from its outermost scope on: what follows the
/// calling convention of a function (`class std::string __cdecl ui::Widget::name(void) const` →
/// `ui::Widget::name(void) const`), or the last word of a variable's declaration outside
/// template arguments (`class std::locale::id std::ctype<char>::id` → `std::ctype<char>::id`).
/// A C name is its own name.
pub fn own_name(demangled: &str) -> &str {
    let params = demangled.find('(').unwrap_or(demangled.len());
    if let Some(end) = CALLING_CONVENTIONS
        .iter()
        .filter_map(|cc| demangled[..params].rfind(cc).map(|at| at + cc.len()))
        .max()
    {
        return &demangled[end..];
    }
    // A variable: the last space at template depth 0 ends its type.
    let mut depth = 0i32;
    let mut start = 0;
    for (i, c) in demangled.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            ' ' if depth == 0 => start = i + 1,
            _ => {}
        }
    }
    &demangled[start..]
}

/// Regular expressions matched together, answering the lowest-numbered pattern that matches:
/// `regex::RegexSet`'s semantics (every pattern's matches, Unicode, UTF-8) with its size limits
/// raised for large user rule books, but without the literal prefilter `RegexSet` builds. The
/// rule book's patterns run on one short name at a time, where a prefilter saves nothing, and
/// building it was most of a run's start-up for a small log (one pattern's alternatives expand
/// to a hundred literals and an Aho-Corasick automaton).
struct PatternSet(regex_automata::meta::Regex);

/// Why a rule's pattern, or the rules' patterns together, do not compile: the syntax error with
/// its position, or the size limit exceeded.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct PatternError(String);

impl From<regex_automata::meta::BuildError> for PatternError {
    fn from(error: regex_automata::meta::BuildError) -> PatternError {
        // The engine's own message names only the pattern's number; its parts say more.
        PatternError(if let Some(syntax) = error.syntax_error() {
            syntax.to_string()
        } else if let Some(limit) = error.size_limit() {
            format!("the compiled patterns exceed the size limit of {limit} bytes")
        } else {
            error.to_string()
        })
    }
}

impl PatternSet {
    /// The set of `patterns`, or `None` when there are none.
    fn build(patterns: &[&str]) -> Result<Option<PatternSet>, PatternError> {
        if patterns.is_empty() {
            return Ok(None);
        }
        Self::builder()
            .build_many(patterns)
            .map(|regex| Some(PatternSet(regex)))
            .map_err(PatternError::from)
    }

    /// Compiles `pattern` alone as the set would: the error of a bad pattern.
    fn check(pattern: &str) -> Result<(), PatternError> {
        Self::builder()
            .build(pattern)
            .map(drop)
            .map_err(PatternError::from)
    }

    fn builder() -> regex_automata::meta::Builder {
        use regex_automata::{meta, nfa::thompson::WhichCaptures, MatchKind};
        let config = meta::Config::new()
            .match_kind(MatchKind::All)
            .utf8_empty(true)
            .which_captures(WhichCaptures::None)
            .auto_prefilter(false)
            .nfa_size_limit(Some(1 << 28))
            .hybrid_cache_capacity(1 << 26);
        let mut builder = meta::Builder::new();
        builder.configure(config);
        builder
    }

    /// The lowest index of a pattern that matches `text` anywhere.
    fn first_match(&self, text: &str) -> Option<usize> {
        let mut matched = regex_automata::PatternSet::new(self.0.pattern_len());
        let input = regex_automata::Input::new(text);
        self.0.which_overlapping_matches(&input, &mut matched);
        matched.iter().next().map(|pattern| pattern.as_usize())
    }
}

impl RuleBook {
    /// The rule book shipped in `symbol-db/rules.json`.
    pub fn builtin() -> RuleBook {
        let mut book = RuleBook {
            families: BTreeMap::new(),
            chain: BTreeMap::new(),
            debug_only: HashSet::new(),
            rules: Vec::new(),
            matchers: Matchers::default(),
        };
        book.add_text(BUILTIN_RULES, Path::new("symbol-db/rules.json"), false)
            .expect("the shipped symbol-db/rules.json is valid (checked by tests)");
        book
    }

    /// Adds a user's rule file: its families and chain entries override, its rules go first.
    pub fn add_file(&mut self, path: &Path) -> Result<(), RuleError> {
        let text =
            crate::files::open::read_regular_to_string(path).map_err(|source| RuleError::Read {
                path: path.to_path_buf(),
                source,
            })?;
        self.add_text(&text, path, true)
    }

    fn add_text(&mut self, text: &str, path: &Path, first: bool) -> Result<(), RuleError> {
        let file: RuleFile = serde_json::from_str(text).map_err(|source| RuleError::Parse {
            path: path.to_path_buf(),
            source,
        })?;
        if file.schema_version != RULE_SCHEMA_VERSION {
            return Err(RuleError::SchemaVersion {
                path: path.to_path_buf(),
                found: file.schema_version,
            });
        }
        self.families.extend(file.families);
        self.chain.extend(file.chain);
        self.debug_only.extend(file.debug_only);
        let mut compiled = Vec::with_capacity(file.rules.len());
        for rule in file.rules {
            if !self.families.contains_key(&rule.family) {
                return Err(RuleError::UnknownFamily {
                    path: path.to_path_buf(),
                    rule: rule.id.clone(),
                    family: rule.family.clone(),
                });
            }
            compiled.push(CompiledRule {
                exact: rule.matcher.exact.iter().cloned().collect(),
                rule,
            });
        }
        let added = compiled.len();
        if first {
            compiled.append(&mut self.rules);
            self.rules = compiled;
        } else {
            self.rules.append(&mut compiled);
        }
        match Matchers::new(&self.rules) {
            Ok(matchers) => {
                self.matchers = matchers;
                Ok(())
            }
            Err(source) => {
                let error = self.bad_pattern(path, source);
                // The book keeps its rules from before this file.
                if first {
                    self.rules.drain(..added);
                } else {
                    self.rules.truncate(self.rules.len() - added);
                }
                Err(error)
            }
        }
    }

    /// The error for rules whose patterns do not compile as one set: the first rule with a
    /// pattern that does not compile alone (each is compiled only now, on this error path), or
    /// the set as a whole (too big together).
    fn bad_pattern(&self, path: &Path, set_error: PatternError) -> RuleError {
        let bad_rule = self.rules.iter().find_map(|compiled| {
            let m = &compiled.rule.matcher;
            [&m.regex, &m.demangled_regex, &m.scope_regex]
                .into_iter()
                .flatten()
                .find_map(|pattern| PatternSet::check(pattern).err())
                .map(|error| (compiled.rule.id.clone(), error))
        });
        let (rule, source) =
            bad_rule.unwrap_or_else(|| ("(all rules, as one set)".into(), set_error));
        RuleError::Regex {
            path: path.to_path_buf(),
            rule,
            source,
        }
    }

    /// The family with this id.
    pub fn family(&self, id: &str) -> Option<&Family> {
        self.families.get(id)
    }

    /// Whether the family with this id is one of the C runtime's (its `crt` flag); an unknown id
    /// is not.
    pub fn is_crt_family(&self, id: &str) -> bool {
        self.family(id).is_some_and(|f| f.crt)
    }

    /// Every rule, in matching order.
    pub fn rules(&self) -> impl Iterator<Item = &Rule> {
        self.rules.iter().map(|r| &r.rule)
    }

    /// Whether a classification's `source` (`rule <id>`) is a rule that matches by the symbol's
    /// own scope (`scope_regex`: a library's namespace), so that a name the library does not
    /// export is internal to it.
    pub fn is_scope_rule(&self, source: &str) -> bool {
        source.strip_prefix("rule ").is_some_and(|id| {
            self.rules()
                .any(|r| r.id == id && r.matcher.scope_regex.is_some())
        })
    }

    /// The explicit default-library chain for a flavour.
    pub fn chain(&self, flavour: Flavour) -> &[String] {
        self.chain.get(&flavour).map_or(&[], Vec::as_slice)
    }

    /// Whether a name exists only in the debug CRT (so referencing it means a debug build).
    pub fn is_debug_only(&self, name: &str) -> bool {
        // The list in rules.json, and every name only the debug chains define (crt-chain table).
        self.debug_only.contains(name) || names::is_debug_only(name)
    }

    /// The library a family uses for a flavour.
    pub fn family_library(&self, family: &str, flavour: Flavour) -> Option<&str> {
        self.families
            .get(family)?
            .libraries
            .as_ref()?
            .get(&flavour)
            .map(String::as_str)
    }

    /// Whether a library file name belongs to a CRT family, and to which flavour.
    pub fn crt_library_flavours(&self, library: &str) -> Vec<(String, Flavour)> {
        let mut out = Vec::new();
        for (id, family) in &self.families {
            if !family.crt || id == "oldnames" {
                continue;
            }
            if let Some(libraries) = &family.libraries {
                for (flavour, name) in libraries {
                    if name.eq_ignore_ascii_case(library) {
                        out.push((id.clone(), *flavour));
                    }
                }
            }
        }
        out
    }

    /// Classifies a symbol: exact-name rules first (the rule book's rows and verified homes),
    /// then the generated name tables, then prefix, pattern and `__imp_` rules.
    pub fn classify(&self, key: SymbolKey<'_>) -> Option<Classification> {
        let exact = self
            .matchers
            .exact(key.name)
            .map(|index| &self.rules[index]);
        // What the real chain libraries define (generated from them) answers first, flavour by
        // flavour; an exact rule still contributes the rule book's own claim.
        // A dllimport reference first as `__imp_X`: the table lists it apart where the library
        // defining that exact name differs from the one defining the bare name.
        let mut hits = names::chain_lookup(key.name);
        if key.import {
            hits.extend(names::chain_lookup(&format!("__imp_{}", key.name)));
        }
        if let Some(first) = hits.first().filter(|_| !old_stdio_import(key, &hits)) {
            let mut by_flavour = BTreeMap::new();
            // Bare hits first, then the `__imp_X` ones, which override for their flavours.
            for hit in &hits {
                for flavour in &hit.flavours {
                    if let Some(library) = self.family_library(hit.family, *flavour) {
                        by_flavour.insert(*flavour, (hit.family.to_string(), library.to_string()));
                    }
                }
            }
            let from_rule = exact.map(|rule| self.classification_of(rule));
            let family = from_rule
                .as_ref()
                .map(|c| c.family.clone())
                .filter(|f| hits.iter().any(|h| h.family == f))
                .unwrap_or_else(|| first.family.to_string());
            let fixed = self
                .families
                .get(&family)
                .and_then(|f| f.libraries.as_ref())
                .and_then(|l| {
                    let mut names: Vec<&String> = l.values().collect();
                    names.dedup();
                    (names.len() == 1).then(|| names[0].clone())
                });
            return Some(Classification {
                family,
                library: fixed,
                dll: None,
                source: "table crt-chain".into(),
                rulebook_differs: from_rule.and_then(|c| c.rulebook_differs),
                by_flavour: Some(by_flavour),
            });
        }
        if let Some(rule) = exact {
            return Some(self.classification_of(rule));
        }
        if let Some(hit) = names::lookup(key.name).into_iter().next() {
            return Some(self.classification_of_table(hit));
        }
        self.matchers
            .first_match(key)
            .map(|index| self.classification_of(&self.rules[index]))
    }

    /// The classification a name table's hit gives: the table's family (for the HIP SDK and
    /// torch tables, the family whose library the hit names), its library when the table fixes it.
    fn classification_of_table(&self, hit: names::NameHit) -> Classification {
        let family = match hit.table {
            names::NameTable::WindowsApi => "windows-system",
            // ntdll.lib imports; legacy_stdio_definitions.lib (the UCRT's old stdio).
            names::NameTable::SdkExtra if hit.dll_name().is_some() => "windows-system",
            names::NameTable::SdkExtra => "legacy-stdio",
            names::NameTable::HipRuntime => "hip-runtime",
            names::NameTable::HipSdk | names::NameTable::Torch => {
                self.family_of_library(hit.library).unwrap_or("dll-import")
            }
            names::NameTable::Ucrt => "ucrt",
            names::NameTable::Vcruntime => "vcruntime",
            names::NameTable::Msvcp => "cxx-stdlib",
            // The version's library is chosen from the log (resolve/python.rs).
            names::NameTable::Python if hit.library == names::PYTHON_DEBUG_SECTION => {
                "python-debug"
            }
            names::NameTable::Python => "python-c-api",
            names::NameTable::Node => "node",
            names::NameTable::Cuda => "cuda",
        };
        let fixed = matches!(
            hit.table,
            names::NameTable::WindowsApi
                | names::NameTable::SdkExtra
                | names::NameTable::HipRuntime
                | names::NameTable::HipSdk
                | names::NameTable::Torch
                | names::NameTable::Node
                | names::NameTable::Cuda
        );
        let python = hit.table == names::NameTable::Python;
        Classification {
            family: family.to_string(),
            library: fixed.then(|| hit.library.to_string()),
            dll: (!python)
                .then(|| hit.dll_name().map(str::to_string))
                .flatten(),
            source: format!("table {}", hit.table.file_name().trim_end_matches(".txt")),
            rulebook_differs: None,
            by_flavour: None,
        }
    }

    /// The family whose one library, in every flavour, is `library` (case ignored).
    fn family_of_library(&self, library: &str) -> Option<&str> {
        self.families.iter().find_map(|(id, f)| {
            let all = f.libraries.as_ref()?;
            all.values()
                .all(|l| l.eq_ignore_ascii_case(library))
                .then_some(id.as_str())
        })
    }

    fn classification_of(&self, rule: &CompiledRule) -> Classification {
        let rule = &rule.rule;
        let fixed = self
            .families
            .get(&rule.family)
            .and_then(|f| f.libraries.as_ref())
            .and_then(|libraries| {
                let mut names: Vec<&String> = libraries.values().collect();
                names.dedup();
                (names.len() == 1).then(|| names[0].clone())
            });
        Classification {
            family: rule.family.clone(),
            library: fixed,
            dll: None,
            source: format!("rule {}", rule.id),
            rulebook_differs: rule.rulebook_family.as_ref().map(|claimed| {
                format!(
                    "the rule book says {claimed}; {}",
                    rule.verified
                        .as_deref()
                        .unwrap_or("the verified home differs")
                )
            }),
            by_flavour: None,
        }
    }
}

/// A dllimport reference (`__imp_fprintf`) to a printf/scanf name that only the static UCRT
/// defines among the chain libraries: no DLL of the current CRT exports it (the headers made the
/// family inline in Visual Studio 2015), so the reference comes from an object built against the
/// older DLL CRT, and `legacy_stdio_definitions.lib` is its answer (the linker resolves the
/// import to that library's definition, with LNK4217), not a flavour of the chain.
fn old_stdio_import(key: SymbolKey<'_>, hits: &[names::ChainHit]) -> bool {
    key.import
        && hits
            .iter()
            .all(|h| h.flavours.iter().all(|f| !f.is_dynamic()))
        && names::lookup(key.name)
            .iter()
            .any(|h| h.table == names::NameTable::SdkExtra && h.dll_name().is_none())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn classify(name: &str, demangled: &str, import: bool) -> Option<Classification> {
        RuleBook::builtin().classify(SymbolKey {
            name,
            demangled,
            import,
        })
    }

    /// A rule on the C++ library's scope decides by the symbol's own name: a third-party
    /// function that returns `std::string` is not the C++ library's.
    #[test]
    fn the_symbols_own_scope_decides() {
        assert_eq!(
            own_name("public: class std::basic_string<char, struct std::char_traits<char>, class std::allocator<char> > __cdecl ui::Widget::name(void) const"),
            "ui::Widget::name(void) const"
        );
        assert_eq!(
            own_name("public: static class std::locale::id std::ctype<char>::id"),
            "std::ctype<char>::id"
        );
        assert_eq!(own_name("hipMalloc"), "hipMalloc");
        let third_party = classify(
            "?name@Widget@ui@@QEBA?AV?$basic_string@DU?$char_traits@D@std@@V?$allocator@D@2@@std@@XZ",
            "public: class std::basic_string<char, struct std::char_traits<char>, class std::allocator<char> > __cdecl ui::Widget::name(void) const",
            false,
        );
        assert!(third_party.is_none(), "{third_party:?}");
        let own = classify(
            "??0?$basic_string@DU?$char_traits@D@std@@VArena@@@std@@QEAA@XZ",
            "public: __cdecl std::basic_string<char, struct std::char_traits<char>, class Arena>::basic_string<char, struct std::char_traits<char>, class Arena>(void)",
            false,
        )
        .unwrap();
        assert_eq!(own.family, "cxx-stdlib");
    }

    /// `__imp_fprintf` comes from an object built against the DLL CRT before 2015 (no current DLL
    /// exports the printf family): legacy_stdio_definitions.lib, not the static UCRT's flavour;
    /// a plain `fprintf` stays the UCRT's, by flavour.
    #[test]
    fn an_imported_old_stdio_name_is_legacy_stdio() {
        let imported = classify("fprintf", "fprintf", true).unwrap();
        assert_eq!(imported.family, "legacy-stdio");
        assert_eq!(
            imported.library.as_deref(),
            Some("legacy_stdio_definitions.lib")
        );
        assert_eq!(
            classify("fprintf", "fprintf", false).unwrap().family,
            "ucrt"
        );
        // A name a current DLL exports keeps its chain answer when imported.
        assert_eq!(classify("malloc", "malloc", true).unwrap().family, "ucrt");
    }

    #[test]
    fn builtin_rules_load_and_cover_the_rule_book_rows() {
        let rows = [
            ("hipMalloc", "hipMalloc", false, "hip-runtime"),
            ("_tls_index", "_tls_index", false, "crt-startup"),
            (
                "_Init_thread_header",
                "_Init_thread_header",
                false,
                "crt-startup",
            ),
            ("atexit", "atexit", false, "crt-startup"),
            ("__chkstk", "__chkstk", false, "crt-startup"),
            ("wcsnlen", "wcsnlen", false, "ucrt"),
            ("___lc_codepage_func", "___lc_codepage_func", false, "ucrt"),
            ("__acrt_iob_func", "__acrt_iob_func", false, "ucrt"),
            (
                "__CxxFrameHandler4",
                "__CxxFrameHandler4",
                false,
                "vcruntime",
            ),
            ("__GSHandlerCheck", "__GSHandlerCheck", false, "crt-startup"),
            (
                "??3@YAXPEAX_K@Z",
                "void __cdecl operator delete(void *, unsigned __int64)",
                false,
                "crt-startup",
            ),
            (
                "??_7type_info@@6B@",
                "const type_info::`vftable'",
                false,
                "crt-startup",
            ),
            ("__std_search_1", "__std_search_1", false, "cxx-stdlib"),
            (
                "?_Xlength_error@std@@YAXPEBD@Z",
                "void __cdecl std::_Xlength_error(char const *)",
                false,
                "cxx-stdlib",
            ),
        ];
        let mut failures = Vec::new();
        for (name, demangled, import, family) in rows {
            let got = classify(name, demangled, import).map(|c| c.family);
            if got.as_deref() != Some(family) {
                failures.push(format!("{name}: want {family}, got {got:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn rule_book_disagreements_are_recorded() {
        let c = classify("__GSHandlerCheck", "__GSHandlerCheck", false).unwrap();
        assert!(c.rulebook_differs.unwrap().contains("vcruntime"));
        assert!(classify("__CxxFrameHandler4", "", false)
            .unwrap()
            .rulebook_differs
            .is_none());
    }

    /// A HIP SDK name the table lists is answered by the table, with its DLL; one with the
    /// library's prefix that the table lacks (newer, or misspelt) by the library's prefix rule,
    /// to the same library: rocBLAS, rocSOLVER and rocFFT as hipBLAS always were.
    #[test]
    fn hip_sdk_names_from_the_table_and_the_rest_by_prefix() {
        // (family, library, dll, source) of a name's answer.
        let answer = |name: &str| {
            let c = classify(name, name, false).expect(name);
            (c.family, c.library, c.dll, c.source)
        };
        for (name, family, library, dll) in [
            ("rocblas_sgemm", "rocblas", "rocblas.lib", "rocblas.dll"),
            (
                "rocsolver_dgetrf",
                "rocsolver",
                "rocsolver.lib",
                "rocsolver.dll",
            ),
            ("rocfft_plan_create", "rocfft", "rocfft.lib", "rocfft.dll"),
            ("hipblasSgemm", "hipblas", "hipblas.lib", "hipblas.dll"),
        ] {
            let (f, l, d, source) = answer(name);
            let got = (f.as_str(), l.as_deref(), d.as_deref(), source.as_str());
            let want = (family, Some(library), Some(dll), "table hip-sdk");
            assert_eq!(got, want, "{name}");
        }
        for (name, family, library) in [
            ("rocblas_sgemm_ex_nonexistent", "rocblas", "rocblas.lib"),
            ("rocsolver_dgetrf_nonexistent", "rocsolver", "rocsolver.lib"),
            ("rocfft_plan_nonexistent", "rocfft", "rocfft.lib"),
            ("hipblasSgemm_nonexistent", "hipblas", "hipblas.lib"),
        ] {
            let (f, l, d, source) = answer(name);
            let got = (f.as_str(), l.as_deref(), d.as_deref(), source.as_str());
            let rule = format!("rule {family}-prefix");
            assert_eq!(got, (family, Some(library), None, rule.as_str()), "{name}");
        }
        // Not shipped for Windows: no table names a library, the rule says there is none.
        for name in [
            "roctxRangePushA",
            "ncclAllReduce",
            "pncclAllReduce",
            "_roctxMarkA",
        ] {
            let c = classify(name, name, false).expect(name);
            assert_eq!(
                (c.family.as_str(), c.library.as_deref(), c.source.as_str()),
                ("gpu-linux-only", None, "rule gpu-linux-only"),
                "{name}"
            );
        }
        // The prefixes alone are not enough: a name that only starts with the letters is no one's.
        for name in ["ncclient_open", "roctxt_parse", "nccl"] {
            assert!(classify(name, name, false).is_none(), "{name}");
        }
    }

    #[test]
    fn unknown_stays_unknown() {
        assert!(classify("rocksdb_get_pinned", "rocksdb_get_pinned", false).is_none());
    }

    #[test]
    fn pattern_sets_answer_as_regex_sets_do() {
        let book = RuleBook::builtin();
        let mut patterns: Vec<&str> = book
            .rules()
            .flat_map(|rule| {
                [
                    &rule.matcher.regex,
                    &rule.matcher.demangled_regex,
                    &rule.matcher.scope_regex,
                ]
            })
            .flatten()
            .map(String::as_str)
            .collect();
        assert!(patterns.len() >= 3, "{patterns:?}");
        patterns.extend([
            r"^_?hip[A-Z]",
            r"\bstd::",
            r"(?i)^__imp_",
            r"é\w+$",
            r"^$",
            r"x*",
        ]);
        let ours = PatternSet::build(&patterns).unwrap().unwrap();
        let theirs = regex::RegexSet::new(&patterns).unwrap();
        let texts = [
            "",
            "hipMalloc",
            "_hipLaunchKernel",
            "void * __cdecl operator new(unsigned __int64)",
            "void __cdecl operator delete[](void *)",
            "const type_info::`vftable'",
            "public: __cdecl std::_Lockit::_Lockit(int)",
            "class std::basic_ostream<char> & std::operator<<(void)",
            "ystd::_Lockit",
            "__IMP_CreateFileW",
            "caféx",
            "caf\u{e9}",
        ];
        for text in texts {
            let want = theirs.matches(text).iter().next();
            assert_eq!(ours.first_match(text), want, "{text:?}");
        }
    }

    #[test]
    fn a_bad_pattern_names_its_rule_and_leaves_the_book_as_it_was() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.json");
        std::fs::write(
            &path,
            r#"{"schema_version":1,"rules":[
                {"id":"fine","match":{"regex":"^ok_"},"family":"ucrt"},
                {"id":"broken","match":{"demangled_regex":"std::(unclosed"},"family":"ucrt"}]}"#,
        )
        .unwrap();
        for first in [true, false] {
            let mut book = RuleBook::builtin();
            let before: Vec<String> = book.rules().map(|r| r.id.clone()).collect();
            let text = std::fs::read_to_string(&path).unwrap();
            let err = book.add_text(&text, &path, first).unwrap_err().to_string();
            assert!(
                err.contains("mine.json") && err.contains("rule broken"),
                "{err}"
            );
            // The syntax error itself, not only the pattern's number.
            assert!(err.contains("unclosed group"), "{err}");
            let after: Vec<String> = book.rules().map(|r| r.id.clone()).collect();
            assert_eq!(after, before);
            let key = SymbolKey {
                name: "ok_name",
                demangled: "ok_name",
                import: false,
            };
            assert!(book.classify(key).is_none());
        }
    }

    #[test]
    fn user_rules_go_first_and_bad_files_are_errors() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine.json");
        std::fs::write(
            &path,
            r#"{"schema_version":1,"families":{"rocksdb":{"description":"RocksDB","crt":false,"libraries":{"static":"rocksdb.lib","dynamic":"rocksdb.lib","static-debug":"rocksdb.lib","dynamic-debug":"rocksdb.lib"}}},
               "rules":[{"id":"mine","match":{"prefix":["rocksdb_"]},"family":"rocksdb"}]}"#,
        )
        .unwrap();
        let mut book = RuleBook::builtin();
        book.add_file(&path).unwrap();
        let c = book
            .classify(SymbolKey {
                name: "rocksdb_get",
                demangled: "rocksdb_get",
                import: false,
            })
            .unwrap();
        assert_eq!(
            (c.family.as_str(), c.library.as_deref()),
            ("rocksdb", Some("rocksdb.lib"))
        );

        std::fs::write(
            &path,
            r#"{"schema_version":1,"rules":[{"id":"x","match":{},"family":"nope"}]}"#,
        )
        .unwrap();
        let err = RuleBook::builtin().add_file(&path).unwrap_err().to_string();
        assert!(err.contains("mine.json") && err.contains("nope"), "{err}");
        std::fs::write(&path, "{").unwrap();
        assert!(RuleBook::builtin().add_file(&path).is_err());
    }
}
