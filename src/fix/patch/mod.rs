//! Writes the diagnosed fix into tvm-ffi's JIT builder, `tvm_ffi/cpp/extension.py`: one block at
//! the choke point every Windows link goes through (the rule book's meta-rule "fix the
//! root cause once where all callers route through it").
//!
//! The choke point is found by structure (`chokepoint.rs`): the top-level function that generates
//! the ninja file (`_generate_ninja_build` in every release so far), its `if IS_WINDOWS:` branch, and
//! the linker-flags list that branch assigns (`default_ldflags`). The block is appended at the end of
//! that branch, at the branch's indentation, so it runs after the release's own CUDA additions:
//!
//! ```python
//!         # lnkfix: generated from the diagnosis of build.log; re-run `lnkfix patch` to change it
//!         if with_hip:
//!             _lnkfix_hip_path = os.environ.get("HIP_PATH", "").rstrip("\\/").replace("$", "$$")
//!             _lnkfix_hip_lib = _lnkfix_hip_path + "\\lib" if _lnkfix_hip_path else "C:\\...\\lib"
//!             default_ldflags += [
//!                 _windows_argument("/LIBPATH:" + _lnkfix_hip_lib),
//!                 "amdhip64.lib",
//!             ]
//! ```
//!
//! Decisions (documented here because the generated code depends on them):
//! - **Gate.** Everything in the block (HIP, the other libraries, the chain) is gated on the HIP
//!   backend: the diagnosis came from a HIP link, the chain is absent because hipcc's objects carry
//!   no `/DEFAULTLIB` (docs/RULES.md §3), and CUDA, CPU-only and Linux builds must generate exactly the
//!   ninja file they generated before. Where the function has `with_hip` (0.1.9+), the gate is
//!   `if with_hip:`. Where it has none (0.1.3–0.1.6), the gate is `if os.environ.get("HIP_PATH"):` —
//!   the HIP SDK installer and the user's recipe set it (the rule book's step 0, docs/RULES.md §14), CUDA-only machines
//!   do not.
//! - **HIP directory.** `HIP_PATH` (which usually ends with a backslash, docs/RULES.md §13) + `\lib` at
//!   run time, falling back to the directory the index found now (no fallback under the HIP_PATH
//!   gate: it is set whenever the block runs); `literal_paths` bakes the found directory in. String
//!   concatenation, not `os.path`/`Path`, so the result is the same whichever platform evaluates it.
//!   `$` is doubled because ninja reads the `ldflags` value as an evaluated string
//!   (`\\host\c$\...`).
//! - **Quoting.** `/LIBPATH:` arguments (and library names that are not plain file names) go
//!   through `_windows_argument` where the file defines it (0.1.15+), else through
//!   `subprocess.list2cmdline([...])`, which is what `_windows_argument` does: older releases write
//!   `/LIBPATH:` unquoted, which breaks on `Program Files`.
//! - **Escaping.** Every value is written as a plain double-quoted literal with everything outside
//!   printable ASCII escaped (`python::string_literal`); never an f-string, so braces are inert. The
//!   diagnosis name in the comment is escaped the same way, so it cannot end the comment line.
//!   Directories and library names with control characters are refused: they cannot exist on
//!   Windows, and a newline would split the ninja `ldflags` line into new ninja statements.
//! - **Idempotence.** A library already named by a string literal in the Windows branch (by a previous
//!   lnkfix block or by hand) is not added again; when nothing is missing the outcome is
//!   [`PatchOutcome::AlreadyPatched`].
//! - **Diff.** One hunk, three lines of context, line endings carried byte for byte (the wheels ship
//!   CRLF), headers `--- a/PATH` / `+++ b/PATH` with PATH as given (backslashes turned into `/`, a
//!   leading `./` dropped, git-style C quoting when it holds spaces, quotes or non-ASCII), so both
//!   `git apply` and `patch -p1` accept it when run from the directory the path is relative to. An
//!   absolute PATH gives `a//abs/path`: `patch -p1` applies it from `/`, `git apply` only with
//!   `--unsafe-paths` (a note says so).
//!

mod apply;
pub mod build_file;
mod chokepoint;
mod diff;
mod from_diagnosis;
pub(crate) mod python;
mod sha256;

use std::path::PathBuf;

pub use apply::{apply_build_file, apply_patch, check_output_path, ApplyReport};
pub use from_diagnosis::{
    build_change, is_library_name, plan_from_diagnosis, read_saved_diagnosis, SavedDiagnosis,
    SavedDiagnosisError, SavedPatch,
};
pub use sha256::sha256_hex;

use chokepoint::ChokePoint;
use python::{comment_text, split_lines, string_literal};

/// The HIP runtime import library to link.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct HipLibrary {
    /// The import library as named on disk, e.g. `amdhip64.lib`.
    pub library: String,
    /// Where the index found it now (e.g. `C:\Program Files\AMD\ROCm\6.2\lib`); the fallback when
    /// `HIP_PATH` is unset at build time, or the baked-in path with `literal_paths`.
    pub found_dir: Option<PathBuf>,
}

/// Any other library the diagnosis resolved.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct LinkLibrary {
    /// The library file name, e.g. `user32.lib`.
    pub name: String,
    /// Its directory, when it is not on the default `LIB` path (becomes a `/LIBPATH:`).
    pub dir: Option<PathBuf>,
}

/// The explicit default-library chain, for the verdict "default-lib chain absent".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct DefaultLibChain {
    /// `dynamic` (/MD), `static` (/MT), `dynamic-debug` (/MDd) or `static-debug` (/MTd).
    pub flavour: String,
    /// The full chain in link order, e.g. `msvcrt.lib vcruntime.lib ucrt.lib msvcprt.lib
    /// oldnames.lib kernel32.lib` (docs/RULES.md §3).
    pub libraries: Vec<String>,
    /// Set when the evidence points at a different flavour than the one chosen: why.
    pub evidence_disagrees: Option<String>,
}

/// What to write into `extension.py`, built from a diagnosis.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PatchPlan {
    /// The HIP runtime to link, when the diagnosis resolved HIP symbols.
    pub hip: Option<HipLibrary>,
    /// Every other library the diagnosis resolved, in order.
    pub libraries: Vec<LinkLibrary>,
    /// The explicit default-library chain, only when the verdict says it is absent.
    pub chain: Option<DefaultLibChain>,
    /// The diagnosis this plan came from (log or JSON path), named in the generated comment.
    pub source: String,
    /// Bake the found HIP directory in instead of reading `HIP_PATH` at run time.
    pub literal_paths: bool,
}

/// The result of planning a patch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PatchOutcome {
    /// The file needs the block.
    Changed {
        /// A unified diff of the change (UTF-8, the file's own line endings inside).
        diff: String,
        /// The whole patched file.
        new_text: Vec<u8>,
        /// What was found and decided, one sentence each.
        notes: Vec<String>,
    },
    /// The Windows branch already links everything the plan asks for: no diff.
    AlreadyPatched {
        /// What was found, including where each library is already linked.
        notes: Vec<String>,
    },
}

/// Why a patch could not be planned or applied.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    /// The ninja generator, its Windows branch or its linker-flags list is not in the file.
    #[error("{path}: choke point not found: looked for {looked_for}; found: {closest}")]
    ChokePointNotFound {
        /// The file, as given.
        path: String,
        /// What the search looks for.
        looked_for: String,
        /// The closest thing the search saw.
        closest: String,
    },
    /// The file is not UTF-8 (Python's default source encoding), so no text diff can carry it.
    #[error("{path}: line {line} is not valid UTF-8")]
    NotUtf8 {
        /// The file, as given.
        path: String,
        /// 1-based line number of the first invalid byte.
        line: usize,
    },
    /// The file ends inside a statement (an open bracket, triple-quoted string or backslash
    /// continuation): not valid Python, and a block appended to that statement would be swallowed
    /// by it (a truncated file, found by fuzzing, once got the block inside its last, unclosed list).
    #[error("{path}: the statement at line {line} never ends (an open bracket, string or continuation): not valid Python, perhaps truncated")]
    Unterminated {
        /// The file, as given.
        path: String,
        /// 1-based line where the unclosed statement starts.
        line: usize,
    },
    /// `patch -o` names a file the run reads (the file to patch or the `--from` file, through any
    /// link): writing the diff there would destroy it.
    #[error("-o {output}: is the same file as {input}: refusing to overwrite it with the diff")]
    OutputIsInput {
        /// The `-o` path.
        output: PathBuf,
        /// The input it names.
        input: PathBuf,
    },
    /// The plan names no library at all.
    #[error("the diagnosis {source_name} resolved no library to link: nothing to patch")]
    NothingToLink {
        /// The plan's source.
        source_name: String,
    },
    /// A library name in the plan cannot be a library.
    #[error("library name {name:?} is not usable: {reason}")]
    InvalidLibraryName {
        /// The name as given.
        name: String,
        /// Why.
        reason: &'static str,
    },
    /// A directory in the plan cannot be written into the build: not Unicode, or holding control
    /// characters (impossible in a Windows path, and a newline would split the ninja `ldflags`
    /// line into new ninja statements).
    #[error("directory {path:?} is not usable: {reason}")]
    UnusablePath {
        /// The directory.
        path: PathBuf,
        /// Why.
        reason: &'static str,
    },
    /// The file on disk is not the one the patch was planned against.
    #[error("{path}: changed since the diagnosis (sha256 {actual}, expected {expected}); re-run lnkfix patch", path = path.display())]
    FileChanged {
        /// The file.
        path: PathBuf,
        /// The hash the caller expected.
        expected: String,
        /// The hash on disk.
        actual: String,
    },
    /// The patched text does not compile as Python; the file was left untouched.
    #[error("{path}: patched file does not compile as Python, left untouched: {message}", path = path.display())]
    DoesNotCompile {
        /// The file.
        path: PathBuf,
        /// What Python said.
        message: String,
    },
    /// A file operation failed.
    #[error("{path}: cannot {action}: {source}", path = path.display())]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// What was being done (`read`, `write the temporary file`, ...).
        action: &'static str,
        /// The underlying error.
        source: std::io::Error,
    },
}

/// The unified diff of a whole file's edit (three lines of context, line endings byte for byte,
/// headers as the `extension.py` diff has them).
pub fn whole_file_diff(path_as_given: &str, before: &[u8], after: &[u8]) -> String {
    diff::whole_file(path_as_given, before, after)
}

/// Plans the patch for `original` (the bytes of `extension.py`, named `path_as_given` in the diff
/// headers and messages). Pure: reads and writes nothing.
pub fn plan_patch(
    path_as_given: &str,
    original: &[u8],
    plan: &PatchPlan,
) -> Result<PatchOutcome, PatchError> {
    if let Err(error) = std::str::from_utf8(original) {
        let line = 1 + original[..error.valid_up_to()]
            .iter()
            .filter(|&&byte| byte == b'\n')
            .count();
        return Err(PatchError::NotUtf8 {
            path: path_as_given.to_string(),
            line,
        });
    }
    let lines = split_lines(original);
    let scan = python::scan(&lines);
    if let Some(line) = scan.unterminated {
        return Err(PatchError::Unterminated {
            path: path_as_given.to_string(),
            line: line + 1,
        });
    }
    let point = chokepoint::find(&scan).map_err(|not_found| PatchError::ChokePointNotFound {
        path: path_as_given.to_string(),
        looked_for: not_found.looked_for,
        closest: not_found.closest,
    })?;

    let mut notes = vec![format!(
        "choke point: `{}` (line {}), Windows branch at line {}, linker flags `{}` (line {})",
        point.function,
        point.function_line + 1,
        point.branch_line + 1,
        point.ldflags_name,
        point.ldflags_line + 1
    )];
    let header_path = path_as_given.replace('\\', "/");
    if header_path.starts_with('/') || header_path.as_bytes().get(1) == Some(&b':') {
        notes.push(format!(
            "the diff names the absolute path {path_as_given}: apply it with `patch -p1` from the root, or `git apply --unsafe-paths`"
        ));
    }
    let linked = linked_in_branch(&scan, &point);
    let entries = select_entries(plan, &linked, &point, &mut notes)?;
    if entries.is_empty() {
        notes.push(format!(
            "{path_as_given} already links every library the diagnosis asks for; nothing to change"
        ));
        return Ok(PatchOutcome::AlreadyPatched { notes });
    }

    let gate = if point.has_with_hip {
        notes.push("gated on `with_hip`, as the file gates CUDA on `with_cuda`".to_string());
        "with_hip".to_string()
    } else {
        notes.push(format!(
            "`{}` has no `with_hip` in this release: gated on HIP_PATH being set at build time",
            point.function
        ));
        format!("{}.environ.get(\"HIP_PATH\")", os_name(&point))
    };
    let block = render_block(&point, plan, &entries, &gate);
    let ending = line_ending(&lines, point.body_lines.1);
    let insert_after = point.body_lines.1;
    let block_lines: Vec<Vec<u8>> = block
        .into_iter()
        .map(|mut line| {
            line.extend_from_slice(ending);
            line
        })
        .collect();
    let (new_text, diff) = diff::insertion(path_as_given, &lines, insert_after, &block_lines);
    Ok(PatchOutcome::Changed {
        diff,
        new_text,
        notes,
    })
}

/// One item of the list the block appends.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Entry {
    /// `/LIBPATH:` of the HIP directory (run time or literal, per the plan).
    HipLibraryPath,
    /// `/LIBPATH:` of a fixed directory.
    LibraryPath(String),
    /// A library.
    Library(String),
    /// A comment line inside the list.
    Comment(String),
}

/// `amdhip64.lib`, `AMDHIP64`, `"/DEFAULTLIB:amdhip64.lib"` all name `amdhip64`.
fn normalize_library(name: &str) -> String {
    let lower = name.trim().to_ascii_lowercase();
    let base = lower.rsplit(['\\', '/', ':']).next().unwrap_or(&lower);
    base.strip_suffix(".lib").unwrap_or(base).to_string()
}

/// Libraries named by string literals in the Windows branch (or another Windows branch of the same
/// function), with their 1-based line. Each literal
/// counts whole (after undoing Python escapes and ninja's `$$`, so names lnkfix itself escaped are
/// recognised) and word by word (`"/DEFAULTLIB:x.lib y.lib"`); `/LIBPATH:` values are directories.
fn linked_in_branch(scan: &python::Scan, point: &ChokePoint) -> Vec<(String, usize)> {
    let in_windows_code = |line: usize| {
        std::iter::once(&point.body_lines)
            .chain(&point.other_windows_lines)
            .any(|(first, last)| line >= *first && line <= *last)
    };
    let is_directory = |value: &str| {
        let lower = value.trim_start().to_ascii_lowercase();
        lower.starts_with("/libpath:") || lower.starts_with("-l")
    };
    let mut linked = Vec::new();
    for literal in scan
        .strings
        .iter()
        .filter(|literal| in_windows_code(literal.line))
    {
        let value = python::unescape(&literal.body).replace("$$", "$");
        if value.is_empty() || is_directory(&value) {
            continue;
        }
        linked.push((normalize_library(&value), literal.line + 1));
        for word in value.split(|character: char| character.is_whitespace() || character == ',') {
            if !word.is_empty() && !is_directory(word) {
                linked.push((normalize_library(word), literal.line + 1));
            }
        }
    }
    linked
}

fn path_text(path: &std::path::Path) -> Result<String, PatchError> {
    let unusable = |reason| PatchError::UnusablePath {
        path: path.to_path_buf(),
        reason,
    };
    let text = path.to_str().ok_or_else(|| unusable("not valid Unicode"))?;
    if text.is_empty() {
        return Err(unusable("empty"));
    }
    if text.chars().any(char::is_control) {
        return Err(unusable(
            "control characters (impossible in a Windows path)",
        ));
    }
    Ok(text.to_string())
}

/// Library names become file names on the link line: no control characters (see
/// [`PatchError::UnusablePath`]), nothing empty, no stray whitespace around them.
fn check_library_name(name: &str) -> Result<(), PatchError> {
    let reason = if name.trim().is_empty() {
        "empty"
    } else if name.trim() != name {
        "leading or trailing whitespace"
    } else if name.chars().any(char::is_control) {
        "control characters (impossible in a Windows file name)"
    } else {
        return Ok(());
    };
    Err(PatchError::InvalidLibraryName {
        name: name.to_string(),
        reason,
    })
}

/// Ninja reads `$` in a variable's value as an escape (`$$` is a literal `$`): `\\host\c$\...`
/// would otherwise lose its `$`.
fn ninja_escape(value: &str) -> String {
    value.replace('$', "$$")
}

/// The entries to add, in order, leaving out what the branch already links and duplicates.
fn select_entries(
    plan: &PatchPlan,
    linked: &[(String, usize)],
    point: &ChokePoint,
    notes: &mut Vec<String>,
) -> Result<Vec<Entry>, PatchError> {
    let mut selection = Selection {
        linked,
        entries: Vec::new(),
        chosen: Vec::new(),
        paths: Vec::new(),
        wanted: 0,
    };
    if let Some(hip) = &plan.hip {
        selection.hip(hip, plan.literal_paths, point, notes)?;
    }
    for library in &plan.libraries {
        selection.library(library, notes)?;
    }
    if let Some(chain) = &plan.chain {
        selection.chain(chain, point, notes)?;
    }
    if selection.wanted == 0 {
        return Err(PatchError::NothingToLink {
            source_name: plan.source.clone(),
        });
    }
    Ok(selection.entries)
}

/// The entries chosen so far, and what decides the next ones.
struct Selection<'l> {
    /// What the Windows branch already links (normalised name, line).
    linked: &'l [(String, usize)],
    /// The entries to add, in order.
    entries: Vec<Entry>,
    /// The libraries chosen (normalised names).
    chosen: Vec<String>,
    /// The literal `/LIBPATH:` directories added.
    paths: Vec<String>,
    /// How many libraries the plan asks for (linked already or not).
    wanted: usize,
}

impl Selection<'_> {
    /// Whether `name` is to be added: not linked by the branch (a note says so when it is), not
    /// chosen already. Marks it chosen.
    fn take(&mut self, name: &str, notes: &mut Vec<String>) -> bool {
        let key = normalize_library(name);
        if let Some((_, line)) = self
            .linked
            .iter()
            .find(|(linked_name, _)| *linked_name == key)
        {
            notes.push(format!(
                "{name} is already linked by the Windows branch (line {line}); not added again"
            ));
            return false;
        }
        if self.chosen.contains(&key) {
            return false;
        }
        self.chosen.push(key);
        true
    }

    /// The HIP runtime library, after its directory: a literal path, or `HIP_PATH\lib` at build
    /// time (falling back to the directory found, when the branch is not gated on `HIP_PATH`).
    fn hip(
        &mut self,
        hip: &HipLibrary,
        literal_paths: bool,
        point: &ChokePoint,
        notes: &mut Vec<String>,
    ) -> Result<(), PatchError> {
        check_library_name(&hip.library)?;
        self.wanted += 1;
        if !self.take(&hip.library, notes) {
            return Ok(());
        }
        let found = hip.found_dir.as_deref().map(path_text).transpose()?;
        match (&found, literal_paths) {
            (Some(dir), true) => {
                notes.push(format!("{} from {dir} (literal path)", hip.library));
                self.paths.push(dir.clone());
                self.entries.push(Entry::LibraryPath(dir.clone()));
            }
            (None, true) => notes.push(format!(
                "{}: no directory found and literal paths asked for: no /LIBPATH: added",
                hip.library
            )),
            (Some(_), false) if !point.has_with_hip => {
                notes.push(format!("{} from HIP_PATH\\lib at build time", hip.library));
                self.entries.push(Entry::HipLibraryPath);
            }
            (Some(dir), false) => {
                notes.push(format!(
                    "{} from HIP_PATH\\lib at build time, falling back to {dir}",
                    hip.library
                ));
                self.entries.push(Entry::HipLibraryPath);
            }
            (None, false) => {
                notes.push(format!("{} from HIP_PATH\\lib at build time", hip.library));
                self.entries.push(Entry::HipLibraryPath);
            }
        }
        self.entries.push(Entry::Library(hip.library.clone()));
        Ok(())
    }

    /// A library, after its directory (once per directory).
    fn library(
        &mut self,
        library: &LinkLibrary,
        notes: &mut Vec<String>,
    ) -> Result<(), PatchError> {
        check_library_name(&library.name)?;
        self.wanted += 1;
        if !self.take(&library.name, notes) {
            return Ok(());
        }
        if let Some(dir) = library.dir.as_deref().map(path_text).transpose()? {
            if !self.paths.contains(&dir) {
                self.paths.push(dir.clone());
                self.entries.push(Entry::LibraryPath(dir));
            }
        }
        self.entries.push(Entry::Library(library.name.clone()));
        Ok(())
    }

    /// The default-library chain under a comment, with warnings when it mixes CRT flavours with
    /// the file's own `/MD` or the evidence disagrees.
    fn chain(
        &mut self,
        chain: &DefaultLibChain,
        point: &ChokePoint,
        notes: &mut Vec<String>,
    ) -> Result<(), PatchError> {
        let mut chain_entries = Vec::new();
        for name in &chain.libraries {
            check_library_name(name)?;
            self.wanted += 1;
            if self.take(name, notes) {
                chain_entries.push(Entry::Library(name.to_string()));
            }
        }
        // The file compiles its C++ with /MD; any other chain mixes CRT flavours (docs/RULES.md §3).
        let option = match chain.flavour.as_str() {
            "static" => Some("/MT"),
            "static-debug" => Some("/MTd"),
            "dynamic-debug" => Some("/MDd"),
            _ => None,
        };
        if let (Some(option), true) = (option, point.compiles_md) {
            notes.push(format!(
                "warning: the chain is {} ({option}) but `{}` compiles C++ with /MD: linking both is the mixed build the rule book warns about (LNK2038/LNK4098)",
                comment_text(&chain.flavour), point.function
            ));
        }
        if let Some(why) = &chain.evidence_disagrees {
            notes.push(format!(
                "warning: the evidence disagrees with the {} chain: {why}",
                chain.flavour
            ));
        }
        if !chain_entries.is_empty() {
            self.entries.push(Entry::Comment(format!(
                "default-library chain ({}): the diagnosis found it absent",
                comment_text(&chain.flavour)
            )));
            self.entries.append(&mut chain_entries);
        }
        Ok(())
    }
}

/// The name under which `os` is reachable inside the function.
fn os_name(point: &ChokePoint) -> &'static str {
    if point.imports_os {
        "os"
    } else {
        "_lnkfix_os"
    }
}

/// The lines of the block, indented, without line endings.
fn render_block(
    point: &ChokePoint,
    plan: &PatchPlan,
    entries: &[Entry],
    gate: &str,
) -> Vec<Vec<u8>> {
    let mut block = Block {
        point,
        lines: Vec::new(),
    };
    block.preamble(plan, entries, gate);
    let optional_hip_path = entries.contains(&Entry::HipLibraryPath) && block.hip_path(plan);
    block.push(1, &format!("{} += [", point.ldflags_name));
    for entry in entries {
        let text = match entry {
            Entry::HipLibraryPath if optional_hip_path => continue,
            Entry::HipLibraryPath => format!(
                "{},",
                block.quote("\"/LIBPATH:\" + _lnkfix_hip_lib".to_string())
            ),
            Entry::LibraryPath(dir) => {
                format!(
                    "{},",
                    block.quote(string_literal(&ninja_escape(&format!("/LIBPATH:{dir}"))))
                )
            }
            Entry::Library(name) if plain_name(name) => format!("{},", string_literal(name)),
            Entry::Library(name) => {
                format!("{},", block.quote(string_literal(&ninja_escape(name))))
            }
            Entry::Comment(comment) => format!("# {comment}"),
        };
        block.push(2, &text);
    }
    block.push(1, "]");
    block.lines
}

/// Whether a library name is written as a plain string literal (nothing to quote or escape).
fn plain_name(name: &str) -> bool {
    name.bytes()
        .all(|byte| byte.is_ascii_alphanumeric() || b"_.+-".contains(&byte))
}

/// The block being written, at the choke point's indentation.
struct Block<'p> {
    point: &'p ChokePoint,
    lines: Vec<Vec<u8>>,
}

impl Block<'_> {
    /// Adds a line `levels` indentation units into the function's body.
    fn push(&mut self, levels: usize, text: &str) {
        let mut bytes = self.point.body_indent.clone();
        for _ in 0..levels {
            bytes.extend_from_slice(&self.point.indent_unit);
        }
        bytes.extend_from_slice(text.as_bytes());
        self.lines.push(bytes);
    }

    /// The expression quoted as one Windows argument, by the file's own helper when it has one.
    fn quote(&self, expression: String) -> String {
        if self.point.has_windows_argument {
            format!("_windows_argument({expression})")
        } else if self.point.imports_subprocess {
            format!("subprocess.list2cmdline([{expression}])")
        } else {
            format!("_lnkfix_subprocess.list2cmdline([{expression}])")
        }
    }

    /// The generated comment, the gate, and the imports the block needs.
    fn preamble(&mut self, plan: &PatchPlan, entries: &[Entry], gate: &str) {
        let point = self.point;
        self.push(
            0,
            &format!(
                "# lnkfix: generated from the diagnosis of {}; re-run `lnkfix patch` to change it",
                comment_text(&plan.source)
            ),
        );
        if !point.has_with_hip && !point.imports_os {
            self.push(0, "import os as _lnkfix_os");
        }
        self.push(0, &format!("if {gate}:"));
        if !point.imports_subprocess && !point.has_windows_argument {
            self.push(1, "import subprocess as _lnkfix_subprocess");
        }
        if point.has_with_hip && !point.imports_os && entries.contains(&Entry::HipLibraryPath) {
            self.push(1, "import os as _lnkfix_os");
        }
    }

    /// The HIP directory read from `HIP_PATH` at build time, falling back to the directory found
    /// when there is one. Returns whether it is optional (no directory found: its `/LIBPATH:` is
    /// appended only when `HIP_PATH` is set, not listed with the entries).
    fn hip_path(&mut self, plan: &PatchPlan) -> bool {
        let point = self.point;
        let found_dir = plan
            .hip
            .as_ref()
            .and_then(|hip| hip.found_dir.as_deref())
            .and_then(std::path::Path::to_str);
        self.push(
            1,
            &format!(
                "_lnkfix_hip_path = {}.environ.get(\"HIP_PATH\", \"\").rstrip(\"\\\\/\").replace(\"$\", \"$$\")",
                os_name(point)
            ),
        );
        match found_dir {
            // Gated on HIP_PATH itself: it is set whenever this runs, nothing to fall back from.
            Some(_) if !point.has_with_hip => {
                self.push(1, "_lnkfix_hip_lib = _lnkfix_hip_path + \"\\\\lib\"");
                false
            }
            Some(dir) => {
                self.push(
                    1,
                    &format!(
                        "_lnkfix_hip_lib = _lnkfix_hip_path + \"\\\\lib\" if _lnkfix_hip_path else {}",
                        string_literal(&ninja_escape(dir))
                    ),
                );
                false
            }
            None => {
                self.push(1, "if _lnkfix_hip_path:");
                let append = format!(
                    "{}.append({})",
                    point.ldflags_name,
                    self.quote("\"/LIBPATH:\" + _lnkfix_hip_path + \"\\\\lib\"".to_string())
                );
                self.push(2, &append);
                true
            }
        }
    }
}

/// The line ending to write: the one of the line the block follows, else the file's first.
fn line_ending<'a>(lines: &[python::PhysicalLine<'a>], after: usize) -> &'a [u8] {
    let own = lines.get(after).map(|line| line.ending).unwrap_or_default();
    if !own.is_empty() {
        return own;
    }
    lines
        .iter()
        .map(|line| line.ending)
        .find(|ending| !ending.is_empty())
        .unwrap_or(b"\n")
}
