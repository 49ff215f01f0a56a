//! One Python file to the places in it that format a message: every string-building expression
//! (literals joined by implicit concatenation or `+`, then `%`, `.format` or nothing), as a
//! [`Template`], with what surrounds it: the enclosing function and class, and whether it is
//! raised (a `raise` on the statement or just after it, or built inside an exception class).
//! The lexical work is the scanner the patcher uses ([`crate::fix::patch::python`]).

use serde::Serialize;

use super::message::{is_exception_name, Message};
use super::template::{self, Match, Style, Template};
use crate::fix::patch::python::{self, has_identifier, Scan, StringLiteral};

/// What ties a place to raising the message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Raises {
    /// Nothing seen: a constant, a log call, a comparison.
    No,
    /// A `raise` follows within a few statements.
    Nearby,
    /// The text is built inside an exception class (its `__str__`, `__init__`, ...).
    InExceptionClass,
    /// The statement itself raises.
    OnLine,
}

/// A template of the file that explains part of a message.
#[derive(Debug, Clone)]
pub struct Found {
    /// Index of the message (in the slice given to [`analyse`]).
    pub message: usize,
    /// How it lies over the message.
    pub matched: Match,
    /// 1-based line of the first constant part matched.
    pub line: usize,
    /// That source line, trimmed.
    pub text: String,
    /// The enclosing function.
    pub function: Option<String>,
    /// The enclosing class.
    pub class: Option<String>,
    /// The exception type raised or built here, as written (`KeyError`, `errors.Invalid`).
    pub exception: Option<String>,
    /// How it is tied to raising.
    pub raises: Raises,
    /// The template, `{}` for each placeholder.
    pub template: String,
}

/// Shortest constant part worth comparing with a message: shorter ones (`", "`, `")"`) count
/// only beside longer ones of the same template.
const MIN_PART: usize = 4;
/// Fewest characters of a message a template must cover to be kept.
const MIN_COVERED: usize = 6;
/// Statements after a message is built in which a `raise` still counts as raising it.
const NEARBY_STATEMENTS: usize = 3;

/// Every template of `source` that explains part of one of `messages` (those a message's
/// prefilter matched in this file).
pub fn analyse(source: &str, messages: &[&Message]) -> Vec<Found> {
    let lines = python::split_lines(source.as_bytes());
    let scan = python::scan(&lines);
    let mut found = Vec::new();
    let mut start = 0;
    while start < scan.strings.len() {
        let statement = scan.strings[start].logical;
        let end = start
            + scan.strings[start..]
                .iter()
                .take_while(|literal| literal.logical == statement)
                .count();
        let literals = &scan.strings[start..end];
        start = end;
        let Some(logical) = scan.logical.get(statement) else {
            continue;
        };
        let bare = blank_literals(&logical.code, literals);
        if bare
            .chars()
            .all(|c| c.is_whitespace() || matches!(c, '(' | ')' | '+'))
        {
            // A docstring or a string on its own: nothing is built from it.
            continue;
        }
        for group in groups(&bare, literals) {
            let template = group_template(&bare, literals, &group);
            for (index, message) in messages.iter().enumerate() {
                let Some(matched) = explain(&template, &message.text) else {
                    continue;
                };
                let context = Context::of(&scan, statement, &bare, literals[group[0].0].span.start);
                let line_text = lines
                    .get(matched.line)
                    .map(|line| String::from_utf8_lossy(line.text).trim().to_string())
                    .unwrap_or_default();
                found.push(Found {
                    message: index,
                    line: matched.line + 1,
                    matched,
                    text: line_text,
                    function: context.function,
                    class: context.class,
                    exception: context.exception,
                    raises: context.raises,
                    template: template.display(),
                });
            }
        }
    }
    found
}

/// The template's match with `message`, when a constant part of useful length occurs in it and
/// the match covers enough of it.
fn explain(template: &Template, message: &str) -> Option<Match> {
    let worth = template.pieces().iter().any(|piece| match piece {
        template::Piece::Text(text, _) => {
            (text.len() >= MIN_PART || text.len() == message.len())
                && message.contains(text.as_str())
        }
        template::Piece::Gap(_) => false,
    });
    if !worth {
        return None;
    }
    let matched = template.explain(message)?;
    let total = message.chars().count();
    (matched.covered_chars >= MIN_COVERED.min(total)).then_some(matched)
}

/// The statement's code with every literal's bytes replaced by spaces (offsets kept): what is
/// code and not text.
fn blank_literals(code: &str, literals: &[StringLiteral]) -> String {
    let mut bytes = code.as_bytes().to_vec();
    for literal in literals {
        if let Some(span) = bytes.get_mut(literal.span.clone()) {
            span.fill(b' ');
        }
    }
    // Whole characters were replaced (spans start and end on ASCII bytes).
    String::from_utf8(bytes).unwrap_or_default()
}

/// The code of a statement without its literals' text.
fn bare_code(scan: &Scan, statement: usize) -> String {
    let first = scan
        .strings
        .partition_point(|literal| literal.logical < statement);
    let count = scan.strings[first..]
        .iter()
        .take_while(|literal| literal.logical == statement)
        .count();
    blank_literals(
        &scan.logical[statement].code,
        &scan.strings[first..first + count],
    )
}

/// The literals of a statement that build one string: `(index, placeholder before it)`.
/// Adjacent literals concatenate; `+` joins, with a placeholder when an expression sits between
/// (`"a " + str(x) + " b"`); anything else (a comma, a call) starts another group.
fn groups(code: &str, literals: &[StringLiteral]) -> Vec<Vec<(usize, bool)>> {
    let mut groups: Vec<Vec<(usize, bool)>> = Vec::new();
    for (index, literal) in literals.iter().enumerate() {
        let joined = index
            .checked_sub(1)
            .and_then(|previous| code.get(literals[previous].span.end..literal.span.start))
            .and_then(join_between);
        match (joined, groups.last_mut()) {
            (Some(gap), Some(group)) => group.push((index, gap)),
            _ => groups.push(vec![(index, false)]),
        }
    }
    groups
}

/// How the code between two literals joins them: `Some(false)` concatenation, `Some(true)`
/// concatenation around an expression, `None` not joined.
fn join_between(between: &str) -> Option<bool> {
    let bare: String = between
        .chars()
        .filter(|c| !c.is_whitespace() && !matches!(c, '(' | ')'))
        .collect();
    if bare.is_empty() || bare == "+" {
        return Some(false);
    }
    let trimmed = between.trim();
    if trimmed.len() > 2 && trimmed.starts_with('+') && trimmed.ends_with('+') {
        // A comma outside brackets means two arguments, not one expression.
        let mut depth = 0i32;
        for c in trimmed.chars() {
            match c {
                '(' | '[' | '{' => depth += 1,
                ')' | ']' | '}' => depth -= 1,
                ',' if depth <= 0 => return None,
                _ => {}
            }
        }
        return Some(true);
    }
    None
}

/// How what follows a group's last literal formats it.
fn style_after(rest: &str) -> Style {
    let rest = rest.trim_start_matches(|c: char| c.is_whitespace() || c == ')');
    if rest.starts_with('%') && !rest.starts_with("%=") {
        Style::Percent
    } else if rest.starts_with(".format(") || rest.starts_with(".format_map(") {
        Style::Format
    } else {
        Style::Unknown
    }
}

fn group_template(code: &str, literals: &[StringLiteral], group: &[(usize, bool)]) -> Template {
    let last = &literals[group[group.len() - 1].0];
    let style = style_after(code.get(last.span.end..).unwrap_or(""));
    let mut template = Template::default();
    for &(index, gap_before) in group {
        let literal = &literals[index];
        if gap_before {
            template.push_gap(template::Gap::Any);
        }
        let part = if literal.is_formatted() {
            template::formatted(&literal.body, literal.is_raw(), literal.line)
        } else {
            let value = if literal.is_raw() {
                literal.body.clone()
            } else {
                python::unescape_all(&literal.body)
            };
            template::plain(&value, style, literal.line)
        };
        template.extend(part);
    }
    template
}

/// Where a statement sits and what it raises.
struct Context {
    function: Option<String>,
    class: Option<String>,
    exception: Option<String>,
    raises: Raises,
}

impl Context {
    fn of(scan: &Scan, statement: usize, code: &str, literal_start: usize) -> Context {
        let (function, class) = enclosing(scan, statement);
        let exception_class = class
            .as_ref()
            .filter(|c| c.exception)
            .map(|c| c.name.clone());
        // The exception constructed around the literal, else the one raised.
        let constructed = constructor_before(code.get(..literal_start).unwrap_or(""));
        let raised_here = raise_target(code);
        let (raises, nearby) = if raised_here.is_some() || has_identifier(code, "raise") {
            (Raises::OnLine, None)
        } else if exception_class.is_some() && function.as_ref().is_none_or(|f| f.in_class) {
            (Raises::InExceptionClass, None)
        } else {
            match raise_nearby(scan, statement) {
                Some(target) => (Raises::Nearby, target),
                None => (Raises::No, None),
            }
        };
        let exception = constructed
            .or(raised_here)
            .or(if raises == Raises::InExceptionClass {
                exception_class
            } else {
                None
            })
            .or(nearby);
        Context {
            function: function.map(|f| f.name),
            class: class.map(|c| c.name),
            exception,
            raises,
        }
    }
}

struct Function {
    name: String,
    /// Defined directly in a class body (a method).
    in_class: bool,
}

struct Class {
    name: String,
    /// Its name or a base reads as an exception type.
    exception: bool,
}

/// The innermost function and class around a statement, from the indentation of the statements
/// before it; the function is a method when the class holds it directly.
fn enclosing(scan: &Scan, statement: usize) -> (Option<Function>, Option<Class>) {
    let mut width = scan.logical[statement].width();
    let mut function: Option<Function> = None;
    let mut functions_between = 0;
    for logical in scan.logical[..statement].iter().rev() {
        if width == 0 {
            break;
        }
        let w = logical.width();
        if w >= width {
            continue;
        }
        width = w;
        let code = logical.code.as_str();
        if let Some(name) = definition(code, "def").or_else(|| definition(code, "async def")) {
            match function {
                None => {
                    function = Some(Function {
                        name,
                        in_class: false,
                    })
                }
                Some(_) => functions_between += 1,
            }
        } else if let Some(name) = definition(code, "class") {
            if let Some(f) = function.as_mut() {
                f.in_class = functions_between == 0;
            }
            let exception =
                is_exception_name(&name) || bases(code).iter().any(|b| is_exception_name(b));
            return (function, Some(Class { name, exception }));
        }
    }
    (function, None)
}

/// The name a `def`/`class` statement defines.
fn definition(code: &str, keyword: &str) -> Option<String> {
    let rest = code
        .strip_prefix(keyword)?
        .strip_prefix([' ', '\t'])?
        .trim_start();
    let name = python::leading_identifier(rest)?;
    Some(name.to_string())
}

/// The last component of each base of a `class Name(Base, mod.Other, metaclass=M):`.
fn bases(code: &str) -> Vec<String> {
    let Some(open) = code.find('(') else {
        return Vec::new();
    };
    let close = code.rfind(')').unwrap_or(code.len());
    code.get(open + 1..close)
        .unwrap_or("")
        .split(',')
        .filter(|base| !base.contains('='))
        .filter_map(|base| base.trim().rsplit('.').next().map(str::to_string))
        .collect()
}

/// The exception class a `raise` statement (or a `raise` inside a one-line `if`) raises, as
/// written.
fn raise_target(code: &str) -> Option<String> {
    let at = code
        .match_indices("raise")
        .find(|&(i, _)| {
            let before_ok = i == 0
                || !code.as_bytes()[i - 1].is_ascii_alphanumeric()
                    && code.as_bytes()[i - 1] != b'_';
            before_ok && code[i + 5..].starts_with([' ', '\t'])
        })
        .map(|(i, _)| i + 5)?;
    let target: String = code[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '.')
        .collect();
    // Whatever is raised is an exception; a lower-case name is a variable (`raise err`).
    let last = target.rsplit('.').next().unwrap_or("");
    last.starts_with(|c: char| c.is_uppercase())
        .then_some(target)
}

/// The exception type whose constructor call holds the literal: the last `Name(` before it.
fn constructor_before(code: &str) -> Option<String> {
    let bytes = code.as_bytes();
    let mut depth = 0i32;
    for (i, &byte) in bytes.iter().enumerate().rev() {
        match byte {
            b')' | b']' | b'}' => depth += 1,
            b'[' | b'{' => depth -= 1,
            b'(' => {
                if depth > 0 {
                    depth -= 1;
                    continue;
                }
                let name_start = code[..i]
                    .char_indices()
                    .rev()
                    .find(|&(_, c)| !(c.is_alphanumeric() || c == '_' || c == '.'))
                    .map_or(0, |(p, c)| p + c.len_utf8());
                let name = &code[name_start..i];
                let last = name.rsplit('.').next().unwrap_or("");
                if is_exception_name(last) {
                    return Some(name.to_string());
                }
            }
            _ => {}
        }
    }
    None
}

/// A `raise` among the next few statements of the same function: `Some(exception)` (the
/// exception may be unknown, `raise err`).
fn raise_nearby(scan: &Scan, statement: usize) -> Option<Option<String>> {
    let width = scan.logical[statement].width();
    for (index, logical) in scan
        .logical
        .iter()
        .enumerate()
        .skip(statement + 1)
        .take(NEARBY_STATEMENTS)
    {
        let bare = bare_code(scan, index);
        let code = bare.as_str();
        if logical.width() + 4 < width
            || definition(code, "def").is_some()
            || definition(code, "class").is_some()
        {
            return None;
        }
        if has_identifier(code, "raise") {
            return Some(raise_target(code).or_else(|| constructor_before(code)));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(source: &str, message: &str) -> Vec<Found> {
        let message = Message::parse(message);
        analyse(source, &[&message])
    }

    #[test]
    fn triton_style_raise_with_percent() {
        let source = "class JITFunction:\n    def run(self, *args, **kwargs):\n        for k in kwargs:\n            if k not in options:\n                raise KeyError(\"Keyword argument %s was specified but unrecognised\" % k)\n";
        let hits = found(
            source,
            "KeyError: 'Keyword argument launch_pdl was specified but unrecognised'",
        );
        assert_eq!(hits.len(), 1);
        let hit = &hits[0];
        assert_eq!(hit.line, 5);
        assert_eq!(hit.function.as_deref(), Some("run"));
        assert_eq!(hit.class.as_deref(), Some("JITFunction"));
        assert_eq!(hit.exception.as_deref(), Some("KeyError"));
        assert_eq!(hit.raises, Raises::OnLine);
        assert_eq!(hit.matched.covered_chars, 48);
        assert!(hit.matched.whole);
        assert_eq!(
            hit.template,
            "Keyword argument {} was specified but unrecognised"
        );
    }

    #[test]
    fn built_in_an_exception_classes_str() {
        let source = "class TimeoutExpired(SubprocessError):\n    def __init__(self, cmd, timeout):\n        self.cmd = cmd\n\n    def __str__(self):\n        return (\"Command '%s' timed out after %s seconds\" %\n                (self.cmd, self.timeout))\n";
        let hits = found(
            source,
            "subprocess.TimeoutExpired: Command '['sleep', '10']' timed out after 1 seconds",
        );
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].line, 6);
        assert_eq!(hits[0].function.as_deref(), Some("__str__"));
        assert_eq!(hits[0].raises, Raises::InExceptionClass);
        assert_eq!(hits[0].exception.as_deref(), Some("TimeoutExpired"));
        assert!(hits[0].matched.whole);
    }

    #[test]
    fn implicit_concatenation_across_lines_and_plus() {
        let source = "def check(n, limit):\n    msg = (\"expected at most %d \"\n           'items, '\n           f\"got {n}\")\n    raise ValueError(msg % limit)\n\ndef other(x):\n    log(\"value \" + str(x) + \" is out of range\")\n";
        let hits = found(source, "ValueError: expected at most 3 items, got 5");
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].line, 2);
        assert_eq!(hits[0].raises, Raises::Nearby);
        assert_eq!(hits[0].exception.as_deref(), Some("ValueError"));
        assert!(hits[0].matched.whole, "{:?}", hits[0]);
        assert_eq!(hits[0].template, "expected at most {} items, got {}");
        let hits = found(source, "value 12 is out of range");
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].template, "value {} is out of range");
        assert_eq!(hits[0].raises, Raises::No);
        assert_eq!(hits[0].function.as_deref(), Some("other"));
    }

    #[test]
    fn format_and_f_strings_and_prefixes() {
        let source = "def f(a, b):\n    raise TypeError(\"{0} cannot take {name!r}\".format(a, name=b))\n\ndef g(p):\n    raise OSError(rf'cannot open \\\\?\\{p}: {\"no\" if p else \"empty\"} access')\n\ndef h(x):\n    raise errors.BadInput(f\"{x[\"k\"]} is bad\")\n";
        let hits = found(source, "TypeError: int cannot take 'x'");
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert!(hits[0].matched.whole);
        let hits = found(source, "OSError: cannot open \\\\?\\C:\\x: no access");
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].template, "cannot open \\\\?\\{}: {} access");
        assert!(hits[0].matched.whole);
        let hits = found(source, "mod.BadInput: 3 is bad");
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].exception.as_deref(), Some("errors.BadInput"));
        assert_eq!(hits[0].line, 8);
    }

    #[test]
    fn hostile_sources_never_panic() {
        let source = "class E(ValueError):\n    def __str__(self):\n        return f\"{self.a!r:>{w}} → é {{x}} %s\" % (→Error(\"ü\"), rb'\\x' \"\"\"t\n\"\"\")\n";
        let messages: Vec<Message> = ["E: é x", "ValueError: t", "→ é {x} 3", "é", "ü"]
            .iter()
            .map(|m| Message::parse(m))
            .collect();
        let refs: Vec<&Message> = messages.iter().collect();
        // Every prefix of the file (cut inside strings, fields, characters), as a truncated file is.
        for end in (0..=source.len()).filter(|&e| source.is_char_boundary(e)) {
            analyse(&source[..end], &refs);
        }
        // Pseudo-random Python-ish text.
        let alphabet: Vec<char> = "fFrRb'\"{}()[]%:!=\\# \n\tsdx0é→".chars().collect();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        for _ in 0..2000 {
            let text: String = (0..64)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            analyse(&text, &refs);
            for message in &messages {
                template::formatted(&text, false, 0).explain(&message.text);
                template::plain(&text, Style::Unknown, 0).explain(&message.text);
            }
        }
    }

    #[test]
    fn docstrings_and_comments_are_not_messages() {
        let source = "def f():\n    \"\"\"Keyword argument launch_pdl was specified but unrecognised.\"\"\"\n    # Keyword argument %s was specified but unrecognised\n    return 1\n";
        assert!(found(
            source,
            "Keyword argument launch_pdl was specified but unrecognised"
        )
        .is_empty());
    }

    #[test]
    fn exception_class_built_in_init() {
        let source = "class JSONDecodeError(ValueError):\n    def __init__(self, msg, doc, pos):\n        errmsg = '%s: line %d column %d (char %d)' % (msg, lineno, colno, pos)\n        ValueError.__init__(self, errmsg)\n\ndef decode(s):\n    try:\n        pass\n    except StopIteration as err:\n        raise JSONDecodeError(\"Expecting value\", s, err.value) from None\n";
        let hits = found(
            source,
            "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
        );
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert_eq!(hits[0].raises, Raises::InExceptionClass);
        assert_eq!(hits[0].exception.as_deref(), Some("JSONDecodeError"));
        assert_eq!(hits[1].raises, Raises::OnLine);
        assert_eq!(hits[1].exception.as_deref(), Some("JSONDecodeError"));
        assert_eq!(hits[1].function.as_deref(), Some("decode"));
        assert_eq!(hits[1].class, None);
    }
}
