//! node-gyp: a missing library goes into the failing target's Windows condition,
//! `'conditions': [['OS=="win"', {'libraries': ['x.lib'], 'library_dirs': ['DIR']}]]`, in
//! `binding.gyp`. The condition's dictionary is extended when the target has one, a condition
//! added to the target's `conditions` when it has other conditions only, and a `conditions` key
//! added when it has none. gyp turns `libraries` into the Visual Studio project's
//! `AdditionalDependencies` and `library_dirs` into `AdditionalLibraryDirectories`.
//!
//! A `.gyp` file is a Python literal (single or double quotes, trailing commas, `#` comments)
//! that gyp reads with Python's evaluator. No Rust crate reads that format with byte positions,
//! so this module holds a small hand-written reader of exactly that grammar (dictionaries,
//! lists, strings, bare words such as numbers) which keeps every byte's position; the edit is
//! spliced into the original text, so comments, layout and line endings stay.
//!
//! Values are written as string literals in the file's own quote style with every backslash,
//! quote and non-printable character escaped. gyp expands `<(var)`, `<!(command)` and their
//! `>`/`@`/`|` forms inside strings, and MSBuild expands `$(...)`, `@(...)` and `%(...)` in what
//! gyp writes to the project: a value holding one of those is refused, never written.
//!
//! A machine mismatch (x86 objects in an x64 link) is not a `binding.gyp` edit: node-gyp builds
//! for the architecture of the Node.js it targets, chosen with `node-gyp rebuild --arch=x64` (or
//! `npm_config_arch`).

use std::path::{Path, PathBuf};

use super::text::{self, Insertions};
use super::{BuildChange, BuildEditError, EditOutcome, FileEdit, LocateInput, Place};
use crate::fix::patch::python;
use crate::read::build_system::BuildSystem;

/// Nesting deeper than this is refused (a real `.gyp` file nests a handful of levels).
const MAX_DEPTH: usize = 64;

/// The sequences gyp or MSBuild expand inside a string.
const EXPANSIONS: [&str; 11] = [
    "<(", "<!", "<@", "<|", ">(", ">!", ">@", ">|", "$(", "@(", "%(",
];

/// Edits a `.gyp` file for `change`: the target whose `target_name` is `target`, or the only
/// one. Pure: no I/O.
pub fn edit(
    path: &Path,
    source: &[u8],
    target: Option<&str>,
    change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    if change.libraries.is_empty() && change.library_dirs.is_empty() {
        return Err(text::nothing_to_write(
            path,
            "binding.gyp links libraries; a C runtime is chosen by the RuntimeLibrary setting",
        ));
    }
    let libraries: Vec<String> = text::library_stems(path, change)?
        .into_iter()
        .map(|stem| format!("{stem}.lib"))
        .collect();
    let directories = text::directories(path, change)?;
    for value in libraries.iter().chain(&directories) {
        if let Some(expansion) = EXPANSIONS.iter().find(|e| value.contains(*e)) {
            return Err(BuildEditError::Unsupported {
                path: path.to_path_buf(),
                reason: format!("{value:?} holds {expansion:?}, which gyp or MSBuild would expand"),
            });
        }
    }
    let (bom, source_text) = text::decode(path, source, "gyp (a Python literal)")?;
    let root = Reader::new(path, source_text).document()?;
    let chosen = choose_target(path, &root, target)?;
    let writer = Writer {
        source: source_text,
        quote: quote_style(source_text),
        newline: text::line_ending(source_text),
        unit: text::indent_unit(source_text),
    };
    let keys = [("libraries", &libraries), ("library_dirs", &directories)];
    let (insertions, added) = writer.target_insertions(chosen.node, &keys);
    if insertions.is_empty() {
        return Ok(EditOutcome::AlreadyDone);
    }
    let edited = text::splice(source_text, insertions);
    Reader::new(path, &edited).document()?;
    let mut after = bom.to_vec();
    after.extend_from_slice(edited.as_bytes());
    Ok(EditOutcome::Edited(FileEdit {
        system: BuildSystem::NodeGyp,
        path: path.to_path_buf(),
        before: source.to_vec(),
        after,
        target: Some(chosen.name.clone()),
        configuration: None,
        description: format!(
            "target {}, condition OS==\"win\": {}",
            chosen.name,
            added.join(", ")
        ),
    }))
}

/// Finds `binding.gyp` and the failing target: the target is the Visual Studio project gyp
/// generated for it (the `[...\build\NAME.vcxproj]` suffix MSBuild puts on the failed link's
/// lines); the file is `binding.gyp` in `--build-dir`, or in the parent of a `build` directory
/// the log names, or beside the log. `Ok(None)` when the log is not node-gyp's.
pub fn locate(input: &LocateInput<'_>) -> Result<Option<Place>, BuildEditError> {
    let recognised = input.recognised.map(|r| r.kind);
    if recognised.is_some_and(|kind| kind != BuildSystem::NodeGyp) {
        return Ok(None);
    }
    let project = input.log.lines().rev().find_map(vcxproj_suffix);
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(dir) = input.build_dir {
        candidates.push(dir.join("binding.gyp"));
        if let Some(parent) = dir.parent() {
            candidates.push(parent.join("binding.gyp"));
        }
    }
    if let Some((directory, _)) = &project {
        let build = Path::new(directory);
        if let Some(parent) = build.parent() {
            candidates.push(parent.join("binding.gyp"));
        }
    }
    if let Some(dir) = input.log_path.and_then(Path::parent) {
        candidates.push(dir.join("binding.gyp"));
    }
    let Some(file) = candidates.into_iter().find(|c| c.is_file()) else {
        return Ok(None);
    };
    Ok(Some(Place {
        system: BuildSystem::NodeGyp,
        file,
        target: project.as_ref().map(|(_, name)| name.clone()),
        configuration: None,
        evidence: match &project {
            Some((_, name)) => format!("the [{name}.vcxproj] suffix of the failed link's lines"),
            None => "binding.gyp in the build's directory".to_string(),
        },
    }))
}

/// The directory and project name of a line's `[...\NAME.vcxproj]` suffix.
fn vcxproj_suffix(line: &str) -> Option<(String, String)> {
    let line = line.trim_end();
    let inner = line.strip_suffix(".vcxproj]")?;
    let open = inner.rfind('[')?;
    let full = &inner[open + 1..];
    let cut = full.rfind(['\\', '/']);
    let name = &full[cut.map_or(0, |c| c + 1)..];
    let directory = cut.map_or("", |c| &full[..c]);
    (!name.is_empty()).then(|| (directory.replace('\\', "/"), name.to_string()))
}

/// A value of the file, with where it is.
#[derive(Debug)]
enum Node {
    /// `{key: value, ...}`: the braces' offsets and the entries.
    Dict(usize, usize, Vec<(Node, Node)>),
    /// `[item, ...]`: the brackets' offsets and the items.
    List(usize, usize, Vec<Node>),
    /// A string literal: its range and value.
    Str(usize, usize, String),
    /// A bare word (a number, `True`): its range.
    Word(usize, usize),
}

impl Node {
    /// Where the value starts.
    fn start(&self) -> usize {
        match self {
            Node::Dict(start, ..)
            | Node::List(start, ..)
            | Node::Str(start, ..)
            | Node::Word(start, _) => *start,
        }
    }

    /// Where the value ends (exclusive).
    fn end(&self) -> usize {
        match self {
            Node::Dict(_, close, _) | Node::List(_, close, _) => close + 1,
            Node::Str(_, end, _) | Node::Word(_, end) => *end,
        }
    }

    /// Where the value is.
    fn range(&self) -> std::ops::Range<usize> {
        self.start()..self.end()
    }

    /// The value of a string.
    fn string(&self) -> Option<&str> {
        match self {
            Node::Str(_, _, value) => Some(value),
            _ => None,
        }
    }

    /// The value of a dictionary's key.
    fn get(&self, key: &str) -> Option<&Node> {
        match self {
            Node::Dict(_, _, entries) => entries
                .iter()
                .find(|(k, _)| k.string() == Some(key))
                .map(|(_, value)| value),
            _ => None,
        }
    }
}

/// The reader of the literal grammar.
struct Reader<'a> {
    path: &'a Path,
    text: &'a str,
    position: usize,
    depth: usize,
}

impl<'a> Reader<'a> {
    fn new(path: &'a Path, text: &'a str) -> Reader<'a> {
        Reader {
            path,
            text,
            position: 0,
            depth: 0,
        }
    }

    /// The whole file: one value and nothing after it but blanks and comments.
    fn document(mut self) -> Result<Node, BuildEditError> {
        let node = self.value()?;
        self.blanks();
        if self.position < self.text.len() {
            return Err(self.error("text after the file's value"));
        }
        Ok(node)
    }

    fn error(&self, what: &str) -> BuildEditError {
        BuildEditError::Unparsable {
            path: self.path.to_path_buf(),
            format: "gyp (a Python literal)",
            reason: format!(
                "line {}: {what}",
                text::line_number(self.text.as_bytes(), self.position)
            ),
        }
    }

    /// Skips spaces, line breaks and `#` comments.
    fn blanks(&mut self) {
        let bytes = self.text.as_bytes();
        while let Some(&byte) = bytes.get(self.position) {
            match byte {
                b' ' | b'\t' | b'\r' | b'\n' | b'\x0c' => self.position += 1,
                b'#' => {
                    self.position = self.text[self.position..]
                        .find('\n')
                        .map_or(bytes.len(), |n| self.position + n);
                }
                _ => break,
            }
        }
    }

    fn value(&mut self) -> Result<Node, BuildEditError> {
        self.blanks();
        let start = self.position;
        match self.text.as_bytes().get(start) {
            Some(b'{') | Some(b'[') => {
                self.depth += 1;
                if self.depth > MAX_DEPTH {
                    return Err(self.error("nested too deeply"));
                }
                let node = self.container()?;
                self.depth -= 1;
                Ok(node)
            }
            Some(b'\'') | Some(b'"') => self.string(),
            Some(byte) if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'+' | b'.') => {
                let length = self.text[start..]
                    .find(|c: char| {
                        !(c.is_ascii_alphanumeric() || matches!(c, '-' | '+' | '.' | '_'))
                    })
                    .unwrap_or(self.text.len() - start);
                self.position += length;
                Ok(Node::Word(start, self.position))
            }
            Some(_) => Err(self.error("a value was expected")),
            None => Err(self.error("the file ends where a value was expected")),
        }
    }

    /// A dictionary or a list, from its opening bracket.
    fn container(&mut self) -> Result<Node, BuildEditError> {
        let open = self.position;
        let dict = self.text.as_bytes()[open] == b'{';
        let closing = if dict { b'}' } else { b']' };
        self.position += 1;
        let mut entries = Vec::new();
        let mut items = Vec::new();
        loop {
            self.blanks();
            match self.text.as_bytes().get(self.position) {
                Some(&byte) if byte == closing => break,
                None => return Err(self.error("a bracket is never closed")),
                _ => {}
            }
            let first = self.value()?;
            if dict {
                if first.string().is_none() {
                    return Err(self.error("a dictionary key is not a string"));
                }
                self.blanks();
                if self.text.as_bytes().get(self.position) != Some(&b':') {
                    return Err(self.error("`:` expected after a key"));
                }
                self.position += 1;
                entries.push((first, self.value()?));
            } else {
                items.push(first);
            }
            self.blanks();
            match self.text.as_bytes().get(self.position) {
                Some(b',') => self.position += 1,
                Some(&byte) if byte == closing => {}
                _ => return Err(self.error("`,` or a closing bracket expected")),
            }
        }
        let close = self.position;
        self.position += 1;
        Ok(if dict {
            Node::Dict(open, close, entries)
        } else {
            Node::List(open, close, items)
        })
    }

    /// A one-line string literal; its escapes are Python's (`python::unescape`).
    fn string(&mut self) -> Result<Node, BuildEditError> {
        let start = self.position;
        let quote = self.text.as_bytes()[start];
        if self.text[start..].starts_with(if quote == b'\'' { "'''" } else { "\"\"\"" }) {
            return Err(self.error("triple-quoted strings are not read here"));
        }
        let bytes = self.text.as_bytes();
        let mut position = start + 1;
        while let Some(&byte) = bytes.get(position) {
            match byte {
                b'\\' => position += 2,
                b'\n' => break,
                _ if byte == quote => {
                    let body = &self.text[start + 1..position];
                    self.position = position + 1;
                    return Ok(Node::Str(start, self.position, python::unescape(body)));
                }
                _ => position += 1,
            }
        }
        Err(self.error("a string is never closed"))
    }
}

/// The target to edit and its name.
struct Chosen<'n> {
    node: &'n Node,
    name: String,
}

/// The target dictionary named `target` in the file's `targets` list, or the only one.
fn choose_target<'n>(
    path: &Path,
    root: &'n Node,
    target: Option<&str>,
) -> Result<Chosen<'n>, BuildEditError> {
    let Some(Node::List(_, _, targets)) = root.get("targets") else {
        return Err(BuildEditError::Unsupported {
            path: path.to_path_buf(),
            reason: "the file has no 'targets' list".to_string(),
        });
    };
    let named: Vec<(&Node, String)> = targets
        .iter()
        .filter_map(|t| Some((t, t.get("target_name")?.string()?.to_string())))
        .collect();
    let candidates = || named.iter().map(|(_, name)| name.clone()).collect();
    let found: Vec<&(&Node, String)> = match target {
        Some(target) => named.iter().filter(|(_, name)| name == target).collect(),
        None => named.iter().collect(),
    };
    match (found.as_slice(), target) {
        ([(node, name)], _) => Ok(Chosen {
            node,
            name: name.clone(),
        }),
        ([], Some(target)) => Err(BuildEditError::TargetNotFound {
            path: path.to_path_buf(),
            target: target.to_string(),
            candidates: candidates(),
        }),
        _ => Err(BuildEditError::Ambiguous {
            path: path.to_path_buf(),
            candidates: candidates(),
        }),
    }
}

/// The quote the file uses most for its strings.
fn quote_style(source: &str) -> char {
    if source.matches('\'').count() >= source.matches('"').count() {
        '\''
    } else {
        '"'
    }
}

/// Writes insertions in the file's style.
struct Writer<'a> {
    source: &'a str,
    quote: char,
    newline: &'a str,
    unit: &'a str,
}

impl Writer<'_> {
    fn layout(&self) -> text::Layout<'_> {
        text::Layout {
            newline: self.newline,
            unit: self.unit,
        }
    }

    /// A string literal of exactly `value` in the file's quote style.
    fn literal(&self, value: &str) -> String {
        let mut literal = String::from(self.quote);
        for character in value.chars() {
            match character {
                '\\' => literal.push_str("\\\\"),
                c if c == self.quote => {
                    literal.push('\\');
                    literal.push(c);
                }
                ' '..='~' => literal.push(character),
                c if (c as u32) < 0x100 => literal.push_str(&format!("\\x{:02x}", c as u32)),
                c if (c as u32) < 0x10000 => literal.push_str(&format!("\\u{:04x}", c as u32)),
                c => literal.push_str(&format!("\\U{:08x}", c as u32)),
            }
        }
        literal.push(self.quote);
        literal
    }

    fn list(&self, values: &[&String]) -> String {
        let items: Vec<String> = values.iter().map(|v| self.literal(v)).collect();
        format!("[{}]", items.join(", "))
    }

    /// The insertions into the target's dictionary for the `(key, values)` pairs, and what
    /// they add (for the description).
    fn target_insertions(
        &self,
        target: &Node,
        keys: &[(&str, &Vec<String>)],
    ) -> (Insertions, Vec<String>) {
        let condition = match target.get("conditions") {
            Some(Node::List(_, _, conditions)) => conditions.iter().find_map(windows_condition),
            _ => None,
        };
        if let Some(dict) = condition {
            let mut insertions = Vec::new();
            let mut added = Vec::new();
            for (key, values) in keys {
                let (pieces, what) = self.extend_key(dict, key, values);
                insertions.extend(pieces);
                added.extend(what);
            }
            return (insertions, added);
        }
        let present: Vec<(&str, Vec<&String>)> = keys
            .iter()
            .filter(|(_, values)| !values.is_empty())
            .map(|(key, values)| (*key, values.iter().collect()))
            .collect();
        if present.is_empty() {
            return (Vec::new(), Vec::new());
        }
        let body: Vec<String> = present
            .iter()
            .map(|(key, values)| format!("{}: {}", self.literal(key), self.list(values)))
            .collect();
        let windows = self.literal("OS==\"win\"");
        let entry = format!("[{windows}, {{{}}}]", body.join(", "));
        let added = present
            .iter()
            .map(|(key, values)| format!("{key}: {values:?}"))
            .collect();
        match target.get("conditions") {
            Some(Node::List(open, close, items)) => (
                text::add_items(
                    self.source,
                    *open,
                    *close,
                    items.last().map(Node::range),
                    &[entry],
                    self.layout(),
                ),
                added,
            ),
            _ => {
                let Node::Dict(open, close, entries) = target else {
                    return (Vec::new(), Vec::new());
                };
                let item = format!("{}: [{entry}]", self.literal("conditions"));
                let last = entries.last().map(|(_, value)| value);
                (
                    text::add_items(
                        self.source,
                        *open,
                        *close,
                        last.map(Node::range),
                        &[item],
                        self.layout(),
                    ),
                    added,
                )
            }
        }
    }

    /// Makes `dict[key]` hold `values`: the missing ones appended to its list, or the key added.
    fn extend_key(&self, dict: &Node, key: &str, values: &[String]) -> (Insertions, Vec<String>) {
        let Node::Dict(open, close, entries) = dict else {
            return (Vec::new(), Vec::new());
        };
        match dict.get(key) {
            Some(Node::List(list_open, list_close, items)) => {
                let missing: Vec<&String> = values
                    .iter()
                    .filter(|v| !items.iter().any(|i| i.string() == Some(v.as_str())))
                    .collect();
                if missing.is_empty() {
                    return (Vec::new(), Vec::new());
                }
                let literals: Vec<String> = missing.iter().map(|v| self.literal(v)).collect();
                let what = format!("{key} += {missing:?}");
                (
                    text::add_items(
                        self.source,
                        *list_open,
                        *list_close,
                        items.last().map(Node::range),
                        &literals,
                        self.layout(),
                    ),
                    vec![what],
                )
            }
            _ if values.is_empty() => (Vec::new(), Vec::new()),
            _ => {
                let all: Vec<&String> = values.iter().collect();
                let item = format!("{}: {}", self.literal(key), self.list(&all));
                let last = entries.last().map(|(_, value)| value);
                let what = format!("{key}: {values:?}");
                (
                    text::add_items(
                        self.source,
                        *open,
                        *close,
                        last.map(Node::range),
                        &[item],
                        self.layout(),
                    ),
                    vec![what],
                )
            }
        }
    }
}

/// The dictionary of a `['OS=="win"', {...}]` condition (spaces and quote style ignored).
fn windows_condition(condition: &Node) -> Option<&Node> {
    let Node::List(_, _, parts) = condition else {
        return None;
    };
    let test: String = parts
        .first()?
        .string()?
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect();
    let dict = parts.get(1)?;
    (matches!(test.as_str(), "OS==\"win\"" | "OS=='win'") && matches!(dict, Node::Dict(..)))
        .then_some(dict)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn change(libraries: &[&str], dirs: &[&str]) -> BuildChange {
        BuildChange {
            libraries: libraries.iter().map(|s| s.to_string()).collect(),
            library_dirs: dirs.iter().map(|s| s.to_string()).collect(),
            runtime: None,
        }
    }

    fn run(source: &str, target: Option<&str>, change: &BuildChange) -> String {
        let path = Path::new("binding.gyp");
        match edit(path, source.as_bytes(), target, change).unwrap() {
            EditOutcome::Edited(edited) => {
                let after = String::from_utf8(edited.after).unwrap();
                let again = edit(path, after.as_bytes(), target, change).unwrap();
                assert_eq!(again, EditOutcome::AlreadyDone, "not idempotent:\n{after}");
                after
            }
            EditOutcome::AlreadyDone => panic!("nothing edited"),
        }
    }

    /// Three targets: one with a Windows condition, one with another condition, one with none.
    pub(crate) const GYP: &str = r#"{
  # The addon and its helpers.
  'variables': { 'openssl_fips': '' },
  'targets': [
    {
      'target_name': 'addon',
      'sources': [ 'src/addon.cc' ],
      'conditions': [
        ['OS=="mac"', { 'xcode_settings': { 'MACOSX_DEPLOYMENT_TARGET': '10.15' } }],
        ['OS=="win"', {
          'libraries': [ 'ws2_32.lib' ],  # sockets
        }],
      ],
    },
    {
      'target_name': 'helper',
      'sources': [ 'src/helper.cc' ],
      'conditions': [
        ['OS=="linux"', { 'cflags': [ '-fPIC' ] }],
      ],
    },
    {
      'target_name': 'bare',
      'type': 'static_library',
      'sources': [ 'src/bare.cc' ]
    },
  ],
}
"#;

    #[test]
    fn existing_windows_condition_is_extended() {
        let after = run(
            GYP,
            Some("addon"),
            &change(&["python312.lib"], &["C:\\Py\\libs"]),
        );
        let expected = GYP.replace(
            "          'libraries': [ 'ws2_32.lib' ],  # sockets\n",
            "          'libraries': [ 'ws2_32.lib', 'python312.lib' ],  # sockets\n          'library_dirs': ['C:\\\\Py\\\\libs'],\n",
        );
        assert_eq!(after, expected);
    }

    #[test]
    fn condition_added_to_conditions_or_as_a_new_key() {
        let after = run(GYP, Some("helper"), &change(&["amdhip64.lib"], &[]));
        assert!(after.contains("        ['OS==\"linux\"', { 'cflags': [ '-fPIC' ] }],\n        ['OS==\"win\"', {'libraries': ['amdhip64.lib']}],\n      ],"), "{after}");
        let after = run(GYP, Some("bare"), &change(&["amdhip64"], &[]));
        assert!(after.contains("      'sources': [ 'src/bare.cc' ],\n      'conditions': [['OS==\"win\"', {'libraries': ['amdhip64.lib']}]],\n    },"), "{after}");
    }

    #[test]
    fn ambiguity_crlf_bom_and_hostile_values() {
        let lib = change(&["a.lib"], &[]);
        let ambiguous = edit(Path::new("binding.gyp"), GYP.as_bytes(), None, &lib);
        assert_eq!(
            ambiguous,
            Err(BuildEditError::Ambiguous {
                path: "binding.gyp".into(),
                candidates: vec!["addon".into(), "helper".into(), "bare".into()],
            })
        );
        let crlf = format!("\u{feff}{}", GYP.replace('\n', "\r\n"));
        let after = run(&crlf, Some("bare"), &lib);
        assert!(after.starts_with('\u{feff}'));
        assert!(!after.replace("\r\n", "").contains('\n'));
        let hostile = "C:\\it's \"x\"\\${HOME}\\\u{e9}";
        let after = run(GYP, Some("bare"), &change(&[], &[hostile]));
        let root = Reader::new(Path::new("x"), &after).document().unwrap();
        let Some(Node::List(_, _, targets)) = root.get("targets") else {
            panic!()
        };
        let condition = windows_condition(match targets[2].get("conditions") {
            Some(Node::List(_, _, c)) => &c[0],
            _ => panic!(),
        })
        .unwrap();
        let Some(Node::List(_, _, dirs)) = condition.get("library_dirs") else {
            panic!()
        };
        assert_eq!(dirs[0].string(), Some(hostile));
        for bad in ["<!(rm -rf /)", "$(Registry:HKLM)", "C:\\a\nb"] {
            let refused = edit(
                Path::new("binding.gyp"),
                GYP.as_bytes(),
                Some("bare"),
                &change(&[], &[bad]),
            );
            assert!(
                matches!(refused, Err(BuildEditError::Unsupported { .. })),
                "{bad}: {refused:?}"
            );
        }
    }

    #[test]
    fn broken_files_are_refused_with_a_line() {
        for broken in [
            "{ 'targets': [ { 'target_name': 'a' ] }",
            "{ 'a': 'b",
            "[[[[",
            "{'a': 1} x",
        ] {
            let result = edit(
                Path::new("b.gyp"),
                broken.as_bytes(),
                None,
                &change(&["a.lib"], &[]),
            );
            assert!(
                matches!(result, Err(BuildEditError::Unparsable { .. })),
                "{broken}: {result:?}"
            );
        }
        let deep = "[".repeat(10_000);
        assert!(edit(
            Path::new("b.gyp"),
            deep.as_bytes(),
            None,
            &change(&["a.lib"], &[])
        )
        .is_err());
    }

    #[test]
    fn vcxproj_suffix_names_the_target() {
        let line = "LINK : fatal error LNK1181: cannot open input file 'x.lib' [C:\\src\\addon\\build\\addon.vcxproj]";
        assert_eq!(
            vcxproj_suffix(line),
            Some(("C:/src/addon/build".to_string(), "addon".to_string()))
        );
    }
}
