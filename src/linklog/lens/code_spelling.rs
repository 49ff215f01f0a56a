//! The error code respelled: a space or dash inside it, full-width digits (an East Asian input
//! method), or lower case.
//!
//! A real title and its log, as people type them:
//!
//! ```text
//! main.obj : error LNK 2001: unresolved external symbol compare256_unaligned_16
//! LNK２０１９ when i use uwebsocket
//! ```
//!
//! The first becomes `main.obj : error LNK2001: ...`; the second `LNK2019 when i use uwebsocket`
//! (a code, but no record: the record parser decides).

/// The beginnings of a lowercase code (`lnk2019`, `lnk1120`, `lnk4098`), for the line filter.
pub const LOWERCASE_CODES: &[&str] = &["lnk1", "lnk2", "lnk4"];

/// The ASCII digit a full-width one (U+FF10..U+FF19) or an ASCII one stands for.
fn digit(c: char) -> Option<char> {
    match c {
        '0'..='9' => Some(c),
        '\u{ff10}'..='\u{ff19}' => char::from_u32(u32::from(c) - 0xff10 + u32::from('0')),
        _ => None,
    }
}

/// The respelled code at the start of `text` (after `LNK`): its ASCII digits and the byte length
/// it took, when it is not already the plain `LNKnnnn`.
fn respelled(text: &str) -> Option<(String, usize)> {
    let mut chars = text.char_indices().peekable();
    let mut separated = false;
    if let Some(&(_, c)) = chars.peek() {
        if c == ' ' || c == '-' || c == '_' {
            separated = true;
            chars.next();
        }
    }
    let mut digits = String::new();
    let mut end = 0;
    let mut wide = false;
    for (at, c) in chars.by_ref() {
        match digit(c) {
            Some(d) if digits.len() < 4 => {
                wide |= !c.is_ascii_digit();
                digits.push(d);
                end = at + c.len_utf8();
            }
            _ => break,
        }
        if digits.len() == 4 {
            break;
        }
    }
    let next = text[end..].chars().next();
    let complete = digits.len() == 4 && next.is_none_or(|c| digit(c).is_none());
    (complete && (separated || wide)).then_some((digits, end))
}

/// Rewrites respelled codes (`LNK 2001`, `LNK-2001`, `LNK２０１９`, `lnk2019`) as `LNK2001`.
pub fn apply(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let upper = memchr::memmem::find(bytes, b"LNK").is_some();
    let lower = !upper && memchr::memmem::find(bytes, b"lnk").is_some();
    if !upper && !lower {
        return None;
    }
    // Most lines hold plain codes only: find one to rewrite before building a new line.
    let needs = (0..bytes.len().saturating_sub(2)).any(|at| {
        let head = &bytes[at..at + 3];
        (head == b"LNK" && respelled(&line[at + 3..]).is_some())
            || (head == b"lnk" && line.is_char_boundary(at + 3))
    });
    if !needs {
        return None;
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    let mut changed = false;
    while let Some(at) = rest.find("LNK").or_else(|| rest.find("lnk")) {
        out.push_str(&rest[..at]);
        let after = &rest[at + 3..];
        let lowercase = &rest[at..at + 3] == "lnk";
        let plain_lower = lowercase
            && after.len() >= 4
            && after.as_bytes()[..4].iter().all(u8::is_ascii_digit)
            && !after.as_bytes().get(4).is_some_and(u8::is_ascii_digit)
            && !rest[..at].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '.');
        if let Some((digits, used)) = respelled(after) {
            out.push_str("LNK");
            out.push_str(&digits);
            rest = &after[used..];
            changed = true;
        } else if plain_lower {
            out.push_str("LNK");
            rest = after;
            changed = true;
        } else {
            out.push_str(&rest[at..at + 3]);
            rest = after;
        }
    }
    out.push_str(rest);
    changed.then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn respelled_codes() {
        assert_eq!(
            apply("a.obj : error LNK 2001: x").as_deref(),
            Some("a.obj : error LNK2001: x")
        );
        assert_eq!(apply("LNK-1104: y").as_deref(), Some("LNK1104: y"));
        assert_eq!(apply("LNK２０１９ when").as_deref(), Some("LNK2019 when"));
        assert_eq!(
            apply("error lnk2019: z").as_deref(),
            Some("error LNK2019: z")
        );
    }

    #[test]
    fn plain_codes_and_other_text_are_left_alone() {
        assert_eq!(apply("a.obj : error LNK2001: x"), None);
        assert_eq!(apply("LNK 20011"), None);
        assert_eq!(apply("LNK 12"), None);
        assert_eq!(apply("shortcut.lnk1234"), None);
        assert_eq!(apply("no code"), None);
    }
}
