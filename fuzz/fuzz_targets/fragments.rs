//! LoRaWAN fragments put back together per device (`ciphermeter_fuzz::fragments`).
//! The body is in `src/lib.rs` (`TARGETS`), which CI's test build also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    ciphermeter_fuzz::fragments(bytes);
});
