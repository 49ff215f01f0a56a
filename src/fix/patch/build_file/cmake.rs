//! CMake: `target_link_libraries`, `target_link_directories` and the `MSVC_RUNTIME_LIBRARY`
//! property of the failing target, written into the `CMakeLists.txt` that defines it.
//!
//! The file is read with a hand-written scanner (`cmake_lang.rs`: no Rust crate parses CMake's
//! language). Decisions:
//! - **Where.** Right after the target's `add_executable`/`add_library` (so inside the same
//!   `if()` block as the definition), at its indentation, with its line ending.
//! - **Guard.** Libraries and directories go inside `if(WIN32)`: they are Windows import
//!   libraries, and a `CMakeLists.txt` is meant to configure on every platform, which lnkfix
//!   cannot rule out. No guard when the definition is already inside `if(WIN32)`/`if(MSVC)`.
//!   An existing `target_link_libraries` of the target inside such a branch, whose last keyword
//!   is not `INTERFACE`, is extended instead of adding a second call.
//! - **Signature.** CMake refuses to mix `target_link_libraries(t PRIVATE x)` with the plain
//!   `target_link_libraries(t x)` for one target: the new call uses the plain form when the
//!   target's calls already do, else `PRIVATE`.
//! - **Names.** `shlwapi.lib` is written `shlwapi` (CMake adds `.lib`); a directory with `/`
//!   for `\` (CMake reads `\` as an escape), quoted; a `;` (CMake's list separator) or a
//!   control character is refused.
//! - **Runtime.** `set_property(TARGET t PROPERTY MSVC_RUNTIME_LIBRARY "...")`: for a release
//!   flavour the generator expression that keeps Debug builds on the debug runtime
//!   (`MultiThreaded$<$<CONFIG:Debug>:Debug>DLL`), for a debug flavour its fixed name. Needs
//!   policy CMP0091 (`cmake_minimum_required(VERSION 3.15)` or later); the description says so
//!   when the file asks for less. No `if()`: other compilers ignore the property.
//! - **Idempotence.** A library named by any `target_link_libraries` of the target (with or
//!   without `.lib`, any case), a directory by any `target_link_directories`, and the same
//!   runtime value already set are not written again.

use std::path::{Path, PathBuf};

use super::cmake_lang::{self, Arg, Command};
use super::{BuildChange, BuildEditError, EditOutcome, FileEdit, LocateInput, Place};
use crate::read::build_system::BuildSystem;
use crate::rules::Flavour;

/// Keywords of `target_link_libraries`' keyword signature.
const KEYWORDS: &[&str] = &[
    "PRIVATE",
    "PUBLIC",
    "INTERFACE",
    "LINK_PRIVATE",
    "LINK_PUBLIC",
    "LINK_INTERFACE_LIBRARIES",
];

/// A target defined in the file.
#[derive(Debug, Clone)]
struct Definition {
    name: String,
    /// Index of its `add_*` command.
    command: usize,
    /// Whether it links (an executable, or a shared/module library, or one whose type follows
    /// `BUILD_SHARED_LIBS`); static, object, interface, imported and alias targets do not.
    links: bool,
}

fn definitions(commands: &[Command]) -> Vec<Definition> {
    let mut found = Vec::new();
    for (index, command) in commands.iter().enumerate() {
        let executable = command.name == "add_executable";
        if !(executable || command.name == "add_library") {
            continue;
        }
        let Some(name) = command.args.first() else {
            continue;
        };
        let words: Vec<String> = command.args[1..]
            .iter()
            .map(|a| a.text.to_ascii_uppercase())
            .collect();
        // Imported and alias targets are not built here; a name made of variables (inside a
        // function or macro) is not one target.
        if words.iter().any(|w| w == "IMPORTED" || w == "ALIAS") || name.text.contains("${") {
            continue;
        }
        let static_kind = ["STATIC", "OBJECT", "INTERFACE"];
        let links = executable || !words.iter().any(|w| static_kind.contains(&w.as_str()));
        found.push(Definition {
            name: name.text.clone(),
            command: index,
            links,
        });
    }
    found
}

/// The targets a file defines that link (executables, shared and module libraries).
pub fn linked_targets(source: &[u8]) -> Vec<String> {
    cmake_lang::scan(source)
        .map(|commands| {
            definitions(&commands)
                .into_iter()
                .filter(|d| d.links)
                .map(|d| d.name)
                .collect()
        })
        .unwrap_or_default()
}

/// Whether each command is inside an `if(WIN32)`/`if(MSVC)` branch.
fn windows_guarded(commands: &[Command]) -> Vec<bool> {
    let is_windows = |args: &[Arg]| {
        args.len() == 1 && ["WIN32", "MSVC"].contains(&args[0].text.to_ascii_uppercase().as_str())
    };
    let mut stack: Vec<bool> = Vec::new();
    commands
        .iter()
        .map(|command| {
            let inside = stack.iter().any(|&w| w);
            match command.name.as_str() {
                "if" => stack.push(is_windows(&command.args)),
                "elseif" => {
                    if let Some(top) = stack.last_mut() {
                        *top = is_windows(&command.args);
                    }
                }
                "else" => {
                    if let Some(top) = stack.last_mut() {
                        *top = false;
                    }
                }
                "endif" => {
                    stack.pop();
                }
                _ => {}
            }
            inside
        })
        .collect()
}

fn same_library(written: &str, wanted: &str) -> bool {
    let strip = |s: &str| {
        let lower = s.to_ascii_lowercase();
        lower.strip_suffix(".lib").unwrap_or(&lower).to_string()
    };
    strip(written) == strip(wanted)
}

/// The name CMake is given for a library file (`shlwapi.lib` → `shlwapi`).
fn cmake_library_name(library: &str) -> &str {
    let lower = library.to_ascii_lowercase();
    if lower.ends_with(".lib") {
        &library[..library.len() - 4]
    } else {
        library
    }
}

/// A directory as a CMake quoted argument, or why it cannot be one.
fn quoted_dir(dir: &str) -> Result<String, String> {
    if dir.contains(';') || dir.chars().any(char::is_control) {
        return Err(format!(
            "library directory {dir:?} holds a ';' or a control character, which CMake cannot take as one path"
        ));
    }
    let mut out = String::from("\"");
    for c in dir.chars() {
        match c {
            '\\' => out.push('/'),
            '"' | '$' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out.push('"');
    Ok(out)
}

/// The `MSVC_RUNTIME_LIBRARY` value for a flavour (see the module doc).
fn runtime_value(flavour: Flavour) -> &'static str {
    match flavour {
        Flavour::Static => "MultiThreaded$<$<CONFIG:Debug>:Debug>",
        Flavour::Dynamic => "MultiThreaded$<$<CONFIG:Debug>:Debug>DLL",
        Flavour::StaticDebug => "MultiThreadedDebug",
        Flavour::DynamicDebug => "MultiThreadedDebugDLL",
    }
}

/// The file's text split into what an edit needs.
struct Parsed<'a> {
    source: &'a [u8],
    commands: Vec<Command>,
    guarded: Vec<bool>,
}

impl Parsed<'_> {
    /// The start of the line holding `at`, and that line's leading whitespace.
    fn indentation(&self, at: usize) -> (usize, String) {
        let start = self.source[..at]
            .iter()
            .rposition(|&b| b == b'\n')
            .map_or(0, |p| p + 1);
        let indent: String = self.source[start..at]
            .iter()
            .take_while(|&&b| b == b' ' || b == b'\t')
            .map(|&b| b as char)
            .collect();
        (start, indent)
    }

    /// The end of the line holding `at` (after its line ending, or the file's end), and the
    /// line ending to write (the file's, `\n` when the line has none).
    fn line_end(&self, at: usize) -> (usize, &'static str, bool) {
        match self.source[at..].iter().position(|&b| b == b'\n') {
            Some(p) => {
                let crlf = p > 0 && self.source[at + p - 1] == b'\r';
                (at + p + 1, if crlf { "\r\n" } else { "\n" }, true)
            }
            None => {
                let crlf = self.source.windows(2).any(|w| w == b"\r\n");
                (self.source.len(), if crlf { "\r\n" } else { "\n" }, false)
            }
        }
    }

    fn calls_of<'b>(
        &'b self,
        name: &'b str,
        target: &'b str,
    ) -> impl Iterator<Item = (usize, &'b Command)> + 'b {
        self.commands.iter().enumerate().filter(move |(_, c)| {
            c.name == name && c.args.first().is_some_and(|a| a.text == target)
        })
    }
}

/// One splice: replace `range` with `text`.
struct Splice {
    at: (usize, usize),
    text: String,
}

/// Edits `CMakeLists.txt` (see the module doc). `target`: the failing target; `None` picks the
/// only linking target the file defines, and refuses with the candidates when there are several.
pub fn edit(
    path: &Path,
    source: &[u8],
    target: Option<&str>,
    change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    let commands = cmake_lang::scan(source).map_err(|e| BuildEditError::Unparsable {
        path: path.to_path_buf(),
        format: "CMake",
        reason: format!("line {}: {}", e.line, e.what),
    })?;
    let guarded = windows_guarded(&commands);
    let parsed = Parsed {
        source,
        commands,
        guarded,
    };
    let definitions = definitions(&parsed.commands);
    let definition = choose(path, &definitions, target)?;
    let name = definition.name.clone();
    let mut splices = Vec::new();
    let mut said = Vec::new();
    let block = new_block(path, &parsed, &name, change, &mut splices, &mut said)?;
    if !block.is_empty() {
        let guarded = parsed.guarded[definition.command];
        splices.push(block_splice(&parsed, definition.command, &block, guarded));
    }
    if let Some(flavour) = change.runtime {
        runtime_splice(&parsed, &name, flavour, &mut splices, &mut said)?;
    }
    if splices.is_empty() {
        return Ok(EditOutcome::AlreadyDone);
    }
    splices.sort_by_key(|s| s.at.0);
    let mut after = Vec::with_capacity(source.len() + 256);
    let mut at = 0;
    for splice in &splices {
        after.extend_from_slice(&source[at..splice.at.0]);
        after.extend_from_slice(splice.text.as_bytes());
        at = splice.at.1;
    }
    after.extend_from_slice(&source[at..]);
    Ok(EditOutcome::Edited(FileEdit {
        system: BuildSystem::Cmake,
        path: path.to_path_buf(),
        before: source.to_vec(),
        after,
        target: Some(name.clone()),
        configuration: None,
        description: format!("target {name}: {}", said.join("; ")),
    }))
}

/// The calls written right after the definition (command `index`): inside `if(WIN32)`, unless
/// the definition already is.
fn block_splice(parsed: &Parsed<'_>, index: usize, block: &[String], guarded: bool) -> Splice {
    let command = &parsed.commands[index];
    let (_, indent) = parsed.indentation(command.start);
    let (end, ending, had_ending) = parsed.line_end(command.close);
    let tabs =
        indent.contains('\t') || parsed.source.contains(&b'\t') && !parsed.source.contains(&b' ');
    let inner = match (guarded, tabs) {
        (true, _) => indent.clone(),
        (false, true) => format!("{indent}\t"),
        (false, false) => format!("{indent}  "),
    };
    let mut text = String::new();
    if !had_ending {
        text.push_str(ending);
    }
    if !guarded {
        text.push_str(&format!("{indent}if(WIN32){ending}"));
    }
    for line in block {
        text.push_str(&format!("{inner}{line}{ending}"));
    }
    if !guarded {
        text.push_str(&format!("{indent}endif(){ending}"));
    }
    Splice {
        at: (end, end),
        text,
    }
}

fn choose<'d>(
    path: &Path,
    definitions: &'d [Definition],
    target: Option<&str>,
) -> Result<&'d Definition, BuildEditError> {
    let linking: Vec<String> = definitions
        .iter()
        .filter(|d| d.links)
        .map(|d| d.name.clone())
        .collect();
    match target {
        Some(target) => definitions
            .iter()
            .find(|d| d.name == target)
            .ok_or_else(|| BuildEditError::TargetNotFound {
                path: path.to_path_buf(),
                target: target.to_string(),
                candidates: linking,
            }),
        None => {
            let mut linkers = definitions.iter().filter(|d| d.links);
            match (linkers.next(), linkers.next()) {
                (Some(only), None) => Ok(only),
                _ => Err(BuildEditError::Ambiguous {
                    path: path.to_path_buf(),
                    candidates: linking,
                }),
            }
        }
    }
}

/// The lines of the new `if(WIN32)` block (empty when nothing is missing); extends a guarded
/// `target_link_libraries` of the target in place instead when there is one.
fn new_block(
    path: &Path,
    parsed: &Parsed<'_>,
    target: &str,
    change: &BuildChange,
    splices: &mut Vec<Splice>,
    said: &mut Vec<String>,
) -> Result<Vec<String>, BuildEditError> {
    let linked: Vec<&Command> = parsed
        .calls_of("target_link_libraries", target)
        .map(|(_, c)| c)
        .collect();
    let missing: Vec<&str> = change
        .libraries
        .iter()
        .filter(|lib| {
            !linked
                .iter()
                .any(|c| c.args[1..].iter().any(|a| same_library(&a.text, lib)))
        })
        .map(|lib| cmake_library_name(lib))
        .collect();
    let listed: Vec<String> = parsed
        .calls_of("target_link_directories", target)
        .flat_map(|(_, c)| c.args[1..].iter().map(|a| a.text.replace('\\', "/")))
        .collect();
    let mut dirs = Vec::new();
    for dir in &change.library_dirs {
        let quoted = quoted_dir(dir).map_err(|reason| BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason,
        })?;
        let plain = dir.replace('\\', "/");
        if !listed.iter().any(|l| l.eq_ignore_ascii_case(&plain)) {
            dirs.push(quoted);
        }
    }
    let plain_signature = linked.iter().any(|c| {
        c.args
            .get(1)
            .is_some_and(|a| !KEYWORDS.contains(&a.text.to_ascii_uppercase().as_str()))
    });
    let mut lines = Vec::new();
    if !missing.is_empty() {
        said.push(format!("links {}", missing.join(" ")));
        // Only a call whose last keyword links the target itself (not INTERFACE) is extended.
        let guarded_call = parsed
            .calls_of("target_link_libraries", target)
            .find(|(i, c)| parsed.guarded[*i] && links_itself(c));
        if let Some((_, call)) = guarded_call {
            let last = call.args.last().map_or(call.close, |a| a.span.1);
            splices.push(Splice {
                at: (last, last),
                text: format!(" {}", missing.join(" ")),
            });
        } else {
            let keyword = if plain_signature { "" } else { "PRIVATE " };
            lines.push(format!(
                "target_link_libraries({target} {keyword}{})",
                missing.join(" ")
            ));
        }
    }
    if !dirs.is_empty() {
        said.push(format!("searches {}", dirs.join(" ")));
        lines.push(format!(
            "target_link_directories({target} PRIVATE {})",
            dirs.join(" ")
        ));
    }
    Ok(lines)
}

/// Whether libraries appended to a `target_link_libraries` call link the target itself: its
/// last keyword is not `INTERFACE`/`LINK_INTERFACE_LIBRARIES`.
fn links_itself(call: &Command) -> bool {
    let last_keyword = call.args[1..]
        .iter()
        .map(|a| a.text.to_ascii_uppercase())
        .rfind(|w| KEYWORDS.contains(&w.as_str()));
    !matches!(
        last_keyword.as_deref(),
        Some("INTERFACE" | "LINK_INTERFACE_LIBRARIES")
    )
}

/// Sets the target's `MSVC_RUNTIME_LIBRARY`: replaces the value of an existing setting of it,
/// or adds a `set_property` after the definition.
fn runtime_splice(
    parsed: &Parsed<'_>,
    target: &str,
    flavour: Flavour,
    splices: &mut Vec<Splice>,
    said: &mut Vec<String>,
) -> Result<(), BuildEditError> {
    let value = runtime_value(flavour);
    let existing = parsed.commands.iter().find_map(|c| {
        let names_target = match c.name.as_str() {
            "set_property" => c.args.len() > 1 && c.args[0].text.eq_ignore_ascii_case("TARGET"),
            "set_target_properties" => c.args.first().is_some_and(|a| a.text == target),
            _ => false,
        };
        let targets = c.name == "set_target_properties" || c.args.iter().any(|a| a.text == target);
        if !(names_target && targets) {
            return None;
        }
        let key = c
            .args
            .iter()
            .position(|a| a.text.eq_ignore_ascii_case("MSVC_RUNTIME_LIBRARY"))?;
        c.args.get(key + 1)
    });
    if let Some(arg) = existing {
        if arg.text == value {
            return Ok(());
        }
        said.push(format!("MSVC_RUNTIME_LIBRARY {value} (was {})", arg.text));
        splices.push(Splice {
            at: arg.span,
            text: format!("\"{value}\""),
        });
        return Ok(());
    }
    let definition = definitions(&parsed.commands)
        .into_iter()
        .find(|d| d.name == target)
        .map(|d| d.command)
        .unwrap_or(0);
    let command = &parsed.commands[definition];
    let (_, indent) = parsed.indentation(command.start);
    let (end, ending, had_ending) = parsed.line_end(command.close);
    let lead = if had_ending { "" } else { ending };
    said.push(format!("MSVC_RUNTIME_LIBRARY {value}"));
    if old_policy(parsed) {
        said.push("needs cmake_minimum_required(VERSION 3.15) or later (policy CMP0091), which the file does not ask for".into());
    }
    splices.push(Splice {
        at: (end, end),
        text: format!(
            "{lead}{indent}set_property(TARGET {target} PROPERTY MSVC_RUNTIME_LIBRARY \"{value}\"){ending}"
        ),
    });
    Ok(())
}

/// Whether the file's `cmake_minimum_required` asks for a version before 3.15.
fn old_policy(parsed: &Parsed<'_>) -> bool {
    let Some(command) = parsed
        .commands
        .iter()
        .find(|c| c.name == "cmake_minimum_required")
    else {
        return false;
    };
    let Some(version) = command.args.get(1) else {
        return false;
    };
    let low = version.text.split("...").next().unwrap_or("");
    let mut parts = low.split('.').map(|p| p.parse::<u32>().unwrap_or(0));
    let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (major, minor) < (3, 15)
}

/// The `CMakeLists.txt` under `root` (the file itself or, through `add_subdirectory` with a
/// literal path, one below its directory) that defines `target`; never a file outside `root`'s
/// directory. `Ok(None)` when none does.
pub fn definition_file(root: &Path, target: &str) -> Result<Option<PathBuf>, BuildEditError> {
    let top = root
        .parent()
        .unwrap_or(Path::new("."))
        .canonicalize()
        .map_err(|e| BuildEditError::Unreadable {
            path: root.to_path_buf(),
            reason: e.to_string(),
        })?;
    let mut queue = std::collections::VecDeque::from([root.to_path_buf()]);
    let mut seen = std::collections::HashSet::new();
    // A file below that cannot be read does not stop the search; it is the answer only when
    // nothing else defines the target.
    let mut first_error = None;
    while let Some(file) = queue.pop_front() {
        if !seen.insert(file.canonicalize().unwrap_or_else(|_| file.clone())) {
            continue;
        }
        let commands = match read_commands(&file) {
            Ok(commands) => commands,
            Err(e) if file == root => return Err(e),
            Err(e) => {
                first_error.get_or_insert(e);
                continue;
            }
        };
        if definitions(&commands).iter().any(|d| d.name == target) {
            return Ok(Some(file));
        }
        let dir = file.parent().unwrap_or(Path::new(".")).to_path_buf();
        for command in commands.iter().filter(|c| c.name == "add_subdirectory") {
            let Some(sub) = command.args.first().filter(|a| !a.text.contains("${")) else {
                continue;
            };
            let candidate = dir.join(&sub.text).join("CMakeLists.txt");
            if candidate.canonicalize().is_ok_and(|c| c.starts_with(&top)) {
                queue.push_back(candidate);
            }
        }
    }
    first_error.map_or(Ok(None), Err)
}

/// The commands of one `CMakeLists.txt` on disk.
fn read_commands(file: &Path) -> Result<Vec<Command>, BuildEditError> {
    let source =
        crate::files::open::read_regular(file).map_err(|e| BuildEditError::Unreadable {
            path: file.to_path_buf(),
            reason: e.to_string(),
        })?;
    cmake_lang::scan(&source).map_err(|e| BuildEditError::Unparsable {
        path: file.to_path_buf(),
        format: "CMake",
        reason: format!("line {}: {}", e.line, e.what),
    })
}

/// Finds the failing target's `CMakeLists.txt` from the build directory (`--build-dir`, or the
/// one the log names): `CMakeCache.txt`'s `CMAKE_HOME_DIRECTORY` is the source directory, and
/// `build.ninja`'s link rule for the failed output names the target (with a Visual Studio
/// generator, the `[x.vcxproj]` of the failed link's lines: one project per target).
pub fn locate(input: &LocateInput<'_>) -> Result<Option<Place>, BuildEditError> {
    let Some(build) = build_dir(input) else {
        return Ok(None);
    };
    let cache_path = build.join("CMakeCache.txt");
    let Ok(cache) = std::fs::read_to_string(&cache_path) else {
        return Ok(None);
    };
    let value = |key: &str| {
        cache
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .map(|v| v.trim_end().to_string())
    };
    let Some(home) = value("CMAKE_HOME_DIRECTORY:INTERNAL=") else {
        return Ok(None);
    };
    let root = Path::new(&home).join("CMakeLists.txt");
    let configuration = value("CMAKE_BUILD_TYPE:STRING=").filter(|c| !c.is_empty());
    let mut targets = ninja_targets(&build, input.output);
    let mut by = format!(
        "build.ninja's link rule for {}",
        input.output.unwrap_or("the failed output")
    );
    if targets.is_empty() {
        by = "the [x.vcxproj] of the failed link's lines".to_string();
        // The Visual Studio generators: one project per target, named after it.
        targets = super::msbuild::failed_projects(input.log)
            .iter()
            .filter_map(|p| p.rsplit(['\\', '/']).next())
            .map(|name| name[..name.len() - ".vcxproj".len()].to_string())
            .collect();
    }
    let target = match targets.as_slice() {
        [one] => one.clone(),
        [] => {
            return Ok(Some(Place {
                system: BuildSystem::Cmake,
                file: root,
                target: None,
                configuration,
                evidence: format!(
                    "{}: CMAKE_HOME_DIRECTORY; neither build.ninja nor a [x.vcxproj] names the failed target",
                    cache_path.display()
                ),
            }))
        }
        _ => {
            return Err(BuildEditError::Ambiguous {
                path: build.join("build.ninja"),
                candidates: targets,
            })
        }
    };
    let file = definition_file(&root, &target)?.unwrap_or(root);
    Ok(Some(Place {
        system: BuildSystem::Cmake,
        file,
        target: Some(target),
        configuration,
        evidence: format!("{}: CMAKE_HOME_DIRECTORY, and {by}", cache_path.display()),
    }))
}

/// The build directory: `--build-dir`, else the one the log names (`ninja: Entering directory`,
/// CMake's `Build files have been written to:`), else the log's own directory.
fn build_dir(input: &LocateInput<'_>) -> Option<PathBuf> {
    if let Some(dir) = input.build_dir {
        return Some(dir.to_path_buf());
    }
    let log_dir = input.log_path.and_then(Path::parent).map(|p| {
        if p.as_os_str().is_empty() {
            Path::new(".")
        } else {
            p
        }
    });
    for line in input.log.lines() {
        let named = line
            .split_once("ninja: Entering directory `")
            .map(|(_, rest)| rest.trim_end().trim_end_matches('\''))
            .or_else(|| {
                line.split_once("Build files have been written to: ")
                    .map(|(_, rest)| rest.trim_end())
            });
        if let Some(dir) = named {
            let dir = Path::new(dir);
            let dir = match log_dir {
                Some(base) if dir.is_relative() => base.join(dir),
                _ => dir.to_path_buf(),
            };
            if dir.join("CMakeCache.txt").is_file() {
                return Some(dir);
            }
        }
    }
    log_dir
        .filter(|d| d.join("CMakeCache.txt").is_file())
        .map(Path::to_path_buf)
}

/// The targets of `build.ninja`'s (and `build-<Config>.ninja`'s) link statements (`build app.exe: C_EXECUTABLE_LINKER__app_Release
/// ...`) whose output is the failed one (compared by file name); every linking target when the
/// failed output is not known.
fn ninja_targets(build: &Path, output: Option<&str>) -> Vec<String> {
    // "Ninja Multi-Config" writes each configuration's statements into build-<Config>.ninja.
    let mut files = vec![build.join("build.ninja")];
    if let Ok(entries) = std::fs::read_dir(build) {
        let mut configs: Vec<PathBuf> = entries
            .flatten()
            .map(|e| e.path())
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("build-") && n.ends_with(".ninja"))
            })
            .collect();
        configs.sort();
        files.extend(configs);
    }
    let ninja: String = files
        .iter()
        .filter_map(|f| std::fs::read_to_string(f).ok())
        .collect::<Vec<_>>()
        .join("\n");
    let file_name = |p: &str| {
        p.rsplit(['/', '\\'])
            .next()
            .unwrap_or(p)
            .to_ascii_lowercase()
    };
    let wanted = output.map(file_name);
    let mut targets = Vec::new();
    for line in ninja.lines() {
        let Some(rest) = line.strip_prefix("build ") else {
            continue;
        };
        let Some((outputs, rule)) = rest.split_once(": ") else {
            continue;
        };
        let rule = rule.split_whitespace().next().unwrap_or("");
        let Some((kind, named)) = rule.split_once("_LINKER__") else {
            continue;
        };
        if kind.ends_with("STATIC_LIBRARY") {
            continue;
        }
        let target = named.rsplit_once('_').map_or(named, |(t, _)| t);
        let matches = wanted.as_ref().is_none_or(|w| {
            outputs
                .split(' ')
                .filter(|o| !o.is_empty() && *o != "|")
                .any(|o| file_name(o) == *w)
        });
        if matches && !targets.iter().any(|t| t == target) {
            targets.push(target.to_string());
        }
    }
    targets
}

#[cfg(test)]
mod tests;
