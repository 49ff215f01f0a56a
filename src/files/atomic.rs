//! Atomic file writes: the new bytes go to a temporary file created exclusively (never through a
//! planted link) in the target's own directory, are flushed to disk, and the temporary file is
//! then renamed over the target. A reader sees the old file or the new one, never half of one;
//! a failed write leaves no temporary file behind. The index cache and `patch --apply` both write
//! through here.

use std::fs::File;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file being written; nothing is visible at the target until [`AtomicFile::commit`].
pub struct AtomicFile {
    temporary: tempfile::NamedTempFile,
    target: PathBuf,
}

impl AtomicFile {
    /// Starts a write of `target`: a new temporary file beside it (`.NAME.XXXXXX.tmp`).
    pub fn create(target: &Path) -> io::Result<AtomicFile> {
        let directory = match target.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => parent,
            _ => Path::new("."),
        };
        let name = target
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let temporary = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(directory)?;
        Ok(AtomicFile {
            temporary,
            target: target.to_path_buf(),
        })
    }

    /// The temporary file, to write to.
    pub fn file(&mut self) -> &mut File {
        self.temporary.as_file_mut()
    }

    /// Where the temporary file is (to set its permissions or read it back before committing).
    pub fn temporary_path(&self) -> &Path {
        self.temporary.path()
    }

    /// Flushes the bytes to disk and renames the temporary file over the target.
    pub fn commit(mut self) -> io::Result<()> {
        self.temporary.as_file_mut().flush()?;
        self.temporary.as_file().sync_all()?;
        self.temporary
            .persist(&self.target)
            .map(drop)
            .map_err(|e| e.error)
    }
}

impl AtomicFile {
    /// Flushes the bytes to disk and gives the temporary file the first of `names` that does not
    /// exist, never replacing a file (a rename that refuses an existing target, or a hard link
    /// then an unlink where the system has no such rename). Returns the name taken. On an error
    /// nothing of the names is touched and the temporary file is removed.
    pub fn commit_new(mut self, names: impl IntoIterator<Item = PathBuf>) -> io::Result<PathBuf> {
        self.temporary.as_file_mut().flush()?;
        self.temporary.as_file().sync_all()?;
        let mut temporary = self.temporary;
        for name in names {
            match temporary.persist_noclobber(&name) {
                Ok(_) => return Ok(name),
                Err(error) if error.error.kind() == io::ErrorKind::AlreadyExists => {
                    temporary = error.file;
                }
                Err(error) => return Err(error.error),
            }
        }
        Err(io::Error::new(
            io::ErrorKind::AlreadyExists,
            "every name for the file is taken",
        ))
    }
}

/// Writes `bytes` to `target` atomically (see the module documentation).
pub fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = AtomicFile::create(target)?;
    file.file().write_all(bytes)?;
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_replace_and_leave_nothing_behind() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("entry.bin");
        write_atomic(&target, b"one").unwrap();
        write_atomic(&target, b"two").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        // An abandoned write changes nothing and removes its temporary file.
        let mut pending = AtomicFile::create(&target).unwrap();
        pending.file().write_all(b"three").unwrap();
        let temporary = pending.temporary_path().to_path_buf();
        assert!(temporary.exists());
        drop(pending);
        assert!(!temporary.exists());
        assert_eq!(std::fs::read(&target).unwrap(), b"two");
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
        assert_eq!(names.len(), 1);
    }

    #[test]
    fn a_new_name_never_replaces_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let first = dir.path().join("a.orig");
        std::fs::write(&first, b"earlier").unwrap();
        let mut pending = AtomicFile::create(&first).unwrap();
        pending.file().write_all(b"later").unwrap();
        let names = (0..3).map(|n| dir.path().join(format!("a.orig{n}")));
        let names = std::iter::once(first.clone()).chain(names);
        let taken = pending.commit_new(names).unwrap();
        assert_eq!(taken, dir.path().join("a.orig0"));
        assert_eq!(std::fs::read(&first).unwrap(), b"earlier");
        assert_eq!(std::fs::read(&taken).unwrap(), b"later");
        // Every name taken: an error, the temporary file gone, nothing replaced.
        let mut pending = AtomicFile::create(&first).unwrap();
        pending.file().write_all(b"third").unwrap();
        assert!(pending.commit_new([first.clone(), taken.clone()]).is_err());
        assert_eq!(std::fs::read(&first).unwrap(), b"earlier");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);
    }

    #[cfg(unix)]
    #[test]
    fn a_planted_link_at_a_temporary_name_is_not_followed() {
        // Temporary names are random and created exclusively: a link planted at the old
        // predictable name is never written through.
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim");
        std::fs::write(&victim, b"keep").unwrap();
        let target = dir.path().join("entry.bin");
        for n in 0..8 {
            let _ =
                std::os::unix::fs::symlink(&victim, dir.path().join(format!(".entry.bin.{n}.tmp")));
        }
        write_atomic(&target, b"new").unwrap();
        assert_eq!(std::fs::read(&victim).unwrap(), b"keep");
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }
}
