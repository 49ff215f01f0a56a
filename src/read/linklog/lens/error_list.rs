//! The Visual Studio Error List pasted with runs of spaces where its columns had tabs (a chat
//! client, a forum, an editor that expands tabs), or with tabs and spaces mixed, or with its row
//! number in front.
//!
//! A real paste (a Markdown list of Error List rows, columns partly spaces; `<TAB>` for a tab):
//!
//! ```text
//! Error    LNK2001    unresolved external symbol __CxxFrameHandler4    casparcg    C:\b\w.lib(m.obj)    1
//! - Error LNK2001<TAB>unresolved external symbol   WinMain xmrig   C:\xmrig-master\build\LIBCMT.lib(exe_winmain.obj)<TAB>1
//! ```
//!
//! becomes the tab-separated row `Error<TAB>LNK2001<TAB>DESCRIPTION<TAB>PROJECT<TAB>FILE<TAB>LINE` that
//! the record parser reads (the `- ` is removed by [`super::markdown`]). The columns are found
//! from the right: the line number, then the file (a path or an object), then the project (one
//! word); what is left is the description, its runs of spaces made single.

use super::{find_code, strip_severity_word};
use crate::read::linklog::trim::TrimWhitespace;

/// Whether `text` holds only what the Error List puts in front of the code column: severity
/// words and row numbers.
fn is_row_lead(text: &str) -> bool {
    let mut rest = text;
    // Bounded: each round removes a word or stops.
    for _ in 0..8 {
        rest = rest.trim_ws_start();
        if rest.is_empty() {
            return true;
        }
        if let Some(after) = strip_severity_word(rest) {
            rest = after;
            continue;
        }
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || !rest[digits..].starts_with(char::is_whitespace) {
            return false;
        }
        rest = &rest[digits..];
    }
    false
}

/// Whether an Error List field names a file: a path, or an object, library or image.
fn is_file(field: &str) -> bool {
    let lower = field.to_ascii_lowercase();
    field.contains(['\\', '/'])
        || [
            ".obj", ".o", ".lib", ".exe", ".dll", ".pyd", ".obj)", ".o)", ".dll)",
        ]
        .iter()
        .any(|ext| lower.ends_with(ext))
}

/// Splits at tabs and at runs of two or more spaces.
fn columns(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let run = bytes[i..].iter().take_while(|&&b| b == b' ').count();
        if bytes[i] == b'\t' || run >= 2 {
            out.push(text[start..i].trim_ws());
            i += run.max(1);
            start = i;
            continue;
        }
        i += 1;
    }
    out.push(text[start..].trim_ws());
    out.retain(|f| !f.is_empty());
    out
}

/// Rebuilds a space-separated Error List row with tabs.
pub fn apply(line: &str) -> Option<String> {
    let at = find_code(line)?;
    let code = &line[at..at + 7];
    let after = &line[at + 7..];
    // A record (`LNKnnnn:`) is not a row; a row's code stands in a column of its own.
    if after.trim_ws_start().starts_with(':') || !after.starts_with([' ', '\t']) {
        return None;
    }
    if !is_row_lead(&line[..at]) {
        return None;
    }
    // Already a tab-separated row whose description column holds no run of spaces.
    if after.starts_with('\t') {
        let description = after
            .strip_prefix('\t')
            .unwrap_or(after)
            .split('\t')
            .next()
            .unwrap_or("");
        if !description.contains("  ") {
            return None;
        }
    }
    let mut fields = columns(after);
    while fields
        .last()
        .is_some_and(|f| f.bytes().all(|b| b.is_ascii_digit()))
        && fields.len() > 1
    {
        fields.pop();
    }
    let mut file = "";
    let mut project = "";
    if fields.len() > 1 && fields.last().is_some_and(|f| is_file(f)) {
        file = fields.pop().unwrap_or("");
        if fields.len() > 1 && fields.last().is_some_and(|f| !f.contains(' ')) {
            project = fields.pop().unwrap_or("");
        }
    }
    if fields.is_empty() {
        return None;
    }
    let description = fields
        .iter()
        .flat_map(|f| f.split_whitespace())
        .collect::<Vec<_>>()
        .join(" ");
    Some(format!(
        "Error\t{code}\t{description}\t{project}\t{file}\t1"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_with_spaces() {
        assert_eq!(
            apply("Error    LNK2001    unresolved external symbol __CxxFrameHandler4    casparcg    C:\\b\\w.lib(m.obj)    1").as_deref(),
            Some("Error\tLNK2001\tunresolved external symbol __CxxFrameHandler4\tcasparcg\tC:\\b\\w.lib(m.obj)\t1")
        );
        assert_eq!(
            apply("Error LNK2001\tunresolved external symbol   WinMain xmrig   C:\\x\\LIBCMT.lib(exe_winmain.obj)\t1\t").as_deref(),
            Some("Error\tLNK2001\tunresolved external symbol WinMain xmrig\t\tC:\\x\\LIBCMT.lib(exe_winmain.obj)\t1")
        );
        assert_eq!(
            apply("3  Error  LNK1120  2 unresolved externals").as_deref(),
            Some("Error\tLNK1120\t2 unresolved externals\t\t\t1")
        );
    }

    #[test]
    fn records_and_tab_rows_are_left_alone() {
        assert_eq!(
            apply("Error\tLNK2001\tunresolved external symbol x\tp\tC:\\a.obj\t1\t"),
            None
        );
        assert_eq!(
            apply("a.obj : error LNK2001: unresolved external symbol x"),
            None
        );
        assert_eq!(apply("I see LNK2001 unresolved external symbol x"), None);
    }
}
