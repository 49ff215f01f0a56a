//! Where the Python sources are: the directories given, else the `purelib`, `platlib` and
//! `stdlib` (and `site.getsitepackages()`) of a Python interpreter asked through `sysconfig`
//! (the one given, else `python3`/`python` on `PATH`), else the active virtual environment's
//! `site-packages` (`VIRTUAL_ENV`). The interpreter is run directly (no shell), isolated (`-I`),
//! with a time limit.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::WhenceError;

/// What the user said about where to search.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum SourceSpec {
    /// `--site-packages DIR`, in order.
    Dirs(Vec<PathBuf>),
    /// `--python EXE`.
    Python(PathBuf),
    /// Nothing: the Python on `PATH`, else `VIRTUAL_ENV`.
    #[default]
    Default,
}

/// One directory searched, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchDir {
    /// The directory.
    pub path: PathBuf,
    /// Where it came from: `given`, `purelib`, `platlib`, `stdlib`, `site`, `virtualenv`.
    pub kind: &'static str,
}

/// The directories to search and how they were found.
#[derive(Debug, Clone)]
pub struct Sources {
    /// Existing directories, in order, without repeats.
    pub dirs: Vec<SearchDir>,
    /// How they were found, for people: `--site-packages`, `python3 on PATH (/usr/bin/python3,
    /// Python 3.11.7)`, `VIRTUAL_ENV`.
    pub origin: String,
    /// Directories the interpreter named that do not exist.
    pub missing: Vec<PathBuf>,
}

/// How long the interpreter may take to answer.
const PYTHON_TIMEOUT: Duration = Duration::from_secs(30);

/// What the interpreter is asked to print: one JSON object.
const QUERY: &str = "import json, site, sys, sysconfig\n\
p = sysconfig.get_paths()\n\
s = site.getsitepackages() if hasattr(site, 'getsitepackages') else []\n\
print(json.dumps({'executable': sys.executable, 'version': '%d.%d.%d' % tuple(sys.version_info[:3]), \
'purelib': p.get('purelib'), 'platlib': p.get('platlib'), 'stdlib': p.get('stdlib'), 'site': s}))\n";

/// The interpreters tried, in order, when none is given.
fn default_pythons() -> &'static [&'static str] {
    if cfg!(windows) {
        &["python", "python3"]
    } else {
        &["python3", "python"]
    }
}

/// Finds the directories to search.
pub fn resolve(
    spec: &SourceSpec,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Sources, WhenceError> {
    match spec {
        SourceSpec::Dirs(dirs) => {
            let mut found = Vec::new();
            for dir in dirs {
                if !dir.is_dir() {
                    return Err(WhenceError::NotADirectory { path: dir.clone() });
                }
                push_unique(&mut found, dir.clone(), "given");
            }
            Ok(Sources {
                dirs: found,
                origin: "--site-packages".into(),
                missing: Vec::new(),
            })
        }
        SourceSpec::Python(exe) => ask_python(exe, &format!("--python {}", exe.display())),
        SourceSpec::Default => {
            let mut tried = Vec::new();
            for name in default_pythons() {
                match ask_python(Path::new(name), &format!("{name} on PATH")) {
                    Ok(sources) => return Ok(sources),
                    Err(e) => tried.push(e.to_string()),
                }
            }
            match env("VIRTUAL_ENV").filter(|v| !v.is_empty()) {
                Some(venv) => {
                    let dirs = virtualenv_site_packages(Path::new(&venv));
                    if dirs.is_empty() {
                        tried.push(format!(
                            "VIRTUAL_ENV={venv}: no site-packages directory in it"
                        ));
                    } else {
                        let mut found = Vec::new();
                        for dir in dirs {
                            push_unique(&mut found, dir, "virtualenv");
                        }
                        return Ok(Sources {
                            dirs: found,
                            origin: format!("VIRTUAL_ENV ({venv})"),
                            missing: Vec::new(),
                        });
                    }
                }
                None => tried.push("VIRTUAL_ENV is not set".into()),
            }
            Err(WhenceError::NoSources { tried })
        }
    }
}

/// A virtual environment's `site-packages`: `Lib\site-packages` on Windows,
/// `lib/pythonX.Y/site-packages` elsewhere.
fn virtualenv_site_packages(venv: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for lib in ["Lib", "lib"] {
        let dir = venv.join(lib);
        let direct = dir.join("site-packages");
        if direct.is_dir() {
            out.push(direct);
        }
        if let Ok(entries) = std::fs::read_dir(&dir) {
            let mut versions: Vec<PathBuf> = entries
                .flatten()
                .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
                .map(|e| e.path().join("site-packages"))
                .filter(|p| p.is_dir())
                .collect();
            versions.sort();
            out.extend(versions);
        }
    }
    // `Lib` and `lib` are one directory where names ignore case (Windows).
    let mut seen = Vec::new();
    out.retain(|dir| {
        let canonical = dunce::canonicalize(dir).unwrap_or_else(|_| dir.clone());
        let new = !seen.contains(&canonical);
        seen.push(canonical);
        new
    });
    out
}

/// Adds `path` unless the same directory is already there.
fn push_unique(dirs: &mut Vec<SearchDir>, path: PathBuf, kind: &'static str) {
    let canonical = dunce::canonicalize(&path).unwrap_or_else(|_| path.clone());
    let seen = dirs
        .iter()
        .any(|d| dunce::canonicalize(&d.path).unwrap_or_else(|_| d.path.clone()) == canonical);
    if !seen {
        dirs.push(SearchDir { path, kind });
    }
}

/// Runs `exe -I -c QUERY` and reads its directories.
fn ask_python(exe: &Path, label: &str) -> Result<Sources, WhenceError> {
    let failed = |reason: String| WhenceError::Python {
        exe: exe.to_path_buf(),
        reason,
    };
    let output = run_with_timeout(exe).map_err(|e| failed(e.to_string()))?;
    if !output.0 {
        let stderr = output.2.trim();
        let last = stderr.lines().last().unwrap_or("no output");
        return Err(failed(format!("it failed: {last}")));
    }
    let value: serde_json::Value = serde_json::from_str(output.1.trim())
        .map_err(|e| failed(format!("its answer is not the expected JSON ({e})")))?;
    let text = |key: &str| value[key].as_str().map(str::to_string);
    let mut dirs = Vec::new();
    let mut missing = Vec::new();
    let mut add = |path: String, kind: &'static str| {
        let path = PathBuf::from(path);
        if path.is_dir() {
            push_unique(&mut dirs, path, kind);
        } else if !missing.contains(&path) {
            missing.push(path);
        }
    };
    for kind in ["purelib", "platlib", "stdlib"] {
        if let Some(path) = text(kind) {
            add(path, kind);
        }
    }
    for site in value["site"].as_array().into_iter().flatten() {
        if let Some(path) = site.as_str() {
            add(path.to_string(), "site");
        }
    }
    if dirs.is_empty() {
        return Err(failed("none of the directories it names exists".into()));
    }
    let executable = text("executable").unwrap_or_else(|| exe.display().to_string());
    let version = text("version").unwrap_or_default();
    Ok(Sources {
        dirs,
        origin: format!("{label} ({executable}, Python {version})"),
        missing,
    })
}

/// Runs the interpreter: (success, stdout, stderr), within [`PYTHON_TIMEOUT`], at most 1 MiB
/// of each stream kept (a runaway interpreter must not fill memory).
fn run_with_timeout(exe: &Path) -> std::io::Result<(bool, String, String)> {
    let output =
        crate::index::interpreter::run(exe, &["-I", "-c", QUERY], PYTHON_TIMEOUT, 1 << 20)?;
    Ok((output.success, output.stdout, output.stderr))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_directories_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        let spec = SourceSpec::Dirs(vec![dir.path().to_path_buf(), dir.path().to_path_buf()]);
        let sources = resolve(&spec, &|_| None).unwrap();
        assert_eq!(
            sources.dirs.len(),
            1,
            "the same directory twice is searched once"
        );
        let missing = dir.path().join("nope");
        let error = resolve(&SourceSpec::Dirs(vec![missing.clone()]), &|_| None).unwrap_err();
        assert!(
            error.to_string().contains(&missing.display().to_string()),
            "{error}"
        );
    }

    #[test]
    fn an_interpreter_that_cannot_run_is_a_clear_error() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("no-such-python");
        let error = resolve(&SourceSpec::Python(exe.clone()), &|_| None).unwrap_err();
        let text = error.to_string();
        assert!(
            text.contains(&exe.display().to_string()) && text.contains("cannot run"),
            "{text}"
        );
    }

    #[test]
    fn virtualenv_layouts() {
        let dir = tempfile::tempdir().unwrap();
        let unix = dir
            .path()
            .join("lib")
            .join("python3.12")
            .join("site-packages");
        std::fs::create_dir_all(&unix).unwrap();
        let found = virtualenv_site_packages(dir.path());
        assert_eq!(found.len(), 1, "{found:?}");
        let canonical = |p: &Path| dunce::canonicalize(p).unwrap();
        assert_eq!(canonical(&found[0]), canonical(&unix));
        let windows = tempfile::tempdir().unwrap();
        let site = windows.path().join("Lib").join("site-packages");
        std::fs::create_dir_all(&site).unwrap();
        let found = virtualenv_site_packages(windows.path());
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(canonical(&found[0]), canonical(&site));
    }
}
