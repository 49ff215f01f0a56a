//! Build definitions edited for a missing library, read back by each build tool's own reader:
//! `rustc` compiles and runs the edited `build.rs` as a program (std only), `cargo metadata`
//! reads the edited manifest and a cross build to `x86_64-pc-windows-gnu` hands the printed lines
//! to rustc (and a Linux build does not); Python runs the edited `setup.py` against stand-in
//! `setuptools` and `torch.utils.cpp_extension` modules that record every extension's arguments,
//! and `tomllib` reads an edited `pyproject.toml`; Python's `ast.literal_eval` reads the edited
//! `binding.gyp` (gyp reads it with Python's evaluator); meson 1.12.1 (PyPI,
//! `tests/fixtures/fetch_meson.sh`) dumps the edited `meson.build`'s syntax tree.
//! The definitions are realistic ones of our own, with several targets each, and every check
//! uses a hostile directory (quotes, backslashes, `${}`, `$(...)`, braces) that must come back
//! as exactly that string. Where the place is found (`locate`) is checked on directories the
//! tests lay out.
//!
//! The tool checks run on Linux only (`#[cfg(not(windows))]`: no rustc, cargo, python3 under
//! Wine); the `locate` tests run everywhere.

use std::path::Path;
#[cfg(not(windows))]
use std::path::PathBuf;
#[cfg(not(windows))]
use std::process::Command;

use lnkfix::fix::patch::build_file::{
    cargo, meson, node_gyp, setuptools, BuildChange, BuildEditError, EditOutcome, LocateInput,
};

/// A directory with every character a build file must escape.
const HOSTILE: &str = "C:\\Users\\O'Brien \"x\"\\${HOME}\\$(id)\\{0}\\lib";

/// The same without `$(`, which gyp's output (a Visual Studio project) would expand: node-gyp
/// refuses that one.
#[cfg_attr(windows, allow(dead_code))] // read back by node-gyp, which the Windows run lacks
const GYP_HOSTILE: &str = "C:\\Users\\O'Brien \"x\"\\${HOME}\\{0}\\#lib";

fn change(libraries: &[&str], dirs: &[&str]) -> BuildChange {
    BuildChange {
        libraries: libraries.iter().map(|s| s.to_string()).collect(),
        library_dirs: dirs.iter().map(|s| s.to_string()).collect(),
        runtime: None,
    }
}

/// A build system's `edit`.
type EditFn = fn(&Path, &[u8], Option<&str>, &BuildChange) -> Result<EditOutcome, BuildEditError>;

/// The edited text; the edit of it must be `AlreadyDone`.
#[cfg_attr(windows, allow(dead_code))] // its callers read the result back with Linux tools
fn edited(
    edit: EditFn,
    path: &Path,
    source: &[u8],
    target: Option<&str>,
    change: &BuildChange,
) -> Vec<u8> {
    let outcome = edit(path, source, target, change).unwrap_or_else(|e| panic!("{e}"));
    let EditOutcome::Edited(file) = outcome else {
        panic!("{}: nothing edited", path.display());
    };
    assert_eq!(
        edit(path, &file.after, target, change),
        Ok(EditOutcome::AlreadyDone),
        "{}: a second edit changes it again",
        path.display()
    );
    file.after
}

#[cfg(not(windows))]
fn run(command: &mut Command) -> String {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("cannot run {command:?}: {e}"));
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

/// A build script that builds a C part's object list and records it, as real ones do.
const BUILD_RS: &str = "use std::env;\nuse std::fs;\nuse std::path::PathBuf;\n\n/// Lists the shim's sources for the crate.\nfn main() {\n    let out = PathBuf::from(env::var(\"OUT_DIR\").expect(\"OUT_DIR\"));\n    println!(\"cargo:rerun-if-changed=src/shim.c\");\n    fs::write(out.join(\"sources.txt\"), \"src/shim.c\\n\").expect(\"write\");\n    if env::var(\"PROFILE\").as_deref() == Ok(\"release\") {\n        return;\n    }\n    println!(\"cargo:rustc-cfg=shim_debug\");\n}\n";

#[cfg(not(windows))]
#[test]
fn build_scripts_compile_and_print_the_lines_for_windows_only() {
    let directory = tempfile::tempdir().expect("tempdir");
    let wanted = change(&["python312.lib", "ws2_32.lib"], &[HOSTILE]);
    let one_line = "\u{feff}fn main() { helper(); }\r\nfn helper() { println!(\"cargo:rerun-if-changed=build.rs\"); }\r\n";
    let cases: [(&str, &str); 3] = [("full", BUILD_RS), ("created", ""), ("one_line", one_line)];
    for (name, source) in cases {
        let script = directory.path().join(format!("{name}.rs"));
        let after = edited(
            cargo::edit,
            Path::new("build.rs"),
            source.as_bytes(),
            None,
            &wanted,
        );
        std::fs::write(&script, &after).unwrap();
        let program = directory.path().join(name);
        run(Command::new("rustc")
            .args(["--edition", "2021", "--crate-type", "bin", "-o"])
            .arg(&program)
            .arg(&script));
        for (os, expected) in [
            (
                "windows",
                vec![
                    format!("cargo:rustc-link-search=native={HOSTILE}"),
                    "cargo:rustc-link-lib=dylib=python312".to_string(),
                    "cargo:rustc-link-lib=dylib=ws2_32".to_string(),
                ],
            ),
            ("linux", Vec::new()),
        ] {
            let printed = run(Command::new(&program)
                .env("CARGO_CFG_TARGET_OS", os)
                .env("OUT_DIR", directory.path())
                .env("PROFILE", "release"));
            let links: Vec<&str> = printed
                .lines()
                .filter(|line| line.starts_with("cargo:rustc-link"))
                .collect();
            assert_eq!(links, expected, "{name} for {os}");
        }
    }
}

/// A workspace of two crates; `beta`'s manifest turns its build script off.
fn workspace(root: &Path) {
    let files = [
        ("Cargo.toml", "[workspace]\nmembers = [\"a\", \"b\"]\nresolver = \"2\"\n"),
        ("a/Cargo.toml", "[package]\nname = \"alpha\"\nversion = \"0.1.0\"\nedition = \"2021\"\n"),
        ("a/src/lib.rs", "pub fn a() {}\n"),
        (
            "b/Cargo.toml",
            "[package]\r\nname = \"beta\"\r\nversion = \"0.1.0\"\r\nedition = \"2021\"\r\nbuild = false # for now\r\n",
        ),
        ("b/src/lib.rs", "pub fn b() {}\n"),
    ];
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// What cargo prints when a workspace crate's link fails (its directory on the user's machine).
const CARGO_LOG: &str = "   Compiling alpha v0.1.0 (C:\\work\\ws\\a)\n   Compiling beta v0.1.0 (C:\\work\\ws\\b)\nerror: linking with `link.exe` failed: exit code: 1120\n  = note: beta.dll : fatal error LNK1120: 1 unresolved externals\n\nerror: could not compile `beta` (lib) due to 1 previous error\n";

fn input<'a>(log: &'a str, build_dir: &'a Path) -> LocateInput<'a> {
    LocateInput {
        log,
        log_path: None,
        recognised: None,
        output: None,
        build_dir: Some(build_dir),
    }
}

#[test]
fn cargo_locates_the_failed_crate_in_its_workspace() {
    let directory = tempfile::tempdir().expect("tempdir");
    workspace(directory.path());
    let place = cargo::locate(&input(CARGO_LOG, directory.path()))
        .unwrap()
        .expect("a place");
    assert_eq!(place.file, directory.path().join("b/Cargo.toml"));
    assert_eq!(place.target.as_deref(), Some("beta"));
    let alpha_log = CARGO_LOG.replace("`beta`", "`alpha`");
    let place = cargo::locate(&input(&alpha_log, &directory.path().join("target")))
        .unwrap()
        .expect("a place");
    assert_eq!(place.file, directory.path().join("a/build.rs"));
    let nothing = cargo::locate(&input("no crate here\n", directory.path())).unwrap();
    assert_eq!(nothing, None);
}

#[cfg(not(windows))]
#[test]
fn cargo_metadata_reads_the_switched_on_build_script() {
    let directory = tempfile::tempdir().expect("tempdir");
    workspace(directory.path());
    let manifest = directory.path().join("b/Cargo.toml");
    let wanted = change(&["python312.lib"], &[]);
    let source = std::fs::read(&manifest).unwrap();
    let after = edited(cargo::edit, &manifest, &source, Some("beta"), &wanted);
    assert!(String::from_utf8_lossy(&after).contains("build = \"build.rs\" # for now\r\n"));
    std::fs::write(&manifest, after).unwrap();
    let script = directory.path().join("b/build.rs");
    std::fs::write(&script, edited(cargo::edit, &script, b"", None, &wanted)).unwrap();
    let metadata = run(Command::new("cargo")
        .args([
            "metadata",
            "--no-deps",
            "--offline",
            "--format-version",
            "1",
            "--manifest-path",
        ])
        .arg(directory.path().join("Cargo.toml")));
    let metadata: serde_json::Value = serde_json::from_str(&metadata).unwrap();
    let beta = metadata["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "beta")
        .expect("beta");
    let build = beta["targets"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["kind"][0] == "custom-build")
        .expect("cargo sees a build script");
    assert!(build["src_path"].as_str().unwrap().ends_with("b/build.rs"));
}

/// Two extensions, as black formats them.
const SETUP_PY: &str = r#"import os
from setuptools import Extension, setup

ROOT = os.path.dirname(os.path.abspath(__file__))

setup(
    name="fastpkg",
    version="1.0",
    ext_modules=[
        Extension(
            "fastpkg._core",
            sources=["src/core.c", "src/util.c"],  # the hot path
            include_dirs=[os.path.join(ROOT, "include")],
            define_macros=[("NDEBUG", "1")],
        ),
        Extension("fastpkg._io", ["src/io.c"], libraries=["m"]),
    ],
)
"#;

/// A torch extension package with a CPU and a CUDA extension, CRLF and a BOM.
const TORCH_SETUP_PY: &str = "\u{feff}from setuptools import setup\r\nfrom torch.utils.cpp_extension import BuildExtension, CppExtension, CUDAExtension\r\n\r\nsetup(\r\n    name='fused_ops',\r\n    ext_modules=[\r\n        CppExtension('fused_ops._C', ['csrc/ops.cpp'], extra_compile_args=['/O2']),\r\n        CUDAExtension(\r\n            name='fused_ops._cuda',\r\n            sources=['csrc/kernels.cu'],\r\n            libraries=['cublas'],  # BLAS\r\n        ),\r\n    ],\r\n    cmdclass={'build_ext': BuildExtension},\r\n)\r\n";

/// Stand-in `setuptools` and `torch.utils.cpp_extension` that record each extension's name and
/// keyword arguments, then run `setup.py` and print them as JSON.
#[cfg(not(windows))]
const RECORDER: &str = r#"import ast, json, os, sys, types
path = sys.argv[1]
source = open(path, encoding="utf-8-sig").read()
ast.parse(source)
made = []
def extension(name=None, sources=None, *args, **kwargs):
    kwargs = dict(kwargs)
    made.append({"name": name, **{k: v for k, v in kwargs.items() if k in ("libraries", "library_dirs", "extra_ldflags")}})
setuptools = types.ModuleType("setuptools")
setuptools.Extension = extension
setuptools.setup = lambda **kwargs: None
torch = types.ModuleType("torch")
utils = types.ModuleType("torch.utils")
cpp = types.ModuleType("torch.utils.cpp_extension")
cpp.CppExtension = cpp.CUDAExtension = extension
cpp.BuildExtension = object
sys.modules.update({"setuptools": setuptools, "torch": torch, "torch.utils": utils, "torch.utils.cpp_extension": cpp})
exec(compile(source, path, "exec"), {"__file__": path, "__name__": "__main__"})
print(json.dumps(made))
"#;

#[cfg(not(windows))]
fn extensions_of(directory: &Path, text: &[u8]) -> serde_json::Value {
    let script = directory.join("setup.py");
    std::fs::write(&script, text).unwrap();
    let printed = run(Command::new("python3").arg("-c").arg(RECORDER).arg(&script));
    serde_json::from_str(&printed).unwrap()
}

#[cfg(not(windows))]
#[test]
fn setup_py_builds_the_extension_with_the_written_lists() {
    let directory = tempfile::tempdir().expect("tempdir");
    let path = Path::new("setup.py");
    let wanted = change(&["python312.lib"], &[HOSTILE]);
    let after = edited(
        setuptools::edit,
        path,
        SETUP_PY.as_bytes(),
        Some("fastpkg._core"),
        &wanted,
    );
    let made = extensions_of(directory.path(), &after);
    assert_eq!(
        made,
        serde_json::json!([
            {"name": "fastpkg._core", "libraries": ["python312"], "library_dirs": [HOSTILE]},
            {"name": "fastpkg._io", "libraries": ["m"]},
        ])
    );
    let after = edited(
        setuptools::edit,
        path,
        TORCH_SETUP_PY.as_bytes(),
        Some("fused_ops._cuda"),
        &wanted,
    );
    let made = extensions_of(directory.path(), &after);
    assert_eq!(
        made,
        serde_json::json!([
            {"name": "fused_ops._C"},
            {"name": "fused_ops._cuda", "libraries": ["cublas", "python312"], "library_dirs": [HOSTILE]},
        ])
    );
    let after = edited(
        setuptools::edit,
        path,
        TORCH_SETUP_PY.as_bytes(),
        Some("fused_ops._C"),
        &wanted,
    );
    assert!(after.starts_with("\u{feff}".as_bytes()));
    let made = extensions_of(directory.path(), &after);
    assert_eq!(made[0]["libraries"], serde_json::json!(["python312"]));
    assert_eq!(made[0]["library_dirs"], serde_json::json!([HOSTILE]));
}

#[test]
fn setup_py_is_located_above_the_build_directory() {
    let directory = tempfile::tempdir().expect("tempdir");
    std::fs::write(directory.path().join("setup.py"), SETUP_PY).unwrap();
    let build = directory
        .path()
        .join("build/temp.win-amd64-cpython-312/Release");
    std::fs::create_dir_all(&build).unwrap();
    let log = "running build_ext\nbuilding 'fastpkg._core' extension\nLINK : fatal error LNK1120: 1 unresolved externals\n";
    let place = setuptools::locate(&input(log, &build))
        .unwrap()
        .expect("a place");
    assert_eq!(place.file, directory.path().join("setup.py"));
    assert_eq!(place.target.as_deref(), Some("fastpkg._core"));
    std::fs::remove_file(directory.path().join("setup.py")).unwrap();
    let pyproject = directory.path().join("pyproject.toml");
    std::fs::write(
        &pyproject,
        "[[tool.setuptools.ext-modules]]\nname = \"fastpkg._core\"\n",
    )
    .unwrap();
    let place = setuptools::locate(&input(log, &build))
        .unwrap()
        .expect("a place");
    assert_eq!(place.file, pyproject);
}

/// Three targets: one with a Windows condition, one with another condition, one with none.
const BINDING_GYP: &str = r#"{
  # The addon, its helper and a static part.
  'variables': { 'with_ssl%': 'false' },
  'targets': [
    {
      'target_name': 'addon',
      'sources': [ 'src/addon.cc' ],
      'dependencies': [ 'core' ],
      'conditions': [
        ['OS=="mac"', { 'xcode_settings': { 'MACOSX_DEPLOYMENT_TARGET': '10.15' } }],
        ['OS=="win"', {
          'libraries': [ 'ws2_32.lib' ],  # sockets
          'msvs_settings': { 'VCCLCompilerTool': { 'ExceptionHandling': 1 } },
        }],
      ],
    },
    {
      'target_name': 'helper',
      'sources': [ 'src/helper.cc' ],
      'conditions': [ ['OS=="linux"', { 'cflags': [ '-fPIC' ] }] ],
    },
    {
      'target_name': 'core',
      'type': 'static_library',
      'sources': [ 'src/core.cc' ]
    },
  ],
}
"#;

#[cfg(not(windows))]
#[test]
fn binding_gyp_reads_as_gyp_reads_it() {
    let directory = tempfile::tempdir().expect("tempdir");
    let path = Path::new("binding.gyp");
    let refused = node_gyp::edit(
        path,
        BINDING_GYP.as_bytes(),
        Some("addon"),
        &change(&[], &[HOSTILE]),
    );
    assert!(matches!(refused, Err(BuildEditError::Unsupported { .. })));
    let wanted = change(&["python312.lib"], &[GYP_HOSTILE]);
    let original: serde_json::Value = serde_json::from_str(&run(Command::new("python3")
        .arg("-c")
        .arg("import ast, json, sys; print(json.dumps(ast.literal_eval(sys.argv[1])))")
        .arg(BINDING_GYP)))
    .unwrap();
    for (target, index) in [("addon", 0), ("helper", 1), ("core", 2)] {
        let after = edited(
            node_gyp::edit,
            path,
            BINDING_GYP.as_bytes(),
            Some(target),
            &wanted,
        );
        let file = directory.path().join(format!("{target}.gyp"));
        std::fs::write(&file, &after).unwrap();
        let printed = run(Command::new("python3")
            .arg("-c")
            .arg("import ast, json, sys; print(json.dumps(ast.literal_eval(open(sys.argv[1]).read())))")
            .arg(&file));
        let gyp: serde_json::Value = serde_json::from_str(&printed).unwrap();
        let targets = gyp["targets"].as_array().unwrap();
        let windows = targets[index]["conditions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c[0] == "OS==\"win\"")
            .unwrap_or_else(|| panic!("{target}: no OS==\"win\" condition"));
        let mut libraries = vec!["python312.lib"];
        if target == "addon" {
            libraries.insert(0, "ws2_32.lib");
        }
        assert_eq!(
            windows[1]["libraries"],
            serde_json::json!(libraries),
            "{target}"
        );
        assert_eq!(
            windows[1]["library_dirs"],
            serde_json::json!([GYP_HOSTILE]),
            "{target}"
        );
        for other in (0..targets.len()).filter(|i| *i != index) {
            assert_eq!(
                targets[other], original["targets"][other],
                "{target} edit touched another"
            );
        }
    }
}

#[test]
fn binding_gyp_and_the_target_from_the_vcxproj_suffix() {
    let directory = tempfile::tempdir().expect("tempdir");
    std::fs::write(directory.path().join("binding.gyp"), BINDING_GYP).unwrap();
    let build = directory.path().join("build");
    std::fs::create_dir_all(&build).unwrap();
    let log = format!(
        "gyp info spawn args [ 'build/binding.sln' ]\nLINK : fatal error LNK1120: 1 unresolved externals [{}\\addon.vcxproj]\ngyp ERR! build error\n",
        build.display()
    );
    let place = node_gyp::locate(&input(&log, &build))
        .unwrap()
        .expect("a place");
    assert_eq!(place.file, directory.path().join("binding.gyp"));
    assert_eq!(place.target.as_deref(), Some("addon"));
}

/// Three linked targets (one a Python extension) and a static library.
const MESON_BUILD: &str = "project('fastpkg', 'c')\npy = import('python').find_installation()\n\n# The extension and a tool.\npy.extension_module('_core', 'src/core.c', install: true)\ntool = executable('tool', ['tools/tool.c'],\n  link_args: ['-Wl,--as-needed'],  # GNU ld only\n)\ncore = shared_library('shared', 'src/shared.c',\n  link_args: host_machine.system() == 'windows' ? ['-lws2_32'] : [],\n  version: '1.0.0')\nstatic_library('parts', 'src/parts.c')\n";

/// meson 1.12.1 from PyPI, fetched once into the test cache.
#[cfg(not(windows))]
fn meson_site() -> PathBuf {
    crate::common::fetched("fetch_meson.sh")
}

/// Every string value below a JSON syntax tree node.
#[cfg(not(windows))]
fn strings(node: &serde_json::Value, out: &mut Vec<String>) {
    match node {
        serde_json::Value::Object(map) => {
            if map.get("node").and_then(|n| n.as_str()) == Some("StringNode") {
                out.extend(map["value"].as_str().map(str::to_string));
            }
            map.values().for_each(|v| strings(v, out));
        }
        serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
        _ => {}
    }
}

/// The `link_args` value of the call whose first argument is `target`, in meson's tree.
#[cfg(not(windows))]
fn link_args<'a>(node: &'a serde_json::Value, target: &str) -> Option<&'a serde_json::Value> {
    let args = &node["args"];
    if args["positional"][0]["value"] == target {
        return args["kwargs"]
            .as_array()?
            .iter()
            .find(|k| k["key"]["value"] == "link_args")
            .map(|k| &k["val"]);
    }
    match node {
        serde_json::Value::Object(map) => map.values().find_map(|v| link_args(v, target)),
        serde_json::Value::Array(items) => items.iter().find_map(|v| link_args(v, target)),
        _ => None,
    }
}

#[cfg(not(windows))]
#[test]
fn meson_reads_the_edited_build_file() {
    let site = meson_site();
    let directory = tempfile::tempdir().expect("tempdir");
    let path = Path::new("meson.build");
    let wanted = change(&["python312.lib"], &[HOSTILE]);
    let expected = [format!("-L{HOSTILE}"), "-lpython312".to_string()];
    for (target, kept) in [
        ("_core", None),
        ("tool", Some("-Wl,--as-needed")),
        ("shared", Some("-lws2_32")),
    ] {
        let after = edited(
            meson::edit,
            path,
            MESON_BUILD.as_bytes(),
            Some(target),
            &wanted,
        );
        std::fs::write(directory.path().join("meson.build"), &after).unwrap();
        let tree = run(Command::new("python3")
            .args([
                "-m",
                "mesonbuild.mesonmain",
                "introspect",
                "--ast",
                "meson.build",
            ])
            .env("PYTHONPATH", &site)
            .current_dir(directory.path()));
        let tree: serde_json::Value = serde_json::from_str(&tree).unwrap();
        let value = link_args(&tree, target).unwrap_or_else(|| panic!("{target}: no link_args"));
        let mut found = Vec::new();
        strings(value, &mut found);
        let kept = kept.map(str::to_string);
        for wanted in expected.iter().chain(&kept).chain(&["windows".to_string()]) {
            assert!(
                found.contains(wanted),
                "{target}: {wanted} not in {found:?}"
            );
        }
        assert!(
            value.to_string().contains("TernaryNode"),
            "{target}: not guarded"
        );
    }
}

#[test]
fn meson_build_is_located_from_meson_info() {
    let directory = tempfile::tempdir().expect("tempdir");
    let source = directory.path().join("src");
    let build = directory.path().join("builddir");
    std::fs::create_dir_all(build.join("meson-info")).unwrap();
    std::fs::create_dir_all(source.join("tools")).unwrap();
    std::fs::write(source.join("tools/meson.build"), MESON_BUILD).unwrap();
    let info = serde_json::json!({"directories": {"source": source, "build": build}});
    std::fs::write(build.join("meson-info/meson-info.json"), info.to_string()).unwrap();
    let mut located = input("ninja: build stopped: subcommand failed.\n", &build);
    located.output = Some("tools\\tool.exe");
    let place = meson::locate(&located).unwrap().expect("a place");
    assert_eq!(place.file, source.join("tools/meson.build"));
    assert_eq!(place.target.as_deref(), Some("tool.exe"));
    let outcome = meson::edit(
        &place.file,
        MESON_BUILD.as_bytes(),
        place.target.as_deref(),
        &change(&["a.lib"], &[]),
    )
    .unwrap();
    assert!(matches!(outcome, EditOutcome::Edited(e) if e.target.as_deref() == Some("tool")));
}

/// Every prefix of every definition above, and each with one byte turned into a quote, a
/// bracket or a line break, is edited or refused with an error: never a panic.
#[test]
fn cut_and_damaged_definitions_are_refused_never_a_panic() {
    let wanted = change(&["python312.lib"], &[HOSTILE]);
    let cases: [(EditFn, &str, &str, &str); 6] = [
        (cargo::edit, "build.rs", BUILD_RS, "demo"),
        (setuptools::edit, "setup.py", SETUP_PY, "fastpkg._core"),
        (
            setuptools::edit,
            "setup.py",
            TORCH_SETUP_PY,
            "fused_ops._cuda",
        ),
        (node_gyp::edit, "binding.gyp", BINDING_GYP, "addon"),
        (meson::edit, "meson.build", MESON_BUILD, "tool"),
        (
            cargo::edit,
            "Cargo.toml",
            "[package]\nname = \"a\"\nbuild = false\n",
            "a",
        ),
    ];
    let mut edits = 0;
    for (edit, name, text, target) in cases {
        let path = Path::new(name);
        let bytes = text.as_bytes();
        for cut in 0..=bytes.len() {
            let mut variants = vec![bytes[..cut].to_vec()];
            if cut < bytes.len() {
                for replacement in [b'\'', b'"', b'(', b']', b'\n', b'#', 0xff] {
                    let mut damaged = bytes.to_vec();
                    damaged[cut] = replacement;
                    variants.push(damaged);
                }
            }
            for variant in variants {
                for target in [None, Some(target)] {
                    if let Ok(EditOutcome::Edited(_)) = edit(path, &variant, target, &wanted) {
                        edits += 1;
                    }
                }
            }
        }
    }
    // Many damaged files still hold an intact target: those are edited.
    assert!(edits > 1000, "{edits}");
}

/// cargo itself runs the created build script in a cross build from Linux to Windows (GNU
/// target: its standard library is installed with rustup here) and hands the lines to rustc:
/// the test of `CARGO_CFG_TARGET_OS` sees the target, where `cfg!(windows)` would see Linux.
/// A library crate is not linked, so the build succeeds and `-v` shows rustc's arguments.
#[cfg(not(windows))]
#[test]
fn cargo_passes_the_lines_to_rustc_in_a_cross_build() {
    let directory = tempfile::tempdir().expect("tempdir");
    let crate_dir = directory.path().join("shim");
    std::fs::create_dir_all(crate_dir.join("src")).unwrap();
    std::fs::write(
        crate_dir.join("Cargo.toml"),
        "[package]\nname = \"shim\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[workspace]\n",
    )
    .unwrap();
    std::fs::write(crate_dir.join("src/lib.rs"), "pub fn shim() {}\n").unwrap();
    let script = crate_dir.join("build.rs");
    let wanted = change(&["python312.lib"], &["C:\\Python312\\libs"]);
    std::fs::write(
        &script,
        edited(cargo::edit, &script, b"", Some("shim"), &wanted),
    )
    .unwrap();
    let mut verbose = Vec::new();
    for target in ["x86_64-pc-windows-gnu", "x86_64-unknown-linux-gnu"] {
        let output = Command::new("cargo")
            .args([
                "build",
                "-v",
                "--offline",
                "--target",
                target,
                "--manifest-path",
            ])
            .arg(crate_dir.join("Cargo.toml"))
            .env("CARGO_TARGET_DIR", directory.path().join("target"))
            .output()
            .expect("cannot run cargo");
        let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
        assert!(
            output.status.success(),
            "cargo build --target {target}: {stderr}"
        );
        verbose.push(stderr);
    }
    let rustc_line = |log: &str| -> String {
        log.lines()
            .find(|line| line.contains("--crate-name shim") && line.contains("src/lib.rs"))
            .unwrap_or_else(|| panic!("no rustc line for the library in {log}"))
            .to_string()
    };
    let windows = rustc_line(&verbose[0]);
    assert!(windows.contains("-l dylib=python312"), "{windows}");
    assert!(windows.contains("native=C:\\Python312\\libs"), "{windows}");
    let linux = rustc_line(&verbose[1]);
    assert!(!linux.contains("python312"), "{linux}");
}

/// `[tool.setuptools] ext-modules` in `pyproject.toml`, read back by Python's `tomllib`.
#[cfg(not(windows))]
#[test]
fn pyproject_ext_modules_read_back_by_tomllib() {
    let directory = tempfile::tempdir().expect("tempdir");
    let source = "[build-system]\nrequires = [\"setuptools>=74.1\"]\nbuild-backend = \"setuptools.build_meta\"\n\n[project]\nname = \"fastpkg\"\nversion = \"1.0\"\n\n# Two extensions.\n[[tool.setuptools.ext-modules]]\nname = \"fastpkg._core\"\nsources = [\"src/core.c\"]\n\n[[tool.setuptools.ext-modules]]\nname = \"fastpkg._io\"\nsources = [\"src/io.c\"]\nlibraries = [\"m\"]\n";
    let hostile = format!("{HOSTILE}'''\"\"\"");
    let wanted = change(&["python312.lib"], &[&hostile]);
    let path = directory.path().join("pyproject.toml");
    let after = edited(
        setuptools::edit,
        &path,
        source.as_bytes(),
        Some("fastpkg._io"),
        &wanted,
    );
    std::fs::write(&path, after).unwrap();
    let printed = run(Command::new("python3")
        .arg("-c")
        .arg("import json, sys, tomllib; print(json.dumps(tomllib.load(open(sys.argv[1], 'rb'))['tool']['setuptools']['ext-modules']))")
        .arg(&path));
    let modules: serde_json::Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(
        modules,
        serde_json::json!([
            {"name": "fastpkg._core", "sources": ["src/core.c"]},
            {"name": "fastpkg._io", "sources": ["src/io.c"], "libraries": ["m", "python312"], "library-dirs": [hostile]},
        ])
    );
}

/// A crate with no build script: `lnkfix patch --from LOG --build-dir DIR` finds the crate of the
/// failed cargo build, shows the whole new `build.rs` as a diff, `--apply` creates it (only it:
/// the manifest is left as it was), and a second run has nothing to add.
#[test]
fn a_crate_without_a_build_script_gets_one_created() {
    let root = tempfile::tempdir().unwrap();
    let krate = root.path().join("demo");
    std::fs::create_dir_all(krate.join("src")).unwrap();
    let manifest = "[package]\nname = \"demo\"\nversion = \"0.1.0\"\nedition = \"2021\"\n";
    std::fs::write(krate.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(krate.join("src").join("main.rs"), "fn main() {}\n").unwrap();
    let log = format!(
        "   Compiling demo v0.1.0 ({})\n\
         error: linking with `link.exe` failed: exit code: 1120\n  |\n\
         \x20 = note: \"link.exe\" \"/NOLOGO\" \"/OUT:C:\\\\t\\\\demo.exe\"\n\
         \x20 = note: demo.demo.1-cgu.0.rcgu.o : error LNK2019: unresolved external symbol __imp_MessageBoxW referenced in function main\n\
         \x20         C:\\t\\demo.exe : fatal error LNK1120: 1 unresolved externals\n\n\
         error: could not compile `demo` (bin \"demo\") due to 1 previous error\n",
        krate.display()
    );
    std::fs::write(root.path().join("link.log"), log).unwrap();
    let patch = |apply: bool| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_lnkfix"));
        command.env("NO_COLOR", "1").env("LNKFIX_NO_PYTHON", "1");
        command
            .current_dir(root.path())
            .args(["patch", "--from", "link.log", "--build-dir"]);
        command.arg(root.path());
        if apply {
            command.arg("--apply");
        }
        command.output().unwrap()
    };
    let shown = patch(false);
    let diff = String::from_utf8_lossy(&shown.stdout);
    assert_eq!(
        shown.status.code(),
        Some(0),
        "{diff}{}",
        String::from_utf8_lossy(&shown.stderr)
    );
    assert!(diff.contains("@@ -0,0 +1,"), "{diff}");
    assert!(
        diff.contains("+        println!(\"cargo:rustc-link-lib=dylib=user32\");"),
        "{diff}"
    );
    assert!(!krate.join("build.rs").exists(), "shown only, yet written");
    assert_eq!(patch(true).status.code(), Some(0));
    let written = std::fs::read_to_string(krate.join("build.rs")).unwrap();
    assert!(
        written.contains("cargo:rustc-link-lib=dylib=user32"),
        "{written}"
    );
    assert_eq!(
        std::fs::read_to_string(krate.join("Cargo.toml")).unwrap(),
        manifest
    );
    let again = patch(false);
    let said = String::from_utf8_lossy(&again.stderr);
    assert!(said.contains("already has everything"), "{said}");
}
