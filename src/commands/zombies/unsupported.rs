//! Systems other than Linux and Windows: lnkfix cannot read their process table, and says so.

use super::{Holdings, Process, Snapshot, Target};

/// The names `ending` uses in reports.
pub(super) const ENDING: (&str, &str) = ("SIGTERM", "SIGKILL");

const UNSUPPORTED: &str = "lnkfix reads the process table only on Linux and Windows";

pub(super) fn snapshot() -> Result<Snapshot, String> {
    Err(UNSUPPORTED.into())
}

pub(super) fn held_files(_: &[Target], _: &[Process]) -> Result<Holdings, String> {
    Err(UNSUPPORTED.into())
}

pub(super) fn request_end(_: &Process) -> Result<(), String> {
    Err(UNSUPPORTED.into())
}

pub(super) fn force_end(_: &Process) -> Result<(), String> {
    Err(UNSUPPORTED.into())
}

pub(super) fn has_ended(_: &Process) -> bool {
    false
}
