//! The linker warnings that decide something without /WX (docs/RULES.md §20, "Warnings"):
//!
//! - LNK4217, LNK4286, LNK4049 and lld-link's `locally defined symbol imported` (a name declared
//!   `__declspec(dllimport)` that the link defines statically): beside unresolved `__imp_` names
//!   of the same library they are why the link failed (a problem of kind `dllimport-mismatch`:
//!   the library's static-linking define); else a warning with that fix (or, when the definer is
//!   the static C runtime, one runtime option for every object);
//! - LNK4044 (an option the linker ignored): when it is a misspelt `/LIBPATH:` and a library
//!   cannot be opened, it is the cause of that problem; else a warning;
//! - LNK4099 (a library's PDB not found): a warning, harmless unless /WX.
//!
//! A warning that /WX made fatal is named by LNK1218's problem ([`super::fatal`]) and not
//! repeated; a warning a problem cites is not repeated either.

use super::{count, join_words, some_of, Problem, ProblemKind, Scan};
use crate::read::linklog::Finding;
use crate::rules::roles::{LibraryRole, Roles};

/// A name defined in the link and imported all the same, as one warning shows it.
struct LocalImport {
    /// The name (`png_free`, `?f@C@@QEAAXXZ`).
    symbol: String,
    /// Where it is defined (`libpng16_static.lib(png.obj)`), when the warning says.
    definer: Option<String>,
    /// The object that imports it.
    importer: Option<String>,
    /// The warning's code (`LNK4217`; lld-link's is read from its text).
    code: &'static str,
    line: u64,
}

/// The text between the first `'` after `after` and the next `'`.
fn quoted_after(text: &str, after: &str) -> Option<String> {
    let rest = &text[text.find(after)? + after.len()..];
    let rest = rest.trim_start().strip_prefix('\'')?;
    Some(rest[..rest.find('\'')?].to_string())
}

/// The local import a finding shows: link.exe's newer form (`symbol 'S' defined in 'D' is
/// imported by 'I'`), its older one (`locally defined symbol S imported`, the importer as the
/// record's object) and lld-link's (`I: locally defined symbol imported: S (defined in D)`).
fn local_import(f: &Finding) -> Option<LocalImport> {
    let text = f.text.as_str();
    let record_object = || f.objects.first().filter(|o| o.as_str() != "LINK").cloned();
    if f.code.starts_with("lld-link") {
        let (importer, rest) = text.split_once(": locally defined symbol imported: ")?;
        let (symbol, definer) = match rest.split_once(" (defined in ") {
            Some((symbol, definer)) => {
                (symbol, definer.rsplit_once(')').map(|(d, _)| d.to_string()))
            }
            None => (rest.split(" [").next().unwrap_or(rest), None),
        };
        return Some(LocalImport {
            symbol: symbol.trim().to_string(),
            definer,
            importer: Some(importer.trim().to_string()),
            code: if text.contains("LNK4286") {
                "LNK4286"
            } else {
                "LNK4217"
            },
            line: f.line,
        });
    }
    let code = match f.code.as_str() {
        "LNK4217" => "LNK4217",
        "LNK4286" => "LNK4286",
        "LNK4049" => "LNK4049",
        _ => return None,
    };
    if let Some(symbol) = quoted_after(text, "symbol") {
        // The symbol may carry its demangled form in parentheses: the decorated name is first.
        let symbol = symbol.split(" (").next().unwrap_or(&symbol).to_string();
        return Some(LocalImport {
            symbol,
            definer: quoted_after(text, "defined in"),
            importer: quoted_after(text, "imported by").or_else(record_object),
            code,
            line: f.line,
        });
    }
    let rest = text.split_once("locally defined symbol ")?.1;
    let symbol = rest.split_whitespace().next()?.to_string();
    Some(LocalImport {
        symbol,
        definer: None,
        importer: record_object(),
        code,
        line: f.line,
    })
}

/// The library of `lib(member)` or a library path.
fn library_of(definer: &str) -> Option<&str> {
    let library = definer.split_once('(').map_or(definer, |(l, _)| l).trim();
    library
        .to_ascii_lowercase()
        .ends_with(".lib")
        .then_some(library)
}

/// Whether a library is the C runtime's or another Visual C++/SDK library.
fn is_runtime_library(library: &str) -> bool {
    let name = library.rsplit(['\\', '/']).next().unwrap_or(library);
    let role = Roles::builtin().role_of(name);
    role.explicit && role.role != LibraryRole::ThirdParty
}

/// The name a library's own defines are likely spelt with: `libpng16_static.lib` → `PNG`.
fn define_stem(library: &str) -> String {
    let name = library.rsplit(['\\', '/']).next().unwrap_or(library);
    let mut stem = name
        .rsplit_once('.')
        .map_or(name, |(s, _)| s)
        .to_ascii_lowercase();
    for suffix in ["_static", "-static", "static", "_s", "-s", "_lib", "-lib"] {
        if let Some(s) = stem.strip_suffix(suffix).filter(|s| !s.is_empty()) {
            stem = s.to_string();
        }
    }
    if stem.len() > 4 && stem.starts_with("lib") {
        stem = stem[3..].to_string();
    }
    let stem = stem.trim_end_matches(|c: char| c.is_ascii_digit() || c == '_' || c == '-');
    stem.replace('-', "_").to_ascii_uppercase()
}

/// The prefix a library's C or C++ names share: `png_create` → `png`, `glfwInit` → `glfw`,
/// `TIFFOpen` → `TIFF`, `?f@Codec@@...` → `Codec`.
fn name_family(name: &str) -> Option<String> {
    let name = name.trim_start_matches("__imp_").trim_start_matches('_');
    if let Some(rest) = name.strip_prefix('?') {
        let scope = rest.split("@@").next()?.split('@').nth(1)?;
        return (scope.len() >= 2).then(|| scope.to_string());
    }
    let chars: Vec<char> = name.chars().collect();
    let mut end = chars.len();
    for i in 1..chars.len() {
        let (before, c) = (chars[i - 1], chars[i]);
        if c == '_' || (before.is_ascii_lowercase() && c.is_ascii_uppercase()) {
            end = i;
            break;
        }
        if before.is_ascii_uppercase() && c.is_ascii_lowercase() && i >= 2 {
            end = i - 1;
            break;
        }
    }
    let family: String = chars[..end].iter().collect();
    (family.len() >= 2 && family.len() < name.len()).then_some(family)
}

/// The local imports of the findings no problem claimed, with their indices.
fn unclaimed_imports(scan: &Scan<'_>) -> Vec<(usize, LocalImport)> {
    scan.diagnosis
        .findings
        .iter()
        .enumerate()
        .filter(|(i, _)| !scan.claimed[*i])
        .filter_map(|(i, f)| local_import(f).map(|l| (i, l)))
        .collect()
}

/// The dllimport mismatch behind unresolved `__imp_` names: a library's functions declared
/// `__declspec(dllimport)` while its static library is linked. The names it explains are
/// recorded in `scan.explained`, so that the unresolved-symbols problem leaves them out.
/// Long because the problem's sentences name every side (library, importers, names, define).
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let imports: Vec<(usize, LocalImport)> = unclaimed_imports(scan)
        .into_iter()
        .filter(|(_, l)| {
            !l.definer
                .as_deref()
                .and_then(library_of)
                .is_some_and(is_runtime_library)
        })
        .collect();
    if imports.is_empty() {
        return Vec::new();
    }
    let families: Vec<String> = imports
        .iter()
        .filter_map(|(_, l)| name_family(&l.symbol))
        .collect();
    let unresolved: Vec<&crate::resolve::ResolvedSymbol> = scan
        .diagnosis
        .symbols
        .iter()
        .filter(|s| s.symbol.import && s.explained_by().is_none())
        .filter(|s| {
            name_family(s.symbol.lookup_name()).is_some_and(|family| families.contains(&family))
        })
        .collect();
    if unresolved.is_empty() {
        return Vec::new();
    }
    let mut libraries: Vec<String> = Vec::new();
    let mut importers: Vec<String> = Vec::new();
    for (_, l) in &imports {
        if let Some(library) = l.definer.as_deref().and_then(library_of) {
            if !libraries.iter().any(|x| x == library) {
                libraries.push(library.to_string());
            }
        }
        if let Some(importer) = &l.importer {
            if !importers.contains(importer) {
                importers.push(importer.clone());
            }
        }
    }
    let library = if libraries.is_empty() {
        "the static library".to_string()
    } else {
        join_words(&libraries)
    };
    let who = if importers.is_empty() {
        "the objects that use it".to_string()
    } else {
        some_of(&importers, 3)
    };
    let names: Vec<String> = unresolved
        .iter()
        .map(|s| s.symbol.name().to_string())
        .collect();
    let local: Vec<String> = imports.iter().map(|(_, l)| l.symbol.clone()).collect();
    let first = &imports[0].1;
    let defines = libraries
        .first()
        .map(|l| define_stem(l))
        .filter(|s| s.len() >= 2)
        .map(|s| {
            format!(
                " (for {}: likely {s}_STATIC defined, or {s}_DLL / {s}_SHARED left undefined)",
                libraries[0]
            )
        })
        .unwrap_or_default();
    let mut problem = Problem::new(
        ProblemKind::DllimportMismatch,
        format!("{who} {} {library} as a DLL, but the link has it as a static library", if importers.len() == 1 { "uses" } else { "use" }),
        format!(
            "{who} {} compiled with {library}'s functions declared __declspec(dllimport), as its DLL build wants, while the link takes the static library: what it already defined links with a warning (line {}: {} defined in {} is imported), and the rest stay unresolved under their import names ({}), which only a DLL's import library defines",
            if importers.len() == 1 { "was" } else { "were" },
            first.line,
            first.symbol,
            first.definer.as_deref().unwrap_or("the link"),
            some_of(&names, 3)
        ),
        format!(
            "compile {who} with {library}'s static-linking define, the macro its header tests before __declspec(dllimport){defines}; or link the DLL's import library instead of {library}"
        ),
    );
    for (i, l) in &imports {
        scan.claim(*i);
        problem.line(l.line);
    }
    for s in &unresolved {
        problem.line(s.symbol.first_line);
    }
    problem.subjects_from(libraries);
    problem.subjects_from(importers);
    problem.subjects_from(local);
    problem.subjects_from(names.clone());
    scan.explained.extend(names);
    vec![problem]
}

/// Whether `a` is within two edits of `b` (ASCII case-insensitive).
fn near(a: &str, b: &str) -> bool {
    let (a, b): (Vec<u8>, Vec<u8>) = (
        a.to_ascii_lowercase().into_bytes(),
        b.to_ascii_lowercase().into_bytes(),
    );
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut previous = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (previous + usize::from(ca != cb))
                .min(row[j] + 1)
                .min(here + 1);
            previous = here;
        }
    }
    row[b.len()] <= 2
}

/// The linker options a misspelling is compared with.
const OPTIONS: &[&str] = &[
    "LIBPATH",
    "DEFAULTLIB",
    "NODEFAULTLIB",
    "SUBSYSTEM",
    "MACHINE",
    "ENTRY",
    "IMPLIB",
    "DELAYLOAD",
    "INCREMENTAL",
    "MANIFEST",
    "MANIFESTINPUT",
    "LARGEADDRESSAWARE",
    "DYNAMICBASE",
    "NXCOMPAT",
    "INCLUDE",
    "EXPORT",
    "IGNORE",
    "DEBUG",
    "VERBOSE",
    "STACK",
    "NOLOGO",
    "RELEASE",
    "VERSION",
    "WHOLEARCHIVE",
];

/// What an option LNK4044 ignored is: (the option, the linker option it misspells, or `None`
/// for a compiler option), when it is either.
fn ignored_option(f: &Finding) -> Option<(String, Option<&'static str>)> {
    let option = f
        .values
        .first()
        .cloned()
        .or_else(|| quoted_after(&f.text, "option"))?;
    let bare = option.trim_start_matches(['/', '-']);
    let name = bare.split(':').next().unwrap_or(bare);
    if name.len() > 7 && name[..7].eq_ignore_ascii_case("LIBPATH") {
        return Some((option, Some("LIBPATH")));
    }
    if name.len() >= 4 {
        if let Some(known) = OPTIONS
            .iter()
            .find(|o| !o.eq_ignore_ascii_case(name) && near(name, o))
        {
            return Some((option, Some(known)));
        }
    }
    let compiler = [
        "O1",
        "O2",
        "Ox",
        "Od",
        "EH",
        "Zi",
        "Z7",
        "W3",
        "W4",
        "MD",
        "MT",
        "std:",
        "D",
        "I",
        "GL",
        "arch:",
        "utf-8",
        "fp:",
        "permissive",
    ]
    .iter()
    .any(|c| {
        bare.starts_with(c) && (bare.len() <= 6 || bare.contains(':') || *c == "D" || *c == "I")
    });
    compiler.then_some((option, None))
}

/// A cannot-open problem for a library whose directory a misspelt `/LIBPATH:` (LNK4044) named:
/// that option is the cause.
pub(super) fn misspelt_libpath(scan: &mut Scan<'_>, problems: &mut [Problem]) {
    for (i, f) in scan.unclaimed(&["LNK4044"]) {
        let Some((option, Some("LIBPATH"))) = ignored_option(f) else {
            continue;
        };
        let bare = option.trim_start_matches(['/', '-']);
        // `/LIBPATHC:\deps` lost its colon: the directory starts after the name.
        let dir = match bare.get(..7) {
            Some(head)
                if head.eq_ignore_ascii_case("LIBPATH")
                    && bare.as_bytes().get(7) != Some(&b':') =>
            {
                &bare[7..]
            }
            _ => option.split_once(':').map_or("", |(_, d)| d),
        }
        .trim_matches('"');
        let Some(problem) = problems.iter_mut().find(|p| {
            p.kind == ProblemKind::CannotOpen
                && p.subjects
                    .iter()
                    .any(|s| s.to_ascii_lowercase().ends_with(".lib"))
        }) else {
            continue;
        };
        let library = problem
            .subjects
            .iter()
            .find(|s| s.to_ascii_lowercase().ends_with(".lib"))
            .cloned()
            .unwrap_or_default();
        problem.summary = format!(
            "cannot open {library}: the option that names its directory is misspelt ({option})"
        );
        problem.cause = format!(
            "link.exe ignored {option} (line {}, LNK4044: not a linker option, a misspelt /LIBPATH:), so {} was never searched for {library}",
            f.line,
            if dir.is_empty() { "that directory" } else { dir }
        );
        problem.fix = format!("write the option as /LIBPATH:{dir}");
        problem.line(f.line);
        problem.subject(option);
        scan.claim(i);
    }
}

/// The warnings of the findings no problem explains, each with its fix: local imports, ignored
/// options, missing PDBs. They do not make the link failed. Long because it is one short block
/// per warning code, each writing its own sentence.
pub(super) fn notes(scan: &Scan<'_>, problems: &[Problem]) -> Vec<String> {
    let cited = |line: u64| problems.iter().any(|p| p.lines.contains(&line));
    let findings: Vec<&Finding> = scan
        .diagnosis
        .findings
        .iter()
        .enumerate()
        .filter(|(i, f)| !scan.claimed[*i] && !cited(f.line))
        .map(|(_, f)| f)
        .collect();
    let mut out = Vec::new();
    let imports: Vec<LocalImport> = findings.iter().filter_map(|f| local_import(f)).collect();
    let (runtime, other): (Vec<&LocalImport>, Vec<&LocalImport>) = imports.iter().partition(|l| {
        l.definer
            .as_deref()
            .and_then(library_of)
            .is_some_and(is_runtime_library)
    });
    if let Some(first) = runtime.first() {
        let importers = distinct(runtime.iter().filter_map(|l| l.importer.clone()));
        let symbols = distinct(runtime.iter().map(|l| l.symbol.clone()));
        out.push(format!(
            "{} ({}): C runtime functions ({}) are linked from the static runtime {} but imported by {}, which {} compiled for the DLL runtime: two runtimes in one image; fix: build every object and library with one runtime option (/MD, or /MT)",
            codes(&runtime),
            lines_of(runtime.iter().map(|l| l.line)),
            some_of(&symbols, 3),
            first.definer.as_deref().and_then(library_of).unwrap_or("library"),
            some_of(&importers, 3),
            if importers.len() == 1 { "was" } else { "were" },
        ));
    }
    // One warning per defining library (the ones the warning does not name together).
    let mut groups: Vec<(Option<String>, Vec<&LocalImport>)> = Vec::new();
    for l in other {
        let library = l
            .definer
            .as_deref()
            .and_then(library_of)
            .map(str::to_string);
        match groups.iter_mut().find(|(g, _)| *g == library) {
            Some((_, members)) => members.push(l),
            None => groups.push((library, vec![l])),
        }
    }
    for (library, group) in groups.iter().take(4) {
        let importers = distinct(group.iter().filter_map(|l| l.importer.clone()));
        let symbols = distinct(group.iter().map(|l| l.symbol.clone()));
        let definers = distinct(group.iter().filter_map(|l| l.definer.clone()));
        let who = some_of(&importers, 3);
        let head = format!(
            "{} ({}): {} {}",
            codes(group),
            lines_of(group.iter().map(|l| l.line)),
            some_of(&symbols, 3),
            if symbols.len() == 1 { "is" } else { "are" },
        );
        out.push(match library {
            Some(library) => format!(
                "{head} defined in the link ({library}) but declared __declspec(dllimport) by {who}: the link works through an extra indirection, and the headers were used as for a DLL; fix: compile {who} with {library}'s static-linking define (the macro its header tests before __declspec(dllimport))"
            ),
            None if !definers.is_empty() => format!(
                "{head} defined by {} of this link but declared __declspec(dllimport) by {who}: the header's export macro is in its import mode inside the target that defines the names; fix: compile {who} with the target's own build define (the one that turns the macro into __declspec(dllexport) or nothing, such as <TARGET>_EXPORTS, which CMake defines for a DLL's own sources)",
                join_words(&definers)
            ),
            None => format!(
                "{head} defined in the link but declared __declspec(dllimport) by {who}; fix: compile {who} with the static-linking define of the library that defines the names, or, for a C runtime name, build every object with one runtime option (/MD or /MT)"
            ),
        });
    }
    let pdbs: Vec<&&Finding> = findings.iter().filter(|f| f.code == "LNK4099").collect();
    if let Some(first) = pdbs.first() {
        let pdb = first
            .values
            .first()
            .cloned()
            .unwrap_or_else(|| "its PDB".into());
        let owner = first
            .values
            .get(1)
            .and_then(|v| library_of(v).map(str::to_string))
            .unwrap_or_else(|| "a library".into());
        out.push(format!(
            "LNK4099 ({}): the debug information {pdb} of {owner}'s objects was not found: harmless, the link goes on without it (only that code cannot be debugged), unless /WX makes it fatal; fix: put {pdb} beside {owner}, build {owner} with /Z7 (debug information in its objects), or link with /IGNORE:4099",
            lines_of(pdbs.iter().map(|f| f.line)),
        ));
    }
    for f in findings.iter().filter(|f| f.code == "LNK4044") {
        let Some((option, known)) = ignored_option(f) else {
            out.push(format!(
                "LNK4044 (line {}): the linker ignored an option it does not know ({}); fix: remove it, or pass it to the tool it belongs to",
                f.line, f.text
            ));
            continue;
        };
        out.push(match known {
            Some(known) => format!(
                "LNK4044 (line {}): the linker ignored {option}, a misspelt /{known}; fix: write it /{known}{}",
                f.line,
                option
                    .split_once(':')
                    .map_or(String::new(), |(_, v)| format!(":{v}"))
            ),
            None => format!(
                "LNK4044 (line {}): the linker ignored {option}, a compiler option given to the linker; fix: pass it to the compiler (CMake: target_compile_options or CMAKE_CXX_FLAGS, not the linker flags)",
                f.line
            ),
        });
    }
    out
}

/// The codes of some local imports, each once (`LNK4217/LNK4286`).
fn codes(imports: &[&LocalImport]) -> String {
    distinct(imports.iter().map(|l| l.code.to_string())).join("/")
}

/// Each value once, in order.
fn distinct(values: impl Iterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for v in values {
        if !out.contains(&v) {
            out.push(v);
        }
    }
    out
}

/// `line 3`, `lines 3, 5 and 9`, `lines 3, 5, ... and 40 more`.
fn lines_of(lines: impl Iterator<Item = u64>) -> String {
    let lines: Vec<String> = lines.map(|l| l.to_string()).collect();
    match lines.len() {
        1 => format!("line {}", lines[0]),
        n if n > 4 => format!(
            "lines {}, ... ({})",
            lines[..3].join(", "),
            count(n, "line")
        ),
        _ => format!("lines {}", join_words(&lines)),
    }
}

#[cfg(test)]
mod tests {
    use super::{define_stem, name_family};
    use crate::problems::diagnose_text as diagnose;
    use crate::problems::ProblemKind;

    #[test]
    fn names_and_defines_of_a_library() {
        assert_eq!(
            name_family("png_create_read_struct").as_deref(),
            Some("png")
        );
        assert_eq!(name_family("__imp_glfwInit").as_deref(), Some("glfw"));
        assert_eq!(name_family("TIFFOpen").as_deref(), Some("TIFF"));
        assert_eq!(
            name_family("?open@Codec@@QEAAHXZ").as_deref(),
            Some("Codec")
        );
        assert_eq!(name_family("free"), None);
        assert_eq!(define_stem("libpng16_static.lib"), "PNG");
        assert_eq!(define_stem("C:\\deps\\tzkit_static.lib"), "TZKIT");
    }

    #[test]
    fn a_dllimport_of_a_static_library_is_why_its_import_names_are_unresolved() {
        let d = diagnose(
            "main.obj : warning LNK4217: symbol 'png_create_read_struct' defined in 'libpng16_static.lib(png.obj)' is imported by 'main.obj' in function 'load_image'\n\
             main.obj : error LNK2019: unresolved external symbol __imp_png_destroy_read_struct referenced in function load_image\n\
             viewer.exe : fatal error LNK1120: 1 unresolved externals\n",
        );
        assert_eq!(d.problems.len(), 1, "{:?}", d.problems);
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::DllimportMismatch);
        assert!(
            p.summary
                .starts_with("main.obj uses libpng16_static.lib as a DLL"),
            "{}",
            p.summary
        );
        assert!(p.fix.contains("PNG_STATIC"), "{}", p.fix);
        assert!(
            p.cause.contains("__imp_png_destroy_read_struct"),
            "{}",
            p.cause
        );
        assert_eq!(p.lines, vec![1, 2]);
        assert!(d.link_failed);
        // A name of another library is not explained by it.
        let d = diagnose(
            "main.obj : warning LNK4217: symbol 'png_free' defined in 'libpng16_static.lib(png.obj)' is imported by 'main.obj' in function 'f'\n\
             main.obj : error LNK2019: unresolved external symbol __imp_inflateEnd referenced in function f\n",
        );
        assert_eq!(d.problems[0].kind, ProblemKind::Unresolved);
        assert!(
            d.warnings.iter().any(|w| w.starts_with("LNK4217 (line 1)")),
            "{:?}",
            d.warnings
        );
    }

    #[test]
    fn warnings_of_a_link_that_succeeded_keep_it_succeeded() {
        let d = diagnose(
            "LINK : warning LNK4099: PDB 'vc142.pdb' was not found with 'zlibstatic.lib(inflate.obj)' or at 'C:\\b\\vc142.pdb'; linking object as if no debug info\n\
             LINK : warning LNK4286: symbol 'free' defined in 'libucrt.lib(free.obj)' is imported by 'glue.lib(tab.obj)'\n\
             LINK : warning LNK4044: unrecognized option '/LIBPATCH:C:\\deps\\lib'; ignored\n\
             LINK : warning LNK4044: unrecognized option '/EHsc'; ignored\n",
        );
        assert!(d.problems.is_empty(), "{:?}", d.problems);
        assert!(!d.link_failed);
        let all = d.warnings.join("\n");
        assert!(all.contains("/IGNORE:4099"), "{all}");
        assert!(all.contains("one runtime option (/MD, or /MT)"), "{all}");
        assert!(
            all.contains("a misspelt /LIBPATH; fix: write it /LIBPATH:C:\\deps\\lib"),
            "{all}"
        );
        assert!(all.contains("/EHsc, a compiler option"), "{all}");
    }

    #[test]
    fn a_misspelt_libpath_is_why_a_library_cannot_be_opened() {
        let d = diagnose(
            "LINK : warning LNK4044: unrecognized option '/LIBPATCH:C:\\deps\\lib'; ignored\n\
             LINK : fatal error LNK1181: cannot open input file 'tz.lib'\n",
        );
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::CannotOpen);
        assert!(
            p.summary.contains("misspelt (/LIBPATCH:C:\\deps\\lib)"),
            "{}",
            p.summary
        );
        assert_eq!(p.fix, "write the option as /LIBPATH:C:\\deps\\lib");
        assert_eq!(p.lines, vec![1, 2]);
        assert!(
            d.warnings.iter().all(|w| !w.starts_with("LNK4044")),
            "{:?}",
            d.warnings
        );
        // The colon lost: the directory starts after the option's name.
        let d = diagnose(
            "LINK : warning LNK4044: unrecognized option '/LIBPATHC:\\deps\\lib'; ignored\n\
             LINK : fatal error LNK1104: cannot open file 'tz.lib'\n",
        );
        assert_eq!(
            d.problems[0].fix,
            "write the option as /LIBPATH:C:\\deps\\lib"
        );
    }

    #[test]
    fn lld_links_form_and_warnings_made_fatal_are_not_repeated() {
        let d = diagnose(
            "lld-link: warning: src\\app.obj: locally defined symbol imported: tz_parse (defined in tzkit_static.lib(parse.obj)) [LNK4217]\n\
             lld-link: error: undefined symbol: __declspec(dllimport) tz_free\n>>> referenced by src\\app.obj:(main)\n",
        );
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::DllimportMismatch, "{:?}", d.problems);
        assert!(p.fix.contains("TZKIT_STATIC"), "{}", p.fix);
        let d = diagnose("a.obj : warning LNK4217: symbol 'foo_x' defined in 'b.lib(b.obj)' is imported by 'a.obj' in function 'main'\nLINK : error LNK1218: warning treated as error; no output file generated\n");
        assert!(
            d.warnings.iter().all(|w| !w.contains("LNK4217")),
            "{:?}",
            d.warnings
        );
    }
}
