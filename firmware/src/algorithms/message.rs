//! Study 003's message path ("Tiny Security", Söderquist 2019): a temperature
//! chain reading serialized to minified JSON, secured, and wrapped in a JSON
//! envelope with base64 fields. The timed operation `seal` covers all of it,
//! as the study timed "initialize message → security tasks → finalize";
//! generating the reading is outside the timing. Exactly one scheme per build:
//! `message-none` is the no-security baseline (the reading sent as is).

use base64ct::{Base64, Encoding};
use core::hint::black_box;

use crate::bench::{Bench, Failure, expect};
use crate::probe::Probe;

/// The study's chain lengths (thermometers per reading), 66..470 bytes of JSON.
pub const CHAINS: [usize; 6] = [1, 3, 5, 10, 15, 25];
const JSON_MAX: usize = 512;
const ENVELOPE_MAX: usize = 800;

/// One reading of a temperature chain (Appendix A of the study).
pub struct Reading {
    pub time: u32,
    /// (depth in m, temperature in tenths of a degree)
    pub depths: [(u8, i16); 25],
    pub len: usize,
}

impl Reading {
    pub fn generate(len: usize, seed: u32) -> Reading {
        let mut depths = [(0u8, 0i16); 25];
        let mut x = seed;
        for (i, d) in depths.iter_mut().enumerate().take(len) {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
            *d = (i as u8, ((x >> 16) % 400) as i16 - 50);
        }
        Reading {
            time: 1_555_666_777 + seed,
            depths,
            len,
        }
    }
}

/// A bounded writer; overflow marks it failed instead of panicking.
struct Writer<'a> {
    buf: &'a mut [u8],
    at: usize,
    overflow: bool,
}

impl<'a> Writer<'a> {
    fn new(buf: &'a mut [u8]) -> Self {
        Writer {
            buf,
            at: 0,
            overflow: false,
        }
    }
    fn raw(&mut self, bytes: &[u8]) {
        match self.buf.get_mut(self.at..self.at + bytes.len()) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                self.at += bytes.len();
            }
            None => self.overflow = true,
        }
    }
    fn uint(&mut self, mut n: u32) {
        let mut d = [0u8; 10];
        let mut i = d.len();
        loop {
            i -= 1;
            d[i] = b'0' + (n % 10) as u8;
            n /= 10;
            if n == 0 {
                break;
            }
        }
        self.raw(&d[i..]);
    }
    /// Tenths as a JSON number: 125 → 12.5, -3 → -0.3, 120 → 12.
    fn tenths(&mut self, t: i16) {
        if t < 0 {
            self.raw(b"-");
        }
        let a = t.unsigned_abs() as u32;
        self.uint(a / 10);
        if !a.is_multiple_of(10) {
            self.raw(&[b'.', b'0' + (a % 10) as u8]);
        }
    }
    #[cfg_attr(feature = "message-none", allow(dead_code))]
    fn base64(&mut self, bytes: &[u8]) {
        match Base64::encode(bytes, &mut self.buf[self.at..]) {
            Ok(s) => self.at += s.len(),
            Err(_) => self.overflow = true,
        }
    }
    fn done(self) -> Option<usize> {
        if self.overflow { None } else { Some(self.at) }
    }
}

/// `{"t":…,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5},…]}`
pub fn serialize(r: &Reading, out: &mut [u8]) -> Option<usize> {
    let mut w = Writer::new(out);
    w.raw(b"{\"t\":");
    w.uint(r.time);
    w.raw(b",\"id\":\"Logger1\",\"s_t\":\"tc\",\"s_d\":[");
    for (i, &(d, t)) in r.depths[..r.len].iter().enumerate() {
        if i > 0 {
            w.raw(b",");
        }
        w.raw(b"{\"d\":");
        w.uint(d as u32);
        w.raw(b",\"t\":");
        w.tenths(t);
        w.raw(b"}");
    }
    w.raw(b"]}");
    w.done()
}

#[cfg(message_group = "none")]
mod scheme {
    pub const ID: &str = "message-none";
    pub struct Keys;
    pub fn keys(_: &[u8]) -> Option<Keys> {
        Some(Keys)
    }
    pub fn known_answer() -> Result<(), super::Failure> {
        Ok(())
    }
    /// The baseline sends the reading as is.
    pub fn seal(
        _: &Keys,
        _: usize,
        r: &super::Reading,
        _: &mut [u8],
        env: &mut [u8],
    ) -> Option<usize> {
        super::serialize(r, env)
    }
    pub fn open<'a>(_: &Keys, env: &'a mut [u8], _: &'a mut [u8]) -> Option<&'a [u8]> {
        Some(env)
    }
}

#[cfg(message_group = "aead")]
mod scheme {
    /// The enabled feature (build.rs).
    pub const ID: &str = env!("CIPHERMETER_MESSAGE_ID");

    use aead::{AeadInOut, KeyInit, Tag};
    use base64ct::{Base64, Encoding};

    use super::{Writer, serialize};
    use crate::algorithms::{aead::kat, aead::nonce_for, vectors};

    #[cfg(feature = "message-aes-128-gcm")]
    pub type A = crate::algorithms::implementation::pick!(
        rustcrypto: aes_gcm::Aes128Gcm,
        ciphermeter: primitives::Aes128Gcm,
        mbedtls: crate::clib::mbedtls::Aes128Gcm,
    );
    #[cfg(feature = "message-aes-128-gcm")]
    const KAT: &crate::algorithms::aead::AeadKat = &vectors::AES128_GCM;
    #[cfg(feature = "message-aes-256-gcm")]
    pub type A = crate::algorithms::implementation::pick!(
        rustcrypto: aes_gcm::Aes256Gcm,
        ciphermeter: primitives::Aes256Gcm,
        mbedtls: crate::clib::mbedtls::Aes256Gcm,
    );
    #[cfg(feature = "message-aes-256-gcm")]
    const KAT: &crate::algorithms::aead::AeadKat = &vectors::AES256_GCM;
    // EAX over the byte-wise counter (eax_bytewise.rs), as `aes-*-eax`.
    #[cfg(feature = "message-aes-128-eax")]
    pub type A = crate::algorithms::eax_bytewise::Eax<
        crate::algorithms::implementation::pick!(rustcrypto: aes::Aes128, ciphermeter: primitives::Aes128),
    >;
    #[cfg(feature = "message-aes-128-eax")]
    const KAT: &crate::algorithms::aead::AeadKat = &vectors::AES128_EAX;
    #[cfg(feature = "message-aes-256-eax")]
    pub type A = crate::algorithms::eax_bytewise::Eax<
        crate::algorithms::implementation::pick!(rustcrypto: aes::Aes256, ciphermeter: primitives::Aes256),
    >;
    #[cfg(feature = "message-aes-256-eax")]
    const KAT: &crate::algorithms::aead::AeadKat = &vectors::AES256_EAX;
    #[cfg(feature = "message-acorn-128")]
    pub type A = primitives::Acorn128;
    #[cfg(feature = "message-acorn-128")]
    const KAT: &crate::algorithms::aead::AeadKat = &vectors::ACORN128;
    #[cfg(feature = "message-acorn-128-wide")]
    pub type A = primitives::Acorn128Wide;
    #[cfg(feature = "message-acorn-128-wide")]
    const KAT: &crate::algorithms::aead::AeadKat = &vectors::ACORN128;

    pub type Keys = A;
    pub fn keys(key: &[u8]) -> Option<Keys> {
        A::new_from_slice(&key[..<A as aead::KeySizeUser>::key_size()]).ok()
    }
    /// EAX also gets the vector whose counter crosses a byte carry, which the
    /// `eax` crate's build gets wrong on the ATmega1284P (firmware/README.md).
    #[cfg(feature = "message-aes-128-eax")]
    const CARRY_KAT: Option<&crate::algorithms::aead::AeadKat> = Some(&vectors::AES128_EAX_CARRY);
    #[cfg(feature = "message-aes-256-eax")]
    const CARRY_KAT: Option<&crate::algorithms::aead::AeadKat> = Some(&vectors::AES256_EAX_CARRY);
    /// ACORN also gets the vector with whole words of AD and message.
    #[cfg(any(feature = "message-acorn-128", feature = "message-acorn-128-wide"))]
    const CARRY_KAT: Option<&crate::algorithms::aead::AeadKat> = Some(&vectors::ACORN128_WORDS);
    #[cfg(not(any(
        feature = "message-aes-128-eax",
        feature = "message-aes-256-eax",
        feature = "message-acorn-128",
        feature = "message-acorn-128-wide"
    )))]
    const CARRY_KAT: Option<&crate::algorithms::aead::AeadKat> = None;

    pub fn known_answer() -> Result<(), super::Failure> {
        let mut buf = [0u8; 128];
        kat::<A>(KAT, &mut buf)?;
        match CARRY_KAT {
            // counter_carry only names a block-1 fault; ACORN's vector has one block.
            Some(carry) => crate::algorithms::aead::counter_carry(kat::<A>(carry, &mut buf)),
            None => Ok(()),
        }
    }
    /// `{"iv":"…","tag":"…","data":"…"}` (Appendix B of the study).
    pub fn seal(
        c: &Keys,
        msg: usize,
        r: &super::Reading,
        json: &mut [u8],
        env: &mut [u8],
    ) -> Option<usize> {
        let n = serialize(r, json)?;
        let nonce = nonce_for::<A>(msg);
        let tag = c
            .encrypt_inout_detached(&nonce, &[], (&mut json[..n]).into())
            .ok()?;
        let mut w = Writer::new(env);
        w.raw(b"{\"iv\":\"");
        w.base64(&nonce);
        w.raw(b"\",\"tag\":\"");
        w.base64(&tag);
        w.raw(b"\",\"data\":\"");
        w.base64(&json[..n]);
        w.raw(b"\"}");
        w.done()
    }
    /// The receiver's side, for the round-trip check (message 0's nonce).
    pub fn open<'a>(c: &Keys, env: &'a mut [u8], json: &'a mut [u8]) -> Option<&'a [u8]> {
        let field = |name: &[u8]| -> Option<(usize, usize)> {
            let start = env.windows(name.len()).position(|w| w == name)? + name.len();
            let len = env[start..].iter().position(|&b| b == b'"')?;
            Some((start, start + len))
        };
        let (ts, te) = field(b"\"tag\":\"")?;
        let (ds, de) = field(b"\"data\":\"")?;
        let mut tag = Tag::<A>::default();
        Base64::decode(&env[ts..te], &mut tag).ok()?;
        let n = Base64::decode(&env[ds..de], json).ok()?.len();
        let nonce = nonce_for::<A>(0);
        c.decrypt_inout_detached(&nonce, &[], (&mut json[..n]).into(), &tag)
            .ok()?;
        Some(&json[..n])
    }
}

/// The HMAC of the HMAC and EtM groups, with its official vector (build.rs
/// sets `message_mac` from the feature's `hmac-HASH` suffix).
#[cfg(message_mac = "sha256")]
mod mac_choice {
    pub type M = crate::algorithms::implementation::pick!(
        rustcrypto: hmac::Hmac<sha2::Sha256>,
        mbedtls: crate::clib::mbedtls::HmacSha256,
    );
    pub const KAT: (&[u8], &[u8], &[u8]) = crate::algorithms::vectors::HMAC_SHA256;
}
#[cfg(message_mac = "sha512")]
mod mac_choice {
    pub type M = crate::algorithms::implementation::pick!(
        rustcrypto: hmac::Hmac<sha2::Sha512>,
        mbedtls: crate::clib::mbedtls::HmacSha512,
        monocypher: crate::clib::monocypher::HmacSha512,
    );
    pub const KAT: (&[u8], &[u8], &[u8]) = crate::algorithms::vectors::HMAC_SHA512;
}
#[cfg(message_mac = "sha3-256")]
mod mac_choice {
    pub type M = crate::algorithms::implementation::pick!(
        rustcrypto: hmac::SimpleHmac<sha3::Sha3_256>,
        ciphermeter: hmac::SimpleHmac<primitives::Sha3_256>,
    );
    pub const KAT: (&[u8], &[u8], &[u8]) = crate::algorithms::vectors::HMAC_SHA3_256;
}
#[cfg(message_mac = "sha3-512")]
mod mac_choice {
    pub type M = crate::algorithms::implementation::pick!(
        rustcrypto: hmac::SimpleHmac<sha3::Sha3_512>,
        ciphermeter: hmac::SimpleHmac<primitives::Sha3_512>,
    );
    pub const KAT: (&[u8], &[u8], &[u8]) = crate::algorithms::vectors::HMAC_SHA3_512;
}

#[cfg(message_group = "hmac")]
mod scheme {
    /// The enabled feature (build.rs).
    pub const ID: &str = env!("CIPHERMETER_MESSAGE_ID");

    use digest::{KeyInit, Mac};

    use super::{Writer, serialize};
    use crate::algorithms::{hash::mac_kat, vectors};

    use super::mac_choice::{KAT, M};

    pub type Keys = M;
    pub fn keys(key: &[u8]) -> Option<Keys> {
        <M as KeyInit>::new_from_slice(&key[..32]).ok()
    }
    pub fn known_answer() -> Result<(), super::Failure> {
        mac_kat::<M>(KAT.0, KAT.1, KAT.2)
    }
    /// `{"payload":<reading>,"hmac":"…"}`: the reading stays readable.
    pub fn seal(
        m: &Keys,
        _: usize,
        r: &super::Reading,
        json: &mut [u8],
        env: &mut [u8],
    ) -> Option<usize> {
        let n = serialize(r, json)?;
        let mut mac = m.clone();
        mac.update(&json[..n]);
        let tag = mac.finalize().into_bytes();
        let mut w = Writer::new(env);
        w.raw(b"{\"payload\":");
        w.raw(&json[..n]);
        w.raw(b",\"hmac\":\"");
        w.base64(&tag);
        w.raw(b"\"}");
        w.done()
    }
    pub fn open<'a>(m: &Keys, env: &'a mut [u8], json: &'a mut [u8]) -> Option<&'a [u8]> {
        use base64ct::{Base64, Encoding};
        let tag_at = env.windows(9).position(|w| w == b",\"hmac\":\"")?;
        let payload = &env[11..tag_at];
        let end = env[tag_at + 9..].iter().position(|&b| b == b'"')? + tag_at + 9;
        let mut tag = [0u8; 64];
        let tag = Base64::decode(&env[tag_at + 9..end], &mut tag).ok()?;
        let mut mac = m.clone();
        mac.update(payload);
        mac.verify_slice(tag).ok()?;
        json[..payload.len()].copy_from_slice(payload);
        Some(&json[..payload.len()])
    }
}

/// Encrypt-then-MAC as study 003 built it (Fig. 5, Appendix C): AES in ECB
/// mode over the PKCS#7-padded reading, then HMAC over the ciphertext, with
/// separate keys. ECB is the study's choice, kept for a faithful comparison:
/// it is deterministic and shows equal blocks, so it is not a mode to deploy.
#[cfg(message_group = "etm")]
mod scheme {
    /// The enabled feature (build.rs).
    pub const ID: &str = env!("CIPHERMETER_MESSAGE_ID");

    use base64ct::{Base64, Encoding};
    use cipher::{
        Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit, KeySizeUser, consts::U16,
    };
    use digest::Mac;

    use super::{Writer, serialize};
    use crate::algorithms::block::{CipherKat, ecb_kat};
    use crate::algorithms::{hash::mac_kat, vectors};

    #[cfg(etm_aes = "128")]
    mod cipher_choice {
        pub type C = crate::algorithms::implementation::pick!(
            rustcrypto: aes::Aes128,
            ciphermeter: primitives::Aes128,
            mbedtls: crate::clib::mbedtls::Aes128,
        );
        pub const KAT: &super::CipherKat = &super::vectors::AES128_ECB;
    }
    #[cfg(etm_aes = "256")]
    mod cipher_choice {
        pub type C = crate::algorithms::implementation::pick!(
            rustcrypto: aes::Aes256,
            ciphermeter: primitives::Aes256,
            mbedtls: crate::clib::mbedtls::Aes256,
        );
        pub const KAT: &super::CipherKat = &super::vectors::AES256_ECB;
    }
    use super::mac_choice;
    pub(super) use super::mac_choice::M;
    pub(super) use cipher_choice::C;

    const BLOCK: usize = 16;
    /// The HMAC key's place in the key material, apart from the AES key
    /// (which takes the first 16 or 32 bytes).
    const MAC_KEY: core::ops::Range<usize> = 32..64;

    pub struct Keys {
        cipher: C,
        mac: M,
    }

    pub fn keys(key: &[u8]) -> Option<Keys> {
        let cipher = <C as KeyInit>::new_from_slice(key.get(..C::key_size())?).ok()?;
        let mac = <M as KeyInit>::new_from_slice(key.get(MAC_KEY)?).ok()?;
        Some(Keys { cipher, mac })
    }

    /// Both halves against their official vectors: FIPS-197 for AES,
    /// RFC 4231 / NIST CSRC for the HMAC.
    pub fn known_answer() -> Result<(), super::Failure> {
        let mut buf = [0u8; 16];
        ecb_kat::<C>(cipher_choice::KAT, &mut buf)?;
        mac_kat::<M>(mac_choice::KAT.0, mac_choice::KAT.1, mac_choice::KAT.2)
    }

    fn blocks(buf: &mut [u8]) -> &mut [Array<u8, U16>] {
        Array::slice_as_chunks_mut(buf).0
    }

    /// PKCS#7: 1..=16 bytes, each holding the count. Returns the padded length.
    pub(super) fn pad(buf: &mut [u8], n: usize) -> Option<usize> {
        let p = BLOCK - n % BLOCK;
        buf.get_mut(n..n + p)?.fill(p as u8);
        Some(n + p)
    }

    /// The unpadded length, or None if the padding is malformed.
    pub(super) fn unpad(buf: &[u8]) -> Option<usize> {
        let p = *buf.last()? as usize;
        if p == 0 || p > BLOCK || p > buf.len() {
            return None;
        }
        let (rest, padding) = buf.split_at(buf.len() - p);
        padding
            .iter()
            .all(|&b| b as usize == p)
            .then_some(rest.len())
    }

    /// `{"data":"<AES-ECB ciphertext>","hmac":"<HMAC of the ciphertext>"}`.
    pub fn seal(
        k: &Keys,
        _: usize,
        r: &super::Reading,
        json: &mut [u8],
        env: &mut [u8],
    ) -> Option<usize> {
        let n = serialize(r, json)?;
        let n = pad(json, n)?;
        let ct = &mut json[..n];
        k.cipher.encrypt_blocks(blocks(ct));
        let mut mac = k.mac.clone();
        mac.update(ct);
        let tag = mac.finalize().into_bytes();
        let mut w = Writer::new(env);
        w.raw(b"{\"data\":\"");
        w.base64(ct);
        w.raw(b"\",\"hmac\":\"");
        w.base64(&tag);
        w.raw(b"\"}");
        w.done()
    }

    /// The bounds of a string field's value: `name` is `"key":"`.
    fn field(env: &[u8], name: &[u8]) -> Option<(usize, usize)> {
        let start = env.windows(name.len()).position(|w| w == name)? + name.len();
        let len = env[start..].iter().position(|&b| b == b'"')?;
        Some((start, start + len))
    }

    /// The receiver: the tag is checked (in constant time) before anything
    /// is decrypted, so a forged message never reaches AES or the padding.
    pub fn open<'a>(k: &Keys, env: &'a mut [u8], json: &'a mut [u8]) -> Option<&'a [u8]> {
        let (ds, de) = field(env, b"\"data\":\"")?;
        let (ts, te) = field(env, b"\"hmac\":\"")?;
        let mut tag = [0u8; 64];
        let tag = Base64::decode(&env[ts..te], &mut tag).ok()?;
        let n = Base64::decode(&env[ds..de], json).ok()?.len();
        if n == 0 || !n.is_multiple_of(BLOCK) {
            return None;
        }
        let ct = &mut json[..n];
        let mut mac = k.mac.clone();
        mac.update(ct);
        mac.verify_slice(tag).ok()?;
        k.cipher.decrypt_blocks(blocks(ct));
        let len = unpad(ct)?;
        Some(&json[..len])
    }
}

pub fn run<P: Probe>(b: &mut Bench<P>, _data: &mut [u8], _out: &mut [u8]) {
    let mut json = [0u8; JSON_MAX];
    let mut env = [0u8; ENVELOPE_MAX];
    b.algorithm(scheme::ID);
    // The official vector first: a C library's context holds one key at a
    // time (crate::clib), so the timed key must be the last one set.
    let known_answer = scheme::known_answer();
    let Some(keys) = b.op("keysetup", 0, || scheme::keys(black_box(&super::BENCH_KEY))) else {
        b.kat(scheme::ID, Err(Failure::Step("key setup")));
        return;
    };
    b.kat(
        scheme::ID,
        known_answer.and_then(|()| round_trip(&keys, &mut json, &mut env)),
    );
    for (i, &chain) in CHAINS.iter().enumerate() {
        let reading = Reading::generate(chain, i as u32);
        let Some(len) = serialize(&reading, &mut json) else {
            continue;
        };
        b.op("seal", len, || {
            scheme::seal(&keys, i, black_box(&reading), &mut json, &mut env)
        });
    }
}

/// Seal message 0 and open it again as the receiver would.
fn round_trip(keys: &scheme::Keys, json: &mut [u8], env: &mut [u8]) -> Result<(), Failure> {
    let reading = Reading::generate(CHAINS[0], 0);
    let mut expected = [0u8; JSON_MAX];
    let n = serialize(&reading, &mut expected).ok_or("serialize overflow")?;
    let len = scheme::seal(keys, 0, &reading, json, env).ok_or("seal overflow")?;
    let plain = scheme::open(keys, &mut env[..len], json).ok_or("opening the sealed message")?;
    expect("message round trip", plain, &expected[..n])
}

#[cfg(all(test, message_group = "etm"))]
mod etm_tests {
    use super::*;
    use crate::algorithms::BENCH_KEY;
    use cipher::{Array, BlockCipherDecrypt, KeyInit, KeySizeUser};
    use digest::Mac;
    use scheme::{C, M};

    const DATA: &[u8] = b"{\"data\":\"";
    const HMAC: &[u8] = b"\",\"hmac\":\"";

    fn keys() -> scheme::Keys {
        scheme::keys(&BENCH_KEY).unwrap()
    }

    /// Seals `r`; returns the envelope and where its data and tag fields lie.
    fn sealed(r: &Reading) -> ([u8; ENVELOPE_MAX], usize, (usize, usize), (usize, usize)) {
        let (mut json, mut env) = ([0u8; JSON_MAX], [0u8; ENVELOPE_MAX]);
        let len = scheme::seal(&keys(), 0, r, &mut json, &mut env).expect("seal fits");
        let e = &env[..len];
        assert!(
            e.starts_with(DATA) && e.ends_with(b"\"}"),
            "{:?}",
            e.escape_ascii()
        );
        let tag_at = e.windows(HMAC.len()).position(|w| w == HMAC).unwrap();
        (
            env,
            len,
            (DATA.len(), tag_at),
            (tag_at + HMAC.len(), len - 2),
        )
    }

    /// Decodes a base64 field into `out`; returns the byte count.
    fn decode(text: &[u8], out: &mut [u8]) -> usize {
        Base64::decode(text, out).unwrap().len()
    }

    fn expected(r: &Reading) -> ([u8; JSON_MAX], usize) {
        let mut out = [0u8; JSON_MAX];
        let n = serialize(r, &mut out).unwrap();
        (out, n)
    }

    #[test]
    fn an_untouched_envelope_opens_to_the_exact_json() {
        for (i, &chain) in CHAINS.iter().enumerate() {
            let r = Reading::generate(chain, i as u32);
            let (want, n) = expected(&r);
            let (mut env, len, _, _) = sealed(&r);
            let mut json = [0u8; JSON_MAX];
            let got = scheme::open(&keys(), &mut env[..len], &mut json);
            assert_eq!(got, Some(&want[..n]), "chain of {chain}");
        }
    }

    /// Decrypted and checked independently of `open`: AES under the first key
    /// bytes, HMAC under BENCH_KEY[32..64] over the ciphertext, PKCS#7 padding.
    #[test]
    fn the_envelope_is_aes_ecb_then_hmac_of_the_ciphertext_under_separate_keys() {
        let r = Reading::generate(CHAINS[2], 2);
        let (want, n) = expected(&r);
        let (env, _, (ds, de), (ts, te)) = sealed(&r);
        let (mut ct, mut tag) = ([0u8; JSON_MAX], [0u8; 64]);
        let (n_ct, n_tag) = (
            decode(&env[ds..de], &mut ct),
            decode(&env[ts..te], &mut tag),
        );
        let (ct, tag) = (&mut ct[..n_ct], &tag[..n_tag]);
        let mut mac = <M as KeyInit>::new_from_slice(&BENCH_KEY[32..64]).unwrap();
        mac.update(ct);
        assert!(mac.verify_slice(tag).is_ok());
        let aes = <C as KeyInit>::new_from_slice(&BENCH_KEY[..C::key_size()]).unwrap();
        aes.decrypt_blocks(Array::slice_as_chunks_mut(&mut *ct).0);
        let pad = ct.len() - n;
        assert!((1..=16).contains(&pad) && ct.len() % 16 == 0);
        assert_eq!(&ct[..n], &want[..n]);
        assert!(ct[n..].iter().all(|&b| b as usize == pad));
    }

    /// Every single flipped ciphertext byte is refused, and the refused
    /// ciphertext is never decrypted (the tag is checked first).
    #[test]
    fn a_flipped_ciphertext_byte_is_refused_before_decryption() {
        for (i, chain) in [(0u32, 1usize), (5, 25)] {
            let r = Reading::generate(chain, i);
            let (want, _) = expected(&r);
            let (env, len, (ds, de), _) = sealed(&r);
            let mut ct = [0u8; JSON_MAX];
            let n = decode(&env[ds..de], &mut ct);
            for at in 0..n {
                let mut bad = ct;
                bad[at] ^= 0x01;
                let mut forged = env;
                Base64::encode(&bad[..n], &mut forged[ds..de]).unwrap();
                let mut json = [0u8; JSON_MAX];
                assert!(
                    scheme::open(&keys(), &mut forged[..len], &mut json).is_none(),
                    "chain {chain}: flipped ciphertext byte {at} was accepted"
                );
                for block in json[..n].chunks(16).zip(want.chunks(16)) {
                    assert_ne!(block.0, block.1, "chain {chain}: byte {at} decrypted");
                }
            }
        }
    }

    #[test]
    fn a_flipped_or_missing_tag_is_refused() {
        let r = Reading::generate(CHAINS[1], 1);
        let (env, len, _, (ts, te)) = sealed(&r);
        let mut tag = [0u8; 64];
        let t = decode(&env[ts..te], &mut tag);
        let mut json = [0u8; JSON_MAX];
        for at in [0, t - 1] {
            let mut bad = tag;
            bad[at] ^= 0x80;
            let mut forged = env;
            Base64::encode(&bad[..t], &mut forged[ts..te]).unwrap();
            assert!(scheme::open(&keys(), &mut forged[..len], &mut json).is_none());
        }
        // A tag cut short (the field emptied) is refused, not compared on a prefix.
        let mut cut = [0u8; ENVELOPE_MAX];
        cut[..ts].copy_from_slice(&env[..ts]);
        cut[ts..ts + 2].copy_from_slice(b"\"}");
        assert!(scheme::open(&keys(), &mut cut[..ts + 2], &mut json).is_none());
    }

    #[test]
    fn padding_round_trips_and_malformed_padding_is_refused() {
        for n in 0..=48 {
            let mut buf = [0xaau8; 64];
            let padded = scheme::pad(&mut buf, n).unwrap();
            assert_eq!(padded % 16, 0);
            assert!(padded > n && padded <= n + 16);
            assert_eq!(scheme::unpad(&buf[..padded]), Some(n));
        }
        assert_eq!(scheme::pad(&mut [0u8; 20], 16), None, "no room for a block");
        let mut block = [16u8; 16];
        assert_eq!(scheme::unpad(&block), Some(0));
        block[15] = 0;
        assert_eq!(scheme::unpad(&block), None);
        block[15] = 17;
        assert_eq!(scheme::unpad(&block), None);
        block[15] = 3;
        block[14] = 2;
        assert_eq!(scheme::unpad(&block), None);
        assert_eq!(scheme::unpad(&[]), None);
    }

    /// The longest reading the generator can make (25 thermometers, every
    /// temperature four characters) still fits JSON_MAX padded and
    /// ENVELOPE_MAX in base64.
    #[test]
    fn the_longest_reading_fits_the_buffers() {
        let mut r = Reading::generate(25, 0);
        r.time = u32::MAX;
        for d in r.depths.iter_mut() {
            d.1 = -49;
        }
        let (want, n) = expected(&r);
        assert!(n >= 470, "{n}");
        let (mut env, len, _, _) = sealed(&r);
        let mut json = [0u8; JSON_MAX];
        let got = scheme::open(&keys(), &mut env[..len], &mut json);
        assert_eq!(got, Some(&want[..n]));
    }
}
