//! The commands: [`app`] is the one entry per command that `main` calls; the commands with
//! a stage of their own ([`doctor`], [`explain`], [`triage`], [`whence`], [`zombies`]) and the
//! [`error`] a command ends with.

pub mod app;
pub mod doctor;
pub mod error;
pub mod explain;
pub mod triage;
pub mod whence;
pub mod zombies;
