//! ML-KEM-512 (FIPS 203) with RustCrypto's `ml-kem`, as a device uses it in
//! a key establishment: key generation from a 64-byte seed d‖z (and the
//! encapsulation key encoded, what the device sends), encapsulation against
//! a received encapsulation key (decoded and checked, then FIPS 203's
//! Encaps_internal with fixed randomness m), and decapsulation. Each is one
//! measured operation, recorded at the length of what it produces or takes
//! on the air: 800 bytes (the encapsulation key), 768 (the ciphertext).
//!
//! Known answers, computed apart with kyber-py (a FIPS 203 implementation
//! in Python) from the seed of NIST ACVP ML-KEM keyGen tcId 1 and m = 0..31:
//! SHA3-256 of the encapsulation key (which is also FIPS 203's H(ek)) and of
//! the ciphertext, the shared key, and the implicit-rejection key for a
//! ciphertext with one bit flipped (`firmware/testdata/make-ml-kem-vectors.py`).

use core::hint::black_box;

use hex_literal::hex;
use ml_kem::array::Array;
use ml_kem::{Decapsulate, KeyExport, MlKem512, Seed};
use sha3::{Digest, Sha3_256};

use crate::bench::{Bench, Failure, expect};
use crate::probe::Probe;

type DecapsulationKey = ml_kem::DecapsulationKey<MlKem512>;
type EncapsulationKey = ml_kem::EncapsulationKey<MlKem512>;

const D: [u8; 32] = hex!("AD31001CB9E56CD1A2010121D5F9F050E85E2F4BF92B37C7EA117345276C5308");
const Z: [u8; 32] = hex!("7ACDF8737D9EADDFED0B7049D6559D30BDF8DDB56B5084A6A47EBA66C55ADC13");
const EK_SHA3: [u8; 32] = hex!("c0e0373ea2bcc3d1ecc88978d080dae5d7ceeab716a8233463080ff3b33525a2");
const CT_SHA3: [u8; 32] = hex!("9b9cc61cf252f7f56dae88981cdcbc74915f73193422bc0fdbcaa73de97559b6");
const SHARED: [u8; 32] = hex!("3f6722ac6a2cd08d312c301a979ca29e89b6b006392e17f90a354edb5d503d9a");
/// The key decapsulation gives for the ciphertext with byte 100 xor 0x04.
const REJECTED: [u8; 32] = hex!("84b51002e261735d4669f59a1e92ae9742128c0171500f3fefd44dde8058c24a");

const EK_LEN: usize = 800;
const CT_LEN: usize = 768;

pub fn bench<P: Probe>(b: &mut Bench<P>, id: &str) {
    b.algorithm(id);
    let mut seed = Seed::default();
    seed[..32].copy_from_slice(&D);
    seed[32..].copy_from_slice(&Z);
    let m = Array::from(core::array::from_fn::<u8, 32, _>(|i| i as u8));

    let (dk, ek_bytes) = b.op("keygen", EK_LEN, || {
        let dk = DecapsulationKey::from_seed(black_box(seed));
        let ek = dk.encapsulation_key().to_bytes();
        (dk, ek)
    });
    let encapsulated = b.op("encapsulate", CT_LEN, || {
        EncapsulationKey::new(black_box(&ek_bytes)).map(|ek| ek.encapsulate_deterministic(&m))
    });
    let Ok((ct, shared)) = encapsulated else {
        b.kat(
            id,
            Err(Failure::Step("the encapsulation key did not decode")),
        );
        return;
    };
    let back = b.op("decapsulate", CT_LEN, || dk.decapsulate(black_box(&ct)));
    let result = expect("encapsulation key", &Sha3_256::digest(ek_bytes), &EK_SHA3)
        .and_then(|()| expect("ciphertext", &Sha3_256::digest(ct.as_slice()), &CT_SHA3))
        .and_then(|()| expect("shared key", &shared, &SHARED))
        .and_then(|()| expect("decapsulated key", &back, &SHARED))
        .and_then(|()| {
            let mut bad = ct;
            bad[100] ^= 0x04;
            expect("implicit rejection", &dk.decapsulate(&bad), &REJECTED)
        });
    b.kat(id, result);
}
