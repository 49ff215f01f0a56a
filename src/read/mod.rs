//! Reading the log: the link records and wrappers ([`linklog`]), demangling
//! ([`demangle`]), the unresolved symbols ([`symbols`]), what the log shows of the build: its build
//! system ([`build_system`]), its C runtime ([`evidence`]) and the Python it builds for
//! ([`python_build`]).

pub mod build_system;
pub mod demangle;
pub mod evidence;
pub mod linklog;
pub mod python_build;
pub mod symbols;
