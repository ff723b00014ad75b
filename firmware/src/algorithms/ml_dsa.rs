//! ML-DSA-44 and ML-DSA-65 (FIPS 204) with RustCrypto's `ml-dsa`, as a device
//! uses them to authenticate a key establishment: key generation from the
//! 32-byte seed ξ (and the public key encoded), signing (FIPS 204's
//! deterministic variant, rnd = 0, so that the count of the rejection loop is
//! reproducible; a hedged signature costs the same loop with other
//! randomness), and verification of a received signature against a received
//! public key (decoded first). Each is one measured operation, recorded at the
//! length it produces or takes on the air: the public key (1,312 / 1,952
//! bytes) or the signature (2,420 / 3,309).
//!
//! Known answers from dilithium-py (`firmware/testdata/make-pq-vectors.py`),
//! seeds from NIST ACVP ML-DSA keyGen FIPS204 tcId 1 and 26: SHA3-256 of the
//! public key and of the signature of "ciphermeter reading" (empty context);
//! the signature verifies, and with one bit flipped it does not.

use core::hint::black_box;

use hex_literal::hex;
use ml_dsa::{KeyExport, Keypair, Signature, SigningKey, VerifyingKey};
use sha3::{Digest, Sha3_256};

use crate::bench::{Bench, Failure, expect};
use crate::probe::Probe;

struct Vectors {
    seed: [u8; 32],
    pk_sha3: [u8; 32],
    sig_sha3: [u8; 32],
}

const MESSAGE: &[u8] = b"ciphermeter reading";

#[cfg(feature = "ml-dsa-44")]
const ML_DSA_44: Vectors = Vectors {
    seed: hex!("93EF2E6EF1FB08999D142ABE0295482370D3F43BDB254A78E2B0D5168ECA065F"),
    pk_sha3: hex!("b09f140435b15d8da2e35f2c8b474068a473edb4b79eab3912278a699bea09c0"),
    sig_sha3: hex!("5d8f6ec5f7a70d0831c1baca366a277d0fa1f96057aefedfe523f2c3017f3368"),
};

#[cfg(feature = "ml-dsa-65")]
const ML_DSA_65: Vectors = Vectors {
    seed: hex!("70CEFB9AED5B68E018B079DA8284B9D5CAD5499ED9C265FF73588005D85C225C"),
    pk_sha3: hex!("3bab48eb1a51111d56433219d7abe12d15a8a3a1e0a190a9d144cf93fa34185c"),
    sig_sha3: hex!("e470cdbb2cac3a8dfa8fb28948602f2b10653b8e3af1d602912b0ba66c37fcb2"),
};

/// Out of line, so that its frame (the expanded key is tens of KB) is its
/// own and `Bench::algorithm`'s frame check sees it.
#[inline(never)]
fn bench<Params: ml_dsa::MlDsaParams, P: Probe>(b: &mut Bench<P>, id: &str, v: &Vectors) {
    b.algorithm(id);
    let seed = ml_dsa::B32::from(v.seed);
    let pk_len = <ml_dsa::EncodedVerifyingKey<Params>>::default().len();
    let sig_len = <ml_dsa::EncodedSignature<Params>>::default().len();
    let (key, pk) = b.op("keygen", pk_len, || {
        let key = SigningKey::<Params>::from_seed(black_box(&seed));
        let pk = key.verifying_key().to_bytes();
        (key, pk)
    });
    let signed = b.op("sign", sig_len, || {
        key.expanded_key()
            .sign_deterministic(black_box(MESSAGE), &[])
            .map(|s| s.encode())
    });
    let Ok(sig) = signed else {
        b.kat(id, Err(Failure::Step("signing failed")));
        return;
    };
    let verified = b.op("verify", sig_len, || {
        let vk = VerifyingKey::<Params>::decode(black_box(&pk));
        Signature::<Params>::decode(black_box(&sig))
            .is_some_and(|s| vk.verify_with_context(MESSAGE, &[], &s))
    });
    let result = expect("public key", &Sha3_256::digest(&pk), &v.pk_sha3)
        .and_then(|()| expect("signature", &Sha3_256::digest(&sig), &v.sig_sha3))
        .and(match verified {
            true => Ok(()),
            false => Err(Failure::Step("the signature did not verify")),
        })
        .and_then(|()| {
            let mut bad = sig.clone();
            bad[1000] ^= 0x01;
            let vk = VerifyingKey::<Params>::decode(&pk);
            match Signature::<Params>::decode(&bad)
                .is_some_and(|s| vk.verify_with_context(MESSAGE, &[], &s))
            {
                true => Err(Failure::Step("a changed signature verified")),
                false => Ok(()),
            }
        });
    b.kat(id, result);
}

#[cfg(feature = "ml-dsa-44")]
pub fn bench_44<P: Probe>(b: &mut Bench<P>, id: &str) {
    bench::<ml_dsa::MlDsa44, P>(b, id, &ML_DSA_44);
}

#[cfg(feature = "ml-dsa-65")]
pub fn bench_65<P: Probe>(b: &mut Bench<P>, id: &str) {
    bench::<ml_dsa::MlDsa65, P>(b, id, &ML_DSA_65);
}
