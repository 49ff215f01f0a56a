//! Finds the choke point every Windows link of tvm-ffi's JIT builder goes through, by structure:
//! a top-level function that writes the ninja file, its Windows branch, and the
//! linker-flags list that branch assigns. No line numbers and no release's exact text are assumed.
//!
//! What the released `tvm_ffi/cpp/extension.py` files look like (all CRLF in the Windows wheels):
//! - 0.1.3–0.1.6: `_generate_ninja_build(name, with_cuda, ...)`; `if IS_WINDOWS:` assigns
//!   `default_ldflags = ["/DLL", f"/LIBPATH:{...}", ...]`; no HIP anywhere.
//! - 0.1.9–0.1.13: `backend` parameter, `with_hip = backend == "hip"`; HIP libraries only in the
//!   Linux `else:` branch.
//! - 0.1.15: the Windows branch adds `cudart.lib` under `if with_cuda:`; `_windows_argument` quotes
//!   `/LIBPATH:` arguments.

use super::python::{has_identifier, leading_identifier, LogicalLine, Scan};

/// What the patch needs to know about the file.
#[derive(Debug, Clone)]
pub(crate) struct ChokePoint {
    /// Name of the ninja-generating function.
    pub function: String,
    /// Physical line (0-based) of its `def`.
    pub function_line: usize,
    /// Physical line (0-based) of the Windows `if` (or `else:` of `if not IS_WINDOWS:`).
    pub branch_line: usize,
    /// First and last physical lines (0-based, inclusive) of the Windows branch body.
    pub body_lines: (usize, usize),
    /// Other Windows branches of the same function (first and last physical lines of each body):
    /// a hand patch may link libraries there.
    pub other_windows_lines: Vec<(usize, usize)>,
    /// Leading whitespace of the statements directly in the branch body.
    pub body_indent: Vec<u8>,
    /// One more level of indentation, as the file writes it.
    pub indent_unit: Vec<u8>,
    /// The linker-flags list the branch assigns (`default_ldflags`).
    pub ldflags_name: String,
    /// Physical line (0-based) of that assignment.
    pub ldflags_line: usize,
    /// `with_hip` is a parameter or is assigned before the branch.
    pub has_with_hip: bool,
    /// The module defines `_windows_argument` at top level.
    pub has_windows_argument: bool,
    /// Top-level `import os` is present.
    pub imports_os: bool,
    /// Top-level `import subprocess` is present.
    pub imports_subprocess: bool,
    /// The function compiles C/C++ with `/MD` (a `"/MD"` literal in it).
    pub compiles_md: bool,
}

/// Why no choke point was found: what was looked for and the closest thing seen.
#[derive(Debug, Clone)]
pub(crate) struct NotFound {
    pub looked_for: String,
    pub closest: String,
}

const LOOKED_FOR: &str =
    "a top-level function that generates the ninja file (`_generate_ninja_build` \
     or another `def` with `ninja` in its name), an `if IS_WINDOWS:` branch in it (also \
     `sys.platform == \"win32\"`, `os.name == \"nt\"`, or the `else:` of `if not IS_WINDOWS:`), \
     and a linker-flags list that branch assigns (`<name>ldflags = [...]`)";

struct Function<'a> {
    name: String,
    def: &'a LogicalLine,
    body: &'a [LogicalLine],
}

/// Finds the choke point in a scanned file.
pub(crate) fn find(scan: &Scan) -> Result<ChokePoint, NotFound> {
    let functions = top_level_functions(&scan.logical);
    let mut candidates: Vec<ChokePoint> = Vec::new();
    let mut closest: Option<String> = None;
    for function in &functions {
        match examine(function, scan) {
            Ok(point) => candidates.push(point),
            Err(Some(partial)) if function.name.contains("ninja") || closest.is_none() => {
                closest = Some(partial);
            }
            Err(_) => {}
        }
    }
    let rank = |point: &ChokePoint| {
        if point.function == "_generate_ninja_build" {
            0
        } else if point.function.contains("ninja") {
            1
        } else {
            2
        }
    };
    candidates.sort_by_key(rank);
    match candidates.into_iter().next() {
        Some(point) if rank(&point) < 2 => Ok(point),
        _ => Err(NotFound {
            looked_for: LOOKED_FOR.to_string(),
            closest: closest.unwrap_or_else(|| {
                let ninja: Vec<&str> = functions
                    .iter()
                    .filter(|function| function.name.contains("ninja"))
                    .map(|function| function.name.as_str())
                    .collect();
                if ninja.is_empty() {
                    "no top-level function with `ninja` in its name".to_string()
                } else {
                    format!("functions {} have no Windows branch", ninja.join(", "))
                }
            }),
        }),
    }
}

fn top_level_functions(logical: &[LogicalLine]) -> Vec<Function<'_>> {
    let mut functions = Vec::new();
    for (index, line) in logical.iter().enumerate() {
        if line.width() != 0 {
            continue;
        }
        let Some(name) = def_name(&line.code) else {
            continue;
        };
        let end = logical[index + 1..]
            .iter()
            .position(|next| next.width() == 0)
            .map_or(logical.len(), |offset| index + 1 + offset);
        functions.push(Function {
            name: name.to_string(),
            def: line,
            body: &logical[index + 1..end],
        });
    }
    functions
}

fn def_name(code: &str) -> Option<&str> {
    let rest = code
        .strip_prefix("async ")
        .map(str::trim_start)
        .unwrap_or(code);
    let rest = rest.strip_prefix("def ")?.trim_start();
    leading_identifier(rest)
}

/// The Windows code under the statement at `index` of the function body, if that statement is a
/// Windows test: the line that opens it (`if` or `else:`) and its statements.
fn windows_body<'f>(
    function: &'f Function<'_>,
    index: usize,
) -> Option<(&'f LogicalLine, &'f [LogicalLine])> {
    let line = function.body.get(index)?;
    let negated = windows_condition(&line.code)?;
    let width = line.width();
    let block_end = |from: usize| {
        function.body[from..]
            .iter()
            .position(|next| next.width() <= width)
            .map_or(function.body.len(), |offset| from + offset)
    };
    if negated {
        let if_end = block_end(index + 1);
        let other = function.body.get(if_end)?;
        (other.width() == width && is_else(&other.code))
            .then(|| (other, &function.body[if_end + 1..block_end(if_end + 1)]))
    } else {
        Some((line, &function.body[index + 1..block_end(index + 1)]))
    }
}

/// `Ok` when the function has the whole choke point; `Err(Some(what))` when it has part of it.
/// Long because it reads the parts of the choke point from one Windows branch one after the
/// other (its body, the ldflags statement, the indentation, the facts around the branch), each
/// part from the ones before it, into the one `ChokePoint` they make.
fn examine(function: &Function<'_>, scan: &Scan) -> Result<ChokePoint, Option<String>> {
    let mut partial = None;
    for index in 0..function.body.len() {
        let Some((branch_line, body)) = windows_body(function, index) else {
            continue;
        };
        let Some(first) = body.first() else {
            continue;
        };
        let body_indent = first.indent.clone();
        let direct: Vec<&LogicalLine> = body
            .iter()
            .filter(|statement| statement.indent == body_indent)
            .collect();
        let Some((ldflags_name, ldflags_line)) = direct.iter().find_map(|statement| {
            ldflags_assignment(&statement.code).map(|name| (name, statement.first))
        }) else {
            partial = Some(format!(
                "function `{}` has a Windows branch (line {}) but it assigns no `...ldflags = [...]` list",
                function.name,
                branch_line.first + 1
            ));
            continue;
        };
        let last = body
            .iter()
            .map(|statement| statement.last)
            .max()
            .unwrap_or(first.last);
        let indent_unit = match body_indent.strip_prefix(branch_line.indent.as_slice()) {
            Some(unit) if !unit.is_empty() => unit.to_vec(),
            _ => b"    ".to_vec(),
        };
        let before_branch = &function.body[..index];
        let has_with_hip = has_identifier(&function.def.code, "with_hip")
            || before_branch.iter().any(|statement| {
                leading_identifier(&statement.code) == Some("with_hip")
                    && statement.code["with_hip".len()..]
                        .trim_start()
                        .starts_with(['=', ':'])
            });
        let module_level = |predicate: &dyn Fn(&str) -> bool| {
            scan.logical
                .iter()
                .any(|statement| statement.width() == 0 && predicate(&statement.code))
        };
        let function_lines = (
            function.def.first,
            function
                .body
                .last()
                .map_or(function.def.last, |statement| statement.last),
        );
        let compiles_md = scan.strings.iter().any(|literal| {
            literal.line >= function_lines.0
                && literal.line <= function_lines.1
                && literal.body == "/MD"
        });
        let other_windows_lines = (0..function.body.len())
            .filter_map(|other| windows_body(function, other))
            .filter(|(other_line, _)| other_line.first != branch_line.first)
            .filter_map(|(_, other_body)| {
                Some((
                    other_body.first()?.first,
                    other_body.iter().map(|s| s.last).max()?,
                ))
            })
            .collect();
        return Ok(ChokePoint {
            other_windows_lines,
            function: function.name.clone(),
            function_line: function.def.first,
            branch_line: branch_line.first,
            body_lines: (first.first, last),
            body_indent,
            indent_unit,
            ldflags_name,
            ldflags_line,
            has_with_hip,
            has_windows_argument: module_level(&|code| def_name(code) == Some("_windows_argument")),
            imports_os: module_level(&|code| imports_module(code, "os")),
            imports_subprocess: module_level(&|code| imports_module(code, "subprocess")),
            compiles_md,
        });
    }
    Err(partial)
}

/// `Some(false)` for `if <windows test>:`, `Some(true)` for `if not <windows test>:` (the Windows
/// code is then in the `else:`), `None` for anything else (compound conditions included).
fn windows_condition(code: &str) -> Option<bool> {
    let rest = code.strip_prefix("if")?;
    if !rest.starts_with([' ', '(']) {
        return None;
    }
    let condition = rest.trim().strip_suffix(':')?.trim();
    if condition.contains(" and ") || condition.contains(" or ") {
        return None;
    }
    let (negated, test) = match condition.strip_prefix("not") {
        Some(after) if after.starts_with([' ', '(']) => (true, after),
        _ => (false, condition),
    };
    let mut test: String = test
        .chars()
        .filter(|character| !character.is_whitespace())
        .map(|character| if character == '\'' { '"' } else { character })
        .collect();
    while let Some(inner) = test
        .strip_prefix('(')
        .and_then(|inner| inner.strip_suffix(')'))
    {
        test = inner.to_string();
    }
    let equal_forms = [
        "sys.platform==\"win32\"",
        "os.name==\"nt\"",
        "platform.system()==\"Windows\"",
        "sys.platform.startswith(\"win\")",
    ];
    let unequal_forms = [
        "sys.platform!=\"win32\"",
        "os.name!=\"nt\"",
        "platform.system()!=\"Windows\"",
    ];
    if is_windows_name(&test) || equal_forms.contains(&test.as_str()) {
        Some(negated)
    } else if unequal_forms.contains(&test.as_str()) {
        Some(!negated)
    } else {
        None
    }
}

/// `IS_WINDOWS`, `_IS_WINDOWS`, `utils.IS_WINDOWS`, `is_windows()`: a name (maybe dotted, maybe
/// called without arguments) whose last part mentions Windows.
fn is_windows_name(test: &str) -> bool {
    let name = test.strip_suffix("()").unwrap_or(test);
    let last = name.rsplit('.').next().unwrap_or(name);
    !name.is_empty()
        && name
            .bytes()
            .all(|byte| byte.is_ascii_alphanumeric() || byte == b'_' || byte == b'.')
        && last.to_ascii_lowercase().contains("windows")
        && !last.to_ascii_lowercase().contains("not")
}

fn is_else(code: &str) -> bool {
    code.strip_prefix("else")
        .map(str::trim_start)
        .is_some_and(|rest| rest == ":")
}

/// `default_ldflags = [` or `ldflags: list[str] = [`: the name, when it ends in `ldflags`.
fn ldflags_assignment(code: &str) -> Option<String> {
    let name = leading_identifier(code)?;
    if !name.to_ascii_lowercase().ends_with("ldflags") {
        return None;
    }
    let mut rest = code[name.len()..].trim_start();
    if let Some(annotated) = rest.strip_prefix(':') {
        rest = annotated
            .split_once('=')
            .map(|(_, value)| value)?
            .trim_start();
        return rest.starts_with('[').then(|| name.to_string());
    }
    let value = rest.strip_prefix('=')?;
    (!value.starts_with('=') && value.trim_start().starts_with('[')).then(|| name.to_string())
}

/// `import os`, `import os, sys`: the module is bound under its own name.
fn imports_module(code: &str, module: &str) -> bool {
    code.strip_prefix("import ")
        .is_some_and(|names| names.split(',').any(|part| part.trim() == module))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_conditions() {
        let cases = [
            ("if IS_WINDOWS:", Some(false)),
            ("if not IS_WINDOWS:", Some(true)),
            ("if (IS_WINDOWS):", Some(false)),
            ("if sys.platform == 'win32':", Some(false)),
            ("if sys.platform != \"win32\":", Some(true)),
            ("if os.name == \"nt\":", Some(false)),
            ("if utils.is_windows():", Some(false)),
            ("if IS_WINDOWS and embed_cubin:", None),
            ("if with_cuda:", None),
            ("if IS_WINDOWS: x = 1", None),
            ("iffy:", None),
        ];
        let failures: Vec<String> = cases
            .iter()
            .filter(|(code, expected)| windows_condition(code) != *expected)
            .map(|(code, expected)| {
                format!(
                    "{code}: expected {expected:?}, got {:?}",
                    windows_condition(code)
                )
            })
            .collect();
        assert!(failures.is_empty(), "{failures:#?}");
    }

    #[test]
    fn ldflags_assignments() {
        assert_eq!(
            ldflags_assignment("default_ldflags = ["),
            Some("default_ldflags".into())
        );
        assert_eq!(
            ldflags_assignment("ldflags: list[str] = ["),
            Some("ldflags".into())
        );
        assert_eq!(ldflags_assignment("default_ldflags += ["), None);
        assert_eq!(ldflags_assignment("default_ldflags == ["), None);
        assert_eq!(ldflags_assignment("default_cflags = ["), None);
    }

    #[test]
    fn imports() {
        assert!(imports_module("import os", "os"));
        assert!(imports_module("import sys, os", "os"));
        assert!(!imports_module("import os.path", "os"));
        assert!(!imports_module("import os as o", "os"));
    }
}
