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

/// Makes Ctrl-C a stop request (instead of killing the process), so a long
/// run keeps what it finished; the error says why it could not.
pub fn stop_on_ctrl_c() -> Result<(), String> {
    ctrlc::set_handler(request_stop).map_err(|e| format!("cannot install the Ctrl-C handler: {e}"))
}

/// The user asked to stop; whatever finished before is still valid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Interrupted;
