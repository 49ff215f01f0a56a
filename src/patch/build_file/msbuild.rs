//! msbuild: being written.

use std::path::Path;

use super::{BuildChange, BuildEditError, EditOutcome, LocateInput, Place};

/// Edits the definition (being written).
pub fn edit(
    path: &Path,
    _source: &[u8],
    _target: Option<&str>,
    _change: &BuildChange,
) -> Result<EditOutcome, BuildEditError> {
    Err(BuildEditError::Unsupported {
        path: path.to_path_buf(),
        reason: "not yet".into(),
    })
}

/// Finds the definition (being written).
pub fn locate(_input: &LocateInput<'_>) -> Result<Option<Place>, BuildEditError> {
    Ok(None)
}
