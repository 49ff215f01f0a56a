//! Fuzz target `demangle`: see `lnkfix_fuzz::demangle` for what runs and what must hold.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lnkfix_fuzz::demangle(data));
