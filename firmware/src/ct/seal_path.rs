//! The sealing core's key setup and seal on secrets: a random key and
//! plaintext per run. What is public stays fixed: the key id, the
//! plaintext's length and the nonce, which goes on air in clear (a counter's
//! carries follow it, and say nothing of the key). The plaintext is bytes,
//! not a serialized reading: the JSON of a reading differs in length with
//! its values, which is no property of the cipher.

use core::hint::black_box;

use seal::{Container, Sealer};

use super::{PLAINTEXT, RUNS, Secrets};
use crate::algorithms::sealing::SPEC;
use crate::bench::{Bench, Failure};
use crate::probe::Probe;

pub fn run<P: Probe>(b: &mut Bench<P>, secrets: &mut Secrets, data: &mut [u8], out: &mut [u8]) {
    let spec = SPEC;
    b.algorithm(spec.name);
    let key_id = &seal::reading::known_answer::KEY_ID;
    let mut key = [0u8; 64];
    let key = &mut key[..spec.key_len()];
    let mut nonce = [0u8; 32];
    let nonce = &mut nonce[..spec.nonce_len()];
    seal::reading::known_answer::nonce(&spec, nonce);
    let plain = &mut data[..PLAINTEXT];
    if sealer_buffer_short(spec, key_id, plain, out) {
        b.kat(
            spec.name,
            Err(Failure::Step(
                "the ct build's buffer is too small for this scheme",
            )),
        );
        return;
    }
    // One warm-up seal, not compared: what a library does once (Mbed TLS's
    // heap and tables) is not the secret's doing.
    if let Ok(sealer) = Sealer::new(spec, key_id, key) {
        sealer.seal(Container::Binary, nonce, plain, &[], out).ok();
    }
    for run in 0..RUNS {
        secrets.fill(run, key);
        secrets.fill(run, plain);
        // Key setup on a throwaway sealer, as in the cost build (on AVR a
        // large value returned out of a region came back wrong).
        if !b.op("ct-key-setup", run, || {
            Sealer::new(spec, key_id, black_box(&*key)).is_ok()
        }) {
            b.kat(spec.name, Err(Failure::Step("key setup refused the key")));
            return;
        }
        let Ok(sealer) = Sealer::new(spec, key_id, key) else {
            return;
        };
        let sealed = b.op("ct-seal", run, || {
            sealer
                .seal(
                    Container::Binary,
                    black_box(&*nonce),
                    black_box(&*plain),
                    &[],
                    out,
                )
                .is_ok()
        });
        if !sealed {
            b.kat(spec.name, Err(Failure::Step("sealing failed")));
            return;
        }
    }
    b.kat(spec.name, Ok(()));
}

/// Whether `out` cannot hold a sealed `plain` in the binary container.
fn sealer_buffer_short(spec: seal::Spec<'_>, key_id: &[u8], plain: &[u8], out: &[u8]) -> bool {
    let key = [0u8; 64];
    Sealer::new(spec, key_id, &key[..spec.key_len()])
        .is_ok_and(|s| s.seal_buffer_len(Container::Binary, plain, &[]) > out.len())
}
