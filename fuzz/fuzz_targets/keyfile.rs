//! Key-file loading: `SealKey::parse` on any bytes, then, as `seal` and `open`
//! do with a loaded key, the key schedules (`HostSealer::new`); and the same
//! bytes as an OSCORE context file (`OscoreKey::parse` derives its context).
#![no_main]

use libfuzzer_sys::fuzz_target;
use seal::host::oscore::OscoreKey;
use seal::{HostSealer, SealKey};

fuzz_target!(|bytes: &[u8]| {
    if let Ok(key) = SealKey::parse(bytes, "fuzz") {
        let _ = HostSealer::new(&key, true);
    }
    let _ = OscoreKey::parse(bytes, "fuzz");
});
