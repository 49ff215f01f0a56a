//! The error code respelled: a space or dash inside it, or full-width digits (an East Asian input
//! method).
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

/// Rewrites respelled codes (`LNK 2001`, `LNK-2001`, `LNK２０１９`) as `LNK2001`. (A lowercase
/// `lnk2019` is not read: the line filter would have to read every line with `lnk` in it.)
pub fn apply(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    let lnk = &super::finders().lnk;
    // Most lines hold plain codes only: find one to rewrite before building a new line.
    lnk.find_iter(bytes)
        .find(|&at| respelled(&line[at + 3..]).is_some())?;
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = lnk.find(rest.as_bytes()) {
        out.push_str(&rest[..at + 3]);
        let after = &rest[at + 3..];
        match respelled(after) {
            Some((digits, used)) => {
                out.push_str(&digits);
                rest = &after[used..];
            }
            None => rest = after,
        }
    }
    out.push_str(rest);
    Some(out)
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
        assert_eq!(apply("error lnk2019: z"), None);
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
