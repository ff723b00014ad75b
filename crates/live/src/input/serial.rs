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
use crate::error::LiveError;
use crate::feed::{Feed, Input};
use crate::framing::Deframer;
use crate::tty::{open_serial, wait_readable};

pub(super) fn start(
    path: &Path,
    baud: Option<u32>,
    config: &GatewayConfig,
    mut feed: Feed,
    stop: Arc<AtomicBool>,
) -> Result<Started, LiveError> {
    let mut file = open_serial(path, baud)?;
    let source: Arc<str> = Arc::from(config.listen.to_string());
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
            deframer.push(&buf[..n], now, &mut events);
            // A partial frame that gets no new byte for --frame-timeout is truncated: a
            // radio's lost packet leaves the stream this way.
            deframer.expire(now, &mut events);
            if n == 0 && events.is_empty() {
                // A device that went away (EOF/EIO) must not spin the CPU.
                std::thread::sleep(Duration::from_millis(1));
            }
            for e in events.drain(..) {
                if !feed.send(Input::from_event(e, source.clone())) {
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
