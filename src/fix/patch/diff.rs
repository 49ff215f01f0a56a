//! The unified diff of one inserted block, written so that both `git apply` and `patch -p1` accept
//! it: `a/`/`b/` prefixes, three lines of context, every line with the file's own ending (CRLF in
//! the Windows wheels: the `\r` stays part of the line, which both tools compare byte for byte).
//!
//! Written here rather than taken from a diff crate: the patch is always one inserted block, so
//! the diff is one hunk whose lines are known without computing a difference, and a general
//! line-diff library would have to be taught to keep each line's own ending byte for byte.

use super::python::PhysicalLine;

const CONTEXT: usize = 3;

/// Inserts `block` (lines with their endings) after physical line `after`; returns the new file and
/// the diff. Kept whole because the hunk's four parts (context before, lines removed, lines added,
/// context after), the new file and the hunk header are counted from the same few indices, and
/// the one case that changes them all (a last line without a newline) reads best in one place.
pub(crate) fn insertion(
    path_as_given: &str,
    lines: &[PhysicalLine<'_>],
    after: usize,
    block: &[Vec<u8>],
) -> (Vec<u8>, String) {
    let after = after.min(lines.len().saturating_sub(1));
    let last_has_no_newline = lines.get(after).is_some_and(|line| line.ending.is_empty());

    // Lines kept unchanged before the change, removed, added, and kept after.
    let context_start = if last_has_no_newline {
        after.saturating_sub(CONTEXT)
    } else {
        (after + 1).saturating_sub(CONTEXT)
    };
    let change_start = if last_has_no_newline {
        after
    } else {
        after + 1
    };
    let removed: Vec<Vec<u8>> = if last_has_no_newline {
        vec![lines[after].with_ending()]
    } else {
        Vec::new()
    };
    let mut added: Vec<Vec<u8>> = Vec::new();
    if last_has_no_newline {
        let ending = block
            .first()
            .map(|line| {
                if line.ends_with(b"\r\n") {
                    b"\r\n".as_slice()
                } else {
                    b"\n".as_slice()
                }
            })
            .unwrap_or(b"\n");
        let mut completed = lines[after].text.to_vec();
        completed.extend_from_slice(ending);
        added.push(completed);
    }
    added.extend(block.iter().cloned());
    let after_end = (change_start + removed.len() + CONTEXT).min(lines.len());
    let before: Vec<Vec<u8>> = lines[context_start..change_start]
        .iter()
        .map(PhysicalLine::with_ending)
        .collect();
    let trailing: Vec<Vec<u8>> = lines[change_start + removed.len()..after_end]
        .iter()
        .map(PhysicalLine::with_ending)
        .collect();

    let mut new_text = Vec::new();
    for line in &lines[..change_start] {
        new_text.extend_from_slice(&line.with_ending());
    }
    for line in &added {
        new_text.extend_from_slice(line);
    }
    for line in &lines[change_start + removed.len()..] {
        new_text.extend_from_slice(&line.with_ending());
    }

    let old_count = before.len() + removed.len() + trailing.len();
    let new_count = before.len() + added.len() + trailing.len();
    let name = header_path(path_as_given);
    let mut diff = format!(
        "--- {}\n+++ {}\n@@ -{} +{} @@\n",
        quoted(&format!("a/{name}")),
        quoted(&format!("b/{name}")),
        range(context_start, old_count),
        range(context_start, new_count)
    );
    let mut emit = |prefix: char, line: &[u8]| {
        diff.push(prefix);
        diff.push_str(&String::from_utf8_lossy(line));
        if !line.ends_with(b"\n") {
            diff.push_str("\n\\ No newline at end of file\n");
        }
    };
    before.iter().for_each(|line| emit(' ', line));
    removed.iter().for_each(|line| emit('-', line));
    added.iter().for_each(|line| emit('+', line));
    trailing.iter().for_each(|line| emit(' ', line));
    (new_text, diff)
}

/// Lines of a text with their own endings (the last one may have none).
fn lines_of(text: &[u8]) -> Vec<&[u8]> {
    text.split_inclusive(|&b| b == b'\n').collect()
}

/// One step of a line diff: kept, removed from the old text, added from the new.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Keep,
    Remove,
    Add,
}

/// The steps from `old` to `new`: the common head and tail kept, the middle by a longest common
/// subsequence (or, past four million cells, all of it replaced: still a correct diff).
fn steps(old: &[&[u8]], new: &[&[u8]]) -> Vec<Step> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    let mut out = vec![Step::Keep; head];
    if a.len().saturating_mul(b.len()) > 4_000_000 {
        out.extend(std::iter::repeat_n(Step::Remove, a.len()));
        out.extend(std::iter::repeat_n(Step::Add, b.len()));
    } else {
        // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
        let width = b.len() + 1;
        let mut lcs = vec![0u32; (a.len() + 1) * width];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i * width + j] = if a[i] == b[j] {
                    lcs[(i + 1) * width + j + 1] + 1
                } else {
                    lcs[(i + 1) * width + j].max(lcs[i * width + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                out.push(Step::Keep);
                i += 1;
                j += 1;
            } else if i < a.len()
                && (j == b.len() || lcs[(i + 1) * width + j] >= lcs[i * width + j + 1])
            {
                // Removals first, as diff(1) writes them.
                out.push(Step::Remove);
                i += 1;
            } else {
                out.push(Step::Add);
                j += 1;
            }
        }
    }
    out.extend(std::iter::repeat_n(Step::Keep, tail));
    out
}

/// The unified diff of a whole file, `before` to `after`, headers `--- a/PATH` and `+++ b/PATH`
/// as [`insertion`] writes them, three lines of context, every line with its own ending byte for
/// byte. Empty when the texts are equal.
pub(crate) fn whole_file(path_as_given: &str, before: &[u8], after: &[u8]) -> String {
    let (old, new) = (lines_of(before), lines_of(after));
    let steps = steps(&old, &new);
    // Each step with its old and new line index.
    let mut at = Vec::with_capacity(steps.len());
    let (mut i, mut j) = (0, 0);
    for &step in &steps {
        at.push((step, i, j));
        match step {
            Step::Keep => {
                i += 1;
                j += 1;
            }
            Step::Remove => i += 1,
            Step::Add => j += 1,
        }
    }
    let changed: Vec<usize> = (0..at.len()).filter(|&k| at[k].0 != Step::Keep).collect();
    if changed.is_empty() {
        return String::new();
    }
    // Hunks: runs of steps around changes, joined when their context would touch.
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    for &k in &changed {
        let start = k.saturating_sub(CONTEXT);
        let end = (k + 1 + CONTEXT).min(at.len());
        match hunks.last_mut() {
            Some(last) if start <= last.1 => last.1 = end,
            _ => hunks.push((start, end)),
        }
    }
    let name = header_path(path_as_given);
    let mut diff = format!(
        "--- {}\n+++ {}\n",
        quoted(&format!("a/{name}")),
        quoted(&format!("b/{name}"))
    );
    for (start, end) in hunks {
        let slice = &at[start..end];
        let old_count = slice.iter().filter(|s| s.0 != Step::Add).count();
        let new_count = slice.iter().filter(|s| s.0 != Step::Remove).count();
        let (_, old_start, new_start) = slice[0];
        diff.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(old_start, old_count),
            range(new_start, new_count)
        ));
        for &(step, i, j) in slice {
            let (prefix, line) = match step {
                Step::Keep => (' ', old[i]),
                Step::Remove => ('-', old[i]),
                Step::Add => ('+', new[j]),
            };
            diff.push(prefix);
            diff.push_str(&String::from_utf8_lossy(line));
            if !line.ends_with(b"\n") {
                diff.push_str("\n\\ No newline at end of file\n");
            }
        }
    }
    diff
}

/// `start,count` of a hunk (1-based; an empty range names the line before it).
fn range(start: usize, count: usize) -> String {
    if count == 0 {
        format!("{start},0")
    } else {
        format!("{},{count}", start + 1)
    }
}

/// The path as given, with Windows separators turned into `/` (the only separator `git apply` and
/// `patch` split on) and a leading `./` dropped.
fn header_path(path_as_given: &str) -> String {
    let path = path_as_given.replace('\\', "/");
    let mut path = path.as_str();
    while let Some(rest) = path.strip_prefix("./") {
        path = rest;
    }
    path.to_string()
}

/// Git's C-style quoting, used only when the name needs it (spaces included: GNU patch would stop
/// at the first space of an unquoted name with no timestamp).
fn quoted(name: &str) -> String {
    let needs = name.chars().any(|character| {
        character == ' '
            || character == '"'
            || character == '\\'
            || !(' '..='~').contains(&character)
    });
    if !needs {
        return name.to_string();
    }
    let mut out = String::from("\"");
    for byte in name.bytes() {
        match byte {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            b' '..=b'~' => out.push(char::from(byte)),
            _ => out.push_str(&format!("\\{byte:03o}")),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn whole_file_diffs_apply_with_patch() {
        let before = b"a\r\nb\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\ni\r\nj\r\nk\r\nl";
        let after = b"a\r\nb\r\nX\r\nc\r\nd\r\ne\r\nf\r\ng\r\nh\r\ni\r\nj\r\nk\r\nL";
        let diff = super::whole_file("dir/CMakeLists.txt", before, after);
        assert_eq!(
            diff,
            "--- a/dir/CMakeLists.txt\n+++ b/dir/CMakeLists.txt\n@@ -1,5 +1,6 @@\n a\r\n b\r\n+X\r\n c\r\n d\r\n e\r\n@@ -9,4 +10,4 @@\n i\r\n j\r\n k\r\n-l\n\\ No newline at end of file\n+L\n\\ No newline at end of file\n"
        );
        assert_eq!(super::whole_file("x", before, before), "");
    }

    use super::super::python::split_lines;
    use super::*;

    #[test]
    fn inserts_with_context_and_keeps_crlf() {
        let source = b"a\r\nb\r\nc\r\nd\r\ne\r\n";
        let lines = split_lines(source);
        let (new_text, diff) = insertion("x/y.py", &lines, 2, &[b"N\r\n".to_vec()]);
        assert_eq!(new_text, b"a\r\nb\r\nc\r\nN\r\nd\r\ne\r\n");
        assert_eq!(
            diff,
            "--- a/x/y.py\n+++ b/x/y.py\n@@ -1,5 +1,6 @@\n a\r\n b\r\n c\r\n+N\r\n d\r\n e\r\n"
        );
    }

    #[test]
    fn last_line_without_newline() {
        let lines = split_lines(b"a\nb");
        let (new_text, diff) = insertion("f.py", &lines, 1, &[b"N\n".to_vec()]);
        assert_eq!(new_text, b"a\nb\nN\n");
        assert_eq!(
            diff,
            "--- a/f.py\n+++ b/f.py\n@@ -1,2 +1,3 @@\n a\n-b\n\\ No newline at end of file\n+b\n+N\n"
        );
    }

    #[test]
    fn header_paths() {
        assert_eq!(
            header_path(".\\tvm_ffi\\cpp\\extension.py"),
            "tvm_ffi/cpp/extension.py"
        );
        assert_eq!(quoted("a/my dir/e.py"), "\"a/my dir/e.py\"");
        assert_eq!(quoted("a/é"), "\"a/\\303\\251\"");
        assert_eq!(quoted("a/e.py"), "a/e.py");
    }
}
