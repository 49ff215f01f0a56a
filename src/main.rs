//! The `lnkfix` command: parses arguments, builds the inputs, calls the library, maps the result
//! to an exit code (0 nothing unresolved, 1 unresolved symbols found, 2 usage error or unreadable
//! input).

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use lnkfix::linklog::ReadLimits;
use lnkfix::report::{self, Style};
use lnkfix::resolve::{self, DiagnoseOptions, VerdictKind};
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

#[derive(clap::Args)]
struct DiagnoseArgs {
    /// The link log (link.exe or lld-link output, however wrapped), or `-` for stdin.
    log: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Force the CRT flavour instead of reading it from the evidence.
    #[arg(long, value_enum)]
    crt: Option<CrtArg>,
    /// Extra rule file (same format as symbol-db/rules.json); its rules are tried first.
    #[arg(long = "rules", value_name = "FILE")]
    rules: Vec<PathBuf>,
    /// When to colour the text report.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
    /// Longest log line kept, in bytes; longer lines are cut with a warning.
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES")]
    max_line_bytes: usize,
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

fn diagnose(args: DiagnoseArgs) -> ExitCode {
    let mut book = RuleBook::builtin();
    for path in &args.rules {
        if let Err(e) = book.add_file(path) {
            return error(e);
        }
    }
    let reader = match open_log(&args.log) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    let limits = ReadLimits {
        max_line_bytes: args.max_line_bytes,
    };
    let failure = match lnkfix::symbols::collect(reader, limits) {
        Ok(f) => f,
        Err(e) => return error(format!("{}: cannot read: {e}", args.log)),
    };
    let options = DiagnoseOptions {
        crt: args.crt.map(Flavour::from),
        log_name: args.log.clone(),
    };
    let diagnosis = resolve::diagnose(failure, &book, &options);
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = match args.format {
        Format::Json => report::write_json(&diagnosis, &mut out),
        Format::Text => report::write_text(
            &diagnosis,
            &book,
            &mut out,
            Style {
                color: use_color(args.color),
            },
        ),
    };
    if let Err(e) = written.and_then(|_| out.flush()) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return error(format!("cannot write the report: {e}"));
        }
    }
    if diagnosis.verdict.kind == VerdictKind::NothingUnresolved {
        ExitCode::from(exit::OK)
    } else {
        ExitCode::from(exit::FOUND)
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
    }
}
