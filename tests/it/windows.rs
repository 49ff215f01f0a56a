//! Windows behaviour, checked where it can only be checked: in a Windows
//! process. `.ci/windows.sh` builds this file for `x86_64-pc-windows-gnu` and runs it under Wine, with
//! the artefacts that need Linux tools prepared beforehand (see CONTRIBUTING.md, "Windows"). Elsewhere the file
//! compiles to nothing.
//!
//! - `LIB` as vcvars writes it, `HIP_PATH` with its trailing backslash, spaces, drive letters and
//!   `\\?\` prefixes;
//! - case-insensitive lookup that answers with the names as they are on disk;
//! - a UTF-16LE log with BOM, as PowerShell's `>` writes it, naming `C:\Users\Jörg\...`;
//! - no colour escapes when stdout is a file or a pipe;
//! - `patch --apply`: the rename over the existing file, CRLF kept, sharing violations;
//! - the same answers as the Linux binary for every log of `tests/logs` and generated lld-link log.
//!
//! - the index cache in `%LOCALAPPDATA%`.
//!
//! Every start of `lnkfix.exe` goes through `common::start_retrying`: Wine's `CreateProcess` fails
//! now and then with ERROR_INTERNAL_ERROR on a loaded machine, or the started process exits with
//! STATUS_DLL_INIT_FAILED from the loader, both before the program runs.
#![cfg(windows)]

use crate::common;

use common::{SpawnRetrying, StartRetrying};

use std::collections::BTreeMap;
use std::fs::{self, File};
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use lnkfix::index::discover::{discover, find_library, native_path, Discovered, SearchOptions};
use lnkfix::index::{Index, IndexOptions, Machine};

/// The exe under test: `LNKFIX_EXE` (`.ci/windows.sh` points it at the release `lnkfix.exe`), else
/// the one cargo built with these tests.
fn exe() -> PathBuf {
    std::env::var_os("LNKFIX_EXE")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_lnkfix")))
}

fn lnkfix(args: &[&str]) -> Command {
    let mut command = Command::new(exe());
    command.args(args).env_remove("NO_COLOR");
    command
}

fn show(output: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// A scratch directory whose name has a space and non-ASCII letters, under the Windows temporary
/// directory (under Wine: `C:\users\<user>\AppData\Local\Temp`, a drive-letter path).
fn scratch() -> tempfile::TempDir {
    let dir = tempfile::Builder::new()
        .prefix("lnkfix Jörg ")
        .tempdir()
        .expect("tempdir");
    let text = dir.path().to_str().expect("utf-8");
    assert!(
        text.as_bytes()[1] == b':' && text.contains('\\'),
        "not a Windows path: {text}"
    );
    dir
}

/// A machine laid out as the Visual Studio Build Tools, Windows SDK and HIP SDK installers lay it
/// out, with their mixed-case names. The SDK import libraries are the stand-ins `build.sh` made
/// (real archives); the others are empty.
struct Layout {
    vc: PathBuf,
    ucrt: PathBuf,
    um: PathBuf,
    hip: PathBuf,
}

fn machine(root: &Path) -> Layout {
    let vc = root
        .join(r"Program Files\Microsoft Visual Studio\2022\BuildTools\VC\Tools\MSVC\14.44.35207");
    let kits = root.join(r"Program Files (x86)\Windows Kits\10\Lib\10.0.26100.0");
    let hip = root.join(r"Program Files\AMD\ROCm\6.4");
    let m = Layout {
        vc: vc.join(r"lib\x64"),
        ucrt: kits.join(r"ucrt\x64"),
        um: kits.join(r"um\x64"),
        hip,
    };
    for dir in [&m.vc, &m.ucrt, &m.um, &m.hip.join("lib")] {
        fs::create_dir_all(dir).expect("mkdir");
    }
    for (dir, name) in [
        (&m.vc, "msvcrt.lib"),
        (&m.vc, "libcmt.lib"),
        (&m.ucrt, "ucrt.lib"),
        (&m.hip.join("lib"), "amdhip64.lib"),
    ] {
        fs::write(dir.join(name), b"").expect("write");
    }
    let sdk = common::fixtures().join(r"kits\Lib\10.0.26100.0\um\x64");
    for name in ["kernel32.Lib", "AdvAPI32.Lib", "User32.Lib"] {
        fs::copy(sdk.join(name), m.um.join(name)).expect("copy a stand-in SDK library");
    }
    m
}

fn text(path: &Path) -> String {
    path.to_str().expect("utf-8 path").to_string()
}

fn env_of(pairs: &[(&str, String)]) -> impl Fn(&str) -> Option<String> {
    let map: BTreeMap<String, String> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    move |name: &str| map.get(name).cloned()
}

fn origins_and_dirs(found: &Discovered) -> Vec<(String, PathBuf)> {
    found
        .dirs
        .iter()
        .map(|d| (d.origin.clone(), d.path.clone()))
        .collect()
}

/// vcvars64.bat writes `LIB` as `dir;dir;...;` (a trailing `;`); hand edits add empty entries,
/// quotes around paths with spaces, trailing backslashes, a lower-case drive letter, `/`.
#[test]
fn lib_as_vcvars_sets_it() {
    let dir = scratch();
    let m = machine(dir.path());
    let lower_drive = {
        let t = text(&m.ucrt);
        format!("{}{}", t[..1].to_ascii_lowercase(), &t[1..])
    };
    let lib = format!(
        "\"{}\";{};;{}\\;{};",
        text(&m.vc),
        lower_drive,
        text(&m.um),
        text(&m.hip.join("lib")).replace('\\', "/"),
    );
    let found = discover(&SearchOptions::default(), &env_of(&[("LIB", lib.clone())]));
    assert!(found.warnings.is_empty(), "{lib}: {:?}", found.warnings);
    let dirs = origins_and_dirs(&found);
    let want = [&m.vc, &m.ucrt, &m.um, &m.hip.join("lib")];
    assert_eq!(dirs.len(), want.len(), "{lib}: {dirs:?}");
    for ((origin, got), want) in dirs.iter().zip(want) {
        assert_eq!(origin, "LIB");
        assert_eq!(got, want, "{lib}");
    }
    let names: Vec<String> = found
        .files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        [
            "libcmt.lib",
            "msvcrt.lib",
            "ucrt.lib",
            "AdvAPI32.Lib",
            "kernel32.Lib",
            "User32.Lib",
            "amdhip64.lib"
        ]
    );
    // The files open: the index reads the SDK stand-ins through these paths (spaces and all).
    let options = IndexOptions {
        arch: Machine::X64,
        ..IndexOptions::default()
    };
    let (index, _) = Index::build(&found.files, &options);
    let create = &index.lookup("__imp_CreateFileW")[0];
    assert_eq!(create.library, m.um.join("kernel32.Lib"));
    assert_eq!(create.dll.as_deref(), Some("KERNEL32.dll"));
}

/// The HIP SDK installer sets `HIP_PATH=C:\Program Files\AMD\ROCm\6.4\`: its `lib` is searched,
/// from the environment and from `--hip-path`, quoted or not.
#[test]
fn hip_path_with_trailing_backslash() {
    let dir = scratch();
    let m = machine(dir.path());
    let hip_path = format!("{}\\", text(&m.hip));
    let found = discover(
        &SearchOptions::default(),
        &env_of(&[("HIP_PATH", hip_path.clone())]),
    );
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    assert_eq!(
        origins_and_dirs(&found),
        [("HIP_PATH".to_string(), m.hip.join("lib"))]
    );
    for given in [hip_path.clone(), format!("\"{hip_path}\"")] {
        let options = SearchOptions {
            hip_path: Some(PathBuf::from(&given)),
            ..SearchOptions::default()
        };
        let found = discover(&options, &|_: &str| None);
        assert!(found.warnings.is_empty(), "{given}: {:?}", found.warnings);
        assert_eq!(found.files, [m.hip.join(r"lib\amdhip64.lib")], "{given}");
    }
}

/// Drive roots keep their separator (`C:` alone is the current directory on drive C); `\\?\`
/// paths, with any case, are searched and answer with the names on disk.
#[test]
fn drive_letters_and_verbatim_prefixes() {
    assert_eq!(native_path(r"C:\"), PathBuf::from(r"C:\"));
    assert_eq!(native_path(r"C:\\"), PathBuf::from(r"C:\"));
    assert_eq!(native_path(r#""D:\""#), PathBuf::from(r"D:\"));
    assert_eq!(
        native_path(r#""C:\Program Files\AMD\ROCm\6.4\""#),
        PathBuf::from(r"C:\Program Files\AMD\ROCm\6.4")
    );
    assert_eq!(native_path(r"\\?\C:\x\"), PathBuf::from(r"\\?\C:\x"));

    let dir = scratch();
    let m = machine(dir.path());
    let verbatim = format!(r"\\?\{}", text(&m.um));
    let shouted = format!(r"\\?\{}", text(&m.um).to_uppercase());
    for given in [verbatim.clone(), shouted.clone(), format!("{shouted}\\")] {
        let found = discover(
            &SearchOptions::default(),
            &env_of(&[("LIB", given.clone())]),
        );
        assert!(found.warnings.is_empty(), "{given}: {:?}", found.warnings);
        assert_eq!(found.dirs.len(), 1, "{given}");
        let got = text(&found.dirs[0].path);
        assert_eq!(got, verbatim, "{given}: the directory as spelled on disk");
        let kernel32 = find_library(&found.dirs, "KERNEL32").expect("kernel32 found");
        assert_eq!(text(&kernel32), format!(r"{verbatim}\kernel32.Lib"));
        assert!(kernel32.is_file());
    }
    // A library named by a full path, in another spelling, comes back as it is on disk.
    let named = text(&m.um.join("ADVAPI32.LIB")).to_lowercase();
    let found = find_library(&[], &format!("\"{named}\"")).expect("found by path");
    assert_eq!(found, m.um.join("AdvAPI32.Lib"));
    assert_eq!(text(&found), text(&m.um.join("AdvAPI32.Lib")));
    // The root of a drive is searched as the root (empty here: no library files in C:\).
    let found = discover(
        &SearchOptions::default(),
        &env_of(&[("LIB", r"C:\;".to_string())]),
    );
    assert_eq!(
        origins_and_dirs(&found),
        [("LIB".to_string(), PathBuf::from(r"C:\"))]
    );
}

/// NTFS ignores case: `ADVAPI32.LIB` opens `AdvAPI32.Lib`. What lnkfix returns (and would put in
/// `link_flags` and `/LIBPATH:`) is the name as the SDK spells it on disk, and directories given in
/// another case are reported as they are on disk.
#[test]
fn case_insensitive_lookup_answers_with_names_on_disk() {
    let dir = scratch();
    let m = machine(dir.path());
    let lib = format!(
        "{};{}",
        text(&m.um).to_uppercase(),
        text(&m.vc).to_lowercase()
    );
    let found = discover(&SearchOptions::default(), &env_of(&[("LIB", lib)]));
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    let dirs: Vec<String> = found.dirs.iter().map(|d| text(&d.path)).collect();
    assert_eq!(dirs, [text(&m.um), text(&m.vc)]);
    for (asked, on_disk) in [
        ("ADVAPI32.LIB", "AdvAPI32.Lib"),
        ("advapi32", "AdvAPI32.Lib"),
        ("user32.lib", "User32.Lib"),
        ("\"KERNEL32.lib\"", "kernel32.Lib"),
        ("MSVCRT.LIB", "msvcrt.lib"),
    ] {
        let got = find_library(&found.dirs, asked).unwrap_or_else(|| panic!("{asked}"));
        assert_eq!(
            got.file_name().unwrap().to_str(),
            Some(on_disk),
            "{asked}: {}",
            got.display()
        );
    }
    assert_eq!(find_library(&found.dirs, "missing.lib"), None);
    let names: Vec<String> = found
        .files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert!(names.contains(&"AdvAPI32.Lib".to_string()), "{names:?}");
}

/// Through the CLI, with LIB as vcvars sets it (lower-cased, trailing `;`): `link_flags` names the
/// library exactly as it is on disk, with no /LIBPATH (its directory is on LIB), and the index
/// cache lives under %LOCALAPPDATA%\lnkfix\cache.
#[test]
fn link_flags_use_names_on_disk_and_the_cache_lives_in_localappdata() {
    let dir = scratch();
    let m = machine(dir.path());
    let local = dir.path().join("AppData Local");
    fs::create_dir_all(&local).expect("mkdir");
    let log = dir.path().join("link.log");
    fs::write(
        &log,
        "a.obj : error LNK2019: unresolved external symbol __imp_RegOpenKeyExW referenced in function main\r\n",
    )
    .expect("write");
    let run = || {
        lnkfix(&["diagnose", "--format", "json", &text(&log)])
            .env("LIB", format!("{};", text(&m.um).to_lowercase()))
            .env("LOCALAPPDATA", text(&local))
            .env_remove("HIP_PATH")
            .env_remove("VCToolsInstallDir")
            .env_remove("WindowsSdkDir")
            .env_remove("UniversalCRTSdkDir")
            .output_retrying()
            .expect("run lnkfix")
    };
    for round in ["cold", "warm"] {
        let output = run();
        assert_eq!(output.status.code(), Some(1), "{round}: {}", show(&output));
        let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
        assert_eq!(
            json["link_flags"],
            serde_json::json!(["AdvAPI32.Lib"]),
            "{round}: {}",
            show(&output)
        );
        assert_eq!(json["symbols"][0]["provider"], "archive", "{round}");
    }
    let cache = local.join("lnkfix").join("cache");
    let entries = fs::read_dir(&cache).map(|d| d.count()).unwrap_or(0);
    assert!(entries > 0, "no cache entries in {}", cache.display());
}

/// What PowerShell 5's `link ... > build.log` leaves: UTF-16LE with a BOM and CRLF, paths under a
/// user name with an umlaut, other scripts in folder names. Read from a file whose own path is
/// non-ASCII and from stdin; the names come back intact in JSON and in the text report.
#[test]
fn utf16le_log_with_bom_and_non_ascii_paths() {
    let dir = scratch();
    let folder = dir.path().join("Jörg Müller проект 日本");
    fs::create_dir_all(&folder).expect("mkdir");
    let object = r"C:\Users\Jörg\Projekte\Größe\build\kernel.obj";
    let log = format!(
        "   Creating library C:\\Users\\Jörg\\Projekte\\Größe\\build\\ext.lib and object C:\\Users\\Jörg\\Projekte\\Größe\\build\\ext.exp\r\n\
         {object} : error LNK2019: unresolved external symbol hipMalloc referenced in function \"void __cdecl run(void)\" (?run@@YAXXZ)\r\n\
         {object} : error LNK2019: unresolved external symbol __imp_CreateFileW referenced in function \"void __cdecl run(void)\" (?run@@YAXXZ)\r\n\
         C:\\Users\\Jörg\\Projekte\\Größe\\build\\ext.dll : fatal error LNK1120: 2 unresolved externals\r\n"
    );
    let mut bytes = vec![0xFF, 0xFE];
    for unit in log.encode_utf16() {
        bytes.extend_from_slice(&unit.to_le_bytes());
    }
    let path = folder.join("build.log");
    fs::write(&path, &bytes).expect("write");
    let path_text = text(&path);

    let output = lnkfix(&["diagnose", "--format", "json", &path_text])
        .output_retrying()
        .expect("run lnkfix.exe");
    assert_eq!(output.status.code(), Some(1), "{}", show(&output));
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    assert_eq!(json["log"], path_text.as_str());
    assert_eq!(json["stats"]["encoding"], "utf16-le-bom");
    let symbols = json["symbols"].as_array().expect("symbols");
    let names: Vec<&str> = symbols
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["hipMalloc", "__imp_CreateFileW"]);
    for symbol in symbols {
        assert_eq!(symbol["references"][0]["object"], object, "{symbol}");
    }
    assert_eq!(json["counts"]["lnk1120"][0], 2);

    // The same bytes on stdin (`Get-Content build.log | lnkfix diagnose -` keeps them only with
    // -Encoding Byte, but `cmd /c "lnkfix diagnose - < build.log"` passes them as they are).
    let mut child = lnkfix(&["diagnose", "--format", "json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn_retrying()
        .expect("spawn");
    {
        use std::io::Write;
        child
            .stdin
            .take()
            .unwrap()
            .write_all(&bytes)
            .expect("stdin");
    }
    let piped = child.wait_with_output().expect("wait");
    let again: serde_json::Value = serde_json::from_slice(&piped.stdout).expect("json");
    assert_eq!(again["symbols"], json["symbols"], "{}", show(&piped));

    // The text report is UTF-8 (stdout is a pipe, not a console) with the path intact.
    let output = lnkfix(&["diagnose", &path_text])
        .output_retrying()
        .expect("run");
    let report = String::from_utf8(output.stdout.clone()).expect("the report is UTF-8");
    assert!(report.contains(object), "{}", show(&output));

    // An error names the non-ASCII path as given.
    let missing = text(&folder.join("fehlt.log"));
    let output = lnkfix(&["diagnose", &missing])
        .output_retrying()
        .expect("run");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr.clone()).expect("stderr is UTF-8");
    assert!(stderr.contains(&missing), "{stderr}");
}

const LINK_LOG: &str = "main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\r\n\
main.obj : error LNK2019: unresolved external symbol \"void __cdecl operator delete(void *,unsigned __int64)\" (??3@YAXPEAX_K@Z) referenced in function main\r\n\
out.dll : fatal error LNK1120: 2 unresolved externals\r\n";

/// `lnkfix diagnose build.log > report.txt` and `| more`: no escapes; `--color always` still colours
/// (the check is not vacuous).
#[test]
fn no_colour_escapes_when_redirected() {
    let dir = scratch();
    let log = dir.path().join("link.log");
    fs::write(&log, LINK_LOG).expect("write");
    let log = text(&log);
    let report = dir.path().join("report.txt");
    let status = lnkfix(&["diagnose", &log])
        .stdout(File::create(&report).expect("create"))
        .status_retrying()
        .expect("run");
    assert_eq!(status.code(), Some(1));
    let written = fs::read(&report).expect("read");
    assert!(!written.is_empty());
    assert!(!written.contains(&0x1b), "escape in a redirected report");

    let piped = lnkfix(&["diagnose", "--color", "auto", &log])
        .output_retrying()
        .expect("run");
    assert!(!piped.stdout.is_empty() && !piped.stdout.contains(&0x1b));
    assert!(!piped.stderr.contains(&0x1b));

    let forced = lnkfix(&["diagnose", "--color", "always", &log])
        .output_retrying()
        .expect("run");
    assert!(forced.stdout.contains(&0x1b));
}

/// tvm-ffi's extension.py as the wheel ships it: CRLF.
const EXTENSION_PY: &str = "import os\r\n\r\nIS_WINDOWS = os.name == \"nt\"\r\n\r\n\r\ndef _windows_argument(x):\r\n    return x\r\n\r\n\r\ndef _generate_ninja_build(name, with_cuda=False, with_hip=False):\r\n    if IS_WINDOWS:\r\n        default_ldflags = [\"/DLL\"]\r\n    else:\r\n        default_ldflags = [\"-shared\"]\r\n    return default_ldflags\r\n";

fn example_log() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/tvm-ffi-hip-lld-link.log"
    )
    .to_string()
}

fn extension_py(dir: &Path) -> PathBuf {
    let file = dir.join(r"site packages\tvm_ffi\cpp\extension.py");
    fs::create_dir_all(file.parent().unwrap()).expect("mkdir");
    fs::write(&file, EXTENSION_PY).expect("write");
    file
}

fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .expect("ls")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("lnkfix") || name.ends_with(".tmp"))
        .collect()
}

/// `patch --apply` replaces the existing file by renaming over it (`MoveFileExW` with
/// `MOVEFILE_REPLACE_EXISTING`): CRLF everywhere, a backup, no temporary left, messages without
/// `\\?\`; a second run changes nothing.
#[test]
fn patch_apply_renames_over_the_file_and_keeps_crlf() {
    let dir = scratch();
    let file = extension_py(dir.path());
    let file_text = text(&file);
    let output = lnkfix(&["patch", &file_text, "--from", &example_log(), "--apply"])
        .output_retrying()
        .expect("run");
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(&format!(
            "lnkfix: patched {file_text} (backup: {file_text}.orig)"
        )),
        "{stderr}"
    );
    assert!(!stderr.contains(r"\\?\"), "{stderr}");

    let patched = fs::read(&file).expect("read");
    assert!(patched.windows(12).any(|w| w == b"amdhip64.lib"));
    let lone_lf = patched
        .iter()
        .enumerate()
        .filter(|&(i, &b)| b == b'\n' && (i == 0 || patched[i - 1] != b'\r'))
        .count();
    assert_eq!(lone_lf, 0, "{}", String::from_utf8_lossy(&patched));
    assert_eq!(
        fs::read(format!("{file_text}.orig")).expect("backup"),
        EXTENSION_PY.as_bytes()
    );
    assert!(leftovers(file.parent().unwrap()).is_empty());

    // Again: nothing to do, nothing written.
    let output = lnkfix(&["patch", &file_text, "--from", &example_log(), "--apply"])
        .output_retrying()
        .expect("run");
    assert_eq!(output.status.code(), Some(0), "{}", show(&output));
    assert_eq!(fs::read(&file).expect("read"), patched);
}

/// Another program reads the file while it is patched (it opened it sharing delete access, as Rust,
/// .NET and Python's `open` do). Windows 10 on NTFS replaces it (std falls back to a POSIX-semantics
/// rename) and the reader keeps the old text whole; Wine 8, FAT and older Windows refuse the rename.
/// Either way nobody sees half a file: refused, the original, and no backup or temporary, remain.
#[test]
fn patch_apply_while_another_program_reads_the_file() {
    let dir = scratch();
    let file = extension_py(dir.path());
    let file_text = text(&file);
    let mut reader = File::open(&file).expect("open before the patch");
    let output = lnkfix(&["patch", &file_text, "--from", &example_log(), "--apply"])
        .output_retrying()
        .expect("run");
    let parent = file.parent().unwrap();
    let mut before = Vec::new();
    reader
        .read_to_end(&mut before)
        .expect("read the old handle");
    assert_eq!(
        before,
        EXTENSION_PY.as_bytes(),
        "the reader sees the old file whole"
    );
    drop(reader);
    match output.status.code() {
        Some(0) => {
            let patched = fs::read(&file).expect("read");
            assert!(patched.windows(12).any(|w| w == b"amdhip64.lib"));
            eprintln!("replaced while open (POSIX-semantics rename)");
        }
        Some(2) => {
            let stderr = String::from_utf8_lossy(&output.stderr);
            assert!(stderr.contains("cannot replace"), "{stderr}");
            assert_eq!(fs::read(&file).expect("read"), EXTENSION_PY.as_bytes());
            assert!(!parent.join("extension.py.orig").exists(), "stray backup");
            eprintln!(
                "refused while open: {}",
                stderr.lines().last().unwrap_or("")
            );
        }
        _ => panic!("{}", show(&output)),
    }
    assert!(leftovers(parent).is_empty(), "{:?}", leftovers(parent));
}

/// A file held open without `FILE_SHARE_DELETE` (as editors and the C runtime's `fopen` hold it)
/// cannot be replaced on Windows: lnkfix says so, and leaves the file, and no temporary file or
/// backup, behind.
#[test]
fn patch_apply_refuses_cleanly_when_the_file_is_locked() {
    use std::os::windows::fs::OpenOptionsExt;
    const FILE_SHARE_READ: u32 = 1;
    let dir = scratch();
    let file = extension_py(dir.path());
    let file_text = text(&file);
    let lock = fs::OpenOptions::new()
        .read(true)
        .share_mode(FILE_SHARE_READ)
        .open(&file)
        .expect("open without FILE_SHARE_DELETE");
    let output = lnkfix(&["patch", &file_text, "--from", &example_log(), "--apply"])
        .output_retrying()
        .expect("run");
    assert_eq!(output.status.code(), Some(2), "{}", show(&output));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains(&file_text), "{stderr}");
    drop(lock);
    assert_eq!(fs::read(&file).expect("read"), EXTENSION_PY.as_bytes());
    let parent = file.parent().unwrap();
    assert!(leftovers(parent).is_empty(), "{:?}", leftovers(parent));
    assert!(
        !parent.join("extension.py.orig").exists(),
        "a backup of a file that was not replaced"
    );
}

/// Item 4: for every log of `tests/logs` and every generated lld-link log, `lnkfix.exe diagnose` gives
/// the JSON (but the `log` path) and the text report that the Linux binary gave, and the same exit
/// code. `.ci/windows.sh` saved the Linux answers in `prepared()/linux-answers`.
#[test]
fn same_answers_as_the_linux_binary() {
    let answers = common::prepared().join("linux-answers");
    let examples = common::root().join(r"tests\logs\unresolved");
    let examples2 = common::root().join(r"tests\logs\failures\logs");
    let mut logs: Vec<(String, PathBuf)> = Vec::new();
    // The real failing links of every failure class: one link.log per case directory.
    let failures = common::failure_links();
    let mut cases: Vec<PathBuf> = fs::read_dir(failures)
        .unwrap_or_else(|e| panic!("{}: {e}", failures.display()))
        .map(|e| e.expect("entry").path())
        .filter(|p| p.join("link.log").is_file())
        .collect();
    cases.sort();
    // Diagnosed from inside the case directory (`link.log`), as .ci/windows.sh does on Linux:
    // the objects the log names are found beside it, under the same relative names.
    let mut in_dirs: Vec<(String, PathBuf)> = Vec::new();
    for case in cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        in_dirs.push((format!("failures-{name}"), case));
    }
    for (group, dir) in [
        ("examples", examples),
        ("examples2", examples2),
        ("fixtures", common::fixtures().join("logs")),
    ] {
        let mut found: Vec<PathBuf> = fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        found.sort();
        for path in found {
            let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
            logs.push((format!("{group}-{stem}"), path));
        }
    }
    logs.extend(in_dirs.iter().map(|(l, d)| (l.clone(), d.join("link.log"))));
    assert!(logs.len() >= 60, "only {} logs", logs.len());
    let mut failures = Vec::new();
    let mut compared = 0;
    for (label, path) in &logs {
        let saved = |ext: &str| {
            let file = answers.join(format!("{label}.{ext}"));
            fs::read_to_string(&file).unwrap_or_else(|e| {
                panic!(
                    "{}: {e}; .ci/windows.sh saves the Linux binary's answers there",
                    file.display()
                )
            })
        };
        let dir = in_dirs.iter().find(|(l, _)| l == label).map(|(_, d)| d);
        let path = if dir.is_some() {
            "link.log".to_string()
        } else {
            text(path)
        };
        let run = |args: &[&str]| {
            let mut command = lnkfix(args);
            // As the Linux answers were made: no Python interpreter asked.
            command.env("LNKFIX_NO_PYTHON", "1");
            if let Some(dir) = dir {
                command.current_dir(dir);
            }
            command.output_retrying().expect("run")
        };
        let json = run(&["diagnose", "--format", "json", &path]);
        let report = run(&["diagnose", "--color", "never", &path]);
        let code = format!("{}", json.status.code().unwrap_or(-1));
        if code != saved("code").trim() {
            failures.push(format!(
                "{label}: exit {code}, Linux {}",
                saved("code").trim()
            ));
        }
        let strip = |mut value: serde_json::Value| {
            value.as_object_mut().map(|o| o.remove("log"));
            value
        };
        let windows: serde_json::Value = match serde_json::from_slice(&json.stdout) {
            Ok(value) => strip(value),
            Err(e) => {
                failures.push(format!("{label}: not JSON ({e}): {}", show(&json)));
                continue;
            }
        };
        let linux = strip(serde_json::from_str(&saved("json")).expect("saved JSON"));
        for key in linux.as_object().unwrap().keys() {
            if windows.get(key) != linux.get(key) {
                failures.push(format!(
                    "{label}: `{key}` differs\n  Linux:   {}\n  Windows: {}",
                    linux[key], windows[key]
                ));
            }
        }
        if windows.as_object().map(|o| o.len()) != linux.as_object().map(|o| o.len()) {
            failures.push(format!("{label}: different keys"));
        }
        if String::from_utf8_lossy(&report.stdout) != saved("txt") {
            failures.push(format!("{label}: the text report differs"));
        }
        compared += 1;
    }
    assert!(
        failures.is_empty(),
        "{} of {compared} logs differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
