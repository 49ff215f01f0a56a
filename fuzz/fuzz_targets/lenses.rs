//! Fuzz target `lenses`: see `lnkfix_fuzz::lenses` for what runs and what must hold.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lnkfix_fuzz::lenses(data));
