//! Where to look for libraries: the directories of the link environment, in linker search order,
//! and the library files in them (docs/RULES.md §7).
//!
//! Explicit options (`--lib-dir`, `--hip-path`, `--vc-lib`, `--sdk-lib`, `--lib GLOB`) win; with
//! none, the environment is read the way link.exe and vcvars arrange it: `LIB`, then `HIP_PATH`,
//! `VCToolsInstallDir`, `WindowsSdkDir`/`UniversalCRTSdkDir` + `WindowsSDKLibVersion`. The Visual
//! Studio (`VC\Tools\MSVC\<ver>\lib\<arch>`, with `spectre`/`onecore` variants when pointed at),
//! Windows Kits (`Lib\<ver>\{um,ucrt}\<arch>`) and xwin splat (`crt/lib/x86_64`,
//! `sdk/lib/{um,ucrt}/x86_64`) layouts are understood; file and directory names match
//! case-insensitively and Windows paths (`C:\...\lib\`) work on Linux for cross setups.
//!
//! The environment also gives `CUDA_PATH`'s `lib\x64` and the active Python's library
//! directories (`environment`): its `libs`, `torch\lib`, `nvidia\*\lib`, `tvm_ffi\lib`, conda's
//! `Library\lib`; `--python EXE` adds that interpreter's even beside explicit options.

use std::collections::HashSet;
use std::fs;
use std::path::{Component, Path, PathBuf, Prefix};

use crate::index::Machine;

mod environment;

pub use environment::{Probe, PythonChoice, PythonFound, NO_PYTHON_VARIABLE};

/// Where the user told us to look (the CLI's options).
#[derive(Debug, Clone, Default)]
pub struct SearchOptions {
    /// `--lib-dir DIR`, repeatable, in search order.
    pub lib_dirs: Vec<PathBuf>,
    /// `--hip-path DIR`: the HIP SDK root; its `lib` is searched.
    pub hip_path: Option<PathBuf>,
    /// `--vc-lib DIR`: MSVC's lib directory, its arch subdirectory, the toolset root or xwin's `crt`.
    pub vc_lib: Option<PathBuf>,
    /// `--sdk-lib DIR`: the Windows Kits `Lib\<ver>` root (both `um\<arch>` and `ucrt\<arch>`),
    /// also `Lib` (newest version), the `10` root, or xwin's `sdk`.
    pub sdk_lib: Option<PathBuf>,
    /// `--lib GLOB`, for example `C:\Program Files\AMD\ROCm\*\lib\*.lib`: matching files are
    /// indexed, matching directories searched.
    pub globs: Vec<String>,
    /// `--arch`: which variant of a layout applies.
    pub arch: Machine,
    /// `--python EXE` / `--no-python`: whose Python library directories are searched.
    pub python: PythonChoice,
    /// The link's machine as its log shows it (`diagnose`), when it does; else `arch` is: the
    /// machine a Python interpreter's pointer size is checked against.
    pub link_machine: Option<Machine>,
    /// Whether `--arch` was given. When it was not and `link_machine` is known, the layouts
    /// (`--vc-lib`, `--sdk-lib`, `VCToolsInstallDir`, the SDK variables, `CUDA_PATH`) pick that
    /// machine's directories (`lib\x86`, `um\x86`, `lib\Win32`) instead of `arch`'s.
    pub arch_given: bool,
}

/// One directory to search, and why it is searched (in JSON: `{"path", "source"}`).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SearchDir {
    /// The directory as found on disk.
    #[serde(serialize_with = "crate::output::terminal::serialize_path")]
    pub path: PathBuf,
    /// The option or variable that named it: `--lib-dir`, `LIB`, `HIP_PATH`, `CUDA_PATH`,
    /// `python (VIRTUAL_ENV=DIR): torch/lib`, ...
    #[serde(rename = "source")]
    pub origin: String,
}

/// The result of discovery.
#[derive(Debug, Clone, Default)]
pub struct Discovered {
    /// Directories in search order, without duplicates.
    pub dirs: Vec<SearchDir>,
    /// `.lib`/`.a`/`.def`/`.dll`/`.obj`/`.pdb` files in search order (directory order, then name
    /// order within a directory, then glob matches), without duplicates.
    pub files: Vec<PathBuf>,
    /// Directories that do not exist or cannot be read, globs that are invalid or match nothing,
    /// a Python interpreter that could not be asked.
    pub warnings: Vec<String>,
    /// The Python interpreter whose directories were searched, or why it could not be asked;
    /// `None` when none was chosen.
    pub python: Option<PythonFound>,
    /// The machine the layouts followed when it is the log's rather than `--arch`'s (an x86 log
    /// without `--arch`): the index is built for it too. `None` when `arch` applies.
    pub layout_machine: Option<Machine>,
}

/// The machine the layouts of `options` pick directories for: `--arch` when given, else the
/// log's machine when known, else `arch` (x64 by default).
pub fn layout_machine(options: &SearchOptions) -> Machine {
    match options.link_machine {
        Some(machine) if !options.arch_given => machine,
        _ => options.arch,
    }
}

/// File extensions the index reads, lowercase.
const EXTENSIONS: &[&str] = &["lib", "a", "def", "dll", "obj", "o", "pdb"];

/// Turns a path given in Windows form into one this system can open: on non-Windows systems
/// backslashes become slashes; trailing separators go, except the one of a drive root (`C:\\` is
/// the root of drive C, while `C:` is the current directory on drive C).
pub fn native_path(text: &str) -> PathBuf {
    let text = text.trim().trim_matches('"');
    let converted = if cfg!(windows) {
        text.to_string()
    } else {
        text.replace('\\', "/")
    };
    let trimmed = converted.trim_end_matches(['/', '\\']);
    if trimmed.is_empty() {
        PathBuf::from(converted)
    } else if cfg!(windows) && trimmed.ends_with(':') && trimmed.len() < converted.len() {
        PathBuf::from(&converted[..trimmed.len() + 1])
    } else {
        PathBuf::from(trimmed)
    }
}

/// Finds `path` on disk matching every component case-insensitively when the exact spelling does
/// not exist (the SDK ships `Lib`, `um`, `kernel32.Lib`; case-sensitive file systems differ).
/// On Windows, whose file systems ignore case, an existing path is respelled as it is on disk.
pub fn resolve_case_insensitive(path: &Path) -> Option<PathBuf> {
    if path.exists() {
        if cfg!(windows) {
            return Some(on_disk_spelling(path));
        }
        return Some(path.to_path_buf());
    }
    let mut resolved = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => {
                let candidate = resolved.join(name);
                if candidate.exists() {
                    resolved = candidate;
                    continue;
                }
                let wanted = name.to_string_lossy().to_lowercase();
                let directory = if resolved.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    resolved.as_path()
                };
                let found = fs::read_dir(directory)
                    .ok()?
                    .flatten()
                    .find(|entry| entry.file_name().to_string_lossy().to_lowercase() == wanted)?;
                resolved.push(found.file_name());
            }
            other => resolved.push(other.as_os_str()),
        }
    }
    Some(resolved)
}

/// `path` (which exists) with each component spelled as its directory lists it. Only used where
/// the file system ignores case (Windows): `...\\LIB\\X64` opens `...\\lib\\x64`, and what lnkfix
/// prints and returns should be the latter. A directory that cannot be listed keeps the spelling
/// given.
fn on_disk_spelling(path: &Path) -> PathBuf {
    let mut spelled = PathBuf::new();
    for component in path.components() {
        match component {
            Component::Normal(name) => {
                let directory = if spelled.as_os_str().is_empty() {
                    Path::new(".")
                } else {
                    spelled.as_path()
                };
                let wanted = name.to_string_lossy().to_lowercase();
                let listed: Vec<_> = fs::read_dir(directory)
                    .map(|entries| entries.flatten().map(|entry| entry.file_name()).collect())
                    .unwrap_or_default();
                let found = listed.iter().find(|found| *found == name).or_else(|| {
                    listed
                        .iter()
                        .find(|found| found.to_string_lossy().to_lowercase() == wanted)
                });
                spelled.push(found.map(|found| found.as_os_str()).unwrap_or(name));
            }
            // Drive letters in upper case, as Windows writes them (`c:\` and `C:\` are one drive).
            Component::Prefix(prefix) => match prefix.kind() {
                Prefix::Disk(letter) => spelled.push(format!("{}:", letter as char)),
                Prefix::VerbatimDisk(letter) => spelled.push(format!(r"\\?\{}:", letter as char)),
                _ => spelled.push(prefix.as_os_str()),
            },
            other => spelled.push(other.as_os_str()),
        }
    }
    spelled
}

/// The directory names an architecture uses: Visual Studio/Windows Kits first, then xwin.
fn arch_names(arch: Machine) -> &'static [&'static str] {
    match arch {
        Machine::X86 => &["x86", "i686", "i386"],
        Machine::Arm64 => &["arm64", "aarch64"],
        Machine::Arm64ec => &["arm64ec", "arm64", "aarch64"],
        Machine::Arm => &["arm", "armnt", "aarch32"],
        _ => &["x64", "x86_64", "amd64"],
    }
}

/// Whether `dir` directly holds any library file.
fn holds_libraries(dir: &Path) -> bool {
    fs::read_dir(dir).is_ok_and(|entries| {
        entries.flatten().any(|entry| {
            is_library_file(&entry.path()) && entry.file_type().is_ok_and(|t| !t.is_dir())
        })
    })
}

fn is_library_file(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| EXTENSIONS.iter().any(|x| e.eq_ignore_ascii_case(x)))
}

/// The first existing `base/<prefix>/<arch name>`, case-insensitively.
fn arch_subdir(base: &Path, prefix: &[&str], arch: Machine) -> Option<PathBuf> {
    for name in arch_names(arch) {
        let mut candidate = base.to_path_buf();
        candidate.extend(prefix);
        candidate.push(name);
        if let Some(found) = resolve_case_insensitive(&candidate).filter(|p| p.is_dir()) {
            return Some(found);
        }
    }
    None
}

/// The newest version directory (`10.0.26100.0`) under `dir`, by numeric comparison.
fn newest_version(dir: &Path) -> Option<PathBuf> {
    let key =
        |name: &str| -> Vec<u64> { name.split('.').map(|p| p.parse().unwrap_or(0)).collect() };
    fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| e.path().is_dir())
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with(|c: char| c.is_ascii_digit())
                .then(|| (key(&name), e.path()))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, path)| path)
}

/// MSVC library directories for `base`: the arch directory itself, `lib\<arch>`, `<arch>`, a
/// toolset root (`VC\Tools\MSVC\<ver>`), the `MSVC` folder (newest version), or xwin's `crt`.
fn vc_dirs(base: &Path, arch: Machine) -> Vec<PathBuf> {
    if let Some(dir) = arch_subdir(base, &["lib"], arch).or_else(|| arch_subdir(base, &[], arch)) {
        return vec![dir];
    }
    if holds_libraries(base) {
        return vec![base.to_path_buf()];
    }
    if let Some(version) = newest_version(base) {
        return vc_dirs(&version, arch);
    }
    Vec::new()
}

/// Windows SDK directories for `base`: `Lib\<ver>` (um + ucrt), `Lib` or the Kits root (newest
/// version), xwin's `sdk` (`lib/um/x86_64`, `lib/ucrt/x86_64`), or an arch directory itself.
fn sdk_dirs(base: &Path, arch: Machine) -> Vec<PathBuf> {
    let mut dirs = Vec::new();
    for prefix in [&["um"][..], &["ucrt"], &["lib", "um"], &["lib", "ucrt"]] {
        if let Some(dir) = arch_subdir(base, prefix, arch) {
            dirs.push(dir);
        }
    }
    if !dirs.is_empty() {
        return dirs;
    }
    if let Some(lib) = resolve_case_insensitive(&base.join("Lib")).filter(|p| p.is_dir()) {
        if let Some(version) = newest_version(&lib) {
            return sdk_dirs(&version, arch);
        }
    }
    if let Some(version) = newest_version(base) {
        let found = sdk_dirs(&version, arch);
        if !found.is_empty() {
            return found;
        }
    }
    if holds_libraries(base) {
        return vec![base.to_path_buf()];
    }
    Vec::new()
}

/// Collects directories and files, deduplicating by canonical path.
struct Collector {
    discovered: Discovered,
    seen_dirs: HashSet<PathBuf>,
    seen_files: HashSet<PathBuf>,
    /// Files matched by `--lib` globs: searched after the directories.
    glob_files: Vec<PathBuf>,
    /// The machine the layouts look for first ([`layout_machine`]), and `--arch`'s, which they
    /// fall back to when the first has no directories there.
    machines: (Machine, Machine),
    /// A layout had directories of `--arch`'s machine only (or one for any machine).
    fell_back: bool,
}

impl Collector {
    /// An empty collector whose layouts look for `machines` ([`Collector::machines`]).
    fn new(machines: (Machine, Machine)) -> Collector {
        Collector {
            discovered: Discovered::default(),
            seen_dirs: HashSet::new(),
            seen_files: HashSet::new(),
            glob_files: Vec::new(),
            machines,
            fell_back: false,
        }
    }
}

/// The machines the layouts of `options` look for: the log's, then `--arch`'s; `--arch`'s alone
/// when some layout has directories of `--arch`'s machine only (a Windows SDK without `um\x86`,
/// CUDA 12 without `lib\Win32`, `--vc-lib` naming `lib\x64` itself): an index of one machine's
/// libraries, never a mix, so that names of the other machine are said as a machine mismatch.
fn layout_machines(
    options: &SearchOptions,
    explicit: bool,
    env: &dyn Fn(&str) -> Option<String>,
) -> (Machine, Machine) {
    let machines = (layout_machine(options), options.arch);
    if machines.0 == machines.1 {
        return machines;
    }
    let mut trial = Collector::new(machines);
    if explicit {
        trial.add_option_layouts(options);
    } else {
        trial.add_environment_layouts(env);
        trial.add_cuda(env);
    }
    if trial.fell_back {
        (options.arch, options.arch)
    } else {
        machines
    }
}

impl Collector {
    fn add_dir(&mut self, path: &Path, origin: &str) {
        if path.to_str().is_none() {
            self.discovered.warnings.push(format!(
                "{origin}: directory {} is not valid Unicode: not searched (a link line cannot \
                 name it exactly; rename it)",
                crate::output::terminal::path_text(path)
            ));
            return;
        }
        let Some(found) = resolve_case_insensitive(path) else {
            self.discovered.warnings.push(format!(
                "{origin}: directory {} does not exist",
                path.display()
            ));
            return;
        };
        if !found.is_dir() {
            self.discovered
                .warnings
                .push(format!("{origin}: {} is not a directory", found.display()));
            return;
        }
        let key = fs::canonicalize(&found).unwrap_or_else(|_| found.clone());
        if !self.seen_dirs.insert(key) {
            return;
        }
        self.discovered.dirs.push(SearchDir {
            path: found,
            origin: origin.to_string(),
        });
    }

    /// Adds a file unless it was seen (by canonical path, `canonical` when the caller knows it).
    fn add_file(&mut self, path: &Path, canonical: Option<PathBuf>) {
        if path.to_str().is_none() {
            self.discovered.warnings.push(format!(
                "{} is not valid Unicode: not indexed (a link line cannot name it exactly; rename it)",
                crate::output::terminal::path_text(path)
            ));
            return;
        }
        let key = canonical
            .or_else(|| fs::canonicalize(path).ok())
            .unwrap_or_else(|| path.to_path_buf());
        if self.seen_files.insert(key) {
            self.discovered.files.push(path.to_path_buf());
        }
    }

    fn add_layout(&mut self, dirs: Vec<PathBuf>, base: &Path, origin: &str, what: &str) {
        if dirs.is_empty() {
            self.discovered.warnings.push(format!(
                "{origin}: no {what} library directory found under {}",
                base.display()
            ));
        }
        for dir in dirs {
            self.add_dir(&dir, origin);
        }
    }

    /// The directories a layout has (`dirs_for`) for the log's machine when it is not `--arch`'s
    /// and they are its own (not the same directories as for `--arch`), else for `--arch`'s; and
    /// their origin: `origin`, with the machine when it is the log's (`--vc-lib (x86: the log's
    /// machine)`).
    fn for_machine(
        &mut self,
        origin: &str,
        dirs_for: impl Fn(Machine) -> Vec<PathBuf>,
    ) -> (Vec<PathBuf>, String) {
        let (log, arch) = self.machines;
        let fallback = dirs_for(arch);
        if log != arch {
            let dirs = dirs_for(log);
            if !dirs.is_empty() && dirs != fallback {
                self.discovered.layout_machine = Some(log);
                return (dirs, format!("{origin} ({log}: the log's machine)"));
            }
            if !fallback.is_empty() {
                self.fell_back = true;
            }
        }
        (fallback, origin.to_string())
    }

    fn add_glob(&mut self, pattern: &str) {
        let native = native_path(pattern).to_string_lossy().into_owned();
        let options = glob::MatchOptions {
            case_sensitive: false,
            require_literal_separator: true,
            require_literal_leading_dot: false,
        };
        if native.contains("**") {
            return self.add_recursive_glob(pattern, &native, options);
        }
        let matches = match glob::glob_with(&native, options) {
            Ok(matches) => matches,
            Err(error) => {
                self.discovered
                    .warnings
                    .push(format!("--lib {pattern}: invalid glob: {}", error.msg));
                return;
            }
        };
        let mut count = 0;
        for entry in matches {
            match entry {
                Ok(path) if path.is_dir() => {
                    count += 1;
                    self.add_dir(&path, "--lib");
                }
                Ok(path) => {
                    count += 1;
                    self.glob_files.push(path);
                }
                Err(error) => self.discovered.warnings.push(format!(
                    "--lib {pattern}: cannot read {}: {}",
                    error.path().display(),
                    error.error()
                )),
            }
        }
        if count == 0 {
            self.discovered
                .warnings
                .push(format!("--lib {pattern}: matches nothing"));
        }
    }

    /// A `**` glob, walked here rather than by the glob crate, which follows directory links
    /// without end: each directory is entered once (by [`crate::files::identity`]), a link back to a
    /// directory being walked is a cycle (warned about, not followed), and matches are recorded
    /// by their canonical paths, so `/LIBPATH:` names the real directory.
    fn add_recursive_glob(&mut self, pattern: &str, native: &str, options: glob::MatchOptions) {
        let matcher = match glob::Pattern::new(native) {
            Ok(matcher) => matcher,
            Err(error) => {
                self.discovered
                    .warnings
                    .push(format!("--lib {pattern}: invalid glob: {}", error.msg));
                return;
            }
        };
        let base = glob_base(native);
        let mut entered = HashSet::new();
        let mut count = 0;
        let mut budget = RECURSIVE_GLOB_ENTRIES;
        // (directory, the identities of it and its ancestors on this walk).
        let mut stack: Vec<(PathBuf, Vec<crate::files::identity::FileIdentity>)> = Vec::new();
        if let Ok(identity) = crate::files::identity::of_path(&base) {
            entered.insert(identity);
            stack.push((base, vec![identity]));
        }
        while let Some((dir, ancestors)) = stack.pop() {
            let Ok(entries) = fs::read_dir(&dir) else {
                continue;
            };
            let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            entries.sort();
            for path in entries.into_iter().rev() {
                if budget == 0 {
                    self.discovered.warnings.push(format!(
                        "--lib {pattern}: stopped after {RECURSIVE_GLOB_ENTRIES} entries"
                    ));
                    return self.warn_if_nothing(pattern, count);
                }
                budget -= 1;
                let Ok(metadata) = fs::metadata(&path) else {
                    continue;
                };
                let matched = matcher.matches_path_with(&path, options);
                if metadata.is_dir() {
                    let Ok(identity) = crate::files::identity::of_path(&path) else {
                        continue;
                    };
                    if ancestors.contains(&identity) {
                        self.discovered.warnings.push(format!(
                            "--lib {pattern}: {} links back to a directory above it (a cycle): not followed",
                            path.display()
                        ));
                        continue;
                    }
                    if !entered.insert(identity) || ancestors.len() >= RECURSIVE_GLOB_DEPTH {
                        continue;
                    }
                    let canonical = dunce::canonicalize(&path).unwrap_or_else(|_| path.clone());
                    if matched {
                        count += 1;
                        self.add_dir(&canonical, "--lib");
                    }
                    let mut below = ancestors.clone();
                    below.push(identity);
                    stack.push((path, below));
                } else if matched {
                    count += 1;
                    let canonical = dunce::canonicalize(&path).unwrap_or_else(|_| path.clone());
                    self.glob_files.push(canonical);
                }
            }
        }
        self.warn_if_nothing(pattern, count);
    }

    fn warn_if_nothing(&mut self, pattern: &str, count: usize) {
        if count == 0 {
            self.discovered
                .warnings
                .push(format!("--lib {pattern}: matches nothing"));
        }
    }
}

/// Where a glob's walk starts: its longest leading part without wildcards (`.` when none).
fn glob_base(native: &str) -> PathBuf {
    let mut base = PathBuf::new();
    for component in Path::new(native).components() {
        if component
            .as_os_str()
            .to_string_lossy()
            .contains(['*', '?', '['])
        {
            break;
        }
        base.push(component);
    }
    if base.as_os_str().is_empty() {
        base.push(".");
    }
    base
}

/// Entries a `**` glob looks at, at most (a whole drive is not a library directory).
const RECURSIVE_GLOB_ENTRIES: usize = 1_000_000;
/// Directory levels a `**` glob descends, at most.
const RECURSIVE_GLOB_DEPTH: usize = 64;

/// Finds the directories and library files of the link environment. `env` reads an environment
/// variable (injected so tests need not change the process environment); a Python interpreter is
/// asked through [`crate::index::interpreter::probe`].
pub fn discover(options: &SearchOptions, env: &dyn Fn(&str) -> Option<String>) -> Discovered {
    discover_with(options, env, &crate::index::interpreter::probe)
}

/// [`discover`] with the interpreter asked through `probe`.
///
/// The rule: explicit options (`--lib-dir`, `--hip-path`, `--vc-lib`, `--sdk-lib`, `--lib`)
/// replace the environment; `--python EXE` is added after them. With none of them, the
/// environment is read: `LIB`, `HIP_PATH`, `VCToolsInstallDir`, the Windows SDK variables,
/// `CUDA_PATH`, the active Python, conda.
pub fn discover_with(
    options: &SearchOptions,
    env: &dyn Fn(&str) -> Option<String>,
    probe: &Probe<'_>,
) -> Discovered {
    let explicit = !options.lib_dirs.is_empty()
        || options.hip_path.is_some()
        || options.vc_lib.is_some()
        || options.sdk_lib.is_some()
        || !options.globs.is_empty();
    let link = options.link_machine.unwrap_or(options.arch);
    // The layouts follow the log's machine when `--arch` was not given (an x86 log gets
    // `lib\x86`); the index is then built for that machine too.
    let mut collector = Collector::new(layout_machines(options, explicit, env));
    if explicit {
        collector.add_options(options);
        if let PythonChoice::Exe(_) = options.python {
            collector.discovered.python = collector.add_python(&options.python, env, probe, link);
        }
    } else {
        collector.add_environment(env);
        collector.add_cuda(env);
        collector.discovered.python = collector.add_python(&options.python, env, probe, link);
        collector.add_conda(env);
    }
    let dirs = collector.discovered.dirs.clone();
    for dir in &dirs {
        collector.add_files_of(dir);
    }
    for file in std::mem::take(&mut collector.glob_files) {
        collector.add_file(&file, None);
    }
    collector.discovered
}

impl Collector {
    /// The directories and globs the options name (`--lib-dir`, `--hip-path`, `--vc-lib`,
    /// `--sdk-lib`, `--lib`).
    fn add_options(&mut self, options: &SearchOptions) {
        for dir in &options.lib_dirs {
            self.add_dir(&native_path(&dir.to_string_lossy()), "--lib-dir");
        }
        if let Some(hip) = &options.hip_path {
            let hip = native_path(&hip.to_string_lossy());
            self.add_dir(&hip.join("lib"), "--hip-path");
        }
        self.add_option_layouts(options);
        for pattern in &options.globs {
            self.add_glob(pattern);
        }
    }

    /// The directories of `--vc-lib` and `--sdk-lib`, which depend on the machine.
    fn add_option_layouts(&mut self, options: &SearchOptions) {
        if let Some(vc) = &options.vc_lib {
            let vc = native_path(&vc.to_string_lossy());
            let (dirs, origin) = self.for_machine("--vc-lib", |arch| vc_dirs(&vc, arch));
            self.add_layout(dirs, &vc, &origin, "msvc");
        }
        if let Some(sdk) = &options.sdk_lib {
            let sdk = native_path(&sdk.to_string_lossy());
            let (dirs, origin) = self.for_machine("--sdk-lib", |arch| sdk_dirs(&sdk, arch));
            self.add_layout(dirs, &sdk, &origin, "windows sdk");
        }
    }

    /// The directories the environment names, as link.exe reads them (`LIB`), and those of
    /// `HIP_PATH`, `VCToolsInstallDir` and the Windows SDK variables.
    fn add_environment(&mut self, env: &dyn Fn(&str) -> Option<String>) {
        if let Some(lib) = env("LIB") {
            for part in lib.split(';').filter(|p| !p.trim().is_empty()) {
                self.add_dir(&native_path(part), "LIB");
            }
        }
        if let Some(hip) = env("HIP_PATH").filter(|v| !v.trim().is_empty()) {
            self.add_dir(&native_path(&hip).join("lib"), "HIP_PATH");
        }
        self.add_environment_layouts(env);
    }

    /// The directories of `VCToolsInstallDir` and the Windows SDK variables, which depend on the
    /// machine.
    fn add_environment_layouts(&mut self, env: &dyn Fn(&str) -> Option<String>) {
        if let Some(vc) = env("VCToolsInstallDir").filter(|v| !v.trim().is_empty()) {
            let vc = native_path(&vc);
            let (dirs, origin) = self.for_machine("VCToolsInstallDir", |arch| vc_dirs(&vc, arch));
            self.add_layout(dirs, &vc, &origin, "msvc");
        }
        let version = env("WindowsSDKLibVersion")
            .map(|v| v.trim().trim_end_matches(['\\', '/']).to_string())
            .filter(|v| !v.is_empty());
        for (variable, kind) in [("WindowsSdkDir", "um"), ("UniversalCRTSdkDir", "ucrt")] {
            let Some(root) = env(variable).filter(|v| !v.trim().is_empty()) else {
                continue;
            };
            let root = native_path(&root);
            let base = match &version {
                Some(version) => root.join("Lib").join(version),
                None => root.join("Lib"),
            };
            let base = resolve_case_insensitive(&base).unwrap_or(base);
            let base = if version.is_none() {
                newest_version(&base).unwrap_or(base)
            } else {
                base
            };
            let (dirs, origin) = self.for_machine(variable, |arch| {
                arch_subdir(&base, &[kind], arch).into_iter().collect()
            });
            match dirs.first() {
                Some(dir) => self.add_dir(dir, &origin),
                None => self.discovered.warnings.push(format!(
                    "{variable}: no {kind} library directory found under {}",
                    base.display()
                )),
            }
        }
    }

    /// The library files of a directory searched, by name ignoring case; an empty or unreadable
    /// directory is a warning.
    fn add_files_of(&mut self, dir: &SearchDir) {
        match fs::read_dir(&dir.path) {
            Ok(entries) => {
                // One `realpath` per directory: a file that is not a link is canonical there.
                let canonical_dir = fs::canonicalize(&dir.path).ok();
                let mut files: Vec<(PathBuf, bool)> = entries
                    .flatten()
                    .filter_map(|e| {
                        let kind = e.file_type().ok().filter(|t| !t.is_dir())?;
                        Some((e.path(), kind.is_symlink()))
                    })
                    .filter(|(p, _)| is_library_file(p))
                    .collect();
                files.sort_by_key(|(p, _)| {
                    p.file_name().map(|n| n.to_string_lossy().to_lowercase())
                });
                if files.is_empty() {
                    self.discovered
                        .warnings
                        .push(empty_dir_warning(&dir.path, &dir.origin));
                }
                for (file, symlink) in files {
                    let canonical = match (&canonical_dir, symlink) {
                        (Some(dir), false) => file.file_name().map(|name| dir.join(name)),
                        _ => None,
                    };
                    self.add_file(&file, canonical);
                }
            }
            Err(error) => self.discovered.warnings.push(format!(
                "{}: cannot read directory {}: {}",
                dir.origin,
                dir.path.display(),
                error.to_string().to_lowercase()
            )),
        }
    }
}

/// The warning for a searched directory that holds no library file: where the libraries
/// probably are (`lib`, `lib\x64`, `Lib`), when such a subdirectory has some.
fn empty_dir_warning(dir: &Path, origin: &str) -> String {
    let has_libraries = |candidate: &Path| {
        fs::read_dir(candidate)
            .is_ok_and(|entries| entries.flatten().any(|e| is_library_file(&e.path())))
    };
    let suggestion = ["lib", "lib/x64", "Lib", "x64", "lib64"]
        .iter()
        .filter_map(|sub| resolve_case_insensitive(&dir.join(sub)))
        .find(|candidate| candidate.is_dir() && has_libraries(candidate));
    match suggestion {
        Some(better) => format!(
            "{origin}: no .lib here ({}); did you mean {}?",
            dir.display(),
            better.display()
        ),
        None => format!(
            "{origin}: no library file (.lib, .a, .def, .dll, .obj, .pdb) in {}",
            dir.display()
        ),
    }
}

/// Finds library `name` (`kernel32`, `kernel32.lib`, `User32.Lib`) in `dirs` the way link.exe
/// does: first directory wins, `.lib` added when there is no extension, names compared
/// case-insensitively; returns the file's exact on-disk spelling. An existing path is returned
/// as is.
pub fn find_library(dirs: &[SearchDir], name: &str) -> Option<PathBuf> {
    let name = name.trim().trim_matches('"');
    let native = native_path(name);
    if native.components().count() > 1 {
        if let Some(found) = resolve_case_insensitive(&native).filter(|p| p.is_file()) {
            return Some(found);
        }
    }
    let file_name = native.file_name()?.to_string_lossy().into_owned();
    let wanted = if Path::new(&file_name).extension().is_some() {
        file_name.to_lowercase()
    } else {
        format!("{}.lib", file_name.to_lowercase())
    };
    for dir in dirs {
        let exact = dir.path.join(&file_name);
        // Where names ignore case (Windows) `exact` exists in any spelling: list the directory to
        // return the name as it is on disk.
        if !cfg!(windows) && exact.is_file() && file_name.to_lowercase() == wanted {
            return Some(exact);
        }
        let Ok(entries) = fs::read_dir(&dir.path) else {
            continue;
        };
        if let Some(entry) = entries
            .flatten()
            .find(|e| e.file_name().to_string_lossy().to_lowercase() == wanted)
        {
            return Some(entry.path());
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_paths_become_native() {
        if cfg!(windows) {
            return;
        }
        assert_eq!(
            native_path("C:\\Program Files\\AMD\\ROCm\\6.2\\"),
            PathBuf::from("C:/Program Files/AMD/ROCm/6.2")
        );
        assert_eq!(native_path("\"/opt/x/\""), PathBuf::from("/opt/x"));
        assert_eq!(native_path("/"), PathBuf::from("/"));
    }

    #[test]
    fn newest_version_compares_numbers() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        for version in ["10.0.9.0", "10.0.22621.0", "10.0.100.0", "wdf"] {
            fs::create_dir_all(root.join(version)).unwrap();
        }
        assert_eq!(newest_version(root), Some(root.join("10.0.22621.0")));
    }

    #[test]
    fn a_directory_without_libraries_warns_and_points_at_its_lib() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        fs::create_dir_all(root.join("sdk/lib")).unwrap();
        fs::create_dir_all(root.join("nothing")).unwrap();
        fs::write(root.join("sdk/lib/amdhip64.lib"), b"!<arch>\n").unwrap();
        let env = |_: &str| None;
        let found = discover(
            &SearchOptions {
                lib_dirs: vec![root.join("sdk"), root.join("nothing")],
                ..SearchOptions::default()
            },
            &env,
        );
        assert!(
            found.warnings.iter().any(|w| w.contains("no .lib here")
                && w.contains("did you mean")
                && w.ends_with(&format!("{}?", root.join("sdk").join("lib").display()))),
            "{:?}",
            found.warnings
        );
        assert!(
            found
                .warnings
                .iter()
                .any(|w| w.contains("no library file") && w.contains("nothing")),
            "{:?}",
            found.warnings
        );
    }
}
