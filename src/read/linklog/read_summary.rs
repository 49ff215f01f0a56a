//! What was read, for when nothing was found: the encoding, the lines, how many lines looked like
//! link output and why none of them was a record, so that a user can tell a clean log from a
//! log in a shape lnkfix does not read. An empty file, a binary file and a log without link
//! output each get their own message (docs/GUIDE.md, "When nothing is found").

use crate::read::linklog::trim::TrimWhitespace;
use serde::{Deserialize, Serialize};

use super::{lens, Encoding, LogStats};

/// Longest excerpt kept of an unread line, in characters.
const EXCERPT_CHARS: usize = 160;

/// Why a link-looking line is not a record. Serialised as the sentence [`UnreadReason::as_str`]
/// gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum UnreadReason {
    /// GNU ld output.
    #[serde(rename = "GNU ld output (a MinGW link): lnkfix reads link.exe and lld-link")]
    GnuLd,
    /// An LNK code outside a record.
    #[serde(rename = "an LNK code outside a record (OBJECT : error LNKnnnn: message)")]
    CodeOutsideRecord,
    /// A line naming lld that is no diagnostic.
    #[serde(rename = "names lld but is no lld-link error or warning (a command line?)")]
    LldNoDiagnostic,
    /// Any other line.
    #[serde(rename = "no record shape lnkfix reads")]
    NoRecordShape,
}

impl UnreadReason {
    /// The reason in a few words.
    pub fn as_str(self) -> &'static str {
        match self {
            UnreadReason::GnuLd => {
                "GNU ld output (a MinGW link): lnkfix reads link.exe and lld-link"
            }
            UnreadReason::CodeOutsideRecord => {
                "an LNK code outside a record (OBJECT : error LNKnnnn: message)"
            }
            UnreadReason::LldNoDiagnostic => {
                "names lld but is no lld-link error or warning (a command line?)"
            }
            UnreadReason::NoRecordShape => "no record shape lnkfix reads",
        }
    }
}

/// A link-looking line from which nothing was read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct UnreadLine {
    /// 1-based line number.
    pub line: u64,
    /// The line (after the lenses), cut at 160 characters.
    pub text: String,
    /// Why it is not a record, in a few words.
    pub reason: UnreadReason,
}

impl UnreadLine {
    /// An unread line and the reason it was not read.
    pub fn new(line: u64, text: &str) -> UnreadLine {
        let trimmed = text.trim_ws();
        let mut excerpt: String = trimmed.chars().take(EXCERPT_CHARS).collect();
        if excerpt.len() < trimmed.len() {
            excerpt.push_str("...");
        }
        UnreadLine {
            line,
            text: excerpt,
            reason: reason(trimmed),
        }
    }
}

/// Whether a line looks like output of a linker lnkfix knows of, or of GNU ld.
pub fn looks_like_link_output(text: &str) -> bool {
    let bytes = text.as_bytes();
    let f = lens::finders();
    lens::find_code(text).is_some()
        || f.lld.find(bytes).is_some()
        || f.arrows.find(bytes).is_some()
        || f.undefined_reference.find(bytes).is_some()
        || (!text.is_ascii() || f.unresolved.find(bytes).is_some())
            && lens::anchor_needles().any(|p| text.contains(p))
}

/// Why a link-looking line yielded nothing.
fn reason(text: &str) -> UnreadReason {
    if text.contains("undefined reference") {
        UnreadReason::GnuLd
    } else if lens::find_code(text).is_some() {
        UnreadReason::CodeOutsideRecord
    } else if text.contains("lld") && !text.contains("error") && !text.contains("warning") {
        UnreadReason::LldNoDiagnostic
    } else {
        UnreadReason::NoRecordShape
    }
}

/// What a log turned out to be.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Content {
    /// No bytes at all.
    Empty,
    /// Not text: NUL bytes or control characters.
    Binary,
    /// Text, but no line that looks like link output.
    NoLinkOutput,
    /// Link-looking lines, none of which was a record.
    LinkOutputUnread,
    /// Records were read (findings, counts), none of them an unresolved symbol.
    Records,
}

/// What was read, and the message for a user.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct ReadSummary {
    /// What the log turned out to be.
    pub content: Content,
    /// The detected encoding.
    pub encoding: Option<Encoding>,
    /// Physical lines read.
    pub lines: u64,
    /// Lines that looked like link output.
    pub link_lines: u64,
    /// Of those, lines from which nothing was read.
    pub unread_link_lines: u64,
    /// The first unread link-looking lines.
    pub unread: Vec<UnreadLine>,
    /// One or two sentences for a user.
    pub message: String,
}

/// The summary of a log from which `records` records were read.
pub fn summarize(stats: &LogStats, records: usize) -> ReadSummary {
    let encoding = stats.encoding.map_or("unknown".to_string(), |e| {
        serde_json::to_value(e)
            .ok()
            .and_then(|v| v.as_str().map(str::to_string))
            .unwrap_or_default()
    });
    let lines = stats.lines;
    let plural = |n: u64| if n == 1 { "" } else { "s" };
    let (content, message) = if stats.bytes == 0 {
        (
            Content::Empty,
            "the log is empty (0 bytes): nothing to read; was the build output written to another file?".to_string(),
        )
    } else if stats.binary {
        (
            Content::Binary,
            format!(
                "the input is not text ({} bytes that look binary: NUL bytes or control characters); give lnkfix the build log, not a library or an executable",
                stats.bytes
            ),
        )
    } else if stats.link_lines == 0 {
        (
            Content::NoLinkOutput,
            format!(
                "read {lines} line{} ({encoding}); none looks like link output (no LNKnnnn code, no lld-link line, no unresolved-symbol message): the log does not reach the link step, or the linker's output went elsewhere",
                plural(lines)
            ),
        )
    } else if records == 0 {
        (
            Content::LinkOutputUnread,
            format!(
                "read {lines} line{} ({encoding}); {} looked like link output but none was a record lnkfix reads: this may be a format lnkfix does not know, not a clean link",
                plural(lines),
                stats.link_lines
            ),
        )
    } else {
        (
            Content::Records,
            format!(
                "read {lines} line{} ({encoding}); {} looked like link output, {records} record{} read, none an unresolved symbol",
                plural(lines),
                stats.link_lines,
                plural(records as u64)
            ),
        )
    };
    ReadSummary {
        content,
        encoding: stats.encoding,
        lines,
        link_lines: stats.link_lines,
        unread_link_lines: stats.unread_link_lines,
        unread: stats.unread_examples.clone(),
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(bytes: &[u8]) -> ReadSummary {
        let (events, stats) = super::super::read_log_bytes(bytes);
        summarize(&stats, events.len())
    }

    #[test]
    fn empty_binary_and_no_link_output_differ() {
        assert_eq!(summary(b"").content, Content::Empty);
        assert_eq!(
            summary(b"!<arch>\n\0\0\x01\x02 LNK2019").content,
            Content::Binary
        );
        let none = summary(b"[1/2] cl /c a.cpp\nok\n");
        assert_eq!(none.content, Content::NoLinkOutput);
        assert!(
            none.message.contains("read 2 lines (utf8)"),
            "{}",
            none.message
        );
    }

    #[test]
    fn unread_link_output_is_shown() {
        let s = summary(b"x.obj : LNK2019 something\nld: a.o: undefined reference to `f'\n");
        assert_eq!(s.content, Content::LinkOutputUnread);
        assert_eq!(s.link_lines, 2);
        assert_eq!(s.unread.len(), 2);
        assert_eq!(s.unread[0].line, 1);
        assert!(s.unread[1].reason.as_str().contains("GNU ld"));
    }

    #[test]
    fn records_without_symbols() {
        let s = summary(b"LINK : fatal error LNK1104: cannot open file 'python310.lib'\n");
        assert_eq!(s.content, Content::Records);
        assert_eq!(s.unread_link_lines, 0);
    }
}
