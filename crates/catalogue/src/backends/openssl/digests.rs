//! Hashes (`EVP_MD`) and MACs (`EVP_MAC`: HMAC over each hash, CMAC-AES).
//! A MAC is keyed once; each message re-initialises it without a key, which
//! OpenSSL answers by restoring the keyed state (HMAC's padded-key states,
//! CMAC's subkeys) instead of redoing the key setup.

use std::ffi::{CStr, CString, c_char};
use std::ptr;
use std::sync::Arc;

use openssl::error::ErrorStack;
use openssl::md::Md;
use openssl::md_ctx::MdCtx;

use super::{failure, implementation};
use crate::entry::{HashCtor, MacCtor, Ops};
use crate::error::Error;
use crate::ops::{Hasher, Mac};
use crate::registry::Builder;

/// Catalogue id and OpenSSL name of each hash.
const HASHES: [(&str, &str); 8] = [
    ("sha1", "SHA1"),
    ("sha256", "SHA256"),
    ("sha512", "SHA512"),
    ("sha3-256", "SHA3-256"),
    ("sha3-512", "SHA3-512"),
    ("md5", "MD5"),
    ("blake2s256", "BLAKE2S-256"),
    ("blake2b512", "BLAKE2B-512"),
];

pub(super) fn register(b: &mut Builder) {
    for (id, name) in HASHES {
        // A digest that cannot run once here is not offered.
        let Ok(md) = Md::fetch(None, name, None) else {
            continue;
        };
        let md = Arc::new(md);
        let mut probe = Vec::new();
        if OsslHash::new(md.clone())
            .and_then(|mut h| h.run(b"", &mut probe))
            .is_err()
        {
            continue;
        }
        b.add_impl(id, implementation(Ops::Hash(hash(md))));
        if let Some(mac) = MacAlgorithm::fetch(c"HMAC", "digest", name, 32) {
            b.add_impl(
                &format!("hmac-{id}"),
                implementation(Ops::Mac(mac_ctor(format!("hmac-{id}"), mac))),
            );
        }
    }
    for (id, cipher, key_len) in [
        ("cmac-aes-128", "AES-128-CBC", 16),
        ("cmac-aes-256", "AES-256-CBC", 32),
    ] {
        if let Some(mac) = MacAlgorithm::fetch(c"CMAC", "cipher", cipher, key_len) {
            b.add_impl(id, implementation(Ops::Mac(mac_ctor(id.to_string(), mac))));
        }
    }
}

// ---------------------------------------------------------------- hashes

struct OsslHash {
    md: Arc<Md>,
    ctx: MdCtx,
}

impl OsslHash {
    fn new(md: Arc<Md>) -> Result<OsslHash, ErrorStack> {
        Ok(OsslHash {
            md,
            ctx: MdCtx::new()?,
        })
    }

    fn run(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), ErrorStack> {
        self.ctx.digest_init(&self.md)?;
        self.ctx.digest_update(data)?;
        let start = out.len();
        out.resize(start + self.md.size(), 0);
        let n = self.ctx.digest_final(&mut out[start..])?;
        out.truncate(start + n);
        Ok(())
    }
}

impl Hasher for OsslHash {
    fn digest(&mut self, data: &[u8], out: &mut Vec<u8>) {
        // Checked to work at registration; only an allocation failure can stop it now.
        self.run(data, out)
            .expect("OpenSSL digest failed after passing its start-up check");
    }
}

fn hash(md: Arc<Md>) -> HashCtor {
    Arc::new(move || {
        let ctx = MdCtx::new().expect("OpenSSL could not allocate a digest context");
        Box::new(OsslHash {
            md: md.clone(),
            ctx,
        }) as Box<dyn Hasher>
    })
}

// ---------------------------------------------------------------- MACs

/// A fetched `EVP_MAC` and the one parameter that selects its hash or cipher.
struct MacAlgorithm {
    mac: *mut openssl_sys::EVP_MAC,
    param: CString,
    value: CString,
}

// SAFETY: a fetched EVP_MAC is immutable and reference counted; OpenSSL allows
// sharing it between threads.
unsafe impl Send for MacAlgorithm {}
unsafe impl Sync for MacAlgorithm {}

impl Drop for MacAlgorithm {
    fn drop(&mut self) {
        // SAFETY: `mac` came from EVP_MAC_fetch and is freed once.
        unsafe { openssl_sys::EVP_MAC_free(self.mac) }
    }
}

unsafe extern "C" {
    // Not bound by openssl-sys; part of libcrypto 3.
    fn OSSL_PARAM_construct_utf8_string(
        key: *const c_char,
        buf: *mut c_char,
        bsize: usize,
    ) -> openssl_sys::OSSL_PARAM;
}

impl MacAlgorithm {
    fn fetch(
        name: &CStr,
        param: &str,
        value: &str,
        probe_key_len: usize,
    ) -> Option<Arc<MacAlgorithm>> {
        // SAFETY: a plain fetch from the default library context.
        let mac =
            unsafe { openssl_sys::EVP_MAC_fetch(ptr::null_mut(), name.as_ptr(), ptr::null()) };
        if mac.is_null() {
            let _ = ErrorStack::get();
            return None;
        }
        let alg = MacAlgorithm {
            mac,
            param: CString::new(param).ok()?,
            value: CString::new(value).ok()?,
        };
        // Only offer it if it can be keyed (e.g. the hash exists for HMAC).
        MacCtx::keyed(&alg, &vec![0x0b; probe_key_len]).ok()?;
        Some(Arc::new(alg))
    }
}

/// An `EVP_MAC_CTX` holding one key.
struct MacCtx(*mut openssl_sys::EVP_MAC_CTX);

// SAFETY: the context is owned by one `Mac` at a time and never shared.
unsafe impl Send for MacCtx {}

impl Drop for MacCtx {
    fn drop(&mut self) {
        // SAFETY: the pointer came from EVP_MAC_CTX_new and is freed once.
        unsafe { openssl_sys::EVP_MAC_CTX_free(self.0) }
    }
}

fn check(ok: std::ffi::c_int) -> Result<(), ErrorStack> {
    if ok == 1 {
        Ok(())
    } else {
        Err(ErrorStack::get())
    }
}

impl MacCtx {
    /// Key setup: selects the hash or cipher and runs the key schedule.
    fn keyed(alg: &MacAlgorithm, key: &[u8]) -> Result<MacCtx, ErrorStack> {
        // SAFETY: `alg.mac` is a live EVP_MAC; the parameter array outlives
        // the init call, and its strings are NUL-terminated CStrings.
        unsafe {
            let ctx = openssl_sys::EVP_MAC_CTX_new(alg.mac);
            if ctx.is_null() {
                return Err(ErrorStack::get());
            }
            let ctx = MacCtx(ctx);
            let params = [
                OSSL_PARAM_construct_utf8_string(
                    alg.param.as_ptr(),
                    alg.value.as_ptr() as *mut c_char,
                    0,
                ),
                openssl_sys::OSSL_PARAM_construct_end(),
            ];
            check(openssl_sys::EVP_MAC_init(
                ctx.0,
                key.as_ptr(),
                key.len(),
                params.as_ptr(),
            ))?;
            Ok(ctx)
        }
    }

    /// One tag: restart from the keyed state, absorb `data`, finish.
    fn tag(&mut self, data: &[u8], out: &mut [u8; 64]) -> Result<usize, ErrorStack> {
        let mut len = 0usize;
        // SAFETY: the context is keyed; a null key asks OpenSSL to reuse it.
        // `out` has room for the largest tag (64 bytes for HMAC-SHA512).
        unsafe {
            check(openssl_sys::EVP_MAC_init(
                self.0,
                ptr::null(),
                0,
                ptr::null(),
            ))?;
            check(openssl_sys::EVP_MAC_update(
                self.0,
                data.as_ptr(),
                data.len(),
            ))?;
            check(openssl_sys::EVP_MAC_final(
                self.0,
                out.as_mut_ptr(),
                &mut len,
                out.len(),
            ))?;
        }
        Ok(len)
    }
}

struct OsslMac {
    ctx: MacCtx,
    id: Arc<str>,
}

impl Mac for OsslMac {
    fn compute(&mut self, data: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let mut tag = [0u8; 64];
        let n = self
            .ctx
            .tag(data, &mut tag)
            .map_err(|e| failure(&self.id, e))?;
        out.extend_from_slice(&tag[..n]);
        Ok(())
    }

    fn verify(&mut self, data: &[u8], expected: &[u8]) -> Result<(), Error> {
        let mut tag = [0u8; 64];
        let n = self
            .ctx
            .tag(data, &mut tag)
            .map_err(|e| failure(&self.id, e))?;
        // The length is public; the bytes are compared in constant time.
        if expected.len() == n && openssl::memcmp::eq(&tag[..n], expected) {
            Ok(())
        } else {
            Err(Error::AuthenticationFailed {
                algorithm: self.id.to_string(),
            })
        }
    }
}

fn mac_ctor(id: String, alg: Arc<MacAlgorithm>) -> MacCtor {
    let id: Arc<str> = Arc::from(id);
    Arc::new(move |key: &[u8]| {
        let ctx = MacCtx::keyed(&alg, key).map_err(|e| failure(&id, e))?;
        Ok(Box::new(OsslMac {
            ctx,
            id: id.clone(),
        }) as Box<dyn Mac>)
    })
}
