//! `open --container oscore`: any bytes as an OSCORE-protected CoAP request,
//! under the gateway's test context.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|message: &[u8]| {
    ciphermeter_fuzz::open_oscore(message);
});
