//! Values from linker texts in any language Visual Studio ships: the quoted tokens whatever the
//! quotes (`'x'`, `"x"`, `“x”`, `«x»`, `「x」`, full-width `＂x＂`), file names (objects,
//! libraries, `lib(member)` and `lib (member)`), machine names and the first symbol of a record.
//! Translations change the words around these tokens, never the tokens (docs/RULES.md §8).

use crate::machine::Machine;

/// Opening and closing quote pairs, ASCII first.
const QUOTES: &[(char, char)] = &[
    ('\'', '\''),
    ('"', '"'),
    ('“', '”'),
    ('”', '”'),
    ('„', '“'),
    ('„', '”'),
    ('‘', '’'),
    ('‚', '‘'),
    ('«', '»'),
    ('»', '«'),
    ('「', '」'),
    ('『', '』'),
    ('＂', '＂'),
    ('＇', '＇'),
];

/// Whether `c` is an East Asian ideograph, kana, hangul or full-width form: glued to a token in
/// CJK texts (`PCN.obj中定义`), never part of a linker name.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x2E80..=0x2FFF | 0x3000..=0x303F | 0x3040..=0x30FF | 0x3100..=0x9FFF | 0xAC00..=0xD7AF
        | 0xF900..=0xFAFF | 0xFF00..=0xFFEF)
}

/// The quoted tokens of a text, in order, whatever the quotes. An ASCII `'` opens only after a
/// space, a bracket or punctuation and closes only before one, so `doesn't` and `d'ouvrir` are
/// words, not quotes.
pub(crate) fn quoted(text: &str) -> Vec<String> {
    let chars: Vec<(usize, char)> = text.char_indices().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let (at, c) = chars[i];
        let Some(&(_, close)) = QUOTES.iter().find(|(open, _)| *open == c) else {
            i += 1;
            continue;
        };
        if c == '\'' {
            let before = i.checked_sub(1).map(|j| chars[j].1);
            if before.is_some_and(|b| b.is_alphanumeric() && !is_cjk(b)) {
                i += 1;
                continue;
            }
        }
        let end = (i + 1..chars.len()).find(|&j| {
            chars[j].1 == close
                && (close != '\''
                    || chars
                        .get(j + 1)
                        .is_none_or(|(_, n)| !n.is_alphanumeric() || is_cjk(*n)))
        });
        match end {
            Some(j) => {
                let inner = &text[at + c.len_utf8()..chars[j].0];
                if !inner.trim().is_empty() {
                    out.push(inner.to_string());
                }
                i = j + 1;
            }
            None => i += 1,
        }
    }
    out
}

/// File name extensions a linker message names: objects, libraries, images, PDBs, resources.
const EXTENSIONS: &[&str] = &[
    "obj", "o", "lib", "a", "rlib", "dll", "exe", "pyd", "node", "pdb", "res", "exp", "def", "sys",
    "ocx", "ilk",
];

/// Whether a character can be part of a file token (paths may hold non-ASCII letters).
fn file_char(c: char) -> bool {
    !(c.is_whitespace()
        || is_cjk(c)
        || QUOTES.iter().any(|(o, q)| *o == c || *q == c)
        || matches!(
            c,
            '(' | ')' | '[' | ']' | '<' | '>' | '|' | ',' | ';' | '{' | '}'
        ))
}

/// The file names a text names, in order, each as shown: `a.obj`, `C:\x\y.lib`,
/// `lib.lib(member.obj)`, `libusb-1.0.lib (core.obj)`, `*.lib`. Quoted paths with spaces are
/// found by [`quoted`], not here.
pub(crate) fn files(text: &str) -> Vec<String> {
    let mut out: Vec<(usize, usize)> = Vec::new();
    let bytes = text.as_bytes();
    for (dot, _) in text.match_indices('.') {
        let ext_len = bytes[dot + 1..]
            .iter()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        let ext = text[dot + 1..dot + 1 + ext_len].to_ascii_lowercase();
        if ext_len == 0 || !EXTENSIONS.contains(&ext.as_str()) {
            continue;
        }
        let end = dot + 1 + ext_len;
        if text[end..].starts_with(|c: char| {
            c == '_'
                || c == '-'
                || c == '.' && {
                    // `x.lib.bak`, `a.o.d`: the extension is not the last one.
                    text[end + 1..].starts_with(|n: char| n.is_ascii_alphanumeric())
                }
        }) {
            continue;
        }
        let start = text[..dot]
            .char_indices()
            .rev()
            .take_while(|(_, c)| file_char(*c))
            .last()
            .map_or(dot, |(i, _)| i);
        if start == dot {
            continue;
        }
        // The `:` of a drive (`C:\x`) belongs; any other (`error:x.obj`) ends what is before.
        let start = match text[start..dot].rfind(':') {
            Some(at) if at != 1 => start + at + 1,
            _ => start,
        };
        if start >= dot {
            continue;
        }
        out.push((start, end));
    }
    // `lib.lib(member.obj)` and `lib.lib (member.obj)`: the member joins its library.
    let mut merged: Vec<String> = Vec::new();
    let mut i = 0;
    while i < out.len() {
        let (start, end) = out[i];
        let lower = text[start..end].to_ascii_lowercase();
        let archive = lower.ends_with(".lib") || lower.ends_with(".rlib") || lower.ends_with(".a");
        if archive {
            if let Some(&(m_start, m_end)) = out.get(i + 1) {
                let between = &text[end..m_start];
                if matches!(between, "(" | " (") && text[m_end..].starts_with(')') {
                    merged.push(text[start..m_end + 1].to_string());
                    i += 2;
                    continue;
                }
            }
        }
        let token = text[start..end].to_string();
        if !merged.contains(&token) {
            merged.push(token);
        }
        i += 1;
    }
    merged
}

/// The library file of a `lib(member)` token or a path: `C:\x\libcmt.lib(a.obj)` → `libcmt.lib`.
pub(crate) fn library_file(token: &str) -> Option<&str> {
    let head = token.split('(').next().unwrap_or(token).trim_end();
    let name = head.rsplit(['\\', '/']).next().unwrap_or(head);
    let lower = name.to_ascii_lowercase();
    (lower.ends_with(".lib") || lower.ends_with(".rlib") || lower.ends_with(".a")).then_some(name)
}

/// The member of a `lib(member)` token.
pub(crate) fn member(token: &str) -> Option<&str> {
    let open = token.find('(')?;
    token[open + 1..].strip_suffix(')').map(str::trim)
}

/// The file name of a path (`C:\x\y.obj` → `y.obj`).
pub(crate) fn file_name(path: &str) -> &str {
    let head = path.split('(').next().unwrap_or(path).trim_end();
    head.rsplit(['\\', '/']).next().unwrap_or(head)
}

/// A machine name as linkers write it (`x86`, `X86`, `x64`, `AMD64`, `ARM64`, `ARM64EC`, `i386`).
pub(crate) fn machine(word: &str) -> Option<Machine> {
    Machine::from_name(word.trim())
}

/// The machines a text names, in order, each with its word: its quoted tokens that are machines,
/// else its words that are (lld-link writes them bare: `machine type x86 conflicts with x64`).
pub(crate) fn machines(text: &str) -> Vec<(Machine, String)> {
    let quoted: Vec<(Machine, String)> = quoted(text)
        .into_iter()
        .filter_map(|q| machine(&q).map(|m| (m, q)))
        .collect();
    if quoted.len() >= 2 {
        return quoted;
    }
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter_map(|w| machine(w).map(|m| (m, w.to_string())))
        .collect()
}

/// The first symbol of a record's text: `"display" (decorated)` gives the decorated name and the
/// display; a bare leading name (`_curl_strequal already defined ...`) is the name itself.
pub(crate) fn first_symbol(text: &str) -> Option<(Option<String>, String)> {
    let text = text.trim_start();
    if let Some(inner) = text.strip_prefix('"') {
        let close = inner.find('"')?;
        let display = &inner[..close];
        let rest = inner[close + 1..].trim_start();
        if let Some(decorated) = rest
            .strip_prefix('(')
            .and_then(|r| r.split(')').next())
            .filter(|d| !d.is_empty() && !d.contains(char::is_whitespace))
        {
            return Some((Some(display.to_string()), decorated.to_string()));
        }
        return (!display.is_empty()).then(|| (None, display.to_string()));
    }
    let name: String = text
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || "_?@$.<>~:".contains(*c))
        .collect();
    let name = name.trim_end_matches([':', '.']);
    (!name.is_empty() && name.contains(|c: char| c.is_ascii_alphabetic() || c == '_'))
        .then(|| (None, name.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_of_every_kind() {
        assert_eq!(
            quoted("mismatch detected for 'RuntimeLibrary': value 'MT_StaticRelease' doesn't match value 'MD_DynamicRelease' in a.obj"),
            ["RuntimeLibrary", "MT_StaticRelease", "MD_DynamicRelease"]
        );
        assert_eq!(
            quoted(
                "检测到“_ITERATOR_DEBUG_LEVEL”的不匹配项: 值“0”不匹配值“2”(costas_array.obj 中)"
            ),
            ["_ITERATOR_DEBUG_LEVEL", "0", "2"]
        );
        assert_eq!(
            quoted("impossible d'ouvrir le fichier 'C:\\x\\fmtlib.lib'"),
            ["C:\\x\\fmtlib.lib"]
        );
        assert_eq!(quoted("can not open input file“LibC.lib”"), ["LibC.lib"]);
        assert_eq!(quoted("«x86» и «x64»"), ["x86", "x64"]);
        assert_eq!(quoted("無法開啟檔案「kernel32.lib」"), ["kernel32.lib"]);
        assert_eq!(quoted("ファイル ＂a.lib＂ を開けません"), ["a.lib"]);
    }

    #[test]
    fn file_tokens() {
        assert_eq!(
            files("_memmove already defined in LIBCMT.lib(memmove.obj)"),
            ["LIBCMT.lib(memmove.obj)"]
        );
        assert_eq!(files("值“2”(costas_array.obj 中)"), ["costas_array.obj"]);
        assert_eq!(files("已经在 PCN.obj中定义"), ["PCN.obj"]);
        assert_eq!(
            files("libusb-1.0.lib (core.obj) : error"),
            ["libusb-1.0.lib (core.obj)"]
        );
        assert_eq!(
            files("x already defined in libwindows-4559bc59f5290596.rlib(icuuc.dll)"),
            ["libwindows-4559bc59f5290596.rlib(icuuc.dll)"]
        );
        assert_eq!(files("cannot open file '*.lib'"), ["*.lib"]);
        assert_eq!(files("C:\\a\\b.lib.bak and x.o.d"), Vec::<String>::new());
        assert_eq!(files("error:x.obj"), ["x.obj"]);
        assert_eq!(library_file("C:\\x\\LIBCMT.lib(a.obj)"), Some("LIBCMT.lib"));
        assert_eq!(member("libusb-1.0.lib (core.obj)"), Some("core.obj"));
    }

    #[test]
    fn machines_and_symbols() {
        assert_eq!(
            machines("模块计算机类型“X86”与目标计算机类型“x64”冲突")
                .iter()
                .map(|m| m.0)
                .collect::<Vec<_>>(),
            [Machine::X86, Machine::X64]
        );
        assert_eq!(
            machines("msvcrt.lib(tlssup.obj): machine type arm64 conflicts with arm64ec")
                .iter()
                .map(|m| m.0)
                .collect::<Vec<_>>(),
            [Machine::Arm64, Machine::Arm64ec]
        );
        assert_eq!(
            first_symbol("\"void __cdecl f(int)\" (?f@@YAXH@Z) already defined in a.obj"),
            Some((Some("void __cdecl f(int)".into()), "?f@@YAXH@Z".into()))
        );
        assert_eq!(
            first_symbol("_curl_strequal already defined in strcase.obj"),
            Some((None, "_curl_strequal".into()))
        );
        assert_eq!(
            first_symbol("_foo이(가) a.obj에"),
            Some((None, "_foo".into()))
        );
    }
}
