//! Where nonces come from. Both sources make reuse under one key impossible
//! in practice: random nonces from the OS generator (the default; 96 bits or
//! more, which the scheme check enforces, so 2^32 messages per key keep the
//! collision chance below 2^-32, the NIST SP 800-38D bound for GCM), or a counter persisted beside the key file
//! and reserved on disk (written and fsync'd) before it is used, so a crash
//! can skip values but never repeat one.

use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::error::SealError;
use crate::counter::{CounterStore, counter_nonce};
use crate::error::Error as CoreError;

use super::keyfile::{SealKey, fill_random, write_private};
use super::nonce_policy::NoncePolicy;

/// Hands out one fresh nonce per message.
pub trait NonceSource {
    fn next_nonce(&mut self, len: usize) -> Result<Vec<u8>, SealError>;
}

/// Random nonces from the operating system's generator.
pub struct RandomNonces;

impl NonceSource for RandomNonces {
    fn next_nonce(&mut self, len: usize) -> Result<Vec<u8>, SealError> {
        let mut nonce = vec![0u8; len];
        fill_random(&mut nonce)?;
        Ok(nonce)
    }
}

/// The counter file of a key file: `KEYFILE.counter`.
pub fn counter_path(key_path: &Path) -> PathBuf {
    super::keyfile::beside(key_path, ".counter")
}

pub(crate) fn create_counter(path: &Path, force: bool) -> Result<(), SealError> {
    write_private(path, b"0\n", force)
}

/// A counter persisted in a file; each nonce is the counter, big-endian,
/// right-aligned in the nonce. Concurrent sealers are serialized by a lock.
pub struct CounterNonces {
    path: PathBuf,
}

impl CounterNonces {
    pub fn new(path: PathBuf) -> CounterNonces {
        CounterNonces { path }
    }
}

impl CounterNonces {
    /// Reserves the next value: the one after it is written and fsync'd
    /// before this one is returned (the core's [`CounterStore`] promise).
    fn reserve_value(&mut self) -> Result<u64, SealError> {
        let shown = self.path.display().to_string();
        let io = |e: std::io::Error| SealError::Io(format!("{shown}: {e}"));
        // A missing counter may mean a restored backup: starting again at 0 would repeat nonces.
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.path)
            .map_err(|e| {
                SealError::Nonce(format!(
                    "cannot open the counter file {shown} ({e}); it must sit beside the key file. \
                 Refusing to restart the counter, which could repeat nonces: generate a new key"
                ))
            })?;
        lock_exclusive(&file).map_err(io)?;
        let mut text = String::new();
        file.read_to_string(&mut text).map_err(io)?;
        let current: u64 = text.trim().parse().map_err(|_| {
            SealError::Nonce(format!(
                "counter file {shown} is corrupt; generate a new key"
            ))
        })?;
        let next = current.checked_add(1).ok_or_else(|| {
            SealError::Nonce(format!(
                "counter file {shown}: nonces exhausted; generate a new key"
            ))
        })?;
        // Reserve before use: the next value is on disk before this one leaves.
        file.set_len(0).map_err(io)?;
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        writeln!(file, "{next}").map_err(io)?;
        file.sync_all().map_err(io)?;
        // The lock is released when `file` closes, after the new value is on disk.
        Ok(current)
    }
}

impl CounterStore for CounterNonces {
    fn reserve(&mut self) -> Result<u64, CoreError> {
        // The core's error has no room for the path; `next_nonce` keeps it.
        self.reserve_value().map_err(|_| CoreError::NoncesExhausted)
    }
}

impl NonceSource for CounterNonces {
    fn next_nonce(&mut self, len: usize) -> Result<Vec<u8>, SealError> {
        let value = self.reserve_value()?;
        let mut nonce = vec![0u8; len];
        counter_nonce(value, &mut nonce).map_err(|_| {
            SealError::Nonce(format!(
                "counter file {}: nonces exhausted; generate a new key",
                self.path.display()
            ))
        })?;
        Ok(nonce)
    }
}

/// Blocks until this process holds the counter file exclusively (flock(2)),
/// so two sealers running at once cannot read the same value.
fn lock_exclusive(file: &std::fs::File) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: flock only reads the descriptor, which `file` keeps open for the call.
    let rc = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX) };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The nonce source a key file prescribes.
pub fn source_for(key: &SealKey) -> Result<Box<dyn NonceSource>, SealError> {
    match key.nonce {
        NoncePolicy::Random => Ok(Box::new(RandomNonces)),
        NoncePolicy::Counter => {
            let path = key.path.as_deref().ok_or_else(|| {
                SealError::Nonce("a counter policy needs the key to come from a file".into())
            })?;
            let counter = counter_path(path);
            if !fs::exists(&counter).unwrap_or(false) {
                return Err(SealError::Nonce(format!(
                    "counter file {} is missing; refusing to restart the counter (it could repeat nonces): generate a new key",
                    counter.display()
                )));
            }
            Ok(Box::new(CounterNonces::new(counter)))
        }
    }
}
