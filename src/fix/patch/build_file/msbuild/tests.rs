use super::*;

/// The test project as Visual Studio writes it: a UTF-8 BOM and CRLF line endings.
fn project() -> Vec<u8> {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/msbuild/app.vcxproj.in"
    ));
    let mut bytes = b"\xEF\xBB\xBF".to_vec();
    bytes.extend_from_slice(text.replace('\n', "\r\n").as_bytes());
    bytes
}

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

/// The text of the group for `configuration`.
fn group_text(bytes: &[u8], configuration: &str) -> String {
    let text = String::from_utf8_lossy(bytes);
    let start = text.find(&format!("=='{configuration}'\">")).unwrap();
    let end = start + text[start..].find("</ItemDefinitionGroup>").unwrap();
    text[start..end].to_string()
}

#[test]
fn edits_only_the_failing_configuration_keeping_bom_and_crlf() {
    let source = project();
    let path = Path::new("app.vcxproj");
    let mut wanted = change(&["ShLwApi.Lib", "ws2_32.lib"]);
    wanted.library_dirs = vec![r"C:\SDK\lib".into()];
    let edit = edited(edit_configuration(path, &source, Some("Release|x64"), &wanted).unwrap());
    assert!(edit.after.starts_with(b"\xEF\xBB\xBF<?xml"));
    let text = String::from_utf8(edit.after.clone()).unwrap();
    assert!(
        !text.replace("\r\n", "").contains('\n'),
        "a bare LF was written"
    );
    let group = group_text(&edit.after, "Release|x64");
    assert!(group.contains("      <GenerateDebugInformation>true</GenerateDebugInformation>\r\n      <AdditionalDependencies>ShLwApi.Lib;ws2_32.lib;%(AdditionalDependencies)</AdditionalDependencies>\r\n      <AdditionalLibraryDirectories>C:\\SDK\\lib;%(AdditionalLibraryDirectories)</AdditionalLibraryDirectories>\r\n    </Link>"), "{group}");
    for other in ["Debug|Win32", "Release|Win32", "Debug|x64"] {
        assert_eq!(group_text(&edit.after, other), group_text(&source, other));
    }
    assert_eq!(edit.configuration.as_deref(), Some("Release|x64"));
    // The result is well-formed and has the settings where they belong.
    let groups = groups(path, std::str::from_utf8(&edit.after[3..]).unwrap()).unwrap();
    let release = groups
        .iter()
        .find(|g| g.configuration.as_deref() == Some("Release|x64"))
        .unwrap();
    let names: Vec<&str> = release
        .link
        .as_ref()
        .unwrap()
        .1
        .iter()
        .map(|s| s.name.as_str())
        .collect();
    assert!(
        names.contains(&"AdditionalDependencies")
            && names.contains(&"AdditionalLibraryDirectories")
    );
    assert_eq!(
        edit_configuration(path, &edit.after, Some("Release|x64"), &wanted).unwrap(),
        EditOutcome::AlreadyDone
    );
}

#[test]
fn extends_an_existing_list_and_edits_every_configuration_when_unknown() {
    let source = project();
    let edit = edited(
        edit(
            Path::new("app.vcxproj"),
            &source,
            None,
            &change(&["user32.lib", "ws2_32.lib"]),
        )
        .unwrap(),
    );
    let debug = group_text(&edit.after, "Debug|x64");
    assert!(debug.contains("<AdditionalDependencies>ws2_32.lib;user32.lib;%(AdditionalDependencies)</AdditionalDependencies>"), "{debug}");
    assert_eq!(debug.matches("AdditionalDependencies>").count(), 2);
    for other in ["Debug|Win32", "Release|Win32", "Release|x64"] {
        assert!(group_text(&edit.after, other)
            .contains("<AdditionalDependencies>user32.lib;ws2_32.lib;%(AdditionalDependencies)"));
    }
    assert!(
        edit.description.contains("every configuration"),
        "{}",
        edit.description
    );
}

#[test]
fn an_unknown_configuration_is_refused_with_the_project_s_list() {
    let error = edit_configuration(
        Path::new("app.vcxproj"),
        &project(),
        Some("Release|ARM64"),
        &change(&["a.lib"]),
    )
    .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("(it defines: Debug|Win32, Release|Win32, Debug|x64, Release|x64)"),
        "{error}"
    );
}

#[test]
fn runtime_library_is_replaced_or_added_per_configuration() {
    let source = project();
    let wanted = BuildChange {
        runtime: Some(Flavour::Static),
        ..BuildChange::default()
    };
    let edit = edited(edit(Path::new("app.vcxproj"), &source, None, &wanted).unwrap());
    assert!(group_text(&edit.after, "Debug|x64")
        .contains("<RuntimeLibrary>MultiThreadedDebug</RuntimeLibrary>"));
    assert!(group_text(&edit.after, "Release|x64")
        .contains("      <RuntimeLibrary>MultiThreaded</RuntimeLibrary>\r\n    </ClCompile>"));
    assert_eq!(
        super::edit(Path::new("app.vcxproj"), &edit.after, None, &wanted).unwrap(),
        EditOutcome::AlreadyDone
    );
}

#[test]
fn a_group_without_link_gets_one_and_broken_xml_names_the_line() {
    let source = "<Project>\n  <ItemDefinitionGroup>\n    <ClCompile>\n      <WarningLevel>Level3</WarningLevel>\n    </ClCompile>\n  </ItemDefinitionGroup>\n</Project>\n";
    let after = edited(
        edit(
            Path::new("p.vcxproj"),
            source.as_bytes(),
            None,
            &change(&["a.lib"]),
        )
        .unwrap(),
    )
    .after;
    assert_eq!(
        String::from_utf8(after).unwrap(),
        source.replace("    </ClCompile>\n", "    </ClCompile>\n    <Link>\n      <AdditionalDependencies>a.lib;%(AdditionalDependencies)</AdditionalDependencies>\n    </Link>\n")
    );
    let error = edit(
        Path::new("p.vcxproj"),
        b"<Project>\n<ItemDefinitionGroup>\n</Project>",
        None,
        &change(&["a.lib"]),
    )
    .unwrap_err();
    assert!(
        matches!(error, BuildEditError::Unparsable { .. }),
        "{error}"
    );
}

#[test]
fn locates_the_project_and_configuration_from_the_log() {
    let log = "1>------ Build started: Project: app, Configuration: Release x64 ------\n1>main.obj : error LNK2019: unresolved external symbol __imp_WSAStartup referenced in function main [C:\\src\\app\\app.vcxproj]\n";
    let input = LocateInput {
        log,
        log_path: None,
        recognised: None,
        output: None,
        build_dir: None,
    };
    let place = locate(&input).unwrap().unwrap();
    assert_eq!(place.file, PathBuf::from("C:\\src\\app\\app.vcxproj"));
    assert_eq!(place.configuration.as_deref(), Some("Release|x64"));
    assert_eq!(place.target.as_deref(), Some("app"));
    let by_path = "  C:\\VS\\link.exe /OUT:\"C:\\src\\x64\\Debug\\app.exe\" main.obj\nmain.obj : error LNK2019: x [C:\\src\\app.vcxproj]\nlib.obj : error LNK2019: y [C:\\src\\lib.vcxproj]\n";
    assert_eq!(configuration(by_path).as_deref(), Some("Debug|x64"));
    let input = LocateInput {
        log: by_path,
        ..input
    };
    assert!(matches!(
        locate(&input),
        Err(BuildEditError::Ambiguous { .. })
    ));
}

#[test]
fn mutated_projects_never_panic_and_an_edit_applied_twice_is_done() {
    let specials: &[&[u8]] = &[
        b"<",
        b">",
        b"</Link>",
        b"<Link>",
        b"<Link/>",
        b"&amp;",
        b"&",
        b"\"",
        b"'",
        b"\r\n",
        b"<!--",
        b"-->",
        b"\xEF\xBB\xBF",
        b"\xFF",
    ];
    let mut wanted = change(&["ws2_32.lib"]);
    wanted.library_dirs = vec![r"C:\SDK\lib".into()];
    wanted.runtime = Some(Flavour::Dynamic);
    let mut edited_count = 0;
    for (n, text) in crate::fix::patch::build_file::mutations::mutations(&project(), specials, 1500)
        .iter()
        .enumerate()
    {
        for configuration in [None, Some("Release|x64")] {
            let Ok(EditOutcome::Edited(first)) =
                edit_configuration(Path::new("app.vcxproj"), text, configuration, &wanted)
            else {
                continue;
            };
            edited_count += 1;
            let again = edit_configuration(
                Path::new("app.vcxproj"),
                &first.after,
                configuration,
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
    assert!(edited_count > 150, "{edited_count} edits");
}
