//! Post-quantum keys, ciphertexts and signatures as they come from outside
//! (`ciphermeter_fuzz::pq_keys` says how the input is read).
//! The body is in `src/lib.rs` (`TARGETS`), which CI's test build also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    ciphermeter_fuzz::pq_keys(bytes);
});
