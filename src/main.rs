//! The `lnkfix` binary: parses the command line ([`cli`]), calls the library's entry for the
//! command ([`lnkfix::commands::app`]), renders the report it returns and exits with the
//! report's status.
//! Where output goes, colour, and the progress bar are decided here, nowhere else.

mod cli;
mod man;
mod manual;

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use clap::Parser;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use lnkfix::commands::app::{self, Environment, Report, Status};
use lnkfix::commands::doctor::DoctorOptions;
use lnkfix::fix::patch::build_file::EditOutcome;
use lnkfix::fix::patch::{
    apply_build_file, check_output_path, sha256_hex, ApplyReport, PatchOutcome,
};
use lnkfix::fix::verify;
use lnkfix::index::Progress;
use lnkfix::output::format::Format;
use lnkfix::output::report::Style;
use lnkfix::output::terminal;

use cli::{Cli, ColorChoice, Command};

/// The colour choice for anstream: `auto` colours only on a terminal that supports it and never
/// with `NO_COLOR` set; anstream also turns escapes on in older Windows consoles.
fn color_choice(choice: ColorChoice) -> anstream::ColorChoice {
    match choice {
        ColorChoice::Always => anstream::ColorChoice::AlwaysAnsi,
        ColorChoice::Never => anstream::ColorChoice::Never,
        ColorChoice::Auto => anstream::ColorChoice::Auto,
    }
}

/// A progress bar on a terminal's stderr for library scans that last over a second; nothing when
/// stderr is not a terminal (a pipe, a file, CI).
fn progress() -> Option<Progress> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let started = Instant::now();
    let bar: OnceLock<ProgressBar> = OnceLock::new();
    Some(Progress(Arc::new(move |done, total| {
        if bar.get().is_none() && started.elapsed() < Duration::from_secs(1) {
            return;
        }
        let bar = bar.get_or_init(|| {
            let bar =
                ProgressBar::with_draw_target(Some(total as u64), ProgressDrawTarget::stderr());
            if let Ok(style) =
                ProgressStyle::with_template("indexing {bar:40} {pos}/{len} files ({elapsed})")
            {
                bar.set_style(style);
            }
            bar
        });
        bar.set_position(done as u64);
        if done == total {
            bar.finish_and_clear();
        }
    })))
}

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

/// Prints one line on stderr, neutralised: whatever it quotes (paths, names, log text, saved
/// JSON) cannot drive the terminal. A stderr that cannot be written (`2>&1 | head` after the
/// reader went away) loses the line; `eprintln!` would panic.
fn say(line: std::fmt::Arguments<'_>) {
    let line = terminal::neutralise(&line.to_string()).into_owned();
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// Prints an error and returns the usage status.
fn fail(message: impl std::fmt::Display) -> ExitCode {
    say(format_args!("lnkfix: error: {message}"));
    ExitCode::from(Status::Usage.code())
}

/// The exit code of a command whose output went to stdout: a reader that went away (`| head`)
/// ends the command quietly with success, as ripgrep and fd do: the reader took what it wanted.
/// Any other write error is the usage status with a message.
fn written(result: std::io::Result<()>, status: Status) -> ExitCode {
    match result {
        Ok(()) => ExitCode::from(status.code()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::from(Status::Ok.code()),
        Err(e) => fail(format!("cannot write: {e}")),
    }
}

/// Renders a report on a buffered stdout; a closed pipe (`| head`) is not an error.
fn render(report: &dyn Report, format: Format, color: ColorChoice) -> ExitCode {
    let result = if let Format::Text = format {
        // The report always styles; the stream keeps or strips the escapes.
        let stream = anstream::AutoStream::new(std::io::stdout().lock(), color_choice(color));
        // Whatever the report quotes cannot drive the terminal; only its own styles pass.
        let mut out = std::io::BufWriter::new(terminal::Neutralising::new(stream));
        app::write_report(report, format, Style { color: true }, &mut out).and_then(|_| out.flush())
    } else {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        app::write_report(report, format, Style { color: false }, &mut out)
            .and_then(|_| out.flush())
    };
    written(result, report.status())
}

fn warn_all(warnings: &[String]) {
    for w in warnings {
        say(format_args!("lnkfix: warning: {w}"));
    }
}

fn run(command: Command) -> ExitCode {
    let env = Environment {
        var: &env_var,
        progress: progress(),
    };
    match command {
        Command::Diagnose(args) => match app::diagnose(&args.request(&env_var), &env) {
            Ok(report) => render(&report, args.output.format(), args.output.color),
            Err(e) => fail(e),
        },
        Command::Explain(args) => match app::explain(&args.request(&env_var), &env) {
            Ok(report) => {
                let code = render(&report, args.output.format, ColorChoice::Never);
                warn_all(&report.warnings);
                code
            }
            Err(e) => fail(e),
        },
        Command::Index(args) => match app::index(&args.request(&env_var), &env) {
            Ok(report) => {
                let code = render(&report, args.output.format, ColorChoice::Never);
                warn_all(&report.warnings);
                // Freeing a large index costs tens of milliseconds at exit and buys nothing.
                std::mem::forget(report);
                code
            }
            Err(e) => fail(e),
        },
        Command::Triage(args) => match args.options(&env_var) {
            Ok(options) => match app::triage(std::path::Path::new(&args.log), &options) {
                Ok(report) => render(&report, args.output.format(), args.output.color),
                Err(e) => fail(e),
            },
            Err(e) => fail(e),
        },
        Command::Doctor(args) => {
            let report = app::doctor(
                &env,
                &DoctorOptions {
                    lib_dirs: args.lib_dirs.clone(),
                    tvm_ffi: args.tvm_ffi.then_some(true),
                    log: args.log.clone(),
                    python: args.python.choice(),
                    arch: args.arch,
                    log_machine: None,
                },
                args.for_log.as_deref(),
            );
            match report {
                Ok(report) => render(&report, args.output.format(), args.output.color),
                Err(e) => fail(e),
            }
        }
        Command::Zombies(args) => match args.request() {
            Ok(request) => match app::zombies(&request) {
                Ok(report) => render(&report, args.output.format(), args.output.color),
                Err(e) => fail(e),
            },
            Err(e) => fail(e),
        },
        Command::Patch(args) => patch(&args, &env),
        Command::Whence(args) => match app::whence(&args.request(), &env) {
            Ok(report) => render(&report, args.output.format(), args.output.color),
            Err(e) => fail(e),
        },
        Command::Completions(args) => {
            // clap_complete panics when a write fails: the script is built in memory first.
            let mut command = <Cli as clap::CommandFactory>::command();
            let mut script = Vec::new();
            clap_complete::generate(args.shell, &mut command, "lnkfix", &mut script);
            let mut out = std::io::stdout().lock();
            written(out.write_all(&script).and_then(|_| out.flush()), Status::Ok)
        }
        Command::Man(args) => man(&args),
    }
}

/// `man`: the top page on stdout, or every page written into `--dir`.
fn man(args: &cli::ManArgs) -> ExitCode {
    let Some(dir) = &args.dir else {
        let mut out = std::io::stdout().lock();
        return match out
            .write_all(man::top_page().as_bytes())
            .and_then(|()| out.flush())
        {
            Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                fail(format!("cannot write: {e}"))
            }
            _ => ExitCode::from(Status::Ok.code()),
        };
    };
    match man::write_pages(dir) {
        Ok(written) => {
            say(format_args!(
                "lnkfix: {} pages written into {}",
                written.len(),
                dir.display()
            ));
            ExitCode::from(Status::Ok.code())
        }
        Err(e) => fail(e),
    }
}

/// `patch`: plan, then print the diff, write it with `-o`, or apply it in place.
fn patch(args: &cli::PatchArgs, env: &Environment<'_>) -> ExitCode {
    if args.is_build_definition() {
        return build_patch(args, env);
    }
    if args.format.format == Format::Json {
        return fail("--format json: only for build definitions (extension.py's patch is a diff)");
    }
    if args.target.is_some() || args.configuration.is_some() {
        return fail("--target and --configuration: only for build definitions (CMakeLists.txt, *.vcxproj, ...)");
    }
    let report = match app::plan_patch(&args.request(&env_var), env) {
        Ok(report) => report,
        Err(e) => return fail(e),
    };
    let target = report.target.display().to_string();
    if let Some(verification) = &report.verification {
        let mut err = std::io::stderr().lock();
        let _ = verify::write_text(verification, &mut err, Style::default());
    }
    if !report.may_write(args.force) {
        say(format_args!(
            "lnkfix: {target} not patched: the fix did not verify (--force writes the patch anyway)"
        ));
        return ExitCode::from(report.status().code());
    }
    let (diff, new_text, notes) = match &report.outcome {
        PatchOutcome::AlreadyPatched { notes } => {
            say(format_args!(
                "lnkfix: {target} already links everything the diagnosis needs: no change"
            ));
            for note in notes {
                say(format_args!("  note: {note}"));
            }
            return ExitCode::from(report.status().code());
        }
        PatchOutcome::Changed {
            diff,
            new_text,
            notes,
        } => (diff, new_text, notes),
    };
    for note in notes {
        say(format_args!("lnkfix: note: {note}"));
    }
    if args.apply {
        match apply_patch(args, &report, new_text) {
            Ok(()) => ExitCode::from(report.status().code()),
            Err(e) => fail(e),
        }
    } else {
        let file = args.file.clone().unwrap_or_default();
        write_diff(args, &file, diff, report.status())
    }
}

/// `patch` of a build definition: plan, then print the diff (or the JSON), write it with `-o`,
/// or apply it in place.
fn build_patch(args: &cli::PatchArgs, env: &Environment<'_>) -> ExitCode {
    let report = match app::plan_build_patch(&args.build_request(&env_var), env) {
        Ok(report) => report,
        Err(e) => return fail(e),
    };
    if let Some(verification) = &report.verification {
        let mut err = std::io::stderr().lock();
        let _ = verify::write_text(verification, &mut err, Style::default());
    }
    let json = args.format.format == Format::Json;
    let file = report.place.file.clone();
    let shown = file.display().to_string();
    say(format_args!(
        "lnkfix: {} at {shown}{}: {}",
        report.place.system.name(),
        report
            .place
            .target
            .as_deref()
            .map(|t| format!(", target {t}"))
            .unwrap_or_default(),
        report.place.evidence
    ));
    let mut applied = None;
    let edit = match &report.outcome {
        EditOutcome::AlreadyDone => {
            say(format_args!(
                "lnkfix: {shown} already has everything the diagnosis needs: no change"
            ));
            None
        }
        EditOutcome::Edited(edit) => Some(edit),
    };
    if let Some(edit) = edit {
        say(format_args!("lnkfix: {}", edit.description));
        if !report.may_write(args.force) {
            say(format_args!(
                "lnkfix: {shown} not patched: the fix did not verify (--force writes the patch anyway)"
            ));
            if !json {
                return ExitCode::from(report.status().code());
            }
        } else if args.apply {
            let expected = sha256_hex(&report.original);
            match apply_build_file(&file, Some(&expected), &edit.after, !args.no_backup) {
                Ok(done) => {
                    say(format_args!(
                        "lnkfix: patched {}{}",
                        done.path.display(),
                        done.backup
                            .as_ref()
                            .map(|b| format!(" (backup: {})", b.display()))
                            .unwrap_or_default()
                    ));
                    applied = Some(done);
                }
                Err(e) => return fail(e),
            }
        }
    }
    if json {
        let document = build_patch_json(&report, applied.as_ref());
        let text = serde_json::to_string_pretty(&document).unwrap_or_default() + "\n";
        let mut out = std::io::stdout().lock();
        return written(
            out.write_all(text.as_bytes()).and_then(|_| out.flush()),
            report.status(),
        );
    }
    if edit.is_none() || args.apply {
        return ExitCode::from(report.status().code());
    }
    write_diff(args, &file, &report.diff, report.status())
}

/// `patch --format json` for a build definition (docs/GUIDE.md, *JSON*).
fn build_patch_json(
    report: &app::BuildPatchReport,
    applied: Option<&ApplyReport>,
) -> serde_json::Value {
    let edit = match &report.outcome {
        EditOutcome::Edited(edit) => serde_json::json!({
            "description": edit.description,
            "target": edit.target,
            "configuration": edit.configuration,
            "diff": report.diff,
        }),
        EditOutcome::AlreadyDone => serde_json::Value::Null,
    };
    serde_json::json!({
        "schema_version": 1,
        "build_system": report.place.system,
        "file": terminal::path_text(&report.place.file),
        "target": report.place.target,
        "configuration": report.place.configuration,
        "found_by": report.place.evidence,
        "change": {
            "libraries": report.change.libraries,
            "library_dirs": report.change.library_dirs,
            "runtime": report.change.runtime.map(|f| f.name()),
        },
        "edit": edit,
        "already_done": edit.is_null(),
        "applied": applied.is_some(),
        "backup": applied.and_then(|a| a.backup.as_deref()).map(|p| terminal::path_text(p).into_owned()),
        "verified": report.verification.as_ref().map(|v| v.ok),
    })
}

/// `patch --apply`: writes the new text over `extension.py` (refused when the file changed since
/// the plan) and says where, and where the backup is.
fn apply_patch(
    args: &cli::PatchArgs,
    report: &app::PatchReport,
    new_text: &[u8],
) -> Result<(), String> {
    let expected = report.expected_sha256();
    let applied = lnkfix::fix::patch::apply_patch(
        args.file.as_deref().unwrap_or(std::path::Path::new("")),
        Some(&expected),
        new_text,
        !args.no_backup,
    )
    .map_err(|e| e.to_string())?;
    if let Some(lost) = &applied.ownership_lost {
        say(format_args!(
            "lnkfix: warning: {}: {lost}",
            applied.path.display()
        ));
    }
    say(format_args!(
        "lnkfix: patched {}{}",
        applied.path.display(),
        applied
            .backup
            .map(|b| format!(" (backup: {})", b.display()))
            .unwrap_or_default()
    ));
    Ok(())
}

/// Writes the diff to `-o`'s file (never onto the patch's inputs) or to stdout: exact for a file
/// or a pipe (`git apply`), neutralised like any text on a terminal; exits with `status` once
/// written (success when the reader of stdout went away).
fn write_diff(
    args: &cli::PatchArgs,
    file: &std::path::Path,
    diff: &str,
    status: Status,
) -> ExitCode {
    match &args.output {
        Some(path) => {
            match check_output_path(path, &[file, std::path::Path::new(&args.from)])
                .map_err(|e| e.to_string())
                .and_then(|()| {
                    std::fs::write(path, diff.as_bytes())
                        .map_err(|e| format!("{}: cannot write: {e}", path.display()))
                }) {
                Ok(()) => ExitCode::from(status.code()),
                Err(e) => fail(e),
            }
        }
        None => {
            let mut out = std::io::stdout().lock();
            // Exact for a file or a pipe (`git apply`); on a terminal, neutralised like any text.
            let result = if out.is_terminal() {
                let mut terminal = terminal::Neutralising::new(&mut out);
                terminal
                    .write_all(diff.as_bytes())
                    .and_then(|_| terminal.flush())
            } else {
                out.write_all(diff.as_bytes()).and_then(|_| out.flush())
            };
            written(result, status)
        }
    }
}

fn main() -> ExitCode {
    match Cli::try_parse() {
        Ok(cli) => run(cli.command),
        Err(e) => {
            let code = if e.use_stderr() {
                Status::Usage
            } else {
                Status::Ok
            };
            let _ = e.print();
            ExitCode::from(code.code())
        }
    }
}
