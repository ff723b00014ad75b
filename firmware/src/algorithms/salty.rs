//! X25519 and Ed25519 from `salty`: on the Cortex-M4 its field arithmetic is
//! Björn Haase's assembly (UMAAL multiply and square, linked from the crate's
//! own object); the curve code around it is Rust.

use salty::{Keypair, PublicKey, SecretKey, Signature, agreement};

use super::public_key::{KeyAgreement, Signer};

/// X25519's base point, u = 9 (RFC 7748 §4.1).
const BASE_U: [u8; 32] = {
    let mut u = [0u8; 32];
    u[0] = 9;
    u
};

pub struct X25519;

impl KeyAgreement for X25519 {
    const PK: usize = 32;

    fn public(sk: &[u8; 32], pk: &mut [u8]) -> bool {
        let Ok(pk) = <&mut [u8; 32]>::try_from(pk) else {
            return false;
        };
        *pk = agreement::x25519(*sk, BASE_U);
        true
    }

    fn shared(sk: &[u8; 32], peer: &[u8], out: &mut [u8; 32]) -> bool {
        let Ok(peer) = <[u8; 32]>::try_from(peer) else {
            return false;
        };
        *out = agreement::x25519(*sk, peer);
        true
    }
}

/// Ed25519 (RFC 8032). The expanded key is the seed and the compressed
/// public key, as a device keeps them: signing hashes the seed again (as
/// Monocypher's does) but does not recompute the public point.
pub struct Ed25519;

impl Signer for Ed25519 {
    const PK: usize = 32;
    type Key = [u8; 64];
    const EMPTY: [u8; 64] = [0; 64];

    fn keypair(secret: &[u8; 32], expanded: &mut [u8; 64], pk: &mut [u8]) -> bool {
        let Ok(pk) = <&mut [u8; 32]>::try_from(pk) else {
            return false;
        };
        let pair = Keypair::from(secret);
        *pk = pair.public.compressed.0;
        expanded[..32].copy_from_slice(secret);
        expanded[32..].copy_from_slice(pk);
        true
    }

    fn sign(expanded: &[u8; 64], msg: &[u8], sig: &mut [u8; 64]) -> bool {
        let mut seed = [0u8; 32];
        seed.copy_from_slice(&expanded[..32]);
        let mut public = PublicKey::default();
        public.compressed.0.copy_from_slice(&expanded[32..]);
        let pair = Keypair {
            secret: SecretKey::from(&seed),
            public,
        };
        *sig = pair.sign(msg).to_bytes();
        true
    }

    fn verify(pk: &[u8], msg: &[u8], sig: &[u8; 64]) -> bool {
        let Ok(pk) = <&[u8; 32]>::try_from(pk) else {
            return false;
        };
        PublicKey::try_from(pk)
            .is_ok_and(|public| public.verify(msg, &Signature::from(sig)).is_ok())
    }
}
