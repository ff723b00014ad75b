//! `encrypt` and `decrypt`: one algorithm, hex in, hex out.

use catalogue::{Backend, Direction, Params};
use clap::Args as ClapArgs;
use zeroize::Zeroizing;

use crate::args::{decode_hex, read_input};
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
    let key = decode_hex("--key", &args.key)?;
    let entry = catalogue::catalogue().resolve(&args.algorithm, Some(key.len()))?;
    entry.check_cipher()?;
    let padding = entry.padding(args.padding.as_deref())?;
    let iv = decode_hex("--iv", args.iv.as_deref().unwrap_or(""))?;
    if args.aad.is_some() {
        entry.check_aad()?;
    }
    let aad = decode_hex("--aad", args.aad.as_deref().unwrap_or(""))?;
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
