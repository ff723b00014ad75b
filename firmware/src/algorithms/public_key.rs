//! Elliptic-curve key agreement (X25519, P-256 ECDH) and signatures
//! (Ed25519, P-256 ECDSA with SHA-256, deterministic per RFC 6979), as a
//! device uses them in a handshake. Each is measured as operations recorded
//! at the length they produce or take on the air: `keygen` (the public key
//! from a secret), `shared` (the secret from a peer's public key), `sign`
//! and `verify` (the signature) of a short message.
//!
//! Known answers: RFC 7748 §6.1 (X25519), RFC 5903 §8.1 (P-256 ECDH),
//! RFC 8032 §7.1 TEST 1 (Ed25519), RFC 6979 A.2.5 (P-256, SHA-256,
//! "sample"); every signature also verifies, and with a bit flipped it
//! does not.

use core::hint::black_box;

use hex_literal::hex;

use crate::bench::{Bench, Failure, expect};
use crate::probe::Probe;

/// A Diffie-Hellman function: public keys of `PK` bytes, secrets of 32.
pub trait KeyAgreement {
    const PK: usize;
    fn public(sk: &[u8; 32], pk: &mut [u8]) -> bool;
    fn shared(sk: &[u8; 32], peer: &[u8], out: &mut [u8; 32]) -> bool;
}

/// A signature scheme with 32-byte secrets, `PK`-byte public keys and
/// 64-byte signatures. `keypair` expands the secret as the scheme needs
/// (Ed25519 hashes it) into `Key`, which `sign` signs with: 64 bytes for the
/// libraries, our Ed25519's key type for ours (it derives its public key
/// itself and takes none from a caller).
pub trait Signer {
    const PK: usize;
    type Key;
    /// The key before `keypair` fills it.
    const EMPTY: Self::Key;
    fn keypair(secret: &[u8; 32], expanded: &mut Self::Key, pk: &mut [u8]) -> bool;
    fn sign(expanded: &Self::Key, msg: &[u8], sig: &mut [u8; 64]) -> bool;
    fn verify(pk: &[u8], msg: &[u8], sig: &[u8; 64]) -> bool;
    /// Whether the library signs a given hash with a given nonce
    /// ([`Signer::sign_given_k`]).
    const SIGNS_GIVEN_K: bool = false;
    /// Signing alone, of a given hash with a given nonce: the work a library
    /// that takes both from its caller is timed doing on its boards
    /// (`data/validation`), without our hashing and RFC 6979 nonce.
    fn sign_given_k(_: &Self::Key, _hash: &[u8; 32], _k: &[u8; 32], _sig: &mut [u8; 64]) -> bool {
        false
    }
}

pub struct AgreementKat {
    pub sk: [u8; 32],
    pub pk: &'static [u8],
    pub peer_pk: &'static [u8],
    pub shared: [u8; 32],
}

pub struct SignatureKat {
    pub secret: [u8; 32],
    pub pk: &'static [u8],
    pub msg: &'static [u8],
    pub sig: [u8; 64],
}

pub const X25519: AgreementKat = AgreementKat {
    sk: hex!("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a"),
    pk: &hex!("8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a"),
    peer_pk: &hex!("de9edb7d7b7dc1b4d35b61c2ece435373f8343c85b78674dadfc7e146f882b4f"),
    shared: hex!("4a5d9d5ba4ce2de1728e3bf480350f25e07e21c947d19e3376f09b3c1e161742"),
};

pub const P256_ECDH: AgreementKat = AgreementKat {
    sk: hex!("C88F01F510D9AC3F70A292DAA2316DE544E9AAB8AFE84049C62A9C57862D1433"),
    pk: &hex!(
        "04DAD0B65394221CF9B051E1FECA5787D098DFE637FC90B9EF945D0C3772581180"
        "5271A0461CDB8252D61F1C456FA3E59AB1F45B33ACCF5F58389E0577B8990BB3"
    ),
    peer_pk: &hex!(
        "04D12DFB5289C8D4F81208B70270398C342296970A0BCCB74C736FC7554494BF63"
        "56FBF3CA366CC23E8157854C13C58D6AAC23F046ADA30F8353E74F33039872AB"
    ),
    shared: hex!("D6840F6B42F6EDAFD13116E0E12565202FEF8E9ECE7DCE03812464D04B9442DE"),
};

pub const ED25519: SignatureKat = SignatureKat {
    secret: hex!("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"),
    pk: &hex!("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"),
    msg: b"",
    sig: hex!(
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    ),
};

pub const P256_ECDSA: SignatureKat = SignatureKat {
    secret: hex!("C9AFA9D845BA75166B5C215767B1D6934E50C3DB36E89B127B8A622B120F6721"),
    pk: &hex!(
        "0460FED4BA255A9D31C961EB74C6356D68C049B8923B61FA6CE669622E60F29FB6"
        "7903FE1008B8BC99A41AE9E95628BC64F2F1B20C2D7E9F5177A3C294D4462299"
    ),
    msg: b"sample",
    sig: hex!(
        "EFD48B2AACB6A8FD1140DD9CD45E81D69D2C877B56AAF991C34D0EA84EAF3716"
        "F7CB1C942D657C41D436C7A1B6E29F65F3E900DBB9AFF4064DC4AB2F843ACDA8"
    ),
};

/// What the timed runs sign: a reading-sized message.
const MESSAGE: &[u8] = b"ciphermeter reading";

pub fn agreement<A: KeyAgreement, P: Probe>(b: &mut Bench<P>, id: &str, kat: &AgreementKat) {
    b.algorithm(id);
    let mut pk = [0u8; 65];
    let pk = &mut pk[..A::PK];
    let made = b.op("keygen", A::PK, || A::public(black_box(&kat.sk), pk));
    let mut shared = [0u8; 32];
    let agreed = b.op("shared", A::PK, || {
        A::shared(black_box(&kat.sk), black_box(kat.peer_pk), &mut shared)
    });
    let result = match (made, agreed) {
        (true, true) => expect("public key", pk, kat.pk)
            .and_then(|()| expect("shared secret", &shared, &kat.shared)),
        (false, _) => Err(Failure::Step("public key refused")),
        (_, false) => Err(Failure::Step("key agreement refused")),
    };
    b.kat(id, result);
}

pub fn signature<S: Signer, P: Probe>(b: &mut Bench<P>, id: &str, kat: &SignatureKat) {
    b.algorithm(id);
    let mut expanded = S::EMPTY;
    let mut pk = [0u8; 65];
    let pk = &mut pk[..S::PK];
    let mut result = match S::keypair(&kat.secret, &mut expanded, pk) {
        true => expect("public key", pk, kat.pk),
        false => Err(Failure::Step("key pair refused")),
    };
    let mut sig = [0u8; 64];
    if result.is_ok() {
        result = match S::sign(&expanded, kat.msg, &mut sig) {
            true => expect("signature", &sig, &kat.sig),
            false => Err(Failure::Step("signing refused")),
        };
    }
    if result.is_ok() && !S::verify(pk, kat.msg, &sig) {
        result = Err(Failure::Step("the signature did not verify"));
    }
    sig[7] ^= 0x10;
    if result.is_ok() && S::verify(pk, kat.msg, &sig) {
        result = Err(Failure::Step("a changed signature verified"));
    }
    b.kat(id, result);
    b.op("keygen", S::PK, || {
        S::keypair(black_box(&kat.secret), &mut expanded, pk)
    });
    let signed = b.op("sign", 64, || {
        S::sign(black_box(&expanded), black_box(MESSAGE), &mut sig)
    });
    let verified = b.op("verify", 64, || S::verify(black_box(pk), MESSAGE, &sig));
    if !(signed && verified) {
        b.kat(
            id,
            Err(Failure::Step("sign or verify failed at the timed message")),
        );
    }
    if S::SIGNS_GIVEN_K {
        // RFC 6979 A.2.5: the hash of "sample" and its nonce give the known signature.
        let mut given = [0u8; 64];
        let signed = b.op("sign-given-k", 32, || {
            S::sign_given_k(
                black_box(&expanded),
                black_box(&SAMPLE_SHA256),
                black_box(&SAMPLE_K),
                &mut given,
            )
        });
        let result = match signed {
            true => expect("signature of a given hash and k", &given, &kat.sig),
            false => Err(Failure::Step("signing a given hash and k refused")),
        };
        // Only a failure is said again: a pass must not cover an earlier failure.
        if result.is_err() {
            b.kat(id, result);
        }
    }
}

/// SHA-256("sample") and RFC 6979 A.2.5's nonce for it under P-256's key.
const SAMPLE_SHA256: [u8; 32] =
    hex!("af2bdbe1aa9b6ec1e2ade1d694f41fc71a831d0268e9891562113d8a62add1bf");
const SAMPLE_K: [u8; 32] = hex!("a6e3c57dd01abe90086538398355dd4c3b17aa873382b0f24d6129493d8aad60");
