//! What the log shows already in the link (libraries whose members reference a name, libraries
//! linker warnings name, CRT libraries in the evidence), and what that says about each answer.

use serde::Serialize;

use super::{Answerer, ResolvedSymbol, SearchContext};
use crate::index::discover;
use crate::read::linklog::TorchVersion;
use crate::read::symbols::LinkFailure;
use crate::rules::RuleBook;

/// A library the log shows in the link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct LinkedLibrary {
    /// The library's file name as the log wrote it (`oldnames.lib`).
    pub library: String,
    /// 1-based line of the evidence.
    pub line: u64,
    /// What shows it (`a member of it references a symbol`, `LNK4217 names it`).
    pub evidence: String,
}

/// The file name of a library in `lib.lib(member.obj)` or a path to it, when `text` names one.
fn library_in(text: &str) -> Option<String> {
    let text = text.trim_matches(['\'', '"']);
    let head = match text.find('(') {
        Some(at) => &text[..at],
        None => return None,
    };
    let name = head.rsplit(['\\', '/']).next().unwrap_or(head).trim();
    let lower = name.to_ascii_lowercase();
    (lower.ends_with(".lib") || lower.ends_with(".a")).then(|| name.to_string())
}

/// What the log shows already in the link: the evidence every link shares (the library part of
/// a referencing `lib.lib(member.obj)`, libraries named by linker warnings that only a linked
/// library produces: LNK4217, LNK4286, LNK4006, LNK2005), and for each unresolved symbol the
/// libraries its own link command names. A log can hold several links (ninja or MSBuild building
/// several targets): a symbol's link is the last linker command line before its first error, so a
/// library on another target's command is no evidence. `/DEFAULTLIB` options are not counted: a
/// `/NODEFAULTLIB` elsewhere may cancel them.
#[derive(Debug, Default)]
pub struct Linked {
    /// Libraries whose members reference an unresolved symbol.
    members: Vec<LinkedLibrary>,
    /// Libraries linker warnings name.
    warnings: Vec<LinkedLibrary>,
    /// The libraries of each link command some symbol belongs to.
    commands: Vec<Vec<LinkedLibrary>>,
    /// For each symbol, in the failure's order: its link command's index in `commands`.
    of_symbol: Vec<Option<usize>>,
    /// The DLLs (or `.pyd`, `.node`) the links of the symbols build, each once.
    outputs: Vec<OwnOutput>,
    /// For each symbol, in the failure's order: the index in `outputs` of the DLL its link
    /// builds, as its link command's `/OUT:` or its LNK1120 line names it.
    output_of_symbol: Vec<Option<u32>>,
}

impl Linked {
    /// The evidence that `library` is in the link of the failure's `symbol`th symbol: a member
    /// of it references a name, its link command names it, or a warning names it.
    pub fn find(&self, symbol: usize, library: &str) -> Option<&LinkedLibrary> {
        let command = self
            .of_symbol
            .get(symbol)
            .copied()
            .flatten()
            .map_or(&[][..], |c| self.commands[c].as_slice());
        self.members
            .iter()
            .chain(command)
            .chain(&self.warnings)
            .find(|l| l.library.eq_ignore_ascii_case(library))
    }

    /// The output of the failure's `symbol`th symbol's link when `library` is its import
    /// library (`c10.lib` for a link that builds `c10.dll`): the name is the output's own.
    pub fn own_output(&self, symbol: usize, library: &str) -> Option<&LinkedLibrary> {
        let own = &self.outputs[*self.output_of_symbol.get(symbol)?.as_ref()? as usize];
        let file = |name: &str| {
            name.rsplit(['\\', '/'])
                .next()
                .unwrap_or(name)
                .to_ascii_lowercase()
        };
        let stem = |name: &str| {
            let name = file(name);
            name.rsplit_once('.')
                .map_or(name.clone(), |(stem, _)| stem.to_string())
        };
        let library_file = file(library);
        let is_own = library_file.ends_with(".lib")
            && (stem(library) == stem(&own.output.library)
                || own
                    .import_library
                    .as_deref()
                    .is_some_and(|implib| file(implib) == library_file));
        is_own.then_some(&own.output)
    }
}

/// Whether a link output is a library others link through an import library (`.dll`, a Python
/// extension's `.pyd`, a Node addon's `.node`), not a program: an `app.exe` beside a static
/// `app.lib` is common, a DLL beside its own import library is the same target.
fn is_library_output(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".dll", ".pyd", ".node"].iter().any(|e| lower.ends_with(e))
}

/// Appends `library` to `out` unless it holds it already (by name ignoring case).
fn add_once(out: &mut Vec<LinkedLibrary>, library: String, line: u64, evidence: &str) {
    if !out.iter().any(|l| l.library.eq_ignore_ascii_case(&library)) {
        out.push(LinkedLibrary {
            library,
            line,
            evidence: evidence.to_string(),
        });
    }
}

/// What the log shows already in the link, evidence by evidence (see [`Linked`]).
pub fn linked_libraries(failure: &LinkFailure) -> Linked {
    let mut linked = Linked::default();
    for symbol in &failure.symbols {
        for reference in &symbol.references {
            if let Some(library) = reference.object.as_deref().and_then(library_in) {
                add_once(
                    &mut linked.members,
                    library,
                    symbol.first_line,
                    "a member of it references an unresolved symbol",
                );
            }
        }
    }
    let mut chosen: Vec<u64> = Vec::new();
    // The output each line that names one gives (`None`: no DLL), by that line.
    let mut output_at_line: std::collections::HashMap<u64, Option<u32>> = Default::default();
    for symbol in &failure.symbols {
        let command = link_command_of(failure, symbol.first_line);
        let slot = output_line(failure, command, symbol.first_line).and_then(|at| {
            *output_at_line.entry(at).or_insert_with(|| {
                let own = output_named_at(failure, at)?;
                linked.outputs.push(own);
                u32::try_from(linked.outputs.len() - 1).ok()
            })
        });
        linked.output_of_symbol.push(slot);
        linked.of_symbol.push(command.map(|line| {
            chosen.iter().position(|&c| c == line).unwrap_or_else(|| {
                chosen.push(line);
                chosen.len() - 1
            })
        }));
    }
    linked.commands = chosen
        .iter()
        .map(|&command| {
            let mut libraries = Vec::new();
            for named in failure
                .link_line_libraries
                .iter()
                .filter(|l| l.line == command)
            {
                let file = named
                    .library
                    .rsplit(['\\', '/'])
                    .next()
                    .unwrap_or(&named.library);
                add_once(
                    &mut libraries,
                    file.to_string(),
                    named.line,
                    "the link command line names it",
                );
            }
            libraries
        })
        .collect();
    for finding in &failure.findings {
        if !["LNK4217", "LNK4286", "LNK4006", "LNK2005"].contains(&finding.code.as_str()) {
            continue;
        }
        for text in finding.values.iter().chain(&finding.objects) {
            if let Some(library) = library_in(text) {
                add_once(
                    &mut linked.warnings,
                    library,
                    finding.line,
                    &format!("{} names a member of it", finding.code),
                );
            }
        }
    }
    linked
}

/// The DLL a link builds, with the import library it makes when its command names one.
#[derive(Debug, Clone)]
struct OwnOutput {
    /// The DLL (`library`), the line that names it, and how.
    output: LinkedLibrary,
    /// The file name of the command's `/IMPLIB:` (`amdhip64.lib` for `amdhip64_7.dll`).
    import_library: Option<String>,
}

/// The line that names the output of the link an error on `line` belongs to: its command's
/// (`command` is that command's line) when the command has an `/OUT:`, else its LNK1120 line
/// when that names one (`bin\\c10.dll : fatal error LNK1120`, all MSBuild shows).
fn output_line(failure: &LinkFailure, command: Option<u64>, line: u64) -> Option<u64> {
    let commands = &failure.link_commands;
    let with_output = command
        .and_then(|at| commands.binary_search_by_key(&at, |c| c.line).ok())
        .filter(|&i| commands[i].output.is_some());
    if let Some(i) = with_output {
        return Some(commands[i].line);
    }
    let ends = &failure.link_ends;
    ends.get(ends.partition_point(|e| e.line < line))
        .filter(|e| e.output.is_some())
        .map(|e| e.line)
}

/// The library output (see [`is_library_output`]) that the command or LNK1120 line at `at`
/// names (see [`output_line`]).
fn output_named_at(failure: &LinkFailure, at: u64) -> Option<OwnOutput> {
    let commands = &failure.link_commands;
    let ends = &failure.link_ends;
    let (output, import_library, evidence) = match commands.binary_search_by_key(&at, |c| c.line) {
        Ok(i) => {
            let c = &commands[i];
            let evidence = match &c.import_library {
                Some(implib) => {
                    format!("its link command's /OUT: names it, and /IMPLIB: {implib}")
                }
                None => "its link command's /OUT: names it".to_string(),
            };
            (c.output.as_deref()?, c.import_library.clone(), evidence)
        }
        Err(_) => {
            let e = &ends[ends.binary_search_by_key(&at, |e| e.line).ok()?];
            let evidence = "the link's LNK1120 line names it".to_string();
            (e.output.as_deref()?, None, evidence)
        }
    };
    let output = output.trim().trim_matches('"');
    let file = output.rsplit(['\\', '/']).next().unwrap_or(output);
    is_library_output(file).then(|| OwnOutput {
        output: LinkedLibrary {
            library: file.to_string(),
            line: at,
            evidence,
        },
        import_library,
    })
}

/// The line of the link command an error on `line` belongs to: among the commands before it, the
/// last one whose output the error block's LNK1120 line names (`bin\\tray.dll : fatal error
/// LNK1120`: MSBuild building projects in parallel echoes another project's command in
/// between), else the last one (the command a wrapper echoes before the linker's output).
fn link_command_of(failure: &LinkFailure, line: u64) -> Option<u64> {
    let commands = &failure.link_commands;
    let before = &commands[..commands.partition_point(|c| c.line < line)];
    let file_name = |path: &str| {
        let path = path.trim().trim_matches('"');
        path.rsplit(['\\', '/']).next().unwrap_or(path).to_string()
    };
    let ends = &failure.link_ends;
    let end = ends
        .get(ends.partition_point(|e| e.line < line))
        .and_then(|e| e.output.as_deref())
        .map(file_name);
    let named = end.and_then(|end| {
        before.iter().rev().find(|c| {
            c.output
                .as_deref()
                .is_some_and(|out| file_name(out).eq_ignore_ascii_case(&end))
        })
    });
    named.or(before.last()).map(|c| c.line)
}

/// What the log already shows about each answer: a library already in the link (it is not
/// offered again, and the note says the copy used lacks the name), and a rule's library that is
/// installed but lacks the name. Returns the libraries that lack names.
pub(super) fn note_log_evidence(
    symbols: &mut [ResolvedSymbol],
    linked: &Linked,
    context: Option<&SearchContext<'_>>,
    book: &RuleBook,
    failure: &LinkFailure,
) -> Vec<String> {
    let torch_versions = failure.torch_versions.as_slice();
    let mut lacking: Vec<String> = Vec::new();
    for (at, s) in symbols.iter_mut().enumerate() {
        if let Some(output) = s.library.as_deref().and_then(|l| linked.own_output(at, l)) {
            own_output(s, output.clone());
            continue;
        }
        if let Some(library) = &s.library {
            if let Some(l) = linked.find(at, library) {
                s.rare_mut().already_linked = Some(l.clone());
                let note = format!(
                    "{} is already in the link (line {}: {}) and the name is still unresolved: the copy the linker used does not define it (another version, or another copy found first on the library path)",
                    l.library, l.line, l.evidence
                );
                s.match_note = super::some_text(match s.match_note.take() {
                    Some(old) => format!("{note}; {old}"),
                    None => note,
                });
            }
        }
        if s.provider == Some(Answerer::Rule) && s.not_found_on_disk {
            let installed = s
                .library
                .as_deref()
                .and_then(|library| context.and_then(|c| discover::find_library(c.dirs, library)));
            if let Some(path) = installed {
                let path = path.to_string_lossy().into_owned();
                let library = s.library.clone().unwrap_or_default();
                if let Some(note) = context.and_then(|c| {
                    node_api_only_note(c.index, s, &path, failure.node_version.as_deref())
                }) {
                    s.match_note = super::some_text(note);
                    s.rare_mut().installed_lacks = super::some_text(path);
                    continue;
                }
                if s.already_linked().is_some() {
                    linked_but_lacking(s, &library, path, torch_versions);
                    if !lacking.contains(&library) {
                        lacking.push(library);
                    }
                    continue;
                }
                // A third-party library's namespace (a CRT name the installed CRT lacks is a
                // toolset difference, said as such).
                let crt = book.is_crt_family(&s.family);
                if !crt && s.source.as_deref().is_some_and(|r| book.is_scope_rule(r)) {
                    if s.near_misses.is_empty() {
                        not_exported(s, library, path);
                    } else {
                        s.match_note = super::some_text(format!(
                            "{path} defines this function differently (near miss below: what differs and the fix); it is no internal name"
                        ));
                    }
                    continue;
                }
                if !lacking.contains(&library) {
                    lacking.push(library.clone());
                }
                s.match_note = super::some_text(format!(
                    "{library} should define it, but the installed {path} does not: the SDK on disk is older or newer than the code expects"
                ));
                s.rare_mut().installed_lacks = super::some_text(path);
            }
        }
    }

    lacking
}

/// A library already in the link whose installed copy (`path`) lacks the name: adding it again
/// cannot help; the code expects another version of it (an internal name is possible too, but a
/// linked library's version is the usual cause), said with torch's versions for torch.
fn linked_but_lacking(
    s: &mut ResolvedSymbol,
    library: &str,
    path: String,
    torch_versions: &[TorchVersion],
) {
    let Some(l) = s.already_linked() else {
        return;
    };
    let near = if s.near_misses.is_empty() {
        "does not export it"
    } else {
        "defines it differently (near miss below)"
    };
    let mut note = format!(
        "{library} is already in the link (line {}: {}) and the installed {path} {near}: adding it again cannot help; the headers the code was compiled with expect another version of {library}",
        l.line, l.evidence
    );
    if let Some(versions) = torch_cause(&s.family, torch_versions, &path) {
        note.push_str(&versions);
    }
    s.match_note = super::some_text(note);
    s.rare_mut().installed_lacks = super::some_text(path);
}

/// Whether a name is Node-API's (`napi_*`, `node_api_*`), the ABI-stable part of node.exe's
/// exports.
fn is_node_api(name: &str) -> bool {
    let name = name.strip_prefix("__imp_").unwrap_or(name);
    let name = name
        .strip_prefix('_')
        .filter(|_| name.starts_with("_napi_") || name.starts_with("_node_api_"))
        .unwrap_or(name);
    name.starts_with("napi_") || name.starts_with("node_api_")
}

/// For a name of node.exe's other APIs (libuv `uv_*`, `v8::`, `node::`) that the installed
/// node.lib (`path`) lacks, when every function that node.lib exports is Node-API's: it is the
/// node.lib built from node-api-headers' def file, not the one of a Node release; the note says
/// so and what to link instead.
fn node_api_only_note(
    index: &crate::index::Index,
    s: &ResolvedSymbol,
    path: &str,
    node_version: Option<&str>,
) -> Option<String> {
    let file = std::path::Path::new(path);
    let is_node_lib = file
        .file_name()
        .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("node.lib"));
    if !is_node_lib || is_node_api(s.symbol.lookup_name()) {
        return None;
    }
    let wanted = dunce::canonicalize(file).unwrap_or_else(|_| file.to_path_buf());
    let mut node_api = 0usize;
    for symbol in index.symbols() {
        let same = symbol.library == file
            || dunce::canonicalize(&symbol.library).is_ok_and(|p| p == wanted);
        if !same {
            continue;
        }
        let name = symbol.name.as_str();
        // The import library's own bookkeeping names are no exports.
        if name.starts_with("__IMPORT_DESCRIPTOR_")
            || name == "__NULL_IMPORT_DESCRIPTOR"
            || name.ends_with("_NULL_THUNK_DATA")
        {
            continue;
        }
        if !is_node_api(name) {
            return None;
        }
        node_api += 1;
    }
    if node_api == 0 {
        return None;
    }
    let arch = match index.arch() {
        crate::index::Machine::X86 => "ia32",
        crate::index::Machine::Arm64 => "arm64",
        _ => "x64",
    };
    let api = if s.symbol.demangled().contains("v8::") {
        "V8"
    } else if s
        .symbol
        .lookup_name()
        .trim_start_matches("__imp_")
        .trim_start_matches('_')
        .starts_with("uv_")
    {
        "libuv"
    } else {
        "Node's C++"
    };
    let version = node_version.unwrap_or("<version>");
    Some(format!(
        "{path} is a Node-API-only node.lib (every function it exports, {node_api}, is napi_*/node_api_*: it is built from node-api-headers' def file), and this name is of the {api} API, which is not ABI-stable and only the node.lib of a Node release exports: link the node.lib node-gyp downloads for the Node version the addon is for (%LOCALAPPDATA%\\node-gyp\\Cache\\{version}\\{arch}\\node.lib; node-gyp install {version}), or port the addon to Node-API (node-addon-api) to keep this node.lib"
    ))
}

/// For a torch library (family `torch-*`): the usual cause, headers and libraries of different
/// torch versions, with both versions when the log (libtorch paths of include and library
/// options, collect_env's `PyTorch version:`) or the installation (`torch/version.py` or
/// libtorch's `build-version` beside the library's `lib` directory) shows them.
fn torch_cause(family: &str, versions: &[TorchVersion], path: &str) -> Option<String> {
    if !family.starts_with("torch") {
        return None;
    }
    let of = |what: &str| {
        versions
            .iter()
            .find(|v| v.of == what)
            .map(|v| format!("{} (line {})", v.version, v.line))
    };
    let headers = of("headers");
    let libraries = installed_torch_version(path)
        .map(|(version, file)| format!("{version} ({file})"))
        .or_else(|| of("libraries"))
        .or_else(|| of("installed"));
    let mut text = String::from(
        ": with torch the usual cause is headers of one torch version and libraries of another",
    );
    match (headers, libraries) {
        (Some(h), Some(l)) => text.push_str(&format!(" (headers {h}, libraries {l})")),
        (Some(h), None) => text.push_str(&format!(" (headers {h})")),
        (None, Some(l)) => text.push_str(&format!(" (libraries {l})")),
        (None, None) => {}
    }
    text.push_str(
        ": build with the include directories of the torch whose libraries are linked (torch.utils.cpp_extension.include_paths() of the same Python), or link the libraries of the torch whose headers are used",
    );
    Some(text)
}

/// The version of the torch a library of `torch/lib` (or libtorch's `lib`) belongs to, and the
/// file that says it: `torch/version.py`'s `__version__`, or libtorch's `build-version`.
fn installed_torch_version(library: &str) -> Option<(String, String)> {
    let root = std::path::Path::new(library).parent()?.parent()?;
    let version_py = root.join("version.py");
    if let Ok(text) = std::fs::read_to_string(&version_py) {
        let version = text.lines().find_map(|line| {
            let rest = line.trim().strip_prefix("__version__")?.trim_start();
            let value = rest.strip_prefix('=')?.trim().trim_matches(['\'', '"']);
            (!value.is_empty() && value.len() < 64).then(|| value.to_string())
        })?;
        return Some((version, version_py.display().to_string()));
    }
    let build_version = root.join("build-version");
    let text = std::fs::read_to_string(&build_version).ok()?;
    let version = text.trim();
    (!version.is_empty() && version.len() < 64 && !version.contains('\n'))
        .then(|| (version.to_string(), build_version.display().to_string()))
}

/// A name whose library is the import library of the link's own output (`c10.lib` while
/// `c10.dll` is linked): the output's own name, whose defining object is not in the link. No
/// library is offered: linking a DLL against its own import library cannot help.
fn own_output(s: &mut ResolvedSymbol, output: LinkedLibrary) {
    let library = s.library.take().unwrap_or_default();
    s.match_note = super::some_text(format!(
        "{library} is the import library of {}, which this link builds (line {}: {}): the name is {}'s own, and the object that defines it is not in this link (a source file left out of the target, compiled out by a preprocessor condition, or a function declared and never defined); linking {library} cannot help",
        output.library,
        output.line,
        output.evidence,
        output.library
    ));
    s.library_path = None;
    s.rare_mut().own_output = Some(Box::new(output));
}

/// A name in a known library's namespace that the library on disk (`path`) does not export:
/// internal to it, so no library is offered.
fn not_exported(s: &mut ResolvedSymbol, library: String, path: String) {
    s.match_note = super::some_text(format!(
        "not exported by {library} (internal): {path} is in the link's search path and does not export it; there is no library to add: call the library's public (exported) API instead, or build the library from source with the name exported"
    ));
    s.library = None;
    s.rare_mut().not_exported_by = super::some_text(library);
}

#[cfg(test)]
mod tests {
    use super::super::test_support::with_index;
    use super::linked_libraries;
    use crate::index::{LibrarySymbol, Machine, SymbolKind};
    use std::path::{Path, PathBuf};

    /// A DLL whose import library has another name (`/OUT:amdhip64_7.dll /IMPLIB:amdhip64.lib`,
    /// the HIP runtime's own build): `hip*` names answered with amdhip64.lib are its own; a name
    /// of another library is still offered, and so is amdhip64.lib to a link of another DLL.
    #[test]
    fn the_import_library_a_dll_link_makes_is_its_own() {
        use crate::resolve::{diagnose, DiagnoseOptions};
        use crate::rules::RuleBook;
        let log = |out: &str| {
            format!(
                "link.exe /nologo @amdhip64.rsp /out:hipamd\\src\\{out} /implib:hipamd\\lib\\amdhip64.lib /dll /machine:x64\n\
                 hip_graph.cpp.obj : error LNK2019: unresolved external symbol hipGraphAddKernelNode referenced in function ihipGraphLaunch\n\
                 hip_graph.cpp.obj : error LNK2019: unresolved external symbol __imp_CreateEventW referenced in function ihipGraphLaunch\n"
            )
        };
        let book = RuleBook::builtin();
        let d = diagnose(
            super::super::test_support::failure(&log("amdhip64_7.dll")),
            &book,
            &DiagnoseOptions::default(),
        );
        let hip = &d.symbols[0];
        assert_eq!(hip.library, None);
        let own = hip.own_output().expect("its own");
        assert_eq!(own.library, "amdhip64_7.dll");
        assert_eq!(own.line, 1);
        assert!(
            own.evidence.ends_with("/IMPLIB: amdhip64.lib"),
            "{}",
            own.evidence
        );
        assert_eq!(d.symbols[1].library.as_deref(), Some("kernel32.lib"));
        assert!(d.symbols[1].own_output().is_none());
        assert_eq!(d.link_flags, ["kernel32.lib"]);
        // Another DLL's link: amdhip64.lib is its to add.
        let other =
            log("hiptool.dll").replace("/implib:hipamd\\lib\\amdhip64.lib", "/implib:hiptool.lib");
        let d = diagnose(
            super::super::test_support::failure(&other),
            &book,
            &DiagnoseOptions::default(),
        );
        assert_eq!(d.symbols[0].library.as_deref(), Some("amdhip64.lib"));
        assert!(d.symbols[0].own_output().is_none());
    }

    #[test]
    fn a_library_already_in_the_link_is_not_offered_again() {
        let log = "oldnames.lib(getpid.obj) : error LNK2001: unresolved external symbol _getpid\n\
                   app.obj : error LNK2019: unresolved external symbol legacy_fn referenced in function main\n";
        let legacy = LibrarySymbol::new(
            "legacy_fn".into(),
            Path::new("oldnames.lib"),
            SymbolKind::Defined,
            Machine::X64,
        );
        let d = with_index(log, vec![legacy], Path::new("."));
        let s = d
            .symbols
            .iter()
            .find(|s| s.symbol.name() == "legacy_fn")
            .unwrap();
        let linked = s.already_linked().expect("oldnames.lib is linked");
        assert_eq!(linked.library, "oldnames.lib");
        assert!(s
            .match_note
            .as_deref()
            .unwrap()
            .contains("already in the link"));
        assert!(
            !d.link_flags
                .iter()
                .any(|f| f.eq_ignore_ascii_case("oldnames.lib")),
            "{:?}",
            d.link_flags
        );
    }

    #[test]
    fn each_symbol_is_linked_with_the_libraries_of_its_own_link_command() {
        let log = "C:\\VS\\link.exe /nologo /OUT:\"C:\\out dir\\a.exe\" a.obj user32.lib\n\
                   a.obj : error LNK2019: unresolved external symbol f_of_a referenced in function main\n\
                   C:\\VS\\link.exe /nologo -out:b.dll b.obj kernel32.lib\n\
                   b.obj : error LNK2019: unresolved external symbol f_of_b referenced in function g\n\
                   C:\\VS\\link.exe /nologo /OUT:c.exe c.obj user32.lib\n";
        let failure =
            crate::read::symbols::collect(std::io::Cursor::new(log), Default::default()).unwrap();
        let outputs: Vec<(u64, Option<&str>)> = failure
            .link_commands
            .iter()
            .map(|c| (c.line, c.output.as_deref()))
            .collect();
        assert_eq!(
            outputs,
            [(1, Some("a.exe")), (3, Some("b.dll")), (5, Some("c.exe"))]
        );
        let linked = linked_libraries(&failure);
        // f_of_a's link names user32.lib; f_of_b's (line 3) does not, though line 1 and line 5
        // name it: another target's command is no evidence.
        assert_eq!(linked.find(0, "USER32.lib").map(|l| l.line), Some(1));
        assert!(linked.find(1, "user32.lib").is_none());
        assert_eq!(linked.find(1, "kernel32.lib").map(|l| l.line), Some(3));
        assert!(linked.find(0, "kernel32.lib").is_none());
        // MSBuild /m: b.dll's command, then another project's, then b.dll's errors ending in its
        // LNK1120 line: the errors are b.dll's link.
        let log = "  link.exe /nologo /OUT:\"C:\\x64\\b.dll\" b.obj kernel32.lib\n\
                   2>  link.exe /nologo /OUT:\"C:\\x64\\a.exe\" a.obj user32.lib\n\
                   1>b.obj : error LNK2019: unresolved external symbol f_of_b referenced in function g\n\
                   1>C:\\x64\\b.dll : fatal error LNK1120: 1 unresolved externals\n";
        let failure =
            crate::read::symbols::collect(std::io::Cursor::new(log), Default::default()).unwrap();
        let linked = linked_libraries(&failure);
        assert!(linked.find(0, "user32.lib").is_none());
        assert_eq!(linked.find(0, "kernel32.lib").map(|l| l.line), Some(1));
    }

    #[test]
    fn a_library_on_the_link_line_that_lacks_the_name_is_not_added_again() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("amdhip64.lib"), b"!<arch>\n").unwrap();
        let log = "C:\\VS\\bin\\Hostx64\\x64\\link.exe /nologo app.obj /LIBPATH:C:\\hip\\lib amdhip64.lib\n\
                   app.obj : error LNK2019: unresolved external symbol hipNewApiOnlyIn7 referenced in function main\n";
        let d = with_index(log, Vec::new(), dir.path());
        let s = &d.symbols[0];
        let linked = s
            .already_linked()
            .expect("the link line names amdhip64.lib");
        assert_eq!(linked.evidence, "the link command line names it");
        assert!(s.installed_lacks().is_some());
        let note = s.match_note.as_deref().unwrap();
        assert!(note.contains("adding it again cannot help"), "{note}");
        assert!(!note.contains("torch"), "{note}");
        assert!(d.link_flags.is_empty(), "{:?}", d.link_flags);
    }

    #[test]
    fn an_installed_library_that_lacks_the_name_leads_the_headline() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("amdhip64.lib"), b"!<arch>\n").unwrap();
        let log = "app.obj : error LNK2019: unresolved external symbol hipNewApiOnlyIn7 referenced in function main\n";
        let d = with_index(log, Vec::new(), dir.path());
        let s = &d.symbols[0];
        assert_eq!(
            s.installed_lacks().map(PathBuf::from),
            Some(dir.path().join("amdhip64.lib"))
        );
        assert!(
            d.verdict
                .summary
                .starts_with("installed amdhip64.lib lacks"),
            "{}",
            d.verdict.summary
        );
    }
}
