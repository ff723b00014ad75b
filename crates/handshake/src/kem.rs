//! Key establishment with a key encapsulation mechanism: ML-KEM (FIPS 203)
//! or the X25519 + ML-KEM-768 hybrid X-Wing. The gateway's encapsulation
//! key is provisioned on the device beforehand (as a gateway's credential is
//! for EDHOC), so the device encapsulates to it and sends one message, the
//! ciphertext; both then hold the 32-byte shared secret. Only the gateway can
//! decapsulate, which authenticates it implicitly. With a signature
//! (`ml-kem-512+ml-dsa-44`) the device also signs the ciphertext with its
//! ML-DSA key, whose public key the gateway holds: the gateway then knows who
//! sent it, as EDHOC method 3 tells it. Nothing the device made on the spot
//! is sent besides the ciphertext (and its signature).
//!
//! A ciphertext is larger than most low-power frames (768 bytes against 51 at
//! LoRaWAN EU868 DR0-DR2), so it goes in application fragments, one frame
//! each, with [`FRAGMENT_HEADER`] bytes of header: the sealing core's own
//! fragments (`seal::fragment`), which devices, the C library and the
//! gateway cut and reassemble for sealed readings too. The link model costs
//! every fragment as its own frame.

use crate::cost::{Class, DeviceOp, DeviceOps, HandshakeCost, message_cost, totals};
use crate::error::HandshakeError;

/// Bytes of header per fragment (`seal::fragment::HEADER`: a tag and an index).
pub const FRAGMENT_HEADER: u32 = seal::fragment::HEADER as u32;

/// A KEM's sizes (FIPS 203 Table 3; X-Wing draft-06 §5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kem {
    pub name: &'static str,
    pub encapsulation_key_bytes: u32,
    pub ciphertext_bytes: u32,
    pub class: Class,
    /// The firmware build that measures it on a device (its operations:
    /// `keygen`, `encapsulate`, `decapsulate`).
    pub device_build: &'static str,
}

const KEMS: [Kem; 4] = [
    Kem {
        name: "ml-kem-512",
        encapsulation_key_bytes: 800,
        ciphertext_bytes: 768,
        class: Class::PostQuantum,
        device_build: "ml-kem-512",
    },
    Kem {
        name: "ml-kem-768",
        encapsulation_key_bytes: 1184,
        ciphertext_bytes: 1088,
        class: Class::PostQuantum,
        device_build: "ml-kem-768",
    },
    Kem {
        name: "ml-kem-1024",
        encapsulation_key_bytes: 1568,
        ciphertext_bytes: 1568,
        class: Class::PostQuantum,
        device_build: "ml-kem-1024",
    },
    Kem {
        name: "x-wing",
        encapsulation_key_bytes: 1216,
        ciphertext_bytes: 1120,
        class: Class::Hybrid,
        device_build: "x-wing",
    },
];

/// A signature scheme's sizes (FIPS 204 Table 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Signer {
    pub name: &'static str,
    pub public_key_bytes: u32,
    pub signature_bytes: u32,
    /// The firmware build (operations `keygen`, `sign`, `verify`).
    pub device_build: &'static str,
}

const SIGNERS: [Signer; 2] = [
    Signer {
        name: "ml-dsa-44",
        public_key_bytes: 1312,
        signature_bytes: 2420,
        device_build: "ml-dsa-44",
    },
    Signer {
        name: "ml-dsa-65",
        public_key_bytes: 1952,
        signature_bytes: 3309,
        device_build: "ml-dsa-65",
    },
];

fn known<T: Copy>(
    list: &[T],
    name: &str,
    what: &str,
    id: impl Fn(&T) -> &str,
) -> Result<T, HandshakeError> {
    let lower = name.to_ascii_lowercase();
    list.iter()
        .copied()
        .find(|k| id(k) == lower)
        .ok_or_else(|| {
            HandshakeError::Usage(format!(
                "unknown {what} '{name}'; known: {}",
                list.iter().map(&id).collect::<Vec<_>>().join(", ")
            ))
        })
}

impl Kem {
    pub fn parse(name: &str) -> Result<Kem, HandshakeError> {
        known(&KEMS, name, "KEM", |k| k.name)
    }
}

/// A KEM-based key establishment: the device's ciphertext, signed or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KemSetup {
    pub kem: Kem,
    pub signer: Option<Signer>,
}

impl KemSetup {
    /// `KEM` or `KEM+SIGNATURE`, e.g. `x-wing`, `ml-kem-512+ml-dsa-44`.
    pub fn parse(name: &str) -> Result<KemSetup, HandshakeError> {
        let (kem, signer) = match name.split_once('+') {
            Some((kem, sig)) => (
                kem,
                Some(known(&SIGNERS, sig, "signature scheme", |s| s.name)?),
            ),
            None => (name, None),
        };
        Ok(KemSetup {
            kem: Kem::parse(kem)?,
            signer,
        })
    }

    pub fn name(&self) -> String {
        match self.signer {
            Some(s) => format!("{}+{}", self.kem.name, s.name),
            None => self.kem.name.to_string(),
        }
    }

    /// Bytes the device sends: the ciphertext and, if signed, its signature.
    pub fn message_bytes(&self) -> u32 {
        self.kem.ciphertext_bytes + self.signer.map_or(0, |s| s.signature_bytes)
    }

    fn device_ops(&self) -> DeviceOps {
        let mut ops = DeviceOps::one(self.kem.device_build, "encapsulate", "decapsulate");
        if let Some(s) = self.signer {
            ops.write.push(DeviceOp {
                build: s.device_build,
                op: "sign",
            });
            ops.read.push(DeviceOp {
                build: s.device_build,
                op: "verify",
            });
        }
        ops
    }
}

/// The device's ciphertext (and signature) on `link`, in fragments when it
/// needs more than one frame.
pub fn kem_on_link(
    setup: KemSetup,
    link: &link::LinkSpec,
    fragmentation: crate::cost::Fragmentation,
) -> Result<HandshakeCost, HandshakeError> {
    fragmentation.check(link)?;
    let name = match setup.signer {
        Some(_) => "ciphertext+signature",
        None => "ciphertext",
    };
    let message = message_cost(
        name,
        "initiator",
        setup.message_bytes(),
        (true, fragmentation),
        setup.device_ops(),
        link,
        None,
    )?;
    let mut cost = totals(setup.name(), setup.kem.class, vec![message], link);
    cost.mutual_authentication = setup.signer.is_some();
    Ok(cost)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_sizes_are_the_standards() {
        let k = Kem::parse("ML-KEM-512").unwrap();
        assert_eq!((k.encapsulation_key_bytes, k.ciphertext_bytes), (800, 768));
        let e = Kem::parse("kyber512").unwrap_err().to_string();
        assert!(e.contains("ml-kem-768") && e.contains("x-wing"), "{e}");
        let signed = KemSetup::parse("ml-kem-512+ml-dsa-44").unwrap();
        assert_eq!(signed.message_bytes(), 768 + 2420);
        assert_eq!(signed.name(), "ml-kem-512+ml-dsa-44");
        assert_eq!(KemSetup::parse("x-wing").unwrap().kem.class, Class::Hybrid);
        let e = KemSetup::parse("ml-kem-512+ed25519")
            .unwrap_err()
            .to_string();
        assert!(e.contains("ml-dsa-44"), "{e}");
    }
}
