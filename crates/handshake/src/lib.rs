//! ciphermeter-handshake: key establishment costed like every other choice.
//!
//! - [`edhoc`]: EDHOC (RFC 9528) run for real with `lakers`, each party's
//!   steps, and the OSCORE context the handshake exports.
//! - [`edhoc_psk`]: EDHOC authenticated with a pre-shared key
//!   (draft-ietf-lake-edhoc-psk, method 4, suite 2), our own implementation.
//! - [`edhoc_session`]: one party's handshake of either method, as the
//!   live device and gateway run it.
//! - [`credentials`]: each party's credentials file (`keygen --scheme edhoc`,
//!   `keygen --scheme edhoc-psk`).
//! - [`cost`]: a handshake's messages on a link: bytes, frames, time on air
//!   and the duty cycle's waits; bare, or as CoAP carries them ([`coap_carried`])
//!   compressed with SCHC.
//! - [`kem`]: key establishment with ML-KEM (FIPS 203) or X-Wing, signed
//!   with ML-DSA (FIPS 204) or not: the device's ciphertext on the link, in
//!   fragments where it needs several frames.
//! - [`edhoc_drafts`]: EDHOC's post-quantum and PSK drafts, each message's
//!   size derived from the draft's layout, costed on a link the same way.

pub mod coap_carried;
pub mod cost;
pub mod credentials;
pub mod edhoc;
pub mod edhoc_drafts;
pub mod edhoc_psk;
pub mod edhoc_session;
pub mod error;
pub mod kem;
pub mod keygen;
pub mod psk_credentials;

pub use cost::{Class, DeviceOp, DeviceOps, Fragmentation, HandshakeCost, MessageCost, cost};
pub use error::HandshakeError;
pub use kem::{Kem, KemSetup, kem_on_link};

/// The key establishments a session is compared with, one of each kind:
/// classical (EDHOC method 3, suite 2), hybrid (X-Wing), post-quantum
/// (ML-KEM-512), and post-quantum with the device authenticated (ML-KEM-512
/// signed with ML-DSA-44, as EDHOC method 3 authenticates it).
pub const SESSION_PROTOCOLS: [&str; 4] = ["edhoc", "x-wing", "ml-kem-512", "ml-kem-512+ml-dsa-44"];

/// A key establishment by name on `link`: `edhoc` (method 3, suite 2,
/// message_4 sent) or a KEM setup (`ml-kem-512`, `x-wing`, `ml-kem-512+ml-dsa-44`…).
/// One that cannot run there, a message of the responder's no downlink
/// carries (EDHOC's message_2 on Sigfox) or one the link cannot send at all
/// (a signed ciphertext past 128 fragments), comes back `refused`, so that
/// a session answer says why.
pub fn establishment_on_link(
    name: &str,
    link: &link::LinkSpec,
) -> Result<HandshakeCost, HandshakeError> {
    let (class, cost) = match name {
        "edhoc" => (
            Class::Classical,
            edhoc_on_link(3, 2, true, link, Fragmentation::Ciphermeter, None),
        ),
        other => {
            let setup = KemSetup::parse(other)?;
            (
                setup.kem.class,
                kem_on_link(setup, link, Fragmentation::Ciphermeter),
            )
        }
    };
    match cost {
        Err(
            e @ (HandshakeError::Downlink { .. }
            | HandshakeError::Link(link::LinkError::Invalid(_))),
        ) => Ok(HandshakeCost::refused(name, class, link, &e)),
        other => other,
    }
}

/// Runs an EDHOC handshake (method, suite, with or without message_4) and
/// costs its messages on `link`: what `ciphermeter handshake edhoc` prints.
pub fn edhoc_on_link(
    method: u8,
    suite: u8,
    message_4: bool,
    link: &link::LinkSpec,
    fragmentation: Fragmentation,
    compression: Option<&schc::RuleSet>,
) -> Result<HandshakeCost, HandshakeError> {
    let method = edhoc::Method::parse(method)?;
    let suite = edhoc::Suite::parse(suite)?;
    let transcript = edhoc::run(method, suite, message_4)?;
    cost(&transcript, link, fragmentation, compression)
}
