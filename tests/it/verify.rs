//! `diagnose --verify` and `patch --verify`: the failed link run again with the answer.
//!
//! On Linux, with the real linkers (lld-link-14 and lld-link-19) and the fixtures'
//! real failing links (`tests/fixtures/build.sh`), presented as the logs builds write: ninja's
//! `FAILED:` block, a `build.ninja` with a response file, a command with response files and one
//! with spaces in every path. Every case checks that the build's own output file is untouched and
//! that nothing was added to the build directory. A stand-in linker built from
//! `tests/verify/standin_linker.c` (by clang-14) checks the time limit, which must end the whole
//! process tree, and the output bound.
//!
//! Under Wine (the Windows build, `.ci/windows.sh`) there is no lld-link or clang: the same
//! stand-in, built for Windows on Linux by `.ci/windows.sh`, is run by `lnkfix.exe --verify`. It
//! prints the arguments it received, so the Windows quoting is checked end to end through
//! `CreateProcess`, and it links only when the libraries the flags name exist on the `/LIBPATH:`s.

use crate::common;

use common::StartRetrying;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The exe under test: `LNKFIX_EXE` under Wine (`.ci/windows.sh` sets it), else cargo's.
fn exe() -> PathBuf {
    std::env::var_os("LNKFIX_EXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lnkfix")))
}

fn lnkfix(dir: &Path, args: &[&str]) -> Output {
    Command::new(exe())
        .current_dir(dir)
        .args(args)
        .env_remove("NO_COLOR")
        .output_retrying()
        .expect("run lnkfix")
}

fn show(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| panic!("{e}\n{}", show(output)))
}

fn strings(value: &Value) -> Vec<String> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("not an array: {value}"))
        .iter()
        .map(|v| v.as_str().expect("a string").to_string())
        .collect()
}

fn text(path: &Path) -> String {
    path.to_str().expect("utf-8 path").to_string()
}

/// A file of the build that the re-run must not touch: its bytes and modification time.
struct Untouched {
    path: PathBuf,
    bytes: Vec<u8>,
    modified: std::time::SystemTime,
}

impl Untouched {
    fn create(path: PathBuf) -> Untouched {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let bytes = format!("the build's own {}, not to be written\n", path.display()).into_bytes();
        std::fs::write(&path, &bytes).unwrap();
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        Untouched {
            path,
            bytes,
            modified,
        }
    }

    fn check(&self, context: &str) {
        assert_eq!(
            std::fs::read(&self.path).unwrap(),
            self.bytes,
            "{context}: {} was written",
            self.path.display()
        );
        assert_eq!(
            std::fs::metadata(&self.path).unwrap().modified().unwrap(),
            self.modified,
            "{context}: {} was touched",
            self.path.display()
        );
    }
}

/// Every file under `dir`, with its size.
fn listing(dir: &Path) -> BTreeSet<(PathBuf, u64)> {
    let mut out = BTreeSet::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let kind = entry.file_type().unwrap();
            if kind.is_dir() {
                stack.push(entry.path());
            } else {
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                out.insert((entry.path().strip_prefix(dir).unwrap().to_path_buf(), size));
            }
        }
    }
    out
}

/// A ninja log of a failed link: the `FAILED:` block with the command and the linker's output.
fn ninja_log(output: &str, command: &str, linker_output: &str) -> String {
    format!(
        "[1/1] Linking CXX shared library {output}\nFAILED: {output}\n{command}\n{linker_output}ninja: build stopped: subcommand failed.\n"
    )
}

/// Real logs people posted: the failed link command is found where each build printed it (CMake's
/// `LINK: command`, under ninja's `FAILED:` inside `cmd.exe /C`, clang++ by its 8.3 name, link.exe
/// by a quoted path, an old ninja's `FAILED:` line holding gyp's wrapper), its response file is
/// named when it is missing, and with it in place every output the command names is redirected;
/// the program itself, a path on the machine that ran the build, cannot start here.
#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn posted_logs_name_their_failed_link_commands() {
    let cases: [Case; 7] = [
        (
            "examples/005.log",
            "line 4, CMake's `LINK: command`",
            Some(r"CMakeFiles\torch_hip.rsp"),
            r"C:\Python313\Lib\site-packages\_rocm_sdk_devel\lib\llvm\bin\lld-link.exe",
            &[r"bin\torch_hip.dll", r"lib\torch_hip.lib", r"bin\torch_hip.pdb"],
        ),
        (
            "examples/028.log",
            "line 3, under ninja's `FAILED: bin/RelWithDebInfo/OpenAL32.dll lib/RelWithDebInfo/OpenAL32.lib`",
            Some(r"CMakeFiles\OpenAL.RelWithDebInfo.rsp"),
            r"C:\PROGRA~1\LLVM\bin\CLANG_~1.EXE",
            &[r"bin\RelWithDebInfo\OpenAL32.dll", r"lib\RelWithDebInfo\OpenAL32.lib", r"bin\RelWithDebInfo\OpenAL32.pdb"],
        ),
        (
            "examples/057.log",
            "line 3, under ninja's `FAILED: bin/liborg_custusx_filter_airways.dll source/plugins/org_custusx_filter_airways.lib`",
            Some("CMakeFiles/org_custusx_filter_airways.rsp"),
            r"C:\PROGRA~2\MICROS~1.0\VC\bin\amd64\link.exe",
            &[r"bin\liborg_custusx_filter_airways.dll", r"source\plugins\org_custusx_filter_airways.lib", r"bin\liborg_custusx_filter_airways.pdb"],
        ),
        (
            "examples/060.log",
            "line 5, under ninja's `FAILED: fused.pyd`",
            None,
            r"C:\Program Files (x86)\Microsoft Visual Studio\2017\Community\VC\Tools\MSVC\14.16.27023\bin\Hostx64\x64/link.exe",
            &["fused.pyd"],
        ),
        ("examples/074.log", "line 4, ninja's `FAILED:` line", Some("electron.exe.rsp"), "link.exe", &["electron.exe"]),
        // An old ninja's FAILED: line holding gyp's wrapper, hard-wrapped by the console.
        (
            "examples2/logs/008.log",
            "line 3, ninja's `FAILED:` line",
            Some("node.dll.rsp"),
            "link.exe",
            &["node.dll.lib", "node.dll"],
        ),
        // MSBuild's `Link:` echo: an unquoted program path with spaces, wrapped at 119 columns,
        // then the inputs one per line.
        (
            "examples2/logs/016.log",
            "line 2",
            None,
            r"D:\Program Files (x86)\Microsoft Visual Studio 12.0\VC\bin\link.exe",
            &[r"..\..\build\LibVs.dll", r"..\..\build\LibVs.pdb", r"..\..\build\LibVs.lib"],
        ),
    ];
    logs_name_their_failed_link_commands(&common::posted_logs(), &cases);
}

/// The log (relative to its set's folder), where the command is found, the response file it
/// needs, its program, its outputs.
type Case<'a> = (&'a str, &'a str, Option<&'a str>, &'a str, &'a [&'a str]);

/// Our logs of the same wrappers: the failed link command is found where each build printed it.
#[test]
fn our_logs_name_their_failed_link_commands() {
    logs_name_their_failed_link_commands(&common::root().join("tests/logs"), OUR_LINK_COMMANDS);
}

const OUR_LINK_COMMANDS: &[Case] = &[
    (
        "unresolved/005.log",
        "line 4, CMake's `LINK: command`",
        Some(r"CMakeFiles\geokit_gpu.rsp"),
        r"C:\rocm\llvm\bin\lld-link.exe",
        &[r"bin\geokit_gpu.dll", r"lib\geokit_gpu.lib", r"bin\geokit_gpu.pdb"],
    ),
    (
        "unresolved/028.log",
        "line 3, under ninja's `FAILED: bin/RelWithDebInfo/soundfx.dll lib/RelWithDebInfo/soundfx.lib`",
        Some(r"CMakeFiles\soundfx.RelWithDebInfo.rsp"),
        r"C:\LLVM18\bin\clang++.exe",
        &[r"bin\RelWithDebInfo\soundfx.dll", r"lib\RelWithDebInfo\soundfx.lib", r"bin\RelWithDebInfo\soundfx.pdb"],
    ),
    (
        "unresolved/057.log",
        "line 3, under ninja's `FAILED: bin/libgpuk_filters.dll src/filters/gpuk_filters.lib`",
        Some("CMakeFiles/gpuk_filters.rsp"),
        r"C:\PROGRA~2\MICROS~2.0\VC\bin\amd64\link.exe",
        &[r"bin\libgpuk_filters.dll", r"src\filters\gpuk_filters.lib", r"bin\libgpuk_filters.pdb"],
    ),
    (
        "unresolved/060.log",
        "line 5, under ninja's `FAILED: blur_ext.pyd`",
        None,
        r"C:\Program Files\Microsoft Visual Studio\2019\Community\VC\Tools\MSVC\14.29.30133\bin\Hostx64\x64/link.exe",
        &["blur_ext.pyd"],
    ),
    ("unresolved/074.log", "line 4, ninja's `FAILED:` line", Some("notes.exe.rsp"), "link.exe", &["notes.exe"]),
    // gyp's wrapper in an old ninja's FAILED: line, hard-wrapped by the console.
    (
        "failures/logs/008.log",
        "line 3, ninja's `FAILED:` line",
        Some("mediacore.dll.rsp"),
        "link.exe",
        &["mediacore.dll.lib", "mediacore.dll"],
    ),
    // MSBuild's `Link:` echo: an unquoted program path with spaces, wrapped, then the inputs one
    // per line.
    (
        "failures/logs/016.log",
        "line 2",
        None,
        r"C:\Program Files (x86)\Microsoft Visual Studio 12.0\VC\bin\link.exe",
        &[r"..\..\out\KRt.dll", r"..\..\out\KRt.pdb", r"..\..\out\KRt.lib"],
    ),
];

fn logs_name_their_failed_link_commands(root: &Path, cases: &[Case]) {
    assert!(cases.len() >= 7, "{} cases", cases.len());
    for &(id, where_found, response_file, program, outputs) in cases {
        let log = text(&root.join(id));
        let build = tempfile::Builder::new()
            .prefix("lnkfix-verify-real-")
            .tempdir()
            .unwrap();
        if let Some(name) = response_file {
            // Without it, the verification stops and names it.
            let output = lnkfix(
                build.path(),
                &[
                    "diagnose",
                    "--format",
                    "json",
                    &log,
                    "--verify",
                    "--build-dir",
                    ".",
                ],
            );
            assert_eq!(output.status.code(), Some(4), "{id}: {}", show(&output));
            let v = &json(&output)["verify"];
            assert_eq!(v["rounds"], 0, "{id}");
            let error = v["error"].as_str().unwrap();
            let file = name.rsplit(['\\', '/']).next().unwrap();
            assert!(
                error.contains("response file") && error.contains(file),
                "{id}: {error}"
            );
            let path = build
                .path()
                .join(lnkfix::index::discover::native_path(name));
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "a.obj\r\n").unwrap();
        }
        let before = listing(build.path());
        let output = lnkfix(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                &log,
                "--verify",
                "--build-dir",
                ".",
            ],
        );
        assert_eq!(output.status.code(), Some(4), "{id}: {}", show(&output));
        let v = &json(&output)["verify"];
        assert_eq!(v["found"], format!("{log} {where_found}"), "{id}");
        assert_eq!(v["rounds"], 0, "{id}: {v:#}");
        assert!(
            v["error"].as_str().unwrap().starts_with("cannot start "),
            "{id}: {v:#}"
        );
        let ran = strings(&v["command"]);
        assert_eq!(ran[0], program, "{id}");
        let redirected: Vec<&str> = v["redirected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["file"].as_str().unwrap())
            .collect();
        assert_eq!(redirected, outputs, "{id}: {v:#}");
        for r in v["redirected"].as_array().unwrap() {
            let to = r["to"].as_str().unwrap();
            assert!(
                ran.iter().any(|w| w.ends_with(to)),
                "{id}: {to} not in {ran:?}"
            );
        }
        assert_eq!(listing(build.path()), before, "{id}");
    }
}

#[cfg(not(windows))]
mod linux {
    //! With the real linkers. lld-link is a Linux program here, so these run on Linux only; the
    //! Windows build's tests are in `windows` below.
    use super::*;
    use crate::patch_common::EXTENSION_PY;

    fn fixture(relative: &str) -> PathBuf {
        common::fixtures().join(relative)
    }

    /// The fixtures' stand-in libraries, by absolute paths (the link runs elsewhere).
    fn library_args(with_hip: bool) -> Vec<String> {
        let windows = common::windows_lib("windows_x86_64_msvc");
        let mut args = vec![
            "--sdk-lib".to_string(),
            text(&fixture("kits/Lib/10.0.26100.0")),
            "--vc-lib".into(),
            text(&fixture("vc")),
            "--lib".into(),
            text(&windows),
        ];
        if with_hip {
            args.extend(["--hip-path".into(), text(&fixture("hip"))]);
        }
        args
    }

    fn symlink(target: &Path, link: &Path) {
        std::fs::create_dir_all(link.parent().unwrap()).unwrap();
        std::os::unix::fs::symlink(target, link).unwrap();
    }

    /// A build directory holding the fixtures' objects (`obj/mt/app.obj`, `obj/md/app.obj`) and
    /// `bin/lld-link` (lld-link-14, as `tests/fixtures/build.sh` links).
    fn build_dir(prefix: &str) -> tempfile::TempDir {
        let dir = tempfile::Builder::new().prefix(prefix).tempdir().unwrap();
        for flavour in ["mt", "md"] {
            let to = dir.path().join("obj").join(flavour);
            std::fs::create_dir_all(&to).unwrap();
            std::fs::copy(
                fixture(&format!("obj/{flavour}/app.obj")),
                to.join("app.obj"),
            )
            .unwrap();
        }
        symlink(
            Path::new("/usr/bin/lld-link-14"),
            &dir.path().join("bin/lld-link"),
        );
        dir
    }

    fn run(dir: &Path, args: &[&str], libraries: &[String]) -> Output {
        let mut all: Vec<&str> = args.to_vec();
        all.extend(libraries.iter().map(String::as_str));
        lnkfix(dir, &all)
    }

    /// The fixture log's command with its program replaced, and the output it names.
    fn command_of(log: &Value, program: &str) -> (String, String) {
        let cmd = std::fs::read_to_string(fixture(log["cmd"].as_str().unwrap())).unwrap();
        let cmd = cmd.trim().replacen("bin/lld-link", program, 1);
        let out = cmd
            .split_whitespace()
            .find_map(|w| w.strip_prefix("/out:"))
            .unwrap()
            .to_string();
        (cmd, out)
    }

    #[test]
    fn failed_links_in_ninja_logs_verify_with_both_linkers() {
        let manifest = common::manifest();
        let mut checked = 0;
        for log in manifest["logs"].as_array().unwrap() {
            if log["flavour"].is_null() || log["complete"] != true {
                continue;
            }
            let name = log["log"].as_str().unwrap();
            let flavour_dir = if log["flavour"] == "static" {
                "obj/mt"
            } else {
                "obj/md"
            };
            // bin/lld-link is lld-link-14; lld-link-19 is found on PATH by its versioned name.
            for program in ["bin/lld-link", "lld-link-19"] {
                let context = format!("{name} with {program}");
                let build = build_dir("lnkfix-verify-");
                let (command, out) = command_of(log, program);
                let untouched = Untouched::create(build.path().join(&out));
                let linker_output = std::fs::read_to_string(fixture(name)).unwrap();
                std::fs::write(
                    build.path().join("build.log"),
                    ninja_log(&out, &command, &linker_output),
                )
                .unwrap();
                let before = listing(build.path());
                let objects = text(&build.path().join(flavour_dir));
                let output = run(
                    build.path(),
                    &[
                        "diagnose",
                        "--format",
                        "json",
                        "build.log",
                        "--verify",
                        "--objects",
                        &objects,
                    ],
                    &library_args(true),
                );
                assert_eq!(
                    output.status.code(),
                    Some(1),
                    "{context}: {}",
                    show(&output)
                );
                let json = json(&output);
                let v = &json["verify"];
                assert_eq!(v["ok"], true, "{context}: {v:#}");
                assert_eq!(v["verified_round"], 1, "{context}");
                assert_eq!(v["rounds"], 1, "{context}");
                assert_eq!(
                    v["found"],
                    "build.log line 3, under ninja's `FAILED: ".to_string() + &out + "`"
                );
                let flags = strings(&json["link_flags"]);
                let ran = strings(&v["command"]);
                assert_eq!(ran[0], program, "{context}");
                assert_eq!(
                    ran[ran.len() - flags.len()..],
                    flags[..],
                    "{context}: the flags are appended as printed"
                );
                assert_eq!(strings(&v["flags"]), flags, "{context}");
                assert_eq!(v["redirected"][0]["file"], out.as_str(), "{context}");
                assert!(
                    !v["redirected"][0]["to"]
                        .as_str()
                        .unwrap()
                        .starts_with(&text(build.path())),
                    "{context}: {v:#}"
                );
                assert_eq!(
                    v["directory_source"].as_str().unwrap().split(':').next(),
                    Some("the current directory")
                );
                untouched.check(&context);
                assert_eq!(
                    listing(build.path()),
                    before,
                    "{context}: files were added to the build"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 8, "mt/md × demangled/raw × lld-link-14/19");
    }

    #[test]
    fn without_the_hip_directory_the_fix_does_not_verify() {
        let manifest = common::manifest();
        let log = &manifest["logs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["log"] == "logs/md-raw.log")
            .unwrap()
            .clone();
        let build = build_dir("lnkfix-verify-");
        let (command, out) = command_of(log, "lld-link-19");
        let untouched = Untouched::create(build.path().join(&out));
        let linker_output = std::fs::read_to_string(fixture("logs/md-raw.log")).unwrap();
        std::fs::write(
            build.path().join("build.log"),
            ninja_log(&out, &command, &linker_output),
        )
        .unwrap();
        let before = listing(build.path());
        let args = [
            "diagnose",
            "--format",
            "json",
            "build.log",
            "--verify",
            "--objects",
            "obj/md",
        ];
        let output = run(build.path(), &args, &library_args(false));
        assert_eq!(output.status.code(), Some(4), "{}", show(&output));
        let json = json(&output);
        let v = &json["verify"];
        assert_eq!(v["ok"], false, "{v:#}");
        assert_eq!(v["verified_round"], Value::Null);
        assert_eq!(v["exit_code"], 1);
        // The answer names amdhip64.lib from the rule book, with no directory: lld-link cannot
        // open it, and a second round has nothing to add.
        assert!(strings(&json["link_flags"]).contains(&"amdhip64.lib".to_string()));
        assert_eq!(v["rounds"], 1, "{v:#}");
        let remaining = v["remaining"].as_array().unwrap();
        assert_eq!(remaining.len(), 1, "{v:#}");
        assert_eq!(remaining[0]["kind"], "error");
        assert!(
            remaining[0]["text"]
                .as_str()
                .unwrap()
                .contains("could not open 'amdhip64.lib'"),
            "{v:#}"
        );
        assert!(v["output"]
            .as_str()
            .unwrap()
            .contains("could not open 'amdhip64.lib'"));

        // The text report says so, with the command it ran.
        let text_args = [
            "diagnose",
            "--color",
            "never",
            "build.log",
            "--verify",
            "--objects",
            "obj/md",
        ];
        let output = run(build.path(), &text_args, &library_args(false));
        assert_eq!(output.status.code(), Some(4));
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            stdout.contains("NOT VERIFIED after 1 round: the link still fails (exit code 1)"),
            "{stdout}"
        );
        assert!(
            stdout.contains("  ran: lld-link-19 /nologo /dll"),
            "{stdout}"
        );
        assert!(
            stdout.contains("remaining:\n    lld-link error: could not open 'amdhip64.lib'"),
            "{stdout}"
        );
        untouched.check("not verified");
        assert_eq!(listing(build.path()), before);
    }

    /// A log cut to its HIP symbols: the first answer is only amdhip64.lib; the link's output then
    /// shows the CRT chain absent, and the second round verifies.
    fn cut_log(build: &Path) -> String {
        let full = std::fs::read_to_string(fixture("logs/md-raw.log")).unwrap();
        let hip: Vec<&str> = full
            .split("\n\n")
            .filter(|b| b.contains("undefined symbol: hip"))
            .collect();
        assert!(hip.len() >= 3, "{full}");
        let command = "lld-link-19 /nologo /dll /nodefaultlib /errorlimit:0 /demangle:no /out:link/md.dll obj/md/app.obj";
        let log = ninja_log("link/md.dll", command, &(hip.join("\n\n") + "\n"));
        std::fs::write(build.join("build.log"), &log).unwrap();
        "build.log".into()
    }

    #[test]
    fn a_cut_log_verifies_in_the_second_round() {
        let build = build_dir("lnkfix-verify-");
        let untouched = Untouched::create(build.path().join("link/md.dll"));
        let log = cut_log(build.path());
        let before = listing(build.path());
        let output = run(
            build.path(),
            &["diagnose", "--format", "json", &log, "--verify"],
            &library_args(true),
        );
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let document = json(&output);
        let v = &document["verify"];
        let first = strings(&document["link_flags"]);
        assert!(!first.contains(&"msvcrt.lib".to_string()), "{first:?}");
        assert_eq!(v["ok"], true, "{v:#}");
        assert_eq!(v["verified_round"], 2);
        let history = v["history"].as_array().unwrap();
        assert_eq!(strings(&history[0]["added"]), first);
        assert_eq!(history[0]["exit_code"], 1);
        let added = strings(&history[1]["added"]);
        for library in ["msvcrt.lib", "vcruntime.lib", "ucrt.lib", "kernel32.Lib"] {
            assert!(added.contains(&library.to_string()), "{added:?}");
        }
        assert_eq!(history[1]["exit_code"], 0);
        assert_eq!(strings(&v["flags"]), [first, added].concat());

        let output = run(
            build.path(),
            &["diagnose", "--color", "never", &log, "--verify"],
            &library_args(true),
        );
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(stdout.contains("VERIFIED in round 2 of 2"), "{stdout}");
        assert!(stdout.contains("  round 2 added: "), "{stdout}");
        assert!(stdout.contains("  verified flags: "), "{stdout}");

        // One round only: what remains is the CRT's symbols, each with its library.
        let output = run(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                &log,
                "--verify",
                "--verify-rounds",
                "1",
            ],
            &library_args(true),
        );
        assert_eq!(output.status.code(), Some(4), "{}", show(&output));
        let v = &json(&output)["verify"];
        assert_eq!(v["ok"], false);
        let remaining = v["remaining"].as_array().unwrap();
        assert!(remaining.len() > 20, "{v:#}");
        assert!(
            remaining.iter().all(|r| r["kind"] == "unresolved-symbol"),
            "{v:#}"
        );
        assert!(
            remaining.iter().any(|r| r["library"] == "msvcrt.lib"),
            "{v:#}"
        );
        untouched.check("cut log");
        assert_eq!(listing(build.path()), before);
    }

    #[test]
    fn response_files_are_read_and_outputs_in_them_redirected() {
        let build = build_dir("lnkfix-verify-");
        std::fs::create_dir_all(build.path().join("obj dir")).unwrap();
        std::fs::copy(
            fixture("obj/md/app.obj"),
            build.path().join("obj dir/app.obj"),
        )
        .unwrap();
        // The options and the output in a UTF-16LE file with a BOM, the object in a UTF-8 one.
        let options = "/nologo /dll /nodefaultlib\r\n/errorlimit:0 \"/out:out dir/md.dll\"\r\n";
        let utf16: Vec<u8> = std::iter::once(0xfeffu16)
            .chain(options.encode_utf16())
            .flat_map(u16::to_le_bytes)
            .collect();
        std::fs::write(build.path().join("link.rsp"), &utf16).unwrap();
        std::fs::write(build.path().join("objs.rsp"), "\"obj dir/app.obj\"\n").unwrap();
        let untouched = Untouched::create(build.path().join("out dir/md.dll"));
        let linker_output = std::fs::read_to_string(fixture("logs/md-raw.log")).unwrap();
        let log = ninja_log(
            "out dir/md.dll",
            "bin/lld-link @link.rsp @objs.rsp",
            &linker_output,
        );
        std::fs::write(build.path().join("build.log"), log).unwrap();
        let before = listing(build.path());
        let objects = text(&build.path().join("obj dir"));
        let output = run(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                "build.log",
                "--verify",
                "--objects",
                &objects,
            ],
            &library_args(true),
        );
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let v = &json(&output)["verify"];
        assert_eq!(v["ok"], true, "{v:#}");
        let ran = strings(&v["command"]);
        let written = &v["response_files"][0];
        assert_eq!(v["response_files"].as_array().unwrap().len(), 1, "{v:#}");
        assert_eq!(written["replaces"], "@link.rsp");
        assert_eq!(ran[1], format!("@{}", written["path"].as_str().unwrap()));
        assert_eq!(
            ran[2], "@objs.rsp",
            "an unchanged response file is passed as it was"
        );
        let out = format!("/out:{}", v["redirected"][0]["to"].as_str().unwrap());
        assert_eq!(
            strings(&written["arguments"]),
            [
                "/nologo",
                "/dll",
                "/nodefaultlib",
                "/errorlimit:0",
                out.as_str()
            ]
        );
        assert_eq!(v["redirected"][0]["file"], "out dir/md.dll");
        // The scratch directory, with the rewritten response file, is gone.
        assert!(!Path::new(written["path"].as_str().unwrap()).exists());
        untouched.check("response files");
        assert_eq!(std::fs::read(build.path().join("link.rsp")).unwrap(), utf16);
        assert_eq!(listing(build.path()), before);
    }

    /// A real link with lld-link-19 that writes every file it can besides its image (a PDB, a
    /// stripped PDB, an import library, both maps, a time trace): it verifies, and the build
    /// directory is left exactly as it was.
    #[test]
    fn every_file_a_real_link_writes_goes_to_the_temporary_directory() {
        let build = build_dir("lnkfix-verify-");
        let outputs = "/debug /pdb:out/md.pdb /pdbstripped:out/stripped.pdb /implib:out/md.lib /map:out/md.map /lldmap:out/md.lldmap --time-trace=out/trace.json";
        let command = format!(
            "lld-link-19 /nologo /dll /nodefaultlib /errorlimit:0 {outputs} /out:out/md.dll obj/md/app.obj"
        );
        let linker_output = std::fs::read_to_string(fixture("logs/md-raw.log")).unwrap();
        let log = ninja_log("out/md.dll", &command, &linker_output);
        std::fs::write(build.path().join("build.log"), log).unwrap();
        let before = listing(build.path());
        let objects = text(&build.path().join("obj/md"));
        let output = run(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                "build.log",
                "--verify",
                "--objects",
                &objects,
            ],
            &library_args(true),
        );
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let v = &json(&output)["verify"];
        assert_eq!(v["ok"], true, "{v:#}");
        assert_eq!(v["redirected"].as_array().unwrap().len(), 7, "{v:#}");
        assert_eq!(listing(build.path()), before);
        assert!(!build.path().join("out").exists());
    }

    #[test]
    fn spaces_in_every_path() {
        let root = tempfile::Builder::new()
            .prefix("lnkfix verify ")
            .tempdir()
            .unwrap();
        let build = root.path().join("build dir");
        std::fs::create_dir_all(build.join("obj dir")).unwrap();
        std::fs::copy(fixture("obj/md/app.obj"), build.join("obj dir/app.obj")).unwrap();
        symlink(
            Path::new("/usr/bin/lld-link-19"),
            &build.join("bin dir/lld-link"),
        );
        // The libraries in directories with spaces, as an installation lays them out.
        let mut libraries = Vec::new();
        for (from, to) in [
            ("vc/lib/x64", "Program Files/VC/lib x64"),
            (
                "kits/Lib/10.0.26100.0/um/x64",
                "Program Files (x86)/Windows Kits/um x64",
            ),
            (
                "kits/Lib/10.0.26100.0/ucrt/x64",
                "Program Files (x86)/Windows Kits/ucrt x64",
            ),
            ("hip/lib", "Program Files/AMD/ROCm 6.4/lib"),
        ] {
            let dir = root.path().join(to);
            std::fs::create_dir_all(&dir).unwrap();
            for entry in std::fs::read_dir(fixture(from)).unwrap() {
                let entry = entry.unwrap();
                if entry.file_type().unwrap().is_file() {
                    std::fs::copy(entry.path(), dir.join(entry.file_name())).unwrap();
                }
            }
            libraries.extend(["--lib-dir".to_string(), text(&dir)]);
        }
        libraries.extend([
            "--lib".into(),
            text(&common::windows_lib("windows_x86_64_msvc")),
        ]);
        let untouched = Untouched::create(build.join("link dir/md.dll"));
        let command = r#""bin dir/lld-link" /nologo /dll /nodefaultlib /errorlimit:0 /demangle:no "/out:link dir/md.dll" "obj dir/app.obj""#;
        let linker_output = std::fs::read_to_string(fixture("logs/md-raw.log")).unwrap();
        std::fs::write(
            build.join("build.log"),
            ninja_log("link dir/md.dll", command, &linker_output),
        )
        .unwrap();
        let before = listing(&build);
        let output = run(
            root.path(),
            &[
                "diagnose",
                "--format",
                "json",
                "build dir/build.log",
                "--verify",
                "--build-dir",
                "build dir",
                "--objects",
                "build dir/obj dir",
            ],
            &libraries,
        );
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let json = json(&output);
        let v = &json["verify"];
        assert_eq!(v["ok"], true, "{v:#}");
        let ran = strings(&v["command"]);
        assert_eq!(ran[0], "bin dir/lld-link");
        assert!(ran.contains(&"obj dir/app.obj".to_string()), "{ran:?}");
        assert!(
            ran.iter()
                .any(|w| w.starts_with("/LIBPATH:") && w.contains("ROCm 6.4")),
            "{ran:?}"
        );
        // The command line is the same words by the Windows rules.
        let line = v["command_line"].as_str().unwrap();
        assert!(line.starts_with(r#""bin dir/lld-link" "#), "{line}");
        assert_eq!(lnkfix::fix::verify::winargs::split_command_line(line), ran);
        assert_eq!(v["directory_source"], "the --build-dir");
        untouched.check("spaces");
        assert_eq!(listing(&build), before);
    }

    #[test]
    fn the_command_from_a_real_build_ninja() {
        let build = build_dir("lnkfix-verify-");
        // One link statement whose inputs reach the linker through a response file that only
        // ninja writes (and only while the command runs).
        std::fs::write(
            build.path().join("build.ninja"),
            "lld = lld-link-19\n\
             ldflags = /nologo /dll /nodefaultlib /errorlimit:0\n\
             rule link\n  command = $lld $ldflags @$out.rsp /out:$out\n  rspfile = $out.rsp\n  rspfile_content = $in_newline\n\
             build link/md.dll: link obj/md/app.obj\n\
             default link/md.dll\n",
        )
        .unwrap();
        let untouched = Untouched::create(build.path().join("link/md.dll"));
        // The log is the linker's output alone: no command in it.
        std::fs::copy(fixture("logs/md-raw.log"), build.path().join("link.log")).unwrap();
        let before = listing(build.path());
        let output = run(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                "link.log",
                "--verify",
                "--build-dir",
                ".",
            ],
            &library_args(true),
        );
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let v = &json(&output)["verify"];
        assert_eq!(v["ok"], true, "{v:#}");
        assert_eq!(v["found"], "./build.ninja:7, `build link/md.dll: link`");
        let written = &v["response_files"][0];
        assert_eq!(written["replaces"], "@link/md.dll.rsp");
        assert_eq!(strings(&written["arguments"]), ["obj/md/app.obj"]);
        assert_eq!(
            strings(&v["command"])[..6],
            [
                "lld-link-19",
                "/nologo",
                "/dll",
                "/nodefaultlib",
                "/errorlimit:0",
                &format!("@{}", written["path"].as_str().unwrap())
            ]
        );
        untouched.check("build.ninja");
        assert_eq!(
            listing(build.path()),
            before,
            "no response file is left in the build"
        );

        // Two link statements, CMake's `cmd.exe /C` around the linker (read, never run): the
        // log's `FAILED:` line says which statement failed.
        std::fs::write(
            build.path().join("build.ninja"),
            "rule link\n  command = cmd.exe /C \"cd . && lld-link-19 /nologo /dll /nodefaultlib /errorlimit:0 $in /out:$out && cd .\"\n\
             build link/md.dll: link obj/md/app.obj\n\
             build link/mt.dll: link obj/mt/app.obj\n",
        )
        .unwrap();
        let mt = std::fs::read_to_string(fixture("logs/mt-raw.log")).unwrap();
        std::fs::write(
            build.path().join("link.log"),
            format!("FAILED: link/mt.dll\n{mt}"),
        )
        .unwrap();
        let untouched = Untouched::create(build.path().join("link/mt.dll"));
        let before = listing(build.path());
        let output = run(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                "link.log",
                "--verify",
                "--build-dir",
                ".",
                "--objects",
                "obj/mt",
            ],
            &library_args(true),
        );
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let v = &json(&output)["verify"];
        assert_eq!(v["ok"], true, "{v:#}");
        assert_eq!(v["found"], "./build.ninja:4, `build link/mt.dll: link`");
        assert!(strings(&v["command"]).contains(&"obj/mt/app.obj".to_string()));
        assert!(v["notes"][0].as_str().unwrap().contains("cmd.exe"), "{v:#}");
        untouched.check("build.ninja with cmd /C");
        assert_eq!(listing(build.path()), before);
    }

    /// The link done by a compiler driver, as CMake and tvm-ffi do it: clang-19 as a GNU-style
    /// driver with `-fuse-ld=lld-link` (the flags go through `-Xlinker`), and clang-cl (clang-19 by
    /// that name) with `/link` (the flags go after it). The failed link is run for real first, and
    /// its output is the log.
    #[test]
    fn compiler_drivers_take_the_flags_their_way() {
        let commands = [
            (
                "clang-19 --target=x86_64-pc-windows-msvc -fuse-ld=lld-link -nostdlib -shared -Xlinker /nodefaultlib -o link/md.dll obj/md/app.obj",
                "-Xlinker",
            ),
            (
                "bin/clang-cl-19 --target=x86_64-pc-windows-msvc -fuse-ld=lld obj/md/app.obj /LD /Fe:link/md.dll /link /nodefaultlib",
                "/link",
            ),
        ];
        for (command, how) in commands {
            let build = build_dir("lnkfix-verify-");
            symlink(
                Path::new("/usr/bin/clang-19"),
                &build.path().join("bin/clang-cl-19"),
            );
            std::fs::create_dir_all(build.path().join("link")).unwrap();
            let words: Vec<&str> = command.split_whitespace().collect();
            let failed = Command::new(
                build
                    .path()
                    .join(words[0])
                    .to_str()
                    .filter(|_| words[0].contains('/'))
                    .unwrap_or(words[0]),
            )
            .args(&words[1..])
            .current_dir(build.path())
            .output()
            .unwrap_or_else(|e| panic!("{command}: {e}"));
            assert_eq!(failed.status.code(), Some(1), "{command}");
            let untouched = Untouched::create(build.path().join("link/md.dll"));
            let linker_output = String::from_utf8_lossy(&failed.stderr).into_owned();
            assert!(
                linker_output.contains("undefined symbol: __security_cookie"),
                "{linker_output}"
            );
            std::fs::write(
                build.path().join("build.log"),
                ninja_log("link/md.dll", command, &linker_output),
            )
            .unwrap();
            let before = listing(build.path());
            let output = run(
                build.path(),
                &["diagnose", "--format", "json", "build.log", "--verify"],
                &library_args(true),
            );
            assert_eq!(
                output.status.code(),
                Some(1),
                "{command}: {}",
                show(&output)
            );
            let json = json(&output);
            let v = &json["verify"];
            assert_eq!(v["ok"], true, "{command}: {v:#}");
            let ran = strings(&v["command"]);
            let flags = strings(&json["link_flags"]);
            if how == "-Xlinker" {
                let passed: Vec<String> = ran
                    .chunks(2)
                    .rev()
                    .take(flags.len())
                    .rev()
                    .map(|pair| pair.join(" "))
                    .collect();
                let want: Vec<String> = flags.iter().map(|f| format!("-Xlinker {f}")).collect();
                assert_eq!(passed.join(" "), want.join(" "), "{ran:?}");
            } else {
                let link = ran.iter().position(|w| w == "/link").unwrap();
                assert!(ran[link..].ends_with(&flags), "{ran:?}");
            }
            untouched.check(command);
            assert_eq!(listing(build.path()), before, "{command}");
        }
    }

    /// The libraries a diff adds: the quoted `.lib` names on its `+` lines.
    fn added_libraries(diff: &str) -> BTreeSet<String> {
        diff.lines()
            .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
            .flat_map(|l| {
                l.split('"')
                    .skip(1)
                    .step_by(2)
                    .map(str::to_string)
                    .collect::<Vec<_>>()
            })
            .filter(|s| s.to_ascii_lowercase().ends_with(".lib"))
            .collect()
    }

    #[test]
    fn patch_is_written_only_when_the_fix_verifies() {
        let build = build_dir("lnkfix-verify-");
        let extension = build.path().join("extension.py");
        std::fs::write(&extension, EXTENSION_PY).unwrap();
        let manifest = common::manifest();
        let md = manifest["logs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["log"] == "logs/md-raw.log")
            .unwrap()
            .clone();
        let (command, out) = command_of(&md, "lld-link-19");
        let linker_output = std::fs::read_to_string(fixture("logs/md-raw.log")).unwrap();
        std::fs::write(
            build.path().join("full.log"),
            ninja_log(&out, &command, &linker_output),
        )
        .unwrap();
        let untouched = Untouched::create(build.path().join(&out));

        // Not verified (no HIP directory): no diff, nothing applied, exit 4.
        let base = [
            "patch",
            "extension.py",
            "--from",
            "full.log",
            "--verify",
            "--objects",
            "obj/md",
        ];
        let output = run(build.path(), &base, &library_args(false));
        assert_eq!(output.status.code(), Some(4), "{}", show(&output));
        assert!(output.stdout.is_empty(), "{}", show(&output));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("NOT VERIFIED"), "{stderr}");
        assert!(
            stderr.contains("extension.py not patched: the fix did not verify"),
            "{stderr}"
        );
        let output = run(
            build.path(),
            &[&base[..], &["--apply"]].concat(),
            &library_args(false),
        );
        assert_eq!(output.status.code(), Some(4), "{}", show(&output));
        assert_eq!(std::fs::read_to_string(&extension).unwrap(), EXTENSION_PY);
        assert!(!build.path().join("extension.py.orig").exists());
        // --force writes it anyway, and the exit status still says it did not verify.
        let output = run(
            build.path(),
            &[&base[..], &["--force"]].concat(),
            &library_args(false),
        );
        assert_eq!(output.status.code(), Some(4), "{}", show(&output));
        assert!(String::from_utf8_lossy(&output.stdout).contains("amdhip64.lib"));

        // Verified in the second round: the patch carries the flags that verified, the second
        // round's libraries included, which the first answer alone lacks.
        let log = cut_log(build.path());
        let diagnosed = run(
            build.path(),
            &["diagnose", "--format", "json", &log, "--verify"],
            &library_args(true),
        );
        let verified = strings(&json(&diagnosed)["verify"]["flags"]);
        let output = run(
            build.path(),
            &["patch", "extension.py", "--from", &log, "--verify"],
            &library_args(true),
        );
        assert_eq!(output.status.code(), Some(0), "{}", show(&output));
        let diff = String::from_utf8_lossy(&output.stdout).into_owned();
        let want: BTreeSet<String> = verified
            .iter()
            .filter(|f| !f.starts_with('/'))
            .cloned()
            .collect();
        assert_eq!(added_libraries(&diff), want, "{diff}");
        assert!(String::from_utf8_lossy(&output.stderr).contains("VERIFIED in round 2"));
        let unverified = run(
            build.path(),
            &["patch", "extension.py", "--from", &log],
            &library_args(true),
        );
        assert_eq!(unverified.status.code(), Some(0), "{}", show(&unverified));
        let unverified = added_libraries(&String::from_utf8_lossy(&unverified.stdout));
        assert!(
            !unverified.contains("msvcrt.lib") && want.contains("msvcrt.lib"),
            "{unverified:?}"
        );
        // The same from a saved diagnosis (its log is still there), and in diagnose's preview.
        std::fs::write(build.path().join("saved.json"), &diagnosed.stdout).unwrap();
        let output = run(
            build.path(),
            &["patch", "extension.py", "--from", "saved.json", "--verify"],
            &library_args(true),
        );
        assert_eq!(output.status.code(), Some(0), "{}", show(&output));
        assert_eq!(
            added_libraries(&String::from_utf8_lossy(&output.stdout)),
            want
        );
        let preview = run(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                &log,
                "--verify",
                "--patch",
                "extension.py",
            ],
            &library_args(true),
        );
        let preview = json(&preview);
        assert_eq!(
            added_libraries(preview["patch"]["diff"].as_str().unwrap()),
            want
        );
        // And --apply applies exactly that.
        let output = run(
            build.path(),
            &[
                "patch",
                "extension.py",
                "--from",
                &log,
                "--verify",
                "--apply",
                "--no-backup",
            ],
            &library_args(true),
        );
        assert_eq!(output.status.code(), Some(0), "{}", show(&output));
        let patched = std::fs::read_to_string(&extension).unwrap();
        assert!(patched.contains("\"msvcrt.lib\""), "{patched}");
        untouched.check("patch");
    }

    /// The stand-in linker, built for Linux with clang-14, as `DIR/bin/lld-link`.
    fn standin(dir: &Path) -> PathBuf {
        let program = dir.join("bin").join("lld-link");
        std::fs::create_dir_all(program.parent().unwrap()).unwrap();
        let source = common::root().join("tests/verify/standin_linker.c");
        common::run(
            "clang-14",
            &["-O1", "-o", &text(&program), &text(&source)],
            dir,
        );
        program
    }

    fn process_exists(pid: &str) -> bool {
        // A zombie has exited; init reaps it.
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Ok(stat) => !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z'),
            Err(_) => false,
        }
    }

    #[test]
    fn the_time_limit_ends_the_whole_process_tree() {
        let build = build_dir("lnkfix-verify-");
        standin(build.path());
        std::fs::write(build.path().join("app.obj"), "hang\n").unwrap();
        let log = ninja_log(
            "x.dll",
            "bin/lld-link /dll /out:x.dll app.obj",
            "lld-link: error: undefined symbol: hipMalloc\n>>> referenced by app.obj:(f)\n\n",
        );
        std::fs::write(build.path().join("build.log"), log).unwrap();
        let output = lnkfix(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                "build.log",
                "--verify",
                "--verify-timeout",
                "2",
                "--allow-linker",
                "bin/lld-link",
            ],
        );
        assert_eq!(output.status.code(), Some(4), "{}", show(&output));
        let v = &json(&output)["verify"];
        assert_eq!(v["ok"], false);
        assert_eq!(v["timed_out"], true, "{v:#}");
        assert_eq!(v["exit_code"], Value::Null);
        assert_eq!(v["remaining"][0]["kind"], "time-limit");
        // The child the stand-in started was ended with it.
        let pid = std::fs::read_to_string(build.path().join("app.obj.pid"))
            .expect("the child wrote its pid");
        let pid = pid.trim();
        let mut alive = process_exists(pid);
        for _ in 0..50 {
            if !alive {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(100));
            alive = process_exists(pid);
        }
        assert!(
            !alive,
            "process {pid}, started by the timed-out link, still runs"
        );
        assert!(!build.path().join("x.dll").exists());
    }

    #[test]
    fn output_is_bounded_and_programs_are_checked() {
        let build = build_dir("lnkfix-verify-");
        standin(build.path());
        std::fs::write(build.path().join("app.obj"), "flood 20000000\n").unwrap();
        let log = ninja_log(
            "x.dll",
            "bin/lld-link /dll /out:x.dll app.obj",
            "lld-link: error: undefined symbol: hipMalloc\n>>> referenced by app.obj:(f)\n\n",
        );
        std::fs::write(build.path().join("build.log"), &log).unwrap();
        let output = lnkfix(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                "build.log",
                "--verify",
                "--verify-rounds",
                "1",
                "--allow-linker",
                "bin/lld-link",
            ],
        );
        assert_eq!(output.status.code(), Some(4), "{}", show(&output));
        let v = &json(&output)["verify"];
        let kept = v["output"].as_str().unwrap().len() as u64;
        let discarded = v["output_discarded_bytes"].as_u64().unwrap();
        assert!(kept <= 8 << 20, "{kept}");
        assert!(kept + discarded >= 20_000_000, "{kept} + {discarded}");

        // A program that is not a known linker or driver is not run...
        std::fs::write(build.path().join("marker.py"), "").unwrap();
        let log = ninja_log(
            "x.dll",
            "python3 -c \"open('ran', 'w')\" /out:x.dll",
            "lld-link: error: undefined symbol: hipMalloc\n\n",
        );
        std::fs::write(build.path().join("other.log"), log).unwrap();
        let output = lnkfix(
            build.path(),
            &["diagnose", "--format", "json", "other.log", "--verify"],
        );
        assert_eq!(output.status.code(), Some(4), "{}", show(&output));
        let v = &json(&output)["verify"];
        assert_eq!(v["rounds"], 0);
        let error = v["error"].as_str().unwrap();
        assert!(error.starts_with("no failed link command found: other.log line 3, under ninja's `FAILED: x.dll`: `python3` is not a linker or compiler driver lnkfix re-runs"), "{error}");
        assert!(!build.path().join("ran").exists());
        let stdout = String::from_utf8_lossy(
            &lnkfix(
                build.path(),
                &["diagnose", "--color", "never", "other.log", "--verify"],
            )
            .stdout,
        )
        .into_owned();
        assert!(
            stdout.contains("NOT VERIFIED: no link was run: no failed link command found"),
            "{stdout}"
        );
        // ...unless the user names it, and even then not through a shell.
        std::fs::write(
            build.path().join("app.obj"),
            "need hipMalloc amdhip64.lib\n",
        )
        .unwrap();
        std::fs::copy(
            build.path().join("bin/lld-link"),
            build.path().join("bin/my-linker"),
        )
        .unwrap();
        let hip = text(&fixture("hip"));
        let output = lnkfix(
            build.path(),
            &[
                "diagnose",
                "--format",
                "json",
                "other.log",
                "--verify",
                "--hip-path",
                &hip,
                "--link-command",
                "cmd.exe /C \"cd . && bin/my-linker /out:x.dll app.obj\"",
            ],
        );
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let v = &json(&output)["verify"];
        assert_eq!(v["ok"], true, "{v:#}");
        assert_eq!(v["found"], "--link-command");
        assert_eq!(strings(&v["command"])[0], "bin/my-linker");
        assert!(!build.path().join("x.dll").exists());
    }

    #[test]
    fn a_log_from_standard_input() {
        let build = build_dir("lnkfix-verify-");
        let log = cut_log(build.path());
        let mut child = Command::new(exe())
            .current_dir(build.path())
            .args(["diagnose", "--format", "json", "-", "--verify"])
            .args(library_args(true))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let text = std::fs::read(build.path().join(&log)).unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), &text).unwrap();
        let output = child.wait_with_output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let json = json(&output);
        assert_eq!(json["log"], "-");
        assert_eq!(json["verify"]["ok"], true);
        assert_eq!(
            json["verify"]["found"],
            "- line 3, under ninja's `FAILED: link/md.dll`"
        );
    }
}

#[cfg(windows)]
mod windows {
    //! The Windows build under Wine: the stand-in linker (`tests/verify/standin_linker.c`,
    //! built by `.ci/windows.sh` with mingw-w64 into `target/prepared/verify/lld-link.exe`) run by
    //! `lnkfix.exe diagnose --verify` from paths with spaces and non-ASCII letters.
    use super::*;

    fn standin_exe() -> PathBuf {
        let exe = common::prepared().join("verify").join("lld-link.exe");
        assert!(
            exe.is_file(),
            "{} is missing: .ci/windows.sh builds it on Linux (x86_64-w64-mingw32-gcc -municode tests/verify/standin_linker.c)",
            exe.display()
        );
        exe
    }

    /// A build directory under a path with a space and non-ASCII letters: `bin tools\lld-link.exe`,
    /// `obj dir\app.obj` (the stand-in's object: the symbols and where they are).
    fn build_dir() -> tempfile::TempDir {
        let dir = tempfile::Builder::new()
            .prefix("lnkfix Jörg verify ")
            .tempdir()
            .unwrap();
        std::fs::create_dir_all(dir.path().join("bin tools")).unwrap();
        std::fs::copy(standin_exe(), dir.path().join(r"bin tools\lld-link.exe")).unwrap();
        std::fs::create_dir_all(dir.path().join("obj dir")).unwrap();
        std::fs::write(
            dir.path().join(r"obj dir\app.obj"),
            "need __imp_CreateFileW kernel32.Lib\nneed hipMalloc amdhip64.lib\n",
        )
        .unwrap();
        dir
    }

    const LINKER_OUTPUT: &str = "lld-link: error: undefined symbol: __declspec(dllimport) CreateFileW\n>>> referenced by obj dir\\app.obj:(win_calls)\n\nlld-link: error: undefined symbol: hipMalloc\n>>> referenced by obj dir\\app.obj:(hip_run)\n\n";

    fn library_args(with_hip: bool) -> Vec<String> {
        // Absolute with its drive (`Z:\...` under Wine): lnkfix runs on the scratch directory's.
        let fixtures = std::path::absolute(common::fixtures()).unwrap();
        let mut args = vec![
            "--lib-dir".to_string(),
            text(&fixtures.join(r"kits\Lib\10.0.26100.0\um\x64")),
        ];
        if with_hip {
            args.extend(["--hip-path".into(), text(&fixtures.join("hip"))]);
        }
        args
    }

    fn verify(dir: &Path, log: &str, with_hip: bool) -> (Output, Value) {
        // The stand-in lies in the build directory, where only an allowed linker runs.
        let standin = text(&dir.join(r"bin tools\lld-link.exe"));
        let mut args = vec![
            "diagnose",
            "--format",
            "json",
            log,
            "--verify",
            "--allow-linker",
            &standin,
        ];
        let libraries = library_args(with_hip);
        args.extend(libraries.iter().map(String::as_str));
        let output = lnkfix(dir, &args);
        let json = json(&output);
        (output, json)
    }

    /// The arguments the stand-in printed (`arg: X` lines).
    fn received(output: &str, prefix: &str) -> Vec<String> {
        output
            .lines()
            .filter_map(|l| l.strip_prefix(prefix))
            .map(str::to_string)
            .collect()
    }

    #[test]
    fn the_standin_links_with_the_flags_and_receives_them_intact() {
        let build = build_dir();
        let untouched = Untouched::create(build.path().join(r"out dir\ext.dll"));
        let command = format!(
            r#""{}" /nologo /dll "/out:out dir\ext.dll" "/pdb:out dir\ext.pdb" "obj dir\app.obj""#,
            text(&build.path().join(r"bin tools\lld-link.exe"))
        );
        std::fs::write(
            build.path().join("build.log"),
            ninja_log(r"out dir\ext.dll", &command, LINKER_OUTPUT),
        )
        .unwrap();
        let before = listing(build.path());
        let (output, json) = verify(build.path(), "build.log", true);
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let v = &json["verify"];
        assert_eq!(v["ok"], true, "{v:#}");
        let flags = strings(&json["link_flags"]);
        assert!(
            flags.iter().any(|f| f.eq_ignore_ascii_case("kernel32.lib")),
            "{flags:?}"
        );
        assert!(flags.contains(&"amdhip64.lib".to_string()), "{flags:?}");
        // What CreateProcess delivered is what lnkfix says it ran, word for word.
        let ran = strings(&v["command"]);
        assert_eq!(received(v["output"].as_str().unwrap(), "arg: "), ran[1..]);
        assert!(ran.contains(&r"obj dir\app.obj".to_string()), "{ran:?}");
        let redirected: Vec<&str> = v["redirected"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["file"].as_str().unwrap())
            .collect();
        assert_eq!(redirected, [r"out dir\ext.dll", r"out dir\ext.pdb"]);
        untouched.check("stand-in");
        assert_eq!(
            listing(build.path()),
            before,
            "files were added to the build"
        );
    }

    #[test]
    fn the_standin_without_the_hip_directory_does_not_verify() {
        let build = build_dir();
        let untouched = Untouched::create(build.path().join(r"out dir\ext.dll"));
        let command = r#""bin tools\lld-link.exe" /dll "/out:out dir\ext.dll" "obj dir\app.obj""#;
        std::fs::write(
            build.path().join("build.log"),
            ninja_log(r"out dir\ext.dll", command, LINKER_OUTPUT),
        )
        .unwrap();
        let (output, json) = verify(build.path(), "build.log", false);
        assert_eq!(output.status.code(), Some(4), "{}", show(&output));
        let v = &json["verify"];
        assert_eq!(v["ok"], false, "{v:#}");
        assert_eq!(v["exit_code"], 1);
        assert!(
            v["remaining"][0]["text"]
                .as_str()
                .unwrap()
                .contains("could not open 'amdhip64.lib'"),
            "{v:#}"
        );
        untouched.check("stand-in, not verified");
    }

    #[test]
    fn the_standin_reads_a_rewritten_response_file() {
        let build = build_dir();
        let untouched = Untouched::create(build.path().join(r"out dir\ext.dll"));
        std::fs::create_dir_all(build.path().join("rsp dir")).unwrap();
        std::fs::write(
            build.path().join(r"rsp dir\link.rsp"),
            "/dll \"/out:out dir\\ext.dll\"\r\n\"obj dir\\app.obj\"\r\n",
        )
        .unwrap();
        let command = r#""bin tools\lld-link.exe" /nologo "@rsp dir\link.rsp""#;
        std::fs::write(
            build.path().join("build.log"),
            ninja_log(r"out dir\ext.dll", command, LINKER_OUTPUT),
        )
        .unwrap();
        let before = listing(build.path());
        let (output, json) = verify(build.path(), "build.log", true);
        assert_eq!(output.status.code(), Some(1), "{}", show(&output));
        let v = &json["verify"];
        assert_eq!(v["ok"], true, "{v:#}");
        let written = &v["response_files"][0];
        assert_eq!(written["replaces"], r"@rsp dir\link.rsp");
        let read = received(v["output"].as_str().unwrap(), "rsp-arg: ");
        assert_eq!(read, strings(&written["arguments"]));
        assert!(
            read[1].starts_with("/out:") && !read[1].contains("out dir"),
            "{read:?}"
        );
        untouched.check("stand-in, response file");
        assert_eq!(listing(build.path()), before);
    }
}
