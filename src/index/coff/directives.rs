//! The `.drectve` section of an object: the `/DEFAULTLIB:` and `/ALTERNATENAME:` options.

/// One `.drectve` option the index cares about.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Directive<'a> {
    DefaultLib(&'a [u8]),
    AlternateName(&'a [u8], &'a [u8]),
}

fn trim_quotes(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|&b| b != b'"').unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b != b'"')
        .map_or(start, |e| e + 1);
    &bytes[start..end.max(start)]
}

/// Reads `/DEFAULTLIB:` and `/ALTERNATENAME:` from a `.drectve` section (options are
/// case-insensitive, start with `/` or `-`, may be quoted, and are separated by whitespace or NUL
/// outside quotes).
pub(super) fn parse_directives<'a>(bytes: &'a [u8], mut found: impl FnMut(Directive<'a>)) {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let mut at = 0;
    while at < bytes.len() {
        if bytes[at].is_ascii_whitespace() || bytes[at] == 0 {
            at += 1;
            continue;
        }
        let start = at;
        let mut quoted = false;
        while at < bytes.len() {
            let byte = bytes[at];
            if byte == b'"' {
                quoted = !quoted;
            } else if !quoted && (byte.is_ascii_whitespace() || byte == 0) {
                break;
            }
            at += 1;
        }
        let token = &bytes[start..at];
        let Some(option) = token
            .strip_prefix(b"/")
            .or_else(|| token.strip_prefix(b"-"))
        else {
            continue;
        };
        let Some(colon) = memchr::memchr(b':', option) else {
            continue;
        };
        let (key, value) = (&option[..colon], trim_quotes(&option[colon + 1..]));
        if key.eq_ignore_ascii_case(b"defaultlib") {
            if !value.is_empty() {
                found(Directive::DefaultLib(value));
            }
        } else if key.eq_ignore_ascii_case(b"alternatename") {
            if let Some(equal) = memchr::memchr(b'=', value) {
                found(Directive::AlternateName(
                    trim_quotes(&value[..equal]),
                    trim_quotes(&value[equal + 1..]),
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn directives(bytes: &[u8]) -> Vec<Directive<'_>> {
        let mut found = Vec::new();
        parse_directives(bytes, |d| found.push(d));
        found
    }

    #[test]
    fn directives_are_split_and_read() {
        let found = directives(
            b"\xEF\xBB\xBF   /DEFAULTLIB:\"MSVCRT\" -defaultlib:oldnames /alternatename:_a=_b \
              /EXPORT:x \"/alternatename:\"\"c d\"=e\0/defaultlib:",
        );
        assert_eq!(
            found,
            [
                Directive::DefaultLib(b"MSVCRT"),
                Directive::DefaultLib(b"oldnames"),
                Directive::AlternateName(b"_a", b"_b"),
            ]
        );
        assert!(directives(b"").is_empty());
        assert!(directives(b"\"").is_empty());
        assert_eq!(trim_quotes(b"\"\""), b"");
        assert_eq!(trim_quotes(b"\"a\""), b"a");
    }
}
