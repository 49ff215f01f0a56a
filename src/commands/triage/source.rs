//! The log as a source that can be read more than once (the link stage and the arch analysis
//! read it a second time): a file, bytes in memory, or a stream spooled to a temporary file
//! (`tempfile`'s: created exclusively, removed when the source is dropped).

use std::io::{self, Read, Write};
use std::path::PathBuf;
use std::sync::Arc;

/// Bytes kept in memory before a stream is spilled to a temporary file.
pub(super) const SPOOL_MEMORY: usize = 16 << 20;

/// A log that can be opened more than once.
pub(super) enum Source {
    Memory(Arc<Vec<u8>>),
    File(PathBuf),
    Spooled(tempfile::NamedTempFile),
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
            // A handle of its own: each reading starts at the beginning.
            Source::Spooled(temp) => Box::new(temp.reopen()?),
        })
    }
}

/// `reader` as a [`Source`]: in memory up to `limit` bytes, else spooled to a temporary file.
pub(super) fn spool<R: Read>(mut reader: R, limit: usize) -> io::Result<Source> {
    let mut memory = Vec::new();
    (&mut reader)
        .take(limit as u64 + 1)
        .read_to_end(&mut memory)?;
    if memory.len() <= limit {
        return Ok(Source::Memory(Arc::new(memory)));
    }
    let mut temp = tempfile::Builder::new()
        .prefix("lnkfix-triage-")
        .suffix(".log")
        .tempfile()?;
    let file = temp.as_file_mut();
    file.write_all(&memory)?;
    drop(memory);
    io::copy(&mut reader, file)?;
    file.flush()?;
    Ok(Source::Spooled(temp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_stream_is_spooled_read_twice_and_removed() {
        let text = b"0123456789".repeat(3);
        let source = spool(&text[..], 8).unwrap();
        let Source::Spooled(temp) = &source else {
            panic!("30 bytes over a limit of 8 stay in memory");
        };
        let path = temp.path().to_path_buf();
        for _ in 0..2 {
            let mut read = Vec::new();
            source.open().unwrap().read_to_end(&mut read).unwrap();
            assert_eq!(read, text);
        }
        drop(source);
        assert!(!path.exists(), "{} is left behind", path.display());
        assert!(matches!(spool(&text[..], 30).unwrap(), Source::Memory(_)));
    }
}
