//! What the help and the man pages say about each command beyond its options: the exit codes it
//! can return, the environment variables it reads and examples. The exit codes' meanings are the
//! README's table ("Exit codes"), word for word without its backticks (`tests/it/cli.rs` compares
//! them); docs/GUIDE.md's table says more about each.

/// One command's exit codes: the code and what it means for that command.
pub(crate) type ExitCodes = &'static [(u8, &'static str)];

/// The exit codes of every command, by the command's name.
const EXIT_CODES: &[(&str, ExitCodes)] = &[
    (
        "diagnose",
        &[
            (0, "the log shows no link failure"),
            (1, "one or more problems diagnosed"),
            (2, "usage error, unreadable input, bad rule file"),
            (
                3,
                "a failed link lnkfix could not classify (a failed link never exits 0)",
            ),
            (
                4,
                "--verify: the link still fails with the flags (or could not be run again)",
            ),
        ],
    ),
    (
        "explain",
        &[
            (0, "something answers"),
            (1, "nothing answers"),
            (2, "not a name, usage error"),
        ],
    ),
    (
        "triage",
        &[
            (0, "success"),
            (1, "a classified failure"),
            (
                2,
                "unreadable input, bad --site-packages/--python, usage error",
            ),
            (3, "nothing matched"),
        ],
    ),
    (
        "whence",
        &[
            (0, "a candidate found"),
            (1, "none found"),
            (
                2,
                "bad --site-packages, --python cannot answer, no sources, usage error",
            ),
        ],
    ),
    (
        "doctor",
        &[
            (0, "no check fails"),
            (1, "a check fails"),
            (2, "usage error"),
        ],
    ),
    (
        "zombies",
        &[
            (
                0,
                "nothing old holds the paths (or all of it was ended and deleted as asked)",
            ),
            (1, "leftovers or held files remain"),
            (2, "usage error (--kill without --since), unreadable paths"),
        ],
    ),
    (
        "patch",
        &[
            (0, "diff written, applied, or nothing to change"),
            (
                2,
                "flavour unknown, choke point not found, no build definition or target found, --apply refused, unreadable input",
            ),
            (
                4,
                "--verify: the fix did not verify, nothing written (unless --force)",
            ),
        ],
    ),
    ("completions", PRINTED),
    ("man", PRINTED),
    (
        "index",
        &[(0, "done"), (2, "no library directories, usage error")],
    ),
];

/// `completions` and `man`: they print (or write) what they generate.
const PRINTED: ExitCodes = &[
    (0, "printed (man --dir: written)"),
    (2, "usage error, the output cannot be written"),
];

/// What each code means across the commands (the top-level help and page).
const OVERVIEW: ExitCodes = &[
    (
        0,
        "success: nothing to fix, or the command did what was asked",
    ),
    (
        1,
        "something was found and reported (problems, a classified failure, a failed check)",
    ),
    (2, "usage error or unreadable input"),
    (
        3,
        "diagnose: a failed link it could not classify; triage: nothing matched",
    ),
    (
        4,
        "--verify (diagnose, patch): the link still fails with the fix",
    ),
];

/// Environment variables: the name (or names) and what the command does with it.
pub(crate) type Variables = &'static [(&'static str, &'static str)];

/// Where the library search looks when no option names a library (diagnose, index, explain,
/// patch), and where its cache lives.
const LIBRARY_SEARCH: Variables = &[
    (
        "LIB",
        "The library directories, ;-separated, as vcvars sets them: searched, in order, when no \
         --lib-dir, --vc-lib, --sdk-lib, --hip-path or --lib is given.",
    ),
    (
        "HIP_PATH",
        "The HIP SDK: its lib directory is searched likewise.",
    ),
    (
        "VCToolsInstallDir",
        "The Visual C++ tools directory: its lib directory for --arch is searched likewise.",
    ),
    (
        "WindowsSdkDir, UniversalCRTSdkDir, WindowsSDKLibVersion",
        "The Windows SDK: its um and ucrt library directories for --arch are searched likewise.",
    ),
    (
        "CUDA_PATH",
        "The CUDA toolkit: its lib\\x64 (lib\\Win32 for x86) is searched likewise.",
    ),
    (
        "VIRTUAL_ENV, CONDA_PREFIX, PATH",
        "The active Python (VIRTUAL_ENV's, else CONDA_PREFIX's, else python3 or python on PATH; \
         --python names another) is asked once, within 5 s, where it lives: its libs, and \
         torch\\lib, nvidia\\*\\lib and tvm_ffi\\lib in its site-packages, are searched likewise \
         when they hold libraries; with CONDA_PREFIX also Library\\lib and libs.",
    ),
    (
        "LNKFIX_NO_PYTHON",
        "Set (not empty, not 0): no Python interpreter is started, as with --no-python.",
    ),
    (
        "LOCALAPPDATA",
        "On Windows, the index cache is %LOCALAPPDATA%\\lnkfix\\cache (unless --cache-dir or \
         --no-cache).",
    ),
    (
        "XDG_CACHE_HOME, HOME",
        "Elsewhere, the index cache is $XDG_CACHE_HOME/lnkfix, else $HOME/.cache/lnkfix \
         (unless --cache-dir or --no-cache).",
    ),
];

/// What decides whether the text report is coloured (--color auto).
const COLOUR: Variables = &[
    (
        "NO_COLOR",
        "Set and not empty: no colour with --color auto.",
    ),
    (
        "CLICOLOR_FORCE, CLICOLOR, TERM, CI",
        "Colour with --color auto: CLICOLOR_FORCE forces it, CLICOLOR=0 turns it off, TERM and CI \
         say whether the terminal takes it.",
    ),
];

/// Running the failed link again (--verify) and reading stdin.
const RUNNING: Variables = &[
    (
        "PATH",
        "With --verify: where the link program of the failed command is found; the link runs \
         with lnkfix's whole environment (LIB included).",
    ),
    (
        "TMPDIR",
        "Where a large stdin is spooled and where --verify's outputs go (TMP or TEMP on \
         Windows).",
    ),
];

/// The environment variables of every command, by the command's name: each group in order.
const ENVIRONMENT: &[(&str, &[Variables])] = &[
    ("diagnose", &[LIBRARY_SEARCH, RUNNING, COLOUR]),
    ("index", &[LIBRARY_SEARCH]),
    ("explain", &[LIBRARY_SEARCH]),
    ("patch", &[LIBRARY_SEARCH, RUNNING, PATCH]),
    ("triage", &[TRIAGE, COLOUR]),
    ("whence", &[WHENCE, COLOUR]),
    ("doctor", &[DOCTOR, DOCTOR_SEARCH, COLOUR]),
    ("zombies", &[COLOUR]),
    ("completions", &[]),
    ("man", &[]),
    ("", &[TOP]),
];

/// `patch`: the Python that checks the new file compiles.
const PATCH: Variables = &[(
    "PATH",
    "--apply: the first python3 or python on PATH checks that the new extension.py compiles \
     before it replaces the file.",
)];

/// `triage`.
const TRIAGE: Variables = &[
    (
        "TVM_FFI_ROCM_ARCH_LIST",
        "The GPU architectures the build is for, when --arch-intended is not given.",
    ),
    (
        "TMPDIR",
        "Where a large stdin is spooled (TMP or TEMP on Windows).",
    ),
];

/// `whence`.
const WHENCE: Variables = &[
    (
        "PATH",
        "Without --site-packages or --python: python3, else python, on PATH is asked for its \
         sources.",
    ),
    (
        "VIRTUAL_ENV",
        "When no Python on PATH answers: the site-packages of this virtual environment.",
    ),
];

/// `doctor`: every variable it checks.
const DOCTOR: Variables = &[
    (
        "LIB, LIBPATH, INCLUDE, VCToolsInstallDir, WindowsSdkDir",
        "vcvars' variables: checked to be set and to name directories that exist; LIB is \
         where the CRT and HIP libraries are looked for.",
    ),
    (
        "HIP_PATH",
        "Checked to name the HIP SDK, with its import library in lib.",
    ),
    ("CC", "Checked to be HIP's clang-cl or clang."),
    (
        "TVM_FFI_ROCM_ARCH_LIST, TRITON_OVERRIDE_ARCH",
        "In a tvm-ffi environment: checked to be set, valid and in agreement.",
    ),
    (
        "TVM_FFI_CACHE_DIR, VIRTUAL_ENV, CONDA_PREFIX",
        "Whether the environment is a tvm-ffi one (without --tvm-ffi): a TVM_FFI_* or TRITON_* \
         variable set, or the tvm_ffi package in the active environment.",
    ),
];

/// `doctor`: the library search it lists.
const DOCTOR_SEARCH: Variables = &[(
    "CUDA_PATH, VIRTUAL_ENV, CONDA_PREFIX, PATH, LNKFIX_NO_PYTHON",
    "The library directories diagnose searches with no option (as for diagnose) are listed \
     with where each came from, and the Python interpreter asked (version, bits, debug) or why \
     it could not be.",
)];

/// The top-level page: every command's variables in one list, by what they are for.
const TOP: Variables = &[
    (
        "LIB, HIP_PATH, VCToolsInstallDir, WindowsSdkDir, UniversalCRTSdkDir, WindowsSDKLibVersion, \
         CUDA_PATH, VIRTUAL_ENV, CONDA_PREFIX, LNKFIX_NO_PYTHON",
        "Where diagnose, index, explain and patch look for libraries when no option names one \
         (with the active Python's); doctor checks and lists them.",
    ),
    (
        "LOCALAPPDATA, XDG_CACHE_HOME, HOME, APPDATA",
        "Where the index cache lives; HOME and APPDATA also name the user's site-packages, so a remembered Python answer is asked again when they change.",
    ),
    (
        "LIBPATH, INCLUDE, CC, TVM_FFI_ROCM_ARCH_LIST, TRITON_OVERRIDE_ARCH, TVM_FFI_CACHE_DIR, \
         CONDA_PREFIX",
        "What doctor checks; triage reads TVM_FFI_ROCM_ARCH_LIST.",
    ),
    (
        "PATH, VIRTUAL_ENV",
        "The link program of --verify, the Python whose libraries are searched, that whence asks \
         and patch --apply checks with.",
    ),
    ("TMPDIR", "Temporary files (TMP or TEMP on Windows)."),
    (
        "NO_COLOR, CLICOLOR_FORCE, CLICOLOR, TERM, CI",
        "Whether --color auto colours.",
    ),
    (
        "COLUMNS",
        "The width --help wraps to when stdout is not a terminal.",
    ),
];

/// The environment variables `command` reads (empty for the top level: all of them).
pub(crate) fn environment(command: &str) -> Vec<(&'static str, &'static str)> {
    ENVIRONMENT
        .iter()
        .filter(|(name, _)| *name == command)
        .flat_map(|(_, groups)| groups.iter().flat_map(|group| group.iter().copied()))
        .collect()
}

/// Examples: the command line and what it does.
pub(crate) type Examples = &'static [(&'static str, &'static str)];

/// The examples of every command, by the command's name (empty: the top level).
const EXAMPLES: &[(&str, Examples)] = &[
    (
        "",
        &[
            (
                "lnkfix diagnose build.log",
                "What the failed link lacks and what to add to it.",
            ),
            (
                "lnkfix triage supervisor.log",
                "Which stage of a bring-up failed, and the one fix to apply next.",
            ),
            (
                "lnkfix man --dir man/man1",
                "Writes this page and one page per command.",
            ),
        ],
    ),
    (
        "diagnose",
        &[
            (
                "lnkfix diagnose build.log",
                "Reads the log in the shell where vcvars ran (LIB set) and prints each unresolved \
                 symbol, its library and the flags to add.",
            ),
            (
                "lnkfix diagnose build.log --verify --build-dir build",
                "Runs the failed link again with those flags and says whether it links (exit 4 \
                 when it still fails).",
            ),
            (
                "lnkfix diagnose - --format json",
                "Reads the log on stdin and writes the documented JSON.",
            ),
            (
                "lnkfix diagnose build.log --vc-lib vc --sdk-lib kits/Lib/10.0.26100.0 --hip-path hip",
                "Names the libraries instead of reading them from the environment.",
            ),
        ],
    ),
    (
        "index",
        &[
            (
                "lnkfix index",
                "Indexes the directories of LIB and summarises what they provide.",
            ),
            (
                "lnkfix index C:/hip/lib --list",
                "Lists every symbol of one directory with the library that provides it.",
            ),
        ],
    ),
    (
        "explain",
        &[
            (
                "lnkfix explain hipMalloc",
                "Which library provides hipMalloc, and every other provider with its role.",
            ),
            (
                "lnkfix explain __imp_CreateFileW --crt dynamic",
                "The same for an import, ranked for the /MD runtime.",
            ),
        ],
    ),
    (
        "patch",
        &[
            (
                "lnkfix patch .venv/Lib/site-packages/tvm_ffi/cpp/extension.py --from build.log",
                "Prints the fix for tvm-ffi's extension.py as a unified diff.",
            ),
            (
                "lnkfix patch --from build.log --build-dir build --verify --apply",
                "Writes the fix into the failing target's CMakeLists.txt (or .vcxproj), found \
                 from the log and the build directory, once the fixed link succeeds.",
            ),
            (
                "lnkfix patch extension.py --from diagnosis.json --verify --apply",
                "Applies a saved diagnosis in place (with a backup), only when the fixed link \
                 succeeds.",
            ),
        ],
    ),
    (
        "triage",
        &[
            (
                "lnkfix triage supervisor.log",
                "The stage that failed, the root-cause line and the fix.",
            ),
            (
                "lnkfix triage logs/ft-serve.log --since 2026-12-01T22:55:47Z",
                "Also says when the log is older than the attempt.",
            ),
        ],
    ),
    (
        "whence",
        &[
            (
                "lnkfix whence \"KeyError: 'launch_pdl'\"",
                "The Python code that raises the message, in the sources of python3 on PATH.",
            ),
            (
                "lnkfix whence \"ValueError: bad arch\" --site-packages .venv/lib/python3.12/site-packages",
                "Searches one site-packages directory instead.",
            ),
        ],
    ),
    (
        "doctor",
        &[
            (
                "lnkfix doctor",
                "Checks the environment recipe and the libraries the link will need.",
            ),
            (
                "lnkfix doctor --tvm-ffi --log logs/ft-serve.log",
                "Also checks tvm-ffi's variables, and that no leftover holds the log's directory.",
            ),
        ],
    ),
    (
        "zombies",
        &[
            (
                "lnkfix zombies logs --since 2026-12-01T22:55:47Z",
                "Lists the processes from before the attempt that hold files under logs.",
            ),
            (
                "lnkfix zombies logs --since 2026-12-01T22:55:47Z --kill --delete",
                "Ends them and deletes the files they held.",
            ),
        ],
    ),
    (
        "completions",
        &[
            (
                "lnkfix completions bash > /etc/bash_completion.d/lnkfix",
                "Installs the bash completions.",
            ),
            (
                "lnkfix completions powershell >> $PROFILE",
                "Adds the PowerShell completions to the profile.",
            ),
        ],
    ),
    (
        "man",
        &[
            (
                "lnkfix man > lnkfix.1",
                "Prints the top page.",
            ),
            (
                "lnkfix man --dir /usr/local/share/man/man1",
                "Writes lnkfix.1 and one page per command (lnkfix-diagnose.1, ...).",
            ),
        ],
    ),
];

/// The examples of `command` (empty: the top level).
pub(crate) fn examples(command: &str) -> Examples {
    EXAMPLES
        .iter()
        .find(|(name, _)| *name == command)
        .map_or(&[], |(_, examples)| *examples)
}

/// The exit codes of `command` (a subcommand's name; empty for the top level); none for a name
/// that is not a command.
pub(crate) fn exit_codes(command: &str) -> ExitCodes {
    if command.is_empty() {
        return OVERVIEW;
    }
    EXIT_CODES
        .iter()
        .find(|(name, _)| *name == command)
        .map_or(&[], |(_, codes)| *codes)
}

/// The "Exit status:" block that ends `command`'s help (`--help` and `-h`), headed as clap heads
/// its own sections.
pub(crate) fn exit_help(command: &str) -> String {
    let heading = anstyle::Style::new().bold().underline();
    let mut text = format!("{heading}Exit status:{heading:#}\n");
    for (code, meaning) in exit_codes(command) {
        text.push_str(&format!("  {code}  {meaning}\n"));
    }
    if command.is_empty() {
        text.push_str("Each command's --help says what each code means for it.\n");
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_its_exit_codes_and_nothing_else_does() {
        let cli = <crate::cli::Cli as clap::CommandFactory>::command();
        for command in cli.get_subcommands() {
            let codes = exit_codes(command.get_name());
            assert!(
                codes.iter().any(|(code, _)| *code == 0) && codes.iter().any(|(c, _)| *c == 2),
                "{}: no 0 or 2",
                command.get_name()
            );
        }
        assert!(exit_codes("no-such-command").is_empty());
        assert_eq!(exit_codes("").len(), 5);
    }

    /// An example's words as a POSIX shell splits them (quotes kept whole), up to a redirection.
    fn words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word = String::new();
        let mut quote = None;
        for c in line.chars() {
            match (quote, c) {
                (None, '"' | '\'') => quote = Some(c),
                (Some(q), c) if c == q => quote = None,
                (None, ' ') => words.extend((!word.is_empty()).then(|| std::mem::take(&mut word))),
                _ => word.push(c),
            }
        }
        words.push(word);
        words
            .into_iter()
            .take_while(|w| !w.starts_with('>'))
            .collect()
    }

    #[test]
    fn every_example_is_a_command_line_lnkfix_accepts() {
        let cli = <crate::cli::Cli as clap::CommandFactory>::command();
        let names = std::iter::once("").chain(cli.get_subcommands().map(|c| c.get_name()));
        for name in names {
            assert!(!examples(name).is_empty(), "{name}: no example");
            for (line, _) in examples(name) {
                let words = words(line);
                assert!(
                    words.len() > 1 && (name.is_empty() || words[1] == name),
                    "{line}"
                );
                if let Err(e) = <crate::cli::Cli as clap::Parser>::try_parse_from(&words) {
                    panic!("{line}: {e}");
                }
            }
        }
        assert_eq!(words("a 'b c' \"d 'e'\" > f"), ["a", "b c", "d 'e'"]);
    }

    #[test]
    fn every_command_says_which_variables_it_reads() {
        let cli = <crate::cli::Cli as clap::CommandFactory>::command();
        for command in cli.get_subcommands() {
            let listed = ENVIRONMENT
                .iter()
                .any(|(name, _)| *name == command.get_name());
            assert!(listed, "{}", command.get_name());
        }
        let diagnose = environment("diagnose");
        assert!(diagnose.iter().any(|(names, _)| *names == "LIB"));
        assert!(environment("man").is_empty());
    }

    #[test]
    fn the_help_block_lists_each_code_on_its_line() {
        let text = exit_help("triage");
        assert!(text.contains("Exit status:"), "{text}");
        assert!(text.contains("\n  3  nothing matched\n"), "{text}");
        assert!(!text.contains("  4  "), "{text}");
    }
}
