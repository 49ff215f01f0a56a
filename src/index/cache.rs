//! The on-disk index cache: one file per indexed archive or object, keyed by the
//! canonical path, size, modification time, file identity and change time
//! ([`crate::files::identity::FileStamp`]: a rewrite with the same size and modification time is seen)
//! and [`VERSION`], holding the compact records of
//! `store` in a binary layout that is read into memory and used as is: no parsing, no per-symbol
//! allocation (read, not mapped: a mapped entry truncated by another program would end the run).
//! Kept because it measurably beats re-reading (benches/README.md): the records of an archive are
//! far smaller than the archive, and reading them skips all COFF parsing.
//!
//! An entry stores only the bytes its records point at (names, member names, the short import
//! members a lookup parses again) and resolves what a lookup would otherwise read from object
//! symbol tables (weak externals), so lookups never need the original file. Entries are written
//! to a temporary file and renamed into place, so readers see a whole entry or none and
//! concurrent writers of the same entry are safe (the last rename wins; both are complete). A
//! checksum covers the whole entry: a damaged one is discarded with a warning and the file re-read.
//! DLLs, `.def` files and PDBs are not cached (rare in library directories, and their readers build
//! owned symbols).

use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

use super::store::{self, FileIndex, FileParts, Member, Record, RecordKind, Span};
use super::{FileFormat, IndexWarning, LibraryInfo, Machine};

/// Bumped whenever the layout or what the readers record changes: older entries are ignored.
pub(crate) const VERSION: u32 = 3;
const MAGIC: &[u8; 8] = b"LNKFXIDX";

/// What identifies the version of a file an entry was made from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Key {
    canonical: PathBuf,
    size: u64,
    modified_seconds: i64,
    modified_nanos: u32,
    stamp: crate::files::identity::FileStamp,
}

impl Key {
    /// The key of `path` as it is on disk now. `parents` maps directories to their canonical
    /// form (computed once per build): a file that is not a symbolic link then costs one `lstat`.
    pub(crate) fn of(path: &Path, parents: &Parents) -> std::io::Result<Key> {
        let link = std::fs::symlink_metadata(path)?;
        let known = path
            .parent()
            .and_then(|parent| parents.get(parent))
            .zip(path.file_name());
        let (canonical, metadata) = match known {
            Some((parent, name)) if !link.file_type().is_symlink() => (parent.join(name), link),
            _ => {
                let canonical = std::fs::canonicalize(path)?;
                let metadata = std::fs::metadata(&canonical)?;
                (canonical, metadata)
            }
        };
        let (modified_seconds, modified_nanos) =
            match metadata.modified()?.duration_since(UNIX_EPOCH) {
                Ok(after) => (after.as_secs() as i64, after.subsec_nanos()),
                Err(before) => (
                    -(before.duration().as_secs() as i64),
                    before.duration().subsec_nanos(),
                ),
            };
        #[cfg(unix)]
        let stamp = crate::files::identity::stamp_of_metadata(&metadata);
        #[cfg(not(unix))]
        let stamp = crate::files::identity::stamp_of_path(&canonical)?;
        Ok(Key {
            canonical,
            size: metadata.len(),
            modified_seconds,
            modified_nanos,
            stamp,
        })
    }

    fn path_bytes(&self) -> &[u8] {
        self.canonical.as_os_str().as_encoded_bytes()
    }
}

/// Directories of the indexed files and their canonical forms.
pub(crate) type Parents = std::collections::HashMap<PathBuf, PathBuf>;

/// The canonical forms of the directories of `files` (a few `realpath`s, not one per file).
pub(crate) fn parents(files: &[PathBuf]) -> Parents {
    let mut parents = Parents::new();
    for file in files {
        if let Some(parent) = file.parent() {
            if !parents.contains_key(parent) {
                let directory = if parent.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    parent
                };
                if let Ok(canonical) = std::fs::canonicalize(directory) {
                    parents.insert(parent.to_path_buf(), canonical);
                }
            }
        }
    }
    parents
}

/// The cache directory.
#[derive(Debug)]
pub(crate) struct Cache {
    dir: PathBuf,
}

/// What looking a file up in the cache gave.
pub(crate) enum Loaded {
    /// A valid entry.
    Hit(Box<FileIndex>),
    /// No entry for this version of the file.
    Miss,
    /// An entry that is damaged: why.
    Corrupt(String),
}

impl Cache {
    pub(crate) fn new(dir: &Path) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
        }
    }

    /// The entry file of a canonical path.
    fn entry(&self, key: &Key) -> PathBuf {
        self.dir
            .join(format!("{:016x}.idx", store::name_hash(key.path_bytes())))
    }

    /// The entry for `key`, read as `path` (the name the caller uses for the file).
    pub(crate) fn load(&self, key: &Key, path: &Path) -> Loaded {
        let entry = self.entry(key);
        // Read, not mapped: another program may truncate the file at any time (entries are
        // replaced by rename, but nothing stops a truncation in place), and a mapping whose file
        // shrank ends the process (SIGBUS) when a page past the new end is touched. A short read
        // fails the checksum: the entry is damaged, and rebuilt. Not a regular file (a planted
        // FIFO) or unreadable: a miss, and the store renames over it.
        let Ok(map) = crate::files::open::read_regular(&entry) else {
            return Loaded::Miss;
        };
        match decode(&map, key, path) {
            Ok(Some((parts, window))) => {
                Loaded::Hit(Box::new(FileIndex::cached(path, map, window, parts)))
            }
            Ok(None) => Loaded::Miss,
            Err(reason) => Loaded::Corrupt(format!("{}: {reason}", entry.display())),
        }
    }

    /// Writes the entry of `file` for `key` (atomically: [`crate::files::atomic`]).
    pub(crate) fn store(&self, key: &Key, file: &FileIndex) -> std::io::Result<()> {
        let bytes = encode(key, file);
        std::fs::create_dir_all(&self.dir)?;
        let entry = self.entry(key);
        if let Err(error) = crate::files::atomic::write_atomic(&entry, &bytes) {
            // Windows refuses to replace a file another process has mapped: a concurrent run
            // that just wrote (and maps) the entry for this same key. Its entry is as good as
            // ours, and a damaged one is discarded by the next load, so this is not a failure.
            if error.kind() == std::io::ErrorKind::PermissionDenied && entry.is_file() {
                return Ok(());
            }
            return Err(error);
        }
        Ok(())
    }
}

/// A checksum of the entry (a damaged entry is discarded, not misread): four independent lanes
/// of eight bytes, so that it runs at memory speed.
pub(crate) fn checksum(bytes: &[u8]) -> u64 {
    const K: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut lanes = [0x243F_6A88_85A3_08D3u64, 1, 2, 3];
    let mut blocks = bytes.chunks_exact(32);
    for block in &mut blocks {
        for (lane, word) in lanes.iter_mut().zip(block.chunks_exact(8)) {
            let mut value = [0u8; 8];
            value.copy_from_slice(word);
            *lane = (*lane ^ u64::from_le_bytes(value))
                .wrapping_mul(K)
                .rotate_left(23);
        }
    }
    let tail = store::name_hash(blocks.remainder());
    lanes.iter().fold(tail ^ bytes.len() as u64, |sum, &lane| {
        (sum ^ lane).wrapping_mul(K).rotate_left(31)
    })
}

pub(crate) fn machine_code(machine: Machine) -> u32 {
    match machine {
        Machine::X64 => 0,
        Machine::X86 => 1,
        Machine::Arm64 => 2,
        Machine::Arm64ec => 3,
        Machine::Arm => 4,
        Machine::Any => 5,
        Machine::Ia64 => 6,
        Machine::Unknown(number) => 0x1_0000 | u32::from(number),
    }
}

pub(crate) fn machine_of(code: u32) -> Option<Machine> {
    Some(match code {
        0 => Machine::X64,
        1 => Machine::X86,
        2 => Machine::Arm64,
        3 => Machine::Arm64ec,
        4 => Machine::Arm,
        5 => Machine::Any,
        6 => Machine::Ia64,
        code if code >> 16 == 1 => Machine::Unknown(code as u16),
        _ => return None,
    })
}

const KINDS: [RecordKind; 5] = [
    RecordKind::ShortImport,
    RecordKind::LongImportCode,
    RecordKind::LongImportData,
    RecordKind::Defined,
    RecordKind::Alias,
];

pub(crate) fn format_code(format: FileFormat) -> u32 {
    match format {
        FileFormat::Archive => 0,
        FileFormat::Object => 1,
        FileFormat::ImportObject => 2,
        FileFormat::Dll => 3,
        FileFormat::Def => 4,
        FileFormat::Pdb => 5,
    }
}

pub(crate) fn format_of(code: u32) -> Option<FileFormat> {
    Some(match code {
        0 => FileFormat::Archive,
        1 => FileFormat::Object,
        2 => FileFormat::ImportObject,
        3 => FileFormat::Dll,
        4 => FileFormat::Def,
        5 => FileFormat::Pdb,
        _ => return None,
    })
}

/// Little-endian writer.
#[derive(Default)]
pub(crate) struct Out(pub(crate) Vec<u8>);

impl Out {
    pub(crate) fn u32(&mut self, value: u32) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }
    pub(crate) fn u64(&mut self, value: u64) {
        self.0.extend_from_slice(&value.to_le_bytes());
    }
    pub(crate) fn bytes(&mut self, bytes: &[u8]) {
        self.u64(bytes.len() as u64);
        self.0.extend_from_slice(bytes);
    }
    fn strings(&mut self, strings: &[String]) {
        self.u64(strings.len() as u64);
        for string in strings {
            self.bytes(string.as_bytes());
        }
    }
    /// Pads to a multiple of 8 (the checksum and the record arrays read whole words).
    pub(crate) fn align(&mut self) {
        while !self.0.len().is_multiple_of(8) {
            self.0.push(0);
        }
    }
}

/// Bounds-checked little-endian reader: every length comes from the entry and is checked against
/// what is left before anything is sliced or allocated.
pub(crate) struct In<'a> {
    pub(crate) bytes: &'a [u8],
    pub(crate) at: usize,
}

impl<'a> In<'a> {
    pub(crate) fn take(&mut self, length: usize) -> Result<&'a [u8], String> {
        let end = self
            .at
            .checked_add(length)
            .filter(|&end| end <= self.bytes.len())
            .ok_or("truncated")?;
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }
    pub(crate) fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    pub(crate) fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        let mut word = [0u8; 8];
        word.copy_from_slice(b);
        Ok(u64::from_le_bytes(word))
    }
    pub(crate) fn count(&mut self, item_size: usize) -> Result<usize, String> {
        let count = usize::try_from(self.u64()?).map_err(|_| "count too large")?;
        if count.saturating_mul(item_size.max(1)) > self.bytes.len() - self.at {
            return Err(format!("{count} items do not fit"));
        }
        Ok(count)
    }
    pub(crate) fn bytes(&mut self) -> Result<&'a [u8], String> {
        let length = self.count(1)?;
        self.take(length)
    }
    fn string(&mut self) -> Result<String, String> {
        let bytes = self.bytes()?;
        String::from_utf8(bytes.to_vec()).map_err(|_| "text is not utf-8".to_string())
    }
    fn strings(&mut self) -> Result<Vec<String>, String> {
        let count = self.count(8)?;
        (0..count).map(|_| self.string()).collect()
    }
    fn align(&mut self) -> Result<(), String> {
        let padding = (8 - self.at % 8) % 8;
        self.take(padding).map(|_| ())
    }
}

/// Copies the bytes records point at into one blob, resolving what lookups would read from the
/// original file.
struct Blob<'a> {
    data: &'a [u8],
    blob: Vec<u8>,
}

impl Blob<'_> {
    /// The span of the same bytes in the blob (arena spans are unchanged).
    fn copy(&mut self, span: Span) -> Span {
        match span.data_range() {
            Some(range) => {
                let start = self.blob.len() as u32;
                self.blob
                    .extend_from_slice(self.data.get(range.clone()).unwrap_or(&[]));
                Span::data(start, range.len() as u32)
            }
            None => span,
        }
    }
}

/// The entry of `file`: header, summary, warnings, blob, arena, members, records, hashes, checksum.
/// Each section is written by the `write_` function of its name and read back by the `read_`
/// one, in this order.
fn encode(key: &Key, file: &FileIndex) -> Vec<u8> {
    let parts = &file.parts;
    let mut blob = Blob {
        data: file.data(),
        blob: Vec::new(),
    };
    let members = copy_members(parts, &mut blob);
    let records = copy_records(file, &members, &mut blob);
    let mut out = Out::default();
    write_header(&mut out, key, parts.info.format);
    write_summary(&mut out, &parts.info);
    write_warnings(&mut out, &parts.warnings);
    out.bytes(&blob.blob);
    out.bytes(parts.arena.as_bytes());
    out.align();
    write_members(&mut out, &members);
    write_records(&mut out, &records, &parts.hashes);
    out.align();
    let sum = checksum(&out.0);
    out.u64(sum);
    out.0
}

/// The members as the entry keeps them: names always; bytes only for short import members
/// (parsed again on lookup), copied into the blob.
fn copy_members(parts: &FileParts, blob: &mut Blob<'_>) -> Vec<Member> {
    let mut short_import = vec![false; parts.members.len()];
    for record in &parts.records {
        if record.kind == RecordKind::ShortImport {
            if let Some(flag) = short_import.get_mut(record.member as usize) {
                *flag = true;
            }
        }
    }
    let mut members = Vec::with_capacity(parts.members.len());
    for (member, &keep) in parts.members.iter().zip(&short_import) {
        let name = blob.copy(member.name);
        let (start, len) = if keep {
            let copied = blob.copy(Span::data(member.start, member.len));
            (
                copied.data_range().map_or(0, |r| r.start as u32),
                member.len,
            )
        } else {
            (0, 0)
        };
        members.push(Member { name, start, len });
    }
    members
}

/// The records as the entry keeps them: their bytes copied into the blob (a short import's name
/// pointing into its copied member), and map symbols resolved to definitions or aliases.
fn copy_records(file: &FileIndex, members: &[Member], blob: &mut Blob<'_>) -> Vec<Record> {
    let parts = &file.parts;
    let mut records = Vec::with_capacity(parts.records.len());
    for (number, record) in parts.records.iter().enumerate() {
        let mut record = *record;
        if record.kind == RecordKind::MapSymbol {
            // Resolve now what a lookup would read from the object's symbol table.
            record.kind = RecordKind::Defined;
            if let Some(target) = file.map_alias_target(number) {
                record.kind = RecordKind::Alias;
                let start = blob.blob.len() as u32;
                blob.blob.extend_from_slice(target.as_bytes());
                record.detail = Span::data(start, target.len() as u32);
            }
        } else {
            record.detail = blob.copy(record.detail);
        }
        // A short import's name lies inside its member, which was copied: point there.
        let member = parts.members.get(record.member as usize);
        let inside = match (record.kind, member, record.name.data_range()) {
            (RecordKind::ShortImport, Some(member), Some(range))
                if range.start >= member.start as usize
                    && range.end <= member.start as usize + member.len as usize =>
            {
                members.get(record.member as usize).map(|copied| {
                    Span::data(
                        copied.start + (range.start as u32 - member.start),
                        range.len() as u32,
                    )
                })
            }
            _ => None,
        };
        record.name = inside.unwrap_or_else(|| blob.copy(record.name));
        records.push(record);
    }
    records
}

/// The key's fields (size, modification time, identity, change time, canonical path), as the
/// lookup table (`table`) keeps one per file.
pub(crate) fn write_key(out: &mut Out, key: &Key) {
    out.u64(key.size);
    out.u64(key.modified_seconds as u64);
    out.u32(key.modified_nanos);
    out.u64(key.stamp.identity.volume);
    out.u64(key.stamp.identity.index);
    out.u64(key.stamp.changed as u64);
    out.u64((key.stamp.changed >> 64) as u64);
    out.bytes(key.path_bytes());
}

/// Reads a key written by [`write_key`]: whether it is `key`.
pub(crate) fn read_key_is(input: &mut In<'_>, key: &Key) -> Result<bool, String> {
    let size = input.u64()?;
    let seconds = input.u64()? as i64;
    let nanos = input.u32()?;
    let identity = crate::files::identity::FileIdentity {
        volume: input.u64()?,
        index: input.u64()?,
    };
    let changed = i128::from(input.u64()?) | (i128::from(input.u64()? as i64) << 64);
    let canonical = input.bytes()?;
    Ok(size == key.size
        && seconds == key.modified_seconds
        && nanos == key.modified_nanos
        && identity == key.stamp.identity
        && changed == key.stamp.changed
        && canonical == key.path_bytes())
}

/// A name for what identifies a set of files: the hash of their canonical paths, in order.
pub(crate) fn set_hash(keys: &[Key]) -> u64 {
    let mut joined = Vec::new();
    for key in keys {
        joined.extend_from_slice(key.path_bytes());
        joined.push(0);
    }
    store::name_hash(&joined)
}

/// The header: magic, version, the key (size, modification time, identity, change time), the
/// format and the canonical path.
fn write_header(out: &mut Out, key: &Key, format: FileFormat) {
    out.0.extend_from_slice(MAGIC);
    out.u32(VERSION);
    out.u32(0);
    out.u64(key.size);
    out.u64(key.modified_seconds as u64);
    out.u32(key.modified_nanos);
    out.u64(key.stamp.identity.volume);
    out.u64(key.stamp.identity.index);
    out.u64(key.stamp.changed as u64);
    out.u64((key.stamp.changed >> 64) as u64);
    out.u32(format_code(format));
    out.bytes(key.path_bytes());
}

/// The summary: the counts, default libraries, machines and DLLs.
pub(crate) fn write_summary(out: &mut Out, info: &LibraryInfo) {
    for count in [
        info.members,
        info.import_members,
        info.symbols,
        info.unreadable_members,
    ] {
        out.u64(count as u64);
    }
    out.strings(&info.default_libs);
    out.u64(info.machines.len() as u64);
    for &machine in &info.machines {
        out.u32(machine_code(machine));
    }
    out.strings(&info.dlls);
}

/// The warnings: each with its member, if any, and its message.
pub(crate) fn write_warnings(out: &mut Out, warnings: &[IndexWarning]) {
    out.u64(warnings.len() as u64);
    for warning in warnings {
        match &warning.member {
            Some(member) => {
                out.u32(1);
                out.bytes(member.as_bytes());
            }
            None => out.u32(0),
        }
        out.bytes(warning.message.as_bytes());
    }
}

/// The member table: four words per member (name span, start, length).
fn write_members(out: &mut Out, members: &[Member]) {
    out.u64(members.len() as u64);
    for member in members {
        let (start, len) = member.name.raw();
        for value in [start, len, member.start, member.len] {
            out.u32(value);
        }
    }
}

/// The record table (eight words per record), then one hash per record.
fn write_records(out: &mut Out, records: &[Record], hashes: &[u64]) {
    out.u64(records.len() as u64);
    for record in records {
        let (name_start, name_len) = record.name.raw();
        let (detail_start, detail_len) = record.detail.raw();
        let kind = KINDS.iter().position(|&k| k == record.kind).unwrap_or(3) as u32;
        for value in [
            name_start,
            name_len,
            detail_start,
            detail_len,
            record.member,
            kind,
            machine_code(record.machine),
            0,
        ] {
            out.u32(value);
        }
    }
    for &hash in hashes {
        out.u64(hash);
    }
}

/// A decoded entry: its parts, and where its blob is in the map (start, length).
type Decoded = (FileParts, (usize, usize));

/// Reads an entry: `None` when it is for another version of the file (or another path with the
/// same hash), an error when it is damaged. Returns the parts and where the blob is in the map.
fn decode(map: &[u8], key: &Key, path: &Path) -> Result<Option<Decoded>, String> {
    let mut input = In { bytes: map, at: 0 };
    let Some(format) = read_header(&mut input, key)? else {
        return Ok(None);
    };
    // Only now, for an entry that claims to be current: the whole entry must be intact.
    check_checksum(map)?;
    let mut parts = FileParts::new(path, format);
    read_summary(&mut input, &mut parts)?;
    read_warnings(&mut input, path, &mut parts)?;
    let blob = input.bytes()?;
    let window = (input.at - blob.len(), blob.len());
    parts.arena = String::from_utf8(input.bytes()?.to_vec()).map_err(|_| "arena not utf-8")?;
    input.align()?;
    read_members(&mut input, &mut parts, blob.len())?;
    read_records(&mut input, &mut parts, blob.len())?;
    if parts.info.symbols != parts.records.len() {
        return Err("symbol count does not match the records".into());
    }
    Ok(Some((parts, window)))
}

/// The header's format, when the entry is of this version and its key is `key`'s; `None` when
/// it is for another version of the file or of lnkfix.
fn read_header(input: &mut In<'_>, key: &Key) -> Result<Option<FileFormat>, String> {
    if input.take(8)? != MAGIC {
        return Err("not an index cache entry".into());
    }
    if input.u32()? != VERSION {
        return Ok(None);
    }
    input.u32()?;
    let size = input.u64()?;
    let seconds = input.u64()? as i64;
    let nanos = input.u32()?;
    let identity = crate::files::identity::FileIdentity {
        volume: input.u64()?,
        index: input.u64()?,
    };
    let changed = i128::from(input.u64()?) | (i128::from(input.u64()? as i64) << 64);
    let format = format_of(input.u32()?).ok_or("bad format")?;
    let canonical = input.bytes()?;
    if size != key.size
        || seconds != key.modified_seconds
        || nanos != key.modified_nanos
        || identity != key.stamp.identity
        || changed != key.stamp.changed
        || canonical != key.path_bytes()
    {
        return Ok(None);
    }
    Ok(Some(format))
}

/// Checks the checksum in the entry's last word against the whole entry before it.
fn check_checksum(map: &[u8]) -> Result<(), String> {
    let body = map.len().checked_sub(8).ok_or("truncated")?;
    let mut stored = [0u8; 8];
    stored.copy_from_slice(&map[body..]);
    if body % 8 != 0 || checksum(&map[..body]) != u64::from_le_bytes(stored) {
        return Err("checksum mismatch".into());
    }
    Ok(())
}

/// Reads the summary into `parts.info`.
pub(crate) fn read_summary(input: &mut In<'_>, parts: &mut FileParts) -> Result<(), String> {
    let counts = [input.u64()?, input.u64()?, input.u64()?, input.u64()?];
    let [members, imports, symbols, unreadable] = counts.map(|c| c as usize);
    let info = &mut parts.info;
    info.members = members;
    info.import_members = imports;
    info.symbols = symbols;
    info.unreadable_members = unreadable;
    info.default_libs = input.strings()?;
    let count = input.count(4)?;
    info.machines = (0..count)
        .map(|_| {
            input
                .u32()
                .and_then(|c| machine_of(c).ok_or("bad machine".into()))
        })
        .collect::<Result<_, _>>()?;
    info.dlls = input.strings()?;
    Ok(())
}

/// Reads the warnings into `parts.warnings` (and their number into the summary).
pub(crate) fn read_warnings(
    input: &mut In<'_>,
    path: &Path,
    parts: &mut FileParts,
) -> Result<(), String> {
    let warnings = input.count(8)?;
    for _ in 0..warnings {
        let member = match input.u32()? {
            0 => None,
            _ => Some(input.string()?),
        };
        let message = input.string()?;
        parts.warnings.push(IndexWarning {
            path: path.to_path_buf(),
            member,
            message,
        });
    }
    parts.info.warnings = parts.warnings.len();
    Ok(())
}

/// Reads the member table into `parts.members`, each span checked against the blob and arena.
fn read_members(input: &mut In<'_>, parts: &mut FileParts, blob: usize) -> Result<(), String> {
    let member_count = input.count(16)?;
    let member_bytes = input.take(member_count * 16)?;
    parts.members.reserve(member_count);
    for member in member_bytes.chunks_exact(16) {
        let [name_start, name_len, start, len] = words(member);
        let name = checked_span(name_start, name_len, blob, parts.arena.len())?;
        if start as usize + len as usize > blob {
            return Err("member outside the entry".into());
        }
        parts.members.push(Member { name, start, len });
    }
    Ok(())
}

/// Reads the record table and the hashes into `parts`, each record checked against the blob,
/// the arena and the members.
fn read_records(input: &mut In<'_>, parts: &mut FileParts, blob: usize) -> Result<(), String> {
    let member_count = parts.members.len();
    let record_count = input.count(32 + 8)?;
    let record_bytes = input.take(record_count * 32)?;
    parts.records.reserve(record_count);
    for record in record_bytes.chunks_exact(32) {
        let [name_start, name_len, detail_start, detail_len] = words(&record[..16]);
        let [member, kind, machine, _] = words(&record[16..]);
        let name = checked_span(name_start, name_len, blob, parts.arena.len())?;
        let detail = checked_span(detail_start, detail_len, blob, parts.arena.len())?;
        let kind = *KINDS.get(kind as usize).ok_or("bad record kind")?;
        let machine = machine_of(machine).ok_or("bad machine")?;
        if member as usize >= member_count {
            return Err("record of no member".into());
        }
        parts.records.push(Record {
            name,
            detail,
            member,
            kind,
            machine,
        });
    }
    let hashes = input.take(record_count * 8)?;
    parts.hashes = hashes
        .chunks_exact(8)
        .map(|chunk| {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            u64::from_le_bytes(word)
        })
        .collect();
    Ok(())
}

/// Four little-endian `u32`s of a 16-byte slice.
fn words(bytes: &[u8]) -> [u32; 4] {
    let mut words = [0u32; 4];
    for (word, chunk) in words.iter_mut().zip(bytes.chunks_exact(4)) {
        *word = u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]);
    }
    words
}

/// A span read from an entry, checked against the blob and the arena.
fn checked_span(start: u32, len: u32, blob: usize, arena: usize) -> Result<Span, String> {
    let span = Span::from_raw(start, len);
    let limit = if span.data_range().is_some() {
        blob
    } else {
        arena
    };
    let (start, length) = span.bounds();
    if start + length > limit {
        return Err("name outside the entry".into());
    }
    Ok(span)
}
