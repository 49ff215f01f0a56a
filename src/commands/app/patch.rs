//! `patch`: the change to tvm-ffi's `extension.py`, planned from a log (diagnosed as `diagnose`
//! does) or a saved diagnosis, verified first with `--verify`.

use std::path::{Path, PathBuf};

use super::diagnose::{run_verification, DiagnoseRequest};
use super::{verified_diagnosis, Environment, Status};
use crate::commands::error::Error;
use crate::fix::patch;
use crate::fix::verify::{Verification, VerifyOptions};
use crate::resolve::Diagnosis;

/// Everything `patch` reads.
#[derive(Debug, Clone, Default)]
pub struct PatchRequest {
    /// tvm-ffi's `extension.py`.
    pub extension_py: PathBuf,
    /// A log (diagnosed with `diagnose`'s options) or a saved `diagnose --format json`.
    pub from: String,
    /// How to diagnose a log.
    pub diagnose: DiagnoseRequest,
    /// Bake the HIP directory found now into the file.
    pub literal_paths: bool,
}

/// What `patch` planned.
pub struct PatchReport {
    /// The target, as given.
    pub target: PathBuf,
    /// Its bytes now.
    pub original: Vec<u8>,
    /// The sha256 the saved diagnosis recorded, if any.
    pub recorded_sha256: Option<String>,
    /// The change, or that none is needed.
    pub outcome: patch::PatchOutcome,
    /// The verification, with `--verify`: the patch carries the flags that verified.
    pub verification: Option<Verification>,
}

impl PatchReport {
    /// The sha256 the file must still have for `--apply`: the one the diagnosis recorded, else
    /// the bytes the plan was made from.
    pub fn expected_sha256(&self) -> String {
        self.recorded_sha256
            .clone()
            .unwrap_or_else(|| patch::sha256_hex(&self.original))
    }

    /// Whether the patch may be written or applied: always without `--verify`; with it, only
    /// when the fix verified, unless `force`.
    pub fn may_write(&self, force: bool) -> bool {
        force || self.verification.as_ref().is_none_or(|v| v.ok)
    }

    /// The exit status once the patch was written (or needed no change): [`Status::NotVerified`]
    /// when `--verify` was asked for and the fix did not verify (a forced patch included).
    pub fn status(&self) -> Status {
        if self.verification.as_ref().is_some_and(|v| !v.ok) {
            Status::NotVerified
        } else {
            Status::Ok
        }
    }
}

/// Plans the patch of `extension.py` from a log or a saved diagnosis.
pub fn plan_patch(request: &PatchRequest, env: &Environment<'_>) -> Result<PatchReport, Error> {
    let original =
        crate::files::open::read_regular(&request.extension_py).map_err(|source| Error::Read {
            path: request.extension_py.clone(),
            source,
        })?;
    let (diagnosis, recorded_sha256, verification) =
        diagnosis_for(&request.from, &request.diagnose, env)?;
    let plan = patch::plan_from_diagnosis(&diagnosis, &request.from, request.literal_paths);
    let target = request.extension_py.to_string_lossy().to_string();
    let outcome = patch::plan_patch(&target, &original, &plan)?;
    Ok(PatchReport {
        target: request.extension_py.clone(),
        original,
        recorded_sha256,
        outcome,
        verification,
    })
}

/// The diagnosis `patch` writes: a saved one (verified again with `--verify`), or the log's,
/// diagnosed now with `diagnose`'s options; with the flags that verified when `--verify` did;
/// the sha256 the saved diagnosis recorded. Refused when the CRT flavour would have to be guessed.
pub(super) fn diagnosis_for(
    from: &str,
    diagnose_request: &DiagnoseRequest,
    env: &Environment<'_>,
) -> Result<(Diagnosis, Option<String>, Option<Verification>), Error> {
    let saved =
        patch::read_saved_diagnosis(Path::new(from)).map_err(|source| Error::SavedDiagnosis {
            path: PathBuf::from(from),
            source,
        })?;
    let (diagnosis, recorded_sha256, verification) = match saved {
        Some(saved) => {
            let recorded = saved.patch.and_then(|p| p.sha256);
            let verification = diagnose_request.verify.as_ref().map(|options| {
                verify_saved_diagnosis(&saved.diagnosis, from, diagnose_request, options, env)
            });
            (saved.diagnosis, recorded, verification)
        }
        None => {
            let mut diagnose = diagnose_request.clone();
            diagnose.log = PathBuf::from(from);
            diagnose.patch = None;
            let report = super::diagnose(&diagnose, env)?;
            (report.diagnosis, None, report.verify)
        }
    };
    let diagnosis = match verification.as_ref().filter(|v| v.ok) {
        Some(verified) => verified_diagnosis(&diagnosis, verified),
        None => diagnosis,
    };
    if diagnosis.crt.flavour.is_none() && diagnosis.link_flags_by_flavour.is_some() {
        return Err(Error::FlavourUnknown {
            from: from.to_string(),
        });
    }
    Ok((diagnosis, recorded_sha256, verification))
}

/// Verifies a saved diagnosis: its `link_flags`, against the command its log shows (when the log
/// is still there), `--link-command` or `--build-dir`.
fn verify_saved_diagnosis(
    diagnosis: &Diagnosis,
    from: &str,
    request: &DiagnoseRequest,
    options: &VerifyOptions,
    env: &Environment<'_>,
) -> Verification {
    let log = Some(diagnosis.log.as_str()).filter(|l| *l != "-" && Path::new(l).is_file());
    let flags = diagnosis.link_flags.clone();
    // Lines are 1-based: 0 is a symbol saved without one.
    let symbol_lines = diagnosis
        .symbols
        .iter()
        .map(|s| s.symbol.first_line)
        .filter(|&line| line > 0);
    let flavour = diagnosis.crt.flavour;
    let subject = crate::fix::verify::Subject {
        log: log.map(Path::new),
        log_name: log.unwrap_or(from),
        first_error_line: symbol_lines.min(),
        flags,
        max_line_bytes: request.read_limits.max_line_bytes,
    };
    run_verification(request, options, &subject, flavour, env)
}
