//! The gateway's SCHC fragment receiver over a serial radio (`ciphermeter_fuzz::schc_receiver`).
//! The body is in `src/lib.rs` (`TARGETS`), which CI's test build also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    ciphermeter_fuzz::schc_receiver(bytes);
});
