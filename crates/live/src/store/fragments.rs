//! Fragments put into their messages inside a batch's transaction: each
//! device's messages in progress ([`InProgress`]) are read under the device's
//! lock, the batch's fragments added, and the state written back, so workers
//! sharing the store complete a message once, whichever holds its last
//! fragment. A message completed is opened here and decided with the batch.
//!
//! Nothing authenticates a fragment, so what fragments may hold is bounded
//! ([`FragmentLimits`]): strangers (sources none of whose messages opened)
//! share a budget of sources and bytes, and are refused beyond it; a device
//! whose message opened keeps its own share (at most `WINDOW + 1` messages of
//! `--max-message` bytes). A message idle for `--fragment-timeout` is given
//! up, and a row with nothing in progress is removed (a stranger's at once,
//! a known device's once idle that long).

use std::collections::BTreeMap;

use super::{BatchTx, FragmentRow, Pending};
use crate::counters::Reason;
use crate::error::LiveError;
use crate::limits::FragmentLimits;
use crate::reassembly::{InProgress, Settled};
use crate::verify::Verified;

/// A fragment waiting for its message (`seal::fragment`).
pub struct FragmentIn {
    /// Whose: the envelope's DevEUI and session, else the source.
    pub device: String,
    /// Where it came from, less what names one uplink: the key of
    /// [`Reassembly::known`].
    pub origin: String,
    pub bytes: Vec<u8>,
    pub arrived_us: i64,
    pub source: String,
}

/// Opens a message the fragments completed, or says why it is refused.
pub type Opener<'a> = &'a mut dyn FnMut(&[u8]) -> Result<Verified, (Reason, String)>;

/// What reassembly needs besides the fragments.
pub struct Reassembly<'a> {
    pub open: Opener<'a>,
    /// Whether a source sent a message that opened (a whole one, outside the
    /// store): it is no stranger.
    pub known: &'a dyn Fn(&str) -> bool,
    pub limits: &'a FragmentLimits,
    pub max_message: usize,
    pub now_us: i64,
    /// Also give up messages idle for the timeout on devices not in this batch.
    pub sweep: bool,
}

impl<'a> Reassembly<'a> {
    /// Opening with `open`, now, within the default limits, knowing no source
    /// and sweeping nothing: what a caller outside the gateway wants.
    pub fn new(open: Opener<'a>) -> Reassembly<'a> {
        static DEFAULT: std::sync::LazyLock<FragmentLimits> =
            std::sync::LazyLock::new(FragmentLimits::default);
        Reassembly {
            open,
            known: &|_| false,
            limits: &DEFAULT,
            max_message: crate::framing::MAX_MESSAGE,
            now_us: crate::clock::now_us(),
            sweep: false,
        }
    }
}

/// What a batch's commit decided.
pub struct Committed {
    /// One verdict per message of the batch, then one per message of `whole`.
    pub verdicts: Vec<super::Verdict>,
    /// Messages the fragments completed and that opened, decided after the batch's.
    pub whole: Vec<Pending>,
    /// Messages the fragments settled that are no reading, and fragments
    /// refused: (reason, source, detail).
    pub refused: Vec<(Reason, String, String)>,
    /// What the fragments settled: messages whole or given up, and fragments
    /// of settled messages or refused (each counts as received, as any input does).
    pub settled: u64,
}

type Reassembled = (Vec<Pending>, Vec<(Reason, String, String)>, u64);

/// Gives up `device`'s messages idle since `before_us`, each refused as
/// `incomplete`; how many settled.
fn give_up_idle(
    state: &mut InProgress,
    device: &str,
    before_us: i64,
    refused: &mut Vec<(Reason, String, String)>,
) -> u64 {
    let given_up = state.expire(device, before_us);
    let n = given_up.len() as u64;
    for s in given_up {
        if let Settled::Incomplete(detail) = s {
            refused.push((Reason::Incomplete, device.to_string(), detail));
        }
    }
    n
}

/// Strangers' messages in progress: how many sources hold some, and their bytes.
#[derive(Clone, Copy, Default)]
struct Usage {
    sources: u64,
    bytes: u64,
}

impl Usage {
    fn of(state: &InProgress) -> Usage {
        match state.trusted() || state.messages() == 0 {
            true => Usage::default(),
            false => Usage {
                sources: 1,
                bytes: state.bytes() as u64,
            },
        }
    }

    fn replace(&mut self, before: Usage, after: Usage) {
        self.sources = (self.sources + after.sources).saturating_sub(before.sources);
        self.bytes = (self.bytes + after.bytes).saturating_sub(before.bytes);
    }
}

/// Adds `fragments` to their devices' messages in progress; returns the
/// messages completed that opened, the ones refused, and how many settled.
pub(super) fn reassemble(
    tx: &mut dyn BatchTx,
    fragments: &[FragmentIn],
    r: &mut Reassembly,
) -> Result<Reassembled, LiveError> {
    let (mut whole, mut refused, mut settled) = (Vec::new(), Vec::new(), 0);
    let before_us = r.now_us - r.limits.timeout.as_micros() as i64;
    let mut devices: Vec<&str> = fragments.iter().map(|f| f.device.as_str()).collect();
    devices.sort_unstable();
    devices.dedup();
    // The batch's devices first, in key order, then idle ones (never waiting
    // for another writer's): no two workers wait on each other.
    let stored = match devices.is_empty() {
        true => Default::default(),
        false => tx.lock_fragments(&devices)?,
    };
    if r.sweep {
        let mut gone = Vec::new();
        for (device, bytes) in tx.idle_fragments(before_us)? {
            if devices.binary_search(&device.as_str()).is_ok() {
                continue;
            }
            if let Ok(mut state) = InProgress::decode(&bytes) {
                settled += give_up_idle(&mut state, &device, before_us, &mut refused);
            }
            gone.push(device);
        }
        let gone: Vec<FragmentRow> = gone.iter().map(|d| FragmentRow::gone(d)).collect();
        tx.save_fragments(&gone)?;
    }
    if fragments.is_empty() {
        return Ok((whole, refused, settled));
    }
    let mut usage = {
        let (sources, bytes) = tx.stranger_usage()?;
        Usage { sources, bytes }
    };
    let mut states = BTreeMap::new();
    for device in devices {
        let bytes = stored.get(device).map_or(&[][..], Vec::as_slice);
        // A state no longer readable (another version's) must not hold the
        // device's fragments back for ever: it starts again, and says so.
        let mut state = InProgress::decode(bytes).unwrap_or_else(|why| {
            settled += 1;
            refused.push((
                Reason::Incomplete,
                device.to_string(),
                format!("{device}'s messages in fragments ({why}) were started again"),
            ));
            InProgress::default()
        });
        let before = Usage::of(&state);
        settled += give_up_idle(&mut state, device, before_us, &mut refused);
        usage.replace(before, Usage::of(&state));
        states.insert(device, state);
    }
    for f in fragments {
        // The pipeline hands on only fragments that parse.
        let Some(Ok(fragment)) = seal::fragment::parse(&f.bytes) else {
            continue;
        };
        let state = states
            .get_mut(f.device.as_str())
            .expect("every device is read");
        if !state.trusted() && ((r.known)(&f.origin) || (r.known)(&f.device)) {
            state.trust();
        }
        let before = Usage::of(state);
        if !state.trusted() {
            let new_source = state.messages() == 0 && state.starts_message(&fragment);
            let full = if new_source && usage.sources >= r.limits.sources as u64 {
                Some(format!(
                    "{} strangers' (--fragment-sources)",
                    r.limits.sources
                ))
            } else if usage.bytes + fragment.body.len() as u64 > r.limits.bytes as u64 {
                Some(format!(
                    "{} bytes of strangers' (--fragment-bytes)",
                    r.limits.bytes
                ))
            } else {
                None
            };
            if let Some(budget) = full {
                settled += 1;
                refused.push((
                    Reason::FragmentsRefused,
                    f.source.clone(),
                    format!("a fragment from a source none of whose messages opened, with {budget} messages in fragments already held"),
                ));
                continue;
            }
        }
        for s in state.push(&f.device, fragment, f.arrived_us, r.max_message) {
            settled += 1;
            let source = f.source.clone();
            match s {
                Settled::Whole(bytes) => match (r.open)(&bytes) {
                    Ok(verified) => {
                        state.trust();
                        whole.push(Pending {
                            verified,
                            arrived_us: f.arrived_us,
                            source,
                        });
                    }
                    Err((reason, detail)) => refused.push((reason, source, detail)),
                },
                Settled::Incomplete(detail) => refused.push((Reason::Incomplete, source, detail)),
                Settled::Oversize(detail) => refused.push((Reason::Oversize, source, detail)),
                Settled::Conflict(detail) => {
                    refused.push((Reason::FragmentConflict, source, detail));
                }
                Settled::Duplicate => refused.push((
                    Reason::Replay,
                    source,
                    "a fragment of a message already settled".into(),
                )),
            }
        }
        usage.replace(before, Usage::of(state));
    }
    let rows: Vec<FragmentRow> = states
        .iter()
        .map(|(device, s)| match s.messages() == 0 && !s.trusted() {
            // A stranger with nothing in progress leaves no row.
            true => FragmentRow::gone(device),
            false => FragmentRow {
                device,
                state: Some(s.encode()),
                messages: s.messages() as i64,
                bytes: s.bytes() as i64,
                trusted: s.trusted(),
                touched_us: r.now_us,
            },
        })
        .collect();
    tx.save_fragments(&rows)?;
    Ok((whole, refused, settled))
}
