//! Messages that arrived in fragments (`seal::fragment`: LoRaWAN uplinks of
//! 51 bytes at EU868 DR0), put back together per device before they are
//! opened, in whatever order the fragments come.
//!
//! A device's messages in progress ([`InProgress`]) live in the store
//! (`crate::store`), read and written in the transaction of the batch that
//! brought the fragments, under the device's lock: so workers sharing a
//! subscription or a queue each add what the broker gave them, and whichever
//! commits the last fragment hands the message on, once. A fragment is
//! acknowledged once its batch is committed (it is in the store then), and
//! a gateway that stops or dies leaves what is in progress there for its
//! next run.
//!
//! A message is handed on only whole: a fragment lost, or one that never
//! completes its message, loses that message, which is settled as
//! `incomplete` (never stored in part). A fragment altered on the way makes
//! the whole message fail its tag, as any altered message does.
//!
//! When a message is given up: once [`WINDOW`] newer messages of its device
//! have started, whether they completed or not (a loss after a device's last
//! message shows once its next ones arrive, as a lost uplink does). A
//! fragment of a message just settled (a broker's redelivery) is a
//! duplicate.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

/// How many newer messages a device may start before one still in progress
/// is given up (the tag, 4 bits, comes round again after 16).
pub const WINDOW: usize = 4;
/// Settled messages remembered per device, to tell a fragment redelivered
/// late from a new message.
const SETTLED: usize = 16;

/// What a fragment settled.
#[derive(Debug, PartialEq, Eq)]
pub enum Settled {
    /// Every fragment arrived: the message, in order.
    Whole(Vec<u8>),
    /// Given up with fragments missing: why.
    Incomplete(String),
    /// A fragment of a message already settled: nothing to do.
    Duplicate,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Partial {
    tag: u8,
    /// The device's message number when this one started (its first fragment).
    started: u64,
    parts: Vec<Option<Vec<u8>>>,
    /// The number of fragments, once the last has arrived.
    count: Option<usize>,
}

impl Partial {
    fn missing(&self) -> usize {
        match self.count {
            Some(n) => self.parts[..n].iter().filter(|p| p.is_none()).count(),
            None => self.parts.iter().filter(|p| p.is_none()).count() + 1,
        }
    }

    fn incomplete(&self, device: &str) -> Settled {
        let of = self
            .count
            .map_or_else(|| "of an unknown number".to_string(), |n| format!("of {n}"));
        Settled::Incomplete(format!(
            "message {} from {device}: {} fragment(s) {of} never arrived",
            self.tag,
            self.missing()
        ))
    }
}

/// One device's messages in progress, and the ones it settled last: what the
/// store keeps per device ([`InProgress::encode`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct InProgress {
    /// Messages started so far (the tag is this modulo 16).
    started: u64,
    partial: VecDeque<Partial>,
    /// Recently settled messages: (tag, started).
    settled: VecDeque<(u8, u64)>,
}

impl InProgress {
    /// The state as stored; an empty one is none at all.
    pub fn encode(&self) -> Vec<u8> {
        serde_json::to_vec(self).expect("plain data serializes")
    }

    /// The stored state (empty: none yet), or why it cannot be read.
    pub fn decode(bytes: &[u8]) -> Result<InProgress, String> {
        if bytes.is_empty() {
            return Ok(InProgress::default());
        }
        let state: InProgress =
            serde_json::from_slice(bytes).map_err(|e| format!("a stored reassembly state: {e}"))?;
        // What `push` relies on: no message past 128 fragments, and a count
        // never beyond the fragments' places.
        let sound = state
            .partial
            .iter()
            .all(|p| p.parts.len() <= 128 && p.count.is_none_or(|c| c >= 1 && c <= p.parts.len()));
        if !sound {
            return Err("a stored reassembly state that breaks its own rules".into());
        }
        Ok(state)
    }

    /// Messages in progress.
    pub fn messages(&self) -> usize {
        self.partial.len()
    }

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

    /// Takes one fragment of `device`'s; returns what it settles (its message
    /// whole, messages given up, or a duplicate).
    pub fn push(&mut self, device: &str, fragment: seal::fragment::Fragment) -> Vec<Settled> {
        let mut out = Vec::new();
        let index = usize::from(fragment.index);
        let at = match self.partial.iter().position(|p| p.tag == fragment.tag) {
            Some(at) => at,
            None if self.just_settled(fragment.tag) => return vec![Settled::Duplicate],
            None => {
                let started = self.started;
                self.started += 1;
                // A message WINDOW messages older than this one is given up:
                // its tag comes round again after 16.
                while self
                    .partial
                    .front()
                    .is_some_and(|p| p.started + (WINDOW as u64) < started)
                {
                    let old = self.partial.pop_front().expect("checked");
                    self.remember(old.tag, old.started);
                    out.push(old.incomplete(device));
                }
                self.partial.push_back(Partial {
                    tag: fragment.tag,
                    started,
                    parts: Vec::new(),
                    count: None,
                });
                self.partial.len() - 1
            }
        };
        let p = &mut self.partial[at];
        if p.parts.len() <= index {
            p.parts.resize(index + 1, None);
        }
        p.parts[index] = Some(fragment.body.to_vec());
        if fragment.last {
            p.count = Some(index + 1);
        }
        if p.count.is_some() && p.missing() == 0 && p.parts.len() == p.count.unwrap_or(0) {
            let p = self.partial.remove(at).expect("found above");
            self.remember(p.tag, p.started);
            out.push(Settled::Whole(
                p.parts.into_iter().flatten().flatten().collect(),
            ));
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

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

    /// As the store does it: each device's state read, pushed to, written back.
    fn push(r: &mut HashMap<String, Vec<u8>>, device: &str, bytes: &[u8]) -> Vec<Settled> {
        let f = seal::fragment::parse(bytes).unwrap().unwrap();
        let mut state = InProgress::decode(r.get(device).map_or(&[][..], |s| s)).unwrap();
        let out = state.push(device, f);
        r.insert(device.to_string(), state.encode());
        out
    }

    fn in_progress(r: &HashMap<String, Vec<u8>>) -> usize {
        r.values()
            .map(|s| InProgress::decode(s).unwrap().messages())
            .sum()
    }

    fn whole(s: &[Settled]) -> Vec<Vec<u8>> {
        s.iter()
            .filter_map(|s| match s {
                Settled::Whole(bytes) => Some(bytes.clone()),
                _ => None,
            })
            .collect()
    }

    fn incomplete(s: &[Settled]) -> Vec<&str> {
        s.iter()
            .filter_map(|s| match s {
                Settled::Incomplete(why) => Some(why.as_str()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn fragments_in_any_order_make_the_message_once() {
        let m: Vec<u8> = (0..112).map(|i| i as u8).collect();
        let parts = cut(&m, 3);
        let mut r = HashMap::new();
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
        assert_eq!(push(&mut r, "dev", &parts[1]), [Settled::Duplicate]);
        assert_eq!(in_progress(&r), 0, "nothing left in progress");
    }

    #[test]
    fn a_message_missing_a_fragment_is_given_up_never_handed_on() {
        let mut r = HashMap::new();
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
        assert!(
            incomplete(&settled).is_empty(),
            "WINDOW messages may be in progress"
        );
        // One more message in progress pushes the broken one out.
        for tag in [5u8, 6, 7, 8] {
            settled.extend(push(&mut r, "dev", &cut(&[tag; 112], tag)[0]));
        }
        assert_eq!(
            incomplete(&settled),
            ["message 0 from dev: 1 fragment(s) of 3 never arrived"]
        );
        // What is still in progress is neither handed on nor given up: the
        // store keeps it for the rest of its fragments.
        assert_eq!(in_progress(&r), 4);
    }

    #[test]
    fn a_state_that_is_not_one_is_refused_with_the_reason() {
        assert_eq!(InProgress::decode(b""), Ok(InProgress::default()));
        let err = InProgress::decode(b"{\"started\":").unwrap_err();
        assert!(err.starts_with("a stored reassembly state: "), "{err}");
        let counted_past_its_parts = br#"{"started":1,"settled":[],
            "partial":[{"tag":0,"started":0,"parts":[[1]],"count":3}]}"#;
        assert!(InProgress::decode(counted_past_its_parts).is_err());
    }
}
