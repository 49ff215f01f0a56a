//! A symbol as the log shows it: `"display" (decorated)`, a quoted text, or a bare name.

use super::ShownName;
use crate::read::linklog::trim::TrimWhitespace;

/// A bare token as a decorated (linker-level) name.
pub(super) fn shown_from_token(token: &str) -> ShownName {
    ShownName {
        display: None,
        decorated: Some(token.to_string()),
    }
}

/// Splits `"display" (decorated)`, `"text"` or a bare name into a [`ShownName`].
pub(super) fn parse_shown(text: &str) -> ShownName {
    let text = text.trim_ws();
    if let Some((display, decorated)) = leading_pair(text) {
        return ShownName {
            display: Some(display.to_string()),
            decorated: Some(decorated.to_string()),
        };
    }
    if text.len() >= 2
        && text.starts_with('"')
        && text.ends_with('"')
        && !text[1..text.len() - 1].contains('"')
    {
        return classify_text(&text[1..text.len() - 1]);
    }
    classify_text(text)
}

/// The `"display" (decorated)` pair at the start of `text`, as the `pair` pattern would match
/// it there (parsed by hand: this runs for every record of a log).
pub(super) fn leading_pair(text: &str) -> Option<(&str, &str)> {
    let inner = text.strip_prefix('"')?;
    let close = inner.find('"')?;
    let display = &inner[..close];
    let rest = inner[close + 1..].trim_ws_start().strip_prefix('(')?;
    let end = name_end(rest)?;
    (end > 0 && rest[end..].starts_with(')')).then(|| (display, &rest[..end]))
}

/// Where a decorated name that starts `text` ends: at the first whitespace, `(`, `)` or `"`.
/// Bytewise over ASCII (every record has one), decoding only a non-ASCII character.
fn name_end(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        let b = bytes[at];
        if b < 0x80 {
            if matches!(b, b'(' | b')' | b'"') || char::from(b).is_whitespace() {
                return Some(at);
            }
            at += 1;
        } else {
            let c = text[at..].chars().next()?;
            if c.is_whitespace() {
                return Some(at);
            }
            at += c.len_utf8();
        }
    }
    None
}

/// A name without a decorated form: a linker-level name when it has no spaces, else display text.
pub(super) fn classify_text(text: &str) -> ShownName {
    if text.is_empty() || text.chars().any(char::is_whitespace) {
        ShownName {
            display: Some(text.to_string()),
            decorated: None,
        }
    } else {
        shown_from_token(text)
    }
}

/// [`shown_display`] of [`parse_shown`], without building the pair it does not keep.
pub(super) fn shown_function(text: &str) -> String {
    match leading_pair(text.trim_ws()) {
        Some((display, _)) => display.to_string(),
        None => shown_display(&parse_shown(text)),
    }
}

/// The best text for a referencing function: the display form, else the decorated name.
pub(super) fn shown_display(name: &ShownName) -> String {
    name.display
        .clone()
        .or_else(|| name.decorated.clone())
        .unwrap_or_default()
}
