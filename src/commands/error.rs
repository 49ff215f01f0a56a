//! The error a command ends with: each variant carries the file or name it is about. Every one
//! of them means exit status 2 (bad usage or unreadable input); problems that let the run go on
//! are warnings in the report instead.

use std::path::PathBuf;

use crate::commands::explain::NotASymbol;
use crate::commands::triage::TriageError;
use crate::commands::zombies::ZombiesError;
use crate::fix::patch::PatchError;
use crate::output::terminal::path_text;
use crate::rules::RuleError;

/// Why a command could not produce its report.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A file could not be read.
    #[error("{}: cannot read: {source}", path_text(path))]
    Read {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A file could not be written.
    #[error("{}: cannot write: {source}", path_text(path))]
    Write {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// The log is not a file that can be read (a directory, ...).
    #[error("{path}: {reason}")]
    Log {
        /// The log as given.
        path: String,
        /// Why it cannot be read.
        reason: String,
    },
    /// A rule file is unreadable or invalid.
    #[error(transparent)]
    Rules(#[from] RuleError),
    /// `index` found nothing to index.
    #[error("no library directories: give DIRS, --lib-dir, --lib, or set LIB (as vcvars does)")]
    NoLibraries,
    /// `explain` was given something that is not a symbol name.
    #[error(transparent)]
    NotASymbol(#[from] NotASymbol),
    /// `triage` could not read its log.
    #[error(transparent)]
    Triage(#[from] TriageError),
    /// `patch` needs the CRT flavour and nothing in the evidence tells it.
    #[error("{from}: the CRT flavour is unknown, so the libraries to add are too. lnkfix looked for: a /MD, /MT, /MDd or /MTd (or -fms-runtime-lib=) on a command line, LNK2038 RuntimeLibrary or LNK4098 texts, __imp_ references to CRT functions, debug-only CRT names, and references from CRT library members; the log has none. Pass --crt static|dynamic|static-debug|dynamic-debug, or --objects DIR (the build's objects: their /DEFAULTLIB directives tell)")]
    FlavourUnknown {
        /// The log or saved diagnosis.
        from: String,
    },
    /// `patch --from` names JSON that is not a diagnosis it can use.
    #[error("{path}: {source}")]
    SavedDiagnosis {
        /// The `--from` file.
        path: PathBuf,
        /// What is wrong with it.
        source: crate::fix::patch::SavedDiagnosisError,
    },
    /// `patch` could not plan or apply the patch.
    #[error(transparent)]
    Patch(#[from] PatchError),
    /// A build definition cannot be found or edited.
    #[error(transparent)]
    BuildFile(#[from] crate::fix::patch::build_file::BuildEditError),
    /// No build definition named, and none found from the log or the build directory.
    #[error("{from}: no build definition found from the log{}: name the file (lnkfix patch FILE --from LOG) or the build directory (--build-dir)", if *with_build_dir { " and --build-dir" } else { "" })]
    NoBuildDefinition {
        /// The `--from` argument.
        from: String,
        /// Whether `--build-dir` was given.
        with_build_dir: bool,
    },
    /// `zombies` could not run, or refused to end anything (`--kill` without `--since`).
    #[error(transparent)]
    Zombies(#[from] ZombiesError),
    /// `whence` found no Python sources to search.
    #[error(transparent)]
    Whence(#[from] crate::commands::whence::WhenceError),
}
