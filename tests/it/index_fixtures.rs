//! Archives, objects, a `.def`, a DLL and a PDB built here with the LLVM 14 tools: each format the
//! index reads is read, with the member, DLL, kind and machine it should have.

use crate::common;

use std::path::Path;

use common::{index, index_fixtures};
use lnkfix::index::{
    write_explain, write_list, write_summary, FileFormat, LibrarySymbol, Machine, SymbolKind,
};
use lnkfix::output::format::Format;

fn one<'a>(found: &'a [LibrarySymbol], name: &str) -> &'a LibrarySymbol {
    assert_eq!(found.len(), 1, "{name}: {found:#?}");
    &found[0]
}

#[test]
fn static_library_definitions_comdat_aliases_defaultlib_and_bitcode() {
    let f = index_fixtures();
    let (index, warnings) = index(std::slice::from_ref(&f.static_lib), Machine::X64);
    assert!(warnings.is_empty(), "{warnings:?}");
    let rows = [
        ("helper", SymbolKind::Defined, "static.obj"),
        ("shared_counter", SymbolKind::Defined, "static.obj"),
        // COMDAT: selectany data and an inline function.
        ("picked", SymbolKind::Defined, "static.obj"),
        ("inl", SymbolKind::Defined, "static.obj"),
        // /alternatename from .drectve.
        (
            "alt_name",
            SymbolKind::Alias {
                target: "helper".into(),
            },
            "static.obj",
        ),
        // Weak external with its default.
        (
            "weak_fn",
            SymbolKind::Alias {
                target: "real_fn".into(),
            },
            "weak.obj",
        ),
        ("real_fn", SymbolKind::Defined, "weak.obj"),
    ];
    let failures: Vec<String> = rows
        .iter()
        .filter_map(|(name, kind, member)| {
            let found = index.lookup(name);
            let ok = found.len() == 1
                && &found[0].kind == kind
                && found[0].member.as_deref() == Some(*member)
                && found[0].machine == Machine::X64
                && found[0].dll.is_none();
            (!ok).then(|| format!("{name}: {found:?}"))
        })
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
    let info = &index.libraries()[0];
    assert_eq!(info.format, FileFormat::Archive);
    assert_eq!(info.members, 3);
    assert_eq!(info.default_libs, ["kernel32.lib"]);
    // The -flto member is bitcode: reported, not misread.
    assert_eq!(info.unreadable_members, 1);
    assert!(index.lookup("lto_only").is_empty());
    assert_eq!(info.machines, [Machine::X64]);
}

#[test]
fn machine_filtering_keeps_x86_out_of_x64_links() {
    let f = index_fixtures();
    let files = [
        f.x86_lib.clone(),
        f.static_lib.clone(),
        f.oldnames_lib.clone(),
    ];
    let (x64, _) = index(&files, Machine::X64);
    assert_eq!(one(x64.lookup("helper"), "helper").library, f.static_lib);
    // x86 C names carry the `_` prefix.
    assert!(x64.lookup("_helper").is_empty());
    assert_eq!(
        x64.lookup_other_machines("_helper")[0].machine,
        Machine::X86
    );
    let (x86, _) = index(&files, Machine::X86);
    assert_eq!(one(x86.lookup("_helper"), "_helper").library, f.x86_lib);
    assert!(x86.lookup("helper").is_empty());
    // Machine-0 alias objects (oldnames.lib) serve every machine.
    for index in [&x64, &x86] {
        let alias = one(index.lookup("posix_name"), "posix_name");
        assert_eq!(alias.machine, Machine::Any);
        assert_eq!(
            alias.kind,
            SymbolKind::Alias {
                target: "_posix_name".into()
            }
        );
    }
}

#[test]
fn def_file_and_the_import_library_made_from_it_agree() {
    let f = index_fixtures();
    let files = [f.import_lib.clone(), f.def.clone()];
    let (index, warnings) = index(&files, Machine::X64);
    assert!(warnings.is_empty(), "{warnings:?}");
    let rows = [
        ("__imp_hipMalloc", SymbolKind::ImportCode),
        ("hipMalloc", SymbolKind::ImportCode),
        ("__imp_hipFree", SymbolKind::ImportCode),
        ("__imp_hipGlobalData", SymbolKind::ImportData),
    ];
    for (name, kind) in rows {
        let found = index.lookup(name);
        let libraries: Vec<&Path> = found.iter().map(|s| s.library.as_path()).collect();
        assert_eq!(
            libraries,
            [f.import_lib.as_path(), f.def.as_path()],
            "{name}"
        );
        for symbol in found {
            assert_eq!(symbol.kind, kind, "{name}");
            assert_eq!(symbol.dll.as_deref(), Some("amdhip64_6.dll"), "{name}");
        }
    }
    assert!(
        index.lookup("hipGlobalData").is_empty(),
        "data has no thunk"
    );
    assert_eq!(index.libraries()[1].format, FileFormat::Def);
}

#[test]
fn dll_export_table_with_forwarder() {
    let f = index_fixtures();
    let (index, warnings) = index(std::slice::from_ref(&f.dll), Machine::X64);
    assert!(warnings.is_empty(), "{warnings:?}");
    let malloc = one(index.lookup("hipMalloc"), "hipMalloc");
    assert_eq!(malloc.kind, SymbolKind::Export);
    assert_eq!(malloc.dll.as_deref(), Some("amdhip64_6.dll"));
    assert_eq!(malloc.machine, Machine::X64);
    assert_eq!(malloc.forwarder, None);
    let sleep = one(index.lookup("hipSleep"), "hipSleep");
    assert_eq!(sleep.forwarder.as_deref(), Some("kernel32.Sleep"));
    // A reference to the import finds the DLL export through `providers`.
    let providers = index.providers("__imp_hipMalloc");
    assert_eq!(providers.len(), 1);
    assert_eq!(index.libraries()[0].format, FileFormat::Dll);
}

#[test]
fn pdb_publics_and_modules_match_llvm_pdbutil() {
    let f = index_fixtures();
    let dump = f.pdb_modules();
    let (index, warnings) = index(std::slice::from_ref(&f.pdb), Machine::X64);
    assert!(warnings.is_empty(), "{warnings:?}");
    let info = &index.libraries()[0];
    assert_eq!(info.format, FileFormat::Pdb);
    // Every module llvm-pdbutil lists is counted.
    assert_eq!(info.members, dump.matches("Mod 00").count(), "{dump}");
    assert!(dump.contains("Import:amdhip64_6.dll"), "{dump}");
    assert_eq!(info.dlls, ["amdhip64_6.dll"]);
    // The PDB names the libraries by the paths lld-link was given.
    let static_lib = f.recorded(&f.static_lib);
    let static_lib = static_lib.as_str();
    assert!(dump.contains(static_lib), "{dump}");
    assert_eq!(info.default_libs, [static_lib, &f.recorded(&f.import_lib)]);
    let helper = one(index.lookup("helper"), "helper");
    assert_eq!(helper.kind, SymbolKind::PdbPublic);
    assert_eq!(helper.member.as_deref(), Some("static.obj"));
    assert_eq!(helper.source_library.as_deref(), Some(static_lib));
    assert_eq!(helper.machine, Machine::X64);
    let main = one(index.lookup("mainCRTStartup"), "mainCRTStartup");
    assert!(main
        .member
        .as_deref()
        .is_some_and(|m| m.ends_with("main.obj")));
    // lld-link attributes import thunks to its `* Linker *` module.
    assert_eq!(index.lookup("__imp_hipMalloc").len(), 1);
}

#[test]
fn standalone_object() {
    let f = index_fixtures();
    let (index, warnings) = index(std::slice::from_ref(&f.object), Machine::X64);
    assert!(warnings.is_empty(), "{warnings:?}");
    let main = one(index.lookup("mainCRTStartup"), "mainCRTStartup");
    assert_eq!(main.kind, SymbolKind::Defined);
    assert_eq!(main.member.as_deref(), Some("main.obj"));
    assert_eq!(index.libraries()[0].format, FileFormat::Object);
    // References are not definitions.
    assert!(index.lookup("helper").is_empty());
}

#[test]
fn rendering_summary_list_and_explain() {
    let f = index_fixtures();
    let files = [
        f.static_lib.clone(),
        f.import_lib.clone(),
        f.x86_lib.clone(),
    ];
    let (index, warnings) = index(&files, Machine::X64);
    let mut text = Vec::new();
    write_summary(&index, &warnings, &mut text, Format::Text).expect("write");
    let text = String::from_utf8(text).expect("utf-8");
    assert!(text.contains("defaultlib kernel32.lib"), "{text}");
    assert!(text.contains("1 members with unreadable symbols"), "{text}");
    assert!(text.contains("3 files,"), "{text}");
    let mut json = Vec::new();
    write_summary(&index, &warnings, &mut json, Format::Json).expect("write");
    let json: serde_json::Value = serde_json::from_slice(&json).expect("valid json");
    assert_eq!(json["files"], 3);
    assert_eq!(json["libraries"][0]["default_libs"][0], "kernel32.lib");

    let mut list = Vec::new();
    write_list(&index, &mut list, Format::Text).expect("write");
    let list = String::from_utf8(list).expect("utf-8");
    assert!(list.lines().any(|l| l.starts_with("__imp_hipMalloc\t")
        && l.contains("-> amdhip64_6.dll [import (code), x64]")));
    let mut list = Vec::new();
    write_list(&index, &mut list, Format::Json).expect("write");
    let list: serde_json::Value = serde_json::from_slice(&list).expect("valid json");
    let alias = list["symbols"]
        .as_array()
        .expect("array")
        .iter()
        .find(|s| s["name"] == "weak_fn")
        .expect("weak_fn listed");
    assert_eq!(alias["kind"], "alias");
    assert_eq!(alias["target"], "real_fn");
    assert_eq!(alias["machine"], "x64");

    let mut explain = Vec::new();
    write_explain(
        &index,
        "_helper",
        Some("helper"),
        &mut explain,
        Format::Text,
    )
    .expect("write");
    let explain = String::from_utf8(explain).expect("utf-8");
    assert!(explain.contains("demangled: helper"), "{explain}");
    assert!(explain.contains("no provider for x64"), "{explain}");
    assert!(
        explain.contains("other machine:") && explain.contains("x86]"),
        "{explain}"
    );
    let mut explain = Vec::new();
    write_explain(&index, "__imp_hipFree", None, &mut explain, Format::Json).expect("write");
    let explain: serde_json::Value = serde_json::from_slice(&explain).expect("valid json");
    assert_eq!(explain["providers"][0]["dll"], "amdhip64_6.dll");
    assert_eq!(explain["providers"][0]["kind"], "import_code");
}
