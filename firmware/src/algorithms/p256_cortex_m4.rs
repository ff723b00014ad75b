//! P-256 from Emill's P256-Cortex-M4 (its C and GNU assembly, built by
//! `p256-cortex-m4-sys` with arm-none-eabi-gcc): ECDH and ECDSA for the
//! Cortex-M4, and the curve EDHOC's handshake uses on that core
//! (`edhoc-m3-s2@p256-cortex-m4`). (`p256-cm4`, its Rust `naked_asm` port,
//! encodes a one-register `ldm` that QEMU takes as undefined: GNU as writes
//! it as `ldr`.)
//!
//! The library takes 256-bit integers as eight little-endian words and leaves
//! hashing and the signing nonce to its caller: SHA-256 is RustCrypto's, and
//! the nonce is RFC 6979's (HMAC-DRBG over SHA-256), as Mbed TLS's
//! deterministic ECDSA makes it, so both sign to the same known answer.

#[cfg(public_key)]
pub use signing::{P256Ecdh, P256Ecdsa};

use p256_cortex_m4_sys as sys;

/// A big-endian 256-bit integer as the crate's little-endian words.
fn words(be: &[u8]) -> [u32; 8] {
    let mut out = [0u32; 8];
    for (i, w) in out.iter_mut().enumerate() {
        let at = 28 - 4 * i;
        *w = u32::from_be_bytes([be[at], be[at + 1], be[at + 2], be[at + 3]]);
    }
    out
}

/// The crate's words back to big-endian bytes.
fn bytes(words: &[u32; 8], out: &mut [u8]) {
    for (i, w) in words.iter().enumerate() {
        let at = 28 - 4 * i;
        out[at..at + 4].copy_from_slice(&w.to_be_bytes());
    }
}

/// A scalar in 1..n-1, as the library requires of private keys.
fn scalar(be: &[u8; 32]) -> Option<[u32; 8]> {
    let k = words(be);
    // SAFETY: eight words.
    unsafe { sys::P256_check_range_n(k.as_ptr()) }.then_some(k)
}

/// A peer's point: 65 bytes uncompressed (or 33 compressed), on the curve.
fn point(encoded: &[u8]) -> Option<([u32; 8], [u32; 8])> {
    let (mut x, mut y) = ([0u32; 8], [0u32; 8]);
    let len = u32::try_from(encoded.len()).ok()?;
    // SAFETY: two eight-word outputs and the encoding with its own length.
    let on_curve = unsafe {
        sys::p256_octet_string_to_point(x.as_mut_ptr(), y.as_mut_ptr(), encoded.as_ptr(), len)
    };
    on_curve.then_some((x, y))
}

/// The public point of a private key.
fn public(sk: &[u8; 32]) -> Option<([u32; 8], [u32; 8])> {
    let k = scalar(sk)?;
    let (mut x, mut y) = ([0u32; 8], [0u32; 8]);
    // SAFETY: eight-word outputs and scalar.
    unsafe { sys::p256_keygen(x.as_mut_ptr(), y.as_mut_ptr(), k.as_ptr()) }.then_some((x, y))
}

/// The x coordinate of k·P: ECDH's shared secret, big-endian.
fn shared_x(sk: &[u8; 32], x: &[u32; 8], y: &[u32; 8]) -> Option<[u8; 32]> {
    let k = scalar(sk)?;
    let mut out = [0u8; 32];
    // SAFETY: a 32-byte output, an eight-word scalar and coordinates.
    let ok = unsafe {
        sys::p256_ecdh_calc_shared_secret(out.as_mut_ptr(), k.as_ptr(), x.as_ptr(), y.as_ptr())
    };
    ok.then_some(out)
}

/// ECDH and ECDSA as the firmware's public-key benchmarks measure them.
#[cfg(public_key)]
mod signing {
    use hmac::{Hmac, KeyInit, Mac};
    use sha2::{Digest, Sha256};

    use super::{bytes, point, public, scalar, shared_x, sys, words};
    use crate::algorithms::public_key::{KeyAgreement, Signer};

    /// `p256_sign` of a 32-byte hash with scalar `d` and nonce `k` into
    /// `sig` (r ‖ s, big-endian); false where the library refuses `k`.
    fn sign_words(d: &[u32; 8], hash: &[u8; 32], k: &[u32; 8], sig: &mut [u8; 64]) -> bool {
        let (mut r, mut s) = ([0u32; 8], [0u32; 8]);
        // SAFETY: eight-word outputs, scalars and a 32-byte hash.
        let signed = unsafe {
            sys::p256_sign(
                r.as_mut_ptr(),
                s.as_mut_ptr(),
                hash.as_ptr(),
                32,
                d.as_ptr(),
                k.as_ptr(),
            )
        };
        bytes(&r, &mut sig[..32]);
        bytes(&s, &mut sig[32..]);
        signed
    }

    /// The order n of P-256's group, big-endian.
    const N: [u8; 32] =
        hex_literal::hex!("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");

    pub struct P256Ecdh;

    impl KeyAgreement for P256Ecdh {
        const PK: usize = 65;

        fn public(sk: &[u8; 32], pk: &mut [u8]) -> bool {
            let Ok(pk) = <&mut [u8; 65]>::try_from(pk) else {
                return false;
            };
            public(sk).is_some_and(|(x, y)| {
                // SAFETY: a 65-byte output and eight-word coordinates.
                unsafe {
                    sys::p256_point_to_octet_string_uncompressed(
                        pk.as_mut_ptr(),
                        x.as_ptr(),
                        y.as_ptr(),
                    )
                };
                true
            })
        }

        fn shared(sk: &[u8; 32], peer: &[u8], out: &mut [u8; 32]) -> bool {
            let secret = point(peer).and_then(|(x, y)| shared_x(sk, &x, &y));
            secret.is_some_and(|s| {
                *out = s;
                true
            })
        }
    }

    /// ECDSA over SHA-256 with RFC 6979's nonce; signatures r || s. The expanded
    /// key is the secret (its first half).
    pub struct P256Ecdsa;

    impl Signer for P256Ecdsa {
        const PK: usize = 65;
        type Key = [u8; 64];
        const EMPTY: [u8; 64] = [0; 64];

        fn keypair(secret: &[u8; 32], expanded: &mut [u8; 64], pk: &mut [u8]) -> bool {
            expanded[..32].copy_from_slice(secret);
            P256Ecdh::public(secret, pk)
        }

        fn sign(expanded: &[u8; 64], msg: &[u8], sig: &mut [u8; 64]) -> bool {
            let mut x = [0u8; 32];
            x.copy_from_slice(&expanded[..32]);
            let Some(d) = scalar(&x) else {
                return false;
            };
            let hash: [u8; 32] = Sha256::digest(msg).into();
            let mut nonces = Rfc6979::new(&x, &hash);
            // A nonce the library refuses (probability about 2^-32) is followed by
            // the DRBG's next, as RFC 6979 §3.2 step h.3 says.
            for _ in 0..4 {
                if sign_words(&d, &hash, &words(&nonces.next()), sig) {
                    return true;
                }
            }
            false
        }

        const SIGNS_GIVEN_K: bool = true;

        /// `p256_sign` alone, as the library's README and the `p256-cm4`
        /// port's test suite time it.
        fn sign_given_k(
            expanded: &[u8; 64],
            hash: &[u8; 32],
            k: &[u8; 32],
            sig: &mut [u8; 64],
        ) -> bool {
            let mut x = [0u8; 32];
            x.copy_from_slice(&expanded[..32]);
            let (Some(d), k) = (scalar(&x), words(k)) else {
                return false;
            };
            sign_words(&d, hash, &k, sig)
        }

        fn verify(pk: &[u8], msg: &[u8], sig: &[u8; 64]) -> bool {
            let Some((x, y)) = point(pk) else {
                return false;
            };
            let (r, s) = (words(&sig[..32]), words(&sig[32..]));
            let hash: [u8; 32] = Sha256::digest(msg).into();
            // SAFETY: eight-word coordinates and halves, a 32-byte hash.
            unsafe {
                sys::p256_verify(
                    x.as_ptr(),
                    y.as_ptr(),
                    hash.as_ptr(),
                    32,
                    r.as_ptr(),
                    s.as_ptr(),
                )
            }
        }
    }

    /// RFC 6979 §3.2's HMAC-DRBG for P-256 and SHA-256 (qlen = hlen = 256, so
    /// bits2int is the identity and bits2octets one conditional subtraction).
    struct Rfc6979 {
        k: [u8; 32],
        v: [u8; 32],
        drawn: bool,
    }

    impl Rfc6979 {
        fn new(x: &[u8; 32], hash: &[u8; 32]) -> Self {
            let mut h1 = *hash;
            if h1 >= N {
                subtract(&mut h1, &N);
            }
            let mut d = Rfc6979 {
                k: [0; 32],
                v: [1; 32],
                drawn: false,
            };
            for round in [0u8, 1] {
                d.k = d.mac(&[&d.v, &[round], x, &h1]);
                d.v = d.mac(&[&d.v]);
            }
            d
        }

        fn mac(&self, parts: &[&[u8]]) -> [u8; 32] {
            let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(&self.k)
                .unwrap_or_else(|_| unreachable!("HMAC takes any key length"));
            for p in parts {
                mac.update(p);
            }
            mac.finalize().into_bytes().into()
        }

        /// The next candidate k in 1..n-1 (step h). A candidate out of range,
        /// or one the library then refuses, moves the DRBG on before the next.
        fn next(&mut self) -> [u8; 32] {
            loop {
                if self.drawn {
                    self.k = self.mac(&[&self.v, &[0]]);
                    self.v = self.mac(&[&self.v]);
                }
                self.drawn = true;
                self.v = self.mac(&[&self.v]);
                if self.v != [0; 32] && self.v < N {
                    return self.v;
                }
            }
        }
    }

    /// a -= b for big-endian a >= b.
    fn subtract(a: &mut [u8; 32], b: &[u8; 32]) {
        let mut borrow = 0i16;
        for i in (0..32).rev() {
            let d = a[i] as i16 - b[i] as i16 - borrow;
            borrow = (d < 0) as i16;
            a[i] = d.rem_euclid(256) as u8;
        }
    }
}

/// EDHOC's P-256 (RFC 9528 §3.7: points are x alone, either y gives the
/// same shared x).
#[cfg(feature = "edhoc-m3-s2")]
#[derive(Debug)]
pub struct EdhocCurve;

#[cfg(feature = "edhoc-m3-s2")]
impl super::edhoc::Curve for EdhocCurve {
    fn public_x(k: &[u8; 32]) -> Option<[u8; 32]> {
        let (x, _) = public(k)?;
        let mut out = [0u8; 32];
        bytes(&x, &mut out);
        Some(out)
    }

    fn ecdh_x(k: &[u8; 32], peer_x: &[u8; 32]) -> Option<[u8; 32]> {
        let mut compressed = [2u8; 33];
        compressed[1..].copy_from_slice(peer_x);
        let (x, y) = point(&compressed)?;
        shared_x(k, &x, &y)
    }
}
