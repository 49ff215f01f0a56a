//! Fuzz target `whence`: see `lnkfix_fuzz::whence` for what runs and what must hold.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lnkfix_fuzz::whence(data));
