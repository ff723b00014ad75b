//! A serial device or pseudo-terminal: one byte stream, deframed. A gateway listening
//! on one has exactly one stream, so it keeps its own poll(2) loop (a thread) rather
//! than joining the TCP readiness loop; the deframing and the inputs are the same.

use std::io::Read;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use super::Started;
use crate::config::GatewayConfig;
use crate::counters::Reason;
use crate::error::LiveError;
use crate::feed::{Feed, Input};
use crate::framing::{Deframer, Event, Framing, encode};
use crate::schc_radio::{self, Arrived, Uplinks};
use serial::{open_serial, wait_readable};

pub(super) fn start(
    path: &Path,
    baud: Option<u32>,
    config: &GatewayConfig,
    mut feed: Feed,
    stop: Arc<AtomicBool>,
) -> Result<Started, LiveError> {
    let mut file = open_serial(path, baud)?;
    let source: Arc<str> = Arc::from(config.listen.to_string());
    // With SCHC, the port's one device: its uplinks, and ACKs written back.
    let mut schc = match &config.schc {
        Some(rules) => Some((
            Uplinks::new(rules.clone()),
            file.try_clone()
                .map_err(|e| LiveError::io(format!("{}", path.display()), e))?,
        )),
        None => None,
    };
    let mut deframer = Deframer::new(
        config.framing,
        config.limits.max_message,
        config.limits.frame_timeout,
    );
    let t = std::thread::spawn(move || {
        let mut buf = vec![0u8; 4096];
        let mut events = Vec::new();
        while !stop.load(Ordering::Relaxed) {
            let wait = deframer.deadline().map_or(Duration::from_millis(100), |d| {
                d.saturating_duration_since(Instant::now())
                    .min(Duration::from_millis(100))
            });
            let n = match wait_readable(&file, wait) {
                Ok(true) => file.read(&mut buf).unwrap_or(0),
                _ => 0,
            };
            let now = Instant::now();
            if let Some((uplinks, _)) = &mut schc
                && let Some((reason, why)) = uplinks.expire(crate::clock::now_us())
                && !feed.send(Input::broken(reason, why, source.clone()))
            {
                return;
            }
            deframer.push(&buf[..n], now, &mut events);
            // A partial frame that gets no new byte for --frame-timeout is truncated: a
            // radio's lost packet leaves the stream this way.
            deframer.expire(now, &mut events);
            if n == 0 && events.is_empty() {
                // A device that went away (EOF/EIO) must not spin the CPU.
                std::thread::sleep(Duration::from_millis(1));
            }
            for e in events.drain(..) {
                let input = match (&mut schc, e) {
                    (Some((uplinks, down)), Event::Message(bytes)) => {
                        match schc_input(uplinks, down, &bytes, &source) {
                            Some(input) => input,
                            None => continue,
                        }
                    }
                    (_, e) => Input::from_event(e, source.clone()),
                };
                if !feed.send(input) {
                    return;
                }
            }
        }
    });
    Ok(Started {
        bound: config.listen.clone(),
        threads: vec![t],
    })
}

/// One SCHC frame from the port's device: an ACK written back where the
/// receiver answers, and the OSCORE request a whole packet decompressed to.
fn schc_input(
    uplinks: &mut Uplinks,
    down: &mut std::fs::File,
    bytes: &[u8],
    source: &Arc<str>,
) -> Option<Input> {
    use std::io::Write;
    let Some(frame) = schc_radio::parse_frame(bytes) else {
        return Some(Input::broken(
            Reason::Garbage,
            "an empty frame",
            source.clone(),
        ));
    };
    let message = match uplinks.take(&frame, crate::clock::now_us()) {
        Arrived::Waiting => return None,
        Arrived::Ack(ack, message) => {
            // A lost ACK is the device's timer's to recover: it sends its All-1 again.
            if let Ok(framed) = encode(&schc_radio::frame_bytes(&ack), Framing::Len, None) {
                let _ = down.write_all(&framed).and_then(|_| down.flush());
            }
            message?
        }
        Arrived::Message(message) => message,
    };
    Some(match message {
        Ok(request) => Input::message(request, source.clone()),
        Err((reason, why)) => Input::broken(reason, why, source.clone()),
    })
}
