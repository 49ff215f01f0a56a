//! Options of a log's link command that the re-run refuses (CONTRIBUTING.md, "Inside the commands"; docs/RULES.md §18):
//!
//! - those that make a driver start another program as its linker or tools: `-fuse-ld=` with a
//!   path, `--ld-path`, `-B` and `--prefix`, `--gcc-toolchain`-style directories, compiler
//!   plugins, cl.exe's `/B1`, `/B2`, `/Bx`, `/Bl` (other compiler passes);
//! - those that make the linker write a reproducer, a copy of every input (`/LINKREPRO`,
//!   `/REPRODUCE` and their companions), or ThinLTO files beside the build's objects
//!   (`/thinlto-index-only` and its companions), and the compiler options that write into the
//!   build (cl's `/Fo`, `/Fa`, `/Fp`, `/FR`, `/Fi`, `/doc`, `/sourceDependencies`, `/Yc`;
//!   clang's `-save-stats`);
//! - those that make the program not link, or link without resolving (`--version`, `/?`, `-###`,
//!   `--help`, `-v` alone, the `-print-` queries, `/FORCE`, `--unresolved-symbols`,
//!   `--noinhibit-exec`): after them an exit code 0 proves nothing.
//!
//! Linker options are checked wherever the linker gets them: as a linker's own arguments, after
//! cl's `/link`, after `-Xlinker`, inside `-Wl,`.

/// How a program takes linker options.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Driver {
    /// A linker (`link.exe`, `lld-link`): every argument is a linker argument.
    Linker,
    /// An MSVC-style compiler driver (`cl`, `clang-cl`): linker arguments follow `/link`.
    Cl,
    /// A GNU-style compiler driver (`clang`, `clang++`, `hipcc`): linker arguments are passed as
    /// `-Xlinker ARG`.
    Gnu,
}

/// An option the run refuses, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocked {
    /// It starts another program, or writes what the run must not.
    Runs {
        /// The option as written.
        option: String,
        /// What it does.
        reason: &'static str,
    },
    /// It makes the program not link (or link without resolving).
    NotLinking {
        /// The option as written.
        option: String,
        /// What it does.
        reason: &'static str,
    },
}

const ANOTHER_LINKER: &str = "names another program to run as the linker";
const PROGRAM_DIRECTORY: &str = "adds a directory the driver starts its linker and tools from";
const PLUGIN: &str = "loads a plugin into the compiler";
const REPRODUCER: &str = "writes a reproducer of the link, a copy of every input";
const THINLTO: &str = "writes ThinLTO files beside the build's objects";
const COMPILER_OUTPUT: &str = "writes compiler outputs into the build";
const PRINTS: &str = "prints and exits without linking";
const FORCED: &str = "links with unresolved or duplicate symbols allowed";

fn runs(option: &str, reason: &'static str) -> Option<Blocked> {
    Some(Blocked::Runs {
        option: option.to_string(),
        reason,
    })
}

fn not_linking(option: &str, reason: &'static str) -> Option<Blocked> {
    Some(Blocked::NotLinking {
        option: option.to_string(),
        reason,
    })
}

/// A link.exe or lld-link option (spelled with `/`, `-` or `--`) the run refuses.
pub fn linker_option(word: &str) -> Option<Blocked> {
    let lower = word.to_ascii_lowercase();
    let name = lower
        .strip_prefix("--")
        .or_else(|| lower.strip_prefix(['/', '-']))?;
    let bare = name.split([':', '=']).next().unwrap_or(name);
    match bare {
        "linkrepro" | "reproduce" | "linkreprotarget" | "linkreprofullpathrsp" => {
            runs(word, REPRODUCER)
        }
        "thinlto-index-only"
        | "thinlto-emit-imports-files"
        | "thinlto-prefix-replace"
        | "thinlto-object-suffix-replace" => runs(word, THINLTO),
        "?" | "help" => not_linking(word, PRINTS),
        "version" if lower == "--version" => not_linking(word, PRINTS),
        "force" | "unresolved-symbols" | "noinhibit-exec" => not_linking(word, FORCED),
        _ => None,
    }
}

/// A GNU-style driver option (clang, clang++, hipcc) the run refuses; `previous` is the word
/// before it.
fn gnu_option(word: &str, previous: Option<&str>) -> Option<Blocked> {
    match previous {
        Some("-Xlinker") => return linker_option(word),
        Some("-Xclang") if matches!(word, "-load" | "-plugin" | "-add-plugin") => {
            return runs(word, PLUGIN)
        }
        _ => {}
    }
    if let Some(list) = word.strip_prefix("-Wl,") {
        return list.split(',').find_map(linker_option);
    }
    if let Some(linker) = word.strip_prefix("-fuse-ld=") {
        return linker
            .contains(['/', '\\'])
            .then(|| runs(word, ANOTHER_LINKER))?;
    }
    if word.starts_with("--ld-path") {
        return runs(word, ANOTHER_LINKER);
    }
    let b_linker_option = ["-Bstatic", "-Bdynamic", "-Bsymbolic", "-Bshareable"]
        .iter()
        .any(|o| word.starts_with(o));
    if (word.starts_with("-B") && !b_linker_option) || word.starts_with("--prefix") {
        return runs(word, PROGRAM_DIRECTORY);
    }
    if ["--gcc-toolchain", "--gcc-install-dir", "-ccc-install-dir"]
        .iter()
        .any(|o| word.starts_with(o))
    {
        return runs(word, PROGRAM_DIRECTORY);
    }
    if word.starts_with("-fplugin") || word.starts_with("-fpass-plugin") {
        return runs(word, PLUGIN);
    }
    if word.starts_with("-save-stats") || word.starts_with("--save-stats") {
        return runs(word, COMPILER_OUTPUT);
    }
    let query = matches!(
        word,
        "--version" | "-###" | "--help" | "-help" | "-dumpversion" | "-dumpmachine"
    ) || word.starts_with("-print-")
        || word.starts_with("--print-");
    query.then(|| not_linking(word, PRINTS))?
}

/// A cl-style driver option (cl, clang-cl) before `/link` the run refuses.
fn cl_option(word: &str, previous: Option<&str>) -> Option<Blocked> {
    if let Some(inner) = word
        .strip_prefix("/clang:")
        .or_else(|| word.strip_prefix("-clang:"))
    {
        return gnu_option(inner, None);
    }
    let option = word.strip_prefix(['/', '-'])?;
    if ["B1", "B2", "Bx", "Bl"]
        .iter()
        .any(|o| option.starts_with(o))
    {
        return runs(word, "runs another compiler pass or linker");
    }
    let compiler_outputs = [
        "Fo",
        "Fa",
        "Fp",
        "FR",
        "Fr",
        "Fi",
        "doc",
        "sourceDependencies",
        "Yc",
    ];
    if compiler_outputs.iter().any(|o| option.starts_with(o)) {
        return runs(word, COMPILER_OUTPUT);
    }
    if matches!(option, "?" | "help" | "-help") {
        return not_linking(word, PRINTS);
    }
    gnu_option(word, previous)
}

/// Checks every word of a command of `driver`: `Err` names the first option the run refuses.
pub fn check(driver: Driver, words: &[&str]) -> Result<(), Blocked> {
    if words == ["-v"] || words == ["/v"] {
        return Err(Blocked::NotLinking {
            option: words[0].to_string(),
            reason: "alone prints the version and exits without linking",
        });
    }
    let mut linker = driver == Driver::Linker;
    for (index, word) in words.iter().enumerate() {
        let previous = index.checked_sub(1).map(|i| words[i]);
        if driver == Driver::Cl && (word.eq_ignore_ascii_case("/link") || *word == "-link") {
            linker = true;
            continue;
        }
        let blocked = match (linker, driver) {
            (true, _) => linker_option(word),
            (false, Driver::Cl) => cl_option(word, previous),
            (false, _) => gnu_option(word, previous),
        };
        if let Some(blocked) = blocked {
            return Err(blocked);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_refused_and_what_passes() {
        let refused = |driver, words: &[&str]| check(driver, words).is_err();
        let gnu = Driver::Gnu;
        for words in [
            &["-fuse-ld=/tmp/evil", "a.obj"][..],
            &["--ld-path=/tmp/evil"],
            &["-B", "/tmp/dir"],
            &["-B/tmp/dir"],
            &["--prefix=/tmp/dir"],
            &["-Xclang", "-load", "-Xclang", "x.so"],
            &["-fplugin=x.so"],
            &["-Wl,/linkrepro:dir"],
            &["-Xlinker", "/REPRODUCE:x.tar"],
            &["-Wl,--unresolved-symbols=ignore-all"],
            &["-Xlinker", "/force:unresolved"],
            &["-###", "a.obj"],
            &["--version"],
            &["-v"],
            &["-print-prog-name=ld"],
        ] {
            assert!(refused(gnu, words), "{words:?}");
        }
        for words in [
            &["-fuse-ld=lld-link", "-shared", "-o", "x.dll", "a.obj"][..],
            &["-v", "a.obj"],
            &["-Wl,-Bstatic", "-Bdynamic"],
            &["-Xlinker", "/VERSION:1.2"],
        ] {
            assert!(!refused(gnu, words), "{words:?}");
        }
        assert!(refused(Driver::Linker, &["/FORCE:MULTIPLE", "a.obj"]));
        assert!(refused(Driver::Linker, &["/?"]));
        assert!(refused(Driver::Linker, &["-linkreprotarget:x.dll"]));
        assert!(!refused(
            Driver::Linker,
            &["/VERSION:1.2", "/Brepro", "a.obj"]
        ));
        assert!(refused(Driver::Cl, &["a.obj", "/Bxevil.exe"]));
        assert!(refused(Driver::Cl, &["a.obj", "/clang:-fuse-ld=/x/y"]));
        assert!(refused(Driver::Cl, &["a.obj", "/link", "/force"]));
        assert!(!refused(
            Driver::Cl,
            &["a.obj", "/Brepro", "/link", "/out:x.dll"]
        ));
    }
}
