#![no_main]
//! Fuzz target `records`: see `boardgames_fuzz::records`.
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| boardgames_fuzz::records(data));
