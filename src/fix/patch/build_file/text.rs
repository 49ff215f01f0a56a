//! Text helpers the build-file editors share: the byte-order mark, the file's line ending, a
//! line's indentation, and the library names and directories of a [`BuildChange`] checked for what
//! a build file can hold.

use std::path::Path;

use super::{BuildChange, BuildEditError};

/// The UTF-8 byte-order mark.
const BOM: &[u8] = b"\xEF\xBB\xBF";

/// A build file's text as UTF-8 without its byte-order mark, and the mark (empty when none).
pub(crate) fn decode<'a>(
    path: &Path,
    source: &'a [u8],
    format: &'static str,
) -> Result<(&'a [u8], &'a str), BuildEditError> {
    let (bom, body) = match source.strip_prefix(BOM) {
        Some(body) => (BOM, body),
        None => (&source[..0], source),
    };
    let text = std::str::from_utf8(body).map_err(|error| BuildEditError::Unparsable {
        path: path.to_path_buf(),
        format,
        reason: format!(
            "not UTF-8 at byte {} (line {})",
            error.valid_up_to() + bom.len(),
            line_number(body, error.valid_up_to())
        ),
    })?;
    Ok((bom, text))
}

/// The 1-based line number of a byte offset.
pub(crate) fn line_number(text: &[u8], offset: usize) -> usize {
    text[..offset.min(text.len())]
        .iter()
        .filter(|&&byte| byte == b'\n')
        .count()
        + 1
}

/// The line ending the file uses: CRLF when its first line ends so, else LF.
pub(crate) fn line_ending(text: &str) -> &'static str {
    match text.find('\n') {
        Some(newline) if newline > 0 && text.as_bytes()[newline - 1] == b'\r' => "\r\n",
        _ => "\n",
    }
}

/// Where the line holding `offset` starts.
pub(crate) fn line_start(text: &str, offset: usize) -> usize {
    text[..offset].rfind('\n').map_or(0, |newline| newline + 1)
}

/// The leading spaces and tabs of the line holding `offset`.
pub(crate) fn indent_at(text: &str, offset: usize) -> &str {
    let start = line_start(text, offset);
    let rest = &text[start..];
    let length = rest.len() - rest.trim_start_matches([' ', '\t']).len();
    &rest[..length]
}

/// One level of indentation in the file's style: a tab when some line is indented with a tab,
/// else four spaces.
pub(crate) fn indent_unit(text: &str) -> &'static str {
    if text.lines().any(|line| line.starts_with('\t')) {
        "\t"
    } else {
        "    "
    }
}

/// The library names of a change without the `.lib` the MSVC linker is given (`python312.lib`
/// → `python312`), in order, checked: a name with a path separator, a control character or
/// nothing left is refused (it is not a library name a build system passes on).
pub(crate) fn library_stems(
    path: &Path,
    change: &BuildChange,
) -> Result<Vec<String>, BuildEditError> {
    change
        .libraries
        .iter()
        .map(|library| {
            let stem = match library.len().checked_sub(4) {
                Some(cut)
                    if library.is_char_boundary(cut)
                        && library[cut..].eq_ignore_ascii_case(".lib") =>
                {
                    &library[..cut]
                }
                _ => library.as_str(),
            };
            let bad = stem.is_empty()
                || stem
                    .chars()
                    .any(|c| c.is_control() || matches!(c, '/' | '\\'));
            if bad {
                return Err(BuildEditError::Unsupported {
                    path: path.to_path_buf(),
                    reason: format!("{library:?} is not a library name to link by name"),
                });
            }
            Ok(stem.to_string())
        })
        .collect()
}

/// The directories of a change, checked: a directory with a control character (a line break)
/// is refused, since no build file line can hold it safely.
pub(crate) fn directories(
    path: &Path,
    change: &BuildChange,
) -> Result<Vec<String>, BuildEditError> {
    change
        .library_dirs
        .iter()
        .map(|directory| {
            if directory.is_empty() || directory.chars().any(char::is_control) {
                Err(BuildEditError::Unsupported {
                    path: path.to_path_buf(),
                    reason: format!(
                        "the library directory {directory:?} holds a control character or is empty"
                    ),
                })
            } else {
                Ok(directory.clone())
            }
        })
        .collect()
}

/// The error for a change that asks nothing this file's idiom can write.
pub(crate) fn nothing_to_write(path: &Path, what: &str) -> BuildEditError {
    BuildEditError::Unsupported {
        path: path.to_path_buf(),
        reason: format!("nothing to write here: {what}"),
    }
}

/// The text with the insertions made (offsets into the original; equal offsets keep their order).
pub(crate) fn splice(source: &str, mut insertions: Insertions) -> String {
    insertions.sort_by_key(|(offset, _)| *offset);
    let mut edited = String::with_capacity(source.len() + 256);
    let mut from = 0;
    for (offset, insertion) in &insertions {
        edited.push_str(&source[from..*offset]);
        edited.push_str(insertion);
        from = *offset;
    }
    edited.push_str(&source[from..]);
    edited
}

/// Text to insert at byte offsets of a file.
pub(crate) type Insertions = Vec<(usize, String)>;

/// How new items are laid out: the file's line ending and indentation unit.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Layout<'a> {
    /// `\n` or `\r\n`.
    pub newline: &'a str,
    /// One level of indentation.
    pub unit: &'a str,
}

/// Insertions adding `items` to a bracketed sequence (a list, a dictionary, a call's
/// arguments) of a language with `#` comments (Python, gyp, meson) whose brackets are at `open`
/// and `close`, after its last element (its range): on lines of their own, indented as the last
/// element's line, when the closing bracket is on a later line; else on the same line, right
/// after the last element (and its comma).
pub(crate) fn add_items(
    source: &str,
    open: usize,
    close: usize,
    last: Option<std::ops::Range<usize>>,
    items: &[String],
    layout: Layout<'_>,
) -> Insertions {
    let Some(last) = last else {
        if source[open..close].contains('\n') {
            let indent = format!("{}{}", indent_at(source, open), layout.unit);
            let block: String = items
                .iter()
                .map(|item| format!("{indent}{item},{}", layout.newline))
                .collect();
            return vec![(open + 1, format!("{}{block}", layout.newline))];
        }
        return vec![(close, items.join(", "))];
    };
    let end = last.end;
    let comma = after_blanks(source, end).filter(|(byte, _)| *byte == b',');
    if !source[end..close].contains('\n') {
        return match comma {
            Some((_, at)) => vec![(at + 1, format!(" {},", items.join(", ")))],
            None => vec![(end, format!(", {}", items.join(", ")))],
        };
    }
    let mut insertions = Vec::new();
    if comma.is_none() {
        insertions.push((end, ",".to_string()));
    }
    let line_end = end + source[end..].find('\n').map_or(0, |n| n + 1);
    let indent = indent_at(source, last.start);
    let block: String = items
        .iter()
        .map(|item| format!("{indent}{item},{}", layout.newline))
        .collect();
    insertions.push((line_end, block));
    insertions
}

/// The first byte at or after `offset` that is not a blank or in a `#` comment, and where.
pub(crate) fn after_blanks(source: &str, offset: usize) -> Option<(u8, usize)> {
    let mut position = offset;
    let bytes = source.as_bytes();
    while let Some(&byte) = bytes.get(position) {
        match byte {
            b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' => position += 1,
            b'#' => {
                position += source[position..]
                    .find('\n')
                    .unwrap_or(source.len() - position)
            }
            _ => return Some((byte, position)),
        }
    }
    None
}

/// A TOML file parsed with its byte-order mark and line ending noted.
pub(crate) fn parse_toml<'a>(
    path: &Path,
    source: &'a [u8],
) -> Result<(&'a [u8], &'static str, toml_edit::DocumentMut), BuildEditError> {
    let (bom, source_text) = decode(path, source, "TOML")?;
    let document = source_text
        .parse::<toml_edit::DocumentMut>()
        .map_err(|error| BuildEditError::Unparsable {
            path: path.to_path_buf(),
            format: "TOML",
            reason: error.to_string().trim().replace('\n', " "),
        })?;
    Ok((bom, line_ending(source_text), document))
}

/// The written TOML with the file's mark and line ending (toml_edit writes `\n` for what it adds).
pub(crate) fn write_toml(bom: &[u8], newline: &str, document: &toml_edit::DocumentMut) -> Vec<u8> {
    let written = document.to_string();
    let written = if newline == "\r\n" {
        written.replace("\r\n", "\n").replace('\n', "\r\n")
    } else {
        written
    };
    let mut bytes = bom.to_vec();
    bytes.extend_from_slice(written.as_bytes());
    bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_bom_and_endings() {
        let path = Path::new("x");
        let change = BuildChange {
            libraries: vec!["python312.lib".into(), "Foo.LIB".into(), "bar".into()],
            ..BuildChange::default()
        };
        assert_eq!(
            library_stems(path, &change).unwrap(),
            ["python312", "Foo", "bar"]
        );
        let bad = BuildChange {
            libraries: vec!["a\\b.lib".into()],
            ..BuildChange::default()
        };
        assert!(library_stems(path, &bad).is_err());
        let (bom, text) = decode(path, b"\xEF\xBB\xBFa\r\nb", "x").unwrap();
        assert_eq!((bom.len(), text), (3, "a\r\nb"));
        assert_eq!(line_ending(text), "\r\n");
        assert_eq!(line_ending("a\nb\r\n"), "\n");
        assert!(decode(path, b"a\n\xff", "x").is_err());
        assert_eq!(indent_at("x\n\t  y", 5), "\t  ");
    }
}
