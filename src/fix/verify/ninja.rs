//! The link command of a `build.ninja`: the build statement that produces the failed output, its
//! rule's `command` with `$in`, `$out` and the variables expanded as ninja expands them on Windows,
//! and its response file (`rspfile`, `rspfile_content`), which ninja writes only while the command
//! runs (docs/RULES.md §18).
//!
//! The syntax read: `name = value` bindings, `rule`, `build` (explicit, implicit `|`, order-only
//! `||` and validation `|@` parts), indented bindings of both, `include` and `subninja`, `default`,
//! `pool` and comments; `$$`, `$ `, `$:`, `$^`, `$\n` continuations, `$name` and `${name}`. A
//! `subninja` is read into the including file's scope (ninja gives it a scope of its own, which
//! matters only when it shadows a variable or rule of the same name). Variables resolve as ninja resolves them for a command: `$in`/`$out` and the
//! statement's bindings, then the rule's, then the file's. Paths in `$in`/`$out` are quoted by the
//! Windows argument rules when they hold a space or a quote.

use std::cell::Cell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};

/// A parsed value: literal text and variable references.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct Value(Vec<Piece>);

#[derive(Debug, Clone, PartialEq, Eq)]
enum Piece {
    Text(String),
    Variable(String),
}

/// One `build` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edge {
    /// The rule.
    pub rule: String,
    /// Explicit outputs.
    pub outputs: Vec<String>,
    /// Implicit outputs (after `|`).
    pub implicit_outputs: Vec<String>,
    /// Explicit inputs.
    pub inputs: Vec<String>,
    /// The statement's own bindings, evaluated.
    bindings: HashMap<String, String>,
    /// 1-based line of the statement in its file.
    pub line: usize,
    /// The file it is in.
    pub file: PathBuf,
}

/// The block indented lines belong to.
enum Block {
    None,
    Rule(String),
    Edge(usize),
    Pool,
}

#[derive(Debug, Clone, Default)]
struct Rule {
    bindings: HashMap<String, Value>,
}

/// A `build.ninja` (with its includes) as far as finding a command needs.
#[derive(Debug, Default)]
pub struct BuildFile {
    variables: HashMap<String, String>,
    rules: HashMap<String, Rule>,
    /// Every build statement, in file order.
    pub edges: Vec<Edge>,
    /// The `default` targets.
    pub defaults: Vec<String>,
    /// Files read so far (`include`s and `subninja`s counted each time).
    files_read: usize,
    /// Bytes read so far, over every file.
    bytes_read: u64,
    /// Bytes of variable values evaluated so far; past the expansion bound evaluation stops.
    expanded: Cell<usize>,
    /// What may be read and evaluated (`--verify-max-bytes`, `--verify-max-expansion`).
    bounds: super::Bounds,
}

/// A build file that cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}:{line}: {reason}")]
pub struct NinjaError {
    /// The file.
    pub path: String,
    /// 1-based line (0: the whole file).
    pub line: usize,
    /// What is wrong.
    pub reason: String,
}

/// The most files read: the build file and its includes, each counted every time it is included.
const MAX_FILES: usize = 1024;

/// Logical lines: `$` line continuations joined, with the 1-based line each starts on and its
/// indentation.
fn logical_lines(text: &str) -> Vec<(usize, bool, String)> {
    let mut out = Vec::new();
    let mut current = String::new();
    let mut start_line = 1;
    let mut line = 1;
    let mut indented = false;
    let mut at_start = true;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if at_start {
            indented = c == ' ' || c == '\t';
            at_start = false;
            start_line = line;
        }
        match c {
            '$' => match chars.peek() {
                Some('\n') | Some('\r') => {
                    // A continuation: skip the line end and the next line's indentation.
                    if chars.next() == Some('\r') && chars.peek() == Some(&'\n') {
                        chars.next();
                    }
                    line += 1;
                    while matches!(chars.peek(), Some(' ') | Some('\t')) {
                        chars.next();
                    }
                }
                Some(&next) => {
                    current.push('$');
                    current.push(next);
                    chars.next();
                }
                None => current.push('$'),
            },
            '\n' => {
                out.push((start_line, indented, std::mem::take(&mut current)));
                line += 1;
                at_start = true;
            }
            '\r' if chars.peek() == Some(&'\n') => {}
            _ => current.push(c),
        }
    }
    if !current.is_empty() {
        out.push((start_line, indented, current));
    }
    out
}

fn is_variable_char(c: char, braced: bool) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || (braced && c == '.')
}

/// Parses a value (`$` escapes and references).
fn parse_value(text: &str) -> Value {
    let mut pieces = Vec::new();
    let mut literal = String::new();
    let chars: Vec<char> = text.chars().collect();
    let mut at = 0;
    while at < chars.len() {
        let c = chars[at];
        if c != '$' || at + 1 == chars.len() {
            literal.push(c);
            at += 1;
            continue;
        }
        let next = chars[at + 1];
        match next {
            '$' | ' ' | ':' => {
                literal.push(next);
                at += 2;
            }
            '^' => {
                literal.push('\n');
                at += 2;
            }
            '{' => {
                let end = chars[at + 2..].iter().position(|&c| c == '}');
                match end {
                    Some(length) => {
                        let name: String = chars[at + 2..at + 2 + length].iter().collect();
                        pieces.push(Piece::Text(std::mem::take(&mut literal)));
                        pieces.push(Piece::Variable(name));
                        at += 3 + length;
                    }
                    None => {
                        literal.push('$');
                        at += 1;
                    }
                }
            }
            _ if is_variable_char(next, false) => {
                let length = chars[at + 1..]
                    .iter()
                    .take_while(|&&c| is_variable_char(c, false))
                    .count();
                let name: String = chars[at + 1..at + 1 + length].iter().collect();
                pieces.push(Piece::Text(std::mem::take(&mut literal)));
                pieces.push(Piece::Variable(name));
                at += 1 + length;
            }
            _ => {
                literal.push('$');
                at += 1;
            }
        }
    }
    pieces.push(Piece::Text(literal));
    pieces.retain(|p| !matches!(p, Piece::Text(t) if t.is_empty()));
    Value(pieces)
}

/// Splits a raw build line at unescaped spaces (a `$ ` stays inside its path).
fn split_paths(raw: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut current = String::new();
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '$' => {
                current.push('$');
                if let Some(next) = chars.next() {
                    current.push(next);
                }
            }
            ' ' | '\t' => {
                if !current.is_empty() {
                    paths.push(std::mem::take(&mut current));
                }
            }
            _ => current.push(c),
        }
    }
    if !current.is_empty() {
        paths.push(current);
    }
    paths
}

/// The byte offset of the first unescaped `:` in a build line.
fn unescaped_colon(raw: &str) -> Option<usize> {
    let bytes = raw.as_bytes();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'$' => at += 2,
            b':' => return Some(at),
            _ => at += 1,
        }
    }
    None
}

impl BuildFile {
    /// Reads `path` and the files it includes, within `bounds`: the bytes read over every file,
    /// and the bytes of variable values evaluated over the whole build file and the commands
    /// read from it (values that double at each level would otherwise grow without end).
    pub fn read(path: &Path, bounds: super::Bounds) -> Result<BuildFile, NinjaError> {
        let mut file = BuildFile {
            bounds,
            ..BuildFile::default()
        };
        file.read_into(path, path.parent().unwrap_or(Path::new(".")), 0)?;
        Ok(file)
    }

    fn evaluate(&self, value: &Value, local: &HashMap<String, String>) -> String {
        let mut out = String::new();
        for piece in &value.0 {
            let text = match piece {
                Piece::Text(text) => text,
                Piece::Variable(name) => match local.get(name).or_else(|| self.variables.get(name))
                {
                    Some(v) => v,
                    None => continue,
                },
            };
            if !self.spend(text.len()) {
                break;
            }
            out.push_str(text);
        }
        out
    }

    /// The bounds it was read within.
    pub fn bounds(&self) -> super::Bounds {
        self.bounds
    }

    /// The expansion bound in bytes.
    fn max_expanded(&self) -> usize {
        usize::try_from(self.bounds.expanded_bytes).unwrap_or(usize::MAX)
    }

    /// Counts `bytes` more of evaluated values; `false` once past the expansion bound.
    fn spend(&self, bytes: usize) -> bool {
        let total = self.expanded.get().saturating_add(bytes);
        self.expanded.set(total);
        total <= self.max_expanded()
    }

    /// Whether evaluation went past the expansion bound (a value read since is cut short).
    pub fn over_expanded(&self) -> bool {
        self.expanded.get() > self.max_expanded()
    }

    fn read_into(&mut self, path: &Path, base: &Path, depth: usize) -> Result<(), NinjaError> {
        let error = |line: usize, reason: String| NinjaError {
            path: path.display().to_string(),
            line,
            reason,
        };
        if depth > 16 {
            return Err(error(0, "includes nested more than 16 deep".into()));
        }
        self.files_read += 1;
        if self.files_read > MAX_FILES {
            return Err(error(
                0,
                format!("includes read more than {MAX_FILES} files in all"),
            ));
        }
        let bytes = self.read_file(path).map_err(|reason| error(0, reason))?;
        let text = String::from_utf8_lossy(&bytes);
        let mut block = Block::None;
        for (number, indented, line) in logical_lines(&text) {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if indented {
                self.binding(&block, trimmed)
                    .map_err(|reason| error(number, reason))?;
            } else {
                block = self.statement(trimmed, number, path, base, depth)?;
            }
            if self.over_expanded() {
                return Err(error(
                    number,
                    format!(
                        "variables expand past {} bytes in all (--verify-max-expansion)",
                        self.bounds.expanded_bytes
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Reads one file of the build: without blocking, a regular file only, within what is left
    /// of the read bound.
    fn read_file(&mut self, path: &Path) -> Result<Vec<u8>, String> {
        use std::io::Read;
        let file = crate::files::open::open_regular(path).map_err(|e| e.to_string())?;
        let max = self.bounds.read_bytes;
        let left = max.saturating_sub(self.bytes_read);
        let mut bytes = Vec::new();
        file.take(left + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| e.to_string())?;
        self.bytes_read += bytes.len() as u64;
        if self.bytes_read > max {
            return Err(format!(
                "the build file and its includes hold more than the {max} bytes read (--verify-max-bytes)"
            ));
        }
        Ok(bytes)
    }

    /// An indented `name = value` of the block it is in.
    fn binding(&mut self, block: &Block, trimmed: &str) -> Result<(), String> {
        let Some((name, value)) = trimmed.split_once('=') else {
            // The line is not quoted: an `include` may name any readable file.
            return Err("an indented line that is not `name = value`".into());
        };
        let (name, value) = (name.trim().to_string(), parse_value(value.trim_start()));
        match block {
            Block::Rule(rule) => {
                if let Some(rule) = self.rules.get_mut(rule) {
                    rule.bindings.insert(name, value);
                }
            }
            Block::Edge(index) => {
                let evaluated = self.evaluate(&value, &self.edges[*index].bindings);
                self.edges[*index].bindings.insert(name, evaluated);
            }
            Block::Pool => {}
            Block::None => return Err("an indented binding outside a rule or build".into()),
        }
        Ok(())
    }

    /// A statement at the start of a line; returns the block its indented lines belong to.
    fn statement(
        &mut self,
        trimmed: &str,
        number: usize,
        path: &Path,
        base: &Path,
        depth: usize,
    ) -> Result<Block, NinjaError> {
        let error = |reason: String| NinjaError {
            path: path.display().to_string(),
            line: number,
            reason,
        };
        let (keyword, rest) = trimmed.split_once([' ', '\t']).unwrap_or((trimmed, ""));
        let rest = rest.trim_start();
        let none = HashMap::new();
        match keyword {
            "rule" => {
                self.rules.insert(rest.trim().to_string(), Rule::default());
                return Ok(Block::Rule(rest.trim().to_string()));
            }
            "pool" => return Ok(Block::Pool),
            "default" => {
                for raw in split_paths(rest) {
                    let target = self.evaluate(&parse_value(&raw), &none);
                    self.defaults.push(target);
                }
            }
            "include" | "subninja" => {
                let name = self.evaluate(&parse_value(rest.trim()), &none);
                let included = base.join(crate::index::discover::native_path(&name));
                self.read_into(&included, base, depth + 1)?;
            }
            "build" => {
                let colon = unescaped_colon(rest)
                    .ok_or_else(|| error("a build statement without `:`".into()))?;
                let edge =
                    self.build_statement(&rest[..colon], &rest[colon + 1..], number, path)?;
                self.edges.push(edge);
                return Ok(Block::Edge(self.edges.len() - 1));
            }
            _ => {
                let Some((name, value)) = trimmed.split_once('=') else {
                    // Not quoted: an `include` may name any readable file (a key, a password
                    // file), and an error must not show its bytes.
                    return Err(error(
                        "not a ninja statement (`rule`, `build`, `include`, `subninja`, `default`, `pool` or `name = value`)".into(),
                    ));
                };
                let value = self.evaluate(&parse_value(value.trim_start()), &none);
                self.variables.insert(name.trim().to_string(), value);
            }
        }
        Ok(Block::None)
    }

    fn build_statement(
        &self,
        outputs: &str,
        rest: &str,
        line: usize,
        file: &Path,
    ) -> Result<Edge, NinjaError> {
        let none = HashMap::new();
        let eval = |raw: &String| self.evaluate(&parse_value(raw), &none);
        let outputs = split_paths(outputs);
        let (explicit_outputs, implicit_outputs) = match outputs.iter().position(|p| p == "|") {
            Some(bar) => (&outputs[..bar], &outputs[bar + 1..]),
            None => (&outputs[..], &[][..]),
        };
        let words = split_paths(rest);
        let Some((rule, inputs)) = words.split_first() else {
            return Err(NinjaError {
                path: file.display().to_string(),
                line,
                reason: "a build statement without a rule".into(),
            });
        };
        let explicit_inputs = inputs
            .iter()
            .take_while(|w| !matches!(w.as_str(), "|" | "||" | "|@"))
            .map(eval)
            .collect();
        Ok(Edge {
            rule: rule.clone(),
            outputs: explicit_outputs.iter().map(eval).collect(),
            implicit_outputs: implicit_outputs.iter().map(eval).collect(),
            inputs: explicit_inputs,
            bindings: HashMap::new(),
            line,
            file: file.to_path_buf(),
        })
    }

    /// A variable of `edge` as its command sees it: `in`, `in_newline`, `out`, the statement's
    /// bindings, the rule's (evaluated in the statement's scope), the file's.
    pub fn variable(&self, edge: &Edge, name: &str) -> String {
        self.lookup(edge, name, 0)
    }

    fn lookup(&self, edge: &Edge, name: &str, depth: usize) -> String {
        if self.over_expanded() {
            return String::new();
        }
        let quoted = |paths: &[String], separator: &str| {
            paths
                .iter()
                .map(|p| super::winargs::quote_argument(p).into_owned())
                .collect::<Vec<_>>()
                .join(separator)
        };
        match name {
            "in" => return quoted(&edge.inputs, " "),
            "in_newline" => return quoted(&edge.inputs, "\n"),
            "out" => return quoted(&edge.outputs, " "),
            _ => {}
        }
        if let Some(value) = edge.bindings.get(name) {
            return value.clone();
        }
        if depth < 32 {
            if let Some(value) = self
                .rules
                .get(&edge.rule)
                .and_then(|r| r.bindings.get(name))
            {
                let mut out = String::new();
                for piece in &value.0 {
                    let text = match piece {
                        Piece::Text(text) => text.clone(),
                        Piece::Variable(inner) => self.lookup(edge, inner, depth + 1),
                    };
                    if !self.spend(text.len()) {
                        break;
                    }
                    out.push_str(&text);
                }
                return out;
            }
        }
        self.variables.get(name).cloned().unwrap_or_default()
    }

    /// The statement that produces `output` (compared with `/` and `\` alike, then ignoring
    /// case, as Windows paths are).
    pub fn producing(&self, output: &str) -> Option<&Edge> {
        let normal = |p: &str| p.replace('\\', "/").trim_start_matches("./").to_string();
        let wanted = normal(output);
        let outputs = |e: &'_ Edge| {
            e.outputs
                .iter()
                .chain(&e.implicit_outputs)
                .map(|o| normal(o))
                .collect::<Vec<_>>()
        };
        self.edges
            .iter()
            .find(|e| outputs(e).contains(&wanted))
            .or_else(|| {
                self.edges
                    .iter()
                    .find(|e| outputs(e).iter().any(|o| o.eq_ignore_ascii_case(&wanted)))
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn build_file(text: &str) -> (tempfile::TempDir, BuildFile) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("build.ninja"), text).unwrap();
        let file = BuildFile::read(
            &dir.path().join("build.ninja"),
            super::super::Bounds::default(),
        )
        .unwrap();
        (dir, file)
    }

    /// tvm-ffi's Windows build file, as `_generate_ninja_build` writes it.
    #[test]
    fn tvm_ffi_windows_build_file() {
        let (_dir, file) = build_file(
            "ninja_required_version = 1.3\n\
             cxx = cl\n\
             cflags = /std:c++17 /MD -IC$:\\tvm\\include\n\
             ldflags = /DLL /LIBPATH:C$:\\tvm_ffi\\lib tvm_ffi.lib\n\
             \n\
             rule compile\n  command = $cxx /showIncludes $cflags -c $in /Fo$out\n  deps = msvc\n\n\
             rule link\n  command = $cxx $in /link $ldflags /out:$out\n\n\
             build cpp_0.o: compile C$:\\src\\my$ ext\\main.cpp\n\
             build cuda_0.o: compile_cuda C$:\\src\\k.cu\n\
             build ext.dll: link cpp_0.o cuda_0.o\n\n\
             default ext.dll\n",
        );
        let edge = file.producing("ext.dll").unwrap();
        assert_eq!(edge.line, 15);
        assert_eq!(
            file.variable(edge, "command"),
            "cl cpp_0.o cuda_0.o /link /DLL /LIBPATH:C:\\tvm_ffi\\lib tvm_ffi.lib /out:ext.dll"
        );
        let compile = file.producing("cpp_0.o").unwrap();
        assert_eq!(
            file.variable(compile, "command"),
            "cl /showIncludes /std:c++17 /MD -IC:\\tvm\\include -c \"C:\\src\\my ext\\main.cpp\" /Focpp_0.o"
        );
        assert_eq!(file.defaults, ["ext.dll"]);
    }

    /// CMake's Ninja generator: rule variables, statement bindings, a response file, implicit
    /// outputs, continuations and `${}`.
    #[test]
    fn cmake_style_link_with_response_file() {
        let (_dir, file) = build_file(
            "# comment\n\
             rule CXX_SHARED_LIBRARY_LINKER__t_Release\n  \
               command = cmd.exe /C \"$PRE_LINK && C:\\LLVM\\bin\\lld-link.exe /nologo @$RSP_FILE /out:$TARGET_FILE /implib:$TARGET_IMPLIB /dll $LINK_FLAGS && $POST_BUILD\"\n  \
               rspfile = $RSP_FILE\n  \
               rspfile_content = $in_newline $LINK_PATH $LINK_LIBRARIES\n\n\
             build bin/t.dll lib/t.lib | ${CMAKE}_extra.txt: CXX_SHARED_LIBRARY_LINKER__t_Release \
             obj/a$ b.obj obj/c.obj $\n    || order_dep\n  \
               LINK_LIBRARIES = kernel32.lib $\n      user32.lib\n  \
               LINK_FLAGS = /machine:x64\n  \
               PRE_LINK = cd .\n  POST_BUILD = cd .\n  \
               RSP_FILE = CMakeFiles\\t.rsp\n  TARGET_FILE = bin\\t.dll\n  TARGET_IMPLIB = lib\\t.lib\n",
        );
        let edge = file.producing("lib\\t.lib").unwrap();
        assert_eq!(edge.inputs, ["obj/a b.obj", "obj/c.obj"]);
        assert_eq!(
            file.variable(edge, "command"),
            "cmd.exe /C \"cd . && C:\\LLVM\\bin\\lld-link.exe /nologo @CMakeFiles\\t.rsp /out:bin\\t.dll /implib:lib\\t.lib /dll /machine:x64 && cd .\""
        );
        assert_eq!(file.variable(edge, "rspfile"), "CMakeFiles\\t.rsp");
        assert_eq!(
            file.variable(edge, "rspfile_content"),
            "\"obj/a b.obj\"\nobj/c.obj  kernel32.lib user32.lib"
        );
        assert_eq!(edge.implicit_outputs, ["_extra.txt"]);
    }

    #[test]
    fn includes_and_errors() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("rules.ninja"),
            "rule link\n  command = lld-link $in /out:$out\n",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("build.ninja"),
            "include rules.ninja\nbuild x.dll: link a.obj\n",
        )
        .unwrap();
        let file = BuildFile::read(
            &dir.path().join("build.ninja"),
            super::super::Bounds::default(),
        )
        .unwrap();
        let edge = file.producing("x.dll").unwrap();
        assert_eq!(file.variable(edge, "command"), "lld-link a.obj /out:x.dll");
        std::fs::write(dir.path().join("bad.ninja"), "build x.dll link a.obj\n").unwrap();
        let error = BuildFile::read(
            &dir.path().join("bad.ninja"),
            super::super::Bounds::default(),
        )
        .unwrap_err();
        assert_eq!(error.line, 1);
        assert!(error.reason.contains("without `:`"), "{error}");
        let error = BuildFile::read(
            &dir.path().join("missing.ninja"),
            super::super::Bounds::default(),
        )
        .unwrap_err();
        assert_eq!(error.line, 0);
        // An included file that is not ninja: its bytes are never quoted in the error.
        std::fs::write(
            dir.path().join("secret.txt"),
            "hunter2:token\n  indented-secret\n",
        )
        .unwrap();
        for text in ["include secret.txt\n", "x = 1\ninclude secret.txt\n"] {
            std::fs::write(dir.path().join("inc.ninja"), text).unwrap();
            let error = BuildFile::read(
                &dir.path().join("inc.ninja"),
                super::super::Bounds::default(),
            )
            .unwrap_err();
            assert!(error.path.ends_with("secret.txt"), "{error}");
            assert!(!error.to_string().contains("hunter2"), "{error}");
        }
        std::fs::write(dir.path().join("secret.txt"), "rule r\n  indented-secret\n").unwrap();
        std::fs::write(dir.path().join("inc.ninja"), "include secret.txt\n").unwrap();
        let error = BuildFile::read(
            &dir.path().join("inc.ninja"),
            super::super::Bounds::default(),
        )
        .unwrap_err();
        assert!(!error.to_string().contains("indented-secret"), "{error}");
    }
}
