//! The message to look for: the exception type and module stripped from its front (as a
//! traceback prints them), `KeyError`'s quotes removed, and the literal fragments the prefilter
//! looks for in files.

/// A message as searched for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    /// The text as given.
    pub given: String,
    /// The message itself: after the exception prefix, without `KeyError`'s quotes.
    pub text: String,
    /// The exception type's name, when the message started with one (`KeyError`,
    /// `JSONDecodeError`).
    pub exception: Option<String>,
    /// The module of the exception type, when it was written dotted (`json.decoder`).
    pub module: Option<String>,
}

/// Endings of the names of exception types (`ValueError`, `DeprecationWarning`,
/// `TimeoutExpired`, ...): a single capitalised name before `": "` is taken for an exception
/// type only with one of these (or one of [`BARE_EXCEPTIONS`]).
const EXCEPTION_ENDINGS: &[&str] = &[
    "Error",
    "Exception",
    "Warning",
    "Exit",
    "Interrupt",
    "Iteration",
    "Expired",
    "Timeout",
    "Failure",
    "Fault",
    "Abort",
    "Cancelled",
    "Invalid",
];

/// Exception types whose names end in none of [`EXCEPTION_ENDINGS`].
const BARE_EXCEPTIONS: &[&str] = &["BaseExceptionGroup", "ExceptionGroup"];

/// Whether `name` (one identifier) reads as an exception type.
pub fn is_exception_name(name: &str) -> bool {
    name.chars().next().is_some_and(|c| c.is_ascii_uppercase())
        && (EXCEPTION_ENDINGS
            .iter()
            .any(|ending| name.ends_with(ending))
            || BARE_EXCEPTIONS.contains(&name))
}

fn is_identifier(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
}

/// The exception prefix at the start of `text`: (module, type, the rest after `": "`). The
/// prefix is `Type: ` or `package.module.Type: ` as a traceback's last line prints it.
fn exception_prefix(text: &str) -> Option<(Option<&str>, &str, &str)> {
    let colon = text.find(':')?;
    let qualified = &text[..colon];
    let rest = text[colon + 1..]
        .strip_prefix(' ')
        .unwrap_or(&text[colon + 1..]);
    let (module, name) = match qualified.rfind('.') {
        Some(dot) => (Some(&qualified[..dot]), &qualified[dot + 1..]),
        None => (None, qualified),
    };
    if !is_identifier(name) || !module.is_none_or(|m| m.split('.').all(is_identifier)) {
        return None;
    }
    let capitalised = name.chars().next().is_some_and(|c| c.is_ascii_uppercase());
    let accepted = is_exception_name(name) || (module.is_some() && capitalised);
    accepted.then_some((module, name, rest))
}

/// Where a Python exception (`Type: message`, `pkg.mod.Type: message`) starts in a log line
/// that may carry a timestamp, a logger name or a `|` before it; `None` when the line has none.
pub fn find_exception(line: &str) -> Option<usize> {
    let mut start = 0;
    loop {
        let rest = &line[start..];
        if exception_prefix(rest).is_some() {
            return Some(start);
        }
        // The next place a name can start: after a space, `|`, `:`, `>`, `]` or `(`.
        let next = rest
            .char_indices()
            .skip(1)
            .find(|&(i, c)| {
                (c.is_alphabetic() || c == '_')
                    && rest[..i]
                        .chars()
                        .last()
                        .is_some_and(|p| matches!(p, ' ' | '\t' | '|' | ':' | '>' | ']' | '('))
            })
            .map(|(i, _)| i)?;
        start += next;
    }
}

impl Message {
    /// Reads a message as given on the command line or found in a log: leading and trailing
    /// white space trimmed, the exception prefix taken off and kept, `KeyError`'s repr quotes
    /// undone.
    pub fn parse(given: &str) -> Message {
        let trimmed = given.trim();
        let (module, exception, text) = match exception_prefix(trimmed) {
            Some((module, name, rest)) => (module, Some(name), rest),
            None => (None, None, trimmed),
        };
        // str(KeyError(x)) is repr(x): the message in quotes, with repr's escapes.
        let text = match exception {
            Some(name) if name.ends_with("KeyError") => {
                unquote_repr(text).unwrap_or(text.to_string())
            }
            _ => text.to_string(),
        };
        Message {
            given: given.to_string(),
            text,
            exception: exception.map(str::to_string),
            module: module.map(str::to_string),
        }
    }

    /// The literal fragments the prefilter looks for, longest first: the runs of plain words
    /// (letters, with `'` or `-` inside a word) between anything that looks like a filled-in
    /// value (digits, `_`, `.`, `/`, quotes, brackets), of at least [`MIN_RUN`] bytes; else the
    /// longest run of at least [`MIN_WORD`]. A template holds each run whole unless one of its
    /// placeholders sits inside it.
    pub fn runs(&self) -> Vec<String> {
        let runs = word_runs(&self.text);
        let mut long: Vec<String> = runs
            .iter()
            .filter(|run| run.len() >= MIN_RUN)
            .map(|run| run.to_string())
            .collect();
        if long.is_empty() {
            if let Some(longest) = runs
                .iter()
                .filter(|run| run.len() >= MIN_WORD)
                .max_by_key(|run| run.len())
            {
                long.push(longest.to_string());
            }
        }
        sort_dedup(long)
    }

    /// The fragments of the second, finer pass (for when a placeholder sits inside every run):
    /// each pair of adjacent words of a run, and single words of at least [`MIN_LONE_WORD`]
    /// letters.
    pub fn word_pairs(&self) -> Vec<String> {
        let mut out = Vec::new();
        for run in word_runs(&self.text) {
            let words: Vec<&str> = run.split(' ').collect();
            for pair in words.windows(2) {
                out.push(format!("{} {}", pair[0], pair[1]));
            }
            out.extend(
                words
                    .iter()
                    .filter(|w| w.len() >= MIN_LONE_WORD)
                    .map(|w| w.to_string()),
            );
        }
        sort_dedup(out)
    }
}

/// Shortest run the prefilter looks for, in bytes.
pub const MIN_RUN: usize = 8;
/// Shortest single word it falls back to.
pub const MIN_WORD: usize = 4;
/// Shortest lone word of the finer pass.
pub const MIN_LONE_WORD: usize = 8;

fn sort_dedup(mut fragments: Vec<String>) -> Vec<String> {
    fragments.sort_by(|a, b| b.len().cmp(&a.len()).then_with(|| a.cmp(b)));
    fragments.dedup();
    fragments
}

/// The runs of plain words of `text`, each a slice of it (words joined by single spaces).
fn word_runs(text: &str) -> Vec<&str> {
    let mut runs = Vec::new();
    let mut run: Option<(usize, usize)> = None;
    let mut position = 0;
    for token in text.split(' ') {
        let start = position;
        position += token.len() + 1;
        let word_end = token.trim_end_matches([',', '.', ':', ';', '!', '?']).len();
        let word = &token[..word_end];
        if is_plain_word(word) {
            let end = start + word_end;
            run = Some(match run {
                Some((first, _)) => (first, end),
                None => (start, end),
            });
            if word_end < token.len() {
                // Punctuation ends the run (a placeholder may follow it).
                runs.extend(run.take().map(|(s, e)| &text[s..e]));
            }
        } else {
            runs.extend(run.take().map(|(s, e)| &text[s..e]));
        }
    }
    runs.extend(run.map(|(s, e)| &text[s..e]));
    runs
}

/// Letters, with `'` or `-` between letters (`can't`, `built-in`).
fn is_plain_word(word: &str) -> bool {
    let bytes = word.as_bytes();
    !bytes.is_empty()
        && bytes[0].is_ascii_alphabetic()
        && bytes[bytes.len() - 1].is_ascii_alphabetic()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphabetic() || *b == b'\'' || *b == b'-')
}

/// `'text'` or `"text"` as `repr` writes a string: the text with its escapes undone; `None`
/// when `text` is not one quoted string.
fn unquote_repr(text: &str) -> Option<String> {
    let quote = text.chars().next().filter(|q| *q == '\'' || *q == '"')?;
    let inner = text.strip_prefix(quote)?.strip_suffix(quote)?;
    Some(crate::fix::patch::python::unescape_all(inner))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exception_prefixes() {
        let m = Message::parse(
            "KeyError: 'Keyword argument launch_pdl was specified but unrecognised'",
        );
        assert_eq!(m.exception.as_deref(), Some("KeyError"));
        assert_eq!(
            m.text,
            "Keyword argument launch_pdl was specified but unrecognised"
        );
        assert_eq!(m.module, None);

        let m = Message::parse(
            "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
        );
        assert_eq!(m.exception.as_deref(), Some("JSONDecodeError"));
        assert_eq!(m.module.as_deref(), Some("json.decoder"));
        assert_eq!(m.text, "Expecting value: line 1 column 1 (char 0)");

        let m = Message::parse(
            "subprocess.TimeoutExpired: Command '['sleep', '10']' timed out after 1 seconds\n",
        );
        assert_eq!(m.exception.as_deref(), Some("TimeoutExpired"));
        assert_eq!(m.module.as_deref(), Some("subprocess"));
        assert_eq!(
            m.text,
            "Command '['sleep', '10']' timed out after 1 seconds"
        );

        // A KeyError's repr quotes and escapes.
        let m = Message::parse(r#"KeyError: "it's \\here\n""#);
        assert_eq!(m.text, "it's \\here\n");
        // Not exception types: kept as the message.
        for text in [
            "Note: something",
            "Expecting value: line 1",
            "error: x",
            "a.b: c",
        ] {
            let m = Message::parse(text);
            assert_eq!((m.exception, m.text.as_str()), (None, text), "{text}");
        }
        assert_eq!(
            Message::parse("RuntimeError: x").exception.as_deref(),
            Some("RuntimeError")
        );
    }

    #[test]
    fn exceptions_in_log_lines() {
        let line = "2026-11-30 14:20:51,020 ERROR ft.serve | KeyError: 'x'";
        assert_eq!(
            find_exception(line).map(|i| &line[i..]),
            Some("KeyError: 'x'")
        );
        assert_eq!(find_exception("KeyError: 'x'"), Some(0));
        assert_eq!(
            find_exception("E   json.decoder.JSONDecodeError: Expecting value"),
            Some(4)
        );
        assert_eq!(find_exception("  File \"x.py\", line 3, in f"), None);
        assert_eq!(find_exception("INFO ready to serve"), None);
    }

    #[test]
    fn prefilter_fragments() {
        let m = Message::parse(
            "KeyError: 'Keyword argument launch_pdl was specified but unrecognised'",
        );
        assert_eq!(
            m.runs(),
            ["was specified but unrecognised", "Keyword argument"]
        );
        let m = Message::parse("Expecting value: line 1 column 1 (char 0)");
        assert_eq!(m.runs(), ["Expecting value"]);
        let m = Message::parse("Command '['sleep', '10']' timed out after 1 seconds");
        assert_eq!(m.runs(), ["timed out after"]);
        // Nothing but values: the key itself.
        assert!(Message::parse("KeyError: 'launch_pdl'").runs().is_empty());
        assert_eq!(Message::parse("bad x1 mode").runs(), ["mode"]);
        let m = Message::parse("Expected CUDA tensor but got CPU");
        assert_eq!(
            m.word_pairs(),
            [
                "Expected CUDA",
                "CUDA tensor",
                "tensor but",
                "Expected",
                "but got",
                "got CPU"
            ]
        );
    }
}
