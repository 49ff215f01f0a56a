//! The link commands a log shows: the command under ninja's `FAILED:` line, CMake's
//! `LINK: command "..." failed`, and any line that starts with a known linker or compiler driver
//! (ninja `-v`, MSBuild and make echo them). Also what the log says about where the build ran
//! (`ninja: Entering directory`) and which outputs failed.

use std::io::Read;

use crate::read::linklog::{clean, LineReader};

/// How a candidate was found in the log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Shape {
    /// The line after ninja's `FAILED: OUTPUTS` (the outputs as listed).
    NinjaFailed(String),
    /// ninja's `FAILED:` line itself: ninja before 1.8 printed the command there.
    NinjaFailedLine,
    /// CMake's `LINK: command "..." failed` (`cmake -E vs_link_*`).
    CmakeLink,
    /// A line that starts with a known linker or driver.
    CommandLine,
}

/// A line of the log that may hold the failed link command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Candidate {
    /// 1-based line number.
    pub line: u64,
    /// The command text.
    pub text: String,
    /// How it was found.
    pub shape: Shape,
}

impl Candidate {
    /// Where it was found, for the report.
    pub fn describe(&self, log: &str) -> String {
        match &self.shape {
            Shape::NinjaFailed(outputs) => {
                format!(
                    "{log} line {}, under ninja's `FAILED: {outputs}`",
                    self.line
                )
            }
            Shape::NinjaFailedLine => format!("{log} line {}, ninja's `FAILED:` line", self.line),
            Shape::CmakeLink => format!("{log} line {}, CMake's `LINK: command`", self.line),
            Shape::CommandLine => format!("{log} line {}", self.line),
        }
    }
}

/// What a log shows about its link commands.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LogCommands {
    /// Every candidate, in log order.
    pub candidates: Vec<Candidate>,
    /// The outputs of every ninja `FAILED:` line, in log order.
    pub failed_outputs: Vec<String>,
    /// The images the linker's failures name (`x.dll : fatal error LNK1120: ...`), file names in
    /// lower case.
    pub failing_images: Vec<String>,
    /// The last `ninja: Entering directory` (or make's), and its line.
    pub entering_directory: Option<(String, u64)>,
}

/// Strips what tools put before a command line: indentation, MSBuild's `N>`, ninja's `[N/M]`.
fn strip_tool_prefix(line: &str) -> &str {
    let mut text = line.trim_start();
    let digits = text.bytes().take_while(u8::is_ascii_digit).count();
    if digits > 0 && text[digits..].starts_with('>') {
        text = text[digits + 1..].trim_start();
    }
    if let Some(rest) = text.strip_prefix('[') {
        if let Some(close) = rest.find(']') {
            let inside = &rest[..close];
            if inside.contains('/') && inside.bytes().all(|b| b.is_ascii_digit() || b == b'/') {
                text = rest[close + 1..].trim_start();
            }
        }
    }
    text
}

/// The outputs of `FAILED: [code=N] out1 out2`.
fn failed_outputs(rest: &str) -> String {
    let rest = rest.trim();
    let rest = match rest.strip_prefix("[code=") {
        Some(after) => after.split_once(']').map_or("", |(_, r)| r).trim(),
        None => rest,
    };
    rest.to_string()
}

/// The image a link.exe failure names: `x.dll : fatal error LNK1120: ...` gives `x.dll` (not an
/// object's or a library's error, nor `LINK : ...`).
fn failing_image(text: &str) -> Option<String> {
    let (name, _) = text.split_once(" : fatal error LNK")?;
    let name = super::command::file_name(name.trim()).to_ascii_lowercase();
    let input = [".obj", ".o", ".lib", ".a"]
        .iter()
        .any(|e| name.ends_with(e));
    (!input && name != "link" && !name.is_empty()).then_some(name)
}

/// Whether a line starts with a program lnkfix re-runs (by the program-name rule), and is not
/// one of link.exe's messages (`LINK : fatal error LNK1181: ...`).
fn starts_with_known_program(text: &str) -> bool {
    let words = super::command::split_command(text);
    let Some(first) = words.first() else {
        return false;
    };
    if words.get(1).is_some_and(|w| w == ":") {
        return false;
    }
    super::command::program_driver(first).is_some() || super::command::program_name(first) == "cmd"
}

/// The leading part of a line that is not the command: MSBuild's `N>`, then spaces. Returns its
/// length in bytes and how many spaces it holds.
fn indentation(line: &str) -> (usize, usize) {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let after = if digits > 0 && line[digits..].starts_with('>') {
        digits + 1
    } else {
        0
    };
    let spaces = line[after..].bytes().take_while(|b| *b == b' ').count();
    (after + spaces, spaces)
}

/// A candidate whose command may go on over the next lines.
struct Open {
    candidate: Candidate,
    /// Spaces before the command on its first line.
    indent: usize,
    /// Characters of its first line.
    width: usize,
    /// Characters of its last line.
    last: usize,
    /// Whether the first line looks cut by a console: at a console width, or with a quote left
    /// open.
    cut: bool,
}

impl Open {
    /// Adds `line` to the command when it continues it: a console hard-wrapped the command (its
    /// first line ends at a console width or leaves a quote open, and the line before was as long
    /// as the first), or MSBuild echoes the arguments (its response file) one per line at the
    /// command's indentation.
    fn take(&mut self, line: &str) -> bool {
        let (prefix, spaces) = indentation(line);
        let rest = line[prefix..].trim_end();
        if rest.is_empty() || rest.starts_with("FAILED:") || rest.starts_with("ninja:") {
            return false;
        }
        let looks_like_a_record = rest.starts_with("LINK:")
            || rest.contains(": error")
            || rest.contains(": warning")
            || rest.contains(" error LNK")
            || rest.contains(" warning LNK");
        if self.cut && self.last == self.width && !looks_like_a_record {
            // Cut mid-token: no separator.
            let kept = spaces.saturating_sub(self.indent);
            self.candidate.text.push_str(&" ".repeat(kept));
            self.candidate.text.push_str(rest);
        } else if self.indent > 0 && spaces == self.indent && !starts_with_known_program(rest) {
            self.candidate.text.push(' ');
            self.candidate.text.push_str(rest);
        } else {
            return false;
        }
        self.last = line.chars().count();
        true
    }
}

/// The scan's state between lines.
#[derive(Default)]
struct Scanner {
    found: LogCommands,
    /// After `FAILED:`: its outputs, until the command line comes.
    after_failed: Option<String>,
    open: Option<Open>,
}

impl Scanner {
    fn close(&mut self) {
        if let Some(open) = self.open.take() {
            // An old ninja's `FAILED:` line is a command only when it names a program.
            let failed_line = open.candidate.shape == Shape::NinjaFailedLine;
            if !failed_line || super::command::names_a_program(&open.candidate.text) {
                if failed_line {
                    // The command was on the line itself: what follows is its output.
                    self.after_failed = None;
                }
                self.found.candidates.push(open.candidate);
            }
        }
    }

    fn open(&mut self, line: &str, number: u64, text: &str, shape: Shape) {
        self.close();
        let width = line.chars().count();
        self.open = Some(Open {
            candidate: Candidate {
                line: number,
                text: text.to_string(),
                shape,
            },
            indent: indentation(line).1,
            width,
            last: width,
            cut: width >= 80
                && (line.matches('"').count() % 2 == 1
                    || crate::read::linklog::CONSOLE_WIDTHS
                        .iter()
                        .any(|&w| width == w || width + 1 == w)),
        });
    }

    fn line(&mut self, number: u64, line: &str) {
        if self.open.as_mut().is_some_and(|open| open.take(line)) {
            return;
        }
        self.close();
        let text = strip_tool_prefix(line).trim_end();
        if text.is_empty() {
            return;
        }
        if let Some(rest) = text.strip_prefix("FAILED:") {
            let outputs = failed_outputs(rest);
            self.found.failed_outputs.push(outputs.clone());
            self.open(line, number, &outputs, Shape::NinjaFailedLine);
            self.after_failed = Some(outputs);
            return;
        }
        if let Some(outputs) = self.after_failed.take() {
            self.open(line, number, text, Shape::NinjaFailed(outputs));
            return;
        }
        if let Some(rest) = text
            .strip_prefix("ninja: Entering directory `")
            .or_else(|| text.split_once("Entering directory '").map(|(_, r)| r))
        {
            let dir = rest.trim_end_matches(['\'', '`']);
            self.found.entering_directory = Some((dir.to_string(), number));
            return;
        }
        if let Some(image) = failing_image(text) {
            self.found.failing_images.push(image);
        }
        if let Some(rest) = text.strip_prefix("LINK: command \"") {
            if let Some(end) = rest.rfind("\" failed") {
                self.found.candidates.push(Candidate {
                    line: number,
                    text: rest[..end].to_string(),
                    shape: Shape::CmakeLink,
                });
            }
            return;
        }
        // Supervisor prefixes (timestamps, `worker |`) come off only for this check: they
        // would also take `LINK:` and `FAILED:` apart.
        for candidate in [text, clean::strip_prefixes(text)] {
            if starts_with_known_program(candidate) {
                self.open(line, number, candidate, Shape::CommandLine);
                return;
            }
        }
    }
}

/// Reads `reader` (a log) for link commands.
pub fn scan(reader: Box<dyn Read>, max_line_bytes: usize) -> std::io::Result<LogCommands> {
    let mut scanner = Scanner::default();
    let mut lines = LineReader::new(reader, max_line_bytes)?;
    let mut raw = String::new();
    while lines.next_line(&mut raw)? {
        let number = lines.line_number;
        let unescaped = clean::strip_escapes(&raw);
        if clean::looks_like_python_repr(&unescaped) {
            for line in clean::expand_python_repr(&unescaped) {
                scanner.line(number, &line);
            }
        } else {
            scanner.line(number, &unescaped);
        }
    }
    scanner.close();
    Ok(scanner.found)
}

/// The candidates in the order to try them: the nearest before `first_error_line` (the log's
/// first unresolved symbol or error) first, then the rest from the newest.
pub fn in_order(candidates: &[Candidate], first_error_line: Option<u64>) -> Vec<&Candidate> {
    let limit = first_error_line.unwrap_or(u64::MAX);
    let mut before: Vec<&Candidate> = candidates.iter().filter(|c| c.line <= limit).collect();
    before.reverse();
    let mut after: Vec<&Candidate> = candidates.iter().filter(|c| c.line > limit).collect();
    after.reverse();
    before.extend(after);
    before
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan_text(text: &str) -> LogCommands {
        scan(
            Box::new(std::io::Cursor::new(text.as_bytes().to_vec())),
            1 << 20,
        )
        .unwrap()
    }

    #[test]
    fn ninja_cmake_and_echoed_commands() {
        let log = "\
ninja: Entering directory `build'
[1/2] clang-cl /c a.cpp /Foa.obj
[2/2] lld-link /out:x.dll a.obj
FAILED: [code=1] x.dll x.lib

lld-link /out:x.dll a.obj
lld-link: error: undefined symbol: f
LINK: command \"C:\\LLVM\\bin\\lld-link.exe /nologo @CMakeFiles\\t.rsp /out:bin\\t.dll\" failed (exit code 1) with the following output:
  3>  \u{1b}[1mC:\\VS\\bin\\link.exe\u{1b}[0m /OUT:y.dll y.obj
2026-11-30 12:00:01 INFO worker | clang++ -shared a.o -o z.dll
";
        let found = scan_text(log);
        assert_eq!(found.entering_directory, Some(("build".into(), 1)));
        assert_eq!(found.failed_outputs, ["x.dll x.lib"]);
        let shapes: Vec<(u64, &str, &Shape)> = found
            .candidates
            .iter()
            .map(|c| (c.line, c.text.as_str(), &c.shape))
            .collect();
        assert_eq!(
            shapes,
            [
                (2, "clang-cl /c a.cpp /Foa.obj", &Shape::CommandLine),
                (3, "lld-link /out:x.dll a.obj", &Shape::CommandLine),
                (
                    6,
                    "lld-link /out:x.dll a.obj",
                    &Shape::NinjaFailed("x.dll x.lib".into())
                ),
                (
                    8,
                    "C:\\LLVM\\bin\\lld-link.exe /nologo @CMakeFiles\\t.rsp /out:bin\\t.dll",
                    &Shape::CmakeLink
                ),
                (
                    9,
                    "C:\\VS\\bin\\link.exe /OUT:y.dll y.obj",
                    &Shape::CommandLine
                ),
                (10, "clang++ -shared a.o -o z.dll", &Shape::CommandLine),
            ]
        );
        let order: Vec<u64> = in_order(&found.candidates, Some(7))
            .iter()
            .map(|c| c.line)
            .collect();
        assert_eq!(order, [6, 3, 2, 10, 9, 8]);
    }

    #[test]
    fn older_ninja_printed_the_command_on_the_failed_line() {
        let found = scan_text("FAILED: python.exe gyp-win-tool link-wrapper environment.x64 False link.exe /OUT:e.exe @e.exe.rsp\n   Creating library e.lib\n");
        assert_eq!(found.candidates[0].shape, Shape::NinjaFailedLine);
        assert!(found.candidates[0]
            .text
            .starts_with("python.exe gyp-win-tool"));
        // Outputs are not a command.
        let found =
            scan_text("FAILED: bin/x.dll lib/x.lib\nlld-link: error: undefined symbol: f\n");
        assert!(found
            .candidates
            .iter()
            .all(|c| c.shape != Shape::NinjaFailedLine));
    }

    #[test]
    fn wrapped_and_echoed_commands_are_joined() {
        // A console wrapped an old ninja's FAILED: line: every piece as long as the first.
        let line1 = "FAILED: python.exe gyp-win-tool link-with-manifests environment.x86 True node.dll \"python.exe gyp-win-tool link-wrap";
        let line2 = "per environment.x86 False link.exe /nologo /IMPLIB:node.dll.lib /DLL /OUT:node.dll @node.dll.rsp\" 2 mt.exe rc.exe \"o";
        assert_eq!(line1.len(), line2.len());
        let log = format!(
            "{line1}\n{line2}\nbj\\x.manifest\"\nMSVCRT.lib(MSVCR120.dll) : error LNK2005: x\n"
        );
        let found = scan_text(&log);
        assert_eq!(found.candidates.len(), 1, "{found:?}");
        assert_eq!(found.candidates[0].shape, Shape::NinjaFailedLine);
        assert!(
            found.candidates[0].text.ends_with("link-wrapper environment.x86 False link.exe /nologo /IMPLIB:node.dll.lib /DLL /OUT:node.dll @node.dll.rsp\" 2 mt.exe rc.exe \"obj\\x.manifest\""),
            "{}",
            found.candidates[0].text
        );
        // MSBuild: the command wrapped with its indentation, then one input per line at the same
        // indentation, then the error.
        // 119 characters: a 120-column console.
        let prefix = "  C:\\VS\\bin\\link.exe /OUT:x.dll /";
        let a = format!("{prefix}{}", "X".repeat(119 - prefix.len()));
        let b = format!("  NOLOGO{}", "Y".repeat(a.len() - 8));
        let log = format!("Link:\n{a}\n{b}\n  /DLL a.obj\n  b.obj\nLINK : fatal error LNK1181: cannot open input file 'c.lib'\n");
        let found = scan_text(&log);
        assert_eq!(found.candidates.len(), 1, "{found:?}");
        let text = &found.candidates[0].text;
        assert!(
            text.starts_with("C:\\VS\\bin\\link.exe /OUT:x.dll /XXXX"),
            "{text}"
        );
        assert!(text.contains("XNOLOGOY"), "{text}");
        assert!(text.ends_with("YYY/DLL a.obj b.obj"), "{text}");
    }

    #[test]
    fn a_log_inside_a_python_repr() {
        let log = r"RuntimeError: b'FAILED: ext.dll\r\ncl cpp_0.o /link /DLL /out:ext.dll\r\nlld-link: error: undefined symbol: hipMalloc\r\n'";
        let found = scan_text(log);
        assert_eq!(found.candidates.len(), 1, "{found:?}");
        assert_eq!(
            found.candidates[0].text,
            "cl cpp_0.o /link /DLL /out:ext.dll"
        );
    }
}
