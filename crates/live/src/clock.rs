//! The gateway's and the sender's one clock: Unix time in microseconds, as readings
//! (`sent_us`), arrivals and the counters' times are stored.

use std::time::{SystemTime, UNIX_EPOCH};

/// Now, in microseconds since the Unix epoch (0 if the clock is before it).
pub fn now_us() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as i64)
}
