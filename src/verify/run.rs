//! Runs a prepared link: the program started directly (never through a shell), in the build's
//! directory, with no input, its output captured up to a bound, and a time limit after which the
//! program and every process it started are killed (a process group on Unix, a job object on
//! Windows).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The most output kept of each stream (stdout, stderr); the rest is read and counted, not kept.
pub const OUTPUT_LIMIT: usize = 4 << 20;

/// How a run ended.
#[derive(Debug)]
pub struct Finished {
    /// The exit status; `None` when the time limit killed it.
    pub status: Option<ExitStatus>,
    /// What it wrote to stdout, then stderr (each cut at [`OUTPUT_LIMIT`]).
    pub output: Vec<u8>,
    /// Bytes written beyond the limit and not kept.
    pub discarded: u64,
    /// Whether the time limit was reached.
    pub timed_out: bool,
    /// How long it ran.
    pub elapsed: Duration,
}

/// The program to start: a path with a directory part is taken relative to the build's
/// directory (where the build ran it), a bare name is looked up on `PATH`.
pub fn resolve_program(program: &str, directory: &Path) -> PathBuf {
    let native = crate::discover::native_path(program);
    if program.contains(['/', '\\']) && native.is_relative() && !is_windows_absolute(program) {
        directory.join(native)
    } else {
        native
    }
}

/// `C:\x`, `C:/x` or `\\server\share`: absolute on Windows, whatever system reads it.
pub fn is_windows_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    (bytes.len() >= 3
        && bytes[0].is_ascii_alphabetic()
        && bytes[1] == b':'
        && matches!(bytes[2], b'\\' | b'/'))
        || path.starts_with("\\\\")
}

/// Reads a stream to its end, keeping up to [`OUTPUT_LIMIT`] bytes.
fn drain(mut stream: impl Read) -> (Vec<u8>, u64) {
    let mut kept = Vec::new();
    let mut discarded = 0u64;
    let mut buffer = [0u8; 64 * 1024];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                let room = OUTPUT_LIMIT.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buffer[..room]);
                discarded += (n - room) as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
    (kept, discarded)
}

/// Runs `program` (absolute, as [`super::trust::resolve`] gives it) with the arguments of `argv`
/// in `directory` for at most `timeout`; the link's `PATH` keeps only its absolute entries.
pub fn run(
    program: &Path,
    argv: &[String],
    directory: &Path,
    timeout: Duration,
) -> std::io::Result<Finished> {
    let directory = std::path::absolute(directory)?;
    let directory = directory.as_path();
    let mut command = Command::new(program);
    if let Some(path) = super::trust::sanitized_path() {
        command.env("PATH", path);
    }
    command
        .args(&argv[1..])
        .current_dir(directory)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    tree::prepare(&mut command);
    let started = Instant::now();
    let mut child = command.spawn()?;
    let tree = tree::Tree::adopt(&child);
    let stdout = child
        .stdout
        .take()
        .map(|s| std::thread::spawn(move || drain(s)));
    let stderr = child
        .stderr
        .take()
        .map(|s| std::thread::spawn(move || drain(s)));
    let deadline = started + timeout;
    let (status, timed_out) = wait(&mut child, &tree, deadline)?;
    // A process the program left running may still hold the pipes open: the limit applies to it
    // as well.
    while [&stdout, &stderr]
        .iter()
        .any(|t| t.as_ref().is_some_and(|t| !t.is_finished()))
    {
        if Instant::now() >= deadline {
            tree.kill(&mut child);
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut output = Vec::new();
    let mut discarded = 0;
    for reader in [stdout, stderr].into_iter().flatten() {
        let (kept, more) = reader.join().unwrap_or_default();
        output.extend_from_slice(&kept);
        discarded += more;
    }
    Ok(Finished {
        status,
        output,
        discarded,
        timed_out,
        elapsed: started.elapsed(),
    })
}

fn wait(
    child: &mut Child,
    tree: &tree::Tree,
    deadline: Instant,
) -> std::io::Result<(Option<ExitStatus>, bool)> {
    let mut pause = Duration::from_millis(2);
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok((Some(status), false));
        }
        if Instant::now() >= deadline {
            tree.kill(child);
            return Ok((None, true));
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(50));
    }
}

#[cfg(unix)]
mod tree {
    //! A process group: the program is its leader, what it starts joins it, one signal ends all.
    use std::os::unix::process::CommandExt;
    use std::process::{Child, Command};

    pub fn prepare(command: &mut Command) {
        command.process_group(0);
    }

    pub struct Tree {
        group: i32,
    }

    impl Tree {
        pub fn adopt(child: &Child) -> Tree {
            Tree {
                group: child.id() as i32,
            }
        }

        pub fn kill(&self, child: &mut Child) {
            // SAFETY: kill(2) with a negative pid signals the process group the child leads; it
            // touches no memory.
            unsafe {
                libc::kill(-self.group, libc::SIGKILL);
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

#[cfg(windows)]
mod tree {
    //! A job object: the program is assigned to it right after it starts, what it starts belongs
    //! to it too, and terminating the job ends them all. Closing the job (when lnkfix exits or the
    //! run ends) kills what is left.
    use std::os::windows::io::AsRawHandle;
    use std::process::{Child, Command};

    use windows_sys::Win32::Foundation::{CloseHandle, HANDLE};
    use windows_sys::Win32::System::JobObjects::{
        AssignProcessToJobObject, CreateJobObjectW, JobObjectExtendedLimitInformation,
        SetInformationJobObject, TerminateJobObject, JOBOBJECT_EXTENDED_LIMIT_INFORMATION,
        JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
    };

    pub fn prepare(_command: &mut Command) {}

    pub struct Tree {
        job: HANDLE,
    }

    impl Tree {
        pub fn adopt(child: &Child) -> Tree {
            // SAFETY: plain Win32 calls on a handle we own and the child's process handle; the
            // information block is a zeroed plain struct of the size we pass.
            unsafe {
                let job = CreateJobObjectW(std::ptr::null(), std::ptr::null());
                if job.is_null() {
                    return Tree { job };
                }
                let mut info: JOBOBJECT_EXTENDED_LIMIT_INFORMATION = std::mem::zeroed();
                info.BasicLimitInformation.LimitFlags = JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE;
                SetInformationJobObject(
                    job,
                    JobObjectExtendedLimitInformation,
                    &info as *const _ as *const core::ffi::c_void,
                    std::mem::size_of::<JOBOBJECT_EXTENDED_LIMIT_INFORMATION>() as u32,
                );
                if AssignProcessToJobObject(job, child.as_raw_handle() as HANDLE) == 0 {
                    CloseHandle(job);
                    return Tree {
                        job: std::ptr::null_mut(),
                    };
                }
                Tree { job }
            }
        }

        pub fn kill(&self, child: &mut Child) {
            if !self.job.is_null() {
                // SAFETY: the job handle is ours and open.
                unsafe {
                    TerminateJobObject(self.job, 1);
                }
            }
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    impl Drop for Tree {
        fn drop(&mut self) {
            if !self.job.is_null() {
                // SAFETY: closing the handle we created, once.
                unsafe {
                    CloseHandle(self.job);
                }
            }
        }
    }
}
