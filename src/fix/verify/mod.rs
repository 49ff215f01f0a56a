//! Verification: the failed link run again with the diagnosis's `link_flags` appended, to prove
//! the fix before the build is relaunched (`diagnose --verify`, `patch --verify`).
//!
//! The stage takes a finished diagnosis and returns a [`Verification`]:
//!
//! 1. find the failed link command ([`logscan`], [`command`]): `--link-command`, else the log
//!    (ninja's `FAILED:` block, CMake's `LINK: command`, an echoed linker or driver line), else
//!    the `build.ninja` of `--build-dir` ([`ninja`]);
//! 2. prepare it ([`redirect`]): every output into a scratch directory, the flags appended where
//!    the program takes linker options, changed response files rewritten ([`rsp`]);
//! 3. run it ([`run`]): no shell, only a known linker or driver unless the user named the command,
//!    in the build's directory, with a time limit that ends the whole process tree;
//! 4. when it still fails, diagnose its output with the same options and, while that adds flags,
//!    run again, up to the round limit.
//!
//! The rules it follows (Windows quoting, response files, which outputs, the allow-list) are
//! stated in docs/RULES.md §18.

pub mod choose;
pub mod command;
pub mod logscan;
pub mod ninja;
pub mod options;
pub mod reap;
pub mod redirect;
pub mod rsp;
pub mod run;
pub mod trust;
pub mod winargs;

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::output::report::Style;
use crate::resolve::Diagnosis;

use command::{GeneratedFiles, LinkCommand, ParseContext, Rejected};
use redirect::{Redirect, WrittenResponseFile};

/// How much `--verify` reads of the files a link command needs, since a log (and so the response
/// files and `build.ninja` it names) is untrusted input: past either bound the run is refused with
/// an error that names the option that raises it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounds {
    /// `--verify-max-bytes`: the most bytes read of one response file, and of `build.ninja` with
    /// every file it includes.
    pub read_bytes: u64,
    /// `--verify-max-expansion`: the most bytes one command's response files hold in all, and
    /// that `build.ninja`'s variables evaluate to.
    pub expanded_bytes: u64,
}

impl Default for Bounds {
    fn default() -> Self {
        Bounds {
            read_bytes: 256 << 20,
            expanded_bytes: 256 << 20,
        }
    }
}

/// How to verify.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerifyOptions {
    /// What the run reads of the files a command needs.
    pub bounds: Bounds,
    /// The command to run, as given (`--link-command`): any program, still without a shell.
    pub link_command: Option<String>,
    /// The build directory (`--build-dir`): where the command runs, and whose `build.ninja`
    /// holds the command when the log does not.
    pub build_dir: Option<PathBuf>,
    /// At most this many runs (`--verify-rounds`).
    pub rounds: u32,
    /// The time limit of each run (`--verify-timeout`).
    pub timeout: Duration,
    /// Linkers the user allows to run from the log's or the build's directories
    /// (`--allow-linker`).
    pub allow_linker: Vec<PathBuf>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            bounds: Bounds::default(),
            link_command: None,
            build_dir: None,
            rounds: 2,
            timeout: Duration::from_secs(120),
            allow_linker: Vec::new(),
        }
    }
}

/// What is verified: the flags, and where the failed command may be found.
#[derive(Debug, Clone)]
pub struct Subject<'a> {
    /// The log file to look for the command in (`None`: no log file, e.g. a saved diagnosis
    /// whose log is gone).
    pub log: Option<&'a Path>,
    /// The log's name as the report shows it.
    pub log_name: &'a str,
    /// The log's first unresolved symbol or error: the command nearest before it is the one.
    pub first_error_line: Option<u64>,
    /// The flags to append (the diagnosis's `link_flags`).
    pub flags: Vec<String>,
    /// Longest log line read.
    pub max_line_bytes: usize,
}

/// Something the last run's output shows is still wrong.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Remaining {
    /// `unresolved-symbol`, `error` (a linker error other than an unresolved symbol),
    /// `time-limit`, or `output` (the last line of an output lnkfix could not read otherwise).
    pub kind: &'static str,
    /// The symbol (demangled), the error's text, or the line.
    pub text: String,
    /// For a symbol: the library the diagnosis of that output names, when it names one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub library: Option<String>,
}

/// One run of the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Round {
    /// 1-based.
    pub round: u32,
    /// The flags this round added to the previous one's.
    pub added: Vec<String>,
    /// The exit code (`null`: killed at the time limit, or ended by a signal).
    pub exit_code: Option<i32>,
    /// Whether it reached the time limit.
    pub timed_out: bool,
}

/// The outcome: the `verify` object of the diagnose document (docs/GUIDE.md).
#[derive(Debug, Clone, Serialize)]
pub struct Verification {
    /// Whether the link succeeded with the flags.
    pub ok: bool,
    /// The round that succeeded.
    pub verified_round: Option<u32>,
    /// How many runs there were (0: none could be made; `error` says why).
    pub rounds: u32,
    /// The last run's program and arguments, exactly as started.
    pub command: Vec<String>,
    /// The same as one Windows command line (quoted by the Windows argument rules).
    pub command_line: String,
    /// The directory it ran in.
    pub directory: String,
    /// Why that directory (`--build-dir`, the log's `ninja: Entering directory`, the current one).
    pub directory_source: String,
    /// Where the command came from (the log's line, `build.ninja`'s statement, `--link-command`).
    pub found: String,
    /// The last run's exit code (`null`: killed at the time limit, or not run).
    pub exit_code: Option<i32>,
    /// Whether the last run reached the time limit.
    pub timed_out: bool,
    /// The flags the last run appended (for `ok`: exactly the flags that verified), as the
    /// diagnoses gave them.
    pub flags: Vec<String>,
    /// What the last run's output shows is still wrong.
    pub remaining: Vec<Remaining>,
    /// The last run's output (stdout, then stderr).
    pub output: String,
    /// Output bytes beyond the bound that were not kept.
    pub output_discarded_bytes: u64,
    /// The outputs the command names, and where the runs wrote them instead.
    pub redirected: Vec<Redirect>,
    /// Response files written for the last run.
    pub response_files: Vec<WrittenResponseFile>,
    /// Every run.
    pub history: Vec<Round>,
    /// What lnkfix did to the command, one sentence each.
    pub notes: Vec<String>,
    /// Why no run (or no further run) could be made.
    pub error: Option<String>,
    /// The diagnoses of the failed runs' outputs, in order (for the patch of the verified flags).
    #[serde(skip)]
    pub diagnoses: Vec<Diagnosis>,
}

impl Verification {
    fn failed(error: String, found: String) -> Verification {
        Verification {
            ok: false,
            verified_round: None,
            rounds: 0,
            command: Vec::new(),
            command_line: String::new(),
            directory: String::new(),
            directory_source: String::new(),
            found,
            exit_code: None,
            timed_out: false,
            flags: Vec::new(),
            remaining: Vec::new(),
            output: String::new(),
            output_discarded_bytes: 0,
            redirected: Vec::new(),
            response_files: Vec::new(),
            history: Vec::new(),
            notes: Vec::new(),
            error: Some(error),
            diagnoses: Vec::new(),
        }
    }
}

/// Why no link could be run.
#[derive(Debug, thiserror::Error)]
pub enum VerifyError {
    /// Nothing names the failed link command.
    #[error("no failed link command found: {looked}")]
    NoCommand {
        /// Where lnkfix looked, and what it found there instead.
        looked: String,
    },
    /// The command was found but cannot be used.
    #[error("{found}: {rejected}{hint}")]
    Unusable {
        /// Where it was found.
        found: String,
        /// Why it cannot be used.
        rejected: Rejected,
        /// What may help (empty, or a parenthesised sentence with a leading space).
        hint: String,
    },
    /// The log shows several link commands and nothing says which one failed.
    #[error("{0}")]
    Ambiguous(String),
    /// The build file cannot be read.
    #[error(transparent)]
    BuildFile(#[from] ninja::NinjaError),
    /// The log cannot be read again.
    #[error("{path}: cannot read: {source}")]
    Log {
        /// The log.
        path: String,
        /// What went wrong.
        source: io::Error,
    },
    /// The scratch directory cannot be made or written.
    #[error("cannot prepare the run: {0}")]
    Scratch(String),
    /// The program cannot be started.
    #[error("cannot start {program}: {source}")]
    Start {
        /// The program as resolved.
        program: String,
        /// What went wrong.
        source: io::Error,
    },
}

/// The command found, where, and the directory it runs in.
struct Located {
    command: LinkCommand,
    found: String,
    directory_source: String,
}

fn current_dir() -> PathBuf {
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// `path` made absolute against the current directory (without resolving links), for the report.
fn absolute(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// Finds the failed link command: `--link-command`, the log, `--build-dir`'s `build.ninja`.
fn locate(subject: &Subject<'_>, options: &VerifyOptions) -> Result<Located, VerifyError> {
    let generated = GeneratedFiles::new();
    let build_dir = options.build_dir.as_deref();
    let given_directory = build_dir.map(|d| (absolute(d), "the --build-dir".to_string()));
    if let Some(text) = &options.link_command {
        return from_link_command(text, given_directory, &generated, options.bounds);
    }
    let mut looked = Vec::new();
    let mut failed_outputs = Vec::new();
    if let Some(log) = subject.log {
        // The log was read once already; a FIFO or a device is kept in a file for this second
        // read, so anything but a regular file is refused here rather than opened again.
        let file = crate::files::open::open_regular(log).map_err(|source| VerifyError::Log {
            path: subject.log_name.to_string(),
            source,
        })?;
        let scanned = logscan::scan(Box::new(file), subject.max_line_bytes).map_err(|source| {
            VerifyError::Log {
                path: subject.log_name.to_string(),
                source,
            }
        })?;
        failed_outputs = scanned.failed_outputs.clone();
        let found = from_log(
            subject,
            &scanned,
            given_directory,
            &generated,
            options.bounds,
            &mut looked,
        )?;
        if let Some(located) = found {
            return Ok(located);
        }
    }
    if let Some(dir) = build_dir {
        return from_build_file(dir, &failed_outputs, options.bounds, looked);
    }
    looked.push("no --build-dir to read a build.ninja from, no --link-command".into());
    Err(VerifyError::NoCommand {
        looked: looked.join("; "),
    })
}

/// The command `--link-command` gives, run in `--build-dir` or the current directory.
fn from_link_command(
    text: &str,
    given_directory: Option<(PathBuf, String)>,
    generated: &GeneratedFiles,
    bounds: Bounds,
) -> Result<Located, VerifyError> {
    let (directory, directory_source) =
        given_directory.unwrap_or_else(|| (current_dir(), "the current directory".to_string()));
    let context = ParseContext {
        directory: &directory,
        generated,
        any_program: true,
        bounds,
    };
    located(
        command::parse(text, &context),
        "--link-command".to_string(),
        directory_source,
    )
}

/// The command parsed from what `found` says, or why it cannot run.
fn located(
    parsed: Result<command::LinkCommand, command::Rejected>,
    found: String,
    directory_source: String,
) -> Result<Located, VerifyError> {
    match parsed {
        Ok(command) => Ok(Located {
            command,
            found,
            directory_source,
        }),
        Err(rejected) => Err(VerifyError::Unusable {
            found,
            rejected,
            hint: String::new(),
        }),
    }
}

/// The failed link command the log shows ([`choose`]); what each rejected candidate was goes
/// into `looked`. A response file that cannot be read, an option the run refuses, or several
/// commands of which none is tied to the failure, is an error.
fn from_log(
    subject: &Subject<'_>,
    scanned: &logscan::LogCommands,
    given_directory: Option<(PathBuf, String)>,
    generated: &GeneratedFiles,
    bounds: Bounds,
    looked: &mut Vec<String>,
) -> Result<Option<Located>, VerifyError> {
    let (directory, directory_source, fallback) = log_directory(subject, scanned, given_directory);
    let context = ParseContext {
        directory: &directory,
        generated,
        any_program: false,
        bounds,
    };
    let mut parsed: Vec<choose::Parsed<'_>> =
        logscan::in_order(&scanned.candidates, subject.first_error_line)
            .into_iter()
            .take(MAX_CANDIDATES)
            .map(|candidate| choose::Parsed {
                candidate,
                result: command::parse(&candidate.text, &context),
            })
            .collect();
    let index = match choose::choose(&parsed, &scanned.failing_images, subject.first_error_line) {
        choose::Choice::One(index) => index,
        choose::Choice::Ambiguous(list) => return Err(VerifyError::Ambiguous(list)),
        choose::Choice::None => {
            return unusable(subject, &parsed, &directory_source, fallback, looked)
        }
    };
    let chosen = parsed.swap_remove(index);
    let found = chosen.candidate.describe(subject.log_name);
    located(chosen.result, found, directory_source).map(Some)
}

/// Why none of the log's candidates can run: the first (in order) whose response file cannot be
/// read or whose option the run refuses is an error; the others go into `looked`.
fn unusable(
    subject: &Subject<'_>,
    parsed: &[choose::Parsed<'_>],
    directory_source: &str,
    fallback: bool,
    looked: &mut Vec<String>,
) -> Result<Option<Located>, VerifyError> {
    for p in parsed {
        let found = p.candidate.describe(subject.log_name);
        let Err(rejected) = &p.result else { continue };
        let hint = match rejected {
            Rejected::ResponseFile { .. } if fallback => {
                format!(" (looked for in {directory_source})")
            }
            Rejected::ResponseFile { .. } | Rejected::Unsafe { .. } => String::new(),
            _ => {
                looked.push(format!("{found}: {rejected}"));
                continue;
            }
        };
        return Err(VerifyError::Unusable {
            found,
            rejected: rejected.clone(),
            hint,
        });
    }
    if parsed.is_empty() {
        looked.push(format!(
            "{} shows no link command (no ninja FAILED: block, CMake LINK: command or linker command line)",
            subject.log_name
        ));
    }
    Ok(None)
}

/// The most of a log's candidate commands read (nearest before the first error first): each may
/// read response files.
const MAX_CANDIDATES: usize = 64;

/// Where the log's command runs, and why there: `--build-dir`, else ninja's `Entering directory`
/// when it exists here, else the current directory (then `true`: a fallback).
fn log_directory(
    subject: &Subject<'_>,
    scanned: &logscan::LogCommands,
    given_directory: Option<(PathBuf, String)>,
) -> (PathBuf, String, bool) {
    let entered = scanned
        .entering_directory
        .as_ref()
        .filter(|(dir, _)| Path::new(dir).is_dir());
    let fallback = given_directory.is_none() && entered.is_none();
    let (directory, directory_source) = match (&given_directory, entered) {
        (Some(given), _) => given.clone(),
        (None, Some((dir, line))) => (
            absolute(Path::new(dir)),
            format!("ninja's `Entering directory` ({} line {line})", subject.log_name),
        ),
        (None, None) => (
            current_dir(),
            match &scanned.entering_directory {
                Some((dir, line)) => format!(
                    "the current directory: the log's build directory {dir} (line {line}) is not here, --build-dir names it"
                ),
                None => "the current directory: the log does not say where the build ran, --build-dir names it".to_string(),
            },
        ),
    };
    (directory, directory_source, fallback)
}

/// The link command of `dir/build.ninja`: the statement producing a failed output, else its
/// only link statement (or the only one among the `default` targets).
fn from_build_file(
    dir: &Path,
    failed_outputs: &[String],
    bounds: Bounds,
    mut looked: Vec<String>,
) -> Result<Located, VerifyError> {
    let path = dir.join("build.ninja");
    let file = ninja::BuildFile::read(&path, bounds)?;
    let statements = Statements {
        path: &path,
        file: &file,
        directory: absolute(dir),
    };
    for outputs in failed_outputs.iter().rev() {
        let edge = file
            .producing(outputs)
            .or_else(|| outputs.split_whitespace().find_map(|o| file.producing(o)));
        if let Some(edge) = edge {
            return match statements.parse(edge) {
                Ok(command) => Ok(statements.located(edge, command)),
                Err(rejected) => Err(VerifyError::Unusable {
                    found: statements.describe(edge),
                    rejected,
                    hint: String::new(),
                }),
            };
        }
        looked.push(format!(
            "{} has no statement producing {outputs}",
            path.display()
        ));
    }
    match only_link_statement(&statements, &mut looked) {
        Some((edge, command)) => Ok(statements.located(edge, command)),
        None => {
            if looked.is_empty() || !looked.iter().any(|l| l.contains("link statements")) {
                looked.push(format!("{} has no link statement", path.display()));
            }
            Err(VerifyError::NoCommand {
                looked: looked.join("; "),
            })
        }
    }
}

/// A `build.ninja`'s statements, read as link commands run in the build directory.
struct Statements<'f> {
    path: &'f Path,
    file: &'f ninja::BuildFile,
    directory: PathBuf,
}

impl<'f> Statements<'f> {
    /// The statement's command, with its response file's content as the build would write it.
    fn parse(&self, edge: &ninja::Edge) -> Result<LinkCommand, Rejected> {
        let mut generated = GeneratedFiles::new();
        let rspfile = self.file.variable(edge, "rspfile");
        if !rspfile.is_empty() {
            generated.insert(rspfile, self.file.variable(edge, "rspfile_content"));
        }
        let context = ParseContext {
            directory: &self.directory,
            generated: &generated,
            any_program: false,
            bounds: self.file.bounds(),
        };
        let text = self.file.variable(edge, "command");
        if self.file.over_expanded() {
            return Err(Rejected::Refused {
                program: self.describe(edge),
                reason: format!(
                    "its variables expand past {} bytes (--verify-max-expansion)",
                    self.file.bounds().expanded_bytes
                ),
            });
        }
        command::parse(&text, &context)
    }

    /// Where the statement is, for the report.
    fn describe(&self, edge: &ninja::Edge) -> String {
        format!(
            "{}:{}, `build {}: {}`",
            self.path.display(),
            edge.line,
            edge.outputs.join(" "),
            edge.rule
        )
    }

    /// The statement's command, found.
    fn located(&self, edge: &ninja::Edge, command: LinkCommand) -> Located {
        Located {
            command,
            found: self.describe(edge),
            directory_source: "the --build-dir (where ninja runs build.ninja's commands)".into(),
        }
    }
}

/// The build file's only link statement, or its only one among the `default` targets; when
/// there are several, `looked` says which (up to five).
fn only_link_statement<'f>(
    statements: &Statements<'f>,
    looked: &mut Vec<String>,
) -> Option<(&'f ninja::Edge, LinkCommand)> {
    let file = statements.file;
    let links: Vec<(&ninja::Edge, LinkCommand)> = file
        .edges
        .iter()
        .filter(|e| e.rule != "phony")
        .filter_map(|e| statements.parse(e).ok().map(|c| (e, c)))
        .collect();
    match links.len() {
        1 => links.into_iter().next(),
        0 => None,
        _ => {
            let defaults: Vec<_> = links
                .iter()
                .filter(|(e, _)| e.outputs.iter().any(|o| file.defaults.contains(o)))
                .collect();
            if defaults.len() == 1 {
                let (edge, command) = defaults[0];
                return Some((edge, command.clone()));
            }
            let outputs: Vec<String> = links
                .iter()
                .take(5)
                .map(|(e, _)| e.outputs.join(" "))
                .collect();
            looked.push(format!(
                "{} has {} link statements ({}{}): the log's ninja FAILED: line says which, or give --link-command",
                statements.path.display(),
                links.len(),
                outputs.join(", "),
                if links.len() > 5 { ", ..." } else { "" }
            ));
            None
        }
    }
}

/// The flags as the run passes them: a relative `/LIBPATH:` (lnkfix's own answer, relative to
/// where lnkfix runs) made absolute, since the link runs in the build's directory.
fn flags_for_run(flags: &[String]) -> Vec<String> {
    flags
        .iter()
        .map(|flag| {
            let Some(dir) = flag
                .get(..9)
                .filter(|p| p.eq_ignore_ascii_case("/libpath:"))
                .map(|_| &flag[9..])
            else {
                return flag.clone();
            };
            let path = crate::index::discover::native_path(dir);
            if path.is_absolute() || dir.starts_with(['\\', '/']) {
                flag.clone()
            } else {
                format!("{}{}", &flag[..9], current_dir().join(path).display())
            }
        })
        .collect()
}

/// A finding that stops a link: link.exe's fatal and error codes (LNK1xxx, LNK2xxx), lld-link's
/// and clang's errors.
fn is_error(code: &str) -> bool {
    let upper = code.to_ascii_uppercase();
    upper.starts_with("LNK1") || upper.starts_with("LNK2") || code.contains("error")
}

/// What a diagnosis of a run's output shows is still wrong.
fn remaining_of(diagnosis: &Diagnosis, output: &str) -> Vec<Remaining> {
    let mut out: Vec<Remaining> = diagnosis
        .symbols
        .iter()
        .map(|s| Remaining {
            kind: "unresolved-symbol",
            text: if s.symbol.demangled().is_empty() {
                s.symbol.name().to_string()
            } else {
                s.symbol.demangled().to_string()
            },
            library: s.library.clone(),
        })
        .collect();
    out.extend(
        diagnosis
            .findings
            .iter()
            .filter(|f| is_error(&f.code))
            .map(|f| Remaining {
                kind: "error",
                text: format!("{}: {}", f.code, f.text),
                library: None,
            }),
    );
    if out.is_empty() {
        if let Some(last) = output.lines().rev().find(|l| !l.trim().is_empty()) {
            out.push(Remaining {
                kind: "output",
                text: last.trim().to_string(),
                library: None,
            });
        }
    }
    out
}

fn contains_flag(flags: &[String], flag: &str) -> bool {
    flags.iter().any(|f| f.eq_ignore_ascii_case(flag))
}

/// Whether `path` is a linked image: a regular file that is not empty.
fn is_image(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.len() > 0)
}

/// How one run ended.
enum Ran {
    /// The link succeeded, or reached the time limit: no further round.
    Done,
    /// The link failed; its output is saved in this file for the next diagnosis.
    Failed(PathBuf),
}

/// What every round runs with: the options, the scratch directory, which programs may start.
struct Rounds<'a> {
    options: &'a VerifyOptions,
    scratch: &'a Path,
    trust: trust::Trust,
}

/// The directories a log may have planted a program in: the log's own, `--build-dir`, and the
/// one the command runs in.
fn trust_for(subject: &Subject<'_>, options: &VerifyOptions, located: &Located) -> trust::Trust {
    let mut untrusted = Vec::new();
    // The log as named, and the file it was read from (a copy of standard input or of a FIFO).
    let named = Some(Path::new(subject.log_name)).filter(|_| subject.log_name != "-");
    for log in [subject.log, named].into_iter().flatten() {
        if let Some(dir) = absolute(log).parent() {
            untrusted.push((dir.to_path_buf(), "the log's directory"));
        }
    }
    if let Some(dir) = &options.build_dir {
        untrusted.push((absolute(dir), "the --build-dir"));
    }
    untrusted.push((
        absolute(&located.command.directory),
        "the build's directory",
    ));
    trust::Trust {
        untrusted,
        allowed: options.allow_linker.clone(),
        from_user: located.found == "--link-command",
    }
}

/// Why the program cannot start, with what may help.
fn start_error(command: &LinkCommand, reason: String) -> String {
    let mut error = format!("cannot start {}: {reason}", command.program);
    if file_name_only(&command.program) {
        error.push_str(
            " (run lnkfix where the build ran, e.g. in the x64 Native Tools prompt that vcvars sets up)",
        );
    } else if !cfg!(windows) && trust::is_windows_absolute(&command.program) {
        error.push_str(" (a Windows path: run lnkfix on the machine that ran the build)");
    }
    error
}

fn file_name_only(program: &str) -> bool {
    !program.contains(['/', '\\'])
}

/// Runs `command` with `flags` once (round `round`, which added `added`), and records the run.
fn run_round(
    command: &LinkCommand,
    flags: &[String],
    added: Vec<String>,
    round: u32,
    rounds: &Rounds<'_>,
    verification: &mut Verification,
) -> Result<Ran, String> {
    let (options, scratch) = (rounds.options, rounds.scratch);
    let prepared = redirect::prepare(command, &flags_for_run(flags), scratch)
        .map_err(|e| VerifyError::Scratch(e).to_string())?;
    verification.command_line = winargs::join_command_line(&prepared.argv);
    verification.command = prepared.argv.clone();
    verification.redirected = prepared.redirected;
    verification.response_files = prepared.response_files;
    verification.flags = flags.to_vec();
    let program = trust::resolve(&command.program, &command.directory, &rounds.trust)
        .map_err(|untrusted| start_error(command, untrusted.to_string()))?;
    let finished = run::run(
        &program,
        &prepared.argv,
        &command.directory,
        options.timeout,
    )
    .map_err(|source| {
        VerifyError::Start {
            program: program.display().to_string(),
            source,
        }
        .to_string()
    })?;
    let exit_code = finished.status.and_then(|s| s.code());
    verification.rounds = round;
    verification.history.push(Round {
        round,
        added,
        exit_code,
        timed_out: finished.timed_out,
    });
    verification.exit_code = exit_code;
    verification.timed_out = finished.timed_out;
    verification.output = String::from_utf8_lossy(&finished.output).into_owned();
    verification.output_discarded_bytes = finished.discarded;
    let exited_0 = finished.status.is_some_and(|s| s.success());
    if exited_0 && !is_image(&prepared.image) {
        verification.remaining = vec![Remaining {
            kind: "output",
            text: format!(
                "the link exited with code 0 but wrote no image ({} is missing or empty)",
                prepared.image.display()
            ),
            library: None,
        }];
        return Ok(Ran::Done);
    }
    if exited_0 {
        verification.ok = true;
        verification.verified_round = Some(round);
        verification.remaining.clear();
        return Ok(Ran::Done);
    }
    if finished.timed_out {
        verification.remaining = vec![Remaining {
            kind: "time-limit",
            text: format!(
                "the link ran longer than {} s and was stopped, with every process it started (--verify-timeout)",
                options.timeout.as_secs()
            ),
            library: None,
        }];
        return Ok(Ran::Done);
    }
    let round_log = scratch.join(format!("round-{round}.log"));
    std::fs::write(&round_log, &finished.output)
        .map_err(|e| VerifyError::Scratch(format!("{}: {e}", round_log.display())).to_string())?;
    Ok(Ran::Failed(round_log))
}

/// Verifies `subject.flags`: finds the command, runs it, and diagnoses what still fails with
/// `diagnose_output` (a log file to its diagnosis, with the options of the first diagnosis).
/// SIGINT and SIGTERM meanwhile end the link's processes and remove the scratch directory, then
/// end lnkfix by the same signal.
pub fn verify(
    subject: &Subject<'_>,
    options: &VerifyOptions,
    diagnose_output: &dyn Fn(&Path) -> Result<Diagnosis, String>,
) -> Verification {
    let signals = reap::Signals::catch();
    let verification = verify_caught(subject, options, diagnose_output);
    signals.finish();
    verification
}

/// [`verify`], with the signals caught; the scratch directory is removed when it returns.
fn verify_caught(
    subject: &Subject<'_>,
    options: &VerifyOptions,
    diagnose_output: &dyn Fn(&Path) -> Result<Diagnosis, String>,
) -> Verification {
    let located = match locate(subject, options) {
        Ok(located) => located,
        Err(error) => {
            let found = match &error {
                VerifyError::Unusable { found, .. } => found.clone(),
                _ => String::new(),
            };
            return Verification::failed(error.to_string(), found);
        }
    };
    let scratch = match tempfile::Builder::new().prefix("lnkfix-verify-").tempdir() {
        Ok(dir) => dir,
        Err(e) => {
            return Verification::failed(
                VerifyError::Scratch(format!("a temporary directory: {e}")).to_string(),
                located.found,
            )
        }
    };
    let command = &located.command;
    let mut verification = Verification::failed(String::new(), located.found.clone());
    verification.error = None;
    verification.directory = command.directory.display().to_string();
    verification.directory_source = located.directory_source.clone();
    verification.notes = command.notes.clone();
    let rounds = Rounds {
        options,
        scratch: scratch.path(),
        trust: trust_for(subject, options, &located),
    };
    let last = options.rounds.max(1);
    let mut flags = subject.flags.clone();
    let mut added = flags.clone();
    for round in 1..=last {
        if let Some(signal) = reap::received() {
            verification.error = Some(format!("lnkfix received signal {signal}"));
            break;
        }
        let ran = run_round(command, &flags, added, round, &rounds, &mut verification);
        let round_log = match ran {
            Ok(Ran::Done) => break,
            Ok(Ran::Failed(round_log)) => round_log,
            Err(error) => {
                verification.error = Some(error);
                break;
            }
        };
        let diagnosis = match diagnose_output(&round_log) {
            Ok(diagnosis) => diagnosis,
            Err(e) => {
                verification.error = Some(format!("cannot diagnose the link's output: {e}"));
                break;
            }
        };
        verification.remaining = remaining_of(&diagnosis, &verification.output);
        let new: Vec<String> = diagnosis
            .link_flags
            .iter()
            .filter(|f| !contains_flag(&flags, f))
            .cloned()
            .collect();
        verification.diagnoses.push(diagnosis);
        if new.is_empty() || round == last {
            break;
        }
        flags.extend(new.iter().cloned());
        added = new;
    }
    verification
}

/// Writes the verification for people.
pub fn write_text(
    verification: &Verification,
    out: &mut dyn Write,
    style: Style,
) -> io::Result<()> {
    let v = verification;
    if v.ok {
        write_verified(v, out, style)?;
    } else if v.rounds == 0 {
        return write_not_run(v, out, style);
    } else {
        write_still_failing(v, out, style)?;
    }
    write_runs(v, out, style)?;
    if !v.ok {
        write_remaining(v, out)?;
    }
    Ok(())
}

/// The headline of a fix that verified, with every flag when later rounds added some.
fn write_verified(v: &Verification, out: &mut dyn Write, style: Style) -> io::Result<()> {
    let round = v.verified_round.unwrap_or(v.rounds);
    let flags = if v.flags.is_empty() {
        "as it is"
    } else if round == 1 {
        "with the flags above"
    } else {
        "with the flags above and those the later rounds added"
    };
    writeln!(
        out,
        "{} in round {round} of {}: the link succeeds {flags}",
        style.library("VERIFIED"),
        v.history.len()
    )?;
    if round > 1 {
        let all: Vec<String> = v
            .flags
            .iter()
            .map(|f| winargs::quote_argument(f).into_owned())
            .collect();
        writeln!(out, "  verified flags: {}", style.library(&all.join(" ")))?;
    }
    Ok(())
}

/// The whole report when no link was run: why, and the command that would have run.
fn write_not_run(v: &Verification, out: &mut dyn Write, style: Style) -> io::Result<()> {
    writeln!(
        out,
        "{}: no link was run: {}",
        style.warn("NOT VERIFIED"),
        v.error.as_deref().unwrap_or("unknown reason")
    )?;
    if !v.command.is_empty() {
        writeln!(out, "  command from {}", v.found)?;
        writeln!(
            out,
            "  would have run in {} ({})",
            v.directory, v.directory_source
        )?;
        writeln!(out, "  would have run: {}", v.command_line)?;
    }
    Ok(())
}

/// The headline of a link that still fails: how it ended.
fn write_still_failing(v: &Verification, out: &mut dyn Write, style: Style) -> io::Result<()> {
    let how = if v.timed_out {
        "the link reached the time limit".to_string()
    } else {
        match v.exit_code {
            Some(0) => "the link exited with code 0 but wrote no image".to_string(),
            Some(code) => format!("the link still fails (exit code {code})"),
            None => "the link was ended by a signal".to_string(),
        }
    };
    writeln!(
        out,
        "{} after {} round{}: {how}",
        style.warn("NOT VERIFIED"),
        v.rounds,
        if v.rounds == 1 { "" } else { "s" }
    )
}

/// What was run: the command, where, what each later round added, the outputs redirected, the
/// notes, and why the rounds stopped.
fn write_runs(v: &Verification, out: &mut dyn Write, style: Style) -> io::Result<()> {
    writeln!(out, "  command from {}", v.found)?;
    writeln!(out, "  ran in {} ({})", v.directory, v.directory_source)?;
    writeln!(out, "  ran: {}", v.command_line)?;
    for round in v.history.iter().skip(1) {
        writeln!(
            out,
            "  round {} added: {}",
            round.round,
            round
                .added
                .iter()
                .map(|f| winargs::quote_argument(f).into_owned())
                .collect::<Vec<_>>()
                .join(" ")
        )?;
    }
    if !v.redirected.is_empty() {
        let files: Vec<String> = v
            .redirected
            .iter()
            .map(|r| {
                r.file
                    .clone()
                    .unwrap_or_else(|| format!("{} (named by lnkfix)", r.to))
            })
            .collect();
        writeln!(
            out,
            "  {}",
            style.dim(&format!(
                "outputs written to a temporary directory, then removed, not to: {}",
                files.join(", ")
            ))
        )?;
    }
    for note in &v.notes {
        writeln!(out, "  {}", style.dim(&format!("note: {note}")))?;
    }
    if let Some(error) = &v.error {
        writeln!(
            out,
            "  {}",
            style.warn(&format!("stopped after round {}: {error}", v.rounds))
        )?;
    }
    Ok(())
}

/// What the last run still shows wrong, and the start of its output (40 lines).
fn write_remaining(v: &Verification, out: &mut dyn Write) -> io::Result<()> {
    if !v.remaining.is_empty() {
        writeln!(out, "  remaining:")?;
        for r in &v.remaining {
            match &r.library {
                Some(library) => writeln!(out, "    {} ({}: {library})", r.text, r.kind)?,
                None => writeln!(out, "    {} ({})", r.text, r.kind)?,
            }
        }
    }
    if !v.output.trim().is_empty() {
        writeln!(out, "  linker output:")?;
        let lines: Vec<&str> = v.output.lines().collect();
        for line in lines.iter().take(40) {
            writeln!(out, "    {line}")?;
        }
        if lines.len() > 40 {
            writeln!(
                out,
                "    ... ({} more lines: --format json has all)",
                lines.len() - 40
            )?;
        }
    }
    Ok(())
}
