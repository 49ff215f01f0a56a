//! GitHub Actions workflow commands (`::error file=...,line=...,title=...::message`): one line per
//! finding, capped at what a step shows, with one summary line for the rest.

use std::io::{self, Write};

use super::{Annotation, Level};

/// Escapes the data of a workflow command: control characters, bidirectional overrides and the
/// like shown escaped as the text report shows them (they cannot drive the log viewer or hide
/// text), then `%`, CR and LF as the workflow command syntax wants.
fn escape_data(text: &str) -> String {
    crate::output::terminal::neutralise(text)
        .replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Escapes a property of a workflow command (also `:` and `,`).
fn escape_property(text: &str) -> String {
    escape_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub shows at most this many error and warning annotations of one step (and as many
/// notices); the rest would be dropped without a word.
pub const GITHUB_SHOWN: usize = 10;

/// Writes GitHub Actions workflow commands, one line per annotation: at most [`GITHUB_SHOWN`]
/// errors and warnings (the first ones, in the report's order), at most one fewer notices, then,
/// when any were left out, one notice that says how many and where to read them all.
pub fn write_github(annotations: &[Annotation], out: &mut dyn Write) -> io::Result<()> {
    let (notices, problems): (Vec<&Annotation>, Vec<&Annotation>) =
        annotations.iter().partition(|a| a.level == Level::Notice);
    let summarised = problems.len() > GITHUB_SHOWN || notices.len() > GITHUB_SHOWN;
    // The summary is a notice too: it takes the last place.
    let notices_shown = if summarised {
        notices.len().min(GITHUB_SHOWN - 1)
    } else {
        notices.len()
    };
    let shown = problems
        .iter()
        .take(GITHUB_SHOWN)
        .chain(notices.iter().take(notices_shown));
    for a in shown {
        write_workflow_command(a, out)?;
    }
    let left_problems = problems.len().saturating_sub(GITHUB_SHOWN);
    let left_notices = notices.len() - notices_shown;
    if !summarised {
        return Ok(());
    }
    let summary = Annotation {
        rule_id: "more".into(),
        level: Level::Notice,
        file: annotations.iter().find_map(|a| a.file.clone()),
        line: None,
        title: format!("{} more findings", left_problems + left_notices),
        message: format!(
            "{left_problems} more errors and warnings and {left_notices} more notices are not \
             shown here (a step shows only the first {GITHUB_SHOWN} of each): lnkfix --format \
             text or --format json lists them all"
        ),
    };
    write_workflow_command(&summary, out)
}

/// Writes one annotation as one workflow command line.
fn write_workflow_command(a: &Annotation, out: &mut dyn Write) -> io::Result<()> {
    let mut properties = Vec::new();
    if let Some(file) = &a.file {
        properties.push(format!("file={}", escape_property(file)));
    }
    if let Some(line) = a.line {
        properties.push(format!("line={line}"));
    }
    properties.push(format!("title={}", escape_property(&a.title)));
    writeln!(
        out,
        "::{} {}::{}",
        a.level.github(),
        properties.join(","),
        escape_data(&a.message)
    )
}
