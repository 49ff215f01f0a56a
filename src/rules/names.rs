//! Generated name tables: which import library provides a Windows API, HIP, UCRT,
//! vcruntime or C++ standard library name, answered without any SDK on disk.
//!
//! The tables live in `symbol-db/names/*.txt`, are generated from public packages by
//! `symbol-db/generate/generate.sh` and `symbol-db/generate/crt_chain.sh` (provenance in
//! each file's header), and are compiled into the binary: `build.rs` parses them at compile
//! time into sorted arrays (`StaticIndex`) that a look-up searches, so a run builds nothing.
//!
//! Two kinds of table (see `symbol-db/README.md`):
//!
//! - [`lookup`]: the `[library dll]` tables ([`NameTable`]): `#` comment lines, section
//!   headers, then one linker-level name per line. A name listed in several sections keeps
//!   all of them; the earlier section is preferred. A dll of `-` means a static library
//!   ([`NameHit::dll_name`] is `None`).
//! - [`chain_lookup`]: `crt-chain.txt`, the names the MSVC default-library chain defines,
//!   with sections `[family flavour,flavour,...]`: for each CRT [`Flavour`], the family of
//!   the first chain library that defines the name.

use crate::rules::Flavour;

#[cfg(test)]
use std::collections::hash_map::Entry;
#[cfg(test)]
use std::collections::HashMap;

/// Which table a name was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NameTable {
    /// Windows API functions (`windows-api.txt`, from the Microsoft-made `windows.0.53.0.lib`).
    WindowsApi,
    /// Names of the real Windows SDK / MSVC libraries that [`NameTable::WindowsApi`] lacks
    /// (`sdk-extra.txt`): everything `legacy_stdio_definitions.lib` defines (a static
    /// library: dll `-`) and the `ntdll.lib` imports the Windows API table does not list.
    SdkExtra,
    /// HIP runtime C API (`hip-runtime.txt`, from Debian's `libamdhip64-5`).
    HipRuntime,
    /// The HIP SDK's other libraries (`hip-sdk.txt`: hipBLAS, hipBLASLt, hipFFT, hipRAND,
    /// hipSOLVER, hipSPARSE, rocBLAS, rocFFT, rocRAND, rocSOLVER, rocSPARSE), C names only.
    HipSdk,
    /// PyTorch's smaller import libraries (`torch.txt`: c10.lib, torch_python.lib, ...);
    /// torch_cpu.lib is answered by namespace rules (`symbol-db/rules.json`).
    Torch,
    /// Universal CRT exports (`ucrt.txt`, the `api-ms-win-crt-*` API sets behind `ucrt.lib`).
    Ucrt,
    /// VC runtime exports (`vcruntime.txt`, `vcruntime140*.dll` behind `vcruntime.lib`).
    Vcruntime,
    /// C++ standard library exports (`msvcp.txt`, `msvcp140*.dll` behind `msvcprt.lib`).
    Msvcp,
    /// The Python C API (`python.txt`): `python3XX.lib` per version, `python3.lib` (the stable
    /// ABI), and the names only a debug interpreter exports (section `python3XX_d.lib`).
    Python,
    /// Node-API and libuv (`node.txt`): what `node.exe` exports to addons, behind `node.lib`.
    Node,
    /// CUDA (`cuda.txt`): `cudart.lib`, `cuda.lib` and the math libraries (`cublas.lib`, ...).
    Cuda,
}

impl NameTable {
    /// Every table, in look-up preference order: when a name is in several tables
    /// (`memset` is exported by both vcruntime and the UCRT) the earlier table wins.
    pub const ALL: [NameTable; 11] = [
        NameTable::Vcruntime,
        NameTable::Ucrt,
        NameTable::Msvcp,
        NameTable::SdkExtra,
        NameTable::WindowsApi,
        NameTable::HipRuntime,
        NameTable::HipSdk,
        NameTable::Torch,
        NameTable::Python,
        NameTable::Node,
        NameTable::Cuda,
    ];

    /// The table's file name under `symbol-db/names/`.
    pub fn file_name(self) -> &'static str {
        match self {
            NameTable::WindowsApi => "windows-api.txt",
            NameTable::SdkExtra => "sdk-extra.txt",
            NameTable::HipRuntime => "hip-runtime.txt",
            NameTable::HipSdk => "hip-sdk.txt",
            NameTable::Torch => "torch.txt",
            NameTable::Ucrt => "ucrt.txt",
            NameTable::Vcruntime => "vcruntime.txt",
            NameTable::Msvcp => "msvcp.txt",
            NameTable::Python => "python.txt",
            NameTable::Node => "node.txt",
            NameTable::Cuda => "cuda.txt",
        }
    }

    /// The static (`/MT`) library of a CRT table, whose hits name the `/MD` import
    /// library (docs/RULES.md §3); `None` for tables with no static flavour.
    pub fn static_library(self) -> Option<&'static str> {
        match self {
            NameTable::Ucrt => Some("libucrt.lib"),
            NameTable::Vcruntime => Some("libvcruntime.lib"),
            NameTable::Msvcp => Some("libcpmt.lib"),
            NameTable::WindowsApi
            | NameTable::SdkExtra
            | NameTable::HipRuntime
            | NameTable::HipSdk
            | NameTable::Torch
            | NameTable::Python
            | NameTable::Node
            | NameTable::Cuda => None,
        }
    }

    /// The embedded text of the table.
    fn text(self) -> &'static str {
        match self {
            NameTable::WindowsApi => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/symbol-db/names/windows-api.txt"
            )),
            NameTable::SdkExtra => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/symbol-db/names/sdk-extra.txt"
            )),
            NameTable::HipRuntime => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/symbol-db/names/hip-runtime.txt"
            )),
            NameTable::HipSdk => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/symbol-db/names/hip-sdk.txt"
            )),
            NameTable::Torch => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/symbol-db/names/torch.txt"
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
            NameTable::Python => include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/symbol-db/names/python.txt"
            )),
            NameTable::Node => {
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/symbol-db/names/node.txt"
                ))
            }
            NameTable::Cuda => {
                include_str!(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/symbol-db/names/cuda.txt"
                ))
            }
        }
    }
}

/// The library of `python.txt`'s section of the names only a debug interpreter exports; `XX`
/// stands for the interpreter's version.
pub const PYTHON_DEBUG_SECTION: &str = "python3XX_d.lib";

/// The Python import libraries whose DLL exports a name, from `python.txt`: `python312.lib`, ...
/// newest version first, then `python3.lib` when the stable ABI has it (the debug-only section
/// is left out).
///
/// ```
/// use lnkfix::rules::names::python_libraries;
/// let libraries = python_libraries("PyLong_FromLong");
/// assert!(libraries.contains(&"python312.lib") && libraries.contains(&"python3.lib"));
/// assert!(!python_libraries("PyUnstable_Code_New").contains(&"python3.lib"));
/// ```
pub fn python_libraries(name: &str) -> Vec<&'static str> {
    index()
        .sections_of(name)
        .filter(|hit| hit.table == NameTable::Python && hit.library != PYTHON_DEBUG_SECTION)
        .map(|hit| hit.library)
        .collect()
}

/// The `dll` of a [`NameHit`] whose library is a static library, not an import library
/// (`legacy_stdio_definitions.lib`): the tables write it as `-`.
pub const NO_DLL: &str = "-";

/// One hit: the table, the import library file name to link (`"kernel32.lib"`), the DLL
/// (`"kernel32.dll"`, spelled as the source library spells it; [`NO_DLL`] for a static
/// library, see [`NameHit::dll_name`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NameHit {
    /// The table the name was found in.
    pub table: NameTable,
    /// The import library to link, e.g. `"kernel32.lib"`, `"ucrt.lib"`, `"amdhip64.lib"`.
    pub library: &'static str,
    /// The DLL the library imports from, e.g. `"kernel32.dll"`,
    /// `"api-ms-win-crt-string-l1-1-0.dll"`; `"hiprtc*.dll"` where the name is versioned;
    /// [`NO_DLL`] (`"-"`) when the library is a static one.
    pub dll: &'static str,
}

impl NameHit {
    /// The DLL, or `None` when the library is a static library (`dll` is [`NO_DLL`]).
    ///
    /// ```
    /// use lnkfix::rules::names::lookup;
    /// let hit = lookup("sprintf")[0];
    /// assert_eq!(hit.library, "legacy_stdio_definitions.lib");
    /// assert_eq!(hit.dll_name(), None);
    /// assert_eq!(lookup("CreateFileW")[0].dll_name(), Some("kernel32.dll"));
    /// ```
    pub fn dll_name(&self) -> Option<&'static str> {
        (self.dll != NO_DLL).then_some(self.dll)
    }

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
/// // The real kernel32.lib's own list (sdk-extra) answers before the windows crate's list.
/// assert_eq!(hits[0].table, NameTable::SdkExtra);
/// assert_eq!(hits[0].library, "kernel32.lib");
/// ```
pub fn lookup(name: &str) -> Vec<NameHit> {
    index().sections_of(name).copied().collect()
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

/// The crt-chain table: the names the MSVC default-library chain defines (symbol-db/rules.json
/// `chain`, kernel32.lib left out), from the real MSVC 14.44 / Windows SDK 10.0.26100 x64
/// libraries.
const CHAIN_TABLE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/symbol-db/names/crt-chain.txt"
));

/// One family of the default-library chain that provides a name, and the CRT flavours for which
/// it does (for each of them, the family's library is the first of the chain to define the name).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainHit {
    /// The family id of `symbol-db/rules.json`: `crt-startup`, `vcruntime`, `ucrt`,
    /// `cxx-stdlib` or `oldnames`.
    pub family: &'static str,
    /// The flavours, in [`Flavour::ALL`] order, never empty. The hits of one name have
    /// disjoint flavour sets.
    pub flavours: Vec<Flavour>,
}

/// Which family of the default-library chain provides a bare linker-level name (no `__imp_`,
/// C++ names with their x64 decoration), per CRT flavour: for each flavour the family of the
/// first library of that flavour's chain (`libcmt.lib libvcruntime.lib libucrt.lib
/// libcpmt.lib oldnames.lib` for `/MT`, ...) that defines it, as lnkfix reads the real
/// libraries. Hits are in table order (families in chain order); empty when no chain library
/// defines the name.
///
/// ```
/// use lnkfix::rules::names::chain_lookup;
/// use lnkfix::rules::Flavour;
/// let hits = chain_lookup("_malloc_dbg");
/// assert_eq!(hits[0].family, "ucrt");
/// assert_eq!(hits[0].flavours, [Flavour::StaticDebug, Flavour::DynamicDebug]);
/// ```
pub fn chain_lookup(name: &str) -> Vec<ChainHit> {
    chain_index()
        .sections_of(name)
        .map(|&(family, flavours)| ChainHit {
            family,
            flavours: flavours.iter().collect(),
        })
        .collect()
}

/// Whether the chain defines the name only for debug flavours (`/MTd`, `/MDd`) and for no
/// release flavour: `_malloc_dbg`, `_CrtDbgReportW`. False for names the chain lacks.
pub fn is_debug_only(name: &str) -> bool {
    let all = chain_index()
        .sections_of(name)
        .fold(FlavourSet::EMPTY, |all, &(_, flavours)| all.union(flavours));
    let debug = all.iter().any(Flavour::is_debug);
    debug && !all.iter().any(|flavour| !flavour.is_debug())
}

/// The crt-chain table's `source:` header lines: package, version, file inside the package,
/// sha256 and licence of every library read.
pub fn chain_provenance() -> Vec<&'static str> {
    CHAIN_TABLE
        .lines()
        .filter_map(|line| line.strip_prefix("# source: "))
        .collect()
}

/// A set of [`Flavour`]s as bits in [`Flavour::ALL`] order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FlavourSet(u8);

impl FlavourSet {
    const EMPTY: FlavourSet = FlavourSet(0);

    fn bit(flavour: Flavour) -> u8 {
        let position = Flavour::ALL.iter().position(|&f| f == flavour);
        1 << position.expect("Flavour::ALL lists every flavour")
    }

    fn union(self, other: FlavourSet) -> FlavourSet {
        FlavourSet(self.0 | other.0)
    }

    fn iter(self) -> impl Iterator<Item = Flavour> {
        Flavour::ALL
            .into_iter()
            .filter(move |&flavour| self.0 & FlavourSet::bit(flavour) != 0)
    }

    #[cfg(test)]
    /// `static,dynamic-debug`: flavour names in [`Flavour::ALL`] order, no repeats.
    fn parse(text: &str) -> Option<FlavourSet> {
        let mut set = FlavourSet::EMPTY;
        let mut last = None;
        for name in text.split(',') {
            let position = Flavour::ALL.iter().position(|f| f.name() == name)?;
            if last.is_some_and(|last| position <= last) {
                return None;
            }
            last = Some(position);
            set.0 |= 1 << position;
        }
        Some(set)
    }
}

/// The crt-chain table, compiled into sorted arrays by `build.rs`.
fn chain_index() -> StaticIndex<(&'static str, FlavourSet)> {
    StaticIndex {
        headers: &CHAIN_HEADERS,
        names: CHAIN_NAMES,
        ends: CHAIN_ENDS,
        sections: CHAIN_SECTIONS,
    }
}

/// The `[library dll]` tables, compiled into sorted arrays by `build.rs`.
fn index() -> StaticIndex<NameHit> {
    StaticIndex {
        headers: &NAME_HEADERS,
        names: NAME_NAMES,
        ends: NAME_ENDS,
        sections: NAME_SECTIONS,
    }
}

// `NAME_*` and `CHAIN_*`: the arrays `build.rs` writes from the embedded tables.
include!(concat!(env!("OUT_DIR"), "/name_index.rs"));

/// Name → the sections that list it, over one or more sectioned tables, sections in table
/// order, as sorted arrays that `build.rs` writes at compile time (a run builds nothing: it
/// searches them). Entry `i` is one (name, section) pair, each pair once; the entries are sorted
/// bytewise by name, and the entries of one name are in table order.
struct StaticIndex<H: 'static> {
    /// Every section header, in table order.
    headers: &'static [H],
    /// Every entry's name, concatenated.
    names: &'static [u8],
    /// Where each entry's name ends in `names`: u32 little-endian.
    ends: &'static [u8],
    /// Each entry's section (an index into `headers`): u16 little-endian.
    sections: &'static [u8],
}

impl<H> Clone for StaticIndex<H> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<H> Copy for StaticIndex<H> {}

impl<H> StaticIndex<H> {
    /// How many entries there are.
    fn len(&self) -> usize {
        self.ends.len() / 4
    }

    /// Entry `i`'s name.
    fn name(&self, i: usize) -> &'static [u8] {
        let end = |i: usize| {
            let bytes = &self.ends[i * 4..i * 4 + 4];
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize
        };
        let start = if i == 0 { 0 } else { end(i - 1) };
        &self.names[start..end(i)]
    }

    /// Entry `i`'s section header.
    fn header(&self, i: usize) -> &'static H {
        let section = u16::from_le_bytes([self.sections[i * 2], self.sections[i * 2 + 1]]);
        &self.headers[usize::from(section)]
    }

    /// The sections that list `name`, first section first.
    fn sections_of(self, name: &str) -> impl Iterator<Item = &'static H> {
        let name = name.as_bytes();
        let (mut low, mut high) = (0, self.len());
        while low < high {
            let middle = low + (high - low) / 2;
            if self.name(middle) < name {
                low = middle + 1;
            } else {
                high = middle;
            }
        }
        let mut end = low;
        while end < self.len() && self.name(end) == name {
            end += 1;
        }
        (low..end).map(move |i| self.header(i))
    }
}

/// The reference the compiled arrays are checked against: the tables parsed at run time into
/// hash maps, as lnkfix did before `build.rs` compiled them.
#[cfg(test)]
struct SectionIndex<H> {
    /// Every section header, in table order.
    sections: Vec<H>,
    /// Name → its first section (nearly every name has exactly one).
    first: HashMap<&'static str, u32>,
    /// Name → its further distinct sections, for the few names listed more than once.
    more: HashMap<&'static str, Vec<u32>>,
}

#[cfg(test)]
impl<H> SectionIndex<H> {
    fn new() -> Self {
        SectionIndex {
            sections: Vec::new(),
            first: HashMap::new(),
            more: HashMap::new(),
        }
    }

    /// Adds a table's sections and names. Lines that fail to parse are skipped; unit tests keep
    /// the committed tables free of them.
    fn add_table(&mut self, lines: impl Iterator<Item = Result<TableLine<H>, BadLine>>) {
        for line in lines.flatten() {
            match line {
                TableLine::Section(header) => self.sections.push(header),
                TableLine::Name(name) => {
                    let Some(section) = self.sections.len().checked_sub(1) else {
                        continue;
                    };
                    let section = section as u32;
                    match self.first.entry(name) {
                        Entry::Vacant(vacant) => {
                            vacant.insert(section);
                        }
                        Entry::Occupied(first) => {
                            let more = self.more.entry(name).or_default();
                            if *first.get() != section && !more.contains(&section) {
                                more.push(section);
                            }
                        }
                    }
                }
            }
        }
    }

    /// The sections that list `name`, first section first.
    fn sections_of(&self, name: &str) -> impl Iterator<Item = &H> + '_ {
        let first = self.first.get(name).copied();
        let more = first
            .and_then(|_| self.more.get(name))
            .map(Vec::as_slice)
            .unwrap_or_default();
        first
            .into_iter()
            .chain(more.iter().copied())
            .map(|section| &self.sections[section as usize])
    }
}

#[cfg(test)]
/// One meaningful line of a sectioned table.
#[derive(Debug, PartialEq, Eq)]
enum TableLine<H> {
    /// `[...]`, its inside parsed.
    Section(H),
    /// A name in the current section.
    Name(&'static str),
}

#[cfg(test)]
/// A table line that is neither a comment, a section header nor a name.
#[derive(Debug, PartialEq, Eq)]
struct BadLine {
    /// 1-based line number.
    line_number: usize,
    /// The offending text.
    text: &'static str,
}

#[cfg(test)]
/// The meaningful lines of a sectioned table (as `build.rs` reads them; kept to check its
/// arrays and the committed tables), comments (`#`) and blank lines dropped: a header
/// `[...]` whose inside `header` accepts, or a name (no whitespace) after the first header.
fn table_lines<H>(
    text: &'static str,
    mut header: impl FnMut(&'static str) -> Option<H>,
) -> impl Iterator<Item = Result<TableLine<H>, BadLine>> {
    let mut seen_section = false;
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(move |(number, line)| {
            let bad = BadLine {
                line_number: number + 1,
                text: line,
            };
            if let Some(inside) = line.strip_prefix('[') {
                let parsed = inside.strip_suffix(']').and_then(&mut header);
                seen_section |= parsed.is_some();
                parsed.map(TableLine::Section).ok_or(bad)
            } else if seen_section && !has_whitespace(line) {
                Ok(TableLine::Name(line))
            } else {
                Err(bad)
            }
        })
}

#[cfg(test)]
/// Whether `line` holds a whitespace character. Every byte is first tested for being a space,
/// a control or non-ASCII byte without stopping early (a loop the compiler vectorises; table names
/// are tens of bytes of plain ASCII); only a line with such a byte is decoded.
fn has_whitespace(line: &str) -> bool {
    let suspect = line
        .bytes()
        .fold(false, |suspect, b| suspect | (b <= b' ') | (b >= 0x80));
    suspect && line.contains(char::is_whitespace)
}

#[cfg(test)]
/// The lines of a `[library dll]` table.
fn name_table_lines(
    table: NameTable,
    text: &'static str,
) -> impl Iterator<Item = Result<TableLine<NameHit>, BadLine>> {
    table_lines(text, move |inside| {
        let mut fields = inside.split(' ');
        match (fields.next(), fields.next(), fields.next()) {
            (Some(library), Some(dll), None) if !library.is_empty() && !dll.is_empty() => {
                Some(NameHit {
                    table,
                    library,
                    dll,
                })
            }
            _ => None,
        }
    })
}

#[cfg(test)]
/// The lines of the crt-chain table, whose sections are `[family flavour,flavour,...]`.
fn chain_table_lines(
    text: &'static str,
) -> impl Iterator<Item = Result<TableLine<(&'static str, FlavourSet)>, BadLine>> {
    table_lines(text, |inside| {
        let mut fields = inside.split(' ');
        match (
            fields.next(),
            fields.next().map(FlavourSet::parse),
            fields.next(),
        ) {
            (Some(family), Some(Some(flavours)), None) if !family.is_empty() => {
                Some((family, flavours))
            }
            _ => None,
        }
    })
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
        ("hipblasSgemm",                   NameTable::HipSdk,      "hipblas.lib",         "hipblas.dll"),
        ("hipblasLtMatmul",                NameTable::HipSdk,      "hipblaslt.lib",       "hipblaslt.dll"),
        ("hipfftExecC2C",                  NameTable::HipSdk,      "hipfft.lib",          "hipfft.dll"),
        ("rocsparse_create_handle",        NameTable::HipSdk,      "rocsparse.lib",       "rocsparse.dll"),
        ("rocrand_create_generator",       NameTable::HipSdk,      "rocrand.lib",         "rocrand.dll"),
        ("rocblas_sgemm",                  NameTable::HipSdk,      "rocblas.lib",         "rocblas.dll"),
        ("rocblas_create_handle",          NameTable::HipSdk,      "rocblas.lib",         "rocblas.dll"),
        ("rocsolver_dgetrf",               NameTable::HipSdk,      "rocsolver.lib",       "rocsolver.dll"),
        ("rocfft_plan_create",             NameTable::HipSdk,      "rocfft.lib",          "rocfft.dll"),
        ("initModule",                     NameTable::Torch,       "torch_python.lib",    "torch_python.dll"),
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
        ("sprintf",                        NameTable::SdkExtra,    "legacy_stdio_definitions.lib", NO_DLL),
        ("_vsnprintf",                     NameTable::SdkExtra,    "legacy_stdio_definitions.lib", NO_DLL),
        ("sscanf",                         NameTable::SdkExtra,    "legacy_stdio_definitions.lib", NO_DLL),
        ("NtSuspendProcess",               NameTable::SdkExtra,    "ntdll.lib",           "ntdll.dll"),
        ("RtlCreateUserThread",            NameTable::SdkExtra,    "ntdll.lib",           "ntdll.dll"),
        // Listed by the Windows API table already; sdk-extra.txt adds only what it lacks.
        ("NtQueryInformationProcess",      NameTable::WindowsApi,  "ntdll.lib",           "ntdll.dll"),
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
                // The real kernel32.lib's list (sdk-extra) now answers before the windows crate's;
                // what matters is the library and DLL.
                let hits = lookup(name);
                let first = hits
                    .first()
                    .map(|h| (h.library, h.dll.to_ascii_lowercase()));
                let _ = want.table;
                (first != Some((want.library, want.dll.to_ascii_lowercase())))
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

    /// The HIP SDK table lists rocBLAS, rocSOLVER and rocFFT by name, each name under the one
    /// library of its prefix; RCCL and rocTX, which the Windows HIP SDK does not ship, under none.
    #[test]
    fn hip_sdk_table_has_the_roc_math_libraries_and_not_rccl_or_roctx() {
        let mut counts: HashMap<&str, usize> = HashMap::new();
        let mut library = "";
        for line in name_table_lines(NameTable::HipSdk, NameTable::HipSdk.text()).flatten() {
            match line {
                TableLine::Section(hit) => library = hit.library,
                TableLine::Name(name) => {
                    for (prefix, want) in [
                        ("rocblas_", "rocblas.lib"),
                        ("rocsolver_", "rocsolver.lib"),
                        ("rocfft_", "rocfft.lib"),
                    ] {
                        if name.starts_with(prefix) {
                            assert_eq!(library, want, "{name}");
                            *counts.entry(want).or_default() += 1;
                        }
                    }
                    assert!(!name.starts_with("_Z"), "{name}");
                }
            }
        }
        // Debian 13's rocBLAS 5.5.1, rocSOLVER 5.5.1 and rocFFT 6.1.2 export 629, 719 and 28.
        assert_eq!(counts.get("rocblas.lib"), Some(&629));
        assert_eq!(counts.get("rocsolver.lib"), Some(&719));
        assert_eq!(counts.get("rocfft.lib"), Some(&28));
        for name in [
            "roctxRangePushA",
            "roctxMarkA",
            "ncclAllReduce",
            "pncclAllReduce",
        ] {
            assert!(lookup(name).is_empty(), "{name}: {:?}", lookup(name));
        }
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
            let lines: Vec<_> = name_table_lines(table, table.text()).collect();
            let bad: Vec<_> = lines
                .iter()
                .filter_map(|line| line.as_ref().err())
                .collect();
            assert!(bad.is_empty(), "{}: {bad:?}", table.file_name());
            let mut names_in_section: Vec<&str> = Vec::new();
            let mut names = 0;
            let end = TableLine::Section(NameHit {
                table,
                library: "",
                dll: "",
            });
            for line in lines.into_iter().flatten().chain([end]) {
                match line {
                    TableLine::Section(_) => {
                        assert!(
                            names_in_section.windows(2).all(|pair| pair[0] < pair[1]),
                            "{}: section not sorted or has duplicates",
                            table.file_name()
                        );
                        names_in_section.clear();
                    }
                    TableLine::Name(name) => {
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
    fn static_library_hits_have_no_dll() {
        let sprintf = lookup("sprintf")[0];
        assert_eq!(sprintf.dll, NO_DLL);
        assert_eq!(sprintf.dll_name(), None);
        assert!(!sprintf.is_api_set());
        assert_eq!(lookup("NtSuspendProcess")[0].dll_name(), Some("ntdll.dll"));
        assert_eq!(NameTable::SdkExtra.static_library(), None);
    }

    use Flavour::{Dynamic, DynamicDebug, Static, StaticDebug};
    const ALL_FLAVOURS: [Flavour; 4] = [Static, Dynamic, StaticDebug, DynamicDebug];

    /// A chain hit as `(family, flavours)`.
    type Want = (&'static str, &'static [Flavour]);

    /// (name, hits) as the real libraries define them.
    #[rustfmt::skip]
    const CHAIN_REQUIRED: &[(&str, &[Want])] = &[
        ("_tls_index",                     &[("crt-startup", &ALL_FLAVOURS)]),
        ("__security_check_cookie",        &[("crt-startup", &ALL_FLAVOURS)]),
        ("atexit",                         &[("crt-startup", &ALL_FLAVOURS)]),
        ("??2@YAPEAX_K@Z",                 &[("crt-startup", &ALL_FLAVOURS)]),
        ("__std_search_1",                 &[("cxx-stdlib", &ALL_FLAVOURS)]),
        ("__std_find_trivial_1",           &[("cxx-stdlib", &ALL_FLAVOURS)]),
        ("?_Xlength_error@std@@YAXPEBD@Z", &[("cxx-stdlib", &ALL_FLAVOURS)]),
        ("memcpy",                         &[("vcruntime", &ALL_FLAVOURS)]),
        ("memset",                         &[("vcruntime", &ALL_FLAVOURS)]),
        ("__CxxFrameHandler4",             &[("vcruntime", &ALL_FLAVOURS)]),
        ("wcsnlen",                        &[("ucrt", &ALL_FLAVOURS)]),
        ("malloc",                         &[("ucrt", &ALL_FLAVOURS)]),
        ("_malloc_dbg",                    &[("ucrt", &[StaticDebug, DynamicDebug])]),
        ("_CrtDbgReportW",                 &[("ucrt", &[StaticDebug, DynamicDebug])]),
        // The inline printf is compiled into libucrt(d).lib only; ucrt.lib imports none.
        ("printf",                         &[("ucrt", &[Static, StaticDebug])]),
        // Not debug-only: libucrt.lib defines it too, ucrt.lib does not.
        ("_invalid_parameter",             &[("ucrt", &[Static, StaticDebug, DynamicDebug])]),
        ("open",                           &[("oldnames", &ALL_FLAVOURS)]),
        // An inline function: libvcruntime(d).lib for /MT(d), msvcprt(d).lib for /MD(d).
        ("snprintf",                       &[("vcruntime", &[Static, StaticDebug]), ("cxx-stdlib", &[Dynamic, DynamicDebug])]),
    ];

    #[test]
    fn chain_required_outcomes() {
        let failures: Vec<String> = CHAIN_REQUIRED
            .iter()
            .filter_map(|&(name, want)| {
                let got = chain_lookup(name);
                let want: Vec<ChainHit> = want
                    .iter()
                    .map(|&(family, flavours)| ChainHit {
                        family,
                        flavours: flavours.to_vec(),
                    })
                    .collect();
                (got != want).then(|| format!("{name}: got {got:?}, want {want:?}"))
            })
            .collect();
        assert!(failures.is_empty(), "{}", failures.join("\n"));
    }

    #[test]
    fn chain_debug_only() {
        for name in [
            "_malloc_dbg",
            "_CrtDbgReportW",
            "_CrtDbgReport",
            "_free_dbg",
        ] {
            assert!(is_debug_only(name), "{name}");
        }
        for name in ["malloc", "_invalid_parameter", "memcpy", "NoSuchName", ""] {
            assert!(!is_debug_only(name), "{name}");
        }
    }

    #[test]
    fn chain_unknown_and_bare_only() {
        assert!(chain_lookup("NoSuchFunctionAnywhere").is_empty());
        assert!(chain_lookup("").is_empty());
        assert!(chain_lookup("__imp_malloc").is_empty());
        // kernel32.lib is left out of the chain table: windows-api.txt has it.
        assert!(chain_lookup("CreateFileW").is_empty());
        // legacy_stdio_definitions.lib is no chain library.
        assert!(chain_lookup("sprintf").is_empty());
    }

    #[test]
    fn chain_table_parses_cleanly() {
        const FAMILIES: [&str; 5] = ["crt-startup", "vcruntime", "ucrt", "cxx-stdlib", "oldnames"];
        let lines: Vec<_> = chain_table_lines(CHAIN_TABLE).collect();
        let bad: Vec<_> = lines
            .iter()
            .filter_map(|line| line.as_ref().err())
            .collect();
        assert!(bad.is_empty(), "crt-chain.txt: {bad:?}");
        let mut sections = Vec::new();
        let mut names_in_section: Vec<&str> = Vec::new();
        let mut names = 0;
        let end = TableLine::Section(("", FlavourSet::EMPTY));
        for line in lines.into_iter().flatten().chain([end]) {
            match line {
                TableLine::Section((family, flavours)) => {
                    assert!(
                        names_in_section.windows(2).all(|pair| pair[0] < pair[1]),
                        "section before [{family}] not sorted or has duplicates"
                    );
                    names_in_section.clear();
                    if !family.is_empty() {
                        assert!(FAMILIES.contains(&family), "unknown family {family}");
                        assert!(!sections.contains(&(family, flavours)), "[{family}] twice");
                        sections.push((family, flavours));
                    }
                }
                TableLine::Name(name) => {
                    // `__imp_X` only where its exact definition is in another library than X's.
                    assert!(
                        !name.starts_with("__imp_") || !chain_lookup(&name[6..]).is_empty(),
                        "{name}"
                    );
                    names += 1;
                    names_in_section.push(name);
                }
            }
        }
        assert!(names > 15_000, "crt-chain.txt has {names} names");
        // A name is in several sections only with disjoint flavour sets.
        let index = chain_reference();
        for (&name, more) in &index.more {
            let mut seen = index.sections[index.first[name] as usize].1;
            for &section in more {
                let flavours = index.sections[section as usize].1;
                assert_eq!(seen.0 & flavours.0, 0, "{name}: flavours overlap");
                seen = seen.union(flavours);
            }
        }
    }

    /// The crt-chain table parsed at run time (the reference).
    fn chain_reference() -> SectionIndex<(&'static str, FlavourSet)> {
        let mut index = SectionIndex::new();
        index.add_table(chain_table_lines(CHAIN_TABLE));
        index
    }

    /// The `[library dll]` tables parsed at run time (the reference).
    fn reference() -> SectionIndex<NameHit> {
        let mut index = SectionIndex::new();
        for table in NameTable::ALL {
            index.add_table(name_table_lines(table, table.text()));
        }
        index
    }

    /// Every name of `reference`, and names near them, answer the same from `compiled`; and
    /// `compiled` holds no name `reference` lacks.
    fn same_answers<H: PartialEq + std::fmt::Debug>(
        reference: &SectionIndex<H>,
        compiled: StaticIndex<H>,
    ) {
        let mut entries = 0;
        for &name in reference.first.keys() {
            entries += 1 + reference.more.get(name).map_or(0, Vec::len);
            let want: Vec<&H> = reference.sections_of(name).collect();
            let got: Vec<&H> = compiled.sections_of(name).collect();
            assert_eq!(got, want, "{name}");
            for near in [
                name.get(1..).unwrap_or(""),
                &format!("{name}_"),
                &format!("_{name}"),
            ] {
                let want: Vec<&H> = reference.sections_of(near).collect();
                let got: Vec<&H> = compiled.sections_of(near).collect();
                assert_eq!(got, want, "{near}");
            }
        }
        assert_eq!(compiled.len(), entries);
        assert!(compiled.sections_of("").next().is_none());
        assert!(compiled.sections_of("\u{ffff}").next().is_none());
        assert!(compiled.sections_of("\0").next().is_none());
    }

    #[test]
    fn compiled_tables_answer_as_parsed_tables() {
        same_answers(&reference(), index());
        same_answers(&chain_reference(), chain_index());
        // The build script's section headers are the parser's, in the same order.
        assert_eq!(reference().sections, index().headers);
        assert_eq!(chain_reference().sections, chain_index().headers);
    }

    #[test]
    fn chain_provenance_names_every_library() {
        let lines = chain_provenance();
        for library in [
            "libcmt.lib",
            "libvcruntime.lib",
            "libucrt.lib",
            "libcpmt.lib",
            "oldnames.lib",
            "msvcrt.lib",
            "vcruntime.lib",
            "ucrt.lib",
            "msvcprt.lib",
            "libcmtd.lib",
            "libvcruntimed.lib",
            "libucrtd.lib",
            "libcpmtd.lib",
            "msvcrtd.lib",
            "vcruntimed.lib",
            "ucrtd.lib",
            "msvcprtd.lib",
        ] {
            assert!(
                lines
                    .iter()
                    .any(|line| line.contains(&format!("/{library}, sha256 "))),
                "{library} has no provenance"
            );
        }
    }

    #[test]
    fn flavour_sets() {
        assert_eq!(
            FlavourSet::parse("static,dynamic-debug").map(|s| s.iter().collect::<Vec<_>>()),
            Some(vec![Static, DynamicDebug])
        );
        assert_eq!(FlavourSet::parse("dynamic,static"), None);
        assert_eq!(FlavourSet::parse("static,static"), None);
        assert_eq!(FlavourSet::parse("release"), None);
        assert_eq!(FlavourSet::parse(""), None);
        let lines: Vec<_> =
            chain_table_lines("[ucrt static]\nmalloc\n[ucrt]\n[ucrt bogus]\nA B\n").collect();
        let bad: Vec<usize> = lines
            .iter()
            .filter_map(|line| line.as_ref().err().map(|bad| bad.line_number))
            .collect();
        assert_eq!(bad, [3, 4, 5]);
    }

    #[test]
    fn bad_lines_are_reported() {
        let text = "# c\nOrphan\n[only-one]\n[a.lib a.dll]\nName\nTwo words\n";
        let lines: Vec<_> = name_table_lines(NameTable::Ucrt, text).collect();
        let bad: Vec<usize> = lines
            .iter()
            .filter_map(|line| line.as_ref().err().map(|bad| bad.line_number))
            .collect();
        assert_eq!(bad, [2, 3, 6]);
    }
}
