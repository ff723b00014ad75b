//! `ciphermeter open`: the inverse of `seal`; any failure prints no plaintext and
//! exits with status 2.

use std::io::Write;
use std::path::PathBuf;

use clap::Args as ClapArgs;
use payload::Encoding;
use seal::host::oscore;
use seal::{HostSealer, SealKey, limits};

use crate::args::{encoding, read_stdin, serialization};
use crate::error::CliError;

#[derive(ClapArgs)]
pub struct Args {
    /// Key file from `ciphermeter keygen --scheme S`.
    #[arg(long)]
    key_file: PathBuf,
    /// Container: json, binary, cose or oscore (as given to `seal`).
    #[arg(long, default_value = "json")]
    container: String,
    /// Transport encoding: raw, hex, base64, base64url (as given to `seal`).
    #[arg(long, default_value = "raw")]
    encoding: String,
    /// Serialization of the reading; cbor and msgpack readings are printed as JSON.
    /// Default: print the plaintext byte for byte.
    #[arg(long)]
    serialization: Option<String>,
    /// Old spelling of --serialization.
    #[arg(long, hide = true, conflicts_with = "serialization")]
    format: Option<String>,
    /// Open a message sealed with a legacy, broken or unauthenticated scheme.
    #[arg(long)]
    allow_insecure: bool,
}

pub fn run(args: Args) -> Result<(), CliError> {
    let container: seal::host::container::MessageContainer = args.container.parse()?;
    let encoding = encoding(&args.encoding)?;
    let format = crate::renamed::old(args.format.as_deref(), "--format", "--serialization")
        .or(args.serialization.as_deref())
        .map(serialization)
        .transpose()?
        .flatten();
    let max = Encoding::Hex.encoded_len(limits::MESSAGE) + 2;
    let input = read_stdin(max, "the message")?;
    let message = encoding
        .decode_printed(input, container.is_text())
        .map_err(|e| CliError::usage(format!("cannot read the message: {e}")))?;
    let plaintext = match container.sealed() {
        Some(container) => {
            let key = SealKey::load(&args.key_file)?;
            let mut sealer = HostSealer::new(&key, args.allow_insecure)?;
            let opened = sealer.open(container, &message)?;
            if !opened.aad.is_empty() {
                eprintln!("associated data: {}", String::from_utf8_lossy(&opened.aad));
            }
            opened.plaintext.to_vec()
        }
        // oscore, whose key file is a security context.
        None => {
            let key = oscore::OscoreKey::load(&args.key_file)?;
            let opened = oscore::open_reading(&key, &message)?;
            eprintln!(
                "sequence number {}, POST /{}",
                opened.sequence, opened.uri_path
            );
            opened.reading
        }
    };
    let shown = payload::plaintext::shown(plaintext, format).map_err(CliError::Usage)?;
    std::io::stdout().lock().write_all(&shown)?;
    Ok(())
}
