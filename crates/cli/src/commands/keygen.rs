//! `ciphermeter keygen`: a sealing key file (`--scheme S`), OSCORE contexts, EDHOC
//! credentials, or an asymmetric key pair (`ALGORITHM`): crates/handshake `keygen`.

use std::path::PathBuf;

use clap::Args as ClapArgs;

use crate::args::decode_hex;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Asymmetric algorithm for a key pair: ed25519, x25519, ecdsa-p256-sha256, rsa-2048-pss-sha256…
    #[arg(required_unless_present = "scheme", conflicts_with = "scheme")]
    algorithm: Option<String>,
    /// Sealing scheme for a key file used by `seal` and `open`: aead:AEAD, etm:CIPHER+MAC, hmac:MAC;
    /// or oscore:ALG, edhoc, edhoc-psk.
    #[arg(long)]
    scheme: Option<String>,
    /// Where to write the key (a key pair also writes FILE.pub).
    #[arg(long, short)]
    output: PathBuf,
    /// For --scheme oscore:ALG: the peer's matching context (same master secret and
    /// salt, sender and recipient ids swapped), e.g. the gateway's; for --scheme
    /// edhoc: the peer's EDHOC credentials (each trusting the other's); for
    /// --scheme edhoc-psk: the peer's, holding the same pre-shared key.
    #[arg(long, requires = "scheme")]
    peer_output: Option<PathBuf>,
    /// For --scheme edhoc or edhoc-psk: a further device for the gateway whose
    /// credentials are FILE: writes the device's to --output and adds it to FILE's.
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
    let seed = args.seed.as_deref().map(|t| decode_hex("--seed", t));
    let seed = seed.transpose()?;
    let written = handshake::keygen::write(&handshake::keygen::Request {
        scheme: args.scheme.as_deref(),
        algorithm: args.algorithm.as_deref(),
        output: &args.output,
        peer_output: args.peer_output.as_deref(),
        add_to: args.add_to.as_deref(),
        nonce: &args.nonce,
        force: args.force,
        allow_insecure: args.allow_insecure,
        backend: args.backend.as_deref(),
        seed: seed.as_deref().map(Vec::as_slice),
    })?;
    eprintln!("{written}");
    Ok(())
}
