//! Just enough of Python's lexical structure to find statements: physical lines, logical lines
//! (brackets, backslash continuations and triple-quoted strings join physical lines), indentation,
//! and the string literals in a range of lines. Works on bytes: every Python delimiter is ASCII, and
//! the bytes of the file are never rewritten, only spliced at line boundaries.

/// One physical line of the file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PhysicalLine<'a> {
    /// The line without its ending.
    pub text: &'a [u8],
    /// `b"\r\n"`, `b"\n"`, or empty for a last line without a newline.
    pub ending: &'a [u8],
}

impl PhysicalLine<'_> {
    /// The line with its ending, as it is in the file.
    pub fn with_ending(&self) -> Vec<u8> {
        let mut bytes = self.text.to_vec();
        bytes.extend_from_slice(self.ending);
        bytes
    }
}

/// Splits on `\n`; a `\r` just before it belongs to the ending (the Windows wheels ship CRLF).
pub(crate) fn split_lines(source: &[u8]) -> Vec<PhysicalLine<'_>> {
    let mut lines = Vec::new();
    let mut rest = source;
    while !rest.is_empty() {
        match rest.iter().position(|&byte| byte == b'\n') {
            Some(newline) => {
                let (text, ending) = if newline > 0 && rest[newline - 1] == b'\r' {
                    (&rest[..newline - 1], &rest[newline - 1..=newline])
                } else {
                    (&rest[..newline], &rest[newline..=newline])
                };
                lines.push(PhysicalLine { text, ending });
                rest = &rest[newline + 1..];
            }
            None => {
                lines.push(PhysicalLine {
                    text: rest,
                    ending: &[],
                });
                rest = &[];
            }
        }
    }
    lines
}

/// One statement line: a logical line of Python, possibly spanning several physical lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LogicalLine {
    /// Index of its first physical line.
    pub first: usize,
    /// Index of its last physical line.
    pub last: usize,
    /// Its leading whitespace (spaces and tabs, as written).
    pub indent: Vec<u8>,
    /// Its text with comments and the leading whitespace removed, physical lines joined by a space.
    pub code: String,
}

impl LogicalLine {
    /// Indentation width, counting a tab as reaching the next multiple of 8 (Python's rule).
    pub fn width(&self) -> usize {
        indent_width(&self.indent)
    }
}

/// Width of leading whitespace, tabs to the next multiple of 8.
pub(crate) fn indent_width(indent: &[u8]) -> usize {
    indent.iter().fold(0, |width, &byte| match byte {
        b'\t' => (width / 8 + 1) * 8,
        _ => width + 1,
    })
}

/// A string literal found by the scanner: the physical line it starts on, its raw body (escapes
/// not interpreted, quotes and prefix removed), its prefix, and where it sits in its statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct StringLiteral {
    /// Index of the physical line it starts on.
    pub line: usize,
    /// The characters between the quotes, as written.
    pub body: String,
    /// The prefix letters as written (`r`, `f`, `Rb`, ...; empty for none).
    pub prefix: String,
    /// Index in [`Scan::logical`] of the statement it belongs to.
    pub logical: usize,
    /// Byte range in that statement's [`LogicalLine::code`], from the prefix to the closing quote.
    pub span: std::ops::Range<usize>,
}

impl StringLiteral {
    /// Whether backslashes are kept as written (an `r` prefix).
    pub fn is_raw(&self) -> bool {
        self.prefix.contains(['r', 'R'])
    }
    /// Whether `{...}` are replacement fields (an `f` or `t` prefix).
    pub fn is_formatted(&self) -> bool {
        self.prefix.contains(['f', 'F', 't', 'T'])
    }
}

/// The lexical view of a file: its logical lines and string literals, in order.
#[derive(Debug, Default)]
pub(crate) struct Scan {
    /// Every statement line (blank and comment-only lines are not statements).
    pub logical: Vec<LogicalLine>,
    /// Every string literal.
    pub strings: Vec<StringLiteral>,
    /// The physical line (0-based) of a statement still open at the end of the file: a bracket,
    /// a triple-quoted string or a backslash continuation that never closes (a truncated file).
    pub unterminated: Option<usize>,
}

/// A string literal the scanner is inside of.
#[derive(Clone)]
struct OpenString {
    quote: u8,
    triple: bool,
    start_line: usize,
    /// Where the literal starts in its statement's code (its prefix included).
    start: usize,
    prefix: String,
    /// An f-string (or t-string): `{...}` are replacement fields.
    formatted: bool,
    raw: bool,
    /// The replacement fields the scanner is inside of, innermost last.
    fields: Vec<Field>,
    /// A string literal inside a replacement field: its quote and whether it is triple-quoted.
    nested: Option<(u8, bool)>,
}

/// One replacement field of an f-string being scanned.
#[derive(Clone, Copy)]
struct Field {
    /// Open brackets of the field's expression.
    brackets: usize,
    /// Past the field's top-level `:`: the format spec, where quotes are plain text.
    spec: bool,
}

/// The prefix letters just before a quote at the end of `code` (`f`, `rb`, ...), if they form a
/// valid string prefix and are not the end of a longer name.
fn string_prefix(code: &[u8]) -> &[u8] {
    let is_name = |byte: &u8| byte.is_ascii_alphanumeric() || *byte == b'_' || *byte >= 0x80;
    let letters = code.iter().rev().take_while(|byte| is_name(byte)).count();
    let prefix = &code[code.len() - letters..];
    let lower = prefix.to_ascii_lowercase();
    let valid = matches!(
        lower.as_slice(),
        b"r" | b"u" | b"b" | b"f" | b"t" | b"br" | b"rb" | b"fr" | b"rf" | b"tr" | b"rt"
    );
    if valid {
        prefix
    } else {
        &[]
    }
}

/// The width of the closing quote(s) at `position`, if a string opened with `quote` ends there.
fn closing_width(text: &[u8], position: usize, quote: u8, triple: bool) -> Option<usize> {
    if text[position] != quote {
        return None;
    }
    if !triple {
        return Some(1);
    }
    (text.get(position + 1) == Some(&quote) && text.get(position + 2) == Some(&quote)).then_some(3)
}

/// How many bytes at `position` belong to an f-string's replacement-field structure (fields
/// opened and closed, strings inside fields, the literal `{{`/`}}`), updating `open`; 0 when the
/// byte is ordinary text of the literal. Only called for f-strings, outside a nested string.
fn formatted_step(open: &mut OpenString, text: &[u8], position: usize) -> usize {
    let byte = text[position];
    let next = text.get(position + 1).copied();
    match open.fields.last_mut() {
        // Literal text, or a format spec: `{` opens a field, `}` closes the spec's field.
        None | Some(Field { spec: true, .. }) => match byte {
            b'{' | b'}' if open.fields.is_empty() && next == Some(byte) => 2,
            b'\\' if !open.raw && next == Some(b'N') && text.get(position + 2) == Some(&b'{') => {
                // \N{NAME}: the braces belong to the escape.
                let close = text[position..].iter().position(|&b| b == b'}');
                close.map_or(text.len() - position, |c| c + 1)
            }
            b'\\' if matches!(next, Some(b'{') | Some(b'}')) => 1,
            b'{' => {
                open.fields.push(Field {
                    brackets: 0,
                    spec: false,
                });
                1
            }
            b'}' if !open.fields.is_empty() => {
                open.fields.pop();
                1
            }
            _ => 0,
        },
        // The field's expression: brackets, strings, the spec's `:` and the closing `}`.
        Some(field) => match byte {
            b'(' | b'[' | b'{' => {
                field.brackets += 1;
                1
            }
            b')' | b']' | b'}' if field.brackets > 0 => {
                field.brackets -= 1;
                1
            }
            b'}' => {
                open.fields.pop();
                1
            }
            b':' if field.brackets == 0 => {
                field.spec = true;
                1
            }
            b'\'' | b'"' => {
                let triple = next == Some(byte) && text.get(position + 2) == Some(&byte);
                open.nested = Some((byte, triple));
                if triple {
                    3
                } else {
                    1
                }
            }
            _ => 0,
        },
    }
}

/// What the byte at a position inside a string literal does.
enum Step {
    /// That many bytes belong to the literal's body.
    Inside(usize),
    /// That many bytes are its closing quote(s).
    Closes(usize),
}

/// One step through a string literal: an escape, a nested string or a field of an f-string,
/// the closing quote, or one ordinary byte.
fn string_step(open: &mut OpenString, text: &[u8], position: usize) -> Step {
    let byte = text[position];
    if let Some((quote, triple)) = open.nested {
        return match closing_width(text, position, quote, triple) {
            Some(width) => {
                open.nested = None;
                Step::Inside(width)
            }
            None if byte == b'\\' => Step::Inside(2),
            None => Step::Inside(1),
        };
    }
    if byte == b'\\' && !(open.formatted && open.fields.is_empty()) {
        return Step::Inside(2);
    }
    let structural = if open.formatted {
        formatted_step(open, text, position)
    } else {
        0
    };
    match structural {
        0 if byte == b'\\' => Step::Inside(2),
        0 if open.fields.is_empty() => match closing_width(text, position, open.quote, open.triple)
        {
            Some(width) => Step::Closes(width),
            None => Step::Inside(1),
        },
        0 => Step::Inside(1),
        width => Step::Inside(width),
    }
}

/// Scans the whole file. Never fails: malformed input just yields fewer or odd statements, and
/// the callers then do not find what they look for.
///
/// Literal spans are byte offsets into [`LogicalLine::code`], exact when the file is UTF-8.
/// F-strings are read as Python 3.12 reads them: a replacement field may hold strings, even
/// with the f-string's own quote.
pub(crate) fn scan(lines: &[PhysicalLine<'_>]) -> Scan {
    let mut scanner = Scanner::default();
    for (index, line) in lines.iter().enumerate() {
        scanner.line(index, line.text);
    }
    scanner.finish()
}

/// The scan's state between bytes and lines.
#[derive(Default)]
struct Scanner {
    /// What was found so far.
    result: Scan,
    /// The string literal open at this point.
    open_string: Option<OpenString>,
    /// Its body so far.
    string_body: Vec<u8>,
    /// Brackets open.
    depth: usize,
    /// The last physical line ended with a backslash.
    continued: bool,
    /// The logical line being read.
    current: Option<LogicalLine>,
}

impl Scanner {
    /// Reads one physical line.
    fn line(&mut self, index: usize, text: &[u8]) {
        let Some(mut position) = self.begin_line(index, text) else {
            return;
        };
        // Offsets in the statement's code: what is already joined, plus this line's code so far.
        let base = self
            .current
            .as_ref()
            .map_or(0, |logical| logical.code.len());
        self.continued = false;
        let mut code = Vec::new();
        while position < text.len() {
            if let Some(next) = self.string_byte(text, position, base, &mut code) {
                position = next;
                continue;
            }
            match self.code_byte(index, text, position, base, &mut code) {
                Some(next) => position = next,
                None => break,
            }
        }
        self.end_line(index, text, code);
    }

    /// Starts a logical line at a line outside strings, brackets and continuations (`None`: a
    /// blank or comment line, skipped), or joins the line to the current one. Returns where the
    /// line's code starts.
    fn begin_line(&mut self, index: usize, text: &[u8]) -> Option<usize> {
        if self.open_string.is_none() && self.depth == 0 && !self.continued {
            let indent_length = text
                .iter()
                .take_while(|&&byte| byte == b' ' || byte == b'\t' || byte == b'\x0c')
                .count();
            let rest = &text[indent_length..];
            if rest.is_empty() || rest[0] == b'#' {
                return None;
            }
            self.current = Some(LogicalLine {
                first: index,
                last: index,
                indent: text[..indent_length].to_vec(),
                code: String::new(),
            });
            return Some(indent_length);
        }
        if let Some(logical) = self.current.as_mut() {
            if self.open_string.is_none() {
                logical.code.push(' ');
            }
        }
        Some(0)
    }

    /// One step inside the open string literal, recording the literal when it closes; `None`
    /// when no string is open. Returns the next position.
    fn string_byte(
        &mut self,
        text: &[u8],
        position: usize,
        base: usize,
        code: &mut Vec<u8>,
    ) -> Option<usize> {
        let open = self.open_string.as_mut()?;
        match string_step(open, text, position) {
            Step::Inside(width) => {
                let end = (position + width).min(text.len());
                self.string_body.extend_from_slice(&text[position..end]);
                code.extend_from_slice(&text[position..end]);
                Some(end)
            }
            Step::Closes(width) => {
                code.extend_from_slice(&text[position..position + width]);
                self.result.strings.push(StringLiteral {
                    line: open.start_line,
                    body: String::from_utf8_lossy(&self.string_body).into_owned(),
                    prefix: std::mem::take(&mut open.prefix),
                    logical: self.result.logical.len(),
                    span: open.start..base + code.len(),
                });
                self.string_body.clear();
                self.open_string = None;
                Some(position + width)
            }
        }
    }

    /// One byte of code outside strings: a comment ends the line's code (`None`), a quote opens a
    /// string literal, brackets are counted, a backslash at the end continues the line. Returns
    /// the next position.
    fn code_byte(
        &mut self,
        index: usize,
        text: &[u8],
        position: usize,
        base: usize,
        code: &mut Vec<u8>,
    ) -> Option<usize> {
        let byte = text[position];
        match byte {
            b'#' => return None,
            b'\'' | b'"' => {
                let triple =
                    text.get(position + 1) == Some(&byte) && text.get(position + 2) == Some(&byte);
                let prefix = string_prefix(code);
                let formatted = prefix
                    .iter()
                    .any(|b| matches!(b, b'f' | b'F' | b't' | b'T'));
                let raw = prefix.iter().any(|b| matches!(b, b'r' | b'R'));
                self.open_string = Some(OpenString {
                    quote: byte,
                    triple,
                    start_line: index,
                    start: base + code.len() - prefix.len(),
                    prefix: String::from_utf8_lossy(prefix).into_owned(),
                    formatted,
                    raw,
                    fields: Vec::new(),
                    nested: None,
                });
                let width = if triple { 3 } else { 1 };
                code.extend_from_slice(&text[position..position + width]);
                return Some(position + width);
            }
            b'(' | b'[' | b'{' => self.depth += 1,
            b')' | b']' | b'}' => self.depth = self.depth.saturating_sub(1),
            b'\\' if position + 1 == text.len() => {
                self.continued = true;
                return Some(position + 1);
            }
            _ => {}
        }
        code.push(byte);
        Some(position + 1)
    }

    /// Ends a physical line: its code joins the logical line, which ends here unless a string,
    /// a bracket or a backslash continues it.
    fn end_line(&mut self, index: usize, text: &[u8], mut code: Vec<u8>) {
        // A string opened with a single quote ends at the end of the line unless the line ends with
        // a backslash (a syntax error otherwise: drop it rather than swallow the rest of the file).
        if let Some(open) = self.open_string.as_mut() {
            if open.triple {
                self.string_body.push(b'\n');
                code.push(b'\n');
                // A single-quoted string inside a field cannot continue on the next line either.
                if open.nested.is_some_and(|(_, triple)| !triple) && !text.ends_with(b"\\") {
                    open.nested = None;
                }
            } else if !text.ends_with(b"\\") {
                self.open_string = None;
                self.string_body.clear();
            }
        }
        if let Some(logical) = self.current.as_mut() {
            logical.code.push_str(&String::from_utf8_lossy(&code));
            logical.last = index;
        }
        if self.open_string.is_none() && self.depth == 0 && !self.continued {
            if let Some(mut logical) = self.current.take() {
                logical.code = logical.code.trim_end().to_string();
                self.result.logical.push(logical);
            }
        }
    }

    /// The scan, with a logical line still open at the end of the file kept as unterminated.
    fn finish(mut self) -> Scan {
        if let Some(mut logical) = self.current.take() {
            self.result.unterminated = Some(logical.first);
            logical.code = logical.code.trim_end().to_string();
            self.result.logical.push(logical);
        }
        self.result
    }
}

/// True when `word` occurs in `code` as a whole identifier (not part of a longer name).
pub(crate) fn has_identifier(code: &str, word: &str) -> bool {
    let bytes = code.as_bytes();
    let is_name = |byte: u8| byte.is_ascii_alphanumeric() || byte == b'_';
    code.match_indices(word).any(|(start, _)| {
        let end = start + word.len();
        (start == 0 || !is_name(bytes[start - 1])) && (end == bytes.len() || !is_name(bytes[end]))
    })
}

/// The identifier at the start of `code`, if any.
pub(crate) fn leading_identifier(code: &str) -> Option<&str> {
    let end = code
        .bytes()
        .position(|byte| !(byte.is_ascii_alphanumeric() || byte == b'_'))
        .unwrap_or(code.len());
    let name = &code[..end];
    match name.bytes().next() {
        Some(first) if !first.is_ascii_digit() => Some(name),
        _ => None,
    }
}

/// A Python string literal (double-quoted, plain, never an f-string) whose value is exactly `value`.
/// Only printable ASCII is written as is; everything else is escaped, so no value can end the
/// literal, start a new line, or be read as an f-string field, and the inserted block stays ASCII
/// whatever the file's encoding.
pub(crate) fn string_literal(value: &str) -> String {
    let mut literal = String::with_capacity(value.len() + 2);
    literal.push('"');
    push_escaped(&mut literal, value, true);
    literal.push('"');
    literal
}

/// Text safe inside a `#` comment: the same escapes as [`string_literal`] but no quotes.
pub(crate) fn comment_text(value: &str) -> String {
    let mut text = String::with_capacity(value.len());
    push_escaped(&mut text, value, false);
    text
}

fn push_escaped(out: &mut String, value: &str, in_literal: bool) {
    for character in value.chars() {
        match character {
            '\\' if in_literal => out.push_str("\\\\"),
            '"' if in_literal => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            ' '..='~' => out.push(character),
            _ => {
                let code = u32::from(character);
                if code < 0x100 {
                    out.push_str(&format!("\\x{code:02x}"));
                } else if code < 0x10000 {
                    out.push_str(&format!("\\u{code:04x}"));
                } else {
                    out.push_str(&format!("\\U{code:08x}"));
                }
            }
        }
    }
}

/// The value of a (non-raw) string literal body: Python's escapes undone, unknown ones kept as
/// written (as Python does).
pub(crate) fn unescape(body: &str) -> String {
    unescape_with(body, false)
}

/// The value of a (non-raw) string literal body with every escape Python knows undone, also
/// `\a`, `\b`, `\f`, `\v` and octal escapes (`\0`, `\177`); `\N{NAME}` is kept as written.
pub(crate) fn unescape_all(body: &str) -> String {
    unescape_with(body, true)
}

fn unescape_with(body: &str, all: bool) -> String {
    let mut value = String::with_capacity(body.len());
    let mut characters = body.chars();
    while let Some(character) = characters.next() {
        if character != '\\' {
            value.push(character);
            continue;
        }
        let Some(escape) = characters.next() else {
            value.push('\\');
            break;
        };
        let hex_digits = match escape {
            'x' => 2,
            'u' => 4,
            'U' => 8,
            _ => 0,
        };
        if hex_digits > 0 {
            let digits: String = characters.clone().take(hex_digits).collect();
            let decoded = u32::from_str_radix(&digits, 16)
                .ok()
                .filter(|_| digits.len() == hex_digits)
                .and_then(char::from_u32);
            match decoded {
                Some(decoded) => {
                    value.push(decoded);
                    for _ in 0..hex_digits {
                        characters.next();
                    }
                }
                None => {
                    value.push('\\');
                    value.push(escape);
                }
            }
            continue;
        }
        match escape {
            '\\' | '\'' | '"' => value.push(escape),
            'n' => value.push('\n'),
            'r' => value.push('\r'),
            't' => value.push('\t'),
            '\n' => {}
            'a' if all => value.push('\u{7}'),
            'b' if all => value.push('\u{8}'),
            'f' if all => value.push('\u{c}'),
            'v' if all => value.push('\u{b}'),
            '0'..='7' if all => {
                let mut code = escape.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match characters.clone().next().and_then(|c| c.to_digit(8)) {
                        Some(digit) => {
                            code = code * 8 + digit;
                            characters.next();
                        }
                        None => break,
                    }
                }
                value.push(char::from_u32(code).unwrap_or('\u{fffd}'));
            }
            _ => {
                value.push('\\');
                value.push(escape);
            }
        }
    }
    value
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_inverts_string_literal() {
        let values = [
            "plain",
            "C:\\a \"b\"\n{c}é😀\u{7}",
            r"\\host\c$\x",
            r#"'''""""#,
            "\\",
        ];
        for value in values {
            let literal = string_literal(value);
            assert_eq!(unescape(&literal[1..literal.len() - 1]), value);
        }
        assert_eq!(unescape(r"\q\x4"), r"\q\x4");
        assert_eq!(unescape(r"C:\\lib"), r"C:\lib");
    }

    fn scan_text(text: &str) -> Scan {
        scan(&split_lines(text.as_bytes()))
    }

    #[test]
    fn statement_open_at_the_end_of_the_file() {
        let rows = [
            ("x = [1]\ny = 2\n", None),
            ("x = [1]\ny = [\n    2,\n", Some(1)),
            ("x = 1\ns = \"\"\"doc\n\n", Some(1)),
            ("x = 1 + \\\n", Some(0)),
            ("s = 'open\n", None),
        ];
        let mut failures = Vec::new();
        for (text, expected) in rows {
            let found = scan_text(text).unterminated;
            if found != expected {
                failures.push(format!("{text:?}: {found:?}, expected {expected:?}"));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn splits_keeping_endings() {
        let lines = split_lines(b"a\r\nb\nc");
        assert_eq!(lines.len(), 3);
        assert_eq!(lines[0].text, b"a");
        assert_eq!(lines[0].ending, b"\r\n");
        assert_eq!(lines[1].ending, b"\n");
        assert_eq!(lines[2].ending, b"");
    }

    #[test]
    fn joins_brackets_strings_and_continuations() {
        let scan = scan_text(
            "def f(\n    a,\n):\n    '''doc\n    if IS_WINDOWS:\n    '''\n    x = 1 + \\\n        2\n    # c\n    y = ['a#', \"b\"]  # tail\n",
        );
        let summary: Vec<(usize, usize, &str)> = scan
            .logical
            .iter()
            .map(|line| (line.first, line.last, line.code.as_str()))
            .collect();
        assert_eq!(summary.len(), 4, "{summary:?}");
        assert_eq!((summary[0].0, summary[0].1), (0, 2));
        assert_eq!((summary[1].0, summary[1].1), (3, 5));
        assert_eq!((summary[2].0, summary[2].1), (6, 7));
        assert_eq!(summary[3].2, "y = ['a#', \"b\"]");
        let bodies: Vec<&str> = scan.strings.iter().map(|s| s.body.as_str()).collect();
        assert_eq!(bodies, ["doc\n    if IS_WINDOWS:\n    ", "a#", "b"]);
    }

    #[test]
    fn prefixes_and_spans() {
        let text = "x = rb'a' + F\"b{c}\" + name'd'\ny = f(\n  u\"e\"\n  'f')\n";
        let scan = scan_text(text);
        let rows: Vec<(&str, &str, usize, &str)> = scan
            .strings
            .iter()
            .map(|s| {
                let code = &scan.logical[s.logical].code;
                (
                    s.prefix.as_str(),
                    s.body.as_str(),
                    s.logical,
                    &code[s.span.clone()],
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                ("rb", "a", 0, "rb'a'"),
                ("F", "b{c}", 0, "F\"b{c}\""),
                ("", "d", 0, "'d'"),
                ("u", "e", 1, "u\"e\""),
                ("", "f", 1, "'f'"),
            ]
        );
        assert!(scan.strings[0].is_raw() && !scan.strings[0].is_formatted());
        assert!(scan.strings[1].is_formatted() && !scan.strings[1].is_raw());
    }

    #[test]
    fn f_string_fields_may_hold_strings() {
        // Python 3.12: the f-string's own quote inside a field; a `}` inside a field's string;
        // a quote as the fill character of a format spec; `{{`; `\N{...}`.
        let text = r#"a = f"{x["k"]} {d['}']} {v:'>10} {{" + "}}" + f"\N{BULLET}"
b = (1,
  2)
"#;
        let scan = scan_text(text);
        let bodies: Vec<&str> = scan.strings.iter().map(|s| s.body.as_str()).collect();
        assert_eq!(
            bodies,
            [r#"{x["k"]} {d['}']} {v:'>10} {{"#, "}}", r"\N{BULLET}"]
        );
        assert_eq!(scan.logical.len(), 2);
        assert_eq!((scan.logical[1].first, scan.logical[1].last), (1, 2));
        // Triple-quoted f-strings keep fields across lines.
        let scan = scan_text("s = f'''{a +\n b}'''\nt = 1\n");
        assert_eq!(scan.strings[0].body, "{a +\n b}");
        assert_eq!(scan.logical.len(), 2);
        // A field left open on a single-quoted line ends with the line, as before.
        let scan = scan_text("s = f\"{x\ny = (1)\n");
        assert_eq!(scan.logical.len(), 2);
        assert_eq!(scan.unterminated, None);
    }

    #[test]
    fn escaped_quotes_stay_inside_strings() {
        let scan = scan_text("x = \"a\\\"b\" + 'c'\ny = 2\n");
        assert_eq!(scan.logical.len(), 2);
        assert_eq!(scan.strings[0].body, "a\\\"b");
    }

    #[test]
    fn identifiers_match_whole_words() {
        assert!(has_identifier("with_hip = backend == 'hip'", "with_hip"));
        assert!(!has_identifier("with_hipcc = 1", "with_hip"));
        assert_eq!(
            leading_identifier("default_ldflags += ["),
            Some("default_ldflags")
        );
        assert_eq!(leading_identifier("9x"), None);
    }

    #[test]
    fn literals_escape_everything_dangerous() {
        assert_eq!(
            string_literal("C:\\a \"b\"\n{c}é😀\u{7}"),
            "\"C:\\\\a \\\"b\\\"\\n{c}\\xe9\\U0001f600\\x07\""
        );
        assert_eq!(comment_text("x\ny\\\"é"), "x\\ny\\\"\\xe9");
    }
}
