//! `triage`: the report of a bring-up log's stages (the classification is `crate::triage`).

use std::io::{self, Write};

use super::{Report, Status};
use crate::report::Style;

impl Report for crate::triage::TriageReport {
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
