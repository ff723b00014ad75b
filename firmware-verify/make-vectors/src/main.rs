//! Writes vectors/lms-sha256-h10-w8.txt and vectors/slh-dsa-sha2-128{s,f}.txt
//! (run from firmware-verify/: `cargo run --manifest-path make-vectors/Cargo.toml`).
//! No standard publishes a verify vector for LMS_SHA256_M32_H10/LMOTS_SHA256_N32_W8
//! (RFC 8554's test cases are HSS trees of H5/W8 and H10/W4) nor, in a file we
//! hold, for SLH-DSA-SHA2-128s/128f; these are made deterministically on the host
//! by the crates the probe verifies with, from fixed seeds, so anyone re-running
//! this gets the same bytes. The probe then checks that the device verifies what
//! the host signed (and rejects a changed message).

use std::fmt::Write;
use std::fs;

use lms_signature::lms::{LmsSha256M32H10, SigningKey};
use lms_signature::ots::LmsOtsSha256N32W8;
use sha2::{Digest, Sha256};
use signature::RandomizedSignerMut;

/// The signed message: 32 bytes standing for an image's SHA-256, as MCUboot
/// signs the image's hash.
fn message() -> Vec<u8> {
    Sha256::digest(b"ciphermeter firmware image").to_vec()
}

fn hex(b: &[u8]) -> String {
    b.iter().fold(String::new(), |mut s, x| {
        write!(s, "{x:02x}").unwrap();
        s
    })
}

/// A fixed byte stream (SHA-256 of a counter) for LMS's randomizer C.
struct Fixed(u64);

impl rand_core::TryRng for Fixed {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(32) {
            let block = Sha256::digest(self.0.to_be_bytes());
            self.0 += 1;
            chunk.copy_from_slice(&block[..chunk.len()]);
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for Fixed {}

fn write(name: &str, header: &str, public: &[u8], msg: &[u8], sig: &[u8]) {
    let text = format!(
        "{header}public = {}\nmessage = {}\nsignature = {}\n",
        hex(public),
        hex(msg),
        hex(sig)
    );
    fs::write(format!("vectors/{name}.txt"), text).unwrap();
}

fn main() {
    let msg = message();

    type Mode = LmsSha256M32H10<LmsOtsSha256N32W8>;
    // I and SEED (RFC 8554 Appendix A's pseudorandom key generation): fixed bytes.
    let id: [u8; 16] = core::array::from_fn(|i| i as u8);
    let seed: [u8; 32] = core::array::from_fn(|i| 0x80 + i as u8);
    let mut sk = SigningKey::<Mode>::new_from_seed(id, seed).unwrap();
    let sig = sk.try_sign_with_rng(&mut Fixed(0), &msg).unwrap();
    let public = hybrid_array::Array::from(sk.public()).to_vec();
    let sig: Vec<u8> = sig.into();
    write(
        "lms-sha256-h10-w8",
        "# LMS_SHA256_M32_H10 with LMOTS_SHA256_N32_W8 (RFC 8554 §4-5; mcu-tools/mcuboot#2707).\n\
         # NOT an official vector: RFC 8554 Appendix F has no H10/W8 tree and SP 800-208 none.\n\
         # Made on the host by make-vectors/ (RustCrypto lms-signature 0.1.0-rc.2; the probe verifies with hbs-lms): I = 00..0f, SEED = 80..9f,\n\
         # leaf q = 0, C from a fixed stream (SHA-256 of a counter); message = SHA-256(\"ciphermeter firmware image\").\n",
        &public,
        &msg,
        &sig,
    );

    // FIPS 205's key from ACVP SLH-DSA-keyGen-FIPS205 tgId 1 tcId 1's seeds (RustCrypto/signatures
    // slh-dsa/tests/acvp, commit 5595c3b); signed with the deterministic variant (opt_rand = PK.seed).
    let sk_seed = [
        0x2F, 0x89, 0x6D, 0x61, 0xD9, 0xCD, 0x90, 0x38, 0xCA, 0x30, 0x33, 0x94, 0xFA, 0xDA, 0xA2,
        0x2A,
    ];
    let sk_prf = [
        0x24, 0xAC, 0x5E, 0xC1, 0xD8, 0x6A, 0x98, 0x9C, 0xA2, 0x19, 0x6C, 0x3C, 0x86, 0x32, 0x41,
        0x9C,
    ];
    let pk_seed = [
        0x1A, 0x05, 0xA4, 0x2F, 0xE3, 0x00, 0xE8, 0x7B, 0x16, 0xAE, 0xE1, 0x16, 0xCB, 0x2E, 0x23,
        0x63,
    ];
    slh::<slh_dsa::Sha2_128s>(
        "slh-dsa-sha2-128s",
        "SLH-DSA-SHA2-128s",
        &sk_seed,
        &sk_prf,
        &pk_seed,
        &msg,
    );
    slh::<slh_dsa::Sha2_128f>(
        "slh-dsa-sha2-128f",
        "SLH-DSA-SHA2-128f",
        &sk_seed,
        &sk_prf,
        &pk_seed,
        &msg,
    );
}

fn slh<P: slh_dsa::ParameterSet>(
    file: &str,
    title: &str,
    sk_seed: &[u8],
    sk_prf: &[u8],
    pk_seed: &[u8],
    msg: &[u8],
) {
    let sk = slh_dsa::SigningKey::<P>::slh_keygen_internal(sk_seed, sk_prf, pk_seed);
    let sig = sk.try_sign_with_context(msg, &[], None).unwrap();
    let public = sk.as_ref().to_bytes();
    write(
        file,
        &format!(
            "# {title} (FIPS 205 Algorithm 22/24, slh_sign/slh_verify with the empty context).\n\
             # NOT an official signature: made on the host by make-vectors/ (slh-dsa 0.2.0-rc.5) from the\n\
             # seeds of ACVP SLH-DSA-keyGen-FIPS205 tgId 1 tcId 1 (SHA2-128s's pk is that test's pk),\n\
             # deterministic (opt_rand = PK.seed); message = SHA-256(\"ciphermeter firmware image\").\n"
        ),
        &public,
        msg,
        &sig.to_bytes(),
    );
}
