//! Process CPU time (user + system) from getrusage, set against wall time:
//! study 002's "CPU consumption", made exact. Also the peak resident set.

use std::time::Duration;

/// Resource use of the whole process so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct Usage {
    pub user: Duration,
    pub system: Duration,
    /// Peak resident set size in bytes (ru_maxrss, kilobytes on Linux).
    pub max_rss_bytes: u64,
}

impl Usage {
    pub fn cpu(&self) -> Duration {
        self.user + self.system
    }
}

fn timeval(tv: libc::timeval) -> Duration {
    Duration::from_secs(tv.tv_sec as u64) + Duration::from_micros(tv.tv_usec as u64)
}

/// getrusage(RUSAGE_SELF). None if the call fails (it does not on Linux).
pub fn process_usage() -> Option<Usage> {
    let mut ru = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: ru points to writable memory of the right size for the call.
    let rc = unsafe { libc::getrusage(libc::RUSAGE_SELF, ru.as_mut_ptr()) };
    if rc != 0 {
        return None;
    }
    // SAFETY: getrusage returned 0, so it filled the struct.
    let ru = unsafe { ru.assume_init() };
    // Linux reports ru_maxrss in KiB; macOS in bytes.
    let rss_unit = if cfg!(target_os = "macos") { 1 } else { 1024 };
    Some(Usage {
        user: timeval(ru.ru_utime),
        system: timeval(ru.ru_stime),
        max_rss_bytes: ru.ru_maxrss as u64 * rss_unit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_time_grows_with_work() {
        let before = process_usage().unwrap();
        let start = std::time::Instant::now();
        let mut x = 1u64;
        while start.elapsed() < Duration::from_millis(30) {
            x = std::hint::black_box(x.wrapping_mul(6364136223846793005).wrapping_add(1));
        }
        let after = process_usage().unwrap();
        assert!(after.cpu() > before.cpu());
        assert!(after.max_rss_bytes > 0);
    }
}
