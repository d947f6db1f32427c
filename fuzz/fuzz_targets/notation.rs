#![no_main]
//! Fuzz target `notation`: see `boardgames_fuzz::notation`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| boardgames_fuzz::notation(data));
