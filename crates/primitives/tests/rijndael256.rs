//! Rijndael-256 (256-bit block): known answers, `cbc` compatibility, round trips.
mod common;

use ciphermeter_primitives::{Rijndael256K128, Rijndael256K192, Rijndael256K256};
use proptest::prelude::*;

#[test]
fn known_answers() {
    assert_eq!(
        common::check_block_kats::<Rijndael256K128>("rijndael256.txt"),
        1
    );
    assert_eq!(
        common::check_block_kats::<Rijndael256K192>("rijndael256.txt"),
        1
    );
    assert_eq!(
        common::check_block_kats::<Rijndael256K256>("rijndael256.txt"),
        2
    );
}

#[test]
fn works_through_the_cbc_crate() {
    common::check_cbc_compat::<Rijndael256K128>(&[1; 16], 4);
    common::check_cbc_compat::<Rijndael256K192>(&[2; 24], 4);
    common::check_cbc_compat::<Rijndael256K256>(&[3; 32], 4);
}

proptest! {
    #[test]
    fn ecb_round_trip(key in proptest::collection::vec(any::<u8>(), 32),
                      data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        common::ecb_round_trip::<Rijndael256K128>(&key[..16], &data);
        common::ecb_round_trip::<Rijndael256K192>(&key[..24], &data);
        common::ecb_round_trip::<Rijndael256K256>(&key, &data);
    }
}
