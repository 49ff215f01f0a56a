//! Compact storage of what one file provides: records of a few bytes each whose names are byte
//! ranges into the memory-mapped file (or a small per-file arena), turned into owned
//! [`LibrarySymbol`]s only when someone looks a name up (read only what answers
//! the question; benches/README.md: building owned symbols eagerly was >85 % of the build).
//!
//! A record says which member provides a name and how to learn the rest: short import members are
//! parsed again on lookup (DLL, import name type), object symbols taken from the archive symbol
//! map learn whether they are weak externals from their member's symbol table on lookup, and the
//! readers that build owned symbols anyway (DLLs, `.def`, PDBs) keep them and point at them.

use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use object::read::coff::{ImportFile, ImportName, ImportType};

use super::{FileFormat, IndexWarning, LibraryInfo, LibrarySymbol, Machine, SymbolKind};

/// Flag in [`Span::len`]: the bytes are in the file's arena, not in the mapped file.
const ARENA: u32 = 1 << 31;

/// A byte range of a name or string: into the mapped file, or (with the [`ARENA`] flag) into the
/// file's arena. Always valid UTF-8 (checked when stored).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Span {
    start: u32,
    len: u32,
}

impl Span {
    /// A span of the mapped bytes.
    pub(crate) fn data(start: u32, len: u32) -> Span {
        Span {
            start,
            len: len & !ARENA,
        }
    }

    /// The range of the mapped bytes, `None` for an arena span.
    pub(crate) fn data_range(self) -> Option<std::ops::Range<usize>> {
        (self.len & ARENA == 0)
            .then(|| self.start as usize..self.start as usize + self.len as usize)
    }

    /// Start and length (without the arena flag).
    pub(crate) fn bounds(self) -> (usize, usize) {
        (self.start as usize, (self.len & !ARENA) as usize)
    }

    /// The stored form (start, length with the arena flag), for the cache.
    pub(crate) fn raw(self) -> (u32, u32) {
        (self.start, self.len)
    }

    /// A span from its stored form.
    pub(crate) fn from_raw(start: u32, len: u32) -> Span {
        Span { start, len }
    }
}

/// How to learn the rest of a record's [`LibrarySymbol`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RecordKind {
    /// A short import member: DLL, type and import name come from the member again.
    ShortImport,
    /// A long-form (GNU dlltool, Wine) import object for code; `detail` is the DLL.
    LongImportCode,
    /// A long-form import object for data; `detail` is the DLL.
    LongImportData,
    /// An external definition of a regular object.
    Defined,
    /// A name the archive symbol map attributes to an object member: a definition, or a weak
    /// external (alias) that the member's symbol table says more about.
    MapSymbol,
    /// A weak external or `/alternatename`; `detail` is the target.
    Alias,
    /// An owned symbol (DLL exports, `.def`, PDB publics); `member` indexes `owned`.
    Owned,
}

/// One provider of one name.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Record {
    pub(crate) name: Span,
    /// The DLL of a long-form import, the target of an alias.
    pub(crate) detail: Span,
    /// Index into the file's members (or owned symbols for [`RecordKind::Owned`]).
    pub(crate) member: u32,
    pub(crate) kind: RecordKind,
    pub(crate) machine: Machine,
}

/// One archive member (or the whole file for a standalone object).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Member {
    pub(crate) name: Span,
    pub(crate) start: u32,
    pub(crate) len: u32,
}

/// Weak externals of one object member, read when a lookup first needs them: (name, target).
type WeakExternals = Vec<(String, String)>;

/// The bytes the spans of a file point into.
#[derive(Debug)]
pub(crate) enum Bytes {
    /// The indexed file itself, mapped.
    Mapped(memmap2::Mmap),
    /// A cache entry, read into memory: a cache file that another program truncates cannot
    /// then end the run, as a truncated mapping does (SIGBUS).
    Read(Vec<u8>),
}

impl std::ops::Deref for Bytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        match self {
            Bytes::Mapped(map) => map,
            Bytes::Read(bytes) => bytes,
        }
    }
}

/// Everything the index keeps about one file.
#[derive(Debug)]
pub(crate) struct FileIndex {
    pub(crate) path: PathBuf,
    /// The mapped file (or the cache entry, read into memory), kept so that names stay ranges
    /// and members can be read again on lookup.
    pub(crate) bytes: Option<Bytes>,
    /// Where in `bytes` the spans point: the whole file, or the blob of a cache entry.
    window: (usize, usize),
    /// Whether it came from the cache (and need not be written there).
    pub(crate) from_cache: bool,
    pub(crate) parts: FileParts,
    /// Per member, its weak externals, read on first need.
    weak: OnceLock<Vec<OnceLock<WeakExternals>>>,
}

/// What a reader produces for one file, apart from the bytes themselves.
#[derive(Debug)]
pub(crate) struct FileParts {
    pub(crate) info: LibraryInfo,
    pub(crate) warnings: Vec<IndexWarning>,
    /// Names that are not stored contiguously or not valid UTF-8 in the file (`__imp_X` of short
    /// import members, lossy conversions, a standalone object's file name).
    pub(crate) arena: String,
    pub(crate) members: Vec<Member>,
    pub(crate) records: Vec<Record>,
    /// Per record, the hash of its name.
    pub(crate) hashes: Vec<u64>,
    pub(crate) owned: Vec<LibrarySymbol>,
}

/// The position of `bytes` inside `data`, if it is a sub-slice of it.
fn offset_in(data: &[u8], bytes: &[u8]) -> Option<u32> {
    let start = (bytes.as_ptr() as usize).checked_sub(data.as_ptr() as usize)?;
    let end = start.checked_add(bytes.len())?;
    if end <= data.len() {
        u32::try_from(start).ok()
    } else {
        None
    }
}

impl FileParts {
    /// Nothing read yet from `path`.
    pub(crate) fn new(path: &Path, format: FileFormat) -> FileParts {
        FileParts {
            info: super::FileContents::new(path, format).info,
            warnings: Vec::new(),
            arena: String::new(),
            members: Vec::new(),
            records: Vec::new(),
            hashes: Vec::new(),
            owned: Vec::new(),
        }
    }

    /// A span for `bytes`: a range of `data` when it is a valid UTF-8 sub-slice of it, else a
    /// lossy copy in the arena.
    pub(crate) fn span(&mut self, data: &[u8], bytes: &[u8]) -> Span {
        if let Some(start) = offset_in(data, bytes) {
            if let Ok(len) = u32::try_from(bytes.len()) {
                if len < ARENA && std::str::from_utf8(bytes).is_ok() {
                    return Span { start, len };
                }
            }
        }
        self.arena_span(&[bytes])
    }

    /// A span for the concatenation of `pieces`, copied (lossily) into the arena.
    pub(crate) fn arena_span(&mut self, pieces: &[&[u8]]) -> Span {
        let start = self.arena.len();
        for piece in pieces {
            match std::str::from_utf8(piece) {
                Ok(piece) => self.arena.push_str(piece),
                Err(_) => self.arena.push_str(&String::from_utf8_lossy(piece)),
            }
        }
        match (
            u32::try_from(start),
            u32::try_from(self.arena.len() - start),
        ) {
            (Ok(start), Ok(len)) if len < ARENA => Span {
                start,
                len: len | ARENA,
            },
            // Over 2 GiB of names in one file: stop storing (the file cannot be that honest).
            _ => {
                self.arena.truncate(start);
                Span::default()
            }
        }
    }

    /// The text of a span.
    pub(crate) fn str<'a>(&'a self, data: &'a [u8], span: Span) -> &'a str {
        span_str(data, &self.arena, span)
    }

    /// Adds a record (its name hashed now, while its bytes are in cache).
    pub(crate) fn push(&mut self, data: &[u8], record: Record) {
        let hash = name_hash(span_bytes(data, &self.arena, record.name));
        self.push_hashed(record, hash);
    }

    /// Adds a record whose name hash is known.
    pub(crate) fn push_hashed(&mut self, record: Record, hash: u64) {
        self.records.push(record);
        self.hashes.push(hash);
    }

    /// A span for a name known to be ASCII, inside `data`.
    pub(crate) fn ascii_span(&mut self, data: &[u8], bytes: &[u8]) -> Span {
        match (offset_in(data, bytes), u32::try_from(bytes.len())) {
            (Some(start), Ok(len)) if len < ARENA => Span { start, len },
            _ => self.span(data, bytes),
        }
    }

    /// Adds a member and returns its index.
    pub(crate) fn add_member(&mut self, member: Member) -> u32 {
        self.members.push(member);
        (self.members.len() - 1) as u32
    }
}

/// The bytes of a span (UTF-8 was checked when it was made).
fn span_bytes<'a>(data: &'a [u8], arena: &'a str, span: Span) -> &'a [u8] {
    let start = span.start as usize;
    let end = start + (span.len & !ARENA) as usize;
    if span.len & ARENA != 0 {
        arena.as_bytes().get(start..end).unwrap_or(b"")
    } else {
        data.get(start..end).unwrap_or(b"")
    }
}

fn span_str<'a>(data: &'a [u8], arena: &'a str, span: Span) -> &'a str {
    let start = span.start as usize;
    let end = start + (span.len & !ARENA) as usize;
    if span.len & ARENA != 0 {
        arena.get(start..end).unwrap_or("")
    } else {
        data.get(start..end)
            .and_then(|bytes| std::str::from_utf8(bytes).ok())
            .unwrap_or("")
    }
}

/// One provider as a record describes it, borrowed from the file (or its owned symbol): what
/// [`LibrarySymbol`] holds, without the library, which the caller knows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SymbolView<'a> {
    pub(crate) name: &'a str,
    pub(crate) member: Option<&'a str>,
    pub(crate) dll: Option<Cow<'a, str>>,
    /// The kind; for an alias, [`SymbolKind::Defined`] with `target` set.
    pub(crate) kind: SymbolKind,
    /// The target of an alias.
    pub(crate) target: Option<&'a str>,
    pub(crate) machine: Machine,
    pub(crate) export_name: Option<Cow<'a, str>>,
    pub(crate) forwarder: Option<&'a str>,
    pub(crate) source_library: Option<&'a str>,
}

impl<'a> SymbolView<'a> {
    /// A view with only the required fields set.
    pub(crate) fn new(name: &'a str, kind: SymbolKind, machine: Machine) -> SymbolView<'a> {
        SymbolView {
            name,
            member: None,
            dll: None,
            kind,
            target: None,
            machine,
            export_name: None,
            forwarder: None,
            source_library: None,
        }
    }

    /// The view of an owned symbol.
    pub(crate) fn of(symbol: &'a LibrarySymbol) -> SymbolView<'a> {
        let (kind, target) = match &symbol.kind {
            SymbolKind::Alias { target } => (SymbolKind::Defined, Some(target.as_str())),
            kind => (kind.clone(), None),
        };
        SymbolView {
            name: &symbol.name,
            member: symbol.member.as_deref(),
            dll: symbol.dll.as_deref().map(Cow::Borrowed),
            kind,
            target,
            machine: symbol.machine,
            export_name: symbol.export_name.as_deref().map(Cow::Borrowed),
            forwarder: symbol.forwarder.as_deref(),
            source_library: symbol.source_library.as_deref(),
        }
    }

    /// The owned symbol, read from `library`.
    pub(crate) fn to_symbol(&self, library: &Path) -> LibrarySymbol {
        let kind = match self.target {
            Some(target) => SymbolKind::Alias {
                target: target.to_string(),
            },
            None => self.kind.clone(),
        };
        LibrarySymbol {
            name: self.name.to_string(),
            library: library.to_path_buf(),
            member: self.member.map(str::to_string),
            dll: self.dll.as_deref().map(str::to_string),
            kind,
            machine: self.machine,
            export_name: self.export_name.as_deref().map(str::to_string),
            forwarder: self.forwarder.map(str::to_string),
            source_library: self.source_library.map(str::to_string),
        }
    }
}

impl FileIndex {
    /// A file whose records point into its map.
    pub(crate) fn mapped(path: &Path, map: memmap2::Mmap, parts: FileParts) -> Self {
        FileIndex {
            path: path.to_path_buf(),
            window: (0, map.len()),
            bytes: Some(Bytes::Mapped(map)),
            from_cache: false,
            parts,
            weak: OnceLock::new(),
        }
    }

    /// A file read from a cache entry (`entry`, its bytes) whose blob is `window` of it.
    pub(crate) fn cached(
        path: &Path,
        entry: Vec<u8>,
        window: (usize, usize),
        parts: FileParts,
    ) -> Self {
        FileIndex {
            path: path.to_path_buf(),
            bytes: Some(Bytes::Read(entry)),
            window,
            from_cache: true,
            parts,
            weak: OnceLock::new(),
        }
    }

    /// Whether the cache can hold this file: records over mapped bytes (archives and objects).
    pub(crate) fn cacheable(&self) -> bool {
        self.bytes.is_some() && !self.from_cache && self.parts.owned.is_empty()
    }

    /// A file whose records are owned symbols.
    pub(crate) fn owned(path: PathBuf, mut parts: FileParts, symbols: Vec<LibrarySymbol>) -> Self {
        parts.records.reserve(symbols.len());
        parts.hashes.reserve(symbols.len());
        for (number, symbol) in symbols.iter().enumerate() {
            parts.records.push(Record {
                name: Span::default(),
                detail: Span::default(),
                member: number as u32,
                kind: RecordKind::Owned,
                machine: symbol.machine,
            });
            parts.hashes.push(name_hash(symbol.name.as_bytes()));
        }
        parts.owned = symbols;
        FileIndex {
            path,
            bytes: None,
            window: (0, 0),
            from_cache: false,
            parts,
            weak: OnceLock::new(),
        }
    }

    /// The bytes spans point into.
    pub(crate) fn data(&self) -> &[u8] {
        let (start, length) = self.window;
        self.bytes
            .as_deref()
            .and_then(|bytes| bytes.get(start..start + length))
            .unwrap_or(&[])
    }

    /// The name of record `number`.
    pub(crate) fn name(&self, number: usize) -> &str {
        let Some(record) = self.parts.records.get(number) else {
            return "";
        };
        if record.kind == RecordKind::Owned {
            return self
                .parts
                .owned
                .get(record.member as usize)
                .map_or("", |s| s.name.as_str());
        }
        self.parts.str(self.data(), record.name)
    }

    /// The machine of record `number`.
    pub(crate) fn machine(&self, number: usize) -> Machine {
        self.parts
            .records
            .get(number)
            .map_or(Machine::Any, |r| r.machine)
    }

    fn member_bytes(&self, member: &Member) -> &[u8] {
        let start = member.start as usize;
        self.data()
            .get(start..start + member.len as usize)
            .unwrap_or(&[])
    }

    /// The owned symbol of record `number`. Members are read again where the record points at
    /// them; a file changed under us since the build gives what can still be read, never a panic.
    pub(crate) fn materialize(&self, number: usize) -> LibrarySymbol {
        if let Some(record) = self.parts.records.get(number) {
            if record.kind == RecordKind::Owned {
                // Owned symbols keep their own library (an index of given symbols has many).
                if let Some(symbol) = self.parts.owned.get(record.member as usize) {
                    return symbol.clone();
                }
            }
        }
        self.view(number).to_symbol(&self.path)
    }

    /// What record `number` says, borrowed where it can be: [`FileIndex::materialize`] owns it,
    /// the lookup table (`table`) writes it.
    pub(crate) fn view(&self, number: usize) -> SymbolView<'_> {
        let Some(record) = self.parts.records.get(number) else {
            return SymbolView::new("", SymbolKind::Defined, Machine::Any);
        };
        if record.kind == RecordKind::Owned {
            if let Some(symbol) = self.parts.owned.get(record.member as usize) {
                return SymbolView::of(symbol);
            }
        }
        let data = self.data();
        let name = self.parts.str(data, record.name);
        let member = self.parts.members.get(record.member as usize);
        let detail = || Some(self.parts.str(data, record.detail)).filter(|d| !d.is_empty());
        let mut symbol = SymbolView::new(name, SymbolKind::Defined, record.machine);
        symbol.member = member.map(|m| self.parts.str(data, m.name));
        match record.kind {
            RecordKind::ShortImport => {
                let bytes = member.map_or(&[][..], |m| self.member_bytes(m));
                symbol.kind = SymbolKind::ImportCode;
                if let Ok(import) = ImportFile::parse(bytes) {
                    symbol.kind = match import.import_type() {
                        ImportType::Code => SymbolKind::ImportCode,
                        ImportType::Data => SymbolKind::ImportData,
                        ImportType::Const => SymbolKind::ImportConst,
                    };
                    symbol.dll = Some(String::from_utf8_lossy(import.dll()));
                    symbol.export_name = match import.import() {
                        ImportName::Name(name) => Some(String::from_utf8_lossy(name)),
                        ImportName::Ordinal(_) => None,
                    };
                }
            }
            RecordKind::LongImportCode | RecordKind::LongImportData => {
                symbol.kind = if record.kind == RecordKind::LongImportCode {
                    SymbolKind::ImportCode
                } else {
                    SymbolKind::ImportData
                };
                symbol.dll = detail().map(Cow::Borrowed);
                symbol.export_name =
                    Some(Cow::Borrowed(name.strip_prefix("__imp_").unwrap_or(name)));
            }
            RecordKind::Alias => symbol.target = Some(detail().unwrap_or_default()),
            RecordKind::MapSymbol => {
                let weak = self.weak_externals(record.member as usize);
                if let Some((_, target)) = weak.iter().find(|(weak, _)| weak == name) {
                    symbol.target = Some(target);
                }
            }
            RecordKind::Defined | RecordKind::Owned => {}
        }
        symbol
    }

    /// For a record the symbol map gave: the target if its member says it is a weak external.
    pub(crate) fn map_alias_target(&self, number: usize) -> Option<&str> {
        let record = self.parts.records.get(number)?;
        let name = self.parts.str(self.data(), record.name);
        self.weak_externals(record.member as usize)
            .iter()
            .find(|(weak, _)| weak == name)
            .map(|(_, target)| target.as_str())
    }

    /// The weak externals of member `number` (read once, on the first lookup that needs them).
    fn weak_externals(&self, number: usize) -> &[(String, String)] {
        let all = self.weak.get_or_init(|| {
            std::iter::repeat_with(OnceLock::new)
                .take(self.parts.members.len())
                .collect()
        });
        let Some(cell) = all.get(number) else {
            return &[];
        };
        cell.get_or_init(|| {
            let bytes = self
                .parts
                .members
                .get(number)
                .map_or(&[][..], |m| self.member_bytes(m));
            super::coff::object_file::weak_externals(bytes)
        })
    }
}

/// A `HashMap` hasher for names read from files, using [`name_hash`] (SipHash was a fifth of the
/// time of reading GNU long-form import libraries).
#[derive(Default, Clone, Copy)]
pub(crate) struct NameHasher(u64);

impl std::hash::Hasher for NameHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        self.0 = self.0.rotate_left(5) ^ name_hash(bytes);
    }
    fn write_usize(&mut self, number: usize) {
        self.0 = self.0.rotate_left(5) ^ number as u64;
    }
}

/// A `HashMap` keyed by names, with [`NameHasher`].
pub(crate) type NameMap<K, V> =
    std::collections::HashMap<K, V, std::hash::BuildHasherDefault<NameHasher>>;

const HASH_SEED: u64 = 0x243F_6A88_85A3_08D3;
const HASH_K: u64 = 0x9E37_79B9_7F4A_7C15;
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

fn hash_word(hash: u64, word: u64) -> u64 {
    (hash ^ word).wrapping_mul(HASH_K).rotate_left(29)
}

/// The last (zero-padded, possibly empty) word and the length, then an avalanche: the bucketing
/// uses the high bits.
fn hash_finish(hash: u64, tail: u64, length: usize) -> u64 {
    let mut hash = (hash ^ tail).wrapping_mul(HASH_K) ^ length as u64;
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xff51_afd7_ed55_8ccd);
    hash ^= hash >> 33;
    hash = hash.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    hash ^ (hash >> 33)
}

fn word_at(bytes: &[u8]) -> u64 {
    let mut word = [0u8; 8];
    let length = bytes.len().min(8);
    word[..length].copy_from_slice(&bytes[..length]);
    u64::from_le_bytes(word)
}

/// A fast hash of a linker name, eight bytes at a time, with a final avalanche. Not
/// flooding-resistant, and it need not be: equal hashes are only candidates, every lookup compares
/// the names themselves.
pub(crate) fn name_hash(bytes: &[u8]) -> u64 {
    let mut hash = HASH_SEED;
    let mut chunks = bytes.chunks_exact(8);
    for chunk in &mut chunks {
        hash = hash_word(hash, word_at(chunk));
    }
    hash_finish(hash, word_at(chunks.remainder()), bytes.len())
}

/// The NUL-terminated name at the start of `bytes`, in one pass: its length, [`name_hash`], and
/// whether it is ASCII (so valid UTF-8 without another look). `None` without a NUL.
pub(crate) fn scan_name(bytes: &[u8]) -> Option<(usize, u64, bool)> {
    let mut hash = HASH_SEED;
    let mut seen = 0u64;
    let mut at = 0;
    while let Some(chunk) = bytes.get(at..at + 8) {
        let word = word_at(chunk);
        let zero = word.wrapping_sub(ONES) & !word & HIGHS;
        if zero != 0 {
            // The lowest flagged byte is the first NUL (flags above it may be false).
            let length = (zero.trailing_zeros() / 8) as usize;
            let tail = word & ((1u64 << (8 * length)) - 1);
            seen |= tail;
            return Some((
                at + length,
                hash_finish(hash, tail, at + length),
                seen & HIGHS == 0,
            ));
        }
        seen |= word;
        hash = hash_word(hash, word);
        at += 8;
    }
    let rest = &bytes[at..];
    let length = memchr::memchr(0, rest)?;
    let tail = word_at(&rest[..length]);
    seen |= tail;
    Some((
        at + length,
        hash_finish(hash, tail, at + length),
        seen & HIGHS == 0,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_point_into_data_or_arena() {
        let data = b"abc\xffdef__imp_x";
        let mut parts = FileParts::new(Path::new("x.lib"), FileFormat::Archive);
        let inside = parts.span(data, &data[0..3]);
        assert!(inside.len & ARENA == 0);
        assert_eq!(parts.str(data, inside), "abc");
        // Invalid UTF-8 is stored lossily in the arena.
        let lossy = parts.span(data, &data[2..5]);
        assert_eq!(parts.str(data, lossy), "c\u{fffd}d");
        // A slice of something else is copied.
        let other = parts.span(data, b"elsewhere");
        assert_eq!(parts.str(data, other), "elsewhere");
        let joined = parts.arena_span(&[b"__imp_", b"f"]);
        assert_eq!(parts.str(data, joined), "__imp_f");
        assert_eq!(parts.str(data, Span::default()), "");
    }

    #[test]
    fn scanning_a_name_hashes_it_like_name_hash() {
        let names: [&[u8]; 9] = [
            b"",
            b"a",
            b"abcdefg",
            b"abcdefgh",
            b"abcdefghi",
            b"__imp_CreateFileW",
            b"?f@@YAXXZ\x80",
            b"\x01\x7f\xff",
            b"0123456789abcdef",
        ];
        for name in names {
            // Followed by NUL and junk, and with the NUL as the very last byte.
            for junk in [&b"\0xyz\0\xff\0\0\0\0\0\0\0"[..], b"\0"] {
                let bytes = [name, junk].concat();
                let (length, hash, ascii) = scan_name(&bytes).expect("nul present");
                assert_eq!(length, name.len(), "{name:?}");
                assert_eq!(hash, name_hash(name), "{name:?}");
                assert_eq!(ascii, name.is_ascii(), "{name:?}");
            }
            assert!(scan_name(name).is_none(), "{name:?}");
        }
    }

    #[test]
    fn hash_depends_on_every_byte_and_length() {
        let names: [&[u8]; 6] = [b"", b"a", b"a\0", b"abcdefgh", b"abcdefgi", b"abcdefghX"];
        let hashes: std::collections::HashSet<u64> = names.iter().map(|n| name_hash(n)).collect();
        assert_eq!(hashes.len(), names.len());
    }
}
