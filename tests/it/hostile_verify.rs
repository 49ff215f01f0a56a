//! `diagnose --verify` against a crafted log: only a real linker runs, with nothing that makes it
//! run another program or skip the link, and "VERIFIED" only for the link that failed. Each attack
//! uses a shell script named like a linker (or like what a driver starts) that leaves a marker file
//! when it runs: the marker must not exist afterwards. Linux only (shell scripts, FIFOs).
#![cfg(unix)]

use std::path::{Path, PathBuf};
use std::process::Output;

use crate::hostile_inputs::{all_text, finishes, lnkfix_std};

const LINK_ERROR: &str =
    "lld-link: error: undefined symbol: hipMalloc\n>>> referenced by a.obj:(f)\n\n";

/// A ninja log whose failed link is `command`, writing `x.dll`.
fn ninja_log(command: &str) -> String {
    format!(
        "[1/1] Linking CXX shared library x.dll\nFAILED: x.dll\n{command}\n{LINK_ERROR}ninja: build stopped: subcommand failed.\n"
    )
}

/// A script at `path` that leaves `PATH.ran` when it runs, says it linked, and exits 0.
fn attack_script(path: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "#!/bin/sh\ntouch \"$0.ran\"\necho linked\nexit 0\n").unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    PathBuf::from(format!("{}.ran", path.display()))
}

/// `lnkfix diagnose --format json build.log --verify EXTRA...` in `dir`, with `PATH` set to `path`
/// when given.
fn verify(
    dir: &Path,
    log: &str,
    extra: &[&str],
    path: Option<&str>,
) -> (Output, serde_json::Value) {
    std::fs::write(dir.join("build.log"), log).unwrap();
    let mut command = lnkfix_std();
    command
        .current_dir(dir)
        .args(["diagnose", "--format", "json", "build.log", "--verify"])
        .args(extra);
    if let Some(path) = path {
        command.env("PATH", path);
    }
    let output = finishes(command);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}\n{}", all_text(&output)));
    (output, json)
}

fn text(path: &Path) -> String {
    path.to_str().unwrap().to_string()
}

/// A script named `lld-link` beside the log (named relative or absolute), or `lld-link-19` in a
/// relative `PATH` entry resolved in the build directory: none runs, and the report says how to
/// allow one. With `--allow-linker` the same script runs (so the marker shows a run).
#[test]
fn a_linker_planted_beside_the_log_never_runs() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    let marker = attack_script(&dir.join("lld-link"));
    let absolute = text(&dir.join("lld-link"));
    for program in ["./lld-link", absolute.as_str()] {
        let log = ninja_log(&format!("{program} /dll /out:x.dll a.obj"));
        let (output, json) = verify(dir, &log, &[], None);
        assert!(!marker.exists(), "{program} ran: {}", all_text(&output));
        assert_eq!(output.status.code(), Some(4), "{}", all_text(&output));
        let error = json["verify"]["error"].as_str().unwrap();
        assert!(error.contains("--allow-linker"), "{error}");
    }
    // Through a relative PATH entry: the real lld-link-19 of /usr/bin runs instead, or nothing.
    let marker_19 = attack_script(&dir.join("bin/lld-link-19"));
    let log = ninja_log("lld-link-19 /dll /out:x.dll a.obj");
    let (output, _) = verify(dir, &log, &[], Some("bin:/usr/bin:/bin"));
    assert!(
        !marker_19.exists(),
        "bin/lld-link-19 ran: {}",
        all_text(&output)
    );
    // The user may allow it.
    let log = ninja_log("./lld-link /dll /out:x.dll a.obj");
    let (output, _) = verify(dir, &log, &["--allow-linker", "lld-link"], None);
    assert!(
        marker.exists(),
        "the allowed linker did not run: {}",
        all_text(&output)
    );
}

/// The log's own options would make the genuine clang start a program of the log's choosing as its
/// linker (`-fuse-ld=PATH`, `--ld-path=`, `-B DIR`), or make lld-link write a reproducer: the
/// command is refused with a message naming the option, and nothing runs.
#[test]
fn options_that_start_another_program_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    // The input exists, so that the driver goes as far as starting its linker.
    std::fs::write(dir.join("a.obj"), "").unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    let evil = elsewhere.path().join("evil");
    let marker = attack_script(&evil);
    let marker_b = attack_script(&elsewhere.path().join("lld-link"));
    let evil = text(&evil);
    let b_dir = text(elsewhere.path());
    let cases = [
        format!("clang-19 -fuse-ld={evil} -shared -o x.dll a.obj"),
        format!("clang-19 --ld-path={evil} -shared -o x.dll a.obj"),
        format!("clang-19 --target=x86_64-pc-windows-msvc -fuse-ld=lld-link -B {b_dir} -shared -o x.dll a.obj"),
        format!("clang-19 -Wl,/linkrepro:{b_dir} -shared -o x.dll a.obj"),
        format!("lld-link-19 /dll /out:x.dll /reproduce:{b_dir}/r.tar a.obj"),
    ];
    let options = [
        "-fuse-ld=",
        "--ld-path=",
        "-B",
        "/linkrepro:",
        "/reproduce:",
    ];
    for (command, option) in cases.iter().zip(options) {
        let (output, json) = verify(dir, &ninja_log(command), &[], None);
        assert!(
            !marker.exists() && !marker_b.exists(),
            "{command}: {}",
            all_text(&output)
        );
        assert_eq!(output.status.code(), Some(4), "{}", all_text(&output));
        let error = json["verify"]["error"].as_str().unwrap();
        assert!(
            error.contains(&format!("its option `{option}")),
            "{command}: {error}"
        );
        assert!(!elsewhere.path().join("r.tar").exists());
    }
}

/// A script at `path` that writes the image its `/out:` names, leaves `PATH.ran`, and exits 0: a
/// linker that links.
fn linking_script(path: &Path) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(
        path,
        "#!/bin/sh\ntouch \"$0.ran\"\nfor a in \"$@\"; do case \"$a\" in /out:*) echo image > \"${a#/out:}\";; esac; done\nexit 0\n",
    )
    .unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
    PathBuf::from(format!("{}.ran", path.display()))
}

/// Options after which the genuine linker or driver exits 0 without linking (or links with the
/// symbols left unresolved) are refused: no VERIFIED.
#[test]
fn options_that_make_a_linker_not_link_never_verify() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    std::fs::copy(
        crate::common::fixtures().join("obj/md/app.obj"),
        dir.join("a.obj"),
    )
    .unwrap();
    let base = "/dll /nodefaultlib /noentry /out:x.dll a.obj";
    for (command, option) in [
        (
            format!("lld-link-19 {base} /force:unresolved"),
            "/force:unresolved",
        ),
        (format!("lld-link-19 {base} --version"), "--version"),
        (format!("lld-link-19 /? {base}"), "/?"),
        ("clang-19 -### -shared -o x.dll a.obj".to_string(), "-###"),
        (
            "clang-19 -shared -o x.dll a.obj --help".to_string(),
            "--help",
        ),
        (
            "clang-19 -fuse-ld=lld -shared -o x.dll a.obj -Wl,--unresolved-symbols=ignore-all"
                .to_string(),
            "--unresolved-symbols=ignore-all",
        ),
    ] {
        let (output, json) = verify(dir, &ninja_log(&command), &[], None);
        let v = &json["verify"];
        assert_eq!(v["ok"], false, "{command}: {v:#}");
        assert_eq!(v["rounds"], 0, "{command}: {v:#}");
        let error = v["error"].as_str().unwrap();
        assert!(error.contains(option), "{command}: {error}");
        assert_eq!(output.status.code(), Some(4), "{}", all_text(&output));
    }
}

/// A linker that exits 0 but writes no image does not verify; one that writes it does.
#[test]
fn success_needs_the_image() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    let allow = ["--allow-linker", "bin/lld-link"];
    let log = ninja_log("bin/lld-link /dll /out:x.dll a.obj");
    attack_script(&dir.join("bin/lld-link"));
    let (output, json) = verify(dir, &log, &allow, None);
    let v = &json["verify"];
    assert_eq!(v["ok"], false, "{v:#}");
    assert_eq!(v["exit_code"], 0, "{v:#}");
    assert!(
        v["remaining"][0]["text"]
            .as_str()
            .unwrap()
            .contains("wrote no image"),
        "{v:#}"
    );
    assert_eq!(output.status.code(), Some(4), "{}", all_text(&output));
    linking_script(&dir.join("bin/lld-link"));
    let (_, json) = verify(dir, &log, &allow, None);
    assert_eq!(json["verify"]["ok"], true, "{:#}", json["verify"]);
    assert!(!dir.join("x.dll").exists());
}

/// A `make -j` log: the failed target's command, then another target's, then the first one's
/// error. Re-running the nearest command (another target, which links) proved nothing: with no
/// failure naming the image, verification is refused and both are listed; when link.exe's failure
/// names the image, that target's command is the one run.
#[test]
fn only_the_failed_target_is_verified() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    let marker = linking_script(&dir.join("bin/lld-link"));
    let allow = ["--allow-linker", "bin/lld-link"];
    let commands = "bin/lld-link /dll /out:x.dll a.obj\nbin/lld-link /dll /out:other.dll b.obj\n";
    let log = format!("{commands}{LINK_ERROR}");
    let (output, json) = verify(dir, &log, &allow, None);
    let v = &json["verify"];
    assert!(!marker.exists(), "a link ran: {}", all_text(&output));
    assert_eq!(v["ok"], false, "{v:#}");
    let error = v["error"].as_str().unwrap();
    assert!(
        error.contains("line 1 (writes x.dll), line 2 (writes other.dll)"),
        "{error}"
    );
    let log = format!(
        "{commands}a.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function f\nx.dll : fatal error LNK1120: 1 unresolved externals\n"
    );
    let (_, json) = verify(dir, &log, &allow, None);
    let v = &json["verify"];
    assert_eq!(v["found"], "build.log line 1", "{v:#}");
    assert!(marker.exists());
}

/// Response files the log's command names: a FIFO (which blocked the open), `/dev/zero` (read
/// until memory ran out), and 200 references a level over 7 levels (which aborted on allocation)
/// are each refused with the file named, and lnkfix ends by itself.
#[test]
fn response_files_are_bounded() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    crate::hostile_inputs::mkfifo(&dir.join("fifo.rsp"));
    for level in 0..7 {
        let next = format!("@level{}.rsp ", level + 1);
        std::fs::write(dir.join(format!("level{level}.rsp")), next.repeat(200)).unwrap();
    }
    std::fs::write(dir.join("level7.rsp"), "a.obj").unwrap();
    for (rsp, reason) in [
        ("fifo.rsp", "not a regular file"),
        ("/dev/zero", "not a regular file"),
        ("level0.rsp", "response files"),
    ] {
        let log = ninja_log(&format!("lld-link-19 /dll /out:x.dll @{rsp}"));
        let (output, json) = verify(dir, &log, &[], None);
        let error = json["verify"]["error"].as_str().unwrap();
        assert!(
            error.contains("response file") && error.contains(reason),
            "{rsp}: {error}"
        );
        assert_eq!(output.status.code(), Some(4), "{}", all_text(&output));
    }
}

/// The bounds are flags: a response file larger than `--verify-max-bytes`, or response files that
/// hold more than `--verify-max-expansion` in all, refuse the run with an error that names the
/// flag; the same files pass the default bounds.
#[test]
fn the_bounds_are_flags_named_when_reached() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    std::fs::write(dir.join("big.rsp"), "a.obj ".repeat(400)).unwrap();
    std::fs::write(dir.join("twice.rsp"), "@big.rsp @big.rsp").unwrap();
    let log = ninja_log("lld-link-19 /dll /out:x.dll @big.rsp");
    let (_, json) = verify(dir, &log, &["--verify-max-bytes", "1000"], None);
    let error = json["verify"]["error"].as_str().unwrap();
    assert!(error.contains("--verify-max-bytes"), "{error}");
    let log = ninja_log("lld-link-19 /dll /out:x.dll @twice.rsp");
    let (_, json) = verify(dir, &log, &["--verify-max-expansion", "3000"], None);
    let error = json["verify"]["error"].as_str().unwrap();
    assert!(error.contains("--verify-max-expansion"), "{error}");
    let (_, json) = verify(dir, &log, &[], None);
    let error = json["verify"]["error"].as_str().unwrap_or("");
    assert!(!error.contains("--verify-max"), "{error}");
}

/// `--build-dir`'s `build.ninja` when the log shows no command: a FIFO, an `include /dev/zero`,
/// variables that double at each level, and includes that fan out (each file including the next
/// 40 times, 4 levels) are each an error naming the file, and lnkfix ends by itself.
#[test]
fn build_ninja_is_bounded() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    let build = dir.join("build");
    std::fs::create_dir_all(&build).unwrap();
    let ninja = build.join("build.ninja");
    let rule = "rule link\n  command = lld-link-19 $in /out:$out\nbuild x.dll: link a.obj\n";
    let mut doubling = format!("v0 = {}\n", "x".repeat(1024));
    for level in 1..40 {
        doubling.push_str(&format!("v{level} = $v{0}$v{0}\n", level - 1));
    }
    let fan_out = |level: usize| format!("include f{}.ninja\n", level + 1).repeat(40);
    for level in 0..4 {
        std::fs::write(build.join(format!("f{level}.ninja")), fan_out(level)).unwrap();
    }
    std::fs::write(build.join("f4.ninja"), "x = 1\n").unwrap();
    let cases = [
        (None, "not a regular file"),
        (
            Some(format!("include /dev/zero\n{rule}")),
            "not a regular file",
        ),
        (Some(format!("{doubling}{rule}")), "expand past"),
        (
            Some(format!("include f0.ninja\n{rule}")),
            "more than 1024 files",
        ),
    ];
    for (text, reason) in cases {
        let _ = std::fs::remove_file(&ninja);
        match &text {
            Some(text) => std::fs::write(&ninja, text).unwrap(),
            None => crate::hostile_inputs::mkfifo(&ninja),
        }
        let (output, json) = verify(dir, LINK_ERROR, &["--build-dir", "build"], None);
        let error = json["verify"]["error"].as_str().unwrap();
        assert!(error.contains(reason), "{reason}: {error}");
        assert_eq!(output.status.code(), Some(4), "{}", all_text(&output));
    }
}

/// A log read from a FIFO (which blocked when `--verify` opened it again) or from `/dev/stdin`
/// (already consumed: "no link command"): the command read in the one pass is the one run.
#[test]
fn a_log_that_cannot_be_read_twice_is_read_once() {
    use std::io::Write;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    let log = ninja_log("lld-link-19 /dll /out:x.dll a.obj");
    let fifo = dir.join("fifo.log");
    crate::hostile_inputs::mkfifo(&fifo);
    let writer = {
        let (fifo, log) = (fifo.clone(), log.clone());
        std::thread::spawn(move || std::fs::write(fifo, log))
    };
    let mut command = lnkfix_std();
    command
        .current_dir(dir)
        .args(["diagnose", "--format", "json", "fifo.log", "--verify"]);
    let output = finishes(command);
    writer.join().unwrap().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let v = &json["verify"];
    assert_eq!(
        v["found"], "fifo.log line 3, under ninja's `FAILED: x.dll`",
        "{v:#}"
    );
    assert_eq!(v["rounds"], 1, "{v:#}");

    let mut child = lnkfix_std()
        .current_dir(dir)
        .args(["diagnose", "--format", "json", "/dev/stdin", "--verify"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(log.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).unwrap();
    let v = &json["verify"];
    assert_eq!(
        v["found"], "/dev/stdin line 3, under ninja's `FAILED: x.dll`",
        "{v:#}"
    );
    assert_eq!(v["rounds"], 1, "{v:#}");
}

/// Whether process `pid` is alive (a zombie has ended).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .unwrap_or("")
            .trim_start()
            .starts_with('Z')
    })
}

/// Waits (up to 30 s) for `path` to hold a line per process, and returns them.
fn pids_in(path: &Path, count: usize) -> Vec<String> {
    for _ in 0..3000 {
        if let Ok(text) = std::fs::read_to_string(path) {
            let pids: Vec<String> = text.lines().map(str::to_string).collect();
            if pids.len() >= count {
                return pids;
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    panic!("{} was not written", path.display());
}

/// A process the link starts in a session of its own keeps the output pipe open: lnkfix ends it
/// with the link (it waited for it without bound, and said every process was stopped).
#[test]
fn a_process_in_a_new_session_is_ended_with_the_link() {
    use std::os::unix::fs::PermissionsExt;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    let linker = dir.join("bin/lld-link");
    std::fs::create_dir_all(linker.parent().unwrap()).unwrap();
    std::fs::write(
        &linker,
        "#!/bin/sh\nsetsid sh -c 'echo $$ > \"$0.tmp\"; mv \"$0.tmp\" \"$0.pid\"; exec sleep 300' \"$0\" &\nwhile [ ! -s \"$0.pid\" ]; do sleep 0.05; done\necho failed\nexit 1\n",
    )
    .unwrap();
    std::fs::set_permissions(&linker, std::fs::Permissions::from_mode(0o755)).unwrap();
    let log = ninja_log("bin/lld-link /dll /out:x.dll a.obj");
    let extra = [
        "--allow-linker",
        "bin/lld-link",
        "--verify-timeout",
        "5",
        "--verify-rounds",
        "1",
    ];
    let (output, json) = verify(dir, &log, &extra, None);
    assert_eq!(json["verify"]["exit_code"], 1, "{}", all_text(&output));
    let pid = pids_in(&PathBuf::from(format!("{}.pid", linker.display())), 1);
    let mut ended = false;
    for _ in 0..100 {
        ended = !alive(&pid[0]);
        if ended {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(ended, "process {}, in its own session, still runs", pid[0]);
}

/// SIGTERM during a verification ends the link and what it started, removes the scratch
/// directory, and ends lnkfix by SIGTERM (the link ran on without limit, the directory stayed).
#[test]
fn sigterm_during_verify_ends_the_link_and_removes_the_scratch_directory() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::ExitStatusExt;
    let root = tempfile::tempdir().unwrap();
    let dir = root.path();
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let linker = dir.join("bin/lld-link");
    std::fs::create_dir_all(linker.parent().unwrap()).unwrap();
    std::fs::write(
        &linker,
        "#!/bin/sh\nsleep 300 &\necho $! > \"$0.tmp\"\necho $$ >> \"$0.tmp\"\nmv \"$0.tmp\" \"$0.pid\"\nwait\n",
    )
    .unwrap();
    std::fs::set_permissions(&linker, std::fs::Permissions::from_mode(0o755)).unwrap();
    std::fs::write(
        dir.join("build.log"),
        ninja_log("bin/lld-link /dll /out:x.dll a.obj"),
    )
    .unwrap();
    let mut child = lnkfix_std()
        .current_dir(dir)
        .env("TMPDIR", &tmp)
        .args([
            "diagnose",
            "build.log",
            "--verify",
            "--allow-linker",
            "bin/lld-link",
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pids = pids_in(&PathBuf::from(format!("{}.pid", linker.display())), 2);
    // SAFETY: kill(2) on the lnkfix this test started.
    unsafe {
        libc::kill(child.id() as i32, libc::SIGTERM);
    }
    let mut status = None;
    for _ in 0..600 {
        status = child.try_wait().unwrap();
        if status.is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let status = status.unwrap_or_else(|| {
        child.kill().unwrap();
        panic!("lnkfix did not end on SIGTERM")
    });
    assert_eq!(status.signal(), Some(libc::SIGTERM), "{status:?}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    for pid in &pids {
        assert!(!alive(pid), "process {pid} of the link still runs");
    }
    let left: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("lnkfix-verify-"))
        .collect();
    assert!(left.is_empty(), "scratch directories left: {left:?}");
}
