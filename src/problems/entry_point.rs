//! Entry-point and subsystem mismatches (docs/RULES.md §6, §20): LNK1561 (`entry point must be
//! defined`), lld-link's `entry point must be defined` and `subsystem must be defined`, and the
//! entry points the CRT's startup code asks for (`main` from `exe_main.obj`, `WinMain` from
//! `exe_winmain.obj`), which the resolver gives family `entry-point`. No library is missing: the
//! subsystem does not match the function the program defines, or no entry point is linked.

use super::{join_words, Problem, ProblemKind, Scan};

/// The entry-point problems of the diagnosis.
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let symbols: Vec<&crate::resolve::ResolvedSymbol> = scan
        .diagnosis
        .symbols
        .iter()
        .filter(|s| s.family == "entry-point" && s.explained_by().is_none())
        .collect();
    let mut records = scan.unclaimed(&["LNK1561"]);
    records.extend(scan.unclaimed_lld("entry point must be defined"));
    records.extend(scan.unclaimed_lld("subsystem must be defined"));
    if symbols.is_empty() && records.is_empty() {
        return Vec::new();
    }
    let names: Vec<String> = symbols
        .iter()
        .map(|s| entry_name(s.symbol.lookup_name()))
        .collect();
    let (summary, cause, fix) = if let Some(name) = names.first() {
        match name.as_str() {
            "WinMain" | "wWinMain" => (
                format!("the startup code of a Windows-subsystem program calls {name}, which the program does not define"),
                format!("the link targets /SUBSYSTEM:WINDOWS, whose startup code (exe_winmain.obj) calls {name}; a program that defines main is a console program"),
                "link with /SUBSYSTEM:CONSOLE (CMake: no WIN32 in add_executable; Visual Studio: Linker > System > SubSystem: Console); to keep the Windows subsystem with main, add /ENTRY:mainCRTStartup instead".to_string(),
            ),
            "main" | "wmain" => (
                format!("the startup code of a console program calls {name}, which the program does not define"),
                format!("the link targets /SUBSYSTEM:CONSOLE, whose startup code (exe_main.obj) calls {name}; a program that defines WinMain or wWinMain is a Windows-subsystem program"),
                format!("link with /SUBSYSTEM:WINDOWS (CMake: add_executable(... WIN32 ...); Visual Studio: Linker > System > SubSystem: Windows); a program that defines {} links with /ENTRY:{}CRTStartup", if name == "wmain" { "main" } else { "wmain" }, if name == "wmain" { "main" } else { "wmain" }),
            ),
            "DllMain" => (
                "the startup code of a DLL calls DllMain, which no object defines".into(),
                "the CRT brings a default DllMain; an unresolved one means it is declared but not defined with C linkage, or the default libraries are not linked".into(),
                "define DllMain as extern \"C\" BOOL WINAPI DllMain(HINSTANCE, DWORD, LPVOID), or drop the declaration and let the CRT's default serve".into(),
            ),
            _ => (
                format!("the linker asks for the entry point {name}, which no object defines"),
                format!("/ENTRY names {name}, or the subsystem implies it"),
                format!("define {name}, or give the entry point the program has with /ENTRY:"),
            ),
        }
    } else {
        (
            "no entry point: the linker found neither the subsystem nor the entry point".into(),
            "the linker infers the subsystem and the entry point from the function the objects define (main, wmain, WinMain, wWinMain, DllMain); it found none of them in the link".into(),
            "give the subsystem (/SUBSYSTEM:CONSOLE for a program with main, /SUBSYSTEM:WINDOWS with WinMain), or link a DLL with /DLL; and check that the object that defines main is in the link with C linkage".into(),
        )
    };
    let mut problem = Problem::new(ProblemKind::EntryPoint, summary, cause, fix);
    for (i, f) in records {
        problem.line(f.line);
        scan.claim(i);
    }
    for s in &symbols {
        problem.line(s.symbol.first_line);
        problem.subject(s.symbol.name().to_string());
    }
    for s in &symbols {
        for r in &s.symbol.references {
            if let Some(o) = &r.object {
                problem.subject(o.to_string());
            }
            if let Some(f) = &r.function {
                problem.subject(f.to_string());
            }
            if let Some(f) = &r.function_name {
                problem.subject(f.to_string());
            }
        }
    }
    if let Some(output) = scan.output() {
        problem.subject(output);
    }
    if names.len() > 1 {
        problem
            .notes
            .push(format!("entry points asked for: {}", join_words(&names)));
    }
    vec![problem]
}

/// The entry point's own name, x86 decoration undone (`_main` → `main`).
fn entry_name(name: &str) -> String {
    let name = name
        .strip_prefix('_')
        .filter(|n| crate::resolve::ENTRY_POINTS.contains(n))
        .unwrap_or(name);
    name.to_string()
}
