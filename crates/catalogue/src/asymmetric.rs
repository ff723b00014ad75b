//! Asymmetric schemes: RSA (OAEP, PKCS#1 v1.5, PSS), X25519, Ed25519, ECDSA P-256,
//! and the post-quantum ML-KEM, ML-DSA and X-Wing (`lattice`).
//! Keys travel as bytes (see `ops::KeyPair`): PKCS#8 DER private keys, SPKI DER
//! public keys, and raw 32-byte keys for X25519 (RFC 7748).

mod curves;
mod lattice;
mod rsa;

use std::sync::Arc;

use getrandom::SysRng;
use getrandom::rand_core::UnwrapErr;
use zeroize::Zeroizing;

use crate::entry::{Backend, Entry, Implementation, Kind, Ops};
use crate::error::Error;
use crate::ops::{AsymOp, AsymmetricScheme};
use crate::registry::{Builder, Verdict};

pub(crate) use self::rsa::{RsaPad, rsa_public_to_pkcs1};
pub(crate) use curves::{ed25519_public_raw, ed25519_spki, p256_public_sec1, p256_spki};
pub use lattice::known_answers;

/// Sign and verify: PKCS#1 v1.5, PSS, Ed25519 and ECDSA.
pub(crate) const SIGNING: &[AsymOp] = &[AsymOp::Sign, AsymOp::Verify];
pub(crate) const ENCRYPTING: &[AsymOp] = &[AsymOp::Encrypt, AsymOp::Decrypt];
pub(crate) const AGREEING: &[AsymOp] = &[AsymOp::Agree];
/// A KEM's: ML-KEM and X-Wing.
pub(crate) const ENCAPSULATING: &[AsymOp] = &[AsymOp::Encapsulate, AsymOp::Decapsulate];

/// The operating system's CSPRNG. It is probed first so that a failing
/// source gives an error here rather than a panic inside a crate.
pub(crate) fn rng(algorithm: &str) -> Result<UnwrapErr<SysRng>, Error> {
    random::<1>(algorithm)?;
    Ok(UnwrapErr(SysRng))
}

/// `N` fresh bytes from the OS, or an error (never a panic).
pub(crate) fn random<const N: usize>(algorithm: &str) -> Result<Zeroizing<[u8; N]>, Error> {
    let mut bytes = Zeroizing::new([0u8; N]);
    getrandom::fill(bytes.as_mut()).map_err(|e| Error::Backend {
        algorithm: algorithm.to_string(),
        detail: format!("the system random number generator failed: {e}"),
    })?;
    Ok(bytes)
}

pub(crate) fn invalid(algorithm: &str, what: impl Into<String>) -> Error {
    Error::InvalidInput {
        algorithm: algorithm.to_string(),
        what: what.into(),
    }
}

pub(crate) fn unsupported(algorithm: &str, op: AsymOp) -> Error {
    let operation = op.name();
    Error::Unsupported {
        algorithm: algorithm.to_string(),
        operation: operation.to_string(),
    }
}

/// A signature that does not verify.
pub(crate) fn bad_signature(algorithm: &str) -> Error {
    Error::AuthenticationFailed {
        algorithm: algorithm.to_string(),
    }
}

pub(crate) fn bad_private_key(algorithm: &str, format: &str) -> Error {
    invalid(algorithm, format!("not a valid {format} private key"))
}

pub(crate) fn bad_public_key(algorithm: &str, format: &str) -> Error {
    invalid(algorithm, format!("not a valid {format} public key"))
}

/// One asymmetric entry's facts.
pub(crate) struct AsymSpec {
    pub id: String,
    pub aliases: &'static [&'static str],
    pub primitive: String,
    /// Private key size in bytes (the modulus size for RSA).
    pub key_size: usize,
    /// Signature, ciphertext or shared secret size in bytes.
    pub output_size: usize,
    pub security_bits: u32,
    pub verdict: Verdict,
}

fn push(b: &mut Builder, spec: AsymSpec, provider: &str, scheme: Arc<dyn AsymmetricScheme>) {
    b.push(Entry {
        aliases: spec.aliases.iter().map(|a| a.to_string()).collect(),
        kind: Kind::Asymmetric,
        primitive: spec.primitive,
        mode: None,
        key_sizes: vec![spec.key_size],
        block_size: None,
        nonce_sizes: vec![],
        tag_size: None,
        output_size: Some(spec.output_size),
        security_bits: spec.security_bits,
        status: spec.verdict.0,
        status_reason: spec.verdict.1.map(str::to_string),
        implementations: vec![Implementation {
            backend: Backend::RustCrypto,
            provider: provider.to_string(),
            ops: Ops::Asymmetric(scheme),
        }],
        id: spec.id,
    });
}

/// RSA key sizes with their strength (NIST SP 800-57 Part 1, Table 2).
pub(crate) const RSA_SIZES: [(usize, u32); 3] = [(1024, 80), (2048, 112), (3072, 128)];

pub(crate) fn rsa_id(bits: usize, pad: RsaPad) -> String {
    format!("rsa-{bits}-{}", pad.as_str())
}

pub(crate) fn register(b: &mut Builder) {
    use crate::entry::Status;
    for (bits, security_bits) in RSA_SIZES {
        let verdict = if bits < 2048 {
            Verdict(
                Status::Legacy,
                Some("RSA-1024: 80-bit strength, below the 112-bit minimum of NIST SP 800-131A"),
            )
        } else {
            Verdict(Status::Recommended, None)
        };
        for pad in RsaPad::ALL {
            let id = rsa_id(bits, pad);
            let scheme = Arc::new(rsa::RsaScheme::new(&id, bits, pad));
            let spec = AsymSpec {
                id,
                aliases: &[],
                primitive: format!("rsa-{bits}"),
                key_size: bits / 8,
                output_size: bits / 8,
                security_bits,
                verdict,
            };
            push(b, spec, "rsa 0.10.0-rc.20", scheme);
        }
    }

    let ok = Verdict(Status::Recommended, None);
    let curve =
        |id: &str, aliases: &'static [&'static str], primitive: &str, output_size| AsymSpec {
            id: id.to_string(),
            aliases,
            primitive: primitive.to_string(),
            key_size: 32,
            output_size,
            security_bits: 128,
            verdict: ok,
        };
    push(
        b,
        curve("x25519", &[], "curve25519", 32),
        "x25519-dalek 3",
        Arc::new(curves::X25519),
    );
    push(
        b,
        curve("ed25519", &[], "ed25519", 64),
        "ed25519-dalek 3",
        Arc::new(curves::Ed25519),
    );
    push(
        b,
        curve("ecdsa-p256-sha256", &["ecdsa-p256", "es256"], "p256", 64),
        "p256 0.14 (RFC 6979 deterministic)",
        Arc::new(curves::EcdsaP256),
    );
    register_post_quantum(b);
}

/// FIPS 203 and 204 (August 2024) and the X-Wing hybrid. Security is the
/// standards' category as the AES key search it matches (1: 128, 3: 192; ML-DSA-44
/// is category 2, collision search on SHA-256, listed at 128). X-Wing is held to
/// its classical part, X25519 (128), though its ML-KEM-768 part is category 3.
fn register_post_quantum(b: &mut Builder) {
    use crate::entry::Status;
    let pq = |id: &str, primitive: &str, key_size, output_size, security_bits| AsymSpec {
        id: id.to_string(),
        aliases: &[],
        primitive: primitive.to_string(),
        key_size,
        output_size,
        security_bits,
        verdict: Verdict(Status::Recommended, None),
    };
    // Private key: the seed; output: the ciphertext or signature.
    push(
        b,
        pq("ml-kem-512", "ml-kem", 64, 768, 128),
        "ml-kem 0.3",
        Arc::new(lattice::MlKem512::new("ml-kem-512")),
    );
    push(
        b,
        pq("ml-kem-768", "ml-kem", 64, 1088, 192),
        "ml-kem 0.3",
        Arc::new(lattice::MlKem768::new("ml-kem-768")),
    );
    push(
        b,
        pq("ml-dsa-44", "ml-dsa", 32, 2420, 128),
        "ml-dsa 0.1 (hedged signing)",
        Arc::new(lattice::MlDsa::<ml_dsa::MlDsa44>::new("ml-dsa-44")),
    );
    push(
        b,
        pq("ml-dsa-65", "ml-dsa", 32, 3309, 192),
        "ml-dsa 0.1 (hedged signing)",
        Arc::new(lattice::MlDsa::<ml_dsa::MlDsa65>::new("ml-dsa-65")),
    );
    push(
        b,
        pq(lattice::XWING_ID, "x-wing", 32, 1120, 128),
        "x-wing 0.1 (draft-connolly-cfrg-xwing-kem-06)",
        Arc::new(lattice::XWing),
    );
}
