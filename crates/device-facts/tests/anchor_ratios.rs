//! Our own code on the ATmega1284P against the best published portable code
//! on the AVR core (data/anchors/avr-portable.json). Simulated cycles are
//! exact, so "within 1.25× of the anchor" is a fact of the shipped table
//! (data/device-costs/atmega1284p.json), asserted here; `scripts/anchor-ratio`
//! prints every implementation's ratio.

use device_facts::cost_table::shipped;
use device_facts::{Implementation, Target, anchors};

/// Issue 28's and 39's goal for `ciphermeter`'s code, on the fitted slope
/// (the anchors are steady-state rates: key setup and finalization apart).
const GOAL: f64 = 1.25;

/// The algorithms whose ratio the README and docs/results.md state.
const HELD: [&str; 7] = [
    "aes-128-ecb",
    "aes-256-ecb",
    "aes-128-gcm",
    "chacha20-poly1305",
    "sha3-256",
    "sha3-512",
    "ascon-aead128",
];

#[test]
fn our_code_on_the_avr_is_within_the_goal_of_every_anchor_it_is_held_to() {
    let table = shipped(Target::Atmega1284p)
        .unwrap()
        .expect("the AVR table");
    let anchors = anchors::for_target(Target::Atmega1284p)
        .unwrap()
        .expect("the AVR anchors");
    let mut report = Vec::new();
    for alg in HELD {
        let anchor = anchors
            .entries
            .iter()
            .find(|a| a.algorithm == alg)
            .unwrap_or_else(|| panic!("no anchor for {alg}"));
        let entry = table
            .entry_of(alg, Implementation::Ciphermeter, &anchor.operation)
            .unwrap_or_else(|| panic!("no ciphermeter {alg} {} row", anchor.operation));
        assert!(entry.error.is_none(), "{alg}: {:?}", entry.error);
        let slope = entry.fit.as_ref().expect("a fit").per_byte;
        let ratio = slope / anchor.cycles_per_byte;
        report.push(format!(
            "{alg}: {slope:.1} c/B, anchor {:.1}, {ratio:.2}x",
            anchor.cycles_per_byte
        ));
        assert!(
            ratio <= GOAL,
            "{alg}: ours is {ratio:.2}x the anchor ({slope:.1} against {:.1} cycles/byte), over {GOAL}x\n{}",
            anchor.cycles_per_byte,
            report.join("\n")
        );
    }
}
