use thiserror::Error;

/// Why sealing or opening failed. Everything but `Io` stems from the input,
/// the key file or the arguments (CLI exit 2).
#[derive(Debug, Error)]
pub enum SealError {
    #[error(
        "unknown scheme '{0}'; expected hmac:MAC, etm:CIPHER+MAC, aead:AEAD or enc:CIPHER (e.g. aead:aes-256-gcm)"
    )]
    UnknownScheme(String),

    #[error("scheme '{scheme}': {why}")]
    InvalidScheme { scheme: String, why: String },

    #[error("refusing to seal with '{scheme}' without --allow-insecure: {}", .reasons.join("; "))]
    Insecure {
        scheme: String,
        reasons: Vec<String>,
    },

    #[error("malformed {container} message: {detail}")]
    Malformed {
        container: &'static str,
        detail: String,
    },

    #[error("{field} is {len} bytes; at most {max} are accepted")]
    Oversize {
        field: &'static str,
        len: usize,
        max: usize,
    },

    #[error("the message was sealed with scheme '{message}', but the key file is for '{key}'")]
    WrongScheme { message: String, key: String },

    #[error("wrong key: the message names key id {message}, the key file holds key id {key}")]
    WrongKey { message: String, key: String },

    #[error(
        "authentication failed: the message was altered, truncated or sealed under another key"
    )]
    Rejected,

    #[error("key file {path}: {detail}")]
    KeyFile { path: String, detail: String },

    #[error("nonce: {0}")]
    Nonce(String),

    #[error(transparent)]
    Catalogue(#[from] catalogue::Error),

    #[error("I/O error: {0}")]
    Io(String),
}

impl SealError {
    pub(crate) fn malformed(container: &'static str, detail: impl Into<String>) -> SealError {
        SealError::Malformed {
            container,
            detail: detail.into(),
        }
    }

    /// False only for failures of the machine (I/O), not of the input.
    pub fn is_user_error(&self) -> bool {
        !matches!(self, SealError::Io(_))
    }
}

/// Largest fields accepted when opening, so a hostile length cannot make us allocate.
pub mod limits {
    pub const SCHEME: usize = 64;
    pub const KEY_ID: usize = 32;
    pub const NONCE: usize = 32;
    pub const TAG: usize = 64;
    pub const AAD: usize = u16::MAX as usize;
    pub const BODY: usize = 16 << 20;
    /// A whole message, any container, before transport decoding.
    pub const MESSAGE: usize = 24 << 20;
}
