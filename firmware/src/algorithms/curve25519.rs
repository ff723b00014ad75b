//! X25519 and Ed25519 written here (crates/primitives `curve25519`): on the
//! Cortex-M4 its field multiply and square are `umaal` assembly, elsewhere
//! the portable field code.

use primitives::curve25519::{ed25519, x25519};
use sha2::Sha512;

use super::public_key::{KeyAgreement, Signer};

pub struct X25519;

impl KeyAgreement for X25519 {
    const PK: usize = 32;

    fn public(sk: &[u8; 32], pk: &mut [u8]) -> bool {
        let Ok(pk) = <&mut [u8; 32]>::try_from(pk) else {
            return false;
        };
        *pk = x25519::public_key(sk);
        true
    }

    fn shared(sk: &[u8; 32], peer: &[u8], out: &mut [u8; 32]) -> bool {
        let Ok(peer) = <&[u8; 32]>::try_from(peer) else {
            return false;
        };
        *out = x25519::x25519(sk, peer);
        true
    }
}

/// Ed25519 (RFC 8032), SHA-512 from RustCrypto. The key is our
/// `SigningKey`: the seed and the public key it derives once, as a device
/// keeps them; signing hashes the seed again but does not recompute the
/// public point, and takes no public key from the caller.
pub struct Ed25519;

impl Signer for Ed25519 {
    const PK: usize = 32;
    type Key = Option<ed25519::SigningKey<Sha512>>;
    const EMPTY: Self::Key = None;

    fn keypair(secret: &[u8; 32], key: &mut Self::Key, pk: &mut [u8]) -> bool {
        let Ok(pk) = <&mut [u8; 32]>::try_from(pk) else {
            return false;
        };
        let made = key.insert(ed25519::SigningKey::from_seed(secret));
        *pk = *made.public_key();
        true
    }

    fn sign(key: &Self::Key, msg: &[u8], sig: &mut [u8; 64]) -> bool {
        let Some(key) = key else {
            return false;
        };
        *sig = key.sign(msg);
        true
    }

    fn verify(pk: &[u8], msg: &[u8], sig: &[u8; 64]) -> bool {
        <&[u8; 32]>::try_from(pk).is_ok_and(|pk| ed25519::verify::<Sha512>(pk, msg, sig))
    }
}
