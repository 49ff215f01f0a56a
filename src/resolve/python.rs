//! The Python C API's answer from the embedded table (`symbol-db/names/python.txt`) and what the
//! log shows of the Python built for (`crate::read::python_build`): `python312.lib` for the version the
//! log names, `python312_d.lib` for a debug build, `python3.lib` for the limited API; the near
//! misses between them (a name the stable ABI lacks while linking `python3.lib`, a debug-only name
//! in a release build, a name the version's DLL does not export) said in the answer's note.

use super::{Answerer, ResolvedSymbol};
use crate::read::python_build::PythonBuild;
use crate::rules::names::python_libraries;

/// Gives each Python C API name answered by the rule book (no library on disk defines it) the
/// library of the interpreter the log shows, or says which libraries export it.
pub(super) fn answer_python(symbols: &mut [ResolvedSymbol], build: &PythonBuild) {
    let build = &with_python2_names(symbols, build);
    for s in symbols.iter_mut() {
        if s.provider.is_some_and(Answerer::on_disk) {
            note_other_version(s, build);
            continue;
        }
        let by_rule = s.provider == Some(Answerer::Rule);
        if !by_rule || !(s.family == "python-c-api" || s.family == "python-debug") {
            continue;
        }
        let name = s.symbol.lookup_name().to_string();
        let (library, note) = if s.family == "python-debug" {
            debug_answer(build)
        } else if is_python2_name(s) && !build.python2 {
            python2_port_answer(s)
        } else if build.python2 {
            python2_answer(build)
        } else {
            api_answer(&name, build)
        };
        s.library = library;
        s.dll = s.library.as_deref().map(|l| l.replace(".lib", ".dll"));
        s.match_note = super::some_text(note);
    }
}

/// Whether the rule book named it as a name only Python 2 exports (rule `python2-api`).
fn is_python2_name(s: &ResolvedSymbol) -> bool {
    s.source
        .as_deref()
        .is_some_and(|r| r.contains("python2-api"))
}

/// The build with Python 2.7 recorded when the log shows no version but imports a name only
/// Python 2 exports: `__imp_PyString_FromString` was declared by Python 2's headers, so the
/// objects were compiled for Python 2.7 and every C API name in the log is python27.lib's.
fn with_python2_names(symbols: &[ResolvedSymbol], build: &PythonBuild) -> PythonBuild {
    let mut build = build.clone();
    if build.version.is_some() || build.python2 {
        return build;
    }
    if let Some(s) = symbols
        .iter()
        .filter(|s| s.provider == Some(Answerer::Rule))
        .find(|s| is_python2_name(s) && s.symbol.import)
    {
        let shown = s.symbol.linker_name().unwrap_or(s.symbol.name());
        build.set_python2(
            s.symbol.first_line,
            &format!("{shown}: an import of a name only Python 2 exports"),
        );
    }
    build
}

/// A C API name in a build for Python 2.7.
fn python2_answer(build: &PythonBuild) -> (Option<String>, String) {
    let library = build.library().unwrap_or_else(|| "python27.lib".into());
    let (line, text) = build
        .version_line
        .as_ref()
        .map_or((0, ""), |(n, t)| (*n, t.as_str()));
    (
        Some(library.clone()),
        format!(
            "the objects are built for Python 2.7 (line {line}: {text}): {library}, in the libs folder of that Python 2.7 (C:\\Python27\\libs); Python 2 is no longer maintained: building for Python 3 needs the code ported"
        ),
    )
}

/// A name only Python 2 exports, referenced without dllimport or in a build for Python 3: the
/// code calls an API Python 3 removed; no Python 3 library has it.
fn python2_port_answer(s: &ResolvedSymbol) -> (Option<String>, String) {
    let name = s.symbol.lookup_name().trim_start_matches('_');
    let instead = if name.starts_with("PyString_") {
        "PyBytes_* or PyUnicode_*"
    } else if name.starts_with("PyInt_") {
        "PyLong_*"
    } else if name.starts_with("Py_InitModule") {
        "PyModule_Create"
    } else if name.starts_with("PyCObject_") {
        "PyCapsule_*"
    } else {
        "its Python 3 replacement"
    };
    (
        None,
        format!(
            "only Python 2 exports it (python27.dll); Python 3 removed it: port the code to {instead}, or build for Python 2.7 with its python27.lib"
        ),
    )
}

/// A library on disk of another Python version than the log builds for (`python311.lib` found,
/// `cp312` in the log): said in the note, since an extension linked against one version's DLL
/// does not load in another.
fn note_other_version(s: &mut ResolvedSymbol, build: &PythonBuild) {
    let (Some(found), Some(wanted)) = (s.library.as_deref(), build.library()) else {
        return;
    };
    let lower = found.to_ascii_lowercase();
    let versioned =
        lower.starts_with("python3") && lower != "python3.lib" && lower.ends_with(".lib");
    if !versioned || lower == wanted {
        return;
    }
    let line = build.version_line.as_ref().map_or(0, |(n, _)| *n);
    let note = format!(
        "the log builds for {wanted} (line {line}) but the library found is {found}: link the {wanted} of the interpreter the extension is for (a module linked against one version's DLL does not load in another)"
    );
    s.match_note = super::some_text(match s.match_note.take() {
        Some(old) => format!("{note}; {old}"),
        None => note,
    });
}

/// A name only a debug interpreter exports (`_Py_RefTotal`, `_Py_NegativeRefcount`).
fn debug_answer(build: &PythonBuild) -> (Option<String>, String) {
    let version = build.version.as_deref();
    let debug_lib = version.map(|v| format!("python3{v}_d.lib"));
    let release_lib = version.map_or("python3XX.lib".to_string(), |v| format!("python3{v}.lib"));
    let note = format!(
        "only a debug interpreter exports it: the object was compiled with Py_DEBUG (_DEBUG defined, /MDd); link {} (installed with Python's debug binaries), or build Release (no _DEBUG, /MD) to link {release_lib}",
        debug_lib.as_deref().unwrap_or("python3XX_d.lib of your Python")
    );
    (debug_lib, note)
}

/// A C API name: the version's library when the log shows the version and its DLL exports the
/// name; `python3.lib` for the limited API when the stable ABI has it.
fn api_answer(name: &str, build: &PythonBuild) -> (Option<String>, String) {
    let mut libraries = python_libraries(name);
    if libraries.is_empty() {
        // An x86 `__cdecl` name (`_PyLong_FromLong`) in a log not known to be x86.
        libraries = name
            .strip_prefix('_')
            .map(python_libraries)
            .unwrap_or_default();
    }
    let stable = libraries.contains(&"python3.lib");
    let versioned: Vec<&str> = libraries
        .iter()
        .copied()
        .filter(|l| *l != "python3.lib")
        .collect();
    let wanted = build.version.as_deref().map(|v| format!("python3{v}.lib"));
    if build.limited && !build.debug {
        if stable {
            return (
                Some("python3.lib".into()),
                "the stable ABI (the limited API, Py_LIMITED_API): python3.lib, in <sys.base_prefix>\\libs".into(),
            );
        }
        let note = format!(
            "not in the stable ABI: python3.lib (the limited API, Py_LIMITED_API) does not export it; {} export it: stop using it, or drop Py_LIMITED_API and link {}",
            versioned.join(", "),
            wanted.as_deref().unwrap_or("python3XX.lib of your Python")
        );
        return (wanted.filter(|w| versioned.contains(&w.as_str())), note);
    }
    match wanted {
        Some(w) if versioned.contains(&w.as_str()) => {
            let library = build.library().unwrap_or(w);
            let note = format!(
                "the Python C API of the interpreter the log shows (line {}): {library}, in <sys.base_prefix>\\libs",
                build.version_line.as_ref().map_or(0, |(n, _)| *n)
            );
            (Some(library), note)
        }
        Some(w) => (
            None,
            format!(
                "{} does not export it; {} export it: the code was written for another Python version",
                w.replace(".lib", ".dll"),
                versioned.join(", ")
            ),
        ),
        None => (
            None,
            format!(
                "python3XX.lib of your Python (the log does not show its version; exported by {}{}): <sys.base_prefix>\\libs\\python3XX.lib",
                versioned.join(", "),
                if stable { ", and python3.lib for the limited API" } else { "" }
            ),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build(version: Option<&str>, debug: bool, limited: bool) -> PythonBuild {
        PythonBuild {
            version: version.map(str::to_string),
            version_line: version.map(|_| (7, "cp3xx".to_string())),
            debug,
            limited,
            python2: false,
        }
    }

    /// Each kind of Python build against names of each kind: (name, build, library, note start).
    #[test]
    fn the_library_follows_the_build() {
        let rows: [(&str, PythonBuild, Option<&str>, &str); 7] = [
            (
                "PyLong_FromLong",
                build(Some("12"), false, false),
                Some("python312.lib"),
                "the Python C API of the interpreter the log shows (line 7)",
            ),
            (
                "PyLong_FromLong",
                build(Some("12"), true, false),
                Some("python312_d.lib"),
                "the Python C API",
            ),
            (
                "PyLong_FromLong",
                build(Some("12"), false, true),
                Some("python3.lib"),
                "the stable ABI",
            ),
            (
                "PyUnstable_Code_New",
                build(Some("12"), false, true),
                Some("python312.lib"),
                "not in the stable ABI",
            ),
            (
                "PyUnstable_Code_New",
                build(Some("11"), false, false),
                None,
                "python311.dll does not export it",
            ),
            (
                "PyLong_FromLong",
                build(None, false, false),
                None,
                "python3XX.lib of your Python",
            ),
            (
                "_PyLong_FromLong",
                build(Some("10"), false, false),
                Some("python310.lib"),
                "the Python C API",
            ),
        ];
        let mut failures = Vec::new();
        for (name, b, library, note) in rows {
            let (got, said) = api_answer(name, &b);
            if got.as_deref() != library || !said.starts_with(note) {
                failures.push(format!("{name} {b:?}: {got:?} {said}"));
            }
        }
        assert!(failures.is_empty(), "{failures:#?}");
        let (library, note) = debug_answer(&build(Some("13"), false, false));
        assert_eq!(library.as_deref(), Some("python313_d.lib"));
        assert!(
            note.contains("build Release (no _DEBUG, /MD) to link python313.lib"),
            "{note}"
        );
        assert_eq!(debug_answer(&build(None, true, false)).0, None);
    }

    /// The debug-only names are in no release section, python3.lib's included.
    #[test]
    fn debug_only_names_are_in_no_release_library() {
        for name in ["_Py_RefTotal", "_Py_NegativeRefcount"] {
            assert!(python_libraries(name).is_empty(), "{name}");
            let hits = crate::rules::names::lookup(name);
            assert_eq!(hits.len(), 1, "{name}: {hits:?}");
            assert_eq!(hits[0].library, crate::rules::names::PYTHON_DEBUG_SECTION);
        }
    }
}
