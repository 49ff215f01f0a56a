//! The link commands a log shows: the command under ninja's `FAILED:` line, CMake's
//! `LINK: command "..." failed`, and any line that starts with a known linker or compiler driver
//! (ninja `-v`, MSBuild and make echo them). Also what the log says about where the build ran
//! (`ninja: Entering directory`) and which outputs failed.

use std::io::Read;

use crate::linklog::{clean, LineReader};

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

/// Whether a line starts with a program lnkfix re-runs (by the program-name rule).
fn starts_with_known_program(text: &str) -> bool {
    let words = super::winargs::split_command_line(text);
    words
        .first()
        .is_some_and(|p| super::command::program_driver(p).is_some())
        || text.to_ascii_lowercase().starts_with("cmd")
            && super::command::program_name(words.first().map_or("", |w| w)) == "cmd"
}

/// Reads `reader` (a log) for link commands.
pub fn scan(reader: Box<dyn Read>, max_line_bytes: usize) -> std::io::Result<LogCommands> {
    let mut found = LogCommands::default();
    let mut lines = LineReader::new(reader, max_line_bytes)?;
    let mut raw = String::new();
    // After `FAILED:`: its outputs, until the command line comes.
    let mut after_failed: Option<String> = None;
    while lines.next_line(&mut raw)? {
        let number = lines.line_number;
        let unescaped = clean::strip_escapes(&raw);
        let expanded = if clean::looks_like_python_repr(&unescaped) {
            clean::expand_python_repr(&unescaped)
        } else {
            vec![unescaped.into_owned()]
        };
        for line in &expanded {
            let text = strip_tool_prefix(line).trim_end();
            if text.is_empty() {
                continue;
            }
            if let Some(rest) = text.strip_prefix("FAILED:") {
                let outputs = failed_outputs(rest);
                if super::command::names_a_program(&outputs) {
                    found.candidates.push(Candidate {
                        line: number,
                        text: outputs.clone(),
                        shape: Shape::NinjaFailedLine,
                    });
                }
                found.failed_outputs.push(outputs.clone());
                after_failed = Some(outputs);
                continue;
            }
            if let Some(outputs) = after_failed.take() {
                found.candidates.push(Candidate {
                    line: number,
                    text: text.to_string(),
                    shape: Shape::NinjaFailed(outputs),
                });
                continue;
            }
            if let Some(rest) = text
                .strip_prefix("ninja: Entering directory `")
                .or_else(|| text.split_once("Entering directory '").map(|(_, r)| r))
            {
                let dir = rest.trim_end_matches(['\'', '`']);
                found.entering_directory = Some((dir.to_string(), number));
                continue;
            }
            if let Some(rest) = text.strip_prefix("LINK: command \"") {
                if let Some(end) = rest.rfind("\" failed") {
                    found.candidates.push(Candidate {
                        line: number,
                        text: rest[..end].to_string(),
                        shape: Shape::CmakeLink,
                    });
                }
                continue;
            }
            // Supervisor prefixes (timestamps, `worker |`) come off only for this check: they
            // would also take `LINK:` and `FAILED:` apart.
            for candidate in [text, clean::strip_prefixes(text)] {
                if starts_with_known_program(candidate) {
                    found.candidates.push(Candidate {
                        line: number,
                        text: candidate.to_string(),
                        shape: Shape::CommandLine,
                    });
                    break;
                }
            }
        }
    }
    Ok(found)
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
