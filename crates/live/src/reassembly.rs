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
//! Nothing here is authenticated, so the first copy of each part wins: a
//! second copy that differs, a second "last" that disagrees with the first,
//! or a part beyond the last is refused ([`Settled::Conflict`]) and changes
//! nothing. A forgery that arrives before the genuine part still spoils that
//! one message (it fails its tag); only a MAC per frame, as LoRaWAN's network
//! server checks, could tell which copy is genuine.
//!
//! When a message is given up: once [`WINDOW`] newer messages of its device
//! have started, whether they completed or not (a loss after a device's last
//! message shows once its next ones arrive, as a lost uplink does); once it
//! holds more than the gateway's `--max-message` ([`Settled::Oversize`]);
//! or once no fragment of it arrived for `--fragment-timeout`
//! ([`InProgress::expire`]). A fragment of a message just settled (a
//! broker's redelivery) is a duplicate.

use std::collections::VecDeque;

/// How many newer messages a device may start before one still in progress
/// is given up (the tag, 4 bits, comes round again after 16).
pub const WINDOW: usize = 4;
/// Settled messages remembered per device, to tell a fragment redelivered
/// late from a new message.
const SETTLED: usize = 16;
/// The first byte of a stored state: the binary layout below, version 1.
const LAYOUT: u8 = 0xB1;

/// What a fragment settled.
#[derive(Debug, PartialEq, Eq)]
pub enum Settled {
    /// Every fragment arrived: the message, in order.
    Whole(Vec<u8>),
    /// Given up with fragments missing: why.
    Incomplete(String),
    /// A fragment of a message already settled: nothing to do.
    Duplicate,
    /// A fragment that disagrees with what arrived first: refused, and what
    /// arrived first kept.
    Conflict(String),
    /// The message grew past the largest one the gateway opens: given up.
    Oversize(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Partial {
    tag: u8,
    /// The device's message number when this one started (its first fragment).
    started: u64,
    /// When its last fragment arrived (Unix µs at the gateway).
    touched_us: i64,
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

    fn bytes(&self) -> usize {
        self.parts.iter().flatten().map(Vec::len).sum()
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

    /// Why `index` (last or not) disagrees with what arrived first, if it does.
    fn conflict(&self, index: usize, last: bool, body: &[u8]) -> Option<&'static str> {
        if let Some(n) = self.count {
            if index >= n {
                return Some("a fragment past the message's last");
            }
            if last && index + 1 != n {
                return Some("a second last fragment that disagrees with the first");
            }
        } else if last && self.parts.len() > index + 1 {
            return Some("a last fragment before fragments that already arrived");
        }
        match self.parts.get(index) {
            Some(Some(first)) if first != body => Some("a second copy that differs from the first"),
            Some(Some(_)) if last != (self.count == Some(index + 1)) => {
                Some("a second copy whose last flag differs from the first's")
            }
            _ => None,
        }
    }
}

/// One device's messages in progress, and the ones it settled last: what the
/// store keeps per device ([`InProgress::encode`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InProgress {
    /// Messages started so far (the tag is this modulo 16).
    started: u64,
    /// A message of this device's (in fragments or whole) opened: it keeps its
    /// share of the budget when strangers fill theirs.
    trusted: bool,
    partial: VecDeque<Partial>,
    /// Recently settled messages: (tag, started).
    settled: VecDeque<(u8, u64)>,
}

impl InProgress {
    /// The state as stored: a byte of layout, then fixed-width integers and
    /// the parts' bytes as they are (little-endian throughout).
    pub fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(32 + self.bytes());
        out.push(LAYOUT);
        out.push(u8::from(self.trusted));
        out.extend_from_slice(&self.started.to_le_bytes());
        out.push(self.settled.len() as u8);
        for &(tag, started) in &self.settled {
            out.push(tag);
            out.extend_from_slice(&started.to_le_bytes());
        }
        out.push(self.partial.len() as u8);
        for p in &self.partial {
            out.push(p.tag);
            out.extend_from_slice(&p.started.to_le_bytes());
            out.extend_from_slice(&p.touched_us.to_le_bytes());
            out.push(p.count.map_or(0, |n| n as u8));
            out.push(p.parts.len() as u8);
            for part in &p.parts {
                let body = part.as_deref().unwrap_or(&[]);
                out.extend_from_slice(&(body.len() as u32).to_le_bytes());
                out.extend_from_slice(body);
            }
        }
        out
    }

    /// The stored state (empty: none yet), or why it cannot be read.
    pub fn decode(bytes: &[u8]) -> Result<InProgress, String> {
        if bytes.is_empty() {
            return Ok(InProgress::default());
        }
        let broken = |what: &str| format!("a stored reassembly state: {what}");
        let mut r = Reader(bytes);
        if r.u8()? != LAYOUT {
            return Err(broken("not this version's layout"));
        }
        let trusted = match r.u8()? {
            0 => false,
            1 => true,
            _ => return Err(broken("a flag that is neither 0 nor 1")),
        };
        let started = r.u64()?;
        let settled_n = usize::from(r.u8()?);
        if settled_n > SETTLED {
            return Err(broken("more settled messages than it keeps"));
        }
        let mut settled = VecDeque::with_capacity(settled_n);
        for _ in 0..settled_n {
            settled.push_back((r.tag()?, r.u64()?));
        }
        let partial_n = usize::from(r.u8()?);
        if partial_n > WINDOW + 1 {
            return Err(broken("more messages in progress than its window"));
        }
        let mut partial = VecDeque::with_capacity(partial_n);
        for _ in 0..partial_n {
            let (tag, started, touched_us) = (r.tag()?, r.u64()?, r.u64()? as i64);
            let count = match r.u8()? {
                0 => None,
                n => Some(usize::from(n)),
            };
            let n = usize::from(r.u8()?);
            // What `push` relies on: no message past 128 fragments, and a
            // count that is the fragments' places.
            if n > seal::fragment::MAX_FRAGMENTS || count.is_some_and(|c| c != n) {
                return Err(broken("a message that breaks its own rules"));
            }
            let mut parts = Vec::with_capacity(n);
            for _ in 0..n {
                let len = r.u32()? as usize;
                let body = r.take(len)?;
                parts.push((!body.is_empty()).then(|| body.to_vec()));
            }
            partial.push_back(Partial {
                tag,
                started,
                touched_us,
                parts,
                count,
            });
        }
        if !r.0.is_empty() {
            return Err(broken("bytes after its end"));
        }
        // Message numbers as `push` counts them (it adds to them): each below
        // the count of messages started, which no device takes near u64's
        // end, and those in progress in the order they started.
        let numbered = started < 1 << 63
            && settled.iter().all(|&(_, s)| s < started)
            && partial.iter().all(|p| p.started < started)
            && partial
                .iter()
                .zip(partial.iter().skip(1))
                .all(|(a, b)| a.started < b.started);
        if !numbered {
            return Err(broken("message numbers that break its own rules"));
        }
        Ok(InProgress {
            started,
            trusted,
            partial,
            settled,
        })
    }

    /// Messages in progress.
    pub fn messages(&self) -> usize {
        self.partial.len()
    }

    /// Bytes held in messages in progress.
    pub fn bytes(&self) -> usize {
        self.partial.iter().map(Partial::bytes).sum()
    }

    /// When a fragment of a message in progress last arrived (0: none is).
    pub fn touched_us(&self) -> i64 {
        self.partial.iter().map(|p| p.touched_us).max().unwrap_or(0)
    }

    /// Whether a message of this device's opened (see [`InProgress::trust`]).
    pub fn trusted(&self) -> bool {
        self.trusted
    }

    /// Marks the device as one whose message opened: a stranger no more.
    pub fn trust(&mut self) {
        self.trusted = true;
    }

    /// Whether this fragment would start a message (rather than add to one in
    /// progress, or repeat one just settled): what a stranger's budget limits.
    pub fn starts_message(&self, fragment: &seal::fragment::Fragment) -> bool {
        !self.partial.iter().any(|p| p.tag == fragment.tag) && !self.just_settled(fragment.tag)
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

    /// Gives up every message in progress that got no fragment since
    /// `before_us`: one `Incomplete` each.
    pub fn expire(&mut self, device: &str, before_us: i64) -> Vec<Settled> {
        let mut out = Vec::new();
        let mut kept = VecDeque::with_capacity(self.partial.len());
        for p in std::mem::take(&mut self.partial) {
            if p.touched_us < before_us {
                self.remember(p.tag, p.started);
                out.push(p.incomplete(device));
            } else {
                kept.push_back(p);
            }
        }
        self.partial = kept;
        out
    }

    /// Takes one fragment of `device`'s, arrived at `now_us`; returns what it
    /// settles (its message whole, messages given up, a duplicate, or the
    /// fragment refused). A message is never held past `max_message` bytes.
    pub fn push(
        &mut self,
        device: &str,
        fragment: seal::fragment::Fragment,
        now_us: i64,
        max_message: usize,
    ) -> Vec<Settled> {
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
                    touched_us: now_us,
                    parts: Vec::new(),
                    count: None,
                });
                self.partial.len() - 1
            }
        };
        let p = &mut self.partial[at];
        if let Some(why) = p.conflict(index, fragment.last, fragment.body) {
            out.push(Settled::Conflict(format!(
                "fragment {index} of message {} from {device}: {why}; the first kept",
                p.tag
            )));
            return out;
        }
        if p.parts.get(index).is_some_and(Option::is_some) {
            // The same copy again (a redelivery): it settles nothing.
            p.touched_us = p.touched_us.max(now_us);
            return out;
        }
        if p.bytes() + fragment.body.len() > max_message {
            let p = self.partial.remove(at).expect("found above");
            self.remember(p.tag, p.started);
            out.push(Settled::Oversize(format!(
                "message {} from {device}: its fragments hold more than {max_message} bytes (--max-message); given up unopened",
                p.tag
            )));
            return out;
        }
        if p.parts.len() <= index {
            p.parts.resize(index + 1, None);
        }
        p.parts[index] = Some(fragment.body.to_vec());
        p.touched_us = p.touched_us.max(now_us);
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

/// Reads a stored state's fields in order; running out is an error.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("a stored reassembly state: cut short".into());
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn tag(&mut self) -> Result<u8, String> {
        match self.u8()? {
            t if t < seal::fragment::TAGS => Ok(t),
            _ => Err("a stored reassembly state: a tag past 15".into()),
        }
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }

    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    const MAX: usize = 16 * 1024;

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
        push_at(r, device, bytes, 0, MAX)
    }

    fn push_at(
        r: &mut HashMap<String, Vec<u8>>,
        device: &str,
        bytes: &[u8],
        now_us: i64,
        max: usize,
    ) -> Vec<Settled> {
        let f = seal::fragment::parse(bytes).unwrap().unwrap();
        let mut state = InProgress::decode(r.get(device).map_or(&[][..], |s| s)).unwrap();
        let out = state.push(device, f, now_us, max);
        let encoded = state.encode();
        assert_eq!(
            InProgress::decode(&encoded),
            Ok(state),
            "read back as written"
        );
        r.insert(device.to_string(), encoded);
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
        // The same copy again (a broker's redelivery) settles nothing.
        assert_eq!(push(&mut r, "dev", &parts[1]), []);
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
    fn the_first_copy_wins_and_a_forgery_after_it_changes_nothing() {
        let m: Vec<u8> = (0..200).map(|i| i as u8).collect();
        let parts = cut(&m, 7);
        assert_eq!(parts.len(), 5);
        let mut r = HashMap::new();
        let mut settled = push(&mut r, "dev", &parts[0]);
        settled.extend(push(&mut r, "dev", &parts[1]));
        // A second copy of part 1 that differs.
        let mut forged = parts[1].clone();
        forged[10] ^= 1;
        // A "last" at index 2, and one at index 1 (before a part that arrived).
        let mut last_early = parts[2].clone();
        last_early[1] |= 0x80;
        let mut last_before = parts[0].clone();
        last_before[1] = 0x80;
        let forgeries = [forged, last_before];
        for f in &forgeries {
            let out = push(&mut r, "dev", f);
            assert!(matches!(out.as_slice(), [Settled::Conflict(_)]), "{out:?}");
        }
        settled.extend(push(&mut r, "dev", &parts[2]));
        assert!(matches!(
            push(&mut r, "dev", &last_early).as_slice(),
            [Settled::Conflict(_)]
        ));
        settled.extend(push(&mut r, "dev", &parts[4]));
        // The last arrived: a part past it disagrees.
        let mut past = parts[3].clone();
        past[1] = 5;
        let out = push(&mut r, "dev", &past);
        assert!(
            matches!(&out[..], [Settled::Conflict(why)] if why.contains("past the message's last")),
            "{out:?}"
        );
        settled.extend(push(&mut r, "dev", &parts[3]));
        assert_eq!(whole(&settled), [m], "the genuine message, whole");
    }

    #[test]
    fn a_message_is_never_held_past_max_message_nor_past_its_timeout() {
        let m = vec![5u8; 300];
        let parts = cut(&m, 2);
        let mut r = HashMap::new();
        let mut settled = Vec::new();
        for p in &parts[..6] {
            settled.extend(push_at(&mut r, "dev", p, 0, 256));
        }
        assert!(
            matches!(&settled[..], [Settled::Oversize(why)] if why.contains("more than 256 bytes")),
            "{settled:?}"
        );
        assert_eq!(in_progress(&r), 0, "given up, nothing held");
        assert_eq!(push(&mut r, "dev", &parts[6]), [Settled::Duplicate]);

        // Idle since 1_000 µs: given up at a cut-off after it, kept before.
        let mut state = InProgress::default();
        let f = cut(&m, 9);
        state.push(
            "dev",
            seal::fragment::parse(&f[0]).unwrap().unwrap(),
            1_000,
            MAX,
        );
        assert!(state.expire("dev", 1_000).is_empty());
        assert_eq!(
            (state.messages(), state.bytes(), state.touched_us()),
            (1, 49, 1_000)
        );
        assert_eq!(
            incomplete(&state.expire("dev", 1_001)),
            ["message 9 from dev: 1 fragment(s) of an unknown number never arrived"]
        );
        assert_eq!(
            (state.messages(), state.bytes(), state.touched_us()),
            (0, 0, 0)
        );
    }

    #[test]
    fn a_state_that_is_not_one_is_refused_with_the_reason() {
        assert_eq!(InProgress::decode(b""), Ok(InProgress::default()));
        // An earlier version's JSON.
        let err = InProgress::decode(b"{\"started\":").unwrap_err();
        assert!(err.starts_with("a stored reassembly state: "), "{err}");
        let mut state = InProgress::default();
        state.trust();
        let f = cut(&[1; 112], 3);
        state.push("d", seal::fragment::parse(&f[2]).unwrap().unwrap(), 7, MAX);
        let good = state.encode();
        assert_eq!(InProgress::decode(&good).as_ref(), Ok(&state));
        // Every cut and a byte too many are refused, never read as something else.
        for n in 1..good.len() {
            assert!(InProgress::decode(&good[..n]).is_err(), "cut at {n}");
        }
        assert!(InProgress::decode(&[&good[..], &[0]].concat()).is_err());
        // A count past its fragments' places.
        let mut counted_past = good.clone();
        let count_at = good.len() - 3 * 4 - 14 - 2;
        assert_eq!(counted_past[count_at], 3, "the count's byte");
        counted_past[count_at] = 4;
        assert!(InProgress::decode(&counted_past).is_err());
    }

    /// Found by the `fragments` fuzz target: a stored state that counted
    /// u64::MAX messages started made the next message's `push` overflow.
    #[test]
    fn a_state_whose_message_numbers_cannot_go_on_is_refused() {
        let f = cut(&[1; 112], 3);
        let fragment = |i: usize| seal::fragment::parse(&f[i]).unwrap().unwrap();
        let mut state = InProgress::default();
        state.push("d", fragment(0), 7, MAX);
        let good = state.encode();
        assert_eq!(InProgress::decode(&good).as_ref(), Ok(&state));
        // Layout, trusted, then `started` (8 bytes), then the settled count.
        let with_started = |n: u64| {
            let mut bytes = good.clone();
            bytes[2..10].copy_from_slice(&n.to_le_bytes());
            bytes
        };
        for started in [u64::MAX, 1 << 63] {
            let why = InProgress::decode(&with_started(started)).unwrap_err();
            assert!(why.contains("message numbers"), "{why}");
        }
        // A message in progress numbered past the messages started.
        assert!(InProgress::decode(&with_started(0)).is_err());
        // The largest count it takes still goes on.
        let mut far = InProgress::decode(&with_started((1 << 63) - 1)).unwrap();
        let other = cut(&[2; 112], 4);
        far.push(
            "d",
            seal::fragment::parse(&other[0]).unwrap().unwrap(),
            8,
            MAX,
        );
        assert_eq!(far.messages(), 1, "the old message given up");
    }
}
