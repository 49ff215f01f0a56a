//! The lookup table: one cache file for a whole set of libraries that answers "which files define
//! this name, and how" by reading only the bucket of the name asked, so that a warm `diagnose`
//! costs what its log asks, not what the SDK holds (benches/README.md, "Warm diagnose").
//!
//! One file per set of libraries (the files a search found, in search order), named by the hash
//! of their canonical paths, `<hash>.set` in the cache directory. It is written by the first run
//! that finds every file of the set in the per-file cache (`cache`), so a cold run costs what it
//! cost without the table, and it is written from what that run decoded: the same records, so
//! the same answers. Layout, little-endian:
//!
//! - **Header** (32 bytes): magic `LNKFXTBL`, [`VERSION`], the number of hash bits that choose a
//!   bucket, the number of files, the length of the files section.
//! - **Files**: where the strings section starts, then, in search order, each file's key as the
//!   per-file cache checks it (size, modification time, identity, change time, canonical path),
//!   its format, whether it is listed among the index's libraries, its summary, its warnings, and
//!   where its block of the strings section is (offset, length). Then the checksum of the header
//!   and this section, then padding to eight bytes.
//! - **Directory**: per bucket, the offset of its first byte in the records section, and one
//!   more offset, the end (eight bytes each).
//! - **Records**, bucket by bucket, each bucket in search order: every provider of every name
//!   whose hash falls in it, as the full decode would build it (file number, kind, machine, then
//!   name, member, DLL, alias target, export name, forwarder and source library), then the
//!   checksum of the bucket (seeded with its number). Numbers are LEB128 varints; a string is
//!   0 (absent) or its length plus one, then its bytes, except the member and the DLL: 0 or the
//!   number plus one of a string of the file's block. For the MSVC + SDK set a record is 76
//!   bytes on average where fixed 32-bit fields and inline members made it 161 (a file's
//!   thousands of records repeat a few member and DLL names).
//! - **Strings**, file by file: the file's distinct member and DLL names (each a varint length
//!   and its bytes), then the block's checksum (seeded with the file's number). Read on the
//!   first lookup that needs the file's block.
//!
//! Opening reads the header and the files section (every file's key is compared with the file on
//! disk now, exactly as the per-file cache does: a changed, added or removed file makes the table
//! stale and the libraries are read again). A lookup reads two directory words and one bucket
//! with positioned reads (`pread`): nothing is memory-mapped, so a table truncated or rewritten
//! by another program while a run uses it cannot end the run with SIGBUS; the read comes up short
//! or the checksum fails instead. Every byte a lookup uses is covered by a checksum (the files
//! section by its own, each bucket by its own) and every length and offset is checked before it
//! is used: a damaged, truncated or foreign table is never trusted. Damage found on opening is a
//! warning and the table is rebuilt; damage found by a lookup sends that run's lookups to the
//! full decode (the same answers) and removes the table, which the next run writes again.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::cache::{self, In, Key, Out};
use super::store::{FileIndex, SymbolView};
use super::{IndexWarning, LibraryInfo, LibrarySymbol, SymbolKind};

/// Bumped whenever the layout or what it records changes: older tables are ignored.
const VERSION: u32 = 2;
const MAGIC: &[u8; 8] = b"LNKFXTBL";
const HEADER: usize = 32;
/// A bucket larger than this is damage, not data (a real bucket holds a few providers).
const MAX_BUCKET: u64 = 64 << 20;
/// The string fields of a record, in order: name, member, DLL, alias target, export name,
/// forwarder, source library.
const STRINGS: usize = 7;
/// Of those, the ones stored once per file (in its block of the strings section): member, DLL.
const SHARED: [usize; 2] = [1, 2];
/// A file's block of shared strings larger than this is damage, not data.
const MAX_BLOCK: u64 = 256 << 20;
const KINDS: [SymbolKind; 6] = [
    SymbolKind::ImportCode,
    SymbolKind::ImportData,
    SymbolKind::ImportConst,
    SymbolKind::Defined,
    SymbolKind::Export,
    SymbolKind::PdbPublic,
];

/// What one file of the set contributes besides its records.
#[derive(Debug, Clone)]
pub(crate) struct FileFacts {
    /// Whether [`super::Index::libraries`] lists it (a file that could not be read at all is not).
    pub(crate) listed: bool,
    pub(crate) info: LibraryInfo,
    pub(crate) warnings: Vec<IndexWarning>,
}

/// The path of the table of the set with these keys.
pub(crate) fn path_of(dir: &Path, keys: &[Key]) -> PathBuf {
    dir.join(format!("{:016x}.set", cache::set_hash(keys)))
}

/// An open, current table.
#[derive(Debug)]
pub(crate) struct Table {
    path: PathBuf,
    file: File,
    bits: u32,
    directory: u64,
    records: u64,
    length: u64,
    /// Where the strings section starts.
    strings: u64,
    /// Each file's block of the strings section (offset in the section, length).
    blocks: Vec<(u64, u64)>,
    /// Each file's shared strings, read on first need (`Err`: the block is damaged).
    shared: Vec<std::sync::OnceLock<Result<Vec<Box<str>>, String>>>,
}

/// What the header and the files section say.
struct Front {
    bits: u32,
    /// Where the directory starts.
    directory: u64,
    /// Where the records start.
    records: u64,
    /// Where the strings section starts.
    strings: u64,
    /// Each file's block of the strings section.
    blocks: Vec<(u64, u64)>,
    facts: Vec<FileFacts>,
}

/// What opening a table gave.
pub(crate) enum Opened {
    /// A current table, and the facts of its files in search order.
    Hit(Table, Vec<FileFacts>),
    /// None, or one for another version of the files or of lnkfix.
    Miss,
    /// A damaged table: why.
    Damaged(String),
}

/// Reads `length` bytes at `offset`: a short read (the file shrank) is an error, never a signal.
fn read_at(file: &File, offset: u64, length: usize) -> Result<Vec<u8>, String> {
    let mut buffer = vec![0u8; length];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut buffer, offset)
            .map_err(|e| format!("cannot read {length} bytes at {offset}: {e}"))?;
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        let mut done = 0;
        while done < length {
            match file.seek_read(&mut buffer[done..], offset + done as u64) {
                Ok(0) => return Err(format!("truncated at {}", offset + done as u64)),
                Ok(read) => done += read,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(format!("cannot read at {offset}: {e}")),
            }
        }
    }
    Ok(buffer)
}

fn word(bytes: &[u8], at: usize) -> u64 {
    let mut word = [0u8; 8];
    word.copy_from_slice(&bytes[at..at + 8]);
    u64::from_le_bytes(word)
}

impl Table {
    /// Opens the table of the set `paths` (whose keys now are `keys`) in `dir`.
    pub(crate) fn open(dir: &Path, paths: &[PathBuf], keys: &[Key]) -> Opened {
        let path = path_of(dir, keys);
        // Not there, not a regular file (a planted FIFO) or unreadable: a miss, and the write
        // renames over it.
        let Ok(file) = crate::files::open::open_regular(&path) else {
            return Opened::Miss;
        };
        let Ok(length) = file.metadata().map(|m| m.len()) else {
            return Opened::Miss;
        };
        match Table::read_front(&file, length, paths, keys) {
            Ok(Some(front)) => Opened::Hit(
                Table {
                    path,
                    file,
                    bits: front.bits,
                    directory: front.directory,
                    records: front.records,
                    length,
                    strings: front.strings,
                    shared: std::iter::repeat_with(std::sync::OnceLock::new)
                        .take(front.blocks.len())
                        .collect(),
                    blocks: front.blocks,
                },
                front.facts,
            ),
            Ok(None) => Opened::Miss,
            Err(reason) => Opened::Damaged(format!("{}: {reason}", path.display())),
        }
    }

    /// Reads and checks the header and the files section; `None` when the table is stale.
    fn read_front(
        file: &File,
        length: u64,
        paths: &[PathBuf],
        keys: &[Key],
    ) -> Result<Option<Front>, String> {
        let header = read_at(file, 0, HEADER.min(length as usize))?;
        if header.len() < HEADER || &header[..8] != MAGIC {
            return Err("not a lookup table".into());
        }
        let version = u32::from_le_bytes([header[8], header[9], header[10], header[11]]);
        if version != VERSION {
            return Ok(None);
        }
        let bits = u32::from_le_bytes([header[12], header[13], header[14], header[15]]);
        let files = word(&header, 16);
        let files_length = word(&header, 24);
        if files != keys.len() as u64 {
            return Ok(None);
        }
        if bits > 26 || files_length > length.saturating_sub(HEADER as u64 + 8) {
            return Err("header out of bounds".into());
        }
        let front = read_at(file, 0, HEADER + files_length as usize + 8)?;
        let body = front.len() - 8;
        if cache::checksum(&front[..body]) != word(&front, body) {
            return Err("checksum mismatch".into());
        }
        let mut input = In {
            bytes: &front[..body],
            at: HEADER,
        };
        let strings = input.u64()?;
        let mut facts = Vec::with_capacity(keys.len());
        let mut blocks = Vec::with_capacity(keys.len());
        for (path, key) in paths.iter().zip(keys) {
            if !cache::read_key_is(&mut input, key)? {
                return Ok(None);
            }
            facts.push(read_facts(&mut input, path)?);
            blocks.push((input.u64()?, input.u64()?));
        }
        let directory = (front.len() as u64).next_multiple_of(8);
        let records = directory + ((1u64 << bits) + 1) * 8;
        if records > length {
            return Err("directory out of bounds".into());
        }
        Ok(Some(Front {
            bits,
            directory,
            records,
            strings,
            blocks,
            facts,
        }))
    }

    /// The bucket of names with hash `hash`.
    pub(crate) fn bucket(&self, hash: u64) -> u32 {
        if self.bits == 0 {
            return 0;
        }
        (hash >> (64 - self.bits)) as u32
    }

    /// The number of buckets.
    pub(crate) fn buckets(&self) -> usize {
        1 << self.bits
    }

    /// Every provider in bucket `bucket`, in search order, `library` taken from `paths`.
    pub(crate) fn read_bucket(
        &self,
        bucket: u32,
        paths: &[PathBuf],
    ) -> Result<Vec<LibrarySymbol>, String> {
        let place = format!("{}: bucket {bucket}", self.path.display());
        let range = read_at(&self.file, self.directory + u64::from(bucket) * 8, 16)
            .map_err(|e| format!("{place}: {e}"))?;
        let (start, end) = (word(&range, 0), word(&range, 8));
        let within = start <= end
            && end - start >= 8
            && end - start <= MAX_BUCKET
            && self
                .records
                .checked_add(end)
                .is_some_and(|e| e <= self.length);
        if !within {
            return Err(format!("{place}: out of bounds"));
        }
        let bytes = read_at(&self.file, self.records + start, (end - start) as usize)
            .map_err(|e| format!("{place}: {e}"))?;
        let body = bytes.len() - 8;
        if bucket_checksum(bucket, &bytes[..body]) != word(&bytes, body) {
            return Err(format!("{place}: checksum mismatch"));
        }
        read_records(&bytes[..body], paths, &|file| self.shared_of(file))
            .map_err(|e| format!("{place}: {e}"))
    }

    /// The shared strings (members, DLLs) of file number `file`, read and checked on first need.
    fn shared_of(&self, file: usize) -> Result<&[Box<str>], String> {
        let cell = self.shared.get(file).ok_or("record of no file")?;
        let strings = cell.get_or_init(|| {
            let (offset, length) = self.blocks[file];
            let within = (8..=MAX_BLOCK).contains(&length)
                && self
                    .strings
                    .checked_add(offset)
                    .and_then(|start| start.checked_add(length))
                    .is_some_and(|end| self.strings >= self.records && end <= self.length);
            if !within {
                return Err(format!(
                    "{}: strings of file {file}: out of bounds",
                    self.path.display()
                ));
            }
            let bytes = read_at(&self.file, self.strings + offset, length as usize)?;
            let body = bytes.len() - 8;
            if bucket_checksum(file as u32, &bytes[..body]) != word(&bytes, body) {
                return Err(format!(
                    "{}: strings of file {file}: checksum mismatch",
                    self.path.display()
                ));
            }
            read_block(&bytes[..body])
        });
        strings.as_deref().map_err(Clone::clone)
    }

    /// Removes the table (it was found damaged): the next run writes it again.
    pub(crate) fn discard(&self) {
        // Best effort: a table that cannot be removed is found damaged again and not trusted.
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The checksum of one bucket's bytes, seeded with its number (a bucket's bytes found under
/// another bucket's number do not pass).
fn bucket_checksum(bucket: u32, bytes: &[u8]) -> u64 {
    cache::checksum(bytes) ^ u64::from(bucket).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

fn read_facts(input: &mut In<'_>, path: &Path) -> Result<FileFacts, String> {
    let format = cache::format_of(input.u32()?).ok_or("bad format")?;
    let listed = input.u32()? != 0;
    let mut parts = super::store::FileParts::new(path, format);
    cache::read_summary(input, &mut parts)?;
    cache::read_warnings(input, path, &mut parts)?;
    Ok(FileFacts {
        listed,
        info: parts.info,
        warnings: parts.warnings,
    })
}

/// Appends `value` as an LEB128 varint.
fn put_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// Reads an LEB128 varint (at most ten bytes; a longer or cut one is an error).
fn varint(input: &mut In<'_>) -> Result<u64, String> {
    let mut value = 0u64;
    for shift in (0..64).step_by(7) {
        let byte = input.take(1)?[0];
        value |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(value);
        }
    }
    Err("varint too long".into())
}

/// A varint that must fit in `usize` (and in what is left, when it is a length).
fn varint_usize(input: &mut In<'_>) -> Result<usize, String> {
    usize::try_from(varint(input)?).map_err(|_| "number too large".to_string())
}

/// Decodes a file's block of shared strings (its checksum already checked).
fn read_block(bytes: &[u8]) -> Result<Vec<Box<str>>, String> {
    let mut input = In { bytes, at: 0 };
    let mut strings = Vec::new();
    while input.at < bytes.len() {
        let length = varint_usize(&mut input)?;
        let text = input.take(length)?;
        strings.push(Box::from(
            std::str::from_utf8(text).map_err(|_| "text is not utf-8")?,
        ));
    }
    Ok(strings)
}

/// Decodes a bucket's records (its checksum already checked; still, every length is checked);
/// `shared` gives a file's block of shared strings.
fn read_records<'s>(
    bytes: &[u8],
    paths: &[PathBuf],
    shared: &dyn Fn(usize) -> Result<&'s [Box<str>], String>,
) -> Result<Vec<LibrarySymbol>, String> {
    let mut input = In { bytes, at: 0 };
    let mut symbols = Vec::new();
    while input.at < bytes.len() {
        let file = varint_usize(&mut input)?;
        let kind = input.take(1)?[0];
        let machine = u32::try_from(varint(&mut input)?).map_err(|_| "bad machine")?;
        let machine = cache::machine_of(machine).ok_or("bad machine")?;
        let library = paths.get(file).ok_or("record of no file")?;
        let mut strings: [Option<&str>; STRINGS] = [None; STRINGS];
        for (number, string) in strings.iter_mut().enumerate() {
            let value = varint_usize(&mut input)?;
            if value == 0 {
                continue;
            }
            *string = Some(if SHARED.contains(&number) {
                shared(file)?
                    .get(value - 1)
                    .ok_or("no such shared string")?
            } else {
                let text = input.take(value - 1)?;
                std::str::from_utf8(text).map_err(|_| "text is not utf-8")?
            });
        }
        let kind = KINDS.get(usize::from(kind)).ok_or("bad kind")?.clone();
        let [name, member, dll, target, export_name, forwarder, source_library] = strings;
        let view = SymbolView {
            name: name.ok_or("record without a name")?,
            member,
            dll: dll.map(Into::into),
            kind,
            target,
            machine,
            export_name: export_name.map(Into::into),
            forwarder,
            source_library,
        };
        symbols.push(view.to_symbol(library));
    }
    Ok(symbols)
}

/// A file's shared strings while its records are written: each distinct one numbered once.
#[derive(Default)]
struct Shared<'a> {
    numbers: foldhash::HashMap<&'a str, u64>,
    /// The block: each string's varint length and bytes, in number order.
    block: Vec<u8>,
}

impl<'a> Shared<'a> {
    /// The number (plus one) of `text` in the block, added when new.
    fn number(&mut self, text: &'a str) -> u64 {
        let next = self.numbers.len() as u64 + 1;
        let number = *self.numbers.entry(text).or_insert(next);
        if number == next {
            put_varint(&mut self.block, text.len() as u64);
            self.block.extend_from_slice(text.as_bytes());
        }
        number
    }
}

/// Appends one record: file number, kind, machine, the string fields (member and DLL as numbers
/// in the file's block of shared strings).
fn write_record<'a>(
    out: &mut Vec<u8>,
    file: u32,
    view: &'a SymbolView<'a>,
    shared: &mut Shared<'a>,
) {
    let kind = KINDS.iter().position(|k| *k == view.kind).unwrap_or(3) as u8;
    put_varint(out, u64::from(file));
    out.push(kind);
    put_varint(out, u64::from(cache::machine_code(view.machine)));
    let strings: [Option<&'a str>; STRINGS] = [
        Some(view.name),
        view.member,
        view.dll.as_deref(),
        view.target,
        view.export_name.as_deref(),
        view.forwarder,
        view.source_library,
    ];
    for (number, string) in strings.into_iter().enumerate() {
        match string {
            None => out.push(0),
            Some(text) if SHARED.contains(&number) => put_varint(out, shared.number(text)),
            Some(text) => {
                put_varint(out, text.len() as u64 + 1);
                out.extend_from_slice(text.as_bytes());
            }
        }
    }
}

/// The records of one file, written one after another: the bytes, where each record starts, and
/// the file's block of shared strings with its checksum.
fn file_records(number: u32, file: &FileIndex) -> (Vec<u8>, Vec<usize>, Vec<u8>) {
    let count = file.parts.records.len();
    let mut bytes = Vec::new();
    let mut starts = Vec::with_capacity(count + 1);
    let views: Vec<SymbolView<'_>> = (0..count).map(|record| file.view(record)).collect();
    let mut shared = Shared::default();
    for view in &views {
        starts.push(bytes.len());
        write_record(&mut bytes, number, view, &mut shared);
    }
    starts.push(bytes.len());
    let mut block = shared.block;
    let sum = bucket_checksum(number, &block);
    block.extend_from_slice(&sum.to_le_bytes());
    (bytes, starts, block)
}

/// Writes the table of `files` (whose keys are `keys` and whose facts are `facts`, all in search
/// order) to `path`, atomically ([`crate::files::atomic`]). Records are written per file in parallel,
/// then streamed bucket by bucket: the table is never whole in memory.
pub(crate) fn write(
    path: &Path,
    keys: &[Key],
    files: &[FileIndex],
    facts: &[FileFacts],
) -> std::io::Result<()> {
    use rayon::prelude::*;
    use std::io::Write;
    let written: Vec<(Vec<u8>, Vec<usize>, Vec<u8>)> = files
        .par_iter()
        .enumerate()
        .map(|(number, file)| file_records(number as u32, file))
        .collect();
    let total: usize = files.iter().map(|f| f.parts.hashes.len()).sum();
    // About two records per bucket: a lookup reads one small bucket.
    let bits = (usize::BITS - (total / 2).max(1).leading_zeros()).clamp(4, 26);
    let buckets = 1usize << bits;
    let blocks = block_places(&written);
    let bucket = |hash: u64| (hash >> (64 - bits)) as usize;
    // Counting sort of (file, record) by bucket, search order kept within a bucket; the
    // directory from the records' lengths.
    let mut starts = vec![0u32; buckets + 1];
    let mut sizes = vec![8u64; buckets];
    for (number, file) in files.iter().enumerate() {
        let offsets = &written[number].1;
        for (record, &hash) in file.parts.hashes.iter().enumerate() {
            starts[bucket(hash) + 1] += 1;
            sizes[bucket(hash)] += (offsets[record + 1] - offsets[record]) as u64;
        }
    }
    for number in 1..starts.len() {
        starts[number] += starts[number - 1];
    }
    let mut next = starts.clone();
    let mut entries = vec![(0u32, 0u32); total];
    for (number, file) in files.iter().enumerate() {
        for (record, &hash) in file.parts.hashes.iter().enumerate() {
            let slot = &mut next[bucket(hash)];
            entries[*slot as usize] = (number as u32, record as u32);
            *slot += 1;
        }
    }
    // The front's length does not depend on where the strings start: written once to learn it.
    let mut front = Out::default();
    write_front(&mut front, bits, keys, facts, 0, &blocks);
    let records_length: u64 = sizes.iter().sum();
    let strings = front.0.len() as u64 + (buckets as u64 + 1) * 8 + records_length;
    let mut front = Out::default();
    write_front(&mut front, bits, keys, facts, strings, &blocks);
    let mut atomic = crate::files::atomic::AtomicFile::create(path)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, atomic.file());
    out.write_all(&front.0)?;
    let mut offset = 0u64;
    for size in &sizes {
        out.write_all(&offset.to_le_bytes())?;
        offset += size;
    }
    out.write_all(&offset.to_le_bytes())?;
    let mut records = Vec::new();
    for number in 0..buckets {
        records.clear();
        for &(file, record) in &entries[starts[number] as usize..starts[number + 1] as usize] {
            let (bytes, offsets, _) = &written[file as usize];
            let record = record as usize;
            records.extend_from_slice(&bytes[offsets[record]..offsets[record + 1]]);
        }
        let sum = bucket_checksum(number as u32, &records);
        out.write_all(&records)?;
        out.write_all(&sum.to_le_bytes())?;
    }
    for (_, _, block) in &written {
        out.write_all(block)?;
    }
    out.flush()?;
    drop(out);
    atomic.commit()
}

/// Where each file's block of shared strings lies in the strings section (offset, length).
fn block_places(written: &[(Vec<u8>, Vec<usize>, Vec<u8>)]) -> Vec<(u64, u64)> {
    let mut offset = 0u64;
    written
        .iter()
        .map(|(_, _, block)| {
            let place = (offset, block.len() as u64);
            offset += block.len() as u64;
            place
        })
        .collect()
}

/// The header and the files section, with its checksum and padding.
fn write_front(
    out: &mut Out,
    bits: u32,
    keys: &[Key],
    facts: &[FileFacts],
    strings: u64,
    blocks: &[(u64, u64)],
) {
    out.0.extend_from_slice(MAGIC);
    out.u32(VERSION);
    out.u32(bits);
    out.u64(keys.len() as u64);
    out.u64(0); // The files section's length, set below.
    out.u64(strings);
    for ((key, facts), (offset, length)) in keys.iter().zip(facts).zip(blocks) {
        cache::write_key(out, key);
        out.u32(cache::format_code(facts.info.format));
        out.u32(u32::from(facts.listed));
        cache::write_summary(out, &facts.info);
        cache::write_warnings(out, &facts.warnings);
        out.u64(*offset);
        out.u64(*length);
    }
    let files_length = (out.0.len() - HEADER) as u64;
    out.0[24..32].copy_from_slice(&files_length.to_le_bytes());
    let sum = cache::checksum(&out.0);
    out.u64(sum);
    out.align();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_read_back_as_written() {
        let mut alias = LibrarySymbol::new(
            "b".into(),
            Path::new("x.lib"),
            SymbolKind::Alias { target: "c".into() },
            super::super::Machine::X86,
        );
        alias.member = Some("m.obj".into());
        alias.forwarder = Some("".into());
        let mut import = LibrarySymbol::new(
            "__imp_f".into(),
            Path::new("x.lib"),
            SymbolKind::ImportData,
            super::super::Machine::X64,
        );
        import.dll = Some("K.dll".into());
        import.export_name = Some("f".into());
        import.source_library = Some("s".into());
        let mut other = alias.clone();
        other.name = "d".into();
        other.machine = super::super::Machine::Unknown(0xfffe);
        let mut bytes = Vec::new();
        let views = [&alias, &import, &other].map(SymbolView::of);
        let mut shared = Shared::default();
        for view in &views {
            write_record(&mut bytes, 0, view, &mut shared);
        }
        // The member and the DLL once each, whatever the number of records naming them.
        let block = read_block(&shared.block).unwrap();
        assert_eq!(block, ["m.obj".into(), "K.dll".into()]);
        let files = [PathBuf::from("x.lib")];
        let of = |_: usize| Ok(&block[..]);
        let read = read_records(&bytes, &files, &of).unwrap();
        assert_eq!(read, [alias.clone(), import.clone(), other.clone()]);
        // Every truncation is an error, never a panic.
        for length in 0..bytes.len() {
            let _ = read_records(&bytes[..length], &files, &of);
        }
        assert!(read_records(&bytes[..5], &files, &of).is_err());
        assert!(read_records(&bytes, &[], &of).is_err());
        let none = |_: usize| Ok(&[][..]);
        assert!(
            read_records(&bytes, &files, &none).is_err(),
            "a shared string that is not there"
        );
        for length in 0..shared.block.len() {
            let _ = read_block(&shared.block[..length]);
        }
        assert!(read_block(&[5, b'a']).is_err());
        let mut big = Vec::new();
        put_varint(&mut big, u64::MAX);
        assert_eq!(varint(&mut In { bytes: &big, at: 0 }), Ok(u64::MAX));
        assert!(varint(&mut In {
            bytes: &[0xff; 11],
            at: 0
        })
        .is_err());
    }

    #[test]
    fn a_bucket_checksum_depends_on_its_number() {
        assert_ne!(bucket_checksum(1, b"abc"), bucket_checksum(2, b"abc"));
        assert_ne!(bucket_checksum(1, b"abc"), bucket_checksum(1, b"abd"));
    }
}
