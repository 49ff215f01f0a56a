//! The walk: every `.py`/`.pyw` file under the search roots, read on every core (ripgrep's
//! parallel walker), a literal prefilter over the file's bytes, and the Python-aware matching
//! ([`super::python::analyse`]) only on the files the prefilter lets through.
//!
//! Walked as Python imports: symbolic links followed (a loop is a warning, never followed
//! twice round; a link into the searched directories is not followed, and a directory outside
//! them is entered once however many links lead there: see `Links`), no ignore file honoured (a `.gitignore` in site-packages does not stop Python
//! importing a file), hidden directories included; `__pycache__` skipped. A file over
//! [`MAX_FILE_BYTES`] (generated tables) or with a NUL byte in its first 8 KiB (not text) is
//! skipped and counted; an unreadable file is a warning and the walk goes on.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::message::Message;
use super::python::{analyse, Found};

/// Largest file read, in bytes.
pub const MAX_FILE_BYTES: u64 = 8 << 20;
/// Bytes at the start of a file checked for a NUL.
const BINARY_CHECK_BYTES: usize = 8 << 10;

/// The templates found in one file.
#[derive(Debug)]
pub struct FileFound {
    /// The file, as the walk reached it (a root joined with the path below it).
    pub path: PathBuf,
    /// What it explains, `message` being an index into the walk's messages.
    pub found: Vec<Found>,
}

/// What a walk read and found.
#[derive(Debug, Default)]
pub struct WalkOutcome {
    /// Python files read.
    pub files_scanned: usize,
    /// Bytes read from them.
    pub bytes_scanned: u64,
    /// Files the prefilter let through to the Python-aware matching.
    pub files_matched: usize,
    /// Files skipped: larger than [`MAX_FILE_BYTES`], or not text.
    pub files_skipped: usize,
    /// Files with templates that explain part of a message.
    pub found: Vec<FileFound>,
    /// Unreadable files and directories, symbolic-link loops (each names its path).
    pub warnings: Vec<String>,
}

/// The literal fragments to look for in a walk, for one message: a file is read as Python for
/// the message when at least `needed` distinct ones occur in it.
#[derive(Debug, Clone, Default)]
pub struct Fragments {
    /// The fragments.
    pub list: Vec<String>,
    /// How many distinct ones a file must hold (at least 1).
    pub needed: usize,
}

/// The literal fragments to look for, each searched on its own with a SIMD substring search
/// (a multi-pattern automaton was slower here: the fragments are plain words, whose bytes are
/// common in source code, and counting distinct fragments needs every overlapping match).
struct Prefilter {
    /// One searcher per distinct fragment.
    finders: Vec<memchr::memmem::Finder<'static>>,
    /// For each message: its fragments (indices into `finders`), longest first.
    fragments: Vec<Vec<usize>>,
    /// For each message: distinct fragments a file must hold.
    needed: Vec<usize>,
}

impl Prefilter {
    fn new(fragments: &[Fragments]) -> Option<Prefilter> {
        let mut patterns: Vec<&str> = Vec::new();
        let mut per_message = Vec::new();
        for message in fragments {
            let mut mine = Vec::new();
            for fragment in &message.list {
                let index = patterns
                    .iter()
                    .position(|p| p == fragment)
                    .unwrap_or_else(|| {
                        patterns.push(fragment);
                        patterns.len() - 1
                    });
                mine.push(index);
            }
            mine.sort_by_key(|&i| std::cmp::Reverse(patterns[i].len()));
            per_message.push(mine);
        }
        if patterns.is_empty() {
            return None;
        }
        Some(Prefilter {
            finders: patterns
                .iter()
                .map(|p| memchr::memmem::Finder::new(p.as_bytes()).into_owned())
                .collect(),
            fragments: per_message,
            needed: fragments
                .iter()
                .map(|f| f.needed.clamp(1, f.list.len().max(1)))
                .collect(),
        })
    }

    /// The messages enough of whose fragments occur in `bytes`.
    fn hits(&self, bytes: &[u8]) -> Vec<usize> {
        let mut present: Vec<Option<bool>> = vec![None; self.finders.len()];
        (0..self.fragments.len())
            .filter(|&message| {
                let mut count = 0;
                for &fragment in &self.fragments[message] {
                    let found = *present[fragment]
                        .get_or_insert_with(|| self.finders[fragment].find(bytes).is_some());
                    if found {
                        count += 1;
                        if count >= self.needed[message] {
                            return true;
                        }
                    }
                }
                false
            })
            .collect()
    }
}

/// What the walking threads share.
struct Shared<'a> {
    prefilter: &'a Prefilter,
    messages: &'a [&'a Message],
    files_scanned: AtomicUsize,
    bytes_scanned: AtomicU64,
    files_matched: AtomicUsize,
    files_skipped: AtomicUsize,
    results: Mutex<(Vec<FileFound>, Vec<String>)>,
}

/// Walks `roots` and matches every file that holds enough of `fragments[m]` against message `m`.
pub fn walk(roots: &[PathBuf], messages: &[&Message], fragments: &[Fragments]) -> WalkOutcome {
    let Some(prefilter) = Prefilter::new(fragments) else {
        return WalkOutcome::default();
    };
    let Some((first, rest)) = roots.split_first() else {
        return WalkOutcome::default();
    };
    let shared = Shared {
        prefilter: &prefilter,
        messages,
        files_scanned: AtomicUsize::new(0),
        bytes_scanned: AtomicU64::new(0),
        files_matched: AtomicUsize::new(0),
        files_skipped: AtomicUsize::new(0),
        results: Mutex::new((Vec::new(), Vec::new())),
    };
    let mut builder = ignore::WalkBuilder::new(first);
    for root in rest {
        builder.add(root);
    }
    let links = std::sync::Arc::new(Links::new(roots));
    let filter = std::sync::Arc::clone(&links);
    builder
        .standard_filters(false)
        .follow_links(true)
        .threads(0)
        .filter_entry(move |entry| entry.file_name() != "__pycache__" && filter.follow(entry));
    builder.build_parallel().run(|| {
        let mut visitor = Visitor {
            shared: &shared,
            buffer: Vec::new(),
            found: Vec::new(),
            warnings: Vec::new(),
        };
        Box::new(move |entry| {
            visitor.visit(entry);
            ignore::WalkState::Continue
        })
    });
    let (mut found, mut warnings) = shared
        .results
        .into_inner()
        .unwrap_or_else(|e| e.into_inner());
    found.sort_by(|a, b| a.path.cmp(&b.path));
    warnings.extend(
        links
            .loops
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..),
    );
    warnings.sort();
    WalkOutcome {
        files_scanned: shared.files_scanned.into_inner(),
        bytes_scanned: shared.bytes_scanned.into_inner(),
        files_matched: shared.files_matched.into_inner(),
        files_skipped: shared.files_skipped.into_inner(),
        found,
        warnings,
    }
}

/// Which symbolic links to directories the walk follows, so that links cannot multiply the work
/// (a chain of directories each linking twice to the next would otherwise be walked 2^n times):
/// a link to a directory inside a search root is not followed (the walk reaches that directory
/// by its own path; a link to one of its own ancestors is reported as a loop), and a link to a
/// directory outside the roots is followed once per directory (device and inode; volume serial
/// number and file index on Windows), whichever link the walk reaches first.
struct Links {
    /// The search roots, canonical.
    roots: Vec<PathBuf>,
    /// The directories outside the roots already followed into.
    followed: Mutex<std::collections::HashSet<crate::files::identity::FileIdentity>>,
    /// Links back to an ancestor, as warnings.
    loops: Mutex<Vec<String>>,
}

impl Links {
    fn new(roots: &[PathBuf]) -> Links {
        Links {
            roots: roots
                .iter()
                .map(|root| dunce::canonicalize(root).unwrap_or_else(|_| root.clone()))
                .collect(),
            followed: Mutex::new(std::collections::HashSet::new()),
            loops: Mutex::new(Vec::new()),
        }
    }

    /// Whether the walk enters `entry` (anything but a link to a directory below a root: yes).
    fn follow(&self, entry: &ignore::DirEntry) -> bool {
        if entry.depth() == 0
            || !entry.path_is_symlink()
            || !entry.file_type().is_some_and(|t| t.is_dir())
        {
            return true;
        }
        let path = entry.path();
        let Ok(target) = dunce::canonicalize(path) else {
            return true;
        };
        if self.roots.iter().any(|root| target.starts_with(root)) {
            let parent = path.parent().and_then(|p| dunce::canonicalize(p).ok());
            if parent.is_some_and(|parent| parent.starts_with(&target)) {
                self.loops
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(format!(
                        "{}: a symbolic-link loop back to {}: not followed",
                        crate::output::terminal::path_text(path),
                        crate::output::terminal::path_text(&target)
                    ));
            }
            return false;
        }
        match crate::files::identity::of_path(path) {
            Ok(identity) => self
                .followed
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .insert(identity),
            Err(_) => true,
        }
    }
}

/// One walking thread's state; what it found is handed to [`Shared`] when it is dropped.
struct Visitor<'a, 's> {
    shared: &'s Shared<'a>,
    buffer: Vec<u8>,
    found: Vec<FileFound>,
    warnings: Vec<String>,
}

impl Drop for Visitor<'_, '_> {
    fn drop(&mut self) {
        if self.found.is_empty() && self.warnings.is_empty() {
            return;
        }
        let mut results = self
            .shared
            .results
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        results.0.append(&mut self.found);
        results.1.append(&mut self.warnings);
    }
}

/// Whether the walk reads this file: `.py` and `.pyw` (any case). Stubs (`.pyi`) hold no code
/// that runs, so nothing in them raises.
pub fn is_python_source(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("py") || e.eq_ignore_ascii_case("pyw"))
}

impl Visitor<'_, '_> {
    fn visit(&mut self, entry: Result<ignore::DirEntry, ignore::Error>) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(error) => {
                self.warnings.push(walk_error(&error));
                return;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) || !is_python_source(entry.path()) {
            return;
        }
        let path = entry.path();
        match self.read(path) {
            Ok(true) => {}
            Ok(false) => {
                self.shared.files_skipped.fetch_add(1, Ordering::Relaxed);
                return;
            }
            Err(error) => {
                self.warnings.push(format!(
                    "{}: cannot read: {error}",
                    crate::output::terminal::path_text(path)
                ));
                return;
            }
        }
        self.shared.files_scanned.fetch_add(1, Ordering::Relaxed);
        self.shared
            .bytes_scanned
            .fetch_add(self.buffer.len() as u64, Ordering::Relaxed);
        let hits = self.shared.prefilter.hits(&self.buffer);
        if hits.is_empty() {
            return;
        }
        self.shared.files_matched.fetch_add(1, Ordering::Relaxed);
        let text = decode(&self.buffer);
        let messages: Vec<&Message> = hits.iter().map(|&m| self.shared.messages[m]).collect();
        let mut found = analyse(&text, &messages);
        if found.is_empty() {
            return;
        }
        for f in &mut found {
            f.message = hits[f.message];
        }
        self.found.push(FileFound {
            path: path.to_path_buf(),
            found,
        });
    }

    /// Reads the file into the buffer; `Ok(false)` when it is too large or not text.
    fn read(&mut self, path: &Path) -> std::io::Result<bool> {
        let file = std::fs::File::open(path)?;
        let length = file.metadata()?.len();
        if length > MAX_FILE_BYTES {
            return Ok(false);
        }
        self.buffer.clear();
        file.take(MAX_FILE_BYTES + 1)
            .read_to_end(&mut self.buffer)?;
        if self.buffer.len() as u64 > MAX_FILE_BYTES {
            return Ok(false);
        }
        let head = &self.buffer[..self.buffer.len().min(BINARY_CHECK_BYTES)];
        Ok(memchr::memchr(0, head).is_none())
    }
}

/// A walk error as a warning naming its path (loops name both ends).
fn walk_error(error: &ignore::Error) -> String {
    match error {
        ignore::Error::WithPath { path, err } => {
            format!(
                "{}: {}",
                crate::output::terminal::path_text(path),
                walk_error(err)
            )
        }
        ignore::Error::WithDepth { err, .. } => walk_error(err),
        ignore::Error::Loop { ancestor, child } => format!(
            "{}: a symbolic-link loop back to {}: not followed",
            crate::output::terminal::path_text(child),
            crate::output::terminal::path_text(ancestor)
        ),
        other => other.to_string(),
    }
}

/// A Python file's text: UTF-8 (a BOM dropped); a file declaring a Latin-1 coding (PEP 263)
/// byte by byte; anything else with invalid sequences replaced.
pub fn decode(bytes: &[u8]) -> String {
    let bytes = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    match std::str::from_utf8(bytes) {
        Ok(text) => text.to_string(),
        Err(_) if declares_latin1(bytes) => bytes.iter().map(|&b| char::from(b)).collect(),
        Err(_) => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// Whether one of the first two lines declares `coding: latin-1` (or a name for it).
fn declares_latin1(bytes: &[u8]) -> bool {
    let head: Vec<u8> = bytes
        .split(|&b| b == b'\n')
        .take(2)
        .flat_map(|line| line.iter().copied().chain([b'\n']))
        .collect();
    let head = String::from_utf8_lossy(&head).to_ascii_lowercase();
    let Some(at) = head.find("coding") else {
        return false;
    };
    let rest = head[at + 6..].trim_start_matches([':', '=']).trim_start();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        .collect();
    let name = name.replace('_', "-");
    matches!(
        name.as_str(),
        "latin-1"
            | "latin1"
            | "iso-8859-1"
            | "iso8859-1"
            | "l1"
            | "iso-latin-1"
            | "cp1252"
            | "windows-1252"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_utf8_latin1_and_broken_files() {
        assert_eq!(decode(b"\xef\xbb\xbfx = 'caf\xc3\xa9'"), "x = 'café'");
        assert_eq!(
            decode(b"# -*- coding: latin-1 -*-\nx = 'caf\xe9'\n"),
            "# -*- coding: latin-1 -*-\nx = 'café'\n"
        );
        assert_eq!(decode(b"x = 'caf\xe9'"), "x = 'caf\u{fffd}'");
    }

    #[test]
    fn python_sources_only() {
        for (name, expected) in [
            ("a.py", true),
            ("A.PY", true),
            ("gui.pyw", true),
            ("a.pyi", false),
            ("a.pyc", false),
            ("py", false),
        ] {
            assert_eq!(is_python_source(Path::new(name)), expected, "{name}");
        }
    }
}
