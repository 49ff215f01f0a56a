//! One entry per command: validated inputs in, a report out. The binary parses its arguments
//! into these requests, calls one function, renders what comes back through [`Report`] and exits
//! with the report's [`Status`]. Nothing here prints, and nothing reads process-global settings:
//! the environment comes in as a function, progress goes out through a callback.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::discover::{self, SearchDir, SearchOptions};
use crate::error::Error;
use crate::explain::Explanation;
use crate::index::{Index, IndexOptions, IndexWarning, OutputFormat, Progress};
use crate::linklog::ReadLimits;
use crate::patch;
use crate::problems::LazyContext;
use crate::report::Style;
use crate::resolve::{self, DiagnoseOptions, Diagnosis};
use crate::rules::{Flavour, RuleBook};
use crate::verify::{Verification, VerifyOptions};

/// How a command ended: the process exit code. One enum for every command; the README's table
/// lists what each code means for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    /// 0: nothing to fix (no unresolved symbol, every check passed, the patch was written).
    Ok = 0,
    /// 1: something was found and reported (unresolved symbols, a classified failure, a failed
    /// check, a name nothing defines).
    Found = 1,
    /// 2: bad usage or unreadable input.
    Usage = 2,
    /// 3: `triage` matched nothing it knows; `diagnose`: a failed link it could not classify.
    Unclassified = 3,
    /// 4: `--verify`: the link still fails with the fix (or could not be run again).
    NotVerified = 4,
}

impl Status {
    /// The exit code.
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// A command's output: for people, for tools, and the exit status it implies.
pub trait Report {
    /// Writes the report for people (colour only when `style` says so).
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()>;
    /// Writes the report as one JSON document (the documented schema).
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()>;
    /// The exit status the report implies.
    fn status(&self) -> Status;
    /// The findings as annotations for CI formats (GitHub workflow commands, SARIF); `None`
    /// for reports that have none (`index`, `explain`, `doctor`).
    fn annotations(&self) -> Option<Vec<crate::annotations::Annotation>> {
        None
    }
}

/// Writes `value` as one pretty-printed JSON document and a newline.
pub fn write_json_value<T: Serialize + ?Sized>(value: &T, out: &mut dyn Write) -> io::Result<()> {
    crate::terminal::write_json(value, out)
}

/// Where the libraries are and how to read them.
#[derive(Debug, Clone, Default)]
pub struct LibrarySearch {
    /// Directories, layouts and globs (with none given: the environment, as link.exe does).
    pub options: SearchOptions,
    /// The index cache directory; `None`: no cache.
    pub cache_dir: Option<PathBuf>,
}

/// What the caller's process provides: its environment variables and a progress callback for
/// long scans.
pub struct Environment<'a> {
    /// Reads an environment variable.
    pub var: &'a dyn Fn(&str) -> Option<String>,
    /// Told how far a library scan is (`None`: nobody shows progress).
    pub progress: Option<Progress>,
}

impl Environment<'_> {
    /// The process environment, no progress.
    pub fn process() -> Environment<'static> {
        fn var(name: &str) -> Option<String> {
            std::env::var(name).ok()
        }
        Environment {
            var: &var,
            progress: None,
        }
    }
}

/// The platform cache directory for the index: `%LOCALAPPDATA%\lnkfix\cache` on Windows,
/// `$XDG_CACHE_HOME/lnkfix` or `~/.cache/lnkfix` elsewhere.
pub fn default_cache_dir(env: &dyn Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let var = |name: &str| env(name).filter(|v| !v.is_empty()).map(PathBuf::from);
    if cfg!(windows) {
        var("LOCALAPPDATA").map(|d| d.join("lnkfix").join("cache"))
    } else {
        var("XDG_CACHE_HOME")
            .or_else(|| var("HOME").map(|h| h.join(".cache")))
            .map(|d| d.join("lnkfix"))
    }
}

/// The library index of a search, with its directories and warnings; `None` when nothing is
/// searched (no option given and no variable set).
pub struct Searched {
    /// Every library found.
    pub index: Index,
    /// The directories, in search order.
    pub dirs: Vec<SearchDir>,
    /// Problems with files (each names the file).
    pub index_warnings: Vec<IndexWarning>,
}

impl LibrarySearch {
    /// Finds the directories and builds the index; `None` when nothing is searched.
    pub fn index(&self, env: &Environment<'_>, warnings: &mut Vec<String>) -> Option<Searched> {
        let found = discover::discover(&self.options, env.var);
        warnings.extend(found.warnings);
        if found.dirs.is_empty() && found.files.is_empty() {
            return None;
        }
        let options = IndexOptions {
            arch: self.options.arch,
            progress: env.progress.clone(),
            cache_dir: self.cache_dir.clone(),
        };
        let (index, index_warnings) = Index::build(&found.files, &options);
        Some(Searched {
            index,
            dirs: found.dirs,
            index_warnings,
        })
    }
}

/// Everything `diagnose` (and `patch --from LOG`) reads.
#[derive(Debug, Clone, Default)]
pub struct DiagnoseRequest {
    /// The log: a path, or `-` for standard input.
    pub log: String,
    /// A forced CRT flavour (`--crt`).
    pub crt: Option<Flavour>,
    /// Extra rule files, tried first.
    pub rules: Vec<PathBuf>,
    /// Line length and demangling bounds.
    pub read_limits: ReadLimits,
    /// Where the libraries are.
    pub search: LibrarySearch,
    /// Directories of the build's objects (their `/DEFAULTLIB` directives are evidence).
    pub objects: Vec<PathBuf>,
    /// The build directory (its `build.ninja` CRT options are evidence).
    pub build_dir: Option<PathBuf>,
    /// Also plan the patch for this `extension.py`.
    pub patch: Option<PathBuf>,
    /// Run the failed link again with the answer (`--verify`).
    pub verify: Option<VerifyOptions>,
}

/// The patch `diagnose --patch` previews.
pub struct PatchPreview {
    /// The `extension.py`.
    pub target: PathBuf,
    /// Its sha256, recorded so that `patch --apply` can refuse a file changed since.
    pub sha256: String,
    /// The planned change, or why there is none.
    pub outcome: Result<patch::PatchOutcome, patch::PatchError>,
}

impl PatchPreview {
    /// The `patch` object of the JSON report.
    pub fn to_json(&self) -> serde_json::Value {
        let mut value = serde_json::json!({
            "target": self.target.to_string_lossy(),
            "sha256": self.sha256,
        });
        match &self.outcome {
            Ok(patch::PatchOutcome::Changed { diff, notes, .. }) => {
                value["diff"] = diff.clone().into();
                value["notes"] = notes.clone().into();
            }
            Ok(patch::PatchOutcome::AlreadyPatched { notes }) => {
                value["already_patched"] = true.into();
                value["notes"] = notes.clone().into();
            }
            Err(e) => value["error"] = e.to_string().into(),
        }
        value
    }

    fn write_text(&self, out: &mut dyn Write) -> io::Result<()> {
        writeln!(out, "Patch for {}:", self.target.display())?;
        match &self.outcome {
            Ok(patch::PatchOutcome::Changed { diff, notes, .. }) => {
                for note in notes {
                    writeln!(out, "  note: {note}")?;
                }
                out.write_all(diff.as_bytes())
            }
            Ok(patch::PatchOutcome::AlreadyPatched { notes }) => {
                writeln!(out, "  already links everything needed: no change")?;
                for note in notes {
                    writeln!(out, "  note: {note}")?;
                }
                Ok(())
            }
            Err(e) => writeln!(out, "  no patch: {e}"),
        }
    }
}

/// What `diagnose` produced.
pub struct DiagnoseReport {
    /// The diagnosis.
    pub diagnosis: Diagnosis,
    /// The rule book it was made with (the text report describes families from it).
    pub book: RuleBook,
    /// The patch preview, when asked for.
    pub patch: Option<PatchPreview>,
    /// The verification, when asked for.
    pub verify: Option<Verification>,
}

impl Report for DiagnoseReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::report::write_text(&self.diagnosis, &self.book, out, style)?;
        if let Some(verification) = &self.verify {
            // The full report ends with a blank line; the short one does not.
            if self.diagnosis.verdict.kind == crate::resolve::VerdictKind::NothingUnresolved {
                writeln!(out)?;
            }
            crate::verify::write_text(verification, out, style)?;
        }
        match &self.patch {
            Some(preview) => preview.write_text(out),
            None => Ok(()),
        }
    }

    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.patch.is_none() && self.verify.is_none() {
            // Straight from the types: no intermediate `Value` for the common case.
            return crate::report::write_json(&self.diagnosis, out);
        }
        let mut value = serde_json::to_value(&self.diagnosis).map_err(io::Error::other)?;
        if let Some(verification) = &self.verify {
            value["verify"] = serde_json::to_value(verification).map_err(io::Error::other)?;
        }
        if let Some(preview) = &self.patch {
            value["patch"] = preview.to_json();
        }
        write_json_value(&value, out)
    }

    fn status(&self) -> Status {
        if self.verify.as_ref().is_some_and(|v| !v.ok) {
            Status::NotVerified
        } else if !self.diagnosis.problems.is_empty() {
            Status::Found
        } else if self.diagnosis.link_failed {
            Status::Unclassified
        } else {
            Status::Ok
        }
    }

    fn annotations(&self) -> Option<Vec<crate::annotations::Annotation>> {
        Some(crate::annotations::from_diagnosis(&self.diagnosis))
    }
}

/// The diagnosis with the flags that verified: `link_flags` as the verification ran them, and
/// the symbols the later rounds resolved (the patch takes libraries and their directories from
/// both).
pub fn verified_diagnosis(diagnosis: &Diagnosis, verification: &Verification) -> Diagnosis {
    let mut verified = diagnosis.clone();
    verified.link_flags = verification.flags.clone();
    for later in &verification.diagnoses {
        verified.symbols.extend(
            later
                .symbols
                .iter()
                .filter(|s| s.library.is_some())
                .cloned(),
        );
    }
    verified
}

/// The log's first unresolved symbol or linker error: the failed command is the one before it.
fn first_error_line(diagnosis: &Diagnosis) -> Option<u64> {
    let symbols = diagnosis.symbols.iter().map(|s| s.symbol.first_line);
    let errors = diagnosis
        .findings
        .iter()
        .filter(|f| {
            f.code.starts_with("LNK1") || f.code.starts_with("LNK2") || f.code.contains("error")
        })
        .map(|f| f.line);
    symbols.chain(errors).min()
}

/// Verifies `subject` (the flags, the log showing the failed link; or `--link-command`,
/// `--build-dir`): later rounds diagnose the link's output with `request`'s options and the
/// flavour decided.
fn run_verification(
    request: &DiagnoseRequest,
    options: &VerifyOptions,
    subject: &crate::verify::Subject<'_>,
    flavour: Option<Flavour>,
    env: &Environment<'_>,
) -> Verification {
    let round_request = DiagnoseRequest {
        crt: request.crt.or(flavour),
        build_dir: None,
        patch: None,
        verify: None,
        ..request.clone()
    };
    let diagnose_output = |path: &Path| {
        let mut round = round_request.clone();
        round.log = path.to_string_lossy().into_owned();
        diagnose(&round, env)
            .map(|report| report.diagnosis)
            .map_err(|e| e.to_string())
    };
    crate::verify::verify(subject, options, &diagnose_output)
}

fn open_log(path: &str) -> Result<Box<dyn Read>, Error> {
    if path == "-" {
        return Ok(Box::new(io::stdin()));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(Error::Log {
                path: path.to_string(),
                reason: "is a directory, not a log file".into(),
            })
        }
        Ok(_) => {}
        Err(source) => {
            return Err(Error::Read {
                path: path.into(),
                source,
            })
        }
    }
    std::fs::File::open(path)
        .map(|f| Box::new(f) as Box<dyn Read>)
        .map_err(|source| Error::Read {
            path: path.into(),
            source,
        })
}

/// Object files named by the log's references and findings that exist on disk (relative to the log's
/// directory or the current one): their directives are evidence too.
fn objects_named_in_log(log: &str, failure: &crate::symbols::LinkFailure) -> Vec<PathBuf> {
    let base = Path::new(log).parent().map(PathBuf::from);
    let mut out: Vec<PathBuf> = Vec::new();
    let named = failure
        .symbols
        .iter()
        .flat_map(|s| s.references.iter().filter_map(|r| r.object.as_deref()))
        .chain(
            failure
                .findings
                .iter()
                .flat_map(|f| f.objects.iter().map(String::as_str)),
        );
    for object in named {
        let lower = object.to_ascii_lowercase();
        if object.contains('(') || !(lower.ends_with(".obj") || lower.ends_with(".o")) {
            continue;
        }
        let relative = discover::native_path(object);
        let candidates = [
            base.as_ref().map(|b| b.join(&relative)),
            Some(relative.clone()),
        ];
        if let Some(found) = candidates.into_iter().flatten().find(|p| p.is_file()) {
            if !out.contains(&found) && out.len() < 256 {
                out.push(found);
            }
        }
    }
    out
}

fn object_files_in(dir: &Path, out: &mut Vec<PathBuf>, warnings: &mut Vec<String>) {
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            for entry in entries.flatten() {
                let path = entry.path();
                let ext = path
                    .extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase());
                if !matches!(ext.as_deref(), Some("obj") | Some("o")) {
                    continue;
                }
                match std::fs::metadata(&path) {
                    Ok(metadata) if metadata.is_file() => out.push(path),
                    Ok(metadata) if !metadata.is_dir() => warnings.push(format!(
                        "{}: not a regular file (a FIFO, socket or device): skipped",
                        path.display()
                    )),
                    _ => {}
                }
            }
        }
        Err(e) => warnings.push(format!(
            "{}: cannot read the objects directory: {e}",
            dir.display()
        )),
    }
}

/// The machine of each object in an index of objects (the first machine it holds).
fn object_machines(objects: &Index) -> Vec<(String, crate::index::Machine)> {
    objects
        .libraries()
        .iter()
        .filter(|info| info.format == crate::index::FileFormat::Object)
        .filter_map(|info| {
            let machine = info
                .machines
                .iter()
                .copied()
                .find(|m| *m != crate::index::Machine::Any)?;
            Some((info.path.to_string_lossy().into_owned(), machine))
        })
        .collect()
}

/// The rule book with the user's rule files added.
pub fn rule_book(rules: &[PathBuf]) -> Result<RuleBook, Error> {
    let mut book = RuleBook::builtin();
    for path in rules {
        book.add_file(path)?;
    }
    Ok(book)
}

/// The CRT evidence of the build's objects (those the log names and `--objects`) and of
/// `--build-dir`'s `build.ninja`; the objects' machines go into `options`.
fn build_evidence(
    request: &DiagnoseRequest,
    book: &RuleBook,
    failure: &crate::symbols::LinkFailure,
    options: &mut DiagnoseOptions,
    warnings: &mut Vec<String>,
) -> Vec<crate::evidence::Evidence> {
    let log = &request.log;
    let mut evidence = Vec::new();
    let mut objects = objects_named_in_log(log, failure);
    for dir in &request.objects {
        object_files_in(dir, &mut objects, warnings);
    }
    if !objects.is_empty() {
        let (object_index, object_warnings) = Index::build(&objects, &IndexOptions::default());
        warnings.extend(object_warnings.iter().map(|w| w.to_string()));
        evidence.extend(crate::evidence::from_objects(book, &object_index));
        options.object_machines = object_machines(&object_index);
    }
    if let Some(dir) = &request.build_dir {
        let ninja = dir.join("build.ninja");
        match crate::evidence::from_build_file(book, &ninja) {
            Ok(found) => evidence.extend(found),
            Err(e) => warnings.push(format!("{}: cannot read: {e}", ninja.display())),
        }
    }
    evidence
}

/// The log's context for the problems (command lines, toolset banners, failure lines), read
/// again from the log when a problem first cites it. Standard input was read once already: its
/// context is empty.
fn log_context<'a>(log: &'a str, max_line_bytes: usize, diagnosis: &Diagnosis) -> LazyContext<'a> {
    if log == "-" {
        return LazyContext::ready(Default::default());
    }
    // Failure lines are looked for only when no record showed the failure.
    let failures = !crate::problems::link_failed(diagnosis);
    LazyContext::new(move || {
        let file = crate::open::open_regular(Path::new(log))?;
        crate::problems::LogContext::read(file, max_line_bytes, None, failures)
    })
}

/// Runs the failed link again with the diagnosis's flags (`--verify`).
fn verify_diagnosis(
    request: &DiagnoseRequest,
    options: &VerifyOptions,
    log_path: &Path,
    diagnosis: &Diagnosis,
    env: &Environment<'_>,
) -> Verification {
    let subject = crate::verify::Subject {
        log: Some(log_path),
        log_name: &request.log,
        first_error_line: first_error_line(diagnosis),
        flags: diagnosis.link_flags.clone(),
        max_line_bytes: request.read_limits.max_line_bytes,
    };
    let mut verification = run_verification(request, options, &subject, diagnosis.crt.flavour, env);
    if diagnosis.link_flags_by_flavour.is_some() {
        verification.notes.push(
            "the CRT flavour is unknown: only the flags both flavours need were appended (--crt names it)".into(),
        );
    }
    verification
}

/// Resolves the failure's symbols: against the libraries found, or (with evidence but no
/// libraries) against an empty index so the evidence still decides the flavour, or from the rule
/// book and the embedded tables alone.
fn resolve_failure(
    failure: crate::symbols::LinkFailure,
    book: &RuleBook,
    options: &DiagnoseOptions,
    searched: Option<&Searched>,
    evidence: Vec<crate::evidence::Evidence>,
    arch: crate::index::Machine,
) -> Diagnosis {
    match searched {
        Some(s) => {
            let context = resolve::SearchContext {
                index: &s.index,
                dirs: &s.dirs,
                evidence,
            };
            resolve::diagnose_with(failure, book, options, Some(&context))
        }
        None if !evidence.is_empty() => {
            let empty = Index::from_symbols(Vec::new(), Vec::new(), arch);
            let context = resolve::SearchContext {
                index: &empty,
                dirs: &[],
                evidence,
            };
            let mut d = resolve::diagnose_with(failure, book, options, Some(&context));
            for s in &mut d.symbols {
                s.not_found_on_disk = false;
            }
            d
        }
        None => resolve::diagnose(failure, book, options),
    }
}

/// Reads and diagnoses a log: evidence from the build's objects and `build.ninja`, then the
/// libraries on disk when any are found, else the rule book and the embedded tables.
pub fn diagnose(request: &DiagnoseRequest, env: &Environment<'_>) -> Result<DiagnoseReport, Error> {
    let book = rule_book(&request.rules)?;
    let log = &request.log;
    // Verification reads the log a second time: standard input is kept in a temporary file.
    let spooled = match (&request.verify, log.as_str()) {
        (Some(_), "-") => Some(spool_stdin()?),
        _ => None,
    };
    let reader = match &spooled {
        Some(file) => open_log(&file.path().to_string_lossy())?,
        None => open_log(log)?,
    };
    let mut failure =
        crate::symbols::collect(reader, request.read_limits).map_err(|e| Error::Log {
            path: log.clone(),
            reason: format!("cannot read: {e}"),
        })?;
    let build_system = failure.build_system.take();
    let mut options = DiagnoseOptions {
        object_machines: Vec::new(),
        crt: request.crt,
        log_name: log.clone(),
    };

    let mut warnings = Vec::new();
    let evidence = build_evidence(request, &book, &failure, &mut options, &mut warnings);
    let searched = request.search.index(env, &mut warnings);
    if let Some(s) = &searched {
        warnings.extend(s.index_warnings.iter().map(|w| w.to_string()));
    }
    let mut diagnosis = resolve_failure(
        failure,
        &book,
        &options,
        searched.as_ref(),
        evidence,
        request.search.options.arch,
    );
    diagnosis.warnings.extend(warnings);
    diagnosis.set_build_system(build_system);
    let context = log_context(log, request.read_limits.max_line_bytes, &diagnosis);
    let inputs = crate::problems::Inputs {
        book: &book,
        search: searched.as_ref().map(|s| crate::problems::Search {
            index: &s.index,
            dirs: &s.dirs,
        }),
        context: &context,
        object_machines: &options.object_machines,
    };
    crate::problems::attach(&mut diagnosis, &inputs);
    if let Some(e) = context.error() {
        diagnosis
            .warnings
            .push(format!("{log}: cannot read it again for its context: {e}"));
    }
    if let Some(s) = searched {
        // Freeing a large index costs tens of milliseconds at exit and buys nothing.
        std::mem::forget(s.index);
    }
    let verify = request.verify.as_ref().map(|options| {
        let log_path = match &spooled {
            Some(file) => file.path().to_path_buf(),
            None => PathBuf::from(log),
        };
        verify_diagnosis(request, options, &log_path, &diagnosis, env)
    });
    let patch = match &request.patch {
        None => None,
        Some(path) => {
            let original = crate::open::read_regular(path).map_err(|source| Error::Read {
                path: path.clone(),
                source,
            })?;
            let verified = verify
                .as_ref()
                .filter(|v| v.ok)
                .map(|verification| verified_diagnosis(&diagnosis, verification));
            let plan =
                patch::plan_from_diagnosis(verified.as_ref().unwrap_or(&diagnosis), log, false);
            Some(PatchPreview {
                target: path.clone(),
                sha256: patch::sha256_hex(&original),
                outcome: patch::plan_patch(&path.to_string_lossy(), &original, &plan),
            })
        }
    };
    Ok(DiagnoseReport {
        diagnosis,
        book,
        patch,
        verify,
    })
}

/// Standard input, copied into a temporary file.
fn spool_stdin() -> Result<tempfile::NamedTempFile, Error> {
    let failed = |source| Error::Read {
        path: PathBuf::from("-"),
        source,
    };
    let mut file = tempfile::NamedTempFile::new().map_err(failed)?;
    io::copy(&mut io::stdin().lock(), &mut file).map_err(failed)?;
    file.flush().map_err(failed)?;
    Ok(file)
}

/// Everything `explain` reads.
#[derive(Debug, Clone, Default)]
pub struct ExplainRequest {
    /// The name, linker-level or demangled.
    pub symbol: String,
    /// Where the libraries are.
    pub search: LibrarySearch,
    /// Rank for this flavour.
    pub crt: Option<Flavour>,
    /// Extra rule files.
    pub rules: Vec<PathBuf>,
}

/// What `explain` produced, with the warnings of the library scan.
pub struct ExplainReport {
    /// The explanation.
    pub explanation: Explanation,
    /// Problems with directories and files.
    pub warnings: Vec<String>,
}

impl Report for ExplainReport {
    fn write_text(&self, out: &mut dyn Write, _style: Style) -> io::Result<()> {
        crate::explain::write_text(&self.explanation, out)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::explain::write_json(&self.explanation, out)
    }
    fn status(&self) -> Status {
        if self.explanation.found() {
            Status::Ok
        } else {
            Status::Found
        }
    }
}

/// Explains one name: from the libraries on disk when any are found, else the embedded tables.
pub fn explain(request: &ExplainRequest, env: &Environment<'_>) -> Result<ExplainReport, Error> {
    let book = rule_book(&request.rules)?;
    let mut warnings = Vec::new();
    let searched = request.search.index(env, &mut warnings);
    if let Some(s) = &searched {
        warnings.extend(s.index_warnings.iter().map(|w| w.to_string()));
    }
    let context = searched.as_ref().map(|s| resolve::SearchContext {
        index: &s.index,
        dirs: &s.dirs,
        evidence: Vec::new(),
    });
    let explanation =
        crate::explain::explain(&request.symbol, &book, context.as_ref(), request.crt)?;
    if let Some(s) = searched {
        std::mem::forget(s.index);
    }
    Ok(ExplainReport {
        explanation,
        warnings,
    })
}

/// Everything `index` reads.
#[derive(Debug, Clone, Default)]
pub struct IndexRequest {
    /// Where the libraries are.
    pub search: LibrarySearch,
    /// Every symbol instead of the summary.
    pub list: bool,
}

/// What `index` produced.
pub struct IndexReport {
    /// The index.
    pub index: Index,
    /// Problems with files.
    pub index_warnings: Vec<IndexWarning>,
    /// Problems with directories.
    pub warnings: Vec<String>,
    /// Every symbol instead of the summary.
    pub list: bool,
}

impl IndexReport {
    fn write(&self, out: &mut dyn Write, format: OutputFormat) -> io::Result<()> {
        let mut out = io::BufWriter::new(out);
        if self.list {
            crate::index::write_list(&self.index, &mut out, format)?;
        } else {
            crate::index::write_summary(&self.index, &self.index_warnings, &mut out, format)?;
        }
        out.flush()
    }
}

impl Report for IndexReport {
    fn write_text(&self, out: &mut dyn Write, _style: Style) -> io::Result<()> {
        self.write(out, OutputFormat::Text)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write(out, OutputFormat::Json)
    }
    fn status(&self) -> Status {
        Status::Ok
    }
}

/// Builds the index of the link environment.
pub fn index(request: &IndexRequest, env: &Environment<'_>) -> Result<IndexReport, Error> {
    let mut warnings = Vec::new();
    let searched = request
        .search
        .index(env, &mut warnings)
        .ok_or(Error::NoLibraries)?;
    Ok(IndexReport {
        index: searched.index,
        index_warnings: searched.index_warnings,
        warnings,
        list: request.list,
    })
}

impl Report for crate::triage::TriageReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::triage::render_text(self, out, style.color)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::triage::write_json(self, out)
    }
    fn status(&self) -> Status {
        match crate::triage::exit_code(self) {
            0 => Status::Ok,
            1 => Status::Found,
            3 => Status::Unclassified,
            _ => Status::Usage,
        }
    }

    fn annotations(&self) -> Option<Vec<crate::annotations::Annotation>> {
        Some(crate::annotations::from_triage(self))
    }
}

impl Report for crate::doctor::DoctorReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::doctor::render_text(self, out, style.color)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::doctor::write_json(self, out)
    }
    fn status(&self) -> Status {
        if crate::doctor::exit_code(self) == 0 {
            Status::Ok
        } else {
            Status::Found
        }
    }
}

impl Report for crate::zombies::ZombiesReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::zombies::write_text(self, out, style)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::zombies::write_json(self, out)
    }
    fn status(&self) -> Status {
        if self.is_clear() {
            Status::Ok
        } else {
            Status::Found
        }
    }
}

/// Lists the processes that hold the paths' files and the suspects by name, and ends them and
/// deletes their files as asked (`lnkfix zombies`).
pub fn zombies(
    request: &crate::zombies::ZombiesRequest,
) -> Result<crate::zombies::ZombiesReport, Error> {
    Ok(crate::zombies::zombies(request)?)
}

/// Everything `patch` reads.
#[derive(Debug, Clone, Default)]
pub struct PatchRequest {
    /// tvm-ffi's `extension.py`.
    pub extension_py: PathBuf,
    /// A log (diagnosed with `diagnose`'s options) or a saved `diagnose --format json`.
    pub from: String,
    /// How to diagnose a log.
    pub diagnose: DiagnoseRequest,
    /// Bake the HIP directory found now into the file.
    pub literal_paths: bool,
}

/// What `patch` planned.
pub struct PatchReport {
    /// The target, as given.
    pub target: PathBuf,
    /// Its bytes now.
    pub original: Vec<u8>,
    /// The sha256 the saved diagnosis recorded, if any.
    pub recorded_sha256: Option<String>,
    /// The change, or that none is needed.
    pub outcome: patch::PatchOutcome,
    /// The verification, with `--verify`: the patch carries the flags that verified.
    pub verification: Option<Verification>,
}

impl PatchReport {
    /// The sha256 the file must still have for `--apply`: the one the diagnosis recorded, else
    /// the bytes the plan was made from.
    pub fn expected_sha256(&self) -> String {
        self.recorded_sha256
            .clone()
            .unwrap_or_else(|| patch::sha256_hex(&self.original))
    }

    /// Whether the patch may be written or applied: always without `--verify`; with it, only
    /// when the fix verified, unless `force`.
    pub fn may_write(&self, force: bool) -> bool {
        force || self.verification.as_ref().is_none_or(|v| v.ok)
    }

    /// The exit status once the patch was written (or needed no change): [`Status::NotVerified`]
    /// when `--verify` was asked for and the fix did not verify (a forced patch included).
    pub fn status(&self) -> Status {
        if self.verification.as_ref().is_some_and(|v| !v.ok) {
            Status::NotVerified
        } else {
            Status::Ok
        }
    }
}

/// Plans the patch of `extension.py` from a log or a saved diagnosis.
pub fn plan_patch(request: &PatchRequest, env: &Environment<'_>) -> Result<PatchReport, Error> {
    let original =
        crate::open::read_regular(&request.extension_py).map_err(|source| Error::Read {
            path: request.extension_py.clone(),
            source,
        })?;
    // A saved diagnosis, or a log diagnosed now with the same options as `diagnose`.
    let saved = patch::read_saved_diagnosis(Path::new(&request.from)).map_err(|source| {
        Error::SavedDiagnosis {
            path: PathBuf::from(&request.from),
            source,
        }
    })?;
    let (diagnosis, recorded_sha256, verification) = match saved {
        Some(saved) => {
            let recorded = saved.patch.and_then(|p| p.sha256);
            let verification = request
                .diagnose
                .verify
                .as_ref()
                .map(|options| verify_saved_diagnosis(&saved.diagnosis, request, options, env));
            (saved.diagnosis, recorded, verification)
        }
        None => {
            let mut diagnose = request.diagnose.clone();
            diagnose.log = request.from.clone();
            diagnose.patch = None;
            let report = self::diagnose(&diagnose, env)?;
            (report.diagnosis, None, report.verify)
        }
    };
    let diagnosis = match verification.as_ref().filter(|v| v.ok) {
        Some(verified) => verified_diagnosis(&diagnosis, verified),
        None => diagnosis,
    };
    if diagnosis.crt.flavour.is_none() && diagnosis.link_flags_by_flavour.is_some() {
        return Err(Error::FlavourUnknown {
            from: request.from.clone(),
        });
    }
    let plan = patch::plan_from_diagnosis(&diagnosis, &request.from, request.literal_paths);
    let target = request.extension_py.to_string_lossy().to_string();
    let outcome = patch::plan_patch(&target, &original, &plan)?;
    Ok(PatchReport {
        target: request.extension_py.clone(),
        original,
        recorded_sha256,
        outcome,
        verification,
    })
}

/// Verifies a saved diagnosis: its `link_flags`, against the command its log shows (when the log
/// is still there), `--link-command` or `--build-dir`.
fn verify_saved_diagnosis(
    diagnosis: &Diagnosis,
    request: &PatchRequest,
    options: &VerifyOptions,
    env: &Environment<'_>,
) -> Verification {
    let log = Some(diagnosis.log.as_str()).filter(|l| *l != "-" && Path::new(l).is_file());
    let flags = diagnosis.link_flags.clone();
    // Lines are 1-based: 0 is a symbol saved without one.
    let symbol_lines = diagnosis
        .symbols
        .iter()
        .map(|s| s.symbol.first_line)
        .filter(|&line| line > 0);
    let flavour = diagnosis.crt.flavour;
    let subject = crate::verify::Subject {
        log: log.map(Path::new),
        log_name: log.unwrap_or(&request.from),
        first_error_line: symbol_lines.min(),
        flags,
        max_line_bytes: request.diagnose.read_limits.max_line_bytes,
    };
    run_verification(&request.diagnose, options, &subject, flavour, env)
}

/// Everything `whence` reads.
#[derive(Debug, Clone, Default)]
pub struct WhenceRequest {
    /// The message, as the log shows it.
    pub message: String,
    /// Where the Python sources are.
    pub sources: crate::whence::SourceSpec,
    /// Most candidates shown.
    pub limit: usize,
}

impl Report for crate::whence::WhenceReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::whence::write_text(self, out, style)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::whence::write_json(self, out)
    }
    fn status(&self) -> Status {
        if self.result.candidates.is_empty() {
            Status::Found
        } else {
            Status::Ok
        }
    }
}

/// Finds the Python code that formats a message: the sources as the request says (or the
/// Python on `PATH`, or `VIRTUAL_ENV`), walked and ranked.
pub fn whence(
    request: &WhenceRequest,
    env: &Environment<'_>,
) -> Result<crate::whence::WhenceReport, Error> {
    let sources = crate::whence::resolve(&request.sources, env.var)?;
    Ok(crate::whence::whence(
        &request.message,
        sources,
        request.limit,
    ))
}
