//! Message templates: the constant text and placeholders of a Python string that formats a
//! message (`%`-formats, `str.format` fields, f-string fields), and how much of a message a
//! template explains when its constant parts are laid over the message in order.

use std::ops::Range;

/// What a placeholder can stand for, from its conversion (`%d`, `{:x}`, ...).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gap {
    /// Any text, the empty text included (`%s`, `%r`, `{}`, `{name!r}`, an f-string field).
    Any,
    /// A decimal integer (`%d`, `%i`, `%u`, `{:d}`).
    Integer,
    /// A number with a fraction or exponent, `inf` or `nan` (`%f`, `%e`, `%g`, `{:.2f}`).
    Float,
    /// Hexadecimal digits, `0x` allowed (`%x`, `{:X}`).
    Hex,
    /// Octal digits, `0o` allowed (`%o`, `{:o}`).
    Octal,
    /// Binary digits, `0b` allowed (`{:b}`).
    Binary,
    /// One character (`%c`, `{:c}`).
    Character,
}

impl Gap {
    /// Whether `text` (a stretch of the message between two constant parts) can be what this
    /// placeholder printed. Padding spaces are allowed around numbers.
    pub fn accepts(self, text: &str) -> bool {
        let number = text.trim_matches(' ');
        let unsigned = number.trim_start_matches(['-', '+']);
        let digits = |text: &str, radix: u32, marker: &[&str]| {
            let text = marker
                .iter()
                .find_map(|m| text.strip_prefix(m))
                .unwrap_or(text);
            !text.is_empty()
                && text
                    .chars()
                    .all(|c| c.is_digit(radix) || c == '_' || c == ',')
        };
        match self {
            Gap::Any => true,
            Gap::Integer => digits(unsigned, 10, &[]),
            Gap::Hex => digits(unsigned, 16, &["0x", "0X"]),
            Gap::Octal => digits(unsigned, 8, &["0o", "0O"]),
            Gap::Binary => digits(unsigned, 2, &["0b", "0B"]),
            Gap::Character => text.chars().count() == 1,
            Gap::Float => {
                let lower = unsigned.to_ascii_lowercase();
                matches!(lower.as_str(), "inf" | "nan" | "infinity")
                    || (!lower.is_empty()
                        && lower.chars().any(|c| c.is_ascii_digit())
                        && lower.chars().all(|c| {
                            c.is_ascii_digit()
                                || matches!(c, '.' | 'e' | '-' | '+' | '%' | '_' | ',')
                        }))
            }
        }
    }

    /// Several placeholders in a row: only text any of them could print together.
    fn join(self, other: Gap) -> Gap {
        if self == Gap::Any || other == Gap::Any || self != other {
            Gap::Any
        } else {
            self
        }
    }
}

/// One part of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Piece {
    /// Constant text, and the 0-based physical line of the literal it comes from.
    Text(String, usize),
    /// A placeholder.
    Gap(Gap),
}

/// The constant parts and placeholders of one message-building expression, in order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Template {
    /// Constant texts and gaps, never two texts or two gaps in a row, no empty text.
    pieces: Vec<Piece>,
}

/// How a template lies over a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Match {
    /// The byte ranges of the message its constant parts cover, in order.
    pub covered: Vec<Range<usize>>,
    /// The byte ranges its placeholders cover between two matched constant parts.
    pub gaps: Vec<Range<usize>>,
    /// Characters of the message covered.
    pub covered_chars: usize,
    /// The physical line (0-based) of the first constant part matched.
    pub line: usize,
    /// The template produces the whole message: every constant part matched, and the message
    /// has nothing before the first or after the last that a placeholder does not cover.
    pub whole: bool,
}

impl Template {
    /// Appends constant text (merged with the text before it).
    pub fn push_text(&mut self, text: &str, line: usize) {
        if text.is_empty() {
            return;
        }
        if let Some(Piece::Text(last, _)) = self.pieces.last_mut() {
            last.push_str(text);
        } else {
            self.pieces.push(Piece::Text(text.to_string(), line));
        }
    }

    /// Appends a placeholder (merged with a placeholder before it).
    pub fn push_gap(&mut self, gap: Gap) {
        if let Some(Piece::Gap(last)) = self.pieces.last_mut() {
            *last = last.join(gap);
        } else {
            self.pieces.push(Piece::Gap(gap));
        }
    }

    /// Appends another template.
    pub fn extend(&mut self, other: Template) {
        for piece in other.pieces {
            match piece {
                Piece::Text(text, line) => self.push_text(&text, line),
                Piece::Gap(gap) => self.push_gap(gap),
            }
        }
    }

    /// The pieces.
    pub fn pieces(&self) -> &[Piece] {
        &self.pieces
    }

    /// The longest constant part.
    pub fn longest_text(&self) -> Option<&str> {
        self.texts().max_by_key(|text| text.len())
    }

    fn texts(&self) -> impl Iterator<Item = &str> {
        self.pieces.iter().filter_map(|piece| match piece {
            Piece::Text(text, _) => Some(text.as_str()),
            Piece::Gap(_) => None,
        })
    }

    /// The template as people read it: constant text with `{}` for each placeholder (`{{`, `}}`
    /// for braces in the text).
    pub fn display(&self) -> String {
        let mut out = String::new();
        for piece in &self.pieces {
            match piece {
                Piece::Text(text, _) => out.push_str(&text.replace('{', "{{").replace('}', "}}")),
                Piece::Gap(_) => out.push_str("{}"),
            }
        }
        out
    }

    /// The best way to lay the template's constant parts over `message`: a run of consecutive
    /// constant parts, each found in the message after the one before, with the message text
    /// between two of them acceptable to the placeholders between them; the run that covers
    /// the most characters. `None` when no constant part occurs in the message.
    pub fn explain(&self, message: &str) -> Option<Match> {
        let texts: Vec<(usize, &str, usize)> = self
            .pieces
            .iter()
            .enumerate()
            .filter_map(|(index, piece)| match piece {
                Piece::Text(text, line) => Some((index, text.as_str(), *line)),
                Piece::Gap(_) => None,
            })
            .collect();
        // Where each constant part occurs (bounded: a one-character part may occur often).
        let occurrences: Vec<Vec<usize>> = texts
            .iter()
            .map(|(_, text, _)| {
                memchr::memmem::find_iter(message.as_bytes(), text.as_bytes())
                    .take(MAX_OCCURRENCES)
                    .collect()
            })
            .collect();
        let best = self.runs(&texts, &occurrences, message);
        // The best run overall, then walk it back.
        let (mut k, mut o, covered_chars) = best
            .iter()
            .enumerate()
            .flat_map(|(k, row)| row.iter().enumerate().map(move |(o, e)| (k, o, e.0)))
            .max_by_key(|&(k, o, total)| (total, std::cmp::Reverse((k, o))))?;
        let last = k;
        let mut covered = Vec::new();
        loop {
            let start = occurrences[k][o];
            covered.push(start..start + texts[k].1.len());
            match best[k][o].1 {
                Some(previous) => {
                    o = previous;
                    k -= 1;
                }
                None => break,
            }
        }
        covered.reverse();
        let first = k;
        let gaps = covered
            .windows(2)
            .map(|pair| pair[0].end..pair[1].start)
            .collect();
        let whole = first == 0
            && last == texts.len() - 1
            && self.edge_accepts(texts[first].0, &message[..covered[0].start], true)
            && self.edge_accepts(
                texts[last].0,
                &message[covered[covered.len() - 1].end..],
                false,
            );
        Some(Match {
            covered,
            gaps,
            covered_chars,
            line: texts[first].2,
            whole,
        })
    }

    /// For each constant part `k` (of `texts`) and each of its occurrences `o`: the most
    /// characters covered by a run of consecutive parts ending with `k` at `o`, and the occurrence
    /// of part `k - 1` that run continues (`None`: it starts at `k`).
    fn runs(
        &self,
        texts: &[(usize, &str, usize)],
        occurrences: &[Vec<usize>],
        message: &str,
    ) -> Vec<Vec<(usize, Option<usize>)>> {
        let mut best: Vec<Vec<(usize, Option<usize>)>> = Vec::with_capacity(texts.len());
        for (k, (index, text, _)) in texts.iter().enumerate() {
            let length = char_count(text);
            let mut row = Vec::with_capacity(occurrences[k].len());
            for &start in &occurrences[k] {
                let mut entry = (length, None);
                if k > 0 {
                    let gap = self.gap_between(texts[k - 1].0, *index);
                    let previous_length = texts[k - 1].1.len();
                    for (o, &previous) in occurrences[k - 1].iter().enumerate() {
                        let end = previous + previous_length;
                        if end > start || !gap.accepts(&message[end..start]) {
                            continue;
                        }
                        let total = best[k - 1][o].0 + length;
                        if total > entry.0 {
                            entry = (total, Some(o));
                        }
                    }
                }
                row.push(entry);
            }
            best.push(row);
        }
        best
    }

    /// The placeholder(s) between pieces `from` and `to` (two constant parts with at least one
    /// gap between them: texts are never adjacent).
    fn gap_between(&self, from: usize, to: usize) -> Gap {
        self.pieces[from + 1..to]
            .iter()
            .filter_map(|piece| match piece {
                Piece::Gap(gap) => Some(*gap),
                Piece::Text(..) => None,
            })
            .reduce(Gap::join)
            .unwrap_or(Gap::Any)
    }

    /// Whether the message text before the first constant part (or after the last) is what the
    /// template prints there: nothing, or what its leading (trailing) placeholder accepts.
    fn edge_accepts(&self, text_index: usize, rest: &str, leading: bool) -> bool {
        if rest.is_empty() {
            return true;
        }
        let neighbour = if leading {
            text_index.checked_sub(1).map(|i| &self.pieces[i])
        } else {
            self.pieces.get(text_index + 1)
        };
        matches!(neighbour, Some(Piece::Gap(gap)) if gap.accepts(rest))
    }
}

/// Occurrences of one constant part considered.
const MAX_OCCURRENCES: usize = 64;

fn char_count(text: &str) -> usize {
    text.chars().count()
}

/// Characters of `message` inside `ranges` (byte ranges on character boundaries).
pub fn chars_in(message: &str, ranges: &[Range<usize>]) -> usize {
    ranges
        .iter()
        .map(|range| char_count(&message[range.clone()]))
        .sum()
}

/// How a literal's placeholders are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `"..." % args`: printf-style conversions only.
    Percent,
    /// `"...".format(...)`: `str.format` fields only.
    Format,
    /// Nothing formats it here (a constant, an argument): it may be formatted later either
    /// way, so both kinds of placeholder count (`str.format` fields only when well-formed).
    Unknown,
}

/// The template of a plain (not f-) string's value.
pub fn plain(value: &str, style: Style, line: usize) -> Template {
    let mut template = Template::default();
    match style {
        Style::Percent => percent_into(value, line, &mut template),
        Style::Format => format_into(value, line, false, &mut template),
        Style::Unknown => {
            let mut braces = Template::default();
            format_into(value, line, true, &mut braces);
            for piece in braces.pieces {
                match piece {
                    Piece::Text(text, line) => percent_into(&text, line, &mut template),
                    Piece::Gap(gap) => template.push_gap(gap),
                }
            }
        }
    }
    template
}

/// Adds a printf-style string's parts: `%s`, `%-10s`, `%(name)r`, `%5.2f`, `%%`; anything that
/// is not a valid conversion is text, as Python prints it.
fn percent_into(value: &str, line: usize, template: &mut Template) {
    let bytes = value.as_bytes();
    let mut text_start = 0;
    let mut position = 0;
    while let Some(offset) = memchr::memchr(b'%', &bytes[position..]) {
        let percent = position + offset;
        match percent_conversion(bytes, percent) {
            Some((end, gap)) => {
                template.push_text(&value[text_start..percent], line);
                match gap {
                    Some(gap) => template.push_gap(gap),
                    None => template.push_text("%", line),
                }
                text_start = end;
                position = end;
            }
            None => position = percent + 1,
        }
    }
    template.push_text(&value[text_start..], line);
}

/// The conversion starting at the `%` at `start`: where it ends and what it prints (`None`:
/// `%%`, a literal percent sign). `None` when it is not a valid conversion.
fn percent_conversion(bytes: &[u8], start: usize) -> Option<(usize, Option<Gap>)> {
    let mut i = start + 1;
    if bytes.get(i) == Some(&b'%') {
        return Some((i + 1, None));
    }
    if bytes.get(i) == Some(&b'(') {
        let close = bytes[i..].iter().position(|&b| b == b')')?;
        i += close + 1;
    }
    while matches!(bytes.get(i), Some(b'#' | b'0' | b'-' | b' ' | b'+')) {
        i += 1;
    }
    if bytes.get(i) == Some(&b'*') {
        i += 1;
    } else {
        while bytes.get(i).is_some_and(u8::is_ascii_digit) {
            i += 1;
        }
    }
    if bytes.get(i) == Some(&b'.') {
        i += 1;
        if bytes.get(i) == Some(&b'*') {
            i += 1;
        } else {
            while bytes.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
        }
    }
    while matches!(bytes.get(i), Some(b'h' | b'l' | b'L')) {
        i += 1;
    }
    let gap = match bytes.get(i)? {
        b'd' | b'i' | b'u' => Gap::Integer,
        b'x' | b'X' => Gap::Hex,
        b'o' => Gap::Octal,
        b'e' | b'E' | b'f' | b'F' | b'g' | b'G' => Gap::Float,
        b'c' => Gap::Character,
        b's' | b'r' | b'a' => Gap::Any,
        _ => return None,
    };
    Some((i + 1, Some(gap)))
}

/// Adds a `str.format` string's parts: `{}`, `{0}`, `{name.attr[0]!r:>10}`, `{{`, `}}`. With
/// `strict`, only well-formed field names count as fields (so `{"a": 1}` stays text).
fn format_into(value: &str, line: usize, strict: bool, template: &mut Template) {
    let bytes = value.as_bytes();
    let mut text = String::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => {
                text.push('{');
                i += 2;
            }
            b'}' if bytes.get(i + 1) == Some(&b'}') => {
                text.push('}');
                i += 2;
            }
            b'{' => match field_end(bytes, i) {
                Some(end) if !strict || well_formed_field(&value[i + 1..end - 1]) => {
                    template.push_text(&text, line);
                    text.clear();
                    template.push_gap(spec_gap(&value[i + 1..end - 1]));
                    i = end;
                }
                _ => {
                    text.push('{');
                    i += 1;
                }
            },
            _ => {
                let next = next_char_boundary(value, i);
                text.push_str(&value[i..next]);
                i = next;
            }
        }
    }
    template.push_text(&text, line);
}

fn next_char_boundary(value: &str, i: usize) -> usize {
    let mut next = i + 1;
    while !value.is_char_boundary(next) {
        next += 1;
    }
    next
}

/// The end (past the closing `}`) of the field opening at `start`; braces nest in the format spec.
fn field_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (offset, &byte) in bytes[start..].iter().enumerate() {
        match byte {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(start + offset + 1);
                }
            }
            _ => {}
        }
    }
    None
}

/// `name`, `0`, `name.attr`, `name[key]`, each optionally with `!r` and a `:spec`.
fn well_formed_field(inner: &str) -> bool {
    let name_end = inner.find(['!', ':']).unwrap_or(inner.len());
    let name = &inner[..name_end];
    let name_ok = name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '[' | ']'))
        && !name.starts_with(['.', '[']);
    let rest = &inner[name_end..];
    let conversion_ok = match rest.strip_prefix('!') {
        Some(after) => {
            matches!(after.chars().next(), Some('r' | 's' | 'a'))
                && matches!(after.chars().nth(1), None | Some(':'))
        }
        None => true,
    };
    name_ok && conversion_ok
}

/// What a field prints, from the presentation type at the end of its format spec.
fn spec_gap(inner: &str) -> Gap {
    // The spec follows the first top-level ':' after the name/conversion.
    let Some(colon) = top_level_colon(inner) else {
        return Gap::Any;
    };
    let spec = &inner[colon + 1..];
    if spec.contains('{') {
        return Gap::Any;
    }
    match spec.chars().last() {
        Some('d' | 'n') => Gap::Integer,
        Some('x' | 'X') => Gap::Hex,
        Some('o') => Gap::Octal,
        Some('b') => Gap::Binary,
        Some('e' | 'E' | 'f' | 'F' | 'g' | 'G' | '%') => Gap::Float,
        Some('c') => Gap::Character,
        _ => Gap::Any,
    }
}

/// The first `:` of a field outside brackets and strings (an f-string field's expression may
/// hold `d[1:2]`, `{'a': 1}`, `lambda x: x` in parentheses).
fn top_level_colon(inner: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    for (i, c) in inner.char_indices() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), _) => {}
            (None, '\'' | '"') => quote = Some(c),
            (None, '(' | '[' | '{') => depth += 1,
            (None, ')' | ']' | '}') => depth = depth.saturating_sub(1),
            (None, ':') if depth == 0 => return Some(i),
            _ => {}
        }
    }
    None
}

/// The template of an f-string's body as written: the text between fields (escapes undone
/// unless `raw`), `{{`/`}}`, and each `{expression!r:spec}` a placeholder; `{name=}` prints
/// `name=` before the value.
pub fn formatted(body: &str, raw: bool, line: usize) -> Template {
    let mut template = Template::default();
    let bytes = body.as_bytes();
    let mut text = String::new();
    let flush = |text: &mut String, template: &mut Template| {
        let value = if raw {
            text.clone()
        } else {
            crate::fix::patch::python::unescape_all(text)
        };
        template.push_text(&value, line);
        text.clear();
    };
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'{' if bytes.get(i + 1) == Some(&b'{') => {
                text.push_str("{{");
                i += 2;
            }
            b'}' if bytes.get(i + 1) == Some(&b'}') => {
                text.push_str("}}");
                i += 2;
            }
            b'\\' if !raw && body[i..].starts_with("\\N{") => {
                let end = body[i..].find('}').map_or(body.len(), |e| i + e + 1);
                text.push_str(&body[i..end]);
                i = end;
            }
            b'{' => {
                let (end, inner) = match formatted_field_end(bytes, i) {
                    Some(end) => (end, &body[i + 1..end - 1]),
                    // A field left open runs to the end of the literal.
                    None => (bytes.len(), &body[i + 1..]),
                };
                flush(&mut text, &mut template);
                let expression_end = top_level_colon(inner).unwrap_or(inner.len());
                let expression = &inner[..expression_end];
                let expression = match expression.rfind('!') {
                    Some(bang) if !expression[bang..].starts_with("!=") => &expression[..bang],
                    _ => expression,
                };
                // `{name=}` and `{name = !r}` print the expression as written, spaces kept.
                if let Some(name) = expression.trim_end().strip_suffix('=') {
                    if !name.ends_with(['=', '!', '<', '>']) {
                        template.push_text(expression, line);
                    }
                }
                template.push_gap(spec_gap(inner));
                i = end;
            }
            _ => {
                let next = next_char_boundary(body, i);
                text.push_str(&body[i..next]);
                i = next;
            }
        }
    }
    // `{{` and `}}` were kept doubled so that unescaping cannot create fields; undo them now.
    flush(&mut text, &mut template);
    let pieces = template
        .pieces
        .into_iter()
        .map(|piece| match piece {
            Piece::Text(text, line) => {
                Piece::Text(text.replace("{{", "{").replace("}}", "}"), line)
            }
            gap => gap,
        })
        .collect();
    Template { pieces }
}

/// The end (past the `}`) of an f-string field opening at `start`: brackets and strings in the
/// expression are skipped, braces in the format spec nest.
fn formatted_field_end(bytes: &[u8], start: usize) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<u8> = None;
    // Past the field's top-level ':': the format spec, where quotes are plain text.
    let mut spec = false;
    let mut i = start;
    while i < bytes.len() {
        let byte = bytes[i];
        match quote {
            Some(q) => {
                if byte == b'\\' {
                    i += 1;
                } else if byte == q {
                    quote = None;
                }
            }
            None if spec => match byte {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            },
            None => match byte {
                b':' if depth == 1 => spec = true,
                b'\'' | b'"' => quote = Some(byte),
                b'{' | b'(' | b'[' => depth += 1,
                b')' | b']' => depth = depth.saturating_sub(1),
                b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return Some(i + 1);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn show(template: &Template) -> String {
        template
            .pieces()
            .iter()
            .map(|piece| match piece {
                Piece::Text(text, _) => format!("[{text}]"),
                Piece::Gap(gap) => format!("<{gap:?}>"),
            })
            .collect()
    }

    #[test]
    fn percent_conversions() {
        let rows = [
            (
                "Keyword argument %s was specified but unrecognised",
                "[Keyword argument ]<Any>[ was specified but unrecognised]",
            ),
            (
                "%s: line %d column %d (char %d)",
                "<Any>[: line ]<Integer>[ column ]<Integer>[ (char ]<Integer>[)]",
            ),
            (
                "%(name)s is %-10r, %5.2f%% done",
                "<Any>[ is ]<Any>[, ]<Float>[% done]",
            ),
            (
                "%x %o %c %*d %.*f",
                "<Hex>[ ]<Octal>[ ]<Character>[ ]<Integer>[ ]<Float>",
            ),
            (
                "100%% sure, 5%, trailing %z",
                "[100% sure, 5%, trailing %z]",
            ),
            // Python's own reading: a space and `-` are conversion flags.
            ("100% sure, 5%-o", "[100]<Any>[ure, 5]<Octal>"),
            ("%(unclosed", "[%(unclosed]"),
            ("{} stays text", "[{} stays text]"),
        ];
        for (value, expected) in rows {
            assert_eq!(
                show(&plain(value, Style::Percent, 0)),
                expected,
                "{value:?}"
            );
        }
    }

    #[test]
    fn format_fields() {
        let rows = [
            (
                "{} and {0} and {name!r:>10}",
                Style::Format,
                "<Any>[ and ]<Any>[ and ]<Any>",
            ),
            (
                "{{literal}} {x:d} {y:.2f} {z:#x}",
                Style::Format,
                "[{literal} ]<Integer>[ ]<Float>[ ]<Hex>",
            ),
            ("{a.b[0]:{width}}", Style::Format, "<Any>"),
            ("%s kept", Style::Format, "[%s kept]"),
            // Unknown use: both kinds, and only well-formed fields.
            (
                "{\"a\": %d} and {key}",
                Style::Unknown,
                "[{\"a\": ]<Integer>[} and ]<Any>",
            ),
            ("unclosed {", Style::Unknown, "[unclosed {]"),
        ];
        for (value, style, expected) in rows {
            assert_eq!(show(&plain(value, style, 0)), expected, "{value:?}");
        }
    }

    #[test]
    fn f_string_fields() {
        let rows = [
            (
                "Command '{cmd}' timed out after {t} seconds",
                false,
                "[Command ']<Any>[' timed out after ]<Any>[ seconds]",
            ),
            (
                "{d['}']!r} {{x}} {v:>{w}} {n:d}",
                false,
                "<Any>[ {x} ]<Any>[ ]<Integer>",
            ),
            ("{x=} and {y = !r}", false, "[x=]<Any>[ and y = ]<Any>"),
            ("{a!=b} {a==b}", false, "<Any>[ ]<Any>"),
            (
                "tab\\there \\N{BULLET} {x}",
                false,
                "[tab\there \\N{BULLET} ]<Any>",
            ),
            ("raw\\t{x}\\{y}", true, "[raw\\t]<Any>[\\]<Any>"),
            ("{x[\"k\"]:'>10} end", false, "<Any>[ end]"),
        ];
        for (body, raw, expected) in rows {
            assert_eq!(show(&formatted(body, raw, 0)), expected, "{body:?}");
        }
    }

    #[test]
    fn explains_in_order_with_typed_gaps() {
        let template = plain("%s: line %d column %d (char %d)", Style::Percent, 3);
        let message = "Expecting value: line 1 column 1 (char 0)";
        let found = template.explain(message).expect("matches");
        assert_eq!(
            found.covered_chars,
            ": line ".len() + " column ".len() + " (char ".len() + 1
        );
        assert!(found.whole);
        assert_eq!(found.line, 3);
        assert_eq!(found.gaps.len(), 3);
        // A number placeholder does not take words.
        let found = template
            .explain("Expecting value: line one column 1 (char 0)")
            .unwrap();
        assert!(!found.whole);
        assert_eq!(found.covered_chars, " column ".len() + " (char ".len() + 1);

        let template = plain(
            "Keyword argument %s was specified but unrecognised",
            Style::Percent,
            0,
        );
        let found = template
            .explain("Keyword argument launch_pdl was specified but unrecognised")
            .unwrap();
        assert_eq!(found.covered_chars, 48);
        assert!(found.whole);
        // Out of order: only the better part counts.
        let found = template
            .explain(" was specified but unrecognised: Keyword argument x")
            .unwrap();
        assert_eq!(found.covered_chars, " was specified but unrecognised".len());
        assert!(!found.whole);
        assert_eq!(template.explain("nothing alike"), None);
    }

    #[test]
    fn gaps_accept_what_their_conversion_prints() {
        assert!(Gap::Integer.accepts("-12"));
        assert!(Gap::Integer.accepts("  7"));
        assert!(!Gap::Integer.accepts("7a"));
        assert!(!Gap::Integer.accepts(""));
        assert!(Gap::Float.accepts("1.5e-3"));
        assert!(Gap::Float.accepts("nan"));
        assert!(!Gap::Float.accepts("x"));
        assert!(Gap::Hex.accepts("0xff"));
        assert!(Gap::Character.accepts("é"));
        assert!(Gap::Any.accepts(""));
    }
}
