//! The gateway's receiving path: a byte stream through the deframer, every
//! message it yields opened by a keyring, as `gateway::run` does per connection.
//!
//! Input: two control bytes, then the stream.
//! - byte 0: container (low 3 bits mod 3: json, binary, cose), 0x08 for the other
//!   framing than the container's own, and keyring (high 4 bits mod 3: two aes-gcm
//!   keys, random and counter nonces, so the key id picks; etm; hmac).
//! - byte 1: chunk size the stream arrives in (1..=64); whether the largest message is
//!   the gateway's default 16 KiB or 200 bytes (overlong frames); whether the idle time
//!   passes between chunks (truncated frames).
#![no_main]

use std::cell::RefCell;
use std::time::{Duration, Instant};

use libfuzzer_sys::fuzz_target;
use live::Keyring;
use live::framing::{Deframer, Event, Framing};
use seal::Container;

const RINGS: [&[&str]; 3] = [&["aes-gcm-a", "aes-gcm-b"], &["etm"], &["hmac"]];

thread_local! {
    // keyrings[ring][container]
    static KEYRINGS: RefCell<Vec<Vec<Keyring>>> = RefCell::new(
        RINGS
            .iter()
            .map(|names| {
                let keys: Vec<_> = names.iter().map(|n| ciphermeter_fuzz::key(n)).collect();
                Container::ALL
                    .iter()
                    .map(|&c| Keyring::from_keys(&keys, c).expect("distinct key ids"))
                    .collect()
            })
            .collect(),
    );
}

fuzz_target!(|data: &[u8]| {
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
});
