//! A process-wide stop request, set by the binary's Ctrl-C handler and polled
//! by the sampler between samples, so that finished results survive.

use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);

pub fn request_stop() {
    STOP.store(true, Ordering::SeqCst);
}

pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
}

/// The user asked to stop; whatever finished before is still valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;
