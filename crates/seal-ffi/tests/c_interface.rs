//! The C interface called as C calls it (raw pointers, status codes), checked
//! against the host's own sealer: what `cm_seal` writes, `seal::HostSealer`
//! opens, and the reverse.

use std::ffi::{CStr, c_void};

use ciphermeter_seal_ffi::*;
use seal::{Container, HostSealer, Scheme, SealKey};

const KEY: [u8; 16] = [0x42; 16];
const KEY_ID: &[u8] = b"dev-7";

fn seal_c(scheme: &CStr, container: u8, counter: u64, plaintext: &[u8]) -> Result<Vec<u8>, i32> {
    let mut out = vec![0u8; 2048];
    let mut len = 0usize;
    // SAFETY: every pointer points to what its length says.
    let status = unsafe {
        cm_seal(
            scheme.as_ptr(),
            KEY.as_ptr(),
            KEY.len(),
            KEY_ID.as_ptr(),
            KEY_ID.len(),
            container,
            counter,
            plaintext.as_ptr(),
            plaintext.len(),
            out.as_mut_ptr(),
            out.len(),
            &mut len,
        )
    };
    if status != CM_OK {
        return Err(status);
    }
    out.truncate(len);
    Ok(out)
}

fn open_c(scheme: &CStr, container: u8, message: &[u8]) -> Result<Vec<u8>, i32> {
    let mut buf = vec![0u8; message.len() + 512];
    let (mut p, mut n) = (std::ptr::null(), 0usize);
    // SAFETY: as above.
    let status = unsafe {
        cm_open(
            scheme.as_ptr(),
            KEY.as_ptr(),
            KEY.len(),
            KEY_ID.as_ptr(),
            KEY_ID.len(),
            container,
            message.as_ptr(),
            message.len(),
            buf.as_mut_ptr(),
            buf.len(),
            &mut p,
            &mut n,
        )
    };
    if status != CM_OK {
        return Err(status);
    }
    // SAFETY: cm_open points into `buf`, `n` bytes.
    Ok(unsafe { std::slice::from_raw_parts(p, n) }.to_vec())
}

fn host(scheme: &str) -> HostSealer {
    let key = SealKey::from_parts(Scheme::parse(scheme).unwrap(), KEY_ID.to_vec(), &KEY).unwrap();
    HostSealer::new(&key, false).unwrap()
}

#[test]
fn c_seals_what_the_host_opens_and_opens_what_the_host_seals() {
    let reading = br#"{"t":1555666777,"id":"Logger1","s_t":"tc","s_d":[{"d":0,"t":12.5}]}"#;
    for (id, container) in [
        (CM_CONTAINER_JSON, Container::Json),
        (CM_CONTAINER_BINARY, Container::Binary),
        (CM_CONTAINER_COSE, Container::Cose),
    ] {
        for scheme in [
            c"aead:aes-128-ccm",
            c"aead:aes-128-gcm",
            c"aead:ascon-aead128",
        ] {
            let name = scheme.to_str().unwrap();
            let sealed = seal_c(scheme, id, 7, reading).unwrap();
            let opened = host(name).open(container, &sealed).unwrap();
            assert_eq!(opened.plaintext.as_slice(), reading, "{name} {container}");
            // Counter 7, big-endian, right-aligned in the nonce.
            assert_eq!(opened.nonce.last(), Some(&7), "{name}");
            let by_host = host(name)
                .seal(container, &opened.nonce, reading, b"")
                .unwrap();
            assert_eq!(
                by_host, sealed,
                "the same key, nonce and reading give the same bytes"
            );
            assert_eq!(open_c(scheme, id, &by_host).unwrap(), reading);
            // A flipped bit anywhere is refused.
            for at in [0, sealed.len() / 2, sealed.len() - 1] {
                let mut bad = sealed.clone();
                bad[at] ^= 1;
                assert!(
                    open_c(scheme, id, &bad).is_err(),
                    "{name} {container} bit at {at}"
                );
            }
        }
    }
}

#[test]
fn bad_arguments_get_their_status_codes() {
    let r = b"{}";
    assert_eq!(seal_c(c"aead:aes-999", 0, 1, r), Err(CM_ERR_SCHEME));
    assert_eq!(seal_c(c"enc:aes-128-ctr", 0, 1, r), Err(CM_ERR_SCHEME));
    assert_eq!(seal_c(c"aead:aes-256-gcm", 0, 1, r), Err(CM_ERR_KEY));
    assert_eq!(seal_c(c"aead:aes-128-gcm", 9, 1, r), Err(CM_ERR_ARGUMENT));
    let mut small = [0u8; 8];
    let mut need = 0usize;
    // SAFETY: pointers and lengths agree.
    let status = unsafe {
        cm_seal(
            c"aead:aes-128-gcm".as_ptr(),
            KEY.as_ptr(),
            16,
            KEY_ID.as_ptr(),
            KEY_ID.len(),
            1,
            1,
            r.as_ptr(),
            2,
            small.as_mut_ptr(),
            small.len(),
            &mut need,
        )
    };
    assert_eq!(status, CM_ERR_BUFFER);
    assert!(need > 8);
    assert_eq!(
        open_c(c"aead:aes-128-gcm", 1, b"\x01junk"),
        Err(CM_ERR_MALFORMED)
    );
    // SAFETY: cm_strerror returns a static NUL-terminated string.
    let text = unsafe { CStr::from_ptr(cm_strerror(CM_ERR_REJECTED)) };
    assert_eq!(text.to_str().unwrap(), "authentication failed");
}

/// Two slots in memory, as a C caller's EEPROM; `fail` refuses writes.
#[derive(Default)]
struct Eeprom {
    slots: [Option<[u8; CM_SLOT_LEN]>; 2],
    fail: bool,
}

extern "C" fn read(ctx: *mut c_void, slot: usize, out: *mut u8) -> bool {
    // SAFETY: ctx is the test's Eeprom; out has CM_SLOT_LEN bytes.
    let e = unsafe { &*(ctx as *const Eeprom) };
    e.slots[slot].is_some_and(|b| {
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), out, CM_SLOT_LEN) };
        true
    })
}

extern "C" fn write(ctx: *mut c_void, slot: usize, bytes: *const u8) -> bool {
    // SAFETY: as above.
    let e = unsafe { &mut *(ctx as *mut Eeprom) };
    if e.fail {
        return false;
    }
    let mut b = [0u8; CM_SLOT_LEN];
    unsafe { std::ptr::copy_nonoverlapping(bytes, b.as_mut_ptr(), CM_SLOT_LEN) };
    e.slots[slot] = Some(b);
    true
}

#[test]
fn the_counter_survives_a_reboot_and_a_refused_write_is_an_error() {
    // Reached only through the pointer the callbacks get, as a C caller's context.
    let eeprom = Box::into_raw(Box::new(Eeprom::default()));
    let slots = cm_slots {
        ctx: eeprom as *mut c_void,
        read: Some(read),
        write: Some(write),
    };
    let mut seen = Vec::new();
    for _boot in 0..3 {
        let mut c = cm_counter::default();
        // SAFETY: valid pointers to the structs above.
        assert_eq!(unsafe { cm_counter_resume(&slots, &mut c) }, CM_OK);
        for _ in 0..5 {
            let mut v = 0u64;
            assert_eq!(unsafe { cm_counter_reserve(&slots, &mut c, &mut v) }, CM_OK);
            seen.push(v);
        }
    }
    assert!(
        seen.windows(2).all(|w| w[0] < w[1]),
        "never repeated: {seen:?}"
    );
    assert_eq!(
        seen[5], CM_COUNTER_BLOCK,
        "a reboot skips to the next block"
    );
    let mut c = cm_counter::default();
    unsafe { cm_counter_resume(&slots, &mut c) };
    // SAFETY: the box above, not yet freed.
    unsafe { (*eeprom).fail = true };
    let mut v = 0u64;
    assert_eq!(
        unsafe { cm_counter_reserve(&slots, &mut c, &mut v) },
        CM_ERR_STORAGE
    );
    // SAFETY: made by Box::into_raw above, freed once.
    drop(unsafe { Box::from_raw(eeprom) });
}

#[test]
fn frames_are_the_gateways() {
    let (mut h, mut hl, mut t, mut tl) = ([0u8; 3], 0usize, [0u8; 1], 0usize);
    let m = [9u8; 300];
    // SAFETY: buffers of the sizes cm_frame writes.
    let s = unsafe {
        cm_frame(
            CM_CONTAINER_COSE,
            m.as_ptr(),
            m.len(),
            h.as_mut_ptr(),
            &mut hl,
            t.as_mut_ptr(),
            &mut tl,
        )
    };
    assert_eq!((s, &h[..hl], tl), (CM_OK, &[0xCE, 1, 44][..], 0));
    let s = unsafe {
        cm_frame(
            CM_CONTAINER_JSON,
            b"{}".as_ptr(),
            2,
            h.as_mut_ptr(),
            &mut hl,
            t.as_mut_ptr(),
            &mut tl,
        )
    };
    assert_eq!((s, hl, &t[..tl]), (CM_OK, 0, &b"\n"[..]));
}

#[test]
fn a_message_longer_than_a_frame_goes_in_fragments_that_come_back_together() {
    // A 112-byte binary message at LoRaWAN EU868 DR0 (51-byte frames).
    let message = seal_c(c"aead:aes-128-ccm", CM_CONTAINER_BINARY, 5, &[b'7'; 68]).unwrap();
    assert_eq!(message.len(), 112);
    let mut count = 0usize;
    // SAFETY: `count` is writable.
    assert_eq!(
        unsafe { cm_fragment_count(message.len(), 51, &mut count) },
        CM_OK
    );
    assert_eq!(count, 3);
    let mut back = Vec::new();
    for index in (0..count).rev() {
        let (mut out, mut len) = ([0u8; 51], 0usize);
        // SAFETY: `message` readable, `out` 51 writable bytes.
        let s = unsafe {
            cm_fragment(
                message.as_ptr(),
                message.len(),
                51,
                5,
                index,
                out.as_mut_ptr(),
                51,
                &mut len,
            )
        };
        assert_eq!(s, CM_OK);
        let f = seal::fragment::parse(&out[..len]).unwrap().unwrap();
        assert_eq!(
            (f.tag, usize::from(f.index), f.last),
            (5, index, index == 2)
        );
        back.splice(0..0, f.body.iter().copied());
    }
    assert_eq!(
        back, message,
        "the gateway's reassembly reads what the device cut"
    );
    let (mut out, mut len) = ([0u8; 51], 0usize);
    // SAFETY: as above; the errors write nothing.
    unsafe {
        assert_eq!(
            cm_fragment(
                message.as_ptr(),
                112,
                51,
                5,
                3,
                out.as_mut_ptr(),
                51,
                &mut len
            ),
            CM_ERR_ARGUMENT
        );
        assert_eq!(
            cm_fragment(
                message.as_ptr(),
                112,
                51,
                5,
                0,
                out.as_mut_ptr(),
                50,
                &mut len
            ),
            CM_ERR_BUFFER
        );
        assert_eq!(cm_fragment_count(112, 2, &mut count), CM_ERR_ARGUMENT);
        assert_eq!(
            cm_fragment_count(112, 51, std::ptr::null_mut()),
            CM_ERR_ARGUMENT
        );
        // A message that fits one frame is the frame, whole.
        assert_eq!(
            cm_fragment(
                message.as_ptr(),
                51,
                51,
                5,
                0,
                out.as_mut_ptr(),
                51,
                &mut len
            ),
            CM_OK
        );
        assert_eq!(&out[..len], &message[..51]);
    }
}

#[test]
fn a_schemes_sizes_are_the_cores() {
    let (mut k, mut n, mut t) = (0usize, 0usize, 0usize);
    // SAFETY: a NUL-terminated name and writable sizes.
    let s = unsafe { cm_scheme_sizes(c"aead:aes-128-ccm".as_ptr(), &mut k, &mut n, &mut t) };
    assert_eq!((s, k, n, t), (CM_OK, 16, 13, 16));
    let s = unsafe {
        cm_scheme_sizes(
            c"aead:nope".as_ptr(),
            &mut k,
            std::ptr::null_mut(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(s, CM_ERR_SCHEME);
}

#[test]
fn the_library_names_the_code_that_seals_a_scheme() {
    let mut text = std::ptr::null();
    // SAFETY: a NUL-terminated name and a writable pointer.
    let s = unsafe { cm_implementation(c"aead:aes-128-ccm".as_ptr(), &mut text) };
    assert_eq!(s, CM_OK);
    // SAFETY: cm_implementation points to a static C string.
    let text = unsafe { CStr::from_ptr(text) }.to_str().unwrap();
    let head = format!(
        "aead:aes-128-ccm: RustCrypto's crates, ciphermeter-seal-ffi {}; timing: not checked on ",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        text.starts_with(&head) && text.ends_with(" (a host build)"),
        "{text}"
    );
    let mut text = std::ptr::null();
    for (scheme, status) in [
        (c"enc:aes-128-ctr", CM_ERR_SCHEME),
        (c"aead:nope", CM_ERR_SCHEME),
    ] {
        // SAFETY: as above.
        let s = unsafe { cm_implementation(scheme.as_ptr(), &mut text) };
        assert_eq!(s, status, "{scheme:?}");
    }
    // SAFETY: a null name and a null answer are refused, not read.
    let s = unsafe { cm_implementation(std::ptr::null(), &mut text) };
    assert_eq!(s, CM_ERR_ARGUMENT);
    let s = unsafe { cm_implementation(c"aead:aes-128-ccm".as_ptr(), std::ptr::null_mut()) };
    assert_eq!(s, CM_ERR_ARGUMENT);
}
