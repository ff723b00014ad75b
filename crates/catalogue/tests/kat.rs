//! Known-answer tests: every catalogue entry against official vectors
//! (tests/vectors/*.txt, see its README.md, plus the primitives crate's files),
//! through every backend it lists, and a completeness check that fails for any
//! entry left without official coverage.

mod kat_support;

use std::collections::{BTreeMap, BTreeSet};

use ciphermeter_catalogue::{Backend, Direction, Entry, Kind, Mode, Padding, Params, catalogue};
use kat_support::parse::{self, Vector};
use kat_support::{backend_name, backends_of, first_mismatch, sources};

fn all_vectors() -> Vec<Vector> {
    let mut v = parse::load_all();
    v.extend(sources::load());
    v
}

/// Fails with one line per problem, so a run shows every failing entry at once.
fn report(what: &str, failures: &[String]) {
    assert!(
        failures.is_empty(),
        "{} {what}:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
}

fn padding_of(v: &Vector) -> Padding {
    v.get("padding").map_or(Padding::None, |p| {
        Padding::parse(p).unwrap_or_else(|| panic!("{}: unknown padding {p}", v.origin))
    })
}

/// Runs one cipher vector through one backend: encrypt, decrypt and (for
/// block modes and streams) the streaming interface.
fn check_cipher(entry: &'static Entry, backend: Option<Backend>, v: &Vector) -> Result<(), String> {
    let (key, iv, aad) = (v.bytes("key"), v.bytes("iv"), v.bytes("aad"));
    let (pt, ct) = (v.bytes("pt"), v.bytes("ct"));
    let offset: usize = v
        .get("offset")
        .map_or(0, |o| o.parse().expect("offset is a number"));
    let params = Params {
        iv: &iv,
        aad: &aad,
        padding: padding_of(v),
    };
    let mut cipher = entry
        .cipher(backend, &key)
        .map_err(|e| format!("key setup: {e}"))?;

    let mut input = vec![0u8; offset];
    input.extend_from_slice(&pt);
    let mut out = Vec::new();
    cipher
        .encrypt(&params, &input, &mut out)
        .map_err(|e| format!("encrypt: {e}"))?;
    if let Some(m) = first_mismatch(out.get(offset..).unwrap_or_default(), &ct) {
        return Err(format!("encrypt: {m}"));
    }

    let mut input = vec![0u8; offset];
    input.extend_from_slice(&ct);
    let mut back = Vec::new();
    cipher
        .decrypt(&params, &input, &mut back)
        .map_err(|e| format!("decrypt: {e}"))?;
    if let Some(m) = first_mismatch(back.get(offset..).unwrap_or_default(), &pt) {
        return Err(format!("decrypt: {m}"));
    }

    // Wycheproof-style: a flipped bit anywhere in ciphertext or tag is refused.
    if entry.kind == Kind::Aead {
        for at in offset..input.len() {
            let mut bad = input.clone();
            bad[at] ^= 0x01 << (at % 8);
            if cipher.decrypt(&params, &bad, &mut Vec::new()).is_ok() {
                return Err(format!(
                    "decrypt accepts a flipped bit in byte {}",
                    at - offset
                ));
            }
        }
    }

    if matches!(entry.kind, Kind::BlockMode | Kind::Stream) {
        let mut s = cipher
            .streaming(&params, Direction::Encrypt)
            .map_err(|e| format!("streaming: {e}"))?;
        let mut data = vec![0u8; offset];
        data.extend_from_slice(&pt);
        // All whole granules but the last go through update, the rest to finish.
        let g = s.granule();
        let split = (data.len().saturating_sub(1) / g) * g;
        let (head, tail) = data.split_at_mut(split);
        s.update(head)
            .map_err(|e| format!("streaming update: {e}"))?;
        let mut out = head.to_vec();
        s.finish(tail, &mut out)
            .map_err(|e| format!("streaming finish: {e}"))?;
        if let Some(m) = first_mismatch(out.get(offset..).unwrap_or_default(), &ct) {
            return Err(format!("streaming encrypt: {m}"));
        }
    }
    Ok(())
}

fn check_digest(entry: &Entry, backend: Option<Backend>, v: &Vector) -> Result<(), String> {
    let (msg, want) = (v.bytes("msg"), v.bytes("out"));
    let mut out = Vec::new();
    match entry.kind {
        Kind::Hash => entry
            .hasher(backend)
            .map_err(|e| e.to_string())?
            .digest(&msg, &mut out),
        Kind::Mac => {
            let mut mac = entry
                .mac(backend, &v.bytes("key"))
                .map_err(|e| format!("key setup: {e}"))?;
            mac.compute(&msg, &mut out)
                .map_err(|e| format!("compute: {e}"))?;
            mac.verify(&msg, &want)
                .map_err(|e| format!("verify rejects the official tag: {e}"))?;
            let mut bad = want.clone();
            bad[0] ^= 1;
            if mac.verify(&msg, &bad).is_ok() {
                return Err("verify accepts a tag with a flipped bit".into());
            }
        }
        other => return Err(format!("a msg/out vector for a {other} entry")),
    }
    first_mismatch(&out, &want).map_or(Ok(()), Err)
}

/// RFC 7253 Appendix A: the iterated OCB procedure, TAGLEN 128.
fn check_ocb_iterated(
    entry: &'static Entry,
    backend: Option<Backend>,
    v: &Vector,
) -> Result<(), String> {
    let key_len = entry.key_sizes[0];
    let mut key = vec![0u8; key_len];
    key[key_len - 1] = 128; // num2str(TAGLEN, 8)
    let mut ocb = entry.cipher(backend, &key).map_err(|e| e.to_string())?;
    let nonce = |n: u32| {
        let mut b = [0u8; 12];
        b[8..].copy_from_slice(&n.to_be_bytes());
        b
    };
    let mut seal = |n: u32, aad: &[u8], pt: &[u8], out: &mut Vec<u8>| {
        let iv = nonce(n);
        ocb.encrypt(
            &Params {
                iv: &iv,
                aad,
                padding: Padding::None,
            },
            pt,
            out,
        )
        .map_err(|e| e.to_string())
    };
    let mut c = Vec::new();
    for i in 0..128u32 {
        let s = vec![0u8; i as usize];
        seal(3 * i + 1, &s, &s, &mut c)?;
        seal(3 * i + 2, &[], &s, &mut c)?;
        seal(3 * i + 3, &s, &[], &mut c)?;
    }
    let mut out = Vec::new();
    seal(385, &c, &[], &mut out)?;
    first_mismatch(&out, &v.bytes("out")).map_or(Ok(()), Err)
}

fn check_vector(entry: &'static Entry, backend: Option<Backend>, v: &Vector) -> Result<(), String> {
    match v.get("check") {
        Some("rfc7253-iterated") => check_ocb_iterated(entry, backend, v),
        Some(other) => Err(format!("unknown check '{other}'")),
        None if v.has("out") => check_digest(entry, backend, v),
        None => check_cipher(entry, backend, v),
    }
}

#[test]
fn official_vectors_pass_on_every_backend() {
    let cat = catalogue();
    let mut failures = Vec::new();
    let mut run = 0;
    for v in all_vectors() {
        let Some(entry) = cat.get(&v.id) else {
            continue;
        }; // see every_vector_names_a_registered_entry
        for backend in backends_of(entry) {
            run += 1;
            if let Err(e) = check_vector(entry, backend, &v) {
                failures.push(format!(
                    "{} [{}] ({}; {}): {e}",
                    v.id,
                    backend_name(backend),
                    v.origin,
                    v.source
                ));
            }
        }
    }
    assert!(run > 100, "only {run} vector runs: vector files not found?");
    report("official vector failures", &failures);
}

#[test]
fn every_vector_names_a_registered_entry() {
    let cat = catalogue();
    let missing: BTreeSet<String> = all_vectors()
        .into_iter()
        .filter(|v| cat.get(&v.id).is_none())
        .map(|v| format!("{} ({})", v.id, v.origin))
        .collect();
    report(
        "vectors name entries that are not in the catalogue (not registered yet, or misnamed)",
        &missing.into_iter().collect::<Vec<_>>(),
    );
}

/// The in-project algorithms the issue requires; the lead registers them as
/// the primitives crate lands. Listed here so their absence fails loudly.
#[test]
fn in_project_entries_are_registered() {
    let cat = catalogue();
    let mut expected: Vec<String> = vec![
        "acorn-128".into(),
        "acorn-128-wide".into(),
        "ascon-128-v1.2".into(),
    ];
    for p in [
        "rijndael-256",
        "twofish-128",
        "twofish-192",
        "twofish-256",
        "present-80",
        "present-128",
        "piccolo-80",
        "piccolo-128",
        "clefia-128",
    ] {
        expected.extend(Mode::ALL.iter().map(|m| format!("{p}-{}", m.as_str())));
    }
    let missing: Vec<String> = expected
        .into_iter()
        .filter(|id| cat.get(id).is_none())
        .collect();
    report("required in-project entries are not registered", &missing);
}

/// The ECB-vector check of a mode entry: with IV = the ECB plaintext and an
/// all-zero plaintext, the first output block (CBC, CFB, OFB, CTR) or byte
/// (CFB8, OFB8) is the official ECB ciphertext.
fn check_mode_from_ecb(
    entry: &'static Entry,
    backend: Option<Backend>,
    ecb: &Vector,
) -> Result<(), String> {
    let bs = entry.block_size.expect("block-mode entry has a block size");
    let (key, ecb_pt, ecb_ct) = (ecb.bytes("key"), ecb.bytes("pt"), ecb.bytes("ct"));
    let mode = entry.mode.expect("block-mode entry has a mode");
    let zeros = vec![0u8; bs];
    let params = Params {
        iv: &ecb_pt[..bs],
        aad: &[],
        padding: Padding::None,
    };
    let mut cipher = entry
        .cipher(backend, &key)
        .map_err(|e| format!("key setup: {e}"))?;
    let mut out = Vec::new();
    cipher
        .encrypt(&params, &zeros, &mut out)
        .map_err(|e| format!("encrypt: {e}"))?;
    let n = if matches!(mode, Mode::Cfb8 | Mode::Ofb8) {
        1
    } else {
        bs
    };
    first_mismatch(&out[..n.min(out.len())], &ecb_ct[..n]).map_or(Ok(()), Err)
}

#[test]
fn mode_entries_reproduce_their_ciphers_ecb_vectors() {
    let cat = catalogue();
    let mut by_primitive: BTreeMap<String, Vec<Vector>> = BTreeMap::new();
    for v in all_vectors() {
        if let Some(e) = cat.get(&v.id).filter(|e| e.mode == Some(Mode::Ecb)) {
            by_primitive.entry(e.primitive.clone()).or_default().push(v);
        }
    }
    let mut failures = Vec::new();
    let mut checked = 0;
    for entry in cat
        .entries()
        .iter()
        .filter(|e| e.kind == Kind::BlockMode && e.mode != Some(Mode::Ecb))
    {
        for ecb in by_primitive
            .get(&entry.primitive)
            .into_iter()
            .flatten()
            .take(2)
        {
            if !entry.key_sizes.contains(&ecb.bytes("key").len()) {
                continue;
            }
            for backend in backends_of(entry) {
                checked += 1;
                if let Err(e) = check_mode_from_ecb(entry, backend, ecb) {
                    failures.push(format!(
                        "{} [{}] with ECB vector {}: {e}",
                        entry.id,
                        backend_name(backend),
                        ecb.origin
                    ));
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} mode checks ran");
    report(
        "mode entries disagree with their cipher's official ECB vector",
        &failures,
    );
}

/// Reference implementations of the mode definitions (SP 800-38A; for the
/// 8-bit variants the s-bit CFB/OFB shift register with s = 8, as in FIPS 81)
/// over the entry's own ECB primitive, itself checked against official vectors.
fn reference_mode(
    ecb: &mut dyn FnMut(&[u8]) -> Vec<u8>,
    mode: Mode,
    iv: &[u8],
    pt: &[u8],
) -> Vec<u8> {
    let bs = iv.len();
    let mut reg = iv.to_vec();
    let mut out = Vec::with_capacity(pt.len());
    match mode {
        Mode::Ecb => pt.chunks(bs).for_each(|b| out.extend(ecb(b))),
        Mode::Cbc => {
            for b in pt.chunks(bs) {
                let x: Vec<u8> = b.iter().zip(&reg).map(|(p, r)| p ^ r).collect();
                reg = ecb(&x);
                out.extend(&reg);
            }
        }
        Mode::Cfb => {
            for b in pt.chunks(bs) {
                let k = ecb(&reg);
                let c: Vec<u8> = b.iter().zip(&k).map(|(p, k)| p ^ k).collect();
                if c.len() == bs {
                    reg = c.clone();
                }
                out.extend(c);
            }
        }
        Mode::Ofb => {
            for b in pt.chunks(bs) {
                reg = ecb(&reg);
                out.extend(b.iter().zip(&reg).map(|(p, k)| p ^ k));
            }
        }
        Mode::Ctr => {
            for b in pt.chunks(bs) {
                let k = ecb(&reg);
                out.extend(b.iter().zip(&k).map(|(p, k)| p ^ k));
                // The counter is the whole block, big-endian.
                for byte in reg.iter_mut().rev() {
                    *byte = byte.wrapping_add(1);
                    if *byte != 0 {
                        break;
                    }
                }
            }
        }
        Mode::Cfb8 | Mode::Ofb8 => {
            for &p in pt {
                let k = ecb(&reg)[0];
                let c = p ^ k;
                reg.remove(0);
                reg.push(if mode == Mode::Cfb8 { c } else { k });
                out.push(c);
            }
        }
    }
    out
}

#[test]
fn mode_entries_follow_the_mode_definitions() {
    let cat = catalogue();
    let mut failures = Vec::new();
    for entry in cat
        .entries()
        .iter()
        .filter(|e| e.kind == Kind::BlockMode && e.mode != Some(Mode::Ecb))
    {
        let mode = entry.mode.unwrap();
        let bs = entry.block_size.unwrap();
        let ecb_id = format!("{}-ecb", entry.primitive);
        let Some(ecb_entry) = cat.get(&ecb_id) else {
            failures.push(format!(
                "{}: no {ecb_id} entry to build the reference from",
                entry.id
            ));
            continue;
        };
        let key: Vec<u8> = (0..entry.key_sizes[entry.key_sizes.len() / 2])
            .map(|i| (i * 7 + 3) as u8)
            .collect();
        let iv: Vec<u8> = (0..bs).map(|i| (0xf0 + i) as u8).collect();
        // Three whole blocks, plus half a block for the modes that take any length.
        let len = 3 * bs + if mode.is_padded() { 0 } else { bs / 2 };
        let pt: Vec<u8> = (0..len).map(|i| (i * 31 + 1) as u8).collect();
        let mut ecb_cipher = ecb_entry.cipher(None, &key).expect("ecb key setup");
        let mut ecb = |block: &[u8]| {
            let mut o = Vec::new();
            ecb_cipher
                .encrypt(
                    &Params {
                        padding: Padding::None,
                        ..Default::default()
                    },
                    block,
                    &mut o,
                )
                .expect("ecb");
            o
        };
        let want = reference_mode(&mut ecb, mode, &iv, &pt);
        for backend in backends_of(entry) {
            let mut c = entry.cipher(backend, &key).expect("key setup");
            let mut got = Vec::new();
            let params = Params {
                iv: &iv,
                aad: &[],
                padding: Padding::None,
            };
            match c.encrypt(&params, &pt, &mut got) {
                Ok(()) => {
                    if let Some(m) = first_mismatch(&got, &want) {
                        failures.push(format!("{} [{}]: {m}", entry.id, backend_name(backend)));
                    }
                }
                Err(e) => failures.push(format!(
                    "{} [{}]: encrypt: {e}",
                    entry.id,
                    backend_name(backend)
                )),
            }
        }
    }
    report(
        "mode entries differ from the mode's definition over their ECB primitive",
        &failures,
    );
}

/// How an entry is covered by official vectors.
fn coverage(entry: &Entry, own: &BTreeSet<String>) -> Option<String> {
    let cat = catalogue();
    if own.contains(&entry.id) {
        return Some("own official vector".into());
    }
    let primitive_ecb = format!("{}-ecb", entry.primitive);
    let has_ecb = own.contains(&primitive_ecb);
    match entry.kind {
        Kind::BlockMode => {
            let mode = entry.mode?;
            let sibling = own
                .iter()
                .filter_map(|id| cat.get(id))
                .find(|e| e.kind == Kind::BlockMode && e.mode == Some(mode))?;
            has_ecb.then(|| {
                format!(
                    "{primitive_ecb} vector + {} mode vector (same generic mode code)",
                    sibling.id
                )
            })
        }
        Kind::Aead => {
            // e.g. aes-256-eax: the primitive's vector + the same AEAD mode's vector.
            let suffix = entry.id.strip_prefix(&entry.primitive)?;
            let sibling = own
                .iter()
                .find(|id| id.ends_with(suffix) && id.as_str() != entry.id)?;
            has_ecb.then(|| {
                format!("{primitive_ecb} vector + {sibling} vector (same generic AEAD code)")
            })
        }
        Kind::Mac => {
            let hash = entry.id.strip_prefix("hmac-")?;
            let hmac = own.iter().find(|id| id.starts_with("hmac-"))?;
            own.contains(hash)
                .then(|| format!("{hash} vector + {hmac} vector (same generic HMAC code)"))
        }
        _ => None,
    }
}

#[test]
fn every_entry_has_official_coverage() {
    let cat = catalogue();
    let own: BTreeSet<String> = all_vectors()
        .into_iter()
        .map(|v| v.id)
        .filter(|id| cat.get(id).is_some())
        .collect();
    let mut missing = Vec::new();
    let mut table = Vec::new();
    for entry in cat.entries().iter().filter(|e| e.kind != Kind::Asymmetric) {
        match coverage(entry, &own) {
            Some(how) => table.push(format!("{:<24} {how}", entry.id)),
            None => missing.push(entry.id.clone()),
        }
    }
    println!(
        "coverage of {} entries:\n{}",
        table.len() + missing.len(),
        table.join("\n")
    );
    if !sources::missing_files().is_empty() {
        println!(
            "primitives vector files not present yet: {}",
            sources::missing_files().join(", ")
        );
    }
    report(
        "entries have no official vector and no (ECB vector + same-mode vector) coverage",
        &missing,
    );
}

#[test]
fn vector_value_syntax() {
    use parse::decode_value;
    assert_eq!(decode_value("").unwrap(), b"");
    assert_eq!(decode_value("0aFF").unwrap(), [0x0a, 0xff]);
    assert_eq!(decode_value("00*3+01").unwrap(), [0, 0, 0, 1]);
    assert_eq!(decode_value("\"a b\"+00").unwrap(), b"a b\0");
    assert!(decode_value("0g").is_err());
}
