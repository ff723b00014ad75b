//! PRESENT: CHES 2007 / PRESENT-128 known answers, `cbc` crate compatibility, ECB round trips.
mod common;

use ciphermeter_primitives::{Present80, Present128};
use proptest::prelude::*;

#[test]
fn designers_known_answers() {
    assert_eq!(common::check_block_kats::<Present80>("present.txt"), 4);
    assert_eq!(common::check_block_kats::<Present128>("present.txt"), 4);
}

#[test]
fn works_through_the_cbc_crate() {
    common::check_cbc_compat::<Present80>(&[0x5a; 10], 9);
    common::check_cbc_compat::<Present128>(&[0xa5; 16], 9);
}

proptest! {
    #[test]
    fn ecb_round_trip(key in proptest::collection::vec(any::<u8>(), 16),
                      data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        common::ecb_round_trip::<Present80>(&key[..10], &data);
        common::ecb_round_trip::<Present128>(&key, &data);
    }
}
