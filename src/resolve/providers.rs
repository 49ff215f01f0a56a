//! Matching unresolved symbols against the library index: exact linker names, dllimport against
//! import members and static definitions, x86 decorations, demangled names through the canonical
//! form, the ranking a Windows engineer would use, and near misses when nothing matches exactly.

use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::path::Path;

use crate::index::{Index, LibrarySymbol, SymbolKind};
use crate::read::demangle;
use crate::read::symbols::UnresolvedSymbol;
use crate::rules::roles::{LibraryRole, Roles};
use crate::rules::{Flavour, RuleBook};

/// One library that defines a symbol.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Provider {
    /// The library file name exactly as on disk (`AdvAPI32.Lib`).
    pub library: String,
    /// The full path of the file.
    pub path: String,
    /// The archive member (or PDB module) that defines it.
    pub member: Option<String>,
    /// The DLL it imports from, for import members and exports.
    pub dll: Option<String>,
    /// How it defines it.
    pub kind: ProviderKind,
    /// The exact linker-level name that matched (the real mangled name for a demangled match).
    pub matched_name: String,
    /// Which kind of file it was found in.
    pub source: ProviderSource,
    /// A note about the match (LNK4217, demangled match, ...).
    pub note: Option<String>,
    /// What the file is for (`symbol-db/roles.json`).
    pub role: LibraryRole,
    /// What the role file says the file is for, when it names it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub purpose: Option<String>,
    /// Why this provider is never the answer for the chosen CRT flavour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub excluded: Option<String>,
    /// A static definition of `X` standing in for a wanted `__imp_X` (LNK4217): ranked after a
    /// definition of the exact name in a library of the same role.
    #[serde(skip)]
    pub stands_in_for_import: bool,
}

/// A symbol that almost matches: same qualified name, something else differs.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct NearMiss {
    /// What the link wanted (demangled).
    pub wanted: String,
    /// What the library defines (demangled).
    pub found: String,
    /// The defined linker-level name.
    pub found_name: String,
    /// Where it is defined.
    pub library: String,
    /// The likely cause, for people.
    pub cause: String,
}

/// How a provider defines a symbol: [`SymbolKind`] without its details. Serialised in
/// snake_case (`import_code`, `pdb_public`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProviderKind {
    /// An import member for code.
    ImportCode,
    /// An import member for data.
    ImportData,
    /// An import member for a constant.
    ImportConst,
    /// An external definition in an object.
    Defined,
    /// A weak external or `/alternatename`.
    Alias,
    /// A DLL export.
    Export,
    /// A PDB public.
    PdbPublic,
}

impl From<&SymbolKind> for ProviderKind {
    fn from(kind: &SymbolKind) -> ProviderKind {
        match kind {
            SymbolKind::ImportCode => ProviderKind::ImportCode,
            SymbolKind::ImportData => ProviderKind::ImportData,
            SymbolKind::ImportConst => ProviderKind::ImportConst,
            SymbolKind::Defined => ProviderKind::Defined,
            SymbolKind::Alias { .. } => ProviderKind::Alias,
            SymbolKind::Export => ProviderKind::Export,
            SymbolKind::PdbPublic => ProviderKind::PdbPublic,
        }
    }
}

/// The kind of file a provider was found in. Serialised as `archive` or `pdb`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProviderSource {
    /// A library, object, DLL or `.def` file of the index.
    Archive,
    /// A linker PDB: a link that succeeded resolved the name.
    Pdb,
}

impl ProviderSource {
    /// The word it is serialised as.
    pub fn as_str(self) -> &'static str {
        match self {
            ProviderSource::Archive => "archive",
            ProviderSource::Pdb => "pdb",
        }
    }
}

impl std::fmt::Display for ProviderSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string_lossy().into_owned())
}

fn provider_of(symbol: &LibrarySymbol, note: Option<String>) -> Provider {
    let is_pdb = symbol.kind == SymbolKind::PdbPublic;
    let mut provider = Provider {
        library: if is_pdb {
            symbol
                .source_library
                .as_deref()
                .map(|l| l.rsplit(['\\', '/']).next().unwrap_or(l).to_string())
                .unwrap_or_else(|| file_name(&symbol.library))
        } else {
            file_name(&symbol.library)
        },
        path: symbol.library.to_string_lossy().into_owned(),
        member: symbol.member.clone(),
        dll: symbol.dll.clone(),
        kind: ProviderKind::from(&symbol.kind),
        matched_name: symbol.name.clone(),
        source: if is_pdb {
            ProviderSource::Pdb
        } else {
            ProviderSource::Archive
        },
        note,
        role: LibraryRole::ThirdParty,
        purpose: None,
        excluded: None,
        stands_in_for_import: false,
    };
    let role = Roles::builtin().role_of(&provider.library);
    provider.role = role.role;
    provider.purpose = role.purpose.map(str::to_string);
    provider
}

/// The unqualified name of a demangled C++ function or variable: the last identifier before the
/// parameter list, template arguments removed (`operator delete` kept whole).
pub fn unqualified_key(demangled: &str) -> Option<String> {
    let text = demangled.trim();
    if let Some(at) = text.find("operator") {
        let rest = &text[at..];
        let end = rest.find('(').unwrap_or(rest.len());
        return Some(rest[..end].split_whitespace().collect::<Vec<_>>().join(" "));
    }
    // Cut the parameter list: the first '(' at template depth 0.
    let mut depth = 0i32;
    let mut end = text.len();
    for (i, c) in text.char_indices() {
        match c {
            '<' => depth += 1,
            '>' => depth -= 1,
            '(' if depth == 0 => {
                end = i;
                break;
            }
            _ => {}
        }
    }
    let head = &text[..end];
    // Drop trailing template arguments, then take the last `::` component's last word.
    let mut depth = 0i32;
    let mut cut = head.len();
    for (i, c) in head.char_indices().rev() {
        match c {
            '>' => depth += 1,
            '<' => {
                depth -= 1;
                if depth == 0 {
                    cut = i;
                }
            }
            _ => {}
        }
        if depth == 0 && cut != head.len() {
            break;
        }
    }
    let head = &head[..cut];
    let last = head.rsplit("::").next()?;
    let word = last.split_whitespace().last()?;
    let word = word.trim_matches(|c: char| {
        !(c.is_alphanumeric() || c == '_' || c == '~' || c == '`' || c == '\'')
    });
    (!word.is_empty()).then(|| word.to_string())
}

/// The unqualified key of an index name: cheap for `?name@...` (the text between `?` and `@`),
/// demangled for special names (`??...`).
fn index_key(name: &str) -> Option<String> {
    let bare = name.strip_prefix("__imp_").unwrap_or(name);
    if let Some(rest) = bare.strip_prefix('?') {
        if rest.starts_with('?') {
            return unqualified_key(&demangle::demangle(bare).text);
        }
        return rest
            .split('@')
            .next()
            .filter(|n| !n.is_empty())
            .map(str::to_string);
    }
    None
}

/// Where a provider sorts among the providers of one name; lower sorts first.
///
/// Compared field by field: a provider outside the chosen CRT flavour is never chosen
/// (`excluded`), then the file's role ([`LibraryRole`], from `symbol-db/roles.json`: the chain,
/// then ordinary import/static/third-party libraries, then umbrella, add-on, special runtime, CRT
/// variant, link-option object, managed runtime), then the position in the flavour's chain (ties
/// inside the chain go to the chain's order, so the answer does not depend on the order of the
/// directories), then the import library named after its DLL before others that import from it,
/// then a release library before its debug twin unless the evidence says debug. Equal ranks keep
/// search order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Rank {
    /// The provider belongs to another CRT flavour than the chosen one.
    pub excluded: bool,
    /// The role's rank.
    pub role: u8,
    /// 1 for a static definition standing in for a wanted `__imp_X` (the exact name first).
    pub stands_in: u8,
    /// The position of the library in the flavour's default-library chain (0 outside it).
    pub chain_position: u8,
    /// 0: named after its DLL, or static; 1: imports from a DLL named otherwise.
    pub dll: u8,
    /// 1 when the library's debug-ness differs from the evidence (flavour unknown).
    pub debug: u8,
}

/// The provider ranking a Windows engineer would use (see [`Rank`]).
pub fn rank(book: &RuleBook, provider: &Provider, flavour: Option<Flavour>) -> Rank {
    let lower = provider.library.to_ascii_lowercase();
    let stem = lower.strip_suffix(".lib").unwrap_or(&lower).to_string();
    let role = Roles::builtin().role_of(&provider.library);
    let crt = book.crt_library_flavours(&lower);
    let chain_position = |f: Flavour| {
        book.chain(f)
            .iter()
            .position(|name| name.eq_ignore_ascii_case(&lower))
    };
    let (excluded, position) = match flavour {
        Some(f) if role.role == LibraryRole::Chain => match chain_position(f) {
            Some(at) => (false, at),
            None => (true, 0),
        },
        Some(f) => (role.flavours.is_some_and(|list| !list.contains(&f)), 0),
        None => (
            false,
            Flavour::ALL
                .iter()
                .filter_map(|f| chain_position(*f))
                .min()
                .unwrap_or(0),
        ),
    };
    let named_after_dll = provider
        .dll
        .as_deref()
        .map(|d| d.to_ascii_lowercase())
        .is_some_and(|d| d.strip_suffix(".dll").unwrap_or(&d) == stem);
    let dll = u8::from(!(named_after_dll || provider.dll.is_none()));
    let debug_library = (!crt.is_empty() && crt.iter().all(|(_, g)| g.is_debug()))
        || role
            .flavours
            .is_some_and(|list| list.iter().all(|f| f.is_debug()));
    let wants_debug = flavour.is_some_and(Flavour::is_debug);
    let has_flavour = !crt.is_empty() || role.flavours.is_some();
    Rank {
        excluded,
        role: role.rank,
        stands_in: u8::from(provider.stands_in_for_import),
        chain_position: u8::try_from(position).unwrap_or(u8::MAX),
        dll,
        debug: u8::from(has_flavour && debug_library != wants_debug),
    }
}

/// Everything the index says about one symbol.
#[derive(Debug, Clone, Default)]
pub struct Match {
    /// Providers, best first.
    pub providers: Vec<Provider>,
    /// Near misses, when no provider matched.
    pub near_misses: Vec<NearMiss>,
}

/// Demangled-name matching, prepared once for all symbols: one pass over the index's names,
/// demangling only those whose unqualified name is wanted.
pub struct DemangledIndex<'a> {
    by_key: HashMap<String, Vec<&'a str>>,
}

impl<'a> DemangledIndex<'a> {
    /// Collects the index names whose unqualified name one of `symbols` has.
    pub fn new(index: &'a Index, symbols: &[UnresolvedSymbol]) -> DemangledIndex<'a> {
        let mut wanted: HashMap<String, ()> = HashMap::new();
        // Only symbols with no exact provider need demangled matching or near misses; when
        // every symbol has one (the common case), the index's names are never scanned.
        for s in symbols.iter().filter(|s| !has_exact_provider(index, s)) {
            if let Some(parts) = itanium_qualified_name(s.lookup_name()) {
                wanted.insert(parts.last().cloned().unwrap_or_default(), ());
            } else if let Some(key) = unqualified_key(s.demangled()) {
                wanted.insert(key, ());
            }
            wanted.insert(s.lookup_name().to_string(), ());
        }
        let mut by_key: HashMap<String, Vec<&'a str>> = HashMap::new();
        if wanted.is_empty() {
            return DemangledIndex { by_key };
        }
        for name in index.names() {
            let key = match index_key(name) {
                Some(k) => k,
                None => {
                    // C names: keyed by themselves (for C/C++ linkage near misses).
                    let bare = name.strip_prefix("__imp_").unwrap_or(name);
                    bare.to_string()
                }
            };
            if wanted.contains_key(&key) {
                by_key.entry(key).or_default().push(name);
            }
        }
        DemangledIndex { by_key }
    }

    fn candidates(&self, key: &str) -> &[&'a str] {
        self.by_key.get(key).map_or(&[], Vec::as_slice)
    }
}

/// Whether the symbol's linker-level name (or, for `__imp_X`, a static `X`) is defined as is.
fn has_exact_provider(index: &Index, symbol: &UnresolvedSymbol) -> bool {
    let Some(linker) = &symbol.linker_name() else {
        return false;
    };
    !index.providers(linker).is_empty()
        || linker
            .strip_prefix("__imp_")
            .is_some_and(|bare| index.lookup(bare).iter().any(|s| !s.is_import()))
}

/// The demangled form of an index name, without the dllimport prefix.
fn demangled_of(name: &str) -> (String, bool) {
    let d = demangle::demangle(name);
    (d.text, d.import)
}

/// Finds the providers of one symbol, ranked, and near misses when there are none.
pub fn find(
    index: &Index,
    demangled_index: &DemangledIndex<'_>,
    book: &RuleBook,
    symbol: &UnresolvedSymbol,
    flavour: Option<Flavour>,
) -> Match {
    let mut providers: Vec<Provider> = Vec::new();
    let push = |found: &LibrarySymbol, note: Option<String>, providers: &mut Vec<Provider>| {
        let p = provider_of(found, note);
        if !providers
            .iter()
            .any(|q| q.path == p.path && q.matched_name == p.matched_name && q.dll == p.dll)
        {
            providers.push(p);
        }
    };
    if let Some(linker) = &symbol.linker_name() {
        for found in index.providers(linker) {
            push(found, None, &mut providers);
        }
        if let Some(bare) = linker.strip_prefix("__imp_") {
            for found in index.lookup(bare).iter().filter(|s| !s.is_import()) {
                push(
                    found,
                    Some("a static definition satisfies the dllimport reference (link.exe warns LNK4217)".into()),
                    &mut providers,
                );
                if let Some(last) = providers.last_mut() {
                    if last.matched_name == bare {
                        last.stands_in_for_import = true;
                    }
                }
            }
        }
    }
    if providers.is_empty() && symbol.linker_name().is_none() {
        // A demangled name only (lld-link's default output): match through the canonical form.
        let want = &symbol.canonical();
        if let Some(key) = unqualified_key(symbol.demangled()) {
            for name in demangled_index.candidates(&key) {
                let (text, import) = demangled_of(name);
                if import == symbol.import && demangle::canonical(&text) == *want {
                    for found in index.lookup(name) {
                        push(
                            found,
                            Some(format!("matched by demangled name: {name}")),
                            &mut providers,
                        );
                    }
                }
            }
        }
    }
    // x86 C names shown undecorated against decorated definitions, and the reverse, are handled
    // by Index::providers (export names); plain `_name` cdecl definitions:
    if providers.is_empty() && symbol.x86_decoration.is_some() && symbol.linker_name().is_some() {
        for found in index.lookup(&format!("_{}", symbol.lookup_name())) {
            push(found, None, &mut providers);
        }
    }
    let providers = ranked(book, providers, flavour);
    let near_misses = if providers.iter().all(|p| p.excluded.is_some()) {
        near_misses(index, demangled_index, symbol)
    } else {
        Vec::new()
    };
    Match {
        providers,
        near_misses,
    }
}

/// The providers in rank order (first found first among equals), those of another CRT flavour
/// than `flavour` marked excluded.
fn ranked(book: &RuleBook, providers: Vec<Provider>, flavour: Option<Flavour>) -> Vec<Provider> {
    let mut ranked: Vec<(Rank, usize, Provider)> = providers
        .into_iter()
        .enumerate()
        .map(|(order, p)| (rank(book, &p, flavour), order, p))
        .collect();
    ranked.sort_by_key(|(rank, order, _)| (*rank, *order));
    let mut providers: Vec<Provider> = Vec::with_capacity(ranked.len());
    for (rank, _, mut p) in ranked {
        if rank.excluded {
            if let Some(f) = flavour {
                p.excluded = Some(format!(
                    "{} belongs to another CRT flavour than {f}: never mixed",
                    p.library
                ));
            }
        }
        providers.push(p);
    }
    providers
}

/// Why two names of the same function differ: their demangled texts, and the linker-level names
/// when known (`wanted_name` is the reference's, `found_name` the definition's).
fn difference_cause(
    wanted: &str,
    found: &str,
    wanted_name: Option<&str>,
    found_name: &str,
) -> String {
    let strip = |s: &str, word: &str| demangle::canonical(&s.replace(word, " "));
    let (w, f) = (demangle::canonical(wanted), demangle::canonical(found));
    if let Some(cause) = mangling_cause(&w, &f, wanted_name, found_name) {
        return cause;
    }
    if let Some(cause) = int64_cause(&w, &f) {
        return cause;
    }
    if strip(&w, "const") == strip(&f, "const") {
        return "const differs: the declaration and the definition disagree on const".into();
    }
    for cc in [
        "__cdecl",
        "__stdcall",
        "__fastcall",
        "__vectorcall",
        "__thiscall",
    ] {
        if strip(&w, cc) != w || strip(&f, cc) != f {
            let norm = |s: &str| {
                [
                    "__cdecl",
                    "__stdcall",
                    "__fastcall",
                    "__vectorcall",
                    "__thiscall",
                ]
                .iter()
                .fold(s.to_string(), |acc, c| acc.replace(c, " "))
            };
            if demangle::canonical(&norm(&w)) == demangle::canonical(&norm(&f)) {
                return format!(
                    "calling convention differs: declared {}, the library defines {}; declare it as the library's header does",
                    convention_of(&w),
                    convention_of(&f)
                );
            }
        }
    }
    if w.replace("unsigned short", "wchar_t") == f.replace("unsigned short", "wchar_t") {
        return "wchar_t vs unsigned short: one side was compiled with /Zc:wchar_t-".into();
    }
    let ints = |s: &str| {
        s.replace("unsigned long", "unsigned int")
            .replace("long", "int")
    };
    if ints(&w) == ints(&f) {
        return "int vs long: the parameter types differ".into();
    }
    "another signature: the declaration and the definition disagree".into()
}

/// The calling convention a demangled function shows (`__cdecl` when it shows none).
fn convention_of(demangled: &str) -> &'static str {
    [
        "__stdcall",
        "__fastcall",
        "__vectorcall",
        "__thiscall",
        "__cdecl",
    ]
    .into_iter()
    .find(|cc| demangled.contains(cc))
    .unwrap_or("__cdecl")
}

/// Two compilers that mangle the same declaration differently: an Itanium (`_Z`) reference
/// against an MSVC (`?`) definition, or the same demangled declaration under two MSVC-style names
/// (32-bit pointers `PA` against 64-bit `PEA`, or clang-cl against cl).
fn mangling_cause(w: &str, f: &str, wanted_name: Option<&str>, found_name: &str) -> Option<String> {
    let wanted_name = wanted_name?.trim_start_matches("__imp_");
    let found_name = found_name.trim_start_matches("__imp_");
    if wanted_name.starts_with("_Z") && found_name.starts_with('?') {
        return Some("Itanium (GNU) mangling against MSVC mangling: the referencing object was compiled for the GNU/Itanium C++ ABI (nvcc or hipcc with a GNU host compiler, clang without an -msvc target) and the library by cl; compile both for the MSVC ABI (clang-cl or --target x86_64-pc-windows-msvc)".into());
    }
    if w != f || wanted_name == found_name || !found_name.starts_with('?') {
        return None;
    }
    let x86 = |name: &str| {
        [
            "PEA", "PEB", "QEA", "QEB", "AEA", "AEB", "PEC", "PED", "QEC", "QED", "AEC", "AED",
        ]
        .iter()
        .fold(name.to_string(), |acc, m| {
            acc.replace(m, &format!("{}{}", &m[..1], &m[2..]))
        })
    };
    Some(if x86(wanted_name) == x86(found_name) {
        let (reference, library) = if x86(wanted_name) == wanted_name {
            ("32-bit pointers (x86)", "64-bit (x64)")
        } else {
            ("64-bit pointers (x64)", "32-bit (x86)")
        };
        format!("pointer width differs: the reference was compiled for {reference}, the library for {library}; build both for the same machine")
    } else {
        "the same declaration mangled differently: the two sides were compiled by different compilers (cl against clang-cl, or nvcc/hipcc's host compiler); compile the declaration and the definition with the same compiler, or declare it extern \"C\"".into()
    })
}

/// `long` (32 bits on Windows, mangled `J`) against `__int64` (`int64_t`, `long long`, mangled
/// `_J`): the exact difference and which type to use.
fn int64_cause(w: &str, f: &str) -> Option<String> {
    let as_long = |s: &str| s.replace("__int64", "long");
    if w == f || as_long(w) != as_long(f) {
        return None;
    }
    // The same words apart from the type names: pair them up and see which side has which.
    let words = |s: &str| -> Vec<String> {
        s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let pairs: Vec<(String, String)> = words(w)
        .into_iter()
        .zip(words(f))
        .filter(|(a, b)| a != b)
        .collect();
    let all = |a: &str, b: &str| pairs.iter().all(|(x, y)| x == a && y == b);
    Some(if all("long", "__int64") {
        "long against __int64: declared with `long` (32 bits on Windows, mangled J), the library defines `__int64` (int64_t, mangled _J): declare it with int64_t".into()
    } else if all("__int64", "long") {
        "__int64 against long: declared with `__int64` (int64_t, mangled _J), the library defines `long` (32 bits on Windows, mangled J): declare it with long".into()
    } else {
        "long against __int64: the declaration and the library disagree on long (32 bits on Windows) and __int64 (int64_t): declare each parameter as the library's header does".into()
    })
}

/// Definitions that almost match a symbol nothing defines (at most 3, best first, a library's
/// name once; collected up to `MAX_COLLECTED`):
/// the same name for another machine, only as `__imp_`, and names whose unqualified part is the
/// same (C against C++, another signature, another scope), each with its likely cause.
fn near_misses(
    index: &Index,
    demangled_index: &DemangledIndex<'_>,
    symbol: &UnresolvedSymbol,
) -> Vec<NearMiss> {
    let mut misses = NearMisses {
        index,
        symbol,
        wanted: format!(
            "{}{}",
            if symbol.import {
                "__declspec(dllimport) "
            } else {
                ""
            },
            symbol.demangled()
        ),
        out: Vec::new(),
    };
    if let Some(linker) = &symbol.linker_name() {
        misses.by_linker_name(linker);
    }
    misses.by_unqualified_name(demangled_index);
    // Best first (the same name for another machine or only as __imp_, then another signature
    // of the same function, then C against C++, then another scope), at most three.
    misses.out.sort_by_key(|m| near_miss_rank(&m.cause));
    misses.out.truncate(MAX_NEAR_MISSES);
    misses.out
}

/// Most near misses shown for one symbol.
const MAX_NEAR_MISSES: usize = 3;

/// Most near misses collected for one symbol before the best are kept: a function template's
/// instantiations (`data_ptr<float>`, `data_ptr<int>`, ... `data_ptr<__int64>`) are many.
const MAX_COLLECTED: usize = 32;

/// How close a near miss is, by its cause: lower is closer.
fn near_miss_rank(cause: &str) -> u8 {
    if cause.starts_with("only in a library for another machine")
        || cause.starts_with("only as __imp_")
    {
        0
    } else if cause.starts_with("long against") || cause.starts_with("__int64 against") {
        1
    } else if cause.starts_with("another signature") {
        3
    } else if cause.starts_with("a C") {
        4
    } else if cause.starts_with("defined in another namespace") {
        5
    } else {
        2
    }
}

/// The near misses of one symbol, as they are found.
struct NearMisses<'i> {
    index: &'i Index,
    symbol: &'i UnresolvedSymbol,
    /// The symbol as the report shows what was wanted.
    wanted: String,
    out: Vec<NearMiss>,
}

impl NearMisses<'_> {
    /// Adds a near miss, unless there are `MAX_COLLECTED` already or this name of this library is listed.
    fn add(&mut self, found_name: &str, found: String, library: String, cause: String) {
        // An import library defines `X` and `__imp_X` for one function: one near miss.
        let bare = |n: &str| n.trim_start_matches("__imp_").to_string();
        if self.out.len() < MAX_COLLECTED
            && !self
                .out
                .iter()
                .any(|m: &NearMiss| bare(&m.found_name) == bare(found_name) && m.library == library)
        {
            self.out.push(NearMiss {
                wanted: self.wanted.clone(),
                found,
                found_name: found_name.to_string(),
                library,
                cause,
            });
        }
    }

    /// The file name of the first library that defines `name`.
    fn first_library(&self, name: &str) -> Option<String> {
        self.index
            .lookup(name)
            .first()
            .map(|s| file_name(&s.library))
    }

    /// The linker's name only in a library for another machine, or only as `__imp_`.
    fn by_linker_name(&mut self, linker: &str) {
        let symbol = self.symbol;
        // Only in a library for another machine.
        for other in self.index.lookup_other_machines(linker) {
            self.add(
                &other.name,
                symbol.demangled().to_string(),
                file_name(&other.library),
                format!("only in a library for another machine ({}): the link is for a different architecture", other.machine),
            );
        }
        // Only as __imp_ (a data import must be declared dllimport), or only without.
        if !symbol.import {
            let imp = format!("__imp_{linker}");
            if let Some(library) = self.first_library(&imp) {
                self.add(&imp, format!("__declspec(dllimport) {}", symbol.demangled()), library,
                    "only as __imp_: the library exports it as data; declare it __declspec(dllimport)".into());
            }
        }
    }

    /// Names with the same unqualified part: a C name against a C++ function (or the reverse),
    /// another signature of the same function, or the same name in another scope.
    fn by_unqualified_name(&mut self, demangled_index: &DemangledIndex<'_>) {
        let symbol = self.symbol;
        if let Some(parts) = itanium_qualified_name(symbol.lookup_name()) {
            return self.by_itanium_name(demangled_index, &parts);
        }
        let is_cxx = symbol.lookup_name().starts_with('?') || symbol.demangled().contains('(');
        let key = if is_cxx {
            unqualified_key(symbol.demangled())
        } else {
            Some(symbol.lookup_name().to_string())
        };
        let Some(key) = key else {
            return;
        };
        for name in demangled_index.candidates(&key) {
            let name_is_cxx = name.trim_start_matches("__imp_").starts_with('?');
            let Some(library) = self.first_library(name) else {
                continue;
            };
            if name_is_cxx && !is_cxx {
                let (text, _) = demangled_of(name);
                self.add(name, text, library,
                    "a C name was wanted but the library defines a C++ function: the caller declares it extern \"C\" and the library does not (or the reverse)".into());
            } else if !name_is_cxx && is_cxx {
                self.add(name, name.to_string(), library,
                    "a C++ name was wanted but the library defines a C function: the declaration lacks extern \"C\"".into());
            } else if name_is_cxx && is_cxx {
                let (text, import) = demangled_of(name);
                if demangle::canonical(&text) == symbol.canonical() && import != symbol.import {
                    continue; // the same symbol through __imp_: a provider, not a near miss
                }
                if qualified_head(&text) == qualified_head(symbol.demangled())
                    || template_head(&text) == template_head(symbol.demangled())
                {
                    let cause =
                        difference_cause(symbol.demangled(), &text, symbol.linker_name(), name);
                    self.add(name, text, library, cause);
                } else if !qualified_head(symbol.demangled()).contains("::") {
                    // Another scope is a near miss only for a name wanted at global scope (a
                    // declaration that lost its namespace); a name wanted in one scope and
                    // defined in an unrelated one (`__sanitizer::`, `Concurrency::`) is another
                    // function of the same name, not this one.
                    let cause = format!(
                        "defined in another namespace or class ({}): the declaration's scope differs",
                        qualified_head(&text)
                    );
                    self.add(name, text, library, cause);
                }
            }
        }
    }
}

impl NearMisses<'_> {
    /// An Itanium-mangled reference whose function a library defines under its MSVC name: the
    /// same qualified name, another compiler's mangling.
    fn by_itanium_name(&mut self, demangled_index: &DemangledIndex<'_>, parts: &[String]) {
        let want = parts.join("::");
        let Some(key) = parts.last() else {
            return;
        };
        for name in demangled_index.candidates(key) {
            if !name.trim_start_matches("__imp_").starts_with('?') {
                continue;
            }
            let (text, _) = demangled_of(name);
            if qualified_head(&text) != want {
                continue;
            }
            if let Some(library) = self.first_library(name) {
                let symbol = self.symbol;
                let cause = difference_cause(symbol.demangled(), &text, symbol.linker_name(), name);
                self.add(name, text, library, cause);
            }
        }
    }
}

/// The qualified name of an Itanium-mangled function or variable (`_ZN3c1010TensorImpl4sizeEl`
/// → `["c10", "TensorImpl", "size"]`), when it is a plain one: a nested name of source names
/// (`St` for `std::` allowed), or one source name. `None` for templates, substitutions, special
/// names and anything else.
pub fn itanium_qualified_name(name: &str) -> Option<Vec<String>> {
    let rest = name.strip_prefix("_Z")?;
    let rest = rest.strip_prefix('L').unwrap_or(rest);
    let mut parts = Vec::new();
    let source_name = |text: &str| -> Option<(String, usize)> {
        let digits = text.bytes().take_while(u8::is_ascii_digit).count();
        let length: usize = text.get(..digits)?.parse().ok()?;
        let id = text.get(digits..digits + length)?;
        Some((id.to_string(), digits + length))
    };
    if let Some(nested) = rest.strip_prefix('N') {
        let mut at = nested.bytes().take_while(|b| b"rVKRO".contains(b)).count();
        if nested[at..].starts_with("St") {
            parts.push("std".to_string());
            at += 2;
        }
        while !nested[at..].starts_with('E') {
            let (id, used) = source_name(&nested[at..])?;
            parts.push(id);
            at += used;
        }
    } else {
        parts.push(source_name(rest)?.0);
    }
    (!parts.is_empty()).then_some(parts)
}

/// The qualified name without the return type and parameters (`ns::Class::f`).
/// The qualified head with the last component's template arguments removed
/// (`at::TensorBase::data_ptr<long>` → `at::TensorBase::data_ptr`): another instantiation of the
/// same function template (`data_ptr<__int64>`) is the same function for a near miss.
fn template_head(demangled: &str) -> String {
    let head = qualified_head(demangled);
    match (head.ends_with('>'), head.find('<')) {
        (true, Some(at)) if !head[..at].ends_with("operator") => head[..at].to_string(),
        _ => head,
    }
}

fn qualified_head(demangled: &str) -> String {
    let canonical = demangle::canonical(demangled);
    let end = canonical.find('(').unwrap_or(canonical.len());
    let head = &canonical[..end];
    head.rsplit(' ').next().unwrap_or(head).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unqualified_keys() {
        assert_eq!(
            unqualified_key("void __cdecl mul_mat_q_case<16>(struct a &)").as_deref(),
            Some("mul_mat_q_case")
        );
        assert_eq!(
            unqualified_key("void __cdecl std::_Xlength_error(char const *)").as_deref(),
            Some("_Xlength_error")
        );
        assert_eq!(
            unqualified_key("void __cdecl operator delete(void *, unsigned __int64)").as_deref(),
            Some("operator delete")
        );
        assert_eq!(
            unqualified_key("public: __cdecl ns::Foo::Foo(void)").as_deref(),
            Some("Foo")
        );
        assert_eq!(
            index_key("?_Xlength_error@std@@YAXPEBD@Z").as_deref(),
            Some("_Xlength_error")
        );
        assert_eq!(index_key("__imp_?f@@YAXXZ").as_deref(), Some("f"));
        assert_eq!(
            index_key("??3@YAXPEAX_K@Z").as_deref(),
            Some("operator delete")
        );
        assert_eq!(index_key("hipMalloc"), None);
    }

    use crate::index::{LibrarySymbol, Machine};
    use std::path::Path;

    fn symbol(name: &str, library: &str, kind: SymbolKind, machine: Machine) -> LibrarySymbol {
        LibrarySymbol::new(name.to_string(), Path::new(library), kind, machine)
    }

    fn wanted(linker_name: &str) -> UnresolvedSymbol {
        let log = format!("a.obj : error LNK2001: unresolved external symbol {linker_name}\n");
        let failure = crate::read::symbols::collect(
            std::io::Cursor::new(log.into_bytes()),
            Default::default(),
        )
        .unwrap();
        failure.symbols.into_iter().next().unwrap()
    }

    fn find_in(symbols: Vec<LibrarySymbol>, want: &str, flavour: Option<Flavour>) -> Match {
        let index = Index::from_symbols(symbols, Vec::new(), Machine::X64);
        let want = wanted(want);
        let demangled = DemangledIndex::new(&index, std::slice::from_ref(&want));
        find(&index, &demangled, &RuleBook::builtin(), &want, flavour)
    }

    /// Every near-miss kind (docs/GUIDE.md, "Near misses"), one row each, reporting every failing row.
    /// Long because it is the table of kinds, a row each.
    #[test]
    fn each_near_miss_kind() {
        let rows: &[(&str, &str, SymbolKind, Machine, &str)] = &[
            (
                "?f@@YAXPEAH@Z",
                "?f@@YAXPEBH@Z",
                SymbolKind::Defined,
                Machine::X64,
                "const",
            ),
            (
                "?f@@YAXH@Z",
                "?f@@YAXJ@Z",
                SymbolKind::Defined,
                Machine::X64,
                "int vs long",
            ),
            (
                "?f@@YAXPEA_W@Z",
                "?f@@YAXPEAG@Z",
                SymbolKind::Defined,
                Machine::X64,
                "wchar_t",
            ),
            (
                "?f@@YAXH@Z",
                "?f@@YGXH@Z",
                SymbolKind::Defined,
                Machine::X64,
                "calling convention",
            ),
            (
                "?f@@YAHH@Z",
                "f",
                SymbolKind::Defined,
                Machine::X64,
                "extern \"C\"",
            ),
            (
                "f",
                "?f@@YAHH@Z",
                SymbolKind::Defined,
                Machine::X64,
                "C++ function",
            ),
            (
                "?f@@YAXXZ",
                "?f@ns@@YAXXZ",
                SymbolKind::Defined,
                Machine::X64,
                "namespace",
            ),
            (
                "?f@@YAXXZ",
                "?f@@YAXXZ",
                SymbolKind::Defined,
                Machine::X86,
                "another machine",
            ),
            (
                "gData",
                "__imp_gData",
                SymbolKind::ImportData,
                Machine::X64,
                "only as __imp_",
            ),
        ];
        let mut failures = Vec::new();
        for (want, defined, kind, machine, cause) in rows {
            let m = find_in(
                vec![symbol(defined, "lib.lib", kind.clone(), *machine)],
                want,
                None,
            );
            let causes: Vec<&str> = m.near_misses.iter().map(|n| n.cause.as_str()).collect();
            if !m.providers.is_empty() || !causes.iter().any(|c| c.contains(cause)) {
                failures.push(format!(
                    "{want} vs {defined}: want {cause:?}, got {causes:?} (providers {})",
                    m.providers.len()
                ));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// A name wanted in one scope is not matched with the same name in unrelated scopes, and at
    /// most three near misses are shown, the closest first.
    #[test]
    fn near_misses_share_the_scope_and_are_few() {
        let unrelated = [
            "?Allocate@__sanitizer@@YAPEAX_K@Z",
            "?Allocate@Concurrency@@YAPEAX_K@Z",
            "?Allocate@other@@YAPEAX_K@Z",
        ];
        let mut library: Vec<LibrarySymbol> = unrelated
            .iter()
            .map(|n| symbol(n, "lib.lib", SymbolKind::Defined, Machine::X64))
            .collect();
        let m = find_in(library.clone(), "?Allocate@pool@@YAPEAX_K@Z", None);
        assert!(m.near_misses.is_empty(), "{:?}", m.near_misses);
        // Same scope, other signatures (five of them), and the other machine's exact name.
        for (i, t) in ["H", "I", "J", "K", "M"].iter().enumerate() {
            let name = format!("?Allocate@pool@@YAPEAX{t}@Z");
            let lib = format!("lib{i}.lib");
            library.push(symbol(&name, &lib, SymbolKind::Defined, Machine::X64));
        }
        library.push(symbol(
            "?Allocate@pool@@YAPEAX_K@Z",
            "x86.lib",
            SymbolKind::Defined,
            Machine::X86,
        ));
        let m = find_in(library, "?Allocate@pool@@YAPEAX_K@Z", None);
        assert_eq!(m.near_misses.len(), 3, "{:?}", m.near_misses);
        assert!(m.near_misses[0].cause.contains("another machine"));
        assert!(m
            .near_misses
            .iter()
            .all(|n| !n.found.contains("__sanitizer")));
    }

    #[test]
    fn only_in_another_flavour_is_never_chosen() {
        let m = find_in(
            vec![symbol(
                "_CrtDbgReport",
                "libucrtd.lib",
                SymbolKind::Defined,
                Machine::X64,
            )],
            "_CrtDbgReport",
            Some(Flavour::Static),
        );
        // Only in the debug CRT while the flavour is /MT: listed, never chosen.
        assert_eq!(m.providers[0].library, "libucrtd.lib");
        assert!(m.providers[0]
            .excluded
            .as_deref()
            .unwrap()
            .contains("another CRT flavour"));
        let m = find_in(
            vec![symbol(
                "atexit",
                "libcmt.lib",
                SymbolKind::Defined,
                Machine::X64,
            )],
            "atexit",
            Some(Flavour::Static),
        );
        assert!(m.providers[0].note.is_none());
    }

    #[test]
    fn static_definition_satisfies_dllimport_with_lnk4217() {
        let m = find_in(
            vec![symbol(
                "wcsnlen",
                "libucrt.lib",
                SymbolKind::Defined,
                Machine::X64,
            )],
            "__imp_wcsnlen",
            None,
        );
        assert_eq!(m.providers[0].library, "libucrt.lib");
        assert!(m.providers[0].note.as_deref().unwrap().contains("LNK4217"));
    }

    #[test]
    fn ranking() {
        let book = RuleBook::builtin();
        let p = |library: &str, dll: Option<&str>| Provider {
            library: library.into(),
            path: library.into(),
            member: None,
            dll: dll.map(str::to_string),
            kind: ProviderKind::ImportCode,
            matched_name: "x".into(),
            source: ProviderSource::Archive,
            note: None,
            role: Roles::builtin().role_of(library).role,
            purpose: None,
            excluded: None,
            stands_in_for_import: false,
        };
        let kernel32 = rank(&book, &p("kernel32.Lib", Some("KERNEL32.dll")), None);
        let onecore = rank(
            &book,
            &p("OneCore.Lib", Some("api-ms-win-core-file-l1-1-0.dll")),
            None,
        );
        assert!(kernel32 < onecore);
        let release = rank(&book, &p("libcmt.lib", None), Some(Flavour::Static));
        let debug = rank(&book, &p("libcmtd.lib", None), Some(Flavour::Static));
        let dynamic = rank(&book, &p("msvcrt.lib", None), Some(Flavour::Static));
        assert!(release < debug && release < dynamic);
        assert!(debug.excluded && dynamic.excluded && !release.excluded);
        assert!(
            rank(&book, &p("libcmtd.lib", None), Some(Flavour::StaticDebug))
                < rank(&book, &p("libcmt.lib", None), Some(Flavour::StaticDebug))
        );
        assert!(
            rank(
                &book,
                &p("clang_rt.asan-x86_64.lib", None),
                Some(Flavour::Static)
            ) > release
        );
        let cause = |w: &str, f: &str| difference_cause(w, f, None, "");
        assert!(cause("void f(int *)", "void f(int const *)").starts_with("const"));
        assert!(cause("void f(unsigned short *)", "void f(wchar_t *)").contains("wchar_t"));
        // long (J) against __int64 (_J), both directions, and a third case that is neither.
        let long = cause("void __cdecl c10::f(long)", "void __cdecl c10::f(__int64)");
        assert!(
            long.contains("declared with `long`") && long.contains("int64_t"),
            "{long}"
        );
        let int64 = cause(
            "__int64 __cdecl c10::f(__int64)",
            "__int64 __cdecl c10::f(long)",
        );
        assert!(int64.contains("declared with `__int64`"), "{int64}");
        assert!(!cause("void f(int)", "void f(__int64)").contains("long against"));
    }

    /// Two compilers' manglings of one declaration: Itanium against MSVC, 32-bit against 64-bit
    /// pointers, and the same text under another MSVC-style name.
    #[test]
    fn mangling_differences() {
        let d = "void __cdecl f(void *)";
        let itanium = difference_cause(d, d, Some("_Z1fPv"), "?f@@YAXPEAX@Z");
        assert!(itanium.starts_with("Itanium"), "{itanium}");
        let width = difference_cause(d, d, Some("?f@@YAXPAX@Z"), "?f@@YAXPEAX@Z");
        assert!(width.starts_with("pointer width"), "{width}");
        assert_eq!(
            itanium_qualified_name("_ZN3c1010TensorImpl4sizeEl").unwrap(),
            ["c10", "TensorImpl", "size"]
        );
        assert_eq!(itanium_qualified_name("_Z6kernelPf").unwrap(), ["kernel"]);
        assert_eq!(
            itanium_qualified_name("_ZNKSt6vector4sizeEv").unwrap(),
            ["std", "vector", "size"]
        );
        assert_eq!(itanium_qualified_name("_ZN1aIiE1fEv"), None);
        assert_eq!(itanium_qualified_name("?f@@YAXXZ"), None);
        let other = difference_cause(d, d, Some("?f@@YAXPEAX@Z"), "?f@@YAXPEAXZ");
        assert!(other.starts_with("the same declaration"), "{other}");
        assert!(!difference_cause(
            d,
            "void __cdecl f(int)",
            Some("?f@@YAXPEAX@Z"),
            "?f@@YAXH@Z"
        )
        .starts_with("the same declaration"));
    }
}
