//! Markdown around a pasted log: inline code (one to three backticks at both ends of a line),
//! code fences, block quotes (`> `), headings (`### `), list items (`- `), and backslash escapes
//! (`\_\_imp\_X`, `\?f@@YAXXZ`).
//!
//! A real paste, each line of an issue wrapped in double backticks:
//!
//! ```text
//! ``glfw.obj : error LNK2001: unresolved external symbol __imp__glfwGetTime@0``
//! > 1>main.obj : error LNK2019: unresolved external symbol \_\_imp\_CreateFileW referenced in function main
//! ```
//!
//! becomes `glfw.obj : error LNK2001: ...` and `1>main.obj : error LNK2019: ... __imp_CreateFileW ...`.
//! lld-link's `>>>` lines are not quotes: `> >>> referenced by` loses only the quote.

use crate::read::linklog::trim::TrimWhitespace;
/// Characters a Markdown backslash escape stands for, as they appear in link records.
pub(super) const ESCAPABLE: &[u8] = b"\\`*_{}[]()<>#+-.!|?@$~\"'";

/// Removes the Markdown around one line, and its backslash escapes.
pub fn apply(line: &str) -> Option<String> {
    let first = line.trim_ws_start().as_bytes().first().copied();
    let framed = matches!(first, Some(b'`' | b'>' | b'#' | b'-' | b'*' | b'+'))
        || line.trim_ws_end().ends_with('`');
    let bytes = line.as_bytes();
    // A backslash before an escapable character, not a letter or digit (`C:\src` is a path).
    let escaped = memchr::memchr_iter(b'\\', bytes).any(|at| {
        bytes
            .get(at + 1)
            .is_some_and(|next| ESCAPABLE.contains(next))
    }) && has_escape(line);
    if !framed && !escaped {
        return None;
    }
    let unframed = if framed { unframe(line) } else { line };
    let out = if escaped {
        unescape(unframed)
    } else {
        unframed.to_string()
    };
    (out != line).then_some(out)
}

/// The line without quote markers, heading marks, list markers and inline-code backticks.
fn unframe(line: &str) -> &str {
    let mut text = line;
    // Bounded: each round removes at least one character or stops.
    for _ in 0..8 {
        let trimmed = text.trim_ws_start();
        let next = if trimmed.starts_with(">>>") && !trimmed.starts_with(">>>>") {
            // lld-link's own arrow.
            None
        } else if let Some(rest) = trimmed.strip_prefix('>') {
            Some(rest.strip_prefix(' ').unwrap_or(rest))
        } else if let Some(rest) = heading(trimmed) {
            Some(rest)
        } else if let Some(rest) = ["- ", "* ", "+ "]
            .iter()
            .find_map(|marker| trimmed.strip_prefix(marker))
        {
            Some(rest)
        } else if trimmed.starts_with('`') || trimmed.ends_with('`') {
            let info = trimmed.trim_start_matches('`');
            if trimmed.starts_with("```")
                && info.chars().all(|c| c.is_ascii_alphanumeric() || c == '-')
            {
                // A fence line: "```", "```text", "```console".
                Some("")
            } else {
                Some(strip_backticks(trimmed))
            }
        } else {
            None
        };
        match next {
            Some(rest) if rest.len() < text.len() => text = rest,
            _ => break,
        }
    }
    text
}

/// `### text` (one to six `#` and a space) to `text`.
fn heading(text: &str) -> Option<&str> {
    let marks = text.bytes().take_while(|&b| b == b'#').count();
    if (1..=6).contains(&marks) {
        text[marks..].strip_prefix(' ')
    } else {
        None
    }
}

/// Removes a run of one to three backticks at the start and at the end of a line (inline code,
/// or the first and last line of inline code spanning several lines).
fn strip_backticks(text: &str) -> &str {
    let trimmed = text.trim_ws();
    let lead = trimmed.bytes().take_while(|&b| b == b'`').count();
    let trail = trimmed.bytes().rev().take_while(|&b| b == b'`').count();
    if lead == 0 && trail == 0 {
        return text;
    }
    if lead == trimmed.len() {
        return "";
    }
    // The inside as it is: a console wrap's continuation indent is part of it.
    let inner = &trimmed[lead.min(3)..trimmed.len() - trail.min(3)];
    match inner.strip_prefix(' ').and_then(|i| i.strip_suffix(' ')) {
        // Markdown's padding (`` `` x `` ``), one space each side.
        Some(padded) if !padded.starts_with(' ') => padded,
        _ => inner,
    }
}

/// Whether a token of `line` holds a Markdown escape (and is not a Windows path).
fn has_escape(line: &str) -> bool {
    line.split_whitespace()
        .any(|token| escapes_in(token).is_some())
}

/// Whether `token` holds backslash escapes and nothing that makes it a path: a path has a
/// backslash before a letter or digit (`C:\a\_work`), or `:\`.
fn escapes_in(token: &str) -> Option<()> {
    let bytes = token.as_bytes();
    let mut found = false;
    for (i, &b) in bytes.iter().enumerate() {
        if b != b'\\' {
            continue;
        }
        match bytes.get(i + 1) {
            Some(next) if next.is_ascii_alphanumeric() => return None,
            Some(next) if ESCAPABLE.contains(next) => found = true,
            _ => {}
        }
        // A drive (`C:\`), not a scope (`std::\_X`).
        let drive = i >= 2
            && bytes[i - 1] == b':'
            && bytes[i - 2].is_ascii_alphabetic()
            && (i == 2 || !(bytes[i - 3].is_ascii_alphanumeric() || bytes[i - 3] == b':'));
        if drive {
            return None;
        }
    }
    found.then_some(())
}

/// Undoes the escapes in every token that holds them (not in paths).
fn unescape(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while !rest.is_empty() {
        let space = rest
            .find(|c: char| !c.is_whitespace())
            .unwrap_or(rest.len());
        out.push_str(&rest[..space]);
        rest = &rest[space..];
        let end = rest.find(char::is_whitespace).unwrap_or(rest.len());
        let token = &rest[..end];
        if escapes_in(token).is_some() {
            let mut chars = token.chars().peekable();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    if let Some(&next) = chars.peek() {
                        // An escaped backslash stays two: undone, it could be read as the start
                        // of another escape, and the lens would find work in its own output.
                        if next == '\\' {
                            out.push_str("\\\\");
                            chars.next();
                            continue;
                        }
                        if next.is_ascii() && ESCAPABLE.contains(&(next as u8)) {
                            out.push(next);
                            chars.next();
                            continue;
                        }
                    }
                }
                out.push(c);
            }
        } else {
            out.push_str(token);
        }
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inline_code_quotes_headings_lists() {
        assert_eq!(
            apply("``glfw.obj : error LNK2001: x``").as_deref(),
            Some("glfw.obj : error LNK2001: x")
        );
        assert_eq!(apply("`a b`").as_deref(), Some("a b"));
        assert_eq!(apply("> > 1>x.obj : e").as_deref(), Some("1>x.obj : e"));
        assert_eq!(
            apply("### error LNK2001: y").as_deref(),
            Some("error LNK2001: y")
        );
        assert_eq!(
            apply("- Error LNK2001\tz").as_deref(),
            Some("Error LNK2001\tz")
        );
        assert_eq!(apply("```").as_deref(), Some(""));
        assert_eq!(apply("```text").as_deref(), Some(""));
        assert_eq!(apply("`").as_deref(), Some(""));
    }

    #[test]
    fn lld_arrows_are_not_quotes() {
        assert_eq!(apply(">>> referenced by a.obj:(f)"), None);
        assert_eq!(
            apply("> >>> referenced by a.obj:(f)").as_deref(),
            Some(">>> referenced by a.obj:(f)")
        );
        assert_eq!(
            apply(">>>> referenced by a.obj:(f)").as_deref(),
            Some(">>> referenced by a.obj:(f)")
        );
    }

    #[test]
    fn escapes_but_not_paths() {
        assert_eq!(
            apply(r"x.obj : error LNK2001: unresolved external symbol \_\_imp\_CreateFileW")
                .as_deref(),
            Some("x.obj : error LNK2001: unresolved external symbol __imp_CreateFileW")
        );
        assert_eq!(apply(r"\?f@@YAXXZ\@").as_deref(), Some("?f@@YAXXZ@"));
        assert_eq!(apply(r"D:\a\_work\1\s\x.obj : error LNK2001: y"), None);
        assert_eq!(apply(r"C:\_deps\x.lib"), None);
        assert_eq!(
            apply(r"undefined symbol: void __cdecl std::\_Xlength\_error(char const *)").as_deref(),
            Some("undefined symbol: void __cdecl std::_Xlength_error(char const *)")
        );
        assert_eq!(apply("--- a cmake line"), None);
    }
}
