//! Every algorithm the firmware can carry; exactly one is enabled per build
//! (host tests enable them all). Each entry names its official vector source.
#![allow(unused_imports)]

use hex_literal::hex;

use crate::bench::Bench;
use crate::probe::Probe;
use crate::sizes::SIZES;

pub mod aead;
#[cfg(any(rsa, feature = "edhoc-m3-s2"))]
pub mod bignum;
pub mod block;
#[cfg(all(
    feature = "impl-ciphermeter",
    any(feature = "x25519", feature = "ed25519")
))]
pub mod curve25519;
#[cfg(eax_bytewise)]
pub mod eax_bytewise;
#[cfg(feature = "edhoc-m3-s2")]
pub mod edhoc;
pub mod hash;
pub mod identity;
pub mod implementation;
#[cfg(message_path)]
pub mod message;
#[cfg(any(feature = "ml-dsa-44", feature = "ml-dsa-65"))]
pub mod ml_dsa;
#[cfg(any(feature = "ml-kem-512", feature = "ml-kem-768"))]
pub mod ml_kem;
#[cfg(feature = "impl-p256-cortex-m4")]
pub mod p256_cortex_m4;
#[cfg(feature = "edhoc-m3-s2")]
pub mod p256_words;
#[cfg(public_key)]
pub mod public_key;
#[cfg(rsa)]
pub mod rsa;
#[cfg(rsa)]
mod rsa_vectors;
#[cfg(feature = "impl-salty")]
pub mod salty;
#[cfg(seal_path)]
pub mod sealing;
pub mod stream;
pub mod vectors;
#[cfg(feature = "x-wing")]
pub mod x_wing;

#[allow(unused_imports)]
use crate::clib;
use aead::AeadKat;
use block::CipherKat;
use implementation::pick;
use vectors::*;

/// Key material for the timed runs (fixed, like study 003's key array).
pub const BENCH_KEY: [u8; 64] = hex!(
    "e2b3c8a1f04d9e7c6b5a4938271605f4e3d2c1b0a9f8e7d6c5b4a39281706f5e"
    "4d3c2b1a09f8e7d6c5b4a3928170f6e5d4c3b2a1908f7e6d5c4b3a2918070605"
);

pub fn run<P: Probe>(b: &mut Bench<P>, data: &mut [u8], out: &mut [u8]) {
    let k16 = &BENCH_KEY[..16];
    let k32 = &BENCH_KEY[..32];
    let _ = (&b, &k16, &k32, &data, &out);
    #[cfg(feature = "identity")]
    identity::run(b, data, out, SIZES);

    #[cfg(feature = "aes-128-ecb")]
    block::ecb::<
        pick!(rustcrypto: aes::Aes128, ciphermeter: primitives::Aes128, mbedtls: clib::mbedtls::Aes128),
        P,
    >(b, "aes-128-ecb", &AES128_ECB, k16, data, SIZES);
    #[cfg(feature = "aes-256-ecb")]
    block::ecb::<
        pick!(rustcrypto: aes::Aes256, ciphermeter: primitives::Aes256, mbedtls: clib::mbedtls::Aes256),
        P,
    >(b, "aes-256-ecb", &AES256_ECB, k32, data, SIZES);
    #[cfg(feature = "aes-128-cbc")]
    block::cbc::<aes::Aes128, P>(b, "aes-128-cbc", &AES128_CBC, k16, data, SIZES);
    #[cfg(feature = "aes-256-cbc")]
    block::cbc::<aes::Aes256, P>(b, "aes-256-cbc", &AES256_CBC, k32, data, SIZES);
    #[cfg(feature = "aes-128-ctr")]
    block::ctr::<
        pick!(rustcrypto: aes::Aes128, ciphermeter: primitives::Aes128, mbedtls: clib::mbedtls::Aes128),
        pick!(rustcrypto: block::BytewiseCtr, ciphermeter: block::BytewiseCtr, mbedtls: clib::mbedtls::Ctr),
        P,
    >(b, "aes-128-ctr", &AES128_CTR, k16, data, SIZES);
    #[cfg(feature = "aes-256-ctr")]
    block::ctr::<
        pick!(rustcrypto: aes::Aes256, ciphermeter: primitives::Aes256, mbedtls: clib::mbedtls::Aes256),
        pick!(rustcrypto: block::BytewiseCtr, ciphermeter: block::BytewiseCtr, mbedtls: clib::mbedtls::Ctr),
        P,
    >(b, "aes-256-ctr", &AES256_CTR, k32, data, SIZES);
    #[cfg(feature = "aes-128-ctr-crate")]
    block::ctr::<aes::Aes128, block::CrateCtr, P>(
        b,
        "aes-128-ctr-crate",
        &AES128_CTR,
        k16,
        data,
        SIZES,
    );
    #[cfg(feature = "aes-256-ctr-crate")]
    block::ctr::<aes::Aes256, block::CrateCtr, P>(
        b,
        "aes-256-ctr-crate",
        &AES256_CTR,
        k32,
        data,
        SIZES,
    );

    #[cfg(feature = "aes-128-gcm")]
    {
        type Gcm = pick!(
            rustcrypto: aes_gcm::Aes128Gcm,
            ciphermeter: primitives::Aes128Gcm,
            mbedtls: clib::mbedtls::Aes128Gcm,
        );
        type Block = pick!(
            rustcrypto: aes_gcm::aes::Aes128,
            ciphermeter: primitives::Aes128,
            mbedtls: clib::mbedtls::Aes128,
        );
        let kat = aead::kat::<Gcm>(&AES128_GCM, data);
        let kat = aead::diagnose_gcm::<Block>(&AES128_GCM, kat);
        aead::bench::<Gcm, P>(b, "aes-128-gcm", kat, k16, data, SIZES);
    }
    #[cfg(feature = "aes-256-gcm")]
    {
        type Gcm = pick!(
            rustcrypto: aes_gcm::Aes256Gcm,
            ciphermeter: primitives::Aes256Gcm,
            mbedtls: clib::mbedtls::Aes256Gcm,
        );
        type Block = pick!(
            rustcrypto: aes_gcm::aes::Aes256,
            ciphermeter: primitives::Aes256,
            mbedtls: clib::mbedtls::Aes256,
        );
        let kat = aead::kat::<Gcm>(&AES256_GCM, data);
        let kat = aead::diagnose_gcm::<Block>(&AES256_GCM, kat);
        aead::bench::<Gcm, P>(b, "aes-256-gcm", kat, k32, data, SIZES);
    }
    // EAX over the byte-wise counter (eax_bytewise.rs); `-crate` below is the `eax` crate.
    #[cfg(feature = "aes-128-eax")]
    aead::bench::<eax_bytewise::Eax<aes::Aes128>, P>(
        b,
        "aes-128-eax",
        aead::kat::<eax_bytewise::Eax<aes::Aes128>>(&AES128_EAX, data).and_then(|()| {
            aead::counter_carry(aead::kat::<eax_bytewise::Eax<aes::Aes128>>(
                &AES128_EAX_CARRY,
                data,
            ))
        }),
        k16,
        data,
        SIZES,
    );
    #[cfg(feature = "aes-128-eax-crate")]
    aead::bench::<::eax::Eax<aes::Aes128>, P>(
        b,
        "aes-128-eax-crate",
        aead::kat::<::eax::Eax<aes::Aes128>>(&AES128_EAX, data).and_then(|()| {
            aead::counter_carry(aead::kat::<::eax::Eax<aes::Aes128>>(
                &AES128_EAX_CARRY,
                data,
            ))
        }),
        k16,
        data,
        SIZES,
    );
    // EAX over the byte-wise counter (eax_bytewise.rs); `-crate` below is the `eax` crate.
    #[cfg(feature = "aes-256-eax")]
    aead::bench::<eax_bytewise::Eax<aes::Aes256>, P>(
        b,
        "aes-256-eax",
        aead::kat::<eax_bytewise::Eax<aes::Aes256>>(&AES256_EAX, data).and_then(|()| {
            aead::counter_carry(aead::kat::<eax_bytewise::Eax<aes::Aes256>>(
                &AES256_EAX_CARRY,
                data,
            ))
        }),
        k32,
        data,
        SIZES,
    );
    #[cfg(feature = "aes-256-eax-crate")]
    aead::bench::<::eax::Eax<aes::Aes256>, P>(
        b,
        "aes-256-eax-crate",
        aead::kat::<::eax::Eax<aes::Aes256>>(&AES256_EAX, data).and_then(|()| {
            aead::counter_carry(aead::kat::<::eax::Eax<aes::Aes256>>(
                &AES256_EAX_CARRY,
                data,
            ))
        }),
        k32,
        data,
        SIZES,
    );
    #[cfg(feature = "aes-128-ccm")]
    {
        // Official vector with its 4-byte tag; timed with the host catalogue's 16-byte tag.
        use ccm::consts::{U4, U7, U13, U16};
        type Kat = pick!(
            rustcrypto: ccm::Ccm<aes::Aes128, U4, U7>,
            ciphermeter: ccm::Ccm<primitives::Aes128, U4, U7>,
            mbedtls: clib::mbedtls::Ccm<cipher::consts::U16, U4, U7>,
        );
        type Timed = pick!(
            rustcrypto: ccm::Ccm<aes::Aes128, U16, U13>,
            ciphermeter: ccm::Ccm<primitives::Aes128, U16, U13>,
            mbedtls: clib::mbedtls::Ccm<cipher::consts::U16, U16, U13>,
        );
        let kat = aead::kat::<Kat>(&AES128_CCM, data);
        aead::bench::<Timed, P>(b, "aes-128-ccm", kat, k16, data, SIZES);
    }
    #[cfg(feature = "aes-256-ccm")]
    {
        use ccm::consts::{U4, U7, U13, U16};
        type Kat = pick!(
            rustcrypto: ccm::Ccm<aes::Aes256, U4, U7>,
            ciphermeter: ccm::Ccm<primitives::Aes256, U4, U7>,
            mbedtls: clib::mbedtls::Ccm<cipher::consts::U32, U4, U7>,
        );
        type Timed = pick!(
            rustcrypto: ccm::Ccm<aes::Aes256, U16, U13>,
            ciphermeter: ccm::Ccm<primitives::Aes256, U16, U13>,
            mbedtls: clib::mbedtls::Ccm<cipher::consts::U32, U16, U13>,
        );
        let kat = aead::kat::<Kat>(&AES256_CCM, data);
        aead::bench::<Timed, P>(b, "aes-256-ccm", kat, k32, data, SIZES);
    }
    #[cfg(feature = "chacha20-poly1305")]
    aead::bench::<
        pick!(rustcrypto: chacha20poly1305::ChaCha20Poly1305, ciphermeter: primitives::ChaCha20Poly1305, mbedtls: clib::mbedtls::ChaCha20Poly1305, monocypher: clib::monocypher::ChaCha20Poly1305),
        P,
    >(
        b,
        "chacha20-poly1305",
        aead::kat::<
            pick!(rustcrypto: chacha20poly1305::ChaCha20Poly1305, ciphermeter: primitives::ChaCha20Poly1305, mbedtls: clib::mbedtls::ChaCha20Poly1305, monocypher: clib::monocypher::ChaCha20Poly1305),
        >(&CHACHA20_POLY1305, data),
        k32,
        data,
        SIZES,
    );
    #[cfg(feature = "ascon-aead128")]
    aead::bench::<
        pick!(rustcrypto: ascon_aead::AsconAead128, ciphermeter: primitives::AsconAead128),
        P,
    >(
        b,
        "ascon-aead128",
        aead::kat::<
            pick!(rustcrypto: ascon_aead::AsconAead128, ciphermeter: primitives::AsconAead128),
        >(&ASCON_AEAD128, data),
        k16,
        data,
        SIZES,
    );
    #[cfg(feature = "acorn-128")]
    aead::bench::<primitives::Acorn128, P>(
        b,
        "acorn-128",
        aead::kat::<primitives::Acorn128>(&ACORN128, data)
            .and_then(|()| aead::kat::<primitives::Acorn128>(&ACORN128_WORDS, data)),
        k16,
        data,
        SIZES,
    );
    #[cfg(feature = "acorn-128-wide")]
    aead::bench::<primitives::Acorn128Wide, P>(
        b,
        "acorn-128-wide",
        aead::kat::<primitives::Acorn128Wide>(&ACORN128, data)
            .and_then(|()| aead::kat::<primitives::Acorn128Wide>(&ACORN128_WORDS, data)),
        k16,
        data,
        SIZES,
    );

    #[cfg(feature = "sha256")]
    hash::hash::<pick!(rustcrypto: sha2::Sha256, mbedtls: clib::mbedtls::Sha256), P>(
        b,
        "sha256",
        b"abc",
        &SHA256_ABC,
        data,
        SIZES,
    );
    #[cfg(feature = "sha512")]
    hash::hash::<
        pick!(rustcrypto: sha2::Sha512, mbedtls: clib::mbedtls::Sha512, monocypher: clib::monocypher::Sha512),
        P,
    >(b, "sha512", b"abc", &SHA512_ABC, data, SIZES);
    #[cfg(feature = "sha3-256")]
    hash::hash::<pick!(rustcrypto: sha3::Sha3_256, ciphermeter: primitives::Sha3_256), P>(
        b,
        "sha3-256",
        b"abc",
        &SHA3_256_ABC,
        data,
        SIZES,
    );
    #[cfg(feature = "sha3-512")]
    hash::hash::<pick!(rustcrypto: sha3::Sha3_512, ciphermeter: primitives::Sha3_512), P>(
        b,
        "sha3-512",
        b"abc",
        &SHA3_512_ABC,
        data,
        SIZES,
    );
    #[cfg(feature = "hmac-sha256")]
    hash::hmac::<pick!(rustcrypto: hmac::Hmac<sha2::Sha256>, mbedtls: clib::mbedtls::HmacSha256), P>(
        b,
        "hmac-sha256",
        HMAC_SHA256,
        k32,
        data,
        SIZES,
    );
    #[cfg(feature = "hmac-sha512")]
    hash::hmac::<
        pick!(rustcrypto: hmac::Hmac<sha2::Sha512>, mbedtls: clib::mbedtls::HmacSha512, monocypher: clib::monocypher::HmacSha512),
        P,
    >(b, "hmac-sha512", HMAC_SHA512, &BENCH_KEY, data, SIZES);
    #[cfg(feature = "hmac-sha3-256")]
    hash::hmac::<
        pick!(rustcrypto: hmac::SimpleHmac<sha3::Sha3_256>, ciphermeter: hmac::SimpleHmac<primitives::Sha3_256>),
        P,
    >(b, "hmac-sha3-256", HMAC_SHA3_256, k32, data, SIZES);
    #[cfg(feature = "hmac-sha3-512")]
    hash::hmac::<
        pick!(rustcrypto: hmac::SimpleHmac<sha3::Sha3_512>, ciphermeter: hmac::SimpleHmac<primitives::Sha3_512>),
        P,
    >(b, "hmac-sha3-512", HMAC_SHA3_512, &BENCH_KEY, data, SIZES);

    #[cfg(feature = "speck64-128-ecb")]
    block::ecb::<speck_cipher::Speck64_128, P>(
        b,
        "speck64-128-ecb",
        &SPECK64_128,
        k16,
        data,
        SIZES,
    );
    #[cfg(feature = "speck128-128-ecb")]
    block::ecb::<speck_cipher::Speck128_128, P>(
        b,
        "speck128-128-ecb",
        &SPECK128_128,
        k16,
        data,
        SIZES,
    );
    #[cfg(feature = "xtea-ecb")]
    block::ecb::<xtea::Xtea, P>(b, "xtea-ecb", &XTEA, k16, data, SIZES);
    #[cfg(feature = "present-80-ecb")]
    block::ecb::<primitives::Present80, P>(
        b,
        "present-80-ecb",
        &PRESENT80,
        &BENCH_KEY[..10],
        data,
        SIZES,
    );
    #[cfg(feature = "clefia-128-ecb")]
    block::ecb::<primitives::Clefia128, P>(b, "clefia-128-ecb", &CLEFIA128, k16, data, SIZES);
    #[cfg(feature = "piccolo-80-ecb")]
    block::ecb::<primitives::Piccolo80, P>(
        b,
        "piccolo-80-ecb",
        &PICCOLO80,
        &BENCH_KEY[..10],
        data,
        SIZES,
    );

    // Study 004's algorithms.
    #[cfg(feature = "des-ecb")]
    block::ecb::<des::Des, P>(b, "des-ecb", &DES, &BENCH_KEY[..8], data, SIZES);
    #[cfg(feature = "idea-ecb")]
    block::ecb::<idea::Idea, P>(b, "idea-ecb", &IDEA, k16, data, SIZES);
    #[cfg(feature = "salsa20")]
    stream::stream::<salsa20::Salsa20, P>(b, "salsa20", &SALSA20, k32, data, SIZES);
    #[cfg(feature = "xchacha20")]
    stream::stream::<chacha20::XChaCha20, P>(b, "xchacha20", &XCHACHA20, k32, data, SIZES);
    #[cfg(feature = "sha1")]
    hash::hash::<sha1::Sha1, P>(b, "sha1", SHA1_MSG, &SHA1_DIGEST, data, SIZES);
    #[cfg(feature = "md5")]
    hash::hash::<md5::Md5, P>(b, "md5", MD5_MSG, &MD5_DIGEST, data, SIZES);
    // RSA measures one exponentiation per operation, whatever the sizes.
    #[cfg(feature = "rsa-1024")]
    rsa::bench::<{ rsa::N1024 }, { rsa::H1024 }, P>(b, "rsa-1024", &rsa_vectors::RSA1024);
    #[cfg(feature = "rsa-2048")]
    rsa::bench::<{ rsa::N2048 }, { rsa::H2048 }, P>(b, "rsa-2048", &rsa_vectors::RSA2048);
    #[cfg(feature = "edhoc-m3-s2")]
    edhoc::bench::<
        pick!(rustcrypto: edhoc::RustCryptoCurve, p256_cortex_m4: p256_cortex_m4::EdhocCurve),
        P,
    >(b, "edhoc-m3-s2");
    #[cfg(feature = "ml-kem-512")]
    ml_kem::bench_512(b, "ml-kem-512");
    #[cfg(feature = "ml-kem-768")]
    ml_kem::bench_768(b, "ml-kem-768");
    #[cfg(feature = "ml-dsa-44")]
    ml_dsa::bench_44(b, "ml-dsa-44");
    #[cfg(feature = "ml-dsa-65")]
    ml_dsa::bench_65(b, "ml-dsa-65");
    #[cfg(feature = "x-wing")]
    x_wing::bench(b, "x-wing");

    // Elliptic curves from the C libraries (public_key.rs).
    #[cfg(feature = "x25519")]
    public_key::agreement::<
        pick!(
            rustcrypto: Missing,
            ciphermeter: curve25519::X25519,
            monocypher: clib::monocypher::X25519,
            salty: salty::X25519
        ),
        P,
    >(b, "x25519", &public_key::X25519);
    #[cfg(feature = "ed25519")]
    public_key::signature::<
        pick!(
            rustcrypto: Missing,
            ciphermeter: curve25519::Ed25519,
            monocypher: clib::monocypher::Ed25519,
            salty: salty::Ed25519
        ),
        P,
    >(b, "ed25519", &public_key::ED25519);
    #[cfg(feature = "p256-ecdh")]
    public_key::agreement::<
        pick!(rustcrypto: Missing, mbedtls: clib::mbedtls::P256Ecdh, p256_cortex_m4: p256_cortex_m4::P256Ecdh),
        P,
    >(b, "p256-ecdh", &public_key::P256_ECDH);
    #[cfg(feature = "p256-ecdsa")]
    public_key::signature::<
        pick!(rustcrypto: Missing, mbedtls: clib::mbedtls::P256Ecdsa, p256_cortex_m4: p256_cortex_m4::P256Ecdsa),
        P,
    >(b, "p256-ecdsa", &public_key::P256_ECDSA);

    #[cfg(message_path)]
    message::run(b, data, out);
    #[cfg(seal_path)]
    sealing::run(b, data, out);
}
