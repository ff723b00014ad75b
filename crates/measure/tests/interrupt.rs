//! A stop request ends a measurement with `Interrupted` (own test binary:
//! the stop flag is process-wide).

use ciphermeter_measure::{Config, Interrupted, Sampler, interrupt};

#[test]
fn a_stop_request_interrupts_the_sampler() {
    let mut sampler = Sampler::new(Config::quick(), false);
    assert!(sampler.measure(|| 1 + 1).is_ok());
    let mut calls = 0u64;
    let result = sampler.measure(|| {
        calls += 1;
        if calls == 1000 {
            interrupt::request_stop();
        }
    });
    assert_eq!(result.err(), Some(Interrupted));
    assert!(interrupt::stop_requested());
}
