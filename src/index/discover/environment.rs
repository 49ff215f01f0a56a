//! The user's own environment beyond link.exe's variables: the active Python (its `libs`, and in
//! its site-packages `torch\lib`, `nvidia\*\lib`, `tvm_ffi\lib`, `_rocm_sdk_devel\lib`), conda's
//! `Library\lib` and `libs`, and `CUDA_PATH`'s `lib\x64` (docs/LIBRARIES.md, *Where the libraries
//! are*).
//!
//! Cheap by design: a few existence checks and directory listings, and at most one interpreter
//! started (only when `--python`, `VIRTUAL_ENV`, `CONDA_PREFIX` or a `python` on `PATH` names
//! one), asked once with a time limit. A directory derived from the interpreter is searched only
//! when it holds a library file; a slow, broken or missing interpreter is a warning.

use std::path::{Path, PathBuf};

use super::{arch_subdir, holds_libraries, native_path, resolve_case_insensitive, Collector};
use crate::index::interpreter::{Interpreter, ProbeError};
use crate::index::Machine;

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

/// Asks an interpreter about itself: [`crate::index::interpreter::probe`], or a stand-in in tests.
pub type Probe<'a> = dyn Fn(&Path) -> Result<Interpreter, ProbeError> + 'a;

/// The interpreter whose directories were searched, or why there were none.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PythonFound {
    /// How it was chosen: `--python EXE`, `VIRTUAL_ENV=DIR`, `CONDA_PREFIX=DIR`, `python3 on PATH`.
    pub found_by: String,
    /// The interpreter started; `None` when the environment named none that exists.
    #[serde(serialize_with = "crate::output::terminal::serialize_optional_path")]
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
    /// `x64`), `tvm_ffi/lib`, and `_rocm_sdk_devel/lib` (the HIP SDK as AMD's TheRock installs
    /// it with pip: `rocm-sdk-devel`, unpacked by `rocm-sdk init`). Whether any is searched.
    fn add_site_packages(&mut self, site: &Path, label: &str) -> bool {
        let mut added = false;
        for (parts, what) in [
            (["torch", "lib"], "torch/lib"),
            (["tvm_ffi", "lib"], "tvm_ffi/lib"),
            (["_rocm_sdk_devel", "lib"], "_rocm_sdk_devel/lib"),
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
    pub(super) fn add_cuda(&mut self, env: &dyn Fn(&str) -> Option<String>) {
        let Some(root) = env("CUDA_PATH").filter(|v| !v.trim().is_empty()) else {
            return;
        };
        let root = native_path(&root);
        let (dirs, origin) = self.for_machine("CUDA_PATH", |arch| {
            let win32 = (arch == Machine::X86)
                .then(|| resolve_case_insensitive(&root.join("lib").join("Win32")))
                .flatten()
                .filter(|p| p.is_dir());
            win32
                .or_else(|| arch_subdir(&root, &["lib"], arch))
                .into_iter()
                .collect()
        });
        match dirs.first() {
            Some(dir) => self.add_dir(dir, &origin),
            None => self.discovered.warnings.push(format!(
                "CUDA_PATH: no library directory for {} (lib\\x64) under {}",
                self.machines.1,
                root.display()
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::{discover_with, SearchOptions};
    use super::*;
    use std::cell::RefCell;
    use std::collections::HashMap;
    use std::fs;

    /// A stand-in library file (an empty archive).
    fn library(path: &Path) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, b"!<arch>\n").unwrap();
    }

    fn interpreter(base: &Path, prefix: &Path, site: &Path, bits: u32) -> Interpreter {
        Interpreter {
            executable: prefix.join("bin/python3"),
            version: "3.12.4".into(),
            base_prefix: base.to_path_buf(),
            prefix: prefix.to_path_buf(),
            pointer_bits: bits,
            debug: false,
            site_packages: vec![site.to_path_buf()],
        }
    }

    fn environment(vars: &[(&str, String)]) -> impl Fn(&str) -> Option<String> {
        let map: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect();
        move |name: &str| map.get(name).cloned()
    }

    fn sources(found: &super::super::Discovered, root: &Path) -> Vec<(String, String)> {
        found
            .dirs
            .iter()
            .map(|d| {
                let relative = d.path.strip_prefix(root).unwrap_or(&d.path);
                (
                    relative.to_string_lossy().replace('\\', "/"),
                    // The variable's value was joined by the platform's separator.
                    d.origin
                        .replace(&root.display().to_string(), "ROOT")
                        .replace('\\', "/"),
                )
            })
            .collect()
    }

    #[test]
    fn no_interpreter_is_started_without_a_python_anywhere() {
        let dir = tempfile::tempdir().unwrap();
        let asked = RefCell::new(0);
        let probe = |_: &Path| -> Result<Interpreter, ProbeError> {
            *asked.borrow_mut() += 1;
            unreachable!("no interpreter to ask")
        };
        // PATH without any python, no VIRTUAL_ENV/CONDA_PREFIX.
        let env = environment(&[("PATH", dir.path().display().to_string())]);
        let found = discover_with(&SearchOptions::default(), &env, &probe);
        assert_eq!(*asked.borrow(), 0);
        assert!(found.python.is_none() && found.dirs.is_empty());
        assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    }

    #[test]
    fn a_virtual_environment_gives_libs_torch_nvidia_and_tvm_ffi_with_their_source() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let venv = root.join("venv");
        let site = venv.join("Lib/site-packages");
        library(&root.join("Python312/libs/python312.lib"));
        library(&site.join("torch/lib/c10.lib"));
        library(&site.join("torch/lib/torch_cpu.lib"));
        library(&site.join("nvidia/cublas/lib/x64/cublas.lib"));
        library(&site.join("nvidia/cuda_runtime/lib/x64/cudart.lib"));
        fs::create_dir_all(site.join("nvidia/cudnn/lib")).unwrap(); // no library: not searched
        library(&site.join("tvm_ffi/lib/tvm_ffi.lib"));
        library(&site.join("_rocm_sdk_devel/lib/amdhip64.lib"));
        library(&site.join("_rocm_sdk_devel/lib/hipblas.lib"));
        fs::create_dir_all(site.join("_rocm_sdk_core/lib")).unwrap(); // no library: not searched
        library(&venv.join("Scripts/python.exe"));
        let asked = RefCell::new(Vec::new());
        let answer = interpreter(&root.join("Python312"), &venv, &site, 64);
        let probe = |exe: &Path| {
            asked.borrow_mut().push(exe.to_path_buf());
            Ok(answer.clone())
        };
        let env = environment(&[("VIRTUAL_ENV", venv.display().to_string())]);
        let found = discover_with(&SearchOptions::default(), &env, &probe);
        assert_eq!(asked.borrow().len(), 1, "asked once");
        assert!(found.warnings.is_empty(), "{:?}", found.warnings);
        let label = "python (VIRTUAL_ENV=ROOT/venv)";
        let expected: Vec<(String, String)> = [
            ("Python312/libs", "libs"),
            ("venv/Lib/site-packages/torch/lib", "torch/lib"),
            ("venv/Lib/site-packages/tvm_ffi/lib", "tvm_ffi/lib"),
            (
                "venv/Lib/site-packages/_rocm_sdk_devel/lib",
                "_rocm_sdk_devel/lib",
            ),
            (
                "venv/Lib/site-packages/nvidia/cublas/lib/x64",
                "nvidia/cublas/lib/x64",
            ),
            (
                "venv/Lib/site-packages/nvidia/cuda_runtime/lib/x64",
                "nvidia/cuda_runtime/lib/x64",
            ),
        ]
        .iter()
        .map(|(path, what)| (path.to_string(), format!("{label}: {what}")))
        .collect();
        assert_eq!(sources(&found, root), expected);
        assert_eq!(found.files.len(), 8, "{:?}", found.files);
        let python = found.python.unwrap();
        assert_eq!(python.interpreter, Some(answer));
        assert_eq!(python.error, None);
    }

    #[test]
    fn another_pointer_size_is_a_warning_naming_both() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let site = root.join("site-packages");
        library(&root.join("libs/python312.lib"));
        let answer = interpreter(root, root, &site, 32);
        let probe = |_: &Path| Ok(answer.clone());
        let exe = root.join("python.exe");
        let options = SearchOptions {
            python: PythonChoice::Exe(exe.clone()),
            // An explicit option: `--python` is still searched, after it.
            lib_dirs: vec![root.join("libs")],
            ..SearchOptions::default()
        };
        let found = discover_with(&options, &|_| None, &probe);
        let warning = found.warnings.join("\n");
        assert!(
            warning.contains("32-bit interpreter")
                && warning.contains("link is for x64 (64-bit)")
                && warning.contains(&exe.display().to_string()),
            "{warning}"
        );
        // The directory was already named by --lib-dir: searched once, with that source.
        assert_eq!(found.dirs.len(), 1);
        assert_eq!(found.dirs[0].origin, "--lib-dir");
        // For an x86 link, the same interpreter is right: by --arch, or by what the log shows
        // of the link's machine, which wins over --arch.
        let x86 = SearchOptions {
            arch: Machine::X86,
            ..options.clone()
        };
        assert!(discover_with(&x86, &|_| None, &probe).warnings.is_empty());
        let shown = SearchOptions {
            link_machine: Some(Machine::X86),
            ..options
        };
        assert!(discover_with(&shown, &|_| None, &probe).warnings.is_empty());
    }

    #[test]
    fn cuda_path_follows_the_log_machine_unless_arch_is_given() {
        let dir = tempfile::tempdir().unwrap();
        library(&dir.path().join("lib/Win32/cudart.lib"));
        library(&dir.path().join("lib/x64/cudart.lib"));
        let probe = |_: &Path| -> Result<Interpreter, ProbeError> { unreachable!() };
        let env = environment(&[("CUDA_PATH", dir.path().display().to_string())]);
        let x86_log = SearchOptions {
            python: PythonChoice::Skip,
            link_machine: Some(Machine::X86),
            ..SearchOptions::default()
        };
        let found = discover_with(&x86_log, &env, &probe);
        assert_eq!(found.dirs.len(), 1);
        assert!(found.dirs[0].path.ends_with("lib/Win32"));
        assert_eq!(found.dirs[0].origin, "CUDA_PATH (x86: the log's machine)");
        assert_eq!(found.layout_machine, Some(Machine::X86));
        // `--arch x64` wins over the log.
        let given = SearchOptions {
            arch_given: true,
            ..x86_log.clone()
        };
        let found = discover_with(&given, &env, &probe);
        assert!(found.dirs[0].path.ends_with("lib/x64"));
        assert_eq!(found.dirs[0].origin, "CUDA_PATH");
        assert_eq!(found.layout_machine, None);
        // A toolkit without x86 libraries (CUDA 12) keeps x64's: the machine mismatch is then
        // said by the resolver.
        std::fs::remove_dir_all(dir.path().join("lib/Win32")).unwrap();
        let found = discover_with(&x86_log, &env, &probe);
        assert!(found.dirs[0].path.ends_with("lib/x64"));
        assert_eq!(found.layout_machine, None);
    }

    #[test]
    fn explicit_options_keep_the_environment_out() {
        let dir = tempfile::tempdir().unwrap();
        library(&dir.path().join("a/one.lib"));
        let probe = |_: &Path| -> Result<Interpreter, ProbeError> { unreachable!() };
        let env = environment(&[
            ("VIRTUAL_ENV", dir.path().display().to_string()),
            ("CUDA_PATH", dir.path().display().to_string()),
        ]);
        let options = SearchOptions {
            lib_dirs: vec![dir.path().join("a")],
            ..SearchOptions::default()
        };
        let found = discover_with(&options, &env, &probe);
        assert_eq!(found.dirs.len(), 1);
        assert!(found.python.is_none());
        // LNKFIX_NO_PYTHON and --no-python keep the interpreter unasked.
        let skip = environment(&[
            ("VIRTUAL_ENV", dir.path().display().to_string()),
            (NO_PYTHON_VARIABLE, "1".into()),
        ]);
        let found = discover_with(&SearchOptions::default(), &skip, &probe);
        assert!(found.python.is_none() && found.dirs.is_empty());
        let options = SearchOptions {
            python: PythonChoice::Skip,
            ..SearchOptions::default()
        };
        let found = discover_with(&options, &env, &probe);
        assert!(found.python.is_none());
    }

    #[test]
    fn conda_layout_is_read_when_its_interpreter_fails() {
        let dir = tempfile::tempdir().unwrap();
        let conda = dir.path().join("envs/torch");
        library(&conda.join("Library/lib/zlib.lib"));
        library(&conda.join("libs/python311.lib"));
        library(&conda.join("Lib/site-packages/torch/lib/c10.lib"));
        library(&conda.join("python.exe"));
        let probe = |exe: &Path| {
            Err(ProbeError::TooSlow {
                exe: exe.to_path_buf(),
                seconds: 5,
            })
        };
        let env = environment(&[("CONDA_PREFIX", conda.display().to_string())]);
        let found = discover_with(&SearchOptions::default(), &env, &probe);
        let warning = found.warnings.join("\n");
        assert!(
            warning.contains("did not answer within 5 s") && warning.contains("layout"),
            "{warning}"
        );
        let label = "python (CONDA_PREFIX=ROOT/envs/torch)";
        assert_eq!(
            sources(&found, dir.path()),
            [
                ("envs/torch/libs".to_string(), format!("{label}: libs")),
                (
                    "envs/torch/Lib/site-packages/torch/lib".to_string(),
                    format!("{label}: torch/lib")
                ),
                (
                    "envs/torch/Library/lib".to_string(),
                    "CONDA_PREFIX=ROOT/envs/torch: Library/lib".to_string()
                ),
            ]
        );
        let python = found.python.unwrap();
        assert!(python.interpreter.is_none());
        assert!(python.error.unwrap().contains("did not answer"));
    }

    #[test]
    fn cuda_path_and_every_library_of_hip_path() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        library(&root.join("CUDA/v12.4/Lib/X64/cudart.lib"));
        library(&root.join("CUDA/v12.4/Lib/X64/cublas.lib"));
        let hip = [
            "amdhip64.lib",
            "hiprtc.lib",
            "hipblas.lib",
            "rocblas.lib",
            "MIOpen.lib",
        ];
        for name in hip {
            library(&root.join("ROCm/6.2/lib").join(name));
        }
        let env = environment(&[
            (
                "CUDA_PATH",
                format!("{}/", root.join("CUDA/v12.4").display()),
            ),
            ("HIP_PATH", root.join("ROCm/6.2").display().to_string()),
        ]);
        let found = discover_with(&SearchOptions::default(), &env, &|_| unreachable!());
        assert!(found.warnings.is_empty(), "{:?}", found.warnings);
        assert_eq!(
            sources(&found, root),
            [
                ("ROCm/6.2/lib".to_string(), "HIP_PATH".to_string()),
                ("CUDA/v12.4/Lib/X64".to_string(), "CUDA_PATH".to_string()),
            ]
        );
        let names: Vec<String> = found
            .files
            .iter()
            .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        for name in hip.iter().chain(&["cudart.lib", "cublas.lib"]) {
            assert!(names.contains(&name.to_string()), "{name}: {names:?}");
        }
        // No lib/x64: a warning naming CUDA_PATH.
        let env = environment(&[("CUDA_PATH", root.join("ROCm").display().to_string())]);
        let found = discover_with(&SearchOptions::default(), &env, &|_| unreachable!());
        assert!(
            found
                .warnings
                .iter()
                .any(|w| w.starts_with("CUDA_PATH: no library directory")),
            "{:?}",
            found.warnings
        );
    }
}
