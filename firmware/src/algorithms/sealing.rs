//! The sealing core's whole path on the device, for the one scheme this
//! build was made for (`CIPHERMETER_SCHEME`, turned into the constant
//! `SPEC` by build.rs): serialize study 003's chain reading to JSON, seal
//! it, and wrap it in each container, timed together as `seal-json`,
//! `seal-binary` and `seal-cose` at each chain length; below the smallest
//! chain, a raw reading of each of `SMALL_READINGS` bytes, sealed and wrapped. The same code
//! seals on the host (crates/seal), so the device is charged for the very
//! bytes the link carries.
//!
//! Known answer: `S <container> <hex>` lines print the message sealed under
//! `seal::reading::known_answer`'s key, key id and nonce; the host runner
//! seals the same and fails the build's known answer unless every byte
//! agrees (crates/mcu `seal_check`). The device does not open messages: a
//! sensor only seals, and its code size should be what sealing costs.

#[allow(unused_imports)]
use seal::algorithm::{AeadAlg, BlockAlg, CipherAlg, MacAlg, Mode, StreamAlg};
#[allow(unused_imports)]
use seal::{ChainReading, Container, Pattern, Sealer, Spec, counter_nonce};

use crate::bench::{Bench, Failure};
use crate::probe::Probe;
use seal::reading::known_answer;

include!(concat!(env!("OUT_DIR"), "/seal_scheme.rs"));

use seal::reading::{CHAINS, SMALL_READINGS};

#[cfg(not(feature = "seal-oscore"))]
pub fn run<P: Probe>(b: &mut Bench<P>, data: &mut [u8], out: &mut [u8]) {
    let spec = SPEC;
    b.algorithm(spec.name);
    let key = &known_answer::KEY[..spec.key_len()];
    // Key setup is timed on a throwaway sealer: on AVR the large value
    // returned out of the measured region came back with an empty key.
    b.op("key-setup", 0, || {
        Sealer::new(spec, &known_answer::KEY_ID, key).is_ok()
    });
    let Ok(sealer) = Sealer::new(spec, &known_answer::KEY_ID, key) else {
        b.kat(spec.name, Err(Failure::Step("key setup refused the key")));
        return;
    };
    let mut nonce = [0u8; 32];
    let nonce = &mut nonce[..spec.nonce_len()];
    known_answer::nonce(&spec, nonce);
    let answer = known_answer(b, &sealer, nonce, data, out);
    b.kat(spec.name, answer);
    for container in Container::ALL {
        let op = match container {
            Container::Json => "seal-json",
            Container::Binary => "seal-binary",
            Container::Cose => "seal-cose",
        };
        // A sensor's own small reading, n bytes already serialized (ASCII
        // digits), so that a reading below the smallest chain is costed from
        // a measurement, not from the chain's 64 B; then the chains. One
        // measured closure for both: a second would add its code to every
        // sealing build's size.
        let inputs = SMALL_READINGS.iter().map(|&n| Input::Raw(n)).chain(
            CHAINS
                .iter()
                .map(|&n| Input::Chain(ChainReading::measured(n, 0))),
        );
        for input in inputs {
            let len = match &input {
                Input::Raw(n) => {
                    data[..*n].fill(b'7');
                    *n
                }
                Input::Chain(reading) => match reading.to_json(data) {
                    Ok(len) => len,
                    Err(_) => continue,
                },
            };
            if sealer.seal_buffer_len(container, &data[..len], &[]) > out.len() {
                continue;
            }
            let (plain, _) = data.split_at_mut(len);
            let sealed = b.op(op, len, || {
                // The whole path: serialize (a chain), seal, wrap.
                let len = match &input {
                    Input::Raw(n) => *n,
                    Input::Chain(reading) => reading.to_json(plain).unwrap_or(0),
                };
                sealer.seal(container, nonce, &plain[..len], &[], out)
            });
            if sealed.is_err() {
                b.kat(op, Err(Failure::Step("sealing failed")));
            }
        }
    }
}

/// What a seal path is timed on: a raw reading of n bytes, or a chain
/// reading serialized inside the measured region.
enum Input {
    Raw(usize),
    Chain(ChainReading),
}

// The container path above still writes its readings inline: moving it onto
// these would move every sealing build's counts, so it waits for the next
// whole regeneration of the tables.
#[cfg(feature = "seal-oscore")]
impl Input {
    /// Every reading a seal path is timed on: the small raw ones, then the chains.
    fn all() -> impl Iterator<Item = Input> {
        SMALL_READINGS.iter().map(|&n| Input::Raw(n)).chain(
            CHAINS
                .iter()
                .map(|&n| Input::Chain(ChainReading::measured(n, 0))),
        )
    }

    /// Writes the reading into `data` (a chain as JSON); its length, or
    /// None where it does not fit.
    fn write(&self, data: &mut [u8]) -> Option<usize> {
        match self {
            Input::Raw(n) => {
                data.get_mut(..*n)?.fill(b'7');
                Some(*n)
            }
            Input::Chain(reading) => reading.to_json(data).ok(),
        }
    }
}

/// An OSCORE build (`oscore:ALG`): the reading protected as a CoAP POST
/// (`seal::oscore::reading`), timed as `seal-oscore` at each reading, with
/// the context's derivation as key setup. Known answer: `S oscore <hex>`,
/// the fixed reading under `oscore::reading::known_answer`'s context.
#[cfg(feature = "seal-oscore")]
pub fn run<P: Probe>(b: &mut Bench<P>, data: &mut [u8], out: &mut [u8]) {
    use seal::oscore::reading::{self as oscore, known_answer as oscore_answer};
    b.algorithm(OSCORE_NAME);
    b.op("key-setup", 0, || {
        oscore_answer::context(OSCORE_ALG).is_ok()
    });
    let Ok(ctx) = oscore_answer::context(OSCORE_ALG) else {
        b.kat(OSCORE_NAME, Err(Failure::Step("the context was refused")));
        return;
    };
    let reading = ChainReading::sample(known_answer::THERMOMETERS, known_answer::SEED);
    let seq = oscore_answer::SEQUENCE;
    let path = oscore::DEFAULT_URI_PATH;
    let answer = match reading.to_json(data) {
        Ok(len) => match oscore::seal_reading(&ctx, seq, &data[..len], path, oscore::JSON, out) {
            Ok((n, _)) => {
                b.sealed("oscore", &out[..n]);
                Ok(())
            }
            Err(_) => Err(Failure::Step("protecting the reading failed")),
        },
        Err(_) => Err(Failure::Step("the reading does not fit")),
    };
    b.kat(OSCORE_NAME, answer);
    for input in Input::all() {
        let Some(len) = input.write(data) else {
            continue;
        };
        if oscore::max_len(&ctx, len, path) > out.len() {
            continue;
        }
        let format = match input {
            Input::Raw(_) => oscore::OCTETS,
            Input::Chain(_) => oscore::JSON,
        };
        let (plain, _) = data.split_at_mut(len);
        let sealed = b.op("seal-oscore", len, || {
            // The whole path: serialize (a chain), protect, write the CoAP message.
            let len = match &input {
                Input::Raw(n) => *n,
                Input::Chain(reading) => reading.to_json(plain).unwrap_or(0),
            };
            oscore::seal_reading(&ctx, seq, &plain[..len], path, format, out)
        });
        if sealed.is_err() {
            b.kat("seal-oscore", Err(Failure::Step("protecting failed")));
        }
    }
}

/// Seals the fixed reading in every container and prints each message.
#[cfg(not(feature = "seal-oscore"))]
fn known_answer<P: Probe>(
    b: &mut Bench<P>,
    sealer: &Sealer,
    nonce: &[u8],
    data: &mut [u8],
    out: &mut [u8],
) -> Result<(), Failure> {
    let reading = ChainReading::sample(known_answer::THERMOMETERS, known_answer::SEED);
    let len = reading
        .to_json(data)
        .map_err(|_| "the reading does not fit")?;
    for container in Container::ALL {
        let n = sealer
            .seal(container, nonce, &data[..len], &[], out)
            .map_err(|e| Failure::Diagnosed {
                step: container.as_str(),
                why: e.as_str(),
            })?;
        b.sealed(container.as_str(), &out[..n]);
    }
    Ok(())
}
