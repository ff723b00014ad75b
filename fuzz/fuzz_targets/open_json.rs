//! `open` on the json container: any bytes, under every test key (aead, etm, hmac).
//! The body is in `src/lib.rs` (`TARGETS`), which CI's test build also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    ciphermeter_fuzz::open_json(bytes);
});
