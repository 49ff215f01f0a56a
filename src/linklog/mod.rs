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

pub use decode::{DecodeStats, Encoding, LineFilter, LineReader};
pub use parse::{CrtOption, Event, Finding, Linker, Reference, ShownName, UnresolvedRecord};

use std::io::Read;

/// Limits that keep reading bounded whatever the input.
#[derive(Debug, Clone, Copy)]
pub struct ReadLimits {
    /// Longest line kept, in bytes; longer lines are cut (and counted).
    pub max_line_bytes: usize,
    /// Skip lines that hold no anchor without decoding them (the fast path). Turning it off reads
    /// every line; the results are the same (a test compares them).
    pub skip_unmatched_lines: bool,
    /// Bounds on what the demangler is handed for the log's names.
    pub demangle: crate::demangle::DemangleLimits,
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
            demangle: crate::demangle::DemangleLimits::default(),
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

fn is_anchor(line: &str) -> bool {
    let bytes = line.as_bytes();
    let f = parse::finders();
    f.lnk.find(bytes).is_some_and(|_| has_lnk_code(line))
        || f.lld.find(bytes).is_some()
        || line.trim_start().starts_with(">>>")
}

fn has_lnk_code(line: &str) -> bool {
    parse::finders().lnk.find_iter(line.as_bytes()).any(|i| {
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
    let Some((_, code, desc)) = parse::split_link_exe(held) else {
        return false;
    };
    let quotes = quote_marks(desc);
    let names_file = || {
        let lower = desc.to_ascii_lowercase();
        [".obj", ".lib", ".o)", ".dll", ".exe", ".rlib", ".a("]
            .iter()
            .any(|e| lower.contains(e))
    };
    match code {
        "LNK2005" | "LNK4006" => !names_file(),
        "LNK2038" => quotes < 6 || !names_file(),
        "LNK1112" | "LNK4272" => quotes < 4,
        "LNK1104" | "LNK1181" => quotes < 2,
        _ => false,
    }
}

/// The quote marks of a text, any style (`'`, `"`, `“”`, `‘’`, `«»`, `「」`, full-width), an
/// apostrophe inside a word (`doesn't`, `d'ouvrir`) not counted.
fn quote_marks(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    (0..chars.len())
        .filter(|&i| {
            let c = chars[i];
            if c == '\'' {
                let letter = |j: Option<usize>| {
                    j.and_then(|j| chars.get(j))
                        .is_some_and(|c| c.is_alphanumeric())
                };
                return !(letter(i.checked_sub(1)) && letter(Some(i + 1)));
            }
            matches!(
                c,
                '"' | '“' | '”' | '‘' | '’' | '«' | '»' | '「' | '」' | '＂' | '„'
            )
        })
        .count()
}

/// Whether a record ends right after its code (`x.obj : error LNK2019:`): its message is on the
/// next line.
fn ends_at_code(held: &str) -> bool {
    let text = held.trim_end();
    text.strip_suffix(':').is_some_and(|head| {
        let head = head.trim_end().as_bytes();
        head.len() >= 7
            && &head[head.len() - 7..head.len() - 4] == b"LNK"
            && head[head.len() - 4..].iter().all(u8::is_ascii_digit)
    })
}

/// Whether a record was cut by hand (`...`, `…`): nothing that follows continues it.
fn is_elided(held: &str) -> bool {
    let text = held.trim_end();
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
    !next_is_anchor && !next.trim().is_empty() && may_be_continued(held, last_piece_chars, pieces)
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
    if !continues(text, *last_chars, piece, piece_is_anchor, *count) {
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

/// The substrings and bytes without which a line can hold no record, no CRT option, no escape
/// to strip and no Python repr: a line with none of them is skipped unread. Every needle is at
/// least three bytes long (see [`LineFilter`]) and as rare as the text it stands for allows.
fn prefilter() -> &'static LineFilter {
    static FILTER: std::sync::OnceLock<LineFilter> = std::sync::OnceLock::new();
    FILTER.get_or_init(|| {
        let needles: &[&str] = &[
            // link.exe records and the Error List (`LNKnnnn`), lld-link records (`lld`), the
            // lines of `>>> referenced by`, link.exe's hint block and clang's closing line
            "LNK",
            ">>>",
            "lld",
            "Hint on symbols",
            "nker command failed",
            // U+240D, the glyph a pasted CR becomes (ESC and U+009B are the bytes below)
            "\u{240d}",
            // CRT options and machines (parse/command_line.rs); a Python repr holding a
            // record holds one of the needles above
            "/MD",
            "/MT",
            "-MD",
            "-MT",
            "/LD",
            "-LD",
            "ms-runtime-lib",
            "-dependent-lib",
            "DEFAULTLIB",
            "/Zl",
            "-Zl",
            "_DLL",
            "achine:",
            "ACHINE:",
            "Compiler Version",
            // GNU ld's unresolved symbol: not read, but reported as link output when nothing is
            // found (read_summary.rs)
            "undefined reference",
        ];
        // The lenses' own anchors (lens/mod.rs): lines that become records only through them.
        let needles: Vec<&str> = needles
            .iter()
            .copied()
            .chain(lens::anchor_needles())
            .collect();
        // ESC starts ANSI escapes; 0xC2 leads U+009B, the one-character CSI.
        LineFilter::new(&needles, [0x1b, 0xc2])
    })
}

/// Reads a whole log, calling `sink` for every event in order. Never fails on content: bad bytes
/// are replaced, long lines cut; only I/O errors are returned.
pub fn read_log<R: Read + 'static>(
    reader: R,
    limits: ReadLimits,
    sink: &mut dyn FnMut(Located),
) -> std::io::Result<LogStats> {
    let mut lines = LineReader::new(reader, limits.max_line_bytes)?;
    let mut stats = LogStats {
        encoding: Some(lines.encoding()),
        binary: lines.looks_binary(),
        ..LogStats::default()
    };
    let mut parser = parse::LineParser::new();
    let mut events = Vec::new();
    let mut physical = String::new();
    // The logical line being assembled.
    let mut held: Option<Held> = None;

    let flush = |held: &mut Option<Held>,
                 parser: &mut parse::LineParser,
                 events: &mut Vec<Event>,
                 sink: &mut dyn FnMut(Located),
                 stats: &mut LogStats| {
        if let Some((line, text, _, _)) = held.take() {
            let text = lens::record(&text, &mut stats.lensed_lines);
            parser.parse_line(&text, line, events);
            // A line with a link event is link output; a line without one (or with only what a
            // command line shows) is when it looks like it.
            if events.is_empty() {
                if read_summary::looks_like_link_output(&text) {
                    stats.link_lines += 1;
                    stats.unread_link_lines += 1;
                    if stats.unread_examples.len() < UNREAD_EXAMPLES {
                        stats
                            .unread_examples
                            .push(read_summary::UnreadLine::new(line, &text));
                    }
                }
            } else if events
                .iter()
                .any(|e| !matches!(e, Event::CrtOption(_) | Event::Machine(_)))
            {
                stats.link_lines += 1;
            }
            for event in events.drain(..) {
                sink(Located { line, event });
            }
        }
    };

    let interesting = prefilter();
    loop {
        // Most lines of a big log hold nothing for us: one multi-pattern scan over the buffer
        // skips them unread. Every line is read when it may continue a held record or sits in
        // a hint block. Only a record is ever held (anything else is parsed at once, below),
        // and only while the next line might continue it.
        if let Some((_, text, last_chars, count)) = &held {
            if !may_be_continued(text, *last_chars, *count) {
                flush(&mut held, &mut parser, &mut events, sink, &mut stats);
            }
        }
        let held_is_record = held.is_some();
        let more = if held_is_record || parser.in_hint_block() || !limits.skip_unmatched_lines {
            lines.next_line(&mut physical)?
        } else {
            lines.next_matching_line(&mut physical, interesting)?
        };
        if !more {
            break;
        }
        if held_is_record
            && limits.skip_unmatched_lines
            && !parser.in_hint_block()
            && !interesting.is_match(physical.as_bytes())
            && !clean::looks_like_python_repr(&physical)
        {
            // Read only because it may continue the held record: the filter says the parser
            // would find nothing in it, and without escapes or a Python repr it is one piece.
            let (piece, width) = lens::paste(&physical, &mut stats.lensed_lines);
            if !join(&mut held, &piece, width, false, &mut stats) {
                flush(&mut held, &mut parser, &mut events, sink, &mut stats);
            }
            continue;
        }
        let number = lines.line_number;
        let text = clean::strip_escapes(&physical);
        // What the copy did (Markdown, quotes) is undone first, on the whole line: a repr was
        // quoted as one line.
        let copied = lens::copy(&text, &mut stats.lensed_lines);
        let pieces: Vec<(String, usize)> = if clean::looks_like_python_repr(&copied) {
            stats.python_repr_lines += 1;
            clean::expand_python_repr(&copied)
                .into_iter()
                .map(|piece| {
                    let piece = match clean::strip_escapes(&piece) {
                        std::borrow::Cow::Owned(stripped) => stripped,
                        std::borrow::Cow::Borrowed(_) => piece,
                    };
                    let width = piece.chars().count();
                    (piece, width)
                })
                .collect()
        } else {
            let width = copied.chars().count();
            vec![(copied.into_owned(), width)]
        };
        for (piece, width) in pieces {
            let piece = match lens::tool(&piece, &mut stats.lensed_lines) {
                std::borrow::Cow::Owned(changed) => changed,
                std::borrow::Cow::Borrowed(_) => piece,
            };
            let anchor = is_anchor(&piece);
            if join(&mut held, &piece, width, anchor, &mut stats) {
                continue;
            }
            flush(&mut held, &mut parser, &mut events, sink, &mut stats);
            held = Some((number, piece, width, 1));
            // Only a record can be continued by the next line: anything else is parsed now, so
            // the parser's state (a hint block) is current when the next line is read.
            if !anchor {
                flush(&mut held, &mut parser, &mut events, sink, &mut stats);
            }
        }
    }
    flush(&mut held, &mut parser, &mut events, sink, &mut stats);
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
    Ok(stats)
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
