//! Zombies: the rule book's step 0 (docs/RULES.md §14) — find the processes left over from an
//! earlier attempt that hold a bring-up's logs open, end them, and delete the logs they held.
//!
//! The data flows one way:
//!
//! 1. **The platform layer** (`linux.rs`, `windows.rs`) reads the system into our own types: the
//!    process table ([`Process`]: pid, parent, names, command line, start time) and, for the given
//!    files and directories, which process holds which file (Linux: the `/proc/<pid>/fd` links;
//!    Windows: the Restart Manager). It also ends a process when told to.
//! 2. **The decisions** (`decide.rs`) are pure: which processes started before the attempt
//!    (`--since`, `--started-after`, within the clock's precision), which are lnkfix's own
//!    ancestors, which are listed, which are leftovers, and which may be ended.
//! 3. **The actions** (here): end the leftovers that may be ended (politely, then by force after a
//!    grace period), wait and see which ended, then delete the files they held that nothing holds
//!    any more, and check that they are gone. A file still held is reported, never forced.
//!
//! What lnkfix never ends: itself, its ancestors (the shell or script running it), a process
//! that started after the attempt or whose start cannot be placed before it, and anything at all
//! without `--since`/`--started-after`. A pid is checked to still be the listed process (same
//! start stamp) before it is signalled, so a reused pid is never ended.

mod decide;
mod delete;
mod names;
mod render;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
use linux as platform;

#[cfg(windows)]
mod windows;
#[cfg(windows)]
use windows as platform;

#[cfg(not(any(target_os = "linux", windows)))]
mod unsupported;
#[cfg(not(any(target_os = "linux", windows)))]
use unsupported as platform;

pub use decide::{ancestors, assess, before_attempt, Assessed, Protection, Refusal};
pub use names::{name_matches, BadName, SuspectNames};
pub use render::{write_launch_check, write_text};

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use serde::Serialize;

/// The JSON schema version of [`ZombiesReport`].
pub const SCHEMA_VERSION: u32 = 1;

/// When a process started, and how exactly the system tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StartTime {
    /// The start, on the wall clock.
    pub time: SystemTime,
    /// How far the true start may lie from `time`, either way (Linux: one clock tick, 10 ms;
    /// Windows: one timer tick of the creation stamp, 16 ms).
    pub uncertainty: Duration,
}

/// One process of the table, as the platform layer read it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Process {
    /// The process id.
    pub pid: u32,
    /// The parent's process id, when known.
    pub parent_pid: Option<u32>,
    /// The file name of its executable (`python3.11`, `python.exe`).
    pub name: String,
    /// Every file name it goes by, matched against the suspect names: the executable's, the
    /// first argument's and (Linux) the kernel's command name, which for a script is the
    /// script's (`ft`).
    pub names: Vec<String>,
    /// Its command line, when readable.
    pub command: Option<String>,
    /// When it started, when readable.
    pub started: Option<StartTime>,
    /// The system's raw start stamp (Linux: clock ticks after boot; Windows: the creation
    /// FILETIME), compared before the process is signalled so that a reused pid is never ended.
    pub start_key: u64,
}

/// The process table at one moment.
#[derive(Debug, Clone)]
pub struct Snapshot {
    /// Every process that could be read.
    pub processes: Vec<Process>,
    /// When it was read: ages are counted from here.
    pub now: SystemTime,
    /// What could not be read.
    pub warnings: Vec<String>,
}

/// A file or directory given on the command line, canonical.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The canonical path.
    pub path: PathBuf,
    /// Whether it is a directory: then every file under it counts.
    pub is_dir: bool,
}

/// A file a process holds open.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct HeldFile {
    /// The path as the system names it, byte for byte (on Linux a file removed while held ends
    /// in ` (deleted)`).
    pub path: PathBuf,
    /// Which file is held (Linux: read through the process's own descriptor), when it is a
    /// regular file that still has a name; `None` otherwise: such a file is never deleted.
    pub identity: Option<crate::files::identity::FileIdentity>,
}

impl HeldFile {
    /// The path for people and JSON: bytes that are no UTF-8 shown as `\xNN`, never U+FFFD.
    pub fn text(&self) -> String {
        crate::output::terminal::path_text(&self.path).into_owned()
    }
}

/// Which process holds which files.
#[derive(Debug, Clone, Default)]
pub struct Holdings {
    /// Pid to the held files, sorted.
    pub by_pid: BTreeMap<u32, Vec<HeldFile>>,
    /// What could not be read.
    pub warnings: Vec<String>,
}

/// Whether `path` (canonical, as the system names an open file) is `target` or lies under it.
pub fn matches_target(path: &Path, target: &Target) -> bool {
    path == target.path || (target.is_dir && path.starts_with(&target.path))
}

/// What `lnkfix zombies` is asked.
#[derive(Debug, Clone)]
pub struct ZombiesRequest {
    /// The log files or directories (a directory covers every file under it).
    pub paths: Vec<PathBuf>,
    /// When the attempt started (`--since`).
    pub since: Option<SystemTime>,
    /// A file whose modification time is when the attempt started (`--started-after`); the
    /// later of this and `since` counts.
    pub started_after: Option<PathBuf>,
    /// End the leftovers (`--kill`).
    pub kill: bool,
    /// Then delete the files they held (`--delete`).
    pub delete: bool,
    /// More suspect names (`--name`).
    pub names: Vec<String>,
    /// Whether the shipped suspect names count (`false`: `--no-default-names`, only `names`).
    pub default_names: bool,
    /// How long a process is given to end after the polite request before it is forced, and
    /// again after being forced before it is reported as still running.
    pub grace: Duration,
}

impl Default for ZombiesRequest {
    fn default() -> ZombiesRequest {
        ZombiesRequest {
            paths: Vec::new(),
            since: None,
            started_after: None,
            kill: false,
            delete: false,
            names: Vec::new(),
            default_names: true,
            grace: Duration::from_secs(3),
        }
    }
}

/// Why `zombies` could not run (exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum ZombiesError {
    /// No path was given.
    #[error("give the log file or its directory (PATH...)")]
    NoPaths,
    /// A path cannot be read.
    #[error("{path}: cannot read: {source}")]
    Path {
        /// The path as given.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The `--started-after` file cannot be read.
    #[error("{path}: cannot read its modification time (--started-after): {source}")]
    StartedAfter {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// `--kill` without the attempt's start.
    #[error("--kill needs --since TIME or --started-after FILE: without the attempt's start, lnkfix cannot tell a leftover from the current run, so it ends nothing")]
    KillWithoutSince,
    /// `--delete` without `--kill`.
    #[error(
        "--delete needs --kill: a file is deleted only after the leftovers that held it have ended"
    )]
    DeleteWithoutKill,
    /// A `--name` is unusable.
    #[error(transparent)]
    Name(#[from] BadName),
    /// The process table or the open files cannot be read on this system.
    #[error("cannot list processes: {0}")]
    Platform(String),
}

/// One listed process, as the JSON report gives it.
#[derive(Debug, Clone, Serialize)]
pub struct ListedProcess {
    /// The process id.
    pub pid: u32,
    /// The parent's process id.
    pub parent_pid: Option<u32>,
    /// The file name of its executable.
    pub name: String,
    /// Its command line.
    pub command: Option<String>,
    /// When it started (RFC 3339, UTC, to the millisecond).
    pub started: Option<String>,
    /// How long it has run, in seconds (to the millisecond).
    pub age_seconds: Option<f64>,
    /// The files under the paths it holds open.
    pub holds: Vec<String>,
    /// Whether it started before the attempt (`null`: not known; see the guide).
    pub before_attempt: Option<bool>,
    /// The suspect name it matched.
    pub matched_name: Option<String>,
    /// `"ancestor"` for lnkfix's shell or parents, which are never ended.
    pub protected: Option<&'static str>,
    /// Whether it stands in the way of the attempt.
    pub leftover: bool,
}

/// A leftover that was not ended, and why.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct NotEnded {
    /// The process id.
    pub pid: u32,
    /// Why.
    pub reason: String,
}

/// A file that could not be deleted for another reason than being held.
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct NotDeleted {
    /// The file.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// What `lnkfix zombies --format json` prints.
#[derive(Debug, Clone, Serialize)]
pub struct ZombiesReport {
    /// Always [`SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The paths looked at, canonical.
    pub paths: Vec<String>,
    /// When the attempt started (RFC 3339, UTC), if known.
    pub since: Option<String>,
    /// The processes that hold a file under the paths, and the suspects by name that started
    /// before the attempt; oldest first.
    pub processes: Vec<ListedProcess>,
    /// The processes ended (`--kill`).
    pub killed: Vec<u32>,
    /// The leftovers not ended, and why.
    pub not_killed: Vec<NotEnded>,
    /// The files deleted and checked to be gone (`--delete`).
    pub deleted: Vec<String>,
    /// The files not deleted because a process still holds them.
    pub still_held: Vec<String>,
    /// The files that could not be deleted for another reason.
    pub not_deleted: Vec<NotDeleted>,
    /// The suspect names matched against.
    pub suspect_names: Vec<String>,
    /// The command that ends the leftovers and deletes their files, when some remain and
    /// `--kill` was not given.
    pub fix: Option<String>,
    /// What could not be read or decided.
    pub warnings: Vec<String>,
    /// Whether `--kill` was given.
    #[serde(skip)]
    pub kill_requested: bool,
    /// Whether `--delete` was given.
    #[serde(skip)]
    pub delete_requested: bool,
}

impl ZombiesReport {
    /// The leftovers still running: listed as leftovers and not ended.
    pub fn remaining(&self) -> impl Iterator<Item = &ListedProcess> {
        self.processes
            .iter()
            .filter(|p| p.leftover && !self.killed.contains(&p.pid))
    }

    /// Whether nothing is left to do: no leftover remains, and every file asked to be deleted is
    /// gone.
    pub fn is_clear(&self) -> bool {
        self.remaining().next().is_none()
            && self.still_held.is_empty()
            && self.not_deleted.is_empty()
    }
}

/// Writes the JSON report (one document, pretty-printed, newline-terminated).
pub fn write_json(report: &ZombiesReport, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    crate::output::terminal::write_json(report, out)
}

/// The attempt's start: the later of `since` and the modification time of `started_after`.
fn attempt_start(
    since: Option<SystemTime>,
    started_after: Option<&Path>,
) -> Result<Option<SystemTime>, ZombiesError> {
    let Some(path) = started_after else {
        return Ok(since);
    };
    let modified = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .map_err(|source| ZombiesError::StartedAfter {
            path: path.to_path_buf(),
            source,
        })?;
    Ok(Some(since.map_or(modified, |s| s.max(modified))))
}

/// The canonical form of each path; a path that does not exist is an error.
fn targets(paths: &[PathBuf]) -> Result<Vec<Target>, ZombiesError> {
    paths
        .iter()
        .map(|path| {
            let canonical = dunce::canonicalize(path).map_err(|source| ZombiesError::Path {
                path: path.clone(),
                source,
            })?;
            Ok(Target {
                is_dir: canonical.is_dir(),
                path: canonical,
            })
        })
        .collect()
}

/// Lists, ends and deletes as asked.
pub fn zombies(request: &ZombiesRequest) -> Result<ZombiesReport, ZombiesError> {
    if request.paths.is_empty() {
        return Err(ZombiesError::NoPaths);
    }
    let names = if request.default_names {
        SuspectNames::with_extra(&request.names)?
    } else {
        SuspectNames::only(&request.names)?
    };
    let since = attempt_start(request.since, request.started_after.as_deref())?;
    if request.kill && since.is_none() {
        return Err(ZombiesError::KillWithoutSince);
    }
    if request.delete && !request.kill {
        return Err(ZombiesError::DeleteWithoutKill);
    }
    let targets = targets(&request.paths)?;
    let (snapshot, listed, mut warnings) = look(&targets, since, &names)?;

    let mut killed = Vec::new();
    let mut not_killed = Vec::new();
    if request.kill {
        (killed, not_killed) = end_leftovers(&listed, request.grace);
    }
    let (mut deleted, mut still_held, mut not_deleted) = (Vec::new(), Vec::new(), Vec::new());
    if request.delete {
        let outcome = delete_held(&listed, &mut warnings)?;
        (deleted, still_held, not_deleted) = outcome;
    }

    let paths: Vec<String> = targets.iter().map(|t| display_path(&t.path)).collect();
    let processes: Vec<ListedProcess> = listed
        .iter()
        .map(|a| listed_process(a, snapshot.now))
        .collect();
    let mut report = ZombiesReport {
        schema_version: SCHEMA_VERSION,
        paths,
        since: since.map(format_time),
        processes,
        killed,
        not_killed,
        deleted,
        still_held,
        not_deleted,
        suspect_names: names.names().to_vec(),
        fix: None,
        warnings,
        kill_requested: request.kill,
        delete_requested: request.delete,
    };
    if !request.kill && report.remaining().next().is_some() {
        report.fix = Some(match since {
            Some(since) => {
                let mut command = fix_command(&report.paths, since);
                if !request.default_names {
                    command.push_str(" --no-default-names");
                }
                for name in &request.names {
                    command.push_str(&format!(" --name {}", quote_argument(name)));
                }
                command
            }
            None => "give --since TIME (when the attempt started) or --started-after FILE: only then can lnkfix tell a leftover from the current run, and end it".into(),
        });
    }
    Ok(report)
}

/// Reads the table and the open files, and decides about every process.
fn look(
    targets: &[Target],
    since: Option<SystemTime>,
    names: &SuspectNames,
) -> Result<(Snapshot, Vec<Assessed>, Vec<String>), ZombiesError> {
    let snapshot = platform::snapshot().map_err(ZombiesError::Platform)?;
    let holdings =
        platform::held_files(targets, &snapshot.processes).map_err(ZombiesError::Platform)?;
    let mut warnings = snapshot.warnings.clone();
    warnings.extend(holdings.warnings);
    let listed = assess(
        &snapshot.processes,
        holdings.by_pid,
        since,
        names,
        targets,
        std::process::id(),
    );
    if since.is_some() {
        let unplaced: Vec<String> = snapshot
            .processes
            .iter()
            .filter(|p| {
                p.started.is_none() && names.matching(p.names.iter().map(String::as_str)).is_some()
            })
            .map(|p| format!("{} ({})", p.pid, p.name))
            .collect();
        if !unplaced.is_empty() {
            warnings.push(format!(
                "the start time of {} cannot be read, so lnkfix cannot tell whether they are leftovers: {}",
                if unplaced.len() == 1 { "one suspect" } else { "some suspects" },
                unplaced.join(", ")
            ));
        }
    }
    Ok((snapshot, listed, warnings))
}

/// Ends every leftover that may be ended: the polite request to all, a wait of up to `grace`,
/// the forced end for those still running, another wait. Returns the ended pids and the
/// leftovers not ended with the reason.
fn end_leftovers(listed: &[Assessed], grace: Duration) -> (Vec<u32>, Vec<NotEnded>) {
    let mut not_ended = Vec::new();
    let mut pending: Vec<&Process> = Vec::new();
    for assessed in listed.iter().filter(|a| a.is_leftover()) {
        match assessed.may_end() {
            Ok(()) => match platform::request_end(&assessed.process) {
                Ok(()) => pending.push(&assessed.process),
                Err(reason) => not_ended.push(NotEnded {
                    pid: assessed.process.pid,
                    reason,
                }),
            },
            Err(refusal) => not_ended.push(NotEnded {
                pid: assessed.process.pid,
                reason: refusal.to_string(),
            }),
        }
    }
    let mut ended = Vec::new();
    let (polite, forced) = platform::ENDING;
    wait_for(&mut pending, &mut ended, grace);
    pending.retain(|process| match platform::force_end(process) {
        Ok(()) => true,
        Err(reason) => {
            not_ended.push(NotEnded {
                pid: process.pid,
                reason: format!(
                    "still running {} s after {polite}; {forced}: {reason}",
                    grace.as_secs_f64()
                ),
            });
            false
        }
    });
    wait_for(&mut pending, &mut ended, grace);
    for process in pending {
        not_ended.push(NotEnded {
            pid: process.pid,
            reason: format!(
                "still running {} s after {polite} and {} s after {forced}",
                grace.as_secs_f64(),
                grace.as_secs_f64()
            ),
        });
    }
    ended.sort_unstable();
    not_ended.sort_by_key(|n| n.pid);
    (ended, not_ended)
}

/// Moves the processes of `pending` that end within `limit` to `ended`.
fn wait_for(pending: &mut Vec<&Process>, ended: &mut Vec<u32>, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        pending.retain(|process| {
            let gone = platform::has_ended(process);
            if gone {
                ended.push(process.pid);
            }
            !gone
        });
        if pending.is_empty() || Instant::now() >= deadline {
            return;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

type Deletion = (Vec<String>, Vec<String>, Vec<NotDeleted>);

/// Deletes the files the leftovers held, once nothing holds them (read again now), by handle and
/// only when the name still names the file that was held (`delete.rs`), and checks that each is
/// gone.
fn delete_held(listed: &[Assessed], warnings: &mut Vec<String>) -> Result<Deletion, ZombiesError> {
    // A file removed while held, or no regular file, has no identity: there is nothing to delete.
    let files: BTreeSet<HeldFile> = listed
        .iter()
        .filter(|a| a.is_leftover())
        .flat_map(|a| a.holds.iter())
        .filter(|held| held.identity.is_some())
        .cloned()
        .collect();
    let (mut deleted, mut still_held, mut not_deleted) = (Vec::new(), Vec::new(), Vec::new());
    if files.is_empty() {
        return Ok((deleted, still_held, not_deleted));
    }
    let targets: Vec<Target> = files
        .iter()
        .map(|held| Target {
            path: held.path.clone(),
            is_dir: false,
        })
        .collect();
    let snapshot = platform::snapshot().map_err(ZombiesError::Platform)?;
    let holdings =
        platform::held_files(&targets, &snapshot.processes).map_err(ZombiesError::Platform)?;
    for warning in holdings.warnings {
        if !warnings.contains(&warning) {
            warnings.push(warning);
        }
    }
    let held_now: Vec<&HeldFile> = holdings.by_pid.values().flatten().collect();
    for file in files {
        let text = file.text();
        if held_now
            .iter()
            .any(|h| h.path == file.path || h.identity == file.identity)
        {
            still_held.push(text);
            continue;
        }
        match delete::delete(&file) {
            Ok(()) => deleted.push(text),
            Err(reason) => not_deleted.push(NotDeleted { path: text, reason }),
        }
    }
    Ok((deleted, still_held, not_deleted))
}

fn listed_process(assessed: &Assessed, now: SystemTime) -> ListedProcess {
    let process = &assessed.process;
    ListedProcess {
        pid: process.pid,
        parent_pid: process.parent_pid,
        name: process.name.clone(),
        command: process.command.clone(),
        started: process.started.map(|s| format_time(s.time)),
        age_seconds: process.started.map(|s| {
            let age = now.duration_since(s.time).unwrap_or_default();
            (age.as_secs_f64() * 1000.0).round() / 1000.0
        }),
        holds: assessed.holds.iter().map(HeldFile::text).collect(),
        before_attempt: assessed.before_attempt,
        matched_name: assessed.matched_name.clone(),
        protected: assessed.protection.map(Protection::name),
        leftover: assessed.is_leftover(),
    }
}

/// A path as the user reads it.
fn display_path(path: &Path) -> String {
    crate::output::terminal::path_text(path).into_owned()
}

/// A time as RFC 3339 in UTC, to the millisecond (cut, not rounded: an attempt start printed
/// this way is never later than the real one).
pub fn format_time(time: SystemTime) -> String {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .ok()
        .and_then(|d| i64::try_from(d.as_millis()).ok())
        .and_then(|millis| jiff::Timestamp::from_millisecond(millis).ok())
        .map_or_else(
            || crate::commands::triage::time::format_rfc3339(time),
            |t| t.to_string(),
        )
}

/// Quotes one argument for the user's shell: `cmd`/PowerShell double quotes on Windows, the
/// `shlex` crate's POSIX quoting elsewhere, and only when needed.
pub fn quote_argument(argument: &str) -> String {
    if cfg!(windows) {
        return crate::output::report::quote_windows_argument(argument);
    }
    // shlex quotes for POSIX shells; it refuses only a NUL, which no argument can hold.
    shlex::try_quote(argument)
        .map(|quoted| quoted.into_owned())
        .unwrap_or_else(|_| argument.replace('\0', ""))
}

/// A command line from its arguments, each quoted as needed.
pub fn shell_words(arguments: &[String]) -> String {
    arguments
        .iter()
        .map(|a| quote_argument(a))
        .collect::<Vec<_>>()
        .join(" ")
}

/// `lnkfix zombies PATHS --since T --kill --delete`.
pub fn fix_command(paths: &[String], since: SystemTime) -> String {
    let mut words = vec!["lnkfix".to_string(), "zombies".to_string()];
    words.extend(paths.iter().cloned());
    words.extend([
        "--since".into(),
        format_time(since),
        "--kill".into(),
        "--delete".into(),
    ]);
    shell_words(&words)
}

// ---- triage and doctor ---------------------------------------------------------------------

/// The leftover check `triage` (on a stale or missing log) and `doctor --log` add: the command
/// that ends the leftovers and deletes their logs, and the leftovers themselves.
#[derive(Debug, Clone, Serialize)]
pub struct LaunchCheck {
    /// The log's directory, as given.
    pub directory: String,
    /// `lnkfix zombies DIR --since T --kill --delete`.
    pub command: String,
    /// The leftovers (`null` when they were not listed: not asked for, or not readable here).
    pub processes: Option<Vec<ListedProcess>>,
    /// Why they could not be listed.
    pub error: Option<String>,
    /// What could not be read.
    pub warnings: Vec<String>,
}

/// The directory of `log`, as given (`.` for a bare file name).
pub fn log_directory(log: &Path) -> PathBuf {
    match log.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// The leftover check for `log`'s directory and an attempt that started at `since`; the
/// processes are listed only when `list` is set.
pub fn launch_check(log: &Path, since: SystemTime, list: bool) -> LaunchCheck {
    let directory = log_directory(log);
    let shown = display_path(&directory);
    let mut check = LaunchCheck {
        command: fix_command(std::slice::from_ref(&shown), since),
        directory: shown,
        processes: None,
        error: None,
        warnings: Vec::new(),
    };
    if !list {
        return check;
    }
    let request = ZombiesRequest {
        paths: vec![directory],
        since: Some(since),
        ..ZombiesRequest::default()
    };
    match zombies(&request) {
        Ok(report) => {
            check.processes = Some(
                report
                    .processes
                    .into_iter()
                    .filter(|p| p.leftover)
                    .collect(),
            );
            check.warnings = report.warnings;
        }
        Err(e) => check.error = Some(e.to_string()),
    }
    check
}

// ---- helpers of the Windows holder lookup, kept here so that they are tested everywhere -----

/// Every file `targets` name: a file itself, and the files under a directory (to `max_depth`
/// levels), at most `limit` in all. The second value is whether the limit cut the list.
pub fn files_under(targets: &[Target], limit: usize, max_depth: usize) -> (Vec<PathBuf>, bool) {
    fn walk(
        dir: &Path,
        depth: usize,
        max_depth: usize,
        limit: usize,
        out: &mut Vec<PathBuf>,
    ) -> bool {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return false;
        };
        let mut entries: Vec<_> = entries.flatten().collect();
        entries.sort_by_key(|e| e.file_name());
        for entry in entries {
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_file() {
                if out.len() >= limit {
                    return true;
                }
                out.push(entry.path());
            } else if kind.is_dir()
                && depth < max_depth
                && walk(&entry.path(), depth + 1, max_depth, limit, out)
            {
                return true;
            }
        }
        false
    }
    let mut out = Vec::new();
    let mut cut = false;
    for target in targets {
        if target.is_dir {
            cut |= walk(&target.path, 0, max_depth, limit, &mut out);
        } else if out.len() < limit {
            out.push(target.path.clone());
        } else {
            cut = true;
        }
        if cut {
            break;
        }
    }
    out.dedup();
    (out, cut)
}

/// A process as the Restart Manager names it: its pid and creation stamp.
pub type Holder = (u32, u64);

/// The Restart Manager's question: which processes hold any of these files.
pub type HolderQuery<'a> = dyn FnMut(&[PathBuf]) -> Result<Vec<Holder>, String> + 'a;

/// Which holder holds which of `files`, given `holders_of`, which answers only for a whole group
/// of files (the Restart Manager's question: which processes hold any of these). The group is
/// halved while a half has holders, so `k` held files of `n` cost about `2k log n` questions
/// instead of `n`. Holders are `(pid, start stamp)`.
pub fn attribute_holders(
    files: &[PathBuf],
    holders_of: &mut HolderQuery<'_>,
) -> Result<BTreeMap<Holder, Vec<PathBuf>>, String> {
    fn split(
        files: &[PathBuf],
        holders: Vec<Holder>,
        holders_of: &mut HolderQuery<'_>,
        out: &mut BTreeMap<Holder, Vec<PathBuf>>,
    ) -> Result<(), String> {
        if files.len() == 1 {
            for holder in holders {
                out.entry(holder).or_default().push(files[0].clone());
            }
            return Ok(());
        }
        let (left, right) = files.split_at(files.len() / 2);
        for half in [left, right] {
            let found = holders_of(half)?;
            if !found.is_empty() {
                split(half, found, holders_of, out)?;
            }
        }
        Ok(())
    }
    let mut out = BTreeMap::new();
    if files.is_empty() {
        return Ok(out);
    }
    let all = holders_of(files)?;
    if !all.is_empty() {
        split(files, all, holders_of, &mut out)?;
    }
    for held in out.values_mut() {
        held.sort();
        held.dedup();
    }
    Ok(out)
}

/// Calls a Win32 list function of the `RmGetList` kind until the buffer is large enough: `call`
/// gets (needed, count in/out, buffer) and returns 0 for success or an error code; `more_data`
/// is the code that asks for a larger buffer, with `needed` set.
pub fn grow_list<T: Clone + Default>(
    call: &mut dyn FnMut(&mut u32, &mut u32, *mut T) -> u32,
    more_data: u32,
) -> Result<Vec<T>, u32> {
    let mut buffer: Vec<T> = Vec::new();
    // The list may grow between two calls; a few rounds settle it.
    for _ in 0..8 {
        let mut needed = 0u32;
        let mut count = u32::try_from(buffer.len()).unwrap_or(u32::MAX);
        let pointer = if buffer.is_empty() {
            std::ptr::null_mut()
        } else {
            buffer.as_mut_ptr()
        };
        match call(&mut needed, &mut count, pointer) {
            0 => {
                buffer.truncate(count as usize);
                return Ok(buffer);
            }
            code if code == more_data => {
                buffer = vec![T::default(); needed.max(1) as usize];
            }
            code => return Err(code),
        }
    }
    Err(more_data)
}

/// A Windows FILETIME (100-nanosecond intervals since 1601-01-01 UTC) on the wall clock.
pub fn filetime_to_system_time(filetime: u64) -> Option<SystemTime> {
    /// Seconds from 1601-01-01 to 1970-01-01.
    const EPOCH_DIFFERENCE: u64 = 11_644_473_600;
    let since_1601 = Duration::from_nanos(filetime.checked_mul(100)?);
    let offset = Duration::from_secs(EPOCH_DIFFERENCE);
    if since_1601 >= offset {
        SystemTime::UNIX_EPOCH.checked_add(since_1601 - offset)
    } else {
        SystemTime::UNIX_EPOCH.checked_sub(offset - since_1601)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_match_files_and_directories() {
        let dir = Target {
            path: PathBuf::from("/logs"),
            is_dir: true,
        };
        let file = Target {
            path: PathBuf::from("/logs/serve.log"),
            is_dir: false,
        };
        assert!(matches_target(Path::new("/logs/serve.log"), &dir));
        assert!(matches_target(Path::new("/logs/a/b.log"), &dir));
        assert!(matches_target(Path::new("/logs"), &dir));
        assert!(!matches_target(Path::new("/logs2/serve.log"), &dir));
        assert!(matches_target(Path::new("/logs/serve.log"), &file));
        assert!(!matches_target(Path::new("/logs/serve.log.1"), &file));
    }

    #[test]
    fn times_and_commands() {
        let t = SystemTime::UNIX_EPOCH
            + Duration::from_millis(1_796_040_000_123)
            + Duration::from_micros(999);
        assert_eq!(format_time(t), "2026-11-30T12:00:00.123Z");
        assert_eq!(
            format_time(SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_040_000)),
            "2026-11-30T12:00:00Z"
        );
        if !cfg!(windows) {
            assert_eq!(quote_argument("a b"), "'a b'");
            assert_eq!(quote_argument("it's"), "\"it's\"");
            // A POSIX shell reads each back as the one argument it was.
            for tricky in ["$HOME/a b", "a`b`", "x\"y", "it's \\ here", "-n"] {
                assert_eq!(
                    shlex::split(&quote_argument(tricky)),
                    Some(vec![tricky.to_string()]),
                    "{tricky}"
                );
            }
            assert_eq!(quote_argument("/tmp/x-1.log"), "/tmp/x-1.log");
            assert_eq!(quote_argument(""), "''");
        }
        let command = fix_command(
            &["/tmp/logs".into()],
            SystemTime::UNIX_EPOCH + Duration::from_secs(1_796_040_000),
        );
        assert_eq!(
            command,
            "lnkfix zombies /tmp/logs --since 2026-11-30T12:00:00Z --kill --delete"
        );
        // The printed time reads back as --since reads it.
        let since = crate::commands::triage::parse_time(&format_time(t)).unwrap();
        assert!(since <= t && t.duration_since(since).unwrap() < Duration::from_millis(1));
    }

    #[test]
    fn filetimes() {
        // 2026-11-30T12:00:00Z: (1_796_040_000 + 11_644_473_600) * 10^7.
        let t = filetime_to_system_time((1_796_040_000 + 11_644_473_600) * 10_000_000).unwrap();
        assert_eq!(format_time(t), "2026-11-30T12:00:00Z");
        assert_eq!(
            filetime_to_system_time(116_444_736_000_000_000),
            Some(SystemTime::UNIX_EPOCH)
        );
        assert!(filetime_to_system_time(u64::MAX).is_none());
    }

    #[test]
    fn holders_are_attributed_by_halving() {
        let files: Vec<PathBuf> = (0..64)
            .map(|i| PathBuf::from(format!("/logs/{i}.log")))
            .collect();
        // Process 7 holds files 3 and 40; process 9 holds file 40.
        let held = |f: &PathBuf| -> Vec<(u32, u64)> {
            match f.to_str().unwrap() {
                "/logs/3.log" => vec![(7, 1)],
                "/logs/40.log" => vec![(7, 1), (9, 2)],
                _ => vec![],
            }
        };
        let mut questions = 0;
        let mut ask = |group: &[PathBuf]| -> Result<Vec<(u32, u64)>, String> {
            questions += 1;
            let mut found: Vec<(u32, u64)> = group.iter().flat_map(held).collect();
            found.sort();
            found.dedup();
            Ok(found)
        };
        let out = attribute_holders(&files, &mut ask).unwrap();
        assert_eq!(
            out[&(7, 1)],
            [PathBuf::from("/logs/3.log"), PathBuf::from("/logs/40.log")]
        );
        assert_eq!(out[&(9, 2)], [PathBuf::from("/logs/40.log")]);
        assert_eq!(out.len(), 2);
        assert!(questions <= 1 + 2 * 2 * 6, "{questions} questions");
        // Nobody holds anything: one question.
        let mut questions = 0;
        let mut nobody = |_: &[PathBuf]| -> Result<Vec<(u32, u64)>, String> {
            questions += 1;
            Ok(vec![])
        };
        assert!(attribute_holders(&files, &mut nobody).unwrap().is_empty());
        assert_eq!(questions, 1);
        // An error is passed on.
        let mut failing = |_: &[PathBuf]| -> Result<Vec<(u32, u64)>, String> { Err("no".into()) };
        assert_eq!(attribute_holders(&files, &mut failing), Err("no".into()));
    }

    #[test]
    fn list_buffers_grow_until_the_list_fits() {
        const MORE: u32 = 234;
        // A list of 3 that grows to 5 between the first two calls.
        let mut calls = 0;
        let mut call = |needed: &mut u32, count: &mut u32, buffer: *mut u64| -> u32 {
            calls += 1;
            let size = if calls == 1 { 3 } else { 5 };
            if (*count as usize) < size {
                *needed = size as u32;
                return MORE;
            }
            for i in 0..size {
                // SAFETY: the buffer holds `count` >= `size` elements.
                unsafe { *buffer.add(i) = i as u64 * 10 };
            }
            *count = size as u32;
            0
        };
        assert_eq!(grow_list(&mut call, MORE), Ok(vec![0, 10, 20, 30, 40]));
        let mut empty = |_: &mut u32, count: &mut u32, _: *mut u64| -> u32 {
            *count = 0;
            0
        };
        assert_eq!(grow_list(&mut empty, MORE), Ok(vec![]));
        let mut failing = |_: &mut u32, _: &mut u32, _: *mut u64| -> u32 { 5 };
        assert_eq!(grow_list(&mut failing, MORE), Err(5));
    }

    #[test]
    fn files_under_directories_with_a_limit() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("sub/deeper")).unwrap();
        for name in ["a.log", "b.log", "sub/c.log", "sub/deeper/d.log"] {
            std::fs::write(dir.path().join(name), b"x").unwrap();
        }
        let target = Target {
            path: dir.path().to_path_buf(),
            is_dir: true,
        };
        let (files, cut) = files_under(std::slice::from_ref(&target), 100, 8);
        assert_eq!(files.len(), 4);
        assert!(!cut);
        let (files, cut) = files_under(std::slice::from_ref(&target), 100, 0);
        assert_eq!(files.len(), 2);
        assert!(!cut);
        let (files, cut) = files_under(&[target], 3, 8);
        assert_eq!(files.len(), 3);
        assert!(cut);
    }
}
