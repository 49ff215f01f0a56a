//! Runs a prepared link: the program started directly (never through a shell), in the build's
//! directory, with no input, its output captured up to a bound, and a time limit after which the
//! program and every process it started are killed (a process group on Unix, a job object on
//! Windows).

use std::io::Read;
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
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

/// What a stream gave so far: the bytes kept, and how many more were not.
type Captured = Arc<Mutex<(Vec<u8>, u64)>>;

/// A thread reading one of the program's streams.
struct Reader {
    captured: Captured,
    thread: std::thread::JoinHandle<()>,
}

impl Reader {
    fn start(stream: impl Read + Send + 'static) -> Reader {
        let captured = Captured::default();
        let into = Arc::clone(&captured);
        let thread = std::thread::spawn(move || drain(stream, &into));
        Reader { captured, thread }
    }

    /// What it read; a reader still blocked (a pipe some process keeps open past the time limit)
    /// is left behind, and what it read so far is taken.
    fn finish(self) -> (Vec<u8>, u64) {
        if self.thread.is_finished() {
            let _ = self.thread.join();
        }
        let mut captured = self.captured.lock().unwrap_or_else(|e| e.into_inner());
        std::mem::take(&mut *captured)
    }
}

/// Reads a stream to its end, keeping up to [`OUTPUT_LIMIT`] bytes.
fn drain(mut stream: impl Read, into: &Captured) {
    let mut buffer = [0u8; 64 * 1024];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) => break,
            Ok(n) => {
                let mut captured = into.lock().unwrap_or_else(|e| e.into_inner());
                let (kept, discarded) = &mut *captured;
                let room = OUTPUT_LIMIT.saturating_sub(kept.len()).min(n);
                kept.extend_from_slice(&buffer[..room]);
                *discarded += (n - room) as u64;
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(_) => break,
        }
    }
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
    let readers: Vec<Reader> = [
        child.stdout.take().map(Reader::start),
        child.stderr.take().map(Reader::start),
    ]
    .into_iter()
    .flatten()
    .collect();
    let deadline = started + timeout;
    let (status, mut timed_out) = wait(&mut child, &tree, deadline)?;
    // What the program left running is ended with it, whatever group or session it moved to;
    // a process that still holds the pipes open is waited for only up to the time limit.
    tree.kill(&mut child);
    while readers.iter().any(|r| !r.thread.is_finished()) {
        if Instant::now() >= deadline || super::reap::received().is_some() {
            timed_out = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut output = Vec::new();
    let mut discarded = 0;
    for reader in readers {
        let (kept, more) = reader.finish();
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
        if let Some(signal) = super::reap::received() {
            tree.kill(child);
            return Err(std::io::Error::new(
                std::io::ErrorKind::Interrupted,
                format!("lnkfix received signal {signal}: the link was stopped"),
            ));
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
        super::super::reap::become_subreaper();
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
            super::super::reap::end_descendants();
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
