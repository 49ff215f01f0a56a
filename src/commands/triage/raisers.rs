//! The raisers of a runtime-stage triage answer (`triage --site-packages DIR` or `--python
//! EXE`): every evidence line that carries a Python exception (`Type: message`) is looked up in
//! the sources, all lines in one walk; the candidates are attached to the line, and the fix
//! points at the files: a source path it names (`triton/backends/amd/compiler.py`) becomes the
//! file on disk, and the raiser is added.

use std::path::PathBuf;
use std::sync::OnceLock;

use regex::Regex;

use super::{Stage, TriageReport};
use crate::commands::whence::message::{find_exception, Message};
use crate::commands::whence::{location_line, resolve, search, SourceSpec, WhenceError};

/// Most raisers attached to one evidence line.
pub const RAISERS_PER_LINE: usize = 3;

/// Attaches raisers to the evidence lines of a runtime-stage report; other stages are left alone
/// (the sources are still checked: a bad `--site-packages` is an error whatever the log says).
pub(crate) fn attach_raisers(
    report: &mut TriageReport,
    spec: &SourceSpec,
) -> Result<(), WhenceError> {
    let sources = resolve(spec, &|_| None)?;
    if report.stage != Stage::Runtime {
        return Ok(());
    }
    let dirs: Vec<PathBuf> = sources.dirs.iter().map(|d| d.path.clone()).collect();
    let lines: Vec<(usize, Message)> = report
        .evidence
        .iter()
        .enumerate()
        .filter_map(|(i, e)| find_exception(&e.text).map(|at| (i, Message::parse(&e.text[at..]))))
        .collect();
    if lines.is_empty() {
        return Ok(());
    }
    let (results, stats) = search(lines.iter().map(|(_, m)| m.clone()).collect(), &dirs);
    for ((index, _), result) in lines.iter().zip(results) {
        let raisers: Vec<_> = result
            .candidates
            .into_iter()
            .take(RAISERS_PER_LINE)
            .collect();
        report.evidence[*index].raisers = Some(raisers);
    }
    report.warnings.extend(stats.warnings);
    let top = lines.iter().find_map(|(index, message)| {
        let raisers = report.evidence[*index].raisers.as_ref()?;
        Some((raisers.first()?.clone(), message.exception.clone()))
    });
    if let Some((top, exception)) = top {
        report.fix = format!(
            "{}; the {} is raised at {} ({})",
            locate_paths(&report.fix, &dirs),
            exception.as_deref().unwrap_or("error"),
            location_line(&top),
            crate::output::terminal::path_text(&top.file)
        );
    }
    Ok(())
}

/// `text` with each relative source path it names (`pkg/sub/file.py`) that exists under one of
/// `dirs` replaced by the file on disk.
pub fn locate_paths(text: &str, dirs: &[PathBuf]) -> String {
    static PATH: OnceLock<Regex> = OnceLock::new();
    let pattern = PATH.get_or_init(|| {
        Regex::new(r"\b[A-Za-z_][\w.-]*(?:/[\w.-]+)+\.py\b").expect("the source path pattern")
    });
    pattern
        .replace_all(text, |found: &regex::Captures<'_>| {
            let relative = &found[0];
            dirs.iter()
                .map(|dir| {
                    relative
                        .split('/')
                        .fold(dir.clone(), |path, part| path.join(part))
                })
                .find(|path| path.is_file())
                .map_or_else(
                    || relative.to_string(),
                    |path| crate::output::terminal::path_text(&path).into_owned(),
                )
        })
        .into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_in_a_fix_become_files_on_disk() {
        let dir = tempfile::tempdir().unwrap();
        let amd = dir.path().join("triton").join("backends").join("amd");
        std::fs::create_dir_all(&amd).unwrap();
        std::fs::write(amd.join("compiler.py"), "class HIPOptions: pass\n").unwrap();
        let fix = "add it to the Options class (triton/backends/amd/compiler.py, HIPOptions), not nvidia/missing.py";
        let located = locate_paths(fix, &[dir.path().to_path_buf()]);
        let expected = amd.join("compiler.py").display().to_string();
        assert_eq!(
            located,
            format!("add it to the Options class ({expected}, HIPOptions), not nvidia/missing.py")
        );
    }
}
