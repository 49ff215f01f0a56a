//! What an IDE's issue list leaves in front of a record: Qt Creator's `:-1: error:` (no file, no
//! line) and `file:line: error:` columns, in front of link.exe's own `LNKnnnn:`.
//!
//! A real copy from Qt Creator's Issues pane:
//!
//! ```text
//! :-1: error: LNK2019: unresolved external symbol __imp_WSAStartup referenced in function main
//! main.obj:-1: error: LNK2001: unresolved external symbol hipFree
//! ```
//!
//! becomes ` : error LNK2019: unresolved external symbol ...` and
//! `main.obj : error LNK2001: unresolved external symbol hipFree`.

use crate::read::linklog::trim::TrimWhitespace;
use regex::Regex;
use std::sync::OnceLock;

fn pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"^(?P<object>.*?)(?:(?::-?\d+)*:\s*)?(?:fatal\s+)?(?:error|warning):\s*(?P<code>LNK\d{4}):",
        )
        .expect("pattern")
    })
}

/// Rewrites `OBJECT:-1: error: LNKnnnn:` as `OBJECT : error LNKnnnn:`.
pub fn apply(line: &str) -> Option<String> {
    let at = super::find_code(line)?;
    // The residue ends in `error:` right before the code.
    if !line[..at].trim_ws_end().ends_with(':') {
        return None;
    }
    let c = pattern().captures(line)?;
    let whole = c.get(0)?;
    let object = c["object"].trim_ws_end();
    Some(format!(
        "{object} : error {}:{}",
        &c["code"],
        &line[whole.end()..]
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qt_creator() {
        assert_eq!(
            apply(":-1: error: LNK2019: unresolved external symbol f referenced in function main")
                .as_deref(),
            Some(" : error LNK2019: unresolved external symbol f referenced in function main")
        );
        assert_eq!(
            apply("main.obj:-1: error: LNK2001: unresolved external symbol hipFree").as_deref(),
            Some("main.obj : error LNK2001: unresolved external symbol hipFree")
        );
        assert_eq!(
            apply("error: LNK1120: 1 unresolved externals").as_deref(),
            Some(" : error LNK1120: 1 unresolved externals")
        );
    }

    #[test]
    fn records_are_left_alone() {
        assert_eq!(apply("main.obj : error LNK2001: x"), None);
        assert_eq!(
            apply("LINK : fatal error LNK1104: cannot open file 'a.lib'"),
            None
        );
    }
}
