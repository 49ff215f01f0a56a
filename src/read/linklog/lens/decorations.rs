//! Spaces inside a decorated name: a hand copy or a forum's formatting puts them around the `@`
//! of an x86 decoration, and a console wrap re-joined with a space splits a mangled C++ name.
//!
//! Real shapes:
//!
//! ```text
//! a.obj : error LNK2019: unresolved external symbol __imp__RegisterHotKey @ 16 referenced in function _main
//! b.obj : error LNK2005: "public: bool __thiscall type_info::operator!=(class type_info const &)const " (??9type_info@@QBE_ NABV0@@Z) already defined in LIBCMT.lib(typinfo.obj)
//! ```
//!
//! become `__imp__RegisterHotKey@16` and `(??9type_info@@QBE_NABV0@@Z)`. A mangled name outside
//! parentheses (`?f@@YA XXZ`) is joined only when the joined name demangles and its first piece
//! alone does not.

use regex::Regex;
use std::sync::LazyLock;

/// The patterns, each compiled on its first use.
struct Patterns {
    at_bytes: LazyLock<Regex>,
    in_parentheses: LazyLock<Regex>,
    bare: LazyLock<Regex>,
}

fn patterns() -> &'static Patterns {
    static P: Patterns = Patterns {
        at_bytes: LazyLock::new(|| {
            Regex::new(r"(?P<name>[A-Za-z0-9_?$])(?:\s+@\s*|@\s+)(?P<n>\d+)\b").expect("pattern")
        }),
        in_parentheses: LazyLock::new(|| {
            Regex::new(r#""\s*\((?P<name>(?:__imp_)?\?[A-Za-z0-9_?@$]+(?:\s+[A-Za-z0-9_?@$]+)+)\)"#)
                .expect("pattern")
        }),
        bare: LazyLock::new(|| {
            Regex::new(r"(?:^|\s)(?P<a>(?:__imp_)?\?[A-Za-z0-9_?@$]+) (?P<b>[A-Za-z0-9_?@$]+)")
                .expect("pattern")
        }),
    };
    &P
}

/// Whether a parenthesised decorated name (`(?`, `(__imp_?`) holds a space before it closes.
fn has_split_in_parentheses(text: &str) -> bool {
    has_split_in_parentheses_bytes(text.as_bytes())
}

/// [`has_split_in_parentheses`] on bytes.
fn has_split_in_parentheses_bytes(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'(', bytes).any(|at| split_in_parentheses_at(bytes, at))
}

/// Whether the `(` at `at` opens a decorated name (`(?`, `(__imp_?`) that holds a space before it
/// closes.
fn split_in_parentheses_at(bytes: &[u8], at: usize) -> bool {
    let inside = &bytes[at + 1..];
    let inside = inside.strip_prefix(b"__imp_").unwrap_or(inside);
    inside.first() == Some(&b'?')
        && inside
            .iter()
            .take_while(|&&b| b != b')' && b != b'"' && b != b'(')
            .any(u8::is_ascii_whitespace)
}

/// Whether the `?` at `at` starts a bare mangled name (`?f@@YA`, after a space) followed by a
/// space and a piece that may continue it (one with an `@`, or without lowercase letters): the
/// only places where the `bare` pattern can join anything.
fn split_bare_name_at(bytes: &[u8], at: usize) -> bool {
    let name_byte = |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'?' | b'@' | b'$');
    let start = if bytes[..at].ends_with(b"__imp_") {
        at - 6
    } else {
        at
    };
    if start > 0 && !bytes[start - 1].is_ascii_whitespace() {
        return false;
    }
    let end = at + bytes[at..].iter().take_while(|&&b| name_byte(b)).count();
    if bytes.get(end) != Some(&b' ') {
        return false;
    }
    let next = &bytes[end + 1..];
    let piece = &next[..next.iter().take_while(|&&b| name_byte(b)).count()];
    !piece.is_empty() && (piece.contains(&b'@') || !piece.iter().any(u8::is_ascii_lowercase))
}

/// Whether a bare mangled name anywhere in `bytes` is split ([`split_bare_name_at`]).
fn has_split_bare_name(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'?', bytes).any(|at| split_bare_name_at(bytes, at))
}

/// Whether the `@` at `at` has a space on either side.
fn at_has_space(bytes: &[u8], at: usize) -> bool {
    (at > 0 && bytes[at - 1] == b' ') || bytes.get(at + 1) == Some(&b' ')
}

/// Whether an `@` has a space on either side.
fn spaced_at(bytes: &[u8]) -> bool {
    memchr::memchr_iter(b'@', bytes).any(|at| at_has_space(bytes, at))
}

/// Whether `name` demangles (the MSVC demangler accepts it).
fn demangles(name: &str) -> bool {
    crate::read::demangle::demangle(name).warning.is_none()
}

/// Whether a line may hold a decorated name with spaces (the cheap checks of [`apply`]).
pub(super) fn may_apply(bytes: &[u8]) -> bool {
    // Every held record is checked, in one walk over its `@`s and `?`s (a record holds a few of
    // those, and more `(`): a parenthesised name starts `(?` or `(__imp_?`, so each check starts
    // at one of them. Nothing applies to a line without an `@`.
    let mut seen_at = false;
    let mut found = false;
    for at in memchr::memchr2_iter(b'@', b'?', bytes) {
        if bytes[at] == b'@' {
            seen_at = true;
            found = found || at_has_space(bytes, at);
        } else if !found {
            found = (at >= 1 && bytes[at - 1] == b'(' && split_in_parentheses_at(bytes, at - 1))
                || (at >= 7
                    && &bytes[at - 7..at] == b"(__imp_"
                    && split_in_parentheses_at(bytes, at - 7))
                || split_bare_name_at(bytes, at);
        }
        if seen_at && found {
            return true;
        }
    }
    false
}

/// Removes spaces inside decorated names on a record line.
pub fn apply(line: &str) -> Option<String> {
    let bytes = line.as_bytes();
    memchr::memchr(b'@', bytes)?;
    if super::find_code(line).is_none() && super::finders().undefined_symbol.find(bytes).is_none() {
        return None;
    }
    let p = patterns();
    let mut text = std::borrow::Cow::Borrowed(line);
    if spaced_at(text.as_bytes()) {
        let replaced = p.at_bytes.replace_all(&text, |c: &regex::Captures| {
            let n: u64 = c["n"].parse().unwrap_or(1);
            if n.is_multiple_of(4) {
                format!("{}@{}", &c["name"], &c["n"])
            } else {
                c[0].to_string()
            }
        });
        if replaced != text {
            text = std::borrow::Cow::Owned(replaced.into_owned());
        }
    }
    if has_split_in_parentheses(&text) {
        let replaced = p.in_parentheses.replace_all(&text, |c: &regex::Captures| {
            let whole = &c[0];
            let joined: String = c["name"].split_whitespace().collect();
            format!("{}({joined})", &whole[..whole.find('(').unwrap_or(0)])
        });
        if replaced != text {
            text = std::borrow::Cow::Owned(replaced.into_owned());
        }
    }
    if has_split_bare_name(text.as_bytes()) {
        let replaced = p.bare.replace_all(&text, |c: &regex::Captures| {
            let (a, b) = (&c["a"], &c["b"]);
            // A continuation of a mangled name has an `@` or no lowercase letter; a word of the
            // message (`referenced`) has neither.
            let continues = b.contains('@') || !b.bytes().any(|c| c.is_ascii_lowercase());
            let joined = format!("{a}{b}");
            if continues && !demangles(a) && demangles(&joined) {
                let lead = &c[0][..c[0].len() - a.len() - b.len() - 1];
                format!("{lead}{joined}")
            } else {
                c[0].to_string()
            }
        });
        if replaced != text {
            text = std::borrow::Cow::Owned(replaced.into_owned());
        }
    }
    match text {
        std::borrow::Cow::Owned(changed) if changed != line => Some(changed),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gate starting at `@` and `?` answers as one that tries every `@`, `(` and `?`.
    #[test]
    fn the_gate_answers_as_trying_every_start() {
        let reference = |bytes: &[u8]| {
            memchr::memchr(b'@', bytes).is_some()
                && memchr::memchr3_iter(b'@', b'(', b'?', bytes).any(|at| match bytes[at] {
                    b'@' => at_has_space(bytes, at),
                    b'(' => split_in_parentheses_at(bytes, at),
                    _ => split_bare_name_at(bytes, at),
                })
        };
        let pieces = [
            "(", "?", "@", " ", "__imp_", "f", "YA", ")", "\"", "16", "\t",
        ];
        // Every string of up to five pieces.
        let mut texts = vec![String::new()];
        for _ in 0..5 {
            let longer: Vec<String> = texts
                .iter()
                .filter(|t| t.len() < 40)
                .flat_map(|t| pieces.iter().map(move |p| format!("{t}{p}")))
                .collect();
            texts.extend(longer);
            texts.sort();
            texts.dedup();
        }
        assert!(texts.len() > 100_000, "{}", texts.len());
        for text in &texts {
            assert_eq!(
                may_apply(text.as_bytes()),
                reference(text.as_bytes()),
                "{text:?}"
            );
        }
    }

    #[test]
    fn spaces_in_decorations() {
        assert_eq!(
            apply("a.obj : error LNK2019: unresolved external symbol __imp__RegisterHotKey @ 16 referenced in function _main").as_deref(),
            Some("a.obj : error LNK2019: unresolved external symbol __imp__RegisterHotKey@16 referenced in function _main")
        );
        assert_eq!(
            apply("b : error LNK2005: \"x\" (??9type_info@@QBE_ NABV0@@Z) already defined")
                .as_deref(),
            Some("b : error LNK2005: \"x\" (??9type_info@@QBE_NABV0@@Z) already defined")
        );
        assert_eq!(
            apply("a.obj : error LNK2001: unresolved external symbol ?f@@YA XXZ").as_deref(),
            Some("a.obj : error LNK2001: unresolved external symbol ?f@@YAXXZ")
        );
    }

    #[test]
    fn other_text_is_left_alone() {
        assert_eq!(apply("mail me @ 16 o'clock"), None);
        assert_eq!(
            apply("a.obj : error LNK2001: unresolved external symbol _f@12"),
            None
        );
        assert_eq!(
            apply("a.obj : error LNK2001: unresolved external symbol ?f@@YAXXZ referenced"),
            None
        );
    }
}
