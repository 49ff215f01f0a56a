//! The triage rows as data: `symbol-db/triage.json` (compiled in) plus the user's `--rules` files,
//! validated and compiled into one [`RowBook`] that classifies a line with a single `RegexSet` pass.

use regex::{Regex, RegexSet};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::{Stage, TriageError};

/// The shipped rows.
const BUILTIN_ROWS: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/symbol-db/triage.json"
));

/// What a row's match means for the classification.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RowKind {
    /// A root error: the first one in the attempt is the one to fix.
    Root,
    /// A downstream symptom: listed, never chosen (the rule book's "cascade").
    Cascade,
    /// The run came up: chosen only when the attempt has no root error.
    Success,
    /// Evidence that is a root only when an analysis says so (the arch on a command line).
    Context,
    /// A root of last resort: chosen only when nothing else matched (an uncaught exception).
    Fallback,
}

/// A built-in analysis a row can ask for; it fills the row's `{placeholders}`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Analysis {
    /// Compare the `--offload-arch=` on a compile command line with the intended arch.
    ArchMismatch,
    /// Collect every `--offload-arch=` in the log's JIT command lines (runtime: invalid device
    /// function) and say whether the arch variable reached the flags.
    OffloadArch,
    /// Hand the attempt's lines to the link resolver (`resolve::diagnose`).
    LinkDiagnosis,
}

/// One row of the rule book, as written in the JSON file.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    /// Stable id shown in reports (`fpic-msvc`).
    pub id: String,
    /// The stage a match classifies the attempt as (cascades have none).
    #[serde(default)]
    pub stage: Option<Stage>,
    /// What a match means.
    pub kind: RowKind,
    /// Regular expressions tried on every line (any one matches); named groups become
    /// `{placeholders}` in the texts.
    #[serde(default)]
    pub patterns: Vec<String>,
    /// Regular expressions for supporting evidence: the nearest line above the match (in the same
    /// attempt) that matches each is added to the evidence.
    #[serde(default)]
    pub context: Vec<String>,
    /// The built-in analysis the row needs.
    #[serde(default)]
    pub analysis: Option<Analysis>,
    /// The rule book's row, as written.
    #[serde(default)]
    pub rulebook: Option<String>,
    /// The cause (template).
    #[serde(default)]
    pub cause: String,
    /// The one fix to apply next (template).
    #[serde(default)]
    pub fix: String,
    /// What to check after relaunching (template).
    #[serde(default)]
    pub follow_up: String,
    /// Meta-rule ids whose text goes with the advice.
    #[serde(default)]
    pub meta: Vec<String>,
}

/// A line that starts a new attempt (a relaunch).
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AttemptMarker {
    /// Stable id shown in reports.
    pub id: String,
    /// The regular expression.
    pub pattern: String,
    /// Why it marks a relaunch.
    #[serde(default)]
    pub note: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RowFile {
    schema_version: u32,
    #[serde(default)]
    #[allow(dead_code)]
    source: Option<String>,
    #[serde(default)]
    meta_rules: BTreeMap<String, String>,
    #[serde(default)]
    attempt_markers: Vec<AttemptMarker>,
    #[serde(default)]
    rows: Vec<Row>,
    // A file may carry link-symbol rules for the resolver too (same `--rules` option); they are
    // read by `rules::RuleBook::add_file`, not here.
    #[serde(default)]
    #[allow(dead_code)]
    families: Option<serde_json::Value>,
    #[serde(default)]
    #[allow(dead_code)]
    chain: Option<serde_json::Value>,
    #[serde(default)]
    #[allow(dead_code)]
    debug_only: Option<serde_json::Value>,
    #[serde(default)]
    #[allow(dead_code)]
    rules: Option<serde_json::Value>,
}

/// Whether a rule file holds link-symbol rules (families, chain, rules) for the resolver.
pub(crate) fn has_link_rules(text: &str) -> bool {
    serde_json::from_str::<serde_json::Value>(text).is_ok_and(|v| {
        ["families", "chain", "rules", "debug_only"]
            .iter()
            .any(|k| v.get(k).is_some())
    })
}

/// A row with its compiled expressions.
#[derive(Debug, Clone)]
pub(crate) struct CompiledRow {
    pub row: Row,
    pub patterns: Vec<Regex>,
    pub context: Vec<Regex>,
}

/// Every row and attempt marker, compiled: user rows first, then the shipped ones.
#[derive(Debug, Clone)]
pub struct RowBook {
    pub(crate) rows: Vec<CompiledRow>,
    /// For each pattern in `set`: (row index, pattern index).
    pub(crate) owners: Vec<(usize, usize)>,
    pub(crate) set: RegexSet,
    pub(crate) markers: Vec<(AttemptMarker, Regex)>,
    pub(crate) meta_rules: BTreeMap<String, String>,
}

impl RowBook {
    /// The rows shipped in `symbol-db/triage.json`.
    pub fn builtin() -> RowBook {
        RowBook::load(&[]).expect("the shipped symbol-db/triage.json is valid (checked by tests)")
    }

    /// The shipped rows plus the users' files: a user row with a shipped id replaces it, the
    /// others are tried before the shipped ones (so they win on the same line).
    pub fn load(extra: &[PathBuf]) -> Result<RowBook, TriageError> {
        // The shipped book is compiled once per process (cloning shares the compiled regexes).
        static BUILTIN: std::sync::OnceLock<Result<RowBook, String>> = std::sync::OnceLock::new();
        if extra.is_empty() {
            return match BUILTIN
                .get_or_init(|| RowBook::load_uncached(&[]).map_err(|e| e.to_string()))
            {
                Ok(book) => Ok(book.clone()),
                Err(message) => Err(TriageError::Rules {
                    path: PathBuf::from("symbol-db/triage.json"),
                    message: message.clone(),
                }),
            };
        }
        RowBook::load_uncached(extra)
    }

    fn load_uncached(extra: &[PathBuf]) -> Result<RowBook, TriageError> {
        let builtin = parse(BUILTIN_ROWS, Path::new("symbol-db/triage.json"))?;
        let mut files = Vec::new();
        for path in extra {
            let text = crate::files::open::read_regular_to_string(path).map_err(|source| {
                TriageError::Rules {
                    path: path.clone(),
                    message: format!("cannot read: {source}"),
                }
            })?;
            files.push((path.clone(), parse(&text, path)?));
        }
        let mut rows: Vec<(PathBuf, Row)> = Vec::new();
        let mut markers = Vec::new();
        let mut meta_rules = builtin.meta_rules.clone();
        // User files in the order given; each file's rows keep their order.
        for (path, file) in &files {
            for row in &file.rows {
                if rows.iter().any(|(_, r)| r.id == row.id) {
                    return Err(TriageError::Rules {
                        path: path.clone(),
                        message: format!("row {}: the id is used twice", row.id),
                    });
                }
                rows.push((path.clone(), row.clone()));
            }
            markers.extend(
                file.attempt_markers
                    .iter()
                    .map(|m| (path.clone(), m.clone())),
            );
            meta_rules.extend(file.meta_rules.clone());
        }
        for row in builtin.rows {
            if !rows.iter().any(|(_, r)| r.id == row.id) {
                rows.push((PathBuf::from("symbol-db/triage.json"), row));
            }
        }
        markers.extend(
            builtin
                .attempt_markers
                .into_iter()
                .map(|m| (PathBuf::from("symbol-db/triage.json"), m)),
        );
        compile(rows, markers, meta_rules)
    }

    /// Every row, in matching order.
    pub fn rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().map(|r| &r.row)
    }

    /// The row with this id.
    pub fn row(&self, id: &str) -> Option<&Row> {
        self.rows().find(|r| r.id == id)
    }

    /// Every attempt marker.
    pub fn attempt_markers(&self) -> impl Iterator<Item = &AttemptMarker> {
        self.markers.iter().map(|(m, _)| m)
    }

    /// The text of a meta-rule.
    pub fn meta_rule(&self, id: &str) -> Option<&str> {
        self.meta_rules.get(id).map(String::as_str)
    }
}

fn parse(text: &str, path: &Path) -> Result<RowFile, TriageError> {
    let file: RowFile = serde_json::from_str(text).map_err(|e| TriageError::Rules {
        path: path.to_path_buf(),
        message: format!("not a valid triage rule file: {e}"),
    })?;
    if file.schema_version != crate::rules::RULE_SCHEMA_VERSION {
        return Err(TriageError::Rules {
            path: path.to_path_buf(),
            message: format!(
                "rule file schema_version {} is not one this lnkfix understands (it reads {})",
                file.schema_version,
                crate::rules::RULE_SCHEMA_VERSION
            ),
        });
    }
    Ok(file)
}

/// A pattern with its word boundaries (`\b`, `\B`) made ASCII ones (`(?-u:\b)`). A Unicode
/// word boundary makes the regex engine fall back to its slowest matcher on every line with a
/// non-ASCII character (1.6 MB/s on Cyrillic or CJK text); the ASCII one keeps the fast one. Rows
/// anchor on ASCII words (LNK codes, tool names), where the two agree.
pub(crate) fn ascii_boundaries(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some(b @ ('b' | 'B')) if !in_class => {
                    out.push_str("(?-u:\\");
                    out.push(b);
                    out.push(')');
                }
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            '[' => {
                in_class = true;
                out.push(c);
            }
            ']' => {
                in_class = false;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn compile(
    rows: Vec<(PathBuf, Row)>,
    markers: Vec<(PathBuf, AttemptMarker)>,
    meta_rules: BTreeMap<String, String>,
) -> Result<RowBook, TriageError> {
    let mut compiled = Vec::with_capacity(rows.len());
    let mut sources = Vec::new();
    let mut owners = Vec::new();
    for (path, row) in rows {
        let bad = |message: String| TriageError::Rules {
            path: path.clone(),
            message: format!("row {}: {message}", row.id),
        };
        let regex = |p: &String| {
            Regex::new(&ascii_boundaries(p)).map_err(|e| bad(format!("bad pattern: {e}")))
        };
        let patterns = row
            .patterns
            .iter()
            .map(regex)
            .collect::<Result<Vec<_>, _>>()?;
        let context = row
            .context
            .iter()
            .map(regex)
            .collect::<Result<Vec<_>, _>>()?;
        if row.kind != RowKind::Cascade && row.stage.is_none() {
            return Err(bad("a row that is not a cascade needs a stage".into()));
        }
        if row.id.trim().is_empty() {
            return Err(bad("empty id".into()));
        }
        for meta in &row.meta {
            if !meta_rules.contains_key(meta) {
                return Err(bad(format!("unknown meta-rule {meta:?}")));
            }
        }
        for (i, p) in row.patterns.iter().enumerate() {
            owners.push((compiled.len(), i));
            sources.push(ascii_boundaries(p));
        }
        compiled.push(CompiledRow {
            row,
            patterns,
            context,
        });
    }
    let set = RegexSet::new(&sources).map_err(|e| TriageError::Rules {
        path: PathBuf::from("(all rows)"),
        message: format!("patterns do not compile together: {e}"),
    })?;
    let markers = markers
        .into_iter()
        .map(|(path, m)| {
            Regex::new(&ascii_boundaries(&m.pattern))
                .map(|r| (m.clone(), r))
                .map_err(|e| TriageError::Rules {
                    path,
                    message: format!("attempt marker {}: bad pattern: {e}", m.id),
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(RowBook {
        rows: compiled,
        owners,
        set,
        markers,
        meta_rules,
    })
}

/// Fills `{name}` placeholders from `values`; unknown placeholders are left as written.
pub(crate) fn fill(template: &str, values: &BTreeMap<String, String>) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        out.push_str(&rest[..start]);
        let after = &rest[start + 1..];
        match after.find('}') {
            Some(end)
                if after[..end]
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_')
                    && end > 0 =>
            {
                match values.get(&after[..end]) {
                    Some(v) => out.push_str(v),
                    None => out.push_str(&rest[start..start + end + 2]),
                }
                rest = &after[end + 1..];
            }
            _ => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builtin_rows_load() {
        let book = RowBook::builtin();
        assert!(book.row("fpic-msvc").is_some());
        assert!(book.attempt_markers().count() >= 3);
    }

    #[test]
    fn placeholders() {
        let mut v = BTreeMap::new();
        v.insert("flag".to_string(), "/O2".to_string());
        assert_eq!(fill("flag '{flag}' {x} {} {", &v), "flag '/O2' {x} {} {");
    }
}
