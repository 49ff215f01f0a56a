//! One problem: its kind, headline, cause, fix and evidence, the type the diagnosis carries
//! ([`crate::resolve::Diagnosis::problems`]) and every class in this directory fills in.

use serde::Serialize;

use crate::rules::Flavour;

/// The kinds of problem.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    /// Unresolved symbols a library would provide (LNK2019, LNK2001, lld-link `undefined symbol`).
    Unresolved,
    /// A name defined twice (LNK2005, LNK4006, LNK1169, lld-link `duplicate symbol`).
    DuplicateSymbol,
    /// Objects and libraries built for different C runtimes (LNK2038, LNK4098, CRT LNK2005).
    CrtMismatch,
    /// A module built for another machine (LNK1112, LNK4272, x86 names against x64 libraries).
    MachineMismatch,
    /// A file the linker cannot open (LNK1104, LNK1181, lld-link `could not open`).
    CannotOpen,
    /// Code built by another toolset than the libraries linked (`__std_*`, `__iob_func`).
    ToolsetMismatch,
    /// The entry point or the subsystem is wrong (LNK1561, `main`/`WinMain` from the startup code).
    EntryPoint,
    /// Link-time code generation across compiler versions (LNK1257 after C1047, lld-link's
    /// `is not a native COFF file`).
    LtcgMismatch,
    /// The image would exceed the 4 GB a PE file can hold (LNK1248).
    ImageTooLarge,
    /// A tool the linker runs cannot be started (LNK1158: `rc.exe`, `cvtres.exe`, `mt.exe`).
    ToolMissing,
    /// A tool the linker runs started and failed (LNK1327: `failure during running rc.exe`,
    /// LNK1123: cvtres.exe, LNK1240: MIDL).
    ToolFailed,
    /// The program database cannot be read or written (LNK1200, LNK1201, LNK1318, ...).
    Pdb,
    /// An input that is no valid object or library (LNK1107, LNK1136, LNK1143, ...).
    CorruptInput,
    /// A library's functions declared `__declspec(dllimport)` while its static library is
    /// linked (LNK4217/LNK4286 beside unresolved `__imp_` names of the same library).
    DllimportMismatch,
    /// Another failure lnkfix recognises.
    Other,
}

impl ProblemKind {
    /// The name in JSON and reports (`crt-mismatch`).
    pub fn name(self) -> &'static str {
        match self {
            ProblemKind::Unresolved => "unresolved",
            ProblemKind::DuplicateSymbol => "duplicate-symbol",
            ProblemKind::CrtMismatch => "crt-mismatch",
            ProblemKind::MachineMismatch => "machine-mismatch",
            ProblemKind::CannotOpen => "cannot-open",
            ProblemKind::ToolsetMismatch => "toolset-mismatch",
            ProblemKind::EntryPoint => "entry-point",
            ProblemKind::LtcgMismatch => "ltcg-mismatch",
            ProblemKind::ImageTooLarge => "image-too-large",
            ProblemKind::ToolMissing => "tool-missing",
            ProblemKind::ToolFailed => "tool-failed",
            ProblemKind::Pdb => "pdb",
            ProblemKind::CorruptInput => "corrupt-input",
            ProblemKind::DllimportMismatch => "dllimport-mismatch",
            ProblemKind::Other => "other",
        }
    }

    /// For people (`CRT mismatch`).
    pub fn title(self) -> &'static str {
        match self {
            ProblemKind::Unresolved => "unresolved symbols",
            ProblemKind::DuplicateSymbol => "duplicate symbol",
            ProblemKind::CrtMismatch => "CRT mismatch",
            ProblemKind::MachineMismatch => "machine mismatch",
            ProblemKind::CannotOpen => "cannot open",
            ProblemKind::ToolsetMismatch => "toolset mismatch",
            ProblemKind::EntryPoint => "entry point",
            ProblemKind::LtcgMismatch => "link-time code generation",
            ProblemKind::ImageTooLarge => "image too large",
            ProblemKind::ToolMissing => "tool missing",
            ProblemKind::ToolFailed => "tool failed",
            ProblemKind::Pdb => "program database",
            ProblemKind::CorruptInput => "corrupt input",
            ProblemKind::DllimportMismatch => "dllimport mismatch",
            ProblemKind::Other => "link failure",
        }
    }
}

impl std::fmt::Display for ProblemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One row of a CRT mismatch's table: an object or library and the value it was built with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct CrtRow {
    /// The object, `lib(member)` or library.
    pub subject: String,
    /// What was read: `RuntimeLibrary`, `_ITERATOR_DEBUG_LEVEL`, `defaultlib` (LNK4098),
    /// `library` (a CRT library member in an LNK2005), `/DEFAULTLIB` (an object's directive).
    pub key: String,
    /// The value (`MT_StaticRelease`, `2`, `LIBCMT`).
    pub value: String,
    /// The CRT flavour the value means, when it means one.
    pub flavour: Option<Flavour>,
    /// 1-based line of the evidence (`None`: read from an object file).
    pub line: Option<u64>,
}

/// One problem.
#[derive(Debug, Clone, Serialize, serde::Deserialize)]
pub struct Problem {
    /// The class.
    pub kind: ProblemKind,
    /// The headline.
    pub summary: String,
    /// Why it happens.
    pub cause: String,
    /// The one fix to apply.
    pub fix: String,
    /// 1-based log lines of the evidence, in order.
    pub lines: Vec<u64>,
    /// The objects, libraries, files, symbols and values involved, as the log shows them.
    pub subjects: Vec<String>,
    /// For a CRT mismatch: every object and library seen with its value.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub table: Vec<CrtRow>,
    /// What else is known (the file found elsewhere, the toolset on disk, an alternative fix).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// A warning that goes with the fix (`/NODEFAULTLIB` hides a real mismatch).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
    /// The text of evidence lines that hold no linker record (a command line, a path): the text
    /// report shows them.
    #[serde(skip)]
    pub line_texts: Vec<(u64, String)>,
}

impl Problem {
    pub(super) fn new(kind: ProblemKind, summary: String, cause: String, fix: String) -> Problem {
        Problem {
            kind,
            summary,
            cause,
            fix,
            lines: Vec::new(),
            subjects: Vec::new(),
            table: Vec::new(),
            notes: Vec::new(),
            warning: None,
            line_texts: Vec::new(),
        }
    }

    /// Adds an evidence line that holds no linker record, with its text.
    pub(super) fn cite(&mut self, line: u64, text: &str) {
        self.line(line);
        if !self.line_texts.iter().any(|(l, _)| *l == line) {
            self.line_texts.push((line, text.to_string()));
        }
    }

    /// Adds an evidence line (kept sorted, once).
    pub(super) fn line(&mut self, line: u64) {
        if line > 0 {
            if let Err(at) = self.lines.binary_search(&line) {
                self.lines.insert(at, line);
            }
        }
    }

    /// Adds many subjects ([`Problem::subject`] each): a log may name thousands, which one
    /// search of the list per subject would make quadratic.
    ///
    /// Each subject is kept as given when it needs no trimming (no copy), and the set of those
    /// seen borrows them: a log of 300,000 distinct names made three copies of each here.
    pub(super) fn subjects_from(&mut self, subjects: impl IntoIterator<Item = String>) {
        let incoming: Vec<String> = subjects
            .into_iter()
            .map(|subject| match subject.trim() {
                trimmed if trimmed.len() == subject.len() => subject,
                trimmed => trimmed.to_string(),
            })
            .collect();
        let mut seen: std::collections::HashSet<&str> =
            self.subjects.iter().map(String::as_str).collect();
        let keep: Vec<bool> = incoming
            .iter()
            .map(|subject| !subject.is_empty() && seen.insert(subject))
            .collect();
        drop(seen);
        self.subjects.extend(
            incoming
                .into_iter()
                .zip(keep)
                .filter_map(|(subject, keep)| keep.then_some(subject)),
        );
    }

    /// Adds a subject (once, in order of first mention).
    pub(super) fn subject(&mut self, subject: impl Into<String>) {
        let subject = subject.into();
        let subject = subject.trim();
        if !subject.is_empty() && !self.subjects.iter().any(|s| s == subject) {
            self.subjects.push(subject.to_string());
        }
    }
}
