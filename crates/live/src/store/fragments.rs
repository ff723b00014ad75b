//! Fragments put into their messages inside a batch's transaction: each
//! device's messages in progress ([`InProgress`]) are read under the device's
//! lock, the batch's fragments added, and the state written back, so workers
//! sharing the store complete a message once, whichever holds its last
//! fragment. A message completed is opened here and decided with the batch.

use std::collections::BTreeMap;

use super::{BatchTx, Pending};
use crate::counters::Reason;
use crate::error::LiveError;
use crate::reassembly::{InProgress, Settled};
use crate::verify::Verified;

/// A fragment waiting for its message (`seal::fragment`).
pub struct FragmentIn {
    /// Whose: the envelope's DevEUI and session, else the source.
    pub device: String,
    pub bytes: Vec<u8>,
    pub arrived_us: i64,
    pub source: String,
}

/// Opens a message the fragments completed, or says why it is refused.
pub type Opener<'a> = &'a mut dyn FnMut(&[u8]) -> Result<Verified, (Reason, String)>;

/// What a batch's commit decided.
pub struct Committed {
    /// One verdict per message of the batch, then one per message of `whole`.
    pub verdicts: Vec<super::Verdict>,
    /// Messages the fragments completed and that opened, decided after the batch's.
    pub whole: Vec<Pending>,
    /// Messages the fragments settled that are no reading: (reason, source, detail).
    pub refused: Vec<(Reason, String, String)>,
    /// What the fragments settled: messages whole or given up, and fragments
    /// of settled messages (each counts as received, as any input does).
    pub settled: u64,
}

type Reassembled = (Vec<Pending>, Vec<(Reason, String, String)>, u64);

/// Adds `fragments` to their devices' messages in progress; returns the
/// messages completed that opened, the ones refused, and how many settled.
pub(super) fn reassemble(
    tx: &mut dyn BatchTx,
    fragments: &[FragmentIn],
    open: Opener,
) -> Result<Reassembled, LiveError> {
    let (mut whole, mut refused, mut settled) = (Vec::new(), Vec::new(), 0);
    if fragments.is_empty() {
        return Ok((whole, refused, settled));
    }
    let mut devices: Vec<&str> = fragments.iter().map(|f| f.device.as_str()).collect();
    devices.sort_unstable();
    devices.dedup();
    let stored = tx.lock_fragments(&devices)?;
    let mut states = BTreeMap::new();
    for device in devices {
        let bytes = stored.get(device).map_or(&[][..], Vec::as_slice);
        // A state no longer readable (another version's) must not hold the
        // device's fragments back for ever: it starts again, and says so.
        let state = InProgress::decode(bytes).unwrap_or_else(|why| {
            settled += 1;
            refused.push((
                Reason::Incomplete,
                device.to_string(),
                format!("{device}'s messages in fragments ({why}) were started again"),
            ));
            InProgress::default()
        });
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
        for s in state.push(&f.device, fragment) {
            settled += 1;
            let source = f.source.clone();
            match s {
                Settled::Whole(bytes) => match open(&bytes) {
                    Ok(verified) => whole.push(Pending {
                        verified,
                        arrived_us: f.arrived_us,
                        source,
                    }),
                    Err((reason, detail)) => refused.push((reason, source, detail)),
                },
                Settled::Incomplete(detail) => refused.push((Reason::Incomplete, source, detail)),
                Settled::Duplicate => refused.push((
                    Reason::Replay,
                    source,
                    "a fragment of a message already settled".into(),
                )),
            }
        }
    }
    let rows: Vec<(&str, Vec<u8>, i64)> = states
        .iter()
        .map(|(d, s)| (*d, s.encode(), s.messages() as i64))
        .collect();
    tx.save_fragments(&rows)?;
    Ok((whole, refused, settled))
}
