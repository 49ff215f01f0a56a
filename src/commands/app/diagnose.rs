//! `diagnose`: the log read, the build's evidence gathered, the libraries searched, every symbol
//! resolved and the problems attached; then, as asked, the fix verified (`--verify`) and the
//! patch previewed (`--patch`).

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use super::build_evidence::{build_evidence, BuildPlaces};
use super::{
    rule_book, write_json_value, Environment, LibrarySearch, Report, SearchDone, Searched, Status,
};
use crate::commands::error::Error;
use crate::fix::patch;
use crate::fix::verify::{Verification, VerifyOptions};
use crate::index::Index;
use crate::output::report::Style;
use crate::problems::LazyContext;
use crate::read::linklog::ReadLimits;
use crate::resolve::{self, DiagnoseOptions, Diagnosis};
use crate::rules::{Flavour, RuleBook};

/// Everything `diagnose` (and `patch --from LOG`) reads.
#[derive(Debug, Clone, Default)]
pub struct DiagnoseRequest {
    /// The log: a path, or `-` for standard input. A path need not be valid Unicode.
    pub log: PathBuf,
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
        crate::output::report::write_text(&self.diagnosis, &self.book, out, style)?;
        if let Some(verification) = &self.verify {
            // The full report ends with a blank line; the short one does not.
            if self.diagnosis.verdict.kind == crate::resolve::VerdictKind::NothingUnresolved {
                writeln!(out)?;
            }
            crate::fix::verify::write_text(verification, out, style)?;
        }
        match &self.patch {
            Some(preview) => preview.write_text(out),
            None => Ok(()),
        }
    }

    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.patch.is_none() && self.verify.is_none() {
            // Straight from the types: no intermediate `Value` for the common case.
            return crate::output::report::write_json(&self.diagnosis, out);
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

    fn annotations(&self) -> Option<crate::output::annotations::Annotations> {
        Some(crate::output::annotations::from_diagnosis(
            &self.diagnosis,
            self.verify.as_ref(),
        ))
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
pub(super) fn run_verification(
    request: &DiagnoseRequest,
    options: &VerifyOptions,
    subject: &crate::fix::verify::Subject<'_>,
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
        round.log = path.to_path_buf();
        diagnose(&round, env)
            .map(|report| report.diagnosis)
            .map_err(|e| e.to_string())
    };
    crate::fix::verify::verify(subject, options, &diagnose_output)
}

/// Opens the log: standard input for `-`; a directory or an unreadable path is an error that
/// names it.
pub(super) fn open_log(path: &Path) -> Result<Box<dyn Read>, Error> {
    if is_stdin(path) {
        return Ok(Box::new(io::stdin()));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => {
            return Err(Error::Log {
                path: log_name(path),
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

/// The log's context for the problems (command lines, toolset banners, failure lines), read
/// again from the log when a problem first cites it. Standard input was read once already: its
/// context is empty.
fn log_context<'a>(log: &'a Path, max_line_bytes: usize, diagnosis: &Diagnosis) -> LazyContext<'a> {
    if is_stdin(log) {
        return LazyContext::ready(Default::default());
    }
    // Failure lines are looked for only when no record showed the failure.
    let failures = !crate::problems::link_failed(diagnosis);
    LazyContext::new(move || {
        let file = crate::files::open::open_regular(log)?;
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
    let name = log_name(&request.log);
    let subject = crate::fix::verify::Subject {
        log: Some(log_path),
        log_name: &name,
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
    failure: crate::read::symbols::LinkFailure,
    book: &RuleBook,
    options: &DiagnoseOptions,
    searched: Option<&Searched>,
    evidence: Vec<crate::read::evidence::Evidence>,
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
    diagnose_in(request, env, None)
}

/// [`diagnose`] against a library search already made for `request.search` (tests diagnose many
/// logs against one index, built once).
pub fn diagnose_against(
    request: &DiagnoseRequest,
    env: &Environment<'_>,
    search: &SearchDone,
) -> Result<DiagnoseReport, Error> {
    diagnose_in(request, env, Some(search))
}

/// [`diagnose`], searching the libraries now unless `given` has them.
fn diagnose_in(
    request: &DiagnoseRequest,
    env: &Environment<'_>,
    given: Option<&SearchDone>,
) -> Result<DiagnoseReport, Error> {
    let book = rule_book(&request.rules)?;
    let log = &request.log;
    // Verification reads the log a second time: standard input, a FIFO or a `/dev/fd/N` (which
    // cannot be read twice, or blocks when opened again) is kept in a temporary file.
    let spooled = match &request.verify {
        Some(_) if is_stdin(log) => Some(spool(&mut io::stdin().lock(), log)?),
        Some(_) if !is_regular_file(log) => Some(spool(&mut open_log(log)?, log)?),
        _ => None,
    };
    let mut failure = read_failure(request, spooled.as_ref())?;
    let build_system = failure.build_system.take();
    let mut options = DiagnoseOptions {
        object_machines: Vec::new(),
        crt: request.crt,
        log_name: log_name(log),
    };

    let mut warnings = Vec::new();
    let places = BuildPlaces {
        log: &request.log,
        objects: &request.objects,
        build_dir: request.build_dir.as_deref(),
    };
    let evidence = build_evidence(&places, &book, &failure, &mut options, &mut warnings);
    let machine = log_machine(&failure);
    let owned = given.is_none().then(|| {
        let mut search = request.search.clone();
        search.options.link_machine = machine.as_ref().map(|(m, _)| *m);
        search.search(env)
    });
    let nothing = SearchDone::default();
    let search = given.or(owned.as_ref()).unwrap_or(&nothing);
    warnings.extend(search.warnings.iter().cloned());
    let searched = search.searched.as_ref();
    if let Some(s) = searched {
        warnings.extend(s.index_warnings.iter().map(|w| w.to_string()));
        warnings.extend(layout_warning(machine, s, request.search.options.arch));
    }
    let mut diagnosis = resolve_failure(
        failure,
        &book,
        &options,
        searched,
        evidence,
        request.search.options.arch,
    );
    diagnosis.warnings.extend(warnings);
    diagnosis.searched_dirs = searched
        .as_ref()
        .map(|s| s.dirs.clone())
        .unwrap_or_default();
    note_library_sources(&mut diagnosis);
    diagnosis.python = search.python.clone();
    diagnosis.set_build_system(build_system);
    attach_problems(&mut diagnosis, request, &book, searched, &options);
    // Freeing a large index costs tens of milliseconds at exit and buys nothing.
    std::mem::forget(owned);
    let verify = request.verify.as_ref().map(|options| {
        let log_path = match &spooled {
            Some(file) => file.path().to_path_buf(),
            None => PathBuf::from(log),
        };
        verify_diagnosis(request, options, &log_path, &diagnosis, env)
    });
    let patch = patch_preview(request, &diagnosis, verify.as_ref())?;
    Ok(DiagnoseReport {
        diagnosis,
        book,
        patch,
        verify,
    })
}

/// The link's machine as the log shows it: the target of a machine-type conflict (LNK1112,
/// LNK4272, lld-link's `machine type x86 conflicts with x64`), the second machine it names.
fn link_machine(findings: &[crate::read::linklog::Finding]) -> Option<crate::index::Machine> {
    findings
        .iter()
        .filter(|f| {
            ["LNK1112", "LNK4272"].contains(&f.code.as_str())
                || (f.code.starts_with("lld-link") && f.text.contains(" conflicts with "))
        })
        .find_map(|f| {
            crate::problems::text::machines(&f.text)
                .get(1)
                .map(|(machine, _)| *machine)
        })
}

/// The warning that the layouts were searched for the log's machine (`machine`, with what shows
/// it), when the index was built for it rather than for `--arch`'s `arch`.
fn layout_warning(
    machine: Option<(crate::index::Machine, String)>,
    searched: &Searched,
    arch: crate::index::Machine,
) -> Option<String> {
    let (machine, why) = machine.filter(|(m, _)| *m == searched.index.arch() && *m != arch)?;
    Some(format!(
        "the library layouts were searched for {machine}, the log's machine ({why}), not {arch}: --arch {arch} searches {arch}'s directories"
    ))
}

/// Sets each symbol's `library_source`: the source of the searched directory its
/// `library_path` is in.
fn note_library_sources(diagnosis: &mut Diagnosis) {
    let dirs = &diagnosis.searched_dirs;
    for s in &mut diagnosis.symbols {
        let Some(parent) = s
            .library_path
            .as_deref()
            .and_then(|p| Path::new(p).parent())
        else {
            continue;
        };
        s.library_source = dirs
            .iter()
            .find(|dir| dir.path == parent)
            .map(|dir| Box::new(dir.origin.clone()));
    }
}

/// The link's machine as the log shows it, and what shows it: the target of a machine-type
/// conflict, else the one machine of its command lines, toolset paths, build banners and names.
pub(super) fn log_machine(
    failure: &crate::read::symbols::LinkFailure,
) -> Option<(crate::index::Machine, String)> {
    if let Some(machine) = link_machine(&failure.findings) {
        return Some((
            machine,
            "a machine-type conflict names it the target".into(),
        ));
    }
    let machine = failure.arch()?;
    let why = if failure.machines.contains(&machine) {
        "a command line, toolset path, build banner or mangled referencing function names it"
    } else {
        "its names carry that machine's decoration or mangling"
    };
    Some((machine, why.into()))
}

/// Reads the log (or standard input, spooled when it must be read again) in one pass.
fn read_failure(
    request: &DiagnoseRequest,
    spooled: Option<&tempfile::NamedTempFile>,
) -> Result<crate::read::symbols::LinkFailure, Error> {
    let log = &request.log;
    let reader = match spooled {
        Some(file) => open_log(file.path())?,
        None => open_log(log)?,
    };
    crate::read::symbols::collect(reader, request.read_limits).map_err(|e| Error::Log {
        path: log_name(log),
        reason: format!("cannot read: {e}"),
    })
}

/// Finds the diagnosis's problems, with the log's context read if a problem cites it.
fn attach_problems(
    diagnosis: &mut Diagnosis,
    request: &DiagnoseRequest,
    book: &RuleBook,
    searched: Option<&Searched>,
    options: &DiagnoseOptions,
) {
    let log = &request.log;
    let context = log_context(log, request.read_limits.max_line_bytes, diagnosis);
    let inputs = crate::problems::Inputs {
        book,
        search: searched.map(|s| crate::problems::Search {
            index: &s.index,
            dirs: &s.dirs,
        }),
        context: &context,
        object_machines: &options.object_machines,
    };
    crate::problems::attach(diagnosis, &inputs);
    if let Some(e) = context.error() {
        diagnosis.warnings.push(format!(
            "{}: cannot read it again for its context: {e}",
            log_name(log)
        ));
    }
}

/// The patch `--patch` asks to preview: from the verified flags when the link verified.
fn patch_preview(
    request: &DiagnoseRequest,
    diagnosis: &Diagnosis,
    verify: Option<&Verification>,
) -> Result<Option<PatchPreview>, Error> {
    let Some(path) = &request.patch else {
        return Ok(None);
    };
    let original = crate::files::open::read_regular(path).map_err(|source| Error::Read {
        path: path.clone(),
        source,
    })?;
    let verified = verify
        .filter(|v| v.ok)
        .map(|verification| verified_diagnosis(diagnosis, verification));
    let plan = patch::plan_from_diagnosis(
        verified.as_ref().unwrap_or(diagnosis),
        &log_name(&request.log),
        false,
    );
    Ok(Some(PatchPreview {
        target: path.clone(),
        sha256: patch::sha256_hex(&original),
        outcome: patch::plan_patch(&path.to_string_lossy(), &original, &plan),
    }))
}

/// Whether the log is standard input (`-`).
fn is_stdin(log: &Path) -> bool {
    log.as_os_str() == "-"
}

/// The log's name in reports and messages: its path as text, bytes that are no UTF-8 written
/// `\xNN` (`-` for standard input).
pub fn log_name(log: &Path) -> String {
    crate::output::terminal::path_text(log).into_owned()
}

/// Whether `path` names a regular file (links followed): one that can be read a second time.
/// Something that is not there is left to the first read to report.
fn is_regular_file(path: &Path) -> bool {
    std::fs::metadata(path).map_or(true, |m| m.is_file())
}

/// The log (`name`: `-` for standard input), read once and copied into a temporary file.
fn spool(log: &mut dyn Read, name: &Path) -> Result<tempfile::NamedTempFile, Error> {
    let failed = |source| Error::Read {
        path: name.to_path_buf(),
        source,
    };
    let mut file = tempfile::NamedTempFile::new().map_err(failed)?;
    io::copy(log, &mut file).map_err(failed)?;
    file.flush().map_err(failed)?;
    Ok(file)
}
