//! Records run together on one line: a mail client or a chat that joined the lines of a log, or
//! the rows of Visual Studio's Error List copied into one line:
//!
//! ```text
//! a.obj : error LNK2019: unresolved external symbol f referenced in function main b.obj : error LNK2001: unresolved external symbol g
//! Error→LNK2019→unresolved external symbol f→app→a.obj→1→→Error→LNK2001→... (→ a tab)
//! ```
//!
//! [`split`] cuts such a line before each record after the first (at the object of a link.exe
//! record, at `lld-link:`, at `>>>`, at an Error List row's severity cell), and the reader takes
//! each piece as a line of its own.

use std::sync::OnceLock;

use regex::Regex;

/// Where a record starts inside a line: a link.exe record's object (the word before ` : error
/// LNKnnnn:`), lld-link's prefix (with a driver's in front, `clang++: error: lld-link: error:`,
/// or zig's `error: lld-link:`), a `>>>` line, an Error List row's severity and code cells.
fn record_starts() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(
            r"(?x)
            [^\s:]\S*\s:\s(?:fatal\s)?(?:error|warning)\sLNK\d{4}:
            | [\w+.-]+:\s(?:error|warning):\s(?:lld-link|rust-lld)(?:\.exe)?:\s(?:error|warning):
            | (?:lld-link|rust-lld)(?:\.exe)?:\s(?:error|warning):
            | (?:error|warning):\s(?:lld-link|rust-lld):\s
            | >>>\s
            | \b(?:Error|Warning)\tLNK\d{4}\t",
        )
        .expect("record start pattern")
    })
}

/// The line cut before each record after the first, when more than one record starts in it;
/// pieces keep their text (a space or tab between records is dropped).
pub fn split(line: &str) -> Option<Vec<&str>> {
    let bytes = line.as_bytes();
    // Cheap rejection: two records need two marks among codes, lld prefixes and `>>>`s; a
    // Python repr holds its records behind escapes, and the repr reader cuts them.
    let marks = memchr::memmem::find_iter(bytes, b"LNK").take(2).count()
        + memchr::memmem::find_iter(bytes, b"lld-link")
            .take(2)
            .count()
        + memchr::memmem::find_iter(bytes, b">>>").take(2).count();
    if marks < 2 || crate::read::linklog::clean::looks_like_python_repr(line) {
        return None;
    }
    let starts: Vec<usize> = record_starts()
        .find_iter(line)
        .map(|m| m.start())
        .filter(|&at| at > 0 && line[..at].ends_with([' ', '\t']))
        .collect();
    if starts.is_empty() {
        return None;
    }
    let mut pieces = Vec::with_capacity(starts.len() + 1);
    let mut from = 0;
    for at in starts {
        let piece = line[from..at].trim_end_matches([' ', '\t']);
        if !piece.trim().is_empty() {
            pieces.push(piece);
        }
        from = at;
    }
    pieces.push(&line[from..]);
    (pieces.len() > 1).then_some(pieces)
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn records_run_together_are_cut_apart() {
        assert_eq!(
            split("a.obj : error LNK2019: unresolved external symbol f referenced in function main b.obj : error LNK2001: unresolved external symbol g").unwrap(),
            vec![
                "a.obj : error LNK2019: unresolved external symbol f referenced in function main",
                "b.obj : error LNK2001: unresolved external symbol g"
            ]
        );
        assert_eq!(
            split("lld-link: error: undefined symbol: f >>> referenced by a.obj lld-link: error: undefined symbol: g").unwrap(),
            vec!["lld-link: error: undefined symbol: f", ">>> referenced by a.obj", "lld-link: error: undefined symbol: g"]
        );
        assert_eq!(
            split("Error\tLNK2019\tunresolved external symbol f\tapp\ta.obj\t1\t\tError\tLNK2001\tunresolved external symbol g\tapp\tb.obj\t1\t").unwrap(),
            vec!["Error\tLNK2019\tunresolved external symbol f\tapp\ta.obj\t1", "Error\tLNK2001\tunresolved external symbol g\tapp\tb.obj\t1\t"]
        );
    }

    #[test]
    fn one_record_is_left_alone() {
        assert_eq!(
            split(
                "a.obj : error LNK2019: unresolved external symbol f referenced in function main"
            ),
            None
        );
        assert_eq!(
            split("LINK : fatal error LNK1120: 2 unresolved externals"),
            None
        );
        assert_eq!(split(">>> referenced by a.obj:(f)"), None);
        // A record that quotes another code in its text is one record.
        assert_eq!(
            split("LINK : warning LNK4098: defaultlib 'LIBCMT' conflicts; see LNK2005"),
            None
        );
    }
}
