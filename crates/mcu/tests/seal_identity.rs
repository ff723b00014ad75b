//! One sealing core: the firmware, built for a scheme by its id alone, seals
//! the known-answer reading under the known-answer key and nonce in every
//! container, on the device's own instruction set, and the host's
//! HostSealer must write the very same bytes. One scheme per target, so
//! every pattern (aead, etm, hmac) meets a device. Needs scripts/setup's
//! toolchains.

use ciphermeter_mcu as mcu;
use mcu::seal_check::host_messages;
use mcu::{Target, compile, emulate, parse, toolchain};

/// (target, scheme): each pattern and a few algorithm families.
const CASES: [(Target, &str); 5] = [
    (Target::Atmega1284p, "aead:chacha20-poly1305"),
    (Target::CortexM0plus, "etm:aes-128-cbc+hmac-sha256"),
    (Target::CortexM3, "hmac:cmac-aes-128"),
    (Target::CortexM4, "aead:aes-128-ccm"),
    (Target::Riscv32imc, "aead:ascon-aead128"),
];

fn device_messages(target: Target, scheme: &str) -> Vec<(String, Vec<u8>)> {
    if let Err(e) = toolchain::require(target) {
        panic!("the identity test needs the {target} toolchain (run scripts/setup): {e}");
    }
    let harness = target.is_avr().then(|| compile::harness().unwrap());
    let elf = compile::firmware(target, scheme, &[mcu::SEAL_BUFFER])
        .unwrap_or_else(|e| panic!("{scheme} does not build for {target}: {e}"));
    let out = emulate::run(target, &elf, harness.as_deref()).unwrap();
    let run = parse::parse(&out.stdout).unwrap();
    assert!(
        run.kats.iter().all(|k| k.passed) && !run.kats.is_empty(),
        "{scheme} on {target}: the device could not seal: {:?}",
        run.kats
    );
    assert!(out.exit_ok, "{scheme} on {target} exited with a failure");
    run.sealed
}

#[test]
fn every_target_seals_what_the_host_seals_in_every_container() {
    for (target, scheme) in CASES {
        let device = device_messages(target, scheme);
        let host = host_messages(scheme).unwrap();
        assert_eq!(device.len(), 3, "{scheme} on {target}: {device:?}");
        for ((dc, dm), (hc, hm)) in device.iter().zip(&host) {
            assert_eq!(dc, hc);
            assert_eq!(
                hex::encode(dm),
                hex::encode(hm),
                "{scheme} in {dc} on {target}: the device sealed other bytes than the host"
            );
        }
    }
}
