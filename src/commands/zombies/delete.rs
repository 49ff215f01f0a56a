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
//! On Windows the file is deleted by handle: opened without following a reparse point in its
//! place, checked to have the held file's volume serial number and file index, and that handle
//! marked for deletion. A directory of the path that became a junction is followed there, but
//! only the held file itself can pass the identity check.

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

/// Deletes `file` by handle: the name is opened without following a reparse point (a symbolic
/// link or junction in the file's place is opened itself, and refused), the open file's volume
/// serial number and file index are checked to be the held file's, and that handle is marked for
/// deletion; `Ok` once the name is checked no longer to name the held file.
#[cfg(not(unix))]
pub(super) fn delete(file: &HeldFile) -> Result<(), String> {
    use std::os::windows::fs::{FileTypeExt, OpenOptionsExt};
    use std::os::windows::io::AsRawHandle;
    use windows_sys::Win32::Storage::FileSystem::{
        FileDispositionInfo, SetFileInformationByHandle, DELETE, FILE_DISPOSITION_INFO,
        FILE_FLAG_BACKUP_SEMANTICS, FILE_FLAG_OPEN_REPARSE_POINT, FILE_READ_ATTRIBUTES,
        FILE_SHARE_DELETE, FILE_SHARE_READ, FILE_SHARE_WRITE,
    };
    let Some(held) = file.identity else {
        return Err("which file was held is unknown: not deleted".into());
    };
    let opened = std::fs::OpenOptions::new()
        .access_mode(DELETE | FILE_READ_ATTRIBUTES)
        .share_mode(FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE)
        .custom_flags(FILE_FLAG_OPEN_REPARSE_POINT | FILE_FLAG_BACKUP_SEMANTICS)
        .open(&file.path);
    let handle = match opened {
        Ok(handle) => handle,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err("no longer there under that name: nothing was deleted".into())
        }
        Err(e) => return Err(e.to_string()),
    };
    let kind = handle.metadata().map_err(|e| e.to_string())?.file_type();
    let same = crate::files::identity::stamp_of_file(&handle).map(|stamp| stamp.identity);
    if !kind.is_file() || kind.is_symlink_file() || same.ok() != Some(held) {
        return Err(
            "its name now names another file than the one held (or no regular file): not deleted"
                .into(),
        );
    }
    let disposition = FILE_DISPOSITION_INFO { DeleteFile: true };
    // SAFETY: a handle we own and keep open, and an information block of the documented size.
    let marked = unsafe {
        SetFileInformationByHandle(
            handle.as_raw_handle(),
            FileDispositionInfo,
            (&disposition as *const FILE_DISPOSITION_INFO).cast(),
            std::mem::size_of::<FILE_DISPOSITION_INFO>() as u32,
        )
    };
    if marked == 0 {
        return Err(std::io::Error::last_os_error().to_string());
    }
    // The file goes when its last handle closes: this one, now.
    drop(handle);
    match crate::files::identity::of_path(&file.path) {
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

    use crate::files::identity::FileIdentity;

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
