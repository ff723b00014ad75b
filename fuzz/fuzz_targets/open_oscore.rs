//! `open --container oscore`: any bytes as an OSCORE-protected CoAP request,
//! under the gateway's test context.
//! The body is in `src/lib.rs` (`TARGETS`), which CI's test build also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    ciphermeter_fuzz::open_oscore(bytes);
});
