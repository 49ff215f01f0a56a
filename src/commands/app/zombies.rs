//! `zombies`: the processes that hold a build's files, and what was done to them.

use std::io::{self, Write};

use super::{Report, Status};
use crate::commands::error::Error;
use crate::output::report::Style;

impl Report for crate::commands::zombies::ZombiesReport {
    fn write_text(&self, out: &mut dyn Write, style: Style) -> io::Result<()> {
        crate::commands::zombies::write_text(self, out, style)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::commands::zombies::write_json(self, out)
    }
    fn status(&self) -> Status {
        if self.is_clear() {
            Status::Ok
        } else {
            Status::Found
        }
    }
}

/// Lists the processes that hold the paths' files and the suspects by name, and ends them and
/// deletes their files as asked (`lnkfix zombies`).
pub fn zombies(
    request: &crate::commands::zombies::ZombiesRequest,
) -> Result<crate::commands::zombies::ZombiesReport, Error> {
    Ok(crate::commands::zombies::zombies(request)?)
}
