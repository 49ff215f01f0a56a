//! The decisions, apart from the system: which process started before the attempt, which are
//! lnkfix's own ancestors, which are listed, which count as leftovers, and which may be ended.
//! Everything here is a function of the process table the platform layer read.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::time::SystemTime;

use super::names::SuspectNames;
use super::{HeldFile, Process, StartTime, Target};

/// Why a listed process is never ended, whatever is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Protection {
    /// lnkfix's parent, its parent's parent, and so on: the shell or script that runs lnkfix.
    Ancestor,
}

impl Protection {
    /// The name used in reports.
    pub fn name(self) -> &'static str {
        match self {
            Protection::Ancestor => "ancestor",
        }
    }
}

/// A process, with what lnkfix decided about it.
#[derive(Debug, Clone)]
pub struct Assessed {
    /// The process.
    pub process: Process,
    /// The files under the given paths it holds open.
    pub holds: Vec<HeldFile>,
    /// Whether it started before the attempt: `None` without `--since`, without a start time, or
    /// when its start is within the clock's precision of `--since`.
    pub before_attempt: Option<bool>,
    /// The suspect name it matched.
    pub matched_name: Option<String>,
    /// Why it is never ended, if it is protected.
    pub protection: Option<Protection>,
}

/// Why a leftover was not ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// An ancestor of lnkfix.
    Ancestor,
    /// Its start time is unknown, or too close to `--since` to tell which side it is on.
    StartUnknown,
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Refusal::Ancestor => {
                "an ancestor of lnkfix (the shell or script running it): never ended; end it yourself"
            }
            Refusal::StartUnknown => {
                "its start time is unknown or within the clock's precision of --since: it may belong to this attempt"
            }
        })
    }
}

/// Whether a process that started at `started` did so before `since`. `None` when either is
/// unknown, or when `since` lies within the start time's uncertainty.
pub fn before_attempt(started: Option<&StartTime>, since: Option<SystemTime>) -> Option<bool> {
    let (started, since) = (started?, since?);
    if started.time + started.uncertainty < since {
        Some(true)
    } else if started.time.checked_sub(started.uncertainty)? >= since {
        Some(false)
    } else {
        None
    }
}

/// lnkfix's ancestors: the parent of `own_pid`, its parent, and so on. A parent that started
/// after its child is not the parent but a later process that reused the pid, and ends the chain.
pub fn ancestors(processes: &[Process], own_pid: u32) -> BTreeSet<u32> {
    let by_pid: HashMap<u32, &Process> = processes.iter().map(|p| (p.pid, p)).collect();
    let mut chain = BTreeSet::new();
    let mut current = own_pid;
    while let Some(process) = by_pid.get(&current) {
        let Some(parent_pid) = process.parent_pid.filter(|&p| p != 0 && p != current) else {
            break;
        };
        let Some(parent) = by_pid.get(&parent_pid) else {
            break;
        };
        if let (Some(parent_start), Some(child_start)) = (&parent.started, &process.started) {
            let slack = parent_start.uncertainty + child_start.uncertainty;
            if parent_start.time > child_start.time + slack {
                break;
            }
        }
        if !chain.insert(parent_pid) {
            break;
        }
        current = parent_pid;
    }
    chain
}

/// Decides about every process: those that hold a file under the paths (of any age) and the
/// suspects that started before the attempt are listed, oldest first. A suspect is a process of
/// a name the user gave (`--name`), or of a shipped name whose command line names one of
/// `targets` or a path under it: a python elsewhere on the machine is no suspect by its name
/// alone. lnkfix itself (`own_pid`) is never listed.
pub fn assess(
    processes: &[Process],
    mut holdings: BTreeMap<u32, Vec<HeldFile>>,
    since: Option<SystemTime>,
    names: &SuspectNames,
    targets: &[Target],
    own_pid: u32,
) -> Vec<Assessed> {
    let ancestors = ancestors(processes, own_pid);
    let mut listed: Vec<Assessed> = processes
        .iter()
        .filter(|p| p.pid != own_pid)
        .filter_map(|process| {
            let holds = holdings.remove(&process.pid).unwrap_or_default();
            let before = before_attempt(process.started.as_ref(), since);
            let matched_name = names
                .matching(process.names.iter().map(String::as_str))
                .map(str::to_string);
            let in_scope = matched_name.as_deref().is_some_and(|name| {
                names.is_given(name)
                    || process
                        .command
                        .as_deref()
                        .is_some_and(|command| command_names(command, targets))
            });
            let suspect = in_scope && before == Some(true);
            (!holds.is_empty() || suspect).then(|| Assessed {
                process: process.clone(),
                holds,
                before_attempt: before,
                matched_name,
                protection: ancestors
                    .contains(&process.pid)
                    .then_some(Protection::Ancestor),
            })
        })
        .collect();
    listed.sort_by(|a, b| {
        let start = |x: &Assessed| x.process.started.as_ref().map(|s| s.time);
        start(a)
            .cmp(&start(b))
            .then(a.process.pid.cmp(&b.process.pid))
    });
    listed
}

/// Whether `command` (a command line as text) names one of `targets` or a path under one: the
/// target's path, not inside a longer name, followed by the end, a separator or a quote.
pub fn command_names(command: &str, targets: &[Target]) -> bool {
    let path_byte =
        |b: u8| b.is_ascii_alphanumeric() || matches!(b, b'/' | b'\\' | b'.' | b'_' | b'-');
    targets.iter().any(|target| {
        let text = crate::output::terminal::path_text(&target.path);
        let text = text.trim_end_matches(['/', '\\']);
        !text.is_empty()
            && command.match_indices(text).any(|(at, _)| {
                let before = at.checked_sub(1).map(|i| command.as_bytes()[i]);
                let after = command.as_bytes().get(at + text.len()).copied();
                !before.is_some_and(path_byte)
                    && match after {
                        None => true,
                        Some(b'/' | b'\\') => target.is_dir,
                        Some(b) => !path_byte(b),
                    }
            })
    })
}

impl Assessed {
    /// Whether it stands in the way of the attempt: it started before it (or may have, for a
    /// holder whose start cannot be placed) and holds a file or is a suspect by name. An ancestor
    /// that only matches a name is listed but is no leftover: it is what runs lnkfix.
    pub fn is_leftover(&self) -> bool {
        match self.before_attempt {
            Some(true) => !self.holds.is_empty() || self.protection.is_none(),
            None => !self.holds.is_empty(),
            Some(false) => false,
        }
    }

    /// For a leftover: `Ok` when it may be ended, else why not. Never for an ancestor, never for
    /// one that may have started with the attempt.
    pub fn may_end(&self) -> Result<(), Refusal> {
        if self.protection == Some(Protection::Ancestor) {
            return Err(Refusal::Ancestor);
        }
        match self.before_attempt {
            Some(true) => Ok(()),
            _ => Err(Refusal::StartUnknown),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn held(path: &str) -> HeldFile {
        HeldFile {
            path: path.into(),
            identity: None,
        }
    }

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + seconds)
    }

    fn process(pid: u32, parent: u32, name: &str, started: u64) -> Process {
        Process {
            pid,
            parent_pid: Some(parent),
            name: name.to_string(),
            names: vec![name.to_string()],
            command: Some(name.to_string()),
            started: Some(StartTime {
                time: at(started),
                uncertainty: Duration::from_millis(20),
            }),
            start_key: started,
        }
    }

    #[test]
    fn before_and_after_with_the_clock_precision() {
        let start = StartTime {
            time: at(100),
            uncertainty: Duration::from_millis(20),
        };
        assert_eq!(before_attempt(Some(&start), Some(at(101))), Some(true));
        assert_eq!(before_attempt(Some(&start), Some(at(99))), Some(false));
        assert_eq!(before_attempt(Some(&start), Some(at(100))), None);
        assert_eq!(
            before_attempt(Some(&start), Some(at(100) + Duration::from_millis(19))),
            None
        );
        assert_eq!(
            before_attempt(Some(&start), Some(at(100) + Duration::from_millis(21))),
            Some(true)
        );
        assert_eq!(before_attempt(Some(&start), None), None);
        assert_eq!(before_attempt(None, Some(at(100))), None);
    }

    #[test]
    fn ancestors_stop_at_a_reused_pid() {
        let table = vec![
            process(1, 0, "init", 0),
            process(10, 1, "bash", 10),
            process(20, 10, "python", 20),
            process(30, 20, "lnkfix", 30),
            process(40, 30, "child", 40),
        ];
        assert_eq!(
            ancestors(&table, 30).into_iter().collect::<Vec<_>>(),
            [1, 10, 20]
        );
        // Pid 10 reused by a process started after its supposed child: not an ancestor.
        let mut reused = table.clone();
        reused[1].started.as_mut().unwrap().time = at(25);
        assert_eq!(ancestors(&reused, 30).into_iter().collect::<Vec<_>>(), [20]);
        // A loop in the table does not hang.
        let looped = vec![process(5, 6, "a", 0), process(6, 5, "b", 0)];
        assert_eq!(ancestors(&looped, 5).len(), 2);
    }

    #[test]
    fn listing_leftovers_and_refusals() {
        let table = vec![
            process(10, 1, "bash", 10),
            process(20, 10, "python3", 20), // an ancestor, old, a suspect by name
            process(30, 20, "lnkfix", 90),  // lnkfix itself
            process(40, 1, "python3.12", 50), // old, holds the log
            process(41, 1, "python3", 95),  // young, holds another file
            process(42, 1, "python3", 51),  // old suspect, holds nothing
            process(43, 1, "vim", 52),      // old, unrelated
            process(44, 1, "vim", 53),      // old, holds a file, not a suspect name
            process(45, 1, "python3", 54),  // old python elsewhere: not a suspect
        ];
        let mut table = table;
        // The suspects by name run something under the paths; the python elsewhere does not.
        table[1].command = Some("python3 /logs/ancestor.py".into());
        table[5].command = Some("python3 -u serve.py --log '/logs/serve 2.log'".into());
        table[8].command = Some("python3 /logs2/other.py /srv/logs /logs.old".into());
        let targets = [Target {
            path: "/logs".into(),
            is_dir: true,
        }];
        let mut holdings = BTreeMap::new();
        holdings.insert(40, vec![held("/logs/serve.log")]);
        holdings.insert(41, vec![held("/logs/young.log")]);
        holdings.insert(44, vec![held("/logs/notes.txt")]);
        holdings.insert(20, vec![held("/logs/ancestor.log")]);
        let names = SuspectNames::builtin();
        let listed = assess(&table, holdings.clone(), Some(at(80)), &names, &targets, 30);
        let pids: Vec<u32> = listed.iter().map(|a| a.process.pid).collect();
        assert_eq!(pids, [20, 40, 42, 44, 41]);
        let get = |pid| listed.iter().find(|a| a.process.pid == pid).unwrap();
        assert!(get(40).is_leftover() && get(40).may_end().is_ok());
        assert!(get(42).is_leftover() && get(42).may_end().is_ok());
        assert!(get(44).is_leftover() && get(44).may_end().is_ok());
        assert_eq!(get(44).matched_name, None);
        assert!(!get(41).is_leftover());
        assert_eq!(get(41).before_attempt, Some(false));
        assert!(
            get(20).is_leftover(),
            "an ancestor holding a file stands in the way"
        );
        assert_eq!(get(20).may_end(), Err(Refusal::Ancestor));

        // An ancestor that only matches a name is listed, protected, and no leftover.
        holdings.remove(&20);
        let listed = assess(&table, holdings.clone(), Some(at(80)), &names, &targets, 30);
        let ancestor = listed.iter().find(|a| a.process.pid == 20).unwrap();
        assert_eq!(ancestor.protection, Some(Protection::Ancestor));
        assert!(!ancestor.is_leftover());

        // Without --since: only holders, of unknown age, none of which may be ended.
        let listed = assess(&table, holdings.clone(), None, &names, &targets, 30);
        let pids: Vec<u32> = listed.iter().map(|a| a.process.pid).collect();
        assert_eq!(pids, [40, 44, 41]);
        assert!(listed
            .iter()
            .all(|a| a.before_attempt.is_none() && a.is_leftover()));
        assert!(listed
            .iter()
            .all(|a| a.may_end() == Err(Refusal::StartUnknown)));

        // A name the user gave makes a suspect whatever the command line.
        let given = SuspectNames::with_extra(&["python3".to_string()]).unwrap();
        let listed = assess(&table, holdings, Some(at(80)), &given, &targets, 30);
        let other = listed.iter().find(|a| a.process.pid == 45).unwrap();
        assert_eq!(other.matched_name.as_deref(), Some("python3"));
        assert!(other.is_leftover());
    }

    #[test]
    fn command_lines_that_name_the_paths() {
        let dir = [Target {
            path: "/tmp/logs".into(),
            is_dir: true,
        }];
        let file = [Target {
            path: "/tmp/logs/serve.log".into(),
            is_dir: false,
        }];
        for (command, names_dir) in [
            ("python3 /tmp/logs/serve.py", true),
            ("python3 --log=/tmp/logs", true),
            ("python3 '/tmp/logs/a b.log'", true),
            ("python3 /tmp/logs2/serve.py", false),
            ("python3 /x/tmp/logs/serve.py", false),
            ("python3 /tmp/logs.old", false),
            ("python3 serve.py", false),
        ] {
            assert_eq!(command_names(command, &dir), names_dir, "{command}");
        }
        assert!(command_names("tail -f /tmp/logs/serve.log", &file));
        assert!(!command_names("tail -f /tmp/logs/serve.log.1", &file));
        assert!(!command_names("tail -f /tmp/logs/serve.log/x", &file));
    }
}
