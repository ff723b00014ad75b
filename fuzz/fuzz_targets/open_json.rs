//! `open` on the json container: any bytes, under every test key (aead, etm, hmac).
#![no_main]

use libfuzzer_sys::fuzz_target;
use seal::Container;

fuzz_target!(|message: &[u8]| {
    ciphermeter_fuzz::open_with_every_key(Container::Json, message);
});
