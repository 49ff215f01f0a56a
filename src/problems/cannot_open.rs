//! Files the linker cannot open (docs/RULES.md §20): LNK1104 (`cannot open file 'X'`), LNK1181
//! (`cannot open input file 'X'`), LNK1168 (`cannot open X for writing`), lld-link's `could not
//! open 'X'`, `cannot open output file X` and `failed to write output 'X'`. What the index and
//! the log know about the file decides the cause: the output itself (locked by a running
//! process), an unexpanded build variable (`...-NOTFOUND`, `$(Var)`, `%VAR%`), a wildcard, an
//! object whose compile failed, a file found in a directory not on the search path, found only
//! for another machine or with another letter case, or a well-known file whose home is known
//! (`python3XY.lib`, `amdhip64.lib`, the Visual C++ and SDK libraries).

use std::path::Path;

use super::text::{file_name, files, quoted};
use super::{join_words, Problem, ProblemKind, Scan};
use crate::machine::Machine;
use crate::read::build_system::fix_lines;
use crate::read::linklog::Finding;
use crate::rules::roles::{LibraryRole, Roles};

/// A file the linker could not open.
struct Unopened {
    file: String,
    lines: Vec<u64>,
    /// The record says it is the output (LNK1168, lld-link's output messages).
    output: bool,
    /// lld-link's reason (`No such file or directory`, `permission denied`).
    reason: Option<String>,
}

/// The file a record names.
fn named_file(finding: &Finding) -> Option<(String, bool, Option<String>)> {
    let text = finding.text.as_str();
    if finding.code.starts_with("lld-link") {
        for prefix in ["cannot open output file ", "failed to write output "] {
            if let Some(rest) = text.strip_prefix(prefix) {
                let (file, reason) = rest.rsplit_once(": ").unwrap_or((rest, ""));
                let file = file.trim().trim_matches(['\'', '"']);
                let reason = (!reason.is_empty()).then(|| reason.trim().to_string());
                return Some((file.to_string(), true, reason));
            }
        }
        let rest = text
            .strip_prefix("could not open ")
            .or_else(|| text.strip_prefix("cannot open "))?;
        let (file, reason) = match quoted(rest).first() {
            Some(q) => (
                q.clone(),
                rest.rsplit_once("': ").map(|(_, r)| r.trim().to_string()),
            ),
            None => {
                let (file, reason) = rest.rsplit_once(": ").unwrap_or((rest, ""));
                (
                    file.trim().to_string(),
                    Some(reason.trim().to_string()).filter(|r| !r.is_empty()),
                )
            }
        };
        return Some((file, false, reason));
    }
    let file = quoted(text)
        .into_iter()
        .next()
        .or_else(|| files(text).into_iter().next())?;
    Some((file, finding.code == "LNK1168", None))
}

fn is_image(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    [".exe", ".dll", ".pyd", ".node", ".sys", ".ocx", ".winmd"]
        .iter()
        .any(|e| lower.ends_with(e))
}

/// What kind of name an unexpanded variable is.
fn unexpanded_variable(file: &str) -> Option<(String, &'static str)> {
    if let Some(at) = file.find("-NOTFOUND") {
        let name = file[..at]
            .rsplit(['\\', '/', ' ', ';'])
            .next()
            .unwrap_or(&file[..at]);
        return Some((format!("{name}-NOTFOUND"), "cmake"));
    }
    let between = |open: &str, close: char| -> Option<String> {
        let at = file.find(open)?;
        let rest = &file[at + open.len()..];
        let end = rest.find(close)?;
        (end > 0).then(|| rest[..end].to_string())
    };
    if let Some(name) = between("$(", ')') {
        return Some((name, "msbuild"));
    }
    if let Some(name) = between("${", '}') {
        return Some((name, "cmake-variable"));
    }
    if let Some(name) = between("%", '%') {
        return Some((name, "environment"));
    }
    if let Some(name) =
        between("@", '@').filter(|n| n.chars().all(|c| c.is_ascii_uppercase() || c == '_'))
    {
        return Some((name, "configure"));
    }
    None
}

/// The role of a file name: a Visual C++ or Windows SDK library (`kernel32.lib`, `libcmt.lib`,
/// `uuid.lib`).
fn is_toolset_library(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    // The HIP SDK's libraries have roles too, but their own home (HIP_PATH).
    if lower.starts_with("amdhip") || lower.starts_with("hip") || is_python_library(name) {
        return false;
    }
    let role = Roles::builtin().role_of(name);
    role.explicit
        && matches!(
            role.role,
            LibraryRole::Chain
                | LibraryRole::ImportLibrary
                | LibraryRole::StaticLibrary
                | LibraryRole::AddOn
        )
}

/// `python310.lib`, `python3.lib`, `python310_d.lib`.
fn is_python_library(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower.strip_prefix("python").is_some_and(|rest| {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        digits > 0 && matches!(&rest[digits..], ".lib" | "_d.lib")
    })
}

/// The problems of the unclaimed cannot-open records, one per cause (toolset libraries
/// together, others per file).
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let mut unopened: Vec<Unopened> = Vec::new();
    let mut records = scan.unclaimed(&["LNK1104", "LNK1181", "LNK1168"]);
    records.extend(scan.diagnosis.findings.iter().enumerate().filter(|(i, f)| {
        !scan.claimed[*i]
            && f.code.starts_with("lld-link")
            && ["could not open ", "cannot open ", "failed to write output "]
                .iter()
                .any(|p| f.text.starts_with(p))
    }));
    records.sort_by_key(|(i, _)| *i);
    for (i, f) in records {
        let Some((file, output, reason)) = named_file(f) else {
            continue;
        };
        scan.claim(i);
        match unopened.iter_mut().find(|u| u.file == file) {
            Some(u) => u.lines.push(f.line),
            None => unopened.push(Unopened {
                file,
                lines: vec![f.line],
                output,
                reason,
            }),
        }
    }
    let mut out: Vec<Problem> = Vec::new();
    let (toolset, others): (Vec<&Unopened>, Vec<&Unopened>) = unopened.iter().partition(|u| {
        !u.output && is_toolset_library(file_name(&u.file)) && !found_elsewhere(scan, u)
    });
    if !toolset.is_empty() {
        out.push(toolset_libraries(scan, &toolset));
    }
    for u in others {
        out.push(one_file(scan, u));
    }
    out
}

/// Whether lnkfix's search finds the file (then the cause is a missing `/LIBPATH:`).
fn found_elsewhere(scan: &Scan<'_>, u: &Unopened) -> bool {
    scan.inputs
        .search
        .is_some_and(|s| crate::index::discover::find_library(s.dirs, file_name(&u.file)).is_some())
}

/// The Visual C++ and SDK libraries the link cannot open: the environment is not set up.
fn toolset_libraries(scan: &Scan<'_>, list: &[&Unopened]) -> Problem {
    let names: Vec<String> = list.iter().map(|u| u.file.clone()).collect();
    let summary = format!(
        "cannot open {}: the Visual C++ and Windows SDK libraries are not on the library path",
        join_words(&names)
    );
    let cause = format!(
        "{} {} part of Visual C++ or the Windows SDK; the linker finds them through LIB (or /LIBPATH:), which the developer prompt sets up: here LIB does not list their directories, or that part of Visual Studio is not installed",
        join_words(&names),
        if names.len() == 1 { "is" } else { "are" }
    );
    let fix = "link from the developer prompt of the target machine (x64 Native Tools prompt: vcvars64.bat sets LIB); if the link fails there too, install the missing part with the Visual Studio Installer (the Windows SDK for kernel32.lib and uuid.lib, the C++ build tools for libcmt.lib and msvcrt.lib)".to_string();
    let mut problem = Problem::new(ProblemKind::CannotOpen, summary, cause, fix);
    for u in list {
        for line in &u.lines {
            problem.line(*line);
        }
        problem.subject(u.file.clone());
    }
    let cross = scan
        .diagnosis
        .findings
        .iter()
        .any(|f| f.code == "clang" || f.code.starts_with("lld-link"));
    if cross {
        problem.notes.push(
            "with clang-cl and lld-link outside Windows (a cross build over a copied SDK such as xwin's), the /LIBPATH: directories must be the copy's own: xwin splat names the architecture directories x86_64 unless --preserve-ms-arch-notation, and the file names must match in case or come with lower-case links".into(),
        );
    }
    problem
}

/// The problem of one file.
fn one_file(scan: &Scan<'_>, u: &Unopened) -> Problem {
    let file = u.file.as_str();
    let name = file_name(file);
    let lower = name.to_ascii_lowercase();
    let build_system = scan.build_system();
    let libpath_fix = |dir: &str| -> String {
        let flag = format!("/LIBPATH:{dir}");
        match build_system {
            Some(kind) => {
                let lines = fix_lines(kind, std::slice::from_ref(&flag), None, &scan.diagnosis.log);
                if lines.is_empty() {
                    format!("add {flag} to the link command")
                } else {
                    format!("add {flag} ({})", lines.join("; "))
                }
            }
            None => format!("add {flag} to the link command"),
        }
    };
    let is_output = u.output
        || is_image(name)
        || lower.ends_with(".pdb")
        || scan
            .inputs
            .context
            .get()
            .outputs
            .iter()
            .any(|o| file_name(&o.value).eq_ignore_ascii_case(name));
    let mut notes: Vec<String> = Vec::new();
    let (summary, cause, fix) = if is_output {
        in_use(u, &lower)
    } else if let Some((variable, kind)) = unexpanded_variable(file) {
        never_expanded(file, &variable, kind)
    } else if let Some(start) = cut_at_space(file) {
        (
            format!("cannot open {file}: a path cut at a space"),
            format!(
                "{start} is the part before the first space of a path with spaces in it (as C:\\Program Files\\... has) that reached the linker unquoted, so it was split into two arguments{}",
                if start.len() < file.len() { " (link.exe adds .obj to a name without extension)" } else { "" }
            ),
            "quote the path where the build writes it into the link (CMake: a path pasted into LINK_FLAGS, CMAKE_*_LINKER_FLAGS or target_link_options without quotes; MSBuild: AdditionalDependencies or AdditionalLibraryDirectories; a script: the variable that holds it), or use its short 8.3 name".into(),
        )
    } else if name.contains(['*', '?']) {
        (
            format!("cannot open {file}: a wildcard"),
            "the linker does not expand wildcards (lld-link and link.exe take file names, and cmd passes the pattern as is)".into(),
            "name the libraries one by one, or let the build system expand the pattern (CMake: file(GLOB ...))".into(),
        )
    } else if lower.ends_with(".obj") || lower.ends_with(".o") || lower.ends_with(".res") {
        (
            format!("cannot open {file}: the object was not built"),
            format!("{file} is an input the link needs, and its compile failed or was skipped"),
            "fix that compile first: its error is above the link in the log".into(),
        )
    } else if is_python_library(name) {
        python_library(file, name, &libpath_fix)
    } else if lower.starts_with("amdhip64") {
        (
            format!("cannot open {file}: the HIP SDK's lib directory is not on the library path"),
            format!("{name} is the HIP runtime's import library, in the HIP SDK's lib directory (%HIP_PATH%\\lib)"),
            libpath_fix("%HIP_PATH%\\lib"),
        )
    } else {
        located(scan, u, &libpath_fix, &mut notes)
    };
    let mut problem = Problem::new(ProblemKind::CannotOpen, summary, cause, fix);
    problem.notes = notes;
    for line in &u.lines {
        problem.line(*line);
    }
    problem.subject(file.to_string());
    problem
}

/// A Python import library that cannot be opened: its `libs` directory is not on the library
/// path, or, for `python3XX_d.lib`, the build is a debug one and the debug library was never
/// installed (pyconfig.h asks for it whenever `_DEBUG` is defined).
fn python_library(
    file: &str,
    name: &str,
    libpath_fix: &dyn Fn(&str) -> String,
) -> (String, String, String) {
    let lower = name.to_ascii_lowercase();
    if let Some(stem) = lower.strip_suffix("_d.lib") {
        return (
            format!("cannot open {file}: a debug build asks for the debug Python's library"),
            format!("{name} is the import library of a debug Python (Py_DEBUG): pyconfig.h asks for it whenever _DEBUG is defined (a Debug configuration, /MDd), and the Python installer puts it in sys.base_prefix\\libs only with its \"Download debug binaries\" option"),
            format!("build the extension Release (no _DEBUG, /MD) to link {stem}.lib, or install Python's debug binaries (the installer's Modify > Download debug binaries) and add /LIBPATH:<python>\\libs"),
        );
    }
    (
        format!("cannot open {file}: the Python installation's libs directory is not on the library path"),
        format!("{name} is the import library of the Python DLL; it is in the libs directory of the Python installation (sys.base_prefix\\libs), which is not on the link's library path"),
        libpath_fix("<python>\\libs (python -c \"import sys; print(sys.base_prefix)\")"),
    )
}

/// First words of directories with spaces that an unquoted path is cut at (`C:\\Program` from
/// `C:\\Program Files\\...`).
const SPACED_DIRECTORY_STARTS: &[&str] = &[
    "program",
    "microsoft",
    "windows",
    "visual",
    "documents",
    "my",
    "common",
    "intel",
    "nvidia",
    "amd",
    "onedrive",
];

/// A path the linker got cut at a space: a rooted path whose last part is the first word of a
/// directory name with spaces (`C:\\Program`, and `C:\\Program.obj`: link.exe adds `.obj` to an
/// input without extension). Returns the path as it was cut.
fn cut_at_space(file: &str) -> Option<&str> {
    let cut = file
        .strip_suffix(".obj")
        .or_else(|| file.strip_suffix(".OBJ"))
        .unwrap_or(file);
    let rooted = cut.starts_with(['\\', '/'])
        || (cut.len() > 2 && cut.as_bytes()[1] == b':' && cut.as_bytes()[0].is_ascii_alphabetic());
    let last = cut.rsplit(['\\', '/']).next()?;
    (rooted
        && !last.contains('.')
        && SPACED_DIRECTORY_STARTS.contains(&last.to_ascii_lowercase().as_str()))
    .then_some(cut)
}

/// The library of another name in a directory searched: the same library as its build named it
/// (a debug `d` suffix, a version, `lib` in front, `-shared`/`-static`), compared by
/// [`library_stem`].
fn differently_named(scan: &Scan<'_>, name: &str) -> Option<std::path::PathBuf> {
    let search = scan.inputs.search?;
    let want = library_stem(name)?;
    let mut found: Vec<std::path::PathBuf> = Vec::new();
    for dir in search.dirs {
        let Ok(entries) = std::fs::read_dir(&dir.path) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(file) = path.file_name().and_then(|f| f.to_str()) else {
                continue;
            };
            if !file.eq_ignore_ascii_case(name)
                && file.to_ascii_lowercase().ends_with(".lib")
                && library_stem(file).as_deref() == Some(want.as_str())
                && !found.contains(&path)
            {
                found.push(path);
            }
        }
    }
    // One candidate decides; several (a d and a release copy of another name) are listed by the
    // caller's notes instead.
    (found.len() == 1).then(|| found.remove(0))
}

/// A file's name as it is on disk, and its directory, for the messages.
fn name_and_dir(path: &Path) -> (String, String) {
    let name = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_default();
    let dir = path
        .parent()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    (name, dir)
}

/// The answer for `file` when a directory searched holds the same library as `other`.
fn renamed(file: &str, other: &Path) -> (String, String, String) {
    let name = file_name(file);
    let (on_disk, dir) = name_and_dir(other);
    (
        format!("cannot open {file}: the library is named {on_disk}"),
        format!("no directory searched holds {name}, but {dir} holds {on_disk}: the same library under the name its build wrote (a debug d suffix, a version, lib in front, -shared or -static)"),
        format!("link {on_disk} (the name in the build's link inputs), or build the variant named {name}; check that it is the configuration you want (Debug libraries end in d)"),
    )
}

/// A library name without what builds add to it: lower case, no extension, no `lib` in front, no
/// `-shared`/`_static`-style suffix, no version digits and no debug `d` after them
/// (`libpng16d.lib` → `png`, `zlibstatic.lib` → `zlib`, `foo-shared.lib` → `foo`).
fn library_stem(name: &str) -> Option<String> {
    let lower = name.to_ascii_lowercase();
    let mut stem = lower.strip_suffix(".lib")?.to_string();
    if let Some(rest) = stem.strip_prefix("lib").filter(|r| r.len() >= 2) {
        stem = rest.to_string();
    }
    for suffix in [
        "-shared", "_shared", "-static", "_static", "static", "-dll", "_dll",
    ] {
        if let Some(rest) = stem.strip_suffix(suffix).filter(|r| r.len() >= 2) {
            stem = rest.to_string();
        }
    }
    let trim = |s: &str| {
        s.trim_end_matches(|c: char| c.is_ascii_digit() || matches!(c, '.' | '-' | '_'))
            .to_string()
    };
    stem = trim(&stem);
    if let Some(rest) = stem.strip_suffix('d').filter(|r| r.len() >= 2) {
        stem = trim(rest);
    }
    (stem.len() >= 2).then_some(stem)
}

/// The link's output (or its program database) cannot be written: a process holds it.
fn in_use(u: &Unopened, lower: &str) -> (String, String, String) {
    let file = u.file.as_str();
    let name = file_name(file);
    let what = if lower.ends_with(".pdb") {
        "the program database of the output"
    } else {
        "the link's output"
    };
    (
        format!("cannot write {file}: {what} is in use"),
        format!(
            "{file} is {what}, and a running process holds it{}: the program itself, a Python process that imported the extension, a debugger or a scanner",
            u.reason.as_deref().map(|r| format!(" ({r})")).unwrap_or_default()
        ),
        format!(
            "end the process that has {name} loaded, then link again: find it with tasklist /m {name} (for a DLL), Resource Monitor (CPU > Associated Handles, search {name}) or Sysinternals handle.exe {name}; in a JIT build, kill leftover processes (python older than this attempt)"
        ),
    )
}

/// The file named is a build variable's text: the variable has no value.
fn never_expanded(file: &str, variable: &str, kind: &str) -> (String, String, String) {
    let fix = match kind {
        "cmake" => format!("CMake did not find {}: set it (cmake -D{}=<path>) or fix the find_package/find_library that should find it, then configure again", variable.trim_end_matches("-NOTFOUND"), variable.trim_end_matches("-NOTFOUND")),
        "msbuild" => format!("define the property {variable} for this project and configuration (or correct its name)"),
        "environment" => format!("set the environment variable {variable} where the build runs (or correct its name)"),
        _ => format!("define {variable} where the build expands it (or correct its name)"),
    };
    (
        format!("cannot open {file}: {variable} was never expanded"),
        format!("{file} is not a library but an unexpanded build variable ({variable}): the build system passed the variable's text because it has no value"),
        fix,
    )
}

/// A library found (or not) by lnkfix's own search.
fn located(
    scan: &Scan<'_>,
    u: &Unopened,
    libpath_fix: &dyn Fn(&str) -> String,
    notes: &mut Vec<String>,
) -> (String, String, String) {
    let file = u.file.as_str();
    let name = file_name(file);
    let has_dir = file.contains(['\\', '/']);
    if let Some(search) = scan.inputs.search {
        if let Some(path) = crate::index::discover::find_library(search.dirs, name) {
            let (on_disk, dir) = name_and_dir(&path);
            if on_disk != name && !cfg!(windows) {
                return (
                    format!("cannot open {file}: the file is {on_disk}, in another letter case"),
                    format!("{dir} holds {on_disk}; names differ in case only, which a case-sensitive file system (a cross build on Linux or macOS) does not ignore"),
                    format!("name it exactly {on_disk}, or give the linker a case-insensitive view of the directory (lld-link /vfsoverlay, or lower-case links as xwin splat makes)"),
                );
            }
            return (
                format!("cannot open {file}: it is in {dir}, which is not on the link's library path"),
                format!("{name} exists in {dir} (lnkfix found it there), but no /LIBPATH: or LIB directory of the link is that directory"),
                libpath_fix(&dir),
            );
        }
        if let Some(told) = differently_named(scan, name).map(|other| renamed(file, &other)) {
            return told;
        }
        // Another machine's copy.
        for dir in search.dirs {
            for machine in [Machine::X86, Machine::X64, Machine::Arm64] {
                let candidate = dir.path.join(name);
                if let Some(copy) = sibling(&candidate, machine) {
                    notes.push(format!(
                        "only the {machine} copy was found: {}",
                        copy.display()
                    ));
                }
            }
        }
    }
    let debug_dir = file.contains("\\Debug\\") || file.contains("/Debug/");
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s);
    if debug_dir && !stem.ends_with('d') {
        notes.push(format!(
            "in a Debug build many libraries carry a d suffix ({stem}d.lib): check the name the library's own Debug build writes"
        ));
    }
    if has_dir {
        (
            format!("cannot open {file}: no file at that path"),
            format!("{file} does not exist: the project that should make it did not build it (its build failed, or it is not a dependency of this one), or the path is wrong"),
            format!("build the project that makes {name} first (or make it a dependency), or correct the path in the link inputs"),
        )
    } else {
        (
            format!("cannot open {file}: it is in no directory of the link's library path"),
            format!("no /LIBPATH: or LIB directory of the link holds {name}"),
            format!("{} (the directory that holds {name}); build {name} first if the project makes it, or drop it if nothing needs it", libpath_fix("<dir>")),
        )
    }
}

/// The copy of `path` for `machine` in a sibling directory (`lib\x64\a.lib` → `lib\x86\a.lib`).
fn sibling(path: &Path, machine: Machine) -> Option<std::path::PathBuf> {
    let names: &[&str] = match machine {
        Machine::X86 => &["x86", "Win32"],
        Machine::X64 => &["x64", "amd64"],
        _ => &["arm64"],
    };
    let file = path.file_name()?;
    let parent = path.parent()?.parent()?;
    names
        .iter()
        .map(|n| parent.join(n).join(file))
        .find_map(|c| crate::index::discover::resolve_case_insensitive(&c))
        .filter(|c| c.parent() != path.parent() && c.is_file())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn first(log: &str) -> Problem {
        let mut d = crate::problems::diagnose_text(log);
        assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
        d.problems.remove(0)
    }

    /// An unquoted `C:\Program Files\...` reaches the linker as `C:\Program` (link.exe adds
    /// `.obj`); a real file of that name elsewhere is not mistaken for one.
    #[test]
    fn a_path_cut_at_a_space() {
        for log in [
            "LINK : fatal error LNK1181: cannot open input file 'C:\\Program.obj'\n",
            "LINK : fatal error LNK1104: cannot open file 'C:\\Program'\n",
            "lld-link: error: could not open 'D:\\Microsoft': no such file or directory\n",
        ] {
            let p = first(log);
            assert!(
                p.summary.ends_with("a path cut at a space"),
                "{log}: {}",
                p.summary
            );
            assert!(p.fix.starts_with("quote the path"), "{}", p.fix);
        }
        let p = first("LINK : fatal error LNK1181: cannot open input file 'build\\program.obj'\n");
        assert!(!p.summary.contains("cut at a space"), "{}", p.summary);
    }

    #[test]
    fn library_names_as_builds_write_them() {
        use super::library_stem;
        for (a, b) in [
            ("zlibd.lib", "zlib.lib"),
            ("libpng16.lib", "png.lib"),
            ("foo-shared.lib", "libfoo.lib"),
            ("zlibstatic.lib", "zlib.lib"),
            ("SDL2d.lib", "SDL2.lib"),
        ] {
            assert_eq!(library_stem(a), library_stem(b), "{a} {b}");
        }
        assert_ne!(library_stem("user32.lib"), library_stem("kernel32.lib"));
        // Two versions of an API are two libraries, never one under two names.
        let (a, b) = (library_stem("d3d11.lib"), library_stem("d3d12.lib"));
        assert!(!(a.is_some() && a == b), "{a:?} {b:?}");
    }

    #[test]
    fn what_the_file_is_decides_the_cause() {
        let p =
            first("LINK : fatal error LNK1104: cannot open file 'Python3_LIBRARY-NOTFOUND.lib'\n");
        assert!(p.fix.contains("cmake -DPython3_LIBRARY="), "{}", p.fix);
        let p = first(
            "LINK : fatal error LNK1181: cannot open input file '$(VcpkgRoot)\\lib\\zlib.lib'\n",
        );
        assert!(p.fix.contains("property VcpkgRoot"), "{}", p.fix);
        let p = first(
            "LINK : fatal error LNK1104: cannot open file '%OPENSSL_DIR%\\lib\\libssl.lib'\n",
        );
        assert!(
            p.fix.contains("environment variable OPENSSL_DIR"),
            "{}",
            p.fix
        );
        let p =
            first("LINK : fatal error LNK1181: cannot open input file 'obj\\Release\\main.obj'\n");
        assert!(p.cause.contains("compile failed"), "{}", p.cause);
        let p = first("LINK : fatal error LNK1104: cannot open file 'python312_d.lib'\n");
        assert!(p.fix.contains("python"), "{}", p.fix);
        let p = first("LINK : fatal error LNK1104: cannot open file 'amdhip64.lib'\n");
        assert!(p.fix.contains("%HIP_PATH%\\lib"), "{}", p.fix);
        let p = first("LINK : fatal error LNK1168: cannot open bin\\app.exe for writing\n");
        assert!(p.summary.contains("in use"), "{}", p.summary);
        let p = first("lld-link: error: failed to write output 'ext.pyd': permission denied\n");
        assert!(p.fix.contains("tasklist /m ext.pyd"), "{}", p.fix);
        let p = first("LINK : fatal error LNK1104: cannot open file 'C:\\build\\Debug\\fmt.lib'\n");
        assert!(
            p.notes.iter().any(|n| n.contains("fmtd.lib")),
            "{:?}",
            p.notes
        );
        let p = first(
            "LINK : fatal error LNK1104: cannot open file 'kernel32.lib'\nLINK : fatal error LNK1104: cannot open file 'uuid.lib'\n",
        );
        assert_eq!(p.subjects, ["kernel32.lib", "uuid.lib"]);
        assert_eq!(p.lines, [1, 2]);
    }
}
