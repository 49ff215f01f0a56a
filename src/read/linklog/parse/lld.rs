//! lld-link's records: `lld-link: error: REST` (any tool spelling lld uses) and the `>>>` lines
//! that follow an `undefined symbol`.

use crate::read::linklog::trim::TrimWhitespace;
use regex::Regex;

use super::shown::classify_text;
use super::{
    is_pattern_space, object_tokens, patterns, quoted_values, trim_ascii_space, Event, Finding,
    Linker, Reference, UnresolvedRecord,
};

/// What an lld-link `>>>` line holds.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Arrow<'a> {
    /// `>>> referenced N more times`: the digits.
    MoreTimes(&'a str),
    /// `>>> referenced by REST`.
    ReferencedBy(&'a str),
    /// `>>>` and two or more spaces, then the rest (the second line of a two-line reference).
    Continuation(&'a str),
    /// None of them.
    Other,
}

/// Parses a `>>>` line as the `more_times`, `referenced_by` and `continuation` patterns would, in
/// that order. ASCII lines (all of them in practice) are parsed by hand, which is most of the
/// time saved on an lld-link log; others go through the patterns, which know Unicode whitespace
/// and digits (a test compares both on generated lines).
pub(super) fn arrow_line(line: &str) -> Arrow<'_> {
    if !line.is_ascii() {
        let p = patterns();
        let group = |re: &Regex, name: &str| {
            re.captures(line)
                .and_then(|c| c.name(name))
                .map(|m| m.as_str())
        };
        if let Some(n) = group(&p.more_times, "n") {
            return Arrow::MoreTimes(n);
        }
        if let Some(rest) = group(&p.referenced_by, "rest") {
            return Arrow::ReferencedBy(rest);
        }
        return match group(&p.continuation, "rest") {
            Some(rest) => Arrow::Continuation(rest),
            None => Arrow::Other,
        };
    }
    let Some(after) = line.trim_ws_start().strip_prefix(">>>") else {
        return Arrow::Other;
    };
    let body = after.trim_ws_start();
    let spaces = after.len() - body.len();
    if spaces == 0 {
        return Arrow::Other;
    }
    if let Some(count) = body.strip_prefix("referenced ") {
        let digits = count.bytes().take_while(u8::is_ascii_digit).count();
        if digits > 0 && count[digits..].starts_with(" more time") {
            return Arrow::MoreTimes(&count[..digits]);
        }
    }
    if let Some(rest) = body.strip_prefix("referenced by") {
        let trimmed = rest.trim_ws_start();
        if trimmed.len() < rest.len() {
            return Arrow::ReferencedBy(trimmed);
        }
    }
    if spaces >= 2 && !body.is_empty() {
        return Arrow::Continuation(body);
    }
    Arrow::Other
}

/// What an lld-link `>>>` line says about the record above it, other than references.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Detail<'a> {
    /// `>>> defined at REST` (a `duplicate symbol`'s definer; REST may be `source:line`).
    DefinedAt(&'a str),
    /// `>>> OBJECT has value VALUE` (a `/failifmismatch` side).
    HasValue {
        /// The object or `lib(member)`.
        object: &'a str,
        /// The value it has.
        value: &'a str,
    },
}

/// Reads `>>> defined at X` and `>>> X has value V` (lld-link's `reportDuplicate` and
/// `/failifmismatch` reports), by hand: they have one shape, in English only.
pub(super) fn detail_line(line: &str) -> Option<Detail<'_>> {
    let after = line.trim_ws_start().strip_prefix(">>>")?;
    let body = after.trim_ws();
    if body.len() == after.len() {
        return None;
    }
    if let Some(rest) = body.strip_prefix("defined at ") {
        let rest = rest.trim_ws();
        return (!rest.is_empty()).then_some(Detail::DefinedAt(rest));
    }
    const HAS_VALUE: &str = " has value ";
    let at = super::finders().has_value.rfind(body.as_bytes())?;
    let (object, value) = (&body[..at], &body[at + HAS_VALUE.len()..]);
    let (object, value) = (object.trim_ws(), value.trim_ws());
    (!object.is_empty() && !value.is_empty() && !value.contains(char::is_whitespace))
        .then_some(Detail::HasValue { object, value })
}

/// The severity and the rest of an lld-link record (`lld-link: error: REST`), as the `lld`
/// pattern would capture them: by hand for ASCII lines, through the pattern for others.
pub(super) fn lld_record(line: &str) -> Option<(&str, &str)> {
    if !line.is_ascii() {
        let c = patterns().lld.captures(line)?;
        let sev = c.name("sev")?.as_str();
        let rest = c.name("rest")?.as_str();
        return Some((sev, rest));
    }
    const TOOLS: [&str; 5] = ["lld-link", "ld.lld", "ld.lld-link", "lld", "rust-lld"];
    let bytes = line.as_bytes();
    // The leftmost start wins; at one start, the first tool name that leads to a match.
    // The tool name starts the line or follows one of `\s:>]'"`. Trying its start positions in
    // order tries the pattern's match starts in order (the leftmost wins); at one position, the
    // first tool name that leads to a match wins, as in the pattern's alternation.
    (0..bytes.len()).find_map(|at| {
        let boundary = at == 0
            || matches!(bytes[at - 1], b':' | b'>' | b']' | b'\'' | b'"')
            || is_pattern_space(bytes[at - 1]);
        if !boundary {
            return None;
        }
        TOOLS
            .iter()
            .find_map(|tool| lld_after_tool(line[at..].strip_prefix(tool)?))
    })
}

/// `(?:\.exe)?(?:-\d+)?\s*:\s*(error|warning)\s*:\s*(.*)` on an ASCII line.
fn lld_after_tool(rest: &str) -> Option<(&str, &str)> {
    let rest = rest.strip_prefix(".exe").unwrap_or(rest);
    let rest = match rest.strip_prefix('-') {
        Some(number) if number.starts_with(|c: char| c.is_ascii_digit()) => {
            number.trim_start_matches(|c: char| c.is_ascii_digit())
        }
        _ => rest,
    };
    let rest = trim_ascii_space(rest).strip_prefix(':')?;
    let rest = trim_ascii_space(rest);
    let (severity, rest) = if let Some(rest) = rest.strip_prefix("error") {
        ("error", rest)
    } else {
        ("warning", rest.strip_prefix("warning")?)
    };
    let rest = trim_ascii_space(rest).strip_prefix(':')?;
    Some((severity, trim_ascii_space(rest)))
}

/// Whether `rest` ends in `:LINE` (a `source:line` reference).
pub(super) fn looks_like_source_location(rest: &str) -> bool {
    match rest.rsplit_once(':') {
        Some((_, number)) => !number.is_empty() && number.bytes().all(|b| b.is_ascii_digit()),
        None => false,
    }
}

/// Splits lld-link's `object:(function)`; object paths may hold `C:` but not `:(`.
pub(super) fn split_object_function(rest: &str) -> Option<Reference> {
    static OPEN: std::sync::OnceLock<memchr::memmem::Finder<'static>> = std::sync::OnceLock::new();
    let at = OPEN
        .get_or_init(|| memchr::memmem::Finder::new(":("))
        .find(rest.as_bytes())?;
    let function = rest[at + 2..].strip_suffix(')')?;
    Some(Reference {
        object: Some(rest[..at].to_string()),
        function: Some(function.to_string()),
        ..Default::default()
    })
}

/// The event of one lld-link record: an unresolved symbol, the error-limit notice, or a finding.
pub(super) fn lld_event(severity: &str, rest: &str, line_number: u64) -> Event {
    let (root, rest) = match rest.strip_prefix("<root>: ") {
        Some(r) => (true, r),
        None => (false, rest),
    };
    if severity == "error" {
        if let Some(name) = rest.strip_prefix("undefined symbol: ") {
            let name = name.trim_ws();
            return Event::Unresolved(UnresolvedRecord {
                linker: Linker::LldLink,
                code: None,
                symbol: classify_text(name),
                reference: root.then(|| Reference {
                    object: Some("<root>".into()),
                    ..Default::default()
                }),
            });
        }
        if rest.starts_with("too many errors emitted") {
            return Event::TooManyErrors;
        }
    }
    // `duplicate symbol: NAME` (an error, or a warning under /force): the name is its value;
    // the definers follow on `>>> defined at` lines.
    let values = match rest.strip_prefix("duplicate symbol: ") {
        Some(name) => vec![name.trim_ws().to_string()],
        None => quoted_values(rest),
    };
    Event::Finding(Finding {
        code: format!("lld-link {severity}"),
        text: rest.to_string(),
        values,
        objects: object_tokens(rest),
        line: line_number,
    })
}
