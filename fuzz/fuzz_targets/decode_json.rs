//! Fuzzes the json decoder of the representation engine.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| core_server_fuzz::check(core_api_support::Representation::Json, data));
