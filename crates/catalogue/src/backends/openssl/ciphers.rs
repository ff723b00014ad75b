//! Block modes and stream ciphers through `EVP_CIPHER_CTX`. Two contexts are
//! keyed at key setup (OpenSSL's AES decryption needs its own key schedule);
//! each message re-initialises one of them with its IV only.

use std::sync::Arc;

use foreign_types::ForeignTypeRef;
use openssl::cipher_ctx::{CipherCtx, CipherCtxRef};
use openssl::error::ErrorStack;

use super::{Provenance, failure, fetch_cipher, implementation};
use crate::entry::{CipherCtor, Ops};
use crate::error::Error;
use crate::ops::{Cipher, Direction, Padding, Params, Streaming};
use crate::padding;
use crate::registry::Builder;

/// What a message's IV looks like to the caller and to OpenSSL.
#[derive(Clone, Copy)]
enum IvForm {
    /// No IV (ECB, RC4).
    None,
    /// Passed as given; the length is OpenSSL's IV length.
    Plain(usize),
    /// ChaCha20 (RFC 8439): OpenSSL's 16-byte IV is a 32-bit little-endian
    /// block counter followed by the 12-byte nonce; the counter starts at 0.
    ChaChaCounter0,
}

#[derive(Clone, Copy)]
struct Layout {
    /// Block size for ECB and CBC, which take a padding; `None` for byte modes.
    padded_block: Option<usize>,
    iv: IvForm,
    /// Cipher with a variable key length (Blowfish): set before the key.
    variable_key: bool,
    /// Restart from a copy of the freshly keyed context for each message:
    /// RC4 has no IV, so re-initialising would continue its keystream.
    restart_by_copy: bool,
}

/// A block cipher as OpenSSL offers it: its name prefix and modes.
struct Family {
    primitive: &'static str,
    ossl: &'static str,
    modes: &'static [&'static str],
    block: usize,
    provenance: Provenance,
    variable_key: bool,
}

const fn family(
    primitive: &'static str,
    ossl: &'static str,
    modes: &'static [&'static str],
    block: usize,
) -> Family {
    Family {
        primitive,
        ossl,
        modes,
        block,
        provenance: Provenance::Default,
        variable_key: false,
    }
}

const fn legacy(f: Family) -> Family {
    Family {
        provenance: Provenance::Legacy,
        ..f
    }
}

const SIX: &[&str] = &["ecb", "cbc", "ctr", "cfb", "cfb8", "ofb"];
// OpenSSL has no CTR mode for 64-bit block ciphers, CFB8 only for DES, and no OFB8 at all.
const DES_MODES: &[&str] = &["ecb", "cbc", "cfb", "cfb8", "ofb"];
const FOUR: &[&str] = &["ecb", "cbc", "cfb", "ofb"];

const FAMILIES: [Family; 9] = [
    family("aes-128", "AES-128", SIX, 16),
    family("aes-192", "AES-192", SIX, 16),
    family("aes-256", "AES-256", SIX, 16),
    family("camellia-128", "CAMELLIA-128", SIX, 16),
    family("des-ede3", "DES-EDE3", DES_MODES, 8),
    legacy(family("des", "DES", DES_MODES, 8)),
    Family {
        variable_key: true,
        ..legacy(family("bf", "BF", FOUR, 8))
    },
    legacy(family("rc2", "RC2", FOUR, 8)),
    legacy(family("idea", "IDEA", FOUR, 8)),
];

pub(super) fn register(b: &mut Builder) {
    use Provenance::{Default, Legacy};
    for Family {
        primitive,
        ossl,
        modes,
        block,
        provenance,
        variable_key,
    } in FAMILIES
    {
        for &mode in modes {
            let id = format!("{primitive}-{mode}");
            let name = format!("{ossl}-{}", mode.to_uppercase());
            let layout = Layout {
                padded_block: matches!(mode, "ecb" | "cbc").then_some(block),
                iv: if mode == "ecb" {
                    IvForm::None
                } else {
                    IvForm::Plain(block)
                },
                variable_key,
                restart_by_copy: false,
            };
            add(b, &id, &name, provenance, layout);
        }
    }
    let stream = |iv| Layout {
        padded_block: None,
        iv,
        variable_key: false,
        restart_by_copy: false,
    };
    add(
        b,
        "chacha20",
        "ChaCha20",
        Default,
        stream(IvForm::ChaChaCounter0),
    );
    add(
        b,
        "rc4",
        "RC4",
        Legacy,
        Layout {
            restart_by_copy: true,
            ..stream(IvForm::None)
        },
    );
}

fn add(b: &mut Builder, id: &str, name: &str, provenance: Provenance, layout: Layout) {
    if let Some(cipher) = fetch_cipher(name, provenance) {
        b.add_impl(id, implementation(Ops::Cipher(ctor(id, cipher, layout))));
    }
}

fn keyed(
    cipher: &openssl::cipher::CipherRef,
    key: &[u8],
    layout: Layout,
    dir: Direction,
) -> Result<CipherCtx, ErrorStack> {
    let mut ctx = CipherCtx::new()?;
    init(&mut ctx, dir, Some(cipher), None, None)?;
    if layout.variable_key {
        ctx.set_key_length(key.len())?;
    }
    init(&mut ctx, dir, None, Some(key), None)?;
    ctx.set_padding(false);
    Ok(ctx)
}

fn init(
    ctx: &mut CipherCtxRef,
    dir: Direction,
    cipher: Option<&openssl::cipher::CipherRef>,
    key: Option<&[u8]>,
    iv: Option<&[u8]>,
) -> Result<(), ErrorStack> {
    match dir {
        Direction::Encrypt => ctx.encrypt_init(cipher, key, iv),
        Direction::Decrypt => ctx.decrypt_init(cipher, key, iv),
    }
}

fn ctor(id: &str, cipher: Arc<openssl::cipher::Cipher>, layout: Layout) -> CipherCtor {
    let id: Arc<str> = Arc::from(id);
    Arc::new(move |key: &[u8]| {
        let fixed = cipher.key_length();
        if !layout.variable_key && key.len() != fixed {
            return Err(Error::KeyLength {
                algorithm: id.to_string(),
                valid: fixed.to_string(),
                got: key.len(),
            });
        }
        let setup = |dir| keyed(&cipher, key, layout, dir).map_err(|e| failure(&id, e));
        let boxed = OsslCipher {
            enc: setup(Direction::Encrypt)?,
            dec: setup(Direction::Decrypt)?,
            work: CipherCtx::new().map_err(|e| failure(&id, e))?,
            layout,
            id: id.clone(),
        };
        Ok(Box::new(boxed) as Box<dyn Cipher>)
    })
}

/// Runs `EVP_CipherUpdate` over `buf` in place. Only for input that OpenSSL
/// passes straight through (whole blocks with padding off, or a byte mode),
/// so exactly `buf.len()` bytes come out.
fn update_in_place(ctx: &mut CipherCtxRef, buf: &mut [u8]) -> Result<(), ErrorStack> {
    // EVP lengths are C ints: feed very large buffers in pieces.
    for piece in buf.chunks_mut(1 << 30) {
        let len = piece.len() as std::ffi::c_int;
        let mut written: std::ffi::c_int = 0;
        // SAFETY: in and out are the same live buffer, which OpenSSL allows;
        // the context is keyed and initialised.
        let ok = unsafe {
            openssl_sys::EVP_CipherUpdate(
                ctx.as_ptr(),
                piece.as_mut_ptr(),
                &mut written,
                piece.as_ptr(),
                len,
            )
        };
        if ok != 1 || written != len {
            return Err(ErrorStack::get());
        }
    }
    Ok(())
}

struct OsslCipher {
    enc: CipherCtx,
    dec: CipherCtx,
    /// Scratch context for ciphers restarted by copy.
    work: CipherCtx,
    layout: Layout,
    id: Arc<str>,
}

impl OsslCipher {
    fn keyed(&self, dir: Direction) -> &CipherCtxRef {
        match dir {
            Direction::Encrypt => &self.enc,
            Direction::Decrypt => &self.dec,
        }
    }

    /// Readies a context for one message: its IV, or a fresh copy of the keyed state.
    fn start(&mut self, iv: &[u8], dir: Direction) -> Result<&mut CipherCtxRef, Error> {
        let iv = checked_iv(&self.id, self.layout.iv, iv)?;
        let fail = |e| failure(&self.id, e);
        if self.layout.restart_by_copy {
            let keyed = match dir {
                Direction::Encrypt => &self.enc,
                Direction::Decrypt => &self.dec,
            };
            self.work.copy(keyed).map_err(fail)?;
            return Ok(&mut self.work);
        }
        let ctx = match dir {
            Direction::Encrypt => &mut self.enc,
            Direction::Decrypt => &mut self.dec,
        };
        init(ctx, dir, None, None, iv.get()).map_err(fail)?;
        ctx.set_padding(false);
        Ok(ctx)
    }
}

/// An IV as OpenSSL wants it, on the stack (no allocation per message).
struct IvBuf {
    bytes: [u8; 16],
    len: usize,
}

impl IvBuf {
    fn get(&self) -> Option<&[u8]> {
        (self.len > 0).then(|| &self.bytes[..self.len])
    }
}

/// The IV bytes OpenSSL wants, after checking the caller's length.
fn checked_iv(id: &str, form: IvForm, iv: &[u8]) -> Result<IvBuf, Error> {
    let wrong = |valid: usize| Error::IvLength {
        algorithm: id.to_string(),
        valid: valid.to_string(),
        got: iv.len(),
    };
    let mut buf = IvBuf {
        bytes: [0; 16],
        len: 0,
    };
    match form {
        IvForm::None if iv.is_empty() => {}
        IvForm::None => return Err(wrong(0)),
        IvForm::Plain(n) if iv.len() == n && n <= 16 => {
            buf.bytes[..n].copy_from_slice(iv);
            buf.len = n;
        }
        IvForm::Plain(n) => return Err(wrong(n)),
        IvForm::ChaChaCounter0 if iv.len() == 12 => {
            buf.bytes[4..].copy_from_slice(iv);
            buf.len = 16;
        }
        IvForm::ChaChaCounter0 => return Err(wrong(12)),
    }
    Ok(buf)
}

fn encrypt_into(
    ctx: &mut CipherCtxRef,
    id: &str,
    block: Option<usize>,
    pad: Padding,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    if let Some(bs) = block
        && pad == Padding::None
        && !input.len().is_multiple_of(bs)
    {
        return Err(Error::NotBlockMultiple {
            algorithm: id.to_string(),
            block: bs,
            len: input.len(),
        });
    }
    let start = out.len();
    out.extend_from_slice(input);
    if let Some(bs) = block {
        padding::pad(out, start, bs, pad);
    }
    update_in_place(ctx, &mut out[start..]).map_err(|e| {
        out.truncate(start);
        failure(id, e)
    })
}

fn decrypt_into(
    ctx: &mut CipherCtxRef,
    id: &str,
    block: Option<usize>,
    pad: Padding,
    input: &[u8],
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    if let Some(bs) = block {
        crate::padding::require_whole_blocks(id, input.len(), bs)?;
    }
    let start = out.len();
    out.extend_from_slice(input);
    if let Err(e) = update_in_place(ctx, &mut out[start..]) {
        out.truncate(start);
        return Err(failure(id, e));
    }
    let Some(bs) = block else { return Ok(()) };
    match padding::unpadded_len(&out[start..], bs, pad) {
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

impl Cipher for OsslCipher {
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let (id, block) = (self.id.clone(), self.layout.padded_block);
        let ctx = self.start(params.iv, Direction::Encrypt)?;
        encrypt_into(ctx, &id, block, params.padding, input, out)
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let (id, block) = (self.id.clone(), self.layout.padded_block);
        let ctx = self.start(params.iv, Direction::Decrypt)?;
        decrypt_into(ctx, &id, block, params.padding, input, out)
    }

    fn streaming(
        &self,
        params: &Params<'_>,
        direction: Direction,
    ) -> Result<Box<dyn Streaming>, Error> {
        let iv = checked_iv(&self.id, self.layout.iv, params.iv)?;
        let fail = |e| failure(&self.id, e);
        // A copy of the keyed context: the key schedule is not rerun.
        let mut ctx = CipherCtx::new().map_err(fail)?;
        ctx.copy(self.keyed(direction)).map_err(fail)?;
        if !self.layout.restart_by_copy {
            init(&mut ctx, direction, None, None, iv.get()).map_err(fail)?;
            ctx.set_padding(false);
        }
        Ok(Box::new(OsslStream {
            ctx,
            block: self.layout.padded_block,
            padding: params.padding,
            direction,
            id: self.id.clone(),
        }))
    }
}

struct OsslStream {
    ctx: CipherCtx,
    block: Option<usize>,
    padding: Padding,
    direction: Direction,
    id: Arc<str>,
}

impl Streaming for OsslStream {
    fn granule(&self) -> usize {
        self.block.unwrap_or(1)
    }

    fn update(&mut self, chunk: &mut [u8]) -> Result<(), Error> {
        if let Some(bs) = self.block
            && !chunk.len().is_multiple_of(bs)
        {
            return Err(Error::NotBlockMultiple {
                algorithm: self.id.to_string(),
                block: bs,
                len: chunk.len(),
            });
        }
        update_in_place(&mut self.ctx, chunk).map_err(|e| failure(&self.id, e))
    }

    fn finish(mut self: Box<Self>, tail: &[u8], out: &mut Vec<u8>) -> Result<(), Error> {
        let (id, block, padding) = (self.id.clone(), self.block, self.padding);
        match self.direction {
            Direction::Encrypt => encrypt_into(&mut self.ctx, &id, block, padding, tail, out),
            Direction::Decrypt => decrypt_into(&mut self.ctx, &id, block, padding, tail, out),
        }
    }
}
