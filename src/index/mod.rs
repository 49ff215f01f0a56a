//! The library index: every symbol that the libraries, DLLs, `.def` files, objects and PDBs of the
//! link environment define, with the file, member or DLL that provides it.
//!
//! One reader per format (`coff` for archives and objects, `pe` for DLL export tables, `def` for
//! module-definition files, `pdb` for linker PDBs) turns bytes into records; `object::`/`pdb::`
//! types never leave their reader. [`Index::build`] memory-maps the files, reads them in parallel
//! and never panics: a bad file or member becomes one [`IndexWarning`] and the scan goes on.
//!
//! The index keeps the maps and compact records (`store`), grouped by name hash (`groups`), and
//! makes our owned [`LibrarySymbol`]s only for the names someone looks up (benches/README.md).
//! With a cache, the records of each file are kept per file (`cache`), and [`Index::open`] answers
//! from one lookup table of the whole set (`table`), reading only the names asked.
//!
//! Which files are indexed is decided first: [`discover`] finds the link environment's library
//! directories (flags, `LIB`, the VC/SDK/HIP layouts, the user's Python, conda and CUDA), asking
//! the Python interpreter through [`interpreter`].

mod cache;
mod coff;
mod def;
pub mod discover;
mod groups;
pub mod interpreter;
mod pdb;
mod pe;
mod render;
mod store;
mod table;

pub use crate::machine::Machine;
pub use render::{write_explain, write_list, write_summary};

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::OnceLock;

use rayon::prelude::*;
use serde::Serialize;

/// What kind of definition a [`LibrarySymbol`] is.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum SymbolKind {
    /// Short (or long-form) import member for code: defines both `X` and `__imp_X`.
    ImportCode,
    /// Import member for data: defines only `__imp_X`.
    ImportData,
    /// Import member for a constant: defines only `__imp_X`.
    ImportConst,
    /// External definition in a regular COFF object (including COMDAT and common symbols).
    Defined,
    /// Weak external or `/alternatename`: the name resolves to `target` when nothing else defines it.
    Alias {
        /// The symbol the alias stands for.
        target: String,
    },
    /// An entry of a PE DLL's export table (forwarders are in [`LibrarySymbol::forwarder`]).
    Export,
    /// A public symbol of a PDB: a link that succeeded resolved this name.
    PdbPublic,
}

impl fmt::Display for SymbolKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymbolKind::ImportCode => f.write_str("import (code)"),
            SymbolKind::ImportData => f.write_str("import (data)"),
            SymbolKind::ImportConst => f.write_str("import (const)"),
            SymbolKind::Defined => f.write_str("defined"),
            SymbolKind::Alias { target } => write!(f, "alias of {target}"),
            SymbolKind::Export => f.write_str("dll export"),
            SymbolKind::PdbPublic => f.write_str("pdb public"),
        }
    }
}

/// One definition of one linker-level name, and where it comes from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LibrarySymbol {
    /// Linker-level name exactly as the file stores it: `__imp_CreateFileW`, `CreateFileW`,
    /// `?f@@YAXXZ`, `_MessageBoxA@16`. For DLL exports, the exported name.
    pub name: String,
    /// The file it was read from.
    pub library: PathBuf,
    /// The archive member (as stored, often a full build path) or the PDB module's object.
    pub member: Option<String>,
    /// For imports, exports and PDB import modules: the DLL as stored (`KERNEL32.dll`).
    pub dll: Option<String>,
    /// What kind of definition this is.
    #[serde(flatten)]
    pub kind: SymbolKind,
    /// The machine of the member, DLL or PDB.
    pub machine: Machine,
    /// For imports: the name looked up in the DLL's export table after the import name type rules
    /// (`CreateFileW` for an x86 `_CreateFileW@28` with name type "undecorate"); `None` when
    /// imported by ordinal or not an import.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub export_name: Option<String>,
    /// For DLL exports that forward elsewhere: the forwarder (`NTDLL.RtlAllocateHeap`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forwarder: Option<String>,
    /// For PDB publics: the library the module came from as the PDB records it
    /// (`...\ucrt\x64\libucrt.lib`, `Import:KERNEL32.dll`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub source_library: Option<String>,
}

impl LibrarySymbol {
    /// A symbol with only the required fields set.
    pub fn new(name: String, library: &Path, kind: SymbolKind, machine: Machine) -> LibrarySymbol {
        LibrarySymbol {
            name,
            library: library.to_path_buf(),
            member: None,
            dll: None,
            kind,
            machine,
            export_name: None,
            forwarder: None,
            source_library: None,
        }
    }

    /// Whether this symbol is an import (short or long form, or from a `.def` file).
    pub fn is_import(&self) -> bool {
        matches!(
            self.kind,
            SymbolKind::ImportCode | SymbolKind::ImportData | SymbolKind::ImportConst
        )
    }
}

/// A file or member that could not be read (fully), and why. The scan goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct IndexWarning {
    /// The file.
    pub path: PathBuf,
    /// The archive member, if the problem is in one member.
    pub member: Option<String>,
    /// What went wrong, lowercase, without a trailing period.
    pub message: String,
}

impl IndexWarning {
    /// A warning about a whole file.
    pub fn file(path: &Path, message: impl Into<String>) -> IndexWarning {
        IndexWarning {
            path: path.to_path_buf(),
            member: None,
            message: message.into(),
        }
    }

    /// A warning about one member of an archive.
    pub fn member(path: &Path, member: &str, message: impl Into<String>) -> IndexWarning {
        IndexWarning {
            path: path.to_path_buf(),
            member: Some(member.to_string()),
            message: message.into(),
        }
    }
}

impl fmt::Display for IndexWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.member {
            Some(member) => write!(f, "{}({}): {}", self.path.display(), member, self.message),
            None => write!(f, "{}: {}", self.path.display(), self.message),
        }
    }
}

/// Why a whole file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// Opening, mapping or reading failed.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// The file is empty.
    #[error("empty file")]
    Empty,
    /// The file is none of the formats the index reads.
    #[error("not a library, object, dll, pdb or .def file")]
    UnknownFormat,
    /// The file starts like a known format but its structure is broken.
    #[error("malformed {format}: {reason}")]
    Malformed {
        /// The format the file claimed to be.
        format: FileFormat,
        /// What is broken.
        reason: String,
    },
}

impl IndexError {
    pub(crate) fn malformed(format: FileFormat, reason: impl fmt::Display) -> IndexError {
        IndexError::Malformed {
            format,
            reason: reason.to_string().to_lowercase(),
        }
    }
}

/// The format of an indexed file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum FileFormat {
    /// A COFF (`ar`) archive: import library, static library or both.
    Archive,
    /// A single COFF object (`.obj`, also bigobj).
    Object,
    /// A single short import member stored as a file.
    ImportObject,
    /// A PE image (DLL or EXE): its export table.
    Dll,
    /// A module-definition file.
    Def,
    /// A program database (MSF 7.00).
    Pdb,
}

impl fmt::Display for FileFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FileFormat::Archive => "archive",
            FileFormat::Object => "object",
            FileFormat::ImportObject => "import object",
            FileFormat::Dll => "dll",
            FileFormat::Def => "def",
            FileFormat::Pdb => "pdb",
        })
    }
}

/// What the index read from one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LibraryInfo {
    /// The file.
    pub path: PathBuf,
    /// Its format.
    pub format: FileFormat,
    /// Archive members (without the linker members and the long-name table), PDB modules, else 1.
    pub members: usize,
    /// Short or long-form import members among `members`.
    pub import_members: usize,
    /// Symbols the index took from the file (every provider of every name).
    pub symbols: usize,
    /// `/DEFAULTLIB` entries of the `.drectve` sections, in first-seen order, without duplicates.
    pub default_libs: Vec<String>,
    /// The machines of the members, sorted, without duplicates.
    pub machines: Vec<Machine>,
    /// Members whose symbols cannot be read: `/GL` (LTCG) objects and LLVM bitcode.
    pub unreadable_members: usize,
    /// DLLs named by import members or the export table, sorted, without duplicates.
    pub dlls: Vec<String>,
    /// Warnings about this file (also returned by [`Index::build`]).
    pub warnings: usize,
}

impl LibraryInfo {
    /// A placeholder left behind when the information moves into [`Index::libraries`].
    fn empty() -> LibraryInfo {
        LibraryInfo {
            path: PathBuf::new(),
            format: FileFormat::Archive,
            members: 0,
            import_members: 0,
            symbols: 0,
            default_libs: Vec::new(),
            machines: Vec::new(),
            unreadable_members: 0,
            dlls: Vec::new(),
            warnings: 0,
        }
    }
}

/// A progress callback: called with (files read, files in all) as the index is built, from the
/// reading threads. The library never prints; the binary decides what to show.
#[derive(Clone)]
pub struct Progress(pub std::sync::Arc<dyn Fn(usize, usize) + Send + Sync>);

impl fmt::Debug for Progress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Progress(..)")
    }
}

/// How to build an index.
#[derive(Debug, Clone)]
pub struct IndexOptions {
    /// The link's machine: [`Index::lookup`] returns only providers that link into it.
    pub arch: Machine,
    /// Where to keep the index cache (one entry per archive or object, keyed by canonical path,
    /// size, modification time and format version); `None` = no cache. Created when missing.
    pub cache_dir: Option<PathBuf>,
    /// Told how far the build is, file by file (`None`: nobody asks).
    pub progress: Option<Progress>,
}

impl Default for IndexOptions {
    fn default() -> IndexOptions {
        IndexOptions {
            arch: Machine::X64,
            cache_dir: None,
            progress: None,
        }
    }
}

/// Everything one reader produced for one file.
#[derive(Debug)]
pub(crate) struct FileContents {
    pub(crate) info: LibraryInfo,
    pub(crate) symbols: Vec<LibrarySymbol>,
    pub(crate) warnings: Vec<IndexWarning>,
}

impl FileContents {
    pub(crate) fn new(path: &Path, format: FileFormat) -> FileContents {
        FileContents {
            info: LibraryInfo {
                path: path.to_path_buf(),
                format,
                ..LibraryInfo::empty()
            },
            symbols: Vec::new(),
            warnings: Vec::new(),
        }
    }

    /// The index of an owned reader's result (DLL exports, `.def`, PDB publics).
    fn into_index(self) -> store::FileIndex {
        let contents = self.finish();
        let mut parts = store::FileParts::new(&contents.info.path, contents.info.format);
        parts.info = contents.info;
        parts.warnings = contents.warnings;
        let path = parts.info.path.clone();
        store::FileIndex::owned(path, parts, contents.symbols)
    }

    /// Sorts and deduplicates the summary lists and counts.
    fn finish(mut self) -> FileContents {
        self.info.machines.sort();
        self.info.machines.dedup();
        self.info.dlls.sort();
        self.info.dlls.dedup();
        self.info.symbols = self.symbols.len();
        self.info.warnings = self.warnings.len();
        self
    }
}

/// The index: every provider of every linker-level name, in search order.
///
/// It keeps each file's memory map and compact records (a name is a byte range of the file, a
/// member an offset), grouped by the hash of the name; the owned [`LibrarySymbol`]s of a name are
/// made the first time it is looked up, and kept. Building owned symbols for all 350,000 names of
/// an SDK was >85 % of the build time (benches/README.md).
///
/// Made by [`Index::open`] from a current lookup table (`table`), it reads only the buckets of the
/// names looked up; what needs every name ([`Index::names`], [`Index::symbols`]) then reads the
/// libraries once, through the per-file cache, on first call.
#[derive(Default)]
pub struct Index {
    files: Vec<store::FileIndex>,
    groups: groups::Groups,
    libraries: Vec<LibraryInfo>,
    arch: Machine,
    lookup: Option<Lookup>,
}

/// The lookup side of an index opened from a table.
struct Lookup {
    table: table::Table,
    /// The files, in search order, as the caller named them.
    paths: Vec<PathBuf>,
    options: IndexOptions,
    /// Materialized buckets, chunk by chunk; `None`: the bucket was damaged.
    materialized: Vec<OnceLock<Chunk>>,
    /// Set when a bucket was found damaged: every later lookup goes to the full decode.
    broken: AtomicBool,
    /// The full decode, made on first need.
    full: OnceLock<(Vec<store::FileIndex>, groups::Groups)>,
}

/// Materialized buckets of a table, a chunk of them (`None`: damaged).
type Chunk = Box<[OnceLock<Option<groups::Group>>]>;

/// Materialized buckets of a table are allocated in chunks of this many, on first use.
const CHUNK: usize = 64;

impl Lookup {
    /// The group of bucket `bucket`, read on first call; `None` when the table is damaged.
    fn group(&self, bucket: u32, arch: Machine) -> Option<&groups::Group> {
        if self.broken.load(Ordering::Relaxed) {
            return None;
        }
        let number = bucket as usize;
        let chunk = self.materialized.get(number / CHUNK)?;
        let chunk =
            chunk.get_or_init(|| std::iter::repeat_with(OnceLock::new).take(CHUNK).collect());
        let group = chunk[number % CHUNK].get_or_init(|| {
            match self.table.read_bucket(bucket, &self.paths) {
                Ok(symbols) => Some(groups::Group::of(symbols, arch)),
                Err(_) => {
                    self.broken.store(true, Ordering::Relaxed);
                    self.table.discard();
                    None
                }
            }
        });
        group.as_ref()
    }

    /// The full decode: every file read (through the per-file cache), grouped.
    fn full(&self) -> (&[store::FileIndex], &groups::Groups) {
        let (files, groups) = self.full.get_or_init(|| {
            let read = read_all(&self.paths, &self.options);
            let groups = groups::Groups::build(&read.files);
            (read.files, groups)
        });
        (files, groups)
    }
}

impl fmt::Debug for Index {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let records: usize = self.files.iter().map(|file| file.parts.records.len()).sum();
        f.debug_struct("Index")
            .field("arch", &self.arch)
            .field("libraries", &self.libraries.len())
            .field("records", &records)
            .field("lookup", &self.lookup.is_some())
            .finish()
    }
}

/// The signature of a PDB (MSF 7.00) file.
const PDB_MAGIC: &[u8] = b"Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0";

/// Reads one file into compact records, keeping its map when records point into it.
fn read_file(path: &Path) -> Result<store::FileIndex, IndexError> {
    let file = crate::files::open::open_regular(path)?;
    // SAFETY: the map is read-only and private; a file truncated by someone else while we read it
    // could raise SIGBUS, which is the accepted risk of every memory-mapping reader (rg, object).
    // No `populate`: most pages of a static library are never touched (only the symbol map and
    // member headers are read), and populating holds the lock that the reading threads' `mmap`
    // calls wait for (measured: 0.051 s without it against 0.041 s, benches/README.md).
    let map = unsafe { memmap2::MmapOptions::new().map(&file)? };
    drop(file);
    if map.is_empty() {
        return Err(IndexError::Empty);
    }
    let data: &[u8] = &map;
    if data.starts_with(b"!<arch>\n") {
        let parts = coff::read_archive(path, data)?;
        Ok(store::FileIndex::mapped(path, map, parts))
    } else if data.starts_with(b"MZ") {
        pe::read_dll(path, data).map(FileContents::into_index)
    } else if data.starts_with(PDB_MAGIC) {
        pdb::read_pdb(path, data).map(FileContents::into_index)
    } else if coff::looks_like_object(data) {
        let parts = coff::read_object_file(path, data)?;
        Ok(store::FileIndex::mapped(path, map, parts))
    } else if has_extension(path, "def") {
        def::read_def(path, data).map(FileContents::into_index)
    } else {
        Err(IndexError::UnknownFormat)
    }
}

fn has_extension(path: &Path, extension: &str) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case(extension))
}

/// Reads one file, turning every failure (and, as a last guard, a panic in a parsing crate) into a
/// warning.
fn read_file_guarded(path: &Path) -> store::FileIndex {
    let result = std::panic::catch_unwind(|| read_file(path));
    let failure = match result {
        Ok(Ok(file)) => return file,
        Ok(Err(error)) => error.to_string(),
        Err(_) => "internal error while reading (parser panicked)".to_string(),
    };
    let mut contents = FileContents::new(path, FileFormat::Archive);
    contents.warnings.push(IndexWarning::file(path, failure));
    contents.into_index()
}

/// Reads one file through the cache: a current entry is used as is; otherwise the file is read
/// and, if it did not change meanwhile, its entry written. Returns a cache write failure, if any.
fn read_file_cached(
    path: &Path,
    cache: &cache::Cache,
    parents: &cache::Parents,
) -> (store::FileIndex, Option<String>) {
    let Ok(key) = cache::Key::of(path, parents) else {
        // Missing or unreadable: reading it says why.
        return (read_file_guarded(path), None);
    };
    let mut damaged = None;
    match cache.load(&key, path) {
        cache::Loaded::Hit(file) => return (*file, None),
        cache::Loaded::Miss => {}
        cache::Loaded::Corrupt(reason) => damaged = Some(reason),
    }
    let mut file = read_file_guarded(path);
    let mut failure = None;
    if file.cacheable() && cache::Key::of(path, parents).is_ok_and(|after| after == key) {
        if let Err(error) = cache.store(&key, &file) {
            failure = Some(error.to_string());
        }
    }
    // After storing: the entry keeps only what the file itself says.
    if let Some(reason) = damaged {
        let message = format!("{DAMAGED} ({reason}); file read again");
        file.parts.warnings.push(IndexWarning::file(path, message));
        file.parts.info.warnings += 1;
    }
    (file, failure)
}

/// Every file read, in search order, with what went wrong with the cache.
struct ReadFiles {
    files: Vec<store::FileIndex>,
    /// The first failure to write a cache entry.
    cache_failure: Option<String>,
    /// Whether a damaged cache entry was discarded (its warning is in its file's warnings).
    damaged: bool,
    /// Whether a file the cache can hold was read from the file itself (no current entry).
    from_files: bool,
}

/// Reads `files` in parallel, through the per-file cache when `options` has one.
fn read_all(files: &[PathBuf], options: &IndexOptions) -> ReadFiles {
    let done = AtomicUsize::new(0);
    let total = files.len();
    let cache = options.cache_dir.as_deref().map(cache::Cache::new);
    let parents = match cache {
        Some(_) => cache::parents(files),
        None => cache::Parents::new(),
    };
    let cache_failure = std::sync::Mutex::new(None);
    let damaged = AtomicBool::new(false);
    let from_files = AtomicBool::new(false);
    let read: Vec<store::FileIndex> = files
        .par_iter()
        .with_max_len(1)
        .map(|path| {
            let file = match &cache {
                Some(cache) => {
                    let (file, failure) = read_file_cached(path, cache, &parents);
                    if let Some(failure) = failure {
                        if let Ok(mut first) = cache_failure.lock() {
                            first.get_or_insert(failure);
                        }
                    }
                    if file
                        .parts
                        .warnings
                        .iter()
                        .any(|w| w.message.starts_with(DAMAGED))
                    {
                        damaged.store(true, Ordering::Relaxed);
                    }
                    if file.cacheable() {
                        from_files.store(true, Ordering::Relaxed);
                    }
                    file
                }
                None => read_file_guarded(path),
            };
            let finished = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(progress) = &options.progress {
                (progress.0)(finished, total);
            }
            file
        })
        .collect();
    ReadFiles {
        files: read,
        cache_failure: cache_failure.into_inner().ok().flatten(),
        damaged: damaged.into_inner(),
        from_files: from_files.into_inner(),
    }
}

/// The start of the warning about a damaged cache entry.
const DAMAGED: &str = "damaged index cache entry discarded";

/// Whether `file` could not be read at all (it is then not among the index's libraries).
fn unreadable(parts: &store::FileParts) -> bool {
    parts.records.is_empty()
        && parts.info.members == 0
        && !parts.warnings.is_empty()
        && parts.warnings.iter().all(|w| w.member.is_none())
}

/// What a lookup table keeps of each file besides its records.
fn facts_of(files: &[store::FileIndex]) -> Vec<table::FileFacts> {
    files
        .iter()
        .map(|file| table::FileFacts {
            listed: !unreadable(&file.parts),
            info: file.parts.info.clone(),
            warnings: file.parts.warnings.clone(),
        })
        .collect()
}

impl Index {
    /// Reads `files` (in search order) in parallel and indexes every symbol they define. Files that
    /// cannot be read at all are not listed in [`Index::libraries`]; every problem is a warning.
    pub fn build(files: &[PathBuf], options: &IndexOptions) -> (Index, Vec<IndexWarning>) {
        let read = read_all(files, options);
        Index::assemble(read, options)
    }

    /// The index of files read: their summaries and warnings moved out, their records grouped.
    fn assemble(read: ReadFiles, options: &IndexOptions) -> (Index, Vec<IndexWarning>) {
        let mut warnings = Vec::new();
        let mut libraries = Vec::with_capacity(read.files.len());
        let mut indexed = Vec::with_capacity(read.files.len());
        for mut file in read.files {
            let parts = &mut file.parts;
            let unreadable_file = unreadable(parts);
            warnings.append(&mut parts.warnings);
            if !unreadable_file {
                libraries.push(std::mem::replace(&mut parts.info, LibraryInfo::empty()));
            }
            indexed.push(file);
        }
        if let (Some(dir), Some(failure)) = (&options.cache_dir, read.cache_failure) {
            let message = format!("cannot write the index cache: {failure}");
            warnings.push(IndexWarning::file(dir, message));
        }
        let groups = groups::Groups::build(&indexed);
        let index = Index {
            files: indexed,
            groups,
            libraries,
            arch: options.arch,
            lookup: None,
        };
        (index, warnings)
    }

    /// Like [`Index::build`], with the same answers, but through the lookup table of this set of
    /// files when `options` has a cache directory: a current table answers every lookup by
    /// reading only the names asked (`table`); otherwise the files are read as [`Index::build`]
    /// reads them and the table is written for the next run. Without a cache directory, this is
    /// [`Index::build`].
    pub fn open(files: &[PathBuf], options: &IndexOptions) -> (Index, Vec<IndexWarning>) {
        let Some(dir) = options.cache_dir.as_deref() else {
            return Index::build(files, options);
        };
        let parents = cache::parents(files);
        let keys: Option<Vec<cache::Key>> = files
            .iter()
            .map(|path| cache::Key::of(path, &parents).ok())
            .collect();
        let Some(keys) = keys else {
            // A file that cannot be stat'ed: reading it says why; no table for such a set.
            return Index::build(files, options);
        };
        let mut damaged = None;
        match table::Table::open(dir, files, &keys) {
            table::Opened::Hit(table, facts) => {
                return Index::of_table(table, facts, files, options)
            }
            table::Opened::Miss => {}
            table::Opened::Damaged(reason) => damaged = Some(reason),
        }
        let read = read_all(files, options);
        let mut write_failure = None;
        // Written by the first run that finds every library in the per-file cache (the run after
        // a cold one), so that a cold run costs what it cost before the table.
        if !read.damaged && !read.from_files && read.cache_failure.is_none() {
            let unchanged = files
                .iter()
                .zip(&keys)
                .all(|(path, key)| cache::Key::of(path, &parents).is_ok_and(|now| now == *key));
            if unchanged {
                let path = table::path_of(dir, &keys);
                let facts = facts_of(&read.files);
                let written = std::fs::create_dir_all(dir)
                    .and_then(|()| table::write(&path, &keys, &read.files, &facts));
                // As for per-file entries: Windows refuses to replace a table a concurrent run
                // has open; that run's table is as good as ours.
                write_failure = written.err().filter(|error| {
                    error.kind() != std::io::ErrorKind::PermissionDenied || !path.is_file()
                });
            }
        }
        let (index, mut warnings) = Index::assemble(read, options);
        if let Some(error) = write_failure {
            let message = format!("cannot write the index cache: {error}");
            warnings.push(IndexWarning::file(dir, message));
        }
        if let Some(reason) = damaged {
            let message = format!("{DAMAGED} ({reason}); libraries read again");
            warnings.push(IndexWarning::file(&table::path_of(dir, &keys), message));
        }
        (index, warnings)
    }

    /// The index answered by a current table.
    fn of_table(
        table: table::Table,
        facts: Vec<table::FileFacts>,
        files: &[PathBuf],
        options: &IndexOptions,
    ) -> (Index, Vec<IndexWarning>) {
        let mut warnings = Vec::new();
        let mut libraries = Vec::with_capacity(facts.len());
        for mut file in facts {
            warnings.append(&mut file.warnings);
            if file.listed {
                libraries.push(file.info);
            }
        }
        let chunks = table.buckets().div_ceil(CHUNK);
        let lookup = Lookup {
            table,
            paths: files.to_vec(),
            options: options.clone(),
            materialized: std::iter::repeat_with(OnceLock::new).take(chunks).collect(),
            broken: AtomicBool::new(false),
            full: OnceLock::new(),
        };
        let index = Index {
            files: Vec::new(),
            groups: groups::Groups::default(),
            libraries,
            arch: options.arch,
            lookup: Some(lookup),
        };
        (index, warnings)
    }

    /// Whether lookups read a table (made by [`Index::open`] from a current one) rather than
    /// every file.
    pub fn answers_by_lookup(&self) -> bool {
        self.lookup
            .as_ref()
            .is_some_and(|lookup| !lookup.broken.load(Ordering::Relaxed))
    }

    /// The files and their grouping: the index's own, or, for an index opened from a table, the
    /// full decode (made on first call).
    fn full(&self) -> (&[store::FileIndex], &groups::Groups) {
        match &self.lookup {
            Some(lookup) => lookup.full(),
            None => (&self.files, &self.groups),
        }
    }

    /// An index of already-read symbols (given in search order), for tests and callers that merge
    /// indexes.
    pub fn from_symbols(
        symbols: Vec<LibrarySymbol>,
        libraries: Vec<LibraryInfo>,
        arch: Machine,
    ) -> Index {
        let mut contents = FileContents::new(Path::new(""), FileFormat::Archive);
        contents.symbols = symbols;
        let files = vec![contents.into_index()];
        let groups = groups::Groups::build(&files);
        Index {
            files,
            groups,
            libraries,
            arch,
            lookup: None,
        }
    }

    /// The materialized bucket of the names hashing like `name`.
    fn group_of(&self, name: &str) -> Option<&groups::Group> {
        let hash = store::name_hash(name.as_bytes());
        if let Some(lookup) = &self.lookup {
            if let Some(group) = lookup.group(lookup.table.bucket(hash), self.arch) {
                return Some(group);
            }
        }
        let (files, groups) = self.full();
        Some(groups.group(files, groups.bucket(hash), self.arch))
    }

    /// Every provider of exactly `linker_name` that links into the index's machine, in search order.
    pub fn lookup(&self, linker_name: &str) -> &[LibrarySymbol] {
        self.group_of(linker_name)
            .map_or(&[], |group| group.providers(linker_name).0)
    }

    /// Providers of exactly `linker_name` built for another machine (an x86 library in an x64 link):
    /// evidence for "wrong architecture" diagnoses, never a fix.
    pub fn lookup_other_machines(&self, linker_name: &str) -> &[LibrarySymbol] {
        self.group_of(linker_name)
            .map_or(&[], |group| group.providers(linker_name).1)
    }

    /// Every provider that can satisfy a reference to `linker_name`, in search order: exact
    /// definitions first, then DLL exports of the undecorated name (`__imp_` and, on x86, the `_`
    /// prefix and `@N` suffix removed).
    pub fn providers(&self, linker_name: &str) -> Vec<&LibrarySymbol> {
        let mut found: Vec<&LibrarySymbol> = self.lookup(linker_name).iter().collect();
        let export_name = undecorated_export_name(linker_name, self.arch);
        if export_name != linker_name {
            found.extend(
                self.lookup(&export_name)
                    .iter()
                    .filter(|s| s.kind == SymbolKind::Export),
            );
        }
        found
    }

    /// Every distinct indexed name that has a provider for the index's machine (for the
    /// resolver's demangled and near-miss matching), in order of first appearance. The names are
    /// borrowed from the mapped files: nothing is materialized, but the first call compares every
    /// name once (~tens of ms for an SDK).
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let (files, groups) = self.full();
        groups
            .order(files, self.arch)
            .iter()
            .filter(|name| name.links)
            .map(|name| files[name.file as usize].name(name.record as usize))
    }

    /// The materialized providers of one distinct name: (linking, other machines).
    fn providers_of(&self, name: &groups::NameAt) -> (&[LibrarySymbol], &[LibrarySymbol]) {
        let (files, groups) = self.full();
        let group = groups.group(files, name.bucket, self.arch);
        match group.names.get(name.name as usize) {
            Some(&(start, middle, end)) => (
                &group.symbols[start as usize..middle as usize],
                &group.symbols[middle as usize..end as usize],
            ),
            None => (&[], &[]),
        }
    }

    /// Every symbol that links into the index's machine, grouped by name (first appearance),
    /// each group in search order. This materializes every symbol: for listings, not lookups.
    pub fn symbols(&self) -> impl Iterator<Item = &LibrarySymbol> {
        let (files, groups) = self.full();
        groups
            .order(files, self.arch)
            .iter()
            .flat_map(|name| self.providers_of(name).0)
    }

    /// Every symbol of another machine, grouped like [`Index::symbols`].
    pub fn other_machine_symbols(&self) -> impl Iterator<Item = &LibrarySymbol> {
        let (files, groups) = self.full();
        groups
            .order(files, self.arch)
            .iter()
            .flat_map(|name| self.providers_of(name).1)
    }

    /// What was read from each file, in search order.
    pub fn libraries(&self) -> &[LibraryInfo] {
        &self.libraries
    }

    /// The machine the index was built for.
    pub fn arch(&self) -> Machine {
        self.arch
    }
}

/// The name a DLL exports for the linker-level `name`: `__imp_` removed, and on x86 the C
/// decoration (`_Name@16` → `Name`, `@Name@8` → `Name`).
pub fn undecorated_export_name(name: &str, arch: Machine) -> String {
    let name = name.strip_prefix("__imp_").unwrap_or(name);
    if arch != Machine::X86 || name.starts_with('?') {
        return name.to_string();
    }
    let name = name
        .strip_prefix('_')
        .or_else(|| name.strip_prefix('@'))
        .unwrap_or(name);
    match name.rfind('@') {
        Some(at) if at > 0 && name[at + 1..].bytes().all(|b| b.is_ascii_digit()) => {
            name[..at].to_string()
        }
        _ => name.to_string(),
    }
}

/// Text of a byte string from a file: UTF-8 when valid, else lossy (names are ASCII in practice).
pub(crate) fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn machines_link_into_their_own_and_any() {
        assert!(Machine::X64.links_into(Machine::X64));
        assert!(Machine::Any.links_into(Machine::X86));
        assert!(!Machine::X86.links_into(Machine::X64));
        assert!(Machine::X64.links_into(Machine::Arm64ec));
        assert!(!Machine::Arm64.links_into(Machine::X64));
    }

    #[test]
    fn export_names_drop_import_prefix_and_x86_decoration() {
        let rows = [
            ("__imp_CreateFileW", Machine::X64, "CreateFileW"),
            ("__imp__MessageBoxA@16", Machine::X86, "MessageBoxA"),
            ("_strlen", Machine::X86, "strlen"),
            ("@fast@8", Machine::X86, "fast"),
            ("?f@@YAXXZ", Machine::X86, "?f@@YAXXZ"),
            ("_x@y", Machine::X86, "x@y"),
        ];
        let failures: Vec<_> = rows
            .iter()
            .filter(|(input, arch, want)| undecorated_export_name(input, *arch) != *want)
            .collect();
        assert!(failures.is_empty(), "failing rows: {failures:?}");
    }

    #[test]
    fn lookup_keeps_search_order_and_filters_machines() {
        let symbol = |name: &str, library: &str, machine| {
            LibrarySymbol::new(
                name.to_string(),
                Path::new(library),
                SymbolKind::Defined,
                machine,
            )
        };
        let index = Index::from_symbols(
            vec![
                symbol("b", "first.lib", Machine::X64),
                symbol("a", "first.lib", Machine::X64),
                symbol("a", "x86.lib", Machine::X86),
                symbol("a", "second.lib", Machine::Any),
            ],
            Vec::new(),
            Machine::X64,
        );
        let found: Vec<_> = index.lookup("a").iter().map(|s| &s.library).collect();
        assert_eq!(found, [Path::new("first.lib"), Path::new("second.lib")]);
        assert_eq!(index.lookup_other_machines("a").len(), 1);
        assert_eq!(index.names().collect::<Vec<_>>(), ["b", "a"]);
        assert!(index.lookup("c").is_empty());
    }

    #[test]
    fn warnings_name_file_and_member() {
        let warning = IndexWarning::member(Path::new("x.lib"), "a.obj", "truncated");
        assert_eq!(warning.to_string(), "x.lib(a.obj): truncated");
    }
}
