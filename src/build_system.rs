//! Which build system produced a log, from the lines it leaves (tvm-ffi's JIT, CMake, MSBuild,
//! cargo, setuptools and torch's `cpp_extension`, node-gyp, meson), and the fix written in its
//! terms: `extension.py` for tvm-ffi, `target_link_libraries` for CMake, `AdditionalDependencies`
//! for MSBuild, `cargo:rustc-link-lib` for cargo, `libraries=[...]` for setuptools, `"libraries"`
//! in `binding.gyp`, `link_args` for meson.

use std::io::{BufRead, BufReader, Read};

use serde::Serialize;

use crate::rules::Flavour;

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
    /// setuptools / distutils, and torch's `cpp_extension`.
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
            BuildSystem::Setuptools => "setuptools / torch cpp_extension",
            BuildSystem::Meson => "meson",
            BuildSystem::Cmake => "CMake",
            BuildSystem::Msbuild => "MSBuild",
        }
    }

    /// Markers in log lines, case-insensitive; the earlier systems win when several are seen
    /// (a CMake build drives MSBuild; a setuptools build may run ninja).
    const MARKERS: [(BuildSystem, &'static [&'static str]); 7] = [
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
            BuildSystem::Setuptools,
            &[
                "cpp_extension.py",
                "setup.py",
                "setuptools",
                "distutils",
                "building '",
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

/// Reads a log and recognises its build system (MSBuild also by its `N>` line prefixes).
///
/// The markers are searched in the line's bytes, lowercased, all at once: this reads every line
/// of the log a second time, so it must cost about what a scan does. A line's text is built only
/// when it holds a marker. The first kind in its marker table's order wins, so once it is
/// seen the rest is not read.
pub fn recognise(reader: impl Read) -> Option<Recognised> {
    // Every marker in one automaton: one search per line finds every kind the line shows. Pattern `i` is the marker `owners[i]` (kind index, marker).
    let owners: Vec<(usize, &'static str)> = BuildSystem::MARKERS
        .iter()
        .enumerate()
        .flat_map(|(at, (_, markers))| markers.iter().map(move |m| (at, *m)))
        .collect();
    let Ok(markers) = aho_corasick::AhoCorasick::builder()
        .kind(Some(aho_corasick::AhoCorasickKind::DFA))
        .build(owners.iter().map(|(_, m)| m))
    else {
        return None;
    };
    let mut found: Vec<Option<Recognised>> = vec![None; BuildSystem::MARKERS.len()];
    let mut msbuild_prefixes = 0u32;
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let mut buffer = Vec::new();
    let mut bytes = Vec::new();
    let mut line = 0u64;
    // The line's text, as the report shows it (UTF-16 logs: dropping NULs leaves the ASCII
    // markers readable).
    let evidence = |buffer: &[u8]| -> String {
        let text: String = String::from_utf8_lossy(buffer)
            .chars()
            .filter(|c| *c != '\0')
            .collect();
        text.trim().chars().take(160).collect()
    };
    while found[0].is_none() {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        line += 1;
        bytes.clear();
        if memchr::memchr(0, &buffer).is_some() {
            bytes.extend(buffer.iter().copied().filter(|b| *b != 0));
        } else {
            bytes.extend_from_slice(&buffer);
        }
        // The markers are lowercase: a case-sensitive search on lowercased bytes keeps the
        // automaton's SIMD prefilter, which ASCII case folding would turn off.
        bytes.make_ascii_lowercase();
        // Most lines hold no marker: the plain search (with its SIMD prefilter) says so first;
        // the overlapping one, which has none, runs only on lines that hold one.
        let hits = if markers.find(&bytes).is_some() {
            markers.find_overlapping_iter(&bytes).collect()
        } else {
            Vec::new()
        };
        for hit in hits {
            let (at, marker) = owners[hit.pattern().as_usize()];
            if found[at].is_some() {
                continue;
            }
            if marker == "compiling " && !cargo_compiling(&String::from_utf8_lossy(&bytes)) {
                continue;
            }
            found[at] = Some(Recognised {
                kind: BuildSystem::MARKERS[at].0,
                line,
                evidence: evidence(&buffer),
            });
        }
        let prefix_digits = bytes.iter().take_while(|b| b.is_ascii_digit()).count();
        if prefix_digits > 0 && bytes.get(prefix_digits) == Some(&b'>') {
            msbuild_prefixes += 1;
            let at = BuildSystem::MARKERS.len() - 1;
            if msbuild_prefixes >= 2 && found[at].is_none() {
                found[at] = Some(Recognised {
                    kind: BuildSystem::Msbuild,
                    line,
                    evidence: evidence(&buffer),
                });
            }
        }
    }
    found.into_iter().flatten().next()
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
            "in the Extension (or torch's CppExtension/CUDAExtension): libraries=[{}]",
            quoted(&names)
        ));
    }
    if !dirs.is_empty() {
        out.push(format!("library_dirs=[{}]", quoted(dirs)));
    }
    if !others.is_empty() {
        out.push(format!("extra_link_args=[{}]", quoted(others)));
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
