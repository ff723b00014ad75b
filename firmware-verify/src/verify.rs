//! One scheme's verify from the bytes a bootloader holds: the public key, the
//! signed message and the signature, parsed and checked inside the region
//! (a bootloader parses its key and the image's signature at each boot).

use crate::vector::*;

/// The vector's signature over the vector's message.
pub fn verify() -> bool {
    check(&MESSAGE)
}

/// The vector's signature over another message (one bit changed, or one byte
/// for an empty message) must not verify.
pub fn rejects_a_flipped_bit() -> bool {
    let mut other = [0u8; 64];
    let n = MESSAGE.len().clamp(1, other.len());
    other[..MESSAGE.len().min(n)].copy_from_slice(&MESSAGE[..MESSAGE.len().min(n)]);
    other[0] ^= 1;
    !check(&other[..n])
}

#[cfg(feature = "ecdsa-p256")]
fn check(message: &[u8]) -> bool {
    use p256::ecdsa::signature::Verifier;
    use p256::ecdsa::{Signature, VerifyingKey};
    let (Ok(key), Ok(sig)) = (
        VerifyingKey::from_sec1_bytes(&PUBLIC),
        Signature::from_slice(&SIGNATURE),
    ) else {
        return false;
    };
    key.verify(message, &sig).is_ok()
}

#[cfg(feature = "ed25519")]
fn check(message: &[u8]) -> bool {
    use ed25519_dalek::{Signature, Verifier, VerifyingKey};
    let Ok(key) = VerifyingKey::from_bytes(&PUBLIC) else {
        return false;
    };
    key.verify(message, &Signature::from_bytes(&SIGNATURE))
        .is_ok()
}

#[cfg(any(feature = "rsa-2048", feature = "rsa-3072"))]
fn check(message: &[u8]) -> bool {
    use rsa::BoxedUint;
    use rsa::pss::{Signature, VerifyingKey};
    use rsa::signature::Verifier;
    let bits = (MODULUS.len() * 8) as u32;
    let n = BoxedUint::from_be_slice(&MODULUS, bits);
    let e = BoxedUint::from_be_slice(&EXPONENT, 32);
    let (Ok(n), Ok(e)) = (n, e) else {
        return false;
    };
    let Ok(key) = rsa::PublicKey::new(n, e) else {
        return false;
    };
    // MCUboot's salt: the digest's length (32 bytes for SHA-256).
    let key = VerifyingKey::<sha2::Sha256>::new(key);
    let Ok(sig) = Signature::try_from(&SIGNATURE[..]) else {
        return false;
    };
    key.verify(message, &sig).is_ok()
}

#[cfg(feature = "lms-sha256-h10-w8")]
fn check(message: &[u8]) -> bool {
    // hbs-lms verifies HSS (RFC 8554 §6); one level of it is the LMS key and
    // signature with their headers: L = 1 before the key, Nspk = 0 before
    // the signature (§6.1, §6.2). §6.3's verify then is LMS's alone.
    let mut public = [0u8; 4 + PUBLIC.len()];
    public[..4].copy_from_slice(&1u32.to_be_bytes());
    public[4..].copy_from_slice(&PUBLIC);
    let mut sig = [0u8; 4 + SIGNATURE.len()];
    sig[4..].copy_from_slice(&SIGNATURE);
    hbs_lms::verify::<hbs_lms::Sha256_256>(message, &sig, &public).is_ok()
}

#[cfg(any(feature = "ml-dsa-44", feature = "ml-dsa-65"))]
fn check(message: &[u8]) -> bool {
    #[cfg(feature = "ml-dsa-44")]
    type P = ml_dsa::MlDsa44;
    #[cfg(feature = "ml-dsa-65")]
    type P = ml_dsa::MlDsa65;
    let (Ok(key), Ok(sig)) = (
        ml_dsa::EncodedVerifyingKey::<P>::try_from(&PUBLIC[..]),
        ml_dsa::EncodedSignature::<P>::try_from(&SIGNATURE[..]),
    ) else {
        return false;
    };
    let key = ml_dsa::VerifyingKey::<P>::decode(&key);
    let Some(sig) = ml_dsa::Signature::<P>::decode(&sig) else {
        return false;
    };
    // FIPS 204 Algorithm 3 with the empty context, as the vector was signed.
    key.verify_with_context(message, &[], &sig)
}

#[cfg(any(feature = "slh-dsa-sha2-128s", feature = "slh-dsa-sha2-128f"))]
fn check(message: &[u8]) -> bool {
    #[cfg(feature = "slh-dsa-sha2-128s")]
    type P = slh_dsa::Sha2_128s;
    #[cfg(feature = "slh-dsa-sha2-128f")]
    type P = slh_dsa::Sha2_128f;
    use slh_dsa::signature::Verifier;
    let (Ok(key), Ok(sig)) = (
        slh_dsa::VerifyingKey::<P>::try_from(&PUBLIC[..]),
        slh_dsa::Signature::<P>::try_from(&SIGNATURE[..]),
    ) else {
        return false;
    };
    // FIPS 205 Algorithm 24 (slh_verify) with the empty context.
    key.verify(message, &sig).is_ok()
}
