//! meson: a missing library is added to the failing target's `link_args`, for Windows only:
//! `link_args: host_machine.system() == 'windows' ? ['-LDIR', '-lpython312'] : []`, on the
//! `executable(...)`, `shared_library(...)`, `shared_module(...)`, `library(...)`,
//! `both_libraries(...)` or `py.extension_module(...)` call whose first argument is the target.
//!
//! Why this idiom: it is one keyword on that target only, it needs no compiler object or
//! variable defined elsewhere, and it changes nothing on other systems. meson turns the
//! Unix-style `-L`/`-l` into `/LIBPATH:` and `NAME.lib` for MSVC-style linkers (link.exe,
//! lld-link, clang-cl) and passes them on as they are to MinGW, so the same line serves both.
//! The other idiom, `dependencies: [cc.find_library('x', dirs: [...])]`, needs a compiler object
//! of the project's language and fails at configure time on a machine without the library; the
//! guarded `link_args` is smaller. When the target has `link_args` already, the guarded list is
//! added to it (`link_args: ['-x'] + (host_machine.system() == 'windows' ? [...] : [])`), and a
//! guarded list lnkfix wrote before is extended.
//!
//! `meson.build` is read by a small hand-written tokenizer (meson's own parser is Python, and no
//! Rust crate reads the format): strings (`'...'`, `'''...'''`, `f'...'`), `#` comments,
//! names and punctuation, each with its byte range; calls and their arguments are found on the
//! tokens. Values are written as `'...'` strings with `\` and `'` escaped; a line break is
//! refused.

use std::ops::Range;
use std::path::{Path, PathBuf};

use super::text::{self, Insertions};
use super::{BuildChange, BuildEditError, EditOutcome, FileEdit, LocateInput, Place};
use crate::read::build_system::BuildSystem;

/// The functions that define a linked target.
const TARGET_FUNCTIONS: [&str; 6] = [
    "executable",
    "shared_library",
    "shared_module",
    "library",
    "both_libraries",
    "extension_module",
];

/// The test written before the Windows-only list.
pub const WINDOWS_TEST: &str = "host_machine.system() == 'windows'";

/// Edits `meson.build` for `change`: the target named `target` (exactly, or as its output file
/// names it: `foo` for `libfoo.dll` or `foo.cp312-win_amd64.pyd`), or the only one. Pure.
pub fn edit(
    path: &Path,
    source: &[u8],
    target: Option<&str>,
    change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    if change.libraries.is_empty() && change.library_dirs.is_empty() {
        return Err(text::nothing_to_write(
            path,
            "meson.build links libraries; a C runtime is meson's b_vscrt option",
        ));
    }
    let mut wanted: Vec<String> = text::directories(path, change)?
        .into_iter()
        .map(|directory| format!("-L{directory}"))
        .collect();
    wanted.extend(
        text::library_stems(path, change)?
            .into_iter()
            .map(|stem| format!("-l{stem}")),
    );
    let (bom, source_text) = text::decode(path, source, "meson")?;
    let tokens = tokenize(path, source_text)?;
    let calls = find_calls(source_text, &tokens);
    let call = choose(path, &calls, target)?;
    let layout = text::Layout {
        newline: text::line_ending(source_text),
        unit: text::indent_unit(source_text),
    };
    let Some((insertions, added)) =
        link_args_insertions(source_text, &tokens, call, &wanted, layout)
    else {
        return Ok(EditOutcome::AlreadyDone);
    };
    let edited = text::splice(source_text, insertions);
    let again = tokenize(path, &edited)?;
    if find_calls(&edited, &again).len() != calls.len() {
        return Err(BuildEditError::Unparsable {
            path: path.to_path_buf(),
            format: "meson",
            reason: "the edit would change the file's targets; nothing written".to_string(),
        });
    }
    let mut after = bom.to_vec();
    after.extend_from_slice(edited.as_bytes());
    Ok(EditOutcome::Edited(FileEdit {
        system: BuildSystem::Meson,
        path: path.to_path_buf(),
        before: source.to_vec(),
        after,
        target: Some(call.name.clone()),
        configuration: None,
        description: format!(
            "{}('{}'): link_args for Windows: {}",
            call.function,
            call.name,
            added.join(" ")
        ),
    }))
}

/// Finds `meson.build` and the failing target: the build directory (`--build-dir`, else the
/// log's directory) names the source directory in `meson-info/meson-info.json`; the failed
/// link's output (`src/foo.dll`) names the subdirectory whose `meson.build` defines it and the
/// target (`foo`). `Ok(None)` when no meson build directory is there.
pub fn locate(input: &LocateInput<'_>) -> Result<Option<Place>, BuildEditError> {
    if input
        .recognised
        .is_some_and(|r| r.kind != BuildSystem::Meson)
    {
        return Ok(None);
    }
    let Some(build_dir) = input
        .build_dir
        .or_else(|| input.log_path.and_then(Path::parent))
    else {
        return Ok(None);
    };
    let info = build_dir.join("meson-info").join("meson-info.json");
    let Ok(json) = std::fs::read(&info) else {
        return Ok(None);
    };
    let parsed: serde_json::Value =
        serde_json::from_slice(&json).map_err(|error| BuildEditError::Unparsable {
            path: info.clone(),
            format: "JSON",
            reason: error.to_string(),
        })?;
    let Some(source_dir) = parsed
        .pointer("/directories/source")
        .and_then(serde_json::Value::as_str)
    else {
        return Ok(None);
    };
    let output = input.output.map(|o| o.replace('\\', "/"));
    let (subdir, target) = match output.as_deref() {
        Some(output) => {
            let (dir, file) = output.rsplit_once('/').unwrap_or(("", output));
            (dir.to_string(), Some(file.to_string()))
        }
        None => (String::new(), None),
    };
    let mut file = PathBuf::from(source_dir);
    if !subdir.is_empty() && !subdir.split('/').any(|part| part == "..") {
        file.push(&subdir);
    }
    file.push("meson.build");
    Ok(Some(Place {
        system: BuildSystem::Meson,
        file,
        target,
        configuration: None,
        evidence: format!("{} names the source directory", info.display()),
    }))
}

/// A token of `meson.build`.
#[derive(Debug, Clone, PartialEq)]
enum Kind {
    /// A string literal and its value (`None` for an f-string or a multi-line string).
    Str(Option<String>),
    /// A name or a number.
    Word,
    /// One punctuation character.
    Punct(u8),
}

/// A token and its byte range.
#[derive(Debug, Clone)]
struct Token {
    kind: Kind,
    range: Range<usize>,
}

/// The file's tokens, without blanks and comments.
fn tokenize(path: &Path, source: &str) -> Result<Vec<Token>, BuildEditError> {
    let bytes = source.as_bytes();
    let mut tokens = Vec::new();
    let mut position = 0;
    let error = |position: usize, what: &str| BuildEditError::Unparsable {
        path: path.to_path_buf(),
        format: "meson",
        reason: format!("line {}: {what}", text::line_number(bytes, position)),
    };
    while let Some(&byte) = bytes.get(position) {
        let start = position;
        match byte {
            b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' => position += 1,
            b'\\' if bytes.get(position + 1) == Some(&b'\n') => position += 2,
            b'#' => {
                position += source[position..]
                    .find('\n')
                    .unwrap_or(source.len() - position)
            }
            b'\'' => {
                let (end, value) = string_end(bytes, position)
                    .ok_or_else(|| error(start, "a string is never closed"))?;
                position = end;
                tokens.push(Token {
                    kind: Kind::Str(value),
                    range: start..end,
                });
            }
            _ if byte.is_ascii_alphanumeric() || byte == b'_' => {
                position += bytes[position..]
                    .iter()
                    .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
                    .count();
                if &source[start..position] == "f" && bytes.get(position) == Some(&b'\'') {
                    let (end, _) = string_end(bytes, position)
                        .ok_or_else(|| error(start, "a string is never closed"))?;
                    position = end;
                    tokens.push(Token {
                        kind: Kind::Str(None),
                        range: start..end,
                    });
                } else {
                    tokens.push(Token {
                        kind: Kind::Word,
                        range: start..position,
                    });
                }
            }
            _ if byte.is_ascii() => {
                position += 1;
                tokens.push(Token {
                    kind: Kind::Punct(byte),
                    range: start..position,
                });
            }
            _ => {
                return Err(error(
                    start,
                    "a character outside strings and comments that meson does not read",
                ))
            }
        }
    }
    Ok(tokens)
}

/// The end of the string starting at `start` and its value (for a one-line string).
fn string_end(bytes: &[u8], start: usize) -> Option<(usize, Option<String>)> {
    if bytes[start..].starts_with(b"'''") {
        let close = bytes[start + 3..].windows(3).position(|w| w == b"'''")?;
        return Some((start + 3 + close + 3, None));
    }
    let mut position = start + 1;
    while let Some(&byte) = bytes.get(position) {
        match byte {
            b'\\' => position += 2,
            b'\n' => return None,
            b'\'' => {
                let body = String::from_utf8_lossy(&bytes[start + 1..position]);
                return Some((
                    position + 1,
                    Some(crate::fix::patch::python::unescape(&body)),
                ));
            }
            _ => position += 1,
        }
    }
    None
}

/// A target-defining call.
#[derive(Debug)]
struct Call {
    /// The function called (`shared_module`).
    function: String,
    /// The target's name (its first argument).
    name: String,
    /// Token indices of the parentheses.
    open: usize,
    close: usize,
    /// Each argument's token range and its keyword.
    arguments: Vec<(Range<usize>, Option<String>)>,
}

/// Every call of a target-defining function whose first argument is a plain string.
fn find_calls(source: &str, tokens: &[Token]) -> Vec<Call> {
    (0..tokens.len())
        .filter(|&index| {
            tokens[index].kind == Kind::Word
                && TARGET_FUNCTIONS.contains(&&source[tokens[index].range.clone()])
                && tokens.get(index + 1).map(|t| &t.kind) == Some(&Kind::Punct(b'('))
        })
        .filter_map(|index| read_call(source, tokens, index))
        .collect()
}

/// The call whose function name is the token at `index`, its arguments split at top-level
/// commas.
fn read_call(source: &str, tokens: &[Token], index: usize) -> Option<Call> {
    let open = index + 1;
    let mut depth = 0usize;
    let mut pieces = Vec::new();
    let mut start = open + 1;
    let mut position = open + 1;
    let close = loop {
        match tokens.get(position)?.kind {
            Kind::Punct(b'(' | b'[' | b'{') => depth += 1,
            Kind::Punct(b')') if depth == 0 => {
                if start < position {
                    pieces.push(start..position);
                }
                break position;
            }
            Kind::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            Kind::Punct(b',') if depth == 0 => {
                pieces.push(start..position);
                start = position + 1;
            }
            _ => {}
        }
        position += 1;
    };
    let arguments: Vec<(Range<usize>, Option<String>)> = pieces
        .into_iter()
        .map(|range| {
            let keyword = (range.len() >= 2
                && tokens[range.start].kind == Kind::Word
                && tokens[range.start + 1].kind == Kind::Punct(b':'))
            .then(|| source[tokens[range.start].range.clone()].to_string());
            (range, keyword)
        })
        .collect();
    let (first, None) = arguments.first()? else {
        return None;
    };
    let Kind::Str(Some(name)) = (first.len() == 1).then(|| &tokens[first.start].kind)? else {
        return None;
    };
    Some(Call {
        function: source[tokens[index].range.clone()].to_string(),
        name: name.clone(),
        open,
        close,
        arguments,
    })
}

/// The call that defines `target`, or the only one.
fn choose<'a>(
    path: &Path,
    calls: &'a [Call],
    target: Option<&str>,
) -> Result<&'a Call, BuildEditError> {
    let candidates = || calls.iter().map(|c| c.name.clone()).collect::<Vec<_>>();
    let found: Vec<&Call> = match target {
        None => calls.iter().collect(),
        Some(target) => {
            let exact: Vec<&Call> = calls.iter().filter(|c| c.name == target).collect();
            if exact.is_empty() {
                let stem = output_stem(target);
                calls
                    .iter()
                    .filter(|c| output_stem(&c.name) == stem)
                    .collect()
            } else {
                exact
            }
        }
    };
    match (found.as_slice(), target) {
        ([only], _) => Ok(only),
        ([], Some(target)) => Err(BuildEditError::TargetNotFound {
            path: path.to_path_buf(),
            target: target.to_string(),
            candidates: candidates(),
        }),
        ([], None) => Err(BuildEditError::TargetNotFound {
            path: path.to_path_buf(),
            target: "a linked target".to_string(),
            candidates: Vec::new(),
        }),
        _ => Err(BuildEditError::Ambiguous {
            path: path.to_path_buf(),
            candidates: candidates(),
        }),
    }
}

/// A target or output name as meson derives file names: up to the first dot, without `lib`.
fn output_stem(name: &str) -> &str {
    let stem = name.split('.').next().unwrap_or(name);
    stem.strip_prefix("lib")
        .filter(|s| !s.is_empty())
        .unwrap_or(stem)
}

/// A meson string literal of exactly `value`.
fn literal(value: &str) -> String {
    format!("'{}'", value.replace('\\', "\\\\").replace('\'', "\\'"))
}

/// The insertions that make the call link `wanted` on Windows, and what they add; `None` when
/// its `link_args` hold them all.
fn link_args_insertions(
    source: &str,
    tokens: &[Token],
    call: &Call,
    wanted: &[String],
    layout: text::Layout<'_>,
) -> Option<(Insertions, Vec<String>)> {
    let bytes_of =
        |range: &Range<usize>| tokens[range.start].range.start..tokens[range.end - 1].range.end;
    let existing = call
        .arguments
        .iter()
        .find(|(_, keyword)| keyword.as_deref() == Some("link_args"));
    let present: Vec<&str> = existing
        .map(|(range, _)| {
            tokens[range.clone()]
                .iter()
                .filter_map(|t| match &t.kind {
                    Kind::Str(Some(value)) => Some(value.as_str()),
                    _ => None,
                })
                .collect()
        })
        .unwrap_or_default();
    let missing: Vec<String> = wanted
        .iter()
        .filter(|w| !present.contains(&w.as_str()))
        .cloned()
        .collect();
    if missing.is_empty() {
        return None;
    }
    let literals: Vec<String> = missing.iter().map(|m| literal(m)).collect();
    let guarded = format!("{WINDOWS_TEST} ? [{}] : []", literals.join(", "));
    let insertions = match existing {
        None => {
            let last = call.arguments.last().map(|(range, _)| bytes_of(range));
            text::add_items(
                source,
                tokens[call.open].range.start,
                tokens[call.close].range.start,
                last,
                &[format!("link_args: {guarded}")],
                layout,
            )
        }
        Some((range, _)) => match guarded_list(tokens, range.clone()) {
            Some((open, close, last)) => text::add_items(
                source,
                tokens[open].range.start,
                tokens[close].range.start,
                last.map(|r| bytes_of(&r)),
                &literals,
                layout,
            ),
            None => vec![(bytes_of(range).end, format!(" + ({guarded})"))],
        },
    };
    Some((insertions, missing))
}

/// In a `link_args` argument, the list of a `... == 'windows' ? [...]` test: its brackets' token
/// indices and its last element's token range.
fn guarded_list(
    tokens: &[Token],
    range: Range<usize>,
) -> Option<(usize, usize, Option<Range<usize>>)> {
    let windows = (range.start..range.end.saturating_sub(2)).find(|&i| {
        tokens[i].kind == Kind::Str(Some("windows".to_string()))
            && tokens[i + 1].kind == Kind::Punct(b'?')
            && tokens[i + 2].kind == Kind::Punct(b'[')
    })?;
    let open = windows + 2;
    let mut depth = 0usize;
    let mut start = open + 1;
    let mut last = None;
    for (index, token) in tokens.iter().enumerate().take(range.end).skip(open + 1) {
        match token.kind {
            Kind::Punct(b'(' | b'[' | b'{') => depth += 1,
            Kind::Punct(b']') if depth == 0 => {
                if start < index {
                    last = Some(start..index);
                }
                return Some((open, index, last));
            }
            Kind::Punct(b')' | b']' | b'}') => depth = depth.saturating_sub(1),
            Kind::Punct(b',') if depth == 0 => {
                last = Some(start..index);
                start = index + 1;
            }
            _ => {}
        }
    }
    None
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
        let path = Path::new("meson.build");
        match edit(path, source.as_bytes(), target, change).unwrap() {
            EditOutcome::Edited(edited) => {
                let after = String::from_utf8(edited.after).unwrap();
                let again = edit(path, after.as_bytes(), target, change).unwrap();
                assert_eq!(again, EditOutcome::AlreadyDone, "not idempotent:\n{after}");
                after
            }
            EditOutcome::AlreadyDone => panic!("nothing edited"),
        }
    }

    /// Three linked targets (one a Python extension) and a static library.
    const MESON: &str = r#"project('demo', 'c', 'cpp')
py = import('python').find_installation()
# The extension and a helper tool.
py.extension_module('_speedups', 'src/speedups.c', install: true)
helper = executable('helper', ['tools/helper.c'],
  link_args: ['-Wl,--as-needed'],   # GNU ld only
)
lib = shared_library('core', 'src/core.c',
  link_args: host_machine.system() == 'windows' ? ['-lws2_32'] : [],
  version: '1.0.0')
static_library('notlinked', 'x.c')
"#;

    #[test]
    fn guarded_link_args_added_appended_or_extended() {
        let after = run(
            MESON,
            Some("_speedups"),
            &change(&["python312.lib"], &["C:\\Py\\libs"]),
        );
        assert!(after.contains("py.extension_module('_speedups', 'src/speedups.c', install: true, link_args: host_machine.system() == 'windows' ? ['-LC:\\\\Py\\\\libs', '-lpython312'] : [])\n"), "{after}");
        let after = run(MESON, Some("helper"), &change(&["amdhip64.lib"], &[]));
        assert!(after.contains("  link_args: ['-Wl,--as-needed'] + (host_machine.system() == 'windows' ? ['-lamdhip64'] : []),   # GNU ld only\n"), "{after}");
        let more = run(
            &after,
            Some("helper"),
            &change(&["amdhip64.lib", "hiprtc.lib"], &[]),
        );
        assert!(
            more.contains("? ['-lamdhip64', '-lhiprtc'] : [])"),
            "{more}"
        );
        let after = run(MESON, Some("core"), &change(&["python312.lib"], &[]));
        assert!(
            after.contains("? ['-lws2_32', '-lpython312'] : [],\n"),
            "{after}"
        );
    }

    #[test]
    fn targets_by_output_name_and_ambiguity() {
        let lib = change(&["a.lib"], &[]);
        for output in ["core.dll", "libcore.dll", "core"] {
            let result = edit(
                Path::new("meson.build"),
                MESON.as_bytes(),
                Some(output),
                &lib,
            )
            .unwrap();
            assert!(
                matches!(result, EditOutcome::Edited(e) if e.target.as_deref() == Some("core"))
            );
        }
        let pyd = edit(
            Path::new("meson.build"),
            MESON.as_bytes(),
            Some("_speedups.cp312-win_amd64.pyd"),
            &lib,
        );
        assert!(matches!(pyd, Ok(EditOutcome::Edited(_))));
        let ambiguous = edit(Path::new("meson.build"), MESON.as_bytes(), None, &lib);
        assert_eq!(
            ambiguous,
            Err(BuildEditError::Ambiguous {
                path: "meson.build".into(),
                candidates: vec!["_speedups".into(), "helper".into(), "core".into()],
            })
        );
        let static_only = edit(
            Path::new("meson.build"),
            MESON.as_bytes(),
            Some("notlinked"),
            &lib,
        );
        assert!(matches!(
            static_only,
            Err(BuildEditError::TargetNotFound { .. })
        ));
    }

    #[test]
    fn crlf_bom_hostile_values_and_broken_files() {
        let crlf = format!("\u{feff}{}", MESON.replace('\n', "\r\n"));
        let after = run(&crlf, Some("helper"), &change(&["x.lib"], &[]));
        assert!(after.starts_with('\u{feff}') && !after.replace("\r\n", "").contains('\n'));
        let hostile = "C:\\it's\\$(x)\\@VAR@\\'''\\f'{x}'";
        let after = run(MESON, Some("helper"), &change(&[], &[hostile]));
        let tokens = tokenize(Path::new("m"), &after).unwrap();
        let wanted = Kind::Str(Some(format!("-L{hostile}")));
        assert!(tokens.iter().any(|t| t.kind == wanted), "{after}");
        let newline = edit(
            Path::new("meson.build"),
            MESON.as_bytes(),
            Some("helper"),
            &change(&[], &["a\nb"]),
        );
        assert!(matches!(newline, Err(BuildEditError::Unsupported { .. })));
        let broken = edit(
            Path::new("meson.build"),
            b"executable('a\n",
            None,
            &change(&["a.lib"], &[]),
        );
        assert!(
            matches!(broken, Err(BuildEditError::Unparsable { .. })),
            "{broken:?}"
        );
    }
}
