//! Reports: the diagnosis as text for people (grouped by library, coloured only when asked) and
//! as JSON for tools (the schema is documented in docs/GUIDE.md).

use std::collections::BTreeMap;
use std::io::{self, Write};

use crate::fix::verify::winargs;
use crate::problems::problem::{Problem, ProblemKind};
use crate::resolve::{Diagnosis, ResolvedSymbol, VerdictKind};
use crate::rules::RuleBook;

/// ANSI styling, off unless the binary decided the output is a colour terminal.
#[derive(Debug, Clone, Copy, Default)]
pub struct Style {
    /// Whether to emit colour escapes.
    pub color: bool,
}

impl Style {
    fn paint(&self, style: anstyle::Style, text: &str) -> String {
        if self.color {
            format!("{style}{text}{style:#}")
        } else {
            text.to_string()
        }
    }
    /// Bold.
    pub fn bold(&self, text: &str) -> String {
        self.paint(anstyle::Style::new().bold(), text)
    }
    /// Bold green: a library to link.
    pub fn library(&self, text: &str) -> String {
        self.paint(
            anstyle::Style::new()
                .bold()
                .fg_color(Some(anstyle::AnsiColor::Green.into())),
            text,
        )
    }
    /// Yellow: warnings and unknowns.
    pub fn warn(&self, text: &str) -> String {
        self.paint(
            anstyle::Style::new().fg_color(Some(anstyle::AnsiColor::Yellow.into())),
            text,
        )
    }
    /// Dim: secondary detail.
    pub fn dim(&self, text: &str) -> String {
        self.paint(anstyle::Style::new().dimmed(), text)
    }
}

/// Quotes a linker argument for a Windows command line when it holds spaces, tabs, line ends or
/// quotes: the one Windows quoter, [`crate::fix::verify::winargs::quote_argument`] (the C runtime's
/// rules, which `--verify` runs commands by), as an owned string for callers that keep it.
pub fn quote_windows_argument(argument: &str) -> String {
    winargs::quote_argument(argument).into_owned()
}

fn symbol_line(symbol: &ResolvedSymbol) -> String {
    let s = &symbol.symbol;
    let import = if s.import {
        "__declspec(dllimport) "
    } else {
        ""
    };
    let mut line = format!("{import}{}", s.demangled());
    let linker = s
        .linker_name()
        .or(symbol.matched_name.as_deref())
        .unwrap_or(s.name());
    if linker != s.demangled()
        && linker != s.name().trim_start_matches("__declspec(dllimport) ")
        && linker != s.name()
    {
        line.push_str(&format!("  [{linker}]"));
    }
    line
}

fn references_line(symbol: &ResolvedSymbol) -> Option<String> {
    let s = &symbol.symbol;
    if s.entry_point {
        return Some("the entry point (the linker itself asks for it)".into());
    }
    let shown: Vec<String> = s
        .references
        .iter()
        .take(3)
        .map(|r| match (&r.object, &r.function) {
            (Some(o), Some(f)) => format!("{o} in {f}"),
            (Some(o), None) => o.to_string(),
            (None, Some(f)) => f.to_string(),
            (None, None) => String::new(),
        })
        .collect();
    if shown.is_empty() {
        return None;
    }
    let more = s.references.len().saturating_sub(3);
    let mut text = shown.join("; ");
    if more > 0 {
        text.push_str(&format!("; and {more} more"));
    }
    Some(text)
}

/// Writes the text report: the problems first (headline, cause, fix, evidence lines, what is
/// involved), then the unresolved symbols grouped by library, the flags to append, the other
/// findings and the warnings. A log whose only problem is unresolved symbols reads as before the
/// other classes existed: the verdict, then the symbols.
pub fn write_text(
    diagnosis: &Diagnosis,
    book: &RuleBook,
    out: &mut dyn Write,
    style: Style,
) -> io::Result<()> {
    let others: Vec<&Problem> = diagnosis
        .problems
        .iter()
        .filter(|p| p.kind != ProblemKind::Unresolved)
        .collect();
    let unresolved = diagnosis
        .problems
        .iter()
        .any(|p| p.kind == ProblemKind::Unresolved);
    let headline = headline(diagnosis, &others, unresolved);
    writeln!(out, "{} {}", style.bold("lnkfix:"), style.bold(&headline))?;
    for (at, problem) in others.iter().enumerate() {
        write_problem(
            diagnosis,
            problem,
            others.len() > 1 || unresolved,
            at + 1,
            out,
            style,
        )?;
    }
    if !diagnosis.unrecognised.is_empty() {
        writeln!(out, "{}", style.dim("the lines that show it:"))?;
        for (line, text) in &diagnosis.unrecognised {
            writeln!(out, "  line {line}: {text}")?;
        }
    }
    if others.is_empty() && !unresolved {
        write_read_summary(diagnosis, out, style)?;
    }
    if !unresolved || diagnosis.verdict.kind == VerdictKind::NothingUnresolved {
        write_findings(diagnosis, out, style)?;
        return write_warnings(diagnosis, out, style);
    }
    if !others.is_empty() {
        writeln!(out)?;
        writeln!(
            out,
            "{}",
            style.bold(&format!(
                "Unresolved symbols: {}",
                diagnosis.verdict.summary
            ))
        )?;
    }

    // The CRT line: flavour, evidence, conflicts (only when a CRT library is in question).
    let crt_matters = diagnosis.crt.flavour.is_some()
        || !diagnosis.crt.evidence.is_empty()
        || diagnosis
            .symbols
            .iter()
            .any(|s| s.libraries_by_flavour().is_some());
    if crt_matters {
        write_crt(diagnosis, out, style)?;
    }
    writeln!(out)?;
    let entry_problem = others.iter().any(|p| p.kind == ProblemKind::EntryPoint);
    write_groups(diagnosis, book, entry_problem, out, style)?;
    write_chain_and_flags(diagnosis, out, style)?;
    write_build_system_fix(diagnosis, out, style)?;
    write_findings(diagnosis, out, style)?;
    write_warnings(diagnosis, out, style)
}

/// The report's first line: the verdict when unresolved symbols are the only problem, the one
/// problem's headline, or the count of problems by kind.
fn headline(diagnosis: &Diagnosis, others: &[&Problem], unresolved: bool) -> String {
    match (others, unresolved) {
        ([], true) => diagnosis.verdict.summary.clone(),
        ([], false) if diagnosis.link_failed => {
            "the link failed, and lnkfix does not recognise how (the linker's own lines are below)"
                .to_string()
        }
        ([], false) => {
            "no link failure in the log: no unresolved symbols, no linker error".to_string()
        }
        ([one], false) => format!("{}: {}", one.kind.title(), one.summary),
        _ => {
            let mut kinds: Vec<(&str, usize)> = Vec::new();
            for p in &diagnosis.problems {
                match kinds.iter_mut().find(|(k, _)| *k == p.kind.title()) {
                    Some((_, n)) => *n += 1,
                    None => kinds.push((p.kind.title(), 1)),
                }
            }
            let kinds: Vec<String> = kinds
                .iter()
                .map(|(k, n)| {
                    if *n == 1 {
                        k.to_string()
                    } else {
                        format!("{k} ({n})")
                    }
                })
                .collect();
            format!(
                "{} problems: {}",
                diagnosis.problems.len(),
                kinds.join("; ")
            )
        }
    }
}

/// Where the directory of `library_path` came from (`LIB`, `CUDA_PATH`, `python
/// (VIRTUAL_ENV=DIR): torch/lib`), when it is one of the directories searched.
fn found_by<'a>(diagnosis: &'a Diagnosis, library_path: &str) -> Option<&'a str> {
    let parent = std::path::Path::new(library_path).parent()?;
    diagnosis
        .searched_dirs
        .iter()
        .find(|dir| dir.path == parent)
        .map(|dir| dir.origin.as_str())
}

/// The group a symbol is shown under: its library (rank 0), its per-flavour libraries (1), why
/// no library is offered (2), or unknown (3).
fn group_key(symbol: &ResolvedSymbol, book: &RuleBook) -> (u8, String) {
    match (&symbol.library, symbol.libraries_by_flavour()) {
        (Some(l), _) => (0, l.clone()),
        (None, Some(by)) => (
            1,
            by.iter()
                .map(|(f, l)| format!("{l} ({})", f.compiler_option()))
                .collect::<Vec<_>>()
                .join(" or "),
        ),
        (None, None) if symbol.own_output().is_some() => (
            2,
            format!(
                "names of {} itself, which this link builds: no library to add",
                symbol.own_output().map_or("", |o| o.library.as_str())
            ),
        ),
        (None, None) if symbol.not_exported_by().is_some() => (
            2,
            format!(
                "not exported by {} (internal): no library to add",
                symbol.not_exported_by().unwrap_or_default()
            ),
        ),
        (None, None) if book.family(&symbol.family).is_some_and(|f| f.no_library) => {
            (2, format!("{} (no library defines it)", symbol.family))
        }
        (None, None) if symbol.family != "unknown" => {
            (2, format!("{} (library unknown)", symbol.family))
        }
        _ => (3, "unknown".to_string()),
    }
}

/// The unresolved symbols grouped by library (or by the per-flavour alternatives, or unknown),
/// each group under its library, family and where it was found. Names another problem explains
/// are shown with that problem instead.
fn write_groups(
    diagnosis: &Diagnosis,
    book: &RuleBook,
    entry_problem: bool,
    out: &mut dyn Write,
    style: Style,
) -> io::Result<()> {
    let mut groups: BTreeMap<(u8, String), Vec<&ResolvedSymbol>> = BTreeMap::new();
    for symbol in diagnosis
        .symbols
        .iter()
        .filter(|s| s.explained_by().is_none() && !(entry_problem && s.family == "entry-point"))
    {
        groups
            .entry(group_key(symbol, book))
            .or_default()
            .push(symbol);
    }
    for ((rank, title), symbols) in &groups {
        let first = symbols[0];
        let header = if *rank == 3 {
            style.warn("not known to any rule, table or library searched")
        } else {
            let mut h = style.library(title);
            let family = book
                .family(&first.family)
                .map(|f| f.description.clone())
                .unwrap_or_else(|| first.family.to_string());
            h.push_str(&format!(
                "  {}",
                style.dim(&format!(
                    "{family}; {}",
                    first.source.as_deref().unwrap_or("")
                ))
            ));
            if let Some(path) = &first.library_path {
                let found = match found_by(diagnosis, path) {
                    Some(source) => format!("found at {path} (from {source})"),
                    None => format!("found at {path}"),
                };
                h.push_str(&format!("\n  {}", style.dim(&found)));
            }
            h
        };
        writeln!(out, "{header}")?;
        for symbol in symbols {
            write_symbol(symbol, out, style)?;
        }
        writeln!(out)?;
    }

    Ok(())
}

/// One unresolved symbol of a group: its line, who references it, the notes on it, the member
/// that defines it, the other libraries that do, near misses and the linker's hints.
/// Long because it writes those parts in the order the report shows them, a few lines each.
fn write_symbol(symbol: &ResolvedSymbol, out: &mut dyn Write, style: Style) -> io::Result<()> {
    let dll = symbol
        .dll
        .as_deref()
        .map(|d| format!("  ({d})"))
        .unwrap_or_default();
    writeln!(out, "  {}{}", symbol_line(symbol), style.dim(&dll))?;
    if let Some(refs) = references_line(symbol) {
        writeln!(out, "      {} {}", style.dim("referenced by"), refs)?;
    }
    if let Some(note) = symbol.rulebook_differs() {
        writeln!(out, "      {} {}", style.dim("note:"), note)?;
    }
    if let Some(note) = &symbol.index_differs {
        writeln!(out, "      {} {}", style.dim("note:"), note)?;
    }
    if let Some(note) = symbol
        .match_note
        .as_ref()
        .filter(|n| !n.starts_with("matched by demangled name"))
    {
        writeln!(out, "      {} {}", style.dim("note:"), note)?;
    }
    if symbol.not_found_on_disk && symbol.family != "unknown" {
        writeln!(
            out,
            "      {}",
            style.warn("rule, not found on disk: no library searched defines it")
        )?;
    }
    if let Some(member) = symbol
        .member
        .as_ref()
        .filter(|m| Some(*m) != symbol.dll.as_ref())
    {
        writeln!(out, "      {} {}", style.dim("defined in member"), member)?;
    }
    if !symbol.alternatives.is_empty() {
        let names: Vec<&str> = symbol
            .alternatives
            .iter()
            .take(4)
            .map(|a| a.library.as_str())
            .collect();
        let more = symbol.alternatives.len().saturating_sub(4);
        let more = if more > 0 {
            format!(" and {more} more")
        } else {
            String::new()
        };
        writeln!(
            out,
            "      {} {}{more}",
            style.dim("also in"),
            names.join(", ")
        )?;
    }
    for miss in &symbol.near_misses {
        writeln!(out, "      {} {}", style.warn("near miss:"), miss.cause)?;
        writeln!(out, "        wanted:  {}", miss.wanted)?;
        writeln!(
            out,
            "        defined: {}  [{}]  in {}",
            miss.found, miss.found_name, miss.library
        )?;
    }
    for hint in &symbol.symbol.hints {
        let hint = hint
            .display
            .clone()
            .or_else(|| hint.decorated.clone())
            .unwrap_or_default();
        writeln!(
            out,
            "      {} {}",
            style.dim("defined and could match:"),
            hint
        )?;
    }
    Ok(())
}

/// The whole default-library chain, when it is missing, and the flags to append (one line per
/// flavour when the CRT flavour is unknown).
fn write_chain_and_flags(
    diagnosis: &Diagnosis,
    out: &mut dyn Write,
    style: Style,
) -> io::Result<()> {
    if let Some(chain) = &diagnosis.chain {
        writeln!(
            out,
            "{}",
            style.bold("The default-library chain is missing; link all of it explicitly:")
        )?;
        writeln!(out, "  {}", chain.join(" "))?;
        writeln!(out)?;
    }
    if let Some(by) = &diagnosis.link_flags_by_flavour {
        // The flavour is unknown: one labelled line per flavour, each pasteable as is.
        writeln!(
            out,
            "{}",
            style.bold("Append to the link command (the CRT flavour is unknown: use the line for how the project compiles; --crt or --objects DIR decides):")
        )?;
        for (flavour, flags) in by {
            let flags: Vec<String> = flags.iter().map(|f| quote_windows_argument(f)).collect();
            let kind = if flavour.is_dynamic() {
                "the DLL CRT"
            } else {
                "the static CRT"
            };
            writeln!(
                out,
                "  if the project builds with {} ({kind}):",
                flavour.compiler_option()
            )?;
            writeln!(out, "    {}", style.library(&flags.join(" ")))?;
        }
        writeln!(out)?;
    } else if !diagnosis.link_flags.is_empty() {
        writeln!(out, "{}", style.bold("Append to the link command:"))?;
        let flags: Vec<String> = diagnosis
            .link_flags
            .iter()
            .map(|f| quote_windows_argument(f))
            .collect();
        writeln!(out, "  {}", style.library(&flags.join(" ")))?;
        writeln!(out)?;
    }
    Ok(())
}

/// The fix in the build system's terms, when the log shows which one drives the link.
fn write_build_system_fix(
    diagnosis: &Diagnosis,
    out: &mut dyn Write,
    style: Style,
) -> io::Result<()> {
    if let Some(build) = &diagnosis.build_system {
        if !build.fix.is_empty() {
            writeln!(
                out,
                "{} (recognised from line {}: {}):",
                style.bold(&format!("In {} terms", build.kind.name())),
                build.line,
                build.evidence
            )?;
            for line in &build.fix {
                writeln!(out, "  {line}")?;
            }
            writeln!(out)?;
        }
    }
    Ok(())
}

/// The CRT flavour, its first six pieces of evidence, a conflict and the notes.
fn write_crt(diagnosis: &Diagnosis, out: &mut dyn Write, style: Style) -> io::Result<()> {
    match diagnosis.crt.flavour {
        Some(f) => writeln!(out, "CRT flavour: {f}")?,
        None => writeln!(out, "CRT flavour: unknown")?,
    }
    for e in diagnosis.crt.evidence.iter().take(6) {
        let at = e.line.map(|l| format!(" (line {l})")).unwrap_or_default();
        writeln!(
            out,
            "  {} {}: {}{at}",
            style.dim("evidence"),
            e.source,
            e.detail
        )?;
    }
    if diagnosis.crt.evidence.len() > 6 {
        writeln!(
            out,
            "  {}",
            style.dim(&format!(
                "... and {} more pieces of evidence",
                diagnosis.crt.evidence.len() - 6
            ))
        )?;
    }
    if let Some(conflict) = &diagnosis.crt.conflict {
        writeln!(out, "  {}", style.warn(conflict))?;
    }
    for note in &diagnosis.crt.notes {
        writeln!(out, "  {}", style.dim(note))?;
    }
    Ok(())
}

/// One problem: its headline, cause, fix, warning, notes, evidence lines, table and subjects.
fn write_problem(
    diagnosis: &Diagnosis,
    problem: &Problem,
    numbered: bool,
    number: usize,
    out: &mut dyn Write,
    style: Style,
) -> io::Result<()> {
    writeln!(out)?;
    if numbered {
        writeln!(
            out,
            "{}",
            style.bold(&format!(
                "{number}. {}: {}",
                problem.kind.title(),
                problem.summary
            ))
        )?;
    }
    writeln!(out, "  {} {}", style.dim("cause:"), problem.cause)?;
    writeln!(
        out,
        "  {} {}",
        style.bold("fix:  "),
        style.library(&problem.fix)
    )?;
    if let Some(warning) = &problem.warning {
        writeln!(out, "  {} {warning}", style.warn("warning:"))?;
    }
    for note in &problem.notes {
        writeln!(out, "  {} {note}", style.dim("note:"))?;
    }
    write_problem_lines(diagnosis, problem, out, style)?;
    write_problem_table(problem, out, style)?;
    if !problem.subjects.is_empty() {
        let shown: Vec<&str> = problem
            .subjects
            .iter()
            .take(10)
            .map(String::as_str)
            .collect();
        let more = problem.subjects.len().saturating_sub(10);
        writeln!(
            out,
            "  {} {}{}",
            style.dim("involved:"),
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )?;
    }
    Ok(())
}

/// A problem's evidence: its first six lines as the log shows them.
fn write_problem_lines(
    diagnosis: &Diagnosis,
    problem: &Problem,
    out: &mut dyn Write,
    style: Style,
) -> io::Result<()> {
    if !problem.lines.is_empty() {
        writeln!(out, "  {}", style.dim("evidence:"))?;
        for line in problem.lines.iter().take(6) {
            writeln!(
                out,
                "    line {line}: {}",
                evidence_text(diagnosis, problem, *line)
            )?;
        }
        if problem.lines.len() > 6 {
            writeln!(out, "    ... and {} more lines", problem.lines.len() - 6)?;
        }
    }
    Ok(())
}

/// A problem's table of what was seen (the first twelve rows), its subjects aligned.
fn write_problem_table(problem: &Problem, out: &mut dyn Write, style: Style) -> io::Result<()> {
    if !problem.table.is_empty() {
        writeln!(out, "  {}", style.dim("seen:"))?;
        let width = problem
            .table
            .iter()
            .take(12)
            .map(|r| r.subject.chars().count())
            .max()
            .unwrap_or(0);
        for row in problem.table.iter().take(12) {
            let flavour = row
                .flavour
                .map(|f| format!("  {}", f.compiler_option()))
                .unwrap_or_default();
            writeln!(
                out,
                "    {:<width$}  {} {}{flavour}",
                row.subject, row.key, row.value
            )?;
        }
        if problem.table.len() > 12 {
            writeln!(out, "    ... and {} more", problem.table.len() - 12)?;
        }
    }
    Ok(())
}

/// What was read, when nothing unresolved was found, and the link-looking lines not read.
fn write_read_summary(diagnosis: &Diagnosis, out: &mut dyn Write, style: Style) -> io::Result<()> {
    let Some(read) = &diagnosis.read else {
        return Ok(());
    };
    writeln!(out, "  {}", read.message)?;
    for unread in &read.unread {
        writeln!(
            out,
            "  {} line {}: {}",
            style.dim("not a record:"),
            unread.line,
            unread.text
        )?;
        writeln!(out, "      {}", style.dim(unread.reason.as_str()))?;
    }
    let more = read
        .unread_link_lines
        .saturating_sub(read.unread.len() as u64);
    if more > 0 {
        writeln!(out, "  ... and {more} more link-looking lines not read")?;
    }
    Ok(())
}

/// What the log says on a line: the record lnkfix read there, or the line itself.
fn evidence_text(diagnosis: &Diagnosis, problem: &Problem, line: u64) -> String {
    if let Some((_, text)) = problem.line_texts.iter().find(|(l, _)| *l == line) {
        let short: String = text.chars().take(160).collect();
        return if short.len() < text.len() {
            format!("{short} ...")
        } else {
            short
        };
    }
    if let Some(f) = diagnosis.findings.iter().find(|f| f.line == line) {
        return format!("{} {}", f.code, f.text);
    }
    if let Some(s) = diagnosis
        .symbols
        .iter()
        .find(|s| s.symbol.first_line == line)
    {
        return format!("unresolved {}", s.symbol.name());
    }
    "(the line that shows it)".into()
}

fn write_findings(diagnosis: &Diagnosis, out: &mut dyn Write, style: Style) -> io::Result<()> {
    // Findings a problem explains were shown with it.
    let shown: Vec<u64> = diagnosis
        .problems
        .iter()
        .flat_map(|p| p.lines.iter().copied())
        .collect();
    let rest: Vec<&crate::read::linklog::Finding> = diagnosis
        .findings
        .iter()
        .filter(|f| !shown.contains(&f.line))
        .collect();
    if rest.is_empty() {
        return Ok(());
    }
    writeln!(out)?;
    writeln!(out, "{}", style.bold("Other linker findings:"))?;
    for f in rest.iter().take(20) {
        writeln!(out, "  line {}: {} {}", f.line, f.code, f.text)?;
    }
    if rest.len() > 20 {
        writeln!(out, "  ... and {} more", rest.len() - 20)?;
    }
    Ok(())
}

fn write_warnings(diagnosis: &Diagnosis, out: &mut dyn Write, style: Style) -> io::Result<()> {
    for w in &diagnosis.warnings {
        writeln!(out, "{} {w}", style.warn("warning:"))?;
    }
    Ok(())
}

/// Writes the JSON report (one document, pretty-printed, newline-terminated).
pub fn write_json(diagnosis: &Diagnosis, out: &mut dyn Write) -> io::Result<()> {
    crate::output::terminal::write_json(diagnosis, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_quoting() {
        assert_eq!(quote_windows_argument("kernel32.lib"), "kernel32.lib");
        assert_eq!(
            quote_windows_argument("/LIBPATH:C:\\Program Files\\AMD\\ROCm\\6.4\\lib\\"),
            "\"/LIBPATH:C:\\Program Files\\AMD\\ROCm\\6.4\\lib\\\\\""
        );
        assert_eq!(quote_windows_argument("a\"b c"), "\"a\\\"b c\"");
    }
}
