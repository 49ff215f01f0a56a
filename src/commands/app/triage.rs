//! `triage`: the entry, and the report of a bring-up log's stages (the classification is
//! `crate::commands::triage`).

use std::io::{self, Write};
use std::path::Path;

use super::{Report, Status};
use crate::commands::triage::{TriageError, TriageOptions, TriageReport};
use crate::output::report::Style;

/// `lnkfix triage LOG`: the stages of the bring-up log at `log` (`-`: stdin).
pub fn triage(log: &Path, options: &TriageOptions) -> Result<TriageReport, TriageError> {
    crate::commands::triage::triage_path(log, options)
}

impl Report for TriageReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::commands::triage::render_text(self, out, style.color)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::commands::triage::write_json(self, out)
    }
    fn status(&self) -> Status {
        match crate::commands::triage::exit_code(self) {
            0 => Status::Ok,
            1 => Status::Found,
            3 => Status::Unclassified,
            _ => Status::Usage,
        }
    }

    fn annotations(&self) -> Option<crate::output::annotations::Annotations> {
        Some(crate::output::annotations::from_triage(self))
    }
}
