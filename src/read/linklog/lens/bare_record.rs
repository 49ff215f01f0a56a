//! Records without the `<object> :` column: Visual Studio's Output pane and hand copies show
//! `error LNK2001: ...` alone; the old (VS 2010–2013) Error List put its severity and row number
//! in front, and the file in a column after.
//!
//! Real pastes (`<TAB>` for a tab):
//!
//! ```text
//! error LNK2001: unresolved external symbol __imp_RtlExitUserProcess
//! Error<TAB>51<TAB>error LNK2019: unresolved external symbol _PrtEnqueueWithInorder referenced in function _s_PrtDistSendEx<TAB>C:\P\PrtDist.lib(PrtDist.obj)<TAB>FailureDetector
//! ```
//!
//! become ` : error LNK2001: unresolved external symbol __imp_RtlExitUserProcess` (no object) and
//! `C:\P\PrtDist.lib(PrtDist.obj) : error LNK2019: unresolved external symbol ...`. Only a line
//! whose text before the code is such a lead (severity words, a row number) qualifies: in a
//! sentence ("I get error LNK2019: ...") the code is not a record.

use super::{find_code, strip_severity_word};
use crate::read::linklog::trim::TrimWhitespace;

/// Whether `text`, the text before the code, would let the record parser find the
/// `OBJECT : severity` structure: a colon followed by at most two words.
pub(super) fn has_object_column(text: &str) -> bool {
    let Some(colon) = memchr::memrchr(b':', text.as_bytes()) else {
        return false;
    };
    let after = &text[colon + 1..];
    if !after.is_ascii() {
        return after.split_whitespace().nth(2).is_none();
    }
    // Words on ASCII text by bytes (every record has this column): a word starts at a byte that
    // is not whitespace after one that is, as `split_whitespace` splits.
    let space = |b: u8| crate::read::linklog::parse::is_pattern_space(b);
    let mut words = 0;
    let mut in_word = false;
    for &b in after.as_bytes() {
        let word_byte = !space(b);
        words += usize::from(word_byte && !in_word);
        in_word = word_byte;
    }
    words <= 2
}

/// The lead of an old Error List row or of an Output pane line: severity words and row numbers
/// (false when `text` holds anything else); or the tail of a severity word that a console wrap
/// cut from the record's head (`x.exe : fatal err` / `or LNK1120: ...`: the head is lost with its
/// object, the code and the message are read).
fn is_lead(text: &str) -> bool {
    let tail = text.trim_ws();
    if !tail.is_empty()
        && text.trim_ws_start().len() > tail.len()
        && ["fatal error", "error", "warning"]
            .iter()
            .any(|word| word.len() > tail.len() && word.ends_with(tail))
    {
        return true;
    }
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
        if digits == 0 {
            return false;
        }
        rest = &rest[digits..];
    }
    false
}

/// Gives a record without an object column the empty one, keeping an Error List file column.
pub fn apply(line: &str) -> Option<String> {
    let at = find_code(line)?;
    let after = line[at + 7..].trim_start_matches([' ', '\t']);
    let description = after.strip_prefix(':')?;
    let before = &line[..at];
    if has_object_column(before) || !is_lead(before) {
        return None;
    }
    let code = &line[at..at + 7];
    if !before.contains('\t') {
        return Some(format!(" : error {code}:{description}"));
    }
    // An old Error List row: DESCRIPTION<TAB>FILE<TAB>...; the file is the object.
    let mut columns = description.split('\t');
    let text = columns.next().unwrap_or("");
    let file = columns
        .map(str::trim)
        .find(|c| !c.is_empty())
        .filter(|c| c.contains(['\\', '/', '.']) && !c.contains(' ') || c.contains('\\'))
        .unwrap_or("");
    Some(format!("{file} : error {code}:{text}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte count of words agrees with `split_whitespace` on every kind of space.
    #[test]
    fn the_object_column_counts_words_as_split_whitespace_does() {
        let reference = |text: &str| {
            text.rfind(':')
                .is_some_and(|colon| text[colon + 1..].split_whitespace().nth(2).is_none())
        };
        let pieces = [
            "",
            " ",
            "a",
            "x.obj",
            ":",
            "error",
            "fatal error",
            "\t",
            "\u{b}",
            "\u{c}",
            "\r",
            "\n",
            "\u{a0}",
            "\u{3000}",
            "é",
            "1>",
            ":-1:",
        ];
        for a in pieces {
            for b in pieces {
                for c in pieces {
                    for d in [" : ", ":", ": x y z", ""] {
                        let text = format!("{a}{d}{b} {c}");
                        assert_eq!(has_object_column(&text), reference(&text), "{text:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn output_pane_and_old_error_list() {
        assert_eq!(
            apply("error LNK2001: unresolved external symbol __imp_X").as_deref(),
            Some(" : error LNK2001: unresolved external symbol __imp_X")
        );
        assert_eq!(
            apply("fatal error LNK1120: 3 unresolved externals").as_deref(),
            Some(" : error LNK1120: 3 unresolved externals")
        );
        // https://github.com/p-org/P/issues/3
        assert_eq!(
            apply("Error\t51\terror LNK2019: unresolved external symbol _P referenced in function _s\tC:\\P\\PrtDist.lib(PrtDist.obj)\tFailureDetector").as_deref(),
            Some("C:\\P\\PrtDist.lib(PrtDist.obj) : error LNK2019: unresolved external symbol _P referenced in function _s")
        );
        assert_eq!(
            apply("错误\t1      error LNK2005: \"f\" (?f@@YAXXZ) 已经在 PCN.obj 中定义\tE:\\P\\video.obj\tPCN").as_deref(),
            Some("E:\\P\\video.obj : error LNK2005: \"f\" (?f@@YAXXZ) 已经在 PCN.obj 中定义")
        );
        assert_eq!(
            apply("LNK2019: unresolved external symbol y").as_deref(),
            Some(" : error LNK2019: unresolved external symbol y")
        );
    }

    #[test]
    fn a_head_cut_by_a_console_wrap() {
        assert_eq!(
            apply("r LNK1120: 2 unresolved externals").as_deref(),
            Some(" : error LNK1120: 2 unresolved externals")
        );
        assert_eq!(apply("on LNK1120: 2 unresolved externals"), None);
    }

    #[test]
    fn records_and_sentences_are_left_alone() {
        assert_eq!(apply("main.obj : error LNK2001: x"), None);
        assert_eq!(
            apply("LINK : fatal error LNK1104: cannot open file 'a.lib'"),
            None
        );
        assert_eq!(
            apply("I get error LNK2019: unresolved external symbol foo"),
            None
        );
        assert_eq!(apply("Error\tLNK2001\tunresolved external symbol x"), None);
    }
}
