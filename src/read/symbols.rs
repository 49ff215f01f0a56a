//! Link records to unresolved symbols: one record per distinct symbol, with its linker-level
//! name, demangled form, dllimport flag, x86 decoration undone, and deduplicated references.

use serde::Serialize;

use crate::index::Machine;
use crate::read::demangle;
use crate::read::linklog::{
    CrtOption, Event, Finding, Linker, Located, LogStats, Reference, ShownName, UnresolvedRecord,
};

/// An x86 name decoration, undone.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case", tag = "convention")]
pub enum X86Decoration {
    /// `_name` (`__cdecl`).
    Cdecl,
    /// `_name@N` (`__stdcall`, N bytes of arguments).
    Stdcall {
        /// Bytes of arguments.
        bytes: u32,
    },
    /// `@name@N` (`__fastcall`).
    Fastcall {
        /// Bytes of arguments.
        bytes: u32,
    },
    /// `name@@N` (`__vectorcall`, also on x64).
    Vectorcall {
        /// Bytes of arguments.
        bytes: u32,
    },
}

/// Text shared by many symbols (an object or function name, a family, a rule's source): one
/// reference-counted copy, compared and serialised as the plain string.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Shared(std::sync::Arc<str>);

impl Shared {
    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for Shared {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(&*self.0, f)
    }
}

impl std::fmt::Display for Shared {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Shared {
    fn from(text: &str) -> Shared {
        Shared(text.into())
    }
}

impl From<String> for Shared {
    fn from(text: String) -> Shared {
        Shared(text.into())
    }
}

impl From<Shared> for String {
    fn from(text: Shared) -> String {
        text.0.to_string()
    }
}

impl PartialEq<str> for Shared {
    fn eq(&self, other: &str) -> bool {
        &*self.0 == other
    }
}

impl PartialEq<&str> for Shared {
    fn eq(&self, other: &&str) -> bool {
        &*self.0 == *other
    }
}

impl PartialEq<String> for Shared {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl Serialize for Shared {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> serde::Deserialize<'de> for Shared {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Shared, D::Error> {
        String::deserialize(deserializer).map(Shared::from)
    }
}

/// Hands out one [`Shared`] per distinct text, up to a bound of distinct texts (past it, a new
/// text gets its own copy): the texts that repeat over thousands of symbols are few.
#[derive(Default)]
pub struct Interner {
    seen: foldhash::HashSet<Shared>,
}

/// Bound on the distinct texts an [`Interner`] keeps.
const MAX_INTERNED: usize = 4096;

impl Interner {
    /// The shared copy of `text`.
    pub fn get(&mut self, text: &str) -> Shared {
        if let Some(known) = self.seen.get(text) {
            return known.clone();
        }
        let shared = Shared::from(text);
        if self.seen.len() < MAX_INTERNED {
            self.seen.insert(shared.clone());
        }
        shared
    }
}

impl std::borrow::Borrow<str> for Shared {
    fn borrow(&self) -> &str {
        &self.0
    }
}

/// Where a symbol was referenced: the object and the function (each shared with the other
/// symbols the same object or function references).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub struct SymbolReference {
    /// The referencing object: `foo.obj`, `foo.lib(bar.obj)`, `LINK`, `<root>`.
    pub object: Option<Shared>,
    /// The referencing function (its display text, or decorated name when only that is shown).
    pub function: Option<Shared>,
    /// The referencing function's decorated name, when link.exe shows it beside the display text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_name: Option<Shared>,
}

/// The linkers that reported a symbol, in order of their first report (two bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Linkers([Option<Linker>; 2]);

impl Linkers {
    /// Adds `linker` when it is not there yet.
    pub fn add(&mut self, linker: Linker) {
        if self.contains(linker) {
            return;
        }
        if let Some(slot) = self.0.iter_mut().find(|l| l.is_none()) {
            *slot = Some(linker);
        }
    }

    /// Whether `linker` reported it.
    pub fn contains(&self, linker: Linker) -> bool {
        self.0.contains(&Some(linker))
    }

    /// The linkers, in order.
    pub fn iter(&self) -> impl Iterator<Item = Linker> + '_ {
        self.0.iter().flatten().copied()
    }

    /// How many linkers reported it.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether none did.
    pub fn is_empty(&self) -> bool {
        self.0[0].is_none()
    }
}

impl Serialize for Linkers {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for Linkers {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Linkers, D::Error> {
        let mut linkers = Linkers::default();
        for linker in Vec::<Linker>::deserialize(deserializer)? {
            linkers.add(linker);
        }
        Ok(linkers)
    }
}

/// A symbol's name forms, kept in one allocation: each form is a span of `text`, and a form that
/// another contains (the name and the linker name, `X` in `__imp_X`, the display text and the
/// demangled one) takes no room of its own.
#[derive(Clone, Default)]
struct NameForms {
    text: Box<str>,
    /// Start and length in `text` of each form ([`NAME`], ...); [`ABSENT`] as start: none.
    spans: [(u32, u32); 6],
}

const NAME: usize = 0;
const DISPLAY: usize = 1;
const LINKER_NAME: usize = 2;
const DEMANGLED: usize = 3;
const CANONICAL: usize = 4;
const LOOKUP_NAME: usize = 5;
const ABSENT: u32 = u32::MAX;

impl NameForms {
    /// The forms in one text (a form longer than `u32::MAX` bytes, which no line holds, is
    /// kept empty).
    fn new(forms: [Option<&str>; 6]) -> NameForms {
        let mut text = String::with_capacity(forms.iter().flatten().map(|f| f.len()).sum());
        let mut spans = [(ABSENT, 0); 6];
        for (span, form) in spans.iter_mut().zip(forms) {
            let Some(form) = form else { continue };
            let start = match text.find(form) {
                Some(at) => at,
                None => {
                    text.push_str(form);
                    text.len() - form.len()
                }
            };
            *span = match (u32::try_from(start), u32::try_from(form.len())) {
                (Ok(start), Ok(len)) if start != ABSENT => (start, len),
                _ => (0, 0),
            };
        }
        NameForms {
            text: text.into_boxed_str(),
            spans,
        }
    }

    fn get(&self, form: usize) -> Option<&str> {
        let (start, len) = self.spans[form];
        if start == ABSENT {
            return None;
        }
        let (start, len) = (start as usize, len as usize);
        self.text.get(start..start + len)
    }

    fn all(&self) -> [Option<&str>; 6] {
        std::array::from_fn(|form| self.get(form))
    }
}

/// One distinct unresolved symbol.
///
/// Its name forms (`name`, `display`, `linker_name`, `demangled`, `canonical`, `lookup_name`)
/// are mostly the same text or parts of each other: they share one allocation and are read
/// through methods of the same names.
#[derive(Clone, Default, serde::Deserialize)]
#[serde(from = "SymbolFields")]
pub struct UnresolvedSymbol {
    names: NameForms,
    /// Whether the reference is a dllimport one (`__imp_` or `__declspec(dllimport)`).
    pub import: bool,
    /// The x86 decoration that was undone, if any.
    pub x86_decoration: Option<X86Decoration>,
    /// The machine the name is for, when the name or the log tells: x86, or x64 for any 64-bit
    /// target (the names look alike).
    pub arch: Option<Machine>,
    /// Whether the linker itself asked for it (lld-link's `<root>`: the entry point).
    pub entry_point: bool,
    /// Where it was referenced, deduplicated, in order of appearance.
    pub references: Vec<SymbolReference>,
    /// How many times the log reported it (records plus lld-link's "N more times").
    pub reported: u64,
    /// The linkers that reported it.
    pub linkers: Linkers,
    /// The 1-based line of its first report.
    pub first_line: u64,
    /// Candidates from link.exe's "could potentially match" hint block.
    pub hints: Vec<ShownName>,
    /// A problem demangling it.
    pub warning: Option<String>,
}

/// The name forms of an [`UnresolvedSymbol`], as given to [`UnresolvedSymbol::with_names`].
#[derive(Debug, Clone, Copy, Default)]
pub struct Names<'a> {
    /// The symbol as the log showed it.
    pub name: &'a str,
    /// The display text when the log showed one.
    pub display: Option<&'a str>,
    /// The linker-level name when known.
    pub linker_name: Option<&'a str>,
    /// The demangled form.
    pub demangled: &'a str,
    /// The canonical form of `demangled`.
    pub canonical: &'a str,
    /// The name rules and tables are looked up by.
    pub lookup_name: &'a str,
}

impl UnresolvedSymbol {
    /// A symbol with these name forms and nothing else known.
    pub fn with_names(names: Names<'_>) -> UnresolvedSymbol {
        let mut symbol = UnresolvedSymbol::default();
        symbol.set_names(names);
        symbol
    }

    /// Replaces the name forms.
    pub fn set_names(&mut self, names: Names<'_>) {
        self.names = NameForms::new([
            Some(names.name),
            names.display,
            names.linker_name,
            Some(names.demangled),
            Some(names.canonical),
            Some(names.lookup_name),
        ]);
    }

    /// The name forms.
    pub fn names(&self) -> Names<'_> {
        Names {
            name: self.name(),
            display: self.display(),
            linker_name: self.linker_name(),
            demangled: self.demangled(),
            canonical: self.canonical(),
            lookup_name: self.lookup_name(),
        }
    }

    /// The symbol as the log showed it: the decorated name when the log has one, else the
    /// displayed text (lld-link's `__declspec(dllimport) X` included).
    pub fn name(&self) -> &str {
        self.names.get(NAME).unwrap_or_default()
    }

    /// The display text when the log showed one.
    pub fn display(&self) -> Option<&str> {
        self.names.get(DISPLAY)
    }

    /// The linker-level name (mangled C++ or C name, `__imp_` kept) when known.
    pub fn linker_name(&self) -> Option<&str> {
        self.names.get(LINKER_NAME)
    }

    /// The demangled form (without `__declspec(dllimport)`: see `import`).
    pub fn demangled(&self) -> &str {
        self.names.get(DEMANGLED).unwrap_or_default()
    }

    /// The canonical form of `demangled`, for matching across demanglers.
    pub fn canonical(&self) -> &str {
        self.names.get(CANONICAL).unwrap_or_default()
    }

    /// The name rules and tables are looked up by: no `__imp_`, no x86 decoration.
    pub fn lookup_name(&self) -> &str {
        self.names.get(LOOKUP_NAME).unwrap_or_default()
    }
}

impl std::fmt::Debug for UnresolvedSymbol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("UnresolvedSymbol")
            .field("names", &self.names.all())
            .field("import", &self.import)
            .field("x86_decoration", &self.x86_decoration)
            .field("arch", &self.arch)
            .field("entry_point", &self.entry_point)
            .field("references", &self.references)
            .field("reported", &self.reported)
            .field("linkers", &self.linkers)
            .field("first_line", &self.first_line)
            .field("hints", &self.hints)
            .field("warning", &self.warning)
            .finish()
    }
}

/// An [`UnresolvedSymbol`] as `--format json` writes it: every name form a field of its own.
#[derive(Clone, Default, Serialize, serde::Deserialize)]
#[serde(default)]
struct SymbolFields {
    name: String,
    display: Option<String>,
    linker_name: Option<String>,
    demangled: String,
    canonical: String,
    import: bool,
    lookup_name: String,
    x86_decoration: Option<X86Decoration>,
    arch: Option<Machine>,
    entry_point: bool,
    references: Vec<SymbolReference>,
    reported: u64,
    linkers: Linkers,
    first_line: u64,
    hints: Vec<ShownName>,
    warning: Option<String>,
}

impl From<SymbolFields> for UnresolvedSymbol {
    fn from(f: SymbolFields) -> UnresolvedSymbol {
        let mut symbol = UnresolvedSymbol {
            names: NameForms::default(),
            import: f.import,
            x86_decoration: f.x86_decoration,
            arch: f.arch,
            entry_point: f.entry_point,
            references: f.references,
            reported: f.reported,
            linkers: f.linkers,
            first_line: f.first_line,
            hints: f.hints,
            warning: f.warning,
        };
        symbol.set_names(Names {
            name: &f.name,
            display: f.display.as_deref(),
            linker_name: f.linker_name.as_deref(),
            demangled: &f.demangled,
            canonical: &f.canonical,
            lookup_name: &f.lookup_name,
        });
        symbol
    }
}

/// What [`SymbolFields`] holds, borrowed from an [`UnresolvedSymbol`], for writing it.
#[derive(Serialize)]
struct SymbolFieldsOut<'a> {
    name: &'a str,
    display: Option<&'a str>,
    linker_name: Option<&'a str>,
    demangled: &'a str,
    canonical: &'a str,
    import: bool,
    lookup_name: &'a str,
    x86_decoration: Option<X86Decoration>,
    arch: Option<Machine>,
    entry_point: bool,
    references: &'a [SymbolReference],
    reported: u64,
    linkers: Linkers,
    first_line: u64,
    hints: &'a [ShownName],
    warning: Option<&'a str>,
}

impl Serialize for UnresolvedSymbol {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        // The name forms come from `names()`; the JSON puts `import` among them, in this order.
        let names = self.names();
        SymbolFieldsOut {
            name: names.name,
            display: names.display,
            linker_name: names.linker_name,
            demangled: names.demangled,
            canonical: names.canonical,
            import: self.import,
            lookup_name: names.lookup_name,
            x86_decoration: self.x86_decoration,
            arch: self.arch,
            entry_point: self.entry_point,
            references: &self.references,
            reported: self.reported,
            linkers: self.linkers,
            first_line: self.first_line,
            hints: &self.hints,
            warning: self.warning.as_deref(),
        }
        .serialize(serializer)
    }
}

/// Everything the log said, gathered: the symbols and what later stages need.
#[derive(Debug, Clone, Default, Serialize, serde::Deserialize)]
pub struct LinkFailure {
    /// Distinct unresolved symbols, in order of first appearance.
    pub symbols: Vec<UnresolvedSymbol>,
    /// Records of symbols not kept because `--max-symbols` distinct ones were (0 when none).
    pub records_past_max_symbols: u64,
    /// The `--max-symbols` bound the log was read with.
    pub max_symbols: usize,
    /// Each LNK1120 count, in order (a log can hold several links).
    pub lnk1120_counts: Vec<u64>,
    /// lld-link stopped after its error limit: the list is incomplete.
    pub incomplete: bool,
    /// Other linker findings (LNK2038, LNK4098, LNK2005, LNK1104, LNK4272, LNK4217, ...).
    pub findings: Vec<Finding>,
    /// CRT-selecting options seen on command lines.
    pub crt_options: Vec<CrtOption>,
    /// Machines named by `/machine:` or a compiler banner.
    pub machines: Vec<Machine>,
    /// What reading the log measured.
    pub stats: LogStats,
    /// The build system the log shows, learnt in the same pass.
    pub build_system: Option<crate::read::build_system::Recognised>,
    /// The Python build the log shows (version, debug, limited API), learnt in the same pass.
    #[serde(default)]
    pub python: crate::read::python_build::PythonBuild,
    /// Libraries named on linker command lines, first mention of each (by name ignoring case)
    /// on each command line.
    #[serde(default)]
    pub link_line_libraries: Vec<crate::read::linklog::LinkLineLibrary>,
    /// The linker command lines, in order (a log can hold several links: each error belongs to
    /// the link whose command comes last before it).
    #[serde(default)]
    pub link_commands: Vec<crate::read::linklog::LinkCommand>,
    /// Where link.exe ended a link's errors (`bin\\tray.dll : fatal error LNK1120`): the line and
    /// the output file it names, in order.
    #[serde(default)]
    pub link_ends: Vec<crate::read::linklog::LinkCommand>,
    /// Torch versions the log shows (libtorch paths of include and library options,
    /// collect_env's `PyTorch version:`), first mention of each.
    #[serde(default)]
    pub torch_versions: Vec<crate::read::linklog::TorchVersion>,
    /// The Node version node-gyp builds for, when its `gyp info using node@V` line shows it.
    #[serde(default)]
    pub node_version: Option<String>,
}

impl LinkFailure {
    /// The log's architecture: x86 when only x86 evidence is present, x64 when only x64.
    pub fn arch(&self) -> Option<Machine> {
        let x86 = self.machines.contains(&Machine::X86)
            || self.symbols.iter().any(|s| s.arch == Some(Machine::X86));
        let x64 = self.machines.iter().any(|m| *m != Machine::X86)
            || self.symbols.iter().any(|s| s.arch == Some(Machine::X64));
        match (x86, x64) {
            (true, false) => Some(Machine::X86),
            (false, true) => Some(Machine::X64),
            _ => None,
        }
    }
}

/// Undoes an x86 decoration of a C name: `_f@12`, `@f@8`, `f@@16`. A bare leading `_` is only
/// undone by [`undecorate_cdecl`] once the log is known to be x86.
pub fn undecorate(name: &str) -> (String, Option<X86Decoration>) {
    fn bytes_suffix(s: &str) -> Option<(&str, u32)> {
        let (base, n) = s.rsplit_once('@')?;
        if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) || base.is_empty() {
            return None;
        }
        Some((base, n.parse().ok()?))
    }
    if name.starts_with('?') {
        return (name.to_string(), None);
    }
    if let Some((base, bytes)) = bytes_suffix(name) {
        if let Some(base) = base.strip_suffix('@') {
            if !base.contains('@') {
                return (base.to_string(), Some(X86Decoration::Vectorcall { bytes }));
            }
        } else if let Some(base) = base.strip_prefix('_') {
            if !base.contains('@') {
                return (base.to_string(), Some(X86Decoration::Stdcall { bytes }));
            }
        } else if let Some(base) = base.strip_prefix('@') {
            if !base.contains('@') {
                return (base.to_string(), Some(X86Decoration::Fastcall { bytes }));
            }
        }
    }
    (name.to_string(), None)
}

/// Undoes x86 `__cdecl` decoration (a leading `_`).
pub fn undecorate_cdecl(name: &str) -> Option<String> {
    name.strip_prefix('_')
        .filter(|rest| !rest.is_empty())
        .map(str::to_string)
}

/// Tells x86 from x64 by a mangled C++ name's pointer encoding (`PEA`: x64 `__ptr64`).
fn mangled_arch(mangled: &str) -> Option<Machine> {
    if !mangled.starts_with('?') {
        return None;
    }
    let bytes = mangled.as_bytes();
    let x64 = bytes.windows(3).any(|w| {
        matches!(
            w,
            [b'P' | b'Q' | b'A' | b'B', b'E', b'A' | b'B' | b'C' | b'D']
        )
    });
    if x64 {
        return Some(Machine::X64);
    }
    let x86 = bytes
        .windows(3)
        .any(|w| matches!(w, [b'P' | b'Q', b'A' | b'B', b'A'..=b'Z' | b'_']) || w == b"QAE");
    x86.then_some(Machine::X86)
}

/// The machine a referencing function's MSVC-mangled name was compiled for, read from its type
/// encoding only (after the first `@@`), so that no identifier is taken for a pointer code.
fn reference_arch(mangled: &str) -> Option<Machine> {
    if !mangled.starts_with('?') {
        return None;
    }
    let at = mangled.find("@@")?;
    mangled_arch(&format!("?{}", &mangled[at + 2..]))
}

fn is_c_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '@')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '@' || c == '$')
}

/// Builds the symbol fields from what a record showed.
fn describe(shown: &ShownName, limits: crate::read::demangle::DemangleLimits) -> UnresolvedSymbol {
    let mut display = shown.display.clone();
    let mut import = false;
    let mut linker_name = shown.decorated.clone();
    if let Some(d) = display.as_deref() {
        let trimmed = d.trim();
        if let Some(rest) = trimmed.strip_prefix("__declspec(dllimport)") {
            import = true;
            let rest = rest.trim();
            if linker_name.is_none() && is_c_identifier(rest) {
                // lld-link prints __imp_X as `__declspec(dllimport) X`.
                linker_name = Some(format!("__imp_{rest}"));
            }
        }
        display = Some(trimmed.to_string());
    }
    let name = shown
        .decorated
        .clone()
        .or_else(|| display.clone())
        .unwrap_or_default();
    let (demangled, warning) = match &linker_name {
        Some(linker) => {
            let d = demangle::demangle_with(linker, limits);
            import |= d.import;
            let text = match (&d.warning, &display) {
                // The log's own undname text beats a raw name.
                (Some(_), Some(shown)) => shown
                    .trim_start_matches("__declspec(dllimport)")
                    .trim()
                    .to_string(),
                _ => d.text,
            };
            (text, d.warning)
        }
        None => {
            let shown = display.clone().unwrap_or_default();
            let text = shown
                .trim_start_matches("__declspec(dllimport)")
                .trim()
                .to_string();
            (text, None)
        }
    };
    let bare = linker_name
        .as_deref()
        .map(|l| demangle::strip_import_prefix(l).0.to_string())
        .unwrap_or_else(|| demangled.clone());
    let (lookup_name, x86_decoration) = undecorate(&bare);
    // For C names the demangled form is the plain name, decoration undone.
    let demangled = if bare.starts_with('?') || linker_name.is_none() {
        demangled
    } else {
        lookup_name.clone()
    };
    let arch = match x86_decoration {
        Some(X86Decoration::Vectorcall { .. }) => None,
        Some(_) => Some(Machine::X86),
        None => mangled_arch(&bare).or_else(|| demangle::pointer_machine(&bare, limits)),
    };
    let canonical = demangle::canonical(&demangled);
    let mut symbol = UnresolvedSymbol::with_names(Names {
        name: &name,
        display: display.as_deref(),
        linker_name: linker_name.as_deref(),
        demangled: &demangled,
        canonical: &canonical,
        lookup_name: &lookup_name,
    });
    symbol.import = import;
    symbol.x86_decoration = x86_decoration;
    symbol.arch = arch;
    symbol.warning = warning;
    symbol
}

/// Gathers log events into a [`LinkFailure`], one symbol per distinct name.
#[derive(Default)]
pub struct Collector {
    failure: LinkFailure,
    by_key: foldhash::HashMap<String, usize>,
    by_shown: foldhash::HashMap<String, usize>,
    /// The symbol the last lld-link record or link.exe record was about.
    last: Option<usize>,
    /// Bounds on what the demangler is handed.
    demangle: crate::read::demangle::DemangleLimits,
    /// Most distinct symbols kept (0: no bound, for [`Collector::new`]).
    max_symbols: usize,
    /// Referencing functions parsed for their pointer encoding so far ([`MAX_POINTER_PARSES`]).
    pointer_parses: usize,
    /// The references' object and function names, shared between symbols.
    interner: Interner,
}

/// Bound on the referencing functions parsed for their pointer encoding in one log: the first
/// ones tell the machine, and a huge log must not parse every one.
const MAX_POINTER_PARSES: usize = 256;

/// Bound on the libraries kept from the log's linker command lines (each line's distinct ones).
const MAX_LINK_LINE_LIBRARIES: usize = 16384;

/// Bound on the linker command lines kept from one log.
const MAX_LINK_COMMANDS: usize = 4096;

/// Bound on references kept per symbol: enough to act on, not a copy of a huge log.
const MAX_REFERENCES: usize = 64;

impl Collector {
    /// An empty collector.
    pub fn new() -> Collector {
        Collector::default()
    }

    /// A collector that demangles within `limits` (`--max-demangle-len`, `--max-demangle-depth`).
    pub fn with_limits(limits: crate::read::demangle::DemangleLimits) -> Collector {
        Collector {
            demangle: limits,
            ..Collector::default()
        }
    }

    /// A collector that keeps at most `max_symbols` distinct symbols (0: no bound).
    pub fn with_max_symbols(mut self, max_symbols: usize) -> Collector {
        self.max_symbols = max_symbols;
        self
    }

    /// Keeps the first mention of a library named on a linker command line, once per line (the
    /// same library on two links' lines is kept for each).
    fn push_link_line_library(&mut self, library: crate::read::linklog::LinkLineLibrary) {
        let libraries = &mut self.failure.link_line_libraries;
        let known = libraries
            .iter()
            .rev()
            .take_while(|l| l.line == library.line)
            .any(|l| l.library.eq_ignore_ascii_case(&library.library));
        if !known && libraries.len() < MAX_LINK_LINE_LIBRARIES {
            libraries.push(library);
        }
    }

    /// Keeps a LNK1120 count, and the output its line names as the end of that link's errors;
    /// the next records belong to no earlier symbol.
    fn push_link_end(&mut self, count: u64, output: Option<String>, line: u64) {
        self.failure.lnk1120_counts.push(count);
        if let Some(output) = output {
            if self.failure.link_ends.len() < MAX_LINK_COMMANDS {
                self.failure
                    .link_ends
                    .push(crate::read::linklog::LinkCommand {
                        line,
                        output: Some(output),
                        import_library: None,
                    });
            }
        }
        self.last = None;
    }

    /// Keeps the first mention of a torch version (of the headers, the libraries or installed).
    fn push_torch_version(&mut self, version: crate::read::linklog::TorchVersion) {
        let versions = &mut self.failure.torch_versions;
        let known = versions
            .iter()
            .any(|v| v.version == version.version && v.of == version.of);
        if !known && versions.len() < 16 {
            versions.push(version);
        }
    }

    /// Notes the machine a referencing function's mangled name (`function_name`) was compiled
    /// for: its type codes (`PEA`, `QAE`), else its pointers and references as parsed (`ABV`
    /// has no `__ptr64`: x86), a bounded number of times per log.
    fn note_reference_machine(&mut self, function_name: Option<&str>) {
        let machine = function_name
            .and_then(|name| reference_arch(name).or_else(|| self.parsed_pointer_machine(name)));
        if let Some(machine) = machine {
            if !self.failure.machines.contains(&machine) {
                self.failure.machines.push(machine);
            }
        }
    }

    /// The machine a referencing function's parsed pointers and references show
    /// ([`demangle::pointer_machine`]), while x86 is not known already and the bound allows.
    fn parsed_pointer_machine(&mut self, name: &str) -> Option<Machine> {
        if self.failure.machines.contains(&Machine::X86)
            || self.pointer_parses >= MAX_POINTER_PARSES
        {
            return None;
        }
        self.pointer_parses += 1;
        demangle::pointer_machine(name, self.demangle)
    }

    /// Takes one event.
    pub fn push(&mut self, located: Located) {
        let line = located.line;
        match located.event {
            Event::Unresolved(record) => self.push_unresolved(record, line),
            Event::Referenced(reference) => {
                self.note_reference_machine(reference.function_name.as_deref());
                if let Some(i) = self.last {
                    add_reference(&mut self.failure.symbols[i], reference, &mut self.interner);
                }
            }
            Event::MoreReferences(n) => {
                if let Some(i) = self.last {
                    self.failure.symbols[i].reported += n;
                }
            }
            Event::UnresolvedCount(n, output) => self.push_link_end(n, output, line),
            Event::TooManyErrors => self.failure.incomplete = true,
            Event::NearMissHint(hint) => {
                if let Some(i) = self.last {
                    let hints = &mut self.failure.symbols[i].hints;
                    if !hints.contains(&hint) && hints.len() < MAX_REFERENCES {
                        hints.push(hint);
                    }
                }
            }
            Event::Finding(finding) => {
                if self.failure.findings.len() < 10_000 {
                    self.failure.findings.push(finding);
                }
            }
            Event::CrtOption(option) => {
                let known = self
                    .failure
                    .crt_options
                    .iter()
                    .any(|o| o.option == option.option);
                if !known {
                    self.failure.crt_options.push(option);
                }
            }
            Event::Machine(machine) => {
                if !self.failure.machines.contains(&machine) {
                    self.failure.machines.push(machine);
                }
            }
            Event::LinkCommand(command) => {
                if self.failure.link_commands.len() < MAX_LINK_COMMANDS {
                    self.failure.link_commands.push(command);
                }
            }
            Event::LinkLineLibrary(library) => self.push_link_line_library(library),
            Event::TorchVersion(version) => self.push_torch_version(version),
            Event::NodeVersion(version) => {
                self.failure.node_version.get_or_insert(version);
            }
            Event::DefinedAt { object, source } => {
                // The definers are the finding's objects; their source lines, when lld-link
                // shows them, follow the name in its values.
                if let Some(finding) = self.last_lld_finding() {
                    if !finding.objects.contains(&object) && finding.objects.len() < 64 {
                        finding.objects.push(object);
                        finding.values.extend(source);
                    }
                }
            }
            Event::HasValue { object, value } => {
                if let Some(finding) = self.last_lld_finding() {
                    if finding.objects.len() < 64 {
                        finding.objects.push(object);
                        finding.values.push(value);
                    }
                }
            }
        }
    }

    /// One unresolved-symbol record (on line `line`): counted against the symbol it names, its
    /// linker and reference added.
    fn push_unresolved(&mut self, record: UnresolvedRecord, line: u64) {
        let Some(index) = self.symbol_index(&record, line) else {
            self.failure.records_past_max_symbols += 1;
            self.last = None;
            return;
        };
        if let Some(reference) = &record.reference {
            self.note_reference_machine(reference.function_name.as_deref());
        }
        let symbol = &mut self.failure.symbols[index];
        symbol.reported += 1;
        symbol.linkers.add(record.linker);
        if let Some(reference) = record.reference {
            if reference.object.as_deref() == Some("<root>") {
                symbol.entry_point = true;
            }
            add_reference(symbol, reference, &mut self.interner);
        }
        self.last = Some(index);
    }

    /// The index of the symbol a record names, added when new; `None` when it is new and
    /// `--max-symbols` distinct symbols are kept already.
    ///
    /// Repeats are the common case in big logs: the name is looked up as shown before it is
    /// demangled; only a new spelling is described and matched semantically.
    fn symbol_index(&mut self, record: &UnresolvedRecord, line: u64) -> Option<usize> {
        let decorated = record.symbol.decorated.as_deref().unwrap_or("");
        let display = record.symbol.display.as_deref().unwrap_or("");
        let mut shown_key = String::with_capacity(decorated.len() + 1 + display.len());
        shown_key.push_str(decorated);
        shown_key.push('\u{0}');
        shown_key.push_str(display);
        if let Some(&i) = self.by_shown.get(&shown_key) {
            return Some(i);
        }
        let described = describe(&record.symbol, self.demangle);
        let key = described
            .linker_name()
            .unwrap_or_else(|| described.canonical())
            .to_string();
        let i = match self.by_key.get(&key) {
            Some(&i) => i,
            None if self.max_symbols > 0 && self.failure.symbols.len() >= self.max_symbols => {
                return None;
            }
            None => {
                let i = self.failure.symbols.len();
                let mut symbol = described;
                symbol.first_line = line;
                self.failure.symbols.push(symbol);
                self.by_key.insert(key, i);
                i
            }
        };
        self.by_shown.insert(shown_key, i);
        Some(i)
    }

    /// The last finding when it is an lld-link record: `>>>` detail lines belong to it.
    fn last_lld_finding(&mut self) -> Option<&mut Finding> {
        self.failure
            .findings
            .last_mut()
            .filter(|f| f.code.starts_with("lld-link"))
    }

    /// Finishes: undoes x86 `__cdecl` decoration when the whole log is x86.
    pub fn finish(mut self, stats: LogStats) -> LinkFailure {
        self.failure.stats = stats;
        if self.failure.arch() == Some(Machine::X86) {
            for symbol in &mut self.failure.symbols {
                if symbol.x86_decoration.is_none() && !symbol.lookup_name().starts_with('?') {
                    if let Some(base) = undecorate_cdecl(symbol.lookup_name()) {
                        let names = symbol.names();
                        let (name, display, linker_name) = (
                            names.name.to_string(),
                            names.display.map(str::to_string),
                            names.linker_name.map(str::to_string),
                        );
                        symbol.set_names(Names {
                            name: &name,
                            display: display.as_deref(),
                            linker_name: linker_name.as_deref(),
                            demangled: &base,
                            canonical: &base,
                            lookup_name: &base,
                        });
                        symbol.x86_decoration = Some(X86Decoration::Cdecl);
                        symbol.arch = Some(Machine::X86);
                    }
                }
            }
        }
        self.failure
    }
}

fn add_reference(symbol: &mut UnresolvedSymbol, reference: Reference, interner: &mut Interner) {
    if reference.object.is_none() && reference.function.is_none() {
        return;
    }
    let mut share = |text: Option<String>| text.map(|t| interner.get(&t));
    let reference = SymbolReference {
        object: share(reference.object),
        function: share(reference.function),
        function_name: share(reference.function_name),
    };
    // The bound first: a symbol referenced more often than that is not searched again.
    if symbol.references.len() < MAX_REFERENCES && !symbol.references.contains(&reference) {
        // Most symbols have one reference: room for one, not the four a first push reserves
        // (216 bytes a symbol in a log of many distinct names).
        if symbol.references.capacity() == 0 {
            symbol.references.reserve_exact(1);
        }
        symbol.references.push(reference);
    }
}

/// Reads a log from any reader into a [`LinkFailure`].
pub fn collect<R: std::io::Read + 'static>(
    reader: R,
    limits: crate::read::linklog::ReadLimits,
) -> std::io::Result<LinkFailure> {
    let mut collector =
        Collector::with_limits(limits.demangle).with_max_symbols(limits.max_symbols);
    collector.failure.max_symbols = limits.max_symbols;
    let mut recogniser = crate::read::build_system::Recogniser::new();
    let mut python = crate::read::python_build::PythonBuild::default();
    let stats = crate::read::linklog::read_log_watched(
        reader,
        limits,
        &mut |e| collector.push(e),
        Some(&mut |number, line| {
            recogniser.line(number, line);
            python.line(number, line);
        }),
    )?;
    let mut failure = collector.finish(stats);
    failure.build_system = recogniser.finish();
    failure.python = python;
    Ok(failure)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(log: &str) -> LinkFailure {
        collect(
            std::io::Cursor::new(log.as_bytes().to_vec()),
            Default::default(),
        )
        .unwrap()
    }

    #[test]
    fn a_symbol_keeps_only_what_it_holds() {
        let f = failure(concat!(
            "a.obj : error LNK2019: unresolved external symbol \"void __cdecl ns::f(int)\" ",
            "(?f@ns@@YAXH@Z) referenced in function main\n",
            "b.obj : error LNK2019: unresolved external symbol \"void __cdecl ns::f(int)\" ",
            "(?f@ns@@YAXH@Z) referenced in function g\n",
            "c.obj : error LNK2019: unresolved external symbol c_name referenced in function h\n",
        ));
        let [cxx, c] = &f.symbols[..] else {
            panic!("{:?}", f.symbols)
        };
        assert_eq!(cxx.demangled(), "void __cdecl ns::f(int)");
        // The name forms in one text: the mangled name, the display text (which is also the
        // demangled form) and the canonical form.
        assert_eq!(cxx.name(), "?f@ns@@YAXH@Z");
        assert_eq!(cxx.linker_name(), Some("?f@ns@@YAXH@Z"));
        assert_eq!(cxx.lookup_name(), "?f@ns@@YAXH@Z");
        assert_eq!(cxx.canonical(), "void __cdecl ns::f(int)");
        assert_eq!(
            cxx.names.text.len(),
            "?f@ns@@YAXH@Z".len() + cxx.demangled().len()
        );
        assert_eq!(cxx.references.len(), 2);
        assert_eq!(cxx.references[1].function.as_deref(), Some("g"));
        assert_eq!(c.references.len(), 1);
        assert_eq!(c.references.capacity(), 1);
        assert_eq!(c.references[0].object.as_deref(), Some("c.obj"));
        assert_eq!(c.linkers.iter().collect::<Vec<_>>(), [Linker::LinkExe]);
        assert_eq!(c.names.text.as_ref(), "c_name");
    }

    #[test]
    fn undecoration() {
        assert_eq!(
            undecorate("_MessageBoxA@16"),
            (
                "MessageBoxA".into(),
                Some(X86Decoration::Stdcall { bytes: 16 })
            )
        );
        assert_eq!(
            undecorate("@f@8"),
            ("f".into(), Some(X86Decoration::Fastcall { bytes: 8 }))
        );
        assert_eq!(
            undecorate("f@@16"),
            ("f".into(), Some(X86Decoration::Vectorcall { bytes: 16 }))
        );
        assert_eq!(undecorate("hipMalloc"), ("hipMalloc".into(), None));
        assert_eq!(undecorate("?f@@YAXXZ"), ("?f@@YAXXZ".into(), None));
    }

    #[test]
    fn dllimport_display_becomes_imp_name() {
        let f = failure("lld-link: error: undefined symbol: __declspec(dllimport) _CrtDbgReport\n>>> referenced by a.cpp:1\n>>>               a.obj:(f)\n");
        let s = &f.symbols[0];
        assert_eq!(s.name(), "__declspec(dllimport) _CrtDbgReport");
        assert_eq!(s.linker_name(), Some("__imp__CrtDbgReport"));
        assert!(s.import);
        assert_eq!(s.lookup_name(), "_CrtDbgReport");
        assert_eq!(s.references[0].function.as_deref(), Some("f"));
    }

    #[test]
    fn duplicates_merge_and_references_dedup() {
        let f = failure(
            "a.obj : error LNK2001: unresolved external symbol __CxxFrameHandler4\n\
             b.obj : error LNK2001: unresolved external symbol __CxxFrameHandler4\n\
             a.obj : error LNK2001: unresolved external symbol __CxxFrameHandler4\n\
             x.exe : fatal error LNK1120: 1 unresolved externals\n",
        );
        assert_eq!(f.symbols.len(), 1);
        assert_eq!(f.symbols[0].reported, 3);
        assert_eq!(f.symbols[0].references.len(), 2);
        assert_eq!(f.lnk1120_counts, [1]);
    }

    #[test]
    fn hint_block_candidates_belong_to_the_symbol_they_follow() {
        let f = failure(
            "a.obj : error LNK2019: unresolved external symbol \"void __cdecl f(int)\" (?f@@YAXH@Z) referenced in function main\n\
             \x20 Hint on symbols that are defined and could potentially match:\n\
             \x20   \"void __cdecl f(long)\" (?f@@YAXJ@Z)\n\
             \x20   \"void __cdecl f(unsigned int)\" (?f@@YAXI@Z)\n\
             \n\
             a.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\n",
        );
        assert_eq!(
            f.symbols.len(),
            2,
            "hint candidates are not unresolved symbols"
        );
        let hints: Vec<&str> = f.symbols[0]
            .hints
            .iter()
            .filter_map(|h| h.decorated.as_deref())
            .collect();
        assert_eq!(hints, ["?f@@YAXJ@Z", "?f@@YAXI@Z"]);
        assert!(f.symbols[1].hints.is_empty());
    }

    #[test]
    fn x86_log_undoes_cdecl_underscore() {
        let f = failure(
            "main.obj : error LNK2019: unresolved external symbol __imp__MessageBoxA@16 referenced in function _main\n\
             main.obj : error LNK2019: unresolved external symbol __imp__PyErr_Clear referenced in function _main\n",
        );
        assert_eq!(f.arch(), Some(Machine::X86));
        assert_eq!(f.symbols[0].lookup_name(), "MessageBoxA");
        assert_eq!(f.symbols[1].lookup_name(), "PyErr_Clear");
        assert_eq!(f.symbols[1].x86_decoration, Some(X86Decoration::Cdecl));
    }

    #[test]
    fn msbuild_win32_banner_makes_the_log_x86() {
        let f = failure(
            "1>------ Build started: Project: probe, Configuration: Debug Win32 ------\n\
             1>probe.obj : error LNK2019: unresolved external symbol _RtlGetVersion referenced in function \"void __cdecl probe(void)\" (?probe@@YAXXZ)\n",
        );
        assert_eq!(f.arch(), Some(Machine::X86));
        assert_eq!(f.symbols[0].lookup_name(), "RtlGetVersion");
        let f = failure(
            "1>------ Build started: Project: probe, Configuration: Release x64 ------\n\
             1>probe.obj : error LNK2019: unresolved external symbol _RtlGetVersion referenced in function \"void __cdecl probe(void)\" (?probe@@YAXXZ)\n",
        );
        assert_eq!(f.arch(), Some(Machine::X64));
        assert_eq!(f.symbols[0].lookup_name(), "_RtlGetVersion");
    }

    #[test]
    fn referencing_function_mangling_tells_the_machine() {
        // `QBE`: an x86 const member function; the identifier `QAB_init` is not read.
        let f = failure(
            "a.obj : error LNK2019: unresolved external symbol _xmlInit referenced in function \"public: int __thiscall P::get(void)const \" (?get@P@@QBEHXZ)\n",
        );
        assert_eq!(f.arch(), Some(Machine::X86));
        assert_eq!(f.symbols[0].lookup_name(), "xmlInit");
        let f = failure(
            "a.obj : error LNK2019: unresolved external symbol _xmlInit referenced in function \"void __cdecl QAB_init(void)\" (?QAB_init@@YAXXZ)\n",
        );
        assert_eq!(f.arch(), None);
        assert_eq!(f.symbols[0].lookup_name(), "_xmlInit");
        assert_eq!(reference_arch("?f@@YAXPEAH@Z"), Some(Machine::X64));
        assert_eq!(reference_arch("?f@@YAXPAH@Z"), Some(Machine::X86));
        assert_eq!(reference_arch("f"), None);
    }

    #[test]
    fn lld_definers_and_mismatch_sides_join_their_record() {
        let f = failure(
            "lld-link: error: duplicate symbol: f\n>>> defined at a.cpp:1\n>>>            a.obj\n>>> defined at b.obj\n\
             lld-link: error: /failifmismatch: mismatch detected for 'RuntimeLibrary':\n>>> a.obj has value MD_DynamicRelease\n>>> b.obj has value MT_StaticRelease\n",
        );
        assert_eq!(f.findings.len(), 2);
        assert_eq!(f.findings[0].objects, ["a.obj", "b.obj"]);
        assert_eq!(f.findings[0].values, ["f", "a.cpp:1"]);
        assert_eq!(f.findings[1].objects, ["a.obj", "b.obj"]);
        assert_eq!(
            f.findings[1].values,
            ["RuntimeLibrary", "MD_DynamicRelease", "MT_StaticRelease"]
        );
        assert!(f.symbols.is_empty());
    }

    #[test]
    fn x86_references_without_ptr64_tell_the_machine() {
        // `ABV`: a const reference without `E`, the only pointer of the referencing function.
        let f = failure(
            "fetch.obj : error LNK2019: unresolved external symbol __imp__curl_easy_init referenced in function \"int __cdecl fetch(class std::basic_string<char,struct std::char_traits<char>,class std::allocator<char> > const &)\" (?fetch@@YAHABV?$basic_string@DU?$char_traits@D@std@@V?$allocator@D@2@@std@@@Z)\n",
        );
        assert_eq!(f.arch(), Some(Machine::X86));
        assert_eq!(f.symbols[0].lookup_name(), "curl_easy_init");
        // The x64 form (`AEBV`) keeps the underscore, and a function without pointers tells
        // nothing.
        let f = failure(
            "fetch.obj : error LNK2019: unresolved external symbol __imp__curl_easy_init referenced in function \"int __cdecl fetch(class std::basic_string<char,struct std::char_traits<char>,class std::allocator<char> > const &)\" (?fetch@@YAHAEBV?$basic_string@DU?$char_traits@D@std@@V?$allocator@D@2@@std@@@Z)\n",
        );
        assert_eq!(f.arch(), Some(Machine::X64));
        assert_eq!(f.symbols[0].lookup_name(), "_curl_easy_init");
        let limits = demangle::DemangleLimits::default();
        assert_eq!(demangle::pointer_machine("?f@@YAHH@Z", limits), None);
        assert_eq!(
            demangle::pointer_machine("?f@@YAXAAV?$vector@H@std@@@Z", limits),
            Some(Machine::X86)
        );
        assert_eq!(
            demangle::pointer_machine("?f@@YAXPEBD@Z", limits),
            Some(Machine::X64)
        );
        assert_eq!(demangle::pointer_machine("?f@@YAXP6AXXZ@Z", limits), None);
        // The symbol itself: an x86 reference parameter is x86 evidence.
        let f = failure(
            "a.obj : error LNK2001: unresolved external symbol \"void __cdecl log_line(class Line const &)\" (?log_line@@YAXABVLine@@@Z)\n",
        );
        assert_eq!(f.symbols[0].arch, Some(Machine::X86));
    }

    #[test]
    fn link_lines_name_their_libraries_and_torch_paths_their_versions() {
        let f = failure(
            "PyTorch version: 2.15.0+cpu\n\
             cl /c -IC:\\deps\\libtorch-win-shared-with-deps-2.3.1+cpu\\libtorch\\include a.cpp\n\
             C:\\VS\\bin\\Hostx64\\x64\\link.exe /nologo /OUT:a.exe /IMPLIB:a.lib /DEFAULTLIB:oldnames.lib a.obj \"C:\\Program Files\\x\\lib\\z.lib\" /LIBPATH:C:\\lt\\libtorch-2.15.0\\lib c10.lib -lm @rsp.lib\n\
             a.obj : error LNK2019: unresolved external symbol f referenced in function main\n",
        );
        let libraries: Vec<&str> = f
            .link_line_libraries
            .iter()
            .map(|l| l.library.as_str())
            .collect();
        // Options (`/OUT:`, `/IMPLIB:`, `/DEFAULTLIB:`) and response files are not libraries;
        // a quoted path with a space is cut but keeps its file name.
        assert_eq!(libraries, ["Files\\x\\lib\\z.lib", "c10.lib"]);
        let versions: Vec<(&str, &str)> = f
            .torch_versions
            .iter()
            .map(|v| (v.version.as_str(), v.of.as_str()))
            .collect();
        assert_eq!(
            versions,
            [
                ("2.15.0+cpu", "installed"),
                ("2.3.1+cpu", "headers"),
                ("2.15.0", "libraries")
            ]
        );
    }

    #[test]
    fn mangled_arch_detection() {
        assert_eq!(mangled_arch("??3@YAXPEAX_K@Z"), Some(Machine::X64));
        assert_eq!(mangled_arch("??3@YAXPAXI@Z"), Some(Machine::X86));
        assert_eq!(mangled_arch("?f@@YAXXZ"), None);
    }
}
