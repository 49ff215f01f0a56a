//! The `lnkfix` command: parses arguments, builds the inputs, calls the library, maps the result
//! to an exit code (0 nothing unresolved, 1 unresolved symbols found, 2 usage error or unreadable
//! input).

use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

use lnkfix::discover::{self, SearchDir, SearchOptions};
use lnkfix::index::{Index, IndexOptions, IndexWarning, Machine, OutputFormat as IndexFormat};
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
    /// Build the library index from the link environment and summarise it (or list every symbol).
    Index(IndexArgs),
    /// Show a symbol demangled and every library that provides it.
    Explain(ExplainArgs),
    /// Classify a whole bring-up log by the rule book: stage, root-cause line, the one fix to apply
    /// next (exit 0 success, 1 classified failure, 2 unreadable, 3 nothing matched).
    Triage(TriageArgs),
    /// Check the rule book's step 0: the environment recipe and the libraries the link will need
    /// (exit 0 only when every check passes).
    Doctor(DoctorArgs),
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
    /// Longest mangled name handed to the demangler, in bytes (longer ones are shown raw).
    #[arg(long, default_value_t = 4096, value_name = "BYTES")]
    max_demangle_len: usize,
    /// Deepest template/function-type nesting handed to the demangler (deeper ones are shown raw;
    /// msvc-demangler overflows the stack on very deep names).
    #[arg(long, default_value_t = 48, value_name = "LEVELS", value_parser = clap::value_parser!(u16).range(1..=64))]
    max_demangle_depth: u16,
    #[command(flatten)]
    search: SearchArgs,
    /// A directory of the build's objects: their /DEFAULTLIB directives are CRT evidence.
    #[arg(long = "objects", value_name = "DIR")]
    objects: Vec<PathBuf>,
    /// The build directory: CRT options in its build.ninja are evidence.
    #[arg(long = "build-dir", value_name = "DIR")]
    build_dir: Option<PathBuf>,
}

/// Where to look for libraries. With none given: the LIB variable (as vcvars sets it), then
/// HIP_PATH, VCToolsInstallDir and the Windows SDK variables, as link.exe does.
#[derive(clap::Args)]
struct SearchArgs {
    /// A library directory (repeatable; searched in order, as the linker does).
    #[arg(long = "lib-dir", value_name = "DIR")]
    lib_dirs: Vec<PathBuf>,
    /// The HIP SDK (its `lib` directory is searched).
    #[arg(long = "hip-path", value_name = "DIR")]
    hip_path: Option<PathBuf>,
    /// The Visual C++ tools directory (`VC\Tools\MSVC\<ver>`) or its lib directory.
    #[arg(long = "vc-lib", value_name = "DIR")]
    vc_lib: Option<PathBuf>,
    /// The Windows Kits `Lib\<ver>` root (both `um` and `ucrt` are searched).
    #[arg(long = "sdk-lib", value_name = "DIR")]
    sdk_lib: Option<PathBuf>,
    /// Library files by glob (quote it), e.g. 'C:\Program Files\AMD\ROCm\*\lib\*.lib'.
    #[arg(long = "lib", value_name = "GLOB")]
    globs: Vec<String>,
    /// Target machine: x64, x86, arm64, arm64ec.
    #[arg(long, default_value = "x64", value_parser = parse_machine)]
    arch: Machine,
    /// Where the index cache lives (default: %LOCALAPPDATA%\lnkfix\cache on Windows,
    /// $XDG_CACHE_HOME/lnkfix or ~/.cache/lnkfix elsewhere).
    #[arg(long = "cache-dir", value_name = "DIR")]
    cache_dir: Option<PathBuf>,
    /// Read every library again instead of using the cache.
    #[arg(long = "no-cache", conflicts_with = "cache_dir")]
    no_cache: bool,
}

/// The platform cache directory for the index.
fn default_cache_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    if cfg!(windows) {
        var("LOCALAPPDATA").map(|d| d.join("lnkfix").join("cache"))
    } else {
        var("XDG_CACHE_HOME")
            .or_else(|| var("HOME").map(|h| h.join(".cache")))
            .map(|d| d.join("lnkfix"))
    }
}

fn parse_machine(text: &str) -> Result<Machine, String> {
    Machine::parse_arch(text)
        .ok_or_else(|| format!("unknown architecture {text:?} (x64, x86, arm64, arm64ec)"))
}

impl SearchArgs {
    fn options(&self) -> SearchOptions {
        SearchOptions {
            lib_dirs: self.lib_dirs.clone(),
            hip_path: self.hip_path.clone(),
            vc_lib: self.vc_lib.clone(),
            sdk_lib: self.sdk_lib.clone(),
            globs: self.globs.clone(),
            arch: self.arch,
        }
    }

    /// Finds the directories and builds the index; `None` when nothing is searched.
    fn index(
        &self,
        warnings: &mut Vec<String>,
    ) -> Option<(Index, Vec<SearchDir>, Vec<IndexWarning>)> {
        let env = |name: &str| std::env::var(name).ok();
        let found = discover::discover(&self.options(), &env);
        warnings.extend(found.warnings);
        if found.dirs.is_empty() && found.files.is_empty() {
            return None;
        }
        let options = IndexOptions {
            arch: self.arch,
            progress: std::io::stderr().is_terminal(),
            cache_dir: if self.no_cache {
                None
            } else {
                self.cache_dir.clone().or_else(default_cache_dir)
            },
        };
        let (index, index_warnings) = Index::build(&found.files, &options);
        Some((index, found.dirs, index_warnings))
    }
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
struct TriageArgs {
    /// The supervisor/build log, or `-` for stdin.
    log: String,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// Extra rows (same format as symbol-db/triage.json) or link-symbol rules.
    #[arg(long = "rules", value_name = "FILE")]
    rules: Vec<PathBuf>,
    /// When the attempt started (RFC 3339 with a zone, e.g. 2026-11-30T12:00:00Z): an older log is stale.
    #[arg(long, value_name = "TIME")]
    since: Option<String>,
    /// A file touched when the attempt started: a log older than it is stale.
    #[arg(long = "started-after", value_name = "FILE")]
    started_after: Option<PathBuf>,
    /// The GPU arch the build is for (e.g. gfx1201); else TVM_FFI_ROCM_ARCH_LIST.
    #[arg(long = "arch-intended", value_name = "GFX")]
    arch_intended: Option<String>,
    /// Force the CRT flavour of the embedded link diagnosis.
    #[arg(long, value_enum)]
    crt: Option<CrtArg>,
    /// When to colour the text report.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
}

#[derive(clap::Args)]
struct DoctorArgs {
    /// Extra library directories to look in besides LIB.
    #[arg(long = "lib-dir", value_name = "DIR")]
    lib_dirs: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
    /// When to colour the text report.
    #[arg(long, value_enum, default_value = "auto")]
    color: ColorChoice,
}

#[derive(clap::Args)]
struct IndexArgs {
    /// Library directories to index (same as --lib-dir).
    dirs: Vec<PathBuf>,
    #[command(flatten)]
    search: SearchArgs,
    /// Print every symbol with its provider instead of the summary.
    #[arg(long)]
    list: bool,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
}

#[derive(clap::Args)]
struct ExplainArgs {
    /// The name: linker-level (`__imp_CreateFileW`, `?f@@YAXXZ`, `hipMalloc`) or demangled
    /// (`'void * __cdecl operator new(unsigned __int64)'`, quoted).
    symbol: String,
    #[command(flatten)]
    search: SearchArgs,
    /// Rank providers for this CRT flavour (else: both flavours' libraries are shown).
    #[arg(long, value_enum)]
    crt: Option<CrtArg>,
    /// Add a rule file (same format as symbol-db/rules.json); may be repeated.
    #[arg(long = "rules", value_name = "FILE")]
    rules: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value = "text")]
    format: Format,
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

/// Object files named by the log's references that exist on disk (relative to the log's
/// directory or the current one): their directives are evidence too.
fn objects_named_in_log(log: &str, failure: &lnkfix::symbols::LinkFailure) -> Vec<PathBuf> {
    let base = std::path::Path::new(log).parent().map(PathBuf::from);
    let mut out: Vec<PathBuf> = Vec::new();
    for symbol in &failure.symbols {
        for reference in &symbol.references {
            let Some(object) = reference.object.as_deref() else {
                continue;
            };
            let lower = object.to_ascii_lowercase();
            if object.contains('(') || !(lower.ends_with(".obj") || lower.ends_with(".o")) {
                continue;
            }
            let relative = discover::native_path(object);
            let candidates = [
                base.as_ref().map(|b| b.join(&relative)),
                Some(relative.clone()),
            ];
            if let Some(found) = candidates.into_iter().flatten().find(|p| p.is_file()) {
                if !out.contains(&found) && out.len() < 256 {
                    out.push(found);
                }
            }
        }
    }
    out
}

fn object_files_in(dir: &std::path::Path, out: &mut Vec<PathBuf>, warnings: &mut Vec<String>) {
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            for entry in entries.flatten() {
                let path = entry.path();
                let ext = path
                    .extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase());
                if matches!(ext.as_deref(), Some("obj") | Some("o")) && path.is_file() {
                    out.push(path);
                }
            }
        }
        Err(e) => warnings.push(format!(
            "{}: cannot read the objects directory: {e}",
            dir.display()
        )),
    }
}

/// Reads and diagnoses a log, against the archives on disk when any are found.
fn run_diagnosis(log: &str, inputs: &DiagnoseInputs) -> Result<(Diagnosis, RuleBook), String> {
    let mut book = RuleBook::builtin();
    for path in &inputs.rules {
        book.add_file(path).map_err(|e| e.to_string())?;
    }
    lnkfix::demangle::set_limits(lnkfix::demangle::DemangleLimits {
        max_len: inputs.max_demangle_len,
        max_depth: usize::from(inputs.max_demangle_depth),
    });
    let reader = open_log(log)?;
    let limits = ReadLimits {
        max_line_bytes: inputs.max_line_bytes,
        ..ReadLimits::default()
    };
    let failure =
        lnkfix::symbols::collect(reader, limits).map_err(|e| format!("{log}: cannot read: {e}"))?;
    let options = DiagnoseOptions {
        crt: inputs.crt.map(Flavour::from),
        log_name: log.to_string(),
    };

    let mut warnings = Vec::new();
    let mut evidence = Vec::new();
    let mut objects = objects_named_in_log(log, &failure);
    for dir in &inputs.objects {
        object_files_in(dir, &mut objects, &mut warnings);
    }
    if !objects.is_empty() {
        let (object_index, object_warnings) = Index::build(&objects, &IndexOptions::default());
        warnings.extend(object_warnings.iter().map(|w| w.to_string()));
        evidence.extend(lnkfix::evidence::from_objects(&book, &object_index));
    }
    if let Some(dir) = &inputs.build_dir {
        let ninja = dir.join("build.ninja");
        match lnkfix::evidence::from_build_file(&book, &ninja) {
            Ok(found) => evidence.extend(found),
            Err(e) => warnings.push(format!("{}: cannot read: {e}", ninja.display())),
        }
    }
    let searched = inputs.search.index(&mut warnings);
    if let Some((_, _, index_warnings)) = &searched {
        warnings.extend(index_warnings.iter().map(|w| w.to_string()));
    }
    let mut diagnosis = match &searched {
        Some((index, dirs, _)) => {
            let context = resolve::SearchContext {
                index,
                dirs,
                evidence,
            };
            resolve::diagnose_with(failure, &book, &options, Some(&context))
        }
        None if !evidence.is_empty() => {
            let empty = Index::from_symbols(Vec::new(), Vec::new(), inputs.search.arch);
            let context = resolve::SearchContext {
                index: &empty,
                dirs: &[],
                evidence,
            };
            let mut d = resolve::diagnose_with(failure, &book, &options, Some(&context));
            for s in &mut d.symbols {
                s.not_found_on_disk = false;
            }
            d
        }
        None => resolve::diagnose(failure, &book, &options),
    };
    diagnosis.warnings.extend(warnings);
    if let Some((index, _, _)) = searched {
        // Freeing a large index costs tens of milliseconds at exit and buys nothing.
        std::mem::forget(index);
    }
    Ok((diagnosis, book))
}

fn triage_command(args: TriageArgs) -> ExitCode {
    let since = match args
        .since
        .as_deref()
        .map(lnkfix::triage::parse_time)
        .transpose()
    {
        Ok(t) => t,
        Err(e) => return error(e),
    };
    let options = lnkfix::triage::TriageOptions {
        since,
        started_after: args.started_after.clone(),
        extra_rules: args.rules.clone(),
        intended_arch: args.arch_intended.clone(),
        arch_list_env: std::env::var("TVM_FFI_ROCM_ARCH_LIST").ok(),
        diagnose: DiagnoseOptions {
            crt: args.crt.map(Flavour::from),
            log_name: args.log.clone(),
        },
        ..Default::default()
    };
    let report = match lnkfix::triage::triage_path(std::path::Path::new(&args.log), &options) {
        Ok(r) => r,
        Err(e) => return error(e),
    };
    let color = use_color(args.color);
    if let Err(e) = print(|out| match args.format {
        Format::Json => lnkfix::triage::write_json(&report, out),
        Format::Text => lnkfix::triage::render_text(&report, out, color),
    }) {
        return error(e);
    }
    ExitCode::from(u8::try_from(lnkfix::triage::exit_code(&report)).unwrap_or(exit::USAGE))
}

fn doctor_command(args: DoctorArgs) -> ExitCode {
    let env = |name: &str| std::env::var(name).ok();
    let report = lnkfix::doctor::doctor(
        &env,
        &lnkfix::doctor::DoctorOptions {
            lib_dirs: args.lib_dirs,
        },
    );
    let color = use_color(args.color);
    if let Err(e) = print(|out| match args.format {
        Format::Json => lnkfix::doctor::write_json(&report, out),
        Format::Text => lnkfix::doctor::render_text(&report, out, color),
    }) {
        return error(e);
    }
    ExitCode::from(u8::try_from(lnkfix::doctor::exit_code(&report)).unwrap_or(exit::USAGE))
}

fn index_command(args: IndexArgs) -> ExitCode {
    let mut search = args.search;
    search.lib_dirs.splice(0..0, args.dirs);
    let mut warnings = Vec::new();
    let Some((index, _, index_warnings)) = search.index(&mut warnings) else {
        return error(
            "no library directories: give DIRS, --lib-dir, --lib, or set LIB (as vcvars does)",
        );
    };
    let format = match args.format {
        Format::Text => IndexFormat::Text,
        Format::Json => IndexFormat::Json,
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let written = if args.list {
        lnkfix::index::write_list(&index, &mut out, format)
    } else {
        lnkfix::index::write_summary(&index, &index_warnings, &mut out, format)
    };
    if let Err(e) = write_out(written.and_then(|_| out.flush())) {
        return error(e);
    }
    for w in &warnings {
        eprintln!("lnkfix: warning: {w}");
    }
    std::mem::forget(index);
    ExitCode::from(exit::OK)
}

fn explain_command(args: ExplainArgs) -> ExitCode {
    let mut warnings = Vec::new();
    let mut book = RuleBook::builtin();
    for path in &args.rules {
        if let Err(e) = book.add_file(path) {
            return error(e);
        }
    }
    let searched = args.search.index(&mut warnings);
    if let Some((_, _, index_warnings)) = &searched {
        warnings.extend(index_warnings.iter().map(|w| w.to_string()));
    }
    let context = searched
        .as_ref()
        .map(|(index, dirs, _)| resolve::SearchContext {
            index,
            dirs,
            evidence: Vec::new(),
        });
    let explanation = match lnkfix::explain::explain(
        &args.symbol,
        &book,
        context.as_ref(),
        args.crt.map(Flavour::from),
    ) {
        Ok(explanation) => explanation,
        Err(e) => {
            eprintln!("lnkfix: error: {e}");
            return ExitCode::from(exit::USAGE);
        }
    };
    let written = print(|out| match args.format {
        Format::Text => lnkfix::explain::write_text(&explanation, out),
        Format::Json => lnkfix::explain::write_json(&explanation, out),
    });
    if let Err(e) = written {
        return error(e);
    }
    for w in &warnings {
        eprintln!("lnkfix: warning: {w}");
    }
    if let Some((index, _, _)) = searched {
        std::mem::forget(index);
    }
    ExitCode::from(if explanation.found() {
        exit::OK
    } else {
        exit::FOUND
    })
}

/// Writes to a buffered stdout and flushes; a closed pipe (`| head`) is not an error.
fn print(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), String> {
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    write_out(write(&mut out).and_then(|_| out.flush()))
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
        Format::Json => match &patch {
            // Straight from the types: no intermediate `Value` for the common case.
            None => report::write_json(&diagnosis, &mut out),
            Some((path, sha256, outcome)) => {
                let mut value = serde_json::to_value(&diagnosis).expect("a diagnosis serializes");
                value["patch"] = patch_json(path, sha256, outcome);
                serde_json::to_writer_pretty(&mut out, &value)
                    .map_err(std::io::Error::other)
                    .and_then(|_| writeln!(out))
            }
        },
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
        Command::Index(args) => index_command(args),
        Command::Triage(args) => triage_command(args),
        Command::Doctor(args) => doctor_command(args),
        Command::Explain(args) => explain_command(args),
    }
}
