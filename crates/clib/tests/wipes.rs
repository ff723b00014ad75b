//! Every secret-holding type in crates/clib wipes itself when dropped
//! (issue 66, item 5): each is checked with a `ZeroizeOnDrop` bound, and a
//! scan of `src/` fails on a secret-looking type in neither list below
//! (crates/primitives tests/support/secret_scan.rs).

use ciphermeter_clib::{mbedtls, monocypher};
use zeroize::ZeroizeOnDrop;

#[path = "../../primitives/tests/support/secret_scan.rs"]
mod secret_scan;

fn wipes<T: ZeroizeOnDrop>() {}

#[test]
fn secret_holding_types_wipe_on_drop() {
    // Mbed TLS: `*_free` (which wipes), then the context's own wipe.
    wipes::<mbedtls::Aes128>();
    wipes::<mbedtls::Aes256>();
    wipes::<mbedtls::Aes128Gcm>();
    wipes::<mbedtls::Aes256Gcm>();
    wipes::<mbedtls::Aes128Ccm>();
    wipes::<mbedtls::Aes256Ccm>();
    wipes::<mbedtls::ChaCha20Poly1305>();
    // Hash contexts: HMAC keeps one keyed with K xor ipad.
    wipes::<mbedtls::Sha256>();
    wipes::<mbedtls::Sha512>();
    wipes::<mbedtls::HmacSha256>();
    wipes::<mbedtls::HmacSha512>();
    // Monocypher: `crypto_wipe`, `Zeroizing`, the context's own wipe.
    wipes::<monocypher::ChaCha20Poly1305>();
    wipes::<monocypher::Sha512>();
    wipes::<monocypher::HmacSha512>();
}

/// The definitions the scan finds that are checked above (`$name`: the
/// hash adapter macro's types).
const WIPED: &[(&str, &str)] = &[
    ("src/lib.rs", "$name"),
    ("src/mbedtls.rs", "Aes"),
    ("src/mbedtls.rs", "Gcm"),
    ("src/mbedtls.rs", "Ccm"),
    ("src/mbedtls.rs", "ChaCha20Poly1305"),
    ("src/monocypher.rs", "ChaCha20Poly1305"),
    ("src/monocypher.rs", "HmacSha512"),
];

/// Found by the scan but not checked above, and why.
const ALLOWED: &[(&str, &str, &str)] = &[
    (
        "src/lib.rs",
        "Context",
        "private; its Drop wipes the C context's bytes (every type above holds one)",
    ),
    (
        "src/mbedtls.rs",
        "Cell",
        "private; holds a Context, which wipes itself",
    ),
];

#[test]
fn every_secret_looking_type_is_wiped_or_allowed() {
    secret_scan::check(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")),
        WIPED,
        ALLOWED,
    );
}
