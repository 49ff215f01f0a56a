//! Real MSVC-built files from Windows wheels on PyPI, fetched at test time by
//! `tests/fixtures/fetch.sh` (pinned versions, sha256-checked, never committed): numpy's static
//! `npymath.lib`, apache-tvm-ffi's import library `tvm_ffi.lib` (C++ exports), pywin32's
//! `pywintypes.lib` (C++ and data imports) and debugpy's link.exe PDBs (`/MD` and `/MT`). What
//! lnkfix reads is checked against llvm-nm-14 and llvm-pdbutil-14 on the same files.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use lnkfix::index::{Index, IndexOptions, Machine, SymbolKind};

/// The unpacked wheels. On Linux, fetched now; on Windows (under Wine, where there is no bash or
/// pip) they must have been fetched on Linux beforehand (`.ci/windows.sh` does).
fn real() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let out = common::root().join("target").join("wheels");
        if cfg!(windows) {
            assert!(
                out.join("real").is_dir(),
                "{} is missing: run .ci/windows.sh, which fetches the wheels on Linux",
                out.display()
            );
            return out.join("real");
        }
        let status = std::process::Command::new("bash")
            .arg(common::root().join("tests/fixtures/fetch.sh"))
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .status()
            .expect("run tests/fixtures/fetch.sh");
        assert!(
            status.success(),
            "fetch.sh failed: pip and the network to PyPI are required"
        );
        out.join("real")
    })
}

/// Runs an LLVM tool on a wheel file. Its output is kept in `prepared()/tools` when
/// `LNKFIX_SAVE_TOOL_OUTPUT` is set (on Linux), and read from there on Windows, where the tool
/// does not exist: both runs compare lnkfix with the same llvm output.
fn tool(name: &str, args: &[&str], file: &Path) -> String {
    let relative = file
        .strip_prefix(real())
        .unwrap_or(file)
        .to_string_lossy()
        .into_owned();
    let key: String = format!("{name} {} {relative}", args.join(" "))
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let saved = common::prepared().join("tools").join(format!("{key}.txt"));
    if cfg!(windows) {
        return std::fs::read_to_string(&saved).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: run .ci/windows.sh, which saves the llvm output on Linux",
                saved.display()
            )
        });
    }
    let output = std::process::Command::new(name)
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| panic!("{name} is required (apt-get install llvm-14): {e}"));
    assert!(
        output.status.success(),
        "{name} {args:?}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    if std::env::var_os("LNKFIX_SAVE_TOOL_OUTPUT").is_some() {
        std::fs::create_dir_all(saved.parent().unwrap()).unwrap();
        std::fs::write(&saved, &text).unwrap();
    }
    text
}

fn build(path: &Path) -> Index {
    let (index, warnings) = Index::build(
        &[path.to_path_buf()],
        &IndexOptions {
            arch: Machine::X64,
            ..Default::default()
        },
    );
    assert!(warnings.is_empty(), "{}: {warnings:?}", path.display());
    index
}

/// The archive's symbol map as `llvm-nm --print-armap` prints it: every name the linker can find
/// in the library (import names included, which llvm-nm's symbol listing leaves out).
fn llvm_nm_armap(path: &Path) -> BTreeSet<String> {
    let out = tool("llvm-nm-14", &["--print-armap"], path);
    let mut names = BTreeSet::new();
    let mut in_map = false;
    for line in out.lines() {
        if line.starts_with("Archive map") {
            in_map = true;
            continue;
        }
        if in_map {
            if line.trim().is_empty() {
                break;
            }
            if let Some((name, _member)) = line.rsplit_once(" in ") {
                names.insert(name.to_string());
            }
        }
    }
    assert!(!names.is_empty(), "{}: no archive map", path.display());
    names
}

#[test]
fn numpy_static_library_matches_llvm_nm() {
    let lib = real().join("numpy/_core/lib/npymath.lib");
    let index = build(&lib);
    // Weak externals (`_Avx2WmemEnabled` → `_Avx2WmemEnabledWeakValue`) are not in the symbol
    // map; lnkfix keeps them as aliases whose target the map does list.
    let aliases: Vec<(String, String)> = index
        .symbols()
        .filter_map(|s| match &s.kind {
            SymbolKind::Alias { target } => Some((s.name.clone(), target.clone())),
            _ => None,
        })
        .collect();
    let ours: BTreeSet<String> = index
        .symbols()
        .filter(|s| !matches!(s.kind, SymbolKind::Alias { .. }))
        .map(|s| s.name.clone())
        .collect();
    let theirs = llvm_nm_armap(&lib);
    for (alias, target) in &aliases {
        assert!(
            theirs.contains(target),
            "{alias} -> {target}: the target is defined"
        );
    }
    let missing: Vec<_> = theirs.difference(&ours).collect();
    let invented: Vec<_> = ours.difference(&theirs).collect();
    assert!(
        missing.is_empty() && invented.is_empty(),
        "missing {missing:?}\ninvented {invented:?}"
    );
    assert!(
        ours.contains("npy_half_to_float"),
        "a known npymath function"
    );
    let info = &index.libraries()[0];
    assert!(
        info.default_libs
            .iter()
            .any(|l| l.eq_ignore_ascii_case("MSVCRT")),
        "{:?}",
        info.default_libs
    );
}

#[test]
fn tvm_ffi_import_library_names_its_dll() {
    let lib = real().join("tvm_ffi/lib/tvm_ffi.lib");
    let index = build(&lib);
    let theirs = llvm_nm_armap(&lib);
    let ours: BTreeSet<String> = index
        .symbols()
        .filter(|s| s.kind != SymbolKind::Export)
        .map(|s| s.name.clone())
        .collect();
    assert_eq!(ours, theirs, "tvm_ffi.lib: lnkfix vs llvm-nm --print-armap");
    let imports: Vec<_> = index.symbols().filter(|s| s.is_import()).collect();
    assert!(imports.len() > 100);
    for s in &imports {
        assert!(
            s.dll
                .as_deref()
                .is_some_and(|d| d.eq_ignore_ascii_case("tvm_ffi.dll")),
            "{s:?}"
        );
        assert!(
            theirs.contains(&s.name),
            "{} is not in llvm-nm's list",
            s.name
        );
    }
    // A C++ export, and its dllimport slot.
    let ctor = "??0Error@ffi@tvm@@QEAA@AEBV012@@Z";
    assert!(!index.lookup(ctor).is_empty() && !index.lookup(&format!("__imp_{ctor}")).is_empty());
}

#[test]
fn pywin32_import_library_has_code_and_data_imports() {
    let lib = real().join("win32/libs/pywintypes.lib");
    let index = build(&lib);
    let kinds: BTreeSet<String> = index.symbols().map(|s| format!("{:?}", s.kind)).collect();
    assert!(
        kinds.contains("ImportCode") && kinds.contains("ImportData"),
        "{kinds:?}"
    );
    // A data import defines only __imp_X.
    let data = index
        .symbols()
        .find(|s| s.kind == SymbolKind::ImportData)
        .expect("a data import");
    assert!(data.name.starts_with("__imp_"), "{data:?}");
    let bare = data.name.trim_start_matches("__imp_");
    assert!(
        index
            .lookup(bare)
            .iter()
            .all(|s| s.kind != SymbolKind::ImportData),
        "{bare}"
    );
    let theirs = llvm_nm_armap(&lib);
    let ours: BTreeSet<String> = index.symbols().map(|s| s.name.clone()).collect();
    assert_eq!(
        ours, theirs,
        "pywintypes.lib: lnkfix vs llvm-nm --print-armap"
    );
}

/// The libraries a PDB's module list names, as llvm-pdbutil prints them.
fn pdbutil_libraries(pdb: &Path) -> BTreeSet<String> {
    let dump = tool("llvm-pdbutil-14", &["dump", "-modules"], pdb);
    dump.lines()
        .filter_map(|l| l.trim().strip_prefix("Obj: `"))
        .filter_map(|l| l.split('`').next())
        .filter(|l| l.to_ascii_lowercase().ends_with(".lib"))
        .map(|l| {
            l.rsplit(['\\', '/'])
                .next()
                .unwrap_or(l)
                .to_ascii_lowercase()
        })
        .collect()
}

#[test]
fn debugpy_pdbs_name_the_crt_libraries_of_their_flavour() {
    let dir = real().join("debugpy/_vendored/pydevd/pydevd_attach_to_process");
    for (pdb, flavour_libraries) in [
        (
            "attach_amd64.pdb",
            ["msvcrt.lib", "ucrt.lib", "vcruntime.lib"],
        ),
        (
            "inject_dll_amd64.pdb",
            ["libcmt.lib", "libucrt.lib", "libvcruntime.lib"],
        ),
    ] {
        let path = dir.join(pdb);
        let index = build(&path);
        let ours: BTreeSet<String> = index.libraries()[0]
            .default_libs
            .iter()
            .map(|l| {
                l.rsplit(['\\', '/'])
                    .next()
                    .unwrap_or(l)
                    .to_ascii_lowercase()
            })
            .filter(|l| l.ends_with(".lib"))
            .collect();
        let theirs = pdbutil_libraries(&path);
        assert_eq!(ours, theirs, "{pdb}: lnkfix vs llvm-pdbutil");
        for library in flavour_libraries {
            assert!(ours.contains(library), "{pdb}: {library} in {ours:?}");
        }
        // Publics are attributed to the library their module came from.
        assert!(
            index.symbols().any(|s| s
                .source_library
                .as_deref()
                .is_some_and(|l| l.to_ascii_lowercase().ends_with(flavour_libraries[0]))),
            "{pdb}"
        );
    }
}
