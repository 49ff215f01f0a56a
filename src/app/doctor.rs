//! `doctor`: the report of the environment recipe check (the check is `crate::doctor`).

use std::io::{self, Write};

use super::{Report, Status};
use crate::report::Style;

impl Report for crate::doctor::DoctorReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::doctor::render_text(self, out, style.color)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::doctor::write_json(self, out)
    }
    fn status(&self) -> Status {
        if crate::doctor::exit_code(self) == 0 {
            Status::Ok
        } else {
            Status::Found
        }
    }
}
