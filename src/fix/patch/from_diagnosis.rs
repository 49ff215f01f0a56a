//! A [`PatchPlan`] from a [`Diagnosis`] (the same code path serves a live diagnosis and a saved
//! `diagnose --format json`, read back into the same type).

use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::build_file::BuildChange;
use super::{DefaultLibChain, HipLibrary, LinkLibrary, PatchPlan};
use crate::resolve::{Diagnosis, VerdictKind};

/// Libraries `extension.py` always links itself: never added again.
const ALREADY_LINKED: &[&str] = &["tvm_ffi.lib"];

fn parent_dir(path: &str) -> Option<PathBuf> {
    // Windows paths read on Linux: split on both separators.
    let cut = path.rfind(['\\', '/'])?;
    Some(PathBuf::from(&path[..cut]))
}

/// What a build definition must add for a diagnosis: its link flags split into libraries and
/// `/LIBPATH:` directories (the same flags `--verify` runs), and for a CRT mismatch the runtime
/// the libraries were built with (the flavour every `lib(member)` row of the problem's table
/// agrees on; none when they disagree).
pub fn build_change(diagnosis: &Diagnosis) -> BuildChange {
    let mut change = BuildChange::default();
    for flag in &diagnosis.link_flags {
        let flag = flag.trim_matches('"');
        let lower = flag.to_ascii_lowercase();
        if lower.starts_with("/libpath:") || lower.starts_with("-libpath:") {
            let dir = flag["/libpath:".len()..].trim_matches('"').to_string();
            if !dir.is_empty() && !change.library_dirs.contains(&dir) {
                change.library_dirs.push(dir);
            }
        } else if !(flag.starts_with('/') || flag.starts_with('-')) {
            change.libraries.push(flag.to_string());
        }
    }
    let mismatch = diagnosis
        .problems
        .iter()
        .find(|p| p.kind == crate::problems::ProblemKind::CrtMismatch);
    if let Some(problem) = mismatch {
        let mut flavours = problem
            .table
            .iter()
            .filter(|row| row.subject.contains(".lib(") || row.subject.contains(".LIB("))
            .filter_map(|row| row.flavour);
        if let Some(first) = flavours.next() {
            if flavours.all(|f| f == first) {
                change.runtime = Some(first);
            }
        }
    }
    change
}

/// Builds the plan: the HIP runtime, every other library the diagnosis decided, and the explicit
/// chain only when the verdict says the default-library chain is absent and the flavour is known.
pub fn plan_from_diagnosis(diagnosis: &Diagnosis, source: &str, literal_paths: bool) -> PatchPlan {
    let mut plan = PatchPlan {
        source: source.to_string(),
        literal_paths,
        ..PatchPlan::default()
    };
    let symbols = &diagnosis.symbols;
    let dir_of = |library: &str| -> Option<PathBuf> {
        symbols
            .iter()
            .find(|s| {
                s.library
                    .as_deref()
                    .is_some_and(|l| l.eq_ignore_ascii_case(library))
            })
            .and_then(|s| s.library_path.as_deref())
            .and_then(parent_dir)
    };
    for symbol in symbols {
        if symbol.family == "hip-runtime" && plan.hip.is_none() {
            if let Some(library) = symbol.library.as_deref() {
                plan.hip = Some(HipLibrary {
                    library: library.to_string(),
                    found_dir: dir_of(library),
                });
            }
        }
    }
    let chain: Vec<String> = if diagnosis.verdict.kind == VerdictKind::DefaultLibChainAbsent {
        diagnosis.chain.clone().unwrap_or_default()
    } else {
        Vec::new()
    };
    for flag in &diagnosis.link_flags {
        let is_option = flag.starts_with('/') || flag.starts_with('-');
        let is_hip = plan
            .hip
            .as_ref()
            .is_some_and(|h| h.library.eq_ignore_ascii_case(flag));
        let in_chain = chain.iter().any(|c| c.eq_ignore_ascii_case(flag));
        let already = ALREADY_LINKED.iter().any(|l| l.eq_ignore_ascii_case(flag));
        if is_option || is_hip || in_chain || already {
            continue;
        }
        plan.libraries.push(LinkLibrary {
            name: flag.to_string(),
            dir: dir_of(flag),
        });
    }
    if !chain.is_empty() {
        plan.chain = Some(DefaultLibChain {
            flavour: diagnosis
                .crt
                .flavour
                .map_or("dynamic", |f| f.name())
                .to_string(),
            libraries: chain,
            evidence_disagrees: diagnosis.crt.conflict.clone(),
        });
    }
    plan
}

/// A saved `diagnose --format json`: the diagnosis, and what `diagnose` writes around it.
#[derive(Debug, Clone, Deserialize)]
pub struct SavedDiagnosis {
    /// The diagnosis itself.
    #[serde(flatten)]
    pub diagnosis: Diagnosis,
    /// The `patch` object of `diagnose --patch`, when it was asked for.
    #[serde(default)]
    pub patch: Option<SavedPatch>,
    /// The `verify` object of `diagnose --verify`, when it was asked for (kept as written).
    #[serde(default)]
    pub verify: Option<Value>,
}

/// What a saved diagnosis's `patch` object tells the later `patch --apply`.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct SavedPatch {
    /// The sha256 of `extension.py` when the patch was previewed.
    #[serde(default)]
    pub sha256: Option<String>,
}

/// Why a `--from` file that holds JSON is not a diagnosis `patch` can use.
#[derive(Debug, thiserror::Error)]
pub enum SavedDiagnosisError {
    /// The file could not be read (or is not a regular file).
    #[error("cannot read: {0}")]
    Read(#[source] std::io::Error),
    /// Text that starts like JSON but does not parse.
    #[error("not valid JSON ({encoding}): {message} at line {line}, column {column}")]
    NotJson {
        /// The encoding it was read in (`UTF-8`, `UTF-16LE with BOM`, ...).
        encoding: &'static str,
        /// serde_json's message.
        message: String,
        /// Where the parse failed (1-based).
        line: usize,
        /// Where the parse failed (1-based).
        column: usize,
    },
    /// Valid JSON that is not a `diagnose --format json` document.
    #[error("JSON, but not a diagnosis: {0}")]
    NotADiagnosis(String),
    /// A diagnosis of a schema this lnkfix does not read.
    #[error("schema_version {0} is not one this lnkfix reads (1)")]
    Schema(String),
    /// A library entry that is not a library name (an option, a response file, a path, quotes).
    #[error("{field} entry {value:?} is not a library name (options, @response files, paths and quotes are refused)")]
    NotALibrary {
        /// Where it is (`chain`, `link_flags`, `symbols[].library`).
        field: &'static str,
        /// The entry.
        value: String,
    },
}

/// A saved diagnosis in `path` (a `diagnose --format json`, as a shell or PowerShell wrote it:
/// UTF-8 with or without BOM, UTF-16 LE or BE with BOM), `None` when the file is a log, or why it
/// is JSON that cannot be used. A file is JSON when its first character is `{` or `[`; it is then
/// never read as a log. `-` (standard input) is always a log.
pub fn read_saved_diagnosis(path: &Path) -> Result<Option<SavedDiagnosis>, SavedDiagnosisError> {
    if path == Path::new("-") {
        return Ok(None);
    }
    let bytes = crate::files::open::read_regular(path).map_err(SavedDiagnosisError::Read)?;
    let (text, encoding) = decode_json_text(&bytes);
    let Some(text) = text else {
        return Ok(None);
    };
    let start = text.trim_start();
    if !start.starts_with(['{', '[']) {
        return Ok(None);
    }
    // A log may start with `[` too (ninja's `[1/3]`, a timestamp): only JSON that parses makes
    // a `[` file a saved diagnosis; a `{` file must be one.
    if start.starts_with('[') && serde_json::from_str::<serde::de::IgnoredAny>(&text).is_err() {
        return Ok(None);
    }
    let value: Value = serde_json::from_str(&text).map_err(|e| SavedDiagnosisError::NotJson {
        encoding,
        message: e
            .to_string()
            .split(" at line ")
            .next()
            .unwrap_or_default()
            .to_string(),
        line: e.line(),
        column: e.column(),
    })?;
    check_shape(&value)?;
    let saved: SavedDiagnosis = serde_json::from_value(value)
        .map_err(|e| SavedDiagnosisError::NotADiagnosis(e.to_string()))?;
    check_libraries(&saved.diagnosis)?;
    Ok(Some(saved))
}

/// The text of a file by its byte-order mark (or, without one, by where the NULs of UTF-16 text
/// fall), and the encoding's name; `None` for bytes that are no text in it (then it is a log).
fn decode_json_text(bytes: &[u8]) -> (Option<String>, &'static str) {
    let utf16 = |body: &[u8], big_endian: bool| -> Option<String> {
        if !body.len().is_multiple_of(2) {
            return None;
        }
        let units = body.chunks_exact(2).map(|pair| {
            if big_endian {
                u16::from_be_bytes([pair[0], pair[1]])
            } else {
                u16::from_le_bytes([pair[0], pair[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .ok()
    };
    if let Some(body) = bytes.strip_prefix(b"\xEF\xBB\xBF") {
        (String::from_utf8(body.to_vec()).ok(), "UTF-8 with BOM")
    } else if let Some(body) = bytes.strip_prefix(b"\xFF\xFE") {
        (utf16(body, false), "UTF-16LE with BOM")
    } else if let Some(body) = bytes.strip_prefix(b"\xFE\xFF") {
        (utf16(body, true), "UTF-16BE with BOM")
    } else if bytes.len() >= 2 && bytes[0] != 0 && bytes[1] == 0 {
        (utf16(bytes, false), "UTF-16LE")
    } else if bytes.len() >= 2 && bytes[0] == 0 && bytes[1] != 0 {
        (utf16(bytes, true), "UTF-16BE")
    } else {
        (String::from_utf8(bytes.to_vec()).ok(), "UTF-8")
    }
}

/// Whether `name` can stand in a link line as a library: a file name, not an option (`/`, `-`), a
/// response file (`@`), a path, or text with quotes, spaces or control characters.
pub fn is_library_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && !name.starts_with(['/', '-', '@'])
        && !name.contains(['/', '\\', '"', '\'', ':'])
        && !name.chars().any(|c| c.is_whitespace() || c.is_control())
}

/// Checks that a parsed document is shaped like a diagnosis of schema 1: an object with a
/// `schema_version` of 1 and `symbols` and `link_flags` lists.
fn check_shape(value: &Value) -> Result<(), SavedDiagnosisError> {
    let Some(object) = value.as_object() else {
        return Err(SavedDiagnosisError::NotADiagnosis("not an object".into()));
    };
    match object.get("schema_version") {
        None => {
            return Err(SavedDiagnosisError::NotADiagnosis(
                "no schema_version (write it with lnkfix diagnose --format json)".into(),
            ))
        }
        Some(version) if version != 1 => {
            return Err(SavedDiagnosisError::Schema(version.to_string()))
        }
        Some(_) => {}
    }
    for field in ["symbols", "link_flags"] {
        if !object.get(field).is_some_and(Value::is_array) {
            return Err(SavedDiagnosisError::NotADiagnosis(format!(
                "no {field} list"
            )));
        }
    }
    Ok(())
}

/// Checks that the library entries of a diagnosis are library names.
fn check_libraries(diagnosis: &Diagnosis) -> Result<(), SavedDiagnosisError> {
    let not_a_library = |field: &'static str, value: &str| SavedDiagnosisError::NotALibrary {
        field,
        value: value.to_string(),
    };
    for entry in diagnosis.chain.iter().flatten() {
        if !is_library_name(entry) {
            return Err(not_a_library("chain", entry));
        }
    }
    for flag in &diagnosis.link_flags {
        // Options are not added by the patch (it writes its own /LIBPATH:); names must be names.
        if !flag.starts_with('/') && !is_library_name(flag) {
            return Err(not_a_library("link_flags", flag));
        }
    }
    for library in diagnosis
        .symbols
        .iter()
        .filter_map(|s| s.library.as_deref())
    {
        if !is_library_name(library) {
            return Err(not_a_library("symbols[].library", library));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn build_change_splits_the_flags_and_takes_the_libraries_runtime() {
        let diagnosis: Diagnosis = serde_json::from_value(serde_json::json!({
            "link_flags": ["\"/LIBPATH:C:\\Program Files\\HIP\\lib\"", "amdhip64.lib", "/NODEFAULTLIB:libcmt", "ws2_32.lib"],
            "problems": [{
                "kind": "crt-mismatch", "summary": "", "cause": "", "fix": "", "lines": [], "subjects": [],
                "table": [
                    {"subject": "sail-c++.lib(image.obj)", "key": "RuntimeLibrary", "value": "MT_StaticRelease", "flavour": "static"},
                    {"subject": "main.obj", "key": "RuntimeLibrary", "value": "MD_DynamicRelease", "flavour": "dynamic"}
                ]
            }]
        }))
        .unwrap();
        let change = build_change(&diagnosis);
        assert_eq!(change.library_dirs, ["C:\\Program Files\\HIP\\lib"]);
        assert_eq!(change.libraries, ["amdhip64.lib", "ws2_32.lib"]);
        assert_eq!(change.runtime, Some(crate::rules::Flavour::Static));
    }

    #[test]
    fn plan_takes_hip_libraries_and_chain() {
        let diagnosis = serde_json::json!({
            "schema_version": 1,
            "symbols": [
                {"family": "hip-runtime", "library": "amdhip64.lib", "library_path": "C:\\ROCm\\6.4\\lib\\amdhip64.lib"},
                {"family": "windows-system", "library": "User32.Lib", "library_path": null}
            ],
            "verdict": {"kind": "default-lib-chain-absent"},
            "chain": ["msvcrt.lib", "kernel32.lib"],
            "crt": {"flavour": "dynamic", "conflict": null},
            "link_flags": ["amdhip64.lib", "User32.Lib", "tvm_ffi.lib", "msvcrt.lib", "kernel32.lib"]
        });
        let diagnosis: Diagnosis = serde_json::from_value(diagnosis).unwrap();
        let plan = plan_from_diagnosis(&diagnosis, "build.log", false);
        let hip = plan.hip.unwrap();
        assert_eq!(hip.library, "amdhip64.lib");
        assert_eq!(hip.found_dir, Some(PathBuf::from("C:\\ROCm\\6.4\\lib")));
        assert_eq!(plan.libraries.len(), 1);
        assert_eq!(plan.libraries[0].name, "User32.Lib");
        let chain = plan.chain.unwrap();
        assert_eq!(chain.flavour, "dynamic");
        assert_eq!(chain.libraries, ["msvcrt.lib", "kernel32.lib"]);
    }

    #[test]
    fn no_chain_unless_the_verdict_says_so() {
        let diagnosis = serde_json::json!({
            "schema_version": 1, "symbols": [], "verdict": {"kind": "libraries-missing"},
            "chain": ["msvcrt.lib"], "crt": {}, "link_flags": ["advapi32.lib"]
        });
        let diagnosis: Diagnosis = serde_json::from_value(diagnosis).unwrap();
        let plan = plan_from_diagnosis(&diagnosis, "x", false);
        assert!(plan.chain.is_none() && plan.hip.is_none());
        assert_eq!(plan.libraries[0].name, "advapi32.lib");
    }
}
