//! The files lnkfix reads and writes: opened so they cannot block ([`open`]), told apart by
//! identity rather than path ([`identity`]), written atomically ([`atomic`]).

pub mod atomic;
pub mod identity;
pub mod open;
