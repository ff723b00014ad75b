//! The algorithms a scheme can name, by catalogue id, with the sizes a
//! message needs and the crate feature that carries their code. This table
//! is metadata only and always present; the code behind each entry is in
//! `keyed` and compiled only with its feature (`feature()`), so a firmware
//! build carries only its own scheme.

/// A block cipher the `etm` and `enc` patterns run in a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BlockAlg {
    Aes128,
    Aes192,
    Aes256,
    Serpent128,
    Serpent192,
    Serpent256,
    Twofish128,
    Twofish192,
    Twofish256,
    Camellia128,
    Clefia128,
    Speck128_128,
    Speck64_128,
    Present80,
    Present128,
    Piccolo80,
    Piccolo128,
    Blowfish,
    Des,
    TdesEde3,
    Rc2,
    Idea,
    Xtea,
    Rijndael256,
}

/// (cipher, catalogue id prefix, feature). Sizes are in `match`es below, so
/// a build whose scheme is a constant keeps no table (AVR copies tables to RAM).
const BLOCKS: [(BlockAlg, &str, &str); 24] = [
    (BlockAlg::Aes128, "aes-128", "aes"),
    (BlockAlg::Aes192, "aes-192", "aes"),
    (BlockAlg::Aes256, "aes-256", "aes"),
    (BlockAlg::Serpent128, "serpent-128", "serpent"),
    (BlockAlg::Serpent192, "serpent-192", "serpent"),
    (BlockAlg::Serpent256, "serpent-256", "serpent"),
    (BlockAlg::Twofish128, "twofish-128", "in-project"),
    (BlockAlg::Twofish192, "twofish-192", "in-project"),
    (BlockAlg::Twofish256, "twofish-256", "in-project"),
    (BlockAlg::Camellia128, "camellia-128", "camellia"),
    (BlockAlg::Clefia128, "clefia-128", "in-project"),
    (BlockAlg::Speck128_128, "speck128-128", "speck"),
    (BlockAlg::Speck64_128, "speck64-128", "speck"),
    (BlockAlg::Present80, "present-80", "in-project"),
    (BlockAlg::Present128, "present-128", "in-project"),
    (BlockAlg::Piccolo80, "piccolo-80", "in-project"),
    (BlockAlg::Piccolo128, "piccolo-128", "in-project"),
    // Blowfish takes 4..=56 key bytes; a sealing key uses the most.
    (BlockAlg::Blowfish, "bf", "blowfish"),
    (BlockAlg::Des, "des", "des"),
    (BlockAlg::TdesEde3, "des-ede3", "des"),
    (BlockAlg::Rc2, "rc2", "rc2"),
    (BlockAlg::Idea, "idea", "idea"),
    (BlockAlg::Xtea, "xtea", "xtea"),
    // libmcrypt's rijndael-256 takes 16, 24 or 32 key bytes; sealing uses 32.
    (BlockAlg::Rijndael256, "rijndael-256", "in-project"),
];

/// How a block cipher becomes a cipher of messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    Ecb,
    Cbc,
    Ctr,
    Cfb,
    Cfb8,
    Ofb,
    Ofb8,
}

const MODES: [(Mode, &str); 7] = [
    (Mode::Ecb, "ecb"),
    (Mode::Cbc, "cbc"),
    (Mode::Ctr, "ctr"),
    (Mode::Cfb, "cfb"),
    (Mode::Cfb8, "cfb8"),
    (Mode::Ofb, "ofb"),
    (Mode::Ofb8, "ofb8"),
];

impl Mode {
    /// ECB and CBC pad to whole blocks (PKCS#7); the others are streams.
    pub fn pads(self) -> bool {
        matches!(self, Mode::Ecb | Mode::Cbc)
    }
}

/// A stream cipher (and the identity baseline, which `enc` measures).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum StreamAlg {
    Identity,
    Rc4,
    ChaCha20,
    XChaCha20,
    Salsa20,
    XSalsa20,
}

/// (cipher, catalogue id, feature)
const STREAMS: [(StreamAlg, &str, &str); 6] = [
    (StreamAlg::Identity, "identity", ""),
    (StreamAlg::Rc4, "rc4", "rc4"),
    (StreamAlg::ChaCha20, "chacha20", "chacha20"),
    (StreamAlg::XChaCha20, "xchacha20", "chacha20"),
    (StreamAlg::Salsa20, "salsa20", "salsa20"),
    (StreamAlg::XSalsa20, "xsalsa20", "salsa20"),
];

/// An authenticated cipher. Every one here has a 16-byte tag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AeadAlg {
    Aes128Gcm,
    Aes256Gcm,
    Aes128Ccm,
    Aes256Ccm,
    Aes128Eax,
    Aes256Eax,
    Aes128Ocb,
    Aes256Ocb,
    Aes256GcmSiv,
    ChaCha20Poly1305,
    XChaCha20Poly1305,
    AsconAead128,
    Ascon128V12,
    Acorn128,
    Acorn128Wide,
}

/// (AEAD, catalogue id, feature)
const AEADS: [(AeadAlg, &str, &str); 15] = [
    (AeadAlg::Aes128Gcm, "aes-128-gcm", "gcm"),
    (AeadAlg::Aes256Gcm, "aes-256-gcm", "gcm"),
    (AeadAlg::Aes128Ccm, "aes-128-ccm", "ccm"),
    (AeadAlg::Aes256Ccm, "aes-256-ccm", "ccm"),
    (AeadAlg::Aes128Eax, "aes-128-eax", "eax"),
    (AeadAlg::Aes256Eax, "aes-256-eax", "eax"),
    (AeadAlg::Aes128Ocb, "aes-128-ocb", "ocb"),
    (AeadAlg::Aes256Ocb, "aes-256-ocb", "ocb"),
    (AeadAlg::Aes256GcmSiv, "aes-256-gcm-siv", "gcm-siv"),
    (
        AeadAlg::ChaCha20Poly1305,
        "chacha20-poly1305",
        "chacha20poly1305",
    ),
    (
        AeadAlg::XChaCha20Poly1305,
        "xchacha20-poly1305",
        "chacha20poly1305",
    ),
    (AeadAlg::AsconAead128, "ascon-aead128", "ascon"),
    (AeadAlg::Ascon128V12, "ascon-128-v1.2", "in-project"),
    (AeadAlg::Acorn128, "acorn-128", "in-project"),
    (AeadAlg::Acorn128Wide, "acorn-128-wide", "in-project"),
];

/// The tag length of every AEAD above.
pub const AEAD_TAG: usize = 16;

/// The cipher of a scheme: a block cipher in a mode, a stream, or an AEAD.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CipherAlg {
    Block(BlockAlg, Mode),
    Stream(StreamAlg),
    Aead(AeadAlg),
}

/// A MAC: HMAC over a hash, or CMAC over AES.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MacAlg {
    HmacSha256,
    HmacSha512,
    HmacSha3_256,
    HmacSha3_512,
    HmacSha1,
    HmacMd5,
    HmacBlake2s256,
    HmacBlake2b512,
    HmacAsconHash256,
    CmacAes128,
    CmacAes256,
}

/// (MAC, catalogue id, feature).
const MACS: [(MacAlg, &str, &str); 11] = [
    (MacAlg::HmacSha256, "hmac-sha256", "sha256"),
    (MacAlg::HmacSha512, "hmac-sha512", "sha512"),
    (MacAlg::HmacSha3_256, "hmac-sha3-256", "sha3"),
    (MacAlg::HmacSha3_512, "hmac-sha3-512", "sha3"),
    (MacAlg::HmacSha1, "hmac-sha1", "sha1"),
    (MacAlg::HmacMd5, "hmac-md5", "md5"),
    (MacAlg::HmacBlake2s256, "hmac-blake2s256", "blake2"),
    (MacAlg::HmacBlake2b512, "hmac-blake2b512", "blake2"),
    (MacAlg::HmacAsconHash256, "hmac-ascon-hash256", "ascon-hash"),
    (MacAlg::CmacAes128, "cmac-aes-128", "cmac"),
    (MacAlg::CmacAes256, "cmac-aes-256", "cmac"),
];

impl BlockAlg {
    fn id(self) -> &'static str {
        BLOCKS
            .iter()
            .find(|r| r.0 == self)
            .expect("every cipher has a row")
            .1
    }

    pub const fn key_len(self) -> usize {
        use BlockAlg::*;
        match self {
            Present80 | Piccolo80 => 10,
            Des => 8,
            Aes192 | Serpent192 | Twofish192 | TdesEde3 => 24,
            Aes256 | Serpent256 | Twofish256 | Rijndael256 => 32,
            // Blowfish takes 4..=56 key bytes; a sealing key uses the most.
            Blowfish => 56,
            _ => 16,
        }
    }

    pub const fn block_len(self) -> usize {
        use BlockAlg::*;
        match self {
            Speck64_128 | Present80 | Present128 | Piccolo80 | Piccolo128 | Blowfish | Des
            | TdesEde3 | Rc2 | Idea | Xtea => 8,
            // libmcrypt's rijndael-256: a 32-byte block (and here a 32-byte key).
            Rijndael256 => 32,
            _ => 16,
        }
    }
}

impl CipherAlg {
    /// The cipher a catalogue id names, if the core has it.
    pub fn from_id(id: &str) -> Option<CipherAlg> {
        if let Some(r) = STREAMS.iter().find(|r| r.1 == id) {
            return Some(CipherAlg::Stream(r.0));
        }
        if let Some(r) = AEADS.iter().find(|r| r.1 == id) {
            return Some(CipherAlg::Aead(r.0));
        }
        let (prefix, mode) = id.rsplit_once('-')?;
        let block = BLOCKS.iter().find(|r| r.1 == prefix)?.0;
        let mode = MODES.iter().find(|m| m.1 == mode)?.0;
        Some(CipherAlg::Block(block, mode))
    }

    /// Writes the catalogue id into `w` (the host composes scheme names with it).
    pub fn write_id(self, w: &mut crate::container::write::Writer<'_>) {
        match self {
            CipherAlg::Block(b, m) => {
                w.text(b.id());
                w.text("-");
                w.text(MODES.iter().find(|r| r.0 == m).expect("every mode").1);
            }
            CipherAlg::Stream(s) => w.text(STREAMS.iter().find(|r| r.0 == s).expect("row").1),
            CipherAlg::Aead(a) => w.text(AEADS.iter().find(|r| r.0 == a).expect("row").1),
        }
    }

    pub const fn key_len(self) -> usize {
        use StreamAlg::*;
        match self {
            CipherAlg::Block(b, _) => b.key_len(),
            CipherAlg::Stream(Identity) => 0,
            CipherAlg::Stream(Rc4) => 16,
            CipherAlg::Stream(_) => 32,
            CipherAlg::Aead(a) => a.key_len(),
        }
    }

    /// Nonce or IV bytes per message: a block for the modes but ECB.
    pub const fn nonce_len(self) -> usize {
        use StreamAlg::*;
        match self {
            CipherAlg::Block(_, Mode::Ecb) => 0,
            CipherAlg::Block(b, _) => b.block_len(),
            CipherAlg::Stream(Identity | Rc4) => 0,
            CipherAlg::Stream(ChaCha20) => 12,
            CipherAlg::Stream(Salsa20) => 8,
            CipherAlg::Stream(XChaCha20 | XSalsa20) => 24,
            CipherAlg::Aead(a) => a.nonce_len(),
        }
    }

    /// Ciphertext bytes for `len` plaintext bytes (ECB and CBC add PKCS#7 padding).
    pub const fn body_len(self, len: usize) -> usize {
        match self {
            CipherAlg::Block(b, Mode::Ecb | Mode::Cbc) => (len / b.block_len() + 1) * b.block_len(),
            _ => len,
        }
    }

    /// The crate feature that carries this cipher's code (empty: always built).
    pub fn feature(self) -> &'static str {
        match self {
            CipherAlg::Block(b, _) => BLOCKS.iter().find(|r| r.0 == b).expect("row").2,
            CipherAlg::Stream(s) => STREAMS.iter().find(|r| r.0 == s).expect("row").2,
            CipherAlg::Aead(a) => AEADS.iter().find(|r| r.0 == a).expect("row").2,
        }
    }

    /// Every cipher the core knows, for listings and tests.
    pub fn every() -> impl Iterator<Item = CipherAlg> {
        let blocks = BLOCKS
            .iter()
            .flat_map(|b| MODES.iter().map(move |m| CipherAlg::Block(b.0, m.0)));
        STREAMS
            .iter()
            .map(|s| CipherAlg::Stream(s.0))
            .chain(AEADS.iter().map(|a| CipherAlg::Aead(a.0)))
            .chain(blocks)
    }
}

impl AeadAlg {
    pub const fn key_len(self) -> usize {
        use AeadAlg::*;
        match self {
            Aes256Gcm | Aes256Ccm | Aes256Eax | Aes256Ocb | Aes256GcmSiv | ChaCha20Poly1305
            | XChaCha20Poly1305 => 32,
            _ => 16,
        }
    }

    /// CCM takes 7..=13 nonce bytes; sealing uses 13, as COSE's AES-CCM-16-* do.
    pub const fn nonce_len(self) -> usize {
        use AeadAlg::*;
        match self {
            Aes128Ccm | Aes256Ccm => 13,
            XChaCha20Poly1305 => 24,
            Aes128Eax | Aes256Eax | AsconAead128 | Ascon128V12 | Acorn128 | Acorn128Wide => 16,
            _ => 12,
        }
    }
}

impl MacAlg {
    pub fn from_id(id: &str) -> Option<MacAlg> {
        MACS.iter().find(|r| r.1 == id).map(|r| r.0)
    }

    pub fn id(self) -> &'static str {
        MACS.iter()
            .find(|r| r.0 == self)
            .expect("every MAC has a row")
            .1
    }

    pub const fn tag_len(self) -> usize {
        use MacAlg::*;
        match self {
            HmacSha1 => 20,
            HmacMd5 | CmacAes128 | CmacAes256 => 16,
            HmacSha512 | HmacSha3_512 | HmacBlake2b512 => 64,
            _ => 32,
        }
    }

    /// Key bytes: CMAC's AES key; for HMAC the output, and at least 32
    /// (RFC 2104 advises a key no shorter than the output).
    pub const fn key_len(self) -> usize {
        match self {
            MacAlg::CmacAes128 => 16,
            MacAlg::CmacAes256 => 32,
            _ if self.tag_len() > 32 => self.tag_len(),
            _ => 32,
        }
    }

    pub fn feature(self) -> &'static str {
        MACS.iter().find(|r| r.0 == self).expect("row").2
    }

    pub fn every() -> impl Iterator<Item = MacAlg> {
        MACS.iter().map(|r| r.0)
    }
}
