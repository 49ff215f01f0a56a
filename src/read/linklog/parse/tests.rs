//! The line parser's tests: hand parsers against their patterns, and records of every kind.

use regex::Regex;

use super::command_line::crt_options;
use super::lld::{arrow_line, lld_record, Arrow};
use super::shown::leading_pair;
use super::*;

/// Random lines: one choice per slot, each slot offering right and wrong variants of the
/// pieces the patterns care about.
fn generated_lines(slots: &[&[&str]], seed: u64, count: usize) -> Vec<String> {
    let mut state = seed;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    (0..count)
        .map(|_| {
            slots
                .iter()
                .map(|slot| slot[(next() % slot.len() as u64) as usize])
                .collect()
        })
        .collect()
}

/// The hand parser of `>>>` lines agrees with the three patterns, in their order.
#[test]
fn arrow_lines_match_the_patterns() {
    let spaces: &[&str] = &["", " ", "  ", "\t", " \u{0b}", "\u{a0}", "   "];
    let slots: &[&[&str]] = &[
        spaces,
        &[">>>", ">>>", ">>", "x>>>"],
        spaces,
        &[
            "referenced ",
            "referenced by",
            "referenced",
            "x.obj:(f)",
            "",
            "by ",
        ],
        &["12", "3", "\u{663}", "", " ", "\t", "by"],
        &[
            " more time",
            " more times",
            " more",
            "",
            " x.obj",
            "  C:\\a b\\k.cpp:12",
        ],
        &["", ":(f)", "s", " ", "é", "(x)"],
    ];
    let p = patterns();
    let mut kinds = [0usize; 4];
    for line in generated_lines(slots, 0x9E37_79B9_7F4A_7C15, 40_000) {
        let group = |re: &Regex, name: &str| {
            re.captures(&line)
                .and_then(|c| c.name(name))
                .map(|m| m.as_str().to_string())
        };
        let expected = if let Some(n) = group(&p.more_times, "n") {
            (0, n)
        } else if let Some(rest) = group(&p.referenced_by, "rest") {
            (1, rest)
        } else if let Some(rest) = group(&p.continuation, "rest") {
            (2, rest)
        } else {
            (3, String::new())
        };
        let got = match arrow_line(&line) {
            Arrow::MoreTimes(n) => (0, n.to_string()),
            Arrow::ReferencedBy(rest) => (1, rest.to_string()),
            Arrow::Continuation(rest) => (2, rest.to_string()),
            Arrow::Other => (3, String::new()),
        };
        assert_eq!(got, expected, "{line:?}");
        kinds[got.0] += 1;
    }
    assert!(
        kinds.iter().all(|&k| k > 200),
        "every shape generated: {kinds:?}"
    );
}

/// The hand parser of lld-link records agrees with the `lld` pattern.
#[test]
fn lld_records_match_the_pattern() {
    let spaces: &[&str] = &["", " ", "\t", "\u{0b}", "\u{a0}", "  "];
    let slots: &[&[&str]] = &[
        &[
            "",
            "x",
            "[1/2] ",
            ">",
            "'",
            "\"",
            "]",
            ":",
            "é ",
            "ld.",
            "xlld: error: y ",
        ],
        &[
            "lld-link",
            "ld.lld",
            "ld.lld-link",
            "lld",
            "rust-lld",
            "lld-linker",
            "LLD-link",
        ],
        &["", ".exe", "-14", "-", "-x", ".exe-3", "-\u{663}", ".ex"],
        spaces,
        &[":", ":", "", ";"],
        spaces,
        &["error", "warning", "errors", "Error", "warn", ""],
        spaces,
        &[":", ":", ""],
        spaces,
        &["undefined symbol: f", "", "x: lld: error: z", "é", " "],
    ];
    let p = patterns();
    let mut matched = 0;
    for line in generated_lines(slots, 0x2545_F491_4F6C_DD1D, 60_000) {
        let expected = p.lld.captures(&line).map(|c| {
            (
                c.name("sev").unwrap().as_str().to_string(),
                c.name("rest").unwrap().as_str().to_string(),
            )
        });
        let got = lld_record(&line).map(|(s, r)| (s.to_string(), r.to_string()));
        assert_eq!(got, expected, "{line:?}");
        matched += usize::from(got.is_some());
    }
    assert!(matched > 3_000, "only {matched} records generated");
}

/// The hand scanner of CRT options agrees with `crt_option.captures_iter`.
#[test]
fn crt_options_match_the_pattern() {
    let option: &[&str] = &[
        "/MD",
        "-MDd",
        "/MT",
        "-MTd",
        "/LD",
        "-LDd",
        "/MDx",
        "-fms-runtime-lib=dll",
        "-fms-runtime-lib=",
        "-fms-runtime-lib=static_dbg",
        "--dependent-lib=msvcrt",
        "--dependent-lib=",
        "/DEFAULTLIB:libcmt",
        "-DEFAULTLIB:\"x y\"",
        "/DEFAULTLIB:\"",
        "/NODEFAULTLIB",
        "-NODEFAULTLIB:libcmt",
        "/NODEFAULTLIB:",
        "/Zl",
        "-Zlx",
        "-D_DLL",
        "-D_DLLX",
        "/EHsc",
        "x",
        "",
        "/",
        "-",
    ];
    let gap: &[&str] = &["", " ", "  ", "\t", "\"", "'", "\u{0b}", "\u{a0}", "x", "é"];
    let slots: &[&[&str]] = &[gap, option, gap, option, gap, option, gap, option, gap];
    let p = patterns();
    let mut found = 0;
    for line in generated_lines(slots, 0x5851_F42D_4C95_7F2D, 60_000) {
        let expected: Vec<(String, usize)> = p
            .crt_option
            .captures_iter(&line)
            .map(|c| (c["opt"].to_string(), c.get(0).unwrap().end()))
            .collect();
        let got: Vec<(String, usize)> = crt_options(&line)
            .into_iter()
            .map(|(o, e)| (o.to_string(), e))
            .collect();
        assert_eq!(got, expected, "{line:?}");
        found += got.len();
    }
    assert!(found > 50_000, "only {found} options generated");
}

/// The hand parser of a leading pair agrees with the `pair` pattern anchored at the start.
#[test]
fn leading_pair_matches_the_pattern() {
    let cases = [
        r#""void __cdecl f(void)" (?f@@YAXXZ)"#,
        r#""a"(b)"#,
        r#""a" 	 (b) trailing"#,
        r#""" (b)"#,
        r#""a" ()"#,
        r#""a" (b c)"#,
        r#""a" (b"#,
        r#""a" (b(c))"#,
        r#""a" ("b")"#,
        r#""a"  x (b)"#,
        r#"x "a" (b)"#,
        r#""a" ("#,
        "\"a\"\u{3000}(b)",
        "\"é\" (ü)",
        "\"",
        "",
    ];
    let pair = &patterns().pair;
    for text in cases {
        let expected = pair
            .captures(text)
            .filter(|c| c.get(0).unwrap().start() == 0)
            .map(|c| {
                (
                    c.name("display").unwrap().as_str(),
                    c.name("decorated").unwrap().as_str(),
                )
            });
        assert_eq!(leading_pair(text), expected, "{text:?}");
    }
}

fn parse(line: &str) -> Vec<Event> {
    let mut parser = LineParser::new();
    let mut events = Vec::new();
    parser.parse_line(line, 1, &mut events);
    events
}

fn unresolved(line: &str) -> UnresolvedRecord {
    match parse(line).into_iter().next() {
        Some(Event::Unresolved(u)) => u,
        other => panic!("no unresolved record in {line:?}: {other:?}"),
    }
}

#[test]
fn english_bare_and_quoted() {
    let u = unresolved("main.obj : error LNK2019: unresolved external symbol __imp_CreateFileW referenced in function main");
    assert_eq!(u.symbol.decorated.as_deref(), Some("__imp_CreateFileW"));
    assert_eq!(
        u.reference.as_ref().unwrap().object.as_deref(),
        Some("main.obj")
    );
    assert_eq!(
        u.reference.as_ref().unwrap().function.as_deref(),
        Some("main")
    );

    let u = unresolved(
        r#"foo.lib(bar.obj) : error LNK2019: unresolved external symbol "public: __cdecl Foo::Foo(void)" (??0Foo@@QEAA@XZ) referenced in function "void __cdecl bar(void)" (?bar@@YAXXZ)"#,
    );
    assert_eq!(
        u.symbol.display.as_deref(),
        Some("public: __cdecl Foo::Foo(void)")
    );
    assert_eq!(u.symbol.decorated.as_deref(), Some("??0Foo@@QEAA@XZ"));
    let r = u.reference.unwrap();
    assert_eq!(r.object.as_deref(), Some("foo.lib(bar.obj)"));
    assert_eq!(r.function.as_deref(), Some("void __cdecl bar(void)"));
}

#[test]
fn localized_lines() {
    let rows = [
        // zh-CN, old and new order
        ("dllmain.obj : error LNK2019: 无法解析的外部符号 __std_search_1，函数 \"char const * __cdecl f(void)\" (?f@@YAPEBDXZ) 中引用了该符号", "__std_search_1", Some("char const * __cdecl f(void)")),
        ("main.obj : error LNK2019: 函数 main 中引用了无法解析的外部符号 __imp_CreateFileW", "__imp_CreateFileW", Some("main")),
        // ja, old and new order
        ("main.obj : error LNK2019: 未解決の外部シンボル __imp_MessageBoxW が関数 main で参照されました。", "__imp_MessageBoxW", Some("main")),
        ("main.obj : error LNK2019: 関数 \"main\" で参照されている未解決の外部シンボル \"hipMalloc\"", "hipMalloc", Some("main")),
        // ko
        ("main.obj : error LNK2019: \"hipFree\" 외부 기호(참조 위치: \"main\" 함수)에서 확인하지 못했습니다.", "hipFree", Some("main")),
        // de
        ("main.obj : error LNK2019: Verweis auf nicht aufgelöstes externes Symbol \"__imp_RegOpenKeyExW\" in Funktion \"main\".", "__imp_RegOpenKeyExW", Some("main")),
        ("main.obj : error LNK2001: Nicht aufgelöstes externes Symbol \"_tls_index\".", "_tls_index", None),
        // it
        ("glfw.obj : error LNK2001: simbolo esterno __imp__glfwEnable@4 non risolto", "__imp__glfwEnable@4", None),
        // fr
        ("main.obj : error LNK2019: symbole externe non résolu wcsnlen référencé dans la fonction main", "wcsnlen", Some("main")),
        // es
        ("main.obj : error LNK2019: símbolo externo atexit sin resolver al que se hace referencia en la función main", "atexit", Some("main")),
        // ru
        ("os_crypt.lib(a.obj) : error LNK2019: ссылка на неразрешенный внешний символ CryptProtectData в функции \"public: static bool __cdecl O::E(void)\" (?E@O@@SA_NXZ)", "CryptProtectData", Some("public: static bool __cdecl O::E(void)")),
    ];
    let mut failures = Vec::new();
    for (line, symbol, function) in rows {
        let u = unresolved(line);
        let got_symbol = u.symbol.decorated.clone().or(u.symbol.display.clone());
        let got_function = u.reference.and_then(|r| r.function);
        if got_symbol.as_deref() != Some(symbol) || got_function.as_deref() != function {
            failures.push(format!("{line}\n  got {got_symbol:?} / {got_function:?}"));
        }
    }
    assert!(
        failures.is_empty(),
        "failing rows:\n{}",
        failures.join("\n")
    );
}

#[test]
fn lld_link_records() {
    let u = unresolved("lld-link: error: undefined symbol: __declspec(dllimport) _CrtDbgReport");
    assert_eq!(u.linker, Linker::LldLink);
    assert_eq!(
        u.symbol.display.as_deref(),
        Some("__declspec(dllimport) _CrtDbgReport")
    );
    let u = unresolved("lld-link: error: <root>: undefined symbol: mainCRTStartup");
    assert_eq!(u.symbol.decorated.as_deref(), Some("mainCRTStartup"));
    assert_eq!(u.reference.unwrap().object.as_deref(), Some("<root>"));
    let u = unresolved("lld-link : error : undefined symbol: hipMalloc [C:\\p\\a.vcxproj]");
    assert_eq!(u.symbol.decorated.as_deref(), Some("hipMalloc"));

    let mut parser = LineParser::new();
    let mut events = Vec::new();
    parser.parse_line(">>> referenced by d:\\x\\Hash.h:41", 2, &mut events);
    parser.parse_line(">>>               C:\\T\\9-2.o:(InitHash)", 3, &mut events);
    parser.parse_line(
        ">>> referenced by k.obj:(void __cdecl f(int))",
        4,
        &mut events,
    );
    parser.parse_line(">>> referenced 7 more times", 5, &mut events);
    assert_eq!(
        events,
        vec![
            Event::Referenced(Reference {
                object: Some("C:\\T\\9-2.o".into()),
                function: Some("InitHash".into()),
                ..Default::default()
            }),
            Event::Referenced(Reference {
                object: Some("k.obj".into()),
                function: Some("void __cdecl f(int)".into()),
                ..Default::default()
            }),
            Event::MoreReferences(7),
        ]
    );
    assert_eq!(parse("lld-link: error: too many errors emitted, stopping now (use /errorlimit:0 to see all errors)"), vec![Event::TooManyErrors]);
}

#[test]
fn error_list_rows() {
    let u = unresolved("Error\tLNK2001\tunresolved external symbol __CxxFrameHandler4\tcasparcg\tC:\\b\\w.lib(m.obj)\t1\t");
    assert_eq!(u.symbol.decorated.as_deref(), Some("__CxxFrameHandler4"));
    assert_eq!(
        u.reference.unwrap().object.as_deref(),
        Some("C:\\b\\w.lib(m.obj)")
    );
    let u = unresolved("LNK2019\tunresolved external symbol __imp_WSAStartup referenced in function \"public: __cdecl W::W(void)\" (??0W@@QEAA@XZ)\t");
    assert_eq!(u.symbol.decorated.as_deref(), Some("__imp_WSAStartup"));
}

#[test]
fn findings_and_counts() {
    assert_eq!(
        parse("x.exe : fatal error LNK1120: 2 unresolved externals"),
        vec![Event::UnresolvedCount(2, Some("x.exe".into()))]
    );
    assert_eq!(
        parse("Osiris.dll : fatal error LNK1120: 1 个无法解析的外部命令"),
        vec![Event::UnresolvedCount(1, Some("Osiris.dll".into()))]
    );
    match &parse("a.obj : error LNK2038: mismatch detected for 'RuntimeLibrary': value 'MT_StaticRelease' doesn't match value 'MD_DynamicRelease' in b.obj")[0] {
        Event::Finding(f) => {
            assert_eq!(f.code, "LNK2038");
            assert_eq!(f.values, ["RuntimeLibrary", "MT_StaticRelease", "MD_DynamicRelease"]);
            assert_eq!(f.objects, ["a.obj", "b.obj"]);
        }
        other => panic!("{other:?}"),
    }
    match &parse("LINK : fatal error LNK1104: cannot open file 'python310.lib'")[0] {
        Event::Finding(f) => assert_eq!(f.values, ["python310.lib"]),
        other => panic!("{other:?}"),
    }
}

#[test]
fn crt_options_on_command_lines() {
    let events = parse(
        "cl /nologo /MD /EHsc -fms-runtime-lib=static --dependent-lib=msvcrt /machine:x64 x.cpp",
    );
    let options: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            Event::CrtOption(o) => Some(o.option.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        options,
        ["/MD", "-fms-runtime-lib=static", "--dependent-lib=msvcrt"]
    );
    assert!(events.contains(&Event::Machine(crate::index::Machine::X64)));
    // A path is not an option.
    assert!(parse("see C:/MD/readme").is_empty());
}

#[test]
fn linker_path_and_msbuild_banner_name_the_machine() {
    use crate::index::Machine;
    let events =
        parse(r#""C:\\VS\\VC\\Tools\\MSVC\\14.38\\bin\\HostX86\\x64\\link.exe" /nologo a.obj"#);
    let command = Event::LinkCommand(super::LinkCommand {
        line: 1,
        output: None,
        import_library: None,
    });
    assert_eq!(events, [command.clone(), Event::Machine(Machine::X64)]);
    let events = parse(r"C:\VS\bin\Hostx64\x86\link.exe /nologo a.obj");
    assert_eq!(events, [command, Event::Machine(Machine::X86)]);
    let events = parse("1>------ Build started: Project: p, Configuration: Debug Win32 ------");
    assert_eq!(events, [Event::Machine(Machine::X86)]);
    let events =
        parse("------ Rebuild All started: Project: p, Configuration: Release ARM64 ------");
    assert_eq!(events, [Event::Machine(Machine::Arm64)]);
    // A directory named after a host without the target after it is not a machine.
    assert!(parse(r"C:\tools\HostX64\readme.txt").is_empty());
}

/// The machine node-gyp and MSBuild name on their own lines: `| win32 | ia32` and
/// `Platform=Win32` are x86, `| win32 | x64` x64; other words after them are not machines.
#[test]
fn build_tool_lines_name_the_machine() {
    use crate::index::Machine;
    let rows = [
        (
            "gyp info using node@20.11.1 | win32 | ia32",
            Some(Machine::X86),
        ),
        (
            "gyp info using node@18.19.0 | win32 | x64",
            Some(Machine::X64),
        ),
        (
            "gyp info spawn args   '/p:Configuration=Release;Platform=Win32'",
            Some(Machine::X86),
        ),
        ("msbuild a.sln /p:Platform=x64", Some(Machine::X64)),
        ("gyp info using node@18.19.0 | win32 | x640", None),
        ("Platform=Win32s", None),
    ];
    for (line, want) in rows {
        let got = parse(line).into_iter().find_map(|e| match e {
            Event::Machine(m) => Some(m),
            _ => None,
        });
        assert_eq!(got, want, "{line}");
    }
}

/// The lines of a whole log, parsed in order with one parser (state carries between lines).
fn parse_lines(log: &str) -> Vec<Event> {
    let mut parser = LineParser::new();
    let mut events = Vec::new();
    for (i, line) in log.lines().enumerate() {
        parser.parse_line(line, i as u64 + 1, &mut events);
    }
    events
}

/// lld-link's `duplicate symbol` (lld 19's `reportDuplicate`: the first definer with its source
/// line when the object has debug information), as `rust-lld:` and `lld:` print it too.
#[test]
fn lld_duplicate_symbols_and_their_definers() {
    let events = parse_lines(
        "lld-link: error: duplicate symbol: shared_fn\n\
         >>> defined at C:\\src\\util.h:3\n\
         >>>            a.obj\n\
         >>> defined at b.lib(b.obj)\n\
         \x20         rust-lld: error: duplicate symbol: uloc_getLCID\n\
         \x20         >>> defined at skunicode_icu.lib(icu.uloc.obj)\n",
    );
    assert_eq!(
        events,
        [
            Event::Finding(Finding {
                code: "lld-link error".into(),
                text: "duplicate symbol: shared_fn".into(),
                values: vec!["shared_fn".into()],
                objects: vec![],
                line: 1,
            }),
            Event::DefinedAt {
                object: "a.obj".into(),
                source: Some("C:\\src\\util.h:3".into()),
            },
            Event::DefinedAt {
                object: "b.lib(b.obj)".into(),
                source: None,
            },
            Event::Finding(Finding {
                code: "lld-link error".into(),
                text: "duplicate symbol: uloc_getLCID".into(),
                values: vec!["uloc_getLCID".into()],
                objects: vec![],
                line: 5,
            }),
            Event::DefinedAt {
                object: "skunicode_icu.lib(icu.uloc.obj)".into(),
                source: None,
            },
        ]
    );
}

/// lld-link's `/failifmismatch` report (RuntimeLibrary, _ITERATOR_DEBUG_LEVEL): one `>>> X has
/// value V` line per side; and the machine conflict, a plain record.
#[test]
fn lld_mismatch_sides_and_machine_conflicts() {
    let events = parse_lines(
        "lld-link: error: /failifmismatch: mismatch detected for 'RuntimeLibrary':\n\
         >>> md.obj has value MD_DynamicRelease\n\
         >>> C:\\lib\\third party.lib(mt.obj) has value MT_StaticRelease\n\
         lld: error: msvcrt.lib(tlssup.obj): machine type arm64 conflicts with arm64ec\n",
    );
    assert!(matches!(&events[0], Event::Finding(f) if f.values == ["RuntimeLibrary"]));
    assert_eq!(
        events[1],
        Event::HasValue {
            object: "md.obj".into(),
            value: "MD_DynamicRelease".into()
        }
    );
    assert_eq!(
        events[2],
        Event::HasValue {
            object: "C:\\lib\\third party.lib(mt.obj)".into(),
            value: "MT_StaticRelease".into()
        }
    );
    match &events[3] {
        Event::Finding(f) => {
            assert_eq!(f.code, "lld-link error");
            assert_eq!(f.objects, ["msvcrt.lib(tlssup.obj)"]);
        }
        other => panic!("{other:?}"),
    }
    // A reference is not a definer.
    assert!(matches!(
        &parse_lines(">>> referenced by a.obj:(f)")[0],
        Event::Referenced(_)
    ));
}

/// The older Error List (the code inside the Description column, after a row number and the
/// severity), with and without its first columns; and the referencing function's decorated name.
#[test]
fn old_error_list_rows_and_decorated_functions() {
    match &parse("错误\t3\terror LNK2005: \"int __cdecl f(void)\" (?f@@YAHXZ) 已经在 a.obj 中定义\tC:\\p\\b.obj\tproj")[0] {
        Event::Finding(f) => {
            assert_eq!(f.code, "LNK2005");
            assert_eq!(f.objects.first().map(String::as_str), Some("C:\\p\\b.obj"));
        }
        other => panic!("{other:?}"),
    }
    match &parse(
        "error LNK1112: 模块计算机类型“X86”与目标计算机类型“x64”冲突\tlib\\z.lib(y.obj)\tproj",
    )[0]
    {
        Event::Finding(f) => {
            assert_eq!(f.code, "LNK1112");
            assert_eq!(f.objects, ["lib\\z.lib(y.obj)"]);
        }
        other => panic!("{other:?}"),
    }
    // Prose with a code in it is no row.
    assert!(parse("see\tthe error LNK2005 page\tfor more").is_empty());
    let u = unresolved("x.lib(m.obj) : error LNK2019: unresolved external symbol main referenced in function \"int __cdecl invoke_main(void)\" (?invoke_main@@YAHXZ)");
    let r = u.reference.unwrap();
    assert_eq!(r.function.as_deref(), Some("int __cdecl invoke_main(void)"));
    assert_eq!(r.function_name.as_deref(), Some("?invoke_main@@YAHXZ"));
    let u = unresolved("a.obj : error LNK2019: 无法解析的外部符号 __std_search_1，函数 \"char const * __cdecl g(void)\" (?g@@YAPEBDXZ) 中引用了该符号");
    assert_eq!(
        u.reference.unwrap().function_name.as_deref(),
        Some("?g@@YAPEBDXZ")
    );
}

#[test]
fn a_link_command_names_its_output_and_import_library() {
    let command = |line: &str| match parse(line).first() {
        Some(Event::LinkCommand(c)) => (c.output.clone(), c.import_library.clone()),
        other => panic!("{line}: {other:?}"),
    };
    assert_eq!(
        command(
            r"link.exe /nologo a.obj /out:hipamd\src\amdhip64_7.dll /implib:hipamd\lib\amdhip64.lib /dll"
        ),
        (Some("amdhip64_7.dll".into()), Some("amdhip64.lib".into()))
    );
    assert_eq!(
        command(r#"lld-link.exe -out:"C:\b c\b.dll" -IMPLIB:"C:\b c\lib\b.lib" a.obj"#),
        (Some("b.dll".into()), Some("b.lib".into()))
    );
    // `-o` names the output only: `-implib` needs its colon.
    assert_eq!(
        command("lld-link.exe a.obj -o app.exe -implib"),
        (Some("app.exe".into()), None)
    );
}

#[test]
fn a_path_longer_than_any_real_one_is_not_kept() {
    let long = format!("C:\\{}.lib", "x".repeat(2000));
    let events = parse(&format!("link.exe /out:{long} a.obj {long} b.lib"));
    let libraries: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::LinkLineLibrary(l) => Some(l.library.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(libraries, ["b.lib"]);
    match &events[0] {
        Event::LinkCommand(c) => assert_eq!(c.output, None),
        other => panic!("{other:?}"),
    }
}
