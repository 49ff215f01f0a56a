//! Candidates from what the walk found, ranked: ordinary package code before vendored copies,
//! tests and docs; then by how much of the message the constant parts explain; then by the
//! evidence that the place raises it (a `raise` there or just after, the exception type, the
//! module). A `raise Type("part")` whose text fills a placeholder of a message that `Type`'s
//! `__init__`/`__str__` formats explains both parts together.

use std::path::{Path, PathBuf};

use serde::Serialize;

use super::message::Message;
use super::python::{Found, Raises};
use super::template::chars_in;
use super::walk::FileFound;

/// Where a file sits, for ranking: everything but `Source` ranks below.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Location {
    /// Package or standard-library code.
    Source,
    /// A vendored copy (`_vendor`, `vendored`, `third_party`, ...).
    Vendored,
    /// Tests (`test`, `tests`, `testing`, `test_*.py`, `conftest.py`, ...).
    Tests,
    /// Documentation and examples.
    Docs,
}

/// Directory names of vendored copies.
const VENDORED: &[&str] = &[
    "_vendor",
    "vendor",
    "vendored",
    "_vendored",
    "third_party",
    "_third_party",
    "thirdparty",
    "externals",
];
/// Directory names of tests.
const TESTS: &[&str] = &[
    "test",
    "tests",
    "testing",
    "_test",
    "_tests",
    "idle_test",
    "unittests",
    "testsuite",
];
/// Directory names of documentation and examples.
const DOCS: &[&str] = &[
    "doc",
    "docs",
    "example",
    "examples",
    "sample",
    "samples",
    "tutorial",
    "tutorials",
    "benchmarks",
];

impl Location {
    /// The location of a path relative to its search root.
    pub fn of(relative: &str) -> Location {
        let lower = relative.to_ascii_lowercase();
        let mut parts: Vec<&str> = lower.split('/').collect();
        let file = parts.pop().unwrap_or("");
        let mut location = Location::Source;
        let mut worse = |l: Location| location = location.max(l);
        for dir in parts {
            if VENDORED.contains(&dir) {
                worse(Location::Vendored);
            }
            if TESTS.contains(&dir) {
                worse(Location::Tests);
            }
            if DOCS.contains(&dir) {
                worse(Location::Docs);
            }
        }
        if file.starts_with("test_")
            || file.ends_with("_test.py")
            || file.ends_with("_tests.py")
            || file == "conftest.py"
        {
            worse(Location::Tests);
        }
        location
    }
}

/// One place that may format the message.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Candidate {
    /// The file, relative to the directory searched that holds it, with `/`.
    pub path: String,
    /// 1-based line of the first constant part that matched.
    pub line: usize,
    /// The enclosing function (`null` at module level).
    pub function: Option<String>,
    /// That source line, trimmed.
    pub text: String,
    /// The exception type raised or built there, as written (`null` when none is seen).
    pub exception: Option<String>,
    /// Share of the message's characters its constant parts explain, 0 to 1.
    pub explains: f64,
    /// The enclosing class.
    pub class: Option<String>,
    /// The template, `{}` for each placeholder.
    pub template: String,
    /// How it is tied to raising: `on-line`, `in-exception-class`, `nearby`, `no`.
    pub raises: Raises,
    /// Why it ranks where it does: `raises`, `raises-nearby`, `built-in-exception-class`,
    /// `exception-type-matches`, `module-matches`, `package-matches`, `whole-message`,
    /// `completed-by-exception-class`.
    pub evidence: Vec<&'static str>,
    /// `source`, `vendored`, `tests` or `docs`.
    pub location: Location,
    /// The exception class method whose format this raise fills in (`path:line`), when it does.
    pub formatted_by: Option<String>,
    /// The directory searched that holds the file.
    #[serde(serialize_with = "path_as_text")]
    pub root: PathBuf,
    /// The file on disk.
    #[serde(serialize_with = "path_as_text")]
    pub file: PathBuf,
    #[serde(skip)]
    covered: Vec<std::ops::Range<usize>>,
    #[serde(skip)]
    gaps: Vec<std::ops::Range<usize>>,
    #[serde(skip)]
    points: u32,
    #[serde(skip)]
    canonical: PathBuf,
}

// `explains` is a ratio of two counts, never NaN.
impl Eq for Candidate {}

/// Least share of the message a candidate must explain.
pub const MIN_EXPLAINS: f64 = 0.25;

/// The ranked candidates for message `index` of `messages` in what the walk found. `roots` are
/// the directories searched (the innermost one holding a file is its root).
pub fn candidates(
    found: &[FileFound],
    index: usize,
    message: &Message,
    roots: &[PathBuf],
) -> Vec<Candidate> {
    let total = message.text.chars().count().max(1);
    let mut out: Vec<Candidate> = Vec::new();
    for file in found {
        let (root, relative) = split_root(&file.path, roots);
        for f in file.found.iter().filter(|f| f.message == index) {
            out.push(candidate(f, message, &file.path, root, relative.clone()));
        }
    }
    compose(&mut out, message);
    for c in &mut out {
        c.explains = round(chars_in(&message.text, &c.covered) as f64 / total as f64);
    }
    out.retain(|c| c.explains >= MIN_EXPLAINS);
    // The same file reached twice (a symbolic link) is one.
    for c in &mut out {
        c.canonical = dunce::canonicalize(&c.file).unwrap_or_else(|_| c.file.clone());
    }
    out.sort_by(order);
    let mut seen = std::collections::HashSet::new();
    out.retain(|c| seen.insert((c.canonical.clone(), c.line, c.template.clone())));
    out
}

/// Merges two ranked lists for the same message (a second pass), keeping the first of repeats.
pub fn merge(mut first: Vec<Candidate>, second: Vec<Candidate>) -> Vec<Candidate> {
    for c in second {
        if !first
            .iter()
            .any(|f| f.canonical == c.canonical && f.line == c.line && f.template == c.template)
        {
            first.push(c);
        }
    }
    first.sort_by(order);
    first
}

fn order(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    let permille = |c: &Candidate| (c.explains * 1000.0).round() as i64;
    a.location
        .cmp(&b.location)
        .then_with(|| permille(b).cmp(&permille(a)))
        .then_with(|| b.points.cmp(&a.points))
        .then_with(|| a.path.cmp(&b.path))
        .then_with(|| a.line.cmp(&b.line))
}

fn round(value: f64) -> f64 {
    (value * 1000.0).round() / 1000.0
}

/// A path in JSON: as text, with bytes that are no UTF-8 shown as `\xNN` (the text report's
/// escaping), never U+FFFD and never a failed report.
fn path_as_text<S: serde::Serializer>(path: &Path, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(&crate::output::terminal::path_text(path))
}

/// The innermost search root holding `path`, and the path below it with `/`.
fn split_root<'a>(path: &Path, roots: &'a [PathBuf]) -> (&'a Path, String) {
    let best = roots
        .iter()
        .filter(|root| path.starts_with(root))
        .max_by_key(|root| root.components().count());
    match best {
        Some(root) => {
            let relative = path.strip_prefix(root).unwrap_or(path);
            let parts: Vec<String> = relative
                .components()
                .map(|c| crate::output::terminal::path_text(Path::new(c.as_os_str())).into_owned())
                .collect();
            (root.as_path(), parts.join("/"))
        }
        None => (
            Path::new(""),
            crate::output::terminal::path_text(path).replace('\\', "/"),
        ),
    }
}

/// The dotted module of a path below a search root (`json/decoder.py` → `json.decoder`).
pub fn module_of(relative: &str) -> String {
    let without = relative
        .strip_suffix(".py")
        .or_else(|| relative.strip_suffix(".pyw"))
        .unwrap_or(relative);
    let without = without.strip_suffix("/__init__").unwrap_or(without);
    without.replace('/', ".")
}

fn last_component(name: &str) -> &str {
    name.rsplit('.').next().unwrap_or(name)
}

fn candidate(
    found: &Found,
    message: &Message,
    file: &Path,
    root: &Path,
    relative: String,
) -> Candidate {
    let mut evidence = Vec::new();
    let mut points = 0;
    match found.raises {
        Raises::OnLine => {
            evidence.push("raises");
            points += 3;
        }
        Raises::InExceptionClass => {
            evidence.push("built-in-exception-class");
            points += 3;
        }
        Raises::Nearby => {
            evidence.push("raises-nearby");
            points += 2;
        }
        Raises::No => {}
    }
    if let (Some(wanted), Some(got)) = (&message.exception, &found.exception) {
        if last_component(wanted) == last_component(got) {
            evidence.push("exception-type-matches");
            points += 3;
        }
    }
    if let Some(wanted) = &message.module {
        let module = module_of(&relative);
        if &module == wanted {
            evidence.push("module-matches");
            points += 2;
        } else if module.split('.').next() == wanted.split('.').next() {
            evidence.push("package-matches");
            points += 1;
        }
    }
    if found.matched.whole {
        evidence.push("whole-message");
        points += 1;
    }
    Candidate {
        location: Location::of(&relative),
        path: relative,
        line: found.line,
        function: found.function.clone(),
        text: found.text.clone(),
        exception: found.exception.clone(),
        explains: 0.0,
        class: found.class.clone(),
        template: found.template.clone(),
        raises: found.raises,
        evidence,
        formatted_by: None,
        root: root.to_path_buf(),
        file: file.to_path_buf(),
        covered: found.matched.covered.clone(),
        gaps: found.matched.gaps.clone(),
        points,
        canonical: PathBuf::new(),
    }
}

/// A `raise Type(...)` whose matched text lies inside the placeholders of a template built in
/// `Type`'s own methods also explains what that template explains. Of several classes of that
/// name, the one in the raiser's file wins, then one in its package.
fn compose(candidates: &mut [Candidate], message: &Message) {
    struct Builder {
        class: String,
        covered: Vec<std::ops::Range<usize>>,
        gaps: Vec<std::ops::Range<usize>>,
        at: String,
        file: PathBuf,
        package: String,
        chars: usize,
    }
    let package = |path: &str| path.split('/').next().unwrap_or("").to_string();
    let builders: Vec<Builder> = candidates
        .iter()
        .filter(|c| c.raises == Raises::InExceptionClass)
        .filter_map(|c| {
            Some(Builder {
                class: c.class.clone()?,
                covered: c.covered.clone(),
                gaps: c.gaps.clone(),
                at: format!("{}:{}", c.path, c.line),
                file: c.file.clone(),
                package: package(&c.path),
                chars: chars_in(&message.text, &c.covered),
            })
        })
        .collect();
    for c in candidates.iter_mut() {
        if !matches!(c.raises, Raises::OnLine | Raises::Nearby) {
            continue;
        }
        let Some(exception) = c.exception.as_deref().map(last_component) else {
            continue;
        };
        let fills = |b: &Builder| {
            c.covered.iter().all(|part| {
                !b.covered
                    .iter()
                    .any(|r| r.start < part.end && part.start < r.end)
                    && (b
                        .gaps
                        .iter()
                        .any(|g| g.start <= part.start && part.end <= g.end)
                        || b.covered.first().is_some_and(|r| part.end <= r.start)
                        || b.covered.last().is_some_and(|r| r.end <= part.start))
            })
        };
        let own_package = package(&c.path);
        let best = builders
            .iter()
            .filter(|b| b.class == exception && fills(b))
            .max_by_key(|b| (b.file == c.file, b.package == own_package, b.chars));
        if let Some(builder) = best {
            c.covered.extend(builder.covered.iter().cloned());
            c.covered.sort_by_key(|r| r.start);
            c.evidence.push("completed-by-exception-class");
            c.points += 1;
            c.formatted_by = Some(builder.at.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn locations() {
        let rows = [
            ("triton/runtime/jit.py", Location::Source),
            ("json/decoder.py", Location::Source),
            ("unittest/case.py", Location::Source),
            ("test/test_json/test_fail.py", Location::Tests),
            ("torch/testing/_internal/common_utils.py", Location::Tests),
            ("pkg/tests/helpers.py", Location::Tests),
            ("pkg/test_things.py", Location::Tests),
            ("pkg/conftest.py", Location::Tests),
            ("pip/_vendor/requests/api.py", Location::Vendored),
            ("pip/_vendor/x/tests/t.py", Location::Tests),
            ("pkg/docs/conf.py", Location::Docs),
        ];
        for (path, expected) in rows {
            assert_eq!(Location::of(path), expected, "{path}");
        }
    }

    #[test]
    fn modules() {
        assert_eq!(module_of("json/decoder.py"), "json.decoder");
        assert_eq!(module_of("triton/__init__.py"), "triton");
        assert_eq!(module_of("subprocess.py"), "subprocess");
    }
}
