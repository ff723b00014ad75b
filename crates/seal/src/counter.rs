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

/// Bytes of one counter slot: the value and its complement, little-endian,
/// so a write torn half-way is seen as invalid and ignored.
pub const SLOT_LEN: usize = 16;

/// Non-volatile storage with two slots (two EEPROM cells, two flash words,
/// two files): each write replaces one slot whole or, if power fails during
/// it, leaves that slot invalid; the other slot is never touched by it.
pub trait Slots {
    /// The slot's bytes, or `None` when it was never written or cannot be read.
    fn read(&mut self, slot: usize) -> Option<[u8; SLOT_LEN]>;
    /// Writes and makes durable; `false` when the storage refused (the
    /// counter then reports `NoncesExhausted` and hands out nothing).
    fn write(&mut self, slot: usize, bytes: &[u8; SLOT_LEN]) -> bool;
}

impl<T: Slots + ?Sized> Slots for &mut T {
    fn read(&mut self, slot: usize) -> Option<[u8; SLOT_LEN]> {
        (**self).read(slot)
    }
    fn write(&mut self, slot: usize, bytes: &[u8; SLOT_LEN]) -> bool {
        (**self).write(slot, bytes)
    }
}

/// A counter kept in two slots, reserved a block at a time: the slot not
/// holding the newest value is overwritten with the end of the next block
/// before any value of that block is handed out. After a restart counting
/// resumes at the newest valid end, so at most a block is skipped and no
/// value is ever handed out twice, even when a write was torn (the other
/// slot still holds the previous end, below every value handed out since).
pub struct SlotCounter<S: Slots> {
    slots: S,
    next: u64,
    reserved_end: u64,
    /// The slot the next write goes to.
    older: usize,
    block: u64,
}

fn slot_value(bytes: &[u8; SLOT_LEN]) -> Option<u64> {
    let (v, check) = bytes.split_at(8);
    let v = u64::from_le_bytes(v.try_into().ok()?);
    let check = u64::from_le_bytes(check.try_into().ok()?);
    (check == !v).then_some(v)
}

impl<S: Slots> SlotCounter<S> {
    /// Resumes from what the slots hold (0 for blank storage); `block` values
    /// are reserved per write (at least 1).
    pub fn resume(mut slots: S, block: u64) -> SlotCounter<S> {
        let a = slots.read(0).as_ref().and_then(slot_value);
        let b = slots.read(1).as_ref().and_then(slot_value);
        let (end, older) = match (a, b) {
            (Some(a), Some(b)) if a >= b => (a, 1),
            (Some(_), Some(b)) => (b, 0),
            (Some(a), None) => (a, 1),
            (None, Some(b)) => (b, 0),
            (None, None) => (0, 0),
        };
        SlotCounter {
            slots,
            next: end,
            reserved_end: end,
            older,
            block: block.max(1),
        }
    }

    /// The next value `reserve` would hand out.
    pub fn peek(&self) -> u64 {
        self.next
    }

    /// The counter between calls, for a caller that cannot keep this struct
    /// (the C interface): next value, end of the reserved block, slot to write next.
    pub fn state(&self) -> (u64, u64, usize) {
        (self.next, self.reserved_end, self.older)
    }

    /// Goes on from [`state`](Self::state); `resume` at boot, this between calls.
    pub fn from_state(
        slots: S,
        block: u64,
        (next, reserved_end, older): (u64, u64, usize),
    ) -> Self {
        SlotCounter {
            slots,
            next,
            reserved_end,
            older: older & 1,
            block: block.max(1),
        }
    }

    /// The storage, for the device's other work between reservations.
    pub fn slots_mut(&mut self) -> &mut S {
        &mut self.slots
    }
}

impl<S: Slots> CounterStore for SlotCounter<S> {
    fn reserve(&mut self) -> Result<u64, Error> {
        if self.next >= self.reserved_end {
            let end = self
                .next
                .checked_add(self.block)
                .ok_or(Error::NoncesExhausted)?;
            let mut bytes = [0u8; SLOT_LEN];
            bytes[..8].copy_from_slice(&end.to_le_bytes());
            bytes[8..].copy_from_slice(&(!end).to_le_bytes());
            // No value is handed out that is not durable. (The core's error
            // enum is not extended for this: its layout is part of every
            // device's measured code, data/device-costs.)
            if !self.slots.write(self.older, &bytes) {
                return Err(Error::NoncesExhausted);
            }
            self.older ^= 1;
            self.reserved_end = end;
        }
        let value = self.next;
        self.next += 1;
        Ok(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two slots in RAM; `tear` makes the next write leave its slot half-written.
    #[derive(Default)]
    struct Cells {
        slots: [Option<[u8; SLOT_LEN]>; 2],
        writes: usize,
        tear: bool,
    }

    impl Slots for Cells {
        fn read(&mut self, slot: usize) -> Option<[u8; SLOT_LEN]> {
            self.slots[slot]
        }
        fn write(&mut self, slot: usize, bytes: &[u8; SLOT_LEN]) -> bool {
            self.writes += 1;
            let mut b = *bytes;
            if self.tear {
                // Power failed after the first half: value new, check old.
                let old = self.slots[slot].unwrap_or([0xFF; SLOT_LEN]);
                b[8..].copy_from_slice(&old[8..]);
                self.tear = false;
            }
            self.slots[slot] = Some(b);
            true
        }
    }

    fn take(c: &mut SlotCounter<&mut Cells>, n: usize) -> Vec<u64> {
        (0..n).map(|_| c.reserve().unwrap()).collect()
    }

    #[test]
    fn restarts_skip_but_never_repeat() {
        let mut cells = Cells::default();
        let mut seen = Vec::new();
        for run in 0..5 {
            let mut c = SlotCounter::resume(&mut cells, 4);
            seen.extend(take(&mut c, 3 + run));
        }
        let mut sorted = seen.clone();
        sorted.dedup();
        assert_eq!(sorted, seen, "strictly increasing, so never repeated");
        assert_eq!(seen[..4], [0, 1, 2, 4], "a restart skips to the next block");
        // Writes once per block, not per value.
        assert!(cells.writes < seen.len());
    }

    #[test]
    fn a_torn_write_falls_back_to_the_previous_block_end() {
        let mut cells = Cells::default();
        let first = take(&mut SlotCounter::resume(&mut cells, 4), 6); // ends 4, 8 stored
        cells.tear = true;
        let mut c = SlotCounter::resume(&mut cells, 4);
        // This reservation's write is torn; power fails before any value is used.
        assert_eq!(c.peek(), 8);
        let _ = c.reserve();
        let c = SlotCounter::resume(&mut cells, 4);
        assert!(
            c.peek() > *first.last().unwrap(),
            "{} after {first:?}",
            c.peek()
        );
    }

    #[test]
    fn blank_storage_starts_at_zero() {
        let mut cells = Cells::default();
        assert_eq!(SlotCounter::resume(&mut cells, 16).reserve(), Ok(0));
    }
}
