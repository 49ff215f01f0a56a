//! The log as a source that can be read more than once (the link stage and the arch analysis
//! read it a second time): a file, bytes in memory, or a stream spooled to a temporary file.

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::SystemTime;

/// Bytes kept in memory before a stream is spilled to a temporary file.
pub(super) const SPOOL_MEMORY: usize = 16 << 20;

/// A log that can be opened more than once.
pub(super) enum Source {
    Memory(Arc<Vec<u8>>),
    File(PathBuf),
    Spooled(TempFile),
}

struct SharedBytes(Arc<Vec<u8>>);

impl AsRef<[u8]> for SharedBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl Source {
    pub(super) fn open(&self) -> io::Result<Box<dyn Read>> {
        Ok(match self {
            Source::Memory(bytes) => Box::new(io::Cursor::new(SharedBytes(bytes.clone()))),
            Source::File(path) => Box::new(std::fs::File::open(path)?),
            Source::Spooled(temp) => Box::new(std::fs::File::open(&temp.0)?),
        })
    }
}

/// A temporary file removed when dropped.
pub(super) struct TempFile(PathBuf);

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

pub(super) fn spool<R: Read>(mut reader: R, limit: usize) -> io::Result<Source> {
    let mut memory = Vec::new();
    (&mut reader)
        .take(limit as u64 + 1)
        .read_to_end(&mut memory)?;
    if memory.len() <= limit {
        return Ok(Source::Memory(Arc::new(memory)));
    }
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let path = std::env::temp_dir().join(format!(
        "lnkfix-triage-{}-{nanos}-{}.log",
        std::process::id(),
        COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)?;
    let temp = TempFile(path);
    file.write_all(&memory)?;
    drop(memory);
    io::copy(&mut reader, &mut file)?;
    file.flush()?;
    Ok(Source::Spooled(temp))
}
