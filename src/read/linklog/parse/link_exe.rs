//! link.exe's records: `PRE : [fatal] error LNKnnnn: DESC` in any language, and the Visual
//! Studio Error List's tab-separated rows.

use super::shown::{
    classify_text, leading_pair, parse_shown, shown_display, shown_from_token, shown_function,
};
use super::{
    all_quoted_values, finders, object_tokens, patterns, quoted_values, Event, Finding, Linker,
    Reference, ShownName, UnresolvedRecord,
};
use crate::read::linklog::trim::TrimWhitespace;

/// Lowercase ASCII words of link.exe's unresolved-symbol templates in the languages Visual Studio
/// ships; a bare token that is one of them is text, not a symbol. (Words with non-ASCII letters
/// never qualify as symbols anyway.)
const TEMPLATE_WORDS: &[&str] = &[
    // en
    "unresolved",
    "external",
    "symbol",
    "referenced",
    "in",
    "function",
    "the",
    // English as reporters render localized output ("link to unresolved external symbol X in
    // the function Y", "reference to an unresolved external symbol X")
    "link",
    "to",
    "reference",
    "an",
    // it
    "simbolo",
    "esterno",
    "non",
    "risolto",
    "a",
    "cui",
    "si",
    "fa",
    "riferimento",
    "nella",
    "funzione",
    // de
    "verweis",
    "auf",
    "nicht",
    "externes",
    "funktion",
    // fr
    "symbole",
    "externe",
    "dans",
    "la",
    "fonction",
    // es, pt
    "externo",
    "sin",
    "resolver",
    "al",
    "que",
    "se",
    "hace",
    "referencia",
    "en",
    "referenciado",
    "na",
    "resolvido",
    "no",
    // pt-BR
    "resolvido",
    "referenciado",
    // pl, cs, tr
    "nierozpoznany",
    "zewnętrzny",
    "w",
    "funkcji",
    "funkci",
    "ve",
    "sembol",
    "fonksiyonunda",
    // English renderings of localized text that reporters post ("link to unresolved external
    // symbol X in the function Y", "reference to an unresolved external symbol X")
    "extern",
    "unsolved",
    "link",
    "reference",
    "to",
    "an",
    "the",
    "of",
];

/// Words that introduce the referencing function (before it), in the shipped languages.
const FUNCTION_MARKERS_BEFORE: &[&str] = &[
    "function",
    "funzione",
    "funktion",
    "fonction",
    "función",
    "funcion",
    "função",
    "funcao",
    "funkcji",
    "funkci",
    "функции",
    "函数",
    "函式",
    "関数",
];

/// Words that follow the referencing function (Korean puts 함수 after the name).
const FUNCTION_MARKERS_AFTER: &[&str] = &["함수"];

/// A symbol-like item found in a description, with its byte span.
#[derive(Debug)]
struct Candidate {
    start: usize,
    end: usize,
    name: ShownName,
}

/// Marks `start..end` as taken by a candidate, unless part of it already is (then `false`).
fn claim(taken: &mut [bool], start: usize, end: usize) -> bool {
    if taken[start..end].iter().any(|&t| t) {
        return false;
    }
    taken[start..end].iter_mut().for_each(|t| *t = true);
    true
}

/// Finds symbol-like items in a localized description: `"display" (decorated)` pairs, quoted
/// names and bare ASCII linker names that are not template words.
fn candidates(desc: &str) -> Vec<Candidate> {
    let p = patterns();
    let mut out: Vec<Candidate> = Vec::new();
    let mut taken = vec![false; desc.len()];
    for m in p.pair.captures_iter(desc) {
        let whole = m.get(0).expect("group 0");
        // Matches of one regex never overlap: a pair always claims its span.
        claim(&mut taken, whole.start(), whole.end());
        out.push(Candidate {
            start: whole.start(),
            end: whole.end(),
            name: ShownName {
                display: Some(m["display"].to_string()),
                decorated: Some(m["decorated"].to_string()),
            },
        });
    }
    for m in p.quoted.captures_iter(desc) {
        let whole = m.get(0).expect("group 0");
        if !claim(&mut taken, whole.start(), whole.end()) {
            continue;
        }
        out.push(Candidate {
            start: whole.start(),
            end: whole.end(),
            name: classify_text(&m["text"]),
        });
    }
    for m in p.bare.find_iter(desc) {
        if taken[m.start()..m.end()].iter().any(|&t| t) {
            continue;
        }
        // A token glued to non-ASCII letters is part of a word (`aufgelöstes`), not a name.
        let before = desc[..m.start()].chars().next_back();
        let after = desc[m.end()..].chars().next();
        if before.is_some_and(|c| c.is_alphabetic() && !c.is_ascii())
            || after.is_some_and(|c| c.is_alphabetic() && !c.is_ascii())
        {
            continue;
        }
        let token = m
            .as_str()
            .trim_end_matches(['.', ',', ':'])
            .trim_start_matches(':');
        if token.is_empty()
            || !token
                .chars()
                .any(|c| c.is_ascii_alphabetic() || c == '_' || c == '?')
            || TEMPLATE_WORDS.contains(&token.to_ascii_lowercase().as_str())
        {
            continue;
        }
        let start = m.start() + m.as_str().find(token).unwrap_or(0);
        out.push(Candidate {
            start,
            end: start + token.len(),
            name: shown_from_token(token),
        });
    }
    out.sort_by_key(|c| c.start);
    out
}

/// The symbol of the English template: link.exe quotes a name with spaces, so an unquoted one
/// ends at the first space (what follows is another column of a pasted Error List row).
fn first_name(text: &str) -> &str {
    if text.starts_with('"') {
        return text;
    }
    text.split_whitespace().next().unwrap_or(text)
}

/// Reads symbol and function from an LNK2019/LNK2001 description in any language.
fn parse_unresolved_description(desc: &str) -> Option<(ShownName, Option<String>, Option<String>)> {
    if let Some(rest) = desc.strip_prefix("unresolved external symbol ") {
        let (symbol, function) = match finders().referenced_in.find(rest.as_bytes()) {
            Some(at) => (
                &rest[..at],
                Some(rest[at + finders().referenced_in.needle().len()..].trim_ws()),
            ),
            None => (rest, None),
        };
        let symbol = parse_shown(first_name(symbol.trim_ws()));
        let function = function.filter(|f| !f.is_empty());
        // The function's pair, read once for both its names (`shown_function` reads it first).
        let pair = function.and_then(|f| leading_pair(f.trim_ws()));
        let decorated = pair.map(|(_, d)| d.to_string());
        let function_name = function.map(|f| match pair {
            Some((display, _)) => display.to_string(),
            None => shown_function(f),
        });
        return Some((symbol, function_name, decorated));
    }
    let found = candidates(desc);
    if found.is_empty() {
        return None;
    }
    let mut symbol = None;
    let mut function = None;
    let mut decorated = None;
    for (i, candidate) in found.iter().enumerate() {
        let before_start = if i == 0 { 0 } else { found[i - 1].end };
        let after_end = found.get(i + 1).map_or(desc.len(), |n| n.start);
        let before = desc[before_start.min(candidate.start)..candidate.start].to_lowercase();
        let after = &desc[candidate.end..after_end.max(candidate.end)];
        let is_function = FUNCTION_MARKERS_BEFORE.iter().any(|m| before.contains(m))
            || FUNCTION_MARKERS_AFTER.iter().any(|m| after.contains(m))
            // English as reporters render other word orders: "in the Y function".
            || after.trim_ws_start().starts_with("function");
        if is_function && function.is_none() {
            function = Some(shown_display(&candidate.name));
            decorated = candidate
                .name
                .display
                .as_ref()
                .and(candidate.name.decorated.clone());
        } else if !is_function && symbol.is_none() {
            symbol = Some(candidate.name.clone());
        }
    }
    symbol.map(|s| (s, function, decorated))
}

/// The Visual Studio Error List copied as tab-separated rows:
/// `Severity<TAB>Code<TAB>Description<TAB>Project<TAB>File<TAB>Line<TAB>Suppression`; and the
/// older list, whose Description column holds the code (`错误<TAB>1  error LNK2005: DESC<TAB>File
/// <TAB>Project`, or the row without its first columns: `error LNK1112: DESC<TAB>File<TAB>Project`).
pub(super) fn error_list_row(line: &str, line_number: u64) -> Option<Event> {
    if !line.contains('\t') {
        return None;
    }
    let fields: Vec<&str> = line.split('\t').map(str::trim).collect();
    let is_code = |f: &str| {
        f.len() == 7 && f.starts_with("LNK") && f[3..].bytes().all(|b| b.is_ascii_digit())
    };
    if let Some(at) = fields.iter().position(|f| is_code(f)) {
        let desc = fields.get(at + 1)?;
        let file = fields
            .get(at + 3)
            .filter(|f| !f.is_empty())
            .map(|f| f.to_string());
        return Some(link_exe_event(fields[at], desc, file, line_number));
    }
    // The code inside a column, after at most a row number and two severity words.
    let (at, code, desc) = fields.iter().enumerate().find_map(|(i, f)| {
        let pos = finders().lnk.find(f.as_bytes())?;
        let code = f.get(pos..pos + 7).filter(|c| is_code(c))?;
        let rest = f[pos + 7..].trim_ws_start().strip_prefix(':')?;
        (f[..pos].split_whitespace().count() <= 3).then_some((i, code, rest.trim_ws()))
    })?;
    // The File column: the next one that names a file (the Project column names none).
    let file = fields[at + 1..]
        .iter()
        .find(|f| f.contains(['\\', '/']) || object_tokens(f).len() == 1)
        .filter(|f| !f.is_empty())
        .map(|f| f.to_string());
    Some(link_exe_event(code, desc, file, line_number))
}

/// Splits a link.exe line `PRE : [fatal] error LNKnnnn: DESC` at its code: by structure, so the
/// severity words may be in any language and the prefix anything (tool tags are removed later).
pub(crate) fn split_link_exe(line: &str) -> Option<(&str, &str, &str)> {
    let bytes = line.as_bytes();
    for pos in super::lnk_positions(bytes) {
        let Some(digits) = bytes.get(pos + 3..pos + 7) else {
            break;
        };
        if !digits.iter().all(u8::is_ascii_digit) {
            continue;
        }
        let mut after = pos + 7;
        while after < bytes.len() && (bytes[after] == b' ' || bytes[after] == b'\t') {
            after += 1;
        }
        if bytes.get(after) != Some(&b':') {
            continue;
        }
        let before = &line[..pos];
        let Some(colon) = before.rfind(':') else {
            continue;
        };
        // At most two severity words (`error`, `fatal error`) between the colon and the code.
        if before[colon + 1..].split_whitespace().nth(2).is_some() {
            continue;
        }
        let pre = before[..colon].trim_ws_end();
        return Some((pre, &line[pos..pos + 7], line[after + 1..].trim_ws_start()));
    }
    None
}

/// The event of one link.exe record: an unresolved symbol, the LNK1120 count, or a finding.
pub(super) fn link_exe_event(
    code: &str,
    desc: &str,
    object: Option<String>,
    line_number: u64,
) -> Event {
    match code {
        "LNK2019" | "LNK2001" => {
            if let Some((symbol, function, function_name)) = parse_unresolved_description(desc) {
                return Event::Unresolved(UnresolvedRecord {
                    linker: Linker::LinkExe,
                    code: Some(code.to_string()),
                    symbol,
                    reference: Some(Reference {
                        object,
                        function,
                        function_name,
                    }),
                });
            }
        }
        "LNK1120" => {
            if let Some(n) = patterns()
                .number
                .find(desc)
                .and_then(|m| m.as_str().parse().ok())
            {
                return Event::UnresolvedCount(n, object);
            }
        }
        _ => {}
    }
    let mut objects: Vec<String> = object.into_iter().collect();
    objects.extend(object_tokens(desc));
    objects.dedup();
    let mut values = if matches!(code, "LNK2005" | "LNK4217" | "LNK1169") {
        quoted_values(desc)
    } else {
        // Localized texts quote with `"` where English ones use `'`.
        all_quoted_values(desc)
    };
    if code == "LNK2005" || code == "LNK4217" {
        // The symbol is the first name of the description.
        if let Some(first) = candidates(desc).first() {
            values.insert(0, shown_display(&first.name));
        }
    }
    Event::Finding(Finding {
        code: code.to_string(),
        text: desc.to_string(),
        values,
        objects,
        line: line_number,
    })
}
