//! The fuzz targets' bodies: what each `fuzz_targets/NAME.rs` runs on an input
//! ([`TARGETS`]). libFuzzer runs them through `scripts/fuzz`; the workspace's test
//! build compiles this same file and runs every body on its seeds and on mutations of
//! them (`crates/cli/tests/fuzz_bodies.rs`), which is CI's fuzz smoke.
//!
//! They share fixed test keys in `fuzz/keys/` (made by `fuzz/make-seeds` with
//! `ciphermeter keygen`), read through the same parser as any key file. The seed
//! messages in `corpus-seed/` are sealed with them, so mutations start from messages
//! that pass the key and scheme checks.

use std::cell::RefCell;
use std::time::{Duration, Instant};

use live::Keyring;
use live::framing::{Deframer, Event, Framing};
use measure::BenchReport;
use seal::host::oscore::OscoreKey;
use seal::{Container, HostSealer, SealKey};

/// What a target runs on one input.
pub type Body = fn(&[u8]);

/// Every target: its name (its file in `fuzz_targets/` and its seed directory in
/// `corpus-seed/`) and its body.
pub const TARGETS: [(&str, Body); 8] = [
    ("bench_import", bench_import),
    ("gateway", gateway),
    ("keyfile", keyfile),
    ("open_binary", open_binary),
    ("open_cose", open_cose),
    ("open_json", open_json),
    ("open_oscore", open_oscore),
    ("pq_keys", pq_keys),
];

/// Name and contents of every key file, in a fixed order.
pub const KEY_FILES: [(&str, &[u8]); 4] = [
    ("aes-gcm-a", include_bytes!("../keys/aes-gcm-a.key")),
    ("aes-gcm-b", include_bytes!("../keys/aes-gcm-b.key")),
    ("etm", include_bytes!("../keys/etm.key")),
    ("hmac", include_bytes!("../keys/hmac.key")),
];

pub fn key(name: &str) -> SealKey {
    let (_, bytes) = KEY_FILES
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a key of fuzz/keys");
    SealKey::parse(bytes, name).expect("fuzz/keys holds valid key files")
}

thread_local! {
    // Key schedules run once per process, not once per input.
    static SEALERS: RefCell<Vec<HostSealer>> = RefCell::new(
        KEY_FILES
            .iter()
            .map(|(name, _)| HostSealer::new(&key(name), false).expect("a secure scheme"))
            .collect(),
    );
}

/// Opens `message` in `container` under every test key; errors are the expected outcome.
pub fn open_with_every_key(container: Container, message: &[u8]) {
    SEALERS.with_borrow_mut(|sealers| {
        for sealer in sealers {
            let _ = sealer.open(container, message);
        }
    });
}

/// `open` on the binary container: any bytes, under every test key.
pub fn open_binary(message: &[u8]) {
    open_with_every_key(Container::Binary, message);
}

/// `open` on the cose container: any bytes, under every test key.
pub fn open_cose(message: &[u8]) {
    open_with_every_key(Container::Cose, message);
}

/// `open` on the json container: any bytes, under every test key.
pub fn open_json(message: &[u8]) {
    open_with_every_key(Container::Json, message);
}

/// The gateway's OSCORE context (`fuzz/keys/oscore-gw.key`), keyed once per process.
pub const OSCORE_GW: &[u8] = include_bytes!("../keys/oscore-gw.key");

thread_local! {
    static OSCORE: OscoreKey =
        OscoreKey::parse(OSCORE_GW, "oscore-gw")
            .expect("fuzz/keys holds a valid OSCORE context");
}

/// Verifies `message` as an OSCORE request under the gateway's context, with a
/// fresh replay window (so a seed's sequence number is never a replay), and
/// reads the CoAP message and its options on their own.
pub fn open_oscore(message: &[u8]) {
    if let Ok(parsed) = seal::oscore::coap::parse(message) {
        for option in parsed.options() {
            if option.is_err() {
                break;
            }
        }
    }
    OSCORE.with(|key| {
        let ctx = key.context();
        let mut window = seal::oscore::ReplayWindow::new();
        let mut buf = vec![0u8; message.len()];
        if let Ok((inner, _, _)) =
            seal::oscore::unprotect_request(ctx, &mut window, message, &mut buf)
        {
            for option in inner.options() {
                if option.is_err() {
                    break;
                }
            }
        }
    });
}

/// `ciphermeter import`'s reader: `BenchReport::from_json` on any text.
pub fn bench_import(bytes: &[u8]) {
    // `import` reads the file as UTF-8 text first; other bytes never reach the parser.
    if let Ok(text) = std::str::from_utf8(bytes) {
        let _ = BenchReport::from_json(text);
    }
}

/// Key-file loading: `SealKey::parse` on any bytes, then, as `seal` and `open` do
/// with a loaded key, the key schedules (`HostSealer::new`); and the same bytes as an
/// OSCORE context file (`OscoreKey::parse` derives its context).
pub fn keyfile(bytes: &[u8]) {
    if let Ok(key) = SealKey::parse(bytes, "fuzz") {
        let _ = HostSealer::new(&key, true);
    }
    let _ = OscoreKey::parse(bytes, "fuzz");
}

const RINGS: [&[&str]; 3] = [&["aes-gcm-a", "aes-gcm-b"], &["etm"], &["hmac"]];

thread_local! {
    // keyrings[ring][container]
    static KEYRINGS: RefCell<Vec<Vec<Keyring>>> = RefCell::new(
        RINGS
            .iter()
            .map(|names| {
                let keys: Vec<_> = names.iter().map(|n| key(n)).collect();
                Container::ALL
                    .iter()
                    .map(|&c| Keyring::from_keys(&keys, c).expect("distinct key ids"))
                    .collect()
            })
            .collect(),
    );
}

/// The gateway's receiving path: a byte stream through the deframer, every message
/// it yields opened by a keyring, as `gateway::run` does per connection.
///
/// Input: two control bytes, then the stream.
/// - byte 0: container (low 3 bits mod 3: json, binary, cose), 0x08 for the other
///   framing than the container's own, and keyring (high 4 bits mod 3: two aes-gcm
///   keys, random and counter nonces, so the key id picks; etm; hmac).
/// - byte 1: chunk size the stream arrives in (1..=64); whether the largest message
///   is the gateway's default 16 KiB or 200 bytes (overlong frames); whether the idle
///   time passes between chunks (truncated frames).
pub fn gateway(data: &[u8]) {
    let [mode, shape, stream @ ..] = data else {
        return;
    };
    let which = usize::from(mode & 0x07) % 3;
    let container = Container::ALL[which];
    let framing = match (Framing::for_container(container), mode & 0x08 != 0) {
        (own, false) => own,
        (Framing::Line, true) => Framing::Len,
        (Framing::Len, true) => Framing::Line,
    };
    let ring = usize::from(mode >> 4) % RINGS.len();
    let chunk = usize::from(shape & 0x3f) + 1;
    let max = if shape & 0x40 != 0 { 200 } else { 16 * 1024 };
    let idle = Duration::from_millis(500);

    let mut deframer = Deframer::new(framing, max, idle);
    let mut now = Instant::now();
    let mut events = Vec::new();
    for piece in stream.chunks(chunk) {
        deframer.push(piece, now, &mut events);
        if shape & 0x80 != 0 {
            now += idle;
        }
        deframer.expire(now, &mut events);
    }
    deframer.expire(now + idle, &mut events);

    KEYRINGS.with_borrow_mut(|rings| {
        let keyring = &mut rings[ring][which];
        for event in events {
            if let Event::Message(message) = event {
                let _ = keyring.open(&message);
            }
        }
    });
}

const PQ_IDS: [&str; 5] = [
    "ml-kem-512",
    "ml-kem-768",
    "ml-dsa-44",
    "ml-dsa-65",
    "x-wing",
];

/// Post-quantum keys, ciphertexts and signatures as they come from outside
/// (`--public-key`, key files, `decapsulate --input`, `verify --signature`).
/// The input is a key and what follows it: two bytes of key length (big-endian),
/// the key, then the rest. Every ML-KEM, ML-DSA and X-Wing entry loads the key as a
/// public and as a private key and uses what loads: encapsulates, decapsulates the
/// rest, verifies the rest as a signature.
pub fn pq_keys(bytes: &[u8]) {
    let Some((len, body)) = bytes.split_first_chunk::<2>() else {
        return;
    };
    let len = (u16::from_be_bytes(*len) as usize).min(body.len());
    let (key, rest) = body.split_at(len);
    for id in PQ_IDS {
        let scheme = catalogue::catalogue()
            .get(id)
            .unwrap()
            .asymmetric(None)
            .unwrap();
        if let Ok(public) = scheme.load_public(key) {
            let _ = public.encapsulate();
            let _ = public.verify_with_context(b"reading", b"", rest);
        }
        if let Ok(private) = scheme.load_private(key) {
            let _ = private.decapsulate(rest);
        }
    }
}
