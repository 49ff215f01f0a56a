//! Fuzz target `log_reader`: see `lnkfix_fuzz::log_reader` for what runs and what must hold.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lnkfix_fuzz::log_reader(data));
