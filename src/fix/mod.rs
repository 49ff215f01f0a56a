//! Writing the fix: the patch of the build definition ([`patch`]) and the failed link run
//! again with it ([`verify`]).

pub mod patch;
pub mod verify;
