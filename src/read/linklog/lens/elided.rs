//! Records a person shortened by hand: the name cut and ended with `...` or `…`, its quote or
//! parenthesis left open.
//!
//! A real paste (the template arguments elided):
//!
//! ```text
//! main.obj : error LNK2019: unresolved external symbol "public: void __cdecl A<...
//! ```
//!
//! becomes `... symbol "public: void __cdecl A<..."`: the name is read as shown, and the open
//! quote no longer swallows the next line as a console wrap would.

use crate::read::linklog::trim::TrimWhitespace;
/// Whether a line ends with an ellipsis (the cheap check of [`apply`]).
pub(super) fn may_apply(line: &str) -> bool {
    let text = line.trim_ws_end();
    text.ends_with("...") || text.ends_with('…')
}

/// Closes the quote and parenthesis a hand-elided record leaves open.
pub fn apply(line: &str) -> Option<String> {
    let text = line.trim_ws_end();
    if !(text.ends_with("...") || text.ends_with('…')) {
        return None;
    }
    if super::find_code(text).is_none() && super::finders().lld.find(text.as_bytes()).is_none() {
        return None;
    }
    let mut out = text.to_string();
    let quotes = memchr::memchr_iter(b'"', text.as_bytes()).count();
    if quotes % 2 == 1 {
        out.push('"');
    }
    let last_quote = out.rfind('"').map_or(0, |q| q + 1);
    let tail = &out[last_quote..];
    let open = tail
        .matches('(')
        .count()
        .saturating_sub(tail.matches(')').count());
    for _ in 0..open {
        out.push(')');
    }
    (out != line).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elided_names() {
        assert_eq!(
            apply("m.obj : error LNK2019: unresolved external symbol \"public: void __cdecl A<...")
                .as_deref(),
            Some(
                "m.obj : error LNK2019: unresolved external symbol \"public: void __cdecl A<...\""
            )
        );
        assert_eq!(
            apply("m.obj : error LNK2019: unresolved external symbol \"f\" (?f@@YA...").as_deref(),
            Some("m.obj : error LNK2019: unresolved external symbol \"f\" (?f@@YA...)")
        );
        assert_eq!(
            apply("m.obj : error LNK2019: unresolved external symbol f referenced in function ..."),
            None
        );
        assert_eq!(apply("Linking..."), None);
    }
}
