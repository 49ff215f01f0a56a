//! The suspect process names (`symbol-db/suspects.txt`, extended with `--name`) and how a process
//! is matched against them: by the file name of its executable, with `.exe` and a version suffix
//! allowed (`python3.12`, `clang-19.exe`), case-insensitively on Windows.

/// The shipped list, one name a line.
const BUILTIN: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/symbol-db/suspects.txt"
));

/// The names a leftover process of a bring-up goes by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SuspectNames {
    names: Vec<String>,
    /// The names the user gave (`--name`): a process of such a name is a suspect whatever its
    /// command line; one of a shipped name only when its command line names the paths.
    given: Vec<String>,
}

/// A `--name` that cannot be a program's file name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--name {name:?}: {reason}")]
pub struct BadName {
    /// The name as given.
    pub name: String,
    /// Why it is refused.
    pub reason: &'static str,
}

impl SuspectNames {
    /// The shipped list.
    pub fn builtin() -> SuspectNames {
        let names = BUILTIN
            .lines()
            .map(str::trim)
            .filter(|line| !line.is_empty() && !line.starts_with('#'))
            .map(normalise)
            .collect();
        SuspectNames {
            names,
            given: Vec::new(),
        }
    }

    /// The shipped list and `extra` (`--name`), each a program's file name (`.exe` optional).
    pub fn with_extra(extra: &[String]) -> Result<SuspectNames, BadName> {
        SuspectNames::builtin().extended(extra)
    }

    /// `extra` alone (`--no-default-names`).
    pub fn only(extra: &[String]) -> Result<SuspectNames, BadName> {
        SuspectNames {
            names: Vec::new(),
            given: Vec::new(),
        }
        .extended(extra)
    }

    fn extended(mut self, extra: &[String]) -> Result<SuspectNames, BadName> {
        let list = &mut self;
        for name in extra {
            let trimmed = name.trim();
            let refuse = |reason| BadName {
                name: name.clone(),
                reason,
            };
            if trimmed.is_empty() {
                return Err(refuse("empty"));
            }
            if trimmed.contains(['/', '\\']) {
                return Err(refuse(
                    "a program's file name, not a path (e.g. ft-serve or ft-serve.exe)",
                ));
            }
            let name = normalise(trimmed);
            if !list.given.contains(&name) {
                list.given.push(name.clone());
            }
            if !list.names.contains(&name) {
                list.names.push(name);
            }
        }
        Ok(self)
    }

    /// Every name, in list order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Whether `name` is one the user gave (`--name`).
    pub fn is_given(&self, name: &str) -> bool {
        self.given.iter().any(|given| given == name)
    }

    /// The first name that one of `candidates` (file names or paths of the process's
    /// executable) matches: of the names the user gave first, then of the list.
    pub fn matching<'a>(
        &self,
        candidates: impl IntoIterator<Item = &'a str> + Clone,
    ) -> Option<&str> {
        let given = self.given.iter().map(String::as_str);
        given
            .chain(self.names.iter().map(String::as_str))
            .find(|name| {
                candidates
                    .clone()
                    .into_iter()
                    .any(|candidate| name_matches(name, candidate, cfg!(windows)))
            })
    }
}

/// A list entry without `.exe`.
fn normalise(name: &str) -> String {
    strip_exe(name).to_string()
}

fn strip_exe(name: &str) -> &str {
    match name.len().checked_sub(4) {
        Some(cut) if name.is_char_boundary(cut) && name[cut..].eq_ignore_ascii_case(".exe") => {
            &name[..cut]
        }
        _ => name,
    }
}

/// Whether the executable `candidate` (a file name or a path) is the program `name`: its file
/// name without `.exe` is `name`, or `name` followed by a version (`3`, `3.12`, `-19`). So
/// `python` matches `python3.12` and `python.exe` but not `python3-config`, and `link` matches
/// `link.exe` but not `linker` or `lld-link`. `ignore_case` compares ASCII letters without case,
/// as Windows names files.
pub fn name_matches(name: &str, candidate: &str, ignore_case: bool) -> bool {
    let file = candidate.rsplit(['/', '\\']).next().unwrap_or(candidate);
    let file = strip_exe(file);
    let name = strip_exe(name);
    if name.is_empty() || file.len() < name.len() || !file.is_char_boundary(name.len()) {
        return false;
    }
    let (head, rest) = file.split_at(name.len());
    let same = if ignore_case {
        head.eq_ignore_ascii_case(name)
    } else {
        head == name
    };
    same && (rest.is_empty() || is_version(rest))
}

/// `3`, `3.12`, `-19`, `-3.11`: an optional `-`, then numbers separated by dots.
fn is_version(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty()
        && digits
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_processes() {
        for file in [
            "python",
            "python3",
            "python3.12",
            "/usr/bin/python3.11",
            "python.exe",
            "C:\\Python312\\python.exe",
            "python-3.11",
        ] {
            assert!(name_matches("python", file, false), "{file}");
        }
        assert!(name_matches("pythonw", "pythonw.exe", false));
        for file in [
            "python3-config",
            "pythonista",
            "mypython",
            "python3.",
            "python3..12",
            "python-",
        ] {
            assert!(!name_matches("python", file, false), "{file}");
        }
    }

    #[test]
    fn linkers_and_compilers_do_not_match_their_neighbours() {
        assert!(name_matches("link", "link.exe", false));
        assert!(name_matches(
            "link",
            "C:\\VS\\bin\\Hostx64\\x64\\link.exe",
            false
        ));
        for file in [
            "linker",
            "linker-something",
            "lld-link",
            "linkage.exe",
            "unlink",
        ] {
            assert!(!name_matches("link", file, false), "{file}");
        }
        assert!(name_matches("lld-link", "lld-link-19", false));
        assert!(name_matches("clang", "clang-19", false));
        assert!(!name_matches("clang", "clang-cl", false));
        assert!(!name_matches("clang", "clang-format", false));
        assert!(!name_matches("clang", "clangd", false));
        assert!(name_matches("clang-cl", "clang-cl.exe", false));
        assert!(!name_matches("cl", "clang", false));
        assert!(!name_matches("cl", "clang-cl", false));
        assert!(name_matches("cl", "cl.exe", false));
    }

    #[test]
    fn case_is_ignored_only_when_asked() {
        assert!(name_matches("python", "Python.EXE", true));
        assert!(name_matches("link", "LINK.exe", true));
        assert!(!name_matches("python", "Python", false));
        // `.exe` is dropped in any case on every system (Wine's processes carry it on Linux).
        assert!(name_matches("python", "python.EXE", false));
    }

    #[test]
    fn the_shipped_list_and_extra_names() {
        let list = SuspectNames::builtin();
        for name in [
            "python", "pythonw", "ft", "ninja", "hipcc", "clang", "clang-cl", "lld-link", "link",
            "cl",
        ] {
            assert!(list.names().iter().any(|n| n == name), "{name}");
        }
        assert_eq!(list.matching(["bash", "python3"]), Some("python"));
        assert_eq!(list.matching(["bash"]), None);
        let extended = SuspectNames::with_extra(&["ft-serve.exe".into(), "python".into()]).unwrap();
        assert_eq!(extended.names().len(), list.names().len() + 1);
        assert_eq!(extended.matching(["ft-serve"]), Some("ft-serve"));
        assert!(SuspectNames::with_extra(&["bin/ft".into()]).is_err());
        assert!(SuspectNames::with_extra(&[" ".into()]).is_err());
        let only = SuspectNames::only(&["ft-serve".into()]).unwrap();
        assert_eq!(only.names(), ["ft-serve"]);
        assert_eq!(only.matching(["python3"]), None);
        assert!(SuspectNames::only(&[]).unwrap().names().is_empty());
    }
}
