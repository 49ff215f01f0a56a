//! The `lnkfix` command: parses arguments, builds the inputs, calls the library, maps the result
//! to an exit code (0 nothing unresolved, 1 unresolved symbols found, 2 usage error or unreadable
//! input).

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use lnkfix::linklog::ReadLimits;
use lnkfix::patch;
use lnkfix::report::{self, Style};
use lnkfix::resolve::{self, DiagnoseOptions, Diagnosis, VerdictKind};
use lnkfix::rules::{Flavour, RuleBook};

/// Exit codes, as documented in the README.
mod exit {
    /// Nothing unresolved (or, for other commands, every check passed).
    pub const OK: u8 = 0;
    /// Unresolved symbols found: the diagnosis was printed.
    pub const FOUND: u8 = 1;
    /// Usage error or unreadable input.
    pub const USAGE: u8 = 2;
}

/// Turns a failed Windows link (LNK2019/LNK2001/LNK1120, lld-link "undefined symbol") into a fix.
#[derive(Parser)]
#[command(name = "lnkfix", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Read a link log, list every unresolved symbol (demangled), say which library provides it
    /// and what to add to the link command.
    Diagnose(DiagnoseArgs),
    /// Write the diagnosed fix into tvm-ffi's extension.py as a unified diff (or in place with
    /// --apply): one block in the Windows branch of the ninja generator.
    Patch(PatchArgs),
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    /// For people: grouped by library.
    Text,
    /// For tools: the documented JSON schema (schema_version 1).
    Json,
}

#[derive(Clone, Copy, ValueEnum)]
enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
enum CrtArg {
    /// /MT: libcmt, libvcruntime, libucrt, libcpmt.
    Static,
    /// /MD: msvcrt, vcruntime, ucrt, msvcprt.
    Dynamic,
    /// /MTd.
    StaticDebug,
    /// /MDd.
    DynamicDebug,
}

impl From<CrtArg> for Flavour {
    fn from(c: CrtArg) -> Flavour {
        match c {
            CrtArg::Static => Flavour::Static,
            CrtArg::Dynamic => Flavour::Dynamic,
            CrtArg::StaticDebug => Flavour::StaticDebug,
            CrtArg::DynamicDebug => Flavour::DynamicDebug,
        }
    }
}

/// What every diagnosing command accepts.
#[derive(clap::Args)]
struct DiagnoseInputs {
    /// Force the CRT flavour instead of reading it from the evidence.
    #[arg(long, value_enum)]
    crt: Option<CrtArg>,
    /// Extra rule file (same format as symbol-db/rules.json); its rules are tried first.
    #[arg(long = "rules", value_name = "FILE")]
    rules: Vec<PathBuf>,
    /// Longest log line kept, in bytes; longer lines are cut with a warning.
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES")]
    max_line_bytes: usize,
}

#[derive(clap::Args)]
struct DiagnoseArgs {
    /// The link log (link.exe or lld-link output, however wrapped), or `-` for stdin.
    log: String,
    #[command(flatten)]
    inputs: DiagnoseInputs,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// When to colour the text report.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
    /// Also print the patch for this extension.py (the JSON records its hash for `patch --apply`).
    #[arg(long, value_name = "EXTENSION_PY")]
    patch: Option<PathBuf>,
}

#[derive(clap::Args)]
struct PatchArgs {
    /// tvm-ffi's `tvm_ffi/cpp/extension.py` (the path is written into the diff headers as given).
    extension_py: PathBuf,
    /// The failed link's log, or a saved `diagnose --format json`.
    #[arg(long = "from", value_name = "LOG|DIAGNOSIS.json")]
    from: String,
    #[command(flatten)]
    inputs: DiagnoseInputs,
    /// Write the diff here instead of stdout.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    output: Option<PathBuf>,
    /// Change the file in place: atomically, with a backup (EXTENSION_PY.orig).
    #[arg(long)]
    apply: bool,
    /// With --apply: keep no backup.
    #[arg(long, requires = "apply")]
    no_backup: bool,
    /// Bake the HIP library directory found now into the file instead of reading HIP_PATH at run time.
    #[arg(long)]
    literal_paths: bool,
}

fn use_color(choice: ColorChoice) -> bool {
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
                && std::io::stdout().is_terminal()
        }
    }
}

fn error(message: impl std::fmt::Display) -> ExitCode {
    eprintln!("lnkfix: error: {message}");
    ExitCode::from(exit::USAGE)
}

fn open_log(path: &str) -> Result<Box<dyn Read>, String> {
    if path == "-" {
        return Ok(Box::new(std::io::stdin()));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => return Err(format!("{path}: is a directory, not a log file")),
        Ok(_) => {}
        Err(e) => return Err(format!("{path}: cannot read: {e}")),
    }
    std::fs::File::open(path)
        .map(|f| Box::new(f) as Box<dyn Read>)
        .map_err(|e| format!("{path}: cannot read: {e}"))
}

/// Reads and diagnoses a log; errors are already reported as messages.
fn run_diagnosis(log: &str, inputs: &DiagnoseInputs) -> Result<(Diagnosis, RuleBook), String> {
    let mut book = RuleBook::builtin();
    for path in &inputs.rules {
        book.add_file(path).map_err(|e| e.to_string())?;
    }
    let reader = open_log(log)?;
    let limits = ReadLimits {
        max_line_bytes: inputs.max_line_bytes,
    };
    let failure =
        lnkfix::symbols::collect(reader, limits).map_err(|e| format!("{log}: cannot read: {e}"))?;
    let options = DiagnoseOptions {
        crt: inputs.crt.map(Flavour::from),
        log_name: log.to_string(),
    };
    let diagnosis = resolve::diagnose(failure, &book, &options);
    Ok((diagnosis, book))
}

fn write_out(result: std::io::Result<()>) -> Result<(), String> {
    match result {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
            Err(format!("cannot write the report: {e}"))
        }
        _ => Ok(()),
    }
}

fn diagnose(args: DiagnoseArgs) -> ExitCode {
    let (diagnosis, book) = match run_diagnosis(&args.log, &args.inputs) {
        Ok(d) => d,
        Err(e) => return error(e),
    };
    // The patch, planned from the same diagnosis the report shows.
    let patch = match &args.patch {
        None => None,
        Some(path) => match std::fs::read(path) {
            Err(e) => return error(format!("{}: cannot read: {e}", path.display())),
            Ok(original) => {
                let value = serde_json::to_value(&diagnosis).expect("a diagnosis serializes");
                let plan = patch::plan_from_diagnosis(&value, &args.log, false);
                let outcome = patch::plan_patch(&path.to_string_lossy(), &original, &plan);
                Some((path, patch::sha256_hex(&original), outcome))
            }
        },
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match args.format {
        Format::Json => {
            let mut value = serde_json::to_value(&diagnosis).expect("a diagnosis serializes");
            if let Some((path, sha256, outcome)) = &patch {
                value["patch"] = patch_json(path, sha256, outcome);
            }
            serde_json::to_writer_pretty(&mut out, &value)
                .map_err(std::io::Error::other)
                .and_then(|_| writeln!(out))
        }
        Format::Text => {
            let style = Style {
                color: use_color(args.color),
            };
            report::write_text(&diagnosis, &book, &mut out, style).and_then(|_| match &patch {
                Some((path, _, outcome)) => write_patch_text(&mut out, path, outcome),
                None => Ok(()),
            })
        }
    };
    if let Err(e) = write_out(written.and_then(|_| out.flush())) {
        return error(e);
    }
    if diagnosis.verdict.kind == VerdictKind::NothingUnresolved {
        ExitCode::from(exit::OK)
    } else {
        ExitCode::from(exit::FOUND)
    }
}

fn patch_json(
    path: &std::path::Path,
    sha256: &str,
    outcome: &Result<patch::PatchOutcome, patch::PatchError>,
) -> serde_json::Value {
    let mut value = serde_json::json!({ "target": path.to_string_lossy(), "sha256": sha256 });
    match outcome {
        Ok(patch::PatchOutcome::Changed { diff, notes, .. }) => {
            value["diff"] = diff.clone().into();
            value["notes"] = notes.clone().into();
        }
        Ok(patch::PatchOutcome::AlreadyPatched { notes }) => {
            value["already_patched"] = true.into();
            value["notes"] = notes.clone().into();
        }
        Err(e) => value["error"] = e.to_string().into(),
    }
    value
}

fn write_patch_text(
    out: &mut dyn Write,
    path: &std::path::Path,
    outcome: &Result<patch::PatchOutcome, patch::PatchError>,
) -> std::io::Result<()> {
    writeln!(out, "Patch for {}:", path.display())?;
    match outcome {
        Ok(patch::PatchOutcome::Changed { diff, notes, .. }) => {
            for note in notes {
                writeln!(out, "  note: {note}")?;
            }
            out.write_all(diff.as_bytes())
        }
        Ok(patch::PatchOutcome::AlreadyPatched { notes }) => {
            writeln!(out, "  already links everything needed: no change")?;
            for note in notes {
                writeln!(out, "  note: {note}")?;
            }
            Ok(())
        }
        Err(e) => writeln!(out, "  no patch: {e}"),
    }
}

fn patch_command(args: PatchArgs) -> ExitCode {
    let target = args.extension_py.to_string_lossy().to_string();
    let original = match std::fs::read(&args.extension_py) {
        Ok(bytes) => bytes,
        Err(e) => return error(format!("{target}: cannot read: {e}")),
    };
    // A saved diagnosis, or a log diagnosed now with the same options as `diagnose`.
    let (diagnosis, recorded_sha256) =
        match patch::read_saved_diagnosis(std::path::Path::new(&args.from)) {
            Some(value) => {
                let recorded = value["patch"]["sha256"].as_str().map(str::to_string);
                (value, recorded)
            }
            None => match run_diagnosis(&args.from, &args.inputs) {
                Ok((d, _)) => (
                    serde_json::to_value(&d).expect("a diagnosis serializes"),
                    None,
                ),
                Err(e) => return error(e),
            },
        };
    let plan = patch::plan_from_diagnosis(&diagnosis, &args.from, args.literal_paths);
    let outcome = match patch::plan_patch(&target, &original, &plan) {
        Ok(o) => o,
        Err(e) => return error(e),
    };
    let (diff, new_text, notes) = match outcome {
        patch::PatchOutcome::AlreadyPatched { notes } => {
            eprintln!("lnkfix: {target} already links everything the diagnosis needs: no change");
            for note in notes {
                eprintln!("  note: {note}");
            }
            return ExitCode::from(exit::OK);
        }
        patch::PatchOutcome::Changed {
            diff,
            new_text,
            notes,
        } => (diff, new_text, notes),
    };
    for note in &notes {
        eprintln!("lnkfix: note: {note}");
    }
    if args.apply {
        // The hash recorded when the diagnosis was made, else the bytes planned from just now.
        let expected = recorded_sha256.unwrap_or_else(|| patch::sha256_hex(&original));
        return match patch::apply_patch(
            &args.extension_py,
            Some(&expected),
            &new_text,
            !args.no_backup,
        ) {
            Ok(report) => {
                eprintln!(
                    "lnkfix: patched {}{}",
                    report.path.display(),
                    report
                        .backup
                        .map(|b| format!(" (backup: {})", b.display()))
                        .unwrap_or_default()
                );
                ExitCode::from(exit::OK)
            }
            Err(e) => error(e),
        };
    }
    let written = match &args.output {
        Some(path) => std::fs::write(path, diff.as_bytes())
            .map_err(|e| format!("{}: cannot write: {e}", path.display())),
        None => {
            let mut out = std::io::stdout().lock();
            write_out(out.write_all(diff.as_bytes()).and_then(|_| out.flush()))
        }
    };
    match written {
        Ok(()) => ExitCode::from(exit::OK),
        Err(e) => error(e),
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let code = if e.use_stderr() {
                exit::USAGE
            } else {
                exit::OK
            };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match cli.command {
        Command::Diagnose(args) => diagnose(args),
        Command::Patch(args) => patch_command(args),
    }
}
