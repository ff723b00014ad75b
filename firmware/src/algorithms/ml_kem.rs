//! ML-KEM-512 and ML-KEM-768 (FIPS 203) with RustCrypto's `ml-kem`, as a
//! device uses them in a key establishment: key generation from a 64-byte
//! seed d‖z (and the encapsulation key encoded, what the device sends),
//! encapsulation against a received encapsulation key (decoded and checked,
//! then FIPS 203's Encaps_internal with fixed randomness m), and
//! decapsulation. Each is one measured operation, recorded at the length of
//! what it produces or takes on the air: the encapsulation key (800 / 1,184
//! bytes), the ciphertext (768 / 1,088).
//!
//! Known answers, computed apart with kyber-py (a FIPS 203 implementation in
//! Python) with m = 0..31: SHA3-256 of the encapsulation key (also FIPS 203's
//! H(ek)) and of the ciphertext, the shared key, and the implicit-rejection key
//! for a ciphertext with one bit flipped. Seeds: NIST ACVP ML-KEM keyGen tcId 1
//! for ML-KEM-512 (`firmware/testdata/make-ml-kem-vectors.py`) and FIPS203
//! tcId 26 for ML-KEM-768 (`make-pq-vectors.py`).

use core::hint::black_box;

use hex_literal::hex;
use ml_kem::array::Array;
use ml_kem::{Decapsulate, KeyExport, Seed};
use sha3::{Digest, Sha3_256};

use crate::bench::{Bench, Failure, expect};
use crate::probe::Probe;

/// One parameter set's known answers.
struct Vectors {
    d: [u8; 32],
    z: [u8; 32],
    ek_sha3: [u8; 32],
    ct_sha3: [u8; 32],
    shared: [u8; 32],
    /// The key decapsulation gives for the ciphertext with byte 100 xor 0x04.
    rejected: [u8; 32],
}

#[cfg(feature = "ml-kem-512")]
const ML_KEM_512: Vectors = Vectors {
    d: hex!("AD31001CB9E56CD1A2010121D5F9F050E85E2F4BF92B37C7EA117345276C5308"),
    z: hex!("7ACDF8737D9EADDFED0B7049D6559D30BDF8DDB56B5084A6A47EBA66C55ADC13"),
    ek_sha3: hex!("c0e0373ea2bcc3d1ecc88978d080dae5d7ceeab716a8233463080ff3b33525a2"),
    ct_sha3: hex!("9b9cc61cf252f7f56dae88981cdcbc74915f73193422bc0fdbcaa73de97559b6"),
    shared: hex!("3f6722ac6a2cd08d312c301a979ca29e89b6b006392e17f90a354edb5d503d9a"),
    rejected: hex!("84b51002e261735d4669f59a1e92ae9742128c0171500f3fefd44dde8058c24a"),
};

#[cfg(feature = "ml-kem-768")]
const ML_KEM_768: Vectors = Vectors {
    d: hex!("E34A701C4C87582F42264EE422D3C684D97611F2523EFE0C998AF05056D693DC"),
    z: hex!("A85768F3486BD32A01BF9A8F21EA938E648EAE4E5448C34C3EB88820B159EEDD"),
    ek_sha3: hex!("e29020839d052fa372585627f8b59ee312ae414c979d825f06a6929a79625718"),
    ct_sha3: hex!("1df082ccb94fcf24538c350ee2b4e1363dc45054bd691674726cb92c9ecda463"),
    shared: hex!("3e90d7d7aa86b4428c227966abbf5ed6a3d82f3dd0b8b35e0fa799ce83d97590"),
    rejected: hex!("fa2c44d2d0411063e88eeab0bcfad1638acca3a1964df28b2b2056253bef9aa1"),
};

/// The bench for one parameter set. A macro, not a generic: `ml-kem` keeps
/// the bound its key types need private.
macro_rules! ml_kem_bench {
    ($name:ident, $params:ty, $vectors:expr) => {
        pub fn $name<P: Probe>(b: &mut Bench<P>, id: &str) {
            type DecapsulationKey = ml_kem::DecapsulationKey<$params>;
            type EncapsulationKey = ml_kem::EncapsulationKey<$params>;
            let v = &$vectors;
            b.algorithm(id);
            let mut seed = Seed::default();
            seed[..32].copy_from_slice(&v.d);
            seed[32..].copy_from_slice(&v.z);
            let m = Array::from(core::array::from_fn::<u8, 32, _>(|i| i as u8));

            let ek_len = <ml_kem::Key<EncapsulationKey>>::default().len();
            let ct_len = <ml_kem::Ciphertext<$params>>::default().len();
            let (dk, ek_bytes) = b.op("keygen", ek_len, || {
                let dk = DecapsulationKey::from_seed(black_box(seed));
                let ek = dk.encapsulation_key().to_bytes();
                (dk, ek)
            });
            let encapsulated = b.op("encapsulate", ct_len, || {
                EncapsulationKey::new(black_box(&ek_bytes))
                    .map(|ek| ek.encapsulate_deterministic(&m))
            });
            let Ok((ct, shared)) = encapsulated else {
                b.kat(
                    id,
                    Err(Failure::Step("the encapsulation key did not decode")),
                );
                return;
            };
            let back = b.op("decapsulate", ct_len, || dk.decapsulate(black_box(&ct)));
            let result = expect("encapsulation key", &Sha3_256::digest(ek_bytes), &v.ek_sha3)
                .and_then(|()| expect("ciphertext", &Sha3_256::digest(ct.as_slice()), &v.ct_sha3))
                .and_then(|()| expect("shared key", &shared, &v.shared))
                .and_then(|()| expect("decapsulated key", &back, &v.shared))
                .and_then(|()| {
                    let mut bad = ct;
                    bad[100] ^= 0x04;
                    expect("implicit rejection", &dk.decapsulate(&bad), &v.rejected)
                });
            b.kat(id, result);
        }
    };
}

#[cfg(feature = "ml-kem-512")]
ml_kem_bench!(bench_512, ml_kem::MlKem512, ML_KEM_512);
#[cfg(feature = "ml-kem-768")]
ml_kem_bench!(bench_768, ml_kem::MlKem768, ML_KEM_768);
