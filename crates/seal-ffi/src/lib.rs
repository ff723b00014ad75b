//! The sealing core for C firmware (`include/ciphermeter_seal.h`, generated
//! by cbindgen): the same code, bytes and costs `recommend` ranked, called
//! from C. Nothing allocates; every buffer is the caller's.
//!
//! - `cm_seal` seals a plaintext under a counter nonce into a container;
//!   `cm_open` opens one (for a C gateway, or a self-test).
//! - `cm_counter_resume` / `cm_counter_reserve` keep the counter in two slots
//!   of the caller's non-volatile storage, reserved a block at a time, so a
//!   restart never reuses a nonce (`seal::SlotCounter`).
//! - `cm_frame` gives the bytes that delimit a message on a serial line, as
//!   the gateway reads them; `cm_fragment_count` and `cm_fragment` cut a
//!   message longer than a radio frame (any link with frames: LoRaWAN,
//!   Sigfox, BLE, 802.15.4, LoRa, cellular; the frame is the link's
//!   `fragment_frame_bytes` in `ciphermeter link --format json`) into the
//!   fragments the gateway reassembles; `cm_scheme_sizes` a scheme's key, nonce and tag
//!   lengths; `cm_implementation` whose code seals a scheme in this build.
//!
//! - `cm_oscore_*` (feature `oscore`, a default): an OSCORE context from key
//!   material or a key file, and a reading protected as the gateway reads it.
//! - `cm_edhoc_*` (feature `edhoc`, host builds): an EDHOC initiator whose
//!   exporter gives the OSCORE context.
//!
//! Schemes are named as everywhere else (`aead:aes-128-ccm`); a scheme whose
//! algorithms are not in the build returns `CM_ERR_NOT_BUILT`.

#![no_std]
#![allow(non_camel_case_types)]

#[cfg(not(target_os = "none"))]
extern crate std;

#[cfg(feature = "oscore")]
mod context_file;
#[cfg(feature = "oscore")]
pub mod oscore;
mod sealable;

#[cfg(feature = "oscore")]
pub use oscore::*;

// crates/handshake needs std and the OS's randomness.
#[cfg(all(feature = "edhoc", target_os = "none"))]
compile_error!("the edhoc feature (cm_edhoc_*) builds for hosts only: crates/handshake needs std");
#[cfg(feature = "edhoc")]
pub mod edhoc;
#[cfg(feature = "edhoc")]
pub use edhoc::*;

use core::ffi::{CStr, c_char, c_void};

use seal::stream::Framing;
use seal::{
    Container, CounterStore, Error, RamCounter, SLOT_LEN, Sealer, SlotCounter, Slots, Spec,
};
use sealable::Refusal;

// CM_SLOT_LEN is a literal so that cbindgen can write it; it is the core's.
const _: () = assert!(CM_SLOT_LEN == SLOT_LEN);

/// Success.
pub const CM_OK: i32 = 0;
/// The scheme name is not one ciphermeter knows, or its pattern does not seal
/// (`enc` is unauthenticated).
pub const CM_ERR_SCHEME: i32 = -1;
/// The scheme's algorithms are not compiled into this library.
pub const CM_ERR_NOT_BUILT: i32 = -2;
/// Wrong key length, or an empty or overlong key id.
pub const CM_ERR_KEY: i32 = -3;
/// The scheme needs random nonces (counters are not safe for it), or the
/// counter has run out of nonce bits.
pub const CM_ERR_NONCE: i32 = -4;
/// The output buffer is too small; `*out_len` holds the size needed.
pub const CM_ERR_BUFFER: i32 = -5;
/// The message is malformed or truncated.
pub const CM_ERR_MALFORMED: i32 = -6;
/// The tag does not verify: the message was altered, or sealed under another key.
pub const CM_ERR_REJECTED: i32 = -7;
/// The message names another scheme or key id.
pub const CM_ERR_WRONG_KEY: i32 = -8;
/// A null pointer, an unknown container, or a message too long for its framing.
pub const CM_ERR_ARGUMENT: i32 = -9;
/// The storage refused to write a counter slot.
pub const CM_ERR_STORAGE: i32 = -10;
/// Not an OSCORE context file (`ciphermeter-oscore-context/1`), or one with
/// a field missing, not hex, or an `alg` that is not its scheme's.
pub const CM_ERR_KEY_FILE: i32 = -11;
/// An EDHOC step called out of order, or after the handshake ended.
pub const CM_ERR_STATE: i32 = -12;

pub const CM_CONTAINER_JSON: u8 = 0;
pub const CM_CONTAINER_BINARY: u8 = 1;
pub const CM_CONTAINER_COSE: u8 = 2;

/// Bytes of one counter slot.
pub const CM_SLOT_LEN: usize = 16;

/// Counter values reserved per slot write: a restart skips at most this many.
pub const CM_COUNTER_BLOCK: u64 = 16;

/// Two slots of non-volatile storage (EEPROM cells, flash words, files).
/// `read` fills `out` and returns true, or false for a blank or unreadable
/// slot; `write` replaces the slot whole and returns true once it is durable.
#[repr(C)]
pub struct cm_slots {
    pub ctx: *mut c_void,
    pub read: Option<extern "C" fn(ctx: *mut c_void, slot: usize, out: *mut u8) -> bool>,
    pub write: Option<extern "C" fn(ctx: *mut c_void, slot: usize, bytes: *const u8) -> bool>,
}

/// The counter between calls; fill it with `cm_counter_resume` at boot.
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct cm_counter {
    pub next: u64,
    pub reserved_end: u64,
    pub older_slot: u8,
}

struct CSlots<'s>(&'s cm_slots);

impl Slots for CSlots<'_> {
    fn read(&mut self, slot: usize) -> Option<[u8; SLOT_LEN]> {
        let mut out = [0u8; SLOT_LEN];
        let read = self.0.read?;
        read(self.0.ctx, slot, out.as_mut_ptr()).then_some(out)
    }
    fn write(&mut self, slot: usize, bytes: &[u8; SLOT_LEN]) -> bool {
        self.0
            .write
            .is_some_and(|write| write(self.0.ctx, slot, bytes.as_ptr()))
    }
}

fn code(e: Error) -> i32 {
    match e {
        Error::NotBuilt | Error::NotInBackend => CM_ERR_NOT_BUILT,
        Error::KeyLength => CM_ERR_KEY,
        Error::NonceLength | Error::NoncesExhausted => CM_ERR_NONCE,
        Error::BufferTooSmall { .. } => CM_ERR_BUFFER,
        Error::TooLong | Error::AadNotText => CM_ERR_ARGUMENT,
        Error::Oversize {
            field: "key id", ..
        } => CM_ERR_KEY,
        Error::Oversize { .. } | Error::Malformed { .. } | Error::Truncated { .. } => {
            CM_ERR_MALFORMED
        }
        Error::WrongScheme | Error::WrongKey => CM_ERR_WRONG_KEY,
        Error::Rejected => CM_ERR_REJECTED,
    }
}

/// # Safety
/// `ptr` is null or points to `len` readable bytes.
unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Option<&'a [u8]> {
    if ptr.is_null() {
        return (len == 0).then_some(&[]);
    }
    // SAFETY: the caller's promise.
    Some(unsafe { core::slice::from_raw_parts(ptr, len) })
}

/// # Safety
/// `scheme` is null or a NUL-terminated string.
unsafe fn spec<'a>(scheme: *const c_char) -> Result<Spec<'a>, i32> {
    if scheme.is_null() {
        return Err(CM_ERR_ARGUMENT);
    }
    // SAFETY: the caller's promise.
    let name = unsafe { CStr::from_ptr(scheme) }
        .to_str()
        .map_err(|_| CM_ERR_SCHEME)?;
    let spec = Spec::parse(name).ok_or(CM_ERR_SCHEME)?;
    if sealable::refusal(&spec) == Some(Refusal::Unauthenticated) {
        return Err(CM_ERR_SCHEME);
    }
    Ok(spec)
}

fn container(c: u8) -> Result<Container, i32> {
    Container::ALL
        .get(usize::from(c))
        .copied()
        .ok_or(CM_ERR_ARGUMENT)
}

/// # Safety
/// As `cm_seal`'s key arguments.
unsafe fn sealer(
    scheme: *const c_char,
    key: *const u8,
    key_len: usize,
    key_id: *const u8,
    key_id_len: usize,
) -> Result<Sealer, i32> {
    // SAFETY: the caller's promises, passed on.
    let spec = unsafe { spec(scheme) }?;
    let (key, key_id) = unsafe { (bytes(key, key_len), bytes(key_id, key_id_len)) };
    let (Some(key), Some(key_id)) = (key, key_id) else {
        return Err(CM_ERR_ARGUMENT);
    };
    Sealer::new(spec, key_id, key).map_err(code)
}

/// Seals `plaintext` with `counter` as the nonce (never reuse one under a key:
/// take it from `cm_counter_reserve`) into `container`, writing the message to
/// `out` and its length to `*out_len`. On `CM_ERR_BUFFER`, `*out_len` is the
/// size `out` needs (the message plus scratch room).
///
/// # Safety
/// `scheme` is a NUL-terminated string; `key`, `key_id` and `plaintext` point
/// to their lengths in readable bytes; `out` to `out_cap` writable bytes;
/// `out_len` to a writable `size_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_seal(
    scheme: *const c_char,
    key: *const u8,
    key_len: usize,
    key_id: *const u8,
    key_id_len: usize,
    container_id: u8,
    counter: u64,
    plaintext: *const u8,
    plaintext_len: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> i32 {
    let run = || -> Result<usize, (i32, usize)> {
        let fail = |c| (c, 0);
        // SAFETY: the caller's promises, passed on.
        let sealer = unsafe { sealer(scheme, key, key_len, key_id, key_id_len) }.map_err(fail)?;
        let container = container(container_id).map_err(fail)?;
        if sealable::refusal(&sealer.spec()) == Some(Refusal::NeedsRandomNonces) {
            return Err(fail(CM_ERR_NONCE));
        }
        let plaintext = unsafe { bytes(plaintext, plaintext_len) }.ok_or(fail(CM_ERR_ARGUMENT))?;
        let need = sealer.seal_buffer_len(container, plaintext, &[]);
        if out.is_null() || out_cap < need {
            return Err((CM_ERR_BUFFER, need));
        }
        // SAFETY: `out` has `out_cap` writable bytes.
        let out = unsafe { core::slice::from_raw_parts_mut(out, out_cap) };
        // The caller's counter value, made a nonce by the core's own path.
        sealer
            .seal_counted(
                &mut RamCounter { next: counter },
                container,
                plaintext,
                &[],
                out,
            )
            .map_err(|e| fail(code(e)))
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

/// Opens `message` (sealed in `container` under this key) in `buf`; on
/// success `*plaintext` points into `buf` and `*plaintext_len` is its length.
/// `buf` needs `message_len + 512` bytes at most.
///
/// # Safety
/// As `cm_seal`; `message` points to `message_len` readable bytes, `buf` to
/// `buf_cap` writable ones, `plaintext` and `plaintext_len` are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_open(
    scheme: *const c_char,
    key: *const u8,
    key_len: usize,
    key_id: *const u8,
    key_id_len: usize,
    container_id: u8,
    message: *const u8,
    message_len: usize,
    buf: *mut u8,
    buf_cap: usize,
    plaintext: *mut *const u8,
    plaintext_len: *mut usize,
) -> i32 {
    let run = || -> Result<(*const u8, usize), i32> {
        // SAFETY: the caller's promises, passed on.
        let sealer = unsafe { sealer(scheme, key, key_len, key_id, key_id_len) }?;
        let container = container(container_id)?;
        let message = unsafe { bytes(message, message_len) }.ok_or(CM_ERR_ARGUMENT)?;
        if buf.is_null() || plaintext.is_null() || plaintext_len.is_null() {
            return Err(CM_ERR_ARGUMENT);
        }
        // SAFETY: `buf` has `buf_cap` writable bytes.
        let buf = unsafe { core::slice::from_raw_parts_mut(buf, buf_cap) };
        let opened = sealer.open(container, message, buf).map_err(code)?;
        Ok((opened.plaintext.as_ptr(), opened.plaintext.len()))
    };
    match run() {
        Ok((p, n)) => {
            // SAFETY: checked writable above.
            unsafe {
                *plaintext = p;
                *plaintext_len = n;
            }
            CM_OK
        }
        Err(c) => c,
    }
}

/// Reads the counter's two slots at boot: counting resumes past every value
/// handed out before.
///
/// # Safety
/// `slots` and `counter` point to valid structs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_counter_resume(
    slots: *const cm_slots,
    counter: *mut cm_counter,
) -> i32 {
    // SAFETY: the caller's promise.
    let (Some(slots), Some(counter)) = (unsafe { slots.as_ref() }, unsafe { counter.as_mut() })
    else {
        return CM_ERR_ARGUMENT;
    };
    let c = SlotCounter::resume(CSlots(slots), CM_COUNTER_BLOCK);
    let (next, reserved_end, older) = c.state();
    *counter = cm_counter {
        next,
        reserved_end,
        older_slot: older as u8,
    };
    CM_OK
}

/// The next counter value, already durable in the slots when this returns.
///
/// # Safety
/// `slots`, `counter` and `value` point to valid, writable memory.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_counter_reserve(
    slots: *const cm_slots,
    counter: *mut cm_counter,
    value: *mut u64,
) -> i32 {
    // SAFETY: the caller's promise.
    let (Some(slots), Some(counter), Some(value)) = (
        unsafe { slots.as_ref() },
        unsafe { counter.as_mut() },
        unsafe { value.as_mut() },
    ) else {
        return CM_ERR_ARGUMENT;
    };
    let mut c = SlotCounter::from_state(
        CSlots(slots),
        CM_COUNTER_BLOCK,
        (
            counter.next,
            counter.reserved_end,
            usize::from(counter.older_slot & 1),
        ),
    );
    let result = c.reserve();
    let (next, reserved_end, older) = c.state();
    *counter = cm_counter {
        next,
        reserved_end,
        older_slot: older as u8,
    };
    match result {
        Ok(v) => {
            *value = v;
            CM_OK
        }
        // Values were left: the storage refused the reservation.
        Err(Error::NoncesExhausted) if next.checked_add(CM_COUNTER_BLOCK).is_some() => {
            CM_ERR_STORAGE
        }
        Err(e) => code(e),
    }
}

/// The bytes around `message` on a serial line or TCP, as the gateway reads
/// them: a 0- or 3-byte header (`header_len`) and a 0- or 1-byte trailer.
///
/// # Safety
/// `message` points to `message_len` readable bytes; `header` to 3 writable
/// bytes, `trailer` to 1; the lengths are writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_frame(
    container_id: u8,
    message: *const u8,
    message_len: usize,
    header: *mut u8,
    header_len: *mut usize,
    trailer: *mut u8,
    trailer_len: *mut usize,
) -> i32 {
    let Ok(container) = container(container_id) else {
        return CM_ERR_ARGUMENT;
    };
    // SAFETY: the caller's promise.
    let Some(message) = (unsafe { bytes(message, message_len) }) else {
        return CM_ERR_ARGUMENT;
    };
    if header.is_null() || header_len.is_null() || trailer.is_null() || trailer_len.is_null() {
        return CM_ERR_ARGUMENT;
    }
    let Ok(frame) = Framing::for_container(container).frame(message) else {
        return CM_ERR_ARGUMENT;
    };
    // SAFETY: writable as promised; the header is at most 3 bytes, the trailer 1.
    unsafe {
        core::ptr::copy_nonoverlapping(frame.header().as_ptr(), header, frame.header().len());
        *header_len = frame.header().len();
        core::ptr::copy_nonoverlapping(frame.trailer.as_ptr(), trailer, frame.trailer.len());
        *trailer_len = frame.trailer.len();
    }
    CM_OK
}

/// How many radio frames of `frame_len` bytes a message of `message_len`
/// bytes takes (`seal::fragment`): 1 when it fits whole. `CM_ERR_ARGUMENT`
/// when a frame holds no more than the 2-byte fragment header, or the message
/// needs more than 128 fragments.
///
/// # Safety
/// `count` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_fragment_count(
    message_len: usize,
    frame_len: usize,
    count: *mut usize,
) -> i32 {
    if count.is_null() {
        return CM_ERR_ARGUMENT;
    }
    match seal::fragment::count(message_len, frame_len) {
        Ok(n) => {
            // SAFETY: writable as promised.
            unsafe { *count = n };
            CM_OK
        }
        Err(_) => CM_ERR_ARGUMENT,
    }
}

/// Frame `index` (from 0, below `cm_fragment_count`'s count) of `message`
/// for a radio whose frames carry `frame_len` bytes: the message whole when
/// it fits, else a 2-byte header and the next slice, which the gateway puts
/// back together per device. `tag` numbers the message (the device's message
/// count; only its low 4 bits travel). Send every index, in any order, each
/// as its own uplink. `CM_ERR_BUFFER` when `out_cap` is smaller than the
/// fragment (`frame_len` bytes always do), `CM_ERR_ARGUMENT` for an index
/// past the last or an impossible cut.
///
/// # Safety
/// `message` points to `message_len` readable bytes, `out` to `out_cap`
/// writable bytes, and `out_len` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_fragment(
    message: *const u8,
    message_len: usize,
    frame_len: usize,
    tag: u8,
    index: usize,
    out: *mut u8,
    out_cap: usize,
    out_len: *mut usize,
) -> i32 {
    // SAFETY: the caller's promise.
    let Some(message) = (unsafe { bytes(message, message_len) }) else {
        return CM_ERR_ARGUMENT;
    };
    if out.is_null() || out_len.is_null() {
        return CM_ERR_ARGUMENT;
    }
    // SAFETY: `out` has `out_cap` writable bytes.
    let buffer = unsafe { core::slice::from_raw_parts_mut(out, out_cap) };
    match seal::fragment::write(message, frame_len, tag, index, buffer) {
        Ok(n) => {
            // SAFETY: writable as promised.
            unsafe { *out_len = n };
            CM_OK
        }
        Err(seal::fragment::FragmentError::Buffer(_)) => CM_ERR_BUFFER,
        Err(_) => CM_ERR_ARGUMENT,
    }
}

/// The sizes a scheme works with: key, nonce and tag, in bytes (any pointer
/// may be null). `CM_ERR_SCHEME` for an unknown scheme or one that does not
/// seal.
///
/// # Safety
/// `scheme` is a NUL-terminated string; the others null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_scheme_sizes(
    scheme: *const c_char,
    key_len: *mut usize,
    nonce_len: *mut usize,
    tag_len: *mut usize,
) -> i32 {
    // SAFETY: the caller's promise.
    let spec = match unsafe { spec(scheme) } {
        Ok(spec) => spec,
        Err(status) => return status,
    };
    for (out, value) in [
        (key_len, spec.key_len()),
        (nonce_len, spec.nonce_len()),
        (tag_len, spec.tag_len()),
    ] {
        // SAFETY: writable when not null, as promised.
        if let Some(out) = unsafe { out.as_mut() } {
            *out = value;
        }
    }
    CM_OK
}

// What build.rs found this build contains (`CONTENTS`).
include!(concat!(env!("OUT_DIR"), "/contents.rs"));

/// What seals `scheme` in this library: the implementation and its version,
/// the library's version, and the constant-time verdict of `ciphermeter ct`
/// on the target's core ("not checked" on a host), e.g. `aead:aes-128-ccm:
/// Mbed TLS 2.28.10, ciphermeter-seal-ffi 0.1.0; timing: constant-time on
/// cortex-m0plus`. `*implementation` points to a static string.
/// `CM_ERR_SCHEME` for a name that is no scheme or does not seal,
/// `CM_ERR_NOT_BUILT` for a scheme this build does not seal.
///
/// # Safety
/// `scheme` is a NUL-terminated string; `implementation` is writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cm_implementation(
    scheme: *const c_char,
    implementation: *mut *const c_char,
) -> i32 {
    if implementation.is_null() {
        return CM_ERR_ARGUMENT;
    }
    // SAFETY: the caller's promise.
    let spec = match unsafe { spec(scheme) } {
        Ok(spec) => spec,
        Err(status) => return status,
    };
    match CONTENTS.iter().find(|(name, _)| *name == spec.name) {
        Some((_, text)) => {
            // SAFETY: writable, as promised, and not null.
            unsafe { *implementation = text.as_ptr() };
            CM_OK
        }
        None => CM_ERR_NOT_BUILT,
    }
}

/// A short English description of a status code.
#[unsafe(no_mangle)]
pub extern "C" fn cm_strerror(status: i32) -> *const c_char {
    let text: &CStr = match status {
        CM_OK => c"ok",
        CM_ERR_SCHEME => c"unknown scheme, or one that does not seal",
        CM_ERR_NOT_BUILT => c"the scheme's algorithms are not in this build",
        CM_ERR_KEY => c"wrong key length or key id",
        CM_ERR_NONCE => c"the scheme needs random nonces, or the counter ran out",
        CM_ERR_BUFFER => c"buffer too small",
        CM_ERR_MALFORMED => c"malformed or truncated message",
        CM_ERR_REJECTED => c"authentication failed",
        CM_ERR_WRONG_KEY => c"another scheme or key id",
        CM_ERR_ARGUMENT => c"invalid argument",
        CM_ERR_STORAGE => c"the counter storage refused a write",
        CM_ERR_KEY_FILE => c"not an OSCORE context file (ciphermeter-oscore-context/1)",
        CM_ERR_STATE => c"an EDHOC step out of order, or after the handshake ended",
        _ => c"unknown status",
    };
    text.as_ptr()
}

#[cfg(target_os = "none")]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo) -> ! {
    loop {}
}
