//! What the help and the man pages say about each command beyond its options: the exit codes it
//! can return. The meanings are the README's table ("Exit codes"), word for word without its
//! backticks (`tests/it/cli.rs` compares them); docs/GUIDE.md's table says more about each.

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
                "flavour unknown, choke point not found, --apply refused, unreadable input",
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
const PRINTED: ExitCodes = &[(0, "printed"), (2, "usage error")];

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

    #[test]
    fn the_help_block_lists_each_code_on_its_line() {
        let text = exit_help("triage");
        assert!(text.contains("Exit status:"), "{text}");
        assert!(text.contains("\n  3  nothing matched\n"), "{text}");
        assert!(!text.contains("  4  "), "{text}");
    }
}
