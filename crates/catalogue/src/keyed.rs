//! Entry methods that check the inputs and hand back a keyed instance.

use crate::entry::{Backend, Entry, Kind, Ops};
use crate::error::Error;
use crate::ops::{AsymmetricScheme, Cipher, Hasher, Mac, Padding, Params};

fn wrong_kind(entry: &Entry, wanted: &str) -> Error {
    Error::Unsupported {
        algorithm: entry.id.clone(),
        operation: format!("{wanted} (it is a {})", entry.kind),
    }
}

impl Entry {
    /// Runs the key schedule of `backend` (default: the first) and returns a
    /// cipher that checks IV lengths before each message.
    pub fn cipher(
        &'static self,
        backend: Option<Backend>,
        key: &[u8],
    ) -> Result<Box<dyn Cipher>, Error> {
        self.check_key(key)?;
        match &self.implementation(backend)?.ops {
            Ops::Cipher(ctor) => Ok(Box::new(Checked {
                inner: ctor(key)?,
                entry: self,
            })),
            _ => Err(wrong_kind(self, "encrypt/decrypt")),
        }
    }

    pub fn hasher(&self, backend: Option<Backend>) -> Result<Box<dyn Hasher>, Error> {
        match &self.implementation(backend)?.ops {
            Ops::Hash(ctor) => Ok(ctor()),
            _ => Err(wrong_kind(self, "digest")),
        }
    }

    pub fn mac(&self, backend: Option<Backend>, key: &[u8]) -> Result<Box<dyn Mac>, Error> {
        self.check_key(key)?;
        if self.kind == Kind::Mac && self.key_sizes.is_empty() && key.is_empty() {
            return Err(Error::KeyLength {
                algorithm: self.id.clone(),
                valid: "1 or more".into(),
                got: 0,
            });
        }
        match &self.implementation(backend)?.ops {
            Ops::Mac(ctor) => ctor(key),
            _ => Err(wrong_kind(self, "MAC")),
        }
    }

    /// `encrypt`/`decrypt` take ciphers; anything else is refused, naming
    /// the command that takes it.
    pub fn check_cipher(&self) -> Result<(), Error> {
        if matches!(
            self.kind,
            Kind::BlockMode | Kind::Stream | Kind::Aead | Kind::Baseline
        ) {
            return Ok(());
        }
        let command = match self.kind {
            Kind::Asymmetric => "sign/verify",
            _ => "digest",
        };
        Err(Error::Usage(format!(
            "{} is a {}, not a cipher; use `ciphermeter {command}`",
            self.id, self.kind
        )))
    }

    /// `digest` takes a hash without a key or a MAC with one (`keyed`).
    pub fn check_digest(&self, keyed: bool) -> Result<(), Error> {
        let id = &self.id;
        match (self.kind, keyed) {
            (Kind::Hash, false) | (Kind::Mac, true) => Ok(()),
            (Kind::Hash, true) => Err(Error::Usage(format!(
                "{id} is a hash and takes no --key; for a MAC use hmac-{id}"
            ))),
            (Kind::Mac, false) => Err(Error::Usage(format!("{id} is a MAC and needs --key HEX"))),
            (kind, _) => Err(Error::Usage(format!(
                "{id} is a {kind}, not a hash or MAC; use `ciphermeter encrypt`"
            ))),
        }
    }

    /// The padding named (pkcs7 when none is), refused where the entry's
    /// mode takes none: only ECB and CBC are padded.
    pub fn padding(&self, given: Option<&str>) -> Result<Padding, Error> {
        let Some(text) = given else {
            return Ok(Padding::default());
        };
        let padding = Padding::parse(text).ok_or_else(|| {
            Error::Usage(format!(
                "unknown padding '{text}' (known: none, pkcs7, zero, iso7816, x923)"
            ))
        })?;
        if !self.mode.is_some_and(|m| m.is_padded()) && padding != Padding::None {
            return Err(Error::Usage(format!(
                "{}: padding '{text}' does not apply; only ECB and CBC modes are padded",
                self.id
            )));
        }
        Ok(padding)
    }

    /// Associated data applies to AEADs only.
    pub fn check_aad(&self) -> Result<(), Error> {
        match self.kind {
            Kind::Aead => Ok(()),
            kind => Err(Error::Usage(format!(
                "--aad applies to AEADs only; {} is a {kind}",
                self.id
            ))),
        }
    }

    pub fn asymmetric(&self, backend: Option<Backend>) -> Result<&dyn AsymmetricScheme, Error> {
        match &self.implementation(backend)?.ops {
            Ops::Asymmetric(scheme) => Ok(scheme.as_ref()),
            _ => Err(wrong_kind(self, "keygen/sign/verify")),
        }
    }
}

/// Checks the IV/nonce length for every message, so every backend reports the
/// same clear error instead of its own.
struct Checked {
    inner: Box<dyn Cipher>,
    entry: &'static Entry,
}

impl Cipher for Checked {
    fn encrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.entry.check_nonce(params.iv)?;
        self.inner.encrypt(params, input, out)
    }

    fn decrypt(
        &mut self,
        params: &Params<'_>,
        input: &[u8],
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.entry.check_nonce(params.iv)?;
        self.inner.decrypt(params, input, out)
    }

    fn streaming(
        &self,
        params: &Params<'_>,
        direction: crate::ops::Direction,
    ) -> Result<Box<dyn crate::ops::Streaming>, Error> {
        self.entry.check_nonce(params.iv)?;
        self.inner.streaming(params, direction)
    }
}

#[cfg(test)]
mod tests {
    use crate::{Kind, Padding, catalogue};

    fn entry(id: &str) -> &'static crate::Entry {
        catalogue().get(id).unwrap()
    }

    #[test]
    fn each_command_refuses_what_it_does_not_take_and_names_the_one_that_does() {
        assert!(entry("aes-128-gcm").check_cipher().is_ok());
        let err = entry("ed25519").check_cipher().unwrap_err().to_string();
        assert_eq!(
            err,
            "ed25519 is a asymmetric, not a cipher; use `ciphermeter sign/verify`"
        );
        let err = entry("sha256").check_cipher().unwrap_err().to_string();
        assert!(err.ends_with("use `ciphermeter digest`"), "{err}");
        assert!(entry("sha256").check_digest(false).is_ok());
        assert!(entry("hmac-sha256").check_digest(true).is_ok());
        let err = entry("sha256").check_digest(true).unwrap_err().to_string();
        assert_eq!(
            err,
            "sha256 is a hash and takes no --key; for a MAC use hmac-sha256"
        );
        let err = entry("hmac-sha256")
            .check_digest(false)
            .unwrap_err()
            .to_string();
        assert_eq!(err, "hmac-sha256 is a MAC and needs --key HEX");
        let err = entry("aes-128-gcm")
            .check_digest(false)
            .unwrap_err()
            .to_string();
        assert!(
            err.ends_with("not a hash or MAC; use `ciphermeter encrypt`"),
            "{err}"
        );
        assert!(entry("aes-128-gcm").check_aad().is_ok());
        let err = entry("aes-128-cbc").check_aad().unwrap_err().to_string();
        assert_eq!(
            err,
            "--aad applies to AEADs only; aes-128-cbc is a block-mode"
        );
    }

    #[test]
    fn padding_applies_to_ecb_and_cbc_only() {
        let cbc = entry("aes-128-cbc");
        assert_eq!(cbc.padding(None).unwrap(), Padding::default());
        assert_eq!(cbc.padding(Some("zero")).unwrap(), Padding::Zero);
        assert!(
            cbc.padding(Some("pad"))
                .unwrap_err()
                .to_string()
                .starts_with("unknown padding 'pad'")
        );
        let ctr = entry("aes-128-ctr");
        assert_eq!(ctr.padding(Some("none")).unwrap(), Padding::None);
        let err = ctr.padding(Some("pkcs7")).unwrap_err().to_string();
        assert!(err.ends_with("only ECB and CBC modes are padded"), "{err}");
    }

    #[test]
    fn kinds_are_named_or_listed() {
        assert_eq!(Kind::from_name("mac").unwrap(), Kind::Mac);
        let err = Kind::from_name("cipher").unwrap_err().to_string();
        assert_eq!(
            err,
            "unknown kind 'cipher' (known: block-mode, stream, aead, hash, mac, asymmetric, baseline)"
        );
    }
}
