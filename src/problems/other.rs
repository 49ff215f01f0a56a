//! Other failures lnkfix recognises, outside the six classes (docs/RULES.md §20): an LNK2038 on a
//! `#pragma detect_mismatch` key that is no CRT or toolset choice (`other`), a file the linker
//! cannot read as an object or library (LNK1107, LNK1136, lld-link's `unknown file type`:
//! `corrupt-input`), and a program database it cannot write (LNK1201, LNK1318: `pdb`). The rest of
//! the fatal errors are in [`super::fatal`]'s catalogue.

use super::crt_mismatch::mismatch_sides;
use super::text::{files, quoted};
use super::{join_words, Problem, ProblemKind, Scan};

/// The file an lld-link `X: unknown file type` names.
fn lld_file(text: &str) -> Option<String> {
    let (file, _) = text.split_once(": ")?;
    (!file.is_empty() && !file.contains(' ')).then(|| file.to_string())
}

/// The offset of LNK1107's `cannot read at 0x86` (any language: the first hexadecimal number).
fn read_offset(text: &str) -> Option<u64> {
    let at = text.find("0x").or_else(|| text.find("0X"))?;
    let digits: String = text[at + 2..]
        .chars()
        .take_while(char::is_ascii_hexdigit)
        .collect();
    u64::from_str_radix(&digits, 16).ok()
}

/// A path's file name without its extension (`C:\\deps\\zlib1.dll`: `zlib1`).
fn file_stem(path: &str) -> &str {
    let name = path.rsplit(['\\', '/']).next().unwrap_or(path);
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

/// The other problems of the diagnosis: mismatched `#pragma detect_mismatch` values, files the
/// linker cannot read, a program database it cannot write.
pub(super) fn find(scan: &mut Scan<'_>) -> Vec<Problem> {
    let mut out = mismatches(scan);
    out.extend(unreadable_files(scan));
    out.extend(unwritable_pdbs(scan));
    out
}

/// LNK2038 and lld-link's `/failifmismatch`: objects built with different values of one key.
fn mismatches(scan: &mut Scan<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut mismatches = scan.unclaimed(&["LNK2038"]);
    mismatches.extend(scan.unclaimed_lld("/failifmismatch"));
    for (i, f) in mismatches {
        let Some((key, sides)) = mismatch_sides(f) else {
            continue;
        };
        scan.claim(i);
        let described: Vec<String> = sides.iter().map(|(o, v)| format!("{o} {v}")).collect();
        let mut problem = Problem::new(
            ProblemKind::Other,
            format!("objects built with different values of {key}: {}", join_words(&described)),
            format!(
                "a header records {key} in every object that includes it (#pragma detect_mismatch), and the linker refuses objects whose values differ"
            ),
            format!("build every object and library of the link with the same setting of {key}"),
        );
        problem.line(f.line);
        for (object, value) in sides {
            problem.subject(object);
            problem.subject(value);
        }
        problem.subject(key);
        out.push(problem);
    }
    out
}

/// lld-link's texts for a file it cannot read as an object or library: no known format, an object
/// cut short (LLVM's object reader: `The end of the file was unexpectedly encountered`), an
/// archive cut short or damaged, a file LLVM's reader rejects.
const LLD_UNREADABLE: &[&str] = &[
    "unknown file type",
    "bad file type",
    "The end of the file was unexpectedly encountered",
    "truncated or malformed archive",
    "The file was not recognized as a valid object file",
    "Invalid data was encountered while parsing the file",
    "string table empty",
];

/// LNK1107, LNK1136 and lld-link's unknown or bad file type: a file that is no object or library
/// (a DLL, a corrupt or foreign archive).
fn unreadable_files(scan: &mut Scan<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    let mut unreadable = scan.unclaimed(&["LNK1107", "LNK1136"]);
    unreadable.extend(scan.unclaimed_lld("").into_iter().filter(|(_, f)| {
        f.code == "lld-link error" && LLD_UNREADABLE.iter().any(|t| f.text.contains(t))
    }));
    for (i, f) in unreadable {
        scan.claim(i);
        let file = quoted(&f.text)
            .into_iter()
            .chain(lld_file(&f.text))
            .chain(files(&f.text))
            .chain(f.objects.iter().cloned())
            .next();
        let named = file.is_some();
        let file = file.unwrap_or_else(|| "an object or library of the link".into());
        let is_dll = file.to_ascii_lowercase().ends_with(".dll");
        let cut_short = f
            .text
            .contains("end of the file was unexpectedly encountered")
            || f.text.contains("truncated or malformed archive")
            || f.text.contains("string table empty");
        let lfs_pointer = !is_dll && read_offset(&f.text).is_some_and(|at| at < 0x200);
        let (cause, fix) = if lfs_pointer {
            let at = read_offset(&f.text).unwrap_or_default();
            (
                format!("{file} is only about {at} bytes long (the linker could not read past offset {at:#X}): a Git LFS pointer in place of the library (a clone without git-lfs, or a source archive downloaded as a zip), or a file cut short"),
                format!("fetch the real {file}: install Git LFS and run git lfs pull in its repository (or clone it instead of downloading the zip), then link again"),
            )
        } else if !named {
            (
                format!("{file} is damaged or was cut short (the linker's message names no file): a build stopped while writing it, a full disk, a copy or download cut short"),
                "delete the build's objects and libraries (a clean build) and link again; a prebuilt library that is still refused is the damaged one: download it again".to_string(),
            )
        } else if cut_short {
            (
                format!("{file} ends before the data its headers announce: it was cut short or damaged (a build stopped while writing it, a full disk, a copy or download cut short, a Git LFS pointer)"),
                format!("delete {file} and rebuild it (or download it again), then link again"),
            )
        } else if is_dll {
            let import = format!("{}.lib", file_stem(&file));
            (
                format!("{file} is a DLL: the linker reads only objects and libraries, and a DLL is linked through its import library"),
                format!("link the import library {import} that comes with {file} (or make one from its exports with lib /DEF:), not the DLL itself"),
            )
        } else {
            (
                format!("{file} is invalid or corrupt for this linker: a GNU or ELF archive, an object of another compiler's format, a download cut short, or a Git LFS pointer instead of the file"),
                format!("replace {file} with the library built by MSVC or LLVM for this machine (lnkfix index {file} shows what the file is)"),
            )
        };
        let mut problem = Problem::new(
            ProblemKind::CorruptInput,
            if named {
                format!("{file} is not an object or library the linker can read")
            } else {
                "an object or library of the link is damaged".into()
            },
            cause,
            fix,
        );
        problem.line(f.line);
        if named {
            problem.subject(file);
        }
        out.push(problem);
    }
    out
}

/// LNK1201 and LNK1318: the program database cannot be written.
fn unwritable_pdbs(scan: &mut Scan<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    for (i, f) in scan.unclaimed(&["LNK1201", "LNK1318"]) {
        scan.claim(i);
        let pdb = quoted(&f.text)
            .into_iter()
            .find(|q| q.to_ascii_lowercase().ends_with(".pdb"));
        let (cause, fix) = pdb_cause_and_fix(&f.text);
        let mut problem = Problem::new(
            ProblemKind::Pdb,
            format!(
                "the linker cannot write the program database{}",
                pdb.as_deref().map(|p| format!(" {p}")).unwrap_or_default()
            ),
            cause.into(),
            fix.into(),
        );
        problem.line(f.line);
        if let Some(pdb) = pdb {
            problem.subject(pdb);
        }
        out.push(problem);
    }
    out
}

/// The cause and fix of a PDB that cannot be written, by the error class LNK1318 names
/// (`Unexpected PDB error; LIMIT (12)`): the PDB outgrew its format's limit, the PDB server
/// (mspdbsrv.exe) failed, or the file system refused; anything else (LNK1201) is the usual list.
fn pdb_cause_and_fix(text: &str) -> (&'static str, &'static str) {
    if text.contains("LIMIT (12)") {
        (
            "the program database outgrew the limit of its page size (4 GB at the default 4 KB pages): a link with a lot of debug information",
            "link with /PDBPAGESIZE:8192 (Visual Studio 2019 16.11 or newer) so the PDB may grow past 4 GB, or emit less debug information (a Release build, /DEBUG:NONE for the largest targets, or fewer instantiations)",
        )
    } else if text.contains("RPC (23)") {
        (
            "the PDB server (mspdbsrv.exe) that writes the program database failed: it ran out of memory, or a hung server from an earlier or parallel build holds the PDB",
            "end every mspdbsrv.exe (Task Manager, or taskkill /f /im mspdbsrv.exe), give each parallel link its own /PDB: file, and link again; with a 32-bit host toolset, use the 64-bit one",
        )
    } else if text.contains("FILE_SYSTEM (3)") {
        (
            "the file system refused the program database: a stale PDB from a restored build cache, a path too long, or a scanner holding the file",
            "delete the .pdb (and a restored build cache that holds it) and link again",
        )
    } else {
        (
            "the PDB is held by another process (a debugger, mspdbsrv.exe of an earlier build), the disk is full, or the path is too long",
            "close the debugger or end mspdbsrv.exe, free disk space, or link with a shorter /PDB: path; then link again",
        )
    }
}

#[cfg(test)]
mod tests {
    use crate::problems::ProblemKind;

    use crate::problems::diagnose_text as diagnose;

    #[test]
    fn another_detect_mismatch_key_is_named_with_both_sides() {
        let d = diagnose(
            "b.obj : error LNK2038: mismatch detected for 'Qt_version': value '6.5' doesn't match value '6.8' in a.obj\n",
        );
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::Other);
        assert!(p.summary.contains("Qt_version"), "{}", p.summary);
        for s in ["b.obj", "a.obj", "6.5", "6.8", "Qt_version"] {
            assert!(p.subjects.iter().any(|x| x == s), "{s}: {:?}", p.subjects);
        }
        assert_eq!(p.lines, vec![1]);
    }

    #[test]
    fn a_file_that_is_no_library_and_a_pdb_that_cannot_be_written() {
        let d = diagnose(
            "C:\\deps\\zlib1.dll : fatal error LNK1107: invalid or corrupt file: cannot read at 0x2F8\n",
        );
        assert_eq!(d.problems[0].kind, ProblemKind::CorruptInput);
        assert!(
            d.problems[0]
                .subjects
                .iter()
                .any(|s| s.ends_with("zlib1.dll")),
            "{:?}",
            d.problems[0].subjects
        );
        let d = diagnose("LINK : fatal error LNK1201: error writing to program database 'C:\\b\\app.pdb'; check for insufficient disk space, invalid path, or insufficient privilege\n");
        assert_eq!(d.problems[0].kind, ProblemKind::Pdb);
        assert!(d.problems[0]
            .subjects
            .iter()
            .any(|s| s.ends_with("app.pdb")));
    }

    #[test]
    fn msc_ver_mismatch_is_a_toolset_mismatch_with_the_products() {
        let d = diagnose(
            "old.lib(x.obj) : error LNK2038: mismatch detected for '_MSC_VER': value '1800' doesn't match value '1916' in main.obj\n",
        );
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::ToolsetMismatch);
        assert!(p.summary.contains("Visual Studio 2013"), "{}", p.summary);
        assert!(p.summary.contains("Visual Studio 2017"), "{}", p.summary);
        assert!(p.fix.contains("old.lib"), "{}", p.fix);
    }

    #[test]
    fn lld_link_names_a_file_cut_short_or_none() {
        let d = diagnose("lld-link: error: cut.lib: truncated or malformed archive (remaining size of archive too small for next archive member header for f.obj)\n");
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::CorruptInput);
        assert_eq!(p.subjects, vec!["cut.lib"]);
        assert!(
            p.fix.starts_with("delete cut.lib and rebuild it"),
            "{}",
            p.fix
        );
        let d = diagnose(
            "lld-link: error: part.obj: The end of the file was unexpectedly encountered\n",
        );
        assert_eq!(d.problems[0].subjects, vec!["part.obj"]);
        let d = diagnose("lld-link: error: string table empty\n");
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::CorruptInput);
        assert!(p.subjects.is_empty(), "{:?}", p.subjects);
        assert_eq!(p.summary, "an object or library of the link is damaged");
        // LNK1136 without a file (lib.exe's summary line): no made-up name in the fix.
        let d = diagnose("fatal error LNK1136: invalid or corrupt file\n");
        let p = &d.problems[0];
        assert!(p.subjects.is_empty(), "{:?}", p.subjects);
        assert!(p.fix.starts_with("delete the build's objects"), "{}", p.fix);
    }

    #[test]
    fn a_library_unreadable_near_its_start_is_a_git_lfs_pointer() {
        let d = diagnose("1>..\\deps\\img.lib : fatal error LNK1107: invalid or corrupt file: cannot read at 0x84\n");
        let p = &d.problems[0];
        assert_eq!(p.kind, ProblemKind::CorruptInput);
        assert!(p.cause.contains("about 132 bytes"), "{}", p.cause);
        assert!(p.fix.contains("git lfs pull"), "{}", p.fix);
        // Far into the file: not a pointer.
        let d = diagnose(
            "big.lib : fatal error LNK1107: invalid or corrupt file: cannot read at 0x1F3A00\n",
        );
        assert!(
            !d.problems[0].fix.contains("git lfs"),
            "{}",
            d.problems[0].fix
        );
    }
}
