//! Entry points (`main`, `WinMain`, `DllMain`, ...): names the CRT's startup code or the linker
//! asks for, which no library provides; their answer says what the subsystem or entry point needs.

use super::ResolvedSymbol;
use crate::read::symbols::UnresolvedSymbol;
use crate::resolve::providers;

/// Entry-point names the CRT's startup objects call: never a missing library.
pub const ENTRY_POINTS: &[&str] = &["main", "wmain", "WinMain", "wWinMain", "DllMain"];

/// Whether an unresolved symbol is a program's entry point: one of [`ENTRY_POINTS`] that the
/// linker asks for (`<root>`) or that the CRT's startup code references (`exe_main.obj`,
/// `exe_winmain.obj`, `dll_dllmain.obj`, `invoke_main`, `__scrt_common_main_seh`).
pub fn is_entry_point(symbol: &UnresolvedSymbol) -> bool {
    // The CRT's own entry points (`_DllMainCRTStartup`, `mainCRTStartup`) asked for by the
    // linker are CRT symbols like any other: the chain provides them.
    let name = symbol.lookup_name();
    // An x86 log whose names were not undecorated shows `_main` (the `__cdecl` underscore): it
    // counts only when the startup code asks for it.
    let decorated = !ENTRY_POINTS.contains(&name);
    if decorated
        && !name
            .strip_prefix('_')
            .is_some_and(|n| ENTRY_POINTS.contains(&n))
    {
        return false;
    }
    // Asked for by the linker, or reported with no reference at all (nothing but the startup
    // code calls an entry point).
    if !decorated && (symbol.entry_point || symbol.references.is_empty()) {
        return true;
    }
    let startup_object = |object: &str| {
        let lower = object.to_ascii_lowercase();
        let member = lower.rsplit(['\\', '/', '(']).next().unwrap_or(&lower);
        member.starts_with("exe_") || member.starts_with("dll_dllmain")
    };
    let startup_function = |function: &str| {
        [
            "invoke_main",
            "__scrt_common_main",
            "dllmain_dispatch",
            "DllMainCRTStartup",
            "WinMainCRTStartup",
            "mainCRTStartup",
        ]
        .iter()
        .any(|f| function.contains(f))
    };
    symbol.references.iter().any(|r| {
        r.object.as_deref().is_some_and(startup_object)
            || r.function.as_deref().is_some_and(startup_function)
    })
}

/// An entry point's name without the x86 `__cdecl` underscore (`_main` → `main`).
pub fn entry_point_name(name: &str) -> &str {
    match name.strip_prefix('_') {
        Some(rest) if ENTRY_POINTS.contains(&rest) => rest,
        _ => name,
    }
}

/// The entry-point answer: what asked for the name, why, and the fix.
pub(super) fn entry_point_answer(
    symbol: UnresolvedSymbol,
    near_misses: Vec<providers::NearMiss>,
) -> ResolvedSymbol {
    let name = entry_point_name(symbol.lookup_name());
    let note = match name {
        "WinMain" | "wWinMain" => format!(
            "{name} is the entry point of a /SUBSYSTEM:WINDOWS program: the CRT's startup code calls it because the link targets the Windows subsystem. A program that defines main (a console program) links with /SUBSYSTEM:CONSOLE; a GUI program defines {name}. No library provides it"
        ),
        "main" | "wmain" => format!(
            "{name} is the entry point of a console program: the CRT's startup code calls it and the objects define none. A DLL links with /DLL; a GUI program that defines WinMain links with /SUBSYSTEM:WINDOWS; a program that defines wmain instead links with /ENTRY:wmainCRTStartup. No library provides it"
        ),
        "DllMain" => "DllMain is the entry point of a DLL: the CRT's DLL startup calls it. Define it (extern \"C\" BOOL WINAPI DllMain(...)), or let the CRT supply its default by linking the CRT chain normally. No library provides it".to_string(),
        other => format!(
            "{other} is the entry point the linker was asked to use (/ENTRY or the subsystem's default) and no object defines it: check /ENTRY, /SUBSYSTEM and /DLL against what the objects define"
        ),
    };
    ResolvedSymbol {
        symbol,
        family: "entry-point".into(),
        library: None,
        library_path: None,
        provider: None,
        source: Some("entry point".into()),
        dll: None,
        member: None,
        matched_name: None,
        match_note: super::some_text(note),
        alternatives: Vec::new(),
        near_misses,
        index_differs: None,
        not_found_on_disk: false,
        library_source: None,
        rare: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{failure, with_index};
    use crate::index::{LibrarySymbol, Machine, SymbolKind};
    use crate::resolve::{diagnose, DiagnoseOptions, VerdictKind};
    use crate::rules::RuleBook;
    use std::path::Path;

    #[test]
    fn entry_points_get_no_library() {
        let log = "MSVCRT.lib(exe_winmain.obj) : error LNK2019: unresolved external symbol WinMain referenced in function \"int __cdecl __scrt_common_main_seh(void)\" (?__scrt_common_main_seh@@YAHXZ)\n";
        let vccorlib = LibrarySymbol::new(
            "WinMain".into(),
            Path::new("vccorlib.lib"),
            SymbolKind::Defined,
            Machine::X64,
        );
        let d = with_index(log, vec![vccorlib], Path::new("."));
        let s = &d.symbols[0];
        assert_eq!(s.family, "entry-point");
        assert!(s.library.is_none(), "{:?}", s.library);
        assert!(s
            .match_note
            .as_deref()
            .unwrap()
            .contains("/SUBSYSTEM:CONSOLE"));
        assert_eq!(d.verdict.kind, VerdictKind::EntryPoint);
        assert!(d.link_flags.is_empty(), "{:?}", d.link_flags);
        // The CRT's own entry point asked for by the linker is a CRT name like any other.
        let d = diagnose(
            failure("lld-link: error: <root>: undefined symbol: _DllMainCRTStartup\n"),
            &RuleBook::builtin(),
            &DiagnoseOptions::default(),
        );
        assert_eq!(d.symbols[0].family, "crt-startup");
    }
}
