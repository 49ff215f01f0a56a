//! Writes a diagnosed fix into the file where a build is defined (CMake's `CMakeLists.txt`, an
//! MSBuild `.vcxproj`, cargo's `build.rs`, a setuptools `setup.py`, node-gyp's `binding.gyp`,
//! meson's `meson.build`), in that build system's idiom, as the smallest change to the failing
//! target only.
//!
//! Each build system is one module with the same two entry points:
//! - `edit(path, source, target, change)`: the edited text of one definition file, or
//!   [`EditOutcome::AlreadyDone`] when everything the change asks for is there (idempotence), or
//!   a [`BuildEditError`]. Pure: reads nothing but its arguments, writes nothing.
//! - `locate(input: &LocateInput) -> Result<Option<Place>, BuildEditError>`: where the
//!   definition file and the failing target are, from what the log and the build directory show
//!   ([`LocateInput`]); `Ok(None)` when this build system's traces are not there. Reads files
//!   (the build directory's, the project's) but writes nothing.
//!
//! Writing (diff, `--apply` with a backup, `--verify` first) is shared with the `extension.py`
//! patch (`crate::fix::patch::apply_patch`, `crate::fix::patch::diff`).

pub mod cargo;
pub mod cmake;
mod cmake_lang;
pub mod meson;
pub mod msbuild;
pub mod node_gyp;
pub mod setuptools;
mod text;

use std::path::{Path, PathBuf};

use crate::read::build_system::{BuildSystem, Recognised};
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

/// The build system a definition file belongs to, told by its name: `CMakeLists.txt` (and
/// `*.cmake`), `*.vcxproj`, `build.rs`/`Cargo.toml`, `setup.py`/`pyproject.toml`,
/// `binding.gyp`/`*.gyp`, `meson.build`.
pub fn system_of_file(path: &Path) -> Option<BuildSystem> {
    let name = path.file_name()?.to_str()?.to_ascii_lowercase();
    let system = match name.as_str() {
        "cmakelists.txt" => BuildSystem::Cmake,
        "build.rs" | "cargo.toml" => BuildSystem::Cargo,
        "setup.py" | "pyproject.toml" => BuildSystem::Setuptools,
        "meson.build" => BuildSystem::Meson,
        // `.cargo/config.toml`: where a crate's runtime (`+crt-static`) is set.
        "config.toml" | "config"
            if path
                .parent()
                .and_then(Path::file_name)
                .is_some_and(|d| d.eq_ignore_ascii_case(".cargo")) =>
        {
            BuildSystem::Cargo
        }
        _ if name.ends_with(".cmake") => BuildSystem::Cmake,
        _ if name.ends_with(".vcxproj") => BuildSystem::Msbuild,
        _ if name.ends_with(".gyp") => BuildSystem::NodeGyp,
        _ => return None,
    };
    Some(system)
}

/// Edits one definition file with its build system's module (see the module doc for the
/// contract of `edit`).
pub fn edit_file(
    system: BuildSystem,
    path: &Path,
    source: &[u8],
    target: Option<&str>,
    change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    match system {
        BuildSystem::Cmake => cmake::edit(path, source, target, change),
        BuildSystem::Msbuild => msbuild::edit(path, source, target, change),
        BuildSystem::Cargo => cargo::edit(path, source, target, change),
        BuildSystem::Setuptools | BuildSystem::TorchExtension => {
            setuptools::edit(path, source, target, change)
        }
        BuildSystem::NodeGyp => node_gyp::edit(path, source, target, change),
        BuildSystem::Meson => meson::edit(path, source, target, change),
        BuildSystem::TvmFfi => Err(BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason: "tvm-ffi's JIT is patched in extension.py (lnkfix patch extension.py)".into(),
        }),
    }
}

/// Finds where the failing link's build is defined: the recognised system's `locate` first,
/// then the others that can tell from the build directory alone. `Ok(None)` when none can.
pub fn locate_place(input: &LocateInput<'_>) -> Result<Option<Place>, BuildEditError> {
    let first = input.recognised.map(|r| r.kind);
    let mut order: Vec<BuildSystem> = first.into_iter().collect();
    for system in [BuildSystem::Msbuild, BuildSystem::Cmake] {
        if Some(system) != first {
            order.push(system);
        }
    }
    for system in order {
        let found = match system {
            BuildSystem::Cmake => cmake::locate(input)?,
            BuildSystem::Msbuild => msbuild::locate(input)?,
            BuildSystem::Cargo => cargo::locate(input)?,
            BuildSystem::Setuptools | BuildSystem::TorchExtension => setuptools::locate(input)?,
            BuildSystem::NodeGyp => node_gyp::locate(input)?,
            BuildSystem::Meson => meson::locate(input)?,
            BuildSystem::TvmFfi => None,
        };
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// Edits the definition file of a found place: MSBuild limited to the place's configuration
/// when it is known, the others through [`edit_file`].
pub fn edit_place(
    place: &Place,
    source: &[u8],
    change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    match place.system {
        BuildSystem::Msbuild => {
            msbuild::edit_configuration(&place.file, source, place.configuration.as_deref(), change)
        }
        system => edit_file(system, &place.file, source, place.target.as_deref(), change),
    }
}

/// The failed link's output as the log names it: ninja's `FAILED: <output>`, else the `/OUT:`
/// (or `-out:`) of a link line.
pub fn failed_output(log: &str) -> Option<String> {
    for line in log.lines() {
        if let Some(rest) = line.trim_start().strip_prefix("FAILED: ") {
            if let Some(first) = rest.split_whitespace().next() {
                return Some(first.to_string());
            }
        }
    }
    for line in log.lines() {
        for word in line.split_whitespace() {
            let word = word.trim_matches('"');
            let lower = word.to_ascii_lowercase();
            if lower.starts_with("/out:") || lower.starts_with("-out:") {
                let value = word[5..].trim_matches('"');
                if !value.is_empty() {
                    return Some(value.to_string());
                }
            }
        }
    }
    None
}

#[cfg(test)]
pub(crate) mod mutations {
    //! Mutated files for the no-panic and idempotence properties of every build system's edit.

    /// `count` mutations of `seed_text`, the same on every run: bytes flipped, cut, or given
    /// one of `specials` (the format's delimiters), up to three changes each.
    pub(crate) fn mutations(seed_text: &[u8], specials: &[&[u8]], count: usize) -> Vec<Vec<u8>> {
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move |bound: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % bound.max(1) as u64) as usize
        };
        (0..count)
            .map(|_| {
                let mut text = seed_text.to_vec();
                for _ in 0..1 + next(3) {
                    let at = next(text.len() + 1);
                    match next(4) {
                        0 if at < text.len() => text[at] = next(256) as u8,
                        1 => text.truncate(at),
                        _ => {
                            let special = specials[next(specials.len())];
                            text.splice(at..at, special.iter().copied());
                        }
                    }
                }
                text
            })
            .collect()
    }
}
