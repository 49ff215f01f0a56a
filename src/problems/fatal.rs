//! The fatal errors of link.exe and lld-link that no class module explains: a catalogue of what
//! each means, its cause and its one fix (docs/RULES.md §20, "Fatal errors"). The six classes and
//! `other` run first and claim their codes (LNK1104, LNK1112, LNK1120, LNK1169, LNK1561, ...);
//! what is left here is every other code that ends a link, so that a failed link with one of them
//! is never "not classified".
//!
//! Two entries read more than their own line: LNK1257 (link-time code generation failed) cites
//! the compiler's C1047 line before it, which names the object built by another compiler version,
//! and lld-link's errors are recognised by their text (`is not a native COFF file`, a bitcode
//! reader's `Producer:`/`Reader:` versions, `image size ... exceeds maximum allowable size`).

use super::text::{files, quoted};
use super::{Problem, ProblemKind, Scan};
use crate::read::linklog::Finding;

/// One code of the catalogue.
struct Entry {
    /// The code (`LNK1248`).
    code: &'static str,
    /// The kind of problem it is.
    kind: ProblemKind,
    /// The headline; `{file}` stands for the file the record names, when it names one.
    summary: &'static str,
    /// Why it happens.
    cause: &'static str,
    /// The one fix.
    fix: &'static str,
}

/// Shorthand for the catalogue's rows.
const fn entry(
    code: &'static str,
    kind: ProblemKind,
    summary: &'static str,
    cause: &'static str,
    fix: &'static str,
) -> Entry {
    Entry {
        code,
        kind,
        summary,
        cause,
        fix,
    }
}

use ProblemKind::{
    CorruptInput, EntryPoint, ImageTooLarge, LtcgMismatch, Other, Pdb, ToolFailed, ToolMissing,
};

/// The fatal errors of link.exe that no other module claims, in code order.
const CATALOGUE: &[Entry] = &[
    entry("LNK1000", Other, "the linker crashed (internal error)",
        "link.exe hit an internal error; it is a defect of that toolset version, often on incremental links or unusual inputs, not of the code",
        "link once with /INCREMENTAL:NO after deleting the .ilk file; if it still crashes, update Visual Studio to its latest servicing release"),
    entry("LNK1102", Other, "the linker ran out of memory",
        "the 32-bit hosted linker cannot address more than 4 GB, and a large link with debug information or /LTCG needs more",
        "use the 64-bit hosted toolset (MSBuild /p:PreferredToolArchitecture=x64, a Hostx64 vcvars prompt), or link with less debug information (/DEBUG:FASTLINK)"),
    entry("LNK1103", CorruptInput, "the debugging information in {file} is corrupt",
        "the object was written by a compiler whose debug format this linker cannot read, or the file was damaged",
        "rebuild {file} with the same toolset as the link"),
    entry("LNK1106", CorruptInput, "{file} is invalid, or the disk is full",
        "the linker could not seek in the file: it was cut short (a download, a build stopped while writing), or the disk the output goes to is full",
        "free disk space, delete {file} and rebuild it (or download it again)"),
    entry("LNK1113", CorruptInput, "{file} has an invalid machine type",
        "the file's header names no machine this linker knows: a damaged file, or one from another platform's toolchain",
        "rebuild {file} for this platform with MSVC or LLVM"),
    entry("LNK1123", ToolFailed, "the conversion of resources to COFF failed",
        "cvtres.exe, which the linker runs to convert compiled resources, failed: the classic case is Visual Studio 2010's cvtres.exe after .NET Framework 4.5 replaced it; an incremental link of a damaged .res does the same",
        "install Visual Studio 2010 SP1 (or use a newer toolset); otherwise rebuild the .res file and link with /INCREMENTAL:NO"),
    entry("LNK1127", CorruptInput, "the library {file} is corrupt",
        "the archive's member table or a member is damaged (a build stopped while writing it, a copy cut short, a Git LFS pointer)",
        "rebuild or download {file} again"),
    entry("LNK1140", Pdb, "too many modules for the program database",
        "a PDB of the old format holds at most 4,096 modules (64K in newer toolsets), and this link has more",
        "link with a newer toolset, or split the image into DLLs"),
    entry("LNK1141", Other, "the exports file (.exp) of the DLL could not be built",
        "the linker could not write the exports file: an error before this line says why (an EXPORTS entry of the .def file that names nothing the objects define, a syntax error in the .def file or an /EXPORT: option)",
        "fix the error before this line (the .def entry or /EXPORT: option it names), then link again"),
    entry("LNK1143", CorruptInput, "{file} is invalid or corrupt: no symbol for a COMDAT section",
        "the object was written by a compiler the linker does not fully understand (another compiler's or a newer MSVC's object format), or was damaged",
        "rebuild {file} with the toolset that links it"),
    // The problem is written by `output_is_input`, which tells an import library apart.
    entry("LNK1149", Other, "the output {file} is also an input of the link",
        "the name given to /OUT: (or /IMPLIB:) is the name of a file the link reads, so the linker would overwrite its own input",
        "give the output another name, or rename the input"),
    entry("LNK1152", Other, "the linker cannot resolve undecorated names in the .def file",
        "an EXPORTS entry names a function without its decoration, and the objects define more than one decorated name that could match",
        "write the decorated name in the .def file, or export with __declspec(dllexport) instead"),
    entry("LNK1158", ToolMissing, "the linker cannot run {file}",
        "link.exe runs rc.exe and cvtres.exe (resources) and mt.exe (manifests) from PATH; they are in the Windows SDK's bin directory, which a shell that is not a developer prompt lacks (a build started from a plain terminal, an IDE's own terminal, a CI step without vcvars)",
        "run the build from the Visual Studio developer prompt (vcvars64.bat), or put the Windows SDK's bin\\<version>\\x64 directory on PATH"),
    entry("LNK1164", Other, "a section's alignment is larger than /ALIGN",
        "an object asks for a section alignment (__declspec(align(N)) data, an assembler's ALIGN) larger than the /ALIGN value given to the linker",
        "raise /ALIGN to at least that alignment (a power of 2), or drop /ALIGN"),
    entry("LNK1165", Other, "the link failed because of fixup errors",
        "a relocation cannot be applied: code refers to a symbol too far away or of the wrong kind (mixing /LARGEADDRESSAWARE:NO with large images, hand-written assembly)",
        "read the LNK2xxx fixup errors before this line; they name the object and symbol to rebuild or fix"),
    entry("LNK1170", Other, "a line of a response file is too long",
        "a line of a command file holds 131,071 characters or more (a build generator wrote every input on one line)",
        "split the response file into lines (one input a line), or shorten the paths"),
    entry("LNK1179", CorruptInput, "{file} is invalid or corrupt: a duplicate COMDAT",
        "two sections of one object claim the same COMDAT name: the object was damaged or written by a defective compiler",
        "rebuild {file}; if it is a prebuilt library, get one built by the toolset that links it"),
    entry("LNK1189", Other, "the library has more than 65,535 objects",
        "a static library can hold at most 65,535 members, and this one would hold more",
        "split the library in two, or make it a DLL"),
    entry("LNK1196", CorruptInput, "{file} holds an invalid or corrupt import object",
        "a member of the import library is damaged, or the import library was written by a tool whose format this linker does not read",
        "make the import library again (lib /DEF: from the .def file, or the toolset's own import library)"),
    entry("LNK1200", Pdb, "the linker cannot read the program database",
        "the PDB the link updates (or one an object refers to) is damaged or was written by another toolset version",
        "delete the .pdb (and the .ilk) files of the output and link again"),
    entry("LNK1210", Other, "the incremental link state is full",
        "the .ilk file of an incremental link exceeded its internal size limit",
        "link with /INCREMENTAL:NO, or delete the .ilk file and link again"),
    entry("LNK1211", Other, "the precompiled header's debug types are missing: {file} is not linked",
        "objects compiled with /Yu and /Z7 refer to the debug types kept in the object compiled with /Yc ({file}), and that object is not in the link: it is in a static library no name pulled it from, or another /Yc compile overwrote it",
        "link {file} (the object compiled with /Yc, such as pch.obj or stdafx.obj); for a static library, compile the header with /Yl<name> so that every user of the library pulls it in, or use /Zi instead of /Z7"),
    entry("LNK1215", Other, "a .NET metadata operation failed (/clr)",
        "merging the metadata of /clr objects failed in the .NET runtime: a managed type of one name defined differently in two objects, or a linker and .NET runtime of different installations",
        "give every /clr object one definition of each managed type (a clean rebuild after changing a type), and repair the Visual Studio installation if it persists"),
    entry("LNK1218", Other, "a warning was treated as an error",
        "/WX turns the linker's warnings into errors, and a warning above this line stopped the link",
        "fix the warning above this line, or link without /WX"),
    // The problem is written by `option_requires`, which names both options.
    entry("LNK1220", Other, "a linker option needs another one",
        "an option was given without the option it requires (/MANIFESTINPUT: needs /MANIFEST:EMBED)",
        "add the option the message names, or remove the one that needs it"),
    entry("LNK1221", EntryPoint, "the subsystem cannot be inferred",
        "no entry point the linker knows (main, wmain, WinMain, wWinMain, DllMain) tells whether this is a console or a windows program",
        "pass /SUBSYSTEM:CONSOLE or /SUBSYSTEM:WINDOWS, or define the entry point the subsystem needs"),
    entry("LNK1223", CorruptInput, "{file} is invalid or corrupt",
        "the file's sections or symbol table cannot be read: a damaged file, or one another compiler wrote in a form the linker rejects",
        "rebuild {file} with the toolset that links it"),
    entry("LNK1224", Other, "the image base address is invalid",
        "/BASE (or a .def file's BASE=) names an address that is not a multiple of 64 KB, or that does not fit the image's machine (over 32 bits for an x86 image)",
        "give /BASE an address aligned to 64 KB (its last four hexadecimal digits 0000) that fits the machine, or drop /BASE"),
    entry("LNK1237", LtcgMismatch, "code generation introduced a reference to a symbol of a /GL module",
        "during link-time code generation the compiler called a helper defined in an object compiled with /GL; the link cannot resolve it after code generation",
        "compile the object that defines the helper without /GL (or link without /LTCG)"),
    entry("LNK1240", ToolFailed, "MIDL, which the linker runs for embedded IDL, failed",
        "code with IDL attributes (attributed ATL: [module], [coclass]) is compiled by MIDL at link time, and MIDL reported errors",
        "fix the MIDL errors above this line (/IDLOUT: keeps the IDL the attributes make), and check that the Windows SDK's midl.exe is on PATH"),
    // The problem is written by `resource_twice`, which names both resource files.
    entry("LNK1241", Other, "two compiled resource files in one link",
        "a link takes one compiled resource (.res) input, or objects that cvtres.exe made from .res files; a second one came with another input",
        "keep one resource file in the link"),
    // The problem is written by `invalid_export`, which names the export and the .def file.
    entry("LNK1242", Other, "an export name is invalid",
        "an EXPORTS entry of the .def file (or an /EXPORT: option) names a symbol that cannot be exported: a character no C/C++ identifier has (a '.', a '-'), or a function compiled to managed code (/clr: $$J or $$F in its decorated name)",
        "correct the name in the .def file (an export can be renamed: public=internal); export native functions only"),
    entry("LNK1245", EntryPoint, "the subsystem is invalid",
        "/SUBSYSTEM names a subsystem the entry point or machine does not allow",
        "pass the subsystem the program is for: /SUBSYSTEM:CONSOLE or /SUBSYSTEM:WINDOWS"),
    // The problem is written by `image_too_large`, which reads the sizes and what is too large.
    entry("LNK1248", ImageTooLarge, "the image would be too large",
        "a PE image or a static library would exceed its size limit",
        "make it smaller, or split it"),
    entry("LNK1256", Other, "the assembly step of the /clr link (ALINK) failed",
        "a part of the assembly's version is 65535 (the largest allowed is 65534), the key container named for strong-name signing is missing, or Alink.dll is of another version than the linker",
        "keep every part of AssemblyVersion at 65534 or less and check the key container (sn.exe); otherwise repair the Visual Studio installation"),
    entry("LNK1257", LtcgMismatch, "link-time code generation failed",
        "the compiler's back end failed while generating code for /GL objects at link time; the line before this one says why (C1047: objects or libraries built by another compiler version)",
        "rebuild every /GL object and library with the toolset that links them, or build the prebuilt library without /GL"),
    entry("LNK1264", Other, "/LTCG was given but nothing needs code generation",
        "/LTCG:INCREMENTAL (or a profile-guided /LTCG option) needs objects compiled with /GL, and none is",
        "link without /LTCG, or compile with /GL"),
    entry("LNK1277", Other, "an input of the profile-guided link was not in the instrumented link",
        "/LTCG:PGOPTIMIZE needs the same inputs, at the same paths, as the /LTCG:PGINSTRUMENT link whose .pgd file it reads; an input's path changed (another LIB, a moved library)",
        "link with /LTCG:PGINSTRUMENT again, rerun the training runs, then link with /LTCG:PGOPTIMIZE (or restore LIB to what the instrumented link had)"),
    entry("LNK1279", CorruptInput, "{file} holds invalid exception data (.pdata)",
        "the object's unwind data is invalid: hand-written assembly without proper unwind directives, or a damaged file",
        "rebuild {file}; for assembly, declare the unwind data with the assembler's frame directives"),
    entry("LNK1285", Pdb, "the program database is corrupt",
        "the PDB the link reads or updates is damaged (a build stopped while writing it)",
        "delete the .pdb (and .ilk) files and link again"),
    entry("LNK1287", EntryPoint, "the managed entry point has an invalid signature",
        "the entry point of a /clr image must return void or int and take nothing or an array of String",
        "declare it as int main() or int main(array<System::String^>^ args)"),
    entry("LNK1296", ToolMissing, "the linker cannot load one of its DLLs",
        "a DLL of the toolset (mspdbcore.dll, c2.dll for /LTCG) is missing or of another version: a broken or half-updated Visual Studio install, or a PATH that mixes two toolsets",
        "repair the Visual Studio installation, and run the link from its own developer prompt"),
    entry("LNK1301", LtcgMismatch, "/LTCG objects of managed code are not allowed with this /LTCG option",
        "objects compiled with /clr and /GL cannot be used with the profile-guided /LTCG options",
        "compile the /clr objects without /GL, or link with plain /LTCG"),
    entry("LNK1306", EntryPoint, "the DLL entry point is compiled to managed code",
        "the function /ENTRY names (DllMain or another) is in a file compiled with /clr, and a DLL's entry point runs under the loader lock, before the CLR can run managed code",
        "compile the file that defines the entry point without /clr, or put the entry point between #pragma managed(push, off) and #pragma managed(pop)"),
    entry("LNK1313", Other, "native and pure managed modules cannot be linked together",
        "objects compiled with /clr:pure cannot be linked with native objects (or /clr objects that contain native code)",
        "compile every object with /clr, or none with /clr:pure"),
    entry("LNK1314", CorruptInput, "{file} has a corrupt or invalid symbol table",
        "the object's symbol table cannot be read: a damaged file, or another compiler's object format",
        "rebuild {file} with the toolset that links it"),
    // The problem is written by `tool_failed`, which names the tool and cites its own error.
    entry("LNK1327", ToolFailed, "{file}, which the linker runs, failed",
        "the linker ran {file} (rc.exe for the resources it generates, mt.exe for the manifest) and that tool reported an error",
        "fix what {file} reports above this line; if it reports nothing, repair the Windows SDK that holds {file}"),
    entry("LNK1332", Other, "Windows Runtime types are imported by one module and defined in another",
        "C++/CX types are defined in one module of the link and imported (from a .winmd) in another; the LNK2039 lines before this one name each type",
        "fix each LNK2039 above: take each type from one place (the project that defines it, or its .winmd, not both)"),
    entry("LNK1352", Other, "/MERGE separates two sections that must stay together",
        "a /MERGE option sends one of two sections that must end up in one section (.tls and .stls, for example) into another",
        "remove or correct the /MERGE option that names these sections"),
];

/// The catalogue row of a code.
fn catalogue(code: &str) -> Option<&'static Entry> {
    CATALOGUE.iter().find(|e| e.code == code)
}

/// The fatal errors left unexplained, one problem each.
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let codes: Vec<&str> = CATALOGUE.iter().map(|e| e.code).collect();
    let mut out = Vec::new();
    for (i, f) in scan.unclaimed(&codes) {
        let Some(entry) = catalogue(&f.code) else {
            continue;
        };
        scan.claim(i);
        out.push(match entry.code {
            "LNK1248" => image_too_large(f, named_file(f), 16),
            "LNK1149" => output_is_input(f),
            "LNK1241" => resource_twice(f),
            "LNK1327" => tool_failed(scan, f),
            "LNK1220" => option_requires(f).unwrap_or_else(|| from_catalogue(scan, entry, f)),
            "LNK1242" => invalid_export(f).unwrap_or_else(|| from_catalogue(scan, entry, f)),
            "LNK1218" => warning_as_error(scan, entry, f),
            _ => from_catalogue(scan, entry, f),
        });
    }
    for (i, f) in scan.unclaimed_lld("") {
        if let Some(problem) = from_lld(f) {
            scan.claim(i);
            out.push(problem);
        }
    }
    out
}

/// The file a record names: its quoted file, a file in its text, or the file before `:`.
fn named_file(f: &Finding) -> Option<String> {
    quoted(&f.text)
        .into_iter()
        .chain(files(&f.text))
        .chain(f.objects.iter().filter(|o| *o != "LINK").cloned())
        .find(|name| name.contains('.'))
}

/// The problem of a catalogued code.
fn from_catalogue(scan: &Scan<'_>, entry: &Entry, f: &Finding) -> Problem {
    let file = named_file(f);
    let fill = |text: &str| text.replace("{file}", file.as_deref().unwrap_or("the file"));
    let mut problem = Problem::new(
        entry.kind,
        fill(entry.summary),
        fill(entry.cause),
        fill(entry.fix),
    );
    problem.line(f.line);
    if let Some(file) = file {
        problem.subject(file);
    }
    if entry.code == "LNK1257" {
        cite_other_compiler(scan, &mut problem);
    }
    problem
}

/// LNK1257 after the compiler's own fatal error, which the log's context keeps: C1047 (an object
/// or library built by another compiler version, and one of the rest), C1900 (objects of a newer
/// compiler than the linker's back end), C1905 (a /GL object of another processor).
fn cite_other_compiler(scan: &Scan<'_>, problem: &mut Problem) {
    let context = scan.inputs.context.get();
    let Some(mention) = context.compiler_errors.first() else {
        return;
    };
    problem.cite(mention.line, &mention.text);
    let text = mention.value.as_str();
    let named = quoted(text);
    if text.contains("C1900") {
        problem.summary = "objects compiled by a newer compiler than the linker's (C1900)".into();
        problem.cause = "link-time code generation runs the compiler's back end of the linking toolset, and objects compiled with /GL by a newer compiler carry a format it does not know (the 'P1' version is the compiler's, 'P2' the linker's)".into();
        problem.fix = "link with the toolset that compiled the objects (the newer), or rebuild the /GL objects and libraries with the linking toolset".into();
    } else if text.contains("C1905") {
        problem.summary = "a /GL object was compiled for another processor (C1905)".into();
        problem.cause = "link-time code generation cannot mix /GL objects compiled for one machine with a link for another (an x86 object in an x64 link)".into();
        problem.fix = "rebuild the /GL objects for the link's machine (the developer prompt of that machine), or link for theirs".into();
    } else if let Some(built) = named.first() {
        // A library member, or a library, is rebuilt as its library.
        let rebuild = built
            .split_once('(')
            .map_or(built.as_str(), |(library, _)| library);
        let other = named.get(1);
        problem.summary = format!("{built} was built by another compiler version (C1047)");
        problem.cause = match other {
            Some(other) => format!(
                "{built} was built by a different compiler version than other objects such as {other}, and link-time code generation (/GL objects) needs one compiler for all (C1047)"
            ),
            None => format!(
                "{built} was built by an older compiler than the other objects, and link-time code generation (/GL objects) needs one compiler for all (C1047)"
            ),
        };
        problem.fix = format!(
            "rebuild {rebuild} with the toolset that links it (or get a build of it made without /GL); the toolset of the rest of the link is the one to keep"
        );
        problem.subject(built.clone());
        if let Some(other) = other {
            problem.subject(other.clone());
        }
    }
}

/// LNK1149: the file both written and read. An import library is the usual case: a program or DLL
/// whose import library (`/IMPLIB:`, or the name link.exe derives from the output's) has the name of
/// a static library the same link reads, because two targets of the build share one output name.
fn output_is_input(f: &Finding) -> Problem {
    let file = named_file(f);
    let name = file.as_deref().unwrap_or("the file");
    let library = name.to_ascii_lowercase().ends_with(".lib");
    let mut problem = if library {
        Problem::new(
            Other,
            format!("the import library {name} would overwrite a library the link reads"),
            format!("the program or DLL being linked writes its import library as {name} (/IMPLIB:, or the output's name with .lib), and {name} is also a static or import library on its link line: two targets of the build have the same output name"),
            format!("give one of the two targets another output name (CMake OUTPUT_NAME or ARCHIVE_OUTPUT_NAME, the project's Target Name or Import Library setting), so that {name} is written by one target only"),
        )
    } else {
        Problem::new(
            Other,
            format!("the output {name} is also an input of the link"),
            format!("the name given to /OUT: is {name}, a file the link reads, so the linker would overwrite its own input"),
            format!("give the output another name than {name}, or rename the input"),
        )
    };
    problem.line(f.line);
    if let Some(file) = file {
        problem.subject(file);
    }
    problem
}

/// LNK1241: the resource file already in the link (the record's text) and the one that came
/// second (the record's own file, often a `.res` member of a static library).
fn resource_twice(f: &Finding) -> Problem {
    let mut names: Vec<String> = f
        .objects
        .iter()
        .filter(|o| *o != "LINK")
        .map(|o| o.trim_start_matches(['|', ' ']).to_string())
        .filter(|o| !o.is_empty())
        .collect();
    let text = f.text.as_str();
    let first = text
        .split_once("resource file ")
        .map(|(_, rest)| rest.split(" already").next().unwrap_or(rest))
        .map(|n| n.trim().trim_matches(|c| c == '\'' || c == '"').to_string())
        .filter(|n| !n.is_empty());
    names.extend(first.clone());
    let in_library = names.iter().any(|n| n.contains(".lib("));
    let both = match names.as_slice() {
        [second, first, ..] => format!("{first} and {second}"),
        [one] => one.clone(),
        [] => "two resource files".into(),
    };
    let mut problem = Problem::new(
        Other,
        format!("two compiled resource files in one link: {both}"),
        if in_library {
            format!("a link takes one compiled resource (.res), and static libraries carry their own ({both}): each library was built with its version resource (.rc), and linking them together brings both")
        } else {
            format!("a link takes one compiled resource (.res) input, and {both} were both given (a .res file and an object cvtres.exe made from another, or the same resource twice)")
        },
        if in_library {
            "build the static libraries without their .rc files (a version resource belongs to a DLL or program, not to a static library), or link only one of them".into()
        } else {
            "pass every resource to the linker as a .res file (it merges them), not as objects made by cvtres.exe, and each only once".into()
        },
    );
    problem.line(f.line);
    for name in names {
        problem.subject(name);
    }
    problem
}

/// What to do about a linker warning that `/WX` made fatal, for the warnings that stop such links.
fn warning_fix(code: &str) -> Option<&'static str> {
    Some(match code {
        "LNK4217" | "LNK4286" => "a symbol the link defines is declared __declspec(dllimport): compile its users with the library's static-linking define (or link the DLL's import library instead of its static library)",
        "LNK4099" => "a library's debug information (its .pdb) is missing: put the .pdb beside the library, or /ignore:4099 (it only loses debug information)",
        "LNK4098" => "two C runtimes meet: build every object and library with one /MD or /MT option",
        "LNK4006" => "a symbol is defined twice and the first definition is used: remove one definition",
        "LNK4221" => "an object defines no public symbol: drop it from the library, or ignore the warning with /ignore:4221",
        "LNK4075" => "two options disagree (e.g. /INCREMENTAL with /OPT:REF or /LTCG): drop one of them",
        "LNK4044" => "an option is not a linker option: remove it, or pass it to the compiler it belongs to",
        "LNK4197" => "a symbol is exported twice (a __declspec(dllexport) and a .def entry or /EXPORT): keep one",
        _ => return None,
    })
}

/// LNK1218: the warnings before it that `/WX` turned into errors, each with its fix when known.
fn warning_as_error(scan: &Scan<'_>, entry: &Entry, f: &Finding) -> Problem {
    let mut problem = from_catalogue(scan, entry, f);
    let warnings: Vec<&Finding> = scan
        .diagnosis
        .findings
        .iter()
        .filter(|w| w.line < f.line && w.code.starts_with("LNK4") && w.code.len() == 7)
        .collect();
    if warnings.is_empty() {
        return problem;
    }
    let mut codes: Vec<&str> = Vec::new();
    for w in &warnings {
        if !codes.contains(&w.code.as_str()) {
            codes.push(&w.code);
        }
    }
    // A library without its PDBs can warn hundreds of times: the first few lines stand for all.
    const SHOWN: usize = 8;
    for w in warnings.iter().take(SHOWN) {
        problem.line(w.line);
    }
    for code in &codes {
        problem.subject(*code);
    }
    let mut lines: Vec<String> = warnings
        .iter()
        .take(SHOWN)
        .map(|w| w.line.to_string())
        .collect();
    if warnings.len() > SHOWN {
        lines.push(format!("and {} more", warnings.len() - SHOWN));
    }
    problem.summary = format!("a warning was treated as an error ({})", codes.join(", "));
    problem.cause = format!(
        "/WX turns the linker's warnings into errors: {} (line {}) stopped the link",
        codes.join(", "),
        lines.join(", ")
    );
    let fixes: Vec<String> = codes
        .iter()
        .filter_map(|code| warning_fix(code).map(|fix| format!("{code}: {fix}")))
        .collect();
    if !fixes.is_empty() {
        problem.fix = format!("{}; or link without /WX", fixes.join("; "));
    }
    problem
}

/// LNK1220: `'MANIFESTINPUT' requires '/MANIFEST:EMBED' specification`, the option given and
/// the one it needs (`None`: the record names neither).
fn option_requires(f: &Finding) -> Option<Problem> {
    let named = quoted(&f.text);
    let option = |o: &String| {
        if o.starts_with('/') {
            o.clone()
        } else {
            format!("/{o}")
        }
    };
    let [given, needed, ..] = named.as_slice() else {
        return None;
    };
    let (given, needed) = (option(given), option(needed));
    let mut problem = Problem::new(
        Other,
        format!("{given} needs {needed}"),
        format!("the link was given {given} without {needed}, which it requires"),
        format!("add {needed} to the link (MSBuild: Manifest Tool, Embed Manifest: Yes; with CMake, list the .manifest file among the target's sources instead of passing {given}: yourself), or remove {given}"),
    );
    problem.subject(given);
    problem.subject(needed);
    problem.line(f.line);
    Some(problem)
}

/// LNK1242: `'?f@@$$J0YANN@Z' is an invalid export symbol name`, in the .def file the record
/// names; a managed function's name (`$$J`, `$$F`: compiled with /clr) has its own cause
/// (`None`: the record quotes no name).
fn invalid_export(f: &Finding) -> Option<Problem> {
    let name = quoted(&f.text).into_iter().next()?;
    let def = f
        .objects
        .iter()
        .find(|o| o.to_ascii_lowercase().ends_with(".def"))
        .cloned();
    let place = def
        .as_deref()
        .map_or("the .def file".to_string(), str::to_string);
    let managed = name.contains("$$J") || name.contains("$$F");
    let mut problem = Problem::new(
        Other,
        format!("{name} in {place} cannot be exported"),
        if managed {
            format!("{name} is a function compiled to managed code (/clr: $$J or $$F in its decorated name), and a DLL exports only native functions; a .def file generated from every object's symbols (CMake's WINDOWS_EXPORT_ALL_SYMBOLS) lists it all the same")
        } else {
            format!("{name}, an EXPORTS entry of {place}, has a character no exported name may have (only what a C/C++ identifier allows, with @ and ?)")
        },
        if managed {
            format!("remove {name} from {place}: export native wrappers of the managed code (compiled without /clr, or between #pragma managed(push, off) and #pragma managed(pop)), or generate {place} only from objects compiled without /clr")
        } else {
            format!("correct {name} in {place} (an export can be renamed: public=internal)")
        },
    );
    problem.line(f.line);
    problem.subject(name);
    if let Some(def) = def {
        problem.subject(def);
    }
    Some(problem)
}

/// LNK1327: the tool that failed (`failure during running rc.exe`), and the tool's own error line
/// before it when the log keeps one (`error RC2136`, `general error c101008d`).
fn tool_failed(scan: &Scan<'_>, f: &Finding) -> Problem {
    let tool = f
        .text
        .split_whitespace()
        .find(|w| w.to_ascii_lowercase().ends_with(".exe"))
        .map(|w| {
            w.trim_matches(|c: char| c == '\'' || c == '"' || c == '.' && !w.ends_with(".exe"))
        })
        .map(str::to_string);
    let name = tool.clone().unwrap_or_else(|| "a tool".into());
    let mut problem = Problem::new(
        ToolFailed,
        format!("{name}, which the linker runs, failed"),
        format!("the linker ran {name} (rc.exe for the resources it generates, mt.exe for the manifest) and that tool reported an error"),
        format!("fix what {name} reports above this line; if it reports nothing, repair the Windows SDK that holds {name}"),
    );
    problem.line(f.line);
    let context = scan.inputs.context.get();
    let prefix = match name.to_ascii_lowercase().as_str() {
        "rc.exe" => Some(" RC"),
        "mt.exe" => Some("c10"),
        _ => None,
    };
    if let Some(mention) = prefix.and_then(|p| {
        context
            .tool_errors
            .iter()
            .rev()
            .find(|m| m.line < f.line && m.text.contains(p))
    }) {
        problem.cite(mention.line, &mention.text);
        problem.cause = format!(
            "the linker ran {name} and {name} failed with its own error (line {}: {})",
            mention.line,
            mention
                .value
                .find("error ")
                .map_or(mention.value.as_str(), |at| &mention.value[at..])
        );
        problem.fix = if mention.value.contains("used by another process") {
            format!(
                "close what holds the image {name} writes into (line {}: the program still running, a debugger, an antivirus scan of the build directory) and link again",
                mention.line
            )
        } else {
            format!(
                "fix what {name} reports on line {}; the input it names is one the link generates from the linker options (/MANIFESTUAC:, /MANIFESTINPUT:, a resource the build passes)",
                mention.line
            )
        };
    }
    if let Some(tool) = tool {
        problem.subject(tool);
    }
    problem
}

/// The numbers in parentheses of an image-size record, in `radix` (link.exe writes hexadecimal,
/// lld-link decimal): the size and the limit.
fn sizes(text: &str, radix: u32) -> Vec<u64> {
    text.split('(')
        .skip(1)
        .filter_map(|rest| rest.split(')').next())
        .filter_map(|n| u64::from_str_radix(n.trim(), radix).ok())
        .collect()
}

/// LNK1248 and lld-link's `image size (N) exceeds maximum allowable size (M)`: the size and the
/// limit the record names, and the fix for what is too large (a static library, which lib.exe
/// writes, or an image).
fn image_too_large(f: &Finding, file: Option<String>, radix: u32) -> Problem {
    const GIB: f64 = (1u64 << 30) as f64;
    let numbers = sizes(&f.text, radix);
    let over = match numbers.as_slice() {
        [size, limit, ..] => format!(
            " ({:.2} GB, over the limit of {:.0} GB)",
            *size as f64 / GIB,
            *limit as f64 / GIB
        ),
        _ => String::new(),
    };
    let library = file
        .as_deref()
        .is_some_and(|f| f.to_ascii_lowercase().ends_with(".lib"));
    let mut problem = if library {
        let file = file.clone().unwrap_or_default();
        Problem::new(
            ImageTooLarge,
            format!("the static library {file} would be too large{over}"),
            "lib.exe writes an archive of at most 4 GB, and this library's objects add up to more: debug information embedded in every object (/Z7), a Debug configuration, or explicit template instantiations for many types".into(),
            format!("make {file} smaller: build it in Release or with /Zi (debug information in a PDB, not in the objects), turn off explicit instantiation of templates it does not need, or split it into several libraries or a DLL"),
        )
    } else {
        Problem::new(
            ImageTooLarge,
            format!("the image would be too large{over}"),
            "a PE image is limited in size (4 GB for the file format, 2 GB for what the loader maps), and static data, embedded resources or device code (a fat binary of many GPU architectures) push it over".into(),
            "build device code for fewer GPU architectures (only the ones you run on), link the Release configuration, move large data out of the image (files or resources loaded at run time), or split it into DLLs".into(),
        )
    };
    problem.line(f.line);
    if let Some(file) = file {
        problem.subject(file);
    }
    problem
}

/// The file an lld-link error names before its first `: ` (`kern.obj: Unknown attribute kind`,
/// `x.lib(y.obj): ...`), when what is there is a file and not the start of a sentence.
fn lld_named_file(text: &str) -> Option<String> {
    let (head, _) = text.split_once(": ")?;
    let head = head.trim();
    let lower = head.to_ascii_lowercase();
    let file_like = [".obj", ".o", ".lib", ".a", ".rlib", ".res"]
        .iter()
        .any(|ext| lower.ends_with(ext))
        || (lower.ends_with(')') && lower.contains(".lib("));
    (file_like && !head.contains("(Producer")).then(|| head.to_string())
}

/// lld-link's fatal errors of the catalogue's kinds, recognised by their text.
fn from_lld(f: &Finding) -> Option<Problem> {
    let text = f.text.as_str();
    let file = || text.split(": ").next().unwrap_or("the file").to_string();
    let mut problem = if text.contains("is not a native COFF file") {
        let file = file();
        let mut p = Problem::new(
            LtcgMismatch,
            format!("{file} was compiled with /GL, which lld-link cannot read"),
            format!("{file} holds MSVC's link-time code generation format (cl /GL, or a library built with whole-program optimisation); only link.exe can generate its code"),
            format!("rebuild {file} without /GL (MSBuild: WholeProgramOptimization false), or link with link.exe"),
        );
        p.subject(file);
        p
    } else if text.contains("Producer: '") && text.contains("Reader: '") {
        // lld-link names the file first (`kern.obj: Unknown attribute kind ...`), or not at all
        // (`Opaque pointers are only supported in -opaque-pointers mode (Producer: ...)`).
        let named = lld_named_file(text);
        let file = named.clone().unwrap_or_else(|| "an object".into());
        let versions = text
            .rsplit('(')
            .next()
            .unwrap_or(text)
            .trim_end_matches(')');
        let mut p = Problem::new(
            LtcgMismatch,
            format!("{file} holds LLVM bitcode of a newer LLVM than this lld-link ({versions})"),
            format!("{file} was compiled with -flto (or /GL under clang-cl) by a newer clang than the lld-link that reads it: bitcode is read only by the same or a newer LLVM ({versions})"),
            match &named {
                Some(file) => format!("link with the lld-link of the clang that built {file} (the same LLVM version), or rebuild it without -flto"),
                None => "link with the lld-link of the clang that compiled the objects (the Producer's LLVM version), or rebuild the -flto objects without -flto".into(),
            },
        );
        if let Some(file) = named {
            p.subject(file);
        }
        p
    } else if text.contains("exceeds maximum allowable size") {
        image_too_large(f, None, 10)
    } else {
        return None;
    };
    problem.line(f.line);
    Some(problem)
}

#[cfg(test)]
mod tests {
    use super::CATALOGUE;
    use crate::problems::diagnose_text as diagnose;
    use crate::problems::ProblemKind;

    #[test]
    fn the_catalogue_is_in_code_order_without_repeats() {
        for pair in CATALOGUE.windows(2) {
            assert!(
                pair[0].code < pair[1].code,
                "{} {}",
                pair[0].code,
                pair[1].code
            );
        }
        for e in CATALOGUE {
            assert!(
                e.code.starts_with("LNK1") && e.code.len() == 7,
                "{}",
                e.code
            );
            assert!(!e.cause.is_empty() && !e.fix.is_empty(), "{}", e.code);
        }
    }

    #[test]
    fn every_catalogued_code_gets_its_kind_and_fix() {
        for e in CATALOGUE {
            let log = format!("LINK : fatal error {}: something failed\n", e.code);
            let d = diagnose(&log);
            let p = d
                .problems
                .first()
                .unwrap_or_else(|| panic!("{}: no problem", e.code));
            assert_eq!(p.kind, e.kind, "{}", e.code);
            assert_eq!(p.lines, vec![1], "{}", e.code);
            assert!(!p.fix.contains("{file}"), "{}: {}", e.code, p.fix);
        }
    }

    #[test]
    fn an_image_over_4_gb_and_a_tool_that_cannot_run() {
        let d = diagnose(
            "LINK : fatal error LNK1248: image size (8C9B8000) exceeds maximum allowable size (80000000)\n",
        );
        assert_eq!(d.problems[0].kind, ProblemKind::ImageTooLarge);
        assert!(d.problems[0].fix.contains("GPU architectures"));
        assert!(
            d.problems[0]
                .summary
                .contains("(2.20 GB, over the limit of 2 GB)"),
            "{}",
            d.problems[0].summary
        );
        // lib.exe writing a static library: the library is what to make smaller.
        let d = diagnose(
            "out\\big.lib : fatal error LNK1248: image size (1002B63D2) exceeds maximum allowable size (FFFFFFFF)\n",
        );
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::ImageTooLarge);
        assert!(
            p.summary.contains("static library out\\big.lib"),
            "{}",
            p.summary
        );
        assert!(p.fix.contains("/Zi"), "{}", p.fix);
        let d = diagnose("LINK : fatal error LNK1158: cannot run 'rc.exe'\n");
        assert_eq!(d.problems[0].kind, ProblemKind::ToolMissing);
        assert_eq!(d.problems[0].summary, "the linker cannot run rc.exe");
        assert_eq!(d.problems[0].subjects, vec!["rc.exe"]);
        let d = diagnose(
            "lld-link: error: image size (4306911232) exceeds maximum allowable size (4294967295)\n",
        );
        assert_eq!(d.problems[0].kind, ProblemKind::ImageTooLarge);
        assert!(
            d.problems[0]
                .summary
                .contains("(4.01 GB, over the limit of 4 GB)"),
            "{}",
            d.problems[0].summary
        );
    }

    #[test]
    fn ltcg_across_compiler_versions_names_the_object() {
        let d = diagnose(
            "vendor.lib(codec.obj) : fatal error C1047: The object or library file 'vendor.lib(codec.obj)' was created by a different version of the compiler than other objects like 'main.obj'; rebuild all objects and libraries with the same compiler\nLINK : fatal error LNK1257: code generation failed\n",
        );
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::LtcgMismatch);
        assert!(p.summary.contains("vendor.lib(codec.obj)"), "{}", p.summary);
        assert!(p.fix.starts_with("rebuild vendor.lib with"), "{}", p.fix);
        assert_eq!(p.lines, vec![1, 2]);
        for s in ["vendor.lib(codec.obj)", "main.obj"] {
            assert!(p.subjects.iter().any(|x| x == s), "{s}: {:?}", p.subjects);
        }
    }

    #[test]
    fn lld_link_cannot_read_gl_objects_or_newer_bitcode() {
        let d = diagnose(
            "lld-link: error: fast.obj: is not a native COFF file. Recompile without /GL\n",
        );
        assert_eq!(d.problems[0].kind, ProblemKind::LtcgMismatch);
        assert_eq!(d.problems[0].subjects, vec!["fast.obj"]);
        let d = diagnose("lld-link: error: kern.obj: Unknown attribute kind (91) (Producer: 'LLVM19.1.7' Reader: 'LLVM 14.0.6')\n");
        assert_eq!(d.problems[0].kind, ProblemKind::LtcgMismatch);
        assert!(
            d.problems[0].cause.contains("LLVM 14.0.6"),
            "{}",
            d.problems[0].cause
        );
    }

    #[test]
    fn a_warning_made_fatal_by_wx_is_named_with_its_fix() {
        let d = diagnose("a.obj : warning LNK4217: symbol 'foo' defined in 'b.obj' is imported by 'a.obj' in function 'main'\nLINK : error LNK1218: warning treated as error; no output file generated\n");
        let p = d
            .problems
            .iter()
            .find(|p| p.summary.starts_with("a warning was treated"))
            .unwrap();
        assert!(p.summary.contains("LNK4217"), "{}", p.summary);
        assert!(p.cause.contains("(line 1)"), "{}", p.cause);
        assert!(p.fix.contains("dllimport"), "{}", p.fix);
        assert_eq!(p.lines, vec![1, 2]);
        // With no warning before it, the general answer.
        let d =
            diagnose("LINK : error LNK1218: warning treated as error; no output file generated\n");
        assert_eq!(d.problems[0].summary, "a warning was treated as an error");
        assert!(d.problems[0].fix.contains("fix the warning above"));
    }

    #[test]
    fn an_import_library_named_like_an_input_and_two_resource_files() {
        let d = diagnose("LINK : fatal error LNK1149: output filename matches input filename 'D:\\w\\build\\Debug\\server.lib'\n");
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::Other);
        assert!(
            p.summary
                .contains("import library D:\\w\\build\\Debug\\server.lib"),
            "{}",
            p.summary
        );
        assert!(p.fix.contains("OUTPUT_NAME"), "{}", p.fix);
        assert_eq!(p.subjects, vec!["D:\\w\\build\\Debug\\server.lib"]);
        let d = diagnose(
            "LINK : fatal error LNK1149: output filename matches input filename 'tool.exe'\n",
        );
        assert_eq!(
            d.problems[0].summary,
            "the output tool.exe is also an input of the link"
        );
        let d = diagnose("|| core_s.lib(core.rc.res) : fatal error LNK1241: resource file gfx_s.lib(gfx.rc.res) already specified\n");
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::Other);
        for s in ["core_s.lib(core.rc.res)", "gfx_s.lib(gfx.rc.res)"] {
            assert!(p.subjects.iter().any(|x| x == s), "{s}: {:?}", p.subjects);
        }
        assert!(p.fix.contains("without their .rc files"), "{}", p.fix);
    }

    #[test]
    fn a_managed_dll_entry_and_a_tool_that_failed() {
        let d = diagnose("LINK : fatal error LNK1306: DLL entry point function cannot be managed; compile to native\n");
        assert_eq!(d.problems[0].kind, ProblemKind::EntryPoint);
        assert!(d.problems[0].fix.contains("#pragma managed(push, off)"));
        let d = diagnose("C:\\b\\lnk{0A}.tmp(2) : error RC2135 : file not found: app.manifest\nLINK : fatal error LNK1327: failure during running rc.exe\n");
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::ToolFailed);
        assert_eq!(p.summary, "rc.exe, which the linker runs, failed");
        assert!(
            p.cause
                .contains("error RC2135 : file not found: app.manifest"),
            "{}",
            p.cause
        );
        assert_eq!(p.lines, vec![1, 2]);
        assert_eq!(p.subjects, vec!["rc.exe"]);
        // Without the tool's own line, the general cause.
        let d = diagnose("LINK : fatal error LNK1327: failure during running mt.exe\n");
        assert!(
            d.problems[0].cause.contains("mt.exe for the manifest"),
            "{}",
            d.problems[0].cause
        );
    }

    #[test]
    fn newer_bitcode_without_a_file_name_names_no_file() {
        let d = diagnose("lld-link-14: error: Opaque pointers are only supported in -opaque-pointers mode (Producer: 'LLVM19.1.7' Reader: 'LLVM 14.0.6')\n");
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::LtcgMismatch);
        assert!(p.subjects.is_empty(), "{:?}", p.subjects);
        assert!(
            p.summary.starts_with("an object holds LLVM bitcode"),
            "{}",
            p.summary
        );
        assert!(p.cause.contains("LLVM 14.0.6"), "{}", p.cause);
    }

    #[test]
    fn an_invalid_export_an_option_that_needs_another_and_a_missing_pch_object() {
        let d = diagnose("Net.def : fatal error LNK1242: '?clamp@@$$J0YANNNN@Z' is an invalid export symbol name\n");
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::Other);
        assert_eq!(p.subjects, vec!["?clamp@@$$J0YANNNN@Z", "Net.def"]);
        assert!(p.cause.contains("managed code"), "{}", p.cause);
        assert!(
            p.fix.contains("remove ?clamp@@$$J0YANNNN@Z from Net.def"),
            "{}",
            p.fix
        );
        // A name with a character no identifier has is corrected, not removed.
        let d =
            diagnose("x.def : fatal error LNK1242: 'my.func' is an invalid export symbol name\n");
        assert!(
            d.problems[0].fix.starts_with("correct my.func in x.def"),
            "{}",
            d.problems[0].fix
        );
        let d = diagnose("LINK : fatal error LNK1220: 'MANIFESTINPUT' requires '/MANIFEST:EMBED' specification\n");
        let p = &d.problems[0];
        assert_eq!(p.summary, "/MANIFESTINPUT needs /MANIFEST:EMBED");
        assert!(p.fix.starts_with("add /MANIFEST:EMBED"), "{}", p.fix);
        let d = diagnose("LINK : fatal error LNK1211: precompiled type information not found; 'stdafx.obj' not linked or overwritten\n");
        let p = &d.problems[0];
        assert!(p.fix.starts_with("link stdafx.obj"), "{}", p.fix);
        assert_eq!(p.subjects, vec!["stdafx.obj"]);
    }

    #[test]
    fn a_tool_that_ran_and_failed_is_not_a_missing_tool() {
        for log in [
            "LINK : fatal error LNK1327: failure during running rc.exe\n",
            "LINK : fatal error LNK1123: failure during conversion to COFF: file invalid or corrupt\n",
            "LINK : fatal error LNK1240: failed to compile IDL content\n",
        ] {
            assert_eq!(diagnose(log).problems[0].kind, ProblemKind::ToolFailed, "{log}");
        }
        assert_eq!(
            diagnose("LINK : fatal error LNK1158: cannot run 'rc.exe'\n").problems[0].kind,
            ProblemKind::ToolMissing
        );
        // mt.exe cannot write into an image another process holds: the holder is the fix.
        let d = diagnose("mt.exe : general error c101008d: Failed to write the updated manifest to the resource of file \"a.exe\". The process cannot access the file because it is being used by another process.\nLINK : fatal error LNK1327: failure during running mt.exe\n");
        assert!(
            d.problems[0].fix.starts_with("close what holds"),
            "{}",
            d.problems[0].fix
        );
    }
}
