//! setuptools and torch's `cpp_extension`: a missing library goes into the `libraries=[...]`
//! (names without `.lib`: setuptools' MSVC compiler adds it) and a directory into the
//! `library_dirs=[...]` of the one `Extension(...)`, `CppExtension(...)`, `CUDAExtension(...)`
//! (or `SyclExtension`, `Pybind11Extension`) call whose name (first argument or `name=`) is the
//! extension the log's `building 'pkg.mod' extension` line names. torch's extension classes pass
//! `libraries=`/`library_dirs=` on to setuptools' `Extension` after adding torch's own, so one
//! idiom serves both. A JIT build with `torch.utils.cpp_extension.load(...)`/`load_inline(...)`
//! has no such keywords: there the library and `/LIBPATH:DIR` go into `extra_ldflags=[...]`.
//!
//! The list is extended when the keyword is there as a list literal, and the keyword added
//! before the call's closing parenthesis when it is not; a keyword whose value is not a list
//! literal (a variable, a sum) is refused with the reason, as is a call whose arguments come
//! from `**kwargs` (they may set the keyword already).
//!
//! A project without `setup.py` may list its extensions in `pyproject.toml`
//! (`[tool.setuptools] ext-modules`): there the entry's `libraries` and `library-dirs` arrays are
//! extended or added, with toml_edit.
//!
//! `setup.py` is read with the project's Python scanner (`crate::fix::patch::python`): statements,
//! string literals and brackets. Every value is written as a plain double-quoted Python literal
//! with everything but printable ASCII escaped (`python::string_literal`), so no path can end
//! the literal or add code. The edited file is scanned again and must have the same statements.

use std::ops::Range;
use std::path::{Path, PathBuf};

use super::text::{self, Insertions};
use super::{BuildChange, BuildEditError, EditOutcome, FileEdit, LocateInput, Place};
use crate::fix::patch::python::{self, LogicalLine, Scan};
use crate::read::build_system::BuildSystem;
use toml_edit::{Array, Item, Value};

/// The calls that define an extension built by setuptools' `build_ext`.
const EXTENSION_CALLS: [&str; 5] = [
    "Extension",
    "CppExtension",
    "CUDAExtension",
    "SyclExtension",
    "Pybind11Extension",
];

/// torch's JIT builds, recognised only in a file that mentions `cpp_extension`.
const JIT_CALLS: [&str; 2] = ["load", "load_inline"];

/// Edits `setup.py` (or a script calling torch's `cpp_extension.load`, or a `pyproject.toml`
/// whose `[tool.setuptools] ext-modules` define the extensions) for `change`: the
/// extension named `target` (its full dotted name, or its last part when that is unique), or
/// the only one. Pure: no I/O.
pub fn edit(
    path: &Path,
    source: &[u8],
    target: Option<&str>,
    change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    if change.libraries.is_empty() && change.library_dirs.is_empty() {
        return Err(text::nothing_to_write(
            path,
            "setup.py links libraries; a C runtime is chosen by the compiler flags",
        ));
    }
    let libraries = text::library_stems(path, change)?;
    let directories = text::directories(path, change)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if name.eq_ignore_ascii_case("pyproject.toml") {
        return edit_pyproject(path, source, target, libraries, directories);
    }
    let (bom, source_text) = text::decode(path, source, "Python")?;
    let lines = python::split_lines(source_text.as_bytes());
    let scan = python::scan(&lines);
    if let Some(line) = scan.unterminated {
        return Err(BuildEditError::Unparsable {
            path: path.to_path_buf(),
            format: "Python",
            reason: format!("a statement opened on line {} never closes", line + 1),
        });
    }
    let jit = source_text.contains("cpp_extension");
    let calls = find_calls(&scan, jit);
    let call = choose(path, &calls, target)?;
    let wanted = wanted_lists(call.jit, libraries, directories);
    let logical = &scan.logical[call.logical];
    let map = CodeMap::new(path, source_text, &lines, logical)?;
    let code = StatementCode {
        text: &logical.code,
        source: source_text,
        spans: scan
            .strings
            .iter()
            .filter(|s| s.logical == call.logical)
            .map(|s| (s.span.clone(), literal_value(s)))
            .collect(),
    };
    let newline = text::line_ending(source_text);
    let mut insertions = Vec::new();
    let mut added = Vec::new();
    for (keyword, values) in &wanted {
        let (pieces, names) =
            keyword_insertions(path, call, &code, &map, keyword, values, newline)?;
        insertions.extend(pieces);
        added.extend(names);
    }
    if insertions.is_empty() {
        return Ok(EditOutcome::AlreadyDone);
    }
    let edited = text::splice(source_text, insertions);
    check_rescan(path, &scan, &edited)?;
    let mut after = bom.to_vec();
    after.extend_from_slice(edited.as_bytes());
    Ok(EditOutcome::Edited(FileEdit {
        system: BuildSystem::Setuptools,
        path: path.to_path_buf(),
        before: source.to_vec(),
        after,
        target: call.name.clone(),
        configuration: None,
        description: format!(
            "{}({}): {}",
            call.function,
            call.name.as_deref().unwrap_or("?"),
            added.join(", ")
        ),
    }))
}

/// `pyproject.toml` without `setup.py`: the extension of `[tool.setuptools] ext-modules` (an
/// array of inline tables, or `[[tool.setuptools.ext-modules]]` tables) named `target`, or the
/// only one, gets the missing `libraries` and `library-dirs`. Read and written with toml_edit
/// (layout and comments kept; its strings escape every value).
fn edit_pyproject(
    path: &Path,
    source: &[u8],
    target: Option<&str>,
    libraries: Vec<String>,
    directories: Vec<String>,
) -> Result<EditOutcome, BuildEditError> {
    let (bom, newline, mut document) = text::parse_toml(path, source)?;
    let modules = document
        .get_mut("tool")
        .and_then(|tool| tool.get_mut("setuptools"))
        .and_then(|setuptools| setuptools.get_mut("ext-modules"));
    let mut tables: Vec<&mut dyn toml_edit::TableLike> = match modules {
        Some(Item::ArrayOfTables(array)) => array
            .iter_mut()
            .map(|t| t as &mut dyn toml_edit::TableLike)
            .collect(),
        Some(Item::Value(Value::Array(array))) => array
            .iter_mut()
            .filter_map(|v| v.as_inline_table_mut())
            .map(|t| t as &mut dyn toml_edit::TableLike)
            .collect(),
        _ => Vec::new(),
    };
    let names: Vec<String> = tables
        .iter()
        .map(|t| {
            t.get("name")
                .and_then(Item::as_str)
                .unwrap_or("?")
                .to_string()
        })
        .collect();
    let index = choose_name(path, &names, target)?;
    let table = &mut tables[index];
    let mut added = Vec::new();
    for (key, values) in [("libraries", libraries), ("library-dirs", directories)] {
        if values.is_empty() {
            continue;
        }
        let item = table
            .entry(key)
            .or_insert(Item::Value(Value::Array(Array::new())));
        let Some(array) = item.as_array_mut() else {
            return Err(BuildEditError::Unsupported {
                path: path.to_path_buf(),
                reason: format!("ext-modules {key} is not an array"),
            });
        };
        let missing: Vec<String> = values
            .into_iter()
            .filter(|v| !array.iter().any(|e| e.as_str() == Some(v)))
            .collect();
        for value in &missing {
            array.push(value.as_str());
        }
        if !missing.is_empty() {
            added.push(format!("{key} += {missing:?}"));
        }
    }
    if added.is_empty() {
        return Ok(EditOutcome::AlreadyDone);
    }
    let name = names[index].clone();
    Ok(EditOutcome::Edited(FileEdit {
        system: BuildSystem::Setuptools,
        path: path.to_path_buf(),
        before: source.to_vec(),
        after: text::write_toml(bom, newline, &document),
        target: Some(name.clone()),
        configuration: None,
        description: format!("[tool.setuptools] ext-modules {name}: {}", added.join(", ")),
    }))
}

/// The index of the name that is `target` (its full dotted name, or its last part when that is
/// unique), or of the only name.
fn choose_name(
    path: &Path,
    names: &[String],
    target: Option<&str>,
) -> Result<usize, BuildEditError> {
    let last_part = |name: &str| name.rsplit('.').next().unwrap_or(name).to_string();
    let found: Vec<usize> = match target {
        None => (0..names.len()).collect(),
        Some(target) => {
            let exact: Vec<usize> = (0..names.len()).filter(|&i| names[i] == target).collect();
            if exact.is_empty() {
                (0..names.len())
                    .filter(|&i| last_part(&names[i]) == last_part(target))
                    .collect()
            } else {
                exact
            }
        }
    };
    match (found.as_slice(), target) {
        ([only], _) => Ok(*only),
        ([], target) => Err(BuildEditError::TargetNotFound {
            path: path.to_path_buf(),
            target: target.unwrap_or("an ext-modules entry").to_string(),
            candidates: names.to_vec(),
        }),
        _ => Err(BuildEditError::Ambiguous {
            path: path.to_path_buf(),
            candidates: names.to_vec(),
        }),
    }
}

/// The keyword lists a call must hold: `libraries`/`library_dirs` of an extension class, or
/// the flags of torch's JIT `load` (`/LIBPATH:DIR`, `NAME.lib`) in `extra_ldflags`.
fn wanted_lists(
    jit: bool,
    libraries: Vec<String>,
    directories: Vec<String>,
) -> Vec<(&'static str, Vec<String>)> {
    if !jit {
        return vec![("libraries", libraries), ("library_dirs", directories)];
    }
    let mut flags: Vec<String> = directories
        .iter()
        .map(|directory| format!("/LIBPATH:{directory}"))
        .collect();
    flags.extend(libraries.iter().map(|stem| format!("{stem}.lib")));
    vec![("extra_ldflags", flags)]
}

/// Finds `setup.py` and the failing extension: the extension from the log's last
/// `building 'pkg.mod' extension` line (setuptools' `build_ext`) or
/// `Building extension module NAME` line (torch's JIT `load`); the file is the first `setup.py`
/// in `--build-dir` and the three directories above it, else beside the log, else the first
/// `pyproject.toml` there that lists `ext-modules`. `Ok(None)` when none is found.
pub fn locate(input: &LocateInput<'_>) -> Result<Option<Place>, BuildEditError> {
    if input.recognised.is_some_and(|r| {
        !matches!(
            r.kind,
            BuildSystem::Setuptools | BuildSystem::TorchExtension
        )
    }) {
        return Ok(None);
    }
    let extension = input.log.lines().rev().find_map(extension_of_line);
    let mut directories: Vec<&Path> = Vec::new();
    if let Some(dir) = input.build_dir {
        directories.extend(dir.ancestors().take(4));
    }
    if let Some(dir) = input.log_path.and_then(Path::parent) {
        directories.push(dir);
    }
    let with_extensions = |file: &PathBuf| {
        std::fs::read_to_string(file).is_ok_and(|text| text.contains("ext-modules"))
    };
    let setup = directories
        .iter()
        .map(|dir| dir.join("setup.py"))
        .find(|f| f.is_file());
    let pyproject = || {
        directories
            .iter()
            .map(|dir| dir.join("pyproject.toml"))
            .find(with_extensions)
    };
    let Some(file) = setup.or_else(pyproject) else {
        return Ok(None);
    };
    Ok(Some(Place {
        system: BuildSystem::Setuptools,
        file,
        evidence: match &extension {
            Some(name) => format!("the log's build_ext line building '{name}'"),
            None => "setup.py of the build's directory".to_string(),
        },
        target: extension,
        configuration: None,
    }))
}

/// The extension a `building 'NAME' extension` or `Building extension module NAME...` line names.
fn extension_of_line(line: &str) -> Option<String> {
    if let Some(rest) = line.split_once("building '").map(|(_, rest)| rest) {
        let (name, tail) = rest.split_once('\'')?;
        return tail
            .trim_start()
            .starts_with("extension")
            .then(|| name.to_string());
    }
    let rest = line.split_once("Building extension module ")?.1;
    let name = rest.trim_end().trim_end_matches('.');
    (!name.is_empty() && !name.contains(' ')).then(|| name.to_string())
}

/// One extension-defining call found in the file.
#[derive(Debug)]
struct Call {
    /// The function called (`CppExtension`).
    function: String,
    /// A torch JIT `load` call (`extra_ldflags`) rather than an extension class.
    jit: bool,
    /// Index of its statement in [`Scan::logical`].
    logical: usize,
    /// The extension's name when it is a string literal.
    name: Option<String>,
    /// Offset of the matching `)`.
    close: usize,
    /// The arguments, in order.
    arguments: Vec<Argument>,
    /// Some argument is `*args` or `**kwargs`.
    unpacked: bool,
}

/// One argument of a call, as ranges of the statement's code.
#[derive(Debug)]
struct Argument {
    /// `name` of `name=value`.
    keyword: Option<String>,
    /// The value (the whole argument for a positional one), trimmed.
    value: Range<usize>,
}

/// Every extension-defining call of the file, in order.
fn find_calls(scan: &Scan, jit: bool) -> Vec<Call> {
    let mut calls = Vec::new();
    for (index, logical) in scan.logical.iter().enumerate() {
        let strings: Vec<_> = scan.strings.iter().filter(|s| s.logical == index).collect();
        let spans: Vec<Range<usize>> = strings.iter().map(|s| s.span.clone()).collect();
        let code = logical.code.as_bytes();
        let mut position = 0;
        while position < code.len() {
            if let Some(span) = spans.iter().find(|span| span.start == position) {
                position = span.end;
                continue;
            }
            let word_end = position
                + code[position..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
            if word_end == position {
                position += 1;
                continue;
            }
            let word = &logical.code[position..word_end];
            let extension = EXTENSION_CALLS.contains(&word);
            let is_jit = jit && JIT_CALLS.contains(&word);
            let open = word_end + code[word_end..].iter().take_while(|b| **b == b' ').count();
            if (extension || is_jit) && code.get(open) == Some(&b'(') {
                if let Some(call) = read_call(logical, &strings, &spans, word, open, index, is_jit)
                {
                    calls.push(call);
                }
            }
            position = word_end;
        }
    }
    calls
}

/// The call whose `(` is at `open`, its arguments split at top-level commas.
fn read_call(
    logical: &LogicalLine,
    strings: &[&python::StringLiteral],
    spans: &[Range<usize>],
    function: &str,
    open: usize,
    index: usize,
    jit: bool,
) -> Option<Call> {
    let code = logical.code.as_bytes();
    let mut depth = 0usize;
    let mut position = open + 1;
    let mut start = position;
    let mut pieces = Vec::new();
    let close = loop {
        if let Some(span) = spans.iter().find(|span| span.start == position) {
            position = span.end;
            continue;
        }
        match code.get(position)? {
            b'(' | b'[' | b'{' => depth += 1,
            b')' if depth == 0 => {
                pieces.push(start..position);
                break position;
            }
            b')' | b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 0 => {
                pieces.push(start..position);
                start = position + 1;
            }
            _ => {}
        }
        position += 1;
    };
    let arguments: Vec<Argument> = pieces
        .into_iter()
        .filter_map(|piece| argument(&logical.code, piece))
        .collect();
    let unpacked = arguments
        .iter()
        .any(|a| a.keyword.is_none() && logical.code[a.value.clone()].starts_with('*'));
    let name_argument = arguments
        .iter()
        .find(|a| a.keyword.as_deref() == Some("name"))
        .or_else(|| arguments.first().filter(|a| a.keyword.is_none()));
    let name = name_argument
        .and_then(|argument| literal_value(strings.iter().find(|s| s.span == argument.value)?));
    Some(Call {
        function: function.to_string(),
        jit,
        logical: index,
        name,
        close,
        arguments,
        unpacked,
    })
}

/// One argument's keyword and trimmed value; `None` for the empty piece after a trailing comma.
fn argument(code: &str, piece: Range<usize>) -> Option<Argument> {
    let text = &code[piece.clone()];
    let trimmed_start = piece.start + (text.len() - text.trim_start().len());
    let trimmed_end = piece.start + text.trim_end().len();
    if trimmed_start >= trimmed_end {
        return None;
    }
    let trimmed = &code[trimmed_start..trimmed_end];
    let keyword = python::leading_identifier(trimmed).and_then(|name| {
        let rest = trimmed[name.len()..].trim_start();
        (rest.starts_with('=') && !rest.starts_with("==")).then(|| name.to_string())
    });
    let value = match &keyword {
        Some(name) => {
            let after = trimmed[name.len()..].trim_start()[1..].trim_start();
            trimmed_end - after.len()..trimmed_end
        }
        None => trimmed_start..trimmed_end,
    };
    Some(Argument { keyword, value })
}

/// The call that builds `target`, or the only call.
fn choose<'a>(
    path: &Path,
    calls: &'a [Call],
    target: Option<&str>,
) -> Result<&'a Call, BuildEditError> {
    let candidates = || -> Vec<String> {
        calls
            .iter()
            .map(|call| match &call.name {
                Some(name) => name.clone(),
                None => format!(
                    "{}(...) with a name that is not a string literal",
                    call.function
                ),
            })
            .collect()
    };
    let Some(target) = target else {
        return match calls {
            [only] => Ok(only),
            [] => Err(BuildEditError::TargetNotFound {
                path: path.to_path_buf(),
                target: "an Extension(...) call".to_string(),
                candidates: Vec::new(),
            }),
            _ => Err(BuildEditError::Ambiguous {
                path: path.to_path_buf(),
                candidates: candidates(),
            }),
        };
    };
    let exact: Vec<&Call> = calls
        .iter()
        .filter(|c| c.name.as_deref() == Some(target))
        .collect();
    let last_part = |name: &str| name.rsplit('.').next().unwrap_or(name).to_string();
    let short: Vec<&Call> = calls
        .iter()
        .filter(|c| c.name.as_deref().map(last_part) == Some(last_part(target)))
        .collect();
    match (exact.as_slice(), short.as_slice()) {
        ([only], _) | ([], [only]) => Ok(only),
        ([], []) => Err(BuildEditError::TargetNotFound {
            path: path.to_path_buf(),
            target: target.to_string(),
            candidates: candidates(),
        }),
        _ => Err(BuildEditError::Ambiguous {
            path: path.to_path_buf(),
            candidates: candidates(),
        }),
    }
}

/// Where each physical line of a statement sits in its code, to turn code offsets back into
/// offsets of the file.
struct CodeMap {
    /// (offset in the code, offset in the file, length) of each line's piece of code.
    pieces: Vec<(usize, usize, usize)>,
}

impl CodeMap {
    /// Matches the statement's code against its physical lines: each line gives a prefix of its
    /// text (up to a comment or a continuation backslash), joined by one space, or by a newline
    /// inside a triple-quoted string. A statement that does not match is refused.
    fn new(
        path: &Path,
        source: &str,
        lines: &[python::PhysicalLine<'_>],
        logical: &LogicalLine,
    ) -> Result<CodeMap, BuildEditError> {
        let code = logical.code.as_bytes();
        let mut line_offset: usize = lines[..logical.first]
            .iter()
            .map(|line| line.text.len() + line.ending.len())
            .sum();
        let mut pieces = Vec::new();
        let mut at = 0;
        for (index, line) in lines
            .iter()
            .enumerate()
            .take(logical.last + 1)
            .skip(logical.first)
        {
            let skip = if index == logical.first {
                logical.indent.len()
            } else {
                0
            };
            if index > logical.first && matches!(code.get(at), Some(b' ' | b'\n')) {
                at += 1;
            }
            let text = &line.text[skip..];
            let length = text
                .iter()
                .zip(&code[at.min(code.len())..])
                .take_while(|(a, b)| a == b)
                .count();
            pieces.push((at, line_offset + skip, length));
            at += length;
            line_offset += line.text.len() + line.ending.len();
        }
        if at != code.len() || line_offset > source.len() {
            return Err(BuildEditError::Unparsable {
                path: path.to_path_buf(),
                format: "Python",
                reason: format!(
                    "the statement on line {} could not be followed back to its lines",
                    logical.first + 1
                ),
            });
        }
        Ok(CodeMap { pieces })
    }

    /// The file offset of a code offset (the end of a line's piece for an offset between lines).
    fn source(&self, offset: usize) -> usize {
        let piece = self
            .pieces
            .iter()
            .find(|(code, _, length)| offset >= *code && offset <= code + length)
            .or_else(|| {
                self.pieces
                    .iter()
                    .rev()
                    .find(|(code, _, _)| *code <= offset)
            })
            .unwrap_or(&self.pieces[0]);
        piece.1 + offset.saturating_sub(piece.0).min(piece.2)
    }
}

/// The insertions that make the call's `keyword` list hold `values` (those missing), and the
/// values added, for the description.
fn keyword_insertions(
    path: &Path,
    call: &Call,
    code: &StatementCode<'_>,
    map: &CodeMap,
    keyword: &str,
    values: &[String],
    newline: &str,
) -> Result<(Insertions, Vec<String>), BuildEditError> {
    if values.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let existing = call
        .arguments
        .iter()
        .find(|a| a.keyword.as_deref() == Some(keyword));
    let Some(existing) = existing else {
        if call.unpacked {
            return Err(BuildEditError::Unsupported {
                path: path.to_path_buf(),
                reason: format!(
                    "{}(...) takes *args/**kwargs, which may set {keyword}= already: add {keyword}= by hand",
                    call.function
                ),
            });
        }
        let list: Vec<String> = values.iter().map(|v| python::string_literal(v)).collect();
        let item = format!("{keyword}=[{}]", list.join(", "));
        let last = call.arguments.last().map(|a| a.value.end);
        let inserted = insert_items(code, map, call.close, last, &[item], newline);
        return Ok((inserted, vec![format!("{keyword}={values:?}")]));
    };
    let value = &code.text[existing.value.clone()];
    if !(value.starts_with('[') && value.ends_with(']')) {
        return Err(BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason: format!("{keyword}= is not a list literal ({value}): add {values:?} by hand"),
        });
    }
    let list_open = existing.value.start;
    let list_close = existing.value.end - 1;
    let elements = list_elements(code, list_open, list_close);
    let present: Vec<String> = elements.iter().filter_map(|e| e.1.clone()).collect();
    let missing: Vec<&String> = values.iter().filter(|v| !present.contains(v)).collect();
    if missing.is_empty() {
        return Ok((Vec::new(), Vec::new()));
    }
    let items: Vec<String> = missing.iter().map(|v| python::string_literal(v)).collect();
    let last = elements.last().map(|e| e.0.end);
    let inserted = insert_items(code, map, list_close, last, &items, newline);
    Ok((inserted, vec![format!("{keyword} += {missing:?}")]))
}

/// A statement's code, the file's text, and the statement's string literals (their span in the
/// code and their value when plain).
struct StatementCode<'a> {
    text: &'a str,
    source: &'a str,
    spans: Vec<(Range<usize>, Option<String>)>,
}

/// The value of a string literal, when it is a plain one (not an f-string).
fn literal_value(literal: &python::StringLiteral) -> Option<String> {
    match (literal.is_formatted(), literal.is_raw()) {
        (true, _) => None,
        (false, true) => Some(literal.body.clone()),
        (false, false) => Some(python::unescape(&literal.body)),
    }
}

/// The elements of a list literal whose `[` and `]` are at `open` and `close`: each element's
/// range and its value when it is a plain string literal.
fn list_elements(
    code: &StatementCode<'_>,
    open: usize,
    close: usize,
) -> Vec<(Range<usize>, Option<String>)> {
    let bytes = code.text.as_bytes();
    let mut elements = Vec::new();
    let mut depth = 0usize;
    let mut start = open + 1;
    let mut position = open + 1;
    while position <= close {
        if let Some((span, _)) = code.spans.iter().find(|(s, _)| s.start == position) {
            position = span.end;
            continue;
        }
        match bytes[position] {
            b'(' | b'[' | b'{' => depth += 1,
            b')' | b']' | b'}' if depth > 0 => depth -= 1,
            b',' | b']' if depth == 0 => {
                if let Some(argument) = argument(code.text, start..position) {
                    let value = code
                        .spans
                        .iter()
                        .find(|(span, _)| *span == argument.value)
                        .and_then(|(_, value)| value.clone());
                    elements.push((argument.value, value));
                }
                start = position + 1;
            }
            _ => {}
        }
        position += 1;
    }
    elements
}

/// Insertions that add `items` before the bracket at `close`, after the last element ending at
/// `last`: on a line of their own (indented as the last element's line) when the bracket is on a
/// later line than the last element, else on the same line.
fn insert_items(
    code: &StatementCode<'_>,
    map: &CodeMap,
    close: usize,
    last: Option<usize>,
    items: &[String],
    newline: &str,
) -> Insertions {
    let source = code.source;
    let close_at = map.source(close);
    let Some(last) = last else {
        return vec![(close_at, items.join(", "))];
    };
    let last_at = map.source(last);
    let between = &code.text[last..close];
    let trailing_comma = between.trim_start().starts_with(',');
    if !source[last_at..close_at].contains('\n') {
        // Right after the last element (and its comma): the spacing before the bracket stays.
        return match trailing_comma {
            true => {
                let comma = last + between.find(',').map_or(0, |c| c + 1);
                vec![(map.source(comma), format!(" {},", items.join(", ")))]
            }
            false => vec![(last_at, format!(", {}", items.join(", ")))],
        };
    }
    let mut insertions = Vec::new();
    if !trailing_comma {
        insertions.push((last_at, ",".to_string()));
    }
    let line_end = last_at + source[last_at..].find('\n').map_or(0, |n| n + 1);
    let indent = text::indent_at(source, last_at);
    let block: String = items
        .iter()
        .map(|item| format!("{indent}{item},{newline}"))
        .collect();
    insertions.push((line_end, block));
    insertions
}

/// The edited file must scan to as many statements as before, all closed.
fn check_rescan(path: &Path, before: &Scan, edited: &str) -> Result<(), BuildEditError> {
    let after = python::scan(&python::split_lines(edited.as_bytes()));
    if after.unterminated.is_some() || after.logical.len() != before.logical.len() {
        return Err(BuildEditError::Unparsable {
            path: path.to_path_buf(),
            format: "Python",
            reason: "the edit would change the file's statements; nothing written".to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(libraries: &[&str], dirs: &[&str]) -> BuildChange {
        BuildChange {
            libraries: libraries.iter().map(|s| s.to_string()).collect(),
            library_dirs: dirs.iter().map(|s| s.to_string()).collect(),
            runtime: None,
        }
    }

    fn run(source: &str, target: Option<&str>, change: &BuildChange) -> String {
        match edit(Path::new("setup.py"), source.as_bytes(), target, change).unwrap() {
            EditOutcome::Edited(edit) => {
                let after = String::from_utf8(edit.after).unwrap();
                let again = edit_again(&after, target, change);
                assert_eq!(again, EditOutcome::AlreadyDone, "not idempotent:\n{after}");
                after
            }
            EditOutcome::AlreadyDone => panic!("nothing edited"),
        }
    }

    fn edit_again(source: &str, target: Option<&str>, change: &BuildChange) -> EditOutcome {
        edit(Path::new("setup.py"), source.as_bytes(), target, change).unwrap()
    }

    /// Two extensions, formatted as black formats them.
    pub(crate) const MULTI: &str = r#"from setuptools import Extension, setup

setup(
    name="pkg",
    ext_modules=[
        Extension(
            "pkg._fast",
            sources=["src/fast.c"],  # the hot path
            include_dirs=["include"],
        ),
        Extension("pkg._slow", ["src/slow.c"], libraries=["m"]),
    ],
)
"#;

    #[test]
    fn multi_line_extension_gets_keywords_on_their_own_lines() {
        let after = run(
            MULTI,
            Some("pkg._fast"),
            &change(&["python312.lib"], &["C:\\Py\\libs"]),
        );
        let expected = MULTI.replace(
            "            include_dirs=[\"include\"],\n",
            "            include_dirs=[\"include\"],\n            libraries=[\"python312\"],\n            library_dirs=[\"C:\\\\Py\\\\libs\"],\n",
        );
        assert_eq!(after, expected);
    }

    #[test]
    fn existing_list_is_extended_on_its_line() {
        let after = run(MULTI, Some("pkg._slow"), &change(&["ws2_32.lib", "m"], &[]));
        assert!(
            after.contains(r#"Extension("pkg._slow", ["src/slow.c"], libraries=["m", "ws2_32"]),"#),
            "{after}"
        );
        // The short name finds it too.
        let short = run(MULTI, Some("_slow"), &change(&["ws2_32.lib"], &[]));
        assert_eq!(short, after);
    }

    #[test]
    fn ambiguous_and_unknown_targets_list_candidates() {
        let lib = change(&["a.lib"], &[]);
        let ambiguous = edit(Path::new("setup.py"), MULTI.as_bytes(), None, &lib);
        assert_eq!(
            ambiguous,
            Err(BuildEditError::Ambiguous {
                path: "setup.py".into(),
                candidates: vec!["pkg._fast".into(), "pkg._slow".into()],
            })
        );
        let unknown = edit(
            Path::new("setup.py"),
            MULTI.as_bytes(),
            Some("pkg.other"),
            &lib,
        );
        assert!(
            matches!(unknown, Err(BuildEditError::TargetNotFound { candidates, .. }) if candidates.len() == 2)
        );
    }

    #[test]
    fn torch_extensions_crlf_and_bom() {
        let source = "\u{feff}from torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension\r\nfrom setuptools import setup\r\n\r\nsetup(\r\n    name='ops',\r\n    ext_modules=[CppExtension('ops._C', ['ops.cpp']),\r\n                 CUDAExtension(name='ops._cuda', sources=['k.cu'], libraries=[\r\n                     'cublas',  # BLAS\r\n                 ])],\r\n    cmdclass={'build_ext': BuildExtension})\r\n";
        let after = run(source, Some("ops._C"), &change(&["amdhip64.lib"], &[]));
        assert!(after.starts_with('\u{feff}'));
        assert!(
            after.contains("CppExtension('ops._C', ['ops.cpp'], libraries=[\"amdhip64\"]),\r\n"),
            "{after:?}"
        );
        let after = run(source, Some("ops._cuda"), &change(&["cusparse.lib"], &[]));
        assert!(
            after.contains(
                "'cublas',  # BLAS\r\n                     \"cusparse\",\r\n                 ])"
            ),
            "{after:?}"
        );
        assert!(!after.replace("\r\n", "").contains('\n'));
    }

    #[test]
    fn hostile_values_stay_string_literals() {
        let hostile = "C:\\x\"); import os; os.system('rm') #\\${HOME}\\$(id)\\'q'\\{x}";
        let after = run(MULTI, Some("pkg._fast"), &change(&[], &[hostile]));
        let scan = python::scan(&python::split_lines(after.as_bytes()));
        let values: Vec<String> = scan
            .strings
            .iter()
            .map(|s| python::unescape(&s.body))
            .collect();
        assert!(values.iter().any(|v| v == hostile), "{values:?}");
        assert_eq!(
            scan.logical.len(),
            python::scan(&python::split_lines(MULTI.as_bytes()))
                .logical
                .len()
        );
        let newline = edit(
            Path::new("setup.py"),
            MULTI.as_bytes(),
            Some("pkg._fast"),
            &change(&[], &["a\nb"]),
        );
        assert!(matches!(newline, Err(BuildEditError::Unsupported { .. })));
    }

    #[test]
    fn pyproject_ext_modules() {
        let inline = "[project]\nname = \"pkg\"\n\n[tool.setuptools]\next-modules = [\n  {name = \"pkg._a\", sources = [\"a.c\"]},  # fast\n  {name = \"pkg._b\", sources = [\"b.c\"], libraries = [\"m\"]},\n]\n";
        let path = Path::new("pyproject.toml");
        let wanted = change(&["python312.lib"], &["C:\\it's \"x\""]);
        let after = match edit(path, inline.as_bytes(), Some("pkg._b"), &wanted).unwrap() {
            EditOutcome::Edited(e) => String::from_utf8(e.after).unwrap(),
            EditOutcome::AlreadyDone => panic!("nothing edited"),
        };
        let document: toml_edit::DocumentMut = after.parse().unwrap();
        let entry = &document["tool"]["setuptools"]["ext-modules"][1];
        let strings = |key: &str| -> Vec<String> {
            entry[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap().to_string())
                .collect()
        };
        assert_eq!(strings("libraries"), ["m", "python312"]);
        assert_eq!(strings("library-dirs"), ["C:\\it's \"x\""]);
        assert!(
            after.contains("  {name = \"pkg._a\", sources = [\"a.c\"]},  # fast\n"),
            "{after}"
        );
        assert_eq!(
            edit(path, after.as_bytes(), Some("pkg._b"), &wanted),
            Ok(EditOutcome::AlreadyDone)
        );
        let tables = "\u{feff}[[tool.setuptools.ext-modules]]\r\nname = \"pkg._a\"\r\nsources = [\"a.c\"]\r\n";
        let after = match edit(path, tables.as_bytes(), None, &wanted).unwrap() {
            EditOutcome::Edited(e) => String::from_utf8(e.after).unwrap(),
            EditOutcome::AlreadyDone => panic!("nothing edited"),
        };
        assert!(
            after.starts_with('\u{feff}') && !after.replace("\r\n", "").contains('\n'),
            "{after:?}"
        );
        assert!(
            after.contains("libraries = [\"python312\"]\r\n"),
            "{after:?}"
        );
        let ambiguous = edit(path, inline.as_bytes(), None, &wanted);
        assert!(
            matches!(ambiguous, Err(BuildEditError::Ambiguous { candidates, .. }) if candidates.len() == 2)
        );
    }

    #[test]
    fn extension_names_from_build_ext_lines() {
        let lines = [
            ("building 'pkg._fast' extension", Some("pkg._fast")),
            ("  building 'ops._C' extension\r", Some("ops._C")),
            ("Building extension module fused...", Some("fused")),
            ("building 'x' wheel", None),
        ];
        for (line, expected) in lines {
            assert_eq!(extension_of_line(line).as_deref(), expected, "{line}");
        }
    }

    #[test]
    fn variables_kwargs_and_jit_loads() {
        let variable = "from setuptools import Extension\nlibs = ['m']\next = Extension('e', ['e.c'], libraries=libs)\n";
        let refused = edit(
            Path::new("setup.py"),
            variable.as_bytes(),
            None,
            &change(&["a.lib"], &[]),
        );
        assert!(
            matches!(refused, Err(BuildEditError::Unsupported { .. })),
            "{refused:?}"
        );
        let kwargs = "ext = CppExtension('e', ['e.c'], **options)\n";
        let refused = edit(
            Path::new("setup.py"),
            kwargs.as_bytes(),
            None,
            &change(&["a.lib"], &[]),
        );
        assert!(matches!(refused, Err(BuildEditError::Unsupported { .. })));
        let jit = "from torch.utils import cpp_extension\nmod = cpp_extension.load(name='fused', sources=['f.cpp'], verbose=True)\ndata = json.load(f)\n";
        let after = run(
            jit,
            Some("fused"),
            &change(&["python312.lib"], &["D:\\py\\libs"]),
        );
        assert!(
            after.contains(
                r#"verbose=True, extra_ldflags=["/LIBPATH:D:\\py\\libs", "python312.lib"])"#
            ),
            "{after}"
        );
    }
}
