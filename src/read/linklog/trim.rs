//! Whitespace trimming with the result of `str::trim`, cheaper on log text.
//!
//! `str::trim` and its kin decode a character at a time through a generic pattern searcher,
//! which costs tens of instructions even when there is nothing to trim; a record is trimmed a
//! dozen times on its way through the parser. Log text is nearly always ASCII at its edges, so
//! these skip ASCII whitespace a byte at a time and hand the rest to `str::trim` only when a
//! non-ASCII character is at the edge (a no-break or ideographic space is whitespace too).

/// Whether `b` is an ASCII character that `char::is_whitespace` accepts (vertical tab and form
/// feed included): the same six bytes the record patterns' `\s` matches.
pub(crate) const fn is_ascii_whitespace(b: u8) -> bool {
    matches!(b, b'\t' | b'\n' | 0x0b | 0x0c | b'\r' | b' ')
}

/// `trim`, `trim_start` and `trim_end` of `str`, with the same results, ASCII edges first.
pub(crate) trait TrimWhitespace {
    /// `str::trim`: leading and trailing whitespace removed.
    fn trim_ws(&self) -> &str;
    /// `str::trim_start`: leading whitespace removed.
    fn trim_ws_start(&self) -> &str;
    /// `str::trim_end`: trailing whitespace removed.
    fn trim_ws_end(&self) -> &str;
}

impl TrimWhitespace for str {
    fn trim_ws(&self) -> &str {
        self.trim_ws_start().trim_ws_end()
    }

    // Not inlined: one copy for every caller keeps the reader's code small (its instruction
    // cache misses cost more than a call).
    #[inline(never)]
    fn trim_ws_start(&self) -> &str {
        let bytes = self.as_bytes();
        let at = bytes
            .iter()
            .position(|&b| !is_ascii_whitespace(b))
            .unwrap_or(bytes.len());
        // `at` is the end of an ASCII run: a character boundary.
        let rest = &self[at..];
        match bytes.get(at) {
            Some(&b) if b >= 0x80 => rest.trim_start(),
            _ => rest,
        }
    }

    #[inline(never)]
    fn trim_ws_end(&self) -> &str {
        let bytes = self.as_bytes();
        let end = bytes
            .iter()
            .rposition(|&b| !is_ascii_whitespace(b))
            .map_or(0, |last| last + 1);
        let rest = &self[..end];
        if end > 0 && bytes[end - 1] >= 0x80 {
            rest.trim_end()
        } else {
            rest
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_exactly_like_str() {
        // Every string of up to four characters over an alphabet of ASCII and Unicode
        // whitespace, near misses (U+001C, U+200B, which are not whitespace) and letters.
        let alphabet = [
            ' ', '\t', '\n', '\u{0b}', '\u{0c}', '\r', '\u{1c}', '\u{85}', '\u{a0}', '\u{2003}',
            '\u{200b}', '\u{3000}', 'a', 'é', '中',
        ];
        let mut text = String::new();
        let mut checked = 0;
        for length in 0..=4u32 {
            for mut n in 0..alphabet.len().pow(length) {
                text.clear();
                for _ in 0..length {
                    text.push(alphabet[n % alphabet.len()]);
                    n /= alphabet.len();
                }
                assert_eq!(text.trim_ws(), text.trim(), "{text:?}");
                assert_eq!(text.trim_ws_start(), text.trim_start(), "{text:?}");
                assert_eq!(text.trim_ws_end(), text.trim_end(), "{text:?}");
                checked += 1;
            }
        }
        assert_eq!(checked, 1 + 15 + 225 + 3375 + 50625);
    }
}
