//! A link command made safe to re-run: every file it would write goes into a scratch directory
//! instead of the build (docs/RULES.md §18), and the fix's flags are added where its program takes
//! linker options. Response files that had to change are written into the scratch directory in
//! their own encoding; the others are passed as they were.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::command::{Argument, Driver, LinkCommand};
use super::rsp;

/// Linker options whose value is a file (or directory) the link writes, as link.exe and lld-link
/// spell them (lower case, without the `/`, `-` or `--`; the value after `:` or `=`), the MinGW
/// spellings lld takes through clang (`--out-implib=`, `-Map=`, `--pdb=`) included.
pub const LINKER_OUTPUTS: &[&str] = &[
    "out",
    "pdb",
    "pdbstripped",
    "implib",
    "map",
    "ilk",
    "manifestfile",
    "idlout",
    "tlbout",
    "winmdfile",
    "pgd",
    "ltcgout",
    "lldmap",
    "lldltocache",
    "lto-obj-path",
    "dwodir",
    "print-symbol-order",
    "time-trace",
    "out-implib",
    "output-def",
    "dependency-file",
];

/// link.exe options that write a profile database named inside their value
/// (`/GENPROFILE:PGD=x.pgd`, `/FASTGENPROFILE:EXACT,PGD=x.pgd`).
const PROFILE_OPTIONS: &[&str] = &["genprofile", "fastgenprofile"];

/// An output the build's command names, and where the re-run writes it instead.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Redirect {
    /// The argument as the build wrote it (`/out:link/md.dll`, `-o`).
    pub option: String,
    /// The file the build would write (`link/md.dll`), or `null` for an output lnkfix named
    /// because the command names none (link.exe would derive it from the first input).
    pub file: Option<String>,
    /// Where the re-run writes it.
    pub to: String,
}

/// A response file written for the re-run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WrittenResponseFile {
    /// The file written (in the scratch directory).
    pub path: String,
    /// The one it replaces, as the command named it.
    pub replaces: String,
    /// Its arguments.
    pub arguments: Vec<String>,
}

/// The command as it is run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Prepared {
    /// Program and arguments.
    pub argv: Vec<String>,
    /// Every output moved into the scratch directory.
    pub redirected: Vec<Redirect>,
    /// Response files written for the run.
    pub response_files: Vec<WrittenResponseFile>,
    /// The linked image the run writes (in the scratch directory): a success must leave it.
    pub image: PathBuf,
}

/// Where a word is read: as a linker argument, or as a driver argument (before `/link`, or not
/// after `-Xlinker`/`-Wl,`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Linker,
    Driver,
}

/// Hands out file names in the scratch directory, never the same one twice.
struct Scratch<'a> {
    dir: &'a Path,
    used: HashSet<String>,
}

impl Scratch<'_> {
    fn file(&mut self, wanted: &str) -> PathBuf {
        let base = super::command::file_name(wanted.trim_end_matches(['\\', '/']));
        let base = if base.is_empty() || base == "." || base == ".." {
            "output"
        } else {
            base
        };
        let mut name = base.to_string();
        let mut n = 1;
        while !self.used.insert(name.to_ascii_lowercase()) {
            n += 1;
            name = format!("{n}-{base}");
        }
        self.dir.join(name)
    }
}

fn text(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The output a linker word names: `(prefix up to the value, value)` of `/OUT:x`, `-pdb:x`,
/// `--out-implib=x`, or the `PGD=` part of `/GENPROFILE:...,PGD=x` (then the rest of the option
/// after the value is left out of the value).
fn linker_output(word: &str) -> Option<(&str, &str)> {
    let rest = word
        .strip_prefix("--")
        .or_else(|| word.strip_prefix(['/', '-']))?;
    let separator = rest.find([':', '='])?;
    let name = &rest[..separator];
    let value = &rest[separator + 1..];
    if PROFILE_OPTIONS.iter().any(|o| o.eq_ignore_ascii_case(name)) {
        let at = value.to_ascii_lowercase().find("pgd=")? + "pgd=".len();
        let end = value[at..].find(',').map_or(value.len(), |e| at + e);
        let start = word.len() - value.len() + at;
        return (end > at).then(|| (&word[..start], &word[start..start + end - at]));
    }
    (!value.is_empty() && LINKER_OUTPUTS.iter().any(|o| o.eq_ignore_ascii_case(name)))
        .then(|| (&word[..word.len() - value.len()], value))
}

/// The word with its output value (at `prefix.len()`, `value.len()` long) replaced by `to`.
fn replace_value(word: &str, prefix: &str, value: &str, to: &Path) -> String {
    format!(
        "{prefix}{}{}",
        text(to),
        &word[prefix.len() + value.len()..]
    )
}

/// A driver word that names the linked output with its value joined (`/Fe:x`, `/Fex`, `-ox`,
/// `--output=x`): `(prefix, value)`.
fn joined_driver_output(driver: Driver, word: &str) -> Option<(&str, &str)> {
    let split = |prefix_len: usize| {
        let value = &word[prefix_len..];
        (!value.is_empty()).then(|| (&word[..prefix_len], value))
    };
    match driver {
        Driver::Cl => {
            let option = word.strip_prefix(['/', '-'])?;
            for name in ["Fe:", "Fe", "Fm:", "Fm", "Fd:", "Fd"] {
                if option.starts_with(name) {
                    return split(1 + name.len());
                }
            }
            None
        }
        Driver::Gnu => {
            for prefix in [
                "--output=",
                "-ftime-trace=",
                "-fcrash-diagnostics-dir=",
                "-MF",
            ] {
                if word.starts_with(prefix) {
                    return split(prefix.len());
                }
            }
            let value = word.strip_prefix("-o")?;
            // `-objcmt-...` and friends are other options; a path has a dot or a separator.
            value.contains(['.', '/', '\\']).then(|| split(2)).flatten()
        }
        Driver::Linker => None,
    }
}

/// Driver options whose value is the next word: the output ones, and the ones to step over.
fn driver_takes_next(driver: Driver, word: &str) -> Option<bool> {
    match (driver, word) {
        (Driver::Gnu, "-o" | "--output" | "-MF") => Some(true),
        (Driver::Cl, "/Fe:" | "-Fe:" | "/Fm:" | "-Fm:" | "/Fd:" | "-Fd:" | "-o") => Some(true),
        (Driver::Gnu, "-Xclang" | "-mllvm" | "-MT" | "-MQ" | "-include" | "-isystem")
        | (Driver::Cl, "-Xclang" | "-mllvm") => Some(false),
        _ => None,
    }
}

/// Moves every output among `words` into the scratch directory; returns where the image the
/// command names goes (`None`: it names none, and link.exe and the drivers derive one in the
/// working directory) and whether it links a DLL.
fn redirect_words(
    driver: Driver,
    words: &mut [&mut String],
    scratch: &mut Scratch<'_>,
    redirected: &mut Vec<Redirect>,
) -> (Option<PathBuf>, bool) {
    let mut image = None;
    let mut dll = false;
    let mut mode = if driver == Driver::Linker {
        Mode::Linker
    } else {
        Mode::Driver
    };
    let mut index = 0;
    while index < words.len() {
        let word = words[index].clone();
        if mode == Mode::Linker
            || (driver == Driver::Gnu && index > 0 && words[index - 1].as_str() == "-Xlinker")
        {
            if let Some((prefix, value)) = linker_output(&word) {
                let to = scratch.file(value);
                if prefix.to_ascii_lowercase().ends_with("out:") {
                    image = Some(to.clone());
                }
                record(&word, value, &to, redirected);
                *words[index] = replace_value(&word, prefix, value, &to);
            }
            dll |= word.eq_ignore_ascii_case("/dll") || word.eq_ignore_ascii_case("-dll");
            index += 1;
            continue;
        }
        if driver == Driver::Cl
            && (word.eq_ignore_ascii_case("/link") || word.eq_ignore_ascii_case("-link"))
        {
            mode = Mode::Linker;
            index += 1;
            continue;
        }
        dll |= matches!(
            (driver, word.as_str()),
            (Driver::Gnu, "-shared") | (Driver::Cl, "/LD" | "/LDd" | "-LD" | "-LDd")
        );
        if let Some(list) = word.strip_prefix("-Wl,").filter(|_| driver == Driver::Gnu) {
            let (rewritten, named, is_dll) = redirect_comma_list(&word, list, scratch, redirected);
            image = named.or(image);
            dll |= is_dll;
            *words[index] = rewritten;
            index += 1;
            continue;
        }
        if let Some((prefix, value)) = joined_driver_output(driver, &word) {
            let to = scratch.file(value);
            if !is_map_option(prefix) {
                image = Some(to.clone());
            }
            record(&word, value, &to, redirected);
            *words[index] = format!("{prefix}{}", text(&to));
            index += 1;
            continue;
        }
        match driver_takes_next(driver, &word) {
            Some(is_output) if index + 1 < words.len() => {
                if is_output {
                    let value = words[index + 1].clone();
                    let to = scratch.file(&value);
                    if !is_map_option(&word) {
                        image = Some(to.clone());
                    }
                    record(&format!("{word} {value}"), &value, &to, redirected);
                    *words[index + 1] = text(&to);
                }
                index += 2;
            }
            _ => index += 1,
        }
    }
    (image, dll)
}

/// `-Wl,A,B,...` with the outputs among A, B, ... redirected; where the image it names goes, and
/// whether it holds `/dll`.
fn redirect_comma_list(
    word: &str,
    list: &str,
    scratch: &mut Scratch<'_>,
    redirected: &mut Vec<Redirect>,
) -> (String, Option<PathBuf>, bool) {
    let mut image = None;
    let mut dll = false;
    let mut parts = Vec::new();
    for part in list.split(',') {
        match linker_output(part) {
            Some((prefix, value)) => {
                let to = scratch.file(value);
                if prefix.to_ascii_lowercase().ends_with("out:") {
                    image = Some(to.clone());
                }
                record(word, value, &to, redirected);
                parts.push(replace_value(part, prefix, value, &to));
            }
            None => {
                dll |= part.eq_ignore_ascii_case("/dll");
                parts.push(part.to_string());
            }
        }
    }
    (format!("-Wl,{}", parts.join(",")), image, dll)
}

fn record(option: &str, file: &str, to: &Path, redirected: &mut Vec<Redirect>) {
    redirected.push(Redirect {
        option: option.to_string(),
        file: Some(file.to_string()),
        to: text(to),
    });
}

/// Whether a driver option names another file than the linked image: a map (`/Fm`), a PDB
/// (`/Fd`), a dependency file (`-MF`), a time trace, a crash directory.
fn is_map_option(option: &str) -> bool {
    let name = option.trim_start_matches(['/', '-']);
    ["Fm", "Fd", "MF", "ftime-trace", "fcrash-diagnostics-dir"]
        .iter()
        .any(|o| name.starts_with(o))
}

fn words_mut<'a>(arguments: &'a mut [Argument], out: &mut Vec<&'a mut String>) {
    for argument in arguments {
        match argument {
            Argument::Word(word) => out.push(word),
            Argument::Response(response) => words_mut(&mut response.contents, out),
        }
    }
}

/// The words at this level, writing the response files whose words changed (or that exist only
/// in `build.ninja`) into the scratch directory.
fn materialize(
    arguments: &[Argument],
    scratch: &mut Scratch<'_>,
    written: &mut Vec<WrittenResponseFile>,
) -> Result<Vec<String>, String> {
    let mut out = Vec::with_capacity(arguments.len());
    for argument in arguments {
        match argument {
            Argument::Word(word) => out.push(word.clone()),
            Argument::Response(response) => {
                let words = materialize(&response.contents, scratch, written)?;
                if !response.generated && words == response.original {
                    out.push(response.written.clone());
                    continue;
                }
                let path = scratch.file(&format!(
                    "response-{}",
                    super::command::file_name(&response.path.to_string_lossy())
                ));
                std::fs::write(&path, rsp::encode(&words, response.encoding))
                    .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
                written.push(WrittenResponseFile {
                    path: text(&path),
                    replaces: response.written.clone(),
                    arguments: words,
                });
                out.push(format!("@{}", text(&path)));
            }
        }
    }
    Ok(out)
}

/// The stem of the first object or library input, which link.exe names its output after when the
/// command names none.
fn first_input_stem(words: &[&str]) -> String {
    words
        .iter()
        .find(|w| {
            let lower = w.to_ascii_lowercase();
            !super::command::is_option(w)
                && [".obj", ".o", ".lib", ".a", ".res"]
                    .iter()
                    .any(|e| lower.ends_with(e))
        })
        .map(|w| {
            let name = super::command::file_name(w);
            name.rsplit_once('.')
                .map_or(name, |(stem, _)| stem)
                .to_string()
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "a".to_string())
}

/// Prepares `command` to run with `flags` appended, every output in `scratch_dir`.
pub fn prepare(
    command: &LinkCommand,
    flags: &[String],
    scratch_dir: &Path,
) -> Result<Prepared, String> {
    let mut arguments = command.arguments.clone();
    let mut redirected = Vec::new();
    let mut scratch = Scratch {
        dir: scratch_dir,
        used: HashSet::new(),
    };
    let (image, dll) = {
        let mut words = Vec::new();
        words_mut(&mut arguments, &mut words);
        redirect_words(command.driver, &mut words, &mut scratch, &mut redirected)
    };
    let mut response_files = Vec::new();
    let mut argv = vec![command.program.clone()];
    argv.extend(materialize(&arguments, &mut scratch, &mut response_files)?);
    let has_link_switch = command
        .words()
        .iter()
        .any(|w| w.eq_ignore_ascii_case("/link") || w.eq_ignore_ascii_case("-link"));
    if command.driver == Driver::Cl && !has_link_switch {
        argv.push("/link".into());
    }
    let image = match image {
        Some(image) => image,
        None => name_output(command, dll, &mut argv, &mut scratch, &mut redirected),
    };
    for flag in flags {
        if command.driver == Driver::Gnu {
            argv.push("-Xlinker".into());
        }
        argv.push(flag.clone());
    }
    Ok(Prepared {
        argv,
        redirected,
        response_files,
        image,
    })
}

/// Names the image of a command that names none, in the scratch directory (else link.exe and the
/// drivers would derive one in the working directory).
fn name_output(
    command: &LinkCommand,
    dll: bool,
    argv: &mut Vec<String>,
    scratch: &mut Scratch<'_>,
    redirected: &mut Vec<Redirect>,
) -> PathBuf {
    let name = format!(
        "{}.{}",
        first_input_stem(&command.words()),
        if dll { "dll" } else { "exe" }
    );
    let to = scratch.file(&name);
    let option = match command.driver {
        Driver::Gnu => {
            argv.push("-o".into());
            argv.push(text(&to));
            "-o".to_string()
        }
        Driver::Linker | Driver::Cl => {
            argv.push(format!("/OUT:{}", text(&to)));
            "/OUT:".to_string()
        }
    };
    redirected.push(Redirect {
        option,
        file: None,
        to: text(&to),
    });
    to
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fix::verify::command::{parse, GeneratedFiles, ParseContext};

    fn prepared(text: &str, dir: &Path, scratch: &Path) -> Prepared {
        let generated = GeneratedFiles::new();
        let context = ParseContext {
            directory: dir,
            generated: &generated,
            any_program: false,
            bounds: crate::fix::verify::Bounds::default(),
        };
        let command = parse(text, &context).unwrap();
        prepare(&command, &["amdhip64.lib".into()], scratch).unwrap()
    }

    #[test]
    fn every_linker_output_is_redirected() {
        let scratch = tempfile::tempdir().unwrap();
        let s = |name: &str| text(&scratch.path().join(name));
        let p = prepared(
            r"lld-link /nologo /OUT:bin\x.dll /implib:lib\x.lib -PDB:bin\x.pdb /map:x.map /ILK:x.ilk /pdbaltpath:%_PDB% /dll a.obj",
            Path::new("."),
            scratch.path(),
        );
        assert_eq!(
            p.argv,
            [
                "lld-link".to_string(),
                "/nologo".into(),
                format!("/OUT:{}", s("x.dll")),
                format!("/implib:{}", s("x.lib")),
                format!("-PDB:{}", s("x.pdb")),
                format!("/map:{}", s("x.map")),
                format!("/ILK:{}", s("x.ilk")),
                "/pdbaltpath:%_PDB%".into(),
                "/dll".into(),
                "a.obj".into(),
                "amdhip64.lib".into(),
            ]
        );
        assert_eq!(p.redirected.len(), 5);
        assert_eq!(p.redirected[0].file.as_deref(), Some(r"bin\x.dll"));
    }

    /// Checks that the prepared `text` passes no word naming `keep/` and redirects `keep/FILE`.
    fn assert_redirected(text: &str, file: &str, scratch: &Path) {
        let p = prepared(text, Path::new("."), scratch);
        assert!(
            p.argv.iter().all(|w| !w.contains("keep/")),
            "{text}: {:?}",
            p.argv
        );
        assert!(
            p.redirected
                .iter()
                .any(|r| r.file.as_deref() == Some(file) && r.to.starts_with(&*text_of(scratch))),
            "{text}: {:?}",
            p.redirected
        );
    }

    fn text_of(path: &Path) -> String {
        text(path)
    }

    /// Every option that writes, in every spelling and wherever the linker gets it: as a
    /// linker's argument (`/`, `-` upper case, `--` with `=`), through clang's `-Xlinker` and
    /// `-Wl,`, after clang-cl's `/link`; and the drivers' own.
    #[test]
    fn every_writing_option_is_redirected_one_by_one() {
        let scratch = tempfile::tempdir().unwrap();
        let scratch = scratch.path();
        // The list in docs/GUIDE.md, written out here so that a name dropped from the code's
        // table fails.
        let names = [
            "out",
            "pdb",
            "pdbstripped",
            "implib",
            "map",
            "ilk",
            "manifestfile",
            "idlout",
            "tlbout",
            "winmdfile",
            "pgd",
            "ltcgout",
            "lldmap",
            "lldltocache",
            "lto-obj-path",
            "dwodir",
            "print-symbol-order",
            "time-trace",
            "out-implib",
            "output-def",
            "dependency-file",
        ];
        for name in names {
            let spellings = [
                format!("/{name}:keep/f.x"),
                format!("-{}:keep/f.x", name.to_ascii_uppercase()),
                format!("--{name}=keep/f.x"),
            ];
            for option in spellings {
                for text in [
                    format!("lld-link /dll {option} a.obj"),
                    format!("clang -shared -o x.dll a.obj -Xlinker {option}"),
                    format!("clang -shared -o x.dll a.obj -Wl,/debug,{option}"),
                    format!("clang-cl a.obj /Fe:x.dll /link {option}"),
                ] {
                    assert_redirected(&text, "keep/f.x", scratch);
                }
            }
        }
    }

    /// link.exe's profile options and the drivers' own writing options, one by one.
    #[test]
    fn profile_and_driver_writing_options_are_redirected() {
        let scratch = tempfile::tempdir().unwrap();
        let scratch = scratch.path();
        for option in [
            "/GENPROFILE:PGD=keep/f.x",
            "/FASTGENPROFILE:EXACT,PGD=keep/f.x,MEMMAX=1",
        ] {
            assert_redirected(
                &format!("link.exe /dll {option} a.obj"),
                "keep/f.x",
                scratch,
            );
        }
        let p = prepared(
            "lld-link /FASTGENPROFILE:PGD=keep/f.x,MEMMAX=1 a.obj",
            Path::new("."),
            scratch,
        );
        assert!(p.argv[1].ends_with(",MEMMAX=1"), "{:?}", p.argv);
        for option in [
            "-o keep/f.x",
            "-okeep/f.x",
            "--output=keep/f.x",
            "-MF keep/f.x",
            "-MFkeep/f.x",
            "-ftime-trace=keep/f.x",
            "-fcrash-diagnostics-dir=keep/f.x",
        ] {
            assert_redirected(
                &format!("clang -shared a.obj {option}"),
                "keep/f.x",
                scratch,
            );
        }
        for option in [
            "/Fe:keep/f.x",
            "/Fekeep/f.x",
            "/Fm:keep/f.x",
            "/Fmkeep/f.x",
            "/Fd:keep/f.x",
            "-Fdkeep/f.x",
            "-o keep/f.x",
        ] {
            assert_redirected(&format!("clang-cl a.obj {option}"), "keep/f.x", scratch);
        }
    }

    #[test]
    fn an_output_is_named_when_the_command_names_none() {
        let scratch = tempfile::tempdir().unwrap();
        let p = prepared("lld-link /dll obj/app.obj", Path::new("."), scratch.path());
        assert_eq!(
            p.argv[3],
            format!("/OUT:{}", text(&scratch.path().join("app.dll")))
        );
        assert_eq!(p.redirected[0].file, None);
        let p = prepared("clang++ -shared a.o", Path::new("."), scratch.path());
        assert_eq!(
            p.argv[2..5],
            [
                "a.o".to_string(),
                "-o".into(),
                text(&scratch.path().join("a.dll"))
            ]
        );
    }

    #[test]
    fn drivers_take_the_flags_their_way() {
        let scratch = tempfile::tempdir().unwrap();
        let s = |name: &str| text(&scratch.path().join(name));
        // tvm-ffi's Windows link rule: `$cxx $in /link $ldflags /out:$out`.
        let p = prepared(
            r"cl cpp_0.o cuda_0.o /link /DLL /LIBPATH:C:\tvm_ffi\lib tvm_ffi.lib /out:ext.dll",
            Path::new("."),
            scratch.path(),
        );
        assert_eq!(p.argv.last().unwrap(), "amdhip64.lib");
        assert_eq!(p.argv[7], format!("/out:{}", s("ext.dll")));
        // clang-cl without /link gets one before the flags.
        let p = prepared(
            "clang-cl a.obj /Fe:x.dll /LD",
            Path::new("."),
            scratch.path(),
        );
        assert_eq!(
            p.argv,
            [
                "clang-cl".to_string(),
                "a.obj".into(),
                format!("/Fe:{}", s("x.dll")),
                "/LD".into(),
                "/link".into(),
                "amdhip64.lib".into()
            ]
        );
        // GNU drivers: -o, -Xlinker and -Wl, outputs; flags through -Xlinker.
        let p = prepared(
            r"clang -fuse-ld=lld-link -shared -o bin\x.dll a.obj -Xlinker /implib:lib\x.lib -Wl,/pdb:x.pdb,/debug",
            Path::new("."),
            scratch.path(),
        );
        assert_eq!(
            p.argv[3..],
            [
                "-o".to_string(),
                s("x.dll"),
                "a.obj".into(),
                "-Xlinker".into(),
                format!("/implib:{}", s("x.lib")),
                format!("-Wl,/pdb:{},/debug", s("x.pdb")),
                "-Xlinker".into(),
                "amdhip64.lib".into(),
            ]
        );
    }

    #[test]
    fn changed_response_files_are_rewritten_in_their_encoding() {
        let dir = tempfile::tempdir().unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let utf16 = |t: &str| -> Vec<u8> {
            std::iter::once(0xfeffu16)
                .chain(t.encode_utf16())
                .flat_map(u16::to_le_bytes)
                .collect()
        };
        std::fs::write(dir.path().join("objs.rsp"), "a.obj \"b c.obj\"").unwrap();
        std::fs::write(
            dir.path().join("outs.rsp"),
            utf16("/out:\"bin dir\\x.dll\" /dll"),
        )
        .unwrap();
        let p = prepared("lld-link @objs.rsp @outs.rsp", dir.path(), scratch.path());
        // The untouched file is passed as it was; the changed one is rewritten, still UTF-16.
        assert_eq!(p.argv[1], "@objs.rsp");
        let written = &p.response_files[0];
        assert_eq!(p.argv[2], format!("@{}", written.path));
        assert_eq!(written.replaces, "@outs.rsp");
        let bytes = std::fs::read(&written.path).unwrap();
        let decoded = rsp::decode(&bytes);
        assert_eq!(decoded.encoding, rsp::Encoding::Utf16Le);
        assert_eq!(
            crate::fix::verify::winargs::split_arguments(&decoded.text),
            [
                format!("/out:{}", text(&scratch.path().join("x.dll"))),
                "/dll".into()
            ]
        );
        // Nothing was written into the build's directory.
        let mut names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        names.sort();
        assert_eq!(names, ["objs.rsp", "outs.rsp"]);
    }
}
