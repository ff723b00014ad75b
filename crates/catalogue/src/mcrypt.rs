//! libmcrypt names (study 001) mapped onto canonical ids.
//!
//! libmcrypt's `cfb` and `ofb` feed back 8 bits; its `ncfb` and `nofb` feed
//! back a full block. OpenSSL-style ids say `cfb8`/`ofb8` and `cfb`/`ofb`.
//! Its `ctr` counts over the whole block, big-endian, as ours does. Key sizes
//! follow the key given, as in libmcrypt.

use crate::error::Error;

/// libmcrypt mode name → canonical mode suffix.
pub const MODES: [(&str, &str); 7] = [
    ("ecb", "ecb"),
    ("cbc", "cbc"),
    ("cfb", "cfb8"),
    ("ofb", "ofb8"),
    ("ncfb", "cfb"),
    ("nofb", "ofb"),
    ("ctr", "ctr"),
];

/// libmcrypt cipher names we implement; `{k}` is the key size in bits.
pub const CIPHERS: [(&str, &str); 9] = [
    ("rijndael-128", "aes-{k}"),
    ("rijndael-256", "rijndael-256"),
    ("serpent", "serpent-{k}"),
    ("twofish", "twofish-{k}"),
    ("blowfish", "bf"),
    ("des", "des"),
    ("tripledes", "des-ede3"),
    ("rc2", "rc2"),
    ("xtea", "xtea"),
];

/// `CIPHER:MODE` (without the `mcrypt:` prefix) → canonical id.
pub fn canonical(name: &str, key_len: Option<usize>) -> Result<String, Error> {
    let bad = |what: String| Error::InvalidInput {
        algorithm: format!("mcrypt:{name}"),
        what,
    };
    if name == "arcfour" || name == "arcfour:stream" {
        return Ok("rc4".into());
    }
    let (cipher, mode) = name
        .split_once(':')
        .ok_or_else(|| bad("expected mcrypt:CIPHER:MODE, e.g. mcrypt:rijndael-256:ofb".into()))?;
    let pattern = CIPHERS
        .iter()
        .find(|(m, _)| *m == cipher)
        .map(|(_, p)| *p)
        .ok_or_else(|| {
            bad(format!(
                "unknown libmcrypt cipher '{cipher}'; known: {}",
                names(&CIPHERS)
            ))
        })?;
    let suffix = MODES
        .iter()
        .find(|(m, _)| *m == mode)
        .map(|(_, s)| *s)
        .ok_or_else(|| {
            bad(format!(
                "unknown libmcrypt mode '{mode}'; known: {}",
                names(&MODES)
            ))
        })?;
    let primitive = if pattern.contains("{k}") {
        let bits = match key_len {
            Some(n @ (16 | 24 | 32)) => n * 8,
            Some(n) => {
                return Err(Error::KeyLength {
                    algorithm: format!("mcrypt:{name}"),
                    valid: "16, 24 or 32".into(),
                    got: n,
                });
            }
            None => 256,
        };
        pattern.replace("{k}", &bits.to_string())
    } else {
        pattern.to_string()
    };
    Ok(format!("{primitive}-{suffix}"))
}

fn names(table: &[(&str, &str)]) -> String {
    table.iter().map(|(m, _)| *m).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn libmcrypt_feedback_names_swap_meaning() {
        assert_eq!(
            canonical("rijndael-256:ofb", Some(32)).unwrap(),
            "rijndael-256-ofb8"
        );
        assert_eq!(
            canonical("rijndael-256:nofb", Some(32)).unwrap(),
            "rijndael-256-ofb"
        );
        assert_eq!(
            canonical("serpent:cfb", Some(16)).unwrap(),
            "serpent-128-cfb8"
        );
        assert_eq!(
            canonical("serpent:ncfb", Some(24)).unwrap(),
            "serpent-192-cfb"
        );
        assert_eq!(
            canonical("rijndael-128:ctr", Some(16)).unwrap(),
            "aes-128-ctr"
        );
        assert_eq!(canonical("blowfish:ofb", Some(16)).unwrap(), "bf-ofb8");
    }

    #[test]
    fn bad_names_are_errors() {
        assert!(canonical("rijndael-256", None).is_err());
        assert!(canonical("cast-256:cbc", None).is_err());
        assert!(canonical("serpent:xts", None).is_err());
        assert!(canonical("serpent:cbc", Some(7)).is_err());
    }
}
