//! The failed link command as text (a log line, a `build.ninja` statement, `--link-command`) to
//! a [`LinkCommand`]: `cmd.exe /C "..."` unwrapped without running a shell, wrappers such as
//! `cmake -E vs_link_dll ... --` looked through, the program checked against the linkers and
//! compiler drivers lnkfix knows, and every response file read (docs/RULES.md §18).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::options::Blocked;
pub use super::options::Driver;
use super::{rsp, winargs};

/// The programs lnkfix re-runs, by name (lower case, without `.exe` or a version suffix such as
/// `-19`), and how each takes linker options.
pub const KNOWN_PROGRAMS: &[(&str, Driver)] = &[
    ("lld-link", Driver::Linker),
    ("link", Driver::Linker),
    ("clang-cl", Driver::Cl),
    ("cl", Driver::Cl),
    ("amdclang-cl", Driver::Cl),
    ("clang", Driver::Gnu),
    ("clang++", Driver::Gnu),
    ("amdclang", Driver::Gnu),
    ("amdclang++", Driver::Gnu),
    ("hipcc", Driver::Gnu),
];

/// The file name of a program path, whichever separator it uses.
pub fn file_name(program: &str) -> &str {
    program.rsplit(['\\', '/']).next().unwrap_or(program)
}

/// A program's name as [`KNOWN_PROGRAMS`] spells it: lower case, `.exe` (or `.bat`, `.cmd`) and a version suffix
/// (`lld-link-19`, `clang-cl-14.0`) removed.
pub fn program_name(program: &str) -> String {
    let mut name = file_name(program).to_ascii_lowercase();
    for extension in [".exe", ".bat", ".cmd"] {
        if let Some(stem) = name.strip_suffix(extension) {
            name = stem.to_string();
        }
    }
    if let Some((stem, version)) = name.rsplit_once('-') {
        if !version.is_empty()
            && version.starts_with(|c: char| c.is_ascii_digit())
            && version.chars().all(|c| c.is_ascii_digit() || c == '.')
        {
            name = stem.to_string();
        }
    }
    name
}

/// The 8.3 short form's stem of a long name, as Windows makes it: characters not allowed in a
/// short name become `_`, then the first six are kept (`clang++` gives `clang_`, as in
/// `CLANG_~1.EXE`).
fn short_stem(long: &str) -> String {
    long.chars()
        .filter(|c| *c != '.' && *c != ' ')
        .map(|c| if "+,;=[]".contains(c) { '_' } else { c })
        .take(6)
        .collect()
}

/// How `program` takes linker options, when it is a known linker or driver; 8.3 short names
/// (`C:\PROGRA~1\LLVM\bin\CLANG_~1.EXE`, as CMake writes them) are matched by their stem.
pub fn program_driver(program: &str) -> Option<Driver> {
    let name = program_name(program);
    if let Some((_, driver)) = KNOWN_PROGRAMS.iter().find(|(known, _)| *known == name) {
        return Some(*driver);
    }
    let (stem, tail) = name.split_once('~')?;
    if stem.is_empty() || tail.is_empty() || !tail.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let mut matches = KNOWN_PROGRAMS
        .iter()
        .filter(|(known, _)| known.len() > 8 || known.contains(['+', ',', ';', '=', '[', ']']))
        .filter(|(known, _)| short_stem(known) == stem);
    let (_, driver) = matches.next()?;
    // Ambiguous stems name no program.
    matches.next().is_none().then_some(*driver)
}

/// One argument of a command: a word, or a response file and the arguments it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Argument {
    /// A plain word.
    Word(String),
    /// `@file`: read, its words kept in place.
    Response(Box<ResponseArgument>),
}

/// A response file named in a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResponseArgument {
    /// The word as written (`@CMakeFiles\x.rsp`).
    pub written: String,
    /// The file, resolved against the command's directory (or as `build.ninja` names it).
    pub path: PathBuf,
    /// The encoding it was read in.
    pub encoding: rsp::Encoding,
    /// The words as read (to tell whether they were changed).
    pub original: Vec<String>,
    /// Its arguments, response files within read too.
    pub contents: Vec<Argument>,
    /// Generated from `build.ninja`'s `rspfile_content` (ninja writes the file only while it
    /// runs the command): always written out, never read from disk.
    pub generated: bool,
}

/// A link command, ready to be prepared and run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkCommand {
    /// The program as written.
    pub program: String,
    /// How it takes linker options ([`Driver::Linker`] for a `--link-command` program lnkfix
    /// does not know).
    pub driver: Driver,
    /// Its arguments.
    pub arguments: Vec<Argument>,
    /// The directory to run it in: where the build ran, with `cd` in a `cmd /C` applied.
    pub directory: PathBuf,
    /// What lnkfix did to get here (wrapper left out, response files read, ...), one sentence
    /// each.
    pub notes: Vec<String>,
}

impl LinkCommand {
    /// Every word, response files expanded in place.
    pub fn words(&self) -> Vec<&str> {
        fn walk<'a>(arguments: &'a [Argument], out: &mut Vec<&'a str>) {
            for argument in arguments {
                match argument {
                    Argument::Word(word) => out.push(word),
                    Argument::Response(response) => walk(&response.contents, out),
                }
            }
        }
        let mut out = Vec::new();
        walk(&self.arguments, &mut out);
        out
    }
}

/// Why a piece of text is not a link command lnkfix re-runs.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Rejected {
    /// No command at all.
    #[error("no command")]
    Empty,
    /// A linker's message (`LINK : fatal error LNK1104: ...`), not a command.
    #[error("`{line}` is a message of the linker, not a command")]
    Message {
        /// The line.
        line: String,
    },
    /// The program (and no program within it) is a known linker or driver.
    #[error("`{program}` is not a linker or compiler driver lnkfix re-runs ({known})")]
    UnknownProgram {
        /// The program as written.
        program: String,
        /// The known names.
        known: String,
    },
    /// A known program, but this run of it does not link.
    #[error("`{program}` does not link here: {reason}")]
    NotLinking {
        /// The program.
        program: String,
        /// Why (`-c`: compile only, `/lib`: the librarian, ...).
        reason: String,
    },
    /// A known program lnkfix will not run as written.
    #[error("`{program}` is not run: {reason}")]
    Refused {
        /// The program.
        program: String,
        /// Why.
        reason: String,
    },
    /// An option of the command would make the run start another program or write a copy of
    /// the link's inputs: the command is not run as the log gives it.
    #[error("`{program}` is not run: its option `{option}` {reason} (give the command without it with --link-command)")]
    Unsafe {
        /// The program.
        program: String,
        /// The option, as written.
        option: String,
        /// What it does.
        reason: &'static str,
    },
    /// A response file of the command cannot be read.
    #[error("response file {path}: {reason}")]
    ResponseFile {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

/// Response files that exist only as `build.ninja` text (`rspfile`/`rspfile_content`), by the
/// path `build.ninja` gives them.
pub type GeneratedFiles = HashMap<String, String>;

/// Where the program name of a command line ends (by the program-name rule).
fn program_end(text: &str) -> usize {
    let mut in_quotes = false;
    for (at, c) in text.char_indices() {
        if c == '"' {
            in_quotes = !in_quotes;
        } else if !in_quotes && (c == ' ' || c == '\t') {
            return at;
        }
    }
    text.len()
}

/// The payload of `cmd.exe [switches] /C PAYLOAD` as cmd reads it (outer quotes removed); `None`
/// for any other command.
fn cmd_payload(text: &str, directory: &Path) -> Option<String> {
    let text = text.trim_start();
    let end = program_end(text);
    let program = text[..end].replace('"', "");
    if program_name(&program) != "cmd" {
        return None;
    }
    // The switches before /C (or /K): /S /Q /D /E:ON /V:OFF ...
    let mut rest = &text[end..];
    let mut strip_always = false;
    loop {
        rest = rest.trim_start();
        let token_end = rest.find([' ', '\t', '"']).unwrap_or(rest.len());
        let token = &rest[..token_end];
        if !token.starts_with('/') {
            return None;
        }
        rest = &rest[token_end..];
        strip_always |= token.eq_ignore_ascii_case("/s");
        if token.eq_ignore_ascii_case("/c") || token.eq_ignore_ascii_case("/k") {
            break;
        }
    }
    let payload = rest.trim();
    // cmd keeps the quotes only when, without /S, there are exactly two, nothing special
    // (`&<>()@^|`) and some whitespace between them, and they enclose the name of a program.
    let keeps_quotes = || {
        let inner = payload[1..].split('"').next().unwrap_or("");
        payload.matches('"').count() == 2
            && !inner.contains(['&', '<', '>', '(', ')', '@', '^', '|'])
            && inner.contains([' ', '\t'])
            && directory
                .join(crate::index::discover::native_path(inner))
                .is_file()
    };
    if payload.starts_with('"') && (strip_always || !keeps_quotes()) {
        let inner = &payload[1..];
        return Some(match inner.rfind('"') {
            Some(last) => format!("{}{}", &inner[..last], &inner[last + 1..]),
            None => inner.to_string(),
        });
    }
    Some(payload.to_string())
}

/// Splits a cmd payload at `&&`, `||`, `&` and `|` outside quotes, removing `^` escapes.
fn cmd_segments(payload: &str) -> Vec<String> {
    let mut segments = Vec::new();
    let mut current = String::new();
    let mut in_quotes = false;
    let mut chars = payload.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                in_quotes = !in_quotes;
                current.push(c);
            }
            '^' if !in_quotes => {
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            '&' | '|' if !in_quotes => {
                if chars.peek() == Some(&c) {
                    chars.next();
                }
                segments.push(std::mem::take(&mut current));
            }
            _ => current.push(c),
        }
    }
    segments.push(current);
    segments
        .into_iter()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .collect()
}

/// The directory of a `cd DIR`, `cd /d DIR` or `chdir DIR` segment.
fn cd_target(segment: &str) -> Option<String> {
    let lower = segment.to_ascii_lowercase();
    let rest = lower
        .strip_prefix("cd")
        .or_else(|| lower.strip_prefix("chdir"))?;
    if !rest.is_empty() && !rest.starts_with([' ', '\t', '/', '\\', '.']) {
        return None;
    }
    let mut target = segment[segment.len() - rest.len()..].trim();
    if target.len() >= 2 && target[..2].eq_ignore_ascii_case("/d") {
        target = target[2..].trim();
    }
    Some(target.trim_matches('"').to_string())
}

/// The linker or driver inside `words`: the program itself, or (for a wrapper such as
/// `cmake -E vs_link_dll ... -- lld-link ...` or `gyp-win-tool link-wrapper ... link.exe ...`)
/// the first word that names one, and everything after it. A word holding a whole command
/// line is looked into too.
fn find_program(words: &[String], depth: usize) -> Option<(Vec<String>, Option<String>)> {
    let first = words.first()?;
    if program_driver(first).is_some() {
        return Some((words.to_vec(), None));
    }
    for (index, word) in words.iter().enumerate().skip(1) {
        if program_driver(word).is_some() {
            return Some((words[index..].to_vec(), Some(first.clone())));
        }
        if depth < 3 && word.contains([' ', '\t']) {
            let inner = winargs::split_command_line(word);
            if let Some((found, _)) = find_program(&inner, depth + 1) {
                return Some((found, Some(first.clone())));
            }
        }
    }
    None
}

/// Splits a command line by the Windows rules, with one repair: a program path with spaces that
/// is not quoted, as MSBuild echoes its tools (`C:\Program Files (x86)\...\link.exe /OUT:...`),
/// is taken whole when it ends in a known program's `.exe`.
pub fn split_command(text: &str) -> Vec<String> {
    let words = winargs::split_command_line(text);
    let first_is_known = words.first().is_some_and(|p| program_driver(p).is_some());
    if first_is_known || text.trim_start().starts_with('"') {
        return words;
    }
    let lower = text.to_ascii_lowercase();
    for (at, _) in lower.match_indices(".exe") {
        let end = at + ".exe".len();
        if !(end == text.len() || text[end..].starts_with([' ', '\t'])) {
            continue;
        }
        let program = text[..end].trim_start();
        // One path: absolute, no quote, no option and no other program inside it.
        let one_path = crate::fix::verify::trust::is_windows_absolute(program)
            && !program.contains(['"', '\t'])
            && !program.contains(" -")
            && !program.contains(" /")
            && !lower[..at].contains(".exe ");
        if one_path && program.contains(' ') && program_driver(program).is_some() {
            let mut out = vec![program.to_string()];
            out.extend(winargs::split_arguments(&text[end..]));
            return out;
        }
    }
    words
}

/// Options whose value names a file the link writes (it need not exist yet; its directory does).
const OUTPUT_OPTIONS: &[&str] = &[
    "out",
    "implib",
    "pdb",
    "ilk",
    "map",
    "pgd",
    "manifestfile",
    "idlout",
    "tlbout",
    "winmdfile",
    "pdbstripped",
];

/// Puts back together the paths that an echo without quotes took apart at their spaces (CMake's
/// `LINK: command "..."` prints `/out:C:\My Project\x.dll` as it is). Words are joined only when
/// the disk decides: the words after the first are neither options nor files of their own, and
/// the joined path exists (an input, a `/LIBPATH:` directory) or, for an option naming an output,
/// its directory does (and holds the space). The longest such join wins, so `C:\Program Files
/// (x86)\...` is not cut at the shorter `C:\Program Files` that also exists.
fn rejoin_split_paths(
    words: Vec<String>,
    directory: &Path,
    notes: &mut Vec<String>,
) -> Vec<String> {
    let full = |value: &str| directory.join(crate::index::discover::native_path(value));
    let exists = |value: &str| !value.is_empty() && full(value).exists();
    let mut out = Vec::with_capacity(words.len());
    let mut i = 0;
    while i < words.len() {
        let word = &words[i];
        let (value_at, output) = option_value(word);
        let value = &word[value_at..];
        let mut best = None;
        if !value.is_empty() && !value.starts_with('@') && !exists(value) {
            let mut candidate = value.to_string();
            for (j, next) in words.iter().enumerate().take(i + 8).skip(i + 1) {
                if is_option(next) || next.starts_with('@') || exists(next) {
                    break;
                }
                candidate.push(' ');
                candidate.push_str(next);
                let fits = exists(&candidate)
                    || (output
                        && candidate.rfind(['/', '\\']).is_some_and(|slash| {
                            slash > value.len() && exists(&candidate[..slash])
                        }));
                if fits {
                    best = Some((j, candidate.clone()));
                }
            }
        }
        match best {
            Some((last, value)) => {
                notes.push(format!(
                    "joined `{value}`, which the log's command shows unquoted, at its spaces"
                ));
                out.push(format!("{}{value}", &word[..value_at]));
                i = last + 1;
            }
            None => {
                out.push(word.clone());
                i += 1;
            }
        }
    }
    out
}

/// Where the value of `word` starts (after `/name:` for an option with a value, 0 for a plain
/// word; `word.len()` for an option without one), and whether the option names an output.
fn option_value(word: &str) -> (usize, bool) {
    if !is_option(word) {
        return (0, false);
    }
    match word.find(':') {
        Some(colon) => {
            let name = word[1..colon].to_ascii_lowercase();
            (colon + 1, OUTPUT_OPTIONS.contains(&name.as_str()))
        }
        None => (word.len(), false),
    }
}

/// Whether `text` is a command that is, or holds, a known linker or driver (inside `cmd /C` or a
/// wrapper too).
pub fn names_a_program(text: &str) -> bool {
    let segments = match cmd_payload(text, Path::new(".")) {
        Some(payload) => cmd_segments(&payload),
        None => vec![text.to_string()],
    };
    segments
        .iter()
        .any(|s| find_program(&split_command(s), 0).is_some())
}

/// A word that starts an option (`/x`, `-x`), not a path such as `/home/a.obj`.
pub(crate) fn is_option(word: &str) -> bool {
    let Some(rest) = word.strip_prefix(['/', '-']) else {
        return false;
    };
    let name_end = rest.find([':', '=']).unwrap_or(rest.len());
    !rest[..name_end].contains(['/', '\\'])
}

const SOURCE_EXTENSIONS: &[&str] = &[
    ".c", ".cc", ".cpp", ".cxx", ".c++", ".cu", ".hip", ".ixx", ".cppm",
];

fn is_source(word: &str) -> bool {
    let lower = word.to_ascii_lowercase();
    !is_option(word) && SOURCE_EXTENSIONS.iter().any(|e| lower.ends_with(e))
}

/// Whether the words link, for `driver` (`program`): `Err` with the reason when they only compile,
/// build a library, or compile sources into the build directory as well.
fn check_links(driver: Driver, program: &str, words: &[&str]) -> Result<(), String> {
    match driver {
        Driver::Linker => {
            if let Some(first) = words.first().map(|w| w.to_ascii_lowercase()) {
                for (mode, what) in [
                    ("lib", "the librarian"),
                    ("dump", "dumpbin"),
                    ("edit", "editbin"),
                ] {
                    if first.strip_prefix(['/', '-']) == Some(mode) {
                        return Err(format!("/{mode} runs {what}"));
                    }
                }
            }
        }
        Driver::Cl => {
            let before_link = words.iter().take_while(|w| {
                !w.eq_ignore_ascii_case("/link") && !w.eq_ignore_ascii_case("-link")
            });
            for word in before_link {
                let option = word.strip_prefix(['/', '-']);
                if matches!(option, Some("c" | "E" | "EP" | "P" | "Zs")) {
                    return Err(format!("{word}: compile only"));
                }
                // cl.exe writes the objects of the sources it compiles into the working directory;
                // clang-cl, like clang, keeps them in temporary files.
                if is_source(word) && program_name(program) == "cl" {
                    return Err(format!(
                        "{word}: cl compiles sources too, and writes their objects into the build"
                    ));
                }
            }
        }
        Driver::Gnu => {
            for word in words {
                if matches!(
                    *word,
                    "-c" | "-S" | "-E" | "-M" | "-MM" | "-fsyntax-only" | "--precompile"
                ) {
                    return Err(format!("{word}: compile only"));
                }
                if word.starts_with("-save-temps") {
                    return Err(format!(
                        "{word}: it writes its intermediate files into the build"
                    ));
                }
            }
        }
    }
    Ok(())
}

/// What the response files of one command may still add: a nested file may name the same files
/// many times over, so the bound is on the whole expansion, not only its depth.
struct Budget {
    files: usize,
    words: usize,
    bytes: usize,
    /// The bounds the budget started from (for the messages, and each file's read).
    bounds: super::Bounds,
}

impl Budget {
    fn new(bounds: super::Bounds) -> Budget {
        Budget {
            files: rsp::MAX_FILES,
            words: rsp::MAX_WORDS,
            bytes: usize::try_from(bounds.expanded_bytes).unwrap_or(usize::MAX),
            bounds,
        }
    }

    /// Takes one file of `words` words and `bytes` bytes of text; `Err` names the bound it passes.
    fn take(&mut self, words: usize, bytes: usize) -> Result<(), String> {
        self.bytes = self.bytes.checked_sub(bytes).ok_or_else(|| {
            format!(
                "the command's response files hold more than {} bytes in all (--verify-max-expansion)",
                self.bounds.expanded_bytes
            )
        })?;
        self.files = self.files.checked_sub(1).ok_or_else(|| {
            format!(
                "the command's response files name more than {} response files in all",
                rsp::MAX_FILES
            )
        })?;
        self.words = self.words.checked_sub(words).ok_or_else(|| {
            format!(
                "the command's response files hold more than {} arguments in all",
                rsp::MAX_WORDS
            )
        })?;
        Ok(())
    }
}

/// Reads the response files among `words` (relative to `directory`), to `depth` levels.
fn expand(
    words: Vec<String>,
    directory: &Path,
    generated: &GeneratedFiles,
    depth: usize,
    notes: &mut Vec<String>,
    budget: &mut Budget,
) -> Result<Vec<Argument>, Rejected> {
    let mut out = Vec::with_capacity(words.len());
    for word in words {
        let Some(name) = word.strip_prefix('@').filter(|n| !n.is_empty()) else {
            out.push(Argument::Word(word));
            continue;
        };
        if depth >= 8 {
            return Err(Rejected::ResponseFile {
                path: name.to_string(),
                reason: "response files nested more than 8 deep".into(),
            });
        }
        let (path, words, encoding, is_generated, bytes) = match lookup_generated(generated, name) {
            Some(text) => (
                PathBuf::from(name),
                winargs::split_arguments(text),
                rsp::Encoding::Utf8,
                true,
                text.len(),
            ),
            None => {
                let path = directory.join(crate::index::discover::native_path(name));
                let (words, decoded) =
                    rsp::read(&path, budget.bounds.read_bytes).map_err(|reason| {
                        Rejected::ResponseFile {
                            path: path.display().to_string(),
                            reason,
                        }
                    })?;
                if decoded.replaced {
                    notes.push(format!(
                        "response file {} is not valid UTF-8 or UTF-16: invalid bytes were replaced",
                        path.display()
                    ));
                }
                (path, words, decoded.encoding, false, decoded.text.len())
            }
        };
        budget
            .take(words.len(), bytes)
            .map_err(|reason| Rejected::ResponseFile {
                path: path.display().to_string(),
                reason,
            })?;
        let contents = expand(
            words.clone(),
            directory,
            generated,
            depth + 1,
            notes,
            budget,
        )?;
        out.push(Argument::Response(Box::new(ResponseArgument {
            written: word,
            path,
            encoding,
            original: words,
            contents,
            generated: is_generated,
        })));
    }
    Ok(out)
}

fn lookup_generated<'a>(generated: &'a GeneratedFiles, name: &str) -> Option<&'a String> {
    let normal = |s: &str| s.replace('\\', "/").trim_start_matches("./").to_string();
    generated
        .iter()
        .find(|(path, _)| normal(path) == normal(name))
        .map(|(_, text)| text)
}

/// A command's arguments, its response files read within one [`Budget`].
fn read_arguments(
    words: Vec<String>,
    context: &ParseContext<'_>,
    directory: &Path,
    notes: &mut Vec<String>,
) -> Result<Vec<Argument>, Rejected> {
    let mut budget = Budget::new(context.bounds);
    expand(words, directory, context.generated, 0, notes, &mut budget)
}

/// What [`parse`] needs besides the text.
pub struct ParseContext<'a> {
    /// The directory the build ran the command in.
    pub directory: &'a Path,
    /// Response files `build.ninja` generates.
    pub generated: &'a GeneratedFiles,
    /// Run any program (the user gave the command with `--link-command`), not only known ones.
    pub any_program: bool,
    /// What may be read of its response files.
    pub bounds: super::Bounds,
}

/// Reads one command line (possibly `cmd.exe /C "cd X && ..."`) into a link command.
pub fn parse(text: &str, context: &ParseContext<'_>) -> Result<LinkCommand, Rejected> {
    let mut notes = Vec::new();
    let mut directory = context.directory.to_path_buf();
    let segments = match cmd_payload(text, context.directory) {
        Some(payload) => {
            notes.push("read the command inside `cmd.exe /C` without running cmd.exe".into());
            cmd_segments(&payload)
        }
        None => vec![text.trim().to_string()],
    };
    let mut first_rejection = None;
    let mut chosen = None;
    let mut quoted = false;
    for segment in &segments {
        if let Some(target) = cd_target(segment) {
            directory = directory.join(crate::index::discover::native_path(&target));
            continue;
        }
        let words = split_command(segment);
        if words.is_empty() {
            continue;
        }
        if words.get(1).is_some_and(|w| w == ":") {
            first_rejection.get_or_insert(Rejected::Message {
                line: segment.chars().take(80).collect(),
            });
            continue;
        }
        quoted = segment.contains('"');
        match find_program(&words, 0) {
            Some(found) => {
                chosen = Some(found);
                break;
            }
            None if context.any_program => {
                chosen = Some((words, None));
                break;
            }
            None => {
                first_rejection.get_or_insert(Rejected::UnknownProgram {
                    program: words[0].clone(),
                    known: KNOWN_PROGRAMS
                        .iter()
                        .map(|(name, _)| *name)
                        .collect::<Vec<_>>()
                        .join(", "),
                });
            }
        }
    }
    let Some((mut words, wrapper)) = chosen else {
        return Err(first_rejection.unwrap_or(Rejected::Empty));
    };
    let program = words.remove(0);
    if let Some(wrapper) = wrapper {
        notes.push(format!(
            "ran {} directly, without the wrapper `{}` around it",
            file_name(&program),
            file_name(&wrapper)
        ));
    }
    refuse(&program)?;
    let driver = program_driver(&program).unwrap_or(Driver::Linker);
    if !quoted {
        words = rejoin_split_paths(words, &directory, &mut notes);
    }
    let arguments = read_arguments(words, context, &directory, &mut notes)?;
    let command = LinkCommand {
        program,
        driver,
        arguments,
        directory,
        notes,
    };
    checked(command, context.any_program)
}

/// `command` when it links and passes no option the run refuses (the user's own command,
/// `from_user`, may start what it names; it must still link).
fn checked(command: LinkCommand, from_user: bool) -> Result<LinkCommand, Rejected> {
    let driver = command.driver;
    check_links(driver, &command.program, &command.words()).map_err(|reason| {
        Rejected::NotLinking {
            program: command.program.clone(),
            reason,
        }
    })?;
    match super::options::check(driver, &command.words()) {
        Err(Blocked::Runs { .. }) if from_user => Ok(command),
        Err(blocked) => Err(rejected(blocked, &command.program)),
        Ok(()) => Ok(command),
    }
}

/// The rejection of `program`'s command for the option it passes.
fn rejected(blocked: Blocked, program: &str) -> Rejected {
    match blocked {
        Blocked::Runs { option, reason } => Rejected::Unsafe {
            program: program.to_string(),
            option,
            reason,
        },
        Blocked::NotLinking { option, reason } => Rejected::NotLinking {
            program: program.to_string(),
            reason: format!("{option} {reason}, so a success would prove nothing"),
        },
    }
}

/// Programs never run even when named: batch files (they run through cmd.exe, a shell), and a
/// bare `link` outside Windows (there it is coreutils' `link`, which makes hard links).
fn refuse(program: &str) -> Result<(), Rejected> {
    let lower = file_name(program).to_ascii_lowercase();
    if lower.ends_with(".bat") || lower.ends_with(".cmd") {
        return Err(Rejected::Refused {
            program: program.to_string(),
            reason: "a batch file runs through cmd.exe, a shell".into(),
        });
    }
    if !cfg!(windows) && lower == "link" {
        return Err(Rejected::Refused {
            program: program.to_string(),
            reason: "outside Windows `link` is not the MSVC linker (it makes hard links); name link.exe by its path".into(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn context(dir: &Path) -> ParseContext<'_> {
        static EMPTY: std::sync::OnceLock<GeneratedFiles> = std::sync::OnceLock::new();
        ParseContext {
            directory: dir,
            generated: EMPTY.get_or_init(GeneratedFiles::new),
            any_program: false,
            bounds: crate::fix::verify::Bounds::default(),
        }
    }

    #[test]
    fn paths_an_unquoted_echo_split_at_spaces_are_joined_by_what_exists() {
        let root = std::env::temp_dir().join(format!("lnkfix-rejoin-{}", std::process::id()));
        let project = root.join("My Project");
        let libs = root.join("Program Files (x86)").join("Lib");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&libs).unwrap();
        // `Program Files` also exists: the longest join that exists wins over the shorter one.
        std::fs::create_dir_all(root.join("Program Files")).unwrap();
        std::fs::write(project.join("a.obj"), b"").unwrap();
        std::fs::write(root.join("b.obj"), b"").unwrap();
        let r = root.display().to_string();
        let text = format!(
            "lld-link /nologo /out:{r}/My Project/t.dll {r}/My Project/a.obj {r}/b.obj \
             /LIBPATH:{r}/Program Files (x86)/Lib kernel32.lib /pdb:{r}/nowhere at all/t.pdb"
        );
        let command = parse(&text, &context(&root)).unwrap();
        assert_eq!(
            command.words(),
            [
                "/nologo".to_string(),
                format!("/out:{r}/My Project/t.dll"),
                format!("{r}/My Project/a.obj"),
                format!("{r}/b.obj"),
                format!("/LIBPATH:{r}/Program Files (x86)/Lib"),
                "kernel32.lib".to_string(),
                // No directory of that name: left as the log has it.
                format!("/pdb:{r}/nowhere"),
                "at".to_string(),
                "all/t.pdb".to_string(),
            ]
        );
        assert!(command.notes.iter().any(|n| n.contains("unquoted")));
        // A quoted command is taken as quoted: nothing is joined.
        let quoted = format!("lld-link \"/out:{r}/x.dll\" {r}/My Project/a.obj");
        let command = parse(&quoted, &context(&root)).unwrap();
        assert_eq!(command.words().len(), 3);
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn program_names() {
        let table = [
            ("lld-link", Some(Driver::Linker)),
            ("/usr/bin/lld-link-19", Some(Driver::Linker)),
            (
                r"C:\Program Files\LLVM\bin\LLD-LINK.EXE",
                Some(Driver::Linker),
            ),
            (
                r"C:\VS\VC\Tools\MSVC\14.44.35207\bin\Hostx64\x64/link.exe",
                Some(Driver::Linker),
            ),
            ("clang-cl-19", Some(Driver::Cl)),
            ("cl", Some(Driver::Cl)),
            ("clang++-14", Some(Driver::Gnu)),
            ("hipcc.exe", Some(Driver::Gnu)),
            (r"C:\PROGRA~1\LLVM\bin\CLANG_~1.EXE", Some(Driver::Gnu)),
            // Names that fit 8.3 (`lld-link`, `clang-cl`) get no short form; ambiguous stems
            // (`amdcla`: amdclang, amdclang++, amdclang-cl) name nothing.
            (r"C:\PROGRA~1\LLVM\bin\LLD-LI~1.EXE", None),
            (r"C:\ROCm\bin\AMDCLA~1.EXE", None),
            ("ld.lld", None),
            ("cmake.exe", None),
            ("python.exe", None),
            ("linker", None),
            ("clang-tidy", None),
            ("X~1.EXE", None),
        ];
        let mut failures = Vec::new();
        for (program, want) in table {
            if program_driver(program) != want {
                failures.push(format!("{program}: {:?}", program_driver(program)));
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn cmd_wrappers_as_cmake_and_ninja_write_them() {
        let dir = Path::new("build");
        // CMake's Ninja generator on Windows, with vs_link_dll around the linker.
        let text = r#"C:\WINDOWS\system32\cmd.exe /C "cd . && C:\Python313\Lib\site-packages\cmake\data\bin\cmake.exe -E vs_link_dll --msvc-ver=1944 --intdir=caffe2\CMakeFiles\torch_hip.dir --rc=C:\PROGRA~2\WI3CF2~1\10\bin\100261~1.0\x64\rc.exe --mt=C:\PROGRA~2\WI3CF2~1\10\bin\100261~1.0\x64\mt.exe --manifests  -- C:\rocm\lib\llvm\bin\lld-link.exe /nologo /out:bin\torch_hip.dll /implib:lib\torch_hip.lib /dll && cd .""#;
        let command = parse(text, &context(dir)).unwrap();
        assert_eq!(command.program, r"C:\rocm\lib\llvm\bin\lld-link.exe");
        assert_eq!(command.driver, Driver::Linker);
        assert_eq!(
            command.words(),
            [
                "/nologo",
                r"/out:bin\torch_hip.dll",
                r"/implib:lib\torch_hip.lib",
                "/dll"
            ]
        );
        assert_eq!(command.directory, dir.join("."));
        assert!(
            command.notes.iter().any(|n| n.contains("cmake.exe")),
            "{:?}",
            command.notes
        );

        // clang++ by its short name, with quoted arguments and a `cd` first.
        let text = r#"cmd.exe /C "cd /d "out dir" && C:\PROGRA~1\LLVM\bin\CLANG_~1.EXE -fuse-ld=lld-link -shared -o bin\x.dll "obj dir\a.obj" -Xlinker /implib:lib\x.lib""#;
        let command = parse(text, &context(dir)).unwrap();
        assert_eq!(command.driver, Driver::Gnu);
        assert_eq!(command.directory, dir.join("out dir"));
        assert_eq!(
            command.words(),
            [
                "-fuse-ld=lld-link",
                "-shared",
                "-o",
                r"bin\x.dll",
                r"obj dir\a.obj",
                "-Xlinker",
                r"/implib:lib\x.lib"
            ]
        );
        // A caret escapes in cmd.
        assert_eq!(cmd_segments("a ^& b && c"), ["a & b", "c"]);
        // cmd keeps the quotes of one quoted program that exists; /S, or anything special,
        // removes the outer pair.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("my linker.exe"), "").unwrap();
        assert_eq!(
            cmd_payload(r#"cmd /c "my linker.exe""#, dir.path()).unwrap(),
            r#""my linker.exe""#
        );
        assert_eq!(
            cmd_payload(r#"cmd /s /c "my linker.exe""#, dir.path()).unwrap(),
            "my linker.exe"
        );
        assert_eq!(
            cmd_payload(r#"cmd /c "lld-link "a b.obj" /out:x.dll""#, dir.path()).unwrap(),
            r#"lld-link "a b.obj" /out:x.dll"#
        );
        assert_eq!(
            cmd_payload("cmd.exe /d /c lld-link a.obj", dir.path()).unwrap(),
            "lld-link a.obj"
        );
        assert!(cmd_payload("cmake -E echo", dir.path()).is_none());
        assert!(cmd_payload("cmd.exe /q", dir.path()).is_none());
    }

    #[test]
    fn unquoted_program_paths_as_msbuild_echoes_them() {
        let text = r#"D:\Program Files (x86)\Microsoft Visual Studio 12.0\VC\bin\link.exe /ERRORREPORT:QUEUE /OUT:"..\..\build\LibVs.dll" /NOLOGO"#;
        let words = split_command(text);
        assert_eq!(
            words,
            [
                r"D:\Program Files (x86)\Microsoft Visual Studio 12.0\VC\bin\link.exe",
                "/ERRORREPORT:QUEUE",
                r"/OUT:..\..\build\LibVs.dll",
                "/NOLOGO"
            ]
        );
        // Quoted, or no known program: the plain rules.
        assert_eq!(
            split_command(r#""C:\a b\link.exe" x"#),
            [r"C:\a b\link.exe", "x"]
        );
        assert_eq!(
            split_command(r"C:\a b\tool.exe x"),
            [r"C:\a", r"b\tool.exe", "x"]
        );
    }

    #[test]
    fn wrappers_holding_the_command_in_one_argument() {
        // gyp-win-tool: the link command is one quoted argument of the wrapper.
        let text = r#"python.exe gyp-win-tool link-with-manifests environment.x64 True electron.exe "python.exe gyp-win-tool link-wrapper environment.x64 False link.exe /nologo /OUT:electron.exe /DLL" 1 mt.exe rc.exe"#;
        let command = parse(text, &context(Path::new("."))).unwrap();
        assert_eq!(command.program, "link.exe");
        assert_eq!(command.words(), ["/nologo", "/OUT:electron.exe", "/DLL"]);
    }

    #[test]
    fn what_is_not_rerun() {
        let dir = Path::new(".");
        let rejected = |text: &str| parse(text, &context(dir)).unwrap_err();
        assert!(matches!(
            rejected("ninja -v"),
            Rejected::UnknownProgram { .. }
        ));
        assert!(matches!(
            rejected("clang-cl /c a.cpp /Foa.obj"),
            Rejected::NotLinking { .. }
        ));
        assert!(matches!(
            rejected("clang++ -c a.cpp -o a.o"),
            Rejected::NotLinking { .. }
        ));
        assert!(matches!(
            rejected("cl a.cpp /link /out:a.exe"),
            Rejected::NotLinking { .. }
        ));
        assert!(matches!(
            rejected("lld-link /lib /out:x.lib a.obj"),
            Rejected::NotLinking { .. }
        ));
        assert!(matches!(
            rejected("hipcc.bat a.obj -o a.dll"),
            Rejected::Refused { .. }
        ));
        assert!(matches!(rejected(""), Rejected::Empty));
        assert!(matches!(
            rejected("LINK : fatal error LNK1104: cannot open file 'x.lib'"),
            Rejected::Message { .. }
        ));
        if !cfg!(windows) {
            assert!(matches!(
                rejected("link a.obj /out:a.exe"),
                Rejected::Refused { .. }
            ));
        }
        // Capital -S, -E, -M are compile-only drivers options; -shared and -static link.
        assert!(parse("clang -shared a.obj -o a.dll", &context(dir)).is_ok());
        assert!(matches!(
            rejected("clang -E a.c"),
            Rejected::NotLinking { .. }
        ));
        // --link-command runs any program, still without a shell.
        let any = ParseContext {
            any_program: true,
            ..context(dir)
        };
        let command = parse(r#"cmd /c "my-linker.exe a.obj""#, &any).unwrap();
        assert_eq!(command.program, "my-linker.exe");
        // A log's command that would start another program is refused; the user's own may.
        let text = "clang -fuse-ld=/opt/ld/lld-link -shared -o x.dll a.obj";
        assert!(matches!(rejected(text), Rejected::Unsafe { .. }));
        assert!(parse(text, &any).is_ok());
        // A command that does not link is refused either way.
        let text = "lld-link /out:x.dll a.obj /force:unresolved";
        assert!(matches!(rejected(text), Rejected::NotLinking { .. }));
        assert!(matches!(
            parse(text, &any).unwrap_err(),
            Rejected::NotLinking { .. }
        ));
    }

    #[test]
    fn response_files_are_read() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("CMakeFiles")).unwrap();
        std::fs::write(
            dir.path().join("CMakeFiles/x.rsp"),
            "\"obj dir\\a.obj\" b.obj\r\n@inner.rsp\r\n",
        )
        .unwrap();
        // The nested file is UTF-16LE with a BOM.
        let inner: Vec<u8> = std::iter::once(0xfeffu16)
            .chain("kernel32.lib /LIBPATH:\"C:\\Program Files\\x\"".encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect();
        std::fs::write(dir.path().join("inner.rsp"), inner).unwrap();
        let command = parse(
            "lld-link /nologo @CMakeFiles/x.rsp /out:x.dll",
            &context(dir.path()),
        )
        .unwrap();
        assert_eq!(
            command.words(),
            [
                "/nologo",
                r"obj dir\a.obj",
                "b.obj",
                "kernel32.lib",
                r"/LIBPATH:C:\Program Files\x",
                "/out:x.dll"
            ]
        );
        let missing = parse("lld-link @gone.rsp", &context(dir.path())).unwrap_err();
        assert!(
            matches!(&missing, Rejected::ResponseFile { path, .. } if path.ends_with("gone.rsp")),
            "{missing}"
        );
        // build.ninja's generated response files are never read from disk.
        let mut generated = GeneratedFiles::new();
        generated.insert("CMakeFiles\\y.rsp".into(), "c.obj d.obj".into());
        let ninja = ParseContext {
            generated: &generated,
            ..context(dir.path())
        };
        let command = parse("lld-link @CMakeFiles/y.rsp", &ninja).unwrap();
        assert_eq!(command.words(), ["c.obj", "d.obj"]);
    }
}
