//! Paste lenses: the normalisation stage in front of record parsing. Each lens undoes one way
//! people paste a link log (Markdown, the Visual Studio Output pane and Error List, MSBuild's
//! prefixes, reprs, typographic quotes, compiler drivers, hand edits) and leaves the linker's own
//! text; the record parser (`parse`) stays the one place that knows the linker formats.
//!
//! Lenses come in two kinds, applied in a fixed order:
//! - paste lenses ([`COPY_LENSES`], then [`TOOL_LENSES`]) see every physical line before
//!   records are recognised and console wraps joined: they remove what was put around or into
//!   a line (`` ` ``, `> `, `“`, `3>`, `\x94`), so that the joiner and the line filter see the
//!   linker's text;
//! - [`RECORD_LENSES`] see each logical line (a record, joined) just before it is parsed: they
//!   restore the record shape (`OBJECT : error LNKnnnn: DESC`, `lld-link: error: ...`, an Error
//!   List row with tabs) from the shapes a paste left.
//!
//! Every lens is a function from a line to `Some(new line)` or `None` (nothing to undo), cheap
//! to reject on a line it does not apply to (the fast path runs it on every line it reads), and
//! idempotent: a lens never finds work in its own output (a test checks this on every lens).

use crate::read::linklog::trim::TrimWhitespace;
pub mod bare_record;
pub mod byte_escapes;
pub mod code_spelling;
pub mod decorations;
pub mod driver;
pub mod elided;
pub mod error_list;
pub mod html;
pub mod localized_code;
pub mod markdown;
pub mod msbuild_origin;
pub mod msbuild_prefix;
pub mod quotes;
pub mod run_together;
pub mod tool_residue;

use std::borrow::Cow;

/// One lens: a name (for statistics and tests) and the function that applies it.
#[derive(Clone, Copy)]
pub struct Lens {
    /// Short name, as documented in docs/GUIDE.md ("Paste shapes").
    pub name: &'static str,
    /// Undoes the paste shape on one line; `None` when the line does not show it.
    pub apply: fn(&str) -> Option<String>,
}

impl std::fmt::Debug for Lens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Lenses for physical lines that undo what was done after the console (the copy, the chat
/// client, Markdown), in the order they are applied: the outermost wrapping first. A console's
/// width is measured after them.
pub const COPY_LENSES: &[Lens] = &[
    Lens {
        name: "html",
        apply: html::apply,
    },
    Lens {
        name: "markdown",
        apply: markdown::apply,
    },
    Lens {
        name: "quotes",
        apply: quotes::apply,
    },
    Lens {
        name: "code-spelling",
        apply: code_spelling::apply,
    },
];

/// Lenses for physical lines that undo what the build tools did before the console wrapped
/// the line (so a console's width is measured before them).
pub const TOOL_LENSES: &[Lens] = &[
    Lens {
        name: "msbuild-prefix",
        apply: msbuild_prefix::apply,
    },
    Lens {
        name: BYTE_ESCAPES,
        apply: byte_escapes::apply,
    },
];

/// The byte-escape lens's name: the one tool lens a plain line ([`is_plain`]) cannot need.
const BYTE_ESCAPES: &str = "byte-escapes";

/// Lenses for logical lines (records, joined), in the order they are applied.
pub const RECORD_LENSES: &[Lens] = &[
    Lens {
        name: "localized-code",
        apply: localized_code::apply,
    },
    Lens {
        name: "driver",
        apply: driver::apply,
    },
    Lens {
        name: "msbuild-origin",
        apply: msbuild_origin::apply,
    },
    Lens {
        name: "tool-residue",
        apply: tool_residue::apply,
    },
    Lens {
        name: "error-list",
        apply: error_list::apply,
    },
    Lens {
        name: "bare-record",
        apply: bare_record::apply,
    },
    Lens {
        name: "decorations",
        apply: decorations::apply,
    },
    Lens {
        name: "elided",
        apply: elided::apply,
    },
];

/// Substrings a line must hold for a lens to turn it into a record although the line filter's
/// own needles are absent: the unresolved-symbol phrases that [`localized_code`] gives a code.
/// The line filter includes them, so the fast path (lines without a needle skipped unread) and
/// reading every line agree.
pub fn anchor_needles() -> impl Iterator<Item = &'static str> {
    localized_code::PHRASES.iter().copied()
}

/// Applies `lenses` in order; returns the line unchanged (borrowed) when none applied, and
/// counts the lenses that did.
fn apply_all<'a>(
    lenses: impl IntoIterator<Item = &'static Lens>,
    line: &'a str,
    applied: &mut u64,
) -> Cow<'a, str> {
    let mut text = Cow::Borrowed(line);
    for lens in lenses {
        if let Some(changed) = (lens.apply)(&text) {
            *applied += 1;
            text = Cow::Owned(changed);
        }
    }
    text
}

/// Applies the copy lenses to one physical line (escapes removed, before a repr is expanded);
/// `plain` says whether the line [`is_plain`].
pub fn copy<'a>(line: &'a str, plain: bool, applied: &mut u64) -> Cow<'a, str> {
    if !needs_copy_lenses(line, plain) {
        return Cow::Borrowed(line);
    }
    apply_all(COPY_LENSES, line, applied)
}

/// Whether a line is plain: ASCII with no backslash and no ESC. Nothing that escapes, a repr,
/// the byte-escape lens, typographic quotes or full-width text work on can be in it, so the
/// reader skips their checks (one vectorized pass instead of a search per check; a test checks
/// that each leaves such lines alone).
pub fn is_plain(line: &str) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: SSE2 is part of the x86-64 baseline: every x86-64 processor has it.
        unsafe { is_plain_sse2(line.as_bytes()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    is_plain_portably(line.as_bytes())
}

/// [`is_plain`] 16 bytes at a time with SSE2: a byte is odd when its top bit is set (non-ASCII)
/// or it equals a backslash or ESC; the last 16 bytes are read again rather than a byte at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse2")]
fn is_plain_sse2(bytes: &[u8]) -> bool {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_or_si128, _mm_set1_epi8,
    };
    if bytes.len() < 16 {
        return is_plain_portably(bytes);
    }
    let backslash = _mm_set1_epi8(b'\\' as i8);
    let escape = _mm_set1_epi8(0x1b);
    let odd_in = |at: usize| {
        // SAFETY: `at + 16 <= bytes.len()` at every call below, and an unaligned load reads 16.
        let vector = unsafe { _mm_loadu_si128(bytes.as_ptr().add(at).cast::<__m128i>()) };
        let marked = _mm_or_si128(
            vector,
            _mm_or_si128(
                _mm_cmpeq_epi8(vector, backslash),
                _mm_cmpeq_epi8(vector, escape),
            ),
        );
        _mm_movemask_epi8(marked) != 0
    };
    let mut at = 0;
    while at + 16 <= bytes.len() {
        if odd_in(at) {
            return false;
        }
        at += 16;
    }
    at == bytes.len() || !odd_in(bytes.len() - 16)
}

/// [`is_plain`] a byte at a time: the other architectures' form, short lines' form on x86-64,
/// and the vector form's reference in the tests.
fn is_plain_portably(bytes: &[u8]) -> bool {
    !bytes.iter().fold(false, |odd, &b| {
        odd | (b >= 0x80) | (b == b'\\') | (b == 0x1b)
    })
}

/// Whether a copy lens may change `line`: Markdown at its start or end, a backslash before an
/// escapable character, a non-ASCII character (quotes, full-width digits) or `LNK` followed by a
/// space, a dash or an underscore. One pass over the line instead of one per lens; a test checks
/// that every copy lens leaves the lines this rules out unchanged.
fn needs_copy_lenses(line: &str, plain: bool) -> bool {
    let bytes = line.as_bytes();
    let text = line.trim_ws_start();
    // lld-link's `>>> ` is not a quote.
    let arrow = text.starts_with(">>> ") || text.starts_with(">>>\t");
    let first = text.as_bytes().first();
    let last = bytes.iter().rev().find(|b| !b.is_ascii_whitespace());
    (!arrow && matches!(first, Some(b'`' | b'>' | b'#' | b'-' | b'*' | b'+')))
        || last == Some(&b'`')
        || (!plain
            && (!line.is_ascii()
                || memchr::memchr_iter(b'\\', bytes).any(|at| {
                    bytes
                        .get(at + 1)
                        .is_some_and(|next| markdown::ESCAPABLE.contains(next))
                })))
        || crate::read::linklog::parse::lnk_positions(bytes)
            .any(|at| matches!(bytes.get(at + 3), Some(b' ' | b'-' | b'_')))
        || (memchr::memchr(b'&', bytes).is_some() && html::has_reference(line))
}

/// Applies the tool lenses to one physical line (or one line of an expanded repr); `plain` says
/// whether the line [`is_plain`], and then the byte-escape lens, which needs a backslash, is not
/// tried.
pub fn tool<'a>(line: &'a str, plain: bool, applied: &mut u64) -> Cow<'a, str> {
    let lenses = TOOL_LENSES
        .iter()
        .filter(|lens| !(plain && lens.name == BYTE_ESCAPES));
    apply_all(lenses, line, applied)
}

/// Applies the copy and tool lenses to one physical line (escapes and reprs already removed);
/// returns the line and its width on the console (`console_width`, measured between the two).
pub fn paste<'a>(line: &'a str, applied: &mut u64) -> (Cow<'a, str>, usize) {
    let copied = apply_all(COPY_LENSES, line, applied);
    let width = super::console_width(&copied);
    let text = match copied {
        Cow::Borrowed(line) => apply_all(TOOL_LENSES, line, applied),
        Cow::Owned(copied) => match apply_all(TOOL_LENSES, &copied, applied) {
            Cow::Owned(changed) => Cow::Owned(changed),
            Cow::Borrowed(_) => Cow::Owned(copied),
        },
    };
    (text, width)
}

/// Undoes only what the copy did (Markdown, quotes) to a line: for the rest of a line the console
/// cut, which no build tool printed on its own. With its width on the console.
pub fn copied<'a>(line: &'a str, applied: &mut u64) -> (Cow<'a, str>, usize) {
    let copied = apply_all(COPY_LENSES, line, applied);
    let width = super::console_width(&copied);
    (copied, width)
}

/// Applies the record lenses to one logical line, just before it is parsed.
pub fn record<'a>(line: &'a str, applied: &mut u64) -> Cow<'a, str> {
    if !needs_record_lenses(line) {
        return Cow::Borrowed(line);
    }
    apply_all(RECORD_LENSES, line, applied)
}

/// Whether any record lens may change `line`: false for the shapes most lines of a log have (a
/// plain link.exe record, a plain lld-link line, a `>>>` line, a line with no code, no lld and no
/// unresolved-symbol phrase), decided with one search per anchor instead of one per lens. A test
/// checks that every lens leaves the lines this rules out unchanged.
fn needs_record_lenses(line: &str) -> bool {
    let bytes = line.as_bytes();
    let text = line.trim_ws_start();
    if text.starts_with(">>>") {
        return false;
    }
    if elided::may_apply(line) {
        return true;
    }
    if text.starts_with("lld-link: error: ") || text.starts_with("lld-link: warning: ") {
        return decorations::may_apply(bytes);
    }
    let f = finders();
    match find_code(line) {
        Some(at) => {
            // A plain record: `OBJECT : severity LNKnnnn: ...`, no IDE residue.
            let after = line[at + 7..].trim_start_matches([' ', '\t']);
            let before = &line[..at];
            !after.starts_with(':')
                || before.trim_ws_end().ends_with(':')
                || !bare_record::has_object_column(before)
                || decorations::may_apply(bytes)
        }
        None if f.lld.find(bytes).is_some() => true,
        None => localized_code::may_apply(text) || f.command_failed.find(bytes).is_some(),
    }
}

/// Whether `text` starts, after spaces, with a severity word of the Visual Studio Error List or
/// of link.exe in one of the languages Visual Studio ships (`Error`, `错误`, `Fehler`, ...).
/// Returns the rest after the word.
pub(crate) fn strip_severity_word(text: &str) -> Option<&str> {
    /// Severity column words (and link.exe's `error`/`warning`), lowercase for the ASCII ones.
    const WORDS: &[&str] = &[
        "fatal error",
        "error",
        "warning",
        "severity",
        "message",
        // de, fr, es, it, pt-BR, pl, cs, tr
        "fehler",
        "warnung",
        "erreur",
        "avertissement",
        "advertencia",
        "errore",
        "avviso",
        "erro",
        "aviso",
        "błąd",
        "ostrzeżenie",
        "chyba",
        "upozornění",
        "hata",
        "uyarı",
        // zh-CN, zh-TW, ja, ko, ru
        "错误",
        "錯誤",
        "警告",
        "エラー",
        "오류",
        "경고",
        "ошибка",
        "предупреждение",
    ];
    let trimmed = text.trim_ws_start();
    WORDS.iter().find_map(|word| {
        let head = trimmed.get(..word.len())?;
        if !head.eq_ignore_ascii_case(word) && head.to_lowercase() != *word {
            return None;
        }
        let rest = &trimmed[word.len()..];
        // A whole word: not `errors`, not `Errorlevel`.
        (!rest.starts_with(|c: char| c.is_alphanumeric())).then_some(rest)
    })
}

/// Substring searchers the lenses share, built once: building a searcher costs more than a
/// search of one line.
pub(crate) struct Finders {
    pub(crate) lnk: memchr::memmem::Finder<'static>,
    pub(crate) lld: memchr::memmem::Finder<'static>,
    pub(crate) arrows: memchr::memmem::Finder<'static>,
    pub(crate) undefined_reference: memchr::memmem::Finder<'static>,
    pub(crate) undefined_symbol: memchr::memmem::Finder<'static>,
    pub(crate) error_colon: memchr::memmem::Finder<'static>,
    pub(crate) warning_colon: memchr::memmem::Finder<'static>,
    pub(crate) rust_lld: memchr::memmem::Finder<'static>,
    pub(crate) command_failed: memchr::memmem::Finder<'static>,
    pub(crate) unresolved: memchr::memmem::Finder<'static>,
}

/// The shared searchers.
pub(crate) fn finders() -> &'static Finders {
    static F: std::sync::OnceLock<Finders> = std::sync::OnceLock::new();
    F.get_or_init(|| Finders {
        lnk: memchr::memmem::Finder::new("LNK"),
        lld: memchr::memmem::Finder::new("lld"),
        arrows: memchr::memmem::Finder::new(">>>"),
        undefined_reference: memchr::memmem::Finder::new("undefined reference"),
        undefined_symbol: memchr::memmem::Finder::new("undefined symbol"),
        error_colon: memchr::memmem::Finder::new("error: "),
        warning_colon: memchr::memmem::Finder::new("warning: "),
        rust_lld: memchr::memmem::Finder::new("rust-lld"),
        command_failed: memchr::memmem::Finder::new("nker command failed"),
        unresolved: memchr::memmem::Finder::new("nresolved"),
    })
}

/// The position of the first `LNKnnnn` (four ASCII digits, not followed by a fifth) in `text`.
pub(crate) fn find_code(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    crate::read::linklog::parse::lnk_positions(bytes).find(|&at| {
        bytes
            .get(at + 3..at + 7)
            .is_some_and(|d| d.iter().all(u8::is_ascii_digit))
            && !bytes.get(at + 7).is_some_and(u8::is_ascii_digit)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lines of every shape the lenses know, and lines they must leave alone.
    const SAMPLES: &[&str] = &[
        "``main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main``",
        "> > 1>x.obj : error LNK2001: unresolved external symbol \\_\\_imp\\_CreateFileW",
        "### error LNK2001: unresolved external symbol foo",
        "3>lld-link: : error : undefined symbol: hipFree",
        "3>>>> referenced by k.obj:(f)",
        "lib.rlib(x.obj) : error LNK2019:",
        "a.obj : error LNK 2001: unresolved external symbol bar",
        "无法解析的外部符号 __std_search_1，函数 \"f\" (?f@@YAXXZ) 中引用了该符号",
        "a.obj : error LNK2038: \\x93RuntimeLibrary\\x94 mismatch",
        "LINK : fatal error LNK1104: 无法打开文件“spirv-cross-cored.lib”",
        "Error    LNK2001    unresolved external symbol __CxxFrameHandler4    casparcg    C:\\b\\w.lib(m.obj)    1",
        "error: lld-link: undefined symbol: _main",
        "clang++: error: linker command failed with exit code 1120 (use -v to see invocation)",
        ":-1: error: LNK2019: unresolved external symbol foo referenced in function main",
        "a.obj : error LNK2019: unresolved external symbol __imp__RegisterHotKey @ 16 referenced in function _main",
        "a.obj : error LNK2001: unresolved external symbol \"void __cdecl f(int)\" (?f@@YA XH@Z)",
        "a.obj : error LNK2019: unresolved external symbol \"void __cdecl f(class std::basic_string<...",
        "7>1>>               obj/k.obj:(f)",
        "LNK1009\tunresolved \\\\\\\\\\_x \\\\\\?y",
        "plain text with C:\\_work\\x.obj and no record",
        "[1/2] clang-cl /MD /c a.cpp",
        "",
    ];

    #[test]
    fn plainness_is_the_same_a_vector_or_a_byte_at_a_time() {
        // Every length from 0 to 70, each odd byte (and a plain byte) at every position: the
        // vector form's chunks, its re-read last 16 bytes and the short lines' path.
        for length in 0..=70 {
            for odd in [b'a', b'\\', 0x1b, 0x80, 0xff] {
                for at in 0..length.max(1) {
                    let mut bytes = vec![b'x'; length];
                    if length > 0 {
                        bytes[at] = odd;
                    }
                    let text = String::from_utf8_lossy(&bytes);
                    assert_eq!(
                        is_plain(&text),
                        is_plain_portably(text.as_bytes()),
                        "length {length}, byte {odd:#x} at {at}"
                    );
                    assert_eq!(is_plain(&text), length == 0 || odd == b'a');
                }
            }
        }
    }

    #[test]
    fn every_lens_is_idempotent() {
        for lens in COPY_LENSES.iter().chain(TOOL_LENSES).chain(RECORD_LENSES) {
            for sample in SAMPLES {
                if let Some(once) = (lens.apply)(sample) {
                    assert_eq!(
                        (lens.apply)(&once),
                        None,
                        "{lens:?} on {sample:?} -> {once:?}"
                    );
                }
            }
        }
    }

    #[test]
    fn plain_records_pass_unchanged() {
        let plain = [
            "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main",
            "lld-link: error: undefined symbol: __declspec(dllimport) _CrtDbgReport",
            ">>> referenced by C:\\a\\k.obj:(f)",
            "x.exe : fatal error LNK1120: 2 unresolved externals",
            "Error\tLNK2001\tunresolved external symbol __CxxFrameHandler4\tcasparcg\tC:\\b\\w.lib(m.obj)\t1\t",
            "cl /nologo /MD /EHsc x.cpp",
        ];
        for line in plain {
            let mut applied = 0;
            let pasted = paste(line, &mut applied).0.into_owned();
            let recorded = record(&pasted, &mut applied);
            assert_eq!(recorded, line, "{line:?}");
            assert_eq!(applied, 0, "{line:?}");
        }
    }

    /// A plain line ([`is_plain`]) has no escape to strip, is no Python repr, and neither the
    /// byte-escape lens nor the copy gate's non-ASCII and backslash checks find work in it, so
    /// the reader's shortcuts change nothing; lines that are not plain are told apart.
    #[test]
    fn a_plain_line_needs_no_escape_repr_or_byte_check() {
        let mut lines: Vec<String> = SAMPLES.iter().map(|s| s.to_string()).collect();
        lines.extend(
            [
                "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main",
                "a.obj : error LNK2038: mismatch detected for 'RuntimeLibrary': value 'MT_StaticRelease' doesn't match value 'MD_DynamicRelease' in b.obj",
                ">>> referenced by k.obj:(f)",
                "x.obj : error LNK2001: unresolved external symbol `foo`",
                "b'lld-link: error: undefined symbol: f'",
                "\u{1b}[31mlld-link: error: undefined symbol: f",
            ]
            .map(String::from),
        );
        let mut plain = 0;
        for line in &lines {
            let mut applied = 0;
            if is_plain(line) {
                plain += 1;
                assert!(matches!(
                    crate::read::linklog::clean::strip_escapes(line),
                    Cow::Borrowed(_)
                ));
                assert!(
                    !crate::read::linklog::clean::looks_like_python_repr(line),
                    "{line:?}"
                );
                assert_eq!(byte_escapes::apply(line), None, "{line:?}");
                assert_eq!(
                    needs_copy_lenses(line, true),
                    needs_copy_lenses(line, false),
                    "{line:?}"
                );
                assert_eq!(
                    tool(line, true, &mut applied),
                    tool(line, false, &mut applied),
                    "{line:?}"
                );
                assert_eq!(
                    copy(line, true, &mut applied),
                    copy(line, false, &mut applied),
                    "{line:?}"
                );
            } else {
                assert!(
                    !line.is_ascii() || line.contains('\\') || line.contains('\u{1b}'),
                    "{line:?}"
                );
            }
        }
        assert!(
            plain >= 8 && plain < lines.len(),
            "{plain} of {}",
            lines.len()
        );
    }

    /// The lines `needs_copy_lenses` rules out are left unchanged by every copy lens.
    #[test]
    fn the_copy_gate_skips_only_what_no_lens_changes() {
        let mut lines: Vec<&str> = SAMPLES.to_vec();
        lines.extend([
            "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main",
            ">>> referenced by C:\\src\\k1.cpp:12",
            "[1/2] clang-cl /nologo /MD /c k.cpp /Fok.obj",
            "a.obj : error LNK2001: x\\_y",
            "LNK 2001",
            "x`",
        ]);
        for line in lines {
            if needs_copy_lenses(line, is_plain(line)) {
                continue;
            }
            for lens in COPY_LENSES {
                assert_eq!((lens.apply)(line), None, "{lens:?} changes {line:?}");
            }
        }
    }

    /// The lines `needs_record_lenses` rules out are left unchanged by every record lens.
    #[test]
    fn the_record_gate_skips_only_what_no_lens_changes() {
        let mut lines: Vec<String> = SAMPLES.iter().map(|s| s.to_string()).collect();
        lines.extend(
            [
                "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main",
                "lld-link: error: undefined symbol: __declspec(dllimport) _CrtDbgReport",
                "lld-link: error: undefined symbol: void __cdecl f(int) ...",
                ">>> referenced by C:\\a\\k.obj:(f)",
                "x.exe : fatal error LNK1120: 2 unresolved externals",
                "a.obj : error LNK2001: unresolved external symbol \"f\" (?f@@YAXXZ)",
                "cl /nologo /MD /EHsc x.cpp",
                "Severity\tCode\tDescription",
                "symbole externe non résolu",
            ]
            .iter()
            .map(|s| s.to_string()),
        );
        for line in &lines {
            if needs_record_lenses(line) {
                continue;
            }
            for lens in RECORD_LENSES {
                assert_eq!((lens.apply)(line), None, "{lens:?} changes {line:?}");
            }
        }
    }

    #[test]
    fn severity_words() {
        assert_eq!(strip_severity_word("错误\t1"), Some("\t1"));
        assert_eq!(strip_severity_word("  Fehler x"), Some(" x"));
        assert_eq!(strip_severity_word("Errors"), None);
        assert_eq!(strip_severity_word("fatal error LNK1120"), Some(" LNK1120"));
    }
}
