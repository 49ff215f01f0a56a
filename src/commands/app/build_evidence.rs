//! The build's own CRT evidence for `diagnose`: the `/DEFAULTLIB` directives and machines of
//! the objects the log names and of `--objects`, and the CRT options of `--build-dir`'s
//! `build.ninja`.

use std::path::{Path, PathBuf};

use crate::index::discover;
use crate::index::{Index, IndexOptions};
use crate::resolve::DiagnoseOptions;
use crate::rules::RuleBook;

/// Object files named by the log's references and findings that exist on disk (relative to the log's
/// directory or the current one): their directives are evidence too.
fn objects_named_in_log(log: &Path, failure: &crate::read::symbols::LinkFailure) -> Vec<PathBuf> {
    let base = log.parent().map(PathBuf::from);
    let mut out: Vec<PathBuf> = Vec::new();
    let named = failure
        .symbols
        .iter()
        .flat_map(|s| s.references.iter().filter_map(|r| r.object.as_deref()))
        .chain(
            failure
                .findings
                .iter()
                .flat_map(|f| f.objects.iter().map(String::as_str)),
        );
    for object in named {
        let lower = object.to_ascii_lowercase();
        if object.contains('(') || !(lower.ends_with(".obj") || lower.ends_with(".o")) {
            continue;
        }
        let relative = discover::native_path(object);
        let candidates = [
            base.as_ref().map(|b| b.join(&relative)),
            Some(relative.clone()),
        ];
        if let Some(found) = candidates.into_iter().flatten().find(|p| p.is_file()) {
            if !out.contains(&found) && out.len() < 256 {
                out.push(found);
            }
        }
    }
    out
}

/// Adds the object files (`.obj`, `.o`) of `dir` to `out`; what is not a regular file, and a
/// directory that cannot be read, are warnings.
fn object_files_in(dir: &Path, out: &mut Vec<PathBuf>, warnings: &mut Vec<String>) {
    match std::fs::read_dir(dir) {
        Ok(entries) => {
            for entry in entries.flatten() {
                let path = entry.path();
                let ext = path
                    .extension()
                    .map(|e| e.to_string_lossy().to_ascii_lowercase());
                if !matches!(ext.as_deref(), Some("obj") | Some("o")) {
                    continue;
                }
                match std::fs::metadata(&path) {
                    Ok(metadata) if metadata.is_file() => out.push(path),
                    Ok(metadata) if !metadata.is_dir() => warnings.push(format!(
                        "{}: not a regular file (a FIFO, socket or device): skipped",
                        path.display()
                    )),
                    _ => {}
                }
            }
        }
        Err(e) => warnings.push(format!(
            "{}: cannot read the objects directory: {e}",
            dir.display()
        )),
    }
}

/// The machine of each object in an index of objects (the first machine it holds).
fn object_machines(objects: &Index) -> Vec<(String, crate::index::Machine)> {
    objects
        .libraries()
        .iter()
        .filter(|info| info.format == crate::index::FileFormat::Object)
        .filter_map(|info| {
            let machine = info
                .machines
                .iter()
                .copied()
                .find(|m| *m != crate::index::Machine::Any)?;
            Some((info.path.to_string_lossy().into_owned(), machine))
        })
        .collect()
}

/// Where the build's own evidence is: the log (the objects it names are read beside it), the
/// `--objects` directories and `--build-dir`.
pub(super) struct BuildPlaces<'a> {
    /// The log's path.
    pub log: &'a Path,
    /// The `--objects` directories.
    pub objects: &'a [PathBuf],
    /// The `--build-dir` directory.
    pub build_dir: Option<&'a Path>,
}

/// The CRT evidence of the build's objects (those the log names and `--objects`) and of
/// `--build-dir`'s `build.ninja`; the objects' machines go into `options`.
pub(super) fn build_evidence(
    places: &BuildPlaces<'_>,
    book: &RuleBook,
    failure: &crate::read::symbols::LinkFailure,
    options: &mut DiagnoseOptions,
    warnings: &mut Vec<String>,
) -> Vec<crate::read::evidence::Evidence> {
    let log = places.log;
    let mut evidence = Vec::new();
    let mut objects = objects_named_in_log(log, failure);
    for dir in places.objects {
        object_files_in(dir, &mut objects, warnings);
    }
    if !objects.is_empty() {
        let (object_index, object_warnings) = Index::build(&objects, &IndexOptions::default());
        warnings.extend(object_warnings.iter().map(|w| w.to_string()));
        evidence.extend(crate::read::evidence::from_objects(book, &object_index));
        options.object_machines = object_machines(&object_index);
    }
    if let Some(dir) = places.build_dir {
        let ninja = dir.join("build.ninja");
        match crate::read::evidence::from_build_file(book, &ninja) {
            Ok(found) => evidence.extend(found),
            Err(e) => warnings.push(format!("{}: cannot read: {e}", ninja.display())),
        }
    }
    evidence
}
