//! The command line: clap's definitions (their doc comments are the `--help` text) and the
//! conversion of the parsed arguments into the library's requests ([`lnkfix::commands::app`]).

use std::path::{Path, PathBuf};

use clap::{Parser, Subcommand, ValueEnum};

use lnkfix::commands::app::{
    self, DiagnoseRequest, ExplainRequest, IndexRequest, LibrarySearch, PatchRequest,
};
use lnkfix::fix::verify::VerifyOptions;
use lnkfix::index::discover::{PythonChoice, SearchOptions};
use lnkfix::index::Machine;
use lnkfix::output::format::Format;
use lnkfix::read::demangle::DemangleLimits;
use lnkfix::read::linklog::ReadLimits;
use lnkfix::rules::Flavour;

/// Turns a failed Windows link (LNK2019/LNK2001/LNK1120, lld-link "undefined symbol") into a fix.
#[derive(Parser)]
#[command(name = "lnkfix", bin_name = "lnkfix", version, about, long_about = None)]
#[command(max_term_width = 100, after_help = crate::manual::exit_help(""))]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Subcommand)]
pub(crate) enum Command {
    /// Read a link log, list every unresolved symbol (demangled), say which library provides it
    /// and what to add to the link command.
    ///
    /// The libraries are read from disk: with no --lib-dir/--vc-lib/--sdk-lib/--hip-path/--lib,
    /// from LIB (as vcvars sets it), HIP_PATH, VCToolsInstallDir and the Windows SDK variables,
    /// as link.exe does, then CUDA_PATH and the active Python's (VIRTUAL_ENV, CONDA_PREFIX or
    /// python on PATH: libs, torch\lib, nvidia\*\lib); with none of those either, the embedded
    /// tables answer.
    #[command(after_help = crate::manual::exit_help("diagnose"))]
    Diagnose(DiagnoseArgs),
    /// Build the library index from the link environment and summarise it (or list every symbol).
    #[command(after_help = crate::manual::exit_help("index"))]
    Index(IndexArgs),
    /// Explain one symbol: demangled, the library that provides it (ranked as diagnose ranks),
    /// and every other provider with its role.
    ///
    /// Libraries as for diagnose; with none, the embedded tables answer.
    #[command(after_help = crate::manual::exit_help("explain"))]
    Explain(ExplainArgs),
    /// Classify a whole bring-up log by the rule book: stage, root-cause line, the one fix to apply
    /// next.
    #[command(after_help = crate::manual::exit_help("triage"))]
    Triage(TriageArgs),
    /// Check the rule book's step 0: the environment recipe and the libraries the link will need.
    #[command(after_help = crate::manual::exit_help("doctor"))]
    Doctor(DoctorArgs),
    /// Find the processes left over from an earlier attempt that hold the logs open, and the
    /// suspects by name (python, ft, ninja, clang, link, ...); end them and delete their logs.
    ///
    /// Lists every process that holds a file under PATH, and every suspect that started before the
    /// attempt. --kill ends the leftovers (never lnkfix's own shell or parents, never a process
    /// started after --since, never without --since or --started-after); --delete then deletes
    /// the files they held and checks they are gone.
    #[command(after_help = crate::manual::exit_help("zombies"))]
    Zombies(ZombiesArgs),
    /// Write the diagnosed fix as a unified diff (or in place with --apply) into tvm-ffi's
    /// extension.py (one block in the Windows branch of the ninja generator) or into the failing
    /// target's build definition (CMakeLists.txt, .vcxproj). With --verify, only when the failed
    /// link succeeds with the fix (else exit 4, unless --force).
    #[command(after_help = crate::manual::exit_help("patch"))]
    Patch(PatchArgs),
    /// Find the Python code that formats an error message (its %-format, str.format or f-string,
    /// or the exception class that builds it) in the installed sources, ranked.
    ///
    /// Sources: the --site-packages directories, else the purelib, platlib and stdlib of
    /// --python (asked through sysconfig), else of python3/python on PATH, else VIRTUAL_ENV's
    /// site-packages.
    #[command(after_help = crate::manual::exit_help("whence"))]
    Whence(WhenceArgs),
    /// Print a shell completion script: bash, zsh, fish, powershell or elvish (e.g.
    /// `lnkfix completions powershell >> $PROFILE`).
    #[command(after_help = crate::manual::exit_help("completions"))]
    Completions(CompletionsArgs),
    /// Print the man page (roff), e.g. `lnkfix man > lnkfix.1`; with --dir, write every page:
    /// lnkfix.1 and one page per command (lnkfix-diagnose.1, ...).
    #[command(after_help = crate::manual::exit_help("man"))]
    Man(ManArgs),
}

/// `lnkfix man [--dir DIR]`.
#[derive(clap::Args)]
pub(crate) struct ManArgs {
    /// Write every page into this directory (made when missing) instead of printing the top page.
    #[arg(long, value_name = "DIR")]
    pub(crate) dir: Option<PathBuf>,
}

/// `lnkfix completions SHELL`.
#[derive(clap::Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// Which formats a command writes: the `--format` values its help lists.
pub(crate) trait Formats: Clone + Send + Sync + 'static {
    /// The formats, in the order help lists them.
    const FORMATS: &'static [Format];
}

/// `text` and `json`: every command.
#[derive(Clone)]
pub(crate) struct TextOrJson;

impl Formats for TextOrJson {
    const FORMATS: &'static [Format] = &[Format::Text, Format::Json];
}

/// Also the CI formats: the commands whose findings CI systems read (`diagnose`, `triage`).
#[derive(Clone)]
pub(crate) struct WithCiFormats;

impl Formats for WithCiFormats {
    const FORMATS: &'static [Format] = &Format::ALL;
}

/// What `--help` says of a format.
fn format_help(format: Format) -> &'static str {
    match format {
        Format::Text => "For people",
        Format::Json => "For tools: the documented JSON schema (schema_version 1)",
        Format::Github => {
            "GitHub Actions workflow commands: one annotation per finding, on its log line"
        }
        Format::Sarif => "SARIF 2.1.0, for code-scanning services and editor viewers",
    }
}

/// The `--format` values of `F`, with their help.
fn format_parser<F: Formats>() -> impl clap::builder::TypedValueParser<Value = Format> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = F::FORMATS
        .iter()
        .map(|f| PossibleValue::new(f.name()).help(format_help(*f)));
    PossibleValuesParser::new(values)
        .try_map(|name| Format::from_name(&name).ok_or(format!("unknown format {name:?}")))
}

/// `--format`: one declaration for every command; `F` says which formats the command writes.
#[derive(clap::Args)]
pub(crate) struct FormatArg<F: Formats> {
    /// Output format.
    #[arg(long, value_parser = format_parser::<F>(), default_value = "text", help_heading = "Output")]
    pub(crate) format: Format,
    #[arg(skip)]
    formats: std::marker::PhantomData<F>,
}

/// `--format` and `--color`: every command whose text report may be coloured.
#[derive(clap::Args)]
pub(crate) struct OutputArgs<F: Formats> {
    #[command(flatten)]
    pub(crate) format: FormatArg<F>,
    /// When to colour the text report.
    #[arg(long, value_enum, default_value = "auto", help_heading = "Output")]
    pub(crate) color: ColorChoice,
}

impl<F: Formats> OutputArgs<F> {
    /// The format asked for.
    pub(crate) fn format(&self) -> Format {
        self.format.format
    }
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum ColorChoice {
    /// Colour when stdout is a terminal and NO_COLOR is unset.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

#[derive(Clone, Copy, ValueEnum)]
pub(crate) enum CrtArg {
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
#[command(next_help_heading = "Input")]
pub(crate) struct DiagnoseInputs {
    /// Force the CRT flavour instead of reading it from the evidence.
    #[arg(long, value_enum)]
    pub(crate) crt: Option<CrtArg>,
    /// Extra rule file (same format as symbol-db/rules.json); its rules are tried first.
    #[arg(long = "rules", value_name = "FILE")]
    pub(crate) rules: Vec<PathBuf>,
    /// Longest log line kept, in bytes; longer lines are cut with a warning.
    #[arg(long, default_value_t = 1 << 20, value_name = "BYTES", help_heading = "Limits")]
    pub(crate) max_line_bytes: usize,
    /// Longest mangled name handed to the demangler, in bytes (longer ones are shown raw).
    #[arg(
        long,
        default_value_t = 4096,
        value_name = "BYTES",
        help_heading = "Limits"
    )]
    pub(crate) max_demangle_len: usize,
    /// Deepest template/function-type nesting handed to the demangler (deeper ones are shown raw;
    /// msvc-demangler overflows the stack on very deep names).
    #[arg(long, default_value_t = 48, value_name = "LEVELS", value_parser = clap::value_parser!(u16).range(1..=64), help_heading = "Limits")]
    pub(crate) max_demangle_depth: u16,
    /// Most distinct symbols kept; records of further symbols are counted, not kept (a log of
    /// endless distinct names cannot exhaust memory).
    #[arg(long, default_value_t = lnkfix::read::linklog::DEFAULT_MAX_SYMBOLS, value_name = "N", help_heading = "Limits")]
    pub(crate) max_symbols: usize,
    /// Largest output a demangling may produce, in bytes, bounded before it runs (names whose
    /// back-references could expand past it are shown raw).
    #[arg(long, default_value_t = lnkfix::read::demangle::DEFAULT_MAX_OUTPUT, value_name = "BYTES", help_heading = "Limits")]
    pub(crate) max_demangle_output: usize,
    #[command(flatten)]
    pub(crate) search: SearchArgs,
    /// A directory of the build's objects: their /DEFAULTLIB directives are CRT evidence.
    #[arg(long = "objects", value_name = "DIR", help_heading = "Input")]
    pub(crate) objects: Vec<PathBuf>,
    /// The build directory: CRT options in its build.ninja are evidence; with --verify the link
    /// runs there, and build.ninja gives the command when the log does not.
    #[arg(long = "build-dir", value_name = "DIR", help_heading = "Input")]
    pub(crate) build_dir: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) verify: VerifyArgs,
}

/// Running the failed link again with the answer.
#[derive(clap::Args)]
#[command(next_help_heading = "Verify")]
pub(crate) struct VerifyArgs {
    /// Run the failed link again with the printed flags (outputs into a temporary directory) and
    /// report whether it links: VERIFIED, or NOT VERIFIED (exit 4) with what remains.
    #[arg(long)]
    pub(crate) verify: bool,
    /// The failed link command, when the log and --build-dir do not show it (any program, run
    /// without a shell).
    #[arg(long = "link-command", value_name = "COMMAND", requires = "verify")]
    pub(crate) link_command: Option<String>,
    /// With --verify: at most this many runs; each later run adds what the diagnosis of the
    /// previous run's output finds.
    #[arg(long = "verify-rounds", value_name = "N", default_value_t = 2, requires = "verify", value_parser = clap::value_parser!(u32).range(1..=10))]
    pub(crate) rounds: u32,
    /// With --verify: the time limit of each run, in seconds; then the link and everything it
    /// started are stopped.
    #[arg(long = "verify-timeout", value_name = "SECONDS", default_value_t = 120, requires = "verify", value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub(crate) timeout: u64,
    /// With --verify: run this linker even though it lies in the log's or the build's directory
    /// (where a crafted log could have planted it); may be repeated.
    #[arg(long = "allow-linker", value_name = "PATH", requires = "verify")]
    pub(crate) allow_linker: Vec<PathBuf>,
    /// With --verify: the most bytes read of one response file, and of build.ninja with the
    /// files it includes; past it the run is refused.
    #[arg(long = "verify-max-bytes", value_name = "BYTES", default_value_t = 256 << 20, requires = "verify", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_bytes: u64,
    /// With --verify: the most bytes one command's response files hold in all, and that
    /// build.ninja's variables evaluate to; past it the run is refused.
    #[arg(long = "verify-max-expansion", value_name = "BYTES", default_value_t = 256 << 20, requires = "verify", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) max_expansion: u64,
}

impl VerifyArgs {
    /// The verification these arguments ask for, if any.
    pub(crate) fn options(&self, build_dir: Option<&PathBuf>) -> Option<VerifyOptions> {
        self.verify.then(|| VerifyOptions {
            bounds: lnkfix::fix::verify::Bounds {
                read_bytes: self.max_bytes,
                expanded_bytes: self.max_expansion,
            },
            link_command: self.link_command.clone(),
            build_dir: build_dir.cloned(),
            rounds: self.rounds,
            timeout: std::time::Duration::from_secs(self.timeout),
            allow_linker: self.allow_linker.clone(),
        })
    }
}

/// Where to look for libraries. With none given: the LIB variable (as vcvars sets it), then
/// HIP_PATH, VCToolsInstallDir and the Windows SDK variables, as link.exe does, then CUDA_PATH
/// and the active Python's library directories.
#[derive(clap::Args)]
#[command(next_help_heading = "Libraries")]
pub(crate) struct SearchArgs {
    /// A library directory (repeatable; searched in order, as the linker does).
    #[arg(long = "lib-dir", value_name = "DIR")]
    pub(crate) lib_dirs: Vec<PathBuf>,
    /// The HIP SDK (its `lib` directory is searched).
    #[arg(long = "hip-path", value_name = "DIR")]
    pub(crate) hip_path: Option<PathBuf>,
    /// The Visual C++ tools directory (`VC\Tools\MSVC\<ver>`) or its lib directory.
    #[arg(long = "vc-lib", value_name = "DIR")]
    pub(crate) vc_lib: Option<PathBuf>,
    /// The Windows Kits `Lib\<ver>` root (both `um` and `ucrt` are searched).
    #[arg(long = "sdk-lib", value_name = "DIR")]
    pub(crate) sdk_lib: Option<PathBuf>,
    /// Library files by glob (quote it), e.g. 'C:\Program Files\AMD\ROCm\*\lib\*.lib'.
    #[arg(long = "lib", value_name = "GLOB")]
    pub(crate) globs: Vec<String>,
    #[command(flatten)]
    pub(crate) python: PythonChoiceArgs,
    /// Target machine: x64, x86, arm64, arm64ec (default: x64; diagnose: the log's machine picks
    /// the VC, SDK and CUDA layout directories when the log shows one).
    #[arg(long, value_parser = parse_machine)]
    pub(crate) arch: Option<Machine>,
    /// Where the index cache lives (default: %LOCALAPPDATA%\lnkfix\cache on Windows,
    /// $XDG_CACHE_HOME/lnkfix or ~/.cache/lnkfix elsewhere).
    #[arg(long = "cache-dir", value_name = "DIR")]
    pub(crate) cache_dir: Option<PathBuf>,
    /// Read every library again instead of using the cache.
    #[arg(long = "no-cache", conflicts_with = "cache_dir")]
    pub(crate) no_cache: bool,
}

/// Which Python's library directories are searched (`diagnose`, `explain`, `index`, `patch`,
/// `doctor`).
#[derive(clap::Args)]
pub(crate) struct PythonChoiceArgs {
    /// The Python whose libs, torch\lib, nvidia\*\lib and tvm_ffi\lib are searched, instead of
    /// the active one (VIRTUAL_ENV's, CONDA_PREFIX's, else python on PATH); `none`: no Python.
    #[arg(long = "python", value_name = "EXE")]
    pub(crate) python: Option<PathBuf>,
    /// Start no Python interpreter and search no Python directories (as LNKFIX_NO_PYTHON=1).
    #[arg(long = "no-python", conflicts_with = "python")]
    pub(crate) no_python: bool,
}

impl PythonChoiceArgs {
    /// The choice these arguments make.
    pub(crate) fn choice(&self) -> PythonChoice {
        match &self.python {
            _ if self.no_python => PythonChoice::Skip,
            Some(exe) if exe.as_os_str().eq_ignore_ascii_case("none") => PythonChoice::Skip,
            Some(exe) => PythonChoice::Exe(exe.clone()),
            None => PythonChoice::Active,
        }
    }
}

pub(crate) fn parse_machine(text: &str) -> Result<Machine, String> {
    Machine::parse_arch(text)
        .ok_or_else(|| format!("unknown architecture {text:?} (x64, x86, arm64, arm64ec)"))
}

#[derive(clap::Args)]
pub(crate) struct DiagnoseArgs {
    /// The link log (link.exe or lld-link output, however wrapped), or `-` for stdin.
    pub(crate) log: PathBuf,
    #[command(flatten)]
    pub(crate) inputs: DiagnoseInputs,
    #[command(flatten)]
    pub(crate) output: OutputArgs<WithCiFormats>,
    /// Also print the patch for this extension.py (the JSON records its hash for `patch --apply`).
    #[arg(long, value_name = "EXTENSION_PY", help_heading = "Output")]
    pub(crate) patch: Option<PathBuf>,
}

#[derive(clap::Args)]
pub(crate) struct TriageArgs {
    /// The supervisor/build log, or `-` for stdin.
    pub(crate) log: String,
    #[command(flatten)]
    pub(crate) output: OutputArgs<WithCiFormats>,
    /// Extra rows (same format as symbol-db/triage.json) or link-symbol rules.
    #[arg(long = "rules", value_name = "FILE", help_heading = "Input")]
    pub(crate) rules: Vec<PathBuf>,
    /// When the attempt started (RFC 3339 with a zone, e.g. 2026-11-30T12:00:00Z): an older log is stale.
    #[arg(long, value_name = "TIME", help_heading = "Input")]
    pub(crate) since: Option<String>,
    /// A file touched when the attempt started: a log older than it is stale.
    #[arg(long = "started-after", value_name = "FILE", help_heading = "Input")]
    pub(crate) started_after: Option<PathBuf>,
    /// The GPU arch the build is for (e.g. gfx1201); else TVM_FFI_ROCM_ARCH_LIST.
    #[arg(long = "arch-intended", value_name = "GFX", help_heading = "Input")]
    pub(crate) arch_intended: Option<String>,
    /// Force the CRT flavour of the embedded link diagnosis.
    #[arg(long, value_enum, help_heading = "Input")]
    pub(crate) crt: Option<CrtArg>,
    // Runtime stage: the code that raises each evidence line's Python exception, as `whence`
    // finds it.
    #[command(flatten)]
    pub(crate) python: PythonArgs,
}

/// Where the Python sources are (`whence`, and `triage`'s raisers).
#[derive(clap::Args)]
#[command(next_help_heading = "Python sources")]
pub(crate) struct PythonArgs {
    /// A directory of Python sources to search for the code that raises an error message: a
    /// site-packages, a standard library (repeatable). For triage: the runtime stage's raisers.
    #[arg(long = "site-packages", value_name = "DIR")]
    pub(crate) site_packages: Vec<PathBuf>,
    /// The Python interpreter whose sysconfig purelib, platlib and stdlib are searched instead.
    #[arg(long, value_name = "EXE", conflicts_with = "site_packages")]
    pub(crate) python: Option<PathBuf>,
}

impl PythonArgs {
    /// What the options say; `None` when neither is given.
    pub(crate) fn spec(&self) -> Option<lnkfix::commands::whence::SourceSpec> {
        match (&self.python, self.site_packages.is_empty()) {
            (Some(exe), _) => Some(lnkfix::commands::whence::SourceSpec::Python(exe.clone())),
            (None, false) => Some(lnkfix::commands::whence::SourceSpec::Dirs(
                self.site_packages.clone(),
            )),
            (None, true) => None,
        }
    }
}

#[derive(clap::Args)]
pub(crate) struct WhenceArgs {
    /// The message as the log shows it, with or without its exception type: "KeyError: '...'",
    /// "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)".
    pub(crate) message: String,
    #[command(flatten)]
    pub(crate) python: PythonArgs,
    /// Most candidates shown.
    #[arg(long, default_value_t = 10, value_name = "N", help_heading = "Output")]
    pub(crate) limit: usize,
    #[command(flatten)]
    pub(crate) output: OutputArgs<TextOrJson>,
}

impl WhenceArgs {
    /// The request.
    pub(crate) fn request(&self) -> app::WhenceRequest {
        app::WhenceRequest {
            message: self.message.clone(),
            sources: self.python.spec().unwrap_or_default(),
            limit: self.limit,
        }
    }
}

#[derive(clap::Args)]
pub(crate) struct DoctorArgs {
    /// Extra library directories to look in besides LIB.
    #[arg(long = "lib-dir", value_name = "DIR", help_heading = "Checks")]
    pub(crate) lib_dirs: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) output: OutputArgs<TextOrJson>,
    /// Check tvm-ffi's recipe (TVM_FFI_ROCM_ARCH_LIST, TRITON_OVERRIDE_ARCH) even when the
    /// environment does not look like a tvm-ffi one.
    #[arg(long = "tvm-ffi", help_heading = "Checks")]
    pub(crate) tvm_ffi: bool,
    /// The log the next attempt writes: check that no leftover process holds a file in its
    /// directory or runs under a suspect name (as `lnkfix zombies DIR --since now`).
    #[arg(long, value_name = "PATH", help_heading = "Checks")]
    pub(crate) log: Option<PathBuf>,
    #[command(flatten, next_help_heading = "Checks")]
    pub(crate) python: PythonChoiceArgs,
    /// The machine whose library directories are listed: x64, x86, arm64, arm64ec (default:
    /// the machine of the --for-log log, else x64).
    #[arg(long, value_parser = parse_machine, help_heading = "Checks")]
    pub(crate) arch: Option<Machine>,
    /// A failed link's log: list the directories `diagnose LOG` would search, for the machine
    /// the log shows (as diagnose picks it).
    #[arg(long = "for-log", value_name = "LOG", help_heading = "Checks")]
    pub(crate) for_log: Option<PathBuf>,
}

#[derive(clap::Args)]
pub(crate) struct ZombiesArgs {
    /// The log files or their directories (a directory covers every file under it).
    #[arg(required = true, value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// When the attempt started (as triage --since reads it, e.g. 2026-11-30T12:00:00Z): processes
    /// started before it are leftovers.
    #[arg(long, value_name = "TIME", help_heading = "Attempt")]
    pub(crate) since: Option<String>,
    /// A file touched when the attempt started: its modification time is the start.
    #[arg(long = "started-after", value_name = "FILE", help_heading = "Attempt")]
    pub(crate) started_after: Option<PathBuf>,
    /// End the leftovers: SIGTERM, then SIGKILL (TerminateProcess on Windows); needs --since or
    /// --started-after.
    #[arg(long, help_heading = "Actions")]
    pub(crate) kill: bool,
    /// With --kill: then delete the files the leftovers held, once nothing holds them.
    #[arg(long, help_heading = "Actions")]
    pub(crate) delete: bool,
    /// Another suspect program, by file name (e.g. ft-serve); repeatable.
    #[arg(long = "name", value_name = "NAME", help_heading = "Suspects")]
    pub(crate) names: Vec<String>,
    /// Leave out the shipped suspect names (symbol-db/suspects.txt): only processes that hold a
    /// file, and the --name programs, are listed (and ended).
    #[arg(long = "no-default-names", help_heading = "Suspects")]
    pub(crate) no_default_names: bool,
    #[command(flatten)]
    pub(crate) output: OutputArgs<TextOrJson>,
}

#[derive(clap::Args)]
pub(crate) struct IndexArgs {
    /// Library directories to index (same as --lib-dir).
    pub(crate) dirs: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) search: SearchArgs,
    /// Print every symbol with its provider instead of the summary.
    #[arg(long, help_heading = "Output")]
    pub(crate) list: bool,
    #[command(flatten)]
    pub(crate) output: FormatArg<TextOrJson>,
}

#[derive(clap::Args)]
pub(crate) struct ExplainArgs {
    /// The name: linker-level (`__imp_CreateFileW`, `?f@@YAXXZ`, `hipMalloc`) or demangled
    /// (`'void * __cdecl operator new(unsigned __int64)'`, quoted).
    pub(crate) symbol: String,
    #[command(flatten)]
    pub(crate) search: SearchArgs,
    /// Rank providers for this CRT flavour (else: both flavours' libraries are shown).
    #[arg(long, value_enum, help_heading = "Input")]
    pub(crate) crt: Option<CrtArg>,
    /// Add a rule file (same format as symbol-db/rules.json); may be repeated.
    #[arg(long = "rules", value_name = "FILE", help_heading = "Input")]
    pub(crate) rules: Vec<PathBuf>,
    #[command(flatten)]
    pub(crate) output: FormatArg<TextOrJson>,
}

#[derive(clap::Args)]
pub(crate) struct PatchArgs {
    /// tvm-ffi's `tvm_ffi/cpp/extension.py`, or a build definition (CMakeLists.txt, *.vcxproj,
    /// build.rs, Cargo.toml, setup.py, binding.gyp, meson.build); without it, the definition is
    /// found from the log and --build-dir. The path is written into the diff headers as given.
    pub(crate) file: Option<PathBuf>,
    /// The failed link's log, or a saved `diagnose --format json`.
    #[arg(
        long = "from",
        value_name = "LOG|DIAGNOSIS.json",
        help_heading = "Input"
    )]
    pub(crate) from: String,
    #[command(flatten)]
    pub(crate) inputs: DiagnoseInputs,
    /// Write the diff here instead of stdout.
    #[arg(
        short = 'o',
        long = "output",
        value_name = "FILE",
        help_heading = "Patch"
    )]
    pub(crate) output: Option<PathBuf>,
    /// Change the file in place: atomically, with a backup (EXTENSION_PY.orig).
    #[arg(long, help_heading = "Patch")]
    pub(crate) apply: bool,
    /// With --apply: keep no backup.
    #[arg(long, requires = "apply", help_heading = "Patch")]
    pub(crate) no_backup: bool,
    /// Bake the HIP library directory found now into the file instead of reading HIP_PATH at run time.
    #[arg(long, help_heading = "Patch")]
    pub(crate) literal_paths: bool,
    /// With --verify: write (or apply) the patch even when the fix did not verify.
    #[arg(long, requires = "verify", help_heading = "Patch")]
    pub(crate) force: bool,
    /// Build definitions: the failing target (CMake target), instead of the one the log shows.
    #[arg(long, value_name = "NAME", help_heading = "Patch")]
    pub(crate) target: Option<String>,
    /// Build definitions: the failing configuration (MSBuild `Release|x64`), instead of the
    /// one the log shows.
    #[arg(long, value_name = "CONFIG|PLATFORM", help_heading = "Patch")]
    pub(crate) configuration: Option<String>,
    /// `--format json`: build definitions only.
    #[command(flatten)]
    pub(crate) format: FormatArg<TextOrJson>,
}

impl SearchArgs {
    /// The library search these arguments ask for.
    pub(crate) fn search(&self, env: &dyn Fn(&str) -> Option<String>) -> LibrarySearch {
        LibrarySearch {
            options: SearchOptions {
                lib_dirs: self.lib_dirs.clone(),
                hip_path: self.hip_path.clone(),
                vc_lib: self.vc_lib.clone(),
                sdk_lib: self.sdk_lib.clone(),
                globs: self.globs.clone(),
                arch: self.arch.unwrap_or(Machine::X64),
                python: self.python.choice(),
                link_machine: None,
                arch_given: self.arch.is_some(),
            },
            cache_dir: if self.no_cache {
                None
            } else {
                self.cache_dir
                    .clone()
                    .or_else(|| app::default_cache_dir(env))
            },
        }
    }
}

impl DiagnoseInputs {
    /// The diagnosis these arguments ask for (of `log`).
    pub(crate) fn request(
        &self,
        log: &Path,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> DiagnoseRequest {
        DiagnoseRequest {
            log: log.to_path_buf(),
            crt: self.crt.map(Flavour::from),
            rules: self.rules.clone(),
            read_limits: ReadLimits {
                max_line_bytes: self.max_line_bytes,
                demangle: DemangleLimits {
                    max_len: self.max_demangle_len,
                    max_depth: usize::from(self.max_demangle_depth),
                    max_output: self.max_demangle_output,
                },
                max_symbols: self.max_symbols,
                ..ReadLimits::default()
            },
            search: self.search.search(env),
            objects: self.objects.clone(),
            build_dir: self.build_dir.clone(),
            patch: None,
            verify: self.verify.options(self.build_dir.as_ref()),
        }
    }
}

impl DiagnoseArgs {
    /// The request.
    pub(crate) fn request(&self, env: &dyn Fn(&str) -> Option<String>) -> DiagnoseRequest {
        let mut request = self.inputs.request(&self.log, env);
        request.patch = self.patch.clone();
        request
    }
}

impl ExplainArgs {
    /// The request.
    pub(crate) fn request(&self, env: &dyn Fn(&str) -> Option<String>) -> ExplainRequest {
        ExplainRequest {
            symbol: self.symbol.clone(),
            search: self.search.search(env),
            crt: self.crt.map(Flavour::from),
            rules: self.rules.clone(),
        }
    }
}

impl IndexArgs {
    /// The request: DIRS come first, as `--lib-dir`s.
    pub(crate) fn request(&self, env: &dyn Fn(&str) -> Option<String>) -> IndexRequest {
        let mut search = self.search.search(env);
        search
            .options
            .lib_dirs
            .splice(0..0, self.dirs.iter().cloned());
        IndexRequest {
            search,
            list: self.list,
        }
    }
}

impl PatchArgs {
    /// The request.
    pub(crate) fn request(&self, env: &dyn Fn(&str) -> Option<String>) -> PatchRequest {
        PatchRequest {
            extension_py: self.file.clone().unwrap_or_default(),
            from: self.from.clone(),
            diagnose: self.inputs.request(Path::new(&self.from), env),
            literal_paths: self.literal_paths,
        }
    }
}

impl PatchArgs {
    /// Whether the file is a build definition (or none is named): the build-definition patch.
    pub(crate) fn is_build_definition(&self) -> bool {
        self.file
            .as_deref()
            .is_none_or(|f| lnkfix::fix::patch::build_file::system_of_file(f).is_some())
    }

    /// The request for a build definition.
    pub(crate) fn build_request(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> lnkfix::commands::app::BuildPatchRequest {
        lnkfix::commands::app::BuildPatchRequest {
            file: self.file.clone(),
            target: self.target.clone(),
            configuration: self.configuration.clone(),
            from: self.from.clone(),
            diagnose: self.inputs.request(Path::new(&self.from), env),
        }
    }
}

impl ZombiesArgs {
    /// The request; an unreadable `--since` is an error.
    pub(crate) fn request(&self) -> Result<lnkfix::commands::zombies::ZombiesRequest, String> {
        let since = self
            .since
            .as_deref()
            .map(lnkfix::commands::triage::parse_time)
            .transpose()
            .map_err(|e| e.to_string())?;
        Ok(lnkfix::commands::zombies::ZombiesRequest {
            paths: self.paths.clone(),
            since,
            started_after: self.started_after.clone(),
            kill: self.kill,
            delete: self.delete,
            names: self.names.clone(),
            default_names: !self.no_default_names,
            ..Default::default()
        })
    }
}

impl TriageArgs {
    /// The triage options these arguments ask for; an unreadable `--since` is an error.
    pub(crate) fn options(
        &self,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<lnkfix::commands::triage::TriageOptions, String> {
        let since = self
            .since
            .as_deref()
            .map(lnkfix::commands::triage::parse_time)
            .transpose()
            .map_err(|e| e.to_string())?;
        Ok(lnkfix::commands::triage::TriageOptions {
            since,
            started_after: self.started_after.clone(),
            extra_rules: self.rules.clone(),
            intended_arch: self.arch_intended.clone(),
            arch_list_env: env("TVM_FFI_ROCM_ARCH_LIST"),
            list_processes: true,
            diagnose: lnkfix::resolve::DiagnoseOptions {
                crt: self.crt.map(Flavour::from),
                log_name: self.log.clone(),
                ..Default::default()
            },
            python_sources: self.python.spec(),
            ..Default::default()
        })
    }
}
