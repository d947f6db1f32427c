#![no_main]
//! Fuzz target `actions`: see `boardgames_fuzz::actions`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| boardgames_fuzz::actions(data));
