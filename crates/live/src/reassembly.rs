//! Messages that arrived in fragments (`seal::fragment`: LoRaWAN uplinks of
//! 51 bytes at EU868 DR0), put back together per device before they are
//! opened, in whatever order the fragments come.
//!
//! A message is handed on only whole: a fragment lost, or one that never
//! completes its message, loses that message, which is settled as
//! `incomplete` (never stored in part). A fragment altered on the way makes
//! the whole message fail its tag, as any altered message does.
//!
//! When a message is given up: once [`WINDOW`] newer messages of its device
//! have started, whether they completed or not (a loss after a
//! device's last message shows once its next ones arrive, as a lost uplink
//! does). A fragment of a message just settled (a broker's redelivery) is a
//! duplicate. The fragments' acknowledgements wait for their message's
//! commit, so a broker redelivers what the gateway had not settled when it
//! stopped.

use std::collections::{HashMap, VecDeque};

use crate::envelope::FrameCounter;

/// How many newer messages a device may start before one still in progress
/// is given up (the tag, 4 bits, comes round again after 16).
pub const WINDOW: usize = 4;
/// Settled messages remembered per device, to tell a fragment redelivered
/// late from a new message.
const SETTLED: usize = 16;

/// What arrived with one fragment besides its bytes: how the transport
/// acknowledges it (`A`, held until its message is settled) and its counter.
pub struct Carried<A> {
    pub ack: Option<A>,
    pub counter: Option<FrameCounter>,
}

/// A message settled by the fragments so far, with every fragment's
/// acknowledgement and counter.
pub enum Settled<A> {
    /// Every fragment arrived: the message, in order.
    Whole {
        bytes: Vec<u8>,
        acks: Vec<A>,
        counters: Vec<FrameCounter>,
    },
    /// Given up with fragments missing.
    Incomplete {
        detail: String,
        acks: Vec<A>,
        counters: Vec<FrameCounter>,
    },
    /// A fragment of a message already settled: nothing to do but acknowledge it.
    Duplicate {
        acks: Vec<A>,
        counters: Vec<FrameCounter>,
    },
}

struct Partial<A> {
    tag: u8,
    /// The device's message number when this one started (its first fragment).
    started: u64,
    parts: Vec<Option<Vec<u8>>>,
    /// The number of fragments, once the last has arrived.
    count: Option<usize>,
    acks: Vec<A>,
    counters: Vec<FrameCounter>,
}

impl<A> Partial<A> {
    fn missing(&self) -> usize {
        match self.count {
            Some(n) => self.parts[..n].iter().filter(|p| p.is_none()).count(),
            None => self.parts.iter().filter(|p| p.is_none()).count() + 1,
        }
    }

    fn settle_incomplete(self, device: &str) -> Settled<A> {
        let of = self
            .count
            .map_or_else(|| "of an unknown number".to_string(), |n| format!("of {n}"));
        Settled::Incomplete {
            detail: format!(
                "message {} from {device}: {} fragment(s) {of} never arrived",
                self.tag,
                self.missing()
            ),
            acks: self.acks,
            counters: self.counters,
        }
    }
}

struct Device<A> {
    /// Messages started so far (the tag is this modulo 16).
    started: u64,
    partial: VecDeque<Partial<A>>,
    /// Recently settled messages: (tag, started).
    settled: VecDeque<(u8, u64)>,
}

impl<A> Default for Device<A> {
    fn default() -> Self {
        Device {
            started: 0,
            partial: VecDeque::new(),
            settled: VecDeque::new(),
        }
    }
}

impl<A> Device<A> {
    fn remember(&mut self, tag: u8, started: u64) {
        self.settled.push_back((tag, started));
        while self.settled.len() > SETTLED {
            self.settled.pop_front();
        }
    }

    /// Whether `tag` names a message settled among the last [`WINDOW`] started.
    fn just_settled(&self, tag: u8) -> bool {
        self.settled
            .iter()
            .any(|&(t, started)| t == tag && started + WINDOW as u64 >= self.started)
    }
}

/// The messages in progress of every device.
pub struct Reassembler<A> {
    devices: HashMap<String, Device<A>>,
}

impl<A> Default for Reassembler<A> {
    fn default() -> Self {
        Reassembler {
            devices: HashMap::new(),
        }
    }
}

impl<A> Reassembler<A> {
    /// Takes one fragment from `device`; returns what it settles (its
    /// message whole, messages given up, or a duplicate).
    pub fn push(
        &mut self,
        device: &str,
        fragment: seal::fragment::Fragment,
        carried: Carried<A>,
    ) -> Vec<Settled<A>> {
        let d = self.devices.entry(device.to_string()).or_default();
        let mut out = Vec::new();
        let index = usize::from(fragment.index);
        let at = match d.partial.iter().position(|p| p.tag == fragment.tag) {
            Some(at) => at,
            None if d.just_settled(fragment.tag) => {
                out.push(Settled::Duplicate {
                    acks: carried.ack.into_iter().collect(),
                    counters: carried.counter.into_iter().collect(),
                });
                return out;
            }
            None => {
                let started = d.started;
                d.started += 1;
                // A message WINDOW messages older than this one is given up:
                // its tag comes round again after 16.
                while d
                    .partial
                    .front()
                    .is_some_and(|p| p.started + (WINDOW as u64) < started)
                {
                    let old = d.partial.pop_front().expect("checked");
                    d.remember(old.tag, old.started);
                    out.push(old.settle_incomplete(device));
                }
                d.partial.push_back(Partial {
                    tag: fragment.tag,
                    started,
                    parts: Vec::new(),
                    count: None,
                    acks: Vec::new(),
                    counters: Vec::new(),
                });
                d.partial.len() - 1
            }
        };
        let p = &mut d.partial[at];
        p.acks.extend(carried.ack);
        p.counters.extend(carried.counter);
        if p.parts.len() <= index {
            p.parts.resize(index + 1, None);
        }
        p.parts[index] = Some(fragment.body.to_vec());
        if fragment.last {
            p.count = Some(index + 1);
        }
        if p.count.is_some() && p.missing() == 0 && p.parts.len() == p.count.unwrap_or(0) {
            let p = d.partial.remove(at).expect("found above");
            d.remember(p.tag, p.started);
            out.push(Settled::Whole {
                bytes: p.parts.into_iter().flatten().flatten().collect(),
                acks: p.acks,
                counters: p.counters,
            });
        }
        out
    }

    /// Messages in progress, over every device.
    pub fn in_progress(&self) -> usize {
        self.devices.values().map(|d| d.partial.len()).sum()
    }

    /// The gateway is stopping: messages in progress whose fragments nothing
    /// will send again (no acknowledgement held: UDP, TCP, serial) are given
    /// up; those a broker would redeliver stay, unacknowledged. Returns the
    /// given-up ones and how many stay.
    pub fn give_up_unacknowledged(&mut self) -> (Vec<Settled<A>>, usize) {
        let (mut out, mut stay) = (Vec::new(), 0);
        for (device, d) in self.devices.drain() {
            for p in d.partial {
                if p.acks.is_empty() {
                    out.push(p.settle_incomplete(&device));
                } else {
                    stay += 1;
                }
            }
        }
        (out, stay)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cut(message: &[u8], tag: u8) -> Vec<Vec<u8>> {
        let n = seal::fragment::count(message.len(), 51).unwrap();
        (0..n)
            .map(|i| {
                let mut out = [0u8; 51];
                let len = seal::fragment::write(message, 51, tag, i, &mut out).unwrap();
                out[..len].to_vec()
            })
            .collect()
    }

    fn push(r: &mut Reassembler<()>, device: &str, bytes: &[u8]) -> Vec<Settled<()>> {
        let f = seal::fragment::parse(bytes).unwrap().unwrap();
        r.push(
            device,
            f,
            Carried {
                ack: None,
                counter: None,
            },
        )
    }

    fn whole(s: &[Settled<()>]) -> Vec<Vec<u8>> {
        s.iter()
            .filter_map(|s| match s {
                Settled::Whole { bytes, .. } => Some(bytes.clone()),
                _ => None,
            })
            .collect()
    }

    fn incomplete(s: &[Settled<()>]) -> usize {
        s.iter()
            .filter(|s| matches!(s, Settled::Incomplete { .. }))
            .count()
    }

    #[test]
    fn fragments_in_any_order_make_the_message_once() {
        let m: Vec<u8> = (0..112).map(|i| i as u8).collect();
        let parts = cut(&m, 3);
        let mut r = Reassembler::default();
        for order in [[2, 0, 1], [0, 1, 2], [1, 2, 0]] {
            let tag = order[0] as u8 + 4;
            let parts = cut(&m, tag);
            let mut settled = Vec::new();
            for i in order {
                settled.extend(push(&mut r, "dev", &parts[i]));
            }
            assert_eq!(whole(&settled), std::slice::from_ref(&m), "{order:?}");
        }
        // Two devices' messages with the same tag stay apart.
        let other: Vec<u8> = vec![9; 112];
        let others = cut(&other, 3);
        let mut settled = push(&mut r, "dev", &parts[0]);
        settled.extend(push(&mut r, "other", &others[0]));
        settled.extend(push(&mut r, "dev", &parts[1]));
        settled.extend(push(&mut r, "other", &others[1]));
        settled.extend(push(&mut r, "other", &others[2]));
        settled.extend(push(&mut r, "dev", &parts[2]));
        assert_eq!(whole(&settled), [other, m.clone()]);
        // A redelivered fragment of a settled message is a duplicate, not a new message.
        let again = push(&mut r, "dev", &parts[1]);
        assert!(matches!(again[..], [Settled::Duplicate { .. }]));
        assert_eq!(r.in_progress(), 0, "nothing left in progress");
    }

    #[test]
    fn a_message_missing_a_fragment_is_given_up_never_handed_on() {
        let mut r = Reassembler::default();
        let mut settled = Vec::new();
        // Message 0 loses its middle fragment; messages 1..=WINDOW arrive whole.
        for tag in 0..=WINDOW as u8 {
            let parts = cut(&[tag; 112], tag);
            for (i, part) in parts.iter().enumerate() {
                if tag == 0 && i == 1 {
                    continue;
                }
                settled.extend(push(&mut r, "dev", part));
            }
        }
        assert_eq!(whole(&settled).len(), WINDOW, "every whole message");
        assert_eq!(
            incomplete(&settled),
            0,
            "WINDOW messages may be in progress"
        );
        // One more message in progress pushes the broken one out.
        for tag in [5u8, 6, 7, 8] {
            settled.extend(push(&mut r, "dev", &cut(&[tag; 112], tag)[0]));
        }
        assert_eq!(incomplete(&settled), 1);
        let Some(Settled::Incomplete { detail, .. }) = settled
            .iter()
            .find(|s| matches!(s, Settled::Incomplete { .. }))
        else {
            unreachable!()
        };
        assert!(
            detail.contains("message 0 from dev: 1 fragment(s) of 3 never arrived"),
            "{detail}"
        );
        // What is still in progress is neither handed on nor given up, until
        // the gateway stops: then what nothing will resend is.
        assert_eq!(r.in_progress(), 4);
        let (given_up, stay) = r.give_up_unacknowledged();
        assert_eq!((incomplete(&given_up), stay), (4, 0));
    }
}
