//! SCHC rule files (`ciphermeter_fuzz::schc_rules`).
//! The body is in `src/lib.rs` (`TARGETS`), which CI's test build also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    ciphermeter_fuzz::schc_rules(bytes);
});
