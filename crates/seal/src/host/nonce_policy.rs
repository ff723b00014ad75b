//! Which nonces a key uses, apart from where they come from (`nonce`): the
//! insecurity rules judge a scheme by it without touching a file.

use std::str::FromStr;

/// The shortest random nonce a key may use (96 bits); shorter ones need a
/// counter or `--allow-insecure` (see `Scheme::insecurity_for`).
pub const MIN_RANDOM_NONCE: usize = 12;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoncePolicy {
    Random,
    Counter,
}

impl NoncePolicy {
    pub fn as_str(self) -> &'static str {
        match self {
            NoncePolicy::Random => "random",
            NoncePolicy::Counter => "counter",
        }
    }
}

impl FromStr for NoncePolicy {
    type Err = String;

    fn from_str(text: &str) -> Result<NoncePolicy, String> {
        match text {
            "random" => Ok(NoncePolicy::Random),
            "counter" => Ok(NoncePolicy::Counter),
            _ => Err(format!(
                "unknown nonce policy '{text}'; expected random or counter"
            )),
        }
    }
}
