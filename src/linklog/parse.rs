//! One logical line to link records: link.exe's `LNKnnnn` lines (any language, any wrapper, the
//! Visual Studio Error List's tab-separated rows) and lld-link's `undefined symbol` blocks.
//!
//! Records are recognised by their error code and structure, not by English words, so that
//! localized link.exe output still yields every symbol (docs/RULES.md §8).

use regex::Regex;
use serde::Serialize;
use std::sync::OnceLock;

use super::clean;

/// Which linker wrote a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Linker {
    /// Microsoft's link.exe (`error LNK2019`).
    LinkExe,
    /// LLVM's lld-link (`lld-link: error: undefined symbol:`).
    LldLink,
}

/// A symbol as the log shows it: the display (undecorated) text and/or the decorated name.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct ShownName {
    /// Human-readable text (`"void __cdecl f(void)"`, lld-link's demangled names).
    pub display: Option<String>,
    /// The decorated (linker-level) name when the log shows it (`?f@@YAXXZ`, `__imp_X`, `hipMalloc`).
    pub decorated: Option<String>,
}

/// Where an unresolved symbol was referenced.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, PartialOrd, Ord)]
pub struct Reference {
    /// The referencing object: `foo.obj`, `foo.lib(bar.obj)`, `LINK`, `<root>`.
    pub object: Option<String>,
    /// The referencing function (its display text, or decorated name when only that is shown).
    pub function: Option<String>,
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
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// `LNK2038`, `LNK4098`, `LNK2005`, `LNK1104`, `LNK4272`, `LNK4217`, `lld-link`, `clang`, ...
    pub code: String,
    /// The line's text after the code.
    pub text: String,
    /// Values quoted in the text (`'RuntimeLibrary'`, `'MT_StaticRelease'`, ...), in order.
    pub values: Vec<String>,
    /// Objects or files the text names.
    pub objects: Vec<String>,
    /// 1-based line number.
    pub line: u64,
}

/// A compiler/linker option on a command line in the log that says which CRT was used.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct CrtOption {
    /// The option as written (`/MD`, `-fms-runtime-lib=static`, `--dependent-lib=msvcrt`, `/DEFAULTLIB:LIBCMT`).
    pub option: String,
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
    /// link.exe `LNK1120: N unresolved externals`.
    UnresolvedCount(u64),
    /// lld-link `too many errors emitted, stopping now`: the list is incomplete.
    TooManyErrors,
    /// A candidate from link.exe's "Hint on symbols that are defined and could potentially match".
    NearMissHint(ShownName),
    /// Any other LNK code or linker error worth keeping.
    Finding(Finding),
    /// A CRT-selecting option seen on a command line.
    CrtOption(CrtOption),
    /// `/machine:X` or a compiler banner naming the target machine.
    Machine(String),
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
    })
}

struct Patterns {
    lld: Regex,
    referenced_by: Regex,
    continuation: Regex,
    more_times: Regex,
    pair: Regex,
    quoted: Regex,
    bare: Regex,
    crt_option: Regex,
    machine: Regex,
    object_token: Regex,
    number: Regex,
}

fn patterns() -> &'static Patterns {
    static P: OnceLock<Patterns> = OnceLock::new();
    P.get_or_init(|| Patterns {
        lld: Regex::new(
            r#"(?:^|[\s:>\]'"])(?:lld-link|ld\.lld|ld\.lld-link|lld)(?:\.exe)?(?:-\d+)?\s*:\s*(?P<sev>error|warning)\s*:\s*(?P<rest>.*)$"#,
        )
        .expect("pattern"),
        referenced_by: Regex::new(r"^\s*>>>\s+referenced by\s+(?P<rest>.*)$").expect("pattern"),
        continuation: Regex::new(r"^\s*>>>\s{2,}(?P<rest>\S.*)$").expect("pattern"),
        more_times: Regex::new(r"^\s*>>>\s+referenced (?P<n>\d+) more times?").expect("pattern"),
        // "display" (decorated): the decorated name has no spaces.
        pair: Regex::new(r#""(?P<display>[^"]*)"\s*\((?P<decorated>[^\s()"]+)\)"#).expect("pattern"),
        quoted: Regex::new(r#""(?P<text>[^"]+)""#).expect("pattern"),
        bare: Regex::new(r"[A-Za-z0-9_?@$.<>~:\-]+").expect("pattern"),
        crt_option: Regex::new(
            r#"(?:^|[\s"'])(?P<opt>[/-](?:MDd|MTd|MD|MT|LDd|LD)|-fms-runtime-lib=[a-z_]+|--dependent-lib=[^\s"']+|[/-]DEFAULTLIB:"?[^\s"']+|[/-]NODEFAULTLIB(?::[^\s"']+)?|[/-]Zl|-D_DLL)"#,
        )
        .expect("pattern"),
        machine: Regex::new(
            r"(?i)(?:[/-]machine:(?P<m>x86|x64|arm64ec|arm64|arm|i386|amd64)\b|Compiler Version [\d.]+ for (?P<b>80x86|x64|x86|ARM64))",
        )
        .expect("pattern"),
        object_token: Regex::new(
            r#"(?i)[^\s'"]+?\.(?:obj|o|lib|dll|exe|pyd)(?:\([^()]+\))?"#,
        )
        .expect("pattern"),
        number: Regex::new(r"\d+").expect("pattern"),
    })
}

/// Lowercase ASCII words of link.exe's unresolved-symbol templates in the languages Visual Studio
/// ships; a bare token that is one of them is text, not a symbol. (Words with non-ASCII letters
/// never qualify as symbols anyway.)
const TEMPLATE_WORDS: &[&str] = &[
    // en
    "unresolved",
    "external",
    "symbol",
    "referenced",
    "in",
    "function",
    // it
    "simbolo",
    "esterno",
    "non",
    "risolto",
    "a",
    "cui",
    "si",
    "fa",
    "riferimento",
    "nella",
    "funzione",
    // de
    "verweis",
    "auf",
    "nicht",
    "externes",
    "funktion",
    // fr
    "symbole",
    "externe",
    "dans",
    "la",
    "fonction",
    // es, pt
    "externo",
    "sin",
    "resolver",
    "al",
    "que",
    "se",
    "hace",
    "referencia",
    "en",
    "referenciado",
    "na",
    "resolvido",
    "no",
    // pl, cs, tr
    "nierozpoznany",
    "w",
    "funkcji",
    "funkci",
    "sembol",
    "fonksiyonunda",
];

/// Words that introduce the referencing function (before it), in the shipped languages.
const FUNCTION_MARKERS_BEFORE: &[&str] = &[
    "function",
    "funzione",
    "funktion",
    "fonction",
    "función",
    "funcion",
    "função",
    "funcao",
    "funkcji",
    "funkci",
    "функции",
    "函数",
    "函式",
    "関数",
];

/// Words that follow the referencing function (Korean puts 함수 after the name).
const FUNCTION_MARKERS_AFTER: &[&str] = &["함수"];

/// A symbol-like item found in a description, with its byte span.
#[derive(Debug)]
struct Candidate {
    start: usize,
    end: usize,
    name: ShownName,
}

fn shown_from_token(token: &str) -> ShownName {
    ShownName {
        display: None,
        decorated: Some(token.to_string()),
    }
}

/// Splits `"display" (decorated)`, `"text"` or a bare name into a [`ShownName`].
fn parse_shown(text: &str) -> ShownName {
    let text = text.trim();
    if let Some((display, decorated)) = leading_pair(text) {
        return ShownName {
            display: Some(display.to_string()),
            decorated: Some(decorated.to_string()),
        };
    }
    if text.len() >= 2
        && text.starts_with('"')
        && text.ends_with('"')
        && !text[1..text.len() - 1].contains('"')
    {
        return classify_text(&text[1..text.len() - 1]);
    }
    classify_text(text)
}

/// The `"display" (decorated)` pair at the start of `text`, as the `pair` pattern would match
/// it there (parsed by hand: this runs for every record of a log).
fn leading_pair(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('"')?;
    let close = inner.find('"')?;
    let display = &inner[..close];
    let rest = inner[close + 1..].trim_start().strip_prefix('(')?;
    let end = rest.find(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | '"'))?;
    (end > 0 && rest[end..].starts_with(')')).then(|| (display, &rest[..end]))
}

/// A name without a decorated form: a linker-level name when it has no spaces, else display text.
fn classify_text(text: &str) -> ShownName {
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        ShownName {
            display: Some(text.to_string()),
            decorated: None,
        }
    } else {
        shown_from_token(text)
    }
}

/// Marks `start..end` as taken by a candidate, unless part of it already is (then `false`).
fn claim(taken: &mut [bool], start: usize, end: usize) -> bool {
    if taken[start..end].iter().any(|&t| t) {
        return false;
    }
    taken[start..end].iter_mut().for_each(|t| *t = true);
    true
}

/// Finds symbol-like items in a localized description: `"display" (decorated)` pairs, quoted
/// names and bare ASCII linker names that are not template words.
fn candidates(desc: &str) -> Vec<Candidate> {
    let p = patterns();
    let mut out: Vec<Candidate> = Vec::new();
    let mut taken = vec![false; desc.len()];
    for m in p.pair.captures_iter(desc) {
        let whole = m.get(0).expect("group 0");
        // Matches of one regex never overlap: a pair always claims its span.
        claim(&mut taken, whole.start(), whole.end());
        out.push(Candidate {
            start: whole.start(),
            end: whole.end(),
            name: ShownName {
                display: Some(m["display"].to_string()),
                decorated: Some(m["decorated"].to_string()),
            },
        });
    }
    for m in p.quoted.captures_iter(desc) {
        let whole = m.get(0).expect("group 0");
        if !claim(&mut taken, whole.start(), whole.end()) {
            continue;
        }
        out.push(Candidate {
            start: whole.start(),
            end: whole.end(),
            name: classify_text(&m["text"]),
        });
    }
    for m in p.bare.find_iter(desc) {
        if taken[m.start()..m.end()].iter().any(|&t| t) {
            continue;
        }
        // A token glued to non-ASCII letters is part of a word (`aufgelöstes`), not a name.
        let before = desc[..m.start()].chars().next_back();
        let after = desc[m.end()..].chars().next();
        if before.is_some_and(|c| c.is_alphabetic() && !c.is_ascii())
            || after.is_some_and(|c| c.is_alphabetic() && !c.is_ascii())
        {
            continue;
        }
        let token = m
            .as_str()
            .trim_end_matches(['.', ',', ':'])
            .trim_start_matches(':');
        if token.is_empty()
            || !token
                .chars()
                .any(|c| c.is_ascii_alphabetic() || c == '_' || c == '?')
            || TEMPLATE_WORDS.contains(&token.to_ascii_lowercase().as_str())
        {
            continue;
        }
        let start = m.start() + m.as_str().find(token).unwrap_or(0);
        out.push(Candidate {
            start,
            end: start + token.len(),
            name: shown_from_token(token),
        });
    }
    out.sort_by_key(|c| c.start);
    out
}

/// Reads symbol and function from an LNK2019/LNK2001 description in any language.
fn parse_unresolved_description(desc: &str) -> Option<(ShownName, Option<String>)> {
    if let Some(rest) = desc.strip_prefix("unresolved external symbol ") {
        let (symbol, function) = match finders().referenced_in.find(rest.as_bytes()) {
            Some(at) => (
                &rest[..at],
                Some(rest[at + finders().referenced_in.needle().len()..].trim()),
            ),
            None => (rest, None),
        };
        let symbol = parse_shown(symbol.trim());
        let function = function.filter(|f| !f.is_empty()).map(shown_function);
        return Some((symbol, function));
    }
    let found = candidates(desc);
    if found.is_empty() {
        return None;
    }
    let mut symbol = None;
    let mut function = None;
    for (i, candidate) in found.iter().enumerate() {
        let before_start = if i == 0 { 0 } else { found[i - 1].end };
        let after_end = found.get(i + 1).map_or(desc.len(), |n| n.start);
        let before = desc[before_start.min(candidate.start)..candidate.start].to_lowercase();
        let after = &desc[candidate.end..after_end.max(candidate.end)];
        let is_function = FUNCTION_MARKERS_BEFORE.iter().any(|m| before.contains(m))
            || FUNCTION_MARKERS_AFTER.iter().any(|m| after.contains(m));
        if is_function && function.is_none() {
            function = Some(shown_display(&candidate.name));
        } else if !is_function && symbol.is_none() {
            symbol = Some(candidate.name.clone());
        }
    }
    symbol.map(|s| (s, function))
}

/// [`shown_display`] of [`parse_shown`], without building the pair it does not keep.
fn shown_function(text: &str) -> String {
    match leading_pair(text.trim()) {
        Some((display, _)) => display.to_string(),
        None => shown_display(&parse_shown(text)),
    }
}

/// The best text for a referencing function: the display form, else the decorated name.
fn shown_display(name: &ShownName) -> String {
    name.display
        .clone()
        .or_else(|| name.decorated.clone())
        .unwrap_or_default()
}

/// Values in single quotes (`'RuntimeLibrary'`); an apostrophe inside a word (`doesn't`) is not
/// a quote: a quote opens after a space or punctuation and closes before one.
fn quoted_values(text: &str) -> Vec<String> {
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

fn object_tokens(text: &str) -> Vec<String> {
    patterns()
        .object_token
        .find_iter(text)
        .map(|m| m.as_str().to_string())
        .collect()
}

/// The referencing object in front of a link.exe record, with tool prefixes removed.
fn object_from_prefix(pre: &str) -> Option<String> {
    let object = clean::strip_prefixes(pre).trim();
    if object.is_empty() {
        None
    } else {
        Some(object.to_string())
    }
}

/// State carried between lines: lld-link's two-line `>>> referenced by`, link.exe's hint block.
#[derive(Debug, Default)]
pub struct LineParser {
    /// A `>>> referenced by source:line` waiting for its `obj:(function)` line.
    pending_source: bool,
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

    /// Parses one cleaned logical line (already free of escapes and repr wrapping).
    pub fn parse_line(&mut self, line: &str, line_number: u64, events: &mut Vec<Event>) {
        let quick = line.as_bytes();
        let f = finders();

        if f.arrows.find(quick).is_some() {
            match arrow_line(line) {
                Arrow::MoreTimes(n) => {
                    self.pending_source = false;
                    if let Ok(n) = n.parse() {
                        events.push(Event::MoreReferences(n));
                    }
                    return;
                }
                Arrow::ReferencedBy(rest) => {
                    let rest = rest.trim();
                    match split_object_function(rest) {
                        Some(reference) => {
                            self.pending_source = false;
                            events.push(Event::Referenced(reference));
                        }
                        None => {
                            // `source:line`: the object and function follow on the next `>>>`
                            // line. A bare object with no function (bitcode, no symbol) stands
                            // alone.
                            if looks_like_source_location(rest) {
                                self.pending_source = true;
                            } else {
                                events.push(Event::Referenced(Reference {
                                    object: Some(rest.to_string()),
                                    function: None,
                                }));
                            }
                        }
                    }
                    return;
                }
                Arrow::Continuation(rest) if self.pending_source => {
                    self.pending_source = false;
                    let rest = rest.trim();
                    let reference = split_object_function(rest).unwrap_or(Reference {
                        object: Some(rest.to_string()),
                        function: None,
                    });
                    events.push(Event::Referenced(reference));
                    return;
                }
                Arrow::Continuation(_) | Arrow::Other => {}
            }
        }

        if f.lnk.find(quick).is_some() {
            if let Some(event) = self.parse_tab_row(line, line_number) {
                self.in_hint_block = false;
                events.push(event);
                return;
            }
            if let Some((pre, code, desc)) = split_link_exe(line) {
                self.in_hint_block = false;
                self.pending_source = false;
                let desc = clean::strip_suffixes(desc);
                events.push(link_exe_event(
                    code,
                    desc,
                    object_from_prefix(pre),
                    line_number,
                ));
                return;
            }
        }

        if f.error.find(quick).is_some() || f.warning.find(quick).is_some() {
            if let Some((severity, rest)) = f.lld.find(quick).and_then(|_| lld_record(line)) {
                self.in_hint_block = false;
                self.pending_source = false;
                let rest = clean::strip_suffixes(rest);
                events.push(lld_event(severity, rest, line_number));
                return;
            }
            if let Some(i) = line.find("clang: error: linker command failed") {
                events.push(Event::Finding(Finding {
                    code: "clang".into(),
                    text: line[i..].to_string(),
                    values: Vec::new(),
                    objects: Vec::new(),
                    line: line_number,
                }));
            }
        }

        if f.hint.find(quick).is_some() {
            self.in_hint_block = true;
            return;
        }
        if self.in_hint_block {
            let text = clean::strip_suffixes(clean::strip_prefixes(line)).trim();
            if text.is_empty() {
                self.in_hint_block = false;
            } else {
                events.push(Event::NearMissHint(parse_shown(text)));
                return;
            }
        }

        self.scan_command_line(line, line_number, events);
    }

    /// The Visual Studio Error List copied as tab-separated rows:
    /// `Severity<TAB>Code<TAB>Description<TAB>Project<TAB>File<TAB>Line<TAB>Suppression`.
    fn parse_tab_row(&self, line: &str, line_number: u64) -> Option<Event> {
        if !line.contains('\t') {
            return None;
        }
        let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
        let at = fields.iter().position(|f| {
            f.len() == 7 && f.starts_with("LNK") && f[3..].bytes().all(|b| b.is_ascii_digit())
        })?;
        let desc = fields.get(at + 1)?;
        let file = fields
            .get(at + 3)
            .filter(|f| !f.is_empty())
            .map(|f| f.to_string());
        Some(link_exe_event(fields[at], desc, file, line_number))
    }

    fn scan_command_line(&self, line: &str, line_number: u64, events: &mut Vec<Event>) {
        let p = patterns();
        let bytes = line.as_bytes();
        let maybe_option = memchr::memchr2(b'/', b'-', bytes).is_some();
        if !maybe_option {
            return;
        }
        let (maybe_crt, maybe_machine) = option_hints(bytes);
        let crt_options = if maybe_crt {
            crt_options(line)
        } else {
            Vec::new()
        };
        for (option, end) in crt_options {
            let boundary = line[end..].chars().next();
            if boundary.is_some_and(|b| !b.is_whitespace() && b != '"' && b != '\'') {
                continue;
            }
            events.push(Event::CrtOption(CrtOption {
                option: option.trim_matches('"').to_string(),
                line: line_number,
            }));
        }
        if let Some(c) = maybe_machine.then(|| p.machine.captures(line)).flatten() {
            let machine = c
                .name("m")
                .or_else(|| c.name("b"))
                .map(|m| m.as_str().to_ascii_lowercase());
            if let Some(m) = machine {
                let m = match m.as_str() {
                    "80x86" | "i386" => "x86".to_string(),
                    "amd64" => "x64".to_string(),
                    _ => m,
                };
                events.push(Event::Machine(m));
            }
        }
    }
}

/// What an lld-link `>>>` line holds.
#[derive(Debug, PartialEq, Eq)]
enum Arrow<'a> {
    /// `>>> referenced N more times`: the digits.
    MoreTimes(&'a str),
    /// `>>> referenced by REST`.
    ReferencedBy(&'a str),
    /// `>>>` and two or more spaces, then the rest (the second line of a two-line reference).
    Continuation(&'a str),
    /// None of them.
    Other,
}

/// Parses a `>>>` line as the `more_times`, `referenced_by` and `continuation` patterns would, in
/// that order. ASCII lines (all of them in practice) are parsed by hand, which is most of the
/// time saved on an lld-link log; others go through the patterns, which know Unicode whitespace
/// and digits (a test compares both on generated lines).
fn arrow_line(line: &str) -> Arrow<'_> {
    if !line.is_ascii() {
        let p = patterns();
        let group = |re: &Regex, name: &str| {
            re.captures(line)
                .and_then(|c| c.name(name))
                .map(|m| m.as_str())
        };
        if let Some(n) = group(&p.more_times, "n") {
            return Arrow::MoreTimes(n);
        }
        if let Some(rest) = group(&p.referenced_by, "rest") {
            return Arrow::ReferencedBy(rest);
        }
        return match group(&p.continuation, "rest") {
            Some(rest) => Arrow::Continuation(rest),
            None => Arrow::Other,
        };
    }
    let Some(after) = line.trim_start().strip_prefix(">>>") else {
        return Arrow::Other;
    };
    let body = after.trim_start();
    let spaces = after.len() - body.len();
    if spaces == 0 {
        return Arrow::Other;
    }
    if let Some(count) = body.strip_prefix("referenced ") {
        let digits = count.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && count[digits..].starts_with(" more time") {
            return Arrow::MoreTimes(&count[..digits]);
        }
    }
    if let Some(rest) = body.strip_prefix("referenced by") {
        let trimmed = rest.trim_start();
        if trimmed.len() < rest.len() {
            return Arrow::ReferencedBy(trimmed);
        }
    }
    if spaces >= 2 && !body.is_empty() {
        return Arrow::Continuation(body);
    }
    Arrow::Other
}

/// The severity and the rest of an lld-link record (`lld-link: error: REST`), as the `lld`
/// pattern would capture them: by hand for ASCII lines, through the pattern for others.
fn lld_record(line: &str) -> Option<(&str, &str)> {
    if !line.is_ascii() {
        let c = patterns().lld.captures(line)?;
        let sev = c.name("sev")?.as_str();
        let rest = c.name("rest")?.as_str();
        return Some((sev, rest));
    }
    const TOOLS: [&str; 4] = ["lld-link", "ld.lld", "ld.lld-link", "lld"];
    let bytes = line.as_bytes();
    // The leftmost start wins; at one start, the first tool name that leads to a match.
    // The tool name starts the line or follows one of `\s:>]'"`. Trying its start positions in
    // order tries the pattern's match starts in order (the leftmost wins); at one position, the
    // first tool name that leads to a match wins, as in the pattern's alternation.
    (0..bytes.len()).find_map(|at| {
        let boundary = at == 0
            || matches!(bytes[at - 1], b':' | b'>' | b']' | b'\'' | b'"')
            || is_pattern_space(bytes[at - 1]);
        if !boundary {
            return None;
        }
        TOOLS
            .iter()
            .find_map(|tool| lld_after_tool(line[at..].strip_prefix(tool)?))
    })
}

/// `(?:\.exe)?(?:-\d+)?\s*:\s*(error|warning)\s*:\s*(.*)` on an ASCII line.
fn lld_after_tool(rest: &str) -> Option<(&str, &str)> {
    let rest = rest.strip_prefix(".exe").unwrap_or(rest);
    let rest = match rest.strip_prefix('-') {
        Some(number) if number.starts_with(|c: char| c.is_ascii_digit()) => {
            number.trim_start_matches(|c: char| c.is_ascii_digit())
        }
        _ => rest,
    };
    let rest = trim_ascii_space(rest).strip_prefix(':')?;
    let rest = trim_ascii_space(rest);
    let (severity, rest) = if let Some(rest) = rest.strip_prefix("error") {
        ("error", rest)
    } else {
        ("warning", rest.strip_prefix("warning")?)
    };
    let rest = trim_ascii_space(rest).strip_prefix(':')?;
    Some((severity, trim_ascii_space(rest)))
}

/// Whether an ASCII byte is whitespace as the patterns' `\s` sees it (vertical tab included).
fn is_pattern_space(b: u8) -> bool {
    b.is_ascii_whitespace() || b == 0x0b
}

/// `text` without leading [`is_pattern_space`] whitespace.
fn trim_ascii_space(text: &str) -> &str {
    text.trim_start_matches(|c: char| c.is_ascii() && is_pattern_space(c as u8))
}

/// The CRT options on a command line and where each match ends, as `crt_option.captures_iter`
/// finds them (the option, and the end of the whole match): by hand for ASCII lines, through the
/// pattern for others (a test compares both on generated lines).
fn crt_options(line: &str) -> Vec<(&str, usize)> {
    if !line.is_ascii() {
        return patterns()
            .crt_option
            .captures_iter(line)
            .filter_map(|c| Some((c.name("opt")?.as_str(), c.get(0)?.end())))
            .collect();
    }
    let bytes = line.as_bytes();
    let space_or_quote = |b: u8| matches!(b, b'"' | b'\'') || is_pattern_space(b);
    let mut out = Vec::new();
    // Option starts in order; after a match, the next one starts past it (a boundary character
    // is part of the match it opens, as in the pattern).
    let (mut at, mut free_from) = (0, 0);
    while at < bytes.len() {
        let boundary = at == 0 || (at > free_from && space_or_quote(bytes[at - 1]));
        if let Some(length) = boundary.then(|| crt_option_at(&line[at..])).flatten() {
            out.push((&line[at..at + length], at + length));
            at += length;
            free_from = at;
            continue;
        }
        at += 1;
    }
    out
}

/// The length of the CRT option `text` starts with, per the `crt_option` pattern's alternatives
/// in order (ASCII text).
fn crt_option_at(text: &str) -> Option<usize> {
    let word = |b: u8| !(matches!(b, b'"' | b'\'') || is_pattern_space(b));
    let run = |rest: &str| rest.bytes().take_while(|&b| word(b)).count();
    let switch = text.strip_prefix(['/', '-']);
    if let Some(rest) = switch {
        let runtime = ["MDd", "MTd", "MD", "MT", "LDd", "LD"];
        if let Some(name) = runtime.iter().find(|name| rest.starts_with(*name)) {
            return Some(1 + name.len());
        }
    }
    if let Some(rest) = text.strip_prefix("-fms-runtime-lib=") {
        let kind = rest
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || *b == b'_')
            .count();
        return (kind > 0).then_some(text.len() - rest.len() + kind);
    }
    if let Some(rest) = text.strip_prefix("--dependent-lib=") {
        let name = run(rest);
        return (name > 0).then_some(text.len() - rest.len() + name);
    }
    let rest = switch?;
    if let Some(value) = rest.strip_prefix("DEFAULTLIB:") {
        let quote = usize::from(value.starts_with('"'));
        let name = run(&value[quote..]);
        return (name > 0).then_some(text.len() - value.len() + quote + name);
    }
    if let Some(value) = rest.strip_prefix("NODEFAULTLIB") {
        let name = value.strip_prefix(':').map_or(0, run);
        let with_name = if name > 0 { 1 + name } else { 0 };
        return Some(text.len() - value.len() + with_name);
    }
    if rest.starts_with("Zl") {
        return Some(3);
    }
    text.starts_with("-D_DLL").then_some(6)
}

/// Whether a line may hold a CRT option and whether it may name a machine: one scan for the
/// substrings the two patterns cannot match without.
fn option_hints(line: &[u8]) -> (bool, bool) {
    const CRT: &[&str] = &["/M", "-M", "/L", "-L", "lib", "LIB", "Zl", "_DLL"];
    const MACHINE: &[&str] = &["achine", "ACHINE", "Compiler Version"];
    static HINTS: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    // No needle of one kind starts inside a needle of the other, so non-overlapping matches
    // find both kinds whenever both occur.
    let hints = HINTS.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(CRT.iter().chain(MACHINE))
            .expect("plain strings")
    });
    let (mut crt, mut machine) = (false, false);
    for m in hints.find_iter(line) {
        if m.pattern().as_usize() < CRT.len() {
            crt = true;
        } else {
            machine = true;
        }
        if crt && machine {
            break;
        }
    }
    (crt, machine)
}

/// Splits a link.exe line `PRE : [fatal] error LNKnnnn: DESC` at its code: by structure, so the
/// severity words may be in any language and the prefix anything (tool tags are removed later).
fn split_link_exe(line: &str) -> Option<(&str, &str, &str)> {
    let bytes = line.as_bytes();
    for pos in finders().lnk.find_iter(bytes) {
        let Some(digits) = bytes.get(pos + 3..pos + 7) else {
            break;
        };
        if !digits.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let mut after = pos + 7;
        while after < bytes.len() && (bytes[after] == b' ' || bytes[after] == b'\t') {
            after += 1;
        }
        if bytes.get(after) != Some(&b':') {
            continue;
        }
        let before = &line[..pos];
        let Some(colon) = before.rfind(':') else {
            continue;
        };
        // At most two severity words (`error`, `fatal error`) between the colon and the code.
        if before[colon + 1..].split_whitespace().count() > 2 {
            continue;
        }
        let pre = before[..colon].trim_end();
        return Some((pre, &line[pos..pos + 7], line[after + 1..].trim_start()));
    }
    None
}

fn looks_like_source_location(rest: &str) -> bool {
    match rest.rsplit_once(':') {
        Some((_, number)) => !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    }
}

/// Splits lld-link's `object:(function)`; object paths may hold `C:` but not `:(`.
fn split_object_function(rest: &str) -> Option<Reference> {
    let at = rest.find(":(")?;
    let function = rest[at + 2..].strip_suffix(')')?;
    Some(Reference {
        object: Some(rest[..at].to_string()),
        function: Some(function.to_string()),
    })
}

fn link_exe_event(code: &str, desc: &str, object: Option<String>, line_number: u64) -> Event {
    match code {
        "LNK2019" | "LNK2001" => {
            if let Some((symbol, function)) = parse_unresolved_description(desc) {
                return Event::Unresolved(UnresolvedRecord {
                    linker: Linker::LinkExe,
                    code: Some(code.to_string()),
                    symbol,
                    reference: Some(Reference { object, function }),
                });
            }
        }
        "LNK1120" => {
            if let Some(n) = patterns()
                .number
                .find(desc)
                .and_then(|m| m.as_str().parse().ok())
            {
                return Event::UnresolvedCount(n);
            }
        }
        _ => {}
    }
    let mut objects: Vec<String> = object.into_iter().collect();
    objects.extend(object_tokens(desc));
    objects.dedup();
    let mut values = quoted_values(desc);
    if code == "LNK2005" || code == "LNK4217" {
        // The symbol is the first name of the description.
        if let Some(first) = candidates(desc).first() {
            values.insert(0, shown_display(&first.name));
        }
    }
    Event::Finding(Finding {
        code: code.to_string(),
        text: desc.to_string(),
        values,
        objects,
        line: line_number,
    })
}

fn lld_event(severity: &str, rest: &str, line_number: u64) -> Event {
    let (root, rest) = match rest.strip_prefix("<root>: ") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    if severity == "error" {
        if let Some(name) = rest.strip_prefix("undefined symbol: ") {
            let name = name.trim();
            return Event::Unresolved(UnresolvedRecord {
                linker: Linker::LldLink,
                code: None,
                symbol: classify_text(name),
                reference: root.then(|| Reference {
                    object: Some("<root>".into()),
                    function: None,
                }),
            });
        }
        if rest.starts_with("too many errors emitted") {
            return Event::TooManyErrors;
        }
    }
    Event::Finding(Finding {
        code: format!("lld-link {severity}"),
        text: rest.to_string(),
        values: quoted_values(rest),
        objects: object_tokens(rest),
        line: line_number,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Random lines: one choice per slot, each slot offering right and wrong variants of the
    /// pieces the patterns care about.
    fn generated_lines(slots: &[&[&str]], seed: u64, count: usize) -> Vec<String> {
        let mut state = seed;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        (0..count)
            .map(|_| {
                slots
                    .iter()
                    .map(|slot| slot[(next() % slot.len() as u64) as usize])
                    .collect()
            })
            .collect()
    }

    /// The hand parser of `>>>` lines agrees with the three patterns, in their order.
    #[test]
    fn arrow_lines_match_the_patterns() {
        let spaces: &[&str] = &["", " ", "  ", "\t", " \u{0b}", "\u{a0}", "   "];
        let slots: &[&[&str]] = &[
            spaces,
            &[">>>", ">>>", ">>", "x>>>"],
            spaces,
            &[
                "referenced ",
                "referenced by",
                "referenced",
                "x.obj:(f)",
                "",
                "by ",
            ],
            &["12", "3", "\u{663}", "", " ", "\t", "by"],
            &[
                " more time",
                " more times",
                " more",
                "",
                " x.obj",
                "  C:\\a b\\k.cpp:12",
            ],
            &["", ":(f)", "s", " ", "é", "(x)"],
        ];
        let p = patterns();
        let mut kinds = [0usize; 4];
        for line in generated_lines(slots, 0x9E37_79B9_7F4A_7C15, 40_000) {
            let group = |re: &Regex, name: &str| {
                re.captures(&line)
                    .and_then(|c| c.name(name))
                    .map(|m| m.as_str().to_string())
            };
            let expected = if let Some(n) = group(&p.more_times, "n") {
                (0, n)
            } else if let Some(rest) = group(&p.referenced_by, "rest") {
                (1, rest)
            } else if let Some(rest) = group(&p.continuation, "rest") {
                (2, rest)
            } else {
                (3, String::new())
            };
            let got = match arrow_line(&line) {
                Arrow::MoreTimes(n) => (0, n.to_string()),
                Arrow::ReferencedBy(rest) => (1, rest.to_string()),
                Arrow::Continuation(rest) => (2, rest.to_string()),
                Arrow::Other => (3, String::new()),
            };
            assert_eq!(got, expected, "{line:?}");
            kinds[got.0] += 1;
        }
        assert!(
            kinds.iter().all(|&k| k > 200),
            "every shape generated: {kinds:?}"
        );
    }

    /// The hand parser of lld-link records agrees with the `lld` pattern.
    #[test]
    fn lld_records_match_the_pattern() {
        let spaces: &[&str] = &["", " ", "\t", "\u{0b}", "\u{a0}", "  "];
        let slots: &[&[&str]] = &[
            &[
                "",
                "x",
                "[1/2] ",
                ">",
                "'",
                "\"",
                "]",
                ":",
                "é ",
                "ld.",
                "xlld: error: y ",
            ],
            &[
                "lld-link",
                "ld.lld",
                "ld.lld-link",
                "lld",
                "lld-linker",
                "LLD-link",
            ],
            &["", ".exe", "-14", "-", "-x", ".exe-3", "-\u{663}", ".ex"],
            spaces,
            &[":", ":", "", ";"],
            spaces,
            &["error", "warning", "errors", "Error", "warn", ""],
            spaces,
            &[":", ":", ""],
            spaces,
            &["undefined symbol: f", "", "x: lld: error: z", "é", " "],
        ];
        let p = patterns();
        let mut matched = 0;
        for line in generated_lines(slots, 0x2545_F491_4F6C_DD1D, 60_000) {
            let expected = p.lld.captures(&line).map(|c| {
                (
                    c.name("sev").unwrap().as_str().to_string(),
                    c.name("rest").unwrap().as_str().to_string(),
                )
            });
            let got = lld_record(&line).map(|(s, r)| (s.to_string(), r.to_string()));
            assert_eq!(got, expected, "{line:?}");
            matched += usize::from(got.is_some());
        }
        assert!(matched > 3_000, "only {matched} records generated");
    }

    /// The hand scanner of CRT options agrees with `crt_option.captures_iter`.
    #[test]
    fn crt_options_match_the_pattern() {
        let option: &[&str] = &[
            "/MD",
            "-MDd",
            "/MT",
            "-MTd",
            "/LD",
            "-LDd",
            "/MDx",
            "-fms-runtime-lib=dll",
            "-fms-runtime-lib=",
            "-fms-runtime-lib=static_dbg",
            "--dependent-lib=msvcrt",
            "--dependent-lib=",
            "/DEFAULTLIB:libcmt",
            "-DEFAULTLIB:\"x y\"",
            "/DEFAULTLIB:\"",
            "/NODEFAULTLIB",
            "-NODEFAULTLIB:libcmt",
            "/NODEFAULTLIB:",
            "/Zl",
            "-Zlx",
            "-D_DLL",
            "-D_DLLX",
            "/EHsc",
            "x",
            "",
            "/",
            "-",
        ];
        let gap: &[&str] = &["", " ", "  ", "\t", "\"", "'", "\u{0b}", "\u{a0}", "x", "é"];
        let slots: &[&[&str]] = &[gap, option, gap, option, gap, option, gap, option, gap];
        let p = patterns();
        let mut found = 0;
        for line in generated_lines(slots, 0x5851_F42D_4C95_7F2D, 60_000) {
            let expected: Vec<(String, usize)> = p
                .crt_option
                .captures_iter(&line)
                .map(|c| (c["opt"].to_string(), c.get(0).unwrap().end()))
                .collect();
            let got: Vec<(String, usize)> = crt_options(&line)
                .into_iter()
                .map(|(o, e)| (o.to_string(), e))
                .collect();
            assert_eq!(got, expected, "{line:?}");
            found += got.len();
        }
        assert!(found > 50_000, "only {found} options generated");
    }

    /// The hand parser of a leading pair agrees with the `pair` pattern anchored at the start.
    #[test]
    fn leading_pair_matches_the_pattern() {
        let cases = [
            r#""void __cdecl f(void)" (?f@@YAXXZ)"#,
            r#""a"(b)"#,
            r#""a" 	 (b) trailing"#,
            r#""" (b)"#,
            r#""a" ()"#,
            r#""a" (b c)"#,
            r#""a" (b"#,
            r#""a" (b(c))"#,
            r#""a" ("b")"#,
            r#""a"  x (b)"#,
            r#"x "a" (b)"#,
            r#""a" ("#,
            "\"a\"\u{3000}(b)",
            "\"é\" (ü)",
            "\"",
            "",
        ];
        let pair = &patterns().pair;
        for text in cases {
            let expected = pair
                .captures(text)
                .filter(|c| c.get(0).unwrap().start() == 0)
                .map(|c| {
                    (
                        c.name("display").unwrap().as_str(),
                        c.name("decorated").unwrap().as_str(),
                    )
                });
            assert_eq!(leading_pair(text), expected, "{text:?}");
        }
    }

    fn parse(line: &str) -> Vec<Event> {
        let mut parser = LineParser::new();
        let mut events = Vec::new();
        parser.parse_line(line, 1, &mut events);
        events
    }

    fn unresolved(line: &str) -> UnresolvedRecord {
        match parse(line).into_iter().next() {
            Some(Event::Unresolved(u)) => u,
            other => panic!("no unresolved record in {line:?}: {other:?}"),
        }
    }

    #[test]
    fn english_bare_and_quoted() {
        let u = unresolved("main.obj : error LNK2019: unresolved external symbol __imp_CreateFileW referenced in function main");
        assert_eq!(u.symbol.decorated.as_deref(), Some("__imp_CreateFileW"));
        assert_eq!(
            u.reference.as_ref().unwrap().object.as_deref(),
            Some("main.obj")
        );
        assert_eq!(
            u.reference.as_ref().unwrap().function.as_deref(),
            Some("main")
        );

        let u = unresolved(
            r#"foo.lib(bar.obj) : error LNK2019: unresolved external symbol "public: __cdecl Foo::Foo(void)" (??0Foo@@QEAA@XZ) referenced in function "void __cdecl bar(void)" (?bar@@YAXXZ)"#,
        );
        assert_eq!(
            u.symbol.display.as_deref(),
            Some("public: __cdecl Foo::Foo(void)")
        );
        assert_eq!(u.symbol.decorated.as_deref(), Some("??0Foo@@QEAA@XZ"));
        let r = u.reference.unwrap();
        assert_eq!(r.object.as_deref(), Some("foo.lib(bar.obj)"));
        assert_eq!(r.function.as_deref(), Some("void __cdecl bar(void)"));
    }

    #[test]
    fn localized_lines() {
        let rows = [
            // zh-CN, old and new order
            ("dllmain.obj : error LNK2019: 无法解析的外部符号 __std_search_1，函数 \"char const * __cdecl f(void)\" (?f@@YAPEBDXZ) 中引用了该符号", "__std_search_1", Some("char const * __cdecl f(void)")),
            ("main.obj : error LNK2019: 函数 main 中引用了无法解析的外部符号 __imp_CreateFileW", "__imp_CreateFileW", Some("main")),
            // ja, old and new order
            ("main.obj : error LNK2019: 未解決の外部シンボル __imp_MessageBoxW が関数 main で参照されました。", "__imp_MessageBoxW", Some("main")),
            ("main.obj : error LNK2019: 関数 \"main\" で参照されている未解決の外部シンボル \"hipMalloc\"", "hipMalloc", Some("main")),
            // ko
            ("main.obj : error LNK2019: \"hipFree\" 외부 기호(참조 위치: \"main\" 함수)에서 확인하지 못했습니다.", "hipFree", Some("main")),
            // de
            ("main.obj : error LNK2019: Verweis auf nicht aufgelöstes externes Symbol \"__imp_RegOpenKeyExW\" in Funktion \"main\".", "__imp_RegOpenKeyExW", Some("main")),
            ("main.obj : error LNK2001: Nicht aufgelöstes externes Symbol \"_tls_index\".", "_tls_index", None),
            // it
            ("glfw.obj : error LNK2001: simbolo esterno __imp__glfwEnable@4 non risolto", "__imp__glfwEnable@4", None),
            // fr
            ("main.obj : error LNK2019: symbole externe non résolu wcsnlen référencé dans la fonction main", "wcsnlen", Some("main")),
            // es
            ("main.obj : error LNK2019: símbolo externo atexit sin resolver al que se hace referencia en la función main", "atexit", Some("main")),
            // ru
            ("os_crypt.lib(a.obj) : error LNK2019: ссылка на неразрешенный внешний символ CryptProtectData в функции \"public: static bool __cdecl O::E(void)\" (?E@O@@SA_NXZ)", "CryptProtectData", Some("public: static bool __cdecl O::E(void)")),
        ];
        let mut failures = Vec::new();
        for (line, symbol, function) in rows {
            let u = unresolved(line);
            let got_symbol = u.symbol.decorated.clone().or(u.symbol.display.clone());
            let got_function = u.reference.and_then(|r| r.function);
            if got_symbol.as_deref() != Some(symbol) || got_function.as_deref() != function {
                failures.push(format!("{line}\n  got {got_symbol:?} / {got_function:?}"));
            }
        }
        assert!(
            failures.is_empty(),
            "failing rows:\n{}",
            failures.join("\n")
        );
    }

    #[test]
    fn lld_link_records() {
        let u =
            unresolved("lld-link: error: undefined symbol: __declspec(dllimport) _CrtDbgReport");
        assert_eq!(u.linker, Linker::LldLink);
        assert_eq!(
            u.symbol.display.as_deref(),
            Some("__declspec(dllimport) _CrtDbgReport")
        );
        let u = unresolved("lld-link: error: <root>: undefined symbol: mainCRTStartup");
        assert_eq!(u.symbol.decorated.as_deref(), Some("mainCRTStartup"));
        assert_eq!(u.reference.unwrap().object.as_deref(), Some("<root>"));
        let u = unresolved("lld-link : error : undefined symbol: hipMalloc [C:\\p\\a.vcxproj]");
        assert_eq!(u.symbol.decorated.as_deref(), Some("hipMalloc"));

        let mut parser = LineParser::new();
        let mut events = Vec::new();
        parser.parse_line(">>> referenced by d:\\x\\Hash.h:41", 2, &mut events);
        parser.parse_line(">>>               C:\\T\\9-2.o:(InitHash)", 3, &mut events);
        parser.parse_line(
            ">>> referenced by k.obj:(void __cdecl f(int))",
            4,
            &mut events,
        );
        parser.parse_line(">>> referenced 7 more times", 5, &mut events);
        assert_eq!(
            events,
            vec![
                Event::Referenced(Reference {
                    object: Some("C:\\T\\9-2.o".into()),
                    function: Some("InitHash".into())
                }),
                Event::Referenced(Reference {
                    object: Some("k.obj".into()),
                    function: Some("void __cdecl f(int)".into())
                }),
                Event::MoreReferences(7),
            ]
        );
        assert_eq!(parse("lld-link: error: too many errors emitted, stopping now (use /errorlimit:0 to see all errors)"), vec![Event::TooManyErrors]);
    }

    #[test]
    fn error_list_rows() {
        let u = unresolved("Error\tLNK2001\tunresolved external symbol __CxxFrameHandler4\tcasparcg\tC:\\b\\w.lib(m.obj)\t1\t");
        assert_eq!(u.symbol.decorated.as_deref(), Some("__CxxFrameHandler4"));
        assert_eq!(
            u.reference.unwrap().object.as_deref(),
            Some("C:\\b\\w.lib(m.obj)")
        );
        let u = unresolved("LNK2019\tunresolved external symbol __imp_WSAStartup referenced in function \"public: __cdecl W::W(void)\" (??0W@@QEAA@XZ)\t");
        assert_eq!(u.symbol.decorated.as_deref(), Some("__imp_WSAStartup"));
    }

    #[test]
    fn findings_and_counts() {
        assert_eq!(
            parse("x.exe : fatal error LNK1120: 2 unresolved externals"),
            vec![Event::UnresolvedCount(2)]
        );
        assert_eq!(
            parse("Osiris.dll : fatal error LNK1120: 1 个无法解析的外部命令"),
            vec![Event::UnresolvedCount(1)]
        );
        match &parse("a.obj : error LNK2038: mismatch detected for 'RuntimeLibrary': value 'MT_StaticRelease' doesn't match value 'MD_DynamicRelease' in b.obj")[0] {
            Event::Finding(f) => {
                assert_eq!(f.code, "LNK2038");
                assert_eq!(f.values, ["RuntimeLibrary", "MT_StaticRelease", "MD_DynamicRelease"]);
                assert_eq!(f.objects, ["a.obj", "b.obj"]);
            }
            other => panic!("{other:?}"),
        }
        match &parse("LINK : fatal error LNK1104: cannot open file 'python310.lib'")[0] {
            Event::Finding(f) => assert_eq!(f.values, ["python310.lib"]),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn crt_options_on_command_lines() {
        let events = parse("cl /nologo /MD /EHsc -fms-runtime-lib=static --dependent-lib=msvcrt /machine:x64 x.cpp");
        let options: Vec<_> = events
            .iter()
            .filter_map(|e| match e {
                Event::CrtOption(o) => Some(o.option.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(
            options,
            ["/MD", "-fms-runtime-lib=static", "--dependent-lib=msvcrt"]
        );
        assert!(events.contains(&Event::Machine("x64".into())));
        // A path is not an option.
        assert!(parse("see C:/MD/readme").is_empty());
    }
}
