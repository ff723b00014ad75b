//! The gateway's receiving path: the deframer and a keyring (`ciphermeter_fuzz::gateway`).
//! The body is in `src/lib.rs` (`TARGETS`), which CI's test build also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    ciphermeter_fuzz::gateway(bytes);
});
