//! Fuzz target `patch`: see `lnkfix_fuzz::patch` for what runs and what must hold.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lnkfix_fuzz::patch(data));
