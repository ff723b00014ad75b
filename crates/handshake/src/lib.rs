//! ciphermeter-handshake: key establishment costed like every other choice.
//!
//! - [`edhoc`]: EDHOC (RFC 9528) run for real with `lakers`, each party's
//!   steps, and the OSCORE context the handshake exports.
//! - [`credentials`]: each party's credentials file (`keygen --scheme edhoc`).
//! - [`cost`]: a handshake's messages on a link: bytes, frames, time on air
//!   and the duty cycle's waits.
//! - [`kem`]: key establishment with ML-KEM (FIPS 203): the device's
//!   ciphertext on the link, in fragments where it needs several frames.

pub mod cost;
pub mod credentials;
pub mod edhoc;
pub mod error;
pub mod kem;

pub use cost::{HandshakeCost, MessageCost, cost};
pub use error::HandshakeError;
pub use kem::{Kem, kem_on_link};

/// Runs an EDHOC handshake (method, suite, with or without message_4) and
/// costs its messages on `link`: what `ciphermeter handshake edhoc` prints.
pub fn edhoc_on_link(
    method: u8,
    suite: u8,
    message_4: bool,
    link: &link::LinkSpec,
) -> Result<HandshakeCost, HandshakeError> {
    let method = edhoc::Method::parse(method)?;
    let suite = edhoc::Suite::parse(suite)?;
    let transcript = edhoc::run(method, suite, message_4)?;
    cost(&transcript, link)
}
