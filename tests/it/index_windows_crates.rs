//! The real import libraries Microsoft made for the Windows API (the `windows_*` crates): every
//! archive flavour (MSVC with two linker members, LLVM with one, GNU dlltool long-form objects,
//! x86 decorated names) gives the right DLL for well-known functions, and every provider of a
//! function listed under several DLLs.

use crate::common;

use common::{dlls, index, windows_lib};
use lnkfix::index::{FileFormat, Machine, SymbolKind};

/// (linker name on x64, DLL) pairs the issue names.
const KNOWN: &[(&str, &str)] = &[
    ("__imp_CreateFileW", "kernel32.dll"),
    ("__imp_RegOpenKeyExW", "advapi32.dll"),
    ("__imp_MessageBoxW", "user32.dll"),
    ("__imp_SHGetFolderPathW", "shell32.dll"),
    ("CreateFileW", "kernel32.dll"),
];

fn check_x64(package: &str, member_is_dll: bool) {
    let lib = windows_lib(package);
    let (index, warnings) = index(std::slice::from_ref(&lib), Machine::X64);
    assert!(warnings.is_empty(), "{package}: {warnings:?}");
    let failures: Vec<String> = KNOWN
        .iter()
        .filter(|(name, dll)| dlls(&index, name) != [dll.to_string()])
        .map(|(name, dll)| format!("{name}: want {dll}, got {:?}", dlls(&index, name)))
        .collect();
    assert!(failures.is_empty(), "{package}: {failures:#?}");
    // The umbrella library lists GetDeviceID under both dsound.dll and tbs.dll: keep both.
    let mut both = dlls(&index, "__imp_GetDeviceID");
    both.sort();
    assert_eq!(both, ["dsound.dll", "tbs.dll"], "{package}");
    let create = &index.lookup("__imp_CreateFileW")[0];
    assert_eq!(create.kind, SymbolKind::ImportCode);
    assert_eq!(create.machine, Machine::X64);
    assert_eq!(create.library, lib);
    assert_eq!(create.export_name.as_deref(), Some("CreateFileW"));
    if member_is_dll {
        assert_eq!(create.member.as_deref(), Some("kernel32.dll"));
    } else {
        // dlltool names members after the DLL and a sequence number.
        assert!(
            create
                .member
                .as_deref()
                .is_some_and(|m| m.starts_with("kernel32_dll_s")),
            "{:?}",
            create.member
        );
    }
    // Every name the index lists is found again by lookup (the hash table is consistent), and
    // the groups cover every symbol.
    let mut total = 0;
    for name in index.names() {
        let found = index.lookup(name);
        assert!(found.iter().all(|s| s.name == name), "{name}");
        total += found.len();
    }
    assert_eq!(total, index.libraries()[0].symbols, "{package}");
    let info = &index.libraries()[0];
    assert_eq!(info.format, FileFormat::Archive);
    assert_eq!(info.machines, [Machine::X64], "{package}");
    assert!(
        info.import_members > 20_000,
        "{package}: {}",
        info.import_members
    );
    assert!(info.dlls.len() > 300, "{package}: {}", info.dlls.len());
    assert_eq!(info.unreadable_members, 0);
}

#[test]
fn msvc_import_library_two_linker_members() {
    check_x64("windows_x86_64_msvc", true);
}

#[test]
fn gnu_long_form_dlltool_objects() {
    check_x64("windows_x86_64_gnu", false);
}

#[test]
fn gnullvm_short_import_members_one_linker_member() {
    check_x64("windows_x86_64_gnullvm", true);
}

#[test]
fn i686_decorated_stdcall_names() {
    let lib = windows_lib("windows_i686_msvc");
    let (index, warnings) = index(std::slice::from_ref(&lib), Machine::X86);
    assert!(warnings.is_empty(), "{warnings:?}");
    let rows = [
        ("__imp__CreateFileW@28", "kernel32.dll", "CreateFileW"),
        ("__imp__RegOpenKeyExW@20", "advapi32.dll", "RegOpenKeyExW"),
        ("__imp__MessageBoxW@16", "user32.dll", "MessageBoxW"),
        (
            "__imp__SHGetFolderPathW@20",
            "shell32.dll",
            "SHGetFolderPathW",
        ),
        ("_CreateFileW@28", "kernel32.dll", "CreateFileW"),
    ];
    let failures: Vec<String> = rows
        .iter()
        .filter(|(name, dll, export)| {
            let found = index.lookup(name);
            found.len() != 1
                || found[0].dll.as_deref() != Some(*dll)
                || found[0].export_name.as_deref() != Some(*export)
        })
        .map(|(name, ..)| format!("{name}: {:?}", index.lookup(name)))
        .collect();
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(index.libraries()[0].machines, [Machine::X86]);
    // An x64 link is never offered the x86 library, but the index still knows it exists.
    let (x64, _) = common::index(&[lib], Machine::X64);
    assert!(x64.lookup("__imp__CreateFileW@28").is_empty());
    assert_eq!(x64.lookup_other_machines("__imp__CreateFileW@28").len(), 1);
}

#[test]
fn search_order_is_file_order() {
    let msvc = windows_lib("windows_x86_64_msvc");
    let gnu = windows_lib("windows_x86_64_gnu");
    let (index, _) = index(&[gnu.clone(), msvc.clone()], Machine::X64);
    let libraries: Vec<_> = index
        .lookup("__imp_CreateFileW")
        .iter()
        .map(|s| s.library.clone())
        .collect();
    assert_eq!(libraries, [gnu, msvc]);
}
