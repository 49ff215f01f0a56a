//! A scanner of CMake's language: the commands of a `CMakeLists.txt` with their arguments and
//! byte positions, comments (`#` lines and `#[[ ]]` brackets) skipped.
//!
//! Hand-written because no Rust crate parses CMake's language (CMake itself has no library form,
//! and its grammar is small: commands `name(args)`, arguments quoted `"..."`, bracketed
//! `[==[...]==]` or unquoted with nested parentheses, comments `#` and `#[==[...]==]`,
//! documented in the cmake-language(7) manual). The scanner only reads; edits splice text at
//! the positions it reports, so everything else in the file stays byte for byte.

/// How an argument was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgKind {
    /// Unquoted (`PRIVATE`, `${x}`, `a;b`).
    Unquoted,
    /// `"quoted"`.
    Quoted,
    /// `[[bracketed]]`.
    Bracket,
}

/// One argument of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arg {
    /// The text between its delimiters (escapes not evaluated).
    pub text: String,
    /// How it was written.
    pub kind: ArgKind,
    /// Byte range of the whole argument, delimiters included.
    pub span: (usize, usize),
}

/// One command invocation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The command name, lower-cased (CMake's names are case-insensitive).
    pub name: String,
    /// Its arguments.
    pub args: Vec<Arg>,
    /// Byte offset of the name's first byte.
    pub start: usize,
    /// Byte offset of the closing parenthesis.
    pub close: usize,
    /// 1-based line of the name.
    pub line: usize,
}

/// A scanning error: what and where (1-based line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanError {
    /// 1-based line.
    pub line: usize,
    /// What is wrong.
    pub what: &'static str,
}

struct Scanner<'a> {
    text: &'a [u8],
    at: usize,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn line(&self, at: usize) -> usize {
        1 + self.text[..at.min(self.text.len())]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
    }

    fn error(&self, at: usize, what: &'static str) -> ScanError {
        ScanError {
            line: self.line(at),
            what,
        }
    }

    /// At `[`, `[=[`, ...: the bracket's level (number of `=`), when it opens one.
    fn bracket_open(&self) -> Option<usize> {
        let rest = &self.text[self.at..];
        if rest.first() != Some(&b'[') {
            return None;
        }
        let equals = rest[1..].iter().take_while(|&&b| b == b'=').count();
        (rest.get(1 + equals) == Some(&b'[')).then_some(equals)
    }

    /// Skips a bracket (from its `[`), returning the text inside.
    fn bracket(&mut self, level: usize) -> Result<String, ScanError> {
        let start = self.at;
        let open_len = level + 2;
        let close: Vec<u8> = [b"]".as_slice(), &vec![b'='; level], b"]"].concat();
        let body = self.at + open_len;
        let Some(found) = self.text[body..]
            .windows(close.len())
            .position(|w| w == close.as_slice())
        else {
            return Err(self.error(start, "a bracket argument or comment never closes"));
        };
        self.at = body + found + close.len();
        Ok(String::from_utf8_lossy(&self.text[body..body + found]).into_owned())
    }

    /// Skips whitespace and comments.
    fn skip_space(&mut self) -> Result<(), ScanError> {
        while let Some(b) = self.peek() {
            if b.is_ascii_whitespace() {
                self.at += 1;
            } else if b == b'#' {
                self.at += 1;
                if let Some(level) = self.bracket_open() {
                    self.bracket(level)?;
                } else {
                    while self.peek().is_some_and(|b| b != b'\n') {
                        self.at += 1;
                    }
                }
            } else {
                break;
            }
        }
        Ok(())
    }

    fn quoted(&mut self) -> Result<Arg, ScanError> {
        let start = self.at;
        self.at += 1;
        while let Some(b) = self.peek() {
            match b {
                b'\\' => self.at += 2,
                b'"' => {
                    self.at += 1;
                    return Ok(Arg {
                        text: String::from_utf8_lossy(&self.text[start + 1..self.at - 1])
                            .into_owned(),
                        kind: ArgKind::Quoted,
                        span: (start, self.at),
                    });
                }
                _ => self.at += 1,
            }
        }
        Err(self.error(start, "a quoted argument never closes"))
    }

    fn unquoted(&mut self) -> Arg {
        let start = self.at;
        while let Some(b) = self.peek() {
            match b {
                b'\\' => self.at += 2,
                b'(' | b')' | b'#' | b'"' => break,
                _ if b.is_ascii_whitespace() => break,
                _ => self.at += 1,
            }
        }
        self.at = self.at.min(self.text.len());
        Arg {
            text: String::from_utf8_lossy(&self.text[start..self.at]).into_owned(),
            kind: ArgKind::Unquoted,
            span: (start, self.at),
        }
    }

    /// The arguments after `(` up to the matching `)`; nested parentheses are arguments' text.
    fn arguments(&mut self, open: usize) -> Result<(Vec<Arg>, usize), ScanError> {
        let mut args = Vec::new();
        let mut depth = 0usize;
        loop {
            self.skip_space()?;
            let Some(b) = self.peek() else {
                return Err(self.error(open, "a command's parenthesis never closes"));
            };
            match b {
                b'(' => {
                    depth += 1;
                    self.at += 1;
                }
                b')' if depth == 0 => {
                    let close = self.at;
                    self.at += 1;
                    return Ok((args, close));
                }
                b')' => {
                    depth -= 1;
                    self.at += 1;
                }
                b'"' => args.push(self.quoted()?),
                b'[' if self.bracket_open().is_some() => {
                    let start = self.at;
                    let level = self.bracket_open().unwrap_or(0);
                    let text = self.bracket(level)?;
                    args.push(Arg {
                        text,
                        kind: ArgKind::Bracket,
                        span: (start, self.at),
                    });
                }
                _ => args.push(self.unquoted()),
            }
        }
    }
}

/// Every command of a file, in order.
pub fn scan(text: &[u8]) -> Result<Vec<Command>, ScanError> {
    let mut scanner = Scanner { text, at: 0 };
    let mut commands = Vec::new();
    let (mut line, mut counted) = (1, 0);
    loop {
        scanner.skip_space()?;
        let Some(b) = scanner.peek() else {
            return Ok(commands);
        };
        if !(b.is_ascii_alphabetic() || b == b'_') {
            return Err(scanner.error(scanner.at, "expected a command name"));
        }
        let start = scanner.at;
        while scanner
            .peek()
            .is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_')
        {
            scanner.at += 1;
        }
        let name = String::from_utf8_lossy(&text[start..scanner.at]).to_ascii_lowercase();
        while scanner.peek().is_some_and(|b| b == b' ' || b == b'\t') {
            scanner.at += 1;
        }
        if scanner.peek() != Some(b'(') {
            return Err(scanner.error(start, "a command name not followed by '('"));
        }
        let open = scanner.at;
        scanner.at += 1;
        let (args, close) = scanner.arguments(open)?;
        // Lines counted from the previous command's: one pass over the file in all.
        line += text[counted..start].iter().filter(|&&b| b == b'\n').count();
        counted = start;
        commands.push(Command {
            name,
            args,
            start,
            close,
            line,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_arguments_and_comments() {
        let text = b"# c\ncmake_minimum_required(VERSION 3.20) #[[ x ) ]]\n\
            add_executable(app \"a b.c\" [=[x]]y]=] ${SRC})\nif((A) AND B)\nendif()\n";
        let commands = scan(text).unwrap();
        let names: Vec<&str> = commands.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            names,
            ["cmake_minimum_required", "add_executable", "if", "endif"]
        );
        let add = &commands[1];
        assert_eq!(add.line, 3);
        let texts: Vec<&str> = add.args.iter().map(|a| a.text.as_str()).collect();
        assert_eq!(texts, ["app", "a b.c", "x]]y", "${SRC}"]);
        assert_eq!(add.args[1].kind, ArgKind::Quoted);
        assert_eq!(add.args[2].kind, ArgKind::Bracket);
        assert_eq!(text[add.close], b')');
        let texts: Vec<&str> = commands[2].args.iter().map(|a| a.text.as_str()).collect();
        assert_eq!(texts, ["A", "AND", "B"]);
    }

    #[test]
    fn a_large_file_is_scanned_in_one_pass() {
        let text = "add_library(x${i} SHARED x.c) # c\n".repeat(200_000);
        let commands = scan(text.as_bytes()).unwrap();
        assert_eq!(commands.len(), 200_000);
        assert_eq!(commands[199_999].line, 200_000);
    }

    #[test]
    fn unclosed_things_are_errors_with_lines() {
        assert_eq!(scan(b"a(\n\"x)\n").unwrap_err().line, 2);
        assert_eq!(scan(b"\nadd_library(x\n").unwrap_err().line, 2);
        assert_eq!(scan(b"#[[ never").unwrap_err().line, 1);
        assert!(scan(b"set x\n").is_err());
    }
}
