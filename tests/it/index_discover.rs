//! Where to look: explicit options, the vcvars environment, the Visual Studio, Windows Kits and
//! xwin layouts, `--arch` variants, Windows-style paths, case-insensitive names and search order.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lnkfix::index::discover::{discover, find_library, SearchOptions};
use lnkfix::index::Machine;

/// A fake machine: VS toolset, Windows Kits, an xwin splat and a HIP SDK, with mixed-case names.
fn layout(test: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!("lnkfix-discover-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&root);
    let files = [
        "VS/VC/Tools/MSVC/14.44.35207/lib/x64/msvcrt.lib",
        "VS/VC/Tools/MSVC/14.44.35207/lib/x64/libcmt.lib",
        "VS/VC/Tools/MSVC/14.44.35207/lib/x86/msvcrt.lib",
        "VS/VC/Tools/MSVC/14.44.35207/lib/arm64/msvcrt.lib",
        "VS/VC/Tools/MSVC/14.44.35207/lib/spectre/x64/msvcrt.lib",
        "VS/VC/Tools/MSVC/14.44.35207/lib/onecore/x64/msvcrt.lib",
        "VS/VC/Tools/MSVC/14.29.30133/lib/x64/old.lib",
        "Kits/10/Lib/10.0.26100.0/um/x64/kernel32.Lib",
        "Kits/10/Lib/10.0.26100.0/um/x64/AdvAPI32.Lib",
        "Kits/10/Lib/10.0.26100.0/um/x64/notes.txt",
        "Kits/10/Lib/10.0.26100.0/ucrt/x64/ucrt.lib",
        "Kits/10/Lib/10.0.26100.0/um/x86/kernel32.Lib",
        "Kits/10/Lib/10.0.19041.0/um/x64/kernel32.Lib",
        "xwin/crt/lib/x86_64/msvcrt.lib",
        "xwin/sdk/lib/um/x86_64/kernel32.lib",
        "xwin/sdk/lib/ucrt/x86_64/ucrt.lib",
        "xwin/sdk/lib/um/aarch64/kernel32.lib",
        "ROCm/6.2/lib/amdhip64.lib",
        "ROCm/6.2/lib/hiprtc.lib",
        "ROCm/6.2/bin/amdhip64_6.dll",
        "extra/a.def",
        "extra/b.DLL",
        "extra/c.obj",
        "extra/d.pdb",
    ];
    for file in files {
        let path = root.join(file);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(&path, b"").expect("write");
    }
    root
}

fn names(files: &[PathBuf], root: &Path) -> Vec<String> {
    files
        .iter()
        .map(|f| slashes(f.strip_prefix(root).unwrap_or(f)))
        .collect()
}

/// A relative path with `/` between components, whatever the system's separator.
fn slashes(path: &Path) -> String {
    let text = path.to_string_lossy().into_owned();
    if cfg!(windows) {
        text.replace('\\', "/")
    } else {
        text
    }
}

fn no_env(_: &str) -> Option<String> {
    None
}

/// Windows form of a path under `root`: backslashes, as vcvars would write it.
fn windows_form(path: &Path) -> String {
    path.to_string_lossy().replace('/', "\\")
}

#[test]
fn explicit_options_in_order_with_layouts() {
    let root = layout("explicit_opt");
    let options = SearchOptions {
        lib_dirs: vec![root.join("extra")],
        hip_path: Some(PathBuf::from(format!(
            "{}\\",
            windows_form(&root.join("ROCm/6.2"))
        ))),
        vc_lib: Some(root.join("VS/VC/Tools/MSVC/14.44.35207")),
        sdk_lib: Some(root.join("Kits/10/Lib/10.0.26100.0")),
        globs: vec![],
        arch: Machine::X64,
        python: Default::default(),
        link_machine: None,
        arch_given: false,
    };
    let found = discover(&options, &no_env);
    assert!(found.warnings.is_empty(), "{:?}", found.warnings);
    let origins: Vec<&str> = found.dirs.iter().map(|d| d.origin.as_str()).collect();
    assert_eq!(
        origins,
        [
            "--lib-dir",
            "--hip-path",
            "--vc-lib",
            "--sdk-lib",
            "--sdk-lib"
        ]
    );
    assert_eq!(
        names(&found.files, &root),
        [
            "extra/a.def",
            "extra/b.DLL",
            "extra/c.obj",
            "extra/d.pdb",
            "ROCm/6.2/lib/amdhip64.lib",
            "ROCm/6.2/lib/hiprtc.lib",
            "VS/VC/Tools/MSVC/14.44.35207/lib/x64/libcmt.lib",
            "VS/VC/Tools/MSVC/14.44.35207/lib/x64/msvcrt.lib",
            "Kits/10/Lib/10.0.26100.0/um/x64/AdvAPI32.Lib",
            "Kits/10/Lib/10.0.26100.0/um/x64/kernel32.Lib",
            "Kits/10/Lib/10.0.26100.0/ucrt/x64/ucrt.lib",
        ]
    );
}

#[test]
fn arch_selects_the_layout_variant() {
    let root = layout("arch_selects");
    let rows = [
        (
            Machine::X86,
            "VS/VC/Tools/MSVC/14.44.35207/lib/x86",
            "Kits/10/Lib/10.0.26100.0/um/x86",
        ),
        (Machine::Arm64, "VS/VC/Tools/MSVC/14.44.35207/lib/arm64", ""),
    ];
    for (arch, vc, sdk) in rows {
        let options = SearchOptions {
            vc_lib: Some(root.join("VS/VC/Tools/MSVC/14.44.35207/lib")),
            sdk_lib: Some(root.join("Kits/10")),
            arch,
            ..SearchOptions::default()
        };
        let found = discover(&options, &no_env);
        let dirs: Vec<PathBuf> = found.dirs.iter().map(|d| d.path.clone()).collect();
        assert_eq!(dirs[0], root.join(vc), "{arch}");
        if sdk.is_empty() {
            assert_eq!(dirs.len(), 1, "{arch}: {dirs:?}");
            assert_eq!(found.warnings.len(), 1, "{arch}: {:?}", found.warnings);
        } else {
            // The Kits root resolves to the newest SDK version.
            assert_eq!(dirs[1], root.join(sdk), "{arch}");
        }
    }
    // Pointing at a variant (spectre) uses it; pointing at the MSVC folder picks the newest
    // toolset.
    let options = SearchOptions {
        vc_lib: Some(root.join("VS/VC/Tools/MSVC/14.44.35207/lib/spectre")),
        ..SearchOptions::default()
    };
    let found = discover(&options, &no_env);
    assert_eq!(
        found.dirs[0].path,
        root.join("VS/VC/Tools/MSVC/14.44.35207/lib/spectre/x64")
    );
    let options = SearchOptions {
        vc_lib: Some(root.join("VS/VC/Tools/MSVC")),
        ..SearchOptions::default()
    };
    let found = discover(&options, &no_env);
    assert_eq!(
        found.dirs[0].path,
        root.join("VS/VC/Tools/MSVC/14.44.35207/lib/x64")
    );
}

#[test]
fn xwin_splat_layout() {
    let root = layout("xwin_splat_l");
    for (arch, crt, um) in [
        (
            Machine::X64,
            "xwin/crt/lib/x86_64",
            "xwin/sdk/lib/um/x86_64",
        ),
        (Machine::Arm64, "", "xwin/sdk/lib/um/aarch64"),
    ] {
        let options = SearchOptions {
            vc_lib: Some(root.join("xwin/crt")),
            sdk_lib: Some(root.join("xwin/sdk")),
            arch,
            ..SearchOptions::default()
        };
        let found = discover(&options, &no_env);
        let dirs: Vec<PathBuf> = found.dirs.iter().map(|d| d.path.clone()).collect();
        if crt.is_empty() {
            assert_eq!(dirs, [root.join(um)], "{arch}");
        } else {
            assert_eq!(
                dirs,
                [
                    root.join(crt),
                    root.join(um),
                    root.join("xwin/sdk/lib/ucrt/x86_64")
                ],
                "{arch}"
            );
        }
    }
}

#[test]
fn environment_like_vcvars_sets_it() {
    let root = layout("environment_");
    let mut env = HashMap::new();
    // LIB in Windows form, upper-case components that differ from the disk, an empty entry.
    env.insert(
        "LIB",
        format!(
            "{};;{}\\",
            windows_form(&root.join("VS/VC/Tools/MSVC/14.44.35207/LIB/X64")),
            windows_form(&root.join("extra"))
        ),
    );
    env.insert(
        "HIP_PATH",
        format!("{}\\", windows_form(&root.join("ROCm/6.2"))),
    );
    env.insert(
        "VCToolsInstallDir",
        format!(
            "{}\\",
            windows_form(&root.join("VS/VC/Tools/MSVC/14.44.35207"))
        ),
    );
    env.insert(
        "WindowsSdkDir",
        format!("{}\\", windows_form(&root.join("Kits/10"))),
    );
    env.insert(
        "UniversalCRTSdkDir",
        format!("{}\\", windows_form(&root.join("Kits/10"))),
    );
    env.insert("WindowsSDKLibVersion", "10.0.19041.0\\".to_string());
    let lookup = |name: &str| env.get(name).cloned();
    let found = discover(&SearchOptions::default(), &lookup);
    let dirs: Vec<(String, String)> = found
        .dirs
        .iter()
        .map(|d| {
            let relative = d.path.strip_prefix(&root).unwrap_or(&d.path);
            (d.origin.clone(), slashes(relative))
        })
        .collect();
    let expected = [
        ("LIB", "VS/VC/Tools/MSVC/14.44.35207/lib/x64"),
        ("LIB", "extra"),
        ("HIP_PATH", "ROCm/6.2/lib"),
        ("WindowsSdkDir", "Kits/10/Lib/10.0.19041.0/um/x64"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    // VCToolsInstallDir repeats a LIB directory (not listed twice); 10.0.19041.0 has no ucrt.
    assert_eq!(dirs, expected);
    assert_eq!(found.warnings.len(), 1, "{:?}", found.warnings);
    assert!(
        found.warnings[0].starts_with("UniversalCRTSdkDir"),
        "{:?}",
        found.warnings
    );
}

#[test]
fn globs_and_missing_directories_warn() {
    let root = layout("globs_and_mi");
    let options = SearchOptions {
        lib_dirs: vec![root.join("nowhere")],
        globs: vec![
            format!("{}/ROCm/*/lib/*.LIB", root.display()),
            format!("{}/none/*.lib", root.display()),
            "[".to_string(),
        ],
        ..SearchOptions::default()
    };
    let found = discover(&options, &no_env);
    assert_eq!(
        names(&found.files, &root),
        ["ROCm/6.2/lib/amdhip64.lib", "ROCm/6.2/lib/hiprtc.lib"]
    );
    assert_eq!(found.warnings.len(), 3, "{:?}", found.warnings);
    assert!(found.warnings[0].contains("does not exist"));
    assert!(found.warnings[1].contains("matches nothing"));
    assert!(found.warnings[2].contains("invalid glob"));
}

#[test]
fn find_library_is_case_insensitive_and_first_wins() {
    let root = layout("find_library");
    let options = SearchOptions {
        sdk_lib: Some(root.join("Kits/10/Lib/10.0.26100.0")),
        lib_dirs: vec![root.join("xwin/sdk/lib/um/x86_64")],
        ..SearchOptions::default()
    };
    let found = discover(&options, &no_env);
    let rows = [
        ("KERNEL32", "xwin/sdk/lib/um/x86_64/kernel32.lib"),
        (
            "advapi32.lib",
            "Kits/10/Lib/10.0.26100.0/um/x64/AdvAPI32.Lib",
        ),
        ("\"UCRT.LIB\"", "Kits/10/Lib/10.0.26100.0/ucrt/x64/ucrt.lib"),
    ];
    for (name, want) in rows {
        assert_eq!(
            find_library(&found.dirs, name),
            Some(root.join(want)),
            "{name}"
        );
    }
    assert_eq!(find_library(&found.dirs, "missing"), None);
}
