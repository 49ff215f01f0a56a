//! A log that went through an HTML page before it was copied: character references
//! (`&quot;`, `&amp;`, `&lt;`, `&gt;`, `&#39;`, `&nbsp;`) in place of the characters, and `<br>`
//! where the lines ended, so that a whole log arrives as one line:
//!
//! ```text
//! main.obj : error LNK2019: unresolved external symbol &quot;void __cdecl f(void)&quot; (?f@@YAXXZ) referenced in function main<br />app.exe : fatal error LNK1120: 1 unresolved externals
//! ```
//!
//! [`apply`] undoes the references; [`split_breaks`] cuts the line at each `<br>`, which the
//! reader then takes as lines of their own.

/// The character references undone, and the character each stands for.
const REFERENCES: &[(&str, &str)] = &[
    ("&quot;", "\""),
    ("&#34;", "\""),
    ("&#39;", "'"),
    ("&#x27;", "'"),
    ("&apos;", "'"),
    ("&lt;", "<"),
    ("&gt;", ">"),
    ("&nbsp;", " "),
    ("&#160;", " "),
];

/// The reference at the start of `text`, and what it stands for; `&amp;` only where the `&` it
/// gives back starts no other reference (so that the lens never finds work in its own output).
fn reference_at(text: &str) -> Option<(&'static str, &'static str)> {
    if let Some(found) = REFERENCES.iter().find(|(r, _)| text.starts_with(r)) {
        return Some(*found);
    }
    let rest = text.strip_prefix("&amp;")?;
    let makes_another =
        rest.starts_with("amp;") || REFERENCES.iter().any(|(r, _)| rest.starts_with(&r[1..]));
    (!makes_another).then_some(("&amp;", "&"))
}

/// Whether a line holds a character reference this lens undoes.
pub fn has_reference(line: &str) -> bool {
    memchr::memchr_iter(b'&', line.as_bytes()).any(|at| reference_at(&line[at..]).is_some())
}

/// Undoes the character references of one line.
pub fn apply(line: &str) -> Option<String> {
    if !has_reference(line) {
        return None;
    }
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        match reference_at(&rest[at..]) {
            Some((reference, character)) => {
                out.push_str(character);
                rest = &rest[at + reference.len()..];
            }
            None => {
                out.push('&');
                rest = &rest[at + 1..];
            }
        }
    }
    out.push_str(rest);
    (out != line).then_some(out)
}

/// The line cut at each HTML line break (`<br>`, `<br/>`, `<br />`, any case), when it holds
/// one; the pieces keep their text as it was, empty ones included.
pub fn split_breaks(line: &str) -> Option<Vec<&str>> {
    let bytes = line.as_bytes();
    let has_break = memchr::memchr_iter(b'<', bytes).any(|at| {
        bytes
            .get(at + 1..at + 3)
            .is_some_and(|br| br.eq_ignore_ascii_case(b"br"))
    });
    if !has_break {
        return None;
    }
    let lower = line.to_ascii_lowercase();
    let mut pieces = Vec::new();
    let mut start = 0;
    let mut from = 0;
    while let Some(found) = lower[from..].find("<br") {
        let at = from + found;
        let tail = &lower[at + 3..];
        let spaces = tail.len() - tail.trim_start_matches(' ').len();
        let after = &tail[spaces..];
        let end = if after.starts_with("/>") {
            Some(at + 3 + spaces + 2)
        } else if after.starts_with('>') {
            Some(at + 3 + spaces + 1)
        } else {
            None
        };
        match end {
            Some(end) => {
                pieces.push(&line[start..at]);
                start = end;
                from = end;
            }
            None => from = at + 3,
        }
    }
    if pieces.is_empty() {
        return None;
    }
    pieces.push(&line[start..]);
    Some(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_are_undone_once() {
        assert_eq!(
            apply("error LNK2019: unresolved external symbol &quot;int __cdecl f(struct a &amp;)&quot;").as_deref(),
            Some("error LNK2019: unresolved external symbol \"int __cdecl f(struct a &)\"")
        );
        assert_eq!(
            apply("class std::vector&lt;int&gt;").as_deref(),
            Some("class std::vector<int>")
        );
        // What a reference gives back is never read as another one.
        assert_eq!(apply("&amp;quot;"), None);
        assert_eq!(apply("struct a &, int &&"), None);
    }

    #[test]
    fn breaks_cut_the_line() {
        assert_eq!(
            split_breaks("a.obj : error LNK2019: x<br />b.obj : error LNK2001: y<BR>z"),
            Some(vec![
                "a.obj : error LNK2019: x",
                "b.obj : error LNK2001: y",
                "z"
            ])
        );
        assert_eq!(split_breaks("class std::vector<bool>"), None);
        assert_eq!(split_breaks("a<brace>"), None);
    }
}
