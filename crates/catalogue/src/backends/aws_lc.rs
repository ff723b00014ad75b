//! The AWS-LC backend (aws-lc-rs, through crates/aws-lc's RustCrypto-trait
//! types, the same the sealing core seals with): AES-128/256-GCM,
//! ChaCha20-Poly1305 and HMAC-SHA-256/512. The catalogue's generic AEAD and
//! MAC wrappers hold them, so the known answers and tamper checks of every
//! other backend apply unchanged (`tests/kat.rs`).

use crate::entry::{Backend, Implementation, Ops};
use crate::registry::Builder;
use crate::rustcrypto::{aead, digests};

const PROVIDER: &str = "aws-lc-rs 1.19 (AWS-LC)";

fn implementation(ops: Ops) -> Implementation {
    Implementation {
        backend: Backend::AwsLc,
        provider: PROVIDER.to_string(),
        ops,
    }
}

pub(crate) fn register(b: &mut Builder) {
    let aeads = [
        (
            "aes-128-gcm",
            aead::keyed::<aws_lc::Aes128Gcm>("aes-128-gcm"),
        ),
        (
            "aes-256-gcm",
            aead::keyed::<aws_lc::Aes256Gcm>("aes-256-gcm"),
        ),
        (
            "chacha20-poly1305",
            aead::keyed::<aws_lc::ChaCha20Poly1305>("chacha20-poly1305"),
        ),
    ];
    for (id, ctor) in aeads {
        b.add_impl(id, implementation(Ops::Cipher(ctor)));
    }
    let macs = [
        (
            "hmac-sha256",
            digests::mac::<aws_lc::HmacSha256>("hmac-sha256", "1 or more"),
        ),
        (
            "hmac-sha512",
            digests::mac::<aws_lc::HmacSha512>("hmac-sha512", "1 or more"),
        ),
    ];
    for (id, ctor) in macs {
        b.add_impl(id, implementation(Ops::Mac(ctor)));
    }
}
