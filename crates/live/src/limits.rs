//! What one gateway takes from the network. Each limit has a default here, a
//! `gateway` flag, and a counter for what it refused (in [`crate::counters`]),
//! so a flood costs bounded threads, descriptors, memory and replay rows.

use std::time::Duration;

use crate::error::LiveError;
use crate::framing::MAX_MESSAGE;

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// TCP connections held open at once; a newcomer beyond them is served and the
    /// connection idle longest is closed, counted as `connections.evicted`
    /// (`--max-connections`).
    pub max_connections: usize,
    /// A TCP connection that sends nothing for this long is closed and counted as
    /// `connections.idle_closed` (`--idle-timeout`).
    pub idle_timeout: Duration,
    /// On TCP, a frame must be complete this long after its first byte, or the
    /// connection is closed (`connections.frame_timeout`) and the partial frame refused
    /// as truncated; on serial, a partial frame that gets no new byte for this long is
    /// refused as truncated (a radio's lost packet), and the stream goes on
    /// (`--frame-timeout`, milliseconds).
    pub frame_timeout: Duration,
    /// Largest message; a longer line or datagram is refused as `oversize`
    /// (`--max-message`).
    pub max_message: usize,
    /// Freshness window for readings under random nonces: a `sent_us` further than
    /// this from the gateway's clock is refused as `stale`, and the replay table
    /// keeps nonces only this long (`--max-age`).
    pub max_age: Duration,
    /// What messages in fragments may hold in the store ([`FragmentLimits`]).
    pub fragments: FragmentLimits,
}

/// What messages in fragments may hold in the store: nothing authenticates a
/// fragment, so a stranger (a source none of whose messages opened) gets a
/// bounded share, and a device whose message opened keeps its own. Each
/// source holds at most [`crate::reassembly::WINDOW`] + 1 messages, each at
/// most `--max-message` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FragmentLimits {
    /// Strangers with messages in progress at once; a further stranger's
    /// first fragment is refused as `fragments_refused` (`--fragment-sources`).
    pub sources: usize,
    /// Bytes strangers' messages in progress may hold together; a stranger's
    /// fragment beyond them is refused as `fragments_refused` (`--fragment-bytes`).
    pub bytes: usize,
    /// A message in progress that gets no fragment for this long is given up
    /// as `incomplete`, and a device with nothing in progress is forgotten
    /// (`--fragment-timeout`).
    pub timeout: Duration,
}

impl Default for FragmentLimits {
    fn default() -> Self {
        FragmentLimits {
            sources: 1024,
            bytes: 8 << 20,
            // LoRaWAN at EU868 DR0 under 1 % duty cycle sends a 51-byte frame
            // about every 250 s: an hour covers a dozen fragments' gaps.
            timeout: Duration::from_secs(3600),
        }
    }
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            // With the descriptors the gateway needs besides, it fits the common
            // 4,096 hard limit on open files.
            max_connections: 4000,
            idle_timeout: Duration::from_secs(60),
            frame_timeout: Duration::from_millis(500),
            max_message: 16 * 1024,
            max_age: Duration::from_secs(300),
            fragments: FragmentLimits::default(),
        }
    }
}

impl Limits {
    /// Refuses limits that would disable the gateway or lift a bound.
    pub fn validate(&self) -> Result<(), LiveError> {
        let bad = |what: &str| Err(LiveError::Usage(what.to_string()));
        if !(1..=65_536).contains(&self.max_connections) {
            return bad("--max-connections must be 1 to 65536");
        }
        if self.idle_timeout.is_zero() || self.idle_timeout > Duration::from_secs(86_400) {
            return bad("--idle-timeout must be more than 0 and at most 86400 seconds");
        }
        if self.frame_timeout.is_zero() || self.frame_timeout > Duration::from_secs(3600) {
            return bad("--frame-timeout must be more than 0 and at most 3600000 milliseconds");
        }
        if !(1..=MAX_MESSAGE).contains(&self.max_message) {
            return bad(&format!("--max-message must be 1 to {MAX_MESSAGE} bytes"));
        }
        if self.max_age.is_zero() || self.max_age > Duration::from_secs(7 * 86_400) {
            return bad("--max-age must be more than 0 and at most 604800 seconds (a week)");
        }
        let f = &self.fragments;
        if !(1..=1 << 20).contains(&f.sources) {
            return bad("--fragment-sources must be 1 to 1048576");
        }
        // 1 GiB: far past any budget for strangers, and within a 32-bit usize
        // (the ARM boards).
        if !(self.max_message..=1 << 30).contains(&f.bytes) {
            return bad(
                "--fragment-bytes must be at least --max-message and at most 1073741824 (1 GiB)",
            );
        }
        if f.timeout.is_zero() || f.timeout > Duration::from_secs(7 * 86_400) {
            return bad(
                "--fragment-timeout must be more than 0 and at most 604800 seconds (a week)",
            );
        }
        Ok(())
    }

    pub fn max_age_us(&self) -> i64 {
        self.max_age.as_micros() as i64
    }
}

/// Descriptors the gateway needs besides its connections: standard streams, the
/// database, the listener, the poll and its waker, the stats file.
const SPARE_DESCRIPTORS: u64 = 64;

/// The default `--max-connections` ([`Limits::default`]'s), or what this process's hard
/// open-file limit leaves room for, with a sentence saying so when that is less.
pub fn default_max_connections() -> (usize, Option<String>) {
    let want = Limits::default().max_connections;
    let hard = hard_open_files();
    let room = hard.saturating_sub(SPARE_DESCRIPTORS).max(1);
    if room >= want as u64 {
        return (want, None);
    }
    let n = room as usize;
    (
        n,
        Some(format!(
            "holding at most {n} TCP connections, not {want}: this process may open {hard} files (ulimit -Hn); --max-connections sets it"
        )),
    )
}

fn hard_open_files() -> u64 {
    open_files().map_or(u64::MAX, |(_, hard)| hard)
}

/// The soft and hard limits on open files, as u64 (`rlim_t` is 32 bits on 32-bit ARM).
#[allow(clippy::useless_conversion)]
fn open_files() -> Option<(u64, u64)> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit with a valid pointer to an rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return None;
    }
    Some((u64::from(lim.rlim_cur), u64::from(lim.rlim_max)))
}

/// Raises the soft limit on open files as far as `max_connections` needs; refuses a
/// limit this process cannot get, rather than failing accepts under load.
pub fn ensure_descriptors(max_connections: usize) -> Result<(), LiveError> {
    let need = max_connections as u64 + SPARE_DESCRIPTORS;
    let Some((soft, hard)) = open_files() else {
        return Ok(());
    };
    if soft >= need {
        return Ok(());
    }
    if hard < need {
        return Err(LiveError::Usage(format!(
            "--max-connections {max_connections} needs {need} open files, but this process may open at most {hard} (ulimit -Hn): lower --max-connections or raise the limit"
        )));
    }
    // need <= hard, which is an rlim_t.
    let lim = libc::rlimit {
        rlim_cur: need as libc::rlim_t,
        rlim_max: hard as libc::rlim_t,
    };
    // SAFETY: setrlimit with a valid pointer to an rlimit.
    if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } != 0 {
        return Err(LiveError::Io(format!(
            "could not raise the open-file limit to {need} for --max-connections {max_connections}"
        )));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_valid_and_nonsense_is_refused() {
        assert!(Limits::default().validate().is_ok());
        for broken in [
            Limits {
                max_connections: 0,
                ..Limits::default()
            },
            Limits {
                idle_timeout: Duration::ZERO,
                ..Limits::default()
            },
            Limits {
                frame_timeout: Duration::ZERO,
                ..Limits::default()
            },
            Limits {
                max_message: MAX_MESSAGE + 1,
                ..Limits::default()
            },
            Limits {
                max_age: Duration::ZERO,
                ..Limits::default()
            },
            Limits {
                fragments: FragmentLimits {
                    sources: 0,
                    ..FragmentLimits::default()
                },
                ..Limits::default()
            },
            Limits {
                fragments: FragmentLimits {
                    bytes: 1000,
                    ..FragmentLimits::default()
                },
                ..Limits::default()
            },
            Limits {
                fragments: FragmentLimits {
                    timeout: Duration::ZERO,
                    ..FragmentLimits::default()
                },
                ..Limits::default()
            },
            Limits {
                fragments: FragmentLimits {
                    bytes: (1 << 30) + 1,
                    ..FragmentLimits::default()
                },
                ..Limits::default()
            },
        ] {
            assert!(broken.validate().is_err(), "{broken:?}");
        }
        let largest = Limits {
            fragments: FragmentLimits {
                bytes: 1 << 30,
                ..FragmentLimits::default()
            },
            ..Limits::default()
        };
        assert!(largest.validate().is_ok());
    }

    #[test]
    fn a_connection_limit_beyond_the_hard_open_file_limit_is_refused() {
        let (_, hard) = open_files().unwrap();
        assert!(ensure_descriptors(16).is_ok());
        if hard < u64::from(u32::MAX) {
            let err = ensure_descriptors(hard as usize).unwrap_err();
            assert!(
                err.is_usage() && err.to_string().contains("ulimit -Hn"),
                "{err}"
            );
        }
    }
}
