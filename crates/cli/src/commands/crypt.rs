//! `encrypt` and `decrypt`: one algorithm, hex in, hex out.

use catalogue::{Backend, Direction, Kind, Padding, Params};
use clap::Args as ClapArgs;
use zeroize::Zeroizing;

use crate::args::read_input;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Algorithm id, alias, or libmcrypt name (mcrypt:CIPHER:MODE); see `ciphermeter list`.
    pub algorithm: String,
    /// Key as hex.
    #[arg(long)]
    pub key: String,
    /// IV or nonce as hex.
    #[arg(long)]
    pub iv: Option<String>,
    /// Associated data as hex (AEADs only).
    #[arg(long)]
    pub aad: Option<String>,
    /// Padding for ECB and CBC: none, pkcs7 (default), zero, iso7816, x923.
    #[arg(long)]
    pub padding: Option<String>,
    /// Backend: rustcrypto, ciphermeter, ring or openssl (default: the entry's first).
    #[arg(long)]
    pub backend: Option<String>,
    /// Input as hex; without it, the raw bytes of standard input.
    #[arg(long)]
    pub input: Option<String>,
}

pub fn run(args: Args, direction: Direction) -> Result<(), CliError> {
    let key = crate::args::decode_hex("--key", &args.key)?;
    let entry = catalogue::catalogue().resolve(&args.algorithm, Some(key.len()))?;
    if !matches!(
        entry.kind,
        Kind::BlockMode | Kind::Stream | Kind::Aead | Kind::Baseline
    ) {
        return Err(CliError::usage(format!(
            "{} is a {}, not a cipher; use `ciphermeter {}`",
            entry.id,
            entry.kind,
            if entry.kind == Kind::Asymmetric {
                "sign/verify"
            } else {
                "digest"
            }
        )));
    }
    let padding = parse_padding(entry, args.padding.as_deref())?;
    let iv = match &args.iv {
        Some(text) => crate::args::decode_hex("--iv", text)?,
        None => Zeroizing::new(Vec::new()),
    };
    let aad = match &args.aad {
        Some(_) if entry.kind != Kind::Aead => {
            return Err(CliError::usage(format!(
                "--aad applies to AEADs only; {} is a {}",
                entry.id, entry.kind
            )));
        }
        Some(text) => crate::args::decode_hex("--aad", text)?,
        None => Zeroizing::new(Vec::new()),
    };
    let backend = args.backend.as_deref().map(Backend::parse).transpose()?;
    let input = read_input(args.input.as_deref())?;

    let mut cipher = entry.cipher(backend, &key)?;
    let params = Params {
        iv: &iv,
        aad: &aad,
        padding,
    };
    let mut out = Zeroizing::new(Vec::with_capacity(input.len() + 64));
    match direction {
        Direction::Encrypt => cipher.encrypt(&params, &input, &mut out)?,
        Direction::Decrypt => cipher.decrypt(&params, &input, &mut out)?,
    }
    println!("{}", hex::encode(&*out));
    Ok(())
}

/// The padding to use: only ECB and CBC take one.
pub fn parse_padding(entry: &catalogue::Entry, given: Option<&str>) -> Result<Padding, CliError> {
    let Some(text) = given else {
        return Ok(Padding::default());
    };
    let padding = Padding::parse(text).ok_or_else(|| {
        CliError::usage(format!(
            "unknown padding '{text}' (known: none, pkcs7, zero, iso7816, x923)"
        ))
    })?;
    let padded = entry.mode.is_some_and(|m| m.is_padded());
    if !padded && padding != Padding::None {
        return Err(CliError::usage(format!(
            "{}: padding '{text}' does not apply; only ECB and CBC modes are padded",
            entry.id
        )));
    }
    Ok(padding)
}
