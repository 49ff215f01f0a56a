//! Linker texts of every failure class, in several languages and paste shapes, as people posted
//! them in public issue threads: each a short excerpt (a line or a few), quoted with the thread
//! it comes from. Each must give its class, name what the errors name, and give the fix the
//! thread found (or the one the log shows).

use lnkfix::problems::{self, LazyContext, LogContext, ProblemKind};
use lnkfix::resolve::{self, DiagnoseOptions};
use lnkfix::rules::RuleBook;

/// Diagnoses a log held in memory the way `lnkfix diagnose` does without libraries.
fn diagnose(log: &str) -> resolve::Diagnosis {
    let failure = lnkfix::read::symbols::collect(
        std::io::Cursor::new(log.as_bytes().to_vec()),
        Default::default(),
    )
    .unwrap();
    let book = RuleBook::builtin();
    let build_system = failure.build_system.clone();
    let mut diagnosis = resolve::diagnose(failure, &book, &DiagnoseOptions::default());
    diagnosis.set_build_system(build_system);
    let context = LazyContext::ready(LogContext::from_text(log));
    let inputs = problems::Inputs {
        book: &book,
        search: None,
        context: &context,
        object_machines: &[],
    };
    problems::attach(&mut diagnosis, &inputs);
    diagnosis
}

/// One excerpt and what its answer must hold.
struct Excerpt {
    /// The thread it comes from.
    source: &'static str,
    log: &'static str,
    kind: ProblemKind,
    /// Subjects the first problem names.
    subjects: &'static [&'static str],
    /// Substrings of the first problem's fix.
    fix: &'static [&'static str],
    /// Substrings of its summary or cause.
    says: &'static [&'static str],
}

const EXCERPTS: &[Excerpt] = &[
    // ---- duplicate symbol ----
    Excerpt {
        // https://github.com/bolero-MURAKAMI/Sprout/issues/83 (ja): a static member defined in a
        // header that several sources include.
        source: "bolero-MURAKAMI/Sprout#83",
        log: "1>kammusu.obj : error LNK2005: \"public: static class sprout::array<float,33> const sprout::math::detail::bernoulli_numbers<float>::table\" (?table@?$bernoulli_numbers@M@detail@math@sprout@@2V?$array@M$0CB@@4@B) は既に fleet.obj で定義されています。\n",
        kind: ProblemKind::DuplicateSymbol,
        subjects: &["kammusu.obj", "fleet.obj", "?table@?$bernoulli_numbers@M@detail@math@sprout@@2V?$array@M$0CB@@4@B"],
        fix: &["inline"],
        says: &["header"],
    },
    Excerpt {
        // https://github.com/joyafa/nginx_vs2017/issues/1 (Error List): OpenSSL under its 1.0
        // name (libeay32) and its 1.1 name (libcrypto) in one link.
        source: "joyafa/nginx_vs2017#1",
        log: "Severity\tCode\tDescription\tProject\tFile\tLine\tSuppression State\nError\tLNK2005\t_COMP_expand_block already defined in libeay32.lib(LIBEAY32.dll)\tNginx\tD:\\nginx_vs2017\\libcrypto.lib(comp_lib.obj)\t1\n",
        kind: ProblemKind::DuplicateSymbol,
        subjects: &["D:\\nginx_vs2017\\libcrypto.lib(comp_lib.obj)", "libeay32.lib(LIBEAY32.dll)", "_COMP_expand_block"],
        fix: &["link only one of"],
        says: &["same code is linked twice"],
    },
    Excerpt {
        // https://github.com/wongfei/ue4-mediapipe-plugin/issues/16: protobuf's DLL import and a
        // static copy, behind Unreal's packaging prefix.
        source: "wongfei/ue4-mediapipe-plugin#16",
        log: "UATHelper: Packaging (Windows (64-bit)):     libprotobuf.lib(libprotobuf.dll) : error LNK2005: \"public: void __cdecl google::protobuf::UnknownFieldSet::MergeFrom(class google::protobuf::UnknownFieldSet const &)\" (?MergeFrom@UnknownFieldSet@protobuf@google@@QEAAXAEBV123@@Z) already defined in protobuf_full.lib(unknown_field_set.obj)\n",
        kind: ProblemKind::DuplicateSymbol,
        subjects: &["libprotobuf.lib(libprotobuf.dll)", "protobuf_full.lib(unknown_field_set.obj)"],
        fix: &["libprotobuf.dll", "drop protobuf_full.lib(unknown_field_set.obj)"],
        says: &["exports these names"],
    },
    Excerpt {
        // https://github.com/ValveSoftware/source-sdk-2013/issues/280: the project defines rand,
        // which the CRT defines too.
        source: "ValveSoftware/source-sdk-2013#280",
        log: "2>MSVCRT.lib(MSVCR100.dll) : error LNK2005: _rand already defined in randoverride.obj\n",
        kind: ProblemKind::DuplicateSymbol,
        subjects: &["MSVCRT.lib(MSVCR100.dll)", "randoverride.obj", "_rand"],
        fix: &["rename the definitions in randoverride.obj"],
        says: &["C runtime defines too"],
    },
    // ---- CRT mismatch ----
    Excerpt {
        // https://github.com/ermig1979/Simd/issues/262 (de): a library built /MT, the project /MD.
        source: "ermig1979/Simd#262",
        log: "C:\\Users\\repo\\out\\build\\x64-Release\\Base.lib(SimdBaseThread.obj) : error LNK2038: Konflikt ermittelt für \"RuntimeLibrary\": Der Wert \"MT_StaticRelease\" stimmt nicht mit dem Wert \"MD_DynamicRelease\" in main.cpp.obj überein.\n",
        kind: ProblemKind::CrtMismatch,
        subjects: &["C:\\Users\\repo\\out\\build\\x64-Release\\Base.lib(SimdBaseThread.obj)", "main.cpp.obj", "RuntimeLibrary", "MT_StaticRelease", "MD_DynamicRelease"],
        fix: &["build the project with /MT"],
        says: &["Base.lib"],
    },
    Excerpt {
        // https://github.com/microsoft/cpprestsdk/issues/1544 (de, VS Code's [build] prefix, the
        // MSBuild suffix): a release library in a debug link.
        source: "microsoft/cpprestsdk#1544",
        log: "[build] cpprest142_2_10.lib(uri.obj) : error LNK2038: Konflikt ermittelt für \"_ITERATOR_DEBUG_LEVEL\": Der Wert \"0\" stimmt nicht mit dem Wert \"2\" in main.obj überein. [C:\\Projekte\\Cpp\\dev\\Miele_Oculus\\build\\app\\MIELE_OCULUS_Executable.vcxproj]\n[build] cpprest142_2_10.lib(uri.obj) : error LNK2038: Konflikt ermittelt für \"RuntimeLibrary\": Der Wert \"MD_DynamicRelease\" stimmt nicht mit dem Wert \"MDd_DynamicDebug\" in main.obj überein. [C:\\Projekte\\Cpp\\dev\\Miele_Oculus\\build\\app\\MIELE_OCULUS_Executable.vcxproj]\n",
        kind: ProblemKind::CrtMismatch,
        subjects: &["main.obj", "_ITERATOR_DEBUG_LEVEL", "MDd_DynamicDebug"],
        fix: &["/MD"],
        says: &["cpprest142_2_10.lib"],
    },
    Excerpt {
        // https://github.com/llvm/llvm-project/issues/76036 (it, the Error List): LNK4098 and
        // LNK2038 of a release library in a debug project.
        source: "llvm/llvm-project#76036",
        log: "Gravità\tCodice\tDescrizione\tProgetto\tFile\tRiga\tStato eliminazione\nAvviso\tLNK4098\tla libreria predefinita 'MSVCRT' è in conflitto con l'utilizzo di altre librerie; usare /NODEFAULTLIB:libreria\tWindowsProject1\tC:\\Users\\utente\\source\\repos\\WindowsProject1\\WindowsProject1\\LINK\t1\t\nErrore\tLNK2038\trilevata errata corrispondenza per 'RuntimeLibrary': il valore 'MD_DynamicRelease' non corrisponde al valore 'MDd_DynamicDebug' in Input.obj\tWindowsProject1\tC:\\Users\\utente\\source\\repos\\WindowsProject1\\WindowsProject1\\laslib64.lib(lasreader.obj)\t1\t\n",
        kind: ProblemKind::CrtMismatch,
        subjects: &["Input.obj", "MSVCRT", "MD_DynamicRelease", "MDd_DynamicDebug"],
        // The libraries agree (/MD): the project's Release configuration links (a note offers
        // Debug builds of laslib64.lib).
        fix: &["build the project with /MD"],
        says: &["laslib64.lib"],
    },
    Excerpt {
        // https://github.com/Bureau-du-Forestier-en-chef/FMT/issues/6: libraries built for the
        // static C++ library carry std:: members the DLL C++ library imports.
        source: "Bureau-du-Forestier-en-chef/FMT#6",
        log: "  msvcprt.lib(MSVCP140.dll) : error LNK2005: \"public: void __cdecl std::basic_ios<char,struct std::char_traits<char> >::clear(int,bool)\" (?clear@?$basic_ios@DU?$char_traits@D@std@@@std@@QEAAXH_N@Z) already defined in libOsiClp.lib(OsiClpSolverInterface.obj)\n",
        kind: ProblemKind::CrtMismatch,
        subjects: &["msvcprt.lib(MSVCP140.dll)", "libOsiClp.lib(OsiClpSolverInterface.obj)"],
        fix: &["rebuild libOsiClp.lib with /MD"],
        says: &["static C++ library"],
    },
    Excerpt {
        // https://github.com/wxFormBuilder/ticpp/issues/68 (VS2010, word-wrapped at 80 columns):
        // the static and the DLL debug C++ library in one link.
        source: "wxFormBuilder/ticpp#68",
        log: "1>libcpmtd.lib(locale0.obj) : error LNK2005: \"public: static void __cdecl \nstd::_Locinfo::_Locinfo_ctor(class std::_Locinfo *,char const *)\" \n(?_Locinfo_ctor@_Locinfo@std@@SAXPAV12@PBD@Z) already defined in \nmsvcprtd.lib(MSVCP100D.dll)\n",
        kind: ProblemKind::CrtMismatch,
        subjects: &["libcpmtd.lib(locale0.obj)", "msvcprtd.lib(MSVCP100D.dll)", "?_Locinfo_ctor@_Locinfo@std@@SAXPAV12@PBD@Z"],
        fix: &["one runtime option"],
        says: &["mixes C runtimes"],
    },
    Excerpt {
        // https://github.com/michaelrsweet/mxml/issues/34 (Visual Studio 2003): the single-
        // threaded debug CRT of a prebuilt library against the DLL CRT: two C runtimes.
        source: "michaelrsweet/mxml#34",
        log: "Linking...\nMSVCRTD.lib(MSVCR71D.dll) : error LNK2005: _malloc already defined in LIBCD.lib(dbgheap.obj)\nMSVCRTD.lib(MSVCR71D.dll) : error LNK2005: _putc already defined in LIBCD.lib(fputc.obj)\nMSVCRTD.lib(MSVCR71D.dll) : error LNK2005: _free already defined in LIBCD.lib(dbgheap.obj)\n",
        kind: ProblemKind::CrtMismatch,
        subjects: &["LIBCD.lib(dbgheap.obj)", "MSVCRTD.lib(MSVCR71D.dll)"],
        fix: &["one runtime option"],
        says: &["C runtimes"],
    },
    // ---- machine mismatch ----
    Excerpt {
        // https://github.com/zlgopen/awtk/issues/215 (zh, scons): TARGET_ARCH=x86 from a 32-bit
        // Python, objects built for x64; the message wrapped inside its quotes.
        source: "zlgopen/awtk#215",
        log: "scons: Reading SConscript files ...\nARCH=('32bit', 'WindowsPE') TARGET_ARCH=x86\nlink /MACHINE:X86 /DEBUG /OUT:bin\\hello_awtk.exe /LIBPATH:lib src\\assets.obj src\\main.obj\nsrc\\assets.obj : fatal error LNK1112: 模块计算机类型“x64”与目标计算机类型“X86\n”冲突\n",
        kind: ProblemKind::MachineMismatch,
        subjects: &["src\\assets.obj", "x64", "X86"],
        fix: &["rebuild src\\assets.obj"],
        says: &["x64", "x86"],
    },
    Excerpt {
        // https://github.com/Tencent/behaviac/issues/32 (zh): a third-party x86 library in an x64
        // project.
        source: "Tencent/behaviac#32",
        log: "2>behaviac_debugdll_win32_vs2010.lib(behaviac_debugdll_win32_vs2010.dll) : fatal error LNK1112: 模块计算机类型“X86”与目标计算机类型“x64”冲突\n",
        kind: ProblemKind::MachineMismatch,
        subjects: &["behaviac_debugdll_win32_vs2010.lib(behaviac_debugdll_win32_vs2010.dll)", "X86", "x64"],
        fix: &["x64 build of behaviac_debugdll_win32_vs2010.lib"],
        says: &["x86"],
    },
    Excerpt {
        // https://github.com/tibold/svg-explorer-extension/issues/21 (Qt Creator's issue pane).
        source: "tibold/svg-explorer-extension#21",
        log: "...\\build-SVGThumbnailExtension-Desktop_Qt_5_12_3_MSVC2017_64bit-Debug\\debug\\Main.obj:-1: error: LNK1112: module machine type 'x86' conflicts with target machine type 'x64'\n",
        kind: ProblemKind::MachineMismatch,
        subjects: &["...\\build-SVGThumbnailExtension-Desktop_Qt_5_12_3_MSVC2017_64bit-Debug\\debug\\Main.obj", "x86", "x64"],
        fix: &["rebuild", "for x64"],
        says: &["x86"],
    },
    // ---- cannot open ----
    Excerpt {
        // https://github.com/tcew/nodal-dg/issues/2 (zh): a library path the project never built.
        source: "tcew/nodal-dg#2",
        log: "LINK : fatal error LNK1104: 无法打开文件“D:\\Code\\nodal-dg-master\\nudg++\\trunk\\Lib\\NDGLibd.lib”\n",
        kind: ProblemKind::CannotOpen,
        subjects: &["D:\\Code\\nodal-dg-master\\nudg++\\trunk\\Lib\\NDGLibd.lib"],
        fix: &["build the project that makes NDGLibd.lib", "correct the path"],
        says: &["no file at that path"],
    },
    Excerpt {
        // https://github.com/mujin/controllerclientcpp/issues/38: a placeholder left in a name.
        source: "mujin/controllerclientcpp#38",
        log: "LINK : fatal error LNK1104: cannot open file 'libboost_serialization-vc**-mt-1_44.lib'\n",
        kind: ProblemKind::CannotOpen,
        subjects: &["libboost_serialization-vc**-mt-1_44.lib"],
        fix: &["name the libraries"],
        says: &["wildcard"],
    },
    Excerpt {
        // https://github.com/microsoft/FFmpegInterop/issues/114: the UCRT not on the library path.
        source: "microsoft/FFmpegInterop#114",
        log: "LINK : fatal error LNK1104: cannot open file 'ucrt.lib'\n",
        kind: ProblemKind::CannotOpen,
        subjects: &["ucrt.lib"],
        fix: &["developer prompt", "Windows SDK"],
        says: &["Windows SDK"],
    },
    // ---- toolset mismatch ----
    Excerpt {
        // https://github.com/x64dbg/XEDParse/issues/10 (zh, the Error List): a library built with
        // Visual Studio 2013.
        source: "x64dbg/XEDParse#10",
        log: "严重性\t代码\t说明\t项目\t文件\t行\tSuppression State\n错误\tLNK2019\t无法解析的外部符号 __iob_func，该符号在函数 xed_internal_assert 中被引用\tXEDParse\tC:\\Users\\Administrator\\Desktop\\XEDParse-master\\libxed_x64.lib(xed-util.obj)\t1\t\n",
        kind: ProblemKind::ToolsetMismatch,
        subjects: &["C:\\Users\\Administrator\\Desktop\\XEDParse-master\\libxed_x64.lib(xed-util.obj)", "__iob_func", "xed_internal_assert"],
        fix: &["rebuild libxed_x64.lib with Visual Studio 2015 or newer"],
        says: &["before Visual Studio 2015"],
    },
    Excerpt {
        // https://github.com/openssl/openssl/issues/15896: OpenSSL 1.0 libraries of an older
        // toolset linked by Visual Studio 2017.
        source: "openssl/openssl#15896",
        log: "4>libeay32MT.lib(txt_db.obj) : error LNK2001: unresolved external symbol __iob_func\n4>ssleay32MT.lib(t1_enc.obj) : error LNK2001: unresolved external symbol __iob_func\n",
        kind: ProblemKind::ToolsetMismatch,
        subjects: &["libeay32MT.lib(txt_db.obj)", "ssleay32MT.lib(t1_enc.obj)", "__iob_func"],
        fix: &["rebuild libeay32MT.lib and ssleay32MT.lib"],
        says: &["before Visual Studio 2015"],
    },
    // ---- entry point ----
    Excerpt {
        // https://github.com/mozilla/DeepSpeech/issues/3788: cl run with no main in the objects.
        source: "mozilla/DeepSpeech#3788",
        log: "Microsoft (R) Incremental Linker Version 14.29.30152.0\n/out:deepspeech.exe\ndeepspeech.obj\n   Creating library deepspeech.lib and object deepspeech.exp\nLINK : fatal error LNK1561: entry point must be defined\n",
        kind: ProblemKind::EntryPoint,
        subjects: &["deepspeech.exe"],
        fix: &["/SUBSYSTEM:CONSOLE", "C linkage"],
        says: &["entry point"],
    },
    Excerpt {
        // https://github.com/CMU-Perceptual-Computing-Lab/openpose/issues/964 (the reporter's
        // rendering of localized output).
        source: "CMU-Perceptual-Computing-Lab/openpose#964",
        log: "2>------ All rebuilds have been started: project: OpenPoseDemo, configuration: Release x64 ------\n2>LINK : fatal error LNK1561: Entry points must be defined\n",
        kind: ProblemKind::EntryPoint,
        subjects: &[],
        fix: &["/SUBSYSTEM"],
        says: &["entry point"],
    },
    // ---- fatal errors of the catalogue ----
    Excerpt {
        // https://github.com/open-simh/simh/issues/255 (MSBuild, CI): a prebuilt libpng built
        // by another compiler version, linked with /LTCG.
        source: "open-simh/simh#255",
        log: "LINK : fatal error C1047: The object or library file '..\\..\\windows-build\\lib\\Release\\\\libpng16.lib' was created by a different version of the compiler than other objects like '..\\BIN\\NT\\Project\\simh\\SEL32\\Win32-Release\\scp.obj'; rebuild all objects and libraries with the same compiler [D:\\a\\simh\\simh\\Visual Studio Projects\\SEL32.vcxproj]\nLINK : fatal error LNK1257: code generation failed [D:\\a\\simh\\simh\\Visual Studio Projects\\SEL32.vcxproj]\n",
        kind: ProblemKind::LtcgMismatch,
        subjects: &["..\\..\\windows-build\\lib\\Release\\\\libpng16.lib", "..\\BIN\\NT\\Project\\simh\\SEL32\\Win32-Release\\scp.obj"],
        fix: &["rebuild ..\\..\\windows-build\\lib\\Release\\\\libpng16.lib with the toolset"],
        says: &["C1047"],
    },
    Excerpt {
        // https://github.com/fireice-uk/xmr-stak/issues/487 (MSBuild, hard-wrapped): objects of a
        // newer compiler than the linking toolset's back end.
        source: "fireice-uk/xmr-stak#487",
        log: "LINK : fatal error C1900: Il mismatch between 'P1' version '20161212' and 'P2' version '20150812' [C:\\Users\\USER\\De\nsktop\\xmr\\xmr-stak\\build\\xmrstak_opencl_backend.vcxproj]\nLINK : fatal error LNK1257: code generation failed [C:\\Users\\USER\\Desktop\\xmr\\xmr-stak\\buil\nd\\xmrstak_opencl_backend.vcxproj]\n",
        kind: ProblemKind::LtcgMismatch,
        subjects: &[],
        fix: &["link with the toolset that compiled the objects"],
        says: &["C1900", "newer compiler"],
    },
    Excerpt {
        // https://github.com/LandSandBoat/server/issues/10360 (ninja, CMake): lib.exe writing a
        // static library over 4 GB.
        source: "LandSandBoat/server#10360",
        log: "FAILED: src/map/xi_map_lib.lib \nC:\\Users\\Admin\\Documents\\GitHub\\Server\\build\\x64-Release\\src\\map\\xi_map_lib.lib : fatal error LNK1248: image size (1002B63D2) exceeds maximum allowable size (FFFFFFFF)\n",
        kind: ProblemKind::ImageTooLarge,
        subjects: &["C:\\Users\\Admin\\Documents\\GitHub\\Server\\build\\x64-Release\\src\\map\\xi_map_lib.lib"],
        fix: &["/Zi", "split it into several libraries"],
        says: &["static library", "4.00 GB, over the limit of 4 GB"],
    },
    Excerpt {
        // https://github.com/PaddlePaddle/Paddle/issues/38987 (zh-CN): a DLL over 2 GB; the
        // thread's answer was to build fewer GPU architectures.
        source: "PaddlePaddle/Paddle#38987",
        log: "LINK : fatal error LNK1248: 映像大小(8085D000)超过允许的最大大小(80000000)\n",
        kind: ProblemKind::ImageTooLarge,
        subjects: &[],
        fix: &["fewer GPU architectures"],
        says: &["over the limit of 2 GB"],
    },
    Excerpt {
        // https://github.com/dmlc/xgboost/issues/3006 (MSBuild, CMake's compiler check): the
        // resource compiler is not on PATH.
        source: "dmlc/xgboost#3006",
        log: "LINK : fatal error LNK1158: cannot run 'rc.exe' [C:\\xgboost\\build\\CMakeFiles\\3.9.4\\CompilerIdC\\CompilerIdC.vcxproj]\n",
        kind: ProblemKind::ToolMissing,
        subjects: &["rc.exe"],
        fix: &["developer prompt"],
        says: &["rc.exe"],
    },
    Excerpt {
        // https://github.com/aptos-labs/aptos-core/pull/17451 (CI): a PDB over its size limit.
        source: "aptos-labs/aptos-core#17451",
        log: "LINK : fatal error LNK1318: Unexpected PDB error; LIMIT (12)\n",
        kind: ProblemKind::Pdb,
        subjects: &[],
        fix: &["/PDBPAGESIZE:8192"],
        says: &["limit of its page size"],
    },
    Excerpt {
        // https://github.com/ispc/ispc/issues/3836 (CI, x86): the PDB server failed.
        source: "ispc/ispc#3836",
        log: "libvcruntime.lib(chandler4.obj) : fatal error LNK1318: Unexpected PDB error; RPC (23) '(0x000000A4)'\n",
        kind: ProblemKind::Pdb,
        subjects: &[],
        fix: &["mspdbsrv.exe"],
        says: &["PDB server"],
    },
    Excerpt {
        // https://github.com/web-infra-dev/rspack/issues/4067 (CI): a stale PDB in a restored
        // cache; removing the cache fixed it.
        source: "web-infra-dev/rspack#4067",
        log: " LINK : fatal error LNK1318: Unexpected PDB error; FILE_SYSTEM (3) 'D:\\a\\rspack\\rspack\\target\\x86_64-pc-windows-msvc\\debug\\deps\\rspack_node.pdb'\n",
        kind: ProblemKind::Pdb,
        subjects: &["D:\\a\\rspack\\rspack\\target\\x86_64-pc-windows-msvc\\debug\\deps\\rspack_node.pdb"],
        fix: &["delete the .pdb"],
        says: &["build cache"],
    },
    Excerpt {
        // https://github.com/streamlabs/facemask-plugin/issues/93 (MSBuild): a library that is a
        // Git LFS pointer; installing git-lfs fixed it.
        source: "streamlabs/facemask-plugin#93",
        log: "1>..\\thirdparty\\opencv\\lib\\Release\\opencv_world400.lib : fatal error LNK1107: invalid or corrupt file: cannot read at 0x86\n",
        kind: ProblemKind::CorruptInput,
        subjects: &["..\\thirdparty\\opencv\\lib\\Release\\opencv_world400.lib"],
        fix: &["git lfs pull"],
        says: &["Git LFS pointer", "about 134 bytes"],
    },
    Excerpt {
        // https://github.com/9176324/Shark/issues/31 (nmake): resource conversion failed.
        source: "9176324/Shark#31",
        log: "   Creating library D:\\vsproject\\Labs\\Shark\\Build\\Bins\\AMD64\\Sea.lib and object D:\\vsproject\\Labs\\Shark\\Build\\Bins\\AMD64\\Sea.exp\nLINK : fatal error LNK1123: failure during conversion to COFF: file invalid or corrupt\nNMAKE : fatal error U1077: 'link.exe' : return code '0x463'\n",
        kind: ProblemKind::ToolFailed,
        subjects: &[],
        fix: &["/INCREMENTAL:NO"],
        says: &["cvtres.exe"],
    },
];

#[test]
fn excerpts_of_every_class_in_several_languages() {
    let mut failures = Vec::new();
    for e in EXCERPTS {
        let d = diagnose(e.log);
        let Some(first) = d.problems.first() else {
            failures.push(format!(
                "{}: no problem (findings {:?})",
                e.source, d.findings
            ));
            continue;
        };
        if first.kind != e.kind {
            failures.push(format!("{}: {} (want {})", e.source, first.kind, e.kind));
            continue;
        }
        for want in e.subjects {
            if !first.subjects.iter().any(|s| s == want) {
                failures.push(format!(
                    "{}: subject {want:?} not in {:?}",
                    e.source, first.subjects
                ));
            }
        }
        for want in e.fix {
            if !first.fix.contains(want) {
                failures.push(format!("{}: fix lacks {want:?}: {}", e.source, first.fix));
            }
        }
        let told = format!("{} {}", first.summary, first.cause);
        for want in e.says {
            if !told.contains(want) {
                failures.push(format!("{}: lacks {want:?}: {told}", e.source));
            }
        }
        if !d.link_failed {
            failures.push(format!("{}: the link is not seen as failed", e.source));
        }
    }
    assert!(
        failures.is_empty(),
        "{} failing:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The machine a log shows the build was meant for is cited: the awtk log's `TARGET_ARCH=x86`
/// and `/MACHINE:X86` lines are evidence of the x86 target.
#[test]
fn the_intended_machine_is_cited() {
    let e = EXCERPTS
        .iter()
        .find(|e| e.source == "zlgopen/awtk#215")
        .unwrap();
    let d = diagnose(e.log);
    let p = &d.problems[0];
    assert!(
        p.lines.contains(&2) && p.lines.contains(&3),
        "{:?}",
        p.lines
    );
    assert!(
        p.notes.iter().any(|n| n.contains("TARGET_ARCH=x86")),
        "{:?}",
        p.notes
    );
}
