//! The shipped device tables measure the seal path from 1 byte up, so a
//! sensor's small reading is costed from a measurement, and a longer key
//! never costs less than a shorter one in the same implementation: a line
//! carried below the smallest measured size once made AES-256-GCM cheaper
//! than AES-128-GCM at 10 bytes.

use device_facts::Target;
use device_facts::cost_table::{self, interpolate};
use seal::reading::SMALL_READINGS;

const SEAL_PATHS: [&str; 3] = ["seal-json", "seal-binary", "seal-cose"];

/// (the shorter key's scheme, the longer key's), per AES mode the tables hold.
const PAIRS: [(&str, &str); 4] = [
    ("aead:aes-128-gcm", "aead:aes-256-gcm"),
    ("aead:aes-128-ccm", "aead:aes-256-ccm"),
    ("aead:aes-128-ocb", "aead:aes-256-ocb"),
    ("aead:aes-128-eax", "aead:aes-256-eax"),
];

#[test]
fn every_seal_path_is_measured_from_one_byte() {
    let small = SMALL_READINGS;
    assert_eq!(small.first(), Some(&1));
    for target in Target::ALL {
        let table = cost_table::shipped(target).unwrap().unwrap();
        let mut checked = 0;
        for e in table
            .entries
            .iter()
            .filter(|e| SEAL_PATHS.contains(&e.operation.as_str()) && e.error.is_none())
        {
            let sizes: Vec<usize> = e.points.iter().map(|p| p.0).collect();
            for n in &small {
                assert!(
                    sizes.contains(n),
                    "{target} {}@{} {}: no {n}-byte reading in {sizes:?}",
                    e.algorithm,
                    e.implementation,
                    e.operation
                );
            }
            checked += 1;
        }
        assert!(checked > 50, "{target}: only {checked} seal paths");
    }
}

#[test]
fn a_longer_aes_key_never_costs_less_in_the_same_implementation() {
    let mut compared = 0;
    for target in Target::ALL {
        let table = cost_table::shipped(target).unwrap().unwrap();
        for short in &table.entries {
            let Some((_, long_name)) = PAIRS.iter().find(|(s, _)| *s == short.algorithm) else {
                continue;
            };
            let long = table.entries.iter().find(|e| {
                e.algorithm == *long_name
                    && e.implementation == short.implementation
                    && e.operation == short.operation
            });
            let Some(long) = long.filter(|l| l.error.is_none() && short.error.is_none()) else {
                continue;
            };
            for bytes in (1..=256).chain([300, 512]) {
                let (a, b) = (
                    interpolate(&short.points, bytes).unwrap(),
                    interpolate(&long.points, bytes).unwrap(),
                );
                assert!(
                    b >= a,
                    "{target} {} {}: {long_name} {b:.0} < {} {a:.0} at {bytes} B",
                    short.implementation,
                    short.operation,
                    short.algorithm
                );
            }
            compared += 1;
        }
    }
    assert!(compared > 100, "only {compared} pairs compared");
}
