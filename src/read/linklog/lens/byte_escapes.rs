//! Byte escapes left by a Rust or Python repr inside a message: `\xNN` for each byte a tool could
//! not print, usually the bytes of a localized message (UTF-8, or the console's code page, such as
//! Windows-1252's `\x93`/`\x94` quotes).
//!
//! A real shape (a Python `str` repr of a log read as Latin-1, link.exe's quotes in code page
//! 1252):
//!
//! ```text
//! a.obj : error LNK2038: mismatch detected for \x93RuntimeLibrary\x94: value \x93MT_StaticRelease\x94 ...
//! x.obj : error LNK2019: \xe6\x97\xa0\xe6\xb3\x95\xe8\xa7\xa3\xe6\x9e\x90\xe7\x9a\x84\xe5\xa4\x96\xe9\x83\xa8\xe7\xac\xa6\xe5\x8f\xb7 hipMalloc
//! ```
//!
//! becomes `... “RuntimeLibrary” ...` (then `"RuntimeLibrary"`, by [`super::quotes`]) and
//! `x.obj : error LNK2019: 无法解析的外部符号 hipMalloc`. Left escaped, `xe6` and `x97` would be
//! read as names. A line needs two escapes of bytes 0x80 and up: one `\xNN` alone may be a path
//! (`C:\xdev`).

/// Windows-1252's characters for bytes 0x80 to 0x9F (the rest of the code page is Latin-1).
const CP1252_HIGH: [char; 32] = [
    '€', '\u{81}', '‚', 'ƒ', '„', '…', '†', '‡', 'ˆ', '‰', 'Š', '‹', 'Œ', '\u{8d}', 'Ž', '\u{8f}',
    '\u{90}', '‘', '’', '“', '”', '•', '–', '—', '˜', '™', 'š', '›', 'œ', '\u{9d}', 'ž', 'Ÿ',
];

/// Bytes as text: UTF-8 where they form it, each other byte as its Windows-1252 character.
pub fn decode_bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push(match b {
                0x80..=0x9f => CP1252_HIGH[usize::from(b - 0x80)],
                _ => char::from(b),
            });
        }
    }
    out
}

/// The byte of a `\xNN` escape at `at`, if there is one.
fn escape_at(bytes: &[u8], at: usize) -> Option<u8> {
    if bytes.get(at) != Some(&b'\\') || bytes.get(at + 1) != Some(&b'x') {
        return None;
    }
    let hex = std::str::from_utf8(bytes.get(at + 2..at + 4)?).ok()?;
    u8::from_str_radix(hex, 16).ok()
}

/// Decodes the runs of `\xNN` escapes in a line that holds at least two of high bytes.
pub fn apply(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let high = memchr::memchr_iter(b'\\', bytes)
        .filter(|&at| escape_at(bytes, at).is_some_and(|b| b >= 0x80))
        .take(2)
        .count();
    if high < 2 {
        return None;
    }
    let mut out = String::with_capacity(line.len());
    let mut run = Vec::new();
    let mut i = 0;
    let mut plain_from = 0;
    while i < bytes.len() {
        if escape_at(bytes, i).is_some() {
            out.push_str(&line[plain_from..i]);
            run.clear();
            while let Some(byte) = escape_at(bytes, i) {
                run.push(byte);
                i += 4;
            }
            out.push_str(&decode_bytes(&run));
            plain_from = i;
            continue;
        }
        i += 1;
    }
    out.push_str(&line[plain_from..]);
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf8_and_code_page_runs() {
        assert_eq!(
            apply(r"x.obj : error LNK2019: \xe6\x97\xa0\xe6\xb3\x95 hipMalloc").as_deref(),
            Some("x.obj : error LNK2019: 无法 hipMalloc")
        );
        assert_eq!(
            apply(r"for \x93RuntimeLibrary\x94: value").as_deref(),
            Some("for “RuntimeLibrary”: value")
        );
    }

    #[test]
    fn paths_are_left_alone() {
        assert_eq!(apply(r"C:\xdev\a.obj : error LNK2001: x"), None);
        assert_eq!(apply(r"C:\x41\x42"), None);
    }

    #[test]
    fn decoding() {
        assert_eq!(decode_bytes(b"a\x93b\x94"), "a“b”");
        assert_eq!(decode_bytes("é".as_bytes()), "é");
        assert_eq!(decode_bytes(b"\xe9"), "é");
    }
}
