//! The `lnkfix` binary: parses the command line ([`cli`]), calls the library's entry for the
//! command ([`lnkfix::app`]), renders the report it returns and exits with the report's status.
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

use lnkfix::app::{self, Environment, Report, Status};
use lnkfix::index::Progress;
use lnkfix::report::Style;

use cli::{Cli, ColorChoice, Command};
use lnkfix::format::Format;

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
    let line = lnkfix::terminal::neutralise(&line.to_string()).into_owned();
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
        let mut out = std::io::BufWriter::new(lnkfix::terminal::Neutralising::new(stream));
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
                &lnkfix::doctor::DoctorOptions {
                    lib_dirs: args.lib_dirs.clone(),
                    tvm_ffi: args.tvm_ffi.then_some(true),
                    log: args.log.clone(),
                    python: args.python.choice(),
                },
            );
            render(&report, args.output.format(), args.output.color)
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
    let report = match app::plan_patch(&args.request(&env_var), env) {
        Ok(report) => report,
        Err(e) => return fail(e),
    };
    let target = report.target.display().to_string();
    if let Some(verification) = &report.verification {
        let mut err = std::io::stderr().lock();
        let _ =
            lnkfix::verify::write_text(verification, &mut err, lnkfix::report::Style::default());
    }
    if !report.may_write(args.force) {
        say(format_args!(
            "lnkfix: {target} not patched: the fix did not verify (--force writes the patch anyway)"
        ));
        return ExitCode::from(report.status().code());
    }
    let (diff, new_text, notes) = match &report.outcome {
        lnkfix::patch::PatchOutcome::AlreadyPatched { notes } => {
            say(format_args!(
                "lnkfix: {target} already links everything the diagnosis needs: no change"
            ));
            for note in notes {
                say(format_args!("  note: {note}"));
            }
            return ExitCode::from(report.status().code());
        }
        lnkfix::patch::PatchOutcome::Changed {
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
        write_diff(args, diff, report.status())
    }
}

/// `patch --apply`: writes the new text over `extension.py` (refused when the file changed since
/// the plan) and says where, and where the backup is.
fn apply_patch(
    args: &cli::PatchArgs,
    report: &app::PatchReport,
    new_text: &[u8],
) -> Result<(), String> {
    let expected = report.expected_sha256();
    let applied = lnkfix::patch::apply_patch(
        &args.extension_py,
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
fn write_diff(args: &cli::PatchArgs, diff: &str, status: Status) -> ExitCode {
    match &args.output {
        Some(path) => match lnkfix::patch::check_output_path(
            path,
            &[&args.extension_py, std::path::Path::new(&args.from)],
        )
        .map_err(|e| e.to_string())
        .and_then(|()| {
            std::fs::write(path, diff.as_bytes())
                .map_err(|e| format!("{}: cannot write: {e}", path.display()))
        }) {
            Ok(()) => ExitCode::from(status.code()),
            Err(e) => fail(e),
        },
        None => {
            let mut out = std::io::stdout().lock();
            // Exact for a file or a pipe (`git apply`); on a terminal, neutralised like any text.
            let result = if out.is_terminal() {
                let mut terminal = lnkfix::terminal::Neutralising::new(&mut out);
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
