//! Which build system produced a log, from the lines it leaves (tvm-ffi's JIT, CMake, MSBuild,
//! cargo, setuptools and torch's `cpp_extension`, node-gyp, meson), and the fix written in its
//! terms: `extension.py` for tvm-ffi, `target_link_libraries` for CMake, `AdditionalDependencies`
//! for MSBuild, `cargo:rustc-link-lib` for cargo, `libraries=[...]` for setuptools, `"libraries"`
//! in `binding.gyp`, `link_args` for meson.

use serde::Serialize;

use crate::rules::Flavour;
use std::sync::LazyLock;

/// A build system lnkfix can phrase a fix for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum BuildSystem {
    /// apache tvm-ffi's JIT (`tvm_ffi/cpp/extension.py` writes a `build.ninja`).
    TvmFfi,
    /// cargo / rustc.
    Cargo,
    /// node-gyp and gyp (`binding.gyp`, a `.gyp` target).
    NodeGyp,
    /// torch's `torch.utils.cpp_extension`: `CppExtension`/`CUDAExtension` with `BuildExtension`
    /// in a `setup.py`, or the JIT `load()`/`load_inline()`.
    TorchExtension,
    /// setuptools / distutils (`Extension`, Cython, SWIG, pybind11's `Pybind11Extension`).
    Setuptools,
    /// meson.
    Meson,
    /// CMake (with ninja, make or MSBuild underneath).
    Cmake,
    /// MSBuild / Visual Studio projects (`.vcxproj`).
    Msbuild,
}

impl BuildSystem {
    /// The name for people.
    pub fn name(self) -> &'static str {
        match self {
            BuildSystem::TvmFfi => "tvm-ffi's JIT (extension.py + ninja)",
            BuildSystem::Cargo => "cargo",
            BuildSystem::NodeGyp => "node-gyp / gyp",
            BuildSystem::TorchExtension => "torch.utils.cpp_extension (CppExtension / load())",
            BuildSystem::Setuptools => "setuptools",
            BuildSystem::Meson => "meson",
            BuildSystem::Cmake => "CMake",
            BuildSystem::Msbuild => "MSBuild",
        }
    }

    /// Markers in log lines, case-insensitive; the earlier systems win when several are seen
    /// (a CMake build drives MSBuild; a setuptools build may run ninja).
    const MARKERS: [(BuildSystem, &'static [&'static str]); 8] = [
        (
            BuildSystem::TvmFfi,
            &["tvm_ffi", "tvm-ffi", "tvm_ffi_rocm_arch_list"],
        ),
        (
            BuildSystem::Cargo,
            &[
                "error: linking with `",
                "= note: ",
                "cargo:rustc",
                ".rlib(",
                "compiling ",
            ],
        ),
        (
            BuildSystem::NodeGyp,
            &[
                "gyp info",
                "gyp err!",
                "node-gyp",
                "binding.gyp",
                "gyp-win-tool",
            ],
        ),
        (
            BuildSystem::TorchExtension,
            &["cpp_extension", "torch_extensions", "buildextension"],
        ),
        (
            BuildSystem::Setuptools,
            &[
                "setup.py",
                "setuptools",
                "distutils",
                "building '",
                "running build_ext",
                "cythonizing ",
            ],
        ),
        (
            BuildSystem::Meson,
            &["meson-logs", "the meson build system", "meson.build"],
        ),
        (
            BuildSystem::Cmake,
            &[
                "cmakefiles",
                "cmake error",
                "-- build files have been written",
                "cmakelists.txt",
                "cmake --build",
            ],
        ),
        (
            BuildSystem::Msbuild,
            &[".vcxproj", "msbuild version", "microsoft (r) build engine"],
        ),
    ];
}

/// The build system recognised in a log, and the line that shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Recognised {
    /// Which.
    pub kind: BuildSystem,
    /// 1-based line of the first marker of that system.
    pub line: u64,
    /// The marker's line (shortened).
    pub evidence: String,
}

/// Whether a line is one of cargo's `Compiling name vX.Y.Z` lines (the bare word "compiling"
/// appears in other tools' output too).
fn cargo_compiling(lower: &str) -> bool {
    let trimmed = lower.trim_start();
    trimmed
        .strip_prefix("compiling ")
        .and_then(|rest| rest.split_whitespace().nth(1))
        .is_some_and(|version| {
            version.starts_with('v') && version[1..].starts_with(|c: char| c.is_ascii_digit())
        })
}

/// Every marker, in the order of the automaton that finds the next line with one (`any` in
/// [`Markers`]). The order is part of the speed, as for the log reader's line filter: the SIMD
/// scan puts pattern `i` in bucket `7 - i % 8`, and this order, found by measuring the scan on
/// record-dense and compiler-noise logs and on real posted ones (benches/README.md, "Log reading"),
/// scans the first two 1.5 to 1.7 times faster than the table's order, and the posted ones as
/// fast. Which marker a line holds is
/// decided by the other automaton, so the order changes no answer (a test checks that it holds
/// every marker once).
const SCAN_ORDER: &[&str] = &[
    ".vcxproj",
    "msbuild version",
    "microsoft (r) build engine",
    "cmakelists.txt",
    "binding.gyp",
    "tvm_ffi",
    "compiling ",
    "setup.py",
    "distutils",
    "cmakefiles",
    "-- build files have been written",
    "tvm_ffi_rocm_arch_list",
    "node-gyp",
    "the meson build system",
    "gyp info",
    "cpp_extension",
    "torch_extensions",
    "buildextension",
    "tvm-ffi",
    "cmake error",
    ".rlib(",
    "meson.build",
    "gyp err!",
    "= note: ",
    "meson-logs",
    "cargo:rustc",
    "cmake --build",
    "error: linking with `",
    "gyp-win-tool",
    "setuptools",
    "building '",
    "running build_ext",
    "cythonizing ",
];

/// Every marker in one automaton, with the kind each belongs to: pattern `i` is the marker
/// `owners[i]` (the kind's index in [`BuildSystem::MARKERS`], the marker). `any` says whether a
/// line holds a marker at all: leftmost-first, so it has the SIMD prefilter that the
/// overlapping search of `automaton` (standard semantics) cannot have. Each is built on its first
/// use: most logs have no line with a marker, and never need the (costlier) overlapping DFA.
struct Markers {
    any: LazyLock<aho_corasick::AhoCorasick>,
    automaton: LazyLock<aho_corasick::AhoCorasick>,
    owners: LazyLock<Vec<(usize, &'static str)>>,
}

fn markers() -> &'static Markers {
    static MARKERS: Markers = Markers {
        any: LazyLock::new(|| {
            aho_corasick::AhoCorasick::builder()
                .match_kind(aho_corasick::MatchKind::LeftmostFirst)
                .build(SCAN_ORDER)
                .expect("markers are plain strings")
        }),
        automaton: LazyLock::new(|| {
            aho_corasick::AhoCorasick::builder()
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(MARKERS.owners.iter().map(|(_, m)| m))
                .expect("markers are plain strings")
        }),
        owners: LazyLock::new(|| {
            BuildSystem::MARKERS
                .iter()
                .enumerate()
                .flat_map(|(at, (_, markers))| markers.iter().map(move |m| (at, *m)))
                .collect()
        }),
    };
    &MARKERS
}

/// Recognises a log's build system from the lines it is shown, in order: the first line of
/// each kind's markers is kept, and the first kind in the marker table's order wins (a CMake
/// build drives MSBuild; a setuptools build may run ninja). MSBuild is also recognised by its
/// `N>` line prefixes (two lines).
///
/// The log reader shows it every line of the log's head and every line it reads for records
/// (`linklog::read_log_watched`), so a log of any size is read once. Lines are gathered into a
/// batch and the batch searched at once: one marker search per line would cost more than the
/// rest of reading a record-dense log.
#[derive(Debug, Clone, Default)]
pub struct Recogniser {
    found: [Option<Recognised>; BuildSystem::MARKERS.len()],
    /// The second line with an MSBuild `N>` prefix, once seen.
    msbuild_prefixed: Option<Recognised>,
    msbuild_prefixes: u32,
    /// Lines not yet searched, one after another, with each one's start and number.
    batch: Vec<u8>,
    starts: Vec<(usize, u64)>,
    /// The batch, ASCII-lowercased, while it is searched.
    lower: Vec<u8>,
}

/// How many bytes of lines are gathered before they are searched.
const BATCH_BYTES: usize = 64 * 1024;

impl Recogniser {
    /// A recogniser that has seen no line.
    pub fn new() -> Recogniser {
        Recogniser::default()
    }

    /// Whether the answer is settled: the first kind of the table was seen, and no later line
    /// can change the answer.
    pub fn settled(&self) -> bool {
        self.found[0].is_some()
    }

    /// Looks at one line of the log (1-based `number`).
    pub fn line(&mut self, number: u64, line: &str) {
        if self.settled() {
            return;
        }
        let bytes = line.as_bytes();
        let prefix_digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        if prefix_digits > 0 && bytes.get(prefix_digits) == Some(&b'>') {
            self.msbuild_prefixes += 1;
            if self.msbuild_prefixes == 2 {
                self.msbuild_prefixed = Some(Recognised::at(BuildSystem::Msbuild, number, line));
            }
        }
        // Each line ends with a newline, which no marker holds: no match spans two lines.
        self.starts.push((self.batch.len(), number));
        self.batch.extend_from_slice(bytes);
        self.batch.push(b'\n');
        if self.batch.len() >= BATCH_BYTES {
            self.search_batch();
        }
    }

    /// Searches the gathered lines for markers, in order, and empties the batch.
    fn search_batch(&mut self) {
        if self.starts.is_empty() {
            return;
        }
        // The markers are lowercase: a case-sensitive search of the lowercased text keeps the
        // automaton's SIMD prefilter, which ASCII case folding would turn off. One copy of the
        // whole batch costs less than one per line.
        self.lower.clear();
        self.lower.extend_from_slice(&self.batch);
        self.lower.make_ascii_lowercase();
        let markers = markers();
        let mut from = 0;
        // The leftmost search (with its SIMD prefilter) finds the next line with a marker; the
        // overlapping one, which has none, reads only that line.
        while let Some(hit) = markers.any.find(&self.lower[from..]) {
            let at = from + hit.start();
            let index = self.starts.partition_point(|&(start, _)| start <= at) - 1;
            let start = self.starts[index].0;
            let end = self
                .starts
                .get(index + 1)
                .map_or(self.batch.len(), |next| next.0);
            self.markers_of_line(start..end - 1, self.starts[index].1);
            if self.settled() {
                break;
            }
            from = end;
        }
        self.batch.clear();
        self.starts.clear();
    }

    /// Records the kinds whose markers the line at `range` of the batch shows.
    fn markers_of_line(&mut self, range: std::ops::Range<usize>, number: u64) {
        let markers = markers();
        let lower = &self.lower[range.clone()];
        for hit in markers.automaton.find_overlapping_iter(lower) {
            let (at, marker) = markers.owners[hit.pattern().as_usize()];
            if self.found[at].is_some() {
                continue;
            }
            if marker == "compiling " && !cargo_compiling(&String::from_utf8_lossy(lower)) {
                continue;
            }
            let line = String::from_utf8_lossy(&self.batch[range.clone()]);
            self.found[at] = Some(Recognised::at(BuildSystem::MARKERS[at].0, number, &line));
        }
    }

    /// The build system recognised, if any.
    pub fn finish(mut self) -> Option<Recognised> {
        self.search_batch();
        let msbuild = BuildSystem::MARKERS.len() - 1;
        if let Some(prefixed) = self.msbuild_prefixed.take() {
            // The first line that shows MSBuild, by a marker or by the second prefix.
            if self.found[msbuild]
                .as_ref()
                .is_none_or(|marked| marked.line > prefixed.line)
            {
                self.found[msbuild] = Some(prefixed);
            }
        }
        self.found.into_iter().flatten().next()
    }
}

impl Recognised {
    /// A kind recognised on line `number`, whose text is the evidence (shortened).
    fn at(kind: BuildSystem, number: u64, line: &str) -> Recognised {
        Recognised {
            kind,
            line: number,
            evidence: line.trim().chars().take(160).collect(),
        }
    }
}

/// Recognises the build system of a whole log held in memory (any encoding the log reader
/// knows), from every line: for tests and callers with no log reading of their own to share.
pub fn recognise(log: &[u8]) -> Option<Recognised> {
    let mut lines =
        crate::read::linklog::LineReader::new(std::io::Cursor::new(log.to_vec()), 1 << 20).ok()?;
    let mut recogniser = Recogniser::new();
    let mut line = String::new();
    while !recogniser.settled() && lines.next_line(&mut line).unwrap_or(false) {
        recogniser.line(lines.line_number, &line);
    }
    recogniser.finish()
}

/// The runtime-library setting of CMake and MSBuild for a flavour (`MultiThreadedDLL` for /MD).
fn runtime_library(flavour: Flavour) -> &'static str {
    match flavour {
        Flavour::Static => "MultiThreaded",
        Flavour::StaticDebug => "MultiThreadedDebug",
        Flavour::Dynamic => "MultiThreadedDLL",
        Flavour::DynamicDebug => "MultiThreadedDebugDLL",
    }
}

/// The change that makes a whole build use one CRT flavour, in the build system's own terms
/// (docs/RULES.md §20): CMake's `CMAKE_MSVC_RUNTIME_LIBRARY`, MSBuild's `RuntimeLibrary`,
/// cargo's `crt-static` target feature, meson's `b_vscrt`, node-gyp's `RuntimeLibrary` number,
/// setuptools' `extra_compile_args`, and for no known build system the compiler options
/// (`/MD` for cl and clang-cl, `-fms-runtime-lib=` for clang's GNU-style driver and hipcc).
pub fn runtime_setting(kind: Option<BuildSystem>, flavour: Flavour) -> String {
    let option = flavour.compiler_option();
    let clang = match flavour {
        Flavour::Static => "static",
        Flavour::StaticDebug => "static_dbg",
        Flavour::Dynamic => "dll",
        Flavour::DynamicDebug => "dll_dbg",
    };
    match kind {
        Some(BuildSystem::Cmake) => format!(
            "set(CMAKE_MSVC_RUNTIME_LIBRARY \"{}\") before the first target (CMake 3.15+; MultiThreaded$<$<CONFIG:Debug>:Debug>{} covers both configurations)",
            runtime_library(flavour),
            if flavour.is_dynamic() { "DLL" } else { "" }
        ),
        Some(BuildSystem::Msbuild) => format!(
            "<RuntimeLibrary>{}</RuntimeLibrary> in every project's <ClCompile> (C/C++ > Code Generation > Runtime Library: {option})",
            runtime_library(flavour)
        ),
        Some(BuildSystem::Cargo) if flavour.is_dynamic() => "-C target-feature=-crt-static (the default of the *-windows-msvc targets; RUSTFLAGS or .cargo/config.toml), and C code built by cc-rs follows it".into(),
        Some(BuildSystem::Cargo) => "-C target-feature=+crt-static (RUSTFLAGS or .cargo/config.toml), and C code built by cc-rs follows it".into(),
        Some(BuildSystem::Meson) => format!(
            "-Db_vscrt={} (meson setup or configure)",
            option.trim_start_matches('/').to_ascii_lowercase()
        ),
        Some(BuildSystem::NodeGyp) => format!(
            "\"msvs_settings\": {{\"VCCLCompilerTool\": {{\"RuntimeLibrary\": {}}}}} in the target ({option}; 0 /MT, 1 /MTd, 2 /MD, 3 /MDd)",
            match flavour {
                Flavour::Static => 0,
                Flavour::StaticDebug => 1,
                Flavour::Dynamic => 2,
                Flavour::DynamicDebug => 3,
            }
        ),
        Some(BuildSystem::Setuptools) => format!(
            "extra_compile_args=[\"{option}\"] in the Extension (setuptools compiles with /MD unless told otherwise)"
        ),
        Some(BuildSystem::TorchExtension) => format!(
            "extra_compile_args=[\"{option}\"] in the CppExtension/CUDAExtension (extra_cflags=[\"{option}\"] with load()); torch's libraries are /MD"
        ),
        Some(BuildSystem::TvmFfi) => format!(
            "the compile flags in tvm_ffi/cpp/extension.py: {option} for cl and clang-cl, -fms-runtime-lib={clang} for clang and hipcc"
        ),
        None => format!(
            "{option} on every compile (cl, clang-cl), -fms-runtime-lib={clang} with clang's GNU-style driver or hipcc"
        ),
    }
}

/// A library name without its `.lib` (`amdhip64.lib` → `amdhip64`), as most build systems want.
fn stem(library: &str) -> &str {
    library
        .strip_suffix(".lib")
        .or_else(|| library.strip_suffix(".Lib"))
        .or_else(|| library.strip_suffix(".LIB"))
        .unwrap_or(library)
}

/// The link flags split by what they are.
struct SplitFlags<'a> {
    /// `/LIBPATH:` directories.
    dirs: Vec<&'a str>,
    /// Library files.
    libraries: Vec<&'a str>,
    /// Other options.
    others: Vec<&'a str>,
}

/// Items quoted as string literals and joined by commas (`"a", "b"`).
fn quoted(items: &[&str]) -> String {
    items
        .iter()
        .map(|i| format!("{:?}", i))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The fix in the build system's own terms: `libraries` and `/LIBPATH:` directories to add,
/// and the CRT flavour when one is known (for the runtime-library setting). One line per change.
pub fn fix_lines(
    kind: BuildSystem,
    link_flags: &[String],
    flavour: Option<Flavour>,
    log: &str,
) -> Vec<String> {
    let flags = SplitFlags {
        dirs: link_flags
            .iter()
            .filter_map(|f| f.strip_prefix("/LIBPATH:"))
            .collect(),
        libraries: link_flags
            .iter()
            .filter(|f| !f.starts_with('/'))
            .map(String::as_str)
            .collect(),
        others: link_flags
            .iter()
            .filter(|f| f.starts_with('/') && !f.starts_with("/LIBPATH:"))
            .map(String::as_str)
            .collect(),
    };
    match kind {
        BuildSystem::TvmFfi => vec![format!(
            "add them to the Windows link flags in tvm_ffi/cpp/extension.py, the one list every JIT module links with: lnkfix patch <site-packages>/tvm_ffi/cpp/extension.py --from {log} (--apply to write it)"
        )],
        BuildSystem::Cmake => cmake_lines(&flags, flavour),
        BuildSystem::Msbuild => msbuild_lines(&flags, flavour),
        BuildSystem::Cargo => cargo_lines(&flags, flavour),
        BuildSystem::Setuptools => setuptools_lines(&flags, flavour),
        BuildSystem::TorchExtension => torch_extension_lines(&flags),
        BuildSystem::NodeGyp => node_gyp_lines(&flags, flavour),
        BuildSystem::Meson => meson_lines(&flags, flavour),
    }
}

/// CMake: `target_link_libraries`, `target_link_directories`, `CMAKE_MSVC_RUNTIME_LIBRARY`.
fn cmake_lines(flags: &SplitFlags<'_>, flavour: Option<Flavour>) -> Vec<String> {
    let SplitFlags {
        dirs, libraries, ..
    } = flags;
    let mut out = Vec::new();
    if !libraries.is_empty() {
        let names: Vec<&str> = libraries.iter().map(|l| stem(l)).collect();
        out.push(format!(
            "target_link_libraries(<your target> PRIVATE {})",
            names.join(" ")
        ));
    }
    if !dirs.is_empty() {
        out.push(format!(
            "target_link_directories(<your target> PRIVATE {})",
            dirs.iter()
                .map(|d| format!("\"{}\"", d.replace('\\', "/")))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    if let Some(f) = flavour {
        let value = runtime_library(f);
        out.push(format!(
            "keep the whole project on one CRT: set(CMAKE_MSVC_RUNTIME_LIBRARY \"{value}\") (or MultiThreaded$<$<CONFIG:Debug>:Debug>{} for both configurations)",
            if f.is_dynamic() { "DLL" } else { "" }
        ));
    }
    out
}

/// MSBuild: the `.vcxproj`'s `<Link>` and `<ClCompile>` settings.
fn msbuild_lines(flags: &SplitFlags<'_>, flavour: Option<Flavour>) -> Vec<String> {
    let SplitFlags {
        dirs, libraries, ..
    } = flags;
    let mut out = Vec::new();
    if !libraries.is_empty() {
        out.push(format!(
            "in the .vcxproj's <Link>: <AdditionalDependencies>{};%(AdditionalDependencies)</AdditionalDependencies> (Project Properties > Linker > Input)",
            libraries.join(";")
        ));
    }
    if !dirs.is_empty() {
        out.push(format!(
            "<AdditionalLibraryDirectories>{};%(AdditionalLibraryDirectories)</AdditionalLibraryDirectories> (Linker > General)",
            dirs.join(";")
        ));
    }
    if let Some(f) = flavour {
        let value = runtime_library(f);
        out.push(format!(
            "in <ClCompile>: <RuntimeLibrary>{value}</RuntimeLibrary> for every project (C/C++ > Code Generation > Runtime Library)"
        ));
    }
    out
}

/// Cargo: `build.rs` directives, or `RUSTFLAGS`; the static CRT's target feature.
fn cargo_lines(flags: &SplitFlags<'_>, flavour: Option<Flavour>) -> Vec<String> {
    let SplitFlags {
        dirs, libraries, ..
    } = flags;
    let mut out = Vec::new();
    for library in libraries {
        out.push(format!(
            "println!(\"cargo:rustc-link-lib={}\"); in build.rs",
            stem(library)
        ));
    }
    for dir in dirs {
        out.push(format!(
            "println!(\"cargo:rustc-link-search=native={dir}\"); in build.rs"
        ));
    }
    if !libraries.is_empty() {
        out.push(format!(
            "or, without a build.rs: RUSTFLAGS=\"{}\"",
            libraries
                .iter()
                .map(|l| format!("-l {}", stem(l)))
                .chain(dirs.iter().map(|d| format!("-L native={d}")))
                .collect::<Vec<_>>()
                .join(" ")
        ));
    }
    if flavour.is_some_and(|f| !f.is_dynamic()) {
        out.push(
            "the static CRT in Rust: -C target-feature=+crt-static (RUSTFLAGS or .cargo/config.toml)"
                .into(),
        );
    }
    out
}

/// setuptools (and torch's extensions): the `Extension`'s arguments.
fn setuptools_lines(flags: &SplitFlags<'_>, _flavour: Option<Flavour>) -> Vec<String> {
    let SplitFlags {
        dirs,
        libraries,
        others,
    } = flags;
    let mut out = Vec::new();
    let names: Vec<&str> = libraries.iter().map(|l| stem(l)).collect();
    if !names.is_empty() {
        out.push(format!(
            "in the Extension (setup.py or pyproject.toml's ext-modules): libraries=[{}]",
            quoted(&names)
        ));
    }
    if !dirs.is_empty() {
        out.push(format!("library_dirs=[{}]", quoted(dirs)));
    } else if names.iter().any(|n| n.starts_with("python")) {
        // Python's own import library lives in <sys.base_prefix>\libs.
        out.push(
            "library_dirs=[os.path.join(sys.base_prefix, \"libs\")] (where the Python's pythonXY.lib is)"
                .into(),
        );
    }
    if !others.is_empty() {
        out.push(format!("extra_link_args=[{}]", quoted(others)));
    }
    out
}

/// torch's `cpp_extension`: the `CppExtension`/`CUDAExtension`'s `libraries=`/`library_dirs=`
/// in a `setup.py`, `extra_ldflags=` with the JIT `load()`; and what `BuildExtension` links by
/// itself, since a torch library missing from such a link is a wrong extension class or a
/// build without `BuildExtension`, not a list to extend.
fn torch_extension_lines(flags: &SplitFlags<'_>) -> Vec<String> {
    let SplitFlags {
        dirs,
        libraries,
        others,
    } = flags;
    let mut out = Vec::new();
    let names: Vec<&str> = libraries.iter().map(|l| stem(l)).collect();
    let is = |n: &str, set: &[&str]| set.iter().any(|s| n.eq_ignore_ascii_case(s));
    let cuda: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| is(n, &["torch_cuda", "c10_cuda", "torch_hip", "c10_hip"]))
        .collect();
    let own: Vec<&str> = names
        .iter()
        .copied()
        .filter(|n| is(n, &["c10", "torch", "torch_cpu", "torch_python"]))
        .collect();
    if !names.is_empty() {
        out.push(format!(
            "in setup.py's CppExtension/CUDAExtension(...): libraries=[{}]{}",
            quoted(&names),
            if dirs.is_empty() {
                String::new()
            } else {
                format!(", library_dirs=[{}]", quoted(dirs))
            }
        ));
        let ld: Vec<String> = dirs
            .iter()
            .map(|d| format!("/LIBPATH:{d}"))
            .chain(libraries.iter().map(|l| l.to_string()))
            .chain(others.iter().map(|o| o.to_string()))
            .collect();
        let ld: Vec<&str> = ld.iter().map(String::as_str).collect();
        out.push(format!(
            "with torch.utils.cpp_extension.load()/load_inline(): extra_ldflags=[{}]",
            quoted(&ld)
        ));
    } else if !others.is_empty() {
        out.push(format!(
            "extra_link_args=[{}] in the CppExtension (extra_ldflags with load())",
            quoted(others)
        ));
    }
    if !cuda.is_empty() {
        out.push(format!(
            "{} come with CUDAExtension (or load() with with_cuda=True, or a .cu source), not CppExtension: build the extension as a CUDAExtension",
            cuda.join(", ")
        ));
    }
    if !own.is_empty() {
        out.push(format!(
            "BuildExtension and load() link {} themselves from torch/lib (torch.utils.cpp_extension.library_paths()): when they are still missing, the extension is not built by BuildExtension (cmdclass={{\"build_ext\": BuildExtension}}), or its headers are another torch's than the libraries",
            own.join(", ")
        ));
    }
    out
}

/// node-gyp: the target's `libraries` and `msvs_settings`.
fn node_gyp_lines(flags: &SplitFlags<'_>, _flavour: Option<Flavour>) -> Vec<String> {
    let SplitFlags {
        dirs, libraries, ..
    } = flags;
    let mut out = Vec::new();
    if !libraries.is_empty() {
        out.push(format!(
            "in the target of binding.gyp (or the .gyp file): \"libraries\": [{}]",
            quoted(libraries)
        ));
        if libraries.iter().any(|l| l.eq_ignore_ascii_case("node.lib")) {
            out.push("node-gyp links node.lib itself, from the headers it downloaded for this Node version and --arch: when it is missing, run node-gyp rebuild with the Node and --arch the addon is for (an ia32 addon needs the ia32 node.lib)".into());
        }
    }
    if !dirs.is_empty() {
        out.push(format!(
            "\"msvs_settings\": {{\"VCLinkerTool\": {{\"AdditionalLibraryDirectories\": [{}]}}}}",
            quoted(dirs)
        ));
    }
    out
}

/// Meson: the target's `link_args`.
fn meson_lines(flags: &SplitFlags<'_>, _flavour: Option<Flavour>) -> Vec<String> {
    let SplitFlags {
        dirs,
        libraries,
        others,
    } = flags;
    let mut out = Vec::new();
    let mut args: Vec<String> = dirs.iter().map(|d| format!("/LIBPATH:{d}")).collect();
    args.extend(libraries.iter().map(|l| l.to_string()));
    args.extend(others.iter().map(|o| o.to_string()));
    if !args.is_empty() {
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        out.push(format!(
            "in meson.build, on the target: link_args: [{}] (or cc.find_library('{}', dirs: [...]) for each library)",
            quoted(&refs).replace('"', "'"),
            libraries.first().map(|l| stem(l)).unwrap_or("name")
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seen(log: &str) -> Option<BuildSystem> {
        recognise(log.as_bytes()).map(|r| r.kind)
    }

    #[test]
    fn each_system_by_its_lines() {
        let rows = [
            (
                "  File \"site-packages/tvm_ffi/cpp/extension.py\", line 1",
                Some(BuildSystem::TvmFfi),
            ),
            (
                "error: linking with `link.exe` failed: exit code: 1120\n  = note: x",
                Some(BuildSystem::Cargo),
            ),
            ("   Compiling cubecl-hip v0.6.0\n", Some(BuildSystem::Cargo)),
            (
                "gyp info it worked if it ends with ok\n",
                Some(BuildSystem::NodeGyp),
            ),
            ("building 'ext' extension\n", Some(BuildSystem::Setuptools)),
            ("The Meson build system\n", Some(BuildSystem::Meson)),
            ("[3/4] cd CMakeFiles/x.dir\n", Some(BuildSystem::Cmake)),
            (
                "1>a.obj : error LNK2019: x\n2>b.obj : error LNK2019: y\n",
                Some(BuildSystem::Msbuild),
            ),
            (
                "C:\\p\\CMakeFiles\\x.dir\n1>a\n2>b [C:\\p\\x.vcxproj]\n",
                Some(BuildSystem::Cmake),
            ),
            (
                "a.obj : error LNK2019: unresolved external symbol f\n",
                None,
            ),
            ("Compiling shaders...\n", None),
        ];
        let mut failures = Vec::new();
        for (log, want) in rows {
            if seen(log) != want {
                failures.push(format!("{log:?}: want {want:?}, got {:?}", seen(log)));
            }
        }
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    /// The recogniser as it was written before lines were batched: every line searched alone.
    fn one_line_at_a_time(lines: &[String]) -> Option<Recognised> {
        let mut found: Vec<Option<Recognised>> = vec![None; BuildSystem::MARKERS.len()];
        let mut prefixes = 0;
        for (i, line) in lines.iter().enumerate() {
            if found[0].is_some() {
                break;
            }
            let number = i as u64 + 1;
            let lower = line.to_ascii_lowercase();
            for (at, (kind, markers)) in BuildSystem::MARKERS.iter().enumerate() {
                let shown = markers
                    .iter()
                    .any(|m| lower.contains(m) && (*m != "compiling " || cargo_compiling(&lower)));
                if shown && found[at].is_none() {
                    found[at] = Some(Recognised::at(*kind, number, line));
                }
            }
            let digits = line.bytes().take_while(u8::is_ascii_digit).count();
            if digits > 0 && line.as_bytes().get(digits) == Some(&b'>') {
                prefixes += 1;
                let at = BuildSystem::MARKERS.len() - 1;
                if prefixes >= 2 && found[at].is_none() {
                    found[at] = Some(Recognised::at(BuildSystem::Msbuild, number, line));
                }
            }
        }
        found.into_iter().flatten().next()
    }

    #[test]
    fn the_scan_order_holds_every_marker_once() {
        let mut scanned: Vec<&str> = SCAN_ORDER.to_vec();
        let mut markers: Vec<&str> = BuildSystem::MARKERS
            .iter()
            .flat_map(|(_, markers)| markers.iter().copied())
            .collect();
        scanned.sort_unstable();
        markers.sort_unstable();
        assert_eq!(scanned, markers);
    }

    #[test]
    fn batches_answer_as_one_line_at_a_time() {
        // Markers of every kind in any case, cut across line ends, on long lines that fill a
        // batch alone, and MSBuild prefixes before and after an MSBuild marker.
        let pieces = [
            "[1/9] clang-cl /c k.cpp",
            "note: in instantiation of 'f<3>' requested here",
            "C:\\b\\CMakeFiles\\k.dir\\k.obj",
            "  Compiling cubecl v0.6.0",
            "Compiling shaders...",
            "1>a.obj : error LNK2019: x",
            "12>b.obj",
            "C:\\p\\x.VCXPROJ]",
            "gyp info it worked",
            "building 'ext' extension",
            "error: linking with `link.exe` failed",
            "site-packages/TVM_FFI/cpp/extension.py",
            "cmake",
            "files have been written",
            "The Meson build system",
            "tvm",
            "_ffi",
        ];
        let mut seed = 11u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 33) as usize
        };
        for round in 0..150 {
            let count = 1 + next() % 40;
            let lines: Vec<String> = (0..count)
                .map(|_| match next() % 10 {
                    0 => "x".repeat(70_000 + next() % 1000) + pieces[next() % pieces.len()],
                    _ => pieces[next() % pieces.len()].to_string(),
                })
                .collect();
            let mut recogniser = Recogniser::new();
            for (i, line) in lines.iter().enumerate() {
                recogniser.line(i as u64 + 1, line);
            }
            assert_eq!(
                recogniser.finish(),
                one_line_at_a_time(&lines),
                "round {round}: {lines:?}"
            );
        }
    }

    #[test]
    fn fixes_are_in_the_systems_terms() {
        let flags: Vec<String> = ["/LIBPATH:C:\\ROCm\\lib", "amdhip64.lib", "kernel32.Lib"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let cmake = fix_lines(BuildSystem::Cmake, &flags, Some(Flavour::Dynamic), "b.log");
        assert_eq!(
            cmake[0],
            "target_link_libraries(<your target> PRIVATE amdhip64 kernel32)"
        );
        assert!(cmake[1].contains("\"C:/ROCm/lib\""));
        assert!(cmake[2].contains("MultiThreadedDLL"));
        let cargo = fix_lines(BuildSystem::Cargo, &flags, None, "b.log");
        assert_eq!(
            cargo[0],
            "println!(\"cargo:rustc-link-lib=amdhip64\"); in build.rs"
        );
        let msbuild = fix_lines(BuildSystem::Msbuild, &flags, Some(Flavour::Static), "b.log");
        assert!(msbuild[0].contains("amdhip64.lib;kernel32.Lib;%(AdditionalDependencies)"));
        assert!(msbuild[2].contains("<RuntimeLibrary>MultiThreaded</RuntimeLibrary>"));
        let setuptools = fix_lines(BuildSystem::Setuptools, &flags, None, "b.log");
        assert!(setuptools[0].contains("libraries=[\"amdhip64\", \"kernel32\"]"));
        let gyp = fix_lines(BuildSystem::NodeGyp, &flags, None, "b.log");
        assert!(gyp[0].contains("\"libraries\": [\"amdhip64.lib\", \"kernel32.Lib\"]"));
        assert!(fix_lines(BuildSystem::TvmFfi, &flags, None, "b.log")[0].contains("extension.py"));
    }
}
