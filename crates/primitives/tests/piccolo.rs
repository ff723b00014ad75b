//! Piccolo: CHES 2011 known answers, `cbc` crate compatibility, ECB round trips.
mod common;

use ciphermeter_primitives::{Piccolo80, Piccolo128};
use proptest::prelude::*;

#[test]
fn designers_known_answers() {
    assert_eq!(common::check_block_kats::<Piccolo80>("piccolo.txt"), 1);
    assert_eq!(common::check_block_kats::<Piccolo128>("piccolo.txt"), 1);
}

#[test]
fn works_through_the_cbc_crate() {
    common::check_cbc_compat::<Piccolo80>(&[0x5a; 10], 9);
    common::check_cbc_compat::<Piccolo128>(&[0xa5; 16], 9);
}

proptest! {
    #[test]
    fn ecb_round_trip(key in proptest::collection::vec(any::<u8>(), 16),
                      data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        common::ecb_round_trip::<Piccolo80>(&key[..10], &data);
        common::ecb_round_trip::<Piccolo128>(&key, &data);
    }
}
