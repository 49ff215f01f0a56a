//! Running a Python interpreter to ask it something, and the one question library discovery asks:
//! where it lives (`sys.base_prefix`, `sys.prefix`, its site-packages), its version, pointer
//! size and whether it is a debug build.
//!
//! The interpreter is started directly (no shell), isolated (`-I`: no `PYTHON*` variables, no
//! user start-up files), with no input, its output bounded and a time limit after which it and
//! what it started are ended. Nothing here prints or panics: every way it can go wrong is a
//! [`ProbeError`] that names the interpreter.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

mod remembered;

pub use remembered::probe_remembered;

/// How long library discovery waits for the interpreter's answer; then it is ended and the run
/// goes on without it (a warning says so).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(5);

/// The most bytes of the interpreter's output kept, per stream, for the probe (its answer is a
/// few hundred bytes; more is read and thrown away so the interpreter never blocks writing).
pub const PROBE_OUTPUT_LIMIT: usize = 64 * 1024;

/// What the probe prints before its JSON answer, so that whatever else a `sitecustomize` prints
/// is told apart.
const MARKER: &str = "LNKFIX-PYTHON ";

/// The probe: one JSON object on one line, after [`MARKER`].
const QUERY: &str = "import json, site, struct, sys, sysconfig\n\
p = sysconfig.get_paths()\n\
s = [p.get('purelib'), p.get('platlib')]\n\
s += site.getsitepackages() if hasattr(site, 'getsitepackages') else []\n\
u = site.getusersitepackages() if hasattr(site, 'getusersitepackages') else None\n\
print('LNKFIX-PYTHON ' + json.dumps({'executable': sys.executable, \
'version': '%d.%d.%d' % tuple(sys.version_info[:3]), 'base_prefix': sys.base_prefix, \
'prefix': sys.prefix, 'pointer_bytes': struct.calcsize('P'), \
'debug': hasattr(sys, 'gettotalrefcount'), 'site_packages': [x for x in s if x], \
'user_site': u}))\n";

/// What an interpreter said about itself.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Interpreter {
    /// `sys.executable`.
    #[serde(serialize_with = "crate::output::terminal::serialize_path")]
    pub executable: PathBuf,
    /// `major.minor.micro`.
    pub version: String,
    /// `sys.base_prefix`: the installation (its `libs` holds `python3XX.lib` on Windows).
    #[serde(serialize_with = "crate::output::terminal::serialize_path")]
    pub base_prefix: PathBuf,
    /// `sys.prefix`: the virtual environment, or the installation.
    #[serde(serialize_with = "crate::output::terminal::serialize_path")]
    pub prefix: PathBuf,
    /// 32 or 64 (`struct.calcsize('P')` × 8).
    pub pointer_bits: u32,
    /// A debug build (`python3XX_d.dll`; `sys.gettotalrefcount` exists).
    pub debug: bool,
    /// Its site-packages: `purelib`, `platlib`, `site.getsitepackages()` and the user's, in that
    /// order, without repeats (not all of them need exist).
    #[serde(serialize_with = "crate::output::terminal::serialize_paths")]
    pub site_packages: Vec<PathBuf>,
}

impl Interpreter {
    /// `Python 3.12.4, 64-bit, release` (or `debug`).
    pub fn describe(&self) -> String {
        format!(
            "Python {}, {}-bit, {}",
            self.version,
            self.pointer_bits,
            if self.debug { "debug" } else { "release" }
        )
    }
}

/// Why an interpreter could not be asked.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// It could not be started (not there, not executable).
    #[error("cannot run {}: {}", exe.display(), reason)]
    CannotRun {
        /// The interpreter.
        exe: PathBuf,
        /// The system's reason, in lower case.
        reason: String,
    },
    /// It did not answer within the time limit, and was ended.
    #[error("{} did not answer within {} s: it was stopped", exe.display(), seconds)]
    TooSlow {
        /// The interpreter.
        exe: PathBuf,
        /// The time limit.
        seconds: u64,
    },
    /// It ran and failed.
    #[error("{} failed ({status}): {detail}", exe.display())]
    Failed {
        /// The interpreter.
        exe: PathBuf,
        /// Its exit status.
        status: String,
        /// The last line of its error output.
        detail: String,
    },
    /// It answered something else than the expected JSON.
    #[error("{}: its answer is not what a Python interpreter prints ({reason})", exe.display())]
    BadAnswer {
        /// The interpreter.
        exe: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
}

/// What a run gave.
#[derive(Debug, Clone)]
pub struct RunOutput {
    /// Whether it exited with status 0.
    pub success: bool,
    /// Its exit status, for people.
    pub status: String,
    /// Its standard output (at most the limit given, lossily decoded).
    pub stdout: String,
    /// Its standard error (the same).
    pub stderr: String,
    /// Whether either stream wrote more than the limit.
    pub cut: bool,
}

/// Runs `exe ARGS` with no input, its output kept up to `limit` bytes per stream, for at most
/// `timeout` (an error of kind `TimedOut` then). The time limit covers its pipes too: a process
/// it started that keeps its output open (in its process group, ended once the interpreter has
/// exited) cannot make lnkfix wait past the limit.
pub fn run(
    exe: &Path,
    args: &[&str],
    timeout: Duration,
    limit: usize,
) -> std::io::Result<RunOutput> {
    let mut command = Command::new(exe);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // Its own process group: whatever it starts can be ended with it.
    #[cfg(unix)]
    std::os::unix::process::CommandExt::process_group(&mut command, 0);
    let mut child = command.spawn()?;
    let deadline = Instant::now() + timeout;
    let too_slow = || {
        std::io::Error::new(
            std::io::ErrorKind::TimedOut,
            format!("it did not answer within {} s", timeout.as_secs()),
        )
    };
    // The pipes are read by these threads meanwhile, and handed over through channels: a pipe
    // that stays open is given up at the deadline, its thread left blocked.
    let out = read_in_thread(child.stdout.take(), limit);
    let err = read_in_thread(child.stderr.take(), limit);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() >= deadline {
            end_group(&child);
            let _ = child.kill();
            let _ = child.wait();
            return Err(too_slow());
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    // What it left running (a child holding its output) is ended with the group.
    end_group(&child);
    let wait = || deadline.saturating_duration_since(Instant::now());
    let (stdout, out_cut) = out.recv_timeout(wait()).map_err(|_| too_slow())?;
    let (stderr, err_cut) = err.recv_timeout(wait()).map_err(|_| too_slow())?;
    Ok(RunOutput {
        success: status.success(),
        status: status.to_string(),
        stdout,
        stderr,
        cut: out_cut || err_cut,
    })
}

/// Reads `pipe` to its end in a thread of its own, keeping `limit` bytes and throwing the rest
/// away; the text, and whether some was thrown away, come through the channel.
fn read_in_thread<R: Read + Send + 'static>(
    mut pipe: Option<R>,
    limit: usize,
) -> std::sync::mpsc::Receiver<(String, bool)> {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut kept = Vec::new();
        let mut cut = false;
        if let Some(pipe) = pipe.as_mut() {
            let mut buffer = [0u8; 16 * 1024];
            loop {
                match pipe.read(&mut buffer) {
                    Ok(0) => break,
                    Ok(n) => {
                        let room = limit.saturating_sub(kept.len()).min(n);
                        kept.extend_from_slice(&buffer[..room]);
                        cut |= room < n;
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                    Err(_) => break,
                }
            }
        }
        let _ = sender.send((String::from_utf8_lossy(&kept).into_owned(), cut));
    });
    receiver
}

/// Ends every process of the interpreter's process group (Unix; elsewhere nothing).
fn end_group(child: &std::process::Child) {
    #[cfg(unix)]
    if let Ok(group) = libc::pid_t::try_from(child.id()) {
        // SAFETY: kill(2) takes plain integers; the group is the one the interpreter was started
        // in (a group's id is not given to a new process while the group has members).
        unsafe {
            libc::kill(-group, libc::SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = child;
}

/// Asks `exe` once where it lives, its version, pointer size and build (within
/// [`PROBE_TIMEOUT`], reading at most [`PROBE_OUTPUT_LIMIT`] bytes of each stream).
pub fn probe(exe: &Path) -> Result<Interpreter, ProbeError> {
    let output =
        run(exe, &["-I", "-c", QUERY], PROBE_TIMEOUT, PROBE_OUTPUT_LIMIT).map_err(|error| {
            match error.kind() {
                std::io::ErrorKind::TimedOut => ProbeError::TooSlow {
                    exe: exe.to_path_buf(),
                    seconds: PROBE_TIMEOUT.as_secs(),
                },
                _ => ProbeError::CannotRun {
                    exe: exe.to_path_buf(),
                    reason: error.to_string().to_lowercase(),
                },
            }
        })?;
    parse_answer(exe, &output)
}

/// Reads the probe's answer from what the interpreter printed.
fn parse_answer(exe: &Path, output: &RunOutput) -> Result<Interpreter, ProbeError> {
    let bad = |reason: String| ProbeError::BadAnswer {
        exe: exe.to_path_buf(),
        reason,
    };
    if !output.success {
        let detail = output
            .stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no error output");
        return Err(ProbeError::Failed {
            exe: exe.to_path_buf(),
            status: output.status.clone(),
            detail: detail.trim().chars().take(200).collect(),
        });
    }
    if output.cut {
        return Err(bad(format!(
            "more than {} KiB of output",
            PROBE_OUTPUT_LIMIT / 1024
        )));
    }
    let Some(line) = output
        .stdout
        .lines()
        .find_map(|l| l.trim_end().strip_prefix(MARKER))
    else {
        return Err(bad("no answer line in its output".into()));
    };
    let value: serde_json::Value =
        serde_json::from_str(line).map_err(|e| bad(format!("not JSON: {e}")))?;
    let text = |key: &str| value[key].as_str().filter(|s| !s.is_empty());
    let path = |key: &str| {
        text(key)
            .map(PathBuf::from)
            .ok_or_else(|| bad(format!("no {key}")))
    };
    let bytes = value["pointer_bytes"]
        .as_u64()
        .filter(|b| [4, 8].contains(b))
        .ok_or_else(|| bad("no pointer size of 4 or 8 bytes".into()))?;
    let mut site_packages: Vec<PathBuf> = Vec::new();
    let listed = value["site_packages"].as_array().into_iter().flatten();
    for dir in listed.chain(std::iter::once(&value["user_site"])) {
        if let Some(dir) = dir.as_str().filter(|s| !s.is_empty()) {
            let dir = PathBuf::from(dir);
            if !site_packages.contains(&dir) {
                site_packages.push(dir);
            }
        }
    }
    Ok(Interpreter {
        executable: path("executable").unwrap_or_else(|_| exe.to_path_buf()),
        version: text("version").unwrap_or("unknown").to_string(),
        base_prefix: path("base_prefix")?,
        prefix: path("prefix")?,
        pointer_bits: (bytes * 8) as u32,
        debug: value["debug"].as_bool().unwrap_or(false),
        site_packages,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(stdout: &str) -> RunOutput {
        RunOutput {
            success: true,
            status: "exit status: 0".into(),
            stdout: stdout.into(),
            stderr: String::new(),
            cut: false,
        }
    }

    #[test]
    fn the_answer_is_read_past_other_output() {
        let line = r#"LNKFIX-PYTHON {"executable": "C:\\Py\\python.exe", "version": "3.12.4", "base_prefix": "C:\\Py", "prefix": "C:\\venv", "pointer_bytes": 4, "debug": true, "site_packages": ["C:\\venv\\Lib\\site-packages", "C:\\venv\\Lib\\site-packages"], "user_site": "C:\\Users\\u\\site"}"#;
        let found = parse_answer(
            Path::new("python"),
            &output(&format!("hello from sitecustomize\n{line}\n")),
        )
        .unwrap();
        assert_eq!(found.pointer_bits, 32);
        assert!(found.debug);
        assert_eq!(found.base_prefix, PathBuf::from("C:\\Py"));
        assert_eq!(found.site_packages.len(), 2, "{:?}", found.site_packages);
        assert_eq!(found.describe(), "Python 3.12.4, 32-bit, debug");
    }

    #[test]
    fn garbage_failure_and_floods_are_errors_naming_the_interpreter() {
        let exe = Path::new("/opt/py/bin/python3");
        let garbage = parse_answer(exe, &output("Traceback? no: 42\n")).unwrap_err();
        assert!(matches!(garbage, ProbeError::BadAnswer { .. }), "{garbage}");
        let bad_json = parse_answer(exe, &output("LNKFIX-PYTHON {nope\n")).unwrap_err();
        assert!(bad_json.to_string().contains("not JSON"), "{bad_json}");
        let mut failed = output("");
        failed.success = false;
        failed.status = "exit status: 1".into();
        failed.stderr = "Traceback\nModuleNotFoundError: No module named 'json'\n".into();
        let failed = parse_answer(exe, &failed).unwrap_err().to_string();
        assert!(
            failed.contains("/opt/py/bin/python3") && failed.contains("No module named 'json'"),
            "{failed}"
        );
        let mut flood = output("x");
        flood.cut = true;
        let flood = parse_answer(exe, &flood).unwrap_err().to_string();
        assert!(flood.contains("more than 64 KiB"), "{flood}");
    }

    #[test]
    fn an_interpreter_that_cannot_start_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let exe = dir.path().join("no-such-python");
        let error = probe(&exe).unwrap_err();
        assert!(matches!(error, ProbeError::CannotRun { .. }), "{error}");
        assert!(error.to_string().contains("no-such-python"), "{error}");
    }
}
