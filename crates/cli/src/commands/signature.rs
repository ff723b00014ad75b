//! `sign` and `verify` with the asymmetric entries, using key files written by
//! `ciphermeter keygen ALGORITHM --output FILE` (hex DER: FILE private, FILE.pub public).

use std::path::PathBuf;

use catalogue::Backend;
use clap::Args as ClapArgs;
use zeroize::Zeroizing;

use crate::args::read_input;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct SignArgs {
    /// Signature scheme, e.g. ed25519, ecdsa-p256-sha256, rsa-2048-pss-sha256.
    pub algorithm: String,
    /// Private key file from `ciphermeter keygen`.
    #[arg(long)]
    pub key_file: PathBuf,
    #[arg(long)]
    pub backend: Option<String>,
    /// Message as hex; without it, the raw bytes of standard input.
    #[arg(long)]
    pub input: Option<String>,
}

#[derive(ClapArgs)]
pub struct VerifyArgs {
    pub algorithm: String,
    /// Public key file (FILE.pub from `ciphermeter keygen`).
    #[arg(long)]
    pub key_file: PathBuf,
    /// Signature as hex.
    #[arg(long)]
    pub signature: String,
    #[arg(long)]
    pub backend: Option<String>,
    #[arg(long)]
    pub input: Option<String>,
}

/// A private key must be the owner's alone (as `seal` demands); a public one need not.
fn read_key(path: &PathBuf, private: bool) -> Result<Zeroizing<Vec<u8>>, CliError> {
    let text = match private {
        true => seal::read_private(path).map_err(crate::args::seal_err)?,
        false => Zeroizing::new(std::fs::read_to_string(path).map_err(|e| {
            CliError::usage(format!("cannot read key file {}: {e}", path.display()))
        })?),
    };
    crate::args::decode_hex(&format!("key file {}", path.display()), text.trim())
}

pub fn sign(args: SignArgs) -> Result<(), CliError> {
    let entry = catalogue::catalogue().resolve(&args.algorithm, None)?;
    let backend = args.backend.as_deref().map(Backend::parse).transpose()?;
    let scheme = entry.asymmetric(backend)?;
    let key = read_key(&args.key_file, true)?;
    let message = read_input(args.input.as_deref())?;
    let signature = scheme.load_private(&key)?.sign(&message)?;
    println!("{}", hex::encode(signature));
    Ok(())
}

pub fn verify(args: VerifyArgs) -> Result<(), CliError> {
    let entry = catalogue::catalogue().resolve(&args.algorithm, None)?;
    let backend = args.backend.as_deref().map(Backend::parse).transpose()?;
    let scheme = entry.asymmetric(backend)?;
    let key = read_key(&args.key_file, false)?;
    let signature = crate::args::decode_hex("--signature", &args.signature)?;
    let message = read_input(args.input.as_deref())?;
    scheme.load_public(&key)?.verify(&message, &signature)?;
    println!("signature ok");
    Ok(())
}
