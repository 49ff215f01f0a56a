//! `lnkfix man --dir`: one page per command, each with its options, exit status, environment and
//! examples, agreeing with the command's `--help`, and rendered by groff without a warning.

use crate::common;

use common::StartRetrying;

use std::path::Path;
use std::process::{Command, Output};

fn lnkfix(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(args)
        .env("COLUMNS", "100")
        .env("NO_COLOR", "1")
        .output_retrying()
        .expect("run lnkfix")
}

fn stdout(args: &[&str]) -> String {
    let output = lnkfix(args);
    assert_eq!(output.status.code(), Some(0), "lnkfix {args:?}");
    String::from_utf8(output.stdout).unwrap()
}

/// The commands `lnkfix --help` lists (without clap's `help`).
fn commands() -> Vec<String> {
    let help = stdout(&["--help"]);
    let listed = help
        .split("Commands:\n")
        .nth(1)
        .expect("a Commands section");
    listed
        .lines()
        .take_while(|line| !line.is_empty())
        .filter_map(|line| line.strip_prefix("  "))
        .filter(|entry| !entry.starts_with(' '))
        .filter_map(|entry| entry.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// Every page `lnkfix man --dir` writes into a new directory: file name and text.
fn written_pages() -> Vec<(String, String)> {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("man1");
    let output = lnkfix(&["man", "--dir", target.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let mut pages: Vec<(String, String)> = std::fs::read_dir(&target)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&path).unwrap())
        })
        .collect();
    pages.sort();
    pages
}

/// The long options a `--help` lists (`--lib-dir`, ...), in roff's spelling (`\-\-lib\-dir`).
fn long_options(help: &str) -> Vec<String> {
    help.lines()
        .filter_map(|line| {
            let word = line
                .trim_start()
                .trim_start_matches("-h, ")
                .split([' ', ','])
                .next()?;
            word.starts_with("--").then(|| word.replace('-', "\\-"))
        })
        .collect()
}

#[test]
fn every_command_has_a_page_with_every_section() {
    let pages = written_pages();
    let mut want: Vec<String> = commands()
        .iter()
        .map(|command| format!("lnkfix-{command}.1"))
        .collect();
    want.push("lnkfix.1".into());
    want.sort();
    let names: Vec<String> = pages.iter().map(|(name, _)| name.clone()).collect();
    assert_eq!(names, want);
    assert!(names.len() >= 11, "{names:?}");
    for (name, text) in &pages {
        for section in [
            ".SH OPTIONS",
            ".SH \"EXIT STATUS\"",
            ".SH ENVIRONMENT",
            ".SH EXAMPLES",
        ] {
            assert!(
                text.contains(&format!("\n{section}\n")),
                "{name}: no {section}"
            );
        }
        let command = name.trim_end_matches(".1").trim_start_matches("lnkfix");
        let command = command.trim_start_matches('-');
        let help = if command.is_empty() {
            stdout(&["--help"])
        } else {
            stdout(&[command, "--help"])
        };
        let options = long_options(&help);
        assert!(command != "diagnose" || options.len() > 20, "{options:?}");
        for option in options {
            assert!(text.contains(&option), "{name}: no {option}");
        }
        for line in help.split("Exit status:\n").nth(1).unwrap().lines() {
            if let Some((code, _)) = line.trim().split_once("  ") {
                assert!(
                    text.contains(&format!(".TP\n\\fB{code}\\fR\n")),
                    "{name}: no exit code {code}"
                );
            }
        }
    }
}

#[test]
fn the_top_page_points_only_at_pages_written_and_is_what_man_prints() {
    let pages = written_pages();
    let (_, top) = pages.iter().find(|(name, _)| name == "lnkfix.1").unwrap();
    let mut pointed = 0;
    for line in top.lines() {
        if let Some(page) = line.strip_suffix("(1)") {
            let file = format!("{}.1", page.replace("\\-", "-"));
            assert!(pages.iter().any(|(name, _)| *name == file), "{file}");
            pointed += 1;
        }
    }
    assert_eq!(pointed, commands().len());
    assert_eq!(&stdout(&["man"]), top);
}

#[test]
#[cfg(not(windows))] // groff is not a Windows program: the Wine run has none
fn every_page_renders_without_a_warning() {
    let pages = written_pages();
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in &pages {
        let path = dir.path().join(name);
        std::fs::write(&path, text).unwrap();
        let output = groff(&path);
        let warnings = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success() && warnings.is_empty(),
            "{name}: {warnings}"
        );
    }
    // The check sees a broken page.
    let broken = dir.path().join("broken.1");
    std::fs::write(
        &broken,
        ".TH broken 1\n.SH NAME\n.XX unknown\n\\fBbold never closed\n",
    )
    .unwrap();
    assert!(!String::from_utf8_lossy(&groff(&broken).stderr).is_empty());
}

/// groff's man macros on `page`, every warning on, output thrown away.
#[cfg(not(windows))]
fn groff(page: &Path) -> Output {
    Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .arg(page)
        .output()
        .expect("groff runs (Debian: apt-get install groff-base)")
}

#[test]
fn a_directory_that_cannot_be_made_is_an_error_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("file");
    std::fs::write(&file, "not a directory").unwrap();
    let inside = file.join("man1");
    let output = lnkfix(&["man", "--dir", inside.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(inside.to_str().unwrap()) && stderr.contains("cannot write"),
        "{stderr}"
    );
}

#[test]
fn every_environment_variable_the_source_reads_is_on_the_top_page() {
    let top = stdout(&["man"]);
    let environment = top
        .split("\n.SH ENVIRONMENT\n")
        .nth(1)
        .and_then(|rest| rest.split("\n.SH ").next())
        .unwrap()
        .replace("\\-", "-");
    let mut read = Vec::new();
    let mut files = Vec::new();
    rust_files(&common::root().join("src"), &mut files);
    for file in files {
        let source = std::fs::read_to_string(&file).unwrap();
        // Comments name variables that lnkfix does not read (those of the files it writes).
        let text: String = source
            .lines()
            .filter(|line| !line.trim_start().starts_with("//"))
            .collect::<Vec<_>>()
            .join("\n");
        for call in ["env(\"", "var(\"", "var_os(\"", "get(\""] {
            for piece in text.split(call).skip(1) {
                let name: String = piece.chars().take_while(|c| *c != '"').collect();
                let looks_like_a_variable = name.len() > 1
                    && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    && name.chars().next().is_some_and(|c| c.is_ascii_uppercase());
                if looks_like_a_variable && piece[name.len()..].starts_with("\")") {
                    read.push(name);
                }
            }
        }
    }
    read.extend(
        lnkfix::commands::doctor::RECIPE_VARIABLES
            .iter()
            .map(|v| v.to_string()),
    );
    read.extend(
        lnkfix::commands::doctor::VCVARS_VARIABLES
            .iter()
            .map(|v| v.to_string()),
    );
    assert!(read.iter().any(|v| v == "VIRTUAL_ENV"), "{read:?}");
    for variable in read {
        assert!(
            environment.contains(&variable),
            "{variable} is read but not on the top page"
        );
    }
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}
