//! The known answer of a sealing build: the device printed the messages it
//! sealed under `seal::reading::known_answer`'s key, key id and nonce
//! (`S <container> <hex>`); the host seals the same reading with the same
//! core through `HostSealer` and every byte must agree. The host's sealing
//! is itself held to the catalogue's backends (crates/seal/tests/golden.rs)
//! and to an independent Python decoder (crates/seal/tests/independent.rs).

use seal::reading::known_answer;
use seal::{ChainReading, Container, HostSealer, Scheme, SealKey};

/// What the host seals for `scheme`: (container, message) in `Container::ALL`
/// order; for an OSCORE build, its one protected request.
pub fn host_messages(scheme: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
    if let Some(alg) = seal::oscore_build::alg_name(scheme) {
        return oscore_message(alg).map(|m| vec![("oscore".to_string(), m)]);
    }
    let scheme = Scheme::parse(scheme).map_err(|e| e.to_string())?;
    let spec = scheme.spec();
    let mut nonce = vec![0u8; spec.nonce_len()];
    known_answer::nonce(&spec, &mut nonce);
    let key = SealKey::from_parts(
        scheme.clone(),
        known_answer::KEY_ID.to_vec(),
        &known_answer::KEY[..spec.key_len()],
    )
    .map_err(|e| e.to_string())?;
    // Legacy schemes are measured too (with --allow-legacy they are ranked).
    let mut sealer = HostSealer::new(&key, true).map_err(|e| e.to_string())?;
    let reading = ChainReading::sample(known_answer::THERMOMETERS, known_answer::SEED);
    let mut json = [0u8; 512];
    let len = reading.to_json(&mut json).map_err(|e| format!("{e:?}"))?;
    Container::ALL
        .iter()
        .map(|&c| {
            let m = sealer
                .seal(c, &nonce, &json[..len], b"")
                .map_err(|e| e.to_string())?;
            Ok((c.as_str().to_string(), m))
        })
        .collect()
}

/// The fixed reading protected under the OSCORE known-answer context.
fn oscore_message(alg: &str) -> Result<Vec<u8>, String> {
    use seal::oscore::reading::{self, known_answer as oscore_answer};
    let alg = seal::oscore::Alg::from_name(alg).ok_or("no such OSCORE algorithm")?;
    let ctx = oscore_answer::context(alg).map_err(|e| e.to_string())?;
    let reading = ChainReading::sample(known_answer::THERMOMETERS, known_answer::SEED);
    let mut json = [0u8; 512];
    let len = reading.to_json(&mut json).map_err(|e| format!("{e:?}"))?;
    let (path, seq) = (reading::DEFAULT_URI_PATH, oscore_answer::SEQUENCE);
    seal::host::oscore::protect_reading(&ctx, seq, &json[..len], path, reading::JSON)
        .map(|(bytes, _)| bytes)
        .map_err(|e| e.to_string())
}

/// Ok when the device sealed exactly what the host seals, in every container.
pub fn check(scheme: &str, device: &[(String, Vec<u8>)]) -> Result<(), String> {
    let host = host_messages(scheme)?;
    if device.len() != host.len() {
        return Err(format!(
            "the device printed {} sealed messages, expected one per container ({})",
            device.len(),
            host.len()
        ));
    }
    for ((dc, dm), (hc, hm)) in device.iter().zip(&host) {
        if dc != hc || dm != hm {
            let at = dm.iter().zip(hm).position(|(a, b)| a != b);
            return Err(format!(
                "in {hc} the device sealed other bytes than the host (first difference at byte {}; {} vs {} bytes)",
                at.unwrap_or(dm.len().min(hm.len())),
                dm.len(),
                hm.len()
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The check passes the host's own messages and fails any change: a
    /// flipped bit, a missing container, a message cut short.
    #[test]
    fn only_the_hosts_exact_bytes_pass() {
        for scheme in [
            "aead:aes-128-gcm",
            "etm:aes-128-cbc+hmac-sha256",
            "hmac:hmac-sha256",
        ] {
            let good = host_messages(scheme).unwrap();
            assert_eq!(check(scheme, &good), Ok(()));
            let mut flipped = good.clone();
            flipped[1].1[3] ^= 1;
            assert!(check(scheme, &flipped).unwrap_err().contains("binary"));
            assert!(check(scheme, &good[..2]).is_err());
            let mut short = good.clone();
            short[2].1.pop();
            assert!(check(scheme, &short).is_err());
        }
        assert!(host_messages("aead:rot13").is_err());
        let oscore = host_messages("oscore:aes-ccm-16-64-128").unwrap();
        assert_eq!(check("oscore:aes-ccm-16-64-128", &oscore), Ok(()));
        let mut flipped = oscore.clone();
        flipped[0].1[9] ^= 1;
        assert!(check("oscore:aes-ccm-16-64-128", &flipped).is_err());
    }
}
