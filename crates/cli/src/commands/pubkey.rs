//! The public-key operations on key files written by `ciphermeter keygen
//! ALGORITHM --output FILE` (FILE private, FILE.pub public, both hex; what each
//! holds: docs/keys.md): `sign` and `verify`, and a KEM's `encapsulate` and
//! `decapsulate`.

use std::path::{Path, PathBuf};

use catalogue::{AsymOp, AsymmetricScheme, Backend};
use clap::Args as ClapArgs;
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

/// The entry's scheme, refused with its own name when it lacks `op`.
fn scheme(
    algorithm: &str,
    backend: &Option<String>,
    op: AsymOp,
    verb: &str,
) -> Result<&'static dyn AsymmetricScheme, CliError> {
    let entry = catalogue::catalogue().resolve(algorithm, None)?;
    let backend = backend.as_deref().map(Backend::parse).transpose()?;
    let scheme = entry.asymmetric(backend)?;
    match scheme.operations().contains(&op) {
        true => Ok(scheme),
        false => Err(CliError::usage(format!(
            "{} cannot {verb}: {verb} takes a {}",
            entry.id,
            match op {
                AsymOp::Sign | AsymOp::Verify =>
                    "signature scheme (ed25519, ecdsa-p256-sha256, rsa-*-pss-sha256, ml-dsa-44, ...)",
                _ => "KEM (ml-kem-512, ml-kem-768, x-wing)",
            }
        ))),
    }
}

/// A private key must be the owner's alone (as `seal` demands); a public one need not.
fn read_key(path: &Path, private: bool) -> Result<Zeroizing<Vec<u8>>, CliError> {
    let text = match private {
        true => seal::read_private(path)?,
        false => Zeroizing::new(std::fs::read_to_string(path).map_err(|e| {
            CliError::usage(format!("cannot read key file {}: {e}", path.display()))
        })?),
    };
    decode_hex(&format!("key file {}", path.display()), text.trim())
}

fn public_key(args: &PublicKeyArgs) -> Result<Zeroizing<Vec<u8>>, CliError> {
    match (&args.key_file, &args.public_key) {
        (Some(path), _) => read_key(path, false),
        (None, Some(text)) => decode_hex("--public-key", text),
        (None, None) => Err(CliError::usage(
            "give --key-file FILE.pub or --public-key HEX",
        )),
    }
}

fn context(text: &Option<String>) -> Result<Zeroizing<Vec<u8>>, CliError> {
    match text {
        Some(text) => decode_hex("--context", text),
        None => Ok(Zeroizing::new(vec![])),
    }
}

pub fn sign(args: SignArgs) -> Result<(), CliError> {
    let scheme = scheme(&args.algorithm, &args.backend, AsymOp::Sign, "sign")?;
    let key = read_key(&args.key_file, true)?;
    let message = read_input(args.input.as_deref())?;
    let context = context(&args.context)?;
    let signature = scheme
        .load_private(&key)?
        .sign_with_context(&message, &context)?;
    println!("{}", hex::encode(signature));
    Ok(())
}

pub fn verify(args: VerifyArgs) -> Result<(), CliError> {
    let scheme = scheme(&args.algorithm, &args.backend, AsymOp::Verify, "verify")?;
    let key = public_key(&args.key)?;
    let signature = decode_hex("--signature", &args.signature)?;
    let message = read_input(args.input.as_deref())?;
    let context = context(&args.context)?;
    scheme
        .load_public(&key)?
        .verify_with_context(&message, &context, &signature)?;
    println!("signature ok");
    Ok(())
}

/// Prints `ciphertext HEX` and `shared_secret HEX`, one per line.
pub fn encapsulate(args: EncapsulateArgs) -> Result<(), CliError> {
    let scheme = scheme(
        &args.algorithm,
        &args.backend,
        AsymOp::Encapsulate,
        "encapsulate",
    )?;
    let key = public_key(&args.key)?;
    let sent = scheme.load_public(&key)?.encapsulate()?;
    let secret = Zeroizing::new(hex::encode(sent.shared_secret.as_slice()));
    println!("ciphertext {}", hex::encode(&sent.ciphertext));
    println!("shared_secret {}", secret.as_str());
    Ok(())
}

/// Prints the shared secret as hex. A changed ciphertext of the right length
/// gives another secret (ML-KEM's implicit rejection), not an error.
pub fn decapsulate(args: DecapsulateArgs) -> Result<(), CliError> {
    let scheme = scheme(
        &args.algorithm,
        &args.backend,
        AsymOp::Decapsulate,
        "decapsulate",
    )?;
    let key = read_key(&args.key_file, true)?;
    let ciphertext = read_input(args.input.as_deref())?;
    let secret = scheme.load_private(&key)?.decapsulate(&ciphertext)?;
    println!("{}", hex::encode(secret.as_slice()));
    Ok(())
}
