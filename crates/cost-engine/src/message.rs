//! A reading sealed, as the engine needs it: its scheme, container, sizes and
//! SCHC packet. Sealing it (the seeded sample, its serialization, a
//! throw-away key) and timing it on this machine are the host's
//! (`cost::message::Sealer`); the engine asks through [`Messages`].

use seal::Scheme;
use seal::host::container::MessageContainer;

use crate::Error;
use crate::schc_packet::SchcPacket;

/// One message asked for: `scheme` sealing the `sample` reading (seed 1),
/// serialized as `serialization` (json when none), in `container`,
/// compressed as `compression` says (the oscore container's, `schc[:RULES]`).
#[derive(Clone, Copy, Debug)]
pub struct Ask<'a> {
    pub scheme: &'a str,
    pub sample: &'a str,
    pub serialization: Option<&'a str>,
    pub container: MessageContainer,
    pub compression: Option<&'a str>,
}

/// The sealed message's facts.
#[derive(Clone, Debug)]
pub struct Sealed {
    pub scheme: Scheme,
    pub container: MessageContainer,
    /// The serialized reading's bytes, and the reading in words
    /// ("chain:10 serialized as json (seed 1)").
    pub plaintext_bytes: usize,
    pub sample_description: String,
    /// The message as it leaves the device (container bytes, transport-encoded).
    pub bytes: usize,
    /// What the radio carries instead, where it was compressed.
    pub schc: Option<SchcPacket>,
}

/// What seals readings for the engine (legacy schemes too: the ranking
/// marks or excludes them) and, for a device without seal times of its
/// own (no simulated target), times the seal on this machine.
pub trait Messages {
    /// Judges the sample and the compression a request names, before
    /// anything is sealed.
    fn check(&self, sample: &str, compression: Option<&str>) -> Result<(), Error>;
    fn seal(&self, ask: &Ask) -> Result<Sealed, Error>;
    /// This machine's seal time of the asked message, µs: median, 95 %
    /// interval, samples. None where nothing times it (a browser).
    fn host_time(&self, ask: &Ask) -> Result<Option<(f64, f64, f64, u64)>, Error>;
}
