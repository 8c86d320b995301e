//! Fuzzes the compact decoder of the representation engine.
#![no_main]

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| common::check(core_api_support::Representation::Compact, data));
