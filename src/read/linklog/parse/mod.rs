//! One logical line to link records: link.exe's `LNKnnnn` lines (any language, any wrapper, the
//! Visual Studio Error List's tab-separated rows) and lld-link's `undefined symbol` blocks.
//!
//! Records are recognised by their error code and structure, not by English words, so that
//! localized link.exe output still yields every symbol (docs/RULES.md §8).
//!
//! [`LineParser`] dispatches each line to the reader of its kind:
//! - `link_exe`: `PRE : error LNKnnnn: DESC` lines and Error List rows;
//! - `lld`: `lld-link: error: ...` records and their `>>>` lines;
//! - `command_line`: CRT-selecting options and machines on compiler and linker command lines;
//! - `shown`: a symbol as the log shows it (`"display" (decorated)`, quoted, bare).

use crate::read::linklog::trim::TrimWhitespace;
mod command_line;
mod link_exe;
mod lld;
mod shown;
#[cfg(test)]
mod tests;

use regex::Regex;
use serde::Serialize;
use std::sync::{LazyLock, OnceLock};

use super::clean;
use link_exe::link_exe_event;
pub(crate) use link_exe::split_link_exe;
use lld::{
    arrow_line, detail_line, lld_event, lld_record, looks_like_source_location,
    split_object_function, Arrow, Detail,
};
use shown::parse_shown;

/// Which linker wrote a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Linker {
    /// Microsoft's link.exe (`error LNK2019`).
    LinkExe,
    /// LLVM's lld-link (`lld-link: error: undefined symbol:`).
    LldLink,
}

/// A symbol as the log shows it: the display (undecorated) text and/or the decorated name.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, serde::Deserialize)]
pub struct ShownName {
    /// Human-readable text (`"void __cdecl f(void)"`, lld-link's demangled names).
    pub display: Option<String>,
    /// The decorated (linker-level) name when the log shows it (`?f@@YAXXZ`, `__imp_X`, `hipMalloc`).
    pub decorated: Option<String>,
}

/// Where an unresolved symbol was referenced.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, serde::Deserialize, PartialOrd, Ord)]
pub struct Reference {
    /// The referencing object: `foo.obj`, `foo.lib(bar.obj)`, `LINK`, `<root>`.
    pub object: Option<String>,
    /// The referencing function (its display text, or decorated name when only that is shown).
    pub function: Option<String>,
    /// The referencing function's decorated name, when link.exe shows it beside the display text
    /// (`"int __cdecl invoke_main(void)" (?invoke_main@@YAHXZ)`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub function_name: Option<String>,
}

/// An unresolved-symbol report: one LNK2019/LNK2001 line or one lld-link `undefined symbol`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnresolvedRecord {
    /// The linker that wrote it.
    pub linker: Linker,
    /// `LNK2019`, `LNK2001`, or `None` for lld-link.
    pub code: Option<String>,
    /// The symbol as shown.
    pub symbol: ShownName,
    /// The reference given on the same line (link.exe) or `<root>` (lld-link's entry point).
    pub reference: Option<Reference>,
}

/// A link.exe or lld-link finding kept for later stages (CRT flavour, triage).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Finding {
    /// `LNK2038`, `LNK4098`, `LNK2005`, `LNK1104`, `LNK4272`, `LNK4217`, `lld-link`, `clang`, ...
    pub code: String,
    /// The line's text after the code.
    pub text: String,
    /// Values quoted in the text (`'RuntimeLibrary'`, `'MT_StaticRelease'`, ...), in order. For
    /// LNK2005 and LNK4217 the symbol comes first; for lld-link's `duplicate symbol` the symbol,
    /// then the `source:line` shown for a definer; for lld-link's `/failifmismatch` the key, then
    /// each object's value (in the order of `objects`).
    pub values: Vec<String>,
    /// Objects or files the text names.
    pub objects: Vec<String>,
    /// 1-based line number.
    pub line: u64,
}

/// A compiler/linker option on a command line in the log that says which CRT was used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CrtOption {
    /// The option as written (`/MD`, `-fms-runtime-lib=static`, `--dependent-lib=msvcrt`, `/DEFAULTLIB:LIBCMT`).
    pub option: String,
    /// 1-based line number.
    pub line: u64,
}

/// A library file named on a linker command line in the log (`c10.lib`, `src\\core.lib`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LinkLineLibrary {
    /// The word as written, quotes removed (a path or a file name).
    pub library: String,
    /// 1-based line number.
    pub line: u64,
}

/// A linker command line in the log (`link.exe /OUT:b.dll ...`, CMake's `LINK: command "..."`):
/// the libraries on it belong to the link whose errors follow it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LinkCommand {
    /// 1-based line number.
    pub line: u64,
    /// The file name of its `/OUT:` (`-out:`, `-o`) output, when it names one (`b.dll`).
    #[serde(default)]
    pub output: Option<String>,
    /// The file name of its `/IMPLIB:` import library, when it names one (`b.lib`; a DLL's
    /// import library can have another name than the DLL: `amdhip64_7.dll`, `amdhip64.lib`).
    #[serde(default)]
    pub import_library: Option<String>,
}

/// A torch version the log shows: in a libtorch path (`libtorch-win-shared-with-deps-2.2.1+cpu`)
/// of an include option (the headers) or a library path or `/LIBPATH:` (the libraries), or
/// `PyTorch version: 2.3.1` (collect_env's report of the installed torch).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct TorchVersion {
    /// The version as written (`2.2.1+cpu`).
    pub version: String,
    /// What has that version: `headers`, `libraries` or `installed`.
    pub of: String,
    /// 1-based line number.
    pub line: u64,
}

/// One event the parser recognised on a line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// An unresolved symbol.
    Unresolved(UnresolvedRecord),
    /// lld-link `>>> referenced by`: belongs to the last lld-link unresolved symbol.
    Referenced(Reference),
    /// lld-link `>>> referenced N more times`.
    MoreReferences(u64),
    /// link.exe `OUT : fatal error LNK1120: N unresolved externals`: the count and the output
    /// file the line names (`bin\\tray.dll`), which ends one link's errors.
    UnresolvedCount(u64, Option<String>),
    /// lld-link `too many errors emitted, stopping now`: the list is incomplete.
    TooManyErrors,
    /// A candidate from link.exe's "Hint on symbols that are defined and could potentially match".
    NearMissHint(ShownName),
    /// Any other LNK code or linker error worth keeping.
    Finding(Finding),
    /// A CRT-selecting option seen on a command line.
    CrtOption(CrtOption),
    /// `/machine:X` or a compiler banner naming the target machine.
    Machine(crate::index::Machine),
    /// A linker command line (its libraries follow as [`Event::LinkLineLibrary`]).
    LinkCommand(LinkCommand),
    /// A library file named on a linker command line.
    LinkLineLibrary(LinkLineLibrary),
    /// A torch version a command line or collect_env shows.
    TorchVersion(TorchVersion),
    /// The Node version node-gyp builds for (`gyp info using node@20.11.1 | win32 | x64`).
    NodeVersion(String),
    /// lld-link `>>> defined at X`: one definer of the last `duplicate symbol`.
    DefinedAt {
        /// The object or `lib(member)`.
        object: String,
        /// The `source:line` lld-link showed above it, when the object has line information.
        source: Option<String>,
    },
    /// lld-link `>>> X has value V`: one side of the last `/failifmismatch` mismatch.
    HasValue {
        /// The object or `lib(member)`.
        object: String,
        /// Its value (`MT_StaticRelease`).
        value: String,
    },
}

/// Substring searchers built once (building one per line costs more than the search).
pub(crate) struct Finders {
    pub(crate) lnk: memchr::memmem::Finder<'static>,
    /// link.exe's ` referenced in function ` (English).
    pub(crate) referenced_in: memchr::memmem::Finder<'static>,
    pub(crate) arrows: memchr::memmem::Finder<'static>,
    pub(crate) error: memchr::memmem::Finder<'static>,
    pub(crate) warning: memchr::memmem::Finder<'static>,
    pub(crate) lld: memchr::memmem::Finder<'static>,
    pub(crate) hint: memchr::memmem::Finder<'static>,
    /// clang's closing line when the linker it ran failed.
    pub(crate) clang_failed: memchr::memmem::Finder<'static>,
    /// lld-link's ` has value ` (a `/failifmismatch` side), searched from the end.
    pub(crate) has_value: memchr::memmem::FinderRev<'static>,
}

/// Where `LNK` starts in `bytes`, in order: a byte search for `L` and a look at the two bytes
/// after it. On a line (a record is a few hundred bytes) this costs less than a substring search,
/// which sets up its SIMD search at each call; `LNK` cannot overlap itself, so these are the
/// positions a substring search finds.
pub(crate) fn lnk_positions(bytes: &[u8]) -> impl Iterator<Item = usize> + '_ {
    memchr::memchr_iter(b'L', bytes).filter(move |&at| bytes[at + 1..].starts_with(b"NK"))
}

pub(crate) fn finders() -> &'static Finders {
    static F: OnceLock<Finders> = OnceLock::new();
    F.get_or_init(|| Finders {
        lnk: memchr::memmem::Finder::new("LNK"),
        referenced_in: memchr::memmem::Finder::new(" referenced in function "),
        arrows: memchr::memmem::Finder::new(">>>"),
        error: memchr::memmem::Finder::new("error"),
        warning: memchr::memmem::Finder::new("warning"),
        lld: memchr::memmem::Finder::new("lld"),
        hint: memchr::memmem::Finder::new(
            "Hint on symbols that are defined and could potentially match",
        ),
        clang_failed: memchr::memmem::Finder::new("clang: error: linker command failed"),
        has_value: memchr::memmem::FinderRev::new(" has value "),
    })
}

/// The regular expressions, each compiled on its first use: a run compiles only those its
/// log's lines need (a link.exe log needs none of the lld ones).
pub(super) struct Patterns {
    pub(super) lld: LazyLock<Regex>,
    pub(super) referenced_by: LazyLock<Regex>,
    pub(super) continuation: LazyLock<Regex>,
    pub(super) more_times: LazyLock<Regex>,
    pub(super) pair: LazyLock<Regex>,
    pub(super) quoted: LazyLock<Regex>,
    pub(super) bare: LazyLock<Regex>,
    pub(super) crt_option: LazyLock<Regex>,
    pub(super) machine: LazyLock<Regex>,
    pub(super) object_token: LazyLock<Regex>,
    pub(super) number: LazyLock<Regex>,
}

/// The compiled patterns.
pub(super) fn patterns() -> &'static Patterns {
    static P: Patterns = Patterns {
        lld: LazyLock::new(|| {
            Regex::new(
            r#"(?:^|[\s:>\]'"])(?:lld-link|ld\.lld|ld\.lld-link|lld|rust-lld)(?:\.exe)?(?:-\d+)?\s*:\s*(?P<sev>error|warning)\s*:\s*(?P<rest>.*)$"#,
        )
        .expect("pattern")
        }),
        referenced_by: LazyLock::new(|| {
            Regex::new(r"^\s*>>>\s+referenced by\s+(?P<rest>.*)$").expect("pattern")
        }),
        continuation: LazyLock::new(|| {
            Regex::new(r"^\s*>>>\s{2,}(?P<rest>\S.*)$").expect("pattern")
        }),
        more_times: LazyLock::new(|| {
            Regex::new(r"^\s*>>>\s+referenced (?P<n>\d+) more times?").expect("pattern")
        }),
        // "display" (decorated): the decorated name has no spaces.
        pair: LazyLock::new(|| {
            Regex::new(r#""(?P<display>[^"]*)"\s*\((?P<decorated>[^\s()"]+)\)"#).expect("pattern")
        }),
        quoted: LazyLock::new(|| Regex::new(r#""(?P<text>[^"]+)""#).expect("pattern")),
        bare: LazyLock::new(|| Regex::new(r"[A-Za-z0-9_?@$.<>~:\-]+").expect("pattern")),
        crt_option: LazyLock::new(|| {
            Regex::new(
            r#"(?:^|[\s"'])(?P<opt>[/-](?:MDd|MTd|MD|MT|LDd|LD)|-fms-runtime-lib=[a-z_]+|--dependent-lib=[^\s"']+|[/-]DEFAULTLIB:"?[^\s"']+|[/-]NODEFAULTLIB(?::[^\s"']+)?|[/-]Zl|-D_DLL)"#,
        )
        .expect("pattern")
        }),
        machine: LazyLock::new(|| {
            Regex::new(
            r"(?i)(?:[/-]machine:(?P<m>x86|x64|arm64ec|arm64|arm|i386|amd64)\b|Compiler Version [\d.]+ for (?P<b>80x86|x64|x86|ARM64)|started: Project: [^,]+, Configuration: [^ ]+ (?P<c>Win32|x64|ARM64)\b|\bHostx(?:86|64)[\\/]+(?P<h>x86|x64|arm64)[\\/]+)",
        )
        .expect("pattern")
        }),
        object_token: LazyLock::new(|| {
            Regex::new(r#"(?i)[^\s'"]+?\.(?:obj|o|lib|dll|exe|pyd)(?:\([^()]+\))?"#)
                .expect("pattern")
        }),
        number: LazyLock::new(|| Regex::new(r"\d+").expect("pattern")),
    };
    &P
}

/// Values in single quotes (`'RuntimeLibrary'`); an apostrophe inside a word (`doesn't`) is not
/// a quote: a quote opens after a space or punctuation and closes before one.
pub(super) fn quoted_values(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let opens = bytes[i] == b'\''
            && (i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'(' | b':' | b',' | b'='));
        if opens {
            let closing = (i + 1..bytes.len()).find(|&j| {
                bytes[j] == b'\'' && (j + 1 == bytes.len() || !bytes[j + 1].is_ascii_alphanumeric())
            });
            if let Some(j) = closing {
                out.push(text[i + 1..j].to_string());
                i = j + 1;
                continue;
            }
        }
        i += 1;
    }
    out
}

/// Values in single or double quotes, in order: `'RuntimeLibrary'` (English) and
/// `"RuntimeLibrary"` (German, Russian, Chinese after the quote lens), trimmed. A double quote
/// opens anywhere (localized texts glue it to words: `值"0"不匹配值"2"`).
pub(super) fn all_quoted_values(text: &str) -> Vec<String> {
    if !text.contains('"') {
        return quoted_values(text);
    }
    let mut out: Vec<(usize, String)> = Vec::new();
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'"' {
            match memchr::memchr(b'"', &bytes[i + 1..]) {
                Some(length) => {
                    let value = text[i + 1..i + 1 + length].trim_ws();
                    if !value.is_empty() {
                        out.push((i, value.to_string()));
                    }
                    i += length + 2;
                    continue;
                }
                // An unclosed quote (a cut line): the rest is the value.
                None => {
                    let value = text[i + 1..].trim_ws();
                    if !value.is_empty() {
                        out.push((i, value.to_string()));
                    }
                    break;
                }
            }
        }
        i += 1;
    }
    // Single-quoted values outside the double-quoted ones.
    let mut single_at = 0;
    for value in quoted_values(text) {
        if let Some(at) = text[single_at..].find(&format!("'{value}'")) {
            let at = single_at + at;
            single_at = at + value.len() + 2;
            let inside_double = out
                .iter()
                .any(|(start, v)| *start < at && at < start + v.len() + 2);
            if !inside_double {
                out.push((at, value));
            }
        }
    }
    out.sort_by_key(|(at, _)| *at);
    out.into_iter().map(|(_, v)| v).collect()
}

/// The object, library and module names a text names (`x.obj`, `y.lib(z.obj)`, `p.dll`), and
/// quoted file names (`'C:\Program Files\x.lib'`, which may hold spaces).
pub(super) fn object_tokens(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for value in all_quoted_values(text) {
        if value.contains(' ') && is_file_name(&value) {
            out.push(value);
        }
    }
    for m in patterns().object_token.find_iter(text) {
        // A token glued to the text before it (`(costas_array.obj`, `已在fltkd.lib`).
        let token = m.as_str().trim_start_matches(|c: char| {
            matches!(c, '(' | '[' | '{' | '<' | '（') || (!c.is_ascii() && c.is_alphabetic())
        });
        if !token.is_empty() && !out.iter().any(|o| o.ends_with(token)) {
            out.push(token.to_string());
        }
    }
    out
}

/// Whether a quoted value names a file: it ends in an object, library or image extension.
fn is_file_name(value: &str) -> bool {
    let lower = value.to_ascii_lowercase();
    [".obj", ".o", ".lib", ".dll", ".exe", ".pyd", ".a", ".res"]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// The referencing object in front of a link.exe record, with tool prefixes removed.
pub(super) fn object_from_prefix(pre: &str) -> Option<String> {
    let object = clean::strip_prefixes(pre).trim_ws();
    if object.is_empty() {
        None
    } else {
        Some(object.to_string())
    }
}

/// What a `>>> source:line` line left waiting for the next `>>>` line (lld-link writes the
/// object on the line after the source).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
enum Pending {
    /// Nothing.
    #[default]
    None,
    /// A `>>> referenced by source:line`: the `obj:(function)` follows.
    Reference,
    /// A `>>> defined at source:line` (the source): the object follows.
    Definition(String),
}

/// State carried between lines: lld-link's two-line `>>>` locations, link.exe's hint block.
#[derive(Debug, Default)]
pub struct LineParser {
    /// A `>>> referenced by source:line` or `>>> defined at source:line` waiting for its object.
    pending_source: Pending,
    /// Inside link.exe's "Hint on symbols that are defined and could potentially match" block.
    in_hint_block: bool,
}

impl LineParser {
    /// A parser at the start of a log.
    pub fn new() -> LineParser {
        LineParser::default()
    }

    /// Whether the parser is inside link.exe's hint block (every line there matters).
    pub fn in_hint_block(&self) -> bool {
        self.in_hint_block
    }

    /// Parses one cleaned logical line (already free of escapes and repr wrapping): the first
    /// kind of line it is, tried in order (an lld-link `>>>` line, a link.exe record or Error
    /// List row, an lld-link record or clang's closing line, link.exe's hint block), else a
    /// command line.
    pub fn parse_line(&mut self, line: &str, line_number: u64, events: &mut Vec<Event>) {
        let quick = line.as_bytes();
        let f = finders();
        if f.arrows.find(quick).is_some() && self.arrow_line(line, events) {
            return;
        }
        if lnk_positions(quick).next().is_some() && self.link_exe_line(line, line_number, events) {
            return;
        }
        if (f.error.find(quick).is_some() || f.warning.find(quick).is_some())
            && self.driver_line(line, line_number, events)
        {
            return;
        }
        if f.hint.find(quick).is_some() {
            self.in_hint_block = true;
            return;
        }
        if self.in_hint_block && self.hint_line(line, events) {
            return;
        }
        command_line::scan(line, line_number, events);
    }

    /// An lld-link `>>>` line: where a symbol is referenced or defined, how many more times, or
    /// a `/failifmismatch` value. Returns whether the line was one.
    fn arrow_line(&mut self, line: &str, events: &mut Vec<Event>) -> bool {
        match detail_line(line) {
            Some(Detail::DefinedAt(rest)) => {
                if looks_like_source_location(rest) {
                    self.pending_source = Pending::Definition(rest.to_string());
                } else {
                    self.pending_source = Pending::None;
                    events.push(Event::DefinedAt {
                        object: rest.to_string(),
                        source: None,
                    });
                }
                return true;
            }
            Some(Detail::HasValue { object, value }) => {
                self.pending_source = Pending::None;
                events.push(Event::HasValue {
                    object: object.to_string(),
                    value: value.to_string(),
                });
                return true;
            }
            None => {}
        }
        match arrow_line(line) {
            Arrow::MoreTimes(n) => {
                self.pending_source = Pending::None;
                if let Ok(n) = n.parse() {
                    events.push(Event::MoreReferences(n));
                }
                true
            }
            Arrow::ReferencedBy(rest) => {
                self.referenced_by(rest.trim_ws(), events);
                true
            }
            Arrow::Continuation(rest) if matches!(self.pending_source, Pending::Definition(_)) => {
                let source = match std::mem::take(&mut self.pending_source) {
                    Pending::Definition(source) => Some(source),
                    _ => None,
                };
                events.push(Event::DefinedAt {
                    object: rest.trim_ws().to_string(),
                    source,
                });
                true
            }
            Arrow::Continuation(rest) if self.pending_source == Pending::Reference => {
                self.pending_source = Pending::None;
                let rest = rest.trim_ws();
                let reference = split_object_function(rest).unwrap_or(Reference {
                    object: Some(rest.to_string()),
                    ..Default::default()
                });
                events.push(Event::Referenced(reference));
                true
            }
            Arrow::Continuation(_) | Arrow::Other => false,
        }
    }

    /// `>>> referenced by REST`: the object and function, or a `source:line` whose object and
    /// function follow on the next `>>>` line.
    fn referenced_by(&mut self, rest: &str, events: &mut Vec<Event>) {
        match split_object_function(rest) {
            Some(reference) => {
                self.pending_source = Pending::None;
                events.push(Event::Referenced(reference));
            }
            // A bare object with no function (bitcode, no symbol) stands alone.
            None if looks_like_source_location(rest) => self.pending_source = Pending::Reference,
            None => events.push(Event::Referenced(Reference {
                object: Some(rest.to_string()),
                ..Default::default()
            })),
        }
    }

    /// A link.exe record or an Error List row. Returns whether the line was one.
    fn link_exe_line(&mut self, line: &str, line_number: u64, events: &mut Vec<Event>) -> bool {
        if let Some(event) = link_exe::error_list_row(line, line_number) {
            self.in_hint_block = false;
            events.push(event);
            return true;
        }
        let Some((pre, code, desc)) = split_link_exe(line) else {
            return false;
        };
        self.in_hint_block = false;
        self.pending_source = Pending::None;
        let desc = clean::strip_suffixes(desc);
        events.push(link_exe_event(
            code,
            desc,
            object_from_prefix(pre),
            line_number,
        ));
        true
    }

    /// An lld-link record (returns true), or clang's closing line when the linker it ran failed
    /// (a finding; the line is then also read as a command line).
    fn driver_line(&mut self, line: &str, line_number: u64, events: &mut Vec<Event>) -> bool {
        let f = finders();
        if let Some((severity, rest)) = f.lld.find(line.as_bytes()).and_then(|_| lld_record(line)) {
            self.in_hint_block = false;
            self.pending_source = Pending::None;
            let rest = clean::strip_suffixes(rest);
            events.push(lld_event(severity, rest, line_number));
            return true;
        }
        if let Some(i) = f.clang_failed.find(line.as_bytes()) {
            events.push(Event::Finding(Finding {
                code: "clang".into(),
                text: line[i..].to_string(),
                values: Vec::new(),
                objects: Vec::new(),
                line: line_number,
            }));
        }
        false
    }

    /// A line of link.exe's hint block: a near miss; an empty line ends the block. Returns
    /// whether the line was a near miss.
    fn hint_line(&mut self, line: &str, events: &mut Vec<Event>) -> bool {
        let text = clean::strip_suffixes(clean::strip_prefixes(line)).trim_ws();
        if text.is_empty() {
            self.in_hint_block = false;
            return false;
        }
        events.push(Event::NearMissHint(parse_shown(text)));
        true
    }
}

/// Whether an ASCII byte is whitespace as the patterns' `\s` sees it (vertical tab included).
pub(crate) use crate::read::linklog::trim::is_ascii_whitespace as is_pattern_space;

/// `text` without leading [`is_pattern_space`] whitespace.
pub(super) fn trim_ascii_space(text: &str) -> &str {
    text.trim_start_matches(|c: char| c.is_ascii() && is_pattern_space(c as u8))
}
