//! `patch FILE --from LOG` for a build definition (`CMakeLists.txt`, `.vcxproj`, ...), and
//! `patch --from LOG` with no file: the place found from the log and `--build-dir`. The
//! diagnosis (and `--verify`) is `patch`'s; the edit is the build system's module's
//! (`crate::fix::patch::build_file`).

use std::path::{Path, PathBuf};

use super::diagnose::DiagnoseRequest;
use super::patch::diagnosis_for;
use super::{Environment, Status};
use crate::commands::error::Error;
use crate::fix::patch::build_file::{
    self, BuildChange, BuildEditError, EditOutcome, LocateInput, Place,
};
use crate::fix::patch::{self, PatchError};
use crate::fix::verify::Verification;
use crate::read::build_system::BuildSystem;

/// Everything `patch` reads for a build definition.
#[derive(Debug, Clone, Default)]
pub struct BuildPatchRequest {
    /// The definition file named, if any.
    pub file: Option<PathBuf>,
    /// `--target`: the failing target, overriding what the log shows.
    pub target: Option<String>,
    /// `--configuration`: `Release|x64`, overriding what the log shows.
    pub configuration: Option<String>,
    /// A log or a saved `diagnose --format json`.
    pub from: String,
    /// How to diagnose a log (`--build-dir` and `--verify` included).
    pub diagnose: DiagnoseRequest,
}

/// What `patch` planned for a build definition.
pub struct BuildPatchReport {
    /// Where: the build system, file, target and configuration, and how they were found.
    pub place: Place,
    /// The file's bytes now.
    pub original: Vec<u8>,
    /// What the diagnosis asks for.
    pub change: BuildChange,
    /// The edit, or that the file has it all.
    pub outcome: EditOutcome,
    /// The unified diff (empty when nothing changes).
    pub diff: String,
    /// The verification, with `--verify`.
    pub verification: Option<Verification>,
}

impl BuildPatchReport {
    /// Whether the edit may be written: always without `--verify`; with it, only when the fix
    /// verified, unless `force`.
    pub fn may_write(&self, force: bool) -> bool {
        force || self.verification.as_ref().is_none_or(|v| v.ok)
    }

    /// The exit status: [`Status::NotVerified`] when `--verify` did not verify.
    pub fn status(&self) -> Status {
        if self.verification.as_ref().is_some_and(|v| !v.ok) {
            Status::NotVerified
        } else {
            Status::Ok
        }
    }
}

/// Plans the edit of a build definition from a log or a saved diagnosis.
pub fn plan_build_patch(
    request: &BuildPatchRequest,
    env: &Environment<'_>,
) -> Result<BuildPatchReport, Error> {
    let (diagnosis, _, verification) = diagnosis_for(&request.from, &request.diagnose, env)?;
    let change = patch::build_change(&diagnosis);
    if change.is_empty() {
        return Err(PatchError::NothingToLink {
            source_name: request.from.clone(),
        }
        .into());
    }
    let log_path = [request.from.as_str(), diagnosis.log.as_str()]
        .into_iter()
        .map(Path::new)
        .find(|p| p.is_file() && patch::read_saved_diagnosis(p).ok().flatten().is_none());
    let log = log_path
        .and_then(|p| crate::files::open::read_regular(p).ok())
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        .unwrap_or_default();
    let output = build_file::failed_output(&log);
    let recognised = crate::read::build_system::recognise(log.as_bytes());
    let input = LocateInput {
        log: &log,
        log_path,
        recognised: recognised.as_ref(),
        output: output.as_deref(),
        build_dir: request.diagnose.build_dir.as_deref(),
    };
    let place = place(request, &input, output.as_deref())?;
    let original = match crate::files::open::read_regular(&place.file) {
        Ok(bytes) => bytes,
        // A crate without a build script: cargo's edit creates `build.rs`.
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && creatable(&place) => Vec::new(),
        Err(source) => {
            return Err(Error::Read {
                path: place.file.clone(),
                source,
            })
        }
    };
    let outcome = build_file::edit_place(&place, &original, &change)?;
    let diff = match &outcome {
        EditOutcome::Edited(edit) => {
            patch::whole_file_diff(&diff_name(&edit.path), &edit.before, &edit.after)
        }
        EditOutcome::AlreadyDone => String::new(),
    };
    Ok(BuildPatchReport {
        place,
        original,
        change,
        outcome,
        diff,
        verification,
    })
}

/// Whether the place's file may be created when it does not exist: a crate's `build.rs` beside
/// its `Cargo.toml`.
fn creatable(place: &Place) -> bool {
    place.system == BuildSystem::Cargo
        && place.file.file_name().is_some_and(|n| n == "build.rs")
        && place.file.with_file_name("Cargo.toml").is_file()
}

/// The place: the named file (its target and configuration from `--target`/`--configuration`,
/// else from what the log shows), or the one the recognised build system's `locate` finds.
fn place(
    request: &BuildPatchRequest,
    input: &LocateInput<'_>,
    output: Option<&str>,
) -> Result<Place, Error> {
    let located = build_file::locate_place(input);
    let Some(file) = &request.file else {
        let mut place = located?.ok_or_else(|| Error::NoBuildDefinition {
            from: request.from.clone(),
            with_build_dir: request.diagnose.build_dir.is_some(),
        })?;
        override_with(&mut place, request)?;
        return Ok(place);
    };
    let system = build_file::system_of_file(file).ok_or_else(|| BuildEditError::Unsupported {
        path: file.clone(),
        reason: "not a build definition lnkfix edits (CMakeLists.txt, *.vcxproj, build.rs, Cargo.toml, setup.py, binding.gyp, meson.build)".into(),
    })?;
    let located = located.ok().flatten().filter(|p| p.system == system);
    let mut evidence = format!("named on the command line ({})", file.display());
    let name_of = |p: &Path| {
        p.file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
    };
    if let Some(other) = located
        .as_ref()
        .filter(|p| name_of(&p.file) != name_of(file))
    {
        // Not refused (the user named the file), but said: the log points elsewhere.
        evidence.push_str(&format!(
            "; note: the log's failed link is in {}",
            other.file.display()
        ));
    }
    let mut place = Place {
        system,
        file: file.clone(),
        target: located.as_ref().and_then(|p| p.target.clone()),
        configuration: located.as_ref().and_then(|p| p.configuration.clone()),
        evidence,
    };
    if system == BuildSystem::Msbuild {
        // An MSBuild project is its own target.
        place.target = file.file_stem().map(|s| s.to_string_lossy().into_owned());
    }
    if place.target.is_none() && request.target.is_none() && system == BuildSystem::Cmake {
        if let Some(output) = output {
            place.target = Some(cmake_target_of_output(file, output)?);
        }
    }
    override_with(&mut place, request)?;
    Ok(place)
}

/// The CMake target that wrote `output` (`tools/app.exe` → `app`, CMake's default output name),
/// defined in `file` or a directory it adds; refused, with the file's targets, when none is:
/// guessing another target would put the fix where the failing link never reads it.
fn cmake_target_of_output(file: &Path, output: &str) -> Result<String, Error> {
    let name = output.rsplit(['/', '\\']).next().unwrap_or(output);
    let stem = name.rsplit_once('.').map_or(name, |(s, _)| s).to_string();
    if build_file::cmake::definition_file(file, &stem)?.is_some() {
        return Ok(stem);
    }
    let source = crate::files::open::read_regular(file).map_err(|source| Error::Read {
        path: file.to_path_buf(),
        source,
    })?;
    Err(BuildEditError::TargetNotFound {
        path: file.to_path_buf(),
        target: format!("{stem} (from the failed output {output}; name the target with --target)"),
        candidates: build_file::cmake::linked_targets(&source),
    }
    .into())
}

/// `--target` and `--configuration` win; a CMake target defined below the named file is edited
/// in the file that defines it.
fn override_with(place: &mut Place, request: &BuildPatchRequest) -> Result<(), Error> {
    if let Some(target) = &request.target {
        place.target = Some(target.clone());
    }
    if let Some(configuration) = &request.configuration {
        place.configuration = Some(configuration.clone());
    }
    if place.system == BuildSystem::Cmake {
        if let Some(target) = &place.target {
            if let Some(file) = build_file::cmake::definition_file(&place.file, target)? {
                place.file = file;
            }
        }
    }
    Ok(())
}

/// The path the diff's headers name: relative to the current directory when the file is below
/// it (so `git apply` and `patch -p1` take it from there), else as found.
fn diff_name(path: &Path) -> String {
    let relative = std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(&cwd).ok().map(Path::to_path_buf));
    relative
        .unwrap_or_else(|| path.to_path_buf())
        .to_string_lossy()
        .into_owned()
}
