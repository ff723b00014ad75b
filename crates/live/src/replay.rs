//! The replay rule, kept bounded (docs/live.md, "Replay state"):
//!
//! - Counter nonces: per key id, the highest counter accepted and a bitmap of the
//!   [`REORDER_WINDOW`] counters below it, as IPsec's anti-replay window. A counter
//!   seen in the window is a replay; one below the window is stale. Constant size
//!   per key, whatever the number of messages.
//! - Random nonces (and `hmac`, whose identity is the message's hash): the reading's
//!   `sent_us` must lie within `max_age` of the gateway's clock, else it is stale;
//!   nonces are remembered only while their reading is inside that window.

/// Counters this far below the highest one may still arrive (reordering on the link).
pub const REORDER_WINDOW: u64 = 64;

/// What the replay state says about one verified message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Fresh,
    Replay(String),
    Stale(String),
}

/// The high-water mark of one key id: `seen` bit i stands for counter `high - i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterMark {
    pub high: u64,
    pub seen: u64,
}

impl CounterMark {
    /// The mark after the first counter of a key.
    pub fn first(n: u64) -> CounterMark {
        CounterMark { high: n, seen: 1 }
    }

    /// Checks counter `n` and, when fresh, records it.
    pub fn accept(&mut self, n: u64) -> Verdict {
        if n > self.high {
            let shift = n - self.high;
            self.seen = if shift >= REORDER_WINDOW {
                0
            } else {
                self.seen << shift
            };
            self.seen |= 1;
            self.high = n;
            return Verdict::Fresh;
        }
        let behind = self.high - n;
        if behind >= REORDER_WINDOW {
            return Verdict::Stale(format!(
                "counter {n} is {behind} below the highest seen ({}); the window is {REORDER_WINDOW}",
                self.high
            ));
        }
        let bit = 1u64 << behind;
        if self.seen & bit != 0 {
            return Verdict::Replay(format!("counter {n} was used before"));
        }
        self.seen |= bit;
        Verdict::Fresh
    }
}

/// Whether a random-nonce reading is inside the freshness window at `now_us`.
pub fn check_age(sent_us: Option<i64>, now_us: i64, max_age_us: i64) -> Verdict {
    let Some(sent) = sent_us else {
        return Verdict::Stale(
            "no sent_us timestamp, so its age cannot be checked (send adds one unless \
             --no-timestamp; or use a counter-nonce key)"
                .into(),
        );
    };
    let age = now_us.saturating_sub(sent);
    if age > max_age_us {
        Verdict::Stale(format!("sent {} s ago, beyond --max-age", age / 1_000_000))
    } else if -age > max_age_us {
        Verdict::Stale(format!(
            "sent_us is {} s in the future, beyond --max-age",
            -age / 1_000_000
        ))
    } else {
        Verdict::Fresh
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_in_order_out_of_order_replayed_and_stale() {
        let mut m = CounterMark::first(10);
        assert_eq!(
            m.accept(10),
            Verdict::Replay("counter 10 was used before".into())
        );
        assert_eq!(m.accept(12), Verdict::Fresh);
        // 11 arrives late but inside the window: accepted once.
        assert_eq!(m.accept(11), Verdict::Fresh);
        assert!(matches!(m.accept(11), Verdict::Replay(_)));
        assert_eq!(m.accept(12 + 100), Verdict::Fresh);
        // Everything at or below 112 - 64 is now out of the window.
        assert!(matches!(m.accept(48), Verdict::Stale(_)));
        assert!(matches!(m.accept(12), Verdict::Stale(_)));
        assert_eq!(m.accept(112 - 63), Verdict::Fresh);
        assert!(matches!(m.accept(112 - 63), Verdict::Replay(_)));
        assert_eq!((m.high, m.seen), (112, 1 | 1 << 63));
    }

    #[test]
    fn ages_outside_the_window_either_way_are_stale() {
        let s = 1_000_000;
        assert_eq!(check_age(Some(100 * s), 100 * s, 60 * s), Verdict::Fresh);
        assert_eq!(check_age(Some(40 * s), 100 * s, 60 * s), Verdict::Fresh);
        assert!(matches!(
            check_age(Some(39 * s), 100 * s, 60 * s),
            Verdict::Stale(_)
        ));
        assert!(matches!(
            check_age(Some(161 * s), 100 * s, 60 * s),
            Verdict::Stale(_)
        ));
        assert!(matches!(
            check_age(None, 100 * s, 60 * s),
            Verdict::Stale(_)
        ));
    }
}
