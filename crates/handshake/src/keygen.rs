//! `keygen`'s request as a user gives it: which kind of key its flags name
//! (a sealing key file, an OSCORE context pair, EDHOC credentials, or an
//! asymmetric key pair), the flags each kind takes, and what was written.
//! Here, not in the binary, because EDHOC credentials are this crate's and
//! the others are the sealing core's: this is the one place above both.

use std::path::Path;

use seal::host::error::SealError;
use seal::host::key_pair::{self, KeyPairScheme};
use seal::host::oscore;
use seal::{NoncePolicy, SealKey, counter_path};

use crate::credentials::{self, KeygenError};
use crate::psk_credentials;

/// What `keygen` was asked for.
pub struct Request<'a> {
    /// `--scheme S` (a sealing key, `oscore:ALG`, `edhoc` or `edhoc-psk`).
    pub scheme: Option<&'a str>,
    /// `ALGORITHM`, for a key pair.
    pub algorithm: Option<&'a str>,
    pub output: &'a Path,
    pub peer_output: Option<&'a Path>,
    pub add_to: Option<&'a Path>,
    pub nonce: &'a str,
    pub force: bool,
    pub allow_insecure: bool,
    pub backend: Option<&'a str>,
    /// `--seed`'s bytes, for a key pair derived as its standard defines.
    pub seed: Option<&'a [u8]>,
}

fn usage(why: &str) -> KeygenError {
    KeygenError::File(SealError::Usage(why.into()))
}

/// Writes the files the request names and says what it wrote.
pub fn write(req: &Request<'_>) -> Result<String, KeygenError> {
    match (req.scheme, req.algorithm) {
        (Some(_), Some(_)) => Err(usage("give --scheme S or an ALGORITHM, not both")),
        (Some(scheme), None) => sealing_key(req, scheme),
        (None, Some(algorithm)) => pair(req, algorithm),
        (None, None) => Err(usage(
            "give --scheme S for a sealing key or an ALGORITHM for a key pair",
        )),
    }
}

fn sealing_key(req: &Request<'_>, scheme: &str) -> Result<String, KeygenError> {
    if req.add_to.is_some() && scheme != credentials::SCHEME && scheme != psk_credentials::SCHEME {
        return Err(usage(
            "--add-to is for EDHOC credentials (--scheme edhoc or edhoc-psk)",
        ));
    }
    if scheme.starts_with(oscore::PREFIX) {
        let (output, peer) = (req.output, req.peer_output);
        let (mine, theirs) =
            oscore::OscoreKey::write_pair(scheme, req.nonce, output, peer, req.force)?;
        return Ok(format!(
            "wrote {} (sender id {}) and {} (sender id {}), {}",
            output.display(),
            hex::encode(&mine.sender_id),
            peer.unwrap_or(output).display(),
            hex::encode(&theirs.sender_id),
            mine.scheme()
        ));
    }
    if scheme == credentials::SCHEME {
        return edhoc_pair(req);
    }
    if scheme == psk_credentials::SCHEME {
        return edhoc_psk_pair(req);
    }
    if req.peer_output.is_some() {
        return Err(usage(
            "--peer-output is for OSCORE contexts (--scheme oscore:ALG) and EDHOC credentials (--scheme edhoc or edhoc-psk)",
        ));
    }
    let mut key = SealKey::create(scheme, req.nonce, req.allow_insecure)?;
    key.save(req.output, req.force)?;
    let counter = match key.nonce {
        NoncePolicy::Counter => format!(", counter in {}", counter_path(req.output).display()),
        NoncePolicy::Random => String::new(),
    };
    Ok(format!(
        "wrote {} (scheme {}, key id {}, {} nonces{counter})",
        req.output.display(),
        key.scheme,
        key.key_id_hex(),
        key.nonce.as_str(),
    ))
}

/// EDHOC credentials (method 3, suite 2): the device's (--output) and the
/// gateway's, or a further device for an existing gateway (--add-to).
fn edhoc_pair(req: &Request<'_>) -> Result<String, KeygenError> {
    if let Some(gateway) = req.add_to {
        let trusted = credentials::add_device_to(gateway, req.output, req.force)?;
        return Ok(format!(
            "wrote {} (an initiator's); {} now trusts {trusted} devices",
            req.output.display(),
            gateway.display()
        ));
    }
    let peer = req.peer_output.ok_or_else(|| {
        usage(
            "--scheme edhoc writes two credential files: give --peer-output FILE too (or --add-to GATEWAY for a further device)",
        )
    })?;
    credentials::write_pair(req.output, peer, req.force)?;
    Ok(format!(
        "wrote {} (the initiator's) and {} (the responder's): EDHOC method 3, suite 2",
        req.output.display(),
        peer.display()
    ))
}

/// EDHOC-PSK credentials (method 4, suite 2): the device's (--output) and the
/// gateway's, holding one fresh PSK, or a further device's PSK for an
/// existing gateway (--add-to).
fn edhoc_psk_pair(req: &Request<'_>) -> Result<String, KeygenError> {
    if let Some(gateway) = req.add_to {
        let held = psk_credentials::add_device_to(gateway, req.output, req.force)?;
        return Ok(format!(
            "wrote {} (an initiator's PSK); {} now holds {held} PSKs",
            req.output.display(),
            gateway.display()
        ));
    }
    let peer = req.peer_output.ok_or_else(|| {
        usage(
            "--scheme edhoc-psk writes two credential files: give --peer-output FILE too (or --add-to GATEWAY for a further device)",
        )
    })?;
    psk_credentials::write_pair(req.output, peer, req.force)?;
    Ok(format!(
        "wrote {} (the initiator's) and {} (the responder's): EDHOC-PSK (draft-ietf-lake-edhoc-psk, method 4), suite 2, one 16-byte PSK",
        req.output.display(),
        peer.display()
    ))
}

fn pair(req: &Request<'_>, algorithm: &str) -> Result<String, KeygenError> {
    let scheme = KeyPairScheme::for_keygen(algorithm, req.backend)?;
    let pair = scheme.generate(req.seed)?;
    let public = key_pair::write(req.output, &pair, req.force)?;
    Ok(format!(
        "wrote {} (private) and {} (public), {}",
        req.output.display(),
        public.display(),
        scheme.entry.id
    ))
}
