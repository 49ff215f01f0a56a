//! The zombies report as text for people: the processes (leftovers marked), what was ended and
//! deleted, what remains, and the command that ends the rest. The same process lines serve
//! `triage` and `doctor`.

use std::io::{self, Write};

use super::{LaunchCheck, ListedProcess, ZombiesReport};
use crate::output::report::Style;

/// A duration for people: `0.8 s`, `42 s`, `5 min 3 s`, `2 h 10 min`, `3 d 4 h`.
fn age(seconds: f64) -> String {
    let whole = seconds as u64;
    match whole {
        0..=9 => format!("{seconds:.1} s"),
        10..=59 => format!("{whole} s"),
        60..=3599 => format!("{} min {} s", whole / 60, whole % 60),
        3600..=86_399 => format!("{} h {} min", whole / 3600, whole % 3600 / 60),
        _ => format!("{} d {} h", whole / 86_400, whole % 86_400 / 3600),
    }
}

/// One process: its line, then what it holds and its command line, indented by `indent`.
pub fn write_process(
    out: &mut (impl Write + ?Sized),
    process: &ListedProcess,
    style: Style,
    indent: &str,
) -> io::Result<()> {
    let when = match (&process.started, process.age_seconds) {
        (Some(started), Some(seconds)) => format!("started {started} ({} ago)", age(seconds)),
        _ => "start time unknown".to_string(),
    };
    let attempt = match process.before_attempt {
        Some(true) => "before the attempt",
        Some(false) => "after the attempt began",
        None => "unknown whether before the attempt",
    };
    let mut line = format!(
        "{indent}pid {:<7} {} {when}, {attempt}",
        process.pid,
        style.bold(&process.name)
    );
    if let Some(name) = &process.matched_name {
        line.push_str(&format!(", suspect name {name}"));
    }
    if process.protected.is_some() {
        line.push_str(&format!(", {}", style.dim("an ancestor of lnkfix")));
    }
    if process.leftover {
        line.push_str(&format!("  {}", style.warn("LEFTOVER")));
    }
    writeln!(out, "{line}")?;
    for held in &process.holds {
        writeln!(out, "{indent}    holds {held}")?;
    }
    if let Some(command) = &process.command {
        writeln!(out, "{indent}    {}", style.dim(&shortened(command)))?;
    }
    Ok(())
}

/// `1 file`, `2 files`.
fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Writes the text report.
pub fn write_text(
    report: &ZombiesReport,
    out: &mut (impl Write + ?Sized),
    style: Style,
) -> io::Result<()> {
    let mut head = format!(
        "{} {}",
        style.bold("lnkfix zombies:"),
        report.paths.join(", ")
    );
    match &report.since {
        Some(since) => head.push_str(&format!(" (attempt started {since})")),
        None => head.push_str(" (no --since: leftovers cannot be told from the current run)"),
    }
    writeln!(out, "{head}")?;
    for process in &report.processes {
        write_process(out, process, style, "  ")?;
    }
    write_actions(report, out, style)?;
    for warning in &report.warnings {
        writeln!(out, "{} {warning}", style.warn("warning:"))?;
    }
    let summary = summary(report);
    let summary = if report.is_clear() {
        style.library(&summary)
    } else {
        style.warn(&summary)
    };
    writeln!(out, "{} {summary}", style.bold("lnkfix zombies:"))?;
    if let Some(fix) = &report.fix {
        writeln!(out, "{} {}", style.bold("fix:"), style.library(fix))?;
    }
    Ok(())
}

/// What was done: the processes ended and not ended, the files deleted and not deleted.
fn write_actions(
    report: &ZombiesReport,
    out: &mut (impl Write + ?Sized),
    style: Style,
) -> io::Result<()> {
    let name_of = |pid: u32| {
        report
            .processes
            .iter()
            .find(|p| p.pid == pid)
            .map_or_else(String::new, |p| format!(" {}", p.name))
    };
    for pid in &report.killed {
        writeln!(out, "{} {pid}{}", style.library("ended:"), name_of(*pid))?;
    }
    for not in &report.not_killed {
        writeln!(
            out,
            "{} {}{}: {}",
            style.warn("not ended:"),
            not.pid,
            name_of(not.pid),
            not.reason
        )?;
    }
    for path in &report.deleted {
        writeln!(out, "{} {path} (checked: gone)", style.library("deleted:"))?;
    }
    for path in &report.still_held {
        writeln!(out, "{} {path}", style.warn("still held, not deleted:"))?;
    }
    for not in &report.not_deleted {
        writeln!(
            out,
            "{} {}: {}",
            style.warn("not deleted:"),
            not.path,
            not.reason
        )?;
    }
    Ok(())
}

/// The closing sentence: nothing found, everything cleared, or what remains.
fn summary(report: &ZombiesReport) -> String {
    let remaining = report.remaining().count();
    if report.processes.is_empty() {
        "no process holds a file under these paths, and no suspect started before the attempt"
            .to_string()
    } else if remaining == 0 && report.is_clear() {
        let mut parts = Vec::new();
        if !report.killed.is_empty() {
            parts.push(format!(
                "{} ended",
                plural(report.killed.len(), "leftover", "leftovers")
            ));
        }
        if !report.deleted.is_empty() {
            parts.push(format!(
                "{} deleted",
                plural(report.deleted.len(), "file", "files")
            ));
        }
        parts.push("no leftover remains".into());
        parts.join(", ")
    } else {
        let mut parts = vec![plural(remaining, "leftover remains", "leftovers remain")];
        if !report.still_held.is_empty() || !report.not_deleted.is_empty() {
            parts.push(format!(
                "{} not deleted",
                plural(
                    report.still_held.len() + report.not_deleted.len(),
                    "file",
                    "files"
                )
            ));
        }
        parts.join(", ")
    }
}

/// The leftover check under a triage or doctor answer: the leftovers found, or why none could
/// be listed, each line indented by `indent`.
pub fn write_launch_check(
    check: &LaunchCheck,
    out: &mut (impl Write + ?Sized),
    style: Style,
    indent: &str,
) -> io::Result<()> {
    match (&check.processes, &check.error) {
        (Some(processes), _) if processes.is_empty() => writeln!(
            out,
            "{indent}no process holds a file in {} now, and no suspect started before the attempt",
            check.directory
        )?,
        (Some(processes), _) => {
            writeln!(
                out,
                "{indent}leftovers that started before the attempt ({}):",
                processes.len()
            )?;
            for process in processes {
                write_process(out, process, style, &format!("{indent}  "))?;
            }
        }
        (None, Some(error)) => writeln!(out, "{indent}leftovers not listed: {error}")?,
        (None, None) => {}
    }
    for warning in &check.warnings {
        writeln!(out, "{indent}{} {warning}", style.warn("warning:"))?;
    }
    Ok(())
}

/// The longest command line shown for people, in characters; JSON keeps the whole of it.
const COMMAND_SHOWN: usize = 240;

/// `command` cut to [`COMMAND_SHOWN`] characters, with how much was left out.
fn shortened(command: &str) -> String {
    let total = command.chars().count();
    if total <= COMMAND_SHOWN {
        return command.to_string();
    }
    let kept: String = command.chars().take(COMMAND_SHOWN).collect();
    format!(
        "{kept}... ({} more characters; --format json has all)",
        total - COMMAND_SHOWN
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ages() {
        assert_eq!(age(0.84), "0.8 s");
        assert_eq!(age(42.5), "42 s");
        assert_eq!(age(303.0), "5 min 3 s");
        assert_eq!(age(7800.0), "2 h 10 min");
        assert_eq!(age(273_600.0), "3 d 4 h");
    }

    #[test]
    fn long_command_lines_are_cut_for_people() {
        assert_eq!(shortened("python -m ft serve"), "python -m ft serve");
        let long = format!("python {}", "é".repeat(300));
        let shown = shortened(&long);
        assert!(shown.starts_with("python éé"), "{shown}");
        assert!(
            shown.ends_with("... (67 more characters; --format json has all)"),
            "{shown}"
        );
    }
}
