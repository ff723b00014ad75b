use thiserror::Error;

#[cfg(feature = "std")]
use crate::error::Error as CoreError;

/// Why sealing or opening failed. Everything but `Io` stems from the input,
/// the key file or the arguments (CLI exit 2).
#[derive(Debug, Error)]
pub enum SealError {
    #[error(
        "unknown scheme '{0}'{1}; expected hmac:MAC, etm:CIPHER+MAC, aead:AEAD or enc:CIPHER (e.g. aead:aes-256-gcm)"
    )]
    /// The name as typed, and " (did you mean …?)" or "".
    UnknownScheme(String, String),

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

    #[error(
        "replayed: sequence number {sequence} was already accepted, or is below the replay window"
    )]
    Replayed { sequence: u64 },

    #[error("key file {path}: {detail}")]
    KeyFile { path: String, detail: String },

    #[error("nonce: {0}")]
    Nonce(String),

    #[error(transparent)]
    Catalogue(#[from] catalogue::Error),

    #[error("I/O error: {0}")]
    Io(String),

    /// Arguments that ask for what cannot be done, in words that name the flag.
    #[error("{0}")]
    Usage(String),
}

impl SealError {
    /// An unknown scheme, with the closest of the schemes `recommend` ranks
    /// (`lower` is the name trimmed and lower-cased).
    pub(crate) fn unknown_scheme(text: &str, lower: &str) -> SealError {
        let known = crate::host::candidates::sealing_candidates(true);
        let hint = names::did_you_mean(lower, known.iter().map(String::as_str));
        SealError::UnknownScheme(text.to_string(), hint)
    }

    #[cfg(feature = "std")]
    pub(crate) fn malformed(container: &'static str, detail: impl Into<String>) -> SealError {
        SealError::Malformed {
            container,
            detail: detail.into(),
        }
    }

    /// The core's error in the user's words. Identity errors (wrong key,
    /// wrong scheme) are said by the host sealer, which knows the names.
    #[cfg(feature = "std")]
    pub(crate) fn from_core(e: CoreError, scheme: &str) -> SealError {
        match e {
            CoreError::NotBuilt => SealError::InvalidScheme {
                scheme: scheme.to_string(),
                why: "this build of the sealing core does not carry its algorithm".into(),
            },
            CoreError::NotInBackend => SealError::InvalidScheme {
                scheme: scheme.to_string(),
                why: "the chosen implementation has no code for one of its primitives (no other implementation's stands in)".into(),
            },
            CoreError::KeyLength => SealError::InvalidScheme {
                scheme: scheme.to_string(),
                why: "the key material has the wrong length".into(),
            },
            CoreError::NonceLength => SealError::Nonce(format!("wrong nonce length for {scheme}")),
            CoreError::BufferTooSmall { need } => {
                SealError::Io(format!("internal: a {need}-byte buffer was too small"))
            }
            CoreError::TooLong => SealError::Oversize {
                field: "plaintext",
                len: 0,
                max: 0,
            },
            CoreError::Oversize { field, len, max } => SealError::Oversize { field, len, max },
            CoreError::Malformed { container, detail } => SealError::malformed(container, detail),
            CoreError::Truncated { container, field } => {
                SealError::malformed(container, format!("truncated in {field}"))
            }
            CoreError::WrongScheme | CoreError::WrongKey | CoreError::Rejected => {
                SealError::Rejected
            }
            CoreError::AadNotText => SealError::malformed(
                "json",
                "associated data must be UTF-8 text in the json container",
            ),
            CoreError::NoncesExhausted => {
                SealError::Nonce("nonces exhausted; generate a new key".into())
            }
        }
    }

    /// False only for failures of the machine (I/O), not of the input.
    pub fn is_user_error(&self) -> bool {
        !matches!(self, SealError::Io(_))
    }
}
