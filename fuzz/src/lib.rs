//! What the fuzz targets share: the fixed test keys in `fuzz/keys/` (made by
//! `fuzz/make-seeds` with `ciphermeter keygen`), read through the same parser
//! as any key file. The seed messages in `corpus-seed/` are sealed with them,
//! so mutations start from messages that pass the key and scheme checks.

use std::cell::RefCell;

use seal::{Container, HostSealer, SealKey};

/// Name and contents of every key file, in a fixed order.
pub const KEY_FILES: [(&str, &[u8]); 4] = [
    ("aes-gcm-a", include_bytes!("../keys/aes-gcm-a.key")),
    ("aes-gcm-b", include_bytes!("../keys/aes-gcm-b.key")),
    ("etm", include_bytes!("../keys/etm.key")),
    ("hmac", include_bytes!("../keys/hmac.key")),
];

pub fn key(name: &str) -> SealKey {
    let (_, bytes) = KEY_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a key of fuzz/keys");
    SealKey::parse(bytes, name).expect("fuzz/keys holds valid key files")
}

thread_local! {
    // Key schedules run once per process, not once per input.
    static SEALERS: RefCell<Vec<HostSealer>> = RefCell::new(
        KEY_FILES
            .iter()
            .map(|(name, _)| HostSealer::new(&key(name), false).expect("a secure scheme"))
            .collect(),
    );
}

/// Opens `message` in `container` under every test key; errors are the expected outcome.
pub fn open_with_every_key(container: Container, message: &[u8]) {
    SEALERS.with_borrow_mut(|sealers| {
        for sealer in sealers {
            let _ = sealer.open(container, message);
        }
    });
}

/// The gateway's OSCORE context (`fuzz/keys/oscore-gw.key`), keyed once per process.
pub const OSCORE_GW: &[u8] = include_bytes!("../keys/oscore-gw.key");

thread_local! {
    static OSCORE: seal::host::oscore::OscoreKey =
        seal::host::oscore::OscoreKey::parse(OSCORE_GW, "oscore-gw")
            .expect("fuzz/keys holds a valid OSCORE context");
}

/// Verifies `message` as an OSCORE request under the gateway's context, with a
/// fresh replay window (so a seed's sequence number is never a replay), and
/// reads the CoAP message and its options on their own.
pub fn open_oscore(message: &[u8]) {
    if let Ok(parsed) = seal::oscore::coap::parse(message) {
        for option in parsed.options() {
            if option.is_err() {
                break;
            }
        }
    }
    OSCORE.with(|key| {
        let ctx = key.context();
        let mut window = seal::oscore::ReplayWindow::new();
        let mut buf = vec![0u8; message.len()];
        if let Ok((inner, _, _)) =
            seal::oscore::unprotect_request(ctx, &mut window, message, &mut buf)
        {
            for option in inner.options() {
                if option.is_err() {
                    break;
                }
            }
        }
    });
}
