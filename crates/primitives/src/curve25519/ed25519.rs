//! Ed25519 (RFC 8032 §5.1) over [`super::edwards`]: the curve arithmetic
//! is ours; SHA-512 is the caller's (any `Digest` with a 64-byte output,
//! RustCrypto's `sha2::Sha512` in the firmware and the tests).
//!
//! Signing is constant time in the secret and the nonce (the comb reads
//! every entry); verification handles public values only and checks the
//! cofactorless equation [S]B = R + [k]A by encoding, after refusing an
//! S at or above ℓ and an A that does not decode.

use core::marker::PhantomData;

use cipher::zeroize::{Zeroize, ZeroizeOnDrop};
use digest::{Digest, consts::U64};

use super::edwards::Point;
use super::scalar::Scalar;

/// The secret scalar (clamped first half of SHA-512(seed)) and the prefix.
fn expand<H: Digest<OutputSize = U64>>(seed: &[u8; 32]) -> ([u8; 32], [u8; 32]) {
    let mut h = H::digest(seed);
    let mut a = [0u8; 32];
    let mut prefix = [0u8; 32];
    a.copy_from_slice(&h[..32]);
    prefix.copy_from_slice(&h[32..]);
    h.as_mut_slice().zeroize();
    a[0] &= 248;
    a[31] &= 127;
    a[31] |= 64;
    (a, prefix)
}

/// The public key of a 32-byte seed: [a]B encoded (RFC 8032 §5.1.5).
pub fn public_key<H: Digest<OutputSize = U64>>(seed: &[u8; 32]) -> [u8; 32] {
    let (mut a, mut prefix) = expand::<H>(seed);
    let public = Point::mul_base(&a).to_bytes();
    a.zeroize();
    prefix.zeroize();
    public
}

/// An Ed25519 signing key over the SHA-512 `H`: the seed and its public key,
/// which is derived here, once, when the key is made, and never taken from
/// a caller. A signer that hashes a caller's public key into k =
/// H(R ‖ A ‖ M) signs one message under two public keys with the same nonce
/// when handed a wrong one, and the two signatures give the secret scalar
/// away (the 2022 "double public key" recoveries from libraries whose `sign`
/// took it). Signing hashes the seed again (as Monocypher's does) but does
/// not recompute the public point. The seed is wiped when the key is dropped.
pub struct SigningKey<H> {
    seed: [u8; 32],
    public: [u8; 32],
    hash: PhantomData<fn() -> H>,
}

impl<H: Digest<OutputSize = U64>> SigningKey<H> {
    /// The key of a 32-byte seed, its public key computed from it (one
    /// base-point multiplication, as [`public_key`]).
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        SigningKey {
            seed: *seed,
            public: public_key::<H>(seed),
            hash: PhantomData,
        }
    }

    /// The compressed public key (RFC 8032 §5.1.5), derived from the seed.
    pub fn public_key(&self) -> &[u8; 32] {
        &self.public
    }

    /// The signature of `msg` (RFC 8032 §5.1.6).
    pub fn sign(&self, msg: &[u8]) -> [u8; 64] {
        let (mut a, mut prefix) = expand::<H>(&self.seed);
        let mut r = Scalar::from_bytes_wide(
            &H::new()
                .chain_update(prefix)
                .chain_update(msg)
                .finalize()
                .into(),
        );
        let mut r_bytes = r.to_bytes();
        let big_r = Point::mul_base(&r_bytes).to_bytes();
        let k = Scalar::from_bytes_wide(
            &H::new()
                .chain_update(big_r)
                .chain_update(self.public)
                .chain_update(msg)
                .finalize()
                .into(),
        );
        let s = Scalar::mul_add(&a, &k, &r);
        a.zeroize();
        prefix.zeroize();
        r_bytes.zeroize();
        r.0.zeroize();
        let mut sig = [0u8; 64];
        sig[..32].copy_from_slice(&big_r);
        sig[32..].copy_from_slice(&s.to_bytes());
        sig
    }
}

impl<H> Drop for SigningKey<H> {
    fn drop(&mut self) {
        self.seed.zeroize();
    }
}

impl<H> ZeroizeOnDrop for SigningKey<H> {}

impl<H> core::fmt::Debug for SigningKey<H> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SigningKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

/// Whether `sig` is `public`'s signature of `msg` (RFC 8032 §5.1.7).
pub fn verify<H: Digest<OutputSize = U64>>(public: &[u8; 32], msg: &[u8], sig: &[u8; 64]) -> bool {
    let mut r_bytes = [0u8; 32];
    let mut s_bytes = [0u8; 32];
    r_bytes.copy_from_slice(&sig[..32]);
    s_bytes.copy_from_slice(&sig[32..]);
    let Some(s) = Scalar::from_canonical_bytes(&s_bytes) else {
        return false;
    };
    let Some(a) = Point::from_bytes(public) else {
        return false;
    };
    // R is not decoded: [S]B - [k]A always encodes canonically, so an R that
    // does not decode (or is not canonical) cannot equal it.
    let k = Scalar::from_bytes_wide(
        &H::new()
            .chain_update(r_bytes)
            .chain_update(public)
            .chain_update(msg)
            .finalize()
            .into(),
    );
    // [S]B - [k]A, encoded, against R.
    let check = Point::mul_base(&s.to_bytes()).add(&a.mul_vartime(&k.to_bytes()).neg());
    check.to_bytes() == r_bytes
}

#[cfg(test)]
mod tests {
    use super::super::field::tests::hex32;
    use super::*;
    use sha2::Sha512;
    extern crate std;
    use std::vec::Vec;

    /// RFC 8032 §7.1 TEST 1, 2, 3 and TEST SHA(abc).
    const CASES: [(&str, &str, &str, &str); 4] = [
        (
            "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
            "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
            "",
            "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
        ),
        (
            "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
            "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
            "72",
            "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
        ),
        (
            "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
            "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025",
            "af82",
            "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a",
        ),
        (
            "833fe62409237b9d62ec77587520911e9a759cec1d19755b7da901b96dca3d42",
            "ec172b93ad5e563bf4932c70e1245034c35467ef2efd4d64ebf819683467e2bf",
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
            "dc2a4459e7369633a52b1bf277839a00201009a3efbf3ecb69bea2186c26b58909351fc9ac90b3ecfdfbc7c66431e0303dca179c138ac17ad9bef1177331a704",
        ),
    ];

    fn bytes(hex: &str) -> Vec<u8> {
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn rfc8032_section_7_1() {
        for (seed, public, msg, sig) in CASES {
            let (seed, public, msg) = (hex32(seed), hex32(public), bytes(msg));
            let sig: [u8; 64] = bytes(sig).try_into().unwrap();
            assert_eq!(public_key::<Sha512>(&seed), public);
            let key = SigningKey::<Sha512>::from_seed(&seed);
            assert_eq!(key.public_key(), &public);
            assert_eq!(key.sign(&msg), sig);
            assert!(verify::<Sha512>(&public, &msg, &sig));
        }
    }

    #[test]
    fn verification_refuses_changes() {
        let (seed, public, msg, sig) = CASES[1];
        let (public, msg) = (hex32(public), bytes(msg));
        let _ = seed;
        let sig: [u8; 64] = bytes(sig).try_into().unwrap();
        for byte in [0, 31, 32, 63] {
            let mut bad = sig;
            bad[byte] ^= 1;
            assert!(
                !verify::<Sha512>(&public, &msg, &bad),
                "flipped byte {byte}"
            );
        }
        assert!(!verify::<Sha512>(&public, b"s", &sig));
        let mut other = public;
        other[0] ^= 1;
        assert!(!verify::<Sha512>(&other, &msg, &sig));
        // S + ℓ: the same point equation, refused as non-canonical.
        let mut s_plus_l = sig;
        let l = [
            0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9,
            0xde, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
        ];
        let mut carry = 0u16;
        for i in 0..32 {
            let v = u16::from(s_plus_l[32 + i]) + l[i] + carry;
            s_plus_l[32 + i] = v as u8;
            carry = v >> 8;
        }
        assert!(!verify::<Sha512>(&public, &msg, &s_plus_l));
    }
}
