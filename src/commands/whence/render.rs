//! The `whence` report: text for people (best candidate first, what ties it to the message),
//! JSON for tools (the schema in docs/GUIDE.md).

use std::io::{self, Write};

use super::{Candidate, Location, Raises, WhenceReport};
use crate::output::report::Style;

/// A candidate's one-line location: `triton/runtime/jit.py:557 in run`.
pub fn location_line(candidate: &Candidate) -> String {
    match &candidate.function {
        Some(function) => format!("{}:{} in {function}", candidate.path, candidate.line),
        None => format!("{}:{} (module level)", candidate.path, candidate.line),
    }
}

/// The evidence in words.
pub fn evidence_words(candidate: &Candidate, message_type: Option<&str>) -> String {
    let mut parts = Vec::new();
    let exception = candidate.exception.as_deref().unwrap_or("an exception");
    match candidate.raises {
        Raises::OnLine => parts.push(format!("raises {exception} there")),
        Raises::Nearby => parts.push(format!("raises {exception} just after")),
        Raises::InExceptionClass => parts.push(format!(
            "built by the exception class {}",
            candidate.class.as_deref().unwrap_or(exception)
        )),
        Raises::No => parts.push("no raise seen".into()),
    }
    for tag in &candidate.evidence {
        match *tag {
            "exception-type-matches" => parts.push(format!(
                "the message's type ({})",
                message_type.unwrap_or(exception)
            )),
            "module-matches" => parts.push("the message's module".into()),
            "package-matches" => parts.push("the message's package".into()),
            "whole-message" => parts.push("produces the whole message".into()),
            "completed-by-exception-class" => parts.push(format!(
                "formatted by {}",
                candidate
                    .formatted_by
                    .as_deref()
                    .unwrap_or("its exception class")
            )),
            _ => {}
        }
    }
    parts.join("; ")
}

/// Writes the text report.
pub fn write_text(report: &WhenceReport, out: &mut dyn Write, style: Style) -> io::Result<()> {
    let result = &report.result;
    let message = &result.message;
    let kind = match (&message.module, &message.exception) {
        (Some(module), Some(exception)) => format!("{module}.{exception}: "),
        (None, Some(exception)) => format!("{exception}: "),
        _ => String::new(),
    };
    writeln!(
        out,
        "{} {kind}{}",
        style.bold("lnkfix whence:"),
        message.text
    )?;
    let dirs: Vec<String> = report
        .sources
        .dirs
        .iter()
        .map(|d| crate::output::terminal::path_text(&d.path).into_owned())
        .collect();
    writeln!(
        out,
        "  {} {} ({}): {}",
        style.dim("searched"),
        report.sources.origin,
        plural(report.stats.files_scanned, "Python file"),
        dirs.join(", ")
    )?;
    if result.prefilter.is_empty() {
        writeln!(
            out,
            "{}",
            style.warn("the message has no run of plain words to look for (it is all values): nothing searched")
        )?;
        return write_warnings(report, out, style);
    }
    if result.candidates.is_empty() {
        writeln!(
            out,
            "{} no string in them formats this message (looked for: {})",
            style.warn("not found:"),
            quoted(&result.prefilter)
        )?;
        writeln!(out, "  the code may be compiled (C, C++, Cython) or outside the directories searched; try --site-packages DIR or --python EXE")?;
        return write_warnings(report, out, style);
    }
    let shown = result.candidates.iter().take(report.limit);
    for (rank, candidate) in shown.enumerate() {
        write_candidate(
            rank + 1,
            candidate,
            message.exception.as_deref(),
            out,
            style,
        )?;
    }
    let more = result.candidates.len().saturating_sub(report.limit);
    if more > 0 {
        writeln!(out, "  ... and {more} more (--limit N shows them)")?;
    }
    write_warnings(report, out, style)
}

/// One candidate: where, the source line, what it explains, why, and the file.
fn write_candidate(
    rank: usize,
    candidate: &Candidate,
    message_type: Option<&str>,
    out: &mut dyn Write,
    style: Style,
) -> io::Result<()> {
    let class = candidate
        .class
        .as_deref()
        .map(|c| format!(" (class {c})"))
        .unwrap_or_default();
    let below = match candidate.location {
        Location::Source => String::new(),
        Location::Vendored => "  [vendored]".into(),
        Location::Tests => "  [tests]".into(),
        Location::Docs => "  [docs]".into(),
    };
    writeln!(
        out,
        "{rank}. {}{class}{}",
        style.library(&location_line(candidate)),
        style.dim(&below)
    )?;
    writeln!(out, "     {}", candidate.text)?;
    writeln!(
        out,
        "     explains {:.0}% of the message: {}",
        candidate.explains * 100.0,
        candidate.template
    )?;
    writeln!(out, "     {}", evidence_words(candidate, message_type))?;
    writeln!(
        out,
        "     {}",
        style.dim(&crate::output::terminal::path_text(&candidate.file))
    )
}

fn write_warnings(report: &WhenceReport, out: &mut dyn Write, style: Style) -> io::Result<()> {
    for missing in &report.sources.missing {
        writeln!(
            out,
            "{} {}: named by the interpreter, does not exist",
            style.dim("note:"),
            crate::output::terminal::path_text(missing)
        )?;
    }
    if report.stats.files_skipped > 0 {
        writeln!(
            out,
            "{} {} skipped (over {} MiB, or not text)",
            style.dim("note:"),
            plural(report.stats.files_skipped, "file"),
            super::MAX_FILE_BYTES >> 20
        )?;
    }
    for warning in &report.stats.warnings {
        writeln!(out, "{} {warning}", style.warn("warning:"))?;
    }
    Ok(())
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

fn quoted(fragments: &[String]) -> String {
    fragments
        .iter()
        .map(|f| format!("{f:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The raisers of a triage evidence line, under it: `raised at PATH:LINE in FUNCTION`.
pub fn write_raisers(
    raisers: Option<&[Candidate]>,
    out: &mut (impl Write + ?Sized),
    style: Style,
) -> io::Result<()> {
    let Some(raisers) = raisers else {
        return Ok(());
    };
    if raisers.is_empty() {
        return writeln!(
            out,
            "           {}",
            style.dim("raiser: no string in the sources searched formats this message")
        );
    }
    for candidate in raisers {
        writeln!(
            out,
            "           raised at {} {}",
            style.library(&location_line(candidate)),
            style.dim(&format!(
                "(explains {:.0}%; {}; {})",
                candidate.explains * 100.0,
                evidence_words(candidate, None),
                crate::output::terminal::path_text(&candidate.file)
            ))
        )?;
    }
    Ok(())
}

/// Writes the JSON report (one document, pretty-printed, newline-terminated).
pub fn write_json(report: &WhenceReport, out: &mut dyn Write) -> io::Result<()> {
    let result = &report.result;
    let value = serde_json::json!({
        "schema_version": 1,
        "message": result.message.given,
        "message_text": result.message.text,
        "exception": result.message.exception,
        "module": result.message.module,
        "searched": report.sources.dirs.iter().map(|d| crate::output::terminal::path_text(&d.path).into_owned()).collect::<Vec<_>>(),
        "searched_kinds": report.sources.dirs.iter().map(|d| d.kind).collect::<Vec<_>>(),
        "searched_from": report.sources.origin,
        "files_scanned": report.stats.files_scanned,
        "bytes_scanned": report.stats.bytes_scanned,
        "files_matched": report.stats.files_matched,
        "files_skipped": report.stats.files_skipped,
        "passes": report.stats.passes,
        "prefilter": result.prefilter,
        "candidates": result.candidates.iter().take(report.limit).collect::<Vec<_>>(),
        "candidates_total": result.candidates.len(),
        "warnings": report.stats.warnings,
    });
    crate::output::terminal::write_json(&value, out)
}
