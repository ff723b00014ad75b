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
use std::sync::Arc;
use std::time::{Duration, Instant};

use energy::trace::{Format, Marker};
use live::Keyring;
use live::framing::{Deframer, Event, Framing};
use live::reassembly::{InProgress, Settled};
use live::schc_radio::{self, Arrived, Uplinks};
use measure::BenchReport;
use schc::fragment::{Ack, Received, Receiver, Sender};
use schc::{Direction, RuleSet};
use seal::host::oscore::OscoreKey;
use seal::{Container, HostSealer, SealKey};

/// What a target runs on one input.
pub type Body = fn(&[u8]);

/// Every target: its name (its file in `fuzz_targets/` and its seed directory in
/// `corpus-seed/`) and its body.
pub const TARGETS: [(&str, Body); 14] = [
    ("bench_import", bench_import),
    ("fragments", fragments),
    ("gateway", gateway),
    ("keyfile", keyfile),
    ("open_binary", open_binary),
    ("open_cose", open_cose),
    ("open_json", open_json),
    ("open_oscore", open_oscore),
    ("oscore_context_c", oscore_context_c),
    ("pq_keys", pq_keys),
    ("schc_decompress", schc_decompress),
    ("schc_receiver", schc_receiver),
    ("schc_rules", schc_rules),
    ("trace_import", trace_import),
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

/// The C library's OSCORE context file (`cm_oscore_context_from_file`: its own
/// flat-JSON and hex reader, without an allocator, as a device runs it); a
/// context it derives then protects a reading, and is wiped.
pub fn oscore_context_c(bytes: &[u8]) {
    use seal_ffi::oscore::{
        cm_oscore_context, cm_oscore_context_from_file, cm_oscore_context_wipe, cm_oscore_protect,
    };
    let mut ctx = cm_oscore_context {
        opaque: [0; seal_ffi::oscore::CM_OSCORE_CONTEXT_LEN],
        state: 0,
    };
    // SAFETY: the bytes and the context are valid for the calls' lengths.
    let status = unsafe { cm_oscore_context_from_file(&mut ctx, bytes.as_ptr(), bytes.len()) };
    if status == 0 {
        let (reading, mut out, mut len) = (*b"21.5", [0u8; 128], 0);
        // SAFETY: as above; the URI path is a C string.
        let protected = unsafe {
            cm_oscore_protect(
                &ctx,
                1,
                c"readings".as_ptr(),
                0,
                reading.as_ptr(),
                reading.len(),
                out.as_mut_ptr(),
                out.len(),
                &mut len,
            )
        };
        // Any context it derives protects a reading: ids of 8 B at most, an
        // ID context of 32, a 16-byte tag fit 128 B.
        assert_eq!(protected, 0, "a derived context failed to protect");
        assert!(len <= out.len());
    }
    // SAFETY: a context this function owns.
    unsafe { cm_oscore_context_wipe(&mut ctx) };
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

/// Records of an input: each a length byte, then that many bytes (the last one
/// cut short where the input ends). How the radio targets get their frames.
fn records(mut data: &[u8]) -> impl Iterator<Item = &[u8]> {
    std::iter::from_fn(move || {
        let (&len, rest) = data.split_first()?;
        let (record, rest) = rest.split_at(usize::from(len).min(rest.len()));
        data = rest;
        Some(record)
    })
}

/// Devices the `fragments` target's uplinks come from.
const DEVICES: [&str; 4] = ["dev-0", "dev-1", "dev-2", "dev-3"];

/// The gateway's clock when a target's input begins (Unix µs).
const START_US: i64 = 1_700_000_000_000_000;

/// A device's reassembly state written as the store writes it and read back,
/// as the store's next batch does (a state it cannot read starts afresh).
/// What `push` made from nothing must read back unchanged; from a stored
/// state, whatever reads back must be what was written.
fn through_the_store(state: &InProgress, from_nothing: bool) -> InProgress {
    let back = InProgress::decode(&state.encode());
    if from_nothing || back.is_ok() {
        assert_eq!(
            back.as_ref(),
            Ok(state),
            "a state is read back as it was written"
        );
    }
    back.unwrap_or_default()
}

/// LoRaWAN uplinks cut by `seal::fragment` (`send --link`), put back together
/// per device by the gateway's reassembly (`live::reassembly::InProgress`), as
/// the store's batches do: idle messages expired (the default
/// `--fragment-timeout`), then each fragment pushed.
///
/// Input: a control byte, then records (a length byte, the uplink's bytes).
/// - control bits 0-1: devices (1 to 4), the uplinks dealt to them in turn;
/// - bit 2: each device's state goes through the store (encoded and decoded)
///   after every uplink;
/// - bits 3-4: `--max-message`: 16 KiB (the default), 6,272 (128 fragments at
///   DR0), 200 or 60 bytes;
/// - bits 5-6: time between uplinks: none, 1 s, 250 s (DR0's duty cycle),
///   2 h (past the timeout);
/// - bit 7: the first record, with a 2-byte length (big-endian) instead, is
///   device 0's stored state (`InProgress::decode`), where it reads.
///
/// Checks: no message handed on is longer than `--max-message`, than the
/// bodies its device was given, nor (from no stored state) than 128 of the
/// longest; a device holds at most `WINDOW + 1` messages of at most
/// `--max-message` each; a state survives the store unchanged (one made from
/// a stored state, where the store reads it at all).
pub fn fragments(data: &[u8]) {
    let [mode, rest @ ..] = data else {
        return;
    };
    let mut rest = rest;
    let devices = usize::from(mode & 0x03) + 1;
    let store_each = mode & 0x04 != 0;
    let max_message = [16 * 1024, 6272, 200, 60][usize::from(mode >> 3 & 0x03)];
    let step_us = [0, 1_000_000, 250_000_000, 7_200_000_000][usize::from(mode >> 5 & 0x03)];
    let timeout_us = live::limits::FragmentLimits::default().timeout.as_micros() as i64;
    let mut states = vec![InProgress::default(); devices];
    // Bytes each device holds to begin with (a stored state), and was given since.
    let mut given = vec![0usize; devices];
    let mut stored = false;
    if mode & 0x80 != 0 {
        let Some((len, after)) = rest.split_first_chunk::<2>() else {
            return;
        };
        let len = usize::from(u16::from_be_bytes(*len)).min(after.len());
        let (state, after) = after.split_at(len);
        rest = after;
        if let Ok(state) = InProgress::decode(state) {
            given[0] = state.bytes();
            states[0] = through_the_store(&state, false);
            stored = true;
        }
    }
    let mut longest = vec![0usize; devices];
    let mut now_us = START_US;
    for (i, uplink) in records(rest).enumerate() {
        now_us += step_us;
        // A whole message is opened as it is; a malformed fragment is refused.
        let Some(Ok(fragment)) = seal::fragment::parse(uplink) else {
            continue;
        };
        let d = i % devices;
        let state = &mut states[d];
        state.expire(DEVICES[d], now_us - timeout_us);
        let _ = state.starts_message(&fragment);
        given[d] += fragment.body.len();
        longest[d] = longest[d].max(fragment.body.len());
        for settled in state.push(DEVICES[d], fragment, now_us, max_message) {
            if let Settled::Whole(message) = settled {
                assert!(message.len() <= max_message, "a message past --max-message");
                assert!(message.len() <= given[d], "a message of bodies never given");
                assert!(
                    (stored && d == 0)
                        || message.len() <= seal::fragment::MAX_FRAGMENTS * longest[d],
                    "a message of more than 128 fragments"
                );
                state.trust();
            }
        }
        if !(stored && d == 0) {
            assert!(state.messages() <= live::reassembly::WINDOW + 1);
            assert!(state.bytes() <= state.messages() * max_message);
            assert!(state.touched_us() <= now_us);
        }
        if store_each {
            *state = through_the_store(state, !(stored && d == 0));
        }
    }
    for (d, state) in states.iter().enumerate() {
        through_the_store(state, !(stored && d == 0));
    }
}

/// The rule sets the SCHC targets use: the default rules the CLI ships
/// (`data/schc/default-rules.json`) and the schc crate's RFC 8824 test sets.
const RULE_FILES: [&str; 3] = [
    include_str!("../../data/schc/default-rules.json"),
    include_str!("../../crates/schc/tests/rules/rfc8824-no-oscore.json"),
    include_str!("../../crates/schc/tests/rules/8824-update-oscore.json"),
];

thread_local! {
    static RULE_SETS: Vec<Arc<RuleSet>> = RULE_FILES
        .iter()
        .map(|text| Arc::new(schc::rules_file::parse(text).expect("a rule file of the repository")))
        .collect();
}

const WAYS: [Direction; 2] = [Direction::Up, Direction::Down];

/// What `packet` decompresses to under `rules` going `way` must compress back
/// to a packet that decompresses to it again: compression loses nothing.
fn decompress_and_back(rules: &RuleSet, packet: &[u8], way: Direction) {
    let Ok(message) = schc::decompress(rules, packet, way) else {
        return;
    };
    if let Ok(again) = schc::compress(rules, &message, way) {
        let back = schc::decompress(rules, &again.to_bytes(), way);
        assert_eq!(back.as_ref(), Ok(&message), "{way:?}: compressed and back");
    }
}

/// `schc::decompress` on any bytes as a SCHC packet (rule id first), under
/// every rule set, uplink and downlink: the gateway's decompression of
/// what the radio brought. What decompresses must come back whole through
/// compression.
pub fn schc_decompress(packet: &[u8]) {
    RULE_SETS.with(|sets| {
        for rules in sets {
            for way in WAYS {
                decompress_and_back(rules, packet, way);
            }
        }
    });
}

/// A real OSCORE request (`seal --container oscore`): what `schc_rules`
/// compresses under the rules it reads, and `schc_receiver`'s sender cuts.
const REQUEST: &[u8] = include_bytes!("../corpus-seed/open_oscore/seq-0");

thread_local! {
    // The request compressed by the default rules, cut for US915 DR0's 11-byte
    // frames: a sender that reads the ACKs the input holds.
    static SENDER: Sender = RULE_SETS.with(|sets| {
        let packet = schc::compress(&sets[0], REQUEST, Direction::Up).expect("it compresses");
        Sender::new(schc_radio::PROFILE, &packet.bits, 11).expect("11-byte frames carry it")
    });
}

/// An ACK the receiver writes reads back as it was.
fn ack_reads_back(ack: &Ack) {
    let frame = ack.frame(&schc_radio::PROFILE);
    assert_eq!(Ack::parse(&schc_radio::PROFILE, &frame).as_ref(), Ok(ack));
}

/// The gateway's SCHC receiver over a serial radio: frames (an FPort byte, the
/// FRMPayload; `live::schc_radio::parse_frame`) through one device's
/// `Uplinks` (fragments put together, ACKs, packets decompressed with the
/// default rules) and through a bare `schc::fragment::Receiver`; each read
/// as a downlink ACK by a sender too (`parse_ack`, then `Sender::resend`).
///
/// Input: a control byte, then records (a length byte, then the frame).
/// Control bits 0-1: time between frames (none, 1 s, 1 h, 13 h: past RFC
/// 9011's Inactivity Timer); the gateway's timer runs before each frame.
///
/// Checks: every ACK written reads back (and the receiver's as it was); a
/// whole packet is acknowledged complete and is no longer than a receiver
/// holds (`Profile::max_held_bits`); a resend fits the frames.
pub fn schc_receiver(data: &[u8]) {
    let [mode, data @ ..] = data else {
        return;
    };
    let step_us: i64 = [0, 1_000_000, 3_600_000_000, 46_800_000_000][usize::from(mode & 0x03)];
    let mut now_us = START_US;
    let profile = schc_radio::PROFILE;
    let mut receiver = Receiver::new(profile);
    let mut uplinks = RULE_SETS.with(|sets| Uplinks::new(sets[0].clone()));
    for bytes in records(data) {
        let Some(frame) = schc_radio::parse_frame(bytes) else {
            continue;
        };
        now_us += step_us;
        match receiver.take(&frame) {
            Ok(Received::Waiting) | Err(_) => {}
            Ok(Received::Ask(ack)) => ack_reads_back(&ack),
            Ok(Received::Whole { packet, ack }) => {
                assert!(matches!(ack, Ack::Complete { .. }));
                ack_reads_back(&ack);
                assert!(packet.len() <= profile.max_held_bits());
            }
        }
        let _ = uplinks.expire(now_us);
        if let Arrived::Ack(ack, _) = uplinks.take(&frame, now_us) {
            assert!(
                schc_radio::parse_ack(&ack).is_ok(),
                "the gateway's ACK reads"
            );
        }
        if let Ok(ack) = schc_radio::parse_ack(&frame) {
            SENDER.with(|sender| {
                if let Ok(again) = sender.resend(&ack) {
                    assert!(again.iter().all(|f| f.payload.len() <= 11));
                }
            });
        }
    }
}

/// Rule files (`--compression schc:RULES`): `schc::rules_file::parse` on any
/// text; rules that load then compress a real OSCORE request both ways, which
/// must decompress back to it, and decompress the request's bytes as a packet.
pub fn schc_rules(bytes: &[u8]) {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return;
    };
    let Ok(rules) = schc::rules_file::parse(text) else {
        return;
    };
    for way in WAYS {
        if let Ok(packet) = schc::compress(&rules, REQUEST, way) {
            let back = schc::decompress(&rules, &packet.to_bytes(), way);
            assert_eq!(back.as_deref(), Ok(REQUEST), "{way:?}: compressed and back");
        }
        decompress_and_back(&rules, REQUEST, way);
    }
}

/// Markers `energy import --marker` takes, as a user gives them.
const MARKERS: [&str; 16] = [
    "D0",
    "D1",
    "D2",
    "D3",
    "D4",
    "D5",
    "D6",
    "D7",
    "above:1mA",
    "above:500uA",
    "above:0.002A",
    "above:0A",
    "above:10nA",
    "above:1A",
    "above:5µA",
    "above:0.5mA",
];

/// `energy import`'s reader: a power profiler's export (`trace::read`), then
/// the operations a marker marks in it (`trace::find`) and the text it prints.
///
/// Input: a control byte, then the export's text.
/// - bits 0-1: the meter (mod 3: ppk2, joulescope, otii);
/// - bits 2-5: the marker (D0 to D7, or a current threshold);
/// - bit 6: no `--voltage` given (else 3.3 V).
///
/// Checks: a trace read has 2 samples or more, in time order; a measurement
/// has at least one operation.
pub fn trace_import(data: &[u8]) {
    let [mode, text @ ..] = data else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let format = ["ppk2", "joulescope", "otii"][usize::from(mode & 0x03) % 3];
    let format = Format::parse(format).expect("a format name");
    let marker = Marker::parse(MARKERS[usize::from(mode >> 2 & 0x0f)]).expect("a marker");
    let voltage_v = (mode & 0x40 == 0).then_some(3.3);
    let Ok(trace) = energy::trace::read(format, text) else {
        return;
    };
    assert!(trace.samples.len() >= 2);
    assert!(trace.samples.windows(2).all(|w| w[0].t_s < w[1].t_s));
    if let Ok(measured) = energy::trace::find(&trace, marker, voltage_v) {
        assert!(measured.operations >= 1);
        let _ = measured.text();
    }
}
