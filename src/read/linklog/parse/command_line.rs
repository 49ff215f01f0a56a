//! Compiler and linker command lines in the log: the options that select a CRT (`/MD`,
//! `-fms-runtime-lib=`, `/DEFAULTLIB:`, ...) and the target machine (`/machine:`, the compiler
//! banner).

use std::sync::OnceLock;

use crate::index::Machine;

use super::{
    is_pattern_space, patterns, CrtOption, Event, LinkCommand, LinkLineLibrary, TorchVersion,
};

/// Appends the CRT options and the machine a command line shows, the libraries a linker
/// command line names and the torch versions it shows.
pub(super) fn scan(line: &str, line_number: u64, events: &mut Vec<Event>) {
    let p = patterns();
    let bytes = line.as_bytes();
    let (linker, torch) = linker_or_torch(bytes);
    if linker {
        link_line_libraries(line, line_number, events);
    }
    if torch {
        torch_versions(line, line_number, events);
    }
    if let Some(m) = build_platform(bytes) {
        events.push(Event::Machine(m));
        if let Some(version) = node_gyp_version(line) {
            events.push(Event::NodeVersion(version));
        }
    }
    let maybe_option = memchr::memchr2(b'/', b'-', bytes).is_some();
    if !maybe_option {
        return;
    }
    let (maybe_crt, maybe_machine) = option_hints(bytes);
    let crt_options = if maybe_crt {
        crt_options(line)
    } else {
        Vec::new()
    };
    for (option, end) in crt_options {
        let boundary = line[end..].chars().next();
        if boundary.is_some_and(|b| !b.is_whitespace() && b != '"' && b != '\'') {
            continue;
        }
        events.push(Event::CrtOption(CrtOption {
            option: option.trim_matches('"').to_string(),
            line: line_number,
        }));
    }
    if let Some(c) = maybe_machine.then(|| p.machine.captures(line)).flatten() {
        let machine = c
            .name("m")
            .or_else(|| c.name("b"))
            .or_else(|| c.name("c"))
            .or_else(|| c.name("h"))
            .map(|m| m.as_str().to_ascii_lowercase());
        // The pattern names only machines `parse_arch` knows; anything else is skipped.
        let machine = machine.and_then(|m| match m.as_str() {
            "80x86" | "win32" => Some(Machine::X86),
            other => Machine::parse_arch(other),
        });
        if let Some(m) = machine {
            events.push(Event::Machine(m));
        }
    }
}

/// The Node version of node-gyp's `gyp info using node@20.11.1 | win32 | x64`.
fn node_gyp_version(line: &str) -> Option<String> {
    let rest = &line[line.find("using node@")? + "using node@".len()..];
    let version: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
        .collect();
    (!version.is_empty() && version.len() < 32 && version.starts_with(|c: char| c.is_ascii_digit()))
        .then_some(version)
}

/// The machine a build tool's own line names: node-gyp's `gyp info using node@V | win32 | ia32`
/// (the `--arch` it builds for) and MSBuild's `Platform=Win32`/`Platform=x64` property, as
/// node-gyp and `msbuild /p:` pass it.
fn build_platform(bytes: &[u8]) -> Option<Machine> {
    /// A word after the marker, and the machine it names.
    type Arch = (&'static [u8], Machine);
    const ARCH_AFTER: &[(&[u8], &[Arch])] = &[
        (
            b"| win32 | ",
            &[
                (b"ia32", Machine::X86),
                (b"x64", Machine::X64),
                (b"arm64", Machine::Arm64),
            ],
        ),
        (
            b"Platform=",
            &[
                (b"Win32", Machine::X86),
                (b"x86", Machine::X86),
                (b"x64", Machine::X64),
                (b"ARM64", Machine::Arm64),
            ],
        ),
    ];
    for (marker, arches) in ARCH_AFTER {
        let Some(at) = memchr::memmem::find(bytes, marker) else {
            continue;
        };
        let rest = &bytes[at + marker.len()..];
        for (word, machine) in *arches {
            let ends = rest
                .get(word.len())
                .is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'_');
            if rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word) && ends {
                return Some(*machine);
            }
        }
    }
    None
}

/// The CRT options on a command line and where each match ends, as `crt_option.captures_iter`
/// finds them (the option, and the end of the whole match): by hand for ASCII lines, through the
/// pattern for others (a test compares both on generated lines).
pub(super) fn crt_options(line: &str) -> Vec<(&str, usize)> {
    if !line.is_ascii() {
        return patterns()
            .crt_option
            .captures_iter(line)
            .filter_map(|c| Some((c.name("opt")?.as_str(), c.get(0)?.end())))
            .collect();
    }
    let bytes = line.as_bytes();
    let space_or_quote = |b: u8| matches!(b, b'"' | b'\'') || is_pattern_space(b);
    let mut out = Vec::new();
    // Option starts in order; after a match, the next one starts past it (a boundary character
    // is part of the match it opens, as in the pattern). Every alternative starts with `/` or
    // `-`, so only those bytes are tried.
    let mut free_from = 0;
    for at in memchr::memchr2_iter(b'/', b'-', bytes) {
        if at < free_from || (at > 0 && (at == free_from || !space_or_quote(bytes[at - 1]))) {
            continue;
        }
        if let Some(length) = crt_option_at(&line[at..]) {
            out.push((&line[at..at + length], at + length));
            free_from = at + length;
        }
    }
    out
}

/// The length of the CRT option `text` starts with, per the `crt_option` pattern's alternatives
/// in order (ASCII text).
fn crt_option_at(text: &str) -> Option<usize> {
    let word = |b: u8| !(matches!(b, b'"' | b'\'') || is_pattern_space(b));
    let run = |rest: &str| rest.bytes().take_while(|&b| word(b)).count();
    let switch = text.strip_prefix(['/', '-']);
    if let Some(rest) = switch {
        let runtime = ["MDd", "MTd", "MD", "MT", "LDd", "LD"];
        if let Some(name) = runtime.iter().find(|name| rest.starts_with(*name)) {
            return Some(1 + name.len());
        }
    }
    if let Some(rest) = text.strip_prefix("-fms-runtime-lib=") {
        let kind = rest
            .bytes()
            .take_while(|b| b.is_ascii_lowercase() || *b == b'_')
            .count();
        return (kind > 0).then_some(text.len() - rest.len() + kind);
    }
    if let Some(rest) = text.strip_prefix("--dependent-lib=") {
        let name = run(rest);
        return (name > 0).then_some(text.len() - rest.len() + name);
    }
    let rest = switch?;
    if let Some(value) = rest.strip_prefix("DEFAULTLIB:") {
        let quote = usize::from(value.starts_with('"'));
        let name = run(&value[quote..]);
        return (name > 0).then_some(text.len() - value.len() + quote + name);
    }
    if let Some(value) = rest.strip_prefix("NODEFAULTLIB") {
        let name = value.strip_prefix(':').map_or(0, run);
        let with_name = if name > 0 { 1 + name } else { 0 };
        return Some(text.len() - value.len() + with_name);
    }
    if rest.starts_with("Zl") {
        return Some(3);
    }
    text.starts_with("-D_DLL").then_some(6)
}

/// Whether a line may hold a CRT option and whether it may name a machine: one scan for the
/// substrings the two patterns cannot match without.
fn option_hints(line: &[u8]) -> (bool, bool) {
    const CRT: &[&str] = &["/M", "-M", "/L", "-L", "lib", "LIB", "Zl", "_DLL"];
    const MACHINE: &[&str] = &[
        "achine",
        "ACHINE",
        "Compiler Version",
        "Configuration: ",
        "HostX",
        "Hostx",
    ];
    static HINTS: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    // No needle of one kind starts inside a needle of the other, so non-overlapping matches
    // find both kinds whenever both occur.
    let hints = HINTS.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .match_kind(aho_corasick::MatchKind::LeftmostFirst)
            .build(CRT.iter().chain(MACHINE))
            .expect("plain strings")
    });
    let (mut crt, mut machine) = (false, false);
    for m in hints.find_iter(line) {
        if m.pattern().as_usize() < CRT.len() {
            crt = true;
        } else {
            machine = true;
        }
        if crt && machine {
            break;
        }
    }
    (crt, machine)
}

/// Whether a line may run a linker (`link.exe`, `lld-link`, cl's `/link`) and whether it names
/// torch: one case-insensitive scan.
fn linker_or_torch(line: &[u8]) -> (bool, bool) {
    static NEEDLES: OnceLock<aho_corasick::AhoCorasick> = OnceLock::new();
    let needles = NEEDLES.get_or_init(|| {
        aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(["link.exe", "lld-link", " /link ", " -link ", "torch"])
            .expect("plain strings")
    });
    let (mut linker, mut torch) = (false, false);
    for m in needles.find_iter(line) {
        if m.pattern().as_usize() == 4 {
            torch = true;
        } else {
            linker = true;
        }
        if linker && torch {
            break;
        }
    }
    (linker, torch)
}

/// Most libraries kept from one command line.
const MAX_LINE_LIBRARIES: usize = 256;

/// Longest path kept from a command line (a library, the output, the import library): far past
/// any real one (MAX_PATH is 260), and what bounds the memory a hostile log can make the kept
/// libraries take (16384 of them at most: 16 MiB).
const MAX_PATH_WORD: usize = 1024;

/// Where the linker's own arguments start on a line that runs it: after `link.exe`,
/// `lld-link` (any case, any path) or cl's `/link`; `None` for other lines.
fn linker_arguments(line: &str) -> Option<usize> {
    if line.len() > 1 << 20 {
        return None;
    }
    let lower = line.to_ascii_lowercase();
    ["link.exe", "lld-link", " /link ", " -link "]
        .iter()
        .filter_map(|program| lower.find(program).map(|at| at + program.len()))
        .min()
}

/// The `.lib` files a linker command line names: words that are not options (`/OUT:x.lib`,
/// `/DEFAULTLIB:x.lib` and `-lx` are not: a default library may be cancelled), quotes removed.
fn link_line_libraries(line: &str, line_number: u64, events: &mut Vec<Event>) {
    let Some(start) = linker_arguments(line) else {
        return;
    };
    // `lld-link: error: ...` is the linker speaking, not run.
    if line[start..].starts_with(':') {
        return;
    }
    events.push(Event::LinkCommand(LinkCommand {
        line: line_number,
        output: link_output(&line[start..]),
        import_library: link_import_library(&line[start..]),
    }));
    let mut kept = 0;
    for word in line[start..].split_whitespace() {
        let word = word.trim_matches(['"', '\'']);
        let option = word.starts_with('-')
            || (word.starts_with('/') && (word.contains(':') || !word[1..].contains('/')));
        let lower = word.to_ascii_lowercase();
        if option
            || word.starts_with('@')
            || !lower.ends_with(".lib")
            || lower == ".lib"
            || word.len() > MAX_PATH_WORD
        {
            continue;
        }
        events.push(Event::LinkLineLibrary(LinkLineLibrary {
            library: word.to_string(),
            line: line_number,
        }));
        kept += 1;
        if kept >= MAX_LINE_LIBRARIES {
            break;
        }
    }
}

/// The file name a linker's arguments give their output (`/OUT:"C:\\b\\b.dll"`, `-out:b.dll`,
/// `-o b.exe`), quotes removed.
fn link_output(arguments: &str) -> Option<String> {
    link_file_option(arguments, "out:", true)
}

/// The file name a linker's arguments give the import library they make (`/IMPLIB:lib\\b.lib`,
/// `-implib:b.lib`), quotes removed.
fn link_import_library(arguments: &str) -> Option<String> {
    link_file_option(arguments, "implib:", false)
}

/// The file name of the last `/NAME:` or `-NAME:` option (`name` is `out:`, lower case), or of
/// `-o FILE` when `dash_o`, quotes and directories removed.
fn link_file_option(arguments: &str, name: &str, dash_o: bool) -> Option<String> {
    let mut words = arguments.split_whitespace();
    let mut value = None;
    let width = name.len() + 1;
    while let Some(word) = words.next() {
        let word = word.trim_start_matches('"');
        let option = word.get(..width).map(str::to_ascii_lowercase);
        if option
            .as_deref()
            .is_some_and(|o| (o.starts_with('/') || o.starts_with('-')) && o[1..] == *name)
        {
            value = Some(&arguments[offset_in(arguments, word) + width..]);
        } else if dash_o && word == "-o" {
            value = words.next().map(|w| &arguments[offset_in(arguments, w)..]);
        }
    }
    let value = value?;
    let value = match value.strip_prefix('"') {
        Some(quoted) => quoted.split('"').next().unwrap_or(quoted),
        None => value.split(char::is_whitespace).next().unwrap_or(value),
    };
    let name = value.rsplit(['\\', '/']).next().unwrap_or(value);
    (!name.is_empty() && name.len() <= MAX_PATH_WORD)
        .then(|| name.trim_end_matches('"').to_string())
}

/// Where `part`, a slice of `text`, starts in it.
fn offset_in(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

/// The torch versions a line shows: a `libtorch...-X.Y[.Z][+tag]` directory in an include
/// option or path (the headers) or in a library path or `/LIBPATH:` (the libraries), and
/// collect_env's `PyTorch version: X.Y.Z` (the installed torch).
fn torch_versions(line: &str, line_number: u64, events: &mut Vec<Event>) {
    static VERSION: OnceLock<regex::Regex> = OnceLock::new();
    if line.len() > 1 << 20 {
        return;
    }
    let version = VERSION.get_or_init(|| {
        regex::Regex::new(r"(?i)(?:libtorch[\w.+-]*?[-_]|^pytorch version:\s*)(\d+\.\d+(?:\.\d+)?(?:\+[a-z0-9]+)?)")
            .expect("a valid pattern")
    });
    let trimmed = line.trim();
    if let Some(c) = version.captures(trimmed).filter(|_| {
        trimmed
            .get(..16)
            .is_some_and(|head| head.eq_ignore_ascii_case("pytorch version:"))
    }) {
        events.push(Event::TorchVersion(TorchVersion {
            version: c[1].to_string(),
            of: "installed".into(),
            line: line_number,
        }));
        return;
    }
    let mut seen: Vec<(String, &str)> = Vec::new();
    for word in line.split_whitespace() {
        let word = word.trim_matches(['"', '\'']);
        let Some(c) = version.captures(word) else {
            continue;
        };
        let lower = word.to_ascii_lowercase().replace('\\', "/");
        let of = if lower.starts_with("-i")
            || lower.starts_with("/i")
            || lower.starts_with("/external:i")
            || lower.starts_with("-isystem")
            || lower.contains("/include")
        {
            "headers"
        } else if lower.starts_with("/libpath:")
            || lower.starts_with("-libpath:")
            || lower.ends_with(".lib")
            || lower.contains("/lib/")
            || lower.ends_with("/lib")
        {
            "libraries"
        } else {
            continue;
        };
        let found = (c[1].to_string(), of);
        if !seen.contains(&found) {
            seen.push(found.clone());
            events.push(Event::TorchVersion(TorchVersion {
                version: found.0,
                of: of.into(),
                line: line_number,
            }));
        }
    }
}
