//! `lnkfix man`: the manual pages in roff, `lnkfix.1` and one `lnkfix-COMMAND.1` per command.
//! clap_mangen renders what the clap definitions say (name, synopsis, description, the options
//! under the help's headings); each page then gets its exit status, environment and examples
//! from [`crate::manual`].

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use clap_mangen::roff::{bold, roman, Roff};
use clap_mangen::Man;

use crate::manual;

/// A page that could not be written, or a directory that could not be made.
#[derive(Debug, thiserror::Error)]
#[error("{}: cannot write: {source}", path.display())]
pub(crate) struct ManError {
    path: PathBuf,
    source: io::Error,
}

/// The command line the pages describe: every command, without clap's own `help` command (it has
/// no page).
fn command() -> clap::Command {
    let mut command =
        <crate::cli::Cli as clap::CommandFactory>::command().disable_help_subcommand(true);
    command.build();
    command
}

/// The top page, `lnkfix.1`, as `lnkfix man` prints it.
pub(crate) fn top_page() -> String {
    page(&command(), "").1
}

/// Every page, the top one first: its file name and its text.
pub(crate) fn pages() -> Vec<(String, String)> {
    let top = command();
    let mut pages = vec![page(&top, "")];
    pages.extend(top.get_subcommands().map(|sub| page(sub, sub.get_name())));
    pages
}

/// Writes every page into `dir` (made when missing); returns the files written.
pub(crate) fn write_pages(dir: &Path) -> Result<Vec<PathBuf>, ManError> {
    std::fs::create_dir_all(dir).map_err(|source| ManError {
        path: dir.to_path_buf(),
        source,
    })?;
    pages()
        .into_iter()
        .map(|(file, text)| {
            let path = dir.join(file);
            std::fs::write(&path, text)
                .map(|()| path.clone())
                .map_err(|source| ManError { path, source })
        })
        .collect()
}

/// The page of `cmd`, whose name is `name` ("" for the top level): its file name and its text.
fn page(cmd: &clap::Command, name: &str) -> (String, String) {
    let man = Man::new(cmd.clone()).source(format!("lnkfix {}", env!("CARGO_PKG_VERSION")));
    let mut text = rendered(|w| man.render_title(w));
    for section in [
        rendered(|w| man.render_name_section(w)),
        rendered(|w| man.render_synopsis_section(w)),
        rendered(|w| man.render_description_section(w)),
        options(cmd, rendered(|w| man.render_options_section(w))),
    ] {
        text.push_str(without_preamble(&section));
    }
    if name.is_empty() {
        text.push_str(without_preamble(&rendered(|w| {
            man.render_subcommands_section(w)
        })));
    }
    text.push_str(without_preamble(&rendered(|w| sections(name).to_writer(w))));
    if name.is_empty() {
        text.push_str(without_preamble(&rendered(|w| {
            man.render_version_section(w)
        })));
    }
    (man.get_filename(), text)
}

/// What `render` writes, as text (writing into memory cannot fail; a failure would leave the
/// text short, never stop the program).
fn rendered(render: impl FnOnce(&mut dyn Write) -> io::Result<()>) -> String {
    let mut out = Vec::new();
    let _ = render(&mut out);
    String::from_utf8_lossy(&out).into_owned()
}

/// `section` without the two lines that define the apostrophe string: each rendering starts
/// with them, and the page needs them once, at its top.
fn without_preamble(section: &str) -> &str {
    let mut rest = section;
    for start in [".ie \\n(.g .ds Aq", ".el .ds Aq"] {
        if rest.starts_with(start) {
            rest = rest.split_once('\n').map_or("", |(_, after)| after);
        }
    }
    rest
}

/// The options section: one OPTIONS section, each of the help's headings a subsection in it
/// (clap_mangen makes each heading a section of its own).
fn options(cmd: &clap::Command, section: String) -> String {
    let mut headings: Vec<&str> = Vec::new();
    for heading in cmd.get_arguments().filter_map(|arg| arg.get_help_heading()) {
        if !headings.contains(&heading) {
            headings.push(heading);
        }
    }
    let mut out = String::new();
    let body = without_preamble(&section);
    if !body.starts_with(".SH OPTIONS\n") {
        out.push_str(".SH OPTIONS\n");
    }
    for line in body.lines() {
        let heading = headings.iter().find(|h| {
            let upper = h.to_uppercase();
            line == format!(".SH {upper}") || line == format!(".SH \"{upper}\"")
        });
        match heading {
            Some(heading) => out.push_str(&format!(".SS \"{heading}\"\n")),
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// EXIT STATUS, ENVIRONMENT, EXAMPLES and (on a command's page) SEE ALSO for the command `name`.
fn sections(name: &str) -> Roff {
    let mut roff = Roff::new();
    roff.control("SH", ["EXIT STATUS"]);
    for (code, meaning) in manual::exit_codes(name) {
        roff.control("TP", []);
        roff.text([bold(code.to_string())]);
        roff.text([roman(*meaning)]);
    }
    roff.control("SH", ["ENVIRONMENT"]);
    let variables = manual::environment(name);
    if variables.is_empty() {
        roff.text([roman("This command reads no environment variable.")]);
    }
    for (names, meaning) in variables {
        roff.control("TP", []);
        roff.text([bold(names)]);
        roff.text([roman(meaning)]);
    }
    roff.control("SH", ["EXAMPLES"]);
    for (line, what) in manual::examples(name) {
        roff.control("TP", []);
        roff.text([bold(*line)]);
        roff.text([roman(*what)]);
    }
    if !name.is_empty() {
        roff.control("SH", ["SEE ALSO"]);
        roff.text([bold("lnkfix"), roman("(1)")]);
    }
    roff
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_page_per_command_with_every_section() {
        let pages = pages();
        let names: Vec<&str> = pages.iter().map(|(file, _)| file.as_str()).collect();
        assert_eq!(names[0], "lnkfix.1");
        assert!(names.contains(&"lnkfix-diagnose.1"), "{names:?}");
        assert!(!names.contains(&"lnkfix-help.1"), "{names:?}");
        for (file, text) in &pages {
            for section in [
                ".SH OPTIONS",
                ".SH \"EXIT STATUS\"",
                ".SH ENVIRONMENT",
                ".SH EXAMPLES",
            ] {
                assert_eq!(text.matches(section).count(), 1, "{file}: {section}");
            }
            assert_eq!(text.matches(".ds Aq \\(aq").count(), 1, "{file}");
        }
    }

    #[test]
    fn the_help_headings_are_subsections_of_options() {
        let pages = pages();
        let (_, diagnose) = pages
            .iter()
            .find(|(file, _)| file == "lnkfix-diagnose.1")
            .unwrap();
        for heading in ["Input", "Limits", "Libraries", "Verify", "Output"] {
            assert!(
                diagnose.contains(&format!(".SS \"{heading}\"\n")),
                "{heading}"
            );
        }
        assert!(!diagnose.contains(".SH INPUT"));
    }
}
