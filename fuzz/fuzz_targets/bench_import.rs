//! `ciphermeter import`'s reader: `BenchReport::from_json` on any text.
//! The body is in `src/lib.rs` (`TARGETS`), which CI's test build also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    ciphermeter_fuzz::bench_import(bytes);
});
