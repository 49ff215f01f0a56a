//! Fuzz target `archive`: see `lnkfix_fuzz::archive` for what runs and what must hold.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lnkfix_fuzz::archive(data));
