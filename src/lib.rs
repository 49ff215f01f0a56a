//! lnkfix: turns a failed Windows link into a fix.
//!
//! The pipeline, one module per stage, data flowing one way:
//!
//! ```text
//! log file ─▶ linklog ─▶ symbols ─┐
//! lib dirs ─▶ discover ─▶ index ──┼─▶ resolve ─▶ report (text | json)
//! objects/build.ninja ─▶ evidence ┘             ├▶ patch (extension.py)
//!                                               └▶ verify (the failed link, run again)
//! rule book (symbol-db/) ─────────────▶ rules ─▶ resolve, triage
//! process table, open files ─▶ zombies ─▶ triage, doctor (a stale or missing log)
//! error message + Python sources ─▶ whence ─▶ triage (runtime raisers)
//! ```
#![warn(missing_docs)]

pub mod annotations;
pub mod app;
pub mod atomic;
pub mod build_system;
pub mod demangle;
pub mod discover;
pub mod doctor;
pub mod error;
pub mod evidence;
pub mod explain;
pub mod format;
pub mod identity;
pub mod index;
pub mod linklog;
pub mod machine;
pub mod open;
pub mod patch;
pub mod problems;
pub mod providers;
pub mod report;
pub mod resolve;
pub mod rules;
pub mod symbols;
pub mod terminal;
pub mod toolsets;
pub mod triage;
pub mod verify;
pub mod whence;
pub mod zombies;
