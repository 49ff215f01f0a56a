//! `explain`: one name through the same pipeline as `diagnose`, against the libraries on disk
//! when any are found.

use std::io::{self, Write};
use std::path::PathBuf;

use super::{rule_book, Environment, LibrarySearch, Report, Status};
use crate::commands::error::Error;
use crate::commands::explain::Explanation;
use crate::output::report::Style;
use crate::resolve;
use crate::rules::Flavour;

/// Everything `explain` reads.
#[derive(Debug, Clone, Default)]
pub struct ExplainRequest {
    /// The name, linker-level or demangled.
    pub symbol: String,
    /// Where the libraries are.
    pub search: LibrarySearch,
    /// Rank for this flavour.
    pub crt: Option<Flavour>,
    /// Extra rule files.
    pub rules: Vec<PathBuf>,
}

/// What `explain` produced, with the warnings of the library scan.
pub struct ExplainReport {
    /// The explanation.
    pub explanation: Explanation,
    /// Problems with directories and files.
    pub warnings: Vec<String>,
}

impl Report for ExplainReport {
    fn write_text(&self, out: &mut dyn Write, _style: Style) -> io::Result<()> {
        crate::commands::explain::write_text(&self.explanation, out)
    }
    fn write_json(&self, out: &mut dyn Write) -> io::Result<()> {
        crate::commands::explain::write_json(&self.explanation, out)
    }
    fn status(&self) -> Status {
        if self.explanation.found() {
            Status::Ok
        } else {
            Status::Found
        }
    }
}

/// Explains one name: from the libraries on disk when any are found, else the embedded tables.
pub fn explain(request: &ExplainRequest, env: &Environment<'_>) -> Result<ExplainReport, Error> {
    let book = rule_book(&request.rules)?;
    let mut warnings = Vec::new();
    let searched = request.search.index(env, &mut warnings);
    if let Some(s) = &searched {
        warnings.extend(s.index_warnings.iter().map(|w| w.to_string()));
    }
    let context = searched.as_ref().map(|s| resolve::SearchContext {
        index: &s.index,
        dirs: &s.dirs,
        evidence: Vec::new(),
    });
    let explanation =
        crate::commands::explain::explain(&request.symbol, &book, context.as_ref(), request.crt)?;
    if let Some(s) = searched {
        std::mem::forget(s.index);
    }
    Ok(ExplainReport {
        explanation,
        warnings,
    })
}
