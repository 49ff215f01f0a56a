//! link.exe in every language Visual Studio ships: every LNK code lnkfix reads yields its values
//! (the unresolved symbol, the LNK1120 count, the quoted values, the files and objects) from real
//! localized texts people posted, whatever the quotes around them. Each text is a short excerpt
//! with its source; where no real text was found for a code and a language, the table says so
//! (`NO_REAL_TEXT`) instead of inventing one, and a test keeps the table complete.

use lnkfix::read::linklog::{read_log_bytes, Event};

/// What a line must yield.
enum Want {
    /// An unresolved symbol, by its decorated name or, when the log shows none, its display text.
    Symbol(&'static str),
    /// The LNK1120 count.
    Count(u64),
    /// A finding: its quoted values (a prefix of them, in order) and objects it names (all of
    /// them present).
    Finding {
        values: &'static [&'static str],
        objects: &'static [&'static str],
    },
}

struct Row {
    code: &'static str,
    language: &'static str,
    source: &'static str,
    text: &'static str,
    want: Want,
}

const LANGUAGES: &[&str] = &[
    "zh-CN", "zh-TW", "ja", "ko", "de", "fr", "es", "it", "ru", "pt-BR", "pl", "cs", "tr", "en",
];

const CODES: &[&str] = &[
    "LNK2019", "LNK2001", "LNK1120", "LNK2005", "LNK1169", "LNK2038", "LNK4098", "LNK1112",
    "LNK4272", "LNK1104", "LNK1181", "LNK4217", "LNK1561",
];

use Want::*;

const ROWS: &[Row] = &[
    // ---- LNK2019 ----
    Row {
        code: "LNK2019",
        language: "en",
        source: "https://github.com/p-org/P/issues/3",
        text: "Error\t51\terror LNK2019: unresolved external symbol _PrtEnqueueWithInorder referenced in function _s_PrtDistSendEx\tC:\\Users\\qadeer\\Work\\P\\Src\\PrtDist\\Samples\\TechFest2015-Demo\\PrtDist.lib(PrtDist.obj)\tFailureDetector",
        want: Symbol("_PrtEnqueueWithInorder"),
    },
    Row {
        code: "LNK2019",
        language: "zh-CN",
        source: "https://github.com/jussihi/PUBG-map-hack/issues/75",
        text: "main.obj : error LNK2019: 无法解析的外部符号 __imp_curl_global_init，该符号在函数 \"public: __cdecl CURLWrapper::CURLWrapper(void)\" (??0CURLWrapper@@QEAA@XZ) 中被引用",
        want: Symbol("__imp_curl_global_init"),
    },
    Row {
        code: "LNK2019",
        language: "zh-CN",
        source: "https://github.com/MiroKaku/Musa.Runtime/issues/17",
        text: "无法解析的外部符号 __std_search_1，函数 \"char const * __cdecl std::_Search_vectorized<char const ,char const >(char const * const,char const * const,char const * const,unsigned __int64)\" (??$_Search_vectorized@$$CBD$$CBD@std@@YAPEBDQEBD00_K@Z) 中引用了该符号",
        want: Symbol("__std_search_1"),
    },
    Row {
        code: "LNK2019",
        language: "ja",
        source: "https://github.com/LuminoEngine/Lumino/issues/89",
        text: "LNK2019\t未解決の外部シンボル __imp__PathMatchSpecExW@12 が関数 \"public: static bool __cdecl ln::PlatformFileSystem::matchPath(wchar_t const *,wchar_t const *)\" (?matchPath@PlatformFileSystem@ln@@SA_NPB_W0@Z) で参照されました。",
        want: Symbol("__imp__PathMatchSpecExW@12"),
    },
    Row {
        code: "LNK2019",
        language: "ko",
        source: "https://github.com/bravesengine/Vib/issues/62",
        text: "오류\tLNK2019\tlame_init\"private: int __cdecl lameHelper::encode_x(char *,char *,struct settings_t,__int64 (__cdecl*)(struct HWND__ *,unsigned int,unsigned __int64,__int64))\" (?encode_x@lameHelper@@AEAAHPEAD0Usettings_t@@P6A_JPEAUHWND__@@I_K_J@Z@Z) 함수에서 참조되는 확인할 수 없는 외부 기호\tHapticEditor\tE:\\Vib-master\\QtGuiApplication1\\lameHelper.obj\t1\t",
        want: Symbol("lame_init"),
    },
    Row {
        code: "LNK2019",
        language: "pt-BR",
        source: "https://github.com/aderfa/star_rail/issues/14",
        text: "Erro\tLNK2019\tsímbolo externo não resolvido, \"void __cdecl hook::init(void)\" (?init@hook@@YAXXZ), referenciado na função \"void __cdecl enablebypass_new::init(void)\" (?init@enablebypass_new@@YAXXZ)\tLibrary\tC:\\star_rail\\ImGui DirectX 11 Kiero Hook\\BypassEnable.obj\t1\t",
        want: Symbol("?init@hook@@YAXXZ"),
    },
    Row {
        code: "LNK2019",
        language: "ru",
        source: "https://github.com/electron/electron/issues/7247",
        text: "os_crypt.lib(os_crypt.os_crypt_win.obj) : error LNK2019: ссылка на неразрешенный внешний символ CryptProtectData в функции \"public: static bool __cdecl OSCrypt::EncryptString(class std::basic_string<char,struct std::char_traits<char>,class std::allocator<char> > const &,class std::basic_string<char,struct std::char_traits<char>,class std::allocator<char> > *)\" (?EncryptString@OSCrypt@@SA_NAEBV?$basic_string@DU?$char_traits@D@std@@V?$allocator@D@2@@std@@PEAV23@@Z)",
        want: Symbol("CryptProtectData"),
    },
    Row {
        code: "LNK2019",
        language: "cs",
        source: "https://github.com/lexbor/lexbor/issues/84",
        text: "`1>core.obj : error LNK2019: Nerozpoznaný externí symbol __imp__lxb_html_document_create odkazovaný ve funkci _main",
        want: Symbol("__imp__lxb_html_document_create"),
    },
    // ---- LNK2001 ----
    Row {
        code: "LNK2001",
        language: "en",
        source: "https://github.com/ElliotKillick/LdrLockLiberator/issues/3",
        text: "error LNK2001: unresolved external symbol __imp_RtlExitUserProcess",
        want: Symbol("__imp_RtlExitUserProcess"),
    },
    Row {
        code: "LNK2001",
        language: "zh-CN",
        source: "https://github.com/kiwings/DLLHijacker/issues/1",
        text: "1>Source.def : error LNK2001: 无法解析的外部符号 HijackSymFromAddr",
        want: Symbol("HijackSymFromAddr"),
    },
    Row {
        code: "LNK2001",
        language: "zh-CN",
        source: "https://github.com/ppwwyyxx/OpenPano/issues/126",
        text: "错误\tLNK2001\t无法解析的外部符号 \"unsigned int __cdecl lodepng::decode(class std::vector<unsigned char,class std::allocator<unsigned char> > &,unsigned int &,unsigned int &,class std::basic_string<char,struct std::char_traits<char>,class std::allocator<char> > const &,enum LodePNGColorType,unsigned int)\" (?decode@lodepng@@YAIAAV?$vector@EV?$allocator@E@std@@@std@@AAI1ABV?$basic_string@DU?$char_traits@D@std@@V?$allocator@D@2@@3@W4LodePNGColorType@@I@Z)\t",
        want: Symbol("?decode@lodepng@@YAIAAV?$vector@EV?$allocator@E@std@@@std@@AAI1ABV?$basic_string@DU?$char_traits@D@std@@V?$allocator@D@2@@3@W4LodePNGColorType@@I@Z"),
    },
    Row {
        code: "LNK2001",
        language: "it",
        source: "https://github.com/pavel-pimenov/flylinkdc-r6xx/issues/33",
        text: "1>zlib-ng.lib(functable.obj) : error LNK2001: simbolo esterno compare256_unaligned_16 non risolto",
        want: Symbol("compare256_unaligned_16"),
    },
    Row {
        code: "LNK2001",
        language: "ru",
        source: "https://github.com/danielkrupinski/Osiris/issues/4431",
        text: "1>dllmain.obj : error LNK2001: неразрешенный внешний символ wcslen.",
        want: Symbol("wcslen"),
    },
    Row {
        code: "LNK2001",
        language: "ru",
        source: "https://github.com/processhacker/plugins-extra/issues/23",
        text: "> 15>dialog.obj : error LNK2001: неразрешенный внешний символ \"__imp__FWChangeNotificationDestroy@4\"",
        want: Symbol("__imp__FWChangeNotificationDestroy@4"),
    },
    // ---- LNK1120 ----
    Row {
        code: "LNK1120",
        language: "en",
        source: "https://github.com/EIPStackGroup/OpENer/pull/308",
        text: "Error\tLNK1120\t2 unresolved externals\tOpENer\tC:\\OpENer\\bin\\win32\\src\\ports\\WIN32\\Debug\\OpENer.exe\t1\t",
        want: Count(2),
    },
    Row {
        code: "LNK1120",
        language: "zh-CN",
        source: "https://github.com/zlgopen/awtk/issues/723",
        text: "bin\\demo.exe : fatal error LNK1120: 1 个无法解析的外部命令",
        want: Count(1),
    },
    Row {
        code: "LNK1120",
        language: "ko",
        source: "https://github.com/bravesengine/Vib/issues/62",
        text: "오류\tLNK1120\t34개의 확인할 수 없는 외부 참조입니다.\tHapticEditor\tE:\\Vib-master\\x64\\Debug\\HapticEditor.exe\t1",
        want: Count(34),
    },
    Row {
        code: "LNK1120",
        language: "it",
        source: "https://github.com/pavel-pimenov/flylinkdc-r6xx/issues/33",
        text: "1>C:\\Users\\Lenovo\\Desktop\\flyr605\\compiled\\FlylinkDC_x64.exe : fatal error LNK1120: 3 esterni non risolti",
        want: Count(3),
    },
    Row {
        code: "LNK1120",
        language: "ru",
        source: "https://github.com/danielkrupinski/Osiris/issues/4431",
        text: "1>C:\\Programming\\GitHub Rep\\Osiris\\x64\\Release\\Osiris.dll : fatal error LNK1120: неразрешенных внешних элементов: 1",
        want: Count(1),
    },
    Row {
        code: "LNK1120",
        language: "pt-BR",
        source: "https://github.com/aderfa/star_rail/issues/14",
        text: "Erro\tLNK1120\t1 externo não resolvidos\tLibrary\tC:\\star_rail\\Build\\Debug(x64)\\bin\\bot.dll\t1\t",
        want: Count(1),
    },
    // ---- LNK2005 ----
    Row {
        code: "LNK2005",
        language: "en",
        source: "https://github.com/curl/curl/issues/1108",
        text: "libcurl.lib(libcurl.dll) : error LNK2005: _curl_strnequal already defined in strcase.obj",
        want: Finding {
            values: &["_curl_strnequal"],
            objects: &["libcurl.lib(libcurl.dll)", "strcase.obj"],
        },
    },
    Row {
        code: "LNK2005",
        language: "zh-CN",
        source: "https://github.com/Rock-100/FaceKit/issues/90",
        text: "错误\t2      error LNK2005: \"void __cdecl DrawFace(class cv::Mat,struct Window)\" (?DrawFace@@YAXVMat@cv@@UWindow@@@Z) 已经在 PCN.obj 中定义\tE:\\PCN\\PCN_tracking\\PCN_tracking\\video.obj\tPCN_tracking",
        want: Finding {
            values: &["void __cdecl DrawFace(class cv::Mat,struct Window)"],
            objects: &["E:\\PCN\\PCN_tracking\\PCN_tracking\\video.obj", "PCN.obj"],
        },
    },
    Row {
        code: "LNK2005",
        language: "zh-TW",
        source: "https://github.com/conan-io/conan-center-index/issues/10852",
        text: "  [build] libfltkd.lib(libfltkd.dll) : error LNK2005: \"public: void __cdecl Fl_Group::end(void)\" (?end@Fl_Group@@QEAAXXZ) 已在 fltkd.lib(Fl_Group.obj) 中定義過了",
        want: Finding {
            values: &["public: void __cdecl Fl_Group::end(void)"],
            objects: &["libfltkd.lib(libfltkd.dll)", "fltkd.lib(Fl_Group.obj)"],
        },
    },
    // ---- LNK1169 ----
    Row {
        code: "LNK1169",
        language: "zh-CN",
        source: "https://github.com/Rock-100/FaceKit/issues/90",
        text: "错误\t6\terror LNK1169: 找到一个或多个多重定义的符号\tE:\\PCN\\PCN_tracking\\x64\\Debug\\PCN_tracking.exe\t1\t1\tPCN_tracking",
        want: Finding {
            values: &[],
            objects: &["E:\\PCN\\PCN_tracking\\x64\\Debug\\PCN_tracking.exe"],
        },
    },
    // ---- LNK2038 ----
    Row {
        code: "LNK2038",
        language: "en",
        source: "https://github.com/Bureau-du-Forestier-en-chef/FMT/issues/5",
        text: "  libClp.lib(ClpLsqr.obj) : error LNK2038: mismatch detected for 'RuntimeLibrary': value 'MT_StaticRelease' doesn't match value 'MD_DynamicRelease' in FMTGCBMtransition.obj",
        want: Finding {
            values: &["RuntimeLibrary", "MT_StaticRelease", "MD_DynamicRelease"],
            objects: &["libClp.lib(ClpLsqr.obj)", "FMTGCBMtransition.obj"],
        },
    },
    Row {
        code: "LNK2038",
        language: "de",
        source: "https://github.com/ermig1979/Simd/issues/262",
        text: "C:\\Users\\repo\\out\\build\\x64-Release\\Base.lib(SimdBaseThread.obj) : error LNK2038: Konflikt ermittelt für \"RuntimeLibrary\": Der Wert \"MT_StaticRelease\" stimmt nicht mit dem Wert \"MD_DynamicRelease\" in main.cpp.obj überein.",
        want: Finding {
            values: &["RuntimeLibrary", "MT_StaticRelease", "MD_DynamicRelease"],
            objects: &["C:\\Users\\repo\\out\\build\\x64-Release\\Base.lib(SimdBaseThread.obj)", "main.cpp.obj"],
        },
    },
    Row {
        code: "LNK2038",
        language: "de",
        source: "https://github.com/microsoft/cpprestsdk/issues/1544",
        text: "[build] cpprest142_2_10.lib(asyncrt_utils.obj) : error LNK2038: Konflikt ermittelt für \"_ITERATOR_DEBUG_LEVEL\": Der Wert \"0\" stimmt nicht mit dem Wert \"2\" in main.obj überein. [C:\\Projekte\\Cpp\\dev\\Miele_Oculus\\build\\app\\MIELE_OCULUS_Executable.vcxproj]",
        want: Finding {
            values: &["_ITERATOR_DEBUG_LEVEL", "0", "2"],
            objects: &["cpprest142_2_10.lib(asyncrt_utils.obj)", "main.obj"],
        },
    },
    Row {
        code: "LNK2038",
        language: "it",
        source: "https://github.com/llvm/llvm-project/issues/76036",
        text: "Errore\tLNK2038\trilevata errata corrispondenza per 'RuntimeLibrary': il valore 'MD_DynamicRelease' non corrisponde al valore 'MDd_DynamicDebug' in Input.obj\tWindowsProject1\tC:\\Users\\utente\\source\\repos\\WindowsProject1\\WindowsProject1\\laslib64.lib(lasreader.obj)\t1\t",
        want: Finding {
            values: &["RuntimeLibrary", "MD_DynamicRelease", "MDd_DynamicDebug"],
            objects: &["C:\\Users\\utente\\source\\repos\\WindowsProject1\\WindowsProject1\\laslib64.lib(lasreader.obj)", "Input.obj"],
        },
    },
    Row {
        code: "LNK2038",
        language: "ru",
        source: "https://github.com/microsoft/vcpkg/issues/34355",
        text: "sail-c++.lib(image-c++.cpp.obj) : error LNK2038: обнаружено несоответствие для \"RuntimeLibrary\": значение \"MT_StaticRelease\" не соответствует значению \"MD_DynamicRelease\" в main.obj [F:\\projects\\git.sail-test\\build\\sail-test.vcxproj]",
        want: Finding {
            values: &["RuntimeLibrary", "MT_StaticRelease", "MD_DynamicRelease"],
            objects: &["sail-c++.lib(image-c++.cpp.obj)", "main.obj"],
        },
    },
    Row {
        code: "LNK2038",
        language: "zh-CN",
        source: "https://github.com/google/or-tools/issues/363",
        text: "ortools.lib(gflags.cc.obj) : error LNK2038: 检测到“RuntimeLibrary”的不匹配项: 值“MD_DynamicRelease”不匹配值“MDd_DynamicDebug”(costas_array.obj 中)",
        want: Finding {
            values: &["RuntimeLibrary", "MD_DynamicRelease", "MDd_DynamicDebug"],
            objects: &["ortools.lib(gflags.cc.obj)", "costas_array.obj"],
        },
    },
    // ---- LNK4098 ----
    Row {
        code: "LNK4098",
        language: "en",
        source: "https://github.com/rust-native-ui/libui-rs/issues/42",
        text: "          LINK : warning LNK4098: defaultlib 'MSVCRTD' conflicts with use of other libs; use /NODEFAULTLIB:library",
        want: Finding {
            values: &["MSVCRTD"],
            objects: &[],
        },
    },
    Row {
        code: "LNK4098",
        language: "it",
        source: "https://github.com/llvm/llvm-project/issues/76036",
        text: "Avviso\tLNK4098\tla libreria predefinita 'MSVCRT' è in conflitto con l'utilizzo di altre librerie; usare /NODEFAULTLIB:libreria\tWindowsProject1\tC:\\Users\\utente\\source\\repos\\WindowsProject1\\WindowsProject1\\LINK\t1\t",
        want: Finding {
            values: &["MSVCRT"],
            objects: &[],
        },
    },
    // ---- LNK1112 ----
    Row {
        code: "LNK1112",
        language: "zh-CN",
        source: "https://github.com/GangZhuo/BaiduPCS/issues/25",
        text: "error LNK1112: 模块计算机类型“X86”与目标计算机类型“x64”冲突\tBaiduPCS-master\\pcs\\argp.lib(vsnprintf.obj)\tBaiduPCS_DLL",
        want: Finding {
            values: &["X86", "x64"],
            objects: &["BaiduPCS-master\\pcs\\argp.lib(vsnprintf.obj)"],
        },
    },
    // ---- LNK4272 ----
    Row {
        code: "LNK4272",
        language: "es",
        source: "https://github.com/myrtille-rdp/myrtille/issues/299",
        text: "  C:\\openssl\\lib\\libssl.lib : warning LNK4272: el tipo de máquina de biblioteca 'x86' está en conflicto con el tipo de máquina de destino 'x64'",
        want: Finding {
            values: &["x86", "x64"],
            objects: &["C:\\openssl\\lib\\libssl.lib"],
        },
    },
    // ---- LNK1104 ----
    Row {
        code: "LNK1104",
        language: "en",
        source: "https://github.com/woct0rdho/triton-windows/issues/3",
        text: "LINK : fatal error LNK1104: cannot open file 'python310.lib'",
        want: Finding {
            values: &["python310.lib"],
            objects: &["python310.lib"],
        },
    },
    Row {
        code: "LNK1104",
        language: "zh-CN",
        source: "https://github.com/yuphin/Lumen/issues/35",
        text: "D:\\Git\\Lumen\\out\\build\\x64-Debug\\LINK : fatal error LNK1104: 无法打开文件“spirv-cross-cored.lib”",
        want: Finding {
            values: &["spirv-cross-cored.lib"],
            objects: &["spirv-cross-cored.lib"],
        },
    },
    Row {
        code: "LNK1104",
        language: "zh-CN",
        source: "https://github.com/lxwAsm/requests/issues/9",
        text: "错误\tLNK1104\t无法打开文件“..\\packages\\CppRequests.0.0.5\\build\\native\\lib\\x64\\v160\\static\\Debug\\HttpLib.lib”\twintoast_study\t..\\LINK\t1\t",
        want: Finding {
            values: &["..\\packages\\CppRequests.0.0.5\\build\\native\\lib\\x64\\v160\\static\\Debug\\HttpLib.lib"],
            objects: &["..\\packages\\CppRequests.0.0.5\\build\\native\\lib\\x64\\v160\\static\\Debug\\HttpLib.lib"],
        },
    },
    Row {
        code: "LNK1104",
        language: "fr",
        source: "https://github.com/fmtlib/fmt/issues/2139",
        text: "LNK1104\timpossible d'ouvrir le fichier 'C:\\Users\\s7qua\\OneDrive\\Bureau\\BigBaseV2-master\\bin\\lib\\Debug\\fmtlib.lib'\tBigBaseV2\tC:\\Users\\s7qua\\OneDrive\\Bureau\\BigBaseV2-master\\BigBaseV2\\LINK\t1",
        want: Finding {
            values: &["C:\\Users\\s7qua\\OneDrive\\Bureau\\BigBaseV2-master\\bin\\lib\\Debug\\fmtlib.lib"],
            objects: &["C:\\Users\\s7qua\\OneDrive\\Bureau\\BigBaseV2-master\\bin\\lib\\Debug\\fmtlib.lib"],
        },
    },
    // ---- LNK1181 ----
    Row {
        code: "LNK1181",
        language: "en",
        source: "https://github.com/Meulengracht/MollenOS/issues/57",
        text: "LINK : fatal error LNK1181: can not open input file“LibC.lib” [C:\\Users\\APP-3\\Desktop\\vs2013\\MollenOS\\clib\\mscv\\LibVs\\LibVs.vcxproj]",
        want: Finding {
            values: &["LibC.lib"],
            objects: &["LibC.lib"],
        },
    },
    // ---- LNK4217 ----
    Row {
        code: "LNK4217",
        language: "en",
        source: "https://github.com/ziglang/zig/issues/2911 (lld-link's form of the warning)",
        text: "lld: warning: glfw3.lib(window.obj): locally defined symbol imported: free (defined in libucrtd.lib(free.obj)) [LNK4217]",
        want: Finding {
            values: &[],
            objects: &["glfw3.lib(window.obj)", "libucrtd.lib(free.obj)"],
        },
    },
    // ---- LNK1561 ----
    Row {
        code: "LNK1561",
        language: "en",
        source: "https://github.com/tsoding/nobuild/issues/10",
        text: "LINK : fatal error LNK1561: entry point must be defined",
        want: Finding {
            values: &[],
            objects: &[],
        },
    },
];

/// Code and language pairs for which no real posted text was found: nothing is invented for them.
const NO_REAL_TEXT: &[(&str, &[&str])] = &[
    ("LNK2019", &["zh-TW", "de", "fr", "es", "it", "pl", "tr"]),
    (
        "LNK2001",
        &[
            "zh-TW", "ja", "ko", "de", "fr", "es", "pt-BR", "pl", "cs", "tr",
        ],
    ),
    (
        "LNK1120",
        &["zh-TW", "ja", "de", "fr", "es", "pl", "cs", "tr"],
    ),
    (
        "LNK2005",
        &[
            "ja", "ko", "de", "fr", "es", "it", "ru", "pt-BR", "pl", "cs", "tr",
        ],
    ),
    (
        "LNK1169",
        &[
            "zh-TW", "ja", "ko", "de", "fr", "es", "it", "ru", "pt-BR", "pl", "cs", "tr", "en",
        ],
    ),
    (
        "LNK2038",
        &["zh-TW", "ja", "ko", "fr", "es", "pt-BR", "pl", "cs", "tr"],
    ),
    (
        "LNK4098",
        &[
            "zh-CN", "zh-TW", "ja", "ko", "de", "fr", "es", "ru", "pt-BR", "pl", "cs", "tr",
        ],
    ),
    (
        "LNK1112",
        &[
            "zh-TW", "ja", "ko", "de", "fr", "es", "it", "ru", "pt-BR", "pl", "cs", "tr", "en",
        ],
    ),
    (
        "LNK4272",
        &[
            "zh-CN", "zh-TW", "ja", "ko", "de", "fr", "it", "ru", "pt-BR", "pl", "cs", "tr", "en",
        ],
    ),
    (
        "LNK1104",
        &[
            "zh-TW", "ja", "ko", "de", "es", "it", "ru", "pt-BR", "pl", "cs", "tr",
        ],
    ),
    (
        "LNK1181",
        &[
            "zh-CN", "zh-TW", "ja", "ko", "de", "fr", "es", "it", "ru", "pt-BR", "pl", "cs", "tr",
        ],
    ),
    (
        "LNK4217",
        &[
            "zh-CN", "zh-TW", "ja", "ko", "de", "fr", "es", "it", "ru", "pt-BR", "pl", "cs", "tr",
        ],
    ),
    (
        "LNK1561",
        &[
            "zh-CN", "zh-TW", "ja", "ko", "de", "fr", "es", "it", "ru", "pt-BR", "pl", "cs", "tr",
        ],
    ),
];

/// The text with its ASCII quotes replaced by another kind, as a paste may show them.
fn requoted(text: &str, style: usize) -> String {
    let (open, close, single_open, single_close) = match style {
        0 => ('"', '"', '\'', '\''),
        1 => ('“', '”', '‘', '’'),
        2 => ('＂', '＂', '＇', '＇'),
        _ => ('「', '」', '‹', '›'),
    };
    let (mut double, mut single) = (false, false);
    text.chars()
        .map(|c| match c {
            '"' | '“' | '”' => {
                double = !double;
                if double {
                    open
                } else {
                    close
                }
            }
            '\'' => {
                single = !single;
                if single {
                    single_open
                } else {
                    single_close
                }
            }
            _ => c,
        })
        .collect()
}

/// What a line yields, or why not.
fn check(row: &Row, text: &str) -> Result<(), String> {
    let (events, _) = read_log_bytes(text.as_bytes());
    let events: Vec<Event> = events.into_iter().map(|l| l.event).collect();
    match &row.want {
        Symbol(name) => {
            let got: Vec<String> = events
                .iter()
                .filter_map(|e| match e {
                    Event::Unresolved(u) => u.symbol.decorated.clone().or(u.symbol.display.clone()),
                    _ => None,
                })
                .collect();
            (got == [name.to_string()])
                .then_some(())
                .ok_or(format!("symbols {got:?}"))
        }
        Count(n) => events
            .iter()
            .any(|e| matches!(e, Event::UnresolvedCount(count, _) if count == n))
            .then_some(())
            .ok_or(format!("events {events:?}")),
        Finding { values, objects } => {
            let finding = events
                .iter()
                .find_map(|e| match e {
                    Event::Finding(f) if f.code == row.code || f.text.contains(row.code) => Some(f),
                    _ => None,
                })
                .ok_or(format!("no finding in {events:?}"))?;
            let values_ok = finding.values.len() >= values.len()
                && finding
                    .values
                    .iter()
                    .zip(values.iter())
                    .all(|(g, w)| g == w);
            let objects_ok = objects
                .iter()
                .all(|o| finding.objects.iter().any(|g| g == o));
            (values_ok && objects_ok).then_some(()).ok_or(format!(
                "values {:?}, objects {:?}",
                finding.values, finding.objects
            ))
        }
    }
}

#[test]
fn every_real_localized_text_yields_its_values_whatever_the_quotes() {
    let mut failures = Vec::new();
    for row in ROWS {
        for style in 0..4 {
            let text = requoted(row.text, style);
            if let Err(why) = check(row, &text) {
                failures.push(format!(
                    "{} {} (quotes {style}, {}):\n  {text}\n  got {why}",
                    row.code, row.language, row.source
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_table_covers_every_code_in_every_language() {
    let mut missing = Vec::new();
    for code in CODES {
        let unfound = NO_REAL_TEXT
            .iter()
            .find(|(c, _)| c == code)
            .map_or(&[][..], |(_, languages)| *languages);
        for language in LANGUAGES {
            let has_row = ROWS
                .iter()
                .any(|r| r.code == *code && r.language == *language);
            let said_none = unfound.contains(language);
            if has_row == said_none {
                missing.push(format!(
                    "{code} {language}: {}",
                    if has_row {
                        "has a row and is listed as without one"
                    } else {
                        "neither a row nor listed in NO_REAL_TEXT"
                    }
                ));
            }
        }
    }
    assert!(ROWS
        .iter()
        .all(|r| LANGUAGES.contains(&r.language) && CODES.contains(&r.code)));
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}
