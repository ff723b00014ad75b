//! Key establishment with a key encapsulation mechanism (FIPS 203 ML-KEM):
//! the gateway's encapsulation key is provisioned on the device beforehand
//! (as a gateway's credential is for EDHOC), so the device encapsulates to it
//! and sends one message, the ciphertext; both then hold the 32-byte shared
//! secret. No handshake message carries a key the device made.
//!
//! A ciphertext is larger than most low-power frames (768 bytes against 51 at
//! LoRaWAN EU868 DR0-DR2), so it goes in application fragments, one frame
//! each, with [`FRAGMENT_HEADER`] bytes of header: LoRaWAN's Fragmented Data
//! Block Transport (TS004) DataFragment layout, a command byte and a 16-bit
//! fragment index. The link model costs every fragment as its own frame.

use crate::cost::{HandshakeCost, message_cost, totals};
use crate::error::HandshakeError;

/// Bytes of header per fragment: TS004's DataFragment command identifier
/// (1 byte) and FragIndex (2 bytes).
pub const FRAGMENT_HEADER: u32 = 3;

/// An ML-KEM parameter set (FIPS 203 Table 3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kem {
    pub name: &'static str,
    pub encapsulation_key_bytes: u32,
    pub ciphertext_bytes: u32,
    /// The firmware build that measures it on a device.
    pub device_build: &'static str,
}

const KEMS: [Kem; 3] = [
    Kem {
        name: "ml-kem-512",
        encapsulation_key_bytes: 800,
        ciphertext_bytes: 768,
        device_build: "ml-kem-512",
    },
    Kem {
        name: "ml-kem-768",
        encapsulation_key_bytes: 1184,
        ciphertext_bytes: 1088,
        device_build: "ml-kem-768",
    },
    Kem {
        name: "ml-kem-1024",
        encapsulation_key_bytes: 1568,
        ciphertext_bytes: 1568,
        device_build: "ml-kem-1024",
    },
];

impl Kem {
    pub fn parse(name: &str) -> Result<Kem, HandshakeError> {
        let lower = name.to_ascii_lowercase();
        KEMS.iter()
            .copied()
            .find(|k| k.name == lower)
            .ok_or_else(|| {
                HandshakeError::Usage(format!(
                    "unknown KEM '{name}'; known: {}",
                    KEMS.map(|k| k.name).join(", ")
                ))
            })
    }
}

/// The device's ciphertext on `link`, in fragments when it needs more than one frame.
pub fn kem_on_link(kem: Kem, link: &link::LinkSpec) -> Result<HandshakeCost, HandshakeError> {
    let ciphertext = message_cost(
        "ciphertext",
        "initiator",
        kem.ciphertext_bytes,
        Some(FRAGMENT_HEADER),
        ("encapsulate", "decapsulate"),
        link,
    )?;
    Ok(totals(kem.name, kem.device_build, vec![ciphertext], link))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sizes_are_fips_203s() {
        let k = Kem::parse("ML-KEM-512").unwrap();
        assert_eq!((k.encapsulation_key_bytes, k.ciphertext_bytes), (800, 768));
        let e = Kem::parse("kyber512").unwrap_err().to_string();
        assert!(e.contains("ml-kem-768"), "{e}");
    }
}
