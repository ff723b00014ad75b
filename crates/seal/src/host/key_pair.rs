//! Asymmetric key-pair files, as `keygen ALGORITHM --output FILE` writes them
//! and `sign`, `verify`, `encapsulate` and `decapsulate` read them: FILE holds
//! the private key and FILE.pub the public key, each as one line of hex (what
//! each holds per algorithm: docs/keys.md). The private file is its owner's
//! alone (0600, checked on every read, as a sealing key is); the public one
//! is 0644.

use std::path::{Path, PathBuf};

use catalogue::{AsymOp, AsymmetricScheme, Backend, Entry, KeyPair};
use zeroize::Zeroizing;

use super::error::SealError;
use super::keyfile::{beside, read_private as read_private_text, write_key_file};

/// An algorithm's asymmetric scheme, resolved from the names a user typed.
pub struct KeyPairScheme {
    pub entry: &'static Entry,
    pub scheme: &'static dyn AsymmetricScheme,
}

impl KeyPairScheme {
    /// For `keygen ALGORITHM`: any asymmetric algorithm (`backend`: the
    /// entry's first unless named).
    pub fn for_keygen(algorithm: &str, backend: Option<&str>) -> Result<Self, SealError> {
        let (entry, backend) = resolve(algorithm, backend)?;
        let scheme = entry.asymmetric(backend).map_err(|e| {
            SealError::Usage(format!(
                "{e}; keygen ALGORITHM makes asymmetric key pairs, use --scheme for sealing keys"
            ))
        })?;
        Ok(KeyPairScheme { entry, scheme })
    }

    /// For one operation: refused in the entry's own name when it lacks `op`.
    pub fn for_op(algorithm: &str, backend: Option<&str>, op: AsymOp) -> Result<Self, SealError> {
        let (entry, backend) = resolve(algorithm, backend)?;
        let scheme = entry.asymmetric(backend)?;
        if !scheme.operations().contains(&op) {
            let verb = op.name();
            let takes = match op {
                AsymOp::Sign | AsymOp::Verify => {
                    "signature scheme (ed25519, ecdsa-p256-sha256, rsa-*-pss-sha256, ml-dsa-44, ...)"
                }
                _ => "KEM (ml-kem-512, ml-kem-768, x-wing)",
            };
            return Err(SealError::Usage(format!(
                "{} cannot {verb}: {verb} takes a {takes}",
                entry.id
            )));
        }
        Ok(KeyPairScheme { entry, scheme })
    }

    /// A fresh key pair from the operating system's generator, or the one
    /// `seed` determines where the standard defines it (ML-KEM, ML-DSA, X-Wing).
    pub fn generate(&self, seed: Option<&[u8]>) -> Result<KeyPair, SealError> {
        let Some(seed) = seed else {
            return Ok(self.scheme.keygen()?);
        };
        self.scheme.keygen_from_seed(seed).map_err(|e| match e {
            catalogue::Error::Unsupported { .. } => SealError::Usage(format!(
                "--seed: {} has no key derivation from a seed (ML-KEM, ML-DSA and X-Wing have one)",
                self.entry.id
            )),
            other => other.into(),
        })
    }
}

fn resolve(
    algorithm: &str,
    backend: Option<&str>,
) -> Result<(&'static Entry, Option<Backend>), SealError> {
    let entry = catalogue::catalogue().resolve(algorithm, None)?;
    Ok((entry, backend.map(Backend::parse).transpose()?))
}

/// Where the public half of the pair in `private` is kept: FILE.pub.
pub fn public_path(private: &Path) -> PathBuf {
    beside(private, ".pub")
}

/// Writes `pair` to `private` (0600) and its `.pub` (0644), each one line of
/// hex; neither is written when either exists, unless `force`. The public
/// file's path.
pub fn write(private: &Path, pair: &KeyPair, force: bool) -> Result<PathBuf, SealError> {
    let public = public_path(private);
    if !force {
        for path in [private, &public] {
            if path.exists() {
                return Err(SealError::Usage(format!(
                    "{} already exists; pass --force to replace it",
                    path.display()
                )));
            }
        }
    }
    let private_hex = Zeroizing::new(format!("{}\n", hex::encode(pair.private.as_slice())));
    write_key_file(private, private_hex.as_bytes(), 0o600, force)?;
    let public_hex = format!("{}\n", hex::encode(&pair.public));
    write_key_file(&public, public_hex.as_bytes(), 0o644, force)?;
    Ok(public)
}

/// A private key file's key, refused when group or others may read it.
pub fn read_private(path: &Path) -> Result<Zeroizing<Vec<u8>>, SealError> {
    let text = read_private_text(path)?;
    decode(path, &text)
}

/// A public key file's key (FILE.pub), readable by anyone.
pub fn read_public(path: &Path) -> Result<Zeroizing<Vec<u8>>, SealError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| SealError::Usage(format!("cannot read key file {}: {e}", path.display())))?;
    decode(path, &text)
}

/// The file's hex, by the rules of the project's input decoder
/// (`payload::decode_hex`: either case, white space ignored, the first
/// character that is no digit named), which seal, whose manifest belongs to
/// the device tables' revision, does not depend on.
fn decode(path: &Path, text: &str) -> Result<Zeroizing<Vec<u8>>, SealError> {
    let text = text.trim();
    let bad = |detail: String| SealError::KeyFile {
        path: path.display().to_string(),
        detail: format!("not valid hex ({detail})"),
    };
    if let Some(pos) = text
        .bytes()
        .position(|c| !c.is_ascii_hexdigit() && !c.is_ascii_whitespace())
    {
        return Err(bad(format!("character {pos} is not a hex digit")));
    }
    let digits = Zeroizing::new(text.split_ascii_whitespace().collect::<String>());
    hex::decode(digits.as_bytes())
        .map(Zeroizing::new)
        .map_err(|_| bad("an odd number of hex digits".into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    fn a_pair_round_trips_through_its_two_files() {
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("device.key");
        let s = KeyPairScheme::for_keygen("ed25519", None).unwrap();
        let pair = s.generate(None).unwrap();
        let public = write(&private, &pair, false).unwrap();
        assert_eq!(public, dir.path().join("device.key.pub"));
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!((mode(&private), mode(&public)), (0o600, 0o644));
        assert_eq!(*read_private(&private).unwrap(), *pair.private);
        assert_eq!(*read_public(&public).unwrap(), pair.public);
        let text = std::fs::read_to_string(&public).unwrap();
        assert_eq!(text, format!("{}\n", hex::encode(&pair.public)));
    }

    #[test]
    fn neither_file_is_replaced_without_force() {
        let dir = tempfile::tempdir().unwrap();
        let private = dir.path().join("k");
        std::fs::write(dir.path().join("k.pub"), "x").unwrap();
        let pair = KeyPairScheme::for_keygen("x25519", None)
            .unwrap()
            .generate(None)
            .unwrap();
        let err = write(&private, &pair, false).unwrap_err().to_string();
        assert!(
            err.ends_with("k.pub already exists; pass --force to replace it"),
            "{err}"
        );
        assert!(!private.exists(), "the private half was written alone");
        write(&private, &pair, true).unwrap();
    }

    #[test]
    fn hex_is_read_as_the_input_decoder_reads_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.pub");
        std::fs::write(&path, " 00AB cd\n").unwrap();
        assert_eq!(*read_public(&path).unwrap(), vec![0x00, 0xab, 0xcd]);
        std::fs::write(&path, "ab!").unwrap();
        let err = read_public(&path).unwrap_err().to_string();
        assert!(
            err.ends_with("not valid hex (character 2 is not a hex digit)"),
            "{err}"
        );
        std::fs::write(&path, "a b c").unwrap();
        let err = read_public(&path).unwrap_err().to_string();
        assert!(
            err.ends_with("not valid hex (an odd number of hex digits)"),
            "{err}"
        );
        let missing = read_public(&dir.path().join("none")).unwrap_err();
        assert!(missing.to_string().starts_with("cannot read key file"));
        assert!(missing.is_user_error());
    }

    #[test]
    fn a_private_key_others_can_read_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k");
        std::fs::write(&path, "00\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let err = read_private(&path).unwrap_err().to_string();
        assert!(err.contains("chmod 600"), "{err}");
    }

    #[test]
    fn an_operation_the_scheme_lacks_is_named() {
        let err = KeyPairScheme::for_op("x25519", None, AsymOp::Sign)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.starts_with("x25519 cannot sign: sign takes a signature scheme"),
            "{err}"
        );
        let err = KeyPairScheme::for_op("ed25519", None, AsymOp::Encapsulate)
            .err()
            .unwrap()
            .to_string();
        assert!(
            err.ends_with("encapsulate takes a KEM (ml-kem-512, ml-kem-768, x-wing)"),
            "{err}"
        );
        assert!(KeyPairScheme::for_op("ml-kem-512", None, AsymOp::Decapsulate).is_ok());
    }

    #[test]
    fn a_seed_is_refused_where_no_standard_defines_one() {
        let s = KeyPairScheme::for_keygen("ed25519", None).unwrap();
        let err = s.generate(Some(&[0; 32])).err().unwrap().to_string();
        assert!(
            err.starts_with("--seed: ed25519 has no key derivation"),
            "{err}"
        );
        let kem = KeyPairScheme::for_keygen("ml-kem-512", None).unwrap();
        let a = kem.generate(Some(&[7; 64])).unwrap();
        let b = kem.generate(Some(&[7; 64])).unwrap();
        assert_eq!(a.public, b.public);
        let err = KeyPairScheme::for_keygen("aes-128-gcm", None)
            .err()
            .unwrap()
            .to_string();
        assert!(err.ends_with("use --scheme for sealing keys"), "{err}");
    }
}
