//! `sign`, `verify`, `encapsulate` and `decapsulate` with key pairs from `keygen
//! ALGORITHM` (crates/seal `host::key_pair`).

use std::path::PathBuf;

use catalogue::AsymOp;
use clap::Args as ClapArgs;
use seal::host::key_pair::{KeyPairScheme, read_private, read_public};
use zeroize::Zeroizing;

use crate::args::{decode_hex, read_input};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct SignArgs {
    /// Signature scheme, e.g. ed25519, ecdsa-p256-sha256, rsa-2048-pss-sha256, ml-dsa-44.
    pub algorithm: String,
    /// Private key file from `ciphermeter keygen`.
    #[arg(long)]
    pub key_file: PathBuf,
    #[arg(long)]
    pub backend: Option<String>,
    /// Message as hex; without it, the raw bytes of standard input.
    #[arg(long)]
    pub input: Option<String>,
    /// ML-DSA's context string as hex (FIPS 204; empty by default, at most 255 bytes).
    #[arg(long)]
    pub context: Option<String>,
}

#[derive(ClapArgs)]
pub struct VerifyArgs {
    pub algorithm: String,
    #[command(flatten)]
    pub key: PublicKeyArgs,
    /// Signature as hex.
    #[arg(long)]
    pub signature: String,
    #[arg(long)]
    pub backend: Option<String>,
    #[arg(long)]
    pub input: Option<String>,
    /// ML-DSA's context string as hex, as it was signed.
    #[arg(long)]
    pub context: Option<String>,
}

/// A public key from a file or the command line.
#[derive(ClapArgs)]
#[group(required = true, multiple = false)]
pub struct PublicKeyArgs {
    /// Public key file (FILE.pub from `ciphermeter keygen`).
    #[arg(long)]
    pub key_file: Option<PathBuf>,
    /// The public key as hex, in the encoding a .pub file holds (FIPS 203/204's
    /// for ML-KEM and ML-DSA, as other implementations exchange them).
    #[arg(long)]
    pub public_key: Option<String>,
}

#[derive(ClapArgs)]
pub struct EncapsulateArgs {
    /// KEM: ml-kem-512, ml-kem-768, x-wing.
    pub algorithm: String,
    #[command(flatten)]
    pub key: PublicKeyArgs,
    #[arg(long)]
    pub backend: Option<String>,
}

#[derive(ClapArgs)]
pub struct DecapsulateArgs {
    pub algorithm: String,
    /// Private key file from `ciphermeter keygen`.
    #[arg(long)]
    pub key_file: PathBuf,
    /// Ciphertext as hex; without it, the raw bytes of standard input.
    #[arg(long)]
    pub input: Option<String>,
    #[arg(long)]
    pub backend: Option<String>,
}

fn public_key(args: &PublicKeyArgs) -> Result<Zeroizing<Vec<u8>>, CliError> {
    match (&args.key_file, &args.public_key) {
        (Some(path), _) => Ok(read_public(path)?),
        (None, Some(text)) => decode_hex("--public-key", text),
        (None, None) => Err(CliError::usage(
            "give --key-file FILE.pub or --public-key HEX",
        )),
    }
}

pub fn sign(args: SignArgs) -> Result<(), CliError> {
    let s = KeyPairScheme::for_op(&args.algorithm, args.backend.as_deref(), AsymOp::Sign)?;
    let key = read_private(&args.key_file)?;
    let message = read_input(args.input.as_deref())?;
    let context = decode_hex("--context", args.context.as_deref().unwrap_or(""))?;
    let signature = s
        .scheme
        .load_private(&key)?
        .sign_with_context(&message, &context)?;
    println!("{}", hex::encode(signature));
    Ok(())
}

pub fn verify(args: VerifyArgs) -> Result<(), CliError> {
    let s = KeyPairScheme::for_op(&args.algorithm, args.backend.as_deref(), AsymOp::Verify)?;
    let key = public_key(&args.key)?;
    let signature = decode_hex("--signature", &args.signature)?;
    let message = read_input(args.input.as_deref())?;
    let context = decode_hex("--context", args.context.as_deref().unwrap_or(""))?;
    let key = s.scheme.load_public(&key)?;
    key.verify_with_context(&message, &context, &signature)?;
    println!("signature ok");
    Ok(())
}

/// Prints `ciphertext HEX` and `shared_secret HEX`, one per line.
pub fn encapsulate(args: EncapsulateArgs) -> Result<(), CliError> {
    let op = AsymOp::Encapsulate;
    let s = KeyPairScheme::for_op(&args.algorithm, args.backend.as_deref(), op)?;
    let sent = s
        .scheme
        .load_public(&public_key(&args.key)?)?
        .encapsulate()?;
    let secret = Zeroizing::new(hex::encode(sent.shared_secret.as_slice()));
    println!("ciphertext {}", hex::encode(&sent.ciphertext));
    println!("shared_secret {}", secret.as_str());
    Ok(())
}

/// Prints the shared secret as hex. A changed ciphertext of the right length
/// gives another secret (ML-KEM's implicit rejection), not an error.
pub fn decapsulate(args: DecapsulateArgs) -> Result<(), CliError> {
    let op = AsymOp::Decapsulate;
    let s = KeyPairScheme::for_op(&args.algorithm, args.backend.as_deref(), op)?;
    let key = read_private(&args.key_file)?;
    let ciphertext = read_input(args.input.as_deref())?;
    let secret = s.scheme.load_private(&key)?.decapsulate(&ciphertext)?;
    println!("{}", hex::encode(secret.as_slice()));
    Ok(())
}
