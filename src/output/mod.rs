//! What lnkfix writes: the output formats ([`format`](mod@format)), the diagnosis as text and JSON
//! ([`report`]), GitHub and SARIF annotations ([`annotations`]), and text made safe for a
//! terminal ([`terminal`]).

pub mod annotations;
pub mod format;
pub mod report;
pub mod terminal;
