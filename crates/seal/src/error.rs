//! What the core reports, without allocation. The host (`host::error`)
//! turns each into a message that names the fields and values involved.

/// Why sealing or opening failed in the core.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Error {
    /// The algorithm's code is not in this build (its feature is off).
    NotBuilt,
    /// The chosen backend has no code for the algorithm (`Backend::covers`).
    NotInBackend,
    /// The key material has the wrong length for the scheme.
    KeyLength,
    /// The nonce has the wrong length for the scheme.
    NonceLength,
    /// The output buffer is too small; `need` bytes would do.
    BufferTooSmall { need: usize },
    /// The message is longer than the cipher can take under one nonce.
    TooLong,
    /// A field is longer than the limits allow (`limits`).
    Oversize {
        field: &'static str,
        len: usize,
        max: usize,
    },
    /// The bytes are not a message of this container.
    Malformed {
        container: &'static str,
        detail: &'static str,
    },
    /// The message ended inside a field.
    Truncated {
        container: &'static str,
        field: &'static str,
    },
    /// The message names a scheme this key does not seal (the host says which).
    WrongScheme,
    /// The message names another key id (the host says which).
    WrongKey,
    /// The tag does not verify: altered, truncated or another key.
    Rejected,
    /// The associated data of a `json` message must be UTF-8 text.
    AadNotText,
    /// The counter store has no fresh value left.
    NoncesExhausted,
}

impl Error {
    /// A short description without allocation (for a device's log or a C caller).
    pub fn as_str(&self) -> &'static str {
        match self {
            Error::NotBuilt => "the algorithm is not in this build",
            Error::NotInBackend => "the chosen implementation has no code for this algorithm",
            Error::KeyLength => "wrong key length",
            Error::NonceLength => "wrong nonce length",
            Error::BufferTooSmall { .. } => "buffer too small",
            Error::TooLong => "message too long for the cipher",
            Error::Oversize { .. } => "a field over its limit",
            Error::Malformed { detail, .. } => detail,
            Error::Truncated { .. } => "truncated",
            Error::WrongScheme => "another scheme",
            Error::WrongKey => "another key",
            Error::Rejected => "authentication failed",
            Error::AadNotText => "associated data is not UTF-8 text",
            Error::NoncesExhausted => "nonces exhausted",
        }
    }
}

/// Largest fields accepted when opening, so a hostile length cannot make us
/// read or reserve more than this.
pub mod limits {
    pub const SCHEME: usize = 64;
    pub const KEY_ID: usize = 32;
    pub const NONCE: usize = 32;
    pub const TAG: usize = 64;
    pub const AAD: usize = u16::MAX as usize;
    /// 16 MiB; on a 16-bit target (AVR), a quarter of the address space.
    pub const BODY: usize = if usize::BITS >= 32 {
        (16u32 << 20) as usize
    } else {
        usize::MAX / 4
    };
    /// A whole message, any container, before transport decoding.
    pub const MESSAGE: usize = if usize::BITS >= 32 {
        (24u32 << 20) as usize
    } else {
        usize::MAX / 2
    };
}
