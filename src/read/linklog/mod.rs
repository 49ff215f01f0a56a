//! Log reading: a failed link's log, whatever wrote or wrapped it, to a stream of link records.
//!
//! Stages: [`decode`] (bytes to lines, any encoding, streamed), [`clean`] (escapes, Python repr,
//! tool prefixes), the paste [`lens`]es for physical lines, a joiner for console-wrapped records
//! and for a code and its message on two lines, the record lenses, and [`parse`] (lines to
//! [`Event`]s).

pub mod clean;
pub mod decode;
pub mod lens;
pub mod parse;
pub mod read_summary;
mod trim;

pub use decode::{DecodeStats, Encoding, LineFilter, LineReader};
pub use parse::{
    CrtOption, Event, Finding, LinkCommand, LinkLineLibrary, Linker, Reference, ShownName,
    TorchVersion, UnresolvedRecord,
};

use std::io::Read;
use trim::TrimWhitespace;

/// Limits that keep reading bounded whatever the input.
#[derive(Debug, Clone, Copy)]
pub struct ReadLimits {
    /// Longest line kept, in bytes; longer lines are cut (and counted).
    pub max_line_bytes: usize,
    /// Skip lines that hold no anchor without decoding them (the fast path). Turning it off reads
    /// every line; the results are the same (a test compares them).
    pub skip_unmatched_lines: bool,
    /// Bounds on what the demangler is handed for the log's names.
    pub demangle: crate::read::demangle::DemangleLimits,
    /// Most distinct symbols kept (`--max-symbols`): records of further ones are counted, not
    /// kept, so a log of endless distinct names cannot exhaust memory.
    pub max_symbols: usize,
}

/// The default of [`ReadLimits::max_symbols`]: a million (about 1.5 GB at the measured cost of a
/// symbol, benches/README.md); real failed links have at most a few thousand.
pub const DEFAULT_MAX_SYMBOLS: usize = 1_000_000;

impl Default for ReadLimits {
    fn default() -> Self {
        ReadLimits {
            max_line_bytes: 1 << 20,
            skip_unmatched_lines: true,
            demangle: crate::read::demangle::DemangleLimits::default(),
            max_symbols: DEFAULT_MAX_SYMBOLS,
        }
    }
}

/// An event and the 1-based line of the input where it starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    /// 1-based physical line number in the input.
    pub line: u64,
    /// What was recognised there.
    pub event: Event,
}

/// What reading a log measured.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct LogStats {
    /// The detected encoding.
    pub encoding: Option<Encoding>,
    /// Physical lines read.
    pub lines: u64,
    /// Bytes read (after transcoding from UTF-16).
    pub bytes: u64,
    /// Lines longer than the limit, cut at it.
    pub truncated_lines: u64,
    /// Cut lines whose dropped part held a link error: the link failed even if no record shows.
    pub cut_records: u64,
    /// Lines that held a Python repr and were expanded.
    pub python_repr_lines: u64,
    /// Console-wrapped records (and codes split from their message) that were joined back.
    pub joined_lines: u64,
    /// The encoding of each region when the log changes encoding (text appended by a program
    /// that writes another one); empty when it does not.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub encoding_regions: Vec<Encoding>,
    /// U+FFFD put in for bytes that were no text in their encoding.
    pub replacement_characters: u64,
    /// Whether a UTF-16 decoding gave mostly CJK ideographs and Hangul (what UTF-8 read as UTF-16
    /// looks like).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub mostly_cjk: bool,
    /// Paste lenses and record lenses that changed a line (one line may count several).
    pub lensed_lines: u64,
    /// Whether the input looks like a binary file rather than text (NUL bytes or control
    /// characters in its first 4 KiB).
    pub binary: bool,
    /// Lines that looked like link output: a link.exe code, an lld line, an unresolved-symbol
    /// phrase, a `>>>` line, GNU ld's `undefined reference`.
    pub link_lines: u64,
    /// Of those, the lines from which no event was read.
    pub unread_link_lines: u64,
    /// The first few unread link-looking lines, to show a user what was not understood.
    pub unread_examples: Vec<read_summary::UnreadLine>,
}

/// Console widths whose hard wrap splits records (conhost's defaults and common settings).
pub const CONSOLE_WIDTHS: &[usize] = &[80, 100, 120, 132];

/// Longest run of physical lines joined into one record.
const MAX_JOINED: usize = 32;

/// How many unread link-looking lines are kept as examples.
const UNREAD_EXAMPLES: usize = 3;

/// Whether a line starts a record: a link.exe code (`LNK` and four digits), an lld line, or a
/// `>>>` line.
fn is_anchor(line: &str) -> bool {
    has_lnk_code(line)
        || parse::finders().lld.find(line.as_bytes()).is_some()
        || line.trim_ws_start().starts_with(">>>")
}

fn has_lnk_code(line: &str) -> bool {
    parse::lnk_positions(line.as_bytes()).any(|i| {
        let digits = &line.as_bytes()[i + 3..];
        digits.len() >= 4 && digits[..4].iter().all(u8::is_ascii_digit)
    })
}

/// Whether some next line could continue `held`, a record: it is unbalanced, its last piece
/// ended at a console width, or it lacks a part its code always has (a word-wrapping console
/// breaks before the width). When not, the record is parsed at once and the lines after it are
/// skipped unread like any others.
fn may_be_continued(held: &str, last_piece_chars: usize, pieces: usize) -> bool {
    if pieces >= MAX_JOINED || is_elided(held) {
        return false;
    }
    ends_at_code(held)
        || clean::is_unbalanced(held)
        || at_console_width(last_piece_chars)
        || (pieces < MAX_INCOMPLETE_PIECES && record_incomplete(held))
}

/// A piece's width on the console in characters, as [`at_console_width`] needs it: exact where
/// it could be at a width, else the byte length, which is on the same side of every width (a
/// character is one to four bytes). Counting characters is a pass over the piece; most pieces
/// are too short or too long to need it.
pub(crate) fn console_width(piece: &str) -> usize {
    let narrowest = CONSOLE_WIDTHS.iter().min().map_or(0, |w| w - 1);
    let widest = CONSOLE_WIDTHS.iter().max().copied().unwrap_or(0);
    if piece.len() < narrowest || piece.len() > 4 * widest {
        return piece.len();
    }
    piece.chars().count()
}

/// Whether a piece of `chars` characters ended at a console's width.
fn at_console_width(chars: usize) -> bool {
    CONSOLE_WIDTHS.iter().any(|&w| chars + 1 == w || chars == w)
}

/// Whether the end of `text` is inside an unclosed `(` or `[` that holds no space so far: a
/// decorated name or a path cut by the console.
fn inside_name(text: &str) -> bool {
    let open = text.rfind(['(', '[']);
    let close = text.rfind([')', ']']);
    match (open, close) {
        (Some(o), Some(c)) if c > o => false,
        (Some(o), _) => !text[o..].contains(char::is_whitespace),
        _ => false,
    }
}

/// Most pieces joined because a record lacks a part (a word-wrapped record is two to four lines).
const MAX_INCOMPLETE_PIECES: usize = 4;

/// Whether a link.exe record lacks what its code always shows, in every language: LNK2005 and
/// LNK4006 name the other definer's file, LNK2038 names three quoted values and an object,
/// LNK1112 and LNK4272 two quoted machines, LNK1104 and LNK1181 a quoted file.
fn record_incomplete(held: &str) -> bool {
    // Most records (LNK2019, LNK2001, LNK1120) need no check: their code decides before the
    // record is split.
    const CHECKED: &[&str] = &[
        "LNK2005", "LNK4006", "LNK2038", "LNK1112", "LNK4272", "LNK1104", "LNK1181",
    ];
    let bytes = held.as_bytes();
    let shows_checked_code = parse::lnk_positions(bytes).any(|at| {
        bytes
            .get(at..at + 7)
            .is_some_and(|c| CHECKED.iter().any(|k| k.as_bytes() == c))
    });
    if !shows_checked_code {
        return false;
    }
    let Some((_, code, desc)) = parse::split_link_exe(held) else {
        return false;
    };
    let names_file = || {
        [".obj", ".lib", ".o)", ".dll", ".exe", ".rlib", ".a("]
            .iter()
            .any(|e| contains_ignore_ascii_case(desc, e))
    };
    match code {
        "LNK2005" | "LNK4006" => !names_file(),
        "LNK2038" => quote_marks(desc) < 6 || !names_file(),
        "LNK1112" | "LNK4272" => quote_marks(desc) < 4,
        "LNK1104" | "LNK1181" => quote_marks(desc) < 2,
        _ => false,
    }
}

/// Whether `text` contains `needle` (lowercase ASCII), ignoring ASCII case.
fn contains_ignore_ascii_case(text: &str, needle: &str) -> bool {
    text.as_bytes()
        .windows(needle.len())
        .any(|w| w.eq_ignore_ascii_case(needle.as_bytes()))
}

/// The quote marks of a text, any style (`'`, `"`, `“”`, `‘’`, `«»`, `「」`, full-width), an
/// apostrophe inside a word (`doesn't`, `d'ouvrir`) not counted.
fn quote_marks(text: &str) -> usize {
    let mut count = 0;
    let mut before: Option<char> = None;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let quote = match c {
            '\'' => {
                let letter = |c: Option<char>| c.is_some_and(char::is_alphanumeric);
                !(letter(before) && letter(chars.peek().copied()))
            }
            '"' | '“' | '”' | '‘' | '’' | '«' | '»' | '「' | '」' | '＂' | '„' => {
                true
            }
            _ => false,
        };
        count += usize::from(quote);
        before = Some(c);
    }
    count
}

/// Whether a record ends right after its code (`x.obj : error LNK2019:`): its message is on the
/// next line.
fn ends_at_code(held: &str) -> bool {
    let text = held.trim_ws_end();
    text.strip_suffix(':').is_some_and(|head| {
        let head = head.trim_ws_end().as_bytes();
        head.len() >= 7
            && &head[head.len() - 7..head.len() - 4] == b"LNK"
            && head[head.len() - 4..].iter().all(u8::is_ascii_digit)
    })
}

/// Whether `piece`, `width` characters that a console cut at its width, ends inside a link.exe
/// code after its severity word (`x.obj : error LNK20`, `warning LNK`): the next line holds the
/// rest of the code and the record, so the piece is held as one.
fn ends_inside_code(piece: &str, width: usize) -> bool {
    if !at_console_width(width) {
        return false;
    }
    let Some((head, last)) = piece.rsplit_once(' ') else {
        return false;
    };
    // `LNK` and at most three digits: a line cut before `LNK` holds no anchor and is not read
    // when unmatched lines are skipped, so it is not held either (the same answer both ways).
    let bytes = last.as_bytes();
    let code_prefix = (3..7).contains(&bytes.len())
        && bytes.starts_with(b"LNK")
        && bytes[3..].iter().all(u8::is_ascii_digit);
    code_prefix && (head.ends_with(" error") || head.ends_with(" warning"))
}

/// The record a console cut inside its code, when the line before it was not read (it held no
/// anchor: `x.obj : error LN`): `K2019: unresolved ...` or `NK2019: ...` with its code made whole
/// again (`LNK2019: unresolved ...`). The object before the code is lost with that line.
fn code_cut_at_start(piece: &str) -> Option<String> {
    let bytes = piece.as_bytes();
    let head = match bytes.first()? {
        b'K' => "LN",
        b'N' if bytes.get(1) == Some(&b'K') => "L",
        _ => return None,
    };
    let digits = &bytes[3 - head.len()..];
    (digits.len() > 5 && digits[..4].iter().all(u8::is_ascii_digit) && digits[4] == b':')
        .then(|| format!("{head}{piece}"))
}

/// Whether a record was cut by hand (`...`, `…`): nothing that follows continues it.
fn is_elided(held: &str) -> bool {
    let text = held.trim_ws_end();
    text.ends_with("...") || text.ends_with('…')
}

/// Whether `next` continues `held`, a record a console wrapped.
fn continues(
    held: &str,
    last_piece_chars: usize,
    next: &str,
    next_is_anchor: bool,
    pieces: usize,
) -> bool {
    !next_is_anchor
        && !next.trim_ws().is_empty()
        && may_be_continued(held, last_piece_chars, pieces)
}

/// A record being assembled: first line number, text, chars of its last piece, pieces.
type Held = (u64, String, usize, usize);

/// Appends `piece` (`width` characters on the console) to the held record when it continues it
/// (a console wrapped the record, or the record's message is on this line).
fn join(
    held: &mut Option<Held>,
    piece: &str,
    width: usize,
    piece_is_anchor: bool,
    stats: &mut LogStats,
) -> bool {
    let Some((_, text, last_chars, count)) = held.as_mut() else {
        return false;
    };
    let inside_code = ends_inside_code(text, *last_chars);
    if !inside_code && !continues(text, *last_chars, piece, piece_is_anchor, *count) {
        return false;
    }
    let piece = if ends_at_code(text) {
        if !piece.starts_with(char::is_whitespace) {
            text.push(' ');
        }
        piece
    } else {
        // A console wrap with MSBuild's two-space continuation indent: the indent is not text.
        let piece = piece.strip_prefix("  ").unwrap_or(piece);
        // A console that wraps at a word boundary drops the space there; one that cuts at its
        // width does not. A break before the width is a word wrap, unless it falls inside a
        // decorated name or a path (an open parenthesis or bracket with no space after it): those
        // never hold spaces.
        if !at_console_width(*last_chars)
            && !text.ends_with(char::is_whitespace)
            && !piece.starts_with(char::is_whitespace)
            && !inside_name(text)
        {
            text.push(' ');
        }
        piece
    };
    text.push_str(piece);
    *last_chars = width;
    *count += 1;
    stats.joined_lines += 1;
    true
}

/// The substrings without which a line can hold no record, no CRT option, no escape to strip and
/// no Python repr, with what each stands for:
/// - link.exe records and the Error List (`LNK`nnnn), lld-link records (`lld`), the lines of
///   `>>> referenced by`, link.exe's hint block and clang's closing line;
/// - U+240D, the glyph a pasted CR becomes (ESC and U+009B are the filter's bytes);
/// - CRT options and machines (parse/command_line.rs: `/machine:`, the compiler banner,
///   node-gyp's `| win32 | ia32`, MSBuild's `Platform=Win32`); a Python repr holding a record
///   holds one of the needles above;
/// - linker command lines (`link.exe`: the libraries they name) and torch versions (libtorch
///   paths, collect_env's `PyTorch version:`);
/// - GNU ld's unresolved symbol: not read, but reported as link output when nothing is found
///   (read_summary.rs);
/// - the lenses' own anchors ([`lens::anchor_needles`]): lines that become records only through
///   them.
///
/// The order is part of the speed: the SIMD scan (Teddy) puts needle `i` in bucket `7 - i % 8`,
/// and a bucket whose needles begin with unlike bytes matches more of the text that holds no
/// needle. This order was chosen by measuring the scan on compiler and test-runner output
/// (benches/README.md, "Log reading"): three times faster than the order by meaning.
const FILTER_NEEDLES: &[&str] = &[
    "-MT",
    "Compiler Version",
    "nresolved external symbol",
    "-Zl",
    "ms-runtime-lib",
    "ozpoznaný externí symbol",
    "mbolo e",
    "lld",
    "/LD",
    "Hint on symbols",
    "nker command failed",
    "/Zl",
    "aufgelöstes externes Symbol",
    "-LD",
    "ACHINE:",
    "-dependent-lib",
    "/MT",
    "-MD",
    ">>>",
    "ymbole externe non r",
    "DEFAULTLIB",
    "_DLL",
    "\u{240d}",
    "法解析的外部符",
    "未解決の外部シンボル",
    "/MD",
    "achine:",
    "undefined reference",
    "еразрешенный внешний символ",
    "LNK",
    "Configuration: ",
    "ostX86",
    "ostX64",
    "ostx86",
    "ostx64",
    "| win32 | ",
    "Platform=",
    "ink.exe",
    "INK.EXE",
    "libtorch",
    "PyTorch version",
];

/// The line filter of [`FILTER_NEEDLES`]: a line with none of them is skipped unread. Every
/// needle is at least three bytes long (see [`LineFilter`]) and as rare as the text it stands
/// for allows.
fn prefilter() -> &'static LineFilter {
    static FILTER: std::sync::OnceLock<LineFilter> = std::sync::OnceLock::new();
    // ESC starts ANSI escapes; 0xC2 leads U+009B, the one-character CSI.
    FILTER.get_or_init(|| LineFilter::new(FILTER_NEEDLES, [0x1b, 0xc2]))
}

/// Sees a log's lines beside its records ([`read_log_watched`]): each line's 1-based number and
/// text.
pub type LineWatcher<'w> = &'w mut dyn FnMut(u64, &str);

/// How much of a log's head a line watcher sees whole (see [`read_log_watched`]): every line of
/// its first 8 MiB, where builds print what they are (CMake's and MSBuild's banners, the first
/// commands). Real logs are shorter, so a watcher sees them whole.
pub const WATCHED_HEAD_BYTES: u64 = 8 << 20;

/// Reads a whole log, calling `sink` for every event in order. Never fails on content: bad bytes
/// are replaced, long lines cut; only I/O errors are returned.
pub fn read_log<R: Read + 'static>(
    reader: R,
    limits: ReadLimits,
    sink: &mut dyn FnMut(Located),
) -> std::io::Result<LogStats> {
    read_log_watched(reader, limits, sink, None)
}

/// [`read_log`], showing `watch` the log's lines beside the records: every line of the first
/// [`WATCHED_HEAD_BYTES`], then every line read for records (record lines, their continuations,
/// command lines, hint blocks), each once, in order, with its 1-based number. What else the log
/// says (its build system) is learnt in the same single pass.
pub fn read_log_watched<R: Read + 'static>(
    reader: R,
    limits: ReadLimits,
    sink: &mut dyn FnMut(Located),
    watch: Option<LineWatcher<'_>>,
) -> std::io::Result<LogStats> {
    let mut reading = Reading::new(
        LineReader::new(reader, limits.max_line_bytes)?,
        limits,
        sink,
        watch,
    );
    while reading.next_line()? {
        reading.take_line();
    }
    Ok(reading.finish())
}

/// The state of one pass over a log: the lines, the parser, the record being assembled.
struct Reading<'s, 'w> {
    lines: LineReader,
    limits: ReadLimits,
    sink: &'s mut dyn FnMut(Located),
    watch: Option<LineWatcher<'w>>,
    stats: LogStats,
    parser: parse::LineParser,
    events: Vec<Event>,
    /// The physical line just read.
    physical: String,
    /// The logical line being assembled: only a record is ever held, and only while the next
    /// line might continue it.
    held: Option<Held>,
    /// The text of the last record parsed, kept for its buffer: the next record is held in it.
    spare: String,
    filter: &'static LineFilter,
}

impl<'s, 'w> Reading<'s, 'w> {
    fn new(
        lines: LineReader,
        limits: ReadLimits,
        sink: &'s mut dyn FnMut(Located),
        watch: Option<LineWatcher<'w>>,
    ) -> Reading<'s, 'w> {
        let stats = LogStats {
            encoding: Some(lines.encoding()),
            binary: lines.looks_binary(),
            ..LogStats::default()
        };
        Reading {
            lines,
            limits,
            sink,
            watch,
            stats,
            parser: parse::LineParser::new(),
            events: Vec::new(),
            physical: String::new(),
            held: None,
            spare: String::new(),
            filter: prefilter(),
        }
    }

    /// Reads the next line worth reading into `physical`; `false` at the end of the log.
    ///
    /// Most lines of a big log hold nothing for us: one multi-pattern scan over the buffer skips
    /// them unread. Every line is read when it may continue a held record or sits in a hint
    /// block. In a watcher's head window the lines the scan skips are shown to the watcher, a
    /// run of them at a time, and not read.
    fn next_line(&mut self) -> std::io::Result<bool> {
        if let Some((_, text, last_chars, count)) = &self.held {
            if !may_be_continued(text, *last_chars, *count) {
                self.flush();
            }
        }
        let every_line =
            self.held.is_some() || self.parser.in_hint_block() || !self.limits.skip_unmatched_lines;
        let more = if every_line {
            self.lines.next_line(&mut self.physical)?
        } else {
            let shown = match self.watch.as_mut() {
                Some(watch) if self.lines.bytes < WATCHED_HEAD_BYTES => {
                    Some((WATCHED_HEAD_BYTES, &mut **watch as decode::ShownLines<'_>))
                }
                _ => None,
            };
            self.lines
                .next_matching_line_showing(&mut self.physical, self.filter, shown)?
        };
        if more {
            if let Some(watch) = self.watch.as_mut() {
                watch(self.lines.line_number, &self.physical);
            }
        }
        Ok(more)
    }

    /// Takes the line just read: joins it to the held record, or parses what was held and
    /// holds it (a record) or parses it at once (anything else).
    fn take_line(&mut self) {
        if self.held.is_some()
            && self.limits.skip_unmatched_lines
            && !self.parser.in_hint_block()
            && !self.filter.is_match(self.physical.as_bytes())
            && !clean::looks_like_python_repr(&self.physical)
        {
            // Read only because it may continue the held record: the filter says the parser
            // would find nothing in it, and without escapes or a Python repr it is one piece.
            // The rest of a line the console cut at its width gets no tool lens (see
            // `take_piece`).
            let (piece, width) = if self.held_cut_inside_name() {
                lens::copied(&self.physical, &mut self.stats.lensed_lines)
            } else {
                lens::paste(&self.physical, &mut self.stats.lensed_lines)
            };
            if !join(&mut self.held, &piece, width, false, &mut self.stats) {
                self.flush();
            }
            return;
        }
        let number = self.lines.line_number;
        // The physical line without escapes, with what the copy did (Markdown, quotes) undone
        // on the whole line (a repr was quoted as one line); then a Python repr's lines one by
        // one, or the line as one piece. A plain line (most of a log) holds no escape and no
        // repr, and the byte-escape lens finds nothing in it.
        let physical = std::mem::take(&mut self.physical);
        let plain = lens::is_plain(&physical);
        let text = if plain {
            std::borrow::Cow::Borrowed(physical.as_str())
        } else {
            clean::strip_escapes(&physical)
        };
        if let Some(pieces) = lens::html::split_breaks(&text) {
            // A log that went through an HTML page: its lines, joined by `<br>`, each read as a
            // line of its own.
            self.stats.lensed_lines += 1;
            for piece in pieces {
                self.take_text(number, piece, lens::is_plain(piece));
            }
        } else {
            self.take_text(number, &text, plain);
        }
        self.physical = physical;
    }

    /// Takes the text of one line of the log (escapes stripped; `plain` when it
    /// [`lens::is_plain`]): undoes what the copy did, then takes a Python repr's lines one by
    /// one, or the line as one piece.
    fn take_text(&mut self, number: u64, text: &str, plain: bool) {
        let copied = lens::copy(text, plain, &mut self.stats.lensed_lines);
        // The copy lenses add no backslash, no ESC and no non-ASCII text.
        if !plain && clean::looks_like_python_repr(&copied) {
            self.stats.python_repr_lines += 1;
            for piece in clean::expand_python_repr(&copied) {
                let piece = match clean::strip_escapes(&piece) {
                    std::borrow::Cow::Owned(stripped) => stripped,
                    std::borrow::Cow::Borrowed(_) => piece,
                };
                let width = console_width(&piece);
                self.take_piece(number, &piece, width, false);
            }
        } else if let Some(records) = lens::run_together::split(&copied) {
            // Records a mail client or a copy ran together on one line, each read as a line.
            self.stats.lensed_lines += 1;
            for record in records {
                self.take_piece(number, record, console_width(record), false);
            }
        } else {
            // A plain line is ASCII: a character per byte.
            let width = if plain {
                copied.len()
            } else {
                console_width(&copied)
            };
            self.take_piece(number, &copied, width, plain);
        }
    }

    /// Whether a record is held that the console cut inside a name: its last piece ended at a
    /// console width, inside a template's argument list (`mul_mat_q_case<1`). The next line is
    /// then the rest of that name, whatever it starts with.
    fn held_cut_inside_name(&self) -> bool {
        self.held.as_ref().is_some_and(|(_, text, last_chars, _)| {
            let last_word = text.rsplit(char::is_whitespace).next().unwrap_or("");
            at_console_width(*last_chars)
                && last_word.matches('<').count() > last_word.matches('>').count()
        })
    }

    /// Takes one piece of line `number` (`width` characters on the console; `plain` when it is
    /// known to be [`lens::is_plain`]): undoes what the build tools did, then joins it to the held
    /// record, or holds it or parses it at once.
    fn take_piece(&mut self, number: u64, piece: &str, width: usize, plain: bool) {
        // The rest of a name the console cut is text of that line, never the start of one a tool
        // printed: the tools' lenses must not read it (`6>(struct a &)` after a name cut at `<1`
        // is not MSBuild's project prefix).
        let cut_inside_name = self.held_cut_inside_name() && !is_anchor(piece);
        let lensed = lens::tool(piece, plain, &mut self.stats.lensed_lines);
        if cut_inside_name
            && !is_anchor(&lensed)
            && join(&mut self.held, piece, width, false, &mut self.stats)
        {
            return;
        }
        let held_inside_code = || {
            self.held
                .as_ref()
                .is_some_and(|(_, text, chars, _)| ends_inside_code(text, *chars))
        };
        // Only a line the filter passes (as when unmatched lines are skipped): the same answer
        // both ways.
        let cut_code = code_cut_at_start(&lensed)
            .filter(|_| self.filter.is_match(lensed.as_bytes()) && !held_inside_code());
        let piece = match cut_code {
            Some(whole) => {
                self.stats.joined_lines += 1;
                std::borrow::Cow::Owned(whole)
            }
            None => lensed,
        };
        // A tool prefix the console counted (`3>`) is not part of the record: the cut is at the
        // width with it or without it.
        let unprefixed = match &piece {
            std::borrow::Cow::Owned(text) => console_width(text),
            std::borrow::Cow::Borrowed(_) => width,
        };
        let (width, inside_code) = if ends_inside_code(&piece, width) {
            (width, true)
        } else if unprefixed != width && ends_inside_code(&piece, unprefixed) {
            (unprefixed, true)
        } else {
            (width, false)
        };
        let anchor = is_anchor(&piece) || inside_code;
        if join(&mut self.held, &piece, width, anchor, &mut self.stats) {
            return;
        }
        self.flush();
        let text = match piece {
            std::borrow::Cow::Owned(text) => text,
            std::borrow::Cow::Borrowed(piece) => {
                let mut text = std::mem::take(&mut self.spare);
                text.clear();
                text.push_str(piece);
                text
            }
        };
        self.held = Some((number, text, width, 1));
        // Only a record can be continued by the next line: anything else is parsed now, so the
        // parser's state (a hint block) is current when the next line is read.
        if !anchor {
            self.flush();
        }
    }

    /// Parses the held logical line, counts it as link output when it is (or looks like it),
    /// and passes its events on.
    fn flush(&mut self) {
        let Some((line, held_text, _, _)) = self.held.take() else {
            return;
        };
        let text = lens::record(&held_text, &mut self.stats.lensed_lines);
        self.parser.parse_line(&text, line, &mut self.events);
        // A line with a link event is link output; a line without one (or with only what a
        // command line shows) is when it looks like it.
        if self.events.is_empty() {
            if read_summary::looks_like_link_output(&text) {
                self.stats.link_lines += 1;
                self.stats.unread_link_lines += 1;
                if self.stats.unread_examples.len() < UNREAD_EXAMPLES {
                    self.stats
                        .unread_examples
                        .push(read_summary::UnreadLine::new(line, &text));
                }
            }
        } else if self.events.iter().any(|e| {
            !matches!(
                e,
                Event::CrtOption(_)
                    | Event::Machine(_)
                    | Event::LinkCommand(_)
                    | Event::LinkLineLibrary(_)
                    | Event::TorchVersion(_)
                    | Event::NodeVersion(_)
            )
        }) {
            self.stats.link_lines += 1;
        }
        for event in self.events.drain(..) {
            (self.sink)(Located { line, event });
        }
        if let std::borrow::Cow::Borrowed(_) = text {
            self.spare = held_text;
        }
    }

    /// Parses what is still held and returns what the reading measured.
    fn finish(mut self) -> LogStats {
        self.flush();
        let mut stats = self.stats;
        let lines = &self.lines;
        stats.lines = lines.line_number;
        stats.bytes = lines.bytes;
        stats.truncated_lines = lines.truncated_lines;
        stats.cut_records = lines.cut_records;
        let decoded = lines.decode_stats();
        if decoded.regions.len() > 1 {
            stats.encoding_regions = decoded.regions;
        }
        stats.replacement_characters = decoded.replacements;
        stats.mostly_cjk =
            decoded.utf16_units >= 64 && decoded.utf16_cjk_units * 2 > decoded.utf16_units;
        stats
    }
}

/// Reads a log held in memory and returns all its events (for tests and small inputs).
pub fn read_log_bytes(bytes: &[u8]) -> (Vec<Located>, LogStats) {
    let mut events = Vec::new();
    let stats = read_log(
        std::io::Cursor::new(bytes.to_vec()),
        ReadLimits::default(),
        &mut |e| events.push(e),
    )
    .expect("reading from memory cannot fail");
    (events, stats)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn symbols(log: &str) -> Vec<String> {
        read_log_bytes(log.as_bytes())
            .0
            .into_iter()
            .filter_map(|l| match l.event {
                Event::Unresolved(u) => u.symbol.decorated.or(u.symbol.display),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn the_filter_holds_every_lens_anchor_and_no_short_needle() {
        for anchor in lens::anchor_needles() {
            assert!(FILTER_NEEDLES.contains(&anchor), "{anchor:?}");
        }
        for needle in FILTER_NEEDLES {
            assert!(needle.len() >= 3, "{needle:?}");
        }
        let distinct: std::collections::HashSet<_> = FILTER_NEEDLES.iter().collect();
        assert_eq!(distinct.len(), FILTER_NEEDLES.len());
    }

    #[test]
    fn a_watcher_sees_the_head_whole_then_the_lines_read_for_records() {
        let noise = "[3/9] clang++ -x hip --offload-arch=gfx1201 -O3 -c k.cu -o k.o\n";
        let head_lines = WATCHED_HEAD_BYTES as usize / noise.len() + 1;
        let mut log = noise.repeat(head_lines);
        log.push_str("-- Build files have been written to: C:/b (CMakeFiles)\n");
        log.push_str("lld-link: error: undefined symbol: hipMalloc\n");
        log.push_str(">>> referenced by C:\\tvm_ffi\\k.obj:(launch)\n");
        log.push_str(noise);
        let mut shown: Vec<u64> = Vec::new();
        let mut events = 0;
        let stats = read_log_watched(
            std::io::Cursor::new(log.clone().into_bytes()),
            ReadLimits::default(),
            &mut |_| events += 1,
            Some(&mut |number, _| shown.push(number)),
        )
        .unwrap();
        let head = head_lines as u64;
        assert_eq!(stats.lines, head + 4);
        assert!(events >= 2, "{events}");
        // Every line of the head once, in order; after it the two record lines and nothing else
        // (neither the CMake line the filter skips nor the noise after the record).
        let want: Vec<u64> = (1..=head).chain([head + 2, head + 3]).collect();
        assert_eq!(shown.len(), want.len());
        let first_difference = shown.iter().zip(&want).find(|(a, b)| a != b);
        assert!(shown == want, "first difference: {first_difference:?}");
        // Without a watcher, the same events and statistics.
        let (unwatched, unwatched_stats) = read_log_bytes(log.as_bytes());
        assert_eq!(unwatched.len(), events);
        assert_eq!(unwatched_stats.lines, stats.lines);
    }

    #[test]
    fn a_record_cut_inside_its_code_is_joined_back() {
        // Each first line is 80 characters: the console cut `LNK2019` and `LNK2001`.
        let object = format!("{}.obj", "o".repeat(62));
        let log = format!(
            "{object} : error LNK20\n19: unresolved external symbol f referenced in main\n\
             {object} : warning L\nNK4217: symbol 'g' defined in 'a.lib(a.obj)' is imported\n\
             {object}xxx : error LN\nK2001: unresolved external symbol h\n"
        );
        assert_eq!(log.lines().next().unwrap().len(), 80);
        assert_eq!(symbols(&log), ["f", "h"]);
        let (events, _) = read_log_bytes(log.as_bytes());
        // The first record keeps its object; the third's line before the cut holds no anchor and
        // is not read, so its object is lost but its code is whole again.
        let objects: Vec<Option<String>> = events
            .iter()
            .filter_map(|e| match &e.event {
                Event::Unresolved(u) => Some(u.reference.as_ref()?.object.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(objects, [Some(object.clone()), None]);
        // A line at the width that ends in a word starting with L, not after a severity word,
        // holds nothing back.
        assert!(!ends_inside_code(&format!("{} L", "a".repeat(78)), 80));
        assert!(!ends_inside_code(
            &format!("{} error LN", "a".repeat(71)),
            80
        ));
        assert!(ends_inside_code(
            &format!("{} error LNK", "a".repeat(70)),
            80
        ));
    }

    #[test]
    fn console_wrapped_records_are_joined() {
        let log = "glfw.obj : error LNK2001: simbolo esterno __imp__glfwSetWindowCloseCallback@4 n\n\
                   on risolto [C:\\Users\\F\\glfw.vc\n\
                   xproj]\n\
                   glfw.obj : error LNK2001: simbolo esterno __imp__glfwGetTime@0 non risolto [C:\\\n\
                   Users\\F\\glfw.vcxproj]\n";
        let (events, stats) = read_log_bytes(log.as_bytes());
        assert_eq!(
            symbols(log),
            [
                "__imp__glfwSetWindowCloseCallback@4",
                "__imp__glfwGetTime@0"
            ]
        );
        assert_eq!(stats.joined_lines, 3);
        assert_eq!(events[1].line, 4);
    }

    /// The rest of a line the console cut at 80 columns that starts like MSBuild's project
    /// prefix (`6>` after a name cut at `<1`) is the rest of the name, not a prefix to strip.
    #[test]
    fn a_cut_that_looks_like_a_tool_prefix_is_joined_as_is() {
        let prefix = "clang++: error: lld-link: error: undefined symbol: void __cdecl make_";
        let pad = "x".repeat(80 - prefix.len() - "tile<1".len());
        let head = format!("{prefix}{pad}tile<1");
        assert_eq!(head.len(), 80);
        let log = format!("{head}\n6>(int)\n>>> referenced by a.obj:(f)\n");
        assert_eq!(
            symbols(&log),
            [format!("void __cdecl make_{pad}tile<16>(int)")]
        );
        // Cut before any console width, the next line is a line of its own.
        let short = format!("{prefix}tile<1\n6>(int)\n>>> referenced by a.obj:(f)\n");
        assert_ne!(symbols(&short), ["void __cdecl make_tile<16>(int)"]);
    }

    #[test]
    fn python_exception_repr() {
        let log = "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n\
            RuntimeError: Failed to build: b'lld-link: error: undefined symbol: hipMalloc\\r\\n>>> referenced by C:\\\\t\\\\k.obj:(launch)\\r\\nlld-link: error: undefined symbol: hipFree\\r\\n'\n";
        assert_eq!(symbols(log), ["hipMalloc", "hipFree"]);
    }

    #[test]
    fn utf16_powershell_log() {
        let text = "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\r\n";
        let mut bytes = vec![0xFF, 0xFE];
        for unit in text.encode_utf16() {
            bytes.extend_from_slice(&unit.to_le_bytes());
        }
        assert_eq!(
            symbols(std::str::from_utf8(&[]).unwrap()),
            Vec::<String>::new()
        );
        let (events, stats) = read_log_bytes(&bytes);
        assert_eq!(stats.encoding, Some(Encoding::Utf16LeBom));
        assert!(matches!(events[0].event, Event::Unresolved(_)));
    }
}
