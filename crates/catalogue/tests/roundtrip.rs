//! Round-trip properties of every cipher entry (block modes, streams, AEADs,
//! the identity baseline) on the default backend and every other it lists:
//! encrypt then decrypt gives the plaintext back for random keys, IVs, AAD,
//! paddings and lengths 0..4096; a modified AEAD message is rejected; and
//! chunked streaming gives the same bytes as one-shot.

mod kat_support;

use ciphermeter_catalogue::{Backend, Direction, Entry, Kind, Padding, Params, catalogue};
use kat_support::backend_name;
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};

/// Cases per entry and backend: ~200 entries keep the suite quick in debug builds.
/// Set KAT_TIMING=1 (with --nocapture) to see the time per entry and backend.
const CASES: u32 = 5;

/// Random material for one case; sizes are picked from the entry's valid ones.
#[derive(Debug, Clone)]
struct Case {
    key_pick: usize,
    nonce_pick: usize,
    key: Vec<u8>,
    nonce: Vec<u8>,
    aad: Vec<u8>,
    plaintext: Vec<u8>,
    padding: usize,
    chunks: Vec<usize>,
    flip: (usize, u8),
}

fn case() -> impl Strategy<Value = Case> {
    (
        any::<usize>(),
        any::<usize>(),
        proptest::collection::vec(any::<u8>(), 64),
        proptest::collection::vec(any::<u8>(), 32),
        proptest::collection::vec(any::<u8>(), 0..64),
        proptest::collection::vec(any::<u8>(), 0..4096),
        0..Padding::ALL.len(),
        proptest::collection::vec(0usize..40, 1..12),
        (any::<usize>(), 1u8..=255),
    )
        .prop_map(
            |(key_pick, nonce_pick, key, nonce, aad, plaintext, padding, chunks, flip)| Case {
                key_pick,
                nonce_pick,
                key,
                nonce,
                aad,
                plaintext,
                padding,
                chunks,
                flip,
            },
        )
}

fn cipher_entries() -> impl Iterator<Item = &'static Entry> {
    catalogue().entries().iter().filter(|e| {
        matches!(
            e.kind,
            Kind::BlockMode | Kind::Stream | Kind::Aead | Kind::Baseline
        )
    })
}

/// Key, nonce, padding and plaintext for `entry`, shaped from the random case.
fn shape(entry: &Entry, c: &Case) -> (Vec<u8>, Vec<u8>, Padding, Vec<u8>) {
    let key_len = if entry.key_sizes.is_empty() {
        0
    } else {
        entry.key_sizes[c.key_pick % entry.key_sizes.len()]
    };
    let nonce_len = if entry.nonce_sizes.is_empty() {
        0
    } else {
        entry.nonce_sizes[c.nonce_pick % entry.nonce_sizes.len()]
    };
    let padded = entry.mode.is_some_and(|m| m.is_padded());
    let padding = if padded {
        Padding::ALL[c.padding]
    } else {
        Padding::None
    };
    let mut pt = c.plaintext.clone();
    if padded && padding == Padding::None {
        let bs = entry.block_size.expect("padded mode has a block size");
        pt.truncate(pt.len() / bs * bs);
    }
    if padding == Padding::Zero {
        // Zero padding cannot tell trailing zeros of the message from padding.
        while pt.last() == Some(&0) {
            pt.pop();
        }
    }
    (
        c.key[..key_len].to_vec(),
        c.nonce[..nonce_len].to_vec(),
        padding,
        pt,
    )
}

fn round_trip(
    entry: &'static Entry,
    backend: Option<Backend>,
    c: &Case,
) -> Result<(), TestCaseError> {
    let (key, nonce, padding, pt) = shape(entry, c);
    let aad = if entry.kind == Kind::Aead {
        c.aad.clone()
    } else {
        Vec::new()
    };
    let params = Params {
        iv: &nonce,
        aad: &aad,
        padding,
    };
    let mut cipher = entry
        .cipher(backend, &key)
        .map_err(|e| TestCaseError::fail(format!("key setup: {e}")))?;

    let mut ct = Vec::new();
    cipher
        .encrypt(&params, &pt, &mut ct)
        .map_err(|e| TestCaseError::fail(format!("encrypt: {e}")))?;
    prop_assert_eq!(
        ct.len(),
        entry.ciphertext_len(pt.len(), padding),
        "ciphertext length"
    );
    if entry.kind != Kind::Baseline && pt.len() >= 16 {
        prop_assert_ne!(&ct[..16], &pt[..16], "ciphertext equals plaintext");
    }
    let mut back = Vec::new();
    cipher
        .decrypt(&params, &ct, &mut back)
        .map_err(|e| TestCaseError::fail(format!("decrypt: {e}")))?;
    prop_assert_eq!(&back, &pt, "decrypt(encrypt(pt)) != pt");

    if entry.kind == Kind::Aead {
        let mut bad = ct.clone();
        let at = c.flip.0 % bad.len();
        bad[at] ^= c.flip.1;
        let mut out = vec![0xEE];
        prop_assert!(
            cipher.decrypt(&params, &bad, &mut out).is_err(),
            "accepted a message modified at byte {}",
            at
        );
        prop_assert_eq!(out, vec![0xEE], "released bytes of a rejected message");
        if !aad.is_empty() {
            let mut bad_aad = aad.clone();
            bad_aad[c.flip.0 % aad.len()] ^= c.flip.1;
            let p = Params {
                aad: &bad_aad,
                ..params
            };
            prop_assert!(
                cipher.decrypt(&p, &ct, &mut Vec::new()).is_err(),
                "accepted modified AAD"
            );
        }
    }

    if matches!(entry.kind, Kind::BlockMode | Kind::Stream) {
        let streamed = stream(&*cipher, &params, Direction::Encrypt, &pt, &c.chunks)?;
        prop_assert_eq!(
            &streamed,
            &ct,
            "chunked streaming encryption differs from one-shot"
        );
        let streamed_back = stream(&*cipher, &params, Direction::Decrypt, &ct, &c.chunks)?;
        prop_assert_eq!(&streamed_back, &pt, "chunked streaming decryption differs");
    }
    Ok(())
}

/// Feeds `data` through `streaming` in chunks of `granule * k` bytes (k from
/// `chunks`, cycled), keeping at least the last granule for `finish`.
fn stream(
    cipher: &dyn ciphermeter_catalogue::Cipher,
    params: &Params<'_>,
    direction: Direction,
    data: &[u8],
    chunks: &[usize],
) -> Result<Vec<u8>, TestCaseError> {
    let fail = |what: &str, e: ciphermeter_catalogue::Error| {
        TestCaseError::fail(format!("streaming {what}: {e}"))
    };
    let mut s = cipher
        .streaming(params, direction)
        .map_err(|e| fail("start", e))?;
    let g = s.granule();
    // Padded decryption must see the final block in `finish` to unpad it.
    let keep = if g > 1 { g.min(data.len()) } else { 0 };
    let body = (data.len() - keep) / g * g;
    let mut out = data[..body].to_vec();
    let mut pos = 0;
    for &k in chunks.iter().cycle() {
        if pos >= body {
            break;
        }
        if k == 0 {
            // An empty chunk must be harmless; then move on by one granule.
            s.update(&mut []).map_err(|e| fail("empty update", e))?;
        }
        let end = (pos + k.max(1) * g).min(body);
        s.update(&mut out[pos..end])
            .map_err(|e| fail("update", e))?;
        pos = end;
    }
    s.finish(&data[body..], &mut out)
        .map_err(|e| fail("finish", e))?;
    Ok(out)
}

#[test]
fn every_cipher_entry_round_trips_on_every_backend() {
    let mut failures = Vec::new();
    let mut runs = 0;
    for entry in cipher_entries() {
        // The default backend is the first listed, so listing each covers it.
        for backend in entry.backends().into_iter().map(Some) {
            runs += 1;
            let t = std::time::Instant::now();
            let mut runner = TestRunner::new(Config {
                cases: CASES,
                failure_persistence: None,
                ..Config::default()
            });
            if let Err(e) = runner.run(&case(), |c| round_trip(entry, backend, &c)) {
                failures.push(format!("{} [{}]: {e}", entry.id, backend_name(backend)));
            }
            if std::env::var_os("KAT_TIMING").is_some() {
                eprintln!(
                    "{:>8.2?} {} [{}]",
                    t.elapsed(),
                    entry.id,
                    backend_name(backend)
                );
            }
        }
    }
    assert!(runs > 100, "only {runs} entry/backend pairs");
    assert!(
        failures.is_empty(),
        "{} round-trip failures:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

/// Every padding of every ECB/CBC entry round-trips at each length around a
/// block boundary (the property test above samples them; this covers them all).
#[test]
fn every_padding_round_trips_at_block_boundaries() {
    let mut failures = Vec::new();
    for entry in cipher_entries().filter(|e| e.mode.is_some_and(|m| m.is_padded())) {
        let bs = entry.block_size.unwrap();
        let key = vec![0x5a; entry.key_sizes[0]];
        let iv = vec![0xa5; entry.nonce_sizes.first().copied().unwrap_or(0)];
        let mut cipher = entry.cipher(None, &key).expect("key setup");
        for padding in Padding::ALL {
            for len in [0, 1, bs - 1, bs, bs + 1, 2 * bs] {
                if padding == Padding::None && len % bs != 0 {
                    continue;
                }
                let pt: Vec<u8> = (1..=len as u8).collect();
                let params = Params {
                    iv: &iv,
                    aad: &[],
                    padding,
                };
                let mut ct = Vec::new();
                let mut back = Vec::new();
                let ok = cipher.encrypt(&params, &pt, &mut ct).is_ok()
                    && cipher.decrypt(&params, &ct, &mut back).is_ok()
                    && back == pt
                    && ct.len() == entry.ciphertext_len(len, padding);
                if !ok {
                    failures.push(format!(
                        "{} {} len {len}: ct {} back {}",
                        entry.id,
                        padding.as_str(),
                        hex::encode(&ct),
                        hex::encode(&back)
                    ));
                }
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} padding failures:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

#[test]
fn padding_none_rejects_partial_blocks() {
    for entry in cipher_entries().filter(|e| e.mode.is_some_and(|m| m.is_padded())) {
        let key = vec![1; entry.key_sizes[0]];
        let iv = vec![2; entry.nonce_sizes.first().copied().unwrap_or(0)];
        let mut cipher = entry.cipher(None, &key).expect("key setup");
        let params = Params {
            iv: &iv,
            aad: &[],
            padding: Padding::None,
        };
        let mut out = Vec::new();
        let result = cipher.encrypt(&params, &[0u8; 3], &mut out);
        assert!(
            result.is_err(),
            "{}: padding none accepted 3 bytes",
            entry.id
        );
    }
}
