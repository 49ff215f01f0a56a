//! Doctor: the rule book's step 0, checked — the environment recipe (HIP_PATH,
//! TVM_FFI_ROCM_ARCH_LIST, TRITON_OVERRIDE_ARCH, CC), the vcvars environment, the directories they
//! name, the HIP import library and both CRT flavours where the link will look, the arch names,
//! and what the compiler driver means for the flags extension.py passes (docs/RULES.md §14).
//!
//! The environment comes in as a closure so tests (and other tools) can inject one; nothing here
//! reads the process environment.

use serde::Serialize;
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::commands::triage::{is_valid_target, split_list};
use crate::output::report::Style;

/// The JSON schema version of [`DoctorReport`].
pub const SCHEMA_VERSION: u32 = 1;

/// The recipe's variables (the rule book's step 0.2, docs/RULES.md §14).
pub const RECIPE_VARIABLES: &[&str] = &[
    "HIP_PATH",
    "TVM_FFI_ROCM_ARCH_LIST",
    "TRITON_OVERRIDE_ARCH",
    "CC",
];

/// The variables vcvars64.bat sets that the link needs.
pub const VCVARS_VARIABLES: &[&str] = &[
    "LIB",
    "LIBPATH",
    "INCLUDE",
    "VCToolsInstallDir",
    "WindowsSdkDir",
];

/// The CRT import libraries of each flavour, by role (release builds; docs/RULES.md §3).
pub const CRT_LIBRARIES: &[(&str, &str, &str)] = &[
    ("C runtime startup", "libcmt.lib", "msvcrt.lib"),
    ("universal CRT", "libucrt.lib", "ucrt.lib"),
    ("Visual C++ runtime", "libvcruntime.lib", "vcruntime.lib"),
    ("C++ standard library", "libcpmt.lib", "msvcprt.lib"),
];

/// The HIP runtime's import library.
pub const HIP_IMPORT_LIBRARY: &str = "amdhip64.lib";

/// One check.
#[derive(Debug, Clone, Serialize)]
pub struct Check {
    /// Stable id (`env-hip-path`, `crt-static`, `arch-agree`).
    pub id: String,
    /// Whether it passed (`false` also for a check that could not be made; see `checked`).
    pub ok: bool,
    /// Whether the check could be made (`false`: what it needs is not set, or it does not apply
    /// to this environment). A check not made is neither passed nor failed.
    pub checked: bool,
    /// What was found.
    pub detail: String,
    /// What to do when it failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fix: Option<String>,
}

/// Every check: what `doctor --format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct DoctorReport {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The checks, in the recipe's order.
    pub checks: Vec<Check>,
    /// How many passed.
    pub passed: usize,
    /// How many failed (checks not made are not counted).
    pub failed: usize,
    /// How many could not be made.
    pub not_checked: usize,
    /// Whether the environment is a tvm-ffi one (its recipe variables and advice apply).
    pub tvm_ffi: bool,
    /// With `--log`: the leftovers of the log's directory behind the `log-leftovers` check.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub zombies: Option<crate::commands::zombies::LaunchCheck>,
    /// The library directories `diagnose` searches with no library option, in order, each with
    /// where it came from (`source`).
    pub searched_dirs: Vec<crate::index::discover::SearchDir>,
    /// The Python interpreter whose directories are among them (version, bits, debug), or why
    /// it could not be asked; `null` when there is none.
    pub python: Option<crate::index::discover::PythonFound>,
    /// What that search warned about (a slow interpreter, one of another pointer size).
    pub search_warnings: Vec<String>,
    /// The machine whose directories `searched_dirs` are (`--arch`, a `--for-log` log's, x64).
    pub machine: DoctorMachine,
}

/// Options for [`doctor`].
#[derive(Debug, Clone, Default)]
pub struct DoctorOptions {
    /// Extra library directories to search besides `LIB` (the `--lib-dir` options of `diagnose`).
    pub lib_dirs: Vec<PathBuf>,
    /// Whether to check tvm-ffi's recipe (`Some(true)`: `--tvm-ffi`); `None`: when the
    /// environment looks like a tvm-ffi one (see [`is_tvm_ffi_environment`]).
    pub tvm_ffi: Option<bool>,
    /// The log the next attempt writes (`--log`): check that no leftover of an earlier attempt
    /// holds a file in its directory or runs under a suspect name (the rule book's step 0.1).
    pub log: Option<PathBuf>,
    /// `--python EXE` / `--no-python`: whose Python directories are listed.
    pub python: crate::index::discover::PythonChoice,
    /// `--arch`: the machine whose library directories are listed.
    pub arch: Option<crate::index::Machine>,
    /// The machine a failed link's log shows (`--for-log`), and what says so.
    pub log_machine: Option<DoctorMachine>,
}

/// The machine whose library directories doctor lists, and why (in JSON: `{"machine", "why"}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DoctorMachine {
    /// `x64`, `x86`, `arm64`, `arm64ec`.
    pub machine: crate::index::Machine,
    /// `--arch`, the log and what in it shows the machine, or the default.
    pub why: String,
}

/// Whether the environment is a tvm-ffi bring-up: a `TVM_FFI_*` or `TRITON_*` variable is set,
/// or the active Python environment (`VIRTUAL_ENV`, `CONDA_PREFIX`) has the `tvm_ffi` package.
pub fn is_tvm_ffi_environment(env: &dyn Fn(&str) -> Option<String>) -> bool {
    let set = |name: &str| env(name).is_some_and(|v| !v.trim().is_empty());
    if [
        "TVM_FFI_ROCM_ARCH_LIST",
        "TVM_FFI_CACHE_DIR",
        "TRITON_OVERRIDE_ARCH",
    ]
    .iter()
    .any(|v| set(v))
    {
        return true;
    }
    ["VIRTUAL_ENV", "CONDA_PREFIX"]
        .iter()
        .filter_map(|v| env(v).and_then(|p| clean_path(&p)))
        .any(|prefix| {
            join(&join(&prefix, "Lib"), "site-packages")
                .join("tvm_ffi")
                .is_dir()
                || std::fs::read_dir(join(&prefix, "lib")).is_ok_and(|entries| {
                    entries.flatten().any(|e| {
                        e.file_name().to_string_lossy().starts_with("python")
                            && e.path().join("site-packages").join("tvm_ffi").is_dir()
                    })
                })
        })
}

/// The recipe variables that only a tvm-ffi/triton bring-up needs.
const TVM_FFI_VARIABLES: &[&str] = &["TVM_FFI_ROCM_ARCH_LIST", "TRITON_OVERRIDE_ARCH"];

/// The exit code: 0 only when every check passes, else 1.
pub fn exit_code(report: &DoctorReport) -> i32 {
    i32::from(report.failed > 0)
}

/// Normalises one path from the environment: surrounding quotes and whitespace removed, trailing
/// separators removed (`C:\ROCm\6.4\` → `C:\ROCm\6.4`) except for a root (`C:\`, `/`).
pub fn clean_path(raw: &str) -> Option<PathBuf> {
    let mut text = raw.trim();
    // Quotes around the whole path, or a stray one at either end (copy-pasted `set "X=..."`).
    text = text.trim_matches('"').trim();
    while text.len() > 1 && (text.ends_with('\\') || text.ends_with('/')) {
        let shorter = &text[..text.len() - 1];
        if shorter.ends_with(':') {
            break;
        }
        text = shorter;
    }
    (!text.is_empty()).then(|| PathBuf::from(text))
}

/// Splits a `;`-separated path list (LIB, LIBPATH, INCLUDE): empty entries skipped, quotes and
/// trailing separators removed.
pub fn split_path_list(list: &str) -> Vec<PathBuf> {
    list.split(';').filter_map(clean_path).collect()
}

/// Joins a Windows-style relative part (`lib`) onto a base.
fn join(base: &Path, part: &str) -> PathBuf {
    base.join(part)
}

/// Finds a library the way the link will (first directory wins, any case), through discovery's
/// one implementation of that rule.
fn find_in(dirs: &[PathBuf], name: &str) -> Option<PathBuf> {
    let dirs: Vec<crate::index::discover::SearchDir> = dirs
        .iter()
        .map(|d| crate::index::discover::SearchDir {
            path: d.clone(),
            origin: "LIB".into(),
        })
        .collect();
    crate::index::discover::find_library(&dirs, name)
}

/// How CC will treat flags.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Driver {
    ClangCl,
    Clang,
    Other,
}

fn driver_of(cc: &str) -> (Driver, String) {
    // CC may hold a quoted path with spaces, and arguments after it.
    let cc = cc.trim();
    let program = if let Some(rest) = cc.strip_prefix('"') {
        rest.split('"').next().unwrap_or(rest)
    } else {
        cc.split_whitespace().next().unwrap_or(cc)
    };
    let base = program
        .rsplit(['\\', '/'])
        .next()
        .unwrap_or(program)
        .to_ascii_lowercase();
    let stem = base.strip_suffix(".exe").unwrap_or(&base).to_string();
    let driver = match stem.as_str() {
        "clang-cl" => Driver::ClangCl,
        "clang" | "clang++" | "amdclang" | "amdclang++" => Driver::Clang,
        s if s.starts_with("clang-cl-") => Driver::ClangCl,
        s if s.starts_with("clang-") && s[6..].bytes().all(|b| b.is_ascii_digit()) => Driver::Clang,
        _ => Driver::Other,
    };
    (driver, stem)
}

/// Runs every check against the environment `env` gives, in the recipe's order; a Python
/// interpreter is asked through [`crate::index::interpreter::probe`].
pub fn doctor(env: &dyn Fn(&str) -> Option<String>, options: &DoctorOptions) -> DoctorReport {
    doctor_with(env, options, &crate::index::interpreter::probe)
}

/// [`doctor`] with the Python interpreter asked through `probe`.
pub fn doctor_with(
    env: &dyn Fn(&str) -> Option<String>,
    options: &DoctorOptions,
    probe: &crate::index::discover::Probe<'_>,
) -> DoctorReport {
    let get = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    let tvm_ffi = options
        .tvm_ffi
        .unwrap_or_else(|| is_tvm_ffi_environment(env));
    let mut checks = Vec::new();
    // Step 0: no leftover of an earlier attempt holds the log's directory (`--log`).
    let zombies = options.log.as_deref().map(|log| {
        let (check, found) = leftover_check(log);
        checks.push(check);
        found
    });
    variable_checks(&get, tvm_ffi, &mut checks);
    directory_checks(&get, &mut checks);
    library_checks(&get, options, &mut checks);
    if tvm_ffi {
        arch_checks(&get, &mut checks);
    } else {
        checks.push(not_a_tvm_ffi_environment(
            "arch-list-valid",
            "TVM_FFI_ROCM_ARCH_LIST",
        ));
        checks.push(not_a_tvm_ffi_environment(
            "arch-agree",
            "TRITON_OVERRIDE_ARCH",
        ));
    }
    checks.push(driver_check(&get, tvm_ffi));
    let failed = checks.iter().filter(|c| c.checked && !c.ok).count();
    let not_checked = checks.iter().filter(|c| !c.checked).count();
    let machine = chosen_machine(options);
    let search = crate::index::discover::SearchOptions {
        python: options.python.clone(),
        arch: options.arch.unwrap_or(crate::index::Machine::X64),
        arch_given: options.arch.is_some(),
        link_machine: options.log_machine.as_ref().map(|m| m.machine),
        ..Default::default()
    };
    let discovered = crate::index::discover::discover_with(&search, env, probe);
    let machine = followed_machine(machine, &search, &discovered);
    DoctorReport {
        machine,
        searched_dirs: discovered.dirs,
        python: discovered.python,
        search_warnings: discovered.warnings,
        schema_version: SCHEMA_VERSION,
        passed: checks.len() - failed - not_checked,
        failed,
        not_checked,
        tvm_ffi,
        checks,
        zombies: zombies.flatten(),
    }
}

/// The machine whose directories are listed, as `diagnose` picks it: `--arch`, else the log's,
/// else x64.
fn chosen_machine(options: &DoctorOptions) -> DoctorMachine {
    match (options.arch, &options.log_machine) {
        (Some(machine), _) => DoctorMachine {
            machine,
            why: "--arch".into(),
        },
        (None, Some(log)) => log.clone(),
        (None, None) => DoctorMachine {
            machine: crate::index::Machine::X64,
            why: "default (no --arch, no --for-log log showing a machine)".into(),
        },
    }
}

/// The machine the directories were found for: the log's machine only when the layouts followed
/// it (every layout has that machine's directories); else `--arch`'s (x64), said with why.
fn followed_machine(
    chosen: DoctorMachine,
    search: &crate::index::discover::SearchOptions,
    discovered: &crate::index::discover::Discovered,
) -> DoctorMachine {
    let from_log = !search.arch_given && search.link_machine.is_some_and(|m| m != search.arch);
    let has_layout = discovered
        .dirs
        .iter()
        .any(|d| d.origin != "LIB" && !d.origin.starts_with("python"));
    if !from_log || discovered.layout_machine.is_some() || !has_layout {
        return chosen;
    }
    DoctorMachine {
        machine: search.arch,
        why: format!(
            "{} shows {}, but not every library layout has {} directories (an SDK or CUDA without them): they are listed for {}, as diagnose searches them, and {} names are a machine mismatch there; install the {} libraries",
            chosen.why, chosen.machine, chosen.machine, search.arch, chosen.machine, chosen.machine
        ),
    }
}

/// An environment variable, `None` when unset or blank.
type Get<'a> = dyn Fn(&str) -> Option<String> + 'a;

/// Step 1: the recipe's variables and vcvars' variables are set.
fn variable_checks(get: &Get<'_>, tvm_ffi: bool, checks: &mut Vec<Check>) {
    for name in RECIPE_VARIABLES.iter().chain(VCVARS_VARIABLES) {
        if !tvm_ffi && TVM_FFI_VARIABLES.contains(name) {
            checks.push(not_a_tvm_ffi_environment(
                &format!("env-{}", name.to_ascii_lowercase().replace('_', "-")),
                name,
            ));
            continue;
        }
        let value = get(name);
        let vcvars = VCVARS_VARIABLES.contains(name);
        checks.push(Check {
            id: format!("env-{}", name.to_ascii_lowercase().replace('_', "-")),
            ok: value.is_some(),
            checked: true,
            detail: match &value {
                Some(v) => format!("{name}={v}"),
                None => format!("{name} is not set"),
            },
            fix: value.is_none().then(|| {
                if vcvars {
                    format!("run vcvars64.bat (Visual Studio's x64 Native Tools environment) in the shell that launches the server; it sets {name}")
                } else {
                    match *name {
                        "HIP_PATH" => "set HIP_PATH to the ROCm/HIP SDK root (e.g. C:\\Program Files\\AMD\\ROCm\\6.4\\)".into(),
                        "TVM_FFI_ROCM_ARCH_LIST" => "set TVM_FFI_ROCM_ARCH_LIST to the GPU's gfx target (e.g. gfx1201); unset, the JIT builds for gfx906".into(),
                        "TRITON_OVERRIDE_ARCH" => "set TRITON_OVERRIDE_ARCH to the same gfx target as TVM_FFI_ROCM_ARCH_LIST".into(),
                        _ => "set CC to clang-cl (MSVC-style flags) or clang (GNU-style flags) from HIP_PATH\\bin".into(),
                    }
                }
            }),
        });
    }
}

/// Step 2: the directories they name exist.
fn directory_checks(get: &Get<'_>, checks: &mut Vec<Check>) {
    let single_dirs = ["HIP_PATH", "VCToolsInstallDir", "WindowsSdkDir"];
    for name in single_dirs {
        let id = format!("dir-{}", name.to_ascii_lowercase().replace('_', "-"));
        let Some(value) = get(name) else {
            checks.push(skipped(&id, name));
            continue;
        };
        let path = clean_path(&value);
        let ok = path.as_ref().is_some_and(|p| p.is_dir());
        checks.push(Check {
            id,
            ok,
            checked: true,
            detail: if ok {
                format!("{name} is a directory: {}", value.trim())
            } else {
                format!("{name} names no directory: {}", value.trim())
            },
            fix: (!ok).then(|| format!("correct {name}: the directory does not exist")),
        });
    }
    for name in ["LIB", "LIBPATH", "INCLUDE"] {
        let id = format!("dir-{}", name.to_ascii_lowercase());
        let Some(value) = get(name) else {
            checks.push(skipped(&id, name));
            continue;
        };
        let entries = split_path_list(&value);
        let missing: Vec<String> = entries
            .iter()
            .filter(|p| !p.is_dir())
            .map(|p| p.display().to_string())
            .collect();
        let ok = missing.is_empty() && !entries.is_empty();
        checks.push(Check {
            id,
            ok,
            checked: true,
            detail: if entries.is_empty() {
                format!("{name} lists no directory")
            } else if missing.is_empty() {
                format!("all {} {name} directories exist", entries.len())
            } else {
                format!(
                    "{} of {} {name} directories do not exist: {}",
                    missing.len(),
                    entries.len(),
                    missing.join("; ")
                )
            },
            fix: (!ok).then(|| {
                format!("rerun vcvars64.bat for the installed Visual Studio and Windows SDK versions; {name} names directories that are gone")
            }),
        });
    }
}

/// Step 3: the libraries the link needs, where the link will look: the HIP import library, and both
/// CRT flavours in `LIB` (and the `--lib-dir`s).
fn library_checks(get: &Get<'_>, options: &DoctorOptions, checks: &mut Vec<Check>) {
    let mut lib_dirs: Vec<PathBuf> = get("LIB").map(|v| split_path_list(&v)).unwrap_or_default();
    lib_dirs.extend(options.lib_dirs.iter().cloned());
    match get("HIP_PATH").and_then(|v| clean_path(&v)) {
        Some(hip) => {
            let dir = join(&hip, "lib");
            let found = find_in(std::slice::from_ref(&dir), HIP_IMPORT_LIBRARY);
            checks.push(Check {
                id: "hip-import-library".into(),
                ok: found.is_some(),
                checked: true,
                detail: match &found {
                    Some(p) => format!("found {}", p.display()),
                    None => format!("{HIP_IMPORT_LIBRARY} is not in {}", dir.display()),
                },
                fix: found.is_none().then(|| {
                    "install the HIP SDK's development files, or point HIP_PATH at the ROCm root that has lib\\amdhip64.lib".to_string()
                }),
            });
        }
        None => checks.push(skipped("hip-import-library", "HIP_PATH")),
    }
    for (id, flavour, pick) in [
        ("crt-static", "static (/MT)", 1usize),
        ("crt-dynamic", "dynamic (/MD)", 2usize),
    ] {
        if lib_dirs.is_empty() {
            checks.push(skipped(id, "LIB"));
            continue;
        }
        let mut found = BTreeMap::new();
        let mut missing = Vec::new();
        for row in CRT_LIBRARIES {
            let name = if pick == 1 { row.1 } else { row.2 };
            match find_in(&lib_dirs, name) {
                Some(p) => {
                    found.insert(name, p);
                }
                None => missing.push(format!("{name} ({})", row.0)),
            }
        }
        let ok = missing.is_empty();
        checks.push(Check {
            id: id.into(),
            ok,
            checked: true,
            detail: if ok {
                format!(
                    "the {flavour} CRT libraries are in LIB: {}",
                    found
                        .iter()
                        .map(|(n, p)| format!("{n} in {}", p.parent().map_or_else(String::new, |d| d.display().to_string())))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            } else {
                format!("not in any LIB directory ({flavour}): {}", missing.join(", "))
            },
            fix: (!ok).then(|| {
                "run vcvars64.bat from a Visual Studio with the 'MSVC x64 build tools' and 'Windows SDK' components; LIB must list VC\\Tools\\MSVC\\<ver>\\lib\\x64 and Windows Kits\\10\\Lib\\<ver>\\ucrt\\x64 and um\\x64".to_string()
            }),
        });
    }
}

/// Step 4: the arch names of a tvm-ffi/triton recipe: valid gfx targets, and the two variables agree.
fn arch_checks(get: &Get<'_>, checks: &mut Vec<Check>) {
    let arch_list = get("TVM_FFI_ROCM_ARCH_LIST");
    let override_arch = get("TRITON_OVERRIDE_ARCH");
    match &arch_list {
        Some(list) => {
            let entries = split_list(list);
            let invalid: Vec<&String> = entries.iter().filter(|e| !is_valid_target(e)).collect();
            let ok = !entries.is_empty() && invalid.is_empty();
            checks.push(Check {
            id: "arch-list-valid".into(),
            ok,
            checked: true,
            detail: if ok {
                format!("TVM_FFI_ROCM_ARCH_LIST names valid gfx targets: {}", entries.join(", "))
            } else {
                format!(
                    "TVM_FFI_ROCM_ARCH_LIST has entries that are not gfx targets: {}",
                    invalid.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
                )
            },
            fix: (!ok).then(|| {
                "use AMDGPU target names such as gfx1201, gfx1100, gfx90a:xnack- (see hipinfo's gcnArchName), separated by ;".to_string()
            }),
        });
        }
        None => checks.push(skipped("arch-list-valid", "TVM_FFI_ROCM_ARCH_LIST")),
    }
    match (&arch_list, &override_arch) {
        (Some(list), Some(over)) => {
            let over_clean = over.trim().trim_matches('"');
            let processor = |s: &str| s.split(':').next().unwrap_or(s).to_ascii_lowercase();
            let entries = split_list(list);
            let valid = is_valid_target(over_clean);
            let agrees = entries
                .iter()
                .any(|e| processor(e) == processor(over_clean));
            let ok = valid && agrees;
            checks.push(Check {
            id: "arch-agree".into(),
            ok,
            checked: true,
            detail: if ok {
                format!("TRITON_OVERRIDE_ARCH={over_clean} is in TVM_FFI_ROCM_ARCH_LIST")
            } else if !valid {
                format!("TRITON_OVERRIDE_ARCH={over_clean} is not a gfx target")
            } else {
                format!(
                    "TRITON_OVERRIDE_ARCH={over_clean} is not in TVM_FFI_ROCM_ARCH_LIST ({}): triton and the tvm-ffi JIT would build for different GPUs",
                    entries.join(";")
                )
            },
            fix: (!ok).then(|| {
                "set TRITON_OVERRIDE_ARCH and TVM_FFI_ROCM_ARCH_LIST to the GPU's gfx target".to_string()
            }),
        });
        }
        _ => checks.push(skipped(
            "arch-agree",
            if arch_list.is_none() {
                "TVM_FFI_ROCM_ARCH_LIST"
            } else {
                "TRITON_OVERRIDE_ARCH"
            },
        )),
    }
}

/// Step 5: the compiler driver, and what it means for the flags the build passes (the advice names
/// tvm-ffi's extension.py only in a tvm-ffi environment).
fn driver_check(get: &Get<'_>, tvm_ffi: bool) -> Check {
    let Some(cc) = get("CC") else {
        return skipped("cc-driver", "CC");
    };
    let (driver, stem) = driver_of(&cc);
    let (ok, detail, fix) = match driver {
        Driver::ClangCl => (
            true,
            format!("CC is {stem}: MSVC-style driver. extension.py's Windows branch must pass MSVC-style flags (/O2, /std:c++17, /EHsc, /MD, /I, /D); GNU-only flags go through /clang:-flag or -Xclang; -fPIC must not be passed"),
            None,
        ),
        Driver::Clang => (
            true,
            format!("CC is {stem}: GNU-style driver. extension.py's Windows branch must pass GNU-style flags (-O2, -std=c++17, -I, -D); MSVC-style flags such as /O2 are read as file paths ('no such file or directory: '/O2''); the target stays x86_64-pc-windows-msvc, so -fPIC must not be passed and no fake -D_MSC_VER / windows-gnu target"),
            None,
        ),
        Driver::Other => (
            false,
            format!("CC is {stem}: neither clang-cl nor clang, so the flag style extension.py must pass is unknown"),
            Some("set CC to HIP_PATH\\bin\\clang-cl.exe (MSVC-style flags) or HIP_PATH\\bin\\clang.exe (GNU-style flags)".to_string()),
        ),
    };
    let detail = if tvm_ffi {
        detail
    } else {
        detail
            .replace(
                "extension.py's Windows branch",
                "the build's compile commands",
            )
            .replace("extension.py", "the build")
    };
    Check {
        id: "cc-driver".into(),
        ok,
        checked: true,
        detail,
        fix,
    }
}

/// The `log-leftovers` check: before a relaunch every process that holds a file in the log's
/// directory, and every suspect by name, is a leftover (it started before the attempt to come).
/// It fails exactly when `lnkfix zombies DIR --since NOW` would exit 1.
fn leftover_check(log: &Path) -> (Check, Option<crate::commands::zombies::LaunchCheck>) {
    let directory = crate::commands::zombies::log_directory(log);
    let id = "log-leftovers".to_string();
    if !directory.is_dir() {
        let check = Check {
            id,
            ok: false,
            checked: false,
            detail: format!(
                "not checked: the log's directory {} does not exist",
                directory.display()
            ),
            fix: None,
        };
        return (check, None);
    }
    let found = crate::commands::zombies::launch_check(log, std::time::SystemTime::now(), true);
    let check = match (&found.processes, &found.error) {
        (Some(processes), _) if processes.is_empty() => Check {
            id,
            ok: true,
            checked: true,
            detail: format!(
                "no process holds a file in {}, and no suspect (python, ft, ninja, clang, link, ...) is running",
                found.directory
            ),
            fix: None,
        },
        (Some(processes), _) => Check {
            id,
            ok: false,
            checked: true,
            detail: format!(
                "{} left over from an earlier attempt: {}",
                if processes.len() == 1 { "one process is" } else { "processes are" },
                processes
                    .iter()
                    .map(|p| {
                        let what = if p.holds.is_empty() {
                            format!("suspect name {}", p.matched_name.as_deref().unwrap_or("?"))
                        } else {
                            format!("holds {}", p.holds.join(", "))
                        };
                        format!("{} {} ({what})", p.pid, p.name)
                    })
                    .collect::<Vec<_>>()
                    .join("; ")
            ),
            fix: Some(format!(
                "end them and delete their logs before relaunching: {}",
                found.command
            )),
        },
        (None, error) => Check {
            id,
            ok: false,
            checked: false,
            detail: format!(
                "not checked: {}",
                error.as_deref().unwrap_or("the processes cannot be listed")
            ),
            fix: None,
        },
    };
    (check, Some(found))
}

fn skipped(id: &str, variable: &str) -> Check {
    Check {
        id: id.to_string(),
        ok: false,
        checked: false,
        detail: format!("not checked: {variable} is not set"),
        fix: Some(format!("set {variable} first")),
    }
}

fn not_a_tvm_ffi_environment(id: &str, variable: &str) -> Check {
    Check {
        id: id.to_string(),
        ok: false,
        checked: false,
        detail: format!(
            "not checked: {variable} is tvm-ffi's recipe, and this is not a tvm-ffi environment (no TVM_FFI_*/TRITON_* variable, no tvm_ffi in the active Python environment; --tvm-ffi checks it anyway)"
        ),
        fix: None,
    }
}

/// Writes the text report: one line per check, its fix under each failed one.
pub fn render_text(
    report: &DoctorReport,
    out: &mut (impl Write + ?Sized),
    color: bool,
) -> io::Result<()> {
    let style = Style { color };
    for check in &report.checks {
        let mark = if !check.checked {
            style.dim("skip")
        } else if check.ok {
            style.library("ok  ")
        } else {
            style.warn("FAIL")
        };
        writeln!(out, "{mark} {:<26} {}", check.id, check.detail)?;
        if let Some(fix) = &check.fix {
            writeln!(out, "     {:<26} {} {fix}", "", style.bold("fix:"))?;
        }
        if let (Some(zombies), "log-leftovers") = (&report.zombies, check.id.as_str()) {
            for warning in &zombies.warnings {
                writeln!(out, "     {:<26} {} {warning}", "", style.warn("warning:"))?;
            }
        }
    }
    write_search(report, out, style)?;
    let summary = format!(
        "{} passed, {} failed, {} not checked",
        report.passed, report.failed, report.not_checked
    );
    if report.failed == 0 {
        writeln!(
            out,
            "{} {}",
            style.bold("lnkfix doctor:"),
            style.library(&summary)
        )
    } else {
        writeln!(
            out,
            "{} {}",
            style.bold("lnkfix doctor:"),
            style.warn(&summary)
        )
    }
}

/// The library directories searched with no option, and the Python interpreter, for people.
fn write_search(
    report: &DoctorReport,
    out: &mut (impl Write + ?Sized),
    style: Style,
) -> io::Result<()> {
    let python = match &report.python {
        None => "none: no --python, VIRTUAL_ENV, CONDA_PREFIX or python on PATH (or --no-python, LNKFIX_NO_PYTHON)".to_string(),
        Some(found) => match (&found.interpreter, &found.error) {
            (Some(interpreter), _) => format!(
                "{} ({}: {})",
                interpreter.describe(),
                found.found_by,
                interpreter.executable.display()
            ),
            (None, error) => format!(
                "{}: not asked: {}",
                found.found_by,
                error.as_deref().unwrap_or("unknown")
            ),
        },
    };
    writeln!(out, "{} {:<24} {python}", style.dim("info"), "python")?;
    writeln!(
        out,
        "{} {:<24} {}: {}",
        style.dim("info"),
        "machine",
        report.machine.machine,
        report.machine.why
    )?;
    writeln!(
        out,
        "{} {:<24} {} searched by diagnose with no library option{}",
        style.dim("info"),
        "library-dirs",
        report.searched_dirs.len(),
        if report.searched_dirs.is_empty() {
            ""
        } else {
            ":"
        }
    )?;
    for dir in &report.searched_dirs {
        writeln!(
            out,
            "     {:<26} {}  ({})",
            "",
            dir.path.display(),
            dir.origin
        )?;
    }
    for warning in &report.search_warnings {
        writeln!(out, "     {:<26} {} {warning}", "", style.warn("warning:"))?;
    }
    Ok(())
}

/// Writes the JSON report (one document, pretty-printed, newline-terminated).
pub fn write_json(report: &DoctorReport, out: &mut dyn Write) -> io::Result<()> {
    crate::output::terminal::write_json(report, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_cleaned() {
        assert_eq!(
            clean_path("\"C:\\ROCm\\6.4\\\" "),
            Some(PathBuf::from("C:\\ROCm\\6.4"))
        );
        assert_eq!(clean_path("C:\\"), Some(PathBuf::from("C:\\")));
        assert_eq!(clean_path("/"), Some(PathBuf::from("/")));
        assert_eq!(clean_path("  "), None);
        assert_eq!(
            split_path_list("C:\\a;;\"C:\\b c\\\";C:\\d;"),
            vec![
                PathBuf::from("C:\\a"),
                PathBuf::from("C:\\b c"),
                PathBuf::from("C:\\d")
            ]
        );
    }

    #[test]
    fn not_checked_is_not_failed_and_tvm_ffi_advice_needs_tvm_ffi() {
        let plain = |name: &str| (name == "CC").then(|| "clang-cl".to_string());
        let report = doctor(&plain, &DoctorOptions::default());
        assert!(!report.tvm_ffi);
        let state = |id: &str| {
            let c = report.checks.iter().find(|c| c.id == id).unwrap();
            (c.checked, c.ok)
        };
        assert_eq!(state("env-tvm-ffi-rocm-arch-list"), (false, false));
        assert_eq!(state("arch-agree"), (false, false));
        assert_eq!(state("env-cc"), (true, true));
        let cc = report.checks.iter().find(|c| c.id == "cc-driver").unwrap();
        assert!(!cc.detail.contains("extension.py"), "{}", cc.detail);
        assert_eq!(
            report.passed + report.failed + report.not_checked,
            report.checks.len()
        );
        assert!(report.not_checked > 0);
        // Asked for, the recipe is checked, and its absence fails.
        let forced = doctor(
            &plain,
            &DoctorOptions {
                tvm_ffi: Some(true),
                ..DoctorOptions::default()
            },
        );
        let arch = forced
            .checks
            .iter()
            .find(|c| c.id == "env-tvm-ffi-rocm-arch-list")
            .unwrap();
        assert!(arch.checked && !arch.ok);
        let cc = forced.checks.iter().find(|c| c.id == "cc-driver").unwrap();
        assert!(cc.detail.contains("extension.py"), "{}", cc.detail);
    }

    #[test]
    fn drivers() {
        assert_eq!(driver_of("clang-cl").0, Driver::ClangCl);
        assert_eq!(
            driver_of("\"C:\\Program Files\\AMD\\ROCm\\6.4\\bin\\clang-cl.exe\" --target=x").0,
            Driver::ClangCl
        );
        assert_eq!(driver_of("C:\\ROCm\\bin\\CLANG.EXE").0, Driver::Clang);
        assert_eq!(driver_of("clang-19").0, Driver::Clang);
        assert_eq!(driver_of("cl.exe").0, Driver::Other);
        assert_eq!(driver_of("hipcc").0, Driver::Other);
    }
}
