//! Fuzz target `pdb`: see `lnkfix_fuzz::pdb` for what runs and what must hold.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| lnkfix_fuzz::pdb(data));
