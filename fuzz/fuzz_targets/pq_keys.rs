//! Post-quantum keys, ciphertexts and signatures as they come from outside
//! (`--public-key`, key files, `decapsulate --input`, `verify --signature`).
//! The input is a key and what follows it: two bytes of key length
//! (big-endian), the key, then the rest. Every ML-KEM, ML-DSA and X-Wing entry
//! loads the key as a public and as a private key and uses what loads:
//! encapsulates, decapsulates the rest, verifies the rest as a signature.
#![no_main]

use ciphermeter_catalogue::catalogue;
use libfuzzer_sys::fuzz_target;

const IDS: [&str; 5] = [
    "ml-kem-512",
    "ml-kem-768",
    "ml-dsa-44",
    "ml-dsa-65",
    "x-wing",
];

fuzz_target!(|bytes: &[u8]| {
    let Some((len, body)) = bytes.split_first_chunk::<2>() else {
        return;
    };
    let len = (u16::from_be_bytes(*len) as usize).min(body.len());
    let (key, rest) = body.split_at(len);
    for id in IDS {
        let scheme = catalogue().get(id).unwrap().asymmetric(None).unwrap();
        if let Ok(public) = scheme.load_public(key) {
            let _ = public.encapsulate();
            let _ = public.verify_with_context(b"reading", b"", rest);
        }
        if let Ok(private) = scheme.load_private(key) {
            let _ = private.decapsulate(rest);
        }
    }
});
