//! The Windows command-line rules: splitting a command line into arguments as the Microsoft C
//! runtime does (which is how link.exe, cl.exe and the LLVM tools read theirs), and building a
//! command line or a response file back from arguments by the same rules (docs/RULES.md §18).
//!
//! - The program name (the first word of a command line) is read by its own rule: quotes toggle,
//!   backslashes are literal, it ends at the first space or tab outside quotes.
//! - Every other argument: spaces and tabs separate; `"` starts and ends a quoted part; `2n`
//!   backslashes before `"` give `n` backslashes and the quote delimits; `2n+1` give `n` and a
//!   literal `"`; backslashes before anything else are literal; inside quotes, `""` is one
//!   literal `"` and the quoted part goes on.
//!
//! `CommandLineToArgvW` differs in the last rule only (its `""` ends the quoted part), so a
//! command line written here never relies on it: [`quote_argument`] escapes every quote with a
//! backslash.

use std::borrow::Cow;

fn is_separator(c: char) -> bool {
    // Response files are read by the same rules with line ends as separators too.
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

/// Splits a whole command line: the program name by its rule, the rest by the argument rules.
pub fn split_command_line(line: &str) -> Vec<String> {
    let line = line.trim_start_matches(is_separator);
    if line.is_empty() {
        return Vec::new();
    }
    let mut program = String::new();
    let mut in_quotes = false;
    let mut rest = "";
    for (at, c) in line.char_indices() {
        if c == '"' {
            in_quotes = !in_quotes;
        } else if !in_quotes && is_separator(c) {
            rest = &line[at..];
            break;
        } else {
            program.push(c);
        }
    }
    let mut words = vec![program];
    words.extend(split_arguments(rest));
    words
}

/// Splits arguments (a command line after its program name, or a response file's text).
pub fn split_arguments(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut words = Vec::new();
    let mut at = 0;
    loop {
        while at < chars.len() && is_separator(chars[at]) {
            at += 1;
        }
        if at == chars.len() {
            return words;
        }
        let mut word = String::new();
        let mut in_quotes = false;
        while at < chars.len() {
            let mut backslashes = 0;
            while at < chars.len() && chars[at] == '\\' {
                backslashes += 1;
                at += 1;
            }
            if at < chars.len() && chars[at] == '"' {
                word.extend(std::iter::repeat_n('\\', backslashes / 2));
                if backslashes % 2 == 1 {
                    word.push('"');
                } else if in_quotes && chars.get(at + 1) == Some(&'"') {
                    // `""` inside a quoted part: one literal quote, still quoted.
                    word.push('"');
                    at += 1;
                } else {
                    in_quotes = !in_quotes;
                }
                at += 1;
                continue;
            }
            word.extend(std::iter::repeat_n('\\', backslashes));
            match chars.get(at) {
                None => break,
                Some(&c) if !in_quotes && is_separator(c) => break,
                Some(&c) => {
                    word.push(c);
                    at += 1;
                }
            }
        }
        words.push(word);
    }
}

/// Quotes one argument so that [`split_arguments`] (and the C runtime) reads it back unchanged:
/// untouched when it has no space, tab, line end or quote and is not empty.
pub fn quote_argument(argument: &str) -> Cow<'_, str> {
    if !argument.is_empty() && !argument.contains([' ', '\t', '\r', '\n', '"']) {
        return Cow::Borrowed(argument);
    }
    let mut out = String::with_capacity(argument.len() + 2);
    out.push('"');
    let mut backslashes = 0;
    for c in argument.chars() {
        match c {
            '\\' => backslashes += 1,
            '"' => {
                out.extend(std::iter::repeat_n('\\', backslashes * 2 + 1));
                out.push('"');
                backslashes = 0;
            }
            _ => {
                out.extend(std::iter::repeat_n('\\', backslashes));
                out.push(c);
                backslashes = 0;
            }
        }
    }
    // Backslashes before the closing quote are doubled so that it still closes.
    out.extend(std::iter::repeat_n('\\', backslashes * 2));
    out.push('"');
    Cow::Owned(out)
}

/// Quotes a program name by its own rule: in quotes when it holds a space or tab. A program name
/// cannot hold a quote (the rule has no escape for one); `None` then.
pub fn quote_program(program: &str) -> Option<Cow<'_, str>> {
    if program.contains('"') {
        return None;
    }
    if !program.is_empty() && !program.contains([' ', '\t', '\r', '\n']) {
        return Some(Cow::Borrowed(program));
    }
    Some(Cow::Owned(format!("\"{program}\"")))
}

/// Builds a command line from a program and its arguments; the program is quoted by its rule
/// (a quote in it, impossible in a Windows file name, is dropped).
pub fn join_command_line(words: &[String]) -> String {
    let mut line = String::new();
    for (index, word) in words.iter().enumerate() {
        if index == 0 {
            match quote_program(word) {
                Some(quoted) => line.push_str(&quoted),
                None => line.push_str(&quote_program(&word.replace('"', "")).unwrap_or_default()),
            }
        } else {
            line.push(' ');
            line.push_str(&quote_argument(word));
        }
    }
    line
}

/// Builds a response file's text: one argument per line, quoted by the argument rules.
pub fn join_response_file(words: &[String]) -> String {
    let mut text = String::new();
    for word in words {
        text.push_str(&quote_argument(word));
        text.push_str("\r\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        // Each example is read as the arguments after a program name.
        let mut words = split_command_line(&format!("prog.exe {line}"));
        assert_eq!(words.remove(0), "prog.exe");
        words
    }

    /// The examples of Microsoft's "Parsing C++ command-line arguments" (and its C twin): the
    /// command line, then argv[1..].
    #[test]
    fn microsoft_documented_examples() {
        let table: &[(&str, &[&str])] = &[
            (r#""abc" d e"#, &["abc", "d", "e"]),
            (r#""a b c" d e"#, &["a b c", "d", "e"]),
            (r#""ab\"c" "\\" d"#, &["ab\"c", "\\", "d"]),
            (r#"a\\b d"e f"g h"#, &[r"a\\b", "de fg", "h"]),
            (r#"a\\\b d"e f"g h"#, &[r"a\\\b", "de fg", "h"]),
            (r#"a\\\"b c d"#, &[r#"a\"b"#, "c", "d"]),
            (r#"a\\\\"b c" d e"#, &[r"a\\b c", "d", "e"]),
            (r#"a"b"" c d"#, &[r#"ab" c d"#]),
        ];
        let mut failures = Vec::new();
        for (line, want) in table {
            let got = args(line);
            if got != *want {
                failures.push(format!("{line}: got {got:?}, want {want:?}"));
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn program_name_rule() {
        let words = split_command_line(r#""C:\Program Files\LLVM\bin\lld-link.exe" /out:a.dll"#);
        assert_eq!(
            words,
            [r"C:\Program Files\LLVM\bin\lld-link.exe", "/out:a.dll"]
        );
        // Backslashes in the program name are literal, even before a quote.
        let words = split_command_line(r#""C:\dir\"x.exe a"#);
        assert_eq!(words, [r"C:\dir\x.exe", "a"]);
        // A quote in the middle toggles, as for a path quoted piecewise.
        let words = split_command_line(r#"C:\"Program Files"\a.exe b"#);
        assert_eq!(words, [r"C:\Program Files\a.exe", "b"]);
        assert!(split_command_line("   ").is_empty());
        // An empty quoted argument is an argument.
        assert_eq!(split_command_line(r#"a.exe "" b"#), ["a.exe", "", "b"]);
        // An unclosed quote runs to the end.
        assert_eq!(split_command_line(r#"a.exe "b c"#), ["a.exe", "b c"]);
    }

    #[test]
    fn response_file_text() {
        let text = "/nologo\r\n\"obj dir\\a.obj\"\n  b.obj\t\"C:\\Program Files\\x\\\\\"\r\n";
        assert_eq!(
            split_arguments(text),
            ["/nologo", r"obj dir\a.obj", "b.obj", r"C:\Program Files\x\"]
        );
    }

    fn round_trip(words: &[String]) {
        let line = join_command_line(words);
        assert_eq!(split_command_line(&line), words, "{line}");
        let rsp = join_response_file(&words[1..]);
        assert_eq!(split_arguments(&rsp), &words[1..], "{rsp}");
    }

    #[test]
    fn round_trips() {
        let tricky = [
            "",
            " ",
            "plain",
            "with space",
            "trailing\\",
            "trailing space\\",
            "C:\\Program Files\\AMD\\ROCm\\6.4\\lib\\",
            "/LIBPATH:C:\\Program Files (x86)\\Windows Kits\\10\\Lib\\",
            "quote\"inside",
            "\\\"",
            "\\\\\"\\\\",
            "\"\"",
            "tab\there",
            "line\nend",
            "Jörg\\Größe\\ä b.obj",
            "a\"b\"\" c d",
            "\\\\server\\share\\x y\\",
        ];
        for word in tricky {
            round_trip(&[
                "C:\\Program Files\\x\\link.exe".to_string(),
                word.to_string(),
            ]);
        }
        round_trip(&tricky.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        // Generated words over the characters that matter.
        let alphabet = ['a', ' ', '\\', '"', '\t', 'é', '/', ':'];
        let mut state: u64 = 0x2545_f491_4f6c_dd1d;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..2000 {
            let mut words = vec!["prog".to_string()];
            for _ in 0..next() % 4 + 1 {
                let length = next() % 9;
                let word: String = (0..length)
                    .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                    .collect();
                words.push(word);
            }
            round_trip(&words);
        }
    }

    #[test]
    fn program_quoting() {
        assert_eq!(quote_program("lld-link").unwrap(), "lld-link");
        assert_eq!(
            quote_program(r"C:\Program Files\LLVM\bin\lld-link.exe").unwrap(),
            r#""C:\Program Files\LLVM\bin\lld-link.exe""#
        );
        assert!(quote_program("a\"b").is_none());
        assert_eq!(quote_argument("kernel32.lib"), "kernel32.lib");
        assert_eq!(
            quote_argument(r"/LIBPATH:C:\Program Files\AMD\ROCm\6.4\lib\"),
            r#""/LIBPATH:C:\Program Files\AMD\ROCm\6.4\lib\\""#
        );
    }
}
