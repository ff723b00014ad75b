//! Key-file loading: `SealKey::parse` on any bytes, then, as `seal` and `open`
//! do with a loaded key, the key schedules (`HostSealer::new`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use seal::{HostSealer, SealKey};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(key) = SealKey::parse(bytes, "fuzz") {
        let _ = HostSealer::new(&key, true);
    }
});
