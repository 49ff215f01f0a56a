//! Where the Python sources are: the directories given, else the `purelib`, `platlib` and
//! `stdlib` (and `site.getsitepackages()`) of a Python interpreter asked through `sysconfig`
//! (the one given, else `python3`/`python` on `PATH`), else the active virtual environment's
//! `site-packages` (`VIRTUAL_ENV`). The interpreter is run directly (no shell), isolated (`-I`),
//! with a time limit.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

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

/// Runs the interpreter: (success, stdout, stderr). The time limit, [`PYTHON_TIMEOUT`], covers
/// its pipes too: a process it started that keeps its output open (in its process group, which
/// is ended once the interpreter has exited, or in a session of its own) cannot make lnkfix wait
/// past the limit.
fn run_with_timeout(exe: &Path) -> std::io::Result<(bool, String, String)> {
    let mut command = Command::new(exe);
    command
        .args(["-I", "-c", QUERY])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group: whatever it starts can be ended with it.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn()?;
    let deadline = Instant::now() + PYTHON_TIMEOUT;
    let too_slow = || {
        std::io::Error::other(format!(
            "it did not answer within {} s",
            PYTHON_TIMEOUT.as_secs()
        ))
    };
    // The pipes are read by these threads meanwhile, and handed over through channels: a pipe
    // that stays open is given up at the deadline, its thread left blocked.
    let out = read_in_thread(child.stdout.take());
    let err = read_in_thread(child.stderr.take());
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= deadline {
            end_group(&child);
            let _ = child.kill();
            let _ = child.wait();
            return Err(too_slow());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // What it left running (a child holding its output) is ended with the group.
    end_group(&child);
    let wait = || deadline.saturating_duration_since(Instant::now());
    let stdout = out.recv_timeout(wait()).map_err(|_| too_slow())?;
    let stderr = err.recv_timeout(wait()).map_err(|_| too_slow())?;
    Ok((status.success(), stdout, stderr))
}

/// Reads `pipe` to its end (see [`read_all`]) in a thread of its own; the text comes through the
/// channel.
fn read_in_thread<R: Read + Send + 'static>(
    mut pipe: Option<R>,
) -> std::sync::mpsc::Receiver<String> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = sender.send(read_all(pipe.as_mut()));
    });
    receiver
}

/// Ends every process of the interpreter's process group (Unix; elsewhere nothing).
fn end_group(child: &std::process::Child) {
    #[cfg(unix)]
    if let Ok(group) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) takes plain integers; the group is the one the interpreter was started
        // in (a group's id is not given to a new process while the group has members).
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = child;
}

fn read_all(pipe: Option<&mut impl Read>) -> String {
    let mut bytes = Vec::new();
    if let Some(pipe) = pipe {
        // At most 1 MiB: the answer is small, and a runaway interpreter must not fill memory.
        let _ = pipe.take(1 << 20).read_to_end(&mut bytes);
    }
    String::from_utf8_lossy(&bytes).into_owned()
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
