//! No import circle in `src/` (CONTRIBUTING.md, "Source layout"): data flows one way, so whoever
//! changes a file holds only what is below it in their head.
//!
//! What is read, precisely:
//!
//! - **A node is a file** of `src/`, named by its module path (`src/resolve/mod.rs` is
//!   `resolve`, `src/resolve/flags.rs` is `resolve::flags`). `lib.rs` is the library's root;
//!   `main.rs` and the modules it declares (`mod cli;`, ...) are the binary, a crate of their own,
//!   where `crate::` means the binary's root.
//! - **An edge A → B** is a path in A's code that names B or an item of B: every path of a `use`
//!   declaration (its braces expanded) and every path in the code that starts with `crate::`,
//!   `super::`, `self::` or the bare name of one of A's own child modules (`decide::run` in
//!   `triage/mod.rs`), resolved to the longest module path it starts with
//!   (`crate::problems::Problem` is `problems`, `super::store::Span` in `index/coff/mod.rs` is
//!   `index::store`). Comments (doc links included), string and character literals and the unit
//!   tests (a `#[cfg(...test...)]` `mod tests` block) are not code the program depends on: a unit
//!   test may build its input with any stage. A path that names no module of the crate (`std::`,
//!   another crate, a type's `Type::item`) is not an edge.
//! - **A directory's `mod.rs` and its files:** a path from a file to one of its ancestors
//!   (`resolve::flags` → `resolve`) is not an edge: a directory's `mod.rs` holds the types its
//!   files share, and they read them through `super::`. Nor is a parent's re-export of a
//!   descendant (`pub use child::Item`): that is the directory's face, not a use. A parent that
//!   calls or imports a child's item otherwise (`decide::run(...)`, `use decide::run;`) depends
//!   on it: that edge counts, so a circle through a parent (X → a parent → its child → X) is
//!   seen. (One that closes through the types a parent holds for its children, X → a child →
//!   its parent → X, is not.)
//! - **A circle** is a strongly connected component of more than one file. The failure names
//!   every file of each, and each edge inside it with the line and the path that makes it.
//!
//! **No upward import:** once there is no circle the files form layers, and an import that went
//! up a layer would close a circle. Besides, `commands::app` is the top of the library (one entry
//! per command): no file outside `commands/app/` names it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common;

/// A module path (`["resolve", "flags"]`); the root is empty.
type ModulePath = Vec<String>;

/// One file of a crate.
struct SourceFile {
    /// Its path from the repository root, for messages.
    relative: String,
    /// Its module path.
    module: ModulePath,
    /// Which crate: `false` the library, `true` the binary.
    binary: bool,
    /// Its code: comments, literals and unit tests blanked, newlines kept.
    code: String,
}

/// One reason for an edge: where, and the path as written.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Citation {
    /// 1-based line.
    line: usize,
    /// The path (`crate::problems::Problem`).
    path: String,
    /// Whether it is a `pub use` (a re-export).
    reexport: bool,
}

/// The graph: file index → file index → why.
type Graph = BTreeMap<usize, BTreeMap<usize, Vec<Citation>>>;

/// `text` with comments, string and character literals blanked (newlines kept, so that line
/// numbers stay), and the unit tests' `mod tests` block removed.
fn code_of(text: &str) -> String {
    let text = without_unit_tests(text);
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let blank = |s: &str, out: &mut String| {
        out.extend(s.chars().map(|c| if c == '\n' { '\n' } else { ' ' }));
    };
    let mut i = 0;
    while i < bytes.len() {
        let rest = &text[i..];
        let end = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            block_comment_length(rest)
        } else if let Some(length) = string_length(rest, i == 0 || !is_word(bytes[i - 1])) {
            length
        } else if rest.starts_with('\'') {
            char_length(rest).unwrap_or(0)
        } else {
            0
        };
        if end > 0 {
            blank(&rest[..end], &mut out);
            i += end;
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    out
}

/// Whether `b` can be part of an identifier.
fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// The text without its `#[cfg(...test...)]` `mod tests { ... }` block (rustfmt-formatted: it
/// ends at the first line that is `}`), its lines blanked.
fn without_unit_tests(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let start = (0..lines.len().saturating_sub(1)).find(|&i| {
        lines[i].starts_with("#[cfg(")
            && lines[i].contains("test")
            && lines[i + 1].starts_with("mod tests")
    });
    let Some(start) = start else {
        return text.to_string();
    };
    let end = (start..lines.len())
        .find(|&i| lines[i] == "}")
        .unwrap_or(lines.len() - 1);
    let mut out: Vec<&str> = lines[..start].to_vec();
    out.extend(vec![""; end + 1 - start]);
    out.extend(&lines[end + 1..]);
    out.join("\n")
}

/// The length of the (nested) block comment `text` starts with.
fn block_comment_length(text: &str) -> usize {
    let mut depth = 0;
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with("/*") {
            depth += 1;
            i += 2;
        } else if text[i..].starts_with("*/") {
            depth -= 1;
            i += 2;
            if depth == 0 {
                return i;
            }
        } else {
            i += text[i..].chars().next().unwrap().len_utf8();
        }
    }
    text.len()
}

/// The length of the string literal `text` starts with (`"..."`, `b"..."`, `r#"..."#`,
/// `br"..."`), when it starts with one; `at_word_start`: no identifier character before it.
fn string_length(text: &str, at_word_start: bool) -> Option<usize> {
    let mut rest = text;
    if at_word_start {
        rest = rest.strip_prefix('b').unwrap_or(rest);
    }
    if at_word_start {
        if let Some(raw) = rest.strip_prefix('r') {
            let hashes = raw.len() - raw.trim_start_matches('#').len();
            if raw[hashes..].starts_with('"') {
                let close = format!("\"{}", "#".repeat(hashes));
                let body = &raw[hashes + 1..];
                let end = body.find(&close).map_or(body.len(), |e| e + close.len());
                return Some(text.len() - body.len() + end);
            }
        }
    }
    let body = rest.strip_prefix('"')?;
    let mut escaped = false;
    for (at, c) in body.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(text.len() - body.len() + at + 1),
            _ => {}
        }
    }
    Some(text.len())
}

/// The length of the character literal `text` starts with (`'a'`, `'\''`, `'\u{1F600}'`);
/// `None` for a lifetime (`'a`).
fn char_length(text: &str) -> Option<usize> {
    let body = &text[1..];
    let inner = if body.starts_with('\\') {
        let close = body[2..].find('\'')? + 2;
        &body[..close]
    } else {
        let c = body.chars().next()?;
        &body[..c.len_utf8()]
    };
    body[inner.len()..]
        .starts_with('\'')
        .then_some(inner.len() + 2)
}

/// Every path a `use` declaration names, its braces expanded (`a::{b, c::{d, self}}` is `a::b`,
/// `a::c::d`, `a::c`), without `as` renames and `*`.
fn use_paths(tree: &str) -> Vec<String> {
    let tree: String = tree.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = Vec::new();
    expand("", &tree, &mut out);
    out
}

/// Expands `tree` under `prefix` into `out`.
fn expand(prefix: &str, tree: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    let Some(open) = tree.find('{') else {
        let path = tree.split(" as ").next().unwrap_or(tree).trim();
        let path = path.trim_end_matches("::*").trim_end_matches("::self");
        let full = format!("{prefix}{path}");
        let full = full.trim_end_matches("::").trim_end_matches("::self");
        if !full.is_empty() && full != "self" && full != "*" {
            out.push(full.to_string());
        }
        return;
    };
    let head = format!("{prefix}{}", &tree[..open]);
    let body = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
    let mut depth = 0;
    let mut start = 0;
    for (at, c) in body.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                expand(&head, &body[start..at], out);
                start = at + 1;
            }
            _ => {}
        }
    }
    expand(&head, &body[start..], out);
}

/// Every path `code` names, with its 1-based line: those of its `use` declarations, and the
/// `crate::`, `super::` and `self::` paths in the rest.
fn named_paths(code: &str) -> Vec<Citation> {
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while at < code.len() {
        let word_start = at == 0 || !(is_word(bytes[at - 1]) || bytes[at - 1] == b'$');
        let rest = &code[at..];
        if word_start && rest.starts_with("use ") {
            let end = rest.find(';').unwrap_or(rest.len());
            let reexport = is_public(&code[..at]);
            for path in use_paths(&rest[4..end]) {
                out.push(Citation {
                    line: line_of(at),
                    path,
                    reexport,
                });
            }
            at += end;
            continue;
        }
        let after_path = at > 0 && bytes[at - 1] == b':';
        let word_end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_'))
            .unwrap_or(rest.len());
        if word_start && !after_path && word_end > 0 && rest[word_end..].starts_with("::") {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len());
            out.push(Citation {
                line: line_of(at),
                path: rest[..end].trim_end_matches(':').to_string(),
                reexport: false,
            });
            at += end;
            continue;
        }
        at += rest.chars().next().unwrap().len_utf8();
    }
    out
}

/// Whether the item ending `before` is public: `pub`, `pub(crate)`, `pub(super)`, ...
fn is_public(before: &str) -> bool {
    let before = before.trim_end();
    let before = match before.strip_suffix(')') {
        Some(scoped) => scoped
            .rsplit_once('(')
            .map_or(scoped, |(b, _)| b)
            .trim_end(),
        None => before,
    };
    before
        .strip_suffix("pub")
        .is_some_and(|b| b.is_empty() || !is_word(*b.as_bytes().last().unwrap()))
}

/// The module `path` (as written in `from`) names: the longest module path of the crate it
/// starts with. `None` for a path outside the crate.
fn target(path: &str, from: &ModulePath, modules: &BTreeMap<ModulePath, usize>) -> Option<usize> {
    let mut segments = path.split("::").peekable();
    let mut full: ModulePath = match *segments.peek()? {
        "crate" => {
            segments.next();
            Vec::new()
        }
        "self" => {
            segments.next();
            from.clone()
        }
        "super" => {
            let mut base = from.clone();
            while segments.next_if_eq(&"super").is_some() {
                base.pop()?;
            }
            base
        }
        // A child module by its bare name (`decide::run`); else another crate or an item.
        child if modules.contains_key(&[from.as_slice(), &[child.to_string()]].concat()) => {
            from.clone()
        }
        _ => return None,
    };
    full.extend(segments.map(str::to_string));
    (0..=full.len())
        .rev()
        .find_map(|n| modules.get(&full[..n]).copied())
}

/// Whether a path in `from` naming `to` is not an edge: `to` is `from` itself or an ancestor
/// (the types a directory's files share), or a descendant re-exported (`pub use child::Item`).
fn not_an_edge(from: &ModulePath, to: &ModulePath, citation: &Citation) -> bool {
    from.starts_with(to) || (to.starts_with(from) && citation.reexport)
}

/// The edges between files (see the module documentation).
fn graph(files: &[SourceFile]) -> Graph {
    let mut graph = Graph::new();
    for binary in [false, true] {
        let modules: BTreeMap<ModulePath, usize> = files
            .iter()
            .enumerate()
            .filter(|(_, f)| f.binary == binary)
            .map(|(i, f)| (f.module.clone(), i))
            .collect();
        for (from, file) in files.iter().enumerate().filter(|(_, f)| f.binary == binary) {
            for citation in named_paths(&file.code) {
                let Some(to) = target(&citation.path, &file.module, &modules) else {
                    continue;
                };
                if not_an_edge(&file.module, &files[to].module, &citation) {
                    continue;
                }
                let why = graph.entry(from).or_default().entry(to).or_default();
                if !why.contains(&citation) {
                    why.push(citation);
                }
            }
        }
    }
    graph
}

/// The strongly connected components of more than one node (Tarjan's algorithm), each sorted.
fn circles(nodes: usize, graph: &Graph) -> Vec<Vec<usize>> {
    /// Tarjan's state.
    struct State<'g> {
        graph: &'g Graph,
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        stack: Vec<usize>,
        on_stack: Vec<bool>,
        next: usize,
        out: Vec<Vec<usize>>,
    }
    /// Visits `v` and what it reaches.
    fn visit(s: &mut State<'_>, v: usize) {
        s.index[v] = Some(s.next);
        s.low[v] = s.next;
        s.next += 1;
        s.stack.push(v);
        s.on_stack[v] = true;
        let successors: Vec<usize> = s
            .graph
            .get(&v)
            .map_or(Vec::new(), |m| m.keys().copied().collect());
        for w in successors {
            match s.index[w] {
                None => {
                    visit(s, w);
                    s.low[v] = s.low[v].min(s.low[w]);
                }
                Some(index) if s.on_stack[w] => s.low[v] = s.low[v].min(index),
                Some(_) => {}
            }
        }
        if Some(s.low[v]) == s.index[v] {
            let mut component = Vec::new();
            loop {
                let w = s.stack.pop().expect("v is on the stack");
                s.on_stack[w] = false;
                component.push(w);
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort_unstable();
                s.out.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: vec![None; nodes],
        low: vec![0; nodes],
        stack: Vec::new(),
        on_stack: vec![false; nodes],
        next: 0,
        out: Vec::new(),
    };
    for v in 0..nodes {
        if state.index[v].is_none() {
            visit(&mut state, v);
        }
    }
    state.out.sort();
    state.out
}

/// The module path of `relative` (from `src/`, `/`-separated).
fn module_path(relative: &str) -> ModulePath {
    let mut parts: ModulePath = relative
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_string)
        .collect();
    if matches!(
        parts.last().map(String::as_str),
        Some("mod" | "lib" | "main")
    ) {
        parts.pop();
    }
    parts
}

/// The files of `src/` (their paths relative to `src/` and texts): the binary's are `main.rs`
/// and the top-level modules it declares.
fn source_files(sources: &[(String, String)]) -> Vec<SourceFile> {
    let binary_modules: BTreeSet<String> = sources
        .iter()
        .filter(|(path, _)| path == "main.rs")
        .flat_map(|(_, text)| text.lines())
        .filter_map(|l| l.trim().strip_prefix("mod ")?.strip_suffix(';'))
        .map(str::to_string)
        .collect();
    sources
        .iter()
        .map(|(path, text)| {
            let module = module_path(path);
            let binary =
                path == "main.rs" || module.first().is_some_and(|m| binary_modules.contains(m));
            SourceFile {
                relative: format!("src/{path}"),
                module,
                binary,
                code: code_of(text),
            }
        })
        .collect()
}

/// The module of the commands' entries, `commands::app`: nothing outside it but the binary uses it.
fn app_module() -> ModulePath {
    vec!["commands".into(), "app".into()]
}

/// What breaks the rules: each circle with its edges, and each use of `crate::commands::app`
/// outside it.
fn violations(files: &[SourceFile]) -> Vec<String> {
    let graph = graph(files);
    let mut out = Vec::new();
    for circle in circles(files.len(), &graph) {
        let names: Vec<&str> = circle.iter().map(|&i| files[i].relative.as_str()).collect();
        let mut text = format!("import circle between {}:", names.join(", "));
        for &from in &circle {
            for (to, why) in graph.get(&from).into_iter().flatten() {
                if !circle.contains(to) {
                    continue;
                }
                for c in why {
                    text.push_str(&format!(
                        "\n    {}:{} uses {} ({})",
                        files[from].relative, c.line, c.path, files[*to].relative
                    ));
                }
            }
        }
        out.push(text);
    }
    let outside_app = |f: &&SourceFile| !f.binary && !f.module.starts_with(&app_module());
    for file in files.iter().filter(outside_app) {
        for c in named_paths(&file.code) {
            if c.path == "crate::commands::app" || c.path.starts_with("crate::commands::app::") {
                out.push(format!(
                    "{}:{} uses {}: only the commands' entries (commands/app/) and the binary use them",
                    file.relative, c.line, c.path
                ));
            }
        }
    }
    out
}

/// Every `.rs` file under `src/`, relative to it, with its text.
fn read_sources(root: &Path) -> Vec<(String, String)> {
    let src = root.join("src");
    let mut paths = Vec::new();
    super::rust_files(&src, &mut paths);
    paths
        .iter()
        .map(|p| {
            let relative = p
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            (relative, std::fs::read_to_string(p).unwrap())
        })
        .collect()
}

#[test]
fn no_import_circle_and_no_upward_import() {
    let files = source_files(&read_sources(&common::root()));
    assert!(files.len() > 100, "only {} source files", files.len());
    assert!(files.iter().any(|f| f.binary && f.module == ["cli"]));
    let edges: usize = graph(&files).values().map(BTreeMap::len).sum();
    assert!(
        edges > 300,
        "only {edges} edges between files: is the reader broken?"
    );
    let failures = violations(&files);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The reader on a small crate: what is an edge, what is not, and a circle named.
#[test]
fn the_reader_sees_circles_and_only_code() {
    let sources: Vec<(String, String)> = [
        ("lib.rs", "pub mod a;\npub mod b;\npub mod c;\npub mod d;\n"),
        (
            "a/mod.rs",
            "mod inner;\npub use inner::Thing;\nuse crate::{\n    b::{self, B},\n    c::C as See,\n};\n\
             pub struct A;\nfn g() { inner::make(); }\n",
        ),
        ("a/inner.rs", "use super::A;\npub struct Thing(A);\n"),
        (
            "b.rs",
            "//! Not [`crate::d`].\nconst S: &str = \"crate::d::D\";\nconst Q: char = '\"';\n\
             fn f<'a>(x: &'a str) -> &'a str { let _ = crate::a::inner::Thing; x }\n",
        ),
        (
            "c.rs",
            "pub struct C;\n#[cfg(test)]\nmod tests {\n    use crate::d::D;\n}\n",
        ),
        ("d.rs", "pub fn f() { crate::commands::app::run(); }\n"),
        ("main.rs", "mod cli;\nfn main() { cli::run() }\n"),
        ("cli.rs", "use crate::main_helper;\npub fn run() {}\n"),
    ]
    .iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    let files = source_files(&sources);
    let index = |relative: &str| {
        files
            .iter()
            .position(|f| f.relative == format!("src/{relative}"))
            .unwrap()
    };
    assert!(files[index("cli.rs")].binary && !files[index("d.rs")].binary);
    let graph = graph(&files);
    let targets = |relative: &str| -> Vec<&str> {
        graph
            .get(&index(relative))
            .into_iter()
            .flatten()
            .map(|(to, _)| files[*to].relative.as_str())
            .collect()
    };
    // a → b and c from one braced `use`; a → a::inner from the call, not from the re-export.
    assert_eq!(
        targets("a/mod.rs"),
        ["src/a/inner.rs", "src/b.rs", "src/c.rs"]
    );
    let why = &graph[&index("a/mod.rs")][&index("a/inner.rs")];
    assert_eq!(why.len(), 1, "{why:?}");
    assert_eq!((why[0].line, why[0].path.as_str()), (8, "inner::make"));
    // The comment, the string and the character literal are not code; the path in code is.
    assert_eq!(targets("b.rs"), ["src/a/inner.rs"]);
    // The unit tests do not count; nor a file's own parent.
    assert!(targets("c.rs").is_empty() && targets("a/inner.rs").is_empty());
    assert_eq!(circles(files.len(), &graph), Vec::<Vec<usize>>::new());
    let failures = violations(&files);
    assert_eq!(failures.len(), 1, "{failures:#?}");
    assert!(failures[0].starts_with("src/d.rs:1 uses crate::commands::app::run"));
    // b → a closes a circle through a's file (not through its child alone).
    let mut sources = sources;
    sources[3].1.push_str("use crate::a::A;\n");
    let failures = violations(&source_files(&sources));
    assert!(
        failures[0].starts_with("import circle between src/a/mod.rs, src/b.rs:")
            && failures[0].contains("\n    src/a/mod.rs:3 uses crate::b (src/b.rs)")
            && failures[0].contains("\n    src/b.rs:5 uses crate::a::A (src/a/mod.rs)"),
        "{failures:#?}"
    );
    // A circle through a parent: a → its child inner (a call), inner → d, d → a (and b, which
    // a uses and which uses inner).
    sources[3].1 = sources[3].1.replace("use crate::a::A;\n", "");
    sources[2].1.push_str("use crate::d::f;\n");
    sources[5].1.push_str("use crate::a::A;\n");
    let failures = violations(&source_files(&sources));
    assert!(
        failures[0]
            .starts_with("import circle between src/a/mod.rs, src/a/inner.rs, src/b.rs, src/d.rs:")
            && failures[0].contains("\n    src/a/mod.rs:8 uses inner::make (src/a/inner.rs)"),
        "{failures:#?}"
    );
    assert!(is_public("pub(crate) ") && is_public("\npub ") && !is_public("fn g() { "));
    assert_eq!(
        use_paths("a::{b::{c, self}, d as e, f::*}"),
        ["a::b::c", "a::b", "a::d", "a::f"]
    );
}
