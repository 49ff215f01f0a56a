//! `lnkfix zombies` against real processes: leftovers that started before the attempt and hold
//! a log, a young process of the current attempt holding another file in the same directory,
//! unrelated processes, and lnkfix's own ancestors. Listing, `--kill` and `--delete` are checked
//! against what really happened to the processes and files, and `triage`/`doctor` name the same
//! leftovers.
//!
//! On Linux the processes are python3 (`-c` one-liners that open a file, say so, and sleep), as in
//! a bring-up. Under Wine there is no python: the long-running processes are lnkfix itself
//! (`lnkfix triage -` waits for its standard input to close) with its standard output redirected
//! into the log, as a server's log is. Wine's Restart Manager is a stub that reports no holder for
//! any file, so there the test checks the listing by name, the start times, the kill, and that
//! lnkfix says it cannot tell who holds a file (CONTRIBUTING.md, "Inside the commands", says what
//! was verified where).
//!
//! Every test that ends processes passes `--no-default-names`: the machine is shared, and the
//! shipped suspect names (python, clang, ninja, ...) would match other people's processes.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime};

use common::{SpawnRetrying, StartRetrying};

/// The lnkfix under test: `LNKFIX_EXE` (the release exe under Wine), else cargo's build.
fn lnkfix_exe() -> PathBuf {
    std::env::var_os("LNKFIX_EXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lnkfix")))
}

/// Runs lnkfix; returns the exit code, stdout and stderr.
fn run(args: &[&str]) -> (i32, String, String) {
    let output = Command::new(lnkfix_exe())
        .args(args)
        .env("NO_COLOR", "1")
        .output_retrying()
        .expect("run lnkfix");
    (
        output.status.code().expect("an exit code"),
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// Runs lnkfix with `--format json` and parses its report.
fn run_json(args: &[&str]) -> (i32, serde_json::Value) {
    let mut all = args.to_vec();
    all.extend(["--format", "json"]);
    let (code, stdout, stderr) = run(&all);
    let value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}\nstderr: {stderr}"));
    (code, value)
}

/// A time for `--since`, to the millisecond, as the user would write it.
fn rfc3339(time: SystemTime) -> String {
    lnkfix::commands::zombies::format_time(time)
}

/// Start times have tick resolution (Linux: 10 ms; Windows: 15.6 ms) and a process takes a
/// moment to start: processes on either side of `--since` are started this far from it.
const APART: Duration = Duration::from_millis(1200);

/// Starts a program the test has just copied. On Linux, while another test thread forks, the
/// child briefly holds the copy's write handle and exec fails with ETXTBSY ("text file busy"):
/// that error alone is retried. Under Wine, process creation is retried as everywhere else.
fn spawn_copied(command: &mut Command) -> std::io::Result<Child> {
    const TEXT_FILE_BUSY: i32 = 26;
    let mut tries = 0;
    loop {
        match command.spawn_retrying() {
            Err(e) if cfg!(unix) && e.raw_os_error() == Some(TEXT_FILE_BUSY) && tries < 20 => {
                tries += 1;
                std::thread::sleep(Duration::from_millis(50));
            }
            other => return other,
        }
    }
}

/// Kills and reaps a child when dropped (a failing test leaves no process behind).
struct Reaped(Child);

impl Drop for Reaped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Reaped {
    fn pid(&self) -> u64 {
        u64::from(self.0.id())
    }
    fn running(&mut self) -> bool {
        self.0.try_wait().expect("try_wait").is_none()
    }
    /// Waits up to 5 s for the child to end; whether it did.
    fn ended_within_5s(&mut self) -> bool {
        for _ in 0..250 {
            if !self.running() {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

/// The canonical form of a path whose directory exists (the file itself may be gone).
fn canonical(path: &Path) -> String {
    let dir = dunce::canonicalize(path.parent().unwrap()).unwrap();
    dir.join(path.file_name().unwrap())
        .to_string_lossy()
        .into_owned()
}

fn process(report: &serde_json::Value, pid: u64) -> Option<&serde_json::Value> {
    report["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == pid)
}

fn pids(value: &serde_json::Value) -> Vec<u64> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_u64().unwrap_or_else(|| p["pid"].as_u64().unwrap()))
        .collect()
}

fn strings(value: &serde_json::Value) -> Vec<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap().to_string())
        .collect()
}

/// Every field of the documented schema, with its type.
fn assert_schema(report: &serde_json::Value) {
    assert_eq!(report["schema_version"], 1);
    assert!(report["paths"].is_array());
    assert!(report["since"].is_string() || report["since"].is_null());
    for list in [
        "processes",
        "killed",
        "not_killed",
        "deleted",
        "still_held",
        "not_deleted",
        "suspect_names",
        "warnings",
    ] {
        assert!(report[list].is_array(), "{list}: {report}");
    }
    assert!(report["fix"].is_string() || report["fix"].is_null());
    for p in report["processes"].as_array().unwrap() {
        assert!(p["pid"].is_u64(), "{p}");
        assert!(p["name"].is_string(), "{p}");
        assert!(p["command"].is_string() || p["command"].is_null(), "{p}");
        assert!(p["started"].is_string() || p["started"].is_null(), "{p}");
        assert!(
            p["age_seconds"].is_f64() || p["age_seconds"].is_u64() || p["age_seconds"].is_null(),
            "{p}"
        );
        assert!(p["holds"].is_array(), "{p}");
        assert!(
            p["before_attempt"].is_boolean() || p["before_attempt"].is_null(),
            "{p}"
        );
        assert!(p["leftover"].is_boolean(), "{p}");
        assert!(
            p["protected"].is_null() || p["protected"] == "ancestor",
            "{p}"
        );
    }
    for n in report["not_killed"].as_array().unwrap() {
        assert!(n["pid"].is_u64() && n["reason"].is_string(), "{n}");
    }
}

/// Parses a report's RFC 3339 time.
fn parse(text: &serde_json::Value) -> SystemTime {
    lnkfix::commands::triage::parse_time(text.as_str().expect("a time")).unwrap()
}

fn distance(a: SystemTime, b: SystemTime) -> Duration {
    a.duration_since(b).unwrap_or_else(|e| e.duration())
}

// ---- Linux: python3 processes ----------------------------------------------------------------

/// A python3 process that opens `held` for writing (when given), prints `ready`, and sleeps.
#[cfg(target_os = "linux")]
fn python(held: Option<&Path>) -> Reaped {
    use std::io::BufRead;
    let code = match held {
        Some(path) => format!(
            "import sys, time\nf = open({:?}, 'a')\nf.write('x')\nf.flush()\nprint('ready', flush=True)\ntime.sleep(600)",
            path.to_str().unwrap()
        ),
        None => "import time\nprint('ready', flush=True)\ntime.sleep(600)".to_string(),
    };
    let mut child = Command::new("python3")
        .args(["-c", &code])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 is required (apt-get install python3)");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    assert_eq!(line.trim(), "ready", "python3 did not start");
    Reaped(child)
}

/// A copy of `sleep` under `name` (a program the test names itself), started with `seconds`.
#[cfg(target_os = "linux")]
fn renamed_sleep(dir: &Path, name: &str) -> Reaped {
    let copy = dir.join(name);
    if !copy.exists() {
        std::fs::copy("/bin/sleep", &copy).expect("/bin/sleep");
    }
    Reaped(
        spawn_copied(Command::new(&copy).arg("600").stdin(Stdio::null()))
            .expect("run the renamed sleep"),
    )
}

#[cfg(target_os = "linux")]
#[test]
fn leftovers_are_listed_ended_and_their_logs_deleted() {
    let root = tempfile::tempdir().unwrap();
    let logs = root.path().join("logs");
    let elsewhere = root.path().join("elsewhere");
    std::fs::create_dir_all(&logs).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    let serve_log = logs.join("serve.log");
    let young_log = logs.join("young.log");
    let ancestor_log = logs.join("ancestor.log");

    // Before the attempt: the leftover holding the log, an unrelated python holding a file
    // elsewhere, an unrelated program holding nothing, and this test process itself (lnkfix's
    // parent) holding a file in the directory.
    let mut old = python(Some(&serve_log));
    let mut unrelated_python = python(Some(&elsewhere.join("other.log")));
    let mut unrelated = Reaped(Command::new("sleep").arg("600").spawn().expect("sleep"));
    let ancestor_file = std::fs::File::create(&ancestor_log).unwrap();
    std::thread::sleep(APART);
    let since = rfc3339(SystemTime::now());
    std::thread::sleep(APART);
    // After it: the current run, holding another file in the same directory.
    let mut young = python(Some(&young_log));
    let dir = logs.to_str().unwrap();
    let own = u64::from(std::process::id());

    // Listing, with the shipped suspect names.
    let (code, report) = run_json(&["zombies", dir, "--since", &since]);
    assert_schema(&report);
    assert_eq!(code, 1, "{report:#}");
    assert_eq!(strings(&report["paths"]), [canonical(&logs)]);
    assert_eq!(report["since"], since);
    let leftover = process(&report, old.pid()).expect("the leftover is listed");
    assert_eq!(leftover["before_attempt"], true);
    assert_eq!(leftover["leftover"], true);
    assert_eq!(leftover["matched_name"], "python");
    assert_eq!(strings(&leftover["holds"]), [canonical(&serve_log)]);
    assert!(
        leftover["command"].as_str().unwrap().contains("serve.log"),
        "{leftover}"
    );
    assert!(
        leftover["name"].as_str().unwrap().starts_with("python"),
        "{leftover}"
    );
    assert!(leftover["age_seconds"].as_f64().unwrap() >= 2.0 * APART.as_secs_f64() - 0.1);
    let young_entry = process(&report, young.pid()).expect("the young holder is listed");
    assert_eq!(young_entry["before_attempt"], false);
    assert_eq!(young_entry["leftover"], false);
    assert_eq!(strings(&young_entry["holds"]), [canonical(&young_log)]);
    assert!(parse(&young_entry["started"]) > parse(&report["since"]));
    assert!(parse(&leftover["started"]) < parse(&report["since"]));
    let me = process(&report, own).expect("this test process holds ancestor.log");
    assert_eq!(me["protected"], "ancestor");
    assert_eq!(strings(&me["holds"]), [canonical(&ancestor_log)]);
    // The unrelated python has a shipped suspect name, but neither holds a file here nor names
    // the logs on its command line: it is not listed.
    assert!(
        process(&report, unrelated_python.pid()).is_none(),
        "an old python elsewhere is no suspect"
    );
    assert!(
        process(&report, unrelated.pid()).is_none(),
        "sleep is no suspect"
    );
    assert!(report["killed"].as_array().unwrap().is_empty());
    let fix = report["fix"].as_str().unwrap();
    assert!(
        fix.contains(&format!("--since {since} --kill --delete")),
        "{fix}"
    );
    // The same as text.
    let (code, text, _) = run(&["zombies", dir, "--since", &since]);
    assert_eq!(code, 1);
    assert!(
        text.contains(&format!("pid {:<7} python", old.pid())),
        "{text}"
    );
    assert!(
        text.contains("LEFTOVER") && text.contains("holds") && text.contains("fix: lnkfix zombies"),
        "{text}"
    );

    // --kill --delete, only the holders: the leftover ends, its log is deleted; the young one
    // runs on and keeps its file; the unrelated processes are untouched; the ancestor is not
    // ended and the file it holds stays.
    let (code, report) = run_json(&[
        "zombies",
        dir,
        "--since",
        &since,
        "--kill",
        "--delete",
        "--no-default-names",
    ]);
    assert_schema(&report);
    assert_eq!(pids(&report["killed"]), [old.pid()], "{report:#}");
    assert!(old.ended_within_5s(), "the leftover still runs");
    assert!(young.running() && unrelated_python.running() && unrelated.running());
    assert_eq!(pids(&report["not_killed"]), [own]);
    assert!(report["not_killed"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("ancestor"));
    assert_eq!(strings(&report["deleted"]), [canonical(&serve_log)]);
    assert!(!serve_log.exists(), "the leftover's log is gone");
    assert!(young_log.exists(), "the current run's log stays");
    assert_eq!(strings(&report["still_held"]), [canonical(&ancestor_log)]);
    assert!(ancestor_log.exists());
    assert_eq!(code, 1, "an ancestor still holds a file: {report:#}");

    // Once the ancestor lets go: nothing old remains, exit 0. A file nobody holds is nobody's
    // leftover log, and is left alone.
    drop(ancestor_file);
    let (code, report) = run_json(&[
        "zombies",
        dir,
        "--since",
        &since,
        "--kill",
        "--delete",
        "--no-default-names",
    ]);
    assert_eq!(code, 0, "{report:#}");
    assert!(report["deleted"].as_array().unwrap().is_empty());
    assert!(ancestor_log.exists());
    assert!(report["killed"].as_array().unwrap().is_empty());
    assert!(young.running(), "never a process started after --since");
    let (code, text, _) = run(&["zombies", dir, "--since", &since, "--no-default-names"]);
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("no leftover remains"), "{text}");
}

#[cfg(target_os = "linux")]
#[test]
fn refusals_end_nothing() {
    let root = tempfile::tempdir().unwrap();
    let log = root.path().join("serve.log");
    let mut old = python(Some(&log));
    let dir = root.path().to_str().unwrap();

    // No --since, no --started-after: listed (age unknown), never ended; exit 2 for --kill.
    let (code, _, stderr) = run(&["zombies", dir, "--kill"]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("--kill needs --since TIME or --started-after FILE"),
        "{stderr}"
    );
    let (code, report) = run_json(&["zombies", dir, "--no-default-names"]);
    assert_eq!(code, 1);
    let entry = process(&report, old.pid()).unwrap();
    assert!(entry["before_attempt"].is_null());
    assert!(report["fix"].as_str().unwrap().contains("--since"));
    // Other bad usage.
    let (code, _, stderr) = run(&["zombies", dir, "--delete", "--since", "@0"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--delete needs --kill"), "{stderr}");
    let missing = root.path().join("no-such-dir");
    let (code, _, stderr) = run(&["zombies", missing.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(
        stderr.contains("no-such-dir") && stderr.contains("cannot read"),
        "{stderr}"
    );
    let (code, _, stderr) = run(&["zombies", dir, "--since", "yesterday", "--kill"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--since \"yesterday\""), "{stderr}");
    let (code, _, stderr) = run(&["zombies", dir, "--name", "bin/ft"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("not a path"), "{stderr}");
    let (code, _, _) = run(&["zombies"]);
    assert_eq!(code, 2);
    // A --since before the process started: it belongs to the attempt, and is not ended.
    let before = rfc3339(SystemTime::now() - Duration::from_secs(3600));
    let (code, report) = run_json(&[
        "zombies",
        dir,
        "--since",
        &before,
        "--kill",
        "--no-default-names",
    ]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(
        process(&report, old.pid()).unwrap()["before_attempt"],
        false
    );
    assert!(report["killed"].as_array().unwrap().is_empty());
    assert!(old.running(), "no refusal ended the process");
}

#[cfg(target_os = "linux")]
#[test]
fn a_leftover_that_ignores_sigterm_is_ended_by_sigkill() {
    let root = tempfile::tempdir().unwrap();
    let log = root.path().join("serve.log");
    let code = format!(
        "import signal, time\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\nf = open({:?}, 'a')\nprint('ready', flush=True)\ntime.sleep(600)",
        log.to_str().unwrap()
    );
    let mut stubborn = python_with(&code, &[]);
    std::thread::sleep(APART);
    let since = rfc3339(SystemTime::now());
    let started = std::time::Instant::now();
    let (code, report) = run_json(&[
        "zombies",
        root.path().to_str().unwrap(),
        "--since",
        &since,
        "--kill",
        "--delete",
        "--no-default-names",
    ]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(pids(&report["killed"]), [stubborn.pid()]);
    assert!(stubborn.ended_within_5s());
    assert!(!log.exists());
    // It was given the grace period (3 s) after SIGTERM before SIGKILL.
    assert!(
        started.elapsed() >= Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(
        stubborn.0.wait().unwrap().signal(),
        Some(9),
        "ended by SIGKILL"
    );
}

/// A leftover of another user: lnkfix cannot read its open files nor end it, and says so. The
/// test process (root, as in CI) starts the leftover, and lnkfix runs as `nobody` (setpriv, from
/// util-linux).
#[cfg(target_os = "linux")]
#[test]
fn a_leftover_lnkfix_may_not_end_is_reported_with_the_reason() {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let uid = status
        .lines()
        .find_map(|l| l.strip_prefix("Uid:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .unwrap();
    assert_eq!(
        uid, "0",
        "this test starts a process as root and runs lnkfix as nobody: run the tests as root (CI does)"
    );
    let root = tempfile::tempdir().unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(root.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let name = format!("lnkfix-foreign-{}", std::process::id());
    let mut foreign = renamed_sleep(root.path(), &name);
    std::thread::sleep(APART);
    let since = rfc3339(SystemTime::now());
    let exe = root.path().join("lnkfix");
    std::fs::copy(lnkfix_exe(), &exe).unwrap();
    std::fs::set_permissions(&exe, std::fs::Permissions::from_mode(0o755)).unwrap();
    let run_as_nobody = || {
        Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups"])
            .arg(&exe)
            .args(["zombies", root.path().to_str().unwrap(), "--since", &since])
            .args([
                "--no-default-names",
                "--name",
                &name,
                "--kill",
                "--format",
                "json",
            ])
            .output()
            .expect("setpriv (util-linux) is required")
    };
    // setpriv's exec of the fresh copy can meet ETXTBSY (see spawn_copied): retried.
    let mut output = run_as_nobody();
    for _ in 0..20 {
        if !String::from_utf8_lossy(&output.stderr).contains("Text file busy") {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
        output = run_as_nobody();
    }
    let report: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    assert_eq!(output.status.code(), Some(1), "{report:#}");
    assert!(report["killed"].as_array().unwrap().is_empty());
    let not = &report["not_killed"][0];
    assert_eq!(not["pid"], foreign.pid());
    assert!(
        not["reason"]
            .as_str()
            .unwrap()
            .contains("permission denied"),
        "{not}"
    );
    assert!(foreign.running());
    assert!(
        report["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|w| w.as_str().unwrap().contains("cannot be read without root")),
        "{report:#}"
    );
}

#[cfg(target_os = "linux")]
#[test]
fn an_ancestor_holding_the_log_is_never_ended() {
    // A python process holds the log and runs lnkfix: it is lnkfix's parent.
    let root = tempfile::tempdir().unwrap();
    let log = root.path().join("serve.log");
    let dir = root.path().to_str().unwrap();
    let code = format!(
        "import datetime, subprocess, time\nf = open({log:?}, 'a')\ntime.sleep({apart})\nsince = datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%dT%H:%M:%S.%fZ')\ntime.sleep({apart})\nr = subprocess.run([{exe:?}, 'zombies', {dir:?}, '--since', since, '--kill', '--delete', '--no-default-names', '--format', 'json'], capture_output=True, text=True)\nprint(r.returncode)\nprint(r.stdout)",
        log = log.to_str().unwrap(),
        apart = APART.as_secs_f64(),
        exe = lnkfix_exe().to_str().unwrap(),
        dir = dir,
    );
    let output = Command::new("python3")
        .args(["-c", &code])
        .output()
        .expect("python3");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the parent was ended or failed: {stdout}"
    );
    let (exit, json) = stdout.split_once('\n').unwrap();
    let report: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(exit.trim(), "1", "{report:#}");
    let parent = report["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["holds"].as_array().is_some_and(|h| !h.is_empty()))
        .expect("the parent holding the log is listed");
    assert_eq!(parent["protected"], "ancestor");
    assert_eq!(parent["before_attempt"], true);
    assert!(report["killed"].as_array().unwrap().is_empty());
    assert_eq!(
        pids(&report["not_killed"]),
        [parent["pid"].as_u64().unwrap()]
    );
    assert_eq!(strings(&report["still_held"]), [canonical(&log)]);
    assert!(log.exists());
}

#[cfg(target_os = "linux")]
#[test]
fn suspects_by_name_without_a_held_file() {
    let root = tempfile::tempdir().unwrap();
    let logs = root.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let name = format!("lnkfix-suspect-{}", std::process::id());
    let mut old = renamed_sleep(root.path(), &name);
    std::thread::sleep(APART);
    // --started-after: the attempt's marker file, touched now.
    let marker = root.path().join("attempt.started");
    std::fs::write(&marker, b"").unwrap();
    std::thread::sleep(APART);
    let mut young = renamed_sleep(root.path(), &name);
    let dir = logs.to_str().unwrap();
    let marker = marker.to_str().unwrap();

    let (code, report) = run_json(&[
        "zombies",
        dir,
        "--started-after",
        marker,
        "--no-default-names",
        "--name",
        &name,
    ]);
    assert_schema(&report);
    assert_eq!(code, 1);
    assert_eq!(
        strings(&report["suspect_names"]),
        std::slice::from_ref(&name)
    );
    let entry = process(&report, old.pid()).expect("the old suspect is listed");
    assert_eq!(entry["matched_name"], name.as_str());
    assert!(entry["holds"].as_array().unwrap().is_empty());
    assert!(
        process(&report, young.pid()).is_none(),
        "a young suspect holding nothing is not listed"
    );
    // The suggested command ends the same processes: it keeps the names.
    let fix = report["fix"].as_str().unwrap();
    assert!(
        fix.ends_with(&format!("--kill --delete --no-default-names --name {name}")),
        "{fix}"
    );

    let (code, report) = run_json(&[
        "zombies",
        dir,
        "--started-after",
        marker,
        "--no-default-names",
        "--name",
        &name,
        "--kill",
    ]);
    assert_eq!(code, 0, "{report:#}");
    assert_eq!(pids(&report["killed"]), [old.pid()]);
    assert!(old.ended_within_5s());
    assert!(young.running());
}

#[cfg(target_os = "linux")]
#[test]
fn triage_and_doctor_name_the_leftovers() {
    let root = tempfile::tempdir().unwrap();
    let log = root.path().join("serve.log");
    let old = python(Some(&log));
    // The log was last written an hour ago: stale for an attempt that started now.
    std::fs::File::options()
        .write(true)
        .open(&log)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    std::thread::sleep(APART);
    let since = rfc3339(SystemTime::now());
    let log_arg = log.to_str().unwrap();
    let dir = root.path().to_str().unwrap();

    let (code, report) = run_json(&["triage", log_arg, "--since", &since]);
    assert_eq!(code, 1);
    assert_eq!(report["rule"], "log-stale");
    let zombies = &report["zombies"];
    let command = zombies["command"].as_str().unwrap();
    assert!(
        command.starts_with(&format!("lnkfix zombies {dir} --since ")),
        "{command}"
    );
    assert!(command.ends_with("--kill --delete"), "{command}");
    assert!(
        report["fix"].as_str().unwrap().contains(command),
        "{report:#}"
    );
    let listed = zombies["processes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["pid"] == old.pid())
        .expect("triage lists the leftover");
    assert_eq!(strings(&listed["holds"]), [canonical(&log)]);
    let (_, text, _) = run(&["triage", log_arg, "--since", &since]);
    assert!(
        text.contains("leftovers that started before the attempt"),
        "{text}"
    );
    assert!(
        text.contains(&format!("pid {:<7} python", old.pid())),
        "{text}"
    );

    // A missing log: the same command for its directory.
    let missing = root.path().join("never-written.log");
    let (code, report) = run_json(&["triage", missing.to_str().unwrap(), "--since", &since]);
    assert_eq!(code, 1);
    assert_eq!(report["rule"], "log-missing");
    assert!(report["zombies"]["command"]
        .as_str()
        .unwrap()
        .starts_with(&format!("lnkfix zombies {dir} --since ")));
    assert!(report["zombies"]["processes"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["pid"] == old.pid()));

    // doctor --log: before a relaunch, whatever holds the directory is a leftover.
    let (code, report) = run_json(&["doctor", "--log", log_arg]);
    assert_eq!(code, 1);
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "log-leftovers")
        .unwrap();
    assert_eq!(check["ok"], false);
    assert!(
        check["detail"]
            .as_str()
            .unwrap()
            .contains(&old.pid().to_string()),
        "{check}"
    );
    assert!(
        check["fix"].as_str().unwrap().contains("lnkfix zombies"),
        "{check}"
    );
    assert!(report["zombies"]["processes"].is_array());
    let (_, report) = run_json(&["doctor", "--log", "/no/such/dir/serve.log"]);
    let check = report["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == "log-leftovers")
        .unwrap();
    assert_eq!(check["checked"], false);
}

// ---- every system: lnkfix itself as the long-running process ------------------------------------

/// `lnkfix triage -` (it waits for its standard input to close) run from `exe`, its standard
/// output redirected into `log` when given.
fn waiting_lnkfix(exe: &Path, log: Option<&Path>) -> Reaped {
    let stdout = match log {
        Some(path) => Stdio::from(std::fs::File::create(path).unwrap()),
        None => Stdio::null(),
    };
    let mut command = Command::new(exe);
    command
        .args(["triage", "-"])
        .stdin(Stdio::piped())
        .stdout(stdout)
        .stderr(Stdio::null());
    let child = spawn_copied(&mut command).expect("start lnkfix triage -");
    // The command holds the parent's copy of the log handle until it is dropped.
    drop(command);
    Reaped(child)
}

#[test]
fn processes_and_their_start_times_on_this_system() {
    let root = tempfile::tempdir().unwrap();
    let logs = root.path().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let serve_log = logs.join("serve.log");
    let young_log = logs.join("young.log");
    // Copies of lnkfix under names of the test's own: `--name lnkfix --kill` would end whatever
    // lnkfix someone else runs on this machine.
    let suffix = if cfg!(windows) { ".exe" } else { "" };
    let name = format!("lnkfix-waiting-{}", std::process::id());
    let exe = root.path().join(format!("{name}{suffix}"));
    std::fs::copy(lnkfix_exe(), &exe).unwrap();
    let unrelated_exe = root.path().join(format!("unrelated{suffix}"));
    std::fs::copy(&exe, &unrelated_exe).unwrap();

    let spawned = SystemTime::now();
    let mut old = waiting_lnkfix(&exe, Some(&serve_log));
    let mut unrelated = waiting_lnkfix(&unrelated_exe, None);
    std::thread::sleep(APART * 2);
    let since = rfc3339(SystemTime::now());
    std::thread::sleep(APART * 2);
    let mut young = waiting_lnkfix(&exe, Some(&young_log));
    std::thread::sleep(APART);
    let dir = logs.to_str().unwrap();
    let own = u64::from(std::process::id());

    let (code, report) = run_json(&[
        "zombies",
        dir,
        "--since",
        &since,
        "--no-default-names",
        "--name",
        &name,
    ]);
    assert_schema(&report);
    assert_eq!(code, 1, "{report:#}");
    let entry = process(&report, old.pid()).expect("the old lnkfix is listed by name");
    assert_eq!(entry["before_attempt"], true);
    assert_eq!(entry["matched_name"], name.as_str());
    assert_eq!(entry["parent_pid"], own, "{entry}");
    let started = parse(&entry["started"]);
    assert!(
        distance(started, spawned) < Duration::from_secs(5),
        "started {} but spawned at {}",
        rfc3339(started),
        rfc3339(spawned)
    );
    assert!(started < parse(&report["since"]));
    let command = entry["command"].as_str().unwrap();
    assert!(command.contains("triage"), "{command}");
    assert!(process(&report, unrelated.pid()).is_none(), "{report:#}");
    let wine = report["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains("this is Wine"));
    if cfg!(windows) && wine {
        // Wine's Restart Manager reports no holder: lnkfix says so, and lists by name only.
        assert!(entry["holds"].as_array().unwrap().is_empty(), "{entry}");
        assert!(process(&report, young.pid()).is_none(), "{report:#}");
    } else {
        assert!(!wine);
        assert_eq!(strings(&entry["holds"]), [canonical(&serve_log)]);
        let young_entry = process(&report, young.pid()).expect("the young holder is listed");
        assert_eq!(young_entry["before_attempt"], false);
        assert_eq!(strings(&young_entry["holds"]), [canonical(&young_log)]);
        let young_started = parse(&young_entry["started"]);
        assert!(young_started > parse(&report["since"]));
        assert!(distance(young_started, started) >= APART * 3);
    }

    let (code, report) = run_json(&[
        "zombies",
        dir,
        "--since",
        &since,
        "--no-default-names",
        "--name",
        &name,
        "--kill",
        "--delete",
    ]);
    assert_eq!(pids(&report["killed"]), [old.pid()], "{report:#}");
    assert!(old.ended_within_5s(), "the old lnkfix still runs");
    assert!(young.running() && unrelated.running());
    if cfg!(windows) && wine {
        // Nobody is known to hold serve.log, so nothing is deleted: lnkfix deletes only the
        // files it saw a leftover hold.
        assert!(report["deleted"].as_array().unwrap().is_empty());
        assert!(serve_log.exists());
    } else {
        assert_eq!(strings(&report["deleted"]), [canonical(&serve_log)]);
        assert!(!serve_log.exists());
    }
    assert!(young_log.exists());
    assert_eq!(code, 0, "{report:#}");
}

#[test]
fn triage_names_the_command_and_lists_only_when_asked() {
    let root = tempfile::tempdir().unwrap();
    let log = root.path().join("serve.log");
    std::fs::write(&log, b"old run\n").unwrap();
    let since = SystemTime::now() + Duration::from_secs(60);
    let options = lnkfix::commands::triage::TriageOptions {
        since: Some(since),
        ..Default::default()
    };
    let report = lnkfix::commands::triage::triage_path(&log, &options).unwrap();
    assert_eq!(report.rule.as_deref(), Some("log-stale"));
    let check = report.zombies.as_ref().expect("the launch check");
    let want = lnkfix::commands::zombies::fix_command(
        &[root.path().to_string_lossy().into_owned()],
        since,
    );
    assert_eq!(check.command, want);
    assert!(report.fix.contains(&want), "{}", report.fix);
    assert!(
        !report.fix.contains('{'),
        "unfilled placeholder: {}",
        report.fix
    );
    assert!(check.processes.is_none(), "not listed unless asked");
    // Asked: listed (this process holds nothing there, so at most other people's suspects).
    let listed = lnkfix::commands::triage::triage_path(
        &log,
        &lnkfix::commands::triage::TriageOptions {
            list_processes: true,
            ..options
        },
    )
    .unwrap();
    let check = listed.zombies.unwrap();
    assert!(check.error.is_none(), "{:?}", check.error);
    let processes = check.processes.expect("listed");
    assert!(processes.iter().all(|p| p.leftover && p.holds.is_empty()));
    // A bare file name: its directory is `.`.
    assert_eq!(
        lnkfix::commands::zombies::log_directory(Path::new("serve.log")),
        PathBuf::from(".")
    );
}

/// A python3 process that runs `code` with `arguments` (bytes, as the system passes them), and
/// is ready once it printed `ready`.
#[cfg(target_os = "linux")]
fn python_with(code: &str, arguments: &[&std::ffi::OsStr]) -> Reaped {
    let mut child = Command::new("python3")
        .arg("-c")
        .arg(code)
        .args(arguments)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3");
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line.trim(), "ready", "python3 did not start");
    Reaped(child)
}

/// A leftover that, on SIGTERM, moves the directory of the log it holds away and puts a symbolic
/// link to another directory in its place, where a file of the same name lies. Deleting by path
/// would delete that file; lnkfix deletes nothing and says why.
#[cfg(target_os = "linux")]
#[test]
fn delete_never_follows_a_directory_swapped_for_a_link() {
    let root = tempfile::tempdir().unwrap();
    let logs = root.path().join("logs");
    let sub = logs.join("sub");
    std::fs::create_dir_all(&sub).unwrap();
    let outside = root.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let victim = outside.join("held.log");
    std::fs::write(&victim, "not lnkfix's to delete\n").unwrap();
    let held = sub.join("held.log");
    let code = "import os, signal, sys, time\n\
        held, outside = sys.argv[1], sys.argv[2]\n\
        sub = os.path.dirname(held)\n\
        f = open(held, 'a')\n\
        def swap(*_):\n    os.rename(sub, sub + '.moved')\n    os.symlink(outside, sub)\n    os._exit(0)\n\
        signal.signal(signal.SIGTERM, swap)\n\
        print('ready', flush=True)\n\
        time.sleep(600)\n";
    let mut leftover = python_with(code, &[held.as_os_str(), outside.as_os_str()]);
    std::thread::sleep(APART);
    let since = rfc3339(SystemTime::now());
    let (code, report) = run_json(&[
        "zombies",
        logs.to_str().unwrap(),
        "--since",
        &since,
        "--kill",
        "--delete",
        "--no-default-names",
    ]);
    assert_eq!(pids(&report["killed"]), [leftover.pid()], "{report:#}");
    assert!(leftover.ended_within_5s());
    assert!(
        sub.symlink_metadata().unwrap().is_symlink(),
        "the leftover swapped the directory"
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        "not lnkfix's to delete\n"
    );
    assert!(
        report["deleted"].as_array().unwrap().is_empty(),
        "{report:#}"
    );
    let not_deleted = &report["not_deleted"][0];
    assert_eq!(not_deleted["path"], held.to_str().unwrap(), "{report:#}");
    assert!(
        not_deleted["reason"]
            .as_str()
            .unwrap()
            .contains("symbolic link"),
        "{report:#}"
    );
    assert_eq!(code, 1);
}

/// A held log whose name is not UTF-8 is the file deleted, and shown with its bytes escaped;
/// the file named with U+FFFD in their place (what a lossy conversion gives) is left alone.
#[cfg(target_os = "linux")]
#[test]
fn delete_removes_the_held_file_whose_name_is_not_utf8_and_no_other() {
    use std::os::unix::ffi::OsStrExt;
    let root = tempfile::tempdir().unwrap();
    let logs = dunce::canonicalize(root.path()).unwrap().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let held = logs.join(std::ffi::OsStr::from_bytes(b"held-\xff.log"));
    let decoy = logs.join("held-\u{fffd}.log");
    std::fs::write(&decoy, "unheld\n").unwrap();
    let code = "import sys, time\nf = open(sys.argv[1], 'a')\nprint('ready', flush=True)\ntime.sleep(600)\n";
    let mut leftover = python_with(code, &[held.as_os_str()]);
    assert!(held.exists());
    std::thread::sleep(APART);
    let since = rfc3339(SystemTime::now());
    let shown = format!("{}/held-\\xff.log", logs.to_str().unwrap());
    let (code, report) = run_json(&[
        "zombies",
        logs.to_str().unwrap(),
        "--since",
        &since,
        "--no-default-names",
    ]);
    assert_eq!(code, 1);
    let entry = process(&report, leftover.pid()).expect("the holder is listed");
    assert_eq!(strings(&entry["holds"]), std::slice::from_ref(&shown));
    let (code, stdout, _) = run(&[
        "zombies",
        logs.to_str().unwrap(),
        "--since",
        &since,
        "--kill",
        "--delete",
        "--no-default-names",
    ]);
    assert_eq!(code, 0, "{stdout}");
    assert!(leftover.ended_within_5s());
    assert!(
        stdout.contains(&format!("deleted: {shown} (checked: gone)")),
        "{stdout}"
    );
    assert!(!stdout.contains('\u{fffd}'), "{stdout}");
    assert!(!held.exists(), "the held file is deleted");
    assert_eq!(std::fs::read_to_string(&decoy).unwrap(), "unheld\n");
}

/// With the shipped names, a python elsewhere on the machine that started before the attempt
/// is not listed: only one whose command line names the paths is a suspect by name. (Listing
/// only: nothing is ended.)
#[cfg(target_os = "linux")]
#[test]
fn a_python_elsewhere_is_no_suspect_by_name_alone() {
    let root = tempfile::tempdir().unwrap();
    let logs = dunce::canonicalize(root.path()).unwrap().join("logs");
    std::fs::create_dir_all(&logs).unwrap();
    let code = "import time\nprint('ready', flush=True)\ntime.sleep(600)\n";
    let elsewhere = python_with(code, &[std::ffi::OsStr::new("/srv/elsewhere.log")]);
    let script = logs.join("serve.log");
    let naming = python_with(code, &[script.as_os_str()]);
    std::thread::sleep(APART);
    let since = rfc3339(SystemTime::now());
    let (code, report) = run_json(&["zombies", logs.to_str().unwrap(), "--since", &since]);
    assert!(
        process(&report, elsewhere.pid()).is_none(),
        "a python whose command line does not name the paths is listed: {report:#}"
    );
    let entry = process(&report, naming.pid()).expect("the python naming the logs is listed");
    assert_eq!(entry["matched_name"], "python");
    assert_eq!(entry["leftover"], true);
    assert_eq!(code, 1);
    // Named by the user, a program is a suspect whatever its command line.
    let (_, report) = run_json(&[
        "zombies",
        logs.to_str().unwrap(),
        "--since",
        &since,
        "--no-default-names",
        "--name",
        "python3",
    ]);
    assert!(process(&report, elsewhere.pid()).is_some(), "{report:#}");
}
