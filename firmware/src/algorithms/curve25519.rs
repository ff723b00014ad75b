//! X25519 and Ed25519 written here (crates/primitives `curve25519`): on the
//! Cortex-M4 its field multiply and square are `umaal` assembly, elsewhere
//! the portable field code.

use primitives::curve25519::x25519;

use super::public_key::KeyAgreement;

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
