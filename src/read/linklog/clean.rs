//! Line clean-up before parsing: colour escapes, pasted glyphs, Python `repr` escapes and the
//! prefixes and suffixes that build tools put around the linker's own text.

use crate::read::linklog::trim::TrimWhitespace;
use regex::Regex;
use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

/// Removes ANSI escape sequences (CSI such as colours, OSC such as hyperlinks) and the
/// U+240D "symbol for carriage return" glyph that some pastes carry at line ends.
pub fn strip_escapes(line: &str) -> Cow<'_, str> {
    // ESC, and the lead bytes of U+009B (0xC2) and U+240D (0xE2): one scan rules most lines out.
    if memchr::memchr3(0x1b, 0xc2, 0xe2, line.as_bytes()).is_none()
        || (!line.contains('\u{1b}') && !line.contains('\u{240d}') && !line.contains('\u{9b}'))
    {
        return Cow::Borrowed(line);
    }
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.peek() {
                Some('[') => {
                    chars.next();
                    // CSI: parameters and intermediates, then one final byte in 0x40..=0x7e.
                    for c in chars.by_ref() {
                        if ('\u{40}'..='\u{7e}').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    chars.next();
                    // OSC: up to BEL or ESC '\'.
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            if chars.peek() == Some(&'\\') {
                                chars.next();
                            }
                            break;
                        }
                    }
                }
                Some(_) => {
                    chars.next();
                }
                None => {}
            },
            '\u{9b}' => {
                for c in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&c) {
                        break;
                    }
                }
            }
            '\u{240d}' => {}
            _ => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// Whether a line holds a log that was embedded in a Python exception as a `str` or `bytes`
/// repr: literal `\r\n` or `\n` escapes standing for line breaks.
///
/// A Windows path alone (`C:\new\x.obj`) does not qualify: it needs a literal `\r\n`, or at least
/// two literal `\n` in a line that also shows repr-doubled backslashes or a `b'`/`'`/`: "` opener.
pub fn looks_like_python_repr(line: &str) -> bool {
    if memchr::memchr(b'\\', line.as_bytes()).is_none() {
        return false;
    }
    static FINDERS: OnceLock<[memchr::memmem::Finder<'static>; 2]> = OnceLock::new();
    let [crlf, lf] = FINDERS.get_or_init(|| {
        [
            memchr::memmem::Finder::new("\\r\\n"),
            memchr::memmem::Finder::new("\\n"),
        ]
    });
    if crlf.find(line.as_bytes()).is_some() {
        return true;
    }
    lf.find_iter(line.as_bytes()).take(2).count() == 2
        && (line.contains("\\\\")
            || line.contains("b'")
            || line.contains("b\"")
            || line.contains("('")
            // Rust's `{:?}` of a `String`: `Error: "...\n...\n"`.
            || line.contains(": \""))
}

/// Expands a Python `repr` into the lines it stands for: `\r\n`, `\n`, `\r` become breaks,
/// `\\` a backslash, `\'`/`\"` quotes, `\t` a tab and `\xNN` the byte (decoded as UTF-8 where the
/// bytes form it, else as Windows-1252).
pub fn expand_python_repr(line: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut bytes: Vec<u8> = Vec::with_capacity(line.len());
    let flush = |bytes: &mut Vec<u8>, lines: &mut Vec<String>| {
        lines.push(super::lens::byte_escapes::decode_bytes(bytes));
        bytes.clear();
    };
    // The text before the repr's opening quote is a line of its own (`RuntimeError: b'`), and
    // the closing quote is not part of the last line.
    let opener = repr_opener(line);
    if let Some((start, _)) = opener {
        lines.push(line[..start].to_string());
    }
    let raw = line.as_bytes();
    let mut i = opener.map_or(0, |(start, _)| start);
    while i < raw.len() {
        if raw[i] == b'\\' && i + 1 < raw.len() {
            match raw[i + 1] {
                b'r' => {
                    if raw.get(i + 2) == Some(&b'\\') && raw.get(i + 3) == Some(&b'n') {
                        i += 4;
                    } else {
                        i += 2;
                    }
                    flush(&mut bytes, &mut lines);
                    continue;
                }
                b'n' => {
                    i += 2;
                    flush(&mut bytes, &mut lines);
                    continue;
                }
                b't' => {
                    bytes.push(b'\t');
                    i += 2;
                    continue;
                }
                b'\\' | b'\'' | b'"' => {
                    bytes.push(raw[i + 1]);
                    i += 2;
                    continue;
                }
                b'x' if i + 3 < raw.len() => {
                    let hex = std::str::from_utf8(&raw[i + 2..i + 4]).ok();
                    if let Some(value) = hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                        bytes.push(value);
                        i += 4;
                        continue;
                    }
                }
                _ => {}
            }
        }
        bytes.push(raw[i]);
        i += 1;
    }
    flush(&mut bytes, &mut lines);
    if let (Some((_, quote)), Some(last)) = (opener, lines.last_mut()) {
        let end = last.trim_end_matches([')', ']', ',', '.', ' ']);
        if let Some(inner) = end.strip_suffix(quote) {
            let inner_len = inner.len();
            last.truncate(inner_len);
        }
    }
    lines
}

/// Where a repr's text starts (after its opening quote), and the quote: `b'`, `b"`, `('`, `("`,
/// `: '` or `: "`, whichever comes first.
fn repr_opener(line: &str) -> Option<(usize, char)> {
    ["b'", "b\"", "('", "(\"", ": '", ": \""]
        .iter()
        .filter_map(|opener| line.find(opener).map(|at| (at + opener.len(), opener)))
        .min_by_key(|(at, _)| *at)
        .map(|(at, opener)| (at, if opener.ends_with('\'') { '\'' } else { '"' }))
}

/// What [`strip_prefixes`] removes, one alternative at a time (`\s`, `\d` and `\w` are Unicode's).
const PREFIX_PATTERN: &str = r"(?x)^(?:
                \s+
              | \d+>                                   # MSBuild project prefix
              | \[[^\]]*\]\s*                          # [ +193 ms], [INFO], [worker-1]
              | \d{4}-\d{2}-\d{2}[T\x20]\d{2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?\s*
              | \d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\s*
              | (?:INFO|WARN|WARNING|ERROR|DEBUG|TRACE|NOTE|STDERR|STDOUT)\b[\x20:|-]*
              | =\s*note:\s*                           # rustc's note block
              | [A-Za-z][\w.-]*\s*\|\s+                # supervisor `name | `
              | [A-Za-z][\w.-]+:\x20+                  # supervisor `name: ` (never a drive letter)
            )";

/// [`PREFIX_PATTERN`] with ASCII classes for `\s`, `\d` and `\w`: on ASCII text it matches
/// exactly what the Unicode pattern matches (the Unicode classes' ASCII members are these), and
/// it compiles in a small fraction of the time (Unicode's `\w` alone is hundreds of ranges).
fn ascii_prefix_pattern() -> String {
    PREFIX_PATTERN
        .replace(r"\s", r"[\t\n\x0B\x0C\r\x20]")
        .replace(r"\d", "[0-9]")
        .replace(r"\w", "0-9A-Za-z_")
}

/// The prefix pattern for ASCII text, compiled on first use.
fn ascii_prefix_patterns() -> &'static Regex {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(&ascii_prefix_pattern()).expect("prefix pattern"));
    &RE
}

/// The prefix pattern for text with non-ASCII characters, compiled on first use.
fn prefix_patterns() -> &'static Regex {
    static RE: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(PREFIX_PATTERN).expect("prefix pattern"));
    &RE
}

/// Strips what build tools and supervisors put in front of a linker's line: indentation,
/// MSBuild's `N>`, bracketed tags and timestamps, log levels, rustc's `= note:`.
pub fn strip_prefixes(mut text: &str) -> &str {
    // Every suffix of ASCII text is ASCII: one pattern serves the whole loop.
    let re = if text.is_ascii() {
        ascii_prefix_patterns()
    } else {
        prefix_patterns()
    };
    // Bounded: each pass removes at least one character.
    for _ in 0..16 {
        match re.find(text) {
            Some(m) if m.end() > 0 => text = &text[m.end()..],
            _ => break,
        }
    }
    text
}

fn msbuild_suffix() -> &'static Regex {
    static RE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\s*\[[^\[\]]*\.(?:vcxproj|vcproj|csproj|proj|targets|sln)\]\s*$")
            .expect("suffix pattern")
    });
    &RE
}

/// Strips MSBuild's ` [C:\path\proj.vcxproj]` suffix and trailing whitespace.
pub fn strip_suffixes(text: &str) -> &str {
    let text = text.trim_ws_end();
    if !text.ends_with(']') {
        return text;
    }
    match msbuild_suffix().find(text) {
        Some(m) => text[..m.start()].trim_ws_end(),
        None => text,
    }
}

/// Whether a line is unfinished: a quote, parenthesis or bracket opened and not closed, which is
/// how a console that hard-wraps long lines leaves a record.
pub fn is_unbalanced(text: &str) -> bool {
    // Bytes, not chars: the five are ASCII and never part of a multi-byte sequence.
    let (quotes, parens, brackets) = balance(text.as_bytes());
    quotes % 2 == 1 || parens > 0 || brackets > 0
}

/// The quotes of `bytes`, and its `(` less `)` and `[` less `]`. Every held record is checked,
/// so this is one vector pass (a search per occurrence, five counts, or a table lookup per byte
/// cost more than the rest of its line's reading).
fn balance(bytes: &[u8]) -> (usize, isize, isize) {
    let [quotes, open, close, open_bracket, close_bracket] = count_balance_bytes(bytes);
    (
        quotes,
        open as isize - close as isize,
        open_bracket as isize - close_bracket as isize,
    )
}

/// The bytes [`balance`] counts, in the order of its counts.
const BALANCE_BYTES: [u8; 5] = *b"\"()[]";

/// How many of each of [`BALANCE_BYTES`] `bytes` holds: 16 bytes at a time, compared with each
/// of the five at once and added to a byte counter per lane (SSE2, which every x86-64 has).
#[cfg(target_arch = "x86_64")]
fn count_balance_bytes(bytes: &[u8]) -> [usize; 5] {
    // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 processor has it.
    unsafe { count_balance_bytes_sse2(bytes) }
}

/// [`count_balance_bytes`] with SSE2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn count_balance_bytes_sse2(bytes: &[u8]) -> [usize; 5] {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_cvtsi128_si64, _mm_loadu_si128, _mm_sad_epu8, _mm_set1_epi8,
        _mm_setzero_si128, _mm_sub_epi8, _mm_unpackhi_epi64,
    };
    let wanted = BALANCE_BYTES.map(|b| _mm_set1_epi8(b as i8));
    let mut counts = [0usize; 5];
    let mut chunks = bytes.chunks_exact(16);
    // The last bytes, padded with NULs (which count as nothing).
    let mut last = [0u8; 16];
    last[..chunks.remainder().len()].copy_from_slice(chunks.remainder());
    let mut last = Some(&last);
    loop {
        // 255 rounds at most, so no byte counter overflows.
        let mut sums = [_mm_setzero_si128(); 5];
        let mut rounds = 0;
        while rounds < 255 {
            let Some(chunk) = chunks.next().or_else(|| last.take().map(|l| l.as_slice())) else {
                break;
            };
            // SAFETY: the chunk is 16 bytes long, and an unaligned load reads 16.
            let vector = unsafe { _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>()) };
            for (sum, wanted) in sums.iter_mut().zip(wanted) {
                // A match is -1 in its lane: subtracting it adds one.
                *sum = _mm_sub_epi8(*sum, _mm_cmpeq_epi8(vector, wanted));
            }
            rounds += 1;
        }
        for (count, sum) in counts.iter_mut().zip(sums) {
            let halves = _mm_sad_epu8(sum, _mm_setzero_si128());
            let high = _mm_unpackhi_epi64(halves, halves);
            *count += (_mm_cvtsi128_si64(halves) + _mm_cvtsi128_si64(high)) as usize;
        }
        if rounds < 255 {
            return counts;
        }
    }
}

/// How many of each of [`BALANCE_BYTES`] `bytes` holds (the portable form).
#[cfg(not(target_arch = "x86_64"))]
fn count_balance_bytes(bytes: &[u8]) -> [usize; 5] {
    count_balance_bytes_portably(bytes)
}

/// [`count_balance_bytes`] a byte at a time: the other architectures' form, and the vector
/// form's reference in the tests.
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
fn count_balance_bytes_portably(bytes: &[u8]) -> [usize; 5] {
    let mut counts = [0usize; 5];
    for &b in bytes {
        for (count, wanted) in counts.iter_mut().zip(BALANCE_BYTES) {
            *count += usize::from(b == wanted);
        }
    }
    counts
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On ASCII text the ASCII prefix pattern finds what the Unicode one finds: on prefixes of
    /// every kind, and on random text made of the characters the pattern cares about.
    #[test]
    fn ascii_prefix_pattern_matches_like_the_unicode_one() {
        let (ascii, unicode) = (ascii_prefix_patterns(), prefix_patterns());
        let mut lines: Vec<String> = [
            "  3>x.obj : error LNK2019: a",
            "12>x",
            "[ +193 ms] [INFO] a.obj : error",
            "2026-12-05T13:00:00.123+01:00 link: error",
            "2026-12-05 13:00:00,5Z x",
            "13:00:00.25 y",
            "WARNING: | z",
            "STDERR- x",
            "INFORMATION x",
            "= note: a",
            "web_1 | a",
            "worker-1.svc:  x",
            "C: x",
            "app.obj : error LNK2019: unresolved external symbol foo",
            "\t\x0b\x0c\r x",
            "",
        ]
        .map(String::from)
        .to_vec();
        let alphabet = b" \t\x0b\x0c\r\x1c\x1f0123456789aZ_.-:|>[]=+,TINFOWRVnote";
        let mut seed = 11u32;
        for len in 0..2_000 {
            let mut line = String::new();
            for _ in 0..len % 40 {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                line.push(char::from(alphabet[(seed >> 16) as usize % alphabet.len()]));
            }
            lines.push(line);
        }
        for line in &lines {
            let span = |re: &Regex| re.find(line).map(|m| m.range());
            assert_eq!(span(ascii), span(unicode), "{line:?}");
        }
        // Non-ASCII text uses the Unicode pattern: U+00A0 is a space there.
        assert_eq!(strip_prefixes("\u{a0}a.obj"), "a.obj");
    }

    #[test]
    fn balance_counts_like_a_byte_loop() {
        let mut text = Vec::new();
        let mut seed = 7u32;
        for len in [
            0, 1, 15, 16, 17, 95, 4079, 4080, 4081, 4096, 8160, 9000, 20_000,
        ] {
            text.clear();
            for _ in 0..len {
                seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                text.push(b"\"()[]ab"[(seed >> 16) as usize % 7]);
            }
            let count = |b: u8| text.iter().filter(|&&x| x == b).count();
            let want = (
                count(b'"'),
                count(b'(') as isize - count(b')') as isize,
                count(b'[') as isize - count(b']') as isize,
            );
            assert_eq!(balance(&text), want, "length {len}");
            assert_eq!(
                count_balance_bytes(&text),
                count_balance_bytes_portably(&text),
                "length {len}"
            );
        }
    }

    #[test]
    fn escapes_are_removed() {
        assert_eq!(
            strip_escapes("\u{1b}[1;31merror\u{1b}[0m: x\u{240d}"),
            "error: x"
        );
        assert_eq!(
            strip_escapes("\u{1b}]8;;http://x\u{7}link\u{1b}]8;;\u{1b}\\ ok"),
            "link ok"
        );
        assert!(matches!(strip_escapes("plain"), Cow::Borrowed(_)));
    }

    #[test]
    fn python_repr_expands() {
        let line = r"RuntimeError: b'lld-link: error: undefined symbol: hipMalloc\r\n>>> referenced by C:\\a\\k.obj:(f)\r\n'";
        assert!(looks_like_python_repr(line));
        let lines = expand_python_repr(line);
        assert_eq!(lines[0], "RuntimeError: b'");
        assert_eq!(lines[1], "lld-link: error: undefined symbol: hipMalloc");
        assert_eq!(lines[2], r">>> referenced by C:\a\k.obj:(f)");
        assert_eq!(lines.last().map(String::as_str), Some(""));
        let lines = expand_python_repr(r"E: b'x\r\ny.obj : error LNK2001: z'");
        assert_eq!(lines, ["E: b'", "x", "y.obj : error LNK2001: z"]);
        assert!(!looks_like_python_repr(r"C:\new\n.obj : error LNK2019: x"));
    }

    #[test]
    fn prefixes_and_suffixes() {
        assert_eq!(strip_prefixes("11>exiv2.lib(x.obj)"), "exiv2.lib(x.obj)");
        assert_eq!(
            strip_prefixes("[ +193 ms] flutter.lib(a.obj)"),
            "flutter.lib(a.obj)"
        );
        assert_eq!(
            strip_prefixes("2026-11-30 12:00:01,234 INFO worker | main.obj"),
            "main.obj"
        );
        assert_eq!(strip_prefixes("C:\\x\\main.obj"), "C:\\x\\main.obj");
        assert_eq!(
            strip_suffixes("symbol X [C:\\projects\\a b\\c_test.vcxproj]  "),
            "symbol X"
        );
    }

    #[test]
    fn balance_of_records() {
        assert!(is_unbalanced("x [C:\\U"));
        assert!(is_unbalanced("\"void __cdecl f(int"));
        assert!(!is_unbalanced("\"void f(int)\" (?f@@YAXH@Z)"));
    }
}
