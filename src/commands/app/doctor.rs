//! `doctor`: the entry, and the report of the environment recipe check (the check is
//! `crate::commands::doctor`).

use std::io::{self, Write};

use super::{Environment, Report, Status};
use crate::commands::doctor::{DoctorOptions, DoctorReport};
use crate::output::report::Style;

/// `lnkfix doctor`: the environment's recipe checked, the variables read through `env`.
pub fn doctor(env: &Environment<'_>, options: &DoctorOptions) -> DoctorReport {
    crate::commands::doctor::doctor(env.var, options)
}

impl Report for DoctorReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::commands::doctor::render_text(self, out, style.color)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::commands::doctor::write_json(self, out)
    }
    fn status(&self) -> Status {
        if crate::commands::doctor::exit_code(self) == 0 {
            Status::Ok
        } else {
            Status::Found
        }
    }
}
