//! Opening the files lnkfix reads besides the log: libraries, objects, PDBs, `.def` files,
//! `build.ninja`, rule files, cache entries, saved diagnoses, the `extension.py` to patch.
//!
//! Each must be a regular file. Opening a FIFO blocks until a writer comes (forever, for a planted
//! one), and reading a device never ends, so the file is opened without blocking (`O_NONBLOCK` on
//! Unix; opening does not block on Windows) and checked with `fstat` on the open handle: no race
//! between the check and the read. Anything else is refused with [`NotRegular`] as the error,
//! which callers report as a warning naming the file.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

/// A path that names something other than a regular file.
#[derive(Debug, thiserror::Error)]
#[error("not a regular file ({kind})")]
pub struct NotRegular {
    /// What it is: a FIFO, a socket, a device, a directory.
    pub kind: &'static str,
}

/// Opens `path` for reading if it is a regular file (after following symbolic links), without
/// blocking on FIFOs; the error of anything else is an [`io::Error`] wrapping [`NotRegular`].
pub fn open_regular(path: &Path) -> io::Result<File> {
    let file = open_nonblocking(path)?;
    let metadata = file.metadata()?;
    if metadata.is_file() {
        Ok(file)
    } else {
        Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            NotRegular {
                kind: kind_of(&metadata.file_type()),
            },
        ))
    }
}

/// Reads a whole regular file (see [`open_regular`]).
pub fn read_regular(path: &Path) -> io::Result<Vec<u8>> {
    let mut file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Reads a whole regular file as UTF-8 (see [`open_regular`]).
pub fn read_regular_to_string(path: &Path) -> io::Result<String> {
    let bytes = read_regular(path)?;
    String::from_utf8(bytes).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

#[cfg(unix)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: a FIFO opens at once instead of waiting for a writer. It does not change how a
    // regular file reads, so it is left set.
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)
}

#[cfg(windows)]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    use std::os::windows::fs::OpenOptionsExt;
    // FILE_FLAG_BACKUP_SEMANTICS: a directory opens too (without it, Windows refuses with
    // "access denied"), so that it is refused as a directory, by the same check as the rest.
    const FILE_FLAG_BACKUP_SEMANTICS: u32 = 0x0200_0000;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(FILE_FLAG_BACKUP_SEMANTICS)
        .open(path)
}

#[cfg(not(any(unix, windows)))]
fn open_nonblocking(path: &Path) -> io::Result<File> {
    File::open(path)
}

#[cfg(unix)]
fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if file_type.is_fifo() {
        "a FIFO"
    } else if file_type.is_socket() {
        "a socket"
    } else if file_type.is_char_device() || file_type.is_block_device() {
        "a device"
    } else if file_type.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

#[cfg(not(unix))]
fn kind_of(file_type: &std::fs::FileType) -> &'static str {
    if file_type.is_dir() {
        "a directory"
    } else {
        "not a file"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn regular_files_open_and_directories_do_not() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.lib");
        std::fs::write(&path, b"bytes").unwrap();
        assert_eq!(read_regular(&path).unwrap(), b"bytes");
        let error = open_regular(dir.path()).unwrap_err();
        assert!(error.to_string().contains("not a regular file"), "{error}");
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_without_a_writer_is_refused_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("y.lib");
        let status = std::process::Command::new("mkfifo")
            .arg(&path)
            .status()
            .unwrap();
        assert!(status.success());
        let error = open_regular(&path).unwrap_err();
        assert_eq!(error.to_string(), "not a regular file (a FIFO)");
        assert!(read_regular_to_string(&dev_null()).is_err());
    }

    #[cfg(unix)]
    fn dev_null() -> std::path::PathBuf {
        "/dev/null".into()
    }
}
