//! Which program `--verify` may start. A log is untrusted: a program it names runs only when it
//! resolves to an absolute path outside the log's directory and the build's directories (where a
//! crafted log can plant a script named like a linker), unless the user allowed that program with
//! `--allow-linker`. A bare name is looked up on the absolute entries of `PATH` only: a relative
//! entry (`.`, `bin`, an empty one) would be resolved in the build's directory, which the log
//! chooses. A command the user gave with `--link-command` is theirs: its program is not checked
//! against the directories, but is still found through absolute `PATH` entries only.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// Why a program is not started.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Untrusted {
    /// A bare name that no absolute `PATH` entry holds.
    #[error("`{program}` is not on PATH (relative PATH entries are not searched)")]
    NotOnPath {
        /// The name as written.
        program: String,
    },
    /// The path names nothing here.
    #[error("`{program}`: {path}: {reason}")]
    Missing {
        /// The program as written.
        program: String,
        /// The path it resolved to.
        path: String,
        /// What went wrong.
        reason: String,
    },
    /// The program lies in a directory the log chose.
    #[error("`{program}` resolves to {real}, inside {inside} ({dir}), where a log can plant a program; a linker is run from there only with --allow-linker {real}")]
    Planted {
        /// The program as written.
        program: String,
        /// Where it resolves to, links followed.
        real: String,
        /// Which directory: the log's, the build's.
        inside: &'static str,
        /// That directory.
        dir: String,
    },
}

/// What a program is checked against.
#[derive(Debug, Clone, Default)]
pub struct Trust {
    /// Directories a log may have planted programs in, each with what it is.
    pub untrusted: Vec<(PathBuf, &'static str)>,
    /// Programs the user allowed (`--allow-linker`), wherever they are.
    pub allowed: Vec<PathBuf>,
    /// The user gave the command (`--link-command`): its program is theirs.
    pub from_user: bool,
}

/// The entries of `PATH` that are absolute, in order.
pub fn absolute_path_entries() -> Vec<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .filter(|d| d.is_absolute())
                .collect()
        })
        .unwrap_or_default()
}

/// `PATH` with its relative entries left out, for the link's environment (a driver looks up its
/// linker on `PATH` from the build's directory).
pub fn sanitized_path() -> Option<OsString> {
    std::env::join_paths(absolute_path_entries()).ok()
}

/// A bare program name looked up on the absolute `PATH` entries (with `.exe` on Windows).
fn on_path(name: &str) -> Option<PathBuf> {
    let names: Vec<String> = if cfg!(windows) && !name.to_ascii_lowercase().ends_with(".exe") {
        vec![format!("{name}.exe"), name.to_string()]
    } else {
        vec![name.to_string()]
    };
    absolute_path_entries()
        .into_iter()
        .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
        .find(|candidate| candidate.is_file())
}

/// The program to start for `program` (as the command wrote it), run in `directory`: an absolute
/// path, checked against `trust`.
pub fn resolve(program: &str, directory: &Path, trust: &Trust) -> Result<PathBuf, Untrusted> {
    let path = if program.contains(['/', '\\']) {
        std::path::absolute(resolve_program(program, directory)).map_err(|e| {
            Untrusted::Missing {
                program: program.to_string(),
                path: program.to_string(),
                reason: e.to_string(),
            }
        })?
    } else {
        on_path(program).ok_or_else(|| Untrusted::NotOnPath {
            program: program.to_string(),
        })?
    };
    let real = std::fs::canonicalize(&path).map_err(|e| Untrusted::Missing {
        program: program.to_string(),
        path: path.display().to_string(),
        reason: e.to_string(),
    })?;
    if trust.from_user || trust.allowed.iter().any(|a| same_file(a, &real)) {
        return Ok(path);
    }
    for (dir, inside) in &trust.untrusted {
        let dir = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
        if real.starts_with(&dir) {
            return Err(Untrusted::Planted {
                program: program.to_string(),
                real: real.display().to_string(),
                inside,
                dir: dir.display().to_string(),
            });
        }
    }
    Ok(path)
}

/// The program to start: a path with a directory part is taken relative to the build's
/// directory (where the build ran it), a bare name is looked up on `PATH`.
pub fn resolve_program(program: &str, directory: &Path) -> PathBuf {
    let native = crate::index::discover::native_path(program);
    if program.contains(['/', '\\']) && native.is_relative() && !is_windows_absolute(program) {
        directory.join(native)
    } else {
        native
    }
}

/// `C:\x`, `C:/x` or `\\server\share`: absolute on Windows, whatever system reads it.
pub fn is_windows_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    (bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/'))
        || path.starts_with("\\\\")
}

/// Whether `allowed` (as the user gave it) names the file `real` (canonical).
fn same_file(allowed: &Path, real: &Path) -> bool {
    std::fs::canonicalize(allowed).is_ok_and(|a| a == real)
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn planted_programs_are_refused_unless_allowed() {
        let dir = tempfile::tempdir().unwrap();
        let program = dir.path().join("lld-link");
        std::fs::write(&program, "#!/bin/sh\n").unwrap();
        let mut trust = Trust {
            untrusted: vec![(dir.path().to_path_buf(), "the log's directory")],
            ..Trust::default()
        };
        let refused = resolve("./lld-link", dir.path(), &trust).unwrap_err();
        assert!(matches!(refused, Untrusted::Planted { .. }), "{refused}");
        trust.allowed.push(program.clone());
        let allowed = resolve("./lld-link", dir.path(), &trust).unwrap();
        assert!(
            allowed.is_absolute() && allowed.ends_with("lld-link"),
            "{allowed:?}"
        );
        let missing = resolve("no-such-linker-here", dir.path(), &trust).unwrap_err();
        assert!(matches!(missing, Untrusted::NotOnPath { .. }), "{missing}");
    }
}
