//! What the rest of a log says about the link, read in a second, filtered pass: the toolset
//! versions its paths and banners show (`MSVC\14.29.30133`, `Linker Version 14.15.26730.0`), the
//! machine it was meant for (`TARGET_ARCH=x86`, a `Python310-32` path, `vcvars32`, a `Hostx64\x86`
//! compiler, `/MACHINE:X86`, `i686-pc-windows-msvc`), its library directories and its output file
//! (`/OUT:node.dll`). Problems cite these lines as evidence.

use std::io::{self, Read};
use std::sync::OnceLock;

use regex::Regex;
use serde::Serialize;

use crate::machine::Machine;
use crate::read::linklog::{clean, LineFilter, LineReader};
use crate::resolve::toolsets::{self, ToolsetVersion};

/// Something a log line shows, with the line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Mention<T> {
    /// What it shows.
    pub value: T,
    /// 1-based line number.
    pub line: u64,
    /// The line (shortened).
    pub text: String,
}

/// A machine a line shows and how it shows it (`TARGET_ARCH=x86`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MachineMention {
    /// The machine (`x86`, `x64`, `arm64`, `arm64ec`).
    pub machine: Machine,
    /// The words that show it.
    pub shown_by: String,
}

/// The log's context.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct LogContext {
    /// Toolset versions, first mention of each.
    pub toolsets: Vec<Mention<ToolsetVersion>>,
    /// Machines the build was meant for or run for, first mention of each way of showing one.
    pub machines: Vec<Mention<MachineMention>>,
    /// Library directories on command lines (`/LIBPATH:`, `-L`), first mention of each.
    pub library_dirs: Vec<Mention<String>>,
    /// Output files of link command lines (`/OUT:`), first mention of each.
    pub outputs: Vec<Mention<String>>,
    /// Lines that name a linker error code (`LNK1104`, `LNK2019`) or say that a link failed
    /// (`linker command failed`, `lld-link: error:`), whatever their shape: a failed link, even
    /// when no record could be read from them.
    pub failure_lines: Vec<Mention<String>>,
    /// The compiler's fatal errors during link-time code generation (`fatal error C1047: The
    /// object or library file 'x' was created by a different version of the compiler ...`,
    /// C1900, C1905):
    /// the line's text (up to 2,000 characters), first mentions.
    pub compiler_errors: Vec<Mention<String>>,
    /// The errors of the tools the linker runs: rc.exe (`error RC2136 : ...`), mt.exe (`general
    /// error c101008d: ...`), cvtres.exe (`CVT1100`); the line's text (up to 2,000 characters),
    /// first mentions.
    pub tool_errors: Vec<Mention<String>>,
    /// Assembler command lines and the object format they ask for (`nasm -f win32`: `win32`),
    /// first mention of each format: a generated object's machine is the format's.
    pub assembler_formats: Vec<Mention<String>>,
    /// CMake's Visual Studio generators (`-- Building for: Visual Studio 17 2022`, `-G "Visual
    /// Studio 15 2017 Win64"`), first mention of each: the generator's platform is the link's.
    pub generators: Vec<Mention<String>>,
    /// The platform directories a Visual Studio project writes into (`Win32\Release\`,
    /// `x64\Debug\`), first mention of each machine.
    pub platform_dirs: Vec<Mention<MachineMention>>,
}

/// A log's context, read from the log the first time a problem asks for it: most diagnoses (a
/// missing library) never cite it, and their log is then read once, whatever its size.
pub struct LazyContext<'a> {
    context: std::cell::OnceCell<LogContext>,
    read: Option<Box<dyn Fn() -> io::Result<LogContext> + 'a>>,
    error: std::cell::OnceCell<String>,
}

impl<'a> LazyContext<'a> {
    /// A context that `read` reads when first asked for.
    pub fn new(read: impl Fn() -> io::Result<LogContext> + 'a) -> LazyContext<'a> {
        LazyContext {
            context: std::cell::OnceCell::new(),
            read: Some(Box::new(read)),
            error: std::cell::OnceCell::new(),
        }
    }

    /// A context already read (tests, text held in memory), or an empty one for a log that
    /// cannot be read again (standard input).
    pub fn ready(context: LogContext) -> LazyContext<'a> {
        LazyContext {
            context: std::cell::OnceCell::from(context),
            read: None,
            error: std::cell::OnceCell::new(),
        }
    }

    /// The context, read now if it was not yet; empty when reading failed ([`Self::error`]).
    pub fn get(&self) -> &LogContext {
        self.context.get_or_init(|| {
            let read = self
                .read
                .as_ref()
                .map_or(Ok(LogContext::default()), |read| read());
            read.unwrap_or_else(|e| {
                let _ = self.error.set(e.to_string());
                LogContext::default()
            })
        })
    }

    /// Whether the context was read (or given): false when no problem asked for it.
    pub fn was_read(&self) -> bool {
        self.context.get().is_some()
    }

    /// Why reading the context failed, when it was read and failed.
    pub fn error(&self) -> Option<&str> {
        self.error.get().map(String::as_str)
    }
}

impl std::fmt::Debug for LazyContext<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LazyContext")
            .field("context", &self.context.get())
            .field("error", &self.error.get())
            .finish()
    }
}

/// Most mentions kept of each kind.
const MAX_MENTIONS: usize = 32;

/// Keeps `value` (seen on line `line`, whose short text is `text`) in `list`, unless the list
/// holds [`MAX_MENTIONS`] already or a value that is `same` as it.
fn push_mention<T>(
    list: &mut Vec<Mention<T>>,
    value: T,
    line: u64,
    text: &str,
    same: impl Fn(&T, &T) -> bool,
) {
    if list.len() < MAX_MENTIONS && !list.iter().any(|m| same(&m.value, &value)) {
        list.push(Mention {
            value,
            line,
            text: text.to_string(),
        });
    }
}

/// The substrings without which a line shows nothing of the context; with `failures`, also the
/// lines that show a failed link (the first pass found no record: every `LNK` line is read),
/// else only the fatal summaries that name the output (a log of a million records is not read
/// twice in full).
fn filter(failures: bool) -> &'static LineFilter {
    static WITH: OnceLock<LineFilter> = OnceLock::new();
    static WITHOUT: OnceLock<LineFilter> = OnceLock::new();
    let build = move || {
        let mut needles: Vec<&str> = vec![
            "MSVC",
            "msvc",
            "Visual Studio",
            "isual Studio",
            "Linker Version",
            "Compiler Version",
            "TARGET_",
            "_TGT_ARCH",
            "latform",
            "PLATFORM",
            "-A ",
            "vcvars",
            "VCVARS",
            "Native Tools",
            "Cross Tools",
            "ostx",
            "ostX",
            "environment.x",
            "-pc-windows",
            "ython",
            "YTHON",
            "win32",
            "Win32",
            "WIN32",
            "win_amd64",
            "achine",
            "ACHINE",
            "IBPATH",
            "ibpath",
            "/OUT:",
            "/out:",
            "-out:",
            "-OUT:",
            "C1047",
            "C1900",
            "C1905",
            "error RC",
            "general error c10",
            "error CVT",
            "nasm",
            "yasm",
            "NASM",
            "x64\\",
            "x64/",
            "ARM64\\",
        ];
        if failures {
            needles.extend([
                "LNK1",
                "LNK2",
                "nker command failed",
                "lld-link: error",
                "lld: error",
            ]);
        } else {
            needles.extend(["LNK1120", "LNK1169", "LNK1561"]);
        }
        LineFilter::new(&needles, [0, 0])
    };
    if failures {
        WITH.get_or_init(build)
    } else {
        WITHOUT.get_or_init(build)
    }
}

/// The machine patterns: (pattern, group holding the machine word).
fn machine_patterns() -> &'static [Regex] {
    static PATTERNS: OnceLock<Vec<Regex>> = OnceLock::new();
    PATTERNS.get_or_init(|| {
        [
            r"(?i)\b(?:TARGET_ARCH|TARGET_CPU|VSCMD_ARG_TGT_ARCH|PROCESSOR_ARCH|CMAKE_GENERATOR_PLATFORM|Platform)\s*[=:]\s*'?(?P<m>x86|x64|Win32|amd64|arm64ec|arm64|i386)\b",
            r#"(?i)(?:^|\s)-A\s+"?(?P<m>Win32|x64|ARM64EC|ARM64)\b"#,
            r"(?i)\bvcvars(?P<m>32|64|amd64_x86|x86_amd64|amd64_arm64|x86_arm64)\b",
            r"(?i)\bvcvarsall(?:\.bat)?\x22?\s+(?P<m>x86_amd64|amd64_x86|x86_arm64|amd64_arm64|x86|amd64|x64|arm64)\b",
            r"(?i)\b(?P<m>x86|x64|x64_x86|x86_x64|arm64|x64_arm64)\s+(?:Native|Cross)\s+Tools\b",
            r"(?i)\bHost(?:x64|x86|arm64)[\\/](?P<m>x86|x64|arm64)[\\/]",
            r"(?i)\benvironment\.(?P<m>x86|x64|arm64)\b",
            r"\b(?P<m>i686|x86_64|aarch64|arm64ec)-pc-windows-(?:msvc|gnu)",
            r"(?i)\bPython\d{0,3}(?P<m>-32)\b",
            r"(?i)\bcp\d{2,3}-(?P<m>win32|win_amd64|win_arm64)\b",
            r"(?i)(?:^|[\s\x22'])[/-]machine:(?P<m>x86|x64|arm64ec|arm64x|arm64|arm|i386|amd64)\b",
            r"Compiler Version [\d.]+ for (?P<m>80x86|x86|x64|ARM64)\b",
        ]
        .iter()
        .map(|p| Regex::new(p).expect("machine pattern"))
        .collect()
    })
}

/// CMake's Visual Studio generator on a CMake line: `Building for:`, `-G`, `CMAKE_GENERATOR`,
/// `Generator:`.
fn generator_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?i)(?:Building for:|-G\s*"?|CMAKE_GENERATOR(?::\w+)?\s*=\s*"?|Generator:?\s*"?)\s*(?P<g>Visual Studio \d{1,2}(?: \d{4})?(?: Win64| ARM64| ARM)?)"#)
            .expect("generator pattern")
    })
}

/// A Visual Studio project's platform directory (`build\Win32\Release\`, `x64\Debug\`).
fn platform_dir_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?i)(?:^|[\s"'\\/])(?P<m>Win32|x64|ARM64)[\\/](?:Debug|Release|RelWithDebInfo|MinSizeRel)[\\/]"#)
            .expect("platform directory pattern")
    })
}

fn option_pattern() -> &'static Regex {
    static RE: OnceLock<Regex> = OnceLock::new();
    RE.get_or_init(|| {
        Regex::new(r#"(?i)(?:^|[\s"'])[/-](?P<o>out|libpath):(?:"(?P<q>[^"]+)"|(?P<v>[^\s"']+))"#)
            .expect("option pattern")
    })
}

/// Whether a line shows a failed link: a linker error code as a word (`LNK2019`, not `LNK4098`:
/// warnings are 4xxx), or a driver's or lld-link's failure line.
fn shows_failure(text: &str) -> bool {
    let bytes = text.as_bytes();
    let code = memchr::memmem::find_iter(bytes, b"LNK").any(|at| {
        let before = at.checked_sub(1).map(|i| bytes[i]);
        let digits = bytes.get(at + 3..at + 7);
        let after = bytes.get(at + 7);
        before.is_none_or(|b| !b.is_ascii_alphanumeric())
            && digits
                .is_some_and(|d| matches!(d[0], b'1' | b'2') && d.iter().all(u8::is_ascii_digit))
            && after.is_none_or(|b| !b.is_ascii_alphanumeric())
    });
    code || text.contains("linker command failed")
        || text.contains("lld-link: error")
        || text.contains("lld: error")
}

/// The object format of an assembler command line (`nasm -f win32 x.asm`, `yasm -fwin64`,
/// `nasm.exe --format=win32`): `win32`, `win64`, `elf64`, ...
fn assembler_format(text: &str) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let at = ["nasm", "yasm"]
        .iter()
        .filter_map(|a| lower.find(a))
        .min()?;
    let mut words = lower[at..].split_whitespace().peekable();
    while let Some(word) = words.next() {
        let value = match word {
            "-f" | "--format" => words.peek().map(|w| w.to_string()),
            w if w.starts_with("--format=") => Some(w["--format=".len()..].to_string()),
            w if w.starts_with("-f") && w.len() > 2 => Some(w[2..].to_string()),
            _ => None,
        };
        if let Some(v) =
            value.filter(|v| v.starts_with("win") || v.starts_with("elf") || v.starts_with("macho"))
        {
            return Some(v);
        }
    }
    None
}

/// The machine of a matched word (`Win32` → x86, `vcvars64` → x64; for a cross environment,
/// the target: `amd64_x86` → x86).
fn machine_of_word(word: &str) -> Option<Machine> {
    let lower = word.to_ascii_lowercase();
    let target = lower.rsplit('_').next().unwrap_or(&lower);
    Some(match target {
        "32" | "-32" | "win32" | "i686" | "i386" | "80x86" => Machine::X86,
        "64" | "amd64" | "x86_64" => Machine::X64,
        "aarch64" | "arm64" => Machine::Arm64,
        _ => return crate::problems::text::machine(target),
    })
}

impl LogContext {
    /// Reads the context of a log, only the lines in `lines` (1-based, inclusive) when given;
    /// with `failures`, also the lines that show a failed link (for a log whose records the
    /// parser could not read).
    pub fn read<R: Read + 'static>(
        reader: R,
        max_line_bytes: usize,
        lines: Option<(u64, u64)>,
        failures: bool,
    ) -> io::Result<LogContext> {
        let mut context = LogContext::default();
        let mut reader = LineReader::new(reader, max_line_bytes)?;
        let mut line = String::new();
        while reader.next_matching_line(&mut line, filter(failures))? {
            let number = reader.line_number;
            if let Some((first, last)) = lines {
                if number < first {
                    continue;
                }
                if number > last {
                    break;
                }
            }
            let text = clean::strip_escapes(&line);
            context.scan_line(&text, number, failures);
        }
        Ok(context)
    }

    /// Reads a log held in memory (tests, small inputs).
    pub fn from_text(text: &str) -> LogContext {
        let mut context = LogContext::default();
        for (i, line) in text.lines().enumerate() {
            context.scan_line(line, i as u64 + 1, true);
        }
        context
    }

    /// Notes what line `line` mentions: toolset versions, machines, a failure line (when
    /// `failures`), a fatal summary's output file, CRT and machine options. Long because it is
    /// one short block per kind of mention, in one pass over the line.
    fn scan_line(&mut self, text: &str, line: u64, failures: bool) {
        let short: String = text.trim().chars().take(240).collect();
        for version in toolsets::versions_in(text) {
            push_mention(&mut self.toolsets, version, line, &short, |a, b| {
                a.version == b.version
            });
        }
        for pattern in machine_patterns() {
            let Some(c) = pattern.captures(text) else {
                continue;
            };
            let Some(machine) = c.name("m").and_then(|m| machine_of_word(m.as_str())) else {
                continue;
            };
            let shown_by = c[0].trim().to_string();
            let value = MachineMention { machine, shown_by };
            push_mention(&mut self.machines, value, line, &short, |a, b| a == b);
        }
        if let Some(format) = assembler_format(text) {
            push_mention(&mut self.assembler_formats, format, line, &short, |a, b| {
                a == b
            });
        }
        self.scan_generator(text, line, &short);
        let whole = || text.trim().chars().take(2000).collect::<String>();
        if ["C1047", "C1900", "C1905"].iter().any(|c| text.contains(c)) {
            push_mention(&mut self.compiler_errors, whole(), line, &short, |_, _| {
                false
            });
        }
        if is_tool_error(text) {
            push_mention(&mut self.tool_errors, whole(), line, &short, |_, _| false);
        }
        if failures && shows_failure(text) {
            push_mention(
                &mut self.failure_lines,
                short.clone(),
                line,
                &short,
                |_, _| false,
            );
        }
        // The output file of a fatal summary (`x.exe : fatal error LNK1120: ...`, the Error
        // List's File column).
        if ["LNK1120", "LNK1169", "LNK1561"]
            .iter()
            .any(|c| text.contains(c))
        {
            let image = crate::problems::text::files(text).into_iter().find(|f| {
                let lower = f.to_ascii_lowercase();
                [".exe", ".dll", ".pyd", ".node", ".sys", ".ocx"]
                    .iter()
                    .any(|e| lower.ends_with(e))
            });
            if let Some(image) = image {
                push_mention(&mut self.outputs, image, line, &short, |a, b| a == b);
            }
        }
        for c in option_pattern().captures_iter(text) {
            let Some(value) = c.name("q").or_else(|| c.name("v")) else {
                continue;
            };
            let value = value.as_str().trim_end_matches(['"', '\'']).to_string();
            let list = if c["o"].eq_ignore_ascii_case("out") {
                &mut self.outputs
            } else {
                &mut self.library_dirs
            };
            push_mention(list, value, line, &short, |a, b| a == b);
        }
    }

    /// Notes a CMake Visual Studio generator and a platform directory the line shows.
    fn scan_generator(&mut self, text: &str, line: u64, short: &str) {
        if let Some(c) = generator_pattern().captures(text) {
            let generator = c["g"].to_string();
            push_mention(&mut self.generators, generator, line, short, |a, b| a == b);
        }
        if let Some(c) = platform_dir_pattern().captures(text) {
            let Some(machine) = machine_of_word(&c["m"]) else {
                return;
            };
            let value = MachineMention {
                machine,
                shown_by: c[0]
                    .trim_start_matches(['"', '\'', ' ', '\\', '/'])
                    .to_string(),
            };
            push_mention(&mut self.platform_dirs, value, line, short, |a, b| {
                a.machine == b.machine
            });
        }
    }

    /// The mentions of machine `machine`.
    pub fn machine_mentions(&self, machine: Machine) -> Vec<&Mention<MachineMention>> {
        self.machines
            .iter()
            .filter(|m| m.value.machine == machine)
            .collect()
    }
}

/// A line of rc.exe's, mt.exe's or cvtres.exe's own errors (`x.rc(2) : error RC2136 : ...`,
/// `mt.exe : general error c101008d: ...`, `CVTRES : fatal error CVT1100: ...`).
fn is_tool_error(text: &str) -> bool {
    text.split("error RC")
        .nth(1)
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
        || text.contains("general error c10")
        || text.contains("error CVT1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn context_of_a_log() {
        let log = "set TARGET_ARCH=x86\n\
                   \"C:\\Program Files\\Microsoft Visual Studio\\2019\\VC\\Tools\\MSVC\\14.29.30133\\bin\\Hostx64\\x86\\link.exe\" /OUT:\"C:\\b\\my app.dll\" /LIBPATH:C:\\Python310-32\\libs /machine:X86\n\
                   C:\\Python27\\python.exe gyp-win-tool link-with-manifests environment.x86 True node.dll\n\
                   Microsoft (R) Incremental Linker Version 14.32.31332.0\n\
                   cargo build --target i686-pc-windows-msvc\n";
        let c = LogContext::from_text(log);
        let machines: Vec<(Machine, u64)> = c
            .machines
            .iter()
            .map(|m| (m.value.machine, m.line))
            .collect();
        for line in [1, 2, 3, 5] {
            assert!(machines.contains(&(Machine::X86, line)), "{machines:?}");
        }
        assert!(machines.iter().all(|m| m.0 == Machine::X86), "{machines:?}");
        assert_eq!(c.outputs[0].value, "C:\\b\\my app.dll");
        assert_eq!(c.library_dirs[0].value, "C:\\Python310-32\\libs");
        let versions: Vec<&str> = c
            .toolsets
            .iter()
            .map(|t| t.value.version.as_str())
            .collect();
        assert_eq!(versions, ["14.29.30133", "14.32.31332.0"]);
        // The fast path reads the same.
        let read = LogContext::read(
            std::io::Cursor::new(log.as_bytes().to_vec()),
            1 << 20,
            None,
            true,
        )
        .unwrap();
        assert_eq!(read, c);
    }
}
