//! What is measured for each catalogue entry: the operations its kind offers,
//! the key, nonce and message it is fed, and one monomorphic closure per
//! operation so the timed loop pays one virtual call into the catalogue and
//! nothing else.
//!
//! Each closure returns `is_ok()`, not the `Result`: the sampler passes the
//! closure's value through `black_box`, and moving the 80-byte
//! `Result<_, catalogue::Error>` through it cost about 6 ns per call, a third
//! of the identity floor. The calls are virtual, so the work cannot be
//! optimised away either way; the result was checked before sampling.

use std::fmt;

use catalogue::{AsymOp, Backend, Entry, Kind, Padding, Params};
use serde::{Deserialize, Serialize};

use crate::interrupt::Interrupted;
use crate::placement::{PlacedInput, output_buffer};
use crate::sampler::{Measurement, Sampler};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Operation {
    /// The key schedule: constructing a keyed cipher or MAC.
    Keysetup,
    Keygen,
    Encrypt,
    Decrypt,
    Digest,
    /// A signature, or a MAC tag.
    Sign,
    /// Checking a signature or a MAC tag.
    Verify,
    /// Key agreement (X25519, ECDH).
    Agree,
    /// A KEM's sender side (ML-KEM, X-Wing).
    Encapsulate,
    /// A KEM's receiver side.
    Decapsulate,
}

impl Operation {
    /// A comma-separated list of operations; an unknown one names the known.
    pub fn parse_list(list: &str) -> Result<Vec<Operation>, String> {
        list.split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|s| {
                Operation::parse(s).ok_or_else(|| {
                    let known: Vec<&str> = Operation::ALL.iter().map(|o| o.as_str()).collect();
                    format!(
                        "unknown operation '{}' (known: {})",
                        s.trim(),
                        known.join(", ")
                    )
                })
            })
            .collect()
    }

    pub const ALL: [Operation; 10] = [
        Operation::Keysetup,
        Operation::Keygen,
        Operation::Encrypt,
        Operation::Decrypt,
        Operation::Digest,
        Operation::Sign,
        Operation::Verify,
        Operation::Agree,
        Operation::Encapsulate,
        Operation::Decapsulate,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Operation::Keysetup => "keysetup",
            Operation::Keygen => "keygen",
            Operation::Encrypt => "encrypt",
            Operation::Decrypt => "decrypt",
            Operation::Digest => "digest",
            Operation::Sign => "sign",
            Operation::Verify => "verify",
            Operation::Agree => "agree",
            Operation::Encapsulate => "encapsulate",
            Operation::Decapsulate => "decapsulate",
        }
    }

    pub fn parse(text: &str) -> Option<Operation> {
        let text = text.trim().to_ascii_lowercase();
        let text = match text.as_str() {
            "compute" | "mac" | "tag" => "sign",
            "hash" => "digest",
            "key-setup" | "setup" => "keysetup",
            other => other,
        };
        Operation::ALL.into_iter().find(|o| o.as_str() == text)
    }

    /// Operations whose cost does not depend on the message size: measured
    /// once per algorithm, not once per size.
    pub fn is_size_free(self) -> bool {
        matches!(
            self,
            Operation::Keysetup
                | Operation::Keygen
                | Operation::Agree
                | Operation::Encapsulate
                | Operation::Decapsulate
        )
    }
}

impl fmt::Display for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The operations an entry offers, in measuring order.
pub fn operations_of(entry: &Entry, backend: Backend) -> Vec<Operation> {
    use Operation::*;
    match entry.kind {
        Kind::BlockMode | Kind::Stream | Kind::Aead | Kind::Baseline => {
            vec![Keysetup, Encrypt, Decrypt]
        }
        Kind::Hash => vec![Digest],
        Kind::Mac => vec![Keysetup, Sign, Verify],
        Kind::Asymmetric => {
            let mut ops = vec![Keygen];
            if let Ok(scheme) = entry.asymmetric(Some(backend)) {
                for op in scheme.operations() {
                    ops.push(match op {
                        AsymOp::Sign => Sign,
                        AsymOp::Verify => Verify,
                        AsymOp::Encrypt => Encrypt,
                        AsymOp::Decrypt => Decrypt,
                        AsymOp::Agree => Agree,
                        AsymOp::Encapsulate => Encapsulate,
                        AsymOp::Decapsulate => Decapsulate,
                    });
                }
            }
            ops
        }
    }
}

/// One thing to measure.
#[derive(Clone, Copy)]
pub struct Case {
    pub entry: &'static Entry,
    pub backend: Backend,
    pub operation: Operation,
    /// Message size in bytes (ignored by size-free operations).
    pub size: usize,
}

impl Case {
    /// The size recorded in the result: the key length for key setup, 0 for
    /// other size-free operations, else the message size.
    pub fn recorded_size(&self) -> usize {
        match self.operation {
            Operation::Keysetup => key_len(self.entry),
            Operation::Keygen
            | Operation::Agree
            | Operation::Encapsulate
            | Operation::Decapsulate => 0,
            _ => self.size,
        }
    }
}

/// What a case produced besides its timings.
#[derive(Clone, Debug)]
pub struct CaseOutput {
    pub measurement: Measurement,
    /// Bytes the operation produced (ciphertext, digest, tag, signature...).
    pub output_bytes: Option<usize>,
    /// Ciphertext minus plaintext length (padding, tag), or the tag or
    /// signature length for sign/verify.
    pub expansion_bytes: Option<i64>,
    pub key_bytes: usize,
}

#[derive(Debug, thiserror::Error)]
pub enum CaseError {
    #[error("interrupted")]
    Interrupted,
    /// The case cannot run as asked (e.g. a message too long for RSA-OAEP).
    #[error("{0}")]
    Unsupported(String),
}

impl From<Interrupted> for CaseError {
    fn from(_: Interrupted) -> Self {
        CaseError::Interrupted
    }
}

impl From<catalogue::Error> for CaseError {
    fn from(e: catalogue::Error) -> Self {
        CaseError::Unsupported(e.to_string())
    }
}

/// The key length used: the only one, else 16 bytes when allowed (the
/// studies' 128-bit keys), else the longest; for MACs taking any length, a
/// key as long as the tag (RFC 2104's advice).
pub fn key_len(entry: &Entry) -> usize {
    match entry.key_sizes.as_slice() {
        [] if entry.kind == Kind::Mac => entry.output_size.unwrap_or(32),
        [] => 0,
        [one] => *one,
        many if many.contains(&16) => 16,
        many => *many.iter().max().unwrap(),
    }
}

fn nonce_len(entry: &Entry) -> usize {
    let sizes = &entry.nonce_sizes;
    if sizes.contains(&12) {
        12
    } else {
        sizes.last().copied().unwrap_or(0)
    }
}

/// Deterministic filler: benchmarks need no secrecy, only repeatability.
pub fn pattern(len: usize, salt: u8) -> Vec<u8> {
    (0..len)
        .map(|i| (i as u8).wrapping_mul(131).wrapping_add(salt))
        .collect()
}

/// A fresh nonce per encryption: a counter in the nonce's first 8 bytes,
/// so no nonce repeats under one key even in a benchmark.
struct NonceCounter {
    bytes: Vec<u8>,
    count: u64,
}

impl NonceCounter {
    fn new(len: usize) -> NonceCounter {
        NonceCounter {
            bytes: pattern(len, 0x5a),
            count: 0,
        }
    }

    #[inline(always)]
    fn next(&mut self) -> &[u8] {
        if self.bytes.len() >= 8 {
            self.count += 1;
            self.bytes[..8].copy_from_slice(&self.count.to_le_bytes());
        }
        &self.bytes
    }
}

/// A case ready to time: the operation, with everything it needs owned by
/// it, and what it produces besides its timings.
pub struct Prepared {
    op: Box<dyn FnMut()>,
    output_bytes: Option<usize>,
    expansion_bytes: Option<i64>,
    key_bytes: usize,
}

impl Prepared {
    fn new(
        mut op: impl FnMut() -> bool + 'static,
        output_bytes: Option<usize>,
        expansion_bytes: Option<i64>,
        key_bytes: usize,
    ) -> Prepared {
        Prepared {
            op: Box::new(move || {
                std::hint::black_box(op());
            }),
            output_bytes,
            expansion_bytes,
            key_bytes,
        }
    }

    fn output(&self, measurement: Measurement) -> CaseOutput {
        CaseOutput {
            measurement,
            output_bytes: self.output_bytes,
            expansion_bytes: self.expansion_bytes,
            key_bytes: self.key_bytes,
        }
    }
}

/// Runs a case through the sampler on its own.
pub fn measure_case(sampler: &mut Sampler, case: Case) -> Result<CaseOutput, CaseError> {
    let mut prepared = prepare(case)?;
    let m = sampler.measure(&mut prepared.op)?;
    Ok(prepared.output(m))
}

/// Cases measured together, their samples interleaved in rounds: one
/// operation at one size across algorithms and backends, so the comparison
/// that matters (which is faster here) is the one drift cannot bias.
/// Each group lists indices into `cases`, in their order.
pub fn interleave_groups(cases: &[Case]) -> Vec<Vec<usize>> {
    let key = |c: &Case| (c.operation, c.recorded_size());
    let mut groups: Vec<Vec<usize>> = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        match groups.iter_mut().find(|g| key(&cases[g[0]]) == key(case)) {
            Some(group) => group.push(i),
            None => groups.push(vec![i]),
        }
    }
    groups
}

/// Measures a group of cases interleaved (see `Sampler::measure_interleaved`).
/// Each case's outcome is in the order given; a case that cannot run is
/// `Unsupported` without stopping the others. An interruption loses only
/// this group: its cases finish together.
pub fn measure_group(
    sampler: &mut Sampler,
    cases: &[Case],
) -> Result<Vec<Result<CaseOutput, CaseError>>, Interrupted> {
    let mut prepared: Vec<Result<Prepared, CaseError>> =
        cases.iter().map(|&c| prepare(c)).collect();
    let mut ops: Vec<&mut dyn FnMut()> = prepared
        .iter_mut()
        .filter_map(|p| p.as_mut().ok())
        .map(|p| &mut *p.op as &mut dyn FnMut())
        .collect();
    let mut measured = sampler.measure_interleaved(&mut ops)?.into_iter();
    Ok(prepared
        .into_iter()
        .map(|p| {
            let p = p?;
            let m = measured.next().expect("one measurement per prepared case");
            Ok(p.output(m))
        })
        .collect())
}

/// Builds the operation of a case, checking once that it works.
pub fn prepare(case: Case) -> Result<Prepared, CaseError> {
    match case.entry.kind {
        Kind::BlockMode | Kind::Stream | Kind::Aead | Kind::Baseline => prepare_cipher(case),
        Kind::Hash => prepare_hash(case),
        Kind::Mac => prepare_mac(case),
        Kind::Asymmetric => prepare_asymmetric(case),
    }
}

fn unsupported(case: &Case) -> CaseError {
    CaseError::Unsupported(format!(
        "{} ({}) has no '{}' operation",
        case.entry.id, case.entry.kind, case.operation
    ))
}

fn prepare_cipher(case: Case) -> Result<Prepared, CaseError> {
    let entry = case.entry;
    let key = pattern(key_len(entry), 0x11);
    let key_bytes = key.len();
    let backend = Some(case.backend);
    let padding = if entry.mode.is_some_and(|m| m.is_padded()) {
        Padding::Pkcs7
    } else {
        Padding::None
    };
    if case.operation == Operation::Keysetup {
        entry.cipher(backend, &key)?;
        let op = move || entry.cipher(backend, &key).is_ok();
        return Ok(Prepared::new(op, None, None, key_bytes));
    }

    let mut cipher = entry.cipher(backend, &key)?;
    let message = pattern(case.size, 0x33);
    let fixed_nonce = pattern(nonce_len(entry), 0x77);
    let fixed = Params {
        iv: &fixed_nonce,
        aad: &[],
        padding,
    };
    let mut ciphertext = Vec::new();
    cipher.encrypt(&fixed, &message, &mut ciphertext)?;
    let expansion = ciphertext.len() as i64 - message.len() as i64;
    let mut out = output_buffer(ciphertext.len().max(message.len()) + 64);

    match case.operation {
        Operation::Encrypt => {
            let mut nonces = NonceCounter::new(fixed_nonce.len());
            let len = ciphertext.len();
            let input = PlacedInput::new(&message, &out);
            let op = move || {
                out.clear();
                let params = Params {
                    iv: nonces.next(),
                    aad: &[],
                    padding,
                };
                cipher.encrypt(&params, input.bytes(), &mut out).is_ok()
            };
            Ok(Prepared::new(op, Some(len), Some(expansion), key_bytes))
        }
        Operation::Decrypt => {
            out.clear();
            cipher.decrypt(&fixed, &ciphertext, &mut out)?;
            if out != message {
                return Err(CaseError::Unsupported(format!(
                    "{}: decryption does not round-trip",
                    entry.id
                )));
            }
            let len = message.len();
            let input = PlacedInput::new(&ciphertext, &out);
            let op = move || {
                out.clear();
                let fixed = Params {
                    iv: &fixed_nonce,
                    aad: &[],
                    padding,
                };
                cipher.decrypt(&fixed, input.bytes(), &mut out).is_ok()
            };
            Ok(Prepared::new(op, Some(len), Some(expansion), key_bytes))
        }
        _ => Err(unsupported(&case)),
    }
}

fn prepare_hash(case: Case) -> Result<Prepared, CaseError> {
    if case.operation != Operation::Digest {
        return Err(unsupported(&case));
    }
    let mut hasher = case.entry.hasher(Some(case.backend))?;
    let mut out = output_buffer(128);
    let message = PlacedInput::new(&pattern(case.size, 0x33), &out);
    hasher.digest(message.bytes(), &mut out);
    let len = out.len();
    let op = move || {
        out.clear();
        hasher.digest(message.bytes(), &mut out);
        true
    };
    Ok(Prepared::new(op, Some(len), None, 0))
}

fn prepare_mac(case: Case) -> Result<Prepared, CaseError> {
    let entry = case.entry;
    let backend = Some(case.backend);
    let key = pattern(key_len(entry), 0x11);
    let key_bytes = key.len();
    let mut mac = entry.mac(backend, &key)?;
    let message = pattern(case.size, 0x33);
    let mut tag = Vec::with_capacity(128);
    mac.compute(&message, &mut tag)?;
    let expansion = Some(tag.len() as i64);
    match case.operation {
        Operation::Keysetup => {
            let op = move || entry.mac(backend, &key).is_ok();
            Ok(Prepared::new(op, None, expansion, key_bytes))
        }
        Operation::Sign => {
            let len = tag.len();
            let mut out = output_buffer(128);
            let message = PlacedInput::new(&message, &out);
            let op = move || {
                out.clear();
                mac.compute(message.bytes(), &mut out).is_ok()
            };
            Ok(Prepared::new(op, Some(len), expansion, key_bytes))
        }
        Operation::Verify => {
            mac.verify(&message, &tag)?;
            let op = move || mac.verify(&message, &tag).is_ok();
            Ok(Prepared::new(op, Some(0), expansion, key_bytes))
        }
        _ => Err(unsupported(&case)),
    }
}

fn prepare_asymmetric(case: Case) -> Result<Prepared, CaseError> {
    let scheme = case.entry.asymmetric(Some(case.backend))?;
    let pair = scheme.keygen()?;
    let message = pattern(case.size, 0x33);
    let key_bytes = pair.public.len();
    match case.operation {
        Operation::Keygen => {
            let op = move || scheme.keygen().is_ok();
            Ok(Prepared::new(op, Some(key_bytes), None, key_bytes))
        }
        Operation::Sign => {
            let private = scheme.load_private(&pair.private)?;
            let sig = private.sign(&message)?.len();
            let op = move || private.sign(&message).is_ok();
            Ok(Prepared::new(op, Some(sig), Some(sig as i64), key_bytes))
        }
        Operation::Verify => {
            let private = scheme.load_private(&pair.private)?;
            let public = scheme.load_public(&pair.public)?;
            let sig = private.sign(&message)?;
            public.verify(&message, &sig)?;
            let len = sig.len() as i64;
            let op = move || public.verify(&message, &sig).is_ok();
            Ok(Prepared::new(op, Some(0), Some(len), key_bytes))
        }
        Operation::Encrypt => {
            let public = scheme.load_public(&pair.public)?;
            let ct = public.encrypt(&message)?.len();
            let expansion = ct as i64 - message.len() as i64;
            let op = move || public.encrypt(&message).is_ok();
            Ok(Prepared::new(op, Some(ct), Some(expansion), key_bytes))
        }
        Operation::Decrypt => {
            let public = scheme.load_public(&pair.public)?;
            let private = scheme.load_private(&pair.private)?;
            let ct = public.encrypt(&message)?;
            let (len, expansion) = (message.len(), ct.len() as i64 - message.len() as i64);
            let op = move || private.decrypt(&ct).is_ok();
            Ok(Prepared::new(op, Some(len), Some(expansion), key_bytes))
        }
        Operation::Agree => {
            let private = scheme.load_private(&pair.private)?;
            let peer = scheme.keygen()?;
            let secret = private.agree(&peer.public)?.len();
            let op = move || private.agree(&peer.public).is_ok();
            Ok(Prepared::new(op, Some(secret), None, key_bytes))
        }
        // Output: the ciphertext a sender puts on the air, and the secret.
        Operation::Encapsulate => {
            let public = scheme.load_public(&pair.public)?;
            let ct = public.encapsulate()?.ciphertext.len();
            let op = move || public.encapsulate().is_ok();
            Ok(Prepared::new(op, Some(ct), None, key_bytes))
        }
        Operation::Decapsulate => {
            let private = scheme.load_private(&pair.private)?;
            let sent = scheme.load_public(&pair.public)?.encapsulate()?;
            let secret = private.decapsulate(&sent.ciphertext)?.len();
            let op = move || private.decapsulate(&sent.ciphertext).is_ok();
            Ok(Prepared::new(op, Some(secret), None, key_bytes))
        }
        _ => Err(unsupported(&case)),
    }
}

/// Which backends to use for each entry.
pub enum BackendChoice {
    Default,
    All,
    One(Backend),
}

/// Every (entry, backend, operation, size) to run, size-free operations
/// once; and notes on what was asked but does not apply.
pub fn plan(
    entries: &[&'static Entry],
    sizes: &[u64],
    ops: Option<&[Operation]>,
    choice: &BackendChoice,
) -> (Vec<Case>, Vec<String>) {
    let mut cases = Vec::new();
    let mut notes = Vec::new();
    for &entry in entries {
        let backends = match choice {
            BackendChoice::Default => entry.backends().into_iter().take(1).collect(),
            BackendChoice::All => entry.backends(),
            BackendChoice::One(b) if entry.backends().contains(b) => vec![*b],
            BackendChoice::One(b) => {
                notes.push(format!(
                    "{} has no {b} backend (it has: {})",
                    entry.id,
                    names(&entry.backends())
                ));
                continue;
            }
        };
        for backend in backends {
            let offered = operations_of(entry, backend);
            if let Some(wanted) = ops {
                let missing: Vec<&str> = wanted
                    .iter()
                    .filter(|o| !offered.contains(o))
                    .map(|o| o.as_str())
                    .collect();
                if !missing.is_empty() {
                    let has: Vec<&str> = offered.iter().map(|o| o.as_str()).collect();
                    notes.push(format!(
                        "{} ({}) has no {} (it has: {})",
                        entry.id,
                        entry.kind,
                        missing.join(", "),
                        has.join(", ")
                    ));
                }
            }
            for op in offered
                .into_iter()
                .filter(|o| ops.is_none_or(|w| w.contains(o)))
            {
                let sizes: &[u64] = if op.is_size_free() {
                    &sizes[..1]
                } else {
                    sizes
                };
                for &size in sizes {
                    cases.push(Case {
                        entry,
                        backend,
                        operation: op,
                        size: size as usize,
                    });
                }
            }
        }
    }
    (cases, notes)
}

fn names(backends: &[Backend]) -> String {
    backends
        .iter()
        .map(|b| b.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Measured when no algorithm is named: one of each family the studies
/// compare, plus the identity floor. About 160 results at 0.3 s each, so a
/// default run takes about a minute on one core.
pub const DEFAULT_ALGORITHMS: &[&str] = &[
    "identity",
    "aes-128-gcm",
    "aes-256-gcm",
    "chacha20-poly1305",
    "ascon-aead128",
    "aes-128-cbc",
    "aes-128-ctr",
    "chacha20",
    "sha256",
    "hmac-sha256",
];

/// The entries `bench` measures: the names given (resolved, each once), else
/// every entry of `kind`, else `defaults`; an empty choice is an error.
pub fn select(
    names: &[String],
    kind: Option<Kind>,
    defaults: &[&str],
) -> Result<Vec<&'static Entry>, String> {
    let cat = catalogue::catalogue();
    let entries: Vec<&'static Entry> = if !names.is_empty() {
        let mut found = Vec::new();
        for name in names {
            let entry = cat.resolve(name, None).map_err(|e| e.to_string())?;
            if !found.iter().any(|e: &&Entry| e.id == entry.id) {
                found.push(entry);
            }
        }
        found
    } else if kind.is_some() {
        cat.entries().iter().collect()
    } else {
        defaults.iter().filter_map(|n| cat.get(n)).collect()
    };
    let entries: Vec<_> = entries
        .into_iter()
        .filter(|e| kind.is_none_or(|k| e.kind == k))
        .collect();
    if entries.is_empty() {
        return Err("no algorithm matches: check the names and --kind".into());
    }
    Ok(entries)
}
