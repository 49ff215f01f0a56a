//! Machine mismatches (docs/RULES.md §20): a module built for another machine than the link's.
//! Read from LNK1112 (`module machine type 'x86' conflicts with target machine type 'x64'`),
//! LNK4272 (the same for a library, a warning), lld-link's `X: machine type x86 conflicts with
//! x64`, and unresolved names in the other machine's form (x86 `_malloc` against x64 libraries
//! that define `malloc`, marked by the resolver). The answer names the module, both machines, the
//! right-machine copy of the library when one is on disk, the log lines that show which machine
//! the build meant, and the fix: the developer prompt of the target machine when the module is a
//! Visual C++ or SDK library, the other build of a third-party library, a rebuild of an object.

use std::path::{Path, PathBuf};

use super::text::{file_name, library_file, machines};
use super::{join_words, some_of, Problem, ProblemKind, Scan};
use crate::machine::Machine;
use crate::read::linklog::Finding;
use crate::resolve::ExplainedKind;
use crate::rules::roles::{LibraryRole, Roles};

/// One module of the wrong machine.
struct Side {
    /// The module as shown (`msvcrt.lib(chkstk.obj)`, `C:\openssl\lib\libssl.lib`).
    module: String,
    /// Its machine, and the word that shows it.
    module_machine: (Machine, String),
    /// The link's machine, and the word that shows it.
    target_machine: (Machine, String),
    line: u64,
}

/// The module and machines of a LNK1112/LNK4272 or lld-link record.
fn side(finding: &Finding) -> Option<Side> {
    let found = machines(&finding.text);
    let [module_machine, target_machine, ..] = found.as_slice() else {
        return None;
    };
    let module = if finding.code.starts_with("lld-link") {
        let at = finding.text.find(": machine type")?;
        finding.text[..at].trim().to_string()
    } else {
        super::duplicate::prefix_object(finding)
            .or(finding.objects.first().map(String::as_str))?
            .to_string()
    };
    Some(Side {
        module,
        module_machine: module_machine.clone(),
        target_machine: target_machine.clone(),
        line: finding.line,
    })
}

/// `an` before a machine name that is read with a vowel sound (`an x86`, `an arm64`).
fn article(machine: Machine) -> &'static str {
    if machine.to_string().starts_with(['a', 'e', 'x', 'i']) {
        "an"
    } else {
        "a"
    }
}

/// The developer prompt that sets up the libraries of `machine`.
fn prompt(machine: Machine) -> String {
    match machine {
        Machine::X86 => {
            "the x86 Native Tools prompt (vcvars32.bat, or vcvarsall.bat x86 / amd64_x86)".into()
        }
        Machine::X64 => "the x64 Native Tools prompt (vcvars64.bat, or vcvarsall.bat x64)".into(),
        Machine::Arm64 => {
            "the ARM64 Native Tools prompt (vcvarsall.bat arm64 / amd64_arm64)".into()
        }
        other => format!("the {other} developer prompt (vcvarsall.bat {other})"),
    }
}

/// The directory names a machine's libraries live in.
fn machine_dirs(machine: Machine) -> &'static [&'static str] {
    match machine {
        Machine::X86 => &["x86", "i386", "Win32", "lib32"],
        Machine::X64 => &["x64", "amd64", "x86_64", "lib64"],
        Machine::Arm64 => &["arm64", "aarch64"],
        _ => &[],
    }
}

/// The same library for `machine` beside `path`: `...\lib\x64\libcmt.lib` → `...\lib\x86\libcmt.lib`.
fn sibling_copy(path: &Path, machine: Machine) -> Option<PathBuf> {
    let file = path.file_name()?;
    let dir = path.parent()?;
    let parent = dir.parent()?;
    machine_dirs(machine)
        .iter()
        .map(|d| parent.join(d).join(file))
        .find_map(|candidate| crate::index::discover::resolve_case_insensitive(&candidate))
        .filter(|p| p.is_file() && p != path)
}

/// The directory of `machine` beside `dir` (`lib\x86` beside `lib\x64`), when it exists.
fn sibling_dir(dir: &Path, machine: Machine) -> Option<PathBuf> {
    let parent = dir.parent()?;
    machine_dirs(machine)
        .iter()
        .map(|d| parent.join(d))
        .find_map(|candidate| crate::index::discover::resolve_case_insensitive(&candidate))
        .filter(|p| p.is_dir() && p != dir)
}

/// Whether a module is a Visual C++ or Windows SDK library (its role is known, or it is a CRT
/// library): then the environment, not the library, is for the wrong machine.
fn is_toolset_library(module: &str) -> bool {
    let Some(library) = library_file(module) else {
        return false;
    };
    let role = Roles::builtin().role_of(library);
    role.explicit && role.role != LibraryRole::ThirdParty
}

/// The machine mismatch of the diagnosis, when it shows one.
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let mut sides: Vec<Side> = Vec::new();
    let mut records = scan.unclaimed(&["LNK1112", "LNK4272", "LNK1113"]);
    records.extend(scan.diagnosis.findings.iter().enumerate().filter(|(i, f)| {
        !scan.claimed[*i]
            && f.code.starts_with("lld-link")
            && f.text.contains("machine type")
            && f.text.contains(" conflicts with ")
    }));
    for (i, f) in records {
        if let Some(s) = side(f) {
            sides.push(s);
            scan.claim(i);
        }
    }
    let named = scan.explained_as(ExplainedKind::MachineMismatch);
    if sides.is_empty() && named.is_empty() {
        return Vec::new();
    }
    let mut out = Vec::new();
    if !sides.is_empty() {
        out.push(from_records(scan, &sides));
    }
    if !named.is_empty() {
        out.push(from_names(scan, &named));
    }
    out
}

/// The problem of LNK1112/LNK4272/lld-link records.
fn from_records(scan: &Scan<'_>, sides: &[Side]) -> Problem {
    let first = &sides[0];
    let (module_m, target_m) = (first.module_machine.0, first.target_machine.0);
    let modules: Vec<String> = sides.iter().map(|s| s.module.clone()).collect();
    let summary = format!(
        "{} {} built for {module_m}, the link is for {target_m}",
        some_of(&modules, 3),
        if modules.len() == 1 { "is" } else { "are" },
    );
    let (cause, fix) = records_cause_and_fix(scan, sides, &modules);
    let mut problem = Problem::new(ProblemKind::MachineMismatch, summary, cause, fix);
    for s in sides {
        problem.line(s.line);
        problem.subject(s.module.clone());
    }
    for s in sides {
        problem.subject(s.module_machine.1.clone());
        problem.subject(s.target_machine.1.clone());
    }
    cite_intended(scan, &mut problem, &[module_m, target_m]);
    if problem.cause.starts_with("CMake's ") {
        if let Some(platform) = cmake_platform(scan, target_m) {
            for (line, text) in &platform.lines {
                problem.cite(*line, text);
            }
        }
    }
    if let Some(search) = scan.inputs.search {
        for s in sides {
            let Some(library) = library_file(&s.module) else {
                continue;
            };
            if let Some(path) = crate::index::discover::find_library(search.dirs, library) {
                let copy = sibling_copy(&path, target_m)
                    .filter(|_| !path_is_for(&path, target_m))
                    .or_else(|| path_is_for(&path, target_m).then(|| path.clone()));
                if let Some(copy) = copy {
                    problem
                        .notes
                        .push(format!("the {target_m} {library} is at {}", copy.display()));
                }
            }
        }
    }
    problem
}

/// The cause and the fix of modules of another machine, by what the modules are. Long because
/// it is one branch per kind of module, tried in order; each branch is its two sentences.
fn records_cause_and_fix(scan: &Scan<'_>, sides: &[Side], modules: &[String]) -> (String, String) {
    let first = &sides[0];
    let (module_m, target_m) = (first.module_machine.0, first.target_machine.0);
    let toolset_library = sides.iter().any(|s| is_toolset_library(&s.module));
    let objects_only = sides
        .iter()
        .all(|s| library_file(&s.module).is_none() && !s.module.contains('('));
    let cmake = (!toolset_library)
        .then(|| cmake_platform(scan, target_m))
        .flatten();
    if is_arm64ec_rejection(scan, first) {
        (
            format!(
                "an ARM64EC link takes {module_m} code by design (ARM64X libraries hold both), and this lld-link rejects it"
            ),
            "link with MSVC's link.exe (for Rust: -C linker=link.exe, or the default linker of the *-pc-windows-msvc target) until lld-link's ARM64EC support accepts the library".into(),
        )
    } else if let Some(platform) = cmake {
        let names: Vec<String> = modules.iter().map(|m| file_name(m).to_string()).collect();
        (
            format!(
                "CMake's {} generator made the Visual Studio projects for {} ({}), so the link is for {target_m}, while {} {} {module_m}: a Visual Studio generator's platform is fixed when its build directory is first configured",
                platform.generator,
                platform_name(target_m),
                platform.shown_by,
                join_words(&names),
                if names.len() == 1 { "is" } else { "are" },
            ),
            format!(
                "configure a new build directory for {module_m}: cmake -S <source> -B <new build directory>{} -A {} (an existing build directory keeps the platform it was first configured with: delete it, or at least its CMakeCache.txt); or, to stay with {target_m}, link the {target_m} build of {}",
                if platform.generator_name == "Visual Studio" {
                    String::new()
                } else {
                    format!(" -G \"{}\"", platform.generator_name)
                },
                platform_name(module_m),
                join_words(&names)
            ),
        )
    } else if let Some(python) = modules.iter().find(|m| is_python_library(m)) {
        let python = file_name(python);
        (
            format!(
                "{python} belongs to {} {module_m} Python, and an extension module or embedding program must be built for the machine of the Python it loads into: the compiler targets {target_m}",
                article(module_m)
            ),
            format!(
                "build against {} {target_m} Python (CMake: -DPython_EXECUTABLE=<its python.exe>; setuptools: run it with that Python), or build from {} to keep this one",
                article(target_m),
                prompt(module_m)
            ),
        )
    } else if toolset_library {
        (
            format!(
                "the Visual C++/Windows SDK libraries on the library path (LIB) are the {module_m} ones: the environment was set up for {module_m} while the build targets {target_m}"
            ),
            format!(
                "link from {} (for cargo: run it from that prompt; cargo clean first), so that LIB holds the {target_m} libraries",
                prompt(target_m)
            ),
        )
    } else if let Some(told) = objects_only
        .then(|| generated_or_link_side(scan, modules, module_m, target_m))
        .flatten()
    {
        told
    } else if objects_only {
        (
            format!(
                "{} {} compiled for {module_m}: a stale object from {} {module_m} build, or a compiler for the wrong machine",
                join_words(modules),
                if modules.len() == 1 { "was" } else { "were" },
                article(module_m)
            ),
            format!(
                "rebuild {} for {target_m} (a clean rebuild; check that the compiler is the {target_m} one, e.g. Hostx64\\{target_m}\\cl.exe)",
                join_words(modules)
            ),
        )
    } else {
        let names: Vec<String> = modules.iter().map(|m| file_name(m).to_string()).collect();
        (
            format!(
                "{} {} built for {module_m} and cannot be linked into {} {target_m} program",
                join_words(&names),
                if names.len() == 1 { "was" } else { "were" },
                article(target_m)
            ),
            format!(
                "link the {target_m} build of {} (rebuild it for {target_m}, or point the build at its {target_m} directory), or build the whole project for {module_m}",
                join_words(&names)
            ),
        )
    }
}

/// The `-A` platform of a Visual Studio generator for `machine` (`Win32` for x86).
fn platform_name(machine: Machine) -> String {
    match machine {
        Machine::X86 => "Win32".into(),
        Machine::X64 => "x64".into(),
        Machine::Arm64 => "ARM64".into(),
        Machine::Arm64ec => "ARM64EC".into(),
        other => other.to_string(),
    }
}

/// A CMake Visual Studio generator and what shows the platform it chose.
struct CmakePlatform {
    /// The generator as the log shows it (`Visual Studio 15 2017`).
    generator: String,
    /// The generator's name for `-G`, without the old platform suffix (`Win64`, `ARM`).
    generator_name: String,
    /// What shows the platform (`-A Win32 on line 2`, `the default platform of ...`).
    shown_by: String,
    /// The lines that show it.
    lines: Vec<(u64, String)>,
}

/// The platform a CMake Visual Studio generator chose, when the log shows the generator and
/// that platform is `target`: `-A`, `CMAKE_GENERATOR_PLATFORM`, a generator name with `Win64`,
/// the compiler CMake found (`Hostx64/x86`), a `Win32\Release\` directory, or the generator's
/// default (Win32 before Visual Studio 2019, the host's x64 since).
fn cmake_platform(scan: &Scan<'_>, target: Machine) -> Option<CmakePlatform> {
    let context = scan.inputs.context.get();
    let generator = context.generators.first();
    let name = generator.map_or("Visual Studio", |g| g.value.as_str());
    let generator_name = ["Win64", "ARM64", "ARM"]
        .iter()
        .find_map(|suffix| name.strip_suffix(suffix))
        .unwrap_or(name)
        .trim()
        .to_string();
    let mut lines: Vec<(u64, String)> =
        generator.iter().map(|g| (g.line, g.text.clone())).collect();
    let explicit = context.machines.iter().find(|m| {
        let shown = m.value.shown_by.to_ascii_lowercase();
        m.value.machine == target
            && (shown.starts_with("-a")
                || shown.contains("generator_platform")
                || shown.starts_with("platform")
                || (shown.starts_with("host") && m.text.starts_with("--")))
    });
    let dir = context
        .platform_dirs
        .iter()
        .find(|m| m.value.machine == target);
    // Without the generator's line only CMake's own options say it is CMake's platform.
    let cmake_option = explicit.is_some_and(|m| {
        let shown = m.value.shown_by.to_ascii_lowercase();
        shown.starts_with("-a") || shown.contains("generator_platform")
    });
    if generator.is_none() && !cmake_option {
        return None;
    }
    let shown_by = if let Some(m) = explicit.or(dir) {
        lines.push((m.line, m.text.clone()));
        format!("{} on line {}", m.value.shown_by, m.line)
    } else {
        let version: u32 = name
            .split_whitespace()
            .nth(2)
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        let default = if name.ends_with("Win64") {
            Machine::X64
        } else if name.ends_with("ARM64") {
            Machine::Arm64
        } else if version > 0 && version < 16 {
            Machine::X86
        } else {
            Machine::X64
        };
        let other_shown = context
            .machines
            .iter()
            .any(|m| m.value.shown_by.to_ascii_lowercase().starts_with("-a"));
        if default != target || other_shown {
            return None;
        }
        format!("the platform {name} chooses when -A is not given")
    };
    Some(CmakePlatform {
        generator: name.to_string(),
        generator_name,
        shown_by,
        lines,
    })
}

/// Whether lld-link rejected x64 or ARM64 code in an ARM64EC link, which takes it by design.
fn is_arm64ec_rejection(scan: &Scan<'_>, side: &Side) -> bool {
    let lld = scan
        .diagnosis
        .findings
        .iter()
        .any(|f| f.code.starts_with("lld-link") && f.line == side.line);
    lld && matches!(
        (side.module_machine.0, side.target_machine.0),
        (Machine::Arm64 | Machine::X64, Machine::Arm64ec)
    )
}

/// The machine an assembler's object format makes (`win32` → x86, `win64` → x64).
fn format_machine(format: &str) -> Option<Machine> {
    match format {
        "win32" | "coff" => Some(Machine::X86),
        "win64" | "x64" => Some(Machine::X64),
        _ => None,
    }
}

/// Whether a mention shows the environment the tools were set up for (a prompt, `TARGET_ARCH`, a
/// 32-bit Python that picks the x86 compilers, the host and target directory of the compiler),
/// rather than what the code was built for.
fn is_environment(shown_by: &str) -> bool {
    let lower = shown_by.to_ascii_lowercase();
    [
        "vcvars",
        "native tools",
        "cross tools",
        "target_",
        "_tgt_arch",
        "host",
        "-32",
        "environment.",
    ]
    .iter()
    .any(|w| lower.contains(w))
}

/// Objects of another machine than the link, when the log says which side is wrong: an object an
/// assembler generated for that machine (a clean rebuild makes it again: the assembler's format is
/// the fix), or objects the log shows were meant for their machine while the environment set the
/// link up for the other (the link is what is wrong).
fn generated_or_link_side(
    scan: &Scan<'_>,
    modules: &[String],
    module_m: Machine,
    target_m: Machine,
) -> Option<(String, String)> {
    let context = scan.inputs.context.get();
    if let Some(told) = assembled(context, modules, module_m, target_m) {
        return Some(told);
    }
    let for_module: Vec<&str> = context
        .machines
        .iter()
        .filter(|m| m.value.machine == module_m)
        .map(|m| m.value.shown_by.as_str())
        .collect();
    let for_target: Vec<&str> = context
        .machines
        .iter()
        .filter(|m| m.value.machine == target_m)
        .map(|m| m.value.shown_by.as_str())
        .collect();
    let code_for_module = for_module.iter().any(|m| !is_environment(m));
    let target_by_environment =
        !for_target.is_empty() && for_target.iter().all(|m| is_environment(m));
    if !(code_for_module && (for_target.is_empty() || target_by_environment)) {
        return None;
    }
    let why = for_target
        .first()
        .map(|m| format!(", set up for {target_m} by {m}"))
        .unwrap_or_default();
    Some((
        format!(
            "the build is for {module_m} ({}), and {} {} compiled for it; the link alone is for {target_m}{why}",
            for_module.iter().find(|m| !is_environment(m)).copied().unwrap_or_default(),
            join_words(modules),
            if modules.len() == 1 { "was" } else { "were" },
        ),
        format!(
            "link for {module_m}, not a rebuild of the objects: run the build from {} (a build driven by Python: a {module_m} Python), so that the linker and its libraries are the {module_m} ones",
            prompt(module_m)
        ),
    ))
}

/// An object the assembler generated for the module's machine (`nasm -f win32`): a clean rebuild
/// makes the same object again, so the fix is the assembler's format.
fn assembled(
    context: &super::LogContext,
    modules: &[String],
    module_m: Machine,
    target_m: Machine,
) -> Option<(String, String)> {
    let wanted_format = match target_m {
        Machine::X86 => "win32",
        Machine::X64 => "win64",
        _ => "",
    };
    let asm = context
        .assembler_formats
        .iter()
        .find(|m| format_machine(&m.value) == Some(module_m))?;
    Some((
        format!(
            "{} {} generated by the assembler for {module_m} (line {}: -f {}): a clean rebuild makes the same object again",
            join_words(modules),
            if modules.len() == 1 { "was" } else { "were" },
            asm.line,
            asm.value
        ),
        format!(
            "assemble for {target_m}: change the assembler's format to -f {wanted_format} in the build (or the assembler rule that sets it), then rebuild"
        ),
    ))
}

/// Whether a module is a Python installation's import library (`python310.lib`, `python3.lib`,
/// `python312_d.lib`).
fn is_python_library(module: &str) -> bool {
    let name = file_name(module).to_ascii_lowercase();
    name.strip_prefix("python")
        .and_then(|rest| rest.strip_suffix(".lib"))
        .map(|rest| rest.strip_suffix("_d").unwrap_or(rest))
        .is_some_and(|v| !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether a library path sits in a directory of `machine` (`...\lib\x64\x.lib`).
fn path_is_for(path: &Path, machine: Machine) -> bool {
    path.parent().and_then(|d| d.file_name()).is_some_and(|d| {
        machine_dirs(machine)
            .iter()
            .any(|m| d.eq_ignore_ascii_case(m))
    })
}

/// The problem of names in the other machine's form.
fn from_names(scan: &Scan<'_>, named: &[&crate::resolve::ResolvedSymbol]) -> Problem {
    let explained = named[0].explained_by().expect("filtered");
    let name_machine = explained.name_machine;
    let name_m = name_machine.map(|m| m.to_string()).unwrap_or_default();
    // `library_machine` reads "x64 (msvcrt.lib)": the machine, then the library.
    let library_machine = explained
        .library_machine
        .as_deref()
        .and_then(|m| m.split_whitespace().next())
        .and_then(Machine::from_name)
        .unwrap_or(Machine::X64);
    let library_m = library_machine.to_string();
    let names: Vec<String> = named.iter().map(|s| s.symbol.name().to_string()).collect();
    let forms: Vec<String> = named
        .iter()
        .filter_map(|s| {
            let e = s.explained_by()?;
            Some(format!(
                "{} in {}",
                e.other_form.clone()?,
                e.library_machine
                    .as_deref()?
                    .split_once(' ')?
                    .1
                    .trim_matches(['(', ')'])
            ))
        })
        .collect();
    let ecosystem = ecosystem_library(named);
    let libraries = other_form_libraries(scan, named);
    let source = one_source(&libraries);
    let summary = names_summary(ecosystem.as_deref(), source, &name_m, &library_m, &names);
    let cause = format!(
        "{} carry {name_m} names ({}), and the {library_m} libraries define them under their {library_m} names ({}): the objects were compiled for {name_m} while the libraries are {library_m}",
        join_words(&objects_of(named)),
        some_of(&names, 3),
        some_of(&forms, 3)
    );
    let fix = match ecosystem.as_deref().zip(name_machine) {
        Some((library, name_machine)) => ecosystem_fix(library, name_machine, library_machine),
        None => {
            let sibling =
                name_machine.and_then(|m| source.and_then(|(_, dir)| sibling_dir(dir, m)));
            machine_fix_by_source(
                source,
                name_machine,
                &name_m,
                &library_m,
                sibling.as_deref(),
            )
        }
    };
    let mut problem = Problem::new(ProblemKind::MachineMismatch, summary, cause, fix);
    for s in named {
        problem.line(s.symbol.first_line);
    }
    for object in objects_of(named) {
        problem.subject(object);
    }
    for name in names {
        problem.subject(name);
    }
    problem.subject(name_m.clone());
    problem.subject(library_m.clone());
    for (object, machine) in &scan.diagnosis_object_machines() {
        problem.notes.push(format!(
            "{object} is a {machine} object (read from the file)"
        ));
    }
    let machines: Vec<Machine> = name_machine.into_iter().chain([library_machine]).collect();
    cite_intended(scan, &mut problem, &machines);
    note_other_machine_copies(&libraries, name_machine, &library_m, &mut problem);
    problem
}

/// The headline of names in the other machine's form: the ecosystem's library when one defines
/// them all, and where the libraries came from when one source supplied them.
fn names_summary(
    ecosystem: Option<&str>,
    source: Option<(&str, &Path)>,
    name_m: &str,
    library_m: &str,
    names: &[String],
) -> String {
    let from = source
        .map(|(origin, _)| format!(" (from {origin})"))
        .unwrap_or_default();
    format!(
        "{}: {} {} only in {library_m} form",
        match ecosystem {
            Some(library) => {
                format!("this build is {name_m}; the {library} found is {library_m}{from}")
            }
            None =>
                format!("the objects are {name_m}, the libraries searched are {library_m}{from}"),
        },
        some_of(names, 3),
        if names.len() == 1 { "exists" } else { "exist" }
    )
}

/// The one library of an ecosystem (Python's `python3XX.lib`, Node's `node.lib`) that defines
/// every name in the other machine's form, when it is one: the fix is then said in its terms.
fn ecosystem_library(named: &[&crate::resolve::ResolvedSymbol]) -> Option<String> {
    let mut libraries = named.iter().filter_map(|s| {
        let (_, library) = s
            .explained_by()?
            .library_machine
            .as_deref()?
            .split_once(' ')?;
        Some(library.trim_matches(['(', ')']).to_string())
    });
    let first = libraries.next()?;
    let lower = first.to_ascii_lowercase();
    let ours = (lower.starts_with("python3") && lower.ends_with(".lib"))
        || lower == "node.lib"
        || is_cuda_library(&lower);
    (ours && libraries.all(|l| l == first)).then_some(first)
}

/// Whether a library file name (lower case) is one of the CUDA toolkit's import or static
/// libraries.
fn is_cuda_library(lower: &str) -> bool {
    const CUDA: &[&str] = &[
        "cudart.lib",
        "cudart_static.lib",
        "cuda.lib",
        "cublas.lib",
        "cublaslt.lib",
        "cufft.lib",
        "curand.lib",
        "cusparse.lib",
        "cusolver.lib",
        "nvrtc.lib",
    ];
    CUDA.contains(&lower)
}

/// The fix of an x86/x64 mismatch against Python's, Node's or CUDA's own library, in its terms.
fn ecosystem_fix(library: &str, objects: Machine, libraries: Machine) -> String {
    if is_cuda_library(&library.to_ascii_lowercase()) {
        return if objects == Machine::X86 {
            format!(
                "build for {libraries}: CUDA 12 and later ship {libraries} libraries only (%CUDA_PATH%\\lib\\x64, no lib\\Win32), so an x86 build cannot link {library}: Platform x64 in Visual Studio, cmake -A x64, or the x64 Native Tools prompt for nvcc and the linker"
            )
        } else {
            format!(
                "link the {objects} {library} of %CUDA_PATH%\\lib\\x64 (the {libraries} one found is from lib\\Win32 of an older toolkit), or build for {libraries}"
            )
        };
    }
    let node_arch = |m: Machine| {
        if m == Machine::X86 {
            "ia32".to_string()
        } else {
            m.to_string()
        }
    };
    if library.eq_ignore_ascii_case("node.lib") {
        format!(
            "build the addon for the Node it runs in: node-gyp rebuild --arch={} links the {libraries} node.lib found; for an {} Node, node-gyp rebuild --arch={} fetches its node.lib (the {} headers)",
            node_arch(libraries),
            node_arch(objects),
            node_arch(objects),
            node_arch(objects)
        )
    } else {
        format!(
            "the {library} found is {} {libraries} Python's: to build for that Python, compile from {}; to build for {} {objects} Python, link its own <sys.base_prefix>\\libs\\{library} from {}",
            article(libraries),
            prompt(libraries),
            article(objects),
            prompt(objects)
        )
    }
}

/// The libraries that define the names in the other machine's form, each once: its file name,
/// where it is, and the source of its directory (`LIB`, `--lib-dir`, `HIP_PATH`, ...) when a
/// directory searched holds it.
fn other_form_libraries(
    scan: &Scan<'_>,
    named: &[&crate::resolve::ResolvedSymbol],
) -> Vec<(String, PathBuf, Option<String>)> {
    let Some(search) = scan.inputs.search else {
        return Vec::new();
    };
    let mut out: Vec<(String, PathBuf, Option<String>)> = Vec::new();
    for s in named {
        let Some(library) = s
            .explained_by()
            .and_then(|e| e.library_machine.as_deref())
            .and_then(|m| m.split_once(' '))
            .map(|(_, l)| l.trim_matches(['(', ')']).to_string())
        else {
            continue;
        };
        if out.iter().any(|(l, _, _)| *l == library) {
            continue;
        }
        if let Some(path) = crate::index::discover::find_library(search.dirs, &library) {
            let origin = path.parent().and_then(|parent| {
                search
                    .dirs
                    .iter()
                    .find(|d| d.path == parent)
                    .map(|d| d.origin.clone())
            });
            out.push((library, path, origin));
        }
    }
    out
}

/// The one source of the directories that hold the other machine's libraries (`LIB`), when they
/// all come from one, and the first of those directories.
fn one_source(libraries: &[(String, PathBuf, Option<String>)]) -> Option<(&str, &Path)> {
    let (_, path, origin) = libraries.first()?;
    let origin = origin.as_deref()?;
    libraries
        .iter()
        .all(|(_, _, o)| o.as_deref() == Some(origin))
        .then(|| (origin, path.parent().unwrap_or(path)))
}

/// The fix of names in the other machine's form, by where the libraries searched came from:
/// `LIB` is the developer prompt's, `--lib-dir` and `--lib` are what lnkfix was given, and a
/// layout (`--vc-lib`, `VCToolsInstallDir`) follows `--arch`.
fn machine_fix_by_source(
    source: Option<(&str, &Path)>,
    name_machine: Option<Machine>,
    name_m: &str,
    library_m: &str,
    sibling: Option<&Path>,
) -> String {
    let prompt_text =
        name_machine.map_or_else(|| "the developer prompt of their machine".into(), prompt);
    match source {
        Some(("LIB", dir)) => format!(
            "link with the {name_m} libraries: the LIB variable names {library_m} directories ({}); open {prompt_text}, whose LIB names the {name_m} ones, and build (and run lnkfix) from there, or compile the objects for {library_m}",
            dir.display()
        ),
        Some((origin @ ("--lib-dir" | "--lib"), dir)) => format!(
            "lnkfix was given {library_m} libraries by {origin} ({}){}; if the link searched {name_m} libraries, pass those instead to see what it saw; otherwise link with the {name_m} libraries from {prompt_text}, or compile the objects for {library_m}",
            dir.display(),
            sibling
                .map(|s| format!(": the {name_m} ones are at {}", s.display()))
                .unwrap_or_default()
        ),
        _ => format!(
            "link with the {name_m} libraries: from {prompt_text} (or pass lnkfix --arch {name_m}), or compile the objects for {library_m}"
        ),
    }
}

/// Notes where the libraries of the objects' machine are, when a copy sits beside the library
/// searched (`lib\x86` beside `lib\x64`), and where the libraries searched came from.
fn note_other_machine_copies(
    libraries: &[(String, PathBuf, Option<String>)],
    name_machine: Option<Machine>,
    library_m: &str,
    problem: &mut Problem,
) {
    let mut dirs_noted: Vec<&Path> = Vec::new();
    for (library, path, origin) in libraries {
        let dir = path.parent().unwrap_or(path);
        if let Some(origin) = origin.as_deref().filter(|_| !dirs_noted.contains(&dir)) {
            dirs_noted.push(dir);
            problem.notes.push(format!(
                "the {library_m} libraries searched in {} come from {origin}",
                dir.display()
            ));
        }
        let Some(name_m) = name_machine else {
            continue;
        };
        if let Some(copy) = sibling_copy(path, name_m) {
            problem
                .notes
                .push(format!("the {name_m} {library} is at {}", copy.display()));
        }
    }
}

/// The referencing objects of some symbols, in order.
fn objects_of(symbols: &[&crate::resolve::ResolvedSymbol]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in symbols {
        for r in &s.symbol.references {
            if let Some(o) = r.object.as_ref().filter(|o| o.as_str() != "<root>") {
                if !out.iter().any(|x| o == x) {
                    out.push(o.to_string());
                }
            }
        }
    }
    if out.is_empty() {
        out.push("the objects".into());
    }
    out
}

/// Cites the log lines that show which machine the build meant.
fn cite_intended(scan: &Scan<'_>, problem: &mut Problem, machines: &[Machine]) {
    for mention in scan
        .inputs
        .context
        .get()
        .machines
        .iter()
        .filter(|m| machines.contains(&m.value.machine))
        .take(4)
    {
        problem.cite(mention.line, &mention.text);
        problem.notes.push(format!(
            "line {} shows {} ({})",
            mention.line, mention.value.machine, mention.value.shown_by
        ));
    }
}

impl Scan<'_> {
    /// The objects the log names whose machine was read from the file.
    fn diagnosis_object_machines(&self) -> Vec<(String, String)> {
        self.inputs
            .object_machines
            .iter()
            .map(|(o, m)| (o.clone(), m.to_string()))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::problems::ProblemKind;

    use crate::problems::diagnose_text as diagnose;

    /// The fix of names in the other machine's form follows where the libraries came from.
    #[test]
    fn the_fix_follows_the_libraries_source() {
        use super::{machine_fix_by_source, one_source, Machine};
        use std::path::{Path, PathBuf};
        let dir = Path::new("C:/VC/lib/x64");
        let from_lib =
            machine_fix_by_source(Some(("LIB", dir)), Some(Machine::X86), "x86", "x64", None);
        assert!(
            from_lib.contains("the LIB variable names x64 directories (C:/VC/lib/x64)"),
            "{from_lib}"
        );
        assert!(
            from_lib.contains("vcvars32.bat") && !from_lib.contains("--arch"),
            "{from_lib}"
        );
        let sibling = Path::new("C:/VC/lib/x86");
        let given = machine_fix_by_source(
            Some(("--lib-dir", dir)),
            Some(Machine::X86),
            "x86",
            "x64",
            Some(sibling),
        );
        assert!(given.starts_with("lnkfix was given x64 libraries by --lib-dir (C:/VC/lib/x64): the x86 ones are at C:/VC/lib/x86"), "{given}");
        let layout = machine_fix_by_source(
            Some(("--vc-lib", dir)),
            Some(Machine::X86),
            "x86",
            "x64",
            None,
        );
        assert!(layout.contains("(or pass lnkfix --arch x86)"), "{layout}");
        // One source only when every library comes from it.
        let a = (
            String::from("a.lib"),
            PathBuf::from("C:/VC/lib/x64/a.lib"),
            Some(String::from("LIB")),
        );
        let b = (
            String::from("b.lib"),
            PathBuf::from("C:/HIP/lib/b.lib"),
            Some(String::from("HIP_PATH")),
        );
        assert_eq!(
            one_source(std::slice::from_ref(&a)).map(|(o, _)| o),
            Some("LIB")
        );
        assert_eq!(one_source(&[a.clone(), b]), None);
        let unknown = (String::from("c.lib"), PathBuf::from("C:/x/c.lib"), None);
        assert_eq!(one_source(&[a, unknown]), None);
    }

    /// An object the assembler generated for x86: the assembler's format is the fix, not a
    /// rebuild (which makes the same object again).
    #[test]
    fn a_generated_object_is_fixed_at_its_generator() {
        let d = diagnose(
            "[3/9] nasm -f win32 -o crypto\\aes_x86.obj crypto\\aes_x86.asm\n\
             crypto\\aes_x86.obj : fatal error LNK1112: module machine type 'x86' conflicts with target machine type 'x64'\n",
        );
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::MachineMismatch);
        assert!(p.fix.contains("-f win64"), "{}", p.fix);
        assert!(p.cause.contains("assembler"), "{}", p.cause);
    }

    /// A CMake build directory configured for the other platform is named with its fix.
    #[test]
    fn a_cmake_platform_behind_lnk1112() {
        let d = diagnose(
            "cmake -G \"Visual Studio 17 2022\" -A Win32 ..\n\
             vendor.obj : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'x86'\n",
        );
        let p = &d.problems[0];
        assert!(p.cause.contains("-A Win32 on line 1"), "{}", p.cause);
        assert!(
            p.fix.starts_with(
                "configure a new build directory for x64: cmake -S <source> -B <new build directory> -G \"Visual Studio 17 2022\" -A x64"
            ),
            "{}",
            p.fix
        );
        // The generator's own line and the compiler CMake found, with no -A: a library.
        let d = diagnose(
            "-- Building for: Visual Studio 17 2022\n\
             -- Check for working CXX compiler: C:/VS/VC/Tools/MSVC/14.38.33130/bin/Hostx64/x86/cl.exe - skipped\n\
             core.lib(core.obj) : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'x86'\n",
        );
        let p = &d.problems[0];
        assert!(p.cause.starts_with("CMake's Visual Studio 17 2022 generator made the Visual Studio projects for Win32 (Hostx64/x86/ on line 2)"), "{}", p.cause);
        assert!(p.fix.contains("-A x64"), "{}", p.fix);
        assert_eq!(p.lines, vec![1, 2, 3]);
        // Visual Studio 15 2017 without Win64 makes Win32 projects: the default is the cause.
        let d = diagnose(
            "cmake .. -G \"Visual Studio 15 2017\"\n\
             LINK : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'x86' [C:\\b\\app.vcxproj]\n",
        );
        assert!(
            d.problems[0]
                .cause
                .contains("the platform Visual Studio 15 2017 chooses when -A is not given"),
            "{}",
            d.problems[0].cause
        );
        // The reverse: x86 libraries in an x64 build: -A Win32.
        let d = diagnose(
            "-- Building for: Visual Studio 16 2019\n\
             C:\\deps\\lib\\zlib.lib : fatal error LNK1112: module machine type 'x86' conflicts with target machine type 'x64'\n",
        );
        assert!(
            d.problems[0].fix.contains("-A Win32"),
            "{}",
            d.problems[0].fix
        );
        // A plain MSBuild project's Platform, or the compiler of a ninja build: not CMake's.
        for shown in [
            "Building 'app.vcxproj' with Configuration=Release;Platform=Win32\n",
            "-- Check for working CXX compiler: C:/VS/bin/Hostx64/x86/cl.exe - skipped\n",
        ] {
            let d = diagnose(&format!("{shown}core.lib(core.obj) : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'x86'\n"));
            assert!(
                !d.problems[0].cause.starts_with("CMake's"),
                "{}",
                d.problems[0].cause
            );
        }
        // ninja, no Visual Studio generator: not this answer.
        let d = diagnose(
            "-- Building for: NMake Makefiles\n\
             core.lib(core.obj) : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'x86'\n",
        );
        assert!(
            !d.problems[0].cause.starts_with("CMake's"),
            "{}",
            d.problems[0].cause
        );
    }

    /// The same log with the machines of the object and the link swapped gives the opposite fix:
    /// when the code was built for one machine and only the environment set the link up for the
    /// other, the link is what is wrong; with no such evidence, the object is rebuilt.
    #[test]
    fn the_side_that_is_wrong_gets_the_fix() {
        let log = |code: &str, env: &str, module: &str, target: &str| {
            format!(
                "set TARGET_ARCH={env}\n[1/2] clang-cl --target={code}-pc-windows-msvc /c app.cpp /Foapp.obj\n\
                 app.obj : fatal error LNK1112: module machine type '{module}' conflicts with target machine type '{target}'\n"
            )
        };
        let d = diagnose(&log("x86_64", "x86", "x64", "x86"));
        assert!(
            d.problems[0].fix.starts_with("link for x64, not a rebuild"),
            "{}",
            d.problems[0].fix
        );
        assert!(
            d.problems[0].cause.contains("TARGET_ARCH=x86"),
            "{}",
            d.problems[0].cause
        );
        let d = diagnose(&log("i686", "x64", "x86", "x64"));
        assert!(
            d.problems[0].fix.starts_with("link for x86, not a rebuild"),
            "{}",
            d.problems[0].fix
        );
        // No word on what the code was for: the object is rebuilt for the link's machine.
        let d = diagnose(
            "app.obj : fatal error LNK1112: module machine type 'x64' conflicts with target machine type 'x86'\n",
        );
        assert!(
            d.problems[0].fix.starts_with("rebuild app.obj for x86"),
            "{}",
            d.problems[0].fix
        );
    }

    #[test]
    fn a_python_of_the_other_machine_is_named_as_such() {
        assert!(super::is_python_library(
            r"C:\Python310-32\libs\python310.lib"
        ));
        assert!(super::is_python_library("python3.lib"));
        assert!(super::is_python_library("python312_d.lib"));
        assert!(!super::is_python_library("pythoncore.lib"));
        let d = diagnose(
            "link /DLL ext.obj C:\\Python310-32\\libs\\python310.lib /OUT:ext.pyd\n\
             C:\\Python310-32\\libs\\python310.lib : fatal error LNK1112: module machine type 'x86' conflicts with target machine type 'x64'\n",
        );
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::MachineMismatch);
        assert!(p.cause.contains("x86 Python"), "{}", p.cause);
        assert!(
            p.fix.starts_with("build against an x64 Python"),
            "{}",
            p.fix
        );
        assert_eq!(p.lines, vec![1, 2]);
    }
}
