//! The algorithms the firmware carries, by catalogue id (each is a cargo
//! feature of `/firmware`), with what the runner needs to know about them.

use crate::{FactsError, Implementation};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Family {
    Baseline,
    /// ECB or CBC: messages must be whole blocks of this many bytes.
    BlockMode(usize),
    Stream,
    Aead,
    Hash,
    Mac,
    /// Study 003's whole message path (JSON reading → secured JSON envelope).
    Message,
    /// The sealing core's whole path for one scheme (its canonical name is
    /// the id): serialize the chain reading, seal, wrap in json, binary and
    /// cose (operations `seal-json`, `seal-binary`, `seal-cose`).
    Seal,
    /// Raw RSA with a modulus of this many bytes: one exponentiation per
    /// operation (encrypt = public key, decrypt = private key), recorded at
    /// the modulus size whatever the sizes asked.
    PublicKey(usize),
    /// A key encapsulation mechanism: `keygen`, `encapsulate`, `decapsulate`,
    /// each recorded at the length it produces or takes on the air (the
    /// encapsulation key, the ciphertext) whatever the sizes asked.
    Kem,
    /// A signature scheme: `keygen`, `sign`, `verify`, recorded at the length
    /// of the public key or the signature whatever the sizes asked.
    Signature,
    /// A Diffie-Hellman function: `keygen` (the public key from a secret)
    /// and `shared` (the secret from the peer's public key), each recorded
    /// at the public key's length whatever the sizes asked.
    KeyAgreement,
    /// A key establishment run whole on the device, both parties in turn:
    /// each party's part of each message is one operation (`m1-write`,
    /// `m1-read`, …), recorded at that message's length whatever the sizes
    /// asked.
    Handshake,
}

impl Family {
    /// The operation a primitive of this family is measured under over a
    /// message (`hash`, `mac`, `encrypt`); none for the others.
    pub fn data_operation(self) -> Option<&'static str> {
        match self {
            Family::Hash => Some("hash"),
            Family::Mac => Some("mac"),
            Family::Aead | Family::Stream | Family::BlockMode(_) => Some("encrypt"),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Algorithm {
    pub id: &'static str,
    pub family: Family,
    /// Study 003's scoring: key length for ciphers, digest length for hashes.
    pub security_bits: u32,
}

const fn a(id: &'static str, family: Family, security_bits: u32) -> Algorithm {
    Algorithm {
        id,
        family,
        security_bits,
    }
}

use Family::*;

pub const ALL: &[Algorithm] = &[
    a("identity", Baseline, 0),
    a("aes-128-ecb", BlockMode(16), 128),
    a("aes-256-ecb", BlockMode(16), 256),
    a("aes-128-cbc", BlockMode(16), 128),
    a("aes-256-cbc", BlockMode(16), 256),
    a("aes-128-ctr", Stream, 128),
    a("aes-256-ctr", Stream, 256),
    // The `ctr`/`eax` crates' builds: the AVR back end miscompiles their
    // u128 counter step, so these fail there (firmware/README.md); the ids
    // above count byte-wise and pass.
    a("aes-128-ctr-crate", Stream, 128),
    a("aes-256-ctr-crate", Stream, 256),
    a("aes-128-gcm", Aead, 128),
    a("aes-256-gcm", Aead, 256),
    a("aes-128-eax", Aead, 128),
    a("aes-256-eax", Aead, 256),
    a("aes-128-eax-crate", Aead, 128),
    a("aes-256-eax-crate", Aead, 256),
    a("aes-128-ccm", Aead, 128),
    a("aes-256-ccm", Aead, 256),
    a("chacha20-poly1305", Aead, 256),
    a("ascon-aead128", Aead, 128),
    a("acorn-128", Aead, 128),
    a("acorn-128-wide", Aead, 128),
    a("sha256", Hash, 256),
    a("sha512", Hash, 512),
    a("sha3-256", Hash, 256),
    a("sha3-512", Hash, 512),
    a("hmac-sha256", Mac, 256),
    a("hmac-sha512", Mac, 512),
    a("hmac-sha3-256", Mac, 256),
    a("hmac-sha3-512", Mac, 512),
    a("present-80-ecb", BlockMode(8), 80),
    a("speck64-128-ecb", BlockMode(8), 128),
    a("speck128-128-ecb", BlockMode(16), 128),
    a("xtea-ecb", BlockMode(8), 128),
    a("clefia-128-ecb", BlockMode(16), 128),
    a("piccolo-80-ecb", BlockMode(8), 80),
    // Study 004's algorithms (with present-80-ecb, piccolo-80-ecb,
    // clefia-128-ecb and aes-128-ecb above). DES's strength is its 56-bit key;
    // RSA's from NIST SP 800-57 Part 1, Table 2, as the catalogue scores it.
    a("des-ecb", BlockMode(8), 56),
    a("idea-ecb", BlockMode(8), 128),
    a("salsa20", Stream, 256),
    a("xchacha20", Stream, 256),
    a("sha1", Hash, 160),
    a("md5", Hash, 128),
    a("rsa-1024", PublicKey(128), 80),
    a("rsa-2048", PublicKey(256), 112),
    // EDHOC method 3, cipher suite 2 (P-256, AES-CCM-16-64-128, SHA-256):
    // P-256's 128-bit security level.
    a("edhoc-m3-s2", Handshake, 128),
    // FIPS 203 category 1 (AES-128 equivalent).
    a("ml-kem-512", Kem, 128),
    a("ml-kem-768", Kem, 192),
    // X-Wing: ML-KEM-768 and X25519; held to X25519's 128 bits, as the catalogue does.
    a("x-wing", Kem, 128),
    // FIPS 204 categories 2 and 3.
    a("ml-dsa-44", Signature, 128),
    a("ml-dsa-65", Signature, 192),
    // Elliptic curves from the C libraries (firmware/src/algorithms/public_key.rs):
    // X25519 and Ed25519 by Monocypher, P-256 by Mbed TLS; 128-bit security.
    a("x25519", KeyAgreement, 128),
    a("ed25519", Signature, 128),
    a("p256-ecdh", KeyAgreement, 128),
    a("p256-ecdsa", Signature, 128),
    a("message-none", Message, 0),
    a("message-aes-128-gcm", Message, 128),
    a("message-aes-256-gcm", Message, 256),
    a("message-aes-128-eax", Message, 128),
    a("message-aes-256-eax", Message, 256),
    a("message-acorn-128", Message, 128),
    a("message-acorn-128-wide", Message, 128),
    a("message-hmac-sha256", Message, 256),
    a("message-hmac-sha512", Message, 512),
    a("message-hmac-sha3-256", Message, 256),
    a("message-hmac-sha3-512", Message, 512),
    // Study 003 §3.5 scores an EtM pair by the higher of its two parts.
    a("message-etm-aes-128-hmac-sha256", Message, 256),
    a("message-etm-aes-128-hmac-sha512", Message, 512),
    a("message-etm-aes-128-hmac-sha3-256", Message, 256),
    a("message-etm-aes-128-hmac-sha3-512", Message, 512),
    a("message-etm-aes-256-hmac-sha256", Message, 256),
    a("message-etm-aes-256-hmac-sha512", Message, 512),
    a("message-etm-aes-256-hmac-sha3-256", Message, 256),
    a("message-etm-aes-256-hmac-sha3-512", Message, 512),
];

pub fn find(id: &str) -> Option<&'static Algorithm> {
    ALL.iter().find(|a| a.id == id)
}

/// A sealing scheme as a firmware build: any canonical name the core parses,
/// or an OSCORE build (`seal::oscore_build`). The id is leaked once per
/// scheme a process measures (a bounded set).
pub fn scheme(id: &str) -> Option<&'static Algorithm> {
    seal::oscore_build::spec(id)?;
    Some(Box::leak(Box::new(Algorithm {
        id: Box::leak(id.to_string().into_boxed_str()),
        family: Family::Seal,
        security_bits: 0,
    })))
}

/// Resolves user-given ids (case-insensitive); empty means all but the baseline
/// (which always runs as the code-size reference).
pub fn resolve(ids: &[String]) -> Result<Vec<&'static Algorithm>, FactsError> {
    if ids.is_empty() {
        // Every firmware algorithm, then every scheme a device may seal with.
        let mut schemes = seal::safe_candidates();
        schemes.extend(seal::oscore_build::names().map(String::from));
        return Ok(ALL
            .iter()
            .filter(|a| a.family != Baseline && Implementation::RustCrypto.offers(a.id))
            .chain(schemes.iter().filter_map(|s| scheme(s)))
            .collect());
    }
    let mut out = Vec::new();
    for id in ids {
        let lower = id.to_ascii_lowercase();
        let alg = find(&lower).or_else(|| scheme(&lower)).ok_or_else(|| {
            FactsError::Usage(format!(
                "unknown firmware algorithm '{id}'; the firmware carries a sealing scheme by its canonical name (aead:aes-128-gcm, etm:aes-128-cbc+hmac-sha256, hmac:hmac-sha256) and: {}",
                ALL.iter().map(|a| a.id).collect::<Vec<_>>().join(", ")
            ))
        })?;
        if !out.contains(&alg) {
            out.push(alg);
        }
    }
    Ok(out)
}

/// [`resolve`] for build ids: `ID@IMPLEMENTATION` measures another
/// implementation of a firmware algorithm; one it does not have is a usage
/// error that lists what it has.
pub fn resolve_builds(
    ids: &[String],
) -> Result<Vec<(&'static Algorithm, Implementation)>, FactsError> {
    if ids.is_empty() {
        return Ok(resolve(&[])?
            .into_iter()
            .map(|a| (a, Implementation::RustCrypto))
            .collect());
    }
    let mut out = Vec::new();
    for id in ids {
        let (plain, imp) = match id.rsplit_once('@') {
            Some((alg, imp)) => (alg, imp.parse::<Implementation>()?),
            None => (id.as_str(), Implementation::RustCrypto),
        };
        let alg = resolve(&[plain.to_string()])?[0];
        if !imp.offers(alg.id) {
            return Err(FactsError::Usage(format!(
                "{} has no {}; it has: {}",
                imp.label(),
                alg.id,
                imp.offered().join(", ")
            )));
        }
        if !out.contains(&(alg, imp)) {
            out.push((alg, imp));
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every id here must be a feature of the firmware crate, and back.
    #[test]
    fn ids_match_the_firmware_features() {
        let manifest = std::fs::read_to_string(crate::firmware_dir().join("Cargo.toml")).unwrap();
        for alg in ALL {
            assert!(
                manifest.contains(&format!("\n{} = [", alg.id)),
                "{} is not a firmware feature",
                alg.id
            );
        }
    }

    #[test]
    fn unknown_ids_are_usage_errors() {
        assert!(matches!(
            resolve(&["rot13".into()]),
            Err(FactsError::Usage(_))
        ));
        assert_eq!(
            resolve(&["AES-128-ECB".into()]).unwrap()[0].id,
            "aes-128-ecb"
        );
    }
}

/// The catalogue entries a firmware build runs, so its rows carry their
/// status: study 003's message builds name a scheme (`message-aes-128-gcm`;
/// EtM builds use AES in ECB mode, as the study did), the others are entries.
pub fn catalogue_ids(id: &str) -> Vec<String> {
    // A sealing scheme names its catalogue entries itself.
    if let Some(spec) = id
        .contains(':')
        .then(|| seal::oscore_build::spec(id))
        .flatten()
    {
        let cipher = spec.cipher.map(|c| {
            let mut buf = [0u8; 64];
            let mut w = seal::container::write::Writer::new(&mut buf);
            c.write_id(&mut w);
            let n = w.done().unwrap_or(0);
            String::from_utf8_lossy(&buf[..n]).into_owned()
        });
        return cipher
            .into_iter()
            .chain(spec.mac.map(|m| m.id().to_string()))
            .collect();
    }
    match id.strip_prefix("message-") {
        Some("none") => vec!["identity".into()],
        Some(rest) => match rest
            .strip_prefix("etm-")
            .and_then(|p| p.split_once("-hmac-"))
        {
            Some((cipher, hash)) => vec![format!("{cipher}-ecb"), format!("hmac-{hash}")],
            None => vec![rest.to_string()],
        },
        // Raw RSA is the core of every RSA entry; the catalogue's status is
        // per key size, the same for each padding: OAEP names it.
        None if id.starts_with("rsa-") => vec![format!("{id}-oaep-sha256")],
        // Not yet a catalogue entry: its status is not known to the report.
        None if id.starts_with("ml-kem-") => vec![id.to_string()],
        // EDHOC suite 2's symmetric parts (P-256 is not a catalogue entry).
        None if id.starts_with("edhoc-") => vec!["aes-128-ccm".into(), "hmac-sha256".into()],
        // The `-crate` builds run the same catalogue entry through the crate.
        None => vec![id.strip_suffix("-crate").unwrap_or(id).to_string()],
    }
}

#[cfg(test)]
mod catalogue_id_tests {
    use super::catalogue_ids;

    #[test]
    fn message_builds_name_their_algorithms() {
        assert_eq!(
            catalogue_ids("message-etm-aes-128-hmac-sha3-256"),
            ["aes-128-ecb", "hmac-sha3-256"]
        );
        assert_eq!(catalogue_ids("message-aes-256-gcm"), ["aes-256-gcm"]);
        assert_eq!(catalogue_ids("message-none"), ["identity"]);
        assert_eq!(catalogue_ids("xtea-ecb"), ["xtea-ecb"]);
        assert_eq!(catalogue_ids("aes-128-eax-crate"), ["aes-128-eax"]);
        assert_eq!(catalogue_ids("acorn-128-wide"), ["acorn-128-wide"]);
        assert_eq!(catalogue_ids("rsa-2048"), ["rsa-2048-oaep-sha256"]);
        assert_eq!(catalogue_ids("des-ecb"), ["des-ecb"]);
    }
}
