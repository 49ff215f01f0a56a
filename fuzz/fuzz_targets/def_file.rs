//! Fuzz target `def_file`: see `lnkfix_fuzz::def_file` for what runs and what must hold.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lnkfix_fuzz::def_file(data));
