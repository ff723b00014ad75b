//! Errors of the catalogue. Each one stems from what the caller asked for, so
//! the CLI maps all of them to exit status 2.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Error {
    #[error("unknown algorithm '{name}'{}", did_you_mean(.suggestions))]
    UnknownAlgorithm {
        name: String,
        suggestions: Vec<String>,
    },

    #[error("{algorithm}: key must be {valid} bytes, got {got}")]
    KeyLength {
        algorithm: String,
        valid: String,
        got: usize,
    },

    #[error("{algorithm}: IV/nonce must be {valid} bytes, got {got}")]
    IvLength {
        algorithm: String,
        valid: String,
        got: usize,
    },

    #[error("{algorithm}: {what}")]
    InvalidInput { algorithm: String, what: String },

    #[error("{algorithm}: padding '{padding}' does not apply; {why}")]
    PaddingNotApplicable {
        algorithm: String,
        padding: String,
        why: String,
    },

    #[error(
        "{algorithm}: input is not a whole number of {block}-byte blocks ({len} bytes) and padding is 'none'"
    )]
    NotBlockMultiple {
        algorithm: String,
        block: usize,
        len: usize,
    },

    #[error("{algorithm}: bad padding: wrong key, wrong IV or corrupted ciphertext")]
    BadPadding { algorithm: String },

    #[error(
        "{algorithm}: authentication failed: the message was altered or the key, nonce or associated data is wrong"
    )]
    AuthenticationFailed { algorithm: String },

    #[error("backend '{backend}' does not implement {algorithm} (available: {available})")]
    BackendLacks {
        backend: String,
        algorithm: String,
        available: String,
    },

    #[error("unknown backend '{0}' (known: rustcrypto, ciphermeter, ring, openssl)")]
    UnknownBackend(String),

    #[error("{algorithm}: operation '{operation}' is not supported")]
    Unsupported {
        algorithm: String,
        operation: String,
    },

    #[error("{algorithm}: backend failure: {detail}")]
    Backend { algorithm: String, detail: String },

    /// A request the command cannot serve, in words that say what to use instead.
    #[error("{0}")]
    Usage(String),
}

fn did_you_mean(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        "; run `ciphermeter list` to see every algorithm".to_string()
    } else {
        format!("; did you mean: {}?", suggestions.join(", "))
    }
}

/// Formats a list of valid lengths as "16, 24 or 32".
pub fn lengths(valid: &[usize]) -> String {
    match valid {
        [] => "0".to_string(),
        [one] => one.to_string(),
        [init @ .., last] => {
            let head: Vec<String> = init.iter().map(usize::to_string).collect();
            format!("{} or {last}", head.join(", "))
        }
    }
}
