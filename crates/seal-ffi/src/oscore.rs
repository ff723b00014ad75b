//! OSCORE (RFC 8613) for C: a security context derived once into the
//! caller's `cm_oscore_context`, and a reading protected as the gateway
//! reads it (`seal::oscore::reading::seal_reading`, the code the host's
//! `protect_reading` and the firmware run). Sequence numbers are the
//! caller's, reserved with `cm_counter_reserve` like counter nonces, so a
//! restart never reuses one.

use core::ffi::{CStr, c_char};
use core::mem::{align_of, size_of};

use seal::Error;
use seal::oscore::reading::{DEFAULT_URI_PATH, max_len, seal_reading};
use seal::oscore::{Alg, Context, Inputs, OscoreError};
use seal::oscore_build::PREFIX;

use crate::context_file::{self, FORMAT};
use crate::{
    CM_ERR_ARGUMENT, CM_ERR_BUFFER, CM_ERR_KEY, CM_ERR_KEY_FILE, CM_ERR_NONCE, CM_ERR_SCHEME,
    CM_OK, bytes, code,
};

/// Bytes a derived context may take in any build (its two keyed AEADs and
/// the ids: at most 2,960 on x86-64, whose AES keeps both its AES-NI and its
/// software key schedules, with every family and backend in); a literal so
/// that cbindgen can write it, checked against the core's below, so a build
/// where it does not fit fails.
pub const CM_OSCORE_CONTEXT_LEN: usize = 3072;

/// `state` of a derived context; any other value is none.
const READY: u32 = 0x05C0_2E00;

const _: () = assert!(size_of::<Context>() <= CM_OSCORE_CONTEXT_LEN);
const _: () = assert!(align_of::<Context>() <= align_of::<cm_oscore_context>());

/// An OSCORE security context: the keys of both directions, the common IV
/// and the ids. Filled by `cm_oscore_context_init` or
/// `cm_oscore_context_from_file`; `cm_oscore_context_wipe` erases it. Start
/// from a zeroed struct; copying it whole (alignment kept) is fine.
#[repr(C, align(16))]
pub struct cm_oscore_context {
    pub opaque: [u8; CM_OSCORE_CONTEXT_LEN],
    pub state: u32,
}

impl cm_oscore_context {
    fn get(&self) -> Option<&Context> {
        // SAFETY: `opaque` holds a Context, aligned (checked above), once
        // `state` says so; only `install` sets it.
        (self.state == READY).then(|| unsafe { &*(self.opaque.as_ptr() as *const Context) })
    }

    pub(crate) fn install(&mut self, ctx: Context) {
        self.wipe();
        // SAFETY: room and alignment checked above; the old one was dropped.
        unsafe { core::ptr::write(self.opaque.as_mut_ptr() as *mut Context, ctx) };
        self.state = READY;
    }

    fn wipe(&mut self) {
        if self.state == READY {
            // SAFETY: a Context lives there (`get`); dropping it wipes its keys.
            unsafe { core::ptr::drop_in_place(self.opaque.as_mut_ptr() as *mut Context) };
        }
        for b in self.opaque.iter_mut() {
            // SAFETY: a valid byte; volatile, so the erasure is not optimized away.
            unsafe { core::ptr::write_volatile(b, 0) };
        }
        self.state = 0;
    }
}

/// The algorithm of `oscore:ALG`, named as keygen and recommend name it.
fn alg(scheme: &str) -> Result<Alg, i32> {
    scheme
        .strip_prefix(PREFIX)
        .and_then(Alg::from_name)
        .ok_or(CM_ERR_SCHEME)
}

fn derive(ctx: *mut cm_oscore_context, inputs: &Inputs<'_>) -> i32 {
    // SAFETY: the caller's promise: null or a valid struct.
    let Some(ctx) = (unsafe { ctx.as_mut() }) else {
        return CM_ERR_ARGUMENT;
    };
    match Context::derive(inputs) {
        Ok(derived) => {
            ctx.install(derived);
            CM_OK
        }
        // A device build for another OSCORE algorithm (CIPHERMETER_OSCORE).
        Err(OscoreError::Core(e @ (Error::NotBuilt | Error::NotInBackend))) => code(e),
        // Empty or overlong secret, salt or ids, or equal ids: the key material.
        Err(_) => CM_ERR_KEY,
    }
}

/// Derives a context (RFC 8613 §3.2) for `scheme` (`oscore:aes-ccm-16-64-128`,
/// OSCORE's mandatory algorithm, or another `oscore:ALG` of `keygen`) from
/// the master secret and salt, this device's sender id and its peer's
/// (the gateway's) id, and an ID context (null for none). The gateway's
/// context has the same secret and salt and the two ids swapped.
/// `CM_ERR_SCHEME` for an unknown algorithm, `CM_ERR_KEY` for an empty or
/// overlong secret, salt, id or ID context, or equal ids.
///
/// # Safety
/// `scheme` is a NUL-terminated string; each byte pointer points to its
/// length (or is null with length 0; `id_context` null means none); `ctx`
/// is a writable struct.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cm_oscore_context_init(
    ctx: *mut cm_oscore_context,
    scheme: *const c_char,
    master_secret: *const u8,
    master_secret_len: usize,
    master_salt: *const u8,
    master_salt_len: usize,
    sender_id: *const u8,
    sender_id_len: usize,
    recipient_id: *const u8,
    recipient_id_len: usize,
    id_context: *const u8,
    id_context_len: usize,
) -> i32 {
    if scheme.is_null() {
        return CM_ERR_ARGUMENT;
    }
    // SAFETY: the caller's promises.
    let name = unsafe { CStr::from_ptr(scheme) }.to_str();
    let alg = match name.map_err(|_| CM_ERR_SCHEME).and_then(alg) {
        Ok(alg) => alg,
        Err(status) => return status,
    };
    let (secret, salt, sender, recipient) = unsafe {
        (
            bytes(master_secret, master_secret_len),
            bytes(master_salt, master_salt_len),
            bytes(sender_id, sender_id_len),
            bytes(recipient_id, recipient_id_len),
        )
    };
    let (Some(secret), Some(salt), Some(sender), Some(recipient)) =
        (secret, salt, sender, recipient)
    else {
        return CM_ERR_ARGUMENT;
    };
    let id_context = match id_context.is_null() {
        true => None,
        // SAFETY: not null, so `id_context_len` readable bytes.
        false => unsafe { bytes(id_context, id_context_len) },
    };
    derive(
        ctx,
        &Inputs {
            alg,
            master_secret: secret,
            master_salt: salt,
            sender_id: sender,
            recipient_id: recipient,
            id_context,
        },
    )
}

/// Derives the context a key file holds: the bytes of `keygen --scheme
/// oscore:ALG`'s device file (`--output`; its `--peer-output` is the
/// gateway's), format `ciphermeter-oscore-context/1`. `CM_ERR_KEY_FILE` for
/// bytes that are not one (another format, a field missing, not hex, an
/// `alg` that does not match the scheme), else as `cm_oscore_context_init`.
///
/// # Safety
/// `file` points to `file_len` readable bytes; `ctx` is a writable struct.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_oscore_context_from_file(
    ctx: *mut cm_oscore_context,
    file: *const u8,
    file_len: usize,
) -> i32 {
    // SAFETY: the caller's promise.
    let Some(file) = (unsafe { bytes(file, file_len) }).filter(|_| !ctx.is_null()) else {
        return CM_ERR_ARGUMENT;
    };
    let Some(f) = core::str::from_utf8(file)
        .ok()
        .and_then(context_file::parse)
    else {
        return CM_ERR_KEY_FILE;
    };
    if f.format != Some(FORMAT) {
        return CM_ERR_KEY_FILE;
    }
    let Some(scheme) = f.scheme else {
        return CM_ERR_KEY_FILE;
    };
    let alg = match alg(scheme) {
        Ok(a) => a,
        Err(status) => return status,
    };
    if f.alg != Some(alg.cose()) {
        return CM_ERR_KEY_FILE;
    }
    let (mut secret, mut salt) = ([0u8; 64], [0u8; 64]);
    let (mut sender, mut recipient, mut id_context) = ([0u8; 8], [0u8; 8], [0u8; 32]);
    let field = |text: Option<&str>, out| text.and_then(|t| context_file::hex(t, out));
    let parts = (
        field(f.master_secret, &mut secret),
        field(f.master_salt, &mut salt),
        field(f.sender_id, &mut sender),
        field(f.recipient_id, &mut recipient),
    );
    let id_context = match f.id_context {
        None | Some(None) => Some(None),
        Some(Some(t)) => context_file::hex(t, &mut id_context).map(Some),
    };
    let status = match (parts, id_context) {
        ((Some(s), Some(salt), Some(snd), Some(rcp)), Some(id_context)) => derive(
            ctx,
            &Inputs {
                alg,
                master_secret: s,
                master_salt: salt,
                sender_id: snd,
                recipient_id: rcp,
                id_context,
            },
        ),
        _ => CM_ERR_KEY_FILE,
    };
    for b in secret.iter_mut() {
        // SAFETY: a valid byte; volatile, so the copy of the secret is erased.
        unsafe { core::ptr::write_volatile(b, 0) };
    }
    status
}

/// Protects `reading` as a non-confirmable CoAP POST to `uri_path` (null:
/// `readings`, where the gateway takes readings) with Content-Format
/// `content_format` (50 JSON, 60 CBOR, 42 bytes) under `sequence`, the
/// sender sequence number: take it from `cm_counter_reserve`, so none is
/// used twice under a context, across restarts too. These are the bytes
/// `ciphermeter seal --container oscore` writes for the same context and
/// sequence number; send each as one UDP datagram to the gateway's
/// `coap://` address. On `CM_ERR_BUFFER`, `*out_len` is the size `out` needs.
/// `CM_ERR_NONCE` once sequence numbers pass 2^40 - 1 (derive a new context),
/// `CM_ERR_ARGUMENT` for a context never derived or a path of more than 6 segments.
///
/// # Safety
/// `ctx` points to a struct (zeroed or derived); `uri_path` is null or a
/// NUL-terminated string; `reading` points to `reading_len` readable bytes,
/// `out` to `out_cap` writable ones; `out_len` is writable.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn cm_oscore_protect(
    ctx: *const cm_oscore_context,
    sequence: u64,
    uri_path: *const c_char,
    content_format: u16,
    reading: *const u8,
    reading_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> i32 {
    let run = || -> Result<usize, (i32, usize)> {
        let fail = |c| (c, 0);
        // SAFETY: the caller's promises.
        let ctx = unsafe { ctx.as_ref() }
            .and_then(cm_oscore_context::get)
            .ok_or(fail(CM_ERR_ARGUMENT))?;
        let path = match uri_path.is_null() {
            true => DEFAULT_URI_PATH,
            false => unsafe { CStr::from_ptr(uri_path) }
                .to_str()
                .map_err(|_| fail(CM_ERR_ARGUMENT))?,
        };
        let reading = unsafe { bytes(reading, reading_len) }.ok_or(fail(CM_ERR_ARGUMENT))?;
        let need = max_len(ctx, reading.len(), path);
        if out.is_null() || out_cap < need {
            return Err((CM_ERR_BUFFER, need));
        }
        // SAFETY: `out` has `out_cap` writable bytes.
        let out = unsafe { core::slice::from_raw_parts_mut(out, out_cap) };
        seal_reading(ctx, sequence, reading, path, content_format, out)
            .map(|(n, _)| n)
            .map_err(|e| fail(oscore_code(e)))
    };
    let (status, len) = match run() {
        Ok(n) => (CM_OK, n),
        Err(e) => e,
    };
    if !out_len.is_null() {
        // SAFETY: a writable size_t, when given.
        unsafe { *out_len = len };
    }
    status
}

fn oscore_code(e: OscoreError) -> i32 {
    match e {
        OscoreError::Core(core) => code(core),
        OscoreError::SequenceExhausted => CM_ERR_NONCE,
        _ => CM_ERR_ARGUMENT,
    }
}

/// Erases a context (its keys, then every byte); it is none afterwards.
///
/// # Safety
/// `ctx` is null or a struct that is zeroed or was derived.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_oscore_context_wipe(ctx: *mut cm_oscore_context) {
    // SAFETY: the caller's promise.
    if let Some(ctx) = unsafe { ctx.as_mut() } {
        ctx.wipe();
    }
}
