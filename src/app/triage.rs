//! `triage`: the entry, and the report of a bring-up log's stages (the classification is
//! `crate::triage`).

use std::io::{self, Write};
use std::path::Path;

use super::{Report, Status};
use crate::report::Style;
use crate::triage::{TriageError, TriageOptions, TriageReport};

/// `lnkfix triage LOG`: the stages of the bring-up log at `log` (`-`: stdin).
pub fn triage(log: &Path, options: &TriageOptions) -> Result<TriageReport, TriageError> {
    crate::triage::triage_path(log, options)
}

impl Report for TriageReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::triage::render_text(self, out, style.color)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::triage::write_json(self, out)
    }
    fn status(&self) -> Status {
        match crate::triage::exit_code(self) {
            0 => Status::Ok,
            1 => Status::Found,
            3 => Status::Unclassified,
            _ => Status::Usage,
        }
    }

    fn annotations(&self) -> Option<crate::annotations::Annotations> {
        Some(crate::annotations::from_triage(self))
    }
}
