//! The seven block cipher modes over any RustCrypto (cipher 0.5) block cipher.
//! ECB and CBC pad; the others turn the block cipher into a byte stream.

use std::marker::PhantomData;
use std::sync::Arc;

use block_buffer::BlockSizes;
use cipher::array::Array;
use cipher::{
    Block, BlockCipherDecrypt, BlockCipherEncrypt, BlockModeDecrypt, BlockModeEncrypt,
    BlockSizeUser, InnerIvInit, KeyInit, StreamCipher, StreamCipherCore, StreamCipherCoreWrapper,
};

use crate::entry::{CipherCtor, Mode};
use crate::error::Error;
use crate::ops::{Cipher, Direction, Padding, Params, Streaming};
use crate::padding;

/// What a block cipher must offer to be run in every mode.
pub trait BlockPrimitive:
    BlockCipherEncrypt<BlockSize: BlockSizes>
    + BlockCipherDecrypt
    + KeyInit
    + Clone
    + Send
    + Sync
    + 'static
{
}
impl<T> BlockPrimitive for T where
    T: BlockCipherEncrypt<BlockSize: BlockSizes>
        + BlockCipherDecrypt
        + KeyInit
        + Clone
        + Send
        + Sync
        + 'static
{
}

/// Gives a cipher without `Clone` one by rerunning its key schedule. Only for
/// ciphers whose key schedule is a copy of the key (XTEA), so no cost is hidden.
pub struct Rekeyed<C> {
    inner: C,
    key: zeroize::Zeroizing<Vec<u8>>,
}

impl<C: KeyInit> Clone for Rekeyed<C> {
    fn clone(&self) -> Self {
        Rekeyed {
            inner: C::new_from_slice(&self.key).expect("key accepted once already"),
            key: self.key.clone(),
        }
    }
}

impl<C: BlockSizeUser> BlockSizeUser for Rekeyed<C> {
    type BlockSize = C::BlockSize;
}

impl<C: KeyInit> cipher::KeySizeUser for Rekeyed<C> {
    type KeySize = C::KeySize;
}

impl<C: KeyInit> KeyInit for Rekeyed<C> {
    fn new(key: &cipher::Key<Self>) -> Self {
        Rekeyed {
            inner: C::new(key),
            key: zeroize::Zeroizing::new(key.to_vec()),
        }
    }

    fn new_from_slice(key: &[u8]) -> Result<Self, cipher::InvalidLength> {
        Ok(Rekeyed {
            inner: C::new_from_slice(key)?,
            key: zeroize::Zeroizing::new(key.to_vec()),
        })
    }
}

impl<C: BlockCipherEncrypt> BlockCipherEncrypt for Rekeyed<C> {
    fn encrypt_with_backend(
        &self,
        f: impl cipher::BlockCipherEncClosure<BlockSize = Self::BlockSize>,
    ) {
        self.inner.encrypt_with_backend(f)
    }
}

impl<C: BlockCipherDecrypt> BlockCipherDecrypt for Rekeyed<C> {
    fn decrypt_with_backend(
        &self,
        f: impl cipher::BlockCipherDecClosure<BlockSize = Self::BlockSize>,
    ) {
        self.inner.decrypt_with_backend(f)
    }
}

/// A mode that turns bytes into bytes with state carried between calls.
pub trait ByteTransform: Send {
    fn apply(&mut self, buf: &mut [u8]) -> Result<(), &'static str>;
}

/// A byte transform started from a keyed block cipher and an IV.
pub trait ModeInit<C>: ByteTransform + Sized + 'static {
    fn init(cipher: C, iv: &[u8]) -> Option<Self>;
}

/// Adapts any cipher-0.5 stream cipher (CTR, OFB, OFB8) to `ByteTransform`.
pub struct Keystream<S>(S);

impl<S: StreamCipher + Send> ByteTransform for Keystream<S> {
    fn apply(&mut self, buf: &mut [u8]) -> Result<(), &'static str> {
        self.0
            .try_apply_keystream(buf)
            .map_err(|_| "keystream exhausted: message too long for this IV")
    }
}

impl<C, Core> ModeInit<C> for Keystream<StreamCipherCoreWrapper<Core>>
where
    Core: InnerIvInit<Inner = C> + StreamCipherCore + Send + 'static,
    Core::BlockSize: BlockSizes,
{
    fn init(cipher: C, iv: &[u8]) -> Option<Self> {
        let core = Core::inner_iv_slice_init(cipher, iv).ok()?;
        Some(Keystream(StreamCipherCoreWrapper::from_core(core)))
    }
}

/// Adapts a stream mode that implements `InnerIvInit` itself (the in-project
/// OFB8 and whole-block CTR) to `ByteTransform`.
pub struct Direct<S>(pub(crate) S);

impl<S: StreamCipher + Send> ByteTransform for Direct<S> {
    fn apply(&mut self, buf: &mut [u8]) -> Result<(), &'static str> {
        self.0
            .try_apply_keystream(buf)
            .map_err(|_| "keystream exhausted: message too long for this IV")
    }
}

impl<C, S> ModeInit<C> for Direct<S>
where
    S: InnerIvInit<Inner = C> + StreamCipher + Send + 'static,
{
    fn init(cipher: C, iv: &[u8]) -> Option<Self> {
        S::inner_iv_slice_init(cipher, iv).ok().map(Direct)
    }
}

macro_rules! byte_mode {
    ($ty:ident, $path:path, $method:ident) => {
        impl<C: BlockCipherEncrypt + Send + 'static> ByteTransform for $path {
            fn apply(&mut self, buf: &mut [u8]) -> Result<(), &'static str> {
                self.$method(buf);
                Ok(())
            }
        }
        impl<C: BlockCipherEncrypt + Send + 'static> ModeInit<C> for $path {
            fn init(cipher: C, iv: &[u8]) -> Option<Self> {
                <$path>::inner_iv_slice_init(cipher, iv).ok()
            }
        }
    };
}
byte_mode!(CfbEnc, cfb_mode::BufEncryptor<C>, encrypt);
byte_mode!(CfbDec, cfb_mode::BufDecryptor<C>, decrypt);
byte_mode!(Cfb8Enc, cfb8::Encryptor<C>, encrypt);
byte_mode!(Cfb8Dec, cfb8::Decryptor<C>, decrypt);

/// Key schedule, then one boxed cipher for `mode`. `K` is the CTR flavour whose
/// counter spans the whole block (128-bit for AES, 64-bit for 8-byte blocks).
pub fn ctor<C, K, O8>(id: &str, mode: Mode) -> CipherCtor
where
    C: BlockPrimitive,
    K: ModeInit<C>,
    O8: ModeInit<C>,
{
    let id: Arc<str> = Arc::from(id);
    Arc::new(move |key: &[u8]| {
        let cipher = C::new_from_slice(key).map_err(|_| Error::KeyLength {
            algorithm: id.to_string(),
            valid: format!("{}", C::key_size()),
            got: key.len(),
        })?;
        let id = id.clone();
        let boxed: Box<dyn Cipher> = match mode {
            Mode::Ecb | Mode::Cbc => Box::new(Padded {
                cipher,
                cbc: mode == Mode::Cbc,
                id,
            }),
            Mode::Ctr => Box::new(Streamed::<C, K, K>::new(cipher, id)),
            Mode::Ofb => Box::new(
                Streamed::<C, Keystream<ofb::Ofb<C>>, Keystream<ofb::Ofb<C>>>::new(cipher, id),
            ),
            Mode::Ofb8 => Box::new(Streamed::<C, O8, O8>::new(cipher, id)),
            Mode::Cfb => Box::new(Streamed::<
                C,
                cfb_mode::BufEncryptor<C>,
                cfb_mode::BufDecryptor<C>,
            >::new(cipher, id)),
            Mode::Cfb8 => Box::new(Streamed::<C, cfb8::Encryptor<C>, cfb8::Decryptor<C>>::new(
                cipher, id,
            )),
        };
        Ok(boxed)
    })
}

fn blocks_mut<C: BlockSizeUser>(buf: &mut [u8]) -> &mut [Block<C>] {
    Array::slice_as_chunks_mut(buf).0
}

fn iv_error(id: &str, valid: usize, got: usize) -> Error {
    Error::IvLength {
        algorithm: id.to_string(),
        valid: valid.to_string(),
        got,
    }
}

/// ECB or CBC with a padding.
struct Padded<C> {
    cipher: C,
    cbc: bool,
    id: Arc<str>,
}

enum PaddedState<C: BlockPrimitive> {
    Ecb(C, Direction),
    CbcEnc(cbc::Encryptor<C>),
    CbcDec(cbc::Decryptor<C>),
}

impl<C: BlockPrimitive> PaddedState<C> {
    fn new(p: &Padded<C>, iv: &[u8], dir: Direction) -> Result<Self, Error> {
        let bs = C::block_size();
        if !p.cbc {
            if !iv.is_empty() {
                return Err(iv_error(&p.id, 0, iv.len()));
            }
            return Ok(PaddedState::Ecb(p.cipher.clone(), dir));
        }
        let bad_iv = || iv_error(&p.id, bs, iv.len());
        Ok(match dir {
            Direction::Encrypt => PaddedState::CbcEnc(
                cbc::Encryptor::inner_iv_slice_init(p.cipher.clone(), iv).map_err(|_| bad_iv())?,
            ),
            Direction::Decrypt => PaddedState::CbcDec(
                cbc::Decryptor::inner_iv_slice_init(p.cipher.clone(), iv).map_err(|_| bad_iv())?,
            ),
        })
    }

    /// `buf` must hold whole blocks.
    fn apply(&mut self, buf: &mut [u8]) {
        let blocks = blocks_mut::<C>(buf);
        match self {
            PaddedState::Ecb(c, Direction::Encrypt) => c.encrypt_blocks(blocks),
            PaddedState::Ecb(c, Direction::Decrypt) => c.decrypt_blocks(blocks),
            PaddedState::CbcEnc(m) => m.encrypt_blocks(blocks),
            PaddedState::CbcDec(m) => m.decrypt_blocks(blocks),
        }
    }
}

fn encrypt_padded<C: BlockPrimitive>(
    state: &mut PaddedState<C>,
    id: &str,
    padding: Padding,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let bs = C::block_size();
    if padding == Padding::None && !input.len().is_multiple_of(bs) {
        return Err(Error::NotBlockMultiple {
            algorithm: id.to_string(),
            block: bs,
            len: input.len(),
        });
    }
    let start = out.len();
    out.extend_from_slice(input);
    padding::pad(out, start, bs, padding);
    state.apply(&mut out[start..]);
    Ok(())
}

fn decrypt_padded<C: BlockPrimitive>(
    state: &mut PaddedState<C>,
    id: &str,
    padding: Padding,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let bs = C::block_size();
    padding::require_whole_blocks(id, input.len(), bs)?;
    let start = out.len();
    out.extend_from_slice(input);
    state.apply(&mut out[start..]);
    match padding::unpadded_len(&out[start..], bs, padding) {
        Some(len) => {
            out.truncate(start + len);
            Ok(())
        }
        None => {
            out.truncate(start);
            Err(Error::BadPadding {
                algorithm: id.to_string(),
            })
        }
    }
}

impl<C: BlockPrimitive> Cipher for Padded<C> {
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let mut state = PaddedState::new(self, params.iv, Direction::Encrypt)?;
        encrypt_padded(&mut state, &self.id, params.padding, input, out)
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let mut state = PaddedState::new(self, params.iv, Direction::Decrypt)?;
        decrypt_padded(&mut state, &self.id, params.padding, input, out)
    }

    fn streaming(
        &self,
        params: &Params<'_>,
        direction: Direction,
    ) -> Result<Box<dyn Streaming>, Error> {
        Ok(Box::new(PaddedStream {
            state: PaddedState::new(self, params.iv, direction)?,
            padding: params.padding,
            direction,
            id: self.id.clone(),
        }))
    }
}

struct PaddedStream<C: BlockPrimitive> {
    state: PaddedState<C>,
    padding: Padding,
    direction: Direction,
    id: Arc<str>,
}

impl<C: BlockPrimitive> Streaming for PaddedStream<C> {
    fn granule(&self) -> usize {
        C::block_size()
    }

    fn update(&mut self, chunk: &mut [u8]) -> Result<(), Error> {
        if !chunk.len().is_multiple_of(C::block_size()) {
            return Err(Error::NotBlockMultiple {
                algorithm: self.id.to_string(),
                block: C::block_size(),
                len: chunk.len(),
            });
        }
        self.state.apply(chunk);
        Ok(())
    }

    fn finish(mut self: Box<Self>, tail: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        match self.direction {
            Direction::Encrypt => {
                encrypt_padded(&mut self.state, &self.id, self.padding, tail, out)
            }
            Direction::Decrypt => {
                decrypt_padded(&mut self.state, &self.id, self.padding, tail, out)
            }
        }
    }
}

/// A mode that needs no padding: separate encrypting and decrypting transforms.
struct Streamed<C, E, D> {
    cipher: C,
    id: Arc<str>,
    _modes: PhantomData<fn() -> (E, D)>,
}

impl<C, E, D> Streamed<C, E, D> {
    fn new(cipher: C, id: Arc<str>) -> Self {
        Streamed {
            cipher,
            id,
            _modes: PhantomData,
        }
    }
}

impl<C, E, D> Streamed<C, E, D>
where
    C: BlockPrimitive,
    E: ModeInit<C>,
    D: ModeInit<C>,
{
    fn start(&self, iv: &[u8], direction: Direction) -> Result<Box<dyn ByteTransform>, Error> {
        let bad_iv = || iv_error(&self.id, C::block_size(), iv.len());
        Ok(match direction {
            Direction::Encrypt => Box::new(E::init(self.cipher.clone(), iv).ok_or_else(bad_iv)?),
            Direction::Decrypt => Box::new(D::init(self.cipher.clone(), iv).ok_or_else(bad_iv)?),
        })
    }

    fn run<T: ModeInit<C>>(&self, iv: &[u8], input: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let mode = T::init(self.cipher.clone(), iv)
            .ok_or_else(|| iv_error(&self.id, C::block_size(), iv.len()))?;
        apply_appended(mode, &self.id, input, out)
    }
}

impl<C, E, D> Cipher for Streamed<C, E, D>
where
    C: BlockPrimitive,
    E: ModeInit<C>,
    D: ModeInit<C>,
{
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.run::<E>(params.iv, input, out)
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.run::<D>(params.iv, input, out)
    }

    fn streaming(
        &self,
        params: &Params<'_>,
        direction: Direction,
    ) -> Result<Box<dyn Streaming>, Error> {
        Ok(Box::new(ByteStream {
            mode: self.start(params.iv, direction)?,
            id: self.id.clone(),
        }))
    }
}

/// Appends `input` to `out` transformed by `mode`; on failure `out` is left as it was.
pub fn apply_appended<T: ByteTransform>(
    mut mode: T,
    id: &str,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let start = out.len();
    out.extend_from_slice(input);
    mode.apply(&mut out[start..]).map_err(|what| {
        out.truncate(start);
        Error::InvalidInput {
            algorithm: id.to_string(),
            what: what.into(),
        }
    })
}

/// Streaming over any byte transform: stream ciphers and the unpadded modes.
pub struct ByteStream {
    pub mode: Box<dyn ByteTransform>,
    pub id: Arc<str>,
}

impl Streaming for ByteStream {
    fn granule(&self) -> usize {
        1
    }

    fn update(&mut self, chunk: &mut [u8]) -> Result<(), Error> {
        self.mode.apply(chunk).map_err(|what| Error::InvalidInput {
            algorithm: self.id.to_string(),
            what: what.into(),
        })
    }

    fn finish(mut self: Box<Self>, tail: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let start = out.len();
        out.extend_from_slice(tail);
        self.update(&mut out[start..])
    }
}
