//! Table-driven Twofish: the submission's ecb_tbl.txt (listed entries and the
//! whole 49-step chain), agreement with RustCrypto `twofish`, `cbc`
//! compatibility and round trips.
mod common;

use cipher::{Block, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use ciphermeter_primitives::{Twofish128, Twofish192, Twofish256};
use proptest::prelude::*;

#[test]
fn ecb_tbl_listed_entries() {
    assert_eq!(common::check_block_kats::<Twofish128>("twofish.txt"), 12);
    assert_eq!(common::check_block_kats::<Twofish192>("twofish.txt"), 12);
    assert_eq!(common::check_block_kats::<Twofish256>("twofish.txt"), 12);
}

/// Recomputes the whole ecb_tbl chain (I = 1..=49) and compares every entry
/// the vector file lists for that key size, including the last one.
fn chain<C: KeyInit + BlockCipherEncrypt>() {
    let klen = C::key_size();
    let listed: Vec<_> = common::records("twofish.txt")
        .into_iter()
        .filter(|r| common::field(r, "key").len() == klen)
        .collect();
    // cts[j] holds CT(j - 1); CT(-1) = CT(0) = 0 and CT(-2) is taken as 0.
    let mut cts: Vec<Vec<u8>> = vec![vec![0; 16], vec![0; 16]];
    for i in 1..=49usize {
        let older = if i >= 2 {
            cts[i - 2].clone()
        } else {
            vec![0; 16]
        };
        let key = [cts[i - 1].clone(), older].concat();
        let key = &key[..klen];
        let mut block = Block::<C>::try_from(cts[i].as_slice()).unwrap();
        C::new_from_slice(key).unwrap().encrypt_block(&mut block);
        if let Some(r) = listed.iter().find(|r| r["i"] == i.to_string()) {
            assert_eq!(hex::encode(key), r["key"].to_lowercase(), "key I={i}");
            assert_eq!(hex::encode(&block), r["ct"].to_lowercase(), "ct I={i}");
        }
        cts.push(block.to_vec());
    }
}

#[test]
fn ecb_tbl_full_chain() {
    chain::<Twofish128>();
    chain::<Twofish192>();
    chain::<Twofish256>();
}

#[test]
fn works_through_the_cbc_crate() {
    common::check_cbc_compat::<Twofish128>(&[4; 16], 5);
    common::check_cbc_compat::<Twofish192>(&[5; 24], 5);
    common::check_cbc_compat::<Twofish256>(&[6; 32], 5);
}

fn agree_with_rustcrypto<C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt>(
    key: &[u8],
    data: &[u8],
) {
    let ours = common::ecb_round_trip::<C>(key, data);
    let theirs = twofish::Twofish::new_from_slice(key).unwrap();
    let mut buf = data[..data.len() / 16 * 16].to_vec();
    for chunk in buf.chunks_exact_mut(16) {
        theirs.encrypt_block(chunk.try_into().unwrap());
    }
    assert_eq!(ours, buf);
}

proptest! {
    #[test]
    fn round_trip_and_agreement(key in proptest::collection::vec(any::<u8>(), 32),
                                data in proptest::collection::vec(any::<u8>(), 0..4096)) {
        agree_with_rustcrypto::<Twofish128>(&key[..16], &data);
        agree_with_rustcrypto::<Twofish192>(&key[..24], &data);
        agree_with_rustcrypto::<Twofish256>(&key, &data);
    }
}
