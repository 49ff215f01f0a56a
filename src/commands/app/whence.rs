//! `whence`: the Python code that formats a message, found in the sources and ranked.

use std::io::{self, Write};

use super::{Environment, Report, Status};
use crate::commands::error::Error;
use crate::output::report::Style;

/// Everything `whence` reads.
#[derive(Debug, Clone, Default)]
pub struct WhenceRequest {
    /// The message, as the log shows it.
    pub message: String,
    /// Where the Python sources are.
    pub sources: crate::commands::whence::SourceSpec,
    /// Most candidates shown.
    pub limit: usize,
}

impl Report for crate::commands::whence::WhenceReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::commands::whence::write_text(self, out, style)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::commands::whence::write_json(self, out)
    }
    fn status(&self) -> Status {
        if self.result.candidates.is_empty() {
            Status::Found
        } else {
            Status::Ok
        }
    }
}

/// Finds the Python code that formats a message: the sources as the request says (or the
/// Python on `PATH`, or `VIRTUAL_ENV`), walked and ranked.
pub fn whence(
    request: &WhenceRequest,
    env: &Environment<'_>,
) -> Result<crate::commands::whence::WhenceReport, Error> {
    let sources = crate::commands::whence::resolve(&request.sources, env.var)?;
    Ok(crate::commands::whence::whence(
        &request.message,
        sources,
        request.limit,
    ))
}
