//! An OSCORE build's key setup and seal on secrets: a random master secret
//! and plaintext per run, the context derived from it (HKDF), the reading
//! protected as a CoAP POST. What is public stays fixed: the ids, the
//! sequence number (the Partial IV goes on air in clear), the Uri-Path and
//! the plaintext's length.

use core::hint::black_box;

use seal::oscore::reading::{self as oscore, known_answer};
use seal::oscore::{Context, Inputs};

use super::{PLAINTEXT, RUNS, Secrets};
use crate::algorithms::sealing::{OSCORE_ALG, OSCORE_NAME};
use crate::bench::{Bench, Failure};
use crate::probe::Probe;

fn derive(secret: &[u8]) -> Option<Context> {
    Context::derive(&Inputs {
        alg: OSCORE_ALG,
        master_secret: secret,
        master_salt: &[],
        sender_id: &known_answer::SENDER_ID,
        recipient_id: &known_answer::RECIPIENT_ID,
        id_context: None,
    })
    .ok()
}

pub fn run<P: Probe>(b: &mut Bench<P>, secrets: &mut Secrets, data: &mut [u8], out: &mut [u8]) {
    b.algorithm(OSCORE_NAME);
    let mut secret = [0u8; 16];
    let plain = &mut data[..PLAINTEXT];
    let path = oscore::DEFAULT_URI_PATH;
    let seal = |ctx: &Context, plain: &[u8], out: &mut [u8]| {
        oscore::seal_reading(
            ctx,
            known_answer::SEQUENCE,
            plain,
            path,
            oscore::OCTETS,
            out,
        )
        .is_ok()
    };
    // One warm-up, not compared (as the core's seal path does).
    match derive(&secret) {
        Some(ctx) if oscore::max_len(&ctx, PLAINTEXT, path) <= out.len() => {
            seal(&ctx, plain, out);
        }
        _ => {
            b.kat(
                OSCORE_NAME,
                Err(Failure::Step("the ct build cannot protect a reading")),
            );
            return;
        }
    }
    for run in 0..RUNS {
        secrets.fill(run, &mut secret);
        secrets.fill(run, plain);
        if !b.op("ct-key-setup", run, || derive(black_box(&secret)).is_some()) {
            b.kat(
                OSCORE_NAME,
                Err(Failure::Step("key setup refused the secret")),
            );
            return;
        }
        let Some(ctx) = derive(&secret) else {
            return;
        };
        if !b.op("ct-seal", run, || seal(&ctx, black_box(&*plain), out)) {
            b.kat(OSCORE_NAME, Err(Failure::Step("protecting failed")));
            return;
        }
    }
    b.kat(OSCORE_NAME, Ok(()));
}
