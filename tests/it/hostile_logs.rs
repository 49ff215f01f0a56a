//! The log reader on hostile input: arbitrary bytes, mutated real logs, huge lines, deep names.
//! It must return (never panic) and keep memory bounded. A deterministic generator keeps the
//! run reproducible; the coverage-guided fuzz target lives in `fuzz/`.

use crate::common::{self, LogSet};

struct XorShift(u64);
impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Every log of a set: the unresolved-symbol logs and the other failure classes.
fn example_logs(set: LogSet) -> Vec<Vec<u8>> {
    let dirs = [
        common::unresolved_logs(set),
        common::failure_logs(set).join("logs"),
    ];
    let mut logs = Vec::new();
    for dir in dirs {
        let mut paths: Vec<_> = std::fs::read_dir(&dir)
            .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
            .filter_map(|e| e.ok())
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "log"))
            .collect();
        paths.sort();
        logs.extend(paths.iter().map(|p| std::fs::read(p).unwrap()));
    }
    logs
}

fn read(bytes: Vec<u8>) -> lnkfix::read::symbols::LinkFailure {
    lnkfix::read::symbols::collect(std::io::Cursor::new(bytes), Default::default()).unwrap()
}

#[test]
fn random_bytes_and_mutations_of_our_logs_never_panic() {
    random_bytes_and_mutated_examples_never_panic(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn random_bytes_and_mutations_of_posted_logs_never_panic() {
    random_bytes_and_mutated_examples_never_panic(LogSet::Posted);
}

fn random_bytes_and_mutated_examples_never_panic(set: LogSet) {
    let mut seeds = example_logs(set);
    assert!(seeds.len() >= 20);
    seeds.push(Vec::new());
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);
    let book = lnkfix::rules::RuleBook::builtin();
    for round in 0..3000 {
        let mut bytes = seeds[round % seeds.len()].clone();
        match rng.next() % 4 {
            0 => bytes = (0..(rng.next() % 4096)).map(|_| rng.next() as u8).collect(),
            1 => {
                for _ in 0..(1 + rng.next() % 16) {
                    if !bytes.is_empty() {
                        let i = (rng.next() as usize) % bytes.len();
                        bytes[i] = rng.next() as u8;
                    }
                }
            }
            2 => {
                let cut = if bytes.is_empty() {
                    0
                } else {
                    (rng.next() as usize) % bytes.len()
                };
                bytes.truncate(cut);
            }
            _ => {
                let tokens: [&[u8]; 8] = [
                    b"\"",
                    b"(",
                    b">>> referenced by ",
                    b"LNK2019:",
                    b"\\r\\n",
                    b"\xFF\xFE",
                    b"__imp_?",
                    b"lld-link: error: undefined symbol: ",
                ];
                for _ in 0..4 {
                    let t = tokens[(rng.next() as usize) % tokens.len()];
                    let at = if bytes.is_empty() {
                        0
                    } else {
                        (rng.next() as usize) % bytes.len()
                    };
                    bytes.splice(at..at, t.iter().copied());
                }
            }
        }
        let failure = read(bytes);
        let _ = lnkfix::resolve::diagnose(failure, &book, &Default::default());
    }
}

/// The fast path (lines without an anchor skipped unread) finds exactly what reading every line
/// finds, with the same line numbers, on real logs and on mutations of them.
#[test]
fn skipping_unmatched_lines_of_our_logs_changes_nothing() {
    skipping_unmatched_lines_changes_nothing(LogSet::Ours);
}

#[test]
#[ignore = "reads the posted logs: LNKFIX_POSTED_LOGS=DIR cargo test -- --ignored"]
fn skipping_unmatched_lines_of_posted_logs_changes_nothing() {
    skipping_unmatched_lines_changes_nothing(LogSet::Posted);
}

fn skipping_unmatched_lines_changes_nothing(set: LogSet) {
    use lnkfix::read::linklog::{read_log, ReadLimits};
    let mut seeds = example_logs(set);
    seeds.push(
        std::fs::read(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/examples/tvm-ffi-hip-lld-link.log"
        ))
        .unwrap(),
    );
    let mut rng = XorShift(0x2545_F491_4F6C_DD1D);
    let events = |bytes: &[u8], skip: bool| {
        let mut out = Vec::new();
        let limits = ReadLimits {
            max_line_bytes: 1 << 20,
            skip_unmatched_lines: skip,
            ..ReadLimits::default()
        };
        let stats = read_log(std::io::Cursor::new(bytes.to_vec()), limits, &mut |e| {
            out.push(e)
        })
        .unwrap();
        (out, stats.lines)
    };
    for round in 0..1500 {
        let mut bytes = seeds[round % seeds.len()].clone();
        if round >= seeds.len() {
            for _ in 0..(1 + rng.next() % 8) {
                let at = if bytes.is_empty() {
                    0
                } else {
                    (rng.next() as usize) % bytes.len()
                };
                // Line breaks, anchors, escapes, and every kind of text the parser reacts to
                // outside records: each must survive the fast path's prefilter.
                const PIECES: &[&[u8]] = &[
                    b"\r",
                    b"\n",
                    b"\r\n",
                    b"LNK2019: x",
                    b"\x1b[31m",
                    "\u{9b}1m".as_bytes(),
                    "\u{240d}".as_bytes(),
                    b" /MD ",
                    b" -MTd ",
                    b" /LD ",
                    b" -fms-runtime-lib=dll ",
                    b" --dependent-lib=msvcrt ",
                    b" /NODEFAULTLIB:libcmt ",
                    b" /Zl ",
                    b" -D_DLL ",
                    b" /machine:x64 ",
                    b" /MACHINE:X86 ",
                    b"Compiler Version 19.38.33130 for x64",
                    b"clang: error: linker command failed with exit code 1120",
                    b"lld-link: error: undefined symbol: y\n>>> referenced by a.obj",
                    b"\\r\\n",
                    // what the paste lenses undo (src/read/linklog/lens/), and what they turn
                    // into records: each must be read alike on both paths
                    b"``",
                    b"\n> ",
                    b"\n### ",
                    b"\\_",
                    b"\n3>",
                    b"3>>>> referenced by k.obj:(f)",
                    b"lld-link : : error : undefined symbol: z",
                    b"error: lld-link: undefined symbol: w",
                    b"LNK 2001:",
                    b"lnk2019: ",
                    "LNK２０１９".as_bytes(),
                    b"\\xe6\\x97\\xa0",
                    "\u{201c}".as_bytes(),
                    "\n无法解析的外部符号 __std_min_4i".as_bytes(),
                    b"\nunresolved external symbol hipFree",
                    b"\nerror LNK2001: unresolved external symbol v",
                    b"\n:-1: error: LNK2019: ",
                    b"Error    LNK2001    ",
                    b" @ 16",
                    b"...",
                    b" : fatal err",
                    b"LNK2019:\n  ",
                    b"undefined reference",
                ];
                let piece = PIECES[(rng.next() as usize) % PIECES.len()];
                bytes.splice(at..at, piece.iter().copied());
            }
        }
        let (fast, fast_lines) = events(&bytes, true);
        let (slow, slow_lines) = events(&bytes, false);
        assert_eq!(fast, slow, "round {round}");
        assert_eq!(fast_lines, slow_lines, "round {round}");
    }
}

#[test]
fn a_ten_megabyte_line_is_cut_not_buffered() {
    let mut bytes = b"main.obj : error LNK2019: unresolved external symbol hipMalloc referenced in function main\n".to_vec();
    bytes.extend(std::iter::repeat_n(b'x', 10 << 20));
    bytes.push(b'\n');
    bytes.extend_from_slice(b"main.obj : error LNK2001: unresolved external symbol hipFree\n");
    let failure = read(bytes);
    assert_eq!(failure.symbols.len(), 2);
    assert_eq!(failure.stats.truncated_lines, 1);
}

#[test]
fn deeply_nested_name_in_a_log_is_returned_raw_with_a_warning() {
    let mut name = String::from("?f@@YAXV");
    for _ in 0..20_000 {
        name.push_str("?$A@V");
    }
    name.push_str("@@Z");
    let log = format!("a.obj : error LNK2001: unresolved external symbol {name}\n");
    let failure = read(log.into_bytes());
    assert_eq!(failure.symbols[0].demangled(), name);
    assert!(failure.symbols[0].warning.is_some());
}

#[test]
fn a_hundred_thousand_distinct_symbols() {
    let mut log = String::new();
    for i in 0..100_000 {
        log.push_str(&format!(
            "lld-link: error: undefined symbol: sym_{i}\n>>> referenced by a.obj:(f)\n"
        ));
    }
    let failure = read(log.into_bytes());
    assert_eq!(failure.symbols.len(), 100_000);
}
