//! The source layout's house rules (CONTRIBUTING.md, "Source layout"): no function in `src/` over
//! 80 lines unless its doc comment says why its length is the honest shape ("Long because ..." or
//! "Kept whole because ..."), and no file in `src/` over 1,200 lines besides its unit tests. The
//! code is rustfmt-formatted, so a function runs from its `fn` line to the first line that is its
//! indentation followed by `}`. Each failure names the file, the line and the length.

mod imports;

use crate::common;

use std::path::{Path, PathBuf};

/// Longest function, in lines, without a stated reason.
const MAX_FUNCTION_LINES: usize = 80;

/// Longest file, in lines, not counting its `#[cfg(test)] mod tests` block.
const MAX_FILE_LINES: usize = 1_200;

/// What a doc comment says when a long function is long on purpose.
const REASONS: &[&str] = &["Long because", "Kept whole because"];

/// One function found in a file.
#[derive(Debug, PartialEq, Eq)]
struct Function {
    name: String,
    /// 1-based line of its `fn`.
    line: usize,
    /// Lines from its `fn` line to its closing brace, both included.
    length: usize,
    /// Whether its doc comment gives a reason for its length.
    reasoned: bool,
}

/// The name of the function a line declares, when it declares one (`pub(crate) async fn name`).
fn declared(line: &str) -> Option<&str> {
    let mut rest = line.trim_start();
    loop {
        let before = rest;
        for qualifier in ["const ", "async ", "unsafe ", "default "] {
            rest = rest.strip_prefix(qualifier).unwrap_or(rest);
        }
        if let Some(after) = rest.strip_prefix("pub") {
            match after.strip_prefix('(') {
                Some(scope) => rest = scope.split_once(')').map_or(rest, |(_, r)| r).trim_start(),
                None if after.starts_with(' ') => rest = after.trim_start(),
                None => {}
            }
        }
        if let Some(after) = rest.strip_prefix("extern \"") {
            rest = after.split_once("\" ").map_or(rest, |(_, r)| r);
        }
        if rest == before {
            break;
        }
    }
    let name = rest.strip_prefix("fn ")?;
    let end = name
        .find(|c: char| !(c.is_alphanumeric() || c == '_'))
        .unwrap_or(name.len());
    (end > 0).then(|| &name[..end])
}

/// Every function with a body in `text`, with its length and whether its doc comment gives a
/// reason.
fn functions(text: &str) -> Vec<Function> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        let Some(name) = declared(line) else {
            continue;
        };
        let indent = &line[..line.len() - line.trim_start().len()];
        // The signature ends at the first line ending in `{` (a body), `;` (a declaration
        // without one) or `}` (a body on the same line).
        let Some(opened) = (at..lines.len()).find(|&i| {
            let end = lines[i].trim_end();
            end.ends_with('{') || end.ends_with(';') || end.ends_with('}')
        }) else {
            continue;
        };
        let closed = if lines[opened].trim_end().ends_with(';') {
            continue;
        } else if lines[opened].trim_end().ends_with('}') && lines[opened].contains('{') {
            Some(opened)
        } else {
            let closing = format!("{indent}}}");
            (opened..lines.len()).find(|&i| lines[i] == closing)
        };
        let Some(closed) = closed else {
            continue;
        };
        let doc: Vec<&str> = lines[..at]
            .iter()
            .rev()
            .map(|l| l.trim_start())
            .take_while(|l| l.starts_with("///") || l.starts_with("#["))
            .filter(|l| l.starts_with("///"))
            .collect();
        let doc = doc.join(" ");
        out.push(Function {
            name: name.to_string(),
            line: at + 1,
            length: closed - at + 1,
            reasoned: REASONS.iter().any(|r| doc.contains(r)),
        });
    }
    out
}

/// The file's length without its `#[cfg(test)] mod tests { ... }` block.
fn length_without_tests(text: &str) -> usize {
    let lines: Vec<&str> = text.lines().collect();
    let start = (0..lines.len().saturating_sub(1))
        .find(|&i| lines[i] == "#[cfg(test)]" && lines[i + 1].starts_with("mod tests"));
    let tests = start.map_or(0, |start| {
        let end = (start..lines.len())
            .find(|&i| lines[i] == "}")
            .unwrap_or(lines.len() - 1);
        end - start + 1
    });
    lines.len() - tests
}

/// Every `.rs` file under `dir`, sorted.
fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// What breaks the rules in one file (`relative` is its path from the repository root).
fn violations(relative: &str, text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for f in functions(text) {
        if f.length <= MAX_FUNCTION_LINES || f.reasoned {
            continue;
        }
        out.push(format!(
            "{relative}:{}: fn {} is {} lines (over {MAX_FUNCTION_LINES}): split it into named \
             steps, or say in its doc comment why not (\"Long because ...\" or \"Kept whole \
             because ...\")",
            f.line, f.name, f.length
        ));
    }
    let length = length_without_tests(text);
    if length > MAX_FILE_LINES {
        out.push(format!(
            "{relative}: {length} lines besides its tests (over {MAX_FILE_LINES}): one file per \
             concept"
        ));
    }
    out
}

#[test]
fn no_long_function_without_a_reason_and_no_long_file() {
    let root = common::root();
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 50, "only {} source files", files.len());
    let mut failures = Vec::new();
    let mut counted = 0;
    for path in &files {
        let relative = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(path).unwrap();
        counted += functions(&text).len();
        failures.extend(violations(&relative, &text));
    }
    assert!(counted > 1_000, "only {counted} functions found");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The scanner on a small source: what it must count, accept and refuse.
#[test]
fn the_rules_catch_what_they_must() {
    let body = |lines: usize| "    let x = 1;\n".repeat(lines);
    let text = format!(
        "/// Short.\npub(crate) fn short() {{\n{}}}\n\n\
         /// Long.\n#[allow(dead_code)]\nfn long(\n    a: u8,\n) -> u8 {{\n{}    a\n}}\n\n\
         /// Long because it is one table.\nfn table() {{\n{}}}\n\n\
         impl X {{\n    /// Nested.\n    pub async fn method(&self) {{\n{}    }}\n}}\n\n\
         trait T {{\n    fn declared(&self);\n    fn one_line(&self) {{ }}\n}}\n",
        body(3),
        body(88),
        body(100),
        body(95)
    );
    let found: Vec<(String, usize, usize, bool)> = functions(&text)
        .into_iter()
        .map(|f| (f.name, f.line, f.length, f.reasoned))
        .collect();
    assert_eq!(
        found,
        vec![
            ("short".into(), 2, 5, false),
            ("long".into(), 10, 93, false),
            ("table".into(), 105, 102, true),
            ("method".into(), 210, 97, false),
            ("one_line".into(), 311, 1, false),
        ]
    );
    let failures = violations("src/x.rs", &text);
    assert_eq!(failures.len(), 2, "{failures:#?}");
    assert!(failures[0].starts_with("src/x.rs:10: fn long is 93 lines"));
    assert!(failures[1].starts_with("src/x.rs:210: fn method is 97 lines"));
    let tests = format!(
        "fn a() {{}}\n#[cfg(test)]\nmod tests {{\n{}}}\n",
        body(1300)
    );
    assert_eq!(length_without_tests(&tests), 1);
    let long_file = format!("{}{tests}", "// line\n".repeat(1_200));
    assert_eq!(violations("src/y.rs", &long_file).len(), 1);
    assert!(violations("src/y.rs", &long_file[8..]).is_empty());
}
