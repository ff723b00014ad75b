//! The C library's OSCORE context file reader (`cm_oscore_context_from_file`).
//! The body is in `src/lib.rs` (`TARGETS`), which CI's test build also runs.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|bytes: &[u8]| {
    ciphermeter_fuzz::oscore_context_c(bytes);
});
