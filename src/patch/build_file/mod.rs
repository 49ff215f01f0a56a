//! Writes a diagnosed fix into the file where a build is defined (CMake's `CMakeLists.txt`, an
//! MSBuild `.vcxproj`, cargo's `build.rs`, a setuptools `setup.py`, node-gyp's `binding.gyp`,
//! meson's `meson.build`), in that build system's idiom, as the smallest change to the failing
//! target only.
//!
//! Each build system is one module with the same two entry points:
//! - `edit(path, source, target, change)`: the edited text of one definition file, or
//!   [`EditOutcome::AlreadyDone`] when everything the change asks for is there (idempotence), or
//!   a [`BuildEditError`]. Pure: reads nothing but its arguments, writes nothing.
//! - `locate(...)`: where the definition file and the failing target are, from what the log and
//!   the build directory show.
//!
//! Writing (diff, `--apply` with a backup, `--verify` first) is shared with the `extension.py`
//! patch (`crate::patch::apply_patch`, `crate::patch::diff`).

use std::path::{Path, PathBuf};

pub mod cargo;
pub mod meson;
pub mod node_gyp;
pub mod setuptools;
mod text;

use crate::build_system::{BuildSystem, Recognised};
use crate::rules::Flavour;

/// What the diagnosis asks a build definition to add or change.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct BuildChange {
    /// Libraries to link, as file names the linker is given (`python312.lib`, `amdhip64.lib`),
    /// in link order.
    pub libraries: Vec<String>,
    /// Directories to search for them, as found on the user's machine (Windows paths are kept
    /// as text: the build may be defined on another machine than the one lnkfix runs on).
    pub library_dirs: Vec<String>,
    /// The C runtime every object of the link must use, when the problem is a runtime mismatch.
    pub runtime: Option<Flavour>,
}

impl BuildChange {
    /// Whether the change asks for nothing.
    pub fn is_empty(&self) -> bool {
        self.libraries.is_empty() && self.library_dirs.is_empty() && self.runtime.is_none()
    }
}

/// What a build system's `locate` is given: what the log and the build directory show.
#[derive(Debug, Clone, Copy)]
pub struct LocateInput<'a> {
    /// The whole log, decoded to text (lines as the build printed them).
    pub log: &'a str,
    /// Where the log was read from, when it is a file (relative paths printed in the log are
    /// tried against its directory after `build_dir`).
    pub log_path: Option<&'a Path>,
    /// The build system recognised in the log, when one was.
    pub recognised: Option<&'a Recognised>,
    /// The failed link's output file as the log names it (`/OUT:` of the link line, or the
    /// ninja/make target), when known.
    pub output: Option<&'a str>,
    /// The build directory the user named with `--build-dir`, when they did.
    pub build_dir: Option<&'a Path>,
}

/// One edit of one build definition file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileEdit {
    /// Which build system's idiom the edit is written in.
    pub system: BuildSystem,
    /// The file edited.
    pub path: PathBuf,
    /// The file's text before (bytes as read: BOM and line endings kept).
    pub before: Vec<u8>,
    /// The file's text after.
    pub after: Vec<u8>,
    /// The target edited (CMake target, MSBuild project, crate, extension, gyp target), when
    /// the build system has targets.
    pub target: Option<String>,
    /// The configuration and platform edited (`Release|x64`), when the edit is limited to one.
    pub configuration: Option<String>,
    /// One line for people: what was added where.
    pub description: String,
}

/// What an edit of a build definition came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EditOutcome {
    /// The file needs this edit.
    Edited(FileEdit),
    /// Everything the change asks for is already in the file: nothing to write.
    AlreadyDone,
}

/// Where a failing link's build is defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The build system.
    pub system: BuildSystem,
    /// The definition file to edit.
    pub file: PathBuf,
    /// The failing target, when known.
    pub target: Option<String>,
    /// The failing configuration and platform, when known.
    pub configuration: Option<String>,
    /// How it was found, for people (`the [x.vcxproj] suffix of the failed link's lines`).
    pub evidence: String,
}

/// Why a build definition cannot be edited.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildEditError {
    /// The file cannot be read as its build system's format.
    #[error("{path}: cannot read it as {format}: {reason}")]
    Unparsable {
        /// The file.
        path: PathBuf,
        /// The format expected (`MSBuild XML`, `Rust`, ...).
        format: &'static str,
        /// What is wrong, with a line number where there is one.
        reason: String,
    },
    /// The target named (or found in the log) is not defined in the file.
    #[error("{path}: no target {target}{}", candidates_text(candidates))]
    TargetNotFound {
        /// The file.
        path: PathBuf,
        /// The target looked for.
        target: String,
        /// The targets the file does define.
        candidates: Vec<String>,
    },
    /// More than one target could be the failing one, and nothing decides.
    #[error(
        "{path}: which target failed is not known{}; name it with --target",
        candidates_text(candidates)
    )]
    Ambiguous {
        /// The file.
        path: PathBuf,
        /// The targets it could be.
        candidates: Vec<String>,
    },
    /// A file needed to find or edit the place cannot be read (missing, unreadable).
    #[error("{path}: cannot read it: {reason}")]
    Unreadable {
        /// The file.
        path: PathBuf,
        /// The I/O error, for people.
        reason: String,
    },
    /// The change cannot be written in this build system's idiom (for example a value that
    /// would need characters the format cannot hold).
    #[error("{path}: {reason}")]
    Unsupported {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
}

fn candidates_text(candidates: &[String]) -> String {
    if candidates.is_empty() {
        String::new()
    } else {
        format!(" (it defines: {})", candidates.join(", "))
    }
}
