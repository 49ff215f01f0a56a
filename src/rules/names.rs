//! Generated name tables: which import library provides a Windows API, HIP, UCRT,
//! vcruntime or C++ standard library name, answered without any SDK on disk.
//!
//! The tables live in `symbol-db/names/*.txt`, are generated from public packages by
//! `symbol-db/generate/generate.sh` (provenance in each file's header), and are compiled
//! into the binary. They are parsed once, on the first look-up, into one hash map.
//!
//! Table format (see `symbol-db/README.md`): `#` comment lines, `[library dll]` section
//! headers, then one linker-level name per line. A name listed in several sections keeps
//! all of them; the earlier section is preferred.

use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::sync::OnceLock;

/// Which table a name was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameTable {
    /// Windows API functions (`windows-api.txt`, from the Microsoft-made `windows.0.53.0.lib`).
    WindowsApi,
    /// HIP runtime C API (`hip-runtime.txt`, from Debian's `libamdhip64-5`).
    HipRuntime,
    /// Universal CRT exports (`ucrt.txt`, the `api-ms-win-crt-*` API sets behind `ucrt.lib`).
    Ucrt,
    /// VC runtime exports (`vcruntime.txt`, `vcruntime140*.dll` behind `vcruntime.lib`).
    Vcruntime,
    /// C++ standard library exports (`msvcp.txt`, `msvcp140*.dll` behind `msvcprt.lib`).
    Msvcp,
}

impl NameTable {
    /// Every table, in look-up preference order: when a name is in several tables
    /// (`memset` is exported by both vcruntime and the UCRT) the earlier table wins.
    pub const ALL: [NameTable; 5] = [
        NameTable::Vcruntime,
        NameTable::Ucrt,
        NameTable::Msvcp,
        NameTable::WindowsApi,
        NameTable::HipRuntime,
    ];

    /// The table's file name under `symbol-db/names/`.
    pub fn file_name(self) -> &'static str {
        match self {
            NameTable::WindowsApi => "windows-api.txt",
            NameTable::HipRuntime => "hip-runtime.txt",
            NameTable::Ucrt => "ucrt.txt",
            NameTable::Vcruntime => "vcruntime.txt",
            NameTable::Msvcp => "msvcp.txt",
        }
    }

    /// The static (`/MT`) library of a CRT table, whose hits name the `/MD` import
    /// library (FORMATS.md section 1); `None` for tables with no static flavour.
    pub fn static_library(self) -> Option<&'static str> {
        match self {
            NameTable::Ucrt => Some("libucrt.lib"),
            NameTable::Vcruntime => Some("libvcruntime.lib"),
            NameTable::Msvcp => Some("libcpmt.lib"),
            NameTable::WindowsApi | NameTable::HipRuntime => None,
        }
    }

    /// The embedded text of the table.
    fn text(self) -> &'static str {
        match self {
            NameTable::WindowsApi => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/symbol-db/names/windows-api.txt"
            )),
            NameTable::HipRuntime => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/symbol-db/names/hip-runtime.txt"
            )),
            NameTable::Ucrt => {
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/symbol-db/names/ucrt.txt"
                ))
            }
            NameTable::Vcruntime => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/symbol-db/names/vcruntime.txt"
            )),
            NameTable::Msvcp => {
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/symbol-db/names/msvcp.txt"
                ))
            }
        }
    }
}

/// One hit: the table, the import library file name to link (`"kernel32.lib"`), the DLL
/// (`"kernel32.dll"`, spelled as the source library spells it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameHit {
    /// The table the name was found in.
    pub table: NameTable,
    /// The import library to link, e.g. `"kernel32.lib"`, `"ucrt.lib"`, `"amdhip64.lib"`.
    pub library: &'static str,
    /// The DLL the library imports from, e.g. `"kernel32.dll"`,
    /// `"api-ms-win-crt-string-l1-1-0.dll"`; `"hiprtc*.dll"` where the name is versioned.
    pub dll: &'static str,
}

impl NameHit {
    /// Whether the DLL is an API set (`api-ms-win-*`, `ext-ms-*`): a contract name, not a
    /// file, whose library is a family library or the umbrella `onecore.lib`.
    pub fn is_api_set(&self) -> bool {
        let dll = self.dll.to_ascii_lowercase();
        dll.starts_with("api-ms-") || dll.starts_with("ext-ms-")
    }
}

/// Every table entry for a linker-level C name (no `__imp_`, no x86 decoration) or a
/// decorated C++ name (x64 decoration); preferred first. Empty when no table has it.
///
/// ```
/// use lnkfix::rules::names::{lookup, NameTable};
/// let hits = lookup("CreateFileW");
/// assert_eq!(hits[0].table, NameTable::WindowsApi);
/// assert_eq!(hits[0].library, "kernel32.lib");
/// ```
pub fn lookup(name: &str) -> Vec<NameHit> {
    let index = index();
    let Some(&first) = index.first.get(name) else {
        return Vec::new();
    };
    let mut hits = vec![index.sections[first as usize]];
    if let Some(more) = index.more.get(name) {
        hits.extend(more.iter().map(|&section| index.sections[section as usize]));
    }
    hits
}

/// Table provenance lines for `--version`/docs: each table's `source:` header lines
/// (package, version, file, sha256, licence), tables in [`NameTable::ALL`] order.
pub fn provenance() -> Vec<(NameTable, &'static str)> {
    NameTable::ALL
        .iter()
        .flat_map(|&table| {
            table
                .text()
                .lines()
                .filter_map(|line| line.strip_prefix("# source: "))
                .map(move |line| (table, line))
        })
        .collect()
}

/// The parsed tables: section list plus name → section indices.
struct Index {
    /// Every `[library dll]` section of every table, in preference order.
    sections: Vec<NameHit>,
    /// Name → its preferred section (nearly every name has exactly one).
    first: HashMap<&'static str, u32>,
    /// Name → its further sections, for the few names listed more than once.
    more: HashMap<&'static str, Vec<u32>>,
}

/// The tables, parsed on first use.
fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(build_index)
}

fn build_index() -> Index {
    let mut index = Index {
        sections: Vec::new(),
        first: HashMap::with_capacity(25_000),
        more: HashMap::new(),
    };
    for table in NameTable::ALL {
        // Lines that fail to parse are skipped here; a unit test keeps the committed
        // tables free of them.
        for line in parse_table(table.text()).into_iter().flatten() {
            match line {
                Line::Section { library, dll } => index.sections.push(NameHit {
                    table,
                    library,
                    dll,
                }),
                Line::Name(name) => {
                    let Some(section) = index.sections.len().checked_sub(1) else {
                        continue;
                    };
                    let section = section as u32;
                    match index.first.entry(name) {
                        Entry::Vacant(vacant) => {
                            vacant.insert(section);
                        }
                        Entry::Occupied(first) => {
                            // Keep distinct sections only.
                            let more = index.more.entry(name).or_default();
                            if *first.get() != section && !more.contains(&section) {
                                more.push(section);
                            }
                        }
                    }
                }
            }
        }
    }
    index
}

/// One meaningful line of a table.
#[derive(Debug, PartialEq, Eq)]
enum Line {
    /// `[library dll]`.
    Section {
        library: &'static str,
        dll: &'static str,
    },
    /// A name in the current section.
    Name(&'static str),
}

/// A table line that is neither a comment, a section header nor a name.
#[derive(Debug, PartialEq, Eq)]
struct BadLine {
    /// 1-based line number.
    line_number: usize,
    /// The offending text.
    text: &'static str,
}

/// The meaningful lines of a table, comments and blank lines dropped.
fn parse_table(text: &'static str) -> Vec<Result<Line, BadLine>> {
    let mut seen_section = false;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(number, line)| {
            let bad = BadLine {
                line_number: number + 1,
                text: line,
            };
            if let Some(header) = line.strip_prefix('[') {
                let header = header.strip_suffix(']').ok_or(BadLine { ..bad })?;
                let mut fields = header.split(' ');
                match (fields.next(), fields.next(), fields.next()) {
                    (Some(library), Some(dll), None) if !library.is_empty() && !dll.is_empty() => {
                        seen_section = true;
                        Ok(Line::Section { library, dll })
                    }
                    _ => Err(bad),
                }
            } else if seen_section && !line.contains(char::is_whitespace) {
                Ok(Line::Name(line))
            } else {
                Err(bad)
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name, table, library, dll) of the preferred hit.
    #[rustfmt::skip]
    const REQUIRED: &[(&str, NameTable, &str, &str)] = &[
        ("CreateFileW",                    NameTable::WindowsApi,  "kernel32.lib",        "kernel32.dll"),
        ("RegOpenKeyExW",                  NameTable::WindowsApi,  "advapi32.lib",        "advapi32.dll"),
        ("MessageBoxW",                    NameTable::WindowsApi,  "user32.lib",          "user32.dll"),
        ("SHGetFolderPathW",               NameTable::WindowsApi,  "shell32.lib",         "shell32.dll"),
        ("WSAStartup",                     NameTable::WindowsApi,  "ws2_32.lib",          "ws2_32.dll"),
        ("CoCreateGuid",                   NameTable::WindowsApi,  "ole32.lib",           "ole32.dll"),
        ("CryptProtectData",               NameTable::WindowsApi,  "crypt32.lib",         "crypt32.dll"),
        ("SHDeleteKeyW",                   NameTable::WindowsApi,  "shlwapi.lib",         "shlwapi.dll"),
        ("ChoosePixelFormat",              NameTable::WindowsApi,  "gdi32.lib",           "gdi32.dll"),
        ("SetPixelFormat",                 NameTable::WindowsApi,  "gdi32.lib",           "gdi32.dll"),
        ("VerSetConditionMask",            NameTable::WindowsApi,  "kernel32.lib",        "kernel32.dll"),
        ("WaitOnAddress",                  NameTable::WindowsApi,  "synchronization.lib", "api-ms-win-core-synch-l1-2-0.dll"),
        ("PathCchCombine",                 NameTable::WindowsApi,  "pathcch.lib",         "api-ms-win-core-path-l1-1-0.dll"),
        ("VirtualAlloc2",                  NameTable::WindowsApi,  "onecore.lib",         "api-ms-win-core-memory-l1-1-6.dll"),
        ("hipMalloc",                      NameTable::HipRuntime,  "amdhip64.lib",        "amdhip64.dll"),
        ("hipLaunchKernel",                NameTable::HipRuntime,  "amdhip64.lib",        "amdhip64.dll"),
        ("__hipRegisterFatBinary",         NameTable::HipRuntime,  "amdhip64.lib",        "amdhip64.dll"),
        ("__hipPushCallConfiguration",     NameTable::HipRuntime,  "amdhip64.lib",        "amdhip64.dll"),
        ("hipGetDevicePropertiesR0600",    NameTable::HipRuntime,  "amdhip64.lib",        "amdhip64_7.dll"),
        ("hiprtcCompileProgram",           NameTable::HipRuntime,  "hiprtc.lib",          "hiprtc*.dll"),
        ("wcsnlen",                        NameTable::Ucrt,        "ucrt.lib",            "api-ms-win-crt-string-l1-1-0.dll"),
        ("__acrt_iob_func",                NameTable::Ucrt,        "ucrt.lib",            "api-ms-win-crt-stdio-l1-1-0.dll"),
        ("___lc_codepage_func",            NameTable::Ucrt,        "ucrt.lib",            "api-ms-win-crt-locale-l1-1-0.dll"),
        ("malloc",                         NameTable::Ucrt,        "ucrt.lib",            "api-ms-win-crt-heap-l1-1-0.dll"),
        ("__CxxFrameHandler3",             NameTable::Vcruntime,   "vcruntime.lib",       "vcruntime140.dll"),
        ("__CxxFrameHandler4",             NameTable::Vcruntime,   "vcruntime.lib",       "vcruntime140_1.dll"),
        ("__C_specific_handler",           NameTable::Vcruntime,   "vcruntime.lib",       "vcruntime140.dll"),
        ("memcpy",                         NameTable::Vcruntime,   "vcruntime.lib",       "vcruntime140.dll"),
        ("memset",                         NameTable::Vcruntime,   "vcruntime.lib",       "vcruntime140.dll"),
        ("?_Xlength_error@std@@YAXPEBD@Z", NameTable::Msvcp,       "msvcprt.lib",         "msvcp140.dll"),
        ("__std_atomic_wait_direct",       NameTable::Msvcp,       "msvcprt.lib",         "msvcp140_atomic_wait.dll"),
    ];

    #[test]
    fn required_outcomes() {
        let failures: Vec<String> = REQUIRED
            .iter()
            .filter_map(|&(name, table, library, dll)| {
                let want = NameHit {
                    table,
                    library,
                    dll,
                };
                let hits = lookup(name);
                (hits.first() != Some(&want))
                    .then(|| format!("{name}: got {hits:?}, want {want:?}"))
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn unknown_and_undecorated_only() {
        assert!(lookup("NoSuchFunctionAnywhere").is_empty());
        assert!(lookup("").is_empty());
        // Callers strip __imp_ and x86 decoration first.
        assert!(lookup("__imp_CreateFileW").is_empty());
        assert!(lookup("_MessageBoxA@16").is_empty());
        // Names are case sensitive, like the linker.
        assert!(lookup("createfilew").is_empty());
    }

    #[test]
    fn several_entries_keep_preference_order() {
        let memset: Vec<NameTable> = lookup("memset").iter().map(|hit| hit.table).collect();
        assert_eq!(memset, [NameTable::Vcruntime, NameTable::Ucrt]);
        let dlls: Vec<&str> = lookup("GetDeviceID").iter().map(|hit| hit.dll).collect();
        assert_eq!(dlls, ["dsound.dll", "tbs.dll"]);
        // HIP 5.2 (Linux names) first, then AMD's Windows amdhip64_7.dll.
        let dlls: Vec<&str> = lookup("hipMalloc").iter().map(|hit| hit.dll).collect();
        assert_eq!(dlls, ["amdhip64.dll", "amdhip64_7.dll"]);
    }

    #[test]
    fn api_sets_and_static_flavours() {
        assert!(lookup("WaitOnAddress")[0].is_api_set());
        assert!(!lookup("CreateFileW")[0].is_api_set());
        assert_eq!(NameTable::Ucrt.static_library(), Some("libucrt.lib"));
        assert_eq!(NameTable::WindowsApi.static_library(), None);
    }

    #[test]
    fn tables_parse_cleanly_and_are_sorted() {
        for table in NameTable::ALL {
            let lines = parse_table(table.text());
            let bad: Vec<_> = lines
                .iter()
                .filter_map(|line| line.as_ref().err())
                .collect();
            assert!(bad.is_empty(), "{}: {bad:?}", table.file_name());
            let mut names_in_section: Vec<&str> = Vec::new();
            let mut names = 0;
            for line in lines.into_iter().flatten().chain([Line::Section {
                library: "",
                dll: "",
            }]) {
                match line {
                    Line::Section { .. } => {
                        assert!(
                            names_in_section.windows(2).all(|pair| pair[0] < pair[1]),
                            "{}: section not sorted or has duplicates",
                            table.file_name()
                        );
                        names_in_section.clear();
                    }
                    Line::Name(name) => {
                        names += 1;
                        names_in_section.push(name);
                    }
                }
            }
            assert!(names > 0, "{} is empty", table.file_name());
        }
    }

    #[test]
    fn provenance_names_every_table() {
        let lines = provenance();
        for table in NameTable::ALL {
            assert!(
                lines
                    .iter()
                    .any(|&(t, line)| t == table && line.contains("sha256 ")),
                "{table:?} has no provenance"
            );
        }
    }

    #[test]
    fn bad_lines_are_reported() {
        let lines = parse_table("# c\nOrphan\n[only-one]\n[a.lib a.dll]\nName\nTwo words\n");
        let bad: Vec<usize> = lines
            .iter()
            .filter_map(|line| line.as_ref().err().map(|bad| bad.line_number))
            .collect();
        assert_eq!(bad, [2, 3, 6]);
    }
}
