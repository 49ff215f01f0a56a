//! One function per fuzz target: what a single input is run through and which properties must hold.
//!
//! Shared by the cargo-fuzz binaries (`fuzz_targets/*.rs`) and by the regression tests of the main
//! package (`tests/it/fuzz_regressions.rs` includes this file by path), so a kept crash input is
//! replayed through exactly the code that found it, without the fuzz toolchain. Depends on `lnkfix`
//! and `std` only.
//!
//! A panic is a finding even where lnkfix catches it (the index's and the demangler's last-resort
//! guards): the guard keeps the run going, but the panic message still reaches the user's stderr and
//! the input still lost its symbols. Under libFuzzer the panic hook aborts before any guard sees the
//! panic; without it (the regression tests) each function checks for the guard's warning instead.

use std::io::Cursor;
use std::path::PathBuf;
use std::sync::OnceLock;

use lnkfix::fix::patch::{plan_patch, DefaultLibChain, HipLibrary, PatchOutcome, PatchPlan};
use lnkfix::index::{write_list, write_summary, Index, IndexOptions};
use lnkfix::output::format::Format;
use lnkfix::resolve::{diagnose, DiagnoseOptions};
use lnkfix::rules::RuleBook;

/// Target `log_reader`: log bytes → records → a diagnosis with the built-in rule book.
pub fn log_reader(data: &[u8]) {
    static BOOK: OnceLock<RuleBook> = OnceLock::new();
    let book = BOOK.get_or_init(RuleBook::builtin);
    let failure = lnkfix::read::symbols::collect(Cursor::new(data.to_vec()), Default::default())
        .expect("reading from memory cannot fail");
    let lines = failure.stats.lines;
    let diagnosis = diagnose(failure, book, &DiagnoseOptions::default());
    // The counts must describe the symbols listed: those no other failure class explains.
    let counted = diagnosis
        .symbols
        .iter()
        .filter(|s| s.explained_by().is_none())
        .count();
    assert_eq!(diagnosis.counts.unresolved, counted);
    assert!(diagnosis.counts.crt_or_system + diagnosis.counts.unknown <= counted);
    // Both reports render whatever the log held.
    let mut out = Vec::new();
    lnkfix::output::report::write_text(&diagnosis, book, &mut out, Default::default()).unwrap();
    lnkfix::output::report::write_json(&diagnosis, &mut out).unwrap();
    assert!(
        lines <= data.len() as u64 + 1,
        "{lines} lines from {} bytes",
        data.len()
    );
}

/// The stack the demangler must fit in: the default of a spawned thread (and of a `cargo test`
/// thread), far less than a main thread's 8 MiB.
pub const DEMANGLE_STACK: usize = 2 << 20;

/// Target `demangle`: the guarded demangler and the canonical form, on any text, on a thread with
/// a [`DEMANGLE_STACK`] stack: a name the guard lets through must not overflow it.
pub fn demangle(data: &[u8]) {
    let data = data.to_vec();
    let thread = std::thread::Builder::new()
        .stack_size(DEMANGLE_STACK)
        .spawn(move || demangle_on_this_thread(&data))
        .expect("spawn the demangling thread");
    if let Err(panic) = thread.join() {
        std::panic::resume_unwind(panic);
    }
}

fn demangle_on_this_thread(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    for name in [
        text.to_string(),
        format!("?{text}"),
        format!("__imp_?{text}"),
    ] {
        let demangled = lnkfix::read::demangle::demangle(&name);
        if let Some(warning) = &demangled.warning {
            assert!(
                !warning.contains("the demangler failed"),
                "msvc-demangler panicked on {name:?}"
            );
        } else if let Some(bare) =
            Some(name.strip_prefix("__imp_").unwrap_or(&name)).filter(|bare| bare.starts_with('?'))
        {
            // What the guard let through stays within the bound it computed beforehand.
            let bound = lnkfix::read::demangle::output_bound(bare)
                .expect("a name demangled without warning has a bound");
            assert!(
                demangled.text.len() as u64 <= bound,
                "{name:?} demangled to {} bytes, over its bound of {bound}",
                demangled.text.len()
            );
        }
        let canonical = lnkfix::read::demangle::canonical(&demangled.text);
        // Canonicalising is idempotent: a canonical name matches itself.
        assert_eq!(
            lnkfix::read::demangle::canonical(&canonical),
            canonical,
            "canonical form of {:?} is not stable",
            demangled.text
        );
    }
    lnkfix::read::demangle::canonical(&text);
}

/// A scratch file for one input: in the system temp directory, named after this process and
/// thread (fuzzers and test threads may run side by side), with the extension that selects the
/// reader.
fn scratch_file(extension: &str) -> PathBuf {
    let thread = format!("{:?}", std::thread::current().id());
    let thread: String = thread.chars().filter(char::is_ascii_digit).collect();
    std::env::temp_dir().join(format!(
        "lnkfix-fuzz-{}-{thread}.{extension}",
        std::process::id()
    ))
}

/// Writes the input to a scratch file with `extension` and indexes it: the format is chosen by
/// content (`!<arch>`, `MZ`, the MSF magic, a COFF header) and, for `.def`, by the extension.
fn index_file(data: &[u8], extension: &str) {
    let path = scratch_file(extension);
    std::fs::write(&path, data).expect("write the scratch file");
    let (index, warnings) = Index::build(std::slice::from_ref(&path), &IndexOptions::default());
    let _ = std::fs::remove_file(&path);
    for warning in &warnings {
        assert!(
            !warning.message.contains("parser panicked"),
            "a reader panicked: {warning:?}"
        );
    }
    // Every symbol is findable under its own name.
    for symbol in index.symbols() {
        assert!(
            index.lookup(&symbol.name).iter().any(|s| s == symbol),
            "{:?} is in the index but not found by lookup",
            symbol.name
        );
    }
    for symbol in index.other_machine_symbols() {
        assert!(
            index
                .lookup_other_machines(&symbol.name)
                .iter()
                .any(|s| s == symbol),
            "{:?} (other machine) is in the index but not found by lookup",
            symbol.name
        );
    }
    // Every report renders whatever the file held.
    let mut out = Vec::new();
    for format in [Format::Text, Format::Json] {
        write_summary(&index, &warnings, &mut out, format).unwrap();
        write_list(&index, &mut out, format).unwrap();
    }
}

/// Target `archive`: COFF archives, objects (regular, bigobj, `/GL`) and import members.
pub fn archive(data: &[u8]) {
    index_file(data, "lib");
}

/// Target `pe_exports`: the export table of a DLL.
pub fn pe_exports(data: &[u8]) {
    index_file(data, "dll");
}

/// Target `def_file`: module-definition files.
pub fn def_file(data: &[u8]) {
    index_file(data, "def");
}

/// Target `pdb`: publics, modules and section contributions of a PDB.
pub fn pdb(data: &[u8]) {
    index_file(data, "pdb");
}

/// The plan every patch input is planned with: HIP from a found directory plus a default-lib chain,
/// the shape of the bring-up fix.
pub fn patch_plan() -> PatchPlan {
    PatchPlan {
        hip: Some(HipLibrary {
            library: "amdhip64.lib".to_string(),
            found_dir: Some(PathBuf::from(r"C:\Program Files\AMD\ROCm\6.2\lib")),
        }),
        libraries: Vec::new(),
        chain: Some(DefaultLibChain {
            flavour: "dynamic".to_string(),
            libraries: [
                "msvcrt.lib",
                "vcruntime.lib",
                "ucrt.lib",
                "oldnames.lib",
                "kernel32.lib",
            ]
            .map(String::from)
            .to_vec(),
            evidence_disagrees: None,
        }),
        source: "build.log".to_string(),
        literal_paths: false,
    }
}

/// Lines with their endings (the last one may have none).
fn lines_of(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&byte| byte == b'\n').collect()
}

fn without_ending(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Target `patch`: a mutated `extension.py` gives a patch or a clear error, never a broken file.
///
/// When it gives a patch: every original line is still there, in order and byte for byte (an
/// unterminated last line may gain a line ending), the added lines form one contiguous block of
/// non-blank lines sharing the first one's indentation, and planning again on the patched text
/// finds nothing left to add.
pub fn patch(data: &[u8]) {
    let plan = patch_plan();
    let outcome = match plan_patch("extension.py", data, &plan) {
        Ok(outcome) => outcome,
        Err(error) => {
            // A clear error: one non-empty line naming what went wrong.
            let message = error.to_string();
            assert!(!message.is_empty(), "empty error message");
            return;
        }
    };
    let PatchOutcome::Changed { new_text, diff, .. } = outcome else {
        return;
    };
    assert!(
        diff.starts_with("--- a/extension.py"),
        "diff header: {diff:?}"
    );
    let old = lines_of(data);
    let new = lines_of(&new_text);
    assert!(new.len() > old.len(), "a patch that adds no line");
    // The original's last line, when it has no ending, may gain one.
    let same = |old_line: &[u8], new_line: &[u8], last: bool| {
        old_line == new_line
            || (last && !old_line.ends_with(b"\n") && without_ending(new_line) == old_line)
    };
    let prefix = old
        .iter()
        .zip(&new)
        .enumerate()
        .take_while(|(i, (o, n))| same(o, n, *i + 1 == old.len()))
        .count();
    let suffix = old
        .iter()
        .rev()
        .zip(new.iter().rev())
        .enumerate()
        .take_while(|(i, (o, n))| same(o, n, *i == 0))
        .count()
        .min(old.len() - prefix);
    assert_eq!(
        prefix + suffix,
        old.len(),
        "original lines lost or changed: {prefix} kept before the block, {suffix} after, of {}",
        old.len()
    );
    let block = &new[prefix..new.len() - suffix];
    let indent: Vec<u8> = block[0]
        .iter()
        .take_while(|byte| matches!(byte, b' ' | b'\t'))
        .copied()
        .collect();
    for line in block {
        assert!(
            !without_ending(line).is_empty(),
            "blank line inside the block: {block:?}"
        );
        assert!(
            line.starts_with(&indent),
            "block line {line:?} is not indented under {indent:?}"
        );
    }
    // Idempotence: the patched file already links everything the plan asks for.
    match plan_patch("extension.py", &new_text, &plan) {
        Ok(PatchOutcome::AlreadyPatched { .. }) => {}
        Ok(PatchOutcome::Changed { diff, .. }) => panic!("patching twice adds more:\n{diff}"),
        Err(error) => panic!("the patched file is refused: {error}"),
    }
}

/// The messages the `whence` target lays over every mutated source: each kind of placeholder,
/// an exception prefix, `KeyError`'s quotes, non-ASCII text.
const WHENCE_MESSAGES: &[&str] = &[
    "KeyError: 'Keyword argument launch_pdl was specified but unrecognised'",
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)",
    "subprocess.TimeoutExpired: Command '['sleep', '10']' timed out after 1 seconds",
    "ValueError: naïve → {x} 100% é",
];

/// Target `whence`: a mutated Python source is read as `whence` reads a file, never panics, and
/// every template found lies on a line of the source and covers no more of a message than it has.
pub fn whence(data: &[u8]) {
    let source = String::from_utf8_lossy(data);
    let lines = source.split('\n').count();
    for text in WHENCE_MESSAGES {
        let message = lnkfix::commands::whence::Message::parse(text);
        let total = message.text.chars().count();
        for found in lnkfix::commands::whence::explain_source(&source, &message) {
            assert!(
                (1..=lines).contains(&found.line),
                "line {} of {lines}",
                found.line
            );
            assert!(
                found.covered_chars <= total,
                "{found:?} covers more than {total}"
            );
            assert!(!found.template.is_empty(), "{found:?}");
        }
    }
}

/// Target `lenses`: every line of the input through every paste and record lens, then the whole
/// input through the log reader with and without the line filter.
///
/// Must hold: no lens finds work in its own output (each undoes one paste shape, once), and the
/// fast path (lines without an anchor skipped unread) reads exactly what reading every line
/// reads, lenses included: a lens that made a record of a line the filter skips would break it.
pub fn lenses(data: &[u8]) {
    use lnkfix::read::linklog::lens::{COPY_LENSES, RECORD_LENSES, TOOL_LENSES};
    use lnkfix::read::linklog::{read_log, ReadLimits};
    let text = String::from_utf8_lossy(data);
    for line in text.lines().take(256) {
        for lens in COPY_LENSES.iter().chain(TOOL_LENSES).chain(RECORD_LENSES) {
            if let Some(once) = (lens.apply)(line) {
                assert_eq!(
                    (lens.apply)(&once),
                    None,
                    "lens {} applies twice: {line:?} -> {once:?}",
                    lens.name
                );
            }
        }
    }
    let read = |skip_unmatched_lines: bool| {
        let mut events = Vec::new();
        let limits = ReadLimits {
            skip_unmatched_lines,
            ..ReadLimits::default()
        };
        let stats = read_log(Cursor::new(data.to_vec()), limits, &mut |e| events.push(e))
            .expect("reading from memory cannot fail");
        (events, stats.lines)
    };
    assert_eq!(read(true), read(false), "the fast path reads differently");
    // A line watcher (the build system's) changes which lines are read, never what is found,
    // and sees each line at most once, in order.
    let mut events = Vec::new();
    let mut watched: Vec<u64> = Vec::new();
    let stats = lnkfix::read::linklog::read_log_watched(
        Cursor::new(data.to_vec()),
        ReadLimits::default(),
        &mut |e| events.push(e),
        Some(&mut |number, _| watched.push(number)),
    )
    .expect("reading from memory cannot fail");
    assert_eq!(
        (events, stats.lines),
        read(true),
        "a watcher changes the reading"
    );
    assert!(
        watched.windows(2).all(|w| w[0] < w[1]),
        "lines watched out of order or twice"
    );
    assert!(watched.last().is_none_or(|&n| n <= stats.lines));
}
