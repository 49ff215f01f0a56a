//! The triage report as text for people: the answer first (stage, rule, evidence, cause, fix),
//! then what was ignored and why, then the embedded link diagnosis.

use std::io::{self, Write};

use super::{Stage, TriageReport};
use crate::output::report::{self, Style};
use crate::rules::RuleBook;

/// Writes the text report; `color` adds ANSI colours (the CLI decides from the terminal).
pub fn render_text(
    report: &TriageReport,
    out: &mut (impl Write + ?Sized),
    color: bool,
) -> io::Result<()> {
    render_text_with(report, &RuleBook::builtin(), out, color)
}

/// Like [`render_text`], with the rule book the link diagnosis was made with (for its family
/// descriptions when `--rules` added some).
pub fn render_text_with(
    report: &TriageReport,
    book: &RuleBook,
    out: &mut (impl Write + ?Sized),
    color: bool,
) -> io::Result<()> {
    let style = Style { color };
    write_head(report, out, style)?;
    write_answer(report, out, style)?;
    write_ignored(report, out, style)?;
    if let Some(diagnosis) = &report.diagnosis {
        writeln!(out, "{}", style.bold("link diagnosis:"))?;
        let mut buffer = Vec::new();
        report::write_text(diagnosis, book, &mut buffer, style)?;
        for line in String::from_utf8_lossy(&buffer).lines() {
            writeln!(out, "  {line}")?;
        }
    }
    for advice in &report.advice {
        writeln!(out, "{} {advice}", style.dim("*"))?;
    }
    for w in &report.warnings {
        writeln!(out, "{} {w}", style.warn("warning:"))?;
    }
    Ok(())
}

/// The headline (stage, rule, attempt), the attempt's note and the log's freshness.
fn write_head(
    report: &TriageReport,
    out: &mut (impl Write + ?Sized),
    style: Style,
) -> io::Result<()> {
    let stage = match report.stage {
        Stage::Success => style.library(report.stage.name()),
        Stage::Unknown => style.warn(report.stage.name()),
        _ => style.bold(report.stage.name()),
    };
    let mut head = format!("{} stage {stage}", style.bold("lnkfix triage:"));
    if let Some(rule) = &report.rule {
        head.push_str(&format!(" (rule {rule})"));
    }
    if let Some(a) = &report.attempt {
        head.push_str(&format!(
            ", attempt {} of {} (lines {}-{})",
            a.index, a.count, a.first_line, a.last_line
        ));
    }
    writeln!(out, "{head}")?;
    if let Some(note) = report.attempt.as_ref().and_then(|a| a.note.as_ref()) {
        writeln!(out, "  {}", style.warn(note))?;
    }
    if let Some(f) = &report.freshness {
        writeln!(
            out,
            "  log written {}, attempt started {}",
            f.log_modified.as_deref().unwrap_or("(unknown)"),
            f.attempt_started
        )?;
    }
    Ok(())
}

/// The answer: evidence, cause, fix, what to check then, the rule book's word, the launch check
/// and the archs on the JIT command lines.
fn write_answer(
    report: &TriageReport,
    out: &mut (impl Write + ?Sized),
    style: Style,
) -> io::Result<()> {
    if !report.evidence.is_empty() {
        writeln!(out, "{}", style.bold("evidence:"))?;
        for e in &report.evidence {
            write_lines(out, std::iter::once((e.line, e.text.as_str())))?;
            crate::commands::whence::write_raisers(e.raisers.as_deref(), out, style)?;
        }
    }
    let label = |text: &str| style.bold(&format!("{text:<12}"));
    if !report.cause.is_empty() {
        writeln!(out, "{}{}", label("cause:"), report.cause)?;
    }
    if !report.fix.is_empty() {
        writeln!(out, "{}{}", label("fix:"), style.library(&report.fix))?;
    }
    if !report.follow_up.is_empty() {
        writeln!(out, "{}{}", label("then check:"), report.follow_up)?;
    }
    if let Some(rulebook) = &report.rulebook {
        writeln!(out, "{}{}", label("rule book:"), style.dim(rulebook))?;
    }
    if let Some(check) = &report.zombies {
        crate::commands::zombies::write_launch_check(check, out, style, "")?;
    }
    if let Some(arch) = &report.arch {
        if !arch.offload_archs.is_empty() {
            writeln!(out, "{}", style.bold("archs on the JIT command lines:"))?;
            for a in &arch.offload_archs {
                let verdict = match a.intended {
                    Some(true) => "intended",
                    Some(false) => "NOT intended",
                    None => "intent unknown",
                };
                writeln!(
                    out,
                    "  {} ({verdict}), first at line {}",
                    a.arch, a.first.line
                )?;
            }
        }
    }
    Ok(())
}

/// What was set aside: the cascades of the root, and the other failures of the attempt.
fn write_ignored(
    report: &TriageReport,
    out: &mut (impl Write + ?Sized),
    style: Style,
) -> io::Result<()> {
    if !report.cascades_ignored.is_empty() {
        writeln!(
            out,
            "{}",
            style.bold("ignored cascades (symptoms of the root above):")
        )?;
        write_lines(
            out,
            report
                .cascades_ignored
                .iter()
                .map(|s| (s.line, s.text.as_str())),
        )?;
    }
    if !report.also_seen.is_empty() {
        writeln!(
            out,
            "{}",
            style.bold("also in this attempt (for later relaunches, one at a time):")
        )?;
        for s in &report.also_seen {
            writeln!(
                out,
                "  {:>6} | {} {}",
                s.line,
                style.dim(&format!("[{}]", s.rule)),
                s.text
            )?;
        }
    }
    Ok(())
}

/// Numbered log lines, indented.
fn write_lines<'a>(
    out: &mut (impl Write + ?Sized),
    lines: impl Iterator<Item = (u64, &'a str)>,
) -> io::Result<()> {
    for (number, text) in lines {
        writeln!(out, "  {number:>6} | {text}")?;
    }
    Ok(())
}
