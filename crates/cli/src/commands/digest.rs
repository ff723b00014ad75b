//! `digest`: a hash, or a MAC when the algorithm is one (then `--key` is needed).

use catalogue::Backend;
use clap::Args as ClapArgs;

use crate::args::read_input;
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Hash or MAC id, e.g. sha256, sha3-256, hmac-sha256, cmac-aes-128, poly1305.
    pub algorithm: String,
    /// MAC key as hex (MACs only).
    #[arg(long)]
    pub key: Option<String>,
    /// Backend: rustcrypto, ring or openssl (default: the entry's first).
    #[arg(long)]
    pub backend: Option<String>,
    /// Input as hex; without it, the raw bytes of standard input.
    #[arg(long)]
    pub input: Option<String>,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let entry = catalogue::catalogue().resolve(&args.algorithm, None)?;
    let backend = args.backend.as_deref().map(Backend::parse).transpose()?;
    entry.check_digest(args.key.is_some())?;
    let mut out = Vec::new();
    match &args.key {
        None => {
            let input = read_input(args.input.as_deref())?;
            entry.hasher(backend)?.digest(&input, &mut out);
        }
        Some(key) => {
            let key = crate::args::decode_hex("--key", key)?;
            let input = read_input(args.input.as_deref())?;
            entry.mac(backend, &key)?.compute(&input, &mut out)?;
        }
    }
    println!("{}", hex::encode(out));
    Ok(())
}
