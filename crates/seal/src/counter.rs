//! Counter nonces on any device: the caller stores the counter (a file on
//! a host, flash or EEPROM on a microcontroller) and promises that a value
//! handed out is durable before it is used, so a restart can skip values
//! but never repeat one. The core turns values into nonces and refuses a
//! counter that has run out of nonce bits.

use crate::container::Container;
use crate::engine::Sealer;
use crate::error::Error;

/// Where a device keeps its message counter.
pub trait CounterStore {
    /// A value never handed out before under this key, already persisted
    /// (the next value is stored before this one is returned).
    fn reserve(&mut self) -> Result<u64, Error>;
}

/// Writes `value` big-endian, right-aligned, into `nonce` (the nonce's
/// whole length); refuses a value that does not fit its bits.
pub fn counter_nonce(value: u64, nonce: &mut [u8]) -> Result<(), Error> {
    let bits = (8 * nonce.len()).min(64);
    if (bits < 64 && value >> bits != 0) || value == u64::MAX {
        return Err(Error::NoncesExhausted);
    }
    nonce.fill(0);
    let take = nonce.len().min(8);
    let at = nonce.len() - take;
    nonce[at..].copy_from_slice(&value.to_be_bytes()[8 - take..]);
    Ok(())
}

/// A counter in RAM that starts at a given value: for tests, and for a
/// device that restores its counter from storage at boot and saves each
/// value itself (`reserve` then returns what was saved).
pub struct RamCounter {
    pub next: u64,
}

impl CounterStore for RamCounter {
    fn reserve(&mut self) -> Result<u64, Error> {
        let value = self.next;
        self.next = value.checked_add(1).ok_or(Error::NoncesExhausted)?;
        Ok(value)
    }
}

impl Sealer {
    /// Seals with the next counter value as the nonce. Only for schemes
    /// whose nonces need only be unique (`Spec::allows_counter_nonces`).
    pub fn seal_counted(
        &self,
        store: &mut impl CounterStore,
        container: Container,
        plaintext: &[u8],
        aad: &[u8],
        out: &mut [u8],
    ) -> Result<usize, Error> {
        let spec = self.spec();
        if !spec.allows_counter_nonces() {
            return Err(Error::NonceLength);
        }
        let mut nonce = [0u8; crate::error::limits::NONCE];
        let nonce = &mut nonce[..spec.nonce_len()];
        counter_nonce(store.reserve()?, nonce)?;
        self.seal(container, nonce, plaintext, aad, out)
    }
}
