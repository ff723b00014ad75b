//! `ciphermeter keygen`: a sealing key file (`--scheme S`), OSCORE contexts, EDHOC
//! credentials, or an asymmetric key pair (`ALGORITHM`; crates/seal `host::key_pair`).

use std::path::PathBuf;

use clap::Args as ClapArgs;
use seal::host::key_pair::{self, KeyPairScheme};
use seal::host::oscore;
use seal::{NoncePolicy, SealKey, counter_path};

use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Asymmetric algorithm for a key pair: ed25519, x25519, ecdsa-p256-sha256, rsa-2048-pss-sha256…
    #[arg(required_unless_present = "scheme", conflicts_with = "scheme")]
    algorithm: Option<String>,
    /// Sealing scheme for a key file used by `seal` and `open`: aead:AEAD, etm:CIPHER+MAC, hmac:MAC.
    #[arg(long)]
    scheme: Option<String>,
    /// Where to write the key (a key pair also writes FILE.pub).
    #[arg(long, short)]
    output: PathBuf,
    /// For --scheme oscore:ALG: the peer's matching context (same master secret and
    /// salt, sender and recipient ids swapped), e.g. the gateway's; for --scheme
    /// edhoc: the peer's EDHOC credentials (each trusting the other's).
    #[arg(long, requires = "scheme")]
    peer_output: Option<PathBuf>,
    /// For --scheme edhoc: a further device for the gateway whose credentials are
    /// FILE: writes the device's to --output and adds it to FILE's trusted ones.
    #[arg(
        long,
        value_name = "FILE",
        requires = "scheme",
        conflicts_with = "peer_output"
    )]
    add_to: Option<PathBuf>,
    /// Nonces: random (from the OS; under 96 bits needs --allow-insecure) or counter (aead,
    /// or etm with a stream cipher; kept in FILE.counter, reserved on disk before each use).
    #[arg(long, default_value = "random", requires = "scheme")]
    nonce: String,
    /// Replace existing files.
    #[arg(long)]
    force: bool,
    /// Make a key for a legacy, broken, unauthenticated or short-nonce scheme anyway.
    #[arg(long, requires = "scheme")]
    allow_insecure: bool,
    /// Backend for a key pair (default: the first that implements it).
    #[arg(long, requires = "algorithm")]
    backend: Option<String>,
    /// Derive the key pair from a seed, as the standard defines (hex): ML-KEM's
    /// 64-byte d‖z (FIPS 203), ML-DSA's 32-byte ξ (FIPS 204), X-Wing's 32 bytes.
    #[arg(long, requires = "algorithm")]
    seed: Option<String>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    match (&args.scheme, &args.algorithm) {
        (Some(scheme), _) => sealing_key(&args, scheme),
        (None, Some(algorithm)) => key_pair(&args, algorithm),
        (None, None) => Err(CliError::usage(
            "give --scheme S for a sealing key or an ALGORITHM for a key pair",
        )),
    }
}

fn sealing_key(args: &Args, scheme: &str) -> Result<(), CliError> {
    if args.add_to.is_some() && scheme != handshake::credentials::SCHEME {
        return Err(CliError::usage(
            "--add-to is for EDHOC credentials (--scheme edhoc)",
        ));
    }
    if scheme.starts_with(oscore::PREFIX) {
        let (output, peer) = (&args.output, args.peer_output.as_deref());
        let (mine, theirs) =
            oscore::OscoreKey::write_pair(scheme, &args.nonce, output, peer, args.force)?;
        eprintln!(
            "wrote {} (sender id {}) and {} (sender id {}), {}",
            output.display(),
            hex::encode(&mine.sender_id),
            peer.unwrap_or(output).display(),
            hex::encode(&theirs.sender_id),
            mine.scheme()
        );
        return Ok(());
    }
    if scheme == handshake::credentials::SCHEME {
        return edhoc_pair(args);
    }
    if args.peer_output.is_some() {
        return Err(CliError::usage(
            "--peer-output is for OSCORE contexts (--scheme oscore:ALG) and EDHOC credentials (--scheme edhoc)",
        ));
    }
    let mut key = SealKey::create(scheme, &args.nonce, args.allow_insecure)?;
    key.save(&args.output, args.force)?;
    let counter = match key.nonce {
        NoncePolicy::Counter => format!(", counter in {}", counter_path(&args.output).display()),
        NoncePolicy::Random => String::new(),
    };
    eprintln!(
        "wrote {} (scheme {}, key id {}, {} nonces{counter})",
        args.output.display(),
        key.scheme,
        key.key_id_hex(),
        key.nonce.as_str(),
    );
    Ok(())
}

/// EDHOC credentials (method 3, suite 2): the device's (--output) and the
/// gateway's, or a further device for an existing gateway (--add-to).
fn edhoc_pair(args: &Args) -> Result<(), CliError> {
    use handshake::credentials::{add_device_to, write_pair};
    if let Some(gateway) = &args.add_to {
        let trusted = add_device_to(gateway, &args.output, args.force)?;
        eprintln!(
            "wrote {} (an initiator's); {} now trusts {trusted} devices",
            args.output.display(),
            gateway.display()
        );
        return Ok(());
    }
    let peer = args.peer_output.as_ref().ok_or_else(|| {
        CliError::usage(
            "--scheme edhoc writes two credential files: give --peer-output FILE too (or --add-to GATEWAY for a further device)",
        )
    })?;
    write_pair(&args.output, peer, args.force)?;
    eprintln!(
        "wrote {} (the initiator's) and {} (the responder's): EDHOC method 3, suite 2",
        args.output.display(),
        peer.display()
    );
    Ok(())
}

fn key_pair(args: &Args, algorithm: &str) -> Result<(), CliError> {
    let scheme = KeyPairScheme::for_keygen(algorithm, args.backend.as_deref())?;
    let seed = args
        .seed
        .as_deref()
        .map(|t| crate::args::decode_hex("--seed", t));
    let pair = scheme.generate(seed.transpose()?.as_deref().map(Vec::as_slice))?;
    let public = key_pair::write(&args.output, &pair, args.force)?;
    eprintln!(
        "wrote {} (private) and {} (public), {}",
        args.output.display(),
        public.display(),
        scheme.entry.id
    );
    Ok(())
}
