//! `doctor`: the entry, and the report of the environment recipe check (the check is
//! `crate::commands::doctor`).

use std::io::{self, Write};
use std::path::Path;

use super::diagnose::{log_machine, log_name, open_log};
use super::{Environment, Report, Status};
use crate::commands::doctor::{DoctorMachine, DoctorOptions, DoctorReport};
use crate::commands::error::Error;
use crate::output::report::Style;

/// `lnkfix doctor`: the environment's recipe checked, the variables read through `env`; with
/// `for_log` (`--for-log`), the library directories of the machine that failed link's log shows,
/// picked as `diagnose` picks it. Fails when that log cannot be read.
pub fn doctor(
    env: &Environment<'_>,
    options: &DoctorOptions,
    for_log: Option<&Path>,
) -> Result<DoctorReport, Error> {
    let mut options = options.clone();
    if let Some(log) = for_log {
        let failure =
            crate::read::symbols::collect(open_log(log)?, Default::default()).map_err(|e| {
                Error::Log {
                    path: log_name(log),
                    reason: format!("cannot read: {e}"),
                }
            })?;
        options.log_machine = log_machine(&failure).map(|(machine, why)| DoctorMachine {
            machine,
            why: format!("the log {}: {why}", log_name(log)),
        });
    }
    Ok(crate::commands::doctor::doctor(env.var, &options))
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
