//! `index`: the index of the link environment, summarised or listed.

use std::io::{self, Write};

use super::{Environment, LibrarySearch, Report, Status};
use crate::commands::error::Error;
use crate::index::{Index, IndexWarning};
use crate::output::format::Format;
use crate::output::report::Style;

/// Everything `index` reads.
#[derive(Debug, Clone, Default)]
pub struct IndexRequest {
    /// Where the libraries are.
    pub search: LibrarySearch,
    /// Every symbol instead of the summary.
    pub list: bool,
}

/// What `index` produced.
pub struct IndexReport {
    /// The index.
    pub index: Index,
    /// Problems with files.
    pub index_warnings: Vec<IndexWarning>,
    /// Problems with directories.
    pub warnings: Vec<String>,
    /// Every symbol instead of the summary.
    pub list: bool,
}

impl IndexReport {
    fn write(&self, out: &mut dyn Write, format: Format) -> io::Result<()> {
        let mut out = io::BufWriter::new(out);
        if self.list {
            crate::index::write_list(&self.index, &mut out, format)?;
        } else {
            crate::index::write_summary(&self.index, &self.index_warnings, &mut out, format)?;
        }
        out.flush()
    }
}

impl Report for IndexReport {
    fn write_text(&self, out: &mut dyn Write, _style: Style) -> io::Result<()> {
        self.write(out, Format::Text)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        self.write(out, Format::Json)
    }
    fn status(&self) -> Status {
        Status::Ok
    }
}

/// Builds the index of the link environment.
pub fn index(request: &IndexRequest, env: &Environment<'_>) -> Result<IndexReport, Error> {
    let mut warnings = Vec::new();
    let searched = request
        .search
        .index_all(env, &mut warnings)
        .ok_or(Error::NoLibraries)?;
    Ok(IndexReport {
        index: searched.index,
        index_warnings: searched.index_warnings,
        warnings,
        list: request.list,
    })
}
