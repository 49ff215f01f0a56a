use super::*;

const ROOT: &str = "cmake_minimum_required(VERSION 3.20)\r\nproject(demo CXX)\r\n\r\n# The library every tool shares.\r\nadd_library(core STATIC src/core.cpp)\r\n\r\nadd_executable(tool src/tool.cpp)  # the command-line tool\r\ntarget_link_libraries(tool PRIVATE core)\r\n\r\nif(BUILD_PLUGIN)\r\n\tadd_library(plugin SHARED\r\n\t\tsrc/plugin.cpp)\r\nendif()\r\nadd_subdirectory(tests)\r\n";

fn change(libs: &[&str]) -> BuildChange {
    BuildChange {
        libraries: libs.iter().map(|s| s.to_string()).collect(),
        ..BuildChange::default()
    }
}

fn edited(outcome: EditOutcome) -> FileEdit {
    match outcome {
        EditOutcome::Edited(edit) => edit,
        EditOutcome::AlreadyDone => panic!("expected an edit"),
    }
}

#[test]
fn adds_a_guarded_call_after_the_definition_keeping_crlf_and_comments() {
    let path = Path::new("CMakeLists.txt");
    let change = change(&["ShLwApi.Lib", "ws2_32.lib"]);
    let edit = edited(edit(path, ROOT.as_bytes(), Some("tool"), &change).unwrap());
    let after = String::from_utf8(edit.after.clone()).unwrap();
    assert!(after.contains("add_executable(tool src/tool.cpp)  # the command-line tool\r\nif(WIN32)\r\n  target_link_libraries(tool PRIVATE ShLwApi ws2_32)\r\nendif()\r\ntarget_link_libraries(tool PRIVATE core)\r\n"), "{after}");
    assert_eq!(
        after.replace(
            "if(WIN32)\r\n  target_link_libraries(tool PRIVATE ShLwApi ws2_32)\r\nendif()\r\n",
            ""
        ),
        ROOT
    );
    assert_eq!(edit.target.as_deref(), Some("tool"));
    // Applied twice: nothing more.
    assert_eq!(
        super::edit(path, &edit.after, Some("tool"), &change).unwrap(),
        EditOutcome::AlreadyDone
    );
    // The result still scans.
    assert!(cmake_lang::scan(&edit.after).is_ok());
}

#[test]
fn indents_inside_a_block_with_tabs_and_a_multi_line_definition() {
    let edit = edited(
        edit(
            Path::new("CMakeLists.txt"),
            ROOT.as_bytes(),
            Some("plugin"),
            &change(&["user32.lib"]),
        )
        .unwrap(),
    );
    let after = String::from_utf8(edit.after).unwrap();
    assert!(after.contains("\t\tsrc/plugin.cpp)\r\n\tif(WIN32)\r\n\t\ttarget_link_libraries(plugin PRIVATE user32)\r\n\tendif()\r\nendif()"), "{after}");
}

#[test]
fn several_linking_targets_without_a_name_are_refused_with_the_candidates() {
    let error = edit(
        Path::new("CMakeLists.txt"),
        ROOT.as_bytes(),
        None,
        &change(&["a.lib"]),
    )
    .unwrap_err();
    assert_eq!(
        error,
        BuildEditError::Ambiguous {
            path: PathBuf::from("CMakeLists.txt"),
            candidates: vec!["tool".into(), "plugin".into()]
        }
    );
    let error = edit(
        Path::new("CMakeLists.txt"),
        ROOT.as_bytes(),
        Some("nope"),
        &change(&["a.lib"]),
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("no target nope (it defines: tool, plugin)"),
        "{error}"
    );
}

#[test]
fn extends_a_guarded_call_and_follows_the_plain_signature() {
    let guarded = "add_executable(app main.c)\nif(WIN32)\n  target_link_libraries(app PRIVATE user32)\nendif()\n";
    let after = edited(
        edit(
            Path::new("CMakeLists.txt"),
            guarded.as_bytes(),
            None,
            &change(&["user32.lib", "ws2_32.lib"]),
        )
        .unwrap(),
    )
    .after;
    assert_eq!(
        String::from_utf8(after).unwrap(),
        guarded.replace("PRIVATE user32)", "PRIVATE user32 ws2_32)")
    );
    let plain = "add_executable(app main.c)\ntarget_link_libraries(app m)";
    let after = edited(
        edit(
            Path::new("CMakeLists.txt"),
            plain.as_bytes(),
            None,
            &change(&["ws2_32.lib"]),
        )
        .unwrap(),
    )
    .after;
    assert_eq!(
        String::from_utf8(after).unwrap(),
        "add_executable(app main.c)\nif(WIN32)\n  target_link_libraries(app ws2_32)\nendif()\ntarget_link_libraries(app m)"
    );
}

#[test]
fn directories_are_quoted_with_forward_slashes_and_semicolons_refused() {
    let source = b"add_executable(app main.c)\n";
    let mut wanted = change(&["amdhip64.lib"]);
    wanted.library_dirs = vec![r"C:\Program Files\AMD\ROCm\6.2\lib".into()];
    let after = edited(edit(Path::new("CMakeLists.txt"), source, None, &wanted).unwrap()).after;
    let after = String::from_utf8(after).unwrap();
    assert!(
        after.contains(
            "  target_link_directories(app PRIVATE \"C:/Program Files/AMD/ROCm/6.2/lib\")\n"
        ),
        "{after}"
    );
    assert_eq!(
        edit(Path::new("CMakeLists.txt"), after.as_bytes(), None, &wanted).unwrap(),
        EditOutcome::AlreadyDone
    );
    wanted.library_dirs = vec!["C:\\a;b".into()];
    assert!(matches!(
        edit(Path::new("CMakeLists.txt"), source, None, &wanted),
        Err(BuildEditError::Unsupported { .. })
    ));
}

#[test]
fn runtime_is_set_then_replaced_then_left() {
    let source = b"cmake_minimum_required(VERSION 3.10)\nadd_executable(app main.c)\n";
    let wanted = BuildChange {
        runtime: Some(Flavour::Static),
        ..BuildChange::default()
    };
    let edit1 = edited(edit(Path::new("CMakeLists.txt"), source, None, &wanted).unwrap());
    let after = String::from_utf8(edit1.after.clone()).unwrap();
    assert!(after.ends_with("add_executable(app main.c)\nset_property(TARGET app PROPERTY MSVC_RUNTIME_LIBRARY \"MultiThreaded$<$<CONFIG:Debug>:Debug>\")\n"), "{after}");
    assert!(
        edit1.description.contains("CMP0091"),
        "{}",
        edit1.description
    );
    assert_eq!(
        edit(Path::new("CMakeLists.txt"), &edit1.after, None, &wanted).unwrap(),
        EditOutcome::AlreadyDone
    );
    let dynamic = BuildChange {
        runtime: Some(Flavour::DynamicDebug),
        ..BuildChange::default()
    };
    let after =
        edited(edit(Path::new("CMakeLists.txt"), &edit1.after, None, &dynamic).unwrap()).after;
    assert!(String::from_utf8(after)
        .unwrap()
        .contains("MSVC_RUNTIME_LIBRARY \"MultiThreadedDebugDLL\")\n"));
}

#[test]
fn unparsable_files_name_the_line() {
    let error = edit(
        Path::new("CMakeLists.txt"),
        b"add_executable(app\n\"main.c)\n",
        None,
        &change(&["a.lib"]),
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("CMakeLists.txt: cannot read it as CMake: line 2"),
        "{error}"
    );
}

#[test]
fn finds_the_definition_in_a_subdirectory_and_the_target_in_build_ninja() {
    let dir = std::env::temp_dir().join(format!("lnkfix-cmake-locate-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let source = dir.join("src");
    let build = dir.join("build");
    std::fs::create_dir_all(source.join("tests")).unwrap();
    std::fs::create_dir_all(&build).unwrap();
    std::fs::write(source.join("CMakeLists.txt"), ROOT).unwrap();
    std::fs::write(
        source.join("tests/CMakeLists.txt"),
        "add_executable(unit_tests t.cpp)\n",
    )
    .unwrap();
    std::fs::write(
        build.join("CMakeCache.txt"),
        format!(
            "CMAKE_BUILD_TYPE:STRING=Release\nCMAKE_HOME_DIRECTORY:INTERNAL={}\n",
            source.display()
        ),
    )
    .unwrap();
    std::fs::write(
        build.join("build.ninja"),
        "build tool.exe: CXX_EXECUTABLE_LINKER__tool_Release t.obj | core.lib\nbuild tests/unit_tests.exe: CXX_EXECUTABLE_LINKER__unit_tests_Release u.obj\nbuild core.lib: CXX_STATIC_LIBRARY_LINKER__core_Release c.obj\n",
    )
    .unwrap();
    let log = format!(
        "ninja: Entering directory `{}'\nFAILED: tests/unit_tests.exe\n",
        build.display()
    );
    let input = LocateInput {
        log: &log,
        log_path: None,
        recognised: None,
        output: Some("tests/unit_tests.exe"),
        build_dir: None,
    };
    let place = locate(&input).unwrap().unwrap();
    assert_eq!(place.file, source.join("tests").join("CMakeLists.txt"));
    assert_eq!(place.target.as_deref(), Some("unit_tests"));
    assert_eq!(place.configuration.as_deref(), Some("Release"));
    let input = LocateInput {
        output: None,
        build_dir: Some(&build),
        ..input
    };
    assert!(matches!(
        locate(&input),
        Err(BuildEditError::Ambiguous { .. })
    ));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_visual_studio_generator_build_names_the_target_by_its_project() {
    let dir = std::env::temp_dir().join(format!("lnkfix-cmake-vs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("build")).unwrap();
    std::fs::write(dir.join("CMakeLists.txt"), ROOT).unwrap();
    std::fs::write(
        dir.join("build/CMakeCache.txt"),
        format!("CMAKE_HOME_DIRECTORY:INTERNAL={}\n", dir.display()),
    )
    .unwrap();
    let log = "tool.obj : error LNK2019: unresolved external symbol __imp_WSAStartup [C:\\b\\build\\tool.vcxproj]\n";
    let build = dir.join("build");
    let input = LocateInput {
        log,
        log_path: None,
        recognised: None,
        output: None,
        build_dir: Some(&build),
    };
    let place = locate(&input).unwrap().unwrap();
    assert_eq!(place.target.as_deref(), Some("tool"));
    assert_eq!(place.file, dir.join("CMakeLists.txt"));
    assert!(
        place
            .evidence
            .ends_with("the [x.vcxproj] of the failed link's lines"),
        "{}",
        place.evidence
    );
    // MSBuild's locate leaves a log recognised as CMake's to CMake: its projects are generated.
    let recognised = crate::read::build_system::Recognised {
        kind: BuildSystem::Cmake,
        line: 1,
        evidence: String::new(),
    };
    let input = LocateInput {
        recognised: Some(&recognised),
        ..input
    };
    assert_eq!(super::super::msbuild::locate(&input).unwrap(), None);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn no_second_guard_no_interface_extension_and_no_variable_names() {
    let inside = "if(WIN32)\n  add_executable(app main.c)\n  target_link_libraries(app INTERFACE iface)\nendif()\nfunction(make name)\n  add_executable(${name} x.c)\nendfunction()\n";
    let after = edited(
        edit(
            Path::new("CMakeLists.txt"),
            inside.as_bytes(),
            None,
            &change(&["ws2_32.lib"]),
        )
        .unwrap(),
    )
    .after;
    assert_eq!(
        String::from_utf8(after).unwrap(),
        inside.replace(
            "add_executable(app main.c)\n",
            "add_executable(app main.c)\n  target_link_libraries(app PRIVATE ws2_32)\n"
        )
    );
}

#[test]
fn the_subdirectory_search_survives_loops_broken_files_and_paths_outside() {
    let dir = std::env::temp_dir().join(format!("lnkfix-cmake-subdirs-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["src/broken", "src/good", "outside"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    let root = dir.join("src/CMakeLists.txt");
    std::fs::write(&root, "add_subdirectory(.)\nadd_subdirectory(broken)\nadd_subdirectory(../outside)\nadd_subdirectory(good)\n").unwrap();
    std::fs::write(dir.join("src/broken/CMakeLists.txt"), "add_executable(x\n").unwrap();
    std::fs::write(
        dir.join("outside/CMakeLists.txt"),
        "add_executable(far f.c)\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("src/good/CMakeLists.txt"),
        "add_executable(app a.c)\n",
    )
    .unwrap();
    assert_eq!(
        definition_file(&root, "app").unwrap(),
        Some(dir.join("src/./good/CMakeLists.txt").components().collect())
    );
    // Never a file outside the project's directory.
    let missing = definition_file(&root, "far");
    assert!(
        matches!(missing, Err(BuildEditError::Unparsable { ref path, .. }) if path.ends_with("broken/CMakeLists.txt")),
        "{missing:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn mutated_files_never_panic_and_an_edit_applied_twice_is_done() {
    let specials: &[&[u8]] = &[
        b"(",
        b")",
        b"\"",
        b"[[",
        b"]]",
        b"#",
        b"#[[",
        b"\\",
        b"\n",
        b"\r\n",
        b"if(WIN32)\n",
        b"endif()\n",
        b"${",
        b"\xFF",
    ];
    let mut wanted = change(&["ws2_32.lib", "ShLwApi.Lib"]);
    wanted.library_dirs = vec![r"C:\SDK\lib".into()];
    wanted.runtime = Some(Flavour::Static);
    let mut edited_count = 0;
    for (n, text) in
        crate::fix::patch::build_file::mutations::mutations(ROOT.as_bytes(), specials, 3000)
            .iter()
            .enumerate()
    {
        for target in [None, Some("tool")] {
            let Ok(EditOutcome::Edited(first)) =
                edit(Path::new("CMakeLists.txt"), text, target, &wanted)
            else {
                continue;
            };
            edited_count += 1;
            assert!(
                cmake_lang::scan(&first.after).is_ok(),
                "mutation {n}: the edit does not scan"
            );
            let again = edit(
                Path::new("CMakeLists.txt"),
                &first.after,
                first.target.as_deref(),
                &wanted,
            );
            assert_eq!(
                again,
                Ok(EditOutcome::AlreadyDone),
                "mutation {n}:\n{}",
                String::from_utf8_lossy(&first.after)
            );
        }
    }
    assert!(edited_count > 500, "{edited_count} edits");
}

#[test]
fn ninja_multi_config_statements_are_read_too() {
    let dir = std::env::temp_dir().join(format!("lnkfix-cmake-multi-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("build.ninja"), "include build-Release.ninja\n").unwrap();
    std::fs::write(
        dir.join("build-Release.ninja"),
        "build Release/tool.exe: CXX_EXECUTABLE_LINKER__tool_Release t.obj\n",
    )
    .unwrap();
    assert_eq!(ninja_targets(&dir, Some("Release/tool.exe")), ["tool"]);
    assert_eq!(ninja_targets(&dir, Some("other.exe")), Vec::<String>::new());
    let _ = std::fs::remove_dir_all(&dir);
}
