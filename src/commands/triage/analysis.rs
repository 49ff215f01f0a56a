//! The analyses a row can ask for, each a second pass over the log: every arch on the JIT
//! compile command lines (`offload-arch`), and the link diagnosis of the attempt's lines with the
//! placeholders the link rows fill from it (`link-diagnosis`).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::rows::{self, RowBook};
use super::scan::excerpt;
use super::source::Source;
use super::{arch, EvidenceLine, TriageError, TriageOptions};
use crate::read::linklog::{clean, LineReader};
use crate::resolve::Diagnosis;
use crate::rules::RuleBook;

/// The resolver's rule book plus the link-symbol rules of the `--rules` files that have some.
pub(super) fn link_rule_book(extra: &[PathBuf]) -> Result<RuleBook, TriageError> {
    let mut book = RuleBook::builtin();
    for path in extra {
        let text = crate::files::open::read_regular_to_string(path).map_err(|source| {
            TriageError::Rules {
                path: path.clone(),
                message: format!("cannot read: {source}"),
            }
        })?;
        if rows::has_link_rules(&text) {
            book.add_file(path)?;
        }
    }
    Ok(book)
}

/// Every distinct arch on a compile command line in the whole log (a second pass).
pub(super) fn collect_offload(
    source: &Source,
    options: &TriageOptions,
    book: &RowBook,
    arch_row: Option<usize>,
) -> Vec<(String, EvidenceLine)> {
    let Some(row) = arch_row else {
        return Vec::new();
    };
    let mut out: Vec<(String, EvidenceLine)> = Vec::new();
    let Ok(input) = source.open() else {
        return out;
    };
    let Ok(mut reader) = LineReader::new(input, options.limits.max_line_bytes) else {
        return out;
    };
    let mut line = String::new();
    while let Ok(true) = reader.next_line(&mut line) {
        let text = clean::strip_escapes(&line);
        for pattern in &book.rows[row].patterns {
            for c in pattern.captures_iter(&text) {
                let Some(arch) = c.name("arch") else { continue };
                let key = arch::processor(arch.as_str());
                if !out.iter().any(|(a, _)| arch::processor(a) == key) {
                    out.push((
                        arch.as_str().to_string(),
                        EvidenceLine {
                            line: reader.line_number,
                            text: excerpt(&text, arch.range()),
                            raisers: None,
                        },
                    ));
                }
            }
        }
    }
    out
}

/// The resolver's diagnosis of the attempt's lines (a second pass over the log).
pub(super) fn link_diagnosis(
    source: &Source,
    name: &str,
    options: &TriageOptions,
    book: &RuleBook,
    first_line: u64,
    last_line: u64,
) -> Result<Diagnosis, TriageError> {
    let read_error = |source| TriageError::Read {
        path: PathBuf::from(name),
        source,
    };
    let mut collector = crate::read::symbols::Collector::new();
    let mut recogniser = crate::read::build_system::Recogniser::new();
    let stats = crate::read::linklog::read_log_watched(
        source.open().map_err(read_error)?,
        options.limits,
        &mut |event| {
            if (first_line..=last_line).contains(&event.line) {
                collector.push(event);
            }
        },
        Some(&mut |number, line| recogniser.line(number, line)),
    )
    .map_err(read_error)?;
    let failure = collector.finish(stats);
    let mut diagnose_options = options.diagnose.clone();
    if diagnose_options.log_name.is_empty() {
        diagnose_options.log_name = name.to_string();
    }
    let mut diagnosis = crate::resolve::diagnose(failure, book, &diagnose_options);
    diagnosis.set_build_system(recogniser.finish());
    // Failure lines are looked for only when no record showed the failure.
    let failures = !crate::problems::link_failed(&diagnosis);
    let context = crate::problems::LazyContext::new(|| {
        crate::problems::LogContext::read(
            source.open()?,
            options.limits.max_line_bytes,
            Some((first_line, last_line)),
            failures,
        )
    });
    let inputs = crate::problems::Inputs {
        book,
        search: None,
        context: &context,
        object_machines: &[],
    };
    crate::problems::attach(&mut diagnosis, &inputs);
    Ok(diagnosis)
}

/// The row of the first problem of a link diagnosis (`link-crt-mismatch` for a CRT mismatch).
pub(super) fn row_of_problem(diagnosis: &Diagnosis) -> Option<&'static str> {
    use crate::problems::ProblemKind;
    Some(match diagnosis.problems.first()?.kind {
        ProblemKind::Unresolved => "link-unresolved",
        ProblemKind::DuplicateSymbol => "link-duplicate-symbol",
        ProblemKind::CrtMismatch => "link-crt-mismatch",
        ProblemKind::MachineMismatch => "link-machine-mismatch",
        ProblemKind::CannotOpen => "link-cannot-open",
        ProblemKind::ToolsetMismatch => "link-toolset-mismatch",
        ProblemKind::EntryPoint => "link-entry-point",
        // Its unresolved `__imp_` names matched the unresolved row; the cause is another.
        ProblemKind::DllimportMismatch => "link-error",
        // No row of their own: triage answers with the link stage's general row, and the
        // diagnosis it carries names the problem.
        ProblemKind::LtcgMismatch
        | ProblemKind::ImageTooLarge
        | ProblemKind::ToolMissing
        | ProblemKind::ToolFailed
        | ProblemKind::Pdb
        | ProblemKind::CorruptInput
        | ProblemKind::Other => return None,
    })
}

/// The text of some lines of the log (a second pass), for evidence.
pub(super) fn lines_text(
    source: &Source,
    options: &TriageOptions,
    wanted: &[u64],
) -> Vec<EvidenceLine> {
    let mut out = Vec::new();
    let Some(&last) = wanted.iter().max() else {
        return out;
    };
    let Ok(input) = source.open() else {
        return out;
    };
    let Ok(mut reader) = LineReader::new(input, options.limits.max_line_bytes) else {
        return out;
    };
    let mut line = String::new();
    while let Ok(true) = reader.next_line(&mut line) {
        let number = reader.line_number;
        if wanted.contains(&number) {
            let text = clean::strip_escapes(&line);
            out.push(EvidenceLine {
                line: number,
                text: excerpt(&text, 0..0),
                raisers: None,
            });
        }
        if number >= last {
            break;
        }
    }
    out
}

/// Placeholders for the link rows, from the diagnosis.
pub(super) fn link_values(
    diagnosis: &Diagnosis,
    captures: &BTreeMap<String, String>,
) -> Vec<(String, String)> {
    let mut values = vec![("verdict".to_string(), diagnosis.verdict.summary.clone())];
    problem_values(diagnosis, &mut values);
    values.push(("link_fix".into(), link_fix(diagnosis)));

    let file = captures
        .get("file")
        .cloned()
        .unwrap_or_else(|| "a file".into());
    let (reason, fix) = open_reason_and_fix(&file);
    values.push(("file".into(), file));
    values.push(("open_reason".into(), reason));
    values.push(("open_fix".into(), fix));
    values
}

/// The first problem's summary, cause and fix; for a failure no problem explains, what to read.
fn problem_values(diagnosis: &Diagnosis, values: &mut Vec<(String, String)>) {
    if let Some(problem) = diagnosis.problems.first() {
        values.push(("problem_summary".into(), problem.summary.clone()));
        values.push(("problem_cause".into(), problem.cause.clone()));
        values.push(("problem_fix".into(), problem.fix.clone()));
    } else {
        values.push(("problem_summary".into(), "the link failed".into()));
        values.push((
            "problem_cause".into(),
            "lnkfix does not recognise this linker error".into(),
        ));
        values.push((
            "problem_fix".into(),
            "read the linker's line (the evidence) and the lines above it; lnkfix diagnose LOG lists what it read".into(),
        ));
    }
}

/// The link fix in one sentence: the flags (per flavour when it is unknown) in the build
/// system's terms, or what unknown symbols mean.
fn link_fix(diagnosis: &Diagnosis) -> String {
    if !diagnosis.link_flags.is_empty() || diagnosis.link_flags_by_flavour.is_some() {
        let mut text = String::new();
        if !diagnosis.link_flags.is_empty() {
            text.push_str(&format!("add {}", diagnosis.link_flags.join(" ")));
        }
        if let Some(by) = &diagnosis.link_flags_by_flavour {
            let parts: Vec<String> = by
                .iter()
                .map(|(f, flags)| format!("for {f}: {}", flags.join(" ")))
                .collect();
            if !text.is_empty() {
                text.push_str("; ");
            }
            text.push_str(&format!(
                "the CRT flavour is not known from the log, so add the libraries of the one you build with ({})",
                parts.join("; ")
            ));
        }
        match &diagnosis.build_system {
            Some(build) if build.kind != crate::read::build_system::BuildSystem::TvmFfi => {
                text.push_str(&format!(
                    ", in {} terms: {}",
                    build.kind.name(),
                    build.fix.join("; ")
                ));
            }
            Some(_) => text.push_str(
                " to the Windows link flags in extension.py (the one list every JIT module links with)",
            ),
            None => text.push_str(
                " to the link command (in a tvm-ffi JIT build: to the Windows link flags in extension.py, the one list every JIT module links with)",
            ),
        }
        text
    } else if diagnosis.counts.unknown > 0 {
        "no library provides these symbols by rule: they are the project's own (a source file, template instantiation or export missing from the build) or from a library not searched; find the definition and add that source or library once in extension.py".into()
    } else {
        "see the diagnosis below".into()
    }
}

/// Why a file cannot be opened and what to do, by what the file is: the Python import library,
/// HIP's, a CRT or SDK library, a locked output, an object, or any other library.
fn open_reason_and_fix(file: &str) -> (String, String) {
    let lower = file.to_ascii_lowercase();
    let base = lower
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(&lower)
        .to_string();
    let crt_or_sdk = [
        "libcmt",
        "msvcrt",
        "libucrt",
        "ucrt",
        "libvcruntime",
        "vcruntime",
        "libcpmt",
        "msvcprt",
        "kernel32",
        "user32",
        "advapi32",
        "shell32",
        "oldnames",
        "uuid",
    ];
    if base.starts_with("python") && base.ends_with(".lib") {
        (
            "the Python import library is not on the library path".to_string(),
            format!("add the Python installation's libs directory (sys.base_prefix\\libs, which holds {file}) with /LIBPATH: once in extension.py's link flags"),
        )
    } else if base.starts_with("amdhip64") {
        (
            "HIP_PATH\\lib is not on the library path".to_string(),
            "add /LIBPATH:%HIP_PATH%\\lib once in extension.py's link flags (check HIP_PATH with lnkfix doctor)".to_string(),
        )
    } else if crt_or_sdk
        .iter()
        .any(|c| base.trim_end_matches(".lib") == *c)
    {
        (
            "the MSVC/Windows SDK library directories are not in LIB: the vcvars environment is missing".to_string(),
            "launch from a shell where vcvars64.bat ran (lnkfix doctor checks LIB, LIBPATH, INCLUDE), then relaunch".to_string(),
        )
    } else if [".dll", ".pyd", ".exe", ".so"]
        .iter()
        .any(|e| base.ends_with(e))
    {
        (
            "the output file is locked: a leftover process still has the module loaded".to_string(),
            "kill leftover processes (python / ft older than this attempt), relaunch".to_string(),
        )
    } else if base.ends_with(".obj") || base.ends_with(".o") {
        (
            "an object file is missing: its compile failed or was skipped".to_string(),
            "fix the compile of that object first (triage the compile output above the link)"
                .to_string(),
        )
    } else {
        (
            "it is in no /LIBPATH or LIB directory".to_string(),
            format!("add the directory that holds {file} with /LIBPATH: once in extension.py's link flags, or drop the library if it is not needed"),
        )
    }
}
