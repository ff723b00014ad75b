//! `cm_oscore_*` as C calls them: a C program (tests/c/oscore_readings.c),
//! linked against the library as a user builds it, protects readings under a
//! `keygen --scheme oscore:ALG` key file; the bytes are the host's
//! `protect_reading`'s for the same context and sequence number, the
//! gateway's context opens them, and its sequence numbers never repeat across
//! runs. Then the status codes of bad input, called directly.

use std::ffi::CStr;
use std::path::Path;
use std::process::{Command, Output};

use ciphermeter_seal_ffi::*;
use seal::host::oscore::{OscoreKey, open_request, protect_reading};
use seal::oscore::ReplayWindow;

fn run(program: &Path, key: &Path, slots: &Path, count: u32) -> Output {
    Command::new(program)
        .arg(key)
        .arg(slots)
        .arg(count.to_string())
        .output()
        .unwrap()
}

/// Each line's sequence number and message.
fn messages(out: &Output) -> Vec<(u64, Vec<u8>)> {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout.clone())
        .unwrap()
        .lines()
        .map(|l| {
            let (seq, hex) = l.split_once(' ').unwrap();
            (seq.parse().unwrap(), hex::decode(hex).unwrap())
        })
        .collect()
}

/// The reading oscore_readings.c protects as its `i`th.
fn reading(i: u64) -> String {
    format!(
        r#"{{"t":{},"id":"Logger1","s_t":"tc","s_d":[{{"d":0,"t":12.5}}]}}"#,
        1555666777 + i
    )
}

#[test]
fn c_protects_the_hosts_bytes_the_gateway_opens_them_and_no_sequence_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let program = testkit::c_library::oscore_readings(dir.path());
    let slots = dir.path().join("slots");
    for alg in ["aes-ccm-16-64-128", "aes-128-gcm", "chacha20-poly1305"] {
        let (dev, gw) = (dir.path().join("dev.key"), dir.path().join("gw.key"));
        let scheme = format!("oscore:{alg}");
        let (dev_key, gw_key) = OscoreKey::write_pair(&scheme, "random", &dev, Some(&gw), true)
            .unwrap_or_else(|e| panic!("{scheme}: {e}"));
        let _ = std::fs::remove_file(&slots);
        let mut window = ReplayWindow::new();
        let mut seen = Vec::new();
        // Two boots of the device: the second resumes past every reserved number.
        for boot in 0..2 {
            for (i, (seq, message)) in messages(&run(&program, &dev, &slots, 3))
                .into_iter()
                .enumerate()
            {
                let reading = reading(i as u64);
                let (by_host, _) =
                    protect_reading(dev_key.context(), seq, reading.as_bytes(), "readings", 50)
                        .unwrap();
                assert_eq!(message, by_host, "{scheme} boot {boot} sequence {seq}");
                let opened = open_request(&gw_key, &mut window, &message).unwrap();
                assert_eq!(opened.reading, reading.as_bytes(), "{scheme}");
                assert_eq!(
                    (opened.sequence, opened.uri_path.as_str()),
                    (seq, "readings")
                );
                seen.push(seq);
            }
        }
        assert_eq!(
            seen,
            [
                0,
                1,
                2,
                CM_COUNTER_BLOCK,
                CM_COUNTER_BLOCK + 1,
                CM_COUNTER_BLOCK + 2
            ],
            "{scheme}: a restart skips to the next reserved block"
        );
    }

    // Files that are no OSCORE context: refused with the library's words, exit 2.
    let bad = dir.path().join("bad.key");
    let good = std::fs::read_to_string(dir.path().join("dev.key")).unwrap();
    for (text, said) in [
        (
            good.replace("\"alg\": 24", "\"alg\": 10"),
            "not an OSCORE context file",
        ),
        (
            good.replace("ciphermeter-oscore-context/1", "other/1"),
            "not an OSCORE context file",
        ),
        (
            good.replace("chacha20-poly1305", "aes-999"),
            "unknown scheme",
        ),
        (
            r#"{"format":"ciphermeter-key/1"}"#.to_string(),
            "not an OSCORE context file",
        ),
    ] {
        std::fs::write(&bad, &text).unwrap();
        let out = run(&program, &bad, &slots, 1);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{text}: {stderr}");
        assert!(stderr.contains(said), "{text}: {stderr}");
        assert!(out.stdout.is_empty());
    }
}

/// RFC 8613 Appendix C.1.1's client: master secret 0x01..0x10, salt
/// 0x9e7ca92223786340, sender id empty, recipient id 0x01.
const SECRET: [u8; 16] = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16];
const SALT: [u8; 8] = [0x9e, 0x7c, 0xa9, 0x22, 0x23, 0x78, 0x63, 0x40];

unsafe fn init(ctx: &mut cm_oscore_context, scheme: &CStr, sender: &[u8], recipient: &[u8]) -> i32 {
    unsafe {
        cm_oscore_context_init(
            ctx,
            scheme.as_ptr(),
            SECRET.as_ptr(),
            SECRET.len(),
            SALT.as_ptr(),
            SALT.len(),
            sender.as_ptr(),
            sender.len(),
            recipient.as_ptr(),
            recipient.len(),
            std::ptr::null(),
            0,
        )
    }
}

fn protect(ctx: &cm_oscore_context, sequence: u64, cap: usize) -> (i32, Vec<u8>, usize) {
    let mut out = vec![0u8; cap];
    let mut len = 0usize;
    // SAFETY: pointers to their lengths.
    let s = unsafe {
        cm_oscore_protect(
            ctx,
            sequence,
            std::ptr::null(),
            50,
            b"{}".as_ptr(),
            2,
            out.as_mut_ptr(),
            cap,
            &mut len,
        )
    };
    out.truncate(if s == CM_OK { len } else { 0 });
    (s, out, len)
}

#[test]
fn key_material_is_derived_as_rfc_8613_says_and_bad_input_gets_status_codes() {
    let mut ctx: Box<cm_oscore_context> = Box::new(unsafe { std::mem::zeroed() });
    // No context yet: refused, nothing written.
    assert_eq!(protect(&ctx, 0, 256).0, CM_ERR_ARGUMENT);
    // SAFETY: a NUL-terminated name and slices of their lengths, here and below.
    assert_eq!(
        unsafe { init(&mut ctx, c"oscore:aes-ccm-16-64-128", &[], &[1]) },
        CM_OK
    );
    // The host derives the same context from the same inputs: the same bytes.
    let host = OscoreKey::from_secrets(
        seal::oscore::Alg::AesCcm16_64_128,
        &SECRET,
        &SALT,
        &[],
        &[1],
    )
    .unwrap();
    // The common IV of RFC 8613 C.1.1 (the keys stay inside the AEADs).
    assert_eq!(
        host.context().common_iv.as_slice(),
        hex::decode("4622d4dd6d944168eefb54987c").unwrap()
    );
    let (s, by_c, _) = protect(&ctx, 20, 256);
    assert_eq!(s, CM_OK);
    let (by_host, _) = protect_reading(host.context(), 20, b"{}", "readings", 50).unwrap();
    assert_eq!(by_c, by_host);
    // Too small a buffer: the size needed, as cm_seal says it.
    let (s, _, need) = protect(&ctx, 20, 8);
    assert_eq!(s, CM_ERR_BUFFER);
    assert!(need >= by_c.len() && need < 256, "{need}");
    // Past 2^40 - 1 there is no Partial IV: a new context is needed.
    assert_eq!(protect(&ctx, 1 << 40, 256).0, CM_ERR_NONCE);

    unsafe {
        assert_eq!(
            init(&mut ctx, c"oscore:aes-ccm-99", &[], &[1]),
            CM_ERR_SCHEME
        );
        assert_eq!(
            init(&mut ctx, c"aead:aes-128-ccm", &[], &[1]),
            CM_ERR_SCHEME
        );
        // Equal ids, and an id longer than the nonce leaves room for (7 bytes).
        assert_eq!(
            init(&mut ctx, c"oscore:aes-ccm-16-64-128", &[1], &[1]),
            CM_ERR_KEY
        );
        assert_eq!(
            init(&mut ctx, c"oscore:aes-ccm-16-64-128", &[0; 8], &[1]),
            CM_ERR_KEY
        );
        assert_eq!(
            cm_oscore_context_init(
                &mut *ctx,
                std::ptr::null(),
                SECRET.as_ptr(),
                16,
                SALT.as_ptr(),
                8,
                std::ptr::null(),
                0,
                std::ptr::null(),
                0,
                std::ptr::null(),
                0
            ),
            CM_ERR_ARGUMENT
        );
        assert_eq!(
            cm_oscore_context_from_file(&mut *ctx, b"{}".as_ptr(), 2),
            CM_ERR_KEY_FILE
        );
        assert_eq!(
            cm_oscore_context_from_file(&mut *ctx, std::ptr::null(), 5),
            CM_ERR_ARGUMENT
        );
        assert_eq!(
            cm_oscore_context_from_file(std::ptr::null_mut(), b"{}".as_ptr(), 2),
            CM_ERR_ARGUMENT
        );
    }
    // A failed init leaves the last good context; a wipe leaves none.
    assert_eq!(protect(&ctx, 21, 256).0, CM_OK);
    unsafe { cm_oscore_context_wipe(&mut *ctx) };
    assert!(ctx.opaque.iter().all(|b| *b == 0));
    assert_eq!(protect(&ctx, 21, 256).0, CM_ERR_ARGUMENT);
    let text = unsafe { CStr::from_ptr(cm_strerror(CM_ERR_KEY_FILE)) };
    assert!(
        text.to_str()
            .unwrap()
            .starts_with("not an OSCORE context file")
    );
}

#[test]
fn mangled_context_files_get_a_status_never_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let (dev, gw) = (dir.path().join("dev.key"), dir.path().join("gw.key"));
    OscoreKey::write_pair("oscore:aes-ccm-16-64-128", "random", &dev, Some(&gw), true).unwrap();
    let good = std::fs::read(&dev).unwrap();
    let mut ctx: Box<cm_oscore_context> = Box::new(unsafe { std::mem::zeroed() });
    // SAFETY: pointers to their lengths.
    let from = |ctx: &mut cm_oscore_context, bytes: &[u8]| unsafe {
        cm_oscore_context_from_file(ctx, bytes.as_ptr(), bytes.len())
    };
    assert_eq!(from(&mut ctx, &good), CM_OK);
    // A fixed sequence of flips, cuts and insertions (an LCG, so a failure reruns).
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) as usize % n
    };
    let mut refused = 0;
    for _ in 0..5000 {
        let mut bytes = good.clone();
        for _ in 0..1 + next(3) {
            let at = next(bytes.len());
            match next(3) {
                0 => bytes[at] = next(256) as u8,
                1 => bytes.truncate(at),
                _ => bytes.insert(at, b"\"{}:,0x\\9n"[next(10)]),
            }
            if bytes.is_empty() {
                break;
            }
        }
        let s = from(&mut ctx, &bytes);
        assert!(
            [CM_OK, CM_ERR_KEY_FILE, CM_ERR_KEY, CM_ERR_SCHEME].contains(&s),
            "{s} for {}",
            String::from_utf8_lossy(&bytes)
        );
        refused += usize::from(s != CM_OK);
    }
    assert!(
        refused > 4000,
        "only {refused} of 5000 mangled files refused"
    );
}
