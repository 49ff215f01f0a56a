//! Every reference a reader meets can be followed in the repository itself. The sources, data and
//! documents (and the program's output on the bundled example) cite no file the repository does
//! not have, and no issue numbers: they state the fact, or cite `docs/RULES.md §N`,
//! `docs/GUIDE.md` or `symbol-db/README.md`. Every relative markdown link points at a file that
//! exists. Each failure names the file (or command) and the line.

use crate::common;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use regex::Regex;

/// What is checked, relative to the repository root.
const CHECKED: &[&str] = &[
    "src",
    "symbol-db",
    "docs",
    "README.md",
    "CONTRIBUTING.md",
    "benches",
    "fuzz",
    "examples",
    "tests/fixtures",
];

/// Never read: build output and generated fuzz inputs.
fn skipped(relative: &str) -> bool {
    relative == "target"
        || relative == ".git"
        || relative.ends_with("/target")
        || relative == "fuzz/artifacts"
        || relative.starts_with("fuzz/corpus")
}

/// Files that documents are kept in outside the repository, which a user's clone never has.
const OUTSIDE_FILES: &[&str] = &["FORMATS.md", "DIAGNOSTICS.md", "STYLE.md", "WINDOWS.md"];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn relative(path: &Path) -> String {
    path.strip_prefix(root())
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Every file under `start` (or `start` itself), skipping [`skipped`] directories.
fn walk(start: &Path, out: &mut Vec<PathBuf>) {
    if skipped(&relative(start)) {
        return;
    }
    if start.is_file() {
        out.push(start.to_path_buf());
        return;
    }
    let Ok(entries) = std::fs::read_dir(start) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for entry in entries {
        walk(&entry, out);
    }
}

fn checked_files() -> Vec<PathBuf> {
    let mut files = Vec::new();
    for item in CHECKED {
        let path = root().join(item);
        assert!(path.exists(), "{item} is missing");
        walk(&path, &mut files);
    }
    files
}

/// The repository's markdown files (relative paths) and their names.
fn markdown_in_repository() -> (BTreeSet<String>, BTreeSet<String>) {
    let mut files = Vec::new();
    walk(&root(), &mut files);
    let mut paths = BTreeSet::new();
    let mut names = BTreeSet::new();
    for file in files {
        let rel = relative(&file);
        if rel.to_ascii_lowercase().ends_with(".md") {
            names.insert(rel.rsplit('/').next().unwrap_or(&rel).to_string());
            paths.insert(rel);
        }
    }
    (paths, names)
}

struct Checker {
    outside: Regex,
    shared: Regex,
    markdown: Regex,
    issue: Regex,
    hash_number: Regex,
    md_paths: BTreeSet<String>,
    md_names: BTreeSet<String>,
}

impl Checker {
    fn new() -> Checker {
        let (md_paths, md_names) = markdown_in_repository();
        let names = OUTSIDE_FILES
            .iter()
            .map(|n| regex::escape(n))
            .collect::<Vec<_>>()
            .join("|");
        Checker {
            outside: Regex::new(&format!(r"(?i)\b(?:{names})\b")).unwrap(),
            shared: Regex::new(r"\.\./shared\b").unwrap(),
            markdown: Regex::new(r"[A-Za-z0-9_./-]*[A-Za-z0-9_-]\.md\b").unwrap(),
            issue: Regex::new(r"(?i)\b(?:issues?|pull request|PR)(?:\s+#?|\s*#)\d+\b").unwrap(),
            // `#12` after a space, a bracket or the start of a line means an issue; `name.#12` (a
            // `.def` ordinal) and `{:#04x}` (a format) do not.
            hash_number: Regex::new(r"(?:^|[\s(\[,;])#\d+\b").unwrap(),
            md_paths,
            md_names,
        }
    }

    /// Whether a mentioned `*.md` exists: as a path from the root or from `dir`, or by name.
    fn markdown_exists(&self, mention: &str, dir: &str) -> bool {
        let mention = mention.trim_start_matches("./");
        let name = mention.rsplit('/').next().unwrap_or(mention);
        self.md_paths.contains(mention)
            || root().join(dir).join(mention).is_file()
            || (!mention.contains("../") && self.md_names.contains(name))
    }

    /// The problems of one text; `dir` is the directory relative mentions resolve from.
    fn problems(&self, text: &str, dir: &str) -> Vec<(usize, String)> {
        let mut found = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let number = index + 1;
            for m in self.outside.find_iter(line) {
                found.push((
                    number,
                    format!("cites {}, a file outside the repository", m.as_str()),
                ));
            }
            if self.shared.is_match(line) {
                found.push((
                    number,
                    "cites ../shared, outside the repository".to_string(),
                ));
            }
            for m in self.markdown.find_iter(line) {
                let mention = m.as_str();
                if !self.outside.is_match(mention) && !self.markdown_exists(mention, dir) {
                    found.push((
                        number,
                        format!("cites {mention}, which is not in the repository"),
                    ));
                }
            }
            for m in self
                .issue
                .find_iter(line)
                .chain(self.hash_number.find_iter(line))
            {
                found.push((
                    number,
                    format!("cites an issue number: {:?}", m.as_str().trim()),
                ));
            }
        }
        found
    }
}

fn report(problems: &[String]) {
    assert!(
        problems.is_empty(),
        "{} citation problem(s):\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn sources_data_and_documents_cite_only_the_repository() {
    let checker = Checker::new();
    let mut problems = Vec::new();
    let files = checked_files();
    assert!(files.len() > 50, "too few files found: {}", files.len());
    for file in files {
        let Ok(bytes) = std::fs::read(&file) else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let rel = relative(&file);
        let dir = rel.rsplit_once('/').map(|(d, _)| d).unwrap_or("");
        for (line, problem) in checker.problems(&text, dir) {
            problems.push(format!("{rel}:{line}: {problem}"));
        }
    }
    report(&problems);
}

#[test]
fn markdown_links_point_at_files() {
    let link = Regex::new(r"\[[^\]]*\]\(([^)\s]+)\)").unwrap();
    let mut documents = vec![root().join("README.md"), root().join("CONTRIBUTING.md")];
    let mut docs = Vec::new();
    walk(&root().join("docs"), &mut docs);
    documents.extend(docs.into_iter().filter(|p| relative(p).ends_with(".md")));
    let mut problems = Vec::new();
    let mut links = 0;
    for document in &documents {
        let text = std::fs::read_to_string(document).unwrap();
        let base = document.parent().unwrap();
        for (index, line) in text.lines().enumerate() {
            for capture in link.captures_iter(line) {
                let target = &capture[1];
                if target.starts_with('#')
                    || target.contains("://")
                    || target.starts_with("mailto:")
                {
                    continue;
                }
                links += 1;
                let path = target.split('#').next().unwrap_or(target);
                if !base.join(path).exists() {
                    problems.push(format!(
                        "{}:{}: link to {target}, which does not exist",
                        relative(document),
                        index + 1
                    ));
                }
            }
        }
    }
    assert!(links > 10, "too few relative links found: {links}");
    report(&problems);
}

/// The program's own output on the bundled example: what a user reads must not cite files they
/// do not have either.
#[test]
fn the_output_cites_only_the_repository() {
    let checker = Checker::new();
    let runs: &[&[&str]] = &[
        &[
            "diagnose",
            "examples/tvm-ffi-hip-lld-link.log",
            "--color",
            "never",
        ],
        &[
            "diagnose",
            "examples/tvm-ffi-hip-lld-link.log",
            "--format",
            "json",
        ],
        &["explain", "__iob_func"],
        &["explain", "??2@YAPEAX_K@Z", "--format", "json"],
        &["triage", "tests/triage/link_lld.log", "--color", "never"],
        &[
            "triage",
            "tests/triage/compile_arch_gfx906.log",
            "--format",
            "json",
        ],
        &["doctor", "--color", "never"],
    ];
    let mut problems = Vec::new();
    for args in runs {
        let output = common::start_retrying(|| {
            Command::new(env!("CARGO_BIN_EXE_lnkfix"))
                .args(*args)
                .current_dir(root())
                // No library directories: the answers come from the embedded tables and rules,
                // whose texts are what is checked.
                .env_remove("LIB")
                .env_remove("HIP_PATH")
                .env_remove("VCToolsInstallDir")
                .env_remove("WindowsSdkDir")
                .env_remove("UniversalCRTSdkDir")
                .output()
        })
        .unwrap();
        let command = format!("lnkfix {}", args.join(" "));
        assert!(
            output.status.code().is_some_and(|c| c <= 3),
            "{command}: {:?}\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        assert!(!output.stdout.is_empty(), "{command}: no output");
        for (stream, bytes) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            let text = String::from_utf8_lossy(bytes);
            for (line, problem) in checker.problems(&text, "") {
                problems.push(format!("{command} ({stream}) line {line}: {problem}"));
            }
        }
    }
    report(&problems);
}

/// The checker itself finds what it must, and lets through what it must.
#[test]
fn the_checker_finds_citations() {
    let checker = Checker::new();
    let bad = [
        "see FORMATS.md §1",
        "(DIAGNOSTICS.md step 0)",
        "notes/STYLE.md",
        "the recipe in WINDOWS.md",
        "the rule book is `../shared/spec/rules.txt`",
        "details in docs/NOWHERE.md",
        "fixed in issue 7",
        "Issue 3's targets",
        "issues 4 and 5",
        "(issue #12)",
        "see #42 for why",
        "PR 17 changed this",
    ];
    for text in bad {
        assert!(
            !checker.problems(text, "").is_empty(),
            "not found in {text:?}"
        );
    }
    let good = [
        "docs/RULES.md §3",
        "see README.md and symbol-db/README.md",
        "[GUIDE](GUIDE.md)",
        "EXPORTS\n    ByOrdinal = other.#12",
        "format!(\"{:#04x}\", byte)",
        "a Windows issue with 7 causes",
        "#[derive(Debug)]",
    ];
    for text in good {
        assert_eq!(checker.problems(text, "docs"), vec![], "{text:?}");
    }
}
