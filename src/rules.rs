//! The rule book as data.
pub mod names;
