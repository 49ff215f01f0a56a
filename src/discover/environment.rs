//! The user's own environment beyond link.exe's variables: the active Python (its `libs`, and in
//! its site-packages `torch\lib`, `nvidia\*\lib`, `tvm_ffi\lib`), conda's `Library\lib` and
//! `libs`, and `CUDA_PATH`'s `lib\x64` (docs/GUIDE.md, *Where the libraries are*).
//!
//! Cheap by design: a few existence checks and directory listings, and at most one interpreter
//! started (only when `--python`, `VIRTUAL_ENV`, `CONDA_PREFIX` or a `python` on `PATH` names
//! one), asked once with a time limit. A directory derived from the interpreter is searched only
//! when it holds a library file; a slow, broken or missing interpreter is a warning.

use std::path::{Path, PathBuf};

use super::{arch_subdir, holds_libraries, native_path, resolve_case_insensitive, Collector};
use crate::index::Machine;
use crate::interpreter::{Interpreter, ProbeError};

/// The environment variable that, set (to anything but empty or `0`), keeps lnkfix from starting
/// a Python interpreter, as `--no-python` does.
pub const NO_PYTHON_VARIABLE: &str = "LNKFIX_NO_PYTHON";

/// Which Python's library directories are searched.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum PythonChoice {
    /// The active one: `VIRTUAL_ENV`'s, else `CONDA_PREFIX`'s, else the `python`/`python3` first
    /// on `PATH` (only with no library option; none when [`NO_PYTHON_VARIABLE`] is set).
    #[default]
    Active,
    /// `--python EXE`: this one (also beside library options).
    Exe(PathBuf),
    /// `--no-python` (`--python none`): none.
    Skip,
}

/// Asks an interpreter about itself: [`crate::interpreter::probe`], or a stand-in in tests.
pub type Probe<'a> = dyn Fn(&Path) -> Result<Interpreter, ProbeError> + 'a;

/// The interpreter whose directories were searched, or why there were none.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PythonFound {
    /// How it was chosen: `--python EXE`, `VIRTUAL_ENV=DIR`, `CONDA_PREFIX=DIR`, `python3 on PATH`.
    pub found_by: String,
    /// The interpreter started; `None` when the environment named none that exists.
    pub executable: Option<PathBuf>,
    /// What it said about itself; `None` when it could not be asked.
    pub interpreter: Option<Interpreter>,
    /// Why it could not be asked.
    pub error: Option<String>,
}

/// The interpreter to ask, and the environment root whose layout is read when it cannot be.
struct Candidate {
    found_by: String,
    exe: Option<PathBuf>,
    root: Option<PathBuf>,
}

/// The interpreter names looked for on `PATH`, in order.
fn path_names() -> &'static [&'static str] {
    if cfg!(windows) {
        &["python.exe", "python3.exe"]
    } else {
        &["python3", "python"]
    }
}

/// The interpreter inside a virtual environment or conda prefix, if there is one: Windows
/// layouts (`Scripts\python.exe`, conda's `python.exe`) and Unix ones (`bin/python3`).
fn interpreter_in(root: &Path) -> Option<PathBuf> {
    let windows: [&[&str]; 2] = [&["Scripts", "python.exe"], &["python.exe"]];
    let unix: [&[&str]; 2] = [&["bin", "python3"], &["bin", "python"]];
    let order: Vec<&[&str]> = if cfg!(windows) {
        windows.into_iter().chain(unix).collect()
    } else {
        unix.into_iter().chain(windows).collect()
    };
    order.into_iter().find_map(|parts| {
        let mut path = root.to_path_buf();
        path.extend(parts);
        resolve_case_insensitive(&path).filter(|p| p.is_file())
    })
}

/// Whether `path` is a file this system could start (on Unix: with an execute bit).
fn is_program(path: &Path) -> bool {
    let Ok(metadata) = std::fs::metadata(path) else {
        return false;
    };
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        metadata.is_file() && metadata.permissions().mode() & 0o111 != 0
    }
    #[cfg(not(unix))]
    metadata.is_file()
}

/// The first interpreter on `PATH` (Windows' Store stand-ins in `WindowsApps` are skipped: they
/// open the Store instead of answering).
fn on_path(env: &dyn Fn(&str) -> Option<String>) -> Option<(String, PathBuf)> {
    let path = env("PATH")?;
    for dir in std::env::split_paths(&path) {
        if dir.as_os_str().is_empty() || dir.to_string_lossy().contains("WindowsApps") {
            continue;
        }
        for name in path_names() {
            let candidate = dir.join(name);
            if is_program(&candidate) {
                return Some((format!("{name} on PATH"), candidate));
            }
        }
    }
    None
}

/// The interpreter `choice` and the environment name, if any.
fn choose(choice: &PythonChoice, env: &dyn Fn(&str) -> Option<String>) -> Option<Candidate> {
    match choice {
        PythonChoice::Skip => None,
        PythonChoice::Exe(exe) => Some(Candidate {
            found_by: format!("--python {}", exe.display()),
            exe: Some(exe.clone()),
            root: None,
        }),
        PythonChoice::Active => {
            let set = |name: &str| env(name).filter(|v| !v.trim().is_empty());
            if set(NO_PYTHON_VARIABLE).is_some_and(|v| v.trim() != "0") {
                return None;
            }
            for variable in ["VIRTUAL_ENV", "CONDA_PREFIX"] {
                if let Some(root) = set(variable) {
                    let root = native_path(&root);
                    return Some(Candidate {
                        found_by: format!("{variable}={}", root.display()),
                        exe: interpreter_in(&root),
                        root: Some(root),
                    });
                }
            }
            let (found_by, exe) = on_path(env)?;
            Some(Candidate {
                found_by: format!("{found_by}: {}", exe.display()),
                exe: Some(exe),
                root: None,
            })
        }
    }
}

/// How many bits a machine's pointers have.
fn pointer_bits(arch: Machine) -> u32 {
    match arch {
        Machine::X86 | Machine::Arm => 32,
        _ => 64,
    }
}

/// A virtual environment's or conda prefix's site-packages read from its layout:
/// `Lib\site-packages` (Windows), `lib/pythonX.Y/site-packages` (elsewhere).
fn layout_site_packages(root: &Path) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = resolve_case_insensitive(&root.join("Lib").join("site-packages"))
        .filter(|p| p.is_dir())
        .into_iter()
        .collect();
    if let Ok(entries) = std::fs::read_dir(root.join("lib")) {
        let mut versions: Vec<PathBuf> = entries
            .flatten()
            .filter(|e| e.file_name().to_string_lossy().starts_with("python"))
            .map(|e| e.path().join("site-packages"))
            .filter(|p| p.is_dir())
            .collect();
        versions.sort();
        found.extend(versions);
    }
    found
}

/// The base installation a virtual environment was made from: `home` in its `pyvenv.cfg` (the
/// directory of the base interpreter; on Windows the installation itself).
fn venv_home(root: &Path) -> Option<PathBuf> {
    let config = std::fs::read_to_string(root.join("pyvenv.cfg")).ok()?;
    config.lines().find_map(|line| {
        let (key, value) = line.split_once('=')?;
        (key.trim().eq_ignore_ascii_case("home") && !value.trim().is_empty())
            .then(|| native_path(value))
    })
}

impl Collector {
    /// Adds `path` when it exists (any case) and holds a library file; silent otherwise.
    /// Whether it is searched.
    fn add_if_libraries(&mut self, path: &Path, origin: &str) -> bool {
        match resolve_case_insensitive(path).filter(|p| p.is_dir() && holds_libraries(p)) {
            Some(found) => {
                self.add_dir(&found, origin);
                true
            }
            None => false,
        }
    }

    /// The library directories of one site-packages: `torch/lib`, `nvidia/*/lib` (and their
    /// `x64`), `tvm_ffi/lib`. Whether any is searched.
    fn add_site_packages(&mut self, site: &Path, label: &str) -> bool {
        let mut added = false;
        for (parts, what) in [
            (["torch", "lib"], "torch/lib"),
            (["tvm_ffi", "lib"], "tvm_ffi/lib"),
        ] {
            let mut dir = site.to_path_buf();
            dir.extend(parts);
            added |= self.add_if_libraries(&dir, &format!("{label}: {what}"));
        }
        let nvidia = resolve_case_insensitive(&site.join("nvidia")).filter(|p| p.is_dir());
        let mut packages: Vec<(String, PathBuf)> = nvidia
            .and_then(|dir| std::fs::read_dir(dir).ok())
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.path().is_dir())
            .map(|e| (e.file_name().to_string_lossy().into_owned(), e.path()))
            .collect();
        packages.sort();
        for (name, package) in packages {
            let lib = package.join("lib");
            added |= self.add_if_libraries(&lib, &format!("{label}: nvidia/{name}/lib"));
            added |=
                self.add_if_libraries(&lib.join("x64"), &format!("{label}: nvidia/{name}/lib/x64"));
        }
        added
    }

    /// The directories of an interpreter's answer: `<base_prefix>\libs`, `<prefix>\libs`, then
    /// each site-packages'. Whether any is searched.
    fn add_interpreter(&mut self, interpreter: &Interpreter, label: &str) -> bool {
        let mut added = false;
        for prefix in [&interpreter.base_prefix, &interpreter.prefix] {
            added |= self.add_if_libraries(
                &native_path(&prefix.to_string_lossy()).join("libs"),
                &format!("{label}: libs"),
            );
        }
        for site in &interpreter.site_packages {
            added |= self.add_site_packages(&native_path(&site.to_string_lossy()), label);
        }
        added
    }

    /// What an environment's layout shows when its interpreter cannot be asked: `libs`, the
    /// base installation's `libs` (`pyvenv.cfg`), and its site-packages' directories.
    fn add_layout_of(&mut self, root: &Path, label: &str) {
        self.add_if_libraries(&root.join("libs"), &format!("{label}: libs"));
        if let Some(home) = venv_home(root) {
            self.add_if_libraries(&home.join("libs"), &format!("{label}: libs"));
        }
        for site in layout_site_packages(root) {
            self.add_site_packages(&site, label);
        }
    }

    /// The chosen Python's library directories; `None` when none is chosen. A failed probe is
    /// a warning; an interpreter for another pointer size than the link's machine too, when its
    /// directories are searched.
    pub(super) fn add_python(
        &mut self,
        choice: &PythonChoice,
        env: &dyn Fn(&str) -> Option<String>,
        probe: &Probe<'_>,
        arch: Machine,
    ) -> Option<PythonFound> {
        let candidate = choose(choice, env)?;
        let label = format!("python ({})", candidate.found_by);
        let mut found = PythonFound {
            found_by: candidate.found_by.clone(),
            executable: candidate.exe.clone(),
            interpreter: None,
            error: None,
        };
        let error = match &candidate.exe {
            Some(exe) => match probe(exe) {
                Ok(interpreter) => {
                    if self.add_interpreter(&interpreter, &label)
                        && interpreter.pointer_bits != pointer_bits(arch)
                    {
                        self.discovered.warnings.push(format!(
                            "{label} is a {}-bit interpreter ({}), but the link is for {arch} ({}-bit): its libraries cannot be linked; use a {}-bit Python, or build for its machine (--arch)",
                            interpreter.pointer_bits,
                            interpreter.describe(),
                            pointer_bits(arch),
                            pointer_bits(arch),
                        ));
                    }
                    found.interpreter = Some(interpreter);
                    return Some(found);
                }
                Err(error) => error.to_string(),
            },
            None => "no interpreter in it (Scripts\\python.exe, python.exe, bin/python3)".into(),
        };
        let fallback = match &candidate.root {
            Some(root) => {
                self.add_layout_of(root, &label);
                "its directories are read from its layout"
            }
            None => "its library directories are not searched",
        };
        self.discovered
            .warnings
            .push(format!("{label}: {error}; {fallback}"));
        found.error = Some(error);
        Some(found)
    }

    /// conda's own library directories (`CONDA_PREFIX\Library\lib`, `CONDA_PREFIX\libs`), when
    /// they hold libraries.
    pub(super) fn add_conda(&mut self, env: &dyn Fn(&str) -> Option<String>) {
        let Some(prefix) = env("CONDA_PREFIX").filter(|v| !v.trim().is_empty()) else {
            return;
        };
        let prefix = native_path(&prefix);
        let origin = format!("CONDA_PREFIX={}", prefix.display());
        self.add_if_libraries(
            &prefix.join("Library").join("lib"),
            &format!("{origin}: Library/lib"),
        );
        self.add_if_libraries(&prefix.join("libs"), &format!("{origin}: libs"));
    }

    /// `CUDA_PATH`'s library directory for the machine: `lib\x64` (`lib\Win32` for x86); a
    /// warning when it has none.
    pub(super) fn add_cuda(&mut self, env: &dyn Fn(&str) -> Option<String>, arch: Machine) {
        let Some(root) = env("CUDA_PATH").filter(|v| !v.trim().is_empty()) else {
            return;
        };
        let root = native_path(&root);
        let win32 = (arch == Machine::X86)
            .then(|| resolve_case_insensitive(&root.join("lib").join("Win32")))
            .flatten()
            .filter(|p| p.is_dir());
        match win32.or_else(|| arch_subdir(&root, &["lib"], arch)) {
            Some(dir) => self.add_dir(&dir, "CUDA_PATH"),
            None => self.discovered.warnings.push(format!(
                "CUDA_PATH: no library directory for {arch} (lib\\x64) under {}",
                root.display()
            )),
        }
    }
}
