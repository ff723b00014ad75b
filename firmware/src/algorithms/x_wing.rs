//! X-Wing (draft-connolly-cfrg-xwing-kem-06: ML-KEM-768 + X25519, SHA3-256
//! combiner) with RustCrypto's `x-wing`: key generation from the 32-byte seed
//! (expanded, and the 1,216-byte encapsulation key encoded), encapsulation
//! with the draft's 64-byte eseed against the received key, decapsulation of
//! the 1,120-byte ciphertext. The crate keeps only the seed and expands it
//! again in every decapsulation (an ML-KEM-768 key generation and an X25519
//! base-point multiplication): that is part of what decapsulation costs here.
//!
//! Known answers: the draft's first test vector (SHA3-256 of the public key
//! and ciphertext, the shared secret; `firmware/testdata/make-pq-vectors.py`).

use core::hint::black_box;

use hex_literal::hex;
use sha3::{Digest, Sha3_256};
use x_wing::{Decapsulate, KeyExport};

use crate::bench::{Bench, Failure, expect};
use crate::probe::Probe;

const SEED: [u8; 32] = hex!("7f9c2ba4e88f827d616045507605853ed73b8093f6efbc88eb1a6eacfa66ef26");
const ESEED: [u8; 64] = hex!(
    "3cb1eea988004b93103cfb0aeefd2a686e01fa4a58e8a3639ca8a1e3f9ae57e2"
    "35b8cc873c23dc62b8d260169afa2f75ab916a58d974918835d25e6a435085b2"
);
const PK_SHA3: [u8; 32] = hex!("5121745904643ad9dfacca7869292c19a8a69533b53e60666b7db910b4ad6367");
const CT_SHA3: [u8; 32] = hex!("c0abd149f83f45324ac3a7ddc7606c71f257e5ea86113522834a0ee1bcb34e3e");
const SS: [u8; 32] = hex!("d2df0522128f09dd8e2c92b1e905c793d8f57a54c3da25861f10bf4ca613e384");

pub fn bench<P: Probe>(b: &mut Bench<P>, id: &str) {
    use x_wing::kem::Decapsulator;
    b.algorithm(id);
    let (dk, pk) = b.op("keygen", x_wing::ENCAPSULATION_KEY_SIZE, || {
        let dk = x_wing::DecapsulationKey::from(black_box(SEED));
        let pk = dk.encapsulation_key().to_bytes();
        (dk, pk)
    });
    let eseed = ml_kem::array::Array::from(ESEED);
    let encapsulated = b.op("encapsulate", x_wing::CIPHERTEXT_SIZE, || {
        x_wing::EncapsulationKey::try_from(black_box(pk.as_slice()))
            .map(|ek| ek.encapsulate_deterministic(&eseed))
    });
    let Ok((ct, ss)) = encapsulated else {
        b.kat(
            id,
            Err(Failure::Step("the encapsulation key did not decode")),
        );
        return;
    };
    let back = b.op("decapsulate", x_wing::CIPHERTEXT_SIZE, || {
        dk.decapsulate(black_box(&ct))
    });
    let result = expect("public key", &Sha3_256::digest(pk.as_slice()), &PK_SHA3)
        .and_then(|()| expect("ciphertext", &Sha3_256::digest(ct.as_slice()), &CT_SHA3))
        .and_then(|()| expect("shared secret", &ss, &SS))
        .and_then(|()| expect("decapsulated secret", &back, &SS));
    b.kat(id, result);
}
