//! Cargo: a missing library is linked by the crate's build script, `build.rs`, printing
//! `cargo:rustc-link-lib=dylib=NAME` (and `cargo:rustc-link-search=native=DIR` for a directory)
//! when the crate is built for Windows. The lines go first in `fn main`'s body (so no early
//! `return` or `?` skips them), inside
//! `if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("windows") { ... }`: a build script
//! runs on the machine that builds, so `cfg!(windows)` would test that machine, not the target of
//! a cross build; cargo sets `CARGO_CFG_TARGET_OS` to the target's system.
//!
//! `build.rs` is read with a real Rust parser (syn); its byte positions come from
//! proc-macro2's span locations. A crate without a build script gets a new `build.rs` (the edit
//! of a missing file has an empty `before`); cargo runs a `build.rs` at the crate root without
//! being told, so `Cargo.toml` changes only when it says `build = false`.
//!
//! A C runtime mismatch is fixed in `.cargo/config.toml`: Rust links the release CRT, the DLL
//! one (`/MD`) unless `-C target-feature=+crt-static` (`/MT`) is among the target's `rustflags`.
//! The debug runtimes cannot be chosen for Rust code: that change is refused with the reason.
//! `Cargo.toml` and `config.toml` are read and written with toml_edit (layout and comments kept).

use std::path::{Path, PathBuf};

use toml_edit::{Array, Item, Table, Value};

use super::text;
use super::{BuildChange, BuildEditError, EditOutcome, FileEdit, LocateInput, Place};
use crate::read::build_system::BuildSystem;
use crate::rules::Flavour;

/// The target triple whose `rustflags` a runtime change edits.
pub const MSVC_TARGET: &str = "x86_64-pc-windows-msvc";

/// The condition the printed lines are written under: the target's system, not the host's.
pub const WINDOWS_CONDITION: &str =
    "if std::env::var(\"CARGO_CFG_TARGET_OS\").as_deref() == Ok(\"windows\") {";

/// The flag that selects the static C runtime.
const CRT_STATIC: &str = "target-feature=+crt-static";

/// Edits one cargo file for `change`, told by its name: `Cargo.toml` (the manifest: the build
/// script switched on when `build = false`), `config.toml` or `config` (`.cargo/`: the C runtime),
/// anything else is the build script (`build.rs`; empty `source` when it does not exist yet).
/// `target` is the crate's name, for the description. Pure: no I/O.
pub fn edit(
    path: &Path,
    source: &[u8],
    target: Option<&str>,
    change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    let name = path
        .file_name()
        .and_then(|name| name.to_str())
        .unwrap_or("");
    let after = match name.to_ascii_lowercase().as_str() {
        "cargo.toml" => edit_manifest(path, source)?,
        "config.toml" | "config" => edit_config(path, source, change)?,
        _ => edit_build_script(path, source, change)?,
    };
    Ok(match after {
        None => EditOutcome::AlreadyDone,
        Some((after, description)) => EditOutcome::Edited(FileEdit {
            system: BuildSystem::Cargo,
            path: path.to_path_buf(),
            before: source.to_vec(),
            after,
            target: target.map(str::to_string),
            configuration: None,
            description,
        }),
    })
}

/// Finds the failing crate's build script: the crate from the log's last
/// ``could not compile `NAME` `` line (else its last `Compiling NAME vX (DIR)` line), its
/// directory from that `Compiling` line when it exists here, else the `Cargo.toml` below
/// `--build-dir` (or the log's directory; a `target` directory's parent) whose `[package] name`
/// is the crate. The place is the script `[package] build` names, else `build.rs` beside the
/// manifest (existing or not), or the manifest itself when it says `build = false`. `Ok(None)`
/// when the log names no crate or no manifest is found.
pub fn locate(input: &LocateInput<'_>) -> Result<Option<Place>, BuildEditError> {
    if input
        .recognised
        .is_some_and(|r| r.kind != BuildSystem::Cargo)
    {
        return Ok(None);
    }
    let compiling: Vec<(&str, Option<&str>)> =
        input.log.lines().filter_map(compiling_line).collect();
    let failed = input.log.lines().rev().find_map(could_not_compile);
    let Some(name) = failed.or_else(|| compiling.last().map(|(name, _)| *name)) else {
        return Ok(None);
    };
    let printed_dir = compiling
        .iter()
        .rev()
        .find(|(crate_name, _)| *crate_name == name)
        .and_then(|(_, dir)| *dir)
        .map(PathBuf::from)
        .filter(|dir| dir.join("Cargo.toml").is_file());
    let manifest = match printed_dir {
        Some(dir) => dir.join("Cargo.toml"),
        None => {
            let mut roots: Vec<PathBuf> = Vec::new();
            if let Some(dir) = input.build_dir {
                roots.push(dir.to_path_buf());
            }
            if let Some(dir) = input.log_path.and_then(Path::parent) {
                roots.push(dir.to_path_buf());
            }
            let mut found = Vec::new();
            for root in roots {
                let root = match root.file_name().and_then(|n| n.to_str()) {
                    Some("target") => root.parent().map(Path::to_path_buf).unwrap_or(root),
                    _ => root,
                };
                manifests_named(&root, name, 0, &mut found);
                if !found.is_empty() {
                    break;
                }
            }
            match found.as_slice() {
                [] => return Ok(None),
                [only] => only.clone(),
                _ => {
                    return Err(BuildEditError::Ambiguous {
                        path: found[0].clone(),
                        candidates: found.iter().map(|p| p.display().to_string()).collect(),
                    })
                }
            }
        }
    };
    let source = std::fs::read(&manifest).map_err(|error| BuildEditError::Unreadable {
        path: manifest.clone(),
        reason: error.to_string(),
    })?;
    let (_, _, document) = text::parse_toml(&manifest, &source)?;
    let directory = manifest.parent().map(Path::to_path_buf).unwrap_or_default();
    let build = document.get("package").and_then(|p| p.get("build"));
    let file = match build {
        Some(item) if item.as_bool() == Some(false) => manifest.clone(),
        Some(item) => match item.as_str() {
            Some(script) => directory.join(script),
            None => directory.join("build.rs"),
        },
        None => directory.join("build.rs"),
    };
    Ok(Some(Place {
        system: BuildSystem::Cargo,
        file,
        target: Some(name.to_string()),
        configuration: None,
        evidence: format!(
            "the crate `{name}` of the failed build, defined by {}",
            manifest.display()
        ),
    }))
}

/// The crate and directory of a ``Compiling NAME vX.Y.Z (DIR)`` line (the directory is printed
/// for path and workspace crates only).
fn compiling_line(line: &str) -> Option<(&str, Option<&str>)> {
    let rest = line.trim_start().strip_prefix("Compiling ")?;
    let mut words = rest.splitn(3, ' ');
    let name = words.next()?;
    let version = words.next()?;
    if !version.starts_with('v') {
        return None;
    }
    let dir = words
        .next()
        .and_then(|d| d.trim().strip_prefix('('))
        .and_then(|d| d.strip_suffix(')'));
    Some((name, dir))
}

/// The crate of an ``error: could not compile `NAME` `` line.
fn could_not_compile(line: &str) -> Option<&str> {
    let rest = line.split_once("could not compile `")?.1;
    rest.split_once('`').map(|(name, _)| name)
}

/// The `Cargo.toml` files below `directory` (four levels at most; `target`, `.git` and hidden
/// directories skipped) whose `[package] name` is `name`.
fn manifests_named(directory: &Path, name: &str, depth: usize, found: &mut Vec<PathBuf>) {
    let manifest = directory.join("Cargo.toml");
    if let Ok(source) = std::fs::read(&manifest) {
        let named = text::parse_toml(&manifest, &source)
            .ok()
            .and_then(|(_, _, document)| {
                let package = document.get("package")?;
                Some(package.get("name")?.as_str()? == name)
            });
        if named == Some(true) {
            found.push(manifest);
        }
    }
    if depth >= 4 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(directory) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_dir()))
        .map(|entry| entry.path())
        .filter(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n != "target" && !n.starts_with('.'))
        })
        .collect();
    children.sort();
    for child in children {
        manifests_named(&child, name, depth + 1, found);
    }
}

/// The new text and its description, or `None` when nothing is missing.
type Edited = Option<(Vec<u8>, String)>;

/// The `println!` lines for a change, in order: directories first, then libraries.
fn directives(path: &Path, change: &BuildChange) -> Result<Vec<String>, BuildEditError> {
    let mut lines = Vec::new();
    for directory in text::directories(path, change)? {
        lines.push(format!("cargo:rustc-link-search=native={directory}"));
    }
    for stem in text::library_stems(path, change)? {
        // cargo reads `KIND[:MODIFIERS]=NAME[:RENAME]`: a `:` or `=` in the name would be read
        // as something else.
        if stem.contains([':', '=']) {
            return Err(BuildEditError::Unsupported {
                path: path.to_path_buf(),
                reason: format!("{stem:?} cannot be named in a cargo:rustc-link-lib line"),
            });
        }
        lines.push(format!("cargo:rustc-link-lib=dylib={stem}"));
    }
    Ok(lines)
}

/// A `println!` statement printing exactly `line`: a Rust string literal with `\` and `"`
/// escaped and the format string's braces doubled.
fn println_statement(line: &str) -> String {
    let mut literal = String::new();
    for character in line.chars() {
        match character {
            '\\' => literal.push_str("\\\\"),
            '"' => literal.push_str("\\\""),
            '{' => literal.push_str("{{"),
            '}' => literal.push_str("}}"),
            _ => literal.push(character),
        }
    }
    format!("println!(\"{literal}\");")
}

/// Whether the build script already prints `line`: one of its string literals is the line (as a
/// `println!` format string, braces doubled, or plain), in cargo's newer `cargo::` spelling too,
/// or a link-lib without the `dylib=` kind. Comments are not literals: a line commented out
/// does not count.
fn already_printed(literals: &[String], line: &str) -> bool {
    let kindless = line.replacen("=dylib=", "=", 1);
    let forms = [
        line.replacen("cargo:", "cargo::", 1),
        kindless.replacen("cargo:", "cargo::", 1),
        line.to_string(),
        kindless,
    ];
    forms.iter().any(|form| {
        let format_string = form.replace('{', "{{").replace('}', "}}");
        literals.iter().any(|l| *l == *form || *l == format_string)
    })
}

/// The values of every string literal among the tokens (macro arguments included).
fn string_literals(tokens: proc_macro2::TokenStream, values: &mut Vec<String>) {
    for token in tokens {
        match token {
            proc_macro2::TokenTree::Group(group) => string_literals(group.stream(), values),
            proc_macro2::TokenTree::Literal(literal) => {
                let single =
                    proc_macro2::TokenStream::from(proc_macro2::TokenTree::Literal(literal));
                if let Ok(string) = syn::parse2::<syn::LitStr>(single) {
                    values.push(string.value());
                }
            }
            _ => {}
        }
    }
}

/// The build script with the missing lines added first in `fn main` (a new file when `source` is
/// empty).
fn edit_build_script(
    path: &Path,
    source: &[u8],
    change: &BuildChange,
) -> Result<Edited, BuildEditError> {
    if change.libraries.is_empty() && change.library_dirs.is_empty() {
        return Err(text::nothing_to_write(
            path,
            "a build script links libraries; a C runtime is chosen in .cargo/config.toml",
        ));
    }
    let (bom, source_text) = text::decode(path, source, "Rust")?;
    let empty = source_text.trim().is_empty();
    let open = if empty {
        0
    } else {
        main_open_brace(path, source_text)?
    };
    let mut literals = Vec::new();
    if let Ok(tokens) = source_text.parse::<proc_macro2::TokenStream>() {
        string_literals(tokens, &mut literals);
    }
    let missing: Vec<String> = directives(path, change)?
        .into_iter()
        .filter(|line| !already_printed(&literals, line))
        .collect();
    if missing.is_empty() {
        return Ok(None);
    }
    let description = format!("build script: {} for Windows targets", missing.join(", "));
    if empty {
        let mut created = String::from(
            "// Links what the Windows build needs (written by lnkfix).\nfn main() {\n",
        );
        created.push_str(&guarded_block(&missing, "    ", "    ", "\n"));
        created.push_str("}\n");
        return Ok(Some((created.into_bytes(), description)));
    }
    let newline = text::line_ending(source_text);
    let unit = text::indent_unit(source_text);
    let after_brace = &source_text[open + 1..];
    // The rest of the brace's line: only blanks and a comment → insert after that line.
    let rest_of_line = after_brace
        .find('\n')
        .map_or(after_brace, |n| &after_brace[..n]);
    let rest_trimmed = rest_of_line.trim();
    let outer = text::indent_at(source_text, open).to_string();
    let mut edited = String::with_capacity(source_text.len() + 256);
    if after_brace.contains('\n') && (rest_trimmed.is_empty() || rest_trimmed.starts_with("//")) {
        let insert_at = open + 1 + rest_of_line.len() + 1;
        let inner = body_indent(&source_text[insert_at..], &outer, unit);
        edited.push_str(&source_text[..insert_at]);
        edited.push_str(&guarded_block(&missing, &inner, unit, newline));
        edited.push_str(&source_text[insert_at..]);
    } else {
        // `fn main() { ... }` on one line: the block goes on lines of its own after the brace.
        let inner = format!("{outer}{unit}");
        edited.push_str(&source_text[..open + 1]);
        edited.push_str(newline);
        edited.push_str(&guarded_block(&missing, &inner, unit, newline));
        edited.push_str(&inner);
        edited.push_str(after_brace.trim_start_matches([' ', '\t']));
    }
    let mut bytes = bom.to_vec();
    bytes.extend_from_slice(edited.as_bytes());
    Ok(Some((bytes, description)))
}

/// The indentation of `fn main`'s first statement (the first line after the brace with text),
/// else the function's own plus one level.
fn body_indent(body: &str, outer: &str, unit: &str) -> String {
    for line in body.lines() {
        let trimmed = line.trim_start_matches([' ', '\t']);
        if trimmed.trim().is_empty() {
            continue;
        }
        if trimmed.starts_with('}') {
            break;
        }
        return line[..line.len() - trimmed.len()].to_string();
    }
    format!("{outer}{unit}")
}

/// The Windows-only block printing `lines`, each line indented from `indent`, ended by `newline`.
fn guarded_block(lines: &[String], indent: &str, unit: &str, newline: &str) -> String {
    let mut block = format!("{indent}{WINDOWS_CONDITION}{newline}");
    for line in lines {
        block.push_str(&format!(
            "{indent}{unit}{}{newline}",
            println_statement(line)
        ));
    }
    block.push_str(&format!("{indent}}}{newline}"));
    block
}

/// The byte offset of the opening brace of the build script's top-level `fn main`.
fn main_open_brace(path: &Path, source: &str) -> Result<usize, BuildEditError> {
    let file = syn::parse_file(source).map_err(|error| {
        let start = error.span().start();
        BuildEditError::Unparsable {
            path: path.to_path_buf(),
            format: "Rust",
            reason: format!("line {}, column {}: {error}", start.line, start.column + 1),
        }
    })?;
    // (A leading `#!` line, which syn skips, would shift the positions: checked below.)
    let main = file.items.iter().find_map(|item| match item {
        syn::Item::Fn(function) if function.sig.ident == "main" => Some(function),
        _ => None,
    });
    let Some(main) = main else {
        return Err(BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason: "the build script has no top-level fn main".to_string(),
        });
    };
    let offset = main.block.brace_token.span.open().byte_range().start;
    if source.as_bytes().get(offset) != Some(&b'{') {
        return Err(BuildEditError::Unparsable {
            path: path.to_path_buf(),
            format: "Rust",
            reason: "fn main's body was not found where the parser placed it".to_string(),
        });
    }
    Ok(offset)
}

/// `Cargo.toml`: `build = false` turned into `build = "build.rs"`; nothing otherwise (a
/// `build.rs` at the crate root runs without being named, and a named script is the one edited).
fn edit_manifest(path: &Path, source: &[u8]) -> Result<Edited, BuildEditError> {
    let (bom, newline, mut document) = text::parse_toml(path, source)?;
    let Some(package) = document
        .get_mut("package")
        .and_then(Item::as_table_like_mut)
    else {
        return Err(BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason: "a manifest without [package] (a workspace root) has no build script; edit the member crate's".to_string(),
        });
    };
    match package.get("build").and_then(Item::as_bool) {
        Some(false) => {
            let decor = package
                .get("build")
                .and_then(Item::as_value)
                .map(|value| value.decor().clone());
            let mut value = Value::from("build.rs");
            if let Some(decor) = decor {
                *value.decor_mut() = decor;
            }
            package.insert("build", Item::Value(value));
            Ok(Some((
                text::write_toml(bom, newline, &document),
                "manifest: build = \"build.rs\" (was false)".to_string(),
            )))
        }
        _ => Ok(None),
    }
}

/// `.cargo/config.toml`: the static C runtime switched on (`/MT`) or off (`/MD`) in the MSVC
/// target's `rustflags`.
fn edit_config(path: &Path, source: &[u8], change: &BuildChange) -> Result<Edited, BuildEditError> {
    let statically = match change.runtime {
        Some(Flavour::Static) => true,
        Some(Flavour::Dynamic) => false,
        Some(debug) => {
            return Err(BuildEditError::Unsupported {
                path: path.to_path_buf(),
                reason: format!(
                    "Rust code links the release C runtime only; {debug:?} cannot be chosen for it: build the C/C++ objects with /MD or /MT instead"
                ),
            })
        }
        None => {
            return Err(text::nothing_to_write(
                path,
                "cargo's config chooses the C runtime; libraries go in build.rs",
            ))
        }
    };
    let (bom, newline, mut document) = text::parse_toml(path, source)?;
    let targets = document
        .entry("target")
        .or_insert_with(|| {
            let mut table = Table::new();
            table.set_implicit(true);
            Item::Table(table)
        })
        .as_table_like_mut()
        .ok_or_else(|| not_a_table(path, "target"))?;
    let target = targets
        .entry(MSVC_TARGET)
        .or_insert(Item::Table(Table::new()))
        .as_table_like_mut()
        .ok_or_else(|| not_a_table(path, MSVC_TARGET))?;
    let changed = match target.get_mut("rustflags") {
        None if statically => {
            let flags: Array = ["-C", CRT_STATIC].into_iter().collect();
            target.insert("rustflags", Item::Value(Value::Array(flags)));
            true
        }
        None => false,
        Some(item) => set_crt_flag(path, item, statically)?,
    };
    if !changed {
        return Ok(None);
    }
    let description = format!(
        "[target.{MSVC_TARGET}] rustflags: {}",
        if statically {
            "-C target-feature=+crt-static (the /MT runtime)"
        } else {
            "target-feature=-crt-static (the /MD runtime)"
        }
    );
    Ok(Some((
        text::write_toml(bom, newline, &document),
        description,
    )))
}

fn not_a_table(path: &Path, key: &str) -> BuildEditError {
    BuildEditError::Unsupported {
        path: path.to_path_buf(),
        reason: format!("`{key}` is not a table"),
    }
}

/// Sets `+crt-static` in an existing `rustflags` (an array, or a string of flags) or turns it
/// into `-crt-static`; whether anything changed.
fn set_crt_flag(path: &Path, item: &mut Item, statically: bool) -> Result<bool, BuildEditError> {
    let has_static = |flag: &str| flag.ends_with(CRT_STATIC);
    match item.as_value_mut() {
        Some(Value::Array(array)) => {
            let position = array
                .iter()
                .position(|v| v.as_str().is_some_and(has_static));
            match (position, statically) {
                (Some(_), true) | (None, false) => Ok(false),
                (None, true) => {
                    array.push("-C");
                    array.push(CRT_STATIC);
                    Ok(true)
                }
                (Some(index), false) => {
                    let old = array.get(index).and_then(Value::as_str).unwrap_or("");
                    let new = old.replace("+crt-static", "-crt-static");
                    array.replace(index, new);
                    Ok(true)
                }
            }
        }
        Some(Value::String(flags)) => {
            let old = flags.value().clone();
            let present = old.split_whitespace().any(has_static);
            let new = match (present, statically) {
                (true, true) | (false, false) => return Ok(false),
                (false, true) => format!("{} -C {CRT_STATIC}", old.trim_end()),
                (true, false) => old.replace("+crt-static", "-crt-static"),
            };
            *item = Item::Value(Value::from(new));
            Ok(true)
        }
        _ => Err(BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason: "rustflags is neither an array nor a string".to_string(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn libs(names: &[&str], dirs: &[&str]) -> BuildChange {
        BuildChange {
            libraries: names.iter().map(|s| s.to_string()).collect(),
            library_dirs: dirs.iter().map(|s| s.to_string()).collect(),
            runtime: None,
        }
    }

    fn edited(path: &str, source: &[u8], change: &BuildChange) -> String {
        match edit(Path::new(path), source, Some("demo"), change).unwrap() {
            EditOutcome::Edited(edit) => String::from_utf8(edit.after).unwrap(),
            EditOutcome::AlreadyDone => panic!("nothing edited"),
        }
    }

    fn again(path: &str, source: &str, change: &BuildChange) -> EditOutcome {
        edit(Path::new(path), source.as_bytes(), None, change).unwrap()
    }

    const BUILD_RS: &str = "use std::env;\n\n/// Build script.\nfn main() {\n    // the C part\n    let out = env::var(\"OUT_DIR\").unwrap();\n    println!(\"cargo:rerun-if-changed=src/shim.c\");\n    let _ = out;\n}\n";

    #[test]
    fn build_script_gets_guarded_lines_first_in_main() {
        let change = libs(&["python312.lib"], &["C:\\Python312\\libs"]);
        let after = edited("build.rs", BUILD_RS.as_bytes(), &change);
        let expected = "use std::env;\n\n/// Build script.\nfn main() {\n    if std::env::var(\"CARGO_CFG_TARGET_OS\").as_deref() == Ok(\"windows\") {\n        println!(\"cargo:rustc-link-search=native=C:\\\\Python312\\\\libs\");\n        println!(\"cargo:rustc-link-lib=dylib=python312\");\n    }\n    // the C part\n    let out = env::var(\"OUT_DIR\").unwrap();\n";
        assert!(after.starts_with(expected), "{after}");
        assert_eq!(again("build.rs", &after, &change), EditOutcome::AlreadyDone);
        let commented = BUILD_RS.replace(
            "    // the C part\n",
            "    // println!(\"cargo:rustc-link-lib=dylib=python312\");\n",
        );
        let after = edited(
            "build.rs",
            commented.as_bytes(),
            &libs(&["python312.lib"], &[]),
        );
        assert!(after.contains("        println!(\"cargo:rustc-link-lib=dylib=python312\");"));
        let newer = BUILD_RS.replace("rerun-if-changed=src/shim.c", ":rustc-link-lib=python312");
        assert_eq!(
            again("build.rs", &newer, &libs(&["python312.lib"], &[])),
            EditOutcome::AlreadyDone
        );
    }

    #[test]
    fn missing_build_script_is_created_and_manifest_left_alone() {
        let change = libs(&["amdhip64.lib"], &[]);
        let created = edited("build.rs", b"", &change);
        assert!(created.contains("println!(\"cargo:rustc-link-lib=dylib=amdhip64\");"));
        assert!(syn::parse_file(&created).is_ok());
        assert_eq!(
            again("build.rs", &created, &change),
            EditOutcome::AlreadyDone
        );
        let manifest = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\n";
        assert_eq!(
            again("Cargo.toml", manifest, &change),
            EditOutcome::AlreadyDone
        );
        let off = "[package]\r\nname = \"demo\"\r\nbuild = false # no script\r\n";
        let on = edited("Cargo.toml", off.as_bytes(), &change);
        assert_eq!(
            on,
            "[package]\r\nname = \"demo\"\r\nbuild = \"build.rs\" # no script\r\n"
        );
    }

    #[test]
    fn one_line_main_crlf_bom_and_tabs_kept() {
        let change = libs(&["ws2_32.lib"], &[]);
        let source = b"\xEF\xBB\xBFfn main() { helper(); }\r\nfn helper() {}\r\n";
        let after = edited("build.rs", source, &change);
        assert!(after.starts_with('\u{feff}'));
        assert!(after.contains("fn main() {\r\n    if std::env::var"));
        assert!(after.contains("    }\r\n    helper(); }\r\n"), "{after:?}");
        let tabs = "fn main()\n{\n\tcc::Build::new().file(\"a.c\").compile(\"a\");\n}\n";
        let after = edited("build.rs", tabs.as_bytes(), &change);
        assert!(after.contains("{\n\tif std::env::var"), "{after}");
        assert!(
            after.contains("\n\t\tprintln!(\"cargo:rustc-link-lib=dylib=ws2_32\");\n\t}\n\tcc::")
        );
    }

    #[test]
    fn hostile_directory_is_escaped_and_bad_names_refused() {
        let change = libs(&[], &["C:\\a \"b\"\\{x}\\${HOME}\\$(rm -rf)"]);
        let after = edited("build.rs", BUILD_RS.as_bytes(), &change);
        assert!(syn::parse_file(&after).is_ok());
        assert!(after.contains(
            "println!(\"cargo:rustc-link-search=native=C:\\\\a \\\"b\\\"\\\\{{x}}\\\\${{HOME}}\\\\$(rm -rf)\");"
        ));
        for bad in [
            libs(&[], &["C:\\a\nb"]),
            libs(&["a:b.lib"], &[]),
            libs(&["x/y.lib"], &[]),
        ] {
            let result = edit(Path::new("build.rs"), BUILD_RS.as_bytes(), None, &bad);
            assert!(
                matches!(result, Err(BuildEditError::Unsupported { .. })),
                "{result:?}"
            );
        }
    }

    #[test]
    fn unparsable_or_mainless_scripts_are_refused() {
        let change = libs(&["a.lib"], &[]);
        let broken = edit(Path::new("build.rs"), b"fn main( {", None, &change);
        assert!(
            matches!(broken, Err(BuildEditError::Unparsable { .. })),
            "{broken:?}"
        );
        let mainless = edit(Path::new("build.rs"), b"fn helper() {}", None, &change);
        assert!(matches!(mainless, Err(BuildEditError::Unsupported { .. })));
    }

    #[test]
    fn crt_static_in_config() {
        let change = BuildChange {
            runtime: Some(Flavour::Static),
            ..BuildChange::default()
        };
        let after = edited(
            ".cargo/config.toml",
            b"# mine\n[build]\njobs = 2\n",
            &change,
        );
        assert!(after.starts_with("# mine\n[build]\njobs = 2\n"));
        assert!(after.contains("[target.x86_64-pc-windows-msvc]\nrustflags = [\"-C\", \"target-feature=+crt-static\"]\n"), "{after}");
        assert_eq!(
            again("config.toml", &after, &change),
            EditOutcome::AlreadyDone
        );
        let existing =
            "[target.x86_64-pc-windows-msvc]\nrustflags = [\"-C\", \"link-arg=/DEBUG\"]\n";
        let after = edited("config.toml", existing.as_bytes(), &change);
        assert!(
            after.contains("\"link-arg=/DEBUG\", \"-C\", \"target-feature=+crt-static\"]"),
            "{after}"
        );
        let dynamic = BuildChange {
            runtime: Some(Flavour::Dynamic),
            ..BuildChange::default()
        };
        let after = edited("config.toml", after.as_bytes(), &dynamic);
        assert!(after.contains("\"target-feature=-crt-static\""), "{after}");
        assert_eq!(
            again("config.toml", &after, &dynamic),
            EditOutcome::AlreadyDone
        );
        let debug = BuildChange {
            runtime: Some(Flavour::DynamicDebug),
            ..BuildChange::default()
        };
        assert!(edit(Path::new("config.toml"), b"", None, &debug).is_err());
    }
}
