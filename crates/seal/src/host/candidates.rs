//! The schemes worth ranking, and so worth measuring on every device: one
//! list for `recommend` (crates/cost) and the device sweep (crates/mcu).

use catalogue::Kind;

use super::scheme::Scheme;

/// Every scheme the catalogue can build: each AEAD the sealing core carries, each MAC alone (with
/// `macs`), and encrypt-then-MAC for the block modes and streams with
/// HMAC-SHA-256.
pub fn sealing_candidates(macs: bool) -> Vec<String> {
    let mut out = Vec::new();
    for e in catalogue::catalogue().entries() {
        match e.kind {
            // Only what `seal` can seal: an AEAD the sealing core does not carry
            // yet (COSE's short-tag CCM, for OSCORE) is no sealing scheme.
            Kind::Aead if Scheme::parse(&format!("aead:{}", e.id)).is_ok() => {
                out.push(format!("aead:{}", e.id))
            }
            // Poly1305 is a one-time authenticator: one fixed key for every
            // message would let anyone forge tags, so it is no MAC scheme here.
            Kind::Mac if macs && e.id != "poly1305" => out.push(format!("hmac:{}", e.id)),
            // ECB leaks patterns; CFB8/OFB8 are the same ciphers, slower.
            Kind::BlockMode | Kind::Stream if !e.id.ends_with("-ecb") && !e.id.ends_with('8') => {
                out.push(format!("etm:{}+hmac-sha256", e.id));
            }
            _ => {}
        }
    }
    out
}

/// The candidates `seal` accepts without `--allow-insecure`: what a device
/// may be told to use, so what the device tables must cover.
pub fn safe_candidates() -> Vec<String> {
    sealing_candidates(true)
        .into_iter()
        .filter(|name| Scheme::parse(name).is_ok_and(|s| s.insecurity().is_empty()))
        .collect()
}
