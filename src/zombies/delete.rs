//! `--delete`: removes a file a leftover held, by handle rather than by path. A leftover that
//! gets SIGTERM may still move things: put a symbolic link where a directory of the path was, or
//! another file under the held file's name. So on Linux the directories of the path are opened
//! one by one from `/` without following symbolic links (`openat` with `O_NOFOLLOW |
//! O_DIRECTORY`), the name is looked at inside the last one held open (`fstatat` without
//! following), and only a regular file with the held file's device and inode is removed
//! (`unlinkat` relative to that directory). The name is bytes throughout, never converted. It is
//! reported gone only after the name, read again in the same directory, no longer names the held
//! file.
//!
//! On Windows the path is deleted by name once its volume serial number and file index are
//! checked to be the held file's (the directories of the path are not opened one by one).

use super::HeldFile;

/// Deletes `file` if its name still names the held file; `Ok` once it is checked to be gone,
/// else why it was not deleted (or not checked).
#[cfg(unix)]
pub(super) fn delete(file: &HeldFile) -> Result<(), String> {
    use std::os::unix::ffi::OsStrExt;
    use std::path::Component;
    let Some(held) = file.identity else {
        return Err("which file was held is unknown: not deleted".into());
    };
    let (Some(parent), Some(name)) = (file.path.parent(), file.path.file_name()) else {
        return Err("not a path to a file: not deleted".into());
    };
    let mut directory = unix::open_directory(None, b"/").map_err(|e| format!("/: {e}"))?;
    for component in parent.components() {
        match component {
            Component::RootDir => {}
            Component::Normal(part) => {
                directory = unix::open_directory(Some(&directory), part.as_bytes())
                    .map_err(|e| unix::why_not_opened(&e))?;
            }
            _ => return Err("the path is not canonical: not deleted".into()),
        }
    }
    let name = std::ffi::CString::new(name.as_bytes())
        .map_err(|_| "the name holds a NUL byte: not deleted".to_string())?;
    match unix::identity_at(&directory, &name) {
        Ok(Some(now)) if now == held => {}
        Ok(_) => return Err(
            "its name now names another file than the one held (or no regular file): not deleted"
                .into(),
        ),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("no longer there under that name: nothing was deleted".into())
        }
        Err(e) => return Err(e.to_string()),
    }
    unix::unlink_at(&directory, &name).map_err(|e| e.to_string())?;
    match unix::identity_at(&directory, &name) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Ok(now) if now != Some(held) => Ok(()),
        Ok(_) => Err("still there after it was deleted (another process holds it open)".into()),
        Err(e) => Err(format!("cannot check that it is gone: {e}")),
    }
}

/// Deletes `file` by name once its identity is checked to be the held file's; `Ok` once it is
/// checked to be gone.
#[cfg(not(unix))]
pub(super) fn delete(file: &HeldFile) -> Result<(), String> {
    let Some(held) = file.identity else {
        return Err("which file was held is unknown: not deleted".into());
    };
    let is_file = file
        .path
        .symlink_metadata()
        .map_err(|e| e.to_string())?
        .is_file();
    if !is_file || crate::identity::of_path(&file.path).ok() != Some(held) {
        return Err(
            "its name now names another file than the one held (or no regular file): not deleted"
                .into(),
        );
    }
    std::fs::remove_file(&file.path).map_err(|e| e.to_string())?;
    match crate::identity::of_path(&file.path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(()),
        Ok(now) if now != held => Ok(()),
        Ok(_) => Err("still there after it was deleted (another process holds it open)".into()),
        Err(e) => Err(format!("cannot check that it is gone: {e}")),
    }
}

/// The system calls, each returning an `io::Error` from `errno`.
#[cfg(unix)]
mod unix {
    use std::ffi::CStr;
    use std::io;
    use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};

    use crate::identity::FileIdentity;

    /// Opens the directory `name` inside `parent` (or the absolute `name`), never through a
    /// symbolic link.
    pub(super) fn open_directory(parent: Option<&OwnedFd>, name: &[u8]) -> io::Result<OwnedFd> {
        let name = std::ffi::CString::new(name)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "a NUL byte in the path"))?;
        let flags = libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC;
        let at = parent.map_or(libc::AT_FDCWD, AsRawFd::as_raw_fd);
        // SAFETY: `name` is a NUL-terminated string that outlives the call; `at` is an open
        // descriptor or AT_FDCWD.
        let fd = unsafe { libc::openat(at, name.as_ptr(), flags) };
        if fd < 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: openat returned a new descriptor that nothing else owns.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    }

    /// Why a directory of the path could not be opened, for the report.
    pub(super) fn why_not_opened(error: &io::Error) -> String {
        match error.raw_os_error() {
            Some(libc::ELOOP) | Some(libc::ENOTDIR) => "a directory of its path is now a symbolic link or no directory (moved since it was held): not deleted".into(),
            _ => format!("a directory of its path cannot be opened ({error}): not deleted"),
        }
    }

    /// The identity of what `name` names inside `directory`, without following a symbolic link:
    /// `None` when it is no regular file.
    pub(super) fn identity_at(
        directory: &OwnedFd,
        name: &CStr,
    ) -> io::Result<Option<FileIdentity>> {
        // SAFETY: an all-zero `stat` is a valid value of that plain C struct.
        let mut stat: libc::stat = unsafe { std::mem::zeroed() };
        // SAFETY: `name` is NUL-terminated, `stat` is writable, the descriptor is open.
        let result = unsafe {
            libc::fstatat(
                directory.as_raw_fd(),
                name.as_ptr(),
                &mut stat,
                libc::AT_SYMLINK_NOFOLLOW,
            )
        };
        if result != 0 {
            return Err(io::Error::last_os_error());
        }
        #[allow(clippy::unnecessary_cast)] // the field types differ between targets
        let identity = FileIdentity {
            volume: stat.st_dev as u64,
            index: stat.st_ino as u64,
        };
        Ok(((stat.st_mode & libc::S_IFMT) == libc::S_IFREG).then_some(identity))
    }

    /// Removes the name `name` inside `directory`.
    pub(super) fn unlink_at(directory: &OwnedFd, name: &CStr) -> io::Result<()> {
        // SAFETY: `name` is NUL-terminated and the descriptor is open.
        if unsafe { libc::unlinkat(directory.as_raw_fd(), name.as_ptr(), 0) } != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }
}
