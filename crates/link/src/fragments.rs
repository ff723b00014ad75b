//! A message longer than one frame, in the sealing core's fragments
//! (`seal::fragment`: a 2-byte header on each, docs/containers.md
//! "Fragments"): the bytes each frame carries, as the device (`cm_fragment`)
//! and `send --link` cut them and the gateway puts them back. Which links
//! fragment is `LinkSpec::fragments`; every view costs these sizes.

use crate::error::LinkError;

/// The bytes each frame carries for a message of `bytes` with `room` bytes
/// a frame: the message whole when it fits, else its fragments, headers
/// included. A message past 128 fragments is refused, as no sender can cut
/// it; `what` names the link for the message.
pub fn sizes(bytes: u32, room: u32, what: &str) -> Result<Vec<u32>, LinkError> {
    let sizes = seal::fragment::frame_sizes(bytes as usize, room as usize)
        .map_err(|e| LinkError::invalid(format!("{what}: {e}")))?;
    Ok(sizes.map(|n| n as u32).collect())
}

/// The warning for a message in `frames` fragments on `what`, frames of
/// `room` bytes; none when it travels whole.
pub fn warning(bytes: u32, frames: usize, room: u32, what: &str) -> Option<String> {
    (frames > 1).then(|| {
        format!(
            "{bytes} B does not fit one {what} frame (max {room} B): {frames} fragments, each with a {}-byte fragment header",
            seal::fragment::HEADER
        )
    })
}
