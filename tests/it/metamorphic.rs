//! Metamorphic tests of the paste lenses: every log we have (the triage logs in `tests/triage`,
//! the bundled example, the real lld-link logs `tests/fixtures/build.sh` writes to
//! `target/fixtures/logs`, and the unresolved-symbol logs of `tests/logs/` or, in the ignored
//! twins, the logs real people posted, `common::LogSet`) is pasted the ways people paste it: each lens in reverse, and random
//! compositions of them in the order a paste happens (the tool's output, the console, the copy,
//! Markdown). Each pasted log must yield exactly the clean log's unresolved symbols (the same
//! linker names, in the same order) and the same LNK1120 counts: nothing missed, nothing
//! invented.

use crate::common::{self, LogSet};

use std::path::{Path, PathBuf};

/// A paste shape, in reverse: the text of a clean log to the text a paste shows.
struct Shape {
    name: &'static str,
    /// When in a paste it happens: 0 the tool's output, 1 the console, 2 the copy, 3 Markdown,
    /// 4 an HTML page.
    layer: u8,
    apply: fn(&str, &mut Rng) -> String,
}

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn map_lines(text: &str, f: impl FnMut(&str) -> String) -> String {
    text.lines().map(f).collect::<Vec<_>>().join("\n")
}

/// The position of `LNKnnnn:` in a link.exe record line.
fn record_code(line: &str) -> Option<usize> {
    let bytes = line.as_bytes();
    (0..bytes.len().saturating_sub(7)).find(|&at| {
        &bytes[at..at + 3] == b"LNK"
            && bytes[at + 3..at + 7].iter().all(u8::is_ascii_digit)
            && bytes.get(at + 7) == Some(&b':')
    })
}

fn backticks(text: &str, _: &mut Rng) -> String {
    map_lines(text, |l| {
        if l.trim().is_empty() {
            l.to_string()
        } else {
            format!("``{l}``")
        }
    })
}

/// Records a mail client ran together: each record line joined to the record line before it
/// with one space (at most three records on a line).
fn run_together(text: &str, _: &mut Rng) -> String {
    let is_record = |l: &str| {
        l.contains(" : error LNK")
            || l.contains(" : fatal error LNK")
            || l.starts_with("lld-link: error:")
            || l.starts_with(">>> ")
    };
    let mut out: Vec<String> = Vec::new();
    let mut joined = 0;
    for line in text.lines() {
        match out.last_mut() {
            Some(last) if joined < 2 && is_record(line) && is_record(last) => {
                last.push(' ');
                last.push_str(line);
                joined += 1;
            }
            _ => {
                out.push(line.to_string());
                joined = 0;
            }
        }
    }
    out.join("\n")
}

/// The log as an HTML page shows its source: character references for `&`, `<`, `>` and
/// quotes, and `<br />` where lines ended (up to 20 lines on one line).
fn html(text: &str, _: &mut Rng) -> String {
    let escaped: Vec<String> = text
        .lines()
        .map(|l| {
            l.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;")
        })
        .collect();
    escaped
        .chunks(20)
        .map(|chunk| chunk.join("<br />"))
        .collect::<Vec<_>>()
        .join("\n")
}

fn markdown_quote(text: &str, _: &mut Rng) -> String {
    let quoted = map_lines(text, |l| format!("> {l}"));
    format!("### Build log\n{quoted}")
}

fn markdown_escapes(text: &str, _: &mut Rng) -> String {
    map_lines(text, |l| {
        l.split(' ')
            .map(|token| {
                if token.contains('\\') {
                    token.to_string()
                } else {
                    token.replace('_', "\\_").replace('?', "\\?")
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    })
}

/// The Visual Studio Output pane: `error LNK2019: ...` without the object in front.
fn strip_objects(text: &str, _: &mut Rng) -> String {
    map_lines(text, |l| match record_code(l) {
        Some(at) => {
            let before = &l[..at];
            let severity = ["fatal error ", "error ", "warning "]
                .iter()
                .find(|s| before.ends_with(*s))
                .copied()
                .unwrap_or("error ");
            format!("{severity}{}", &l[at..])
        }
        None => l.to_string(),
    })
}

fn split_code(text: &str, _: &mut Rng) -> String {
    map_lines(text, |l| match record_code(l) {
        Some(at) if !l[at + 8..].trim().is_empty() => {
            format!("{}\n  {}", &l[..at + 8], l[at + 8..].trim_start())
        }
        _ => l.to_string(),
    })
}

fn respell(text: &str, rng: &mut Rng) -> String {
    let style = rng.below(3);
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("LNK") {
        out.push_str(&rest[..at]);
        let digits = &rest[at + 3..];
        if digits.len() >= 4 && digits.as_bytes()[..4].iter().all(u8::is_ascii_digit) {
            match style {
                0 => out.push_str(&format!("LNK {}", &digits[..4])),
                1 => {
                    out.push_str("LNK");
                    for d in digits[..4].chars() {
                        out.push(char::from_u32(0xff10 + d.to_digit(10).unwrap()).unwrap());
                    }
                }
                _ => out.push_str(&format!("LNK-{}", &digits[..4])),
            }
            rest = &digits[4..];
        } else {
            out.push_str("LNK");
            rest = digits;
        }
    }
    out.push_str(rest);
    out
}

/// A Python exception holding the log as a `bytes` repr.
fn python_repr(text: &str, _: &mut Rng) -> String {
    let mut out = String::from("RuntimeError: Failed to build: b'");
    for &b in format!("{text}\n").as_bytes() {
        match b {
            b'\n' => out.push_str("\\r\\n"),
            b'\\' => out.push_str("\\\\"),
            b'\'' => out.push_str("\\'"),
            b'\t' => out.push_str("\\t"),
            0x20..=0x7e => out.push(char::from(b)),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    out.push('\'');
    out
}

/// A Rust `{:?}` of the log as a `String`.
fn rust_repr(text: &str, _: &mut Rng) -> String {
    format!("Error: {:?}", format!("{text}\n").replace('\n', "\r\n"))
}

fn full_width_quotes(text: &str, rng: &mut Rng) -> String {
    let style = rng.below(3);
    let (open, close, single_open, single_close) = match style {
        0 => ('“', '”', '‘', '’'),
        1 => ('＂', '＂', '＇', '＇'),
        _ => ('「', '」', '‘', '’'),
    };
    map_lines(text, |l| {
        let mut double = false;
        let mut single = false;
        l.chars()
            .map(|c| match c {
                '"' => {
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
    })
}

/// A console 80 columns wide hard-wraps long lines.
fn wrap_80(text: &str, _: &mut Rng) -> String {
    wrap(text, "")
}

/// The same, with MSBuild's two-space continuation indent.
fn wrap_80_indented(text: &str, _: &mut Rng) -> String {
    wrap(text, "  ")
}

/// Cuts lines longer than 80 characters into lines of 80, each continuation `indent` and
/// `80 - indent` characters of the text.
fn wrap(text: &str, indent: &str) -> String {
    map_lines(text, |l| {
        let mut chars: &[char] = &l.chars().collect::<Vec<_>>();
        if chars.len() <= 80 {
            return l.to_string();
        }
        let mut pieces = Vec::new();
        let mut first = true;
        while !chars.is_empty() {
            let room = if first { 80 } else { 80 - indent.len() };
            let (piece, rest) = chars.split_at(room.min(chars.len()));
            let piece: String = piece.iter().collect();
            pieces.push(if first {
                piece
            } else {
                format!("{indent}{piece}")
            });
            chars = rest;
            first = false;
        }
        pieces.join("\n")
    })
}

fn error_list_spaces(text: &str, rng: &mut Rng) -> String {
    map_lines(text, |l| {
        if l.contains('\t') && l.contains("LNK") {
            let spaces = " ".repeat(2 + rng.below(4));
            l.replace('\t', &spaces)
        } else {
            l.to_string()
        }
    })
}

fn driver(text: &str, rng: &mut Rng) -> String {
    let zig = rng.below(2) == 0;
    map_lines(text, |l| {
        if let Some(rest) = l.strip_prefix("lld-link: error: ") {
            if zig {
                format!("error: lld-link: {rest}")
            } else {
                format!("clang++: error: lld-link: error: {rest}")
            }
        } else if let Some(rest) = l.strip_prefix("clang: error: ") {
            format!("clang++: error: {rest}")
        } else {
            l.to_string()
        }
    })
}

fn msbuild(text: &str, _: &mut Rng) -> String {
    map_lines(text, |l| {
        let l = match l.strip_prefix("lld-link: error: ") {
            Some(rest) => format!("lld-link : : error : {rest}"),
            None => l.to_string(),
        };
        if l.is_empty() || l.starts_with(|c: char| c.is_ascii_digit()) {
            l
        } else {
            format!("3>{l}")
        }
    })
}

const SHAPES: &[Shape] = &[
    Shape {
        name: "driver",
        layer: 0,
        apply: driver,
    },
    Shape {
        name: "msbuild",
        layer: 0,
        apply: msbuild,
    },
    Shape {
        name: "strip-objects",
        layer: 0,
        apply: strip_objects,
    },
    Shape {
        name: "split-code",
        layer: 0,
        apply: split_code,
    },
    Shape {
        name: "respell",
        layer: 2,
        apply: respell,
    },
    Shape {
        name: "wrap-80",
        layer: 1,
        apply: wrap_80,
    },
    Shape {
        name: "wrap-80-indented",
        layer: 1,
        apply: wrap_80_indented,
    },
    Shape {
        name: "python-repr",
        layer: 1,
        apply: python_repr,
    },
    Shape {
        name: "rust-repr",
        layer: 1,
        apply: rust_repr,
    },
    Shape {
        name: "error-list-spaces",
        layer: 2,
        apply: error_list_spaces,
    },
    Shape {
        name: "full-width-quotes",
        layer: 2,
        apply: full_width_quotes,
    },
    Shape {
        name: "markdown-escapes",
        layer: 2,
        apply: markdown_escapes,
    },
    Shape {
        name: "markdown-quote",
        layer: 3,
        apply: markdown_quote,
    },
    Shape {
        name: "backticks",
        layer: 3,
        apply: backticks,
    },
    Shape {
        name: "html",
        layer: 4,
        apply: html,
    },
    Shape {
        name: "run-together",
        layer: 2,
        apply: run_together,
    },
];

/// What must survive a paste: the symbols' linker names in order, and the LNK1120 counts.
fn read(text: &str) -> (Vec<String>, Vec<u64>) {
    let failure = lnkfix::read::symbols::collect(
        std::io::Cursor::new(text.as_bytes().to_vec()),
        Default::default(),
    )
    .unwrap();
    let names = failure
        .symbols
        .iter()
        .map(|s| s.linker_name().unwrap_or(s.name()).to_string())
        .collect();
    (names, failure.lnk1120_counts)
}

fn logs_in(dir: &Path) -> Vec<PathBuf> {
    let mut logs: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "log"))
        .collect();
    logs.sort();
    logs
}

/// Every log: the triage logs, the bundled example, the fixtures' real lld-link logs, and the
/// unresolved-symbol logs of a set (ours or the posted ones).
fn every_log(set: LogSet) -> Vec<PathBuf> {
    let root = common::root();
    let mut logs = logs_in(&root.join("tests/triage"));
    logs.push(root.join("examples/tvm-ffi-hip-lld-link.log"));
    let fixtures = logs_in(&common::fixtures().join("logs"));
    assert!(fixtures.len() >= 6, "only {} fixture logs", fixtures.len());
    logs.extend(fixtures);
    let unresolved = logs_in(&common::unresolved_logs(set));
    assert!(
        unresolved.len() >= 25,
        "only {} unresolved logs",
        unresolved.len()
    );
    logs.extend(unresolved);
    logs
}

/// The log as text, lines joined with `\n` (the shapes work on lines).
fn clean_text(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap();
    String::from_utf8_lossy(&bytes)
        .lines()
        .collect::<Vec<_>>()
        .join("\n")
}

fn check(
    failures: &mut Vec<String>,
    path: &Path,
    names: &[&str],
    want: &(Vec<String>, Vec<u64>),
    pasted: &str,
) {
    let got = read(pasted);
    if &got != want {
        let missing: Vec<&String> = want.0.iter().filter(|w| !got.0.contains(w)).collect();
        let invented: Vec<&String> = got.0.iter().filter(|g| !want.0.contains(g)).collect();
        failures.push(format!(
            "{} through {}: missing {missing:?}, invented {invented:?}, LNK1120 {:?} vs {:?}{}",
            path.file_name().unwrap().to_string_lossy(),
            names.join(" + "),
            got.1,
            want.1,
            if missing.is_empty() && invented.is_empty() && got.1 == want.1 {
                format!(" (order: {:?})", got.0)
            } else {
                String::new()
            }
        ));
    }
}

/// With `LNKFIX_WRITE_PASTES=DIR`, every paste is also written to `DIR` (`N.log`, and one line
/// of `truth.jsonl` each: the file, the shape, the clean log's symbols and LNK1120 counts), for
/// measuring another build on them (`benches/paste_accuracy.sh`).
fn write_paste(index: usize, shape: &str, want: &(Vec<String>, Vec<u64>), pasted: &str) {
    let Some(dir) = std::env::var_os("LNKFIX_WRITE_PASTES").map(PathBuf::from) else {
        return;
    };
    std::fs::create_dir_all(&dir).unwrap();
    let file = format!("{index}.log");
    std::fs::write(dir.join(&file), pasted).unwrap();
    let line =
        serde_json::json!({"file": file, "shape": shape, "symbols": want.0, "lnk1120": want.1});
    use std::io::Write;
    let mut truth = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(dir.join("truth.jsonl"))
        .unwrap();
    writeln!(truth, "{line}").unwrap();
}

#[test]
fn every_log_through_every_shape_yields_the_same_symbols_ours() {
    every_log_through_every_shape_yields_the_same_symbols(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn every_log_through_every_shape_yields_the_same_symbols_posted() {
    every_log_through_every_shape_yields_the_same_symbols(LogSet::Posted);
}

fn every_log_through_every_shape_yields_the_same_symbols(set: LogSet) {
    let mut failures = Vec::new();
    let mut symbols_checked = 0;
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut index = 0;
    for path in every_log(set) {
        let text = clean_text(&path);
        let want = read(&text);
        symbols_checked += want.0.len();
        for shape in SHAPES {
            let pasted = (shape.apply)(&text, &mut rng);
            check(&mut failures, &path, &[shape.name], &want, &pasted);
            write_paste(index, shape.name, &want, &pasted);
            index += 1;
        }
    }
    assert!(
        symbols_checked > 300,
        "only {symbols_checked} symbols in the logs"
    );
    assert!(
        failures.is_empty(),
        "{} pastes differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn random_compositions_yield_the_same_symbols_ours() {
    random_compositions_yield_the_same_symbols(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn random_compositions_yield_the_same_symbols_posted() {
    random_compositions_yield_the_same_symbols(LogSet::Posted);
}

fn random_compositions_yield_the_same_symbols(set: LogSet) {
    let mut failures = Vec::new();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let mut compositions = 0;
    for path in every_log(set) {
        let text = clean_text(&path);
        let want = read(&text);
        let cut_inside_code = text.lines().any(|l| {
            let last = l.rsplit(' ').next().unwrap_or("");
            (3..7).contains(&last.len()) && last.starts_with("LNK")
        });
        for _ in 0..12 {
            // Two to four distinct shapes, applied in the order a paste happens.
            let count = 2 + rng.below(3);
            let mut chosen: Vec<usize> = Vec::new();
            while chosen.len() < count {
                let i = rng.below(SHAPES.len());
                if !chosen.contains(&i) {
                    chosen.push(i);
                }
            }
            // One console and one repr at most: a repr of a wrapped log is one line again. A log
            // a console already cut inside a code (`error LNK20`) gets no second console.
            let mut seen_layer_1 = false;
            chosen.retain(|&i| !(cut_inside_code && SHAPES[i].name.starts_with("wrap")));
            chosen.retain(|&i| {
                if SHAPES[i].layer != 1 {
                    return true;
                }
                let keep = !seen_layer_1;
                seen_layer_1 = true;
                keep
            });
            chosen.sort_by_key(|&i| SHAPES[i].layer);
            let mut pasted = text.clone();
            for &i in &chosen {
                pasted = (SHAPES[i].apply)(&pasted, &mut rng);
            }
            let names: Vec<&str> = chosen.iter().map(|&i| SHAPES[i].name).collect();
            check(&mut failures, &path, &names, &want, &pasted);
            compositions += 1;
        }
    }
    assert!(compositions > 500, "only {compositions} compositions");
    assert!(
        failures.is_empty(),
        "{} compositions differ:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The clean text (lines joined with `\n`) reads as the file does: the shapes start from what
/// the log really says.
#[test]
fn clean_text_reads_as_the_file_ours() {
    clean_text_reads_as_the_file(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn clean_text_reads_as_the_file_posted() {
    clean_text_reads_as_the_file(LogSet::Posted);
}

fn clean_text_reads_as_the_file(set: LogSet) {
    for path in every_log(set) {
        let from_file = read(&String::from_utf8_lossy(&std::fs::read(&path).unwrap()));
        assert_eq!(read(&clean_text(&path)), from_file, "{}", path.display());
    }
}
