//! lnkfix: turns a failed Windows link into a fix.
//!
//! The pipeline, one directory per stage, data flowing one way:
//!
//! ```text
//! read     log file ─▶ linklog ─▶ symbols; build_system, evidence, python_build ──┐
//! index    lib dirs, the Python ─▶ discover, interpreter ─▶ the library index ────┤
//! rules    rule book (symbol-db/) ─▶ rules, name tables ───────────────────────────┤
//!                                                                                  ▼
//!          resolve ─▶ problems ─┬─▶ output (text, json, github, sarif)
//!                               └─▶ fix (patch; verify: the failed link, run again)
//! commands   app (one entry per command) drives them; doctor, explain, triage, whence,
//!            zombies
//! ```
//!
//! Below them: [`machine`] (the one machine vocabulary) and [`files`] (opening, identity and
//! atomic writes).
#![warn(missing_docs)]

pub mod commands;
pub mod files;
pub mod fix;
pub mod index;
pub mod machine;
pub mod output;
pub mod problems;
pub mod read;
pub mod resolve;
pub mod rules;
