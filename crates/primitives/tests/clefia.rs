//! CLEFIA: RFC 6114 known answers, `cbc` crate compatibility, ECB round trips.
mod common;

use ciphermeter_primitives::{Clefia128, Clefia192, Clefia256};
use proptest::prelude::*;

#[test]
fn rfc6114_known_answers() {
    assert_eq!(common::check_block_kats::<Clefia128>("clefia.txt"), 1);
    assert_eq!(common::check_block_kats::<Clefia192>("clefia.txt"), 1);
    assert_eq!(common::check_block_kats::<Clefia256>("clefia.txt"), 1);
}

#[test]
fn works_through_the_cbc_crate() {
    common::check_cbc_compat::<Clefia128>(&[7; 16], 5);
    common::check_cbc_compat::<Clefia192>(&[8; 24], 5);
    common::check_cbc_compat::<Clefia256>(&[9; 32], 5);
}

proptest! {
    #[test]
    fn ecb_round_trip(key in proptest::collection::vec(any::<u8>(), 32),
                      data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        common::ecb_round_trip::<Clefia128>(&key[..16], &data);
        common::ecb_round_trip::<Clefia192>(&key[..24], &data);
        common::ecb_round_trip::<Clefia256>(&key, &data);
    }
}
