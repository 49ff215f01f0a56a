//! Linux: the process table from `/proc/<pid>/stat`, `cmdline`, `exe` and `comm`; the files a
//! process holds from the links in `/proc/<pid>/fd`; ending a process with `kill(2)`.
//!
//! Start times: field 22 of `/proc/<pid>/stat` is the start in clock ticks after boot
//! (`sysconf(_SC_CLK_TCK)`, 100 a second), and `clock_gettime(CLOCK_BOOTTIME)` is the time since
//! boot to the nanosecond, so a start is placed on the wall clock to within one tick (the boot
//! time in `/proc/stat`, whole seconds, would be far coarser). See docs/RULES.md §17.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{matches_target, HeldFile, Holdings, Process, Snapshot, StartTime, Target};
use crate::files::identity::FileIdentity;

/// The names `ending` uses in reports: the polite request and the forced end.
pub(super) const ENDING: (&str, &str) = ("SIGTERM", "SIGKILL");

/// What `/proc/<pid>/stat` says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Stat {
    /// The command name (`comm`, at most 15 bytes).
    pub comm: String,
    /// The state letter (`R`, `S`, `Z`, ...).
    pub state: char,
    /// The parent's pid.
    pub parent_pid: u32,
    /// Clock ticks after boot.
    pub start_ticks: u64,
}

/// Parses `/proc/<pid>/stat`. The command name is in parentheses and may itself hold spaces and
/// parentheses, so the fields are counted from the last `)`.
pub(super) fn parse_stat(text: &str) -> Option<Stat> {
    let open = text.find('(')?;
    let close = text.rfind(')')?;
    let comm = text.get(open + 1..close)?.to_string();
    let fields: Vec<&str> = text.get(close + 1..)?.split_whitespace().collect();
    // Field 3 (state) is fields[0]; field 4 (ppid) fields[1]; field 22 (starttime) fields[19].
    Some(Stat {
        comm,
        state: fields.first()?.chars().next()?,
        parent_pid: fields.get(1)?.parse().ok()?,
        start_ticks: fields.get(19)?.parse().ok()?,
    })
}

fn read_stat(pid: u32) -> Option<Stat> {
    parse_stat(&std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?)
}

/// The clock-tick rate of `/proc` start times.
fn ticks_per_second() -> u64 {
    // SAFETY: sysconf only reads a system constant.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 {
        ticks as u64
    } else {
        100
    }
}

/// The time since boot: `CLOCK_BOOTTIME` (the clock `/proc/<pid>/stat` start times count on),
/// else `/proc/uptime` (hundredths of a second).
fn uptime() -> Result<Duration, String> {
    let mut now = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec.
    if unsafe { libc::clock_gettime(libc::CLOCK_BOOTTIME, &mut now) } == 0 {
        if let (Ok(seconds), Ok(nanos)) = (u64::try_from(now.tv_sec), u32::try_from(now.tv_nsec)) {
            return Ok(Duration::new(seconds, nanos));
        }
    }
    let text = std::fs::read_to_string("/proc/uptime")
        .map_err(|e| format!("/proc/uptime: cannot read: {e}"))?;
    text.split_whitespace()
        .next()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .ok_or_else(|| format!("/proc/uptime: not a time: {text:?}"))
}

/// A command line from `/proc/<pid>/cmdline` (arguments separated by NUL), quoted for a POSIX
/// shell where an argument needs it; bytes that are no UTF-8 are shown as `\xNN`.
pub(super) fn command_line(raw: &[u8]) -> Option<Vec<String>> {
    let raw = raw.strip_suffix(b"\0").unwrap_or(raw);
    if raw.is_empty() {
        return None;
    }
    Some(
        raw.split(|&b| b == 0)
            .map(|arg| {
                use std::os::unix::ffi::OsStrExt;
                let arg = Path::new(std::ffi::OsStr::from_bytes(arg));
                crate::output::terminal::path_text(arg).into_owned()
            })
            .collect(),
    )
}

/// A link target without the ` (deleted)` the kernel appends to a file since removed.
fn without_deleted(link: &Path) -> PathBuf {
    let text = link.to_string_lossy();
    PathBuf::from(text.strip_suffix(" (deleted)").unwrap_or(&text))
}

/// Reads the process table.
pub(super) fn snapshot() -> Result<Snapshot, String> {
    let ticks = ticks_per_second();
    let now = SystemTime::now();
    let boot = now
        .checked_sub(uptime()?)
        .ok_or("the boot time is before 1970")?;
    // The start is cut to a tick; a millisecond more covers the reads of the two clocks.
    let uncertainty = Duration::from_nanos(1_000_000_000 / ticks) + Duration::from_millis(1);
    let entries = std::fs::read_dir("/proc").map_err(|e| format!("/proc: cannot read: {e}"))?;
    let mut processes = Vec::new();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<u32>().ok())
        else {
            continue;
        };
        // A process may end while the table is read: it is simply not in it.
        let Some(stat) = read_stat(pid) else {
            continue;
        };
        if matches!(stat.state, 'Z' | 'X') {
            continue;
        }
        let arguments = std::fs::read(format!("/proc/{pid}/cmdline"))
            .ok()
            .and_then(|raw| command_line(&raw));
        let executable = std::fs::read_link(format!("/proc/{pid}/exe"))
            .ok()
            .map(|p| without_deleted(&p));
        let file_name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
        let mut names = Vec::new();
        if let Some(exe) = executable.as_deref().and_then(file_name) {
            names.push(exe);
        }
        if let Some(first) = arguments.as_ref().and_then(|a| a.first()) {
            if let Some(name) = file_name(Path::new(first)) {
                names.push(name);
            }
        }
        names.push(stat.comm.clone());
        names.dedup();
        let started =
            boot + Duration::from_nanos(stat.start_ticks.saturating_mul(1_000_000_000 / ticks));
        processes.push(Process {
            pid,
            parent_pid: Some(stat.parent_pid),
            name: names[0].clone(),
            names,
            command: arguments.map(|a| super::shell_words(&a)),
            started: Some(StartTime {
                time: started,
                uncertainty,
            }),
            start_key: stat.start_ticks,
        });
    }
    Ok(Snapshot {
        processes,
        now,
        warnings: Vec::new(),
    })
}

/// The files under `targets` that each process holds, from its `/proc/<pid>/fd` links. The links
/// of another user's processes can be read only by root: those are counted in a warning.
pub(super) fn held_files(targets: &[Target], processes: &[Process]) -> Result<Holdings, String> {
    let own = std::process::id();
    let mut by_pid: BTreeMap<u32, Vec<HeldFile>> = BTreeMap::new();
    let mut unreadable = 0usize;
    for process in processes.iter().filter(|p| p.pid != own) {
        let entries = match std::fs::read_dir(format!("/proc/{}/fd", process.pid)) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                unreadable += 1;
                continue;
            }
            Err(_) => continue,
        };
        let mut held: Vec<HeldFile> = Vec::new();
        for entry in entries.flatten() {
            let Ok(link) = std::fs::read_link(entry.path()) else {
                continue;
            };
            // Sockets, pipes and anonymous inodes read `socket:[...]`, `pipe:[...]`, `anon_inode:...`.
            if !link.is_absolute() {
                continue;
            }
            if targets
                .iter()
                .any(|t| matches_target(&without_deleted(&link), t))
            {
                let file = HeldFile {
                    identity: held_identity(&entry.path()),
                    path: link,
                };
                if !held.contains(&file) {
                    held.push(file);
                }
            }
        }
        if !held.is_empty() {
            held.sort();
            by_pid.insert(process.pid, held);
        }
    }
    let mut warnings = Vec::new();
    if unreadable > 0 {
        warnings.push(format!(
            "the open files of {unreadable} processes of other users cannot be read without root: processes that hold a file only show up by name"
        ));
    }
    Ok(Holdings { by_pid, warnings })
}

/// Which file the descriptor link `/proc/<pid>/fd/<n>` holds open (`stat` through the link reads
/// the open file itself, whatever its path now names): `None` when it is no regular file or was
/// removed while held (no name left to delete).
fn held_identity(descriptor: &Path) -> Option<FileIdentity> {
    use std::os::unix::fs::MetadataExt;
    let metadata = std::fs::metadata(descriptor).ok()?;
    (metadata.is_file() && metadata.nlink() > 0).then(|| FileIdentity {
        volume: metadata.dev(),
        index: metadata.ino(),
    })
}

/// Whether `process` is still the process that was listed (not ended, not a zombie, its pid not
/// reused).
fn same_and_running(process: &Process) -> bool {
    read_stat(process.pid)
        .is_some_and(|s| s.start_ticks == process.start_key && !matches!(s.state, 'Z' | 'X'))
}

fn signal(process: &Process, signal: libc::c_int) -> Result<(), String> {
    if !same_and_running(process) {
        return Ok(());
    }
    let Ok(pid) = libc::pid_t::try_from(process.pid) else {
        return Err("pid out of range".into());
    };
    // SAFETY: kill(2) takes plain integers; the pid was checked to be the listed process.
    if unsafe { libc::kill(pid, signal) } == 0 {
        return Ok(());
    }
    let error = std::io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::ESRCH) => Ok(()),
        Some(libc::EPERM) => {
            Err("permission denied (another user's process: run as that user or as root)".into())
        }
        _ => Err(error.to_string()),
    }
}

/// Asks the process to end (SIGTERM).
pub(super) fn request_end(process: &Process) -> Result<(), String> {
    signal(process, libc::SIGTERM)
}

/// Ends the process (SIGKILL).
pub(super) fn force_end(process: &Process) -> Result<(), String> {
    signal(process, libc::SIGKILL)
}

/// Whether the process has ended. An ended child that its parent has not yet waited for (a
/// zombie) has ended: it holds no file.
pub(super) fn has_ended(process: &Process) -> bool {
    !same_and_running(process)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stat_lines() {
        let stat = parse_stat(
            "1234 (python3) S 1000 1234 1000 34816 1234 4194560 1016 0 0 0 1 0 0 0 20 0 1 0 5545871 11116544 2286 18446744073709551615",
        )
        .unwrap();
        assert_eq!(stat.comm, "python3");
        assert_eq!(stat.state, 'S');
        assert_eq!(stat.parent_pid, 1000);
        assert_eq!(stat.start_ticks, 5545871);
        // A name with spaces and parentheses.
        let stat =
            parse_stat("77 (a) b (c) Z 1 77 77 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0 42 0 0")
                .unwrap();
        assert_eq!(stat.comm, "a) b (c");
        assert_eq!(stat.state, 'Z');
        assert_eq!(stat.start_ticks, 42);
        assert!(parse_stat("12 (x) S 1").is_none());
        assert!(parse_stat("").is_none());
    }

    #[test]
    fn own_process_is_in_the_table_with_a_start_before_now() {
        let snapshot = snapshot().unwrap();
        let own = snapshot
            .processes
            .iter()
            .find(|p| p.pid == std::process::id())
            .expect("this test's own process");
        let started = own.started.as_ref().unwrap();
        assert!(started.time <= snapshot.now + started.uncertainty);
        // A test binary has been running for less than an hour.
        assert!(
            snapshot
                .now
                .duration_since(started.time)
                .unwrap_or_default()
                < Duration::from_secs(3600)
        );
        assert!(own.command.as_deref().is_some_and(|c| !c.is_empty()));
    }

    #[test]
    fn command_lines() {
        assert_eq!(
            command_line(b"python3\0-c\0import time\0"),
            Some(vec!["python3".into(), "-c".into(), "import time".into()])
        );
        assert_eq!(command_line(b""), None);
        assert_eq!(
            command_line(b"python3\0held-\xff.log\0"),
            Some(vec!["python3".into(), "held-\\xff.log".into()])
        );
        assert_eq!(
            without_deleted(Path::new("/x/serve.log (deleted)")),
            PathBuf::from("/x/serve.log")
        );
    }
}
