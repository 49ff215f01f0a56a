//! `--apply`: writes the patched `extension.py` in place, atomically (a temporary file beside it,
//! then a rename), after checking that the file is still the one the diagnosis saw and that the new
//! text compiles as Python, and keeps a backup of the original.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::sha256::sha256_hex;
use super::PatchError;

/// What [`apply_patch`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyReport {
    /// The file written (symbolic links resolved: the link's target is what changed).
    pub path: PathBuf,
    /// The backup of the original, when one was written.
    pub backup: Option<PathBuf>,
    /// SHA-256 of the file before.
    pub previous_sha256: String,
    /// SHA-256 of the file now.
    pub new_sha256: String,
    /// The Python interpreter that compiled the new text, or `None` when none was found (the
    /// text was then written unchecked).
    pub compiled_with: Option<PathBuf>,
    /// What of the original's ownership could not be kept (the new file is then owned by the
    /// user who ran the patch): `None` when everything was kept.
    pub ownership_lost: Option<String>,
}

/// Refuses a `patch -o` path that names one of `inputs` (the file to patch, the `--from` file),
/// through any symbolic or hard link: the diff would overwrite it.
pub fn check_output_path(output: &Path, inputs: &[&Path]) -> Result<(), PatchError> {
    for input in inputs {
        if crate::files::identity::same_file(output, input) {
            return Err(PatchError::OutputIsInput {
                output: output.to_path_buf(),
                input: input.to_path_buf(),
            });
        }
    }
    Ok(())
}

fn io_error(path: &Path, action: &'static str) -> impl FnOnce(std::io::Error) -> PatchError {
    let path = path.to_path_buf();
    move |source| PatchError::Io {
        path,
        action,
        source,
    }
}

/// Replaces the file at `path` with `new_text`.
///
/// Refuses ([`PatchError::FileChanged`]) when `expected_original_sha256` is given and the file on
/// disk no longer has that hash — pass the hash of the bytes the patch was planned from. When a
/// Python interpreter (`python3`, else `python`) is on `PATH`, the new text must compile
/// ([`PatchError::DoesNotCompile`] otherwise; compiled in memory, so no `__pycache__` appears).
/// With `backup`, the original is copied to `PATH.orig` (or `PATH.orig.1`, `.orig.2`, ... when
/// an older backup exists: an earlier original is never overwritten), with the original's
/// permissions and owner, only once every check passed, and removed again if the rename fails. The
/// new text goes to a temporary file in the same directory, is flushed to disk, gets the
/// original's permissions and (on Unix) its owner and group, and is renamed over the file, so a
/// reader sees either the old or the new file, never a half-written one. Where the owner cannot be
/// kept (not run as root, on another user's file) the report says so ([`ApplyReport::ownership_lost`]).
pub fn apply_patch(
    path: &Path,
    expected_original_sha256: Option<&str>,
    new_text: &[u8],
    backup: bool,
) -> Result<ApplyReport, PatchError> {
    apply_text(path, expected_original_sha256, new_text, backup, true)
}

/// Writes `new_text` over a build definition as [`apply_patch`] does (hash check, backup,
/// atomic rename), without the Python compile check: the file is not Python, and its edit was
/// checked by its build system's reader.
pub fn apply_build_file(
    path: &Path,
    expected_original_sha256: Option<&str>,
    new_text: &[u8],
    backup: bool,
) -> Result<ApplyReport, PatchError> {
    let missing =
        matches!(fs::symlink_metadata(path), Err(e) if e.kind() == std::io::ErrorKind::NotFound);
    if missing && expected_original_sha256.is_some_and(|e| e.eq_ignore_ascii_case(&sha256_hex(b"")))
    {
        return create_build_file(path, new_text);
    }
    apply_text(path, expected_original_sha256, new_text, backup, false)
}

/// Writes a build definition that does not exist yet (a crate's `build.rs`): whole, to a
/// temporary file in its directory, then moved into place only if the name is still free (a file
/// made meanwhile is never overwritten). There is nothing to back up.
fn create_build_file(path: &Path, new_text: &[u8]) -> Result<ApplyReport, PatchError> {
    let directory = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let mut temporary = tempfile::NamedTempFile::new_in(&directory)
        .map_err(io_error(&directory, "create a temporary file in"))?;
    temporary
        .write_all(new_text)
        .and_then(|()| temporary.as_file().sync_all())
        .map_err(io_error(path, "write"))?;
    temporary
        .persist_noclobber(path)
        .map_err(|e| e.error)
        .map_err(io_error(path, "create"))?;
    Ok(ApplyReport {
        path: path.to_path_buf(),
        backup: None,
        previous_sha256: sha256_hex(b""),
        new_sha256: sha256_hex(new_text),
        compiled_with: None,
        ownership_lost: None,
    })
}

/// [`apply_patch`], with the Python check only when `python_check`.
fn apply_text(
    path: &Path,
    expected_original_sha256: Option<&str>,
    new_text: &[u8],
    backup: bool,
    python_check: bool,
) -> Result<ApplyReport, PatchError> {
    let target = canonicalize(path).map_err(io_error(path, "resolve"))?;
    let original = crate::files::open::read_regular(&target).map_err(io_error(&target, "read"))?;
    let previous_sha256 = sha256_hex(&original);
    if let Some(expected) = expected_original_sha256 {
        if !expected.eq_ignore_ascii_case(&previous_sha256) {
            return Err(PatchError::FileChanged {
                path: target,
                expected: expected.to_string(),
                actual: previous_sha256,
            });
        }
    }
    let directory = target.parent().unwrap_or(Path::new(".")).to_path_buf();
    let mut pending = crate::files::atomic::AtomicFile::create(&target)
        .map_err(io_error(&directory, "create a temporary file in"))?;
    let temporary = pending.temporary_path().to_path_buf();
    pending
        .file()
        .write_all(new_text)
        .and_then(|()| pending.file().sync_all())
        .map_err(io_error(&temporary, "write the temporary file"))?;
    let metadata = fs::metadata(&target).map_err(io_error(&target, "read the permissions of"))?;
    // Owner first: changing the owner may clear permission bits that are set next.
    let ownership_lost = keep_owner(pending.file(), &metadata);
    fs::set_permissions(&temporary, metadata.permissions())
        .map_err(io_error(&temporary, "set the permissions of"))?;

    let compiled_with = if python_check {
        python_interpreter()
    } else {
        None
    };
    if let Some(python) = &compiled_with {
        check_compiles(python, &temporary, &target)?;
    }

    // Last look before the rename: the file must still be what was hashed above. Only then the
    // backup: a refused run leaves none.
    let now = crate::files::open::read_regular(&target).map_err(io_error(&target, "read"))?;
    let now_sha256 = sha256_hex(&now);
    if now_sha256 != previous_sha256 {
        return Err(PatchError::FileChanged {
            path: target,
            expected: previous_sha256,
            actual: now_sha256,
        });
    }
    let backup_path = if backup {
        Some(write_backup(&target, &original, &metadata)?)
    } else {
        None
    };
    if let Err(error) = pending.commit() {
        // Windows refuses to replace a file another program holds open without sharing delete
        // access: the original stays, so its backup would only mislead.
        if let Some(backup) = &backup_path {
            let _ = fs::remove_file(backup);
        }
        return Err(io_error(&target, "replace")(error));
    }
    Ok(ApplyReport {
        path: target,
        backup: backup_path,
        previous_sha256,
        new_sha256: sha256_hex(new_text),
        compiled_with,
        ownership_lost,
    })
}

/// Gives `file` the owner and group of `original` (Unix): as root always, as anyone else only
/// the group of their own file. Returns what could not be kept.
#[cfg(unix)]
fn keep_owner(file: &fs::File, original: &fs::Metadata) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let mine = file.metadata().ok()?;
    if (mine.uid(), mine.gid()) == (original.uid(), original.gid()) {
        return None;
    }
    match std::os::unix::fs::fchown(file, Some(original.uid()), Some(original.gid())) {
        Ok(()) => None,
        Err(error) => Some(format!(
            "owner {}:{} could not be kept ({error}); the file is now owned by {}:{}",
            original.uid(),
            original.gid(),
            mine.uid(),
            mine.gid()
        )),
    }
}

/// Windows: the new file gets the directory's inherited access rights (the read-only attribute is
/// kept with the permissions); a file's own access list is not copied.
#[cfg(not(unix))]
fn keep_owner(_file: &fs::File, _original: &fs::Metadata) -> Option<String> {
    None
}

/// `fs::canonicalize`, but on Windows without the `\\?\` prefix it adds (`\\?\C:\...`,
/// `\\?\UNC\server\share\...`) when the plain form names the same file (`dunce` decides: drive
/// and UNC paths under `MAX_PATH` with no reserved names or trailing dots): that is the form users,
/// editors and Python expect in messages and arguments.
fn canonicalize(path: &Path) -> std::io::Result<PathBuf> {
    dunce::canonicalize(path)
}

/// Writes the backup of `original` beside `target`: to a temporary file first, completely and
/// flushed to disk, then renamed to the first free name of `PATH.orig`, `PATH.orig.1`, ... (an
/// earlier backup is never replaced). A failed write (a full disk) leaves no backup and no
/// temporary file, and the original has not been touched yet.
fn write_backup(
    target: &Path,
    original: &[u8],
    metadata: &fs::Metadata,
) -> Result<PathBuf, PatchError> {
    write_backup_with(target, metadata, |file| file.write_all(original))
}

/// [`write_backup`] with the writing of the bytes given (a test makes it fail part way).
fn write_backup_with(
    target: &Path,
    metadata: &fs::Metadata,
    write: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
) -> Result<PathBuf, PatchError> {
    let backup_name = |suffix: u32| {
        let mut name = target.as_os_str().to_os_string();
        name.push(".orig");
        if suffix > 0 {
            name.push(format!(".{suffix}"));
        }
        PathBuf::from(name)
    };
    let first = backup_name(0);
    // The temporary file is created readable by its owner only, then given the original's
    // permissions: never wider than the original, not even for a moment.
    let mut pending = crate::files::atomic::AtomicFile::create(&first)
        .map_err(io_error(&first, "create the backup"))?;
    let temporary = pending.temporary_path().to_path_buf();
    let _ = keep_owner(pending.file(), metadata);
    write(pending.file())
        .and_then(|()| pending.file().set_permissions(metadata.permissions()))
        .map_err(io_error(&temporary, "write the backup"))?;
    pending
        .commit_new((0..=1000).map(backup_name))
        .map_err(io_error(&first, "write the backup"))
}

/// The first of `python3`, `python` found on `PATH`.
fn python_interpreter() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let names: &[&str] = if cfg!(windows) {
        &["python3.exe", "python.exe"]
    } else {
        &["python3", "python"]
    };
    names.iter().find_map(|name| {
        std::env::split_paths(&path)
            .map(|directory| directory.join(name))
            .find(|candidate| candidate.is_file())
    })
}

const COMPILE_CHECK: &str =
    "import sys\nwith open(sys.argv[1], 'rb') as f:\n    compile(f.read(), sys.argv[2], 'exec')\n";

fn check_compiles(python: &Path, temporary: &Path, target: &Path) -> Result<(), PatchError> {
    let output = Command::new(python)
        .arg("-c")
        .arg(COMPILE_CHECK)
        .arg(temporary)
        .arg(target)
        .stdin(Stdio::null())
        .output()
        .map_err(io_error(python, "run"))?;
    if output.status.success() {
        return Ok(());
    }
    let message = String::from_utf8_lossy(&output.stderr);
    let message = message
        .lines()
        .rev()
        .find(|line| !line.trim().is_empty())
        .unwrap_or("python exited with an error")
        .trim()
        .to_string();
    Err(PatchError::DoesNotCompile {
        path: target.to_path_buf(),
        message,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_backup_cut_short_leaves_no_file_and_the_earlier_backup_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("extension.py");
        fs::write(&target, b"import os\n").unwrap();
        let earlier = dir.path().join("extension.py.orig");
        fs::write(&earlier, b"earlier\n").unwrap();
        let metadata = fs::metadata(&target).unwrap();
        // The disk fills after a few bytes of the backup.
        let error = write_backup_with(&target, &metadata, |file| {
            file.write_all(b"import")?;
            Err(std::io::Error::from(std::io::ErrorKind::StorageFull))
        })
        .unwrap_err();
        assert!(error.to_string().contains("write the backup"), "{error}");
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["extension.py", "extension.py.orig"]);
        assert_eq!(fs::read(&earlier).unwrap(), b"earlier\n");
        assert_eq!(fs::read(&target).unwrap(), b"import os\n");
        // Written whole, it takes the next free name.
        let backup = write_backup(&target, b"import os\n", &metadata).unwrap();
        assert_eq!(backup, dir.path().join("extension.py.orig.1"));
        assert_eq!(fs::read(&backup).unwrap(), b"import os\n");
        assert_eq!(fs::read(&earlier).unwrap(), b"earlier\n");
    }
}
