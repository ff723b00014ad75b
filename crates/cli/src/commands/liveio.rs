//! Helpers shared by the live-link commands (`gateway`, `send`, `radio-emulator`,
//! `reproduce rf-transmission --live`).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::error::CliError;

/// Usage errors exit 2, failures of devices, sockets and files exit 1.
pub fn live_error(e: live::LiveError) -> CliError {
    if e.is_usage() {
        CliError::usage(e)
    } else {
        CliError::failed(e)
    }
}

/// A flag set by SIGINT or SIGTERM, so long-running commands can finish cleanly.
pub fn stop_flag() -> Result<Arc<AtomicBool>, CliError> {
    let flag = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(sig, flag.clone())
            .map_err(|e| CliError::failed(format!("cannot handle signals: {e}")))?;
    }
    Ok(flag)
}
