//! Block ciphers in ECB, CBC and CTR, generic over the RustCrypto traits.

#[allow(unused_imports)]
use cipher::{
    Array, BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt,
    BlockSizeUser, InnerIvInit, KeyInit, StreamCipher,
};
use core::hint::black_box;

use crate::bench::{Bench, Failure, expect, fill, same};
use crate::probe::Probe;

/// One official vector: a key, an IV or initial counter (empty for ECB), and
/// whole blocks of plaintext and ciphertext.
pub struct CipherKat {
    pub key: &'static [u8],
    pub iv: &'static [u8],
    pub pt: &'static [u8],
    pub ct: &'static [u8],
}

fn blocks<C: BlockSizeUser>(buf: &mut [u8]) -> &mut [Array<u8, C::BlockSize>] {
    Array::slice_as_chunks_mut(buf).0
}

fn block_size<C: BlockSizeUser>() -> usize {
    <C::BlockSize as cipher::typenum::Unsigned>::USIZE
}

/// The message sizes this mode can take whole (ECB and CBC need full blocks).
fn whole_blocks<C: BlockSizeUser>(sizes: &[usize]) -> impl Iterator<Item = usize> + '_ {
    let bs = block_size::<C>();
    sizes.iter().copied().filter(move |n| n % bs == 0)
}

fn new_cipher<C: KeyInit>(key: &[u8]) -> Option<C> {
    C::new_from_slice(black_box(key)).ok()
}

pub fn ecb_kat<C>(kat: &CipherKat, buf: &mut [u8]) -> Result<(), Failure>
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt,
{
    let cipher = new_cipher::<C>(kat.key).ok_or("key length")?;
    let buf = &mut buf[..kat.pt.len()];
    buf.copy_from_slice(kat.pt);
    cipher.encrypt_blocks(blocks::<C>(buf));
    expect("encrypt", buf, kat.ct)?;
    cipher.decrypt_blocks(blocks::<C>(buf));
    expect("decrypt", buf, kat.pt)?;
    Ok(())
}

pub fn ecb<C, P>(
    b: &mut Bench<P>,
    id: &str,
    kat: &CipherKat,
    key: &[u8],
    data: &mut [u8],
    sizes: &[usize],
) where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt,
    P: Probe,
{
    b.algorithm(id);
    b.kat(id, ecb_kat::<C>(kat, data));
    let Some(cipher) = b.op("keysetup", 0, || new_cipher::<C>(key)) else {
        return;
    };
    for n in whole_blocks::<C>(sizes) {
        let buf = &mut data[..n];
        fill(buf);
        b.op("encrypt", n, || {
            cipher.encrypt_blocks(blocks::<C>(black_box(&mut *buf)))
        });
        b.op("decrypt", n, || {
            cipher.decrypt_blocks(blocks::<C>(black_box(&mut *buf)))
        });
    }
}

#[cfg(any(feature = "aes-128-cbc", feature = "aes-256-cbc"))]
pub fn cbc_kat<C>(kat: &CipherKat, buf: &mut [u8]) -> Result<(), Failure>
where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt,
{
    let cipher = new_cipher::<C>(kat.key).ok_or("key length")?;
    let buf = &mut buf[..kat.pt.len()];
    buf.copy_from_slice(kat.pt);
    let mut enc =
        cbc::Encryptor::<&C>::inner_iv_slice_init(&cipher, kat.iv).map_err(|_| "iv length")?;
    enc.encrypt_blocks(blocks::<C>(buf));
    expect("encrypt", buf, kat.ct)?;
    let mut dec =
        cbc::Decryptor::<&C>::inner_iv_slice_init(&cipher, kat.iv).map_err(|_| "iv length")?;
    dec.decrypt_blocks(blocks::<C>(buf));
    expect("decrypt", buf, kat.pt)?;
    Ok(())
}

#[cfg(any(feature = "aes-128-cbc", feature = "aes-256-cbc"))]
pub fn cbc<C, P>(
    b: &mut Bench<P>,
    id: &str,
    kat: &CipherKat,
    key: &[u8],
    data: &mut [u8],
    sizes: &[usize],
) where
    C: KeyInit + BlockCipherEncrypt + BlockCipherDecrypt,
    P: Probe,
{
    b.algorithm(id);
    b.kat(id, cbc_kat::<C>(kat, data));
    let Some(cipher) = b.op("keysetup", 0, || new_cipher::<C>(key)) else {
        return;
    };
    let iv = [0x24u8; 16];
    let iv = &iv[..block_size::<C>()];
    for n in whole_blocks::<C>(sizes) {
        let buf = &mut data[..n];
        fill(buf);
        b.op("encrypt", n, || {
            if let Ok(mut enc) = cbc::Encryptor::<&C>::inner_iv_slice_init(&cipher, black_box(iv)) {
                enc.encrypt_blocks(blocks::<C>(black_box(&mut *buf)));
            }
        });
        b.op("decrypt", n, || {
            if let Ok(mut dec) = cbc::Decryptor::<&C>::inner_iv_slice_init(&cipher, black_box(iv)) {
                dec.decrypt_blocks(blocks::<C>(black_box(&mut *buf)));
            }
        });
    }
}

/// Where a CTR keystream comes from: a 128-bit big-endian counter, as
/// SP 800-38A's examples use, stepped by the `ctr` crate (`u128`) or by the
/// in-project byte-wise counter (`primitives::CtrWholeBlock`).
#[cfg(ctr_mode)]
pub trait CtrMode<C> {
    fn apply(cipher: &C, iv: &[u8], buf: &mut [u8]) -> Result<(), &'static str>;
}

/// The `ctr` crate's `Ctr128BE` (`aes-*-ctr-crate`).
#[cfg(any(feature = "aes-128-ctr-crate", feature = "aes-256-ctr-crate"))]
pub struct CrateCtr;

#[cfg(any(feature = "aes-128-ctr-crate", feature = "aes-256-ctr-crate"))]
impl<C> CtrMode<C> for CrateCtr
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = cipher::consts::U16>,
{
    fn apply(cipher: &C, iv: &[u8], buf: &mut [u8]) -> Result<(), &'static str> {
        let core = ctr::CtrCore::inner_iv_slice_init(cipher, iv).map_err(|_| "iv length")?;
        ctr::Ctr128BE::<&C>::from_core(core).apply_keystream(buf);
        Ok(())
    }
}

/// The in-project byte-wise counter (`aes-*-ctr`).
#[cfg(any(feature = "aes-128-ctr", feature = "aes-256-ctr"))]
pub struct BytewiseCtr;

#[cfg(any(feature = "aes-128-ctr", feature = "aes-256-ctr"))]
impl<C> CtrMode<C> for BytewiseCtr
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = cipher::consts::U16>,
{
    fn apply(cipher: &C, iv: &[u8], buf: &mut [u8]) -> Result<(), &'static str> {
        primitives::CtrWholeBlock::<&C>::inner_iv_slice_init(cipher, iv)
            .map_err(|_| "iv length")?
            .apply_keystream(buf);
        Ok(())
    }
}

#[cfg(ctr_mode)]
pub fn ctr_kat<C, M>(kat: &CipherKat, buf: &mut [u8]) -> Result<(), Failure>
where
    C: KeyInit + BlockCipherEncrypt + BlockSizeUser<BlockSize = cipher::consts::U16>,
    M: CtrMode<C>,
{
    let cipher = new_cipher::<C>(kat.key).ok_or("key length")?;
    let buf = &mut buf[..kat.pt.len()];
    buf.copy_from_slice(kat.pt);
    M::apply(&cipher, kat.iv, buf)?;
    expect("encrypt", buf, kat.ct).map_err(|wrong| diagnose_ctr::<C, M>(&cipher, kat, wrong))?;
    M::apply(&cipher, kat.iv, buf)?;
    expect("decrypt", buf, kat.pt)?;
    Ok(())
}

/// A CTR keystream that goes wrong after the first block: restart the crate's
/// CTR directly at the wrong block's counter, computed bytewise here. If that
/// block then comes out right, AES and the keystream code are right and what
/// the target gets wrong is stepping the 128-bit counter across a byte carry.
#[cfg(ctr_mode)]
fn diagnose_ctr<C, M>(cipher: &C, kat: &CipherKat, wrong: Failure) -> Failure
where
    C: BlockCipherEncrypt + BlockSizeUser<BlockSize = cipher::consts::U16>,
    M: CtrMode<C>,
{
    let Failure::Wrong { at, .. } = wrong else {
        return wrong;
    };
    let block = at / 16;
    if block == 0 || kat.iv.len() != 16 {
        return wrong;
    }
    let mut counter = [0u8; 16];
    counter.copy_from_slice(kat.iv);
    for _ in 0..block {
        // Big-endian increment, one byte at a time.
        for byte in counter.iter_mut().rev() {
            *byte = byte.wrapping_add(1);
            if *byte != 0 {
                break;
            }
        }
    }
    let range = block * 16..block * 16 + 16;
    let mut one = [0u8; 16];
    one.copy_from_slice(&kat.pt[range.clone()]);
    if M::apply(cipher, &counter, &mut one).is_err() {
        return wrong;
    }
    if same(&one, &kat.ct[range]) {
        Failure::Diagnosed {
            step: "encrypt",
            why: "blocks before the carry are right, and the wrong block is right when CTR starts at its counter: this target miscomputes the 128-bit counter step across a byte carry (compiler or simulator, not the algorithm)",
        }
    } else {
        wrong
    }
}

#[cfg(ctr_mode)]
pub fn ctr<C, M, P>(
    b: &mut Bench<P>,
    id: &str,
    kat: &CipherKat,
    key: &[u8],
    data: &mut [u8],
    sizes: &[usize],
) where
    C: KeyInit + BlockCipherEncrypt + BlockSizeUser<BlockSize = cipher::consts::U16>,
    M: CtrMode<C>,
    P: Probe,
{
    b.algorithm(id);
    b.kat(id, ctr_kat::<C, M>(kat, data));
    let Some(cipher) = b.op("keysetup", 0, || new_cipher::<C>(key)) else {
        return;
    };
    // A distinct initial counter block per message: never reuse a keystream.
    let mut iv = [0u8; 16];
    for (i, &n) in sizes.iter().enumerate() {
        iv[0] = i as u8 + 1;
        let buf = &mut data[..n];
        fill(buf);
        for op in ["encrypt", "decrypt"] {
            b.op(op, n, || {
                let _ = M::apply(&cipher, black_box(&iv), black_box(&mut *buf));
            });
        }
    }
}
