//! Ending everything a link started, and stopping when lnkfix is asked to.
//!
//! A process group is not enough: a program the link starts may move to a session of its own
//! (`setsid`) and keep the output pipes open. On Linux lnkfix makes itself a *child subreaper*
//! for the run, so that what the link leaves behind is re-parented to lnkfix instead of to init,
//! and ends every process descended from it (found through `/proc`), stopped first so none can
//! start another in between.
//!
//! SIGINT and SIGTERM during a verification are caught: the run's processes are ended, the
//! scratch directory removed, and lnkfix then ends by the same signal ([`Signals`]).

use std::sync::atomic::{AtomicI32, Ordering};

/// The signal received during a verification (0: none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

/// The signal received since [`Signals::catch`], if any.
pub fn received() -> Option<i32> {
    Some(RECEIVED.load(Ordering::SeqCst)).filter(|&s| s != 0)
}

/// SIGINT and SIGTERM caught for as long as this lives.
pub struct Signals {
    #[cfg(unix)]
    previous: Vec<(libc::c_int, libc::sighandler_t)>,
}

#[cfg(unix)]
extern "C" fn on_signal(signal: libc::c_int) {
    RECEIVED.store(signal, Ordering::SeqCst);
}

impl Signals {
    /// Catches SIGINT and SIGTERM (Unix; elsewhere nothing is caught).
    pub fn catch() -> Signals {
        #[cfg(unix)]
        {
            let handler = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            let previous = [libc::SIGINT, libc::SIGTERM]
                .into_iter()
                // SAFETY: signal(2) installs a handler that only stores to an atomic, which is
                // async-signal-safe.
                .map(|s| (s, unsafe { libc::signal(s, handler) }))
                .collect();
            Signals { previous }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    /// Restores the previous handlers; when a signal came, ends lnkfix by it (its default
    /// action), as if it had not been caught.
    pub fn finish(self) {
        drop(self);
        #[cfg(unix)]
        if let Some(signal) = received() {
            // SAFETY: restoring the default action and raising the signal touch no memory.
            unsafe {
                libc::signal(signal, libc::SIG_DFL);
                libc::raise(signal);
            }
        }
    }
}

impl Drop for Signals {
    fn drop(&mut self) {
        #[cfg(unix)]
        for (signal, handler) in &self.previous {
            // SAFETY: puts back the handler signal(2) returned.
            unsafe {
                libc::signal(*signal, *handler);
            }
        }
    }
}

/// Makes lnkfix the reaper of its orphaned descendants (Linux), so that a process the link
/// started in a session of its own stays findable.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER) changes a flag of this process only.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// The processes descended from lnkfix that are alive (not zombies), from `/proc` (Linux).
#[cfg(target_os = "linux")]
fn descendants() -> Vec<i32> {
    let mut parents = Vec::new();
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        // `pid (name) state ppid ...`: the name may hold spaces and parentheses.
        let mut fields = stat.rsplit(')').next().unwrap_or("").split_whitespace();
        let state = fields.next().unwrap_or("");
        let parent = fields.next().and_then(|p| p.parse::<i32>().ok());
        if let Some(parent) = parent {
            parents.push((pid, parent, state == "Z"));
        }
    }
    let mut found = vec![std::process::id() as i32];
    let mut at = 0;
    while at < found.len() {
        let parent = found[at];
        found.extend(parents.iter().filter(|p| p.1 == parent).map(|p| p.0));
        at += 1;
    }
    let zombie = |pid: &i32| parents.iter().any(|p| p.0 == *pid && p.2);
    found.into_iter().skip(1).filter(|p| !zombie(p)).collect()
}

/// Ends every process descended from lnkfix: all stopped first, then killed, until none is
/// left (a bounded number of passes); the ones re-parented to lnkfix are reaped.
pub fn end_descendants() {
    #[cfg(target_os = "linux")]
    for _ in 0..32 {
        let pids = descendants();
        if pids.is_empty() {
            break;
        }
        for signal in [libc::SIGSTOP, libc::SIGKILL] {
            for &pid in &pids {
                // SAFETY: kill(2) touches no memory.
                unsafe {
                    libc::kill(pid, signal);
                }
            }
        }
        for &pid in &pids {
            // SAFETY: waitpid(2) on a pid that is not our child fails with ECHILD at once; on one
            // re-parented to lnkfix it returns when the SIGKILL has ended it.
            unsafe {
                libc::waitpid(pid, std::ptr::null_mut(), 0);
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}
