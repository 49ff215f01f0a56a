//! Fuzz target `pe_exports`: see `lnkfix_fuzz::pe_exports` for what runs and what must hold.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lnkfix_fuzz::pe_exports(data));
